/* SPDX-License-Identifier: MIT */
/*
 * gs_walk: the round-robin strand scheduler shared by the validator and
 * the reference executor (interface and semantics in gs_impl.h).
 *
 * Invariants: the run queue holds each runnable strand once (a strand is
 * queued when it has steps left and is neither a connection's waiter nor
 * chained on a slot), so it never holds more than nranks * nstrands
 * entries; a connection has at most one waiter, because it has one
 * receiving strand; the walk ends when the queue is empty, and any strand
 * then unfinished is blocked for good (deadlock), since only an executing
 * strand can wake another.
 */
#include <inttypes.h>

#include <glib.h>

#include "gs_impl.h"

static void gs_walk_conn_free(gpointer p, const gs_walk_ops *ops)
{
	gs_wconn *cn = p;
	gs_wmsg *m;

	while ((m = g_queue_pop_head(&cn->q))) {
		g_free(m->data);
		g_free(m);
	}
	if (ops->conn_fini)
		ops->conn_fini(cn);
	g_free(cn);
}

void gs_walk_init(gs_walk *w, const gs_sched *s, const gs_walk_ops *ops, void *ctx, int quantum,
		  size_t conn_size)
{
	size_t nstr = (size_t)s->nranks * (size_t)s->nstrands;

	memset(w, 0, sizeof(*w));
	w->s = s;
	w->ops = ops;
	w->ctx = ctx;
	w->quantum = quantum;
	w->conn_size = MAX(conn_size, sizeof(gs_wconn));
	/* values are freed in gs_walk_fini, which knows the ops */
	w->conns = g_hash_table_new(g_int64_hash, g_int64_equal);
	w->wait_next = g_new(int64_t, MAX(nstr, 1));
	for (size_t k = 0; k < nstr; k++)
		w->wait_next[k] = -1;
}

void gs_walk_fini(gs_walk *w)
{
	GHashTableIter it;
	gpointer key, val;

	g_hash_table_iter_init(&it, w->conns);
	while (g_hash_table_iter_next(&it, &key, &val))
		gs_walk_conn_free(val, w->ops);
	g_hash_table_destroy(w->conns);
	g_free(w->wait_next);
}

gs_wconn *gs_walk_conn(gs_walk *w, int32_t src, int32_t dst, int strand)
{
	gint64 key = gs_conn_key(w->s, src, dst, strand);
	gs_wconn *cn = g_hash_table_lookup(w->conns, &key);

	if (!cn) {
		cn = g_malloc0(w->conn_size);
		cn->key = key;
		cn->src = src;
		cn->dst = dst;
		cn->waiter = -1;
		g_queue_init(&cn->q);
		g_hash_table_insert(w->conns, &cn->key, cn);
	}
	return cn;
}

/* The run queue: a ring buffer of strand indices (rank * ns + strand). */
typedef struct gs_runq {
	int64_t *q;
	uint64_t head, len, cap;
} gs_runq;

static void gs_runq_push(gs_runq *rq, int64_t k)
{
	rq->q[(rq->head + rq->len) % rq->cap] = k;
	rq->len++;
}

/* Unfinished strands: report the first and count them. */
static gc_status gs_walk_stuck(gs_walk *w, const uint64_t *pos, gs_walk_fail *fail)
{
	const gs_sched *s = w->s;
	uint64_t nstr = (uint64_t)s->nranks * (uint64_t)s->nstrands;
	uint64_t stuck = 0, first = nstr, len;

	for (uint64_t k = 0; k < nstr; k++) {
		if (pos[k] < s->strand_off[k + 1] - s->strand_off[k]) {
			stuck++;
			first = MIN(first, k);
		}
	}
	if (!stuck)
		return GC_OK;
	fail->why = GS_WALK_DEADLOCK;
	fail->rank = (int)(first / (uint64_t)s->nstrands);
	fail->strand = (int)(first % (uint64_t)s->nstrands);
	fail->step = pos[first];
	fail->st = gs_sched_strand(s, fail->rank, fail->strand, &len) + pos[first];
	fail->stuck = stuck;
	if (fail->st->op == GS_OP_WAIT)
		fail->slot_count = w->ops->slot(w->ctx, fail->rank, fail->st->src_off)->count;
	return GC_ERR_DEADLOCK;
}

/* Messages never received: report the lowest (src, strand, step). */
static gc_status gs_walk_unreceived(gs_walk *w, gs_walk_fail *fail)
{
	GHashTableIter it;
	gpointer key, val;
	const gs_wconn *worst = NULL;
	const gs_wmsg *wm = NULL;

	g_hash_table_iter_init(&it, w->conns);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		gs_wconn *cn = val;
		const gs_wmsg *m = g_queue_peek_head(&cn->q);

		if (!m)
			continue;
		if (!worst || cn->src < worst->src ||
		    (cn->src == worst->src &&
		     (m->strand < wm->strand || (m->strand == wm->strand && m->step < wm->step)))) {
			worst = cn;
			wm = m;
		}
	}
	if (!worst)
		return GC_OK;
	fail->why = GS_WALK_UNRECEIVED;
	fail->rank = worst->src;
	fail->strand = wm->strand;
	fail->step = wm->step;
	fail->peer = worst->dst;
	fail->msg = *wm;
	fail->msg.data = NULL;
	return GC_ERR_INPUT;
}

gc_status gs_walk_run(gs_walk *w, gs_walk_fail *fail)
{
	const gs_sched *s = w->s;
	const gs_walk_ops *ops = w->ops;
	int ns = s->nstrands;
	uint64_t nstr = (uint64_t)s->nranks * (uint64_t)ns;
	uint64_t *pos = g_new0(uint64_t, MAX(nstr, 1));
	gs_runq rq = { g_new(int64_t, MAX(nstr, 1)), 0, 0, nstr };
	gc_status rc = GC_OK;

	memset(fail, 0, sizeof(*fail));
	for (uint64_t k = 0; k < nstr; k++)
		if (s->strand_off[k + 1] > s->strand_off[k])
			rq.q[rq.len++] = (int64_t)k;

	while (rq.len > 0 && rc == GC_OK) {
		int64_t k = rq.q[rq.head];
		int r = (int)(k / ns), c = (int)(k % ns);
		uint64_t len;
		const gs_step *steps = gs_sched_strand(s, r, c, &len);
		bool blocked = false;

		rq.head = (rq.head + 1) % nstr;
		rq.len--;
		for (int q = 0; q < w->quantum && pos[k] < len; q++) {
			const gs_step *st = &steps[pos[k]];
			void *R = NULL, *send = NULL;

			if (ops->check) {
				rc = ops->check(w->ctx, r, c, pos[k], st);
				if (rc != GC_OK)
					break;
			}
			if (st->op == GS_OP_WAIT) {
				gs_wslot *sl = ops->slot(w->ctx, r, st->src_off);

				if (sl->count < st->bytes) {
					w->wait_next[k] = sl->waiter;
					sl->waiter = k;
					blocked = true;
					break;
				}
				if (ops->waited)
					ops->waited(w->ctx, k, sl, st);
				pos[k]++;
				continue;
			}
			if (st->op == GS_OP_SIGNAL) {
				gs_wslot *sl = ops->slot(w->ctx, st->send_peer, st->dst_off);

				sl->count++;
				if (ops->signalled)
					ops->signalled(w->ctx, r, c, st, sl);
				/* wake every waiter; each re-checks its threshold */
				for (int64_t wk = sl->waiter, nx; wk >= 0; wk = nx) {
					nx = w->wait_next[wk];
					w->wait_next[wk] = -1;
					gs_runq_push(&rq, wk);
				}
				sl->waiter = -1;
				pos[k]++;
				continue;
			}
			if (gs_op_recvs(st->op)) {
				gs_wconn *cn = gs_walk_conn(w, st->recv_peer, r, c);
				gs_wmsg *m = g_queue_pop_head(&cn->q);

				if (!m) {
					cn->waiter = k;
					blocked = true;
					break;
				}
				if (m->bytes != st->bytes) {
					fail->why = GS_WALK_MISMATCH;
					fail->rank = r;
					fail->strand = c;
					fail->step = pos[k];
					fail->st = st;
					fail->msg = *m;
					fail->msg.data = NULL;
					g_free(m->data);
					g_free(m);
					rc = GC_ERR_INPUT;
					break;
				}
				R = m->data;
				g_free(m);
			}
			rc = ops->exec(w->ctx, r, c, pos[k], st, R, &send);
			if (rc != GC_OK)
				break;
			if (gs_op_sends(st->op) && !gs_op_one_sided(st->op)) {
				gs_wconn *cn = gs_walk_conn(w, r, st->send_peer, c);
				gs_wmsg *m = g_new(gs_wmsg, 1);

				m->bytes = st->bytes;
				m->step = pos[k];
				m->strand = c;
				m->data = send;
				g_queue_push_tail(&cn->q, m);
				if (cn->waiter >= 0) {
					gs_runq_push(&rq, cn->waiter);
					cn->waiter = -1;
				}
			} else {
				g_free(send);
			}
			pos[k]++;
		}
		if (rc == GC_OK && !blocked && pos[k] < len)
			gs_runq_push(&rq, k);
	}

	if (rc == GC_OK)
		rc = gs_walk_stuck(w, pos, fail);
	if (rc == GC_OK)
		rc = gs_walk_unreceived(w, fail);
	g_free(pos);
	g_free(rq.q);
	return rc;
}
