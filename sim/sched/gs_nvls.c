/* SPDX-License-Identifier: MIT */
/*
 * gs_nvls: allreduce with in-switch reduction and multicast (NVLink SHARP,
 * NCCL's NVLS algorithm on one NVSwitch node), as a streaming generator.
 *
 * The switch is two helper ranks after the n data ranks (gs_gen.nhelpers =
 * 2): R = n, its reduction engine, and M = n + 1, its multicast engine.
 * They own buffers and strands like any rank but no data: every route to or
 * from them is one GPU port of the switch, so a message to R or M loads
 * exactly the port a multimem load or store loads on the hardware.
 *
 * The buffer's elements are split into C * n blocks (gs_part), block
 * b = c * n + k owned by GPU k in logical channel c, each block cut into
 * slices of at most SE elements. Per block there are two strands (channel
 * b, strands_per_channel = 2, nstrands = 2 * C * n):
 *   strand 2b      GPU g: SEND each INPUT slice of the block to R
 *                  R: per slice RECV from GPU 0 into SCRATCH,
 *                  RECV_REDUCE_COPY from GPUs 1..n-2, RECV_REDUCE_SEND from
 *                  GPU n-1 to the owner k (the multimem load-reduce)
 *   strand 2b + 1  owner k: RECV_COPY_SEND the reduced slice from R into its
 *                  OUTPUT and on to M (the multimem store)
 *                  M: RECV the slice from k into SCRATCH, then SEND it to
 *                  the other n - 1 GPUs, starting after k
 *                  GPU g != k: RECV the slice from M into its OUTPUT
 * Every connection has one sending and one receiving strand: (g, R, b) is
 * sent by g's strand 2b and received by R's strand 2b; (R, k, b) by R's
 * 2b and k's 2b + 1; (k, M, b) by k's 2b + 1 and M's 2b + 1; (M, g, b) by
 * M's 2b + 1 and g's 2b + 1. R's strands 2b + 1 and M's strands 2b are
 * empty.
 *
 * Per GPU port, each way: S of contributions + S/n of owner stores out,
 * S/n of reduced slices + (n-1)/n S of multicast in -- the traffic of
 * NVLS, S (1 + 1/n) on the busier direction, against the ring's
 * 2 (n-1)/n S.
 *
 * Streaming: a block's slices are uniform except the last, so fill()
 * locates any step in O(1).
 */
#include <string.h>

#include <glib.h>

#include "gs_impl.h"

typedef struct gs_nvls {
	int64_t n, nch;
	uint64_t elem, count, se;
} gs_nvls;

/* Geometry of block b = strand / 2. */
typedef struct gs_nvls_plan {
	const gs_nvls *nv;
	int rank, up; /* up: strand 2b; otherwise 2b + 1 */
	int32_t owner, R, M;
	uint64_t bs, len, nslices;
} gs_nvls_plan;

static void gs_nvls_plan_init(gs_nvls_plan *pl, const gs_nvls *nv, int rank, int strand)
{
	uint64_t b = (uint64_t)(strand / 2);

	memset(pl, 0, sizeof(*pl));
	pl->nv = nv;
	pl->rank = rank;
	pl->up = strand % 2 == 0;
	pl->owner = (int32_t)(b % (uint64_t)nv->n);
	pl->R = (int32_t)nv->n;
	pl->M = (int32_t)nv->n + 1;
	gs_part(nv->count, (uint64_t)nv->nch * (uint64_t)nv->n, b, &pl->bs, &pl->len);
	pl->nslices = gs_divup(pl->len, nv->se);
}

static uint64_t gs_nvls_plan_len(const gs_nvls_plan *pl)
{
	if (pl->rank < pl->nv->n)
		return pl->nslices;
	bool r = pl->rank == pl->R;
	if (r != pl->up)
		return 0; /* R works on the up strands, M on the down strands */
	return pl->nslices * (uint64_t)pl->nv->n;
}

static uint64_t gs_nvls_strand_len(const gs_gen *g, int rank, int ch)
{
	gs_nvls_plan pl;

	gs_nvls_plan_init(&pl, g->priv, rank, ch);
	return gs_nvls_plan_len(&pl);
}

static void gs_nvls_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n, gs_step *out)
{
	const gs_nvls *nv = g->priv;
	gs_nvls_plan pl;

	gs_nvls_plan_init(&pl, nv, rank, ch);
	const int32_t nn = (int32_t)nv->n;
	const bool gpu = rank < nn;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t step = first + i;
		uint64_t j = gpu ? step : step / (uint64_t)nn;
		int32_t q = gpu ? 0 : (int32_t)(step % (uint64_t)nn);
		uint64_t es = pl.bs + j * nv->se;
		uint64_t el = MIN(nv->se, pl.bs + pl.len - es);
		uint64_t off = es * nv->elem, bytes = el * nv->elem;
		gs_step *st = &out[i];

		if (gpu && pl.up)
			gs_step_set(st, GS_OP_SEND, pl.R, -1, GS_BUF_INPUT, off, 0, 0, bytes);
		else if (gpu && rank == pl.owner)
			gs_step_set(st, GS_OP_RECV_COPY_SEND, pl.M, pl.R, 0, 0, GS_BUF_OUTPUT, off, bytes);
		else if (gpu)
			gs_step_set(st, GS_OP_RECV, -1, pl.M, 0, 0, GS_BUF_OUTPUT, off, bytes);
		else if (rank == pl.R && q == 0)
			gs_step_set(st, GS_OP_RECV, -1, 0, 0, 0, GS_BUF_SCRATCH, off, bytes);
		else if (rank == pl.R && q < nn - 1)
			gs_step_set(st, GS_OP_RECV_REDUCE_COPY, -1, q, GS_BUF_SCRATCH, off, GS_BUF_SCRATCH,
				    off, bytes);
		else if (rank == pl.R)
			gs_step_set(st, GS_OP_RECV_REDUCE_SEND, pl.owner, q, GS_BUF_SCRATCH, off, 0, 0,
				    bytes);
		else if (q == 0)
			gs_step_set(st, GS_OP_RECV, -1, pl.owner, 0, 0, GS_BUF_SCRATCH, off, bytes);
		else
			gs_step_set(st, GS_OP_SEND, (pl.owner + q) % nn, -1, GS_BUF_SCRATCH, off, 0, 0,
				    bytes);
	}
}

static const gs_gen_ops gs_nvls_ops = {
	.strand_len = gs_nvls_strand_len,
	.fill = gs_nvls_fill,
	.destroy = gs_gen_free_priv,
};

gc_status gs_nvls_init(gs_gen *g, char **errmsg)
{
	const gs_params *p = &g->p;
	gs_nvls *nv;

	if (p->nranks < 2) {
		*errmsg = g_strdup_printf("nvls needs at least 2 ranks, not %d", p->nranks);
		return GC_ERR_INPUT;
	}
	if (p->ranks_per_node != p->nranks) {
		*errmsg = g_strdup_printf("nvls reduces in one NVSwitch: all %d ranks must share a node "
					  "(ranks_per_node %d)",
					  p->nranks, p->ranks_per_node);
		return GC_ERR_INPUT;
	}
	nv = g_new0(gs_nvls, 1);
	nv->n = p->nranks;
	nv->nch = p->nchannels;
	nv->elem = gs_dtype_size(p->dtype);
	nv->count = p->bytes / nv->elem;
	nv->se = MAX(p->slice_bytes / nv->elem, (uint64_t)1);
	g->priv = nv;
	g->ops = &gs_nvls_ops;
	g->nhelpers = 2;
	g->nstrands = 2 * p->nchannels * p->nranks;
	g->strands_per_channel = 2;
	for (int b = 0; b < GS_BUF__COUNT; b++)
		g->buf_bytes[b] = nv->count * nv->elem;
	g->nsignals = 0;
	return GC_OK;
}
