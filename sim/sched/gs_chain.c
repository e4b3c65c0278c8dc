/* SPDX-License-Identifier: MIT */
/*
 * gs_chain: NCCL's broadcast and reduce (src/device/broadcast.h and
 * reduce.h, runRing): a pipeline along each channel's ring that starts at
 * the root (broadcast) or ends at it (reduce). The root is rank 0 of the
 * communicator, nccl-tests' default.
 *
 * Data split: the buffer's count elements are split over the channels in
 * contiguous parts (gs_part); each channel (one strand per rank) moves its
 * part along its own ring (gs_ring_order_rank: the channels enter and leave
 * each node at different GPUs) as consecutive slices of at most
 * slice_bytes, one message each (NCCL moves broadcast and reduce in single
 * steps: BROADCAST_SLICESTEPS = BROADCAST_CHUNKSTEPS = 1).
 *
 * Broadcast, d = ring distance from the root (n = nranks >= 2), per slice:
 *   d = 0       SEND INPUT to the next rank, then COPY INPUT -> OUTPUT
 *   d = 1..n-2  RECV_COPY_SEND -> OUTPUT, forwarded to the next rank
 *   d = n-1     RECV -> OUTPUT
 * Reduce, d = ring distance from the root's successor (the root is d = n-1):
 *   d = 0       SEND INPUT
 *   d = 1..n-2  RECV_REDUCE_SEND L = INPUT
 *   d = n-1     RECV_REDUCE_COPY L = INPUT -> OUTPUT (the root)
 * Only the root's OUTPUT is defined after a reduce. With n == 1 both are
 * one COPY INPUT -> OUTPUT per slice. Sends go to the next rank of the
 * ring, receives come from the previous one; every rank sends at most
 * what it has received, so the connection buffer bounds how far the root
 * (broadcast) or the first rank (reduce) runs ahead. Unused operand fields
 * are canonical.
 */
#include <glib.h>

#include "gs_impl.h"

typedef struct gs_chain {
	int64_t n, rpn, nch;
	bool pairs; /* gs_ring_pairs */
	uint64_t elem, count, se; /* element size, elements, slice elements */
	bool reduce;
} gs_chain;

/* Channel ch's part [*cs, *cs + *m) and its slices. */
static uint64_t gs_chain_slices(const gs_chain *c, int ch, uint64_t *cs, uint64_t *m)
{
	gs_part(c->count, (uint64_t)c->nch, (uint64_t)ch, cs, m);
	return gs_divup(*m, c->se);
}

/* Rank's distance along channel ch's ring from the chain's first rank. */
static int64_t gs_chain_dist(const gs_chain *c, int rank, int ch)
{
	int64_t p = gs_ring_order_pos(c->rpn, ch, rank, c->pairs);
	int64_t p0 = gs_ring_order_pos(c->rpn, ch, 0, c->pairs);
	return gs_mod(p - p0 - (c->reduce ? 1 : 0), c->n);
}

/* The root of a broadcast sends and copies every slice. */
static bool gs_chain_copies_too(const gs_chain *c, int rank, int ch)
{
	return !c->reduce && c->n > 1 && gs_chain_dist(c, rank, ch) == 0;
}

static uint64_t gs_chain_strand_len(const gs_gen *g, int rank, int ch)
{
	const gs_chain *c = g->priv;
	uint64_t cs, m, ns = gs_chain_slices(c, ch, &cs, &m);

	return gs_chain_copies_too(c, rank, ch) ? 2 * ns : ns;
}

static void gs_chain_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t nsteps,
			  gs_step *out)
{
	const gs_chain *c = g->priv;
	uint64_t cs, m;
	gs_chain_slices(c, ch, &cs, &m);
	const int64_t n = c->n, d = gs_chain_dist(c, rank, ch);
	const int64_t p = gs_ring_order_pos(c->rpn, ch, rank, c->pairs);
	const int32_t next = gs_ring_order_rank(n, c->rpn, ch, p + 1, c->pairs);
	const int32_t prev = gs_ring_order_rank(n, c->rpn, ch, p - 1, c->pairs);
	const bool two = gs_chain_copies_too(c, rank, ch);
	for (uint32_t q = 0; q < nsteps; q++) {
		uint64_t i = first + q, s = two ? i / 2 : i;
		uint64_t e0 = cs + s * c->se, ne = MIN(c->se, cs + m - e0);
		uint64_t off = e0 * c->elem, b = ne * c->elem;
		gs_step *st = &out[q];
		if (n == 1)
			gs_step_set(st, GS_OP_COPY, -1, -1, GS_BUF_INPUT, off, GS_BUF_OUTPUT, off, b);
		else if (!c->reduce && d == 0)
			gs_step_set(st, i % 2 == 0 ? GS_OP_SEND : GS_OP_COPY, next, -1, GS_BUF_INPUT,
				    off, GS_BUF_OUTPUT, off, b);
		else if (!c->reduce)
			gs_step_set(st, d < n - 1 ? GS_OP_RECV_COPY_SEND : GS_OP_RECV, next, prev,
				    GS_BUF_INPUT, 0, GS_BUF_OUTPUT, off, b);
		else if (d == 0)
			gs_step_set(st, GS_OP_SEND, next, -1, GS_BUF_INPUT, off, GS_BUF_OUTPUT, 0, b);
		else
			gs_step_set(st, d < n - 1 ? GS_OP_RECV_REDUCE_SEND : GS_OP_RECV_REDUCE_COPY,
				    next, prev, GS_BUF_INPUT, off, GS_BUF_OUTPUT, off, b);
	}
}

static const gs_gen_ops gs_chain_ops = {
	.strand_len = gs_chain_strand_len,
	.fill = gs_chain_fill,
	.destroy = gs_gen_free_priv,
};

gc_status gs_chain_init(gs_gen *g, char **errmsg)
{
	if (g->p.coll != GS_COLL_BROADCAST && g->p.coll != GS_COLL_REDUCE) {
		*errmsg = g_strdup_printf("the chain generator does not implement %s",
					  gs_coll_name(g->p.coll));
		return GC_ERR_INPUT;
	}
	gs_chain *c = g_new0(gs_chain, 1);
	c->n = g->p.nranks;
	c->rpn = g->p.ranks_per_node > 0 ? g->p.ranks_per_node : g->p.nranks;
	c->pairs = gs_ring_pairs(&g->p, c->rpn);
	c->nch = g->p.nchannels;
	c->elem = gs_dtype_size(g->p.dtype);
	c->count = g->p.bytes / c->elem;
	c->se = g->p.slice_bytes / c->elem;
	c->reduce = g->p.coll == GS_COLL_REDUCE;
	g->buf_bytes[GS_BUF_INPUT] = c->count * c->elem;
	g->buf_bytes[GS_BUF_OUTPUT] = c->count * c->elem;
	g->buf_bytes[GS_BUF_SCRATCH] = 0;
	g->nstrands = g->p.nchannels;
	g->strands_per_channel = 1;
	g->priv = c;
	g->ops = &gs_chain_ops;
	return GC_OK;
}
