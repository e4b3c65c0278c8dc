/* SPDX-License-Identifier: MIT */
/* Failures and checkpoint/restart over a training run (gm_resil.h). */
#include "gm_resil.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* splitmix64: the run's own stream, from the scenario's seed */
static uint64_t next_u64(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* An exponential draw of mean m. */
static double draw_exp(uint64_t *s, double m)
{
	double u = ((double)(next_u64(s) >> 11) + 0.5) * 0x1.0p-53; /* (0, 1) */
	return -m * log(u);
}

void gm_resil_run(const gm_resil_in *in, gm_resil_out *out)
{
	memset(out, 0, sizeof(*out));
	const double M = in->node_mtbf_s / (in->nodes > 0 ? in->nodes : 1);
	const double d = in->ckpt_s, t = in->step_s > 0 ? in->step_s : 1e-9;
	out->job_mtbf_s = M;
	out->young_steps = sqrt(2.0 * d * M) / t;
	out->daly_steps = d < 2.0 * M ? (sqrt(2.0 * d * M) - d) / t : M / t;
	int64_t k = in->interval;
	if (k <= 0)
		k = (int64_t)fmax(1.0, floor(out->daly_steps + 0.5));
	out->interval = k;
	uint64_t rng = in->seed ^ UINT64_C(0x5eed0f7a11);
	/* nodes in repair (at most the spares and one), by when each is back */
	const int cap = (in->spares > 0 ? in->spares : 0) + 1;
	double back[GM_RESIL_MAX_SPARES + 1];
	int inrep = 0;
	int64_t done = 0;
	double wall = 0;
	/* a segment: k steps (fewer at the end) and, unless it is the last,
	 * its checkpoint; a failure in it loses what it had done */
	while (done < in->steps) {
		int64_t n = in->steps - done < k ? in->steps - done : k;
		bool last = done + n >= in->steps;
		double len = (double)n * t + (last ? 0 : d);
		double f = draw_exp(&rng, M);
		if (f >= len) {
			wall += len;
			done += n;
			out->ckpt_s += last ? 0 : d;
			continue;
		}
		out->failures++;
		/* the work in flight is lost (a checkpoint cut short too) */
		out->lost_s += f;
		out->stall_s += in->timeout_s;
		out->restart_s += in->restart_s + d;
		const double tfail = wall + f;
		wall = tfail + in->timeout_s;
		if (in->repair_s > 0) {
			/* repairs done by now put their nodes back among the spares */
			for (int i = 0; i < inrep;)
				if (back[i] <= wall)
					back[i] = back[--inrep];
				else
					i++;
			back[inrep++] = tfail + in->repair_s; /* the node that failed */
			if (inrep > cap - 1) {
				/* no spare left: the job waits for the first node back */
				int first = 0;
				for (int i = 1; i < inrep; i++)
					if (back[i] < back[first])
						first = i;
				out->wait_s += fmax(0.0, back[first] - wall);
				out->waits++;
				wall = fmax(wall, back[first]);
				back[first] = back[--inrep];
			}
		}
		wall += in->restart_s + d;
		if (out->failures > INT64_C(100000000))
			break; /* a job that never gets through a segment */
	}
	out->wall_s = wall;
	out->useful_s = (double)done * t;
	out->goodput = wall > 0 ? out->useful_s / wall : 0;
}
