/* SPDX-License-Identifier: MIT */
/*
 * gc_fifo: a growable FIFO ring of 64-bit values (first in, first out; the
 * storage doubles when full and is never shrunk). Zero-initialized is
 * empty; free with gc_fifo_free.
 */
#ifndef GC_FIFO_H
#define GC_FIFO_H

#include <glib.h>
#include <stdint.h>

typedef struct gc_fifo {
	uint64_t *v;
	size_t head, n, cap;
} gc_fifo;

static inline void gc_fifo_push(gc_fifo *f, uint64_t x)
{
	if (f->n == f->cap) {
		size_t nc = f->cap ? 2 * f->cap : 8;
		uint64_t *nv = g_new(uint64_t, nc);
		for (size_t i = 0; i < f->n; i++)
			nv[i] = f->v[(f->head + i) % f->cap];
		g_free(f->v);
		f->v = nv;
		f->cap = nc;
		f->head = 0;
	}
	f->v[(f->head + f->n++) % f->cap] = x;
}

/* The oldest value (the FIFO must not be empty). */
static inline uint64_t gc_fifo_pop(gc_fifo *f)
{
	uint64_t x = f->v[f->head];
	f->head = (f->head + 1) % f->cap;
	f->n--;
	return x;
}

/* The value i places after the oldest (i < n). */
static inline uint64_t gc_fifo_at(const gc_fifo *f, size_t i) { return f->v[(f->head + i) % f->cap]; }

static inline void gc_fifo_free(gc_fifo *f)
{
	g_free(f->v);
	*f = (gc_fifo){0};
}

#endif
