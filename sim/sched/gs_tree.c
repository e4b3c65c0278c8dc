/* SPDX-License-Identifier: MIT */
/*
 * gs_tree: NCCL-style double binary tree allreduce (Sanders, Speck, Träff,
 * "Two-tree algorithms for full bandwidth broadcast, reduction and scan",
 * Parallel Computing 35(12), 2009; NCCL src/graph/trees.cc ncclGetBtree /
 * ncclGetDtree and src/device/all_reduce.h runTreeUpDown / runTreeSplit),
 * as a streaming generator.
 *
 * Topology. Ranks are grouped in nodes of rpn consecutive ranks. Across
 * nodes, tree 0 is NCCL's bit-based binary tree over node indices: for
 * node r > 0 with lowest set bit b, parent(r) = (r ^ b) | (b << 1) if that
 * is < nnodes, else r ^ b; node 0 is the root. (Its children are r - b/2
 * and the largest r + b' < nnodes with b' <= b/2; the construction is
 * checked at creation: every node reaches node 0 and has at most two
 * children.) Tree 1 is tree 0 with every node index x relabelled to
 * (x + 1) % nnodes when nnodes is odd and to nnodes - 1 - x when it is even,
 * so most leaves of one tree are interior nodes of the other. Logical
 * channel c uses tree c % 2. Inside a node, channel c's ranks form a chain
 * whose head is local rank h = (c / 2) % rpn, followed by the local ranks
 * (h + 1) % rpn, (h + 2) % rpn, ...; only the head talks to other nodes,
 * and the head rotates with the channel pairs so that different GPUs (NICs)
 * carry the network traffic.
 *
 * Per logical channel c, a rank's up-children are, in reduction order, its
 * chain successor (the next rank away from the head) and, for the head, the
 * heads of its tree-child nodes; its parent is its chain predecessor, or
 * for the head the head of the parent node; the root is the head of the
 * tree's root node. Its down-children are the same ranks, in send order
 * tree children first (their subtrees are deeper), then the chain
 * successor.
 *
 * Strands (NCCL runTreeSplit). Each logical channel c has two strands,
 * strands_per_channel = 2, nstrands = 2 * nchannels:
 *   strand 2c      the reduce-up group
 *   strand 2c + 1  the broadcast-down group
 * Both walk the channel's contiguous element part in loops of
 * min(CE, remaining) elements and every loop in slices of at most SE
 * elements; for each slice a strand runs its slot sequence (below), so a
 * strand is loop-major, then slice, then slot. The two strands of a rank
 * are independent: the up strand may reduce loop l + 1 while the down
 * strand still broadcasts loop l, or the other way round.
 *
 * Up strand, m up-children (L = INPUT for the first child, SCRATCH after):
 *   m = 0                SEND INPUT -> parent
 *   child i < m - 1      RECV_REDUCE_COPY from child i, L -> SCRATCH
 *   last child           RECV_REDUCE_SEND -> parent, or at the root
 *                        RECV_REDUCE_COPY_SEND -> OUTPUT and to the first
 *                        down-child, then SEND OUTPUT to each other one
 * Down strand: not at the root, RECV from the parent into OUTPUT if the
 * rank has no down-children, else RECV_COPY_SEND into OUTPUT and to the
 * first down-child, then SEND OUTPUT to each other one. The root's down
 * strand is empty: its up strand, which holds the final sum, starts the
 * broadcast itself, as NCCL's root runs reduce and broadcast in one
 * primitive (directRecvReduceCopySend). The SENDs to the other
 * down-children carry GS_STEP_FANOUT: NCCL's CTA stores the slice to all
 * its down-peers in one pass, so they cost the links, not the CTA again.
 * nranks == 1: the up strand is one COPY INPUT -> OUTPUT per slice and the
 * down strand is empty.
 *
 * Connections (src, dst, c): (child, parent, c) is sent by the child's up
 * strand and received by the parent's up strand; (parent, child, c) is
 * sent by the parent's down strand (the root's up strand) and received by
 * the child's down strand. An up strand never receives from its parent
 * and a down strand never receives from its children, so every connection
 * has one sending and one receiving strand.
 *
 * SCRATCH holds the partial reduction of a rank with two or more
 * up-children. Only the up strand of channel c touches it, slice by slice
 * in order: the slice's first RECV_REDUCE_COPY writes it and the slice's
 * last reduction reads it before the strand moves on. So one chunk-sized
 * region per up strand (channel c uses elements [c * slot, c * slot + slot)
 * with slot = min(CE, largest channel part), offset by the slice's place
 * in its loop) serves every loop; SCRATCH is 0 bytes when no rank has two
 * up-children.
 *
 * Buffering: the strands of a channel all walk the same slices in the same
 * order and, per slice, exchange exactly one message with each tree
 * neighbour; within a slice data flows up the tree and then down it
 * (starting at the root's up strand), and no strand ever waits for a
 * strand of its own rank. Take the lowest slice some strand has not
 * finished: no connection holds an older message any more, and that
 * slice's steps can run in tree order -- leaves to root, root to leaves --
 * each send finding its connection empty. So a connection able to hold one
 * unconsumed message suffices, however the up and down strands and their
 * loops overlap (the simulator's buffer holds at least a chunk, and a
 * message always fits an empty connection); the tests run every generated
 * tree with one-message buffers.
 *
 * Streaming: a rank's role is O(1) from the precomputed node trees; every
 * loop of a strand has the same slots, so fill() locates a step in O(1).
 */
#include <inttypes.h>
#include <string.h>

#include <glib.h>

#include "gs_impl.h"

/* Most slots of one slice: the root with three up-children has
 * 2 RECV_REDUCE_COPY + RECV_REDUCE_COPY_SEND + 2 SEND = 5. */
#define GS_TREE_MAX_SLOTS 8

enum { GS_TREE_UP = 0, GS_TREE_DOWN = 1 }; /* strand 2c + role */

typedef struct gs_tree {
	int64_t n, rpn, nnodes, nch;
	uint64_t elem, count, ce, se;
	uint64_t scratch_slot; /* SCRATCH elements per up strand */
	gs_ntree nt;	       /* the two node trees */
} gs_tree;

/* One op of a strand, applied to every slice of every loop. */
typedef struct gs_tree_slot {
	gs_op op;
	int32_t send, recv;
	uint8_t src_buf, dst_buf;
	uint8_t flags; /* GS_STEP_FANOUT: a down-child after the first */
} gs_tree_slot;

/* Per-strand geometry, derived in O(1) from (rank, strand). */
typedef struct gs_tree_plan {
	const gs_tree *tr;
	gs_tree_slot slot[GS_TREE_MAX_SLOTS];
	int nslot;	     /* ops per slice; 0 for an empty strand */
	uint64_t cs, m;	     /* channel part: elements [cs, cs + m) */
	uint64_t nfull;	     /* full loops (CE elements) */
	uint64_t last_sz;    /* size of the partial last loop, or 0 */
	uint64_t s_full, s_last; /* slices of a full / the partial loop */
	uint64_t scratch_base; /* element offset of the channel's SCRATCH region */
} gs_tree_plan;

/* NCCL ncclGetBtree's parent rule over node indices [0, nn). */
static int32_t gs_btree_parent(int64_t r, int64_t nn)
{
	int64_t bit, up;

	if (r == 0)
		return -1;
	bit = r & -r;
	up = (r ^ bit) | (bit << 1);
	if (up >= nn)
		up = r ^ bit;
	return (int32_t)up;
}

/* Relabelling of tree 0 into tree 1 (ncclGetDtree: shift or mirror). */
static int32_t gs_dtree_map(int64_t x, int64_t nn)
{
	if (x < 0)
		return -1;
	return (int32_t)(nn % 2 ? (x + 1) % nn : nn - 1 - x);
}

gc_status gs_ntree_build(gs_ntree *tr, int64_t nn, char **errmsg)
{
	tr->nn = nn;

	for (int t = 0; t < 2; t++) {
		tr->parent[t] = g_new(int32_t, nn);
		tr->child[t] = g_new(int32_t, 2 * nn);
		memset(tr->child[t], 0xff, sizeof(int32_t) * 2 * (size_t)nn);
	}
	/* tree 0; children are recorded in increasing order (NCCL's d0, d1) */
	for (int64_t x = 0; x < nn; x++) {
		int32_t up = gs_btree_parent(x, nn);

		tr->parent[0][x] = up;
		if (up < 0)
			continue;
		if (tr->child[0][2 * up] < 0) {
			tr->child[0][2 * up] = (int32_t)x;
		} else if (tr->child[0][2 * up + 1] < 0) {
			tr->child[0][2 * up + 1] = (int32_t)x;
		} else {
			*errmsg =
				g_strdup_printf("internal: node %d of the binary tree over %" PRId64
						" nodes has more than two children",
						up, nn);
			return GC_ERR_INTERNAL;
		}
	}
	/* every node must reach the root 0 */
	for (int64_t x = 0; x < nn; x++) {
		int64_t y = x, hops = 0;

		while (y != 0 && hops <= nn) {
			y = tr->parent[0][y];
			hops++;
		}
		if (y != 0) {
			*errmsg = g_strdup_printf("internal: node %" PRId64
						  " of the binary tree over %" PRId64
						  " nodes does not reach the root",
						  x, nn);
			return GC_ERR_INTERNAL;
		}
	}
	/* tree 1 */
	for (int64_t x = 0; x < nn; x++) {
		int32_t y = gs_dtree_map(x, nn);

		tr->parent[1][y] = gs_dtree_map(tr->parent[0][x], nn);
		tr->child[1][2 * y] = gs_dtree_map(tr->child[0][2 * x], nn);
		tr->child[1][2 * y + 1] = gs_dtree_map(tr->child[0][2 * x + 1], nn);
	}
	return GC_OK;
}

void gs_ntree_free(gs_ntree *nt)
{
	for (int t = 0; t < 2; t++) {
		g_free(nt->parent[t]);
		g_free(nt->child[t]);
		nt->parent[t] = nt->child[t] = NULL;
	}
}

/* Global rank of chain position j of node k for head h. */
static int32_t gs_tree_chain_rank(const gs_tree *tr, int64_t k, int64_t h, int64_t j)
{
	return (int32_t)(k * tr->rpn + (h + j) % tr->rpn);
}

/* The slots of strand (rank, 2c + role), the same for every slice. */
static int gs_tree_slots(const gs_tree *tr, int rank, int64_t c, int role, gs_tree_slot *slot)
{
	int64_t rpn = tr->rpn, t = c % 2;
	int64_t k = rank / rpn, h = (c / 2) % rpn;
	int64_t j = ((rank % rpn) - h + rpn) % rpn; /* chain position, 0 = head */
	int32_t parent, kids[3], down[3];
	int nkids = 0, ndown = 0, ns = 0;

	if (tr->n == 1) {
		if (role == GS_TREE_DOWN)
			return 0;
		slot[0] = (gs_tree_slot){ GS_OP_COPY, -1, -1, GS_BUF_INPUT, GS_BUF_OUTPUT, 0 };
		return 1;
	}

	if (j > 0)
		parent = gs_tree_chain_rank(tr, k, h, j - 1);
	else if (tr->nt.parent[t][k] >= 0)
		parent = gs_tree_chain_rank(tr, tr->nt.parent[t][k], h, 0);
	else
		parent = -1;
	/* up order: chain successor first, then tree children */
	if (j + 1 < rpn)
		kids[nkids++] = gs_tree_chain_rank(tr, k, h, j + 1);
	if (j == 0) {
		for (int i = 0; i < 2; i++) {
			int32_t tc = tr->nt.child[t][2 * k + i];

			if (tc >= 0) {
				kids[nkids++] = gs_tree_chain_rank(tr, tc, h, 0);
				down[ndown++] = kids[nkids - 1];
			}
		}
	}
	/* down order: tree children first, then the chain successor */
	if (j + 1 < rpn)
		down[ndown++] = kids[0];

	if (role == GS_TREE_UP) {
		/* n >= 2: the root always has an up-child, so m = 0 means a parent */
		if (nkids == 0)
			slot[ns++] = (gs_tree_slot){ GS_OP_SEND, parent, -1, GS_BUF_INPUT,
						     GS_BUF_OUTPUT, 0 };
		for (int i = 0; i < nkids; i++) {
			uint8_t lbuf = i == 0 ? GS_BUF_INPUT : GS_BUF_SCRATCH;

			if (i < nkids - 1)
				slot[ns++] = (gs_tree_slot){ GS_OP_RECV_REDUCE_COPY, -1, kids[i],
							     lbuf, GS_BUF_SCRATCH, 0 };
			else if (parent >= 0)
				slot[ns++] = (gs_tree_slot){ GS_OP_RECV_REDUCE_SEND, parent,
							     kids[i], lbuf, GS_BUF_OUTPUT, 0 };
			else
				slot[ns++] = (gs_tree_slot){ GS_OP_RECV_REDUCE_COPY_SEND, down[0],
							     kids[i], lbuf, GS_BUF_OUTPUT, 0 };
		}
		if (parent >= 0)
			return ns;
		/* the root's up strand starts the broadcast: the other children */
	} else {
		/* the root's down strand is empty: its up strand broadcasts */
		if (parent < 0)
			return 0;
		if (ndown == 0)
			slot[ns++] = (gs_tree_slot){ GS_OP_RECV, -1, parent, GS_BUF_INPUT,
						     GS_BUF_OUTPUT, 0 };
		else
			slot[ns++] = (gs_tree_slot){ GS_OP_RECV_COPY_SEND, down[0], parent,
						     GS_BUF_INPUT, GS_BUF_OUTPUT, 0 };
	}
	for (int i = 1; i < ndown; i++)
		slot[ns++] = (gs_tree_slot){ GS_OP_SEND, down[i], -1, GS_BUF_OUTPUT, GS_BUF_OUTPUT,
					     GS_STEP_FANOUT };
	g_assert(ns <= GS_TREE_MAX_SLOTS);
	return ns;
}

static void gs_tree_plan_init(gs_tree_plan *pl, const gs_tree *tr, int rank, int strand)
{
	int64_t c = strand / 2;

	memset(pl, 0, sizeof(*pl));
	pl->tr = tr;
	pl->nslot = gs_tree_slots(tr, rank, c, strand % 2, pl->slot);
	gs_part(tr->count, (uint64_t)tr->nch, (uint64_t)c, &pl->cs, &pl->m);
	pl->nfull = pl->m / tr->ce;
	pl->last_sz = pl->m % tr->ce;
	pl->s_full = gs_divup(tr->ce, tr->se);
	pl->s_last = gs_divup(pl->last_sz, tr->se);
	pl->scratch_base = (uint64_t)c * tr->scratch_slot;
}

static uint64_t gs_tree_plan_len(const gs_tree_plan *pl)
{
	return (uint64_t)pl->nslot * (pl->nfull * pl->s_full + pl->s_last);
}

static uint64_t gs_tree_strand_len(const gs_gen *g, int rank, int ch)
{
	gs_tree_plan pl;

	gs_tree_plan_init(&pl, g->priv, rank, ch);
	return gs_tree_plan_len(&pl);
}

/* Slot t of slice s of loop l. */
static void gs_tree_emit(const gs_tree_plan *pl, uint64_t l, uint64_t s, int t, gs_step *st)
{
	const gs_tree *tr = pl->tr;
	const gs_tree_slot *sl = &pl->slot[t];
	uint64_t el = tr->elem;
	uint64_t sz = l < pl->nfull ? tr->ce : pl->last_sz;
	uint64_t in_loop = s * tr->se;
	uint64_t off = pl->cs + l * tr->ce + in_loop;
	uint64_t len = MIN(tr->se, sz - in_loop);
	uint64_t soff = sl->src_buf == GS_BUF_SCRATCH ? pl->scratch_base + in_loop : off;
	uint64_t doff = sl->dst_buf == GS_BUF_SCRATCH ? pl->scratch_base + in_loop : off;

	gs_step_set(st, sl->op, sl->send, sl->recv, sl->src_buf, soff * el, sl->dst_buf, doff * el,
		    len * el);
	st->flags = sl->flags;
}

static void gs_tree_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n,
			 gs_step *out)
{
	gs_tree_plan pl;
	uint64_t l, slice, s, slices;
	int t;

	if (n == 0)
		return;
	gs_tree_plan_init(&pl, g->priv, rank, ch);
	g_assert(first + n <= gs_tree_plan_len(&pl));

	/* step = (slice index over the strand) * nslot + slot */
	slice = first / (uint64_t)pl.nslot;
	t = (int)(first % (uint64_t)pl.nslot);
	gs_slice_locate(slice, pl.nfull, pl.s_full, &l, &s);
	slices = l < pl.nfull ? pl.s_full : pl.s_last;
	for (uint32_t i = 0; i < n; i++) {
		gs_tree_emit(&pl, l, s, t, &out[i]);
		if (++t < pl.nslot)
			continue;
		t = 0;
		if (++s < slices)
			continue;
		s = 0;
		l++;
		slices = l < pl.nfull ? pl.s_full : pl.s_last;
	}
}

static void gs_tree_destroy(gs_gen *g)
{
	gs_tree *tr = g->priv;

	if (tr) {
		gs_ntree_free(&tr->nt);
		g_free(tr);
	}
	g->priv = NULL;
}

static const gs_gen_ops gs_tree_ops = {
	.strand_len = gs_tree_strand_len,
	.fill = gs_tree_fill,
	.destroy = gs_tree_destroy,
};

gc_status gs_tree_init(gs_gen *g, char **errmsg)
{
	gs_tree *tr = g_new0(gs_tree, 1);
	gc_status st;
	bool two_kids = false;

	tr->n = g->p.nranks;
	tr->rpn = g->p.ranks_per_node;
	tr->nnodes = tr->n / tr->rpn;
	tr->nch = g->p.nchannels;
	tr->elem = gs_dtype_size(g->p.dtype);
	tr->count = g->p.bytes / tr->elem;
	tr->ce = g->p.chunk_bytes / tr->elem;
	tr->se = g->p.slice_bytes / tr->elem;
	g->priv = tr;
	g->ops = &gs_tree_ops;
	st = gs_ntree_build(&tr->nt, tr->nnodes, errmsg);
	if (st != GC_OK) {
		gs_tree_destroy(g);
		g->ops = NULL;
		return st;
	}

	/* does any rank combine two children (and so need SCRATCH)? */
	if (tr->n > 1) {
		for (int t = 0; t < MIN(2, tr->nch); t++) {
			for (int64_t k = 0; k < tr->nnodes; k++) {
				int kids = (tr->rpn > 1) + (tr->nt.child[t][2 * k] >= 0) +
					   (tr->nt.child[t][2 * k + 1] >= 0);

				two_kids |= kids >= 2;
			}
		}
	}
	if (two_kids)
		tr->scratch_slot = MIN(tr->ce, gs_divup(tr->count, (uint64_t)tr->nch));
	g->nstrands = 2 * g->p.nchannels; /* per channel: up, down */
	g->strands_per_channel = 2;
	g->buf_bytes[GS_BUF_INPUT] = g->p.bytes;
	g->buf_bytes[GS_BUF_OUTPUT] = g->p.bytes;
	/* one region per up strand, i.e. per channel */
	g->buf_bytes[GS_BUF_SCRATCH] = (uint64_t)g->p.nchannels * tr->scratch_slot * tr->elem;
	/* channel c + 2 is channel c on the same tree with its chain's head
	 * one local rank further on, so moving every rank one place along its
	 * node maps it onto channel c's, peers and all, where the heads take
	 * every local rank once per tree and the channels' parts are equal */
	if (tr->rpn > 1 && tr->nch == 2 * tr->rpn && tr->count % (uint64_t)tr->nch == 0)
		g->chan_shift = 2;
	return GC_OK;
}
