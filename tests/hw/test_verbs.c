/* SPDX-License-Identifier: MIT */
/*
 * Tests of the RDMA benchmark (hw/gh_verbs) without an RDMA device.
 *
 * A fake gh_verbs_ops table stands in for rdma-core: its objects are heap
 * blocks counted while alive, its RDMA write is a memcpy between the two
 * halves of the registered buffer (keys and bounds checked as a NIC would),
 * a write with immediate consumes a receive posted at the peer QP and
 * queues the peer's completion, and it can fail at any set-up step or
 * return a failed completion. The tests check option parsing, the size
 * sweep, the points and their CSV form, that the data written arrives,
 * that the receive queue is never empty when an immediate arrives, that a
 * failure at each step (open, PD, CQ, QP, MR, connect) is reported with the
 * step's name and leaves no object alive, and the real no-device path.
 */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hw/gh_verbs.h"
#include "sim/core/gc_results.h"

/* ---- the fake provider --------------------------------------------------- */

enum { FQ = 4096 };

typedef struct fcq {
	gh_verbs_wc wc[FQ];
	int head, tail;
} fcq;

typedef struct fqp {
	uint32_t qpn;
	fcq *cq;
	struct fqp *peer;
	uint64_t recv_ids[FQ];
	int rhead, rtail;
	int depth;
} fqp;

typedef struct fmr {
	uint8_t *addr;
	size_t len;
	uint32_t key;
} fmr;

static struct fake {
	const char *fail_step; /* "open", "PD", "CQ", "QP", "MR", "connect" or NULL */
	int fail_nth;	       /* which call of that step fails (1-based) */
	int calls;	       /* calls of fail_step so far */
	int live;	       /* objects created and not yet released */
	int out_of_order;      /* releases of an object whose dependants were alive */
	uint64_t max_mr_size;
	int64_t bad_completion; /* the write whose completion fails; -1: none */
	int64_t writes;
	int rnr;		/* immediates that found no receive posted */
	int bad_inline;		/* inline writes above the granted size */
	int bad_key;		/* writes outside the region or with a wrong key */
	uint32_t granted_inline;
	fqp *qps[2];
	int nqp;
	fmr *mr;
	int depth_pd, depth_ctx; /* dependants alive per parent: checks release order */
	int qps_alive;		 /* QPs use the CQs */
} F;

static void fake_reset(const char *step, int nth)
{
	memset(&F, 0, sizeof(F));
	F.fail_step = step;
	F.fail_nth = nth;
	F.bad_completion = -1;
	F.granted_inline = 32;
}

static bool fail_now(const char *step)
{
	return F.fail_step && !strcmp(F.fail_step, step) && ++F.calls == F.fail_nth;
}

static gc_status f_open(const char *dev_name, int port, int gid_index, void **ctx,
			gh_verbs_port *pi, char *why)
{
	*ctx = NULL;
	if (fail_now("open")) {
		snprintf(why, GH_WHY, "rdma open: ibv_open_device(fake0) failed: %s", strerror(EPERM));
		return GC_ERR_IO;
	}
	memset(pi, 0, sizeof(*pi));
	g_strlcpy(pi->dev_name, "fake0", sizeof(pi->dev_name));
	pi->port = port;
	pi->ethernet = true;
	pi->gid_index = 3;
	pi->gid[10] = pi->gid[11] = 0xff;
	pi->gid[12] = 10, pi->gid[15] = 1;
	g_strlcpy(pi->gid_desc, "GID index 3 (IPv4-mapped ::ffff:10.0.0.1)", sizeof(pi->gid_desc));
	pi->mtu = 4096;
	pi->max_mr_size = F.max_mr_size;
	*ctx = g_new0(int, 1);
	F.live++;
	return GC_OK;
}

static void f_close(void *ctx)
{
	if (F.depth_ctx)
		F.out_of_order++;
	g_free(ctx);
	F.live--;
}

static void *f_alloc_pd(void *ctx, int *err)
{
	if (fail_now("PD")) {
		*err = ENOMEM;
		return NULL;
	}
	F.live++;
	F.depth_ctx++;
	return g_new0(int, 1);
}

static void f_dealloc_pd(void *pd)
{
	if (F.depth_pd)
		F.out_of_order++;
	g_free(pd);
	F.live--;
	F.depth_ctx--;
}

static void *f_create_cq(void *ctx, int depth, int *err)
{
	if (fail_now("CQ")) {
		*err = ENOMEM;
		return NULL;
	}
	g_assert_cmpint(depth, <=, FQ);
	F.live++;
	F.depth_ctx++;
	return g_new0(fcq, 1);
}

static void f_destroy_cq(void *cq)
{
	if (F.qps_alive)
		F.out_of_order++;
	g_free(cq);
	F.live--;
	F.depth_ctx--;
}

static void *f_create_qp(void *pd, void *cq, int depth, uint32_t *max_inline, uint32_t *qpn,
			 int *err)
{
	if (fail_now("QP")) {
		*err = EINVAL;
		return NULL;
	}
	fqp *q = g_new0(fqp, 1);
	q->qpn = 0x100 + (uint32_t)F.nqp;
	q->cq = cq;
	q->depth = depth;
	F.qps[F.nqp++] = q;
	*qpn = q->qpn;
	if (*max_inline > F.granted_inline)
		*max_inline = F.granted_inline;
	F.live++;
	F.depth_pd++;
	F.qps_alive++;
	return q;
}

static void f_destroy_qp(void *qp)
{
	for (int i = 0; i < F.nqp; i++)
		if (F.qps[i] == qp)
			F.qps[i] = NULL;
	g_free(qp);
	F.live--;
	F.depth_pd--;
	F.qps_alive--;
}

static void *f_reg_mr(void *pd, void *addr, size_t len, uint32_t *lkey, uint32_t *rkey, int *err)
{
	if (fail_now("MR")) {
		*err = EFAULT;
		return NULL;
	}
	fmr *m = g_new0(fmr, 1);
	m->addr = addr;
	m->len = len;
	m->key = 0xabc;
	*lkey = *rkey = m->key;
	F.mr = m;
	F.live++;
	F.depth_pd++;
	return m;
}

static void f_dereg_mr(void *mr)
{
	g_free(mr);
	F.mr = NULL;
	F.live--;
	F.depth_pd--;
}

static int f_connect(void *qp, const gh_verbs_port *info, uint32_t remote_qpn, const char **state)
{
	fqp *q = qp;
	*state = "INIT";
	if (fail_now("connect")) {
		*state = "RTR";
		return ETIMEDOUT;
	}
	for (int i = 0; i < F.nqp; i++)
		if (F.qps[i] && F.qps[i]->qpn == remote_qpn)
			q->peer = F.qps[i];
	*state = "RTS";
	return q->peer ? 0 : EINVAL;
}

static void cq_push(fcq *c, uint64_t id, gh_verbs_wc_kind kind, int status)
{
	g_assert_cmpint(c->tail - c->head, <, FQ);
	gh_verbs_wc *w = &c->wc[c->tail++ % FQ];
	w->wr_id = id;
	w->kind = kind;
	w->status = status;
	w->status_str = status ? "transport retry counter exceeded" : "success";
}

static bool in_mr(const void *p, size_t len)
{
	const uint8_t *b = p;
	return F.mr && b >= F.mr->addr && b + len <= F.mr->addr + F.mr->len;
}

static int f_post_write(void *qp, const gh_verbs_wr *wr)
{
	fqp *q = qp;
	void *remote = (void *)(uintptr_t)wr->remote;
	if (!in_mr(wr->local, wr->len) || !in_mr(remote, wr->len) || wr->lkey != F.mr->key ||
	    wr->rkey != F.mr->key) {
		F.bad_key++;
		return EINVAL;
	}
	if (wr->inline_data && wr->len > F.granted_inline)
		F.bad_inline++;
	memmove(remote, wr->local, wr->len);
	int64_t n = F.writes++;
	if (wr->signaled)
		cq_push(q->cq, wr->wr_id, GH_WC_WRITE, n == F.bad_completion ? 12 : 0);
	if (wr->with_imm) {
		fqp *p = q->peer;
		if (p->rhead == p->rtail) {
			F.rnr++;
		} else {
			uint64_t id = p->recv_ids[p->rhead++ % FQ];
			cq_push(p->cq, id, GH_WC_RECV_IMM, 0);
		}
	}
	return 0;
}

static int f_post_recv(void *qp, uint64_t wr_id)
{
	fqp *q = qp;
	if (q->rtail - q->rhead >= q->depth)
		return ENOMEM; /* receive queue full */
	q->recv_ids[q->rtail++ % FQ] = wr_id;
	return 0;
}

static int f_poll(void *cq, int max, gh_verbs_wc *wc)
{
	fcq *c = cq;
	int n = 0;
	while (n < max && c->head < c->tail)
		wc[n++] = c->wc[c->head++ % FQ];
	return n;
}

static const gh_verbs_ops fake_ops = {
	.open = f_open,
	.close = f_close,
	.alloc_pd = f_alloc_pd,
	.dealloc_pd = f_dealloc_pd,
	.create_cq = f_create_cq,
	.destroy_cq = f_destroy_cq,
	.create_qp = f_create_qp,
	.destroy_qp = f_destroy_qp,
	.reg_mr = f_reg_mr,
	.dereg_mr = f_dereg_mr,
	.connect = f_connect,
	.post_write = f_post_write,
	.post_recv = f_post_recv,
	.poll = f_poll,
};

/* Small sweeps: host memory, 8 B .. 64 KiB, few samples. */
static void small_opts(gh_verbs_opts *o)
{
	gh_verbs_opts_default(o, true);
	o->mem = GH_MEM_HOST;
	o->max_bytes = 64u << 10;
	o->iters = 20;
	o->warmup = 2;
	o->window = 16;
	o->bw_reps = 2;
}

/* ---- tests ----------------------------------------------------------------- */

static void test_opts(void)
{
	gh_verbs_opts o;
	char why[GH_WHY] = "";
	gh_verbs_opts_default(&o, false);
	g_assert_cmpuint(o.min_bytes, ==, 8);
	g_assert_cmpuint(o.max_bytes, ==, 1u << 30);
	g_assert_true(o.write && o.write_imm && o.lat && o.bw);
	g_assert_cmpint(o.gid_index, ==, -1);
	g_assert_cmpint(o.port, ==, 1);

	g_assert_cmpint(gh_verbs_opts_parse(&o, "write_imm", " bw ", "host", "64", "4KiB", why), ==, GC_OK);
	g_assert_true(!o.write && o.write_imm && !o.lat && o.bw);
	g_assert_cmpint(o.mem, ==, GH_MEM_HOST);
	g_assert_cmpuint(o.min_bytes, ==, 64);
	g_assert_cmpuint(o.max_bytes, ==, 4096);
	g_assert_cmpint(gh_verbs_opts_parse(&o, "write,write_imm", "lat,bw", "gpu", NULL, NULL, why), ==, GC_OK);
	g_assert_true(o.write && o.write_imm && o.lat && o.bw);
	g_assert_cmpint(o.mem, ==, GH_MEM_GPU);

	static const struct {
		const char *ops, *tests, *mem, *min, *max, *expect;
	} bad[] = {
		{"read", NULL, NULL, NULL, NULL, "--op: expected write or write_imm, got 'read'"},
		{"", NULL, NULL, NULL, NULL, "--op"},
		{NULL, "lat,throughput", NULL, NULL, NULL, "--test: expected lat or bw, got 'throughput'"},
		{NULL, NULL, "disk", NULL, NULL, "--mem: expected auto, host or gpu, got 'disk'"},
		{NULL, NULL, NULL, "abc", NULL, "--min-size: 'abc'"},
		{NULL, NULL, NULL, "0", NULL, "--min-size: '0'"},
		{NULL, NULL, NULL, "1MiB", "4KiB", "--min-size 1048576 exceeds --max-size 4096"},
		{NULL, NULL, NULL, NULL, "4GiB", "--max-size: at most 2GiB"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		gh_verbs_opts_default(&o, false);
		why[0] = 0;
		g_assert_cmpint(gh_verbs_opts_parse(&o, bad[i].ops, bad[i].tests, bad[i].mem, bad[i].min,
						    bad[i].max, why), ==, GC_ERR_INPUT);
		g_assert_nonnull(strstr(why, bad[i].expect));
	}
	gh_verbs_opts_default(&o, false);
	o.window = 0;
	g_assert_cmpint(gh_verbs_opts_parse(&o, NULL, NULL, NULL, NULL, NULL, why), ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(why, "--window"));
}

static void test_sizes(void)
{
	gh_verbs_opts o;
	uint64_t s[64];
	gh_verbs_opts_default(&o, false);
	size_t n = gh_verbs_sizes(&o, UINT64_MAX, s, 64);
	g_assert_cmpuint(n, ==, 28); /* 8 B = 2^3 .. 1 GiB = 2^30 */
	g_assert_cmpuint(s[0], ==, 8);
	g_assert_cmpuint(s[27], ==, 1u << 30);
	for (size_t i = 1; i < n; i++)
		g_assert_cmpuint(s[i], ==, 2 * s[i - 1]);
	/* The registered size caps the sweep. */
	n = gh_verbs_sizes(&o, 64u << 10, s, 64);
	g_assert_cmpuint(n, ==, 14);
	g_assert_cmpuint(s[n - 1], ==, 64u << 10);
	o.min_bytes = 100;
	o.max_bytes = 1000;
	n = gh_verbs_sizes(&o, UINT64_MAX, s, 64);
	g_assert_cmpuint(n, ==, 4);
	g_assert_cmpuint(s[3], ==, 800);
	g_assert_cmpuint(gh_verbs_sizes(&o, 50, s, 64), ==, 0);
}

static void test_no_device(void)
{
	GString *g = g_string_new(NULL);
	int n = -1;
	char why[GH_WHY] = "";
	gc_status st = gh_verbs_probe(g, &n, why);
	if (st == GC_OK && n > 0) {
		g_string_free(g, TRUE);
		g_test_skip("an RDMA device is present: the no-device path is not reachable here");
		return;
	}
	g_assert_cmpint(st, ==, GC_ERR_NODEV);
	g_assert_cmpint(n, ==, 0);
	g_assert_cmpuint(g->len, ==, 0);
#if GC_HAVE_RDMA
	g_assert_cmpstr(why, ==, GH_VERBS_NODEV);
#else
	g_assert_nonnull(strstr(why, "built without rdma-core"));
#endif
	/* The benchmark says the same, adds no point and no note. */
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	gh_verbs_opts o;
	small_opts(&o);
	char why2[GH_WHY] = "";
	g_assert_cmpint(gh_verbs_bench(&o, gh_verbs_ops_real(), pts, g, why2), ==, GC_ERR_NODEV);
	g_assert_cmpstr(why2, ==, why);
	g_assert_cmpuint(pts->len, ==, 0);
	g_assert_cmpuint(g->len, ==, 0);
	g_array_free(pts, TRUE);
	g_string_free(g, TRUE);
}

/* A failure at each step: one line naming it, nothing left alive. */
static void test_unwind(void)
{
	static const struct {
		const char *step;
		int nth;
		const char *expect;
	} cases[] = {
		{"open", 1, "rdma open: ibv_open_device(fake0) failed"},
		{"PD", 1, "rdma PD: ibv_alloc_pd failed on fake0: Cannot allocate memory"},
		{"CQ", 1, "rdma CQ: ibv_create_cq failed on fake0"},
		{"CQ", 2, "rdma CQ: ibv_create_cq failed on fake0"},
		{"QP", 1, "rdma QP: ibv_create_qp (RC) failed on fake0: Invalid argument"},
		{"QP", 2, "rdma QP: ibv_create_qp (RC) failed on fake0"},
		{"MR", 1, "rdma MR: ibv_reg_mr failed on fake0: Bad address"},
		{"connect", 1, "rdma connect: ibv_modify_qp to RTR failed on fake0: Connection timed out"},
		{"connect", 2, "rdma connect: ibv_modify_qp to RTR failed on fake0"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		fake_reset(cases[i].step, cases[i].nth);
		gh_verbs_opts o;
		small_opts(&o);
		GArray *pts = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
		GString *notes = g_string_new(NULL);
		char why[GH_WHY] = "";
		gc_status st = gh_verbs_bench(&o, &fake_ops, pts, notes, why);
		g_test_message("%s #%d: %s", cases[i].step, cases[i].nth, why);
		g_assert_cmpint(st, ==, GC_ERR_IO);
		g_assert_true(g_str_has_prefix(why, cases[i].expect));
		g_assert_null(strchr(why, '\n'));
		g_assert_cmpint(F.calls, ==, cases[i].nth); /* it failed where asked */
		g_assert_cmpint(F.live, ==, 0);
		g_assert_cmpint(F.out_of_order, ==, 0);
		g_assert_cmpuint(pts->len, ==, 0);
		g_array_free(pts, TRUE);
		g_string_free(notes, TRUE);
	}
}

static const gc_result_point *find(GArray *pts, const char *coll, uint64_t size)
{
	for (guint i = 0; i < pts->len; i++) {
		const gc_result_point *p = &g_array_index(pts, gc_result_point, i);
		if (!strcmp(p->collective, coll) && p->size_bytes == size)
			return p;
	}
	return NULL;
}

/* A whole sweep through the fake: every point present and well formed, the
 * data arrived (checked inside the benchmark), the receive queue never ran
 * dry, inline stayed within the granted size, and all is released. */
static void test_sweep(void)
{
	fake_reset(NULL, 0);
	gh_verbs_opts o;
	small_opts(&o);
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	GString *notes = g_string_new(NULL);
	char why[GH_WHY] = "";
	gc_status st = gh_verbs_bench(&o, &fake_ops, pts, notes, why);
	g_assert_cmpstr(why, ==, "");
	g_assert_cmpint(st, ==, GC_OK);
	g_assert_cmpint(F.live, ==, 0);
	g_assert_cmpint(F.rnr, ==, 0);
	g_assert_cmpint(F.bad_inline, ==, 0);
	g_assert_cmpint(F.bad_key, ==, 0);
	g_assert_nonnull(strstr(notes->str, "# RDMA fake0 port 1 (RoCE, MTU 4096, GID index 3 (IPv4-mapped ::ffff:10.0.0.1)), loopback RC QPs 256 <-> 257\n"));
	g_assert_nonnull(strstr(notes->str, "# memory host: 2 x 64KiB registered, inline up to 32 B\n"));
	/* 4 measurements x 14 sizes (8 B .. 64 KiB). */
	g_assert_cmpuint(pts->len, ==, 4 * 14);
	static const char *const names[] = {"rdma_write_lat", "rdma_write_bw", "rdma_write_imm_lat",
					    "rdma_write_imm_bw"};
	for (size_t k = 0; k < 4; k++)
		for (uint64_t s = 8; s <= (64u << 10); s *= 2) {
			const gc_result_point *p = find(pts, names[k], s);
			g_assert_nonnull(p);
			g_assert_cmpstr(p->algo, ==, "host");
			g_assert_cmpint(p->nranks, ==, 1);
			g_assert_cmpint(p->iters, ==, strstr(names[k], "_bw") ? o.bw_reps : o.iters);
			g_assert_true(p->min_us >= 0 && p->min_us <= p->median_us && p->median_us <= p->p99_us);
			g_assert_cmpfloat(p->time_us, ==, p->median_us);
		}

	/* The CSV interchange form reads back to the same points. */
	char *path = g_build_filename(g_get_tmp_dir(), "gcsim-test-verbs-XXXXXX.csv", NULL);
	int fd = g_mkstemp(path);
	g_assert_cmpint(fd, >=, 0);
	FILE *f = fdopen(fd, "w");
	gc_run_info info = {.kind = "hw", .label = "rdma", .device = "fake0 port 1"};
	g_assert_cmpint(gc_results_write_csv(f, &info, (gc_result_point *)(void *)pts->data, pts->len), ==, GC_OK);
	fclose(f);
	gc_run_row run;
	gc_result_point *back = NULL;
	size_t nback = 0;
	char *err = NULL;
	g_assert_cmpint(gc_results_read_csv(path, &run, &back, &nback, &err), ==, GC_OK);
	g_assert_cmpuint(nback, ==, pts->len);
	g_assert_cmpstr(run.device, ==, "fake0 port 1");
	g_assert_cmpstr(back[0].collective, ==, "rdma_write_lat");
	g_assert_cmpuint(back[pts->len - 1].size_bytes, ==, 64u << 10);
	g_assert_cmpstr(back[pts->len - 1].collective, ==, "rdma_write_imm_bw");
	g_free(back);
	g_free(err);
	gc_run_row_clear(&run);
	g_unlink(path);
	g_free(path);
	g_array_free(pts, TRUE);
	g_string_free(notes, TRUE);
}

/* The registrable size caps the buffer and so the sweep. */
static void test_mr_cap(void)
{
	fake_reset(NULL, 0);
	F.max_mr_size = 2 * 4096;
	gh_verbs_opts o;
	small_opts(&o);
	o.write_imm = false;
	o.bw = false;
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	char why[GH_WHY] = "";
	g_assert_cmpint(gh_verbs_bench(&o, &fake_ops, pts, NULL, why), ==, GC_OK);
	g_assert_cmpuint(pts->len, ==, 10); /* 8 B .. 4 KiB */
	g_assert_cmpuint(g_array_index(pts, gc_result_point, pts->len - 1).size_bytes, ==, 4096);
	g_assert_cmpint(F.live, ==, 0);
	g_array_free(pts, TRUE);
}

/* A failed completion mid-sweep: reported, points so far kept, all released. */
static void test_completion_error(void)
{
	fake_reset(NULL, 0);
	F.bad_completion = 100;
	gh_verbs_opts o;
	small_opts(&o);
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	char why[GH_WHY] = "";
	g_assert_cmpint(gh_verbs_bench(&o, &fake_ops, pts, NULL, why), ==, GC_ERR_IO);
	g_assert_cmpstr(why, ==, "rdma: completion error on fake0: transport retry counter exceeded");
	g_assert_cmpuint(pts->len, ==, 4); /* 100 writes = 22 per size: sizes 8 .. 64 B done */
	g_assert_cmpint(F.live, ==, 0);
	g_array_free(pts, TRUE);
}

/* GPU memory where no GPU is usable: demanded, it fails with status 3; in
 * auto mode the host results stand and a note says why. */
static void test_gpu_mem_absent(void)
{
	int n = 0;
	char why[GH_WHY] = "";
	if (gh_cuda_probe(&n, why) == GC_OK) {
		g_test_skip("a GPU is present: the fake provider cannot write GPU memory");
		return;
	}
	fake_reset(NULL, 0);
	gh_verbs_opts o;
	small_opts(&o);
	o.mem = GH_MEM_GPU;
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	GString *notes = g_string_new(NULL);
	g_assert_cmpint(gh_verbs_bench(&o, &fake_ops, pts, notes, why), ==, GC_ERR_NODEV);
	g_assert_true(g_str_has_prefix(why, "--mem gpu: "));
	g_assert_cmpuint(pts->len, ==, 0);
	g_assert_cmpint(F.live, ==, 0);
	o.mem = GH_MEM_AUTO;
	o.max_bytes = 64;
	g_assert_cmpint(gh_verbs_bench(&o, &fake_ops, pts, notes, why), ==, GC_OK);
	g_assert_cmpuint(pts->len, ==, 4 * 4);
	g_assert_nonnull(strstr(notes->str, "# memory gpu: not measured ("));
	g_assert_cmpint(F.live, ==, 0);
	g_array_free(pts, TRUE);
	g_string_free(notes, TRUE);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/verbs/opts", test_opts);
	g_test_add_func("/verbs/sizes", test_sizes);
	g_test_add_func("/verbs/no-device", test_no_device);
	g_test_add_func("/verbs/unwind", test_unwind);
	g_test_add_func("/verbs/sweep", test_sweep);
	g_test_add_func("/verbs/mr-cap", test_mr_cap);
	g_test_add_func("/verbs/completion-error", test_completion_error);
	g_test_add_func("/verbs/gpu-mem-absent", test_gpu_mem_absent);
	return g_test_run();
}
