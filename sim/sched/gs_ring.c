/* SPDX-License-Identifier: MIT */
/*
 * gs_ring: NCCL-style ring allreduce, allgather and reduce-scatter (NCCL
 * src/device/all_reduce.h runRing, all_gather.h, reduce_scatter.h, Simple
 * protocol), as a streaming generator.
 *
 * Data split: the element range of the collective (allreduce: the whole
 * buffer; allgather and reduce-scatter: one rank's block of `count`
 * elements) is split over the channels in contiguous parts; channel c gets
 * count / C elements, plus one for the first count % C channels. Each
 * channel (one strand per rank: strands_per_channel = 1, so strand c is
 * channel c) runs its own ring.
 *
 * Ring order: with rpn ranks per node, the ring of channel c visits the
 * nodes in order 0 .. nodes-1 and, inside node k, the local ranks
 * (c + j) % rpn for j = 0 .. rpn-1, i.e. position pos holds rank
 * (pos / rpn) * rpn + (c + pos % rpn) % rpn. Consecutive channels thus
 * enter and leave each node at different GPUs, which spreads inter-node
 * traffic over the NICs. With paired ranks (gs_params.ring_pairs, an even
 * rpn >= 4) a ring entering at an even local rank a leaves from its pair
 * a + 1 instead: a, a + 2, a + 3, ..., a - 1, a + 1 (from an odd a the
 * rotation already ends at a - 1, its pair), so every ring enters and
 * leaves a node under one PCIe switch, through one NIC, as NCCL's rings
 * on DGX/HGX nodes do. Everything below depends on a rank's ring position
 * p, not on its id.
 *
 * Loops: allreduce processes a channel part of M elements in loops of
 * nranks chunks; a loop with R elements left uses chunks of
 * ce = min(CE, ceil(R / n)) elements (CE = chunk_bytes / elem), so only the
 * last loop can have smaller or empty chunks. Allgather and reduce-scatter
 * process the channel's part of the per-rank block in loops of min(CE, R)
 * elements (one chunk per rank block). Within a loop the strand executes
 * NCCL's slot sequence (below); each slot moves its chunk as consecutive
 * slices of at most SE = slice_bytes / elem elements, one step per slice,
 * and an empty chunk contributes no step -- on both sides of every
 * connection, because both ends compute the same chunk sizes. Strand order
 * is loop-major, then slot, then slice.
 *
 * Allreduce slots, ring position p, n = nranks >= 2 (chunk index relative to
 * the loop start, q(t) = (p - 1 - t) mod n):
 *   t = 0               SEND                   INPUT[q]
 *   t = 1 .. n-2        RECV_REDUCE_SEND       L = INPUT[q]
 *   t = n-1 (q = p)     RECV_REDUCE_COPY_SEND  L = INPUT[q] -> OUTPUT[q]
 *   t = n .. 2n-3       RECV_COPY_SEND         -> OUTPUT[q]
 *   t = 2n-2            RECV                   -> OUTPUT[q]
 * Allgather (n + 1 slots; B(t) = ring[(p - t + 1) mod n] is the rank whose
 * block moves): COPY own block INPUT -> OUTPUT[rank], SEND it (from INPUT),
 * RECV_COPY_SEND into OUTPUT[B(t)] for t = 2 .. n-1, RECV into OUTPUT[B(n)].
 * Reduce-scatter (n slots; B(t) = ring[(p - 1 - t) mod n]): SEND
 * INPUT[B(0)], RECV_REDUCE_SEND with L = INPUT[B(t)], and at t = n-1
 * (B = own rank) RECV_REDUCE_COPY into OUTPUT. With n == 1 every
 * collective is one COPY INPUT -> OUTPUT per slice.
 * Sends go to ring[p + 1], receives come from ring[p - 1].
 *
 * Buffering: a rank sends at most one chunk (<= chunk_bytes) before it must
 * receive, so a connection never needs more than one loop's worth of
 * unconsumed data to make progress (the simulator's 2 * chunk_bytes buffer
 * additionally lets the next loop's first chunk start early).
 *
 * Streaming: fill() locates step `first` in O(1), inside full loops and in
 * the last, uneven one (gs_ring_last_locate), then walks forward in O(1)
 * per step. Nothing is cached; the generator state is read-only.
 *
 * Unused operand fields are canonical: src = INPUT+0 when the op does not
 * read L, dst = OUTPUT+0 when it writes nothing, peers -1 when unused.
 */
#include <string.h>

#include <glib.h>

#include "gs_impl.h"

typedef struct gs_ring {
	gs_coll coll;
	int64_t n;	/* ranks */
	int64_t rpn;	/* ranks per node */
	bool pairs;	/* gs_ring_pairs: rings leave a node at their entry's pair */
	int64_t nch;	/* channels = strands */
	uint64_t elem;	/* element size */
	uint64_t count; /* allreduce: elements; allgather/reducescatter: per-rank block */
	uint64_t ce;	/* chunk elements (CE) */
	uint64_t se;	/* slice elements (SE) */
	int64_t nslot;	/* slots per loop (T) */
} gs_ring;

/* Per-strand geometry, derived in O(1) from (rank, channel). */
typedef struct gs_ring_plan {
	const gs_ring *rg;
	int64_t p; /* ring position of the rank */
	int32_t rank, next, prev;
	int64_t ch;
	uint64_t cs, m;	     /* channel part: elements [cs, cs + m) */
	uint64_t loop_elems; /* elements of a full loop */
	uint64_t nfull;	     /* number of full loops */
	uint64_t s_full;     /* slices per slot in a full loop */
	uint64_t steps_full; /* steps of a full loop */
	/* the last, partial loop (loop index nfull), if last_r > 0 */
	uint64_t last_r;       /* its elements */
	uint64_t last_ce;      /* its chunk size (allreduce) or block part (others) */
	uint64_t last_f;       /* allreduce: chunks of size last_ce */
	uint64_t last_part;    /* allreduce: size of chunk last_f (may be 0) */
	uint64_t s_ce, s_part; /* slices of a last_ce chunk, of the partial chunk */
	uint64_t last_steps;
} gs_ring_plan;

/* Rank at ring position pos of channel c, and its inverse. */
static int32_t gs_ring_rank(const gs_ring *rg, int64_t c, int64_t pos)
{
	return gs_ring_order_rank(rg->n, rg->rpn, c, pos, rg->pairs);
}

static int64_t gs_ring_pos(const gs_ring *rg, int64_t c, int64_t rank)
{
	return gs_ring_order_pos(rg->rpn, c, rank, rg->pairs);
}

/* Allreduce: the chunk index slot t moves, (p - 1 - t) mod n. */
static uint64_t gs_ring_chunk(const gs_ring_plan *pl, int64_t t)
{
	return (uint64_t)gs_mod(pl->p - 1 - t, pl->rg->n);
}

/* Size in elements of the chunk that slot t of the last loop moves (q:
 * its chunk index, for allreduce). */
static uint64_t gs_ring_last_size(const gs_ring_plan *pl, uint64_t q)
{
	if (pl->rg->coll != GS_COLL_ALLREDUCE)
		return pl->last_ce;
	if (q < pl->last_f)
		return pl->last_ce;
	return q == pl->last_f ? pl->last_part : 0;
}

/* Steps of the last loop. Allreduce: its 2n - 1 slots move every chunk
 * index twice except the rank's own position p, moved once (at t = n - 1,
 * (p - 1 - t) mod n = p); chunks below last_f have s_ce slices, chunk
 * last_f s_part (none when last_f = n: there is no partial chunk). The
 * others: every slot s_ce. */
static uint64_t gs_ring_last_steps(const gs_ring_plan *pl)
{
	const gs_ring *rg = pl->rg;

	if (rg->coll != GS_COLL_ALLREDUCE)
		return (uint64_t)rg->nslot * pl->s_ce;
	uint64_t p = (uint64_t)pl->p, f = pl->last_f;
	uint64_t part = f < (uint64_t)rg->n ? pl->s_part * (2 - (p == f)) : 0;
	return pl->s_ce * (2 * f - (p < f)) + part;
}

/*
 * Slot t and slice s of step `rem` of the last loop, in O(1). Allreduce:
 * as t runs 0 .. 2n-2 the slots' chunk indices (p - 1 - t) mod n fall in at
 * most three descending runs (a down to 0, then n-1 down to 0, then n-1
 * down to a+2, with a = (p - 1) mod n), and inside a run the slots that move
 * anything are a tail: the partial chunk last_f (s_part slices, none when
 * it is empty), then the full chunks below it (s_ce each). The others:
 * every slot has s_ce slices. Slot t is never empty.
 */
static void gs_ring_last_locate(const gs_ring_plan *pl, uint64_t rem, int64_t *t, uint64_t *s)
{
	const gs_ring *rg = pl->rg;

	if (rg->coll != GS_COLL_ALLREDUCE) {
		*t = (int64_t)(rem / pl->s_ce);
		*s = rem % pl->s_ce;
		return;
	}
	int64_t f = (int64_t)pl->last_f;
	int64_t t0 = 0, top = gs_mod(pl->p - 1, rg->n); /* first slot, its chunk */
	while (t0 < rg->nslot) {
		int64_t len = MIN(top + 1, rg->nslot - t0); /* run slot j: chunk top - j */
		int64_t jp = top - f;			    /* the slot of chunk last_f */
		uint64_t part = jp >= 0 && jp < len ? pl->s_part : 0;
		int64_t jfull = MAX(jp + 1, 0); /* first slot of a full chunk */
		uint64_t full = len > jfull ? (uint64_t)(len - jfull) * pl->s_ce : 0;

		if (rem < part) {
			*t = t0 + jp;
			*s = rem;
			return;
		}
		rem -= part;
		if (rem < full) {
			*t = t0 + jfull + (int64_t)(rem / pl->s_ce);
			*s = rem % pl->s_ce;
			return;
		}
		rem -= full;
		t0 += len;
		top = rg->n - 1;
	}
	g_assert_not_reached();
}

static void gs_ring_plan_init(gs_ring_plan *pl, const gs_ring *rg, int rank, int ch)
{
	memset(pl, 0, sizeof(*pl));
	pl->rg = rg;
	pl->rank = rank;
	pl->ch = ch;
	pl->p = gs_ring_pos(rg, ch, rank);
	pl->next = gs_ring_rank(rg, ch, pl->p + 1);
	pl->prev = gs_ring_rank(rg, ch, pl->p - 1);
	gs_part(rg->count, (uint64_t)rg->nch, (uint64_t)ch, &pl->cs, &pl->m);

	if (rg->coll == GS_COLL_ALLREDUCE)
		pl->loop_elems = (uint64_t)rg->n * rg->ce;
	else
		pl->loop_elems = rg->ce;
	pl->nfull = pl->m / pl->loop_elems;
	pl->s_full = gs_divup(rg->ce, rg->se);
	pl->steps_full = (uint64_t)rg->nslot * pl->s_full;
	pl->last_r = pl->m % pl->loop_elems;
	if (pl->last_r == 0)
		return;
	if (rg->coll == GS_COLL_ALLREDUCE) {
		/* R < n * CE, so ceil(R / n) <= CE: NCCL's realChunkSize */
		pl->last_ce = gs_divup(pl->last_r, (uint64_t)rg->n);
		pl->last_f = pl->last_r / pl->last_ce;
		pl->last_part = pl->last_r - pl->last_f * pl->last_ce;
	} else {
		pl->last_ce = pl->last_r;
	}
	pl->s_ce = gs_divup(pl->last_ce, rg->se);
	pl->s_part = gs_divup(pl->last_part, rg->se);
	pl->last_steps = gs_ring_last_steps(pl);
}

/* Slices of a slot of loop l (q: its chunk index, for allreduce). */
static uint64_t gs_ring_slot_slices(const gs_ring_plan *pl, uint64_t l, uint64_t q)
{
	if (l < pl->nfull)
		return pl->s_full;
	if (pl->rg->coll != GS_COLL_ALLREDUCE || q < pl->last_f)
		return pl->s_ce;
	return q == pl->last_f ? pl->s_part : 0;
}

/* Emit slice s of slot t of loop l (q: the slot's chunk index, for
 * allreduce). */
static void gs_ring_emit(const gs_ring_plan *pl, uint64_t l, int64_t t, uint64_t q, uint64_t s,
			 gs_step *st)
{
	const gs_ring *rg = pl->rg;
	int64_t n = rg->n;
	uint64_t el = rg->elem, count = rg->count;
	uint64_t sz, off, len, blk;
	gs_op op;

	if (rg->coll == GS_COLL_ALLREDUCE) {
		uint64_t ce = l < pl->nfull ? rg->ce : pl->last_ce;

		sz = l < pl->nfull ? rg->ce : gs_ring_last_size(pl, q);
		off = pl->cs + l * pl->loop_elems + q * ce + s * rg->se;
		len = MIN(rg->se, sz - s * rg->se);
		if (n == 1)
			op = GS_OP_COPY;
		else if (t == 0)
			op = GS_OP_SEND;
		else if (t < n - 1)
			op = GS_OP_RECV_REDUCE_SEND;
		else if (t == n - 1)
			op = GS_OP_RECV_REDUCE_COPY_SEND;
		else if (t < 2 * n - 2)
			op = GS_OP_RECV_COPY_SEND;
		else
			op = GS_OP_RECV;
		gs_step_set(st, op, pl->next, pl->prev, GS_BUF_INPUT, off * el, GS_BUF_OUTPUT,
			    off * el, len * el);
		return;
	}

	/* allgather / reducescatter: every slot moves the same block part */
	sz = l < pl->nfull ? rg->ce : pl->last_ce;
	off = pl->cs + l * pl->loop_elems + s * rg->se; /* offset inside a rank block */
	len = MIN(rg->se, sz - s * rg->se);
	if (n == 1) {
		gs_step_set(st, GS_OP_COPY, -1, -1, GS_BUF_INPUT, off * el, GS_BUF_OUTPUT, off * el,
			    len * el);
		return;
	}
	if (rg->coll == GS_COLL_ALLGATHER) {
		if (t == 0) {
			gs_step_set(st, GS_OP_COPY, -1, -1, GS_BUF_INPUT, off * el, GS_BUF_OUTPUT,
				    ((uint64_t)pl->rank * count + off) * el, len * el);
			return;
		}
		blk = (uint64_t)gs_ring_rank(rg, pl->ch, pl->p - t + 1);
		if (t == 1)
			op = GS_OP_SEND;
		else if (t < n)
			op = GS_OP_RECV_COPY_SEND;
		else
			op = GS_OP_RECV;
		gs_step_set(st, op, pl->next, pl->prev, GS_BUF_INPUT, off * el, GS_BUF_OUTPUT,
			    (blk * count + off) * el, len * el);
		return;
	}
	/* reducescatter */
	blk = (uint64_t)gs_ring_rank(rg, pl->ch, pl->p - 1 - t);
	if (t == 0)
		op = GS_OP_SEND;
	else if (t < n - 1)
		op = GS_OP_RECV_REDUCE_SEND;
	else
		op = GS_OP_RECV_REDUCE_COPY;
	gs_step_set(st, op, pl->next, pl->prev, GS_BUF_INPUT, (blk * count + off) * el,
		    GS_BUF_OUTPUT, off * el, len * el);
}

static uint64_t gs_ring_strand_len(const gs_gen *g, int rank, int ch)
{
	gs_ring_plan pl;

	gs_ring_plan_init(&pl, g->priv, rank, ch);
	return pl.nfull * pl.steps_full + pl.last_steps;
}

static void gs_ring_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n,
			 gs_step *out)
{
	gs_ring_plan pl;
	uint64_t l, s, rem;
	int64_t t, nslot;

	if (n == 0)
		return;
	gs_ring_plan_init(&pl, g->priv, rank, ch);
	nslot = pl.rg->nslot;
	g_assert(first + n <= pl.nfull * pl.steps_full + pl.last_steps);

	/* locate step `first` as (loop l, slot t, slice s) */
	if (first < pl.nfull * pl.steps_full) {
		l = first / pl.steps_full;
		rem = first % pl.steps_full;
		t = (int64_t)(rem / pl.s_full);
		s = rem % pl.s_full;
	} else {
		l = pl.nfull;
		gs_ring_last_locate(&pl, first - pl.nfull * pl.steps_full, &t, &s);
	}

	/* the slot's chunk index (allreduce) follows t: one down per slot,
	 * from p - 1 again at the start of a loop */
	int64_t nr = pl.rg->n;
	uint64_t q0 = gs_ring_chunk(&pl, 0), q = gs_ring_chunk(&pl, t);
	uint64_t slices = gs_ring_slot_slices(&pl, l, q); /* of the current slot */
	for (uint32_t i = 0; i < n; i++) {
		gs_ring_emit(&pl, l, t, q, s, &out[i]);
		/* advance to the next non-empty slice */
		if (++s < slices)
			continue;
		s = 0;
		do {
			if (++t == nslot) {
				t = 0;
				l++;
				q = q0;
			} else {
				q = q == 0 ? (uint64_t)nr - 1 : q - 1;
			}
		} while (i + 1 < n && (slices = gs_ring_slot_slices(&pl, l, q)) == 0);
	}
}

static const gs_gen_ops gs_ring_ops = {
	.strand_len = gs_ring_strand_len,
	.fill = gs_ring_fill,
	.destroy = gs_gen_free_priv,
};

gc_status gs_ring_init(gs_gen *g, char **errmsg)
{
	gs_ring *rg = g_new0(gs_ring, 1);
	uint64_t n = (uint64_t)g->p.nranks;

	rg->coll = g->p.coll;
	rg->n = g->p.nranks;
	rg->rpn = g->p.ranks_per_node;
	rg->pairs = gs_ring_pairs(&g->p, rg->rpn);
	rg->nch = g->p.nchannels;
	rg->elem = gs_dtype_size(g->p.dtype);
	rg->ce = g->p.chunk_bytes / rg->elem;
	rg->se = g->p.slice_bytes / rg->elem;

	switch (rg->coll) {
	case GS_COLL_ALLREDUCE:
		rg->count = g->p.bytes / rg->elem;
		rg->nslot = rg->n == 1 ? 1 : 2 * rg->n - 1;
		g->buf_bytes[GS_BUF_INPUT] = g->p.bytes;
		g->buf_bytes[GS_BUF_OUTPUT] = g->p.bytes;
		break;
	case GS_COLL_ALLGATHER:
		rg->count = g->p.bytes / rg->elem / n;
		rg->nslot = rg->n == 1 ? 1 : rg->n + 1;
		g->buf_bytes[GS_BUF_INPUT] = rg->count * rg->elem;
		g->buf_bytes[GS_BUF_OUTPUT] = g->p.bytes;
		break;
	case GS_COLL_REDUCESCATTER:
		rg->count = g->p.bytes / rg->elem / n;
		rg->nslot = rg->n == 1 ? 1 : rg->n;
		g->buf_bytes[GS_BUF_INPUT] = g->p.bytes;
		g->buf_bytes[GS_BUF_OUTPUT] = rg->count * rg->elem;
		break;
	default:
		g_free(rg);
		*errmsg = g_strdup_printf("the ring generator does not implement %s",
					  gs_coll_name(g->p.coll));
		return GC_ERR_INPUT;
	}
	g->buf_bytes[GS_BUF_SCRATCH] = 0;
	g->nstrands = g->p.nchannels;
	g->strands_per_channel = 1; /* one strand per channel: the ring runs in order */
	/* The ring order repeats node by node (gs_ring_order_rank), and what a
	 * position does depends on it only through the sizes of the chunks
	 * it moves: the allgather's and reduce-scatter's blocks are all
	 * alike, and the allreduce's chunks are where every channel's part
	 * (count / C elements, or one more) leaves its last loop a multiple
	 * of n (ce = R / n exactly, no partial chunk) */
	bool alike = true;
	if (rg->coll == GS_COLL_ALLREDUCE)
		for (uint64_t extra = 0; extra < 2 && alike; extra++) {
			uint64_t m = rg->count / (uint64_t)rg->nch + extra;
			if (extra && rg->count % (uint64_t)rg->nch == 0)
				break;
			alike = m % n == 0;
		}
	g->rank_period = alike && rg->n > rg->rpn && rg->n % rg->rpn == 0 ? (int)rg->rpn : 0;
	g->priv = rg;
	g->ops = &gs_ring_ops;
	return GC_OK;
}
