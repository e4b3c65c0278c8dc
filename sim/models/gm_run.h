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

#include "../core/gc_config.h"
#include "../sched/gs_sched.h"
#include "../topologies/gt_topo.h"
#include "gm_coll.h"
#include "gm_tuner.h"

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
	bool analytical;
	gm_xport xport; /* transport.inter (kind none: no control path) */
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

gc_status gm_run_scenario(const char *path, const gm_run_opts *o, gm_run **out, char **errmsg);
void gm_run_free(gm_run *r);

/* The first lines of every report: version, scenario (and its name), and
 * the topology. */
void gm_run_format_head(const char *path, const gc_config *cfg, const gt_topo *topo,
			void *gstring_out);
/* The header block of a report: the head lines, then the collective (its
 * algorithm, ranks, channels, protocol and step geometry) and the model. */
void gm_run_format_setup(const gm_run *r, void *gstring_out);
/* nccl-tests-style table with a header block and "# Avg bus bandwidth". */
void gm_run_format_table(const gm_run *r, void *gstring_out);
/* With collective.compare: per size both times, the faster algorithm, and
 * the crossover sizes where the faster one changes. */
void gm_run_format_compare(const gm_run *r, void *gstring_out);
/* size_bytes,count,type,redop,root,time_us,algbw_GBps,busbw_GBps */
void gm_run_format_csv(const gm_run *r, void *gstring_out);
/* A sweep: the same scenario run with key = values[k] (runs[k]); one row
 * per value and size (ranks, time, algbw, busbw, and with
 * collective.compare the other algorithm's time and the faster one), as an
 * aligned table or as CSV. */
void gm_run_format_sweep(const char *key, const char *const *values, gm_run *const *runs, size_t n,
			 bool csv, void *gstring_out);
/* Per size: the busiest links (bytes carried, busy fraction, utilization). */
void gm_run_format_links(const gm_run *r, size_t max_rows, void *gstring_out);
/* The key under which a SQLite results file keeps, as a parameter of the
 * run (unit us, per operation), category c of the breakdown of the point
 * (algo, size_bytes): "breakdown:ALGO:SIZE:CATEGORY". g_free it. */
char *gm_run_breakdown_key(const char *algo, uint64_t size_bytes, gm_cp_cat c);

/* With gm_run_opts.breakdown: per run and size, where the time goes
 * along the critical path (the categories of gm_cpath.h that are not zero
 * everywhere, in us per operation, and the largest), then one line per
 * category shown. A sweep (key given) starts each row with the run's
 * value; one run: key and values NULL, n 1. With collective.compare, a
 * second table for the compared algorithm. */
void gm_run_format_breakdown(const char *key, const char *const *values, gm_run *const *runs,
			     size_t n, void *gstring_out);

/* Store the points in a results file shared with measurements (kind "sim"):
 * SQLite unless the name ends in ".csv", then the CSV interchange form (no
 * creation time, so the file is as deterministic as the run). All or
 * nothing: a CSV is written as gc_outfile writes (FILE.tmp renamed onto a
 * regular FILE), SQLite rows go in one transaction, and a results file the
 * call created is removed when that fails. */
gc_status gm_run_save_results(const gm_run *r, const char *path, const char *command,
			      char **errmsg);
/* The same with the run's label given (NULL: the scenario's name), as
 * gcsim sweep names each cell of its grid. */
gc_status gm_run_save_results_as(const gm_run *r, const char *path, const char *label,
				 const char *command, char **errmsg);
/* Whether gm_run_save_results could write path (SQLite or CSV), without
 * creating it: for a command to refuse an unwritable path before it
 * simulates. */
gc_status gm_run_check_results(const char *path, char **errmsg);

#endif
