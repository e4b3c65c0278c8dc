/* SPDX-License-Identifier: MIT */
/*
 * gh_bench: the measurement suite behind `gcsim hw bench` and `gcsim hw
 * interp`. Each measurement becomes one gc_result_point whose `collective`
 * names the path measured:
 *   launch (algo isolated|pipelined), memcpy_h2d|memcpy_d2h|memcpy_d2d,
 *   hbm_copy (algo ce|sm), flag_pingpong, proxy_rtt, gpu_post and
 *   proxy_rate (algo: who posts, batch), cta_barrier (algo c32|sms, nranks =
 *   CTAs; time per barrier), put_loop (algo c32, nranks = CTAs; time per
 *   iteration of shmem_put_bw's post + barrier), p2p_copy,
 *   and collectives run by the schedule interpreter (allreduce, ... with
 *   algo ring|tree, nranks = virtual ranks).
 * time_us is the median; min/median/p99 and iters are kept alongside, and
 * algbw/busbw follow nccl-tests (busbw factor 1 for the microbenchmarks).
 * Points are appended to a GArray only after a measurement succeeded, so a
 * failure leaves the points gathered so far and one line in `why`.
 */
#ifndef GH_BENCH_H
#define GH_BENCH_H

#include <stdbool.h>

#include "gh_cuda.h"
#include "sim/core/gc_results.h"
#include "sim/sched/gs_sched.h"

typedef struct gh_bench_opts {
	int dev;
	int gpus; /* interpreter: 0 = every rank virtual on dev; N = rank r on GPU r */
	bool quick; /* fewer sizes and iterations: the whole suite in well under a minute */
	int warmup, iters;
	int kernel; /* interpreter: GH_KERNEL_VECTOR (0), GH_KERNEL_SCALAR or GH_KERNEL_PIPE */
	int proto;  /* interpreter: GH_PROTO_SIMPLE (0) or GH_PROTO_LL128 */
	int blocks; /* interpreter: blocks per strand (0: 1) */
} gh_bench_opts;

void gh_bench_opts_default(gh_bench_opts *o, bool quick);

/* The shared-queue posting point, gpu_post GH_BENCH_SHARED_ALGO: every SM
 * posting on GH_BENCH_SHARED_QUEUES queues, a doorbell each. */
#define GH_BENCH_SHARED_QUEUES 2
#define GH_BENCH_SHARED_ALGO "sms-q2-b1"

/* The inter-CTA barrier point gpu.cta_barrier is calibrated from,
 * cta_barrier GH_BENCH_BARRIER_ALGO: GH_BENCH_BARRIER_CTAS CTAs (NVSHMEM
 * perftest's default -c 32); cta_barrier sms has one CTA per SM. put_loop
 * GH_BENCH_BARRIER_ALGO is shmem_put_bw's loop at as many CTAs. */
#define GH_BENCH_BARRIER_CTAS 32
#define GH_BENCH_BARRIER_ALGO "c32"

/* Fills pt from samples (sorts them) for a path measured at `bytes`. */
void gh_bench_point(gc_result_point *pt, const char *path, const char *algo, uint64_t bytes,
		    double *samples, int n);

/* Runs every microbenchmark; appends gc_result_point rows to pts (a GArray *). */
gc_status gh_bench_micro(const gh_bench_opts *o, void *pts, char *why);

/* Generates, validates and packs the schedule of p, runs it on the GPU,
 * checks the outputs against the expected result, and appends one point. */
gc_status gh_bench_interp(const gh_bench_opts *o, const gs_params *p, void *pts, char *why);
/* The point of one collective of shape p (size `bytes`, as the generator
 * settled it) from n timed samples: its name, ranks, dtype, count, and
 * nccl-tests' algbw and busbw -- what an interpreter run records and what
 * the virtual-rank model's prediction of it records. */
void gh_bench_coll_point(gc_result_point *pt, const gs_params *p, uint64_t bytes, double *samples,
			 int n);

#endif
