/* SPDX-License-Identifier: MIT */
/*
 * gm_tx: the communication-type taxonomy of Unat et al., "The Landscape of
 * GPU-Centric Communication" (arXiv 2409.09874), as explicit control and data
 * paths over modelled components.
 *
 * A transfer of one message is a *recipe*: an ordered list of steps, each
 * with the actor that performs it (CPU, SM, copy engine, PCIe, NIC, wire,
 * CPU proxy), an action in plain words, the component resource it occupies,
 * its cost rule and the steps it waits for (so control and data paths can
 * overlap). Intra-node types 1-4 and inter-node types 1-5 are recipes over
 * the same components; a platform (dgx-h100, p5, p4d) is a set of parameter
 * defaults and capability flags, and a type the platform lacks a mechanism
 * for is refused with the reason.
 *
 * One generic executor runs any recipe on the event engine for K messages
 * from many issuers, so queueing at the CPU proxy, the NIC's message-rate
 * stage and bandwidth sharing on links (gm_net) emerge; the same recipe has a
 * closed form for one uncontended message, which equals the event-driven
 * result exactly (tests assert it).
 *
 * Invariants: times are int64 picoseconds; a recipe's steps depend only on
 * earlier steps (the recipe is a DAG in index order); every message runs
 * every step exactly once; same configuration -> same output.
 */
#ifndef GM_TX_H
#define GM_TX_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/gc_config.h"
#include "../../ge_trace.h"

#define GM_TX_MAX_STEPS 32
#define GM_TX_MAX_DEPS 3
#define GM_TX_MAX_HOPS 8
#define GM_TX_MAX_MESSAGES 200000

/* ---- parameters (gm_tx_params.c) ------------------------------------------ */

typedef enum { GM_TX_FLAG_HOSTPINNED, GM_TX_FLAG_CUDAMEMCPY, GM_TX_FLAG_GDRCOPY } gm_tx_flag_read;
typedef enum { GM_TX_NIC_IB, GM_TX_NIC_ROCE, GM_TX_NIC_EFA } gm_tx_nic_kind;
/* How the CPU proxy hands work requests to the NIC: one signalled request
 * per post, each ringing its own doorbell and completing with its own CQE
 * (NVSHMEM IBRC), or a batch's requests chained into one post with one
 * doorbell and one signalled request. */
typedef enum { GM_TX_POST_SINGLE, GM_TX_POST_CHAINED } gm_tx_proxy_post;
/* How a CPU proxy performs a signal of its own (not behind a put): through
 * the target's proxy and GDRCopy, or as the NIC's own atomic or write. */
typedef enum { GM_TX_AMO_GDRCOPY, GM_TX_AMO_NATIVE } gm_tx_proxy_amo;

typedef struct gm_tx_params {
	const char *platform;
	/* GPU */
	int64_t launch_ps, fence_ps, poll_ps, wqe_build_ps, store_issue_ps, publish_ps, cta_barrier_ps;
	double sm_store_Bps;
	int sms;
	int queues; /* send queues the CTAs share for GPU-initiated posts (0: one each) */
	/* NVLink */
	double nvlink_Bps;
	int64_t nvlink_lat_ps;
	/* PCIe */
	int pcie_gen;
	double pcie_Bps;
	int64_t pcie_lat_ps, mmio_write_ps;
	/* host */
	double memcpy_Bps;
	int64_t mem_lat_ps, cudamemcpy_ps, post_send_ps, cq_poll_ps;
	/* CPU proxy */
	int64_t proxy_poll_ps, proxy_req_ps;
	int proxy_batch;
	gm_tx_proxy_post proxy_post;
	gm_tx_proxy_amo proxy_amo;
	int srq_depth;	 /* NVSHMEM IBRC's shared receive queue (emulated atomics' window) */
	int rc_per_pe;	 /* its RC queue pairs per peer PE (NVSHMEM_IB_NUM_RC_PER_DEVICE) */
	gm_tx_flag_read flag_read;
	/* GDRCopy */
	int64_t gdr_read_ps, gdr_write_ps;
	double gdr_read_Bps;
	/* NIC, wire, switch */
	gm_tx_nic_kind nic_kind;
	double nic_Bps, nic_msg_rate;
	int sq_depth;
	int64_t wire_lat_ps, switch_lat_ps;
	/* capability flags */
	bool has_p2p, has_gdr, has_gpudirect_async;
} gm_tx_params;

/* Register the component and capability tables (every key with its default
 * and source) in cfg. Called by gm_scenario_config_new(). */
void gm_tx_register_params(gc_config *cfg);
/* The platform names, "dgx-h100|p5|p4d". */
const char *gm_tx_platform_choices(void);
/* Make `platform`'s values the defaults of cfg (values set in a file or by
 * --set still win). Returns false for an unknown platform. */
bool gm_tx_platform_apply(gc_config *cfg, const char *platform);
/* One line describing a platform. */
const char *gm_tx_platform_summary(const char *platform);
void gm_tx_params_read(const gc_config *cfg, const char *platform, gm_tx_params *p);

/* ---- recipes (gm_tx_path.c) ------------------------------------------------ */

typedef enum {
	GM_TX_R_NONE,	    /* a pure delay: latency only, no contention */
	GM_TX_R_POLL,	    /* a poller detects a flag: next poll start, plus one read */
	GM_TX_R_CPU,	    /* the application CPU thread (single server) */
	GM_TX_R_NIC_TX,	    /* the sending NIC's message-processing stage (1/msg_rate) */
	GM_TX_R_PROXY_POLL, /* the CPU proxy finds the request (batches up to proxy.batch) */
	GM_TX_R_PROXY_WORK, /* the CPU proxy works on one request */
	GM_TX_R_PROXY_DB,   /* the CPU proxy rings one doorbell for its batch (proxy.post chained) */
	GM_TX_R_GPU_SQ,	    /* a post's in-order publish on the send queue its CTA shares (gpu.queues) */
	GM_TX_R_NET,	    /* data moved along a route of links (gm_net) */
	GM_TX_R__COUNT
} gm_tx_res;

/* The links of the modelled pair of GPUs (one route element each). */
typedef enum {
	GM_TX_L_SM,	     /* source SMs' store throughput */
	GM_TX_L_NVL_TX,	     /* source GPU's NVLink port, out */
	GM_TX_L_NVL_RX,	     /* destination GPU's NVLink port, in */
	GM_TX_L_GPU_UP,	     /* source GPU -> PCIe switch */
	GM_TX_L_GPU_DOWN,    /* PCIe switch -> source GPU */
	GM_TX_L_HOST_UP,     /* switch -> host memory (root complex) */
	GM_TX_L_HOST_DOWN,   /* host memory -> switch */
	GM_TX_L_NIC_DOWN,    /* switch -> NIC (DMA reads return here) */
	GM_TX_L_LINE,	     /* NIC line rate, out */
	GM_TX_L_WIRE,	     /* cable and switch */
	GM_TX_L_RNIC_UP,     /* remote NIC -> remote PCIe switch */
	GM_TX_L_RGPU_DOWN,   /* remote switch -> destination GPU */
	GM_TX_L_RHOST_UP,    /* remote switch -> remote host memory */
	GM_TX_L_MEMCPY,	     /* host memory bus as seen by one memcpy thread */
	GM_TX_L_DGPU_DOWN,   /* intra: switch -> destination GPU */
	GM_TX_L_RHOST_DOWN,  /* remote host memory -> remote switch */
	GM_TX_L_RMEMCPY,     /* remote host memory bus (one memcpy thread) */
	GM_TX_L__COUNT
} gm_tx_link;

typedef struct gm_tx_step {
	const char *actor;	/* CPU, SM, copy engine, PCIe, NIC, wire, CPU proxy */
	char action[200];	/* plain words */
	char rule[96];		/* the cost rule in parameter names */
	gm_tx_res res;
	int64_t fixed_ps;	/* the step's fixed cost (NET: before the flow) */
	int64_t period_ps;	/* POLL: poll period (read + interval) */
	double bytes;		/* NET: bytes moved */
	uint8_t route[GM_TX_MAX_HOPS];
	int nhops;
	int deps[GM_TX_MAX_DEPS];
	int ndeps;
	bool copy;		/* makes a staging copy of the payload */
	bool receiver_side;	/* part of the receiver's mirror */
	bool cpu;		/* a CPU (application or proxy) acts */
	bool latency_only;	/* receiver notification: not part of a stream of puts */
	bool posts;		/* PROXY_WORK: posts a signalled work request (one CQE to reap) */
} gm_tx_step;

typedef struct gm_tx_recipe {
	char id[24];		/* "inter:3/proxy" */
	char name[48];
	int nsteps;
	gm_tx_step steps[GM_TX_MAX_STEPS];
	int release;		/* the issuer may start its next message after this step */
	int issuers;		/* threads/CTAs that can issue concurrently */
	const char *issuer_kind;/* "CPU thread" or "CTA" */
	int copies;		/* staging copies per side (Unat et al.'s column) */
	bool cpu_critical;	/* a CPU acts on the critical path */
	bool uses_proxy;
} gm_tx_recipe;

typedef struct gm_tx_type_info {
	const char *id;		/* "intra:1" ... "inter:5", "roundtrip" */
	const char *variants;	/* "cpu|proxy" or NULL */
	const char *name;
	const char *defines;	/* one line: what defines the type */
} gm_tx_type_info;

size_t gm_tx_type_count(void);
const gm_tx_type_info *gm_tx_type_at(size_t i);

/* Build the recipe of `path` ("intra:2", "inter:3", "roundtrip") in
 * `variant` (NULL: the default) for `bytes` on the platform p. A type the
 * platform cannot do, or a bad name, returns GC_ERR_INPUT with the reason in
 * *errmsg (g_free). */
gc_status gm_tx_recipe_build(const gm_tx_params *p, const char *path, const char *variant,
			     uint64_t bytes, gm_tx_recipe *r, char **errmsg);

/* ---- execution (gm_tx_exec.c) ---------------------------------------------- */

typedef struct gm_tx_step_time {
	int64_t start_ps, end_ps;
} gm_tx_step_time;

typedef struct gm_tx_result {
	int64_t latency_ps;		 /* message 0: issue to last step */
	gm_tx_step_time steps[GM_TX_MAX_STEPS]; /* message 0 */
	uint64_t messages;
	int64_t makespan_ps;		 /* all messages */
	double rate_Mops;		 /* messages / makespan */
	char limit[96];			 /* the busiest resource */
	double limit_util;
	uint64_t events;
} gm_tx_result;

/* Closed form of one uncontended message. */
void gm_tx_estimate(const gm_tx_params *p, const gm_tx_recipe *r, gm_tx_result *out);
/* Event-driven run of `messages` back-to-back messages (1: a latency), each
 * of the recipe's issuers issuing its share. trace may be NULL. */
gc_status gm_tx_simulate(const gm_tx_params *p, const gm_tx_recipe *r, uint64_t messages,
			 ge_trace *trace, gm_tx_result *out, char **errmsg);

/* NVSHMEM perftest shmem_put_bw's loop (perftest/device/pt-to-pt): a kernel
 * of `ctas` CTAs runs `iters` iterations; in each, every CTA issues one put
 * of the recipe (a block-scope nbi put: the CTA moves on once its post is
 * out) and then all CTAs meet at an inter-CTA barrier (gpu.cta_barrier);
 * after the last, a final barrier whose last arrival waits for every put's
 * completion (nvshmem_quiet, gm_tx_quiet_ps). The time is the kernel's, from
 * before its launch (gpu.launch_latency: the benchmark's CUDA events wrap
 * the launch) to the end of the final barrier. Nothing waits for
 * completions before that quiet, so nic.sq_depth does not apply. out's
 * makespan_ps is that time, rate_Mops ctas x iters puts over it, and the
 * limit the busiest resource, the CTAs' own loop included. With a trace
 * (else NULL), the run is process pid of it: a track per actor with the
 * steps of the first 16 iterations' puts, and one with their barriers, the
 * quiet and the final barrier. */
#define GM_TX_LOOP_MAX_ITERS 1024
gc_status gm_tx_simulate_put_loop(const gm_tx_params *p, const gm_tx_recipe *r, int ctas, int iters,
				  ge_trace *trace, int pid, gm_tx_result *out, char **errmsg);
/* What nvshmem_quiet adds after a stream's last put lands: the responder's
 * acknowledgement back over the wire and switch, the completion written
 * across PCIe, then seen by the GPU's poll; a proxy path (r->uses_proxy)
 * also reaps it on the CPU (host.cq_poll) and tells the GPU across PCIe:
 * wire.latency + switch.latency + pcie.latency + gpu.poll_interval, plus
 * host.cq_poll + pcie.latency through the proxy. */
int64_t gm_tx_quiet_ps(const gm_tx_params *p, const gm_tx_recipe *r);

/* Components: a one-step recipe that exercises one component alone, for the
 * test that its closed form and its event-driven behaviour agree. */
size_t gm_tx_component_count(void);
const char *gm_tx_component_name(size_t i);
void gm_tx_component_recipe(const gm_tx_params *p, size_t i, uint64_t bytes, gm_tx_recipe *r);

/* ---- explanations (gm_tx_explain.c) ---------------------------------------- */

/* Every type, one line each. */
void gm_tx_format_list(void *gstring_out);
/* Numbered walk of message 0, the total, and (timeline) an ASCII timeline. */
void gm_tx_format_walk(const gm_tx_params *p, const gm_tx_recipe *r, const gm_tx_result *res,
		       uint64_t bytes, bool timeline, void *gstring_out);

typedef struct gm_tx_compare_opts {
	const char *scope;	/* "intra" or "inter" */
	uint64_t bytes;
	uint64_t messages;	/* 0: no rate column */
	bool csv;
	/* put_loop: instead of a stream, time shmem_put_bw's loop of the
	 * device-initiated types: ctas CTAs, iters iterations, `bytes` per
	 * iteration split among the CTAs in whole doubles */
	bool put_loop;
	int ctas, iters;
	/* put_loop: each type's loop as one process of this trace (else NULL) */
	ge_trace *trace;
} gm_tx_compare_opts;
/* One row per type (refused types are listed with the reason). */
gc_status gm_tx_format_compare(const gm_tx_params *p, const gm_tx_compare_opts *o,
			       void *gstring_out, char **errmsg);

/* The study table of an explain scenario (explain.*), registered on top of
 * gm_scenario_config_new(). */
void gm_tx_register_study_params(gc_config *cfg);
/* After loading a study file: GC_OK when the file (or the command line,
 * mode_given) names the study's explain.mode; else GC_ERR_INPUT, at the
 * first explain.* key the file set, or, with none, saying that the file is
 * a run scenario and which commands take it. */
gc_status gm_tx_study_check_file(const gc_config *cfg, const char *file, bool mode_given,
				 char **errmsg);
/* Run the study a loaded configuration describes; append its output. */
gc_status gm_tx_study_run(gc_config *cfg, const char *trace_path, bool timeline,
			  void *gstring_out, char **errmsg);

#endif
