/* SPDX-License-Identifier: MIT */
/*
 * fuzz_scenario: libFuzzer harness for the scenario loader.
 *
 * Each input is loaded with gm_scenario_load_string() under the name
 * "fuzz.yaml". Properties checked (a violation aborts, which libFuzzer
 * reports as a crash):
 *  - the loader never crashes, leaks or trips a sanitizer;
 *  - a failure returns no config and exactly one message of the form
 *    "fuzz.yaml:LINE:COLUMN: TEXT" with LINE, COLUMN >= 1, TEXT non-empty
 *    and no newline anywhere;
 *  - a success yields a config whose effective dump (gc_config_dump) loads
 *    back into a fresh scenario config and dumps to the same values: the
 *    printers and parsers of every parameter type round-trip.
 *
 * Build and run: `make fuzz`, then build/fuzz_scenario tests/fuzz/corpus/scenario.
 */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/models/run/gm_scenario.h"

#define FUZZ_NAME "fuzz.yaml"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(const char *err)
{
	const char *p = err;
	size_t prefix = strlen(FUZZ_NAME);

	if (!err || strncmp(err, FUZZ_NAME ":", prefix + 1) != 0)
		abort();
	p += prefix + 1;
	/* LINE and COLUMN: decimal numbers, not starting with 0. */
	for (int field = 0; field < 2; field++) {
		if (*p < '1' || *p > '9')
			abort();
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p++ != ':')
			abort();
	}
	if (*p++ != ' ' || *p == '\0')
		abort();
	if (strchr(err, '\n') || strchr(err, '\r'))
		abort();
}

/* A dump without its "  # origin" comments, which name positions. */
static char *dump_values(const gc_config *cfg)
{
	GString *d = g_string_new(NULL), *out = g_string_new(NULL);
	char **lines;

	gc_config_dump(cfg, d);
	lines = g_strsplit(d->str, "\n", -1);
	for (char **l = lines; *l; l++) {
		char *hash = g_strrstr(*l, "  # ");

		if (hash)
			*hash = '\0';
		g_string_append(out, *l);
		g_string_append_c(out, '\n');
	}
	g_strfreev(lines);
	g_string_free(d, TRUE);
	return g_string_free(out, FALSE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gc_config *cfg = NULL, *again;
	char *err = NULL, *v1, *v2;
	GString *dump;
	gc_status st;

	st = gm_scenario_load_string(FUZZ_NAME, (const char *)data, size, &cfg, &err);
	if (st != GC_OK) {
		if (cfg)
			abort();
		check_message(err);
		g_free(err);
		return 0;
	}
	if (!cfg || err)
		abort();

	/* The effective configuration must load back to the same values. */
	dump = g_string_new(NULL);
	gc_config_dump(cfg, dump);
	again = gm_scenario_config_new();
	if (gc_config_load_string(again, "dump.yaml", dump->str, dump->len, &err) != GC_OK) {
		fprintf(stderr, "dump does not load back: %s\n%s", err, dump->str);
		abort();
	}
	v1 = dump_values(cfg);
	v2 = dump_values(again);
	if (strcmp(v1, v2) != 0) {
		fprintf(stderr, "dump round trip differs:\n%s---\n%s", v1, v2);
		abort();
	}
	g_free(v1);
	g_free(v2);
	g_string_free(dump, TRUE);
	gc_config_free(again);
	gc_config_free(cfg);
	return 0;
}
