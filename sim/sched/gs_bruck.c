/* SPDX-License-Identifier: MIT */
/*
 * gs_bruck: allgather and reduce-scatter in ceil(log2 n) rounds (Bruck,
 * Ho, Kipnis, Upfal & Weathersby, IEEE TPDS 1997), the logarithmic-latency
 * alternative to the ring's n - 1 steps that matters when each rank is on
 * its own node and n is large (NCCL 2.23 added PAT, a different schedule of
 * the same latency class, for that case).
 *
 * Blocks: rank r's own block (allgather) or its result block
 * (reduce-scatter) is block r of the n-block buffer. Every block is split
 * over the C logical channels in contiguous parts (gs_part); channel c
 * works on its part of every block, in its own SCRATCH region of n parts,
 * position j of which holds the part of block (r + j) mod n.
 *
 * allgather (one strand per channel):
 *   COPY    own INPUT part -> position 0
 *   round k = 0 .. K-1, d = 2^k, m = min(d, n - d):
 *     SEND  positions [0, m) to rank (r - d) mod n
 *     RECV  positions [d, d + m) from rank (r + d) mod n
 *   COPY    position j -> OUTPUT block (r + j) mod n, j = 0 .. n-1
 * reduce-scatter (the mirror image, rounds in reverse):
 *   COPY    INPUT block (r + j) mod n -> position j, j = 0 .. n-1
 *   round k = K-1 .. 0, d = 2^k, m = min(d, n - d):
 *     SEND              positions [d, d + m) to rank (r + d) mod n
 *     RECV_REDUCE_COPY  positions [0, m) += message from rank (r - d) mod n
 *   COPY    position 0 -> OUTPUT
 * After allgather round k a rank holds positions [0, min(2d, n)); rank r's
 * positions [d, d + m) are rank r + d's [0, m), so every block arrives once.
 * The reduce-scatter runs the same exchanges backwards, so every rank's
 * contribution to block r reaches position 0 of rank r exactly once (the
 * validator checks both).
 *
 * Every transfer moves in slices of at most collective.slice bytes; a
 * round's slices alternate SEND and receive, so a connection holds at most
 * one unconsumed message and each round's messages use a connection of
 * their own (distances 2^k < n differ mod n): a receive buffer of one
 * message suffices. Streaming: step i of a strand is located in O(log n).
 * Unused fields are canonical.
 */
#include <glib.h>

#include "gs_impl.h"

typedef struct gs_bruck {
	int64_t n, nch;
	int K;		/* rounds: ceil(log2 n) */
	uint64_t elem;	/* bytes per element */
	uint64_t bc;	/* elements per block (one rank's share) */
	uint64_t sb;	/* slice bytes: every step moves at most this much */
	bool rs;	/* reduce-scatter, else allgather */
} gs_bruck;

static int gs_bruck_rounds(int64_t n)
{
	int k = 0;

	while (((int64_t)1 << k) < n)
		k++;
	return k;
}

/* Positions sent in round k: m = min(2^k, n - 2^k). */
static int64_t gs_bruck_m(const gs_bruck *b, int k)
{
	int64_t d = (int64_t)1 << k;

	return MIN(d, b->n - d);
}

/* The strand of channel ch as segments: a copy of one block part (sp
 * slices), the n copies, and the rounds (two steps per slice of m parts,
 * SEND and receive interleaved). Part bytes P of channel ch. */
static uint64_t gs_bruck_part(const gs_bruck *b, int ch, uint64_t *start)
{
	uint64_t len;

	gs_part(b->bc, (uint64_t)b->nch, (uint64_t)ch, start, &len);
	return len * b->elem;
}

static uint64_t gs_bruck_round_steps(const gs_bruck *b, uint64_t P, int k)
{
	return 2 * gs_divup((uint64_t)gs_bruck_m(b, k) * P, b->sb);
}

static uint64_t gs_bruck_strand_len(const gs_gen *g, int rank, int ch)
{
	const gs_bruck *b = g->priv;
	uint64_t start, P = gs_bruck_part(b, ch, &start);

	(void)rank;
	if (P == 0)
		return 0;
	uint64_t sp = gs_divup(P, b->sb), len = sp * (1 + (uint64_t)b->n);
	for (int k = 0; k < b->K; k++)
		len += gs_bruck_round_steps(b, P, k);
	return len;
}

/* Step i of the strand of rank r, channel ch (see the header). */
static void gs_bruck_step(const gs_bruck *b, int64_t r, int ch, uint64_t i, gs_step *st)
{
	const int64_t N = b->n;
	const uint64_t el = b->elem, sb = b->sb;
	uint64_t start, P = gs_bruck_part(b, ch, &start);
	/* byte offsets: position j of this channel's SCRATCH region, and
	 * block x's part in the n-block buffer */
	const uint64_t region = (uint64_t)N * start * el;
#define POS(j) (region + (uint64_t)(j) * P)
#define BLK(x) (((uint64_t)(x) * b->bc + start) * el)
	uint64_t rounds = 0;
	for (int k = 0; k < b->K; k++)
		rounds += gs_bruck_round_steps(b, P, k);
	int64_t j = 0;
	uint64_t off0 = 0, n0 = 0, i0 = 0;
	switch (gs_end_locate(b->rs, N, P, sb, rounds, i, &j, &off0, &n0, &i0)) {
	case GS_END_OWN: gs_end_own_copy(st, b->rs, start * el + off0, POS(0) + off0, n0); return;
	case GS_END_BLOCK: /* block (r + j) mod n at position j */
		gs_end_block_copy(st, b->rs, BLK(gs_mod(r + j, N)) + off0, POS(j) + off0, n0);
		return;
	case GS_END_ROUND: break;
	}
	i = i0; /* the rounds' step */
	uint64_t at = 0;
	for (int q = 0; q < b->K; q++) {
		int k = b->rs ? b->K - 1 - q : q;
		uint64_t rs = gs_bruck_round_steps(b, P, k);

		if (i >= at + rs) {
			at += rs;
			continue;
		}
		int64_t d = (int64_t)1 << k;
		uint64_t B = (uint64_t)gs_bruck_m(b, k) * P;
		uint64_t off = (i - at) / 2 * sb, n = MIN(sb, B - off);
		bool send = (i - at) % 2 == 0;

		if (!b->rs && send)
			gs_step_set(st, GS_OP_SEND, (int32_t)gs_mod(r - d, N), -1, GS_BUF_SCRATCH,
				    POS(0) + off, GS_BUF_OUTPUT, 0, n);
		else if (!b->rs)
			gs_step_set(st, GS_OP_RECV, -1, (int32_t)gs_mod(r + d, N), GS_BUF_INPUT, 0,
				    GS_BUF_SCRATCH, POS(d) + off, n);
		else if (send)
			gs_step_set(st, GS_OP_SEND, (int32_t)gs_mod(r + d, N), -1, GS_BUF_SCRATCH,
				    POS(d) + off, GS_BUF_OUTPUT, 0, n);
		else
			gs_step_set(st, GS_OP_RECV_REDUCE_COPY, -1, (int32_t)gs_mod(r - d, N),
				    GS_BUF_SCRATCH, POS(0) + off, GS_BUF_SCRATCH, POS(0) + off, n);
		return;
	}
	gs_step_clear(st); /* past the end: not reached through strand_len */
#undef POS
#undef BLK
}

static void gs_bruck_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n,
			  gs_step *out)
{
	for (uint32_t q = 0; q < n; q++)
		gs_bruck_step(g->priv, rank, ch, first + q, &out[q]);
}

static const gs_gen_ops gs_bruck_ops = {
	.strand_len = gs_bruck_strand_len,
	.fill = gs_bruck_fill,
	.destroy = gs_gen_free_priv,
};

gc_status gs_bruck_init(gs_gen *g, char **errmsg)
{
	gs_bruck *b = g_new0(gs_bruck, 1);

	if (g->p.coll != GS_COLL_ALLGATHER && g->p.coll != GS_COLL_REDUCESCATTER) {
		g_free(b);
		*errmsg = g_strdup_printf("the bruck generator does not implement %s",
					  gs_coll_name(g->p.coll));
		return GC_ERR_INPUT;
	}
	b->n = g->p.nranks;
	b->nch = g->p.nchannels;
	b->K = gs_bruck_rounds(b->n);
	b->elem = gs_dtype_size(g->p.dtype);
	b->bc = g->p.bytes / b->elem / (uint64_t)b->n;
	b->rs = g->p.coll == GS_COLL_REDUCESCATTER;
	b->sb = g->p.slice_bytes;
	uint64_t whole = b->bc * b->elem * (uint64_t)b->n;
	g->buf_bytes[GS_BUF_INPUT] = b->rs ? whole : b->bc * b->elem;
	g->buf_bytes[GS_BUF_OUTPUT] = b->rs ? b->bc * b->elem : whole;
	g->buf_bytes[GS_BUF_SCRATCH] = whole;
	g->nstrands = g->p.nchannels;
	g->strands_per_channel = 1;
	g->priv = b;
	g->ops = &gs_bruck_ops;
	return GC_OK;
}
