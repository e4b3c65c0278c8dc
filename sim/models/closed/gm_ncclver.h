/* SPDX-License-Identifier: MIT */
/*
 * gm_ncclver: NCCL's cost model as each release has it (collective.
 * nccl_version): the constants of src/graph/tuning.cc (baseLat, hwLat,
 * llMaxBws and the per-channel ceilings) and the few rules of its model
 * that changed between releases, from 2.19.1 to 2.30.7 (2.18 computed
 * NVLS's latency and bandwidth otherwise, and is not carried).
 *
 * NCCL chooses an algorithm and a protocol per operation from this model
 * (gm_tuner), and the model changed more than the kernels did: the tree's
 * Simple latency was 28 us a hop from 2.19 to 2.22 and 4 us (NVLink, PCIe)
 * and 14 us (network) before and after; the NVLS tree's network hop is 14
 * us until 2.28.7 and 20.9 from 2.28.9; Blackwell had Hopper's figures
 * until 2.25, twice them until 2.28 and its own after; PAT came in 2.23.
 * So the same cluster makes different choices under different releases,
 * and a measurement taken under one is predicted with that release's
 * model. The simulation's own figures (what a channel moves, a message's
 * latency: gt_topo, gm_proto) describe the kernels and the hardware, and
 * do not follow the version.
 *
 * Not modelled: NVLS's bandwidth estimate before 2.28 (the NVLS graph's
 * own rates, min(intra, inter), inter halved beyond two nodes, 5/6 to the
 * algorithm bandwidth). It reads the NVLS graph that NCCL's search finds,
 * which gcsim approximates (gm_tuner_init) for 2.28's estimate, whose
 * choices it reproduces (NVIDIA/nccl#1752's log); with the older formula
 * those approximations pick the tree where that log, taken in June 2025
 * under a 2.26 or 2.27 release, shows NVLS tree. Every release gets 2.28's
 * NVLS estimate, with 2.28.3's per-channel ceilings before 2.28.
 */
#ifndef GM_NCCLVER_H
#define GM_NCCLVER_H

#include <stdbool.h>

/* The release a scenario gets without collective.nccl_version: the newest
 * whose model gcsim carries. */
#define GM_NCCL_DEFAULT_VERSION "2.30.7"

/* NCCL's algorithms in the rows of its tables, in its order (PAT's latency
 * is a formula of its own, gm_tuner) */
enum { GM_NA_TREE = 0, GM_NA_RING, GM_NA_COLLNET, GM_NA_CHAIN, GM_NA_NVLS, GM_NA_NVLSTREE, GM_NA__N };

typedef struct gm_nccl_model {
	char name[16]; /* the release whose model this is, "2.26.2" */
	int ver;       /* 2.26.2 as 22602 */
	/* us; protocols in NCCL's order LL, LL128, Simple; hardware NVLink,
	 * PCIe, network */
	double base_lat[GM_NA__N][3];
	double hw_lat[3][GM_NA__N][3];
	/* GB/s by generation (volta, ampere, hopper, blackwell) and by the
	 * nodes spanned (one, two, more): llMaxBws, perChMaxRingLL128Bws,
	 * perChMaxTreeLL128Bws, perChMaxTreeBws and perChMaxNVLSTreeBws
	 * (2.28.3's before 2.28) */
	double ll_max[4][3], ring_ll128[4][3], tree_ll128[4][3], tree_simple[4][3], nvls_tree[4][3];
	double pat_factor;   /* PAT's bandwidth factor; 0: no PAT (before 2.23) */
	bool ring_ll_quarter; /* before 2.21: ring LL at 1/4 of the bus (1/3 on one node but
			       * for allreduce and reduce), then 1/2 */
	bool ring_ll128_ppn;  /* before 2.23: ring LL128 at 0.7 with one GPU per node */
} gm_nccl_model;

/* The model of release `version` ("2.M" for the newest 2.M release gcsim
 * carries, or "2.M.P": the newest carried release at or before it, whose
 * model it shares). Returns false with *why (g_free) for text that is not a
 * version, or one outside 2.19.1 .. 2.30.7. */
bool gm_nccl_model_get(const char *version, gm_nccl_model *m, char **why);

/* The releases gcsim carries, "2.19.1, 2.19.3, ..." (static). */
const char *gm_nccl_releases(void);

#endif
