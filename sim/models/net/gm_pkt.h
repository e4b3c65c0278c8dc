/* SPDX-License-Identifier: MIT */
/*
 * gm_pkt: the packet mode of gm_net (see gm_net_set_packet), private to
 * gm_net.c, which owns the flow table and dispatches to these.
 */
#ifndef GM_PKT_H
#define GM_PKT_H

#include "gm_net.h"

enum { GM_PKT_EV_TX = 2, GM_PKT_EV_ARRIVE = 3, GM_PKT_EV_LAND = 4 };

/* Flow fid (route and bytes set, active) starts in queue `queue`: its
 * packets wait at hop 0 behind the queue's earlier flows. */
void gm_pkt_start(gm_net *n, uint32_t fid, uint32_t queue, uint64_t land_tag);
/* A packet left a link, reached a hop, or a flow's last byte landed. */
void gm_pkt_handle(gm_net *n, uint32_t kind, uint64_t arg);
gc_status gm_pkt_check(const gm_net *n, char **errmsg);
void gm_pkt_fini(gm_net *n);

#endif
