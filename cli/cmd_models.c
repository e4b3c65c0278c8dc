/* SPDX-License-Identifier: MIT */
/* gcsim models: the model registry and the scenario keys with defaults. */
#include <glib.h>
#include <stdio.h>

#include "cli.h"
#include "sim/core/gc_units.h"
#include "sim/models/run/gm_registry.h"
#include "sim/models/run/gm_scenario.h"

static const char *type_name(gc_ptype t)
{
	switch (t) {
	case GC_P_INT: return "integer";
	case GC_P_DOUBLE: return "number";
	case GC_P_BOOL: return "bool";
	case GC_P_BYTES: return "size";
	case GC_P_TIME: return "time";
	case GC_P_BW: return "bandwidth";
	case GC_P_ENUM: return "choice";
	case GC_P_STRING: return "text";
	case GC_P_BYTES_LIST: return "sizes";
	}
	return "?";
}

int cli_models(int argc, char **argv)
{
	gboolean keys = FALSE;
	GOptionEntry entries[] = {
		{"keys", 'k', 0, G_OPTION_ARG_NONE, &keys, "also list every scenario key with type, default and source", NULL},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	int done, rc = cli_parse(&argc, &argv, "", "List gcsim's models with their sources.", entries, &done);
	if (done)
		return rc;
	if (argc != 1) {
		fprintf(stderr, "gcsim models: unexpected argument '%s'\n", argv[1]);
		return 2;
	}
	printf("%-11s %-10s %s\n", "model", "kind", "description / source / keys");
	for (size_t i = 0; i < gm_registry_count(); i++) {
		const gm_model_info *m = gm_registry_at(i);
		printf("%-11s %-10s %s\n", m->name, m->kind, m->summary);
		printf("%-22s source: %s\n", "", m->citation);
		printf("%-22s keys: %s\n", "", m->params);
	}
	if (keys) {
		gc_config *cfg = gm_scenario_config_new();
		printf("\n%-28s %-10s %-12s %s\n", "scenario key", "type", "default", "meaning [source]");
		const gc_param *p;
		for (size_t i = 0; (p = gc_config_param_at(cfg, i)); i++) {
			printf("%-28s %-10s %-12s %s", p->key, type_name(p->type), p->def ? p->def : "(required)",
			       p->help);
			if (p->type == GC_P_ENUM)
				printf(" {%s}", p->choices);
			if (p->source)
				printf(" [%s]", p->source);
			printf("\n");
		}
		gc_config_free(cfg);
	}
	return 0;
}
