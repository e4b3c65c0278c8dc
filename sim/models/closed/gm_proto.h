/* SPDX-License-Identifier: MIT */
/*
 * gm_proto: NCCL's three protocols as changes to the same mechanisms.
 *
 * Simple moves chunks of slices with a fence and a flag per step (what the
 * topology's per-message latencies describe). LL sends 8-byte stores that
 * carry 4 bytes of data and a flag, so the receiver needs no fence: low
 * latency, half the bandwidth. LL128 does the same with 128-byte lines of 120
 * data bytes. A protocol therefore changes, relative to Simple:
 *  - every link's bandwidth by its data efficiency (LL 1/2, LL128 120/128),
 *    LL's held lower still to NCCL's per-GPU ceiling (gm_proto_cap_ll);
 *  - each link class's per-message latency by the ratio of NCCL's per-hop
 *    latency for that protocol and algorithm (ring or tree) to the ring's
 *    Simple one, which the topology's latencies describe (NVLink, PCIe,
 *    network; the flat switch's user-given latency is a wire latency and is
 *    kept);
 *  - the launch and setup latency by the ratio of NCCL's base latencies
 *    (that protocol and algorithm over the ring's Simple);
 *  - the step geometry (chunk, slice, receive buffer) to NCCL's buffers.
 * Sources: NVIDIA/nccl src/graph/tuning.cc (hwLat, baseLat, as quoted in
 * shared/reference/README.md; llMaxBws) and src/include/device.h (buffer
 * sizes).
 */
#ifndef GM_PROTO_H
#define GM_PROTO_H

#include <stdbool.h>
#include <stdint.h>

#include "../../sched/gs_sched.h"
#include "../../topologies/gt_topo.h"

typedef enum gm_proto { GM_PROTO_SIMPLE = 0, GM_PROTO_LL, GM_PROTO_LL128, GM_PROTO__COUNT } gm_proto;

typedef struct gm_proto_info {
	const char *name;      /* "simple", "ll", "ll128" */
	double bw_eff;	       /* data bytes per byte on the wire */
	double base_lat_us;    /* NCCL base latency, ring */
	double hop_lat_us[3];  /* NCCL ring per-hop latency: NVLink, PCIe, network */
	double tree_base_lat_us;   /* NCCL base latency, tree */
	double tree_hop_lat_us[3]; /* NCCL tree per-hop latency: NVLink, PCIe, network */
	uint64_t chunk, slice; /* step geometry (per-rank chunk, one message) */
	uint64_t buffer;       /* receive buffer per connection */
} gm_proto_info;

const gm_proto_info *gm_proto_get(gm_proto p);
/* "simple" / "ll" / "ll128" -> protocol; -1 when unknown. */
int gm_proto_from_name(const char *name);

/* A set of protocols: bit 1 << gm_proto for each. */
#define GM_PROTO_BIT(q) (1u << (q))
#define GM_PROTO_ALL ((1u << GM_PROTO__COUNT) - 1)

/* The protocols NCCL may choose from, written as its NCCL_PROTO variable
 * is: names separated by commas (LL, LL128, Simple; any case), or ^ and
 * the names it may not use. Empty: all. Sets *mask (a set of
 * GM_PROTO_BITs) and *listed (when not NULL: the protocols a list without
 * ^ names, which NCCL turns on even where its defaults would not), and
 * returns true, or returns false with *why (static text) for an unknown
 * name, an empty name, or a set with no protocol left. */
bool gm_proto_parse_set(const char *s, unsigned *mask, unsigned *listed, const char **why);
/* NVLS's latency in NCCL's model (tuning.cc): no base latency, 25 us per
 * operation over NVLink (hwLat NVLink NVLS Simple); NVLS_TREE adds 14 us
 * per network hop of its tree (hwLat NET NVLSTree Simple, the table
 * quoted in shared/reference/README.md), the ring's Simple figure. */
#define GM_NVLS_BASE_LAT_US 0.0
#define GM_NVLS_HOP_LAT_US 25.0
#define GM_NVLS_TREE_NET_LAT_US 14.0
/* NVLS across nodes with the network's switches reducing (SHARP): 18 us for
 * the network part (hwLat NET NVLS Simple, shared/reference/README.md). */
#define GM_NVLS_SHARP_NET_LAT_US 18.0
/* Scale a dgx topology, given with the ring's Simple latencies, to NVLS
 * (tree: NVLS_TREE): the NVLink ports' bandwidth by the topology's NVLS
 * efficiency; the launch by NCCL's base-latency ratio; each NVLink message
 * by half of NVLS's operation latency over the ring's Simple hop, since a
 * slice crosses into the switch twice (to the reduction engine, then from
 * its owner to the multicast engine); across nodes (net_lat_us > 0: the
 * tree's per hop, or SHARP's), each network message by that latency over
 * the ring's Simple network hop. */
void gm_proto_apply_nvls(gt_topo *t, double net_lat_us);
/* Scale a topology description, given with the ring's Simple latencies, to
 * protocol p of algorithm `algo` (NCCL tunes the tree's hop and base
 * latencies apart from the ring's). */
void gm_proto_apply(gm_proto p, gs_algo algo, gt_topo *t);
/* LL's throughput ceiling, after gm_proto_apply(GM_PROTO_LL, ...): a GPU
 * moves LL lines no faster than NCCL's llMaxBws for its generation
 * (t->ll_max_Bps, by the nodes the collective spans: one, two, more), well
 * below half the links' rate across nodes (Hopper: 45 GB/s busbw on two
 * nodes against 200 for half of eight 400 Gb/s NICs). The links' LL
 * bandwidth is scaled to min(1/2, ceiling / B), B a busbw bound of a ring
 * of the collective's ranks. Across nodes of NVLink GPUs each link class
 * has its own B, so that a faster link of one class never slows another:
 * the NICs the node's NICs (as many as it has ranks, or fewer where GPUs
 * share one), the PCIe links those NICs' feeds (each NIC fed by the GPUs
 * that share it), the NVLink ports the ports, which carry rpn - 1 of every
 * rpn hops (t->bw_class_scale). Elsewhere one B, the one that binds,
 * scales every link (t->bw_scale): one node (the NVLink port), a flat
 * switch (the GPU's link), nodes of PCIe GPUs (whose paths share the PCIe
 * links).
 * A topology without a generation (t->ll_max_Bps 0) keeps the 1/2. */
void gm_proto_cap_ll(gt_topo *t, int comm_nodes, int ranks_per_node);
/* The channel cap, for one collective of algorithm `algo` with protocol p
 * over nchannels channels spanning comm_nodes nodes: a ring's channel is
 * one CTA, which moves at most NCCL's per-channel figure for the GPU
 * generation (t->chan_simple_Bps, t->chan_ll128_Bps; by the nodes: one,
 * two, more) or t->chan_bw_Bps when given. With every channel busy a
 * CTA's share of its links is usually below it (16 channels on an H100's
 * 374 GB/s NVLink: 23 GB/s each); it binds when a channel runs ahead of
 * the others -- at mid sizes and with many ranks, where one channel's
 * small slices cross a link while the others wait -- which is where
 * NCCL's runs across nodes are slower than free sharing of the links.
 * The tree's channel is one CTA too (perChMaxTreeBws for Simple,
 * perChMaxTreeLL128Bws, t->chan_tree_ll128_Bps, for LL128); it stores a
 * slice to all its down-children at once, so its sends after the first
 * (GS_STEP_FANOUT) leave without crossing its link again.
 * Sets t->chan_cap_Bps and t->chan_links; none for LL, whose ceiling is
 * per GPU (gm_proto_cap_ll), nor for other algorithms. */
void gm_proto_cap_channel(gt_topo *t, gm_proto p, gs_algo algo, int comm_nodes, int nchannels);
/* The ring's busbw bound over all its links, in B/s: the B above, across
 * nodes the lowest of the NICs', their PCIe feeds' and the NVLink ports'
 * (0 when the collective moves nothing between GPUs). */
double gm_proto_ring_bound(const gt_topo *t, int comm_nodes, int ranks_per_node);

#endif
