/* SPDX-License-Identifier: MIT */
/*
 * The microbenchmarks' CUDA source (hw/kernels/gh_micro.cu: device
 * discovery, launch latency, copies, the host flag ping-pong and the CPU
 * proxy round trip) compiled for the CPU emulation (cuda_runtime.h beside
 * this file). Their times mean nothing here; that every one runs to its end
 * and hands back its samples is what the emulation shows.
 */
#include "hw/kernels/gh_micro.cu"
