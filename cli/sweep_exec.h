/* SPDX-License-Identifier: MIT */
/*
 * Running a sweep's cells: one after another in this process, or in worker
 * processes (gcsim sweep --jobs N) that each take the next cell when they
 * finish one and hand its record back through a pipe. Either way this
 * process is the only writer of the results file (one transaction per
 * cell, as it arrives), so the file never sees two writers and the table
 * built from it afterwards is the same for every N.
 */
#ifndef SWEEP_EXEC_H
#define SWEEP_EXEC_H

#include <glib.h>
#include <stdbool.h>

#include "sim/core/gc_results.h"

typedef struct sweep_exec {
	/* run cell k and fill rec; show: per-size progress on stderr */
	gc_status (*run)(void *ctx, guint k, bool show, gc_run_record *rec, char **err);
	void *ctx;
	const char *results; /* the results file every record goes to */
	guint ncells;	     /* cells of the whole grid, for the progress line */
	bool tty;	     /* progress on stderr */
} sweep_exec;

/* Run the cells todo[0..ntodo) in `jobs` processes (1: this one) and store
 * each record as it comes. Stops taking new cells at the first failure,
 * lets the running ones finish (and keeps them), and returns the failure of
 * the lowest cell index that failed, with that index in *fail_k and the
 * message in *err; GC_OK when every cell was stored. *ran counts the cells
 * stored. */
gc_status sweep_exec_cells(const sweep_exec *x, const guint *todo, guint ntodo, int jobs, guint *ran,
			   guint *fail_k, char **err);

/* A worker's answer for cell k, run in this process: the packed record
 * (*st GC_OK) or the error message, *len bytes (g_free it). */
void *sweep_exec_answer(const sweep_exec *x, guint k, gc_status *st, size_t *len);
/* For the MPI coordinator as for the worker processes: one answer for
 * cell k (status, and buf of len bytes: the packed record, or the error
 * message; buf is taken) stored, or the failure kept when its cell is the
 * lowest failed so far (*fail_k, *fst, *err). */
void sweep_exec_take(const sweep_exec *x, guint k, gc_status status, char *buf, size_t len,
		     guint *ran, guint *fail_k, gc_status *fst, char **err);
/* The progress line on stderr: cells done of total, running, time left. */
void sweep_exec_progress(const sweep_exec *x, guint done, guint total, int running, gint64 t0);

/* ---- across the ranks of an MPI job (sweep_mpi.c) ---------------------- */

/* Whether this gcsim was built with Open MPI. */
bool sweep_mpi_built(void);
/* MPI_Init where a process manager started several ranks (*size > 1
 * then); a launch of several ranks without MPI built in is refused. */
gc_status sweep_mpi_init(int *rank, int *size, char **err);
/* Rank 0: hand the cells to ranks 1..size-1 and store what they send. */
gc_status sweep_mpi_coordinate(const sweep_exec *x, const guint *todo, guint ntodo, int size,
			       guint *ran, guint *fail_k, char **err);
/* Ranks other than 0: run the cells rank 0 sends until it says stop. */
void sweep_mpi_serve(const sweep_exec *x);
/* Rank 0, when it stops before it coordinates: tell the ranks waiting in
 * sweep_mpi_serve to stop. */
void sweep_mpi_release(int size);
void sweep_mpi_finish(void);

#endif
