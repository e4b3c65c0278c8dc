/* SPDX-License-Identifier: MIT */
/*
 * Scenario benchmark: runs one scenario file (flow fidelity unless it says
 * otherwise) in this process and prints, per size, the predicted time, the
 * events, the flow-rate solves and the engine's peak queue, then the wall
 * time and peak resident memory of the whole run. For contended runs
 * (trees, NVLS) where the cost is in the solves rather than the events.
 */
#include <glib.h>
#include <stdio.h>
#include <sys/resource.h>

#include "sim/models/run/gm_run.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bench_scenario SCENARIO.yaml\n");
		return 2;
	}
	gint64 t0 = g_get_monotonic_time();
	gm_run *run = NULL;
	char *err = NULL;
	gm_run_opts o = {0};
	if (gm_run_scenario(argv[1], &o, &run, &err) != GC_OK) {
		fprintf(stderr, "%s\n", err);
		g_free(err);
		return 1;
	}
	double secs = (double)(g_get_monotonic_time() - t0) * 1e-6;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	for (size_t i = 0; i < run->npts; i++) {
		const gm_point *pt = &run->pts[i];
		printf("  %llu B: %.1f us, %llu events, %llu rate solves, queue peak %llu\n",
		       (unsigned long long)pt->bytes,
		       pt->time_us, (unsigned long long)pt->r.events,
		       (unsigned long long)pt->r.flow_recomputes, (unsigned long long)pt->r.heap_peak);
	}
	printf("  %.3f s wall, %.1f MB peak RSS\n", secs, ru.ru_maxrss / 1024.0);
	gm_run_free(run);
	return 0;
}
