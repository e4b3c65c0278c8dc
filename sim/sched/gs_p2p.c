/* SPDX-License-Identifier: MIT */
/*
 * gs_p2p: the nccl-tests sendrecv pattern (sendrecv_perf: every rank r sends
 * its INPUT to (r + 1) % n and receives the INPUT of (r - 1 + n) % n into its
 * OUTPUT), as a streaming generator.
 *
 * The buffer's elements are split over the channels in contiguous parts
 * (channel c gets count / C elements, plus one for the first count % C
 * channels); each channel is one strand. A strand processes its part in
 * loops of min(CE, remaining) elements: it SENDs the loop's chunk as slices
 * of at most SE elements, then RECVs the matching chunk from its
 * predecessor, slice by slice. A rank therefore never has more than one
 * chunk (<= chunk_bytes) sent but not yet matched by a receive of its own,
 * so a connection needs at most one loop's worth of unconsumed data to make
 * progress. With one rank the strand is one COPY INPUT -> OUTPUT per slice.
 *
 * Streaming: every full loop has the same 2 * ceil(CE / SE) steps, so
 * fill() locates a step in O(1). Unused operand fields are canonical
 * (src = INPUT+0, dst = OUTPUT+0, peers -1).
 */
#include <string.h>

#include <glib.h>

#include "gs_sched.h"

gc_status gs_p2p_init(gs_gen *g, char **errmsg);

typedef struct gs_p2p {
	int64_t n, nch;
	uint64_t elem, count, ce, se;
} gs_p2p;

typedef struct gs_p2p_plan {
	const gs_p2p *pp;
	int32_t next, prev;
	int nslot;	/* ops per loop: 2, or 1 (COPY) for one rank */
	uint64_t cs, m; /* channel part: elements [cs, cs + m) */
	uint64_t nfull, last_sz;
	uint64_t s_full, s_last;
} gs_p2p_plan;

static uint64_t gs_divup(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

static void gs_p2p_plan_init(gs_p2p_plan *pl, const gs_p2p *pp, int rank, int ch)
{
	uint64_t nch = (uint64_t)pp->nch, c = (uint64_t)ch;
	uint64_t base = pp->count / nch, rem = pp->count % nch;

	memset(pl, 0, sizeof(*pl));
	pl->pp = pp;
	pl->next = (int32_t)((rank + 1) % pp->n);
	pl->prev = (int32_t)((rank - 1 + pp->n) % pp->n);
	pl->nslot = pp->n == 1 ? 1 : 2;
	pl->m = base + (c < rem);
	pl->cs = c * base + MIN(c, rem);
	pl->nfull = pl->m / pp->ce;
	pl->last_sz = pl->m % pp->ce;
	pl->s_full = gs_divup(pp->ce, pp->se);
	pl->s_last = gs_divup(pl->last_sz, pp->se);
}

static uint64_t gs_p2p_plan_len(const gs_p2p_plan *pl)
{
	return (uint64_t)pl->nslot * (pl->nfull * pl->s_full + pl->s_last);
}

static uint64_t gs_p2p_strand_len(const gs_gen *g, int rank, int ch)
{
	gs_p2p_plan pl;

	gs_p2p_plan_init(&pl, g->priv, rank, ch);
	return gs_p2p_plan_len(&pl);
}

static void gs_p2p_emit(const gs_p2p_plan *pl, uint64_t l, int t, uint64_t s, gs_step *st)
{
	const gs_p2p *pp = pl->pp;
	uint64_t sz = l < pl->nfull ? pp->ce : pl->last_sz;
	uint64_t off = (pl->cs + l * pp->ce + s * pp->se) * pp->elem;
	uint64_t len = MIN(pp->se, sz - s * pp->se) * pp->elem;

	memset(st, 0, sizeof(*st));
	st->send_peer = -1;
	st->recv_peer = -1;
	st->src_buf = GS_BUF_INPUT;
	st->dst_buf = GS_BUF_OUTPUT;
	st->bytes = len;
	if (pl->nslot == 1) {
		st->op = GS_OP_COPY;
		st->src_off = off;
		st->dst_off = off;
	} else if (t == 0) {
		st->op = GS_OP_SEND;
		st->send_peer = pl->next;
		st->src_off = off;
	} else {
		st->op = GS_OP_RECV;
		st->recv_peer = pl->prev;
		st->dst_off = off;
	}
}

static void gs_p2p_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n, gs_step *out)
{
	gs_p2p_plan pl;
	uint64_t per_full, l, rem, s, slices;
	int t;

	if (n == 0)
		return;
	gs_p2p_plan_init(&pl, g->priv, rank, ch);
	g_assert(first + n <= gs_p2p_plan_len(&pl));

	per_full = (uint64_t)pl.nslot * pl.s_full;
	if (first < pl.nfull * per_full) {
		l = first / per_full;
		rem = first % per_full;
		t = (int)(rem / pl.s_full);
		s = rem % pl.s_full;
	} else {
		l = pl.nfull;
		rem = first - pl.nfull * per_full;
		t = (int)(rem / pl.s_last);
		s = rem % pl.s_last;
	}
	slices = l < pl.nfull ? pl.s_full : pl.s_last;
	for (uint32_t i = 0; i < n; i++) {
		gs_p2p_emit(&pl, l, t, s, &out[i]);
		if (++s < slices)
			continue;
		s = 0;
		if (++t < pl.nslot)
			continue;
		t = 0;
		l++;
		slices = l < pl.nfull ? pl.s_full : pl.s_last;
	}
}

static void gs_p2p_destroy(gs_gen *g)
{
	g_free(g->priv);
	g->priv = NULL;
}

static const gs_gen_ops gs_p2p_ops = {
	.strand_len = gs_p2p_strand_len,
	.fill = gs_p2p_fill,
	.destroy = gs_p2p_destroy,
};

gc_status gs_p2p_init(gs_gen *g, char **errmsg)
{
	gs_p2p *pp;

	if (g->p.coll != GS_COLL_SENDRECV) {
		*errmsg = g_strdup_printf("the p2p generator does not implement %s",
					  gs_coll_name(g->p.coll));
		return GC_ERR_INPUT;
	}
	pp = g_new0(gs_p2p, 1);
	pp->n = g->p.nranks;
	pp->nch = g->p.nchannels;
	pp->elem = gs_dtype_size(g->p.dtype);
	pp->count = g->p.bytes / pp->elem;
	pp->ce = g->p.chunk_bytes / pp->elem;
	pp->se = g->p.slice_bytes / pp->elem;
	g->priv = pp;
	g->ops = &gs_p2p_ops;
	g->nstrands = g->p.nchannels;
	g->buf_bytes[GS_BUF_INPUT] = g->p.bytes;
	g->buf_bytes[GS_BUF_OUTPUT] = g->p.bytes;
	g->buf_bytes[GS_BUF_SCRATCH] = 0;
	return GC_OK;
}
