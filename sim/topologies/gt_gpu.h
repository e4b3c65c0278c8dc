/* SPDX-License-Identifier: MIT */
/*
 * GPU generations: what one GPU computes and what its memory and links
 * carry, for the training step's compute estimate (train.gpu) and the
 * machine-balance table (gcsim explain balance). Compute and memory are
 * the datasheets' (dense tensor FLOP/s, not the doubled sparse figures);
 * the NVLink and NIC rates per GPU are those of the preset that carries
 * the GPU (one direction, what NCCL gets), or of the system named where
 * no preset does.
 */
#ifndef GT_GPU_H
#define GT_GPU_H

#include <stddef.h>

typedef struct gt_gpu {
	const char *name;	   /* train.gpu's value: "h100" */
	const char *model;	   /* "H100 SXM5 80 GB" */
	const char *system;	   /* the preset (or system) its links come from */
	double bf16_flops;	   /* dense BF16 (V100: FP16) tensor FLOP/s */
	double fp8_flops;	   /* dense FP8 tensor FLOP/s; 0: none */
	double hbm_Bps, hbm_bytes; /* memory bandwidth and capacity */
	double nvlink_Bps, nic_Bps; /* per GPU, one direction */
	const char *source;
} gt_gpu;

/* Every generation, oldest first; *n receives the count. */
const gt_gpu *gt_gpu_all(size_t *n);
/* By name (train.gpu), or NULL. */
const gt_gpu *gt_gpu_find(const char *name);
/* The GPU of a topology.preset ("dgx-a100" -> a100), or NULL (no preset,
 * or a preset without one). */
const gt_gpu *gt_gpu_of_preset(const char *preset);

#endif
