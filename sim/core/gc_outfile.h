/* SPDX-License-Identifier: MIT */
/*
 * gc_outfile: how gcsim writes an output file the user named (a trace, a
 * results CSV, a plot, a comparison CSV, a calibration). What is at PATH
 * decides how:
 *
 *  - nothing, or a regular file: the output goes to PATH.tmp, renamed onto
 *    PATH once it is complete, so PATH is the old file or the whole new one,
 *    never part of one; a replaced file keeps its permission bits;
 *  - a symbolic link to a regular file: the file it names is written that
 *    way (TARGET.tmp renamed onto TARGET); the link stays the link it was;
 *  - a character device or a FIFO (/dev/null, a terminal, a named pipe),
 *    directly or through a link: written in place, never replaced or
 *    truncated (a FIFO waits for its reader, as any writer does);
 *  - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to that
 *    descriptor of this process, in place, whatever it is open on;
 *  - a directory, a block device, a socket, a link to nothing: refused.
 *
 * Every failure is one message, "PATH: cannot write WHAT: REASON", with
 * GC_ERR_IO, and the temporary file is removed: a failed write leaves PATH
 * as it was and nothing beside it.
 */
#ifndef GC_OUTFILE_H
#define GC_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gc_status.h"

typedef struct gc_outfile {
	FILE *f;	  /* the stream to write */
	char *path;	  /* PATH as the user named it (messages) */
	char *dest;	  /* the file renamed onto: PATH or its link's target */
	char *tmp;	  /* dest.tmp while written; NULL when written in place */
	const char *what; /* what is written ("trace"), for messages */
	void *sink;	  /* the descriptor under f and its first error */
} gc_outfile;

/* Whether gc_outfile_open could write PATH, without creating anything:
 * refuses what it refuses and a missing or unwritable folder, so a command
 * can fail before the work whose output PATH would hold. */
gc_status gc_outfile_check(const char *path, const char *what, char **errmsg);

/* Open PATH for writing as described above. On failure *o is zeroed. */
gc_status gc_outfile_open(gc_outfile *o, const char *path, const char *what, char **errmsg);

/* Finish: flush, close, and rename into place. Any error on the stream
 * since it was opened (a full disk, a file size limit) fails it; the
 * temporary file is then removed. *o is zeroed either way. */
gc_status gc_outfile_commit(gc_outfile *o, char **errmsg);

/* Abandon (an error elsewhere): close and remove the temporary file. A
 * zeroed *o is left as it is. */
void gc_outfile_abort(gc_outfile *o);

/* Write len bytes of data to PATH: open, write, commit. */
gc_status gc_outfile_write(const char *path, const char *what, const void *data, size_t len,
			   char **errmsg);

/* Remove every temporary file still open, without allocating: for a
 * process about to end on a fatal error (out of memory). */
void gc_outfile_remove_pending(void);

#endif
