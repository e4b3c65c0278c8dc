/* SPDX-License-Identifier: MIT */
/*
 * gh_verbs: the RDMA (rdma-core libibverbs) side of the harness: device
 * discovery for `gcsim hw info` and the RDMA write microbenchmark behind
 * `gcsim hw rdma`.
 *
 * The benchmark opens one device and port, allocates a protection domain,
 * two completion queues and two RC queue pairs, registers one buffer of
 * 2 x max_bytes (host memory, or GPU memory through ibv_reg_mr on a
 * cudaMalloc'd pointer where the peer-memory driver allows it) and connects
 * the two QPs to each other on the same port (loopback: QP numbers, LID and
 * GID are exchanged in-process). QP a writes from the first half of the
 * buffer into the second, QP b writes back. Measured per size (8 B up to
 * max_bytes, doubling):
 *   rdma_write_lat      post one signaled write, poll its completion
 *   rdma_write_imm_lat  ping-pong of writes with immediate (a -> b -> a);
 *                       one sample is half the round trip
 *   rdma_write_bw       a window of outstanding writes; one sample is the
 *   rdma_write_imm_bw   time per write of a whole window run
 * Each becomes a gc_result_point (algo "host" or "gpu", nranks 1) in the
 * format of gh_bench.h; time_us is the median sample.
 *
 * Every verbs call goes through a gh_verbs_ops table. gh_verbs_ops_real()
 * is rdma-core (or, in a build without it, a table whose open step reports
 * that); tests pass a table that fails at a chosen step. The invariant the
 * tests check: a failure at any step (open, PD, CQ, QP, MR, connect) gives
 * one line naming that step and releases everything acquired before it,
 * in reverse order.
 *
 * Statuses: GC_ERR_NODEV when no device exists (or rdma-core is not in the
 * build), GC_ERR_UNSUPPORTED when GPU memory was demanded and cannot be
 * registered, GC_ERR_INPUT for bad options, GC_ERR_IO for a failed verbs
 * step. `why` (GH_WHY bytes) holds the one line.
 */
#ifndef GH_VERBS_H
#define GH_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gh_cuda.h"

/* The exact line printed when libibverbs lists no device. */
#define GH_VERBS_NODEV "no RDMA device found (libibverbs lists none)"

/* Appends "name (port state, link layer)" lines to out (GString *). */
gc_status gh_verbs_probe(void *gstring_out, int *ndev, char *why);

/* ---- the verbs seam ---------------------------------------------------- */

/* What the open step learned about the chosen port. */
typedef struct gh_verbs_port {
	char dev_name[64];
	int port;
	bool ethernet;	     /* RoCE: addressing by GID, a GID index is required */
	uint16_t lid;	     /* InfiniBand local identifier */
	int gid_index;	     /* -1: no GID used (InfiniBand with a LID) */
	uint8_t gid[16];
	char gid_desc[80];   /* "GID index 3 (IPv4-mapped ::ffff:10.0.0.1)" */
	int mtu;	     /* active MTU in bytes (256 .. 4096) */
	uint64_t max_mr_size;
} gh_verbs_port;

/* One work request: an RDMA write of len bytes from local to remote. */
typedef struct gh_verbs_wr {
	uint64_t wr_id;
	void *local;
	uint32_t lkey;
	uint64_t remote;
	uint32_t rkey;
	uint32_t len;
	bool with_imm; /* RDMA write with immediate: consumes a receive at the peer */
	uint32_t imm;
	bool signaled;
	bool inline_data;
} gh_verbs_wr;

typedef enum gh_verbs_wc_kind { GH_WC_WRITE = 0, GH_WC_RECV_IMM, GH_WC_OTHER } gh_verbs_wc_kind;

typedef struct gh_verbs_wc {
	uint64_t wr_id;
	gh_verbs_wc_kind kind;
	int status;	   /* 0 = success, otherwise the provider's status */
	const char *status_str;
} gh_verbs_wc;

/* Object handles are opaque. Creating functions return NULL and leave an
 * errno-style reason in *err on failure; `open` also writes a one-line
 * reason into why (GC_ERR_NODEV for "no device"). */
typedef struct gh_verbs_ops {
	gc_status (*open)(const char *dev_name, int port, int gid_index, void **ctx,
			  gh_verbs_port *info, char *why);
	void (*close)(void *ctx);
	void *(*alloc_pd)(void *ctx, int *err);
	void (*dealloc_pd)(void *pd);
	void *(*create_cq)(void *ctx, int depth, int *err);
	void (*destroy_cq)(void *cq);
	/* max_inline: requested inline bytes in, granted out. */
	void *(*create_qp)(void *pd, void *cq, int depth, uint32_t *max_inline, uint32_t *qpn,
			   int *err);
	void (*destroy_qp)(void *qp);
	void *(*reg_mr)(void *pd, void *addr, size_t len, uint32_t *lkey, uint32_t *rkey, int *err);
	void (*dereg_mr)(void *mr);
	/* RESET -> INIT -> RTR -> RTS towards remote_qpn on the port of info;
	 * returns 0 or an errno, naming the failed transition in state. */
	int (*connect)(void *qp, const gh_verbs_port *info, uint32_t remote_qpn, const char **state);
	int (*post_write)(void *qp, const gh_verbs_wr *wr);
	int (*post_recv)(void *qp, uint64_t wr_id);
	/* Up to max completions into wc; returns the count, < 0 on error. */
	int (*poll)(void *cq, int max, gh_verbs_wc *wc);
} gh_verbs_ops;

/* rdma-core; without GC_HAVE_RDMA its open says gcsim was built without it. */
const gh_verbs_ops *gh_verbs_ops_real(void);

/* ---- the benchmark ----------------------------------------------------- */

typedef enum gh_verbs_mem { GH_MEM_AUTO = 0, GH_MEM_HOST, GH_MEM_GPU } gh_verbs_mem;

typedef struct gh_verbs_opts {
	const char *dev_name; /* NULL: the first device */
	int port;	      /* 1 by default */
	int gid_index;	      /* -1: pick one (IPv4-mapped first, else any valid) */
	uint64_t min_bytes, max_bytes;
	bool write, write_imm; /* which operations */
	bool lat, bw;	       /* which measurements */
	gh_verbs_mem mem;      /* AUTO: host, plus GPU memory when a GPU is usable */
	int warmup, iters;     /* latency samples per size (fewer for large sizes) */
	int window;	       /* outstanding writes in the bandwidth test */
	int bw_reps;	       /* window runs per size (samples of the bandwidth test) */
} gh_verbs_opts;

void gh_verbs_opts_default(gh_verbs_opts *o, bool quick);

/* Applies the text options of `gcsim hw rdma` (any may be NULL: keep the
 * default): ops "write,write_imm", tests "lat,bw", mem "auto|host|gpu",
 * min/max sizes ("8", "64KiB", "1GiB"). GC_ERR_INPUT with one line on error. */
gc_status gh_verbs_opts_parse(gh_verbs_opts *o, const char *ops, const char *tests,
			      const char *mem, const char *min, const char *max, char *why);

/* The sizes measured: min_bytes doubling up to min(max_bytes, cap). */
size_t gh_verbs_sizes(const gh_verbs_opts *o, uint64_t cap, uint64_t *out, size_t max);

/* Runs the benchmark through ops; appends gc_result_point rows to pts (a
 * GArray *) and "# ..." description lines (device, port, GID, memory) to
 * notes (a GString *, may be NULL). */
gc_status gh_verbs_bench(const gh_verbs_opts *o, const gh_verbs_ops *ops, void *pts, void *notes,
			 char *why);

#endif
