/* SPDX-License-Identifier: MIT */
/*
 * test_pat: NCCL's PAT allgather and reduce-scatter (binomial trees shifted
 * for every rank, farthest peer first for the allgather).
 *
 * Every rank count 1..40 (powers of two and not), block counts that are
 * empty, one element and uneven over the channels, 1-3 channels, slices
 * smaller than a round's data, and every data type: materialized,
 * validated (every block reaches every rank once; every contribution
 * reaches its block once), executed on real data, executed with
 * one-message connection buffers, and compared window by window with the
 * streaming fill (n not a power of two packs a dimension's runs of blocks
 * into one message train). The shape: one message train per dimension,
 * the allgather's distances n/2 .. 1 carrying 1 .. n/2 blocks (a power of
 * two; at most that many otherwise) and the reduce-scatter's the reverse,
 * n - 1 blocks in all; a packed round's copies around its train. Refused
 * for the other collectives.
 */
#include "tests/sched/sched_testutil.h"

static void test_allgather(void) { tu_sweep_rounds(GS_COLL_ALLGATHER, GS_ALGO_PAT, 9191); }
static void test_reducescatter(void) { tu_sweep_rounds(GS_COLL_REDUCESCATTER, GS_ALGO_PAT, 9191); }

/* Rounds: blocks moved per dimension and their order. */
static void test_rounds(void)
{
	for (int n = 1; n <= 300; n++) {
		for (int rs = 0; rs < 2; rs++) {
			int dim[16];
			uint64_t blocks[16];
			int D = gs_pat_rounds(n, rs, dim, blocks);
			g_assert_cmpint(1 << D, >=, n);
			g_assert_cmpint(D == 0 || (1 << (D - 1)) < n, ==, TRUE);
			uint64_t sum = 0;
			for (int q = 0; q < D; q++) {
				sum += blocks[q];
				/* the allgather's dimensions descend, the
				 * reduce-scatter's ascend; at most 2^(D-1-d) blocks */
				g_assert_cmpint(dim[q], ==, rs ? q : D - 1 - q);
				g_assert_cmpuint(blocks[q], >=, 1);
				g_assert_cmpuint(blocks[q], <=, 1u << (D - 1 - dim[q]));
				if ((n & (n - 1)) == 0)
					g_assert_cmpuint(blocks[q], ==, 1u << (D - 1 - dim[q]));
			}
			/* every rank sends n - 1 blocks in all */
			g_assert_cmpuint(sum, ==, n > 1 ? (uint64_t)n - 1 : 0);
		}
	}
}

static void test_shape(void)
{
	/* 8 ranks, one slice per train: the allgather's peers are x + 4, 2, 1
	 * and it receives from x - 4, 2, 1; the reduce-scatter sends to x - 1,
	 * 2, 4 */
	for (int rs = 0; rs < 2; rs++) {
		const int n = 8;
		gs_params p = tu_params(rs ? GS_COLL_REDUCESCATTER : GS_COLL_ALLGATHER, GS_ALGO_PAT,
					GS_DT_F32, n, 4ull * 64 * n, 2, 0, 1 << 20, 0);
		gs_gen *g;
		char *err = NULL;
		g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
		uint64_t len = g->ops->strand_len(g, 3, 1);
		g_assert_cmpuint(len, ==, 1 + (uint64_t)n + 2 * 3);
		gs_step st[16];
		g->ops->fill(g, 3, 1, 0, (uint32_t)len, st);
		uint64_t at = rs ? n : 1;
		for (int q = 0; q < 3; q++) {
			int dist = rs ? 1 << q : 4 >> q;
			g_assert_cmpint(st[at + 2 * q].op, ==, GS_OP_SEND);
			g_assert_cmpint(st[at + 2 * q].send_peer, ==, (3 + (rs ? -dist : dist) + n) % n);
			g_assert_cmpint(st[at + 2 * q + 1].recv_peer, ==, (3 + (rs ? dist : -dist) + n) % n);
			/* a part is 32 elements: 1, 2, 4 of them (allgather) */
			g_assert_cmpuint(st[at + 2 * q].bytes, ==, 128u * (rs ? 4u >> q : 1u << q));
		}
		gs_gen_free(g);
	}
}

static void test_refused(void)
{
	gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_PAT, GS_DT_F32, 4, 64, 1, 0, 0, 0);
	tu_expect_refused(&p, "the pat algorithm is only defined for allgather and reducescatter, not allreduce");
	p.coll = GS_COLL_ALLTOALL;
	tu_expect_refused(&p, "not alltoall");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/sched/pat/allgather", test_allgather);
	g_test_add_func("/sched/pat/reducescatter", test_reducescatter);
	g_test_add_func("/sched/pat/rounds", test_rounds);
	g_test_add_func("/sched/pat/shape", test_shape);
	g_test_add_func("/sched/pat/refused", test_refused);
	return g_test_run();
}
