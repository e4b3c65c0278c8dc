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
 * put_loop: NVSHMEM perftest shmem_put_bw's loop as the simulator models
 * it (gcsim explain --bench put-bw), without a NIC: per iteration each
 * CTA's leader posts one work request on a send queue of its own the IBGDA
 * way, a doorbell each (gh_ibgda_post of gh_post.cuh, the code gpu_post
 * 1cta-b1 times), then every CTA meets at the same barrier. Timed the same
 * way, per iteration: the measured counterpart of the model's one CTA's
 * post + gpu.cta_barrier, a check of that composition.
 *
 * Invariants: a spin gives up after GH_BARRIER_TIMEOUT_NS at a barrier,
 * GH_POST_TIMEOUT_NS at a publish (the benchmark then fails with
 * GC_ERR_IO, every thread of the CTA leaving together, so none is left at
 * a __syncthreads); everything allocated is released on every path;
 * `iters` samples are written on success.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdio.h>

#include "hw/gh_cuda.h"
#include "hw/kernels/gh_common.cuh"
#include "hw/kernels/gh_post.cuh"

#ifndef GH_BARRIER_TIMEOUT_NS
#define GH_BARRIER_TIMEOUT_NS 5000000000ull
#endif
#ifndef GH_BARRIER_THREADS
#define GH_BARRIER_THREADS 32 /* threads per CTA: a warp, the leader and 31 waiting */
#endif

/* GH_CK with the calling benchmark's prefix, `pre`, in its why line */
#define CK(call) GH_CK(pre, call)

/* Both kernels' one argument (a cooperative launch passes it by value). */
struct gh_barrier_arg {
	unsigned *counter; /* [0] arrivals so far, [1] the epoch: barriers completed */
	int iters;	   /* barriers (loop iterations) in this launch */
	int *err;	   /* raised when a spin times out */
	gh_sq *sqs;	   /* put loop: one send queue per CTA (else NULL) */
	volatile unsigned long long *uar; /* put loop: their doorbells, 16 words apart */
};

/* The epoch-th barrier since counter was zeroed, entered by every thread
 * of the CTA (stop: the CTA's shared flag). False, in every thread, when
 * the CTA stops: its leader's spin timed out (*err raised) or stop was
 * already set. */
__device__ static inline bool gh_inter_cta_barrier(unsigned *counter, unsigned epoch, int *err,
						   int &stop)
{
	volatile unsigned *vc = counter;
	__syncthreads();
	if (threadIdx.x == 0) {
		__threadfence();
		unsigned c = atomicInc(counter, UINT_MAX);
		if (c == gridDim.x * epoch - 1)
			vc[1] = epoch; /* the last arrival: counter[1] += 1 */
		unsigned n = 0;
		uint64_t t0 = 0;
		while (vc[1] != epoch) {
			if (gh_spin_expired(&n, &t0, GH_BARRIER_TIMEOUT_NS)) {
				atomicExch(err, 1);
				stop = 1;
				break;
			}
		}
	}
	__syncthreads();
	return !stop;
}

__global__ void gh_cta_barrier_kernel(gh_barrier_arg a)
{
	GH_SHARED(int, stop);
	if (threadIdx.x == 0)
		stop = 0;
	for (unsigned epoch = 1; epoch <= (unsigned)a.iters; epoch++)
		if (!gh_inter_cta_barrier(a.counter, epoch, a.err, stop))
			return;
}

/* shmem_put_bw's loop: the leader posts on its CTA's queue (a doorbell
 * each), then the barrier. A post that timed out still arrives at the
 * barrier, so the other CTAs are not left waiting; the CTA stops after it. */
__global__ void gh_put_loop_kernel(gh_barrier_arg a)
{
	GH_SHARED(int, stop);
	if (threadIdx.x == 0)
		stop = 0;
	gh_sq *q = &a.sqs[blockIdx.x];
	for (unsigned epoch = 1; epoch <= (unsigned)a.iters; epoch++) {
		/* batch 1: a doorbell per post, as gpu_post 1cta-b1 */
		if (threadIdx.x == 0 &&
		    !gh_ibgda_post(q, blockIdx.x, a.uar, (int)epoch - 1, 1, false, a.err))
			stop = 1;
		if (!gh_inter_cta_barrier(a.counter, epoch, a.err, stop))
			return;
	}
}

/* Times `kernel` per iteration by the slope: each sample launches it
 * cooperatively with n and with 2 x n iterations (the send queues, when
 * `queues`, and the counter cleared before each) and takes the difference
 * over n. pre: the why line's prefix; what: where a timed-out CTA waited. */
static gc_status slope_run(const char *pre, const char *what, void (*kernel)(gh_barrier_arg),
			   bool queues, int dev, int ctas, int n, int warmup, int iters, double *us,
			   char *why)
{
	gc_status st = GC_OK;
	unsigned *counter = NULL;
	int *derr = NULL, herr = 0;
	gh_sq *sqs = NULL;
	unsigned long long *uar = NULL, *duar = NULL;
	cudaEvent_t ea = NULL, eb = NULL;
	int nsm = 0, coop = 0, per_sm = 0;
	CK(cudaSetDevice(dev));
	CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
	CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, GH_BARRIER_THREADS, 0));
	if (!coop || ctas > per_sm * nsm) {
		snprintf(why, GH_WHY, "%s%d CTAs cannot all be resident on GPU %d (%s)", pre, ctas, dev,
			 coop ? "too many" : "no cooperative launch");
		return GC_ERR_UNSUPPORTED;
	}
	CK(cudaMalloc((void **)&counter, 2 * sizeof(unsigned)));
	CK(cudaMalloc((void **)&derr, sizeof(int)));
	if (queues) {
		CK(cudaMalloc((void **)&sqs, sizeof(gh_sq) * (size_t)ctas));
		CK(cudaHostAlloc((void **)&uar, sizeof(unsigned long long) * 16 * (size_t)ctas,
				 cudaHostAllocMapped));
		CK(cudaHostGetDevicePointer((void **)&duar, uar, 0));
	}
	CK(cudaEventCreate(&ea));
	CK(cudaEventCreate(&eb));
	CK(cudaMemset(derr, 0, sizeof(int)));
	for (int it = -warmup; it < iters; it++) {
		float ms[2] = {0, 0};
		for (int r = 0; r < 2; r++) {
			gh_barrier_arg arg = {counter, n * (r + 1), derr, sqs, duar};
			void *args[] = {&arg};
			/* the memsets, the events and the launch all on the legacy
			 * stream: in that order */
			CK(cudaMemset(counter, 0, 2 * sizeof(unsigned)));
			if (queues)
				CK(cudaMemset(sqs, 0, sizeof(gh_sq) * (size_t)ctas));
			CK(cudaEventRecord(ea, 0));
			CK(cudaLaunchCooperativeKernel((const void *)kernel, dim3(ctas),
						       dim3(GH_BARRIER_THREADS), args, 0, 0));
			CK(cudaEventRecord(eb, 0));
			CK(cudaEventSynchronize(eb));
			CK(cudaEventElapsedTime(&ms[r], ea, eb));
			CK(cudaMemcpy(&herr, derr, sizeof(int), cudaMemcpyDeviceToHost));
			if (herr) {
				snprintf(why, GH_WHY, "%s%d CTAs, a CTA waited past %.0f s at %s", pre,
					 ctas, GH_BARRIER_TIMEOUT_NS / 1e9, what);
				st = GC_ERR_IO;
				goto out;
			}
		}
		/* a sample whose longer launch ran no longer than the shorter
		 * (timing noise above n iterations' worth, seen only under the
		 * CPU emulation) counts as 0: a time is never negative, and the
		 * median the calibration takes moves only if half the samples
		 * do so */
		if (it >= 0)
			us[it] = ms[1] > ms[0] ? ((double)ms[1] - (double)ms[0]) * 1e3 / n : 0;
	}
out:
	if (eb)
		cudaEventDestroy(eb);
	if (ea)
		cudaEventDestroy(ea);
	if (uar)
		cudaFreeHost(uar);
	if (sqs)
		cudaFree(sqs);
	if (derr)
		cudaFree(derr);
	if (counter)
		cudaFree(counter);
	return st;
}

extern "C" gc_status gh_cuda_cta_barrier(int dev, int ctas, int barriers, int warmup, int iters,
					 double *us, char *why)
{
	if (ctas < 1 || barriers < 1 || warmup < 0 || iters < 1) {
		snprintf(why, GH_WHY, "cta barrier: ctas, barriers and iterations must be positive");
		return GC_ERR_INPUT;
	}
	return slope_run("cta barrier: ", "a barrier", gh_cta_barrier_kernel, false, dev, ctas,
			 barriers, warmup, iters, us, why);
}

extern "C" gc_status gh_cuda_put_loop(int dev, int ctas, int iters_per_launch, int warmup,
				      int samples, double *us, char *why)
{
	if (ctas < 1 || iters_per_launch < 1 || warmup < 0 || samples < 1) {
		snprintf(why, GH_WHY, "put loop: ctas, iterations per launch and samples must be positive");
		return GC_ERR_INPUT;
	}
	return slope_run("put loop: ", "a barrier or a publish", gh_put_loop_kernel, true, dev, ctas,
			 iters_per_launch, warmup, samples, us, why);
}
