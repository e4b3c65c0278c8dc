/* SPDX-License-Identifier: MIT */
/*
 * gm_report: a finished run's tables, CSV, link summary, breakdown and
 * results file (see gm_report.c). The report reads gm_run; the models
 * never include it.
 */
#ifndef GM_REPORT_H
#define GM_REPORT_H

#include "../run/gm_run.h"
#include "sim/core/gc_results.h"

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
/* The run as the results file stores it (gc_results.h): label NULL is the
 * scenario's name; the breakdown, when kept, as parameters. */
void gm_run_record_of(const gm_run *r, const char *label, const char *command,
		      gc_run_record *out);
/* The same with the run's label given (NULL: the scenario's name), as
 * gcsim sweep names each cell of its grid. */
gc_status gm_run_save_results_as(const gm_run *r, const char *path, const char *label,
				 const char *command, char **errmsg);
/* Whether gm_run_save_results could write path (SQLite or CSV), without
 * creating it: for a command to refuse an unwritable path before it
 * simulates. */
gc_status gm_run_check_results(const char *path, char **errmsg);

#endif
