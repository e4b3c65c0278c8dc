/* SPDX-License-Identifier: MIT */
/*
 * gh_post: the two ways a GPU gets a small RDMA write posted, measured
 * without a NIC (see gh_cuda.h for the contracts):
 *
 *  - GPU-initiated (NVSHMEM IBGDA, inter-node type 5): a CTA's leader thread
 *    reserves a send-queue slot with an atomic on the queue's reservation
 *    counter, writes the 64-byte work-queue entry into the queue (GPU
 *    memory), fences, publishes the slot in order with a compare-and-swap on
 *    the queue's ready counter, and every `batch` entries makes them visible
 *    system-wide, updates the doorbell record and rings the doorbell. Each
 *    CTA has its own queue, or the CTAs share a few (CTA c on queue c mod
 *    queues, as NVSHMEM maps CTAs onto its RC queue pairs). The
 *    doorbell is an 8-byte store into host-mapped memory standing in for the
 *    NIC's doorbell page: both are posted writes that leave the GPU over
 *    PCIe, so the GPU side costs the same; what a real NIC does after it is
 *    not part of this measurement.
 *
 *  - CPU proxy (NVSHMEM IBRC, inter-node type 3 with a device API): CTAs
 *    claim slots of a request ring in host-pinned memory with an atomic on a
 *    GPU counter and write 32-byte requests into them; one CPU thread takes
 *    the requests in order, builds a 64-byte work-queue entry per request in
 *    a host send queue, updates the doorbell record and every `batch`
 *    requests (or when the ring runs dry) rings the doorbell, and returns
 *    ring space by publishing how far it has consumed. The doorbell is a
 *    store to host memory; a real one is an uncached MMIO write
 *    (pcie.mmio_write, measured separately by GDRCopy), which NVSHMEM's
 *    IBRC transport rings once per request (one ibv_post_send each), and
 *    reaping the completions (host.cq_poll) is not part of it either: the
 *    time per request measured here is proxy.request_cost + host.post_send.
 *
 * Invariants: every spin gives up after GH_POST_TIMEOUT_NS (the benchmark
 * then fails with GC_ERR_IO); everything allocated is released on every
 * path; `iters` samples are written on success.
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hw/gh_cuda.h"
#include "hw/kernels/gh_common.cuh"
#include "hw/kernels/gh_post.cuh"

#define GH_RING 4096	  /* request ring slots */

#define CK(call) GH_CK("", call)

/* Leader thread of each CTA posts `posts` entries on queue CTA mod nq (the
 * post itself: gh_post.cuh); out[cta] = ns per post. *err is raised when a
 * spin times out. */
__global__ void gh_gpu_post_kernel(gh_sq *sqs, int nq, volatile unsigned long long *uar, int posts,
				   int batch, double *out, int *err)
{
	__syncthreads();
	if (threadIdx.x != 0)
		return;
	unsigned qi = blockIdx.x % (unsigned)nq;
	gh_sq *q = &sqs[qi];
	uint64_t t0 = gh_gtime();
	for (int i = 0; i < posts; i++)
		if (!gh_ibgda_post(q, qi, uar, i, batch, i == posts - 1, err))
			return;
	out[blockIdx.x] = (double)(gh_gtime() - t0) / posts;
}

extern "C" gc_status gh_cuda_gpu_post(int dev, int ctas, int queues, int posts, int batch,
				      int warmup, int iters, double *us, char *why)
{
	gc_status st = GC_OK;
	gh_sq *sqs = NULL;
	unsigned long long *uar = NULL, *duar = NULL;
	double *dout = NULL, *hout = NULL;
	int *derr = NULL, herr = 0;
	if (ctas < 1 || posts < 1 || batch < 1 || queues < 0) {
		snprintf(why, GH_WHY, "gpu post: ctas, posts and batch must be positive, queues not negative");
		return GC_ERR_INPUT;
	}
	int nq = queues > 0 && queues < ctas ? queues : ctas;
	CK(cudaSetDevice(dev));
	CK(cudaMalloc((void **)&sqs, sizeof(gh_sq) * (size_t)nq));
	CK(cudaHostAlloc((void **)&uar, sizeof(unsigned long long) * 16 * (size_t)nq,
			 cudaHostAllocMapped));
	CK(cudaHostGetDevicePointer((void **)&duar, uar, 0));
	CK(cudaMalloc((void **)&dout, sizeof(double) * (size_t)ctas));
	CK(cudaMalloc((void **)&derr, sizeof(int)));
	hout = (double *)malloc(sizeof(double) * (size_t)ctas);
	if (!hout) {
		snprintf(why, GH_WHY, "gpu post: out of host memory");
		st = GC_ERR_IO;
		goto out;
	}
	for (int it = 0; it < warmup + iters; it++) {
		CK(cudaMemset(sqs, 0, sizeof(gh_sq) * (size_t)nq));
		CK(cudaMemset(derr, 0, sizeof(int)));
		GH_LAUNCH(gh_gpu_post_kernel, ctas, 32, 0, 0, (sqs, nq, duar, posts, batch, dout, derr));
		CK(cudaGetLastError());
		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(&herr, derr, sizeof(int), cudaMemcpyDeviceToHost));
		if (herr) {
			snprintf(why, GH_WHY, "gpu post: an in-order publish spun past %.0f s",
				 GH_POST_TIMEOUT_NS / 1e9);
			st = GC_ERR_IO;
			goto out;
		}
		CK(cudaMemcpy(hout, dout, sizeof(double) * (size_t)ctas, cudaMemcpyDeviceToHost));
		if (it >= warmup) {
			/* the slowest CTA bounds the aggregate rate */
			double worst = 0;
			for (int c = 0; c < ctas; c++)
				worst = hout[c] > worst ? hout[c] : worst;
			us[it - warmup] = worst / 1e3;
		}
	}
out:
	free(hout);
	if (derr)
		cudaFree(derr);
	if (dout)
		cudaFree(dout);
	if (uar)
		cudaFreeHost(uar);
	if (sqs)
		cudaFree(sqs);
	return st;
}

/* A request as the GPU leaves it for the proxy (NVSHMEM's channel entries
 * are of this size); seq is written last. */
struct gh_req {
	volatile unsigned long long bytes, raddr, peer, seq;
};

struct gh_chan {
	gh_req ring[GH_RING];		     /* host-pinned, written by the GPU */
	volatile unsigned long long consumed; /* host-pinned, written by the CPU */
	unsigned long long pad[15];
	volatile int stop;
};

/* Leader thread of each CTA issues `per_cta` requests. */
__global__ void gh_proxy_feed_kernel(gh_chan *ch, unsigned long long *issue, int per_cta, int *err)
{
	__syncthreads();
	if (threadIdx.x != 0)
		return;
	uint64_t t0 = gh_gtime();
	for (int i = 0; i < per_cta; i++) {
		unsigned long long slot = atomicAdd(issue, 1ull);
		unsigned n = 0;
		while (slot - ch->consumed >= GH_RING) { /* ring full: wait for the proxy */
			if ((++n & 1023) == 0 && (gh_gtime() - t0 > GH_POST_TIMEOUT_NS || ch->stop)) {
				atomicExch(err, 1);
				return;
			}
		}
		gh_req *r = &ch->ring[slot % GH_RING];
		r->bytes = 512;
		r->raddr = 0x1000ull + slot * 512;
		r->peer = blockIdx.x & 7;
		__threadfence_system();
		r->seq = slot + 1;
	}
}

struct gh_proxy_side {
	gh_chan *ch;
	unsigned long long *sq; /* host send queue, GH_SQ_DEPTH 64-byte entries */
	unsigned long long total;
	int batch;
	double first_us, last_us;
	unsigned long long posted, doorbells;
	int timed_out;
	volatile int abort_; /* set by the launching thread when the kernel failed */
};

static double post_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The proxy: requests in ring order; per request a 64-byte entry in the
 * host send queue and a doorbell-record update, a doorbell per batch or
 * when the ring runs dry. Time runs from the first request seen to the
 * last one posted. */
static void *gh_proxy_loop(void *arg)
{
	gh_proxy_side *p = (gh_proxy_side *)arg;
	volatile unsigned long long dbr = 0, doorbell = 0;
	unsigned long long k = 0, since_db = 0;
	double t0 = post_now_us();
	while (k < p->total) {
		gh_req *r = &p->ch->ring[k % GH_RING];
		unsigned spins = 0;
		while (r->seq != k + 1) {
			if (since_db) { /* ring dry: flush the batch */
				doorbell = dbr;
				p->doorbells++;
				since_db = 0;
			}
			if (p->abort_)
				return NULL;
			if ((++spins & 0xffff) == 0 && post_now_us() - t0 > GH_POST_TIMEOUT_NS / 1e3) {
				p->timed_out = 1;
				p->ch->stop = 1;
				return NULL;
			}
		}
		if (k == 0)
			p->first_us = post_now_us();
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		unsigned long long *w = &p->sq[(k % GH_SQ_DEPTH) * 8];
		w[0] = (k << 8) | 0x08; /* opcode and index */
		w[1] = r->peer;
		w[2] = r->raddr;
		w[3] = 0x2a;
		w[4] = r->bytes;
		w[5] = 0x2b;
		w[6] = 0x3000 + k;
		w[7] = 0;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		dbr = k + 1;
		k++;
		if (++since_db == (unsigned long long)p->batch) {
			doorbell = dbr;
			p->doorbells++;
			since_db = 0;
		}
		if ((k & 31) == 0 || k == p->total)
			p->ch->consumed = k;
	}
	if (since_db) {
		doorbell = dbr;
		p->doorbells++;
	}
	(void)doorbell;
	p->posted = k;
	p->last_us = post_now_us();
	return NULL;
}

extern "C" gc_status gh_cuda_proxy_rate(int dev, int ctas, int per_cta, int batch, int warmup,
					int iters, double *us, char *why)
{
	gc_status st = GC_OK;
	gh_chan *ch = NULL, *dch = NULL;
	unsigned long long *issue = NULL, *sq = NULL;
	int *derr = NULL, herr = 0;
	if (ctas < 1 || per_cta < 1 || batch < 1) {
		snprintf(why, GH_WHY, "proxy rate: ctas, requests and batch must be positive");
		return GC_ERR_INPUT;
	}
	CK(cudaSetDevice(dev));
	CK(cudaHostAlloc((void **)&ch, sizeof(gh_chan), cudaHostAllocMapped | cudaHostAllocPortable));
	CK(cudaHostGetDevicePointer((void **)&dch, ch, 0));
	CK(cudaMalloc((void **)&issue, sizeof(unsigned long long)));
	CK(cudaMalloc((void **)&derr, sizeof(int)));
	sq = (unsigned long long *)calloc(GH_SQ_DEPTH * 8, sizeof(unsigned long long));
	if (!sq) {
		snprintf(why, GH_WHY, "proxy rate: out of host memory");
		st = GC_ERR_IO;
		goto out;
	}
	for (int it = 0; it < warmup + iters; it++) {
		memset((void *)ch, 0, sizeof(gh_chan));
		CK(cudaMemset(issue, 0, sizeof(unsigned long long)));
		CK(cudaMemset(derr, 0, sizeof(int)));
		gh_proxy_side p;
		memset(&p, 0, sizeof(p));
		p.ch = ch;
		p.sq = sq;
		p.total = (unsigned long long)ctas * (unsigned long long)per_cta;
		p.batch = batch;
		pthread_t th;
		if (pthread_create(&th, NULL, gh_proxy_loop, &p) != 0) {
			snprintf(why, GH_WHY, "proxy rate: cannot start the proxy thread");
			st = GC_ERR_IO;
			goto out;
		}
		GH_LAUNCH(gh_proxy_feed_kernel, ctas, 32, 0, 0, (dch, issue, per_cta, derr));
		cudaError_t le = cudaGetLastError();
		cudaError_t se = le == cudaSuccess ? cudaDeviceSynchronize() : le;
		if (se != cudaSuccess)
			p.abort_ = 1;
		pthread_join(th, NULL);
		CK(se);
		CK(cudaMemcpy(&herr, derr, sizeof(int), cudaMemcpyDeviceToHost));
		if (herr || p.timed_out || p.posted != p.total) {
			snprintf(why, GH_WHY, "proxy rate: requests stalled for %.0f s",
				 GH_POST_TIMEOUT_NS / 1e9);
			st = GC_ERR_IO;
			goto out;
		}
		if (it >= warmup)
			us[it - warmup] = (p.last_us - p.first_us) / (double)(p.total > 1 ? p.total - 1 : 1);
	}
out:
	free(sq);
	if (derr)
		cudaFree(derr);
	if (issue)
		cudaFree(issue);
	if (ch)
		cudaFreeHost(ch);
	return st;
}
