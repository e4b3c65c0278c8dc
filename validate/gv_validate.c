/* SPDX-License-Identifier: MIT */
/*
 * gv_validate: loading measurements and predictions, point-by-point
 * comparison with tolerance bands, reports (see gv_validate.h).
 */
#include "gv_validate.h"

#include <errno.h>
#include <glib.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

double gv_busbw_factor(const char *c, int nranks)
{
	double n = nranks;
	if (nranks < 1)
		return NAN;
	if (!strcmp(c, "allreduce"))
		return 2 * (n - 1) / n;
	if (!strcmp(c, "allgather") || !strcmp(c, "reducescatter") || !strcmp(c, "alltoall"))
		return (n - 1) / n;
	if (!strcmp(c, "broadcast") || !strcmp(c, "reduce") || !strcmp(c, "sendrecv"))
		return 1;
	return NAN;
}

/* Reference spelling (all_reduce, reduce_scatter, ...) to gcsim's. */
static void norm_coll(const char *in, char *out, size_t n)
{
	size_t k = 0;
	for (const char *c = in; *c && k + 1 < n; c++)
		if (*c != '_' && *c != '-')
			out[k++] = g_ascii_tolower(*c);
	out[k] = '\0';
}

/* Splits one CSV line honouring double quotes. */
static GPtrArray *csv_fields(const char *l)
{
	GPtrArray *f = g_ptr_array_new_with_free_func(g_free);
	GString *cur = g_string_new(NULL);
	bool q = false;
	for (const char *c = l;; c++) {
		if (*c == '"') {
			q = !q;
		} else if ((*c == ',' && !q) || !*c) {
			g_ptr_array_add(f, g_string_free(cur, FALSE));
			if (!*c)
				break;
			cur = g_string_new(NULL);
		} else {
			g_string_append_c(cur, *c);
		}
	}
	return f;
}

/* One data row of a reference CSV: append its point (if it makes one) to
 * a, or set *errmsg naming path:line. */
typedef gc_status (*ref_row_fn)(const char *path, int line, const char *const *v, guint nf,
				GArray *a, char **errmsg);

/* The reference CSV skeleton: '#' comments and blank lines skipped, a
 * header line starting with `header` (`shown` in the error), then rows. */
static gc_status load_ref_csv(const char *path, const char *header, const char *shown,
			      ref_row_fn row, gc_result_point **pts, size_t *n, char **errmsg)
{
	char **lines = NULL;
	if (gc_read_lines(path, &lines, errmsg) != GC_OK)
		return GC_ERR_IO;
	GArray *a = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	gc_status st = GC_OK;
	bool seen = false;
	for (int i = 0; lines[i] && st == GC_OK; i++) {
		char *l = g_strstrip(lines[i]);
		if (!*l || *l == '#')
			continue;
		if (!seen) {
			if (!g_str_has_prefix(l, header)) {
				*errmsg = g_strdup_printf("%s:%d: expected the %s", path, i + 1, shown);
				st = GC_ERR_INPUT;
			}
			seen = true;
			continue;
		}
		GPtrArray *f = csv_fields(l);
		st = row(path, i + 1, (const char *const *)f->pdata, f->len, a, errmsg);
		g_ptr_array_free(f, TRUE);
	}
	g_strfreev(lines);
	if (st == GC_OK && !seen) {
		*errmsg = g_strdup_printf("%s: empty (no header line)", path);
		st = GC_ERR_INPUT;
	}
	if (st != GC_OK) {
		g_array_free(a, TRUE);
		return st;
	}
	*n = a->len;
	*pts = (gc_result_point *)(void *)g_array_free(a, FALSE);
	return GC_OK;
}

/* One optional figure of a reference row: empty (NaN) or a number of 0 or
 * more. */
static bool ref_figure(const char *v, double *out)
{
	*out = NAN;
	return !*v || (gc_parse_real(v, out) && *out >= 0);
}

static gc_status nccl_row(const char *path, int line, const char *const *v, guint nf, GArray *a,
			  char **errmsg)
{
	gc_result_point p;
	gc_result_point_init(&p);
	double gpus, bytes, bus, alg, t;
	if (nf < 9 || !gc_parse_real(v[1], &gpus) || gpus < 1 || gpus >= 1 << 30 ||
	    gpus != floor(gpus) || !gc_parse_real(v[5], &bytes) || bytes < 0 || bytes >= 0x1p64 ||
	    bytes != floor(bytes)) {
		*errmsg = g_strdup_printf("%s:%d: expected gpus (1 to 2^30) and bytes as whole numbers",
					  path, line);
		return GC_ERR_INPUT;
	}
	if (!ref_figure(v[6], &bus) || !ref_figure(v[7], &alg) || !ref_figure(v[8], &t)) {
		*errmsg = g_strdup_printf("%s:%d: expected busbw_GBps, algbw_GBps and time_us as "
					  "numbers of 0 or more, or empty",
					  path, line);
		return GC_ERR_INPUT;
	}
	norm_coll(v[3], p.collective, sizeof(p.collective));
	g_strlcpy(p.algo, v[4], sizeof(p.algo));
	p.nranks = (int)gpus;
	p.size_bytes = (uint64_t)bytes;
	double fac = gv_busbw_factor(p.collective, p.nranks);
	p.time_us = t;
	p.algbw_GBps = alg;
	p.busbw_GBps = bus;
	if (!isfinite(p.algbw_GBps) && isfinite(p.busbw_GBps) && fac > 0)
		p.algbw_GBps = p.busbw_GBps / fac;
	if (!isfinite(p.time_us) && p.algbw_GBps > 0)
		p.time_us = bytes / (p.algbw_GBps * 1e3);
	if (isfinite(p.time_us))
		g_array_append_val(a, p);
	return GC_OK;
}

gc_status gv_load_reference_csv(const char *path, gc_result_point **pts, size_t *n, char **errmsg)
{
	return load_ref_csv(path, "system,gpus,nodes,collective,algo,bytes,busbw_GBps,algbw_GBps,time_us",
			    "reference header system,gpus,nodes,collective,algo,bytes,busbw_GBps,"
			    "algbw_GBps,time_us,source",
			    nccl_row, pts, n, errmsg);
}

/* shared/reference/moe_published.csv: impl,transport,hardware,ep,
 * tokens_per_gpu,phase,latency_us,... One point per dispatch or combine row
 * (other phases are skipped): collective = phase, algo = the
 * implementation, ranks = ep, size 0 (the rows give no message size). */
static gc_status moe_row(const char *path, int line, const char *const *v, guint nf, GArray *a,
			 char **errmsg)
{
	double ep, t;
	if (nf < 7 || !gc_parse_real(v[3], &ep) || ep < 1 || ep > 1048576 || !gc_parse_real(v[6], &t) ||
	    !(t > 0)) {
		*errmsg = g_strdup_printf("%s:%d: expected ep and latency_us as positive numbers", path,
					  line);
		return GC_ERR_INPUT;
	}
	if (strcmp(v[5], "dispatch") != 0 && strcmp(v[5], "combine") != 0)
		return GC_OK;
	gc_result_point p;
	gc_result_point_init(&p);
	g_strlcpy(p.collective, v[5], sizeof(p.collective));
	g_strlcpy(p.algo, v[0], sizeof(p.algo));
	p.nranks = (int)ep;
	p.size_bytes = 0;
	p.time_us = t;
	g_array_append_val(a, p);
	return GC_OK;
}

gc_status gv_load_moe_csv(const char *path, gc_result_point **pts, size_t *n, char **errmsg)
{
	return load_ref_csv(path, "impl,transport,hardware,ep,tokens_per_gpu,phase,latency_us",
			    "MoE reference header impl,transport,hardware,ep,tokens_per_gpu,phase,"
			    "latency_us,...",
			    moe_row, pts, n, errmsg);
}

gc_status gv_load_points(const char *path, gc_result_point **pts, size_t *n, char **errmsg)
{
	*pts = NULL;
	*n = 0;
	FILE *f = fopen(path, "rb");
	if (!f) {
		*errmsg = g_strdup_printf("%s: cannot open: %s", path, g_strerror(errno));
		return GC_ERR_IO;
	}
	char head[4096];
	size_t k = fread(head, 1, sizeof(head) - 1, f);
	head[k] = '\0';
	fclose(f);
	if (k >= 16 && !memcmp(head, "SQLite format 3", 16)) {
		gc_results *r = NULL;
		gc_status st = gc_results_open(path, false, &r, errmsg);
		if (st == GC_OK)
			st = gc_results_get_points(r, 0, pts, n, errmsg);
		gc_results_close(r);
		return st;
	}
	if (strstr(head, "system,gpus,nodes,collective"))
		return gv_load_reference_csv(path, pts, n, errmsg);
	if (strstr(head, "impl,transport,hardware,ep,tokens_per_gpu,phase"))
		return gv_load_moe_csv(path, pts, n, errmsg);
	gc_run_row run;
	gc_status st = gc_results_read_csv(path, &run, pts, n, errmsg);
	gc_run_row_clear(&run);
	return st;
}

/* The value of "collective.protocol: VALUE  # origin" in a stored
 * configuration (gc_config_dump), into out; false when it has none. */
static bool config_protocol(const char *config, char *out, size_t n)
{
	static const char key[] = "collective.protocol: ";
	for (const char *l = config; l && *l;) {
		if (g_str_has_prefix(l, key)) {
			const char *v = l + strlen(key);
			size_t len = strcspn(v, " \n");
			if (len == 0 || len >= n)
				return false;
			memcpy(out, v, len);
			out[len] = '\0';
			return true;
		}
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	return false;
}

/* "ID 'LABEL' (KIND, CREATED)" of each run, newest first (at most 10). */
static char *list_runs(GPtrArray *rows)
{
	GString *g = g_string_new(NULL);
	for (guint i = 0; i < rows->len && i < 10; i++) {
		const gc_run_row *r = g_ptr_array_index(rows, i);
		g_string_append_printf(g, "%s%" G_GINT64_FORMAT " '%.60s' (%s%s%s)", i ? "; " : "",
				       r->id, r->label ? r->label : "", r->kind ? r->kind : "run",
				       r->created ? ", " : "", r->created ? r->created : "");
	}
	if (rows->len > 10)
		g_string_append_printf(g, "; and %u older", rows->len - 10);
	return g_string_free(g, FALSE);
}

static void run_row_free(gpointer p)
{
	gc_run_row_clear(p);
	g_free(p);
}

/* The runs of a results file, newest first. */
static void runs_newest_first(gc_results *db, GPtrArray *rows)
{
	int64_t last = 0;
	char *e = NULL;
	if (gc_results_last_run(db, NULL, &last, &e) != GC_OK) {
		g_free(e); /* no run yet: an empty list */
		return;
	}
	for (int64_t id = last; id >= 1; id--) {
		gc_run_row *r = g_new0(gc_run_row, 1);
		if (gc_results_get_run(db, id, r, &e) != GC_OK) {
			g_clear_pointer(&e, g_free); /* no run of that id */
			g_free(r);
			continue;
		}
		g_ptr_array_add(rows, r);
	}
}

gc_status gv_load_points_run(const char *path, const char *run, gc_result_point **pts, size_t *n,
			     gv_source *src, char **errmsg)
{
	gv_source dummy;
	if (!src)
		src = &dummy;
	memset(src, 0, sizeof(*src));
	*pts = NULL;
	*n = 0;
	bool every = !run || !strcmp(run, "all"), latest = run && !strcmp(run, "latest");
	FILE *f = fopen(path, "rb");
	if (!f) {
		*errmsg = g_strdup_printf("%s: cannot open: %s", path, g_strerror(errno));
		return GC_ERR_IO;
	}
	char head[16];
	size_t k = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (k < 16 || memcmp(head, "SQLite format 3", 16) != 0) {
		/* a CSV: a file of points is one run, a reference file none */
		gc_status st = gv_load_points(path, pts, n, errmsg);
		gc_run_row row = {0};
		gc_result_point *tmp = NULL;
		size_t nt = 0;
		char *e = NULL;
		bool points = gc_results_read_csv(path, &row, &tmp, &nt, &e) == GC_OK;
		g_free(tmp);
		g_free(e);
		src->runs = points;
		if (st == GC_OK && !every && !latest &&
		    !(points && row.label && !strcmp(row.label, run))) {
			*errmsg = points ? g_strdup_printf("%s: no run labelled '%.60s': a CSV file of "
							   "points holds one run, labelled '%.60s'",
							   path, run, row.label ? row.label : "")
					 : g_strdup_printf("%s: --run '%.60s': a reference CSV holds "
							   "no runs; --run picks among the runs of a "
							   "results file",
							   path, run);
			g_clear_pointer(pts, g_free);
			*n = 0;
			st = GC_ERR_INPUT;
		}
		gc_run_row_clear(&row);
		return st;
	}
	gc_results *db = NULL;
	gc_status st = gc_results_open(path, false, &db, errmsg);
	GPtrArray *rows = g_ptr_array_new_with_free_func(run_row_free);
	GPtrArray *pick = g_ptr_array_new();
	if (st == GC_OK)
		runs_newest_first(db, rows);
	for (guint i = 0; st == GC_OK && i < rows->len; i++) {
		gc_run_row *r = g_ptr_array_index(rows, i);
		if (every || (latest && i == 0) ||
		    (!latest && r->label && !strcmp(r->label, run) && pick->len == 0))
			g_ptr_array_add(pick, r);
	}
	/* an id where no label matched */
	if (st == GC_OK && !every && !latest && pick->len == 0) {
		char *e;
		gint64 id = g_ascii_strtoll(run, &e, 10);
		for (guint i = 0; *run && !*e && i < rows->len; i++)
			if (((gc_run_row *)g_ptr_array_index(rows, i))->id == id)
				g_ptr_array_add(pick, g_ptr_array_index(rows, i));
	}
	if (st == GC_OK && pick->len == 0 && rows->len > 0 && !every) {
		char *runs = list_runs(rows);
		*errmsg = g_strdup_printf("%s: no run labelled '%.60s', and no run of that id; its "
					  "runs, newest first: %s",
					  path, run, runs);
		g_free(runs);
		st = GC_ERR_INPUT;
	} else if (st == GC_OK && rows->len == 0 && !every) {
		*errmsg = g_strdup_printf("%s: no run recorded", path);
		st = GC_ERR_INPUT;
	}
	GArray *a = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	for (guint i = 0; st == GC_OK && i < pick->len; i++) {
		const gc_run_row *r = g_ptr_array_index(pick, i);
		gc_result_point *p = NULL;
		size_t np = 0;
		st = gc_results_get_points(db, r->id, &p, &np, errmsg);
		if (st == GC_OK)
			g_array_append_vals(a, p, (guint)np);
		g_free(p);
		char proto[sizeof(src->protocol)];
		bool known = r->config && config_protocol(r->config, proto, sizeof(proto));
		if (i == 0 && known)
			g_strlcpy(src->protocol, proto, sizeof(src->protocol));
		else if (!known || strcmp(proto, src->protocol))
			src->protocol[0] = '\0';
	}
	src->runs = (int)pick->len;
	g_ptr_array_free(pick, TRUE);
	g_ptr_array_free(rows, TRUE);
	gc_results_close(db);
	if (st != GC_OK) {
		g_array_free(a, TRUE);
		return st;
	}
	*n = a->len;
	*pts = (gc_result_point *)(void *)g_array_free(a, FALSE);
	return GC_OK;
}

gc_status gv_bands_load(const char *path, gv_band **bands, size_t *n, char **errmsg)
{
	char **lines = NULL;
	if (gc_read_lines(path, &lines, errmsg) != GC_OK)
		return GC_ERR_IO;
	GArray *a = g_array_new(FALSE, FALSE, sizeof(gv_band));
	gc_status st = GC_OK;
	bool header = false;
	double last = -1;
	for (int i = 0; lines[i] && st == GC_OK; i++) {
		char *l = g_strstrip(lines[i]);
		if (!*l || *l == '#')
			continue;
		if (!header) {
			header = true;
			if (strcmp(l, "band,max_error_pct") != 0) {
				*errmsg = g_strdup_printf("%s:%d: expected the header band,max_error_pct",
							  path, i + 1);
				st = GC_ERR_INPUT;
			}
			continue;
		}
		char **f = g_strsplit(l, ",", -1);
		gv_band b;
		double v;
		if (g_strv_length(f) != 2 || !*f[0] || strlen(f[0]) >= sizeof(b.name) ||
		    !gc_parse_real(f[1], &v) || v < 0 || v <= last) {
			*errmsg = g_strdup_printf("%s:%d: expected NAME,LIMIT with limits increasing",
						  path, i + 1);
			st = GC_ERR_INPUT;
		} else {
			g_strlcpy(b.name, f[0], sizeof(b.name));
			b.limit_pct = last = v;
			g_array_append_val(a, b);
		}
		g_strfreev(f);
	}
	g_strfreev(lines);
	if (st == GC_OK && a->len == 0) {
		*errmsg = g_strdup_printf("%s: no band defined", path);
		st = GC_ERR_INPUT;
	}
	if (st != GC_OK) {
		g_array_free(a, TRUE);
		return st;
	}
	*n = a->len;
	*bands = (gv_band *)(void *)g_array_free(a, FALSE);
	return GC_OK;
}

static int cmp_abs(const void *x, const void *y)
{
	double a = fabs(*(const double *)x), b = fabs(*(const double *)y);
	return (a > b) - (a < b);
}

/* Over the rows whose size is in [lo, hi): how many, the median and the
 * largest |error|, and the most negative and most positive error (NULLs
 * allowed). */
static size_t abs_stats(const gv_row *rows, size_t n, uint64_t lo, uint64_t hi, double *median,
			double *max, double *min_err, double *max_err)
{
	double *e = g_new(double, n ? n : 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (rows[i].measured.size_bytes >= lo && rows[i].measured.size_bytes < hi)
			e[k++] = rows[i].err_pct;
	if (k > 0) {
		double a = e[0], b = e[0];
		for (size_t i = 1; i < k; i++) {
			a = e[i] < a ? e[i] : a;
			b = e[i] > b ? e[i] : b;
		}
		if (min_err)
			*min_err = a;
		if (max_err)
			*max_err = b;
		qsort(e, k, sizeof(double), cmp_abs);
		*median = k % 2 ? fabs(e[k / 2]) : (fabs(e[k / 2 - 1]) + fabs(e[k / 2])) / 2;
		*max = fabs(e[k - 1]);
	}
	g_free(e);
	return k;
}

/* NCCL's own choice, as published rows and tuner-nccl predictions name
 * it: "default(X)". */
static bool is_default_choice(const char *algo)
{
	return g_str_has_prefix(algo, "default(");
}

/* Algorithms match when equal, when either side names none, or when a
 * published row says "default(X)": NCCL ran X by its own choice. A row
 * that says only "default" takes the prediction of NCCL's own choice where
 * there is one (a predicted "default(X)", gcsim run with collective.tuner
 * nccl), else the fastest matching prediction (see gv_compare). */
static bool algo_matches(const char *pred, const char *meas)
{
	if (!pred[0] || !meas[0] || !strcmp(pred, meas))
		return true;
	size_t n = strlen(pred);
	return is_default_choice(meas) && strlen(meas) == n + 9 &&
	       !strncmp(meas + 8, pred, n) && meas[n + 8] == ')';
}

gc_status gv_compare(const gc_result_point *meas, size_t nm, const gc_result_point *pred,
		     size_t np, const gv_band *bands, size_t nb, double tol, double max_tol,
		     gv_report *out, char **errmsg)
{
	memset(out, 0, sizeof(*out));
	out->tolerance_pct = tol;
	out->max_tolerance_pct = max_tol;
	GArray *rows = g_array_new(FALSE, FALSE, sizeof(gv_row));
	for (size_t i = 0; i < nm; i++) {
		const gc_result_point *m = &meas[i];
		const gc_result_point *hit = NULL;
		/* "default" alone: NCCL's tuner picked the algorithm it predicts
		 * fastest. A prediction of that pick stands for it; without
		 * one, the fastest prediction does */
		bool fastest = !strcmp(m->algo, "default");
		bool tuned = false;
		for (size_t j = 0; j < np && fastest && !tuned; j++)
			tuned = !strcmp(pred[j].collective, m->collective) &&
				pred[j].nranks == m->nranks && pred[j].size_bytes == m->size_bytes &&
				is_default_choice(pred[j].algo);
		/* a published MoE row names an implementation, not an algorithm,
		 * and no message size: it matches on phase and ranks */
		bool moe = !strcmp(m->collective, "dispatch") || !strcmp(m->collective, "combine");
		/* without "default" the first matching prediction stands; a later
		 * one with another time (two runs' results in one file, a sweep
		 * over a parameter the match does not see) makes the pick
		 * arbitrary, which the report says */
		bool several = false;
		for (size_t j = 0; j < np && (fastest || !several); j++) {
			const gc_result_point *p = &pred[j];
			if (strcmp(p->collective, m->collective) || p->nranks != m->nranks ||
			    (p->size_bytes != m->size_bytes && !(moe && m->size_bytes == 0)) ||
			    !(fastest || moe || algo_matches(p->algo, m->algo)) ||
			    (tuned && !is_default_choice(p->algo)))
				continue;
			if (!fastest && hit) {
				several = !(p->time_us == hit->time_us) &&
					  (isfinite(p->time_us) || isfinite(hit->time_us));
				continue;
			}
			if (!hit || (isfinite(p->time_us) && !(hit->time_us <= p->time_us)))
				hit = p;
		}
		if (!(m->time_us > 0)) {
			out->untimed++;
			continue;
		}
		if (!hit || !isfinite(hit->time_us)) {
			out->unmatched++;
			continue;
		}
		out->ambiguous += several;
		gv_row r = {.measured = *m, .predicted = *hit};
		/* the ratio first: 100 * (p - m) overflows for m near DBL_MAX */
		r.err_pct = 100.0 * ((hit->time_us - m->time_us) / m->time_us);
		r.band = "fail";
		for (size_t b = 0; b < nb; b++)
			if (fabs(r.err_pct) <= bands[b].limit_pct) {
				r.band = bands[b].name;
				break;
			}
		g_array_append_val(rows, r);
	}
	out->nrows = rows->len;
	out->rows = (gv_row *)(void *)g_array_free(rows, FALSE);
	if (out->nrows == 0) {
		*errmsg = out->untimed == nm
				  ? g_strdup_printf("no measured point has a time (%zu measured)", nm)
				  : g_strdup_printf("no measured point has a matching prediction (%zu "
						    "measured, %zu without a time, %zu predicted; "
						    "matched on collective, algo, ranks, size)",
						    nm, out->untimed, np);
		gv_report_clear(out);
		return GC_ERR_INPUT;
	}
	abs_stats(out->rows, out->nrows, 0, UINT64_MAX, &out->median_abs_pct, &out->max_abs_pct, NULL,
		  NULL);
	out->pass = out->median_abs_pct <= tol && out->max_abs_pct <= max_tol;
	return GC_OK;
}

void gv_report_clear(gv_report *r)
{
	g_free(r->rows);
	memset(r, 0, sizeof(*r));
}

/* The measured row's algorithm; for a plain "default", "default(X)" with X
 * the prediction it was compared with. */
static void row_algo(const gv_row *w, char *buf, size_t n)
{
	if (!strcmp(w->measured.algo, "default") && is_default_choice(w->predicted.algo))
		snprintf(buf, n, "%s", w->predicted.algo);
	else if (!strcmp(w->measured.algo, "default") && w->predicted.algo[0])
		snprintf(buf, n, "default(%s)", w->predicted.algo);
	else
		snprintf(buf, n, "%s", w->measured.algo);
}

void gv_report_table(const gv_report *r, void *gstring_out)
{
	GString *g = gstring_out;
	g_string_append_printf(g, "%-14s %-6s %6s %14s %12s %12s %8s  %s\n", "# collective", "algo",
			       "ranks", "size", "measured_us", "predicted_us", "error%", "band");
	for (size_t i = 0; i < r->nrows; i++) {
		const gv_row *w = &r->rows[i];
		char algo[64];
		row_algo(w, algo, sizeof(algo));
		g_string_append_printf(g, "%-14s %-6s %6d %14" G_GUINT64_FORMAT " %12.3f %12.3f %+8.2f  %s\n",
				       w->measured.collective, algo, w->measured.nranks,
				       w->measured.size_bytes, w->measured.time_us, w->predicted.time_us,
				       w->err_pct, w->band);
	}
	g_string_append_printf(g, "# compared %zu points (%zu without a prediction", r->nrows,
			       r->unmatched);
	if (r->untimed)
		g_string_append_printf(g, ", %zu measured without a time", r->untimed);
	g_string_append(g, ")\n");
	if (r->ambiguous)
		g_string_append_printf(g, "# %zu of them matched several predictions of different "
					  "times (same collective, algo, ranks and size); each was "
					  "compared with the first (in a results file, the newest "
					  "run's; --run picks one run)\n",
				       r->ambiguous);
	g_string_append_printf(g, "# median |error| %.2f%% (tolerance %.2f%%), max |error| %.2f%% "
				  "(max tolerance %.2f%%): %s\n",
			       r->median_abs_pct, r->tolerance_pct, r->max_abs_pct,
			       r->max_tolerance_pct, r->pass ? "PASS" : "FAIL");
}

void gv_report_csv(const gv_report *r, void *gstring_out)
{
	GString *g = gstring_out;
	g_string_append(g, "collective,algo,nranks,size_bytes,measured_us,predicted_us,error_pct,band\n");
	for (size_t i = 0; i < r->nrows; i++) {
		const gv_row *w = &r->rows[i];
		char algo[64];
		row_algo(w, algo, sizeof(algo));
		g_string_append_printf(g, "%s,%s,%d,%" G_GUINT64_FORMAT ",%.6g,%.6g,%.4f,%s\n",
				       w->measured.collective, algo, w->measured.nranks,
				       w->measured.size_bytes, w->measured.time_us,
				       w->predicted.time_us, w->err_pct, w->band);
	}
}

void gv_report_by_size(const gv_report *r, void *gstring_out)
{
	static const struct {
		const char *name;
		uint64_t lo, hi;
	} bands[] = {
		{"below 1 MiB", 0, 1u << 20},
		{"1 MiB to 16 MiB", 1u << 20, 16u << 20},
		{"16 MiB to 256 MiB", 16u << 20, 256u << 20},
		{"256 MiB and up", 256u << 20, UINT64_MAX},
	};
	GString *g = gstring_out;
	g_string_append(g, "# by size: points, median |error|, range of the error\n");
	for (size_t i = 0; i < G_N_ELEMENTS(bands); i++) {
		double med = 0, max = 0, lo = 0, hi = 0;
		size_t k = abs_stats(r->rows, r->nrows, bands[i].lo, bands[i].hi, &med, &max, &lo, &hi);
		if (k > 0)
			g_string_append_printf(g, "#   %-18s %5zu %7.2f%%   %+.2f%% to %+.2f%%\n", bands[i].name,
					       k, med, lo, hi);
	}
}

bool gv_report_protocol_hint(const gv_report *r, const char *protocol, void *gstring_out)
{
	static const char *const nccl[] = {"allreduce", "allgather", "reducescatter", "broadcast",
					   "reduce"};
	if (!strcmp(protocol, "auto"))
		return false;
	size_t slow = 0;
	double worst = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		const gv_row *w = &r->rows[i];
		bool coll = false;
		for (size_t c = 0; c < G_N_ELEMENTS(nccl); c++)
			coll = coll || !strcmp(w->measured.collective, nccl[c]);
		if (coll && w->measured.size_bytes < (1u << 20) && w->err_pct > r->max_tolerance_pct) {
			slow++;
			worst = w->err_pct > worst ? w->err_pct : worst;
		}
	}
	if (slow == 0)
		return false;
	GString *g = gstring_out;
	g_string_append_printf(g, "# hint: %zu point%s below 1 MiB %s predicted slow (up to %+.0f%%)",
			       slow, slow > 1 ? "s" : "", slow > 1 ? "are" : "is", worst);
	if (protocol[0])
		g_string_append_printf(g, " with collective.protocol %s at every size; NCCL picks LL "
					  "or LL128 for small messages",
				       protocol);
	else
		g_string_append(g, "; NCCL picks LL or LL128 for small messages, a prediction with "
				   "one protocol at every size (simple is the default) does not");
	g_string_append(g, ": predict with --set collective.protocol=auto, as NCCL's tuner does\n");
	return true;
}
