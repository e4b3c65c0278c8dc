/* SPDX-License-Identifier: MIT */
/*
 * gm_cpath: categories of the critical path and the accounting of one
 * transfer (see gm_cpath.h).
 */
#include "gm_cpath.h"

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

gm_cp_cat gm_cp_of_link(gm_link_kind k)
{
	switch (k) {
	case GM_LINK_NVLINK: return GM_CP_NVLINK;
	case GM_LINK_PCIE: return GM_CP_PCIE;
	case GM_LINK_NIC: return GM_CP_NET;
	case GM_LINK_CHANNEL: return GM_CP_CHANNEL;
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
