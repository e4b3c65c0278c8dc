/* SPDX-License-Identifier: MIT */
/*
 * gs_pplx: MoE dispatch and combine in the shape of pplx-kernels' internode
 * all-to-all (ppl-ai/pplx-kernels csrc/all_to_all/internode_dispatch.cu and
 * internode_combine.cu, NVSHMEM put-with-signal): every token-expert
 * message is one put followed by its own signal, the receiver learns how
 * many tokens to expect from per-expert count signals, and combine opens
 * with a sync flag from every rank to every rank.
 *
 * Routing is gs_moe_map's (the same draw as put), with the expert of each
 * message among its destination's kept (lexp), and so are the buffers:
 *   dispatch INPUT T messages (token t at slot t), OUTPUT the receiver's
 *            slots in (source, token, k) order;
 *   combine  INPUT the slots dispatch left, OUTPUT T K messages (message
 *            t K + k of the source).
 * A message to the rank itself is a COPY and takes no signal (NVSHMEM's put
 * to its own PE is a local copy, which pplx's receiver finds after its grid
 * barrier; here a rank ends after all its strands, so no step stands for
 * the barrier). Messages go whole, not in slices, as pplx puts a token in
 * one call. The staging copies into pplx's symmetric send buffers and the
 * receiver's copies into the experts' own layout are local work and not
 * steps.
 * n ranks, T tokens per rank, top K of E experts, L = E / n per rank, C =
 * nchannels standing for the GPU's SMs (pplx's grid is at most numSMs
 * blocks, one per SM); strands_per_channel 1: every strand is a warp (or a
 * thread) that posts on its own, and its own channel, so that two warps of
 * a block never share a connection.
 *
 * dispatch (NUM_WARPS 10: nine token warps and a count warp per block):
 *   G = min(max(ceil(E / 10), T K), C) blocks, W = min(K, 9) token warps
 *   that have work, S = W + 1 strands per block, G S + 1 strands;
 *   nsignals 2 L n = 2 E: count slot l n + s and token slot L n + l n + s
 *   for local expert l and source rank s (numTokensBuffer and
 *   numRecvBuffer, group l numDPGroups + s with DP size 1).
 *   strand b S + j (token warp j of block b): the tokens t = b, b + G, ...
 *     (pplx: t mod gridDim = blockIdx), for each its experts k = j, j + 9,
 *     ... (one put per warp, the nine warps in turn): PUT INPUT t into the
 *     destination's OUTPUT slot, then SIGNAL its token slot
 *     (nvshmemx_putmem_signal_nbi_warp with SIGNAL_ADD 1; no dedup when two
 *     of a token's experts are on one rank); COPY for the rank itself
 *   strand b S + W (the count warp of block b): the experts x = b, b + G,
 *     ...: SIGNAL the count slot of x's rank (nvshmemx_signal_op SET of
 *     count + 1, zero counts included: a SET of a non-zero value into a
 *     cleared slot is one increment and a WAIT for 1 here), none to itself
 *   strand G S (the receiver): per local expert l and other rank s, WAIT
 *     its count slot >= 1, then its token slot >= the tokens s routed to
 *     l here (nvshmem_uint64_wait_until NE 0, then EQ count), skipped when
 *     there are none
 * combine (NUM_WARPS 16, DP size 1: only warp 0 of a block sends):
 *   G = min(C, L n T) blocks, G + n + 1 strands; nsignals T + n: slot t
 *   counts token t's returns (combineSignalBuffer), slot T + s is rank s's
 *   sync flag (combineSyncBuffer).
 *   strand b (warp 0 of block b): the received tokens in pplx's order --
 *     by local expert, then source rank, then (token, k) -- at positions b,
 *     b + G, ... (token = blockIdx; += gridDim): PUT the slot into message
 *     t K + k of its source's OUTPUT, then SIGNAL the source's slot t
 *     (putmem_signal_nbi_warp, SIGNAL_ADD 1); COPY for the rank itself
 *   strand G + i (the grid's thread i): SIGNAL slot T + r of rank i (SET 1
 *     of its flag on every rank, each from its own thread); empty for i = r
 *   strand G + n (the receiver): per own token t, WAIT slot t >= its
 *     experts on other ranks (wait_until EQ topk, the local ones copied),
 *     then per other rank s WAIT slot T + s >= 1
 * Every PUT is followed on its connection by its SIGNAL, whose slot the
 * receiver waits for to its full count, so a WAIT settles every PUT it
 * covers and the schedule cannot deadlock (signals never wait).
 *
 * The steps are built once, strand by strand, into one CSR of compact
 * records (gs_moefwd's scheme): fill() is a lookup.
 */
#include <string.h>

#include <glib.h>

#include "gs_impl.h"

/* pplx's dispatch warps per block (the last one sends the counts) */
#define GS_PPLX_DISPATCH_WARPS 10

/* A compact step (slot numbers a, b; SIGNAL: b = slot; WAIT: a = slot,
 * b = count). */
typedef gs_tstep pstep;

typedef struct gs_pplx {
	gs_moe_map map;
	gs_coll coll;
	uint64_t el, tb; /* element and message bytes */
	int64_t G, W;	 /* blocks; token warps per block (dispatch) */
	gsize built;
	uint64_t *off; /* per (rank, strand): CSR into steps */
	pstep *steps;
} gs_pplx;

static void gs_pplx_push(GArray *a, gs_op op, int32_t send, uint8_t sbuf, uint32_t sa,
			 uint8_t dbuf, uint32_t sb)
{
	pstep f = {.send = send, .recv = -1, .a = sa, .b = sb, .op = (uint8_t)op, .sbuf = sbuf, .dbuf = dbuf};
	g_array_append_val(a, f);
}

/* Close strand k: its steps end here. */
static void gs_pplx_close(const GArray *a, uint64_t *off, uint64_t k)
{
	off[k + 1] = a->len;
}

/* One message of rank r from INPUT slot src into OUTPUT slot dst of rank
 * d: a PUT and its SIGNAL of d's slot sig, or a COPY when d is r. */
static void gs_pplx_send(GArray *a, int64_t r, int32_t d, uint32_t src, uint32_t dst, uint32_t sig)
{
	if (d == r) {
		gs_pplx_push(a, GS_OP_COPY, -1, GS_BUF_INPUT, src, GS_BUF_OUTPUT, dst);
		return;
	}
	gs_pplx_push(a, GS_OP_PUT, d, GS_BUF_INPUT, src, GS_BUF_OUTPUT, dst);
	gs_pplx_push(a, GS_OP_SIGNAL, d, 0, 0, 0, sig);
}

static void gs_pplx_build_dispatch(const gs_gen *g, gs_pplx *pp, GArray *a)
{
	const gs_moe_map *m = &pp->map;
	const int64_t n = m->n, G = pp->G, W = pp->W, S = W + 1, ns = g->nstrands;
	const uint64_t T = m->T, K = m->K, E = g->p.moe_experts, L = E / (uint64_t)n;
	const uint64_t step = GS_PPLX_DISPATCH_WARPS - 1; /* token warps per block */
	const uint32_t tok0 = (uint32_t)E;		   /* the first token slot */
	uint32_t *cnt = g_new(uint32_t, E);
	for (int64_t r = 0; r < n; r++) {
		const uint64_t k0 = (uint64_t)(r * ns);
		for (int64_t b = 0; b < G; b++) {
			/* token warp j: its tokens' messages k = j, j + 9, ... */
			for (int64_t j = 0; j < W; j++) {
				for (uint64_t t = (uint64_t)b; t < T; t += (uint64_t)G)
					for (uint64_t k = (uint64_t)j; k < K; k += step) {
						uint64_t i = ((uint64_t)r * T + t) * K + k;
						uint32_t sig = tok0 + m->lexp[i] * (uint32_t)n + (uint32_t)r;
						gs_pplx_send(a, r, m->dst[i], (uint32_t)t, m->slot[i], sig);
					}
				gs_pplx_close(a, pp->off, k0 + (uint64_t)(b * S + j));
			}
			/* the count warp: one count per expert of its share */
			for (uint64_t x = (uint64_t)b; x < E; x += (uint64_t)G) {
				int32_t d = (int32_t)(x / L);
				if (d != r)
					gs_pplx_push(a, GS_OP_SIGNAL, d, 0, 0, 0,
						     (uint32_t)((x % L) * (uint64_t)n + (uint64_t)r));
			}
			gs_pplx_close(a, pp->off, k0 + (uint64_t)(b * S + W));
		}
		/* the receiver: tokens per (local expert, source) from the slots */
		memset(cnt, 0, E * sizeof(uint32_t));
		for (uint64_t j = m->off[r]; j < m->off[r + 1]; j++) {
			uint64_t i = m->src_of[j];
			cnt[m->lexp[i] * (uint64_t)n + i / (T * K)]++;
		}
		for (uint64_t l = 0; l < L; l++)
			for (int64_t s = 0; s < n; s++) {
				if (s == r)
					continue;
				uint32_t q = (uint32_t)(l * (uint64_t)n + (uint64_t)s);
				gs_pplx_push(a, GS_OP_WAIT, -1, 0, q, 0, 1);
				if (cnt[q] > 0)
					gs_pplx_push(a, GS_OP_WAIT, -1, 0, tok0 + q, 0, cnt[q]);
			}
		gs_pplx_close(a, pp->off, k0 + (uint64_t)(G * S));
	}
	g_free(cnt);
}

static void gs_pplx_build_combine(const gs_gen *g, gs_pplx *pp, GArray *a)
{
	const gs_moe_map *m = &pp->map;
	const int64_t n = m->n, G = pp->G, ns = g->nstrands;
	const uint64_t T = m->T, K = m->K, TK = T * K, L = g->p.moe_experts / (uint64_t)n;
	uint32_t *order = g_new(uint32_t, (uint64_t)m->maxrecv + 1);
	uint64_t *first = g_new(uint64_t, L + 1);
	for (int64_t r = 0; r < n; r++) {
		const uint64_t k0 = (uint64_t)(r * ns), nr = m->recv[r];
		const uint64_t *src = m->src_of + m->off[r];
		/* pplx's token order: by local expert (a counting sort of the
		 * slots, which are in (source, token, k) order already) */
		memset(first, 0, (L + 1) * sizeof(uint64_t));
		for (uint64_t j = 0; j < nr; j++)
			first[m->lexp[src[j]] + 1]++;
		for (uint64_t l = 0; l < L; l++)
			first[l + 1] += first[l];
		for (uint64_t j = 0; j < nr; j++)
			order[first[m->lexp[src[j]]]++] = (uint32_t)j;
		for (int64_t b = 0; b < G; b++) {
			for (uint64_t q = (uint64_t)b; q < nr; q += (uint64_t)G) {
				uint32_t j = order[q];
				uint64_t i = src[j];
				uint32_t msg = (uint32_t)(i % TK);
				gs_pplx_send(a, r, (int32_t)(i / TK), j, msg, msg / (uint32_t)K);
			}
			gs_pplx_close(a, pp->off, k0 + (uint64_t)b);
		}
		/* the sync flags, one thread each */
		for (int64_t i = 0; i < n; i++) {
			if (i != r)
				gs_pplx_push(a, GS_OP_SIGNAL, (int32_t)i, 0, 0, 0,
					     (uint32_t)(T + (uint64_t)r));
			gs_pplx_close(a, pp->off, k0 + (uint64_t)(G + i));
		}
		/* the receiver: each own token's returns from other ranks, then
		 * every other rank's flag */
		for (uint64_t t = 0; t < T; t++) {
			uint32_t want = 0;
			for (uint64_t k = 0; k < K; k++)
				want += m->dst[((uint64_t)r * T + t) * K + k] != r;
			if (want > 0)
				gs_pplx_push(a, GS_OP_WAIT, -1, 0, (uint32_t)t, 0, want);
		}
		for (int64_t s = 0; s < n; s++)
			if (s != r)
				gs_pplx_push(a, GS_OP_WAIT, -1, 0, (uint32_t)(T + (uint64_t)s), 0, 1);
		gs_pplx_close(a, pp->off, k0 + (uint64_t)(G + n));
	}
	g_free(first);
	g_free(order);
}

/* Every strand's steps, once, whichever thread asks first (the generator
 * stays immutable to its users). */
static void gs_pplx_build(const gs_gen *g)
{
	gs_pplx *pp = g->priv;
	if (!g_once_init_enter(&pp->built))
		return;
	GArray *a = g_array_new(FALSE, FALSE, sizeof(pstep));
	pp->off = g_new0(uint64_t, (uint64_t)pp->map.n * (uint64_t)g->nstrands + 1);
	if (pp->coll == GS_COLL_DISPATCH)
		gs_pplx_build_dispatch(g, pp, a);
	else
		gs_pplx_build_combine(g, pp, a);
	pp->steps = (pstep *)(void *)g_array_free(a, FALSE);
	g_once_init_leave(&pp->built, 1);
}

static uint64_t gs_pplx_strand_len(const gs_gen *g, int rank, int ch)
{
	const gs_pplx *pp = g->priv;
	gs_pplx_build(g);
	uint64_t k = (uint64_t)rank * (uint64_t)g->nstrands + (uint64_t)ch;
	return pp->off[k + 1] - pp->off[k];
}

static void gs_pplx_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n,
			 gs_step *out)
{
	const gs_pplx *pp = g->priv;
	gs_pplx_build(g);
	const pstep *fs = pp->steps + pp->off[(uint64_t)rank * (uint64_t)g->nstrands + (uint64_t)ch];
	gs_tstep_fill(fs + first, n, pp->tb, out);
}

static void gs_pplx_destroy(gs_gen *g)
{
	gs_pplx *pp = g->priv;

	if (pp) {
		gs_moe_map_free(&pp->map);
		g_free(pp->off);
		g_free(pp->steps);
		g_free(pp);
	}
	g->priv = NULL;
}

static const gs_gen_ops gs_pplx_ops = {
	.strand_len = gs_pplx_strand_len,
	.fill = gs_pplx_fill,
	.destroy = gs_pplx_destroy,
};

gc_status gs_pplx_init(gs_gen *g, char **errmsg)
{
	const gs_params *p = &g->p;
	gs_pplx *pp = g_new0(gs_pplx, 1);
	g->priv = pp;
	g->ops = &gs_pplx_ops;
	gc_status st = gs_moe_map_build(p, &pp->map, errmsg);
	if (st != GC_OK)
		goto fail;
	const gs_moe_map *m = &pp->map;
	const uint64_t n = (uint64_t)m->n, T = m->T, K = m->K, E = p->moe_experts;
	const uint64_t C = (uint64_t)p->nchannels;
	const bool disp = p->coll == GS_COLL_DISPATCH;
	pp->coll = p->coll;
	pp->el = gs_dtype_size(p->dtype);
	pp->tb = m->me * pp->el;
	st = GC_ERR_INPUT;
	/* slot numbers and signal slots are 32-bit in the compact steps */
	const uint64_t nsig = disp ? 2 * E : T + n;
	if (nsig > UINT32_MAX) {
		*errmsg = g_strdup_printf("%s (pplx): %llu signal slots per rank are too many",
					  gs_coll_name(p->coll), (unsigned long long)nsig);
		goto fail;
	}
	const uint64_t slots = MAX((uint64_t)m->maxrecv, T * K);
	if (pp->tb > 0 && slots > (UINT64_C(1) << 62) / pp->tb) {
		*errmsg = g_strdup_printf("%s (pplx): %llu messages of %llu B make buffers beyond "
					  "2^62 bytes",
					  gs_coll_name(p->coll), (unsigned long long)slots,
					  (unsigned long long)pp->tb);
		goto fail;
	}
	if (disp) {
		/* pplx's grid: enough blocks for every expert's count (ten per
		 * block) or every token-expert pair, at most one per SM */
		pp->G = (int64_t)MIN(MAX(gs_divup(E, GS_PPLX_DISPATCH_WARPS), T * K), C);
		pp->W = (int64_t)MIN(K, (uint64_t)GS_PPLX_DISPATCH_WARPS - 1);
	} else {
		pp->G = (int64_t)MIN(C, (E / n) * n * T);
		pp->W = 1;
	}
	const uint64_t ns = disp ? (uint64_t)(pp->G * (pp->W + 1) + 1) : (uint64_t)pp->G + n + 1;
	/* the executors keep state per (rank, strand) and number strands in
	 * 32 bits */
	if (ns * n > (UINT64_C(1) << 28)) {
		*errmsg = g_strdup_printf("%s (pplx): %llu ranks x %llu strands (warps and "
					  "threads that post) are too many",
					  gs_coll_name(p->coll), (unsigned long long)n,
					  (unsigned long long)ns);
		goto fail;
	}
	g->nstrands = (int)ns;
	g->strands_per_channel = 1;
	g->buf_bytes[GS_BUF_INPUT] = (disp ? T : (uint64_t)m->maxrecv) * pp->tb;
	g->buf_bytes[GS_BUF_OUTPUT] = (disp ? (uint64_t)m->maxrecv : T * K) * pp->tb;
	g->buf_bytes[GS_BUF_SCRATCH] = 0;
	g->nsignals = (uint32_t)nsig;
	return GC_OK;
fail:
	gs_pplx_destroy(g);
	g->ops = NULL;
	return st;
}
