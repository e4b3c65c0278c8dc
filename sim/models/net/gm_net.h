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
 * ring of N disjoint transfers costs O(1) per event, not O(N). Where that
 * component is large (a full pipeline on thousands of GPUs), the local
 * solve (GM_NET_SOLVE_LOCAL) solves only the flows the change can move:
 * those of the changed links, grown by every flow whose max-min
 * bottleneck the new rates put in question (gm_net.c, settle).
 *
 * The transfer of a flow ends when its last byte has passed the bottleneck
 * (fluid model); the message is delivered one route latency later (the sum of
 * the links' latencies), which the caller schedules.
 *
 * Completion times: every rate change moves a flow's end, and a contended
 * run changes rates far more often than flows end. The times are kept in
 * a heap of the net's own (flow by end time, then by the engine seq
 * reserved when the time was set), and only its earliest flow has an
 * engine event, under that reserved key (ge_reserve_seq): events fire in
 * the order an event per change would give, and the engine's queue holds
 * one entry per net instead of one per change. A flow that starts alone
 * on its route (the fast path) schedules its end in the engine directly,
 * and joins the heap only if a rate change moves it.
 *
 * Invariants (checked by gm_net_check):
 *  - every active flow is listed on exactly its route's links;
 *  - on every link the sum of flow rates <= bandwidth (1e-9 relative);
 *  - once an instant's changes are solved, every active flow has a
 *    bottleneck: a link of its route that its flows fill and on which no
 *    flow is faster (1e-9 relative), so the rates are max-min fair;
 *  - every active flow has a positive rate and non-negative remaining bytes
 *    (or, started at this instant, none yet while its solve is queued);
 *  - every flow with a rate has its end in the end-time heap (in heap
 *    order, the earliest with its engine event) or in the engine directly;
 *  - bytes are conserved: bytes started = bytes completed + bytes of active
 *    flows, and no active flow has moved more than its size.
 */
#ifndef GM_NET_H
#define GM_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/gc_fifo.h"
#include "../../ge_engine.h"
#include "../../ge_trace.h"

#define GM_MAX_HOPS 10
#define GM_LINK_NAME 40

typedef enum gm_link_kind {
	GM_LINK_GENERIC = 0,
	GM_LINK_NVLINK,
	GM_LINK_PCIE,
	GM_LINK_NIC,
	GM_LINK_CHANNEL, /* a channel's own rate (its CTAs), no physical link */
	GM_LINK_HOST,	 /* a host process's own rate: its socket's TCP stream (gloo) or its
			  * shared-memory and RDMA transfers (MPI) (gm_host) */
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
} gm_link;
_Static_assert(sizeof(gm_link) == 64, "gm_link: one cache line");

/* The rest of a link: its description. */
typedef struct gm_link_info {
	int64_t lat_ps;
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
	uint8_t armed; /* its end has an engine event under its current key */
	uint32_t version;
	double bytes, remaining, rate;
	int64_t last_t;
	uint64_t tag;
	gm_hop hop[GM_MAX_HOPS];
} gm_flow;
_Static_assert(sizeof(gm_flow) == 128, "gm_flow: two cache lines");

typedef void (*gm_net_done_fn)(void *ctx, uint64_t tag, ge_time now);

/* How a change of flows is solved (gm_net_set_solve): auto (the component,
 * until a component of more than GM_NET_LOCAL_FROM flows is met: from then
 * on local, while more than that many flows are active), component
 * (progressive filling of every flow connected to the change), local (the
 * flows the change can move, grown until the max-min conditions hold). */
typedef enum gm_net_solve {
	GM_NET_SOLVE_AUTO = 0,
	GM_NET_SOLVE_COMPONENT,
	GM_NET_SOLVE_LOCAL,
} gm_net_solve;
#define GM_NET_LOCAL_FROM 4096

/* Packet mode, per flow: its packets, how many left each hop, its place in
 * its queue and what to report when its last byte lands. */
typedef struct gm_pflow {
	uint32_t npk, last_bytes; /* every packet is pkt_bytes but the last */
	uint32_t queue, next;	  /* next flow of the queue, or UINT32_MAX */
	uint32_t sent[GM_MAX_HOPS];
	uint64_t land_tag;
} gm_pflow;

/* Packet mode, per queue (a connection: its messages keep their order):
 * the route, per hop the packets waiting there and the flow they belong
 * to, and the queue's flows, oldest first. */
typedef struct gm_pqueue {
	uint32_t route[GM_MAX_HOPS];
	uint32_t q[GM_MAX_HOPS];   /* packets arrived at the hop, not yet sent */
	uint32_t t[GM_MAX_HOPS];   /* packets on their way to the hop */
	uint32_t lim[GM_MAX_HOPS]; /* the hop's buffer: q + t stays below it */
	uint32_t cur[GM_MAX_HOPS]; /* oldest flow with packets to send there */
	uint8_t inq[GM_MAX_HOPS];  /* (queue, hop) is in its link's ready ring */
	uint32_t head, tail;	   /* active flows, oldest first */
	int nhops;
	int64_t lat[GM_MAX_HOPS];  /* each hop's latency (gm_net_hop_latency) */
} gm_pqueue;

/* Packet mode, per link: a round-robin ring of (queue, hop) entries with a
 * packet ready to go, and the packet on the wire. */
typedef struct gm_plink {
	gc_fifo ring;
	uint32_t cur;	    /* entry being sent, or UINT32_MAX when idle */
	uint32_t cur_flow;  /* its flow */
	uint32_t cur_bytes; /* its size */
	uint8_t busy;	    /* trace: inside a busy period */
} gm_plink;

#define GM_NET_NO_TAG UINT64_MAX
typedef void (*gm_net_land_fn)(void *ctx, uint64_t land_tag, ge_time now);

typedef struct gm_net {
	ge_engine *eng;
	uint32_t ent_id;
	gm_link *links;
	gm_link_info *info; /* parallel to links */
	/* solver: the component epoch each link was last collected in,
	 * parallel to links; apart from them, so that a collection's checks
	 * read 4 bytes a link from an array that stays in the cache, not a
	 * line of each link */
	uint32_t *lmark;
	uint32_t nlinks, caplinks;
	gm_flow *flows;
	uint32_t *flow_mark; /* parallel to flows: solver component epoch */
	uint32_t *bneck;     /* parallel to flows: the link that fixed its rate */
	uint32_t capflows;
	uint32_t *free_ids;
	uint32_t nfree;
	uint32_t nactive;
	gm_net_done_fn on_done;
	void *ctx;
	/* flows with a rate, by end time (the header): a 4-ary min-heap of
	 * their ends as (time, seq) keys and their ids, and each flow's place
	 * in it */
	ge_key *dkey;
	uint32_t *dheap, *dpos;
	uint32_t ndheap;
	/* links whose flows changed at this instant, solved at its end */
	uint32_t *pend;
	uint32_t npend, cappend;
	bool solve_queued;
	uint8_t solve_mode; /* gm_net_solve */
	bool big;	    /* auto: a component of more than GM_NET_LOCAL_FROM flows met */
	/* solver scratch */
	uint32_t epoch;
	uint32_t *comp_links, *comp_flows;
	uint32_t ncomp_links, ncomp_flows, capcomp_links, capcomp_flows;
	/* the solve's links, dense, in the component's order: the capacity
	 * each has left and its flows not yet fixed, and per link of the net
	 * its place there (a scan of the levels reads 12 bytes a link, not
	 * a link's cache line) */
	double *sc_cap;
	uint32_t *sc_unfixed, *sc_lid, *sc_at;
	uint32_t capsc, capsc_at;
	/* statistics */
	uint64_t flows_started, recomputes, comp_flow_visits;
	uint64_t local_solves, local_fallbacks; /* settle(): local, and given up */
	double bytes_started, bytes_done;
	ge_trace *trace; /* optional: per-link utilization counters */
	int trace_pid;
	/* packet mode (pkt_bytes > 0; see gm_pkt.c) */
	uint32_t pkt_bytes, pkt_buf;
	gm_pflow *pf; /* parallel to flows */
	gm_plink *pl; /* parallel to links, allocated at the first packet flow */
	gm_pqueue *pq;
	uint32_t npq;
	gm_net_land_fn on_land;
	uint64_t packets;
	/* bottleneck tracking (gm_net_track_bottlenecks, flow mode), parallel
	 * to flows: the kind of the link that holds the flow's rate, since
	 * when, and its time so far by kind; the finished flow's during
	 * on_done */
	bool track;
	uint8_t *bk_kind;
	int64_t *bk_since;
	int64_t *bk_acc; /* GM_LINK__COUNT per flow */
	int64_t done_bk[GM_LINK__COUNT];
} gm_net;

void gm_net_init(gm_net *n, ge_engine *eng, gm_net_done_fn on_done, void *ctx);
void gm_net_fini(gm_net *n);
uint32_t gm_net_add_link(gm_net *n, const char *name, gm_link_kind kind, double bw_Bps,
			 int64_t lat_ps);
/* Multiply every link's bandwidth by f (> 0): where each flow stands for
 * 1 / f alike flows on the same links (gm_coll's channel fold). */
void gm_net_scale_bandwidth(gm_net *n, double f);
/* Start moving `bytes` (> 0) along the route; on_done(ctx, tag, t) fires
 * when the transfer ends. Returns the flow id. */
uint32_t gm_net_start(gm_net *n, const uint32_t *route, int nhops, double bytes, uint64_t tag);
/* The latency a route adds: its links' latencies, except that a route
 * through a NIC is one network step, whose NVLink links (PXN's hop to the
 * GPU beside the NIC) add their share of bandwidth but not the NVLink
 * link's latency, which is NCCL's intra-node step (NCCL's tuning model
 * charges a PXN send the network's latency alone). */
int64_t gm_net_route_latency(const gm_net *n, const uint32_t *route, int nhops);
/* Hop h's part of it. */
int64_t gm_net_hop_latency(const gm_net *n, const uint32_t *route, int nhops, int h);
/* Closed-form time of one uncontended transfer over the route: latency +
 * bytes / (min link bandwidth), rounded up to whole picoseconds. */
int64_t gm_net_estimate_ps(const gm_net *n, const uint32_t *route, int nhops, double bytes);
/* Packet mode (call before the first flow starts): a flow is cut into
 * packets of pkt_bytes that every hop stores and forwards. Flows belong to
 * queues (connections; one route each) whose messages keep their order. A
 * link sends one packet at a time, taking the queues with a packet ready in
 * turn (round robin); a queue's packet is ready at a hop when it has arrived
 * there and the queue holds fewer than hop_buffer packets, plus what the
 * link before covers in its latency, at the next hop or on their way there
 * (lossless, credit-style back-pressure). A flow's on_done fires when
 * its last packet has left the first link (the sender is done with it);
 * on_land(land_tag) fires when its last byte has arrived at the end of the
 * route. Start flows with gm_net_start_queued. See gm_pkt.c. */
void gm_net_set_packet(gm_net *n, uint32_t pkt_bytes, uint32_t hop_buffer, gm_net_land_fn on_land);
/* Flow mode (call before the first flow starts): follow for every flow
 * the kind of the link that holds its rate, where progressive filling
 * fixes it (alone on its route: its slowest link). During on_done,
 * gm_net_done_bottlenecks gives the finished flow's time by that kind
 * (GM_LINK__COUNT entries summing to its duration). */
void gm_net_track_bottlenecks(gm_net *n);
/* Flow mode: how changes are solved (the default: GM_NET_SOLVE_AUTO). */
void gm_net_set_solve(gm_net *n, gm_net_solve mode);
const int64_t *gm_net_done_bottlenecks(const gm_net *n);
/* Start a flow in queue `queue` (any id; a queue's flows share one route);
 * in flow mode the same as gm_net_start, with land_tag unused. */
uint32_t gm_net_start_queued(gm_net *n, uint32_t queue, const uint32_t *route, int nhops,
			     double bytes, uint64_t tag, uint64_t land_tag);
/* Packet mode: closed-form time from the start of one uncontended flow to
 * the landing of its last byte, the store-and-forward pipeline (tandem
 * queue) over the route. */
int64_t gm_net_estimate_pkt_ps(const gm_net *n, const uint32_t *route, int nhops, double bytes);
/* Close open busy intervals at time t (call once at the end). */
void gm_net_finish_stats(gm_net *n, int64_t t);
gc_status gm_net_check(const gm_net *n, char **errmsg);

#endif
