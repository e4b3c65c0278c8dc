/* SPDX-License-Identifier: MIT */
/* Shared by the gcsim subcommands: option parsing, exit statuses. */
#include <errno.h>
#include <glib.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli.h"

int cli_parse(int *argc, char ***argv, const char *params, const char *summary,
	      const void *entries, int *done)
{
	*done = 0;
	GOptionContext *ctx = g_option_context_new(params);
	g_option_context_set_summary(ctx, summary);
	g_option_context_add_main_entries(ctx, entries, NULL);
	GError *err = NULL;
	gboolean ok = g_option_context_parse(ctx, argc, argv, &err);
	g_option_context_free(ctx);
	if (!ok) {
		fprintf(stderr, "gcsim: %s (see --help)\n", err->message);
		g_error_free(err);
		*done = 1;
		return 2;
	}
	return 0;
}

char **cli_scenario_sweep(const gc_config *cfg)
{
	if (!gc_config_str(cfg, "sweep.key")[0])
		return NULL;
	char **specs = g_new0(char *, 3);
	specs[0] = g_strdup_printf("%s=%s", gc_config_str(cfg, "sweep.key"),
				   gc_config_str(cfg, "sweep.values"));
	if (gc_config_str(cfg, "sweep.key2")[0])
		specs[1] = g_strdup_printf("%s=%s", gc_config_str(cfg, "sweep.key2"),
					   gc_config_str(cfg, "sweep.values2"));
	return specs;
}

int cli_version(int argc, char **argv)
{
	printf("gcsim %s\n", GCSIM_VERSION);
	return 0;
}

int cli_exit_status(gc_status st)
{
	return st == GC_ERR_INPUT || st == GC_ERR_DEADLOCK ? 2
	       : st == GC_ERR_IO			    ? 4
	       : st == GC_ERR_NOMEM			    ? 7
							    : 1;
}

/* Whether stdout's failure was reported (one message per process). */
static bool stdout_reported;

static int stdout_failed(int e)
{
	if (!stdout_reported)
		fprintf(stderr, "%s: cannot write to stdout: %s\n",
			g_get_prgname() ? g_get_prgname() : "gcsim", g_strerror(e ? e : EIO));
	stdout_reported = true;
	return 4;
}

int cli_flush_stdout(void)
{
	errno = 0;
	if (fflush(stdout) != 0)
		return stdout_failed(errno);
	/* a write that failed before this flush left only the flag */
	return ferror(stdout) ? stdout_failed(0) : 0;
}

int cli_close_stdout(int rc)
{
	int st = cli_flush_stdout();
	errno = 0;
	if (fclose(stdout) != 0 && !st)
		st = stdout_failed(errno);
	return rc ? rc : st;
}
