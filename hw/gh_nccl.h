/* SPDX-License-Identifier: MIT */
/*
 * gh_nccl: the NCCL baseline behind `gcsim hw nccl`: the collectives a user
 * would otherwise run through NCCL, on this machine's GPUs, at the sizes
 * the schedule interpreter is run at, timed the way nccl-tests times them.
 *
 * NCCL is loaded at run time (dlopen of libnccl.so.2, or a path given), so
 * neither the build nor the other commands depend on it. The symbols used
 * are resolved into a gh_nccl_lib table; a library lacking one is refused
 * with the symbol's name. One process drives every GPU through
 * ncclCommInitAll, one stream per GPU, each collective issued for all GPUs
 * inside ncclGroupStart/ncclGroupEnd, out of place, float sum.
 *
 * Timing (nccl-tests): `warmup` untimed iterations, then `iters` iterations
 * back to back with a CUDA event recorded on every GPU's stream before the
 * first and after each one. time_us is nccl-tests' figure: the slowest
 * GPU's elapsed time over all iterations divided by iters; algbw and busbw
 * follow from it (size = nccl-tests' "size": the whole buffer, e.g. the
 * gathered output of allgather). min/median/p99 summarize the per-iteration
 * times (slowest GPU of each). Points have collective allreduce |
 * allgather | reducescatter | alltoall, algo "nccl", dtype "float",
 * nranks = the number of GPUs.
 *
 * Statuses: GC_ERR_NODEV when NCCL cannot be loaded (the line names
 * dlopen's error) or fewer than 2 GPUs are usable ("NCCL baseline needs at
 * least 2 GPUs (found N)"), GC_ERR_INPUT for bad options, GC_ERR_IO when an
 * NCCL or CUDA call fails (the line names the call).
 */
#ifndef GH_NCCL_H
#define GH_NCCL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gh_cuda.h"

typedef enum gh_nccl_op {
	GH_NCCL_ALLREDUCE = 0,
	GH_NCCL_ALLGATHER,
	GH_NCCL_REDUCESCATTER,
	GH_NCCL_ALLTOALL,
	GH_NCCL__COUNT
} gh_nccl_op;

const char *gh_nccl_op_name(gh_nccl_op op);

#define GH_NCCL_MAX_SIZES 64

typedef struct gh_nccl_opts {
	const char *lib; /* NULL: libnccl.so.2 from the loader path, then the CUDA toolkit's lib dirs */
	bool ops[GH_NCCL__COUNT];
	uint64_t sizes[GH_NCCL_MAX_SIZES];
	int nsizes;
	int ngpus; /* 0: every GPU */
	int warmup, iters;
} gh_nccl_opts;

/* Every collective, 8 B .. 1 GiB doubling (quick: 8 B .. 32 MiB by 4). */
void gh_nccl_opts_default(gh_nccl_opts *o, bool quick);
/* Applies --op (comma-separated names, or "all") and --sizes (comma-
 * separated sizes) when non-NULL. GC_ERR_INPUT with one line on error. */
gc_status gh_nccl_opts_parse(gh_nccl_opts *o, const char *ops, const char *sizes, char *why);

/* The resolved library. Function types use void * for communicators and
 * streams (both are pointers in NCCL's ABI) and int for its enums. */
typedef struct gh_nccl_lib {
	void *handle;
	char path[256];
	int version; /* ncclGetVersion's code, e.g. 22809 for 2.28.9 */
	int (*get_unique_id)(void *id);
	int (*comm_init_all)(void **comms, int ndev, const int *devlist);
	int (*comm_destroy)(void *comm);
	int (*all_reduce)(const void *s, void *r, size_t count, int dtype, int op, void *comm,
			  void *stream);
	int (*all_gather)(const void *s, void *r, size_t sendcount, int dtype, void *comm,
			  void *stream);
	int (*reduce_scatter)(const void *s, void *r, size_t recvcount, int dtype, int op,
			      void *comm, void *stream);
	int (*all_to_all)(const void *s, void *r, size_t count, int dtype, void *comm,
			  void *stream); /* optional: NULL before NCCL 2.28 */
	int (*send)(const void *s, size_t count, int dtype, int peer, void *comm, void *stream);
	int (*recv)(void *r, size_t count, int dtype, int peer, void *comm, void *stream);
	int (*group_start)(void);
	int (*group_end)(void);
	const char *(*error_string)(int result);
	int (*get_version)(int *version);
} gh_nccl_lib;

/* dlopen and resolve. Failure: GC_ERR_NODEV, the table cleared, one line. */
gc_status gh_nccl_load(const char *path, gh_nccl_lib *lib, char *why);
void gh_nccl_unload(gh_nccl_lib *lib);
/* "2.28.9" from a version code (both of NCCL's encodings). */
void gh_nccl_version_str(int code, char *buf, size_t n);

/* Element counts of one collective at nccl-tests' `size` (bytes, float)
 * over n GPUs: count = the count argument of the call (allgather: per-GPU
 * input, reducescatter: per-GPU output, alltoall: per peer), sendb/recvb =
 * the bytes of each GPU's buffers. count 0: size is below one element per
 * GPU and the size is skipped. */
void gh_nccl_counts(gh_nccl_op op, uint64_t size, int n, size_t *count, uint64_t *sendb,
		    uint64_t *recvb);

/* Loads NCCL, checks for >= 2 GPUs, runs every selected collective at
 * every size; appends gc_result_point rows to pts (a GArray *) and "# ..."
 * lines (library, version, GPUs, all-to-all method) to notes (a GString *,
 * may be NULL). */
gc_status gh_nccl_bench(const gh_nccl_opts *o, void *pts, void *notes, char *why);

#endif
