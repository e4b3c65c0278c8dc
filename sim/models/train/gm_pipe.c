/* SPDX-License-Identifier: MIT */
/*
 * gm_pipe: the pipeline schedule (see gm_pipe.h). Each stage's ops are
 * listed in Megatron's order; the simulation starts, stage by stage, every
 * op whose dependency has ended, at the later of its stage's last op end
 * and the dependency's end plus the message's crossing, until every op
 * has run. The ops' end times are kept per virtual stage and
 * micro-batch.
 */
#include "gm_pipe.h"

#include <glib.h>
#include <math.h>
#include <stdbool.h>

/* One op of a stage's list: forward or backward of (chunk, micro-batch). */
typedef struct op {
	int chunk, mb;
	bool fwd;
} op;

/* The k-th forward (backward: fwd false) of a stage: its chunk and
 * micro-batch, micro-batches in groups of P, the chunks in order within a
 * group (reversed backward). */
static op nth_op(const gm_pipe_params *p, int k, bool fwd)
{
	const int P = p->stages, v = p->chunks;
	int in = k % (P * v);
	op o = {.fwd = fwd, .chunk = in / P, .mb = k / (P * v) * P + in % P};
	if (!fwd)
		o.chunk = v - 1 - o.chunk;
	return o;
}

/* Stage s's ops in Megatron's order: warm-up forwards, one forward and
 * one backward in turn, cool-down backwards. */
static op *stage_ops(const gm_pipe_params *p, int s, int *n)
{
	const int P = p->stages, v = p->chunks, total = p->micro_batches * v;
	int w = v == 1 ? P - s - 1 : 2 * (P - s - 1) + (v - 1) * P;
	if (w > total)
		w = total;
	op *ops = g_new(op, 2 * (size_t)total);
	int k = 0;
	for (int i = 0; i < w; i++)
		ops[k++] = nth_op(p, i, true);
	for (int i = 0; i < total - w; i++) {
		ops[k++] = nth_op(p, w + i, true);
		ops[k++] = nth_op(p, i, false);
	}
	for (int i = total - w; i < total; i++)
		ops[k++] = nth_op(p, i, false);
	*n = k;
	return ops;
}

gc_status gm_pipe_run(const gm_pipe_params *p, double *makespan_us, char **errmsg)
{
	const int P = p->stages, v = p->chunks, M = p->micro_batches, V = P * v;
	/* a message crosses between two stages; one stage keeps its chunks */
	const double hop = P > 1 ? p->p2p_us : 0;
	*makespan_us = 0;
	if (P < 1 || v < 1 || M < 1 || !(p->fwd_us >= 0) || !(p->bwd_us >= 0) ||
	    !(p->p2p_us >= 0)) {
		*errmsg = g_strdup_printf("pipeline of %d stages, %d chunks, %d micro-batches, ops "
					  "%g/%g us, messages %g us: out of range",
					  P, v, M, p->fwd_us, p->bwd_us, p->p2p_us);
		return GC_ERR_INPUT;
	}
	if (v > 1 && M % P != 0) {
		*errmsg = g_strdup_printf("an interleaved pipeline takes its micro-batches in groups "
					  "of the %d stages; %d is not a multiple",
					  P, M);
		return GC_ERR_INPUT;
	}
	op **ops = g_new(op *, (size_t)P);
	int *nops = g_new(int, (size_t)P), *next = g_new0(int, (size_t)P);
	double *free_at = g_new0(double, (size_t)P);
	/* end times per virtual stage and micro-batch; NAN: not yet run */
	double *fend = g_new(double, (size_t)V * M), *bend = g_new(double, (size_t)V * M);
	for (size_t i = 0; i < (size_t)V * M; i++)
		fend[i] = bend[i] = NAN;
	for (int s = 0; s < P; s++)
		ops[s] = stage_ops(p, s, &nops[s]);
	int left = 0;
	for (int s = 0; s < P; s++)
		left += nops[s];
	gc_status st = GC_OK;
	while (left > 0) {
		bool progress = false;
		for (int s = 0; s < P; s++)
			while (next[s] < nops[s]) {
				const op o = ops[s][next[s]];
				const int u = o.chunk * P + s; /* its virtual stage */
				double ready = 0;
				if (o.fwd && u > 0) { /* the previous virtual stage's forward */
					double e = fend[(size_t)(u - 1) * M + o.mb];
					if (isnan(e))
						break;
					ready = e + hop;
				} else if (!o.fwd && u < V - 1) { /* the next one's backward */
					double e = bend[(size_t)(u + 1) * M + o.mb];
					if (isnan(e))
						break;
					ready = e + hop;
				} else if (!o.fwd) { /* the last virtual stage: its own forward */
					double e = fend[(size_t)u * M + o.mb];
					if (isnan(e))
						break;
					ready = e;
				}
				double start = fmax(ready, free_at[s]);
				free_at[s] = start + (o.fwd ? p->fwd_us : p->bwd_us);
				(o.fwd ? fend : bend)[(size_t)u * M + o.mb] = free_at[s];
				*makespan_us = fmax(*makespan_us, free_at[s]);
				next[s]++;
				left--;
				progress = true;
			}
		if (!progress) {
			int s = 0;
			while (next[s] >= nops[s])
				s++;
			*errmsg = g_strdup_printf("pipeline schedule stuck: stage %d waits at op %d of %d "
						  "(%d stages, %d chunks, %d micro-batches)",
						  s, next[s], nops[s], P, v, M);
			st = GC_ERR_INTERNAL;
			break;
		}
	}
	for (int s = 0; s < P; s++)
		g_free(ops[s]);
	g_free(ops);
	g_free(nops);
	g_free(next);
	g_free(free_at);
	g_free(fend);
	g_free(bend);
	return st;
}
