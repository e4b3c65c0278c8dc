/* SPDX-License-Identifier: MIT */
/*
 * test_chain: NCCL's ring broadcast and reduce, a pipeline from (to) the
 * root, rank 0.
 *
 * Every rank count 1..24 with several ranks per node (so the channels' rings
 * enter each node at different GPUs), block counts that are empty, one
 * element and uneven over the channels, 1-3 channels, slices of one and of
 * several elements, every data type: materialized, validated (every rank's
 * OUTPUT the root's INPUT; the root's OUTPUT the sum of all INPUTs, each
 * counted once), executed on real data, executed with one-message
 * connection buffers, and compared window by window with the streaming
 * fill. The shape: the chain starts at the root (broadcast) or ends at it
 * (reduce), n - 1 hops along the ring, the root sends and copies. Refused
 * with any algorithm but ring.
 */
#include "tests/sched/sched_testutil.h"

static void sweep(gs_coll coll, guint32 seed)
{
	static const gs_dtype dts[] = {GS_DT_F32, GS_DT_I32, GS_DT_U8, GS_DT_F64};
	static const uint64_t counts[] = {0, 1, 7, 53};
	GRand *rnd = g_rand_new_with_seed(seed);
	int k = 0;
	for (int n = 1; n <= 24; n++) {
		for (size_t i = 0; i < G_N_ELEMENTS(counts); i++, k++) {
			gs_dtype dt = dts[k % 4];
			size_t el = gs_dtype_size(dt);
			gs_params p = tu_params(coll, GS_ALGO_RING, dt, n, counts[i] * el, 1 + k % 3,
						256, k % 2 ? 8 : 64, tu_rpn(n, k));
			if (!tu_check_case(&p, rnd))
				goto out;
		}
	}
out:
	g_rand_free(rnd);
}

static void test_broadcast(void) { sweep(GS_COLL_BROADCAST, 31); }
static void test_reduce(void) { sweep(GS_COLL_REDUCE, 37); }

/* 4 ranks on one node, one channel, 4 slices: the broadcast root (rank 0)
 * sends and copies each slice, rank 3 ends the chain; the reduce starts at
 * rank 1 and ends at the root. */
static void test_shape(void)
{
	for (int red = 0; red < 2; red++) {
		gs_params p = tu_params(red ? GS_COLL_REDUCE : GS_COLL_BROADCAST, GS_ALGO_RING,
					GS_DT_F32, 4, 4 * 64, 1, 64, 64, 0);
		gs_gen *g;
		char *err = NULL;
		g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
		static const gs_op bc[4] = {GS_OP_SEND, GS_OP_RECV_COPY_SEND, GS_OP_RECV_COPY_SEND,
					    GS_OP_RECV};
		static const gs_op rd[4] = {GS_OP_RECV_REDUCE_COPY, GS_OP_SEND,
					    GS_OP_RECV_REDUCE_SEND, GS_OP_RECV_REDUCE_SEND};
		for (int r = 0; r < 4; r++) {
			uint64_t len = g->ops->strand_len(g, r, 0);
			g_assert_cmpuint(len, ==, !red && r == 0 ? 8 : 4);
			gs_step st[8];
			g->ops->fill(g, r, 0, 0, (uint32_t)len, st);
			g_assert_cmpint(st[0].op, ==, red ? rd[r] : bc[r]);
			g_assert_cmpuint(st[0].bytes, ==, 64);
			if (gs_op_sends(st[0].op))
				g_assert_cmpint(st[0].send_peer, ==, (r + 1) % 4);
			if (!red && r == 0)
				g_assert_cmpint(st[1].op, ==, GS_OP_COPY);
		}
		gs_gen_free(g);
	}
}

static void test_refused(void)
{
	gs_params p = tu_params(GS_COLL_BROADCAST, GS_ALGO_TREE, GS_DT_F32, 4, 64, 1, 0, 0, 0);
	tu_expect_refused(&p, "the tree algorithm is only defined for allreduce, not broadcast");
	p = tu_params(GS_COLL_REDUCE, GS_ALGO_PAT, GS_DT_F32, 4, 64, 1, 0, 0, 0);
	tu_expect_refused(&p, "not reduce");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/sched/chain/broadcast", test_broadcast);
	g_test_add_func("/sched/chain/reduce", test_reduce);
	g_test_add_func("/sched/chain/shape", test_shape);
	g_test_add_func("/sched/chain/refused", test_refused);
	return g_test_run();
}
