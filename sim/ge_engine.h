/* SPDX-License-Identifier: MIT */
/*
 * ge_engine: the discrete-event engine.
 *
 * Time is int64 picoseconds. Events are plain values drawn from a pool
 * (storage grows geometrically and is reused through a free list, so
 * scheduling never allocates in steady state). Events are ordered by
 * (time, seq), where seq is a global insertion counter, so ties are broken by
 * scheduling order and every run is deterministic.
 *
 * Entities are registered with an ops table {init, handle, finalize, stats};
 * each event names the entity whose handle() receives it. Handlers must not
 * allocate on the hot path. Each entity owns a random stream seeded from
 * (scenario seed, entity id), so adding an entity never perturbs another's
 * stream.
 *
 * Check mode (ge_engine.check = true) verifies after every event that time
 * never decreases and runs every entity's optional check() hook, which
 * asserts that entity's own invariants (bytes conserved, each step completed
 * once, ...); the first failure stops the run with GC_ERR_INTERNAL.
 *
 * Stale events: an entity that reschedules something (a flow whose rate
 * changed) keeps a version number in the event payload and ignores events
 * whose version is old; this is cheaper than deleting from the heap.
 */
#ifndef GE_ENGINE_H
#define GE_ENGINE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/gc_rng.h"
#include "core/gc_status.h"

typedef int64_t ge_time;
#define GE_TIME_MAX INT64_MAX
/* The latest time an event may have, about 53 days: half the int64 range,
 * so that adding any latency a scenario allows to a time cannot overflow.
 * Durations computed from bytes and bandwidths are checked against it
 * (ge_schedule_in) before they are added. */
#define GE_HORIZON (INT64_MAX / 2)

/* A duration for closed forms, rounded up to whole picoseconds and capped
 * at GE_HORIZON / 64 (about 20 hours): sums of up to 64 of them, added to
 * any time before the horizon, stay inside int64, and whatever they are
 * scheduled at then fails the horizon check instead of overflowing. */
static inline int64_t ge_ps_sat(double ps)
{
	const double cap = (double)(GE_HORIZON / 64);
	return ps < cap ? (int64_t)ceil(ps) : (int64_t)cap;
}

typedef struct ge_event {
	ge_time t;
	uint64_t seq;
	uint32_t entity; /* receiving entity id */
	uint32_t kind;	 /* entity-defined */
	uint64_t arg;	 /* entity-defined payload */
} ge_event;

typedef struct ge_engine ge_engine;

typedef struct ge_entity_ops {
	const char *name;
	gc_status (*init)(ge_engine *e, void *self);
	/* handle one event; a non-OK status stops the run */
	gc_status (*handle)(ge_engine *e, void *self, const ge_event *ev);
	gc_status (*finalize)(ge_engine *e, void *self);
	/* append human-readable statistics to a GString (may be NULL) */
	void (*stats)(const ge_engine *e, const void *self, void *gstring_out);
	/* check mode: verify invariants; on failure set *errmsg (g_free) */
	gc_status (*check)(const ge_engine *e, const void *self, char **errmsg);
} ge_entity_ops;

struct ge_entity {
	const ge_entity_ops *ops;
	void *self;
	gc_rng rng;
};

/* Simultaneous events are common (lockstep collectives start thousands of
 * transfers at one instant), so the queue is a 4-ary min-heap of *buckets*:
 * a bucket is a FIFO of events with one time, stored in chunks of GE_CHUNK.
 * A new event joins the open bucket (the most recently opened one, kept
 * outside the heap) when it has the same time, and otherwise closes it into
 * the heap and opens a new one. Buckets are ordered by (time, seq of their
 * first event), and every event of a bucket precedes (in seq) every event of
 * any bucket opened later, so popping the smaller of the heap's root and the
 * open bucket yields exactly (time, seq) order, while heap work is paid once
 * per bucket. A bucket's events were scheduled one after another (any
 * event at another time closes it), so their seqs are consecutive and are
 * not stored: a bucket's key carries the seq of its next event, and popping
 * one adds one to it. That keeps the heap ordered, since every later bucket
 * of the same time starts past the last seq of this one.
 *
 * A bucket's first event is held in the bucket itself, and chunks are taken
 * only for the events that join it: most buckets hold one event when times
 * are spread out (a bucket then costs no chunk, and popping it reads the
 * heap's root, already in cache, rather than a chunk written long before).
 *
 * A root bucket that runs out of events leaves its place empty (hole): the
 * next bucket into the heap takes it and moves down (a handler usually
 * schedules right after its event is popped), and a pop with the place
 * still empty removes the root first. */
typedef struct ge_payload {
	uint32_t entity;
	uint32_t kind;
	uint64_t arg;
} ge_payload;

#define GE_CHUNK 8
typedef struct ge_chunk {
	uint32_t next; /* next chunk of the same bucket, or free-list link */
	uint16_t head, n;
	ge_payload ev[GE_CHUNK];
} ge_chunk;

/* Heap entry = one bucket: the ordering key (time, seq of its next event)
 * packed into one 128-bit unsigned integer so that a comparison is a single
 * wide compare, and the bucket's events. Keys and events live in parallel
 * arrays so that the four sibling keys compared at each level of a sift
 * share one cache line. */
typedef unsigned __int128 ge_key;
typedef struct ge_hent {
	ge_payload ev;	      /* the first event; entity GE_NONE once popped */
	uint32_t first, last; /* chunks of the events after it, or GE_NONE */
} ge_hent;
#define GE_NONE UINT32_MAX

static inline ge_key ge_key_make(ge_time t, uint64_t seq)
{
	return ((ge_key)((uint64_t)t ^ UINT64_C(0x8000000000000000)) << 64) | seq;
}
static inline ge_time ge_key_time(ge_key k) { return (ge_time)((uint64_t)(k >> 64) ^ UINT64_C(0x8000000000000000)); }
static inline uint64_t ge_key_seq(ge_key k) { return (uint64_t)k; }

/* The 4-ary heaps of keys (the engine's queue of buckets, the flow model's
 * end times) keep GE_KEY_PAD, larger than any real key, in every place past
 * their end, and three places past their capacity: a node then always has
 * four children to compare, and ge_heap_min4 needs neither a bound nor a
 * branch. */
#define GE_KEY_PAD (~(ge_key)0)

/* The smallest of the children c .. c + 3 of a heap's node: its index, and
 * its key in *bk. Two pairs, then their winners; the last choice is made
 * with masks, where the compiler would branch on a comparison that no
 * predictor can guess. */
static inline uint64_t ge_heap_min4(const ge_key *hk, uint64_t c, ge_key *bk)
{
	const ge_key k0 = hk[c], k1 = hk[c + 1], k2 = hk[c + 2], k3 = hk[c + 3];
	const bool l01 = k1 < k0, l23 = k3 < k2;
	const ge_key a = l01 ? k1 : k0, b = l23 ? k3 : k2;
	const uint64_t ia = c + l01, ib = c + 2 + l23;
	const uint64_t m = -(uint64_t)(b < a);
	const ge_key mk = (ge_key)m << 64 | m;
	*bk = a ^ ((a ^ b) & mk);
	return ia ^ ((ia ^ ib) & m);
}

/* Grow (or allocate, hk NULL) a heap's keys from capacity old to cap,
 * keeping the first old and padding the rest (gc_heap_keys_renew's layout;
 * free with gc_heap_keys_free). */
ge_key *ge_heap_keys_grow(ge_key *hk, uint64_t old, uint64_t cap);

struct ge_engine {
	ge_time now;
	uint64_t seq;
	uint64_t events_handled;
	uint64_t seed;
	bool check;
	bool stop;		 /* set by a handler to end the run early */
	uint64_t npending;	 /* events scheduled and not yet popped */
	uint64_t heap_peak;	 /* peak of npending */
	ge_chunk *chunks;	 /* chunk pool with a free list */
	uint32_t nchunks, capchunks, free_chunk;
	ge_key *hkey;		 /* 4-ary min-heap of buckets: keys */
	ge_hent *heap;		 /* and their chunks, same index */
	uint64_t nheap, capheap;
	bool hole;		 /* the root's bucket is spent and its place empty */
	ge_hent open;		 /* the open bucket (not in the heap), its */
	ge_key open_key;	 /* key and time; valid while open_valid */
	ge_time open_t;
	bool open_valid;
	struct ge_entity *ents;
	uint32_t nents, capents;
	char *errmsg;		 /* first error, g_free'd by ge_engine_free */
	gc_status fail_st;	 /* its status (ge_fail) */
};

void ge_engine_init(ge_engine *e, uint64_t seed);
void ge_engine_fini(ge_engine *e);

/* Register an entity; returns its id. Its RNG is seeded from (seed, id). */
uint32_t ge_entity_add(ge_engine *e, const ge_entity_ops *ops, void *self);
static inline gc_rng *ge_entity_rng(ge_engine *e, uint32_t id) { return &e->ents[id].rng; }

/* Schedule an event at absolute time t (>= now). */
void ge_schedule(ge_engine *e, ge_time t, uint32_t entity, uint32_t kind, uint64_t arg);

/* Schedule an event dt_ps (>= 0, rounded up to whole picoseconds) from
 * now. Past GE_HORIZON it schedules nothing, fails the run (ge_fail,
 * GC_ERR_INPUT, naming `what`) and returns false. */
bool ge_schedule_in(ge_engine *e, double dt_ps, uint32_t entity, uint32_t kind, uint64_t arg,
		    const char *what);

/* Deferred keys: a model that keeps many tentative event times of its own
 * (completion times that each rate change moves) takes the seq an event
 * scheduled now would get, and schedules only the events that fire, each
 * under the key it reserved. The order of events is then exactly the one
 * scheduling every tentative time at once would give, without the
 * superseded events in the queue. ge_reserve_seq returns that seq (and
 * closes the open bucket, whose seqs must stay consecutive);
 * ge_schedule_reserved puts one event at (t, seq): t >= now, and seq
 * reserved while handling an earlier event or this one. */
uint64_t ge_reserve_seq(ge_engine *e);
void ge_schedule_reserved(ge_engine *e, ge_time t, uint64_t seq, uint32_t entity, uint32_t kind,
			  uint64_t arg);

/* The time dt_ps (>= 0, rounded up to whole picoseconds) from now, into
 * *t; past GE_HORIZON it fails the run as ge_schedule_in does and returns
 * false. */
bool ge_time_in(ge_engine *e, double dt_ps, const char *what, ge_time *t);

/* Time of the earliest pending event; false if none. */
bool ge_peek_time(const ge_engine *e, ge_time *t);
/* Pop the earliest event into *ev; false if none. */
bool ge_pop(ge_engine *e, ge_event *ev);

/* Run init hooks, then events until the queue is empty, a handler stops the
 * run or returns an error, or time would pass `until`; then finalize hooks.
 * Returns the first error (its message in e->errmsg). */
gc_status ge_run(ge_engine *e, ge_time until);

/* Record an error message and status (the first one wins), stop the run,
 * and return st; ge_run returns that status. */
gc_status ge_fail(ge_engine *e, gc_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
