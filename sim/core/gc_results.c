/* SPDX-License-Identifier: MIT */
/*
 * gc_results: SQLite results store and its CSV interchange form.
 *
 * Prepared statements are compiled once at open and reset after each use.
 * Writes happen only inside an explicit transaction (begin/commit) so a
 * batch is all-or-nothing; the file is in WAL mode so a reader (a report)
 * can run while a sweep writes. Text columns are bound with SQLITE_STATIC:
 * the caller's strings outlive the sqlite3_step call that reads them.
 */
#include "gc_results.h"

#include <errno.h>
#include <glib.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct gc_results {
	sqlite3 *db;
	char *path;
	bool in_tx;
	bool created;	/* this open made the file */
	bool committed; /* a transaction was committed since */
	sqlite3_stmt *ins_run, *ins_point, *ins_param;
};

static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS runs("
	" id INTEGER PRIMARY KEY,"
	" kind TEXT NOT NULL CHECK (kind IN ('sim','hw','import')),"
	" label TEXT, scenario TEXT, config TEXT, device TEXT,"
	" created TEXT NOT NULL, command TEXT);"
	"CREATE TABLE IF NOT EXISTS points("
	" run_id INTEGER NOT NULL REFERENCES runs(id),"
	" collective TEXT NOT NULL, algo TEXT, dtype TEXT, nranks INTEGER,"
	" size_bytes INTEGER NOT NULL, count INTEGER, time_us REAL,"
	" algbw_GBps REAL, busbw_GBps REAL, min_us REAL, median_us REAL, p99_us REAL,"
	" iters INTEGER);"
	"CREATE INDEX IF NOT EXISTS points_run ON points(run_id);"
	"CREATE TABLE IF NOT EXISTS params("
	" run_id INTEGER NOT NULL REFERENCES runs(id),"
	" key TEXT NOT NULL, value REAL, unit TEXT);";

static gc_status db_err(gc_results *r, char **errmsg, const char *what)
{
	if (errmsg)
		*errmsg = g_strdup_printf("%s: %s: %s", r->path, what, sqlite3_errmsg(r->db));
	return GC_ERR_IO;
}

char *gc_results_now_iso(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

void gc_result_point_init(gc_result_point *p)
{
	memset(p, 0, sizeof(*p));
	p->time_us = p->algbw_GBps = p->busbw_GBps = NAN;
	p->min_us = p->median_us = p->p99_us = NAN;
}

void gc_run_row_clear(gc_run_row *r)
{
	g_free(r->kind);
	g_free(r->label);
	g_free(r->scenario);
	g_free(r->config);
	g_free(r->device);
	g_free(r->created);
	g_free(r->command);
	memset(r, 0, sizeof(*r));
}

/* The folder SQLite writes beside PATH (its journal, its WAL): where
 * PATH's symbolic links lead, as SQLite follows them. */
static char *journal_dir(const char *path)
{
	char *real = realpath(path, NULL);
	char *dir = g_path_get_dirname(real ? real : path);
	free(real);
	return dir;
}

gc_status gc_results_check_writable(const char *path, char **errmsg)
{
	struct stat sb;
	bool exists = stat(path, &sb) == 0;
	if (!exists && errno != ENOENT) {
		if (errmsg)
			*errmsg = g_strdup_printf("%s: cannot open results file: %s", path,
						  g_strerror(errno));
		return GC_ERR_IO;
	}
	if (exists && !S_ISREG(sb.st_mode)) {
		if (errmsg)
			*errmsg = g_strdup_printf("%s: not a results file: it is %s", path,
						  S_ISDIR(sb.st_mode) ? "a directory"
								      : "not a regular file");
		return GC_ERR_IO;
	}
	if (exists && access(path, W_OK) != 0) {
		if (errmsg)
			*errmsg = g_strdup_printf("%s: the results file is read-only (%s); make it "
						  "writable or name another results file",
						  path, g_strerror(errno));
		return GC_ERR_IO;
	}
	char *dir = journal_dir(path);
	int e = stat(dir, &sb) != 0 ? errno : !S_ISDIR(sb.st_mode) ? ENOTDIR : 0;
	gc_status st = GC_OK;
	if (e) {
		if (errmsg)
			*errmsg = g_strdup_printf("%s: cannot create the results file: %s", path,
						  g_strerror(e));
		st = GC_ERR_IO;
	} else if (access(dir, W_OK | X_OK) != 0) {
		if (errmsg)
			*errmsg = g_strdup_printf(
				"%s: cannot write results: its folder %s is not writable (%s), and "
				"SQLite keeps its journal there",
				path, dir, g_strerror(errno));
		st = GC_ERR_IO;
	}
	g_free(dir);
	return st;
}

/* The files this process has found sound (device, inode): a sweep opens
 * its results file once per cell, and the check reads the whole file. */
#define CHECKED_MAX 8
static struct {
	dev_t dev;
	ino_t ino;
} checked[CHECKED_MAX];
static int nchecked;

/* An existing file that SQLite cannot read as sound is refused, not
 * reused: its runs may be missing or unreadable, so cells would be run
 * again and stored twice beside the damaged ones. integrity_check does
 * what quick_check does and also matches every index against its table
 * (the lookup of a stored run goes through them); a file is read once per
 * process. */
static gc_status check_sound(gc_results *r, char **errmsg)
{
	struct stat sb;
	bool known = stat(r->path, &sb) == 0;
	for (int i = 0; known && i < nchecked; i++)
		if (checked[i].dev == sb.st_dev && checked[i].ino == sb.st_ino)
			return GC_OK;
	sqlite3_stmt *q = NULL;
	char *why = NULL;
	int rc = sqlite3_prepare_v2(r->db, "PRAGMA integrity_check(1)", -1, &q, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(q, 0);
		if (!v || strcmp(v, "ok") != 0)
			why = g_strdup(v ? v : "no answer");
	} else if (rc != SQLITE_DONE) {
		why = g_strdup(sqlite3_errmsg(r->db));
	}
	sqlite3_finalize(q);
	if (why) {
		/* one line: SQLite's report starts with a heading line */
		const char *head = "*** in database main ***";
		if (g_str_has_prefix(why, head))
			memmove(why, why + strlen(head), strlen(why + strlen(head)) + 1);
		g_strdelimit(g_strstrip(why), "\r\n", ' ');
		if (errmsg)
			*errmsg = g_strdup_printf(
				"%s: the results file is damaged (%s); gcsim does not use it: move it "
				"aside (or delete it) and run again, which starts a new one",
				r->path, why);
		g_free(why);
		return GC_ERR_IO;
	}
	if (known && nchecked < CHECKED_MAX) {
		checked[nchecked].dev = sb.st_dev;
		checked[nchecked++].ino = sb.st_ino;
	}
	return GC_OK;
}

gc_status gc_results_open(const char *path, bool create, gc_results **out, char **errmsg)
{
	*out = NULL;
	/* a writer is refused before SQLite makes anything (an empty file, a
	 * journal) where it could not go on: a read-only file or folder */
	if (create) {
		gc_status st = gc_results_check_writable(path, errmsg);
		if (st != GC_OK)
			return st;
	}
	struct stat sb;
	bool exists = stat(path, &sb) == 0;
	/* a reader of a file it may not write opens it read-only */
	bool ro = !create && exists && access(path, W_OK) != 0;
	gc_results *r = g_new0(gc_results, 1);
	r->path = g_strdup(path);
	r->created = !exists;
	int flags = ro ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
		       : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	/* A file in WAL mode is read through its shared-memory index, which
	 * a reader that may not write cannot make. Closed cleanly, such a
	 * file has no log beside it and is read as immutable; one with a log
	 * needs a writer to apply it first. */
	char *name = NULL;
	if (ro) {
		char *wal = g_strconcat(path, "-wal", NULL);
		bool has_log = g_file_test(wal, G_FILE_TEST_EXISTS);
		g_free(wal);
		if (has_log) {
			if (errmsg)
				*errmsg = g_strdup_printf("%s: the results file is read-only and has a "
							  "log (%s-wal) only a writer can apply; open it "
							  "once where it is writable",
							  path, path);
			gc_results_close(r);
			return GC_ERR_IO;
		}
		char *esc = g_uri_escape_string(path, "/", FALSE);
		name = g_strdup_printf("file:%s?immutable=1", esc);
		g_free(esc);
	}
	int orc = sqlite3_open_v2(name ? name : path, &r->db, flags, NULL);
	g_free(name);
	if (orc != SQLITE_OK) {
		gc_status st = db_err(r, errmsg, "cannot open results file");
		gc_results_close(r);
		return st;
	}
	sqlite3_busy_timeout(r->db, 5000);
	sqlite3_stmt *st = NULL;
	int version = -1;
	int rc = sqlite3_prepare_v2(r->db, "PRAGMA user_version", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		int code = sqlite3_extended_errcode(r->db) & 0xff;
		gc_status s = db_err(r, errmsg,
				     code == SQLITE_CORRUPT
					     ? "the results file is damaged; move it aside (or delete it) "
					       "and run again"
				     : code == SQLITE_NOTADB ? "not a results file"
				     : code == SQLITE_READONLY || code == SQLITE_CANTOPEN
					     ? "cannot read the results file"
					     : "cannot open results file");
		gc_results_close(r);
		return s;
	}
	version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (version != 0 && version != GC_RESULTS_SCHEMA) {
		if (errmsg)
			*errmsg = g_strdup_printf("%s: results schema version %d, this gcsim reads %d",
						  path, version, GC_RESULTS_SCHEMA);
		gc_results_close(r);
		return GC_ERR_IO;
	}
	if (exists) {
		gc_status s = check_sound(r, errmsg);
		if (s != GC_OK) {
			gc_results_close(r);
			return s;
		}
	}
	if (ro) {
		/* nothing to set up, nothing to write: a file of this schema
		 * is read as it is */
		if (version != GC_RESULTS_SCHEMA) {
			if (errmsg)
				*errmsg = g_strdup_printf("%s: not a results file (no gcsim tables), "
							  "and read-only",
							  path);
			gc_results_close(r);
			return GC_ERR_IO;
		}
		*out = r;
		return GC_OK;
	}
	char *sql = g_strdup_printf("PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; BEGIN; %s "
				    "PRAGMA user_version=%d; COMMIT;",
				    schema_sql, GC_RESULTS_SCHEMA);
	rc = sqlite3_exec(r->db, sql, NULL, NULL, NULL);
	g_free(sql);
	if (rc != SQLITE_OK) {
		int code = sqlite3_extended_errcode(r->db) & 0xff;
		gc_status s = db_err(r, errmsg,
				     code == SQLITE_READONLY ? "the results file is read-only"
							     : "cannot set up the schema");
		sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
		gc_results_close(r);
		return s;
	}
	if (sqlite3_prepare_v2(r->db,
			       "INSERT INTO runs(kind,label,scenario,config,device,created,command)"
			       " VALUES(?,?,?,?,?,?,?)",
			       -1, &r->ins_run, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(r->db,
			       "INSERT INTO points(run_id,collective,algo,dtype,nranks,size_bytes,count,"
			       "time_us,algbw_GBps,busbw_GBps,min_us,median_us,p99_us,iters)"
			       " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &r->ins_point, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(r->db, "INSERT INTO params(run_id,key,value,unit) VALUES(?,?,?,?)", -1,
			       &r->ins_param, NULL) != SQLITE_OK) {
		gc_status s = db_err(r, errmsg, "cannot prepare statements");
		gc_results_close(r);
		return s;
	}
	*out = r;
	return GC_OK;
}

void gc_results_discard(gc_results *r)
{
	if (!r)
		return;
	bool remove_it = r->created && !r->committed;
	char *path = remove_it ? g_strdup(r->path) : NULL;
	gc_results_close(r);
	if (path) {
		static const char *const side[] = {"", "-wal", "-shm", "-journal"};
		for (size_t i = 0; i < G_N_ELEMENTS(side); i++) {
			char *p = g_strconcat(path, side[i], NULL);
			unlink(p);
			g_free(p);
		}
		g_free(path);
	}
}

void gc_results_close(gc_results *r)
{
	if (!r)
		return;
	if (r->in_tx)
		gc_results_rollback(r);
	sqlite3_finalize(r->ins_run);
	sqlite3_finalize(r->ins_point);
	sqlite3_finalize(r->ins_param);
	sqlite3_close(r->db);
	g_free(r->path);
	g_free(r);
}

const char *gc_results_path(const gc_results *r)
{
	return r->path;
}

gc_status gc_results_begin(gc_results *r, char **errmsg)
{
	if (r->in_tx)
		return GC_OK;
	if (sqlite3_exec(r->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return db_err(r, errmsg, "cannot begin a transaction");
	r->in_tx = true;
	return GC_OK;
}

gc_status gc_results_commit(gc_results *r, char **errmsg)
{
	if (!r->in_tx)
		return GC_OK;
	if (sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		gc_status s = db_err(r, errmsg, "cannot commit");
		gc_results_rollback(r);
		return s;
	}
	r->in_tx = false;
	r->committed = true;
	return GC_OK;
}

void gc_results_rollback(gc_results *r)
{
	if (r->in_tx)
		sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
	r->in_tx = false;
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

static void bind_real(sqlite3_stmt *s, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

static gc_status step_done(gc_results *r, sqlite3_stmt *s, char **errmsg, const char *what)
{
	int rc = sqlite3_step(s);
	gc_status st = rc == SQLITE_DONE ? GC_OK : db_err(r, errmsg, what);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return st;
}

static gc_status need_tx(gc_results *r, char **errmsg)
{
	if (r->in_tx)
		return GC_OK;
	if (errmsg)
		*errmsg = g_strdup_printf("%s: write outside a transaction", r->path);
	return GC_ERR_INTERNAL;
}

gc_status gc_results_insert_run(gc_results *r, const gc_run_info *info, int64_t *run_id,
				char **errmsg)
{
	gc_status st = need_tx(r, errmsg);
	if (st != GC_OK)
		return st;
	char now[32];
	sqlite3_stmt *s = r->ins_run;
	bind_text(s, 1, info->kind ? info->kind : "sim");
	bind_text(s, 2, info->label);
	bind_text(s, 3, info->scenario);
	bind_text(s, 4, info->config);
	bind_text(s, 5, info->device);
	bind_text(s, 6, info->created ? info->created : gc_results_now_iso(now, sizeof(now)));
	bind_text(s, 7, info->command);
	st = step_done(r, s, errmsg, "cannot insert a run");
	if (st == GC_OK)
		*run_id = sqlite3_last_insert_rowid(r->db);
	return st;
}

gc_status gc_results_insert_point(gc_results *r, int64_t run_id, const gc_result_point *p,
				  char **errmsg)
{
	gc_status st = need_tx(r, errmsg);
	if (st != GC_OK)
		return st;
	sqlite3_stmt *s = r->ins_point;
	sqlite3_bind_int64(s, 1, run_id);
	bind_text(s, 2, p->collective);
	bind_text(s, 3, p->algo[0] ? p->algo : NULL);
	bind_text(s, 4, p->dtype[0] ? p->dtype : NULL);
	sqlite3_bind_int(s, 5, p->nranks);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)p->size_bytes);
	sqlite3_bind_int64(s, 7, (sqlite3_int64)p->count);
	bind_real(s, 8, p->time_us);
	bind_real(s, 9, p->algbw_GBps);
	bind_real(s, 10, p->busbw_GBps);
	bind_real(s, 11, p->min_us);
	bind_real(s, 12, p->median_us);
	bind_real(s, 13, p->p99_us);
	sqlite3_bind_int64(s, 14, p->iters);
	return step_done(r, s, errmsg, "cannot insert a point");
}

gc_status gc_results_insert_param(gc_results *r, int64_t run_id, const char *key, double value,
				  const char *unit, char **errmsg)
{
	gc_status st = need_tx(r, errmsg);
	if (st != GC_OK)
		return st;
	sqlite3_stmt *s = r->ins_param;
	sqlite3_bind_int64(s, 1, run_id);
	bind_text(s, 2, key);
	bind_real(s, 3, value);
	bind_text(s, 4, unit);
	return step_done(r, s, errmsg, "cannot insert a parameter");
}

static char *col_dup(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return t ? g_strdup((const char *)t) : NULL;
}

static double col_real(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

static void col_copy(sqlite3_stmt *s, int i, char *dst, size_t n)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	g_strlcpy(dst, t ? (const char *)t : "", n);
}

gc_status gc_results_last_run(gc_results *r, const char *kind, int64_t *run_id, char **errmsg)
{
	sqlite3_stmt *s = NULL;
	const char *sql = kind ? "SELECT max(id) FROM runs WHERE kind=?" : "SELECT max(id) FROM runs";
	if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_err(r, errmsg, "cannot query runs");
	if (kind)
		sqlite3_bind_text(s, 1, kind, -1, SQLITE_STATIC);
	gc_status st = GC_OK;
	if (sqlite3_step(s) != SQLITE_ROW || sqlite3_column_type(s, 0) == SQLITE_NULL) {
		if (errmsg)
			*errmsg = g_strdup_printf("%s: no %s%srun recorded", r->path, kind ? kind : "",
						  kind ? " " : "");
		st = GC_ERR_INPUT;
	} else {
		*run_id = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	return st;
}

gc_status gc_results_get_run(gc_results *r, int64_t run_id, gc_run_row *out, char **errmsg)
{
	memset(out, 0, sizeof(*out));
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(r->db,
			       "SELECT id,kind,label,scenario,config,device,created,command FROM runs "
			       "WHERE id=?",
			       -1, &s, NULL) != SQLITE_OK)
		return db_err(r, errmsg, "cannot query runs");
	sqlite3_bind_int64(s, 1, run_id);
	gc_status st = GC_OK;
	if (sqlite3_step(s) == SQLITE_ROW) {
		out->id = sqlite3_column_int64(s, 0);
		out->kind = col_dup(s, 1);
		out->label = col_dup(s, 2);
		out->scenario = col_dup(s, 3);
		out->config = col_dup(s, 4);
		out->device = col_dup(s, 5);
		out->created = col_dup(s, 6);
		out->command = col_dup(s, 7);
	} else {
		if (errmsg)
			*errmsg = g_strdup_printf("%s: no run with id %lld", r->path, (long long)run_id);
		st = GC_ERR_INPUT;
	}
	sqlite3_finalize(s);
	return st;
}

/* The columns of one row of the points query (in gc_results_csv_header
 * order) into p: NULL, or what is wrong with it (g_free). A text column
 * must fit its field (collective is never empty); a count is a whole number
 * of 0 or more (NULL: 0); a time or bandwidth is a number of 0 or more
 * (NULL: unknown). A store written by another program, or edited, fails
 * here rather than giving points no one measured. */
static char *point_columns(sqlite3_stmt *s, gc_result_point *p)
{
	gc_result_point_init(p);
	char *text[3] = {p->collective, p->algo, p->dtype};
	size_t cap[3] = {sizeof(p->collective), sizeof(p->algo), sizeof(p->dtype)};
	for (int i = 0; i < 3; i++) {
		int t = sqlite3_column_type(s, i);
		const unsigned char *v = sqlite3_column_text(s, i);
		size_t len = v ? strlen((const char *)v) : 0;
		if ((t != SQLITE_TEXT && t != SQLITE_NULL) || len >= cap[i] || (i == 0 && !len))
			return g_strdup_printf("%s: expected %s of at most %zu characters",
					       sqlite3_column_name(s, i), i == 0 ? "a name" : "text",
					       cap[i] - 1);
		g_strlcpy(text[i], v ? (const char *)v : "", cap[i]);
	}
	int64_t whole[4] = {0, 0, 0, 0};
	const int wcol[4] = {3, 4, 5, 12};
	for (int i = 0; i < 4; i++) {
		int t = sqlite3_column_type(s, wcol[i]);
		if (t == SQLITE_INTEGER)
			whole[i] = sqlite3_column_int64(s, wcol[i]);
		if ((t != SQLITE_INTEGER && t != SQLITE_NULL) || whole[i] < 0 ||
		    (i == 0 && whole[i] >= 1 << 30))
			return g_strdup_printf("%s: expected a whole number%s",
					       sqlite3_column_name(s, wcol[i]),
					       i == 0 ? " from 0 below 2^30" : " of 0 or more");
	}
	p->nranks = (int)whole[0];
	p->size_bytes = (uint64_t)whole[1];
	p->count = (uint64_t)whole[2];
	p->iters = whole[3];
	double *real[6] = {&p->time_us, &p->algbw_GBps, &p->busbw_GBps,
			   &p->min_us,	 &p->median_us,	 &p->p99_us};
	for (int i = 0; i < 6; i++) {
		int t = sqlite3_column_type(s, 6 + i);
		if (t == SQLITE_INTEGER || t == SQLITE_FLOAT)
			*real[i] = sqlite3_column_double(s, 6 + i);
		if ((t != SQLITE_INTEGER && t != SQLITE_FLOAT && t != SQLITE_NULL) ||
		    !(isnan(*real[i]) || (isfinite(*real[i]) && *real[i] >= 0)))
			return g_strdup_printf("%s: expected a number of 0 or more, or NULL",
					       sqlite3_column_name(s, 6 + i));
	}
	return NULL;
}

gc_status gc_results_get_points(gc_results *r, int64_t run_id, gc_result_point **pts, size_t *n,
				char **errmsg)
{
	*pts = NULL;
	*n = 0;
	sqlite3_stmt *s = NULL;
	const char *sql = run_id > 0
				  ? "SELECT collective,algo,dtype,nranks,size_bytes,count,time_us,algbw_GBps,"
				    "busbw_GBps,min_us,median_us,p99_us,iters FROM points WHERE run_id=? "
				    "ORDER BY rowid"
				  : "SELECT collective,algo,dtype,nranks,size_bytes,count,time_us,algbw_GBps,"
				    "busbw_GBps,min_us,median_us,p99_us,iters FROM points ORDER BY rowid";
	if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_err(r, errmsg, "cannot query points");
	if (run_id > 0)
		sqlite3_bind_int64(s, 1, run_id);
	GArray *a = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	int rc;
	char *why = NULL;
	while (!why && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		gc_result_point p;
		why = point_columns(s, &p);
		if (!why)
			g_array_append_val(a, p);
		else if (errmsg)
			*errmsg = g_strdup_printf("%s: point %u: %s", r->path, a->len + 1, why);
	}
	if (why) {
		g_free(why);
		sqlite3_finalize(s);
		g_array_free(a, TRUE);
		return GC_ERR_INPUT;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		g_array_free(a, TRUE);
		return db_err(r, errmsg, "cannot read points");
	}
	*n = a->len;
	*pts = (gc_result_point *)(void *)g_array_free(a, FALSE);
	return GC_OK;
}

gc_status gc_results_get_params(gc_results *r, int64_t run_id, gc_param_row **rows, size_t *n,
				char **errmsg)
{
	*rows = NULL;
	*n = 0;
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(r->db, "SELECT key,value,unit FROM params WHERE run_id=? ORDER BY rowid",
			       -1, &s, NULL) != SQLITE_OK)
		return db_err(r, errmsg, "cannot query params");
	sqlite3_bind_int64(s, 1, run_id);
	GArray *a = g_array_new(FALSE, TRUE, sizeof(gc_param_row));
	while (sqlite3_step(s) == SQLITE_ROW) {
		gc_param_row p;
		col_copy(s, 0, p.key, sizeof(p.key));
		p.value = col_real(s, 1);
		col_copy(s, 2, p.unit, sizeof(p.unit));
		g_array_append_val(a, p);
	}
	sqlite3_finalize(s);
	*n = a->len;
	*rows = (gc_param_row *)(void *)g_array_free(a, FALSE);
	return GC_OK;
}

/* ---- whole runs ---------------------------------------------------------- */

void gc_run_record_clear(gc_run_record *rec)
{
	gc_run_row_clear(&rec->run);
	g_free(rec->pts);
	g_free(rec->prm);
	memset(rec, 0, sizeof(*rec));
}

gc_status gc_results_insert_record(gc_results *r, const gc_run_record *rec, int64_t *run_id,
				   char **errmsg)
{
	const gc_run_row *w = &rec->run;
	gc_run_info info = {.kind = w->kind, .label = w->label, .scenario = w->scenario,
			    .config = w->config, .device = w->device, .created = w->created,
			    .command = w->command};
	int64_t id = 0;
	gc_status st = gc_results_insert_run(r, &info, &id, errmsg);
	for (size_t i = 0; i < rec->npts && st == GC_OK; i++)
		st = gc_results_insert_point(r, id, &rec->pts[i], errmsg);
	for (size_t i = 0; i < rec->nprm && st == GC_OK; i++)
		st = gc_results_insert_param(r, id, rec->prm[i].key, rec->prm[i].value,
					     rec->prm[i].unit[0] ? rec->prm[i].unit : NULL, errmsg);
	if (st == GC_OK && run_id)
		*run_id = id;
	return st;
}

gc_status gc_results_store_record(const char *path, const gc_run_record *rec, char **errmsg)
{
	gc_results *db = NULL;
	gc_status st = gc_results_open(path, true, &db, errmsg);
	if (st == GC_OK)
		st = gc_results_begin(db, errmsg);
	if (st == GC_OK)
		st = gc_results_insert_record(db, rec, NULL, errmsg);
	if (st == GC_OK)
		st = gc_results_commit(db, errmsg);
	if (st == GC_OK)
		gc_results_close(db);
	else if (db) /* rolled back; a file this call created goes too */
		gc_results_discard(db);
	return st;
}

gc_status gc_results_get_record(gc_results *r, int64_t run_id, gc_run_record *out, char **errmsg)
{
	memset(out, 0, sizeof(*out));
	gc_status st = gc_results_get_run(r, run_id, &out->run, errmsg);
	if (st == GC_OK)
		st = gc_results_get_points(r, run_id, &out->pts, &out->npts, errmsg);
	if (st == GC_OK)
		st = gc_results_get_params(r, run_id, &out->prm, &out->nprm, errmsg);
	if (st != GC_OK)
		gc_run_record_clear(out);
	return st;
}

/* The packed form: the seven row strings, each a uint32 length (UINT32_MAX
 * for NULL) and its bytes, then the point and parameter counts (uint64)
 * and their structs' bytes. */
static void pack_str(GByteArray *b, const char *s)
{
	uint32_t n = s ? (uint32_t)strlen(s) : UINT32_MAX;
	g_byte_array_append(b, (const guint8 *)&n, sizeof(n));
	if (s)
		g_byte_array_append(b, (const guint8 *)s, n);
}

void *gc_run_record_pack(const gc_run_record *rec, size_t *len)
{
	GByteArray *b = g_byte_array_new();
	const gc_run_row *w = &rec->run;
	const char *strs[] = {w->kind, w->label, w->scenario, w->config, w->device, w->created,
			      w->command};
	for (size_t i = 0; i < G_N_ELEMENTS(strs); i++)
		pack_str(b, strs[i]);
	uint64_t n[2] = {rec->npts, rec->nprm};
	g_byte_array_append(b, (const guint8 *)n, sizeof(n));
	if (rec->npts)
		g_byte_array_append(b, (const guint8 *)rec->pts,
				    (guint)(rec->npts * sizeof(gc_result_point)));
	if (rec->nprm)
		g_byte_array_append(b, (const guint8 *)rec->prm,
				    (guint)(rec->nprm * sizeof(gc_param_row)));
	*len = b->len;
	return g_byte_array_free(b, FALSE);
}

static bool take(const guint8 **p, const guint8 *end, void *dst, size_t n)
{
	if ((size_t)(end - *p) < n)
		return false;
	memcpy(dst, *p, n);
	*p += n;
	return true;
}

static bool unpack_str(const guint8 **p, const guint8 *end, char **out)
{
	uint32_t n;
	*out = NULL;
	if (!take(p, end, &n, sizeof(n)))
		return false;
	if (n == UINT32_MAX)
		return true;
	if ((size_t)(end - *p) < n || memchr(*p, 0, n))
		return false;
	*out = g_strndup((const char *)*p, n);
	*p += n;
	return true;
}

bool gc_run_record_unpack(const void *buf, size_t len, gc_run_record *out)
{
	memset(out, 0, sizeof(*out));
	const guint8 *p = buf, *end = p + len;
	gc_run_row *w = &out->run;
	char **strs[] = {&w->kind, &w->label, &w->scenario, &w->config, &w->device, &w->created,
			 &w->command};
	bool ok = true;
	for (size_t i = 0; i < G_N_ELEMENTS(strs) && ok; i++)
		ok = unpack_str(&p, end, strs[i]);
	uint64_t n[2] = {0, 0};
	ok = ok && take(&p, end, n, sizeof(n)) &&
	     n[0] <= (uint64_t)(end - p) / sizeof(gc_result_point) &&
	     n[1] <= ((uint64_t)(end - p) - n[0] * sizeof(gc_result_point)) / sizeof(gc_param_row) &&
	     (uint64_t)(end - p) == n[0] * sizeof(gc_result_point) + n[1] * sizeof(gc_param_row);
	if (ok) {
		out->npts = (size_t)n[0];
		out->nprm = (size_t)n[1];
		out->pts = g_memdup2(p, out->npts * sizeof(gc_result_point));
		out->prm = g_memdup2(p + out->npts * sizeof(gc_result_point),
				     out->nprm * sizeof(gc_param_row));
		/* the fixed text fields end in their own bytes */
		for (size_t i = 0; i < out->npts && ok; i++) {
			gc_result_point *q = &out->pts[i];
			ok = memchr(q->collective, 0, sizeof(q->collective)) &&
			     memchr(q->algo, 0, sizeof(q->algo)) && memchr(q->dtype, 0, sizeof(q->dtype));
		}
		for (size_t i = 0; i < out->nprm && ok; i++)
			ok = memchr(out->prm[i].key, 0, sizeof(out->prm[i].key)) &&
			     memchr(out->prm[i].unit, 0, sizeof(out->prm[i].unit));
	}
	if (!ok)
		gc_run_record_clear(out);
	return ok;
}

/* ---- CSV interchange ---------------------------------------------------- */

const char gc_results_csv_header[] = "collective,algo,dtype,nranks,size_bytes,count,time_us,"
				     "algbw_GBps,busbw_GBps,min_us,median_us,p99_us,iters";

static void csv_real(GString *g, double v)
{
	if (isfinite(v))
		g_string_append_printf(g, ",%.9g", v);
	else
		g_string_append_c(g, ',');
}

/* Metadata values are single-line; newlines would end the comment. */
static void meta_line(GString *g, const char *key, const char *v)
{
	if (!v)
		return;
	g_string_append_printf(g, "# %s: ", key);
	for (const char *c = v; *c; c++)
		g_string_append_c(g, (*c == '\n' || *c == '\r') ? ' ' : *c);
	g_string_append_c(g, '\n');
}

gc_status gc_results_write_csv(FILE *f, const gc_run_info *info, const gc_result_point *pts,
			       size_t n)
{
	GString *g = g_string_new(NULL);
	if (info) {
		meta_line(g, "kind", info->kind);
		meta_line(g, "label", info->label);
		meta_line(g, "scenario", info->scenario);
		meta_line(g, "device", info->device);
		meta_line(g, "created", info->created);
		meta_line(g, "command", info->command);
	}
	g_string_append_printf(g, "%s\n", gc_results_csv_header);
	for (size_t i = 0; i < n; i++) {
		const gc_result_point *p = &pts[i];
		g_string_append_printf(g, "%s,%s,%s,%d,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT,
				       p->collective, p->algo, p->dtype, p->nranks, p->size_bytes,
				       p->count);
		csv_real(g, p->time_us);
		csv_real(g, p->algbw_GBps);
		csv_real(g, p->busbw_GBps);
		csv_real(g, p->min_us);
		csv_real(g, p->median_us);
		csv_real(g, p->p99_us);
		g_string_append_printf(g, ",%" G_GINT64_FORMAT "\n", p->iters);
	}
	size_t w = fwrite(g->str, 1, g->len, f);
	gc_status st = (w == g->len && fflush(f) == 0) ? GC_OK : GC_ERR_IO;
	g_string_free(g, TRUE);
	return st;
}

gc_status gc_read_text(const char *path, char **text, char **errmsg)
{
	GError *gerr = NULL;
	*text = NULL;
	if (!g_file_get_contents(path, text, NULL, &gerr)) {
		*errmsg = g_strdup_printf("%s: cannot read: %s", path, gerr->message);
		g_error_free(gerr);
		return GC_ERR_IO;
	}
	return GC_OK;
}

gc_status gc_read_lines(const char *path, char ***lines, char **errmsg)
{
	char *text = NULL;
	gc_status st = gc_read_text(path, &text, errmsg);
	*lines = NULL;
	if (st != GC_OK)
		return st;
	*lines = g_strsplit(text, "\n", -1);
	g_free(text);
	return GC_OK;
}

bool gc_parse_real(const char *s, double *out)
{
	char *end;
	if (!*s)
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return !errno && *end == '\0' && isfinite(*out);
}

/* An empty field is a missing value (NaN). */
static bool parse_real_field(const char *s, double *out)
{
	if (!*s) {
		*out = NAN;
		return true;
	}
	return gc_parse_real(s, out);
}

static bool parse_u64_field(const char *s, uint64_t *out)
{
	if (!*s || *s == '-')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	*out = v;
	return !errno && *end == '\0';
}

/* The columns of a points row, in gc_results_csv_header order. */
static const char *const point_cols[13] = {
	"collective", "algo",	    "dtype",  "nranks", "size_bytes", "count", "time_us",
	"algbw_GBps", "busbw_GBps", "min_us", "median_us", "p99_us", "iters"};

/* One points row (its fields split at ',') into p: NULL, or what is wrong
 * with it, naming the column and the value (g_free). The counts are whole
 * numbers, the times and bandwidths numbers of 0 or more, empty when
 * unknown. */
static char *point_row(char **f, gc_result_point *p)
{
	gc_result_point_init(p);
	guint nf = g_strv_length(f);
	if (nf != 13)
		return g_strdup_printf("expected 13 fields, got %u: %s", nf, gc_results_csv_header);
	char *text[3] = {p->collective, p->algo, p->dtype};
	size_t cap[3] = {sizeof(p->collective), sizeof(p->algo), sizeof(p->dtype)};
	for (int i = 0; i < 3; i++) {
		if (strlen(f[i]) >= cap[i] || (i == 0 && !f[i][0]))
			return g_strdup_printf("%s: expected %s of at most %zu characters, got '%.40s'",
					       point_cols[i], i == 0 ? "a name" : "text", cap[i] - 1,
					       f[i]);
		g_strlcpy(text[i], f[i], cap[i]);
	}
	uint64_t nr = 0, it = 0;
	uint64_t *whole[4] = {&nr, &p->size_bytes, &p->count, &it};
	const int wcol[4] = {3, 4, 5, 12};
	for (int i = 0; i < 4; i++) {
		const char *v = f[wcol[i]];
		if (!parse_u64_field(v, whole[i]) || (i == 0 && nr >= 1u << 30) ||
		    (i == 3 && it > INT64_MAX))
			return g_strdup_printf("%s: expected a whole number%s, got '%.40s'",
					       point_cols[wcol[i]], i == 0 ? " below 2^30" : "", v);
	}
	double *real[6] = {&p->time_us, &p->algbw_GBps, &p->busbw_GBps,
			   &p->min_us,	 &p->median_us,	 &p->p99_us};
	for (int i = 0; i < 6; i++)
		if (!parse_real_field(f[6 + i], real[i]) || *real[i] < 0)
			return g_strdup_printf("%s: expected a number of 0 or more (empty when "
					       "unknown), got '%.40s'",
					       point_cols[6 + i], f[6 + i]);
	p->nranks = (int)nr;
	p->iters = (int64_t)it;
	return NULL;
}

gc_status gc_results_read_csv(const char *path, gc_run_row *run, gc_result_point **pts, size_t *n,
			      char **errmsg)
{
	*pts = NULL;
	*n = 0;
	memset(run, 0, sizeof(*run));
	char **lines = NULL;
	if (gc_read_lines(path, &lines, errmsg) != GC_OK)
		return GC_ERR_IO;
	GArray *a = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	gc_status st = GC_OK;
	bool header = false;
	for (int ln = 0; lines[ln]; ln++) {
		char *l = g_strstrip(lines[ln]);
		if (!*l)
			continue;
		if (l[0] == '#') {
			char *c = strchr(l, ':');
			if (!c)
				continue;
			*c = '\0';
			char *k = g_strstrip(l + 1), *v = g_strstrip(c + 1);
			char **slot = !strcmp(k, "kind")       ? &run->kind
				      : !strcmp(k, "label")    ? &run->label
				      : !strcmp(k, "scenario") ? &run->scenario
				      : !strcmp(k, "device")   ? &run->device
				      : !strcmp(k, "created")  ? &run->created
				      : !strcmp(k, "command")  ? &run->command
							       : NULL;
			if (slot) {
				g_free(*slot);
				*slot = g_strdup(v);
			}
			continue;
		}
		if (!header) {
			if (strcmp(l, gc_results_csv_header) != 0) {
				*errmsg = g_strdup_printf("%s:%d: expected the header '%s'", path, ln + 1,
							  gc_results_csv_header);
				st = GC_ERR_INPUT;
				break;
			}
			header = true;
			continue;
		}
		char **f = g_strsplit(l, ",", -1);
		gc_result_point p;
		char *why = point_row(f, &p);
		g_strfreev(f);
		if (why) {
			*errmsg = g_strdup_printf("%s:%d: %s", path, ln + 1, why);
			g_free(why);
			st = GC_ERR_INPUT;
			break;
		}
		g_array_append_val(a, p);
	}
	g_strfreev(lines);
	if (st == GC_OK && !header) {
		*errmsg = g_strdup_printf("%s: no header line '%s'", path, gc_results_csv_header);
		st = GC_ERR_INPUT;
	}
	if (st != GC_OK) {
		g_array_free(a, TRUE);
		gc_run_row_clear(run);
		return st;
	}
	*n = a->len;
	*pts = (gc_result_point *)(void *)g_array_free(a, FALSE);
	return GC_OK;
}
