/* SPDX-License-Identifier: MIT */
/*
 * gcsim validate: predictions against measurements, point by point, with
 * tolerance bands kept as data; and the nccl-tests log importer.
 *
 * Exit status: 0 when the verdict passes, 1 when it fails, 2 bad input,
 * 4 i/o. Nothing is written unless the comparison or import succeeded.
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sim/core/gc_outfile.h"
#include "sim/core/gc_results.h"
#include "validate/gv_validate.h"

static int fail(gc_status st, const char *msg)
{
	fprintf(stderr, "gcsim validate: %s\n", msg);
	return cli_exit_status(st);
}

static gc_status parse_pct(const char *opt, const char *v, double *out, char **err)
{
	char *e;
	double x = strtod(v, &e);
	if (e == v || (*e && strcmp(e, "%") != 0) || !(x >= 0) || x > 1000) {
		*err = g_strdup_printf("%s: expected a percentage like 5%%, got '%s'", opt, v);
		return GC_ERR_INPUT;
	}
	*out = x;
	return GC_OK;
}

static int import_log(const char *log, const char *db, const char *coll, int nranks,
		      bool accept_wrong, const char *label, const char *cmd)
{
	gc_result_point *pts = NULL;
	size_t n = 0;
	char *err = NULL;
	gc_results *r = NULL;
	int64_t id = 0;
	gv_nccltests_setup su;
	gc_status st = gv_nccltests_parse(log, coll, nranks, accept_wrong, &pts, &n, &su, &err);
	if (st == GC_OK)
		st = gc_results_open(db, true, &r, &err);
	if (st == GC_OK)
		st = gc_results_begin(r, &err);
	gc_run_info info = {.kind = "import", .label = label ? label : log, .scenario = log,
			    .command = cmd};
	if (st == GC_OK)
		st = gc_results_insert_run(r, &info, &id, &err);
	for (size_t i = 0; st == GC_OK && i < n; i++)
		st = gc_results_insert_point(r, id, &pts[i], &err);
	if (st == GC_OK)
		st = gc_results_commit(r, &err);
	gc_results_close(r);
	int rc = 0;
	if (st != GC_OK)
		rc = fail(st, err);
	else {
		printf("imported %zu %s points (%d ranks) from %s into %s as run %lld\n", n,
		       pts[0].collective, pts[0].nranks, log, db, (long long)id);
		if (su.wrong)
			printf("%zu of them nccl-tests marked wrong (imported as --accept-wrong "
			       "asked)\n",
			       su.wrong);
		/* how the run was driven, and the settings that predict it so */
		if (su.gpus_per_thread > 1)
			printf("the log's threads each drove %d GPUs (nGpus %d), enqueueing each "
			       "operation on them in turn; predict it with --set "
			       "collective.gpus_per_thread=%d --set collective.iters=%d\n",
			       su.gpus_per_thread, su.gpus_per_thread, su.gpus_per_thread,
			       su.iters > 0 ? su.iters : 20);
	}
	g_free(pts);
	g_free(err);
	return rc;
}

int cli_validate(int argc, char **argv)
{
	char *meas = NULL, *pred = NULL, *tol = NULL, *maxtol = NULL, *bands = NULL, *csv = NULL;
	char *nccl = NULL, *out = NULL, *coll = NULL, *label = NULL, *impl = NULL;
	char *nranks_s = NULL, *run = NULL;
	gboolean by_size = FALSE, accept_wrong = FALSE;
	GOptionEntry entries[] = {
		{"measured", 'm', 0, G_OPTION_ARG_FILENAME, &meas, "measurements: results SQLite, points CSV or reference CSV", "FILE"},
		{"predicted", 'p', 0, G_OPTION_ARG_FILENAME, &pred, "predictions, same formats", "FILE"},
		{"run", 0, 0, G_OPTION_ARG_STRING, &run,
		 "which runs of a results SQLite file of predictions to compare: the newest run with "
		 "this label, the run of this id, latest (the newest run) or all (the default: every "
		 "run, a point that several runs predict taken from the newest)",
		 "LABEL|ID|latest|all"},
		{"tolerance", 't', 0, G_OPTION_ARG_STRING, &tol, "median |error| allowed (default 5%)", "PCT"},
		{"max-tolerance", 0, 0, G_OPTION_ARG_STRING, &maxtol, "largest |error| allowed (default 15%)", "PCT"},
		{"bands", 'b', 0, G_OPTION_ARG_FILENAME, &bands, "tolerance bands CSV 'band,max_error_pct' (default: pass at --tolerance, warn at --max-tolerance)", "FILE"},
		{"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv, "also write the per-point report as CSV", "FILE"},
		{"by-size", 0, 0, G_OPTION_ARG_NONE, &by_size,
		 "after the verdict, the errors by size: below 1 MiB, to 16 MiB, to 256 MiB, above", NULL},
		{"impl", 0, 0, G_OPTION_ARG_STRING, &impl,
		 "keep only measured points of this algo or implementation (e.g. deepep-v1-ll in "
		 "moe_published.csv)", "NAME"},
		{"import-nccl-tests", 0, 0, G_OPTION_ARG_FILENAME, &nccl, "import an nccl-tests log into --out", "LOG"},
		{"out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "results SQLite file for --import-nccl-tests", "FILE"},
		{"collective", 0, 0, G_OPTION_ARG_STRING, &coll,
		 "collective of the imported log: allreduce, allgather, reducescatter, alltoall, "
		 "broadcast, sendrecv or reduce (default: from the log)", "NAME"},
		{"nranks", 0, 0, G_OPTION_ARG_STRING, &nranks_s, "ranks of the imported log, 1 to 1048576 (default: its '#  Rank' lines)", "N"},
		{"accept-wrong", 0, 0, G_OPTION_ARG_NONE, &accept_wrong,
		 "import rows nccl-tests marked wrong (#wrong not 0, or a failed 'Out of bounds "
		 "values' check), which are refused otherwise", NULL},
		{"label", 0, 0, G_OPTION_ARG_STRING, &label, "label of the imported run", "TEXT"},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	GString *cmdline = g_string_new("gcsim");
	for (int i = 0; i < argc; i++)
		g_string_append_printf(cmdline, " %s", argv[i]);
	int done, rc = cli_parse(&argc, &argv, "",
				 "Compare predicted with measured times point by point (matched on\n"
				 "collective, algo, ranks and size): error %, a band per point, and a\n"
				 "verdict on the median and largest error. Predictions from a results\n"
				 "file of several runs: every run, a point taken from the newest run that\n"
				 "predicts it (--run picks one run). Points below 1 MiB predicted far too\n"
				 "slow with one protocol at every size get a hint: NCCL picks LL or LL128\n"
				 "there, as --set collective.protocol=auto does. Or import an nccl-tests\n"
				 "log; rows it marked wrong are refused unless --accept-wrong.",
				 entries, &done);
	char *err = NULL;
	gc_result_point *m = NULL, *p = NULL;
	gv_band *b = NULL;
	size_t nm = 0, np = 0, nb = 0;
	gv_report rep;
	memset(&rep, 0, sizeof(rep));
	GString *g = g_string_new(NULL);
	if (done)
		goto out;
	if (nccl) {
		if (!out) {
			rc = fail(GC_ERR_INPUT, "--import-nccl-tests needs --out FILE");
			goto out;
		}
		if (run) {
			rc = fail(GC_ERR_INPUT, "--run picks the runs of --predicted; an import "
						"adds one run (named by --label)");
			goto out;
		}
		int nranks = 0;
		if (nranks_s) {
			char *e;
			gint64 v = g_ascii_strtoll(nranks_s, &e, 10);
			if (!g_ascii_isdigit(nranks_s[0]) || *e || v < 1 || v > 1048576) {
				char *msg = g_strdup_printf("--nranks: expected a whole number of ranks "
							    "from 1 to 1048576, got '%.40s'",
							    nranks_s);
				rc = fail(GC_ERR_INPUT, msg);
				g_free(msg);
				goto out;
			}
			nranks = (int)v;
		}
		char canon[32];
		if (coll && !gv_nccltests_collective(coll, canon, sizeof(canon))) {
			char *msg = g_strdup_printf("--collective: '%.40s' is not a collective "
						    "nccl-tests times; expected one of: %s",
						    coll, gv_nccltests_collectives);
			rc = fail(GC_ERR_INPUT, msg);
			g_free(msg);
			goto out;
		}
		rc = import_log(nccl, out, coll, nranks, accept_wrong, label, cmdline->str);
		goto out;
	}
	if (nranks_s || coll || accept_wrong || label || out) {
		rc = fail(GC_ERR_INPUT, "--out, --collective, --nranks, --label and --accept-wrong "
					"go with --import-nccl-tests LOG");
		goto out;
	}
	if (!meas || !pred) {
		rc = fail(GC_ERR_INPUT, "expected --measured FILE and --predicted FILE (see --help)");
		goto out;
	}
	double t = 5, mt = 15;
	gc_status st = GC_OK;
	if (tol)
		st = parse_pct("--tolerance", tol, &t, &err);
	if (st == GC_OK && maxtol)
		st = parse_pct("--max-tolerance", maxtol, &mt, &err);
	if (st == GC_OK && bands)
		st = gv_bands_load(bands, &b, &nb, &err);
	else if (st == GC_OK) {
		b = g_new0(gv_band, 2);
		g_strlcpy(b[0].name, "pass", sizeof(b[0].name));
		b[0].limit_pct = t;
		g_strlcpy(b[1].name, "warn", sizeof(b[1].name));
		b[1].limit_pct = mt;
		nb = 2;
	}
	if (st == GC_OK)
		st = gv_load_points(meas, &m, &nm, &err);
	if (st == GC_OK && impl) {
		size_t k = 0;
		for (size_t i = 0; i < nm; i++)
			if (!strcmp(m[i].algo, impl))
				m[k++] = m[i];
		if (k == 0) {
			err = g_strdup_printf("%s: no measured point of '%s'", meas, impl);
			st = GC_ERR_INPUT;
		}
		nm = k;
	}
	gv_source src;
	if (st == GC_OK)
		st = gv_load_points_run(pred, run, &p, &np, &src, &err);
	if (st == GC_OK)
		st = gv_compare(m, nm, p, np, b, nb, t, mt, &rep, &err);
	if (st != GC_OK) {
		rc = fail(st, err);
		goto out;
	}
	if (csv) {
		GString *c = g_string_new(NULL);
		gv_report_csv(&rep, c);
		char *msg = NULL;
		if (gc_outfile_write(csv, "the comparison", c->str, c->len, &msg) != GC_OK) {
			rc = fail(GC_ERR_IO, msg);
			g_free(msg);
			g_string_free(c, TRUE);
			goto out;
		}
		g_string_free(c, TRUE);
	}
	gv_report_table(&rep, g);
	if (by_size)
		gv_report_by_size(&rep, g);
	gv_report_protocol_hint(&rep, src.protocol, g);
	fwrite(g->str, 1, g->len, stdout);
	rc = rep.pass ? 0 : 1;
out:
	gv_report_clear(&rep);
	g_string_free(g, TRUE);
	g_string_free(cmdline, TRUE);
	g_free(m);
	g_free(p);
	g_free(b);
	g_free(err);
	g_free(meas);
	g_free(pred);
	g_free(impl);
	g_free(tol);
	g_free(maxtol);
	g_free(bands);
	g_free(csv);
	g_free(nccl);
	g_free(out);
	g_free(coll);
	g_free(label);
	g_free(nranks_s);
	g_free(run);
	return rc;
}
