/* SPDX-License-Identifier: MIT */
/*
 * The inter-CTA barrier benchmark's CUDA source (hw/kernels/gh_barrier.cu)
 * compiled for the CPU emulation (cuda_runtime.h beside this file). Its
 * kernel is launched cooperatively, so it is registered here; every CTA of
 * a launch then runs together, as the barrier needs. The time per barrier
 * is the CPU's (coroutine switches and spins), not a GPU's; that every CTA
 * passes every barrier and the samples come back is what the emulation
 * shows.
 */
/* 4 threads per CTA instead of 32 keep the coroutines few (128 instead of
 * 1024 at 32 CTAs, an eighth of the thread switches per barrier); every
 * CTA still has threads waiting at its __syncthreads while its leader
 * spins. */
#define GH_BARRIER_THREADS 4

#include "hw/kernels/gh_barrier.cu"

static const bool gh_cta_barrier_kernel_registered = gh_emu::register_kernel(
	(const void *)gh_cta_barrier_kernel, sizeof(gh_barrier_arg),
	[](const void *arg) { gh_cta_barrier_kernel(*static_cast<const gh_barrier_arg *>(arg)); });
