/* SPDX-License-Identifier: MIT */
/* gcsim subcommands; each returns the process exit status. */
#ifndef CLI_H
#define CLI_H

#include "sim/core/gc_config.h"

#define GCSIM_VERSION "0.1.0"

int cli_run(int argc, char **argv);
int cli_models(int argc, char **argv);
int cli_version(int argc, char **argv);
int cli_hw(int argc, char **argv);
int cli_validate(int argc, char **argv);
int cli_explain(int argc, char **argv);
int cli_sweep(int argc, char **argv);

/* Parse argv with a GOption group; on error print it and return 2, on
 * --help print and return 0 via *done. */
int cli_parse(int *argc, char ***argv, const char *params, const char *summary,
	      const void *entries, int *done);

/* The exit status for a failure: 2 bad input (a deadlocked schedule is
 * one), 4 i/o, 7 out of memory, 1 anything else. */
int cli_exit_status(gc_status st);

/* Flush stdout: 0, or 4 after one line on stderr naming stdout and the
 * reason (a full disk, a closed pipe), printed once however often asked. */
int cli_flush_stdout(void);

/* At exit: flush and close stdout; the command's status rc, or 4 (with
 * cli_flush_stdout's message) where rc is 0 and stdout failed. */
int cli_close_stdout(int rc);

/* A scenario's own grid (sweep.key and sweep.values, and sweep.key2 and
 * sweep.values2) as "KEY=V1,V2,..." specs, NULL-terminated (g_strfreev),
 * or NULL when it has none. */
char **cli_scenario_sweep(const gc_config *cfg);

#endif
