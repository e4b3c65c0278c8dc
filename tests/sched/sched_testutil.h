/* SPDX-License-Identifier: MIT */
/*
 * sched_testutil: shared helpers of the tests/sched suites (header-only,
 * static inline, so every test binary stays a single translation unit as
 * the Makefile builds them).
 *
 * tu_check_case() is the end-to-end check every generator sweep uses:
 * create the generator, materialize, check the shape (strand count,
 * channel grouping, strand_len vs. materialized lengths, slice bound, total
 * steps), run the validator and the reference executor, run the schedule
 * with bounded connection buffers (tu_run_bounded) and compare streaming
 * fills of random windows against the materialized strands. A failing case
 * is reported with g_test_fail_printf() naming the full parameter set, and
 * the sweep goes on, so one run lists every broken case.
 *
 * tu_run_bounded() executes a schedule structurally (sizes only) with the
 * simulator's credit rule: a send waits while its connection holds
 * unconsumed messages and adding it would exceed `cap` bytes (a message
 * always fits an empty connection), and a receive frees its message's
 * bytes before the step's send part. One-sided ops take no credit: a PUT
 * completes at once, a SIGNAL adds 1 to the peer's slot, and a WAIT waits
 * until its slot reaches the threshold. The validator assumes unlimited
 * buffering; this shows that the simulator's receive buffer of one chunk
 * (or, for the tree, sendrecv and the pairwise all-to-all, of a single
 * message) cannot deadlock. It can also run only the strands of one role
 * (strand % strands_per_channel) to show that they complete without the
 * others ever running.
 */
#ifndef SCHED_TESTUTIL_H
#define SCHED_TESTUTIL_H

#include <inttypes.h>
#include <string.h>

#include <glib.h>

#include "sim/sched/gs_sched.h"

static inline gs_params tu_params(gs_coll coll, gs_algo algo, gs_dtype dt, int n, uint64_t bytes,
				  int nch, uint64_t chunk, uint64_t slice, int rpn)
{
	gs_params p;

	memset(&p, 0, sizeof(p));
	p.coll = coll;
	p.algo = algo;
	p.dtype = dt;
	p.nranks = n;
	p.bytes = bytes;
	p.nchannels = nch;
	p.chunk_bytes = chunk;
	p.slice_bytes = slice;
	p.ranks_per_node = rpn;
	return p;
}

/* A MoE dispatch or combine (algo put, forward or pplx) of T tokens, top-K
 * of E experts, routed by seed, with messages of msg bytes. */
static inline gs_params tu_moe_params(gs_coll coll, gs_algo algo, gs_dtype dt, int n, uint64_t msg,
				      int nch, uint64_t chunk, uint64_t slice, uint32_t T, uint32_t K,
				      uint32_t E, uint64_t seed)
{
	gs_params p = tu_params(coll, algo, dt, n, msg, nch, chunk, slice, 0);
	p.moe_tokens = T;
	p.moe_topk = K;
	p.moe_experts = E;
	p.moe_seed = seed;
	return p;
}

/* gs_gen_create must refuse p with GC_ERR_INPUT, no generator, and a
 * message that says `what`. */
static inline void tu_expect_refused(const gs_params *p, const char *what)
{
	gs_gen *g = NULL;
	char *err = NULL;
	g_assert_cmpint(gs_gen_create(p, &g, &err), ==, GC_ERR_INPUT);
	g_assert_null(g);
	if (!strstr(err, what))
		g_test_fail_printf("'%s' does not say '%s'", err, what);
	g_free(err);
}

static inline char *tu_describe(const gs_params *p)
{
	return g_strdup_printf(
		"%s/%s %s n=%d bytes=%" PRIu64 " nch=%d chunk=%" PRIu64 " slice=%" PRIu64
		" rpn=%d group=%d stride=%d",
		gs_coll_name(p->coll), gs_algo_name(p->algo), gs_dtype_name(p->dtype), p->nranks,
		p->bytes, p->nchannels, p->chunk_bytes, p->slice_bytes, p->ranks_per_node,
		p->group_size, p->group_stride);
}

/* Streaming fills of nwin random windows of random strands equal the
 * materialized strands. */
static inline bool tu_check_windows(const gs_gen *g, const gs_sched *s, GRand *rnd, int nwin,
				    const char *desc)
{
	gs_step *buf = NULL;
	uint32_t cap = 0;
	bool ok = true;

	for (int w = 0; w < nwin && ok; w++) {
		int r = g_rand_int_range(rnd, 0, s->nranks);
		int c = g_rand_int_range(rnd, 0, s->nstrands);
		uint64_t len, first, n;
		const gs_step *st = gs_sched_strand(s, r, c, &len);

		if (len == 0)
			continue;
		first = (uint64_t)g_rand_double_range(rnd, 0, (double)len);
		first = MIN(first, len - 1);
		n = 1 + (uint64_t)g_rand_double_range(rnd, 0, (double)(len - first));
		n = MIN(n, len - first);
		if (n > cap) {
			cap = (uint32_t)n;
			buf = g_renew(gs_step, buf, cap);
		}
		memset(buf, 0x77, sizeof(gs_step) * n);
		g->ops->fill(g, r, c, first, (uint32_t)n, buf);
		if (memcmp(buf, st + first, sizeof(gs_step) * n) != 0) {
			g_test_fail_printf("%s: fill(r%d c%d, %" PRIu64 ", %" PRIu64
					   ") differs from the materialized strand",
					   desc, r, c, first, n);
			ok = false;
		}
	}
	g_free(buf);
	return ok;
}

typedef struct tu_bconn {
	gint64 key;
	GQueue q;	   /* message sizes (g_malloc'd uint64_t) */
	uint64_t inflight; /* bytes sent and not yet consumed */
	int64_t recv_waiter, send_waiter; /* strand index, or -1 */
} tu_bconn;

static inline void tu_bconn_free(gpointer p)
{
	tu_bconn *cn = p;

	g_queue_clear_full(&cn->q, g_free);
	g_free(cn);
}

static inline tu_bconn *tu_bconn_get(GHashTable *conns, const gs_sched *s, int src, int dst,
				     int strand)
{
	int spc = s->strands_per_channel;
	gint64 key = ((gint64)src * s->nranks + dst) * (s->nstrands / spc) + strand / spc;
	tu_bconn *cn = g_hash_table_lookup(conns, &key);

	if (!cn) {
		cn = g_new0(tu_bconn, 1);
		cn->key = key;
		cn->recv_waiter = cn->send_waiter = -1;
		g_queue_init(&cn->q);
		g_hash_table_insert(conns, &cn->key, cn);
	}
	return cn;
}

/* A signal slot: its count and the strands waiting on it. */
typedef struct tu_bslot {
	uint64_t count;
	GArray *waiters; /* int64_t strand indices */
} tu_bslot;

static inline void tu_bslot_free(gpointer p)
{
	tu_bslot *sl = p;

	g_array_free(sl->waiters, TRUE);
	g_free(sl);
}

static inline tu_bslot *tu_bslot_get(GHashTable *slots, const gs_sched *s, int rank, uint64_t slot)
{
	gint64 key = (gint64)rank * (gint64)s->nsignals + (gint64)slot;
	tu_bslot *sl = g_hash_table_lookup(slots, &key);

	if (!sl) {
		sl = g_new0(tu_bslot, 1);
		sl->waiters = g_array_new(FALSE, FALSE, sizeof(int64_t));
		g_hash_table_insert(slots, g_memdup2(&key, sizeof(key)), sl);
	}
	return sl;
}

/* Append strand k (if any and not queued yet) to the ring of ready strands. */
static inline void tu_wake(int64_t *ready, bool *queued, uint64_t nstr, uint64_t head,
			   uint64_t *count, int64_t k)
{
	if (k < 0 || queued[k])
		return;
	queued[k] = true;
	ready[(head + (*count)++) % nstr] = k;
}

/*
 * Run s with per-connection credit cap (bytes; see above). Only strands with
 * strand % strands_per_channel == role run (role < 0: all). Returns the
 * number of those strands left unfinished; *where (g_free) then names the
 * first one and its step.
 */
static inline uint64_t tu_run_bounded(const gs_sched *s, uint64_t cap, int role, char **where)
{
	uint64_t nstr = (uint64_t)s->nranks * (uint64_t)s->nstrands, stuck = 0;
	uint64_t *pos = g_new0(uint64_t, nstr + 1);
	bool *recvd = g_new0(bool, nstr + 1), *queued = g_new0(bool, nstr + 1);
	int64_t *ready = g_new(int64_t, nstr + 1);
	uint64_t head = 0, count = 0;
	GHashTable *conns = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, tu_bconn_free);
	GHashTable *slots = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, tu_bslot_free);

	*where = NULL;
	for (uint64_t k = 0; k < nstr; k++)
		if (role < 0 || (int)(k % (uint64_t)s->nstrands) % s->strands_per_channel == role)
			tu_wake(ready, queued, nstr, head, &count, (int64_t)k);
	while (count > 0) {
		int64_t k = ready[head];
		int r = (int)(k / s->nstrands), c = (int)(k % s->nstrands);
		uint64_t len;
		const gs_step *st = gs_sched_strand(s, r, c, &len);

		head = (head + 1) % nstr;
		count--;
		queued[k] = false;
		while (pos[k] < len) {
			const gs_step *x = &st[pos[k]];

			if (x->op == GS_OP_WAIT) {
				tu_bslot *sl = tu_bslot_get(slots, s, r, x->src_off);

				if (sl->count < x->bytes) {
					g_array_append_val(sl->waiters, k);
					break;
				}
				pos[k]++;
				continue;
			}
			if (x->op == GS_OP_SIGNAL) {
				tu_bslot *sl = tu_bslot_get(slots, s, x->send_peer, x->dst_off);

				sl->count++;
				for (guint w = 0; w < sl->waiters->len; w++)
					tu_wake(ready, queued, nstr, head, &count,
						g_array_index(sl->waiters, int64_t, w));
				g_array_set_size(sl->waiters, 0);
				pos[k]++;
				continue;
			}
			if (gs_op_recvs(x->op) && !recvd[k]) {
				tu_bconn *cn = tu_bconn_get(conns, s, x->recv_peer, r, c);
				uint64_t *m = g_queue_pop_head(&cn->q);

				if (!m) {
					cn->recv_waiter = k;
					break;
				}
				cn->inflight -= *m;
				g_free(m);
				recvd[k] = true;
				tu_wake(ready, queued, nstr, head, &count, cn->send_waiter);
				cn->send_waiter = -1;
			}
			if (gs_op_sends(x->op) && !gs_op_one_sided(x->op)) {
				tu_bconn *cn = tu_bconn_get(conns, s, r, x->send_peer, c);

				if (cn->inflight > 0 && cn->inflight + x->bytes > cap) {
					cn->send_waiter = k;
					break;
				}
				cn->inflight += x->bytes;
				g_queue_push_tail(&cn->q, g_memdup2(&x->bytes, sizeof(x->bytes)));
				tu_wake(ready, queued, nstr, head, &count, cn->recv_waiter);
				cn->recv_waiter = -1;
			}
			recvd[k] = false;
			pos[k]++;
		}
	}
	for (uint64_t k = 0; k < nstr; k++) {
		int c = (int)(k % (uint64_t)s->nstrands);

		if (role >= 0 && c % s->strands_per_channel != role)
			continue;
		if (pos[k] < s->strand_off[k + 1] - s->strand_off[k]) {
			if (!stuck++)
				*where = g_strdup_printf("r%d c%d #%" PRIu64 " (%s)",
							 (int)(k / (uint64_t)s->nstrands), c, pos[k],
							 gs_op_name(s->steps[s->strand_off[k] + pos[k]].op));
		}
	}
	g_hash_table_destroy(conns);
	g_hash_table_destroy(slots);
	g_free(pos);
	g_free(recvd);
	g_free(queued);
	g_free(ready);
	return stuck;
}

/* tu_run_bounded over all strands must finish; reports a failure if not. */
static inline bool tu_check_bounded(const gs_sched *s, uint64_t cap, const char *desc)
{
	char *where = NULL;
	uint64_t stuck = tu_run_bounded(s, cap, -1, &where);

	if (stuck)
		g_test_fail_printf("%s: with %" PRIu64 "-byte connection buffers %" PRIu64
				   " strands deadlock, first %s",
				   desc, cap, stuck, where);
	g_free(where);
	return stuck == 0;
}

/* The whole end-to-end check of one parameter set; true when it passed. */
static inline bool tu_check_case(const gs_params *p, GRand *rnd)
{
	char *desc = tu_describe(p), *err = NULL;
	gs_gen *g = NULL;
	gs_sched *s = NULL;
	gc_status st;
	bool ok = false;
	uint64_t total = 0;

	st = gs_gen_create(p, &g, &err);
	if (st != GC_OK) {
		g_test_fail_printf("%s: gs_gen_create: %s", desc, err);
		goto out;
	}
	s = gs_sched_materialize(g);
	if (s->nsignals != g->nsignals) {
		g_test_fail_printf("%s: materialized %" PRIu32 " signal slots, generator %" PRIu32,
				   desc, s->nsignals, g->nsignals);
		goto out;
	}
	/* nvls, nvlstree and collnet key a connection per (logical channel,
	 * owner GPU of a node; one node: ranks_per_node = nranks) */
	/* forward's dispatch keys a connection per (channel, role: network
	 * sender, local sender, forwarder of each node); pplx's strands are
	 * the warps and threads of its grid (test_pplx checks their layout) */
	const int per_ch = p->algo == GS_ALGO_NVLS || p->algo == GS_ALGO_NVLS_TREE ||
					   p->algo == GS_ALGO_COLLNET
				   ? g->p.ranks_per_node
			   : p->algo == GS_ALGO_FORWARD && p->coll == GS_COLL_DISPATCH
				   ? gs_group_n(&g->p) / g->p.ranks_per_node + 2
			   : p->algo == GS_ALGO_PPLX ? 0
						     : 1;
	if (s->strands_per_channel != g->strands_per_channel || s->strands_per_channel < 1 ||
	    s->nstrands % s->strands_per_channel != 0 ||
	    (per_ch > 0 && s->nstrands / s->strands_per_channel != p->nchannels * per_ch)) {
		g_test_fail_printf("%s: %d strands in channels of %d for %d channels", desc,
				   s->nstrands, s->strands_per_channel, p->nchannels);
		goto out;
	}
	for (int r = 0; r < s->nranks; r++) {
		for (int c = 0; c < s->nstrands; c++) {
			uint64_t len;
			const gs_step *steps = gs_sched_strand(s, r, c, &len);

			total += len;
			if (len != g->ops->strand_len(g, r, c)) {
				g_test_fail_printf("%s: strand_len mismatch r%d c%d", desc, r, c);
				goto out;
			}
			for (uint64_t i = 0; i < len; i++) {
				/* SIGNAL's bytes are the signal word, WAIT's a threshold */
				if (steps[i].op == GS_OP_SIGNAL || steps[i].op == GS_OP_WAIT)
					continue;
				/* forward and pplx move whole tokens, as DeepEP's normal
				 * kernels and pplx-kernels do, garden whole ranges of
				 * them, as pplx-garden's worker writes them */
				if (steps[i].bytes == 0 ||
				    (steps[i].bytes > g->p.slice_bytes && p->algo != GS_ALGO_FORWARD &&
				     p->algo != GS_ALGO_PPLX && p->algo != GS_ALGO_GARDEN)) {
					g_test_fail_printf("%s: r%d c%d #%" PRIu64 " has %" PRIu64
							   " bytes (slice %" PRIu64 ")",
							   desc, r, c, i, steps[i].bytes,
							   g->p.slice_bytes);
					goto out;
				}
			}
		}
	}
	if (total != gs_gen_total_steps(g)) {
		g_test_fail_printf("%s: gs_gen_total_steps %" PRIu64 " != %" PRIu64, desc,
				   gs_gen_total_steps(g), total);
		goto out;
	}
	st = gs_sched_validate(s, &err);
	if (st != GC_OK) {
		g_test_fail_printf("%s: validate: %s", desc, err);
		goto out;
	}
	st = gs_refexec_run(s, &err);
	if (st != GC_OK) {
		g_test_fail_printf("%s: refexec: %s", desc, err);
		goto out;
	}
	/* the simulator's smallest receive buffer: one chunk; forward's
	 * combine needs its lag of moe_chunk tokens and one more between a
	 * forwarder and a token's home (the simulator refuses less) */
	uint64_t cap = g->p.chunk_bytes;
	if (p->algo == GS_ALGO_FORWARD && p->coll == GS_COLL_COMBINE)
		cap = MAX(cap, ((uint64_t)g->p.moe_chunk + 1) * g->p.bytes);
	if (!tu_check_bounded(s, cap, desc))
		goto out;
	/* the tree, sendrecv and the pairwise all-to-all need no more than one
	 * message per connection */
	if ((p->algo == GS_ALGO_TREE || p->coll == GS_COLL_SENDRECV ||
	     p->algo == GS_ALGO_PAIRWISE || p->algo == GS_ALGO_NVLS || p->algo == GS_ALGO_NVLS_TREE ||
	     p->algo == GS_ALGO_COLLNET) &&
	    !tu_check_bounded(s, 1, desc))
		goto out;
	ok = tu_check_windows(g, s, rnd, 4, desc);
out:
	g_free(err);
	g_free(desc);
	gs_sched_free(s);
	gs_gen_free(g);
	return ok;
}

/* The sweep of an allgather or reduce-scatter algorithm of logarithmic
 * rounds (bruck, pat): every rank count 1..40, block counts that are
 * empty, one element and uneven over the channels, 1-3 channels, 64 B
 * slices (smaller than a round's data) and every data type, each through
 * tu_check_case. */
static inline void tu_sweep_rounds(gs_coll coll, gs_algo algo, guint32 seed)
{
	static const gs_dtype dts[] = {GS_DT_F32, GS_DT_I32, GS_DT_U8, GS_DT_F64};
	static const uint64_t counts[] = {0, 1, 5, 37};
	GRand *rnd = g_rand_new_with_seed(seed + (guint32)coll);
	int k = 0;
	for (int n = 1; n <= 40; n++) {
		for (size_t i = 0; i < G_N_ELEMENTS(counts); i++, k++) {
			gs_dtype dt = dts[k % 4];
			size_t el = gs_dtype_size(dt);
			gs_params p = tu_params(coll, algo, dt, n, counts[i] * el * (uint64_t)n,
						1 + k % 3, 256, 64, 0);
			if (!tu_check_case(&p, rnd))
				goto out;
		}
	}
out:
	g_rand_free(rnd);
}

/* A ranks_per_node value for n ranks, picked by k cyclically among those of
 * 1, 2, 4, 8 that divide n and 0 (all ranks on one node). */
static inline int tu_rpn(int n, int k)
{
	int opts[5], m = 0;

	for (int v = 1; v <= 8; v *= 2)
		if (n % v == 0)
			opts[m++] = v;
	opts[m++] = 0;
	return opts[k % m];
}

/* The end-to-end sweep of a whole-token MoE schedule (pplx, garden):
 * dispatch and combine over 1..8 ranks, 1..16 tokens, top-1..12 of 1..4
 * experts per rank, messages of one element to several slices (slices of
 * `slice` bytes, chunks of `chunk`), 1..12 channels, every data type, and
 * two communicators of 4 (contiguous and strided), each its own
 * expert-parallel group; tu_check_case on each, from random stream seed. */
static inline void tu_moe_sweep(gs_algo algo, uint64_t chunk, uint64_t slice, guint32 seed)
{
	static const gs_dtype dts[] = {GS_DT_F32, GS_DT_I32, GS_DT_U8, GS_DT_F64};
	static const int ns[] = {1, 2, 3, 4, 8};
	GRand *rnd = g_rand_new_with_seed(seed);
	int k = 0;

	for (size_t a = 0; a < G_N_ELEMENTS(ns); a++)
		for (int c = 0; c < 2; c++)
			for (int i = 0; i < 5; i++, k++) {
				int n = ns[a];
				gs_dtype dt = dts[k % 4];
				uint64_t el = gs_dtype_size(dt);
				uint64_t msgs[5] = {el, 15 * el, slice, 3 * slice + el, 7 * el};
				uint32_t per = 1 + (uint32_t)(k % 4), E = per * (uint32_t)n;
				uint32_t K = 1 + (uint32_t)(k % (int)MIN(E, 12u));
				uint32_t T = (uint32_t[]){1, 3, 16, 7, 12}[i];
				int nch = (int[]){1, 2, 3, 5, 12}[(k + i) % 5];
				gs_params p = tu_moe_params(c ? GS_COLL_COMBINE : GS_COLL_DISPATCH, algo, dt, n,
							    msgs[i], nch, chunk, slice, T, K, E, (uint64_t)k);
				if (!tu_check_case(&p, rnd))
					goto out;
			}
	for (int c = 0; c < 2; c++)
		for (int stride = 1; stride <= 2; stride++) {
			gs_params p = tu_moe_params(c ? GS_COLL_COMBINE : GS_COLL_DISPATCH, algo, GS_DT_F32, 8,
						    32, 3, chunk, slice, 9, 5, 16, 4);
			p.group_size = 4;
			p.group_stride = stride;
			if (!tu_check_case(&p, rnd))
				goto out;
		}
out:
	g_rand_free(rnd);
}

#endif
