/* SPDX-License-Identifier: MIT */
/*
 * Degraded components (faults.degrade): a link, or every link under a
 * name, carrying a fraction of its bandwidth, as a GPU with a degraded
 * NVLink, a NIC that trained down or a flapping port at its average rate
 * does. Names are the links' as --links prints them (n0.gpu3.nvlink.tx);
 * a name matches the link of that name and every link under it
 * (n0.gpu3.nvlink: its .tx and .rx; n0.gpu3: all of that GPU's; n2: a
 * whole node's). The flow and packet models share a degraded link's lower
 * rate among its flows like any other; a link with added latency
 * (faults.latency: a congested or rerouted port) delays every message
 * whose route crosses it.
 */
#ifndef GM_FAULT_H
#define GM_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gm_net.h"

typedef struct gm_fault {
	char name[GM_LINK_NAME];
	double frac;	/* of the link's bandwidth it keeps, (0, 1] */
	int64_t add_ps; /* latency it adds to every message crossing it */
} gm_fault;

/* faults.degrade, "NAME=50%,NAME=0.25": each a name and the share kept (a
 * percentage, or a fraction above 0 and at most 1); with latency
 * (faults.latency), "NAME=5us,...": the latency added (a time, 0 or more,
 * at most a second). *out (g_free) and *n; false with the reason in *why
 * (g_free) on a malformed list. An empty spec is no fault. */
bool gm_fault_parse(const char *spec, bool latency, gm_fault **out, size_t *n, char **why);

/* Scale the bandwidth and add to the latency of every link each fault
 * names; the index of the first fault that names no link, or -1. */
long gm_fault_apply(gm_net *net, const gm_fault *f, size_t n);

#endif
