/* SPDX-License-Identifier: MIT */
/*
 * gh_stats: percentiles, summaries and nccl-tests bandwidth (see gh_stats.h).
 */
#include "gh_stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double gh_stats_percentile(const double *sorted, size_t n, double p)
{
	if (n == 0)
		return NAN;
	if (p <= 0)
		return sorted[0];
	double r = ceil(p / 100.0 * (double)n);
	size_t k = r < 1 ? 1 : (size_t)r;
	if (k > n)
		k = n;
	return sorted[k - 1];
}

void gh_stats_summarize(double *samples, size_t n, gh_summary *out)
{
	out->n = n;
	if (n == 0) {
		out->min = out->median = out->p99 = out->max = out->mean = NAN;
		return;
	}
	qsort(samples, n, sizeof(double), cmp_double);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += samples[i];
	out->min = samples[0];
	out->max = samples[n - 1];
	out->median = gh_stats_percentile(samples, n, 50);
	out->p99 = gh_stats_percentile(samples, n, 99);
	out->mean = sum / (double)n;
}

double gh_stats_algbw_GBps(uint64_t bytes, double time_us)
{
	if (!(time_us > 0))
		return NAN;
	return (double)bytes / (time_us * 1e-6) / 1e9;
}

double gh_stats_busbw_GBps(gs_coll c, int nranks, uint64_t bytes, double time_us)
{
	return gh_stats_algbw_GBps(bytes, time_us) * gs_busbw_factor(c, nranks);
}

size_t gh_stats_size_sweep(uint64_t from, uint64_t to, unsigned factor, uint64_t *out, size_t max)
{
	size_t n = 0;
	if (factor < 2 || from == 0)
		return 0;
	for (uint64_t s = from; s <= to && n < max; s *= factor) {
		out[n++] = s;
		if (s > UINT64_MAX / factor)
			break;
	}
	return n;
}
