/* SPDX-License-Identifier: MIT */
/*
 * test_garden: MoE dispatch and combine in pplx-garden's shape
 * (gs_garden.c).
 *
 * End to end (validator, reference executor, bounded buffers, streaming
 * windows) over 1..8 ranks, 1..16 tokens, top-1..12 of 1..4 experts per
 * rank, messages of one element to several slices, 1..12 channels, all
 * data types, and in communicators; the traffic of every rank (put's
 * bytes, in one range per other rank it sends to, each with its signal,
 * and dispatch's routing message to every other rank); the strand layout
 * (the receiver's waits, the ranges on their channels, packing before
 * writing); and the refusals.
 */
#include "tests/sched/sched_testutil.h"
#include "sim/sched/gs_impl.h"

#define CHUNK 256
#define SLICE 64

static gs_params garden_params(gs_coll coll, gs_dtype dt, int n, uint64_t msg, int nch, uint32_t T,
			       uint32_t K, uint32_t E, uint64_t seed)
{
	return tu_moe_params(coll, GS_ALGO_GARDEN, dt, n, msg, nch, CHUNK, SLICE, T, K, E, seed);
}

static void test_sweep(void)
{
	tu_moe_sweep(GS_ALGO_GARDEN, CHUNK, SLICE, 59);
}

/* Every rank sends put's bytes, in one PUT per other rank it has tokens
 * for, each followed by its SIGNAL to that rank; dispatch adds one
 * routing SIGNAL to every other rank. The receiver waits for the routing
 * (dispatch) and for every rank that sends to it, then copies each
 * message once. */
static void test_traffic(void)
{
	enum { n = 5, T = 11, K = 3, E = 10, MSG = 40 };
	for (int c = 0; c < 2; c++) {
		gs_coll coll = c ? GS_COLL_COMBINE : GS_COLL_DISPATCH;
		gs_params p = garden_params(coll, GS_DT_F32, n, MSG, 3, T, K, E, 7);
		gs_gen *g;
		char *err = NULL;
		g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
		gs_sched *s = gs_sched_materialize(g);
		gs_moe_map m;
		g_assert_cmpint(gs_moe_map_build(&p, &m, &err), ==, GC_OK);
		uint64_t pair[n][n] = {{0}};
		for (uint64_t i = 0; i < (uint64_t)n * T * K; i++) {
			int src = (int)(i / (T * K)), dst = m.dst[i];
			if (src != dst)
				pair[c ? dst : src][c ? src : dst] += MSG;
		}
		for (int r = 0; r < n; r++) {
			uint64_t put[n] = {0}, nput[n] = {0}, route[n] = {0}, copies = 0, senders = 0;
			for (int ch = 0; ch < s->nstrands; ch++) {
				uint64_t len;
				const gs_step *st = gs_sched_strand(s, r, ch, &len);
				bool wrote = false;
				for (uint64_t i = 0; i < len; i++) {
					if (st[i].op == GS_OP_PUT) {
						put[st[i].send_peer] += st[i].bytes;
						nput[st[i].send_peer]++;
						wrote = true;
						g_assert_cmpuint(i + 1, <, len);
						g_assert_cmpint(st[i + 1].op, ==, GS_OP_SIGNAL);
						g_assert_cmpint(st[i + 1].send_peer, ==, st[i].send_peer);
						g_assert_cmpuint(st[i + 1].dst_off, ==, 0);
					} else if (st[i].op == GS_OP_SIGNAL && st[i].dst_off == 1) {
						route[st[i].send_peer]++;
					} else if (st[i].op == GS_OP_COPY && st[i].src_buf == GS_BUF_INPUT) {
						/* packing comes before every write */
						g_assert_false(wrote);
					} else if (st[i].op == GS_OP_COPY && ch == 1) {
						copies++;
					} else if (st[i].op == GS_OP_WAIT && st[i].src_off == 0) {
						senders = st[i].bytes;
					}
				}
			}
			uint64_t want_senders = 0, want_copies = 0;
			for (int q = 0; q < n; q++) {
				g_assert_cmpuint(put[q], ==, pair[r][q]);
				g_assert_cmpuint(nput[q], ==, pair[r][q] > 0);
				g_assert_cmpuint(route[q], ==, !c && q != r);
				want_senders += pair[q][r] > 0;
				want_copies += pair[q][r] / MSG;
			}
			g_assert_cmpuint(senders, ==, want_senders);
			g_assert_cmpuint(copies, ==, want_copies);
		}
		gs_moe_map_free(&m);
		gs_sched_free(s);
		gs_gen_free(g);
	}
}

/* The ranks at distance k go to channel (k - 1) mod C, in increasing k. */
static void test_layout(void)
{
	enum { n = 8, C = 3 };
	gs_params p = garden_params(GS_COLL_DISPATCH, GS_DT_F32, n, 16, C, 64, 4, 32, 3);
	gs_gen *g;
	char *err = NULL;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	gs_sched *s = gs_sched_materialize(g);
	g_assert_cmpint(s->nstrands, ==, 2 * C);
	for (int r = 0; r < n; r++)
		for (int ch = 0; ch < s->nstrands; ch++) {
			uint64_t len;
			const gs_step *st = gs_sched_strand(s, r, ch, &len);
			if (ch % 2 == 1 && ch != 1)
				g_assert_cmpuint(len, ==, 0);
			int last = 0;
			for (uint64_t i = 0; i < len; i++) {
				if (st[i].op != GS_OP_PUT)
					continue;
				int k = (st[i].send_peer - r + n) % n;
				g_assert_cmpint((k - 1) % C, ==, ch / 2);
				g_assert_cmpint(k, >, last);
				last = k;
			}
		}
	gs_sched_free(s);
	gs_gen_free(g);
}

static void test_refusals(void)
{
	gs_params p = garden_params(GS_COLL_DISPATCH, GS_DT_F32, 2048, 16, 2, 4, 2, 2048, 1);
	tu_expect_refused(&p, "at most 1024 ranks");
	p = garden_params(GS_COLL_DISPATCH, GS_DT_F32, 4, 16, 2, 4, 2, 8, 1);
	p.coll = GS_COLL_ALLREDUCE;
	tu_expect_refused(&p, "only defined for dispatch and combine");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/garden/sweep", test_sweep);
	g_test_add_func("/garden/traffic", test_traffic);
	g_test_add_func("/garden/layout", test_layout);
	g_test_add_func("/garden/refusals", test_refusals);
	return g_test_run();
}
