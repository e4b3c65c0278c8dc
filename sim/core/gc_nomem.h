/* SPDX-License-Identifier: MIT */
/*
 * gc_nomem: running out of memory ends gcsim with a message and its own
 * exit status (GC_ERR_NOMEM, 7), not with GLib's abort (SIGTRAP).
 *
 * The large tables whose size the input decides (a topology's links, a
 * schedule's steps, the flow network's flows) are allocated with
 * gc_try_alloc and fail as GC_ERR_NOMEM with a message naming what did not
 * fit. Every other allocation goes through g_malloc, which on failure
 * calls GLib's fatal error log: gc_nomem_install turns that into the same
 * message and exit, after removing the temporary files of the outputs
 * being written (gc_outfile), so nothing is left half-written.
 */
#ifndef GC_NOMEM_H
#define GC_NOMEM_H

#include <stddef.h>

#include "gc_status.h"

/* Handle GLib's allocation failures for the rest of the process. */
void gc_nomem_install(void);

/* n elements of size bytes, zeroed, or NULL when they do not fit (the
 * product overflowing included). Free with g_free. */
void *gc_try_alloc0(size_t n, size_t size);

/* GC_ERR_NOMEM with "out of memory: WHAT needs N bytes" in *errmsg. */
gc_status gc_nomem_err(char **errmsg, const char *what, size_t n, size_t size);

#endif
