/* SPDX-License-Identifier: MIT */
/*
 * gs_sched: the schedule IR, the contract between collective algorithms and
 * the three executors (CPU reference, simulator, GPU interpreter).
 *
 * A schedule is plain fixed-width data: for each rank r and each strand s in
 * [0, nstrands), an ordered array of steps. Strands of one rank run
 * concurrently; steps of one strand run strictly in order (a step starts
 * when the previous step of its strand has completed) -- NCCL's execution
 * model, where each channel's thread groups run their primitives in order.
 * This replaces general per-step dependency edges: any cross-strand or
 * cross-rank ordering is expressed by messages.
 *
 * Channels: strands are grouped into logical channels of
 * strands_per_channel consecutive strands; strand s belongs to channel
 * s / strands_per_channel. A channel with several strands is NCCL's split
 * of one channel's threads into groups that progress independently (the
 * tree's reduce-up and broadcast-down groups, p2p's send and receive
 * groups).
 *
 * Messages: a step with a send part sends `bytes` to send_peer; a step with
 * a receive part consumes the next message from recv_peer. Both travel on
 * the connection (src rank, dst rank, channel of the strand). Messages on a
 * connection are matched in FIFO order and the matched sizes must be equal.
 * Every connection has exactly one sending strand (at src) and one
 * receiving strand (at dst), so FIFO order never depends on timing.
 *
 * Buffers: every rank owns three byte buffers, INPUT, OUTPUT and SCRATCH, of
 * the sizes given in gs_sched.buf_bytes (the same on every rank). A step's
 * local operand is (src_buf, src_off) and its result location is
 * (dst_buf, dst_off); offsets and bytes are multiples of the element size.
 *
 * Op semantics (R = received message, L = local src operand, op = reduction):
 *   SEND                   send L
 *   RECV                   dst := R
 *   RECV_REDUCE_SEND       send (R op L)
 *   RECV_COPY_SEND         dst := R; send R
 *   RECV_REDUCE_COPY       dst := R op L
 *   RECV_REDUCE_COPY_SEND  dst := R op L; send (R op L)
 *   COPY                   dst := L
 *
 * One-sided ops (NVSHMEM-style puts, NCCL GIN): a PUT writes into the peer's
 * memory without a matching step there; SIGNAL and WAIT order it.
 *   PUT     send_peer's (dst_buf, dst_off) := L (bytes); no receive step;
 *           travels on the connection (this rank, send_peer, channel) in
 *           FIFO order with the SIGNALs of that connection, and takes no
 *           receive-buffer credit (the destination is the peer's own buffer)
 *   SIGNAL  adds 1 to signal slot dst_off of send_peer once every earlier
 *           PUT on the same connection is visible there (put-with-signal /
 *           fence semantics); bytes = 8, the signal word on the wire
 *   WAIT    waits until this rank's signal slot src_off is >= bytes (a
 *           cumulative count; slots start at 0 and only grow)
 * Every rank has nsignals signal slots. A PUT's bytes land in the peer's
 * buffer; reading them there before the matching WAIT is a race the
 * validator reports. For PUT, src is (src_buf, src_off) as for SEND and dst
 * is the peer's (dst_buf, dst_off); SIGNAL uses only send_peer and dst_off;
 * WAIT uses only src_off and bytes (unused fields are 0 / -1 as usual).
 *
 * Helper ranks: a schedule may have nhelpers ranks after the p.nranks data
 * ranks (nranks = p.nranks + nhelpers). They stand for units in the network
 * that compute on data in flight (the NVSwitch's reduction and multicast
 * engines for nvls): they run strands, own buffers and send and receive
 * like any rank, but hold no INPUT that counts and no OUTPUT that is
 * checked; the collective's result is defined on the data ranks only.
 *
 * No pointers: a schedule can be hashed, dumped as golden text, stored and
 * copied to a GPU as is.
 */
#ifndef GS_SCHED_H
#define GS_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/gc_status.h"

typedef enum gs_op {
	GS_OP_NOP = 0,
	GS_OP_SEND,
	GS_OP_RECV,
	GS_OP_RECV_REDUCE_SEND,
	GS_OP_RECV_COPY_SEND,
	GS_OP_RECV_REDUCE_COPY,
	GS_OP_RECV_REDUCE_COPY_SEND,
	GS_OP_COPY,
	GS_OP_PUT,
	GS_OP_SIGNAL,
	GS_OP_WAIT,
	GS_OP__COUNT
} gs_op;

enum gs_buf { GS_BUF_INPUT = 0, GS_BUF_OUTPUT = 1, GS_BUF_SCRATCH = 2, GS_BUF__COUNT };

/* Properties of an op, for executors: one row per op (gs_ops.c). The
 * accessors are inline because every executor calls them per step; an
 * out-of-range op has no property. */
typedef struct gs_op_info {
	const char *name;
	/* sends: has a send_peer (SEND-like, PUT, SIGNAL); recvs: consumes a
	 * message; reads_src: reads L; writes_dst: writes a local dst (PUT's dst
	 * is remote: see gs_op_one_sided) */
	bool sends, recvs, reduces, reads_src, writes_dst;
	bool one_sided; /* PUT, SIGNAL, WAIT */
} gs_op_info;
extern const gs_op_info gs_op_table[GS_OP__COUNT];

static inline bool gs_op_valid(gs_op op) { return (unsigned)op < GS_OP__COUNT; }
static inline bool gs_op_sends(gs_op op) { return gs_op_valid(op) && gs_op_table[op].sends; }
static inline bool gs_op_recvs(gs_op op) { return gs_op_valid(op) && gs_op_table[op].recvs; }
/* uses L as a reduction operand */
static inline bool gs_op_reduces(gs_op op) { return gs_op_valid(op) && gs_op_table[op].reduces; }
/* reads L (SEND, *_REDUCE_*, COPY) */
static inline bool gs_op_reads_src(gs_op op) { return gs_op_valid(op) && gs_op_table[op].reads_src; }
static inline bool gs_op_writes_dst(gs_op op) { return gs_op_valid(op) && gs_op_table[op].writes_dst; }
/* "SEND", "RECV_REDUCE_SEND", ...; "?" when out of range */
static inline bool gs_op_one_sided(gs_op op) { return gs_op_valid(op) && gs_op_table[op].one_sided; }
static inline const char *gs_op_name(gs_op op) { return gs_op_valid(op) ? gs_op_table[op].name : "?"; }
/* What the op does, in plain words for a reader of a walk through a
 * schedule ("adds what arrived to its own data and sends the sum on");
 * "?" when out of range. */
const char *gs_op_describe(gs_op op);

/* gs_step.flags. GS_STEP_FANOUT, on a SEND only: the data the rank's
 * previous send of this strand sent to another peer, going to one more.
 * NCCL's tree CTA stores a slice to all its down-peers in one pass, so a
 * fan-out send costs the link it crosses but not the sending CTA (an
 * executor with a per-channel rate does not charge it). Executors without
 * such a rate ignore it. */
#define GS_STEP_FANOUT 1u
#define GS_STEP__FLAGS GS_STEP_FANOUT

typedef struct gs_step {
	uint8_t op;	    /* gs_op */
	uint8_t src_buf;    /* enum gs_buf */
	uint8_t dst_buf;    /* enum gs_buf */
	uint8_t flags;	    /* GS_STEP_* */
	int32_t send_peer;  /* rank, or -1 when the op does not send */
	int32_t recv_peer;  /* rank, or -1 when the op does not receive */
	uint32_t reserved;  /* 0 */
	uint64_t src_off;
	uint64_t dst_off;
	uint64_t bytes;
} gs_step;

typedef enum gs_coll {
	GS_COLL_ALLREDUCE = 0,
	GS_COLL_ALLGATHER,
	GS_COLL_REDUCESCATTER,
	GS_COLL_SENDRECV,
	GS_COLL_ALLTOALL,
	GS_COLL_DISPATCH,
	GS_COLL_COMBINE,
	GS_COLL_BROADCAST,
	GS_COLL_REDUCE,
	GS_COLL__COUNT
} gs_coll;

/* ring, tree: see above; pairwise: two-sided all-to-all (every rank sends
 * its block for peer r+k to r+k, k = 1..n-1, as NCCL's grouped send/recv);
 * put: one-sided all-to-all (PUT each block into the peer's OUTPUT, SIGNAL
 * it, WAIT for n-1 signals), NVSHMEM style; nvls: allreduce reduced and
 * multicast in the NVSwitch (two helper ranks, gs_nvls.c), one node, or
 * across nodes with SHARP; also allgather and reduce-scatter (across nodes
 * with SHARP too);
 * nvlstree: nvls in every node and a double binary tree between the nodes
 * (two helper ranks per node, gs_nvls.c); bruck: allgather and
 * reduce-scatter in ceil(log2 n) rounds (gs_bruck.c); collnet: NCCL's
 * CollNet Direct allreduce, each node's sums reduced by the network's
 * switch (SHARP) and gathered and handed out by plain NVLink sends
 * (gs_nvls.c); forward: dispatch and combine in the shape of DeepEP's
 * normal (training and prefill) kernels, each token crossing the network
 * once per destination node to the GPU of its own local index there, which
 * hands it on over NVLink (gs_moefwd.c); pat: NCCL's PAT (2.23+) allgather
 * and reduce-scatter, Bruck's rounds with the distances reversed (farthest
 * first, the data doubling as the distance halves; gs_pat.c);
 * collnetchain: NCCL's CollNet Chain allreduce, each channel's data
 * reduced up a chain through the node's GPUs to its head, reduced across
 * nodes by the network's switch (SHARP) and passed back down (gs_nvls.c);
 * pplx: dispatch and combine in the shape of pplx-kernels' internode
 * kernels, every token-expert message a put with its own signal, per-expert
 * token counts and combine's sync flags as signals of their own, one strand
 * per sending warp (gs_pplx.c); halving-doubling: allreduce by recursive
 * halving and doubling, log2 n rounds each way with the rank one bit
 * apart, the host backends' (gloo, MPI) alternative to the ring; a
 * power-of-two count of ranks (gs_hd.c). */
typedef enum gs_algo {
	GS_ALGO_RING = 0,
	GS_ALGO_TREE,
	GS_ALGO_PAIRWISE,
	GS_ALGO_PUT,
	GS_ALGO_NVLS,
	GS_ALGO_NVLS_TREE,
	GS_ALGO_BRUCK,
	GS_ALGO_COLLNET,
	GS_ALGO_FORWARD,
	GS_ALGO_PAT,
	GS_ALGO_COLLNET_CHAIN,
	GS_ALGO_PPLX,
	GS_ALGO_HD,
	GS_ALGO_GARDEN,
	GS_ALGO__COUNT
} gs_algo;

typedef enum gs_dtype { GS_DT_F32 = 0, GS_DT_I32, GS_DT_F64, GS_DT_U8, GS_DT__COUNT } gs_dtype;

const char *gs_coll_name(gs_coll c);   /* "allreduce", "allgather", "reducescatter", "sendrecv", "alltoall",
					  "dispatch", "combine", "broadcast", "reduce" */
const char *gs_algo_name(gs_algo a);   /* "ring", "tree", "pairwise", "put", "nvls", "nvlstree",
					  "bruck", "collnet", "forward", "pat",
					  "collnetchain", "pplx" */
const char *gs_dtype_name(gs_dtype t); /* nccl-tests spelling: "float", "int32", "double", "uint8" */
size_t gs_dtype_size(gs_dtype t);
/* nccl-tests bus-bandwidth factor: allreduce 2(n-1)/n; allgather,
 * reducescatter and alltoall (n-1)/n; sendrecv, broadcast and reduce 1. */
double gs_busbw_factor(gs_coll c, int nranks);
/* pat's rounds for n ranks, in time order (gs_pat.c): round q talks to the
 * ranks 2^dim[q] away and moves blocks[q] blocks in one message train. The
 * arrays need ceil(log2 n) entries; returns how many rounds there are. */
int gs_pat_rounds(int64_t n, bool rs, int *dim, uint64_t *blocks);
/* dispatch or combine: the MoE collectives (gs_moe.c) */
static inline bool gs_coll_is_moe(gs_coll c) { return c == GS_COLL_DISPATCH || c == GS_COLL_COMBINE; }

/* The largest message size (gs_params.bytes) a generator takes: every
 * offset and step count computation stays inside 64 bits. Scenario sizes
 * are range-checked against it when they are read. */
#define GS_MAX_BYTES (UINT64_C(1) << 48)

typedef struct gs_params {
	gs_coll coll;
	gs_algo algo;
	gs_dtype dtype;
	int nranks;		/* >= 1 */
	uint64_t bytes;		/* nccl-tests "size": per-rank buffer for allreduce and
				   sendrecv; total buffer for allgather, reducescatter
				   and alltoall (alltoall: each rank's INPUT and OUTPUT
				   hold n blocks of bytes/n, block j for/from rank j) */
	int nchannels;		/* logical channels (>= 1); a generator may use more strands */
	uint64_t chunk_bytes;	/* per-rank chunk of one loop (NCCL: 2 MiB, Simple) */
	uint64_t slice_bytes;	/* one message (NCCL: 1 MiB, Simple); <= chunk_bytes */
	int ranks_per_node;	/* ranks sharing a node (tree: chain length); divides nranks */
	/* dispatch and combine (MoE expert parallelism, gs_moe.c): bytes is
	 * one token-expert message; every rank routes moe_tokens tokens to
	 * moe_topk of moe_experts experts (a multiple of nranks, spread in
	 * equal contiguous groups over the ranks), drawn from moe_seed; with
	 * moe_max_nodes M > 0 a token first draws M of the nodes (ranks_per_node
	 * ranks each) and its experts among theirs (DeepSeek-V3's node-limited
	 * routing). forward: bytes is one token, and a rank signals a node's
	 * forwarder after every moe_chunk tokens it sent there (0:
	 * GS_MOE_CHUNK_DEFAULT) */
	uint32_t moe_tokens, moe_topk, moe_experts;
	uint64_t moe_seed;
	uint32_t moe_max_nodes, moe_chunk;
	/* communicators: the collective runs at once in nranks / (group_size)
	 * disjoint groups of group_size ranks (0: one group of all nranks),
	 * member j of a group group_stride ranks after member j - 1 (0: 1).
	 * Megatron's layout: tensor-parallel groups are contiguous (stride 1),
	 * data-parallel groups take every TP-th rank (stride TP). bytes,
	 * ranks_per_node and the buffers are per communicator (nccl-tests
	 * "size" of each group); ranks and peers in the schedule are global.
	 * Two-level groups (group_block B > 0, dividing group_size): members
	 * come in blocks of B at group_stride, block k group_block_stride
	 * ranks after block k - 1 (a multiple of B group_stride), as a
	 * data-and-context-parallel group is when other parallelisms sit
	 * between its two parts. 0, or B = group_size: one level. */
	int group_size, group_stride;
	int group_block, group_block_stride;
	/* rings (ring and chain generators): with ring_pairs set and an even
	 * ranks_per_node of at least 4, the ring of channel c leaves each node
	 * from the local rank paired with the one it enters at (local ranks 2k
	 * and 2k + 1: GPUs sharing a PCIe switch and its NICs), as NCCL's
	 * rings on DGX/HGX nodes enter and leave a node through one NIC; 0:
	 * rotations (see gs_ring.c). Communicators keep it only with stride 1
	 * (flat), where local pairs are physical pairs. */
	int ring_pairs;
} gs_params;

/* Communicator layout (see gs_params): with G = group size, S = stride,
 * B = block, T = block stride (one level: B = G, T = G S), rank
 * r = h G T / B + k T + m B S + i S + l is member k B + i of group
 * (h T / (B S) + m) S + l, where l < S, i < B, m < T / (B S), k < G / B.
 * One level: r = h G S + j S + l, member j of group h S + l. */
static inline int gs_group_n(const gs_params *p)
{
	return p->group_size > 0 ? p->group_size : p->nranks;
}
static inline int gs_group_stride(const gs_params *p)
{
	return p->group_stride > 0 ? p->group_stride : 1;
}
/* members per block (the group itself when it has one level) */
static inline int gs_group_block(const gs_params *p)
{
	return p->group_block > 0 ? p->group_block : gs_group_n(p);
}
static inline int64_t gs_group_block_stride(const gs_params *p)
{
	return p->group_block_stride > 0 ? p->group_block_stride
					 : (int64_t)gs_group_block(p) * gs_group_stride(p);
}
/* one level: the members at stride group_stride throughout */
static inline bool gs_group_is_flat(const gs_params *p)
{
	return gs_group_block_stride(p) == (int64_t)gs_group_block(p) * gs_group_stride(p);
}
static inline int gs_group_count(const gs_params *p) { return p->nranks / gs_group_n(p); }
/* r's index in its group (its rank in the communicator) */
static inline int gs_group_local(const gs_params *p, int r)
{
	int64_t S = gs_group_stride(p), B = gs_group_block(p), T = gs_group_block_stride(p);
	int64_t K = gs_group_n(p) / B;
	return (int)(((r / T) % K) * B + (r / S) % B);
}
/* r's group, in [0, gs_group_count) */
static inline int gs_group_id(const gs_params *p, int r)
{
	int64_t S = gs_group_stride(p), B = gs_group_block(p), T = gs_group_block_stride(p);
	int64_t K = gs_group_n(p) / B, M = T / (B * S);
	return (int)(((r / (T * K)) * M + (r / (B * S)) % M) * S + r % S);
}
/* One communicator's own parameters: its G ranks as the whole (the MoE
 * routing of a group is drawn over its members). */
static inline gs_params gs_group_params(const gs_params *p)
{
	gs_params q = *p;
	q.nranks = gs_group_n(p);
	q.group_size = 0;
	q.group_stride = 0;
	q.group_block = 0;
	q.group_block_stride = 0;
	return q;
}
/* global rank of member j of group id */
static inline int gs_group_member(const gs_params *p, int id, int j)
{
	int64_t S = gs_group_stride(p), B = gs_group_block(p), T = gs_group_block_stride(p);
	int64_t K = gs_group_n(p) / B, M = T / (B * S), rest = id / S;
	return (int)((rest / M) * T * K + (j / B) * T + (rest % M) * B * S + (j % B) * S + id % S);
}

/* forward's combine (gs_moefwd.c) sends a node's sums home up to
 * min(moe_chunk, tokens per channel) tokens ahead: a connection must hold
 * that many and one more (*need bytes, p->bytes a token). True for other
 * collectives and algorithms. */
bool gs_moefwd_buffer_ok(const gs_params *p, uint64_t buffer_bytes, uint64_t *need);

/* A communicator's members per node (ranks_per_node ranks a node), as its
 * generator sees them: the members of group 0 on its first member's node,
 * when every group's members come in such runs node by node; else 1 (each
 * member its own node). */
int gs_group_rpn(const gs_params *p);

/* Streaming generator: steps of any strand can be produced on demand, so an
 * executor never needs the whole schedule in memory. */
typedef struct gs_gen gs_gen;
typedef struct gs_gen_ops {
	/* number of steps in strand (rank, ch) */
	uint64_t (*strand_len)(const gs_gen *g, int rank, int ch);
	/* write steps [first, first + n) of strand (rank, ch) into out */
	void (*fill)(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n, gs_step *out);
	void (*destroy)(gs_gen *g);
} gs_gen_ops;

struct gs_gen {
	const gs_gen_ops *ops;
	gs_params p;			/* normalized copy (effective bytes, defaults) */
	int nstrands;			/* strands per rank */
	int strands_per_channel;	/* divides nstrands; connection channel =
					   strand / strands_per_channel */
	uint64_t buf_bytes[GS_BUF__COUNT]; /* per-rank buffer sizes */
	uint32_t nsignals;		/* signal slots per rank (one-sided ops) */
	int nhelpers;			/* helper ranks after the p.nranks data ranks */
	/* ranks the schedule repeats after (0: not declared): for every
	 * rank r and strand c, strand c of rank (r + rank_period) mod n takes
	 * the steps strand c of rank r takes, each peer moved by rank_period,
	 * alike in all an executor times (operation, flags, bytes, signal
	 * slot). An executor may then simulate one period's ranks for all of
	 * them where the topology repeats too (gm_coll's fold);
	 * gs_gen_period_holds checks it step by step. */
	int rank_period;
	/* channels the schedule rotates with a node's ranks (0: not
	 * declared): the channels come in groups of G = chan_group (0: one
	 * group of all nch), S = chan_shift, S x R == G with R =
	 * p.ranks_per_node, and rot(c) = c - c mod G + (c mod G + S) mod G.
	 * For every rank (x, l) (node x, local rank l) and strand k of
	 * channel c, strand k of channel rot(c) of rank (x, (l + 1) mod R)
	 * takes the steps it takes, each data peer (y, m) moved to
	 * (y, (m + 1) mod R), alike in all an executor times; a helper rank
	 * stays itself, its channel c's strands moving to rot(c). Where the
	 * nodes' GPUs rotate alike too, the channels c with c mod G < S then
	 * stand for all (gm_coll's channel fold); gs_gen_rotation_holds
	 * checks it step by step. */
	int chan_shift, chan_group;
	/* channel groups after which the schedule repeats on the same ranks
	 * (0: not declared; only with chan_shift): for every rank and strand
	 * k of channel c, strand k of channel c + chan_repeat x G (G =
	 * gs_gen_chan_group), where there is one, takes the steps it takes,
	 * the same peers, alike in all an executor times. Such channels cross
	 * the same links at the same times, so the first chan_repeat groups,
	 * their links' bandwidth shared as by all of them, stand for the rest
	 * (gm_coll's channel fold); gs_gen_repeat_holds checks it step by
	 * step. */
	int chan_repeat;
	void *priv;			/* generator state */
};

/* Ranks that run strands: the data ranks and the helpers. */
static inline int gs_gen_nranks(const gs_gen *g) { return g->p.nranks + g->nhelpers; }

/* Create the generator for p. Errors (GC_ERR_INPUT) set *errmsg (g_free). */
gc_status gs_gen_create(const gs_params *p, gs_gen **out, char **errmsg);
void gs_gen_free(gs_gen *g);
uint64_t gs_gen_total_steps(const gs_gen *g);
/* Whether moving every rank by P (mod p.nranks) maps g's schedule onto
 * itself as gs_gen.rank_period says (every strand of every rank against
 * its image, step by step: the schedule's size in time). If not, *why
 * (g_free; may be NULL) names the first step that differs. */
bool gs_gen_period_holds(const gs_gen *g, int P, char **why);
/* Whether moving every data rank one place along its node and every
 * channel c to rot(c) (shift S in groups of G channels, 0: all) maps g's
 * schedule onto itself as gs_gen.chan_shift says (every strand of every
 * rank, helpers included, against its image, step by step). If not, *why
 * (g_free; may be NULL) names the first step that differs. */
bool gs_gen_rotation_holds(const gs_gen *g, int S, int G, char **why);
/* Whether every strand of channel c + T x G (G = gs_gen_chan_group) of
 * every rank, helpers included, takes the steps that the same strand of
 * channel c takes, with the same peers, as gs_gen.chan_repeat = T says.
 * If not, *why (g_free; may be NULL) names the first step that differs. */
bool gs_gen_repeat_holds(const gs_gen *g, int T, char **why);
/* The channel groups gs_gen.chan_group declares (all channels: one). */
static inline int gs_gen_chan_group(const gs_gen *g)
{
	const int spc = g->strands_per_channel > 0 ? g->strands_per_channel : 1;
	return g->chan_group > 0 ? g->chan_group : g->nstrands / spc;
}
/* Channel c moved by one rotation step (shift S in groups of G). */
static inline int gs_rot_channel(int c, int S, int G)
{
	return c - c % G + (c % G + S) % G;
}

/* NCCL's two complementary binary trees over nn node indices (ncclGetBtree /
 * ncclGetDtree, see gs_tree.c): per tree t, parent[t][x] (-1 at the root)
 * and child[t][2x], child[t][2x + 1] (-1 when absent, in increasing order
 * for tree 0). */
typedef struct gs_ntree {
	int64_t nn;
	int32_t *parent[2];
	int32_t *child[2];
} gs_ntree;
gc_status gs_ntree_build(gs_ntree *nt, int64_t nn, char **errmsg);
void gs_ntree_free(gs_ntree *nt);

/* MoE routing shared by the dispatch/combine generator, the checkers and
 * the closed form (gs_moe.c): message i = (r T + t) K + k goes to rank dst[i], slot
 * slot[i] there; rank d receives recv[d] messages, slot j holding message
 * src_of[off[d] + j]; me = elements per message. forward (fwd): token
 * (r, t) goes once to each rank of tset[tset_off[r T + t] ..
 * tset_off[r T + t + 1]) (increasing: the distinct ranks of its experts),
 * into that rank's slot r T + t; P ranks per node. pplx: lexp[i] is message
 * i's expert among its destination's (expert mod experts per rank; NULL
 * for the other algorithms). */
typedef struct gs_moe_map {
	int n, P;
	bool fwd;
	uint32_t T, K, maxrecv;
	uint64_t me;
	int32_t *dst;
	uint32_t *lexp;
	uint32_t *slot, *recv;
	uint64_t *off, *src_of;
	uint64_t *tset_off;
	int32_t *tset;
} gs_moe_map;
#define GS_MOE_MAX_MESSAGES (UINT64_C(1) << 26)
/* forward's tokens per signal (and combine's lag) when moe_chunk is 0:
 * DeepEP's RDMA chunks of 16-20 tokens */
#define GS_MOE_CHUNK_DEFAULT 16
gc_status gs_moe_map_build(const gs_params *p, gs_moe_map *m, char **errmsg);
void gs_moe_map_free(gs_moe_map *m);
/* What OUTPUT element e of rank r must hold after dispatch or combine: the
 * sum of INPUT element *idx of the ranks src[0 .. count) (room for m->n;
 * one rank but for forward's combine, which sums a token's partial results
 * from every rank it went to); 0 for a slot no message uses. */
int gs_moe_expect(const gs_moe_map *m, gs_coll coll, int r, uint64_t e, int32_t *src,
		  uint64_t *idx);

/* A materialized schedule. */
typedef struct gs_sched {
	gs_params p;
	int nranks;   /* p.nranks data ranks + nhelpers helper ranks */
	int nhelpers;
	int nstrands;
	int strands_per_channel;
	uint64_t buf_bytes[GS_BUF__COUNT];
	uint32_t nsignals;
	uint64_t *strand_off; /* nranks*nstrands + 1 prefix offsets into steps */
	gs_step *steps;
} gs_sched;

gs_sched *gs_sched_materialize(const gs_gen *g);
void gs_sched_free(gs_sched *s);
static inline const gs_step *gs_sched_strand(const gs_sched *s, int rank, int ch, uint64_t *len)
{
	uint64_t i = (uint64_t)rank * (uint64_t)s->nstrands + (uint64_t)ch;
	*len = s->strand_off[i + 1] - s->strand_off[i];
	return s->steps + s->strand_off[i];
}
/* Golden text dump, one line per step: "r<rank> c<ch> #<i> OP send=.. recv=.. src=BUF+off dst=BUF+off bytes=..". */
void gs_sched_dump(const gs_sched *s, void *gstring_out);

/* Validator: op fields, peers, buffer bounds, element alignment, FIFO
 * send/recv matching with equal sizes, no deadlock with unlimited buffering,
 * and (for reducing collectives) that every output element combines every
 * rank's input exactly once. GC_OK or GC_ERR_INPUT/GC_ERR_DEADLOCK with a
 * message naming the first offending step. */
gc_status gs_sched_validate(const gs_sched *s, char **errmsg);

/* CPU reference executor: fills every rank's INPUT with deterministic data
 * derived from (rank, element index), executes the schedule moving real
 * bytes, and compares every element of every rank's OUTPUT with the expected
 * collective result. GC_OK or GC_ERR_INPUT with the first mismatch. */
gc_status gs_refexec_run(const gs_sched *s, char **errmsg);

#endif
