/* SPDX-License-Identifier: MIT */
/*
 * gh_cuda_stub: the gh_cuda interface in a build without CUDA. Every entry
 * point fails with GC_ERR_NODEV and the same one-line reason, so each hw
 * command reports it and exits with status 3. In a CUDA build this file
 * contributes nothing; the .cu files in hw/kernels provide the functions.
 */
#include "gh_cuda.h"

#if !GC_HAVE_CUDA
#include <stdio.h>
#include <string.h>

static const char no_cuda[] = "gcsim was built without CUDA (nvcc not found at build time)";

static gc_status nocuda(char *why)
{
	if (why)
		snprintf(why, GH_WHY, "%s", no_cuda);
	return GC_ERR_NODEV;
}

gc_status gh_cuda_probe(int *ndev, char *why)
{
	*ndev = 0;
	return nocuda(why);
}

gc_status gh_cuda_dev_info(int dev, gh_dev_info *out, char *why)
{
	memset(out, 0, sizeof(*out));
	return nocuda(why);
}

gc_status gh_cuda_launch_latency(int dev, bool pipelined, int batch, int warmup, int iters,
				 double *us, char *why)
{
	return nocuda(why);
}

gc_status gh_cuda_memcpy(int dev, gh_copy_dir dir, uint64_t bytes, int warmup, int iters,
			 double *us, char *why)
{
	return nocuda(why);
}

gc_status gh_cuda_hbm_copy(int dev, bool sm, uint64_t bytes, int warmup, int iters, double *us,
			   char *why)
{
	return nocuda(why);
}

gc_status gh_cuda_flag_pingpong(int dev, int batch, int warmup, int iters, double *us, char *why)
{
	return nocuda(why);
}

gc_status gh_cuda_proxy_rtt(int dev, int batch, int warmup, int iters, double *us, char *why)
{
	return nocuda(why);
}

gc_status gh_cuda_gpu_post(int dev, int ctas, int queues, int posts, int batch, int warmup,
			   int iters, double *us, char *why)
{
	return nocuda(why);
}

gc_status gh_cuda_proxy_rate(int dev, int ctas, int per_cta, int batch, int warmup, int iters,
			     double *us, char *why)
{
	return nocuda(why);
}

gc_status gh_cuda_cta_barrier(int dev, int ctas, int barriers, int warmup, int iters, double *us,
			      char *why)
{
	return nocuda(why);
}

gc_status gh_cuda_put_loop(int dev, int ctas, int iters_per_launch, int warmup, int samples,
			   double *us, char *why)
{
	return nocuda(why);
}

gc_status gh_cuda_p2p_copy(int dev_src, int dev_dst, uint64_t bytes, int warmup, int iters,
			   double *us, char *why)
{
	return nocuda(why);
}

gc_status gh_cuda_interp_run(const int *devs, int ndevs, const struct gh_interp_plan *plan,
			     const void *inputs, void *outputs, int warmup, int iters, double *us,
			     char *why)
{
	return nocuda(why);
}
#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int gh_cuda_stub_unused;
#endif
