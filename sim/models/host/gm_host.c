/* SPDX-License-Identifier: MIT */
/*
 * gm_host: the host-native backends (see gm_host.h). Every default names
 * its source; "estimate" gives the reasoning where no published figure
 * is at hand.
 */
#include "gm_host.h"

#include "../../core/gc_units.h"
#include "../transport/gm_xport.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const gc_param host_params[] = {
	{"collective.backend", GC_P_ENUM, "nccl", "nccl|gloo|mpi", 1, 0,
	 "the library that runs the collective: nccl on the GPUs; gloo or mpi in one host process "
	 "per GPU on copies of its buffers in host memory (torch.distributed's backends)",
	 NULL},
	{"gloo.tcp_stream_bw", GC_P_BW, "3.125GB/s", NULL, 1, 1e15,
	 "one TCP connection's throughput (a single stream: one core's system calls, protocol "
	 "work and copies between kernel and process), loopback included",
	 "ESnet fasterdata, Performance Expectations for a 100G Host (2024): a single stream "
	 "15-35 Gbit/s depending on tuning; the middle, 25 Gbit/s. Cai et al., Understanding "
	 "Host Network Stack Overheads (SIGCOMM 2021): the receiver's copy into the process "
	 "bounds one flow"},
	{"gloo.tcp_latency", GC_P_TIME, "10us", NULL, 0, 1e9,
	 "a message's one-way time through both hosts' TCP stacks (the send system call, the "
	 "receiver's interrupt, its device thread's epoll wake-up and read), beside the wire's",
	 "estimate: kernel TCP request-response round trips between datacenter hosts take some "
	 "tens of microseconds"},
	{"gloo.segment", GC_P_BYTES, "1MiB", NULL, 4, 1073741824.0,
	 "largest message of gloo's ring (the buffer is cut into segments, at least two per "
	 "process; two in flight on each connection)",
	 "gloo/allreduce.h AllreduceOptionsImpl::kMaxSegmentSize (1 MiB); gloo/allreduce.cc ring"},
	{"gloo.nic_bandwidth", GC_P_BW, "0GB/s", NULL, 0, 1e15,
	 "the network interface gloo's sockets use (GLOO_SOCKET_IFNAME: one tcp::Device per "
	 "process, so every process of a node shares it); 0: one of the node's NICs at "
	 "topology.nic.bandwidth (IP over the GPU fabric)",
	 NULL},
	{"mpi.cuda_aware", GC_P_BOOL, "false", NULL, 1, 0,
	 "the GPU buffers are handed to MPI: reductions are still staged through host memory (Open "
	 "MPI's coll/cuda), the other collectives move GPU to GPU (CUDA IPC, GPUDirect RDMA); "
	 "false: the application stages every collective",
	 "Open MPI docs/release-notes/mpi-collectives.rst: the cuda coll component copies GPU "
	 "buffers of the reduction collectives to staging buffers, then calls the underlying "
	 "collectives"},
	{"mpi.latency", GC_P_TIME, "500ns", NULL, 0, 1e9,
	 "a message's software time between nodes beside the wire's (the library's matching, the "
	 "RDMA post and its completion on both sides)",
	 "estimate: OSU osu_latency reports about 1 us between InfiniBand hosts, about half of it "
	 "the NIC link's own latency"},
	{"mpi.shm_latency", GC_P_TIME, "300ns", NULL, 0, 1e9,
	 "a message between processes of one node (shared memory; CUDA IPC when cuda-aware "
	 "collectives move GPU buffers)",
	 "estimate: OSU osu_latency inside a node is a few hundred nanoseconds"},
	{"mpi.segment", GC_P_BYTES, "1MiB", NULL, 4, 1073741824.0,
	 "largest message of the segmented ring",
	 "estimate: the order of Open MPI's tuned ring_segmented segment sizes"},
};

void gm_host_register_params(gc_config *cfg)
{
	gc_config_add_params(cfg, host_params, G_N_ELEMENTS(host_params));
}

bool gm_host_key(const char *key)
{
	return g_str_has_prefix(key, "gloo.") || g_str_has_prefix(key, "mpi.");
}

/* The collectives whose result is a reduction (staged by cuda-aware MPI). */
static bool reduces(gs_coll c)
{
	return c == GS_COLL_ALLREDUCE || c == GS_COLL_REDUCESCATTER || c == GS_COLL_REDUCE;
}

gs_algo gm_host_algo(gs_coll c)
{
	return c == GS_COLL_ALLTOALL ? GS_ALGO_PAIRWISE : GS_ALGO_RING;
}

/* NCCL's own keys: what NCCL's kernels, tuner and transports read. */
static const char *const nccl_keys[] = {
	"collective.channels",	   "collective.chunk",		"collective.slice",
	"collective.buffer",	   "collective.compare",	"collective.protocol",
	"collective.nccl_proto",   "collective.tuner",		"collective.gpus_per_thread",
	"collective.enqueue",	   "transport.inter",		"sim.net_send",
	"topology.channel_bandwidth", "topology.gpu_arch",	"topology.nic_path",
	"topology.fabric.sharp",   "topology.nvlink.nvls_efficiency", "topology.fabric.pxn",
	"topology.cpu",
};

const char *gm_host_key_unused(const gm_host *h, const char *key, char *buf, size_t n)
{
	const bool gloo = g_str_has_prefix(key, "gloo."), mpi = g_str_has_prefix(key, "mpi.");
	if ((gloo && h->kind != GM_BACKEND_GLOO) || (mpi && h->kind != GM_BACKEND_MPI)) {
		snprintf(buf, n, "it applies to collective.backend %s, and this run's is %s",
			 gloo ? "gloo" : "mpi", h->name ? h->name : "nccl");
		return buf;
	}
	if (h->kind == GM_BACKEND_NCCL)
		return NULL;
	for (size_t i = 0; i < G_N_ELEMENTS(nccl_keys); i++)
		if (!strcmp(key, nccl_keys[i])) {
			snprintf(buf, n,
				 "NCCL reads it (its kernels, tuner or transport); collective.backend "
				 "%s runs its own algorithm (gm_host.h)",
				 h->name);
			return buf;
		}
	if (h->kind == GM_BACKEND_GLOO && !strcmp(key, "topology.nics_per_node")) {
		snprintf(buf, n, "gloo's sockets use one interface per node (gloo.nic_bandwidth), "
				 "whatever NICs the GPUs have");
		return buf;
	}
	if (h->kind == GM_BACKEND_GLOO && !strcmp(key, "topology.nic.bandwidth") &&
	    h->nic_from_gloo) {
		snprintf(buf, n, "gloo.nic_bandwidth gives the rate of gloo's interface in its place");
		return buf;
	}
	if (h->staged) {
		/* the processes reach each other through host memory and sockets */
		if (!strcmp(key, "topology.launch_latency") || !strcmp(key, "topology.intra") ||
		    g_str_has_prefix(key, "topology.nvlink.") ||
		    (g_str_has_prefix(key, "topology.pcie.") && strcmp(key, "topology.pcie.bandwidth") != 0)) {
			snprintf(buf, n,
				 "collective.backend %s runs in host processes on copies in host "
				 "memory: no kernel is launched and no GPU link but the PCIe of the "
				 "staging copies (topology.pcie.bandwidth) is crossed",
				 h->name);
			return buf;
		}
		if (g_str_has_prefix(key, "host.") && strcmp(key, "host.memcpy_bw") != 0 &&
		    strcmp(key, "host.cudamemcpy_call") != 0) {
			snprintf(buf, n,
				 "collective.backend %s reads host.memcpy_bw (its reductions, shared "
				 "memory) and host.cudamemcpy_call (its staging copies) only",
				 h->name);
			return buf;
		}
	} else if (g_str_has_prefix(key, "host.") || !strcmp(key, "mpi.shm_latency")) {
		/* cuda-aware MPI moving GPU buffers (not a reduction) */
		if (strcmp(key, "mpi.shm_latency") != 0) {
			snprintf(buf, n,
				 "cuda-aware MPI moves this collective GPU to GPU: nothing is staged in "
				 "host memory");
			return buf;
		}
	}
	if ((!strcmp(key, "pcie.latency") || !strcmp(key, "wire.latency") ||
	     !strcmp(key, "switch.latency")) &&
	    !h->nic_lat_given)
		return NULL; /* the NIC link's physical latency */
	if (g_str_has_prefix(key, "gpu.") || g_str_has_prefix(key, "nvlink.") ||
	    g_str_has_prefix(key, "pcie.") || g_str_has_prefix(key, "proxy.") ||
	    g_str_has_prefix(key, "gdrcopy.") || g_str_has_prefix(key, "nic.") ||
	    g_str_has_prefix(key, "wire.") || g_str_has_prefix(key, "switch.") ||
	    g_str_has_prefix(key, "caps.")) {
		snprintf(buf, n,
			 "these are the stages of a GPU transport (transport.inter); collective.backend "
			 "%s sends its messages itself",
			 h->name);
		return buf;
	}
	return NULL;
}

gc_status gm_host_from_config(const gc_config *cfg, const gt_topo *t, const gs_params *p,
			      gm_host *h, char **errmsg)
{
	memset(h, 0, sizeof(*h));
	const char *b = gc_config_str(cfg, "collective.backend");
	h->kind = !strcmp(b, "gloo") ? GM_BACKEND_GLOO : !strcmp(b, "mpi") ? GM_BACKEND_MPI : GM_BACKEND_NCCL;
	h->name = h->kind == GM_BACKEND_GLOO ? "gloo" : h->kind == GM_BACKEND_MPI ? "mpi" : "nccl";
	if (h->kind == GM_BACKEND_NCCL)
		return GC_OK;
	if (t->kind != GT_DGX)
		return gc_config_error(cfg, "collective.backend", errmsg,
				       "%s runs in the host processes of nodes, and a flat topology has "
				       "none; give topology.kind dgx or a preset",
				       b);
	if (gs_coll_is_moe(p->coll))
		return gc_config_error(cfg, "collective.backend", errmsg,
				       "%s has no %s (MoE dispatch and combine are GPU kernels: DeepEP, "
				       "pplx-kernels); give collective.backend nccl",
				       b, gs_coll_name(p->coll));
	if (h->kind == GM_BACKEND_GLOO && p->coll != GS_COLL_ALLREDUCE &&
	    p->coll != GS_COLL_ALLGATHER && p->coll != GS_COLL_ALLTOALL)
		return gc_config_error(cfg, "collective.backend", errmsg,
				       "gloo's %s is not modelled (gloo's broadcast is a binomial tree, "
				       "its reduce and reduce-scatter other shapes than a ring); gloo "
				       "runs allreduce, allgather (rings) and alltoall (pairwise), mpi "
				       "runs %s",
				       gs_coll_name(p->coll), gs_coll_name(p->coll));
	const char *algo = gc_config_str(cfg, "collective.algo");
	gs_algo want = gm_host_algo(p->coll);
	h->algo = want;
	if (p->coll == GS_COLL_ALLREDUCE && !strcmp(algo, "halving-doubling")) {
		/* gloo's AllreduceHalvingDoubling, Open MPI's recursive halving
		 * reduce-scatter and doubling allgather */
		h->algo = GS_ALGO_HD;
		int g = gs_group_n(p);
		if (g & (g - 1))
			return gc_config_error(cfg, "collective.algo", errmsg,
					       "halving-doubling needs a power-of-two count of ranks, "
					       "and this communicator has %d (gloo's binary blocks and "
					       "MPI's folding of the extra ranks are not modelled); give "
					       "collective.algo ring",
					       g);
	} else if (p->coll != GS_COLL_SENDRECV && gc_config_is_set(cfg, "collective.algo") &&
		   strcmp(algo, "auto") != 0 && strcmp(algo, gs_algo_name(want)) != 0)
		return gc_config_error(cfg, "collective.algo", errmsg,
				       "collective.backend %s runs %s as %s%s, not %s; give "
				       "collective.algo %s or auto",
				       b, gs_coll_name(p->coll), gs_algo_name(want),
				       p->coll == GS_COLL_ALLREDUCE ? " or halving-doubling" : "", algo,
				       gs_algo_name(want));
	const char *fid = gc_config_str(cfg, "sim.fidelity");
	if (strcmp(fid, "flow") != 0)
		return gc_config_error(cfg,
				       gc_config_is_set(cfg, "sim.fidelity") ? "sim.fidelity"
									      : "collective.backend",
				       errmsg,
				       "collective.backend %s runs under sim.fidelity flow only (its "
				       "asynchronous sends and CPU reductions are the flow executor's), "
				       "not %s",
				       b, fid);
	h->cuda_aware = h->kind == GM_BACKEND_MPI && gc_config_bool(cfg, "mpi.cuda_aware");
	h->staged = !h->cuda_aware || reduces(p->coll);
	h->pcie_Bps = t->pcie.bw_Bps;
	/* a message between nodes crosses the wire and switch with no GPU
	 * proxy on its way: the NIC link's physical latency (the topology's
	 * default is NCCL's tuning figure, its proxy included) */
	h->nic_lat_given = gc_config_is_set(cfg, "topology.nic.latency");
	h->nic_lat_ps = h->nic_lat_given ? t->nic.lat_ps : gm_xport_nic_latency_ps(cfg);
	h->cudamemcpy_ps = gc_config_time(cfg, "host.cudamemcpy_call");
	/* a sum reads two operands and writes one, three bytes of memory
	 * traffic per byte where a copy moves two: at the same memory-bound
	 * rate, two thirds of a copy's */
	h->reduce_Bps = gc_config_bw(cfg, "host.memcpy_bw") * 2.0 / 3.0;
	if (h->kind == GM_BACKEND_GLOO) {
		h->intra_Bps = h->inter_Bps = gc_config_bw(cfg, "gloo.tcp_stream_bw");
		h->intra_ps = h->inter_ps = gc_config_time(cfg, "gloo.tcp_latency");
		double nic = gc_config_bw(cfg, "gloo.nic_bandwidth");
		h->nic_Bps = nic > 0 ? nic : t->nic.bw_Bps;
		h->nic_from_gloo = nic > 0;
		h->nic_share = t->gpus_per_node;
		h->segment = gc_config_bytes(cfg, "gloo.segment");
	} else {
		h->intra_Bps = gc_config_bw(cfg, "host.memcpy_bw");
		h->intra_ps = gc_config_time(cfg, "mpi.shm_latency");
		h->inter_Bps = t->pcie.bw_Bps;
		h->inter_ps = gc_config_time(cfg, "mpi.latency");
		h->nic_Bps = t->nic.bw_Bps;
		h->nic_share = t->nic_share > 0 ? t->nic_share : 1;
		h->segment = gc_config_bytes(cfg, "mpi.segment");
	}
	return GC_OK;
}

static uint64_t round_up(uint64_t x, uint64_t m)
{
	return (x + m - 1) / m * m;
}

void gm_host_setup(const gm_host *h, const gt_topo *gpu, const gs_params *base, uint64_t bytes,
		   gs_params *p, gt_topo *t, gm_coll_opts *co)
{
	*p = *base;
	p->bytes = bytes;
	p->nchannels = 1;
	p->ring_pairs = 0; /* the libraries' rings run in rank order */
	if (p->coll != GS_COLL_SENDRECV)
		p->algo = h->algo;
	const uint64_t elem = gs_dtype_size(p->dtype);
	uint64_t seg = h->segment, n = (uint64_t)gs_group_n(p), chunk;
	if (p->coll == GS_COLL_ALLREDUCE) {
		/* gloo/allreduce.cc: numSegments = roundUp(max(ceil(bytes /
		 * maxSegment), 2 n), n), segmentBytes = roundUp(ceil(bytes /
		 * numSegments), element); each process's chunk is numSegments /
		 * n of them */
		uint64_t nseg = round_up(MAX((bytes + seg - 1) / seg, 2 * n), n);
		seg = MAX(round_up((bytes + nseg - 1) / nseg, elem), elem);
		chunk = nseg / n * seg;
	} else if (p->coll == GS_COLL_ALLGATHER || p->coll == GS_COLL_REDUCESCATTER) {
		chunk = MAX(round_up(bytes / n, elem), elem); /* one process's block */
	} else if (p->coll == GS_COLL_BROADCAST || p->coll == GS_COLL_REDUCE) {
		chunk = MAX(round_up(bytes, elem), elem); /* the whole buffer down the chain */
	} else if (p->coll == GS_COLL_ALLTOALL) {
		/* every block posted at once, whole (gloo/alltoall.cc; Open MPI's
		 * pairwise exchange) */
		chunk = seg = MAX(round_up(bytes / n, elem), elem);
	} else {
		chunk = seg; /* sendrecv's message, a segment at a time */
	}
	seg = MAX(round_up(MIN(seg, chunk), elem), elem);
	chunk = MIN(MAX(chunk, seg), (UINT64_C(1) << 40) / elem * elem /* gs_gen's largest chunk */);
	/* a chunk's segments follow one another through the ring, each
	 * received, summed and sent on while the next arrive */
	p->chunk_bytes = chunk;
	p->slice_bytes = seg;
	*t = *gpu;
	memset(t->lat_scale, 0, sizeof(t->lat_scale));
	memset(t->bw_class_scale, 0, sizeof(t->bw_class_scale));
	t->bw_scale = 1.0;
	t->chan_cap_Bps = 0;
	t->chan_links = 0;
	t->sharp = false;
	t->nic.lat_ps = h->nic_lat_ps;
	if (h->staged) {
		t->host = true;
		t->intra = GT_INTRA_NVSWITCH;
		t->bridge.bw_Bps = 0;
		t->pxn = false;
		t->launch_ps = 0;
		t->nvlink = (gt_link_spec){h->intra_Bps, h->intra_ps};
		t->pcie = (gt_link_spec){h->inter_Bps, h->inter_ps};
		t->nic.bw_Bps = h->nic_Bps;
		t->nic_share = h->nic_share;
	} else {
		/* cuda-aware MPI between GPU buffers: CUDA IPC over the node's
		 * links, GPUDirect RDMA through the GPU's NIC, the library's
		 * software latency on each message */
		t->nvlink.lat_ps += h->intra_ps;
		t->pcie.lat_ps += h->inter_ps;
	}
	/* gloo posts its receives two segments ahead; the ring's first step
	 * sends the process's whole chunk before it receives, which the
	 * schedule's receive buffer must hold (at these rates the window
	 * bounds nothing) */
	co->buffer_bytes = MAX(2 * seg, chunk);
	co->async_sends = true;
	co->reduce_Bps = h->staged ? h->reduce_Bps : 0;
	co->xport = NULL;
	co->xport_ll = false;
	co->net_send_proxy = false;
	co->gpus_per_thread = 1;
	co->enqueue_ps = 0;
}

/* Bytes per rank of p's input and output buffers. */
static void buffers(const gs_params *p, uint64_t *in, uint64_t *out)
{
	uint64_t n = (uint64_t)gs_group_n(p);
	*in = *out = p->bytes;
	if (p->coll == GS_COLL_ALLGATHER)
		*in = p->bytes / n;
	else if (p->coll == GS_COLL_REDUCESCATTER)
		*out = p->bytes / n;
}

static int64_t copy_ps(const gm_host *h, uint64_t bytes)
{
	if (!h->staged || bytes == 0)
		return 0;
	return h->cudamemcpy_ps + (int64_t)llround((double)bytes / h->pcie_Bps * 1e12);
}

int64_t gm_host_copy_in_ps(const gm_host *h, const gs_params *p)
{
	uint64_t in, out;
	buffers(p, &in, &out);
	return copy_ps(h, in);
}

int64_t gm_host_copy_out_ps(const gm_host *h, const gs_params *p)
{
	uint64_t in, out;
	buffers(p, &in, &out);
	return copy_ps(h, out);
}

void gm_host_describe(const gm_host *h, const gs_params *p, char *buf, size_t n)
{
	char b1[32], b2[32], b3[32];
	if (h->kind == GM_BACKEND_GLOO)
		snprintf(buf, n,
			 "gloo: %s in host processes over TCP (one stream %s per connection, %s "
			 "one-way software latency), segments up to %s, two in flight; staged "
			 "through host memory (cudaMemcpy over PCIe); CPU sums at %.3g GB/s",
			 gs_algo_name(h->algo), gc_fmt_bw_Bps(h->inter_Bps, b1, sizeof(b1)),
			 gc_fmt_time_ps(h->inter_ps, b2, sizeof(b2)),
			 gc_fmt_bytes(h->segment, b3, sizeof(b3)), h->reduce_Bps * 1e-9);
	else if (h->staged)
		snprintf(buf, n,
			 "mpi%s: %s in host processes (shared memory at %s inside a node, RDMA "
			 "from host memory across nodes), segments up to %s; staged through host "
			 "memory (cudaMemcpy over PCIe); CPU sums at %.3g GB/s",
			 h->cuda_aware ? " (cuda-aware, coll/cuda stages reductions)" : "",
			 gs_algo_name(h->algo), gc_fmt_bw_Bps(h->intra_Bps, b1, sizeof(b1)),
			 gc_fmt_bytes(h->segment, b2, sizeof(b2)), h->reduce_Bps * 1e-9);
	else
		snprintf(buf, n,
			 "mpi (cuda-aware): %s GPU to GPU (CUDA IPC inside a node, GPUDirect RDMA "
			 "across), segments up to %s; nothing staged",
			 gs_algo_name(h->algo), gc_fmt_bytes(h->segment, b1, sizeof(b1)));
}
