/* SPDX-License-Identifier: MIT */
/*
 * gc_results: the results store shared by simulated runs, hardware
 * measurements and imported logs. One SQLite file per study.
 *
 * Schema (PRAGMA user_version = GC_RESULTS_SCHEMA):
 *   runs(id, kind 'sim'|'hw'|'import', label, scenario, config, device,
 *        created (ISO 8601 UTC), command)
 *   points(run_id, collective, algo, dtype, nranks, size_bytes, count,
 *          time_us, algbw_GBps, busbw_GBps, min_us, median_us, p99_us, iters)
 *   params(run_id, key, value, unit)            -- fitted calibration values
 *
 * Invariants: the file is opened in WAL mode; a file whose user_version is
 * neither 0 (fresh) nor GC_RESULTS_SCHEMA is refused; rows are only written
 * between gc_results_begin and gc_results_commit (one transaction per batch),
 * so a failed batch leaves nothing behind. Unknown real values (NaN) are
 * stored as NULL and read back as NaN. Every error message names the file.
 *
 * The same points travel as CSV (gc_results_write_csv / gc_results_read_csv):
 * '#'-prefixed "key: value" lines carry the run fields, then a header line
 * and one row per point. This is the format the GPU machine hands back.
 */
#ifndef GC_RESULTS_H
#define GC_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gc_status.h"

#define GC_RESULTS_SCHEMA 1

typedef struct gc_results gc_results;

/* Fields of one run; any pointer may be NULL (stored as NULL). created NULL
 * means "now" (UTC). kind NULL means "sim". */
typedef struct gc_run_info {
	const char *kind, *label, *scenario, *config, *device, *created, *command;
} gc_run_info;

/* An owned copy of a run row (gc_run_row_clear frees the strings). */
typedef struct gc_run_row {
	int64_t id;
	char *kind, *label, *scenario, *config, *device, *created, *command;
} gc_run_row;
void gc_run_row_clear(gc_run_row *r);

typedef struct gc_result_point {
	char collective[32]; /* "allreduce", or a microbenchmark path: "memcpy_h2d" */
	char algo[24];	     /* "ring", "tree", "ce", "sm", "" when not applicable */
	char dtype[16];	     /* nccl-tests spelling, "" when not applicable */
	int nranks;
	uint64_t size_bytes;
	uint64_t count;
	double time_us; /* the headline time (median for hw runs) */
	double algbw_GBps, busbw_GBps;
	double min_us, median_us, p99_us; /* NaN when unknown */
	int64_t iters;			  /* 0 when unknown */
} gc_result_point;

/* A point with every real field NaN and every other field empty. */
void gc_result_point_init(gc_result_point *p);

typedef struct gc_param_row {
	char key[64];
	double value;
	char unit[16];
} gc_param_row;

/* Open (create when `create`) the store at path. Errors: GC_ERR_IO. An
 * existing file is checked first (PRAGMA integrity_check, once per file and
 * process) and a damaged one refused with what to do. A writer (`create`)
 * is refused as gc_results_check_writable refuses; a reader of a file it may
 * not write opens it read-only. */
gc_status gc_results_open(const char *path, bool create, gc_results **out, char **errmsg);
/* Whether path can take results, without creating anything: an existing
 * regular file this process may write, or a new one, in a folder it may
 * write (SQLite keeps its journal beside the file). For a command to
 * fail before the work whose results it would store. */
gc_status gc_results_check_writable(const char *path, char **errmsg);
void gc_results_close(gc_results *r);
/* Close after a failure: a file this open created, where nothing was
 * committed, is removed (with its journal), so a failed command leaves no
 * empty results file. */
void gc_results_discard(gc_results *r);
const char *gc_results_path(const gc_results *r);

gc_status gc_results_begin(gc_results *r, char **errmsg);
gc_status gc_results_commit(gc_results *r, char **errmsg);
void gc_results_rollback(gc_results *r);
gc_status gc_results_insert_run(gc_results *r, const gc_run_info *info, int64_t *run_id,
				char **errmsg);
gc_status gc_results_insert_point(gc_results *r, int64_t run_id, const gc_result_point *p,
				  char **errmsg);
gc_status gc_results_insert_param(gc_results *r, int64_t run_id, const char *key, double value,
				  const char *unit, char **errmsg);

/* Id of the newest run of `kind` (NULL: any kind); GC_ERR_INPUT if none. */
gc_status gc_results_last_run(gc_results *r, const char *kind, int64_t *run_id, char **errmsg);
gc_status gc_results_get_run(gc_results *r, int64_t run_id, gc_run_row *out, char **errmsg);
/* Points of one run (run_id <= 0: of every run), in insertion order.
 * *pts is g_malloc'ed (g_free it). */
gc_status gc_results_get_points(gc_results *r, int64_t run_id, gc_result_point **pts, size_t *n,
				char **errmsg);
gc_status gc_results_get_params(gc_results *r, int64_t run_id, gc_param_row **rows, size_t *n,
				char **errmsg);

/* One run as stored: its row (id unused when stored), its points and its
 * parameters, all owned (gc_run_record_clear frees them). What a sweep's
 * worker hands to the one process that writes the results file, and what
 * a merge copies from one file into another. */
typedef struct gc_run_record {
	gc_run_row run;
	gc_result_point *pts;
	size_t npts;
	gc_param_row *prm;
	size_t nprm;
} gc_run_record;
void gc_run_record_clear(gc_run_record *rec);
/* Insert rec as a new run inside the caller's transaction; run_id may be
 * NULL. created NULL is "now". */
gc_status gc_results_insert_record(gc_results *r, const gc_run_record *rec, int64_t *run_id,
				   char **errmsg);
/* Open (create) path, insert rec in one transaction and close: nothing of
 * it on failure, and no file left that this call created. */
gc_status gc_results_store_record(const char *path, const gc_run_record *rec, char **errmsg);
/* Run run_id with its points and parameters. */
gc_status gc_results_get_record(gc_results *r, int64_t run_id, gc_run_record *out, char **errmsg);
/* rec as one buffer (g_free it) and back, between processes of the same
 * gcsim build (points travel as their bytes). Unpack fills out and returns
 * true, or returns false on a buffer that is not a whole record. */
void *gc_run_record_pack(const gc_run_record *rec, size_t *len);
bool gc_run_record_unpack(const void *buf, size_t len, gc_run_record *out);

/* CSV interchange. The writer returns GC_ERR_IO on a write error. */
extern const char gc_results_csv_header[];
gc_status gc_results_write_csv(FILE *f, const gc_run_info *info, const gc_result_point *pts,
			       size_t n);
/* Reads a file written by gc_results_write_csv. run receives the '#'
 * metadata (unknown keys ignored). Errors: GC_ERR_IO (unreadable),
 * GC_ERR_INPUT ("FILE:LINE: ..."). */
gc_status gc_results_read_csv(const char *path, gc_run_row *run, gc_result_point **pts, size_t *n,
			      char **errmsg);

/* Text-file helpers shared with the other CSV and log readers. The whole
 * file (*text, g_free) or its lines (*lines, split at '\n', g_strfreev);
 * GC_ERR_IO with "PATH: cannot read: REASON" in *errmsg. */
gc_status gc_read_text(const char *path, char **text, char **errmsg);
gc_status gc_read_lines(const char *path, char ***lines, char **errmsg);
/* s, all of it and not empty, as a finite number. */
bool gc_parse_real(const char *s, double *out);

/* "YYYY-MM-DDTHH:MM:SSZ" for now, into buf (>= 21 bytes). */
char *gc_results_now_iso(char *buf, size_t n);

#endif
