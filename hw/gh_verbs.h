/* SPDX-License-Identifier: MIT */
/*
 * gh_verbs: the RDMA (libibverbs) side of the harness. gh_verbs_probe lists
 * the RDMA devices; with none (or a build without GC_HAVE_RDMA) it returns
 * GC_ERR_NODEV and one line saying which, and the caller exits with status 3.
 */
#ifndef GH_VERBS_H
#define GH_VERBS_H

#include "gh_cuda.h"

/* Appends "name (port state, link layer)" lines to out (GString *). */
gc_status gh_verbs_probe(void *gstring_out, int *ndev, char *why);

#endif
