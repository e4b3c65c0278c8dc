/* SPDX-License-Identifier: MIT */
/*
 * test_pplx: MoE dispatch and combine in pplx-kernels' shape (gs_pplx.c).
 *
 * End to end (validator, reference executor, bounded buffers, streaming
 * windows) over 1..8 ranks, 1..16 tokens, top-1..12 of 1..4 experts per
 * rank (more than nine, so that a token warp sends two of a token's
 * messages), messages of one element to several slices, 1..12 blocks, all
 * data types, and in communicators; the routing: the same draw as put,
 * with each message's local expert; the traffic of every rank (put's bytes,
 * one signal per put, the counts and the sync flags); the strand layout
 * (which warp sends which message, the count warps' experts, the
 * receiver's waits); and the refusals.
 */
#include "tests/sched/sched_testutil.h"
#include "sim/sched/gs_impl.h"

#define CHUNK 256
#define SLICE 64

static gs_params pplx_params(gs_coll coll, gs_dtype dt, int n, uint64_t msg, int nch, uint32_t T, uint32_t K,
			     uint32_t E, uint64_t seed)
{
	return tu_moe_params(coll, GS_ALGO_PPLX, dt, n, msg, nch, CHUNK, SLICE, T, K, E, seed);
}

static void test_sweep(void)
{
	tu_moe_sweep(GS_ALGO_PPLX, CHUNK, SLICE, 53);
}

/* The same tokens go to the same experts as with put; lexp is each
 * message's expert among its destination's. */
static void test_routing(void)
{
	gs_params p = pplx_params(GS_COLL_DISPATCH, GS_DT_F32, 8, 64, 4, 64, 8, 64, 7);
	gs_params q = p;
	q.algo = GS_ALGO_PUT;
	gs_moe_map a, b;
	char *err = NULL;
	g_assert_cmpint(gs_moe_map_build(&p, &a, &err), ==, GC_OK);
	g_assert_cmpint(gs_moe_map_build(&q, &b, &err), ==, GC_OK);
	const uint64_t all = 8 * 64 * 8;
	g_assert_cmpmem(a.dst, all * sizeof(int32_t), b.dst, all * sizeof(int32_t));
	g_assert_cmpmem(a.slot, all * sizeof(uint32_t), b.slot, all * sizeof(uint32_t));
	g_assert_nonnull(a.lexp);
	g_assert_null(b.lexp);
	/* a token's K experts are distinct: on one rank, distinct local ones */
	for (uint64_t t = 0; t < 8 * 64; t++)
		for (uint64_t k = 0; k < 8; k++) {
			g_assert_cmpuint(a.lexp[t * 8 + k], <, 8);
			for (uint64_t k2 = 0; k2 < k; k2++)
				g_assert_false(a.dst[t * 8 + k] == a.dst[t * 8 + k2] &&
					       a.lexp[t * 8 + k] == a.lexp[t * 8 + k2]);
		}
	gs_moe_map_free(&a);
	gs_moe_map_free(&b);
}

/* Bytes each rank PUTs are put's (dispatch: its T K messages less those to
 * itself; combine: the messages it received less its own); every PUT is
 * followed by its SIGNAL on the same strand; dispatch adds one count per
 * expert of the other ranks, combine one sync flag to every other rank. */
static void test_traffic(void)
{
	const int n = 4, T = 9, K = 3, E = 8;
	for (int c = 0; c < 2; c++) {
		gs_coll coll = c ? GS_COLL_COMBINE : GS_COLL_DISPATCH;
		gs_params p = pplx_params(coll, GS_DT_F32, n, 40, 5, T, K, E, 5);
		gs_gen *g;
		char *err = NULL;
		g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
		gs_sched *s = gs_sched_materialize(g);
		gs_moe_map m;
		g_assert_cmpint(gs_moe_map_build(&p, &m, &err), ==, GC_OK);
		uint64_t out[4] = {0}, in[4] = {0}, want_out[4] = {0}, want_in[4] = {0};
		uint64_t puts[4] = {0}, sigs[4] = {0};
		for (int r = 0; r < n; r++)
			for (int ch = 0; ch < s->nstrands; ch++) {
				uint64_t len;
				const gs_step *st = gs_sched_strand(s, r, ch, &len);
				for (uint64_t i = 0; i < len; i++) {
					if (st[i].op == GS_OP_PUT) {
						out[r] += st[i].bytes;
						in[st[i].send_peer] += st[i].bytes;
						puts[r]++;
						/* its signal, to the same rank, right after */
						g_assert_cmpuint(i + 1, <, len);
						g_assert_cmpint(st[i + 1].op, ==, GS_OP_SIGNAL);
						g_assert_cmpint(st[i + 1].send_peer, ==, st[i].send_peer);
					}
					if (st[i].op == GS_OP_SIGNAL)
						sigs[r]++;
				}
			}
		for (uint64_t i = 0; i < (uint64_t)n * T * K; i++) {
			int src = (int)(i / (T * K)), dst = m.dst[i];
			if (src == dst)
				continue;
			int from = c ? dst : src, to = c ? src : dst;
			want_out[from] += 40;
			want_in[to] += 40;
		}
		for (int r = 0; r < n; r++) {
			g_assert_cmpuint(out[r], ==, want_out[r]);
			g_assert_cmpuint(in[r], ==, want_in[r]);
			/* counts: every expert not on r (E - E / n); sync: n - 1 */
			g_assert_cmpuint(sigs[r], ==, puts[r] + (c ? n - 1 : E - E / n));
		}
		gs_moe_map_free(&m);
		gs_sched_free(s);
		gs_gen_free(g);
	}
}

/* Which strand sends what: dispatch's token warp j of block b sends the
 * messages (t, k) with t = b mod G and k = j mod 9, its count warp the
 * experts b mod G, and only the last strand waits; combine's block b sends
 * the received tokens at positions b mod G of pplx's order (by local
 * expert, then source), strand G + i flags rank i, and only the last strand
 * waits, for its tokens' returns and every flag. */
static void test_layout(void)
{
	const int n = 4, T = 6, K = 11, E = 16, C = 4, L = E / n;
	char *err = NULL;
	/* dispatch: G = min(max(ceil(16 / 10), 66), 4) = 4 blocks of 9 token
	 * warps and a count warp */
	gs_params p = pplx_params(GS_COLL_DISPATCH, GS_DT_F32, n, 16, C, T, K, E, 9);
	gs_gen *g;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	g_assert_cmpint(g->nstrands, ==, 4 * 10 + 1);
	g_assert_cmpint(g->strands_per_channel, ==, 1);
	g_assert_cmpuint(g->nsignals, ==, 2 * E);
	gs_sched *s = gs_sched_materialize(g);
	gs_moe_map m;
	g_assert_cmpint(gs_moe_map_build(&g->p, &m, &err), ==, GC_OK);
	for (int r = 0; r < n; r++) {
		uint64_t seen = 0;
		for (int ch = 0; ch < s->nstrands; ch++) {
			uint64_t len;
			const gs_step *st = gs_sched_strand(s, r, ch, &len);
			int b = ch / 10, j = ch % 10;
			uint64_t want_counts = 0, counts = 0;
			for (uint64_t i = 0; i < len; i++) {
				if (ch == s->nstrands - 1) {
					g_assert_cmpint(st[i].op, ==, GS_OP_WAIT);
					continue;
				}
				g_assert_cmpint(st[i].op, !=, GS_OP_WAIT);
				if (j == 9) {
					g_assert_cmpint(st[i].op, ==, GS_OP_SIGNAL);
					g_assert_cmpuint(st[i].dst_off, <, (uint64_t)E);
					counts++;
					continue;
				}
				if (st[i].op == GS_OP_SIGNAL)
					continue;
				/* the message: token t = src slot, its k from the
				 * destination slot */
				uint64_t t = st[i].src_off / 16;
				g_assert_cmpuint(t % 4, ==, (uint64_t)b);
				int d = st[i].op == GS_OP_COPY ? r : st[i].send_peer;
				uint64_t slot = st[i].dst_off / 16, msg = m.src_of[m.off[d] + slot];
				g_assert_cmpuint(msg / (T * K), ==, (uint64_t)r);
				g_assert_cmpuint(msg / K % T, ==, t);
				g_assert_cmpuint(msg % K % 9, ==, (uint64_t)j);
				seen++;
			}
			if (j == 9 && ch != s->nstrands - 1) {
				for (int x = b; x < E; x += 4)
					want_counts += x / L != r;
				g_assert_cmpuint(counts, ==, want_counts);
			}
		}
		g_assert_cmpuint(seen, ==, (uint64_t)T * K);
	}
	gs_moe_map_free(&m);
	gs_sched_free(s);
	gs_gen_free(g);
	/* combine: G = min(4, L n T) = 4 blocks, n sync threads, a receiver */
	p.coll = GS_COLL_COMBINE;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	g_assert_cmpint(g->nstrands, ==, C + n + 1);
	g_assert_cmpuint(g->nsignals, ==, (uint64_t)(T + n));
	s = gs_sched_materialize(g);
	g_assert_cmpint(gs_moe_map_build(&g->p, &m, &err), ==, GC_OK);
	g_assert_nonnull(m.lexp);
	for (int r = 0; r < n; r++) {
		/* pplx's order of r's slots: by local expert, stable */
		uint64_t nr = m.recv[r], q = 0;
		uint64_t *order = g_new(uint64_t, nr + 1);
		for (int l = 0; l < L; l++)
			for (uint64_t j = 0; j < nr; j++)
				if (m.lexp[m.src_of[m.off[r] + j]] == (uint32_t)l)
					order[q++] = j;
		for (int b = 0; b < C; b++) {
			uint64_t len, pos = (uint64_t)b;
			const gs_step *st = gs_sched_strand(s, r, b, &len);
			for (uint64_t i = 0; i < len; i++) {
				if (st[i].op == GS_OP_SIGNAL)
					continue;
				g_assert_cmpuint(pos, <, nr);
				g_assert_cmpuint(st[i].src_off / 16, ==, order[pos]);
				pos += C;
			}
			g_assert_cmpuint(pos, >=, nr);
		}
		for (int i = 0; i < n; i++) {
			uint64_t len;
			const gs_step *st = gs_sched_strand(s, r, C + i, &len);
			g_assert_cmpuint(len, ==, (uint64_t)(i != r));
			if (len) {
				g_assert_cmpint(st[0].op, ==, GS_OP_SIGNAL);
				g_assert_cmpint(st[0].send_peer, ==, i);
				g_assert_cmpuint(st[0].dst_off, ==, (uint64_t)(T + r));
			}
		}
		uint64_t len;
		const gs_step *st = gs_sched_strand(s, r, C + n, &len);
		uint64_t toks = 0;
		for (int t = 0; t < T; t++) {
			uint64_t want = 0;
			for (int k = 0; k < K; k++)
				want += m.dst[(r * T + t) * K + k] != r;
			toks += want > 0;
		}
		g_assert_cmpuint(len, ==, toks + (uint64_t)(n - 1));
		for (uint64_t i = 0; i < len; i++)
			g_assert_cmpint(st[i].op, ==, GS_OP_WAIT);
		g_free(order);
	}
	gs_moe_map_free(&m);
	gs_sched_free(s);
	gs_gen_free(g);
}

/* pplx's grid: dispatch takes ceil(E / 10) blocks when the tokens are
 * fewer, never more than the SMs (channels); combine one per received
 * token slot up to the SMs. */
static void test_grid(void)
{
	char *err = NULL;
	gs_gen *g;
	/* 1 token, top-1 of 40 experts on 2 ranks: 4 blocks of count warps */
	gs_params p = pplx_params(GS_COLL_DISPATCH, GS_DT_F32, 2, 16, 12, 1, 1, 40, 1);
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	g_assert_cmpint(g->nstrands, ==, 4 * 2 + 1);
	gs_gen_free(g);
	p.nchannels = 3;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	g_assert_cmpint(g->nstrands, ==, 3 * 2 + 1);
	gs_gen_free(g);
	/* combine: L n T = 1 x 2 x 1 = 2 blocks of the 3 */
	p = pplx_params(GS_COLL_COMBINE, GS_DT_F32, 2, 16, 3, 1, 1, 2, 1);
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	g_assert_cmpint(g->nstrands, ==, 2 + 2 + 1);
	gs_gen_free(g);
}

static void test_refusals(void)
{
	gs_params p = pplx_params(GS_COLL_ALLREDUCE, GS_DT_F32, 4, 64, 1, 8, 2, 8, 1);
	tu_expect_refused(&p, "pplx algorithm is only defined for dispatch and combine");
	p = pplx_params(GS_COLL_COMBINE, GS_DT_F32, 4, 64, 1, 8, 2, 6, 1);
	tu_expect_refused(&p, "experts a multiple of the 4 ranks");
	p = pplx_params(GS_COLL_DISPATCH, GS_DT_F32, 4, 64, 1, 8, 9, 8, 1);
	tu_expect_refused(&p, "topk <= experts");
	p = pplx_params(GS_COLL_DISPATCH, GS_DT_F32, 1024, 64, 1, 1u << 16, 8, 1024, 1);
	tu_expect_refused(&p, "above the limit");
	/* every rank flags every other from its own thread in combine: 20000
	 * ranks of 20002 strands */
	p = pplx_params(GS_COLL_COMBINE, GS_DT_F32, 20000, 64, 1, 1, 1, 20000, 1);
	tu_expect_refused(&p, "strands (warps and threads that post) are too many");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/pplx/sweep", test_sweep);
	g_test_add_func("/pplx/routing", test_routing);
	g_test_add_func("/pplx/traffic", test_traffic);
	g_test_add_func("/pplx/layout", test_layout);
	g_test_add_func("/pplx/grid", test_grid);
	g_test_add_func("/pplx/refusals", test_refusals);
	return g_test_run();
}
