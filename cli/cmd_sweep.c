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
 * SVG plot of one metric against size (or a swept key, --x), one line per
 * cell (or per size), is optional.
 *
 * All cells are checked (their configurations, and everything gcsim run
 * refuses before it simulates) before the first one runs, so a bad value
 * fails with nothing written. The cells then run in --jobs processes
 * (sweep_exec.h), this one the only writer of the results file; --shard
 * I/K keeps cells I, I+K, ... of the grid, and --merge copies stored
 * cells from other results files first.
 */
#include <errno.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "sim/core/gc_config.h"
#include "sim/core/gc_outfile.h"
#include "sim/core/gc_results.h"
#include "sim/core/gc_units.h"
#include "sim/models/run/gm_keyuse.h"
#include "sim/models/run/gm_run.h"
#include "sim/models/report/gm_report.h"
#include "sim/models/run/gm_scenario.h"
#include "progress.h"
#include "sweep_exec.h"

#define SWEEP_AXES 3
#define SWEEP_CELLS 4096

typedef struct sweep_cell {
	char *value;  /* "V1,W1": the column of the table */
	char *label;  /* "sweep: KEY1=V1, KEY2=W1": the stored run's label */
	char *config; /* the effective configuration, as stored */
	const char *picked[SWEEP_AXES]; /* each key's value (in the axes' vals) */
	GPtrArray *sets;
	const char **at; /* where each of sets stands (gm_run_opts.set_where) */
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
	return cli_exit_status(st);
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

/* Whether two configuration dumps (gc_config_dump) hold the same values:
 * each line's trailing "  # ORIGIN" (default, --set, FILE:LINE:COLUMN) says
 * where a value came from, not what it is, and is left out. */
static bool same_values(const char *a, const char *b)
{
	for (;;) {
		const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
		size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
		size_t va = la, vb = lb;
		for (size_t i = la; i >= 3; i--)
			if (!strncmp(a + i - 3, "  #", 3) && (i == la || a[i] == ' ')) {
				va = i - 3;
				break;
			}
		for (size_t i = lb; i >= 3; i--)
			if (!strncmp(b + i - 3, "  #", 3) && (i == lb || b[i] == ' ')) {
				vb = i - 3;
				break;
			}
		if (va != vb || strncmp(a, b, va) != 0)
			return false;
		if (!ea || !eb)
			return !ea && !eb;
		a = ea + 1;
		b = eb + 1;
	}
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
			    same_values(row.config, cells[k].config))
				cells[k].run_id = id;
		gc_run_row_clear(&row);
	}
	return st;
}

static const char *metric_name(int m)
{
	/* time's ticks carry their unit (plot_time_label) */
	return m == 0 ? "busbw (GB/s)" : m == 1 ? "algbw (GB/s)" : "time";
}

static double metric_of(const gc_result_point *p, int m)
{
	return m == 0 ? p->busbw_GBps : m == 1 ? p->algbw_GBps : p->time_us;
}

/* The plot's x axis: the size (log2), or one swept key's numeric values. */
typedef struct plot_x {
	int axis;	    /* the swept key on the x axis; -1: the size */
	const char *key;    /* its name */
	const double *vals; /* per cell: its value of that key */
} plot_x;

typedef struct plot_xy {
	double x, y;
} plot_xy;

/* One line of the plot: its legend name and its points, by x. */
typedef struct plot_series {
	char *name;
	char *group;	   /* the other keys' values (--x KEY) */
	uint64_t size;	   /* the message size (--x KEY) */
	const char *algo;  /* the algorithm label of its first point */
	GArray *pts;	   /* plot_xy */
} plot_series;

static int cmp_xy(const void *a, const void *b)
{
	const plot_xy *p = a, *q = b;
	return (p->x > q->x) - (p->x < q->x);
}

/* A number from a swept value: a plain number, or a size, time or
 * bandwidth with its unit (bytes, microseconds, GB/s). */
static bool plot_number(const char *s, double *out)
{
	uint64_t b;
	int64_t ps;
	double v;
	if (gc_parse_double(s, &v, NULL) == GC_OK)
		*out = v;
	else if (gc_parse_bytes(s, &b, NULL) == GC_OK)
		*out = (double)b;
	else if (gc_parse_time_ps(s, &ps, NULL) == GC_OK)
		*out = (double)ps / GC_PS_PER_US;
	else if (gc_parse_bw_Bps(s, &v, NULL) == GC_OK)
		*out = v / 1e9;
	else
		return false;
	return isfinite(*out);
}

/* A size as the plot labels it: a whole number of the largest binary
 * unit that divides it, "1 MiB", "512 MiB", "1500 B". */
static void plot_size_label(uint64_t bytes, char *b, size_t n)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	int u = (int)G_N_ELEMENTS(unit) - 1;
	while (u > 0 && (bytes >> (10 * u) == 0 || bytes % ((uint64_t)1 << (10 * u))))
		u--;
	snprintf(b, n, "%" G_GUINT64_FORMAT " %s", (guint64)(bytes >> (10 * u)), unit[u]);
}

/* A time tick's label, from microseconds, in the largest unit that keeps it
 * at 1 or more: "1 µs", "10 ms", "200 ns". */
static void plot_time_label(double us, char *b, size_t n)
{
	static const struct {
		double per;
		const char *unit;
	} u[] = {{1e6, "s"}, {1e3, "ms"}, {1, "\xc2\xb5s"}, {1e-3, "ns"}, {1e-6, "ps"}};
	size_t i = 0;
	while (i + 1 < G_N_ELEMENTS(u) && us < u[i].per * (1 - 1e-9))
		i++;
	snprintf(b, n, "%g %s", us / u[i].per, u[i].unit);
}

/* A marker at (x, y): seven shapes, prime to the ten colours, so that
 * colour and shape together tell seventy lines apart. The group's class
 * names the shape. */
static const char *const plot_shapes[] = {"circle",	   "square", "triangle", "diamond",
					  "triangle-down", "plus",   "cross"};

static void plot_marker(GString *g, int shape, double x, double y)
{
	const double r = 4;
	switch (shape) {
	case 0:
		g_string_append_printf(g, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>", x, y, r);
		break;
	case 1:
		g_string_append_printf(g, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
				       x - r, y - r, 2 * r, 2 * r);
		break;
	case 2:
	case 4: { /* up, down */
		double s = shape == 2 ? 1 : -1;
		g_string_append_printf(g, "<path d=\"M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z\"/>", x,
				       y - s * 1.25 * r, x + 1.15 * r, y + s * 0.85 * r, x - 1.15 * r,
				       y + s * 0.85 * r);
		break;
	}
	case 3:
		g_string_append_printf(g, "<path d=\"M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z\"/>",
				       x, y - 1.4 * r, x + 1.4 * r, y, x, y + 1.4 * r, x - 1.4 * r, y);
		break;
	case 5: /* stroked, not filled */
		g_string_append_printf(g, "<path fill=\"none\" stroke-width=\"2\" d=\"M%.1f,%.1f "
					  "H%.1f M%.1f,%.1f V%.1f\"/>",
				       x - 1.2 * r, y, x + 1.2 * r, x, y - 1.2 * r, y + 1.2 * r);
		break;
	default:
		g_string_append_printf(g, "<path fill=\"none\" stroke-width=\"2\" d=\"M%.1f,%.1f "
					  "L%.1f,%.1f M%.1f,%.1f L%.1f,%.1f\"/>",
				       x - r, y - r, x + r, y + r, x - r, y + r, x + r, y - r);
		break;
	}
}

/* The lines: with the size on the x axis, one per cell and algorithm
 * label; with a swept key on it, one per size, algorithm and value of the
 * other keys, through the cells that share them. With a swept key, the
 * k-th point of a size in a cell (the k-th algorithm: collective.compare)
 * stays on its own line even where collective.algo=auto picks another
 * algorithm at another x. */
static GPtrArray *plot_lines(const sweep_cell *cells, guint n, int nax, const plot_x *px, int metric)
{
	GPtrArray *lines = g_ptr_array_new();
	GHashTable *idx = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	bool slots = false; /* a cell with two points of one size */
	for (guint k = 0; k < n; k++) {
		const sweep_cell *c = &cells[k];
		GString *grp = g_string_new(NULL);
		for (int a = 0; a < nax; a++)
			if (a != px->axis)
				g_string_append_printf(grp, "%s%s", grp->len ? "," : "", c->picked[a]);
		for (size_t i = 0; i < c->npts; i++) {
			const gc_result_point *p = &c->pts[i];
			char *id;
			if (px->axis < 0)
				id = g_strdup_printf("%u\n%s", k, p->algo);
			else {
				int slot = 0;
				for (size_t j = 0; j < i; j++)
					slot += c->pts[j].size_bytes == p->size_bytes;
				slots = slots || slot > 0;
				id = g_strdup_printf("%s\n%" G_GUINT64_FORMAT "\n%d", grp->str,
						     (guint64)p->size_bytes, slot);
			}
			gpointer at;
			plot_series *s;
			if (g_hash_table_lookup_extended(idx, id, NULL, &at)) {
				s = g_ptr_array_index(lines, GPOINTER_TO_UINT(at));
				g_free(id);
			} else {
				s = g_new0(plot_series, 1);
				s->group = g_strdup(px->axis < 0 ? c->value : grp->str);
				s->size = p->size_bytes;
				s->algo = p->algo;
				s->pts = g_array_new(FALSE, FALSE, sizeof(plot_xy));
				g_hash_table_insert(idx, id, GUINT_TO_POINTER(lines->len));
				g_ptr_array_add(lines, s);
			}
			double y = metric_of(p, metric);
			if (!(y > 0) || !isfinite(y))
				continue;
			plot_xy xy = {px->axis < 0 ? (p->size_bytes ? log2((double)p->size_bytes) : NAN)
						   : px->vals[k],
				      y};
			if (isfinite(xy.x))
				g_array_append_val(s->pts, xy);
		}
		g_string_free(grp, TRUE);
	}
	g_hash_table_destroy(idx);
	/* the legend's names: the cell (and algorithm where a cell has
	 * several), or the other keys' values, the size (and algorithm) */
	for (guint i = 0; i < lines->len; i++) {
		plot_series *s = g_ptr_array_index(lines, i);
		g_array_sort(s->pts, cmp_xy);
		if (px->axis < 0) {
			/* a cell's lines are next to each other */
			const plot_series *prev = i ? g_ptr_array_index(lines, i - 1) : NULL,
					  *next = i + 1 < lines->len ? g_ptr_array_index(lines, i + 1) : NULL;
			bool more = (prev && !strcmp(prev->group, s->group)) ||
				    (next && !strcmp(next->group, s->group));
			s->name = more ? g_strdup_printf("%s %s", s->group, s->algo) : g_strdup(s->group);
		} else {
			char sz[40];
			plot_size_label(s->size, sz, sizeof(sz));
			s->name = g_strdup_printf("%s%s%s%s%s", s->group, s->group[0] ? " " : "", sz,
						  slots ? " " : "", slots ? s->algo : "");
		}
	}
	return lines;
}

/* SVG: the metric against size (log2) or a swept key, one line per
 * series (plot_lines), each with its colour, dash pattern and marker
 * shape, drawn the same in the legend; time on a log10 axis with a tick
 * per decade in its unit, bandwidths from 0. */
static GString *plot_svg(const char *title, const sweep_cell *cells, guint n, int nax,
			 const plot_x *px, const sweep_axis *xax, int metric)
{
	static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
					     "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
	/* after ten lines the colours repeat with the next dash pattern */
	static const char *const dashes[] = {NULL, "6 3", "2 3", "8 3 2 3"};
	GPtrArray *lines = plot_lines(cells, n, nax, px, metric);
	const double W = 900, L = 80, R = 230, T = 40, B = 60, LH = 18, pw = W - L - R, ph = 420;
	/* taller than the plot where the legend needs it */
	const double H = fmax(T + ph + B, T + 10 + LH * lines->len + 10);
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
	for (guint i = 0; i < lines->len; i++) {
		const GArray *a = ((const plot_series *)g_ptr_array_index(lines, i))->pts;
		for (guint j = 0; j < a->len; j++) {
			const plot_xy *p = &g_array_index(a, plot_xy, j);
			xmin = fmin(xmin, p->x), xmax = fmax(xmax, p->x);
			ymin = fmin(ymin, p->y), ymax = fmax(ymax, p->y);
		}
	}
	bool logy = metric == 2, logx = false;
	if (!isfinite(xmin)) { /* nothing to draw: an empty frame */
		xmin = 0, xmax = 1, ymin = 1, ymax = 10;
	}
	/* a swept key's axis spans all its values, drawn or not */
	guint nv = px->axis < 0 ? 0 : xax->len;
	double *xv = g_new(double, nv + 1);
	for (guint v = 0; v < nv; v++) {
		plot_number(xax->vals[v], &xv[v]);
		xmin = v ? fmin(xmin, xv[v]) : xv[v];
		xmax = v ? fmax(xmax, xv[v]) : xv[v];
	}
	/* a swept key's values on a log2 axis where they span a factor of 8
	 * or more (node counts 1, 8, 64), else linear; the points' x in the
	 * axis' units from here on */
	if (px->axis >= 0 && xmin > 0 && xmax / xmin >= 8) {
		logx = true;
		xmin = log2(xmin), xmax = log2(xmax);
		for (guint i = 0; i < lines->len; i++) {
			GArray *a = ((plot_series *)g_ptr_array_index(lines, i))->pts;
			for (guint j = 0; j < a->len; j++)
				g_array_index(a, plot_xy, j).x = log2(g_array_index(a, plot_xy, j).x);
		}
	}
	if (px->axis < 0 && xmax - xmin < 1) { /* one size: in the middle */
		double mid = (xmin + xmax) / 2;
		xmin = mid - 0.5, xmax = mid + 0.5;
	}
	else if (px->axis >= 0 && xmax - xmin <= 0) {
		double pad = logx ? 0.5 : fmax(fabs(xmin) * 0.1, 0.5);
		xmin -= pad, xmax += pad;
	}
	double y0, y1, ystep = 1;
	if (logy) {
		y0 = floor(log10(ymin));
		y1 = ceil(log10(ymax));
		if (y1 <= y0)
			y1 = y0 + 1;
	} else { /* a step of 1, 2 or 5 times a power of ten, at most 8 ticks */
		double mag = pow(10, floor(log10(ymax / 8)));
		ystep = mag * (ymax / mag <= 8 ? 1 : ymax / mag <= 16 ? 2 : ymax / mag <= 40 ? 5 : 10);
		y0 = 0;
		y1 = ceil(ymax / ystep * (1 - 1e-12)) * ystep;
		if (y1 <= 0)
			y1 = ystep;
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
#define XAT(x) (L + ((x) - xmin) / (xmax - xmin) * pw)
#define PX(x) XAT(logx ? log2(x) : (x))
#define PY(v) (T + ph - ((logy ? log10(v) : (v)) - y0) / (y1 - y0) * ph)
	g_string_append_printf(g, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
				  "fill=\"none\" stroke=\"black\"/>\n",
			       L, T, pw, ph);
	/* x ticks */
	if (px->axis < 0) {
		/* sizes: every power of two a grid line; labels 1, 2, 5, 10 or
		 * 20 powers apart (at most nine), at multiples of that step, so
		 * that 1 KiB, 1 MiB, 1 GiB are among them from 5 on */
		int e0 = (int)ceil(xmin), e1 = (int)floor(xmax), xs = 1;
		while (xs < 20 && (e1 - e0) / xs > 8)
			xs = xs == 1 ? 2 : xs == 2 ? 5 : xs == 5 ? 10 : 20;
		for (int e = e0; e <= e1; e++) {
			double x = XAT(e);
			g_string_append_printf(g, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
						  "stroke=\"%s\"/>\n",
					       x, T, x, T + ph, e % xs ? "#f0f0f0" : "#ddd");
			if (e % xs)
				continue;
			char b[40];
			plot_size_label((uint64_t)1 << e, b, sizeof(b));
			g_string_append_printf(g, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
					       x, T + ph + 18, b);
		}
	} else {
		/* a swept key: a tick at each of its values, as given (at most
		 * twelve labelled, evenly picked) */
		guint every = (nv + 11) / 12;
		for (guint v = 0; v < nv; v++) {
			bool dup = false; /* a value given twice */
			for (guint u = 0; u < v && !dup; u++)
				dup = xv[u] == xv[v];
			if (dup)
				continue;
			double x = PX(xv[v]);
			g_string_append_printf(g, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
						  "stroke=\"#ddd\"/>\n",
					       x, T, x, T + ph);
			if (v % every)
				continue;
			char *e = g_markup_escape_text(xax->vals[v], -1);
			g_string_append_printf(g, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
					       x, T + ph + 18, e);
			g_free(e);
		}
	}
	g_free(xv);
	/* y ticks: decades (and 2 and 5 times them over two decades or less)
	 * in the time's unit; bandwidths at their step */
	for (double d = y0; d <= y1 + 1e-9; d += logy ? 1 : ystep)
		for (int m = 1; m <= (logy && y1 - y0 <= 2 ? 5 : 1); m += m == 1 ? 1 : 3) {
			double yv = logy ? m * pow(10, d) : d;
			if (logy && log10(yv) > y1 + 1e-9)
				continue;
			double y = PY(yv);
			char b[40];
			if (logy)
				plot_time_label(yv, b, sizeof(b));
			else
				snprintf(b, sizeof(b), "%g", fabs(yv) < ystep * 1e-9 ? 0 : yv);
			g_string_append_printf(g, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
						  "stroke=\"#ddd\"/>\n<text x=\"%.0f\" y=\"%.1f\" "
						  "text-anchor=\"end\">%s</text>\n",
					       L, y, L + pw, y, L - 6, y + 4, b);
		}
	esc = g_markup_escape_text(px->axis < 0 ? "size" : px->key, -1);
	g_string_append_printf(g, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
			       L + pw / 2, T + ph + B - 16, esc);
	g_free(esc);
	g_string_append_printf(g, "<text x=\"18\" y=\"%.0f\" text-anchor=\"middle\" "
				  "transform=\"rotate(-90 18 %.0f)\">%s</text>\n",
			       T + ph / 2, T + ph / 2, metric_name(metric));
	/* the lines, their markers, and the legend drawn the same way */
	for (guint i = 0; i < lines->len; i++) {
		const plot_series *s = g_ptr_array_index(lines, i);
		const char *c = colors[i % 10], *dash = dashes[i / 10 % G_N_ELEMENTS(dashes)];
		int shape = (int)(i % G_N_ELEMENTS(plot_shapes));
		char *da = dash ? g_strdup_printf(" stroke-dasharray=\"%s\"", dash) : g_strdup("");
		g_string_append_printf(g, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
				       c, da);
		for (guint j = 0; j < s->pts->len; j++) {
			const plot_xy *p = &g_array_index(s->pts, plot_xy, j);
			g_string_append_printf(g, "%.1f,%.1f ", XAT(p->x), PY(p->y));
		}
		g_string_append(g, "\"/>\n");
		g_string_append_printf(g, "<g class=\"marker %s\" fill=\"%s\" stroke=\"%s\">",
				       plot_shapes[shape], c, c);
		for (guint j = 0; j < s->pts->len; j++) {
			const plot_xy *p = &g_array_index(s->pts, plot_xy, j);
			plot_marker(g, shape, XAT(p->x), PY(p->y));
		}
		g_string_append(g, "</g>\n");
		char *e = g_markup_escape_text(s->name, -1);
		double ly = T + 10 + LH * i;
		g_string_append_printf(g, "<g class=\"legend\"><line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" "
					  "y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\"%s/>"
					  "<g class=\"marker %s\" fill=\"%s\" stroke=\"%s\">",
				       L + pw + 8, ly, L + pw + 40, ly, c, da, plot_shapes[shape], c, c);
		plot_marker(g, shape, L + pw + 24, ly);
		g_string_append_printf(g, "</g><text x=\"%.0f\" y=\"%.0f\">%s</text></g>\n", L + pw + 46,
				       ly + 4, e);
		g_free(e);
		g_free(da);
	}
#undef XAT
#undef PX
#undef PY
	g_string_append(g, "</svg>\n");
	for (guint i = 0; i < lines->len; i++) {
		plot_series *s = g_ptr_array_index(lines, i);
		g_free(s->name);
		g_free(s->group);
		g_array_free(s->pts, TRUE);
		g_free(s);
	}
	g_ptr_array_free(lines, TRUE);
	return g;
}

/* The plot (plot_svg), written as gc_outfile writes (FILE.tmp renamed
 * onto a regular FILE, a device in place). */
static gc_status write_plot(const char *path, const char *title, const sweep_cell *cells, guint n,
			    int nax, const plot_x *px, const sweep_axis *xax, int metric, char **err)
{
	GString *g = plot_svg(title, cells, n, nax, px, xax, metric);
	gc_status st = gc_outfile_write(path, "the plot", g->str, g->len, err);
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

/* "I/K" with 0 <= I < K. */
static bool parse_shard(const char *s, guint *i, guint *k)
{
	char *end = NULL;
	errno = 0;
	guint64 a = g_ascii_strtoull(s, &end, 10);
	if (end == s || *end != '/' || errno)
		return false;
	const char *t = end + 1;
	guint64 b = g_ascii_strtoull(t, &end, 10);
	if (end == t || *end || errno || b < 1 || b > SWEEP_CELLS || a >= b || !g_ascii_isdigit(s[0]) ||
	    !g_ascii_isdigit(t[0]))
		return false;
	*i = (guint)a;
	*k = (guint)b;
	return true;
}

/* Whether two paths name one file (the second may not exist yet). */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static void cell_clear(sweep_cell *c)
{
	g_free(c->value);
	g_free(c->label);
	g_free(c->config);
	if (c->sets)
		g_ptr_array_free(c->sets, TRUE);
	g_free(c->at);
	g_free(c->pts);
	g_free(c->prm);
	memset(c, 0, sizeof(*c));
}

/* Keep cells I, I+K, ... (and their entries of unused) at the front; the
 * new count. */
static guint keep_shard(sweep_cell *cells, char ***unused, guint n, guint i, guint k)
{
	guint m = 0;
	for (guint c = 0; c < n; c++) {
		if (c % k == i) {
			cells[m] = cells[c];
			unused[m] = unused[c];
			if (m != c) {
				memset(&cells[c], 0, sizeof(cells[c]));
				unused[c] = NULL;
			}
			m++;
		} else {
			cell_clear(&cells[c]);
			g_strfreev(unused[c]);
			unused[c] = NULL;
		}
	}
	return m;
}

/* --merge: copy from each file, in order, the newest run of every cell
 * that neither the results file nor an earlier file holds, into the
 * results file (one transaction per file). cells' run ids are left 0. */
static gc_status merge_cells(char **files, const char *results, sweep_cell *cells, guint n,
			     guint *copied, char **err)
{
	gc_status st = GC_OK;
	gc_results *db = NULL;
	if (g_file_test(results, G_FILE_TEST_EXISTS)) {
		st = gc_results_open(results, true, &db, err);
		if (st == GC_OK)
			st = find_stored(db, cells, n, err);
		gc_results_close(db);
		db = NULL;
	}
	bool *held = g_new0(bool, n);
	for (guint k = 0; k < n; k++)
		held[k] = cells[k].run_id != 0;
	for (char **f = files; *f && st == GC_OK; f++) {
		gc_results *from = NULL;
		st = gc_results_open(*f, false, &from, err);
		for (guint k = 0; k < n; k++)
			cells[k].run_id = held[k] ? -1 : 0; /* -1: not looked for */
		if (st == GC_OK)
			st = find_stored(from, cells, n, err);
		for (guint k = 0; k < n && st == GC_OK; k++) {
			if (held[k] || cells[k].run_id <= 0)
				continue;
			gc_run_record rec;
			st = gc_results_get_record(from, cells[k].run_id, &rec, err);
			if (st == GC_OK && !db && (st = gc_results_open(results, true, &db, err)) == GC_OK)
				st = gc_results_begin(db, err);
			if (st == GC_OK)
				st = gc_results_insert_record(db, &rec, NULL, err);
			gc_run_record_clear(&rec);
			if (st == GC_OK) {
				held[k] = true;
				(*copied)++;
			}
		}
		gc_results_close(from);
		if (db) {
			if (st == GC_OK)
				st = gc_results_commit(db, err);
			if (st == GC_OK)
				gc_results_close(db);
			else
				gc_results_discard(db);
			db = NULL;
		}
	}
	for (guint k = 0; k < n; k++)
		cells[k].run_id = 0;
	g_free(held);
	return st;
}

/* What every cell's run shares (the callback of sweep_exec). */
typedef struct cell_ctx {
	const char *scenario, *command;
	sweep_cell *cells;
	guint ncells;
	bool breakdown;
} cell_ctx;

static gc_status run_cell(void *ctx, guint k, bool show, gc_run_record *rec, char **err)
{
	const cell_ctx *cx = ctx;
	sweep_cell *c = &cx->cells[k];
	gm_run_opts o = {.sets = (const char *const *)c->sets->pdata,
			 .set_where = c->at,
			 .breakdown = cx->breakdown,
			 .sweep_cell = true};
	/* the line on a terminal when this process runs the cells itself; the
	 * warning before a long size from every process */
	char *prefix = g_strdup_printf("gcsim sweep: cell %u of %u (%s)", k + 1, cx->ncells, c->value);
	cli_progress pr;
	cli_progress_attach(&pr, &o, prefix);
	pr.tty = pr.tty && show;
	gm_run *run = NULL;
	gc_status st = gm_run_scenario(cx->scenario, &o, &run, err);
	cli_progress_clear(&pr, &o);
	g_free(prefix);
	if (st == GC_OK)
		gm_run_record_of(run, c->label, cx->command, rec);
	gm_run_free(run);
	return st;
}

int cli_sweep(int argc, char **argv)
{
	char **specs = NULL, **sets = NULL;
	char *results = NULL, *plot = NULL, *metric = NULL, *format = NULL, *fidelity = NULL;
	char *xkey = NULL;
	gboolean breakdown = FALSE;
	int jobs = 0;
	char *shard = NULL;
	char **merges = NULL;
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
		 "also write an SVG plot of the metric against size (or --x KEY), one line per cell "
		 "and algorithm, each with its own colour, dash pattern and marker",
		 "FILE.svg"},
		{"x", 0, 0, G_OPTION_ARG_STRING, &xkey,
		 "the plot's x axis: size (default) or a swept key with numeric values, e.g. "
		 "topology.nodes: then one line per message size (and the other keys' values)",
		 "KEY"},
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
		{"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
		 "run N cells at a time, each in a process of its own (default: the cores); the "
		 "table is the same for every N",
		 "N"},
		{"shard", 0, 0, G_OPTION_ARG_STRING, &shard,
		 "run only shard I of K (cells I, I+K, I+2K, ... of the grid, from 0), e.g. one "
		 "array job of a batch scheduler each; merge the shards' results files with --merge",
		 "I/K"},
		{"merge", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &merges,
		 "first copy into --results the runs of this grid's cells that FILE holds (another "
		 "sweep's or a shard's results file; repeatable), then run what none holds",
		 "FILE"},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	char *cmdline = g_strjoinv(" ", argv);
	char *summary = g_strdup_printf(
		"Run a scenario once per cell of a grid of values (up to three keys),\n"
		"storing every cell in a results file as it finishes: rerun the same\n"
		"command after an interruption and only the missing cells run. Prints\n"
		"one table of every cell's points; --plot draws them against size,\n"
		"or with --x KEY against a swept key (busbw or time against\n"
		"topology.nodes, one line per message size).\n\n"
		"Cells run --jobs at a time, in processes of their own.\n%s",
		sweep_mpi_built()
			? "Under mpirun (this gcsim has Open MPI), rank 0 hands the cells to\n"
			  "the other ranks and stores every one in its results file:\n"
			  "mpirun -np K gcsim sweep S.yaml --results study.db."
			: "This gcsim was built without Open MPI (libopenmpi-dev, make\n"
			  "MPI=1), so it does not run under mpirun; --shard I/K splits a\n"
			  "grid over batch jobs instead.");
	int done, rc = cli_parse(&argc, &argv, "SCENARIO.yaml", summary, entries, &done);
	g_free(summary);
	sweep_axis ax[SWEEP_AXES] = {{0}};
	int nax = 0;
	guint ncells = 0, merged = 0;
	sweep_cell *cells = NULL;
	char ***unused = NULL; /* per cell: the keys set and not used (gm_keyuse.h) */
	GPtrArray *base = g_ptr_array_new_with_free_func(g_free);
	gc_results *db = NULL;
	char *err = NULL, *key = NULL;
	char **swhere[SWEEP_AXES] = {NULL}; /* the scenario's own values: where they stand */
	int m = 0;
	plot_x px = {.axis = -1};
	double *cellx = NULL; /* --x KEY: each cell's value of KEY */
	bool csv = false;
	int mrank = 0, msize = 1;
	bool mpi_waiting = false; /* rank 0: the other ranks wait for cells */
	char *command = g_strdup_printf("gcsim %s", cmdline);
	if (done)
		goto out;
	rc = 2;
	if (sweep_mpi_init(&mrank, &msize, &err) != GC_OK) {
		fprintf(stderr, "%s\n", err);
		goto out;
	}
	if (mrank != 0) { /* rank 0 says everything; the others run cells */
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			goto out;
	}
	if (msize > 1 && jobs > 1) {
		fprintf(stderr, "gcsim sweep: --jobs %d: under mpirun each of the %d ranks but rank 0 "
				"runs one cell at a time; start more ranks instead\n",
			jobs, msize);
		goto out;
	}
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
	if (xkey && !plot) {
		fprintf(stderr, "gcsim sweep: --x %s: chooses the plot's x axis; give --plot FILE.svg "
				"too\n",
			xkey);
		goto out;
	}
	if (format && !strcmp(format, "csv"))
		csv = true;
	else if (format && strcmp(format, "table") != 0) {
		fprintf(stderr, "gcsim sweep: --format: expected table or csv, got '%s'\n", format);
		goto out;
	}
	if (jobs < 0) {
		fprintf(stderr, "gcsim sweep: --jobs: expected a number of processes, 1 or more (0: "
				"the cores), got %d\n",
			jobs);
		goto out;
	}
	guint shard_i = 0, shard_k = 1;
	if (shard && !parse_shard(shard, &shard_i, &shard_k)) {
		fprintf(stderr, "gcsim sweep: --shard: expected I/K with 0 <= I < K (shard I of K, "
				"counted from 0), got '%s'\n",
			shard);
		goto out;
	}
	for (char **f = merges; f && *f; f++)
		if (!g_file_test(*f, G_FILE_TEST_IS_REGULAR)) {
			fprintf(stderr, "gcsim sweep: --merge %s: no such results file\n", *f);
			goto out;
		} else if (same_file(*f, results)) {
			fprintf(stderr, "gcsim sweep: --merge %s: that is the --results file itself\n",
				*f);
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
	if (!specs && (specs = cli_scenario_sweep(cfg))) {
		swhere[0] = gm_scenario_sweep_where(cfg, "sweep.values");
		swhere[1] = gm_scenario_sweep_where(cfg, "sweep.values2");
	}
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
	/* --x KEY: a swept key, every value of it a number */
	if (xkey && strcmp(xkey, "size") != 0) {
		for (int a = 0; a < nax; a++)
			if (!strcmp(ax[a].key, xkey))
				px.axis = a;
		if (px.axis < 0) {
			fprintf(stderr, "gcsim sweep: --x %s: not a swept key; expected size", xkey);
			for (int a = 0; a < nax; a++)
				fprintf(stderr, "%s%s", a + 1 < nax ? ", " : " or ", ax[a].key);
			fprintf(stderr, "\n");
			goto out;
		}
		for (guint v = 0; v < ax[px.axis].len; v++) {
			double d;
			if (!plot_number(ax[px.axis].vals[v], &d)) {
				fprintf(stderr, "gcsim sweep: --x %s: the value '%s' is not a number (or "
						"a size, time or bandwidth) to plot against\n",
					xkey, ax[px.axis].vals[v]);
				goto out;
			}
		}
		px.key = ax[px.axis].key;
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
		guint idx[SWEEP_AXES];
		for (int a = nax - 1; a >= 0; a--) { /* the first key varies slowest */
			idx[a] = rest % ax[a].len;
			picked[a] = ax[a].vals[idx[a]];
			rest /= ax[a].len;
		}
		c->at = g_new0(const char *, c->sets->len + (guint)nax + 1);
		for (int a = 0; a < nax; a++) {
			c->picked[a] = picked[a];
			g_string_append_printf(val, "%s%s", a ? "," : "", picked[a]);
			g_string_append_printf(lab, "%s%s=%s", a ? ", " : "", ax[a].key, picked[a]);
			if (swhere[a] && g_strv_length(swhere[a]) == ax[a].len)
				c->at[c->sets->len] = swhere[a][idx[a]];
			g_ptr_array_add(c->sets, g_strdup_printf("%s=%s", ax[a].key, picked[a]));
		}
		c->value = g_string_free(val, FALSE);
		c->label = g_string_free(lab, FALSE);
		g_ptr_array_add(c->sets, NULL);
		gc_config *cc = NULL;
		st = gm_scenario_load_at(argv[1], (const char *const *)c->sets->pdata, c->at, &cc,
					 &err);
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
				   .set_where = c->at,
				   .check_only = true,
				   .breakdown = breakdown,
				   .sweep_cell = true};
		gm_run *dry = NULL;
		st = gm_run_scenario(argv[1], &chk, &dry, &err);
		if (dry) {
			unused[k] = dry->unused;
			dry->unused = NULL;
			/* the configuration as the run stores it: with what the run
			 * fills in (a transport's platform defaults and NIC latency) */
			GString *rd = g_string_new(NULL);
			gc_config_dump(dry->cfg, rd);
			g_free(c->config);
			c->config = g_string_free(rd, FALSE);
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
	if (shard_k > 1) /* this shard's cells only, from here on */
		ncells = keep_shard(cells, unused, ncells, shard_i, shard_k);
	cell_ctx cx = {argv[1], command, cells, ncells, breakdown};
	sweep_exec x = {run_cell, &cx, results, ncells, mrank == 0 && isatty(STDERR_FILENO)};
	if (mrank != 0) { /* until rank 0 says stop */
		sweep_mpi_serve(&x);
		rc = 0;
		goto out;
	}
	mpi_waiting = msize > 1;
	/* the outputs, before anything runs: a results file or a plot that
	 * could not be written is refused now; a results file that is not
	 * there yet is made by the first cell stored, so a sweep that fails
	 * before one is stored leaves none */
	st = gc_results_check_writable(results, &err);
	if (st == GC_OK && plot)
		st = gc_outfile_check(plot, "the plot", &err);
	if (st == GC_OK && merges)
		st = merge_cells(merges, results, cells, ncells, &merged, &err);
	if (st == GC_OK && g_file_test(results, G_FILE_TEST_EXISTS)) {
		st = gc_results_open(results, true, &db, &err);
		if (st == GC_OK)
			st = find_stored(db, cells, ncells, &err);
	}
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
	{
		guint *todo = g_new(guint, ncells), ntodo = 0, fail_k = 0;
		for (guint k = 0; k < ncells; k++) {
			if (cells[k].run_id)
				reused++;
			else
				todo[ntodo++] = k;
		}
		if (msize > 1) {
			st = sweep_mpi_coordinate(&x, todo, ntodo, msize, &ran, &fail_k, &err);
			mpi_waiting = false; /* every rank was told to stop */
		} else {
			st = sweep_exec_cells(&x, todo, ntodo,
					      jobs > 0 ? jobs : (int)g_get_num_processors(), &ran,
					      &fail_k, &err);
		}
		g_free(todo);
		if (st != GC_OK) {
			fprintf(stderr, "%s (sweep cell %s; %u cells done are kept in %s)\n", err,
				cells[fail_k].label + strlen("sweep: "), reused + ran, results);
			rc = sweep_status(st);
			goto out;
		}
	}
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
		if (px.axis >= 0) {
			cellx = g_new(double, ncells);
			for (guint k = 0; k < ncells; k++)
				plot_number(cells[k].picked[px.axis], &cellx[k]);
			px.vals = cellx;
		}
		st = write_plot(plot, title, cells, ncells, nax, &px, px.axis >= 0 ? &ax[px.axis] : NULL,
				m, &err);
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
	rc = cli_flush_stdout();
	if (shard_k > 1)
		fprintf(stderr, "gcsim sweep: shard %u/%u: ", shard_i, shard_k);
	else
		fprintf(stderr, "gcsim sweep: ");
	fprintf(stderr, "%u cells: %u simulated, %u reused from %s", ncells, ran, reused, results);
	if (merges)
		fprintf(stderr, " (%u of them copied from --merge)", merged);
	fprintf(stderr, "\n");
out:
	if (mpi_waiting)
		sweep_mpi_release(msize);
	sweep_mpi_finish();
	g_free(command);
	if (db)
		gc_results_close(db);
	for (guint k = 0; cells && k < ncells; k++) {
		g_free(cells[k].value);
		g_free(cells[k].label);
		g_free(cells[k].config);
		if (cells[k].sets)
			g_ptr_array_free(cells[k].sets, TRUE);
		g_free(cells[k].at);
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
		g_strfreev(swhere[a]);
	}
	g_ptr_array_free(base, TRUE);
	g_free(err);
	g_free(key);
	g_strfreev(specs);
	g_strfreev(sets);
	g_free(results);
	g_free(plot);
	g_free(xkey);
	g_free(cellx);
	g_free(shard);
	g_strfreev(merges);
	g_free(metric);
	g_free(format);
	g_free(fidelity);
	g_free(cmdline);
	return rc;
}
