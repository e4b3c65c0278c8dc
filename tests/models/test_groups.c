/* SPDX-License-Identifier: MIT */
/*
 * Collectives in concurrent communicators (collective.group.size and
 * .stride) on the simulated cluster: the groups run at once on the shared
 * topology, so what they share (a leaf switch's uplinks) and what they do
 * not (each GPU's own NVLink port and NIC) decides the time.
 *
 *  - Tensor-parallel groups (a node each) share nothing: every group takes
 *    exactly the time of the same collective on one node alone, with nvls
 *    too (each node's switch reduces its own group).
 *  - Data-parallel groups (one GPU per node, stride 8) each ride their
 *    members' own NICs: busbw is the NIC's 50 GB/s, and the flow run and
 *    the closed form agree.
 *  - On a fat tree at 2:1 the eight DP rings of a leaf share its uplinks:
 *    busbw halves, in the flow run and in the closed form. One group alone
 *    (the others idle: group size = all GPUs, stride 1, a single ring)
 *    does not see it the same way, which is why groups must run together.
 *  - Grouped all-to-all and tree: flow and closed form within bounds.
 *  - Allgather and reduce-scatter in log2 n rounds (bruck) over DP groups:
 *    flow and closed form agree; faster than the ring at small sizes.
 *  - PAT over DP groups: flow and closed form agree; bruck's time on one
 *    switch, faster than bruck on an oversubscribed fat tree.
 *  - MoE dispatch in expert-parallel groups: inside nodes as fast as one
 *    node alone; across nodes flow and closed form agree.
 *  - Refusals at the key: layouts that do not tile the GPUs, nvls, experts
 *    that do not spread over a group.
 */
#include <math.h>

#include "sim/models/run/gm_run.h"
#include "tests/models/run_testutil.h"

static const char dp4[] = "schema_version: 1\n"
			  "topology: {preset: dgx-h100, nodes: 4}\n"
			  "collective: {op: allreduce, algo: ring, sizes: [1MiB, 1GiB],"
			  " group: {stride: 8}}\n";

static const char *const analytical[] = {"sim.fidelity=analytical", NULL};

static void test_tp_groups_share_nothing(void)
{
	const char *one = "schema_version: 1\n"
			  "topology: {preset: dgx-h100}\n"
			  "collective: {op: allreduce, sizes: [64KiB, 64MiB]}\n";
	const char *tp = "schema_version: 1\n"
			 "topology: {preset: dgx-h100, nodes: 4}\n"
			 "collective: {op: allreduce, sizes: [64KiB, 64MiB], group: {size: 8}}\n";
	gm_run *a = run_yaml(one, NULL), *b = run_yaml(tp, NULL);
	for (size_t i = 0; i < a->npts; i++) {
		g_test_message("%llu B: one node %.3f us, 4 TP groups %.3f us",
			       (unsigned long long)a->pts[i].bytes, a->pts[i].time_us,
			       b->pts[i].time_us);
		g_assert_cmpint(a->pts[i].r.time_ps, ==, b->pts[i].r.time_ps);
		g_assert_cmpfloat(a->pts[i].busbw_GBps, ==, b->pts[i].busbw_GBps);
	}
	gm_run_free(a);
	gm_run_free(b);
	/* the same with NVLink SHARP: each node's switch reduces its group */
	const char *const nv[] = {"collective.algo=nvls", NULL};
	a = run_yaml(one, nv);
	b = run_yaml(tp, nv);
	for (size_t i = 0; i < a->npts; i++) {
		g_test_message("nvls %llu B: one node %.3f us, 4 TP groups %.3f us",
			       (unsigned long long)a->pts[i].bytes, a->pts[i].time_us,
			       b->pts[i].time_us);
		g_assert_cmpint(a->pts[i].r.time_ps, ==, b->pts[i].r.time_ps);
	}
	gm_run_free(a);
	gm_run_free(b);
	const char *const nva[] = {"collective.algo=nvls", "sim.fidelity=analytical", NULL};
	a = run_yaml(one, nva);
	b = run_yaml(tp, nva);
	for (size_t i = 0; i < a->npts; i++)
		g_assert_cmpint(a->pts[i].r.time_ps, ==, b->pts[i].r.time_ps);
	gm_run_free(a);
	gm_run_free(b);
}

/* Two-level groups (collective.group.block, .block_stride): a CP x DP
 * group of two GPUs per node (block 2 at stride 2) on every other node
 * (blocks 16 apart) on 8 nodes times exactly as the one-level group of
 * the same shape (two per node at stride 4 on 4 consecutive nodes) on 4
 * nodes: the fabric does not block, every node's GPUs are alike. Flow run
 * and closed form, ring and tree. */
static void test_two_level_groups(void)
{
	const char *two = "schema_version: 1\n"
			  "topology: {preset: dgx-h100, nodes: 8}\n"
			  "collective: {op: allreduce, sizes: [64KiB, 16MiB],"
			  " group: {size: 8, stride: 2, block: 2, block_stride: 16}}\n";
	const char *one = "schema_version: 1\n"
			  "topology: {preset: dgx-h100, nodes: 4}\n"
			  "collective: {op: allreduce, sizes: [64KiB, 16MiB],"
			  " group: {size: 8, stride: 4}}\n";
	static const char *const variants[][3] = {
		{"collective.algo=ring", NULL},
		{"collective.algo=tree", NULL},
		{"collective.algo=ring", "sim.fidelity=analytical", NULL},
		{"collective.algo=tree", "sim.fidelity=analytical", NULL},
	};
	for (size_t v = 0; v < G_N_ELEMENTS(variants); v++) {
		gm_run *a = run_yaml(two, variants[v]), *b = run_yaml(one, variants[v]);
		g_assert_cmpuint(a->base.group_block, ==, 2);
		for (size_t i = 0; i < a->npts; i++) {
			g_test_message("%s %s %llu B: two levels %.3f us, one level %.3f us",
				       variants[v][0], variants[v][1] ? variants[v][1] : "",
				       (unsigned long long)a->pts[i].bytes, a->pts[i].time_us,
				       b->pts[i].time_us);
			g_assert_cmpint(a->pts[i].r.time_ps, ==, b->pts[i].r.time_ps);
		}
		gm_run_free(a);
		gm_run_free(b);
	}
}

static void test_dp_groups_ride_own_nics(void)
{
	gm_run *f = run_yaml(dp4, NULL), *a = run_yaml(dp4, analytical);
	for (size_t i = 0; i < f->npts; i++) {
		double tf = f->pts[i].time_us, ta = a->pts[i].time_us;
		g_test_message("%llu B: flow %.1f us (busbw %.2f), closed form %.1f us",
			       (unsigned long long)f->pts[i].bytes, tf, f->pts[i].busbw_GBps, ta);
		g_assert_cmpfloat(fabs(ta - tf) / tf, <, 0.03);
	}
	/* 1 GiB: the ring of 4 is bound by each member's 400 Gb/s NIC */
	g_assert_cmpfloat(f->pts[1].busbw_GBps, >, 0.97 * 50.0);
	g_assert_cmpfloat(f->pts[1].busbw_GBps, <=, 50.0);
	/* counts and busbw are per communicator of 4 */
	g_assert_cmpuint(f->pts[1].count, ==, (1u << 30) / 4);
	g_assert_cmpfloat(fabs(f->pts[1].busbw_GBps / f->pts[1].algbw_GBps - 1.5), <, 1e-9);
	gm_run_free(f);
	gm_run_free(a);
}

static void test_dp_groups_share_uplinks(void)
{
	const char *const fab[] = {"topology.fabric.kind=fat-tree", "topology.fabric.leaf_nics=8",
				   "topology.fabric.oversubscription=2", NULL};
	const char *const fab_a[] = {"topology.fabric.kind=fat-tree", "topology.fabric.leaf_nics=8",
				     "topology.fabric.oversubscription=2", "sim.fidelity=analytical",
				     NULL};
	gm_run *nb = run_yaml(dp4, NULL), *f = run_yaml(dp4, fab), *a = run_yaml(dp4, fab_a);
	double ratio = f->pts[1].time_us / nb->pts[1].time_us;
	g_test_message("1 GiB: nonblocking %.1f us, fat tree 2:1 flow %.1f us (x%.3f), closed form "
		       "%.1f us",
		       nb->pts[1].time_us, f->pts[1].time_us, ratio, a->pts[1].time_us);
	/* eight rings leave each one-node leaf through four uplinks */
	g_assert_cmpfloat(fabs(ratio - 2.0), <, 0.05);
	g_assert_cmpfloat(fabs(a->pts[1].time_us - f->pts[1].time_us) / f->pts[1].time_us, <, 0.03);
	gm_run_free(nb);
	gm_run_free(f);
	gm_run_free(a);
	/* the tree: its closed form loads every strand's slice on the links it
	 * crosses, so it sees the shared uplinks too (4:1: a quarter of the
	 * uplinks) */
	const char *const t1[] = {"topology.fabric.kind=fat-tree", "topology.fabric.leaf_nics=8",
				  "collective.algo=tree", "collective.sizes=256MiB", NULL};
	const char *const t1a[] = {"topology.fabric.kind=fat-tree", "topology.fabric.leaf_nics=8",
				   "collective.algo=tree", "collective.sizes=256MiB",
				   "sim.fidelity=analytical", NULL};
	const char *const t4[] = {"topology.fabric.kind=fat-tree", "topology.fabric.leaf_nics=8",
				  "topology.fabric.oversubscription=4", "collective.algo=tree",
				  "collective.sizes=256MiB", NULL};
	const char *const t4a[] = {"topology.fabric.kind=fat-tree", "topology.fabric.leaf_nics=8",
				   "topology.fabric.oversubscription=4", "collective.algo=tree",
				   "collective.sizes=256MiB", "sim.fidelity=analytical", NULL};
	gm_run *r[4] = {run_yaml(dp4, t1), run_yaml(dp4, t1a), run_yaml(dp4, t4), run_yaml(dp4, t4a)};
	g_test_message("tree 256 MiB: 1:1 flow %.1f us, closed form %.1f; 4:1 flow %.1f, closed form "
		       "%.1f",
		       r[0]->pts[0].time_us, r[1]->pts[0].time_us, r[2]->pts[0].time_us,
		       r[3]->pts[0].time_us);
	g_assert_cmpfloat(r[2]->pts[0].time_us, >, 2.0 * r[0]->pts[0].time_us);
	g_assert_cmpfloat(r[3]->pts[0].time_us, >, 2.0 * r[1]->pts[0].time_us);
	for (int k = 0; k < 4; k += 2)
		g_assert_cmpfloat(fabs(r[k + 1]->pts[0].time_us - r[k]->pts[0].time_us) /
					  r[k]->pts[0].time_us,
				  <, 0.25);
	for (int k = 0; k < 4; k++)
		gm_run_free(r[k]);
}

static void test_grouped_alltoall_and_tree(void)
{
	/* expert-parallel style all-to-all in groups of 4 nodes' GPU k */
	const char *const a2a[] = {"collective.op=alltoall", "collective.algo=pairwise", NULL};
	expect_closed_form_near(dp4, a2a, 0.03);
	/* the tree of one member per node: every channel head behind one NIC */
	const char *const tr[] = {"collective.algo=tree", "collective.sizes=1MiB,256MiB", NULL};
	expect_closed_form_near(dp4, tr, 0.20);
}

/* Expert parallelism in groups: EP 8 inside each of 4 nodes (DeepEP's
 * intra-node shape) shares nothing between nodes, so it takes the time of
 * one node alone; EP over the 4 nodes' GPU k (stride 8) goes over the
 * NICs; flow and closed form agree. */
static void test_grouped_moe(void)
{
	const char *one = "schema_version: 1\n"
			  "topology: {preset: dgx-h100}\n"
			  "collective: {op: dispatch, sizes: [7KiB]}\n"
			  "moe: {tokens: 32, experts: 64}\n";
	const char *const ep8[] = {"topology.nodes=4", "collective.group.size=8",
				   "collective.group.stride=1", NULL};
	gm_run *a = run_yaml(one, NULL), *b = run_yaml(one, ep8);
	g_test_message("dispatch: one node %.3f us, 4 EP-8 groups %.3f us", a->pts[0].time_us,
		       b->pts[0].time_us);
	g_assert_cmpint(a->pts[0].r.time_ps, ==, b->pts[0].r.time_ps);
	gm_run_free(a);
	gm_run_free(b);
	const char *const dp[] = {"topology.nodes=4", "collective.group.stride=8", NULL};
	const char *const dpa[] = {"topology.nodes=4", "collective.group.stride=8",
				   "sim.fidelity=analytical", NULL};
	gm_run *f = run_yaml(one, dp), *c = run_yaml(one, dpa);
	g_test_message("dispatch, EP over 4 nodes: flow %.3f us, closed form %.3f us",
		       f->pts[0].time_us, c->pts[0].time_us);
	g_assert_cmpfloat(fabs(c->pts[0].time_us - f->pts[0].time_us) / f->pts[0].time_us, <, 0.05);
	gm_run_free(f);
	gm_run_free(c);
}

/* Allgather and reduce-scatter in log2 n rounds (bruck) over DP groups of
 * 16 nodes: the flow run and the closed form agree, and the rounds beat
 * the ring's 15 steps at small sizes. */
static void test_bruck(void)
{
	for (int op = 0; op < 2; op++) {
		const char *yaml = "schema_version: 1\n"
				   "topology: {preset: dgx-h100, nodes: 16}\n"
				   "collective: {algo: bruck, compare: ring, sizes: [64KiB, 16MiB],"
				   " group: {stride: 8}}\n";
		const char *o = op ? "collective.op=reducescatter" : "collective.op=allgather";
		const char *const flow[] = {o, NULL};
		const char *const ana[] = {o, "sim.fidelity=analytical", NULL};
		gm_run *f = run_yaml(yaml, flow), *a = run_yaml(yaml, ana);
		for (size_t i = 0; i < f->npts; i++) {
			g_test_message("%s %llu B: bruck flow %.2f us, closed form %.2f us; ring %.2f us",
				       o, (unsigned long long)f->pts[i].bytes, f->pts[i].time_us,
				       a->pts[i].time_us, f->cmp[i].time_us);
			g_assert_cmpfloat(fabs(a->pts[i].time_us - f->pts[i].time_us) /
						  f->pts[i].time_us,
					  <, 0.03);
		}
		g_assert_cmpfloat(f->pts[0].time_us * 2, <, f->cmp[0].time_us);
		gm_run_free(f);
		gm_run_free(a);
	}
	const char *const bad[] = {"collective.algo=bruck", NULL};
	expect_refused(dp4, bad, "bruck is implemented for allgather and reducescatter only");
}

/* PAT over DP groups: the flow run and the closed form agree, on 16 nodes
 * and on 13 (whose rounds are packed); on one switch it moves what bruck
 * moves, in the other order, and takes its time; on a fat tree whose leaf
 * holds two nodes, oversubscribed 4:1, its farthest rounds carry the least
 * data and it beats bruck, whose farthest round carries the most. */
static void test_pat(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {preset: dgx-h100, nodes: 16}\n"
			   "collective: {algo: pat, compare: bruck, sizes: [64KiB, 16MiB],"
			   " group: {stride: 8}}\n";
	for (int k = 0; k < 6; k++) {
		const char *o = k % 2 ? "collective.op=reducescatter" : "collective.op=allgather";
		const char *nodes = k < 2 ? "topology.nodes=16" : "topology.nodes=13";
		bool tree = k >= 4;
		const char *const flow[] = {o, nodes, tree ? "topology.fabric.kind=fat-tree" : NULL,
					    "topology.fabric.leaf_nics=16",
					    "topology.fabric.oversubscription=4", NULL};
		const char *const ana[] = {o, nodes, "sim.fidelity=analytical",
					   tree ? "topology.fabric.kind=fat-tree" : NULL,
					   "topology.fabric.leaf_nics=16",
					   "topology.fabric.oversubscription=4", NULL};
		gm_run *f = run_yaml(yaml, flow), *a = run_yaml(yaml, ana);
		for (size_t i = 0; i < f->npts; i++) {
			g_test_message("%s %s%s %llu B: pat flow %.2f us, closed form %.2f us; "
				       "bruck %.2f us",
				       o, nodes, tree ? " fat tree 4:1" : "",
				       (unsigned long long)f->pts[i].bytes, f->pts[i].time_us,
				       a->pts[i].time_us, f->cmp[i].time_us);
			g_assert_cmpfloat(fabs(a->pts[i].time_us - f->pts[i].time_us) /
						  f->pts[i].time_us,
					  <, 0.05);
			if (!tree)
				g_assert_cmpfloat(fabs(f->cmp[i].time_us - f->pts[i].time_us) /
							  f->pts[i].time_us,
						  <, 0.01);
		}
		if (tree)
			g_assert_cmpfloat(f->pts[1].time_us, <, 0.85 * f->cmp[1].time_us);
		gm_run_free(f);
		gm_run_free(a);
	}
	const char *const bad[] = {"collective.algo=pat", NULL};
	expect_refused(dp4, bad, "pat is NCCL's algorithm for allgather and reducescatter only");
	const char *const ll[] = {"collective.op=allgather", "collective.algo=pat",
				  "collective.protocol=ll", NULL};
	expect_refused(dp4, ll, "pat runs NCCL's Simple protocol only");
}

static void test_group_refusals(void)
{
	const char *const bad_tile[] = {"collective.group.size=3", NULL};
	expect_refused(dp4, bad_tile, "do not tile the 32 GPUs");
	const char *const bad_stride[] = {"collective.group.size=4", "collective.group.stride=16",
					  NULL};
	expect_refused(dp4, bad_stride, "collective.group.stride");
	const char *const nvls[] = {"collective.algo=nvlstree", NULL};
	expect_refused(dp4, nvls, "not in groups");
	const char *const nvls_dp[] = {"collective.algo=nvls", NULL};
	expect_refused(dp4, nvls_dp, "only when each group is one whole node");
	const char *const cmp[] = {"collective.compare=nvlstree", NULL};
	expect_refused(dp4, cmp, "not in groups");
	const char *const moe[] = {"collective.op=dispatch", "collective.algo=put",
				   "collective.sizes=7KiB", "moe.experts=6", NULL};
	expect_refused(dp4, moe, "6 experts do not spread evenly over 4 GPUs");
	/* the error points into the scenario file */
	expect_refused(dp4, bad_tile, "collective.group.size");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/groups/tp-share-nothing", test_tp_groups_share_nothing);
	g_test_add_func("/groups/dp-own-nics", test_dp_groups_ride_own_nics);
	g_test_add_func("/groups/dp-share-uplinks", test_dp_groups_share_uplinks);
	g_test_add_func("/groups/alltoall-and-tree", test_grouped_alltoall_and_tree);
	g_test_add_func("/groups/moe", test_grouped_moe);
	g_test_add_func("/groups/bruck", test_bruck);
	g_test_add_func("/groups/pat", test_pat);
	g_test_add_func("/groups/refusals", test_group_refusals);
	g_test_add_func("/groups/two-levels", test_two_level_groups);
	return g_test_run();
}
