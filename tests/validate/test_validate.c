/* SPDX-License-Identifier: MIT */
/*
 * Tests of the results store (schema, batches, round trips through SQLite
 * and CSV), the reference-CSV loader, the point-by-point comparison with
 * tolerance bands, and the nccl-tests log importer, on fixtures in
 * tests/validate/data.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "sim/core/gc_results.h"
#include "validate/gv_validate.h"

static char *data_path(const char *name)
{
	char *dir = g_path_get_dirname(__FILE__);
	char *p = g_build_filename(dir, "data", name, NULL);
	g_free(dir);
	return p;
}

static void pt_set(gc_result_point *p, const char *coll, const char *algo, int nranks,
		   uint64_t bytes, double t)
{
	gc_result_point_init(p);
	g_strlcpy(p->collective, coll, sizeof(p->collective));
	g_strlcpy(p->algo, algo, sizeof(p->algo));
	p->nranks = nranks;
	p->size_bytes = bytes;
	p->time_us = t;
}

static void test_results_roundtrip(void)
{
	char *dir = g_dir_make_tmp("gcres-XXXXXX", NULL);
	char *db = g_build_filename(dir, "r.sqlite", NULL);
	char *err = NULL;
	gc_results *r = NULL;
	g_assert_cmpint(gc_results_open(db, true, &r, &err), ==, GC_OK);
	int64_t id = 0;
	gc_result_point p;
	pt_set(&p, "allreduce", "ring", 4, 1048576, 42.5);
	p.min_us = 40;
	g_strlcpy(p.dtype, "float", sizeof(p.dtype));
	/* A write outside a transaction is refused. */
	gc_run_info info = {.kind = "hw", .label = "t", .device = "dev", .created = "2025-01-02T03:04:05Z",
			    .command = "gcsim hw bench"};
	g_assert_cmpint(gc_results_insert_run(r, &info, &id, &err), ==, GC_ERR_INTERNAL);
	g_clear_pointer(&err, g_free);
	/* A rolled-back batch leaves nothing. */
	g_assert_cmpint(gc_results_begin(r, &err), ==, GC_OK);
	g_assert_cmpint(gc_results_insert_run(r, &info, &id, &err), ==, GC_OK);
	gc_results_rollback(r);
	g_assert_cmpint(gc_results_last_run(r, NULL, &id, &err), ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, db));
	g_clear_pointer(&err, g_free);
	/* A committed batch is read back field by field. */
	g_assert_cmpint(gc_results_begin(r, &err), ==, GC_OK);
	g_assert_cmpint(gc_results_insert_run(r, &info, &id, &err), ==, GC_OK);
	g_assert_cmpint(gc_results_insert_point(r, id, &p, &err), ==, GC_OK);
	g_assert_cmpint(gc_results_insert_param(r, id, "launch_latency", 4.5, "us", &err), ==, GC_OK);
	g_assert_cmpint(gc_results_commit(r, &err), ==, GC_OK);
	gc_results_close(r);

	g_assert_cmpint(gc_results_open(db, false, &r, &err), ==, GC_OK);
	int64_t last = 0;
	g_assert_cmpint(gc_results_last_run(r, "hw", &last, &err), ==, GC_OK);
	g_assert_cmpint(last, ==, id);
	gc_run_row row;
	g_assert_cmpint(gc_results_get_run(r, id, &row, &err), ==, GC_OK);
	g_assert_cmpstr(row.kind, ==, "hw");
	g_assert_cmpstr(row.created, ==, "2025-01-02T03:04:05Z");
	g_assert_null(row.scenario);
	gc_run_row_clear(&row);
	gc_result_point *got = NULL;
	size_t n = 0;
	g_assert_cmpint(gc_results_get_points(r, id, &got, &n, &err), ==, GC_OK);
	g_assert_cmpuint(n, ==, 1);
	g_assert_cmpstr(got[0].collective, ==, "allreduce");
	g_assert_cmpstr(got[0].dtype, ==, "float");
	g_assert_cmpuint(got[0].size_bytes, ==, 1048576);
	g_assert_cmpfloat(got[0].time_us, ==, 42.5);
	g_assert_cmpfloat(got[0].min_us, ==, 40);
	g_assert_true(isnan(got[0].p99_us));
	gc_param_row *prm = NULL;
	g_assert_cmpint(gc_results_get_params(r, id, &prm, &n, &err), ==, GC_OK);
	g_assert_cmpuint(n, ==, 1);
	g_assert_cmpstr(prm[0].key, ==, "launch_latency");
	g_assert_cmpfloat(prm[0].value, ==, 4.5);
	g_free(prm);
	gc_results_close(r);

	/* CSV round trip keeps the metadata and every field. */
	char *csv = g_build_filename(dir, "p.csv", NULL);
	FILE *f = fopen(csv, "w");
	g_assert_cmpint(gc_results_write_csv(f, &info, got, 1), ==, GC_OK);
	fclose(f);
	gc_result_point *back = NULL;
	g_assert_cmpint(gc_results_read_csv(csv, &row, &back, &n, &err), ==, GC_OK);
	g_assert_cmpuint(n, ==, 1);
	g_assert_cmpstr(row.device, ==, "dev");
	g_assert_cmpstr(back[0].algo, ==, "ring");
	g_assert_cmpfloat(back[0].time_us, ==, 42.5);
	g_assert_true(isnan(back[0].median_us));
	gc_run_row_clear(&row);
	g_free(back);
	g_free(got);

	/* A file from a newer schema is refused with its name in the message. */
	g_assert_cmpint(gc_results_open(db, false, &r, &err), ==, GC_OK);
	gc_results_close(r);
	/* Not a database at all. */
	g_assert_cmpint(gc_results_open(csv, false, &r, &err), ==, GC_ERR_IO);
	g_assert_nonnull(strstr(err, csv));
	g_clear_pointer(&err, g_free);
	/* A missing file without create. */
	char *missing = g_build_filename(dir, "none.sqlite", NULL);
	g_assert_cmpint(gc_results_open(missing, false, &r, &err), ==, GC_ERR_IO);
	g_assert_nonnull(strstr(err, missing));
	g_assert_false(g_file_test(missing, G_FILE_TEST_EXISTS));
	g_clear_pointer(&err, g_free);
	g_free(missing);

	g_remove(csv);
	g_remove(db);
	char *wal = g_strdup_printf("%s-wal", db), *shm = g_strdup_printf("%s-shm", db);
	g_remove(wal);
	g_remove(shm);
	g_rmdir(dir);
	g_free(wal);
	g_free(shm);
	g_free(csv);
	g_free(db);
	g_free(dir);
}

static void test_reference_csv(void)
{
	char *path = data_path("reference.csv"), *err = NULL;
	gc_result_point *p = NULL;
	size_t n = 0;
	g_assert_cmpint(gv_load_points(path, &p, &n, &err), ==, GC_OK);
	g_assert_cmpuint(n, ==, 3); /* the row without any figure is skipped */
	g_assert_cmpfloat(p[0].time_us, ==, 100);
	/* 2e6 B at 20 GB/s */
	g_assert_cmpfloat_with_epsilon(p[1].time_us, 2e6 / 20e9 * 1e6, 1e-9);
	/* allgather over 8 ranks: algbw = busbw / (7/8) */
	g_assert_cmpstr(p[2].collective, ==, "allgather");
	g_assert_cmpfloat_with_epsilon(p[2].time_us, 7e6 / (35.0 / (7.0 / 8.0) * 1e9) * 1e6, 1e-9);
	g_free(p);
	g_free(path);
}

/* A published p5 sweep (validate/published/p5_efa_OP_sweep.csv): every row
 * loads as OP on 16 to 256 ranks in whole nodes, and its two bandwidth
 * columns agree with nccl-tests' factor for OP, which catches a row copied
 * wrong. Returns the points (n of them) for the caller's own checks. */
static gc_result_point *load_p5_sweep(const char *op, size_t expect)
{
	char *dir = g_path_get_dirname(__FILE__);
	char *file = g_strdup_printf("p5_efa_%s_sweep.csv", op);
	char *path = g_build_filename(dir, "..", "..", "validate", "published", file, NULL);
	g_free(dir);
	g_free(file);
	gc_result_point *p = NULL;
	size_t n = 0;
	char *err = NULL;
	g_assert_cmpint(gv_load_points(path, &p, &n, &err), ==, GC_OK);
	g_assert_cmpuint(n, ==, expect);
	for (size_t i = 0; i < n; i++) {
		g_assert_cmpstr(p[i].collective, ==, op);
		g_assert_true(p[i].nranks % 8 == 0 && p[i].nranks >= 16 && p[i].nranks <= 256);
		double algbw = (double)p[i].size_bytes / (p[i].time_us * 1e-6) * 1e-9;
		double factor = (double)(p[i].nranks - 1) / p[i].nranks;
		if (!strcmp(op, "allreduce"))
			factor *= 2;
		g_assert_cmpfloat(fabs(p[i].busbw_GBps / (algbw * factor) - 1), <, 0.01);
	}
	g_free(path);
	return p;
}

/* The allreduce sweep names the algorithm the AWS tuner ran ("default" on
 * two nodes, where it leaves the choice to NCCL); the allgather sweep
 * leaves every choice to NCCL (the tuner has no allgather regions at 8
 * GPUs a node) and alltoall has none to make: "default" throughout. */
static void test_p5_sweep_data(void)
{
	gc_result_point *p = load_p5_sweep("allreduce", 45);
	for (size_t i = 0; i < 45; i++) {
		if (p[i].nranks == 16)
			g_assert_cmpstr(p[i].algo, ==, "default");
		else
			g_assert_true(!strcmp(p[i].algo, "default(ring)") ||
				      !strcmp(p[i].algo, "default(tree)") ||
				      !strcmp(p[i].algo, "default(nvlstree)"));
	}
	g_free(p);
	const char *ops[] = {"allgather", "alltoall"};
	for (int k = 0; k < 2; k++) {
		p = load_p5_sweep(ops[k], 35);
		for (size_t i = 0; i < 35; i++) {
			g_assert_cmpstr(p[i].algo, ==, "default");
			g_assert_cmpuint(p[i].size_bytes, >=, 32u << 20);
			g_assert_cmpuint(p[i].size_bytes, <=, 2048ull << 20);
		}
		g_free(p);
	}
}

static void test_compare_bands(void)
{
	gc_result_point m[4], pr[3];
	pt_set(&m[0], "allreduce", "ring", 8, 1000, 100);
	pt_set(&m[1], "allreduce", "ring", 8, 2000, 200);
	pt_set(&m[2], "allreduce", "tree", 8, 2000, 50);
	pt_set(&m[3], "allgather", "ring", 8, 4000, 10); /* no prediction */
	pt_set(&pr[0], "allreduce", "ring", 8, 1000, 101);   /* +1 % */
	pt_set(&pr[1], "allreduce", "", 8, 2000, 192);	     /* -4 %, empty algo matches */
	pt_set(&pr[2], "allreduce", "tree", 8, 2000, 60);    /* wrong algo is skipped before */
	char *bp = data_path("bands.csv"), *err = NULL;
	gv_band *b = NULL;
	size_t nb = 0;
	g_assert_cmpint(gv_bands_load(bp, &b, &nb, &err), ==, GC_OK);
	g_assert_cmpuint(nb, ==, 3);
	gv_report r;
	g_assert_cmpint(gv_compare(m, 4, pr, 3, b, nb, 5, 15, &r, &err), ==, GC_OK);
	g_assert_cmpuint(r.nrows, ==, 3);
	g_assert_cmpuint(r.unmatched, ==, 1);
	g_assert_cmpfloat_with_epsilon(r.rows[0].err_pct, 1.0, 1e-9);
	g_assert_cmpstr(r.rows[0].band, ==, "tight");
	g_assert_cmpfloat_with_epsilon(r.rows[1].err_pct, -4.0, 1e-9);
	g_assert_cmpstr(r.rows[1].band, ==, "pass");
	/* tree: the ring/empty-algo prediction (192) comes first in the list */
	g_assert_cmpfloat_with_epsilon(r.rows[2].err_pct, 284.0, 1e-9);
	g_assert_cmpstr(r.rows[2].band, ==, "fail");
	g_assert_cmpfloat_with_epsilon(r.median_abs_pct, 4.0, 1e-9);
	g_assert_false(r.pass);
	/* and the tree prediction (60) matched it too: the report says the
	 * pick among several was the first */
	g_assert_cmpuint(r.ambiguous, ==, 1);
	GString *g = g_string_new(NULL);
	gv_report_table(&r, g);
	g_assert_nonnull(strstr(g->str, "FAIL"));
	g_assert_nonnull(strstr(g->str, "# 1 of them matched several predictions of different times"));
	g_string_truncate(g, 0);
	gv_report_csv(&r, g);
	g_assert_true(g_str_has_prefix(g->str, "collective,algo,nranks,size_bytes,measured_us"));
	g_assert_nonnull(strstr(g->str, "allreduce,ring,8,1000,100,101,1.0000,tight"));
	/* by size: all three below 1 MiB, median |error| 4 %, from -4 to +284 %;
	 * bands without points get no line */
	g_string_truncate(g, 0);
	gv_report_by_size(&r, g);
	g_assert_nonnull(strstr(g->str, "#   below 1 MiB            3    4.00%   -4.00% to +284.00%\n"));
	g_assert_null(strstr(g->str, "256 MiB"));
	g_string_free(g, TRUE);
	gv_report_clear(&r);
	/* Within tolerance when the outlier is gone; nothing ambiguous, and
	 * the report has no line about it. */
	g_assert_cmpint(gv_compare(m, 2, pr, 2, b, nb, 5, 15, &r, &err), ==, GC_OK);
	g_assert_true(r.pass);
	g_assert_cmpuint(r.ambiguous, ==, 0);
	g = g_string_new(NULL);
	gv_report_table(&r, g);
	g_assert_null(strstr(g->str, "several predictions"));
	g_string_free(g, TRUE);
	gv_report_clear(&r);
	/* Nothing matches: an input error naming the counts. */
	g_assert_cmpint(gv_compare(&m[3], 1, pr, 3, b, nb, 5, 15, &r, &err), ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, "1 measured"));
	g_free(err);
	g_free(b);
	g_free(bp);
}

/* Two predictions of one point (two runs in one results file, or a sweep
 * over a key the match does not see): the first in the file is compared,
 * and the report counts the points where the others disagree with it. The
 * same time twice is no ambiguity. */
static void test_compare_several_predictions(void)
{
	/* (size, time): two measured points; four predictions, the third
	 * another run's, the fourth the same time again */
	static const double meas[2][2] = {{1000, 100}, {2000, 200}};
	static const double pred[4][2] = {{1000, 110}, {2000, 220}, {1000, 90}, {2000, 220}};
	gc_result_point m[2], pr[4];
	for (int i = 0; i < 4; i++) {
		if (i < 2)
			pt_set(&m[i], "allreduce", "ring", 8, (uint64_t)meas[i][0], meas[i][1]);
		pt_set(&pr[i], "allreduce", "ring", 8, (uint64_t)pred[i][0], pred[i][1]);
	}
	char *err = NULL;
	gv_report r;
	g_assert_cmpint(gv_compare(m, 2, pr, 4, NULL, 0, 5, 15, &r, &err), ==, GC_OK);
	g_assert_cmpuint(r.nrows, ==, 2);
	g_assert_cmpfloat_with_epsilon(r.rows[0].err_pct, 10.0, 1e-9); /* the first, 110 */
	g_assert_cmpfloat_with_epsilon(r.rows[1].err_pct, 10.0, 1e-9);
	g_assert_cmpuint(r.ambiguous, ==, 1);
	GString *g = g_string_new(NULL);
	gv_report_table(&r, g);
	g_assert_nonnull(strstr(g->str, "# compared 2 points (0 without a prediction)\n"
					"# 1 of them matched several predictions of different times"));
	g_string_free(g, TRUE);
	gv_report_clear(&r);
	/* the order of the file decides: 90 first, -10 % */
	gc_result_point sw[2] = {pr[2], pr[0]};
	g_assert_cmpint(gv_compare(m, 1, sw, 2, NULL, 0, 5, 15, &r, &err), ==, GC_OK);
	g_assert_cmpfloat_with_epsilon(r.rows[0].err_pct, -10.0, 1e-9);
	g_assert_cmpuint(r.ambiguous, ==, 1);
	gv_report_clear(&r);
}

/* A published "default(nvls)" row is NCCL running nvls by its own choice:
 * it matches an nvls prediction, not a ring one, nor "nvls2". A plain
 * "default" row takes the fastest prediction. */
static void test_default_algo_matches(void)
{
	gc_result_point m[1], pr[3];
	pt_set(&m[0], "allreduce", "default(nvls)", 8, 1000, 100);
	pt_set(&pr[0], "allreduce", "ring", 8, 1000, 300);
	pt_set(&pr[1], "allreduce", "nvls2", 8, 1000, 200);
	pt_set(&pr[2], "allreduce", "nvls", 8, 1000, 110);
	char *err = NULL;
	gv_report r;
	g_assert_cmpint(gv_compare(m, 1, pr, 3, NULL, 0, 5, 15, &r, &err), ==, GC_OK);
	g_assert_cmpuint(r.nrows, ==, 1);
	g_assert_cmpfloat_with_epsilon(r.rows[0].err_pct, 10.0, 1e-9);
	gv_report_clear(&r);
	/* no nvls prediction: nothing matches */
	g_assert_cmpint(gv_compare(m, 1, pr, 2, NULL, 0, 5, 15, &r, &err), ==, GC_ERR_INPUT);
	g_free(err);
	err = NULL;
	/* a plain "default" row: NCCL's tuner ran what it predicts fastest,
	 * so the fastest prediction of any algorithm stands for it, and the
	 * report names which */
	pt_set(&m[0], "allreduce", "default", 8, 1000, 100);
	pt_set(&pr[2], "allreduce", "nvls", 8, 2000, 110); /* another size */
	g_assert_cmpint(gv_compare(m, 1, pr, 3, NULL, 0, 5, 15, &r, &err), ==, GC_OK);
	g_assert_cmpuint(r.nrows, ==, 1);
	g_assert_cmpstr(r.rows[0].predicted.algo, ==, "nvls2");
	g_assert_cmpfloat_with_epsilon(r.rows[0].err_pct, 100.0, 1e-9);
	GString *g = g_string_new(NULL);
	gv_report_table(&r, g);
	g_assert_nonnull(strstr(g->str, "default(nvls2)"));
	g_string_free(g, TRUE);
	gv_report_clear(&r);
	/* a prediction of NCCL's own pick (gcsim run with collective.tuner
	 * nccl writes it "default(X)") stands for a plain "default" row, even
	 * where a forced algorithm's prediction is faster; the report keeps
	 * its name once */
	pt_set(&pr[2], "allreduce", "default(tree)", 8, 1000, 400);
	g_assert_cmpint(gv_compare(m, 1, pr, 3, NULL, 0, 5, 15, &r, &err), ==, GC_OK);
	g_assert_cmpuint(r.nrows, ==, 1);
	g_assert_cmpstr(r.rows[0].predicted.algo, ==, "default(tree)");
	g_assert_cmpfloat_with_epsilon(r.rows[0].err_pct, 300.0, 1e-9);
	g = g_string_new(NULL);
	gv_report_table(&r, g);
	g_assert_nonnull(strstr(g->str, "default(tree)"));
	g_assert_null(strstr(g->str, "default(default("));
	g_string_free(g, TRUE);
	gv_report_clear(&r);
	/* and a forced row ("ring") never takes NCCL's pick */
	pt_set(&m[0], "allreduce", "ring", 8, 1000, 100);
	pt_set(&pr[0], "allreduce", "default(ring)", 8, 1000, 300);
	g_assert_cmpint(gv_compare(m, 1, pr, 1, NULL, 0, 5, 15, &r, &err), ==, GC_ERR_INPUT);
	g_free(err);
}

static void test_nccltests_import(void)
{
	char *path = data_path("allreduce_new.log"), *err = NULL;
	gc_result_point *p = NULL;
	size_t n = 0;
	gv_nccltests_setup su;
	g_assert_cmpint(gv_nccltests_parse(path, NULL, 0, false, &p, &n, &su, &err), ==, GC_OK);
	g_assert_cmpuint(n, ==, 3);
	/* one GPU per process; "warmup iters: 1 iters: 20 agg iters: 1" */
	g_assert_cmpint(su.gpus_per_thread, ==, 1);
	g_assert_cmpint(su.iters, ==, 20);
	g_assert_cmpint(p[0].iters, ==, 20);
	g_assert_cmpstr(p[0].collective, ==, "allreduce");
	g_assert_cmpint(p[0].nranks, ==, 4);
	g_assert_cmpuint(p[2].size_bytes, ==, 1048576);
	g_assert_cmpuint(p[2].count, ==, 262144);
	g_assert_cmpfloat(p[2].time_us, ==, 40.0);
	g_assert_cmpfloat(p[2].busbw_GBps, ==, 39.32);
	g_free(p);
	g_free(path);

	path = data_path("alltoall_old.log");
	g_assert_cmpint(gv_nccltests_parse(path, NULL, 8, false, &p, &n, &su, &err), ==, GC_OK);
	g_assert_cmpuint(n, ==, 2);
	/* one process driving 8 GPUs (-g 8) */
	g_assert_cmpint(su.gpus_per_thread, ==, 8);
	g_assert_cmpint(su.iters, ==, 20);
	g_assert_cmpstr(p[1].collective, ==, "alltoall");
	g_assert_cmpfloat(p[1].time_us, ==, 25.0);
	g_assert_cmpint(p[1].nranks, ==, 8);
	g_free(p);
	/* No rank lines and no --nranks: refused with a reason. */
	g_assert_cmpint(gv_nccltests_parse(path, NULL, 0, false, &p, &n, NULL, &err), ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, "rank count"));
	g_clear_pointer(&err, g_free);
	g_free(path);
	/* A published -g 8 log: one process, 8 Rank lines, nGpus 8, 20 iters. */
	path = data_path("all_gather_g8_h100.log");
	g_assert_cmpint(gv_nccltests_parse(path, NULL, 0, false, &p, &n, &su, &err), ==, GC_OK);
	g_assert_cmpuint(n, ==, 8);
	g_assert_cmpstr(p[0].collective, ==, "allgather");
	g_assert_cmpint(p[0].nranks, ==, 8);
	g_assert_cmpfloat(p[7].time_us, ==, 732.93);
	g_assert_cmpint(su.gpus_per_thread, ==, 8);
	g_assert_cmpint(su.iters, ==, 20);
	g_free(p);
	g_free(path);
	/* A malformed row names its line. */
	path = data_path("bands.csv");
	g_assert_cmpint(gv_nccltests_parse(path, "allreduce", 2, false, &p, &n, NULL, &err), ==, GC_ERR_INPUT);
	g_free(err);
	g_free(path);
}

/* Writes text to dir/name; the path (g_free). */
static char *write_file(const char *dir, const char *name, const char *text)
{
	char *p = g_build_filename(dir, name, NULL);
	g_assert_true(g_file_set_contents(p, text, -1, NULL));
	return p;
}

/* Rows nccl-tests marked wrong, collective names and rank counts: refused
 * with the reason (and nothing returned) unless the caller accepts them. */
static void test_nccltests_checks(void)
{
	char *dir = g_dir_make_tmp("gcwrong-XXXXXX", NULL), *err = NULL, *text = NULL;
	char *good = data_path("allreduce_new.log"), *old = data_path("alltoall_old.log");
	gc_result_point *p = NULL;
	size_t n = 0;
	gv_nccltests_setup su;

	/* #wrong 3 in place at 8192 B, 1 out of place at 1 MiB */
	g_assert_true(g_file_get_contents(good, &text, NULL, NULL));
	GString *g = g_string_new(text);
	g_free(text);
	char *at = strstr(g->str, "11.80    0.69    1.04      0");
	g_assert_nonnull(at);
	at[strlen("11.80    0.69    1.04      0") - 1] = '3';
	at = strstr(g->str, "26.21   39.32      0");
	g_assert_nonnull(at);
	at[strlen("26.21   39.32      0") - 1] = '1';
	char *wrong = write_file(dir, "wrong.log", g->str);
	g_string_free(g, TRUE);
	g_assert_cmpint(gv_nccltests_parse(wrong, NULL, 0, false, &p, &n, &su, &err), ==,
			GC_ERR_INPUT);
	g_assert_null(p);
	g_assert_cmpuint(n, ==, 0);
	g_assert_nonnull(strstr(err, "nccl-tests marked 2 rows wrong"));
	g_assert_nonnull(strstr(err, "sizes 8192, 1048576 B; pass --accept-wrong"));
	g_clear_pointer(&err, g_free);
	g_assert_cmpint(gv_nccltests_parse(wrong, NULL, 0, true, &p, &n, &su, &err), ==, GC_OK);
	g_assert_cmpuint(n, ==, 3);
	g_assert_cmpuint(su.wrong, ==, 2);
	g_free(p);
	/* the clean log: nothing wrong */
	g_assert_cmpint(gv_nccltests_parse(good, NULL, 0, false, &p, &n, &su, &err), ==, GC_OK);
	g_assert_cmpuint(su.wrong, ==, 0);
	g_free(p);
	/* an older log (an "error" column, no verdict per row) whose check failed */
	g_assert_true(g_file_get_contents(old, &text, NULL, NULL));
	g = g_string_new(text);
	g_free(text);
	at = strstr(g->str, ": 0 OK");
	g_assert_nonnull(at);
	memcpy(at, ": 4 FA", 6);
	char *oob = write_file(dir, "oob.log", g->str);
	g_string_free(g, TRUE);
	g_assert_cmpint(gv_nccltests_parse(oob, NULL, 8, false, &p, &n, &su, &err), ==,
			GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, ":6: nccl-tests found 4 out-of-bounds values"));
	g_clear_pointer(&err, g_free);
	g_assert_cmpint(gv_nccltests_parse(oob, NULL, 8, true, &p, &n, &su, &err), ==, GC_OK);
	g_assert_cmpuint(su.wrong, ==, 2);
	g_free(p);
	/* names: gcsim's and nccl-tests' spellings, nothing else */
	char c[32];
	g_assert_true(gv_nccltests_collective("reduce_scatter", c, sizeof(c)));
	g_assert_cmpstr(c, ==, "reducescatter");
	g_assert_true(gv_nccltests_collective("AllGather", c, sizeof(c)));
	g_assert_cmpstr(c, ==, "allgather");
	g_assert_false(gv_nccltests_collective("allreduc", c, sizeof(c)));
	g_assert_false(gv_nccltests_collective("", c, sizeof(c)));
	g_assert_cmpint(gv_nccltests_parse(good, "allreduc", 0, false, &p, &n, NULL, &err), ==,
			GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "collective 'allreduc' is not one nccl-tests times; expected one "
				 "of: allreduce, allgather, reducescatter, alltoall, broadcast, "
				 "sendrecv, reduce");
	g_clear_pointer(&err, g_free);
	g_assert_cmpint(gv_nccltests_parse(good, "all_reduce", 0, false, &p, &n, NULL, &err), ==,
			GC_OK);
	g_assert_cmpstr(p[0].collective, ==, "allreduce");
	g_free(p);
	/* rank counts */
	g_assert_cmpint(gv_nccltests_parse(good, NULL, -3, false, &p, &n, NULL, &err), ==,
			GC_ERR_INPUT);
	g_assert_true(g_str_has_prefix(err, "-3 ranks: expected 1 to 1048576"));
	g_clear_pointer(&err, g_free);
	g_unlink(wrong);
	g_unlink(oob);
	g_rmdir(dir);
	g_free(wrong);
	g_free(oob);
	g_free(good);
	g_free(old);
	g_free(dir);
}

/* One run of `proto` with one allreduce point of time t at 1 KiB. */
static void add_run(gc_results *r, const char *label, const char *proto, double t)
{
	char *err = NULL, *cfg = g_strdup_printf("collective.op: allreduce  # default\n"
						 "collective.protocol: %s  # default\n", proto);
	gc_run_info info = {.kind = "sim", .label = label, .config = cfg,
			    .created = "2026-01-02T03:04:05Z"};
	int64_t id = 0;
	gc_result_point p;
	pt_set(&p, "allreduce", "ring", 8, 1024, t);
	g_assert_cmpint(gc_results_begin(r, &err), ==, GC_OK);
	g_assert_cmpint(gc_results_insert_run(r, &info, &id, &err), ==, GC_OK);
	g_assert_cmpint(gc_results_insert_point(r, id, &p, &err), ==, GC_OK);
	g_assert_cmpint(gc_results_commit(r, &err), ==, GC_OK);
	g_free(cfg);
}

/* Predictions of several runs: every run newest first by default, one run
 * by label, id or latest; an unknown label lists the runs. The protocol
 * hint follows the runs' stored protocol. */
static void test_load_runs_and_hint(void)
{
	char *dir = g_dir_make_tmp("gcruns-XXXXXX", NULL);
	char *db = g_build_filename(dir, "p.sqlite", NULL), *err = NULL;
	gc_results *r = NULL;
	gc_result_point *p = NULL, m;
	size_t n = 0;
	gv_source src;

	g_assert_cmpint(gc_results_open(db, true, &r, &err), ==, GC_OK);
	add_run(r, "a", "simple", 56.0); /* id 1, stale */
	add_run(r, "b", "auto", 15.0);	 /* id 2 */
	add_run(r, "a", "simple", 50.0); /* id 3 */
	gc_results_close(r);

	g_assert_cmpint(gv_load_points_run(db, NULL, &p, &n, &src, &err), ==, GC_OK);
	g_assert_cmpuint(n, ==, 3);
	g_assert_cmpfloat(p[0].time_us, ==, 50.0); /* the newest first */
	g_assert_cmpint(src.runs, ==, 3);
	g_assert_cmpstr(src.protocol, ==, ""); /* they differ */
	g_free(p);
	g_assert_cmpint(gv_load_points_run(db, "latest", &p, &n, &src, &err), ==, GC_OK);
	g_assert_cmpuint(n, ==, 1);
	g_assert_cmpfloat(p[0].time_us, ==, 50.0);
	g_assert_cmpstr(src.protocol, ==, "simple");
	g_free(p);
	g_assert_cmpint(gv_load_points_run(db, "b", &p, &n, &src, &err), ==, GC_OK);
	g_assert_cmpfloat(p[0].time_us, ==, 15.0);
	g_assert_cmpstr(src.protocol, ==, "auto");
	g_free(p);
	g_assert_cmpint(gv_load_points_run(db, "a", &p, &n, &src, &err), ==, GC_OK);
	g_assert_cmpfloat(p[0].time_us, ==, 50.0); /* the newest with that label */
	g_free(p);
	g_assert_cmpint(gv_load_points_run(db, "1", &p, &n, &src, &err), ==, GC_OK);
	g_assert_cmpfloat(p[0].time_us, ==, 56.0);
	g_free(p);
	g_assert_cmpint(gv_load_points_run(db, "c", &p, &n, &src, &err), ==, GC_ERR_INPUT);
	g_assert_null(p);
	g_assert_nonnull(strstr(err, "no run labelled 'c', and no run of that id; its runs, newest "
				     "first: 3 'a' (sim, 2026-01-02T03:04:05Z); 2 'b' (sim, "
				     "2026-01-02T03:04:05Z); 1 'a' (sim, "));
	g_clear_pointer(&err, g_free);

	/* 14.2 us measured, 50 predicted with Simple: the hint names auto */
	pt_set(&m, "allreduce", "", 8, 1024, 14.2);
	gv_report rep;
	GString *g = g_string_new(NULL);
	g_assert_cmpint(gv_load_points_run(db, "latest", &p, &n, &src, &err), ==, GC_OK);
	g_assert_cmpint(gv_compare(&m, 1, p, n, NULL, 0, 5, 15, &rep, &err), ==, GC_OK);
	g_assert_true(gv_report_protocol_hint(&rep, src.protocol, g));
	g_assert_cmpstr(g->str, ==, "# hint: 1 point below 1 MiB is predicted slow (up to +252%) "
				    "with collective.protocol simple at every size; NCCL picks LL "
				    "or LL128 for small messages: predict with --set "
				    "collective.protocol=auto, as NCCL's tuner does\n");
	g_string_truncate(g, 0);
	g_assert_false(gv_report_protocol_hint(&rep, "auto", g));
	g_assert_true(gv_report_protocol_hint(&rep, "", g)); /* unknown: said as a condition */
	g_assert_nonnull(strstr(g->str, "(simple is the default)"));
	gv_report_clear(&rep);
	g_free(p);
	/* within the tolerance: no hint */
	pt_set(&m, "allreduce", "", 8, 1024, 49.0);
	g_string_truncate(g, 0);
	g_assert_cmpint(gv_load_points_run(db, "latest", &p, &n, &src, &err), ==, GC_OK);
	g_assert_cmpint(gv_compare(&m, 1, p, n, NULL, 0, 5, 15, &rep, &err), ==, GC_OK);
	g_assert_false(gv_report_protocol_hint(&rep, src.protocol, g));
	g_assert_cmpuint(g->len, ==, 0);
	gv_report_clear(&rep);
	g_free(p);
	g_string_free(g, TRUE);

	/* a reference CSV has no runs: a label is refused, all is fine */
	char *ref = data_path("reference.csv");
	g_assert_cmpint(gv_load_points_run(ref, "a", &p, &n, &src, &err), ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, "a reference CSV holds no runs"));
	g_clear_pointer(&err, g_free);
	g_assert_cmpint(gv_load_points_run(ref, "all", &p, &n, &src, &err), ==, GC_OK);
	g_assert_cmpint(src.runs, ==, 0);
	g_free(p);
	g_free(ref);
	for (const char *const *x = (const char *const[]){"", "-wal", "-shm", NULL}; *x; x++) {
		char *f = g_strdup_printf("%s%s", db, *x);
		g_unlink(f);
		g_free(f);
	}
	g_rmdir(dir);
	g_free(db);
	g_free(dir);
}

/* A points file edited by hand or written by another program: each bad
 * field is refused naming the line (CSV) or point (SQLite), the column and
 * the value, never read as a point no one measured. */
static void test_bad_points(void)
{
	char *dir = g_dir_make_tmp("gcbad-XXXXXX", NULL);
	static const struct {
		const char *row, *want;
	} csv[] = {
		{"allreduce,ring,float,8,1024,256,abc,,,,,,1", ":3: time_us: expected a number of 0 or more"},
		{"allreduce,ring,float,8,1024,256,-1,,,,,,1", "got '-1'"},
		{"allreduce,ring,float,8,1024,256,inf,,,,,,1", "time_us: "},
		{"allreduce,ring,float,8,1024,256,5,,,,,nan,1", "p99_us: "},
		{"allreduce,ring,float,-8,1024,256,5,,,,,,1", "nranks: expected a whole number below 2^30"},
		{"allreduce,ring,float,8,1e3,256,5,,,,,,1", "size_bytes: expected a whole number, got '1e3'"},
		{",ring,float,8,1024,256,5,,,,,,1", "collective: expected a name"},
		{"allreduce,ring,float,8,1024,256,5,,,,,", "expected 13 fields, got 12"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(csv); i++) {
		char *text = g_strdup_printf("# kind: hw\n%s\n%s\n", gc_results_csv_header, csv[i].row);
		char *path = write_file(dir, "p.csv", text), *err = NULL;
		gc_result_point *p = NULL;
		size_t n = 0;
		g_assert_cmpint(gv_load_points(path, &p, &n, &err), ==, GC_ERR_INPUT);
		g_assert_null(p);
		g_assert_nonnull(strstr(err, path));
		if (!strstr(err, csv[i].want))
			g_error("row '%s': got '%s', want '%s'", csv[i].row, err, csv[i].want);
		g_remove(path);
		g_free(path);
		g_free(err);
		g_free(text);
	}

	/* The same checks on a results store whose rows were changed after it
	 * was written. */
	char *db = g_build_filename(dir, "r.sqlite", NULL), *err = NULL;
	static const struct {
		const char *set, *want;
	} sql[] = {
		{"time_us='abc'", "point 2: time_us: expected a number of 0 or more, or NULL"},
		{"time_us=-1", "point 2: time_us: "},
		{"time_us=9e999", "point 2: time_us: "},
		{"nranks=-2", "point 2: nranks: expected a whole number from 0 below 2^30"},
		{"nranks=2.5", "point 2: nranks: "},
		{"size_bytes='big'", "point 2: size_bytes: expected a whole number of 0 or more"},
		{"collective=''", "point 2: collective: expected a name of at most 31 characters"},
		{"algo=x'00ff'", "point 2: algo: expected text"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(sql); i++) {
		gc_results *r = NULL;
		g_assert_cmpint(gc_results_open(db, true, &r, &err), ==, GC_OK);
		int64_t id = 0;
		gc_result_point p;
		pt_set(&p, "allreduce", "ring", 8, 1024, 5);
		gc_run_info info = {.kind = "hw"};
		g_assert_cmpint(gc_results_begin(r, &err), ==, GC_OK);
		g_assert_cmpint(gc_results_insert_run(r, &info, &id, &err), ==, GC_OK);
		g_assert_cmpint(gc_results_insert_point(r, id, &p, &err), ==, GC_OK);
		g_assert_cmpint(gc_results_insert_point(r, id, &p, &err), ==, GC_OK);
		g_assert_cmpint(gc_results_commit(r, &err), ==, GC_OK);
		gc_results_close(r);
		sqlite3 *h = NULL;
		g_assert_cmpint(sqlite3_open(db, &h), ==, SQLITE_OK);
		char *q = g_strdup_printf("UPDATE points SET %s WHERE rowid=2", sql[i].set);
		g_assert_cmpint(sqlite3_exec(h, q, NULL, NULL, NULL), ==, SQLITE_OK);
		g_free(q);
		sqlite3_close(h);
		gc_result_point *got = NULL;
		size_t n = 0;
		g_assert_cmpint(gv_load_points(db, &got, &n, &err), ==, GC_ERR_INPUT);
		g_assert_null(got);
		if (!strstr(err, sql[i].want))
			g_error("SET %s: got '%s', want '%s'", sql[i].set, err, sql[i].want);
		g_clear_pointer(&err, g_free);
		g_remove(db);
	}
	g_free(db);
	g_rmdir(dir);
	g_free(dir);
}

/* A measured point without a time (unknown or 0) is counted as such, not as
 * one without a prediction; with none timed the error says so. A measured
 * time near DBL_MAX gives an error of -100 %, not an overflow. */
static void test_compare_untimed(void)
{
	gc_result_point m[3], pr[1];
	pt_set(&m[0], "allreduce", "ring", 8, 1000, 100);
	pt_set(&m[1], "allreduce", "ring", 8, 1000, NAN);
	pt_set(&m[2], "allreduce", "ring", 8, 1000, 0);
	pt_set(&pr[0], "allreduce", "ring", 8, 1000, 110);
	gv_report r;
	char *err = NULL;
	g_assert_cmpint(gv_compare(m, 3, pr, 1, NULL, 0, 5, 15, &r, &err), ==, GC_OK);
	g_assert_cmpuint(r.nrows, ==, 1);
	g_assert_cmpuint(r.untimed, ==, 2);
	g_assert_cmpuint(r.unmatched, ==, 0);
	GString *g = g_string_new(NULL);
	gv_report_table(&r, g);
	g_assert_nonnull(strstr(g->str, "# compared 1 points (0 without a prediction, 2 measured without a time)"));
	g_string_free(g, TRUE);
	gv_report_clear(&r);
	g_assert_cmpint(gv_compare(m + 1, 2, pr, 1, NULL, 0, 5, 15, &r, &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "no measured point has a time (2 measured)");
	g_clear_pointer(&err, g_free);
	pt_set(&m[0], "allreduce", "ring", 8, 1000, 1e308);
	g_assert_cmpint(gv_compare(m, 1, pr, 1, NULL, 0, 5, 15, &r, &err), ==, GC_OK);
	g_assert_cmpfloat_with_epsilon(r.rows[0].err_pct, -100.0, 1e-9);
	g_assert_cmpfloat_with_epsilon(r.max_abs_pct, 100.0, 1e-9);
	gv_report_clear(&r);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/validate/results-store", test_results_roundtrip);
	g_test_add_func("/validate/reference-csv", test_reference_csv);
	g_test_add_func("/validate/p5-sweep-data", test_p5_sweep_data);
	g_test_add_func("/validate/compare-bands", test_compare_bands);
	g_test_add_func("/validate/compare-several", test_compare_several_predictions);
	g_test_add_func("/validate/default-algo", test_default_algo_matches);
	g_test_add_func("/validate/nccltests-import", test_nccltests_import);
	g_test_add_func("/validate/nccltests-checks", test_nccltests_checks);
	g_test_add_func("/validate/load-runs-and-hint", test_load_runs_and_hint);
	g_test_add_func("/validate/bad-points", test_bad_points);
	g_test_add_func("/validate/compare-untimed", test_compare_untimed);
	return g_test_run();
}
