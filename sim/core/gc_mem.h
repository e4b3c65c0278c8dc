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
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define GC_LINE 64

/* Ask the kernel to back the whole 2 MiB pages inside [p, p + bytes) with
 * huge pages (transparent huge pages, which Debian's kernels give only to
 * memory that asks: "madvise" mode). The tables of a large run (strands,
 * connections, step windows: hundreds of MB) are read at random, one
 * record an access; with 4 KiB pages nearly every access also misses the
 * TLB, with 2 MiB pages the TLB covers them. Only advice: where the kernel
 * has none to give (or no such call) the memory stays as it was. Call it
 * before the memory is first written: pages already touched stay small.
 * Tables under 4 MiB are left alone. */
static inline void gc_hugepages(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)2 << 20;
	if (p == NULL || bytes < 2 * huge)
		return;
	const uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	const uintptr_t hi = ((uintptr_t)p + bytes) & ~(huge - 1);
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)p;
	(void)bytes;
#endif
}

/* Grow (or allocate, when p is NULL) an aligned array of elem-byte records
 * from old_n to new_n, keeping the first old_n; the new tail is zeroed.
 * Free with gc_aligned_free. */
static inline void *gc_aligned_renew(void *p, size_t old_n, size_t new_n, size_t elem)
{
	char *q = g_aligned_alloc(new_n, elem, GC_LINE);
	gc_hugepages(q, new_n * elem);
	if (p) {
		memcpy(q, p, old_n * elem);
		g_aligned_free(p);
	}
	memset(q + old_n * elem, 0, (new_n - old_n) * elem);
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
