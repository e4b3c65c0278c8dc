/* SPDX-License-Identifier: MIT */
/*
 * gm_cpath: categories of the critical path and the accounting of one
 * transfer (see gm_cpath.h).
 */
#include "gm_cpath.h"

#include <glib.h>

static const struct {
	const char *name, *help;
} cats[GM_CP__COUNT] = {
	[GM_CP_LAUNCH] = {"launch", "kernel launch, the protocol's base latency and host enqueue"},
	[GM_CP_LATENCY] = {"latency", "messages, credits and signals on their way (route latency)"},
	[GM_CP_NVLINK] = {"nvlink", "bytes moving, an NVLink port the bottleneck (max-min share)"},
	[GM_CP_NET] = {"network", "bytes moving, a NIC or a fabric link the bottleneck"},
	[GM_CP_PCIE] = {"pcie", "bytes moving, PCIe the bottleneck"},
	[GM_CP_CHANNEL] = {"channel", "bytes moving, a channel's own rate (its CTAs) the bottleneck"},
	[GM_CP_LINK] = {"link", "bytes moving, a plain link (flat topology) the bottleneck"},
	[GM_CP_PROXY] = {"proxy", "a transport's CPU proxy thread: polls, work requests, waiting for its turn"},
	[GM_CP_NICMSG] = {"nic-msg", "a transport's NIC message stage (1 / nic.msg_rate) and its queue"},
	[GM_CP_CONTROL] = {"control", "the rest of a transport's control path: the GPU's work request, "
				      "fences, doorbells, flag polls, PCIe round trips, completions"},
	[GM_CP_COPY] = {"copy", "a host backend's staging copies between GPU and host memory "
				"(cudaMemcpy: its call and the bytes over PCIe)"},
	[GM_CP_HOST] = {"host", "bytes moving, a host process's own rate the bottleneck (gloo: its "
				"TCP stream; MPI: its shared-memory copies)"},
	[GM_CP_REDUCE] = {"reduce", "a host backend's CPU summing what arrived into host memory"},
	[GM_CP_OTHER] = {"other", "not attributed"},
};

const char *gm_cp_name(gm_cp_cat c)
{
	return c < GM_CP__COUNT ? cats[c].name : "?";
}

const char *gm_cp_help(gm_cp_cat c)
{
	return c < GM_CP__COUNT ? cats[c].help : "?";
}

void gm_cp_format_title(const char *what, void *gstring_out)
{
	g_string_append_printf(gstring_out, "#\n# where the time goes: the critical path (the chain "
					    "of waits that ends the operation), us%s\n",
			       what);
}

void gm_cp_format_head(const bool shown[GM_CP__COUNT], void *gstring_out)
{
	for (int c = 0; c < GM_CP__COUNT; c++)
		if (shown[c])
			g_string_append_printf(gstring_out, " %9s", gm_cp_name((gm_cp_cat)c));
	g_string_append(gstring_out, "  mostly\n");
}

void gm_cp_format_row(const double us[GM_CP__COUNT], const bool shown[GM_CP__COUNT],
		      void *gstring_out)
{
	int most = 0;
	for (int c = 0; c < GM_CP__COUNT; c++) {
		if (us[c] > us[most])
			most = c;
		if (shown[c])
			g_string_append_printf(gstring_out, " %9.2f", us[c]);
	}
	g_string_append_printf(gstring_out, "  %s\n",
			       us[most] > 0 ? gm_cp_name((gm_cp_cat)most) : "-");
}

void gm_cp_format_legend(const bool shown[GM_CP__COUNT], void *gstring_out)
{
	for (int c = 0; c < GM_CP__COUNT; c++)
		if (shown[c])
			g_string_append_printf(gstring_out, "#   %-8s %s\n", gm_cp_name((gm_cp_cat)c),
					       gm_cp_help((gm_cp_cat)c));
}

gm_cp_cat gm_cp_of_link(gm_link_kind k)
{
	switch (k) {
	case GM_LINK_NVLINK: return GM_CP_NVLINK;
	case GM_LINK_PCIE: return GM_CP_PCIE;
	case GM_LINK_NIC: return GM_CP_NET;
	case GM_LINK_CHANNEL: return GM_CP_CHANNEL;
	case GM_LINK_HOST: return GM_CP_HOST;
	default: return GM_CP_LINK;
	}
}

void gm_cpv_transfer(gm_cpv *v, const int64_t by_kind[GM_LINK__COUNT], int64_t now)
{
	for (int k = 0; k < GM_LINK__COUNT; k++) {
		v->c[gm_cp_of_link((gm_link_kind)k)] += by_kind[k];
		v->at += by_kind[k];
	}
	gm_cpv_to(v, now, GM_CP_OTHER); /* the transfer's times tile its span */
}
