/* SPDX-License-Identifier: MIT */
/*
 * gs_hd: allreduce by recursive halving and doubling (Rabenseifner's
 * algorithm; Thakur, Rabenseifner & Gropp, IJHPCA 19(1) 2005): a
 * reduce-scatter in log2 n rounds, each exchanging half of the data still
 * in play with the rank whose index differs in one bit, then an allgather
 * retracing the rounds. gloo's AllreduceHalvingDoubling
 * (gloo/allreduce_halving_doubling.h) and Open MPI's
 * ompi_coll_base_allreduce_intra_redscat_allgather run it; n must be a
 * power of two (gloo's binary blocks and MPI's folding of the extra ranks
 * for other counts are not modelled).
 *
 * Layout: the C logical channels split the buffer into contiguous parts
 * (gs_part); channel c runs the whole algorithm on its part, cut into n
 * blocks (gs_part again), block b rank b's result after the reduce-
 * scatter. A range of blocks is contiguous. With D = n / 2^(k+1):
 *   reduce-scatter round k = 0 .. K-1 (K = log2 n): of the blocks in play,
 *     [r & ~(2D - 1), +2D), the half holding block r is kept, the other
 *     sent:
 *       SEND              the other half to rank r ^ D
 *       RECV_REDUCE_COPY  the kept half += the message from rank r ^ D
 *     (round 0 reads INPUT, later rounds OUTPUT, results in OUTPUT)
 *   allgather round k = K-1 .. 0: rank r holds [r & ~(D - 1), +D):
 *       SEND  it to rank r ^ D
 *       RECV  rank r ^ D's, [(r & ~(D - 1)) ^ D, +D), into OUTPUT
 * One rank: a COPY. Every transfer moves in slices of at most
 * collective.slice bytes, SEND and receive alternating slice by slice
 * (the longer of the two halves, blocks differing by an element, ends
 * with its own), so a connection holds at most one unconsumed message. The
 * validator checks that every rank's contribution reaches every block
 * exactly once.
 */
#include <glib.h>

#include "gs_impl.h"

typedef struct gs_hd {
	int64_t n, nch;
	int K;		/* rounds each way: log2 n */
	uint64_t elem;	/* bytes per element */
	uint64_t count; /* elements of the buffer */
	uint64_t sb;	/* slice bytes */
} gs_hd;

/* Channel ch's part of the buffer, in elements. */
static void gs_hd_chan(const gs_hd *h, int ch, uint64_t *start, uint64_t *len)
{
	gs_part(h->count, (uint64_t)h->nch, (uint64_t)ch, start, len);
}

/* Byte offset and length of blocks [lo, lo + m) of a channel part of
 * `len` elements from element `start`. */
static void gs_hd_range(const gs_hd *h, uint64_t start, uint64_t len, int64_t lo, int64_t m,
			uint64_t *off, uint64_t *bytes)
{
	uint64_t s0, l0, s1, l1;

	gs_part(len, (uint64_t)h->n, (uint64_t)lo, &s0, &l0);
	gs_part(len, (uint64_t)h->n, (uint64_t)(lo + m - 1), &s1, &l1);
	*off = (start + s0) * h->elem;
	*bytes = (s1 + l1 - s0) * h->elem;
}

/* Round q (0 .. 2K-1: reduce-scatter, then allgather) of rank r: its
 * peer, the blocks it keeps or holds (mine) and those it sends or
 * receives (theirs), D of each. */
static void gs_hd_round(const gs_hd *h, int64_t r, int q, bool *rs, int64_t *peer, int64_t *mine,
			int64_t *theirs, int64_t *D)
{
	*rs = q < h->K;
	int k = *rs ? q : 2 * h->K - 1 - q;
	*D = h->n >> (k + 1);
	*peer = r ^ *D;
	if (*rs) {
		int64_t lo = r & ~(2 * *D - 1);
		*mine = (r & *D) ? lo + *D : lo;
		*theirs = (r & *D) ? lo : lo + *D;
	} else {
		*mine = r & ~(*D - 1);
		*theirs = *mine ^ *D;
	}
}

/* Slices sent (*ns) and received (*nr) in round q by rank r, channel part
 * (start, len). Reduce-scatter: sends theirs, receives into mine;
 * allgather: sends mine, receives theirs. */
static void gs_hd_round_slices(const gs_hd *h, int64_t r, int q, uint64_t start, uint64_t len,
			       uint64_t *ns, uint64_t *nr)
{
	bool rs;
	int64_t peer, mine, theirs, D;
	uint64_t o, bm, bt;

	gs_hd_round(h, r, q, &rs, &peer, &mine, &theirs, &D);
	gs_hd_range(h, start, len, mine, D, &o, &bm);
	gs_hd_range(h, start, len, theirs, D, &o, &bt);
	*ns = gs_divup(rs ? bt : bm, h->sb);
	*nr = gs_divup(rs ? bm : bt, h->sb);
}

static uint64_t gs_hd_strand_len(const gs_gen *g, int rank, int ch)
{
	const gs_hd *h = g->priv;
	uint64_t start, len;

	gs_hd_chan(h, ch, &start, &len);
	if (len == 0)
		return 0;
	if (h->n == 1)
		return gs_divup(len * h->elem, h->sb);
	uint64_t steps = 0;
	for (int q = 0; q < 2 * h->K; q++) {
		uint64_t ns, nr;
		gs_hd_round_slices(h, rank, q, start, len, &ns, &nr);
		steps += ns + nr;
	}
	return steps;
}

static void gs_hd_step(const gs_hd *h, int64_t r, int ch, uint64_t i, gs_step *st)
{
	uint64_t start, len;

	gs_hd_chan(h, ch, &start, &len);
	if (h->n == 1) {
		uint64_t off = start * h->elem + i * h->sb;
		gs_step_set(st, GS_OP_COPY, -1, -1, GS_BUF_INPUT, off, GS_BUF_OUTPUT, off,
			    MIN(h->sb, (start + len) * h->elem - off));
		return;
	}
	uint64_t at = 0;
	for (int q = 0; q < 2 * h->K; q++) {
		uint64_t ns, nr;
		gs_hd_round_slices(h, r, q, start, len, &ns, &nr);
		if (i >= at + ns + nr) {
			at += ns + nr;
			continue;
		}
		/* slice j: a send when the alternation (or what is left) says so */
		uint64_t x = i - at, both = 2 * MIN(ns, nr), j;
		bool send;
		if (x < both) {
			j = x / 2;
			send = x % 2 == 0;
		} else {
			j = x - both / 2;
			send = ns > nr;
		}
		bool rs;
		int64_t peer, mine, theirs, D;
		gs_hd_round(h, r, q, &rs, &peer, &mine, &theirs, &D);
		uint64_t off, bytes;
		gs_hd_range(h, start, len, send == rs ? theirs : mine, D, &off, &bytes);
		off += j * h->sb;
		uint64_t n = MIN(h->sb, bytes - j * h->sb);
		const uint8_t from = rs && q == 0 ? GS_BUF_INPUT : GS_BUF_OUTPUT;
		if (rs && send)
			gs_step_set(st, GS_OP_SEND, (int32_t)peer, -1, from, off, GS_BUF_OUTPUT, 0, n);
		else if (rs)
			gs_step_set(st, GS_OP_RECV_REDUCE_COPY, -1, (int32_t)peer, from, off,
				    GS_BUF_OUTPUT, off, n);
		else if (send)
			gs_step_set(st, GS_OP_SEND, (int32_t)peer, -1, GS_BUF_OUTPUT, off, GS_BUF_OUTPUT,
				    0, n);
		else
			gs_step_set(st, GS_OP_RECV, -1, (int32_t)peer, GS_BUF_INPUT, 0, GS_BUF_OUTPUT,
				    off, n);
		return;
	}
	gs_step_clear(st); /* past the end: not reached through strand_len */
}

static void gs_hd_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n, gs_step *out)
{
	for (uint32_t q = 0; q < n; q++)
		gs_hd_step(g->priv, rank, ch, first + q, &out[q]);
}

static const gs_gen_ops gs_hd_ops = {
	.strand_len = gs_hd_strand_len,
	.fill = gs_hd_fill,
	.destroy = gs_gen_free_priv,
};

gc_status gs_hd_init(gs_gen *g, char **errmsg)
{
	const int64_t n = g->p.nranks;
	if (g->p.coll != GS_COLL_ALLREDUCE) {
		*errmsg = g_strdup_printf("the halving-doubling generator implements allreduce, not %s",
					  gs_coll_name(g->p.coll));
		return GC_ERR_INPUT;
	}
	if (n & (n - 1)) {
		*errmsg = g_strdup_printf("halving-doubling needs a power-of-two count of ranks, not "
					  "%lld (gloo's binary blocks and MPI's folding of the extra "
					  "ranks are not modelled)",
					  (long long)n);
		return GC_ERR_INPUT;
	}
	gs_hd *h = g_new0(gs_hd, 1);
	h->n = n;
	h->nch = g->p.nchannels;
	while (((int64_t)1 << h->K) < n)
		h->K++;
	h->elem = gs_dtype_size(g->p.dtype);
	h->count = g->p.bytes / h->elem;
	h->sb = g->p.slice_bytes;
	g->buf_bytes[GS_BUF_INPUT] = h->count * h->elem;
	g->buf_bytes[GS_BUF_OUTPUT] = h->count * h->elem;
	g->buf_bytes[GS_BUF_SCRATCH] = 0;
	g->nstrands = g->p.nchannels;
	g->strands_per_channel = 1;
	g->priv = h;
	g->ops = &gs_hd_ops;
	return GC_OK;
}
