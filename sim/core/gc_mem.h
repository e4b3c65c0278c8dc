/* SPDX-License-Identifier: MIT */
/*
 * gc_mem: cache-line aligned arrays for the simulator's hot tables (links,
 * flows, connections, strands). A record of 64 or 128 bytes that starts on a
 * line boundary costs one or two line fills; malloc's 16-byte alignment lets
 * it straddle one more, which shows on tables larger than the L2 cache.
 */
#ifndef GC_MEM_H
#define GC_MEM_H

#include <glib.h>
#include <string.h>

#define GC_LINE 64

/* Grow (or allocate, when p is NULL) an aligned array of elem-byte records
 * from old_n to new_n, keeping the first old_n; the new tail is zeroed.
 * Free with gc_aligned_free. */
static inline void *gc_aligned_renew(void *p, size_t old_n, size_t new_n, size_t elem)
{
	void *q = g_aligned_alloc0(new_n, elem, GC_LINE);
	if (p) {
		memcpy(q, p, old_n * elem);
		g_aligned_free(p);
	}
	return q;
}

static inline void gc_aligned_free(void *p)
{
	if (p)
		g_aligned_free(p);
}

/* The keys of a 4-ary heap (16-byte keys): key i at line offset i + 3 of
 * an aligned block, so the four children of i (4i + 1 .. 4i + 4) fill one
 * cache line and a sift reads one line a level, not two. Grow (or
 * allocate, keys NULL) from old_n to new_n keys, keeping the first old_n;
 * free with gc_heap_keys_free. */
static inline void *gc_heap_keys_renew(void *keys, size_t old_n, size_t new_n, size_t elem)
{
	char *base = keys ? (char *)keys - 3 * elem : NULL;
	return (char *)gc_aligned_renew(base, keys ? old_n + 3 : 0, new_n + 3, elem) + 3 * elem;
}

static inline void gc_heap_keys_free(void *keys, size_t elem)
{
	if (keys)
		g_aligned_free((char *)keys - 3 * elem);
}

#endif
