/* SPDX-License-Identifier: MIT */
/*
 * gh_device: device report (see gh_device.h).
 */
#include "gh_device.h"

#include <ctype.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gh_device_pcie_gen(const char *speed)
{
	/* Per-lane transfer rate of each generation, GT/s. */
	static const double rate[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
	double v = strtod(speed, NULL);
	for (int g = 0; g < (int)G_N_ELEMENTS(rate); g++)
		if (v > 0 && v > rate[g] * 0.9 && v < rate[g] * 1.1)
			return g + 1;
	return 0;
}

static char *read_sysfs(const char *bus, const char *attr)
{
	char *lower = g_ascii_strdown(bus, -1);
	char *path = g_strdup_printf("/sys/bus/pci/devices/%s/%s", lower, attr);
	char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		text = NULL;
	g_free(path);
	g_free(lower);
	return text;
}

void gh_device_pcie_link(const char *pci_bus_id, int *gen, int *width)
{
	*gen = *width = 0;
	char *s = read_sysfs(pci_bus_id, "current_link_speed");
	char *w = read_sysfs(pci_bus_id, "current_link_width");
	if (s)
		*gen = gh_device_pcie_gen(s);
	if (w && isdigit((unsigned char)w[0]))
		*width = atoi(w);
	g_free(s);
	g_free(w);
}

void gh_device_describe(const gh_dev_info *d, char *buf, size_t n)
{
	/* the L2 is named for the virtual-rank model (gh_calib_l2_from_device) */
	snprintf(buf, n, "%s (sm_%d%d, %d SMs, %.0f GB, %d MiB L2, driver CUDA %d.%d, runtime %d.%d)",
		 d->name, d->cc_major, d->cc_minor, d->sm_count, (double)d->mem_bytes / 1e9,
		 d->l2_bytes >> 20,
		 d->driver_version / 1000, d->driver_version % 1000 / 10, d->runtime_version / 1000,
		 d->runtime_version % 1000 / 10);
}

gc_status gh_device_report(void *gstring_out, char *why)
{
	GString *out = gstring_out;
	int n = 0;
	gc_status st = gh_cuda_probe(&n, why);
	if (st != GC_OK)
		return st;
	GString *g = g_string_new(NULL);
	for (int i = 0; i < n; i++) {
		gh_dev_info d;
		st = gh_cuda_dev_info(i, &d, why);
		if (st != GC_OK)
			break;
		int gen, width;
		gh_device_pcie_link(d.pci_bus_id, &gen, &width);
		g_string_append_printf(g, "GPU %d: %s\n", i, d.name);
		g_string_append_printf(g, "  compute capability  %d.%d\n", d.cc_major, d.cc_minor);
		g_string_append_printf(g, "  SMs                 %d\n", d.sm_count);
		g_string_append_printf(g, "  memory              %.1f GiB, %d-bit bus, %d MHz\n",
				       (double)d.mem_bytes / (1024.0 * 1024 * 1024), d.mem_bus_bits,
				       d.mem_clock_khz / 1000);
		g_string_append_printf(g, "  L2                  %d MiB\n", d.l2_bytes >> 20);
		g_string_append_printf(g, "  PCI                 %s, ", d.pci_bus_id);
		if (gen)
			g_string_append_printf(g, "PCIe Gen%d x%d\n", gen, width);
		else
			g_string_append(g, "PCIe link unknown (sysfs unreadable)\n");
		g_string_append(g, "  peers (P2P)         ");
		if (d.npeers == 0)
			g_string_append(g, "none");
		for (int p = 0; p < d.npeers; p++)
			g_string_append_printf(g, "%sGPU %d", p ? ", " : "", d.peers[p]);
		g_string_append_printf(g, "\n  driver / runtime    CUDA %d.%d / %d.%d\n",
				       d.driver_version / 1000, d.driver_version % 1000 / 10,
				       d.runtime_version / 1000, d.runtime_version % 1000 / 10);
	}
	if (st == GC_OK)
		g_string_append_len(out, g->str, (gssize)g->len);
	g_string_free(g, TRUE);
	return st;
}
