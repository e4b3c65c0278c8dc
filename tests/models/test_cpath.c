/* SPDX-License-Identifier: MIT */
/*
 * The critical-path breakdown (gm_cpath.h, gcsim run --breakdown): its
 * categories sum to each point's time exactly, it changes no time, it is
 * exact on a flat ring (launch + 2(n-1) route latencies + 2(n-1) slices at
 * the link's rate), it names the resource that bounds each regime, and it
 * is refused where it is not kept.
 */
#include "run_testutil.h"

#include "sim/models/exec/gm_cpath.h"

static gm_run *run_bd(const char *yaml, const char *const *sets, bool breakdown)
{
	gm_run_opts o = {.sets = sets, .breakdown = breakdown};
	return run_yaml_with(yaml, &o);
}

static int64_t cp_sum(const gm_point *pt)
{
	int64_t s = 0;
	for (int c = 0; c < GM_CP__COUNT; c++) {
		g_assert_cmpint(pt->r.cp_ps[c], >=, 0);
		s += pt->r.cp_ps[c];
	}
	return s;
}

static gm_cp_cat cp_most(const gm_point *pt)
{
	int most = 0;
	for (int c = 1; c < GM_CP__COUNT; c++)
		if (pt->r.cp_ps[c] > pt->r.cp_ps[most])
			most = c;
	return (gm_cp_cat)most;
}

/* 8 GPUs on one switch, 50 GB/s and 1 us per link, 2 us launch: the ring
 * allreduce of S is 2(n-1) steps of one S/n slice each, so the critical
 * path is the launch, 2(n-1) route latencies and 2(n-1) transfers. */
static void test_flat_ring_exact(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {kind: flat, gpus: 8, link: {bandwidth: 50GB/s, latency: 1us}, "
			   "launch_latency: 2us}\n"
			   "collective: {op: allreduce, algo: ring, sizes: [64KiB, 1MiB]}\n";
	gm_run *r = run_bd(yaml, NULL, true);
	const int n = 8;
	for (size_t i = 0; i < r->npts; i++) {
		const gm_point *pt = &r->pts[i];
		g_assert_true(pt->r.has_cp);
		g_assert_cmpint(cp_sum(pt), ==, pt->r.total_ps);
		g_assert_cmpint(pt->r.cp_ps[GM_CP_LAUNCH], ==, 2000000);
		g_assert_cmpint(pt->r.cp_ps[GM_CP_LATENCY], ==, 2 * (n - 1) * INT64_C(1000000));
		double xfer = 2.0 * (n - 1) * (double)pt->bytes / n / 50e9 * 1e12;
		g_test_message("%llu B: link %lld ps, 2(n-1) S/(nB) = %.1f ps",
			       (unsigned long long)pt->bytes, (long long)pt->r.cp_ps[GM_CP_LINK], xfer);
		/* each transfer's end is rounded up to a whole picosecond */
		g_assert_cmpfloat(fabs((double)pt->r.cp_ps[GM_CP_LINK] - xfer), <=, 2.0 * (n - 1));
		g_assert_cmpint(pt->r.cp_ps[GM_CP_OTHER], ==, 0);
		g_assert_cmpint(pt->r.cp_ps[GM_CP_NVLINK] + pt->r.cp_ps[GM_CP_NET], ==, 0);
	}
	gm_run_free(r);
}

/* Every executor path (two-sided steps with credits, helpers, one-sided
 * PUT/SIGNAL/WAIT, the proxy's FIFO, back-to-back operations, a host
 * thread driving several GPUs): the categories sum to the time, nothing
 * is unattributed, and the times are those of a run without the
 * breakdown. */
static void test_sums(void)
{
	size_t ncases;
	const exec_case *cases = exec_cases(&ncases);
	for (size_t k = 0; k < ncases; k++) {
		char *yaml = g_strdup_printf("schema_version: 1\n%s", cases[k].yaml);
		gm_run *a = run_bd(yaml, NULL, true), *b = run_bd(yaml, NULL, false);
		for (size_t i = 0; i < a->npts; i++) {
			const gm_point *pt = &a->pts[i];
			g_test_message("%s, %llu B: %.2f us, mostly %s", cases[k].what,
				       (unsigned long long)pt->bytes, pt->time_us,
				       gm_cp_name(cp_most(pt)));
			g_assert_true(pt->r.has_cp);
			g_assert_false(b->pts[i].r.has_cp);
			g_assert_cmpint(cp_sum(pt), ==, pt->r.total_ps);
			g_assert_cmpint(pt->r.cp_ps[GM_CP_OTHER], ==, 0);
			g_assert_cmpint(pt->r.total_ps, ==, b->pts[i].r.total_ps);
			g_assert_cmpuint(pt->r.events, ==, b->pts[i].r.events);
		}
		gm_run_free(a);
		gm_run_free(b);
		g_free(yaml);
	}
}

/* What bounds each regime: latency at 8 B across nodes, the network at
 * 1 GiB across nodes, NVLink at 1 GiB inside one node, and the channels'
 * own rate where two channels of 10 GB/s each feed 50 GB/s links. */
static void test_regimes(void)
{
	static const struct {
		const char *yaml;
		gm_cp_cat most;
	} cases[] = {
		{"topology: {preset: dgx-h100, nodes: 2}\n"
		 "collective: {op: allreduce, algo: ring, sizes: [8B]}\n",
		 GM_CP_LATENCY},
		{"topology: {preset: dgx-h100, nodes: 2}\n"
		 "collective: {op: allreduce, algo: ring, sizes: [1GiB]}\n",
		 GM_CP_NET},
		{"topology: {preset: dgx-h100, nodes: 1}\n"
		 "collective: {op: allreduce, algo: ring, sizes: [1GiB]}\n",
		 GM_CP_NVLINK},
		{"topology: {kind: flat, gpus: 8, link: {bandwidth: 50GB/s, latency: 1us}, "
		 "channel_bandwidth: 10GB/s}\n"
		 "collective: {op: allreduce, algo: ring, channels: 2, sizes: [64MiB]}\n",
		 GM_CP_CHANNEL},
	};
	for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
		char *yaml = g_strdup_printf("schema_version: 1\n%s", cases[k].yaml);
		gm_run *r = run_bd(yaml, NULL, true);
		const gm_point *pt = &r->pts[0];
		g_test_message("%llu B: mostly %s (%.1f of %.1f us)", (unsigned long long)pt->bytes,
			       gm_cp_name(cp_most(pt)), (double)pt->r.cp_ps[cp_most(pt)] * 1e-6,
			       pt->time_us);
		g_assert_cmpstr(gm_cp_name(cp_most(pt)), ==, gm_cp_name(cases[k].most));
		/* and by a clear margin: more than half the time */
		g_assert_cmpint(2 * pt->r.cp_ps[cases[k].most], >, pt->r.total_ps);
		gm_run_free(r);
		g_free(yaml);
	}
}

/* An oversubscribed fat tree: DP rings between nodes under different
 * leaves share the leaves' uplinks; the network bounds the time, and
 * what oversubscription adds is network time. */
static void test_fabric_share(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {preset: dgx-h100, nodes: 4, fabric: {kind: fat-tree, "
			   "leaf_nics: 16}}\n"
			   "collective: {op: allreduce, algo: ring, sizes: [256MiB], group: {size: 4, "
			   "stride: 8}}\n";
	const char *full[] = {"topology.fabric.oversubscription=1", NULL};
	const char *over[] = {"topology.fabric.oversubscription=4", NULL};
	gm_run *a = run_bd(yaml, full, true), *b = run_bd(yaml, over, true);
	const gm_point *pa = &a->pts[0], *pb = &b->pts[0];
	g_test_message("1:1 %.1f us (network %.1f), 4:1 %.1f us (network %.1f)", pa->time_us,
		       (double)pa->r.cp_ps[GM_CP_NET] * 1e-6, pb->time_us,
		       (double)pb->r.cp_ps[GM_CP_NET] * 1e-6);
	g_assert_cmpint(cp_most(pb), ==, GM_CP_NET);
	g_assert_cmpint(pb->r.cp_ps[GM_CP_NET], >, pa->r.cp_ps[GM_CP_NET]);
	/* the extra time is the network's (the path through it may change,
	 * and with it a few of the latencies on it) */
	g_assert_cmpint(pb->r.cp_ps[GM_CP_LAUNCH], ==, pa->r.cp_ps[GM_CP_LAUNCH]);
	g_assert_cmpfloat((double)(pb->r.cp_ps[GM_CP_NET] - pa->r.cp_ps[GM_CP_NET]), >=,
			  0.95 * (double)(pb->r.total_ps - pa->r.total_ps));
	gm_run_free(a);
	gm_run_free(b);
}

static void test_refused(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {preset: dgx-h100, nodes: 2}\n"
			   "collective: {op: allreduce, algo: ring, sizes: [1MiB]}\n";
	const char *analytical[] = {"sim.fidelity=analytical", NULL};
	const char *packet[] = {"sim.fidelity=packet", NULL};
	gm_run_opts a = {.sets = analytical, .breakdown = true}, p = {.sets = packet, .breakdown = true};
	expect_refused_with(yaml, &a, "sim.fidelity: the breakdown (--breakdown) is kept by the flow "
				      "fidelity only, not by analytical");
	expect_refused_with(yaml, &p, "not by packet");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/cpath/flat-ring-exact", test_flat_ring_exact);
	g_test_add_func("/cpath/sums", test_sums);
	g_test_add_func("/cpath/regimes", test_regimes);
	g_test_add_func("/cpath/fabric-share", test_fabric_share);
	g_test_add_func("/cpath/refused", test_refused);
	return g_test_run();
}
