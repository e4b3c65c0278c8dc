/* SPDX-License-Identifier: MIT */
/*
 * gm_scenario: the scenario schema (every key a scenario file may hold) and
 * the construction of a loaded, checked scenario configuration.
 *
 * The schema is the union of parameter tables: the document keys below, the
 * topology tables (sim/topologies) and the collective and simulation tables.
 */
#ifndef GM_SCENARIO_H
#define GM_SCENARIO_H

#include "../core/gc_config.h"

/* A gc_config with every scenario parameter table registered. */
gc_config *gm_scenario_config_new(void);

/* Load and check a scenario file: YAML errors, unknown keys, bad values and
 * cross-key constraints (schema_version, gpu counts) all come back as
 * GC_ERR_INPUT with "FILE:LINE:COLUMN: ..." in *errmsg. `sets` (may be NULL)
 * are --set KEY=VALUE overrides applied after the file. */
gc_status gm_scenario_load(const char *path, const char *const *sets, gc_config **out,
			   char **errmsg);
/* Same from memory (fuzzing, tests). */
gc_status gm_scenario_load_string(const char *name, const char *text, size_t len,
				  gc_config **out, char **errmsg);

#endif
