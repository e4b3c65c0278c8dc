/* SPDX-License-Identifier: MIT */
/*
 * gh_micro: device discovery and the microbenchmarks behind gh_cuda.h --
 * kernel launch, cudaMemcpy per direction, copy-engine vs SM copy of HBM,
 * flag ping-pong and CPU-proxy round trip through host-pinned memory, P2P.
 *
 * Invariants: every function releases what it allocated on every path
 * (goto-style unwinding via a scope guard struct), returns GC_ERR_NODEV only
 * for a missing driver/device and GC_ERR_IO for a CUDA failure in between,
 * and writes exactly `iters` samples on success. Spin loops that wait for the
 * other side of a flag give up after GH_SPIN_TIMEOUT_NS so a lost flag ends
 * a benchmark with an error instead of hanging the machine.
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hw/gh_cuda.h"
#include "hw/kernels/gh_common.cuh"

#define GH_SPIN_TIMEOUT_NS 5000000000ull

#define CK(call) GH_CK("", call)

extern "C" gc_status gh_cuda_probe(int *ndev, char *why)
{
	*ndev = 0;
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e == cudaErrorInsufficientDriver) {
		int drv = 0;
		cudaDriverGetVersion(&drv);
		if (drv == 0)
			snprintf(why, GH_WHY, "no NVIDIA driver loaded (cudaGetDeviceCount: %s)",
				 cudaGetErrorString(e));
		else
			snprintf(why, GH_WHY, "the NVIDIA driver (CUDA %d.%d) is older than the CUDA runtime gcsim was built with",
				 drv / 1000, drv % 1000 / 10);
		return GC_ERR_NODEV;
	}
	if (e == cudaErrorNoDevice || (e == cudaSuccess && n == 0)) {
		snprintf(why, GH_WHY, "no CUDA-capable GPU found");
		return GC_ERR_NODEV;
	}
	if (e != cudaSuccess) {
		snprintf(why, GH_WHY, "cannot use the GPU: cudaGetDeviceCount: %s (%s)",
			 cudaGetErrorString(e), cudaGetErrorName(e));
		return GC_ERR_NODEV;
	}
	*ndev = n;
	return GC_OK;
}

extern "C" gc_status gh_cuda_dev_info(int dev, gh_dev_info *o, char *why)
{
	gc_status st = GC_OK;
	memset(o, 0, sizeof(*o));
	cudaDeviceProp pr;
	int n = 0, v = 0;
	CK(cudaGetDeviceProperties(&pr, dev));
	o->index = dev;
	snprintf(o->name, sizeof(o->name), "%s", pr.name);
	CK(cudaDeviceGetPCIBusId(o->pci_bus_id, (int)sizeof(o->pci_bus_id), dev));
	o->cc_major = pr.major;
	o->cc_minor = pr.minor;
	o->sm_count = pr.multiProcessorCount;
	o->mem_bytes = pr.totalGlobalMem;
	o->mem_bus_bits = pr.memoryBusWidth;
	CK(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, dev));
	o->mem_clock_khz = v;
	o->l2_bytes = pr.l2CacheSize;
	CK(cudaDriverGetVersion(&o->driver_version));
	CK(cudaRuntimeGetVersion(&o->runtime_version));
	CK(cudaGetDeviceCount(&n));
	for (int p = 0; p < n && o->npeers < 16; p++) {
		int can = 0;
		if (p != dev && cudaDeviceCanAccessPeer(&can, dev, p) == cudaSuccess && can)
			o->peers[o->npeers++] = p;
	}
out:
	return st;
}

__global__ void gh_empty_kernel(void) {}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

extern "C" gc_status gh_cuda_launch_latency(int dev, bool pipelined, int batch, int warmup,
					    int iters, double *us, char *why)
{
	gc_status st = GC_OK;
	cudaStream_t s = NULL;
	if (batch < 1)
		batch = 1;
	CK(cudaSetDevice(dev));
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	for (int it = -warmup; it < iters; it++) {
		double t0 = now_us();
		if (pipelined) {
			for (int b = 0; b < batch; b++)
				GH_LAUNCH(gh_empty_kernel, 1, 1, 0, s, ());
		} else {
			GH_LAUNCH(gh_empty_kernel, 1, 1, 0, s, ());
		}
		CK(cudaGetLastError());
		CK(cudaStreamSynchronize(s));
		double t = now_us() - t0;
		if (it >= 0)
			us[it] = pipelined ? t / batch : t;
	}
out:
	if (s)
		cudaStreamDestroy(s);
	return st;
}

/* Times `iters` calls of fn(ctx, stream) with CUDA events, one sample each. */
template <typename F>
static gc_status time_events(cudaStream_t s, int warmup, int iters, double *us, char *why, F fn)
{
	gc_status st = GC_OK;
	cudaEvent_t a = NULL, b = NULL;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (int it = -warmup; it < iters; it++) {
		CK(cudaEventRecord(a, s));
		CK(fn(s));
		CK(cudaEventRecord(b, s));
		CK(cudaEventSynchronize(b));
		float ms = 0;
		CK(cudaEventElapsedTime(&ms, a, b));
		if (it >= 0)
			us[it] = (double)ms * 1e3;
	}
out:
	if (a)
		cudaEventDestroy(a);
	if (b)
		cudaEventDestroy(b);
	return st;
}

extern "C" gc_status gh_cuda_memcpy(int dev, gh_copy_dir dir, uint64_t bytes, int warmup,
				    int iters, double *us, char *why)
{
	gc_status st = GC_OK;
	void *h = NULL, *d0 = NULL, *d1 = NULL;
	cudaStream_t s = NULL;
	CK(cudaSetDevice(dev));
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaMalloc(&d0, bytes));
	if (dir == GH_COPY_D2D)
		CK(cudaMalloc(&d1, bytes));
	else
		CK(cudaMallocHost(&h, bytes));
	CK(cudaMemset(d0, 1, bytes));
	st = time_events(s, warmup, iters, us, why, [&](cudaStream_t q) {
		switch (dir) {
		case GH_COPY_H2D: return cudaMemcpyAsync(d0, h, bytes, cudaMemcpyHostToDevice, q);
		case GH_COPY_D2H: return cudaMemcpyAsync(h, d0, bytes, cudaMemcpyDeviceToHost, q);
		default: return cudaMemcpyAsync(d1, d0, bytes, cudaMemcpyDeviceToDevice, q);
		}
	});
out:
	if (h)
		cudaFreeHost(h);
	if (d0)
		cudaFree(d0);
	if (d1)
		cudaFree(d1);
	if (s)
		cudaStreamDestroy(s);
	return st;
}

/* Grid-stride copy with 16-byte vectors; the tail (bytes % 16) byte-wise. */
__global__ void gh_sm_copy(uint4 *__restrict__ dst, const uint4 *__restrict__ src, size_t nvec,
			   char *dtail, const char *stail, size_t ntail)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (; i < nvec; i += stride)
		dst[i] = __ldcs(src + i);
	if (blockIdx.x == 0 && threadIdx.x < ntail)
		dtail[threadIdx.x] = stail[threadIdx.x];
}

extern "C" gc_status gh_cuda_hbm_copy(int dev, bool sm, uint64_t bytes, int warmup, int iters,
				      double *us, char *why)
{
	gc_status st = GC_OK;
	char *a = NULL, *b = NULL;
	cudaStream_t s = NULL;
	int nsm = 0;
	CK(cudaSetDevice(dev));
	CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaMalloc(&a, bytes));
	CK(cudaMalloc(&b, bytes));
	CK(cudaMemset(a, 2, bytes));
	{
		size_t nvec = bytes / 16, ntail = bytes % 16;
		size_t want = (nvec + 511) / 512;
		int grid = (int)(want < (size_t)nsm * 4 ? (want ? want : 1) : (size_t)nsm * 4);
		st = time_events(s, warmup, iters, us, why, [&](cudaStream_t q) {
			if (!sm)
				return cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, q);
			GH_LAUNCH(gh_sm_copy, grid, 512, 0, q,
				  ((uint4 *)b, (const uint4 *)a, nvec, b + nvec * 16, a + nvec * 16, ntail));
			return cudaGetLastError();
		});
	}
out:
	if (a)
		cudaFree(a);
	if (b)
		cudaFree(b);
	if (s)
		cudaStreamDestroy(s);
	return st;
}

/* Shared by the ping-pong and the proxy: a host-pinned mailbox. */
struct gh_hostbox {
	volatile uint64_t req_seq;   /* written by the kernel */
	volatile uint64_t req_bytes; /* proxy request payload */
	volatile uint64_t req_peer;
	uint64_t pad0[5];
	volatile uint64_t ack_seq; /* written by the CPU */
	uint64_t pad1[7];
	volatile int stop;	   /* set by the CPU thread on timeout */
	volatile int err;	   /* set by the kernel on timeout */
};

/* One thread: `n` rounds of "post seq, wait for ack == seq"; each `batch`
 * rounds record one sample (ns per round) into out. */
__global__ void gh_pingpong_kernel(gh_hostbox *box, int n, int batch, double *out)
{
	uint64_t t0 = gh_gtime(), start = t0;
	for (int i = 1; i <= n; i++) {
		box->req_bytes = (uint64_t)i * 64;
		box->req_peer = (uint64_t)(i & 7);
		__threadfence_system();
		box->req_seq = (uint64_t)i;
		while (box->ack_seq != (uint64_t)i) {
			if (gh_gtime() - start > GH_SPIN_TIMEOUT_NS) {
				box->err = 1;
				return;
			}
		}
		if (i % batch == 0) {
			uint64_t t = gh_gtime();
			out[i / batch - 1] = (double)(t - t0) / batch / 1e3;
			t0 = t;
		}
	}
}

struct gh_cpu_side {
	gh_hostbox *box;
	int n;
	bool proxy;		 /* FIFO handling vs plain echo */
	uint64_t handled_bytes;	 /* proxy bookkeeping, keeps the work observable */
	int timed_out;
};

static void *gh_cpu_poll(void *arg)
{
	gh_cpu_side *c = (gh_cpu_side *)arg;
	double t0 = now_us();
	for (int i = 1; i <= c->n; i++) {
		unsigned spins = 0;
		while (c->box->req_seq != (uint64_t)i) {
			if ((++spins & 0xffff) == 0 && now_us() - t0 > GH_SPIN_TIMEOUT_NS / 1e3) {
				c->timed_out = 1;
				c->box->stop = 1;
				return NULL;
			}
		}
		if (c->proxy) {
			/* A proxy reads the request descriptor before answering,
			 * as one that builds a work request would. */
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			c->handled_bytes += c->box->req_bytes + c->box->req_peer;
		}
		c->box->ack_seq = (uint64_t)i;
	}
	return NULL;
}

static gc_status host_roundtrip(int dev, bool proxy, int batch, int warmup, int iters, double *us,
				char *why)
{
	gc_status st = GC_OK;
	gh_hostbox *box = NULL;
	double *dout = NULL;
	pthread_t th;
	bool started = false;
	if (batch < 1)
		batch = 1;
	int rounds = (warmup + iters) * batch;
	gh_cpu_side c;
	memset(&c, 0, sizeof(c));
	CK(cudaSetDevice(dev));
	CK(cudaHostAlloc((void **)&box, sizeof(*box), cudaHostAllocMapped | cudaHostAllocPortable));
	memset((void *)box, 0, sizeof(*box));
	CK(cudaMalloc(&dout, sizeof(double) * (size_t)(warmup + iters)));
	c.box = box;
	c.n = rounds;
	c.proxy = proxy;
	if (pthread_create(&th, NULL, gh_cpu_poll, &c) != 0) {
		snprintf(why, GH_WHY, "cannot start the CPU polling thread");
		st = GC_ERR_IO;
		goto out;
	}
	started = true;
	{
		gh_hostbox *dbox = NULL;
		CK(cudaHostGetDevicePointer((void **)&dbox, box, 0));
		GH_LAUNCH(gh_pingpong_kernel, 1, 1, 0, 0, (dbox, rounds, batch, dout));
		CK(cudaGetLastError());
		CK(cudaDeviceSynchronize());
	}
	pthread_join(th, NULL);
	started = false;
	if (box->err || c.timed_out) {
		snprintf(why, GH_WHY, "host-pinned flag round trip timed out after %.0f s",
			 GH_SPIN_TIMEOUT_NS / 1e9);
		st = GC_ERR_IO;
		goto out;
	}
	CK(cudaMemcpy(us, dout + warmup, sizeof(double) * (size_t)iters, cudaMemcpyDeviceToHost));
out:
	if (started) {
		box->stop = 1;
		box->ack_seq = ~0ull;
		pthread_join(th, NULL);
	}
	if (dout)
		cudaFree(dout);
	if (box)
		cudaFreeHost(box);
	return st;
}

extern "C" gc_status gh_cuda_flag_pingpong(int dev, int batch, int warmup, int iters, double *us,
					   char *why)
{
	return host_roundtrip(dev, false, batch, warmup, iters, us, why);
}

extern "C" gc_status gh_cuda_proxy_rtt(int dev, int batch, int warmup, int iters, double *us,
				       char *why)
{
	return host_roundtrip(dev, true, batch, warmup, iters, us, why);
}

extern "C" gc_status gh_cuda_p2p_copy(int dev_src, int dev_dst, uint64_t bytes, int warmup,
				      int iters, double *us, char *why)
{
	gc_status st = GC_OK;
	void *a = NULL, *b = NULL;
	cudaStream_t s = NULL;
	int can = 0;
	CK(cudaDeviceCanAccessPeer(&can, dev_src, dev_dst));
	if (!can) {
		snprintf(why, GH_WHY, "GPU %d cannot access GPU %d as a peer", dev_src, dev_dst);
		return GC_ERR_UNSUPPORTED;
	}
	CK(cudaSetDevice(dev_dst));
	CK(cudaMalloc(&b, bytes));
	{
		cudaError_t e = cudaDeviceEnablePeerAccess(dev_src, 0);
		if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
			CK(e);
		cudaGetLastError();
	}
	CK(cudaSetDevice(dev_src));
	{
		cudaError_t e = cudaDeviceEnablePeerAccess(dev_dst, 0);
		if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
			CK(e);
		cudaGetLastError();
	}
	CK(cudaMalloc(&a, bytes));
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	st = time_events(s, warmup, iters, us, why, [&](cudaStream_t q) {
		return cudaMemcpyPeerAsync(b, dev_dst, a, dev_src, bytes, q);
	});
out:
	if (s)
		cudaStreamDestroy(s);
	if (a)
		cudaFree(a);
	if (b) {
		cudaSetDevice(dev_dst);
		cudaFree(b);
	}
	return st;
}
