/* SPDX-License-Identifier: MIT */
/*
 * test_p2p: the sendrecv generator (nccl-tests sendrecv_perf pattern).
 *
 * Sweeps rank counts 1..64 over empty, one-element, odd and multi-loop
 * sizes, channel counts 1, 2, 3, 8 and all data types end to end, and
 * checks the step layout of a small case by hand: per loop, the chunk's
 * SENDs to the successor, then its RECVs from the predecessor.
 */
#include "tests/sched/sched_testutil.h"

#define CHUNK 256
#define SLICE 64

static const int nchs[] = { 1, 2, 3, 8 };
static const gs_dtype dts[] = { GS_DT_F32, GS_DT_I32, GS_DT_U8, GS_DT_F64 };

static void test_sweep(void)
{
	GRand *rnd = g_rand_new_with_seed(11);
	int k = 0;

	for (int n = 1; n <= 64; n++) {
		for (int i = 0; i < 4; i++, k++) {
			gs_dtype dt = dts[k % 4];
			uint64_t el = gs_dtype_size(dt), ce = CHUNK / el;
			uint64_t cnt[4] = { 0, 1, 2 * (uint64_t)n + 1, 4 * ce + 3 };
			gs_params p = tu_params(GS_COLL_SENDRECV, GS_ALGO_RING, dt, n, cnt[i] * el,
						nchs[(k / 4 + i) % 4], CHUNK, SLICE, tu_rpn(n, k));

			if (!tu_check_case(&p, rnd))
				goto out;
		}
	}
out:
	g_rand_free(rnd);
}

/* 3 ranks, 100 floats (400 B), 1 channel, chunk 256 B, slice 64 B: loop 0
 * moves bytes 0..255 as 4 slices, loop 1 bytes 256..399 as 64 + 64 + 16. */
static void test_layout(void)
{
	static const uint64_t off[] = { 0, 64, 128, 192, 256, 320, 384 };
	static const uint64_t len[] = { 64, 64, 64, 64, 64, 64, 16 };
	gs_params p =
		tu_params(GS_COLL_SENDRECV, GS_ALGO_RING, GS_DT_F32, 3, 400, 1, CHUNK, SLICE, 0);
	gs_gen *g;
	gs_sched *s;
	char *err = NULL;

	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	s = gs_sched_materialize(g);
	for (int r = 0; r < 3; r++) {
		uint64_t n;
		const gs_step *st = gs_sched_strand(s, r, 0, &n);
		uint64_t i = 0;

		g_assert_cmpuint(n, ==, 14);
		for (int loop = 0; loop < 2; loop++) {
			int a = loop ? 4 : 0, b = loop ? 7 : 4;

			for (int j = a; j < b; j++, i++) {
				g_assert_cmpint(st[i].op, ==, GS_OP_SEND);
				g_assert_cmpint(st[i].send_peer, ==, (r + 1) % 3);
				g_assert_cmpuint(st[i].src_off, ==, off[j]);
				g_assert_cmpuint(st[i].bytes, ==, len[j]);
			}
			for (int j = a; j < b; j++, i++) {
				g_assert_cmpint(st[i].op, ==, GS_OP_RECV);
				g_assert_cmpint(st[i].recv_peer, ==, (r + 2) % 3);
				g_assert_cmpuint(st[i].dst_off, ==, off[j]);
				g_assert_cmpuint(st[i].bytes, ==, len[j]);
			}
		}
	}
	g_assert_cmpint(gs_sched_validate(s, &err), ==, GC_OK);
	g_assert_cmpint(gs_refexec_run(s, &err), ==, GC_OK);
	gs_sched_free(s);
	gs_gen_free(g);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/sched/p2p/layout", test_layout);
	g_test_add_func("/sched/p2p/sweep", test_sweep);
	return g_test_run();
}
