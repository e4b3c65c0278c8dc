/* SPDX-License-Identifier: MIT */
/*
 * gs_moe: MoE expert-parallel dispatch and combine as one-sided schedules,
 * in the shape of DeepEP's low-latency kernels (every token-expert pair is
 * its own message, written straight into the receiver's buffer, GPU-
 * initiated).
 *
 * Routing (gs_moe_map): each of the n ranks holds T tokens; token t of rank
 * r picks K distinct experts of E, uniformly, from a splitmix64 stream
 * seeded by (seed, r, t) -- the same draw on every executor. Expert x lives
 * on rank x / (E / n). Rank d's receive buffer holds the messages routed to
 * it in (source rank, token, k) order: message (r, t, k) is slot
 * slot(r, t, k) of its destination; recv(d) slots are used, and every
 * rank's buffer has room for the largest recv.
 *
 * dispatch: INPUT = T messages (token t at t M, M = message bytes),
 *   OUTPUT = max recv slots. Message (r, t, k) is INPUT token t of r into
 *   OUTPUT slot slot(r, t, k) of dst(r, t, k).
 * combine: the way back. INPUT = max recv slots (the expert outputs, where
 *   dispatch left their tokens), OUTPUT = T K messages. Slot j of rank d,
 *   holding (r, t, k), goes into OUTPUT message t K + k of rank r (the
 *   weighted sum over k is local work after the communication).
 *
 * Schedule (strands_per_channel = 2, nstrands = 2C, nsignals = 1):
 *   strand 2c   the messages of channel c: dispatch, the tokens t = c mod C
 *               in order, each with its K messages; combine, every C-th
 *               slot of the rank's order, which takes one slot for each
 *               destination rank in turn, starting with the next rank. A
 *               message to another rank is PUT (in pieces of at most SE
 *               elements), one to the rank itself a COPY; then one SIGNAL
 *               of slot 0 to every other rank the strand wrote to, in
 *               increasing rank order, after its PUTs on the same
 *               connection
 *   strand 1    one WAIT for slot 0 >= the number of (rank, channel) pairs
 *               that write to this rank (none when no other rank does)
 * The other channels' second strands are empty. As for the put all-to-all
 * (gs_a2a.c), the WAIT completes exactly when every message has landed,
 * and PUTs take no receive credit, so no buffering argument is needed.
 *
 * The per-strand tables (message order, signal targets) are built once, so
 * fill() locates a step in O(log) and walks it in O(1) per step.
 */
#include <string.h>

#include <glib.h>

#include "gs_impl.h"

/* splitmix64 (Steele, Lea & Flood 2014): a 64-bit mix with full period. */
static uint64_t gs_mix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

gc_status gs_moe_map_build(const gs_params *p, gs_moe_map *m, char **errmsg)
{
	memset(m, 0, sizeof(*m));
	const uint64_t n = (uint64_t)p->nranks, T = p->moe_tokens, K = p->moe_topk, E = p->moe_experts;
	const uint64_t el = gs_dtype_size(p->dtype);

	if (T < 1 || K < 1 || E < 1 || K > E || E % n != 0) {
		*errmsg = g_strdup_printf("dispatch/combine need tokens >= 1, 1 <= topk <= experts and "
					  "experts a multiple of the %llu ranks (tokens %llu, topk %llu, "
					  "experts %llu)",
					  (unsigned long long)n, (unsigned long long)T,
					  (unsigned long long)K, (unsigned long long)E);
		return GC_ERR_INPUT;
	}
	const uint64_t P = p->ranks_per_node > 0 ? (uint64_t)p->ranks_per_node : n;
	const uint64_t N = n % P == 0 ? n / P : 1;
	const uint64_t M = p->moe_max_nodes > 0 ? MIN((uint64_t)p->moe_max_nodes, N) : N;
	if (n % P != 0 || (M < N && K > M * (E / N))) {
		*errmsg = g_strdup_printf("dispatch/combine: a token limited to %llu of %llu nodes "
					  "reaches %llu experts, fewer than its top-%llu",
					  (unsigned long long)M, (unsigned long long)N,
					  (unsigned long long)(M * (E / N)), (unsigned long long)K);
		return GC_ERR_INPUT;
	}
	if (n * T * K > GS_MOE_MAX_MESSAGES) {
		*errmsg = g_strdup_printf("dispatch/combine: %llu ranks x %llu tokens x top-%llu = %llu "
					  "messages, above the limit of %llu",
					  (unsigned long long)n, (unsigned long long)T,
					  (unsigned long long)K, (unsigned long long)(n * T * K),
					  (unsigned long long)GS_MOE_MAX_MESSAGES);
		return GC_ERR_INPUT;
	}
	m->n = (int)n;
	m->P = (int)P;
	m->fwd = p->algo == GS_ALGO_FORWARD;
	m->T = (uint32_t)T;
	m->K = (uint32_t)K;
	m->me = p->bytes / el;
	m->dst = g_new(int32_t, n * T * K);
	m->lexp = p->algo == GS_ALGO_PPLX ? g_new(uint32_t, n * T * K) : NULL;
	m->slot = g_new(uint32_t, n * T * K);
	m->recv = g_new0(uint32_t, n);
	uint64_t per = E / n, EN = E / N;
	bool *taken = g_new0(bool, E), *ntaken = g_new0(bool, N);
	uint64_t *pk = g_new(uint64_t, K), *nodes = g_new(uint64_t, M);
	for (uint64_t r = 0; r < n; r++) {
		for (uint64_t t = 0; t < T; t++) {
			/* the stream of token t of rank r */
			uint64_t x = p->moe_seed ^ (r * UINT64_C(0x100000001b3) + t) * UINT64_C(0x9e3779b97f4a7c15);
			/* node-limited: M distinct nodes first, then the experts
			 * among their M E / N, the first min(K, M) one on each node
			 * (a node is chosen for its best expert's score, which
			 * then is among the token's top K) */
			for (uint64_t j = 0; M < N && j < M; j++) {
				uint64_t b;
				do
					b = gs_mix64(&x) % N;
				while (ntaken[b]);
				ntaken[b] = true;
				nodes[j] = b;
			}
			for (uint64_t k = 0; k < K; k++) {
				uint64_t e;
				do {
					e = gs_mix64(&x) % (M < N ? (k < M ? EN : M * EN) : E);
					if (M < N)
						e = k < M ? nodes[k] * EN + e : nodes[e / EN] * EN + e % EN;
				} while (taken[e]);
				taken[e] = true;
				pk[k] = e;
				m->dst[(r * T + t) * K + k] = (int32_t)(e / per);
				if (m->lexp)
					m->lexp[(r * T + t) * K + k] = (uint32_t)(e % per);
			}
			for (uint64_t k = 0; k < K; k++)
				taken[pk[k]] = false;
			for (uint64_t j = 0; M < N && j < M; j++)
				ntaken[nodes[j]] = false;
		}
	}
	g_free(nodes);
	g_free(ntaken);
	g_free(pk);
	g_free(taken);
	/* forward: each token's distinct destination ranks, increasing */
	if (m->fwd) {
		m->tset_off = g_new(uint64_t, n * T + 1);
		m->tset = g_new(int32_t, n * T * K);
		uint64_t cnt = 0;
		for (uint64_t i = 0; i < n * T; i++) {
			m->tset_off[i] = cnt;
			for (uint64_t k = 0; k < K; k++) {
				int32_t d = m->dst[i * K + k];
				uint64_t j = cnt;
				while (j > m->tset_off[i] && m->tset[j - 1] > d)
					j--;
				if (j > m->tset_off[i] && m->tset[j - 1] == d)
					continue;
				memmove(&m->tset[j + 1], &m->tset[j], (cnt - j) * sizeof(int32_t));
				m->tset[j] = d;
				cnt++;
			}
		}
		m->tset_off[n * T] = cnt;
	}
	/* slots in (source, token, k) order at each destination */
	for (uint64_t i = 0; i < n * T * K; i++)
		m->slot[i] = m->recv[m->dst[i]]++;
	for (uint64_t d = 0; d < n; d++)
		m->maxrecv = MAX(m->maxrecv, m->recv[d]);
	/* the inverse: slot j of rank d holds message src_of[off[d] + j] */
	m->off = g_new(uint64_t, n + 1);
	m->off[0] = 0;
	for (uint64_t d = 0; d < n; d++)
		m->off[d + 1] = m->off[d] + m->recv[d];
	m->src_of = g_new(uint64_t, n * T * K);
	for (uint64_t i = 0; i < n * T * K; i++)
		m->src_of[m->off[m->dst[i]] + m->slot[i]] = i;
	return GC_OK;
}

void gs_moe_map_free(gs_moe_map *m)
{
	g_free(m->dst);
	g_free(m->lexp);
	g_free(m->slot);
	g_free(m->recv);
	g_free(m->off);
	g_free(m->src_of);
	g_free(m->tset_off);
	g_free(m->tset);
	memset(m, 0, sizeof(*m));
}

/* Does token (s, t) go to rank d (forward)? */
static bool gs_moe_fwd_has(const gs_moe_map *m, int s, uint64_t t, int32_t d)
{
	uint64_t i = (uint64_t)s * m->T + t;
	for (uint64_t j = m->tset_off[i]; j < m->tset_off[i + 1]; j++)
		if (m->tset[j] == d)
			return true;
	return false;
}

int gs_moe_expect(const gs_moe_map *m, gs_coll coll, int r, uint64_t e, int32_t *src, uint64_t *idx)
{
	if (m->me == 0)
		return 0;
	uint64_t q = e / m->me, o = e % m->me;
	uint64_t T = m->T, K = m->K;
	if (m->fwd && coll == GS_COLL_DISPATCH) {
		/* slot q = s T + t holds token t of rank s where it went */
		int s = (int)(q / T);
		if (!gs_moe_fwd_has(m, s, q % T, r))
			return 0;
		src[0] = s;
		*idx = q % T * m->me + o;
		return 1;
	}
	if (m->fwd) {
		/* token q of rank r: the partial results of every rank it went
		 * to, each in that rank's slot r T + q */
		uint64_t i = (uint64_t)r * T + q;
		int cnt = 0;
		for (uint64_t j = m->tset_off[i]; j < m->tset_off[i + 1]; j++)
			src[cnt++] = m->tset[j];
		*idx = i * m->me + o;
		return cnt;
	}
	if (coll == GS_COLL_DISPATCH) {
		if (q >= m->recv[r])
			return 0; /* a slot no message uses */
		uint64_t i = m->src_of[m->off[r] + q];
		src[0] = (int)(i / (T * K));
		*idx = (i / K % T) * m->me + o;
		return 1;
	}
	/* combine: message q = t K + k of rank r came from slot(r, t, k) of dst */
	uint64_t i = (uint64_t)r * T * K + q;
	src[0] = m->dst[i];
	*idx = (uint64_t)m->slot[i] * m->me + o;
	return 1;
}

typedef struct gs_moe {
	gs_coll coll;
	int64_t n, nch;
	uint64_t elem, se, pieces;
	gs_moe_map map;
	/* per (rank, channel): the sender-order indices of its messages, and
	 * the other ranks it signals (CSR) */
	uint64_t *msg_off, *msg;
	uint64_t *sig_off;
	int32_t *sig;
	uint32_t *wait; /* per rank: SIGNALs it waits for */
} gs_moe;

/* Destination rank and slot (dispatch: the destination's OUTPUT slot;
 * combine: the source's OUTPUT message) of message i in rank r's order,
 * and the sender's own message index (its INPUT position). */
static void gs_moe_msg(const gs_moe *mo, int64_t r, uint64_t i, int32_t *dst, uint64_t *dst_q,
		       uint64_t *src_q)
{
	const gs_moe_map *m = &mo->map;
	uint64_t TK = (uint64_t)m->T * m->K;
	if (mo->coll == GS_COLL_DISPATCH) {
		uint64_t g = (uint64_t)r * TK + i;
		*dst = m->dst[g];
		*dst_q = m->slot[g];
		*src_q = i / m->K; /* the token */
		return;
	}
	uint64_t g = m->src_of[m->off[r] + i];
	*dst = (int32_t)(g / TK);
	*dst_q = g % TK;
	*src_q = i; /* the slot */
}

/* Rank r's messages (sender-order indices) in the order it sends them;
 * returns how many. */
static uint64_t gs_moe_order(const gs_moe *mo, uint64_t r, uint64_t *order)
{
	const gs_moe_map *m = &mo->map;
	const uint64_t n = (uint64_t)mo->n, TK = (uint64_t)m->T * m->K;
	uint64_t cnt = 0;
	if (mo->coll == GS_COLL_DISPATCH) {
		for (uint64_t i = 0; i < TK; i++)
			order[cnt++] = i;
		return cnt;
	}
	/* slots are source-major: the source's slots are one range */
	uint64_t *first = g_new0(uint64_t, n + 1);
	for (uint64_t j = 0; j < m->recv[r]; j++)
		first[m->src_of[m->off[r] + j] / TK + 1]++;
	for (uint64_t s = 0; s < n; s++)
		first[s + 1] += first[s];
	/* one message to each rank in turn, starting with the next rank */
	uint64_t most = 0;
	for (uint64_t s = 0; s < n; s++)
		most = MAX(most, first[s + 1] - first[s]);
	for (uint64_t i = 0; i < most; i++)
		for (uint64_t q = 1; q <= n; q++) {
			uint64_t src = (r + q) % n;
			if (first[src] + i < first[src + 1])
				order[cnt++] = first[src] + i;
		}
	g_free(first);
	return cnt;
}

static uint64_t gs_moe_strand_len(const gs_gen *g, int rank, int ch)
{
	const gs_moe *mo = g->priv;
	if (ch % 2 == 1)
		return ch == 1 && mo->wait[rank] > 0 ? 1 : 0;
	uint64_t k = (uint64_t)rank * (uint64_t)mo->nch + (uint64_t)(ch / 2);
	return (mo->msg_off[k + 1] - mo->msg_off[k]) * mo->pieces + (mo->sig_off[k + 1] - mo->sig_off[k]);
}

static void gs_moe_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n, gs_step *out)
{
	const gs_moe *mo = g->priv;
	const uint64_t el = mo->elem, me = mo->map.me;
	uint64_t k = (uint64_t)rank * (uint64_t)mo->nch + (uint64_t)(ch / 2);
	uint64_t nmsg = mo->msg_off[k + 1] - mo->msg_off[k];

	for (uint32_t s = 0; s < n; s++) {
		uint64_t i = first + s;
		gs_step *st = &out[s];
		gs_step_clear(st);
		if (ch % 2 == 1) {
			st->op = GS_OP_WAIT;
			st->src_off = 0;
			st->bytes = mo->wait[rank];
			continue;
		}
		if (i >= nmsg * mo->pieces) {
			st->op = GS_OP_SIGNAL;
			st->send_peer = mo->sig[mo->sig_off[k] + (i - nmsg * mo->pieces)];
			st->dst_off = 0;
			st->bytes = 8;
			continue;
		}
		uint64_t j = i / mo->pieces, piece = i % mo->pieces;
		int32_t dst;
		uint64_t dq, sq;
		gs_moe_msg(mo, rank, mo->msg[mo->msg_off[k] + j], &dst, &dq, &sq);
		uint64_t po = piece * mo->se, len = MIN(mo->se, me - po);
		st->src_off = (sq * me + po) * el;
		st->dst_off = (dq * me + po) * el;
		st->bytes = len * el;
		if (dst == rank) {
			st->op = GS_OP_COPY;
		} else {
			st->op = GS_OP_PUT;
			st->send_peer = dst;
		}
	}
}

static void gs_moe_destroy(gs_gen *g)
{
	gs_moe *mo = g->priv;

	if (mo) {
		gs_moe_map_free(&mo->map);
		g_free(mo->msg_off);
		g_free(mo->msg);
		g_free(mo->sig_off);
		g_free(mo->sig);
		g_free(mo->wait);
		g_free(mo);
	}
	g->priv = NULL;
}

static const gs_gen_ops gs_moe_ops = {
	.strand_len = gs_moe_strand_len,
	.fill = gs_moe_fill,
	.destroy = gs_moe_destroy,
};

gc_status gs_moe_init(gs_gen *g, char **errmsg)
{
	const gs_params *p = &g->p;

	if (p->algo != GS_ALGO_PUT) {
		*errmsg = g_strdup_printf("%s runs as put (one-sided, GPU-initiated), not %s",
					  gs_coll_name(p->coll), gs_algo_name(p->algo));
		return GC_ERR_INPUT;
	}
	gs_moe *mo = g_new0(gs_moe, 1);
	g->priv = mo;
	g->ops = &gs_moe_ops;
	gc_status st = gs_moe_map_build(p, &mo->map, errmsg);
	if (st != GC_OK) {
		gs_moe_destroy(g);
		g->ops = NULL;
		return st;
	}
	const gs_moe_map *m = &mo->map;
	const uint64_t n = (uint64_t)p->nranks, C = (uint64_t)p->nchannels;
	const uint64_t TK = (uint64_t)m->T * m->K;
	mo->coll = p->coll;
	mo->n = p->nranks;
	mo->nch = p->nchannels;
	mo->elem = gs_dtype_size(p->dtype);
	mo->se = MAX(p->slice_bytes / mo->elem, (uint64_t)1);
	mo->pieces = gs_divup(m->me, mo->se);
	/* messages per (rank, channel), in the sender's order: dispatch, by
	 * token (its K messages on the token's channel); combine, one slot for
	 * each rank in turn, starting with the next rank -- the concurrent
	 * senders of a GPU return to many ranks at once, as DeepEP's warp
	 * groups (one per local expert) do, and the GPUs start at different
	 * ranks -- dealt to the channels in turn */
	uint64_t *order = g_new(uint64_t, MAX(TK, (uint64_t)m->maxrecv) + 1);
	mo->msg_off = g_new0(uint64_t, n * C + 1);
	mo->msg = g_new(uint64_t, mo->coll == GS_COLL_DISPATCH ? n * TK + 1 : m->off[n] + 1);
	uint64_t *cnt_c = g_new(uint64_t, C);
	for (uint64_t pass = 0; pass < 2; pass++) {
		for (uint64_t r = 0; r < n; r++) {
			uint64_t cnt = gs_moe_order(mo, r, order);
			memset(cnt_c, 0, C * sizeof(uint64_t));
			for (uint64_t i = 0; i < cnt; i++) {
				uint64_t c = (mo->coll == GS_COLL_DISPATCH ? order[i] / m->K : i) % C;
				if (pass == 0)
					mo->msg_off[r * C + c + 1]++;
				else
					mo->msg[mo->msg_off[r * C + c] + cnt_c[c]++] = order[i];
			}
		}
		for (uint64_t k = 0; pass == 0 && k < n * C; k++)
			mo->msg_off[k + 1] += mo->msg_off[k];
	}
	g_free(cnt_c);
	g_free(order);
	/* signal targets per (rank, channel), increasing, and wait counts */
	mo->sig_off = g_new0(uint64_t, n * C + 1);
	mo->wait = g_new0(uint32_t, n);
	GArray *sig = g_array_new(FALSE, FALSE, sizeof(int32_t));
	uint8_t *hit = g_new0(uint8_t, n);
	for (uint64_t k = 0; k < n * C; k++) {
		uint64_t r = k / C;
		for (uint64_t j = mo->msg_off[k]; j < mo->msg_off[k + 1]; j++) {
			int32_t dst;
			uint64_t dq, sq;
			gs_moe_msg(mo, (int64_t)r, mo->msg[j], &dst, &dq, &sq);
			if ((uint64_t)dst != r)
				hit[dst] = 1;
		}
		for (uint64_t d = 0; d < n; d++) {
			if (!hit[d])
				continue;
			int32_t v = (int32_t)d;
			g_array_append_val(sig, v);
			mo->wait[d]++;
			hit[d] = 0;
		}
		mo->sig_off[k + 1] = sig->len;
	}
	g_free(hit);
	mo->sig = (int32_t *)(void *)g_array_free(sig, FALSE);
	g->nstrands = 2 * p->nchannels;
	g->strands_per_channel = 2;
	uint64_t slots = (uint64_t)m->maxrecv * m->me * mo->elem;
	uint64_t tok = mo->coll == GS_COLL_DISPATCH ? (uint64_t)m->T : TK;
	g->buf_bytes[GS_BUF_INPUT] = mo->coll == GS_COLL_DISPATCH ? tok * m->me * mo->elem : slots;
	g->buf_bytes[GS_BUF_OUTPUT] = mo->coll == GS_COLL_DISPATCH ? slots : tok * m->me * mo->elem;
	g->buf_bytes[GS_BUF_SCRATCH] = 0;
	g->nsignals = 1;
	return GC_OK;
}

void gs_tstep_fill(const gs_tstep *fs, uint32_t n, uint64_t tb, gs_step *out)
{
	for (uint32_t i = 0; i < n; i++) {
		const gs_tstep *x = &fs[i];
		gs_step *st = &out[i];
		switch (x->op) {
		case GS_OP_SIGNAL:
			gs_step_clear(st);
			st->op = GS_OP_SIGNAL;
			st->send_peer = x->send;
			st->dst_off = x->b;
			st->bytes = 8;
			break;
		case GS_OP_WAIT:
			gs_step_clear(st);
			st->op = GS_OP_WAIT;
			st->src_off = x->a;
			st->bytes = x->b;
			break;
		case GS_OP_PUT:
			gs_step_clear(st);
			st->op = GS_OP_PUT;
			st->send_peer = x->send;
			st->src_buf = x->sbuf;
			st->src_off = x->a * tb;
			st->dst_buf = x->dbuf;
			st->dst_off = x->b * tb;
			st->bytes = tb;
			break;
		default:
			gs_step_set(st, (gs_op)x->op, x->send, x->recv, x->sbuf, x->a * tb, x->dbuf,
				    x->b * tb, tb);
			break;
		}
	}
}
