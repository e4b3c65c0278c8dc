/* SPDX-License-Identifier: MIT */
/*
 * gs_p2p: the nccl-tests sendrecv pattern (sendrecv_perf: every rank r sends
 * its INPUT to (r + 1) % n and receives the INPUT of (r - 1 + n) % n into its
 * OUTPUT), as a streaming generator.
 *
 * The buffer's elements are split over the logical channels in contiguous
 * parts (channel c gets count / C elements, plus one for the first
 * count % C channels). Each channel has two strands (strands_per_channel =
 * 2, nstrands = 2 * C), NCCL's split of a p2p channel's threads into a send
 * group and a receive group:
 *   strand 2c      send group: SEND INPUT slices of the part to (r + 1) % n
 *   strand 2c + 1  receive group: RECV slices from (r - 1 + n) % n into
 *                  OUTPUT at the same offsets
 * Both walk the part in loops of min(CE, remaining) elements, each loop as
 * slices of at most SE elements, so the k-th SEND of rank r's send strand
 * and the k-th RECV of rank r + 1's receive strand have the same size. The
 * connection (r, r + 1, c) thus has exactly one sending strand (2c at r)
 * and one receiving strand (2c + 1 at r + 1), and sends and receives of a
 * rank progress independently: the send strand is only throttled by the
 * connection's buffer, never by its own rank's receives. Buffering: the
 * receive strand consumes every message as it arrives and waits for
 * nothing else, so a connection able to hold one unconsumed message (in
 * particular the simulator's buffer of at least one chunk) lets both
 * strands finish; the tests check it with one-message buffers.
 *
 * With one rank the send strand is one COPY INPUT -> OUTPUT per slice and
 * the receive strand is empty.
 *
 * Streaming: every full loop has the same ceil(CE / SE) slices, so fill()
 * locates a step in O(1). Unused operand fields are canonical
 * (src = INPUT+0, dst = OUTPUT+0, peers -1).
 */
#include <string.h>

#include <glib.h>

#include "gs_impl.h"

typedef struct gs_p2p {
	int64_t n, nch;
	uint64_t elem, count, ce, se;
} gs_p2p;

enum { GS_P2P_SEND = 0, GS_P2P_RECV = 1 };

/* Per-strand geometry, derived in O(1) from (rank, strand). */
typedef struct gs_p2p_plan {
	const gs_p2p *pp;
	int32_t next, prev;
	int role;	/* GS_P2P_SEND or GS_P2P_RECV */
	bool empty;	/* the receive strand of a single rank */
	uint64_t cs, m; /* channel part: elements [cs, cs + m) */
	uint64_t nfull, last_sz;
	uint64_t s_full, s_last;
} gs_p2p_plan;

static void gs_p2p_plan_init(gs_p2p_plan *pl, const gs_p2p *pp, int rank, int strand)
{
	uint64_t c = (uint64_t)(strand / 2);

	memset(pl, 0, sizeof(*pl));
	pl->pp = pp;
	pl->next = (int32_t)((rank + 1) % pp->n);
	pl->prev = (int32_t)((rank - 1 + pp->n) % pp->n);
	pl->role = strand % 2;
	pl->empty = pp->n == 1 && pl->role == GS_P2P_RECV;
	gs_part(pp->count, (uint64_t)pp->nch, c, &pl->cs, &pl->m);
	pl->nfull = pl->m / pp->ce;
	pl->last_sz = pl->m % pp->ce;
	pl->s_full = gs_divup(pp->ce, pp->se);
	pl->s_last = gs_divup(pl->last_sz, pp->se);
}

static uint64_t gs_p2p_plan_len(const gs_p2p_plan *pl)
{
	return pl->empty ? 0 : pl->nfull * pl->s_full + pl->s_last;
}

static uint64_t gs_p2p_strand_len(const gs_gen *g, int rank, int ch)
{
	gs_p2p_plan pl;

	gs_p2p_plan_init(&pl, g->priv, rank, ch);
	return gs_p2p_plan_len(&pl);
}

/* Slice s of loop l of the strand. */
static void gs_p2p_emit(const gs_p2p_plan *pl, uint64_t l, uint64_t s, gs_step *st)
{
	const gs_p2p *pp = pl->pp;
	uint64_t sz = l < pl->nfull ? pp->ce : pl->last_sz;
	uint64_t off = (pl->cs + l * pp->ce + s * pp->se) * pp->elem;
	uint64_t len = MIN(pp->se, sz - s * pp->se) * pp->elem;

	gs_op op = pp->n == 1			? GS_OP_COPY
		   : pl->role == GS_P2P_SEND ? GS_OP_SEND
					     : GS_OP_RECV;

	gs_step_set(st, op, pl->next, pl->prev, GS_BUF_INPUT, off, GS_BUF_OUTPUT, off, len);
}

static void gs_p2p_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n, gs_step *out)
{
	gs_p2p_plan pl;
	uint64_t l, s, slices;

	if (n == 0)
		return;
	gs_p2p_plan_init(&pl, g->priv, rank, ch);
	g_assert(first + n <= gs_p2p_plan_len(&pl));

	/* one step per slice: loop l = first / s_full inside the full loops */
	gs_slice_locate(first, pl.nfull, pl.s_full, &l, &s);
	slices = l < pl.nfull ? pl.s_full : pl.s_last;
	for (uint32_t i = 0; i < n; i++) {
		gs_p2p_emit(&pl, l, s, &out[i]);
		if (++s < slices)
			continue;
		s = 0;
		l++;
		slices = l < pl.nfull ? pl.s_full : pl.s_last;
	}
}

static const gs_gen_ops gs_p2p_ops = {
	.strand_len = gs_p2p_strand_len,
	.fill = gs_p2p_fill,
	.destroy = gs_gen_free_priv,
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
	g->nstrands = 2 * g->p.nchannels; /* per channel: send, receive */
	g->strands_per_channel = 2;
	g->buf_bytes[GS_BUF_INPUT] = g->p.bytes;
	g->buf_bytes[GS_BUF_OUTPUT] = g->p.bytes;
	g->buf_bytes[GS_BUF_SCRATCH] = 0;
	g->rank_period = pp->n > 1 ? 1 : 0; /* every rank sends to r + 1, alike */
	return GC_OK;
}
