/* SPDX-License-Identifier: MIT */
/*
 * test_hd: allreduce by recursive halving and doubling (gs_hd.c).
 *
 * Power-of-two rank counts 1..64, element counts that are empty, smaller
 * than the ranks, uneven over the blocks and the channels, 1-3 channels,
 * slices smaller than a round's data, every data type: materialized,
 * validated (every contribution reaches every block once), executed on
 * real data, executed with one-message connection buffers, and compared
 * window by window with the streaming fill. The shape: log2 n rounds each
 * way with the rank one bit apart, the reduce-scatter halving the data
 * (n/2 .. 1 blocks), the allgather doubling it back. Refused for other
 * rank counts and collectives.
 */
#include "tests/sched/sched_testutil.h"

static void test_allreduce(void)
{
	static const gs_dtype dts[] = {GS_DT_F32, GS_DT_I32, GS_DT_U8, GS_DT_F64};
	static const uint64_t counts[] = {0, 1, 5, 37, 256};
	GRand *rnd = g_rand_new_with_seed(4242);
	int k = 0;
	for (int n = 1; n <= 64; n *= 2)
		for (size_t i = 0; i < G_N_ELEMENTS(counts); i++, k++) {
			gs_dtype dt = dts[k % 4];
			size_t el = gs_dtype_size(dt);
			gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_HD, dt, n,
						counts[i] * el * (uint64_t)(1 + k % 3), 1 + k % 3, 256,
						64, 0);
			if (!tu_check_case(&p, rnd))
				break;
		}
	g_rand_free(rnd);
}

static void test_shape(void)
{
	/* 8 ranks, 8 blocks of 16 floats, one channel, slices of a block:
	 * rank 3 sends blocks 4-7 to 7, 0-1 to 1, 2 to 2, then gathers 2
	 * from 2, 0-1 from 1, 4-7 from 7 */
	const int n = 8;
	gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_HD, GS_DT_F32, n, 4ull * 16 * n, 1, 0,
				64, 0);
	gs_gen *g;
	char *err = NULL;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	uint64_t len = g->ops->strand_len(g, 3, 0);
	g_assert_cmpuint(len, ==, 2 * 2 * 7); /* (4 + 2 + 1) slices each way, twice */
	gs_step st[32];
	g->ops->fill(g, 3, 0, 0, (uint32_t)len, st);
	static const int peers[] = {7, 1, 2, 2, 1, 7};
	static const int first[] = {4, 0, 2, 2, 0, 4}; /* block sent (rs) / received (ag) */
	static const int blocks[] = {4, 2, 1, 1, 2, 4};
	uint64_t at = 0;
	for (int q = 0; q < 6; q++) {
		for (int b = 0; b < blocks[q]; b++, at += 2) {
			g_assert_cmpint(st[at].op, ==, GS_OP_SEND);
			g_assert_cmpint(st[at].send_peer, ==, peers[q]);
			g_assert_cmpint(st[at + 1].recv_peer, ==, peers[q]);
			g_assert_cmpint(st[at + 1].op, ==, q < 3 ? GS_OP_RECV_REDUCE_COPY : GS_OP_RECV);
			g_assert_cmpuint(st[at].bytes, ==, 64);
			if (q < 3)
				g_assert_cmpuint(st[at].src_off, ==, 64u * (uint64_t)(first[q] + b));
			else
				g_assert_cmpuint(st[at + 1].dst_off, ==, 64u * (uint64_t)(first[q] + b));
		}
	}
	gs_gen_free(g);
}

static void test_refused(void)
{
	gs_gen *g = NULL;
	char *err = NULL;
	gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_HD, GS_DT_F32, 6, 4096, 1, 0, 64, 0);
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, "power-of-two count of ranks, not 6"));
	g_free(err);
	err = NULL;
	p = tu_params(GS_COLL_ALLGATHER, GS_ALGO_HD, GS_DT_F32, 8, 4096, 1, 0, 64, 0);
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, "only defined for allreduce"));
	g_free(err);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/hd/allreduce", test_allreduce);
	g_test_add_func("/hd/shape", test_shape);
	g_test_add_func("/hd/refused", test_refused);
	return g_test_run();
}
