/* SPDX-License-Identifier: MIT */
/*
 * gcsim command line: dispatches to subcommands. Exit status: 0 success,
 * 1 internal error, 2 bad input (usage, scenario), 3 missing hardware,
 * 4 i/o failure (stdout included), 7 out of memory.
 */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sim/core/gc_nomem.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} cmds[] = {
	{"run", cli_run, "simulate a scenario and print an nccl-tests-style table"},
	{"sweep", cli_sweep, "run a scenario over a grid of values, resumable, with a plot"},
	{"models", cli_models, "list the models, their sources and the scenario keys"},
	{"hw", cli_hw, "measure this machine's GPUs, run schedules on them, calibrate"},
	{"validate", cli_validate, "compare predictions with measurements, import nccl-tests logs"},
	{"explain", cli_explain, "walk a communication type step by step, compare the types"},
	{"version", cli_version, "print the version"},
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: gcsim COMMAND [OPTIONS]\n\n"
		   "Predict the time of GPU-cluster communication and explain where it goes.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < G_N_ELEMENTS(cmds); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nRun 'gcsim COMMAND --help' for a command's options.\n"
		   "Example: gcsim run scenarios/dgx-h100-allreduce.yaml\n");
}

int main(int argc, char **argv)
{
	gc_nomem_install();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return cli_close_stdout(0);
	}
	if (!strcmp(argv[1], "--version"))
		return cli_close_stdout(cli_version(argc - 1, argv + 1));
	for (size_t i = 0; i < G_N_ELEMENTS(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name)) {
			/* "Usage: gcsim run ..." in every subcommand's --help */
			char *prg = g_strdup_printf("gcsim %s", cmds[i].name);
			g_set_prgname(prg);
			g_free(prg);
			return cli_close_stdout(cmds[i].fn(argc - 1, argv + 1));
		}
	fprintf(stderr, "gcsim: unknown command '%s'; expected one of:", argv[1]);
	for (size_t i = 0; i < G_N_ELEMENTS(cmds); i++)
		fprintf(stderr, " %s", cmds[i].name);
	fprintf(stderr, "\n");
	return 2;
}
