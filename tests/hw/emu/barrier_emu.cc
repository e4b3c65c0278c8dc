/* SPDX-License-Identifier: MIT */
/*
 * The inter-CTA barrier benchmark's CUDA source (hw/kernels/gh_barrier.cu:
 * the barrier alone and shmem_put_bw's loop of a post and a barrier)
 * compiled for the CPU emulation (cuda_runtime.h beside this file). Its
 * kernels are launched cooperatively, so they are registered here; every
 * CTA of a launch then runs together, as the barrier needs. The time per
 * barrier or iteration is the CPU's (coroutine switches and spins), not a
 * GPU's; that every CTA passes every barrier, posts every entry, and the
 * samples come back is what the emulation shows.
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
static const bool gh_put_loop_kernel_registered = gh_emu::register_kernel(
	(const void *)gh_put_loop_kernel, sizeof(gh_barrier_arg),
	[](const void *arg) { gh_put_loop_kernel(*static_cast<const gh_barrier_arg *>(arg)); });
