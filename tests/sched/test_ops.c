/* SPDX-License-Identifier: MIT */
/*
 * test_ops: the static vocabulary (op properties and names, the one-sided
 * flag, collective, algorithm and type names, element sizes, bus-bandwidth
 * factors) and the parameter checks and normalization of gs_gen_create,
 * including the algorithm / collective pairings and the alltoall
 * rounding.
 */
#include <math.h>

#include "tests/sched/sched_testutil.h"

static void test_op_props(void)
{
	/* name, sends, recvs, reduces, reads_src, writes_dst, one_sided */
	static const struct {
		gs_op op;
		const char *name;
		bool s, r, red, rd, wr, os;
	} t[] = {
		{ GS_OP_NOP, "NOP", 0, 0, 0, 0, 0, 0 },
		{ GS_OP_SEND, "SEND", 1, 0, 0, 1, 0, 0 },
		{ GS_OP_RECV, "RECV", 0, 1, 0, 0, 1, 0 },
		{ GS_OP_RECV_REDUCE_SEND, "RECV_REDUCE_SEND", 1, 1, 1, 1, 0, 0 },
		{ GS_OP_RECV_COPY_SEND, "RECV_COPY_SEND", 1, 1, 0, 0, 1, 0 },
		{ GS_OP_RECV_REDUCE_COPY, "RECV_REDUCE_COPY", 0, 1, 1, 1, 1, 0 },
		{ GS_OP_RECV_REDUCE_COPY_SEND, "RECV_REDUCE_COPY_SEND", 1, 1, 1, 1, 1, 0 },
		{ GS_OP_COPY, "COPY", 0, 0, 0, 1, 1, 0 },
		/* PUT writes the peer's buffer, not a local dst */
		{ GS_OP_PUT, "PUT", 1, 0, 0, 1, 0, 1 },
		{ GS_OP_SIGNAL, "SIGNAL", 1, 0, 0, 0, 0, 1 },
		{ GS_OP_WAIT, "WAIT", 0, 0, 0, 0, 0, 1 },
	};

	g_assert_cmpint(G_N_ELEMENTS(t), ==, GS_OP__COUNT);
	for (size_t i = 0; i < G_N_ELEMENTS(t); i++) {
		g_assert_cmpstr(gs_op_name(t[i].op), ==, t[i].name);
		g_assert_cmpint(gs_op_sends(t[i].op), ==, t[i].s);
		g_assert_cmpint(gs_op_recvs(t[i].op), ==, t[i].r);
		g_assert_cmpint(gs_op_reduces(t[i].op), ==, t[i].red);
		g_assert_cmpint(gs_op_reads_src(t[i].op), ==, t[i].rd);
		g_assert_cmpint(gs_op_writes_dst(t[i].op), ==, t[i].wr);
		g_assert_cmpint(gs_op_one_sided(t[i].op), ==, t[i].os);
	}
	g_assert_false(gs_op_one_sided(GS_OP__COUNT));
	g_assert_cmpstr(gs_op_name(GS_OP__COUNT), ==, "?");
	g_assert_false(gs_op_sends((gs_op)200));
}

static void test_names(void)
{
	g_assert_cmpstr(gs_coll_name(GS_COLL_ALLREDUCE), ==, "allreduce");
	g_assert_cmpstr(gs_coll_name(GS_COLL_ALLGATHER), ==, "allgather");
	g_assert_cmpstr(gs_coll_name(GS_COLL_REDUCESCATTER), ==, "reducescatter");
	g_assert_cmpstr(gs_coll_name(GS_COLL_SENDRECV), ==, "sendrecv");
	g_assert_cmpstr(gs_coll_name(GS_COLL_ALLTOALL), ==, "alltoall");
	g_assert_cmpstr(gs_coll_name(GS_COLL__COUNT), ==, "?");
	g_assert_cmpstr(gs_algo_name(GS_ALGO_RING), ==, "ring");
	g_assert_cmpstr(gs_algo_name(GS_ALGO_TREE), ==, "tree");
	g_assert_cmpstr(gs_algo_name(GS_ALGO_PAIRWISE), ==, "pairwise");
	g_assert_cmpstr(gs_algo_name(GS_ALGO_PUT), ==, "put");
	g_assert_cmpstr(gs_algo_name(GS_ALGO__COUNT), ==, "?");
	g_assert_cmpstr(gs_dtype_name(GS_DT_F32), ==, "float");
	g_assert_cmpstr(gs_dtype_name(GS_DT_I32), ==, "int32");
	g_assert_cmpstr(gs_dtype_name(GS_DT_F64), ==, "double");
	g_assert_cmpstr(gs_dtype_name(GS_DT_U8), ==, "uint8");
	g_assert_cmpuint(gs_dtype_size(GS_DT_F32), ==, 4);
	g_assert_cmpuint(gs_dtype_size(GS_DT_I32), ==, 4);
	g_assert_cmpuint(gs_dtype_size(GS_DT_F64), ==, 8);
	g_assert_cmpuint(gs_dtype_size(GS_DT_U8), ==, 1);
	g_assert_cmpuint(gs_dtype_size(GS_DT__COUNT), ==, 0);
}

static void test_busbw(void)
{
	g_assert_cmpfloat(fabs(gs_busbw_factor(GS_COLL_ALLREDUCE, 8) - 1.75), <, 1e-12);
	g_assert_cmpfloat(fabs(gs_busbw_factor(GS_COLL_ALLGATHER, 8) - 0.875), <, 1e-12);
	g_assert_cmpfloat(fabs(gs_busbw_factor(GS_COLL_REDUCESCATTER, 4) - 0.75), <, 1e-12);
	g_assert_cmpfloat(gs_busbw_factor(GS_COLL_SENDRECV, 16), ==, 1.0);
	g_assert_cmpfloat(fabs(gs_busbw_factor(GS_COLL_ALLTOALL, 8) - 0.875), <, 1e-12);
	g_assert_cmpfloat(gs_busbw_factor(GS_COLL_ALLTOALL, 1), ==, 0.0);
	g_assert_cmpfloat(gs_busbw_factor(GS_COLL_ALLREDUCE, 1), ==, 0.0);
	g_assert_cmpfloat(gs_busbw_factor(GS_COLL_SENDRECV, 1), ==, 1.0);
}

static void expect_reject(gs_params p, const char *needle)
{
	gs_gen dummy, *g = &dummy; /* must be reset to NULL */
	char *err = NULL;

	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_ERR_INPUT);
	g_assert_null(g);
	g_assert_nonnull(err);
	if (!strstr(err, needle))
		g_test_fail_printf("message \"%s\" lacks \"%s\"", err, needle);
	g_free(err);
}

static void test_bad_params(void)
{
	gs_params ok =
		tu_params(GS_COLL_ALLREDUCE, GS_ALGO_RING, GS_DT_F32, 8, 1024, 2, 256, 64, 4);
	gs_params p;

	p = ok, p.nranks = 0;
	expect_reject(p, "nranks 0");
	p = ok, p.nranks = -3;
	expect_reject(p, "nranks -3");
	p = ok, p.nchannels = 0;
	expect_reject(p, "nchannels 0");
	p = ok, p.slice_bytes = 512;
	expect_reject(p, "slice_bytes 512 larger than chunk_bytes 256");
	p = ok, p.ranks_per_node = 3;
	expect_reject(p, "ranks_per_node 3 does not divide nranks 8");
	p = ok, p.ranks_per_node = 16;
	expect_reject(p, "ranks_per_node 16");
	p = ok, p.ranks_per_node = -1;
	expect_reject(p, "ranks_per_node -1");
	p = ok, p.coll = GS_COLL_ALLGATHER, p.algo = GS_ALGO_TREE;
	expect_reject(p, "tree algorithm is only defined for allreduce");
	p = ok, p.coll = GS_COLL_SENDRECV, p.algo = GS_ALGO_TREE;
	expect_reject(p, "tree");
	p = ok, p.coll = GS_COLL_ALLTOALL;
	expect_reject(p, "alltoall has the pairwise and put algorithms, not ring");
	p = ok, p.algo = GS_ALGO_PAIRWISE;
	expect_reject(p, "the pairwise algorithm is only defined for alltoall, not allreduce");
	p = ok, p.coll = GS_COLL_ALLGATHER, p.algo = GS_ALGO_PUT;
	expect_reject(p, "the put algorithm is only defined for alltoall, not allgather");
	p = ok, p.coll = GS_COLL__COUNT;
	expect_reject(p, "unknown collective");
	p = ok, p.algo = GS_ALGO__COUNT;
	expect_reject(p, "unknown algorithm");
	p = ok, p.dtype = GS_DT__COUNT;
	expect_reject(p, "unknown data type");
	p = ok, p.bytes = 1ull << 60;
	expect_reject(p, "bytes");
}

static gs_gen *create(gs_params p)
{
	gs_gen *g;
	char *err = NULL;

	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	g_assert_null(err);
	return g;
}

static void test_normalize(void)
{
	gs_gen *g;

	/* allreduce: bytes rounded down to elements; defaults for chunk, slice, rpn */
	g = create(tu_params(GS_COLL_ALLREDUCE, GS_ALGO_RING, GS_DT_F32, 6, 1027, 2, 0, 0, 0));
	g_assert_cmpuint(g->p.bytes, ==, 1024);
	g_assert_cmpuint(g->p.chunk_bytes, ==, 2u << 20);
	g_assert_cmpuint(g->p.slice_bytes, ==, 1u << 20);
	g_assert_cmpint(g->p.ranks_per_node, ==, 6);
	g_assert_cmpint(g->nstrands, ==, 2);
	g_assert_cmpint(g->strands_per_channel, ==, 1); /* the ring: strand = channel */
	g_assert_cmpuint(g->buf_bytes[GS_BUF_INPUT], ==, 1024);
	g_assert_cmpuint(g->buf_bytes[GS_BUF_OUTPUT], ==, 1024);
	g_assert_cmpuint(g->buf_bytes[GS_BUF_SCRATCH], ==, 0);
	gs_gen_free(g);

	/* chunk and slice rounded down to elements, at least one element */
	g = create(tu_params(GS_COLL_ALLREDUCE, GS_ALGO_RING, GS_DT_F64, 2, 64, 1, 30, 3, 0));
	g_assert_cmpuint(g->p.chunk_bytes, ==, 24);
	g_assert_cmpuint(g->p.slice_bytes, ==, 8);
	gs_gen_free(g);

	/* allgather: bytes is the total; per-rank count = bytes / (elem * n) */
	g = create(tu_params(GS_COLL_ALLGATHER, GS_ALGO_RING, GS_DT_F32, 3, 100, 1, 0, 0, 0));
	g_assert_cmpuint(g->p.bytes, ==, 96);
	g_assert_cmpuint(g->buf_bytes[GS_BUF_INPUT], ==, 32);
	g_assert_cmpuint(g->buf_bytes[GS_BUF_OUTPUT], ==, 96);
	gs_gen_free(g);

	g = create(tu_params(GS_COLL_REDUCESCATTER, GS_ALGO_RING, GS_DT_U8, 4, 10, 1, 0, 0, 0));
	g_assert_cmpuint(g->p.bytes, ==, 8);
	g_assert_cmpuint(g->buf_bytes[GS_BUF_INPUT], ==, 8);
	g_assert_cmpuint(g->buf_bytes[GS_BUF_OUTPUT], ==, 2);
	gs_gen_free(g);

	/* fewer bytes than one element per rank: a valid, empty collective */
	g = create(tu_params(GS_COLL_REDUCESCATTER, GS_ALGO_RING, GS_DT_F32, 4, 15, 3, 0, 0, 0));
	g_assert_cmpuint(g->p.bytes, ==, 0);
	g_assert_cmpuint(gs_gen_total_steps(g), ==, 0);
	gs_gen_free(g);

	/* the tree uses two strands per channel (up, down) and one chunk of
	 * SCRATCH per channel, i.e. per up strand (here min(64, 1024 / 3 + 1)
	 * = 64 floats) */
	g = create(tu_params(GS_COLL_ALLREDUCE, GS_ALGO_TREE, GS_DT_F32, 16, 4096, 3, 256, 64, 4));
	g_assert_cmpint(g->nstrands, ==, 6);
	g_assert_cmpint(g->strands_per_channel, ==, 2);
	g_assert_cmpuint(g->buf_bytes[GS_BUF_SCRATCH], ==, 3 * 256);
	gs_gen_free(g);

	/* alltoall: the total buffer, rounded down to n blocks of whole
	 * elements; two strands per channel; put: one signal slot (every
	 * channel's SIGNALs count the same arrivals) */
	g = create(tu_params(GS_COLL_ALLTOALL, GS_ALGO_PUT, GS_DT_F32, 3, 100, 2, 0, 0, 0));
	g_assert_cmpuint(g->p.bytes, ==, 96);
	g_assert_cmpuint(g->buf_bytes[GS_BUF_INPUT], ==, 96);
	g_assert_cmpuint(g->buf_bytes[GS_BUF_OUTPUT], ==, 96);
	g_assert_cmpint(g->nstrands, ==, 4);
	g_assert_cmpint(g->strands_per_channel, ==, 2);
	g_assert_cmpuint(g->nsignals, ==, 1);
	gs_gen_free(g);
	g = create(tu_params(GS_COLL_ALLTOALL, GS_ALGO_PAIRWISE, GS_DT_U8, 4, 10, 1, 0, 0, 0));
	g_assert_cmpuint(g->p.bytes, ==, 8);
	g_assert_cmpuint(g->nsignals, ==, 0);
	gs_gen_free(g);
	/* two-sided generators have no signal slots */
	g = create(tu_params(GS_COLL_ALLREDUCE, GS_ALGO_TREE, GS_DT_F32, 4, 4096, 2, 0, 0, 0));
	g_assert_cmpuint(g->nsignals, ==, 0);
	gs_gen_free(g);

	/* sendrecv: two strands per channel (send, receive) */
	g = create(tu_params(GS_COLL_SENDRECV, GS_ALGO_RING, GS_DT_I32, 2, 4099, 4, 0, 0, 1));
	g_assert_cmpuint(g->p.bytes, ==, 4096);
	g_assert_cmpint(g->nstrands, ==, 8);
	g_assert_cmpint(g->strands_per_channel, ==, 2);
	gs_gen_free(g);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/sched/ops/op_props", test_op_props);
	g_test_add_func("/sched/ops/names", test_names);
	g_test_add_func("/sched/ops/busbw", test_busbw);
	g_test_add_func("/sched/gen/bad_params", test_bad_params);
	g_test_add_func("/sched/gen/normalize", test_normalize);
	return g_test_run();
}
