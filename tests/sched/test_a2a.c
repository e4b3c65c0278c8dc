/* SPDX-License-Identifier: MIT */
/*
 * test_a2a: the all-to-all generators, pairwise (two-sided) and put
 * (one-sided).
 *
 * Sweeps every rank count 1..64 for both algorithms over block sizes that
 * are empty, one element, three elements (fewer than some channel counts,
 * so channels can be empty) and several loops, with total sizes that are
 * not a multiple of nranks * elem (normalization must round them down),
 * channel counts 1..4 and all data types; every case goes through the
 * validator (including the one-sided race check), the reference executor,
 * bounded connection buffers (one chunk, and for pairwise a single
 * message) and streaming windows against the materialized strands.
 *
 * By hand: golden dumps of a 3-rank pairwise and put exchange and a
 * 2-rank, 2-channel put exchange (slot c per channel), derived from the
 * semantics in gs_a2a.c; normalization and the algorithm checks; the put
 * send strands finish with no WAIT strand running while the WAIT strands
 * alone never pass, and the pairwise send strands finish alone with
 * unlimited buffering; one rank is the COPY alone.
 */
#include "tests/sched/sched_testutil.h"

#define CHUNK 256
#define SLICE 64

static const gs_dtype dts[] = { GS_DT_F32, GS_DT_I32, GS_DT_U8, GS_DT_F64 };

static void sweep(gs_algo algo, guint32 seed)
{
	GRand *rnd = g_rand_new_with_seed(seed);
	int k = 0, cases = 0;
	gint64 t0 = g_get_monotonic_time();

	for (int n = 1; n <= 64; n++) {
		for (int i = 0; i < 4; i++, k++) {
			gs_dtype dt = dts[k % 4];
			uint64_t el = gs_dtype_size(dt), ce = CHUNK / el;
			/* elements per block */
			uint64_t blk[4] = { 0, 1, 3, 2 * ce + 5 };
			/* + up to n - 1 elements and elem - 1 bytes that normalization drops */
			uint64_t bytes = (blk[i] * (uint64_t)n + (uint64_t)(k % n)) * el + el - 1;
			int nch = 1 + (k / 4 + i) % 4;
			gs_params p = tu_params(GS_COLL_ALLTOALL, algo, dt, n, bytes, nch, CHUNK,
						SLICE, 0);

			cases++;
			if (!tu_check_case(&p, rnd))
				goto out;
		}
	}
out:
	g_test_message("%s: %d cases in %.2f s", gs_algo_name(algo), cases,
		       (double)(g_get_monotonic_time() - t0) / 1e6);
	g_rand_free(rnd);
}

static void test_pairwise_sweep(void)
{
	sweep(GS_ALGO_PAIRWISE, 21);
}

static void test_put_sweep(void)
{
	sweep(GS_ALGO_PUT, 22);
}

/* Every channel count 1..4 at a few rank counts and both algorithms, with
 * more channels than some blocks have elements. */
static void test_channels(void)
{
	static const int ns[] = { 2, 3, 5, 8 };
	GRand *rnd = g_rand_new_with_seed(23);

	for (int a = 0; a < 2; a++) {
		for (size_t i = 0; i < G_N_ELEMENTS(ns); i++) {
			for (int nch = 1; nch <= 4; nch++) {
				for (uint64_t blk = 1; blk <= 70; blk += 23) {
					gs_params p = tu_params(
						GS_COLL_ALLTOALL, a ? GS_ALGO_PUT : GS_ALGO_PAIRWISE,
						GS_DT_F32, ns[i], blk * 4 * (uint64_t)ns[i], nch, 32,
						8, 0);

					if (!tu_check_case(&p, rnd))
						goto out;
				}
			}
		}
	}
out:
	g_rand_free(rnd);
}

static gs_sched *make(gs_params p, gs_gen **gout)
{
	gs_gen *g;
	char *err = NULL;

	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	*gout = g;
	return gs_sched_materialize(g);
}

static void expect_dump(gs_params p, const char *want, int nstrands, uint32_t nsignals)
{
	gs_gen *g;
	gs_sched *s = make(p, &g);
	GString *a = g_string_new(NULL);
	char *err = NULL;

	g_assert_cmpint(s->nstrands, ==, nstrands);
	g_assert_cmpint(s->strands_per_channel, ==, 2);
	g_assert_cmpuint(s->nsignals, ==, nsignals);
	gs_sched_dump(s, a);
	g_assert_cmpstr(a->str, ==, want);
	g_assert_cmpint(gs_sched_validate(s, &err), ==, GC_OK);
	g_assert_cmpint(gs_refexec_run(s, &err), ==, GC_OK);
	g_string_free(a, TRUE);
	gs_sched_free(s);
	gs_gen_free(g);
}

/*
 * 3 ranks, 26 bytes of floats: 6 elements (26 / 4 rounded down to a
 * multiple of 3), blocks of 2 floats (8 bytes; block j at byte 8j). One
 * channel, chunk 8 B, slice 4 B: a block is one loop of two slices.
 * Rank r, strand 0: COPY of block r, then SENDs of block r+1 to r+1 and of
 * block r+2 to r+2; strand 1: RECVs of block r-1 from r-1 into OUTPUT
 * block r-1, then from r-2.
 */
static void test_golden_pairwise(void)
{
	gs_params p = tu_params(GS_COLL_ALLTOALL, GS_ALGO_PAIRWISE, GS_DT_F32, 3, 26, 1, 8, 4, 0);

	expect_dump(p,
		    "r0 c0 #0 COPY send=-1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
		    "r0 c0 #1 COPY send=-1 recv=-1 src=INPUT+4 dst=OUTPUT+4 bytes=4\n"
		    "r0 c0 #2 SEND send=1 recv=-1 src=INPUT+8 dst=OUTPUT+0 bytes=4\n"
		    "r0 c0 #3 SEND send=1 recv=-1 src=INPUT+12 dst=OUTPUT+0 bytes=4\n"
		    "r0 c0 #4 SEND send=2 recv=-1 src=INPUT+16 dst=OUTPUT+0 bytes=4\n"
		    "r0 c0 #5 SEND send=2 recv=-1 src=INPUT+20 dst=OUTPUT+0 bytes=4\n"
		    "r0 c1 #0 RECV send=-1 recv=2 src=INPUT+0 dst=OUTPUT+16 bytes=4\n"
		    "r0 c1 #1 RECV send=-1 recv=2 src=INPUT+0 dst=OUTPUT+20 bytes=4\n"
		    "r0 c1 #2 RECV send=-1 recv=1 src=INPUT+0 dst=OUTPUT+8 bytes=4\n"
		    "r0 c1 #3 RECV send=-1 recv=1 src=INPUT+0 dst=OUTPUT+12 bytes=4\n"
		    "r1 c0 #0 COPY send=-1 recv=-1 src=INPUT+8 dst=OUTPUT+8 bytes=4\n"
		    "r1 c0 #1 COPY send=-1 recv=-1 src=INPUT+12 dst=OUTPUT+12 bytes=4\n"
		    "r1 c0 #2 SEND send=2 recv=-1 src=INPUT+16 dst=OUTPUT+0 bytes=4\n"
		    "r1 c0 #3 SEND send=2 recv=-1 src=INPUT+20 dst=OUTPUT+0 bytes=4\n"
		    "r1 c0 #4 SEND send=0 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
		    "r1 c0 #5 SEND send=0 recv=-1 src=INPUT+4 dst=OUTPUT+0 bytes=4\n"
		    "r1 c1 #0 RECV send=-1 recv=0 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
		    "r1 c1 #1 RECV send=-1 recv=0 src=INPUT+0 dst=OUTPUT+4 bytes=4\n"
		    "r1 c1 #2 RECV send=-1 recv=2 src=INPUT+0 dst=OUTPUT+16 bytes=4\n"
		    "r1 c1 #3 RECV send=-1 recv=2 src=INPUT+0 dst=OUTPUT+20 bytes=4\n"
		    "r2 c0 #0 COPY send=-1 recv=-1 src=INPUT+16 dst=OUTPUT+16 bytes=4\n"
		    "r2 c0 #1 COPY send=-1 recv=-1 src=INPUT+20 dst=OUTPUT+20 bytes=4\n"
		    "r2 c0 #2 SEND send=0 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
		    "r2 c0 #3 SEND send=0 recv=-1 src=INPUT+4 dst=OUTPUT+0 bytes=4\n"
		    "r2 c0 #4 SEND send=1 recv=-1 src=INPUT+8 dst=OUTPUT+0 bytes=4\n"
		    "r2 c0 #5 SEND send=1 recv=-1 src=INPUT+12 dst=OUTPUT+0 bytes=4\n"
		    "r2 c1 #0 RECV send=-1 recv=1 src=INPUT+0 dst=OUTPUT+8 bytes=4\n"
		    "r2 c1 #1 RECV send=-1 recv=1 src=INPUT+0 dst=OUTPUT+12 bytes=4\n"
		    "r2 c1 #2 RECV send=-1 recv=0 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
		    "r2 c1 #3 RECV send=-1 recv=0 src=INPUT+0 dst=OUTPUT+4 bytes=4\n",
		    2, 0);
}

/*
 * The same exchange one-sided: rank r's strand 0 copies block r, PUTs
 * INPUT block q into OUTPUT block r of q (q = r+1, then r+2), each peer's
 * PUTs followed by one SIGNAL of the peer's slot 0 (dst_off = slot,
 * bytes = the 8-byte word); strand 1 is one WAIT for slot 0 (src_off)
 * to reach 2 (bytes = the threshold).
 */
static void test_golden_put(void)
{
	gs_params p = tu_params(GS_COLL_ALLTOALL, GS_ALGO_PUT, GS_DT_F32, 3, 26, 1, 8, 4, 0);

	expect_dump(p,
		    "r0 c0 #0 COPY send=-1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
		    "r0 c0 #1 COPY send=-1 recv=-1 src=INPUT+4 dst=OUTPUT+4 bytes=4\n"
		    "r0 c0 #2 PUT send=1 recv=-1 src=INPUT+8 dst=OUTPUT+0 bytes=4\n"
		    "r0 c0 #3 PUT send=1 recv=-1 src=INPUT+12 dst=OUTPUT+4 bytes=4\n"
		    "r0 c0 #4 SIGNAL send=1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=8\n"
		    "r0 c0 #5 PUT send=2 recv=-1 src=INPUT+16 dst=OUTPUT+0 bytes=4\n"
		    "r0 c0 #6 PUT send=2 recv=-1 src=INPUT+20 dst=OUTPUT+4 bytes=4\n"
		    "r0 c0 #7 SIGNAL send=2 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=8\n"
		    "r0 c1 #0 WAIT send=-1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=2\n"
		    "r1 c0 #0 COPY send=-1 recv=-1 src=INPUT+8 dst=OUTPUT+8 bytes=4\n"
		    "r1 c0 #1 COPY send=-1 recv=-1 src=INPUT+12 dst=OUTPUT+12 bytes=4\n"
		    "r1 c0 #2 PUT send=2 recv=-1 src=INPUT+16 dst=OUTPUT+8 bytes=4\n"
		    "r1 c0 #3 PUT send=2 recv=-1 src=INPUT+20 dst=OUTPUT+12 bytes=4\n"
		    "r1 c0 #4 SIGNAL send=2 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=8\n"
		    "r1 c0 #5 PUT send=0 recv=-1 src=INPUT+0 dst=OUTPUT+8 bytes=4\n"
		    "r1 c0 #6 PUT send=0 recv=-1 src=INPUT+4 dst=OUTPUT+12 bytes=4\n"
		    "r1 c0 #7 SIGNAL send=0 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=8\n"
		    "r1 c1 #0 WAIT send=-1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=2\n"
		    "r2 c0 #0 COPY send=-1 recv=-1 src=INPUT+16 dst=OUTPUT+16 bytes=4\n"
		    "r2 c0 #1 COPY send=-1 recv=-1 src=INPUT+20 dst=OUTPUT+20 bytes=4\n"
		    "r2 c0 #2 PUT send=0 recv=-1 src=INPUT+0 dst=OUTPUT+16 bytes=4\n"
		    "r2 c0 #3 PUT send=0 recv=-1 src=INPUT+4 dst=OUTPUT+20 bytes=4\n"
		    "r2 c0 #4 SIGNAL send=0 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=8\n"
		    "r2 c0 #5 PUT send=1 recv=-1 src=INPUT+8 dst=OUTPUT+16 bytes=4\n"
		    "r2 c0 #6 PUT send=1 recv=-1 src=INPUT+12 dst=OUTPUT+20 bytes=4\n"
		    "r2 c0 #7 SIGNAL send=1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=8\n"
		    "r2 c1 #0 WAIT send=-1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=2\n",
		    2, 1);
}

/*
 * 3 ranks, 2 channels, 24 bytes of floats: blocks of 2 floats (8 bytes);
 * chunk and slice 4 B (one float per step). Distance k = 1 is channel 0's,
 * k = 2 channel 1's (strands 2 and 3). Channel 0's send strand starts with
 * the own COPY; every distance's PUTs are followed by a SIGNAL of the
 * peer's slot 0; the one WAIT (slot 0 >= 2) is on strand 1, and strand 3 is
 * empty.
 */
static void test_golden_put_channels(void)
{
	gs_params p = tu_params(GS_COLL_ALLTOALL, GS_ALGO_PUT, GS_DT_F32, 3, 24, 2, 4, 4, 0);

	expect_dump(p,
		    "r0 c0 #0 COPY send=-1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
		    "r0 c0 #1 COPY send=-1 recv=-1 src=INPUT+4 dst=OUTPUT+4 bytes=4\n"
		    "r0 c0 #2 PUT send=1 recv=-1 src=INPUT+8 dst=OUTPUT+0 bytes=4\n"
		    "r0 c0 #3 PUT send=1 recv=-1 src=INPUT+12 dst=OUTPUT+4 bytes=4\n"
		    "r0 c0 #4 SIGNAL send=1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=8\n"
		    "r0 c1 #0 WAIT send=-1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=2\n"
		    "r0 c2 #0 PUT send=2 recv=-1 src=INPUT+16 dst=OUTPUT+0 bytes=4\n"
		    "r0 c2 #1 PUT send=2 recv=-1 src=INPUT+20 dst=OUTPUT+4 bytes=4\n"
		    "r0 c2 #2 SIGNAL send=2 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=8\n"
		    "r1 c0 #0 COPY send=-1 recv=-1 src=INPUT+8 dst=OUTPUT+8 bytes=4\n"
		    "r1 c0 #1 COPY send=-1 recv=-1 src=INPUT+12 dst=OUTPUT+12 bytes=4\n"
		    "r1 c0 #2 PUT send=2 recv=-1 src=INPUT+16 dst=OUTPUT+8 bytes=4\n"
		    "r1 c0 #3 PUT send=2 recv=-1 src=INPUT+20 dst=OUTPUT+12 bytes=4\n"
		    "r1 c0 #4 SIGNAL send=2 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=8\n"
		    "r1 c1 #0 WAIT send=-1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=2\n"
		    "r1 c2 #0 PUT send=0 recv=-1 src=INPUT+0 dst=OUTPUT+8 bytes=4\n"
		    "r1 c2 #1 PUT send=0 recv=-1 src=INPUT+4 dst=OUTPUT+12 bytes=4\n"
		    "r1 c2 #2 SIGNAL send=0 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=8\n"
		    "r2 c0 #0 COPY send=-1 recv=-1 src=INPUT+16 dst=OUTPUT+16 bytes=4\n"
		    "r2 c0 #1 COPY send=-1 recv=-1 src=INPUT+20 dst=OUTPUT+20 bytes=4\n"
		    "r2 c0 #2 PUT send=0 recv=-1 src=INPUT+0 dst=OUTPUT+16 bytes=4\n"
		    "r2 c0 #3 PUT send=0 recv=-1 src=INPUT+4 dst=OUTPUT+20 bytes=4\n"
		    "r2 c0 #4 SIGNAL send=0 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=8\n"
		    "r2 c1 #0 WAIT send=-1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=2\n"
		    "r2 c2 #0 PUT send=1 recv=-1 src=INPUT+8 dst=OUTPUT+16 bytes=4\n"
		    "r2 c2 #1 PUT send=1 recv=-1 src=INPUT+12 dst=OUTPUT+20 bytes=4\n"
		    "r2 c2 #2 SIGNAL send=1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=8\n",
		    4, 1);
}

static gs_gen *create(gs_params p)
{
	gs_gen *g;
	char *err = NULL;

	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	return g;
}

static void expect_reject(gs_params p, const char *needle)
{
	gs_gen *g;
	char *err = NULL;

	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_ERR_INPUT);
	g_assert_null(g);
	if (!strstr(err, needle))
		g_test_fail_printf("message \"%s\" lacks \"%s\"", err, needle);
	g_free(err);
}

static void test_normalize(void)
{
	gs_gen *g;
	gs_params p;

	/* 103 bytes of floats: 25 elements, 24 for 3 ranks (blocks of 8) */
	g = create(tu_params(GS_COLL_ALLTOALL, GS_ALGO_PAIRWISE, GS_DT_F32, 3, 103, 2, 0, 0, 0));
	g_assert_cmpuint(g->p.bytes, ==, 96);
	g_assert_cmpuint(g->buf_bytes[GS_BUF_INPUT], ==, 96);
	g_assert_cmpuint(g->buf_bytes[GS_BUF_OUTPUT], ==, 96);
	g_assert_cmpuint(g->buf_bytes[GS_BUF_SCRATCH], ==, 0);
	g_assert_cmpint(g->nstrands, ==, 4);
	g_assert_cmpint(g->strands_per_channel, ==, 2);
	g_assert_cmpuint(g->nsignals, ==, 0);
	gs_gen_free(g);

	g = create(tu_params(GS_COLL_ALLTOALL, GS_ALGO_PUT, GS_DT_F64, 5, 8 * 5 * 7 + 39, 3, 0, 0,
			     0));
	g_assert_cmpuint(g->p.bytes, ==, 8 * 5 * 7);
	g_assert_cmpint(g->nstrands, ==, 6);
	g_assert_cmpuint(g->nsignals, ==, 1);
	gs_gen_free(g);

	/* fewer elements than ranks: empty, every strand of every rank */
	g = create(tu_params(GS_COLL_ALLTOALL, GS_ALGO_PUT, GS_DT_F32, 4, 15, 2, 0, 0, 0));
	g_assert_cmpuint(g->p.bytes, ==, 0);
	g_assert_cmpuint(gs_gen_total_steps(g), ==, 0);
	gs_gen_free(g);

	p = tu_params(GS_COLL_ALLTOALL, GS_ALGO_RING, GS_DT_F32, 4, 1024, 1, 0, 0, 0);
	expect_reject(p, "alltoall has the pairwise and put algorithms, not ring");
	p.algo = GS_ALGO_TREE;
	expect_reject(p, "tree algorithm is only defined for allreduce");
	p.coll = GS_COLL_ALLREDUCE;
	p.algo = GS_ALGO_PUT;
	expect_reject(p, "the put algorithm is only defined for alltoall, not allreduce");
	p.coll = GS_COLL_SENDRECV;
	p.algo = GS_ALGO_PAIRWISE;
	expect_reject(p, "the pairwise algorithm is only defined for alltoall, not sendrecv");
}

/*
 * Put: the send strands finish with no WAIT strand ever running (a PUT
 * waits for nothing), and the WAIT strands alone never pass. Pairwise: the
 * send strands finish alone with unlimited buffering, the receive strands
 * alone cannot start.
 */
static void test_independent(void)
{
	gs_params p = tu_params(GS_COLL_ALLTOALL, GS_ALGO_PUT, GS_DT_F32, 5, 4 * 5 * 300, 3, CHUNK,
				SLICE, 0);
	gs_gen *g;
	gs_sched *s = make(p, &g);
	char *where = NULL;

	g_assert_cmpuint(tu_run_bounded(s, 1, 0, &where), ==, 0);
	/* one WAIT per rank, on channel 0's second strand */
	g_assert_cmpuint(tu_run_bounded(s, 1, 1, &where), ==, 5);
	g_assert_cmpstr(where, ==, "r0 c1 #0 (WAIT)");
	g_free(where);
	gs_sched_free(s);
	gs_gen_free(g);

	p.algo = GS_ALGO_PAIRWISE;
	s = make(p, &g);
	g_assert_cmpuint(tu_run_bounded(s, UINT64_MAX, 0, &where), ==, 0);
	g_assert_cmpuint(tu_run_bounded(s, UINT64_MAX, 1, &where), ==, 5 * 3);
	g_assert_cmpstr(where, ==, "r0 c1 #0 (RECV)");
	g_free(where);
	/* and both directions together with single-message buffers */
	g_assert_cmpuint(tu_run_bounded(s, 1, -1, &where), ==, 0);
	gs_sched_free(s);
	gs_gen_free(g);
}

/* One rank: the own block is copied, a COPY per slice on channel 0's send
 * strand, nothing else (no SIGNAL, no WAIT, no other channel). */
static void test_one_rank(void)
{
	for (int a = 0; a < 2; a++) {
		gs_params p = tu_params(GS_COLL_ALLTOALL, a ? GS_ALGO_PUT : GS_ALGO_PAIRWISE,
					GS_DT_F32, 1, 40, 2, 8, 4, 0);
		gs_gen *g;
		gs_sched *s = make(p, &g);
		GString *d = g_string_new(NULL);
		char *err = NULL;

		gs_sched_dump(s, d);
		g_assert_cmpstr(d->str, ==,
				"r0 c0 #0 COPY send=-1 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
				"r0 c0 #1 COPY send=-1 recv=-1 src=INPUT+4 dst=OUTPUT+4 bytes=4\n"
				"r0 c0 #2 COPY send=-1 recv=-1 src=INPUT+8 dst=OUTPUT+8 bytes=4\n"
				"r0 c0 #3 COPY send=-1 recv=-1 src=INPUT+12 dst=OUTPUT+12 bytes=4\n"
				"r0 c0 #4 COPY send=-1 recv=-1 src=INPUT+16 dst=OUTPUT+16 bytes=4\n"
				"r0 c0 #5 COPY send=-1 recv=-1 src=INPUT+20 dst=OUTPUT+20 bytes=4\n"
				"r0 c0 #6 COPY send=-1 recv=-1 src=INPUT+24 dst=OUTPUT+24 bytes=4\n"
				"r0 c0 #7 COPY send=-1 recv=-1 src=INPUT+28 dst=OUTPUT+28 bytes=4\n"
				"r0 c0 #8 COPY send=-1 recv=-1 src=INPUT+32 dst=OUTPUT+32 bytes=4\n"
				"r0 c0 #9 COPY send=-1 recv=-1 src=INPUT+36 dst=OUTPUT+36 bytes=4\n");
		g_assert_cmpint(gs_sched_validate(s, &err), ==, GC_OK);
		g_assert_cmpint(gs_refexec_run(s, &err), ==, GC_OK);
		g_string_free(d, TRUE);
		gs_sched_free(s);
		gs_gen_free(g);
	}
}

/* Step counts in closed form: P = slices of one block; channel c serves
 * the T_c distances k = 1 + c + tC < n. Pairwise: send strand T_c P (plus P
 * for the own COPY on channel 0), receive strand T_c P. Put: send strand
 * T_c (P + 1) (plus P on channel 0), channel 0's WAIT strand 1, the other
 * second strands 0. */
static void test_strand_len(void)
{
	/* 7 ranks, blocks of 1000 floats, 3 channels; chunk 256 B = 64 floats,
	 * slice 64 B = 16 floats: a block is 15 full loops of 4 slices and a
	 * 40-float loop of 3 slices, P = 63; distances 1..6 give every channel
	 * two turns (c0: 1, 4; c1: 2, 5; c2: 3, 6) */
	for (int a = 0; a < 2; a++) {
		gs_params p = tu_params(GS_COLL_ALLTOALL, a ? GS_ALGO_PUT : GS_ALGO_PAIRWISE,
					GS_DT_F32, 7, 7 * 1000 * 4, 3, CHUNK, SLICE, 0);
		gs_gen *g = create(p);

		for (int r = 0; r < 7; r++) {
			for (int c = 0; c < 3; c++) {
				uint64_t send = g->ops->strand_len(g, r, 2 * c);
				uint64_t recv = g->ops->strand_len(g, r, 2 * c + 1);
				uint64_t copy = c == 0 ? 63 : 0;

				g_assert_cmpuint(send, ==, copy + (a ? 2 * 64 : 2 * 63));
				g_assert_cmpuint(recv, ==, a ? (c == 0) : 2 * 63);
			}
		}
		gs_gen_free(g);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/sched/a2a/golden_pairwise", test_golden_pairwise);
	g_test_add_func("/sched/a2a/golden_put", test_golden_put);
	g_test_add_func("/sched/a2a/golden_put_channels", test_golden_put_channels);
	g_test_add_func("/sched/a2a/normalize", test_normalize);
	g_test_add_func("/sched/a2a/independent", test_independent);
	g_test_add_func("/sched/a2a/one_rank", test_one_rank);
	g_test_add_func("/sched/a2a/strand_len", test_strand_len);
	g_test_add_func("/sched/a2a/channels", test_channels);
	g_test_add_func("/sched/a2a/pairwise_sweep", test_pairwise_sweep);
	g_test_add_func("/sched/a2a/put_sweep", test_put_sweep);
	return g_test_run();
}
