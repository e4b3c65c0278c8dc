/* SPDX-License-Identifier: MIT */
/*
 * The virtual-rank timing model (hw/gh_vrank.h): its rules on schedules
 * whose critical path can be counted by hand, the identity between its
 * time and the path it reports, the working set, the fit on points it made
 * itself, the refusals, and reading the model back from a calibration.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "hw/gh_calib.h"
#include "hw/gh_vrank.h"
#include "tests/models/run_testutil.h"

static gs_params shape(gs_coll c, gs_algo a, int n, uint64_t bytes)
{
	return (gs_params){.coll = c, .algo = a, .dtype = GS_DT_F32, .nranks = n, .bytes = bytes,
			   .nchannels = 1, .chunk_bytes = GH_INTERP_CHUNK,
			   .slice_bytes = GH_INTERP_SLICE, .ranks_per_node = n};
}

/* p's schedule timed by m, the kernel run by proto with `blocks` blocks
 * per strand. */
static gh_vrank_path timed_as(gs_params p, const gh_vrank_model *m, int proto, int blocks)
{
	gs_sched *s = NULL;
	gh_interp_plan plan;
	gh_vrank_path r;
	char *err = NULL;
	g_assert_cmpint(gh_vrank_plan(&p, &s, &plan, &err), ==, GC_OK);
	g_assert_cmpint(gh_interp_plan_set(&plan, GH_KERNEL_VECTOR, proto, blocks, &err), ==, GC_OK);
	g_assert_cmpint(gh_vrank_time(&plan, m, &r, &err), ==, GC_OK);
	g_assert_null(err);
	gh_interp_plan_clear(&plan);
	gs_sched_free(s);
	return r;
}

/* As the interpreter runs a plan by default: Simple, a block a strand. */
static gh_vrank_path timed(gs_params p, const gh_vrank_model *m)
{
	return timed_as(p, m, GH_PROTO_SIMPLE, 1);
}

/* Pieces cost 1 us and bytes next to nothing: the time counts pieces. */
static const gh_vrank_model counting = {.launch_us = 10, .piece_us = 1, .l2_GBps = 1e9,
					.hbm_GBps = 1e9, .l2_bytes = 1e12, .ll_hop_us = 0.25};

static void test_ll_paths(void)
{
	/* ring allreduce, 4 ranks, 4 KiB: every strand runs send, 2 recv-reduce-
	 * send, recv-reduce-copy-send, 2 recv-copy-send, recv in step with its
	 * neighbours (each piece's input is ready when its own block is free):
	 * 2n - 1 = 7 pieces, the LL lines' latency hidden */
	gh_vrank_path r = timed(shape(GS_COLL_ALLREDUCE, GS_ALGO_RING, 4, 4096), &counting);
	g_assert_cmpfloat(r.pieces, ==, 7);
	g_assert_cmpfloat(r.hops, ==, 0);
	g_assert_cmpfloat_with_epsilon(r.time_us, 10 + 7, 1e-6);
	/* 8 ranks: 15 */
	r = timed(shape(GS_COLL_ALLREDUCE, GS_ALGO_RING, 8, 4096), &counting);
	g_assert_cmpfloat_with_epsilon(r.time_us, 10 + 15, 1e-6);
	/* allgather: a local copy (no mailbox, no piece cost), then send, 2
	 * recv-copy-send and recv: 4 pieces */
	r = timed(shape(GS_COLL_ALLGATHER, GS_ALGO_RING, 4, 4096), &counting);
	g_assert_cmpfloat(r.pieces, ==, 4);
	g_assert_cmpfloat_with_epsilon(r.time_us, 10 + 4, 1e-6);
	/* tree of 4 (a chain): the leaf's send is one pass; each of the six
	 * blocks after it polls its lines while they land, so it ends a line's
	 * latency after its sender, not a pass after */
	r = timed(shape(GS_COLL_ALLREDUCE, GS_ALGO_TREE, 4, 4096), &counting);
	g_assert_cmpfloat(r.pieces, ==, 1);
	g_assert_cmpfloat(r.hops, ==, 6);
	g_assert_cmpfloat_with_epsilon(r.time_us, 10 + 1 + 6 * 0.25, 1e-6);
	/* a line slower than a pass: the hops bind */
	gh_vrank_model slow = counting;
	slow.ll_hop_us = 2;
	r = timed(shape(GS_COLL_ALLREDUCE, GS_ALGO_TREE, 4, 4096), &slow);
	g_assert_cmpfloat_with_epsilon(r.time_us, 10 + 1 + 6 * 2, 1e-6);
}

static void test_simple_paths(void)
{
	/* 1 MiB allreduce tree of 4: 1 MiB messages of 8 Simple pieces; the
	 * chain's pieces pipeline: the leaf's 8, then one more per hop (a
	 * receiver starts piece k once its sender finished it) */
	gh_vrank_path r = timed(shape(GS_COLL_ALLREDUCE, GS_ALGO_TREE, 4, 1 << 20), &counting);
	g_assert_cmpfloat(r.pieces, ==, 8 + 6);
	g_assert_cmpfloat_with_epsilon(r.time_us, 10 + 14, 1e-4);
	/* the time is the path it reports, whatever the parameters */
	const gh_vrank_model m = {.launch_us = 4, .piece_us = 3, .l2_GBps = 7, .hbm_GBps = 4,
				  .l2_bytes = 60.0 * 1048576, .ll_hop_us = 1};
	const gs_params shapes[] = {
		shape(GS_COLL_ALLREDUCE, GS_ALGO_RING, 4, 64 << 20),
		shape(GS_COLL_ALLREDUCE, GS_ALGO_TREE, 4, 8 << 20),
		shape(GS_COLL_ALLGATHER, GS_ALGO_RING, 4, 1 << 20),
		shape(GS_COLL_REDUCESCATTER, GS_ALGO_RING, 8, 4096),
	};
	for (size_t i = 0; i < G_N_ELEMENTS(shapes); i++) {
		r = timed(shapes[i], &m);
		const double per_byte = r.hit / (m.l2_GBps * 1e3) + (1 - r.hit) / (m.hbm_GBps * 1e3);
		g_assert_cmpfloat_with_epsilon(r.time_us, m.launch_us + r.pieces * m.piece_us +
								  r.bytes * per_byte + r.hops * m.ll_hop_us,
					       1e-6 * r.time_us);
		g_assert_cmpfloat(r.hit, >, 0);
		g_assert_cmpfloat(r.hit, <=, 1);
	}
	/* the working set: four arenas (input and output, 64 MiB each) and the
	 * ring's mailboxes (each rank sends 6 chunks of 16 MiB) */
	r = timed(shapes[0], &m);
	g_assert_cmpfloat(r.working_set, >=, 4.0 * (128 << 20) + 4.0 * 6 * (16 << 20));
	g_assert_cmpfloat(r.working_set, <, 4.0 * (129 << 20) + 4.0 * 6 * (16 << 20) + 1e6);
	g_assert_cmpfloat_with_epsilon(r.hit, 60.0 * 1048576 / r.working_set, 1e-12);
	/* a larger message is never faster, and slower rates are never faster */
	double prev = 0;
	for (uint64_t b = 4096; b <= (64u << 20); b *= 4) {
		r = timed(shape(GS_COLL_ALLREDUCE, GS_ALGO_TREE, 4, b), &m);
		g_assert_cmpfloat(r.time_us, >, prev);
		prev = r.time_us;
	}
	gh_vrank_model slower = m;
	slower.hbm_GBps = 2;
	g_assert_cmpfloat(timed(shapes[0], &slower).time_us, >, timed(shapes[0], &m).time_us);
}

/* LL128 and blocks per strand, as the kernel runs them. */
static void test_kernels(void)
{
	/* tree of 4 (a chain), 1 MiB under LL128: 9 pieces of 120 KiB (8
	 * under Simple); the leaf's 9 passes, then each of the six blocks after
	 * it polls its lines, ending a line's latency after its sender */
	gh_vrank_path r = timed_as(shape(GS_COLL_ALLREDUCE, GS_ALGO_TREE, 4, 1 << 20), &counting,
				   GH_PROTO_LL128, 1);
	g_assert_cmpfloat_with_epsilon(r.time_us, 10 + 9 + 6 * 0.25, 1e-4);
	g_assert_cmpfloat(r.hops, ==, 6);
	/* bytes only: 4 blocks a strand pass a quarter of every 128 KiB piece
	 * (no step of a ring meets), so the ring takes a quarter of the time */
	const gh_vrank_model bw = {.launch_us = 0, .piece_us = 0, .l2_GBps = 1, .hbm_GBps = 1,
				   .l2_bytes = 1e15, .ll_hop_us = 0};
	const gs_params ring = shape(GS_COLL_ALLREDUCE, GS_ALGO_RING, 4, 64 << 20);
	gh_vrank_path one = timed_as(ring, &bw, GH_PROTO_SIMPLE, 1);
	gh_vrank_path four = timed_as(ring, &bw, GH_PROTO_SIMPLE, 4);
	g_assert_cmpfloat_with_epsilon(four.bytes, one.bytes / 4, 1e-9 * one.bytes);
	g_assert_cmpfloat_with_epsilon(four.time_us, one.time_us / 4, 1e-9 * one.time_us);
	g_assert_cmpfloat(four.pieces, ==, one.pieces);
	/* 3 blocks do not divide a piece's 8192 vectors: the largest share,
	 * 2731 vectors, sets the pass */
	gh_vrank_path three = timed_as(ring, &bw, GH_PROTO_SIMPLE, 3);
	g_assert_cmpfloat_with_epsilon(three.bytes / one.bytes, 2731.0 / 8192, 1e-9);
}

static void test_fit(void)
{
	/* points the model made itself: the fit returns its parameters */
	const gh_vrank_model truth = {.launch_us = 5, .piece_us = 2.5, .l2_GBps = 9, .hbm_GBps = 3.5,
				      .l2_bytes = 50.0 * 1048576, .ll_hop_us = 0.8};
	const uint64_t sizes[] = {4096, 65536, 1 << 20, 8 << 20, 64 << 20};
	gc_result_point pts[6];
	for (size_t i = 0; i < 5; i++) {
		gc_result_point_init(&pts[i]);
		g_strlcpy(pts[i].collective, "allreduce", sizeof(pts[i].collective));
		g_strlcpy(pts[i].algo, "ring", sizeof(pts[i].algo));
		pts[i].nranks = 4;
		pts[i].size_bytes = sizes[i];
		pts[i].time_us = timed(shape(GS_COLL_ALLREDUCE, GS_ALGO_RING, 4, sizes[i]), &truth).time_us;
	}
	/* a point of another shape is not used */
	pts[5] = pts[4];
	pts[5].nranks = 8;
	pts[5].time_us = 1;
	gh_vrank_model m = {.launch_us = truth.launch_us, .ll_hop_us = truth.ll_hop_us,
			    .l2_bytes = truth.l2_bytes};
	size_t used = 0;
	double maxerr = 1;
	char *err = NULL;
	g_assert_cmpint(gh_vrank_fit(pts, 6, "allreduce", "ring", 4, 1, &m, &used, &maxerr, &err), ==, GC_OK);
	g_assert_cmpuint(used, ==, 5);
	g_assert_cmpfloat(maxerr, <, 1e-9);
	g_assert_cmpfloat_with_epsilon(m.piece_us, truth.piece_us, 1e-6);
	g_assert_cmpfloat_with_epsilon(m.l2_GBps, truth.l2_GBps, 1e-6);
	g_assert_cmpfloat_with_epsilon(m.hbm_GBps, truth.hbm_GBps, 1e-6);
	/* too few points for three parameters */
	g_assert_cmpint(gh_vrank_fit(pts, 2, "allreduce", "ring", 4, 1, &m, &used, &maxerr, &err), ==,
			GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, "2 ring allreduce points at 4 ranks, at least 3 needed"));
	g_clear_pointer(&err, g_free);
	/* every size inside the L2: the HBM rate is not observed */
	m.l2_bytes = 1e12;
	g_assert_cmpint(gh_vrank_fit(pts, 5, "allreduce", "ring", 4, 1, &m, &used, &maxerr, &err), ==,
			GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, "HBM rate cannot be fitted"));
	g_clear_pointer(&err, g_free);
	/* times no positive parameters explain */
	m.l2_bytes = truth.l2_bytes;
	for (size_t i = 0; i < 5; i++)
		pts[i].time_us = 100 - 10.0 * i;
	g_assert_cmpint(gh_vrank_fit(pts, 5, "allreduce", "ring", 4, 1, &m, &used, &maxerr, &err), ==,
			GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, "no positive"));
	g_clear_pointer(&err, g_free);
	g_assert_cmpint(gh_vrank_fit(pts, 5, "allreduce", "bogus", 4, 1, &m, &used, &maxerr, &err), ==,
			GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, "unknown"));
	g_free(err);
}

/* gh_calib_read_vrank refuses the file made of `text` with a message
 * holding want (FILE: stands for the file's path). */
static void read_fails(const char *text, const char *want)
{
	char *err = NULL, *p = scenario_file(text);
	gh_vrank_model m;
	g_assert_cmpint(gh_calib_read_vrank(p, &m, &err), ==, GC_ERR_INPUT);
	char *w = g_str_has_prefix(want, "FILE:") ? g_strconcat(p, want + 4, NULL) : g_strdup(want);
	if (!strstr(err, w))
		g_error("'%s' lacks '%s'", err, w);
	g_free(w);
	g_free(err);
	g_unlink(p);
	g_free(p);
}

static void test_read(void)
{
	char *err = NULL;
	gh_vrank_model m;
	char *p = scenario_file("calibration:\n  name: x\n  control:\n    launch_latency: 9us\n"
			    "  virtual_rank:  # comment\n    launch: 4.8us\n    ll_hop: 1us\n"
			    "    l2: 60MiB\n    piece: 3.07us  # fitted\n    pass_l2: 7.5GB/s\n"
			    "    pass_hbm: 4.5GB/s\n  paths:\n    piece: 1us\n");
	g_assert_cmpint(gh_calib_read_vrank(p, &m, &err), ==, GC_OK);
	g_assert_cmpfloat_with_epsilon(m.launch_us, 4.8, 1e-9);
	g_assert_cmpfloat_with_epsilon(m.ll_hop_us, 1, 1e-9);
	g_assert_cmpfloat(m.l2_bytes, ==, 60.0 * 1048576);
	g_assert_cmpfloat_with_epsilon(m.piece_us, 3.07, 1e-9);
	g_assert_cmpfloat_with_epsilon(m.l2_GBps, 7.5, 1e-9);
	g_assert_cmpfloat_with_epsilon(m.hbm_GBps, 4.5, 1e-9);
	g_unlink(p);
	g_free(p);
	/* a bad value: its line and column; an unknown key, a missing key, no
	 * section at all */
	read_fails("calibration:\n  virtual_rank:\n    launch: 4.8us\n    piece: fast\n",
		   "FILE:4:12: piece: expected a positive time");
	read_fails("calibration:\n  virtual_rank:\n    lunch: 4.8us\n", ":3:5: expected one of launch");
	read_fails("calibration:\n  virtual_rank:\n    launch: 4.8us\n",
		   ":1:1: calibration.virtual_rank lacks 'll_hop'");
	read_fails("calibration:\n  name: x\n  # virtual_rank: not fitted: no L2\n",
		   ":1:1: no calibration.virtual_rank model");
	g_assert_cmpint(gh_calib_read_vrank("/nonexistent/x.yaml", &m, &err), ==, GC_ERR_IO);
	g_assert_nonnull(strstr(err, "/nonexistent/x.yaml:1:1: cannot read"));
	g_free(err);
	/* the L2 a device line names */
	g_assert_cmpfloat(gh_calib_l2_from_device("NVIDIA H200 (sm_90, 132 SMs, 150 GB, 60 MiB L2, driver "
						  "CUDA 13.0, runtime 13.0)"),
			  ==, 60.0 * 1048576);
	g_assert_cmpfloat(gh_calib_l2_from_device("NVIDIA H200 (sm_90, 132 SMs, 150 GB)"), ==, 0);
	g_assert_cmpfloat(gh_calib_l2_from_device(NULL), ==, 0);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/vrank/ll-paths", test_ll_paths);
	g_test_add_func("/vrank/simple-paths", test_simple_paths);
	g_test_add_func("/vrank/kernels", test_kernels);
	g_test_add_func("/vrank/fit", test_fit);
	g_test_add_func("/vrank/read", test_read);
	return g_test_run();
}
