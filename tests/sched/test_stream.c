/* SPDX-License-Identifier: MIT */
/*
 * test_stream: streaming generation at simulator scale.
 *
 * The simulator pulls steps in windows of a few hundred for up to 4096 ranks
 * and thousands of steps per strand, so fill() must locate any window
 * without materializing the schedule. For large configurations of every
 * generator (where materializing is too costly for a unit test), random
 * windows must equal the same steps produced one at a time and the whole
 * strand produced in one call, and consecutive windows must tile the
 * strand (the all-to-all generators included). Also: every step of a
 * 4096-rank ring allreduce is streamed in
 * windows of 300 (checking peers against the ring order and that data
 * offsets stay in bounds), and generation is deterministic.
 */
#include "tests/sched/sched_testutil.h"

/* Windows of (r, c) vs. single-step fills and vs. the whole strand. */
static void check_strand(const gs_gen *g, int r, int c, GRand *rnd, int nwin)
{
	uint64_t len = g->ops->strand_len(g, r, c);
	gs_step *whole, one;

	if (len == 0)
		return;
	g_assert_cmpuint(len, <, 1u << 24);
	whole = g_new(gs_step, len);
	g->ops->fill(g, r, c, 0, (uint32_t)len, whole);
	for (int w = 0; w < nwin; w++) {
		uint64_t first = (uint64_t)g_rand_double_range(rnd, 0, (double)len);
		uint64_t want = (uint64_t)g_rand_int_range(rnd, 1, 400); /* MIN evaluates twice */
		uint64_t n = MIN(len - first, want);
		gs_step win[400];

		g->ops->fill(g, r, c, first, (uint32_t)n, win);
		g_assert_true(memcmp(win, whole + first, n * sizeof(gs_step)) == 0);
		for (uint64_t i = 0; i < n; i += 1 + n / 8) {
			g->ops->fill(g, r, c, first + i, 1, &one);
			g_assert_true(memcmp(&one, &whole[first + i], sizeof(one)) == 0);
		}
	}
	/* consecutive windows tile the strand */
	for (uint64_t first = 0; first < len; first += 97) {
		uint64_t n = MIN(len - first, (uint64_t)97);
		gs_step win[97];

		g->ops->fill(g, r, c, first, (uint32_t)n, win);
		g_assert_true(memcmp(win, whole + first, n * sizeof(gs_step)) == 0);
	}
	for (uint64_t i = 0; i < len; i++) {
		g_assert_cmpuint(whole[i].bytes, >, 0);
		if (whole[i].op == GS_OP_SIGNAL || whole[i].op == GS_OP_WAIT) {
			/* the signal word / a threshold; the slot is in range */
			g_assert_cmpuint(whole[i].op == GS_OP_SIGNAL ? whole[i].dst_off
								      : whole[i].src_off,
					 <, g->nsignals);
			continue;
		}
		g_assert_cmpuint(whole[i].bytes, <=, g->p.slice_bytes);
		/* a PUT's dst is the peer's buffer, of the same size */
		if (whole[i].op == GS_OP_PUT)
			g_assert_cmpuint(whole[i].dst_off + whole[i].bytes, <=,
					 g->buf_bytes[whole[i].dst_buf]);
		if (gs_op_reads_src(whole[i].op))
			g_assert_cmpuint(whole[i].src_off + whole[i].bytes, <=,
					 g->buf_bytes[whole[i].src_buf]);
		if (gs_op_writes_dst(whole[i].op))
			g_assert_cmpuint(whole[i].dst_off + whole[i].bytes, <=,
					 g->buf_bytes[whole[i].dst_buf]);
	}
	g_free(whole);
}

static void test_large_windows(void)
{
	const gs_params ps[] = {
		tu_params(GS_COLL_ALLREDUCE, GS_ALGO_RING, GS_DT_F32, 4096, 3ull << 30, 4, 0, 0, 8),
		tu_params(GS_COLL_ALLREDUCE, GS_ALGO_RING, GS_DT_F32, 1000, 123456789, 3, 4096,
			  1024, 8),
		tu_params(GS_COLL_ALLREDUCE, GS_ALGO_RING, GS_DT_U8, 97, 1000003, 2, 512, 96, 0),
		tu_params(GS_COLL_ALLGATHER, GS_ALGO_RING, GS_DT_F32, 512, 1ull << 30, 8, 0, 0, 8),
		tu_params(GS_COLL_REDUCESCATTER, GS_ALGO_RING, GS_DT_F64, 129, 987654321, 3, 65536,
			  8192, 3),
		tu_params(GS_COLL_ALLREDUCE, GS_ALGO_TREE, GS_DT_F32, 4096, 1ull << 32, 8, 0, 0, 8),
		tu_params(GS_COLL_ALLREDUCE, GS_ALGO_TREE, GS_DT_I32, 1000, 123456789, 3, 65536,
			  4096, 4),
		tu_params(GS_COLL_SENDRECV, GS_ALGO_RING, GS_DT_F32, 4096, 1ull << 30, 8, 65536,
			  16384, 8),
		tu_params(GS_COLL_ALLTOALL, GS_ALGO_PAIRWISE, GS_DT_F32, 1024, 3ull << 30, 4, 0, 0,
			  8),
		tu_params(GS_COLL_ALLTOALL, GS_ALGO_PUT, GS_DT_F32, 4096, 1ull << 32, 2, 65536,
			  16384, 8),
		tu_params(GS_COLL_ALLTOALL, GS_ALGO_PUT, GS_DT_F64, 129, 987654321, 3, 4096, 1024,
			  3),
	};
	GRand *rnd = g_rand_new_with_seed(17);

	for (size_t i = 0; i < G_N_ELEMENTS(ps); i++) {
		gs_gen *g;
		char *err = NULL;

		g_assert_cmpint(gs_gen_create(&ps[i], &g, &err), ==, GC_OK);
		for (int j = 0; j < 6; j++)
			check_strand(g, g_rand_int_range(rnd, 0, g->p.nranks),
				     g_rand_int_range(rnd, 0, g->nstrands), rnd, 20);
		/* the first and last ranks and strands too */
		check_strand(g, 0, 0, rnd, 5);
		check_strand(g, g->p.nranks - 1, g->nstrands - 1, rnd, 5);
		gs_gen_free(g);
	}
	g_rand_free(rnd);
}

/*
 * A 4096-rank ring allreduce, one channel, 4 GiB of floats: one loop of 1
 * MiB chunks, one slice each, 2 * 4096 - 1 steps per strand. Stream all of
 * it in windows of 300 as the simulator would.
 */
static void test_stream_4096(void)
{
	gs_params p =
		tu_params(GS_COLL_ALLREDUCE, GS_ALGO_RING, GS_DT_F32, 4096, 4ull << 30, 1, 0, 0, 8);
	gs_gen *g;
	char *err = NULL;
	gs_step win[300];
	uint64_t total = 0;
	gint64 t0 = g_get_monotonic_time();

	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	for (int r = 0; r < 4096; r++) {
		uint64_t len = g->ops->strand_len(g, r, 0);

		g_assert_cmpuint(len, ==, 8191);
		for (uint64_t first = 0; first < len; first += 300) {
			uint32_t n = (uint32_t)MIN(len - first, (uint64_t)300);

			g->ops->fill(g, r, 0, first, n, win);
			for (uint32_t i = 0; i < n; i++) {
				g_assert_cmpuint(win[i].bytes, ==, 1u << 20);
				/* channel 0's ring is the identity order */
				g_assert_true(win[i].send_peer == -1 ||
					      win[i].send_peer == (r + 1) % 4096);
				g_assert_true(win[i].recv_peer == -1 ||
					      win[i].recv_peer == (r + 4095) % 4096);
			}
			total += n;
		}
	}
	g_test_message("streamed %" PRIu64 " steps in %.2f s", total,
		       (double)(g_get_monotonic_time() - t0) / 1e6);
	g_assert_cmpuint(total, ==, gs_gen_total_steps(g));
	gs_gen_free(g);
}

static void test_deterministic(void)
{
	const gs_params ps[] = {
		tu_params(GS_COLL_ALLREDUCE, GS_ALGO_RING, GS_DT_F32, 24, 100003, 3, 1024, 256, 4),
		tu_params(GS_COLL_ALLREDUCE, GS_ALGO_TREE, GS_DT_F32, 24, 100003, 3, 1024, 256, 4),
		tu_params(GS_COLL_ALLGATHER, GS_ALGO_RING, GS_DT_F32, 24, 100003, 3, 1024, 256, 4),
		tu_params(GS_COLL_SENDRECV, GS_ALGO_RING, GS_DT_F32, 24, 100003, 3, 1024, 256, 4),
		tu_params(GS_COLL_ALLTOALL, GS_ALGO_PAIRWISE, GS_DT_F32, 24, 100003, 3, 1024, 256,
			  4),
		tu_params(GS_COLL_ALLTOALL, GS_ALGO_PUT, GS_DT_F32, 24, 100003, 3, 1024, 256, 4),
	};

	for (size_t i = 0; i < G_N_ELEMENTS(ps); i++) {
		GString *a = g_string_new(NULL), *b = g_string_new(NULL);

		for (int k = 0; k < 2; k++) {
			gs_gen *g;
			gs_sched *s;
			char *err = NULL;

			g_assert_cmpint(gs_gen_create(&ps[i], &g, &err), ==, GC_OK);
			s = gs_sched_materialize(g);
			gs_sched_dump(s, k ? b : a);
			gs_sched_free(s);
			gs_gen_free(g);
		}
		g_assert_cmpuint(a->len, >, 0);
		g_assert_true(g_string_equal(a, b));
		g_string_free(a, TRUE);
		g_string_free(b, TRUE);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/sched/stream/deterministic", test_deterministic);
	g_test_add_func("/sched/stream/large_windows", test_large_windows);
	g_test_add_func("/sched/stream/4096", test_stream_4096);
	return g_test_run();
}
