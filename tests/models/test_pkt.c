/* SPDX-License-Identifier: MIT */
/*
 * Packet fidelity tests (gm_net in packet mode, gm_pkt.c): one uncontended
 * flow lands exactly when the store-and-forward closed form says, for any
 * route, packet size and remainder; queues sharing a link take turns; a
 * queue held back downstream leaves the upstream link to the others (back
 * pressure) close to the fluid model's max-min shares; a queue's messages
 * land in order; and check mode holds throughout.
 */
#include <glib.h>
#include <math.h>

#include "sim/models/net/gm_net.h"
#include "tests/models/net_starter.h"

#define MAXEV 64

typedef struct log {
	uint64_t tag[MAXEV];
	ge_time t[MAXEV];
	int n;
} log_t;

typedef struct world {
	log_t done, land;
} world;

static void rec(log_t *l, uint64_t tag, ge_time now)
{
	g_assert_cmpint(l->n, <, MAXEV);
	l->tag[l->n] = tag;
	l->t[l->n] = now;
	l->n++;
}

static void on_done(void *ctx, uint64_t tag, ge_time now) { rec(&((world *)ctx)->done, tag, now); }
static void on_land(void *ctx, uint64_t tag, ge_time now) { rec(&((world *)ctx)->land, tag, now); }


/* Links with the given bandwidths (B/s) and latencies (ps), flows started
 * as listed, packet mode with P-byte packets and `buf` per hop; check mode
 * on. In flow mode when P is 0 (on_land is then never called). */
static void run(const double *bw, const int64_t *lat, int nlinks, const start_ev *evs, int n,
		uint32_t P, uint32_t buf, world *w, uint64_t *packets)
{
	ge_engine e;
	ge_engine_init(&e, 1);
	e.check = true;
	gm_net net;
	gm_net_init(&net, &e, on_done, w);
	if (P)
		gm_net_set_packet(&net, P, buf, on_land);
	for (int i = 0; i < nlinks; i++)
		gm_net_add_link(&net, "l", GM_LINK_GENERIC, bw[i], lat[i]);
	starter_run(&e, &net, evs, n);
	if (packets)
		*packets = net.packets;
	gm_net_fini(&net);
	ge_engine_fini(&e);
}

/* The closed form on a throw-away net with the same links. */
static int64_t estimate(const double *bw, const int64_t *lat, int nlinks, const uint32_t *route,
			int nhops, uint32_t P, double bytes)
{
	ge_engine e;
	ge_engine_init(&e, 1);
	gm_net net;
	gm_net_init(&net, &e, NULL, NULL);
	gm_net_set_packet(&net, P, 8, NULL);
	for (int i = 0; i < nlinks; i++)
		gm_net_add_link(&net, "l", GM_LINK_GENERIC, bw[i], lat[i]);
	int64_t t = gm_net_estimate_pkt_ps(&net, route, nhops, bytes);
	gm_net_fini(&net);
	ge_engine_fini(&e);
	return t;
}

static void test_uncontended_matches_closed_form(void)
{
	/* a fast link, a slow one and a fast one again; latencies on each */
	const double bw[4] = {100e9, 25e9, 50e9, 400e9};
	const int64_t lat[4] = {1000000, 0, 250000, 3000};
	const uint32_t routes[3][4] = {{0, 1, 2, 3}, {1}, {3, 0}};
	const int nh[3] = {4, 1, 2};
	const double sizes[5] = {1, 4096, 4097, 1 << 20, 3e6 + 17};
	const uint32_t pk[3] = {4096, 512, 65536};
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 5; k++)
			for (int p = 0; p < 3; p++) {
				start_ev ev = {.t = 0, .nhops = nh[r], .bytes = sizes[k]};
				for (int h = 0; h < nh[r]; h++)
					ev.route[h] = routes[r][h];
				world w = {0};
				uint64_t pkts = 0;
				run(bw, lat, 4, &ev, 1, pk[p], 8, &w, &pkts);
				g_assert_cmpint(w.done.n, ==, 1);
				g_assert_cmpint(w.land.n, ==, 1);
				g_assert_cmpuint(w.land.tag[0], ==, 100);
				int64_t est = estimate(bw, lat, 4, routes[r], nh[r], pk[p], sizes[k]);
				if (w.land.t[0] != est) g_test_message("r %d size %g P %u: %lld vs %lld", r, sizes[k], pk[p], (long long)w.land.t[0], (long long)est);
				g_assert_cmpint(w.land.t[0], ==, est);
				/* the sender is done when its last packet left the first link */
				uint64_t npk = (uint64_t)ceil(sizes[k] / pk[p]);
				g_assert_cmpuint(pkts, ==, npk * (uint64_t)nh[r]);
				g_assert_cmpint(w.done.t[0], <=, w.land.t[0]);
				g_assert_cmpint(w.done.t[0], >=, (int64_t)(sizes[k] / bw[routes[r][0]] * 1e12));
			}
}

/* One hop, whole store and forward: bytes/B + (hops - 1) packet times +
 * latencies, against the fluid model's bytes/B + latencies. */
static void test_store_and_forward_cost(void)
{
	const double bw[3] = {50e9, 50e9, 50e9};
	const int64_t lat[3] = {1000000, 1000000, 1000000};
	start_ev ev = {.t = 0, .route = {0, 1, 2}, .nhops = 3, .bytes = 1 << 20};
	world w = {0};
	run(bw, lat, 3, &ev, 1, 4096, 8, &w, NULL);
	double fluid_ps = (1 << 20) / 50e9 * 1e12 + 3e6;
	double extra = 2 * 4096 / 50e9 * 1e12;
	g_assert_cmpfloat(fabs((double)w.land.t[0] - (fluid_ps + extra)), <, 10);
}

/* Two queues on one link, equal sizes: round robin halves the bandwidth and
 * both finish together within two packet times (the first queue sends one
 * packet alone, and is back in the ring before the second queue joins). */
static void test_round_robin_share(void)
{
	const double bw[1] = {50e9};
	const int64_t lat[1] = {0};
	start_ev ev[2] = {{.t = 0, .queue = 0, .route = {0}, .nhops = 1, .bytes = 1 << 20},
			  {.t = 0, .queue = 1, .route = {0}, .nhops = 1, .bytes = 1 << 20}};
	world w = {0};
	run(bw, lat, 1, ev, 2, 4096, 8, &w, NULL);
	g_assert_cmpint(w.land.n, ==, 2);
	double both = 2.0 * (1 << 20) / 50e9 * 1e12;
	double pkt = 4096 / 50e9 * 1e12;
	for (int i = 0; i < 2; i++)
		g_assert_cmpfloat(fabs((double)w.land.t[i] - both), <=, 2 * pkt + 1);
}

/* The textbook max-min case: A crosses links 0 and 1, B only link 0, and
 * link 1 is four times slower. Fluid: A gets 12.5 GB/s (link 1), B the rest
 * of link 0 (37.5 GB/s). With back-pressure the packets come within a few
 * percent of those finish times; without it (an unbounded hop buffer) link
 * 0 is split evenly and B is much slower. */
static void test_backpressure_approaches_max_min(void)
{
	const double bw[2] = {50e9, 12.5e9};
	const int64_t lat[2] = {0, 0};
	start_ev ev[2] = {{.t = 0, .queue = 0, .route = {0, 1}, .nhops = 2, .bytes = 4 << 20},
			  {.t = 0, .queue = 1, .route = {0}, .nhops = 1, .bytes = 4 << 20}};
	world fl = {0}, pk = {0}, unb = {0};
	run(bw, lat, 2, ev, 2, 0, 0, &fl, NULL);
	run(bw, lat, 2, ev, 2, 4096, 4, &pk, NULL);
	run(bw, lat, 2, ev, 2, 4096, 1u << 20, &unb, NULL);
	/* flow mode: B's transfer ends first, at 4 MiB / 37.5 GB/s */
	g_assert_cmpuint(fl.done.tag[0], ==, 1);
	double b_fluid = (double)fl.done.t[0];
	g_assert_cmpfloat(fabs(b_fluid - (4 << 20) / 37.5e9 * 1e12), <, 2);
	/* packet mode: B lands first, within 3 % of the fluid time */
	g_assert_cmpuint(pk.land.tag[0], ==, 101);
	g_assert_cmpfloat(fabs((double)pk.land.t[0] - b_fluid) / b_fluid, <, 0.03);
	/* A is bound by link 1 in both: 4 MiB / 12.5 GB/s */
	double a_ps = (4 << 20) / 12.5e9 * 1e12;
	g_assert_cmpfloat(fabs((double)pk.land.t[1] - a_ps) / a_ps, <, 0.01);
	/* no back-pressure: B shares link 0 evenly with A's surplus packets */
	double b_even = 2.0 * (4 << 20) / 50e9 * 1e12;
	g_assert_cmpuint(unb.land.tag[0], ==, 101);
	g_assert_cmpfloat(fabs((double)unb.land.t[0] - b_even) / b_even, <, 0.01);
}

/* A queue's messages land in the order sent: a one-packet message queued
 * behind a large one on the same queue lands after it, though a one-packet
 * message on another queue overtakes it. Empty messages keep their place
 * too. */
static void test_queue_order(void)
{
	const double bw[2] = {50e9, 10e9};
	const int64_t lat[2] = {500000, 100000};
	start_ev ev[4] = {{.t = 0, .queue = 7, .route = {0, 1}, .nhops = 2, .bytes = 1 << 20},
			  {.t = 30000000, .queue = 7, .route = {0, 1}, .nhops = 2, .bytes = 8},
			  {.t = 30000000, .queue = 9, .route = {0, 1}, .nhops = 2, .bytes = 8},
			  {.t = 40000000, .queue = 7, .route = {0, 1}, .nhops = 2, .bytes = 0}};
	world w = {0};
	run(bw, lat, 2, ev, 4, 4096, 8, &w, NULL);
	g_assert_cmpint(w.land.n, ==, 4);
	/* queue 9's small message first, then queue 7's three in order */
	g_assert_cmpuint(w.land.tag[0], ==, 102);
	g_assert_cmpuint(w.land.tag[1], ==, 100);
	g_assert_cmpuint(w.land.tag[2], ==, 101);
	g_assert_cmpuint(w.land.tag[3], ==, 103);
	for (int i = 1; i < 4; i++)
		g_assert_cmpint(w.land.t[i], >=, w.land.t[i - 1]);
}

/* Same input, same output, and the packet count is bytes / P per hop. */
static void test_deterministic(void)
{
	const double bw[3] = {50e9, 25e9, 50e9};
	const int64_t lat[3] = {1000, 2000, 3000};
	start_ev ev[6];
	for (int i = 0; i < 6; i++)
		ev[i] = (start_ev){.t = 1000 * (i % 3), .queue = (uint32_t)i % 4,
				   .route = {(uint32_t)i % 2, 2}, .nhops = 2, .bytes = 100000.0 * (i + 1)};
	/* a queue keeps one route: queues 0..3 with i % 4 and i % 2 agree */
	world a = {0}, b = {0};
	uint64_t pa, pb;
	run(bw, lat, 3, ev, 6, 1024, 2, &a, &pa);
	run(bw, lat, 3, ev, 6, 1024, 2, &b, &pb);
	g_assert_cmpint(a.land.n, ==, 6);
	g_assert_cmpmem(&a, sizeof(a), &b, sizeof(b));
	uint64_t want = 0;
	for (int i = 0; i < 6; i++)
		want += 2 * (uint64_t)ceil(ev[i].bytes / 1024);
	g_assert_cmpuint(pa, ==, want);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/pkt/uncontended_matches_closed_form", test_uncontended_matches_closed_form);
	g_test_add_func("/pkt/store_and_forward_cost", test_store_and_forward_cost);
	g_test_add_func("/pkt/round_robin_share", test_round_robin_share);
	g_test_add_func("/pkt/backpressure_approaches_max_min", test_backpressure_approaches_max_min);
	g_test_add_func("/pkt/queue_order", test_queue_order);
	g_test_add_func("/pkt/deterministic", test_deterministic);
	return g_test_run();
}
