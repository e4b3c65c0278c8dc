/* SPDX-License-Identifier: MIT */
/*
 * gs_a2a: all-to-all (nccl-tests alltoall_perf semantics) as two streaming
 * generators, the two-sided pairwise exchange of NCCL's grouped
 * send/receive and the one-sided put exchange of NVSHMEM.
 *
 * Data: every rank's INPUT and OUTPUT hold n blocks of B = count / n
 * elements (count = bytes / elem, rounded down to a multiple of n by
 * gs_gen). INPUT block j of rank r goes to OUTPUT block r of rank j; the
 * own block (j = r) is a COPY INPUT -> OUTPUT on channel 0. A block moves
 * whole, in loops of min(CE, remaining) elements, each loop as slices of at
 * most SE elements, one step per slice: P steps per block on every rank.
 *
 * Peers are spread over channels, as NCCL schedules grouped send/receive:
 * the exchange with the peer at distance k (k = 1 .. n-1: rank r sends to
 * r + k and receives from r - k) is channel c = (k - 1) mod C's turn
 * t = (k - 1) / C, so up to C peers are served at once and each channel
 * walks its distances in increasing order.
 *
 * Pairwise (strands_per_channel = 2, nstrands = 2C, nsignals = 0):
 *   strand 2c      (channel 0: the own COPY first) then for each of its
 *                  distances k the P SENDs of INPUT block (r + k) % n
 *   strand 2c + 1  for each of its distances k the P RECVs from rank
 *                  (r - k) mod n into OUTPUT block (r - k) mod n
 * Connection (r, r + k, c) has one sending strand (2c at r) and one
 * receiving strand (2c + 1 at r + k), and both use it at their t-th turn.
 * Buffering: a connection never needs more than one unconsumed message.
 * A send strand blocked at turn t (its connection full) waits for a
 * receive strand of the same channel still at a turn < t, and a receive
 * strand blocked at turn t (nothing to receive) waits for a send strand
 * still at a turn < t (one at turn t would have sent, one past it has sent
 * everything). So the blocked strand with the smallest turn could not be
 * blocked, and no set of strands can block each other for good: any receive
 * buffer that holds one message, in particular the simulator's of at least
 * one chunk, lets the exchange finish. The tests run it with one-byte
 * buffers.
 *
 * Put (strands_per_channel = 2, nstrands = 2C, nsignals = 1; slot 0 of a
 * rank counts the peers whose block has landed there):
 *   strand 2c      (channel 0: the own COPY first) then for each of its
 *                  distances k, with q = (r + k) % n: the P PUTs of INPUT
 *                  block q into OUTPUT block r of rank q, then one SIGNAL
 *                  of q's slot 0
 *   strand 1       one WAIT for slot 0 >= n - 1 (the other channels'
 *                  second strands are empty)
 * The SIGNAL follows the PUTs on the same connection (r, q, c), so it
 * counts only once they are visible at q; the WAIT therefore completes
 * exactly when every peer's block is in place, and the rank's strands (its
 * kernel) end only then. PUTs take no receive credit and WAIT never blocks
 * a sender, so no buffering argument is needed.
 *
 * Degenerate cases: n == 1 is the COPY alone (empty receive / WAIT
 * strand); a channel with no distance (C > n - 1) has empty strands, apart
 * from channel 0's COPY.
 *
 * Streaming: the strand position of a step is (turn, slice) by division,
 * and a slice is (loop, slice in loop) by division, so fill() locates any
 * window in O(1) and walks it in O(1) per step. Unused operand fields are
 * canonical (src = INPUT+0, dst = OUTPUT+0, peers -1); SIGNAL keeps its
 * slot in dst_off and WAIT its slot in src_off and threshold in bytes.
 */
#include <string.h>

#include <glib.h>

#include "gs_impl.h"

typedef struct gs_a2a {
	gs_algo algo;
	int64_t n, nch;
	uint64_t elem, blk, ce, se; /* block, chunk and slice elements */
} gs_a2a;

enum { GS_A2A_SEND = 0, GS_A2A_RECV = 1 };

/* Per-strand geometry, derived in O(1) from (rank, strand). */
typedef struct gs_a2a_plan {
	const gs_a2a *a;
	int64_t rank, ch;
	int role;	    /* GS_A2A_SEND or GS_A2A_RECV */
	uint64_t nfull;	    /* full loops of CE elements in a block */
	uint64_t last_sz;   /* elements of the last, partial loop (0 if none) */
	uint64_t s_full;    /* slices of a full loop */
	uint64_t npart;	    /* P: steps of one block */
	uint64_t ncopy;	    /* steps of the own COPY on this strand (P or 0) */
	uint64_t nturns;    /* distances k = 1 + ch + t C, t < nturns */
	uint64_t per_turn;  /* steps per distance */
	uint64_t len;	    /* strand length */
} gs_a2a_plan;

static void gs_a2a_plan_init(gs_a2a_plan *pl, const gs_a2a *a, int rank, int strand)
{
	uint64_t nch = (uint64_t)a->nch, c = (uint64_t)(strand / 2);
	uint64_t n = (uint64_t)a->n;

	memset(pl, 0, sizeof(*pl));
	pl->a = a;
	pl->rank = rank;
	pl->ch = (int64_t)c;
	pl->role = strand % 2;
	pl->nfull = a->blk / a->ce;
	pl->last_sz = a->blk % a->ce;
	pl->s_full = gs_divup(a->ce, a->se);
	pl->npart = pl->nfull * pl->s_full + gs_divup(pl->last_sz, a->se);
	if (pl->npart == 0)
		return; /* empty blocks: no data, no signal, no wait */
	pl->nturns = n - 1 > c ? (n - 1 - c + nch - 1) / nch : 0;
	if (pl->role == GS_A2A_SEND) {
		/* put: every distance ends with its SIGNAL */
		pl->ncopy = c == 0 ? pl->npart : 0;
		pl->per_turn = pl->npart + (a->algo == GS_ALGO_PUT);
		pl->len = pl->ncopy + pl->nturns * pl->per_turn;
	} else if (a->algo == GS_ALGO_PUT) {
		pl->len = c == 0 && n > 1;
	} else {
		pl->per_turn = pl->npart;
		pl->len = pl->nturns * pl->npart;
	}
}

/*
 * Slice j (< P) of a block: *off is its element offset inside the block,
 * the return value its length in elements.
 */
static uint64_t gs_a2a_slice(const gs_a2a_plan *pl, uint64_t j, uint64_t *off)
{
	const gs_a2a *a = pl->a;
	uint64_t l = j / pl->s_full, s = j % pl->s_full;
	uint64_t sz = l < pl->nfull ? a->ce : pl->last_sz;

	*off = l * a->ce + s * a->se;
	return MIN(a->se, sz - s * a->se);
}

/* Step i of the strand. */
static void gs_a2a_emit(const gs_a2a_plan *pl, uint64_t i, gs_step *st)
{
	const gs_a2a *a = pl->a;
	int64_t n = a->n;
	uint64_t el = a->elem, blk = a->blk, off, len, j;
	int64_t peer, k;

	gs_step_clear(st);
	if (pl->role == GS_A2A_RECV && a->algo == GS_ALGO_PUT) {
		st->op = GS_OP_WAIT;
		st->src_off = 0;
		st->bytes = (uint64_t)(n - 1);
		return;
	}
	if (pl->role == GS_A2A_SEND && i < pl->ncopy) {
		/* the own block */
		len = gs_a2a_slice(pl, i, &off);
		st->op = GS_OP_COPY;
		st->src_off = ((uint64_t)pl->rank * blk + off) * el;
		st->dst_off = st->src_off;
		st->bytes = len * el;
		return;
	}
	if (pl->role == GS_A2A_SEND) {
		uint64_t t = (i - pl->ncopy) / pl->per_turn;
		j = (i - pl->ncopy) % pl->per_turn;
		k = 1 + pl->ch + (int64_t)t * a->nch;
		peer = (pl->rank + k) % n;
		st->send_peer = (int32_t)peer;
		if (j == pl->npart) {
			/* put: the distance's SIGNAL, after all its PUTs */
			st->op = GS_OP_SIGNAL;
			st->dst_off = 0;
			st->bytes = 8;
			return;
		}
		len = gs_a2a_slice(pl, j, &off);
		st->src_off = ((uint64_t)peer * blk + off) * el;
		st->bytes = len * el;
		if (a->algo == GS_ALGO_PUT) {
			st->op = GS_OP_PUT;
			st->dst_off = ((uint64_t)pl->rank * blk + off) * el;
		} else {
			st->op = GS_OP_SEND;
		}
		return;
	}
	/* pairwise receive strand */
	k = 1 + pl->ch + (int64_t)(i / pl->per_turn) * a->nch;
	j = i % pl->per_turn;
	peer = gs_mod(pl->rank - k, n);
	len = gs_a2a_slice(pl, j, &off);
	st->op = GS_OP_RECV;
	st->recv_peer = (int32_t)peer;
	st->dst_off = ((uint64_t)peer * blk + off) * el;
	st->bytes = len * el;
}

static uint64_t gs_a2a_strand_len(const gs_gen *g, int rank, int ch)
{
	gs_a2a_plan pl;

	gs_a2a_plan_init(&pl, g->priv, rank, ch);
	return pl.len;
}

static void gs_a2a_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n, gs_step *out)
{
	gs_a2a_plan pl;

	if (n == 0)
		return;
	gs_a2a_plan_init(&pl, g->priv, rank, ch);
	g_assert(first + n <= pl.len);
	for (uint32_t i = 0; i < n; i++)
		gs_a2a_emit(&pl, first + i, &out[i]);
}

static const gs_gen_ops gs_a2a_ops = {
	.strand_len = gs_a2a_strand_len,
	.fill = gs_a2a_fill,
	.destroy = gs_gen_free_priv,
};

gc_status gs_a2a_init(gs_gen *g, char **errmsg)
{
	gs_a2a *a;

	if (g->p.coll != GS_COLL_ALLTOALL ||
	    (g->p.algo != GS_ALGO_PAIRWISE && g->p.algo != GS_ALGO_PUT)) {
		*errmsg = g_strdup_printf("the all-to-all generator does not implement %s %s",
					  gs_algo_name(g->p.algo), gs_coll_name(g->p.coll));
		return GC_ERR_INPUT;
	}
	a = g_new0(gs_a2a, 1);
	a->algo = g->p.algo;
	a->n = g->p.nranks;
	a->nch = g->p.nchannels;
	a->elem = gs_dtype_size(g->p.dtype);
	a->blk = g->p.bytes / a->elem / (uint64_t)a->n;
	a->ce = g->p.chunk_bytes / a->elem;
	a->se = g->p.slice_bytes / a->elem;
	g->priv = a;
	g->ops = &gs_a2a_ops;
	g->nstrands = 2 * g->p.nchannels; /* per channel: send (or put), receive (or wait) */
	g->strands_per_channel = 2;
	g->buf_bytes[GS_BUF_INPUT] = g->p.bytes;
	g->buf_bytes[GS_BUF_OUTPUT] = g->p.bytes;
	g->buf_bytes[GS_BUF_SCRATCH] = 0;
	g->nsignals = a->algo == GS_ALGO_PUT ? 1 : 0;
	/* every rank sends to r + k and receives from r - k, blocks all alike */
	g->rank_period = a->n > 1 ? 1 : 0;
	return GC_OK;
}
