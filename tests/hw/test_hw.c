/* SPDX-License-Identifier: MIT */
/*
 * Tests of the hw harness logic that needs no GPU: percentiles, nccl-tests
 * bandwidth, size sweeps, the least-squares calibration on a synthetic
 * recording with known alpha/beta (written to CSV and read back, as a GPU
 * machine's recording would be), the interpreter's schedule packing and
 * expected results, and the no-device path.
 *
 * Packing: mailboxes are keyed by (src, dst, channel) with channel =
 * strand / strands_per_channel, so the receiving strand of a tree
 * broadcast or a sendrecv (strand 2c + 1) must land in the mailbox the
 * sending strand (2c) fills; every mailbox has one sending and one
 * receiving strand, and a schedule breaking that is refused. One-sided
 * steps (the put all-to-all) get no mailbox but their op bits, and still
 * count as the sends of their connection; a bad signal slot, a PUT outside
 * the peer's buffer and PUT and SEND from two strands on one connection
 * are refused. Where a GPU is present, the interpreter also runs the cases
 * of interp_cases.h (the split tree and sendrecv layouts, both all-to-all
 * algorithms, NVLS, CollNet Chain, NVLS tree, MoE) and checks every output
 * element; test_interp_emu.c runs the same cases without one, under the
 * CPU emulation of CUDA.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "hw/gh_bench.h"
#include "hw/gh_calib.h"
#include "hw/gh_cuda.h"
#include "hw/gh_interp.h"
#include "hw/gh_stats.h"
#include "sim/core/gc_results.h"
#include "tests/hw/interp_cases.h"

static void test_stats(void)
{
	double s[200];
	for (int i = 0; i < 200; i++)
		s[i] = (double)((i * 37) % 200) + 1; /* a permutation of 1..200 */
	gh_summary m;
	gh_stats_summarize(s, 200, &m);
	g_assert_cmpfloat(m.min, ==, 1);
	g_assert_cmpfloat(m.max, ==, 200);
	g_assert_cmpfloat(m.median, ==, 100); /* nearest rank: ceil(0.5 * 200) */
	g_assert_cmpfloat(m.p99, ==, 198);    /* ceil(0.99 * 200) */
	g_assert_cmpfloat(m.mean, ==, 100.5);
	double few[3] = {3, 1, 2};
	gh_stats_summarize(few, 3, &m);
	g_assert_cmpfloat(m.median, ==, 2);
	g_assert_cmpfloat(m.p99, ==, 3);
	gh_stats_summarize(few, 0, &m);
	g_assert_true(isnan(m.median));
}

static void test_busbw(void)
{
	/* nccl-tests: algbw = S/t, busbw = algbw * 2(n-1)/n for allreduce. */
	double alg = gh_stats_algbw_GBps(1u << 30, 10000.0);
	g_assert_cmpfloat_with_epsilon(alg, 1073741824.0 / 1e-2 / 1e9, 1e-9);
	g_assert_cmpfloat_with_epsilon(gh_stats_busbw_GBps(GS_COLL_ALLREDUCE, 8, 1u << 30, 10000.0),
				       alg * 14.0 / 8.0, 1e-9);
	g_assert_cmpfloat_with_epsilon(gh_stats_busbw_GBps(GS_COLL_ALLGATHER, 4, 1u << 30, 10000.0),
				       alg * 3.0 / 4.0, 1e-9);
	g_assert_true(isnan(gh_stats_algbw_GBps(8, 0)));
	uint64_t sz[40];
	size_t n = gh_stats_size_sweep(8, 1u << 30, 4, sz, 40);
	g_assert_cmpuint(n, ==, 14); /* 8 * 4^k <= 2^30: k = 0..13 */
	g_assert_cmpuint(sz[n - 1], ==, 8ull << 26);
	g_assert_cmpuint(gh_stats_size_sweep(8, 64, 1, sz, 40), ==, 0);
}

/* Deterministic +-1.5 % perturbation, mean zero over 4 points. */
static double wiggle(int i)
{
	static const double w[4] = {0.015, -0.01, 0.005, -0.01};
	return 1 + w[i % 4];
}

static void test_calibration_fit(void)
{
	const double alpha_us = 6.5, beta_GBps = 52.0; /* the truth to recover */
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	uint64_t sz[40];
	size_t n = gh_stats_size_sweep(8, 1u << 30, 4, sz, 40);
	for (size_t i = 0; i < n; i++) {
		double t = (alpha_us + (double)sz[i] / (beta_GBps * 1e3)) * wiggle((int)i);
		gc_result_point p;
		gh_bench_point(&p, "memcpy_h2d", "ce", sz[i], &t, 1);
		g_array_append_val(pts, p);
	}
	/* Ring allreduce on 4 virtual ranks: T = 6 (alpha + (S/4)/beta). */
	const double ra = 3.0, rb = 200.0;
	for (uint64_t s = 4096; s <= (256u << 20); s *= 4) {
		double t = 6 * (ra + (double)s / 4 / (rb * 1e3));
		gc_result_point p;
		gh_bench_point(&p, "allreduce", "ring", s, &t, 1);
		p.nranks = 4;
		g_array_append_val(pts, p);
	}
	double lat = 4.25;
	gc_result_point p;
	gh_bench_point(&p, "launch", "isolated", 0, &lat, 1);
	g_array_append_val(pts, p);
	/* posting paths: 132 CTAs at 2 us per post each, a proxy at 0.25 us
	 * per request: 66 vs 4 Mreq/s */
	double post = 2.0, req = 0.25;
	gh_bench_point(&p, "gpu_post", "sms-b32", 0, &post, 1);
	p.nranks = 132;
	g_array_append_val(pts, p);
	gh_bench_point(&p, "proxy_rate", "sms-b32", 0, &req, 1);
	p.nranks = 132;
	g_array_append_val(pts, p);
	/* the inter-CTA barrier at 32 CTAs and at one CTA per SM */
	double bar = 0.95, bar_sms = 1.3;
	gh_bench_point(&p, "cta_barrier", GH_BENCH_BARRIER_ALGO, 0, &bar, 1);
	p.nranks = GH_BENCH_BARRIER_CTAS;
	g_array_append_val(pts, p);
	gh_bench_point(&p, "cta_barrier", "sms", 0, &bar_sms, 1);
	p.nranks = 132;
	g_array_append_val(pts, p);

	/* Through the CSV a GPU machine hands back. */
	char *dir = g_dir_make_tmp("gccal-XXXXXX", NULL);
	char *csv = g_build_filename(dir, "rec.csv", NULL);
	FILE *f = fopen(csv, "w");
	gc_run_info info = {.kind = "hw", .device = "synthetic", .created = "2025-01-01T00:00:00Z"};
	g_assert_cmpint(gc_results_write_csv(f, &info, (gc_result_point *)(void *)pts->data, pts->len), ==,
			GC_OK);
	fclose(f);
	gc_run_row run;
	gc_result_point *rec = NULL;
	size_t nrec = 0;
	char *err = NULL;
	g_assert_cmpint(gc_results_read_csv(csv, &run, &rec, &nrec, &err), ==, GC_OK);
	g_assert_cmpuint(nrec, ==, pts->len);

	gh_fit fit;
	g_assert_cmpint(gh_calib_fit_path(rec, nrec, "memcpy_h2d", NULL, &fit), ==, GC_OK);
	g_assert_cmpuint(fit.n, ==, n);
	g_assert_cmpfloat(fabs(fit.alpha_us - alpha_us) / alpha_us, <, 0.02);
	g_assert_cmpfloat(fabs(fit.beta_GBps - beta_GBps) / beta_GBps, <, 0.02);
	g_assert_cmpfloat(fit.max_rel_err, <, 0.03);
	int ranks = 0;
	g_assert_cmpint(gh_calib_fit_ring(rec, nrec, 0, &fit, &ranks), ==, GC_OK);
	g_assert_cmpint(ranks, ==, 4);
	g_assert_cmpfloat_with_epsilon(fit.alpha_us, ra, 1e-5);
	g_assert_cmpfloat_with_epsilon(fit.beta_GBps, rb, 1e-4);
	g_assert_cmpint(gh_calib_fit_path(rec, nrec, "memcpy_d2h", NULL, &fit), ==, GC_ERR_INPUT);

	GString *y = g_string_new(NULL);
	int np = 0;
	gh_calib_prov prov = {.name = "synthetic", .device = run.device, .created = run.created,
			      .command = "test", .source = csv};
	g_assert_cmpint(gh_calib_yaml(rec, nrec, &prov, y, &np, &err), ==, GC_OK);
	g_assert_cmpint(np, ==, 9); /* launch + 2 posting + 2 barrier + h2d (2) + ring link (2) */
	g_assert_nonnull(strstr(y->str, "# device:  synthetic"));
	g_assert_nonnull(strstr(y->str, "launch_latency: 4.25us"));
	g_assert_nonnull(strstr(y->str, "memcpy_h2d: {alpha: "));
	g_assert_nonnull(strstr(y->str, "virtual_rank_link:"));
	g_assert_nonnull(strstr(y->str, "gpu_post_all_sms: 2us"));
	g_assert_nonnull(strstr(y->str, "proxy_per_request: 0.25us"));
	g_assert_nonnull(strstr(y->str, "    cta_barrier: 0.95us  # inter-CTA barrier"));
	g_assert_nonnull(strstr(y->str, "    cta_barrier_all_sms: 1.3us  # "));
	g_assert_nonnull(strstr(y->str, "132 CTAs 66.0 Mreq/s, CPU proxy 4.0 Mreq/s (16.5x)"));
	/* Nothing fittable: an input error, nothing appended. */
	g_string_truncate(y, 0);
	g_assert_cmpint(gh_calib_yaml(rec, 0, &prov, y, &np, &err), ==, GC_ERR_INPUT);
	g_assert_cmpuint(y->len, ==, 0);
	g_free(err);
	g_string_free(y, TRUE);
	gc_run_row_clear(&run);
	g_free(rec);
	g_remove(csv);
	g_rmdir(dir);
	g_free(csv);
	g_free(dir);
	g_array_free(pts, TRUE);
}

/* The posting costs as a taxonomy scenario: each measured sum split by
 * keeping the platform's other terms, shortened when the sum is shorter
 * (the parts always add up to what was measured); the inter-CTA barrier
 * at 32 CTAs as gpu.cta_barrier where measured (barrier_us > 0; the one
 * at every SM is recorded too and must not be taken for it); nothing
 * without a posting point. */
static gc_status taxonomy_of(double proxy_us, double post_us, double barrier_us, GString *y)
{
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	gc_result_point p;
	if (barrier_us > 0) {
		double all = 3 * barrier_us;
		gh_bench_point(&p, "cta_barrier", "sms", 0, &all, 1);
		p.nranks = 132;
		g_array_append_val(pts, p);
		gh_bench_point(&p, "cta_barrier", GH_BENCH_BARRIER_ALGO, 0, &barrier_us, 1);
		p.nranks = GH_BENCH_BARRIER_CTAS;
		g_array_append_val(pts, p);
	}
	if (proxy_us > 0) {
		gh_bench_point(&p, "proxy_rate", "sms-b32", 0, &proxy_us, 1);
		p.nranks = 132;
		g_array_append_val(pts, p);
	}
	if (post_us > 0) {
		gh_bench_point(&p, "gpu_post", "1cta-b1", 64, &post_us, 1);
		g_array_append_val(pts, p);
		double all = 2;
		gh_bench_point(&p, "gpu_post", "sms-b32", 64, &all, 1);
		p.nranks = 132;
		g_array_append_val(pts, p);
		/* 132 CTAs on 2 shared queues, 13.2 us per post: 66 publishes of
		 * 0.2 us each */
		double shared = 13.2;
		gh_bench_point(&p, "gpu_post", GH_BENCH_SHARED_ALGO, 64, &shared, 1);
		p.nranks = 132;
		g_array_append_val(pts, p);
	}
	gh_calib_prov prov = {.name = "syn", .device = "synthetic", .created = "2025-01-01T00:00:00Z",
			      .command = "test", .source = "test"};
	gh_calib_tx_defaults d = {.platform = "dgx-h100", .post_send_us = 0.05, .fence_us = 0.2,
				  .store_issue_us = 0.02};
	char *err = NULL;
	gc_status st = gh_calib_taxonomy((gc_result_point *)(void *)pts->data, pts->len, &prov, &d, y, &err);
	if (st != GC_OK)
		g_assert_nonnull(strstr(err, "no taxonomy scenario"));
	g_free(err);
	g_array_free(pts, TRUE);
	return st;
}

static void test_calibration_taxonomy(void)
{
	GString *y = g_string_new(NULL);
	g_assert_cmpint(taxonomy_of(0.25, 0.4, 0, y), ==, GC_OK);
	g_assert_nonnull(strstr(y->str, "# device:  synthetic"));
	g_assert_nonnull(strstr(y->str, "platform: dgx-h100}"));
	g_assert_nonnull(strstr(y->str, "proxy: {request_cost: 200ns}\n"));
	g_assert_nonnull(strstr(y->str, "gpu: {publish: 200ns, wqe_build: 180ns, sms: 132}\n"));
	g_assert_null(strstr(y->str, "host:"));
	g_assert_null(strstr(y->str, "cta_barrier"));
	g_string_truncate(y, 0);
	/* the barrier at 32 CTAs, reported and written with the posting costs */
	g_assert_cmpint(taxonomy_of(0.25, 0.4, 0.95, y), ==, GC_OK);
	g_assert_nonnull(strstr(y->str, "#   32 CTAs meeting at an inter-CTA barrier: 0.95 us per barrier "
				      "(cta_barrier) = gpu.cta_barrier\n"));
	g_assert_nonnull(
		strstr(y->str, "gpu: {publish: 200ns, wqe_build: 180ns, cta_barrier: 950ns, sms: 132}\n"));
	g_string_truncate(y, 0);
	/* sums shorter than the kept terms */
	g_assert_cmpint(taxonomy_of(0.03, 0.1, 0, y), ==, GC_OK);
	g_assert_nonnull(strstr(y->str, "proxy: {request_cost: 0ns}\n"));
	g_assert_nonnull(strstr(y->str, "host: {post_send: 30ns}\n"));
	g_assert_nonnull(strstr(y->str, "gpu: {publish: 200ns, wqe_build: 0ns, fence: 80ns, sms: 132}\n"));
	g_string_truncate(y, 0);
	/* one side only, and a time that is not whole nanoseconds is given in
	 * picoseconds (what a scenario takes) */
	g_assert_cmpint(taxonomy_of(0.2504, 0, 0, y), ==, GC_OK);
	g_assert_nonnull(strstr(y->str, "proxy: {request_cost: 200400ps}\n"));
	g_assert_null(strstr(y->str, "gpu:"));
	g_string_truncate(y, 0);
	/* the proxy and the barrier: a gpu line with the barrier alone */
	g_assert_cmpint(taxonomy_of(0.25, 0, 1.0123456, y), ==, GC_OK);
	g_assert_nonnull(strstr(y->str, "gpu: {cta_barrier: 1012346ps}\n"));
	g_string_truncate(y, 0);
	/* a barrier without a posting point writes no taxonomy */
	g_assert_cmpint(taxonomy_of(0, 0, 0.95, y), ==, GC_ERR_INPUT);
	g_assert_cmpuint(y->len, ==, 0);
	g_assert_cmpint(taxonomy_of(0, 0, 0, y), ==, GC_ERR_INPUT);
	g_assert_cmpuint(y->len, ==, 0);
	g_string_free(y, TRUE);
}

static void check_pack_params(gs_params p);

static void check_pack_rpn(gs_coll coll, gs_algo algo, int nranks, int rpn, int nch, uint64_t bytes)
{
	gs_params p = {.coll = coll, .algo = algo, .dtype = GS_DT_F32, .nranks = nranks,
		       .bytes = bytes, .nchannels = nch, .chunk_bytes = 64 * 1024,
		       .slice_bytes = 16 * 1024, .ranks_per_node = rpn};
	check_pack_params(p);
}

/* MoE dispatch or combine of T tokens to the top K of E experts. */
static void check_pack_moe(gs_coll coll, int nranks, int nch, uint64_t msg, uint32_t T, uint32_t K,
			   uint32_t E)
{
	gs_params p = {.coll = coll, .algo = GS_ALGO_PUT, .dtype = GS_DT_F32, .nranks = nranks,
		       .bytes = msg, .nchannels = nch, .chunk_bytes = 64 * 1024,
		       .slice_bytes = 16 * 1024, .ranks_per_node = nranks, .moe_tokens = T,
		       .moe_topk = K, .moe_experts = E, .moe_seed = 1};
	check_pack_params(p);
}

/* forward (DeepEP normal shape) on nranks virtual ranks in nodes of rpn */
static void check_pack_fwd(gs_coll coll, int nranks, int rpn, int nch, uint64_t msg, uint32_t T,
			   uint32_t K, uint32_t E)
{
	gs_params p = {.coll = coll, .algo = GS_ALGO_FORWARD, .dtype = GS_DT_F32, .nranks = nranks,
		       .bytes = msg, .nchannels = nch, .chunk_bytes = 64 * 1024,
		       .slice_bytes = 16 * 1024, .ranks_per_node = rpn, .moe_tokens = T,
		       .moe_topk = K, .moe_experts = E, .moe_seed = 1, .moe_chunk = 4};
	check_pack_params(p);
}

/* p's schedule, materialized, and its interpreter plan, which must build;
 * free with gh_interp_plan_clear, gs_sched_free and gs_gen_free. */
static void pack(const gs_params *p, gs_gen **g, gs_sched **s, gh_interp_plan *plan)
{
	char *err = NULL;
	g_assert_cmpint(gs_gen_create(p, g, &err), ==, GC_OK);
	*s = gs_sched_materialize(*g);
	gc_status st = gh_interp_plan_build(*s, plan, &err);
	if (st != GC_OK)
		g_test_message("%s", err);
	g_assert_cmpint(st, ==, GC_OK);
}

static void check_pack_params(gs_params p)
{
	const gs_coll coll = p.coll;
	const gs_algo algo = p.algo;
	const int nranks = p.nranks;
	const uint64_t bytes = p.bytes;
	gs_gen *g;
	gs_sched *s;
	gh_interp_plan plan;
	char *err = NULL;
	pack(&p, &g, &s, &plan);
	int spc = s->strands_per_channel;
	g_assert_cmpint(plan.strands_per_channel, ==, spc);
	/* Both ends of every message name the same mailbox, the one of the
	 * channel (strand / spc), whatever the two strand indices are; each
	 * mailbox has exactly one sending and one receiving strand, and the
	 * messages sent into it are received from it in the same order. */
	int32_t *sender = g_new(int32_t, (size_t)plan.nconns + 1);
	int32_t *receiver = g_new(int32_t, (size_t)plan.nconns + 1);
	uint64_t *nsent = g_new0(uint64_t, (size_t)plan.nconns + 1);
	uint64_t *nrecv = g_new0(uint64_t, (size_t)plan.nconns + 1);
	int cross = 0; /* messages whose two ends are on different strand indices */
	for (int k = 0; k < plan.nconns; k++)
		sender[k] = receiver[k] = -1;
	for (int r = 0; r < s->nranks; r++)
		for (int c = 0; c < s->nstrands; c++) {
			uint64_t len, base = s->strand_off[(uint64_t)r * s->nstrands + c];
			const gs_step *st = gs_sched_strand(s, r, c, &len);
			for (uint64_t i = 0; i < len; i++) {
				const gh_step_aux *ax = &plan.aux[base + i];
				gs_op op = (gs_op)st[i].op;
				if (gs_op_one_sided(op)) {
					/* no mailbox; the op bits say what the kernel does */
					g_assert_cmpint(ax->send_conn, ==, -1);
					g_assert_cmpint(ax->recv_conn, ==, -1);
					g_assert_cmpuint(ax->props, ==,
							 op == GS_OP_PUT	    ? (GH_P_PUT | GH_P_READS)
							 : op == GS_OP_SIGNAL ? GH_P_SIGNAL
									      : GH_P_WAIT);
					continue;
				}
				g_assert_cmpuint(ax->props & (GH_P_PUT | GH_P_SIGNAL | GH_P_WAIT), ==, 0);
				if (gs_op_sends((gs_op)st[i].op)) {
					int k = ax->send_conn;
					g_assert_cmpint(k, >=, 0);
					g_assert_cmpint(plan.conn_src[k], ==, r);
					g_assert_cmpint(plan.conn_dst[k], ==, st[i].send_peer);
					g_assert_cmpint(plan.conn_ch[k], ==, c / spc);
					g_assert_true(sender[k] < 0 || sender[k] == c);
					sender[k] = c;
					nsent[k]++;
				} else {
					g_assert_cmpint(ax->send_conn, ==, -1);
				}
				if (gs_op_recvs((gs_op)st[i].op)) {
					int k = ax->recv_conn;
					g_assert_cmpint(k, >=, 0);
					g_assert_cmpint(plan.conn_src[k], ==, st[i].recv_peer);
					g_assert_cmpint(plan.conn_dst[k], ==, r);
					g_assert_cmpint(plan.conn_ch[k], ==, c / spc);
					g_assert_true(receiver[k] < 0 || receiver[k] == c);
					receiver[k] = c;
					nrecv[k]++;
				} else {
					g_assert_cmpint(ax->recv_conn, ==, -1);
				}
				g_assert_cmpint(!!(ax->props & GH_P_REDUCE), ==, gs_op_reduces((gs_op)st[i].op));
			}
		}
	for (int k = 0; k < plan.nconns; k++) {
		g_assert_cmpint(sender[k], >=, 0);
		g_assert_cmpint(receiver[k], >=, 0);
		g_assert_cmpuint(nsent[k], ==, nrecv[k]);
		cross += sender[k] != receiver[k];
	}
	/* the split layouts really exercise strands that differ */
	if (spc > 1 && nranks > 1 && bytes > 0 && algo != GS_ALGO_PUT && algo != GS_ALGO_FORWARD)
		g_assert_cmpint(cross, >, 0);
	/* the put all-to-all moves no message: no mailbox, one signal slot;
	 * forward's dispatch is one-sided too, with a slot per (node,
	 * channel) besides, and its combine two-sided */
	if (algo == GS_ALGO_PUT) {
		g_assert_cmpint(plan.nconns, ==, 0);
		g_assert_cmpuint(plan.nsignals, ==, 1);
	} else if (algo == GS_ALGO_FORWARD && coll == GS_COLL_DISPATCH) {
		g_assert_cmpint(plan.nconns, ==, 0);
		g_assert_cmpuint(plan.nsignals, ==, 1 + (uint64_t)(nranks / p.ranks_per_node) *
							    (uint64_t)p.nchannels);
	} else {
		g_assert_cmpuint(plan.nsignals, ==, 0);
	}
	g_free(sender);
	g_free(receiver);
	g_free(nsent);
	g_free(nrecv);
	/* Buffers are 256-aligned and do not overlap inside a rank. */
	for (int b = 0; b < GS_BUF__COUNT; b++) {
		g_assert_cmpuint(plan.buf_off[b] % 256, ==, 0);
		g_assert_cmpuint(plan.buf_off[b] + plan.buf_bytes[b], <=, plan.rank_stride);
	}
	g_assert_cmpuint(plan.rank_stride % 256, ==, 0);

	/* The expected buffers the GPU output is compared with, checked
	 * against the collective's definition on a sample of elements. */
	size_t ob = plan.buf_bytes[GS_BUF_OUTPUT];
	float *exp = g_malloc(ob * (size_t)nranks);
	g_assert_cmpint(gh_interp_expected(&plan, exp, &err), ==, GC_OK);
	size_t on = ob / 4, in_n = plan.buf_bytes[GS_BUF_INPUT] / 4;
	gs_moe_map map;
	memset(&map, 0, sizeof(map));
	if (coll == GS_COLL_DISPATCH || coll == GS_COLL_COMBINE)
		g_assert_cmpint(gs_moe_map_build(&p, &map, &err), ==, GC_OK);
	for (int r = 0; r < nranks; r++)
		for (size_t i = 0; i < on; i += on / 7 + 1) {
			double want = 0;
			int32_t src[64];
			uint64_t idx;
			if (coll == GS_COLL_DISPATCH || coll == GS_COLL_COMBINE)
				for (int k = 0, cnt = gs_moe_expect(&map, coll, r, i, src, &idx); k < cnt; k++)
					want += gh_interp_input_value(src[k], idx);
			else if (coll == GS_COLL_ALLREDUCE)
				for (int k = 0; k < nranks; k++)
					want += gh_interp_input_value(k, i);
			else if (coll == GS_COLL_ALLGATHER)
				want = gh_interp_input_value((int)(i / in_n), i % in_n);
			else if (coll == GS_COLL_SENDRECV)
				want = gh_interp_input_value((r - 1 + nranks) % nranks, i);
			else if (coll == GS_COLL_BROADCAST)
				want = gh_interp_input_value(0, i);
			else if (coll == GS_COLL_REDUCE) /* the root's; zero elsewhere */
				for (int k = 0; r == 0 && k < nranks; k++)
					want += gh_interp_input_value(k, i);
			else if (coll == GS_COLL_ALLTOALL)
				/* block j of rank r's OUTPUT: rank j's INPUT block r */
				want = gh_interp_input_value((int)(i / (on / nranks)),
							     (uint64_t)r * (on / nranks) + i % (on / nranks));
			else
				for (int k = 0; k < nranks; k++)
					want += gh_interp_input_value(k, (uint64_t)r * on + i);
			g_assert_cmpfloat(exp[(size_t)r * on + i], ==, (float)want);
		}
	gs_moe_map_free(&map);
	/* The checker accepts the expected buffers and pinpoints a wrong element. */
	g_assert_cmpint(gh_interp_check(&plan, exp, &err), ==, GC_OK);
	exp[(size_t)(nranks - 1) * on + 3] += 1;
	g_assert_cmpint(gh_interp_check(&plan, exp, &err), ==, GC_ERR_INPUT);
	char *want = g_strdup_printf("rank %d OUTPUT element 3", nranks - 1);
	g_assert_nonnull(strstr(err, want));
	g_free(want);
	g_free(err);
	g_free(exp);
	gh_interp_plan_clear(&plan);
	gs_sched_free(s);
	gs_gen_free(g);
}

/* The kernel's credit protocol on the CPU: each (rank, strand) is a block
 * that moves its steps piece by piece (gh_interp_pieces), a piece waiting
 * for a free slot in the mailbox it sends on (head - tail < slots) and for
 * a piece in the one it receives from (head > tail). Blocks take turns
 * until all finish or none can move. True when all finish. Two-sided
 * schedules only (no SIGNAL/WAIT). */
static bool mailboxes_drain(const gh_interp_plan *plan, const uint64_t *slots)
{
	int nb = plan->nranks * plan->nstrands, nc = plan->nconns;
	uint64_t *at = g_new(uint64_t, nb), *piece = g_new0(uint64_t, nb);
	uint64_t *head = g_new0(uint64_t, nc ? nc : 1), *tail = g_new0(uint64_t, nc ? nc : 1);
	for (int b = 0; b < nb; b++)
		at[b] = plan->strand_off[b];
	bool moved = true, done = false;
	while (moved && !done) {
		moved = false;
		done = true;
		for (int b = 0; b < nb; b++)
			while (at[b] < plan->strand_off[b + 1]) {
				const gh_step_aux *ax = &plan->aux[at[b]];
				g_assert_cmpuint(ax->props & (GH_P_SIGNAL | GH_P_WAIT), ==, 0);
				int s = ax->send_conn, r = ax->recv_conn;
				if ((s >= 0 && head[s] - tail[s] >= slots[s]) || (r >= 0 && head[r] <= tail[r]))
					break;
				if (s >= 0)
					head[s]++;
				if (r >= 0)
					tail[r]++;
				moved = true;
				if (++piece[b] == gh_interp_pieces(plan->steps[at[b]].bytes, plan->proto)) {
					piece[b] = 0;
					at[b]++;
				}
			}
		for (int b = 0; b < nb; b++)
			done &= at[b] == plan->strand_off[b + 1];
	}
	g_free(at);
	g_free(piece);
	g_free(head);
	g_free(tail);
	return done;
}

/* Each connection's mailbox holds a slot for every piece of `piece` data
 * bytes it carries (at least GH_NSLOTS); the slots of all of them. */
static uint64_t expect_slots(const gh_interp_plan *plan, uint64_t piece)
{
	uint64_t *want = g_new0(uint64_t, plan->nconns), total = 0;
	for (uint64_t k = 0; k < plan->nsteps; k++)
		if (plan->aux[k].send_conn >= 0)
			want[plan->aux[k].send_conn] += (plan->steps[k].bytes + piece - 1) / piece;
	for (int c = 0; c < plan->nconns; c++) {
		g_assert_cmpuint(plan->conn_slots[c], ==, MAX(want[c], (uint64_t)GH_NSLOTS));
		total += plan->conn_slots[c];
	}
	g_free(want);
	return total;
}

/* Every mailbox is as big as the plan says, and with those sizes the
 * blocks always finish; with GH_NSLOTS slots each the larger schedules
 * the GPU check runs would not (every ring rank sends a whole chunk
 * before it receives). */
static void test_interp_mailboxes(void)
{
	static const struct {
		gs_coll coll;
		gs_algo algo;
		int nranks, nch;
		uint64_t bytes;
		bool fits_few; /* finishes with GH_NSLOTS slots too */
	} cases[] = {
		{GS_COLL_ALLREDUCE, GS_ALGO_RING, 4, 1, 8u << 20, false},
		{GS_COLL_ALLREDUCE, GS_ALGO_RING, 8, 2, 64u << 20, false},
		{GS_COLL_ALLGATHER, GS_ALGO_RING, 4, 1, 8u << 20, false},
		{GS_COLL_REDUCESCATTER, GS_ALGO_RING, 4, 1, 8u << 20, false},
		{GS_COLL_ALLREDUCE, GS_ALGO_TREE, 8, 2, 8u << 20, true},
		{GS_COLL_ALLREDUCE, GS_ALGO_RING, 4, 1, 64u << 10, true},
		{GS_COLL_ALLTOALL, GS_ALGO_PAIRWISE, 4, 2, 8u << 20, true},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		/* NCCL's Simple chunking, as `gcsim hw interp` runs it */
		gs_params p = {.coll = cases[i].coll, .algo = cases[i].algo, .dtype = GS_DT_F32,
			       .nranks = cases[i].nranks, .bytes = cases[i].bytes,
			       .nchannels = cases[i].nch, .chunk_bytes = 2u << 20,
			       .slice_bytes = 1u << 20, .ranks_per_node = cases[i].nranks};
		gs_gen *g;
		gs_sched *s;
		gh_interp_plan plan;
		pack(&p, &g, &s, &plan);
		/* LL128 pieces carry 120 of every 128 bytes: more slots, the
		 * same drain */
		char *err = NULL;
		uint64_t simple_total = 0;
		for (int c = 0; c < plan.nconns; c++)
			simple_total += plan.conn_slots[c];
		g_assert_cmpint(gh_interp_plan_set(&plan, GH_KERNEL_VECTOR, GH_PROTO_LL128, 1, &err), ==, GC_OK);
		uint64_t total = expect_slots(&plan, GH_LL128_PIECE);
		g_assert_true(p.bytes <= 64u << 10 ? total == simple_total : total > simple_total);
		g_assert_true(mailboxes_drain(&plan, plan.conn_slots));
		/* back to Simple: a slot per piece sent on each connection */
		g_assert_cmpint(gh_interp_plan_set(&plan, GH_KERNEL_VECTOR, GH_PROTO_SIMPLE, 1, &err), ==, GC_OK);
		total = expect_slots(&plan, GH_SLOT_BYTES);
		g_assert_cmpuint(total, ==, simple_total);
		g_test_message("%s/%s %d ranks %llu B: %d mailboxes, %llu slots (%.0f MiB)",
			       gs_coll_name(p.coll), gs_algo_name(p.algo), p.nranks,
			       (unsigned long long)p.bytes, plan.nconns, (unsigned long long)total,
			       (double)total * GH_SLOT_BYTES / 1048576.0);
		g_assert_true(mailboxes_drain(&plan, plan.conn_slots));
		uint64_t *few = g_new(uint64_t, plan.nconns);
		for (int c = 0; c < plan.nconns; c++)
			few[c] = GH_NSLOTS;
		g_assert_cmpint(mailboxes_drain(&plan, few), ==, cases[i].fits_few);
		g_free(few);
		gh_interp_plan_clear(&plan);
		gs_sched_free(s);
		gs_gen_free(g);
	}
}

static void check_pack(gs_coll coll, gs_algo algo, int nranks, int nch, uint64_t bytes)
{
	check_pack_rpn(coll, algo, nranks, nranks, nch, bytes);
}

static void test_interp_pack(void)
{
	check_pack(GS_COLL_ALLREDUCE, GS_ALGO_RING, 4, 2, 256 * 1024);
	check_pack(GS_COLL_ALLREDUCE, GS_ALGO_TREE, 4, 1, 64 * 1024);
	check_pack(GS_COLL_ALLREDUCE, GS_ALGO_TREE, 8, 3, 512 * 1024);
	check_pack(GS_COLL_ALLGATHER, GS_ALGO_RING, 3, 1, 3 * 4096);
	check_pack(GS_COLL_REDUCESCATTER, GS_ALGO_RING, 4, 1, 4 * 4096);
	check_pack(GS_COLL_SENDRECV, GS_ALGO_RING, 4, 2, 256 * 1024);
	check_pack(GS_COLL_SENDRECV, GS_ALGO_RING, 2, 1, 4096);
	check_pack(GS_COLL_ALLTOALL, GS_ALGO_PAIRWISE, 4, 2, 256 * 1024);
	check_pack(GS_COLL_ALLTOALL, GS_ALGO_PAIRWISE, 3, 1, 3 * 4096 + 7);
	check_pack(GS_COLL_ALLTOALL, GS_ALGO_PUT, 4, 2, 256 * 1024);
	check_pack(GS_COLL_ALLTOALL, GS_ALGO_PUT, 5, 3, 5 * 4000 + 13);
	check_pack(GS_COLL_ALLTOALL, GS_ALGO_PUT, 1, 2, 4096);
	/* the switch's helper ranks are virtual ranks like any other */
	check_pack(GS_COLL_ALLREDUCE, GS_ALGO_NVLS, 4, 2, 256 * 1024);
	check_pack(GS_COLL_ALLREDUCE, GS_ALGO_NVLS, 3, 1, 3 * 4096 + 4);
	/* one engine for the allgather (multicast) and reduce-scatter */
	check_pack(GS_COLL_ALLGATHER, GS_ALGO_NVLS, 4, 2, 4 * 4096);
	check_pack(GS_COLL_REDUCESCATTER, GS_ALGO_NVLS, 3, 1, 3 * 4096 + 12);
	/* and so are nvlstree's, one pair per virtual node */
	check_pack_rpn(GS_COLL_ALLREDUCE, GS_ALGO_NVLS_TREE, 8, 4, 2, 256 * 1024);
	check_pack_rpn(GS_COLL_ALLREDUCE, GS_ALGO_NVLS_TREE, 9, 3, 1, 9 * 4096 + 12);
	/* collnet's network switch: Q and its ports after the nodes' helpers */
	check_pack_rpn(GS_COLL_ALLREDUCE, GS_ALGO_COLLNET, 8, 4, 2, 256 * 1024);
	check_pack_rpn(GS_COLL_ALLREDUCE, GS_ALGO_COLLNET, 6, 2, 1, 6 * 4096 + 12);
	check_pack_rpn(GS_COLL_ALLREDUCE, GS_ALGO_COLLNET, 3, 1, 2, 3 * 4096);
	/* nvls across nodes (SHARP): allreduce, allgather, reduce-scatter */
	check_pack_rpn(GS_COLL_ALLREDUCE, GS_ALGO_NVLS, 8, 4, 2, 256 * 1024);
	check_pack_rpn(GS_COLL_ALLGATHER, GS_ALGO_NVLS, 8, 4, 2, 8 * 4096);
	check_pack_rpn(GS_COLL_REDUCESCATTER, GS_ALGO_NVLS, 6, 2, 1, 6 * 4096 + 24);
	/* and collnetchain's chains up to it and back */
	check_pack_rpn(GS_COLL_ALLREDUCE, GS_ALGO_COLLNET_CHAIN, 8, 4, 4, 256 * 1024);
	check_pack_rpn(GS_COLL_ALLREDUCE, GS_ALGO_COLLNET_CHAIN, 6, 2, 1, 6 * 4096 + 12);
	/* bruck's rotated SCRATCH and its copy to OUTPUT */
	check_pack(GS_COLL_ALLGATHER, GS_ALGO_BRUCK, 5, 2, 5 * 4096);
	check_pack(GS_COLL_REDUCESCATTER, GS_ALGO_BRUCK, 6, 1, 6 * 4096 + 24);
	/* pat's bit-reversed positions and its staging areas (6 ranks:
	 * packed rounds) */
	check_pack(GS_COLL_ALLGATHER, GS_ALGO_PAT, 8, 2, 8 * 4096);
	check_pack(GS_COLL_REDUCESCATTER, GS_ALGO_PAT, 6, 1, 6 * 4096 + 24);
	/* broadcast and reduce: chains from and to rank 0 */
	check_pack_rpn(GS_COLL_BROADCAST, GS_ALGO_RING, 8, 4, 2, 64 * 1024 + 12);
	check_pack_rpn(GS_COLL_REDUCE, GS_ALGO_RING, 6, 2, 3, 6 * 4096);
	/* and MoE's irregular PUTs, local copies and per-target signals */
	check_pack_moe(GS_COLL_DISPATCH, 4, 3, 7408, 16, 4, 16);
	check_pack_moe(GS_COLL_COMBINE, 4, 2, 14352, 16, 4, 16);
	check_pack_moe(GS_COLL_DISPATCH, 1, 1, 64, 3, 2, 4);
	check_pack_fwd(GS_COLL_DISPATCH, 4, 2, 3, 7392, 16, 4, 16);
	check_pack_fwd(GS_COLL_COMBINE, 4, 2, 2, 14336, 16, 4, 16);
	/* A dtype the kernel cannot reduce is refused up front. */
	gs_params p = {.coll = GS_COLL_ALLREDUCE, .algo = GS_ALGO_RING, .dtype = GS_DT_U8, .nranks = 2,
		       .bytes = 4096, .nchannels = 1, .chunk_bytes = 4096, .slice_bytes = 4096,
		       .ranks_per_node = 2};
	gs_gen *g = NULL;
	char *err = NULL;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	gs_sched *s = gs_sched_materialize(g);
	gh_interp_plan plan;
	g_assert_cmpint(gh_interp_plan_build(s, &plan, &err), ==, GC_ERR_UNSUPPORTED);
	g_assert_nonnull(strstr(err, "uint8"));
	g_free(err);
	gs_sched_free(s);
	gs_gen_free(g);
}

/* A one-channel, two-strand schedule of 2 ranks; strand roles set per test. */
static gs_sched *split2(gs_op r1s0, int r1s0_peer, gs_op r1s1, int r1s1_peer)
{
	gs_sched *s = interp_sched_new((gs_params){.coll = GS_COLL_SENDRECV, .dtype = GS_DT_F32,
						   .nranks = 2, .bytes = 8, .nchannels = 1,
						   .chunk_bytes = 8, .slice_bytes = 4,
						   .ranks_per_node = 2},
				       2, 0, 4);
	/* rank 0: strand 0 sends 2 slices to rank 1; strand 1 is empty */
	for (int i = 0; i < 2; i++)
		s->steps[i] = (gs_step){.op = GS_OP_SEND, .send_peer = 1, .recv_peer = -1,
					.src_off = 4 * (uint64_t)i, .dst_buf = GS_BUF_OUTPUT, .bytes = 4};
	s->steps[2] = (gs_step){.op = (uint8_t)r1s0, .send_peer = -1, .recv_peer = r1s0_peer,
				.dst_buf = GS_BUF_OUTPUT, .bytes = 4};
	s->steps[3] = (gs_step){.op = (uint8_t)r1s1, .send_peer = -1, .recv_peer = r1s1_peer,
				.dst_buf = GS_BUF_OUTPUT, .dst_off = 4, .bytes = 4};
	uint64_t off[5] = {0, 2, 2, 3, 4};
	memcpy(s->strand_off, off, sizeof(off));
	return s;
}

/* Receives on the channel's other strand find the sender's mailbox; two
 * receiving strands on one mailbox are refused (its tail would have two
 * writers), as is a bad channel grouping. */
static void test_interp_split(void)
{
	gh_interp_plan plan;
	char *err = NULL;
	/* rank 1: both receives on strand 1 -- the p2p layout */
	gs_sched *s = split2(GS_OP_RECV, 0, GS_OP_RECV, 0);
	s->strand_off[3] = 2; /* strand (1, 0) empty, (1, 1) = steps 2, 3 */
	g_assert_cmpint(gh_interp_plan_build(s, &plan, &err), ==, GC_OK);
	g_assert_cmpint(plan.nconns, ==, 1);
	g_assert_cmpint(plan.aux[2].recv_conn, ==, plan.aux[0].send_conn);
	g_assert_cmpint(plan.aux[3].recv_conn, ==, plan.aux[0].send_conn);
	gh_interp_plan_clear(&plan);
	gs_sched_free(s);

	/* rank 1: one receive on each strand of channel 0 */
	s = split2(GS_OP_RECV, 0, GS_OP_RECV, 0);
	g_assert_cmpint(gh_interp_plan_build(s, &plan, &err), ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, "connection 0->1 channel 0 has two receiving strands: 0 and 1"));
	g_free(err);
	err = NULL;
	/* the same strands as two channels: strand 1 of rank 1 has no sender */
	s->strands_per_channel = 1;
	g_assert_cmpint(gh_interp_plan_build(s, &plan, &err), ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, "r1 c1 #0: RECV from r0 on channel 1, but r0 never sends there"));
	g_free(err);
	err = NULL;
	s->strands_per_channel = 0;
	g_assert_cmpint(gh_interp_plan_build(s, &plan, &err), ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, "channels of 0"));
	g_free(err);
	gs_sched_free(s);
}

/* A 2-rank put all-to-all of one float per block (one channel, one slot). */
static gs_sched *put2(void)
{
	gs_sched *s = interp_sched_new((gs_params){.coll = GS_COLL_ALLTOALL, .algo = GS_ALGO_PUT,
						   .dtype = GS_DT_F32, .nranks = 2, .bytes = 8,
						   .nchannels = 1, .chunk_bytes = 4, .slice_bytes = 4,
						   .ranks_per_node = 2},
				       2, 1, 8);
	for (int r = 0; r < 2; r++) {
		gs_step *st = s->steps + 4 * r;
		uint64_t own = 4 * (uint64_t)r;
		st[0] = (gs_step){.op = GS_OP_COPY, .send_peer = -1, .recv_peer = -1, .src_off = own,
				  .dst_buf = GS_BUF_OUTPUT, .dst_off = own, .bytes = 4};
		st[1] = (gs_step){.op = GS_OP_PUT, .send_peer = 1 - r, .recv_peer = -1,
				  .src_off = 4 - own, .dst_buf = GS_BUF_OUTPUT, .dst_off = own,
				  .bytes = 4};
		st[2] = (gs_step){.op = GS_OP_SIGNAL, .send_peer = 1 - r, .recv_peer = -1,
				  .dst_buf = GS_BUF_OUTPUT, .bytes = 8};
		st[3] = (gs_step){.op = GS_OP_WAIT, .send_peer = -1, .recv_peer = -1,
				  .dst_buf = GS_BUF_OUTPUT, .bytes = 1};
	}
	uint64_t off[5] = {0, 3, 4, 7, 8};
	memcpy(s->strand_off, off, sizeof(off));
	return s;
}

static void expect_pack_error(gs_sched *s, const char *needle)
{
	gh_interp_plan plan;
	char *err = NULL;
	g_assert_cmpint(gh_interp_plan_build(s, &plan, &err), ==, GC_ERR_INPUT);
	if (!strstr(err, needle))
		g_test_fail_printf("message \"%s\" lacks \"%s\"", err, needle);
	g_free(err);
	gs_sched_free(s);
}

/* One-sided steps: no mailbox, checked fields, one sending strand per
 * connection whatever the op. */
static void test_interp_one_sided(void)
{
	gh_interp_plan plan;
	char *err = NULL;
	gs_sched *s = put2();
	g_assert_cmpint(gh_interp_plan_build(s, &plan, &err), ==, GC_OK);
	g_assert_cmpint(plan.nconns, ==, 0);
	g_assert_cmpuint(plan.nsignals, ==, 1);
	g_assert_cmpuint(plan.max_msg_bytes, ==, 4); /* the SIGNAL word is no message */
	g_assert_cmpuint(plan.aux[1].props, ==, GH_P_PUT | GH_P_READS);
	g_assert_cmpuint(plan.aux[2].props, ==, GH_P_SIGNAL);
	g_assert_cmpuint(plan.aux[3].props, ==, GH_P_WAIT);
	/* the host-side expectation of the exchange */
	float exp[4];
	g_assert_cmpint(gh_interp_expected(&plan, exp, &err), ==, GC_OK);
	g_assert_cmpfloat(exp[0], ==, (float)gh_interp_input_value(0, 0));
	g_assert_cmpfloat(exp[1], ==, (float)gh_interp_input_value(1, 0));
	g_assert_cmpfloat(exp[2], ==, (float)gh_interp_input_value(0, 1));
	g_assert_cmpfloat(exp[3], ==, (float)gh_interp_input_value(1, 1));
	gh_interp_plan_clear(&plan);
	gs_sched_free(s);

	s = put2();
	s->steps[2].dst_off = 1;
	expect_pack_error(s, "r0 c0 #2 (SIGNAL): signal slot out of range");
	s = put2();
	s->steps[7].src_off = 5;
	expect_pack_error(s, "r1 c1 #0 (WAIT): signal slot out of range");
	s = put2();
	s->steps[5].dst_off = 8;
	expect_pack_error(s, "r1 c0 #1 (PUT): PUT outside the peer's buffer");
	s = put2();
	s->steps[5].send_peer = 1;
	expect_pack_error(s, "r1 c0 #1 (PUT): send_peer is not another rank");
	/* rank 0: PUT on strand 0, a SEND on strand 1 to the same peer and
	 * channel (the WAIT becomes a SEND, rank 1's WAIT a RECV) */
	s = put2();
	s->steps[3] = (gs_step){.op = GS_OP_SEND, .send_peer = 1, .recv_peer = -1,
				.dst_buf = GS_BUF_OUTPUT, .bytes = 4};
	s->steps[7] = (gs_step){.op = GS_OP_RECV, .send_peer = -1, .recv_peer = 0,
				.dst_buf = GS_BUF_OUTPUT, .bytes = 4};
	expect_pack_error(s, "r0 c1 #0: connection 0->1 channel 0 has two sending strands: 0 and 1");
}

/* On a GPU: the split tree and sendrecv layouts and both all-to-all
 * algorithms through the interpreter, every output element checked (the
 * device-side proof that a receiving strand finds its sender's mailbox and
 * that PUT data is in place once the WAIT passes). */
static void test_interp_gpu(void)
{
	int ndev = 0;
	char why[GH_WHY] = "";
	if (gh_cuda_probe(&ndev, why) != GC_OK || ndev < 1) {
		g_test_skip(why);
		return;
	}
	for (size_t i = 0; i < G_N_ELEMENTS(interp_cases); i++) {
		gs_params p = interp_case_params(&interp_cases[i]);
		interp_case c;
		interp_case_open(&p, &c);
		char *err = NULL;
		double us[2];
		const int dev0 = 0;
		gc_status st = gh_cuda_interp_run(&dev0, 1, &c.plan, c.in, c.out, 1, 2, us, why);
		if (st != GC_OK)
			g_test_message("case %zu: %s", i, why);
		g_assert_cmpint(st, ==, GC_OK);
		st = gh_interp_check(&c.plan, c.out, &err);
		if (st != GC_OK)
			g_test_message("case %zu: %s", i, err);
		g_assert_cmpint(st, ==, GC_OK);
		g_test_message("case %zu (%s/%s, %d ranks, %d channels): %.1f us", i,
			       gs_coll_name(p.coll), gs_algo_name(p.algo), p.nranks, p.nchannels,
			       us[1]);
		interp_case_close(&c);
	}
}

/* With two or more GPUs that reach each other: rank r on GPU r, ring
 * allreduce over two channels, every output element checked. What the
 * interpreter checks without a device: a wrong GPU count is refused. */
static void test_interp_multi_gpu(void)
{
	int ndev = 0;
	char why[GH_WHY] = "";
	gs_params p = {.coll = GS_COLL_ALLREDUCE, .algo = GS_ALGO_RING, .dtype = GS_DT_F32,
		       .nranks = 2, .bytes = 1u << 20, .nchannels = 2, .chunk_bytes = 256 * 1024,
		       .slice_bytes = 64 * 1024, .ranks_per_node = 2};
	interp_case c;
	interp_case_open(&p, &c);
	char *err = NULL;
	double us[2];
	const int three[] = {0, 1, 2};
	gc_status st = gh_cuda_interp_run(three, 3, &c.plan, c.in, c.out, 1, 2, us, why);
#if GC_HAVE_CUDA
	/* refused before any device is touched */
	g_assert_cmpint(st, ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(why, "3 GPUs for 2 ranks"));
#else
	g_assert_cmpint(st, ==, GC_ERR_NODEV); /* the stub's answer, whatever was asked */
#endif
	if (gh_cuda_probe(&ndev, why) == GC_OK && ndev >= 2) {
		st = gh_cuda_interp_run(three, 2, &c.plan, c.in, c.out, 1, 2, us, why);
		if (st == GC_ERR_UNSUPPORTED) {
			g_test_message("%s", why); /* no peer access between GPU 0 and 1 */
		} else {
			g_assert_cmpint(st, ==, GC_OK);
			g_assert_cmpint(gh_interp_check(&c.plan, c.out, &err), ==, GC_OK);
			g_test_message("ring allreduce 1 MiB on GPUs 0 and 1: %.1f us", us[1]);
		}
	} else {
		g_test_message("fewer than 2 GPUs: the two-GPU run is not exercised");
	}
	interp_case_close(&c);
}

static void test_no_device(void)
{
	int n = -1;
	char why[GH_WHY] = "";
	gc_status st = gh_cuda_probe(&n, why);
	if (st == GC_OK) {
		g_test_skip("a GPU is present: the no-device path is not reachable here");
		return;
	}
	g_assert_cmpint(st, ==, GC_ERR_NODEV);
	g_assert_cmpint(n, ==, 0);
	g_assert_cmpuint(strlen(why), >, 10);
	g_assert_null(strchr(why, '\n'));
	g_assert_true(strstr(why, "driver") || strstr(why, "GPU") || strstr(why, "without CUDA"));
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/hw/stats", test_stats);
	g_test_add_func("/hw/busbw", test_busbw);
	g_test_add_func("/hw/calibration-fit", test_calibration_fit);
	g_test_add_func("/hw/calibration-taxonomy", test_calibration_taxonomy);
	g_test_add_func("/hw/interp-pack", test_interp_pack);
	g_test_add_func("/hw/interp-mailboxes", test_interp_mailboxes);
	g_test_add_func("/hw/interp-split", test_interp_split);
	g_test_add_func("/hw/interp-one-sided", test_interp_one_sided);
	g_test_add_func("/hw/interp-gpu", test_interp_gpu);
	g_test_add_func("/hw/interp-multi-gpu", test_interp_multi_gpu);
	g_test_add_func("/hw/no-device", test_no_device);
	return g_test_run();
}
