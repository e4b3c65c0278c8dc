/* SPDX-License-Identifier: MIT */
/*
 * gh_vrank: the timing model of the schedule interpreter's virtual ranks
 * (hw/kernels/gh_interp.cu), so that what it measures on one GPU can be
 * predicted for schedules not used to fit it.
 *
 * Why a model of its own rather than a flat cluster of links: on one GPU
 * the resource a virtual rank spends is not a link but its thread blocks.
 * Every (rank, strand) is one block that executes its steps in order, each
 * message cut into pieces of at most one mailbox slot (GH_SLOT_BYTES; an LL
 * message of at most GH_LL_MAX bytes is one piece), and every piece is one
 * pass of the block over its bytes: read the received slot and/or the
 * local operand, reduce, write the output and/or the next slot. So
 *  - a strand's receive-only and send-only steps cost a pass each, as its
 *    forwarding ones do (ring allreduce: 2n - 1 passes of S/n per loop,
 *    not the 2(n - 1) link crossings of a cluster);
 *  - strands of one rank run side by side (a tree's up and down strands
 *    are two blocks, not one link carrying both directions);
 *  - a piece that receives starts once its sender's block has finished
 *    that piece (the head counter it waits for) and its own block is free.
 * The model replays the packed plan the kernel runs (gh_interp_plan) piece
 * by piece with those rules:
 *   piece = piece_us + bytes / rate,   T = launch_us + the last block's end,
 * and 1/rate = h / l2_GBps + (1 - h) / hbm_GBps, h = min(1, l2 bytes /
 * the launch's working set: every rank's arena and every mailbox), since a
 * block's loads are latency-bound (one load per thread per pass, 512
 * threads) and their latency is the L2's while the launch's data stays in
 * it, HBM's once it does not. One-sided ops: a PUT is one pass over its
 * bytes; a SIGNAL arrives when its strand reaches it; a WAIT ends at the
 * arrival that meets its threshold.
 *
 * Under LL128 a receiver polls its lines as under LL (an LL hop, no head
 * wait) and a piece carries GH_LL128_PIECE data bytes; with K blocks per
 * strand a pass moves the largest block's share of the piece, and a step
 * where the blocks meet (GH_P_SYNC) costs one piece_us more. Those two
 * follow the kernel's structure; no recording has fitted them yet.
 *
 * The model is max-plus in its parameters, so along the critical path the
 * time is launch + pieces * piece_us + bytes / rate: gh_vrank_time returns
 * those counts too, and gh_vrank_fit fits the parameters to measured
 * points by weighted least squares on the relative error, repeating until
 * the critical paths stop changing.
 */
#ifndef GH_VRANK_H
#define GH_VRANK_H

#include <stddef.h>
#include <stdint.h>

#include "hw/gh_interp.h"
#include "sim/core/gc_results.h"

typedef struct gh_vrank_model {
	double launch_us; /* once per launch (the events around it included) */
	double piece_us;  /* per piece: the waits, fences and block barriers */
	double l2_GBps;	  /* a block's pass rate while the working set fits in L2 */
	double hbm_GBps;  /* ... once it does not */
	double l2_bytes;  /* the GPU's L2 */
	double ll_hop_us; /* an LL line's latency from one block to another */
} gh_vrank_model;

typedef struct gh_vrank_path {
	double time_us;	       /* predicted time of one launch */
	double pieces;	       /* pieces on the critical path */
	double bytes;	       /* bytes passed on the critical path */
	double hops;	       /* LL line latencies on the critical path */
	double hit;	       /* h, the share of the working set in L2 */
	double working_set;    /* bytes: every arena and mailbox */
} gh_vrank_path;

/* Bytes one launch touches: nranks arenas and every connection's slots. */
double gh_vrank_working_set(const gh_interp_plan *plan);

/* Replays the plan; GC_ERR_INPUT (with the first blocked strand named) when
 * the plan cannot finish, which a validated schedule never does. */
gc_status gh_vrank_time(const gh_interp_plan *plan, const gh_vrank_model *m, gh_vrank_path *out,
			char **errmsg);

/* p's schedule, validated and packed: what the kernel and the model both
 * take (gcsim hw interp builds p with GH_INTERP_CHUNK and GH_INTERP_SLICE).
 * On success free *s with gs_sched_free and plan with gh_interp_plan_clear;
 * on failure nothing is left allocated. */
gc_status gh_vrank_plan(const gs_params *p, gs_sched **s, gh_interp_plan *plan, char **errmsg);

/* Fits launch_us, piece_us, l2_GBps and hbm_GBps (l2_bytes as given in
 * *m) to the measured points of (coll, algo) at `ranks` in pts (interp
 * points: allreduce ring, say), the schedule built with `channels`
 * channels. *maxerr: the largest relative error over those points.
 * GC_ERR_INPUT with the reason when fewer than 4 points or a parameter
 * would not be positive. */
gc_status gh_vrank_fit(const gc_result_point *pts, size_t n, const char *coll, const char *algo,
		       int ranks, int channels, gh_vrank_model *m, size_t *used, double *maxerr,
		       char **errmsg);

#endif
