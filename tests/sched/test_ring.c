/* SPDX-License-Identifier: MIT */
/*
 * test_ring: the ring generator (allreduce, allgather, reducescatter).
 *
 * Sweeps every rank count 2..64 over sizes that are empty, one element, not
 * divisible by the rank count and spanning several loops and slices (with a
 * 256 B chunk and 64 B slices), rotating channel counts (1, 2, 3, 8),
 * ranks_per_node (1, 2, 4, 8 where they divide, and all-in-one-node) and
 * data types; every case is materialized, validated, executed on real data
 * and compared window by window with the streaming fill. A full product of
 * those parameters runs for a few small rank counts. Also: a golden dump
 * derived by hand from the op semantics, the ring order of the channels,
 * strand lengths against a brute-force enumeration of loops and chunks, and
 * the one-rank case.
 */
#include "tests/sched/sched_testutil.h"

#define CHUNK 256
#define SLICE 64

static const int nchs[] = { 1, 2, 3, 8 };
static const gs_dtype dts[] = { GS_DT_F32, GS_DT_I32, GS_DT_U8, GS_DT_F64 };

/* Element counts to test for n ranks: for allreduce the buffer, for the
 * others one rank's block. */
static int ring_counts(gs_coll coll, int n, uint64_t ce, uint64_t *out)
{
	int m = 0;

	out[m++] = 0;
	out[m++] = 1;
	if (coll == GS_COLL_ALLREDUCE) {
		out[m++] = (uint64_t)n - 1;
		out[m++] = (uint64_t)n + 1;
		out[m++] = 2 * (uint64_t)n * ce + 5 * (uint64_t)n + 3; /* 3 loops, uneven last */
	} else {
		out[m++] = 3;
		out[m++] = 2 * ce + 5; /* 3 loops */
	}
	return m;
}

static uint64_t ring_bytes(gs_coll coll, int n, uint64_t count, size_t elem)
{
	if (coll == GS_COLL_ALLREDUCE)
		return count * elem;
	/* total buffer; + elem - 1 junk bytes that normalization must drop */
	return count * elem * (uint64_t)n + (count ? elem - 1 : 0);
}

static void ring_sweep(gs_coll coll)
{
	GRand *rnd = g_rand_new_with_seed(1000 + (guint32)coll);
	int k = 0;

	for (int n = 2; n <= 64; n++) {
		uint64_t cnt[8];
		int m = ring_counts(coll, n, 1, cnt);

		for (int i = 0; i < m; i++, k++) {
			gs_dtype dt = dts[k % 4];
			size_t el = gs_dtype_size(dt);
			gs_params p;

			/* counts in this type's elements per chunk */
			ring_counts(coll, n, CHUNK / el, cnt);
			p = tu_params(coll, GS_ALGO_RING, dt, n, ring_bytes(coll, n, cnt[i], el),
				      nchs[(k / 4) % 4], CHUNK, SLICE, tu_rpn(n, k / 3));
			if (!tu_check_case(&p, rnd))
				goto out;
			/* again with slices that do not divide the chunk (240 = 96 + 96 + 48) */
			ring_counts(coll, n, 240 / el, cnt);
			p = tu_params(coll, GS_ALGO_RING, dt, n, ring_bytes(coll, n, cnt[i], el),
				      nchs[(k / 4 + 2) % 4], 240, 96, tu_rpn(n, k / 3 + 1));
			if (!tu_check_case(&p, rnd))
				goto out;
		}
	}
out:
	g_rand_free(rnd);
}

static void test_allreduce_sweep(void)
{
	ring_sweep(GS_COLL_ALLREDUCE);
}

static void test_allgather_sweep(void)
{
	ring_sweep(GS_COLL_ALLGATHER);
}

static void test_reducescatter_sweep(void)
{
	ring_sweep(GS_COLL_REDUCESCATTER);
}

/* Every combination of count, channels and ranks_per_node for small n. */
static void test_product(void)
{
	static const int ns[] = { 2, 3, 4, 5, 6, 8, 12 };
	static const gs_coll colls[] = { GS_COLL_ALLREDUCE, GS_COLL_ALLGATHER,
					 GS_COLL_REDUCESCATTER };
	GRand *rnd = g_rand_new_with_seed(77);

	for (size_t a = 0; a < G_N_ELEMENTS(ns); a++) {
		int n = ns[a];

		for (size_t ci = 0; ci < G_N_ELEMENTS(colls); ci++) {
			uint64_t counts[8];
			int m = ring_counts(colls[ci], n, CHUNK / 4, counts);

			for (int i = 0; i < m; i++) {
				for (size_t h = 0; h < G_N_ELEMENTS(nchs); h++) {
					for (int rk = 0; rk < 5; rk++) {
						int rpn = tu_rpn(n, rk);
						gs_params p;

						if (rk > 0 && rpn == tu_rpn(n, 0))
							break; /* options exhausted */
						p = tu_params(
							colls[ci], GS_ALGO_RING, GS_DT_F32, n,
							ring_bytes(colls[ci], n, counts[i], 4),
							nchs[h], CHUNK, SLICE, rpn);
						if (!tu_check_case(&p, rnd))
							goto out;
					}
				}
			}
		}
	}
out:
	g_rand_free(rnd);
}

/*
 * fill() locates any first step by itself (in the last, uneven loop by the
 * runs of chunk indices, gs_ring_last_locate): from every position of
 * every strand, a fill of one step and one of five equal the strand filled
 * from its start. The counts put the last loop through its cases: chunks
 * of one size (R a multiple of n: no partial chunk), a partial chunk, an
 * empty one after a full set (R a multiple of ceil(R/n) below n of them),
 * fewer elements than ranks (most chunks empty), and whole loops before an
 * uneven one; slices that do and do not divide a chunk.
 */
static void test_every_start(void)
{
	static const gs_coll colls[] = { GS_COLL_ALLREDUCE, GS_COLL_ALLGATHER,
					 GS_COLL_REDUCESCATTER };
	static const struct {
		uint64_t chunk, slice;
	} cs[] = { { 64, 16 }, { 60, 24 } };

	for (int n = 1; n <= 13; n++) {
		for (size_t ci = 0; ci < G_N_ELEMENTS(colls); ci++) {
			for (size_t k = 0; k < G_N_ELEMENTS(cs); k++) {
				uint64_t ce = cs[k].chunk / 4;
				uint64_t counts[] = { 1, (uint64_t)n - 1 + (n == 1), 3 * (uint64_t)n,
						      3 * (uint64_t)n + 2, 4 * (uint64_t)n - 4 + (n == 1),
						      2 * (uint64_t)n * ce + 2 * (uint64_t)n + 1 };
				for (size_t i = 0; i < G_N_ELEMENTS(counts); i++) {
					gs_params p = tu_params(colls[ci], GS_ALGO_RING, GS_DT_F32,
								n, ring_bytes(colls[ci], n, counts[i], 4),
								1 + (int)(i % 3), cs[k].chunk,
								cs[k].slice, tu_rpn(n, (int)i));
					gs_gen *g;
					char *err = NULL;

					g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
					for (int r = 0; r < n; r++) {
						for (int c = 0; c < g->nstrands; c++) {
							uint64_t len = g->ops->strand_len(g, r, c);
							gs_step *whole = g_new(gs_step, len + 1), win[5];

							g->ops->fill(g, r, c, 0, (uint32_t)len, whole);
							for (uint64_t f = 0; f < len; f++) {
								uint32_t w = (uint32_t)MIN(len - f, 5);

								g->ops->fill(g, r, c, f, 1, win);
								g_assert_true(memcmp(win, whole + f, sizeof(gs_step)) == 0);
								g->ops->fill(g, r, c, f, w, win);
								g_assert_true(memcmp(win, whole + f, w * sizeof(gs_step)) == 0);
							}
							g_free(whole);
						}
					}
					gs_gen_free(g);
				}
			}
		}
	}
}

/*
 * Ring allreduce, 3 ranks, 12 floats, 1 channel, default chunk and slice:
 * one loop of three 4-element (16 B) chunks, one slice each. Ring order is
 * 0, 1, 2 (one node, channel 0). Rank at position p handles chunk
 * (p - 1 - t) mod 3 at slot t: SEND, RECV_REDUCE_SEND, RECV_REDUCE_COPY_SEND
 * (its own chunk p), RECV_COPY_SEND, RECV. Unused operands print as
 * INPUT+0 / OUTPUT+0.
 */
static const char golden_ring_ar3[] =
	"r0 c0 #0 SEND send=1 recv=-1 src=INPUT+32 dst=OUTPUT+0 bytes=16\n"
	"r0 c0 #1 RECV_REDUCE_SEND send=1 recv=2 src=INPUT+16 dst=OUTPUT+0 bytes=16\n"
	"r0 c0 #2 RECV_REDUCE_COPY_SEND send=1 recv=2 src=INPUT+0 dst=OUTPUT+0 bytes=16\n"
	"r0 c0 #3 RECV_COPY_SEND send=1 recv=2 src=INPUT+0 dst=OUTPUT+32 bytes=16\n"
	"r0 c0 #4 RECV send=-1 recv=2 src=INPUT+0 dst=OUTPUT+16 bytes=16\n"
	"r1 c0 #0 SEND send=2 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=16\n"
	"r1 c0 #1 RECV_REDUCE_SEND send=2 recv=0 src=INPUT+32 dst=OUTPUT+0 bytes=16\n"
	"r1 c0 #2 RECV_REDUCE_COPY_SEND send=2 recv=0 src=INPUT+16 dst=OUTPUT+16 bytes=16\n"
	"r1 c0 #3 RECV_COPY_SEND send=2 recv=0 src=INPUT+0 dst=OUTPUT+0 bytes=16\n"
	"r1 c0 #4 RECV send=-1 recv=0 src=INPUT+0 dst=OUTPUT+32 bytes=16\n"
	"r2 c0 #0 SEND send=0 recv=-1 src=INPUT+16 dst=OUTPUT+0 bytes=16\n"
	"r2 c0 #1 RECV_REDUCE_SEND send=0 recv=1 src=INPUT+0 dst=OUTPUT+0 bytes=16\n"
	"r2 c0 #2 RECV_REDUCE_COPY_SEND send=0 recv=1 src=INPUT+32 dst=OUTPUT+32 bytes=16\n"
	"r2 c0 #3 RECV_COPY_SEND send=0 recv=1 src=INPUT+0 dst=OUTPUT+16 bytes=16\n"
	"r2 c0 #4 RECV send=-1 recv=1 src=INPUT+0 dst=OUTPUT+0 bytes=16\n";

static void test_golden(void)
{
	gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_RING, GS_DT_F32, 3, 48, 1, 0, 0, 0);
	gs_gen *g;
	gs_sched *s;
	GString *a = g_string_new(NULL), *b = g_string_new(NULL);
	char *err = NULL;

	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	s = gs_sched_materialize(g);
	gs_sched_dump(s, a);
	g_assert_cmpstr(a->str, ==, golden_ring_ar3);
	g_assert_cmpint(gs_sched_validate(s, &err), ==, GC_OK);
	g_assert_cmpint(gs_refexec_run(s, &err), ==, GC_OK);
	gs_sched_free(s);
	gs_gen_free(g);

	/* determinism: a second generator dumps the same text */
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	s = gs_sched_materialize(g);
	gs_sched_dump(s, b);
	g_assert_cmpstr(a->str, ==, b->str);
	gs_sched_free(s);
	gs_gen_free(g);
	g_string_free(a, TRUE);
	g_string_free(b, TRUE);
}

/* Channel 1 of 8 ranks, 4 per node: ring 1 2 3 0 5 6 7 4. */
static void test_ring_order(void)
{
	static const int ring[8] = { 1, 2, 3, 0, 5, 6, 7, 4 };
	gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_RING, GS_DT_F32, 8, 4096, 3, 0, 0, 4);
	gs_gen *g;
	char *err = NULL;

	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	for (int pos = 0; pos < 8; pos++) {
		gs_step st;

		g->ops->fill(g, ring[pos], 1, 0, 1, &st);
		g_assert_cmpint(st.op, ==, GS_OP_SEND);
		g_assert_cmpint(st.send_peer, ==, ring[(pos + 1) % 8]);
		g->ops->fill(g, ring[pos], 1, 1, 1, &st);
		g_assert_cmpint(st.recv_peer, ==, ring[(pos + 7) % 8]);
	}
	gs_gen_free(g);
}

/* Paired rings (gs_params.ring_pairs): on 3 nodes of 8, channel c's ring
 * enters each node at local rank c % 8 and leaves it from that rank's pair
 * (c % 8) ^ 1, visits every rank once, and the schedule's peers follow that
 * order; one node, 2 ranks a node, or 6 with pairs not asked for keep the
 * rotations. Checked on the allreduce and the broadcast chain, which share
 * the order. */
static void test_ring_pairs(void)
{
	for (int coll = 0; coll < 2; coll++)
		for (int c = 0; c < 16; c++) {
			gs_params p = tu_params(coll ? GS_COLL_BROADCAST : GS_COLL_ALLREDUCE, GS_ALGO_RING,
						GS_DT_F32, 24, 24 * 4096, 16, 0, 0, 8);
			p.ring_pairs = 1;
			gs_gen *g;
			char *err = NULL;
			g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
			/* walk the ring from rank 0 by each rank's first send */
			int seen[24] = {0}, r = 0, a = c % 8;
			for (int k = 0; k < 24; k++) {
				g_assert_cmpint(seen[r], ==, 0);
				seen[r] = 1;
				gs_step st[2];
				uint64_t len = g->ops->strand_len(g, r, c);
				g->ops->fill(g, r, c, 0, len < 2 ? (uint32_t)len : 2, st);
				int next = st[0].send_peer >= 0 ? st[0].send_peer : st[1].send_peer;
				if (next / 8 != r / 8) { /* leaving the node: from a's pair to a */
					g_assert_cmpint(r % 8, ==, a ^ 1);
					g_assert_cmpint(next % 8, ==, a);
				}
				r = next;
				if (coll && k == 22)
					break; /* the chain ends before it closes */
			}
			if (!coll)
				g_assert_cmpint(r, ==, 0);
			gs_gen_free(g);
		}
	/* the rotation where pairs do not apply: channel 2 leaves from local
	 * rank 1, its predecessor */
	static const struct {
		int n, rpn, pairs;
	} rot[] = {{8, 8, 1}, {6, 2, 1}, {24, 8, 0}};
	for (size_t i = 0; i < G_N_ELEMENTS(rot); i++) {
		gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_RING, GS_DT_F32, rot[i].n,
					(uint64_t)rot[i].n * 4096, 3, 0, 0, rot[i].rpn);
		p.ring_pairs = rot[i].pairs;
		gs_gen *g;
		char *err = NULL;
		g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
		gs_step st;
		int last = (2 + rot[i].rpn - 1) % rot[i].rpn; /* local rank before 2 */
		g->ops->fill(g, last, 2, 0, 1, &st);
		g_assert_cmpint(st.send_peer, ==, rot[i].n == rot[i].rpn ? 2 % rot[i].rpn : rot[i].rpn + 2 % rot[i].rpn);
		gs_gen_free(g);
	}
}

static uint64_t divup(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* Ring allreduce strand length by enumerating loops and chunks. */
static uint64_t brute_len(int n, int rpn, int nch, int c, int rank, uint64_t count, uint64_t ce,
			  uint64_t se)
{
	uint64_t m = count / (uint64_t)nch + ((uint64_t)c < count % (uint64_t)nch);
	int local = rank % rpn, pos = (rank / rpn) * rpn + ((local - c) % rpn + rpn) % rpn;
	uint64_t len = 0, r = m;

	while (r > 0) {
		uint64_t lce = MIN(ce, divup(r, (uint64_t)n));

		for (int t = 0; t < 2 * n - 1; t++) {
			uint64_t q = (uint64_t)(((pos - 1 - t) % n + n) % n);
			uint64_t sz = r > q * lce ? MIN(lce, r - q * lce) : 0;

			len += divup(sz, se);
		}
		r -= MIN(r, (uint64_t)n * lce);
	}
	return len;
}

static void test_strand_len(void)
{
	static const int ns[] = { 2, 3, 7, 64, 129, 1000, 4096 };
	GRand *rnd = g_rand_new_with_seed(5);

	for (size_t a = 0; a < G_N_ELEMENTS(ns); a++) {
		for (int trial = 0; trial < 20; trial++) {
			int n = ns[a], nch = nchs[trial % 4], rpn = tu_rpn(n, trial);
			uint64_t chunk = 4 * (uint64_t)g_rand_int_range(rnd, 1, 64);
			uint64_t slice = 4 * (uint64_t)g_rand_int_range(rnd, 1, (int)chunk / 4 + 1);
			uint64_t count = (uint64_t)g_rand_int_range(rnd, 0, 3 * n * 64 + 50);
			gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_RING, GS_DT_F32, n,
						count * 4, nch, chunk, slice, rpn);
			gs_gen *g;
			char *err = NULL;

			g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
			for (int j = 0; j < 8; j++) {
				int r = g_rand_int_range(rnd, 0, n),
				    c = g_rand_int_range(rnd, 0, nch);

				g_assert_cmpuint(g->ops->strand_len(g, r, c), ==,
						 brute_len(n, g->p.ranks_per_node, nch, c, r, count,
							   chunk / 4, slice / 4));
			}
			gs_gen_free(g);
		}
	}
	g_rand_free(rnd);
}

/* One rank: every collective is one COPY INPUT -> OUTPUT per slice. */
static void test_one_rank(void)
{
	static const gs_coll colls[] = { GS_COLL_ALLREDUCE, GS_COLL_ALLGATHER,
					 GS_COLL_REDUCESCATTER };
	GRand *rnd = g_rand_new_with_seed(9);

	for (size_t ci = 0; ci < G_N_ELEMENTS(colls); ci++) {
		gs_params p = tu_params(colls[ci], GS_ALGO_RING, GS_DT_F32, 1, 4 * 1000, 3, CHUNK,
					SLICE, 0);
		gs_gen *g;
		gs_sched *s;
		char *err = NULL;

		g_assert_true(tu_check_case(&p, rnd));
		g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
		s = gs_sched_materialize(g);
		for (uint64_t i = 0; i < s->strand_off[s->nstrands]; i++)
			g_assert_cmpint(s->steps[i].op, ==, GS_OP_COPY);
		/* 1000 floats over 3 channels: 334 + 333 + 333, 16 per slice */
		g_assert_cmpuint(s->strand_off[s->nstrands], ==, 21 + 21 + 21);
		gs_sched_free(s);
		gs_gen_free(g);
	}
	g_rand_free(rnd);
}

/* Beyond the sweep: a few hundred ranks, end to end. */
static void test_large(void)
{
	GRand *rnd = g_rand_new_with_seed(21);
	gs_params ps[] = {
		tu_params(GS_COLL_ALLREDUCE, GS_ALGO_RING, GS_DT_F32, 256, 4 * (256 * 64 + 100), 2,
			  CHUNK, SLICE, 8),
		tu_params(GS_COLL_ALLGATHER, GS_ALGO_RING, GS_DT_I32, 200, 4 * 200 * 130, 3, CHUNK,
			  SLICE, 8),
		tu_params(GS_COLL_REDUCESCATTER, GS_ALGO_RING, GS_DT_F64, 160, 8 * 160 * 70, 2,
			  CHUNK, SLICE, 4),
	};

	for (size_t i = 0; i < G_N_ELEMENTS(ps); i++)
		g_assert_true(tu_check_case(&ps[i], rnd));
	g_rand_free(rnd);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/sched/ring/golden", test_golden);
	g_test_add_func("/sched/ring/order", test_ring_order);
	g_test_add_func("/sched/ring/pairs", test_ring_pairs);
	g_test_add_func("/sched/ring/strand_len", test_strand_len);
	g_test_add_func("/sched/ring/one_rank", test_one_rank);
	g_test_add_func("/sched/ring/allreduce", test_allreduce_sweep);
	g_test_add_func("/sched/ring/allgather", test_allgather_sweep);
	g_test_add_func("/sched/ring/reducescatter", test_reducescatter_sweep);
	g_test_add_func("/sched/ring/product", test_product);
	g_test_add_func("/sched/ring/every-start", test_every_start);
	g_test_add_func("/sched/ring/large", test_large);
	return g_test_run();
}
