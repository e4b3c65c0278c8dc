/* SPDX-License-Identifier: MIT */
/*
 * gh_common: helpers shared by the CUDA translation units of hw/kernels --
 * the device clock, shared data and kernel launches written so that the
 * CPU emulation of tests/hw/emu can compile them too, and the CUDA error
 * check that unwinds through `out`.
 *
 * Invariants: everything here is static or inline (each .cu includes it
 * once, no symbol is exported); GH_CK expects a gc_status `st`, a char
 * `why[GH_WHY]` and a label `out` in the calling function, and sets st to
 * GC_ERR_IO with the failing call's text, the CUDA error string and name.
 */
#ifndef GH_COMMON_CUH
#define GH_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include "hw/gh_cuda.h"

/* Nanoseconds of the GPU's global timer (comparable across SMs). Under the
 * CPU emulation of tests/hw/emu the host's clock, and the calling thread
 * gives way to the others (every spin loop reads it). */
__device__ static inline uint64_t gh_gtime(void)
{
#ifdef GH_CUDA_EMU
	return gh_emu::gtime_ns();
#else
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
#endif
}

/* One poll of a spin that gives up after limit_ns: the clock is read every
 * 1024 polls only, the first read starting the timeout, so a spin that ends
 * soon costs no clock read (the poll count *n may wrap; the timeout's start
 * *t0 is kept apart from it). Both start at 0. True once the time is up. */
__device__ static inline bool gh_spin_expired(unsigned *n, uint64_t *t0, uint64_t limit_ns)
{
	if ((++*n & 1023) != 0)
		return false;
	uint64_t t = gh_gtime();
	if (!*t0) {
		*t0 = t;
		return false;
	}
	return t - *t0 > limit_ns;
}

/* A block's shared variable: GH_SHARED(T, name) declares name as a T in
 * the block's shared memory (under the CPU emulation, a reference to the
 * emulated block's copy). */
#ifdef GH_CUDA_EMU
#define GH_SHARED(T, name) T &name = *gh_emu::block_shared<T>()
#else
#define GH_SHARED(T, name) __shared__ T name
#endif

/* kernel<<<grid, block, shmem, stream>>> args, with args in parentheses:
 * GH_LAUNCH(k, 1, 32, 0, s, (a, b)). The CPU emulation queues a call of
 * the kernel with copies of what the arguments name. */
#ifdef GH_CUDA_EMU
#define GH_LAUNCH(kernel, grid, block, shmem, stream, args)                                        \
	gh_emu::launch(grid, block, shmem, stream, [=] { kernel args; })
#else
#define GH_LAUNCH(kernel, grid, block, shmem, stream, args) kernel<<<grid, block, shmem, stream>>> args
#endif

/* why := "<prefix><what>: <error string> (<error name>)"; GC_ERR_IO. */
static inline gc_status gh_cuda_fail(cudaError_t e, const char *prefix, const char *what, char *why)
{
	snprintf(why, GH_WHY, "%s%s: %s (%s)", prefix, what, cudaGetErrorString(e), cudaGetErrorName(e));
	return GC_ERR_IO;
}

#define GH_CK(prefix, call)                                                                        \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			st = gh_cuda_fail(e_, prefix, #call, why);                                 \
			goto out;                                                                  \
		}                                                                                  \
	} while (0)

#endif
