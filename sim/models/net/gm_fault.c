/* SPDX-License-Identifier: MIT */
/* Degraded components (gm_fault.h). */
#include "gm_fault.h"

#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/gc_units.h"

/* A time from 0 to max (gc_units' spelling, a unit required); *w the
 * parser's reason when it has one. */
static bool parse_time(const char *val, int64_t max, int64_t *ps, const char **w)
{
	return gc_parse_time_ps(val, ps, w) == GC_OK && *ps >= 0 && *ps <= max;
}

/* A fraction (0.5) or a percentage (50%), finite. */
static bool parse_fraction(const char *val, double *v)
{
	char *end = NULL;
	*v = g_ascii_strtod(val, &end);
	bool pct = end && *end == '%';
	if (pct)
		end++;
	if (!*val || end == val || *end || !isfinite(*v))
		return false;
	if (pct)
		*v /= 100.0;
	return true;
}

bool gm_fault_parse(const char *spec, gm_fault_kind kind, gm_fault **out, size_t *n, char **why)
{
	const bool latency = kind == GM_FAULT_LATENCY;
	static const char *const what[] = {"SHARE", "TIME", "RATE", "@TIME"};
	static const char *const eg[] = {"NAME=SHARE, e.g. n0.gpu3.nvlink=50%",
					 "NAME=TIME, e.g. n1.nic2=5us", "NAME=RATE, e.g. n1.nic2=1e-6",
					 "NAME@TIME, e.g. n3@200us"};
	const char sep = kind == GM_FAULT_DOWN ? '@' : '=';
	*out = NULL;
	*n = 0;
	char **items = g_strsplit(spec, ",", -1);
	GArray *a = g_array_new(FALSE, TRUE, sizeof(gm_fault));
	bool ok = true;
	for (char **it = items; *it && ok; it++) {
		char *item = g_strstrip(*it);
		if (!*item) {
			if (it == items && !it[1])
				break; /* the empty spec */
			*why = g_strdup_printf("an empty entry; expected NAME%s%s entries separated by "
					       "commas",
					       kind == GM_FAULT_DOWN ? "" : "=", what[kind]);
			ok = false;
			break;
		}
		char *eq = strchr(item, sep);
		if (!eq || eq == item) {
			*why = g_strdup_printf("'%s': expected %s", item, eg[kind]);
			ok = false;
			break;
		}
		*eq = 0;
		char *name = g_strstrip(item), *val = g_strstrip(eq + 1);
		if (strlen(name) >= GM_LINK_NAME) {
			*why = g_strdup_printf("'%s': a link name is at most %d characters", name,
					       GM_LINK_NAME - 1);
			ok = false;
			break;
		}
		gm_fault f;
		memset(&f, 0, sizeof(f));
		f.frac = 1.0;
		f.down_ps = -1;
		const char *w = NULL;
		int64_t ps = 0;
		double v = 0;
		if (kind == GM_FAULT_DOWN) {
			if (!parse_time(val, INT64_C(3600000000000000), &ps, &w)) {
				*why = g_strdup_printf("'%s@%s': the time it stops is a time from the run's "
						       "start, 0 to 1h (200us)%s%s",
						       name, val, w ? ": " : "", w ? w : "");
				ok = false;
				break;
			}
			f.down_ps = ps;
		} else if (latency) {
			if (!parse_time(val, INT64_C(1000000000000), &ps, &w)) {
				*why = g_strdup_printf("'%s=%s': the latency added is a time from 0 to 1s "
						       "(5us)%s%s",
						       name, val, w ? ": " : "", w ? w : "");
				ok = false;
				break;
			}
			f.add_ps = ps;
		} else if (kind == GM_FAULT_LOSS) {
			if (!parse_fraction(val, &v) || v < 0 || v > 0.5) {
				*why = g_strdup_printf("'%s=%s': the loss rate is a packet's probability "
						       "from 0 to 0.5 (1e-6) or a percentage (0.01%%)",
						       name, val);
				ok = false;
				break;
			}
			f.loss = v;
		} else {
			if (!parse_fraction(val, &v)) {
				*why = g_strdup_printf("'%s=%s': the share is a percentage (50%%) or a "
						       "fraction (0.5)",
						       name, val);
				ok = false;
				break;
			}
			if (!(v > 0) || v > 1) {
				*why = g_strdup_printf("'%s=%s': the share kept is above 0 and at most "
						       "100%%",
						       name, val);
				ok = false;
				break;
			}
			f.frac = v;
		}
		g_strlcpy(f.name, name, sizeof(f.name));
		g_array_append_val(a, f);
	}
	g_strfreev(items);
	if (!ok) {
		g_array_free(a, TRUE);
		return false;
	}
	*n = a->len;
	*out = (gm_fault *)(void *)g_array_free(a, FALSE);
	return true;
}

/* Whether link name `l` is `f` or under it (f followed by a dot). */
static bool under(const char *l, const char *f)
{
	size_t k = strlen(f);
	return !strncmp(l, f, k) && (l[k] == 0 || l[k] == '.');
}

long gm_fault_apply(gm_net *net, const gm_fault *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool hit = false;
		for (uint32_t l = 0; l < net->nlinks; l++)
			if (under(net->info[l].name, f[i].name)) {
				net->links[l].bw_Bps *= f[i].frac;
				net->links[l].ps_per_byte = 1e12 / net->links[l].bw_Bps;
				net->info[l].lat_ps += f[i].add_ps;
				hit = true;
			}
		if (!hit)
			return (long)i;
	}
	return -1;
}

double gm_fault_link_loss(const gm_net *net, const gm_fault *f, size_t n, uint32_t l)
{
	double keep = 1.0;
	for (size_t i = 0; i < n; i++)
		if (f[i].loss > 0 && under(net->info[l].name, f[i].name))
			keep *= 1.0 - f[i].loss;
	return 1.0 - keep;
}

int64_t gm_fault_link_down(const gm_net *net, const gm_fault *f, size_t n, uint32_t l)
{
	int64_t t = INT64_MAX;
	for (size_t i = 0; i < n; i++)
		if (f[i].down_ps >= 0 && f[i].down_ps < t && under(net->info[l].name, f[i].name))
			t = f[i].down_ps;
	return t;
}
