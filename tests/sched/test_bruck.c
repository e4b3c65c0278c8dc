/* SPDX-License-Identifier: MIT */
/*
 * test_bruck: allgather and reduce-scatter in ceil(log2 n) rounds.
 *
 * Every rank count 1..40 (powers of two and not), block counts that are
 * empty, one element and uneven over the channels, 1-3 channels and every
 * data type: materialized, validated (every block reaches every rank once;
 * every contribution reaches its block once), executed on real data,
 * executed with one-message connection buffers, and compared window by
 * window with the streaming fill. The strand length is 1 + n + 2 ceil(log2
 * n), the rounds' peers are r -/+ 2^k, and the algorithm is refused for the
 * other collectives.
 */
#include "tests/sched/sched_testutil.h"

static void test_allgather(void) { tu_sweep_rounds(GS_COLL_ALLGATHER, GS_ALGO_BRUCK, 4242); }
static void test_reducescatter(void) { tu_sweep_rounds(GS_COLL_REDUCESCATTER, GS_ALGO_BRUCK, 4242); }

static void test_shape(void)
{
	static const struct {
		int n, rounds;
	} cases[] = {{1, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {8, 3}, {9, 4}, {1000, 10}};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		int n = cases[i].n;
		gs_params p = tu_params(GS_COLL_ALLGATHER, GS_ALGO_BRUCK, GS_DT_F32, n,
					4ull * 64 * (uint64_t)n, 2, 0, 0, 0);
		gs_gen *g;
		char *err = NULL;
		g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
		g_assert_cmpuint(g->ops->strand_len(g, n - 1, 1), ==,
				 1 + (uint64_t)n + 2 * (uint64_t)cases[i].rounds);
		/* round k sends to r - 2^k and receives from r + 2^k */
		gs_step st[64];
		uint32_t len = (uint32_t)MIN(g->ops->strand_len(g, 0, 0), 64);
		g->ops->fill(g, 0, 0, 0, len, st);
		for (int k = 0; k < cases[i].rounds && 2 + 2 * k < (int)len; k++) {
			int d = 1 << k;
			g_assert_cmpint(st[1 + 2 * k].op, ==, GS_OP_SEND);
			g_assert_cmpint(st[1 + 2 * k].send_peer, ==, (n - d % n) % n);
			g_assert_cmpint(st[2 + 2 * k].recv_peer, ==, d % n);
		}
		gs_gen_free(g);
	}
}

static void test_refused(void)
{
	gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_BRUCK, GS_DT_F32, 4, 64, 1, 0, 0, 0);
	tu_expect_refused(&p, "only defined for allgather and reducescatter, not allreduce");
	p.coll = GS_COLL_SENDRECV;
	tu_expect_refused(&p, "not sendrecv");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/sched/bruck/allgather", test_allgather);
	g_test_add_func("/sched/bruck/reducescatter", test_reducescatter);
	g_test_add_func("/sched/bruck/shape", test_shape);
	g_test_add_func("/sched/bruck/refused", test_refused);
	return g_test_run();
}
