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
 *                  R: per slice RECV from GPU k + 1 into SCRATCH,
 *                  RECV_REDUCE_COPY from the next n - 2 (mod n),
 *                  RECV_REDUCE_SEND from k back to k (the multimem
 *                  load-reduce)
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
 * Allgather and reduce-scatter (NCCL's one-node NVLS of all_gather.h and
 * reduce_scatter.h) use one engine each, the other helper staying idle.
 * Every rank's block of count elements (its input for the allgather, its
 * output for the reduce-scatter) is cut into C channel parts; block
 * b = c * n + k is part c of rank k's block:
 *   allgather       strand 2b: owner k SENDs each INPUT slice to M (the
 *                  multimem store); M RECVs it into SCRATCH and SENDs it
 *                  to all n GPUs, starting after k and ending with k (the
 *                  switch writes every member's buffer, the sender's too)
 *                  strand 2b + 1: every GPU RECVs the slice from M into
 *                  its OUTPUT at k's block
 *   reduce-scatter strand 2b: every GPU SENDs its INPUT slice of k's block
 *                  to R; R reduces the n of them (as for the allreduce)
 *                  and sends the sum to k (the multimem load-reduce)
 *                  strand 2b + 1: owner k RECVs it into its OUTPUT
 * Per GPU port: the allgather sends S/n and takes S in, the reduce-scatter
 * sends S and takes S/n in (S the gathered size), against the ring's
 * (n-1)/n S each way: the switch saves the steps, not the bytes.
 *
 * Streaming: a block's slices are uniform except the last, so fill()
 * locates any step in O(1).
 */
#include <string.h>

#include <glib.h>

#include "gs_impl.h"

/* The schedules of gs_nvt (below): nvlstree, nvls across nodes (SHARP;
 * allreduce, or allgather and reduce-scatter), CollNet Direct and CollNet
 * Chain (SHARP, no NVLS). */
typedef enum gs_nvt_mode {
	GS_NVT_TREE = 0,
	GS_NVT_SHARP,
	GS_NVT_DIRECT,
	GS_NVT_CHAIN,
	GS_NVT_AGRS /* nvls allgather or reduce-scatter across nodes (SHARP) */
} gs_nvt_mode;

static gc_status gs_nvt_init(gs_gen *g, gs_nvt_mode mode, char **errmsg);

typedef struct gs_nvls {
	gs_coll coll;
	int64_t n, nch;
	uint64_t elem, count, se; /* count: the buffer's (allreduce) or a rank's block's */
} gs_nvls;

/* Geometry of block b = strand / 2. */
typedef struct gs_nvls_plan {
	const gs_nvls *nv;
	int rank, up; /* up: strand 2b; otherwise 2b + 1 */
	int32_t owner, R, M;
	uint64_t bs, len, nslices;
	uint64_t kbase; /* allgather, reduce-scatter: the owner's block, in elements */
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
	if (nv->coll == GS_COLL_ALLREDUCE) {
		gs_part(nv->count, (uint64_t)nv->nch * (uint64_t)nv->n, b, &pl->bs, &pl->len);
	} else {
		gs_part(nv->count, (uint64_t)nv->nch, b / (uint64_t)nv->n, &pl->bs, &pl->len);
		pl->kbase = (uint64_t)pl->owner * nv->count;
	}
	pl->nslices = gs_divup(pl->len, nv->se);
}

static uint64_t gs_nvls_plan_len(const gs_nvls_plan *pl)
{
	const int64_t n = pl->nv->n;
	bool gpu = pl->rank < n, own = pl->rank == pl->owner;
	switch (pl->nv->coll) {
	case GS_COLL_ALLGATHER: /* the owner's store up, every GPU's copy down */
		if (gpu)
			return pl->up ? (own ? pl->nslices : 0) : pl->nslices;
		return pl->rank == pl->M && pl->up ? pl->nslices * (uint64_t)(n + 1) : 0;
	case GS_COLL_REDUCESCATTER: /* every GPU's part up, the owner's sum down */
		if (gpu)
			return pl->up || own ? pl->nslices : 0;
		return pl->rank == pl->R && pl->up ? pl->nslices * (uint64_t)n : 0;
	default:
		break;
	}
	if (gpu)
		return pl->nslices;
	bool r = pl->rank == pl->R;
	if (r != pl->up)
		return 0; /* R works on the up strands, M on the down strands */
	return pl->nslices * (uint64_t)n;
}

static uint64_t gs_nvls_strand_len(const gs_gen *g, int rank, int ch)
{
	gs_nvls_plan pl;

	gs_nvls_plan_init(&pl, g->priv, rank, ch);
	return gs_nvls_plan_len(&pl);
}

/* Step q of a slice on a switch helper of the n GPUs base .. base + n - 1
 * (`reduce`: the reduction engine R, else the multicast engine M), for
 * the block whose owner is GPU `owner`, at element offset off:
 *   R  RECV from the GPU after the owner into SCRATCH, RECV_REDUCE_COPY
 *      from the next n - 2, RECV_REDUCE_SEND from the owner itself, back
 *      to it
 *   M  RECV from the owner into SCRATCH, then SEND to the other n - 1 GPUs,
 *      starting after the owner
 * Both walk the GPUs from the owner, so the block owned by the next GPU
 * takes the same steps with every GPU moved one place (the rotation
 * gs_gen.chan_shift declares). */
static void gs_switch_step(gs_step *st, bool reduce, int32_t q, int32_t n, int32_t base,
			   int32_t owner, uint64_t off, uint64_t bytes)
{
	const int32_t from = base + (owner - base + 1 + q) % n;
	if (reduce && q == 0)
		gs_step_set(st, GS_OP_RECV, -1, from, 0, 0, GS_BUF_SCRATCH, off, bytes);
	else if (reduce && q < n - 1)
		gs_step_set(st, GS_OP_RECV_REDUCE_COPY, -1, from, GS_BUF_SCRATCH, off, GS_BUF_SCRATCH,
			    off, bytes);
	else if (reduce)
		gs_step_set(st, GS_OP_RECV_REDUCE_SEND, owner, from, GS_BUF_SCRATCH, off, 0, 0, bytes);
	else if (q == 0)
		gs_step_set(st, GS_OP_RECV, -1, owner, 0, 0, GS_BUF_SCRATCH, off, bytes);
	else
		gs_step_set(st, GS_OP_SEND, base + (owner - base + q) % n, -1, GS_BUF_SCRATCH, off, 0, 0,
			    bytes);
}

static void gs_nvls_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n, gs_step *out)
{
	const gs_nvls *nv = g->priv;
	gs_nvls_plan pl;

	gs_nvls_plan_init(&pl, nv, rank, ch);
	const int32_t nn = (int32_t)nv->n;
	const bool gpu = rank < nn;
	/* the multicast engine of an allgather sends to all n GPUs */
	const uint64_t per = nv->coll == GS_COLL_ALLGATHER ? (uint64_t)nn + 1 : (uint64_t)nn;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t step = first + i;
		uint64_t j = gpu ? step : step / per;
		int32_t q = gpu ? 0 : (int32_t)(step % per);
		uint64_t es = pl.bs + j * nv->se;
		uint64_t el = MIN(nv->se, pl.bs + pl.len - es);
		uint64_t off = es * nv->elem, bytes = el * nv->elem;
		uint64_t koff = (pl.kbase + es) * nv->elem; /* in the gathered buffer */
		gs_step *st = &out[i];

		if (nv->coll == GS_COLL_ALLGATHER) {
			if (gpu && pl.up)
				gs_step_set(st, GS_OP_SEND, pl.M, -1, GS_BUF_INPUT, off, 0, 0, bytes);
			else if (gpu)
				gs_step_set(st, GS_OP_RECV, -1, pl.M, 0, 0, GS_BUF_OUTPUT, koff, bytes);
			else if (q == 0)
				gs_step_set(st, GS_OP_RECV, -1, pl.owner, 0, 0, GS_BUF_SCRATCH, koff,
					    bytes);
			else
				gs_step_set(st, GS_OP_SEND, (pl.owner + q) % nn, -1, GS_BUF_SCRATCH,
					    koff, 0, 0, bytes);
			continue;
		}
		if (nv->coll == GS_COLL_REDUCESCATTER) {
			if (gpu && pl.up)
				gs_step_set(st, GS_OP_SEND, pl.R, -1, GS_BUF_INPUT, koff, 0, 0, bytes);
			else if (gpu)
				gs_step_set(st, GS_OP_RECV, -1, pl.R, 0, 0, GS_BUF_OUTPUT, off, bytes);
			else
				gs_switch_step(st, true, q, nn, 0, pl.owner, koff, bytes);
			continue;
		}
		if (gpu && pl.up)
			gs_step_set(st, GS_OP_SEND, pl.R, -1, GS_BUF_INPUT, off, 0, 0, bytes);
		else if (gpu && rank == pl.owner)
			gs_step_set(st, GS_OP_RECV_COPY_SEND, pl.M, pl.R, 0, 0, GS_BUF_OUTPUT, off, bytes);
		else if (gpu)
			gs_step_set(st, GS_OP_RECV, -1, pl.M, 0, 0, GS_BUF_OUTPUT, off, bytes);
		else
			gs_switch_step(st, rank == pl.R, q, nn, 0, pl.owner, off, bytes);
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
	if (p->ranks_per_node != p->nranks) /* across nodes: SHARP in the network */
		return gs_nvt_init(g, p->coll == GS_COLL_ALLREDUCE ? GS_NVT_SHARP : GS_NVT_AGRS, errmsg);
	nv = g_new0(gs_nvls, 1);
	nv->coll = p->coll;
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
	if (p->coll != GS_COLL_ALLREDUCE) {
		/* count: one rank's block; the switch's SCRATCH is indexed as
		 * the gathered buffer */
		nv->count /= (uint64_t)nv->n;
		uint64_t block = nv->count * nv->elem;
		g->buf_bytes[GS_BUF_INPUT] = p->coll == GS_COLL_ALLGATHER ? block : block * (uint64_t)nv->n;
		g->buf_bytes[GS_BUF_OUTPUT] = p->coll == GS_COLL_ALLGATHER ? block * (uint64_t)nv->n : block;
	}
	g->nsignals = 0;
	return GC_OK;
}

/*
 * nvlstree: NCCL's NVLS_TREE allreduce across nodes (src/device/all_reduce.h
 * runNvlsTree): NVLS inside every node, NCCL's double binary tree between
 * the nodes.
 *
 * m nodes of n GPUs (n = ranks_per_node, N = m n data ranks). Every node
 * has its own switch: helper ranks R_x = N + 2x (reduction) and
 * M_x = N + 2x + 1 (multicast) of node x, whose routes are the ports of
 * that node's GPUs. The elements are split into C n blocks as for nvls;
 * block b = c n + k is owned by local GPU k of every node, and the owners
 * of block b on the m nodes -- one GPU and so one NIC per node -- reduce
 * and broadcast it over node tree c % 2 (gs_ntree: the trees of gs_tree.c,
 * so channels alternate between two complementary trees, as NCCL's do).
 *
 * Per block three strands (channel b, strands_per_channel = 3):
 *   strand 3b      GPU g of node x: SEND each INPUT slice to R_x
 *                  R_x: RECV from the local GPU after the owner into
 *                  SCRATCH, RECV_REDUCE_COPY from the next n - 2,
 *                  RECV_REDUCE_SEND from the owner back to it
 *   strand 3b + 1  owner (tree up): RECV the node's sum from R_x into
 *                  SCRATCH, reduce each tree child's partial sum into it
 *                  and send the result to the tree parent; a leaf forwards
 *                  the node's sum (RECV_COPY_SEND); the root's last
 *                  reduction writes OUTPUT and starts the broadcast
 *   strand 3b + 2  owner (tree down, not at the root): RECV from the
 *                  parent into OUTPUT, send it to each tree child, then to
 *                  M_x; other GPUs: RECV the slice from M_x into OUTPUT
 *                  M_x: RECV from the owner into SCRATCH, SEND it to the
 *                  other n - 1 GPUs of the node, starting after the owner
 * The owner sends down to its tree children before its own node's
 * multicast, as gs_tree sends to the deeper subtrees first.
 *
 * Connections, each with one sending and one receiving strand: (g, R_x)
 * strand 3b at both ends; (R_x, owner) R_x's 3b, owner's 3b + 1; (child,
 * parent) both 3b + 1; (parent, child) the parent's 3b + 2 (the root's
 * 3b + 1) and the child's 3b + 2; (owner, M_x) the owner's 3b + 2 (the
 * root's 3b + 1) and M_x's 3b + 2; (M_x, g) both 3b + 2.
 *
 * Traffic: every GPU port carries what nvls's does on one node; every
 * owner's NIC carries per block one slice each way per tree edge at its
 * node (a leaf 1, an interior node 3, the root its children), which is
 * why the network bandwidth halves beyond two nodes, as NCCL's tuning
 * model assumes for NVLS_TREE.
 */
#define GS_NVT_MAX_SLOTS 6

enum { GS_NVT_SCATTER = 0, GS_NVT_UP = 1, GS_NVT_DOWN = 2 };

typedef struct gs_nvt {
	int64_t n, m, N, nch;
	uint64_t elem, count, se;
	gs_ntree nt;
	bool sharp;  /* the network's switch reduces (nvls across nodes, collnet) */
	bool direct; /* collnet: the owners reduce and broadcast in their node */
	bool chain;  /* collnetchain: a chain per channel up to its head */
	gs_coll agrs; /* nvls allgather or reduce-scatter across nodes, else allreduce */
} gs_nvt;

typedef struct gs_nvt_slotdef {
	gs_op op;
	int32_t send, recv;
	uint8_t src_buf, dst_buf;
} gs_nvt_slotdef;

typedef struct gs_nvt_plan {
	const gs_nvt *nv;
	int role;
	bool gpu;
	int32_t x, R, M, owner; /* node, its helpers, the block's owner there */
	uint64_t bs, len, nslices;
	int nslot; /* GPU strands: ops per slice; helpers: n per slice */
	bool direct_owner; /* collnet: the owner's up or down strand (steps in gs_cnd_step) */
	gs_nvt_slotdef slot[GS_NVT_MAX_SLOTS];
} gs_nvt_plan;

static void gs_nvt_slot(gs_nvt_plan *pl, gs_op op, int32_t send, int32_t recv, uint8_t src, uint8_t dst)
{
	g_assert(pl->nslot < GS_NVT_MAX_SLOTS);
	pl->slot[pl->nslot++] = (gs_nvt_slotdef){op, send, recv, src, dst};
}

/*
 * nvls across nodes (NCCL's NVLS with the network's switches reducing:
 * InfiniBand SHARP): as nvlstree inside every node, but the owners of a
 * block do not form a tree. Each sends its node's sum of every slice to
 * the network switch, which adds the m sums and sends the total back to
 * every owner, which multicasts it in its node through M_x. The network
 * switch is m + 1 more helper ranks after the 2m NVSwitch helpers:
 *   Q = N + 2m         up strands (3b + 1): RECV from node 0's owner
 *                      into SCRATCH, RECV_REDUCE_COPY from nodes 1..m-2,
 *                      RECV_REDUCE_SEND from node m-1 to E_0
 *   E_y = Q + 1 + y    up strands: the total from Q (y = 0) or E_{y-1},
 *                      forwarded to E_{y+1} (RECV_COPY_SEND; E_{m-1}:
 *                      RECV), then SENT to node y's owner
 * A GPU reaches Q through its NIC, E_y reaches node y's GPUs through
 * theirs, and the switch's helpers hand data to each other with no link
 * (gt_topo_route), so the forwarding costs no time: E_0..E_{m-1} are the
 * switch's egress ports sending one multicast. The owner's up strand
 * RECV_COPY_SENDs R_x's sum on to Q; its down strand RECV_COPY_SENDs the
 * total from E_x into OUTPUT and on to M_x.
 * Traffic: an owner's NIC carries one slice each way per slice of each
 * block it owns, S/n each way whatever m, against a tree's one per edge.
 */

/*
 * collnet: NCCL's CollNet Direct allreduce (src/device/all_reduce.h
 * runCollNetDirect) over the network's switches (SHARP), without NVLS:
 * every GPU of a node is the owner of its blocks there, as in nvls across
 * nodes, but the owner itself gathers the node's sum and hands out the
 * total, over plain NVLink sends (the node's switch helpers R_x and M_x
 * stay idle). Per block, owner o = k + x n and its peers p_i = x n +
 * (k + i) mod n, i = 1 .. n-1:
 *   strand 3b      peer: SEND each INPUT slice to the owner
 *   strand 3b + 1  owner: RECV_REDUCE_COPY from p_1 onto its INPUT into
 *                  SCRATCH, RECV_REDUCE_COPY from p_2 .. p_{n-2},
 *                  RECV_REDUCE_SEND from p_{n-1} to the network switch Q
 *                  (n = 2: one RECV_REDUCE_SEND onto INPUT; n = 1: SEND
 *                  its INPUT)
 *   strand 3b + 2  owner: RECV_COPY_SEND the total from E_x into OUTPUT and
 *                  on to p_1, then SEND it to p_2 .. p_{n-1} (n = 1: RECV)
 *                  peer: RECV the total from the owner into OUTPUT
 * Q and E_y work as for nvls across nodes. Traffic: a GPU port carries per
 * round C (n - 1) slices of contributions out and the owner's C (n - 1)
 * of totals, twice nvls's multicast share but at full NVLink bandwidth;
 * the NIC one slice each way per block owned, as with NVLS and SHARP.
 */

/* The network switch's helpers: Q = N + 2m reduces, E_y = N + 2m + 1 + y
 * sends to node y. */
static int32_t gs_nvs_Q(const gs_nvt *nv) { return (int32_t)(nv->N + 2 * nv->m); }
static int32_t gs_nvs_E(const gs_nvt *nv, int64_t y) { return gs_nvs_Q(nv) + 1 + (int32_t)y; }

/* The owner's slots on its up (role UP) or down (role DOWN) strand. */
static void gs_nvt_owner_slots(gs_nvt_plan *pl, int64_t c)
{
	const gs_nvt *nv = pl->nv;
	if (nv->sharp) {
		/* up: the node's sum from R_x on to the network switch; down:
		 * the total from the switch's port into OUTPUT and on to M_x */
		if (pl->role == GS_NVT_UP)
			gs_nvt_slot(pl, GS_OP_RECV_COPY_SEND, gs_nvs_Q(nv), pl->R, GS_BUF_SCRATCH,
				    GS_BUF_SCRATCH);
		else
			gs_nvt_slot(pl, GS_OP_RECV_COPY_SEND, pl->M, gs_nvs_E(nv, pl->x), GS_BUF_OUTPUT,
				    GS_BUF_OUTPUT);
		return;
	}
	const int t = (int)(c % 2);
	const int64_t k = pl->owner - pl->x * nv->n;
	const int32_t pn = nv->nt.parent[t][pl->x];
	const int32_t parent = pn < 0 ? -1 : (int32_t)(pn * nv->n + k);
	int32_t kids[2], down[3];
	int nk = 0, nd = 0;

	for (int i = 0; i < 2; i++) {
		int32_t y = nv->nt.child[t][2 * pl->x + i];
		if (y >= 0)
			kids[nk++] = down[nd++] = (int32_t)(y * nv->n + k);
	}
	down[nd++] = pl->M;
	if (pl->role == GS_NVT_UP) {
		if (nk == 0) { /* a leaf (m >= 2, so not the root) */
			gs_nvt_slot(pl, GS_OP_RECV_COPY_SEND, parent, pl->R, GS_BUF_SCRATCH, GS_BUF_SCRATCH);
			return;
		}
		gs_nvt_slot(pl, GS_OP_RECV, -1, pl->R, GS_BUF_SCRATCH, GS_BUF_SCRATCH);
		for (int i = 0; i < nk - 1; i++)
			gs_nvt_slot(pl, GS_OP_RECV_REDUCE_COPY, -1, kids[i], GS_BUF_SCRATCH, GS_BUF_SCRATCH);
		if (parent >= 0) {
			gs_nvt_slot(pl, GS_OP_RECV_REDUCE_SEND, parent, kids[nk - 1], GS_BUF_SCRATCH,
				    GS_BUF_SCRATCH);
			return;
		}
		gs_nvt_slot(pl, GS_OP_RECV_REDUCE_COPY_SEND, down[0], kids[nk - 1], GS_BUF_SCRATCH,
			    GS_BUF_OUTPUT);
	} else {
		if (parent < 0)
			return; /* the root's up strand broadcasts */
		gs_nvt_slot(pl, GS_OP_RECV_COPY_SEND, down[0], parent, GS_BUF_OUTPUT, GS_BUF_OUTPUT);
	}
	for (int i = 1; i < nd; i++)
		gs_nvt_slot(pl, GS_OP_SEND, down[i], -1, GS_BUF_OUTPUT, GS_BUF_OUTPUT);
}

static void gs_nvt_plan_init(gs_nvt_plan *pl, const gs_nvt *nv, int rank, int strand)
{
	const uint64_t b = (uint64_t)(strand / 3);
	const int64_t c = (int64_t)(b / (uint64_t)nv->n), k = (int64_t)(b % (uint64_t)nv->n);

	memset(pl, 0, sizeof(*pl));
	pl->nv = nv;
	pl->role = strand % 3;
	pl->gpu = rank < nv->N;
	pl->x = pl->gpu ? (int32_t)(rank / nv->n) : (int32_t)((rank - nv->N) / 2);
	if (nv->sharp && rank >= gs_nvs_Q(nv)) {
		/* the network switch works on the up strands: Q one step per
		 * node's owner per slice, E_y two (forward, send to node y) */
		pl->x = rank == gs_nvs_Q(nv) ? -1 : (int32_t)(rank - gs_nvs_E(nv, 0));
		pl->owner = (int32_t)k; /* the block's owner on node 0 */
		gs_part(nv->count, (uint64_t)nv->nch * (uint64_t)nv->n, b, &pl->bs, &pl->len);
		pl->nslices = gs_divup(pl->len, nv->se);
		if (pl->role == GS_NVT_UP)
			pl->nslot = pl->x < 0 ? (int)nv->m : 2;
		return;
	}
	pl->R = (int32_t)(nv->N + 2 * pl->x);
	pl->M = pl->R + 1;
	pl->owner = (int32_t)(pl->x * nv->n + k);
	gs_part(nv->count, (uint64_t)nv->nch * (uint64_t)nv->n, b, &pl->bs, &pl->len);
	pl->nslices = gs_divup(pl->len, nv->se);
	if (nv->direct) {
		/* collnet: the switch helpers idle; peers send to and receive
		 * from the owner, whose up and down strands have n - 1 steps
		 * per slice (one when it is alone in its node) */
		if (!pl->gpu || pl->role == GS_NVT_SCATTER) {
			if (pl->gpu && rank != pl->owner)
				gs_nvt_slot(pl, GS_OP_SEND, pl->owner, -1, GS_BUF_INPUT, GS_BUF_OUTPUT);
		} else if (rank == pl->owner) {
			pl->direct_owner = true;
			pl->nslot = nv->n > 1 ? (int)nv->n - 1 : 1;
		} else if (pl->role == GS_NVT_DOWN) {
			gs_nvt_slot(pl, GS_OP_RECV, -1, pl->owner, GS_BUF_OUTPUT, GS_BUF_OUTPUT);
		}
		return;
	}
	if (!pl->gpu) {
		/* R works on the scatter strands, M on the down strands */
		bool r = rank == pl->R;
		if ((r && pl->role == GS_NVT_SCATTER) || (!r && pl->role == GS_NVT_DOWN))
			pl->nslot = (int)nv->n;
		return;
	}
	if (pl->role == GS_NVT_SCATTER)
		gs_nvt_slot(pl, GS_OP_SEND, pl->R, -1, GS_BUF_INPUT, GS_BUF_OUTPUT);
	else if (rank == pl->owner)
		gs_nvt_owner_slots(pl, c);
	else if (pl->role == GS_NVT_DOWN)
		gs_nvt_slot(pl, GS_OP_RECV, -1, pl->M, GS_BUF_OUTPUT, GS_BUF_OUTPUT);
}


/* Step q of a slice on the network switch for the block owned by local
 * GPU k (its owners: k + y n on node y):
 *   Q (x < 0)  RECV from node 0's owner into SCRATCH, RECV_REDUCE_COPY from
 *              nodes 1 .. m-2, RECV_REDUCE_SEND from node m-1 to E_0
 *   E_y        RECV (E_{m-1}) or RECV_COPY_SEND (forward to E_{y+1}) the
 *              total from Q (y = 0) or E_{y-1}, then SEND it to node y's
 *              owner */
static void gs_nvs_step(const gs_nvt *nv, gs_step *st, int32_t x, int32_t q, int32_t k, uint64_t off,
			uint64_t bytes)
{
	const int32_t m = (int32_t)nv->m, n = (int32_t)nv->n;
	if (x < 0) {
		int32_t from = k + q * n;
		if (q == 0)
			gs_step_set(st, GS_OP_RECV, -1, from, 0, 0, GS_BUF_SCRATCH, off, bytes);
		else if (q < m - 1)
			gs_step_set(st, GS_OP_RECV_REDUCE_COPY, -1, from, GS_BUF_SCRATCH, off, GS_BUF_SCRATCH,
				    off, bytes);
		else
			gs_step_set(st, GS_OP_RECV_REDUCE_SEND, gs_nvs_E(nv, 0), from, GS_BUF_SCRATCH, off, 0,
				    0, bytes);
		return;
	}
	int32_t prev = x == 0 ? gs_nvs_Q(nv) : gs_nvs_E(nv, x - 1);
	if (q == 1)
		gs_step_set(st, GS_OP_SEND, k + x * n, -1, GS_BUF_SCRATCH, off, 0, 0, bytes);
	else if (x + 1 < m)
		gs_step_set(st, GS_OP_RECV_COPY_SEND, gs_nvs_E(nv, x + 1), prev, GS_BUF_SCRATCH, off,
			    GS_BUF_SCRATCH, off, bytes);
	else
		gs_step_set(st, GS_OP_RECV, -1, prev, 0, 0, GS_BUF_SCRATCH, off, bytes);
}

/* collnet: step q of a slice on the owner's up or down strand (see the
 * collnet comment above); o = the owner, x its node. */
static void gs_cnd_step(const gs_nvt *nv, const gs_nvt_plan *pl, gs_step *st, int32_t q,
			uint64_t off, uint64_t bytes)
{
	const int32_t n = (int32_t)nv->n, k = pl->owner - pl->x * n;
	const int32_t peer = pl->x * n + (k + q + 1) % n; /* p_{q+1} */
	if (pl->role == GS_NVT_UP) {
		if (n == 1)
			gs_step_set(st, GS_OP_SEND, gs_nvs_Q(nv), -1, GS_BUF_INPUT, off, 0, 0, bytes);
		else if (q == n - 2) /* the last peer: on to the network switch */
			gs_step_set(st, GS_OP_RECV_REDUCE_SEND, gs_nvs_Q(nv), peer,
				    q == 0 ? GS_BUF_INPUT : GS_BUF_SCRATCH, off, 0, 0, bytes);
		else
			gs_step_set(st, GS_OP_RECV_REDUCE_COPY, -1, peer,
				    q == 0 ? GS_BUF_INPUT : GS_BUF_SCRATCH, off, GS_BUF_SCRATCH, off, bytes);
		return;
	}
	if (n == 1)
		gs_step_set(st, GS_OP_RECV, -1, gs_nvs_E(nv, pl->x), 0, 0, GS_BUF_OUTPUT, off, bytes);
	else if (q == 0)
		gs_step_set(st, GS_OP_RECV_COPY_SEND, peer, gs_nvs_E(nv, pl->x), 0, 0, GS_BUF_OUTPUT,
			    off, bytes);
	else
		gs_step_set(st, GS_OP_SEND, peer, -1, GS_BUF_OUTPUT, off, 0, 0, bytes);
}

/*
 * collnetchain: NCCL's CollNet Chain allreduce (src/device/all_reduce.h
 * runCollNetChain) over the network's switches (SHARP), without NVLS.
 * Channel c owns part c of the buffer and runs a chain through every
 * node's n GPUs: position 0 is the head, local GPU h = c mod n (so the
 * heads, and the NICs they reach the network through, rotate over the
 * channels), position i is local GPU (h + i) mod n. Two strands per channel
 * (channel c, strands_per_channel = 2):
 *   strand 2c      up: the bottom (position n-1) SENDs each INPUT slice to
 *                  the GPU above it, which RECV_REDUCE_SENDs its INPUT in
 *                  and passes it on; the head RECV_REDUCE_SENDs the node's
 *                  sum to the network switch Q (n = 1: SENDs its INPUT)
 *                  Q, E_y: as for nvls across nodes, for the heads
 *   strand 2c + 1  down: the head RECV_COPY_SENDs the total from E_x into
 *                  OUTPUT and on down the chain, each GPU passes it on
 *                  (RECV_COPY_SEND), the bottom RECVs it
 * Traffic: over n channels a GPU sits once at every position, so its
 * NVLink port carries 2 (n-1)/n S each way, the ring's, and its NIC S/n
 * each way whatever the node count, as with CollNet Direct; what the
 * chain trades is latency: 2 (n-1) NVLink hops in a row.
 */
typedef struct gs_cnc_plan {
	int32_t h;	  /* the channel's head, local index */
	int32_t above;	  /* -1: the network (the head) */
	int32_t below;	  /* -1: the bottom */
	int32_t x;	  /* node; the network switch: -1 for Q, y for E_y */
	bool gpu, up, net;
	uint64_t bs, len, nslices;
	int nslot;
} gs_cnc_plan;

static void gs_cnc_plan_init(gs_cnc_plan *pl, const gs_nvt *nv, int rank, int strand)
{
	const int64_t c = strand / 2, n = nv->n;

	memset(pl, 0, sizeof(*pl));
	pl->h = (int32_t)(c % n);
	pl->up = strand % 2 == 0;
	pl->gpu = rank < nv->N;
	pl->net = rank >= gs_nvs_Q(nv);
	gs_part(nv->count, (uint64_t)nv->nch, (uint64_t)c, &pl->bs, &pl->len);
	pl->nslices = gs_divup(pl->len, nv->se);
	if (pl->net) { /* Q one step per node per slice, E_y two */
		pl->x = rank == gs_nvs_Q(nv) ? -1 : (int32_t)(rank - gs_nvs_E(nv, 0));
		pl->nslot = !pl->up ? 0 : pl->x < 0 ? (int)nv->m : 2;
		return;
	}
	if (!pl->gpu)
		return; /* the NVSwitch helpers idle */
	pl->x = (int32_t)(rank / n);
	const int64_t pos = gs_mod(rank % n - pl->h, n), base = pl->x * n;
	pl->above = pos == 0 ? -1 : (int32_t)(base + (pl->h + pos - 1) % n);
	pl->below = pos == n - 1 ? -1 : (int32_t)(base + (pl->h + pos + 1) % n);
	pl->nslot = 1;
}

static void gs_cnc_step(const gs_nvt *nv, const gs_cnc_plan *pl, gs_step *st, int32_t q, uint64_t off,
			uint64_t bytes)
{
	if (pl->net) {
		gs_nvs_step(nv, st, pl->x, q, pl->h, off, bytes);
		return;
	}
	if (pl->up) {
		int32_t to = pl->above >= 0 ? pl->above : gs_nvs_Q(nv);
		if (pl->below < 0)
			gs_step_set(st, GS_OP_SEND, to, -1, GS_BUF_INPUT, off, 0, 0, bytes);
		else
			gs_step_set(st, GS_OP_RECV_REDUCE_SEND, to, pl->below, GS_BUF_INPUT, off, 0, 0,
				    bytes);
		return;
	}
	int32_t from = pl->above >= 0 ? pl->above : gs_nvs_E(nv, pl->x);
	if (pl->below < 0)
		gs_step_set(st, GS_OP_RECV, -1, from, 0, 0, GS_BUF_OUTPUT, off, bytes);
	else
		gs_step_set(st, GS_OP_RECV_COPY_SEND, pl->below, from, 0, 0, GS_BUF_OUTPUT, off, bytes);
}

/*
 * nvls allgather and reduce-scatter across nodes (NCCL's NVLS with the
 * network's switches, SHARP: all_gather.h and reduce_scatter.h beyond one
 * node). Every GPU is the head of its rail: local GPU k of every node
 * reaches the network through its own NIC. Block b = c n + k is part c of
 * the blocks of rail k's m ranks (rank y n + k of each node y); count is
 * one rank's block. Three strands per block, as for the allreduce:
 *   allgather
 *     3b      (x, k): SEND its INPUT slice to Q
 *             Q: per slice and node x, RECV_COPY_SEND (x, k)'s slice on to
 *             E_0; E_y passes it on (E_{m-1}: RECV) and SENDs it to (y, k):
 *             the switch hands every node's part to every node
 *     3b + 1  (y, k): per slice and node x, RECV_COPY_SEND the slice from
 *             E_y on to M_y, which SENDs it to all n GPUs of node y, (y, k)
 *             too (the multicast store reaches every member)
 *     3b + 2  every GPU: RECV it from M_y into OUTPUT (rank x n + k's block)
 *   reduce-scatter
 *     3b      every GPU (x, j): per slice and node y, SEND its INPUT part
 *             of rank y n + k's block to R_x, which adds node x's n of
 *             them (as for the allreduce) and sends the sum to (x, k)
 *     3b + 1  (x, k): RECV_COPY_SEND each node sum on to Q; Q adds the m
 *             nodes' sums of rank y n + k's slice and SENDs it to E_y,
 *             which SENDs it on to (y, k)
 *     3b + 2  (y, k): RECV its slice of the total from E_y into OUTPUT
 * Traffic per GPU: the NIC carries the GPU's own block out and its rail's
 * m blocks in (the allgather; the reverse for the reduce-scatter), S/N
 * and S/n of a gathered size S; the NVLink port the rail's m blocks out to
 * the switch and every rail's in, S/n and S, as on one node: the network
 * carries what a ring's does, in one step instead of N - 1.
 */
enum { GS_AGRS_UP = 0, GS_AGRS_MID = 1, GS_AGRS_END = 2 };

typedef struct gs_agrs_plan {
	int role, nslot; /* slot: steps per (slice, node) pass */
	bool gpu, net, head;
	int32_t x, k, j, R, M; /* node, the block's rail, own local index, the node's helpers */
	uint64_t bs, len, nslices;
} gs_agrs_plan;

static void gs_agrs_plan_init(gs_agrs_plan *pl, const gs_nvt *nv, int rank, int strand)
{
	const uint64_t b = (uint64_t)(strand / 3);
	const bool ag = nv->agrs == GS_COLL_ALLGATHER;
	memset(pl, 0, sizeof(*pl));
	pl->role = strand % 3;
	pl->k = (int32_t)(b % (uint64_t)nv->n);
	gs_part(nv->count, (uint64_t)nv->nch, b / (uint64_t)nv->n, &pl->bs, &pl->len);
	pl->nslices = gs_divup(pl->len, nv->se);
	pl->gpu = rank < nv->N;
	pl->net = rank >= gs_nvs_Q(nv);
	if (pl->net) {
		/* per pass: Q one step (allgather) or one per node (the
		 * reduce-scatter's sum); E_y two (on along the ports, and to
		 * its node), the reduce-scatter's one (to its node) */
		pl->x = rank == gs_nvs_Q(nv) ? -1 : (int32_t)(rank - gs_nvs_E(nv, 0));
		bool busy = pl->role == (ag ? GS_AGRS_UP : GS_AGRS_MID);
		pl->nslot = !busy ? 0 : pl->x < 0 ? (ag ? 1 : (int)nv->m) : ag ? 2 : 1;
		return;
	}
	if (!pl->gpu) { /* the node's switch: M multicasts (allgather), R reduces */
		pl->x = (int32_t)((rank - nv->N) / 2);
		bool r = (rank - nv->N) % 2 == 0;
		pl->nslot = ag ? (!r && pl->role == GS_AGRS_MID ? (int)nv->n + 1 : 0)
			       : (r && pl->role == GS_AGRS_UP ? (int)nv->n : 0);
		return;
	}
	pl->x = (int32_t)(rank / nv->n);
	pl->j = (int32_t)(rank % nv->n);
	pl->head = pl->j == pl->k;
	pl->R = (int32_t)(nv->N + 2 * pl->x);
	pl->M = pl->R + 1;
	if (ag)
		pl->nslot = pl->role == GS_AGRS_UP || pl->role == GS_AGRS_MID ? (pl->head ? 1 : 0) : 1;
	else
		pl->nslot = pl->role == GS_AGRS_UP ? 1 : pl->head ? 1 : 0;
}

/* The passes of a strand per slice, one per node otherwise: once for the
 * allgather's own-block send, the reduce-scatter's own total and its
 * egress port's hand-over of it. */
static uint64_t gs_agrs_passes(const gs_nvt *nv, const gs_agrs_plan *pl)
{
	bool once = nv->agrs == GS_COLL_ALLGATHER
			    ? pl->gpu && pl->role == GS_AGRS_UP
			    : (pl->gpu && pl->role == GS_AGRS_END) || (pl->net && pl->x >= 0);
	return once ? 1 : (uint64_t)nv->m;
}

static void gs_agrs_step(const gs_nvt *nv, const gs_agrs_plan *pl, gs_step *st, uint64_t y, int32_t q,
			 uint64_t es, uint64_t el)
{
	const int32_t n = (int32_t)nv->n, k = pl->k;
	const uint64_t e = nv->elem, bytes = el * e;
	/* rank y n + k's slice in the gathered (allgather OUTPUT, reduce-scatter
	 * INPUT) buffer, and in a rank's own block */
	const uint64_t goff = (((uint64_t)y * (uint64_t)n + (uint64_t)k) * nv->count + es) * e, off = es * e;
	if (nv->agrs == GS_COLL_ALLGATHER) {
		if (pl->net && pl->x < 0) {
			gs_step_set(st, GS_OP_RECV_COPY_SEND, gs_nvs_E(nv, 0), (int32_t)y * n + k, 0, 0,
				    GS_BUF_SCRATCH, goff, bytes);
		} else if (pl->net) {
			int32_t prev = pl->x == 0 ? gs_nvs_Q(nv) : gs_nvs_E(nv, pl->x - 1);
			if (q == 1)
				gs_step_set(st, GS_OP_SEND, pl->x * n + k, -1, GS_BUF_SCRATCH, goff, 0, 0,
					    bytes);
			else if (pl->x + 1 < nv->m)
				gs_step_set(st, GS_OP_RECV_COPY_SEND, gs_nvs_E(nv, pl->x + 1), prev, 0, 0,
					    GS_BUF_SCRATCH, goff, bytes);
			else
				gs_step_set(st, GS_OP_RECV, -1, prev, 0, 0, GS_BUF_SCRATCH, goff, bytes);
		} else if (!pl->gpu) { /* M_x: from the rail's head to all n, the head last */
			int32_t head = pl->x * n + k;
			if (q == 0)
				gs_step_set(st, GS_OP_RECV, -1, head, 0, 0, GS_BUF_SCRATCH, goff, bytes);
			else
				gs_step_set(st, GS_OP_SEND, pl->x * n + (k + q) % n, -1, GS_BUF_SCRATCH, goff,
					    0, 0, bytes);
		} else if (pl->role == GS_AGRS_UP) {
			gs_step_set(st, GS_OP_SEND, gs_nvs_Q(nv), -1, GS_BUF_INPUT, off, 0, 0, bytes);
		} else if (pl->role == GS_AGRS_MID) {
			gs_step_set(st, GS_OP_RECV_COPY_SEND, pl->M, gs_nvs_E(nv, pl->x), 0, 0,
				    GS_BUF_SCRATCH, goff, bytes);
		} else {
			gs_step_set(st, GS_OP_RECV, -1, pl->M, 0, 0, GS_BUF_OUTPUT, goff, bytes);
		}
		return;
	}
	/* reduce-scatter */
	if (pl->net && pl->x < 0) { /* Q: node q's sum of rank y n + k's slice */
		int32_t from = q * n + k;
		if (q == 0)
			gs_step_set(st, GS_OP_RECV, -1, from, 0, 0, GS_BUF_SCRATCH, goff, bytes);
		else if (q < nv->m - 1)
			gs_step_set(st, GS_OP_RECV_REDUCE_COPY, -1, from, GS_BUF_SCRATCH, goff,
				    GS_BUF_SCRATCH, goff, bytes);
		else
			gs_step_set(st, GS_OP_RECV_REDUCE_SEND, gs_nvs_E(nv, (int64_t)y), from,
				    GS_BUF_SCRATCH, goff, 0, 0, bytes);
	} else if (pl->net) { /* E_x: node x's total on to its head */
		gs_step_set(st, GS_OP_RECV_COPY_SEND, pl->x * n + k, gs_nvs_Q(nv), 0, 0, GS_BUF_SCRATCH,
			    goff, bytes);
	} else if (!pl->gpu) { /* R_x */
		gs_switch_step(st, true, q, n, pl->x * n, pl->x * n + k, goff, bytes);
	} else if (pl->role == GS_AGRS_UP) {
		gs_step_set(st, GS_OP_SEND, pl->R, -1, GS_BUF_INPUT, goff, 0, 0, bytes);
	} else if (pl->role == GS_AGRS_MID) {
		gs_step_set(st, GS_OP_RECV_COPY_SEND, gs_nvs_Q(nv), pl->R, 0, 0, GS_BUF_SCRATCH, goff,
			    bytes);
	} else {
		gs_step_set(st, GS_OP_RECV, -1, gs_nvs_E(nv, pl->x), 0, 0, GS_BUF_OUTPUT, off, bytes);
	}
}

static uint64_t gs_nvt_strand_len(const gs_gen *g, int rank, int ch)
{
	gs_nvt_plan pl;
	const gs_nvt *nv = g->priv;

	if (nv->agrs != GS_COLL_ALLREDUCE) {
		gs_agrs_plan ap;
		gs_agrs_plan_init(&ap, nv, rank, ch);
		return ap.nslices * gs_agrs_passes(nv, &ap) * (uint64_t)ap.nslot;
	}

	if (nv->chain) {
		gs_cnc_plan cp;
		gs_cnc_plan_init(&cp, nv, rank, ch);
		return cp.nslices * (uint64_t)cp.nslot;
	}

	gs_nvt_plan_init(&pl, g->priv, rank, ch);
	return pl.nslices * (uint64_t)pl.nslot;
}

static void gs_nvt_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n, gs_step *out)
{
	const gs_nvt *nv = g->priv;
	gs_nvt_plan pl;

	if (nv->agrs != GS_COLL_ALLREDUCE) {
		gs_agrs_plan ap;
		gs_agrs_plan_init(&ap, nv, rank, ch);
		const uint64_t passes = gs_agrs_passes(nv, &ap), per = passes * (uint64_t)ap.nslot;
		g_assert(first + n <= ap.nslices * per);
		for (uint32_t i = 0; i < n; i++) {
			uint64_t step = first + i, jj = step / per, r = step % per;
			uint64_t y = r / (uint64_t)ap.nslot;
			if (passes == 1) /* the one pass is for the node's own rank */
				y = (uint64_t)(ap.gpu || ap.net ? ap.x : 0);
			uint64_t es = ap.bs + jj * nv->se, el = MIN(nv->se, ap.bs + ap.len - es);
			gs_agrs_step(nv, &ap, &out[i], y, (int32_t)(r % (uint64_t)ap.nslot), es, el);
		}
		return;
	}
	if (nv->chain) {
		gs_cnc_plan cp;
		gs_cnc_plan_init(&cp, nv, rank, ch);
		g_assert(first + n <= cp.nslices * (uint64_t)cp.nslot);
		for (uint32_t i = 0; i < n; i++) {
			uint64_t step = first + i, j = step / (uint64_t)cp.nslot;
			uint64_t es = cp.bs + j * nv->se, el = MIN(nv->se, cp.bs + cp.len - es);
			gs_cnc_step(nv, &cp, &out[i], (int32_t)(step % (uint64_t)cp.nslot), es * nv->elem,
				    el * nv->elem);
		}
		return;
	}
	gs_nvt_plan_init(&pl, nv, rank, ch);
	g_assert(first + n <= pl.nslices * (uint64_t)pl.nslot);
	const int32_t nn = (int32_t)nv->n, base = pl.x * nn;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t step = first + i, j = step / (uint64_t)pl.nslot;
		int32_t q = (int32_t)(step % (uint64_t)pl.nslot);
		uint64_t es = pl.bs + j * nv->se;
		uint64_t el = MIN(nv->se, pl.bs + pl.len - es);
		uint64_t off = es * nv->elem, bytes = el * nv->elem;
		gs_step *st = &out[i];

		if (pl.direct_owner) {
			gs_cnd_step(nv, &pl, st, q, off, bytes);
		} else if (pl.gpu) {
			const gs_nvt_slotdef *sl = &pl.slot[q];
			gs_step_set(st, sl->op, sl->send, sl->recv, sl->src_buf, off, sl->dst_buf, off, bytes);
		} else if (nv->sharp && rank >= gs_nvs_Q(nv)) {
			gs_nvs_step(nv, st, pl.x, q, pl.owner, off, bytes);
		} else {
			gs_switch_step(st, rank == pl.R, q, nn, base, pl.owner, off, bytes);
		}
	}
}

static void gs_nvt_destroy(gs_gen *g)
{
	gs_nvt *nv = g->priv;

	if (nv) {
		gs_ntree_free(&nv->nt);
		g_free(nv);
	}
	g->priv = NULL;
}

static const gs_gen_ops gs_nvt_ops = {
	.strand_len = gs_nvt_strand_len,
	.fill = gs_nvt_fill,
	.destroy = gs_nvt_destroy,
};

/* nvlstree, nvls across nodes or collnet: see above and below. */
static gc_status gs_nvt_init(gs_gen *g, gs_nvt_mode mode, char **errmsg)
{
	const gs_params *p = &g->p;
	const int64_t n = p->ranks_per_node, m = p->nranks / p->ranks_per_node;
	const bool sharp = mode != GS_NVT_TREE;
	const char *name = mode == GS_NVT_DIRECT  ? "collnet"
			   : mode == GS_NVT_CHAIN ? "collnetchain"
			   : mode == GS_NVT_AGRS  ? (p->coll == GS_COLL_ALLGATHER ? "nvls allgather across nodes"
									   : "nvls reducescatter across nodes")
			   : sharp		  ? "nvls across nodes"
						  : "nvlstree";

	if (m < 2) {
		*errmsg = g_strdup_printf("%s joins nodes through the network: it needs at least 2 "
					  "nodes, not %lld%s",
					  name, (long long)m,
					  mode == GS_NVT_DIRECT || mode == GS_NVT_CHAIN ? "" : " (one node: nvls)");
		return GC_ERR_INPUT;
	}
	if (n < 2 && mode != GS_NVT_DIRECT && mode != GS_NVT_CHAIN) {
		*errmsg = g_strdup_printf("%s reduces in each node's NVSwitch: it needs at least 2 "
					  "ranks per node, not %lld",
					  name, (long long)n);
		return GC_ERR_INPUT;
	}
	gs_nvt *nv = g_new0(gs_nvt, 1);
	nv->n = n;
	nv->m = m;
	nv->N = p->nranks;
	nv->nch = p->nchannels;
	nv->elem = gs_dtype_size(p->dtype);
	nv->count = p->bytes / nv->elem;
	nv->se = MAX(p->slice_bytes / nv->elem, (uint64_t)1);
	nv->sharp = sharp;
	nv->direct = mode == GS_NVT_DIRECT;
	nv->chain = mode == GS_NVT_CHAIN;
	nv->agrs = mode == GS_NVT_AGRS ? p->coll : GS_COLL_ALLREDUCE;
	g->priv = nv;
	g->ops = &gs_nvt_ops;
	gc_status st = gs_ntree_build(&nv->nt, m, errmsg);
	if (st != GC_OK) {
		gs_nvt_destroy(g);
		g->ops = NULL;
		return st;
	}
	g->nhelpers = (int)(sharp ? 3 * m + 1 : 2 * m);
	g->nstrands = nv->chain ? 2 * p->nchannels : 3 * p->nchannels * (int)n;
	g->strands_per_channel = nv->chain ? 2 : 3;
	/* nvlstree: block c n + k + 1 is block c n + k owned by the next local
	 * GPU of every node, on the same tree, its switch steps walking the
	 * GPUs from the owner: the blocks rotate in groups of n with the
	 * GPUs, where they are equal */
	if (mode == GS_NVT_TREE && nv->count % ((uint64_t)nv->nch * (uint64_t)n) == 0) {
		g->chan_shift = 1;
		g->chan_group = (int)n;
		/* and group c + 2 is group c on the same tree (c % 2), the
		 * same owners, peers and parts */
		if (nv->nch % 2 == 0 && nv->nch > 2)
			g->chan_repeat = 2;
	}
	for (int b = 0; b < GS_BUF__COUNT; b++)
		g->buf_bytes[b] = nv->count * nv->elem;
	if (nv->agrs != GS_COLL_ALLREDUCE) {
		/* count: one rank's block; the helpers' SCRATCH is indexed as
		 * the gathered buffer */
		nv->count /= (uint64_t)nv->N;
		uint64_t block = nv->count * nv->elem, all = block * (uint64_t)nv->N;
		bool ag = nv->agrs == GS_COLL_ALLGATHER;
		g->buf_bytes[GS_BUF_INPUT] = ag ? block : all;
		g->buf_bytes[GS_BUF_OUTPUT] = ag ? all : block;
		g->buf_bytes[GS_BUF_SCRATCH] = all;
	}
	g->nsignals = 0;
	return GC_OK;
}

gc_status gs_nvls_tree_init(gs_gen *g, char **errmsg)
{
	return gs_nvt_init(g, GS_NVT_TREE, errmsg);
}

gc_status gs_collnet_init(gs_gen *g, char **errmsg)
{
	return gs_nvt_init(g, GS_NVT_DIRECT, errmsg);
}

gc_status gs_collnet_chain_init(gs_gen *g, char **errmsg)
{
	return gs_nvt_init(g, GS_NVT_CHAIN, errmsg);
}
