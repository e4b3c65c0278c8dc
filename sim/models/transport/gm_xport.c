/* SPDX-License-Identifier: MIT */
/*
 * gm_xport: the transports of a run's network messages as stages over the
 * communication-type components (see gm_xport.h).
 *
 * Sources of the stages:
 *  - nccl: NVIDIA/nccl src/transport/net.cc (sendProxyProgress: the proxy
 *    waits for the GPU's tail, ncclNetIsend per step of NCCL_STEPS;
 *    recvProxyProgress: ncclNetTest on the posted receives, then the tail
 *    the receiving GPU polls, kept in host memory for the NET transport),
 *    src/proxy.cc (one progress thread per GPU walks all its connections),
 *    src/transport/net_ib.cc (an RDMA write with immediate per send, one
 *    ibv_post_send with the doorbell; the receiver's clear-to-send is an
 *    RDMA write into the sender's FIFO). LL and LL128 carry a flag in every
 *    line, so the receiving GPU polls its own buffer and does not wait for
 *    the proxy (src/device/prims_ll.h).
 *  - ibrc: NVSHMEM src/host/proxy/proxy.cpp (one proxy thread per PE polls
 *    the channel FIFO the GPU writes in host-pinned memory) and
 *    src/modules/transport/ibrc (one signalled ibv_post_send per request).
 *    On EFA NVSHMEM's libfabric transport runs the same proxy; SRD is
 *    unordered, so a signal cannot ride behind the data: the receiving
 *    proxy counts the completion and sets the flag (here through GDRCopy).
 *  - ibgda: NVSHMEM src/include/device_host_transport/nvshmem_common_ibgda.h
 *    and ibgda device code: the GPU writes the WQE into its queue in GPU
 *    memory, fences, and rings the NIC's doorbell with an MMIO store; the
 *    NIC fetches the WQE from GPU memory.
 *  - fabric: pplx-garden (perplexityai/pplx-garden p2p-all-to-all
 *    src/a2a_worker.rs, fabric-lib): a worker thread per GPU waits for the
 *    kernel's flag (a GdrFlag, read through GDRCopy), then submits every
 *    rank's range as one RDMA write with immediate data, sharded over the
 *    GPU's NICs; the receiving worker's ImmCounter counts the immediates
 *    from its completion queue and, once all have come, sets the kernel's
 *    flag through GDRCopy. The routing exchange is such a write of its own.
 *  - gin: NCCL 2.28 GIN with the GDAKI back end (DOCA GPUNetIO), the same
 *    device-initiated post as IBGDA (arXiv 2511.15076). Its CPU-proxy back
 *    end (NVIDIA/nccl src/gin/gin_host_proxy.cc, device side
 *    src/include/nccl_device/gin/proxy/gin_proxy.h): a GPU thread claims a
 *    slot of the target's descriptor queue in host memory and writes the
 *    64-byte descriptor with write-through stores (postGfd); the proxy's
 *    progress pass (ncclGinProxyProgress) reads each target's queue, takes
 *    at most one descriptor from each, posts it through the RMA plugin and
 *    later tests its completion, which frees the slot for the GPU. On
 *    InfiniBand the post is an RDMA write chained with the signal's atomic
 *    fetch-and-add, one doorbell (src/transport/net_ib/gin.cc
 *    ncclRmaIbProxyIPutSignal), so the receiving GPU polls the signal; on
 *    EFA (aws-ofi-nccl src/rdma/gin/nccl_ofi_gin.cpp) writes with immediate
 *    data and a metadata send carry the signal, the receiving plugin's
 *    progress polls them and a GDRCopy worker thread writes the signal into
 *    GPU memory. aws-ofi-nccl's doc/gin-getting-started.md: NCCL 2.31
 *    defaults to the proxy on EFA.
 * The NIC's part (doorbell, work-request fetch, message stage, DMA read)
 * and every cost are the explain model's components (gm_tx_path.c,
 * gm_tx_params.c).
 */
#include "gm_xport.h"

#include <glib.h>
#include <string.h>

#include "../../ge_engine.h"

static const gc_param xport_params[] = {
	{"transport.inter", GC_P_ENUM, "none", "none|auto|nccl|ibrc|ibgda|gin|fabric", 1, 0,
	 "how a message crosses the network: none (a flow plus topology.nic.latency, NCCL's tuning "
	 "figure); nccl (NCCL's NET transport: a CPU proxy thread per GPU posts each slice, the "
	 "receiving proxy polls the completion; libfabric on EFA); ibrc (NVSHMEM's CPU proxy: each "
	 "put and signal a request in its FIFO); ibgda (NVSHMEM IBGDA: the GPU posts and rings the "
	 "doorbell); gin (NCCL GIN, device-initiated); fabric (pplx-garden's engine, for "
	 "collective.algo garden: a CPU worker per GPU writes each rank's range, the receiving "
	 "worker counts the writes and sets a GDRCopy flag); auto (the preset's: nccl for "
	 "collectives, for one-sided schedules ibgda where the NIC has GPUDirect Async, else ibrc; "
	 "fabric for garden)",
	 "NVIDIA/nccl src/transport/net.cc; NVSHMEM proxy and IBGDA; aws-ofi-nccl (docs/MODELS.md)"},
	{"transport.gin", GC_P_ENUM, "auto", "auto|gdaki|proxy", 1, 0,
	 "NCCL GIN's back end (transport.inter gin): gdaki (the GPU posts work requests and rings "
	 "the doorbell, GPUDirect Async); proxy (the GPU writes a descriptor into a queue in host "
	 "memory, NCCL's CPU proxy thread posts it); auto (gdaki where the NIC has GPUDirect "
	 "Async, else proxy: NCCL 2.31's default on EFA)",
	 "NVIDIA/nccl src/gin/gin_host_proxy.cc; aws-ofi-nccl doc/gin-getting-started.md"},
};

void gm_xport_register_params(gc_config *cfg)
{
	gc_config_add_params(cfg, xport_params, G_N_ELEMENTS(xport_params));
}

const char *gm_xport_choices(void)
{
	return "none|nccl|ibrc|ibgda|gin|fabric";
}

static int64_t ps_of(double bytes, double Bps)
{
	return ge_ps_sat(bytes / Bps * 1e12);
}

int64_t gm_xport_nic_latency_ps(const gc_config *cfg)
{
	return 2 * gc_config_time(cfg, "pcie.latency") + gc_config_time(cfg, "wire.latency") +
	       gc_config_time(cfg, "switch.latency");
}

/* ---- stage lists ------------------------------------------------------------- */

static gm_xport_stage *push(gm_xport_path *h, gm_xport_stage_kind k, int64_t ps, const char *actor,
			    const char *rule, const char *action)
{
	g_assert(h->nstages < GM_XPORT_MAX_STAGES);
	gm_xport_stage *s = &h->st[h->nstages++];
	*s = (gm_xport_stage){.kind = k, .ps = ps, .actor = actor, .rule = rule, .action = action};
	return s;
}

static void poll(gm_xport_path *h, gm_xport_stage_kind k, int64_t read, int64_t period, const char *actor,
		 const char *rule, const char *action)
{
	push(h, k, read, actor, rule, action)->period_ps = period;
}

/* The proxy reads a request or a tail the GPU wrote (proxy.flag_read). */
static int64_t flag_read(const gm_tx_params *p, const char **rule)
{
	switch (p->flag_read) {
	case GM_TX_FLAG_CUDAMEMCPY:
		*rule = "host.cudamemcpy_call + pcie.latency";
		return p->cudamemcpy_ps + p->pcie_lat_ps;
	case GM_TX_FLAG_GDRCOPY:
		*rule = "gdrcopy.read_8B";
		return p->gdr_read_ps;
	default:
		*rule = "host.mem_latency";
		return p->mem_lat_ps;
	}
}

/* The NIC's part once the post's doorbell is rung, up to the data. */
static void nic_part(gm_xport_path *h, const gm_tx_params *p, bool wqe_in_gpu)
{
	push(h, GM_XS_DELAY, p->pcie_lat_ps, "PCIe", "pcie.latency", "the doorbell write crosses PCIe to the NIC");
	push(h, GM_XS_DELAY, 2 * p->pcie_lat_ps + ps_of(64, p->pcie_Bps), "NIC",
	     "2 x pcie.latency + 64 B / pcie.bandwidth",
	     wqe_in_gpu ? "fetches the 64 B work request from GPU memory (a PCIe read round trip)"
			: "fetches the 64 B work request from host memory (a PCIe read round trip)");
	push(h, GM_XS_NIC, ps_of(1.0, p->nic_msg_rate), "NIC", "1 / nic.msg_rate",
	     "processes the work request (message-rate stage, one per NIC)");
	h->data = h->nstages;
	push(h, GM_XS_DATA, p->pcie_lat_ps, "NIC -> wire -> remote NIC",
	     "pcie.latency + route latency + bytes / bottleneck",
	     "reads the payload from GPU A's memory by DMA (GPUDirect RDMA), sends it over the wire; "
	     "the remote NIC writes it into GPU B's memory");
}

/* The sender's part of a proxy transport: the GPU's hand-off (a tail or a
 * request in host-pinned memory), the proxy's turn, the post. */
static void proxy_send(gm_xport_path *h, const gm_tx_params *p, bool nccl, bool amo, bool recv_poll)
{
	const char *rule;
	int64_t rd = flag_read(p, &rule);
	if (nccl) {
		push(h, GM_XS_DELAY, p->fence_ps, "SM (GPU A)", "gpu.fence",
		     "fences so the slice it wrote into the send buffer is visible to the NIC");
		push(h, GM_XS_DELAY, p->store_issue_ps, "SM (GPU A)", "gpu.store_issue",
		     "stores the connection's tail (the step it has filled) for the proxy");
	} else {
		push(h, GM_XS_DELAY, p->store_issue_ps, "SM (GPU A)", "gpu.store_issue",
		     "writes a put request into the proxy's FIFO");
	}
	h->ngpu = h->nstages;
	if (p->flag_read == GM_TX_FLAG_HOSTPINNED)
		push(h, GM_XS_DELAY, p->pcie_lat_ps, "PCIe", "pcie.latency",
		     "the write crosses PCIe into host memory (posted)");
	if (p->proxy_post == GM_TX_POST_SINGLE) {
		poll(h, GM_XS_PROXY_POLL, rd, rd + p->proxy_poll_ps, "CPU proxy (GPU A)", rule,
		     nccl ? "the GPU's proxy thread, walking its connections, reads the tail and finds the "
			    "slice"
			  : "the PE's proxy thread polls its FIFO and finds the request");
		push(h, GM_XS_PROXY_WORK,
		     p->proxy_req_ps + (recv_poll ? p->cq_poll_ps : 0) + p->post_send_ps + p->mmio_write_ps,
		     "CPU proxy (GPU A)",
		     recv_poll ? "proxy.request_cost + host.cq_poll + host.post_send + pcie.mmio_write"
			       : "proxy.request_cost + host.post_send + pcie.mmio_write",
		     nccl ? "posts the slice as an RDMA write with immediate (ncclNetIsend: one ibv_post_send "
			    "or libfabric write) and rings the doorbell"
		     : recv_poll ? "polls its receive queue once for incoming atomics and acknowledgements "
				   "(check_poll_avail -> progress_recv), builds the RDMA write for the request, "
				   "posts it signalled and rings the doorbell"
				 : "builds the RDMA write for the request, posts it signalled and rings the doorbell");
		push(h, GM_XS_PROXY_BG, p->cq_poll_ps, "CPU proxy (GPU A)", "host.cq_poll",
		     nccl ? "later reaps the send's completion (ncclNetTest), off the message's path"
			  : "later reaps the signalled request's completion (one CQE per ibv_poll_cq), off the "
			    "message's path");
	} else {
		/* chained: a turn's requests go in one post, one doorbell and
		 * one completion, paid with the turn's read */
		poll(h, GM_XS_PROXY_POLL, rd + p->mmio_write_ps + p->cq_poll_ps,
		     rd + p->mmio_write_ps + p->cq_poll_ps + p->proxy_poll_ps, "CPU proxy (GPU A)",
		     p->flag_read == GM_TX_FLAG_GDRCOPY ? "gdrcopy.read_8B + pcie.mmio_write + host.cq_poll"
		     : p->flag_read == GM_TX_FLAG_CUDAMEMCPY
			     ? "host.cudamemcpy_call + pcie.latency + pcie.mmio_write + host.cq_poll"
			     : "host.mem_latency + pcie.mmio_write + host.cq_poll",
		     "the proxy thread's turn: it reads the requests, rings the doorbell once for the turn's "
		     "chained post and reaps its one completion");
		push(h, GM_XS_PROXY_WORK, p->proxy_req_ps + p->post_send_ps, "CPU proxy (GPU A)",
		     "proxy.request_cost + host.post_send",
		     "builds the request's work request and links it into the turn's post");
	}
	if (amo)
		push(h, GM_XS_PROXY_BG, p->cq_poll_ps + p->post_send_ps, "CPU proxy (GPU A)",
		     "host.cq_poll + host.post_send",
		     "later reaps the target's acknowledgement (a receive completion) and re-posts that "
		     "receive buffer, off the message's path");
	nic_part(h, p, false);
}

/* A CPU thread (actor) posts one work request and rings the doorbell
 * (action), later reaps its completion off the message's path (reap), and
 * the NIC takes the request from host memory. */
static void post_one(gm_xport_path *h, const gm_tx_params *p, const char *actor, const char *action,
		     const char *reap)
{
	push(h, GM_XS_PROXY_WORK, p->proxy_req_ps + p->post_send_ps + p->mmio_write_ps, actor,
	     "proxy.request_cost + host.post_send + pcie.mmio_write", action);
	push(h, GM_XS_PROXY_BG, p->cq_poll_ps, actor, "host.cq_poll", reap);
	nic_part(h, p, false);
}

/* The sender's part of NCCL GIN's CPU-proxy back end (gin_proxy.h
 * postGfd, gin_host_proxy.cc ncclGinProxyProgress): the descriptor queues
 * are in host memory, one per target, and a pass of the proxy reads each
 * and takes at most one descriptor from it, so every descriptor is a read
 * of a line the GPU wrote (the empty queues' lines stay in the CPU's cache
 * and are not charged). */
static void gin_proxy_send(gm_xport_path *h, const gm_tx_params *p, gm_xport_msg k)
{
	const bool efa = p->nic_kind == GM_TX_NIC_EFA, sig = k != GM_XM_PUT;
	push(h, GM_XS_DELAY, p->store_issue_ps, "SM (GPU A)", "gpu.store_issue",
	     "claims a slot of the target's descriptor queue and writes the 64-byte descriptor into "
	     "host memory with write-through stores (postGfd)");
	h->ngpu = h->nstages;
	push(h, GM_XS_DELAY, p->pcie_lat_ps, "PCIe", "pcie.latency",
	     "the descriptor crosses PCIe into host memory (posted writes)");
	poll(h, GM_XS_PROXY_POLL, p->mem_lat_ps, p->mem_lat_ps + p->proxy_poll_ps, "CPU proxy (GPU A)",
	     "host.mem_latency",
	     "the proxy's progress pass reads the target's queue and finds the descriptor (one per "
	     "target a pass)");
	const char *what =
		efa ? (sig ? "posts the metadata send that carries the signal through libfabric "
			     "(aws-ofi-nccl iputSignal) and rings the doorbell"
			   : "posts the put as writes with immediate data (the op's sequence number) "
			     "through libfabric and rings the doorbell")
		: sig ? "posts the signal's atomic fetch-and-add, chained behind the put on the same "
			"queue pair (ncclRmaIbProxyIPutSignal), and rings the doorbell"
		      : "posts the put as an RDMA write (one ibv_post_send) and rings the doorbell";
	post_one(h, p, "CPU proxy (GPU A)", what,
		 "later tests the request's completion and moves the queue's consumer index on, "
		 "freeing the slot for the GPU, off the message's path");
}

/* The sender's part of a device-initiated transport. */
static void device_send(gm_xport_path *h, const gm_tx_params *p)
{
	push(h, GM_XS_DELAY, p->wqe_build_ps, "SM (GPU A)", "gpu.wqe_build",
	     "a GPU thread builds the RDMA write's work request in GPU memory");
	push(h, GM_XS_DELAY, p->fence_ps, "SM (GPU A)", "gpu.fence",
	     "fences so the payload and the work request are visible to the NIC");
	if (p->queues > 0)
		push(h, GM_XS_GPU_SQ, p->publish_ps, "SM (GPU A)", "gpu.publish (gpu.queues)",
		     "publishes the entry in order on its queue pair to the peer, one of gpu.queues "
		     "the CTAs share (CTA c on queue c mod gpu.queues)");
	push(h, GM_XS_DELAY, p->store_issue_ps, "SM (GPU A)", "gpu.store_issue",
	     "rings the NIC's doorbell (an MMIO store from the GPU)");
	h->ngpu = h->nstages;
	nic_part(h, p, true);
}

/* The receiving GPU polls a flag in its own memory (behind the data on an
 * ordered transport, or the LL flags in every line). */
static void gpu_sees(gm_xport_path *h, const gm_tx_params *p, const char *what)
{
	poll(h, GM_XS_POLL, p->poll_ps, p->poll_ps, "SM (GPU B)", "next poll + gpu.poll_interval", what);
}

/* How the receiving proxy hands a message to its GPU: NCCL's tail in host
 * memory; a flag it sets through GDRCopy (a signal on EFA, where SRD cannot
 * order it behind the data); the same flag written by a GDRCopy worker
 * thread of aws-ofi-nccl's GIN plugin, off the proxy thread; or, for a
 * signal of its own on NVSHMEM IBRC with GDRCopy (ibrc.cpp), the flag
 * written for an atomic SEND that the target's proxy takes from its
 * receive queue and acknowledges with a SEND of its own. */
typedef enum { RECV_NCCL_TAIL, RECV_GDR_FLAG, RECV_GIN_WORKER, RECV_AMO } recv_kind;

/* The receiving proxy polls the completion and tells the GPU. */
static void proxy_recv(gm_xport_path *h, const gm_tx_params *p, recv_kind how)
{
	const bool nccl = how == RECV_NCCL_TAIL, amo = how == RECV_AMO, gin = how == RECV_GIN_WORKER;
	push(h, GM_XS_DELAY, p->pcie_lat_ps, "remote NIC", "pcie.latency",
	     amo   ? "writes the receive completion of the atomic's SEND into host memory"
	     : gin ? "writes the completion of the signal's metadata send into host memory"
		   : "writes the completion (the write's immediate) into host memory");
	poll(h, GM_XS_PROXY_POLL, p->cq_poll_ps, p->cq_poll_ps + p->proxy_poll_ps, "CPU proxy (GPU B)",
	     "next poll + host.cq_poll",
	     nccl  ? "the receiving GPU's proxy polls its completion queue (ncclNetTest) and sees the slice"
	     : amo ? "the target's proxy polls its receive queue (poll_recv) and finds the atomic"
	     : gin ? "the receiving GPU's proxy thread polls the plugin's completion queue and finds the "
		     "signal, every write of its op landed"
		   : "the receiving proxy polls its completion queue and counts the completion");
	if (nccl) {
		push(h, GM_XS_PROXY_WORK, p->mem_lat_ps, "CPU proxy (GPU B)", "host.mem_latency",
		     "stores the connection's tail into host memory for the GPU");
		poll(h, GM_XS_POLL, 2 * p->pcie_lat_ps, 2 * p->pcie_lat_ps, "SM (GPU B)",
		     "next poll + 2 x pcie.latency",
		     "a thread of GPU B polls the tail in host memory (each poll a PCIe read round trip) "
		     "and sees it");
		return;
	}
	if (amo)
		push(h, GM_XS_PROXY_WORK, 2 * p->post_send_ps + p->gdr_write_ps + p->mmio_write_ps + p->cq_poll_ps,
		     "CPU proxy (GPU B)", "2 x host.post_send + gdrcopy.write_8B + pcie.mmio_write + host.cq_poll",
		     "re-posts the receive buffer, writes the word into GPU B's memory through GDRCopy "
		     "(perform_gdrcopy_amo), posts the acknowledgement SEND with its doorbell and later reaps "
		     "its completion");
	else if (gin)
		push(h, GM_XS_DELAY, p->gdr_write_ps, "GDRCopy worker (GPU B)", "gdrcopy.write_8B",
		     "the plugin's GDRCopy worker thread writes the signal into GPU B's memory");
	else
		push(h, GM_XS_PROXY_WORK, p->gdr_write_ps, "CPU proxy (GPU B)", "gdrcopy.write_8B",
		     "sets GPU B's flag through a GDRCopy mapping");
	push(h, GM_XS_DELAY, p->pcie_lat_ps, "PCIe", "pcie.latency", "the flag crosses PCIe into GPU B");
	gpu_sees(h, p, "a thread of GPU B spinning on the flag sees it");
}

/* The sender's part of pplx-garden's engine: the worker reads the
 * kernel's flag once for all the ranges it then posts. */
static void fabric_send(gm_xport_path *h, const gm_tx_params *p)
{
	push(h, GM_XS_DELAY, p->store_issue_ps, "SM (GPU A)", "gpu.store_issue",
	     "the kernel, its tokens packed, raises its flag for the worker (GDRCopy-mapped)");
	h->ngpu = h->nstages;
	poll(h, GM_XS_PROXY_POLL, p->gdr_read_ps, p->gdr_read_ps + p->proxy_poll_ps, "CPU worker (GPU A)",
	     "gdrcopy.read_8B",
	     "the GPU's worker thread reads the flag through GDRCopy and finds every range ready (one "
	     "read for all of them)");
	post_one(h, p, "CPU worker (GPU A)",
		 "posts the range as one RDMA write with immediate data (fabric-lib, sharded over the GPU's "
		 "NICs) and rings the doorbell",
		 "later reaps the write's completion, off the message's path");
}

static void build_paths(gm_xport *x)
{
	const gm_tx_params *p = &x->p;
	const bool efa = p->nic_kind == GM_TX_NIC_EFA;
	/* NVSHMEM IBRC with GDRCopy: before every request the proxy polls its
	 * receive queue (ibrc.cpp: progress_recv is set when GDRCopy is in use,
	 * and nvshmemt_ib_common_check_poll_avail calls it in every rma and
	 * amo) */
	const bool recv_poll = x->kind == GM_XPORT_IBRC && !efa && p->proxy_amo == GM_TX_AMO_GDRCOPY;
	for (int k = 0; k < GM_XM__COUNT; k++) {
		gm_xport_path *h = &x->path[k];
		memset(h, 0, sizeof(*h));
		if (x->kind == GM_XPORT_FABRIC) {
			if (k == GM_XM_SIGNAL) { /* the immediate of the range before it */
				h->data = h->nstages;
				push(h, GM_XS_DATA, 0, "NIC -> wire -> remote NIC", "route latency",
				     "the write's immediate data arrives with its last bytes");
			} else {
				fabric_send(h, p);
			}
			if (k != GM_XM_PUT)
				proxy_recv(h, p, RECV_GDR_FLAG);
			continue;
		}
		if (x->gin_proxy) {
			gin_proxy_send(h, p, (gm_xport_msg)k);
			if (k == GM_XM_PUT)
				continue;
			if (efa) /* the plugin's progress finds the signal, a worker writes it */
				proxy_recv(h, p, RECV_GIN_WORKER);
			else
				gpu_sees(h, p, "a thread of GPU B spinning on the signal (the NIC's atomic, behind "
					       "the write on the same queue pair) sees it");
			continue;
		}
		if (x->kind == GM_XPORT_NCCL || x->kind == GM_XPORT_IBRC)
			proxy_send(h, p, x->kind == GM_XPORT_NCCL, false, recv_poll);
		else
			device_send(h, p);
		if (k == GM_XM_PUT)
			continue; /* nobody waits on a put by itself */
		if (k == GM_XM_AMO && x->kind == GM_XPORT_IBRC && !efa && p->proxy_amo == GM_TX_AMO_GDRCOPY) {
			/* the sender's proxy also reaps the acknowledgement (a
			 * receive completion) and re-posts its buffer: charged with
			 * its post, on the same thread */
			/* the sender's proxy posts it as a SEND, and also reaps the
			 * acknowledgement and re-posts that receive buffer */
			memset(h, 0, sizeof(*h));
			proxy_send(h, p, false, true, recv_poll);
			proxy_recv(h, p, RECV_AMO);
			x->amo_acked = true;
			continue;
		}
		if (x->kind == GM_XPORT_NCCL) {
			if (k == GM_XM_SEND_LL)
				gpu_sees(h, p, "a thread of GPU B polls the LL flags that came with the data");
			else
				proxy_recv(h, p, RECV_NCCL_TAIL);
		} else if (efa) {
			proxy_recv(h, p, RECV_GDR_FLAG); /* SRD: no signal can follow the data */
		} else {
			gpu_sees(h, p, "a thread of GPU B spinning on the signal, written behind the data, sees it");
		}
	}
	/* two-sided: the slot goes back as the receiver's head, seen by its
	 * proxy, a receive posted and its clear-to-send written into the
	 * sender's FIFO over the network (NCCL), or as a GPU-posted write of
	 * the head (device-initiated); the route's latency is the executor's */
	if (x->kind == GM_XPORT_NCCL || x->kind == GM_XPORT_IBRC || x->gin_proxy ||
	    x->kind == GM_XPORT_FABRIC) {
		x->credit_ps = p->store_issue_ps + p->pcie_lat_ps + p->mem_lat_ps + p->proxy_req_ps +
			       p->post_send_ps + p->mmio_write_ps + 3 * p->pcie_lat_ps + ps_of(64, p->pcie_Bps) +
			       ps_of(1.0, p->nic_msg_rate) + p->pcie_lat_ps + p->mem_lat_ps;
	} else {
		x->credit_ps = p->wqe_build_ps + p->fence_ps + p->store_issue_ps + 3 * p->pcie_lat_ps +
			       ps_of(64, p->pcie_Bps) + ps_of(1.0, p->nic_msg_rate) + p->pcie_lat_ps + p->poll_ps;
	}
}

/* The taxonomy platform whose component defaults a topology preset takes. */
const char *gm_xport_platform(const char *preset)
{
	if (!strcmp(preset, "p5") || !strcmp(preset, "p5en"))
		return "p5";
	if (!strcmp(preset, "p4d"))
		return "p4d";
	if (!strcmp(preset, "dgx-a100"))
		return "dgx-a100";
	return "dgx-h100";
}

gc_status gm_xport_build(const gc_config *cfg, const gt_topo *topo, bool one_sided, bool garden,
			 gm_xport *x, char **errmsg)
{
	memset(x, 0, sizeof(*x));
	const char *name = gc_config_str(cfg, "transport.inter");
	x->name = name;
	if (!strcmp(name, "none"))
		return GC_OK;
	if (topo->kind != GT_DGX)
		return gc_config_error(cfg, "transport.inter", errmsg,
				       "%s needs nodes with NICs (topology.kind dgx or a preset); a flat "
				       "topology's links have no NIC to post to",
				       name);
	gm_tx_params_read(cfg, gm_xport_platform(topo->preset), &x->p);
	/* the links the data crosses are the topology's */
	x->p.pcie_Bps = topo->pcie.bw_Bps;
	x->p.nic_Bps = topo->nic.bw_Bps;
	x->p.nvlink_Bps = topo->nvlink.bw_Bps;
	if (!x->p.has_gdr)
		return gc_config_error(cfg, "caps.gdr", errmsg,
				       "false: the NIC cannot reach GPU memory, and transport.inter %s "
				       "moves data by GPUDirect RDMA; host-staged network transports are "
				       "not modelled by run (gcsim explain --path inter:1 or inter:2)",
				       name);
	if (!strcmp(name, "auto")) { /* the preset's */
		x->chosen = one_sided && !garden;
		name = garden ? "fabric" : !one_sided ? "nccl" : x->p.has_gpudirect_async ? "ibgda" : "ibrc";
	}
	x->name = name;
	if (garden != !strcmp(name, "fabric"))
		return gc_config_error(
			cfg, "transport.inter", errmsg,
			garden ? "%s: collective.algo garden posts its writes from pplx-garden's own engine; "
				 "use fabric (or auto)"
			       : "%s is pplx-garden's engine, which runs collective.algo garden (dispatch and "
				 "combine) only",
			name);
	if (!strcmp(name, "fabric")) {
		x->kind = GM_XPORT_FABRIC;
	} else if (!strcmp(name, "nccl")) {
		x->kind = GM_XPORT_NCCL;
	} else if (!strcmp(name, "ibrc")) {
		x->kind = GM_XPORT_IBRC;
	} else if (!strcmp(name, "ibgda") || !strcmp(name, "gin")) {
		x->kind = name[0] == 'i' ? GM_XPORT_IBGDA : GM_XPORT_GIN;
		const char *be = x->kind == GM_XPORT_GIN ? gc_config_str(cfg, "transport.gin") : "gdaki";
		x->gin_proxy = !strcmp(be, "proxy") || (!strcmp(be, "auto") && !x->p.has_gpudirect_async);
		if (x->kind == GM_XPORT_GIN)
			x->chosen = !strcmp(be, "auto"); /* the back end by the NIC's GPUDirect Async */
		const char *nic = x->p.nic_kind == GM_TX_NIC_EFA
					  ? "EFA does not provide"
					  : "this NIC does not provide (caps.gpudirect_async=false)";
		if (!x->gin_proxy && !x->p.has_gpudirect_async) {
			if (x->kind == GM_XPORT_GIN)
				return gc_config_error(
					cfg, "transport.gin", errmsg,
					"gdaki needs the GPU to post work requests and ring the NIC's doorbell "
					"(GPUDirect Async), which %s; use proxy (NCCL's CPU proxy posts them) "
					"or auto",
					nic);
			return gc_config_error(cfg, "transport.inter", errmsg,
					       "ibgda needs the GPU to post work requests and ring the NIC's "
					       "doorbell (GPUDirect Async), which %s; use ibrc (NVSHMEM's CPU "
					       "proxy), gin (NCCL GIN, through its CPU proxy there) or nccl",
					       nic);
		}
	} else {
		return gc_config_error(cfg, "transport.inter", errmsg, "unknown transport '%s'", name);
	}
	/* GIN's proxy reads each descriptor's own line */
	x->proxy_batch = x->gin_proxy ? 1 : x->kind == GM_XPORT_FABRIC ? INT32_MAX : x->p.proxy_batch;
	x->queues = (x->kind == GM_XPORT_IBGDA || x->kind == GM_XPORT_GIN) && !x->gin_proxy ? x->p.queues : 0;
	x->p.queues = x->queues;
	build_paths(x);
	return GC_OK;
}

uint64_t gm_xport_amo_window(const gm_xport *x, int npes)
{
	const uint64_t qps = (uint64_t)npes * (uint64_t)(x->p.rc_per_pe + 1) + 1;
	return (uint64_t)x->p.srq_depth / (qps + 1);
}

const char *gm_xport_msg_name(gm_xport_msg k)
{
	static const char *const names[GM_XM__COUNT] = {"simple", "ll", "put", "signal", "amo"};
	return (unsigned)k < GM_XM__COUNT ? names[k] : "?";
}

gm_xport_msg gm_xport_msg_of(bool one_sided, bool signal, bool ll_flags)
{
	if (one_sided)
		return signal ? GM_XM_SIGNAL : GM_XM_PUT;
	return ll_flags ? GM_XM_SEND_LL : GM_XM_SEND;
}

/* ---- keys -------------------------------------------------------------------- */

static bool rules_name(const gm_xport *x, const char *key)
{
	const size_t n = strlen(key);
	for (int k = 0; k < GM_XM__COUNT; k++)
		for (int i = 0; i < x->path[k].nstages; i++) {
			const char *r = x->path[k].st[i].rule;
			for (const char *q = strstr(r, key); q; q = strstr(q + 1, key))
				if ((q == r || q[-1] == ' ') && (q[n] == 0 || q[n] == ' '))
					return true;
		}
	return false;
}

bool gm_xport_uses_key(const gm_xport *x, const char *key, const char **why)
{
	static const struct {
		const char *key, *why;
	} topo_twins[] = {
		{"nvlink.bandwidth", "run takes NVLink's rate from topology.nvlink.bandwidth"},
		{"nvlink.latency", "run takes NVLink's latency from topology.nvlink.latency"},
		{"pcie.bandwidth", "run takes PCIe's rate from topology.pcie.bandwidth"},
		{"nic.bandwidth", "run takes the NIC's rate from topology.nic.bandwidth"},
		{"gpu.launch_latency", "run takes a kernel's launch from topology.launch_latency"},
		{"caps.p2p", "run takes peer access inside a node from topology.pcie.p2p"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(topo_twins); i++)
		if (!strcmp(key, topo_twins[i].key)) {
			*why = topo_twins[i].why;
			return false;
		}
	if (x->kind == GM_XPORT_NONE) {
		*why = "transport.inter none sends network messages without a control path; name a "
		       "transport (nccl, ibrc, ibgda, gin) to use the component keys";
		return false;
	}
	if (!strcmp(key, "gpu.queues") && (x->kind == GM_XPORT_IBGDA || x->kind == GM_XPORT_GIN)) {
		if (!x->gin_proxy)
			return true; /* adds the shared queue's publish, or takes it away */
		*why = "GIN's CPU-proxy back end posts every descriptor from the proxy thread; gpu.queues "
		       "are the device-initiated back end's (transport.gin gdaki)";
		return false;
	}
	if (!strcmp(key, "transport.gin")) {
		if (x->kind == GM_XPORT_GIN)
			return true;
		*why = "it picks NCCL GIN's back end, and this run's transport.inter is not gin";
		return false;
	}
	if (!strcmp(key, "caps.gdr"))
		return true; /* every transport here moves data by GPUDirect RDMA, or is refused */
	if (x->kind == GM_XPORT_FABRIC) {
		static const struct {
			const char *key, *why;
		} fab[] = {
			{"caps.gpudirect_async", "pplx-garden's worker posts every write from the CPU"},
			{"nic.kind", "pplx-garden's engine takes the same steps on EFA and ConnectX (its "
				     "receiving worker counts the writes' immediates either way)"},
			{"proxy.batch", "pplx-garden's worker posts every range after one read of the "
					"kernel's flag"},
			{"proxy.flag_read", "pplx-garden's worker reads the kernel's flag through GDRCopy"},
			{"gpu.queues", "pplx-garden's worker posts every write; gpu.queues are the "
				       "device-initiated transports'"},
		};
		for (size_t i = 0; i < G_N_ELEMENTS(fab); i++)
			if (!strcmp(key, fab[i].key)) {
				*why = fab[i].why;
				return false;
			}
	}
	if (!strcmp(key, "caps.gpudirect_async")) {
		if (x->kind == GM_XPORT_IBGDA || (x->kind == GM_XPORT_GIN && !x->gin_proxy) || x->chosen)
			return true; /* refused without it; auto's pick */
		*why = x->kind == GM_XPORT_GIN
			       ? "transport.gin proxy posts through the CPU proxy whatever the NIC offers"
			       : "only the device-initiated transports (ibgda, gin) and auto's pick for a "
				 "one-sided schedule need GPUDirect Async";
		return false;
	}
	if (!strcmp(key, "nic.kind")) {
		if (x->kind != GM_XPORT_NCCL)
			return true; /* on EFA (SRD) a signal cannot follow the data */
		*why = "transport.inter nccl takes the same stages on InfiniBand and EFA here (its "
		       "receiving proxy polls the completion either way)";
		return false;
	}
	if (!strcmp(key, "wire.latency") || !strcmp(key, "switch.latency") || !strcmp(key, "pcie.latency"))
		return true; /* the NIC link's physical latency, and stages */
	bool proxy = x->kind == GM_XPORT_NCCL || x->kind == GM_XPORT_IBRC;
	if (proxy && (!strcmp(key, "proxy.batch") || !strcmp(key, "proxy.flag_read") ||
		      !strcmp(key, "proxy.poll_interval")))
		return true;
	if ((x->gin_proxy || x->kind == GM_XPORT_FABRIC) && !strcmp(key, "proxy.poll_interval"))
		return true;
	if (x->gin_proxy && (!strcmp(key, "proxy.batch") || !strcmp(key, "proxy.flag_read"))) {
		*why = "GIN's proxy reads every descriptor from its queue in host memory (one line each, "
		       "host.mem_latency); proxy.batch and proxy.flag_read are NCCL's NET and NVSHMEM's "
		       "proxies'";
		return false;
	}
	if (!strcmp(key, "proxy.srq_depth") || !strcmp(key, "proxy.rc_per_pe")) {
		if (x->amo_acked)
			return true; /* the window of unacknowledged atomics */
		*why = "it sets the window of atomics NVSHMEM's proxy (ibrc) emulates through the target's "
		       "proxy (proxy.amo gdrcopy, InfiniBand/RoCE); this run's transport emulates none";
		return false;
	}
	if (!strcmp(key, "proxy.amo")) {
		if (x->kind == GM_XPORT_IBRC && x->p.nic_kind != GM_TX_NIC_EFA)
			return true; /* a signal of its own: through the target's proxy, or native */
		*why = x->kind == GM_XPORT_IBRC ? "on EFA every signal goes through the target's proxy"
						: "only NVSHMEM's proxy transport (ibrc) emulates atomics";
		return false;
	}
	if (rules_name(x, key))
		return true;
	/* the flag-read methods' own costs, when another method is chosen */
	if (proxy && g_str_has_prefix(key, "gdrcopy.read") && x->p.flag_read != GM_TX_FLAG_GDRCOPY) {
		*why = "read by the proxy only with proxy.flag_read gdrcopy";
		return false;
	}
	if (proxy && !strcmp(key, "host.cudamemcpy_call") && x->p.flag_read != GM_TX_FLAG_CUDAMEMCPY) {
		*why = "paid by the proxy only with proxy.flag_read cudamemcpy";
		return false;
	}
	*why = proxy || x->gin_proxy || x->kind == GM_XPORT_FABRIC ? "no stage of this transport pays it (gcsim explain --transport lists them)"
		     : "no stage of a device-initiated transport pays it (gcsim explain --transport lists "
		       "them)";
	return false;
}

/* ---- explain's recipe -------------------------------------------------------- */

void gm_xport_recipe(const gm_xport *x, gm_xport_msg kind, uint64_t bytes, gm_tx_recipe *r)
{
	const gm_xport_path *h = &x->path[kind];
	static const char *const kind_names[] = {"send (Simple)", "send (LL/LL128)", "put", "put's signal",
						 "signal on its own"};
	memset(r, 0, sizeof(*r));
	g_snprintf(r->id, sizeof(r->id), "%s/%s", x->name, gm_xport_msg_name(kind));
	g_snprintf(r->name, sizeof(r->name), "%s%s, %s", x->name, x->gin_proxy ? " (CPU-proxy back end)" : "",
		   kind_names[kind]);
	r->issuers = 1;
	r->issuer_kind = x->kind == GM_XPORT_NCCL || x->kind == GM_XPORT_IBRC || x->gin_proxy ||
				 x->kind == GM_XPORT_FABRIC
			 ? "CPU thread"
			 : "CTA";
	r->release = h->ngpu > 0 ? h->ngpu - 1 : 0;
	for (int i = 0; i < h->nstages; i++) {
		const gm_xport_stage *s = &h->st[i];
		gm_tx_step *t = &r->steps[r->nsteps++];
		memset(t, 0, sizeof(*t));
		t->actor = s->actor;
		g_strlcpy(t->action, s->action, sizeof(t->action));
		g_strlcpy(t->rule, s->rule, sizeof(t->rule));
		t->fixed_ps = s->ps;
		t->period_ps = s->period_ps;
		t->receiver_side = i > h->data;
		/* each step follows the one before, except that nothing waits
		 * for work off the message's path */
		int dep = i - 1;
		while (dep >= 0 && h->st[dep].kind == GM_XS_PROXY_BG)
			dep--;
		if (dep >= 0) {
			t->deps[0] = dep;
			t->ndeps = 1;
		}
		switch (s->kind) {
		case GM_XS_POLL: t->res = GM_TX_R_POLL; break;
		case GM_XS_PROXY_POLL: t->res = GM_TX_R_PROXY_POLL; t->cpu = true; break;
		case GM_XS_PROXY_WORK:
		case GM_XS_PROXY_BG: t->res = GM_TX_R_PROXY_WORK; t->cpu = true; break;
		case GM_XS_NIC: t->res = GM_TX_R_NIC_TX; break;
		case GM_XS_GPU_SQ: t->res = GM_TX_R_GPU_SQ; break;
		case GM_XS_DATA:
			t->res = GM_TX_R_NET;
			t->bytes = (double)bytes;
			t->nhops = 6;
			t->route[0] = GM_TX_L_GPU_UP;
			t->route[1] = GM_TX_L_NIC_DOWN;
			t->route[2] = GM_TX_L_LINE;
			t->route[3] = GM_TX_L_WIRE;
			t->route[4] = GM_TX_L_RNIC_UP;
			t->route[5] = GM_TX_L_RGPU_DOWN;
			break;
		default: t->res = GM_TX_R_NONE; break;
		}
		if (t->cpu)
			r->cpu_critical = true;
		if (s->kind == GM_XS_PROXY_POLL)
			r->uses_proxy = true;
	}
}

int64_t gm_xport_latency_ps(const gm_xport *x, gm_xport_msg k)
{
	const gm_xport_path *h = &x->path[k];
	int64_t t = 0;
	for (int i = 0; i < h->nstages; i++) {
		const gm_xport_stage *s = &h->st[i];
		if (s->kind != GM_XS_PROXY_BG)
			t += s->ps + (s->kind == GM_XS_POLL || s->kind == GM_XS_PROXY_POLL ? s->period_ps / 2 : 0);
	}
	return t;
}
