/* SPDX-License-Identifier: MIT */
/*
 * gh_verbs: RDMA device discovery through libibverbs (see gh_verbs.h).
 * Compiled against verbs only under GC_HAVE_RDMA; otherwise the probe
 * reports that gcsim was built without rdma-core.
 */
#include "gh_verbs.h"

#include <glib.h>
#include <stdio.h>

#if GC_HAVE_RDMA
#include <infiniband/verbs.h>

gc_status gh_verbs_probe(void *gstring_out, int *ndev, char *why)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	*ndev = 0;
	if (!list) {
		snprintf(why, GH_WHY, "no RDMA device found (ibv_get_device_list failed: is the RDMA driver loaded?)");
		return GC_ERR_NODEV;
	}
	if (n == 0) {
		ibv_free_device_list(list);
		snprintf(why, GH_WHY, "no RDMA device found (libibverbs sees none)");
		return GC_ERR_NODEV;
	}
	GString *out = gstring_out;
	for (int i = 0; i < n; i++) {
		struct ibv_context *ctx = ibv_open_device(list[i]);
		struct ibv_port_attr pa;
		if (ctx && ibv_query_port(ctx, 1, &pa) == 0)
			g_string_append_printf(out, "RDMA %d: %s (port 1 %s, %s)\n", i,
					       ibv_get_device_name(list[i]),
					       pa.state == IBV_PORT_ACTIVE ? "active" : "down",
					       pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand");
		else
			g_string_append_printf(out, "RDMA %d: %s (cannot open)\n", i,
					       ibv_get_device_name(list[i]));
		if (ctx)
			ibv_close_device(ctx);
	}
	ibv_free_device_list(list);
	*ndev = n;
	return GC_OK;
}
#else
gc_status gh_verbs_probe(void *gstring_out, int *ndev, char *why)
{
	*ndev = 0;
	snprintf(why, GH_WHY, "gcsim was built without rdma-core (infiniband/verbs.h not found at build time)");
	return GC_ERR_NODEV;
}
#endif
