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

/* Links: bandwidths in B/s. Runs with check mode on. */
static void run(const double *bw, int nlinks, const start_ev *evs, int n, done_log *d, gm_net *keep)
{
	ge_engine e;
	ge_engine_init(&e, 1);
	e.check = true;
	gm_net net;
	gm_net_init(&net, &e, on_done, d);
	for (int i = 0; i < nlinks; i++)
		gm_net_add_link(&net, "l", GM_LINK_GENERIC, bw[i], 1000 * (i + 1));
	starter_run(&e, &net, evs, n);
	last_events = e.events_handled;
	if (keep) {
		keep->recomputes = net.recomputes;
		keep->comp_flow_visits = net.comp_flow_visits;
	}
	gm_net_fini(&net);
	ge_engine_fini(&e);
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
	return g_test_run();
}
