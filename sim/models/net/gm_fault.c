/* SPDX-License-Identifier: MIT */
/* Degraded components (gm_fault.h). */
#include "gm_fault.h"

#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool gm_fault_parse(const char *spec, gm_fault **out, size_t *n, char **why)
{
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
			*why = g_strdup("an empty entry; expected NAME=SHARE entries separated by commas");
			ok = false;
			break;
		}
		char *eq = strchr(item, '=');
		if (!eq || eq == item) {
			*why = g_strdup_printf("'%s': expected NAME=SHARE, e.g. n0.gpu3.nvlink=50%%", item);
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
		char *end = NULL;
		double v = g_ascii_strtod(val, &end);
		bool pct = end && *end == '%';
		if (pct)
			end++;
		if (!*val || end == val || *end || !isfinite(v)) {
			*why = g_strdup_printf("'%s=%s': the share is a percentage (50%%) or a fraction "
					       "(0.5)",
					       name, val);
			ok = false;
			break;
		}
		if (pct)
			v /= 100.0;
		if (!(v > 0) || v > 1) {
			*why = g_strdup_printf("'%s=%s': the share kept is above 0 and at most 100%%",
					       name, val);
			ok = false;
			break;
		}
		gm_fault f;
		memset(&f, 0, sizeof(f));
		g_strlcpy(f.name, name, sizeof(f.name));
		f.frac = v;
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
				hit = true;
			}
		if (!hit)
			return (long)i;
	}
	return -1;
}
