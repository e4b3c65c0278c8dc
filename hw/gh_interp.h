/* SPDX-License-Identifier: MIT */
/*
 * gh_interp: host side of the GPU schedule interpreter -- packing a
 * materialized schedule for the device and computing the expected result.
 *
 * Device layout (what gh_cuda_interp_run copies as is):
 *   steps       the gs_sched.steps array, unchanged
 *   strand_off  nranks*nstrands + 1 prefix offsets (strand i = rank*nstrands+ch)
 *   aux         one gh_step_aux per step: the mailbox of its send part and of
 *               its receive part (index into the connection table) and the op's
 *               properties as bits, so the kernel needs no op tables
 *   arena       rank_stride bytes per rank (consecutive on one GPU, or on the
 *               rank's own GPU); rank r's buffer b starts at buf_off[b] in
 *               its arena; every buffer start is 256-byte aligned
 *   signals     nsignals 64-bit counters per rank, zero at every launch
 * A connection is one (src, dst, channel) triple that some step sends on,
 * channel = strand / strands_per_channel; every step that receives from src
 * at rank dst on a strand of that channel refers to the same index, so the
 * two ends of a message meet in the same mailbox even when the sending and
 * the receiving strand indices differ (tree up/down, p2p send/receive
 * groups). Each connection has exactly one sending and one receiving
 * strand (packing checks it): a mailbox's head has one writer, its tail
 * another.
 *
 * One-sided ops use no mailbox (send_conn = recv_conn = -1): all virtual
 * ranks share one address space, so a PUT's block stores straight into the
 * peer's buffer and fences, a SIGNAL fences and atomically adds 1 to the
 * peer's slot, and a WAIT spins on its own slot. Packing still refuses two
 * strands sending (two- or one-sided) on one connection, the schedule
 * contract, and checks the signal slots and the PUT destination against
 * the plan, since the kernel trusts them.
 *
 * Input convention: element i of rank r's INPUT is gh_interp_input_value(r, i),
 * a small integer, so float sums over up to 2^16 ranks are exact and the
 * comparison can demand bit equality.
 */
#ifndef GH_INTERP_H
#define GH_INTERP_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sched/gs_sched.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GH_P_SEND 1u
#define GH_P_RECV 2u
#define GH_P_REDUCE 4u
#define GH_P_READS 8u
#define GH_P_WRITES 16u
#define GH_P_PUT 32u	/* store L into the peer's (dst_buf, dst_off) */
#define GH_P_SIGNAL 64u /* add 1 to the peer's slot dst_off */
#define GH_P_WAIT 128u	/* wait for own slot src_off >= bytes */
/* The strand's blocks meet before this step (gh_interp_plan.blocks > 1):
 * it reads or writes local bytes that an earlier step of the strand wrote
 * or read over another range, which another block may have moved. */
#define GH_P_SYNC 256u

/* Mailboxes (hw/kernels/gh_interp.cu): a message of at most GH_LL_MAX
 * bytes travels as one LL piece, a longer one in pieces of GH_SLOT_BYTES,
 * each in a slot of its connection's mailbox. */
/* The chunk and slice of the schedules gcsim hw interp runs (NCCL's
 * Simple defaults); the timing model (gh_vrank.h) rebuilds them so. */
#define GH_INTERP_CHUNK (2u << 20)
#define GH_INTERP_SLICE (1u << 20)
#define GH_NSLOTS 4 /* the fewest slots a mailbox has */
#define GH_SLOT_BYTES (128u * 1024u)
#define GH_LL_MAX (8u * 1024u)

/* LL128 (NCCL's prims_ll128.h layout): a slot is lines of 128 bytes, 16
 * 8-byte words, of which the first 15 carry data and the last the piece's
 * flag; each thread of a warp stores one 16-byte half-pair of words, the
 * eighth thread of each line its last data word and the flag together. */
#define GH_LL128_LINE 128u
#define GH_LL128_DATA 120u
#define GH_LL128_PIECE (GH_SLOT_BYTES / GH_LL128_LINE * GH_LL128_DATA)

/* How messages above GH_LL_MAX travel (messages up to it are LL pieces
 * either way): GH_PROTO_SIMPLE in slots the receiver reads after the
 * sender's head counter says they are full (data, fence, flag); GH_PROTO_LL128
 * in LL128 lines whose flags the receiver polls (no fence, no head wait). */
#define GH_PROTO_SIMPLE 0
#define GH_PROTO_LL128 1

#ifdef __CUDACC__
#define GH_HD __host__ __device__
#else
#define GH_HD
#endif

/* The data bytes one piece of a message of `bytes` carries under proto. */
static inline GH_HD uint64_t gh_interp_piece_cap(uint64_t bytes, int proto)
{
	return bytes <= GH_LL_MAX ? GH_LL_MAX : proto == GH_PROTO_LL128 ? GH_LL128_PIECE : GH_SLOT_BYTES;
}

/* The pieces the kernel cuts a message of `bytes` into (an empty one: 1). */
static inline GH_HD uint64_t gh_interp_pieces(uint64_t bytes, int proto)
{
	const uint64_t cap = gh_interp_piece_cap(bytes, proto);
	return bytes <= GH_LL_MAX ? 1 : (bytes + cap - 1) / cap;
}

/* The bytes [*lo, *hi) of an n-byte piece of a message of `bytes` that block
 * sub of a strand's `blocks` moves: whole LL128 lines (GH_LL128_DATA bytes)
 * under LL128, whole 16-byte vectors otherwise, so no element and no line
 * is split between blocks and a vector block's operands stay 16-byte
 * aligned. Every block of every strand cuts a piece the same way, so block
 * sub of a receiver reads exactly what block sub of its sender wrote. */
static inline GH_HD void gh_interp_part(uint64_t n, uint64_t bytes, int proto, int blocks, int sub,
					 uint64_t *lo, uint64_t *hi)
{
	const uint64_t unit = bytes > GH_LL_MAX && proto == GH_PROTO_LL128 ? GH_LL128_DATA : 16;
	const uint64_t units = (n + unit - 1) / unit;
	const uint64_t a = units * (uint64_t)sub / (uint64_t)blocks * unit;
	const uint64_t b = units * (uint64_t)(sub + 1) / (uint64_t)blocks * unit;
	*lo = a < n ? a : n;
	*hi = b < n ? b : n;
}

typedef struct gh_step_aux {
	int32_t send_conn; /* -1 when the step does not send */
	int32_t recv_conn; /* -1 when the step does not receive */
	uint32_t props;	   /* GH_P_* */
	uint32_t pad;
} gh_step_aux;

typedef struct gh_interp_plan {
	gs_params p;
	int nranks, nstrands;
	size_t elem;
	uint64_t nsteps;
	const gs_step *steps;  /* borrowed from the schedule */
	uint64_t *strand_off;  /* owned copy */
	gh_step_aux *aux;      /* owned, nsteps */
	int nconns;
	int32_t *conn_src, *conn_dst, *conn_ch; /* owned, nconns each; conn_ch is the
						   channel, not a strand */
	uint64_t buf_bytes[GS_BUF__COUNT];
	uint64_t buf_off[GS_BUF__COUNT];
	uint64_t rank_stride;
	uint64_t max_msg_bytes; /* largest single data step (not SIGNAL / WAIT) */
	uint32_t nsignals;	/* signal slots per rank */
	int strands_per_channel; /* a connection's channel = strand / this */
	/* owned, nconns: each connection's mailbox slots, one per piece it
	 * carries in a launch (at least GH_NSLOTS). The schedule contract gives
	 * a sender unlimited buffering (gs_validate proves deadlock freedom
	 * under it) and schedules rely on it: a ring allreduce sends a whole
	 * chunk before it receives anything, so a mailbox of a few slots would
	 * leave every sender waiting on a receiver that is itself sending. */
	uint64_t *conn_slots;
	/* how a block moves and reduces a piece: 0 (GH_KERNEL_VECTOR) 16-byte
	 * loads and stores, GH_UNROLL in flight per thread (NCCL's primitives'
	 * way), where every operand is 16-byte aligned; GH_KERNEL_SCALAR one
	 * element per thread per pass (the first interpreter's, kept to
	 * measure the difference); GH_KERNEL_PIPE loading and storing warps */
	int kernel;
	/* GH_PROTO_SIMPLE or GH_PROTO_LL128: how messages above GH_LL_MAX
	 * travel (conn_slots counts their pieces) */
	int proto;
	/* thread blocks per strand, 1..GH_MAX_BLOCKS: each moves its share of
	 * every piece (gh_interp_part) through mailbox counters of its own,
	 * signals for its share of a PUT, and the strand's blocks meet before a
	 * GH_P_SYNC step */
	int blocks;
} gh_interp_plan;

#define GH_KERNEL_VECTOR 0
#define GH_KERNEL_SCALAR 1
/* the vector kernel's way with its warps specialised: half the block's
 * warps load 16-byte vectors into shared memory, the other half reduce and
 * store the previous round (a Simple piece, a PUT, a local copy) */
#define GH_KERNEL_PIPE 2
#define GH_UNROLL 4
#define GH_MAX_BLOCKS 16

/* Sets how the kernel runs the plan (kernel, protocol, blocks per strand)
 * and sizes the mailboxes for the protocol's pieces; GC_ERR_INPUT for a
 * value out of range. gh_interp_plan_build sets vector, Simple, 1 block. */
gc_status gh_interp_plan_set(gh_interp_plan *plan, int kernel, int proto, int blocks, char **errmsg);

/* GC_ERR_UNSUPPORTED for a dtype the kernel cannot reduce (float, int32 and
 * double are supported); GC_ERR_INPUT for a bad channel grouping, an
 * unmatched receive, a connection with two sending or two receiving
 * strands, a signal slot out of range or a PUT outside the peer's
 * buffer. */
gc_status gh_interp_plan_build(const gs_sched *s, gh_interp_plan *plan, char **errmsg);
void gh_interp_plan_clear(gh_interp_plan *plan);

double gh_interp_input_value(int rank, uint64_t i);
/* inputs: nranks consecutive INPUT buffers of buf_bytes[INPUT] bytes. */
void gh_interp_fill_inputs(const gh_interp_plan *plan, void *inputs);
/* expected: p.nranks consecutive OUTPUT buffers, one per data rank (helper
 * ranks, which follow them, hold no result) (sendrecv: the INPUT of rank
 * (r - 1 + n) % n; alltoall: OUTPUT block j of rank r is INPUT block r of
 * rank j). GC_ERR_UNSUPPORTED for a collective whose result is not defined
 * here. */
gc_status gh_interp_expected(const gh_interp_plan *plan, void *expected, char **errmsg);
/* Compares outputs with the expected result; the message names the first
 * mismatching rank and element. */
gc_status gh_interp_check(const gh_interp_plan *plan, const void *outputs, char **errmsg);

#ifdef __cplusplus
}
#endif

#endif
