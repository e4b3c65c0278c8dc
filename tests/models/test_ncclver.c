/* SPDX-License-Identifier: MIT */
/*
 * collective.nccl_version: NCCL's cost model as each release has it
 * (gm_ncclver), and what it changes in NCCL's choice (gm_tuner).
 *  - Versions are read as NCCL prints them: 2.M.P, or 2.M for the newest
 *    2.M release; a patch not listed takes the release before it; text
 *    that is not a version, and releases outside 2.19.1 .. 2.30.7, are
 *    refused with the range.
 *  - The constants are those of each release's src/graph/tuning.cc: spot
 *    checks where they changed (the tree's Simple hop, the NVLS tree's
 *    network hop, Hopper's LL ceiling, Blackwell's rows, PAT).
 *  - The tree's Simple hop of 2.19-2.22 (28 us on NVLink, PCIe and the
 *    network, no base) against 2.23's (4, 4, 14, base 8.4) moves NCCL's
 *    estimate of a small tree allreduce by exactly the hops' difference,
 *    and with it the choice: a 16 MiB allreduce on 4 DGX A100 with Simple
 *    alone is a ring under 2.22 and a tree under 2.23.
 *  - The key is refused, with the reason, by a run whose choices are not
 *    NCCL's (collective.tuner gcsim), and a bad value names the key.
 */
#include <math.h>

#include "sim/models/closed/gm_ncclver.h"
#include "sim/models/closed/gm_proto.h"
#include "sim/models/closed/gm_tuner.h"
#include "sim/models/run/gm_run.h"
#include "tests/models/run_testutil.h"

static void expect_release(const char *asked, const char *got)
{
	gm_nccl_model m;
	char *why = NULL;
	g_assert_true(gm_nccl_model_get(asked, &m, &why));
	g_assert_null(why);
	g_assert_cmpstr(m.name, ==, got);
}

static void expect_bad_version(const char *asked, const char *part)
{
	gm_nccl_model m;
	char *why = NULL;
	g_assert_false(gm_nccl_model_get(asked, &m, &why));
	g_assert_nonnull(why);
	g_test_message("'%s': %s", asked, why);
	g_assert_nonnull(strstr(why, part));
	g_free(why);
}

static void test_versions(void)
{
	expect_release("2.26.2", "2.26.2");
	expect_release("2.26", "2.26.6");
	expect_release("2.26.4", "2.26.3");
	expect_release("2.30", "2.30.7");
	expect_release("2.19.1", "2.19.1");
	expect_release("2.19.2", "2.19.1");
	expect_release("2.19", "2.19.4");
	expect_release("2.24.0", "2.23.4");
	expect_release(GM_NCCL_DEFAULT_VERSION, "2.30.7");
	expect_bad_version("2.31", "newer");
	expect_bad_version("2.30.8", "newer");
	expect_bad_version("2.17", "older");
	expect_bad_version("2.18.6", "older");
	expect_bad_version("2.18", "older");
	const char *const bad[] = {"", "v2.26", "2.26.2.1", "2", "2.", "2.26.", "3.1", "2.26x",
				   "2.26.2+cuda12.8", " 2.26", "2.-1", "2.1000"};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
		expect_bad_version(bad[i], "not an NCCL release");
	g_assert_nonnull(strstr(gm_nccl_releases(), "2.19.1, 2.19.3"));
	g_assert_nonnull(strstr(gm_nccl_releases(), "2.30.7"));
}

static gm_nccl_model model(const char *v)
{
	gm_nccl_model m;
	char *why = NULL;
	g_assert_true(gm_nccl_model_get(v, &m, &why));
	return m;
}

enum { LL = 0, LL128, SIMPLE };
enum { NVL = 0, PCI, NET };
enum { HOPPER = 2, BLACKWELL = 3 };

static void test_constants(void)
{
	/* the tree's Simple hop and base */
	gm_nccl_model a = model("2.19.1"), b = model("2.22.3"), c = model("2.23.4");
	g_assert_cmpfloat(a.hw_lat[PCI][GM_NA_TREE][SIMPLE], ==, 28);
	g_assert_cmpfloat(a.base_lat[GM_NA_NVLS][SIMPLE], ==, 0);
	g_assert_cmpfloat(b.hw_lat[NVL][GM_NA_TREE][SIMPLE], ==, 28);
	g_assert_cmpfloat(b.hw_lat[NET][GM_NA_TREE][SIMPLE], ==, 28);
	g_assert_cmpfloat(b.base_lat[GM_NA_TREE][SIMPLE], ==, 0);
	g_assert_cmpfloat(c.hw_lat[NVL][GM_NA_TREE][SIMPLE], ==, 4.0);
	g_assert_cmpfloat(c.hw_lat[NET][GM_NA_TREE][SIMPLE], ==, 14);
	g_assert_cmpfloat(c.base_lat[GM_NA_TREE][SIMPLE], ==, 8.4);
	/* NVLS: 23 us on NVLink in 2.19-2.20, 25 after; the NVLS tree's
	 * network hop 14, then 20.9 from 2.28.9 */
	g_assert_cmpfloat(a.hw_lat[NET][GM_NA_NVLSTREE][SIMPLE], ==, 14);
	g_assert_cmpfloat(model("2.20.5").hw_lat[NVL][GM_NA_NVLS][SIMPLE], ==, 23);
	g_assert_cmpfloat(model("2.21.5").hw_lat[NVL][GM_NA_NVLS][SIMPLE], ==, 25);
	g_assert_cmpfloat(model("2.28.7").hw_lat[NET][GM_NA_NVLSTREE][SIMPLE], ==, 14);
	g_assert_cmpfloat(model("2.28.9").hw_lat[NET][GM_NA_NVLSTREE][SIMPLE], ==, 20.9);
	/* Hopper's LL ceiling on one node: Ampere's until 2.21 */
	g_assert_cmpfloat(model("2.20.5").ll_max[HOPPER][0], ==, 87.7);
	g_assert_cmpfloat(model("2.21.5").ll_max[HOPPER][0], ==, 141.0);
	/* Blackwell: Hopper's figures, then twice them, then its own */
	g_assert_cmpfloat(model("2.24.3").tree_simple[BLACKWELL][0], ==, 38.7);
	g_assert_cmpfloat(model("2.25.1").tree_simple[BLACKWELL][0], ==, 2 * 38.7);
	g_assert_cmpfloat(model("2.28.3").tree_simple[BLACKWELL][0], ==, 70.0);
	g_assert_cmpfloat(model("2.28.3").ring_ll128[BLACKWELL][1], ==, 2 * 36.7);
	g_assert_cmpfloat(model("2.28.7").ring_ll128[BLACKWELL][1], ==, 34.6);
	g_assert_cmpfloat(model("2.29.3").ring_ll128[BLACKWELL][0], ==, 34.5);
	g_assert_cmpfloat(model("2.29.7").ring_ll128[BLACKWELL][2], ==, 40.0);
	g_assert_cmpfloat(model("2.28.7").nvls_tree[BLACKWELL][2], ==, 43.1);
	g_assert_cmpfloat(model("2.28.9").nvls_tree[BLACKWELL][2], ==, 43.8);
	g_assert_cmpfloat(model("2.30.3").nvls_tree[BLACKWELL][2], ==, 80.0);
	/* PAT: none before 2.23, 0.85 in 2.23, 0.75 after */
	g_assert_cmpfloat(b.pat_factor, ==, 0);
	g_assert_cmpfloat(c.pat_factor, ==, .85);
	g_assert_cmpfloat(model("2.24.3").pat_factor, ==, .75);
	/* ring LL and LL128 rules */
	g_assert_true(model("2.20.5").ring_ll_quarter);
	g_assert_false(model("2.21.5").ring_ll_quarter);
	g_assert_true(b.ring_ll128_ppn);
	g_assert_false(c.ring_ll128_ppn);
}

/* DGX A100 (no NVLS), NCCL_PROTO=Simple: the tree against the ring */
static const char a100[] = "schema_version: 1\n"
			   "topology: {preset: dgx-a100, nodes: 4}\n"
			   "collective: {op: allreduce, algo: auto, protocol: auto, tuner: nccl,"
			   " nccl_proto: Simple, sizes: [8B, 16MiB]}\n"
			   "sim: {fidelity: analytical}\n";

/* the tree's Simple estimate at 8 B: base + 2 ((ppn - 1) NVLink hops +
 * log2(nodes) network hops); 2.22's hops are 28 us, 2.23's 4 and 14 with
 * a base of 8.4: 8 GPUs a node, 4 nodes */
static void test_tree_latency_by_release(void)
{
	const char *const v22[] = {"collective.nccl_version=2.22", NULL};
	const char *const v23[] = {"collective.nccl_version=2.23", NULL};
	gm_run *a = run_yaml(a100, v22), *b = run_yaml(a100, v23);
	double ea = gm_tuner_time_us(&a->tuner, a->base.coll, GS_ALGO_TREE, GM_PROTO_SIMPLE, 8);
	double eb = gm_tuner_time_us(&b->tuner, b->base.coll, GS_ALGO_TREE, GM_PROTO_SIMPLE, 8);
	double want = (0 + 2 * (7 * 28.0 + 2 * 28.0)) - (8.4 + 2 * (7 * 4.0 + 2 * 14.0));
	g_test_message("tree/simple at 8 B: 2.22 %.2f us, 2.23 %.2f us (difference %.2f, the hops' "
		       "%.2f)",
		       ea, eb, ea - eb, want);
	g_assert_cmpfloat(fabs((ea - eb) - want), <, 1e-6);
	/* the LL and LL128 trees did not change */
	g_assert_cmpfloat(gm_tuner_time_us(&a->tuner, a->base.coll, GS_ALGO_TREE, GM_PROTO_LL, 8), ==,
			  gm_tuner_time_us(&b->tuner, b->base.coll, GS_ALGO_TREE, GM_PROTO_LL, 8));
	/* 16 MiB: the ring under 2.22, whose tree pays 28 us a hop; the
	 * tree under 2.23 */
	g_test_message("16 MiB: 2.22 %s, 2.23 %s", gs_algo_name((gs_algo)a->pts[1].algo),
		       gs_algo_name((gs_algo)b->pts[1].algo));
	g_assert_cmpint(a->pts[1].algo, ==, GS_ALGO_RING);
	g_assert_cmpint(b->pts[1].algo, ==, GS_ALGO_TREE);
	gm_run_free(a);
	gm_run_free(b);
}

static void test_refused(void)
{
	const char *const gcsim_tuner[] = {"collective.tuner=gcsim", "collective.nccl_version=2.26.2",
					   NULL};
	expect_refused(a100, gcsim_tuner, "collective.nccl_version");
	const char *const bad[] = {"collective.nccl_version=2.26.2.1", NULL};
	expect_refused(a100, bad, "not an NCCL release");
	const char *const newer[] = {"collective.nccl_version=2.31.2", NULL};
	expect_refused(a100, newer, "2.19.1 to 2.30.7");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/ncclver/versions", test_versions);
	g_test_add_func("/ncclver/constants", test_constants);
	g_test_add_func("/ncclver/tree-latency-by-release", test_tree_latency_by_release);
	g_test_add_func("/ncclver/refused", test_refused);
	return g_test_run();
}
