/* SPDX-License-Identifier: MIT */
/*
 * test_moe: MoE dispatch and combine (gs_moe.c).
 *
 * End to end (validator, reference executor, bounded buffers, streaming
 * windows) over 1..8 ranks, 1..16 tokens, top-1..4 of 1..4 experts per
 * rank, messages of one element to several slices, 1..3 channels and all
 * data types; the routing: K distinct experts per token, every message
 * counted once at its destination, slots dense, the same draw for the same
 * seed and another for another seed, and about T K / n messages per rank
 * pair for many tokens; the traffic of every rank; and the refusals. The
 * same for forward (gs_moefwd.c), and node-limited routing.
 */
#include "tests/sched/sched_testutil.h"
#include "sim/sched/gs_impl.h"

#define CHUNK 256
#define SLICE 64

static gs_params moe_params(gs_coll coll, gs_dtype dt, int n, uint64_t msg, int nch, uint32_t T, uint32_t K,
			     uint32_t E, uint64_t seed)
{
	return tu_moe_params(coll, GS_ALGO_PUT, dt, n, msg, nch, CHUNK, SLICE, T, K, E, seed);
}

static void test_sweep(void)
{
	static const gs_dtype dts[] = {GS_DT_F32, GS_DT_I32, GS_DT_U8, GS_DT_F64};
	static const int ns[] = {1, 2, 3, 4, 8};
	GRand *rnd = g_rand_new_with_seed(31);
	int k = 0;

	for (size_t a = 0; a < G_N_ELEMENTS(ns); a++) {
		for (int c = 0; c < 2; c++) {
			for (int i = 0; i < 4; i++, k++) {
				int n = ns[a];
				gs_dtype dt = dts[k % 4];
				uint64_t el = gs_dtype_size(dt);
				uint64_t msgs[4] = {el, 15 * el, SLICE, 3 * SLICE + el};
				uint32_t per = 1 + (uint32_t)(k % 4), E = per * (uint32_t)n;
				uint32_t K = 1 + (uint32_t)(k % (int)MIN(E, 4u));
				uint32_t T = (uint32_t[]){1, 3, 16, 7}[i];
				gs_params p = moe_params(c ? GS_COLL_COMBINE : GS_COLL_DISPATCH, dt, n,
							 msgs[i], 1 + k % 3, T, K, E, (uint64_t)k);
				if (!tu_check_case(&p, rnd))
					goto out;
			}
		}
	}
out:
	g_rand_free(rnd);
}

static void test_routing(void)
{
	gs_params p = moe_params(GS_COLL_DISPATCH, GS_DT_F32, 8, 64, 1, 512, 8, 64, 7);
	gs_moe_map a, b, c;
	char *err = NULL;
	g_assert_cmpint(gs_moe_map_build(&p, &a, &err), ==, GC_OK);
	g_assert_cmpint(gs_moe_map_build(&p, &b, &err), ==, GC_OK);
	p.moe_seed = 8;
	g_assert_cmpint(gs_moe_map_build(&p, &c, &err), ==, GC_OK);
	const uint64_t n = 8, T = 512, K = 8, all = n * T * K;
	g_assert_cmpmem(a.dst, all * sizeof(int32_t), b.dst, all * sizeof(int32_t));
	g_assert_true(memcmp(a.dst, c.dst, all * sizeof(int32_t)) != 0);
	uint64_t *pair = g_new0(uint64_t, n * n), total = 0;
	uint8_t *seen = g_new0(uint8_t, all);
	for (uint64_t i = 0; i < all; i++) {
		g_assert_cmpint(a.dst[i], >=, 0);
		g_assert_cmpint(a.dst[i], <, (int)n);
		pair[(i / (T * K)) * n + (uint64_t)a.dst[i]]++;
		/* slots are dense: slot j of rank d holds exactly one message */
		g_assert_cmpuint(a.slot[i], <, a.recv[a.dst[i]]);
		uint64_t back = a.src_of[a.off[a.dst[i]] + a.slot[i]];
		g_assert_cmpuint(back, ==, i);
		g_assert_false(seen[back]);
		seen[back] = 1;
	}
	for (uint64_t d = 0; d < n; d++)
		total += a.recv[d];
	g_assert_cmpuint(total, ==, all);
	/* uniform routing: each of the 64 rank pairs gets T K / n = 512
	 * messages on average; allow 25 % (the standard deviation is ~20) */
	for (uint64_t q = 0; q < n * n; q++) {
		g_assert_cmpuint(pair[q], >, 384);
		g_assert_cmpuint(pair[q], <, 640);
	}
	g_free(pair);
	g_free(seen);
	gs_moe_map_free(&a);
	gs_moe_map_free(&b);
	gs_moe_map_free(&c);
	/* K distinct experts per token, although K = E leaves no choice */
	p = moe_params(GS_COLL_DISPATCH, GS_DT_F32, 2, 64, 1, 5, 6, 6, 3);
	g_assert_cmpint(gs_moe_map_build(&p, &a, &err), ==, GC_OK);
	for (uint64_t r = 0; r < 2; r++)
		for (uint64_t t = 0; t < 5; t++) {
			int on[2] = {0, 0};
			for (uint64_t k = 0; k < 6; k++)
				on[a.dst[(r * 5 + t) * 6 + k]]++;
			g_assert_cmpint(on[0], ==, 3);
			g_assert_cmpint(on[1], ==, 3);
		}
	gs_moe_map_free(&a);
}

/* Bytes each rank PUTs: dispatch, its T K messages less those to itself;
 * combine, the messages it received less its own; and as much arrives. */
static void test_traffic(void)
{
	for (int c = 0; c < 2; c++) {
		gs_coll coll = c ? GS_COLL_COMBINE : GS_COLL_DISPATCH;
		gs_params p = moe_params(coll, GS_DT_F32, 4, 40, 2, 9, 3, 8, 5);
		gs_gen *g;
		char *err = NULL;
		g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
		gs_sched *s = gs_sched_materialize(g);
		gs_moe_map m;
		g_assert_cmpint(gs_moe_map_build(&p, &m, &err), ==, GC_OK);
		uint64_t out[4] = {0}, in[4] = {0}, want_out[4] = {0}, want_in[4] = {0};
		for (int r = 0; r < 4; r++)
			for (int ch = 0; ch < s->nstrands; ch++) {
				uint64_t len;
				const gs_step *st = gs_sched_strand(s, r, ch, &len);
				for (uint64_t i = 0; i < len; i++)
					if (st[i].op == GS_OP_PUT) {
						out[r] += st[i].bytes;
						in[st[i].send_peer] += st[i].bytes;
					}
			}
		for (uint64_t i = 0; i < 4 * 9 * 3; i++) {
			int src = (int)(i / 27), dst = m.dst[i];
			if (src == dst)
				continue;
			int from = c ? dst : src, to = c ? src : dst;
			want_out[from] += 40;
			want_in[to] += 40;
		}
		for (int r = 0; r < 4; r++) {
			g_assert_cmpuint(out[r], ==, want_out[r]);
			g_assert_cmpuint(in[r], ==, want_in[r]);
		}
		gs_moe_map_free(&m);
		gs_sched_free(s);
		gs_gen_free(g);
	}
}


/* forward (gs_moefwd.c) end to end: 1..8 ranks on nodes of 1..8, node
 * limits, 1..3 channels, chunks of 1..3 tokens, all data types. */
static void test_forward_sweep(void)
{
	static const gs_dtype dts[] = {GS_DT_F32, GS_DT_I32, GS_DT_U8, GS_DT_F64};
	static const int ns[] = {1, 2, 4, 6, 8};
	GRand *rnd = g_rand_new_with_seed(47);
	int k = 0;
	for (size_t a = 0; a < G_N_ELEMENTS(ns); a++)
		for (int c = 0; c < 2; c++)
			for (int i = 0; i < 5; i++, k++) {
				int n = ns[a], rpn = tu_rpn(n, k);
				int N = rpn ? n / rpn : 1;
				gs_dtype dt = dts[k % 4];
				uint64_t el = gs_dtype_size(dt);
				uint32_t per = 1 + (uint32_t)(k % 3), E = per * (uint32_t)n;
				uint32_t K = 1 + (uint32_t)(k % (int)MIN(E, 5u));
				uint32_t T = (uint32_t[]){1, 3, 16, 7, 12}[i];
				gs_params p = moe_params(c ? GS_COLL_COMBINE : GS_COLL_DISPATCH, dt, n,
							 (uint64_t[]){el, 5 * el, 3 * SLICE}[k % 3],
							 1 + k % 3, T, K, E, (uint64_t)k);
				p.algo = GS_ALGO_FORWARD;
				p.ranks_per_node = rpn;
				p.moe_chunk = 1 + (uint32_t)(k % 3);
				/* a node limit where it leaves the token its experts */
				uint32_t M = 1 + (uint32_t)(k % 2);
				if ((int)M < N && K <= M * (E / (uint32_t)N))
					p.moe_max_nodes = M;
				if (!tu_check_case(&p, rnd))
					goto out;
			}
out:
	g_rand_free(rnd);
}

/* Node-limited routing: a token reaches at most M nodes, each of them, for
 * K >= M, with at least one expert; without a limit (or M >= the nodes)
 * the draw is the plain one. */
static void test_node_limit(void)
{
	const int n = 16, P = 2, N = 8, T = 300, K = 8;
	gs_params p = moe_params(GS_COLL_DISPATCH, GS_DT_F32, n, 64, 1, T, K, 64, 3);
	p.ranks_per_node = P;
	gs_moe_map plain, lim, same;
	char *err = NULL;
	g_assert_cmpint(gs_moe_map_build(&p, &plain, &err), ==, GC_OK);
	p.moe_max_nodes = N;
	g_assert_cmpint(gs_moe_map_build(&p, &same, &err), ==, GC_OK);
	g_assert_cmpmem(plain.dst, (size_t)n * T * K * 4, same.dst, (size_t)n * T * K * 4);
	p.moe_max_nodes = 3;
	g_assert_cmpint(gs_moe_map_build(&p, &lim, &err), ==, GC_OK);
	uint64_t reach_plain = 0;
	for (int i = 0; i < n * T; i++) {
		int seen[8] = {0}, np = 0, seenp[8] = {0}, npp = 0;
		for (int k = 0; k < K; k++) {
			int b = lim.dst[i * K + k] / P, bp = plain.dst[i * K + k] / P;
			np += !seen[b]++;
			npp += !seenp[bp]++;
		}
		g_assert_cmpint(np, ==, 3);
		reach_plain += (uint64_t)npp;
	}
	/* unlimited, 8 of 64 experts reach about 8 (1 - (7/8)^8) = 5.2 nodes */
	g_assert_cmpfloat((double)reach_plain / (n * T), >, 4.8);
	g_assert_cmpfloat((double)reach_plain / (n * T), <, 5.6);
	gs_moe_map_free(&plain);
	gs_moe_map_free(&same);
	gs_moe_map_free(&lim);
	/* a limit that leaves fewer experts than the top-k is refused */
	p.moe_max_nodes = 1;
	p.moe_topk = 9;
	tu_expect_refused(&p, "reaches 8 experts, fewer than its top-9");
}

/* forward's traffic: a token crosses the network once per other node it
 * goes to (dispatch: PUTs between nodes; combine: the forwarders' sums
 * sent home) and NVLink once per rank it goes to but the one where it
 * enters the node (dispatch: the sender's or the forwarder's PUTs;
 * combine: the partials sent to the forwarder). */
static void test_forward_traffic(void)
{
	const int n = 8, P = 4, T = 40, K = 4, B = 64;
	for (int c = 0; c < 2; c++) {
		gs_params p = moe_params(c ? GS_COLL_COMBINE : GS_COLL_DISPATCH, GS_DT_F32, n, B, 3, T,
					 K, 32, 11);
		p.algo = GS_ALGO_FORWARD;
		p.ranks_per_node = P;
		gs_gen *g;
		char *err = NULL;
		g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
		gs_sched *s = gs_sched_materialize(g);
		gs_moe_map m;
		g_assert_cmpint(gs_moe_map_build(&g->p, &m, &err), ==, GC_OK);
		uint64_t net = 0, want_net = 0, local = 0, want_local = 0;
		for (int r = 0; r < n; r++)
			for (int ch = 0; ch < s->nstrands; ch++) {
				uint64_t len;
				const gs_step *st = gs_sched_strand(s, r, ch, &len);
				for (uint64_t i = 0; i < len; i++) {
					if (st[i].op == GS_OP_SIGNAL || st[i].op == GS_OP_WAIT ||
					    !gs_op_sends(st[i].op))
						continue;
					if (st[i].send_peer / P != r / P)
						net += st[i].bytes;
					else
						local += st[i].bytes;
				}
			}
		for (int i = 0; i < n * T; i++) {
			int s0 = i / T, nodes[2] = {0, 0}, ranks = 0, entry = 0;
			for (uint64_t j = m.tset_off[i]; j < m.tset_off[i + 1]; j++) {
				nodes[m.tset[j] / P] = 1;
				ranks++;
				/* the rank where it enters a node: the sender, or
				 * the one of the sender's local index */
				entry += m.tset[j] % P == s0 % P;
			}
			int other = nodes[1 - s0 / P];
			want_net += (uint64_t)other * B;
			/* every rank but where the token enters its node is
			 * reached over NVLink, from that rank, and (combine) sends
			 * its partial back that way */
			want_local += (uint64_t)(ranks - entry) * B;
		}
		g_assert_cmpuint(net, ==, want_net);
		g_assert_cmpuint(local, ==, want_local);
		gs_moe_map_free(&m);
		gs_sched_free(s);
		gs_gen_free(g);
	}
}

static void test_refusals(void)
{
	gs_params p = moe_params(GS_COLL_DISPATCH, GS_DT_F32, 4, 64, 1, 8, 2, 8, 1);
	p.algo = GS_ALGO_PAIRWISE;
	tu_expect_refused(&p, "dispatch runs as put");
	p.coll = GS_COLL_ALLREDUCE;
	p.algo = GS_ALGO_FORWARD;
	tu_expect_refused(&p, "forward algorithm is only defined for dispatch and combine");
	p = moe_params(GS_COLL_COMBINE, GS_DT_F32, 4, 64, 1, 8, 2, 6, 1);
	tu_expect_refused(&p, "experts a multiple of the 4 ranks");
	p = moe_params(GS_COLL_DISPATCH, GS_DT_F32, 4, 64, 1, 8, 9, 8, 1);
	tu_expect_refused(&p, "topk <= experts");
	p = moe_params(GS_COLL_DISPATCH, GS_DT_F32, 4, 64, 1, 0, 1, 8, 1);
	tu_expect_refused(&p, "tokens >= 1");
	p = moe_params(GS_COLL_DISPATCH, GS_DT_F32, 1024, 64, 1, 1u << 16, 8, 1024, 1);
	tu_expect_refused(&p, "above the limit");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/moe/sweep", test_sweep);
	g_test_add_func("/moe/routing", test_routing);
	g_test_add_func("/moe/traffic", test_traffic);
	g_test_add_func("/moe/forward-sweep", test_forward_sweep);
	g_test_add_func("/moe/node-limit", test_node_limit);
	g_test_add_func("/moe/forward-traffic", test_forward_traffic);
	g_test_add_func("/moe/refusals", test_refusals);
	return g_test_run();
}
