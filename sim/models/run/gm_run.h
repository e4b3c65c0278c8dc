/* SPDX-License-Identifier: MIT */
/*
 * gm_run: one scenario, end to end: load and check the YAML, build the
 * topology and, for each message size, the collective's schedule; time it
 * with the chosen fidelity; report in nccl-tests form.
 *
 * Nothing is written until every size has been simulated: a failure leaves
 * no partial table, trace or results file behind.
 */
#ifndef GM_RUN_H
#define GM_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/gc_config.h"
#include "../../sched/gs_sched.h"
#include "../../topologies/gt_topo.h"
#include "../exec/gm_coll.h"
#include "../closed/gm_tuner.h"
#include "../host/gm_host.h"

/* printed at the head of every report */
#define GCSIM_VERSION "0.1.0"

typedef struct gm_run_opts {
	const char *const *sets; /* --set KEY=VALUE, NULL-terminated (may be NULL) */
	/* where each of sets stands when it did not come from the command line
	 * (a value of the scenario's own sweep: "FILE:LINE:COLUMN"), which its
	 * messages name; NULL, or NULL entries: the command line (--set) */
	const char *const *set_where;
	const char *trace_path;	 /* Chrome/Perfetto trace, or NULL */
	bool links;		 /* keep per-link statistics */
	/* called before each size is timed (may be NULL): i of n, the size */
	void (*progress)(void *ctx, size_t i, size_t n, uint64_t bytes);
	void *progress_ctx;
	/* flow and packet fidelity (may be NULL): the steps of the size being
	 * timed, done of total, before its first and every 2^16 steps, and the
	 * wall time it is estimated to take (gm_coll_estimate_s) and the
	 * memory of its connections (bytes); same ctx */
	void (*step_progress)(void *ctx, uint64_t done, uint64_t total, double est_s, double est_bytes);
	/* a training step (gm_train_run, may be NULL): before phase i of n,
	 * its name; same ctx */
	void (*phase_progress)(void *ctx, size_t i, size_t n, const char *name);
	/* a phase of a training step (gm_train): the scenario's train.* keys
	 * belong to the step, not to this collective */
	bool step_phase;
	/* every check gm_run_scenario makes before it times a size, and no
	 * timing: the run's points stay zero */
	bool check_only;
	/* flow fidelity: split each point's time along its critical path
	 * (gm_point.r.cp_ps; gm_run_format_breakdown) */
	bool breakdown;
	/* flow and packet fidelity: called as each step of the scenario's
	 * algorithm completes (not collective.compare's), every size in turn
	 * (gm_coll_opts.on_step); may be NULL */
	void (*on_step)(void *ctx, const gm_step_rec *rec);
	void *step_ctx;
	/* one cell of a sweep: the keys the scenario sets and this run does
	 * not use are listed in gm_run.unused, not refused; the sweep refuses
	 * those no cell uses (gm_keyuse.h) */
	bool sweep_cell;
} gm_run_opts;

typedef struct gm_point {
	int proto;	/* gm_proto the point was timed with */
	int algo;	/* gs_algo the point was timed with (collective.algo auto: chosen) */
	int nchannels;	/* channels it ran on (NCCL's tuning by size, unless collective.channels) */
	uint64_t bytes; /* effective nccl-tests size */
	uint64_t count; /* elements, nccl-tests "count" */
	double time_us;
	double algbw_GBps, busbw_GBps;
	double nccl_est_us; /* collective.tuner nccl: NCCL's own estimate of its pick (else 0) */
	gm_coll_result r;
} gm_point;

typedef struct gm_run {
	gc_config *cfg;
	char *path;
	gt_topo topo;
	gm_fault *faults; /* faults.degrade, checked against the topology's links */
	size_t nfaults;
	gs_params base; /* collective parameters; bytes set per point */
	int proto;	/* gm_proto, or -1 for auto */
	unsigned proto_ok; /* collective.nccl_proto: the GM_PROTO_BITs allowed */
	const char *ll128_off; /* why NCCL's default leaves LL128 out here (NULL: it does not) */
	/* collective.algo auto: per size the candidate (each with its own step
	 * geometry) whose closed-form time is smallest */
	bool algo_auto;
	gs_params cand[GS_ALGO__COUNT];
	int ncand;
	/* collective.tuner nccl: NCCL's cost model chooses (among NCCL's own
	 * algorithms) instead of gcsim's closed form */
	bool tuner_nccl;
	gm_tuner tuner;
	/* collective.nccl_version as a number (2.29.7: 22907): the release
	 * whose choices NCCL's model and its point-to-point geometry make */
	int nccl_ver;
	bool analytical;
	gm_xport xport; /* transport.inter (kind none: no control path) */
	gm_host host;	/* collective.backend (kind nccl: the GPUs run it) */
	uint32_t pkt_bytes, pkt_buf; /* packet fidelity when pkt_bytes > 0 */
	gm_point *pts;
	size_t npts;
	/* collective.compare: the same sizes with another algorithm */
	bool compare;
	gs_algo compare_algo;
	gm_point *cmp;
	/* with gm_run_opts.sweep_cell: the keys set and not used, each with
	 * its refusal, in pairs (NULL: none) */
	char **unused;
} gm_run;

/* A communicator of p on t has members on more than one node (all groups
 * have group 0's shape); false on a flat topology or one node. */
bool gm_run_spans_nodes(const gs_params *p, const gt_topo *t);

/* The switch-reduced allreduces (nvls, nvlstree, collnet, collnetchain):
 * Simple only, with NVLS's step geometry unless the scenario gives one. */
bool gm_run_switch_reduced(gs_algo a);
/* sendrecv through NCCL: it runs in NCCL's point-to-point geometry (its
 * step, channels and per-channel rate; gm_run.c p2p_geometry) */
bool gm_run_nccl_p2p(const gm_run *r);
/* A MoE layer's nodes and GPUs per node on t (its group's shape). */
void gm_run_moe_nodes(const gs_params *p, const gt_topo *t, int *nodes, int *per);

gc_status gm_run_scenario(const char *path, const gm_run_opts *o, gm_run **out, char **errmsg);
void gm_run_free(gm_run *r);

#endif
