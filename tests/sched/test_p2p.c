/* SPDX-License-Identifier: MIT */
/*
 * test_p2p: the sendrecv generator (nccl-tests sendrecv_perf pattern).
 *
 * Sweeps rank counts 1..64 over empty, one-element, odd and multi-loop
 * sizes, channel counts 1, 2, 3, 8 and all data types end to end
 * (validator, reference executor, bounded buffers, streaming windows), and
 * checks the strand layout by hand: logical channel c has strand 2c, the
 * send group (SENDs of the channel's INPUT slices to the successor), and
 * strand 2c + 1, the receive group (RECVs from the predecessor into OUTPUT
 * at the same offsets). The send strands finish with no receive strand
 * ever running (sends never wait for the rank's own receives), and one
 * rank is a COPY per slice on the send strand with an empty receive
 * strand.
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
 * moves bytes 0..255 as 4 slices, loop 1 bytes 256..399 as 64 + 64 + 16.
 * Strand 0 holds the 7 SENDs, strand 1 the 7 RECVs. */
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
	g_assert_cmpint(g->nstrands, ==, 2);
	g_assert_cmpint(g->strands_per_channel, ==, 2);
	s = gs_sched_materialize(g);
	g_assert_cmpint(s->strands_per_channel, ==, 2);
	for (int r = 0; r < 3; r++) {
		uint64_t n;
		const gs_step *st = gs_sched_strand(s, r, 0, &n);

		g_assert_cmpuint(n, ==, 7);
		for (int j = 0; j < 7; j++) {
			g_assert_cmpint(st[j].op, ==, GS_OP_SEND);
			g_assert_cmpint(st[j].send_peer, ==, (r + 1) % 3);
			g_assert_cmpint(st[j].recv_peer, ==, -1);
			g_assert_cmpint(st[j].src_buf, ==, GS_BUF_INPUT);
			g_assert_cmpuint(st[j].src_off, ==, off[j]);
			g_assert_cmpuint(st[j].bytes, ==, len[j]);
		}
		st = gs_sched_strand(s, r, 1, &n);
		g_assert_cmpuint(n, ==, 7);
		for (int j = 0; j < 7; j++) {
			g_assert_cmpint(st[j].op, ==, GS_OP_RECV);
			g_assert_cmpint(st[j].recv_peer, ==, (r + 2) % 3);
			g_assert_cmpint(st[j].send_peer, ==, -1);
			g_assert_cmpint(st[j].dst_buf, ==, GS_BUF_OUTPUT);
			g_assert_cmpuint(st[j].dst_off, ==, off[j]);
			g_assert_cmpuint(st[j].bytes, ==, len[j]);
		}
	}
	g_assert_cmpint(gs_sched_validate(s, &err), ==, GC_OK);
	g_assert_cmpint(gs_refexec_run(s, &err), ==, GC_OK);
	gs_sched_free(s);
	gs_gen_free(g);
}

/* Channel c's parts go to strands 2c and 2c + 1: 2 ranks, 3 channels of
 * 3 + 3 + 2 floats, chunk 8 B, slice 4 B (loops of two slices). */
static void test_channels(void)
{
	static const uint64_t start[] = { 0, 12, 24 }, bytes[] = { 12, 12, 8 };
	gs_params p = tu_params(GS_COLL_SENDRECV, GS_ALGO_RING, GS_DT_F32, 2, 32, 3, 8, 4, 0);
	gs_gen *g;
	gs_sched *s;
	char *err = NULL;

	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	s = gs_sched_materialize(g);
	g_assert_cmpint(s->nstrands, ==, 6);
	for (int r = 0; r < 2; r++) {
		for (int c = 0; c < 3; c++) {
			uint64_t ns, nr;
			const gs_step *snd = gs_sched_strand(s, r, 2 * c, &ns);
			const gs_step *rcv = gs_sched_strand(s, r, 2 * c + 1, &nr);

			g_assert_cmpuint(ns, ==, bytes[c] / 4);
			g_assert_cmpuint(nr, ==, bytes[c] / 4);
			for (uint64_t j = 0; j < ns; j++) {
				g_assert_cmpint(snd[j].op, ==, GS_OP_SEND);
				g_assert_cmpint(snd[j].send_peer, ==, 1 - r);
				g_assert_cmpuint(snd[j].src_off, ==, start[c] + 4 * j);
				g_assert_cmpint(rcv[j].op, ==, GS_OP_RECV);
				g_assert_cmpint(rcv[j].recv_peer, ==, 1 - r);
				g_assert_cmpuint(rcv[j].dst_off, ==, start[c] + 4 * j);
			}
		}
	}
	g_assert_cmpint(gs_sched_validate(s, &err), ==, GC_OK);
	gs_sched_free(s);
	gs_gen_free(g);
}

/* Sends and receives progress independently: with unlimited buffering all
 * send strands finish while no receive strand runs at all; the receive
 * strands alone cannot start. */
static void test_independent(void)
{
	gs_params p = tu_params(GS_COLL_SENDRECV, GS_ALGO_RING, GS_DT_F32, 5, 4 * 1000, 3, CHUNK,
				SLICE, 0);
	gs_gen *g;
	gs_sched *s;
	char *err = NULL, *where = NULL;

	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	s = gs_sched_materialize(g);
	g_assert_cmpuint(tu_run_bounded(s, UINT64_MAX, 0, &where), ==, 0);
	g_assert_cmpuint(tu_run_bounded(s, UINT64_MAX, 1, &where), ==, 5 * 3);
	g_assert_cmpstr(where, ==, "r0 c1 #0 (RECV)");
	g_free(where);
	gs_sched_free(s);
	gs_gen_free(g);
}

/* One rank: a COPY INPUT -> OUTPUT per slice on the send strand, nothing on
 * the receive strand. */
static void test_one_rank(void)
{
	gs_params p = tu_params(GS_COLL_SENDRECV, GS_ALGO_RING, GS_DT_F32, 1, 40, 2, 8, 4, 0);
	gs_gen *g;
	gs_sched *s;
	GString *a = g_string_new(NULL);
	char *err = NULL;

	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	s = gs_sched_materialize(g);
	gs_sched_dump(s, a);
	/* channel 0: floats 0..4 (bytes 0..19), channel 1: floats 5..9 */
	g_assert_cmpstr(a->str, ==,
			"r0 c0 #0 COPY send=-1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
			"r0 c0 #1 COPY send=-1 recv=-1 src=INPUT+4 dst=OUTPUT+4 bytes=4\n"
			"r0 c0 #2 COPY send=-1 recv=-1 src=INPUT+8 dst=OUTPUT+8 bytes=4\n"
			"r0 c0 #3 COPY send=-1 recv=-1 src=INPUT+12 dst=OUTPUT+12 bytes=4\n"
			"r0 c0 #4 COPY send=-1 recv=-1 src=INPUT+16 dst=OUTPUT+16 bytes=4\n"
			"r0 c2 #0 COPY send=-1 recv=-1 src=INPUT+20 dst=OUTPUT+20 bytes=4\n"
			"r0 c2 #1 COPY send=-1 recv=-1 src=INPUT+24 dst=OUTPUT+24 bytes=4\n"
			"r0 c2 #2 COPY send=-1 recv=-1 src=INPUT+28 dst=OUTPUT+28 bytes=4\n"
			"r0 c2 #3 COPY send=-1 recv=-1 src=INPUT+32 dst=OUTPUT+32 bytes=4\n"
			"r0 c2 #4 COPY send=-1 recv=-1 src=INPUT+36 dst=OUTPUT+36 bytes=4\n");
	g_assert_cmpint(gs_refexec_run(s, &err), ==, GC_OK);
	g_string_free(a, TRUE);
	gs_sched_free(s);
	gs_gen_free(g);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/sched/p2p/layout", test_layout);
	g_test_add_func("/sched/p2p/channels", test_channels);
	g_test_add_func("/sched/p2p/independent", test_independent);
	g_test_add_func("/sched/p2p/one_rank", test_one_rank);
	g_test_add_func("/sched/p2p/sweep", test_sweep);
	return g_test_run();
}
