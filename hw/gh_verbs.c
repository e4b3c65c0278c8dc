/* SPDX-License-Identifier: MIT */
/*
 * gh_verbs: RDMA device discovery and the loopback RDMA write benchmark
 * (see gh_verbs.h for what is measured and the statuses).
 *
 * Structure: the rdma-core calls live only in the gh_verbs_ops table built
 * under GC_HAVE_RDMA; everything else (option parsing, the size sweep, the
 * session set-up and unwinding, the latency and bandwidth loops) goes
 * through the table, so it compiles and is tested without rdma-core and
 * without a device. The session records every object it acquired; teardown
 * releases whatever is non-NULL in reverse order, which is the whole of the
 * error unwinding. GPU memory (cudaMalloc) is used only in a CUDA build.
 */
#include "gh_verbs.h"

#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gh_bench.h"
#include "gh_stats.h"
#include "sim/core/gc_results.h"
#include "sim/core/gc_units.h"

#if GC_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* ---- rdma-core ----------------------------------------------------------- */
#if GC_HAVE_RDMA
#include <arpa/inet.h>
#include <infiniband/verbs.h>

/* ibv_get_device_list returns NULL with ENOSYS when the kernel has no RDMA
 * subsystem, and an empty list when it has one but no device: both mean
 * that libibverbs lists no device. */
static struct ibv_device **device_list(int *n, char *why)
{
	*n = 0;
	errno = 0;
	struct ibv_device **list = ibv_get_device_list(n);
	if (!list && errno != ENOSYS && errno != 0) {
		snprintf(why, GH_WHY, "cannot list RDMA devices: ibv_get_device_list: %s",
			 strerror(errno));
		return NULL;
	}
	if (list && *n == 0) {
		ibv_free_device_list(list);
		list = NULL;
	}
	if (!list)
		snprintf(why, GH_WHY, "%s", GH_VERBS_NODEV);
	return list;
}

gc_status gh_verbs_probe(void *gstring_out, int *ndev, char *why)
{
	int n = 0;
	struct ibv_device **list = device_list(&n, why);
	*ndev = 0;
	if (!list)
		return GC_ERR_NODEV;
	GString *out = gstring_out;
	for (int i = 0; i < n; i++) {
		struct ibv_context *ctx = ibv_open_device(list[i]);
		struct ibv_port_attr pa;
		if (ctx && ibv_query_port(ctx, 1, &pa) == 0)
			g_string_append_printf(out, "RDMA %d: %s (port 1 %s, %s)\n", i,
					       ibv_get_device_name(list[i]),
					       pa.state == IBV_PORT_ACTIVE ? "active" : "down",
					       pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand");
		else
			g_string_append_printf(out, "RDMA %d: %s (cannot open)\n", i,
					       ibv_get_device_name(list[i]));
		if (ctx)
			ibv_close_device(ctx);
	}
	ibv_free_device_list(list);
	*ndev = n;
	return GC_OK;
}

static bool gid_zero(const uint8_t *g)
{
	for (int i = 0; i < 16; i++)
		if (g[i])
			return false;
	return true;
}

/* ::ffff:a.b.c.d, the form RoCE v2 GIDs of IPv4 addresses take. */
static bool gid_ipv4(const uint8_t *g)
{
	for (int i = 0; i < 10; i++)
		if (g[i])
			return false;
	return g[10] == 0xff && g[11] == 0xff;
}

static void gid_describe(gh_verbs_port *pi)
{
	const uint8_t *g = pi->gid;
	if (gid_ipv4(g)) {
		snprintf(pi->gid_desc, sizeof(pi->gid_desc), "GID index %d (IPv4-mapped ::ffff:%u.%u.%u.%u)",
			 pi->gid_index, g[12], g[13], g[14], g[15]);
		return;
	}
	char s[INET6_ADDRSTRLEN];
	if (!inet_ntop(AF_INET6, g, s, sizeof(s)))
		g_strlcpy(s, "?", sizeof(s));
	snprintf(pi->gid_desc, sizeof(pi->gid_desc), "GID index %d (%s)", pi->gid_index, s);
}

static gc_status real_open(const char *dev_name, int port, int gid_index, void **ctx_out,
			   gh_verbs_port *pi, char *why)
{
	int n = 0;
	struct ibv_device **list = device_list(&n, why);
	*ctx_out = NULL;
	if (!list)
		return GC_ERR_NODEV;
	struct ibv_device *dev = NULL;
	for (int i = 0; i < n && !dev; i++)
		if (!dev_name || !strcmp(dev_name, ibv_get_device_name(list[i])))
			dev = list[i];
	if (!dev) {
		GString *names = g_string_new(NULL);
		for (int i = 0; i < n; i++)
			g_string_append_printf(names, "%s%s", i ? ", " : "", ibv_get_device_name(list[i]));
		snprintf(why, GH_WHY, "RDMA device '%s' not found (devices: %s)", dev_name, names->str);
		g_string_free(names, TRUE);
		ibv_free_device_list(list);
		return GC_ERR_INPUT;
	}
	g_strlcpy(pi->dev_name, ibv_get_device_name(dev), sizeof(pi->dev_name));
	struct ibv_context *ctx = ibv_open_device(dev);
	int e = errno;
	ibv_free_device_list(list);
	if (!ctx) {
		snprintf(why, GH_WHY, "rdma open: ibv_open_device(%s) failed: %s", pi->dev_name,
			 strerror(e));
		return GC_ERR_IO;
	}
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	gc_status st = GC_OK;
	if ((e = ibv_query_device(ctx, &da)) != 0 || (e = ibv_query_port(ctx, (uint8_t)port, &pa)) != 0) {
		snprintf(why, GH_WHY, "rdma open: querying %s port %d failed: %s", pi->dev_name, port,
			 strerror(e));
		st = GC_ERR_IO;
	} else if (pa.state != IBV_PORT_ACTIVE) {
		snprintf(why, GH_WHY, "rdma open: port %d of %s is not active (%s)", port, pi->dev_name,
			 ibv_port_state_str(pa.state));
		st = GC_ERR_NODEV;
	}
	if (st == GC_OK) {
		pi->port = port;
		pi->ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
		pi->lid = pa.lid;
		pi->mtu = 128 << pa.active_mtu; /* IBV_MTU_256 = 1 ... IBV_MTU_4096 = 5 */
		pi->max_mr_size = da.max_mr_size;
		pi->gid_index = -1;
		/* InfiniBand routes by LID; RoCE (or an explicit index) needs a GID. */
		if (gid_index >= 0 || pi->ethernet) {
			int lo = gid_index >= 0 ? gid_index : 0;
			int hi = gid_index >= 0 ? gid_index + 1 : pa.gid_tbl_len;
			int any = -1, v4 = -1;
			union ibv_gid g, gany = {.raw = {0}}, gv4 = {.raw = {0}};
			for (int i = lo; i < hi && v4 < 0; i++) {
				if (ibv_query_gid(ctx, (uint8_t)port, i, &g) != 0 || gid_zero(g.raw))
					continue;
				if (any < 0)
					any = i, gany = g;
				if (gid_ipv4(g.raw))
					v4 = i, gv4 = g;
			}
			if (v4 >= 0 || any >= 0) {
				pi->gid_index = v4 >= 0 ? v4 : any;
				memcpy(pi->gid, (v4 >= 0 ? gv4 : gany).raw, 16);
				gid_describe(pi);
			} else {
				if (gid_index >= 0)
					snprintf(why, GH_WHY, "rdma open: GID index %d of %s port %d is empty",
						 gid_index, pi->dev_name, port);
				else
					snprintf(why, GH_WHY, "rdma open: %s port %d (RoCE) has no valid GID: is an IP address configured on its interface?",
						 pi->dev_name, port);
				st = GC_ERR_NODEV;
			}
		} else {
			snprintf(pi->gid_desc, sizeof(pi->gid_desc), "LID %u (no GID)", pi->lid);
		}
	}
	if (st != GC_OK) {
		ibv_close_device(ctx);
		return st;
	}
	*ctx_out = ctx;
	return GC_OK;
}

static void real_close(void *ctx)
{
	ibv_close_device(ctx);
}

static void *real_alloc_pd(void *ctx, int *err)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	*err = pd ? 0 : errno;
	return pd;
}

static void real_dealloc_pd(void *pd)
{
	ibv_dealloc_pd(pd);
}

static void *real_create_cq(void *ctx, int depth, int *err)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, depth, NULL, NULL, 0);
	*err = cq ? 0 : errno;
	return cq;
}

static void real_destroy_cq(void *cq)
{
	ibv_destroy_cq(cq);
}

static void *real_create_qp(void *pd, void *cq, int depth, uint32_t *max_inline, uint32_t *qpn,
			    int *err)
{
	struct ibv_qp_init_attr a;
	memset(&a, 0, sizeof(a));
	a.send_cq = cq;
	a.recv_cq = cq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = (uint32_t)depth;
	a.cap.max_recv_wr = (uint32_t)depth;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	a.cap.max_inline_data = *max_inline;
	struct ibv_qp *qp = ibv_create_qp(pd, &a);
	*err = qp ? 0 : errno;
	if (qp) {
		*max_inline = a.cap.max_inline_data; /* what the provider granted */
		*qpn = qp->qp_num;
	}
	return qp;
}

static void real_destroy_qp(void *qp)
{
	ibv_destroy_qp(qp);
}

static void *real_reg_mr(void *pd, void *addr, size_t len, uint32_t *lkey, uint32_t *rkey, int *err)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, addr, len,
				       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	*err = mr ? 0 : errno;
	if (mr) {
		*lkey = mr->lkey;
		*rkey = mr->rkey;
	}
	return mr;
}

static void real_dereg_mr(void *mr)
{
	ibv_dereg_mr(mr);
}

static int real_connect(void *qp, const gh_verbs_port *pi, uint32_t remote_qpn, const char **state)
{
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = (uint8_t)pi->port;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	*state = "INIT";
	int e = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (e)
		return e;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	int mtu = IBV_MTU_256;
	while (mtu < IBV_MTU_4096 && (128 << (mtu + 1)) <= pi->mtu)
		mtu++;
	a.path_mtu = (enum ibv_mtu)mtu;
	a.dest_qp_num = remote_qpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = pi->lid;
	a.ah_attr.port_num = (uint8_t)pi->port;
	if (pi->gid_index >= 0) {
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, pi->gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)pi->gid_index;
		a.ah_attr.grh.hop_limit = 1;
	}
	*state = "RTR";
	e = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (e)
		return e;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	*state = "RTS";
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int real_post_write(void *qp, const gh_verbs_wr *w)
{
	struct ibv_sge sge = {.addr = (uintptr_t)w->local, .length = w->len, .lkey = w->lkey};
	struct ibv_send_wr wr, *bad = NULL;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = w->wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = w->with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
	wr.send_flags = (w->signaled ? IBV_SEND_SIGNALED : 0) | (w->inline_data ? IBV_SEND_INLINE : 0);
	wr.imm_data = htonl(w->imm);
	wr.wr.rdma.remote_addr = w->remote;
	wr.wr.rdma.rkey = w->rkey;
	return ibv_post_send(qp, &wr, &bad);
}

static int real_post_recv(void *qp, uint64_t wr_id)
{
	/* A write with immediate consumes a receive but scatters nothing. */
	struct ibv_recv_wr wr, *bad = NULL;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	return ibv_post_recv(qp, &wr, &bad);
}

static int real_poll(void *cq, int max, gh_verbs_wc *out)
{
	struct ibv_wc wc[16];
	int n = ibv_poll_cq(cq, max < 16 ? max : 16, wc);
	for (int i = 0; i < n; i++) {
		out[i].wr_id = wc[i].wr_id;
		out[i].status = wc[i].status;
		out[i].status_str = ibv_wc_status_str(wc[i].status);
		out[i].kind = wc[i].opcode == IBV_WC_RDMA_WRITE	       ? GH_WC_WRITE
			      : wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM ? GH_WC_RECV_IMM
									  : GH_WC_OTHER;
	}
	return n;
}

static const gh_verbs_ops real_ops = {
	.open = real_open,
	.close = real_close,
	.alloc_pd = real_alloc_pd,
	.dealloc_pd = real_dealloc_pd,
	.create_cq = real_create_cq,
	.destroy_cq = real_destroy_cq,
	.create_qp = real_create_qp,
	.destroy_qp = real_destroy_qp,
	.reg_mr = real_reg_mr,
	.dereg_mr = real_dereg_mr,
	.connect = real_connect,
	.post_write = real_post_write,
	.post_recv = real_post_recv,
	.poll = real_poll,
};
#else
/* Without rdma-core only the open step exists; it says why there is nothing
 * to open, and nothing else is ever called. */
static const char no_rdma[] = "gcsim was built without rdma-core (infiniband/verbs.h not found at build time)";

gc_status gh_verbs_probe(void *gstring_out, int *ndev, char *why)
{
	*ndev = 0;
	snprintf(why, GH_WHY, "%s", no_rdma);
	return GC_ERR_NODEV;
}

static gc_status stub_open(const char *dev_name, int port, int gid_index, void **ctx,
			   gh_verbs_port *info, char *why)
{
	*ctx = NULL;
	snprintf(why, GH_WHY, "%s", no_rdma);
	return GC_ERR_NODEV;
}

static const gh_verbs_ops real_ops = {.open = stub_open};
#endif

const gh_verbs_ops *gh_verbs_ops_real(void)
{
	return &real_ops;
}

/* ---- options ------------------------------------------------------------- */

void gh_verbs_opts_default(gh_verbs_opts *o, bool quick)
{
	memset(o, 0, sizeof(*o));
	o->port = 1;
	o->gid_index = -1;
	o->min_bytes = 8;
	o->max_bytes = quick ? (64u << 20) : (1u << 30);
	o->write = o->write_imm = true;
	o->lat = o->bw = true;
	o->mem = GH_MEM_AUTO;
	o->warmup = quick ? 10 : 50;
	o->iters = quick ? 100 : 1000;
	o->window = 64;
	o->bw_reps = quick ? 3 : 5;
}

/* Sets the flags named in a comma-separated list; every word must be known. */
static gc_status parse_flags(const char *list, const char *opt, const char *const *names,
			     bool *const *flags, int n, char *why)
{
	for (int i = 0; i < n; i++)
		*flags[i] = false;
	char **w = g_strsplit(list, ",", -1);
	gc_status st = GC_OK;
	int set = 0;
	for (char **p = w; *p && st == GC_OK; p++) {
		int k = 0;
		while (k < n && strcmp(g_strstrip(*p), names[k]))
			k++;
		if (k == n) {
			snprintf(why, GH_WHY, "%s: expected %s or %s, got '%s'", opt, names[0], names[1], *p);
			st = GC_ERR_INPUT;
		} else {
			*flags[k] = true;
			set++;
		}
	}
	if (st == GC_OK && set == 0) {
		snprintf(why, GH_WHY, "%s: empty list", opt);
		st = GC_ERR_INPUT;
	}
	g_strfreev(w);
	return st;
}

static gc_status parse_size(const char *s, const char *opt, uint64_t *out, char *why)
{
	const char *w = NULL;
	uint64_t v = 0;
	if (gc_parse_bytes(s, &v, &w) != GC_OK || v == 0 || v > (1ull << 40)) {
		snprintf(why, GH_WHY, "%s: '%s': %s", opt, s, w ? w : "expected 1 B .. 1 TiB");
		return GC_ERR_INPUT;
	}
	*out = v;
	return GC_OK;
}

gc_status gh_verbs_opts_parse(gh_verbs_opts *o, const char *ops, const char *tests,
			      const char *mem, const char *min, const char *max, char *why)
{
	static const char *const op_names[] = {"write", "write_imm"};
	static const char *const test_names[] = {"lat", "bw"};
	bool *const op_flags[] = {&o->write, &o->write_imm};
	bool *const test_flags[] = {&o->lat, &o->bw};
	if (ops && parse_flags(ops, "--op", op_names, op_flags, 2, why) != GC_OK)
		return GC_ERR_INPUT;
	if (tests && parse_flags(tests, "--test", test_names, test_flags, 2, why) != GC_OK)
		return GC_ERR_INPUT;
	if (mem) {
		if (!strcmp(mem, "auto"))
			o->mem = GH_MEM_AUTO;
		else if (!strcmp(mem, "host"))
			o->mem = GH_MEM_HOST;
		else if (!strcmp(mem, "gpu"))
			o->mem = GH_MEM_GPU;
		else {
			snprintf(why, GH_WHY, "--mem: expected auto, host or gpu, got '%s'", mem);
			return GC_ERR_INPUT;
		}
	}
	if (min && parse_size(min, "--min-size", &o->min_bytes, why) != GC_OK)
		return GC_ERR_INPUT;
	if (max && parse_size(max, "--max-size", &o->max_bytes, why) != GC_OK)
		return GC_ERR_INPUT;
	if (o->min_bytes > o->max_bytes) {
		snprintf(why, GH_WHY, "--min-size %" G_GUINT64_FORMAT " exceeds --max-size %" G_GUINT64_FORMAT,
			 o->min_bytes, o->max_bytes);
		return GC_ERR_INPUT;
	}
	/* A single write carries at most 2^31 bytes (sge length is 32 bits). */
	if (o->max_bytes > (1ull << 31)) {
		snprintf(why, GH_WHY, "--max-size: at most 2GiB (one RDMA write)");
		return GC_ERR_INPUT;
	}
	if (o->iters < 1 || o->iters > 100000 || o->warmup < 0 || o->window < 1 || o->window > 1024 ||
	    o->bw_reps < 1 || o->port < 1 || o->port > 255) {
		snprintf(why, GH_WHY, "--iters 1..100000, --window 1..1024, --port 1..255");
		return GC_ERR_INPUT;
	}
	return GC_OK;
}

size_t gh_verbs_sizes(const gh_verbs_opts *o, uint64_t cap, uint64_t *out, size_t max)
{
	uint64_t hi = o->max_bytes < cap ? o->max_bytes : cap;
	if (o->min_bytes > hi)
		return 0;
	return gh_stats_size_sweep(o->min_bytes, hi, 2, out, max);
}

/* ---- the session --------------------------------------------------------- */

enum { POLL_TIMEOUT_S = 5 };

typedef struct vside {
	void *cq, *qp;
	uint32_t qpn;
	uint8_t *src, *dst; /* this side writes from src into the peer's dst */
	int64_t posted, completed; /* signaled writes */
	int64_t arrived;	   /* writes with immediate received, not yet consumed */
	int64_t received;	   /* all writes with immediate received */
} vside;

typedef struct vsess {
	const gh_verbs_ops *ops;
	gh_verbs_port port;
	void *ctx, *pd, *mr;
	vside side[2];
	uint32_t lkey, rkey, max_inline;
	int depth;
	uint8_t *buf;
	size_t half;
	bool gpu;
} vsess;

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void buf_free(vsess *s)
{
	if (!s->buf)
		return;
#if GC_HAVE_CUDA
	if (s->gpu) {
		cudaFree(s->buf);
		s->buf = NULL;
		return;
	}
#endif
	free(s->buf);
	s->buf = NULL;
}

/* Releases every acquired object, newest first. */
static void sess_close(vsess *s)
{
	const gh_verbs_ops *ops = s->ops;
	if (s->mr)
		ops->dereg_mr(s->mr);
	for (int i = 1; i >= 0; i--)
		if (s->side[i].qp)
			ops->destroy_qp(s->side[i].qp);
	for (int i = 1; i >= 0; i--)
		if (s->side[i].cq)
			ops->destroy_cq(s->side[i].cq);
	if (s->pd)
		ops->dealloc_pd(s->pd);
	if (s->ctx)
		ops->close(s->ctx);
	buf_free(s);
	memset(s, 0, sizeof(*s));
}

static gc_status step_failed(const vsess *s, const char *step, const char *call, int err, char *why)
{
	snprintf(why, GH_WHY, "rdma %s: %s failed on %s: %s", step, call, s->port.dev_name,
		 strerror(err ? err : EIO));
	return GC_ERR_IO;
}

/* Host buffer with a known pattern in the first half, or GPU memory. */
static gc_status buf_alloc(vsess *s, bool gpu, char *why)
{
	size_t bytes = 2 * s->half;
	s->gpu = gpu;
	if (gpu) {
#if GC_HAVE_CUDA
		void *p = NULL;
		cudaError_t e = cudaSetDevice(0);
		if (e == cudaSuccess)
			e = cudaMalloc(&p, bytes);
		if (e == cudaSuccess)
			e = cudaMemset(p, 0x5a, bytes);
		if (e != cudaSuccess) {
			if (p)
				cudaFree(p);
			snprintf(why, GH_WHY, "cannot allocate %zu bytes of GPU memory: %s", bytes,
				 cudaGetErrorString(e));
			return GC_ERR_UNSUPPORTED;
		}
		s->buf = p;
		return GC_OK;
#else
		snprintf(why, GH_WHY, "gcsim was built without CUDA: no GPU memory to register");
		return GC_ERR_NODEV;
#endif
	}
	void *p = NULL;
	if (posix_memalign(&p, 4096, bytes) != 0) {
		snprintf(why, GH_WHY, "cannot allocate %zu bytes of host memory", bytes);
		return GC_ERR_IO;
	}
	s->buf = p;
	for (size_t i = 0; i < s->half; i++)
		s->buf[i] = (uint8_t)(i * 7 + 1);
	memset(s->buf + s->half, 0, s->half);
	return GC_OK;
}

/* open, PD, CQ, QP, MR, connect; on failure everything is released. */
static gc_status sess_open(vsess *s, const gh_verbs_opts *o, const gh_verbs_ops *ops, bool gpu,
			   char *why)
{
	memset(s, 0, sizeof(*s));
	s->ops = ops;
	s->depth = o->window + 4;
	int err = 0;
	gc_status st = ops->open(o->dev_name, o->port, o->gid_index, &s->ctx, &s->port, why);
	if (st != GC_OK) {
		s->ctx = NULL;
		sess_close(s);
		return st;
	}
	s->pd = ops->alloc_pd(s->ctx, &err);
	if (!s->pd) {
		st = step_failed(s, "PD", "ibv_alloc_pd", err, why);
		goto fail;
	}
	for (int i = 0; i < 2; i++) {
		/* Each CQ takes its QP's send and receive completions. */
		s->side[i].cq = ops->create_cq(s->ctx, 2 * s->depth + 8, &err);
		if (!s->side[i].cq) {
			st = step_failed(s, "CQ", "ibv_create_cq", err, why);
			goto fail;
		}
	}
	for (int i = 0; i < 2; i++) {
		/* Inline data is read by the CPU: never from GPU memory. */
		uint32_t inl = gpu ? 0 : 64;
		s->side[i].qp = ops->create_qp(s->pd, s->side[i].cq, s->depth, &inl, &s->side[i].qpn, &err);
		if (!s->side[i].qp) {
			st = step_failed(s, "QP", "ibv_create_qp (RC)", err, why);
			goto fail;
		}
		s->max_inline = i == 0 || inl < s->max_inline ? inl : s->max_inline;
	}
	uint64_t cap = s->port.max_mr_size ? s->port.max_mr_size / 2 : o->max_bytes;
	s->half = (size_t)(o->max_bytes < cap ? o->max_bytes : cap);
	st = buf_alloc(s, gpu, why);
	if (st != GC_OK)
		goto fail;
	s->mr = ops->reg_mr(s->pd, s->buf, 2 * s->half, &s->lkey, &s->rkey, &err);
	if (!s->mr) {
		if (gpu) {
			snprintf(why, GH_WHY, "rdma MR: ibv_reg_mr of GPU memory refused on %s (%s): the peer-memory driver (nvidia-peermem) is not loaded or does not allow it",
				 s->port.dev_name, strerror(err ? err : EIO));
			st = GC_ERR_UNSUPPORTED;
		} else {
			st = step_failed(s, "MR", "ibv_reg_mr", err, why);
		}
		goto fail;
	}
	for (int i = 0; i < 2; i++) {
		s->side[i].src = s->buf + (size_t)i * s->half;
		s->side[i].dst = s->buf + (size_t)(1 - i) * s->half;
	}
	for (int i = 0; i < 2; i++) {
		const char *state = "INIT";
		err = ops->connect(s->side[i].qp, &s->port, s->side[1 - i].qpn, &state);
		if (err) {
			char call[64];
			snprintf(call, sizeof(call), "ibv_modify_qp to %s", state);
			st = step_failed(s, "connect", call, err, why);
			goto fail;
		}
	}
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < s->depth; k++) {
			err = ops->post_recv(s->side[i].qp, (uint64_t)k);
			if (err) {
				st = step_failed(s, "connect", "ibv_post_recv", err, why);
				goto fail;
			}
		}
	return GC_OK;
fail:
	sess_close(s);
	return st;
}

/* Handles the completions on one side: counts finished writes and arrived
 * immediates (each consumed receive is replaced at once). */
static gc_status poll_side(vsess *s, int i, char *why)
{
	gh_verbs_wc wc[16];
	vside *v = &s->side[i];
	int n = s->ops->poll(v->cq, 16, wc);
	if (n < 0) {
		snprintf(why, GH_WHY, "rdma: ibv_poll_cq failed on %s", s->port.dev_name);
		return GC_ERR_IO;
	}
	for (int k = 0; k < n; k++) {
		if (wc[k].status != 0) {
			snprintf(why, GH_WHY, "rdma: completion error on %s: %s", s->port.dev_name,
				 wc[k].status_str ? wc[k].status_str : "unknown status");
			return GC_ERR_IO;
		}
		if (wc[k].kind == GH_WC_WRITE) {
			v->completed++;
		} else if (wc[k].kind == GH_WC_RECV_IMM) {
			v->arrived++;
			v->received++;
			int e = s->ops->post_recv(v->qp, wc[k].wr_id);
			if (e)
				return step_failed(s, "recv", "ibv_post_recv", e, why);
		}
	}
	return GC_OK;
}

/* Polls until cond(s, i) holds; POLL_TIMEOUT_S without progress is an error. */
typedef bool (*vcond)(const vsess *s, int i, int64_t arg);

static bool writes_done(const vsess *s, int i, int64_t arg)
{
	return s->side[i].completed >= arg;
}

static bool imm_arrived(const vsess *s, int i, int64_t arg)
{
	return s->side[i].arrived >= arg;
}

static bool imm_received(const vsess *s, int i, int64_t arg)
{
	return s->side[i].received >= arg;
}

static gc_status wait_for(vsess *s, int i, vcond cond, int64_t arg, char *why)
{
	double t0 = 0;
	for (unsigned spin = 0; !cond(s, i, arg); spin++) {
		gc_status st = poll_side(s, i, why);
		if (st != GC_OK)
			return st;
		if ((spin & 1023) == 1023) {
			double t = now_us();
			if (t0 == 0)
				t0 = t;
			else if (t - t0 > POLL_TIMEOUT_S * 1e6) {
				snprintf(why, GH_WHY, "rdma: no completion on %s within %d s", s->port.dev_name,
					 POLL_TIMEOUT_S);
				return GC_ERR_IO;
			}
		}
	}
	return GC_OK;
}

/* Posts one signaled write of len bytes from side i to the peer, first
 * making room when its send queue is full. */
static gc_status post(vsess *s, int i, uint32_t len, bool imm, char *why)
{
	vside *v = &s->side[i];
	gc_status st = GC_OK;
	if (v->posted - v->completed >= s->depth)
		st = wait_for(s, i, writes_done, v->posted - s->depth + 1, why);
	if (st != GC_OK)
		return st;
	gh_verbs_wr wr = {.wr_id = (uint64_t)v->posted,
			  .local = v->src,
			  .lkey = s->lkey,
			  .remote = (uint64_t)(uintptr_t)v->dst,
			  .rkey = s->rkey,
			  .len = len,
			  .with_imm = imm,
			  .imm = (uint32_t)v->posted,
			  .signaled = true,
			  .inline_data = !s->gpu && len <= s->max_inline};
	int e = s->ops->post_write(v->qp, &wr);
	if (e)
		return step_failed(s, "write", imm ? "ibv_post_send (write with immediate)" : "ibv_post_send (write)", e, why);
	v->posted++;
	return GC_OK;
}

/* Fewer samples for large transfers keep a full sweep within minutes. */
static int iters_for(const gh_verbs_opts *o, uint64_t bytes)
{
	int cap = bytes >= (256u << 20) ? 3 : bytes >= (16u << 20) ? 20 : bytes >= (1u << 20) ? 100 : o->iters;
	return o->iters < cap ? o->iters : cap;
}

/* Latency samples: a single write and its completion, or half a ping-pong
 * of writes with immediate (a writes to b, b answers when it sees it). */
static gc_status run_lat(vsess *s, const gh_verbs_opts *o, bool imm, uint32_t len, double *us,
			 int n, char *why)
{
	int warm = len >= (16u << 20) ? 1 : o->warmup;
	gc_status st = GC_OK;
	for (int it = 0; it < warm + n && st == GC_OK; it++) {
		double t0 = now_us();
		if (!imm) {
			st = post(s, 0, len, false, why);
			if (st == GC_OK)
				st = wait_for(s, 0, writes_done, s->side[0].posted, why);
		} else {
			st = post(s, 0, len, true, why);
			if (st == GC_OK)
				st = wait_for(s, 1, imm_arrived, 1, why);
			if (st == GC_OK) {
				s->side[1].arrived--;
				st = post(s, 1, len, true, why);
			}
			if (st == GC_OK)
				st = wait_for(s, 0, imm_arrived, 1, why);
			if (st == GC_OK)
				s->side[0].arrived--;
		}
		double t = now_us() - t0;
		if (it >= warm)
			us[it - warm] = imm ? t / 2 : t;
	}
	/* Leave no write outstanding for the next measurement. */
	for (int i = 0; i < 2 && st == GC_OK; i++)
		st = wait_for(s, i, writes_done, s->side[i].posted, why);
	return st;
}

/* Bandwidth samples: `count` writes with at most `window` outstanding; one
 * sample is the run's time divided by count. */
static gc_status run_bw(vsess *s, const gh_verbs_opts *o, bool imm, uint32_t len, double *us,
			int reps, char *why)
{
	uint64_t target = o->max_bytes >= (256u << 20) ? (256u << 20) : (64u << 20);
	int64_t count = (int64_t)(target / len);
	count = count < 2 ? 2 : count > 4096 ? 4096 : count;
	gc_status st = GC_OK;
	for (int r = 0; r < reps + 1 && st == GC_OK; r++) { /* run 0 warms up */
		vside *a = &s->side[0], *b = &s->side[1];
		int64_t first = a->posted, recv0 = b->received;
		double t0 = now_us();
		while (st == GC_OK && (a->completed < first + count || (imm && b->received < recv0 + count))) {
			while (st == GC_OK && a->posted < first + count && a->posted - a->completed < o->window)
				st = post(s, 0, len, imm, why);
			if (st == GC_OK)
				st = poll_side(s, 0, why);
			if (st == GC_OK && imm)
				st = poll_side(s, 1, why);
			if (st == GC_OK && now_us() - t0 > POLL_TIMEOUT_S * 1e6 * 4) {
				snprintf(why, GH_WHY, "rdma: bandwidth run on %s did not finish within %d s",
					 s->port.dev_name, POLL_TIMEOUT_S * 4);
				st = GC_ERR_IO;
			}
		}
		if (st == GC_OK && imm)
			st = wait_for(s, 1, imm_received, recv0 + count, why);
		b->arrived = 0; /* these immediates are not waited for one by one */
		if (r > 0)
			us[r - 1] = (now_us() - t0) / (double)count;
	}
	return st;
}

/* The bytes a write of len carried into the peer's half, checked on host
 * memory (the whole transfer up to 1 MiB, the two ends above that). */
static gc_status check_data(const vsess *s, uint64_t len, char *why)
{
	if (s->gpu)
		return GC_OK;
	const uint8_t *src = s->side[0].src, *dst = s->side[0].dst;
	size_t head = len <= (1u << 20) ? len : 4096;
	bool ok = memcmp(src, dst, head) == 0 && memcmp(src + len - head, dst + len - head, head) == 0;
	if (!ok) {
		snprintf(why, GH_WHY, "rdma: the %" G_GUINT64_FORMAT "-byte write on %s delivered wrong data",
			 len, s->port.dev_name);
		return GC_ERR_IO;
	}
	return GC_OK;
}

/* Records why GPU memory was not measured. */
static void note_gpu(void *notes, const char *reason)
{
	if (notes)
		g_string_append_printf(notes, "# memory gpu: not measured (%s)\n", reason);
}

/* The whole sweep on one kind of memory. */
static gc_status bench_mem(const gh_verbs_opts *o, const gh_verbs_ops *ops, bool gpu, GArray *pts,
			   void *notes, char *why)
{
	vsess s;
	gc_status st = sess_open(&s, o, ops, gpu, why);
	if (st != GC_OK)
		return st;
	if (notes) {
		char mb[32];
		g_string_append_printf(notes, "# RDMA %s port %d (%s, MTU %d, %s), loopback RC QPs %u <-> %u\n",
				       s.port.dev_name, s.port.port, s.port.ethernet ? "RoCE" : "InfiniBand",
				       s.port.mtu, s.port.gid_desc, s.side[0].qpn, s.side[1].qpn);
		g_string_append_printf(notes, "# memory %s: 2 x %s registered, inline up to %u B\n",
				       gpu ? "gpu (cudaMalloc)" : "host", gc_fmt_bytes(s.half, mb, sizeof(mb)),
				       s.max_inline);
	}
	uint64_t sizes[40];
	size_t ns = gh_verbs_sizes(o, s.half, sizes, G_N_ELEMENTS(sizes));
	int nmax = o->iters > o->bw_reps ? o->iters : o->bw_reps;
	double *us = g_new(double, nmax);
	static const char *const names[2][2] = {{"rdma_write_lat", "rdma_write_bw"},
						{"rdma_write_imm_lat", "rdma_write_imm_bw"}};
	for (int imm = 0; imm < 2 && st == GC_OK; imm++) {
		if (!(imm ? o->write_imm : o->write))
			continue;
		for (int bw = 0; bw < 2 && st == GC_OK; bw++) {
			if (!(bw ? o->bw : o->lat))
				continue;
			for (size_t i = 0; i < ns && st == GC_OK; i++) {
				uint32_t len = (uint32_t)sizes[i];
				int n = bw ? o->bw_reps : iters_for(o, len);
				if (!gpu)
					memset(s.side[0].dst, 0, len);
				st = bw ? run_bw(&s, o, imm, len, us, n, why) : run_lat(&s, o, imm, len, us, n, why);
				if (st == GC_OK)
					st = check_data(&s, len, why);
				if (st == GC_OK) {
					gc_result_point pt;
					gh_bench_point(&pt, names[imm][bw], gpu ? "gpu" : "host", len, us, n);
					g_array_append_val(pts, pt);
				}
			}
		}
	}
	g_free(us);
	sess_close(&s);
	return st;
}

/* Whether GPU memory can be tried: a CUDA build with a usable GPU. */
static bool gpu_usable(char *why)
{
	int n = 0;
	return gh_cuda_probe(&n, why) == GC_OK && n > 0;
}

gc_status gh_verbs_bench(const gh_verbs_opts *o, const gh_verbs_ops *ops, void *pts_out,
			 void *notes, char *why)
{
	GArray *pts = pts_out;
	gc_status st = GC_OK;
	if (o->mem != GH_MEM_GPU)
		st = bench_mem(o, ops, false, pts, notes, why);
	if (st != GC_OK || o->mem == GH_MEM_HOST)
		return st;
	char gwhy[GH_WHY] = "";
	if (!gpu_usable(gwhy)) {
		if (o->mem == GH_MEM_GPU) {
			snprintf(why, GH_WHY, "--mem gpu: %.240s", gwhy);
			return GC_ERR_NODEV;
		}
		note_gpu(notes, gwhy);
		return GC_OK;
	}
	st = bench_mem(o, ops, true, pts, notes, gwhy);
	if (st == GC_ERR_UNSUPPORTED && o->mem == GH_MEM_AUTO) {
		/* The host results stand; the refusal is reported, not fatal. */
		note_gpu(notes, gwhy);
		return GC_OK;
	}
	if (st != GC_OK)
		memcpy(why, gwhy, GH_WHY);
	return st;
}
