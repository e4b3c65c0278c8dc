/* SPDX-License-Identifier: MIT */
/*
 * gt_topo: cluster topologies as link graphs with fixed routes.
 *
 * Kinds:
 *  - flat: N GPUs on one non-blocking switch. Each GPU has an up link (GPU to
 *    switch) and a down link (switch to GPU) of `topology.link.bandwidth`;
 *    the whole one-way GPU-to-GPU latency `topology.link.latency` is charged
 *    on the up link. Route(i, j) = up(i), down(j).
 *  - dgx: nodes of `gpus_per_node` GPUs. Inside a node every GPU reaches an
 *    NVSwitch fabric (modelled as a non-blocking crossbar) through its NVLink
 *    port of `nvlink.bandwidth` per direction; route = nvl_up(i), nvl_down(j).
 *    With topology.intra pcie the GPUs reach each other over PCIe instead
 *    (see gt_intra).
 *    Across nodes, GPUDirect RDMA through the GPU's own NIC (one NIC per GPU,
 *    on the GPU's PCIe switch) into a non-blocking network:
 *    route = pcie_up(i), nic_tx(i), nic_rx(j), pcie_down(j).
 *
 * A topology is a description (parsed once from the scenario); each simulation
 * instantiates its links into a fresh gm_net with gt_topo_instantiate, in a
 * fixed order so that link ids are arithmetic and routes need no tables.
 */
#ifndef GT_TOPO_H
#define GT_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/gc_config.h"
#include "../models/net/gm_net.h"

typedef enum gt_kind { GT_FLAT = 0, GT_DGX } gt_kind;

/* How the GPUs of one dgx node reach each other (topology.intra):
 *  - nvswitch: NVLink ports into one NVSwitch fabric (above).
 *  - pcie: peer-to-peer over PCIe. The node's GPUs sit switch_gpus to a
 *    PCIe switch (with their NICs); a switch reaches its CPU through an
 *    uplink of uplink_bw, and with two sockets the CPUs reach each other
 *    through one link each way (UPI, xGMI) of socket_bw. Under one switch
 *    a transfer turns in the switch:
 *      p2p.tx(i), pcie.up(i), pcie.down(j), p2p.rx(j);
 *    otherwise it climbs to the CPU (and across to the other socket):
 *      p2p.tx(i), pcie.up(i), sw.up(s_i), [cpu(k_i -> k_j)], sw.down(s_j),
 *      pcie.down(j), p2p.rx(j).
 *    p2p.tx and p2p.rx are the GPU's peer-to-peer traffic on its own PCIe
 *    link (pcie bandwidth; p2p.tx carries the per-message latency
 *    p2p_latency). Without peer access (p2p false: NCCL's SHM transport)
 *    every transfer is staged in host memory, so it climbs to the CPU even
 *    under one switch. Network traffic shares pcie.up/pcie.down with it.
 *    With NVLink bridges (bridge.bw_Bps > 0) GPUs 2k and 2k+1 reach each
 *    other over their bridge alone, one link each way. */
typedef enum gt_intra { GT_INTRA_NVSWITCH = 0, GT_INTRA_PCIE } gt_intra;
/* NCCL's class of the PCIe path from a GPU to the NIC it sends through
 * (graph typeInter): one switch, several switches, through another GPU
 * over NVLink, through the CPU's host bridge, across sockets. */
typedef enum gt_nic_path { GT_PATH_PIX = 0, GT_PATH_PXB, GT_PATH_PXN, GT_PATH_PHB, GT_PATH_SYS } gt_nic_path;

/* The network between dgx nodes (topology.fabric.kind):
 *  - nonblocking: one ideal switch; route nic_tx(i), nic_rx(j).
 *  - fat-tree: two levels. Each leaf switch takes leaf_nics NICs (all the
 *    NICs of leaf_nics / gpus_per_node nodes) and has uplinks of the NIC
 *    rate to the spines, leaf_nics / oversubscription of them. NICs on one
 *    leaf reach each other through it; others go leaf -> spine -> leaf.
 *  - rail: rail-optimized (DGX SuperPOD): a scalable unit of leaf_nics
 *    nodes has one leaf per rail; NIC k of each of its nodes is on leaf k.
 *    Same rail and unit: one leaf; anything else crosses a spine.
 * Routing over the spines: adaptive (the leaf's uplinks act as one link of
 * their summed bandwidth: traffic spread perfectly), ecmp (one uplink per
 * spine; each connection, a GPU pair's channel, takes the spine its hash
 * picks, so connections can collide; RoCE) or dmodk (one uplink per spine; everything for the NIC of
 * GPU d goes through spine d mod uplinks: InfiniBand's static destination
 * routing). pxn (rail only): a message to another rail first crosses
 * NVLink to the sender's node's GPU on the receiver's rail and leaves
 * through that GPU's NIC (NCCL's PXN), staying on one rail.
 * Pods (pod_nodes > 0, a three-level Clos): the leaves of pod_nodes nodes
 * share spines of their own, and a pod's spines reach the others' through
 * a core layer over pod_uplinks links of the NIC rate (its leaves' uplinks
 * / pod_oversubscription). Another pod: leaf -> spine -> core -> spine ->
 * leaf. With ecmp and dmodk spine u owns pod_uplinks / uplinks core ports,
 * one picked by the rest of the hash (of the destination index). */
typedef enum gt_fabric { GT_FAB_NONBLOCKING = 0, GT_FAB_FAT_TREE, GT_FAB_RAIL } gt_fabric;
typedef enum gt_routing { GT_ROUTE_ADAPTIVE = 0, GT_ROUTE_ECMP, GT_ROUTE_DMODK } gt_routing;

/* The hosts' CPU vendor (topology.cpu), which NCCL's cost model reads. */
typedef enum gt_cpu { GT_CPU_INTEL = 0, GT_CPU_AMD, GT_CPU_ARM } gt_cpu;

typedef struct gt_link_spec {
	double bw_Bps;
	int64_t lat_ps;
} gt_link_spec;

typedef struct gt_topo {
	gt_kind kind;
	char preset[32]; /* "" when none */
	int ngpus;
	int nodes;
	int gpus_per_node;
	int64_t launch_ps;
	int default_channels;
	/* NCCL's channels for a communicator within one node (its NVLink
	 * search, gt_topo.c nccl_node_channels); 0: none known (no GPU
	 * generation, PCIe nodes, flat) */
	int node_channels;
	gt_link_spec link;   /* flat */
	gt_link_spec nvlink; /* dgx */
	gt_link_spec pcie;   /* dgx */
	gt_link_spec nic;    /* dgx: each NIC's */
	/* dgx: the latency the net plugin declares to NCCL, which only NCCL's
	 * cost model reads (0: none) */
	int64_t nic_declared_ps;
	int nic_share;	     /* dgx: GPUs per NIC (topology.nics_per_node; 0 or 1: one each) */
	gt_nic_path nic_path; /* dgx: topology.nic_path */
	/* dgx: the node's inside (see gt_intra); pcie only: */
	gt_intra intra;
	int switch_gpus;      /* GPUs per PCIe switch */
	int sockets;	      /* 1 or 2; the switches split evenly between them */
	bool p2p;	      /* peer access (false: staged through host memory) */
	int64_t p2p_lat_ps;   /* per message GPU to GPU */
	double uplink_bw_Bps; /* a PCIe switch to its CPU, per direction */
	double socket_bw_Bps; /* one socket to the other, per direction */
	gt_link_spec bridge;  /* NVLink bridge of GPUs 2k, 2k+1 (bandwidth 0: none) */
	double cpu_p2p_eff;   /* share of uplink and socket bandwidth peer traffic gets */
	/* protocol adjustments applied when links are instantiated (1 = as
	 * described): bandwidth efficiency and per-class latency factors */
	double bw_scale;
	double lat_scale[GM_LINK__COUNT];
	double bw_class_scale[GM_LINK__COUNT]; /* per link class, on top of bw_scale (0: 1) */
	double nvls_eff; /* dgx: NVLink share NVLS traffic gets (0: not given) */
	/* NCCL's ceilings on the LL protocol's throughput per GPU (busbw, B/s),
	 * by the nodes a collective spans: one (the GPU generation's), two, more
	 * (the CPU vendor's) (tuning.cc llMaxBws); 0: none */
	double ll_max_Bps[3];
	int arch;   /* topology.gpu_arch: 0 none, 1 volta, 2 ampere, 3 hopper, 4 blackwell */
	gt_cpu cpu; /* topology.cpu */
	/* NCCL's per-channel throughput for the generation (one CTA moving a
	 * channel's data, B/s; tuning.cc perChMaxTreeBws, perChMaxRingLL128Bws,
	 * perChMaxTreeLL128Bws), by the nodes a collective spans: Simple (ring
	 * and tree), the ring's LL128, the tree's LL128; 0: none. chan_bw_Bps
	 * > 0 replaces them all (topology.channel_bandwidth). */
	double chan_simple_Bps[3], chan_ll128_Bps[3], chan_tree_ll128_Bps[3];
	double chan_bw_Bps;
	/* in force for one collective (gm_proto_cap_channel): each GPU gets
	 * chan_links links of chan_cap_Bps, one per channel, which every
	 * route from it on that channel crosses first; 0: none */
	double chan_cap_Bps;
	int chan_links;
	bool no_nvls;	 /* a preset whose NVSwitch has no NVLink SHARP */
	/* dgx: the network between the nodes (see gt_fabric) */
	gt_fabric fabric;
	int leaf_nics;	      /* NICs per leaf switch */
	int uplinks;	      /* per leaf, each of the NIC rate */
	int nleaves;
	bool sharp; /* the network's switches reduce (SHARP): nvls across nodes */
	gt_routing routing;
	bool ecmp; /* one link per spine (ecmp or dmodk) rather than one per leaf */
	bool pxn;
	/* GPUs 2k and 2k + 1 of a node share a PCIe switch with their NICs
	 * (the preset's): PXN between a pair goes over PCIe, and rings leave a
	 * node at their entry's pair (gs_params.ring_pairs) */
	bool pcie_pairs;
	int64_t switch_lat_ps; /* one more switch on the way (leaf -> spine -> leaf: two) */
	double oversub;
	/* a core layer above pods of leaves (npods 0: none, two levels) */
	int pod_nodes;	 /* nodes per pod */
	int npods;
	int pod_leaves;	 /* leaves per pod */
	int pod_uplinks; /* per pod to the core, each of the NIC rate */
	double pod_oversub;
	/* dgx only: the ranks are host processes, one per GPU, of a host
	 * backend (gm_host), not GPUs: the NVLink slots are each process's
	 * transfers to the processes of its node ("n0.proc3.intra.tx"), the
	 * PCIe slots its transfers to other nodes ("n0.proc3.inter.tx"),
	 * both of kind GM_LINK_HOST; the routes are the same (intra must be
	 * nvswitch, without PXN, bridges or channel caps). */
	bool host;
} gt_topo;

/* Register the topology parameter table. */
void gt_topo_register_params(gc_config *cfg);
/* Apply preset defaults and check cross-key constraints. */
gc_status gt_topo_check(gc_config *cfg, char **errmsg);
/* Read a checked configuration into a description. */
gc_status gt_topo_from_config(const gc_config *cfg, gt_topo *t, char **errmsg);

/* Add this topology's links to net (link ids start at the net's current
 * count, which must be 0). */
void gt_topo_instantiate(const gt_topo *t, gm_net *net);
/* Helper ranks per NVSwitch node (its reduction and multicast engines). */
#define GT_HELPERS_PER_NODE 2
/* Route from src to dst (src != dst) as link ids; returns hops. A rank
 * h >= ngpus is a helper rank, part of the switch of node
 * (h - ngpus) / GT_HELPERS_PER_NODE of a dgx topology (of the one switch
 * of a flat one): its route to or from a GPU of that node is the GPU's
 * port into or out of the switch. On a dgx topology the helpers after
 * those are the network switch's (in-network reduction): Q = ngpus +
 * GT_HELPERS_PER_NODE nodes, reached from any GPU through its NIC, and
 * E_y = Q + 1 + y, which reaches node y's GPUs through their NICs; routes
 * among these have no hops (0). */
int gt_topo_route(const gt_topo *t, int src, int dst, uint32_t *route);
/* Whether link id `link` of the instantiated topology is a channel's own
 * (the rate of one CTA, chan_cap_Bps). */
bool gt_topo_is_chan_link(const gt_topo *t, uint32_t link);
/* The same for the connection of channel ch: ecmp routing tells channels
 * apart (each is its own queue pair, hashed on its own), and with a
 * channel cap in force (chan_cap_Bps) a route between GPUs starts at the
 * sender's link of channel ch % chan_links. */
int gt_topo_route_ch(const gt_topo *t, int src, int dst, int ch, uint32_t *route);
/* A fan-out send's route (GS_STEP_FANOUT: data its CTA already stores to
 * another peer): route (h hops, from gt_topo_route_ch) without the
 * sender's channel link, in place; returns the hops left. */
int gt_topo_route_fanout(const gt_topo *t, uint32_t *route, int h);
int gt_topo_node_of(const gt_topo *t, int gpu);
/* Translation symmetry: the fewest GPUs P (dividing ngpus) such that
 * moving every GPU by P, mod ngpus, maps every link onto one alike and
 * every route between GPUs onto the moved GPUs' route: a flat topology's
 * one GPU, a node behind a nonblocking fabric, a leaf's (rail: a unit's)
 * or a pod's nodes behind a fabric with adaptive routing; 0 where there is
 * none (ecmp and dmodk pick spines by the GPUs' ids; a leaf or pod left
 * partly empty). Links made unalike later (faults) are the caller's. */
int gt_topo_period(const gt_topo *t);
/* The link of the first nq GPUs (nq a multiple of gt_topo_period dividing
 * ngpus) that `link` is an image of, when every GPU moves by multiples
 * of nq. */
uint32_t gt_topo_fold_link(const gt_topo *t, uint32_t link, int nq);
/* Rotation symmetry: whether moving every GPU one place along its node
 * (local GPU l to (l + 1) mod gpus_per_node), with channel links moving
 * with their GPU to the channel S further on, maps every link onto one
 * alike and every route between GPUs on channel c onto the moved GPUs'
 * route on channel c + S: NVSwitch nodes with a NIC each GPU behind a
 * nonblocking fabric (every link then belongs to one GPU). */
bool gt_topo_rotates(const gt_topo *t);
/* The link of its node's first GPU (local 0) that `link` is an image of,
 * under the rotation above with channel links moved S channels a GPU
 * within groups of G = S x gpus_per_node (chan_links a multiple of G). */
uint32_t gt_topo_rotate_link(const gt_topo *t, uint32_t link, int S, int G);
/* NICs per node (dgx; flat: 1). A NIC shared by nic_share GPUs is that
 * group's first GPU's: its NIC link slots carry the group's traffic. */
int gt_topo_nics(const gt_topo *t);
/* NICs of one node that ranks_per_node of its GPUs (0, 1, ... in a
 * communicator's order) leave through. */
int gt_topo_comm_nics(const gt_topo *t, int ranks_per_node);
/* dgx: the leaf switch of GPU g's NIC (0 with a nonblocking fabric). */
int gt_topo_leaf_of(const gt_topo *t, int gpu);
/* dgx: the pod of GPU g's node (0 without a core layer). */
int gt_topo_pod_of(const gt_topo *t, int gpu);
/* The most one GPU moves to the others of its node at once, per
 * direction, when each sends to one peer as in a ring over the node in
 * GPU order: its NVLink port, or (pcie) the narrowest of its PCIe link, its
 * switch's uplink and the link between sockets that such a ring crosses
 * (each carries one GPU's stream). */
double gt_topo_intra_bw(const gt_topo *t);
/* One line describing the topology, e.g. "dgx-h100: 1 node x 8 GPUs, ...". */
void gt_topo_describe(const gt_topo *t, char *buf, size_t n);

#endif
