/* SPDX-License-Identifier: MIT */
/*
 * gcsim run: simulate one scenario. Output goes to stdout only after every
 * size has been simulated; errors go to stderr as "FILE:LINE:COLUMN: ...".
 */
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "sim/models/run/gm_keyuse.h"
#include "sim/models/run/gm_run.h"
#include "sim/models/report/gm_report.h"
#include "sim/models/run/gm_scenario.h"
#include "sim/models/train/gm_train.h"

/* gm_run_scenario with the progress line on a terminal's stderr (cleared
 * after) and the warning before a long size (progress.h). */
static gc_status run_with_progress(const char *path, gm_run_opts *o, gm_run **run, char **err)
{
	cli_progress p;
	cli_progress_attach(&p, o, "gcsim");
	gc_status st = gm_run_scenario(path, o, run, err);
	cli_progress_clear(&p, o);
	return st;
}

/* gm_train_run with the same line, phase by phase. */
static gc_status train_with_progress(const char *path, gm_run_opts *o, gm_train **t, char **err)
{
	cli_progress p;
	cli_progress_attach(&p, o, "gcsim");
	gc_status st = gm_train_run(path, o, t, err);
	cli_progress_clear(&p, o);
	return st;
}

#define SWEEP_MAX 64

/* One sweep axis from "KEY=V1,V2,...": its key and values (stripped);
 * false after one line on stderr. */
static bool parse_axis(const char *spec, char **key, char ***vals)
{
	const char *eq = strchr(spec, '=');
	if (!eq || eq == spec || !eq[1]) {
		fprintf(stderr, "gcsim run: --sweep: expected KEY=V1,V2,..., got '%s'\n", spec);
		return false;
	}
	*key = g_strndup(spec, (gsize)(eq - spec));
	*vals = g_strsplit(eq + 1, ",", -1);
	for (char **v = *vals; *v; v++)
		if (!g_strstrip(*v)[0]) {
			fprintf(stderr, "gcsim run: --sweep: empty value in '%s'\n", spec);
			return false;
		}
	return true;
}

/* --sweep KEY=V1,V2,... (one or two of them: every pair of values): every
 * run first, then one table whose first column is the value (the pair,
 * "V1,W1", under "KEY1,KEY2"); on an error, one line naming the value and
 * nothing on stdout. */
static int run_sweep(const char *path, char *const *specs, int nspecs, bool own,
		     char **const *where, GPtrArray *sets, bool csv, bool other_outputs,
		     bool breakdown, bool step)
{
	if (breakdown && step) {
		fprintf(stderr, "gcsim run: a training step (workload: step) prints one table of its "
				"phases; --breakdown applies to workload: collective\n");
		return 2;
	}
	if (other_outputs) {
		fprintf(stderr, "gcsim run: --sweep prints one summary table; it does not combine with "
				"--trace, --links or --results\n");
		return 2;
	}
	if (nspecs > 2) {
		fprintf(stderr, "gcsim run: --sweep: %d keys, at most 2 (a grid of their values)\n",
			nspecs);
		return 2;
	}
	char *key[2] = {NULL, NULL}, **vals[2] = {NULL, NULL};
	int rc = 0;
	guint len[2] = {1, 1};
	for (int a = 0; a < nspecs && rc == 0; a++) {
		if (!parse_axis(specs[a], &key[a], &vals[a]))
			rc = 2;
		else
			len[a] = g_strv_length(vals[a]);
	}
	if (rc == 0 && nspecs == 2 && !strcmp(key[0], key[1])) {
		fprintf(stderr, "gcsim run: --sweep: '%s' twice\n", key[0]);
		rc = 2;
	}
	/* the grid's size in 64 bits: two long lists must not wrap */
	guint64 runs_wanted = (guint64)len[0] * len[1];
	if (rc == 0 && runs_wanted > SWEEP_MAX) {
		fprintf(stderr, "gcsim run: %s: %" G_GUINT64_FORMAT " runs, at most %d\n",
			own ? "the scenario's sweep" : "--sweep", runs_wanted, SWEEP_MAX);
		rc = 2;
	}
	guint n = rc == 0 ? (guint)runs_wanted : 1;
	char *label = rc == 0 && nspecs == 2 ? g_strdup_printf("%s,%s", key[0], key[1])
					     : g_strdup(key[0] ? key[0] : "");
	char **names = g_new0(char *, n + 1);
	gm_run **runs = g_new0(gm_run *, n);
	gm_train **steps = g_new0(gm_train *, n);
	for (guint k = 0; k < n && rc == 0; k++) {
		/* the first key varies slowest */
		const char *v0 = vals[0][k / len[1]], *v1 = nspecs == 2 ? vals[1][k % len[1]] : NULL;
		names[k] = v1 ? g_strdup_printf("%s,%s", v0, v1) : g_strdup(v0);
		GPtrArray *all = g_ptr_array_new_with_free_func(g_free);
		for (guint i = 0; i < sets->len; i++)
			g_ptr_array_add(all, g_strdup(g_ptr_array_index(sets, i)));
		g_ptr_array_add(all, g_strdup_printf("%s=%s", key[0], v0));
		if (v1)
			g_ptr_array_add(all, g_strdup_printf("%s=%s", key[1], v1));
		g_ptr_array_add(all, NULL);
		/* the scenario's own values are named where they stand in its file */
		const char **at = g_new0(const char *, all->len);
		for (int a = 0; a < nspecs; a++)
			if (where && where[a] && g_strv_length(where[a]) == len[a])
				at[sets->len + (guint)a] = where[a][a ? k % len[1] : k / len[1]];
		gm_run_opts o = {.sets = (const char *const *)all->pdata,
				 .set_where = at,
				 .breakdown = breakdown,
				 .sweep_cell = true};
		char *err = NULL;
		gc_status st = step ? train_with_progress(path, &o, &steps[k], &err)
				    : run_with_progress(path, &o, &runs[k], &err);
		if (st != GC_OK) {
			if (v1)
				fprintf(stderr, "%s (sweep values %s=%s, %s=%s)\n", err, key[0], v0, key[1],
					v1);
			else
				fprintf(stderr, "%s (sweep value %s=%s)\n", err, key[0], v0);
			rc = cli_exit_status(st);
		}
		g_free(err);
		g_free(at);
		g_ptr_array_free(all, TRUE);
	}
	if (rc == 0) {
		/* a key the scenario sets that no value's run uses */
		char ***lists = g_new0(char **, n);
		for (guint k = 0; k < n; k++)
			lists[k] = step ? steps[k]->unused : runs[k]->unused;
		char **none = gm_keyuse_common((char *const *const *)lists, n);
		char *err = NULL;
		if (gm_keyuse_refuse(none, n > 1 ? "(in every run of the sweep)" : NULL, &err) != GC_OK) {
			fprintf(stderr, "%s\n", err);
			rc = 2;
		}
		g_free(err);
		g_strfreev(none);
		g_free(lists);
	}
	if (rc == 0) {
		GString *out = g_string_new(NULL);
		if (step)
			gm_train_format_sweep(label, (const char *const *)names, steps, n, csv, out);
		else
			gm_run_format_sweep(label, (const char *const *)names, runs, n, csv, out);
		if (breakdown && !step && !csv)
			gm_run_format_breakdown(label, (const char *const *)names, runs, n, out);
		fwrite(out->str, 1, out->len, stdout);
		g_string_free(out, TRUE);
		rc = cli_flush_stdout();
	}
	for (guint k = 0; k < n; k++) {
		gm_run_free(runs[k]);
		gm_train_free(steps[k]);
	}
	g_free(runs);
	g_free(steps);
	g_strfreev(names);
	g_free(label);
	for (int a = 0; a < 2; a++) {
		g_strfreev(vals[a]);
		g_free(key[a]);
	}
	return rc;
}

/* workload: step -- one table of the step's phases */
static int run_step(const char *path, GPtrArray *sets, bool csv, bool other_outputs)
{
	if (other_outputs) {
		fprintf(stderr, "gcsim run: a training step (workload: step) prints one table of its "
				"phases; --trace, --links, --results and --breakdown apply to workload: "
				"collective\n");
		return 2;
	}
	g_ptr_array_add(sets, NULL);
	gm_run_opts o = {.sets = (const char *const *)sets->pdata};
	gm_train *t = NULL;
	char *err = NULL;
	gc_status st = train_with_progress(path, &o, &t, &err);
	g_ptr_array_remove_index(sets, sets->len - 1);
	int rc = 0;
	if (st != GC_OK) {
		fprintf(stderr, "%s\n", err);
		rc = cli_exit_status(st);
	} else {
		GString *out = g_string_new(NULL);
		if (csv)
			gm_train_format_csv(t, out);
		else
			gm_train_format_table(t, out);
		fwrite(out->str, 1, out->len, stdout);
		g_string_free(out, TRUE);
		rc = cli_flush_stdout();
	}
	gm_train_free(t);
	g_free(err);
	return rc;
}

int cli_run(int argc, char **argv)
{
	char *format = NULL, *trace = NULL, *fidelity = NULL, *results = NULL;
	char **sets = NULL, **sweep = NULL;
	gboolean links = FALSE, check = FALSE, breakdown = FALSE;
	gint64 seed = -1;
	GOptionEntry entries[] = {
		{"format", 'f', 0, G_OPTION_ARG_STRING, &format, "output format: table (default) or csv", "FMT"},
		{"trace", 't', 0, G_OPTION_ARG_FILENAME, &trace,
		 "write a Chrome/Perfetto trace (one track per rank channel, one counter per link)", "FILE"},
		{"links", 'l', 0, G_OPTION_ARG_NONE, &links,
		 "add a per-link summary: bytes carried, busy fraction, busiest first", NULL},
		{"breakdown", 'b', 0, G_OPTION_ARG_NONE, &breakdown,
		 "add where the time goes: each size's critical path split into launch, latency, "
		 "and bytes moving by the class of the link that held their rate (flow fidelity)",
		 NULL},
		{"seed", 's', 0, G_OPTION_ARG_INT64, &seed, "seed of the random streams (overrides the scenario)", "N"},
		{"check", 0, 0, G_OPTION_ARG_NONE, &check, "assert engine invariants after every event", NULL},
		{"results", 'r', 0, G_OPTION_ARG_FILENAME, &results,
		 "also store the points in a results file (SQLite, or CSV if it ends in .csv) that "
		 "gcsim validate compares with measurements", "FILE"},
		{"fidelity", 0, 0, G_OPTION_ARG_STRING, &fidelity, "flow (default), packet or analytical", "F"},
		{"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
		 "override a scenario key, e.g. --set topology.nodes=4 (repeatable); sizes as a list, "
		 "--set collective.sizes=8B,1MiB, or a range, --set 'collective.sizes={from: 1MiB, "
		 "to: 4GiB, factor: 4}'", "KEY=VALUE"},
		{"sweep", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sweep,
		 "run the scenario once per value of one key and print one row per value and size, "
		 "e.g. --sweep topology.nodes=1,8,64,512,2048; given twice, once per pair of values",
		 "KEY=V1,V2,..."},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	char *cmdline = g_strjoinv(" ", argv); /* before option parsing eats it */
	int done, rc = cli_parse(&argc, &argv, "SCENARIO.yaml",
				 "Simulate the collective of a scenario at each of its sizes and print\n"
				 "an nccl-tests-style table (size, count, type, redop, root, time, algbw,\n"
				 "busbw); with workload: step, the collectives of one training step by\n"
				 "phase (train.*). Same scenario and seed, byte-identical output.",
				 entries, &done);
	GPtrArray *all = g_ptr_array_new_with_free_func(g_free);
	GString *out = NULL;
	gm_run *run = NULL;
	char *err = NULL;
	if (done)
		goto out;
	rc = 2;
	if (argc != 2) {
		fprintf(stderr, "gcsim run: expected one scenario file, got %d arguments (see --help)\n", argc - 1);
		goto out;
	}
	bool csv = false;
	if (format && !strcmp(format, "csv"))
		csv = true;
	else if (format && strcmp(format, "table") != 0) {
		fprintf(stderr, "gcsim run: --format: expected table or csv, got '%s'\n", format);
		goto out;
	}
	for (char **s = sets; s && *s; s++)
		g_ptr_array_add(all, g_strdup(*s));
	if (seed >= 0)
		g_ptr_array_add(all, g_strdup_printf("seed=%lld", (long long)seed));
	else if (seed != -1) {
		fprintf(stderr, "gcsim run: --seed: expected a non-negative integer\n");
		goto out;
	}
	if (check)
		g_ptr_array_add(all, g_strdup("sim.check=true"));
	if (fidelity)
		g_ptr_array_add(all, g_strdup_printf("sim.fidelity=%s", fidelity));
	/* the scenario may carry its own sweep (sweep.key, sweep.values) and
	 * may be a training step (workload: step) */
	gc_config *cfg = NULL;
	g_ptr_array_add(all, NULL);
	gc_status lst = gm_scenario_load(argv[1], (const char *const *)all->pdata, &cfg, &err);
	g_ptr_array_remove_index(all, all->len - 1);
	if (lst != GC_OK) {
		fprintf(stderr, "%s\n", err);
		rc = cli_exit_status(lst);
		goto out;
	}
	char **where[2] = {NULL, NULL};
	bool own = !sweep;
	if (!sweep && (sweep = cli_scenario_sweep(cfg))) {
		/* the scenario's own sweep: the one-run outputs are refused
		 * naming its sweep block, not a --sweep that was never given */
		const char *flag = trace ? "--trace" : links ? "--links" : results ? "--results" : NULL;
		if (flag) {
			char w[512], *from;
			bool two = gc_config_str(cfg, "sweep.key2")[0] != 0;
			if (gc_config_from_file(cfg, "sweep.key"))
				from = g_strdup_printf("its sweep block, %s",
						       gc_config_where(cfg, "sweep.key", w, sizeof(w)));
			else
				from = g_strdup("sweep.key, given with --set");
			fprintf(stderr,
				"gcsim run: %s: the scenario sweeps %s%s%s (%s) and prints one summary "
				"table; %s applies to a run of one value: clear the sweep with --set "
				"sweep.key= --set sweep.values=%s, or store every value's points with "
				"gcsim sweep --results FILE\n",
				flag, gc_config_str(cfg, "sweep.key"), two ? " and " : "",
				two ? gc_config_str(cfg, "sweep.key2") : "", from, flag,
				two ? " --set sweep.key2= --set sweep.values2=" : "");
			g_free(from);
			gc_config_free(cfg);
			goto out;
		}
		where[0] = gm_scenario_sweep_where(cfg, "sweep.values");
		where[1] = gm_scenario_sweep_where(cfg, "sweep.values2");
	}
	bool step = !strcmp(gc_config_str(cfg, "workload"), "step");
	gc_config_free(cfg);
	if (sweep) {
		rc = run_sweep(argv[1], sweep, (int)g_strv_length(sweep), own, where, all, csv,
			       trace || links || results, breakdown, step);
		g_strfreev(where[0]);
		g_strfreev(where[1]);
		goto out;
	}
	if (step) {
		rc = run_step(argv[1], all, csv, trace || links || results || breakdown);
		goto out;
	}
	/* a results file that could not be written is refused before the
	 * simulation, not after it */
	if (results && gm_run_check_results(results, &err) != GC_OK) {
		fprintf(stderr, "%s\n", err);
		rc = 4;
		goto out;
	}
	g_ptr_array_add(all, NULL);
	gm_run_opts o = {.sets = (const char *const *)all->pdata,
			 .trace_path = trace,
			 .links = links,
			 .breakdown = breakdown};
	gc_status st = run_with_progress(argv[1], &o, &run, &err);
	if (st != GC_OK) {
		fprintf(stderr, "%s\n", err);
		rc = cli_exit_status(st);
		goto out;
	}
	if (results) {
		char *cmd = g_strdup_printf("gcsim %s", cmdline);
		st = gm_run_save_results(run, results, cmd, &err);
		g_free(cmd);
		if (st != GC_OK) {
			fprintf(stderr, "%s\n", err);
			rc = st == GC_ERR_INPUT ? 2 : 4;
			goto out;
		}
	}
	out = g_string_new(NULL);
	if (csv)
		gm_run_format_csv(run, out);
	else
		gm_run_format_table(run, out);
	if (!csv)
		gm_run_format_compare(run, out);
	if (links && !run->analytical)
		gm_run_format_links(run, 16, out);
	if (breakdown && !csv)
		gm_run_format_breakdown(NULL, NULL, &run, 1, out);
	fwrite(out->str, 1, out->len, stdout);
	rc = cli_flush_stdout();
out:
	if (out)
		g_string_free(out, TRUE);
	gm_run_free(run);
	g_free(err);
	g_ptr_array_free(all, TRUE);
	g_free(format);
	g_free(trace);
	g_free(fidelity);
	g_free(results);
	g_strfreev(sweep);
	g_free(cmdline);
	g_strfreev(sets);
	return rc;
}
