/* SPDX-License-Identifier: MIT */
/*
 * Failures and checkpoint/restart over a training run (resilience.*).
 *
 * A job of N nodes, each failing as a Poisson process of mean time between
 * failures M (the job's: M / N), runs S steps of t seconds each, writing a
 * checkpoint of B bytes at a storage bandwidth W every k steps (d = B / W,
 * the job stopped meanwhile). A failure stalls the step in flight (its
 * collectives wait on the dead node) until the watchdog's timeout fires;
 * then the job is torn down and relaunched (communicators made again:
 * resilience.restart), reloads the last checkpoint (B / W) and recomputes
 * the steps since it. The run is simulated with the scenario's seed, one
 * segment of k steps and its checkpoint at a time, failures drawn from the
 * exponential distribution; goodput is the useful step time over the wall
 * time. Young's optimum interval is sqrt(2 d M_job) of work (Young, CACM
 * 1974), Daly's sqrt(2 d M_job) - d to first order (Daly, FGCS 2006).
 * With a repair time R > 0 a failed node is out for R: the job restarts
 * on a hot spare when one is free (spares come back when repaired), and
 * otherwise waits for the earliest repair to end before it relaunches.
 */
#ifndef GM_RESIL_H
#define GM_RESIL_H

#include <stdint.h>

#define GM_RESIL_MAX_SPARES 4096

typedef struct gm_resil_in {
	double step_s;	      /* one step */
	int nodes;
	double node_mtbf_s;   /* per node */
	double timeout_s;     /* detection: the collective's watchdog */
	double restart_s;     /* teardown, relaunch, communicator init */
	double ckpt_s;	      /* write one checkpoint (and read it back) */
	int64_t interval;     /* steps between checkpoints; 0: Young/Daly's */
	int64_t steps;	      /* the run */
	uint64_t seed;
	/* the node that failed: repaired repair_s later (0: replaced at once,
	 * spares unused); meanwhile the job restarts on one of `spares` hot
	 * spare nodes, or, with none left, waits for the first repair to end */
	double repair_s;
	int spares;
} gm_resil_in;

typedef struct gm_resil_out {
	double job_mtbf_s;
	double young_steps, daly_steps; /* the optimum interval, in steps */
	int64_t interval;		/* used */
	double wall_s, useful_s, goodput; /* goodput: useful / wall */
	int64_t failures;
	/* where the lost time went, summed over the run */
	double lost_s;	  /* work since the last checkpoint, done again */
	double stall_s;	  /* waiting for the watchdog */
	double restart_s; /* relaunches and checkpoint reloads */
	double ckpt_s;	  /* checkpoint writes */
	double wait_s;	  /* waiting for a repaired node, no spare left (repair_s > 0) */
	int64_t waits;	  /* failures that found no spare */
} gm_resil_out;

void gm_resil_run(const gm_resil_in *in, gm_resil_out *out);

#endif
