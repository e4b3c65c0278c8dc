/* SPDX-License-Identifier: MIT */
/*
 * Flat-cluster ring allreduce benchmark: N GPUs on one switch (50 GB/s, 1 us),
 * 1 MiB, flow-level fidelity (the default), as one fresh process per N so the
 * peak resident memory is this run's. Prints wall time, peak RSS, events and
 * the predicted time against the alpha-beta formula 2(n-1)(alpha + S/(nB)).
 * Every rank is simulated (sim.fold false: the executor's own speed) unless
 * the second argument is "folded" (one GPU stands for all, as gcsim run
 * does by default).
 *
 *   bench_flat [N] [folded]
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sim/models/run/gm_run.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1024;
	bool folded = argc > 2 && !strcmp(argv[2], "folded");
	char *yaml = g_strdup_printf(
		"schema_version: 1\n"
		"topology: {kind: flat, gpus: %d, link: {bandwidth: 50GB/s, latency: 1us}, launch_latency: 0us}\n"
		"collective: {op: allreduce, algo: ring, sizes: [1MiB]}\n"
		"sim: {fold: %s}\n", n, folded ? "true" : "false");
	char *path = NULL;
	int fd = g_file_open_tmp("gcsim-bench-XXXXXX.yaml", &path, NULL);
	if (fd < 0 || !g_file_set_contents(path, yaml, -1, NULL)) {
		fprintf(stderr, "bench_flat: cannot write a temporary scenario\n");
		return 1;
	}
	close(fd);
	gint64 t0 = g_get_monotonic_time();
	gm_run *run = NULL;
	char *err = NULL;
	gm_run_opts o = {0};
	gc_status st = gm_run_scenario(path, &o, &run, &err);
	double secs = (double)(g_get_monotonic_time() - t0) * 1e-6;
	remove(path);
	g_free(path);
	if (st != GC_OK) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double S = 1 << 20, B = 50e9, a = 1e-6;
	double formula = 2.0 * (n - 1) * (a + S / n / B) * 1e6;
	const gm_point *pt = &run->pts[0];
	printf("flat %d-GPU ring allreduce 1MiB%s: %.3f s wall, %.1f MB peak RSS, %llu events "
	       "(%.1f M events/s), predicted %.2f us, alpha-beta %.2f us (%+.3f%%)\n",
	       n, folded ? " (folded)" : "", secs, ru.ru_maxrss / 1024.0, (unsigned long long)pt->r.events,
	       (double)pt->r.events / secs * 1e-6, pt->time_us, formula,
	       100.0 * (pt->time_us - formula) / formula);
	gm_run_free(run);
	g_free(yaml);
	return 0;
}
