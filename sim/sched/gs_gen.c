/* SPDX-License-Identifier: MIT */
/*
 * gs_gen: the generator front end -- parameter validation and normalization,
 * dispatch to the algorithm generators, materialization of a whole
 * schedule, and the golden text dump.
 *
 * Normalization (nccl-tests semantics, so sizes line up with nccl-tests
 * rows):
 *  - allreduce, sendrecv, broadcast, reduce: count = bytes / elem (rounded down); the
 *    effective p.bytes is count * elem, the per-rank buffer.
 *  - allgather, reducescatter: per-rank count = bytes / (elem * nranks);
 *    the effective p.bytes is count * elem * nranks, the total buffer.
 *  - alltoall: bytes / elem rounded down to a multiple of nranks (blocks
 *    of bytes / (elem * nranks) elements, one per peer); the effective
 *    p.bytes is the total per-rank buffer, INPUT and OUTPUT alike.
 *  - algorithms: tree only for allreduce; pairwise and put only for
 *    alltoall, which has no other algorithm; sendrecv ignores the
 *    algorithm (ring by convention).
 *  - chunk_bytes 0 means NCCL's Simple ring chunk (2 MiB); slice_bytes 0
 *    means half a chunk (NCCL: SLICESTEPS / CHUNKSTEPS = 2 / 4). Both are
 *    rounded down to a multiple of the element size, at least one element,
 *    and slice_bytes <= chunk_bytes is required.
 *  - ranks_per_node 0 means all ranks on one node.
 *  - group_size 0 means one communicator of all ranks, group_stride 0 a
 *    stride of 1. With smaller groups the generator of one group (of
 *    group_size ranks, its ranks_per_node the members sharing a node) runs
 *    in every group with its peers relabelled to global ranks; the
 *    normalized p then holds the group's bytes and ranks_per_node with the
 *    global nranks. group_block / group_block_stride make two-level groups
 *    (gs_params); a layout that is one level after all (blocks of one, one
 *    block, or blocks adjacent at the stride) is normalized to one level
 *    with both 0.
 * A collective whose effective count is 0 is valid: every strand is empty.
 *
 * Invariants: a gs_gen is immutable after gs_gen_create() (fill may be
 * called concurrently from several threads), its output is a pure
 * function of the normalized parameters, and strands_per_channel >= 1
 * divides nstrands (checked here for every generator). nsignals is 0
 * unless the generator emits one-sided ops.
 */
#include <inttypes.h>

#include <glib.h>

#include "gs_impl.h"

/* NCCL Simple protocol defaults (shared/reference/README.md: "ring allreduce
 * Simple chunk 2 MiB of 1 MiB slices"). */
#define GS_DEFAULT_CHUNK_BYTES (2ull << 20)

/* Sanity limits that keep every offset and step count computation of the
 * generators inside 64 bits (nranks * chunk elements, steps per strand). */
#define GS_MAX_RANKS (1 << 20)
#define GS_MAX_CHANNELS (1 << 12)
#define GS_MAX_CHUNK_BYTES (1ull << 40)

/* Round bytes down to a multiple of elem, keeping at least one element. */
static uint64_t gs_round_elems(uint64_t bytes, uint64_t elem)
{
	uint64_t r = bytes - bytes % elem;

	return r ? r : elem;
}

static gc_status gs_params_normalize(const gs_params *in, gs_params *p, char **errmsg)
{
	uint64_t elem, count;

	*p = *in;
	if ((unsigned)p->coll >= GS_COLL__COUNT) {
		*errmsg = g_strdup_printf("unknown collective %d", (int)p->coll);
		return GC_ERR_INPUT;
	}
	if ((unsigned)p->algo >= GS_ALGO__COUNT) {
		*errmsg = g_strdup_printf("unknown algorithm %d", (int)p->algo);
		return GC_ERR_INPUT;
	}
	if ((unsigned)p->dtype >= GS_DT__COUNT) {
		*errmsg = g_strdup_printf("unknown data type %d", (int)p->dtype);
		return GC_ERR_INPUT;
	}
	if (p->nranks < 1 || p->nranks > GS_MAX_RANKS) {
		*errmsg =
			g_strdup_printf("nranks %d out of range [1, %d]", p->nranks, GS_MAX_RANKS);
		return GC_ERR_INPUT;
	}
	if (p->nchannels < 1 || p->nchannels > GS_MAX_CHANNELS) {
		*errmsg = g_strdup_printf("nchannels %d out of range [1, %d]", p->nchannels,
					  GS_MAX_CHANNELS);
		return GC_ERR_INPUT;
	}
	if (p->bytes > GS_MAX_BYTES) {
		*errmsg = g_strdup_printf("bytes %" PRIu64 " above the limit %" PRIu64, p->bytes,
					  (uint64_t)GS_MAX_BYTES);
		return GC_ERR_INPUT;
	}
	if (p->ranks_per_node == 0)
		p->ranks_per_node = p->nranks;
	if (p->ranks_per_node < 0 || p->ranks_per_node > p->nranks ||
	    p->nranks % p->ranks_per_node != 0) {
		*errmsg = g_strdup_printf("ranks_per_node %d does not divide nranks %d",
					  in->ranks_per_node, p->nranks);
		return GC_ERR_INPUT;
	}
	if (p->group_size < 0 || p->group_stride < 0 || p->group_block < 0 ||
	    p->group_block_stride < 0) {
		*errmsg = g_strdup_printf("group size %d, stride %d, block %d and block stride %d "
					  "must not be negative",
					  p->group_size, p->group_stride, p->group_block,
					  p->group_block_stride);
		return GC_ERR_INPUT;
	}
	p->group_size = gs_group_n(p);
	p->group_stride = gs_group_stride(p);
	if (p->group_block > 0 && p->group_size % p->group_block != 0) {
		*errmsg = g_strdup_printf("blocks of %d ranks do not divide groups of %d",
					  p->group_block, p->group_size);
		return GC_ERR_INPUT;
	}
	if (p->group_block == 1 && p->group_block_stride > 0) {
		/* blocks of one: one level at the block stride */
		p->group_stride = p->group_block_stride;
		p->group_block = p->group_block_stride = 0;
	}
	int64_t B = gs_group_block(p), T = gs_group_block_stride(p);
	if (T % (B * p->group_stride) != 0) {
		*errmsg = g_strdup_printf("a block stride of %lld is not a multiple of the block's "
					  "span (%lld ranks x stride %d)",
					  (long long)T, (long long)B, p->group_stride);
		return GC_ERR_INPUT;
	}
	if (gs_group_is_flat(p) || B == p->group_size) /* one block: the stride alone */
		p->group_block = p->group_block_stride = 0;
	/* the ranks one group's layout spans: G S, or G / B blocks T apart */
	int64_t span = gs_group_is_flat(p) ? (int64_t)p->group_size * p->group_stride
					   : T * (p->group_size / B);
	if (p->group_size > p->nranks || span > (int64_t)p->nranks || p->nranks % span != 0) {
		if (gs_group_is_flat(p))
			*errmsg = g_strdup_printf("groups of %d ranks at stride %d do not tile %d ranks "
						  "(group size x stride must divide the ranks)",
						  p->group_size, p->group_stride, p->nranks);
		else
			*errmsg = g_strdup_printf("groups of %d ranks in blocks of %lld at stride %d, "
						  "%lld apart, do not tile %d ranks (group size / "
						  "block x block stride must divide the ranks)",
						  p->group_size, (long long)B, p->group_stride,
						  (long long)T, p->nranks);
		return GC_ERR_INPUT;
	}
	/* the switch's helper ranks come per node: nvls runs in groups that are
	 * each one whole node (consecutive, ranks_per_node of them) */
	if (p->group_size < p->nranks &&
	    (p->algo == GS_ALGO_NVLS_TREE || p->algo == GS_ALGO_COLLNET ||
	     p->algo == GS_ALGO_COLLNET_CHAIN ||
	     (p->algo == GS_ALGO_NVLS &&
	      (p->group_stride != 1 || p->group_size != p->ranks_per_node ||
	       !gs_group_is_flat(p))))) {
		*errmsg = g_strdup_printf("%s reduces in the switch over every GPU behind it; it "
					  "does not run in groups of %d of the %d ranks%s",
					  gs_algo_name(p->algo), p->group_size, p->nranks,
					  p->algo == GS_ALGO_NVLS ? " unless each group is one whole node"
								  : "");
		return GC_ERR_INPUT;
	}
	if ((p->algo == GS_ALGO_TREE || p->algo == GS_ALGO_NVLS_TREE || p->algo == GS_ALGO_COLLNET ||
	     p->algo == GS_ALGO_COLLNET_CHAIN) &&
	    p->coll != GS_COLL_ALLREDUCE) {
		*errmsg = g_strdup_printf("the %s algorithm is only defined for allreduce, not %s",
					  gs_algo_name(p->algo), gs_coll_name(p->coll));
		return GC_ERR_INPUT;
	}
	if (p->algo == GS_ALGO_NVLS && p->coll != GS_COLL_ALLREDUCE &&
	    p->coll != GS_COLL_ALLGATHER && p->coll != GS_COLL_REDUCESCATTER) {
		*errmsg = g_strdup_printf("the nvls algorithm is only defined for allreduce, "
					  "allgather and reducescatter, not %s",
					  gs_coll_name(p->coll));
		return GC_ERR_INPUT;
	}
	if (p->algo == GS_ALGO_NVLS && p->nranks > GS_MAX_RANKS - 2) {
		*errmsg = g_strdup_printf("nvls: %d ranks and the switch's 2 helper ranks exceed %d",
					  p->nranks, GS_MAX_RANKS);
		return GC_ERR_INPUT;
	}
	if (p->algo == GS_ALGO_NVLS && p->ranks_per_node < p->nranks &&
	    p->nranks > GS_MAX_RANKS - 3 * (p->nranks / p->ranks_per_node) - 1) {
		*errmsg = g_strdup_printf("nvls across nodes: %d ranks and 3 helper ranks per node "
					  "(and one) exceed %d",
					  p->nranks, GS_MAX_RANKS);
		return GC_ERR_INPUT;
	}
	if ((p->algo == GS_ALGO_COLLNET || p->algo == GS_ALGO_COLLNET_CHAIN) &&
	    p->nranks > GS_MAX_RANKS - 3 * (p->nranks / p->ranks_per_node) - 1) {
		*errmsg = g_strdup_printf("%s: %d ranks and 3 helper ranks per node (and one) "
					  "exceed %d",
					  gs_algo_name(p->algo), p->nranks, GS_MAX_RANKS);
		return GC_ERR_INPUT;
	}
	if (p->algo == GS_ALGO_NVLS_TREE &&
	    p->nranks > GS_MAX_RANKS - 2 * (p->nranks / p->ranks_per_node)) {
		*errmsg = g_strdup_printf("nvlstree: %d ranks and 2 helper ranks per node exceed %d",
					  p->nranks, GS_MAX_RANKS);
		return GC_ERR_INPUT;
	}
	if (p->algo == GS_ALGO_HD && p->coll != GS_COLL_ALLREDUCE) {
		*errmsg = g_strdup_printf("the halving-doubling algorithm is only defined for "
					  "allreduce, not %s",
					  gs_coll_name(p->coll));
		return GC_ERR_INPUT;
	}
	if ((p->algo == GS_ALGO_BRUCK || p->algo == GS_ALGO_PAT) && p->coll != GS_COLL_ALLGATHER &&
	    p->coll != GS_COLL_REDUCESCATTER) {
		*errmsg = g_strdup_printf("the %s algorithm is only defined for allgather and "
					  "reducescatter, not %s",
					  gs_algo_name(p->algo), gs_coll_name(p->coll));
		return GC_ERR_INPUT;
	}
	if (gs_coll_is_moe(p->coll) && p->algo != GS_ALGO_PUT && p->algo != GS_ALGO_FORWARD &&
	    p->algo != GS_ALGO_PPLX && p->algo != GS_ALGO_GARDEN) {
		*errmsg = g_strdup_printf("%s runs as put (one-sided, GPU-initiated), forward "
					  "(through the same-rail GPU of each node), pplx "
					  "(pplx-kernels' put-with-signal per message) or garden "
					  "(pplx-garden's bulk write per rank), not %s",
					  gs_coll_name(p->coll), gs_algo_name(p->algo));
		return GC_ERR_INPUT;
	}
	if ((p->algo == GS_ALGO_FORWARD || p->algo == GS_ALGO_PPLX || p->algo == GS_ALGO_GARDEN) &&
	    !gs_coll_is_moe(p->coll)) {
		*errmsg = g_strdup_printf("the %s algorithm is only defined for dispatch and "
					  "combine, not %s",
					  gs_algo_name(p->algo), gs_coll_name(p->coll));
		return GC_ERR_INPUT;
	}
	if ((p->coll == GS_COLL_BROADCAST || p->coll == GS_COLL_REDUCE) && p->algo != GS_ALGO_RING) {
		*errmsg = g_strdup_printf("%s runs as NCCL's ring (a chain from the root around "
					  "the ring), not %s",
					  gs_coll_name(p->coll), gs_algo_name(p->algo));
		return GC_ERR_INPUT;
	}
	if (gs_coll_is_moe(p->coll) && p->moe_chunk == 0)
		p->moe_chunk = GS_MOE_CHUNK_DEFAULT;
	if ((p->algo == GS_ALGO_PAIRWISE || p->algo == GS_ALGO_PUT) &&
	    p->coll != GS_COLL_ALLTOALL && p->coll != GS_COLL_DISPATCH && p->coll != GS_COLL_COMBINE) {
		*errmsg = g_strdup_printf("the %s algorithm is only defined for alltoall, not %s",
					  gs_algo_name(p->algo), gs_coll_name(p->coll));
		return GC_ERR_INPUT;
	}
	if (p->coll == GS_COLL_ALLTOALL && p->algo != GS_ALGO_PAIRWISE && p->algo != GS_ALGO_PUT) {
		*errmsg = g_strdup_printf("alltoall has the pairwise and put algorithms, not %s",
					  gs_algo_name(p->algo));
		return GC_ERR_INPUT;
	}

	elem = gs_dtype_size(p->dtype);
	if (p->chunk_bytes == 0)
		p->chunk_bytes = GS_DEFAULT_CHUNK_BYTES;
	if (p->chunk_bytes > GS_MAX_CHUNK_BYTES) {
		*errmsg = g_strdup_printf("chunk_bytes %" PRIu64 " above the limit %" PRIu64,
					  p->chunk_bytes, (uint64_t)GS_MAX_CHUNK_BYTES);
		return GC_ERR_INPUT;
	}
	if (p->slice_bytes == 0)
		p->slice_bytes = p->chunk_bytes / 2;
	else if (p->slice_bytes > p->chunk_bytes) {
		*errmsg =
			g_strdup_printf("slice_bytes %" PRIu64 " larger than chunk_bytes %" PRIu64,
					p->slice_bytes, p->chunk_bytes);
		return GC_ERR_INPUT;
	}
	p->chunk_bytes = gs_round_elems(p->chunk_bytes, elem);
	p->slice_bytes = gs_round_elems(p->slice_bytes, elem);

	switch (p->coll) {
	case GS_COLL_ALLGATHER:
	case GS_COLL_REDUCESCATTER:
	case GS_COLL_ALLTOALL:
		count = p->bytes / (elem * (uint64_t)p->nranks);
		p->bytes = count * elem * (uint64_t)p->nranks;
		break;
	default:
		count = p->bytes / elem;
		p->bytes = count * elem;
		break;
	}
	return GC_OK;
}

/* ---- communicators: one schedule per group, relabelled ---------------- */

/* Members of one group that share a node, when every group's members fall
 * on nodes (of rpn consecutive ranks) in equal runs of consecutive members;
 * 1 otherwise (each member then counts as its own node: the tree becomes
 * one inter-node tree over the group, the ring keeps the group's order). */
int gs_group_rpn(const gs_params *p)
{
	const int G = gs_group_n(p), R = p->ranks_per_node > 0 ? p->ranks_per_node : p->nranks;
	int m = 1;

	while (m < G && gs_group_member(p, 0, m) / R == gs_group_member(p, 0, 0) / R)
		m++;
	if (G % m != 0)
		return 1;
	for (int id = 0; id < gs_group_count(p); id++)
		for (int j = 0; j < G; j++) {
			int node = gs_group_member(p, id, j) / R;

			if (node != gs_group_member(p, id, j - j % m) / R ||
			    (j % m == 0 && j > 0 && node == gs_group_member(p, id, j - 1) / R))
				return 1;
		}
	return m;
}

/* The inner generator runs one communicator of group_size ranks; rank r
 * plays its member index and its peers become their global ranks. */
/* Helper ranks (nvls in one-node groups): the inner generator's nh helpers
 * after its G ranks become, for group id, global ranks N + nh id + j, which
 * is the topology's layout of helpers per node when the groups are the
 * nodes in order. */
static int gs_grouped_global(const gs_gen *g, int id, int q)
{
	const gs_gen *in = g->priv;
	const int G = in->p.nranks;

	return q < G ? gs_group_member(&g->p, id, q) : g->p.nranks + in->nhelpers * id + (q - G);
}

/* (group, inner rank) of a global rank, helpers included */
static void gs_grouped_local(const gs_gen *g, int rank, int *id, int *q)
{
	const gs_gen *in = g->priv;

	if (rank < g->p.nranks) {
		*id = gs_group_id(&g->p, rank);
		*q = gs_group_local(&g->p, rank);
	} else {
		*id = (rank - g->p.nranks) / in->nhelpers;
		*q = in->p.nranks + (rank - g->p.nranks) % in->nhelpers;
	}
}

static uint64_t gs_grouped_strand_len(const gs_gen *g, int rank, int ch)
{
	const gs_gen *in = g->priv;
	int id, q;

	gs_grouped_local(g, rank, &id, &q);
	return in->ops->strand_len(in, q, ch);
}

static void gs_grouped_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n,
			    gs_step *out)
{
	const gs_gen *in = g->priv;
	int id, q;

	gs_grouped_local(g, rank, &id, &q);
	in->ops->fill(in, q, ch, first, n, out);
	for (uint32_t k = 0; k < n; k++) {
		if (out[k].send_peer >= 0)
			out[k].send_peer = gs_grouped_global(g, id, out[k].send_peer);
		if (out[k].recv_peer >= 0)
			out[k].recv_peer = gs_grouped_global(g, id, out[k].recv_peer);
	}
}

static void gs_grouped_destroy(gs_gen *g)
{
	gs_gen_free(g->priv);
	g->priv = NULL;
}

static const gs_gen_ops gs_grouped_ops = {
	.strand_len = gs_grouped_strand_len,
	.fill = gs_grouped_fill,
	.destroy = gs_grouped_destroy,
};

static gc_status gs_grouped_create(const gs_params *norm, gs_gen **out, char **errmsg)
{
	gs_params ip = *norm;
	gs_gen *in, *g;
	gc_status st;

	ip.nranks = norm->group_size;
	ip.group_size = 0;
	ip.group_stride = 0;
	ip.group_block = 0;
	ip.group_block_stride = 0;
	ip.ranks_per_node = gs_group_rpn(norm);
	/* local pairs are physical pairs only in consecutive members */
	ip.ring_pairs = norm->ring_pairs && gs_group_stride(norm) == 1 && gs_group_is_flat(norm);
	st = gs_gen_create(&ip, &in, errmsg);
	if (st != GC_OK)
		return st;
	g = g_new0(gs_gen, 1);
	g->p = in->p;
	g->p.nranks = norm->nranks;
	g->p.group_size = norm->group_size;
	g->p.group_stride = norm->group_stride;
	g->p.group_block = norm->group_block;
	g->p.group_block_stride = norm->group_block_stride;
	g->nstrands = in->nstrands;
	g->strands_per_channel = in->strands_per_channel;
	for (int b = 0; b < GS_BUF__COUNT; b++)
		g->buf_bytes[b] = in->buf_bytes[b];
	g->nsignals = in->nsignals;
	g->nhelpers = in->nhelpers * gs_group_count(norm);
	/* One level, members at stride S: r = h G S + j S + l is member j of
	 * group h S + l. Moving every rank by G S moves each group onto the
	 * next block's, member for member; with one block (G S = n), moving
	 * by P S moves each group onto itself, its members by P (mod G),
	 * where its own schedule repeats every P members. */
	if (in->nhelpers == 0 && gs_group_is_flat(norm)) {
		const int64_t G = gs_group_n(norm), S = gs_group_stride(norm);
		if (G * S < norm->nranks)
			g->rank_period = (int)(G * S);
		else if (in->rank_period > 0)
			g->rank_period = (int)(in->rank_period * S);
	}
	g->priv = in;
	g->ops = &gs_grouped_ops;
	*out = g;
	return GC_OK;
}

gc_status gs_gen_create(const gs_params *p, gs_gen **out, char **errmsg)
{
	gs_gen *g;
	gc_status st;

	*out = NULL;
	g = g_new0(gs_gen, 1);
	st = gs_params_normalize(p, &g->p, errmsg);
	if (st != GC_OK)
		goto fail;
	if (g->p.group_size < g->p.nranks) {
		gs_params norm = g->p;

		g_free(g);
		return gs_grouped_create(&norm, out, errmsg);
	}

	switch (g->p.coll) {
	case GS_COLL_ALLREDUCE:
		st = g->p.algo == GS_ALGO_TREE	 ? gs_tree_init(g, errmsg)
		     : g->p.algo == GS_ALGO_NVLS ? gs_nvls_init(g, errmsg)
		     : g->p.algo == GS_ALGO_NVLS_TREE ? gs_nvls_tree_init(g, errmsg)
		     : g->p.algo == GS_ALGO_COLLNET ? gs_collnet_init(g, errmsg)
		     : g->p.algo == GS_ALGO_COLLNET_CHAIN ? gs_collnet_chain_init(g, errmsg)
		     : g->p.algo == GS_ALGO_HD ? gs_hd_init(g, errmsg)
						 : gs_ring_init(g, errmsg);
		break;
	case GS_COLL_ALLGATHER:
	case GS_COLL_REDUCESCATTER:
		st = g->p.algo == GS_ALGO_BRUCK ? gs_bruck_init(g, errmsg)
		     : g->p.algo == GS_ALGO_PAT ? gs_pat_init(g, errmsg)
		     : g->p.algo == GS_ALGO_NVLS ? gs_nvls_init(g, errmsg)
						: gs_ring_init(g, errmsg);
		break;
	case GS_COLL_SENDRECV: st = gs_p2p_init(g, errmsg); break;
	case GS_COLL_BROADCAST:
	case GS_COLL_REDUCE: st = gs_chain_init(g, errmsg); break;
	case GS_COLL_ALLTOALL: st = gs_a2a_init(g, errmsg); break;
	case GS_COLL_DISPATCH:
	case GS_COLL_COMBINE:
		st = g->p.algo == GS_ALGO_FORWARD ? gs_moefwd_init(g, errmsg)
		     : g->p.algo == GS_ALGO_PPLX  ? gs_pplx_init(g, errmsg)
		     : g->p.algo == GS_ALGO_GARDEN ? gs_garden_init(g, errmsg)
						   : gs_moe_init(g, errmsg);
		break;
	default:
		*errmsg = g_strdup_printf("no generator for %s", gs_coll_name(g->p.coll));
		st = GC_ERR_INPUT;
		break;
	}
	if (st != GC_OK)
		goto fail;
	/* the channel grouping every executor keys connections by */
	if (g->nstrands < 1 || g->strands_per_channel < 1 ||
	    g->nstrands % g->strands_per_channel != 0) {
		*errmsg = g_strdup_printf("internal: the %s %s generator made %d strands in "
					  "channels of %d strands",
					  gs_algo_name(g->p.algo), gs_coll_name(g->p.coll),
					  g->nstrands, g->strands_per_channel);
		st = GC_ERR_INTERNAL;
		goto fail_gen;
	}
	*out = g;
	return GC_OK;

fail_gen:
	if (g->ops && g->ops->destroy)
		g->ops->destroy(g);
fail:
	g_free(g);
	return st;
}

void gs_gen_free(gs_gen *g)
{
	if (!g)
		return;
	if (g->ops && g->ops->destroy)
		g->ops->destroy(g);
	g_free(g);
}

void gs_gen_free_priv(gs_gen *g)
{
	g_free(g->priv);
	g->priv = NULL;
}

uint64_t gs_gen_total_steps(const gs_gen *g)
{
	uint64_t total = 0;

	for (int r = 0; r < gs_gen_nranks(g); r++)
		for (int c = 0; c < g->nstrands; c++)
			total += g->ops->strand_len(g, r, c);
	return total;
}

/* A map of ranks and strands onto themselves that the schedule should
 * respect: every rank moved by P (mod n), or (rotation) every rank one
 * place along its node of R ranks and every channel by S. */
typedef struct gs_img {
	bool rot;
	int P, S, G, n, R, spc;
	int T; /* > 0: channel c's image is c + T G, on the same ranks */
} gs_img;

/* a peer's image; -1 stays -1, and every peer under a repeat */
static int32_t img_peer(const gs_img *f, int32_t peer)
{
	if (peer < 0 || f->T > 0 || (f->rot && peer >= f->n)) /* a helper stays itself */
		return peer;
	if (!f->rot)
		return (int32_t)(((int64_t)peer + f->P) % f->n);
	return (int32_t)(peer - peer % f->R + (peer % f->R + 1) % f->R);
}

/* strand c's image: itself, or (rotation) the same strand of the channel
 * S further on */
static int img_strand(const gs_img *f, int c)
{
	if (f->T > 0)
		return c + f->T * f->G * f->spc;
	if (!f->rot)
		return c;
	return gs_rot_channel(c / f->spc, f->S, f->G) * f->spc + c % f->spc;
}

/* Every strand of every rank against its image under f, step by step. */
static bool images_hold(const gs_gen *g, const gs_img *f, char **why)
{
	const int n = f->rot || f->T > 0 ? gs_gen_nranks(g) : g->p.nranks;
	enum { W = 256 };
	gs_step *a = g_new(gs_step, W), *b = g_new(gs_step, W);
	bool ok = true;
	for (int r = 0; r < n && ok; r++) {
		const int img = f->T > 0 ? r : img_peer(f, r);
		for (int c = 0; c < g->nstrands && ok; c++) {
			const int ic = img_strand(f, c);
			if (ic >= g->nstrands) /* the last T groups: no image */
				break;
			uint64_t len = g->ops->strand_len(g, r, c);
			if (g->ops->strand_len(g, img, ic) != len) {
				if (why)
					*why = g_strdup_printf("rank %d strand %d: %llu steps, rank %d strand "
							       "%d %llu",
							       r, c, (unsigned long long)len, img, ic,
							       (unsigned long long)g->ops->strand_len(g, img, ic));
				ok = false;
				break;
			}
			for (uint64_t at = 0; at < len && ok; at += W) {
				uint32_t k = (uint32_t)MIN((uint64_t)W, len - at);
				g->ops->fill(g, r, c, at, k, a);
				g->ops->fill(g, img, ic, at, k, b);
				for (uint32_t i = 0; i < k && ok; i++) {
					const gs_step *x = &a[i], *y = &b[i];
					const bool sig = x->op == GS_OP_SIGNAL || x->op == GS_OP_WAIT;
					ok = x->op == y->op && x->flags == y->flags && x->bytes == y->bytes &&
					     img_peer(f, x->send_peer) == y->send_peer &&
					     img_peer(f, x->recv_peer) == y->recv_peer &&
					     (!sig || (x->src_off == y->src_off && x->dst_off == y->dst_off));
					if (!ok && why)
						*why = g_strdup_printf("rank %d strand %d step %llu: %s of %llu B "
								       "(peers %d, %d); rank %d strand %d: %s "
								       "of %llu B (peers %d, %d)",
								       r, c, (unsigned long long)(at + i),
								       gs_op_name((gs_op)x->op),
								       (unsigned long long)x->bytes, x->send_peer,
								       x->recv_peer, img, ic, gs_op_name((gs_op)y->op),
								       (unsigned long long)y->bytes, y->send_peer,
								       y->recv_peer);
				}
			}
		}
	}
	g_free(a);
	g_free(b);
	return ok;
}

bool gs_gen_period_holds(const gs_gen *g, int P, char **why)
{
	const int n = g->p.nranks;
	if (P <= 0 || n % P != 0 || g->nhelpers > 0) {
		if (why)
			*why = g_strdup_printf("%d ranks (and %d helpers) do not repeat every %d", n,
					       g->nhelpers, P);
		return false;
	}
	const gs_img f = {.P = P, .n = n};
	return images_hold(g, &f, why);
}

bool gs_gen_rotation_holds(const gs_gen *g, int S, int G, char **why)
{
	const int n = g->p.nranks, R = g->p.ranks_per_node;
	const int spc = g->strands_per_channel > 0 ? g->strands_per_channel : 1;
	const int nch = g->nstrands / spc;
	if (G <= 0)
		G = nch;
	if (S <= 0 || R <= 0 || n % R != 0 || (int64_t)S * R != G || nch % G != 0) {
		if (why)
			*why = g_strdup_printf("%d channels in groups of %d over %d ranks a node do not "
					       "rotate by %d channels a rank",
					       nch, G, R, S);
		return false;
	}
	const gs_img f = {.rot = true, .S = S, .G = G, .n = n, .R = R, .spc = spc};
	return images_hold(g, &f, why);
}

bool gs_gen_repeat_holds(const gs_gen *g, int T, char **why)
{
	const int spc = g->strands_per_channel > 0 ? g->strands_per_channel : 1;
	const int nch = g->nstrands / spc, G = gs_gen_chan_group(g);
	if (T <= 0 || G <= 0 || nch % G != 0 || (nch / G) % T != 0 || nch / G <= T) {
		if (why)
			*why = g_strdup_printf("%d channels in groups of %d do not repeat every %d groups",
					       nch, G, T);
		return false;
	}
	const gs_img f = {.T = T, .G = G, .spc = spc};
	return images_hold(g, &f, why);
}

/* fill takes a uint32 count; materialize in windows of this many steps. */
#define GS_FILL_WINDOW (1u << 20)

gs_sched *gs_sched_materialize(const gs_gen *g)
{
	gs_sched *s = g_new0(gs_sched, 1);
	uint64_t nstr = (uint64_t)gs_gen_nranks(g) * (uint64_t)g->nstrands;
	uint64_t total = 0;

	s->p = g->p;
	s->nranks = gs_gen_nranks(g);
	s->nhelpers = g->nhelpers;
	s->nstrands = g->nstrands;
	s->strands_per_channel = g->strands_per_channel;
	for (int b = 0; b < GS_BUF__COUNT; b++)
		s->buf_bytes[b] = g->buf_bytes[b];
	s->nsignals = g->nsignals;

	s->strand_off = g_new(uint64_t, nstr + 1);
	for (int r = 0; r < s->nranks; r++) {
		for (int c = 0; c < s->nstrands; c++) {
			s->strand_off[(uint64_t)r * (uint64_t)s->nstrands + (uint64_t)c] = total;
			total += g->ops->strand_len(g, r, c);
		}
	}
	s->strand_off[nstr] = total;
	s->steps = g_new(gs_step, total);

	for (int r = 0; r < s->nranks; r++) {
		for (int c = 0; c < s->nstrands; c++) {
			uint64_t i = (uint64_t)r * (uint64_t)s->nstrands + (uint64_t)c;
			uint64_t len = s->strand_off[i + 1] - s->strand_off[i];

			for (uint64_t first = 0; first < len; first += GS_FILL_WINDOW) {
				uint64_t n = MIN(len - first, (uint64_t)GS_FILL_WINDOW);

				g->ops->fill(g, r, c, first, (uint32_t)n,
					     s->steps + s->strand_off[i] + first);
			}
		}
	}
	return s;
}

void gs_sched_free(gs_sched *s)
{
	if (!s)
		return;
	g_free(s->strand_off);
	g_free(s->steps);
	g_free(s);
}

static void gs_buf_append(GString *out, unsigned buf, uint64_t off)
{
	static const char *const names[GS_BUF__COUNT] = { "INPUT", "OUTPUT", "SCRATCH" };

	if (buf < GS_BUF__COUNT)
		g_string_append_printf(out, "%s+%" PRIu64, names[buf], off);
	else
		g_string_append_printf(out, "BUF%u+%" PRIu64, buf, off);
}

/*
 * One line per step, rank-major, then strand, then step index:
 *   r0 c0 #0 SEND send=1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=1024
 * Every field is printed whether or not the op uses it, so the dump is a
 * faithful image of the plain data; flags, when a step has any, end the
 * line (" fanout").
 */
void gs_sched_dump(const gs_sched *s, void *gstring_out)
{
	GString *out = gstring_out;

	for (int r = 0; r < s->nranks; r++) {
		for (int c = 0; c < s->nstrands; c++) {
			uint64_t len;
			const gs_step *st = gs_sched_strand(s, r, c, &len);

			for (uint64_t i = 0; i < len; i++) {
				g_string_append_printf(out,
						       "r%d c%d #%" PRIu64 " %s send=%" PRId32
						       " recv=%" PRId32 " src=",
						       r, c, i, gs_op_name(st[i].op),
						       st[i].send_peer, st[i].recv_peer);
				gs_buf_append(out, st[i].src_buf, st[i].src_off);
				g_string_append(out, " dst=");
				gs_buf_append(out, st[i].dst_buf, st[i].dst_off);
				g_string_append_printf(out, " bytes=%" PRIu64 "%s\n", st[i].bytes,
						       st[i].flags & GS_STEP_FANOUT ? " fanout" : "");
			}
		}
	}
}
