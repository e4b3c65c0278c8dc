/* SPDX-License-Identifier: MIT */
/*
 * gm_coll: times a schedule (sim/sched) on a topology with the event engine.
 *
 * Mapping of schedule steps onto the models:
 *  - each rank's kernel starts after the topology's launch latency; strands
 *    (channels) run concurrently, steps of a strand in order; over
 *    back-to-back iterations each operation pays the launch latency again
 *    (NCCL's base latency is per operation) and starts no sooner than its
 *    host thread has enqueued it: a thread that drives gpus_per_thread GPUs
 *    (nccl-tests -g) enqueues each operation on them in turn, enqueue_ps
 *    each, which bounds short operations to one per G x enqueue_ps;
 *  - the receive part of a step waits until the matching message has been
 *    delivered, then consumes it; its bytes return to the sender's credit one
 *    route latency later (each connection (src, dst, channel) has a receive
 *    buffer of `buffer_bytes`; a send waits until its message fits: NCCL's
 *    slot/credit flow control, where the receiver's head pointer update
 *    travels back to the sender);
 *  - the send part starts a flow over the route between the two GPUs; the
 *    step completes when the flow's last byte has left the bottleneck, and
 *    the message is delivered one route latency later;
 *  - one-sided ops: a PUT is a flow into the peer's buffer (no receive step,
 *    no credit); a SIGNAL is an 8-byte flow whose arrival one route latency
 *    later increments the peer's signal slot; a WAIT parks the strand until
 *    its slot reaches the threshold, counting (over back-to-back
 *    iterations) the SIGNALs its senders sent in the same iteration as
 *    the WAIT's;
 *  - reductions and copies are fused with data movement (NCCL performs them
 *    in the same SM loop that moves the data) and add no time of their own.
 * Streaming: steps are fetched from the generator in small windows per
 * strand, so memory is O(ranks x channels), not O(steps).
 */
#ifndef GM_COLL_H
#define GM_COLL_H

#include <stdbool.h>
#include <stdint.h>

#include "../../ge_trace.h"
#include "../../sched/gs_sched.h"
#include "../../topologies/gt_topo.h"
#include "gm_cpath.h"
#include "../net/gm_fault.h"
#include "../net/gm_net.h"
#include "../transport/gm_xport.h"

/* One step of one strand as it ran, for gm_coll_opts.on_step. A step's
 * time splits into waiting for its incoming message (recv_ps - start_ps),
 * waiting for room in the receiver's buffer (ready_ps - recv_ps) and its
 * message going out (end_ps - ready_ps). */
typedef struct gm_step_rec {
	uint32_t rank, strand, channel; /* a channel runs one strand or more (gs_gen) */
	int iter;	       /* back-to-back operation, from 0 */
	uint64_t index;	       /* position in the strand's schedule */
	const gs_step *step;
	int64_t start_ps; /* the strand was free for it: its previous step ended, or the launch */
	int64_t recv_ps;  /* its incoming message (a WAIT: its signals) was there; start_ps when
			   * it receives nothing */
	int64_t ready_ps; /* its message was issued (room at the receiver); end_ps when it
			   * issues no flow of its own */
	int64_t end_ps;	  /* done: its message's last byte off the bottleneck (or handed to the
			   * proxy's FIFO), or what it received consumed */
	uint32_t via;	  /* the kinds of link its message crosses (1 << gm_link_kind); 0 when
			   * it sends nothing or stays inside a switch */
} gm_step_rec;

typedef struct gm_coll_opts {
	uint64_t buffer_bytes; /* receive buffer per connection */
	int iters;	       /* back-to-back operations; time reported per op */
	int gpus_per_thread;   /* GPUs one host thread enqueues in turn (0 or 1: one each) */
	int64_t enqueue_ps;    /* host time to enqueue one GPU's part of an operation */
	uint64_t seed;
	bool check;	       /* engine check mode */
	ge_trace *trace;       /* optional */
	int trace_links;       /* also trace link utilization */
	uint32_t pkt_bytes;    /* > 0: packet fidelity (gm_net_set_packet) */
	uint32_t pkt_buf;      /* its packets per flow per hop */
	bool net_send_proxy;   /* sim.net_send proxy (flow mode): network sends
				* leave the strand at once, the NIC sends each
				* connection's messages in order */
	bool critical_path;    /* flow mode: split the time along the critical
				* path (gm_cpath.h) into gm_coll_result.cp_ps */
	/* transport.inter (NULL or kind none: a network message is a flow and
	 * the route's latency): every message on a route through a NIC takes
	 * the transport's stages (gm_xport.h), its sender's GPU part holding
	 * the strand, its control path reserving the proxy threads and NIC
	 * message stages, its receiver's part before it is delivered; flow
	 * fidelity only. xport_ll: the protocol's flags arrive with the data
	 * (LL, LL128) */
	const gm_xport *xport;
	bool xport_ll;
	/* optional: called as each step completes, in simulated-time order */
	void (*on_step)(void *ctx, const gm_step_rec *rec);
	void *step_ctx;
	/* optional: the steps done of the run's total, before the first and
	 * then every 2^16 steps (a progress line), with the wall time the
	 * whole run is estimated to take on one core (gm_coll_estimate_s) and
	 * the memory its connections are estimated to take (bytes) */
	void (*on_progress)(void *ctx, uint64_t done, uint64_t total, double est_s, double est_bytes);
	void *progress_ctx;
	/* host backends (gm_host): async_sends: every connection's sends
	 * leave the strand at once, handed to the connection, which sends
	 * them in order (a socket, an MPI isend), its receive buffer still
	 * bounding what is outstanding; flow fidelity. reduce_Bps > 0: a
	 * step that reduces what it received holds its strand bytes /
	 * reduce_Bps after the receive (the CPU sums it in host memory)
	 * before it sends; 0: reductions are fused with the data movement */
	bool async_sends;
	double reduce_Bps;
	/* degraded links (faults.degrade), applied as the links are made;
	 * every name must match a link (gm_run checks it first) */
	const gm_fault *faults;
	size_t nfaults;
	/* lossy links (a fault's loss > 0, flow fidelity): the sender's ACK
	 * timeout for a message's lost last packet (gm_fault.h) */
	int64_t retransmit_ps;
	/* simulate every rank even where the schedule and the topology repeat
	 * every few ranks (by default one such block of ranks is simulated and
	 * stands for all: see gm_coll_fold_ranks) */
	bool no_fold;
	/* how the flow model solves a change of flows (gm_net_set_solve) */
	gm_net_solve solve;
} gm_coll_opts;

typedef struct gm_link_stat {
	char name[GM_LINK_NAME];
	double bw_Bps;
	double bytes;
	int64_t busy_ps;
	uint32_t max_flows;
} gm_link_stat;

typedef struct gm_coll_result {
	int64_t time_ps;  /* per operation */
	int64_t total_ps; /* all iterations */
	uint64_t events;
	uint64_t steps;
	uint64_t messages;
	uint64_t heap_peak;
	uint64_t flow_recomputes;
	gm_link_stat *links; /* nlinks entries, g_free; NULL unless want_links */
	uint32_t nlinks;
	/* a transport's busiest servers (gm_coll_opts.xport): the proxy
	 * thread of rank xp_proxy_rank and the NIC message stage of link
	 * xp_nic_link (-1: none) were busy this long over all iterations;
	 * xp_msgs messages took the transport */
	int64_t xp_proxy_busy_ps, xp_nic_busy_ps;
	int xp_proxy_rank, xp_nic_link;
	uint64_t xp_msgs;
	/* lossy links: messages whose last packet was lost (each waited the
	 * ACK timeout, gm_coll_opts.retransmit_ps), over all iterations */
	uint64_t retransmits;
	/* a link stopped (faults.down) and the operation never completes:
	 * time_ps and total_ps are when the last thing happened, steps of
	 * steps_total were done, lost messages did not get through */
	bool stalled;
	uint64_t steps_total, lost;
	/* critical_path: the critical path of all iterations by category
	 * (sum: total_ps) */
	bool has_cp;
	int64_t cp_ps[GM_CP__COUNT];
	/* ranks simulated (gm_coll_fold_ranks): fewer than the schedule's
	 * where one block of them stood for all; steps, messages and links
	 * are still the whole run's */
	int sim_ranks;
	/* channels each simulated channel stood for (gm_coll_fold_channels
	 * times gm_coll_fold_repeat): 1, or more where a few channels of
	 * every rank stood for all */
	int chan_fold;
} gm_coll_result;

/* Seconds of one core that simulating `steps` steps of `nranks` ranks
 * (and, in packet fidelity, `packet_events` packet events) is expected to
 * take: about 0.5 us per step up to 512 ranks, growing as the square root
 * of the ranks beyond (the flow solver's shares touch more flows), and
 * 50 ns per packet event. Measured on the ring allreduce benchmarks (2-core
 * machine: 256-1024 ranks, 2e6-3.4e7 steps, 0.31-0.82 us per step); an
 * order of magnitude, for a warning, not a promise. */
double gm_coll_estimate_s(uint64_t steps, int nranks, double packet_events);

/* Folding: the ranks gm_coll_simulate simulates for gen on topo. Where
 * the schedule repeats every gs_gen.rank_period ranks and the topology
 * every gt_topo_period GPUs, ranks r and r + q (q a multiple of both, and
 * of the GPUs one host thread drives) do the same thing at the same
 * times: the run is symmetric and max-min sharing has one answer, so the
 * rates and times of every block of q ranks are those of the first.
 * Only ranks 0 .. q-1 are then simulated; a message to rank p goes over
 * the first block's images of p's links (gt_topo_fold_link) and is
 * received by rank p mod q as from the sender's image. The result is the
 * unfolded run's (the same sums in another order: within rounding, tested
 * to 0.1 %), the events fewer by n / q; in the packet fidelity too (its
 * queues are the links' and the connections'). Not folded: opts.no_fold,
 * a trace or per-step records (every rank's), faults (they tell links
 * apart), helpers; then and where nothing repeats: the schedule's
 * ranks. A transport's per-rank state (proxy threads, queue pairs) is the
 * simulated ranks': a message's receiving side runs on its receiver's
 * image. */
int gm_coll_fold_ranks(const gt_topo *topo, const gs_gen *gen, const gm_coll_opts *o);
/* Where the ranks do not fold: the channels each simulated channel stands
 * for, R = ranks per node, or 1. A schedule whose channels rotate with a
 * node's ranks (gs_gen.chan_shift S in groups of gs_gen.chan_group G:
 * channel rot(c) of local rank l + 1 does what channel c of local rank l
 * does) on nodes whose GPUs rotate alike (gt_topo_rotates: each link
 * belongs to one GPU) runs, on every rank, the channels c with
 * c mod G < S alone: channel c of local rank l stands for channel
 * rot^k(c) of local rank l + k (a helper, the node's NVLS switch units,
 * stays itself and its channels rotate), so a link of GPU l carries the
 * images of the flows its node's first GPU's link carries, and every
 * route is taken over those (gt_topo_rotate_link). Max-min sharing has
 * one answer, so the rates and times are the unfolded run's, with R
 * times fewer flows and events. Not folded, beside what stops the rank
 * fold: a transport's stages, proxy sends, packets, a host thread that
 * enqueues one GPU after another (ranks that start apart), back-to-back
 * operations (a rank's next one waits for all its channels, which end
 * when other ranks' simulated ones do). */
int gm_coll_fold_channels(const gt_topo *topo, const gs_gen *gen, const gm_coll_opts *o);
/* Of a channel-folded run (cfold = gm_coll_fold_channels > 1), the
 * channels each simulated one stands for on its own links, where the
 * schedule's channel groups repeat (gs_gen.chan_repeat) and no channel
 * has a link of its own (a CTA's rate): groups / chan_repeat, else 1. */
int gm_coll_fold_repeat(const gt_topo *topo, const gs_gen *gen, int cfold);

gc_status gm_coll_simulate(const gt_topo *topo, const gs_gen *gen, const gm_coll_opts *o,
			   bool want_links, gm_coll_result *res, char **errmsg);

/* A collective of no bytes (nccl-tests' size 0, or an allgather smaller
 * than one element per rank): NCCL returns from the call without a kernel
 * (enqueue.cc: a collective of count 0 is not enqueued), so it takes no
 * time, launch and host enqueue included. Send/recv and MoE are not. */
bool gm_coll_noop(const gs_params *p);

/* Packet fidelity: about how many packets a collective with parameters p
 * sends (from its bytes; each message is at least one more), and the most
 * a run takes on (about two events per packet and hop: minutes). */
#define GM_COLL_MAX_PACKETS 2e9
double gm_coll_packets_estimate(const gs_params *p, uint32_t pkt_bytes, int iters);

/* Closed-form estimate of the same schedule on the same topology (no events):
 * see gm_analytic.c for the formulas. */
gc_status gm_coll_analytic(const gt_topo *topo, const gs_gen *gen, const gm_coll_opts *o,
			   gm_coll_result *res, char **errmsg);

#endif
