/* SPDX-License-Identifier: MIT */
/* GPU generations (gt_gpu.h). */
#include "gt_gpu.h"

#include <string.h>

/* Compute and memory from NVIDIA's datasheets, halving the "with sparsity"
 * figures where only those are printed:
 *  - V100 SXM2 32 GB: 125 TFLOPS tensor (FP16; no BF16), 900 GB/s HBM2.
 *    No preset: NVLink 2 at 300 GB/s both ways (150 one way), and DGX-1V's
 *    four 100 Gb/s InfiniBand ports for eight GPUs (6.25 GB/s each).
 *  - A100 SXM4 40 GB (p4d): 312 TFLOPS BF16, 1555 GB/s HBM2; A100 SXM4
 *    80 GB (DGX A100): 312, 2039 GB/s HBM2e.
 *  - H100 SXM5 80 GB: 989 TFLOPS BF16, 1979 FP8, 3.35 TB/s HBM3.
 *  - H200 SXM 141 GB: H100's compute, 4.8 TB/s HBM3e.
 *  - B200 (HGX B200): 36 PFLOPS FP16/BF16 and 72 FP8 with sparsity for 8
 *    GPUs, 1440 GB and 64 TB/s HBM3e (DGX B200): 2.25 PF BF16, 4.5 FP8,
 *    180 GB and 8 TB/s each.
 *  - GB200 (NVL72): 360 PFLOPS FP16/BF16 and 720 FP8 with sparsity for 72
 *    GPUs, 13.4 TB and 576 TB/s HBM3e: 2.5 PF BF16, 5 FP8, 186 GB and 8
 *    TB/s each.
 * NVLink and NIC per GPU: the presets' topology.nvlink.bandwidth and
 * topology.nic.bandwidth (gt_topo.c), p4d's NIC shared by two GPUs. */
static const gt_gpu gpus[] = {
	{"v100", "V100 SXM2 32 GB", "DGX-1V", 125e12, 0, 900e9, 32e9, 150e9, 6.25e9,
	 "NVIDIA Tesla V100 datasheet; DGX-1 with V100 system architecture"},
	{"a100-40g", "A100 SXM4 40 GB", "p4d", 312e12, 0, 1555e9, 40e9, 240e9, 6.25e9,
	 "NVIDIA A100 datasheet; AWS p4d.24xlarge (4 x 100 Gb/s EFA for 8 GPUs)"},
	{"a100", "A100 SXM4 80 GB", "dgx-a100", 312e12, 0, 2039e9, 80e9, 240e9, 25e9,
	 "NVIDIA A100 datasheet; DGX A100 (200 Gb/s per GPU)"},
	{"h100", "H100 SXM5 80 GB", "dgx-h100", 989e12, 1979e12, 3.35e12, 80e9, 374e9, 50e9,
	 "NVIDIA H100 datasheet; DGX H100 (400 Gb/s per GPU)"},
	{"h200", "H200 SXM 141 GB", "p5en", 989e12, 1979e12, 4.8e12, 141e9, 374e9, 50e9,
	 "NVIDIA H200 datasheet; AWS p5en (3200 Gb/s EFA for 8 GPUs)"},
	{"b200", "B200 (HGX B200)", "dgx-b200", 2.25e15, 4.5e15, 8e12, 180e9, 722e9, 50e9,
	 "NVIDIA HGX B200 and DGX B200 datasheets"},
	{"gb200", "GB200 (NVL72)", "gb200-nvl72", 2.5e15, 5e15, 8e12, 186e9, 722e9, 50e9,
	 "NVIDIA GB200 NVL72 datasheet"},
};

static const struct {
	const char *preset, *gpu;
} preset_gpu[] = {
	{"dgx-h100", "h100"}, {"p5", "h100"},	    {"p5en", "h200"},	      {"dgx-a100", "a100"},
	{"p4d", "a100-40g"},  {"dgx-b200", "b200"}, {"gb200-nvl72", "gb200"},
};

const gt_gpu *gt_gpu_all(size_t *n)
{
	*n = sizeof(gpus) / sizeof(gpus[0]);
	return gpus;
}

const gt_gpu *gt_gpu_find(const char *name)
{
	for (size_t i = 0; i < sizeof(gpus) / sizeof(gpus[0]); i++)
		if (!strcmp(gpus[i].name, name))
			return &gpus[i];
	return NULL;
}

const gt_gpu *gt_gpu_of_preset(const char *preset)
{
	for (size_t i = 0; i < sizeof(preset_gpu) / sizeof(preset_gpu[0]); i++)
		if (!strcmp(preset_gpu[i].preset, preset))
			return gt_gpu_find(preset_gpu[i].gpu);
	return NULL;
}
