/* SPDX-License-Identifier: MIT */
/* gm_registry: the model table (see gm_registry.h). Order is display order. */
#include "gm_registry.h"

#include <string.h>

static const gm_model_info models[] = {
	{"engine", "engine",
	 "discrete events in integer picoseconds, ordered by (time, seq); per-entity RNG streams",
	 "ROSS-style entity/event design; deterministic tie-breaking", "seed, sim.check"},
	{"flow", "fidelity",
	 "flow-level: concurrent transfers share links by max-min fairness, solved once per "
	 "instant of starts and ends on the affected component; network sends hold their strand "
	 "(sim.net_send gpu) or go through the connection's FIFO (proxy)",
	 "Bertsekas & Gallager, Data Networks, 6.5.2 (progressive filling); NVIDIA/nccl "
	 "src/transport/net.cc (proxy progress)",
	 "sim.fidelity, sim.net_send"},
	{"packet", "fidelity",
	 "packet-level: messages cut into sim.packet-byte packets stored and forwarded hop by hop; "
	 "links take connections in turn (round robin), lossless credit back-pressure per hop",
	 "store-and-forward tandem queues (Kleinrock, Queueing Systems vol. 2); InfiniBand "
	 "credit-based link-level flow control (IBTA spec vol. 1, link layer)",
	 "sim.fidelity, sim.packet, sim.hop_buffer"},
	{"analytical", "fidelity",
	 "closed-form pipelined alpha-beta time of the same schedule, no events",
	 "Hockney alpha-beta; NCCL tuning.cc latency x steps + bytes / bw", "sim.fidelity"},
	{"link", "link",
	 "one direction of a channel: bandwidth per direction and one-way latency (full duplex = two links)",
	 "Hockney T = alpha + beta m", "topology.link.bandwidth, topology.link.latency"},
	{"gpu", "device",
	 "a GPU runs one kernel per collective: starts after the launch latency, one strand per "
	 "channel, reductions fused with data movement",
	 "NCCL kernel structure (one CTA per channel); base latency from NCCL tuning.cc",
	 "topology.launch_latency"},
	{"nvswitch", "link",
	 "NVSwitch node: each GPU's NVLink port (bandwidth per direction, per-message latency) into a "
	 "non-blocking crossbar; the latency is NCCL's per step (Simple 3.4 us: fence, flag and poll "
	 "included), not the 0.6 us of one store that gcsim explain's nvlink.latency walks",
	 "p2pBandwidthLatencyTest 8xH100 374 GB/s; NCCL hwLat NVLink Simple 3.4 us, LL 0.6 us",
	 "topology.nvlink.bandwidth, topology.nvlink.latency"},
	{"pcie", "link", "PCIe path from a GPU to its NIC (GPUDirect RDMA through the PCIe switch)",
	 "H200 PCIe Gen5 52 GB/s measured (Azure ND H200 v5)",
	 "topology.pcie.bandwidth, topology.pcie.latency"},
	{"nic", "link",
	 "one NIC per GPU into a non-blocking network: line rate per direction, per-message latency",
	 "ConnectX-7 400 Gb/s; NCCL hwLat NET Simple 14 us",
	 "topology.nic.bandwidth, topology.nic.latency"},
	{"fabric", "topology",
	 "the network between dgx nodes: nonblocking, a fat tree or rail-optimized leaves, "
	 "oversubscribed uplinks to the spines, optionally pods under an oversubscribed core (three "
	 "levels), adaptive, ECMP (hash) or D-mod-K (destination) routing, NCCL's PXN on rails",
	 "DGX SuperPOD reference architecture (rail-optimized units of 32 nodes); Llama 3's "
	 "three-level Clos (pods of 3,072 GPUs, 1:7 above); OpenSM ftree routing; NCCL PXN",
	 "topology.fabric.*"},
	{"flat", "topology", "N GPUs on one non-blocking switch (link.latency = one-way GPU-to-GPU)",
	 "alpha-beta model of a single-switch cluster", "topology.gpus, topology.link.*"},
	{"dgx-h100", "topology",
	 "DGX H100 nodes: 8 GPUs on NVSwitch, one 400 Gb/s NIC per GPU, non-blocking network",
	 "NVIDIA DGX H100 user guide; defaults in shared/reference/", "topology.preset, topology.nodes"},
	{"p5", "topology",
	 "AWS p5.48xlarge nodes: 8 H100s on NVSwitch, 4 x 100 Gb/s EFA per GPU (400 Gb/s), 75 us per "
	 "network message, which NCCL's cost model adds to its own hop as the plugin declares it",
	 "AWS p5 instance specification; aws-ofi-nccl src/platform-aws.cpp (latency the plugin declares "
	 "to NCCL for p5)",
	 "topology.preset, topology.nodes, topology.nic.declared_latency"},
	{"p5en", "topology",
	 "AWS p5en.48xlarge nodes: 8 H200s on NVSwitch, 2 x 200 Gb/s EFA per GPU (400 Gb/s), 35 us per "
	 "network message, which NCCL's cost model adds to its own hop as the plugin declares it",
	 "AWS p5en instance specification; aws-ofi-nccl src/platform-aws.cpp (\"p-series\" latency)",
	 "topology.preset, topology.nodes, topology.nic.declared_latency"},
	{"dgx-a100", "topology",
	 "DGX A100 nodes: 8 A100s on second-generation NVSwitch (no NVLink SHARP), NVLink3 240 GB/s, "
	 "one 200 Gb/s HDR NIC per GPU",
	 "NVIDIA DGX A100 user guide; NCCL's NVLink3 bandwidth, PCIe Gen4 measured ~25 GB/s "
	 "(shared/reference/)",
	 "topology.preset, topology.nodes"},
	{"p4d", "topology",
	 "AWS p4d.24xlarge nodes: 8 A100s on NVSwitch, 4 x 100 Gb/s EFA per node (each NIC shared by two GPUs), "
	 "75 us per network message, which NCCL's cost model adds to its own hop as the plugin declares it",
	 "AWS p4d instance specification; aws-ofi-nccl src/platform-aws.cpp (p4d.24xlarge latency)",
	 "topology.preset, topology.nodes, topology.nic.declared_latency"},
	{"dgx-b200", "topology",
	 "DGX B200 nodes: 8 B200s on NVSwitch, NVLink5 722 GB/s, NVLS at 0.74 of a port, one 400 "
	 "Gb/s ConnectX-7 per GPU",
	 "NVIDIA DGX B200 datasheet (8 x ConnectX-7 400 Gb/s); NCCL src/graph/topo.h SM100_NVLINK_BW "
	 "40.1 GB/s x 18 links; NCCL nvls.cc Blackwell NVLS efficiency",
	 "topology.preset, topology.nodes"},
	{"gb200-nvl72", "topology",
	 "GB200 NVL72 racks: a node is one rack's NVLink domain of 72 B200s behind the NVLink Switch "
	 "trays, NVLink5 722 GB/s, one 400 Gb/s ConnectX-7 per GPU; nodes count racks",
	 "NVIDIA GB200 NVL72 specification (18 compute trays of 4 GPUs, 4 x ConnectX-7 each); NCCL "
	 "src/graph/topo.h SM100_NVLINK_BW; NCCL nvls.cc Blackwell NVLS efficiency",
	 "topology.preset, topology.nodes, topology.gpus_per_node"},
	{"ring", "algorithm",
	 "NCCL ring: per channel a ring, loops of per-rank chunks, steps of slices; allreduce "
	 "2(n-1) steps, allgather and reduce-scatter n-1; broadcast and reduce a chain from or to "
	 "rank 0 along each channel's ring, one step (slice) per message; channels as NCCL builds "
	 "them: two per GPU across nodes (per NIC on DGX nodes), within one NVSwitch node its NVLink "
	 "search's (24 on H100 and A100, 32 on B200)",
	 "NVIDIA/nccl src/device/all_reduce.h (runRing), src/graph/search.cc (ncclTopoCompute, "
	 "ncclTopoDupChannels), src/graph/connect.cc (ncclTopoPostset); Patarasuk & Yuan 2009",
	 "collective.channels, collective.chunk, collective.slice"},
	{"tree", "algorithm",
	 "NCCL double binary tree: chain inside each node, two complementary binary trees across "
	 "nodes, up (reduce) and down (broadcast) pipelined",
	 "Sanders, Speck & Traeff 2009; NVIDIA/nccl src/graph/trees.cc",
	 "collective.channels, collective.slice"},
	{"bruck", "algorithm",
	 "allgather and reduce-scatter in ceil(log2 n) rounds: round k exchanges min(2^k, n-2^k) "
	 "blocks with the ranks 2^k away (reduce-scatter: the rounds mirrored, partial sums); "
	 "logarithmic latency where the ring pays n-1 steps",
	 "Bruck, Ho, Kipnis, Upfal & Weathersby, IEEE TPDS 8(11) 1997",
	 "collective.channels, collective.slice"},
	{"pat", "algorithm",
	 "NCCL's PAT (Parallel Aggregated Trees, 2.23+) allgather and reduce-scatter: every rank's "
	 "block broadcast (reduced) over a binomial tree rooted at it, all n trees at once, their "
	 "messages to a peer aggregated; Bruck with the dimensions reversed: the allgather sends "
	 "one block to the rank 2^(D-1) away first and n/2 to its neighbour last (reduce-scatter "
	 "the reverse), so long-distance transfers carry the least; when n is not a power of two "
	 "a round's blocks are packed into one message train (local copies); Simple only; NCCL "
	 "enables it with one GPU per node",
	 "Jeaugey, arXiv 2506.20252 (2025); NVIDIA/nccl src/include/collectives.h, "
	 "src/graph/tuning.cc (ncclPatEnable)",
	 "collective.channels, collective.slice"},
	{"halving-doubling", "algorithm",
	 "allreduce by recursive halving and doubling (Rabenseifner): log2 n reduce-scatter rounds, "
	 "each exchanging half of the data still in play with the rank one bit apart and summing "
	 "the half kept, then log2 n allgather rounds retracing them; a power-of-two count of "
	 "ranks; the host backends' (collective.backend gloo, mpi) alternative to the ring",
	 "Thakur, Rabenseifner & Gropp, IJHPCA 19(1) 2005; gloo/allreduce_halving_doubling.h; Open "
	 "MPI ompi_coll_base_allreduce_intra_redscat_allgather",
	 "gloo.segment, mpi.segment"},
	{"nvls", "algorithm",
	 "NVLink SHARP allreduce on one NVSwitch: the switch reduces each owner's slices from every "
	 "GPU and multicasts the owner's store to the others (two helper ranks stand for its engines); "
	 "16 channels of 128 KiB chunks; NVLink bandwidth x nvls_efficiency; NCCL's NVLS latency. "
	 "Across nodes with topology.fabric.sharp: the owners' sums reduced and returned by the "
	 "network's switch (InfiniBand SHARP). Allgather and reduce-scatter: each owner's store "
	 "multicast to every GPU, or every GPU's part of a block reduced to its owner (one engine, "
	 "one crossing of NCCL's NVLS latency); across nodes with SHARP, each rail's blocks "
	 "through the network's switch",
	 "NVIDIA/nccl src/device/all_reduce.h (runNvls), all_gather.h and reduce_scatter.h (NVLS, "
	 "one node), src/transport/nvls.cc (chunk 128 KiB, "
	 "16 channels), src/tuning nvls.cc (efficiency 0.85 Hopper), src/graph/tuning.cc (NVLS latency)",
	 "collective.channels, collective.slice, topology.nvlink.nvls_efficiency"},
	{"nvlstree", "algorithm",
	 "NCCL's NVLS_TREE allreduce across NVSwitch nodes: nvls in every node (two helper ranks "
	 "per node) and NCCL's double binary tree between the owners of each slice, one GPU and NIC "
	 "per node; NVLS geometry, efficiency and latency, 14 us per network message",
	 "NVIDIA/nccl src/device/all_reduce.h (runNvlsTree), src/graph/tuning.cc (hwLat NET "
	 "NVLSTree), src/graph/trees.cc",
	 "collective.channels, collective.slice, topology.nvlink.nvls_efficiency, topology.nodes"},
	{"collnet", "algorithm",
	 "NCCL's CollNet Direct allreduce with the network's switches reducing (InfiniBand SHARP, "
	 "topology.fabric.sharp), without NVLS: each GPU owns 1/n of every channel's data, gathers "
	 "its node's contributions and hands the total out by plain NVLink sends; the owners' sums "
	 "go up to the network switch and come back reduced; Simple only, NVLS's 16 channels of "
	 "128 KiB, NCCL's ring Simple latencies",
	 "NVIDIA/nccl src/device/all_reduce.h (runCollNetDirect); NVIDIA Quantum SHARP",
	 "collective.channels, collective.slice, topology.fabric.sharp"},
	{"collnetchain", "algorithm",
	 "NCCL's CollNet Chain allreduce with the network's switches reducing (SHARP), without "
	 "NVLS: each channel's part is reduced up a chain of the node's GPUs to the channel's head "
	 "(the heads rotate over the GPUs and their NICs), reduced across nodes by the network "
	 "switch and passed back down the chain; the ring's NVLink load, the NIC's S/n, 2 (n-1) "
	 "NVLink hops of latency; Simple only, NVLS's 16 channels of 128 KiB",
	 "NVIDIA/nccl src/device/all_reduce.h (runCollNetChain), src/graph/tuning.cc (CollNetChain "
	 "latencies 2.8 and 30 us)",
	 "collective.channels, collective.slice, topology.fabric.sharp"},
	{"pairwise", "algorithm",
	 "two-sided all-to-all: rank r sends block r+k to r+k for k = 1..n-1 on a send strand, receives "
	 "on a receive strand (NCCL grouped send/recv)",
	 "NVIDIA/nccl-tests src/alltoall.cu; NCCL ncclGroupStart/ncclSend/ncclRecv",
	 "collective.channels, collective.slice"},
	{"put", "algorithm",
	 "one-sided all-to-all: PUT each block into the peer's output, SIGNAL it, WAIT for n-1 signals "
	 "(NVSHMEM put-with-signal)",
	 "NVSHMEM nvshmem_putmem_signal; pplx-kernels / DeepEP dispatch structure",
	 "collective.channels, collective.slice"},
	{"moe", "algorithm",
	 "MoE dispatch and combine (DeepEP low-latency shape): every token-expert message PUT by the "
	 "GPU into the expert's GPU, routing drawn per token from the seed, 32 concurrent senders per "
	 "GPU; closed form: the busiest link under the draw",
	 "deepseek-ai/DeepEP (low-latency kernels, message sizes); DeepSeek-V3 (top-8 of 256)",
	 "collective.op, moe.tokens, moe.topk, moe.experts, seed, collective.channels"},
	{"forward", "algorithm",
	 "MoE dispatch and combine (DeepEP normal shape): a token goes once to each other node it is "
	 "routed to, to the GPU of its own local index there, which PUTs it on over NVLink to every GPU "
	 "of the node it goes to (one copy per GPU, not per expert); combine sums each node's partials "
	 "at that GPU and sends one sum home; closed form: the busiest link under the draw",
	 "deepseek-ai/DeepEP (normal kernels, csrc/kernels/internode.cu; README bandwidth table); "
	 "DeepSeek-V3 (node-limited routing, at most 4 nodes)",
	 "collective.op, moe.tokens, moe.topk, moe.experts, moe.max_nodes, moe.chunk, seed, "
	 "collective.channels"},
	{"pplx", "algorithm",
	 "MoE dispatch and combine (pplx-kernels' internode shape): every token-expert message a put "
	 "with its own signal from its own warp (no dedup per rank), a count signal per expert from "
	 "every GPU (dispatch) and a sync flag from every GPU to every GPU (combine); the receiver "
	 "waits for the counts, then for its token counters; a grid of collective.channels blocks "
	 "(the GPU's SMs, 132); closed form: put's, the busiest link under the draw",
	 "ppl-ai/pplx-kernels csrc/all_to_all/internode_dispatch.cu, internode_combine.cu "
	 "(NVSHMEM putmem_signal_nbi_warp, signal_op)",
	 "collective.op, moe.tokens, moe.topk, moe.experts, seed, collective.channels, "
	 "transport.inter"},
	{"garden", "algorithm",
	 "MoE dispatch and combine (pplx-garden's p2p all-to-all): the kernel packs each other rank's "
	 "tokens into one range of a send buffer, a CPU worker per GPU writes every range in one RDMA "
	 "write with immediate data (transport.inter fabric), the receiving worker counts them and "
	 "raises a GDRCopy flag, and the receive kernel copies the tokens into the experts' layout; "
	 "dispatch first sends every rank's routing to every other rank; closed form: put's, the "
	 "busiest link under the draw",
	 "perplexityai/pplx-garden p2p-all-to-all (a2a_worker.rs, a2a_dispatch_send.cu, "
	 "a2a_dispatch_recv.cu), fabric-lib",
	 "collective.op, moe.tokens, moe.topk, moe.experts, seed, collective.channels, "
	 "transport.inter"},
	{"sendrecv", "algorithm",
	 "each rank sends to rank+1 and receives from rank-1 (nccl-tests sendrecv_perf), in NCCL's "
	 "point-to-point steps (128 KiB across nodes, 512 KiB on one NVLink node) over the channels "
	 "NCCL gives an operation of its size, at most its per-peer count, each at most NCCL's 14 "
	 "GB/s across the network",
	 "NVIDIA/nccl-tests src/sendrecv.cu; NVIDIA/nccl src/init.cc (P2P_NET_CHUNKSIZE, "
	 "P2P_NVL_CHUNKSIZE), src/graph/paths.cc (P2P_PER_CHANNEL_NET_BW, "
	 "ncclTopoComputeP2pChannels), src/enqueue.cc (addP2pToPlan)",
	 "collective.channels, collective.chunk, collective.slice, collective.buffer"},
	{"groups", "algorithm",
	 "communicators: the collective runs at once in every group of group.size ranks, member j "
	 "group.stride GPUs after member j-1 (TP groups stride 1, DP groups stride TP); one group's "
	 "schedule relabelled, groups sharing only the links their routes share",
	 "Megatron-LM process groups (Shoeybi et al., arXiv 1909.08053)",
	 "collective.group.size, collective.group.stride"},
	{"step", "workload",
	 "one training step's communication: TP allreduces (4 per layer and micro-batch), PP "
	 "send/recv (2 per micro-batch), DP gradient allreduces in buckets, each phase a grouped "
	 "collective on the scenario's topology, phases one after the other",
	 "Megatron-LM (arXiv 1909.08053, 2104.04473); Llama 3 70B shape; PyTorch DDP 25 MiB buckets",
	 "workload, train.*"},
	{"protocols", "algorithm",
	 "NCCL Simple / LL / LL128: per-class hop latency and base latency in NCCL's ratios, data "
	 "efficiency (1, 1/2, 120/128) and buffer geometry; LL held to NCCL's per-GPU ceiling (one "
	 "node: the GPU generation's; across nodes: the CPU vendor's); auto picks per size by the "
	 "closed form",
	 "NVIDIA/nccl src/graph/tuning.cc (hwLat, baseLat, llMaxBws), src/include/device.h (buffers)",
	 "collective.protocol, topology.gpu_arch, topology.cpu"},
	{"nccl-tuner", "algorithm",
	 "NCCL's own cost model choosing the algorithm and protocol (collective.tuner nccl): "
	 "latency x steps + bytes / bandwidth with the constants and rules of the release "
	 "collective.nccl_version names (2.19.1-2.30.7), its graph figures derived from the "
	 "topology; gcsim simulates the pick and prints NCCL's estimate of it",
	 "NVIDIA/nccl src/graph/tuning.cc of each release (ncclTopoTuneModel, "
	 "ncclTopoGetAlgoTime); NVIDIA/nccl#1752 (picks logged on 64 H200 nodes)",
	 "collective.tuner, collective.nccl_version, collective.algo, collective.protocol, "
	 "topology.cpu"},
	{"channel", "device",
	 "one ring or tree channel is one CTA: what it moves from its GPU is held to NCCL's "
	 "per-channel figure for the GPU generation (Simple, LL128), a link of its own that every "
	 "send of the channel crosses first (a tree's sends of a slice to its other children, "
	 "stored in the same pass, do not)",
	 "NVIDIA/nccl src/graph/tuning.cc perChMaxTreeBws, perChMaxRingLL128Bws, "
	 "perChMaxTreeLL128Bws",
	 "topology.gpu_arch, topology.channel_bandwidth"},
	{"gloo", "backend",
	 "collective.backend gloo: one host process per GPU copies its buffer to pinned host "
	 "memory, runs gloo's ring (or halving-doubling) over TCP sockets through one interface "
	 "per node, one stream per connection, the CPU summing segments in host memory, and "
	 "copies the result back",
	 "facebookincubator/gloo gloo/allreduce.cc, gloo/alltoall.cc, transport/tcp; "
	 "ProcessGroupGloo; ESnet fasterdata 100G host expectations",
	 "collective.backend, gloo.*, host.memcpy_bw, host.cudamemcpy_call"},
	{"mpi", "backend",
	 "collective.backend mpi: host processes staging through host memory, shared memory "
	 "inside a node, RDMA from host memory across nodes, CPU sums; cuda-aware: reductions "
	 "still staged, the rest GPU to GPU",
	 "Open MPI coll/base (ring, redscat_allgather, pipeline) and coll/cuda "
	 "(docs/release-notes/mpi-collectives.rst)",
	 "collective.backend, mpi.*, host.memcpy_bw, host.cudamemcpy_call"},
	{"credits", "link",
	 "per-connection receive buffer: a send waits until its message fits (NCCL slots)",
	 "NCCL Simple buffer 4 MiB in 8 slots", "collective.buffer"},
	{"gm_tx.gpu", "component",
	 "GPU: SM stores to peer/host memory, system fences, flag polling, WQE building, kernel launch",
	 "Unat et al. arXiv 2409.09874; NCCL hwLat NVLink LL 0.6 us; H100 whitepaper",
	 "gpu.*, nvlink.*"},
	{"gm_tx.pcie", "component",
	 "PCIe: per-direction bandwidth, one-way latency per crossing, MMIO doorbell writes, BAR reads",
	 "gdrcopy pplat/copylat (NVIDIA/gdrcopy README); Azure ND H200 v5 52 GB/s", "pcie.*, gdrcopy.*"},
	{"gm_tx.host", "component",
	 "host: pinned buffers, CPU memcpy, cudaMemcpy call cost, verbs post and CQ polling",
	 "NVIDIA/gdrcopy README (cudaMemcpy ~6-7 us)", "host.*"},
	{"gm_tx.proxy", "component",
	 "CPU proxy thread: polls a FIFO (host-pinned, cudaMemcpy or GDRCopy), batches, posts on one RC QP, "
	 "a doorbell and a completion per request (or one per batch, proxy.post chained), polls the CQ",
	 "NVSHMEM IBRC proxy; pplx-garden fabric-lib (GDRCopy flags)", "proxy.*"},
	{"gm_tx.nic", "component",
	 "NIC: doorbell, work-request fetch by DMA, message-rate stage, line rate; IB/RoCE RC ordered, EFA SRD "
	 "unordered with completion counting, no GPUDirect Async",
	 "ConnectX-7 product brief; AWS EFA documentation", "nic.*, wire.*, switch.*, caps.*"},
	{"nccl-net", "transport",
	 "transport.inter nccl: NCCL's NET transport, a CPU proxy thread per GPU posts each slice "
	 "(ibv_post_send, or libfabric on EFA), the receiving proxy polls the completion and writes "
	 "the tail the GPU polls (Simple) or the GPU polls the flags in the data (LL, LL128)",
	 "NVIDIA/nccl src/transport/net.cc, src/proxy.cc, src/transport/net_ib; aws-ofi-nccl",
	 "transport.inter, proxy.*, host.*, nic.*, pcie.*"},
	{"ibrc", "transport",
	 "transport.inter ibrc: NVSHMEM's CPU proxy, each put and signal a request in a host FIFO; "
	 "on InfiniBand a signal of its own through the target's proxy (GDRCopy), on EFA every "
	 "signal counted by the receiving proxy; transport.inter auto's choice for one-sided "
	 "schedules where the NIC has no GPUDirect Async (p5, p5en, p4d: EFA)",
	 "NVSHMEM src/host/proxy/proxy.cpp, src/modules/transport/ibrc/ibrc.cpp",
	 "transport.inter, proxy.*, gdrcopy.*, host.*, nic.*"},
	{"ibgda", "transport",
	 "transport.inter ibgda: NVSHMEM IBGDA, the CTA builds the work request in GPU memory and "
	 "rings the doorbell; transport.inter auto's choice for one-sided schedules on ConnectX "
	 "(dgx-h100, dgx-a100, dgx-b200)",
	 "NVSHMEM src/include/non_abi/device/pt-to-pt/ibgda_device.cuh",
	 "transport.inter, gpu.*, nic.*, caps.gpudirect_async"},
	{"gin", "transport",
	 "transport.inter gin: NCCL GIN (2.28+), GDAKI (device-initiated, as ibgda) where the NIC "
	 "has GPUDirect Async, else its CPU-proxy back end (transport.gin): descriptors in per-target "
	 "queues in host memory, one read each, posted by the proxy; on EFA the signal written by a "
	 "GDRCopy worker",
	 "NVIDIA/nccl src/gin/gin_host_proxy.cc, src/transport/net_ib/gin.cc; aws-ofi-nccl "
	 "src/rdma/gin, doc/gin-getting-started.md; arXiv 2511.15076",
	 "transport.inter, transport.gin, proxy.*, gdrcopy.*, nic.*"},
	{"garden-fabric", "transport",
	 "transport.inter fabric: pplx-garden's engine (collective.algo garden only): a CPU worker per "
	 "GPU reads the kernel's flag through GDRCopy and writes every rank's range with immediate "
	 "data; the receiving worker counts the immediates and sets a GDRCopy flag",
	 "perplexityai/pplx-garden p2p-all-to-all/src/a2a_worker.rs, fabric-lib",
	 "transport.inter, proxy.*, gdrcopy.*, host.*"},
	{"gm_tx.paths", "path",
	 "intra types 1-4 and inter types 1-5 as recipes of steps over the components, one generic executor "
	 "(gcsim explain)",
	 "Unat et al., The Landscape of GPU-Centric Communication, arXiv 2409.09874", "explain.*"},
};

size_t gm_registry_count(void)
{
	return sizeof(models) / sizeof(models[0]);
}

const gm_model_info *gm_registry_at(size_t i)
{
	return i < gm_registry_count() ? &models[i] : NULL;
}

const gm_model_info *gm_registry_find(const char *name)
{
	for (size_t i = 0; i < gm_registry_count(); i++)
		if (strcmp(models[i].name, name) == 0)
			return &models[i];
	return NULL;
}
