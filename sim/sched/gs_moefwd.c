/* SPDX-License-Identifier: MIT */
/*
 * gs_moefwd: MoE dispatch and combine with NVLink forwarding, in the shape
 * of DeepEP's normal kernels (training and prefill): a token crosses the
 * network at most once per destination node, to the GPU with its own local
 * index there (the same rail), and that GPU hands it on over NVLink to
 * every GPU of its node the token goes to; combine reduces on the way back,
 * a node's partial results summed by the same forwarding GPU before the one
 * network transfer home.
 *
 * Routing is gs_moe_map's (node-limited with moe_max_nodes); what moves is
 * a token once per destination rank, not once per expert (the rank's
 * experts share the copy). Ranks r = a P + l: node a, local index l; N
 * nodes; tokens t of a channel c are those with t mod C = c; Q = moe_chunk.
 *
 * Buffers (slots of one token, me elements):
 *   dispatch INPUT  T slots, token t in slot t;
 *            OUTPUT n T slots, token t of rank s in slot s T + t of every
 *                   rank it goes to (the other slots stay unwritten);
 *            SCRATCH N T slots, the forwarder's: token t of rank a P + l in
 *                   slot a T + t of ranks b P + l on the nodes b it goes to.
 *   combine  INPUT  n T slots, the partial result for token t of rank s in
 *                   slot s T + t (where dispatch left the token);
 *            OUTPUT T slots, the sum of token t's partials over its ranks;
 *            SCRATCH N T slots, the forwarder's partial sums.
 *
 * dispatch (strands_per_channel 1, S = N + 2 strands per channel c; strand
 * c S + k; nsignals 1 + N C: slot 0 counts finished senders, slot
 * 1 + a C + c the chunks from node a on channel c):
 *   k = 0  network sender: per token, per other node b it goes to
 *          (increasing), PUT INPUT slot t into SCRATCH slot a T + t of rank
 *          b P + l; after every Q-th token to b, and after the last, SIGNAL
 *          slot 1 + a C + c of b P + l
 *   k = 1  local sender: per token, per rank d of its own node it goes to,
 *          PUT (COPY to itself) INPUT slot t into OUTPUT slot r T + t; then
 *          SIGNAL slot 0 of every other rank written; channel 0 ends with the
 *          rank's WAIT for slot 0 to reach its number of senders
 *   k = 2 + a'  forwarder of node a' (empty for the own node): per chunk j,
 *          WAIT slot 1 + a' C + c >= j, then per token of the chunk, per
 *          rank d of this node it goes to, PUT (COPY) SCRATCH slot a' T + t
 *          into OUTPUT slot s T + t (s = a' P + l); then SIGNAL slot 0 of
 *          every other rank written
 *
 * combine (two-sided; strands_per_channel 2: strand 2c the NVLink
 * contributor, 2c + 1 the forwarder). Work comes in keys (t, a'): token t
 * of rank s = a' P + l, whose forwarder on node b is f = b P + l. A key
 * has a position: the token's index u = t / C in its channel, and for a
 * home key (a' = b: f's own token) u + lag, lag = min(moe_chunk, the
 * channel's tokens), so that the other nodes' sums have had lag positions
 * to arrive. Keys are taken by position, forward keys (in increasing a')
 * before the home key of the same position.
 *   2c     per key in that order, per source s with a partial here that
 *          has another forwarder f: SEND INPUT slot s T + t to f
 *   2c + 1 per key with a partial on this node: the contributions of this
 *          node's ranks (its own INPUT as the operand L, the others received
 *          in increasing rank order) reduced into SCRATCH slot a' T + t and
 *          the sum sent home to s (the last receive is RECV_REDUCE_SEND); for
 *          its own tokens (a' = b, s = f) the node's contributions and then
 *          the other nodes' sums, in increasing node order, reduced into
 *          OUTPUT slot t
 * Every strand works through the keys in the same increasing order of
 * position,
 * and a key's sum at home needs only the same key's sums of the other
 * nodes, which need only their own node's contributions: no cycle, as long
 * as a connection holds the lag and one more token (gs_moefwd_buffer_ok;
 * the simulator refuses less).
 */
#include <string.h>

#include <glib.h>

#include "gs_impl.h"

/* A compact step: gs_step's fields for one token (slot numbers a, b). */
typedef gs_tstep fstep; /* src and dst slot; SIGNAL: b = slot; WAIT: a = slot, b = count */

typedef struct gs_mfw {
	gs_moe_map map;
	uint64_t el, me;
	/* the steps, built on first use (a closed-form run never asks) */
	gsize built;
	uint64_t *off; /* per (rank, strand): CSR into steps */
	fstep *steps;
} gs_mfw;

/* Append a step to the strand being built. */
static void push(GArray *a, gs_op op, int32_t send, int32_t recv, uint8_t sbuf, uint32_t sa,
		 uint8_t dbuf, uint32_t sb)
{
	fstep f = {.send = send, .recv = recv, .a = sa, .b = sb, .op = (uint8_t)op, .sbuf = sbuf,
		   .dbuf = dbuf};
	g_array_append_val(a, f);
}

/* The ranks of token (s, t) that are on node b: [*lo, *hi) of m->tset. */
static void on_node(const gs_moe_map *m, int64_t s, uint64_t t, int64_t b, uint64_t *lo,
		    uint64_t *hi)
{
	uint64_t i = (uint64_t)s * m->T + t;
	uint64_t j = m->tset_off[i], e = m->tset_off[i + 1];
	while (j < e && m->tset[j] / m->P < b)
		j++;
	*lo = j;
	while (j < e && m->tset[j] / m->P == b)
		j++;
	*hi = j;
}

/* Finish strand k of rank r: SIGNAL slot 0 of every rank in hit (cleared). */
static void signal_hit(GArray *a, uint8_t *hit, int64_t P, int64_t base, uint32_t *senders)
{
	for (int64_t j = 0; j < P; j++)
		if (hit[j]) {
			push(a, GS_OP_SIGNAL, (int32_t)(base + j), -1, 0, 0, 0, 0);
			senders[base + j]++;
			hit[j] = 0;
		}
}

static void build_dispatch(const gs_gen *g, gs_mfw *mf, GArray **st)
{
	const gs_moe_map *m = &mf->map;
	const int64_t n = m->n, P = m->P, N = n / P, C = g->p.nchannels, S = N + 2;
	const uint64_t T = m->T, Q = g->p.moe_chunk;
	uint64_t *cnt = g_new0(uint64_t, N);
	uint8_t *hit = g_new0(uint8_t, P);
	uint32_t *senders = g_new0(uint32_t, n);
	for (int64_t r = 0; r < n; r++) {
		const int64_t a = r / P, l = r % P;
		for (int64_t c = 0; c < C; c++) {
			GArray *net = st[(r * C + c) * S], *loc = st[(r * C + c) * S + 1];
			memset(cnt, 0, (size_t)N * sizeof(uint64_t));
			for (uint64_t t = (uint64_t)c; t < T; t += (uint64_t)C) {
				uint64_t i = (uint64_t)r * T + t;
				for (uint64_t j = m->tset_off[i]; j < m->tset_off[i + 1]; j++) {
					int64_t d = m->tset[j], b = d / P;
					if (b == a) {
						if (d == r)
							push(loc, GS_OP_COPY, -1, -1, GS_BUF_INPUT,
							     (uint32_t)t, GS_BUF_OUTPUT, (uint32_t)i);
						else
							push(loc, GS_OP_PUT, (int32_t)d, -1, GS_BUF_INPUT,
							     (uint32_t)t, GS_BUF_OUTPUT, (uint32_t)i);
						hit[d - a * P] |= d != r;
						continue;
					}
					/* first rank of node b for this token: one transfer */
					if (j > m->tset_off[i] && m->tset[j - 1] / P == b)
						continue;
					int32_t fw = (int32_t)(b * P + l);
					push(net, GS_OP_PUT, fw, -1, GS_BUF_INPUT, (uint32_t)t,
					     GS_BUF_SCRATCH, (uint32_t)((uint64_t)a * T + t));
					if (++cnt[b] % Q == 0)
						push(net, GS_OP_SIGNAL, fw, -1, 0, 0, 0,
						     (uint32_t)(1 + a * C + c));
				}
			}
			for (int64_t b = 0; b < N; b++)
				if (cnt[b] % Q != 0)
					push(net, GS_OP_SIGNAL, (int32_t)(b * P + l), -1, 0, 0, 0,
					     (uint32_t)(1 + a * C + c));
			signal_hit(loc, hit, P, a * P, senders);
		}
	}
	/* forwarders, from the sources' side (one pass over the routing): the
	 * tokens of s = a2 P + l that go to node b, at b P + l */
	uint8_t *hitn = g_new0(uint8_t, (size_t)n);
	for (int64_t s = 0; s < n; s++) {
		const int64_t a2 = s / P, l = s % P;
		for (int64_t c = 0; c < C; c++) {
			memset(cnt, 0, (size_t)N * sizeof(uint64_t));
			for (uint64_t t = (uint64_t)c; t < T; t += (uint64_t)C) {
				uint64_t i = (uint64_t)s * T + t, e = m->tset_off[i + 1];
				for (uint64_t lo = m->tset_off[i], hi; lo < e; lo = hi) {
					const int64_t b = m->tset[lo] / P, f = b * P + l;
					for (hi = lo; hi < e && m->tset[hi] / P == b; hi++)
						;
					if (b == a2)
						continue;
					GArray *fw = st[(f * C + c) * S + 2 + a2];
					if (cnt[b]++ % Q == 0)
						push(fw, GS_OP_WAIT, -1, -1, 0, (uint32_t)(1 + a2 * C + c), 0,
						     (uint32_t)((cnt[b] - 1) / Q + 1));
					uint32_t from = (uint32_t)((uint64_t)a2 * T + t), to = (uint32_t)i;
					for (uint64_t j = lo; j < hi; j++) {
						int64_t d = m->tset[j];
						if (d == f)
							push(fw, GS_OP_COPY, -1, -1, GS_BUF_SCRATCH, from,
							     GS_BUF_OUTPUT, to);
						else
							push(fw, GS_OP_PUT, (int32_t)d, -1, GS_BUF_SCRATCH, from,
							     GS_BUF_OUTPUT, to);
						hitn[d] |= d != f;
					}
				}
			}
			for (int64_t b = 0; b < N; b++)
				if (b != a2)
					signal_hit(st[((b * P + l) * C + c) * S + 2 + a2], hitn + b * P, P,
						   b * P, senders);
		}
	}
	g_free(hitn);
	/* every rank's last step: all its senders' SIGNALs in */
	for (int64_t r = 0; r < n; r++)
		if (senders[r] > 0)
			push(st[r * C * S + 1], GS_OP_WAIT, -1, -1, 0, 0, 0, senders[r]);
	g_free(senders);
	g_free(hit);
	g_free(cnt);
}

/* One key of combine at forwarder r (node b, local index l): token t of
 * s = a2 P + l, summed over its ranks on node b (and, home, the other
 * nodes' sums) -- see the header. from: room for P + N ranks. */
static void combine_key(const gs_moe_map *m, GArray *fw, int64_t r, uint64_t t, int64_t a2,
			int32_t *from)
{
	const int64_t P = m->P, b = r / P, l = r % P, s = a2 * P + l;
	const uint64_t T = m->T, i = (uint64_t)s * T + t;
	uint64_t lo, hi;
	on_node(m, s, t, b, &lo, &hi);
	const bool home = a2 == b;
	const uint32_t part = (uint32_t)i;
	const uint8_t abuf = home ? GS_BUF_OUTPUT : GS_BUF_SCRATCH;
	const uint32_t acc = home ? (uint32_t)t : (uint32_t)((uint64_t)a2 * T + t);
	/* the values to sum, in order: the own partial (as L), the node's
	 * others, then (home) the other nodes' sums */
	int nf = 0;
	bool own = false;
	for (uint64_t j = lo; j < hi; j++) {
		if (m->tset[j] == r)
			own = true;
		else
			from[nf++] = m->tset[j];
	}
	for (uint64_t j = m->tset_off[i]; home && j < m->tset_off[i + 1]; j++) {
		int64_t b2 = m->tset[j] / P;
		if (b2 != b && (j == m->tset_off[i] || m->tset[j - 1] / P != b2))
			from[nf++] = (int32_t)(b2 * P + l);
	}
	if (!own && nf == 0)
		return; /* nothing of this key on node b */
	if (nf == 0) { /* the own partial alone */
		if (home)
			push(fw, GS_OP_COPY, -1, -1, GS_BUF_INPUT, part, GS_BUF_OUTPUT, acc);
		else
			push(fw, GS_OP_SEND, (int32_t)s, -1, GS_BUF_INPUT, part, 0, 0);
		return;
	}
	for (int q = 0; q < nf; q++) {
		const bool first = q == 0, last = q == nf - 1;
		/* L: the own partial first, then the running sum */
		const uint8_t lb = first ? GS_BUF_INPUT : abuf;
		const uint32_t la = first ? part : acc;
		if (first && !own)
			push(fw, last && !home ? GS_OP_RECV_COPY_SEND : GS_OP_RECV, (int32_t)s, from[q],
			     0, 0, abuf, acc);
		else if (last && !home)
			push(fw, GS_OP_RECV_REDUCE_SEND, (int32_t)s, from[q], lb, la, 0, 0);
		else
			push(fw, GS_OP_RECV_REDUCE_COPY, -1, from[q], lb, la, abuf, acc);
	}
}

/* Tokens of channel c (t = c, c + C, ...) and the lag of its home keys:
 * moe_chunk positions, at most the channel's tokens (a longer lag orders
 * the keys no differently). */
static uint64_t chan_tokens(uint64_t T, uint64_t C, uint64_t c)
{
	return T > c ? (T - c + C - 1) / C : 0;
}

static uint64_t chan_lag(uint64_t T, uint64_t C, uint64_t c, uint64_t Q)
{
	return MIN(Q, chan_tokens(T, C, c));
}

typedef struct ckey {
	uint64_t key, slot;
} ckey;

static int ckey_cmp(const void *x, const void *y)
{
	const ckey *a = x, *b = y;
	return a->key < b->key ? -1 : a->key > b->key;
}

static void build_combine(const gs_gen *g, gs_mfw *mf, GArray **st)
{
	const gs_moe_map *m = &mf->map;
	const int64_t n = m->n, P = m->P, N = n / P, C = g->p.nchannels;
	const uint64_t T = m->T, Q = g->p.moe_chunk;
	/* what each rank holds: slots s T + t */
	uint64_t *hoff = g_new0(uint64_t, (size_t)n + 1);
	for (uint64_t i = 0; i < (uint64_t)n * T; i++)
		for (uint64_t j = m->tset_off[i]; j < m->tset_off[i + 1]; j++)
			hoff[m->tset[j] + 1]++;
	for (int64_t d = 0; d < n; d++)
		hoff[d + 1] += hoff[d];
	ckey *held = g_new(ckey, hoff[n] + 1);
	uint64_t *fill = g_memdup2(hoff, (size_t)n * sizeof(uint64_t));
	for (uint64_t i = 0; i < (uint64_t)n * T; i++)
		for (uint64_t j = m->tset_off[i]; j < m->tset_off[i + 1]; j++) {
			/* the forwarder's position of the key: channel-local index
			 * u, home keys Q later; forward keys before home ones */
			int64_t d = m->tset[j], s = (int64_t)(i / T);
			uint64_t t = i % T, u = t / (uint64_t)C;
			bool home = s / P == d / P;
			uint64_t lag = chan_lag(T, (uint64_t)C, t % (uint64_t)C, Q);
			uint64_t pos = (u + (home ? lag : 0)) * 2 + home;
			held[fill[d]++] = (ckey){
				.key = ((pos * (uint64_t)N + (uint64_t)(s / P)) * (uint64_t)P +
					(uint64_t)(s % P)) * (uint64_t)C + t % (uint64_t)C,
				.slot = i};
		}
	g_free(fill);
	int32_t *from = g_new(int32_t, (size_t)(P + N));
	for (int64_t r = 0; r < n; r++) {
		const int64_t b = r / P, l = r % P;
		/* the contributor: each partial to its forwarder b P + l(s),
		 * unless that is this rank, in the forwarders' order */
		qsort(held + hoff[r], hoff[r + 1] - hoff[r], sizeof(ckey), ckey_cmp);
		for (uint64_t h = hoff[r]; h < hoff[r + 1]; h++) {
			uint64_t i = held[h].slot, t = i % T;
			int64_t s = (int64_t)(i / T);
			if (s % P != l)
				push(st[(r * C + (int64_t)(t % (uint64_t)C)) * 2], GS_OP_SEND,
				     (int32_t)(b * P + s % P), -1, GS_BUF_INPUT, (uint32_t)i, 0, 0);
		}
	}
	/* the forwarders, position by position over every rank at once (one
	 * pass over the routing): at channel-local position u the forward
	 * keys (u, a2 != b) in increasing a2, then the home key of position
	 * u - lag, whose other nodes' sums have had lag positions to arrive */
	for (int64_t c = 0; c < C; c++) {
		const uint64_t Tc = chan_tokens(T, (uint64_t)C, (uint64_t)c);
		const uint64_t lag = chan_lag(T, (uint64_t)C, (uint64_t)c, Q);
		for (uint64_t u = 0; u < Tc + lag; u++) {
			const uint64_t t = u * (uint64_t)C + (uint64_t)c;
			for (int64_t s = 0; u < Tc && s < n; s++) {
				uint64_t i = (uint64_t)s * T + t;
				for (uint64_t j = m->tset_off[i]; j < m->tset_off[i + 1]; j++) {
					int64_t b = m->tset[j] / P;
					if (b == s / P || (j > m->tset_off[i] && m->tset[j - 1] / P == b))
						continue; /* home, or a node already keyed */
					int64_t f = b * P + s % P;
					combine_key(m, st[(f * C + c) * 2 + 1], f, t, s / P, from);
				}
			}
			if (u >= lag)
				for (int64_t r = 0; r < n; r++)
					combine_key(m, st[(r * C + c) * 2 + 1], r,
						    (u - lag) * (uint64_t)C + (uint64_t)c, r / P, from);
		}
	}
	g_free(from);
	g_free(held);
	g_free(hoff);
}

/* Every strand's steps into one CSR, once, whichever thread asks first
 * (the generator stays immutable to its users). */
static void mfw_build(const gs_gen *g)
{
	gs_mfw *f = g->priv;
	if (!g_once_init_enter(&f->built))
		return;
	const gs_moe_map *m = &f->map;
	const int64_t ns = (int64_t)m->n * g->nstrands;
	GArray **sa = g_new(GArray *, (size_t)ns);
	for (int64_t k = 0; k < ns; k++)
		sa[k] = g_array_new(FALSE, FALSE, sizeof(fstep));
	if (g->p.coll == GS_COLL_DISPATCH)
		build_dispatch(g, f, sa);
	else
		build_combine(g, f, sa);
	f->off = g_new(uint64_t, (size_t)ns + 1);
	f->off[0] = 0;
	for (int64_t k = 0; k < ns; k++)
		f->off[k + 1] = f->off[k] + sa[k]->len;
	f->steps = g_new(fstep, f->off[ns] + 1);
	for (int64_t k = 0; k < ns; k++) {
		if (sa[k]->len)
			memcpy(f->steps + f->off[k], sa[k]->data, sa[k]->len * sizeof(fstep));
		g_array_free(sa[k], TRUE);
	}
	g_free(sa);
	g_once_init_leave(&f->built, 1);
}

static uint64_t mfw_strand_len(const gs_gen *g, int rank, int ch)
{
	const gs_mfw *f = g->priv;
	mfw_build(g);
	uint64_t k = (uint64_t)rank * (uint64_t)g->nstrands + (uint64_t)ch;
	return f->off[k + 1] - f->off[k];
}

static void mfw_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n, gs_step *out)
{
	const gs_mfw *f = g->priv;
	mfw_build(g);
	const uint64_t tb = f->me * f->el;
	const gs_tstep *fs = f->steps + f->off[(uint64_t)rank * (uint64_t)g->nstrands + (uint64_t)ch];
	gs_tstep_fill(fs + first, n, tb, out);
}

static void mfw_destroy(gs_gen *g)
{
	gs_mfw *f = g->priv;

	if (f) {
		gs_moe_map_free(&f->map);
		g_free(f->off);
		g_free(f->steps);
		g_free(f);
	}
	g->priv = NULL;
}

static const gs_gen_ops gs_mfw_ops = {
	.strand_len = mfw_strand_len,
	.fill = mfw_fill,
	.destroy = mfw_destroy,
};

gc_status gs_moefwd_init(gs_gen *g, char **errmsg)
{
	const gs_params *p = &g->p;
	gs_mfw *f = g_new0(gs_mfw, 1);
	g->priv = f;
	g->ops = &gs_mfw_ops;
	gc_status st = gs_moe_map_build(p, &f->map, errmsg);
	if (st != GC_OK)
		goto fail;
	const gs_moe_map *m = &f->map;
	const int64_t n = m->n, P = m->P, N = n / P, C = p->nchannels;
	const uint64_t T = m->T;
	f->el = gs_dtype_size(p->dtype);
	f->me = m->me;
	const uint64_t tb = f->me * f->el;
	st = GC_ERR_INPUT;
	if ((uint64_t)n * T > UINT32_MAX) {
		*errmsg = g_strdup_printf("%s (forward): %lld ranks x %llu tokens are too many slots",
					  gs_coll_name(p->coll), (long long)n, (unsigned long long)T);
		goto fail;
	}
	if (tb > 0 && (uint64_t)n * T > (UINT64_C(1) << 62) / tb) {
		*errmsg = g_strdup_printf("%s (forward): %lld ranks x %llu tokens of %llu B make "
					  "buffers beyond 2^62 bytes",
					  gs_coll_name(p->coll), (long long)n, (unsigned long long)T,
					  (unsigned long long)tb);
		goto fail;
	}
	const bool disp = p->coll == GS_COLL_DISPATCH;
	const int64_t S = disp ? N + 2 : 2;
	g->nstrands = (int)(C * S);
	g->strands_per_channel = disp ? 1 : 2;
	g->buf_bytes[GS_BUF_INPUT] = (disp ? T : (uint64_t)n * T) * tb;
	g->buf_bytes[GS_BUF_OUTPUT] = (disp ? (uint64_t)n * T : T) * tb;
	g->buf_bytes[GS_BUF_SCRATCH] = (uint64_t)N * T * tb;
	g->nsignals = disp ? (uint32_t)(1 + N * C) : 0;
	return GC_OK;
fail:
	mfw_destroy(g);
	g->ops = NULL;
	return st;
}

bool gs_moefwd_buffer_ok(const gs_params *p, uint64_t buffer_bytes, uint64_t *need)
{
	uint64_t T = p->moe_tokens, C = (uint64_t)MAX(p->nchannels, 1);
	uint64_t Q = p->moe_chunk ? p->moe_chunk : GS_MOE_CHUNK_DEFAULT;
	*need = (MIN(Q, chan_tokens(T, C, 0)) + 1) * p->bytes;
	return p->algo != GS_ALGO_FORWARD || p->coll != GS_COLL_COMBINE || buffer_bytes >= *need;
}
