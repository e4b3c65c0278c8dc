/* SPDX-License-Identifier: MIT */
/*
 * gh_nccl: the NCCL baseline (see gh_nccl.h).
 *
 * Loading and option handling need neither CUDA nor a GPU and are always
 * compiled; the measurement needs the CUDA runtime (streams, events,
 * cudaMalloc) and exists only under GC_HAVE_CUDA. The order of checks is
 * fixed so the one-line failures are predictable: options, then the
 * library, then the GPU count. Every resource is recorded in one struct
 * and released by one function whatever step failed.
 */
#include "gh_nccl.h"

#include <dlfcn.h>
#include <glib.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gh_bench.h"
#include "gh_stats.h"
#include "sim/core/gc_results.h"
#include "sim/core/gc_units.h"

#if GC_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* NCCL's ABI values (nccl.h): ncclFloat32 and ncclSum. */
enum { NCCL_FLOAT32 = 7, NCCL_SUM = 0, NCCL_UNIQUE_ID_BYTES = 128 };

static const char *const op_names[GH_NCCL__COUNT] = {"allreduce", "allgather", "reducescatter",
						     "alltoall"};

const char *gh_nccl_op_name(gh_nccl_op op)
{
	return (unsigned)op < GH_NCCL__COUNT ? op_names[op] : "?";
}

void gh_nccl_opts_default(gh_nccl_opts *o, bool quick)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < GH_NCCL__COUNT; i++)
		o->ops[i] = true;
	o->nsizes = (int)gh_stats_size_sweep(8, quick ? (64u << 20) : (1u << 30), quick ? 4 : 2,
					     o->sizes, GH_NCCL_MAX_SIZES);
	o->warmup = quick ? 2 : 5;
	o->iters = quick ? 10 : 20;
}

gc_status gh_nccl_opts_parse(gh_nccl_opts *o, const char *ops, const char *sizes, char *why)
{
	gc_status st = GC_OK;
	if (ops && !strcmp(ops, "all"))
		for (int i = 0; i < GH_NCCL__COUNT; i++)
			o->ops[i] = true;
	else if (ops) {
		bool sel[GH_NCCL__COUNT] = {false};
		char **w = g_strsplit(ops, ",", -1);
		int n = 0;
		for (char **p = w; *p && st == GC_OK; p++) {
			int k = 0;
			while (k < GH_NCCL__COUNT && strcmp(g_strstrip(*p), op_names[k]))
				k++;
			if (k == GH_NCCL__COUNT) {
				snprintf(why, GH_WHY, "--op: expected allreduce, allgather, reducescatter, alltoall or all, got '%s'", *p);
				st = GC_ERR_INPUT;
			} else {
				sel[k] = true;
				n++;
			}
		}
		g_strfreev(w);
		if (st == GC_OK && n == 0) {
			snprintf(why, GH_WHY, "--op: empty list");
			st = GC_ERR_INPUT;
		}
		if (st == GC_OK)
			memcpy(o->ops, sel, sizeof(sel));
	}
	if (st == GC_OK && sizes) {
		uint64_t list[GH_NCCL_MAX_SIZES];
		int n = 0;
		char **w = g_strsplit(sizes, ",", -1);
		for (char **p = w; *p && st == GC_OK; p++) {
			const char *e = NULL;
			if (n == GH_NCCL_MAX_SIZES) {
				snprintf(why, GH_WHY, "--sizes: at most %d sizes", GH_NCCL_MAX_SIZES);
				st = GC_ERR_INPUT;
			} else if (gc_parse_bytes(g_strstrip(*p), &list[n], &e) != GC_OK || list[n] == 0 ||
				   list[n] > (64ull << 30)) {
				snprintf(why, GH_WHY, "--sizes: '%s': %s", *p, e ? e : "expected 1 B .. 64 GiB");
				st = GC_ERR_INPUT;
			} else {
				n++;
			}
		}
		g_strfreev(w);
		if (st == GC_OK && n == 0) {
			snprintf(why, GH_WHY, "--sizes: empty list");
			st = GC_ERR_INPUT;
		}
		if (st == GC_OK) {
			memcpy(o->sizes, list, (size_t)n * sizeof(list[0]));
			o->nsizes = n;
		}
	}
	if (st == GC_OK && (o->iters < 1 || o->iters > 10000 || o->warmup < 0 || o->warmup > 1000 ||
			    o->ngpus < 0 || o->ngpus == 1)) {
		snprintf(why, GH_WHY, "--iters 1..10000, --warmup 0..1000, --gpus 0 (all) or >= 2");
		st = GC_ERR_INPUT;
	}
	return st;
}

/* ---- loading ------------------------------------------------------------- */

static const struct {
	const char *name;
	size_t off;
	bool optional;
} syms[] = {
	{"ncclGetUniqueId", offsetof(gh_nccl_lib, get_unique_id), false},
	{"ncclCommInitAll", offsetof(gh_nccl_lib, comm_init_all), false},
	{"ncclCommDestroy", offsetof(gh_nccl_lib, comm_destroy), false},
	{"ncclAllReduce", offsetof(gh_nccl_lib, all_reduce), false},
	{"ncclAllGather", offsetof(gh_nccl_lib, all_gather), false},
	{"ncclReduceScatter", offsetof(gh_nccl_lib, reduce_scatter), false},
	{"ncclAlltoAll", offsetof(gh_nccl_lib, all_to_all), true},
	{"ncclSend", offsetof(gh_nccl_lib, send), false},
	{"ncclRecv", offsetof(gh_nccl_lib, recv), false},
	{"ncclGroupStart", offsetof(gh_nccl_lib, group_start), false},
	{"ncclGroupEnd", offsetof(gh_nccl_lib, group_end), false},
	{"ncclGetErrorString", offsetof(gh_nccl_lib, error_string), false},
	{"ncclGetVersion", offsetof(gh_nccl_lib, get_version), false},
};

void gh_nccl_version_str(int code, char *buf, size_t n)
{
	/* NCCL >= 2.9 encodes major*10000 + minor*100 + patch, older
	 * releases major*1000 + minor*100 + patch. */
	if (code >= 10000)
		snprintf(buf, n, "%d.%d.%d", code / 10000, code / 100 % 100, code % 100);
	else
		snprintf(buf, n, "%d.%d.%d", code / 1000, code / 100 % 10, code % 100);
}

gc_status gh_nccl_load(const char *path, gh_nccl_lib *lib, char *why)
{
	/* Without an explicit path: the loader's search path first, then the
	 * CUDA toolkit's library folders, where NCCL is installed with it. */
	static const char *const search[] = {"libnccl.so.2", "/usr/local/cuda/lib/libnccl.so.2",
					     "/usr/local/cuda/lib64/libnccl.so.2"};
	memset(lib, 0, sizeof(*lib));
	char first[GH_WHY] = "";
	int n = path ? 1 : (int)G_N_ELEMENTS(search);
	for (int i = 0; i < n && !lib->handle; i++) {
		const char *p = path ? path : search[i];
		lib->handle = dlopen(p, RTLD_NOW | RTLD_LOCAL);
		if (lib->handle)
			g_strlcpy(lib->path, p, sizeof(lib->path));
		else if (i == 0)
			g_strlcpy(first, dlerror(), sizeof(first));
	}
	if (!lib->handle) {
		snprintf(why, GH_WHY, "cannot load NCCL: %.200s", first);
		return GC_ERR_NODEV;
	}
	for (size_t i = 0; i < G_N_ELEMENTS(syms); i++) {
		void *s = dlsym(lib->handle, syms[i].name);
		if (!s && !syms[i].optional) {
			snprintf(why, GH_WHY, "cannot use NCCL from %.150s: symbol %s not found", lib->path,
				 syms[i].name);
			gh_nccl_unload(lib);
			return GC_ERR_NODEV;
		}
		/* POSIX: a data pointer from dlsym holds a function's address. */
		memcpy((char *)lib + syms[i].off, &s, sizeof(s));
	}
	int r = lib->get_version(&lib->version);
	if (r != 0) {
		snprintf(why, GH_WHY, "ncclGetVersion failed: %s", lib->error_string(r));
		gh_nccl_unload(lib);
		return GC_ERR_NODEV;
	}
	return GC_OK;
}

void gh_nccl_unload(gh_nccl_lib *lib)
{
	if (lib->handle)
		dlclose(lib->handle);
	memset(lib, 0, sizeof(*lib));
}

/* ---- measuring ----------------------------------------------------------- */

void gh_nccl_counts(gh_nccl_op op, uint64_t size, int n, size_t *count, uint64_t *sendb,
		    uint64_t *recvb)
{
	uint64_t elems = size / 4;
	switch (op) {
	case GH_NCCL_ALLREDUCE:
		*count = elems;
		*sendb = *recvb = elems * 4;
		break;
	case GH_NCCL_ALLGATHER:	    /* count = per-GPU input */
	case GH_NCCL_REDUCESCATTER: /* count = per-GPU output */
		*count = elems / (uint64_t)n;
		*sendb = *recvb = *count * 4 * (uint64_t)n;
		if (op == GH_NCCL_ALLGATHER)
			*sendb = *count * 4;
		else
			*recvb = *count * 4;
		break;
	default: /* alltoall: count = elements per peer */
		*count = elems / (uint64_t)n;
		*sendb = *recvb = *count * 4 * (uint64_t)n;
		break;
	}
}

#if GC_HAVE_CUDA
enum { MAX_GPUS = 64 };

static const gs_coll op_coll[GH_NCCL__COUNT] = {GS_COLL_ALLREDUCE, GS_COLL_ALLGATHER,
						GS_COLL_REDUCESCATTER, GS_COLL_ALLTOALL};

typedef struct nccl_run {
	const gh_nccl_lib *lib;
	int n;
	void *comm[MAX_GPUS];
	cudaStream_t stream[MAX_GPUS];
	void *sbuf[MAX_GPUS], *rbuf[MAX_GPUS];
	cudaEvent_t *ev[MAX_GPUS]; /* iters + 1 events per GPU */
	int nev;
} nccl_run;

static void run_free(nccl_run *r)
{
	for (int g = 0; g < r->n; g++) {
		cudaSetDevice(g);
		if (r->comm[g])
			r->lib->comm_destroy(r->comm[g]);
		for (int k = 0; r->ev[g] && k < r->nev; k++)
			if (r->ev[g][k])
				cudaEventDestroy(r->ev[g][k]);
		g_free(r->ev[g]);
		if (r->stream[g])
			cudaStreamDestroy(r->stream[g]);
		if (r->sbuf[g])
			cudaFree(r->sbuf[g]);
		if (r->rbuf[g])
			cudaFree(r->rbuf[g]);
	}
}

#define CU(call)                                                                                  \
	do {                                                                                      \
		cudaError_t e_ = (call);                                                          \
		if (e_ != cudaSuccess) {                                                          \
			snprintf(why, GH_WHY, "%s failed: %s", #call, cudaGetErrorString(e_));    \
			return GC_ERR_IO;                                                         \
		}                                                                                 \
	} while (0)

static gc_status nccl_fail(const nccl_run *r, const char *call, int res, char *why)
{
	snprintf(why, GH_WHY, "%s failed: %s", call, r->lib->error_string(res));
	return GC_ERR_IO;
}

/* Streams, buffers of max_bytes per GPU, events, communicators. */
static gc_status run_setup(nccl_run *r, uint64_t max_bytes, int nev, char *why)
{
	r->nev = nev;
	for (int g = 0; g < r->n; g++) {
		CU(cudaSetDevice(g));
		CU(cudaStreamCreateWithFlags(&r->stream[g], cudaStreamNonBlocking));
		CU(cudaMalloc(&r->sbuf[g], max_bytes));
		CU(cudaMalloc(&r->rbuf[g], max_bytes));
		CU(cudaMemset(r->sbuf[g], 0, max_bytes));
		CU(cudaMemset(r->rbuf[g], 0, max_bytes));
		r->ev[g] = g_new0(cudaEvent_t, nev);
		for (int k = 0; k < nev; k++)
			CU(cudaEventCreate(&r->ev[g][k]));
	}
	int res = r->lib->comm_init_all(r->comm, r->n, NULL);
	if (res != 0) {
		memset(r->comm, 0, sizeof(r->comm));
		return nccl_fail(r, "ncclCommInitAll", res, why);
	}
	return GC_OK;
}

/* One iteration: the collective on every GPU, in one group. */
static gc_status issue(nccl_run *r, gh_nccl_op op, size_t count, char *why)
{
	const gh_nccl_lib *L = r->lib;
	int res = L->group_start();
	if (res != 0)
		return nccl_fail(r, "ncclGroupStart", res, why);
	const char *call = "";
	for (int g = 0; g < r->n && res == 0; g++) {
		void *s = r->sbuf[g], *d = r->rbuf[g], *c = r->comm[g], *st = r->stream[g];
		switch (op) {
		case GH_NCCL_ALLREDUCE:
			call = "ncclAllReduce";
			res = L->all_reduce(s, d, count, NCCL_FLOAT32, NCCL_SUM, c, st);
			break;
		case GH_NCCL_ALLGATHER:
			call = "ncclAllGather";
			res = L->all_gather(s, d, count, NCCL_FLOAT32, c, st);
			break;
		case GH_NCCL_REDUCESCATTER:
			call = "ncclReduceScatter";
			res = L->reduce_scatter(s, d, count, NCCL_FLOAT32, NCCL_SUM, c, st);
			break;
		default:
			if (L->all_to_all) {
				call = "ncclAlltoAll";
				res = L->all_to_all(s, d, count, NCCL_FLOAT32, c, st);
				break;
			}
			/* As nccl-tests does: grouped send/receive with every peer. */
			for (int p = 0; p < r->n && res == 0; p++) {
				size_t off = (size_t)p * count * 4;
				call = "ncclSend";
				res = L->send((char *)s + off, count, NCCL_FLOAT32, p, c, st);
				if (res == 0) {
					call = "ncclRecv";
					res = L->recv((char *)d + off, count, NCCL_FLOAT32, p, c, st);
				}
			}
			break;
		}
	}
	int end = L->group_end();
	if (res != 0)
		return nccl_fail(r, call, res, why);
	if (end != 0)
		return nccl_fail(r, "ncclGroupEnd", end, why);
	return GC_OK;
}

static gc_status sync_all(nccl_run *r, char *why)
{
	for (int g = 0; g < r->n; g++) {
		CU(cudaSetDevice(g));
		CU(cudaStreamSynchronize(r->stream[g]));
	}
	return GC_OK;
}

static gc_status record(nccl_run *r, int k, char *why)
{
	for (int g = 0; g < r->n; g++) {
		CU(cudaSetDevice(g));
		CU(cudaEventRecord(r->ev[g][k], r->stream[g]));
	}
	return GC_OK;
}

/* Warm-up, then iters timed iterations; avg_us is nccl-tests' time. */
static gc_status measure(nccl_run *r, const gh_nccl_opts *o, gh_nccl_op op, size_t count,
			 double *us, double *avg_us, char *why)
{
	gc_status st = GC_OK;
	for (int i = 0; i < o->warmup && st == GC_OK; i++)
		st = issue(r, op, count, why);
	if (st == GC_OK)
		st = sync_all(r, why);
	if (st == GC_OK)
		st = record(r, 0, why);
	for (int i = 0; i < o->iters && st == GC_OK; i++) {
		st = issue(r, op, count, why);
		if (st == GC_OK)
			st = record(r, i + 1, why);
	}
	if (st == GC_OK)
		st = sync_all(r, why);
	if (st != GC_OK)
		return st;
	*avg_us = 0;
	for (int i = 0; i < o->iters; i++)
		us[i] = 0;
	for (int g = 0; g < r->n; g++) {
		float ms = 0;
		CU(cudaEventElapsedTime(&ms, r->ev[g][0], r->ev[g][o->iters]));
		double t = (double)ms * 1e3 / o->iters;
		*avg_us = t > *avg_us ? t : *avg_us;
		for (int i = 0; i < o->iters; i++) {
			CU(cudaEventElapsedTime(&ms, r->ev[g][i], r->ev[g][i + 1]));
			us[i] = (double)ms * 1e3 > us[i] ? (double)ms * 1e3 : us[i];
		}
	}
	return GC_OK;
}

static gc_status bench_gpus(const gh_nccl_opts *o, const gh_nccl_lib *lib, int n, GArray *pts,
			    char *why)
{
	nccl_run r;
	memset(&r, 0, sizeof(r));
	r.lib = lib;
	r.n = n;
	uint64_t max_bytes = 4;
	for (int i = 0; i < o->nsizes; i++)
		max_bytes = o->sizes[i] > max_bytes ? o->sizes[i] : max_bytes;
	gc_status st = run_setup(&r, max_bytes, o->iters + 1, why);
	double *us = g_new(double, o->iters);
	for (int op = 0; op < GH_NCCL__COUNT && st == GC_OK; op++) {
		if (!o->ops[op])
			continue;
		for (int i = 0; i < o->nsizes && st == GC_OK; i++) {
			size_t count;
			uint64_t sb, rb;
			gh_nccl_counts((gh_nccl_op)op, o->sizes[i], n, &count, &sb, &rb);
			if (count == 0)
				continue; /* smaller than one element per GPU */
			double avg = 0;
			st = measure(&r, o, (gh_nccl_op)op, count, us, &avg, why);
			if (st != GC_OK)
				break;
			/* nccl-tests' size: the larger of the two buffers. */
			uint64_t size = sb > rb ? sb : rb;
			gc_result_point pt;
			gh_bench_point(&pt, op_names[op], "nccl", size, us, o->iters);
			g_strlcpy(pt.dtype, "float", sizeof(pt.dtype));
			pt.nranks = n;
			pt.count = size / 4;
			pt.time_us = avg;
			pt.algbw_GBps = gh_stats_algbw_GBps(size, avg);
			pt.busbw_GBps = gh_stats_busbw_GBps(op_coll[op], n, size, avg);
			g_array_append_val(pts, pt);
		}
	}
	g_free(us);
	run_free(&r);
	return st;
}
#endif

gc_status gh_nccl_bench(const gh_nccl_opts *o, void *pts_out, void *notes, char *why)
{
	gh_nccl_lib lib;
	gc_status st = gh_nccl_load(o->lib, &lib, why);
	if (st != GC_OK)
		return st;
	int n = 0;
	char cwhy[GH_WHY] = "";
	if (gh_cuda_probe(&n, cwhy) != GC_OK) {
		snprintf(why, GH_WHY, "NCCL baseline needs at least 2 GPUs (found 0: %.180s)", cwhy);
		st = GC_ERR_NODEV;
	} else if (n < 2) {
		snprintf(why, GH_WHY, "NCCL baseline needs at least 2 GPUs (found %d)", n);
		st = GC_ERR_NODEV;
	} else if (o->ngpus > n) {
		snprintf(why, GH_WHY, "--gpus %d: this machine has %d GPUs", o->ngpus, n);
		st = GC_ERR_INPUT;
	}
	if (st == GC_OK && o->ngpus)
		n = o->ngpus;
	if (st == GC_OK && notes) {
		char v[32];
		gh_nccl_version_str(lib.version, v, sizeof(v));
		g_string_append_printf(notes, "# NCCL %s (%s), %d GPUs, one process (ncclCommInitAll), float sum, out of place\n",
				       v, lib.path, n);
		if (o->ops[GH_NCCL_ALLTOALL])
			g_string_append_printf(notes, "# alltoall through %s\n",
					       lib.all_to_all ? "ncclAlltoAll" : "grouped ncclSend/ncclRecv");
	}
#if GC_HAVE_CUDA
	if (st == GC_OK) {
		if (n > MAX_GPUS)
			n = MAX_GPUS;
		st = bench_gpus(o, &lib, n, pts_out, why);
	}
#else
	/* Unreachable: without CUDA the probe above reports the build. */
	(void)pts_out;
#endif
	gh_nccl_unload(&lib);
	return st;
}
