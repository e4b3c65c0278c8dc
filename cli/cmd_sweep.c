/* SPDX-License-Identifier: MIT */
/*
 * gcsim sweep: one scenario over a grid of up to three keys' values, for
 * studies too long to run in one go. Every cell of the grid is stored in a
 * results file (SQLite) as soon as it is done, one transaction per cell,
 * under the label "sweep: KEY=V, ..." with the cell's effective
 * configuration. A later sweep over the same file reuses every cell whose
 * label and configuration match a stored run and simulates only the rest,
 * so an interrupted study resumes where it stopped, and a changed scenario
 * (or --set) is simulated again. The table (or CSV) on stdout is built from
 * the stored points, the same whether a cell was reused or simulated; an
 * SVG plot of one metric against size, one line per cell, is optional.
 *
 * All cells are checked (their configurations, and everything gcsim run
 * refuses before it simulates) before the first one runs, so a bad value
 * fails with nothing written.
 */
#include <errno.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sim/core/gc_config.h"
#include "sim/core/gc_results.h"
#include "sim/core/gc_units.h"
#include "sim/models/gm_keyuse.h"
#include "sim/models/gm_run.h"
#include "sim/models/gm_scenario.h"

#define SWEEP_AXES 3
#define SWEEP_CELLS 4096

typedef struct sweep_cell {
	char *value;  /* "V1,W1": the column of the table */
	char *label;  /* "sweep: KEY1=V1, KEY2=W1": the stored run's label */
	char *config; /* the effective configuration, as stored */
	GPtrArray *sets;
	int64_t run_id; /* the stored run that holds its points, 0 if none */
	gc_result_point *pts;
	size_t npts;
	gc_param_row *prm; /* with --breakdown: the stored run's parameters */
	size_t nprm;
} sweep_cell;

typedef struct sweep_axis {
	char *key;
	char **vals;
	guint len;
} sweep_axis;

static int sweep_status(gc_status st)
{
	return st == GC_ERR_INPUT || st == GC_ERR_DEADLOCK ? 2 : st == GC_ERR_IO ? 4 : 1;
}

static bool axis_parse(const char *spec, sweep_axis *ax)
{
	const char *eq = strchr(spec, '=');
	if (!eq || eq == spec || !eq[1]) {
		fprintf(stderr, "gcsim sweep: --sweep: expected KEY=V1,V2,..., got '%s'\n", spec);
		return false;
	}
	ax->key = g_strndup(spec, (gsize)(eq - spec));
	ax->vals = g_strsplit(eq + 1, ",", -1);
	ax->len = g_strv_length(ax->vals);
	for (char **v = ax->vals; *v; v++)
		if (!g_strstrip(*v)[0]) {
			fprintf(stderr, "gcsim sweep: --sweep: empty value in '%s'\n", spec);
			return false;
		}
	return true;
}

/* Progress on a terminal's stderr only. */
typedef struct sweep_progress {
	guint cell, ncells;
	const char *value;
} sweep_progress;

static void progress(void *ctx, size_t i, size_t n, uint64_t bytes)
{
	const sweep_progress *p = ctx;
	fprintf(stderr, "\rgcsim sweep: cell %u of %u (%s), size %zu of %zu (%llu B)   ",
		p->cell + 1, p->ncells, p->value, i + 1, n, (unsigned long long)bytes);
	fflush(stderr);
}

/* The newest stored run with the cell's label and configuration. */
static gc_status find_stored(gc_results *db, sweep_cell *cells, guint n, char **err)
{
	int64_t last = 0;
	gc_status st = gc_results_last_run(db, "sim", &last, err);
	if (st == GC_ERR_INPUT) { /* an empty file */
		g_clear_pointer(err, g_free);
		return GC_OK;
	}
	for (int64_t id = last; st == GC_OK && id >= 1; id--) {
		gc_run_row row = {0};
		if (gc_results_get_run(db, id, &row, err) != GC_OK) {
			g_clear_pointer(err, g_free); /* no run of that id */
			continue;
		}
		for (guint k = 0; k < n; k++)
			if (!cells[k].run_id && row.kind && !strcmp(row.kind, "sim") && row.label &&
			    !strcmp(row.label, cells[k].label) && row.config &&
			    !strcmp(row.config, cells[k].config))
				cells[k].run_id = id;
		gc_run_row_clear(&row);
	}
	return st;
}

static const char *metric_name(int m)
{
	return m == 0 ? "busbw (GB/s)" : m == 1 ? "algbw (GB/s)" : "time (us)";
}

static double metric_of(const gc_result_point *p, int m)
{
	return m == 0 ? p->busbw_GBps : m == 1 ? p->algbw_GBps : p->time_us;
}

/* SVG: the metric against size (log2), one line per cell and algorithm
 * label; time on a log10 axis, bandwidths from 0. Written to FILE.tmp and
 * renamed. */
static gc_status write_plot(const char *path, const char *title, const sweep_cell *cells, guint n,
			    int metric, char **err)
{
	static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
					     "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
	const double W = 900, H = 520, L = 80, R = 230, T = 40, B = 60;
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
	for (guint k = 0; k < n; k++)
		for (size_t i = 0; i < cells[k].npts; i++) {
			const gc_result_point *p = &cells[k].pts[i];
			double y = metric_of(p, metric);
			if (p->size_bytes == 0 || !(y > 0) || !isfinite(y))
				continue;
			double x = log2((double)p->size_bytes);
			xmin = fmin(xmin, x), xmax = fmax(xmax, x);
			ymin = fmin(ymin, y), ymax = fmax(ymax, y);
		}
	GString *g = g_string_new(NULL);
	g_string_append_printf(g,
			       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
			       "font-family=\"sans-serif\" font-size=\"12\">\n"
			       "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
			       W, H);
	char *esc = g_markup_escape_text(title, -1);
	g_string_append_printf(g, "<text x=\"%.0f\" y=\"24\" font-size=\"14\">%s</text>\n", L, esc);
	g_free(esc);
	bool logy = metric == 2;
	if (!isfinite(xmin)) { /* nothing to draw: an empty frame */
		xmin = 0, xmax = 1, ymin = 1, ymax = 10;
	}
	if (xmax - xmin < 1)
		xmax = xmin + 1;
	double y0, y1;
	if (logy) {
		y0 = floor(log10(ymin));
		y1 = ceil(log10(ymax));
		if (y1 <= y0)
			y1 = y0 + 1;
	} else {
		double step = pow(10, floor(log10(ymax)));
		y0 = 0;
		y1 = ceil(ymax / step) * step;
	}
	const double pw = W - L - R, ph = H - T - B;
#define PX(x) (L + ((x) - xmin) / (xmax - xmin) * pw)
#define PY(v) (T + ph - ((logy ? log10(v) : (v)) - y0) / (y1 - y0) * ph)
	g_string_append_printf(g, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
				  "fill=\"none\" stroke=\"black\"/>\n",
			       L, T, pw, ph);
	/* x ticks at powers of two, at most about twelve of them */
	int xs = (int)ceil((xmax - xmin) / 12.0);
	for (int e = (int)ceil(xmin); e <= (int)floor(xmax); e++) {
		if ((e - (int)ceil(xmin)) % xs)
			continue;
		char b[32];
		gc_fmt_bytes((uint64_t)1 << e, b, sizeof(b));
		double x = PX(e);
		g_string_append_printf(g, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
					  "stroke=\"#ddd\"/>\n<text x=\"%.1f\" y=\"%.0f\" "
					  "text-anchor=\"middle\">%s</text>\n",
				       x, T, x, T + ph, x, T + ph + 18, b);
	}
	for (int i = 0; i <= 5; i++) {
		double v = y0 + (y1 - y0) * i / 5.0, yv = logy ? pow(10, v) : v;
		double y = T + ph - (v - y0) / (y1 - y0) * ph;
		g_string_append_printf(g, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
					  "stroke=\"#ddd\"/>\n<text x=\"%.0f\" y=\"%.1f\" "
					  "text-anchor=\"end\">%.4g</text>\n",
				       L, y, L + pw, y, L - 6, y + 4, yv);
	}
	g_string_append_printf(g, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">size</text>\n",
			       L + pw / 2, H - 16);
	g_string_append_printf(g, "<text x=\"18\" y=\"%.0f\" text-anchor=\"middle\" "
				  "transform=\"rotate(-90 18 %.0f)\">%s</text>\n",
			       T + ph / 2, T + ph / 2, metric_name(metric));
	/* one line per (cell, algorithm label), in order */
	int series = 0;
	for (guint k = 0; k < n; k++) {
		GPtrArray *algos = g_ptr_array_new();
		for (size_t i = 0; i < cells[k].npts; i++) {
			bool seen = false;
			for (guint a = 0; a < algos->len && !seen; a++)
				seen = !strcmp(g_ptr_array_index(algos, a), cells[k].pts[i].algo);
			if (!seen)
				g_ptr_array_add(algos, (gpointer)cells[k].pts[i].algo);
		}
		for (guint a = 0; a < algos->len; a++, series++) {
			const char *al = g_ptr_array_index(algos, a), *c = colors[series % 10];
			g_string_append_printf(g, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s "
						  "points=\"",
					       c, series / 10 % 2 ? " stroke-dasharray=\"6 3\"" : "");
			for (size_t i = 0; i < cells[k].npts; i++) {
				const gc_result_point *p = &cells[k].pts[i];
				double y = metric_of(p, metric);
				if (strcmp(p->algo, al) || p->size_bytes == 0 || !(y > 0) || !isfinite(y))
					continue;
				g_string_append_printf(g, "%.1f,%.1f ", PX(log2((double)p->size_bytes)),
						       PY(y));
			}
			g_string_append(g, "\"/>\n");
			char *name = algos->len > 1 ? g_strdup_printf("%s %s", cells[k].value, al)
						    : g_strdup(cells[k].value);
			char *e = g_markup_escape_text(name, -1);
			double ly = T + 10 + 18.0 * series;
			g_string_append_printf(g, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
						  "stroke=\"%s\" stroke-width=\"2\"/><text x=\"%.0f\" "
						  "y=\"%.0f\">%s</text>\n",
					       L + pw + 12, ly, L + pw + 36, ly, c, L + pw + 42, ly + 4, e);
			g_free(e);
			g_free(name);
		}
		g_ptr_array_free(algos, TRUE);
	}
#undef PX
#undef PY
	g_string_append(g, "</svg>\n");
	char *tmp = g_strdup_printf("%s.tmp", path);
	GError *ge = NULL;
	gc_status st = GC_OK;
	if (!g_file_set_contents(tmp, g->str, (gssize)g->len, &ge) || rename(tmp, path) != 0) {
		*err = g_strdup_printf("%s: cannot write the plot: %s", path,
				       ge ? ge->message : g_strerror(errno));
		remove(tmp);
		st = GC_ERR_IO;
	}
	if (ge)
		g_error_free(ge);
	g_free(tmp);
	g_string_free(g, TRUE);
	return st;
}

/* The breakdown of point p of cell c, as stored (gm_run_breakdown_key);
 * false when the cell has none for it. */
static bool cell_breakdown(const sweep_cell *c, const gc_result_point *p, double us[GM_CP__COUNT])
{
	bool any = false;
	for (int k = 0; k < GM_CP__COUNT; k++) {
		char *want = gm_run_breakdown_key(p->algo, p->size_bytes, (gm_cp_cat)k);
		us[k] = 0;
		for (size_t i = 0; i < c->nprm; i++)
			if (!strcmp(c->prm[i].key, want)) {
				us[k] = c->prm[i].value;
				any = true;
			}
		g_free(want);
	}
	return any;
}

/* Whether a stored run holds a breakdown. */
static bool has_breakdown(const gc_param_row *prm, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (g_str_has_prefix(prm[i].key, "breakdown:"))
			return true;
	return false;
}

/* --breakdown, as a table: per cell and point, where the time goes (the
 * categories that are not zero everywhere) and the largest. */
static void print_breakdown(const char *key, const sweep_cell *cells, guint n, GString *g)
{
	const int w = (int)MAX(strlen(key), 20);
	bool shown[GM_CP__COUNT] = {false};
	double us[GM_CP__COUNT];
	for (guint k = 0; k < n; k++)
		for (size_t i = 0; i < cells[k].npts; i++)
			if (cell_breakdown(&cells[k], &cells[k].pts[i], us))
				for (int c = 0; c < GM_CP__COUNT; c++)
					shown[c] = shown[c] || us[c] != 0;
	gm_cp_format_title("", g);
	g_string_append_printf(g, "# %*s %16s %14s %10s", w, key, "algo", "size(B)", "time(us)");
	gm_cp_format_head(shown, g);
	for (guint k = 0; k < n; k++)
		for (size_t i = 0; i < cells[k].npts; i++) {
			const gc_result_point *p = &cells[k].pts[i];
			if (!cell_breakdown(&cells[k], p, us))
				continue;
			g_string_append_printf(g, "# %*s %16s %14llu %10.*f", w, cells[k].value, p->algo,
					       (unsigned long long)p->size_bytes,
					       p->time_us >= 1e4 ? 0 : p->time_us >= 1e3 ? 1 : 2,
					       p->time_us);
			gm_cp_format_row(us, shown, g);
		}
	gm_cp_format_legend(shown, g);
}

static void print_table(const char *path, const char *key, const char *results, const sweep_cell *cells,
			guint n, bool csv, bool breakdown, GString *g)
{
	double us[GM_CP__COUNT];
	const int w = (int)MAX(strlen(key), 20);
	if (csv) {
		g_string_append_printf(g, "%s,algo,ranks,size_bytes,time_us,algbw_GBps,busbw_GBps", key);
		for (int c = 0; breakdown && c < GM_CP__COUNT; c++)
			g_string_append_printf(g, ",%s_us", gm_cp_name((gm_cp_cat)c));
		g_string_append_c(g, '\n');
	} else
		g_string_append_printf(g, "# gcsim %s  scenario: %s, sweep of %s (%u cells, stored in %s)\n"
					  "# %*s %16s %8s %14s %10s %8s %8s\n",
				       GCSIM_VERSION, gc_config_source_name(path), key, n, results, w, key, "algo", "ranks",
				       "size(B)", "time(us)", "algbw", "busbw");
	for (guint k = 0; k < n; k++)
		for (size_t i = 0; i < cells[k].npts; i++) {
			const gc_result_point *p = &cells[k].pts[i];
			if (csv) {
				g_string_append_printf(g, "%s,%s,%d,%llu,%.6f,%.6f,%.6f", cells[k].value,
						       p->algo, p->nranks, (unsigned long long)p->size_bytes,
						       p->time_us, p->algbw_GBps, p->busbw_GBps);
				if (breakdown)
					cell_breakdown(&cells[k], p, us);
				for (int c = 0; breakdown && c < GM_CP__COUNT; c++)
					g_string_append_printf(g, ",%.6f", us[c]);
				g_string_append_c(g, '\n');
			} else /* four significant digits up to 10 ms, as gcsim run prints */
				g_string_append_printf(g, "  %*s %16s %8d %14llu %10.*f %8.2f %8.2f\n", w,
						       cells[k].value, p->algo, p->nranks,
						       (unsigned long long)p->size_bytes,
						       p->time_us >= 1e4 ? 0 : p->time_us >= 1e3 ? 1 : 2,
						       p->time_us, p->algbw_GBps, p->busbw_GBps);
		}
}

int cli_sweep(int argc, char **argv)
{
	char **specs = NULL, **sets = NULL;
	char *results = NULL, *plot = NULL, *metric = NULL, *format = NULL, *fidelity = NULL;
	gboolean breakdown = FALSE;
	GOptionEntry entries[] = {
		{"sweep", 0, 0, G_OPTION_ARG_STRING_ARRAY, &specs,
		 "a key and its values, up to three times: every combination is one cell (default: "
		 "the scenario's sweep.key and sweep.key2)",
		 "KEY=V1,V2,..."},
		{"results", 'r', 0, G_OPTION_ARG_FILENAME, &results,
		 "SQLite results file (required): every finished cell is stored there, and cells "
		 "already there with the same configuration are reused",
		 "FILE"},
		{"plot", 'p', 0, G_OPTION_ARG_FILENAME, &plot,
		 "also write an SVG plot of the metric against size, one line per cell", "FILE.svg"},
		{"metric", 'm', 0, G_OPTION_ARG_STRING, &metric,
		 "what the plot shows: busbw (default), algbw or time", "M"},
		{"format", 'f', 0, G_OPTION_ARG_STRING, &format, "output format: table (default) or csv",
		 "FMT"},
		{"fidelity", 0, 0, G_OPTION_ARG_STRING, &fidelity, "flow (default), packet or analytical",
		 "F"},
		{"breakdown", 'b', 0, G_OPTION_ARG_NONE, &breakdown,
		 "also keep and print where the time goes (gcsim run --breakdown) for every cell; a "
		 "cell stored without it runs again",
		 NULL},
		{"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
		 "override a scenario key in every cell (repeatable)", "KEY=VALUE"},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	char *cmdline = g_strjoinv(" ", argv);
	int done, rc = cli_parse(&argc, &argv, "SCENARIO.yaml",
				 "Run a scenario once per cell of a grid of values (up to three keys),\n"
				 "storing every cell in a results file as it finishes: rerun the same\n"
				 "command after an interruption and only the missing cells run. Prints\n"
				 "one table of every cell's points; --plot draws them.",
				 entries, &done);
	sweep_axis ax[SWEEP_AXES] = {{0}};
	int nax = 0;
	guint ncells = 0;
	sweep_cell *cells = NULL;
	char ***unused = NULL; /* per cell: the keys set and not used (gm_keyuse.h) */
	GPtrArray *base = g_ptr_array_new_with_free_func(g_free);
	gc_results *db = NULL;
	char *err = NULL, *key = NULL;
	int m = 0;
	bool csv = false;
	if (done)
		goto out;
	rc = 2;
	if (argc != 2) {
		fprintf(stderr, "gcsim sweep: expected one scenario file, got %d arguments (see --help)\n",
			argc - 1);
		goto out;
	}
	if (!results) {
		fprintf(stderr, "gcsim sweep: --results FILE is required: it keeps every finished cell, "
				"so an interrupted sweep resumes\n");
		goto out;
	}
	if (g_str_has_suffix(results, ".csv")) {
		fprintf(stderr, "gcsim sweep: --results %s: a sweep resumes from a SQLite results file, "
				"not CSV (gcsim run --results writes CSV)\n",
			results);
		goto out;
	}
	if (metric && (m = !strcmp(metric, "busbw")	 ? 0
			   : !strcmp(metric, "algbw") ? 1
			   : !strcmp(metric, "time")  ? 2
						      : -1) < 0) {
		fprintf(stderr, "gcsim sweep: --metric: expected busbw, algbw or time, got '%s'\n", metric);
		goto out;
	}
	if (format && !strcmp(format, "csv"))
		csv = true;
	else if (format && strcmp(format, "table") != 0) {
		fprintf(stderr, "gcsim sweep: --format: expected table or csv, got '%s'\n", format);
		goto out;
	}
	for (char **s = sets; s && *s; s++)
		g_ptr_array_add(base, g_strdup(*s));
	if (fidelity)
		g_ptr_array_add(base, g_strdup_printf("sim.fidelity=%s", fidelity));
	/* the scenario's own sweep unless --sweep gives the grid */
	gc_config *cfg = NULL;
	g_ptr_array_add(base, NULL);
	gc_status st = gm_scenario_load(argv[1], (const char *const *)base->pdata, &cfg, &err);
	g_ptr_array_remove_index(base, base->len - 1);
	if (st != GC_OK) {
		fprintf(stderr, "%s\n", err);
		rc = sweep_status(st);
		goto out;
	}
	bool step = !strcmp(gc_config_str(cfg, "workload"), "step");
	if (!specs)
		specs = cli_scenario_sweep(cfg);
	gc_config_free(cfg);
	if (step) {
		fprintf(stderr, "gcsim sweep: a training step (workload: step) is swept with gcsim run "
				"--sweep; gcsim sweep stores collectives' points\n");
		goto out;
	}
	if (!specs) {
		fprintf(stderr, "gcsim sweep: no grid: give --sweep KEY=V1,V2,... or the scenario's "
				"sweep.key and sweep.values\n");
		goto out;
	}
	nax = (int)g_strv_length(specs);
	if (nax > SWEEP_AXES) {
		fprintf(stderr, "gcsim sweep: --sweep: %d keys, at most %d\n", nax, SWEEP_AXES);
		nax = 0;
		goto out;
	}
	guint64 want = 1;
	for (int a = 0; a < nax; a++) {
		if (!axis_parse(specs[a], &ax[a]))
			goto out;
		for (int b = 0; b < a; b++)
			if (!strcmp(ax[a].key, ax[b].key)) {
				fprintf(stderr, "gcsim sweep: --sweep: '%s' twice\n", ax[a].key);
				goto out;
			}
		want *= ax[a].len;
	}
	if (want > SWEEP_CELLS) {
		fprintf(stderr, "gcsim sweep: %" G_GUINT64_FORMAT " cells, at most %d\n", want, SWEEP_CELLS);
		goto out;
	}
	ncells = (guint)want;
	cells = g_new0(sweep_cell, ncells);
	unused = g_new0(char **, ncells);
	GString *keys = g_string_new(NULL);
	for (int a = 0; a < nax; a++)
		g_string_append_printf(keys, "%s%s", a ? "," : "", ax[a].key);
	key = g_string_free(keys, FALSE);
	/* every cell's configuration first: a bad value stops the sweep
	 * before anything runs or is written */
	for (guint k = 0; k < ncells; k++) {
		sweep_cell *c = &cells[k];
		GString *val = g_string_new(NULL), *lab = g_string_new("sweep: ");
		c->sets = g_ptr_array_new_with_free_func(g_free);
		for (guint i = 0; i < base->len; i++)
			g_ptr_array_add(c->sets, g_strdup(g_ptr_array_index(base, i)));
		guint rest = k;
		char *picked[SWEEP_AXES];
		for (int a = nax - 1; a >= 0; a--) { /* the first key varies slowest */
			picked[a] = ax[a].vals[rest % ax[a].len];
			rest /= ax[a].len;
		}
		for (int a = 0; a < nax; a++) {
			g_string_append_printf(val, "%s%s", a ? "," : "", picked[a]);
			g_string_append_printf(lab, "%s%s=%s", a ? ", " : "", ax[a].key, picked[a]);
			g_ptr_array_add(c->sets, g_strdup_printf("%s=%s", ax[a].key, picked[a]));
		}
		c->value = g_string_free(val, FALSE);
		c->label = g_string_free(lab, FALSE);
		g_ptr_array_add(c->sets, NULL);
		gc_config *cc = NULL;
		st = gm_scenario_load(argv[1], (const char *const *)c->sets->pdata, &cc, &err);
		if (st != GC_OK) {
			fprintf(stderr, "%s (sweep cell %s)\n", err, c->label + strlen("sweep: "));
			rc = sweep_status(st);
			goto out;
		}
		GString *dump = g_string_new(NULL);
		gc_config_dump(cc, dump);
		c->config = g_string_free(dump, FALSE);
		gc_config_free(cc);
		/* and what gcsim run refuses before it simulates (an algorithm
		 * this cell's topology cannot run, ...) */
		gm_run_opts chk = {.sets = (const char *const *)c->sets->pdata,
				   .check_only = true,
				   .breakdown = breakdown,
				   .sweep_cell = true};
		gm_run *dry = NULL;
		st = gm_run_scenario(argv[1], &chk, &dry, &err);
		if (dry) {
			unused[k] = dry->unused;
			dry->unused = NULL;
		}
		gm_run_free(dry);
		if (st != GC_OK) {
			fprintf(stderr, "%s (sweep cell %s)\n", err, c->label + strlen("sweep: "));
			rc = sweep_status(st);
			goto out;
		}
	}
	/* and a key the scenario sets that no cell uses */
	char **none = gm_keyuse_common((char *const *const *)unused, ncells);
	st = gm_keyuse_refuse(none, ncells > 1 ? "(in every cell of the sweep)" : NULL, &err);
	g_strfreev(none);
	if (st != GC_OK) {
		fprintf(stderr, "%s\n", err);
		rc = sweep_status(st);
		goto out;
	}
	st = gc_results_open(results, true, &db, &err);
	if (st == GC_OK)
		st = find_stored(db, cells, ncells, &err);
	/* --breakdown: a cell stored without it is not done */
	for (guint k = 0; k < ncells && st == GC_OK && breakdown; k++) {
		if (!cells[k].run_id)
			continue;
		gc_param_row *prm = NULL;
		size_t nprm = 0;
		st = gc_results_get_params(db, cells[k].run_id, &prm, &nprm, &err);
		if (st == GC_OK && !has_breakdown(prm, nprm))
			cells[k].run_id = 0;
		g_free(prm);
	}
	if (st != GC_OK) {
		fprintf(stderr, "%s\n", err);
		rc = sweep_status(st);
		goto out;
	}
	gc_results_close(db);
	db = NULL;
	guint reused = 0, ran = 0;
	bool tty = isatty(STDERR_FILENO);
	char *command = g_strdup_printf("gcsim %s", cmdline);
	for (guint k = 0; k < ncells; k++) {
		sweep_cell *c = &cells[k];
		if (c->run_id) {
			reused++;
			continue;
		}
		sweep_progress pr = {k, ncells, c->value};
		gm_run_opts o = {.sets = (const char *const *)c->sets->pdata,
				 .breakdown = breakdown,
				 .sweep_cell = true};
		if (tty) {
			o.progress = progress;
			o.progress_ctx = &pr;
		}
		gm_run *run = NULL;
		st = gm_run_scenario(argv[1], &o, &run, &err);
		if (tty)
			fputs("\r\033[K", stderr);
		if (st == GC_OK)
			st = gm_run_save_results_as(run, results, c->label, command, &err);
		gm_run_free(run);
		if (st != GC_OK) {
			fprintf(stderr, "%s (sweep cell %s; %u cells done are kept in %s)\n", err,
				c->label + strlen("sweep: "), reused + ran, results);
			rc = sweep_status(st);
			g_free(command);
			goto out;
		}
		ran++;
	}
	g_free(command);
	/* every cell's points, as stored */
	st = gc_results_open(results, false, &db, &err);
	for (guint k = 0; k < ncells && st == GC_OK; k++)
		cells[k].run_id = 0;
	if (st == GC_OK)
		st = find_stored(db, cells, ncells, &err);
	for (guint k = 0; k < ncells && st == GC_OK; k++) {
		if (!cells[k].run_id) {
			err = g_strdup_printf("%s: the run of sweep cell %s is missing after it was "
					      "stored",
					      results, cells[k].value);
			st = GC_ERR_INTERNAL;
			break;
		}
		st = gc_results_get_points(db, cells[k].run_id, &cells[k].pts, &cells[k].npts, &err);
		if (st == GC_OK && breakdown)
			st = gc_results_get_params(db, cells[k].run_id, &cells[k].prm, &cells[k].nprm,
						   &err);
	}
	if (st != GC_OK) {
		fprintf(stderr, "%s\n", err);
		rc = sweep_status(st);
		goto out;
	}
	if (plot) {
		char *title = g_strdup_printf("%s: sweep of %s", gc_config_source_name(argv[1]), key);
		st = write_plot(plot, title, cells, ncells, m, &err);
		g_free(title);
		if (st != GC_OK) {
			fprintf(stderr, "%s\n", err);
			rc = sweep_status(st);
			goto out;
		}
	}
	GString *outs = g_string_new(NULL);
	print_table(argv[1], key, results, cells, ncells, csv, breakdown, outs);
	if (breakdown && !csv)
		print_breakdown(key, cells, ncells, outs);
	fwrite(outs->str, 1, outs->len, stdout);
	g_string_free(outs, TRUE);
	rc = fflush(stdout) == 0 ? 0 : 4;
	fprintf(stderr, "gcsim sweep: %u cells: %u simulated, %u reused from %s\n", ncells, ran,
		reused, results);
out:
	if (db)
		gc_results_close(db);
	for (guint k = 0; cells && k < ncells; k++) {
		g_free(cells[k].value);
		g_free(cells[k].label);
		g_free(cells[k].config);
		if (cells[k].sets)
			g_ptr_array_free(cells[k].sets, TRUE);
		g_free(cells[k].pts);
		g_free(cells[k].prm);
		if (unused)
			g_strfreev(unused[k]);
	}
	g_free(cells);
	g_free(unused);
	for (int a = 0; a < SWEEP_AXES; a++) {
		g_free(ax[a].key);
		g_strfreev(ax[a].vals);
	}
	g_ptr_array_free(base, TRUE);
	g_free(err);
	g_free(key);
	g_strfreev(specs);
	g_strfreev(sets);
	g_free(results);
	g_free(plot);
	g_free(metric);
	g_free(format);
	g_free(fidelity);
	g_free(cmdline);
	return rc;
}
