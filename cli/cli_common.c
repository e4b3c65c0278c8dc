/* SPDX-License-Identifier: MIT */
/* Shared by the gcsim subcommands: option parsing, exit statuses. */
#include <glib.h>
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
	return st == GC_ERR_INPUT || st == GC_ERR_DEADLOCK ? 2 : st == GC_ERR_IO ? 4 : 1;
}
