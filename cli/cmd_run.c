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
#include "sim/models/gm_run.h"

/* Progress on a terminal's stderr only (stdout stays the deterministic
 * result; a redirected stderr gets nothing). */
static void progress(void *ctx, size_t i, size_t n, uint64_t bytes)
{
	fprintf(stderr, "\rgcsim: size %zu of %zu (%llu B)   ", i + 1, n, (unsigned long long)bytes);
	fflush(stderr);
}

int cli_run(int argc, char **argv)
{
	char *format = NULL, *trace = NULL, *fidelity = NULL, *results = NULL;
	char **sets = NULL;
	gboolean links = FALSE, check = FALSE;
	gint64 seed = -1;
	GOptionEntry entries[] = {
		{"format", 'f', 0, G_OPTION_ARG_STRING, &format, "output format: table (default) or csv", "FMT"},
		{"trace", 't', 0, G_OPTION_ARG_FILENAME, &trace,
		 "write a Chrome/Perfetto trace (one track per rank channel, one counter per link)", "FILE"},
		{"links", 'l', 0, G_OPTION_ARG_NONE, &links,
		 "add a per-link summary: bytes carried, busy fraction, busiest first", NULL},
		{"seed", 's', 0, G_OPTION_ARG_INT64, &seed, "seed of the random streams (overrides the scenario)", "N"},
		{"check", 0, 0, G_OPTION_ARG_NONE, &check, "assert engine invariants after every event", NULL},
		{"results", 'r', 0, G_OPTION_ARG_FILENAME, &results,
		 "also store the points in a results file (SQLite, or CSV if it ends in .csv) that "
		 "gcsim validate compares with measurements", "FILE"},
		{"fidelity", 0, 0, G_OPTION_ARG_STRING, &fidelity, "flow (default) or analytical", "F"},
		{"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
		 "override a scenario key, e.g. --set topology.nodes=4 (repeatable)", "KEY=VALUE"},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	char *cmdline = g_strjoinv(" ", argv); /* before option parsing eats it */
	int done, rc = cli_parse(&argc, &argv, "SCENARIO.yaml",
				 "Simulate the collective of a scenario at each of its sizes and print\n"
				 "an nccl-tests-style table (size, count, type, redop, root, time, algbw,\n"
				 "busbw). Same scenario and seed, byte-identical output.",
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
	g_ptr_array_add(all, NULL);
	gm_run_opts o = {.sets = (const char *const *)all->pdata, .trace_path = trace, .links = links};
	bool tty = isatty(STDERR_FILENO);
	if (tty)
		o.progress = progress;
	gc_status st = gm_run_scenario(argv[1], &o, &run, &err);
	if (tty)
		fputs("\r\033[K", stderr); /* clear the progress line */
	if (st != GC_OK) {
		fprintf(stderr, "%s\n", err);
		rc = st == GC_ERR_INPUT ? 2 : st == GC_ERR_IO ? 4 : st == GC_ERR_DEADLOCK ? 2 : 1;
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
	fwrite(out->str, 1, out->len, stdout);
	rc = fflush(stdout) == 0 ? 0 : 4;
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
	g_free(cmdline);
	g_strfreev(sets);
	return rc;
}
