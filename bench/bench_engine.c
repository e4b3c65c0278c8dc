/* SPDX-License-Identifier: MIT */
/*
 * Hold-model benchmark of the event engine (Vaucher and Duval, 1975): a queue
 * of N pending events; each handled event schedules one new event at now +
 * a delay drawn uniformly from [0, 2 us) in picoseconds, so the queue size
 * stays N and nearly every event has a distinct time (the engine's worst
 * case: no two events share a bucket). Reports events per second.
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/ge_engine.h"

typedef struct hold {
	uint32_t id;
	uint64_t left;
} hold;

static gc_status h_handle(ge_engine *e, void *self, const ge_event *ev)
{
	hold *h = self;
	if (h->left == 0)
		return GC_OK;
	h->left--;
	/* uniform increment in [0, 2 us) picoseconds: mean 1 us */
	ge_time d = (ge_time)(gc_rng_next(ge_entity_rng(e, h->id)) % 2000000);
	ge_schedule(e, e->now + d, h->id, 0, ev->arg);
	return GC_OK;
}

static const ge_entity_ops hold_ops = {.name = "hold", .handle = h_handle};

int main(int argc, char **argv)
{
	uint64_t events = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000;
	const uint64_t sizes[] = {64, 1024, 16384};
	for (size_t k = 0; k < G_N_ELEMENTS(sizes); k++) {
		ge_engine e;
		ge_engine_init(&e, 1);
		hold h = {.left = events};
		h.id = ge_entity_add(&e, &hold_ops, &h);
		for (uint64_t i = 0; i < sizes[k]; i++)
			ge_schedule(&e, (ge_time)i, h.id, 0, i);
		gint64 t0 = g_get_monotonic_time();
		ge_run(&e, GE_TIME_MAX);
		double secs = (double)(g_get_monotonic_time() - t0) * 1e-6;
		printf("engine hold model: queue %6llu, %llu events in %.3f s = %.1f M events/s\n",
		       (unsigned long long)sizes[k], (unsigned long long)e.events_handled, secs,
		       (double)e.events_handled / secs * 1e-6);
		ge_engine_fini(&e);
	}
	return 0;
}
