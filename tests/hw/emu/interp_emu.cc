/* SPDX-License-Identifier: MIT */
/*
 * The schedule interpreter's CUDA source (hw/kernels/gh_interp.cu), host
 * and device code alike, compiled for the CPU emulation (cuda_runtime.h
 * beside this file): gh_cuda_interp_run here is the real one, running its
 * kernel as emulated threads. 64 threads per block instead of 512 keep the
 * coroutines few (every loop of the kernel strides by blockDim.x, so the
 * work each thread does changes, not what is computed); a spin gives up
 * after 2 s instead of 10, and gives way every 16 polls instead of 1024
 * (a poll here never sees a store until the storing thread runs).
 */
#define GH_THREADS 64
#define GH_SPIN_TIMEOUT_NS 2000000000ull
#define GH_SPIN_POLLS 15u

#include "hw/kernels/gh_interp.cu"

static const bool gh_interp_kernel_registered = gh_emu::register_kernel(
	(const void *)gh_interp_kernel, sizeof(gh_dev_plan),
	[](const void *arg) { gh_interp_kernel(*static_cast<const gh_dev_plan *>(arg)); });
