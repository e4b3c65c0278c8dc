/* SPDX-License-Identifier: MIT */
/*
 * gh_calib: fitting model parameters to recorded measurements, and writing
 * them as scenarios/calibration/NAME.yaml with provenance comments.
 *
 * Per path (one `collective`/`algo` pair of gh_bench points with sizes > 0)
 * the Hockney model T = alpha + bytes / beta is fitted by weighted least
 * squares with weights 1/T^2, i.e. minimizing the sum of squared *relative*
 * errors, so 8-byte latencies and 1-GiB bandwidths both count. The
 * virtual-rank link model comes from ring-allreduce interpreter points at
 * one rank count n: T = 2(n-1) * (alpha + (S/n) / beta), fitted the same
 * way on x = S/n, y = T / (2(n-1)). Scalars (launch latency, ping-pong,
 * proxy round trip) are the median over their points. Fitting reads only
 * the points, so it works on a recording from another machine.
 */
#ifndef GH_CALIB_H
#define GH_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "hw/gh_vrank.h"
#include "sim/core/gc_results.h"

typedef struct gh_fit {
	double alpha_us;  /* intercept */
	double beta_GBps; /* asymptotic bandwidth, 1e9 B/s */
	size_t n;	  /* points used */
	double max_rel_err; /* largest |model - measured| / measured over those points */
} gh_fit;

/* Weighted least squares of y = a + b*x with weights w; GC_ERR_INPUT when
 * fewer than 2 distinct x or a non-positive slope. */
gc_status gh_calib_fit_line(const double *x, const double *y, const double *w, size_t n, double *a,
			    double *b);
/* Fits T = alpha + bytes/beta to the points of (path, algo) (algo NULL: any). */
gc_status gh_calib_fit_path(const gc_result_point *pts, size_t n, const char *path,
			    const char *algo, gh_fit *out);
/* Ring link model from allreduce/ring points with nranks == ranks (0: the
 * rank count with the most points). */
gc_status gh_calib_fit_ring(const gc_result_point *pts, size_t n, int ranks, gh_fit *out,
			    int *ranks_used);
/* Median time of the points of (path, algo); NaN when there are none. */
double gh_calib_scalar(const gc_result_point *pts, size_t n, const char *path, const char *algo);

typedef struct gh_calib_prov {
	const char *name, *device, *created, *command, *source;
	/* the GPU's L2 in bytes for the virtual-rank model; 0: read from the
	 * device line ("..., 60 MiB L2"), and without it no model is fitted */
	double l2_bytes;
} gh_calib_prov;

/* The L2 a device line names ("..., 60 MiB L2, ..."), in bytes; 0 if none. */
double gh_calib_l2_from_device(const char *device);

/* Fits everything the points allow and appends the YAML to out (GString *).
 * GC_ERR_INPUT when not even one parameter can be fitted. *nparams receives
 * the number of fitted parameters. With put_loop c32, gpu_post 1cta-b1 and
 * cta_barrier c32 points a comment line checks the first against the sum
 * of the others ("put_loop check ..."; the model's shmem_put_bw loop is
 * one CTA's post then the barrier), fitting nothing. */
gc_status gh_calib_yaml(const gc_result_point *pts, size_t n, const gh_calib_prov *prov,
			void *gstring_out, int *nparams, char **errmsg);

/* Reads calibration.virtual_rank of a file gh_calib_yaml wrote into *m
 * (gh_vrank.h); errors name FILE:LINE:COLUMN (or FILE:1:1 when the file has
 * no such section: it was calibrated without ring allreduce points or
 * without the GPU's L2). */
gc_status gh_calib_read_vrank(const char *path, gh_vrank_model *m, char **errmsg);

/* The virtual-rank model as a scenario gcsim run takes as is: a flat
 * cluster of the calibrated rank count whose link latency and bandwidth are
 * the ring fit's alpha and beta (the fit's form, 2(n-1)(alpha + (S/n)/beta),
 * is exactly a one-channel flat ring), at the measured ring sizes. Appends
 * to out (GString *); GC_ERR_INPUT when the points hold no ring allreduce. */
gc_status gh_calib_scenario(const gc_result_point *pts, size_t n, const gh_calib_prov *prov,
			    void *gstring_out, char **errmsg);

/* The platform values the taxonomy scenario keeps for the terms a
 * measurement without a NIC does not separate (the caller reads them from
 * the model's tables for `platform`), in microseconds. */
typedef struct gh_calib_tx_defaults {
	const char *platform;
	double post_send_us, fence_us, store_issue_us;
} gh_calib_tx_defaults;

/* The taxonomy's posting costs as an explain scenario (inter-node types
 * compared at the rate of 512 B puts on d->platform): the CPU proxy's time
 * per request (proxy_rate sms-b32 = proxy.request_cost + host.post_send)
 * and one CTA's time per post the IBGDA way (gpu_post 1cta-b1 =
 * gpu.wqe_build + gpu.fence + gpu.store_issue), each sum split by keeping
 * the platform's other terms (a sum shorter than them shortens them, so
 * the sum is always the one measured); the CTAs from the all-SM posting
 * point; gpu.publish from the shared-queue posting point; gpu.cta_barrier
 * from the inter-CTA barrier at 32 CTAs (cta_barrier c32), where measured;
 * PCIe bandwidth from the host-to-device copy fit; the put_loop check line
 * of gh_calib_yaml among the head's comments. Appends to out (GString *);
 * GC_ERR_INPUT when neither posting point was measured. */
gc_status gh_calib_taxonomy(const gc_result_point *pts, size_t n, const gh_calib_prov *prov,
			    const gh_calib_tx_defaults *d, void *gstring_out, char **errmsg);

#endif
