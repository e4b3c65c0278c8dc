/* SPDX-License-Identifier: MIT */
/*
 * collective.algo auto: per size, the algorithm (and with protocol auto the
 * protocol) whose closed-form time is smallest among those the topology
 * allows. In the closed form the auto time is exactly the smallest of the
 * candidates' own runs; in the flow model the auto point is exactly the
 * flow run of the algorithm it chose; algorithms the topology or the groups
 * refuse are never chosen (nvls is chosen in groups of one node each); the chosen algorithm is what the results file
 * stores; on 8 nodes the choice is what the flow runs find fastest.
 */
#include <math.h>

#include "sim/core/gc_results.h"
#include "sim/models/closed/gm_proto.h"
#include "sim/models/run/gm_run.h"
#include "tests/models/run_testutil.h"

static const char eight[] = "schema_version: 1\n"
			    "topology: {preset: dgx-h100, nodes: 2}\n"
			    "collective: {op: allreduce, algo: auto, protocol: auto,"
			    " sizes: [8B, 64KiB, 4MiB, 256MiB]}\n";

static void test_auto_is_the_smallest(void)
{
	const char *const ana[] = {"sim.fidelity=analytical", NULL};
	gm_run *a = run_yaml(eight, ana);
	static const char *const algos[] = {"ring", "tree", "nvlstree"};
	gm_run *c[3];
	for (int k = 0; k < 3; k++) {
		char *set = g_strdup_printf("collective.algo=%s", algos[k]);
		const char *const sets[] = {"sim.fidelity=analytical", set, NULL};
		c[k] = run_yaml(eight, sets);
		g_free(set);
	}
	for (size_t i = 0; i < a->npts; i++) {
		double best = INFINITY;
		int arg = -1;
		for (int k = 0; k < 3; k++)
			if (c[k]->pts[i].time_us < best) {
				best = c[k]->pts[i].time_us;
				arg = k;
			}
		g_test_message("%llu B: auto %s/%s %.3f us, best %s %.3f us",
			       (unsigned long long)a->pts[i].bytes,
			       gs_algo_name((gs_algo)a->pts[i].algo),
			       gm_proto_get((gm_proto)a->pts[i].proto)->name, a->pts[i].time_us,
			       algos[arg], best);
		g_assert_cmpfloat(a->pts[i].time_us, ==, best);
	}
	/* small sizes: the tree's few hops; large: not the tree */
	g_assert_cmpint(a->pts[0].algo, ==, GS_ALGO_TREE);
	g_assert_cmpint(a->pts[3].algo, !=, GS_ALGO_TREE);
	gm_run_free(a);
	for (int k = 0; k < 3; k++)
		gm_run_free(c[k]);
}

/* The flow run of the chosen algorithm, and the results file names it. */
static void test_flow_runs_the_choice(void)
{
	const char *const sizes[] = {"collective.sizes=8B,4MiB", NULL};
	gm_run *a = run_yaml(eight, sizes);
	expect_points_are_forced_runs(eight, a, NULL);
	expect_results_hold(a, "allreduce,tree,float,16,8,");
	gm_run_free(a);
}

/* What the closed form picks is what the flow runs find fastest, or within
 * 3 % of it: on 8 DGX H100 nodes (Simple), where the closed forms once
 * picked the tree at 256 MiB (41 % slower than the ring in the flow) and
 * nvlstree from 128 MiB. */
static void test_choice_agrees_with_flow(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {preset: dgx-h100, nodes: 8}\n"
			   "collective: {op: allreduce, algo: auto, sizes: [16MiB, 64MiB, 256MiB]}\n";
	gm_run *a = run_yaml(yaml, NULL);
	static const char *const algos[] = {"ring", "tree", "nvlstree"};
	gm_run *c[3];
	for (int k = 0; k < 3; k++) {
		char *set = g_strdup_printf("collective.algo=%s", algos[k]);
		const char *const sets[] = {set, NULL};
		c[k] = run_yaml(yaml, sets);
		g_free(set);
	}
	for (size_t i = 0; i < a->npts; i++) {
		double best = INFINITY;
		for (int k = 0; k < 3; k++)
			best = fmin(best, c[k]->pts[i].time_us);
		g_test_message("%llu B: auto chose %s, %.1f us; flow runs ring %.1f, tree %.1f, "
			       "nvlstree %.1f us",
			       (unsigned long long)a->pts[i].bytes,
			       gs_algo_name((gs_algo)a->pts[i].algo), a->pts[i].time_us,
			       c[0]->pts[i].time_us, c[1]->pts[i].time_us, c[2]->pts[i].time_us);
		g_assert_cmpfloat(a->pts[i].time_us, <=, 1.03 * best);
	}
	gm_run_free(a);
	for (int k = 0; k < 3; k++)
		gm_run_free(c[k]);
}

static void test_refused_never_chosen(void)
{
	/* A100: no NVLink SHARP, so never nvls; in groups never nvls either */
	const char *one = "schema_version: 1\n"
			  "topology: {preset: dgx-a100}\n"
			  "collective: {op: allreduce, algo: auto, sizes: [8B, 1GiB]}\n"
			  "sim: {fidelity: analytical}\n";
	gm_run *r = run_yaml(one, NULL);
	for (size_t i = 0; i < r->npts; i++)
		g_assert_true(r->pts[i].algo == GS_ALGO_RING || r->pts[i].algo == GS_ALGO_TREE);
	gm_run_free(r);
	const char *const h100[] = {"topology.preset=dgx-h100", "topology.nodes=2",
				    "collective.group.stride=8", NULL};
	r = run_yaml(one, h100);
	for (size_t i = 0; i < r->npts; i++)
		g_assert_true(r->pts[i].algo == GS_ALGO_RING || r->pts[i].algo == GS_ALGO_TREE);
	gm_run_free(r);
	/* groups of one whole node each: every node's switch, nvls at 1 GiB */
	const char *const tp[] = {"topology.preset=dgx-h100", "topology.nodes=2",
				  "collective.group.size=8", NULL};
	r = run_yaml(one, tp);
	g_assert_cmpint(r->pts[1].algo, ==, GS_ALGO_NVLS);
	gm_run_free(r);
	/* one node of H100s, 1 GiB: NVLink SHARP */
	const char *const h1[] = {"topology.preset=dgx-h100", NULL};
	r = run_yaml(one, h1);
	g_assert_cmpint(r->pts[1].algo, ==, GS_ALGO_NVLS);
	gm_run_free(r);
	/* all-to-all: its default, pairwise */
	const char *const a2a[] = {"topology.preset=dgx-h100", "collective.op=alltoall", NULL};
	r = run_yaml(one, a2a);
	g_assert_cmpint(r->pts[0].algo, ==, GS_ALGO_PAIRWISE);
	gm_run_free(r);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/auto/smallest", test_auto_is_the_smallest);
	g_test_add_func("/auto/flow-runs-the-choice", test_flow_runs_the_choice);
	g_test_add_func("/auto/agrees-with-flow", test_choice_agrees_with_flow);
	g_test_add_func("/auto/refused-never-chosen", test_refused_never_chosen);
	return g_test_run();
}
