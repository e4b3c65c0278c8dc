/* SPDX-License-Identifier: MIT */
/*
 * A CPU emulation of the part of CUDA that hw/kernels uses, so that the
 * schedule interpreter and the microbenchmarks run -- host code and kernels
 * unchanged, compiled by g++ -- on a machine without a GPU
 * (tests/hw/test_interp_emu.c, and build/tests/hw/gcsim-emu for
 * tests/hw/hw_emu.t).
 *
 * Execution model: every CUDA thread of every block of a launch is a
 * coroutine on one host thread, run round-robin in a fixed order (the same
 * run on every machine). A thread gives way at __syncthreads (it waits
 * until every live thread of its block has arrived), at __syncwarp (the
 * same for its warp of 32: threadIdx.x / 32) and whenever it reads
 * the device clock (gh_gtime), which each spin loop of the kernel does
 * every 1024 polls; so a block that waits for a peer lets the peer run.
 * Launches are deferred: a launch records its grid and what its arguments
 * are, and the first call that synchronizes (an event, stream or device
 * synchronize, a copy or memset, a free) runs what is pending: every
 * cooperative grid of every emulated GPU together, as concurrent kernels
 * on several GPUs run (the interpreter's one-rank-per-GPU mode needs all
 * of them resident at once), then each other grid in launch order, in
 * waves of a few blocks. Host threads (a benchmark's CPU proxy) are real
 * threads and run beside the emulated kernel.
 *
 * What it checks: the kernel's logic -- mailbox and slot indexing, the
 * LL flag protocol, credits, the strands' step order, PUT/SIGNAL/WAIT,
 * every output element against the CPU reference -- and the host code's
 * use of the runtime: copies must stay inside an allocation of the right
 * kind (host to device lands in device memory, and so on), device memory
 * starts as garbage (0xa5 bytes), not zeros, so a buffer the host forgets
 * to clear shows, and every allocation must be freed (gh_emu_live_allocs).
 * What it cannot check: the GPU's weak memory ordering (the coroutines
 * share one host thread, so every store is seen at once; missing fences
 * pass here), timing, and occupancy (an emulated GPU has gh_emu_set_sms()
 * SMs of 2048 threads).
 *
 * Supported: kernels launched through GH_LAUNCH (hw/kernels/gh_common.cuh),
 * and cooperative launches of kernels that take one argument by value,
 * registered with gh_emu::register_kernel; __shared__ data declared
 * through GH_SHARED. Host-pinned memory is host memory the kernel can
 * reach (cudaHostGetDevicePointer gives the same address); the host
 * threads of the benchmarks (a CPU proxy) run as real threads beside the
 * emulated kernel.
 */
#ifndef GH_EMU_CUDA_RUNTIME_H
#define GH_EMU_CUDA_RUNTIME_H

#ifndef __cplusplus
#error "the CUDA emulation is C++ (it compiles .cu sources with g++)"
#endif

#include <stddef.h>
#include <stdint.h>

#include <functional>

#define GH_CUDA_EMU 1

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

struct dim3 {
	unsigned x, y, z;
	dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct uint3 {
	unsigned x, y, z;
};
struct __attribute__((aligned(16))) uint4 {
	unsigned x, y, z, w;
};
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w)
{
	return uint4{x, y, z, w};
}

enum cudaError {
	cudaSuccess = 0,
	cudaErrorInvalidValue = 1,
	cudaErrorMemoryAllocation = 2,
	cudaErrorInvalidConfiguration = 9,
	cudaErrorInsufficientDriver = 35,
	cudaErrorNoDevice = 100,
	cudaErrorInvalidDevice = 101,
	cudaErrorInvalidDeviceFunction = 98,
	cudaErrorInvalidResourceHandle = 400,
	cudaErrorPeerAccessAlreadyEnabled = 704,
	cudaErrorCooperativeLaunchTooLarge = 720,
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
	cudaMemcpyHostToHost = 0,
	cudaMemcpyHostToDevice = 1,
	cudaMemcpyDeviceToHost = 2,
	cudaMemcpyDeviceToDevice = 3,
};

enum cudaDeviceAttr {
	cudaDevAttrMultiProcessorCount = 16,
	cudaDevAttrMemoryClockRate = 36,
	cudaDevAttrCooperativeLaunch = 95,
};

struct cudaDeviceProp {
	char name[256];
	int major, minor;
	int multiProcessorCount;
	size_t totalGlobalMem;
	int memoryBusWidth;
	int l2CacheSize;
};

#define cudaStreamNonBlocking 0x01
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02

typedef struct gh_emu_stream *cudaStream_t;
typedef struct gh_emu_event *cudaEvent_t;

extern "C" {
/* Emulated GPUs (at most 16, all peers of each other) and their SMs. */
void gh_emu_set_devices(int n);
void gh_emu_set_sms(int n);
/* Block `block` of every cooperative launch starts `sweeps` rounds of the
 * scheduler late (0: none), as a block the GPU schedules late: what a
 * kernel assumes about its blocks' relative progress shows. */
void gh_emu_set_lag(unsigned block, unsigned sweeps);
/* Allocations (device and host-pinned) not yet freed, and launches run so
 * far. */
size_t gh_emu_live_allocs(void);
uint64_t gh_emu_launches(void);
}

namespace gh_emu {

/* What a CUDA thread sees of itself. */
struct thread_ctx {
	uint3 tid, bid;	  /* threadIdx, blockIdx */
	dim3 bdim, gdim;  /* blockDim, gridDim */
	size_t shared_cursor; /* bytes of its block's shared memory declared so far */
	struct block *blk;
};

thread_ctx *self();
void syncthreads();
void syncwarp(); /* the calling thread's warp of 32 (threadIdx.x / 32) meets */
uint64_t gtime_ns(); /* the clock; the calling thread gives way */
void *block_shared(size_t bytes, size_t align);
template <typename T> T *block_shared()
{
	return static_cast<T *>(block_shared(sizeof(T), alignof(T)));
}

typedef void (*invoker)(const void *arg);
/* A kernel launched with cudaLaunchCooperativeKernel (its argument list
 * as pointers): one that takes one argument of arg_bytes by value; invoke
 * calls it with a copy of that argument. */
bool register_kernel(const void *fn, size_t arg_bytes, invoker invoke);
/* kernel<<<grid, block, shmem, s>>>(...) as GH_LAUNCH writes it: call runs
 * the kernel's body for one thread. The blocks run in waves of a few (a
 * kernel launched so has no claim on its blocks running together). */
cudaError_t launch(dim3 grid, dim3 block, size_t shmem, cudaStream_t s, std::function<void()> call);

cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaSetDevice(int d);
cudaError_t cudaGetDevice(int *d);
cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int dev);
cudaError_t cudaDeviceCanAccessPeer(int *can, int dev, int peer);
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaMalloc(void **p, size_t bytes);
cudaError_t cudaFree(void *p);
cudaError_t cudaMemset(void *p, int v, size_t bytes);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind k);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind k,
			    cudaStream_t s = nullptr);
cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_dev, const void *src, int src_dev, size_t bytes,
				cudaStream_t s = nullptr);
cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned flags);
cudaError_t cudaMallocHost(void **p, size_t bytes);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaHostGetDevicePointer(void **dev, void *host, unsigned flags);
template <typename T> cudaError_t cudaMalloc(T **p, size_t bytes)
{
	return cudaMalloc((void **)p, bytes);
}
template <typename T> cudaError_t cudaMallocHost(T **p, size_t bytes)
{
	return cudaMallocHost((void **)p, bytes);
}
template <typename T> cudaError_t cudaHostAlloc(T **p, size_t bytes, unsigned flags)
{
	return cudaHostAlloc((void **)p, bytes, flags);
}
template <typename T> cudaError_t cudaHostGetDevicePointer(T **dev, void *host, unsigned flags)
{
	return cudaHostGetDevicePointer((void **)dev, host, flags);
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev);
cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int dev);
cudaError_t cudaDriverGetVersion(int *v);
cudaError_t cudaRuntimeGetVersion(int *v);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
cudaError_t cudaLaunchCooperativeKernel(const void *fn, dim3 grid, dim3 block, void **args,
					size_t shmem, cudaStream_t s);
cudaError_t occupancy(int *blocks, const void *fn, int block_size, size_t shmem);
template <typename F>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, F fn, int block_size,
							  size_t shmem)
{
	return occupancy(blocks, (const void *)fn, block_size, shmem);
}
cudaError_t cudaGetLastError();
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);

} // namespace gh_emu

using namespace gh_emu;

#define threadIdx (gh_emu::self()->tid)
#define blockIdx (gh_emu::self()->bid)
#define blockDim (gh_emu::self()->bdim)
#define gridDim (gh_emu::self()->gdim)

static inline void __syncthreads()
{
	gh_emu::syncthreads();
}
/* Only the whole warp's mask: every live thread of the warp meets. */
static inline void __syncwarp(unsigned mask = 0xffffffffu)
{
	(void)mask;
	gh_emu::syncwarp();
}
static inline void __threadfence()
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
static inline void __threadfence_system()
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
template <typename T> static inline T __ldcg(const T *p)
{
	return *(const volatile T *)p;
}
template <typename T> static inline T __ldcs(const T *p)
{
	return *p;
}
template <typename T> static inline void __stcg(T *p, T v)
{
	*(volatile T *)p = v;
}
/* 16-byte vectors: four 4-byte accesses (the device's is one) */
static inline uint4 __ldcg(const uint4 *p)
{
	const volatile unsigned *q = (const volatile unsigned *)p;
	return uint4{q[0], q[1], q[2], q[3]};
}
static inline void __stcg(uint4 *p, uint4 v)
{
	volatile unsigned *q = (volatile unsigned *)p;
	q[0] = v.x;
	q[1] = v.y;
	q[2] = v.z;
	q[3] = v.w;
}
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)
{
	return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline unsigned long long atomicAdd_system(unsigned long long *p, unsigned long long v)
{
	return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long cmp,
					   unsigned long long v)
{
	__atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return cmp;
}
/* ((old >= limit) ? 0 : old + 1), as CUDA's */
static inline unsigned atomicInc(unsigned *p, unsigned limit)
{
	unsigned old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
	while (!__atomic_compare_exchange_n(p, &old, old >= limit ? 0 : old + 1, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	return old;
}
static inline int atomicExch(int *p, int v)
{
	return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
}

#endif
