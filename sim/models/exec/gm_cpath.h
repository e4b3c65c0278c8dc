/* SPDX-License-Identifier: MIT */
/*
 * gm_cpath: where the time of a simulated operation goes, along its
 * critical path.
 *
 * The critical path is the chain of waits that ends where the operation
 * ends (the last rank's finish): each strand carries a vector of times by
 * category whose sum is the time it has reached, and when it waits for
 * something (a message, buffer space coming back, a signal, its launch)
 * and that something arrives later than the strand was ready, the strand
 * takes over the vector of the event that woke it (the latest arrival
 * wins, as in a longest-path walk of the dependency graph). Transfers add
 * their own time by the class of the link that held their rate at each
 * moment (their bottleneck in the max-min sharing, gm_net_track_bottlenecks:
 * a port shared by many flows, or the flow's own narrowest link). Messages,
 * credits and signals add their time on the way (the route latency). The
 * result's categories sum to the operation's time exactly.
 *
 * Invariant: a vector's `at` is the time its categories add up to; a strand
 * running at time t has at == t (what woke it arrived at t), so OTHER stays
 * 0 unless an arrival is attributed out of order.
 */
#ifndef GM_CPATH_H
#define GM_CPATH_H

#include <stdbool.h>
#include <stdint.h>

#include "../net/gm_net.h"

typedef enum gm_cp_cat {
	GM_CP_LAUNCH = 0, /* kernel launch, the protocol's base latency, host enqueue */
	GM_CP_LATENCY,	  /* messages, credits and signals on their way */
	GM_CP_NVLINK,	  /* bytes moving, an NVLink port the bottleneck */
	GM_CP_NET,	  /* ... a NIC or a fabric link the bottleneck */
	GM_CP_PCIE,	  /* ... PCIe the bottleneck */
	GM_CP_CHANNEL,	  /* ... a channel's own rate (its CTAs) the bottleneck */
	GM_CP_LINK,	  /* ... a plain link (flat topologies) the bottleneck */
	GM_CP_PROXY,	  /* a transport's CPU proxy thread: its polls, its work, its queue */
	GM_CP_NICMSG,	  /* a transport's NIC message stage (1 / nic.msg_rate) and its queue */
	GM_CP_CONTROL,	  /* the rest of a transport's control path: the GPU's work request,
			   * fences and doorbell, flag polls, PCIe round trips, the DMA read
			   * request, the receiver's completion and the credit's way back */
	GM_CP_COPY,	  /* a host backend's staging copies, GPU to host and back (gm_host) */
	GM_CP_HOST,	  /* bytes moving, a host process's own rate the bottleneck */
	GM_CP_REDUCE,	  /* a host backend's CPU reducing in host memory */
	GM_CP_OTHER,	  /* not attributed (0 in a consistent run) */
	GM_CP__COUNT
} gm_cp_cat;

/* Short column name and one line on what the category holds. */
const char *gm_cp_name(gm_cp_cat c);
const char *gm_cp_help(gm_cp_cat c);

/* A breakdown as a table (gstring_out: a GString), us per category: the
 * title line (what: after "us", may be ""), the shown categories' column
 * names and "mostly", one row's values and its largest category, and one
 * line per shown category. */
void gm_cp_format_title(const char *what, void *gstring_out);
void gm_cp_format_head(const bool shown[GM_CP__COUNT], void *gstring_out);
void gm_cp_format_row(const double us[GM_CP__COUNT], const bool shown[GM_CP__COUNT],
		      void *gstring_out);
void gm_cp_format_legend(const bool shown[GM_CP__COUNT], void *gstring_out);

/* The category of bytes moving with a bottleneck of this kind. */
gm_cp_cat gm_cp_of_link(gm_link_kind k);

/* Times by category, summing to `at` (ps). */
typedef struct gm_cpv {
	int64_t at;
	int64_t c[GM_CP__COUNT];
} gm_cpv;

/* Account the time from v->at to t (when later) to category cat. */
static inline void gm_cpv_to(gm_cpv *v, int64_t t, gm_cp_cat cat)
{
	if (t > v->at) {
		v->c[cat] += t - v->at;
		v->at = t;
	}
}

/* The latest arrival wins: dst takes src when src reaches further. */
static inline void gm_cpv_join(gm_cpv *dst, const gm_cpv *src)
{
	if (src->at > dst->at)
		*dst = *src;
}

/* A transfer of v's strand ended at now, having spent by_kind[k] ps with a
 * bottleneck of kind k (gm_net_done_bottlenecks): add it to v. */
void gm_cpv_transfer(gm_cpv *v, const int64_t by_kind[GM_LINK__COUNT], int64_t now);

#endif
