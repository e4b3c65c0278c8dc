/* SPDX-License-Identifier: MIT */
/*
 * Tests of the NCCL baseline (hw/gh_nccl) that need no GPU: option
 * handling, the nccl-tests element counts per collective, version
 * decoding, loading (a missing library names dlopen's error; a library
 * without NCCL's symbols names the first one missing; the real libnccl,
 * where this machine has one, resolves every required symbol and reports
 * its version), and the order of the one-line failures of the benchmark:
 * no library first, then fewer than 2 GPUs.
 */
#include <glib.h>
#include <string.h>

#include "hw/gh_nccl.h"
#include "sim/core/gc_results.h"

static void test_opts(void)
{
	gh_nccl_opts o;
	char why[GH_WHY] = "";
	gh_nccl_opts_default(&o, false);
	for (int i = 0; i < GH_NCCL__COUNT; i++)
		g_assert_true(o.ops[i]);
	g_assert_cmpint(o.nsizes, ==, 28); /* 8 B .. 1 GiB doubling, as nccl-tests -b 8 -e 1G -f 2 */
	g_assert_cmpuint(o.sizes[0], ==, 8);
	g_assert_cmpuint(o.sizes[27], ==, 1u << 30);
	g_assert_cmpint(o.warmup, ==, 5);
	g_assert_cmpint(o.iters, ==, 20);
	gh_nccl_opts_default(&o, true);
	g_assert_cmpuint(o.sizes[o.nsizes - 1], ==, 32u << 20); /* 8 B x 4^12 */

	g_assert_cmpint(gh_nccl_opts_parse(&o, "allgather, alltoall", "1KiB,64KiB, 1MiB", why), ==, GC_OK);
	g_assert_true(!o.ops[GH_NCCL_ALLREDUCE] && o.ops[GH_NCCL_ALLGATHER] &&
		      !o.ops[GH_NCCL_REDUCESCATTER] && o.ops[GH_NCCL_ALLTOALL]);
	g_assert_cmpint(o.nsizes, ==, 3);
	g_assert_cmpuint(o.sizes[2], ==, 1u << 20);
	g_assert_cmpint(gh_nccl_opts_parse(&o, "all", NULL, why), ==, GC_OK);
	for (int i = 0; i < GH_NCCL__COUNT; i++)
		g_assert_true(o.ops[i]);
	g_assert_cmpint(o.nsizes, ==, 3); /* sizes not given: kept */

	static const struct {
		const char *ops, *sizes, *expect;
	} bad[] = {
		{"broadcast", NULL, "--op: expected allreduce, allgather, reducescatter, alltoall or all, got 'broadcast'"},
		{",", NULL, "--op: "},
		{NULL, "1KiB,lots", "--sizes: 'lots'"},
		{NULL, "0", "--sizes: '0'"},
		{NULL, "", "--sizes: "},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		gh_nccl_opts_default(&o, false);
		why[0] = 0;
		g_assert_cmpint(gh_nccl_opts_parse(&o, bad[i].ops, bad[i].sizes, why), ==, GC_ERR_INPUT);
		g_assert_true(g_str_has_prefix(why, bad[i].expect));
		/* A refused option leaves the selection as it was. */
		g_assert_true(o.ops[GH_NCCL_ALLREDUCE] && o.nsizes == 28);
	}
	gh_nccl_opts_default(&o, false);
	o.ngpus = 1;
	g_assert_cmpint(gh_nccl_opts_parse(&o, NULL, NULL, why), ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(why, "--gpus"));
	g_assert_cmpstr(gh_nccl_op_name(GH_NCCL_REDUCESCATTER), ==, "reducescatter");
}

/* nccl-tests' size is the larger per-GPU buffer; counts are floats. */
static void test_counts(void)
{
	size_t c;
	uint64_t sb, rb;
	gh_nccl_counts(GH_NCCL_ALLREDUCE, 1u << 20, 4, &c, &sb, &rb);
	g_assert_cmpuint(c, ==, 262144);
	g_assert_cmpuint(sb, ==, 1u << 20);
	g_assert_cmpuint(rb, ==, 1u << 20);
	gh_nccl_counts(GH_NCCL_ALLGATHER, 1u << 20, 4, &c, &sb, &rb);
	g_assert_cmpuint(c, ==, 65536); /* per-GPU input */
	g_assert_cmpuint(sb, ==, 256u << 10);
	g_assert_cmpuint(rb, ==, 1u << 20);
	gh_nccl_counts(GH_NCCL_REDUCESCATTER, 1u << 20, 4, &c, &sb, &rb);
	g_assert_cmpuint(c, ==, 65536); /* per-GPU output */
	g_assert_cmpuint(sb, ==, 1u << 20);
	g_assert_cmpuint(rb, ==, 256u << 10);
	gh_nccl_counts(GH_NCCL_ALLTOALL, 1u << 20, 8, &c, &sb, &rb);
	g_assert_cmpuint(c, ==, 32768); /* per peer */
	g_assert_cmpuint(sb, ==, 1u << 20);
	g_assert_cmpuint(rb, ==, 1u << 20);
	/* Sizes that do not split evenly round down; below one float per GPU: 0. */
	gh_nccl_counts(GH_NCCL_ALLGATHER, 100, 3, &c, &sb, &rb);
	g_assert_cmpuint(c, ==, 8);
	g_assert_cmpuint(rb, ==, 96);
	gh_nccl_counts(GH_NCCL_ALLGATHER, 8, 4, &c, &sb, &rb);
	g_assert_cmpuint(c, ==, 0);
}

static void test_version(void)
{
	char v[32];
	gh_nccl_version_str(22809, v, sizeof(v));
	g_assert_cmpstr(v, ==, "2.28.9");
	gh_nccl_version_str(21803, v, sizeof(v));
	g_assert_cmpstr(v, ==, "2.18.3");
	gh_nccl_version_str(2804, v, sizeof(v)); /* NCCL 2.8.4, the old encoding */
	g_assert_cmpstr(v, ==, "2.8.4");
}

static void test_load_missing(void)
{
	gh_nccl_lib lib;
	char why[GH_WHY] = "";
	g_assert_cmpint(gh_nccl_load("/nonexistent/libnccl.so.2", &lib, why), ==, GC_ERR_NODEV);
	g_assert_true(g_str_has_prefix(why, "cannot load NCCL: /nonexistent/libnccl.so.2: "));
	g_assert_null(lib.handle);
	/* A library that loads but is not NCCL: the first symbol is named. */
	g_assert_cmpint(gh_nccl_load("libm.so.6", &lib, why), ==, GC_ERR_NODEV);
	g_assert_cmpstr(why, ==, "cannot use NCCL from libm.so.6: symbol ncclGetUniqueId not found");
	g_assert_null(lib.handle);
}

static void test_load_real(void)
{
	gh_nccl_lib lib;
	char why[GH_WHY] = "";
	if (gh_nccl_load(NULL, &lib, why) != GC_OK) {
		g_test_skip(why);
		return;
	}
	g_assert_nonnull(lib.handle);
	g_assert_nonnull(lib.comm_init_all);
	g_assert_nonnull(lib.all_reduce);
	g_assert_nonnull(lib.send);
	g_assert_nonnull(lib.group_end);
	g_assert_cmpint(lib.version, >=, 20000);
	g_assert_cmpstr(lib.error_string(0), ==, "no error");
	char v[32];
	gh_nccl_version_str(lib.version, v, sizeof(v));
	g_test_message("NCCL %s from %s, ncclAlltoAll %s", v, lib.path,
		       lib.all_to_all ? "present" : "absent (grouped send/recv)");
	gh_nccl_unload(&lib);
	g_assert_null(lib.handle);
}

/* No library: its line, nothing measured. Library but < 2 GPUs: that line. */
static void test_bench_refusals(void)
{
	gh_nccl_opts o;
	gh_nccl_opts_default(&o, true);
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	GString *notes = g_string_new(NULL);
	char why[GH_WHY] = "";
	o.lib = "/nonexistent/libnccl.so.2";
	g_assert_cmpint(gh_nccl_bench(&o, pts, notes, why), ==, GC_ERR_NODEV);
	g_assert_true(g_str_has_prefix(why, "cannot load NCCL: "));
	g_assert_cmpuint(pts->len, ==, 0);
	g_assert_cmpuint(notes->len, ==, 0);

	gh_nccl_lib lib;
	o.lib = NULL;
	if (gh_nccl_load(NULL, &lib, why) != GC_OK) {
		g_test_message("no NCCL here (%s): the GPU-count refusal is not reachable", why);
		goto out;
	}
	gh_nccl_unload(&lib);
	int ngpu = 0;
	char cwhy[GH_WHY];
	if (gh_cuda_probe(&ngpu, cwhy) == GC_OK && ngpu >= 2) {
		g_test_message("%d GPUs: the GPU-count refusal is not reachable", ngpu);
		goto out;
	}
	g_assert_cmpint(gh_nccl_bench(&o, pts, notes, why), ==, GC_ERR_NODEV);
	g_test_message("%s", why);
	g_assert_true(g_str_has_prefix(why, "NCCL baseline needs at least 2 GPUs (found "));
	g_assert_cmpuint(pts->len, ==, 0);
	g_assert_cmpuint(notes->len, ==, 0);
out:
	g_array_free(pts, TRUE);
	g_string_free(notes, TRUE);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/nccl/opts", test_opts);
	g_test_add_func("/nccl/counts", test_counts);
	g_test_add_func("/nccl/version", test_version);
	g_test_add_func("/nccl/load-missing", test_load_missing);
	g_test_add_func("/nccl/load-real", test_load_real);
	g_test_add_func("/nccl/bench-refusals", test_bench_refusals);
	return g_test_run();
}
