/* SPDX-License-Identifier: MIT */
/*
 * The posting benchmarks' CUDA source (hw/kernels/gh_post.cu: GPU-initiated
 * posting and the CPU proxy's posting rate) compiled for the CPU emulation
 * (cuda_runtime.h beside this file); the proxy is a real host thread beside
 * the emulated kernel.
 */
#include "hw/kernels/gh_post.cu"
