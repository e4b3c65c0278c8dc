/* SPDX-License-Identifier: MIT */
/*
 * test_nvls: allreduce reduced and multicast in the NVSwitch (gs_nvls.c).
 *
 * Sweeps 2..20 GPUs over empty, one-element, odd and multi-slice sizes,
 * channel counts 1, 2, 3 and all data types end to end (validator,
 * reference executor, one-message and one-chunk buffers, streaming
 * windows); counts the bytes every GPU sends and receives, which must be
 * NVLS's S + S/n out and S in against the ring's 2(n-1)/n S each way;
 * checks that the helpers' strands are the ones the layout names; and
 * that nvls is refused for other collectives, one rank, or several nodes.
 *
 * nvlstree (nvls in each node, a double binary tree between nodes): the
 * same end-to-end sweep over 2..6 nodes of 2..5 GPUs; per GPU port the
 * traffic of nvls on one node; per owner the network traffic of its
 * place in the two node trees (one slice each way per tree edge); the
 * layout of a 2-node case step by step; and its refusals.
 */
#include "tests/sched/sched_testutil.h"

#define CHUNK 256
#define SLICE 64

static const int nchs[] = { 1, 2, 3 };
static const gs_dtype dts[] = { GS_DT_F32, GS_DT_I32, GS_DT_U8, GS_DT_F64 };

static void test_sweep(void)
{
	GRand *rnd = g_rand_new_with_seed(23);
	int k = 0;

	for (int n = 2; n <= 20; n++) {
		for (int i = 0; i < 4; i++, k++) {
			gs_dtype dt = dts[k % 4];
			uint64_t el = gs_dtype_size(dt), se = SLICE / el;
			uint64_t cnt[4] = { 0, 1, 2 * (uint64_t)n + 1, 5 * se * (uint64_t)n + 3 };
			gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_NVLS, dt, n, cnt[i] * el,
						nchs[(k / 4 + i) % 3], CHUNK, SLICE, 0);

			if (!tu_check_case(&p, rnd))
				goto out;
		}
	}
out:
	g_rand_free(rnd);
}

/* Bytes each GPU sends and receives: S (1 + 1/n) out, S in, for S a
 * multiple of n slices so every block is whole. */
static void test_port_traffic(void)
{
	for (int n = 2; n <= 9; n++) {
		uint64_t S = (uint64_t)n * 4 * SLICE;
		gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_NVLS, GS_DT_F32, n, S, 2, CHUNK,
					SLICE, 0);
		gs_gen *g;
		char *err = NULL;
		g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
		gs_sched *s = gs_sched_materialize(g);
		g_assert_cmpint(s->nhelpers, ==, 2);
		g_assert_cmpint(s->nranks, ==, n + 2);
		uint64_t *out = g_new0(uint64_t, (size_t)s->nranks), *in = g_new0(uint64_t, (size_t)s->nranks);
		for (int r = 0; r < s->nranks; r++)
			for (int c = 0; c < s->nstrands; c++) {
				uint64_t len;
				const gs_step *st = gs_sched_strand(s, r, c, &len);
				for (uint64_t i = 0; i < len; i++) {
					if (gs_op_sends((gs_op)st[i].op)) {
						out[r] += st[i].bytes;
						in[st[i].send_peer] += st[i].bytes;
					}
				}
			}
		for (int r = 0; r < n; r++) {
			g_assert_cmpuint(out[r], ==, S + S / (uint64_t)n);
			g_assert_cmpuint(in[r], ==, S);
		}
		/* the reduction engine takes every GPU's S and returns S in all;
		 * the multicast engine takes S and sends (n-1) S */
		g_assert_cmpuint(in[n], ==, S * (uint64_t)n);
		g_assert_cmpuint(out[n], ==, S);
		g_assert_cmpuint(in[n + 1], ==, S);
		g_assert_cmpuint(out[n + 1], ==, S * (uint64_t)(n - 1));
		g_free(out);
		g_free(in);
		gs_sched_free(s);
		gs_gen_free(g);
	}
}

/* 3 GPUs, 1 channel, 12 floats in slices of 4 floats: block k = floats
 * 4k..4k+3, one slice. R's strand 0 (block 0): RECV from 1, RECV_REDUCE_COPY
 * from 2, RECV_REDUCE_SEND from the owner 0 back to it (the GPUs from the
 * owner on, as M sends); M's strand 1: RECV from 0,
 * SEND to 1, SEND to 2; GPU 0's strand 1 RECV_COPY_SENDs from R to M, GPU
 * 1's strand 1 RECVs from M; R's strand 1 and M's strand 0 are empty. */
static void test_layout(void)
{
	gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_NVLS, GS_DT_F32, 3, 48, 1, 16, 16, 0);
	gs_gen *g;
	char *err = NULL;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	gs_sched *s = gs_sched_materialize(g);
	g_assert_cmpint(s->nstrands, ==, 6);
	uint64_t len;
	const gs_step *r0 = gs_sched_strand(s, 3, 0, &len);
	g_assert_cmpuint(len, ==, 3);
	g_assert_cmpint(r0[0].op, ==, GS_OP_RECV);
	g_assert_cmpint(r0[0].recv_peer, ==, 1);
	g_assert_cmpint(r0[0].dst_buf, ==, GS_BUF_SCRATCH);
	g_assert_cmpint(r0[1].op, ==, GS_OP_RECV_REDUCE_COPY);
	g_assert_cmpint(r0[1].recv_peer, ==, 2);
	g_assert_cmpint(r0[2].op, ==, GS_OP_RECV_REDUCE_SEND);
	g_assert_cmpint(r0[2].recv_peer, ==, 0);
	g_assert_cmpint(r0[2].send_peer, ==, 0);
	gs_sched_strand(s, 3, 1, &len);
	g_assert_cmpuint(len, ==, 0);
	const gs_step *m1 = gs_sched_strand(s, 4, 1, &len);
	g_assert_cmpuint(len, ==, 3);
	g_assert_cmpint(m1[0].op, ==, GS_OP_RECV);
	g_assert_cmpint(m1[0].recv_peer, ==, 0);
	g_assert_cmpint(m1[1].send_peer, ==, 1);
	g_assert_cmpint(m1[2].send_peer, ==, 2);
	gs_sched_strand(s, 4, 0, &len);
	g_assert_cmpuint(len, ==, 0);
	const gs_step *o = gs_sched_strand(s, 0, 1, &len);
	g_assert_cmpuint(len, ==, 1);
	g_assert_cmpint(o[0].op, ==, GS_OP_RECV_COPY_SEND);
	g_assert_cmpint(o[0].recv_peer, ==, 3);
	g_assert_cmpint(o[0].send_peer, ==, 4);
	g_assert_cmpuint(o[0].dst_off, ==, 0);
	const gs_step *x = gs_sched_strand(s, 1, 1, &len);
	g_assert_cmpint(x[0].op, ==, GS_OP_RECV);
	g_assert_cmpint(x[0].recv_peer, ==, 4);
	const gs_step *u = gs_sched_strand(s, 2, 2, &len); /* GPU 2, block 1 up */
	g_assert_cmpint(u[0].op, ==, GS_OP_SEND);
	g_assert_cmpint(u[0].send_peer, ==, 3);
	g_assert_cmpuint(u[0].src_off, ==, 16);
	gs_sched_free(s);
	gs_gen_free(g);
}

static void expect_refused_algo(gs_algo algo, gs_coll coll, int n, int rpn, const char *what)
{
	gs_params p = tu_params(coll, algo, GS_DT_F32, n, 1024, 1, CHUNK, SLICE, rpn);
	tu_expect_refused(&p, what);
}

static void expect_refused(gs_coll coll, int n, int rpn, const char *what)
{
	expect_refused_algo(GS_ALGO_NVLS, coll, n, rpn, what);
}

static void test_refusals(void)
{
	expect_refused(GS_COLL_SENDRECV, 4, 0, "only defined for allreduce, allgather");
	expect_refused(GS_COLL_BROADCAST, 4, 0, "only defined for allreduce, allgather");
	expect_refused(GS_COLL_ALLREDUCE, 1, 0, "at least 2 ranks");
	expect_refused(GS_COLL_ALLGATHER, 1, 0, "at least 2 ranks");
	expect_refused(GS_COLL_ALLREDUCE, 8, 1, "at least 2 ranks per node");
	expect_refused(GS_COLL_ALLGATHER, 8, 1, "at least 2 ranks per node");
}

/* Allgather and reduce-scatter through the switch, end to end: 2..20
 * GPUs, per-rank blocks that are empty, one element, uneven over the
 * channels and several slices, 1-3 channels, every data type. */
static void test_agrs_sweep(void)
{
	static const gs_coll colls[] = {GS_COLL_ALLGATHER, GS_COLL_REDUCESCATTER};
	for (size_t c = 0; c < G_N_ELEMENTS(colls); c++) {
		GRand *rnd = g_rand_new_with_seed(41 + (guint32)c);
		int k = 0;
		for (int n = 2; n <= 20; n++) {
			for (int i = 0; i < 4; i++, k++) {
				gs_dtype dt = dts[k % 4];
				uint64_t el = gs_dtype_size(dt), se = SLICE / el;
				uint64_t cnt[4] = {0, 1, 5, 7 * se + 3};
				gs_params p = tu_params(colls[c], GS_ALGO_NVLS, dt, n,
							cnt[i] * el * (uint64_t)n, nchs[(k / 4 + i) % 3],
							CHUNK, SLICE, 0);
				if (!tu_check_case(&p, rnd)) {
					g_rand_free(rnd);
					return;
				}
			}
		}
		g_rand_free(rnd);
	}
}

/* Bytes through each GPU's port, S the gathered size: the allgather sends
 * S/n and takes S in (its own block back too), the reduce-scatter sends S
 * and takes S/n; the idle engine has no steps. */
static void test_agrs_traffic(void)
{
	for (int ag = 0; ag < 2; ag++)
		for (int n = 2; n <= 9; n++) {
			uint64_t S = (uint64_t)n * (uint64_t)n * 3 * SLICE;
			gs_params p = tu_params(ag ? GS_COLL_ALLGATHER : GS_COLL_REDUCESCATTER,
						GS_ALGO_NVLS, GS_DT_F32, n, S, 2, CHUNK, SLICE, 0);
			gs_gen *g;
			char *err = NULL;
			g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
			gs_sched *s = gs_sched_materialize(g);
			g_assert_cmpint(s->nhelpers, ==, 2);
			uint64_t *out = g_new0(uint64_t, (size_t)s->nranks);
			uint64_t *in = g_new0(uint64_t, (size_t)s->nranks);
			uint64_t steps[2] = {0, 0};
			for (int r = 0; r < s->nranks; r++)
				for (int c = 0; c < s->nstrands; c++) {
					uint64_t len;
					const gs_step *st = gs_sched_strand(s, r, c, &len);
					if (r >= n)
						steps[r - n] += len;
					for (uint64_t i = 0; i < len; i++)
						if (gs_op_sends((gs_op)st[i].op)) {
							out[r] += st[i].bytes;
							in[st[i].send_peer] += st[i].bytes;
						}
				}
			uint64_t blk = S / (uint64_t)n;
			for (int r = 0; r < n; r++) {
				g_assert_cmpuint(out[r], ==, ag ? blk : S);
				g_assert_cmpuint(in[r], ==, ag ? S : blk);
			}
			/* allgather: M (n + 1) takes every block once and sends
			 * it n times, R is idle; reduce-scatter the other way */
			g_assert_cmpuint(steps[ag ? 0 : 1], ==, 0);
			g_assert_cmpuint(in[ag ? n + 1 : n], ==, S * (ag ? 1 : (uint64_t)n));
			g_assert_cmpuint(out[ag ? n + 1 : n], ==, S * (ag ? (uint64_t)n : 1));
			g_free(out);
			g_free(in);
			gs_sched_free(s);
			gs_gen_free(g);
		}
}

/* 3 GPUs, 1 channel, a block of 4 floats per rank (one slice): the
 * allgather's block 1 is GPU 1's store to M, M's RECV from 1 and SENDs to
 * 2, 0 and 1, and every GPU's RECV into floats 4..7; the reduce-scatter's
 * block 2 is R's RECV from 0, RECV_REDUCE_COPY from 1 and
 * RECV_REDUCE_SEND from 2 to the owner 2, which RECVs into its OUTPUT. */
static void test_agrs_layout(void)
{
	gs_params p = tu_params(GS_COLL_ALLGATHER, GS_ALGO_NVLS, GS_DT_F32, 3, 48, 1, 16, 16, 0);
	gs_gen *g;
	char *err = NULL;
	uint64_t len;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	gs_sched *s = gs_sched_materialize(g);
	g_assert_cmpint(s->nstrands, ==, 6);
	const gs_step *up = gs_sched_strand(s, 1, 2, &len);
	g_assert_cmpuint(len, ==, 1);
	g_assert_cmpint(up[0].op, ==, GS_OP_SEND);
	g_assert_cmpint(up[0].send_peer, ==, 4);
	g_assert_cmpint(up[0].src_buf, ==, GS_BUF_INPUT);
	gs_sched_strand(s, 0, 2, &len);
	g_assert_cmpuint(len, ==, 0); /* GPU 0 does not own block 1 */
	const gs_step *m = gs_sched_strand(s, 4, 2, &len);
	g_assert_cmpuint(len, ==, 4);
	g_assert_cmpint(m[0].op, ==, GS_OP_RECV);
	g_assert_cmpint(m[0].recv_peer, ==, 1);
	const int to[3] = {2, 0, 1};
	for (int q = 0; q < 3; q++) {
		g_assert_cmpint(m[q + 1].op, ==, GS_OP_SEND);
		g_assert_cmpint(m[q + 1].send_peer, ==, to[q]);
	}
	for (int r = 0; r < 3; r++) {
		const gs_step *d = gs_sched_strand(s, r, 3, &len);
		g_assert_cmpuint(len, ==, 1);
		g_assert_cmpint(d[0].op, ==, GS_OP_RECV);
		g_assert_cmpint(d[0].recv_peer, ==, 4);
		g_assert_cmpuint(d[0].dst_off, ==, 16);
	}
	gs_sched_strand(s, 3, 2, &len);
	g_assert_cmpuint(len, ==, 0); /* R idle */
	gs_sched_free(s);
	gs_gen_free(g);

	p.coll = GS_COLL_REDUCESCATTER;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	s = gs_sched_materialize(g);
	const gs_step *r2 = gs_sched_strand(s, 3, 4, &len);
	g_assert_cmpuint(len, ==, 3);
	g_assert_cmpint(r2[0].op, ==, GS_OP_RECV);
	g_assert_cmpint(r2[0].recv_peer, ==, 0);
	g_assert_cmpint(r2[1].op, ==, GS_OP_RECV_REDUCE_COPY);
	g_assert_cmpint(r2[1].recv_peer, ==, 1);
	g_assert_cmpint(r2[2].op, ==, GS_OP_RECV_REDUCE_SEND);
	g_assert_cmpint(r2[2].recv_peer, ==, 2);
	g_assert_cmpint(r2[2].send_peer, ==, 2);
	for (int r = 0; r < 3; r++) {
		const gs_step *u = gs_sched_strand(s, r, 4, &len);
		g_assert_cmpuint(len, ==, 1);
		g_assert_cmpint(u[0].op, ==, GS_OP_SEND);
		g_assert_cmpuint(u[0].src_off, ==, 32);
		gs_sched_strand(s, r, 5, &len);
		g_assert_cmpuint(len, ==, r == 2 ? 1 : 0);
	}
	gs_sched_free(s);
	gs_gen_free(g);
}

/* A helper whose INPUT leaks into a sum is named by the validator. */
static void test_helper_input_rejected(void)
{
	gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_NVLS, GS_DT_F32, 2, 16, 1, 16, 16, 0);
	gs_gen *g;
	char *err = NULL;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	gs_sched *s = gs_sched_materialize(g);
	/* R's first step of block 0: reduce R's own INPUT in instead of GPU
	 * 0's message (RECV_REDUCE_COPY from 0 with L = R's INPUT) */
	uint64_t len;
	gs_step *st = (gs_step *)gs_sched_strand(s, 2, 0, &len);
	g_assert_cmpint(st[0].op, ==, GS_OP_RECV);
	st[0].op = GS_OP_RECV_REDUCE_COPY;
	st[0].src_buf = GS_BUF_INPUT;
	st[0].src_off = 0;
	g_assert_cmpint(gs_sched_validate(s, &err), ==, GC_ERR_INPUT);
	if (!strstr(err, "helper rank 2"))
		g_test_fail_printf("'%s' does not name the helper", err);
	g_free(err);
	gs_sched_free(s);
	gs_gen_free(g);
}

/* End to end over 2..6 nodes of 2..5 GPUs, all data types and sizes, of
 * an algorithm across NVSwitch nodes (nvlstree, or nvls with SHARP). */
static void multinode_sweep(gs_algo algo, guint32 seed)
{
	GRand *rnd = g_rand_new_with_seed(seed);
	int k = 0;

	for (int m = 2; m <= 6; m++) {
		for (int n = 2; n <= 5; n++) {
			for (int i = 0; i < 4; i++, k++) {
				gs_dtype dt = dts[k % 4];
				uint64_t el = gs_dtype_size(dt), se = SLICE / el, N = (uint64_t)(m * n);
				uint64_t cnt[4] = { 0, 1, 2 * N + 1, 5 * se * (uint64_t)n + 3 };
				gs_params p = tu_params(GS_COLL_ALLREDUCE, algo, dt, m * n, cnt[i] * el,
							nchs[(k / 4 + i) % 3], CHUNK, SLICE, n);

				if (!tu_check_case(&p, rnd))
					goto out;
			}
		}
	}
out:
	g_rand_free(rnd);
}

static void test_tree_sweep(void) { multinode_sweep(GS_ALGO_NVLS_TREE, 29); }

/* Bytes every rank sends and receives, split into network and NVLink by
 * a predicate on (sender, receiver). */
typedef struct traffic {
	uint64_t *nvl_out, *nvl_in, *net_out, *net_in;
} traffic;

static traffic traffic_count(const gs_sched *s, bool (*is_net)(int src, int dst, const int *ctx),
			     const int *ctx)
{
	traffic t = {g_new0(uint64_t, (size_t)s->nranks), g_new0(uint64_t, (size_t)s->nranks),
		     g_new0(uint64_t, (size_t)s->nranks), g_new0(uint64_t, (size_t)s->nranks)};
	for (int r = 0; r < s->nranks; r++)
		for (int c = 0; c < s->nstrands; c++) {
			uint64_t len;
			const gs_step *st = gs_sched_strand(s, r, c, &len);
			for (uint64_t i = 0; i < len; i++) {
				int d = st[i].send_peer;
				if (!gs_op_sends((gs_op)st[i].op))
					continue;
				bool net = is_net(r, d, ctx);
				(net ? t.net_out : t.nvl_out)[r] += st[i].bytes;
				(net ? t.net_in : t.nvl_in)[d] += st[i].bytes;
			}
		}
	return t;
}

static void traffic_free(traffic *t)
{
	g_free(t->nvl_out);
	g_free(t->nvl_in);
	g_free(t->net_out);
	g_free(t->net_in);
}

/* The materialized allreduce of algorithm algo over m nodes of n GPUs, S
 * bytes in C channels, and its generator (*g, freed by the caller). */
static gs_sched *multinode_sched(gs_algo algo, int m, int n, int C, uint64_t S, gs_gen **g)
{
	gs_params p = tu_params(GS_COLL_ALLREDUCE, algo, GS_DT_F32, m * n, S, C, CHUNK, SLICE, n);
	char *err = NULL;
	g_assert_cmpint(gs_gen_create(&p, g, &err), ==, GC_OK);
	return gs_sched_materialize(*g);
}

/* nvlstree: between GPUs of different nodes (ctx: N, n) */
static bool tree_net(int r, int d, const int *ctx)
{
	return r < ctx[0] && d < ctx[0] && r / ctx[1] != d / ctx[1];
}

/* nvls with SHARP: to or from the network switch's helpers (ctx: Q) */
static bool sharp_net(int r, int d, const int *ctx) { return r >= ctx[0] || d >= ctx[0]; }

/* Bytes every GPU sends and receives. Within the node a GPU's port carries
 * nvls's S (1 + 1/n) out and S in, plus, for each block it owns, one slice
 * each way per tree edge at its node: with C channels, block c n + k uses
 * node tree c % 2, so an owner's network traffic each way is
 * sum over c of deg_{c % 2}(node) S / (C n). */
static void test_tree_traffic(void)
{
	const int C = 2;
	for (int m = 2; m <= 7; m++) {
		for (int n = 2; n <= 4; n++) {
			int N = m * n;
			uint64_t S = (uint64_t)(C * n) * 4 * SLICE; /* whole blocks */
			gs_gen *g;
			gs_sched *s = multinode_sched(GS_ALGO_NVLS_TREE, m, n, C, S, &g);
			char *err = NULL;
			g_assert_cmpint(s->nhelpers, ==, 2 * m);
			traffic tr = traffic_count(s, tree_net, (const int[]){N, n});
			gs_ntree nt;
			g_assert_cmpint(gs_ntree_build(&nt, m, &err), ==, GC_OK);
			uint64_t block = S / (uint64_t)(C * n);
			for (int r = 0; r < N; r++) {
				int x = r / n;
				uint64_t want = 0;
				for (int c = 0; c < C; c++) {
					int t = c % 2;
					int deg = (nt.parent[t][x] >= 0) + (nt.child[t][2 * x] >= 0) +
						  (nt.child[t][2 * x + 1] >= 0);
					want += (uint64_t)deg * block;
				}
				g_assert_cmpuint(tr.nvl_out[r], ==, S + S / (uint64_t)n);
				g_assert_cmpuint(tr.nvl_in[r], ==, S);
				g_assert_cmpuint(tr.net_out[r], ==, want);
				g_assert_cmpuint(tr.net_in[r], ==, want);
			}
			gs_ntree_free(&nt);
			traffic_free(&tr);
			gs_sched_free(s);
			gs_gen_free(g);
		}
	}
}

/* 2 nodes of 2 GPUs, 1 channel (tree 0: node 0 the root, node 1 its
 * child), 16 floats in slices of 4: block 0 = floats 0..7 owned by GPUs 0
 * and 2, block 1 = floats 8..15 owned by GPUs 1 and 3, two slices each. Helpers: R0 = 4, M0 = 5, R1 = 6, M1 = 7. Strands 3b + role. */
static void test_tree_layout(void)
{
	gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_NVLS_TREE, GS_DT_F32, 4, 64, 1, 16, 16, 2);
	gs_gen *g;
	char *err = NULL;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	gs_sched *s = gs_sched_materialize(g);
	g_assert_cmpint(s->nranks, ==, 8);
	g_assert_cmpint(s->nstrands, ==, 6);
	uint64_t len;
	/* GPU 3 (node 1) sends block 1's two slices to R1 */
	const gs_step *sc = gs_sched_strand(s, 3, 3, &len);
	g_assert_cmpuint(len, ==, 2);
	g_assert_cmpint(sc[1].op, ==, GS_OP_SEND);
	g_assert_cmpint(sc[1].send_peer, ==, 6);
	g_assert_cmpuint(sc[1].src_off, ==, 48);
	/* R1 reduces block 1 from GPUs 2 and 3 and sends it to the owner 3 */
	const gs_step *r1 = gs_sched_strand(s, 6, 3, &len);
	g_assert_cmpuint(len, ==, 4);
	g_assert_cmpint(r1[0].op, ==, GS_OP_RECV);
	g_assert_cmpint(r1[0].recv_peer, ==, 2);
	g_assert_cmpint(r1[1].op, ==, GS_OP_RECV_REDUCE_SEND);
	g_assert_cmpint(r1[1].recv_peer, ==, 3);
	g_assert_cmpint(r1[1].send_peer, ==, 3);
	/* the leaf owner 3 forwards its node's sum up to owner 1 */
	const gs_step *up = gs_sched_strand(s, 3, 4, &len);
	g_assert_cmpuint(len, ==, 2);
	g_assert_cmpint(up[0].op, ==, GS_OP_RECV_COPY_SEND);
	g_assert_cmpint(up[0].recv_peer, ==, 6);
	g_assert_cmpint(up[0].send_peer, ==, 1);
	/* the root owner 1: node sum from R0, reduce the child's, write
	 * OUTPUT and send to the child 3, then to its multicast engine M0 */
	const gs_step *root = gs_sched_strand(s, 1, 4, &len);
	g_assert_cmpuint(len, ==, 6);
	g_assert_cmpint(root[0].op, ==, GS_OP_RECV);
	g_assert_cmpint(root[0].recv_peer, ==, 4);
	g_assert_cmpint(root[1].op, ==, GS_OP_RECV_REDUCE_COPY_SEND);
	g_assert_cmpint(root[1].recv_peer, ==, 3);
	g_assert_cmpint(root[1].send_peer, ==, 3);
	g_assert_cmpint(root[1].dst_buf, ==, GS_BUF_OUTPUT);
	g_assert_cmpint(root[2].op, ==, GS_OP_SEND);
	g_assert_cmpint(root[2].send_peer, ==, 5);
	gs_sched_strand(s, 1, 5, &len);
	g_assert_cmpuint(len, ==, 0);
	/* the child owner's down strand: from the parent to M1 */
	const gs_step *dn = gs_sched_strand(s, 3, 5, &len);
	g_assert_cmpint(dn[0].op, ==, GS_OP_RECV_COPY_SEND);
	g_assert_cmpint(dn[0].recv_peer, ==, 1);
	g_assert_cmpint(dn[0].send_peer, ==, 7);
	/* M1 multicasts block 1 to GPU 2; GPU 2 receives it */
	const gs_step *m1 = gs_sched_strand(s, 7, 5, &len);
	g_assert_cmpuint(len, ==, 4);
	g_assert_cmpint(m1[0].recv_peer, ==, 3);
	g_assert_cmpint(m1[1].send_peer, ==, 2);
	const gs_step *x = gs_sched_strand(s, 2, 5, &len);
	g_assert_cmpint(x[0].op, ==, GS_OP_RECV);
	g_assert_cmpint(x[0].recv_peer, ==, 7);
	gs_sched_free(s);
	gs_gen_free(g);
}

static void test_tree_refusals(void)
{
	expect_refused_algo(GS_ALGO_NVLS_TREE, GS_COLL_REDUCESCATTER, 4, 2, "only defined for allreduce");
	expect_refused_algo(GS_ALGO_NVLS_TREE, GS_COLL_ALLREDUCE, 8, 8, "at least 2 nodes");
	expect_refused_algo(GS_ALGO_NVLS_TREE, GS_COLL_ALLREDUCE, 8, 1, "at least 2 ranks per node");
}

/* nvls across nodes (the network's switch reduces: SHARP), end to end. */
static void test_sharp_sweep(void) { multinode_sweep(GS_ALGO_NVLS, 31); }

/* Per GPU: nvls's S (1 + 1/n) out and S in over NVLink, and for the blocks
 * it owns, S / n each way through its NIC, whatever the node count (one
 * slice up to the switch and one back per block slice, against a tree's
 * one per edge); the switch's helpers pass the total along among
 * themselves. */
static void test_sharp_traffic(void)
{
	const int C = 2;
	for (int m = 2; m <= 7; m++) {
		for (int n = 2; n <= 4; n++) {
			int N = m * n;
			uint64_t S = (uint64_t)(C * n) * 4 * SLICE;
			gs_gen *g;
			gs_sched *s = multinode_sched(GS_ALGO_NVLS, m, n, C, S, &g);
			g_assert_cmpint(s->nhelpers, ==, 3 * m + 1);
			int Q = N + 2 * m;
			traffic tr = traffic_count(s, sharp_net, (const int[]){Q});
			for (int r = 0; r < N; r++) {
				g_assert_cmpuint(tr.nvl_out[r], ==, S + S / (uint64_t)n);
				g_assert_cmpuint(tr.nvl_in[r], ==, S);
				g_assert_cmpuint(tr.net_out[r], ==, S / (uint64_t)n);
				g_assert_cmpuint(tr.net_in[r], ==, S / (uint64_t)n);
			}
			/* Q takes every node's sum of every block and hands on one total */
			g_assert_cmpuint(tr.net_in[Q], ==, S * (uint64_t)m);
			traffic_free(&tr);
			gs_sched_free(s);
			gs_gen_free(g);
		}
	}
}

/* collnet (CollNet Direct over SHARP), end to end, also with one GPU per
 * node (no NVLink stage at all). */
static void test_collnet_sweep(void)
{
	multinode_sweep(GS_ALGO_COLLNET, 37);
	GRand *rnd = g_rand_new_with_seed(41);
	for (int m = 2; m <= 5; m++) {
		gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_COLLNET, GS_DT_F32, m,
					(uint64_t)(3 * m + 1) * 4, 2, CHUNK, SLICE, 1);
		if (!tu_check_case(&p, rnd))
			break;
	}
	g_rand_free(rnd);
}

/* CollNet's traffic, Direct's and Chain's alike: per GPU 2 (n - 1)/n S
 * each way over NVLink (Direct: (n - 1)/n S to the other owners and, as
 * owner, its S/n handed to the n - 1 others; Chain, with the channels a
 * multiple of n: every place of the chain equally often, the ring's load),
 * S/n each way through its NIC; the NVSwitch helpers idle; the network
 * switch takes every node's S. */
static void collnet_traffic(gs_algo algo)
{
	for (int m = 2; m <= 6; m++) {
		for (int n = 1; n <= 4; n++) {
			int N = m * n, C = algo == GS_ALGO_COLLNET_CHAIN ? 2 * n : 2;
			uint64_t S = (uint64_t)n * 8 * SLICE;
			gs_gen *g;
			gs_sched *s = multinode_sched(algo, m, n, C, S, &g);
			g_assert_cmpint(s->nhelpers, ==, 3 * m + 1);
			if (algo == GS_ALGO_COLLNET_CHAIN)
				g_assert_cmpint(s->nstrands, ==, 2 * C);
			int Q = N + 2 * m;
			traffic tr = traffic_count(s, sharp_net, (const int[]){Q});
			uint64_t share = S / (uint64_t)n;
			for (int r = 0; r < N; r++) {
				g_assert_cmpuint(tr.nvl_out[r], ==, 2 * (S - share));
				g_assert_cmpuint(tr.nvl_in[r], ==, 2 * (S - share));
				g_assert_cmpuint(tr.net_out[r], ==, share);
				g_assert_cmpuint(tr.net_in[r], ==, share);
			}
			for (int h = N; h < Q; h++) {
				g_assert_cmpuint(tr.nvl_out[h] + tr.net_out[h], ==, 0);
				g_assert_cmpuint(tr.nvl_in[h] + tr.net_in[h], ==, 0);
			}
			g_assert_cmpuint(tr.net_in[Q], ==, S * (uint64_t)m);
			traffic_free(&tr);
			gs_sched_free(s);
			gs_gen_free(g);
		}
	}
}

/* nvls allgather and reduce-scatter across nodes (SHARP), end to end: 2..5
 * nodes of 2..4 GPUs, empty, one-element, uneven and multi-slice blocks,
 * 1..3 channels, every data type. */
static void test_sharp_agrs_sweep(void)
{
	static const gs_coll colls[] = {GS_COLL_ALLGATHER, GS_COLL_REDUCESCATTER};
	for (size_t c = 0; c < G_N_ELEMENTS(colls); c++) {
		GRand *rnd = g_rand_new_with_seed(53 + (guint32)c);
		int k = 0;
		for (int m = 2; m <= 5; m++)
			for (int n = 2; n <= 4; n++)
				for (int i = 0; i < 4; i++, k++) {
					gs_dtype dt = dts[k % 4];
					uint64_t el = gs_dtype_size(dt), se = SLICE / el;
					uint64_t cnt[4] = {0, 1, 5, 3 * se + 1};
					gs_params p = tu_params(colls[c], GS_ALGO_NVLS, dt, m * n,
								cnt[i] * el * (uint64_t)(m * n),
								nchs[(k / 4 + i) % 3], CHUNK, SLICE, n);
					if (!tu_check_case(&p, rnd)) {
						g_rand_free(rnd);
						return;
					}
				}
		g_rand_free(rnd);
	}
}

/* Per GPU, S the gathered size and N = m n: the allgather's NIC sends the
 * GPU's own block (S/N) and takes its rail's m blocks (S/n); its NVLink
 * port stores those m blocks to the switch (S/n) and takes every rail's,
 * S, its own too; the reduce-scatter the reverse. The network switch takes
 * every rank's block once (allgather: S) or every node's sum of every
 * block (reduce-scatter: m S). */
static void test_sharp_agrs_traffic(void)
{
	for (int ag = 0; ag < 2; ag++)
		for (int m = 2; m <= 4; m++)
			for (int n = 2; n <= 4; n++) {
				int N = m * n;
				uint64_t S = (uint64_t)N * 2 * 3 * SLICE; /* 3 slices per block, 2 channels */
				gs_params p = tu_params(ag ? GS_COLL_ALLGATHER : GS_COLL_REDUCESCATTER,
							GS_ALGO_NVLS, GS_DT_F32, N, S, 2, CHUNK, SLICE, n);
				gs_gen *g;
				char *err = NULL;
				g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
				gs_sched *s = gs_sched_materialize(g);
				g_assert_cmpint(s->nhelpers, ==, 3 * m + 1);
				int Q = N + 2 * m;
				traffic tr = traffic_count(s, sharp_net, (const int[]){Q});
				uint64_t blk = S / (uint64_t)N, rail = S / (uint64_t)n;
				for (int r = 0; r < N; r++) {
					g_assert_cmpuint(ag ? tr.net_out[r] : tr.net_in[r], ==, blk);
					g_assert_cmpuint(ag ? tr.net_in[r] : tr.net_out[r], ==, rail);
					g_assert_cmpuint(ag ? tr.nvl_out[r] : tr.nvl_in[r], ==, rail);
					g_assert_cmpuint(ag ? tr.nvl_in[r] : tr.nvl_out[r], ==, S);
				}
				g_assert_cmpuint(tr.net_in[Q], ==, ag ? S : S * (uint64_t)m);
				traffic_free(&tr);
				gs_sched_free(s);
				gs_gen_free(g);
			}
}

static void test_collnet_traffic(void) { collnet_traffic(GS_ALGO_COLLNET); }
static void test_chain_traffic(void) { collnet_traffic(GS_ALGO_COLLNET_CHAIN); }

static void test_collnet_refusals(void)
{
	expect_refused_algo(GS_ALGO_COLLNET, GS_COLL_ALLGATHER, 4, 2, "only defined for allreduce");
	expect_refused_algo(GS_ALGO_COLLNET, GS_COLL_ALLREDUCE, 8, 8,
			    "collnet joins nodes through the network: it needs at least 2 nodes, not 1");
}

/* CollNet Chain end to end: 2..6 nodes of 2..5 GPUs (multinode_sweep),
 * and one GPU per node. */
static void test_chain_sweep(void)
{
	multinode_sweep(GS_ALGO_COLLNET_CHAIN, 43);
	GRand *rnd = g_rand_new_with_seed(47);
	for (int m = 2; m <= 5; m++) {
		gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_COLLNET_CHAIN, GS_DT_F32, m,
					(uint64_t)(3 * m + 1) * 4, 2, CHUNK, SLICE, 1);
		if (!tu_check_case(&p, rnd))
			break;
	}
	g_rand_free(rnd);
}

/* 2 nodes of 3 GPUs, 2 channels, one slice each: channel 1's head is local
 * GPU 1, its chain 1 (head), 2, 0 (bottom). Node 1's bottom (rank 3)
 * SENDs up to rank 5, which reduces and sends to rank 4, the head, which
 * reduces and sends to Q (rank 10, after the 6 GPUs and the two nodes'
 * idle NVSwitch helpers); on the way down the head takes the total from
 * E_1 (rank 12) and passes it to 5, which passes it to 3. */
static void test_chain_layout(void)
{
	gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_COLLNET_CHAIN, GS_DT_F32, 6, 2 * 64, 2,
				64, 64, 3);
	gs_gen *g;
	char *err = NULL;
	uint64_t len;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	gs_sched *s = gs_sched_materialize(g);
	const gs_step *b = gs_sched_strand(s, 3, 2, &len);
	g_assert_cmpuint(len, ==, 1);
	g_assert_cmpint(b[0].op, ==, GS_OP_SEND);
	g_assert_cmpint(b[0].send_peer, ==, 5);
	const gs_step *mid = gs_sched_strand(s, 5, 2, &len);
	g_assert_cmpint(mid[0].op, ==, GS_OP_RECV_REDUCE_SEND);
	g_assert_cmpint(mid[0].recv_peer, ==, 3);
	g_assert_cmpint(mid[0].send_peer, ==, 4);
	const gs_step *h = gs_sched_strand(s, 4, 2, &len);
	g_assert_cmpint(h[0].op, ==, GS_OP_RECV_REDUCE_SEND);
	g_assert_cmpint(h[0].recv_peer, ==, 5);
	g_assert_cmpint(h[0].send_peer, ==, 10);
	const gs_step *hd = gs_sched_strand(s, 4, 3, &len);
	g_assert_cmpint(hd[0].op, ==, GS_OP_RECV_COPY_SEND);
	g_assert_cmpint(hd[0].recv_peer, ==, 12);
	g_assert_cmpint(hd[0].send_peer, ==, 5);
	const gs_step *md = gs_sched_strand(s, 5, 3, &len);
	g_assert_cmpint(md[0].op, ==, GS_OP_RECV_COPY_SEND);
	g_assert_cmpint(md[0].send_peer, ==, 3);
	const gs_step *bd = gs_sched_strand(s, 3, 3, &len);
	g_assert_cmpint(bd[0].op, ==, GS_OP_RECV);
	g_assert_cmpint(bd[0].recv_peer, ==, 5);
	/* Q reduces the two heads' sums (ranks 1 and 4) for channel 1 */
	const gs_step *q = gs_sched_strand(s, 10, 2, &len);
	g_assert_cmpuint(len, ==, 2);
	g_assert_cmpint(q[0].recv_peer, ==, 1);
	g_assert_cmpint(q[1].recv_peer, ==, 4);
	gs_sched_free(s);
	gs_gen_free(g);
}

static void test_chain_refusals(void)
{
	expect_refused_algo(GS_ALGO_COLLNET_CHAIN, GS_COLL_REDUCESCATTER, 4, 2,
			    "only defined for allreduce");
	expect_refused_algo(GS_ALGO_COLLNET_CHAIN, GS_COLL_ALLREDUCE, 8, 8,
			    "collnetchain joins nodes through the network: it needs at least 2 nodes, "
			    "not 1");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/collnetchain/sweep", test_chain_sweep);
	g_test_add_func("/collnetchain/traffic", test_chain_traffic);
	g_test_add_func("/collnetchain/layout", test_chain_layout);
	g_test_add_func("/collnetchain/refusals", test_chain_refusals);
	g_test_add_func("/collnet/sweep", test_collnet_sweep);
	g_test_add_func("/collnet/traffic", test_collnet_traffic);
	g_test_add_func("/collnet/refusals", test_collnet_refusals);
	g_test_add_func("/nvls-sharp/sweep", test_sharp_sweep);
	g_test_add_func("/nvls-sharp/traffic", test_sharp_traffic);
	g_test_add_func("/nvls-sharp/agrs-sweep", test_sharp_agrs_sweep);
	g_test_add_func("/nvls-sharp/agrs-traffic", test_sharp_agrs_traffic);
	g_test_add_func("/nvls/sweep", test_sweep);
	g_test_add_func("/nvls/port-traffic", test_port_traffic);
	g_test_add_func("/nvls/layout", test_layout);
	g_test_add_func("/nvls/refusals", test_refusals);
	g_test_add_func("/nvls/agrs-sweep", test_agrs_sweep);
	g_test_add_func("/nvls/agrs-traffic", test_agrs_traffic);
	g_test_add_func("/nvls/agrs-layout", test_agrs_layout);
	g_test_add_func("/nvls/helper-input", test_helper_input_rejected);
	g_test_add_func("/nvlstree/sweep", test_tree_sweep);
	g_test_add_func("/nvlstree/traffic", test_tree_traffic);
	g_test_add_func("/nvlstree/layout", test_tree_layout);
	g_test_add_func("/nvlstree/refusals", test_tree_refusals);
	return g_test_run();
}
