/* SPDX-License-Identifier: MIT */
/*
 * gh_stats: summary statistics of timed iterations and nccl-tests bandwidth.
 *
 * Percentiles use the nearest-rank definition on the sorted samples (p in
 * (0, 100]: rank ceil(p/100 * n)), so min = p0+, median = the lower middle
 * for even n and p99 of fewer than 100 samples is the maximum. Pure C, no
 * device needed.
 *
 * Bandwidth follows nccl-tests exactly: algbw = size / time (GB/s = 1e9 B/s,
 * size is nccl-tests' "size", see gs_params.bytes), busbw = algbw times the
 * collective's factor from gs_busbw_factor.
 */
#ifndef GH_STATS_H
#define GH_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sched/gs_sched.h"

typedef struct gh_summary {
	size_t n;
	double min, median, p99, max, mean;
} gh_summary;

/* Sorts samples in place. n == 0 gives all-NaN fields. */
void gh_stats_summarize(double *samples, size_t n, gh_summary *out);
/* Nearest-rank percentile of sorted samples. */
double gh_stats_percentile(const double *sorted, size_t n, double p);

double gh_stats_algbw_GBps(uint64_t bytes, double time_us);
double gh_stats_busbw_GBps(gs_coll c, int nranks, uint64_t bytes, double time_us);

/* Sizes from `from` to `to` (inclusive) multiplying by factor >= 2; writes
 * at most max entries and returns the count. */
size_t gh_stats_size_sweep(uint64_t from, uint64_t to, unsigned factor, uint64_t *out, size_t max);

#endif
