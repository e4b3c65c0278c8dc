/* SPDX-License-Identifier: MIT */
/*
 * ge_engine: event heap, entity table and the run loop (see ge_engine.h).
 *
 * The queue is a 4-ary heap of distinct times with a FIFO of events per time
 * (see ge_engine.h): popping yields (time, seq) order exactly.
 */
#include "ge_engine.h"

#include "core/gc_mem.h"

#include <glib.h>
#include <stdarg.h>
#include <string.h>

#define NIL GE_NONE

void ge_engine_init(ge_engine *e, uint64_t seed)
{
	memset(e, 0, sizeof(*e));
	e->seed = seed;
	e->free_chunk = NIL;
}

void ge_engine_fini(ge_engine *e)
{
	g_free(e->chunks);
	g_free(e->heap);
	gc_heap_keys_free(e->hkey, sizeof(ge_key));
	g_free(e->ents);
	g_free(e->errmsg);
	memset(e, 0, sizeof(*e));
}

uint32_t ge_entity_add(ge_engine *e, const ge_entity_ops *ops, void *self)
{
	if (e->nents == e->capents) {
		e->capents = e->capents ? e->capents * 2 : 16;
		e->ents = g_renew(struct ge_entity, e->ents, e->capents);
	}
	uint32_t id = e->nents++;
	e->ents[id].ops = ops;
	e->ents[id].self = self;
	gc_rng_seed(&e->ents[id].rng, e->seed, id);
	return id;
}

ge_key *ge_heap_keys_grow(ge_key *hk, uint64_t old, uint64_t cap)
{
	hk = gc_heap_keys_renew(hk, old, cap + 3, sizeof(ge_key));
	for (uint64_t i = old; i < cap + 3; i++)
		hk[i] = GE_KEY_PAD;
	return hk;
}

/* Double the heap. */
static G_GNUC_NO_INLINE void heap_grow(ge_engine *e)
{
	const uint64_t old = e->capheap;
	e->capheap = old ? old * 2 : 256;
	e->heap = g_renew(ge_hent, e->heap, e->capheap);
	e->hkey = ge_heap_keys_grow(e->hkey, old, e->capheap);
}

static void sift_up(ge_engine *e, uint64_t i)
{
	ge_key k = e->hkey[i];
	ge_hent x = e->heap[i];
	while (i > 0) {
		uint64_t parent = (i - 1) >> 2;
		if (k >= e->hkey[parent])
			break;
		e->hkey[i] = e->hkey[parent];
		e->heap[i] = e->heap[parent];
		i = parent;
	}
	e->hkey[i] = k;
	e->heap[i] = x;
}

/* Remove the root: move the hole down along the smallest children to a
 * leaf, then sift the last entry up from there (Floyd's bottom-up variant:
 * the last entry usually belongs near the bottom, so this saves most of the
 * comparisons against it). */
static void heap_pop(ge_engine *e)
{
	ge_key *hk = e->hkey;
	uint64_t n = --e->nheap;
	const ge_key last = hk[n];
	hk[n] = GE_KEY_PAD; /* the place is past the end now */
	if (n == 0)
		return;
	uint64_t i = 0;
	for (;;) {
		uint64_t c = 4 * i + 1;
		if (c >= n)
			break;
		ge_key bk;
		uint64_t best = ge_heap_min4(hk, c, &bk);
		hk[i] = bk;
		e->heap[i] = e->heap[best];
		i = best;
	}
	hk[i] = last;
	e->heap[i] = e->heap[n];
	sift_up(e, i);
}

/* Put (k, x) in the root's place, left empty (e->hole), and move it down
 * past every smaller child: one descent where removing the root and then
 * inserting would take two walks. */
static void fill_hole(ge_engine *e, ge_key k, const ge_hent *x)
{
	ge_key *hk = e->hkey;
	const uint64_t n = e->nheap;
	uint64_t i = 0;
	for (;;) {
		uint64_t c = 4 * i + 1;
		if (c >= n)
			break;
		ge_key bk;
		uint64_t best = ge_heap_min4(hk, c, &bk);
		if (k <= bk)
			break;
		hk[i] = bk;
		e->heap[i] = e->heap[best];
		i = best;
	}
	hk[i] = k;
	e->heap[i] = *x;
	e->hole = false;
}

/* Add bucket (k, x): into the root's empty place if there is one, else at
 * the end. */
static void heap_insert(ge_engine *e, ge_key k, const ge_hent *x)
{
	if (e->hole) {
		fill_hole(e, k, x);
		return;
	}
	if (e->nheap == e->capheap)
		heap_grow(e);
	e->hkey[e->nheap] = k;
	e->heap[e->nheap] = *x;
	sift_up(e, e->nheap++);
}

/* Remove the empty root for good (nothing came to fill it). */
static inline void settle(ge_engine *e)
{
	if (e->hole) {
		e->hole = false;
		heap_pop(e);
	}
}

/* Move the open bucket into the heap (it is closed: no event joins it). */
static void close_open(ge_engine *e)
{
	if (!e->open_valid)
		return;
	heap_insert(e, e->open_key, &e->open);
	e->open_valid = false;
}

static uint32_t chunk_new(ge_engine *e)
{
	uint32_t c = e->free_chunk;
	if (c != NIL) {
		e->free_chunk = e->chunks[c].next;
	} else {
		if (e->nchunks == e->capchunks) {
			e->capchunks = e->capchunks ? e->capchunks * 2 : 256;
			e->chunks = g_renew(ge_chunk, e->chunks, e->capchunks);
		}
		c = e->nchunks++;
	}
	e->chunks[c].next = NIL;
	e->chunks[c].head = e->chunks[c].n = 0;
	return c;
}

static inline void chunk_free(ge_engine *e, uint32_t c)
{
	e->chunks[c].next = e->free_chunk;
	e->free_chunk = c;
}

void ge_schedule(ge_engine *e, ge_time t, uint32_t entity, uint32_t kind, uint64_t arg)
{
	g_assert(t >= e->now);
	if (G_UNLIKELY(t > GE_HORIZON)) {
		ge_fail(e, GC_ERR_INPUT,
			"an event would fall %.3g s after the start, past the %.0f days of simulated "
			"time the engine holds (int64 picoseconds); use fewer iterations or smaller "
			"latencies",
			(double)t * 1e-12, (double)GE_HORIZON * 1e-12 / 86400);
		return;
	}
	ge_payload pl = {.entity = entity, .kind = kind, .arg = arg};
	if (!e->open_valid || e->open_t != t) {
		/* a new bucket holds its first event itself */
		close_open(e);
		e->open_valid = true;
		e->open_t = t;
		e->open_key = ge_key_make(t, e->seq);
		e->open = (ge_hent){.ev = pl, .first = NIL, .last = NIL};
	} else {
		/* the events that join it go to its chunks */
		uint32_t last = e->open.last;
		if (last == NIL || e->chunks[last].n == GE_CHUNK) {
			uint32_t c = chunk_new(e); /* may move the pool */
			if (last == NIL)
				e->open.first = c;
			else
				e->chunks[last].next = c;
			e->open.last = last = c;
		}
		ge_chunk *ch = &e->chunks[last];
		ch->ev[ch->n++] = pl;
	}
	e->seq++;
	if (++e->npending > e->heap_peak)
		e->heap_peak = e->npending;
}

uint64_t ge_reserve_seq(ge_engine *e)
{
	close_open(e);
	return e->seq++;
}

void ge_schedule_reserved(ge_engine *e, ge_time t, uint64_t seq, uint32_t entity, uint32_t kind,
			  uint64_t arg)
{
	g_assert(t >= e->now && t <= GE_HORIZON && seq < e->seq);
	const ge_hent b = {.ev = {.entity = entity, .kind = kind, .arg = arg}, .first = NIL, .last = NIL};
	heap_insert(e, ge_key_make(t, seq), &b);
	if (++e->npending > e->heap_peak)
		e->heap_peak = e->npending;
}

bool ge_time_in(ge_engine *e, double dt_ps, const char *what, ge_time *t)
{
	g_assert(dt_ps >= 0);
	if (!(dt_ps < (double)(GE_HORIZON - e->now))) {
		ge_fail(e, GC_ERR_INPUT,
			"%s would end %.3g s after the start, past the %.0f days of simulated time "
			"the engine holds (int64 picoseconds); the sizes are too large for the "
			"bandwidths",
			what, ((double)e->now + dt_ps) * 1e-12, (double)GE_HORIZON * 1e-12 / 86400);
		return false;
	}
	int64_t idt = (int64_t)dt_ps;
	*t = e->now + idt + ((double)idt < dt_ps);
	return true;
}

bool ge_schedule_in(ge_engine *e, double dt_ps, uint32_t entity, uint32_t kind, uint64_t arg,
		    const char *what)
{
	ge_time t;
	if (!ge_time_in(e, dt_ps, what, &t))
		return false;
	ge_schedule(e, t, entity, kind, arg);
	return true;
}

/* The heap's smallest key, its root's or with the root empty its
 * children's; false when it holds none. */
static bool heap_min(const ge_engine *e, ge_key *k)
{
	if (!e->hole) {
		if (e->nheap == 0)
			return false;
		*k = e->hkey[0];
		return true;
	}
	if (e->nheap < 2)
		return false;
	uint64_t end = e->nheap < 5 ? e->nheap : 5;
	*k = e->hkey[1];
	for (uint64_t j = 2; j < end; j++)
		if (e->hkey[j] < *k)
			*k = e->hkey[j];
	return true;
}

bool ge_peek_time(const ge_engine *e, ge_time *t)
{
	ge_key k;
	bool any = heap_min(e, &k);
	if (!any && !e->open_valid)
		return false;
	if (!any || (e->open_valid && e->open_key < k))
		*t = e->open_t;
	else
		*t = ge_key_time(k);
	return true;
}

/* Pop the earliest event if its time is <= until. */
static inline bool pop_until(ge_engine *e, ge_time until, ge_event *out)
{
	settle(e);
	bool from_open;
	if (e->nheap == 0) {
		if (!e->open_valid)
			return false;
		from_open = true;
	} else {
		from_open = e->open_valid && e->open_key < e->hkey[0];
	}
	ge_hent *b = from_open ? &e->open : &e->heap[0];
	ge_key key = from_open ? e->open_key : e->hkey[0];
	if (ge_key_time(key) > until)
		return false;
	ge_payload pl;
	bool empty;
	if (b->ev.entity != NIL) { /* its first event */
		pl = b->ev;
		b->ev.entity = NIL;
		empty = b->first == NIL;
	} else {
		uint32_t c = b->first;
		ge_chunk *ch = &e->chunks[c];
		pl = ch->ev[ch->head++];
		empty = ch->head == ch->n && c == b->last;
		if (ch->head == ch->n) {
			b->first = ch->next;
			chunk_free(e, c);
		}
	}
	*out = (ge_event){.t = ge_key_time(key), .seq = ge_key_seq(key), .entity = pl.entity,
			  .kind = pl.kind, .arg = pl.arg};
	if (from_open)
		e->open_key = key + 1;
	else
		e->hkey[0] = key + 1;
	e->npending--;
	if (empty) {
		/* the bucket is empty (an open one may reopen at its time);
		 * the heap's root stays empty until a bucket comes to take its
		 * place (fill_hole) or the next pop (settle) */
		if (from_open)
			e->open_valid = false;
		else if (e->nheap == 1) {
			e->nheap = 0;
			e->hkey[0] = GE_KEY_PAD;
		} else {
			e->hole = true;
		}
	}
	return true;
}

bool ge_pop(ge_engine *e, ge_event *out) { return pop_until(e, GE_TIME_MAX, out); }

gc_status ge_fail(ge_engine *e, gc_status st, const char *fmt, ...)
{
	if (!e->errmsg) {
		va_list ap;
		va_start(ap, fmt);
		e->errmsg = g_strdup_vprintf(fmt, ap);
		va_end(ap);
		e->fail_st = st;
	}
	e->stop = true;
	return st;
}

static gc_status check_all(ge_engine *e, ge_time prev)
{
	if (e->now < prev)
		return ge_fail(e, GC_ERR_INTERNAL, "check: time went backwards (%lld ps after %lld ps)",
			       (long long)e->now, (long long)prev);
	for (uint32_t i = 0; i < e->nents; i++) {
		if (!e->ents[i].ops->check)
			continue;
		char *msg = NULL;
		gc_status st = e->ents[i].ops->check(e, e->ents[i].self, &msg);
		if (st != GC_OK) {
			ge_fail(e, st, "check: %s: %s at t=%lld ps", e->ents[i].ops->name,
				msg ? msg : "invariant violated", (long long)e->now);
			g_free(msg);
			return st;
		}
	}
	return GC_OK;
}

gc_status ge_run(ge_engine *e, ge_time until)
{
	gc_status st = GC_OK;
	for (uint32_t i = 0; i < e->nents && st == GC_OK; i++)
		if (e->ents[i].ops->init)
			st = e->ents[i].ops->init(e, e->ents[i].self);
	ge_event ev;
	while (st == GC_OK && !e->stop && pop_until(e, until, &ev)) {
		ge_time prev = e->now;
		e->now = ev.t;
		e->events_handled++;
		struct ge_entity *ent = &e->ents[ev.entity];
		st = ent->ops->handle(e, ent->self, &ev);
		if (st == GC_OK && e->check)
			st = check_all(e, prev);
	}
	if (st == GC_OK && e->stop && e->fail_st != GC_OK)
		st = e->fail_st; /* a failure recorded outside a handler's return */
	for (uint32_t i = 0; i < e->nents; i++) {
		if (!e->ents[i].ops->finalize)
			continue;
		gc_status fst = e->ents[i].ops->finalize(e, e->ents[i].self);
		if (st == GC_OK)
			st = fst;
	}
	if (st != GC_OK && !e->errmsg)
		e->errmsg = g_strdup(gc_status_str(st));
	return st;
}
