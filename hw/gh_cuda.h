/* SPDX-License-Identifier: MIT */
/*
 * gh_cuda: the thin C interface between the hw harness and the CUDA code.
 *
 * With GC_HAVE_CUDA the functions are implemented by the .cu files in hw/kernels; without
 * it, hw/gh_cuda_stub.c implements every one of them by returning
 * GC_ERR_NODEV with the reason "gcsim was built without CUDA (nvcc not found
 * at build time)". No CUDA type crosses this interface, so the rest of hw/
 * compiles with a plain C compiler.
 *
 * Conventions: every function returns a gc_status; on failure `why` (size
 * GH_WHY bytes) holds one line naming the cause. Timings are microseconds,
 * one sample per timed iteration, after `warmup` untimed iterations.
 */
#ifndef GH_CUDA_H
#define GH_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/core/gc_status.h"

#ifdef __cplusplus
extern "C" {
#endif


#define GH_WHY 256

typedef struct gh_dev_info {
	int index;
	char name[256];
	char pci_bus_id[32]; /* "0000:1b:00.0" */
	int cc_major, cc_minor;
	int sm_count;
	uint64_t mem_bytes;
	int mem_bus_bits;
	int mem_clock_khz;
	int l2_bytes;
	int driver_version;  /* e.g. 12040 for 12.4 */
	int runtime_version; /* of the linked runtime */
	int npeers;	     /* other devices with peer access */
	int peers[16];
} gh_dev_info;

/* Number of usable devices. No driver, no device, or a build without CUDA:
 * GC_ERR_NODEV with one line saying which. */
gc_status gh_cuda_probe(int *ndev, char *why);
gc_status gh_cuda_dev_info(int dev, gh_dev_info *out, char *why);

typedef enum gh_copy_dir { GH_COPY_H2D = 0, GH_COPY_D2H, GH_COPY_D2D } gh_copy_dir;

/* Empty-kernel launch. pipelined: `batch` back-to-back launches per sample,
 * sample = elapsed / batch (what nccl-tests' small sizes see); otherwise
 * launch + synchronize per sample (isolated latency). */
gc_status gh_cuda_launch_latency(int dev, bool pipelined, int batch, int warmup, int iters,
				 double *us, char *why);
/* cudaMemcpyAsync with pinned host memory, timed with CUDA events. */
gc_status gh_cuda_memcpy(int dev, gh_copy_dir dir, uint64_t bytes, int warmup, int iters,
			 double *us, char *why);
/* Device-to-device copy of `bytes` by the copy engine (sm == false) or by a
 * vectorized SM copy kernel using every SM (sm == true). */
gc_status gh_cuda_hbm_copy(int dev, bool sm, uint64_t bytes, int warmup, int iters, double *us,
			   char *why);
/* Flag ping-pong through host-pinned memory: the kernel raises a flag the
 * CPU polls, the CPU answers through a second flag the kernel polls. One
 * sample = one round trip (kernel clock, averaged over `batch` trips). */
gc_status gh_cuda_flag_pingpong(int dev, int batch, int warmup, int iters, double *us, char *why);
/* CPU-proxy round trip: the kernel posts a request {seq, bytes, peer} into a
 * host-pinned FIFO; a CPU pthread polls the FIFO, handles the request and
 * posts a completion the kernel polls. One sample = one request's round
 * trip (kernel clock, averaged over `batch` requests). */
gc_status gh_cuda_proxy_rtt(int dev, int batch, int warmup, int iters, double *us, char *why);
/* GPU-initiated posting (NVSHMEM IBGDA's path, no NIC): `ctas` CTAs post
 * `posts` 64-byte work requests each into send queues in GPU memory, each
 * CTA its own queue (queues 0) or CTA c on queue c mod `queues`, as
 * NVSHMEM shares its RC queue pairs among CTAs (reserve a slot with an
 * atomic, write the entry, publish it in order with a compare-and-swap;
 * every `batch` entries of a queue a system fence, the doorbell record and
 * an 8-byte doorbell store across PCIe into host-mapped memory). One sample
 * = time per post of the slowest CTA (so the aggregate rate is ctas /
 * sample). */
gc_status gh_cuda_gpu_post(int dev, int ctas, int queues, int posts, int batch, int warmup,
			   int iters, double *us, char *why);
/* CPU-proxy posting rate (NVSHMEM IBRC's path, no NIC): `ctas` CTAs write
 * `per_cta` 32-byte requests each into a host-pinned ring; one CPU thread
 * takes them in order and per request builds a 64-byte work request in a
 * host send queue and updates the doorbell record, with a doorbell store
 * per `batch` requests or when the ring runs dry. One sample = proxy time
 * per request (first request seen to last posted). */
gc_status gh_cuda_proxy_rate(int dev, int ctas, int per_cta, int batch, int warmup, int iters,
			     double *us, char *why);
/* Inter-CTA barrier in global memory (NVSHMEM perftest's
 * inter_cta_barrier, run between the iterations of shmem_put_bw): `ctas`
 * CTAs of 32 threads, launched cooperatively, pass barrier after barrier
 * (__syncthreads; the leader fences, increments an arrival counter, the
 * last arrival bumps an epoch word, every leader spins until it reads it;
 * __syncthreads). One sample = time per barrier: two launches of
 * `barriers` and 2 x `barriers` barriers timed with CUDA events, the
 * difference over `barriers` (the launch cancels). GC_ERR_UNSUPPORTED when
 * the CTAs cannot all be resident at once. */
gc_status gh_cuda_cta_barrier(int dev, int ctas, int barriers, int warmup, int iters, double *us,
			      char *why);
/* NVSHMEM perftest shmem_put_bw's loop without a NIC: `ctas` CTAs of 32
 * threads, launched cooperatively, each iteration the leader of each CTA
 * posts one work request on its CTA's own send queue the way
 * gh_cuda_gpu_post does (a doorbell each), then every CTA passes the
 * barrier of gh_cuda_cta_barrier. One sample = time per iteration, by the
 * same slope (launches of `iters_per_launch` and twice that many
 * iterations). GC_ERR_UNSUPPORTED when the CTAs cannot all be resident at
 * once. */
gc_status gh_cuda_put_loop(int dev, int ctas, int iters_per_launch, int warmup, int samples,
			   double *us, char *why);
/* cudaMemcpyPeerAsync from dev_src to dev_dst with peer access enabled. */
gc_status gh_cuda_p2p_copy(int dev_src, int dev_dst, uint64_t bytes, int warmup, int iters,
			   double *us, char *why);

/* The schedule interpreter's device-side input, built by gh_interp.c. */
struct gh_interp_plan;
#define GH_MAX_GPUS 16
/* Runs the plan on devs[0] with every rank virtual (ndevs == 1), or with
 * rank r on devs[r] (ndevs == nranks; every pair needs peer access, else
 * GC_ERR_UNSUPPORTED): copies inputs (nranks consecutive INPUT buffers) in,
 * runs warmup + iters launches (mailboxes reset before each), copies every
 * rank's OUTPUT out (nranks consecutive buffers). A sample is the slowest
 * GPU's kernel time. */
gc_status gh_cuda_interp_run(const int *devs, int ndevs, const struct gh_interp_plan *plan,
			     const void *inputs, void *outputs, int warmup, int iters, double *us,
			     char *why);

#ifdef __cplusplus
}
#endif

#endif
