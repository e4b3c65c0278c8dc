/* SPDX-License-Identifier: MIT */
/*
 * gc_status: the one status enum every gcsim layer returns.
 *
 * Invariant: the function that first detects an error reports it (to stderr or
 * into a caller-supplied message buffer); callers only propagate the status.
 * The numeric values of GC_ERR_INPUT, GC_ERR_NODEV, GC_ERR_IO and
 * GC_ERR_NOMEM are the process exit codes the CLI uses (2 for bad input, 3
 * for missing hardware, 4 for a file system failure, 7 out of memory).
 */
#ifndef GC_STATUS_H
#define GC_STATUS_H

typedef enum gc_status {
	GC_OK = 0,
	GC_ERR_INTERNAL = 1,	/* a bug or an invariant violation */
	GC_ERR_INPUT = 2,	/* malformed or out-of-range user input */
	GC_ERR_NODEV = 3,	/* required hardware or runtime not present */
	GC_ERR_IO = 4,		/* file system or database failure */
	GC_ERR_UNSUPPORTED = 5, /* valid request that this platform refuses */
	GC_ERR_DEADLOCK = 6,	/* a schedule that can never complete */
	GC_ERR_NOMEM = 7,	/* an allocation the input asked for failed */
} gc_status;

/* Short constant name of a status ("input error", ...). */
const char *gc_status_str(gc_status st);

#endif
