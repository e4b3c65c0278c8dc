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

#include "../../core/gc_config.h"

/* A gc_config with every scenario parameter table registered. */
gc_config *gm_scenario_config_new(void);

/* Load and check a scenario file: YAML errors, unknown keys, bad values and
 * cross-key constraints (schema_version, gpu counts) all come back as
 * GC_ERR_INPUT with "FILE:LINE:COLUMN: ..." in *errmsg. `sets` (may be NULL)
 * are --set KEY=VALUE overrides applied after the file. */
gc_status gm_scenario_load(const char *path, const char *const *sets, gc_config **out,
			   char **errmsg);
/* Same, with where[i] (where may be NULL, an entry NULL) naming where
 * sets[i] stands when it did not come from the command line: the
 * "FILE:LINE:COLUMN" of a value of the scenario's own sweep, which its
 * messages then name instead of --set. */
gc_status gm_scenario_load_at(const char *path, const char *const *sets,
			      const char *const *where, gc_config **out, char **errmsg);
/* Where each value of a scenario's sweep (vname: sweep.values or
 * sweep.values2, split at ',' as the sweep splits it) stands in its file,
 * as "FILE:LINE:COLUMN", NULL-terminated (g_strfreev); NULL when the
 * values did not come from the file. */
char **gm_scenario_sweep_where(const gc_config *cfg, const char *vname);
/* Same from memory (fuzzing, tests). */
gc_status gm_scenario_load_string(const char *name, const char *text, size_t len,
				  gc_config **out, char **errmsg);

#endif
