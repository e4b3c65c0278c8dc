/* SPDX-License-Identifier: MIT */
/*
 * gm_tx_params: the parameters of the components the communication-type
 * paths run over (GPU, NVLink, PCIe, host, CPU proxy, GDRCopy, NIC, wire,
 * switch) and the platforms (dgx-h100, dgx-a100, p5, p4d) as sets of defaults plus
 * capability flags.
 *
 * Every default names its source. Figures from shared/reference/ (the
 * project's published set) come first; where no published figure exists the
 * source says "estimate" and gives the reasoning, so that `gcsim hw
 * calibrate` knows what to measure. The table defaults are the dgx-h100
 * platform; a platform only replaces defaults, so a value from a scenario
 * file or --set always wins.
 */
#include "gm_tx.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#define REF "shared/reference/README.md"
#define MB "shared/reference/microbench_published.csv"

static const gc_param tx_params[] = {
	/* GPU */
	{"gpu.launch_latency", GC_P_TIME, "4us", NULL, 0, 1e9,
	 "CPU cudaLaunchKernel until the kernel runs (a kernel-based host API copy)",
	 "estimate: 2-5 us commonly measured on H100/A100; NCCL's 6.6-8.4 us base latency (" REF
	 ") includes it"},
	{"gpu.store_issue", GC_P_TIME, "20ns", NULL, 0, 1e9,
	 "an SM thread issues a store of a small payload (a few instructions)",
	 "estimate: tens of cycles at ~1.7 GHz"},
	{"gpu.sm_store_bw", GC_P_BW, "3.35TB/s", NULL, 1, 1e15,
	 "aggregate store throughput of the SMs (bounded by the memory system)",
	 "H100 HBM3 3.35 TB/s nominal (" REF ")"},
	{"gpu.fence", GC_P_TIME, "200ns", NULL, 0, 1e9,
	 "system-scope memory fence (__threadfence_system) after outstanding stores",
	 "estimate: a few hundred cycles to drain posted stores"},
	{"gpu.poll_interval", GC_P_TIME, "300ns", NULL, 1, 1e9,
	 "one iteration of a GPU thread spinning on a flag in its own memory (a load that misses L2)",
	 "estimate: ~500-cycle global-memory load latency at ~1.7 GHz (Jia et al., Dissecting Volta/Turing)"},
	{"gpu.wqe_build", GC_P_TIME, "100ns", NULL, 0, 1e9,
	 "a GPU thread writes one 64 B work-queue entry and the doorbell record into GPU memory",
	 "estimate: a few dependent stores to HBM (NVSHMEM IBGDA ibgda_write_rdma_write_wqe)"},
	{"gpu.queues", GC_P_INT, "0", NULL, 0, 4096,
	 "send queues the issuing CTAs share for GPU-initiated posts (IBGDA), CTA c on queue c mod "
	 "gpu.queues; each post publishes on its queue in order (gpu.publish, one post at a time); "
	 "0: one queue per CTA, nothing shared",
	 "NVSHMEM IBGDA ibgda_get_rc: RC queue pairs are shared among CTAs (CTA id mod "
	 "NVSHMEM_IBGDA_NUM_RC_PER_PE x devices), posts published in order by compare-and-swap"},
	{"gpu.publish", GC_P_TIME, "200ns", NULL, 0, 1e9,
	 "the part of a post serialized on a shared send queue (gpu.queues > 0): the in-order "
	 "publish of the entry and the doorbell record update",
	 "estimate: a compare-and-swap on the queue's ready index plus a fence, a few hundred "
	 "cycles; gcsim hw bench's gpu_post sms-q2-b1 measures it"},
	{"gpu.cta_barrier", GC_P_TIME, "800ns", NULL, 0, 1e9,
	 "an inter-CTA barrier in global memory, from the last CTA's arrival until every CTA "
	 "leaves it: the arrival's fence and atomic increment of a counter, the last arrival "
	 "bumping an epoch word, the others' spin loads seeing it (NVSHMEM perftest "
	 "inter_cta_barrier, run between the iterations of shmem_put_bw)",
	 "estimate: gpu.fence + an L2 atomic round trip (~300 ns) + one gpu.poll_interval; gcsim "
	 "hw bench's cta_barrier measures it"},
	{"gpu.sms", GC_P_INT, "132", NULL, 1, 4096,
	 "CTAs that can issue concurrently (one per SM)", "NVIDIA H100 SXM5: 132 SMs (H100 whitepaper)"},
	/* NVLink */
	{"nvlink.bandwidth", GC_P_BW, "374GB/s", NULL, 1, 1e15,
	 "GPU-to-GPU NVLink bandwidth per direction through NVSwitch",
	 "p2pBandwidthLatencyTest 8xH100 371-377 GB/s (" MB ")"},
	{"nvlink.latency", GC_P_TIME, "600ns", NULL, 0, 1e9,
	 "a store into peer memory until a polling peer can see it (the hardware's part; the fence, "
	 "flag and poll are steps of their own; run's topology.nvlink.latency, 3.4 us, is NCCL's "
	 "Simple per-step latency, which holds them)",
	 "NCCL hwLat NVLink LL per hop 0.6 us, LL's flag riding in the same store (" REF ")"},
	/* PCIe */
	{"pcie.gen", GC_P_ENUM, "5", "3|4|5|6", 1, 0, "PCIe generation (label; bandwidth and latency are their own keys)",
	 "DGX H100: PCIe Gen5"},
	{"pcie.bandwidth", GC_P_BW, "52GB/s", NULL, 1, 1e15,
	 "PCIe x16 bandwidth per direction, measured (DMA host<->device)",
	 "H200 PCIe Gen5 host<->device 52 GB/s, Azure ND H200 v5 (" MB ")"},
	{"pcie.latency", GC_P_TIME, "545ns", NULL, 0, 1e9,
	 "one crossing of PCIe (posted write from issue to visibility at the far end)",
	 "half of the gdrcopy pplat CPU->GPU->CPU round trip 1.09 us (" MB "), which is two crossings"},
	{"pcie.mmio_write", GC_P_TIME, "89ns", NULL, 0, 1e9,
	 "CPU cost of one uncached write-combined MMIO store of <= 64 B (a doorbell)",
	 "gdr_copy_to_mapping 8 B 0.089 us (" MB ")"},
	/* host */
	{"host.memcpy_bw", GC_P_BW, "10GB/s", NULL, 1, 1e15,
	 "one CPU thread's memcpy bandwidth between pinned buffers",
	 "estimate: single-core copy bandwidth of a server CPU (STREAM copy, one thread)"},
	{"host.mem_latency", GC_P_TIME, "100ns", NULL, 0, 1e9,
	 "a CPU load of a line another agent wrote (DRAM/LLC miss)",
	 "estimate: idle DRAM load latency ~80-100 ns (Intel MLC)"},
	{"host.cudamemcpy_call", GC_P_TIME, "6.5us", NULL, 0, 1e9,
	 "fixed cost of a synchronous cudaMemcpy of a few bytes (runtime call, copy-engine launch, completion)",
	 "cudaMemcpy small-transfer overhead ~6-7 us, NVIDIA/gdrcopy README (" MB ")"},
	{"host.post_send", GC_P_TIME, "50ns", NULL, 0, 1e9,
	 "CPU builds one work-queue entry in the host send queue and updates the doorbell record",
	 "estimate: user-space verbs post (mlx5 ibv_post_send without the MMIO doorbell), tens of ns"},
	{"host.cq_poll", GC_P_TIME, "100ns", NULL, 0, 1e9,
	 "CPU reads one completion-queue entry the NIC wrote", "estimate: one host.mem_latency"},
	/* CPU proxy */
	{"proxy.poll_interval", GC_P_TIME, "0ns", NULL, 0, 1e9,
	 "pause between two polls of an idle proxy (0: spins)",
	 "NVSHMEM proxy progress thread busy-polls its channels"},
	{"proxy.request_cost", GC_P_TIME, "50ns", NULL, 0, 1e9,
	 "proxy dequeues and decodes one request from the FIFO (before posting it)",
	 "estimate: one cache line the GPU wrote, read with DDIO from the LLC, plus decoding"},
	{"proxy.batch", GC_P_INT, "32", NULL, 1, 4096,
	 "requests the proxy takes from its FIFO per turn of its loop",
	 "NVSHMEM IBRC batches up to 32 (" REF "; proxy.cpp PROXY_REQUEST_BATCH_MAX)"},
	{"proxy.post", GC_P_ENUM, "single", "single|chained", 1, 0,
	 "single: one signalled work request per ibv_post_send, each ringing its own doorbell "
	 "(pcie.mmio_write) and reaped from the CQ one by one (host.cq_poll); chained: a turn's "
	 "requests linked into one post, one doorbell and one completion per turn",
	 "NVSHMEM IBRC ibrc.cpp nvshmemt_ibrc_rma: one IBV_SEND_SIGNALED work request per "
	 "ibv_post_send; progress_send reaps one completion per ibv_poll_cq"},
	{"proxy.amo", GC_P_ENUM, "gdrcopy", "gdrcopy|native", 1, 0,
	 "how NVSHMEM's proxy (IBRC on InfiniBand/RoCE) performs a signal that does not follow a put "
	 "(nvshmemx_signal_op): gdrcopy sends it to the target's proxy, which writes the word into GPU "
	 "memory through GDRCopy and sends an acknowledgement back; native posts it as an RDMA write "
	 "or atomic like a put's signal",
	 "NVSHMEM ibrc.cpp nvshmemt_ibrc_amo (with NVSHMEM_USE_GDRCOPY every atomic but an 8-byte "
	 "SIGNAL_ADD is a SEND to the target), perform_gdrcopy_amo, poll_recv; pplx-kernels' "
	 "multi-node set-up builds NVSHMEM with GDRCopy (its docs/install-driver-and-dependencies.md)"},
	{"proxy.srq_depth", GC_P_INT, "16384", NULL, 1, 1 << 24,
	 "receive buffers of NVSHMEM IBRC's shared receive queue: with proxy.amo gdrcopy a proxy keeps "
	 "at most srq_depth / (connected queue pairs + 1) atomics unacknowledged, and before each request "
	 "it posts it spins on its receive queue until it is back under that window",
	 "NVSHMEM env_defs.h NVSHMEM_SRQ_DEPTH 16384; ibrc.cpp progress_recv (WAIT_ANY: "
	 "srq_depth / (connected_qp_count + 1)), called by nvshmemt_ib_common_check_poll_avail before "
	 "every rma and amo"},
	{"proxy.rc_per_pe", GC_P_INT, "1", NULL, 1, 1024,
	 "RC queue pairs NVSHMEM IBRC connects to every PE, besides its host endpoint: a proxy has "
	 "npes x (rc_per_pe + 1) + 1 connected queue pairs (the +1 its loopback for consistency), which "
	 "divide proxy.srq_depth into its window of unacknowledged atomics",
	 "NVSHMEM env_defs.h NVSHMEM_IB_NUM_RC_PER_DEVICE 1; transport_ib_common.cpp "
	 "nvshmemt_ib_common_connect_endpoints (ep_count = num RC + 1 host EP, to all n_pes), "
	 "nvshmemt_ib_common_setup_cst_loopback; ibrc.cpp ep_connect (connected_qp_count++)"},
	{"proxy.flag_read", GC_P_ENUM, "hostpinned", "hostpinned|cudamemcpy|gdrcopy", 1, 0,
	 "how the proxy reads a GPU-written flag: host-pinned FIFO, cudaMemcpy, or a GDRCopy mapping",
	 "NVSHMEM IBRC uses a host-pinned FIFO; pplx-garden reads flags through GDRCopy (" REF ")"},
	/* GDRCopy */
	{"gdrcopy.read_8B", GC_P_TIME, "1.72us", NULL, 0, 1e9,
	 "CPU read of 8 B of GPU memory through a GDRCopy BAR mapping",
	 "gdr_copy_from_mapping 8 B 1.72 us (0.91-1.72 us), V100 (" MB ")"},
	{"gdrcopy.read_bw", GC_P_BW, "574MB/s", NULL, 1, 1e15,
	 "bandwidth of larger GDRCopy reads (uncached BAR reads)",
	 "gdr_copy_from_mapping 64 KiB in 114.1 us (" MB ")"},
	{"gdrcopy.write_8B", GC_P_TIME, "89ns", NULL, 0, 1e9,
	 "CPU write of 8 B into GPU memory through a GDRCopy mapping (posted)",
	 "gdr_copy_to_mapping 8 B 0.089 us (" MB ")"},
	/* NIC, wire, switch */
	{"nic.kind", GC_P_ENUM, "ib", "ib|roce|efa", 1, 0,
	 "ib/roce: RC, ordered delivery; efa: SRD, unordered, completions counted",
	 "DGX H100: ConnectX-7 InfiniBand"},
	{"nic.bandwidth", GC_P_BW, "400Gbps", NULL, 1, 1e15, "NIC line rate per GPU per direction",
	 "ConnectX-7 400 Gb/s, one per GPU (" REF ")"},
	{"nic.msg_rate", GC_P_DOUBLE, "330e6", NULL, 1, 1e12,
	 "messages per second the NIC's processing stage sustains",
	 "NVIDIA ConnectX-7 product brief: up to 330-370 million messages/s"},
	{"nic.sq_depth", GC_P_INT, "4", NULL, 1, 65536,
	 "messages one issuer (CPU thread or CTA) keeps in flight before it waits for completions",
	 "estimate: a few puts per CTA between nvshmem_quiet calls"},
	{"wire.latency", GC_P_TIME, "25ns", NULL, 0, 1e9, "cable propagation (5 m at 5 ns/m)",
	 "estimate: signal speed in copper/fibre ~5 ns/m"},
	{"switch.latency", GC_P_TIME, "200ns", NULL, 0, 1e9,
	 "one network switch traversal (same leaf)",
	 "estimate: InfiniBand NDR switch port-to-port latency is a few hundred ns"},
	/* capabilities */
	{"caps.p2p", GC_P_BOOL, "true", NULL, 1, 0, "GPUs can access peer memory (NVLink or PCIe P2P)",
	 "DGX H100 NVSwitch"},
	{"caps.gdr", GC_P_BOOL, "true", NULL, 1, 0, "the NIC can DMA to/from GPU memory (GPUDirect RDMA)",
	 "ConnectX-7 with nvidia-peermem"},
	{"caps.gpudirect_async", GC_P_BOOL, "true", NULL, 1, 0,
	 "the GPU can post work requests and ring NIC doorbells itself (IBGDA)",
	 "ConnectX-7 + NVSHMEM IBGDA"},
};

typedef struct platform_default {
	const char *key, *value;
} platform_default;

typedef struct platform {
	const char *name, *summary;
	const platform_default *defs;
	size_t n;
} platform;

static const platform_default p5_defs[] = {
	/* H100 SXM; EFA v2: 32 x 100 Gb/s per node = 4 x 100 Gb/s per GPU (REF) */
	{"nic.kind", "efa"},
	{"nic.bandwidth", "400Gbps"},
	/* estimate: SRD processing in the EFA device is slower per operation
	 * than ConnectX; no published message rate */
	{"nic.msg_rate", "50e6"},
	/* estimate: EC2 fabric, several switch tiers even inside a placement group */
	{"switch.latency", "2us"},
	{"caps.gpudirect_async", "false"},
};

static const platform_default p4d_defs[] = {
	/* A100 SXM4: 108 SMs (A100 whitepaper); NVLink3 12 links x 20 GB/s as NCCL
	 * assumes (REF); PCIe Gen4 ~25 GB/s measured (REF) */
	{"gpu.sms", "108"},
	{"gpu.sm_store_bw", "1.55TB/s"},
	{"nvlink.bandwidth", "240GB/s"},
	{"pcie.gen", "4"},
	{"pcie.bandwidth", "25GB/s"},
	{"nic.kind", "efa"},
	/* 4 x 100 Gb/s EFA per node (REF): one adapter per two GPUs */
	{"nic.bandwidth", "100Gbps"},
	{"nic.msg_rate", "50e6"},
	{"switch.latency", "2us"},
	{"caps.gpudirect_async", "false"},
};

static const platform_default dgx_a100_defs[] = {
	/* A100 SXM4: 108 SMs (A100 whitepaper), HBM2 1.55 TB/s; NVLink3 12 links
	 * x 20 GB/s as NCCL assumes (REF); PCIe Gen4 ~25 GB/s measured (REF) */
	{"gpu.sms", "108"},
	{"gpu.sm_store_bw", "1.55TB/s"},
	{"nvlink.bandwidth", "240GB/s"},
	{"pcie.gen", "4"},
	{"pcie.bandwidth", "25GB/s"},
	/* DGX A100: one ConnectX-6 HDR 200 Gb/s InfiniBand adapter per GPU;
	 * NVIDIA ConnectX-6 product brief: up to 215 million messages/s */
	{"nic.bandwidth", "200Gbps"},
	{"nic.msg_rate", "215e6"},
};

static const platform platforms[] = {
	{"dgx-h100", "8x H100 SXM, NVLink4 via NVSwitch, PCIe Gen5, one ConnectX-7 400 Gb/s IB per GPU",
	 NULL, 0},
	{"dgx-a100", "8x A100 SXM4, NVLink3 via NVSwitch, PCIe Gen4, one ConnectX-6 200 Gb/s IB per GPU",
	 dgx_a100_defs, G_N_ELEMENTS(dgx_a100_defs)},
	{"p5", "AWS p5: 8x H100 SXM, NVSwitch, EFA (SRD) 4 x 100 Gb/s per GPU, no GPUDirect Async",
	 p5_defs, G_N_ELEMENTS(p5_defs)},
	{"p4d", "AWS p4d: 8x A100 SXM4, NVLink3, PCIe Gen4, EFA 4 x 100 Gb/s per node, no GPUDirect Async",
	 p4d_defs, G_N_ELEMENTS(p4d_defs)},
};

void gm_tx_register_params(gc_config *cfg)
{
	gc_config_add_params(cfg, tx_params, G_N_ELEMENTS(tx_params));
}

const char *gm_tx_platform_choices(void)
{
	return "dgx-h100|dgx-a100|p5|p4d";
}

static const platform *platform_find(const char *name)
{
	for (size_t i = 0; name && i < G_N_ELEMENTS(platforms); i++)
		if (!strcmp(platforms[i].name, name))
			return &platforms[i];
	return NULL;
}

const char *gm_tx_platform_summary(const char *name)
{
	const platform *pl = platform_find(name);
	return pl ? pl->summary : NULL;
}

bool gm_tx_platform_apply(gc_config *cfg, const char *name)
{
	const platform *pl = platform_find(name);
	if (!pl)
		return false;
	char origin[48];
	g_snprintf(origin, sizeof(origin), "platform %s", pl->name);
	/* back to the table's defaults first, so platforms never mix */
	for (size_t i = 0; i < G_N_ELEMENTS(tx_params); i++)
		gc_config_set_default(cfg, tx_params[i].key, tx_params[i].def, NULL);
	for (size_t i = 0; i < pl->n; i++)
		gc_config_set_default(cfg, pl->defs[i].key, pl->defs[i].value, origin);
	return true;
}

void gm_tx_params_read(const gc_config *cfg, const char *platform_name, gm_tx_params *p)
{
	memset(p, 0, sizeof(*p));
	p->platform = platform_name;
	p->launch_ps = gc_config_time(cfg, "gpu.launch_latency");
	p->store_issue_ps = gc_config_time(cfg, "gpu.store_issue");
	p->sm_store_Bps = gc_config_bw(cfg, "gpu.sm_store_bw");
	p->fence_ps = gc_config_time(cfg, "gpu.fence");
	p->poll_ps = gc_config_time(cfg, "gpu.poll_interval");
	p->wqe_build_ps = gc_config_time(cfg, "gpu.wqe_build");
	p->sms = (int)gc_config_int(cfg, "gpu.sms");
	p->queues = (int)gc_config_int(cfg, "gpu.queues");
	p->publish_ps = gc_config_time(cfg, "gpu.publish");
	p->cta_barrier_ps = gc_config_time(cfg, "gpu.cta_barrier");
	p->nvlink_Bps = gc_config_bw(cfg, "nvlink.bandwidth");
	p->nvlink_lat_ps = gc_config_time(cfg, "nvlink.latency");
	p->pcie_gen = atoi(gc_config_str(cfg, "pcie.gen"));
	p->pcie_Bps = gc_config_bw(cfg, "pcie.bandwidth");
	p->pcie_lat_ps = gc_config_time(cfg, "pcie.latency");
	p->mmio_write_ps = gc_config_time(cfg, "pcie.mmio_write");
	p->memcpy_Bps = gc_config_bw(cfg, "host.memcpy_bw");
	p->mem_lat_ps = gc_config_time(cfg, "host.mem_latency");
	p->cudamemcpy_ps = gc_config_time(cfg, "host.cudamemcpy_call");
	p->post_send_ps = gc_config_time(cfg, "host.post_send");
	p->cq_poll_ps = gc_config_time(cfg, "host.cq_poll");
	p->proxy_poll_ps = gc_config_time(cfg, "proxy.poll_interval");
	p->proxy_req_ps = gc_config_time(cfg, "proxy.request_cost");
	p->proxy_batch = (int)gc_config_int(cfg, "proxy.batch");
	p->proxy_post = !strcmp(gc_config_str(cfg, "proxy.post"), "chained") ? GM_TX_POST_CHAINED
									    : GM_TX_POST_SINGLE;
	p->proxy_amo = !strcmp(gc_config_str(cfg, "proxy.amo"), "native") ? GM_TX_AMO_NATIVE
									  : GM_TX_AMO_GDRCOPY;
	p->srq_depth = (int)gc_config_int(cfg, "proxy.srq_depth");
	p->rc_per_pe = (int)gc_config_int(cfg, "proxy.rc_per_pe");
	const char *fr = gc_config_str(cfg, "proxy.flag_read");
	p->flag_read = !strcmp(fr, "cudamemcpy") ? GM_TX_FLAG_CUDAMEMCPY
		       : !strcmp(fr, "gdrcopy")	 ? GM_TX_FLAG_GDRCOPY
						 : GM_TX_FLAG_HOSTPINNED;
	p->gdr_read_ps = gc_config_time(cfg, "gdrcopy.read_8B");
	p->gdr_read_Bps = gc_config_bw(cfg, "gdrcopy.read_bw");
	p->gdr_write_ps = gc_config_time(cfg, "gdrcopy.write_8B");
	const char *nk = gc_config_str(cfg, "nic.kind");
	p->nic_kind = !strcmp(nk, "efa") ? GM_TX_NIC_EFA : !strcmp(nk, "roce") ? GM_TX_NIC_ROCE : GM_TX_NIC_IB;
	p->nic_Bps = gc_config_bw(cfg, "nic.bandwidth");
	p->nic_msg_rate = gc_config_double(cfg, "nic.msg_rate");
	p->sq_depth = (int)gc_config_int(cfg, "nic.sq_depth");
	p->wire_lat_ps = gc_config_time(cfg, "wire.latency");
	p->switch_lat_ps = gc_config_time(cfg, "switch.latency");
	p->has_p2p = gc_config_bool(cfg, "caps.p2p");
	p->has_gdr = gc_config_bool(cfg, "caps.gdr");
	p->has_gpudirect_async = gc_config_bool(cfg, "caps.gpudirect_async");
}
