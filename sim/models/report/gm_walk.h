/* SPDX-License-Identifier: MIT */
/*
 * gm_walk: a collective walked step by step, for `gcsim explain
 * --collective`. While the simulator runs a scenario at one size it hands
 * every completed step to gm_walk_on_step (gm_coll_opts.on_step); the walk
 * keeps them and then prints, for one rank's strand, each step with its
 * peers, its bytes and where its time went (waiting for the incoming
 * message, waiting for room at the receiver, its own message going out),
 * the ops it used in plain words, totals by op over every rank and strand,
 * and optionally an ASCII timeline of that strand on every rank, or every
 * step as CSV.
 *
 * Only the first operation (iteration 0) of back-to-back ones is kept.
 * Memory is one record per step, up to GM_WALK_MAX_STEPS; past that only
 * the steps the listing and the timeline show are kept (the totals still
 * count every step), and CSV output is refused.
 */
#ifndef GM_WALK_H
#define GM_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../core/gc_status.h"
#include "../exec/gm_coll.h"
#include "gm_report.h"

#define GM_WALK_MAX_STEPS 1000000
/* timeline: at most this many ranks drawn */
#define GM_WALK_MAX_TIMELINE_RANKS 64

typedef struct gm_walk_opts {
	uint32_t rank, strand; /* the strand listed */
	size_t max_rows;       /* its steps listed (0: all) */
	bool timeline;	       /* add the strand's timeline on every rank */
	bool csv;	       /* every step as CSV instead of the listing */
} gm_walk_opts;

typedef struct gm_walk gm_walk;

gm_walk *gm_walk_new(const gm_walk_opts *o);
void gm_walk_free(gm_walk *w);
/* gm_coll_opts.on_step: ctx is the walk */
void gm_walk_on_step(void *ctx, const gm_step_rec *rec);
/* Steps seen (iteration 0), and strands per rank. */
uint64_t gm_walk_steps(const gm_walk *w);
uint32_t gm_walk_strands(const gm_walk *w);

/* The walk of run r (one size, timed with gm_walk_on_step): GC_ERR_INPUT
 * with a message when the rank or strand asked for does not exist, or CSV
 * was asked for past GM_WALK_MAX_STEPS. */
gc_status gm_walk_format(const gm_walk *w, const gm_run *r, void *gstring_out, char **errmsg);

#endif
