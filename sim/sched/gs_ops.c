/* SPDX-License-Identifier: MIT */
/*
 * gs_ops: the static vocabulary of the schedule IR -- properties and names
 * of ops, collectives, algorithms and data types, and the nccl-tests
 * bus-bandwidth factor.
 *
 * Invariants: every function here is a pure table lookup; an out-of-range
 * enum value yields a neutral answer (false, "?", 0) instead of undefined
 * behaviour, so executors can call these on unvalidated steps. The op
 * properties are the single source of truth for which fields of a gs_step
 * are meaningful: send_peer iff gs_op_sends(), recv_peer iff gs_op_recvs(),
 * (src_buf, src_off) iff gs_op_reads_src(), (dst_buf, dst_off) iff
 * gs_op_writes_dst(), except for the one-sided ops (gs_op_one_sided()),
 * whose remaining fields are spelled out in gs_sched.h: PUT's
 * (dst_buf, dst_off) names the peer's buffer, SIGNAL's dst_off a signal
 * slot of the peer, WAIT's src_off a slot of its own rank and its bytes a
 * threshold. None of the one-sided ops receives a message.
 */
#include "gs_sched.h"

/* One row per op, indexed by gs_op:
 * name, sends, recvs, reduces, reads_src, writes_dst, one_sided. */
const gs_op_info gs_op_table[GS_OP__COUNT] = {
	[GS_OP_NOP] = { "NOP", false, false, false, false, false, false },
	[GS_OP_SEND] = { "SEND", true, false, false, true, false, false },
	[GS_OP_RECV] = { "RECV", false, true, false, false, true, false },
	[GS_OP_RECV_REDUCE_SEND] = { "RECV_REDUCE_SEND", true, true, true, true, false, false },
	[GS_OP_RECV_COPY_SEND] = { "RECV_COPY_SEND", true, true, false, false, true, false },
	[GS_OP_RECV_REDUCE_COPY] = { "RECV_REDUCE_COPY", false, true, true, true, true, false },
	[GS_OP_RECV_REDUCE_COPY_SEND] = { "RECV_REDUCE_COPY_SEND", true, true, true, true, true,
					  false },
	[GS_OP_COPY] = { "COPY", false, false, false, true, true, false },
	/* PUT's destination is the peer's buffer, so it writes no local dst */
	[GS_OP_PUT] = { "PUT", true, false, false, true, false, true },
	[GS_OP_SIGNAL] = { "SIGNAL", true, false, false, false, false, true },
	[GS_OP_WAIT] = { "WAIT", false, false, false, false, false, true },
};

const char *gs_op_describe(gs_op op)
{
	switch (op) {
	case GS_OP_NOP: return "does nothing (a placeholder)";
	case GS_OP_SEND: return "sends a piece of its own data to its peer";
	case GS_OP_RECV: return "receives a piece and stores it as its result";
	case GS_OP_RECV_REDUCE_SEND:
		return "adds what arrived to its own piece and sends the sum on";
	case GS_OP_RECV_COPY_SEND:
		return "stores what arrived as its result and passes it on unchanged";
	case GS_OP_RECV_REDUCE_COPY:
		return "adds what arrived to its own piece and keeps the sum as its result";
	case GS_OP_RECV_REDUCE_COPY_SEND:
		return "adds what arrived to its own piece, keeps the sum and sends it on";
	case GS_OP_COPY: return "copies its own data into its result (no message)";
	case GS_OP_PUT: return "writes a piece straight into the peer's memory (one-sided)";
	case GS_OP_SIGNAL: return "raises a flag at the peer behind the writes before it";
	case GS_OP_WAIT: return "waits until enough flags have been raised at it";
	case GS_OP__COUNT: break;
	}
	return "?";
}

const char *gs_coll_name(gs_coll c)
{
	switch (c) {
	case GS_COLL_ALLREDUCE: return "allreduce";
	case GS_COLL_ALLGATHER: return "allgather";
	case GS_COLL_REDUCESCATTER: return "reducescatter";
	case GS_COLL_SENDRECV: return "sendrecv";
	case GS_COLL_ALLTOALL: return "alltoall";
	case GS_COLL_DISPATCH: return "dispatch";
	case GS_COLL_COMBINE: return "combine";
	case GS_COLL_BROADCAST: return "broadcast";
	case GS_COLL_REDUCE: return "reduce";
	case GS_COLL__COUNT: break;
	}
	return "?";
}

const char *gs_algo_name(gs_algo a)
{
	switch (a) {
	case GS_ALGO_RING: return "ring";
	case GS_ALGO_TREE: return "tree";
	case GS_ALGO_PAIRWISE: return "pairwise";
	case GS_ALGO_PUT: return "put";
	case GS_ALGO_NVLS: return "nvls";
	case GS_ALGO_NVLS_TREE: return "nvlstree";
	case GS_ALGO_BRUCK: return "bruck";
	case GS_ALGO_COLLNET: return "collnet";
	case GS_ALGO_FORWARD: return "forward";
	case GS_ALGO_PAT: return "pat";
	case GS_ALGO_COLLNET_CHAIN: return "collnetchain";
	case GS_ALGO_PPLX: return "pplx";
	case GS_ALGO_HD: return "halving-doubling";
	case GS_ALGO_GARDEN: return "garden";
	case GS_ALGO__COUNT: break;
	}
	return "?";
}

/* nccl-tests spells the types as in its -d option and its "type" column. */
const char *gs_dtype_name(gs_dtype t)
{
	switch (t) {
	case GS_DT_F32: return "float";
	case GS_DT_I32: return "int32";
	case GS_DT_F64: return "double";
	case GS_DT_U8: return "uint8";
	case GS_DT__COUNT: break;
	}
	return "?";
}

size_t gs_dtype_size(gs_dtype t)
{
	switch (t) {
	case GS_DT_F32: return 4;
	case GS_DT_I32: return 4;
	case GS_DT_F64: return 8;
	case GS_DT_U8: return 1;
	case GS_DT__COUNT: break;
	}
	return 0;
}

/*
 * nccl-tests (src/<coll>.cu, the <Coll>GetBw functions): busbw = algbw * factor. The formulas are
 * applied as written even for n == 1 (factor 0 for the ring-like
 * collectives), as nccl-tests does.
 */
double gs_busbw_factor(gs_coll c, int nranks)
{
	double n = nranks;

	if (nranks < 1)
		return 0.0;
	switch (c) {
	case GS_COLL_ALLREDUCE: return 2.0 * (n - 1.0) / n;
	case GS_COLL_ALLGATHER:
	case GS_COLL_REDUCESCATTER:
	case GS_COLL_ALLTOALL: return (n - 1.0) / n;
	case GS_COLL_SENDRECV:
	case GS_COLL_DISPATCH:
	case GS_COLL_COMBINE:
	case GS_COLL_BROADCAST:
	case GS_COLL_REDUCE: return 1.0;
	case GS_COLL__COUNT: break;
	}
	return 0.0;
}
