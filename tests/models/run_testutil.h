/* SPDX-License-Identifier: MIT */
/*
 * run_testutil: run a scenario given as YAML text through gm_run_scenario
 * (the whole `gcsim run` path short of printing), or check that it is
 * refused with a message naming what is wrong. Header-only, static inline,
 * for the tests/models suites.
 */
#ifndef RUN_TESTUTIL_H
#define RUN_TESTUTIL_H

#include <glib.h>
#include <math.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/models/closed/gm_proto.h"
#include "sim/models/run/gm_run.h"
#include "sim/models/report/gm_report.h"

/* The YAML text in a temporary scenario file; g_unlink and g_free it. */
static inline char *scenario_file(const char *yaml)
{
	char *path = NULL;
	int fd = g_file_open_tmp("gcsim-test-XXXXXX.yaml", &path, NULL);
	g_assert_cmpint(fd, >=, 0);
	close(fd);
	g_assert_true(g_file_set_contents(path, yaml, -1, NULL));
	return path;
}

/* The scenario run with options o (its sets, the breakdown, ...). */
static inline gm_run *run_yaml_with(const char *yaml, const gm_run_opts *o)
{
	char *path = scenario_file(yaml);
	gm_run *r = NULL;
	char *err = NULL;
	gc_status st = gm_run_scenario(path, o, &r, &err);
	if (st != GC_OK)
		g_test_message("%s", err);
	g_assert_cmpint(st, ==, GC_OK);
	g_unlink(path);
	g_free(path);
	g_free(err);
	return r;
}

static inline gm_run *run_yaml(const char *yaml, const char *const *sets)
{
	gm_run_opts o = {.sets = sets};
	return run_yaml_with(yaml, &o);
}

/* A scenario that must be refused with options o; err names `what`. */
static inline void expect_refused_with(const char *yaml, const gm_run_opts *o, const char *what)
{
	char *path = scenario_file(yaml);
	gm_run *r = NULL;
	char *err = NULL;
	g_assert_cmpint(gm_run_scenario(path, o, &r, &err), ==, GC_ERR_INPUT);
	g_assert_null(r);
	if (!strstr(err, what))
		g_test_fail_printf("'%s' does not say '%s'", err, what);
	g_unlink(path);
	g_free(path);
	g_free(err);
}

/* A scenario that must be refused; err names the key. */
static inline void expect_refused(const char *yaml, const char *const *sets, const char *what)
{
	gm_run_opts o = {.sets = sets};
	expect_refused_with(yaml, &o, what);
}

/* The scenario's default (sets `dflt`) runs exactly as the setting it
 * should stand for given explicitly (`given`), and differently from
 * another one (`other`), at its first size; `what` names the case. */
static inline void expect_default_is(const char *yaml, const char *const *dflt,
				     const char *const *given, const char *const *other,
				     const char *what)
{
	gm_run *d = run_yaml(yaml, dflt), *g = run_yaml(yaml, given), *o = run_yaml(yaml, other);
	g_test_message("%s: default %.2f us, given %.2f us, other %.2f us", what, d->pts[0].time_us,
		       g->pts[0].time_us, o->pts[0].time_us);
	g_assert_cmpfloat(d->pts[0].time_us, ==, g->pts[0].time_us);
	g_assert_cmpfloat(d->pts[0].time_us, !=, o->pts[0].time_us);
	gm_run_free(d);
	gm_run_free(g);
	gm_run_free(o);
}

/* The closed form (sim.fidelity=analytical added to sets) within a
 * relative tol of the scenario as given (a flow or packet run), at every
 * size. */
static inline void expect_closed_form_near(const char *yaml, const char *const *sets, double tol)
{
	GPtrArray *ana = g_ptr_array_new();
	for (size_t i = 0; sets && sets[i]; i++)
		g_ptr_array_add(ana, (gpointer)sets[i]);
	g_ptr_array_add(ana, (gpointer) "sim.fidelity=analytical");
	g_ptr_array_add(ana, NULL);
	gm_run *f = run_yaml(yaml, sets), *a = run_yaml(yaml, (const char *const *)ana->pdata);
	g_assert_cmpuint(f->npts, ==, a->npts);
	for (size_t i = 0; i < f->npts; i++) {
		g_test_message("%llu B: run %.2f us, closed form %.2f us",
			       (unsigned long long)f->pts[i].bytes, f->pts[i].time_us, a->pts[i].time_us);
		g_assert_cmpfloat(fabs(a->pts[i].time_us - f->pts[i].time_us) / f->pts[i].time_us, <, tol);
	}
	gm_run_free(f);
	gm_run_free(a);
	g_ptr_array_free(ana, TRUE);
}

/* Every point of a (an algo auto run of yaml) is what a run with its
 * chosen algorithm, protocol and size forced gives, to the picosecond;
 * `extra` (NULL-terminated, up to 4) is added to those runs' settings. */
static inline void expect_points_are_forced_runs(const char *yaml, const gm_run *a,
						 const char *const *extra)
{
	for (size_t i = 0; i < a->npts; i++) {
		char *s1 = g_strdup_printf("collective.algo=%s", gs_algo_name((gs_algo)a->pts[i].algo));
		char *s2 = g_strdup_printf("collective.protocol=%s",
					   gm_proto_get((gm_proto)a->pts[i].proto)->name);
		char *s3 = g_strdup_printf("collective.sizes=%lluB", (unsigned long long)a->pts[i].bytes);
		const char *sets[8] = {s1, s2, s3};
		for (int k = 0; extra && extra[k] && k < 4; k++)
			sets[3 + k] = extra[k];
		gm_run *b = run_yaml(yaml, sets);
		g_assert_cmpint(b->pts[0].r.time_ps, ==, a->pts[i].r.time_ps);
		gm_run_free(b);
		g_free(s1);
		g_free(s2);
		g_free(s3);
	}
}

/* The results file r writes (CSV) holds `needle`. */
static inline void expect_results_hold(const gm_run *r, const char *needle)
{
	char *path = NULL;
	int fd = g_file_open_tmp("gcsim-results-XXXXXX.csv", &path, NULL);
	close(fd);
	char *err = NULL;
	g_assert_cmpint(gm_run_save_results(r, path, "test", &err), ==, GC_OK);
	char *text = NULL;
	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	if (!strstr(text, needle))
		g_test_fail_printf("the results file does not hold '%s'", needle);
	g_free(text);
	g_unlink(path);
	g_free(path);
}

/* One scenario (after "schema_version: 1\n") per path through the flow
 * executor, for properties that must hold on every one: two-sided steps with
 * credits (ring across nodes, tree with LL128), the switch's units (nvlstree,
 * NVLS allgather), all-to-all, one-sided PUT/SIGNAL/WAIT, the proxy's FIFO
 * over back-to-back operations, and a host thread driving several GPUs. */
typedef struct exec_case {
	const char *what, *yaml;
} exec_case;

static inline const exec_case *exec_cases(size_t *n)
{
	static const exec_case cases[] = {
		{"ring across nodes", "topology: {preset: dgx-h100, nodes: 2}\n"
				      "collective: {op: allreduce, algo: ring, protocol: auto, sizes: [8B, "
				      "1MiB, 64MiB]}\n"},
		{"tree, LL128", "topology: {preset: dgx-h100, nodes: 4}\n"
				"collective: {op: allreduce, algo: tree, protocol: ll128, sizes: [64KiB, "
				"16MiB]}\n"},
		{"nvlstree", "topology: {preset: dgx-h100, nodes: 2}\n"
			     "collective: {op: allreduce, algo: nvlstree, sizes: [1MiB, 64MiB]}\n"},
		{"nvls allgather", "topology: {preset: dgx-h100, nodes: 1}\n"
				   "collective: {op: allgather, algo: nvls, sizes: [4MiB]}\n"},
		{"all-to-all", "topology: {preset: dgx-h100, nodes: 2}\n"
			       "collective: {op: alltoall, sizes: [1MiB, 16MiB]}\n"},
		{"dispatch (PUT, SIGNAL, WAIT)",
		 "topology: {preset: dgx-h100, nodes: 2}\n"
		 "collective: {op: dispatch, algo: put, sizes: [7168B]}\n"
		 "moe: {tokens: 64, topk: 8, experts: 64}\n"},
		{"CPU proxy, 3 operations", "topology: {preset: dgx-h100, nodes: 2}\n"
					    "collective: {op: allreduce, algo: ring, sizes: [1MiB, 64MiB], "
					    "iters: 3}\n"
					    "sim: {net_send: proxy}\n"},
		{"one thread, 8 GPUs, 4 operations",
		 "topology: {preset: dgx-h100, nodes: 1}\n"
		 "collective: {op: reducescatter, algo: ring, sizes: [64KiB, 8MiB], iters: 4, "
		 "gpus_per_thread: 8}\n"},
	};
	*n = G_N_ELEMENTS(cases);
	return cases;
}

#endif
