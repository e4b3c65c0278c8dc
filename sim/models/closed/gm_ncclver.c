/* SPDX-License-Identifier: MIT */
/*
 * gm_ncclver: NCCL's cost model by release (see gm_ncclver.h).
 *
 * The model of a release is 2.19.1's with every later change up to it
 * applied, each change below under the first release that has it, as
 * src/graph/tuning.cc of the tagged releases has it (NVIDIA/nccl tags
 * v2.19.1-1 .. v2.30.7-1).
 */
#include "gm_ncclver.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

/* every release from 2.19.1 on, as major * 10000 + minor * 100 + patch */
static const int releases[] = {21901, 21903, 21904, 22003, 22005, 22105, 22203, 22304, 22403, 22501,
			       22602, 22603, 22605, 22606, 22703, 22705, 22706, 22707, 22803, 22807,
			       22809, 22902, 22903, 22907, 23003, 23004, 23007};

enum { LL = 0, LL128, SIMPLE };
enum { NVL = 0, PCI, NET };
enum { VOLTA = 0, AMPERE, HOPPER, BLACKWELL };

static void set3(double *row, double a, double b, double c)
{
	row[0] = a;
	row[1] = b;
	row[2] = c;
}

/* 2.19.1's model. The tree's Simple hop is 28 us everywhere; CollNet's and
 * NVLS's latencies are per hop, with no base. Blackwell has Hopper's
 * figures (NCCL indexes every generation from 9.0 on as Hopper until
 * 2.25). */
static void model_2_19_1(gm_nccl_model *m)
{
	static const double base[GM_NA__N][3] = {{6.8, 14.0, 0}, {6.6, 14.0, 8.4}, {0, 0, 0},
						 {0, 0, 0},	 {0, 0, 0},	  {0, 0, 0}};
	static const double hw[3][GM_NA__N][3] = {
		{{.6, 1.25, 28}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 23}, {0, 0, 23}},
		{{1.0, 1.9, 28}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}},
		{{5.0, 8.5, 28}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 14}}};
	static const double ll[3][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}};
	static const double ring128[3][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}};
	static const double tree128[3][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}};
	static const double tree[3][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}};
	memcpy(m->base_lat, base, sizeof(base));
	memcpy(m->hw_lat, hw, sizeof(hw));
	for (int g = 0; g < 4; g++) {
		int s = g < BLACKWELL ? g : HOPPER;
		memcpy(m->ll_max[g], ll[s], sizeof(ll[s]));
		memcpy(m->ring_ll128[g], ring128[s], sizeof(ring128[s]));
		memcpy(m->tree_ll128[g], tree128[s], sizeof(tree128[s]));
		memcpy(m->tree_simple[g], tree[s], sizeof(tree[s]));
	}
	/* NVLS's bandwidth estimate is 2.28's for every release (gm_ncclver.h),
	 * with 2.28.3's ceilings per NVLS tree channel */
	set3(m->nvls_tree[VOLTA], 26.5, 18.5, 10.0);
	set3(m->nvls_tree[AMPERE], 24.0, 23.6, 17.8);
	set3(m->nvls_tree[HOPPER], 0.0, 57.7, 45.5);
	set3(m->nvls_tree[BLACKWELL], 0.0, 96.0, 43.1);
	m->pat_factor = 0;
	m->ring_ll_quarter = true;
	m->ring_ll128_ppn = true;
}

/* the changes of each release over the one before */
static void model_apply(gm_nccl_model *m, int v)
{
	model_2_19_1(m);
	if (v >= 22105) {
		m->hw_lat[NVL][GM_NA_NVLS][SIMPLE] = m->hw_lat[NVL][GM_NA_NVLSTREE][SIMPLE] = 25;
		set3(m->ll_max[HOPPER], 141.0, 45.0, 35.0);
		set3(m->ll_max[BLACKWELL], 141.0, 45.0, 35.0);
		m->ring_ll_quarter = false;
	}
	if (v >= 22304) {
		/* the tree's Simple hop back to 4 / 4 / 14 us, with a base;
		 * PAT */
		m->base_lat[GM_NA_TREE][SIMPLE] = 8.4;
		m->hw_lat[NVL][GM_NA_TREE][SIMPLE] = m->hw_lat[PCI][GM_NA_TREE][SIMPLE] = 4.0;
		m->hw_lat[NET][GM_NA_TREE][SIMPLE] = 14;
		m->pat_factor = .85;
		m->ring_ll128_ppn = false;
	}
	if (v >= 22403)
		m->pat_factor = .75;
	if (v >= 22501) {
		/* Blackwell's own row: twice Hopper's */
		set3(m->ll_max[BLACKWELL], 2 * 141.0, 2 * 45.0, 2 * 35.0);
		set3(m->ring_ll128[BLACKWELL], 2 * 36.7, 2 * 36.7, 2 * 36.7);
		set3(m->tree_ll128[BLACKWELL], 2 * 36.7, 2 * 36.7, 2 * 29.0);
		set3(m->tree_simple[BLACKWELL], 2 * 38.7, 2 * 41.4, 2 * 36.0);
	}
	if (v >= 22803) { /* Blackwell's figures of its own */
		set3(m->tree_ll128[BLACKWELL], 55.6, 31.67, 20.0);
		set3(m->tree_simple[BLACKWELL], 70.0, 42.8, 24.0);
	}
	if (v >= 22807)
		m->ring_ll128[BLACKWELL][1] = 34.6;
	if (v >= 22809) {
		m->hw_lat[NET][GM_NA_NVLSTREE][SIMPLE] = 20.9;
		m->nvls_tree[BLACKWELL][2] = 43.8;
	}
	if (v >= 22902)
		set3(m->ring_ll128[BLACKWELL], 34.5, 34.6, 34.5);
	if (v >= 22907)
		set3(m->ring_ll128[BLACKWELL], 40.0, 40.0, 40.0);
	if (v >= 23003)
		m->nvls_tree[BLACKWELL][2] = 80.0;
}

/* "2.M" or "2.M.P", digits only; *patch -1 for "2.M" */
static bool parse(const char *s, int *minor, int *patch)
{
	int maj = 0, n = 0;
	*minor = *patch = -1;
	if (sscanf(s, "%d.%d%n", &maj, minor, &n) != 2 || maj != 2)
		return false;
	const char *rest = s + n;
	if (*rest == '.') {
		int k = 0;
		if (sscanf(rest + 1, "%d%n", patch, &k) != 1 || rest[1 + k] != '\0')
			return false;
		rest += 1 + k;
	}
	if (*rest != '\0')
		return false;
	for (const char *p = s; *p; p++)
		if (!(g_ascii_isdigit(*p) || *p == '.'))
			return false;
	return *minor >= 0 && *minor < 100 && *patch < 100;
}

const char *gm_nccl_releases(void)
{
	static char buf[256];
	if (!buf[0]) {
		size_t at = 0;
		for (size_t i = 0; i < G_N_ELEMENTS(releases) && at < sizeof(buf); i++)
			at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s2.%d.%d", i ? ", " : "",
					       releases[i] / 100 % 100, releases[i] % 100);
	}
	return buf;
}

bool gm_nccl_model_get(const char *version, gm_nccl_model *m, char **why)
{
	int minor, patch;
	if (!parse(version, &minor, &patch)) {
		*why = g_strdup_printf("'%s' is not an NCCL release: give 2.M or 2.M.P, as NCCL prints "
				       "it (NCCL version 2.26.2+cuda12.8: 2.26.2)",
				       version);
		return false;
	}
	const int first = releases[0], last = releases[G_N_ELEMENTS(releases) - 1];
	int v = -1;
	if (patch < 0) { /* the newest release of 2.M */
		for (size_t i = 0; i < G_N_ELEMENTS(releases); i++)
			if (releases[i] / 100 == 200 + minor)
				v = releases[i];
	} else { /* the newest release at or before 2.M.P */
		int want = 20000 + minor * 100 + patch;
		if (want <= last)
			for (size_t i = 0; i < G_N_ELEMENTS(releases); i++)
				if (releases[i] <= want)
					v = releases[i];
	}
	if (v < 0) {
		*why = g_strdup_printf("gcsim carries NCCL's cost model of 2.%d.%d to 2.%d.%d "
				       "(src/graph/tuning.cc of each release); %s is %s",
				       first / 100 % 100, first % 100, last / 100 % 100, last % 100,
				       version,
				       20000 + minor * 100 + (patch < 0 ? 0 : patch) > last
					       ? "newer: give the newest, 2.30 (its model may have changed since)"
					       : "older");
		return false;
	}
	memset(m, 0, sizeof(*m));
	m->ver = v;
	snprintf(m->name, sizeof(m->name), "2.%d.%d", v / 100 % 100, v % 100);
	model_apply(m, v);
	return true;
}
