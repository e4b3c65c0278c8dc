/* SPDX-License-Identifier: MIT */
/*
 * sched_testutil: shared helpers of the tests/sched suites (header-only,
 * static inline, so every test binary stays a single translation unit as
 * the Makefile builds them).
 *
 * tu_check_case() is the end-to-end check every generator sweep uses:
 * create the generator, materialize, check the shape (strand count,
 * strand_len vs. materialized lengths, slice bound, total steps), run the
 * validator and the reference executor, and compare streaming fills of
 * random windows against the materialized strands. A failing case is
 * reported with g_test_fail_printf() naming the full parameter set, and
 * the sweep goes on, so one run lists every broken case.
 */
#ifndef SCHED_TESTUTIL_H
#define SCHED_TESTUTIL_H

#include <inttypes.h>
#include <string.h>

#include <glib.h>

#include "sim/sched/gs_sched.h"

static inline gs_params tu_params(gs_coll coll, gs_algo algo, gs_dtype dt, int n, uint64_t bytes,
				  int nch, uint64_t chunk, uint64_t slice, int rpn)
{
	gs_params p;

	memset(&p, 0, sizeof(p));
	p.coll = coll;
	p.algo = algo;
	p.dtype = dt;
	p.nranks = n;
	p.bytes = bytes;
	p.nchannels = nch;
	p.chunk_bytes = chunk;
	p.slice_bytes = slice;
	p.ranks_per_node = rpn;
	return p;
}

static inline char *tu_describe(const gs_params *p)
{
	return g_strdup_printf(
		"%s/%s %s n=%d bytes=%" PRIu64 " nch=%d chunk=%" PRIu64 " slice=%" PRIu64 " rpn=%d",
		gs_coll_name(p->coll), gs_algo_name(p->algo), gs_dtype_name(p->dtype), p->nranks,
		p->bytes, p->nchannels, p->chunk_bytes, p->slice_bytes, p->ranks_per_node);
}

/* Streaming fills of nwin random windows of random strands equal the
 * materialized strands. */
static inline bool tu_check_windows(const gs_gen *g, const gs_sched *s, GRand *rnd, int nwin,
				    const char *desc)
{
	gs_step *buf = NULL;
	uint32_t cap = 0;
	bool ok = true;

	for (int w = 0; w < nwin && ok; w++) {
		int r = g_rand_int_range(rnd, 0, s->nranks);
		int c = g_rand_int_range(rnd, 0, s->nstrands);
		uint64_t len, first, n;
		const gs_step *st = gs_sched_strand(s, r, c, &len);

		if (len == 0)
			continue;
		first = (uint64_t)g_rand_double_range(rnd, 0, (double)len);
		first = MIN(first, len - 1);
		n = 1 + (uint64_t)g_rand_double_range(rnd, 0, (double)(len - first));
		n = MIN(n, len - first);
		if (n > cap) {
			cap = (uint32_t)n;
			buf = g_renew(gs_step, buf, cap);
		}
		memset(buf, 0x77, sizeof(gs_step) * n);
		g->ops->fill(g, r, c, first, (uint32_t)n, buf);
		if (memcmp(buf, st + first, sizeof(gs_step) * n) != 0) {
			g_test_fail_printf("%s: fill(r%d c%d, %" PRIu64 ", %" PRIu64
					   ") differs from the materialized strand",
					   desc, r, c, first, n);
			ok = false;
		}
	}
	g_free(buf);
	return ok;
}

/* The whole end-to-end check of one parameter set; true when it passed. */
static inline bool tu_check_case(const gs_params *p, GRand *rnd)
{
	char *desc = tu_describe(p), *err = NULL;
	gs_gen *g = NULL;
	gs_sched *s = NULL;
	gc_status st;
	bool ok = false;
	uint64_t total = 0;

	st = gs_gen_create(p, &g, &err);
	if (st != GC_OK) {
		g_test_fail_printf("%s: gs_gen_create: %s", desc, err);
		goto out;
	}
	s = gs_sched_materialize(g);
	for (int r = 0; r < s->nranks; r++) {
		for (int c = 0; c < s->nstrands; c++) {
			uint64_t len;
			const gs_step *steps = gs_sched_strand(s, r, c, &len);

			total += len;
			if (len != g->ops->strand_len(g, r, c)) {
				g_test_fail_printf("%s: strand_len mismatch r%d c%d", desc, r, c);
				goto out;
			}
			for (uint64_t i = 0; i < len; i++) {
				if (steps[i].bytes == 0 || steps[i].bytes > g->p.slice_bytes) {
					g_test_fail_printf("%s: r%d c%d #%" PRIu64 " has %" PRIu64
							   " bytes (slice %" PRIu64 ")",
							   desc, r, c, i, steps[i].bytes,
							   g->p.slice_bytes);
					goto out;
				}
			}
		}
	}
	if (total != gs_gen_total_steps(g)) {
		g_test_fail_printf("%s: gs_gen_total_steps %" PRIu64 " != %" PRIu64, desc,
				   gs_gen_total_steps(g), total);
		goto out;
	}
	st = gs_sched_validate(s, &err);
	if (st != GC_OK) {
		g_test_fail_printf("%s: validate: %s", desc, err);
		goto out;
	}
	st = gs_refexec_run(s, &err);
	if (st != GC_OK) {
		g_test_fail_printf("%s: refexec: %s", desc, err);
		goto out;
	}
	ok = tu_check_windows(g, s, rnd, 4, desc);
out:
	g_free(err);
	g_free(desc);
	gs_sched_free(s);
	gs_gen_free(g);
	return ok;
}

/* A ranks_per_node value for n ranks, picked by k cyclically among those of
 * 1, 2, 4, 8 that divide n and 0 (all ranks on one node). */
static inline int tu_rpn(int n, int k)
{
	int opts[5], m = 0;

	for (int v = 1; v <= 8; v *= 2)
		if (n % v == 0)
			opts[m++] = v;
	opts[m++] = 0;
	return opts[k % m];
}

#endif
