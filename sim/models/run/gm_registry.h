/* SPDX-License-Identifier: MIT */
/*
 * gm_registry: the ordered table of every model gcsim implements, with a one
 * line description and the source it follows; printed by `gcsim models`.
 */
#ifndef GM_REGISTRY_H
#define GM_REGISTRY_H

#include <stddef.h>

typedef struct gm_model_info {
	const char *name;
	const char *kind; /* engine, link, device, topology, algorithm, fidelity */
	const char *summary;
	const char *citation;
	const char *params; /* the scenario keys it reads, comma separated */
} gm_model_info;

size_t gm_registry_count(void);
const gm_model_info *gm_registry_at(size_t i);
const gm_model_info *gm_registry_find(const char *name);

#endif
