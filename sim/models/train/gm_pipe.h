/* SPDX-License-Identifier: MIT */
/*
 * gm_pipe: a pipeline-parallel training step's schedule, simulated op by
 * op: Megatron-LM's 1F1B (PipeDream-Flush) and its interleaved variant
 * with v model chunks per stage (Narayanan et al., SC'21).
 *
 * Every stage runs its forward (F) and backward (B) ops in Megatron's
 * order, one after the other:
 *   plain (v = 1): stage s runs w = min(P - s - 1, M) forwards, then M - w
 *       pairs of one forward and one backward, then the w last backwards;
 *   interleaved: w = min(2 (P - s - 1) + (v - 1) P, M v) forwards, pairs,
 *       then backwards, the k-th forward of a stage taking model chunk
 *       (k mod P v) / P of micro-batch (k / P v) P + k mod P (micro-batches
 *       in groups of P, so M must be a multiple of P, as Megatron-LM
 *       requires), the k-th backward the chunks in reverse.
 * Virtual stage c P + s is chunk c of stage s. F of a micro-batch on
 * virtual stage u starts once F on u - 1 has ended and its activations
 * have crossed to this stage (p2p_us); B on u once B on u + 1 has ended and
 * its gradient has crossed back (B on the last virtual stage follows its
 * own F). With p2p_us = 0 and equal ops the plain schedule takes
 * (M + P - 1)(F + B): a bubble of (P - 1) / M of the work; interleaved,
 * (P - 1)(F + B) / v (F and B a whole stage's).
 *
 * Every stage takes the same op times (the fullest stage's).
 */
#ifndef GM_PIPE_H
#define GM_PIPE_H

#include "../../core/gc_status.h"

typedef struct gm_pipe_params {
	int stages;	   /* P >= 1 */
	int chunks;	   /* v >= 1, model chunks per stage */
	int micro_batches; /* M >= 1 */
	double fwd_us;	   /* one chunk's forward of one micro-batch */
	double bwd_us;	   /* and its backward */
	double p2p_us;	   /* one message between consecutive virtual stages on two stages */
} gm_pipe_params;

/* The time from the first op's start to the last op's end, us. An order
 * that cannot finish (it never does for Megatron's orders) is an
 * internal error with the stuck stage named. */
gc_status gm_pipe_run(const gm_pipe_params *p, double *makespan_us, char **errmsg);

#endif
