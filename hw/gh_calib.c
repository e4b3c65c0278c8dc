/* SPDX-License-Identifier: MIT */
/*
 * gh_calib: least-squares calibration (see gh_calib.h).
 */
#include "gh_calib.h"

#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gh_bench.h"
#include "gh_stats.h"
#include "sim/core/gc_units.h"

gc_status gh_calib_fit_line(const double *x, const double *y, const double *w, size_t n, double *a,
			    double *b)
{
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (size_t i = 0; i < n; i++) {
		sw += w[i];
		sx += w[i] * x[i];
		sy += w[i] * y[i];
		sxx += w[i] * x[i] * x[i];
		sxy += w[i] * x[i] * y[i];
	}
	double det = sw * sxx - sx * sx;
	if (n < 2 || !(fabs(det) > 1e-300 * (sw * sxx + 1e-300)))
		return GC_ERR_INPUT;
	*b = (sw * sxy - sx * sy) / det;
	*a = (sy - *b * sx) / sw;
	return (*b > 0 && isfinite(*a)) ? GC_OK : GC_ERR_INPUT;
}

static bool match(const gc_result_point *p, const char *path, const char *algo)
{
	return !strcmp(p->collective, path) && (!algo || !strcmp(p->algo, algo));
}

static gc_status fit_xy(const double *x, const double *y, size_t n, gh_fit *out)
{
	double *w = g_new(double, n ? n : 1);
	for (size_t i = 0; i < n; i++)
		w[i] = 1.0 / (y[i] * y[i]);
	double a, b;
	gc_status st = gh_calib_fit_line(x, y, w, n, &a, &b);
	g_free(w);
	if (st != GC_OK)
		return st;
	out->alpha_us = a;
	out->beta_GBps = 1.0 / b / 1e3; /* b is us per byte: 1/b B/us = 1e-3/b GB/s */
	out->n = n;
	out->max_rel_err = 0;
	for (size_t i = 0; i < n; i++) {
		double e = fabs(a + b * x[i] - y[i]) / y[i];
		if (e > out->max_rel_err)
			out->max_rel_err = e;
	}
	return GC_OK;
}

gc_status gh_calib_fit_path(const gc_result_point *pts, size_t n, const char *path,
			    const char *algo, gh_fit *out)
{
	double *x = g_new(double, n + 1), *y = g_new(double, n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (match(&pts[i], path, algo) && pts[i].size_bytes > 0 && pts[i].time_us > 0) {
			x[k] = (double)pts[i].size_bytes;
			y[k++] = pts[i].time_us;
		}
	gc_status st = fit_xy(x, y, k, out);
	g_free(x);
	g_free(y);
	return st;
}

gc_status gh_calib_fit_ring(const gc_result_point *pts, size_t n, int ranks, gh_fit *out,
			    int *ranks_used)
{
	if (ranks <= 0) {
		/* The rank count with the most ring allreduce points. */
		GHashTable *cnt = g_hash_table_new(g_direct_hash, g_direct_equal);
		int best = 0, best_n = 0;
		for (size_t i = 0; i < n; i++)
			if (match(&pts[i], "allreduce", "ring") && pts[i].nranks >= 2) {
				gpointer key = GINT_TO_POINTER(pts[i].nranks);
				int c = GPOINTER_TO_INT(g_hash_table_lookup(cnt, key)) + 1;
				g_hash_table_insert(cnt, key, GINT_TO_POINTER(c));
				if (c > best_n || (c == best_n && pts[i].nranks < best)) {
					best_n = c;
					best = pts[i].nranks;
				}
			}
		g_hash_table_destroy(cnt);
		ranks = best;
	}
	*ranks_used = ranks;
	if (ranks < 2)
		return GC_ERR_INPUT;
	double *x = g_new(double, n + 1), *y = g_new(double, n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (match(&pts[i], "allreduce", "ring") && pts[i].nranks == ranks &&
		    pts[i].size_bytes > 0 && pts[i].time_us > 0) {
			x[k] = (double)pts[i].size_bytes / ranks;
			y[k++] = pts[i].time_us / (2.0 * (ranks - 1));
		}
	gc_status st = fit_xy(x, y, k, out);
	g_free(x);
	g_free(y);
	return st;
}

double gh_calib_scalar(const gc_result_point *pts, size_t n, const char *path, const char *algo)
{
	double *v = g_new(double, n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (match(&pts[i], path, algo) && isfinite(pts[i].time_us))
			v[k++] = pts[i].time_us;
	gh_summary s;
	gh_stats_summarize(v, k, &s);
	g_free(v);
	return s.median;
}

static void prov_line(GString *g, const char *key, const char *v)
{
	g_string_append_printf(g, "# %-8s %s\n", key, v ? v : "unknown");
}

/* The head of every file calibrate writes: licence, what it is, and its
 * provenance (device, date, command, source). */
static void prov_head(GString *g, const char *what, const char *how, const gh_calib_prov *prov)
{
	g_string_append(g, "# SPDX-License-Identifier: MIT\n");
	g_string_append_printf(g, "# %s '%s', %s by gcsim hw calibrate.\n", what, prov->name, how);
	prov_line(g, "device:", prov->device);
	prov_line(g, "date:", prov->created);
	prov_line(g, "command:", prov->command);
	prov_line(g, "source:", prov->source);
}

/* Requests per second each side can post when no NIC limits it: every SM
 * posting on its own queue vs one proxy thread. The ratio is the ceiling
 * of what GPU-initiated posting buys for small messages (inter-node type 5
 * vs 3/proxy) before the NIC's message rate and line rate cap both. */
static void posting_capacity(GString *g, const gc_result_point *pts, size_t n)
{
	const gc_result_point *gp = NULL, *pp = NULL;
	for (size_t i = 0; i < n; i++) {
		if (match(&pts[i], "gpu_post", "sms-b32") && pts[i].time_us > 0)
			gp = &pts[i];
		if (match(&pts[i], "proxy_rate", "sms-b32") && pts[i].time_us > 0)
			pp = &pts[i];
	}
	if (!gp || !pp)
		return;
	double gpu_Mops = gp->nranks / gp->time_us, proxy_Mops = 1.0 / pp->time_us;
	g_string_append_printf(g,
			       "  # posting capacity without a NIC: %d CTAs %.1f Mreq/s, CPU proxy "
			       "%.1f Mreq/s (%.1fx)\n",
			       gp->nranks, gpu_Mops, proxy_Mops, gpu_Mops / proxy_Mops);
}

/* The composition the simulator's shmem_put_bw loop assumes, checked and
 * not fitted: one iteration of 32 CTAs posting then meeting at the
 * barrier (put_loop c32) against one CTA's post (gpu_post 1cta-b1) plus
 * the barrier (cta_barrier c32), serially; the error is the sum's,
 * relative to the measured loop. One comment line after `lead` (its
 * comment mark), or nothing when one of the three points is missing. */
static void put_loop_check(GString *g, const char *lead, const gc_result_point *pts, size_t n)
{
	double loop = gh_calib_scalar(pts, n, "put_loop", GH_BENCH_BARRIER_ALGO);
	double post = gh_calib_scalar(pts, n, "gpu_post", "1cta-b1");
	double bar = gh_calib_scalar(pts, n, "cta_barrier", GH_BENCH_BARRIER_ALGO);
	if (!(loop > 0 && post > 0 && bar > 0)) /* NaN (missing) fails too */
		return;
	int ctas = GH_BENCH_BARRIER_CTAS;
	for (size_t i = 0; i < n; i++)
		if (match(&pts[i], "put_loop", GH_BENCH_BARRIER_ALGO) && pts[i].nranks > 0)
			ctas = pts[i].nranks;
	double sum = post + bar;
	g_string_append_printf(g,
			       "%sput_loop check (held aside, not fitted): %d CTAs, %.4g us per "
			       "iteration measured, sum of the parts %.4g us (gpu_post 1cta-b1 %.4g us "
			       "+ cta_barrier c32 %.4g us), error %+.1f %%\n",
			       lead, ctas, loop, sum, post, bar, 100 * (sum - loop) / loop);
}

double gh_calib_l2_from_device(const char *device)
{
	const char *p = device ? strstr(device, " MiB L2") : NULL;
	if (!p)
		return 0;
	const char *q = p;
	while (q > device && g_ascii_isdigit(q[-1]))
		q--;
	return q < p ? g_ascii_strtod(q, NULL) * 1048576.0 : 0;
}

/* The interpreter's timing model (gh_vrank.h) fitted to the ring allreduce
 * points at the rank count gh_calib_fit_ring picks, with the launch and the
 * LL line latency taken from the microbenchmarks (launch pipelined: the
 * GPU's own cost of one launch, which the events around the interpreter's
 * launch enclose; cta_barrier: one block's store seen by another), or a
 * comment saying what is missing. */
static void vrank_section(GString *g, const gc_result_point *pts, size_t n, const gh_calib_prov *prov,
			  int *nparams)
{
	gh_fit f;
	int ranks = 0;
	/* the rank count only: the model fits on its own terms, so an
	 * alpha-beta line that does not fit (noisy times) does not hide why */
	(void)gh_calib_fit_ring(pts, n, 0, &f, &ranks);
	if (ranks < 2) {
		g_string_append(g, "  # virtual_rank: not fitted: no ring allreduce points\n");
		return;
	}
	gh_vrank_model m = {.launch_us = gh_calib_scalar(pts, n, "launch", "pipelined"),
			    .ll_hop_us = gh_calib_scalar(pts, n, "cta_barrier", GH_BENCH_BARRIER_ALGO),
			    .l2_bytes = prov->l2_bytes > 0 ? prov->l2_bytes : gh_calib_l2_from_device(prov->device)};
	char *why = NULL;
	size_t used = 0;
	double maxerr = 0;
	if (!isfinite(m.launch_us) || !isfinite(m.ll_hop_us))
		why = g_strdup("the recording has no 'launch pipelined' or 'cta_barrier c32' point");
	else if (!(m.l2_bytes > 0))
		why = g_strdup("the GPU's L2 is unknown (the device line names none; give --l2)");
	else
		gh_vrank_fit(pts, n, "allreduce", "ring", ranks, 1, &m, &used, &maxerr, &why);
	if (why) {
		g_string_append_printf(g, "  # virtual_rank: not fitted: %s\n", why);
		g_free(why);
		return;
	}
	g_string_append_printf(g,
			       "  virtual_rank:  # the interpreter's timing model (hw/gh_vrank.h), ring allreduce, "
			       "%d ranks, %zu points, max_error %.1f%%\n"
			       "    launch: %.4gus  # launch pipelined\n"
			       "    ll_hop: %.4gus  # cta_barrier c32\n"
			       "    l2: %.6gMiB\n"
			       "    piece: %.4gus  # fitted: per piece, its waits, fences and block barriers\n"
			       "    pass_l2: %.4gGB/s  # fitted: a block's pass while the launch's data fits in L2\n"
			       "    pass_hbm: %.4gGB/s  # fitted: ... once it does not\n",
			       ranks, used, 100 * maxerr, m.launch_us, m.ll_hop_us, m.l2_bytes / 1048576.0,
			       m.piece_us, m.l2_GBps, m.hbm_GBps);
	*nparams += 3;
}

/* A calibration without the virtual-rank model (fitted by an older gcsim,
 * or without the GPU's L2): why, as the file says, and the command that
 * fits one from the recording, which needs no GPU. The recording's
 * calib-input.csv is named when it lies beside the file, as
 * hw/device-check.sh leaves it. */
static char *no_vrank_message(const char *path, const char *text)
{
	const char *nf = strstr(text, "virtual_rank: not fitted: ");
	char *why = nf ? g_strndup(nf + 14, strcspn(nf + 14, "\n")) : NULL; /* "not fitted: ..." */
	char *dir = g_path_get_dirname(path);
	char *input = g_build_filename(dir, "calib-input.csv", NULL);
	bool beside = g_file_test(input, G_FILE_TEST_IS_REGULAR);
	char *msg = g_strdup_printf(
		"%s:1:1: no calibration.virtual_rank model%s%s; fit one, no GPU needed, from ring "
		"allreduce interpreter points at one rank count and the GPU's L2: gcsim hw calibrate "
		"--from %s --name NAME --l2 SIZE (the L2 gcsim hw info prints), then --predict the "
		"NAME.yaml it writes (scenarios/calibration/, or --dir)",
		path, why ? ", " : "", why ? why : "", beside ? input : "CALIB-INPUT.csv");
	g_free(why);
	g_free(dir);
	g_free(input);
	return msg;
}

gc_status gh_calib_read_vrank(const char *path, gh_vrank_model *m, char **errmsg)
{
	char *text = NULL;
	GError *ge = NULL;
	if (!g_file_get_contents(path, &text, NULL, &ge)) {
		*errmsg = g_strdup_printf("%s:1:1: cannot read: %s", path, ge->message);
		g_error_free(ge);
		return GC_ERR_IO;
	}
	static const char *const keys[] = {"launch", "ll_hop", "l2", "piece", "pass_l2", "pass_hbm"};
	double v[6];
	bool seen[6] = {false}, in = false, any = false;
	gc_status st = GC_OK;
	char **lines = g_strsplit(text, "\n", -1);
	for (int ln = 0; lines[ln] && st == GC_OK; ln++) {
		char *l = lines[ln];
		char *hash = strchr(l, '#');
		if (hash)
			*hash = 0;
		g_strchomp(l);
		size_t ind = strspn(l, " ");
		if (!l[ind])
			continue;
		if (ind <= 2) {
			in = ind == 2 && strcmp(l + ind, "virtual_rank:") == 0;
			any |= in;
			continue;
		}
		if (!in)
			continue;
		char *colon = strchr(l + ind, ':');
		int k = -1;
		for (int i = 0; colon && i < 6; i++)
			if ((size_t)(colon - (l + ind)) == strlen(keys[i]) && !strncmp(l + ind, keys[i], strlen(keys[i])))
				k = i;
		if (k < 0) {
			*errmsg = g_strdup_printf("%s:%d:%zu: expected one of launch, ll_hop, l2, piece, pass_l2, "
						  "pass_hbm in calibration.virtual_rank",
						  path, ln + 1, ind + 1);
			st = GC_ERR_INPUT;
			break;
		}
		char *val = colon + 1;
		while (*val == ' ')
			val++;
		const char *w = NULL;
		gc_status ps;
		if (k <= 1 || k == 3) {
			int64_t t = 0;
			ps = gc_parse_time_ps(val, &t, &w);
			v[k] = (double)t * 1e-6;
		} else if (k == 2) {
			uint64_t b = 0;
			ps = gc_parse_bytes(val, &b, &w);
			v[k] = (double)b;
		} else {
			ps = gc_parse_bw_Bps(val, &v[k], &w);
			v[k] *= 1e-9;
		}
		if (ps != GC_OK || !(v[k] > 0 || (k <= 1 && v[k] == 0))) {
			*errmsg = g_strdup_printf("%s:%d:%zu: %s: expected a positive %s, got '%s'%s%s", path,
						  ln + 1, (size_t)(val - l) + 1, keys[k],
						  k <= 1 || k == 3 ? "time (3.1us)" : k == 2 ? "size (60MiB)" : "bandwidth (7.5GB/s)",
						  val, w ? ": " : "", w ? w : "");
			st = GC_ERR_INPUT;
		}
		seen[k] = true;
	}
	for (int i = 0; st == GC_OK && i < 6; i++)
		if (!seen[i]) {
			*errmsg = any ? g_strdup_printf("%s:1:1: calibration.virtual_rank lacks '%s'", path, keys[i])
				      : no_vrank_message(path, text);
			st = GC_ERR_INPUT;
		}
	if (st == GC_OK)
		*m = (gh_vrank_model){.launch_us = v[0], .ll_hop_us = v[1], .l2_bytes = v[2],
				      .piece_us = v[3], .l2_GBps = v[4], .hbm_GBps = v[5]};
	g_strfreev(lines);
	g_free(text);
	return st;
}

gc_status gh_calib_yaml(const gc_result_point *pts, size_t n, const gh_calib_prov *prov,
			void *gstring_out, int *nparams, char **errmsg)
{
	static const struct {
		const char *path, *algo, *key;
	} paths[] = {
		{"memcpy_h2d", NULL, "memcpy_h2d"}, {"memcpy_d2h", NULL, "memcpy_d2h"},
		{"memcpy_d2d", NULL, "memcpy_d2d"}, {"hbm_copy", "ce", "hbm_copy_ce"},
		{"hbm_copy", "sm", "hbm_copy_sm"},  {"p2p_copy", NULL, "p2p_copy"},
	};
	static const struct {
		const char *path, *algo, *key, *help;
	} scalars[] = {
		{"launch", "isolated", "launch_latency", "launch + synchronize of an empty kernel"},
		{"launch", "pipelined", "launch_pipelined", "per launch, back to back"},
		{"flag_pingpong", NULL, "flag_roundtrip", "GPU->CPU->GPU flags in pinned memory"},
		{"proxy_rtt", NULL, "proxy_roundtrip", "kernel -> host FIFO -> CPU proxy -> kernel"},
		{"gpu_post", "1cta-b1", "gpu_post",
		 "one CTA posts a work request the IBGDA way, a doorbell each (no NIC)"},
		{"gpu_post", "sms-b32", "gpu_post_all_sms",
		 "per post of the slowest CTA, every SM posting, a doorbell per 32"},
		{"gpu_post", GH_BENCH_SHARED_ALGO, "gpu_post_shared",
		 "per post of the slowest CTA, every SM posting on 2 shared queues, a doorbell each"},
		{"proxy_rate", "sms-b32", "proxy_per_request",
		 "CPU proxy time per request fed by every SM (IBRC path, no NIC)"},
		{"cta_barrier", GH_BENCH_BARRIER_ALGO, "cta_barrier",
		 "inter-CTA barrier in global memory, 32 CTAs (NVSHMEM perftest's), per barrier"},
		{"cta_barrier", "sms", "cta_barrier_all_sms", "the same barrier, one CTA per SM"},
	};
	GString *g = g_string_new(NULL);
	*nparams = 0;
	prov_head(g, "Calibration", "fitted", prov);
	g_string_append(g, "# Paths: T = alpha + bytes / bandwidth, weighted least squares on relative\n"
			   "# error; max_error is the worst point of the fit.\n");
	g_string_append_printf(g, "calibration:\n  name: %s\n", prov->name);
	GString *sc = g_string_new(NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(scalars); i++) {
		double v = gh_calib_scalar(pts, n, scalars[i].path, scalars[i].algo);
		if (!isfinite(v))
			continue;
		g_string_append_printf(sc, "    %s: %.4gus  # %s\n", scalars[i].key, v, scalars[i].help);
		(*nparams)++;
	}
	if (sc->len)
		g_string_append_printf(g, "  control:\n%s", sc->str);
	posting_capacity(g, pts, n);
	put_loop_check(g, "  # ", pts, n);
	g_string_free(sc, TRUE);
	GString *ps = g_string_new(NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(paths); i++) {
		gh_fit f;
		if (gh_calib_fit_path(pts, n, paths[i].path, paths[i].algo, &f) != GC_OK)
			continue;
		g_string_append_printf(ps,
				       "    %s: {alpha: %.4gus, bandwidth: %.4gGB/s}  # %zu points, "
				       "max_error %.1f%%\n",
				       paths[i].key, f.alpha_us, f.beta_GBps, f.n, 100 * f.max_rel_err);
		*nparams += 2;
	}
	if (ps->len)
		g_string_append_printf(g, "  paths:\n%s", ps->str);
	g_string_free(ps, TRUE);
	gh_fit f;
	int ranks = 0;
	if (gh_calib_fit_ring(pts, n, 0, &f, &ranks) == GC_OK) {
		g_string_append_printf(g,
				       "  virtual_rank_link:  # ring allreduce, %d ranks on one GPU, "
				       "T = 2(n-1)(alpha + (S/n)/bandwidth)\n"
				       "    alpha: %.4gus\n    bandwidth: %.4gGB/s  # %zu points, "
				       "max_error %.1f%%\n",
				       ranks, f.alpha_us, f.beta_GBps, f.n, 100 * f.max_rel_err);
		*nparams += 2;
	}
	vrank_section(g, pts, n, prov, nparams);
	gc_status st = GC_OK;
	if (*nparams == 0) {
		*errmsg = g_strdup("no calibration parameter could be fitted: the measurements hold no "
				   "launch, memcpy, hbm_copy, flag, proxy or ring allreduce points");
		st = GC_ERR_INPUT;
	} else {
		g_string_append_len((GString *)gstring_out, g->str, (gssize)g->len);
	}
	g_string_free(g, TRUE);
	return st;
}

gc_status gh_calib_scenario(const gc_result_point *pts, size_t n, const gh_calib_prov *prov,
			    void *gstring_out, char **errmsg)
{
	gh_fit f;
	int ranks = 0;
	if (gh_calib_fit_ring(pts, n, 0, &f, &ranks) != GC_OK) {
		*errmsg = g_strdup("no virtual-rank scenario: the measurements hold no ring allreduce "
				   "points at one rank count to fit");
		return GC_ERR_INPUT;
	}
	GString *g = gstring_out;
	prov_head(g, "Virtual-rank model", "fitted", prov);
	g_string_append_printf(g,
			       "# %d ranks on one GPU, ring allreduce fit T = 2(n-1)(alpha + (S/n)/bandwidth)\n"
			       "# (%zu points, max_error %.1f%%): a flat cluster whose links have that\n"
			       "# latency and bandwidth, one channel. Predict schedules not used for the\n"
			       "# fit with --set (collective.algo=tree, collective.op=allgather,\n"
			       "# topology.gpus=N) and --results, then gcsim validate.\n",
			       ranks, f.n, 100 * f.max_rel_err);
	g_string_append(g, "schema_version: 1\n");
	g_string_append_printf(g, "name: %s virtual ranks\n", prov->name);
	g_string_append_printf(g,
			       "topology: {kind: flat, gpus: %d, link: {bandwidth: %.6gGB/s, latency: "
			       "%.6gus}, launch_latency: 0us}\n",
			       ranks, f.beta_GBps, f.alpha_us);
	/* one message per step, as in the fitted form (no slicing) */
	g_string_append(g, "collective: {op: allreduce, algo: ring, channels: 1, chunk: 1TiB, "
			   "slice: 1TiB, buffer: 1TiB, sizes: [");
	bool first = true;
	for (size_t i = 0; i < n; i++)
		if (match(&pts[i], "allreduce", "ring") && pts[i].nranks == ranks && pts[i].size_bytes > 0) {
			g_string_append_printf(g, "%s%lluB", first ? "" : ", ",
					       (unsigned long long)pts[i].size_bytes);
			first = false;
		}
	g_string_append(g, "]}\n");
	return GC_OK;
}

/* Split a measured sum (ps) into the term fitted and the terms kept: the
 * kept ones as given while they fit in the sum, else shortened in order so
 * the parts still add up to the sum. */
static int64_t split_sum(int64_t sum, int64_t *kept, size_t nk)
{
	int64_t rest = sum;
	for (size_t i = 0; i < nk; i++) {
		if (kept[i] > rest)
			kept[i] = rest;
		rest -= kept[i];
	}
	return rest;
}

/* A time as a scenario takes it: whole nanoseconds, else picoseconds. */
static void append_time(GString *g, int64_t ps)
{
	if (ps % 1000 == 0)
		g_string_append_printf(g, "%lldns", (long long)(ps / 1000));
	else
		g_string_append_printf(g, "%lldps", (long long)ps);
}

static int64_t ps_of_us(double us)
{
	return (int64_t)llround(us * 1e6);
}

gc_status gh_calib_taxonomy(const gc_result_point *pts, size_t n, const gh_calib_prov *prov,
			    const gh_calib_tx_defaults *d, void *gstring_out, char **errmsg)
{
	double proxy = gh_calib_scalar(pts, n, "proxy_rate", "sms-b32");
	double post = gh_calib_scalar(pts, n, "gpu_post", "1cta-b1");
	bool has_proxy = isfinite(proxy) && proxy > 0, has_post = isfinite(post) && post > 0;
	if (!has_proxy && !has_post) {
		*errmsg = g_strdup("no taxonomy scenario: the measurements hold no proxy_rate sms-b32 or "
				   "gpu_post 1cta-b1 point");
		return GC_ERR_INPUT;
	}
	int ctas = 0, shared_ctas = 0;
	for (size_t i = 0; i < n; i++) {
		if (match(&pts[i], "gpu_post", "sms-b32") && pts[i].nranks > 0)
			ctas = pts[i].nranks;
		if (match(&pts[i], "gpu_post", GH_BENCH_SHARED_ALGO) && pts[i].nranks > 0)
			shared_ctas = pts[i].nranks;
	}
	/* on a shared queue the publishes run one at a time: each queue
	 * serves ctas / queues CTAs, so a CTA's time per post is that many
	 * publishes */
	double shared = gh_calib_scalar(pts, n, "gpu_post", GH_BENCH_SHARED_ALGO);
	bool has_publish = shared_ctas > 0 && isfinite(shared) && shared > 0;
	int64_t publish = has_publish ? ps_of_us(shared * GH_BENCH_SHARED_QUEUES / shared_ctas) : 0;
	/* the barrier NVSHMEM's perftest runs between shmem_put_bw's
	 * iterations, at its 32 CTAs */
	double barrier = gh_calib_scalar(pts, n, "cta_barrier", GH_BENCH_BARRIER_ALGO);
	bool has_barrier = isfinite(barrier) && barrier > 0;
	int64_t cta_barrier = has_barrier ? ps_of_us(barrier) : 0;
	gh_fit f;
	bool has_pcie = gh_calib_fit_path(pts, n, "memcpy_h2d", NULL, &f) == GC_OK;
	int64_t post_send = ps_of_us(d->post_send_us), fence = ps_of_us(d->fence_us),
		store = ps_of_us(d->store_issue_us);
	int64_t px_kept[1] = {post_send};
	int64_t px_fit = has_proxy ? split_sum(ps_of_us(proxy), px_kept, 1) : 0;
	int64_t gp_kept[2] = {store, fence};
	int64_t gp_fit = has_post ? split_sum(ps_of_us(post), gp_kept, 2) : 0;

	GString *g = gstring_out;
	prov_head(g, "Taxonomy posting costs", "measured", prov);
	g_string_append(g, "# Measured without a NIC (gcsim hw bench):\n");
	if (has_proxy)
		g_string_append_printf(g,
				       "#   the CPU proxy: %.4g us per request (proxy_rate) = "
				       "proxy.request_cost %.4g us + host.post_send %.4g us\n",
				       proxy, (double)px_fit / 1e6, (double)px_kept[0] / 1e6);
	if (has_post)
		g_string_append_printf(g,
				       "#   one CTA posting the IBGDA way: %.4g us per post (gpu_post) = "
				       "gpu.wqe_build %.4g us + gpu.fence %.4g us + gpu.store_issue "
				       "%.4g us\n",
				       post, (double)gp_fit / 1e6, (double)gp_kept[1] / 1e6,
				       (double)gp_kept[0] / 1e6);
	if (has_publish)
		g_string_append_printf(g,
				       "#   %d CTAs on %d shared queues: %.4g us per post, so gpu.publish "
				       "= %.4g us (with gpu.queues > 0)\n",
				       shared_ctas, GH_BENCH_SHARED_QUEUES, shared, (double)publish / 1e6);
	if (has_barrier)
		g_string_append_printf(g,
				       "#   %d CTAs meeting at an inter-CTA barrier: %.4g us per barrier "
				       "(cta_barrier) = gpu.cta_barrier\n",
				       GH_BENCH_BARRIER_CTAS, barrier);
	put_loop_check(g, "#   ", pts, n);
	g_string_append_printf(g,
			       "# The terms a sum was split by are %s's unless the sum was shorter.\n"
			       "# The proxy's doorbell (pcie.mmio_write) and completion reaps "
			       "(host.cq_poll)\n# and the NIC keep %s's values. Compare the "
			       "inter-node types: gcsim explain --scenario FILE\n",
			       d->platform, d->platform);
	g_string_append(g, "schema_version: 1\n");
	g_string_append_printf(g, "name: %s taxonomy\n", prov->name);
	g_string_append_printf(g,
			       "explain: {mode: compare, scope: inter, bytes: 512B, messages: 20000, "
			       "platform: %s}\n",
			       d->platform);
	if (has_proxy) {
		g_string_append(g, "proxy: {request_cost: ");
		append_time(g, px_fit);
		g_string_append(g, "}\n");
		if (px_kept[0] != post_send) {
			g_string_append(g, "host: {post_send: ");
			append_time(g, px_kept[0]);
			g_string_append(g, "}\n");
		}
	}
	if (has_post || ctas > 0 || has_publish || has_barrier) {
		g_string_append(g, "gpu: {");
		const char *sep = "";
		if (has_publish) {
			g_string_append(g, "publish: ");
			append_time(g, publish);
			sep = ", ";
		}
		if (has_post) {
			g_string_append(g, sep);
			g_string_append(g, "wqe_build: ");
			append_time(g, gp_fit);
			if (gp_kept[1] != fence) {
				g_string_append(g, ", fence: ");
				append_time(g, gp_kept[1]);
			}
			if (gp_kept[0] != store) {
				g_string_append(g, ", store_issue: ");
				append_time(g, gp_kept[0]);
			}
			sep = ", ";
		}
		if (has_barrier) {
			g_string_append(g, sep);
			g_string_append(g, "cta_barrier: ");
			append_time(g, cta_barrier);
			sep = ", ";
		}
		if (ctas > 0)
			g_string_append_printf(g, "%ssms: %d", sep, ctas);
		g_string_append(g, "}\n");
	}
	if (has_pcie)
		g_string_append_printf(g, "pcie: {bandwidth: %.6gGB/s}  # host-to-device copy fit\n",
				       f.beta_GBps);
	return GC_OK;
}
