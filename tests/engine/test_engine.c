/* SPDX-License-Identifier: MIT */
/* Engine tests: heap order and tie-breaking, run loop, check mode, RNG streams. */
#include <glib.h>

#include "sim/ge_engine.h"

static void test_heap_order(void)
{
	ge_engine e;
	ge_engine_init(&e, 1);
	gc_rng r;
	gc_rng_seed(&r, 42, 0);
	enum { N = 20000 };
	for (uint64_t i = 0; i < N; i++)
		ge_schedule(&e, (ge_time)(gc_rng_next(&r) % 1000), 0, 0, i);
	ge_event prev = {.t = -1}, ev;
	uint64_t n = 0;
	while (ge_pop(&e, &ev)) {
		g_assert_true(ev.t > prev.t || (ev.t == prev.t && ev.seq > prev.seq));
		/* ties pop in scheduling order: seq == arg here */
		g_assert_cmpuint(ev.seq, ==, ev.arg);
		prev = ev;
		n++;
	}
	g_assert_cmpuint(n, ==, N);
	g_assert_cmpuint(e.heap_peak, ==, N);
	ge_engine_fini(&e);
}

/* Reserved keys: events scheduled later under seqs reserved earlier pop
 * exactly where events scheduled at the reservation would have, among
 * events scheduled the ordinary way (some at the same times). */
static void test_reserved_keys(void)
{
	ge_engine e;
	ge_engine_init(&e, 1);
	gc_rng r;
	gc_rng_seed(&r, 7, 0);
	enum { N = 4000 };
	uint64_t rseq[N];
	ge_time rt[N];
	int nr = 0, nplain = 0;
	for (int i = 0; i < N; i++) {
		ge_time t = (ge_time)(gc_rng_next(&r) % 50);
		if (gc_rng_next(&r) % 2) {
			rt[nr] = t;
			rseq[nr++] = ge_reserve_seq(&e);
		} else {
			ge_schedule(&e, t, 0, 0, UINT64_MAX);
			nplain++;
		}
	}
	for (int i = nr - 1; i >= 0; i--) /* in any order */
		ge_schedule_reserved(&e, rt[i], rseq[i], 0, 1, (uint64_t)i);
	ge_event prev = {.t = -1}, ev;
	int n = 0, seen = 0;
	while (ge_pop(&e, &ev)) {
		g_assert_true(ev.t > prev.t || (ev.t == prev.t && ev.seq > prev.seq));
		if (ev.kind == 1) {
			g_assert_cmpint(ev.t, ==, rt[ev.arg]);
			g_assert_cmpuint(ev.seq, ==, rseq[ev.arg]);
			seen++;
		}
		prev = ev;
		n++;
	}
	g_assert_cmpint(seen, ==, nr);
	g_assert_cmpint(n, ==, nr + nplain);
	ge_engine_fini(&e);
}

/* Interleaved schedules and pops, the queue growing to thousands, draining
 * to empty and growing again (the heap's padded places past its end are
 * rewritten at every shrink and growth), each pop checked against a plain
 * list of the pending (time, seq) pairs. */
static void test_heap_interleaved(void)
{
	ge_engine e;
	ge_engine_init(&e, 1);
	gc_rng r;
	gc_rng_seed(&r, 99, 0);
	enum { CAP = 6000 };
	static ge_time pt[CAP];
	static uint64_t ps[CAP];
	int np = 0;
	uint64_t seq = 0, pops = 0;
	for (int phase = 0; phase < 6; phase++) {
		const int target = phase % 2 ? 0 : 1000 + phase * 800; /* grow, then drain */
		for (int op = 0; op < 20000; op++) {
			bool push = np == 0 || (np < target ? gc_rng_next(&r) % 4 != 0 : gc_rng_next(&r) % 4 == 0);
			if (phase % 2 && np == 0)
				break;
			if (push && np < CAP) {
				/* a spread of times, a tenth of them equal to now (one bucket) */
				ge_time t = e.now + (gc_rng_next(&r) % 10 ? (ge_time)(gc_rng_next(&r) % 100000) : 0);
				ge_schedule(&e, t, 0, 0, seq);
				pt[np] = t;
				ps[np++] = seq++;
			} else if (np > 0) {
				int best = 0;
				for (int i = 1; i < np; i++)
					if (pt[i] < pt[best] || (pt[i] == pt[best] && ps[i] < ps[best]))
						best = i;
				ge_event ev;
				g_assert_true(ge_pop(&e, &ev));
				g_assert_cmpint(ev.t, ==, pt[best]);
				g_assert_cmpuint(ev.arg, ==, ps[best]);
				e.now = ev.t;
				pt[best] = pt[--np];
				ps[best] = ps[np];
				pops++;
			}
		}
		if (phase % 2)
			g_assert_cmpint(np, ==, 0);
	}
	/* the last phase drained it */
	ge_event ev;
	g_assert_false(ge_pop(&e, &ev));
	g_assert_cmpuint(pops, >, 20000);
	ge_engine_fini(&e);
}

typedef struct counter {
	uint32_t id;
	int remaining;
	ge_time last;
	int handled;
	int inited, finalized;
} counter;

static gc_status c_init(ge_engine *e, void *self)
{
	counter *c = self;
	c->inited++;
	ge_schedule(e, 10, c->id, 0, 0);
	return GC_OK;
}

static gc_status c_handle(ge_engine *e, void *self, const ge_event *ev)
{
	counter *c = self;
	g_assert_cmpint(e->now, >=, c->last);
	c->last = e->now;
	c->handled++;
	if (--c->remaining > 0)
		ge_schedule(e, e->now + 1 + (ge_time)(gc_rng_next(ge_entity_rng(e, c->id)) % 7), c->id, 0, 0);
	return GC_OK;
}

static gc_status c_fin(ge_engine *e, void *self)
{
	((counter *)self)->finalized++;
	return GC_OK;
}

static const ge_entity_ops counter_ops = {.name = "counter", .init = c_init, .handle = c_handle, .finalize = c_fin};

static ge_time run_counters(uint64_t seed, int *handled)
{
	ge_engine e;
	ge_engine_init(&e, seed);
	counter c[3] = {{.remaining = 100}, {.remaining = 50}, {.remaining = 1}};
	for (int i = 0; i < 3; i++)
		c[i].id = ge_entity_add(&e, &counter_ops, &c[i]);
	g_assert_cmpint(ge_run(&e, GE_TIME_MAX), ==, GC_OK);
	*handled = c[0].handled + c[1].handled + c[2].handled;
	for (int i = 0; i < 3; i++) {
		g_assert_cmpint(c[i].inited, ==, 1);
		g_assert_cmpint(c[i].finalized, ==, 1);
	}
	ge_time end = e.now;
	g_assert_cmpuint(e.events_handled, ==, 151);
	ge_engine_fini(&e);
	return end;
}

static void test_run_deterministic(void)
{
	int h1, h2, h3;
	ge_time a = run_counters(7, &h1), b = run_counters(7, &h2), c = run_counters(8, &h3);
	g_assert_cmpint(h1, ==, 151);
	g_assert_cmpint(a, ==, b);
	/* another seed gives other random delays (overwhelmingly likely with 99 draws) */
	g_assert_cmpint(a, !=, c);
}

static gc_status bad_handle(ge_engine *e, void *self, const ge_event *ev)
{
	return ge_fail(e, GC_ERR_INPUT, "handler refused event %llu", (unsigned long long)ev->arg);
}

static const ge_entity_ops bad_ops = {.name = "bad", .handle = bad_handle};

static void test_error_stops_run(void)
{
	ge_engine e;
	ge_engine_init(&e, 1);
	uint32_t id = ge_entity_add(&e, &bad_ops, NULL);
	ge_schedule(&e, 5, id, 0, 77);
	ge_schedule(&e, 6, id, 0, 78);
	g_assert_cmpint(ge_run(&e, GE_TIME_MAX), ==, GC_ERR_INPUT);
	g_assert_cmpstr(e.errmsg, ==, "handler refused event 77");
	g_assert_cmpuint(e.events_handled, ==, 1);
	ge_engine_fini(&e);
}

static int check_calls;
static gc_status chk(const ge_engine *e, const void *self, char **errmsg)
{
	check_calls++;
	if (e->now >= 30) {
		*errmsg = g_strdup("value out of range");
		return GC_ERR_INTERNAL;
	}
	return GC_OK;
}

static gc_status nop_handle(ge_engine *e, void *self, const ge_event *ev)
{
	return GC_OK;
}

static const ge_entity_ops chk_ops = {.name = "probe", .handle = nop_handle, .check = chk};

static void test_check_mode(void)
{
	ge_engine e;
	ge_engine_init(&e, 1);
	e.check = true;
	uint32_t id = ge_entity_add(&e, &chk_ops, NULL);
	for (int t = 10; t <= 50; t += 10)
		ge_schedule(&e, t, id, 0, 0);
	g_assert_cmpint(ge_run(&e, GE_TIME_MAX), ==, GC_ERR_INTERNAL);
	g_assert_cmpint(check_calls, ==, 3);
	g_assert_nonnull(strstr(e.errmsg, "probe: value out of range at t=30 ps"));
	ge_engine_fini(&e);
}

static void test_rng_streams(void)
{
	gc_rng a, b, c;
	gc_rng_seed(&a, 1, 5);
	gc_rng_seed(&b, 1, 5);
	gc_rng_seed(&c, 1, 6);
	int same = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t x = gc_rng_next(&a), y = gc_rng_next(&b), z = gc_rng_next(&c);
		g_assert_cmpuint(x, ==, y);
		same += x == z;
		double u = gc_rng_uniform(&a);
		gc_rng_uniform(&b);
		g_assert_cmpfloat(u, >=, 0.0);
		g_assert_cmpfloat(u, <, 1.0);
	}
	g_assert_cmpint(same, ==, 0);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/engine/heap-order", test_heap_order);
	g_test_add_func("/engine/reserved-keys", test_reserved_keys);
	g_test_add_func("/engine/heap-interleaved", test_heap_interleaved);
	g_test_add_func("/engine/run-deterministic", test_run_deterministic);
	g_test_add_func("/engine/error-stops-run", test_error_stops_run);
	g_test_add_func("/engine/check-mode", test_check_mode);
	g_test_add_func("/engine/rng-streams", test_rng_streams);
	return g_test_run();
}
