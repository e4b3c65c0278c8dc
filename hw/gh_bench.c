/* SPDX-License-Identifier: MIT */
/*
 * gh_bench: microbenchmark sweeps and interpreter runs (see gh_bench.h).
 */
#include "gh_bench.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gh_interp.h"
#include "gh_stats.h"

void gh_bench_opts_default(gh_bench_opts *o, bool quick)
{
	memset(o, 0, sizeof(*o));
	o->quick = quick;
	o->warmup = quick ? 2 : 5;
	o->iters = quick ? 10 : 50;
}

void gh_bench_point(gc_result_point *pt, const char *path, const char *algo, uint64_t bytes,
		    double *samples, int n)
{
	gh_summary s;
	gh_stats_summarize(samples, (size_t)n, &s);
	gc_result_point_init(pt);
	g_strlcpy(pt->collective, path, sizeof(pt->collective));
	g_strlcpy(pt->algo, algo ? algo : "", sizeof(pt->algo));
	pt->nranks = 1;
	pt->size_bytes = bytes;
	pt->count = bytes;
	pt->time_us = s.median;
	pt->min_us = s.min;
	pt->median_us = s.median;
	pt->p99_us = s.p99;
	pt->iters = n;
	if (bytes > 0) {
		pt->algbw_GBps = gh_stats_algbw_GBps(bytes, s.median);
		pt->busbw_GBps = pt->algbw_GBps;
	}
}

/* Fewer iterations for large transfers keep the suite inside its budget. */
static int iters_for(const gh_bench_opts *o, uint64_t bytes)
{
	if (bytes >= (256u << 20))
		return o->iters < 5 ? o->iters : 5;
	if (bytes >= (16u << 20))
		return o->iters < 20 ? o->iters : 20;
	return o->iters;
}

gc_status gh_bench_micro(const gh_bench_opts *o, void *pts_out, char *why)
{
	GArray *pts = pts_out;
	int n = o->iters > 1000 ? 1000 : o->iters;
	double *s = g_new(double, 1000);
	gc_result_point pt;
	gc_status st = GC_OK;
	uint64_t sizes[32];

	for (int pipe = 0; pipe < 2 && st == GC_OK; pipe++) {
		st = gh_cuda_launch_latency(o->dev, pipe, 64, o->warmup, n, s, why);
		if (st == GC_OK) {
			gh_bench_point(&pt, "launch", pipe ? "pipelined" : "isolated", 0, s, n);
			g_array_append_val(pts, pt);
		}
	}
	size_t ns = gh_stats_size_sweep(8, o->quick ? (64u << 20) : (1u << 30), o->quick ? 16 : 4,
					sizes, G_N_ELEMENTS(sizes));
	static const char *const dir_name[] = {"memcpy_h2d", "memcpy_d2h", "memcpy_d2d"};
	for (int d = 0; d < 3 && st == GC_OK; d++)
		for (size_t i = 0; i < ns && st == GC_OK; i++) {
			int k = iters_for(o, sizes[i]);
			st = gh_cuda_memcpy(o->dev, (gh_copy_dir)d, sizes[i], o->warmup, k, s, why);
			if (st == GC_OK) {
				gh_bench_point(&pt, dir_name[d], "ce", sizes[i], s, k);
				g_array_append_val(pts, pt);
			}
		}
	ns = gh_stats_size_sweep(1u << 20, o->quick ? (256u << 20) : (1u << 30), 4, sizes,
				 G_N_ELEMENTS(sizes));
	for (int sm = 0; sm < 2 && st == GC_OK; sm++)
		for (size_t i = 0; i < ns && st == GC_OK; i++) {
			int k = iters_for(o, sizes[i]);
			st = gh_cuda_hbm_copy(o->dev, sm, sizes[i], o->warmup, k, s, why);
			if (st == GC_OK) {
				gh_bench_point(&pt, "hbm_copy", sm ? "sm" : "ce", sizes[i], s, k);
				/* A copy reads and writes every byte: report HBM traffic. */
				pt.busbw_GBps = 2 * pt.algbw_GBps;
				g_array_append_val(pts, pt);
			}
		}
	if (st == GC_OK) {
		st = gh_cuda_flag_pingpong(o->dev, 16, o->warmup, n, s, why);
		if (st == GC_OK) {
			gh_bench_point(&pt, "flag_pingpong", "pinned", 8, s, n);
			g_array_append_val(pts, pt);
		}
	}
	if (st == GC_OK) {
		st = gh_cuda_proxy_rtt(o->dev, 16, o->warmup, n, s, why);
		if (st == GC_OK) {
			gh_bench_point(&pt, "proxy_rtt", "fifo", 24, s, n);
			g_array_append_val(pts, pt);
		}
	}
	/* The posting paths of inter-node types 5 and 3/proxy, without a NIC:
	 * one CTA posting alone (batch 1: a doorbell per request, as the
	 * taxonomy's recipe; batch 32: NVSHMEM's default), every SM posting,
	 * and the CPU proxy fed by every SM. */
	gh_dev_info di;
	if (st == GC_OK)
		st = gh_cuda_dev_info(o->dev, &di, why);
	int posts = o->quick ? 1024 : 4096, per_cta = o->quick ? 256 : 1024;
	/* sms-q2-b1: every SM posting on 2 shared queues, a doorbell each (the
	 * publish serialized per queue: gpu.publish = sample x 2 / CTAs); fewer
	 * posts, as each queue takes half the CTAs' posts one at a time */
	static const struct {
		const char *algo;
		bool all_sms;
		int batch, queues, posts_div;
	} post_runs[] = {{"1cta-b1", false, 1, 0, 1},
			 {"1cta-b32", false, 32, 0, 1},
			 {"sms-b32", true, 32, 0, 1},
			 {GH_BENCH_SHARED_ALGO, true, 1, GH_BENCH_SHARED_QUEUES, 32}};
	for (size_t r = 0; r < G_N_ELEMENTS(post_runs) && st == GC_OK; r++) {
		int ctas = post_runs[r].all_sms ? di.sm_count : 1;
		st = gh_cuda_gpu_post(o->dev, ctas, post_runs[r].queues, posts / post_runs[r].posts_div,
				      post_runs[r].batch, o->warmup, n, s, why);
		if (st == GC_OK) {
			gh_bench_point(&pt, "gpu_post", post_runs[r].algo, 0, s, n);
			pt.nranks = ctas;
			g_array_append_val(pts, pt);
		}
	}
	if (st == GC_OK) {
		st = gh_cuda_proxy_rate(o->dev, di.sm_count, per_cta, 32, o->warmup, n, s, why);
		if (st == GC_OK) {
			gh_bench_point(&pt, "proxy_rate", "sms-b32", 0, s, n);
			pt.nranks = di.sm_count;
			g_array_append_val(pts, pt);
		}
	}
	/* The inter-CTA barrier of NVSHMEM's perftest at 32 CTAs (its default
	 * -c 32) and at one CTA per SM, and shmem_put_bw's loop at 32 CTAs (a
	 * post each, IBGDA with a doorbell each, then the barrier; calibrate
	 * checks it against the sum of gpu_post 1cta-b1 and cta_barrier c32).
	 * A GPU that cannot hold the CTAs at once (no cooperative launch) has
	 * no such point. */
	const struct {
		const char *path, *algo;
		int ctas;
		gc_status (*run)(int, int, int, int, int, double *, char *);
	} loops[] = {
		{"cta_barrier", GH_BENCH_BARRIER_ALGO, GH_BENCH_BARRIER_CTAS, gh_cuda_cta_barrier},
		{"cta_barrier", "sms", di.sm_count, gh_cuda_cta_barrier},
		{"put_loop", GH_BENCH_BARRIER_ALGO, GH_BENCH_BARRIER_CTAS, gh_cuda_put_loop},
	};
	int per_launch = o->quick ? 100 : 1000;
	for (size_t k = 0; k < G_N_ELEMENTS(loops) && st == GC_OK; k++) {
		char bwhy[GH_WHY] = "";
		gc_status p = loops[k].run(o->dev, loops[k].ctas, per_launch, o->warmup, n, s, bwhy);
		if (p == GC_ERR_UNSUPPORTED)
			continue;
		st = p;
		if (st == GC_OK) {
			gh_bench_point(&pt, loops[k].path, loops[k].algo, 0, s, n);
			pt.nranks = loops[k].ctas;
			g_array_append_val(pts, pt);
		} else {
			memcpy(why, bwhy, GH_WHY);
		}
	}
	int ndev = 0;
	char why2[GH_WHY];
	if (st == GC_OK && gh_cuda_probe(&ndev, why2) == GC_OK && ndev >= 2) {
		ns = gh_stats_size_sweep(8, o->quick ? (64u << 20) : (1u << 30), o->quick ? 16 : 4, sizes,
					 G_N_ELEMENTS(sizes));
		for (size_t i = 0; i < ns && st == GC_OK; i++) {
			int k = iters_for(o, sizes[i]);
			gc_status p = gh_cuda_p2p_copy(0, 1, sizes[i], o->warmup, k, s, why2);
			if (p == GC_ERR_UNSUPPORTED)
				break; /* no peer access: nothing to measure */
			st = p;
			if (st == GC_OK) {
				gh_bench_point(&pt, "p2p_copy", "ce", sizes[i], s, k);
				pt.nranks = 2;
				g_array_append_val(pts, pt);
			} else {
				memcpy(why, why2, GH_WHY);
			}
		}
	}
	g_free(s);
	return st;
}

void gh_bench_coll_point(gc_result_point *pt, const gs_params *p, uint64_t bytes, double *samples,
			 int n)
{
	gh_bench_point(pt, gs_coll_name(p->coll), gs_algo_name(p->algo), bytes, samples, n);
	pt->nranks = p->nranks;
	g_strlcpy(pt->dtype, gs_dtype_name(p->dtype), sizeof(pt->dtype));
	pt->count = bytes / gs_dtype_size(p->dtype);
	pt->busbw_GBps = gh_stats_busbw_GBps(p->coll, p->nranks, bytes, pt->time_us);
}

gc_status gh_bench_interp(const gh_bench_opts *o, const gs_params *p, void *pts_out, char *why)
{
	GArray *pts = pts_out;
	gs_gen *g = NULL;
	gs_sched *s = NULL;
	gh_interp_plan plan;
	memset(&plan, 0, sizeof(plan));
	char *err = NULL;
	void *in = NULL, *out = NULL;
	double *t = NULL;
	gc_status st = gs_gen_create(p, &g, &err);
	if (st == GC_OK) {
		s = gs_sched_materialize(g);
		st = gs_sched_validate(s, &err);
	}
	if (st == GC_OK)
		st = gh_interp_plan_build(s, &plan, &err);
	if (st == GC_OK)
		st = gh_interp_plan_set(&plan, o->kernel, o->proto, o->blocks > 0 ? o->blocks : 1, &err);
	if (st == GC_OK) {
		in = g_malloc(plan.buf_bytes[GS_BUF_INPUT] * (uint64_t)plan.nranks + 1);
		out = g_malloc0(plan.buf_bytes[GS_BUF_OUTPUT] * (uint64_t)plan.nranks + 1);
		t = g_new(double, o->iters > 0 ? o->iters : 1);
		gh_interp_fill_inputs(&plan, in);
		int devs[GH_MAX_GPUS], ndevs = 1;
		devs[0] = o->dev;
		if (o->gpus > 1) {
			ndevs = o->gpus < GH_MAX_GPUS ? o->gpus : GH_MAX_GPUS;
			for (int d = 0; d < ndevs; d++)
				devs[d] = d;
		}
		st = gh_cuda_interp_run(devs, ndevs, &plan, in, out, o->warmup, o->iters, t, why);
		if (st == GC_OK)
			st = gh_interp_check(&plan, out, &err);
	}
	if (st == GC_OK) {
		gc_result_point pt;
		gh_bench_coll_point(&pt, p, g->p.bytes, t, o->iters);
		g_array_append_val(pts, pt);
	} else if (err) {
		snprintf(why, GH_WHY, "%s %s, %d ranks: %s", gs_algo_name(p->algo),
			 gs_coll_name(p->coll), p->nranks, err);
	}
	g_free(err);
	g_free(in);
	g_free(out);
	g_free(t);
	gh_interp_plan_clear(&plan);
	if (s)
		gs_sched_free(s);
	if (g)
		gs_gen_free(g);
	return st;
}
