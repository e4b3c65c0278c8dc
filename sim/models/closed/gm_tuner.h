/* SPDX-License-Identifier: MIT */
/*
 * gm_tuner: NCCL's own cost model, the one its tuner uses to choose an
 * algorithm and a protocol per operation (NVIDIA/nccl src/graph/tuning.cc,
 * ncclTopoTuneModel and ncclTopoGetAlgoTime), as the release the scenario
 * names has it (collective.nccl_version, gm_ncclver: 2.19.1 to 2.30.7).
 *
 * NCCL estimates each (algorithm, protocol) as latency + bytes / bandwidth
 * with constants it fitted to its own measurements, and runs the cheapest.
 * That choice is not always the fastest: where the estimate is wrong, NCCL
 * runs the slower algorithm, and the measured time is that algorithm's.
 * gcsim uses this model only to choose (collective.tuner nccl); the time it
 * reports is still its own simulation of what was chosen.
 *
 * NCCL's model reads figures of its topology search (channels and the
 * bandwidth per channel of its ring and NVLS graphs); gcsim derives them from
 * its topology (gm_tuner_init), as NCCL's search would land near them. The
 * constants themselves are NCCL's, the release's.
 */
#ifndef GM_TUNER_H
#define GM_TUNER_H

#include <stdbool.h>
#include <stdint.h>

#include "../../sched/gs_sched.h"
#include "../../topologies/gt_topo.h"
#include "gm_ncclver.h"
#include "gm_proto.h"

/* One of NCCL's graphs: channels and the bandwidth per channel (GB/s)
 * inside a node and across nodes. */
typedef struct gm_tuner_graph {
	int nch;
	double bw_intra, bw_inter;
} gm_tuner_graph;

typedef struct gm_tuner {
	int nranks, nnodes; /* the communicator */
	int arch;	    /* gt_topo.arch: 1 volta .. 4 blackwell */
	gt_cpu cpu;
	bool nvlink;	     /* GPUs of a node talk over NVLink (else PCIe) */
	bool has_nvls, has_collnet; /* the switch reduces (NVLS); the network does (SHARP) */
	double nvls_eff;     /* NVLink share NVLS traffic gets */
	double lat_inter_us; /* the network plugin's own latency (graph latencyInter) */
	/* GB/s by the nodes spanned (one, two, more): LL's ceiling (one node the
	 * generation's, across nodes the CPU vendor's) and the rates per
	 * channel of the tree (Simple, LL128) and the ring (LL128), the
	 * release's for the generation */
	double ll_max[3], tree_simple[3], ring_ll128[3], tree_ll128[3];
	gm_tuner_graph ring; /* ring, tree, CollNet and PAT (NCCL searches them alike) */
	gm_tuner_graph nvls; /* NVLS and NVLS tree: one head per NIC */
	gm_nccl_model m;     /* the release's constants and rules */
} gm_tuner;

/* The model's inputs for a communicator of nranks GPUs, rpn per node, on t,
 * with nch channels for ring and tree (the communicator's, before NCCL's
 * reduction by size), under release `model`. Returns false, with *why, when
 * t has no GPU generation (NCCL's constants are per generation). */
bool gm_tuner_init(gm_tuner *tu, const gt_topo *t, int nranks, int rpn, int nch,
		   const gm_nccl_model *model, const char **why);

/* NCCL's estimate (us) of collective c with algorithm a and protocol p at
 * `bytes` (nccl-tests' size: the whole buffer); < 0 when NCCL would not run
 * that pair (not one of its algorithms for c, a protocol it disables, an
 * algorithm the topology lacks). */
double gm_tuner_time_us(const gm_tuner *tu, gs_coll c, gs_algo a, gm_proto p, uint64_t bytes);

/* Whether NCCL runs collective c with algorithm a on this topology (with
 * some protocol). */
bool gm_tuner_runs(const gm_tuner *tu, gs_coll c, gs_algo a);

/* Whether NCCL's tuner chooses the algorithm (and protocol) for c
 * (allreduce, allgather, reduce-scatter, broadcast, reduce); send/receive
 * and all-to-all are its grouped point-to-point operations. */
bool gm_tuner_chooses(gs_coll c);

#endif
