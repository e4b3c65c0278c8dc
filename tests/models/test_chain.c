/* SPDX-License-Identifier: MIT */
/*
 * Broadcast and reduce (NCCL's ring: a chain from or to rank 0) on the
 * simulated cluster.
 *  - The closed form follows the flow run: within 0.1 % on one node (to
 *    the last digit where every channel's part is the same; where they
 *    differ by an element, the flow's shorter parts end a few ns early),
 *    within 8 % across 2 and 8 DGX H100 nodes and 4 p5 nodes, 8 B to 1 GiB.
 *  - On one node the chain's links all carry the whole buffer: 1 GiB
 *    reaches 90-100 % of the GPU's NVLink port.
 *  - A reduce moves what a broadcast moves, the other way.
 *  - nccl-tests' root column is 0; busbw is algbw.
 *  - NCCL's model: the ring only, its step latencies (n of them, the
 *    tree's for Simple, one on a node whose channels are the same ring).
 *  - Other algorithms are refused with the reason.
 */
#include <math.h>

#include "sim/models/closed/gm_proto.h"
#include "sim/models/run/gm_run.h"
#include "sim/models/report/gm_report.h"
#include "sim/models/closed/gm_tuner.h"
#include "tests/models/run_testutil.h"

static const char bc[] = "schema_version: 1\n"
			 "topology: {preset: dgx-h100, nodes: 1}\n"
			 "collective: {op: broadcast, sizes: [8B, 1MiB, 16MiB, 256MiB, 1GiB]}\n";

static void test_closed_form(void)
{
	static const char *const where[][2] = {{"topology.nodes=1", NULL},
					       {"topology.nodes=2", NULL},
					       {"topology.nodes=8", NULL},
					       {"topology.preset=p5", "topology.nodes=4"}};
	for (size_t w = 0; w < G_N_ELEMENTS(where); w++)
		for (int red = 0; red < 2; red++) {
			const char *op = red ? "collective.op=reduce" : "collective.op=broadcast";
			const char *const flow[] = {op, where[w][0], where[w][1], NULL};
			const char *const ana[] = {op, "sim.fidelity=analytical", where[w][0],
						   where[w][1], NULL};
			gm_run *f = run_yaml(bc, flow), *a = run_yaml(bc, ana);
			for (size_t i = 0; i < f->npts; i++) {
				double e = (a->pts[i].time_us - f->pts[i].time_us) / f->pts[i].time_us;
				g_test_message("%s %s %s %llu B: flow %.1f us, closed form %.1f us (%+.1f %%)",
					       op, where[w][0], where[w][1] ? where[w][1] : "",
					       (unsigned long long)f->pts[i].bytes, f->pts[i].time_us,
					       a->pts[i].time_us, 100 * e);
				g_assert_cmpfloat(fabs(e), <, (w == 0 ? 1e-3 : 0.08));
			}
			gm_run_free(f);
			gm_run_free(a);
		}
}

static void test_one_node(void)
{
	gm_run *b = run_yaml(bc, NULL);
	const char *const red[] = {"collective.op=reduce", NULL};
	gm_run *r = run_yaml(bc, red);
	const gm_point *big = &b->pts[b->npts - 1];
	/* busbw = algbw, at 90-100 % of the 374 GB/s port */
	g_assert_cmpfloat(big->busbw_GBps, ==, big->algbw_GBps);
	g_assert_cmpfloat(big->busbw_GBps, >, 0.9 * 374.0);
	g_assert_cmpfloat(big->busbw_GBps, <=, 374.0);
	for (size_t i = 0; i < b->npts; i++)
		g_assert_cmpfloat(fabs(r->pts[i].time_us - b->pts[i].time_us), <,
				  0.02 * b->pts[i].time_us);
	/* nccl-tests' root column */
	GString *g = g_string_new(NULL);
	gm_run_format_csv(b, g);
	g_assert_nonnull(strstr(g->str, "\n1073741824,268435456,float,sum,0,"));
	g_string_free(g, TRUE);
	gm_run_free(b);
	gm_run_free(r);
}

static void test_tuner(void)
{
	const char *const one[] = {"collective.tuner=nccl", "collective.algo=auto",
				   "collective.protocol=auto", NULL};
	gm_run *r = run_yaml(bc, one);
	/* one node, the same ring on every channel: LL 6.6 + 0.6 */
	g_assert_cmpfloat_with_epsilon(
		gm_tuner_time_us(&r->tuner, GS_COLL_BROADCAST, GS_ALGO_RING, GM_PROTO_LL, 8), 7.2,
		0.01);
	g_assert_cmpfloat(
		gm_tuner_time_us(&r->tuner, GS_COLL_BROADCAST, GS_ALGO_TREE, GM_PROTO_LL, 8), <, 0);
	g_assert_cmpint(r->pts[0].algo, ==, GS_ALGO_RING);
	g_assert_cmpint(r->pts[0].proto, ==, GM_PROTO_LL);
	gm_run_free(r);
	/* two nodes, 16 steps of the network: LL 6.6 + 16 x 2.7, Simple 8.4 +
	 * 16 x 14 (the tree's) */
	const char *const two[] = {"collective.tuner=nccl", "collective.algo=auto",
				   "collective.protocol=auto", "topology.nodes=2",
				   "collective.op=reduce", NULL};
	r = run_yaml(bc, two);
	g_assert_cmpfloat_with_epsilon(
		gm_tuner_time_us(&r->tuner, GS_COLL_REDUCE, GS_ALGO_RING, GM_PROTO_LL, 8), 49.8, 0.01);
	g_assert_cmpfloat_with_epsilon(
		gm_tuner_time_us(&r->tuner, GS_COLL_REDUCE, GS_ALGO_RING, GM_PROTO_SIMPLE, 8),
		232.4 + 8.0 / (1000 * 16 * 23.375), 0.01);
	gm_run_free(r);
}

static void test_refused(void)
{
	const char *const tree[] = {"collective.algo=tree", NULL};
	expect_refused(bc, tree, "broadcast runs as NCCL's ring (a chain from the root)");
	const char *const pat[] = {"collective.algo=pat", NULL};
	expect_refused(bc, pat, "broadcast runs as NCCL's ring");
	const char *const nvls[] = {"collective.op=reduce", "collective.algo=nvls", NULL};
	expect_refused(bc, nvls, "reduce runs as NCCL's ring (a chain to the root)");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/chain/closed-form", test_closed_form);
	g_test_add_func("/chain/one-node", test_one_node);
	g_test_add_func("/chain/tuner", test_tuner);
	g_test_add_func("/chain/refused", test_refused);
	return g_test_run();
}
