/* SPDX-License-Identifier: MIT */
/*
 * ge_trace: streaming Chrome/Perfetto trace writer (JSON "traceEvents").
 *
 * Events are written as they happen, so a trace can hold millions of events
 * in constant memory. Tracks are (pid, tid) pairs named once with metadata
 * events; times are converted from picoseconds to the format's microseconds
 * with six decimals (exact to the picosecond). The writer is all-or-nothing
 * at the file level: a regular file is written as FILE.tmp and renamed on
 * a successful close; a device or FIFO the user named is written in place
 * (gc_outfile.h).
 */
#ifndef GE_TRACE_H
#define GE_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "core/gc_outfile.h"
#include "core/gc_status.h"

typedef struct ge_trace {
	FILE *f; /* out.f while open, else NULL */
	gc_outfile out;
	uint64_t nevents;
	int first;
	int64_t offset_ps; /* added to every timestamp (sequential sub-runs) */
} ge_trace;

gc_status ge_trace_open(ge_trace *t, const char *path, char **errmsg);
/* Finish the JSON and rename into place; on failure removes the temp file. */
gc_status ge_trace_close(ge_trace *t, char **errmsg);
/* Abandon the trace (error path): remove the temp file. */
void ge_trace_abort(ge_trace *t);
/* End a run's trace by the run's status st: closed when st is GC_OK (the
 * close's status returned), else abandoned (st returned). A trace never
 * opened (zeroed) is left as it is. */
gc_status ge_trace_finish(ge_trace *t, gc_status st, char **errmsg);

void ge_trace_name_process(ge_trace *t, int pid, const char *name);
void ge_trace_name_thread(ge_trace *t, int pid, int tid, const char *name);
/* A complete slice [start, start+dur) on track (pid, tid). `args` is a JSON
 * object body without braces (e.g. "\"bytes\":1024") or NULL. */
void ge_trace_slice(ge_trace *t, int pid, int tid, const char *name, int64_t start_ps,
		    int64_t dur_ps, const char *args);
/* A counter sample on process pid. */
void ge_trace_counter(ge_trace *t, int pid, const char *name, int64_t t_ps, double value);

#endif
