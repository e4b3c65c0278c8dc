/* SPDX-License-Identifier: MIT */
/*
 * gm_xport: the transport a run's network messages take (transport.inter):
 * the control path each message pays on shared, queueing resources before
 * and after its data moves as a flow on the topology's route.
 *
 * A transport is a linear recipe of stages over the components of the
 * communication-type model (gm_tx.h: its parameters, gpu.*, pcie.*,
 * host.*, proxy.*, nic.*, ...), in three parts:
 *  - the sender's GPU part (the strand, a CTA, is busy: it builds a work
 *    request, fences, stores a flag or rings a doorbell);
 *  - the control path between the GPU's hand-off and the first byte on the
 *    wire: delays, turns of the sender's CPU proxy thread (one per GPU),
 *    the NIC's message-processing stage (one per NIC), then the DMA read
 *    request that starts the data;
 *  - the receiver's part after the last byte lands: the completion seen
 *    by the receiving proxy (a turn of its thread) and handed to the GPU,
 *    or a flag the receiving GPU polls in its own memory.
 * The flow and the packet fidelity run the stages around a message's
 * data (in packet mode its first packet leaves when the control path is
 * done, and the receiver's part starts when its last byte lands), the
 * breakdown puts each stage's time in its category (gm_cpath.h), and the
 * closed form adds each stage once (gm_xport_latency_ps).
 * The same stages are what `gcsim explain --transport` walks
 * (gm_xport_recipe turns them into a gm_tx recipe whose data step crosses
 * the same links), so a 2-rank message in `run` and the walk agree to the
 * picosecond.
 *
 * Transports (sources in gm_xport.c):
 *   nccl   NCCL's NET transport: the proxy thread progresses every network
 *          connection of its GPU (ibv_post_send on InfiniBand/RoCE, the
 *          libfabric provider on EFA); with Simple the receiving GPU waits
 *          for the tail its proxy writes after polling the completion, with
 *          LL/LL128 it polls the flags that arrive with the data
 *   ibrc   NVSHMEM's proxy transport (IBRC; on EFA its libfabric transport):
 *          every put and signal is a request the proxy takes from its FIFO
 *   ibgda  NVSHMEM IBGDA: the GPU builds the work request and rings the
 *          doorbell (no CPU); refused where the NIC has no GPUDirect Async
 *   gin    NCCL GIN (2.28+): with its GDAKI back end device-initiated as
 *          ibgda; with its CPU-proxy back end (transport.gin proxy, the
 *          choice of auto where the NIC has no GPUDirect Async: EFA) the GPU
 *          writes a descriptor into a queue in host memory that the proxy
 *          thread posts from, one descriptor a read
 *   fabric pplx-garden's engine (fabric-lib; collective.algo garden only): a
 *          CPU worker per GPU reads the kernel's flag through GDRCopy and
 *          posts each rank's range as one RDMA write with immediate data;
 *          the receiving worker counts the immediates and sets a flag in
 *          GPU memory through GDRCopy
 *   none   no control path: a message is a flow plus the NIC link's latency
 *          (topology.nic.latency, NCCL's tuning figure by default)
 *
 * Servers are reserved in hand-off order (a stage starts at the later of
 * its arrival and its server's free time), which is exact for one server's
 * own FIFO and keeps the executor free of per-stage events. The one
 * exception is NVSHMEM IBRC with GDRCopy atomics (amo_acked): what its
 * proxy thread does next depends on what comes back (incoming atomics it
 * takes between its own requests, acknowledgements that reopen its window),
 * so the executor runs each such thread as a server of its own, event by
 * event, for one-sided messages.
 */
#ifndef GM_XPORT_H
#define GM_XPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/gc_config.h"
#include "../../topologies/gt_topo.h"
#include "gm_tx.h"

typedef enum {
	GM_XPORT_NONE,
	GM_XPORT_NCCL,
	GM_XPORT_IBRC,
	GM_XPORT_IBGDA,
	GM_XPORT_GIN,
	GM_XPORT_FABRIC
} gm_xport_kind;

typedef enum {
	GM_XS_DELAY,	   /* a fixed delay, no contention */
	GM_XS_POLL,	   /* a GPU thread polling: half its period on average, plus one read */
	GM_XS_PROXY_POLL,  /* the proxy finds the work: half a period when idle, plus one read */
	GM_XS_PROXY_WORK,  /* the proxy thread works (a single server per GPU) */
	GM_XS_PROXY_BG,	   /* the proxy thread works off the message's path (a completion it
			    * reaps later): its time is taken, the message does not wait */
	GM_XS_NIC,	   /* the NIC's message stage (a single server per NIC) */
	GM_XS_GPU_SQ,	   /* the post's publish on the send queue its CTA shares (gpu.queues) */
	GM_XS_DATA,	   /* the data: a flow on the route (explain: its link table) */
} gm_xport_stage_kind;

#define GM_XPORT_MAX_STAGES 16

typedef struct gm_xport_stage {
	gm_xport_stage_kind kind;
	int64_t ps;	   /* cost (POLL and PROXY_POLL: the read) */
	int64_t period_ps; /* POLL and PROXY_POLL: the poll period */
	const char *actor;
	const char *rule;   /* the cost in parameter names */
	const char *action; /* plain words */
} gm_xport_stage;

/* One message's stages on a transport; message kinds differ in what the
 * receiver waits for. */
typedef struct gm_xport_path {
	int ngpu; /* stages [0, ngpu): the sender's GPU part (the strand is busy) */
	int nstages;
	gm_xport_stage st[GM_XPORT_MAX_STAGES]; /* ..., one GM_XS_DATA, the receiver's part */
	int data;				/* index of the GM_XS_DATA stage */
} gm_xport_path;

typedef enum {
	GM_XM_SEND,   /* two-sided, Simple: the receiver waits for a tail flag */
	GM_XM_SEND_LL,/* two-sided, LL or LL128: flags arrive with the data */
	GM_XM_PUT,    /* one-sided data: nobody waits for it by itself */
	GM_XM_SIGNAL, /* one-sided flag behind a put (put-with-signal): the receiver polls it */
	GM_XM_AMO,    /* one-sided flag on its own (nvshmemx_signal_op): as SIGNAL, except on
		       * IBRC with proxy.amo gdrcopy, where the target's proxy writes it */
	GM_XM__COUNT
} gm_xport_msg;

typedef struct gm_xport {
	gm_xport_kind kind;
	const char *name;
	gm_tx_params p;	 /* the components (topology's link rates and latencies in place) */
	gm_xport_path path[GM_XM__COUNT];
	/* two-sided: the receiver's buffer slot goes back to the sender this
	 * much later than the bare route latency (its head write seen by its
	 * proxy, a receive posted, the clear-to-send over the network) */
	int64_t credit_ps;
	int proxy_batch; /* requests the proxy takes in one turn */
	int queues;	 /* device-initiated: send queues a GPU's CTAs share (0: one each) */
	bool chosen;	 /* transport.inter auto picked it by the NIC's GPUDirect Async */
	bool gin_proxy;	 /* gin through NCCL's CPU-proxy back end (transport.gin) */
	/* NVSHMEM IBRC with GDRCopy atomics (a GM_XM_AMO is a SEND the target's
	 * proxy acknowledges): before each request it posts, a rank's proxy
	 * waits until no more than amo_window(npes) of its atomics are
	 * unacknowledged. false elsewhere. */
	bool amo_acked;
} gm_xport;

/* The window of unacknowledged emulated atomics of a proxy among npes PEs
 * (x->amo_acked): proxy.srq_depth / (connected queue pairs + 1), with
 * npes x (proxy.rc_per_pe + 1) + 1 queue pairs connected. */
uint64_t gm_xport_amo_window(const gm_xport *x, int npes);

/* Register transport.* (called by gm_scenario_config_new). */
void gm_xport_register_params(gc_config *cfg);
/* The transports' names, "none|nccl|ibrc|ibgda|gin|fabric". */
const char *gm_xport_choices(void);

/* Build the scenario's transport: transport.inter (auto: nccl, or for a
 * one-sided schedule ibgda where the NIC has GPUDirect Async, else ibrc;
 * for pplx-garden's schedule, `garden`, its own engine, fabric, the only
 * transport it and only it takes)
 * over the component keys (the platform's defaults applied by the caller), with the topology's PCIe and NIC
 * bandwidths in place of the component ones. A transport the platform
 * cannot run (ibgda, or gin with transport.gin gdaki, without GPUDirect
 * Async: EFA) is GC_ERR_INPUT with the reason and what to use instead; gin
 * there takes its CPU-proxy back end under transport.gin auto. kind NONE
 * builds nothing else. */
gc_status gm_xport_build(const gc_config *cfg, const gt_topo *topo, bool one_sided, bool garden,
			 gm_xport *x, char **errmsg);
/* The taxonomy platform (gm_tx_platform_apply) whose component defaults a
 * topology preset takes ("dgx-h100" for none and the Blackwell presets). */
const char *gm_xport_platform(const char *preset);

/* The topology's NIC link latency in a transport's run when
 * topology.nic.latency is not given: the physical path only (PCIe from the
 * GPU to the NIC, the wire and a switch, PCIe into the remote GPU: 2 x
 * pcie.latency + wire.latency + switch.latency), since the transport pays
 * every software step itself. */
int64_t gm_xport_nic_latency_ps(const gc_config *cfg);

/* Whether `key`, a component key (gpu., nvlink., pcie., host., proxy.,
 * gdrcopy., nic., wire., switch., caps.), changes what a run on transport
 * x simulates. When it does not, *why (static) says why and what to use. */
bool gm_xport_uses_key(const gm_xport *x, const char *key, const char **why);

/* The stages as a gm_tx recipe (one step each, in a chain; the data step
 * a flow over explain's link table of GPU A -> NIC -> wire -> NIC -> GPU B)
 * for `bytes`, so gm_tx_estimate and gm_tx_format_walk show them. */
void gm_xport_recipe(const gm_xport *x, gm_xport_msg kind, uint64_t bytes, gm_tx_recipe *r);

/* One uncontended message of kind k: every stage but the data's flow and
 * route latency (each poll half its period), as the closed form adds it. */
int64_t gm_xport_latency_ps(const gm_xport *x, gm_xport_msg k);

/* A message kind's name as --variant takes it: simple, ll, put, signal, amo. */
const char *gm_xport_msg_name(gm_xport_msg k);

/* The message kind a run's step sends on x (Simple or LL for a send). */
gm_xport_msg gm_xport_msg_of(bool one_sided, bool signal, bool ll_flags);

#endif
