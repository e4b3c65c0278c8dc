/* SPDX-License-Identifier: MIT */
/*
 * gt_topo: flat and DGX-style topologies (see gt_topo.h), their parameter
 * table and presets.
 *
 * Defaults and their sources (shared/reference/):
 *  - NVLink per GPU per direction 374 GB/s: the unidirectional peer-to-peer
 *    copy bandwidth measured with p2pBandwidthLatencyTest on 8xH100-SXM
 *    (microbench_published.csv, 371-377 GB/s). It is the data rate one GPU
 *    achieves through its 18 NVLink4 links (450 GB/s raw) after link-protocol
 *    overhead; it is a point-to-point measurement, not a collective one.
 *  - NVLink per-message latency 3.4 us: NCCL's per-hop latency for the Simple
 *    protocol on NVLink (tuning.cc hwLat, ring), i.e. the fence + flag
 *    handshake of one Simple step, which dominates the wire latency.
 *  - NIC 400 Gb/s per GPU (ConnectX-7, one per GPU on DGX H100).
 *  - Network per-message latency 14 us: NCCL's per-hop network latency for the
 *    Simple protocol (tuning.cc hwLat NET, Simple): the GPU -> proxy thread ->
 *    verbs post -> wire -> remote completion -> flag path of one step.
 *  - PCIe Gen5 x16 52 GB/s measured (ND H200 v5 host<->device); its latency
 *    is part of the network latency above.
 *  - Kernel launch and collective setup 8.4 us: NCCL's base latency for Ring
 *    and Tree with the Simple protocol (tuning.cc baseLat).
 *  - Flat cluster link: 400 Gb/s and 2.8 us, the 64 B end-to-end InfiniBand
 *    latency through one leaf switch (DeepSeek ISCA'25, Table 5).
 */
#include "gt_topo.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/gc_units.h"

#define BW_MAX 1e16
#define LAT_MAX 1e15 /* 1000 s in ps */
#define GT_MAX_CHANNELS 32

static const gc_param topo_params[] = {
	{"topology.kind", GC_P_ENUM, "flat", "flat|dgx", 1, 0,
	 "flat: GPUs on one non-blocking switch; dgx: nodes (NVSwitch, or PCIe with topology.intra "
	 "pcie) and their NICs (one per GPU, or topology.nics_per_node)", NULL},
	{"topology.preset", GC_P_ENUM, "none",
	 "none|dgx-h100|p5|p5en|dgx-a100|p4d|dgx-b200|gb200-nvl72", 1, 0,
	 "named hardware preset supplying defaults (dgx-h100: DGX H100 nodes, InfiniBand; p5, p5en: "
	 "AWS H100/H200 nodes, EFA; dgx-a100: DGX A100 nodes, InfiniBand; p4d: AWS A100 nodes, EFA; "
	 "dgx-b200: DGX B200 nodes, InfiniBand; gb200-nvl72: GB200 NVL72 racks, each node one "
	 "72-GPU NVLink domain, InfiniBand)",
	 NULL},
	{"topology.gpus", GC_P_INT, NULL, NULL, 1, 1048576,
	 "number of GPUs (flat); for dgx, nodes x gpus_per_node", NULL},
	{"topology.nodes", GC_P_INT, "1", NULL, 1, 131072, "number of nodes (dgx)", NULL},
	{"topology.gpus_per_node", GC_P_INT, "8", NULL, 1, 1024,
	 "GPUs per node (dgx): the GPUs of one NVLink domain, behind one NVSwitch fabric",
	 "DGX H100: 8 GPUs; GB200 NVL72: 72"},
	{"topology.launch_latency", GC_P_TIME, "8.4us", NULL, 0, LAT_MAX,
	 "kernel launch and collective setup before the first step",
	 "NCCL tuning.cc base latency, Ring/Tree Simple (shared/reference/README.md)"},
	{"topology.link.bandwidth", GC_P_BW, "400Gbps", NULL, 1, BW_MAX,
	 "flat: each GPU's bandwidth per direction", "ConnectX-7 400 Gb/s"},
	{"topology.link.latency", GC_P_TIME, "2.8us", NULL, 0, LAT_MAX,
	 "flat: one-way GPU-to-GPU latency",
	 "IB 64 B end-to-end same leaf, DeepSeek ISCA'25 (microbench_published.csv)"},
	{"topology.nvlink.bandwidth", GC_P_BW, "374GB/s", NULL, 1, BW_MAX,
	 "dgx: NVLink bandwidth per GPU per direction",
	 "8xH100 p2pBandwidthLatencyTest unidirectional (microbench_published.csv)"},
	{"topology.nvlink.latency", GC_P_TIME, "3.4us", NULL, 0, LAT_MAX,
	 "dgx: per-message latency GPU to GPU through NVSwitch: NCCL's per-step latency for Simple, "
	 "its fence, flag and poll included (LL and LL128 scale it to 0.6 and 1.9 us as NCCL's table "
	 "does); explain's nvlink.latency, 0.6 us, is the hardware's part alone",
	 "NCCL tuning.cc hwLat NVLink Ring Simple (shared/reference/README.md)"},
	{"topology.nic.bandwidth", GC_P_BW, "400Gbps", NULL, 1, BW_MAX,
	 "dgx: a NIC's line rate per direction (one NIC per GPU unless topology.nics_per_node)",
	 "ConnectX-7 400 Gb/s"},
	{"topology.nics_per_node", GC_P_INT, "0", NULL, 0, 1024,
	 "dgx: NICs per node, each shared by gpus_per_node / nics_per_node neighbouring GPUs "
	 "(GPUs 0..k-1 the first, and so on); 0: one per GPU. nic.bandwidth is each NIC's",
	 NULL},
	{"topology.nic.latency", GC_P_TIME, "14us", NULL, 0, LAT_MAX,
	 "dgx: per-message latency GPU to GPU across the network",
	 "NCCL tuning.cc hwLat NET Simple (shared/reference/README.md)"},
	{"topology.nic.declared_latency", GC_P_TIME, "0us", NULL, 0, LAT_MAX,
	 "dgx: the latency the network plugin declares to NCCL (ncclNetProperties_t latency), "
	 "which NCCL's cost model adds to its own network hop for every protocol (twice for "
	 "Simple): it steers NCCL's choices (collective.tuner nccl), while the simulated messages "
	 "keep topology.nic.latency; 0: none declared, and the part of topology.nic.latency "
	 "beyond NCCL's 14 us hop stands for it",
	 "NCCL tuning.cc (interLat += graph latencyInter); NCCL's InfiniBand transport declares "
	 "0; aws-ofi-nccl src/platform-aws.cpp: 75 us on p4d and p5, 35 us on p5en and later"},
	{"topology.pcie.bandwidth", GC_P_BW, "52GB/s", NULL, 1, BW_MAX,
	 "dgx: each GPU's PCIe link per direction (to its NIC; with topology.intra pcie to its "
	 "peers too)",
	 "H200 PCIe Gen5 measured 52 GB/s (microbench_published.csv)"},
	{"topology.pcie.latency", GC_P_TIME, "0us", NULL, 0, LAT_MAX,
	 "dgx: GPU<->NIC PCIe latency (already part of nic.latency by default)", NULL},
	{"topology.intra", GC_P_ENUM, "nvswitch", "nvswitch|pcie", 1, 0,
	 "dgx: how the GPUs of a node reach each other: NVLink ports into an NVSwitch, or "
	 "peer-to-peer over PCIe through the node's PCIe switches and CPUs (no NVLink: nvls and "
	 "nvlstree refused, PXN off)",
	 NULL},
	{"topology.pcie.switch_gpus", GC_P_INT, "4", NULL, 1, 1024,
	 "intra pcie: GPUs behind one PCIe switch, with their NICs; GPUs under one switch reach "
	 "each other without the CPU",
	 "8-GPU PCIe server, nvidia-smi topo -m in NVIDIA/nccl-tests#307: GPU0-3 PIX, GPU4-7 PIX, "
	 "SYS between"},
	{"topology.pcie.sockets", GC_P_INT, "2", NULL, 1, 2,
	 "intra pcie: CPU sockets of a node; the PCIe switches split evenly between them",
	 "NVIDIA/nccl-tests#307: two NUMA nodes, four GPUs on each"},
	{"topology.pcie.uplink_bandwidth", GC_P_BW, "0B/s", NULL, 0, BW_MAX,
	 "intra pcie: a PCIe switch's link to its CPU, per direction; 0: topology.pcie.bandwidth (an "
	 "x16 uplink of the GPUs' generation)",
	 NULL},
	{"topology.pcie.socket_bandwidth", GC_P_BW, "0B/s", NULL, 0, BW_MAX,
	 "intra pcie: what GPU traffic gets between the two sockets (UPI, xGMI), per direction; 0: "
	 "topology.pcie.bandwidth. On Intel hosts peer traffic through the CPUs (switch uplinks and "
	 "this link) gets 5/6 of it",
	 "NCCL src/graph/topo.h, its figures (GB/s): Intel Skylake-Cascade Lake 10, Sapphire Rapids "
	 "22, Emerald Rapids 40; AMD Zen 1-2 16, Zen 3-4 24, Zen 5 32; Arm 6; INTEL_P2P_OVERHEAD "
	 "(64 B packets: 6/5 of the bandwidth)"},
	{"topology.pcie.p2p", GC_P_BOOL, "true", NULL, 1, 0,
	 "intra pcie: GPUs access each other's memory (NCCL's P2P transport); false: every "
	 "transfer is staged in host memory (NCCL's SHM transport, as with P2P disabled), climbing "
	 "to the CPU even under one switch",
	 NULL},
	{"topology.pcie.p2p_latency", GC_P_TIME, "5.7us", NULL, 0, LAT_MAX,
	 "intra pcie: per-message latency GPU to GPU over PCIe (Simple; LL and LL128 scale it as "
	 "NCCL's table does)",
	 "NCCL tuning.cc hwLat PCI Ring Simple (shared/reference/README.md)"},
	{"topology.pcie.nvlink_bridge", GC_P_BW, "0B/s", NULL, 0, BW_MAX,
	 "intra pcie: GPUs 2k and 2k+1 of a node joined by an NVLink bridge of this bandwidth per "
	 "direction (PCIe cards sold in bridged pairs); 0: none",
	 "e.g. H100 NVL: 600 GB/s bidirectional NVLink bridge (NVIDIA H100 datasheet), 300 per "
	 "direction before protocol overhead"},
	{"topology.pcie.bridge_latency", GC_P_TIME, "3.4us", NULL, 0, LAT_MAX,
	 "intra pcie with nvlink_bridge: per-message latency over the bridge (Simple; LL and LL128 "
	 "scale it as NCCL's table does for NVLink)",
	 "NCCL tuning.cc hwLat NVLink Ring Simple (shared/reference/README.md)"},
	{"topology.fabric.kind", GC_P_ENUM, "nonblocking", "nonblocking|fat-tree|rail", 1, 0,
	 "dgx: the network between nodes: one ideal switch, a two-level fat tree (a node's NICs on "
	 "one leaf), or rail-optimized (NIC k of every node of a unit on leaf k)", NULL},
	{"topology.fabric.leaf_nics", GC_P_INT, "32", NULL, 1, 1048576,
	 "fat-tree/rail: NICs attached to one leaf switch (rail: nodes per scalable unit)",
	 "a 64-port 400 Gb/s leaf (Quantum-2 QM9700) with half its ports down; DGX SuperPOD "
	 "scalable unit of 32 nodes"},
	{"topology.fabric.oversubscription", GC_P_DOUBLE, "1", NULL, 1, 1024,
	 "fat-tree/rail: a leaf's NIC bandwidth over its uplink bandwidth (1: non-blocking)", NULL},
	{"topology.fabric.pod_nodes", GC_P_INT, "0", NULL, 0, 1048576,
	 "fat-tree/rail: nodes per pod, a group of leaves under spines of its own; pods reach each "
	 "other through a core layer above the spines (a three-level Clos). 0: no core layer, every "
	 "leaf under the same spines",
	 "Llama 3 (Meta 2024, section 3.3.1): pods of 3,072 GPUs (384 nodes) under cluster switches, "
	 "eight pods joined by aggregation switches"},
	{"topology.fabric.pod_oversubscription", GC_P_DOUBLE, "1", NULL, 1, 1024,
	 "fat-tree/rail with pod_nodes: a pod's leaf uplink bandwidth over its bandwidth to the core "
	 "(1: non-blocking)",
	 "Llama 3 (Meta 2024, section 3.3.1): 1:7 at the aggregation layer"},
	{"topology.fabric.routing", GC_P_ENUM, "adaptive", "adaptive|ecmp|dmodk", 1, 0,
	 "fat-tree/rail: adaptive spreads traffic over all uplinks; ecmp pins each connection to the "
	 "spine a hash picks (RoCE); dmodk sends everything for one NIC through spine "
	 "(NIC index mod uplinks), as InfiniBand's static fat-tree routing does",
	 "OpenSM ftree routing (destination-based D-mod-K, Zahavi et al.)"},
	{"topology.fabric.switch_latency", GC_P_TIME, "130ns", NULL, 0, LAT_MAX,
	 "fat-tree/rail: latency of each further switch on a route (leaf -> spine -> leaf adds two)",
	 "InfiniBand switch port-to-port latency, order of 100-130 ns (vendor datasheets)"},
	{"topology.fabric.sharp", GC_P_BOOL, "false", NULL, 1, 0,
	 "the network's switches reduce and multicast (InfiniBand SHARP): algo nvls then runs "
	 "across nodes, as NCCL's NVLS does with SHARP", "NVIDIA Quantum-2 SHARPv3; NCCL NVLS + CollNet"},
	{"topology.fabric.pxn", GC_P_BOOL, "true", NULL, 1, 0,
	 "rail: reach another rail through the sender node's GPU on it (NVLink, then that GPU's "
	 "NIC) instead of through a spine", "NCCL PXN (NCCL_PXN_DISABLE=0, the default)"},
	{"topology.nic_path", GC_P_ENUM, "pxb", "pix|pxb|pxn|phb|sys", 1, 0,
	 "dgx: how NCCL classes the PCIe path from a GPU to its NIC: pix one switch, pxb several "
	 "switches, pxn through another GPU over NVLink, phb through the CPU's host bridge (as "
	 "in a VM that shows no PCIe switches), sys across sockets; NCCL leaves LL128 out by "
	 "default across nodes beyond pxb (beyond pxn on hopper and later)",
	 "NCCL src/graph/tuning.cc (LL128 enabled by default only if typeInter <= PATH_PXB, or "
	 "<= PATH_PXN with compute capability >= 9.0, and typeIntra <= PATH_NVB); DGX nodes "
	 "put each NIC on its GPU's PCIe switch"},
	{"topology.gpu_arch", GC_P_ENUM, "none", "none|volta|ampere|hopper|blackwell", 1, 0,
	 "GPU generation: protocol ll's throughput per GPU is held to NCCL's ceiling (busbw: on "
	 "one node the generation's, across nodes topology.cpu's), and a ring's or tree's channel "
	 "to NCCL's per-channel figure (topology.channel_bandwidth); none: neither",
	 "NCCL src/graph/tuning.cc llMaxBws (GB/s, one node): volta 39, ampere 87.7, hopper 141, "
	 "blackwell 282"},
	{"topology.cpu", GC_P_ENUM, "intel", "intel|amd|arm", 1, 0,
	 "the hosts' CPU vendor: NCCL takes across nodes its LL ceiling and its network post "
	 "overhead from it (collective.tuner nccl)",
	 "NCCL src/graph/tuning.cc: llMaxBws across nodes (two / more) 39/20.4 GB/s on Intel and "
	 "Arm, 22.5/19.0 on AMD; getNetOverhead 1 us (Intel, Arm), 2 us (AMD)"},
	{"topology.channel_bandwidth", GC_P_BW, "0B/s", NULL, 0, BW_MAX,
	 "what one channel (one CTA) of a ring or a tree moves at most from its GPU, protocols "
	 "simple and ll128; 0: NCCL's figure for gpu_arch (none when gpu_arch is none)",
	 "NCCL src/graph/tuning.cc perChMaxTreeBws (Simple), perChMaxRingLL128Bws and "
	 "perChMaxTreeLL128Bws (GB/s, one node / two / more): hopper Simple 38.7/41.4/36.0, ring "
	 "LL128 36.7, tree LL128 36.7/36.7/29.0; ampere 24.0/23.6/17.8, 20; volta "
	 "26.5/18.5/10.0, 20; blackwell 70.0/42.8/24.0, 40, 55.6/31.67/20.0 (NCCL 2.28)"},
	{"topology.nvlink.nvls_efficiency", GC_P_DOUBLE, "0.85", NULL, 0.01, 1,
	 "dgx: fraction of NVLink bandwidth that NVLS (in-switch reduction and multicast) "
	 "traffic gets", "NCCL src/tuning nvls.cc nvlsEfficiency: Hopper 0.85, Blackwell 0.74"},
};

void gt_topo_register_params(gc_config *cfg)
{
	gc_config_add_params(cfg, topo_params, G_N_ELEMENTS(topo_params));
}

static const char *const flat_only[] = {"topology.link.bandwidth", "topology.link.latency", NULL};
static const char *const dgx_only[] = {
	"topology.nodes",	  "topology.gpus_per_node", "topology.nvlink.bandwidth",
	"topology.nvlink.latency", "topology.nic.bandwidth", "topology.nic.latency",
	"topology.nic.declared_latency",
	"topology.pcie.bandwidth", "topology.pcie.latency",  "topology.nvlink.nvls_efficiency",
	"topology.fabric.kind", "topology.fabric.leaf_nics", "topology.fabric.oversubscription",
	"topology.fabric.routing", "topology.fabric.switch_latency", "topology.fabric.pxn",
	"topology.fabric.sharp", "topology.fabric.pod_nodes", "topology.fabric.pod_oversubscription",
	"topology.intra", "topology.nics_per_node", "topology.nic_path", NULL};
/* keys of one kind of node inside (topology.intra) */
static const char *const nvswitch_only[] = {"topology.nvlink.bandwidth", "topology.nvlink.latency",
					    "topology.nvlink.nvls_efficiency", NULL};
static const char *const pcie_only[] = {
	"topology.pcie.switch_gpus", "topology.pcie.sockets", "topology.pcie.uplink_bandwidth",
	"topology.pcie.socket_bandwidth", "topology.pcie.p2p", "topology.pcie.p2p_latency",
	"topology.pcie.nvlink_bridge", "topology.pcie.bridge_latency", NULL};

/* Presets: dgx-style nodes of 8 GPUs on NVSwitch, one NIC's worth of
 * network per GPU. NVLink, PCIe and NIC figures per GPU:
 *  - dgx-h100: ConnectX-7 InfiniBand, 400 Gb/s per GPU; NCCL's own network
 *    hop latency, 14 us for Simple (tuning.cc hwLat NET).
 *  - p5 (AWS p5.48xlarge, H100): 32 EFA interfaces of 100 Gb/s, 4 per GPU,
 *    taken together as 400 Gb/s per GPU; 75 us, the network latency the AWS
 *    net plugin declares to NCCL for p5 (aws-ofi-nccl src/platform-aws.cpp,
 *    platform "p5/p5e", latency 75.0). NCCL adds that figure to its own hop
 *    latency to steer its algorithm choice; gcsim takes it as the network's
 *    per-message latency in place of InfiniBand's 14 us (docs/MODELS.md).
 *  - p5en (H200, same NVLink4): 16 EFA interfaces of 200 Gb/s (400 Gb/s per
 *    GPU), 35 us (the plugin's "p-series" entry: p5en and later).
 *  - dgx-a100: NVLink3, 12 links per GPU at NCCL's 20.0 GB/s each (240
 *    GB/s), one 200 Gb/s HDR NIC per GPU, PCIe Gen4 at its measured ~25
 *    GB/s (as the taxonomy's dgx-a100 platform). Its
 *    second-generation NVSwitch has no SHARP: no nvls or nvlstree.
 *  - p4d (AWS p4d.24xlarge, A100): as dgx-a100 inside the node; 4 EFA
 *    interfaces of 100 Gb/s for 8 GPUs, each shared by two neighbouring
 *    GPUs (topology.nics_per_node 4), 75 us (plugin entry p4d.24xlarge).
 *  - dgx-b200: NVLink5, 18 links per GPU at NCCL's 40.1 GB/s each (722
 *    GB/s; src/graph/topo.h SM100_NVLINK_BW, as 18 x SM90_NVLINK_BW = 371
 *    GB/s for H100 next to the 374 measured); eight single-port
 *    ConnectX-7 400 Gb/s (DGX B200 datasheet); the NICs' PCIe Gen5 x16 as
 *    on H100; NVLS at NCCL's Blackwell efficiency 0.74 (nvls.cc).
 *  - gb200-nvl72: as dgx-b200 per GPU, but a node is the rack's NVLink
 *    domain of 72 GPUs (18 compute trays of 4 GPUs, each GPU with its own
 *    ConnectX-7 400 Gb/s; NVLink Switch trays join all 72).
 * Host CPUs: DGX H100 and DGX B200 two Intel Xeon Platinum (8480C, 8570);
 * DGX A100 two AMD EPYC 7742; p4d Intel Xeon (Cascade Lake), p5 AMD EPYC
 * (Milan), p5en Intel Xeon (Sapphire Rapids); GB200 NVIDIA Grace (Arm). */
typedef struct topo_preset {
	const char *name, *nvlink_bw, *nic_bw, *nic_latency, *pcie_bw;
	const char *nic_declared; /* the latency its net plugin declares to NCCL */
	bool nvls; /* the NVSwitch reduces and multicasts (NVLink SHARP) */
	const char *gpus_per_node, *nvls_eff, *arch;
	const char *cpu; /* the host CPU's vendor (NCCL reads it: topology.cpu) */
	const char *nics; /* NICs per node ("0": one per GPU) */
	/* GPUs 2k and 2k + 1 share a PCIe switch with their two NICs (DGX
	 * H100 and DGX A100: four switches of two GPUs and two NICs each), so
	 * a GPU reaches its pair's NIC over PCIe (NCCL's PXB) */
	bool pairs;
} topo_preset;

static const topo_preset presets[] = {
	{"dgx-h100", "374GB/s", "400Gbps", "14us", "52GB/s", "0us", true, "8", "0.85", "hopper",
	 "intel", "0", true},
	{"p5", "374GB/s", "400Gbps", "75us", "52GB/s", "75us", true, "8", "0.85", "hopper", "amd",
	 "0", false},
	{"p5en", "374GB/s", "400Gbps", "35us", "52GB/s", "35us", true, "8", "0.85", "hopper",
	 "intel", "0", false},
	{"dgx-a100", "240GB/s", "200Gbps", "14us", "25GB/s", "0us", false, "8", "0.85", "ampere",
	 "amd", "0", true},
	{"p4d", "240GB/s", "100Gbps", "75us", "25GB/s", "75us", false, "8", "0.85", "ampere",
	 "intel", "4", false},
	{"dgx-b200", "722GB/s", "400Gbps", "14us", "52GB/s", "0us", true, "8", "0.74", "blackwell",
	 "intel", "0", false},
	{"gb200-nvl72", "722GB/s", "400Gbps", "14us", "52GB/s", "0us", true, "72", "0.74",
	 "blackwell", "arm", "0", false},
};

/* NCCL's figures per GPU generation (GB/s; one node, two, more), from
 * src/graph/tuning.cc (NCCL 2.23 to 2.28; Blackwell's row is NCCL 2.28's,
 * where Blackwell has its own figures):
 *  - ll: LL's ceiling per GPU (busbw), llMaxBws. NCCL reads its one-node
 *    column by GPU generation, and across nodes the two-node and more
 *    columns of its first row on Intel and Arm hosts, of its second on AMD
 *    ones (its comments: "Volta-N1/Intel-N2/Intel-N4", "Ampere-N1/AMD-N2/
 *    AMD-N4"); the other rows' columns there are never read;
 *  - simple, ll128, tree_ll128: what one channel (one CTA) moves,
 *    perChMaxTreeBws (NCCL's only Simple figure, the tree's and the
 *    ring's here), perChMaxRingLL128Bws and perChMaxTreeLL128Bws, which
 *    NCCL's cost model (collective.tuner nccl) reads too. Blackwell's LL
 *    ceiling is twice Hopper's in NCCL; its per-channel figures are not
 *    (Simple 70.0 / 42.8 / 24.0, ring LL128 40.0, tree LL128 55.6 / 31.67
 *    / 20.0). */
static const struct {
	const char *arch;
	double ll[3], simple[3], ll128[3], tree_ll128[3];
} arch_figures[] = {
	{"volta", {39.0, 39.0, 20.4}, {26.5, 18.5, 10.0}, {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}},
	{"ampere", {87.7, 22.5, 19.0}, {24.0, 23.6, 17.8}, {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}},
	{"hopper", {141.0, 45.0, 35.0}, {38.7, 41.4, 36.0}, {36.7, 36.7, 36.7}, {36.7, 36.7, 29.0}},
	{"blackwell",
	 {282.0, 90.0, 70.0},
	 {70.0, 42.8, 24.0},
	 {40.0, 40.0, 40.0},
	 {55.6, 31.67, 20.0}},
};

static const topo_preset *preset_find(const char *name)
{
	for (size_t i = 0; i < G_N_ELEMENTS(presets); i++)
		if (strcmp(name, presets[i].name) == 0)
			return &presets[i];
	return NULL;
}

/* topology.intra and the keys of each kind of node inside */
static gc_status intra_check(gc_config *cfg, const topo_preset *ps, char **errmsg)
{
	bool pcie = strcmp(gc_config_str(cfg, "topology.intra"), "pcie") == 0;
	if (pcie && ps)
		return gc_config_error(cfg, "topology.intra", errmsg,
				       "preset %s has NVSwitch nodes; describe a PCIe node without a "
				       "preset (topology.kind: dgx)",
				       ps->name);
	const char *const *wrong = pcie ? nvswitch_only : pcie_only;
	for (int i = 0; wrong[i]; i++)
		if (gc_config_is_set(cfg, wrong[i]))
			return gc_config_error(cfg, wrong[i], errmsg, "applies to topology.intra %s, not %s",
					       pcie ? "nvswitch" : "pcie", pcie ? "pcie" : "nvswitch");
	int64_t gpn = gc_config_int(cfg, "topology.gpus_per_node");
	int64_t nics = gc_config_int(cfg, "topology.nics_per_node");
	if (nics > 0 && (nics > gpn || gpn % nics != 0))
		return gc_config_error(cfg, "topology.nics_per_node", errmsg,
				       "%lld NICs cannot be shared evenly by a node of %lld GPUs "
				       "(gpus_per_node); give a divisor of it, or 0 for one per GPU",
				       (long long)nics, (long long)gpn);
	if (!pcie)
		return GC_OK;
	if (gc_config_is_set(cfg, "topology.fabric.pxn") && gc_config_bool(cfg, "topology.fabric.pxn"))
		return gc_config_error(cfg, "topology.fabric.pxn", errmsg,
				       "PXN reaches another rail over NVLink; a node with topology.intra "
				       "pcie has none");
	if (gc_config_bw(cfg, "topology.pcie.nvlink_bridge") > 0 && gpn % 2 != 0)
		return gc_config_error(cfg, "topology.pcie.nvlink_bridge", errmsg,
				       "bridges join GPUs in pairs; a node of %lld GPUs (gpus_per_node) has "
				       "one left over",
				       (long long)gpn);
	if (gc_config_bw(cfg, "topology.pcie.nvlink_bridge") == 0 &&
	    gc_config_is_set(cfg, "topology.pcie.bridge_latency"))
		return gc_config_error(cfg, "topology.pcie.bridge_latency", errmsg,
				       "applies with topology.pcie.nvlink_bridge > 0");
	int64_t sw = gc_config_int(cfg, "topology.pcie.switch_gpus");
	int64_t sockets = gc_config_int(cfg, "topology.pcie.sockets");
	if (gpn % sw != 0)
		return gc_config_error(cfg, "topology.pcie.switch_gpus", errmsg,
				       "%lld GPUs per switch do not divide a node of %lld GPUs "
				       "(gpus_per_node)",
				       (long long)sw, (long long)gpn);
	if ((gpn / sw) % sockets != 0)
		return gc_config_error(cfg, "topology.pcie.sockets", errmsg,
				       "%lld PCIe switch%s (gpus_per_node %lld / switch_gpus %lld) do not "
				       "split evenly between %lld sockets",
				       (long long)(gpn / sw), gpn / sw == 1 ? "" : "es", (long long)gpn,
				       (long long)sw, (long long)sockets);
	int64_t share = nics > 0 ? gpn / nics : 1;
	if (share > sw || sw % share != 0)
		return gc_config_error(cfg, "topology.nics_per_node", errmsg,
				       "a NIC shared by %lld GPUs does not sit under one PCIe switch of %lld "
				       "(topology.pcie.switch_gpus); give at least one NIC per switch",
				       (long long)share, (long long)sw);
	return GC_OK;
}

gc_status gt_topo_check(gc_config *cfg, char **errmsg)
{
	const char *preset = gc_config_str(cfg, "topology.preset");
	const topo_preset *ps = preset_find(preset);
	if (ps) {
		char o[48];
		snprintf(o, sizeof(o), "preset %s", preset);
		if (gc_config_is_set(cfg, "topology.kind") &&
		    strcmp(gc_config_str(cfg, "topology.kind"), "dgx") != 0)
			return gc_config_error(cfg, "topology.kind", errmsg,
					       "preset %s describes kind dgx, not '%s'", preset,
					       gc_config_str(cfg, "topology.kind"));
		gc_config_set_default(cfg, "topology.kind", "dgx", o);
		gc_config_set_default(cfg, "topology.gpus_per_node", ps->gpus_per_node, o);
		gc_config_set_default(cfg, "topology.nvlink.nvls_efficiency", ps->nvls_eff, o);
		gc_config_set_default(cfg, "topology.gpu_arch", ps->arch, o);
		gc_config_set_default(cfg, "topology.cpu", ps->cpu, o);
		gc_config_set_default(cfg, "topology.nvlink.bandwidth", ps->nvlink_bw, o);
		gc_config_set_default(cfg, "topology.nvlink.latency", "3.4us", o);
		gc_config_set_default(cfg, "topology.nic.bandwidth", ps->nic_bw, o);
		gc_config_set_default(cfg, "topology.nic.latency", ps->nic_latency, o);
		gc_config_set_default(cfg, "topology.nic.declared_latency", ps->nic_declared, o);
		gc_config_set_default(cfg, "topology.pcie.bandwidth", ps->pcie_bw, o);
		gc_config_set_default(cfg, "topology.nics_per_node", ps->nics, o);
	}
	bool flat = strcmp(gc_config_str(cfg, "topology.kind"), "flat") == 0;
	const char *const *wrong = flat ? dgx_only : flat_only;
	for (int i = 0; wrong[i]; i++)
		if (gc_config_is_set(cfg, wrong[i]))
			return gc_config_error(cfg, wrong[i], errmsg,
					       "does not apply to topology kind %s", flat ? "flat" : "dgx");
	for (int i = 0; flat && pcie_only[i]; i++)
		if (gc_config_is_set(cfg, pcie_only[i]))
			return gc_config_error(cfg, pcie_only[i], errmsg,
					       "does not apply to topology kind flat");
	if (flat)
		return gc_config_require(cfg, "topology.gpus", errmsg);
	/* dgx given as a GPU count: as many whole nodes as that makes */
	if (gc_config_is_set(cfg, "topology.gpus") && !gc_config_is_set(cfg, "topology.nodes")) {
		int64_t g = gc_config_int(cfg, "topology.gpus"),
			per = gc_config_int(cfg, "topology.gpus_per_node");
		if (g % per != 0)
			return gc_config_error(cfg, "topology.gpus", errmsg,
					       "%lld GPUs are not whole nodes of %lld (gpus_per_node); "
					       "give a multiple of %lld, or topology.nodes",
					       (long long)g, (long long)per, (long long)per);
		char v[32];
		snprintf(v, sizeof(v), "%lld", (long long)(g / per));
		gc_config_set_default(cfg, "topology.nodes", v, "topology.gpus / gpus_per_node");
	}
	int64_t total = gc_config_int(cfg, "topology.nodes") * gc_config_int(cfg, "topology.gpus_per_node");
	if (total > 1048576)
		return gc_config_error(cfg, "topology.nodes", errmsg,
				       "nodes x gpus_per_node = %lld exceeds 1048576 GPUs", (long long)total);
	if (gc_config_is_set(cfg, "topology.gpus") && gc_config_int(cfg, "topology.gpus") != total)
		return gc_config_error(cfg, "topology.gpus", errmsg,
				       "is %lld but nodes x gpus_per_node = %lld; give one or make them agree",
				       (long long)gc_config_int(cfg, "topology.gpus"), (long long)total);
	gc_status ist = intra_check(cfg, ps, errmsg);
	if (ist != GC_OK)
		return ist;
	const char *fab = gc_config_str(cfg, "topology.fabric.kind");
	static const char *const fabric_keys[] = {
		"topology.fabric.leaf_nics", "topology.fabric.oversubscription",
		"topology.fabric.routing", "topology.fabric.switch_latency", "topology.fabric.pxn",
		"topology.fabric.pod_nodes", "topology.fabric.pod_oversubscription", NULL};
	for (int i = 0; strcmp(fab, "nonblocking") == 0 && fabric_keys[i]; i++)
		if (gc_config_is_set(cfg, fabric_keys[i]))
			return gc_config_error(cfg, fabric_keys[i], errmsg,
					       "applies to fabric kind fat-tree or rail, not nonblocking");
	if (strcmp(fab, "rail") != 0 && gc_config_is_set(cfg, "topology.fabric.pxn"))
		return gc_config_error(cfg, "topology.fabric.pxn", errmsg,
				       "applies to fabric kind rail only");
	/* the NICs of a node: one per GPU, or nics_per_node */
	int64_t gpn = gc_config_int(cfg, "topology.nics_per_node") > 0
			      ? gc_config_int(cfg, "topology.nics_per_node")
			      : gc_config_int(cfg, "topology.gpus_per_node");
	int64_t leaf = gc_config_int(cfg, "topology.fabric.leaf_nics");
	if (strcmp(fab, "fat-tree") == 0 && leaf % gpn != 0)
		return gc_config_error(cfg, "topology.fabric.leaf_nics", errmsg,
				       "%lld NICs per leaf split a node of %lld NICs across leaves; use a "
				       "multiple of the NICs per node (gpus_per_node, or nics_per_node)",
				       (long long)leaf, (long long)gpn);
	/* a pod is whole leaves (fat-tree) or whole scalable units (rail) */
	int64_t pod = gc_config_int(cfg, "topology.fabric.pod_nodes");
	int64_t leaf_nodes = strcmp(fab, "fat-tree") == 0 ? leaf / gpn : leaf;
	if (pod > 0 && pod % leaf_nodes != 0)
		return gc_config_error(cfg, "topology.fabric.pod_nodes", errmsg,
				       "a pod of %lld nodes splits %s of %lld nodes across pods; use a "
				       "multiple of %lld",
				       (long long)pod,
				       strcmp(fab, "fat-tree") == 0 ? "a leaf" : "a scalable unit",
				       (long long)leaf_nodes, (long long)leaf_nodes);
	if (pod == 0 && gc_config_is_set(cfg, "topology.fabric.pod_oversubscription"))
		return gc_config_error(cfg, "topology.fabric.pod_oversubscription", errmsg,
				       "applies with topology.fabric.pod_nodes > 0 (a core layer above "
				       "pods of leaves)");
	/* with one link per spine (per core port), leaves x uplinks (pods x
	 * pod uplinks) links are modelled */
	if (strcmp(fab, "nonblocking") != 0 &&
	    strcmp(gc_config_str(cfg, "topology.fabric.routing"), "adaptive") != 0) {
		int64_t nodes = gc_config_int(cfg, "topology.nodes");
		int64_t leaves = strcmp(fab, "fat-tree") == 0 ? (nodes + leaf / gpn - 1) / (leaf / gpn)
							       : (nodes + leaf - 1) / leaf * gpn;
		double up = (double)leaf / gc_config_double(cfg, "topology.fabric.oversubscription");
		double links = (double)leaves * (up > 1 ? up : 1);
		if (pod > 0)
			links += (double)((nodes + pod - 1) / pod) * (double)pod / (double)leaf_nodes *
				 (strcmp(fab, "fat-tree") == 0 ? 1.0 : (double)gpn) * (up > 1 ? up : 1) /
				 gc_config_double(cfg, "topology.fabric.pod_oversubscription");
		if (links > (double)(1 << 22))
			return gc_config_error(cfg, "topology.fabric.leaf_nics", errmsg,
					       "%lld leaves of %.0f uplinks each are %.3g spine links to "
					       "model, more than the %d this simulator keeps; use fewer NICs "
					       "per leaf or adaptive routing",
					       (long long)leaves, up > 1 ? up : 1, links, 1 << 22);
	}
	return GC_OK;
}

/* The channels NCCL's topology search gives one NVSwitch node (no
 * network), from NVIDIA/nccl 2.19-2.30 (src/graph/search.cc,
 * src/graph/connect.cc):
 *  - ncclTopoCompute tries the speeds of the GPU generation's table from the
 *    fastest one the GPU's NVLink total allows down, keeping the graph
 *    whose channels x speed is largest (each channel takes its speed from
 *    every GPU's links, so floor(total / speed) of them, at most 32 for a
 *    ring), and stops once that reaches the total or the next speed is
 *    below 0.49 of the kept one;
 *  - ncclTopoDupChannels doubles them when the speed is at least 25 GB/s
 *    (from Hopper on, not below 50 GB/s with more than 4 channels);
 *  - ncclTopoPostset doubles them again (at most MAXCHANNELS, 64);
 *  - the tree's search, whose total is n / (n - 1) times larger on a
 *    switch, never finds fewer, and NCCL keeps the smaller of the two.
 * On H100 (374 GB/s) that is 6 channels at 60 GB/s, 12, then 24 (NCCL's
 * logs show 24 coll channels on one H100 node, 16 on one H800 with its 8
 * links); on B200 (722 GB/s) 8 at 90, 16, then 32, whatever the node's GPU
 * count. 0 for a GPU generation gcsim has no speed table for. */
static int nccl_node_channels(int arch, double nvlink_GBps)
{
	static const double pre_hopper[] = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
	static const double hopper[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
	static const double blackwell[] = {90, 80, 70, 60, 50, 40, 30, 24, 20, 19, 18};
	const double *sp;
	size_t ns;
	if (arch >= 4) {
		sp = blackwell;
		ns = G_N_ELEMENTS(blackwell);
	} else if (arch == 3) {
		sp = hopper;
		ns = G_N_ELEMENTS(hopper);
	} else if (arch >= 1) {
		sp = pre_hopper;
		ns = G_N_ELEMENTS(pre_hopper);
	} else {
		return 0;
	}
	const int ring_max = 32; /* MAXCHANNELS / 2 for the ring's graph */
	size_t i = 0;
	while (sp[i] > nvlink_GBps && i + 1 < ns)
		i++;
	int n = 0;
	double speed = 0;
	for (;;) {
		double c = floor(nvlink_GBps / sp[i]);
		int k = c < ring_max ? (int)c : ring_max;
		if (k * sp[i] > n * speed) {
			n = k;
			speed = sp[i];
		}
		if (n * speed >= nvlink_GBps || i + 1 >= ns || (n > 0 && sp[i + 1] / speed <= 0.49))
			break;
		i++;
	}
	if (n == 0)
		return 0;
	if (speed >= 25 && !(arch >= 3 && speed < 50 && n > 4))
		n = 2 * n < ring_max ? 2 * n : ring_max;
	return 2 * n < 64 ? 2 * n : 64;
}

static gt_link_spec spec(const gc_config *cfg, const char *prefix)
{
	char k1[64], k2[64];
	snprintf(k1, sizeof(k1), "%s.bandwidth", prefix);
	snprintf(k2, sizeof(k2), "%s.latency", prefix);
	return (gt_link_spec){gc_config_bw(cfg, k1), gc_config_time(cfg, k2)};
}

gc_status gt_topo_from_config(const gc_config *cfg, gt_topo *t, char **errmsg)
{
	memset(t, 0, sizeof(*t));
	const char *preset = gc_config_str(cfg, "topology.preset");
	if (strcmp(preset, "none") != 0)
		g_strlcpy(t->preset, preset, sizeof(t->preset));
	const topo_preset *ps = preset_find(preset);
	t->no_nvls = ps && !ps->nvls;
	t->launch_ps = gc_config_time(cfg, "topology.launch_latency");
	t->bw_scale = 1.0;
	const char *arch = gc_config_str(cfg, "topology.gpu_arch");
	const char *cpu = gc_config_str(cfg, "topology.cpu");
	t->cpu = !strcmp(cpu, "amd") ? GT_CPU_AMD : !strcmp(cpu, "arm") ? GT_CPU_ARM : GT_CPU_INTEL;
	for (size_t i = 0; i < G_N_ELEMENTS(arch_figures); i++)
		if (strcmp(arch, arch_figures[i].arch) == 0) {
			t->arch = (int)i + 1;
			/* LL across nodes is bound by the hosts (the proxy moves
			 * every line): NCCL indexes its ceiling there by CPU
			 * vendor, with the figures of its first two rows */
			for (int k = 0; k < 3; k++) {
				t->ll_max_Bps[k] = (k == 0 ? arch_figures[i].ll[k]
						    : arch_figures[t->cpu == GT_CPU_AMD ? 1 : 0].ll[k]) *
						   1e9;
				t->chan_simple_Bps[k] = arch_figures[i].simple[k] * 1e9;
				t->chan_ll128_Bps[k] = arch_figures[i].ll128[k] * 1e9;
				t->chan_tree_ll128_Bps[k] = arch_figures[i].tree_ll128[k] * 1e9;
			}
		}
	t->chan_bw_Bps = gc_config_bw(cfg, "topology.channel_bandwidth");
	for (int k = 0; k < GM_LINK__COUNT; k++)
		t->lat_scale[k] = t->bw_class_scale[k] = 1.0;
	if (strcmp(gc_config_str(cfg, "topology.kind"), "flat") == 0) {
		gc_status st = gc_config_require(cfg, "topology.gpus", errmsg);
		if (st != GC_OK)
			return st;
		t->kind = GT_FLAT;
		t->ngpus = (int)gc_config_int(cfg, "topology.gpus");
		t->nodes = t->ngpus;
		t->gpus_per_node = 1;
		t->link = spec(cfg, "topology.link");
		t->default_channels = 1;
	} else {
		t->kind = GT_DGX;
		t->nodes = (int)gc_config_int(cfg, "topology.nodes");
		t->gpus_per_node = (int)gc_config_int(cfg, "topology.gpus_per_node");
		t->ngpus = t->nodes * t->gpus_per_node;
		t->nvlink = spec(cfg, "topology.nvlink");
		t->nvls_eff = gc_config_double(cfg, "topology.nvlink.nvls_efficiency");
		t->nic = spec(cfg, "topology.nic");
		t->nic_declared_ps = gc_config_time(cfg, "topology.nic.declared_latency");
		t->pcie = spec(cfg, "topology.pcie");
		int nics = (int)gc_config_int(cfg, "topology.nics_per_node");
		t->nic_share = nics > 0 ? t->gpus_per_node / nics : 1;
		t->pcie_pairs = ps && ps->pairs && t->nic_share == 1 && t->gpus_per_node % 2 == 0;
		static const char *const paths[] = {"pix", "pxb", "pxn", "phb", "sys"};
		const char *np = gc_config_str(cfg, "topology.nic_path");
		for (size_t i = 0; i < G_N_ELEMENTS(paths); i++)
			if (!strcmp(np, paths[i]))
				t->nic_path = (gt_nic_path)i;
		if (strcmp(gc_config_str(cfg, "topology.intra"), "pcie") == 0) {
			t->intra = GT_INTRA_PCIE;
			t->no_nvls = true;
			t->switch_gpus = (int)gc_config_int(cfg, "topology.pcie.switch_gpus");
			t->sockets = (int)gc_config_int(cfg, "topology.pcie.sockets");
			t->p2p = gc_config_bool(cfg, "topology.pcie.p2p");
			t->p2p_lat_ps = gc_config_time(cfg, "topology.pcie.p2p_latency");
			double up = gc_config_bw(cfg, "topology.pcie.uplink_bandwidth"),
			       so = gc_config_bw(cfg, "topology.pcie.socket_bandwidth");
			t->uplink_bw_Bps = up > 0 ? up : t->pcie.bw_Bps;
			t->socket_bw_Bps = so > 0 ? so : t->pcie.bw_Bps;
			/* Intel CPUs cut peer-to-peer traffic they forward into 64 B
			 * PCIe packets: it takes 6/5 of the bandwidth it would
			 * (NCCL src/graph/topo.h INTEL_P2P_OVERHEAD); host-memory
			 * staging is plain DMA */
			t->cpu_p2p_eff = t->cpu == GT_CPU_INTEL && t->p2p ? 5.0 / 6.0 : 1.0;
			t->bridge = (gt_link_spec){gc_config_bw(cfg, "topology.pcie.nvlink_bridge"),
						   gc_config_time(cfg, "topology.pcie.bridge_latency")};
			/* no NVLink ports (gt_topo_intra_bw is the node's rate) */
			t->nvlink = (gt_link_spec){0, 0};
		}
		/* two channels per NIC: rings and trees then leave each node
		 * through every NIC (NCCL builds as many channels as it needs to
		 * cover all NICs, typically 2 per NIC on DGX H100), up to the 32
		 * rings NCCL's search builds at most (src/init.cc: ring graph
		 * maxChannels = MAXCHANNELS / 2); a 72-GPU NVLink domain thus
		 * leaves through 32 of its NICs, which is more network bandwidth
		 * than its NVLink ports carry */
		t->default_channels = 2 * t->gpus_per_node < GT_MAX_CHANNELS ? 2 * t->gpus_per_node
									   : GT_MAX_CHANNELS;
		/* a communicator within one NVSwitch node has no NIC to cover:
		 * NCCL's channels there come from its NVLink search alone
		 * (nccl_node_channels) */
		if (t->intra != GT_INTRA_PCIE && t->gpus_per_node > 1) {
			int nc = nccl_node_channels(t->arch, t->nvlink.bw_Bps * 1e-9);
			t->node_channels = nc < GT_MAX_CHANNELS ? nc : GT_MAX_CHANNELS;
		}
		t->sharp = gc_config_bool(cfg, "topology.fabric.sharp");
		const char *fab = gc_config_str(cfg, "topology.fabric.kind");
		t->fabric = strcmp(fab, "fat-tree") == 0 ? GT_FAB_FAT_TREE
			    : strcmp(fab, "rail") == 0	 ? GT_FAB_RAIL
							 : GT_FAB_NONBLOCKING;
		if (t->fabric != GT_FAB_NONBLOCKING) {
			t->leaf_nics = (int)gc_config_int(cfg, "topology.fabric.leaf_nics");
			t->oversub = gc_config_double(cfg, "topology.fabric.oversubscription");
			t->uplinks = (int)llround(t->leaf_nics / t->oversub);
			if (t->uplinks < 1)
				t->uplinks = 1;
			const char *rt = gc_config_str(cfg, "topology.fabric.routing");
			t->routing = strcmp(rt, "ecmp") == 0    ? GT_ROUTE_ECMP
				     : strcmp(rt, "dmodk") == 0 ? GT_ROUTE_DMODK
								: GT_ROUTE_ADAPTIVE;
			t->ecmp = t->routing != GT_ROUTE_ADAPTIVE;
			t->switch_lat_ps = gc_config_time(cfg, "topology.fabric.switch_latency");
			t->pxn = t->fabric == GT_FAB_RAIL && t->intra == GT_INTRA_NVSWITCH &&
				 gc_config_bool(cfg, "topology.fabric.pxn");
			/* nodes under one leaf (fat-tree) or one unit's leaves (rail),
			 * and the leaves of those */
			int group = t->fabric == GT_FAB_FAT_TREE ? t->leaf_nics / gt_topo_nics(t)
								 : t->leaf_nics;
			int group_leaves = t->fabric == GT_FAB_FAT_TREE ? 1 : gt_topo_nics(t);
			t->nleaves = (t->nodes + group - 1) / group * group_leaves;
			/* a core layer only where there are two pods or more */
			int pod = (int)gc_config_int(cfg, "topology.fabric.pod_nodes");
			if (pod > 0 && pod < t->nodes) {
				t->pod_nodes = pod;
				t->npods = (t->nodes + pod - 1) / pod;
				t->pod_leaves = pod / group * group_leaves;
				t->pod_oversub = gc_config_double(cfg, "topology.fabric.pod_oversubscription");
				t->pod_uplinks = (int)llround((double)t->pod_leaves * t->uplinks / t->pod_oversub);
				if (t->pod_uplinks < 1)
					t->pod_uplinks = 1;
			}
		}
	}
	return GC_OK;
}

enum { DGX_NVL_UP, DGX_NVL_DOWN, DGX_PCIE_UP, DGX_PCIE_DOWN, DGX_NIC_TX, DGX_NIC_RX, DGX_NLINKS };

/* GPUs per NIC */
static int share_of(const gt_topo *t)
{
	return t->nic_share > 1 ? t->nic_share : 1;
}

static bool pcie_node(const gt_topo *t)
{
	return t->kind == GT_DGX && t->intra == GT_INTRA_PCIE;
}

/* intra pcie: a node's own links after every GPU's: per PCIe switch its
 * uplink and downlink, with two sockets one link each way between them,
 * then its NVLink bridges' (one per GPU) */
static uint32_t node_nlinks(const gt_topo *t)
{
	if (!pcie_node(t))
		return 0;
	return 2 * (uint32_t)(t->gpus_per_node / t->switch_gpus) + (t->sockets > 1 ? 2 : 0) +
	       (t->bridge.bw_Bps > 0 ? (uint32_t)t->gpus_per_node : 0);
}

/* the first link after the GPUs' and the nodes' own: the fabric's */
static uint32_t leaf_base(const gt_topo *t)
{
	return (uint32_t)t->ngpus * DGX_NLINKS + (uint32_t)t->nodes * node_nlinks(t);
}

/* The links gt_topo_instantiate adds before the channels' own: the GPUs',
 * the nodes' own, then the fabric's leaves and pods. */
static uint32_t fabric_links(const gt_topo *t)
{
	if (t->kind == GT_FLAT)
		return 2 * (uint32_t)t->ngpus;
	uint32_t per_leaf = t->ecmp ? (uint32_t)t->uplinks : 1, per_pod = t->ecmp ? (uint32_t)t->pod_uplinks : 1;
	return leaf_base(t) + 2 * (uint32_t)t->nleaves * per_leaf + 2 * (uint32_t)t->npods * per_pod;
}

/* a channel cap in force: each GPU has its channels' own links */
static bool chan_links_on(const gt_topo *t)
{
	return t->chan_cap_Bps > 0 && t->chan_links > 0;
}

/* A pair of one-way links PREFIX.OUT (with the latency) and PREFIX.IN:
 * a port's two directions, out first (routes count on the order). */
static void link_pair(gm_net *net, const char *prefix, const char *out, const char *in,
		      gm_link_kind kind, double bw_Bps, int64_t lat_ps)
{
	char name[GM_LINK_NAME + 16];
	snprintf(name, sizeof(name), "%s.%s", prefix, out);
	gm_net_add_link(net, name, kind, bw_Bps, lat_ps);
	snprintf(name, sizeof(name), "%s.%s", prefix, in);
	gm_net_add_link(net, name, kind, bw_Bps, 0);
}

void gt_topo_instantiate(const gt_topo *t, gm_net *net)
{
	g_assert(net->nlinks == 0);
	char name[GM_LINK_NAME];
	/* a zeroed description (tests build them by hand) means "as described" */
	double bws0 = t->bw_scale > 0 ? t->bw_scale : 1.0;
#define LAT(kind, ps) (t->lat_scale[kind] > 0 ? (int64_t)llround((double)(ps) * t->lat_scale[kind]) : (ps))
#define BWS(kind) (bws0 * (t->bw_class_scale[kind] > 0 ? t->bw_class_scale[kind] : 1.0))
	for (int g = 0; g < t->ngpus; g++) {
		if (t->kind == GT_FLAT) {
			snprintf(name, sizeof(name), "gpu%d", g);
			link_pair(net, name, "up", "down", GM_LINK_GENERIC,
				  t->link.bw_Bps * BWS(GM_LINK_GENERIC), LAT(GM_LINK_GENERIC, t->link.lat_ps));
			continue;
		}
		int node = g / t->gpus_per_node, loc = g % t->gpus_per_node;
		/* the GPU's (or host backend's process's) port inside the node:
		 * intra pcie, its peer traffic on its PCIe link (see gt_intra) */
		if (pcie_node(t)) {
			snprintf(name, sizeof(name), "n%d.gpu%d.p2p", node, loc);
			link_pair(net, name, "tx", "rx", GM_LINK_PCIE, t->pcie.bw_Bps * BWS(GM_LINK_PCIE),
				  LAT(GM_LINK_PCIE, t->p2p_lat_ps));
		} else if (t->host) {
			snprintf(name, sizeof(name), "n%d.proc%d.intra", node, loc);
			link_pair(net, name, "tx", "rx", GM_LINK_HOST, t->nvlink.bw_Bps, t->nvlink.lat_ps);
		} else {
			snprintf(name, sizeof(name), "n%d.gpu%d.nvlink", node, loc);
			link_pair(net, name, "tx", "rx", GM_LINK_NVLINK, t->nvlink.bw_Bps * BWS(GM_LINK_NVLINK),
				  LAT(GM_LINK_NVLINK, t->nvlink.lat_ps));
		}
		/* and its way to the NIC */
		if (t->host) {
			snprintf(name, sizeof(name), "n%d.proc%d.inter", node, loc);
			link_pair(net, name, "tx", "rx", GM_LINK_HOST, t->pcie.bw_Bps, t->pcie.lat_ps);
		} else {
			snprintf(name, sizeof(name), "n%d.gpu%d.pcie", node, loc);
			link_pair(net, name, "up", "down", GM_LINK_PCIE, t->pcie.bw_Bps * BWS(GM_LINK_PCIE),
				  LAT(GM_LINK_PCIE, t->pcie.lat_ps));
		}
		/* a NIC shared by several GPUs is its first GPU's: the others'
		 * NIC slots carry nothing */
		int share = share_of(t);
		char wide[64]; /* room for any ints; the net keeps GM_LINK_NAME of it */
		if (loc % share == 0)
			snprintf(wide, sizeof(wide), "n%d.nic%d.tx", node, loc / share);
		else
			snprintf(wide, sizeof(wide), "n%d.gpu%d.nic-of-gpu%d", node, loc, loc / share * share);
		gm_net_add_link(net, wide, GM_LINK_NIC, t->nic.bw_Bps * BWS(GM_LINK_NIC),
				LAT(GM_LINK_NIC, t->nic.lat_ps));
		if (loc % share == 0)
			snprintf(wide, sizeof(wide), "n%d.nic%d.rx", node, loc / share);
		else
			snprintf(wide, sizeof(wide), "n%d.gpu%d.nic-of-gpu%d.rx", node, loc, loc / share * share);
		gm_net_add_link(net, wide, GM_LINK_NIC, t->nic.bw_Bps * BWS(GM_LINK_NIC), 0);
	}
	/* intra pcie: each node's PCIe switch uplinks and downlinks, then its
	 * sockets' links (CPU k to the other) */
	for (int n = 0; pcie_node(t) && n < t->nodes; n++) {
		for (int w = 0; w < t->gpus_per_node / t->switch_gpus; w++) {
			snprintf(name, sizeof(name), "n%d.pcisw%d.up", n, w);
			gm_net_add_link(net, name, GM_LINK_PCIE,
					t->uplink_bw_Bps * t->cpu_p2p_eff * BWS(GM_LINK_PCIE), 0);
			snprintf(name, sizeof(name), "n%d.pcisw%d.down", n, w);
			gm_net_add_link(net, name, GM_LINK_PCIE,
					t->uplink_bw_Bps * t->cpu_p2p_eff * BWS(GM_LINK_PCIE), 0);
		}
		for (int k = 0; t->sockets > 1 && k < 2; k++) {
			snprintf(name, sizeof(name), "n%d.cpu%d.to.cpu%d", n, k, 1 - k);
			gm_net_add_link(net, name, GM_LINK_PCIE,
					t->socket_bw_Bps * t->cpu_p2p_eff * BWS(GM_LINK_PCIE), 0);
		}
		/* NVLink bridges: GPU 2k to 2k+1, then back */
		for (int g = 0; t->bridge.bw_Bps > 0 && g < t->gpus_per_node; g++) {
			char wide[64];
			snprintf(wide, sizeof(wide), "n%d.gpu%d.bridge.to.gpu%d", n, g, g ^ 1);
			gm_net_add_link(net, wide, GM_LINK_NVLINK, t->bridge.bw_Bps * BWS(GM_LINK_NVLINK),
					LAT(GM_LINK_NVLINK, t->bridge.lat_ps));
		}
	}
	/* the fabric's leaf uplinks (to the spines) and downlinks (from them),
	 * after every GPU's links: as one pair per leaf (adaptive routing) or
	 * one pair per spine (ecmp). They carry the NICs' traffic, so the
	 * NIC class's protocol bandwidth applies; the switch latency is
	 * physical and is not scaled per protocol. */
	int per_leaf = t->ecmp ? t->uplinks : 1;
	double up_bw = t->nic.bw_Bps * BWS(GM_LINK_NIC) * (t->ecmp ? 1.0 : (double)t->uplinks);
	for (int l = 0; t->kind == GT_DGX && l < t->nleaves; l++)
		for (int u = 0; u < per_leaf; u++) {
			if (t->ecmp)
				snprintf(name, sizeof(name), "leaf%d.up.s%d", l, u);
			else
				snprintf(name, sizeof(name), "leaf%d.up", l);
			gm_net_add_link(net, name, GM_LINK_NIC, up_bw, 2 * t->switch_lat_ps);
			if (t->ecmp)
				snprintf(name, sizeof(name), "leaf%d.down.s%d", l, u);
			else
				snprintf(name, sizeof(name), "leaf%d.down", l);
			gm_net_add_link(net, name, GM_LINK_NIC, up_bw, 0);
		}
	/* the core layer: each pod's uplinks from its spines to the core and
	 * downlinks back, after the leaves' (one pair per pod, or one per core
	 * port with ecmp); a route through them adds a core switch and the
	 * far pod's spine */
	int per_pod = t->ecmp ? t->pod_uplinks : 1;
	double pod_bw = t->nic.bw_Bps * BWS(GM_LINK_NIC) * (t->ecmp ? 1.0 : (double)t->pod_uplinks);
	for (int p = 0; t->kind == GT_DGX && p < t->npods; p++)
		for (int v = 0; v < per_pod; v++) {
			if (t->ecmp)
				snprintf(name, sizeof(name), "pod%d.up.c%d", p, v);
			else
				snprintf(name, sizeof(name), "pod%d.up", p);
			gm_net_add_link(net, name, GM_LINK_NIC, pod_bw, 2 * t->switch_lat_ps);
			if (t->ecmp)
				snprintf(name, sizeof(name), "pod%d.down.c%d", p, v);
			else
				snprintf(name, sizeof(name), "pod%d.down", p);
			gm_net_add_link(net, name, GM_LINK_NIC, pod_bw, 0);
		}
	/* each GPU's channels (their CTAs): the rate one channel moves at most,
	 * in data bytes (not scaled by the protocol), no latency of its own */
	g_assert(!chan_links_on(t) || net->nlinks == fabric_links(t));
	char cname[64]; /* room for any ints; the net keeps GM_LINK_NAME of it */
	for (int g = 0; chan_links_on(t) && g < t->ngpus; g++)
		for (int c = 0; c < t->chan_links; c++) {
			if (t->kind == GT_FLAT)
				snprintf(cname, sizeof(cname), "gpu%d.ch%d", g, c);
			else
				snprintf(cname, sizeof(cname), "n%d.gpu%d.ch%d", g / t->gpus_per_node,
					 g % t->gpus_per_node, c);
			gm_net_add_link(net, cname, GM_LINK_CHANNEL, t->chan_cap_Bps, 0);
		}
}
#undef LAT
#undef BWS

int gt_topo_nics(const gt_topo *t)
{
	return t->kind == GT_FLAT ? 1 : t->gpus_per_node / share_of(t);
}

int gt_topo_comm_nics(const gt_topo *t, int ranks_per_node)
{
	int r = ranks_per_node > 0 ? ranks_per_node : 1, n = (r + share_of(t) - 1) / share_of(t);
	return n < gt_topo_nics(t) ? n : gt_topo_nics(t);
}

/* the GPU whose link slots hold g's NIC (its first GPU) */
static int nic_owner(const gt_topo *t, int g)
{
	return g - g % t->gpus_per_node % share_of(t);
}

/* g's NIC among all the NICs of the cluster */
static int nic_index(const gt_topo *t, int g)
{
	return g / t->gpus_per_node * gt_topo_nics(t) + g % t->gpus_per_node / share_of(t);
}

int gt_topo_node_of(const gt_topo *t, int gpu)
{
	return gpu / t->gpus_per_node;
}

int gt_topo_leaf_of(const gt_topo *t, int gpu)
{
	int node = gpu / t->gpus_per_node, nic = gpu % t->gpus_per_node / share_of(t);
	switch (t->fabric) {
	case GT_FAB_FAT_TREE: return node / (t->leaf_nics / gt_topo_nics(t));
	case GT_FAB_RAIL: return (node / t->leaf_nics) * gt_topo_nics(t) + nic;
	default: return 0;
	}
}

int gt_topo_pod_of(const gt_topo *t, int gpu)
{
	return t->npods > 0 ? gt_topo_node_of(t, gpu) / t->pod_nodes : 0;
}

/* The ECMP hash of connection (src, dst, channel): fixed, so runs repeat;
 * each channel is its own queue pair, hashed on its own. Its value mod
 * uplinks is the spine; the rest picks that spine's core port. */
static uint64_t ecmp_hash(int src, int dst, int ch)
{
	uint64_t z = ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst) +
		     UINT64_C(0x9e3779b97f4a7c15) * (uint64_t)(ch + 1);
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

int gt_topo_route(const gt_topo *t, int src, int dst, uint32_t *route)
{
	return gt_topo_route_ch(t, src, dst, 0, route);
}

static int route_links(const gt_topo *t, int src, int dst, int ch, uint32_t *route);

bool gt_topo_is_chan_link(const gt_topo *t, uint32_t link)
{
	return chan_links_on(t) && link >= fabric_links(t);
}

int gt_topo_route_ch(const gt_topo *t, int src, int dst, int ch, uint32_t *route)
{
	int h = route_links(t, src, dst, ch, route);
	/* a GPU's send on a channel leaves through that channel's CTA first
	 * (a full route, PXN into another pod, has no room for it) */
	if (chan_links_on(t) && src < t->ngpus && dst < t->ngpus && h > 0 && h < GM_MAX_HOPS) {
		memmove(route + 1, route, (size_t)h * sizeof(*route));
		route[0] = fabric_links(t) + (uint32_t)src * (uint32_t)t->chan_links +
			   (uint32_t)(ch % t->chan_links);
		h++;
	}
	return h;
}

int gt_topo_route_fanout(const gt_topo *t, uint32_t *route, int h)
{
	if (h <= 0 || !gt_topo_is_chan_link(t, route[0]))
		return h;
	memmove(route, route + 1, (size_t)(h - 1) * sizeof(*route));
	return h - 1;
}

int gt_topo_period(const gt_topo *t)
{
	if (t->kind == GT_FLAT)
		return 1;
	if (t->fabric == GT_FAB_NONBLOCKING)
		return t->gpus_per_node;
	if (t->routing != GT_ROUTE_ADAPTIVE)
		return 0;
	/* nodes under one leaf (fat-tree) or in one unit (rail), then a pod */
	int group = t->fabric == GT_FAB_FAT_TREE ? t->leaf_nics / gt_topo_nics(t) : t->leaf_nics;
	int nodes = t->npods > 0 ? t->pod_nodes : group;
	if (group <= 0 || nodes % group != 0 || t->nodes % nodes != 0)
		return 0;
	return nodes * t->gpus_per_node;
}

uint32_t gt_topo_fold_link(const gt_topo *t, uint32_t link, int nq)
{
	const uint32_t q = (uint32_t)nq, blocks = (uint32_t)(t->ngpus / nq);
	g_assert(nq > 0 && t->ngpus % nq == 0);
	const uint32_t per_gpu = t->kind == GT_FLAT ? 2 : DGX_NLINKS;
	if (link < (uint32_t)t->ngpus * per_gpu) /* a GPU's */
		return (link / per_gpu % q) * per_gpu + link % per_gpu;
	const uint32_t fl = fabric_links(t);
	if (link >= fl) { /* a channel's, of its GPU */
		const uint32_t k = (uint32_t)t->chan_links, g = (link - fl) / k;
		return fl + (g % q) * k + (link - fl) % k;
	}
	g_assert(t->kind == GT_DGX);
	const uint32_t lb = leaf_base(t);
	if (link < lb) { /* a node's own */
		const uint32_t nn = node_nlinks(t), b = (uint32_t)t->ngpus * DGX_NLINKS;
		const uint32_t node = (link - b) / nn;
		return b + (node % ((uint32_t)t->nodes / blocks)) * nn + (link - b) % nn;
	}
	const uint32_t per_leaf = t->ecmp ? (uint32_t)t->uplinks : 1;
	const uint32_t pb = lb + 2 * (uint32_t)t->nleaves * per_leaf;
	if (link < pb) { /* a leaf's, in its leaf */
		const uint32_t w = 2 * per_leaf, leaf = (link - lb) / w;
		return lb + (leaf % ((uint32_t)t->nleaves / blocks)) * w + (link - lb) % w;
	}
	const uint32_t per_pod = t->ecmp ? (uint32_t)t->pod_uplinks : 1, w = 2 * per_pod;
	const uint32_t pod = (link - pb) / w;
	return pb + (pod % ((uint32_t)t->npods / blocks)) * w + (link - pb) % w;
}

bool gt_topo_rotates(const gt_topo *t)
{
	return t->kind == GT_DGX && !pcie_node(t) && t->fabric == GT_FAB_NONBLOCKING &&
	       share_of(t) == 1 && !t->pxn && !t->sharp && fabric_links(t) == leaf_base(t) &&
	       node_nlinks(t) == 0;
}

static int64_t mod_u(int64_t a, uint32_t n)
{
	int64_t r = a % (int64_t)n;
	return r < 0 ? r + n : r;
}

uint32_t gt_topo_rotate_link(const gt_topo *t, uint32_t link, int S, int G)
{
	g_assert(gt_topo_rotates(t));
	const uint32_t gpn = (uint32_t)t->gpus_per_node;
	if (link < (uint32_t)t->ngpus * DGX_NLINKS) { /* a GPU's */
		const uint32_t g = link / DGX_NLINKS;
		return (g - g % gpn) * DGX_NLINKS + link % DGX_NLINKS;
	}
	const uint32_t fl = fabric_links(t), k = (uint32_t)t->chan_links;
	g_assert(link >= fl && chan_links_on(t) && (uint32_t)G == (uint32_t)S * gpn &&
		 k % (uint32_t)G == 0);
	/* channel c of local GPU l is the image of channel c - S l (within
	 * its group) of local 0 */
	const uint32_t g = (link - fl) / k, c = (link - fl) % k, grp = (uint32_t)G;
	const int64_t c0 = c - c % grp + mod_u((int64_t)(c % grp) - (int64_t)S * (g % gpn), grp);
	return fl + (g - g % gpn) * k + (uint32_t)c0;
}

/* Between two GPUs of one PCIe node (see gt_intra). */
static int pcie_route(const gt_topo *t, int src, int dst, uint32_t *route)
{
	uint32_t s = (uint32_t)src * DGX_NLINKS, d = (uint32_t)dst * DGX_NLINKS;
	int nsw = t->gpus_per_node / t->switch_gpus;
	int ws = src % t->gpus_per_node / t->switch_gpus, wd = dst % t->gpus_per_node / t->switch_gpus;
	uint32_t nb = (uint32_t)t->ngpus * DGX_NLINKS + (uint32_t)gt_topo_node_of(t, src) * node_nlinks(t);
	if (t->bridge.bw_Bps > 0 && t->p2p && src / 2 == dst / 2) {
		/* a bridged pair: over its NVLink bridge only (NCCL reaches it
		 * through its P2P transport: without peer access, host memory) */
		route[0] = nb + 2 * (uint32_t)nsw + (t->sockets > 1 ? 2 : 0) +
			   (uint32_t)(src % t->gpus_per_node);
		return 1;
	}
	int h = 0;
	route[h++] = s + DGX_NVL_UP; /* p2p.tx */
	route[h++] = s + DGX_PCIE_UP;
	if (ws != wd || !t->p2p) {
		route[h++] = nb + 2 * (uint32_t)ws;
		int ks = ws / (nsw / t->sockets), kd = wd / (nsw / t->sockets);
		if (ks != kd)
			route[h++] = nb + 2 * (uint32_t)nsw + (uint32_t)ks;
		route[h++] = nb + 2 * (uint32_t)wd + 1;
	}
	route[h++] = d + DGX_PCIE_DOWN;
	route[h++] = d + DGX_NVL_DOWN; /* p2p.rx */
	return h;
}

static int route_links(const gt_topo *t, int src, int dst, int ch, uint32_t *route)
{
	int netq = t->ngpus + GT_HELPERS_PER_NODE * t->nodes; /* the network switch's first helper */
	g_assert(src != dst && src >= 0 && dst >= 0 &&
		 (src < t->ngpus || dst < t->ngpus || (t->kind == GT_DGX && src >= netq && dst >= netq)));
	if (t->kind == GT_DGX && (src >= netq || dst >= netq)) {
		/* the network switch (in-network reduction): Q = netq reduces,
		 * E_y = netq + 1 + y sends to node y. A GPU reaches Q through its
		 * own NIC; E_y reaches node y's GPUs through theirs; the switch's
		 * helpers pass data among themselves inside it (no link) */
		if (src >= netq && dst >= netq)
			return 0;
		if (dst >= netq) {
			g_assert(dst == netq && src < t->ngpus);
			route[0] = (uint32_t)src * DGX_NLINKS + DGX_PCIE_UP;
			route[1] = (uint32_t)nic_owner(t, src) * DGX_NLINKS + DGX_NIC_TX;
			return 2;
		}
		g_assert(src > netq && dst < t->ngpus && src - netq - 1 == gt_topo_node_of(t, dst));
		route[0] = (uint32_t)nic_owner(t, dst) * DGX_NLINKS + DGX_NIC_RX;
		route[1] = (uint32_t)dst * DGX_NLINKS + DGX_PCIE_DOWN;
		return 2;
	}
	if (src >= t->ngpus || dst >= t->ngpus) {
		/* a helper rank is a switch itself: one port of it. Helpers come
		 * in pairs per NVSwitch node (GT_HELPERS_PER_NODE); a flat
		 * topology is one switch. */
		bool to_switch = dst >= t->ngpus;
		int g = to_switch ? src : dst, h = to_switch ? dst : src;
		g_assert(g < t->ngpus);
		g_assert(t->kind == GT_FLAT ||
			 (h - t->ngpus) / GT_HELPERS_PER_NODE == gt_topo_node_of(t, g));
		(void)h;
		if (t->kind == GT_FLAT)
			route[0] = (uint32_t)(2 * g + (to_switch ? 0 : 1));
		else
			route[0] = (uint32_t)g * DGX_NLINKS + (to_switch ? DGX_NVL_UP : DGX_NVL_DOWN);
		return 1;
	}
	if (t->kind == GT_FLAT) {
		route[0] = (uint32_t)(2 * src);
		route[1] = (uint32_t)(2 * dst + 1);
		return 2;
	}
	uint32_t s = (uint32_t)src * DGX_NLINKS, d = (uint32_t)dst * DGX_NLINKS;
	if (gt_topo_node_of(t, src) == gt_topo_node_of(t, dst)) {
		if (pcie_node(t))
			return pcie_route(t, src, dst, route);
		route[0] = s + DGX_NVL_UP;
		route[1] = d + DGX_NVL_DOWN;
		return 2;
	}
	int h = 0;
	/* PXN: this node's GPU on the receiver's rail sends through its NIC
	 * (unless the sender shares that NIC); the sender reaches it over
	 * their PCIe switch where the two are a pair, else over NVLink */
	int out = src;
	if (t->pxn) {
		int via = gt_topo_node_of(t, src) * t->gpus_per_node +
			  nic_owner(t, dst) % t->gpus_per_node;
		if (nic_owner(t, via) != nic_owner(t, src))
			out = via;
	}
	if (out != src && !(t->pcie_pairs && (out ^ 1) == src)) {
		route[h++] = s + DGX_NVL_UP;
		route[h++] = (uint32_t)out * DGX_NLINKS + DGX_NVL_DOWN;
		s = (uint32_t)out * DGX_NLINKS;
	}
	route[h++] = s + DGX_PCIE_UP;
	src = out;
	route[h++] = (uint32_t)nic_owner(t, src) * DGX_NLINKS + DGX_NIC_TX;
	int ls = gt_topo_leaf_of(t, src), ld = gt_topo_leaf_of(t, dst);
	if (ls != ld) {
		uint32_t base = leaf_base(t);
		uint64_t z = t->routing == GT_ROUTE_ECMP ? ecmp_hash(src, dst, ch) : 0;
		/* the spine: hashed (ecmp), the destination's index mod the
		 * uplinks (dmodk), or all of them as one (adaptive) */
		int u = t->routing == GT_ROUTE_ECMP	? (int)(z % (uint64_t)t->uplinks)
			: t->routing == GT_ROUTE_DMODK ? nic_index(t, dst) % t->uplinks
						       : 0;
		int per = t->ecmp ? t->uplinks : 1;
		route[h++] = base + 2 * (uint32_t)(ls * per + u);
		int ps = gt_topo_pod_of(t, src), pd = gt_topo_pod_of(t, dst);
		if (ps != pd) {
			/* up to the core and down into the far pod through the
			 * same core port: spine u owns pod_uplinks / uplinks of
			 * them, picked by the rest of the hash or of the index */
			uint32_t pbase = base + 2 * (uint32_t)(t->nleaves * per);
			int own = t->pod_uplinks / t->uplinks > 1 ? t->pod_uplinks / t->uplinks : 1;
			int w = t->routing == GT_ROUTE_ECMP    ? (int)(z / (uint64_t)t->uplinks % (uint64_t)own)
				: t->routing == GT_ROUTE_DMODK ? nic_index(t, dst) / t->uplinks % own
							       : 0;
			int v = t->ecmp ? (u * own + w) % t->pod_uplinks : 0;
			int pper = t->ecmp ? t->pod_uplinks : 1;
			route[h++] = pbase + 2 * (uint32_t)(ps * pper + v);
			route[h++] = pbase + 2 * (uint32_t)(pd * pper + v) + 1;
		}
		route[h++] = base + 2 * (uint32_t)(ld * per + u) + 1;
	}
	route[h++] = (uint32_t)nic_owner(t, dst) * DGX_NLINKS + DGX_NIC_RX;
	route[h++] = d + DGX_PCIE_DOWN;
	g_assert(h <= GM_MAX_HOPS);
	return h;
}

double gt_topo_intra_bw(const gt_topo *t)
{
	if (t->kind == GT_FLAT)
		return t->link.bw_Bps;
	if (!pcie_node(t))
		return t->nvlink.bw_Bps;
	double bw = t->pcie.bw_Bps;
	int nsw = t->gpus_per_node / t->switch_gpus;
	/* staged through host memory, every GPU of a switch climbs its uplink */
	double up = t->p2p ? (nsw > 1 ? t->uplink_bw_Bps * t->cpu_p2p_eff : INFINITY)
			   : t->uplink_bw_Bps / t->switch_gpus;
	if (up < bw)
		bw = up;
	if (t->sockets > 1 && t->socket_bw_Bps * t->cpu_p2p_eff < bw)
		bw = t->socket_bw_Bps * t->cpu_p2p_eff;
	return bw;
}

void gt_topo_describe(const gt_topo *t, char *buf, size_t n)
{
	char b1[32], b2[32], b3[32], b4[32];
	if (t->kind == GT_FLAT) {
		snprintf(buf, n, "flat: %d GPUs on one non-blocking switch, %s per direction, %s one-way",
			 t->ngpus, gc_fmt_bw_Bps(t->link.bw_Bps, b1, sizeof(b1)),
			 gc_fmt_time_ps(t->link.lat_ps, b2, sizeof(b2)));
		return;
	}
	int k;
	/* one NIC per GPU, or a node's shared NICs */
	char nics[32] = "NIC";
	if (share_of(t) > 1)
		snprintf(nics, sizeof(nics), "%d NICs/node of", gt_topo_nics(t));
	const char *per = share_of(t) > 1 ? "" : "/GPU";
	if (pcie_node(t)) {
		char b5[32], b6[32];
		k = snprintf(buf, n,
			     "dgx: %d node%s x %d GPUs on PCIe (%s/GPU, %s, %s), %d per switch (uplink %s), "
			     "%d socket%s (%s between); %s %s%s (%s)",
			     t->nodes, t->nodes == 1 ? "" : "s", t->gpus_per_node,
			     gc_fmt_bw_Bps(t->pcie.bw_Bps, b1, sizeof(b1)),
			     gc_fmt_time_ps(t->p2p_lat_ps, b2, sizeof(b2)),
			     t->p2p ? "peer access" : "staged in host memory", t->switch_gpus,
			     gc_fmt_bw_Bps(t->uplink_bw_Bps, b5, sizeof(b5)), t->sockets,
			     t->sockets == 1 ? "" : "s", gc_fmt_bw_Bps(t->socket_bw_Bps, b6, sizeof(b6)), nics,
			     gc_fmt_bw_Bps(t->nic.bw_Bps, b3, sizeof(b3)), per,
			     gc_fmt_time_ps(t->nic.lat_ps, b4, sizeof(b4)));
	} else
		k = snprintf(buf, n, "%s: %d node%s x %d GPUs; NVLink %s/GPU (%s), %s %s%s (%s)",
			 t->preset[0] ? t->preset : "dgx", t->nodes, t->nodes == 1 ? "" : "s",
			 t->gpus_per_node, gc_fmt_bw_Bps(t->nvlink.bw_Bps, b1, sizeof(b1)),
			 gc_fmt_time_ps(t->nvlink.lat_ps, b2, sizeof(b2)), nics,
			 gc_fmt_bw_Bps(t->nic.bw_Bps, b3, sizeof(b3)), per,
			 gc_fmt_time_ps(t->nic.lat_ps, b4, sizeof(b4)));
	if (t->fabric == GT_FAB_NONBLOCKING || k < 0 || (size_t)k >= n)
		return;
	int k2 = snprintf(buf + k, n - (size_t)k, "; %s fabric, %d leaves of %d NICs, %g:1, %s%s",
			  t->fabric == GT_FAB_RAIL ? "rail" : "fat-tree", t->nleaves, t->leaf_nics,
			  t->oversub,
			  t->routing == GT_ROUTE_ECMP    ? "ecmp"
			  : t->routing == GT_ROUTE_DMODK ? "dmodk"
							 : "adaptive",
			  t->pxn ? ", pxn" : "");
	if (t->npods == 0 || k2 < 0 || (size_t)(k + k2) >= n)
		return;
	snprintf(buf + k + k2, n - (size_t)(k + k2), "; %d pods of %d nodes, %g:1 to the core",
		 t->npods, t->pod_nodes, t->pod_oversub);
}
