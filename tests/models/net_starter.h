/* SPDX-License-Identifier: MIT */
/*
 * A tiny engine entity for the network tests: it starts the listed flows at
 * their times (flow i gets tag i and landing tag 100 + i; in flow mode the
 * queue and the landing tag are unused).
 */
#ifndef TESTS_NET_STARTER_H
#define TESTS_NET_STARTER_H

#include <glib.h>
#include <math.h>

#include "sim/models/net/gm_net.h"

typedef struct start_ev {
	ge_time t;
	uint32_t queue;
	uint32_t route[GM_MAX_HOPS];
	int nhops;
	double bytes;
} start_ev;

typedef struct starter {
	gm_net *net;
	const start_ev *evs;
	int n;
	uint32_t id;
} starter;

static gc_status st_init(ge_engine *e, void *self)
{
	starter *s = self;
	for (int i = 0; i < s->n; i++)
		ge_schedule(e, s->evs[i].t, s->id, 0, (uint64_t)i);
	return GC_OK;
}

static gc_status st_handle(ge_engine *e, void *self, const ge_event *ev)
{
	(void)e;
	starter *s = self;
	const start_ev *x = &s->evs[ev->arg];
	gm_net_start_queued(s->net, x->queue, x->route, x->nhops, x->bytes, ev->arg, 100 + ev->arg);
	return GC_OK;
}

static const ge_entity_ops starter_ops = {.name = "starter", .init = st_init, .handle = st_handle};

/* Start the flows on net (links added) and run the engine to the end: the
 * run succeeds, no flow is left and every byte started was delivered. */
static inline void starter_run(ge_engine *e, gm_net *net, const start_ev *evs, int n)
{
	starter s = {.net = net, .evs = evs, .n = n};
	s.id = ge_entity_add(e, &starter_ops, &s);
	gc_status st = ge_run(e, GE_TIME_MAX);
	if (st != GC_OK)
		g_test_message("run failed: %s", e->errmsg);
	g_assert_cmpint(st, ==, GC_OK);
	g_assert_cmpuint(net->nactive, ==, 0);
	g_assert_cmpfloat(fabs(net->bytes_done - net->bytes_started), <, 1e-6);
}

#endif
