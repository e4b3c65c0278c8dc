/* SPDX-License-Identifier: MIT */
/*
 * gv_validate: predictions against measurements, point by point.
 *
 * Inputs are gc_result_point arrays loaded from any of: a results SQLite
 * file (the newest run, or every run), a points CSV (gc_results_write_csv),
 * or a published-figures CSV in shared/reference format
 * (system,gpus,nodes,collective,algo,bytes,busbw_GBps,algbw_GBps,time_us,
 * source), where a missing time is derived as bytes / algbw, or from busbw
 * through the nccl-tests factor of the collective and rank count.
 *
 * Matching: a measured point is compared with the predicted point of the
 * same (collective, algo, nranks, size_bytes); an empty algo on either side
 * matches any. Error % = 100 * (predicted - measured) / measured on time.
 * Tolerance bands are data: ordered (name, limit %) rows; a point takes the
 * first band whose limit >= |error|, else "fail". The verdict passes when
 * the median |error| <= `tolerance` and the largest <= `max_tolerance`.
 */
#ifndef GV_VALIDATE_H
#define GV_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/core/gc_results.h"

/* Loads points from FILE (format detected from its content). */
gc_status gv_load_points(const char *path, gc_result_point **pts, size_t *n, char **errmsg);

/* What gv_load_points_run read. */
typedef struct gv_source {
	int runs;	   /* runs read (0: a file without runs, a reference CSV) */
	char protocol[16]; /* the collective.protocol of every run read, from
			    * their stored configurations ("simple", "auto",
			    * ...), "" when unknown or when they differ */
} gv_source;

/* Loads the points of some runs of FILE, for predictions. run NULL or
 * "all": every run, the newest run's points first (gv_compare takes the
 * first matching prediction, so a point predicted by several runs is
 * compared with the newest); "latest": the newest run; otherwise the
 * newest run with that label, or the run with that id. A label that no run
 * has is refused with the runs the file holds. A CSV file of points is one
 * run; a reference CSV has none (a label is refused). src may be NULL. */
gc_status gv_load_points_run(const char *path, const char *run, gc_result_point **pts, size_t *n,
			     gv_source *src, char **errmsg);
/* One reference-format CSV (shared/reference/nccl_tests_published.csv). */
/* shared/reference/moe_published.csv (dispatch and combine rows). */
gc_status gv_load_moe_csv(const char *path, gc_result_point **pts, size_t *n, char **errmsg);
gc_status gv_load_reference_csv(const char *path, gc_result_point **pts, size_t *n,
				char **errmsg);
/* nccl-tests busbw factor by collective name (allreduce, allgather,
 * reducescatter, alltoall, broadcast, reduce, sendrecv); NaN if unknown. */
double gv_busbw_factor(const char *collective, int nranks);

typedef struct gv_band {
	char name[32];
	double limit_pct;
} gv_band;

/* Bands from a CSV "band,max_error_pct" (header line required). */
gc_status gv_bands_load(const char *path, gv_band **bands, size_t *n, char **errmsg);

typedef struct gv_row {
	gc_result_point measured, predicted;
	double err_pct;
	const char *band; /* points into the bands, or "fail" */
} gv_row;

typedef struct gv_report {
	gv_row *rows;
	size_t nrows;
	size_t unmatched; /* measured points with no prediction */
	size_t untimed;	  /* measured points with no time (0 or unknown) */
	size_t ambiguous; /* compared points that several predictions of
			   * different times matched (the first was taken) */
	double median_abs_pct, max_abs_pct;
	double tolerance_pct, max_tolerance_pct;
	bool pass;
} gv_report;

gc_status gv_compare(const gc_result_point *meas, size_t nm, const gc_result_point *pred,
		     size_t np, const gv_band *bands, size_t nb, double tolerance_pct,
		     double max_tolerance_pct, gv_report *out, char **errmsg);
void gv_report_clear(gv_report *r);
/* Human-readable table and verdict; CSV with one row per compared point. */
void gv_report_table(const gv_report *r, void *gstring_out);
void gv_report_csv(const gv_report *r, void *gstring_out);
/* The same errors by size: below 1 MiB (latency), 1-16 MiB, 16-256 MiB,
 * 256 MiB and up (bandwidth); per band that has points, their number, the
 * median |error| and the range of the error. */
void gv_report_by_size(const gv_report *r, void *gstring_out);
/* One "# hint: ..." line when points of NCCL's collectives below 1 MiB are
 * predicted slower than the max tolerance allows, and the predictions did
 * not let the protocol follow the size: protocol is the predictions'
 * collective.protocol (gv_source), "" when unknown; nothing for "auto".
 * NCCL takes LL or LL128 for small messages, where Simple's per-step cost
 * dominates. Returns whether a line was written. */
bool gv_report_protocol_hint(const gv_report *r, const char *protocol, void *gstring_out);

/* How an nccl-tests run was driven, from its "# nThread T nGpus G ...
 * iters: N" header line (0 where the log does not say). */
typedef struct gv_nccltests_setup {
	int gpus_per_thread; /* nGpus: GPUs each thread drove (-g) */
	int iters;	     /* operations timed back to back (-n) */
	size_t wrong;	     /* rows marked wrong, imported as accept_wrong asked */
} gv_nccltests_setup;

/* The collectives nccl-tests times, as gcsim names them, ", "-joined. */
extern const char gv_nccltests_collectives[];
/* name (gcsim's spelling, or nccl-tests' all_reduce, reduce_scatter, ...)
 * as gcsim names it into out; false when it is none of them. */
bool gv_nccltests_collective(const char *name, char *out, size_t n);

/* Imports an nccl-tests log. collective NULL: taken from the log's
 * "<name>_perf" mention; else one of gv_nccltests_collectives. nranks 0:
 * the number of "#  Rank" lines; else 1 to 2^20. Each row gives one point
 * with the out-of-place time (and the log's iters). Rows nccl-tests marked
 * wrong (a non-zero #wrong, in or out of place; or, in a log without that
 * column, a failed "Out of bounds values" check) are refused, naming them,
 * unless accept_wrong. setup, when not NULL, gets the header's nGpus and
 * iters and the number of rows marked wrong that were accepted. */
gc_status gv_nccltests_parse(const char *path, const char *collective, int nranks,
			     bool accept_wrong, gc_result_point **pts, size_t *n,
			     gv_nccltests_setup *setup, char **errmsg);

#endif
