/* SPDX-License-Identifier: MIT */
/*
 * gm_proto: the protocol table and its application to a topology (see
 * gm_proto.h for the mechanisms and sources).
 *
 * Buffers (NCCL device.h): LL 8 lines/thread x 512 threads x 8 steps x 16 B
 * = 512 KiB of lines, half of it data, so 256 KiB of data in 8 steps of
 * 32 KiB; LL128 120 elements/thread x 640 threads x 8 steps x 8 B = 4,915,200
 * B of lines, 120/128 of it data: 8 steps of 576,000 B. LL and LL128 move a
 * whole step per message (chunk = slice); Simple: 4 MiB in 8 slots, chunk
 * 2 MiB of 1 MiB slices.
 */
#include "gm_proto.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

static const gm_proto_info protos[GM_PROTO__COUNT] = {
	[GM_PROTO_SIMPLE] = {"simple", 1.0, 8.4, {3.4, 5.7, 14.0}, 8.4, {4.0, 4.0, 14.0}, 2097152, 1048576,
			     4194304},
	[GM_PROTO_LL] = {"ll", 0.5, 6.6, {0.6, 1.0, 2.7}, 6.8, {0.6, 1.0, 5.0}, 32768, 32768, 262144},
	[GM_PROTO_LL128] = {"ll128", 120.0 / 128.0, 14.0, {1.9, 2.5, 4.0}, 14.0, {1.25, 1.9, 8.5}, 576000,
			    576000, 4608000},
};

const gm_proto_info *gm_proto_get(gm_proto p)
{
	return &protos[(unsigned)p < GM_PROTO__COUNT ? p : GM_PROTO_SIMPLE];
}

int gm_proto_from_name(const char *name)
{
	for (int i = 0; i < GM_PROTO__COUNT; i++)
		if (!strcmp(protos[i].name, name))
			return i;
	return -1;
}

bool gm_proto_parse_set(const char *s, unsigned *mask, unsigned *listed, const char **why)
{
	if (listed)
		*listed = 0;
	while (*s == ' ')
		s++;
	if (!*s) {
		*mask = GM_PROTO_ALL;
		return true;
	}
	bool exclude = *s == '^';
	if (exclude)
		s++;
	unsigned named = 0;
	for (;;) {
		const char *end = strchr(s, ',');
		size_t n = end ? (size_t)(end - s) : strlen(s);
		while (n && s[0] == ' ')
			s++, n--;
		while (n && s[n - 1] == ' ')
			n--;
		int q = -1;
		for (int i = 0; i < GM_PROTO__COUNT && n; i++)
			if (strlen(protos[i].name) == n && !strncasecmp(protos[i].name, s, n))
				q = i;
		if (q < 0) {
			*why = "expected protocols LL, LL128 and Simple separated by commas, or ^ "
			       "and those NCCL may not use (NCCL_PROTO's syntax)";
			return false;
		}
		named |= GM_PROTO_BIT(q);
		if (!end)
			break;
		s = end + 1;
	}
	*mask = exclude ? GM_PROTO_ALL & ~named : named;
	if (listed && !exclude)
		*listed = named;
	if (!*mask) {
		*why = "that leaves NCCL no protocol";
		return false;
	}
	return true;
}

static int64_t scale_ps(int64_t ps, double f)
{
	return (int64_t)llround((double)ps * f);
}

void gm_proto_apply(gm_proto p, gs_algo algo, gt_topo *t)
{
	const gm_proto_info *q = gm_proto_get(p), *s = gm_proto_get(GM_PROTO_SIMPLE);
	const bool tree = algo == GS_ALGO_TREE;
	const double *hop = tree ? q->tree_hop_lat_us : q->hop_lat_us;
	const double base = tree ? q->tree_base_lat_us : q->base_lat_us;
	t->bw_scale = q->bw_eff;
	t->lat_scale[GM_LINK_GENERIC] = 1.0;
	t->lat_scale[GM_LINK_NVLINK] = hop[0] / s->hop_lat_us[0];
	t->lat_scale[GM_LINK_PCIE] = hop[1] / s->hop_lat_us[1];
	t->lat_scale[GM_LINK_NIC] = hop[2] / s->hop_lat_us[2];
	t->launch_ps = scale_ps(t->launch_ps, base / s->base_lat_us);
}

void gm_proto_apply_nvls(gt_topo *t, double net_lat_us)
{
	const gm_proto_info *s = gm_proto_get(GM_PROTO_SIMPLE);
	if (t->nvls_eff > 0)
		t->bw_class_scale[GM_LINK_NVLINK] = t->nvls_eff;
	t->lat_scale[GM_LINK_NVLINK] = GM_NVLS_HOP_LAT_US / 2.0 / s->hop_lat_us[0];
	if (net_lat_us > 0)
		t->lat_scale[GM_LINK_NIC] = net_lat_us / s->hop_lat_us[2];
	t->launch_ps = scale_ps(t->launch_ps, GM_NVLS_BASE_LAT_US / s->base_lat_us);
}

/* NCCL's figures per generation come for one node, two, and more */
static int nodes_band(int comm_nodes)
{
	return comm_nodes <= 1 ? 0 : comm_nodes == 2 ? 1 : 2;
}

/* The ring's busbw bounds across nodes, one per link class: through a
 * node's NVLink ports (*nvl; 0 with one rank per node or no NVLink),
 * through its NICs (*nic) and through the PCIe links that feed them (*feed:
 * each NIC fed by the GPUs that share it). */
static void ring_bounds_across(const gt_topo *t, int rpn, double *nvl, double *nic, double *feed)
{
	int nics = gt_topo_comm_nics(t, rpn);
	*nvl = rpn > 1 ? gt_topo_intra_bw(t) * (double)rpn / (rpn - 1) : 0;
	*nic = t->nic.bw_Bps * nics;
	*feed = t->pcie.bw_Bps * (t->nic_share > 1 ? t->nic_share : 1) * nics;
}

double gm_proto_ring_bound(const gt_topo *t, int comm_nodes, int ranks_per_node)
{
	if (t->kind == GT_FLAT)
		return t->link.bw_Bps;
	int rpn = ranks_per_node > 0 ? ranks_per_node : 1;
	if (comm_nodes <= 1)
		return rpn > 1 ? gt_topo_intra_bw(t) : 0;
	double nvl, nic, feed;
	ring_bounds_across(t, rpn, &nvl, &nic, &feed);
	double net = nic < feed ? nic : feed;
	return rpn > 1 && nvl < net ? nvl : net;
}

/* Scale one link class's bandwidth to at most s of its rate (on top of
 * t->bw_scale, which every class shares). */
static void cap_class(gt_topo *t, int kind, double s)
{
	double cur = t->bw_class_scale[kind] > 0 ? t->bw_class_scale[kind] : 1.0;
	if (s < t->bw_scale * cur)
		t->bw_class_scale[kind] = s / t->bw_scale;
}

void gm_proto_cap_ll(gt_topo *t, int comm_nodes, int ranks_per_node)
{
	double cap = t->ll_max_Bps[nodes_band(comm_nodes)];
	if (!(cap > 0))
		return;
	if (t->kind == GT_FLAT || comm_nodes <= 1 || !(t->nvlink.bw_Bps > 0)) {
		/* one class of links carries the ring (or, in a PCIe node, the
		 * intra-node and network paths share the PCIe links) */
		double bound = gm_proto_ring_bound(t, comm_nodes, ranks_per_node);
		if (bound > 0 && cap / bound < t->bw_scale)
			t->bw_scale = cap / bound;
		return;
	}
	/* across NVLink nodes each class is held to the ceiling by its own
	 * bound, so that a faster link of one class never slows another's
	 * (with one rank per node the NVLink ports carry nothing: no bound) */
	double nvl, nic, feed;
	ring_bounds_across(t, ranks_per_node > 0 ? ranks_per_node : 1, &nvl, &nic, &feed);
	if (nvl > 0)
		cap_class(t, GM_LINK_NVLINK, cap / nvl);
	if (nic > 0)
		cap_class(t, GM_LINK_NIC, cap / nic);
	if (feed > 0)
		cap_class(t, GM_LINK_PCIE, cap / feed);
}

void gm_proto_cap_channel(gt_topo *t, gm_proto p, gs_algo algo, int comm_nodes, int nchannels)
{
	t->chan_cap_Bps = 0;
	t->chan_links = 0;
	if ((algo != GS_ALGO_RING && algo != GS_ALGO_TREE) || p == GM_PROTO_LL || nchannels < 1)
		return;
	int k = nodes_band(comm_nodes);
	double cap = t->chan_bw_Bps > 0	       ? t->chan_bw_Bps
		     : p == GM_PROTO_SIMPLE    ? t->chan_simple_Bps[k]
		     : algo == GS_ALGO_RING    ? t->chan_ll128_Bps[k]
					       : t->chan_tree_ll128_Bps[k];
	if (cap > 0) {
		t->chan_cap_Bps = cap;
		t->chan_links = nchannels;
	}
}
