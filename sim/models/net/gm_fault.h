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
	double loss;	/* probability that a packet crossing it is lost, [0, 0.5] */
	int64_t down_ps;/* faults.down: it stops at this time from the run's start (-1: never) */
} gm_fault;

/* What a faults.* list gives per name (gm_fault_parse). */
typedef enum { GM_FAULT_DEGRADE = 0, GM_FAULT_LATENCY, GM_FAULT_LOSS, GM_FAULT_DOWN } gm_fault_kind;

/* A lossy link (faults.loss, "NAME=1e-6"): every packet of GM_FAULT_MTU
 * bytes crossing it is lost with that probability, drawn from the run's
 * seed. A message on a reliable connection (InfiniBand RC, the verbs
 * NCCL's NET transport uses) is delivered in order: a packet lost before
 * the message's last is NAKed by the receiver when the next one arrives
 * and resent after one round trip; a lost last packet is noticed only
 * when the sender's ACK timeout expires (faults.retransmit), and so is
 * every later message on the connection. */
#define GM_FAULT_MTU 4096

/* faults.degrade (GM_FAULT_DEGRADE), "NAME=50%,NAME=0.25": each a name and
 * the share kept (a percentage, or a fraction above 0 and at most 1);
 * faults.latency (GM_FAULT_LATENCY), "NAME=5us,...": the latency added (a
 * time, 0 or more, at most a second); faults.loss (GM_FAULT_LOSS),
 * "NAME=1e-6,NAME=0.01%": a packet's loss probability (0 to 50 %);
 * faults.down (GM_FAULT_DOWN), "NAME@TIME,...": when it stops (a time
 * from the run's start, 0 to an hour). *out
 * (g_free) and *n; false with the reason in *why (g_free) on a malformed
 * list. An empty spec is no fault. */
bool gm_fault_parse(const char *spec, gm_fault_kind kind, gm_fault **out, size_t *n, char **why);

/* A link that stops (faults.down, "NAME@TIME"): from TIME on, nothing
 * crosses it; a message whose last byte had not left its bottleneck by
 * then is lost, and so is every later one. A synchronous collective that
 * needs it then never completes: the executor reports the stall. */
/* The time link `l` of net stops (the earliest of the down faults naming
 * it), or INT64_MAX. */
int64_t gm_fault_link_down(const gm_net *net, const gm_fault *f, size_t n, uint32_t l);

/* The probability that a packet crossing link `l` of net is lost, from
 * every loss fault naming it (independent losses). */
double gm_fault_link_loss(const gm_net *net, const gm_fault *f, size_t n, uint32_t l);

/* Scale the bandwidth and add to the latency of every link each fault
 * names; the index of the first fault that names no link, or -1. */
long gm_fault_apply(gm_net *net, const gm_fault *f, size_t n);

#endif
