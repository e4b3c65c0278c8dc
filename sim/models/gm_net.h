/* SPDX-License-Identifier: MIT */
/*
 * gm_net: links and flow-level bandwidth sharing.
 *
 * A link is one direction of a physical channel (a full-duplex cable is two
 * links) with a bandwidth in bytes/s and a one-way latency. A flow moves a
 * number of bytes along a route of up to GM_MAX_HOPS links. Concurrent flows
 * share links by max-min fairness (progressive filling): every flow gets the
 * largest rate such that no link is oversubscribed and no flow could go
 * faster without slowing a flow that is no faster. Rates are recomputed when
 * a flow starts or ends, but only for the connected component of flows that
 * share links (transitively) with it: flows elsewhere keep their rates, so a
 * ring of N disjoint transfers costs O(1) per event, not O(N).
 *
 * The transfer of a flow ends when its last byte has passed the bottleneck
 * (fluid model); the message is delivered one route latency later (the sum of
 * the links' latencies), which the caller schedules.
 *
 * Invariants (checked by gm_net_check):
 *  - every active flow is listed on exactly its route's links;
 *  - on every link the sum of flow rates <= bandwidth (1e-9 relative);
 *  - every active flow has a positive rate and non-negative remaining bytes;
 *  - bytes are conserved: bytes started = bytes completed + bytes of active
 *    flows, and no active flow has moved more than its size.
 */
#ifndef GM_NET_H
#define GM_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "../ge_engine.h"
#include "../ge_trace.h"

#define GM_MAX_HOPS 8
#define GM_LINK_NAME 40

typedef enum gm_link_kind {
	GM_LINK_GENERIC = 0,
	GM_LINK_NVLINK,
	GM_LINK_PCIE,
	GM_LINK_NIC,
	GM_LINK__COUNT
} gm_link_kind;

const char *gm_link_kind_name(gm_link_kind k);

/* What every flow start and end touches: one cache line per link. */
typedef struct gm_link {
	double bw_Bps;
	double ps_per_byte; /* 1e12 / bw_Bps: transfer time without a division */
	uint32_t nflows, capflows; /* active flows: in inl while capflows <= 2 */
	union {
		uint32_t inl[2];
		uint32_t *heap;
	} fl;
	int64_t busy_since;
	int64_t busy_ps;
	double bytes;
	uint32_t max_flows;
	uint32_t mark; /* solver: component epoch */
} gm_link;
_Static_assert(sizeof(gm_link) == 64, "gm_link: one cache line");

/* The rest of a link: its description and the solver's scratch. */
typedef struct gm_link_info {
	int64_t lat_ps;
	double cap_left; /* solver scratch */
	uint32_t unfixed; /* solver scratch */
	uint8_t kind;
	char name[GM_LINK_NAME];
} gm_link_info;

/* The active flows of a link (a small inline array until a third joins). */
static inline uint32_t *gm_link_flows(gm_link *l) { return l->capflows > 2 ? l->fl.heap : l->fl.inl; }
static inline const uint32_t *gm_link_flows_c(const gm_link *l)
{
	return l->capflows > 2 ? l->fl.heap : l->fl.inl;
}

/* One hop of a flow's route: the link, and where the flow sits in that
 * link's list of active flows. */
typedef struct gm_hop {
	uint32_t link, slot;
} gm_hop;

/* 128 bytes on a line boundary: what a flow's start and end touch on a route
 * of up to two hops is in the first line. */
typedef struct gm_flow {
	uint8_t nhops;
	uint8_t active;
	uint8_t fixed; /* solver scratch */
	uint32_t version;
	double bytes, remaining, rate;
	int64_t last_t;
	uint64_t tag;
	gm_hop hop[GM_MAX_HOPS];
	uint32_t mark;
	uint32_t pad_[3];
} gm_flow;
_Static_assert(sizeof(gm_flow) == 128, "gm_flow: two cache lines");

typedef void (*gm_net_done_fn)(void *ctx, uint64_t tag, ge_time now);

typedef struct gm_net {
	ge_engine *eng;
	uint32_t ent_id;
	gm_link *links;
	gm_link_info *info; /* parallel to links */
	uint32_t nlinks, caplinks;
	gm_flow *flows;
	uint32_t capflows;
	uint32_t *free_ids;
	uint32_t nfree;
	uint32_t nactive;
	gm_net_done_fn on_done;
	void *ctx;
	/* solver scratch */
	uint32_t epoch;
	uint32_t *comp_links, *comp_flows;
	uint32_t ncomp_links, ncomp_flows, capcomp_links, capcomp_flows;
	/* statistics */
	uint64_t flows_started, recomputes, comp_flow_visits;
	double bytes_started, bytes_done;
	ge_trace *trace; /* optional: per-link utilization counters */
	int trace_pid;
} gm_net;

void gm_net_init(gm_net *n, ge_engine *eng, gm_net_done_fn on_done, void *ctx);
void gm_net_fini(gm_net *n);
uint32_t gm_net_add_link(gm_net *n, const char *name, gm_link_kind kind, double bw_Bps,
			 int64_t lat_ps);
/* Start moving `bytes` (> 0) along the route; on_done(ctx, tag, t) fires
 * when the transfer ends. Returns the flow id. */
uint32_t gm_net_start(gm_net *n, const uint32_t *route, int nhops, double bytes, uint64_t tag);
int64_t gm_net_route_latency(const gm_net *n, const uint32_t *route, int nhops);
/* Closed-form time of one uncontended transfer over the route: latency +
 * bytes / (min link bandwidth), rounded up to whole picoseconds. */
int64_t gm_net_estimate_ps(const gm_net *n, const uint32_t *route, int nhops, double bytes);
/* Close open busy intervals at time t (call once at the end). */
void gm_net_finish_stats(gm_net *n, int64_t t);
gc_status gm_net_check(const gm_net *n, char **errmsg);

#endif
