/* SPDX-License-Identifier: MIT */
/*
 * gs_pat: NCCL's PAT (Parallel Aggregated Trees, NCCL 2.23; S. Jeaugey,
 * "PAT: a new algorithm for all-gather and reduce-scatter operations at
 * scale", arXiv 2506.20252) for allgather and reduce-scatter.
 *
 * Every rank's block is broadcast (allgather) or reduced (reduce-scatter)
 * over a binomial tree rooted at that rank, the same tree shifted for every
 * rank, and all n trees run at once, their messages to the same peer
 * aggregated. It is Bruck's algorithm with the dimensions reversed: the
 * allgather talks to the farthest peer first, with the least data (one
 * block at distance 2^(D-1)), and the data doubles as the distance halves
 * (n/2 blocks to the neighbour last), so the long-distance transfers, the
 * ones that cross the upper levels of a fabric, carry the least. The
 * reduce-scatter runs the same trees in reverse: neighbours first with the
 * most data, the farthest peer last with one block.
 *
 * Positions: D = ceil(log2 n) dimensions, 2^D positions. At rank x, root
 * r's block has relative index j = (x - r) mod n and sits at position
 * bitrev_D(j) of the channel's SCRATCH region. In that order the blocks of
 * a dimension are contiguous: in dimension d (distance 2^d, m = 2^(D-1-d))
 * the allgather sends the positions p < m whose tree has a node 2^d further
 * on (bitrev(p) + 2^d < n) and receives them at p + m; the reduce-scatter
 * sends positions m + p (bitrev < n) and adds them into position p of the
 * peer. With n a power of two a dimension is one contiguous range, sent as
 * it is. Otherwise the trees lack some nodes and a dimension's blocks form
 * several runs; as NCCL gathers a step's blocks into its network buffer,
 * the runs are packed into a staging area (SEND stage) and sent as one
 * message train, received into another (RECV stage) and unpacked -- the
 * per-block copies behind the linear term of NCCL's cost model. The
 * reduce-scatter also packs its own partial sums of the receiving
 * positions into the RECV stage, adds the message there and unpacks.
 *
 * allgather (one strand per channel, part P of every block):
 *   COPY    own INPUT part -> position 0
 *   d = D-1 .. 0:
 *     [COPY runs -> SEND stage]                     (packed only)
 *     SEND  to rank (x + 2^d) mod n, RECV from (x - 2^d) mod n, in turn
 *     [COPY RECV stage -> runs + m]                 (packed only)
 *   COPY    position bitrev(j) -> OUTPUT block (x - j) mod n, j = 0 .. n-1
 * reduce-scatter:
 *   COPY    INPUT block (x - j) mod n -> position bitrev(j), j = 0 .. n-1
 *   d = 0 .. D-1:
 *     [COPY runs -> SEND stage, runs - m -> RECV stage]   (packed only)
 *     SEND to (x - 2^d) mod n, RECV_REDUCE_COPY from (x + 2^d) mod n
 *     [COPY RECV stage -> runs - m]                       (packed only)
 *   COPY    position 0 -> OUTPUT
 * Every message and copy is at most one slice (collective.slice); a
 * round's slices alternate SEND and receive as in gs_bruck.c, so a
 * connection holds at most one unconsumed message, and every dimension has
 * a connection of its own. The runs depend on n only: every rank has the
 * same. Step i of a strand is found by binary searches. Unused fields are
 * canonical.
 */
#include <glib.h>

#include "gs_impl.h"

typedef struct gs_pat_run {
	uint32_t pos, len; /* sending positions [pos, pos + len) */
	uint64_t stage;	   /* blocks of the round before it */
} gs_pat_run;

typedef struct gs_pat_round {
	int dim;
	uint32_t first, nruns; /* its runs */
	uint64_t blocks;
} gs_pat_round;

typedef struct gs_pat {
	int64_t n, nch, np; /* ranks, channels, positions (2^D) */
	int D;
	uint64_t elem, bc, sb;
	bool rs;
	gs_pat_round *rounds; /* D, in time order */
	gs_pat_run *runs;
	uint32_t nruns;
	uint64_t stage; /* blocks of the largest packed round */
	/* a channel's part is bc / nch or one element more (w = 0, 1): its
	 * bytes, the copy pieces of the runs before run u (nruns + 1
	 * entries), and the steps of the rounds before round q (D + 1) */
	uint64_t part[2];
	uint64_t *pieces_before[2], *steps_before[2];
} gs_pat;

static uint64_t gs_pat_bitrev(uint64_t v, int D)
{
	uint64_t r = 0;

	for (int b = 0; b < D; b++)
		r |= ((v >> b) & 1) << (D - 1 - b);
	return r;
}

static int gs_pat_dims(int64_t n)
{
	int D = 0;

	while (((int64_t)1 << D) < n)
		D++;
	return D;
}

/* Whether dimension d sends position p (see the header). */
static bool gs_pat_sends(int64_t n, int D, bool rs, int d, uint64_t p)
{
	uint64_t j = gs_pat_bitrev(p, D);

	return rs ? j < (uint64_t)n : j + ((uint64_t)1 << d) < (uint64_t)n;
}

/* The runs of n ranks in time order into pos/len/dim (n - 1 entries at
 * most: every run moves a block, and a rank sends n - 1 in all); returns
 * how many. */
static uint32_t gs_pat_find_runs(int64_t n, bool rs, uint32_t *pos, uint32_t *len, int *dim)
{
	const int D = gs_pat_dims(n);
	uint32_t nr = 0;

	for (int q = 0; q < D; q++) {
		int d = rs ? q : D - 1 - q;
		uint64_t m = (uint64_t)1 << (D - 1 - d), base = rs ? m : 0;
		for (uint64_t p = 0; p < m; p++) {
			if (!gs_pat_sends(n, D, rs, d, base + p))
				continue;
			if (nr > 0 && dim[nr - 1] == d && pos[nr - 1] + len[nr - 1] == base + p) {
				len[nr - 1]++;
				continue;
			}
			pos[nr] = (uint32_t)(base + p);
			len[nr] = 1;
			dim[nr] = d;
			nr++;
		}
	}
	return nr;
}

int gs_pat_rounds(int64_t n, bool rs, int *dim, uint64_t *blocks)
{
	const int D = gs_pat_dims(n);

	for (int q = 0; q < D; q++) {
		int d = rs ? q : D - 1 - q;
		uint64_t m = (uint64_t)1 << (D - 1 - d), base = rs ? m : 0;
		dim[q] = d;
		blocks[q] = 0;
		for (uint64_t p = 0; p < m; p++)
			blocks[q] += gs_pat_sends(n, D, rs, d, base + p);
	}
	return D;
}

static void gs_pat_destroy(gs_gen *g)
{
	gs_pat *t = g->priv;

	if (t) {
		g_free(t->rounds);
		g_free(t->runs);
		for (int w = 0; w < 2; w++) {
			g_free(t->pieces_before[w]);
			g_free(t->steps_before[w]);
		}
		g_free(t);
	}
	g->priv = NULL;
}

/* Part bytes of channel ch, its element offset, and its tables (*which). */
static uint64_t gs_pat_part(const gs_pat *t, int ch, uint64_t *start, int *which)
{
	uint64_t len;

	gs_part(t->bc, (uint64_t)t->nch, (uint64_t)ch, start, &len);
	*which = len * t->elem == t->part[0] ? 0 : 1;
	return len * t->elem;
}

static bool gs_pat_packed(const gs_pat_round *r)
{
	return r->nruns > 1;
}

static uint64_t gs_pat_round_steps(const gs_pat *t, const gs_pat_round *r, uint64_t P,
				   const uint64_t *pieces_before)
{
	uint64_t steps = 2 * gs_divup(r->blocks * P, t->sb);
	if (gs_pat_packed(r)) {
		uint64_t pieces = pieces_before[r->first + r->nruns] - pieces_before[r->first];
		steps += (t->rs ? 3 : 2) * pieces; /* pack (both stages) and unpack */
	}
	return steps;
}

static uint64_t gs_pat_strand_len(const gs_gen *g, int rank, int ch)
{
	const gs_pat *t = g->priv;
	uint64_t start;
	int w;
	uint64_t P = gs_pat_part(t, ch, &start, &w);

	(void)rank;
	if (P == 0)
		return 0;
	return gs_divup(P, t->sb) * (1 + (uint64_t)t->n) + t->steps_before[w][t->D];
}

/* Largest index in [lo, hi) whose a[] <= k (a[lo] <= k). */
static uint32_t gs_pat_search(const uint64_t *a, uint32_t lo, uint32_t hi, uint64_t k)
{
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (a[mid] <= k)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* A strand's SCRATCH offsets: its region (position q at region + q P,
 * P its part's bytes) and its SEND and RECV stages (staged block b at
 * stage + b P). */
typedef struct gs_pat_at {
	uint64_t region, P, send_stage, recv_stage;
} gs_pat_at;

/* Step k of round r of the strand of rank x (tables w), see the header. */

static void gs_pat_round_step(const gs_pat *t, const gs_pat_at *a, int w, int64_t x,
			      const gs_pat_round *r, uint64_t k, gs_step *st)
{
	const int64_t N = t->n, dist = (int64_t)1 << r->dim;
	const uint64_t m = (uint64_t)1 << (t->D - 1 - r->dim), P = a->P, sb = t->sb;
	const int32_t to = (int32_t)gs_mod(t->rs ? x - dist : x + dist, N);
	const int32_t from = (int32_t)gs_mod(t->rs ? x + dist : x - dist, N);
	const uint64_t *pb = t->pieces_before[w];
	const uint64_t pieces = pb[r->first + r->nruns] - pb[r->first];
	const bool packed = gs_pat_packed(r);
	const uint64_t pack = packed ? (t->rs ? 2 : 1) * pieces : 0;
	const uint64_t xchg = 2 * gs_divup(r->blocks * P, sb);
#define POS(q) (a->region + (uint64_t)(q) * P)
	if (k >= pack && k < pack + xchg) { /* the message train */
		uint64_t s = k - pack, off = s / 2 * sb, n = MIN(sb, r->blocks * P - off);
		const gs_pat_run *u = &t->runs[r->first];
		/* unpacked: the round's one run, straight from and to positions */
		uint64_t src = packed ? a->send_stage : POS(u->pos);
		uint64_t dst = packed ? a->recv_stage : t->rs ? POS(u->pos - m) : POS(u->pos + m);
		if (s % 2 == 0)
			gs_step_set(st, GS_OP_SEND, to, -1, GS_BUF_SCRATCH, src + off, GS_BUF_OUTPUT, 0,
				    n);
		else if (!t->rs)
			gs_step_set(st, GS_OP_RECV, -1, from, GS_BUF_INPUT, 0, GS_BUF_SCRATCH, dst + off,
				    n);
		else
			gs_step_set(st, GS_OP_RECV_REDUCE_COPY, -1, from, GS_BUF_SCRATCH, dst + off,
				    GS_BUF_SCRATCH, dst + off, n);
		return;
	}
	/* a copy piece: packing (k < pack) or unpacking */
	bool unpack = k >= pack + xchg;
	uint64_t g = unpack ? k - pack - xchg : t->rs ? k / 2 : k;
	bool own = !unpack && t->rs && k % 2 == 1; /* the RECV stage's own sums */
	uint32_t ui = gs_pat_search(pb, r->first, r->first + r->nruns, pb[r->first] + g);
	const gs_pat_run *u = &t->runs[ui];
	uint64_t off = (pb[r->first] + g - pb[ui]) * sb, n = MIN(sb, (uint64_t)u->len * P - off);
	uint64_t staged = u->stage * P + off;
	uint64_t recv_pos = t->rs ? POS(u->pos - m) : POS(u->pos + m);
	if (unpack)
		gs_step_set(st, GS_OP_COPY, -1, -1, GS_BUF_SCRATCH, a->recv_stage + staged,
			    GS_BUF_SCRATCH, recv_pos + off, n);
	else if (own)
		gs_step_set(st, GS_OP_COPY, -1, -1, GS_BUF_SCRATCH, recv_pos + off, GS_BUF_SCRATCH,
			    a->recv_stage + staged, n);
	else
		gs_step_set(st, GS_OP_COPY, -1, -1, GS_BUF_SCRATCH, POS(u->pos) + off,
			    GS_BUF_SCRATCH, a->send_stage + staged, n);
#undef POS
}

/* Step i of the strand of rank x, channel ch (see the header). */
static void gs_pat_step(const gs_pat *t, int64_t x, int ch, uint64_t i, gs_step *st)
{
	const int64_t N = t->n;
	const uint64_t el = t->elem, sb = t->sb;
	uint64_t start;
	int w;
	const uint64_t P = gs_pat_part(t, ch, &start, &w);
	const uint64_t rounds = t->steps_before[w][t->D];
	/* this channel's SCRATCH region: its positions, then the two stages */
	const uint64_t per = (uint64_t)t->np + 2 * t->stage;
	gs_pat_at a = {per * start * el, P, 0, 0};
	a.send_stage = a.region + (uint64_t)t->np * P;
	a.recv_stage = a.send_stage + t->stage * P;
#define POS(q) (a.region + (uint64_t)(q) * P)
#define BLK(y) (((uint64_t)(y) * t->bc + start) * el)
	int64_t j = 0;
	uint64_t off = 0, n = 0, k = 0;
	switch (gs_end_locate(t->rs, N, P, sb, rounds, i, &j, &off, &n, &k)) {
	case GS_END_OWN: gs_end_own_copy(st, t->rs, start * el + off, POS(0) + off, n); return;
	case GS_END_BLOCK: /* root x - j's block, at bitrev(j) */
		gs_end_block_copy(st, t->rs, BLK(gs_mod(x - j, N)) + off,
				  POS(gs_pat_bitrev((uint64_t)j, t->D)) + off, n);
		return;
	case GS_END_ROUND: break;
	}
#undef POS
#undef BLK
	if (k >= rounds) {
		gs_step_clear(st); /* past the end: not reached through strand_len */
		return;
	}
	uint32_t q = gs_pat_search(t->steps_before[w], 0, (uint32_t)t->D, k);
	gs_pat_round_step(t, &a, w, x, &t->rounds[q], k - t->steps_before[w][q], st);
}

static void gs_pat_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n, gs_step *out)
{
	for (uint32_t q = 0; q < n; q++)
		gs_pat_step(g->priv, rank, ch, first + q, &out[q]);
}

static const gs_gen_ops gs_pat_ops = {
	.strand_len = gs_pat_strand_len,
	.fill = gs_pat_fill,
	.destroy = gs_pat_destroy,
};

gc_status gs_pat_init(gs_gen *g, char **errmsg)
{
	if (g->p.coll != GS_COLL_ALLGATHER && g->p.coll != GS_COLL_REDUCESCATTER) {
		*errmsg = g_strdup_printf("the pat generator does not implement %s",
					  gs_coll_name(g->p.coll));
		return GC_ERR_INPUT;
	}
	gs_pat *t = g_new0(gs_pat, 1);
	t->n = g->p.nranks;
	t->nch = g->p.nchannels;
	t->D = gs_pat_dims(t->n);
	t->np = (int64_t)1 << t->D;
	t->elem = gs_dtype_size(g->p.dtype);
	t->bc = g->p.bytes / t->elem / (uint64_t)t->n;
	t->rs = g->p.coll == GS_COLL_REDUCESCATTER;
	t->sb = g->p.slice_bytes;
	uint32_t cap = (uint32_t)(t->n > 1 ? t->n - 1 : 1);
	uint32_t *pos = g_new(uint32_t, cap), *len = g_new(uint32_t, cap);
	int *dim = g_new(int, cap);
	t->nruns = gs_pat_find_runs(t->n, t->rs, pos, len, dim);
	t->runs = g_new(gs_pat_run, t->nruns + 1);
	t->rounds = g_new0(gs_pat_round, t->D + 1);
	for (int q = 0; q < t->D; q++)
		t->rounds[q].dim = t->rs ? q : t->D - 1 - q;
	/* the runs of each round (found in round order), staged one after
	 * the other */
	for (uint32_t u = 0, q = 0; u < t->nruns; u++) {
		while (t->rounds[q].dim != dim[u])
			q++;
		gs_pat_round *r = &t->rounds[q];
		if (r->nruns == 0)
			r->first = u;
		t->runs[u] = (gs_pat_run){pos[u], len[u], r->blocks};
		r->nruns++;
		r->blocks += len[u];
	}
	for (int q = 0; q < t->D; q++)
		if (gs_pat_packed(&t->rounds[q]))
			t->stage = MAX(t->stage, t->rounds[q].blocks);
	g_free(pos);
	g_free(len);
	g_free(dim);
	t->part[0] = t->bc / (uint64_t)t->nch * t->elem;
	t->part[1] = t->part[0] + t->elem;
	for (int w = 0; w < 2; w++) {
		uint64_t P = t->part[w];
		t->pieces_before[w] = g_new(uint64_t, t->nruns + 1);
		t->pieces_before[w][0] = 0;
		for (uint32_t u = 0; u < t->nruns; u++)
			t->pieces_before[w][u + 1] = t->pieces_before[w][u] +
						     gs_divup((uint64_t)t->runs[u].len * P, t->sb);
		t->steps_before[w] = g_new(uint64_t, t->D + 1);
		t->steps_before[w][0] = 0;
		for (int q = 0; q < t->D; q++)
			t->steps_before[w][q + 1] =
				t->steps_before[w][q] +
				gs_pat_round_steps(t, &t->rounds[q], P, t->pieces_before[w]);
	}
	uint64_t whole = t->bc * t->elem * (uint64_t)t->n;
	g->buf_bytes[GS_BUF_INPUT] = t->rs ? whole : t->bc * t->elem;
	g->buf_bytes[GS_BUF_OUTPUT] = t->rs ? t->bc * t->elem : whole;
	g->buf_bytes[GS_BUF_SCRATCH] = t->bc * t->elem * ((uint64_t)t->np + 2 * t->stage);
	g->nstrands = g->p.nchannels;
	g->strands_per_channel = 1;
	g->priv = t;
	g->ops = &gs_pat_ops;
	return GC_OK;
}
