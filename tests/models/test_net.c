/* SPDX-License-Identifier: MIT */
/*
 * Flow network tests: one uncontended transfer agrees with the closed form,
 * fair sharing and its re-computation, the textbook max-min example, and the
 * check-mode invariants along the way.
 */
#include <glib.h>
#include <math.h>
#include <stdlib.h>

#include "sim/models/net/gm_net.h"
#include "tests/models/net_starter.h"

typedef struct done_log {
	uint64_t tag[16];
	ge_time t[16];
	int n;
} done_log;

static void on_done(void *ctx, uint64_t tag, ge_time now)
{
	done_log *d = ctx;
	d->tag[d->n] = tag;
	d->t[d->n] = now;
	d->n++;
}


/* engine events handled by the last run() */
static uint64_t last_events;
/* how the next run() solves (gm_net_set_solve) */
static gm_net_solve run_solve = GM_NET_SOLVE_AUTO;

/* Links: bandwidths in B/s (link i with a latency of i + 1 ns). Runs
 * with check mode on, solving by `how`; done(ctx, tag, t) at each end;
 * the net's counters into keep (NULL: none). */
static void net_run(const double *bw, int nlinks, const start_ev *evs, int n, gm_net_done_fn done,
		    void *ctx, gm_net_solve how, gm_net *keep)
{
	ge_engine e;
	ge_engine_init(&e, 1);
	e.check = true;
	gm_net net;
	gm_net_init(&net, &e, done, ctx);
	gm_net_set_solve(&net, how);
	for (int i = 0; i < nlinks; i++)
		gm_net_add_link(&net, "l", GM_LINK_GENERIC, bw[i], 1000 * (i + 1));
	starter_run(&e, &net, evs, n);
	last_events = e.events_handled;
	if (keep) {
		keep->recomputes = net.recomputes;
		keep->comp_flow_visits = net.comp_flow_visits;
		keep->local_solves = net.local_solves;
		keep->local_fallbacks = net.local_fallbacks;
	}
	gm_net_fini(&net);
	ge_engine_fini(&e);
}

static void run(const double *bw, int nlinks, const start_ev *evs, int n, done_log *d, gm_net *keep)
{
	net_run(bw, nlinks, evs, n, on_done, d, run_solve, keep);
}

static void test_uncontended_matches_closed_form(void)
{
	double bw[2] = {50e9, 25e9};
	start_ev ev[1] = {{.t = 0, .route = {0, 1}, .nhops = 2, .bytes = 1 << 20}};
	done_log d = {0};
	run(bw, 2, ev, 1, &d, NULL);
	g_assert_cmpint(d.n, ==, 1);
	/* closed form without the latency: bytes / min bandwidth */
	ge_engine e;
	ge_engine_init(&e, 1);
	gm_net net;
	gm_net_init(&net, &e, on_done, NULL);
	gm_net_add_link(&net, "a", GM_LINK_GENERIC, 50e9, 1000);
	gm_net_add_link(&net, "b", GM_LINK_GENERIC, 25e9, 2000);
	uint32_t route[2] = {0, 1};
	int64_t est = gm_net_estimate_ps(&net, route, 2, 1 << 20);
	int64_t lat = gm_net_route_latency(&net, route, 2);
	g_assert_cmpint(lat, ==, 3000);
	g_assert_cmpint(d.t[0], ==, est - lat);
	g_assert_cmpint(d.t[0], ==, (int64_t)ceil((1 << 20) / 25e9 * 1e12));
	gm_net_fini(&net);
	ge_engine_fini(&e);
}

/* A route through a NIC is one network step: its NVLink links (PXN's hop)
 * add no latency; a route inside a node pays NVLink's. */
static void test_network_step_latency(void)
{
	ge_engine e;
	ge_engine_init(&e, 1);
	gm_net net;
	gm_net_init(&net, &e, on_done, NULL);
	gm_net_add_link(&net, "nvl.tx", GM_LINK_NVLINK, 374e9, 3400000);
	gm_net_add_link(&net, "nvl.rx", GM_LINK_NVLINK, 374e9, 0);
	gm_net_add_link(&net, "pcie", GM_LINK_PCIE, 52e9, 0);
	gm_net_add_link(&net, "nic", GM_LINK_NIC, 50e9, 1000000);
	uint32_t intra[2] = {0, 1}, pxn[4] = {0, 1, 2, 3}, direct[2] = {2, 3};
	g_assert_cmpint(gm_net_route_latency(&net, intra, 2), ==, 3400000);
	g_assert_cmpint(gm_net_route_latency(&net, pxn, 4), ==, gm_net_route_latency(&net, direct, 2));
	g_assert_cmpint(gm_net_hop_latency(&net, pxn, 4, 0), ==, 0);
	g_assert_cmpint(gm_net_hop_latency(&net, intra, 2, 0), ==, 3400000);
	/* and the bandwidth still counts the NVLink hop: the slowest link */
	g_assert_cmpint(gm_net_estimate_ps(&net, pxn, 4, 1e6), ==, gm_net_estimate_ps(&net, direct, 2, 1e6));
	gm_net_fini(&net);
	ge_engine_fini(&e);
}

static void test_fair_share_and_speedup(void)
{
	/* one link of 1e9 B/s = 1 B/ns. A: 1000 B at t=0; B: 3000 B at t=0.
	 * Both at 0.5 B/ns until A ends at 2000 ns (B has 2000 B left), then B
	 * alone at 1 B/ns ends at 4000 ns. */
	double bw[1] = {1e9};
	start_ev ev[2] = {{.t = 0, .route = {0}, .nhops = 1, .bytes = 1000},
			  {.t = 0, .route = {0}, .nhops = 1, .bytes = 3000}};
	done_log d = {0};
	run(bw, 1, ev, 2, &d, NULL);
	g_assert_cmpint(d.n, ==, 2);
	g_assert_cmpuint(d.tag[0], ==, 0);
	g_assert_cmpint(d.t[0], ==, 2000000);
	g_assert_cmpuint(d.tag[1], ==, 1);
	g_assert_cmpint(d.t[1], ==, 4000000);
}

static void test_late_arrival(void)
{
	/* A: 2000 B at t=0 alone at 1 B/ns; B: 500 B arrives at 1000 ns: both at
	 * 0.5 until B ends at 2000 ns (A has 500 B left), A ends at 2500 ns. */
	double bw[1] = {1e9};
	start_ev ev[2] = {{.t = 0, .route = {0}, .nhops = 1, .bytes = 2000},
			  {.t = 1000000, .route = {0}, .nhops = 1, .bytes = 500}};
	done_log d = {0};
	run(bw, 1, ev, 2, &d, NULL);
	g_assert_cmpuint(d.tag[0], ==, 1);
	g_assert_cmpint(d.t[0], ==, 2000000);
	g_assert_cmpuint(d.tag[1], ==, 0);
	g_assert_cmpint(d.t[1], ==, 2500000);
}

static void test_max_min_textbook(void)
{
	/* L0 1 B/ns shared by f0 and f1; L1 2 B/ns shared by f1 and f2.
	 * Max-min: f0 = f1 = 0.5 (L0 bottleneck), f2 = 1.5 (rest of L1).
	 * Bytes: f0 500 -> ends 1000 ns; f1 500 -> ends 1000 ns; f2 3000:
	 * 1.5 B/ns for 1000 ns = 1500, then alone at 2 B/ns: 750 ns more. */
	double bw[2] = {1e9, 2e9};
	start_ev ev[3] = {{.t = 0, .route = {0}, .nhops = 1, .bytes = 500},
			  {.t = 0, .route = {0, 1}, .nhops = 2, .bytes = 500},
			  {.t = 0, .route = {1}, .nhops = 1, .bytes = 3000}};
	done_log d = {0};
	run(bw, 2, ev, 3, &d, NULL);
	g_assert_cmpint(d.n, ==, 3);
	g_assert_cmpint(d.t[0], ==, 1000000);
	g_assert_cmpint(d.t[1], ==, 1000000);
	g_assert_cmpuint(d.tag[2], ==, 2);
	g_assert_cmpint(d.t[2], ==, 1750000);
}

static void test_disjoint_components_are_local(void)
{
	/* 8 flows on 8 disjoint links: every flow is alone on its route, so no
	 * start or end needs a component search (the fast path of gm_net). */
	double bw[8];
	start_ev ev[8];
	for (int i = 0; i < 8; i++) {
		bw[i] = 1e9;
		ev[i] = (start_ev){.t = 0, .route = {(uint32_t)i}, .nhops = 1, .bytes = 100.0 * (i + 1)};
	}
	done_log d = {0};
	gm_net keep = {0};
	run(bw, 8, ev, 8, &d, &keep);
	g_assert_cmpint(d.n, ==, 8);
	g_assert_cmpuint(keep.comp_flow_visits, ==, 0);
	g_assert_cmpuint(keep.recomputes, ==, 0);
	for (int i = 0; i < 8; i++)
		g_assert_cmpint(d.t[i], ==, 100000 * (i + 1));
}

static void test_one_solve_per_instant(void)
{
	/* 16 flows start together on one link of 1 B/ns, flow i with 100 (i + 1)
	 * bytes. Between two ends the 16 - i flows left each move 100 bytes at
	 * 1 / (16 - i) B/ns, so flow i ends (16 - i) 100 ns after flow i - 1,
	 * flow 0 at 1600 ns. The 16 starts at one instant are solved once, and
	 * so is each end (one flow leaves per instant): 16 solves, where a
	 * solve per start and per end would take 31. Each solve moves the end
	 * of every flow left, but only the earliest end is an engine event:
	 * 16 starts, 16 solves, 16 ends and the 16 superseded events of the
	 * earliest flow: 64 events, where an event per moved end makes 168. */
	double bw[1] = {1e9};
	start_ev ev[16];
	for (int i = 0; i < 16; i++)
		ev[i] = (start_ev){.t = 0, .route = {0}, .nhops = 1, .bytes = 100.0 * (i + 1)};
	done_log d = {0};
	gm_net keep = {0};
	run(bw, 1, ev, 16, &d, &keep);
	g_assert_cmpint(d.n, ==, 16);
	int64_t t = 0;
	for (int i = 0; i < 16; i++) {
		t += (int64_t)(16 - i) * 100000;
		g_assert_cmpuint(d.tag[i], ==, (uint64_t)i);
		g_assert_cmpint(llabs(d.t[i] - t), <=, 16);
	}
	g_assert_cmpuint(keep.recomputes, ==, 16);
	g_assert_cmpuint(last_events, ==, 64);
}

/* A change that moves a flow two links away: f1 crosses L0 (1 B/ns, with
 * f0) and L1 (2 B/ns, with f2). Max-min: f0 = f1 = 0.5 (L0), f2 = 1.5 (the
 * rest of L1). When f0 ends at 1000 ns (f1 has 1000 B left, f2 1500 B),
 * the local solve starts from L0's flows (f1) with f2 held at 1.5, which
 * leaves f1 0.5 on L1; f2 is faster there than f1, whose bottleneck L1
 * is, so f2 joins and the two share L1 at 1 B/ns: f1 ends at 2000 ns,
 * f2 has 500 B left at 2 B/ns and ends at 2250 ns. Four flows of 4000 B
 * share L2 meanwhile (ending at 16000 ns), so the set of two stays below
 * half the active flows, where the local solve would give way to the
 * component's. Check mode checks the max-min conditions after every
 * solve. */
static void test_local_solve_joins(void)
{
	double bw[3] = {1e9, 2e9, 1e9};
	start_ev ev[7] = {{.t = 0, .route = {0}, .nhops = 1, .bytes = 500},
			  {.t = 0, .route = {0, 1}, .nhops = 2, .bytes = 1500},
			  {.t = 0, .route = {1}, .nhops = 1, .bytes = 3000}};
	for (int i = 3; i < 7; i++)
		ev[i] = (start_ev){.t = 0, .route = {2}, .nhops = 1, .bytes = 4000};
	done_log d = {0};
	gm_net keep = {0};
	run_solve = GM_NET_SOLVE_LOCAL;
	run(bw, 3, ev, 7, &d, &keep);
	run_solve = GM_NET_SOLVE_AUTO;
	g_assert_cmpint(d.n, ==, 7);
	for (int i = 3; i < 7; i++)
		g_assert_cmpint(d.t[i], ==, 16000000);
	g_assert_cmpuint(d.tag[0], ==, 0);
	g_assert_cmpint(d.t[0], ==, 1000000);
	g_assert_cmpuint(d.tag[1], ==, 1);
	g_assert_cmpint(d.t[1], ==, 2000000);
	g_assert_cmpuint(d.tag[2], ==, 2);
	g_assert_cmpint(d.t[2], ==, 2250000);
	g_assert_cmpuint(keep.local_solves, >=, 2);
	g_assert_cmpuint(keep.local_fallbacks, ==, 0);
}

typedef struct end_log {
	ge_time *t;
} end_log;

static void on_end(void *ctx, uint64_t tag, ge_time now)
{
	((end_log *)ctx)->t[tag] = now;
}

/* Random flows over random routes, solved by component and locally, each
 * run in check mode (every solve's rates max-min fair): every flow ends at
 * the same time within a nanosecond, and the local run solves locally
 * (and, on the sparse routes, mostly without giving way). */
static void run_random(const start_ev *evs, int n, const double *bw, int nlinks, gm_net_solve how,
		       ge_time *ends, gm_net *keep)
{
	end_log log = {.t = ends};
	net_run(bw, nlinks, evs, n, on_end, &log, how, keep);
}

static void test_local_solve_random(void)
{
	enum { MAXL = 240, NF = 400 };
	for (uint32_t seed = 1; seed <= 6; seed++) {
		/* dense (24 links: the sets often grow past half the flows and
		 * give way) and sparse (240 links: they settle) */
		const int NL = seed <= 3 ? 24 : MAXL;
		GRand *rng = g_rand_new_with_seed(seed);
		double bw[MAXL];
		for (int i = 0; i < NL; i++)
			bw[i] = 1e9 * (1 + g_rand_int_range(rng, 0, 8));
		start_ev *ev = g_new0(start_ev, NF);
		for (int f = 0; f < NF; f++) {
			ev[f].t = g_rand_int_range(rng, 0, 200) * 10000;
			ev[f].nhops = g_rand_int_range(rng, 1, 5);
			for (int h = 0; h < ev[f].nhops; h++) /* distinct links */
				for (bool again = true; again;) {
					ev[f].route[h] = (uint32_t)g_rand_int_range(rng, 0, NL);
					again = false;
					for (int k = 0; k < h; k++)
						again |= ev[f].route[k] == ev[f].route[h];
				}
			ev[f].bytes = 1000.0 * g_rand_int_range(rng, 1, 1000);
		}
		ge_time comp[NF], loc[NF];
		gm_net kc = {0}, kl = {0};
		run_random(ev, NF, bw, NL, GM_NET_SOLVE_COMPONENT, comp, &kc);
		run_random(ev, NF, bw, NL, GM_NET_SOLVE_LOCAL, loc, &kl);
		g_assert_cmpuint(kc.local_solves, ==, 0);
		g_assert_cmpuint(kl.local_solves, >, 0);
		g_test_message("seed %u: %" G_GUINT64_FORMAT " local solves, %" G_GUINT64_FORMAT
			       " of them given up for the component", seed, kl.local_solves,
			       kl.local_fallbacks);
		if (NL == MAXL)
			g_assert_cmpuint(10 * kl.local_fallbacks, <, kl.local_solves);
		for (int f = 0; f < NF; f++)
			g_assert_cmpint(llabs(comp[f] - loc[f]), <=, 1000);
		g_free(ev);
		g_rand_free(rng);
	}
}

/* auto: whole components while they stay small; once one holds more
 * than GM_NET_LOCAL_FROM flows, local solves while that many are
 * active. 4200 flows of different sizes on one link: the first solve
 * meets the component of 4200, the ends after it are solved locally
 * while more than 4096 flows are left, then by component again. */
static void test_auto_goes_local(void)
{
	enum { NF = GM_NET_LOCAL_FROM + 104 };
	double bw[1] = {1e9};
	start_ev *ev = g_new0(start_ev, NF);
	for (int f = 0; f < NF; f++)
		ev[f] = (start_ev){.t = 0, .route = {0}, .nhops = 1, .bytes = 10.0 * (f + 1)};
	ge_time *ends = g_new(ge_time, NF);
	gm_net keep = {0};
	run_random(ev, NF, bw, 1, GM_NET_SOLVE_AUTO, ends, &keep);
	/* one solve for the starts and one per end but the last (alone on
	 * the link): local for the ends that leave more than 4096 */
	g_assert_cmpuint(keep.local_solves, ==, NF - GM_NET_LOCAL_FROM - 1);
	g_assert_cmpuint(keep.recomputes, ==, NF);
	for (int f = 1; f < NF; f++)
		g_assert_cmpint(ends[f], >, ends[f - 1]);
	g_free(ev);
	g_free(ends);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/net/uncontended-closed-form", test_uncontended_matches_closed_form);
	g_test_add_func("/net/network-step-latency", test_network_step_latency);
	g_test_add_func("/net/fair-share", test_fair_share_and_speedup);
	g_test_add_func("/net/late-arrival", test_late_arrival);
	g_test_add_func("/net/max-min", test_max_min_textbook);
	g_test_add_func("/net/local-components", test_disjoint_components_are_local);
	g_test_add_func("/net/one-solve-per-instant", test_one_solve_per_instant);
	g_test_add_func("/net/local-solve-joins", test_local_solve_joins);
	g_test_add_func("/net/local-solve-random", test_local_solve_random);
	g_test_add_func("/net/auto-goes-local", test_auto_goes_local);
	return g_test_run();
}
