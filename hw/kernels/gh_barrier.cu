/* SPDX-License-Identifier: MIT */
/*
 * gh_barrier: the inter-CTA barrier in global memory that NVSHMEM's
 * perftest (inter_cta_barrier) runs between the iterations of
 * shmem_put_bw, timed per barrier (see gh_cuda.h for the contract). The
 * simulator's gpu.cta_barrier is this time: from the last CTA's arrival
 * until every CTA has left.
 *
 * The barrier, in every CTA: __syncthreads; the leader thread fences, takes
 * an arrival ticket with an atomic increment of counter[0], and the CTA
 * whose ticket is the last of this barrier (gridDim.x x epoch - 1) bumps
 * the epoch word counter[1]; every leader spins on counter[1] until it
 * reads this barrier's epoch; __syncthreads. Both words share one line, as
 * in the perftest. With nothing but barriers in the loop every CTA arrives
 * at once, so a barrier's time is the arrivals' fences and atomics on the
 * one counter, the epoch bump and the spinning leaders seeing it, and the
 * two __syncthreads: the terms gpu.cta_barrier stands for.
 *
 * Timing: the CTAs are launched cooperatively (every CTA resident, or the
 * launch is refused: a CTA still waiting for an SM would never arrive).
 * One sample times two launches with CUDA events, of `barriers` and of
 * 2 x `barriers` barriers; the difference divided by `barriers` is the time
 * per barrier, the launch and the first barrier's ramp-up (the same in both
 * launches) cancelling -- the slope of kernel time over barrier count.
 *
 * Invariants: a spin gives up after GH_BARRIER_TIMEOUT_NS (the benchmark
 * then fails with GC_ERR_IO, every thread of the CTA leaving together, so
 * none is left at a __syncthreads); everything allocated is released on
 * every path; `iters` samples are written on success.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdio.h>

#include "hw/gh_cuda.h"
#include "hw/kernels/gh_common.cuh"

#ifndef GH_BARRIER_TIMEOUT_NS
#define GH_BARRIER_TIMEOUT_NS 5000000000ull
#endif
#ifndef GH_BARRIER_THREADS
#define GH_BARRIER_THREADS 32 /* threads per CTA: a warp, the leader and 31 waiting */
#endif

#define CK(call) GH_CK("cta barrier: ", call)

/* The kernel's one argument (a cooperative launch passes it by value). */
struct gh_barrier_arg {
	unsigned *counter; /* [0] arrivals so far, [1] the epoch: barriers completed */
	int barriers;
	int *err; /* raised when a spin times out */
};

__global__ void gh_cta_barrier_kernel(gh_barrier_arg a)
{
	GH_SHARED(int, stop);
	volatile unsigned *vc = a.counter;
	if (threadIdx.x == 0)
		stop = 0;
	for (unsigned epoch = 1; epoch <= (unsigned)a.barriers; epoch++) {
		__syncthreads();
		if (threadIdx.x == 0) {
			__threadfence();
			unsigned c = atomicInc(a.counter, UINT_MAX);
			if (c == gridDim.x * epoch - 1)
				vc[1] = epoch; /* the last arrival: counter[1] += 1 */
			/* the clock is read every 1024 polls only, the first
			 * read starting the timeout, so a barrier that opens
			 * soon costs no clock read (the poll count may wrap,
			 * the timeout's start is kept apart from it) */
			unsigned n = 0;
			uint64_t t0 = 0;
			while (vc[1] != epoch) {
				if ((++n & 1023) == 0) {
					uint64_t t = gh_gtime();
					if (!t0) {
						t0 = t;
					} else if (t - t0 > GH_BARRIER_TIMEOUT_NS) {
						atomicExch(a.err, 1);
						stop = 1;
						break;
					}
				}
			}
		}
		__syncthreads();
		if (stop)
			return;
	}
}

extern "C" gc_status gh_cuda_cta_barrier(int dev, int ctas, int barriers, int warmup, int iters,
					 double *us, char *why)
{
	gc_status st = GC_OK;
	unsigned *counter = NULL;
	int *derr = NULL, herr = 0;
	cudaEvent_t ea = NULL, eb = NULL;
	int nsm = 0, coop = 0, per_sm = 0;
	if (ctas < 1 || barriers < 1 || warmup < 0 || iters < 1) {
		snprintf(why, GH_WHY, "cta barrier: ctas, barriers and iterations must be positive");
		return GC_ERR_INPUT;
	}
	CK(cudaSetDevice(dev));
	CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
	CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gh_cta_barrier_kernel,
							 GH_BARRIER_THREADS, 0));
	if (!coop || ctas > per_sm * nsm) {
		snprintf(why, GH_WHY, "cta barrier: %d CTAs cannot all be resident on GPU %d (%s)", ctas,
			 dev, coop ? "too many" : "no cooperative launch");
		return GC_ERR_UNSUPPORTED;
	}
	CK(cudaMalloc((void **)&counter, 2 * sizeof(unsigned)));
	CK(cudaMalloc((void **)&derr, sizeof(int)));
	CK(cudaEventCreate(&ea));
	CK(cudaEventCreate(&eb));
	CK(cudaMemset(derr, 0, sizeof(int)));
	for (int it = -warmup; it < iters; it++) {
		float ms[2] = {0, 0};
		for (int r = 0; r < 2; r++) {
			gh_barrier_arg arg = {counter, barriers * (r + 1), derr};
			void *args[] = {&arg};
			/* the memset, the events and the launch all on the legacy
			 * stream: in that order */
			CK(cudaMemset(counter, 0, 2 * sizeof(unsigned)));
			CK(cudaEventRecord(ea, 0));
			CK(cudaLaunchCooperativeKernel((const void *)gh_cta_barrier_kernel, dim3(ctas),
						       dim3(GH_BARRIER_THREADS), args, 0, 0));
			CK(cudaEventRecord(eb, 0));
			CK(cudaEventSynchronize(eb));
			CK(cudaEventElapsedTime(&ms[r], ea, eb));
			CK(cudaMemcpy(&herr, derr, sizeof(int), cudaMemcpyDeviceToHost));
			if (herr) {
				snprintf(why, GH_WHY, "cta barrier: %d CTAs, a CTA waited past %.0f s at a barrier",
					 ctas, GH_BARRIER_TIMEOUT_NS / 1e9);
				st = GC_ERR_IO;
				goto out;
			}
		}
		if (it >= 0)
			us[it] = ((double)ms[1] - (double)ms[0]) * 1e3 / barriers;
	}
out:
	if (eb)
		cudaEventDestroy(eb);
	if (ea)
		cudaEventDestroy(ea);
	if (derr)
		cudaFree(derr);
	if (counter)
		cudaFree(counter);
	return st;
}
