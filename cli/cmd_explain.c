/* SPDX-License-Identifier: MIT */
/*
 * gcsim explain: teach the communication-type taxonomy with the simulator's
 * own numbers. Alone it lists every type; --path walks one type step by
 * step; --compare tabulates the types of a scope; --scenario runs an explain
 * study from a file. Options become configuration values (explain.*), so a
 * scenario file, the options and --set all go through the same typed tables
 * and the same error messages. Output is written only after the whole study
 * succeeded; errors are one line on stderr with status 2 (bad input or a
 * type the platform refuses) or 4 (i/o).
 */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sim/core/gc_units.h"
#include "sim/models/gm_scenario.h"
#include "sim/models/gm_tx.h"

static int fail(const char *msg)
{
	fprintf(stderr, "gcsim explain: %s\n", msg);
	return 2;
}

int cli_explain(int argc, char **argv)
{
	char *path = NULL, *variant = NULL, *bytes = NULL, *platform = NULL, *compare = NULL;
	char *format = NULL, *trace = NULL, *scenario = NULL, *sweep = NULL;
	char **sets = NULL;
	gint64 messages = -1;
	gboolean timeline = FALSE;
	GOptionEntry entries[] = {
		{"path", 'p', 0, G_OPTION_ARG_STRING, &path,
		 "walk one type: intra:1..4, inter:1..5 or roundtrip", "TYPE"},
		{"variant", 'v', 0, G_OPTION_ARG_STRING, &variant,
		 "variant of the type (inter:3: cpu or proxy; intra:2: ce or kernel)", "V"},
		{"bytes", 'b', 0, G_OPTION_ARG_STRING, &bytes, "payload per message (default 8B)", "SIZE"},
		{"platform", 0, 0, G_OPTION_ARG_STRING, &platform, "dgx-h100 (default), dgx-a100, p5 or p4d", "P"},
		{"compare", 'c', 0, G_OPTION_ARG_STRING, &compare, "compare the intra or inter types", "SCOPE"},
		{"format", 'f', 0, G_OPTION_ARG_STRING, &format, "compare output: table (default) or csv", "FMT"},
		{"messages", 'm', 0, G_OPTION_ARG_INT64, &messages,
		 "compare: add the sustained rate of K back-to-back messages", "K"},
		{"timeline", 0, 0, G_OPTION_ARG_NONE, &timeline, "path: add an ASCII timeline", NULL},
		{"trace", 't', 0, G_OPTION_ARG_FILENAME, &trace,
		 "path: write a Perfetto trace, one track per component", "FILE"},
		{"scenario", 0, 0, G_OPTION_ARG_FILENAME, &scenario, "run the explain study of a scenario file", "FILE"},
		{"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
		 "override a parameter, e.g. --set proxy.flag_read=gdrcopy (repeatable)", "KEY=VALUE"},
		{"sweep", 0, 0, G_OPTION_ARG_STRING, &sweep,
		 "repeat the study once per value of one key (explain.vary), e.g. --sweep "
		 "explain.bytes=8B,512B,4KiB", "KEY=V1,V2,..."},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	int done, rc = cli_parse(&argc, &argv, "",
				 "Explain the communication types of Unat et al. (intra-node 1-4,\n"
				 "inter-node 1-5) as paths through GPUs, PCIe, host, CPU proxy, NIC and wire.\n"
				 "Without options, list the types. Examples:\n"
				 "  gcsim explain --path inter:3 --variant proxy --bytes 8\n"
				 "  gcsim explain --compare inter --bytes 512 --messages 20000\n"
				 "  gcsim explain --path inter:5 --platform p5   (refused: no GPUDirect Async)",
				 entries, &done);
	gc_config *cfg = NULL;
	GString *out = NULL;
	char *err = NULL;
	GPtrArray *all = g_ptr_array_new_with_free_func(g_free);
	if (done)
		goto out;
	rc = 2;
	if (argc != 1) {
		fprintf(stderr, "gcsim explain: unexpected argument '%s' (see --help)\n", argv[1]);
		goto out;
	}
	if (path && compare) {
		rc = fail("--path and --compare exclude each other");
		goto out;
	}
	if (compare && strcmp(compare, "intra") && strcmp(compare, "inter")) {
		err = g_strdup_printf("--compare: expected intra or inter, got '%s'", compare);
		rc = fail(err);
		goto out;
	}
	if (format && strcmp(format, "csv") && strcmp(format, "table")) {
		err = g_strdup_printf("--format: expected table or csv, got '%s'", format);
		rc = fail(err);
		goto out;
	}
	if (platform && !gm_tx_platform_summary(platform)) {
		char **alts = g_strsplit(gm_tx_platform_choices(), "|", -1);
		char *list = g_strjoinv(", ", alts);
		err = g_strdup_printf("--platform: expected one of %s; got '%s'", list, platform);
		g_free(list);
		g_strfreev(alts);
		rc = fail(err);
		goto out;
	}
	if (bytes) {
		uint64_t b;
		const char *why = NULL;
		if (gc_parse_bytes(bytes, &b, &why) != GC_OK || b == 0) {
			err = g_strdup_printf("--bytes: expected a positive size such as 8B, 4KiB or 1GiB, got '%s'",
					      bytes);
			rc = fail(err);
			goto out;
		}
	}
	if (messages != -1 && (messages < 1 || messages > GM_TX_MAX_MESSAGES)) {
		err = g_strdup_printf("--messages: expected 1 to %d, got %lld", GM_TX_MAX_MESSAGES,
				      (long long)messages);
		rc = fail(err);
		goto out;
	}
	if (messages != -1 && !compare && !scenario) {
		rc = fail("--messages needs --compare");
		goto out;
	}
	if ((variant || timeline || trace) && !path && !scenario) {
		rc = fail("--variant, --timeline and --trace need --path");
		goto out;
	}
	if (path)
		g_ptr_array_add(all, g_strdup_printf("explain.mode=path"));
	if (compare)
		g_ptr_array_add(all, g_strdup_printf("explain.mode=compare"));
	if (path)
		g_ptr_array_add(all, g_strdup_printf("explain.path=%s", path));
	if (variant)
		g_ptr_array_add(all, g_strdup_printf("explain.variant=%s", variant));
	if (compare)
		g_ptr_array_add(all, g_strdup_printf("explain.scope=%s", compare));
	if (bytes)
		g_ptr_array_add(all, g_strdup_printf("explain.bytes=%s", bytes));
	if (platform)
		g_ptr_array_add(all, g_strdup_printf("explain.platform=%s", platform));
	if (format)
		g_ptr_array_add(all, g_strdup_printf("explain.format=%s", format));
	if (messages != -1)
		g_ptr_array_add(all, g_strdup_printf("explain.messages=%lld", (long long)messages));
	for (char **s = sets; s && *s; s++)
		g_ptr_array_add(all, g_strdup(*s));
	if (sweep)
		g_ptr_array_add(all, g_strdup_printf("explain.vary=%s", sweep));

	cfg = gm_scenario_config_new();
	gm_tx_register_study_params(cfg);
	gc_status st = GC_OK;
	if (scenario) {
		st = gc_config_load_file(cfg, scenario, &err);
		if (st == GC_OK)
			st = gc_config_require(cfg, "schema_version", &err);
		if (st == GC_ERR_IO)
			st = GC_ERR_INPUT;
	}
	for (guint i = 0; st == GC_OK && i < all->len; i++)
		st = gc_config_set(cfg, all->pdata[i], &err);
	out = g_string_new(NULL);
	if (st == GC_OK)
		st = gm_tx_study_run(cfg, trace, timeline, out, &err);
	if (st != GC_OK) {
		fprintf(stderr, "gcsim explain: %s\n", err ? err : "failed");
		rc = st == GC_ERR_INPUT ? 2 : st == GC_ERR_IO ? 4 : 1;
		goto out;
	}
	fwrite(out->str, 1, out->len, stdout);
	rc = fflush(stdout) == 0 ? 0 : 4;
out:
	if (out)
		g_string_free(out, TRUE);
	gc_config_free(cfg);
	g_ptr_array_free(all, TRUE);
	g_free(err);
	g_free(path);
	g_free(variant);
	g_free(bytes);
	g_free(platform);
	g_free(compare);
	g_free(format);
	g_free(trace);
	g_free(scenario);
	g_free(sweep);
	g_strfreev(sets);
	return rc;
}
