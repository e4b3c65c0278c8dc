/* SPDX-License-Identifier: MIT */
/*
 * gv_nccltests: importer for nccl-tests text logs.
 *
 * Accepted rows (after any number of '#' header lines):
 *   size count type redop root  time algbw busbw #wrong  [time algbw busbw #wrong]
 * and the older form without the root column (and "error" in place of
 * #wrong). The row form is recognized by its field count: 9 or 13 with a
 * root column, 8 or 12 without; all-to-all and send/recv logs have only the
 * out-of-place group. Lines that do not start with a number are skipped, so
 * banners and warnings in the middle of a log are harmless. The
 * out-of-place time is imported; busbw is taken from the log as printed.
 * The "# nThread T nGpus G ... iters: N" header says how the run was driven:
 * G GPUs per thread (-g) and N operations timed back to back (-n), which
 * gcsim predicts with collective.gpus_per_thread and collective.iters.
 */
#include <errno.h>
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gv_validate.h"

static bool dnum(const char *s, double *v)
{
	char *e;
	errno = 0;
	*v = strtod(s, &e);
	return !errno && !*e && isfinite(*v);
}

static bool unum(const char *s, uint64_t *v)
{
	char *e;
	if (!g_ascii_isdigit(*s))
		return false;
	errno = 0;
	*v = strtoull(s, &e, 10);
	return !errno && !*e;
}

static const char *const names[] = {"all_reduce", "all_gather", "reduce_scatter", "alltoall",
				    "broadcast",  "sendrecv",	"reduce"};
static const char *const ours[] = {"allreduce", "allgather", "reducescatter", "alltoall",
				   "broadcast", "sendrecv",  "reduce"};
const char gv_nccltests_collectives[] =
	"allreduce, allgather, reducescatter, alltoall, broadcast, sendrecv, reduce";

bool gv_nccltests_collective(const char *name, char *out, size_t n)
{
	/* all_reduce and allreduce alike: without '_' and '-', lower case */
	char norm[32];
	size_t k = 0;
	for (const char *c = name; *c; c++) {
		if (*c == '_' || *c == '-')
			continue;
		if (k + 1 >= sizeof(norm))
			return false;
		norm[k++] = g_ascii_tolower(*c);
	}
	norm[k] = '\0';
	for (size_t i = 0; i < G_N_ELEMENTS(ours); i++)
		if (!strcmp(norm, ours[i])) {
			g_strlcpy(out, ours[i], n);
			return true;
		}
	return false;
}

/* all_reduce_perf -> allreduce, alltoall_perf -> alltoall, ... */
static bool coll_from_log(const char *text, char *out, size_t n)
{
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		char *pat = g_strdup_printf("%s_perf", names[i]);
		bool hit = strstr(text, pat) != NULL;
		g_free(pat);
		if (hit) {
			g_strlcpy(out, ours[i], n);
			return true;
		}
	}
	return false;
}

/* The whitespace-separated fields of line l, as a NULL-terminated strv
 * (g_strfreev) of *nf strings. */
static char **split_fields(const char *l, unsigned *nf)
{
	char **f = g_strsplit_set(l, " \t", -1);
	unsigned k = 0;
	for (char **c = f; *c; c++) {
		if (**c)
			f[k++] = *c;
		else
			g_free(*c);
	}
	f[k] = NULL;
	*nf = k;
	return f;
}

/* "# nThread 1 nGpus 8 minBytes ... warmup iters: 5 iters: 20 agg iters: 1
 * ...": nGpus and the timed iters (not the warm-up's nor the aggregate's) */
static void header_setup(char *const *tok, gv_nccltests_setup *su)
{
	for (int k = 0; tok[k] && tok[k + 1]; k++) {
		uint64_t v;
		if (!strcmp(tok[k], "nGpus") && unum(tok[k + 1], &v) && v > 0 && v <= 1024)
			su->gpus_per_thread = (int)v;
		if (!strcmp(tok[k], "iters:") && unum(tok[k + 1], &v) && v > 0 && v <= 1000000 &&
		    (k == 0 || (strcmp(tok[k - 1], "warmup") && strcmp(tok[k - 1], "agg"))))
			su->iters = (int)v;
	}
}

/* A #wrong field: nccl-tests' count of wrong elements (non-zero: the
 * row's results did not check out). "N/A" (-c 0: not checked) and the older
 * logs' "error" column (a deviation such as 0e+00, with no verdict per row)
 * are not counts. */
static bool wrong_count(const char *v)
{
	uint64_t c;
	return unum(v, &c) && c > 0;
}

/* "# Out of bounds values : N FAILED": the log's own verdict over all rows */
static uint64_t out_of_bounds(const char *h)
{
	const char *k = "Out of bounds values";
	uint64_t v = 0;
	if (!g_str_has_prefix(h, k))
		return 0;
	h += strlen(k);
	h += strspn(h, " :");
	char *e;
	errno = 0;
	v = g_ascii_isdigit(*h) ? strtoull(h, &e, 10) : 0;
	return errno ? 0 : v;
}

gc_status gv_nccltests_parse(const char *path, const char *collective, int nranks,
			     bool accept_wrong, gc_result_point **pts, size_t *n,
			     gv_nccltests_setup *setup, char **errmsg)
{
	*pts = NULL;
	*n = 0;
	gv_nccltests_setup su = {0, 0, 0};
	char coll[32];
	if (collective && !gv_nccltests_collective(collective, coll, sizeof(coll))) {
		*errmsg = g_strdup_printf("collective '%.40s%s' is not one nccl-tests times; expected "
					  "one of: %s",
					  collective, strlen(collective) > 40 ? "..." : "",
					  gv_nccltests_collectives);
		return GC_ERR_INPUT;
	}
	if (nranks < 0 || nranks > 1 << 20) {
		*errmsg = g_strdup_printf("%d ranks: expected 1 to %d (or 0: the log's '#  Rank' "
					  "lines)",
					  nranks, 1 << 20);
		return GC_ERR_INPUT;
	}
	char *text = NULL;
	if (gc_read_text(path, &text, errmsg) != GC_OK)
		return GC_ERR_IO;
	if (!collective && !coll_from_log(text, coll, sizeof(coll))) {
		*errmsg = g_strdup_printf("%s: cannot tell the collective (no '<name>_perf' in the log); "
					  "pass it explicitly",
					  path);
		g_free(text);
		return GC_ERR_INPUT;
	}
	char **lines = g_strsplit(text, "\n", -1);
	g_free(text);
	int ranks = 0;
	GArray *a = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	gc_status st = GC_OK;
	/* the rows marked wrong: how many, their sizes (the first few) */
	size_t wrong = 0;
	uint64_t oob = 0;
	int oob_line = 0;
	GString *wsizes = g_string_new(NULL);
	for (int i = 0; lines[i] && st == GC_OK; i++) {
		char *l = g_strstrip(lines[i]);
		if (*l == '#') {
			const char *h = l + 1 + strspn(l + 1, " ");
			if (out_of_bounds(h) > 0) {
				oob = out_of_bounds(h);
				oob_line = i + 1;
			}
			if (g_str_has_prefix(h, "Rank "))
				ranks++;
			if (g_str_has_prefix(h, "nThread ")) {
				unsigned nt;
				char **tok = split_fields(h, &nt);
				header_setup(tok, &su);
				g_strfreev(tok);
			}
			continue;
		}
		if (!g_ascii_isdigit(*l))
			continue;
		unsigned nf;
		char **f = split_fields(l, &nf);
		const char **v = (const char **)f;
		bool root = nf == 9 || nf == 13;
		int o = root ? 5 : 4;
		gc_result_point p;
		gc_result_point_init(&p);
		uint64_t size, count;
		double tm, alg, bus;
		if ((nf == 8 || nf == 9 || nf == 12 || nf == 13) && unum(v[0], &size) &&
		    unum(v[1], &count) && dnum(v[o], &tm) && dnum(v[o + 1], &alg) &&
		    dnum(v[o + 2], &bus)) {
			g_strlcpy(p.collective, coll, sizeof(p.collective));
			g_strlcpy(p.dtype, v[2], sizeof(p.dtype));
			p.size_bytes = size;
			p.count = count;
			p.time_us = tm;
			p.algbw_GBps = alg;
			p.busbw_GBps = bus;
			p.iters = 0;
			g_array_append_val(a, p);
			/* out of place, and in place where the row has it */
			if (wrong_count(v[o + 3]) || ((nf == 12 || nf == 13) && wrong_count(v[o + 7]))) {
				if (wrong++ < 8)
					g_string_append_printf(wsizes, "%s%" G_GUINT64_FORMAT,
							       wrong > 1 ? ", " : "", size);
				else if (wrong == 9)
					g_string_append(wsizes, ", ...");
			}
		} else {
			*errmsg = g_strdup_printf("%s:%d: expected 'size count type redop [root] time "
						  "algbw busbw #wrong [time algbw busbw #wrong]'",
						  path, i + 1);
			st = GC_ERR_INPUT;
		}
		g_strfreev(f);
	}
	g_strfreev(lines);
	if (st == GC_OK && wrong > 0 && !accept_wrong) {
		*errmsg = g_strdup_printf("%s: nccl-tests marked %zu row%s wrong (#wrong not 0: the "
					  "results did not check out), size%s %s B; pass "
					  "--accept-wrong to import %s anyway",
					  path, wrong, wrong > 1 ? "s" : "", wrong > 1 ? "s" : "",
					  wsizes->str, wrong > 1 ? "them" : "it");
		st = GC_ERR_INPUT;
	} else if (st == GC_OK && wrong == 0 && oob > 0 && !accept_wrong) {
		/* an older log without #wrong: its check failed, rows unknown */
		*errmsg = g_strdup_printf("%s:%d: nccl-tests found %" G_GUINT64_FORMAT " out-of-bounds "
					  "value%s (its check failed) and its rows do not say which; "
					  "pass --accept-wrong to import the log anyway",
					  path, oob_line, oob, oob > 1 ? "s" : "");
		st = GC_ERR_INPUT;
	}
	su.wrong = wrong > 0 ? wrong : oob > 0 ? a->len : 0;
	g_string_free(wsizes, TRUE);
	if (st == GC_OK && a->len == 0) {
		*errmsg = g_strdup_printf("%s: no result rows found", path);
		st = GC_ERR_INPUT;
	}
	int nr = nranks > 0 ? nranks : ranks;
	if (st == GC_OK && nr < 1) {
		*errmsg = g_strdup_printf("%s: cannot tell the rank count (no '#  Rank' lines); pass it "
					  "explicitly",
					  path);
		st = GC_ERR_INPUT;
	}
	if (st != GC_OK) {
		g_array_free(a, TRUE);
		return st;
	}
	for (guint i = 0; i < a->len; i++) {
		g_array_index(a, gc_result_point, i).nranks = nr;
		g_array_index(a, gc_result_point, i).iters = su.iters;
	}
	if (setup)
		*setup = su;
	*n = a->len;
	*pts = (gc_result_point *)(void *)g_array_free(a, FALSE);
	return GC_OK;
}
