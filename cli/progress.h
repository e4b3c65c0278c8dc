/* SPDX-License-Identifier: MIT */
/*
 * The progress line of a long simulation and the warning before one.
 *
 * On a terminal's stderr (and nowhere else: stdout stays the deterministic
 * result, a redirected stderr gets no carriage returns) one line says what
 * is running: which size of how many (and which cell of a sweep), the share
 * of its steps done and the time left at the rate so far. Before a size
 * whose simulation is estimated to take more than a minute of one core
 * (gm_coll_estimate_s: from its steps and ranks, so the same run always
 * warns the same), one line on stderr, terminal or not, gives the estimate
 * and the faster alternatives. The estimate counts steps, not what each
 * costs; a size it let through that, at the pace of its first seconds,
 * will take more than a minute is announced then, once, the same way.
 */
#ifndef CLI_PROGRESS_H
#define CLI_PROGRESS_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/models/run/gm_run.h"

typedef struct cli_progress {
	const char *base;   /* "gcsim" or "gcsim sweep: cell 3 of 8 (V)" */
	const char *prefix; /* base, or base and a training step's phase */
	char pbuf[192];
	bool tty;	    /* the line; the warning is printed either way */
	size_t i, n;	    /* the size being timed, of n */
	uint64_t bytes;
	gint64 t0;	    /* when its steps began */
	gint64 shown;	    /* when the line was last drawn */
	bool paced;	    /* announced before, or its pace judged */
} cli_progress;

/* Hook p into o (progress, step_progress, phase_progress, progress_ctx);
 * prefix is kept by pointer. */
void cli_progress_attach(cli_progress *p, gm_run_opts *o, const char *prefix);
/* A duration for a person: "42 s", "17 min", "2.5 h". */
void cli_progress_fmt_secs(char *buf, size_t n, double s);
/* Erase the line, if one was drawn, and unhook o. */
void cli_progress_clear(cli_progress *p, gm_run_opts *o);

#endif
