/* SPDX-License-Identifier: MIT */
/*
 * gm_host: host-native backends (collective.backend gloo | mpi): the
 * collective runs in host processes, one per GPU, on copies of the GPUs'
 * buffers in host memory (inter-node type 1 of the taxonomy: the CPU
 * drives every transfer and the data is staged through host memory).
 *
 * An operation is three parts, one after the other:
 *  1. each process copies its GPU's input to pinned host memory
 *     (cudaMemcpy device-to-host: host.cudamemcpy_call, then the bytes over
 *     the GPU's PCIe link);
 *  2. the processes run the backend's algorithm on the host buffers, a
 *     schedule (sim/sched) timed by the flow executor (gm_coll) on the
 *     host topology (gt_topo.host): each process has its own rate to the
 *     processes of its node (n*.proc*.intra) and to other nodes
 *     (n*.proc*.inter), and the node's NICs carry the rest as for NCCL.
 *     Sends leave the process's thread at once and its connection sends
 *     them in order (gm_coll async_sends: gloo's and MPI's sends are
 *     asynchronous, two segments in flight per connection, the receive
 *     buffer); the CPU sums what it received into host memory before it
 *     forwards it (gm_coll reduce_Bps);
 *  3. each process copies its output back (cudaMemcpy host-to-device).
 *
 * gloo (facebookincubator/gloo, as torch.distributed's ProcessGroupGloo
 * runs it for CUDA tensors: copy to pinned host tensors, gloo::allreduce,
 * copy back): TCP through one interface per process (its tcp::Device),
 * so every process of a node shares the one NIC; each connection is a
 * TCP stream whose single-core throughput and kernel latency bound it,
 * loopback included. Allreduce is gloo/allreduce.cc's ring: the buffer
 * in segments of at most 1 MiB (AllreduceOptionsImpl::kMaxSegmentSize),
 * at least 2 per process, two in flight on each connection, a ring
 * reduce-scatter then a ring allgather.
 *
 * mpi (Open MPI): host-staged by default; mpi.cuda_aware true hands the
 * GPU buffers to MPI, where the reductions (allreduce, reduce-scatter,
 * reduce) are still staged through host memory by its coll/cuda component
 * ("copies the data to staging buffers if GPU buffers, then calls
 * underlying collectives", Open MPI docs/release-notes/mpi-collectives.rst)
 * and the others move GPU to GPU (CUDA IPC over NVLink, GPUDirect RDMA:
 * the GPU topology's links, no copies). Host transfers: shared memory
 * inside a node (one copy at host.memcpy_bw), RDMA from pinned host
 * memory across nodes (the GPU's NIC, at its PCIe rate). Ring algorithms
 * (the segmented ring of Open MPI's tuned component for large messages).
 */
#ifndef GM_HOST_H
#define GM_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/gc_config.h"
#include "../../sched/gs_sched.h"
#include "../../topologies/gt_topo.h"
#include "../exec/gm_coll.h"

typedef enum { GM_BACKEND_NCCL = 0, GM_BACKEND_GLOO, GM_BACKEND_MPI } gm_backend;

typedef struct gm_host {
	gm_backend kind;
	const char *name;     /* "nccl", "gloo", "mpi" */
	gs_algo algo;	      /* the collective's: ring, pairwise, halving-doubling */
	bool staged;	      /* the collective's buffers are staged through host memory */
	bool cuda_aware;      /* mpi.cuda_aware */
	double intra_Bps;     /* a process's rate to the processes of its node */
	int64_t intra_ps;     /* and a message's one-way software latency there */
	double inter_Bps;     /* a process's rate to other nodes */
	int64_t inter_ps;     /* and a message's software latency (the NIC link adds the wire's) */
	double nic_Bps;	      /* a NIC's rate (the topology's unless gloo.nic_bandwidth) */
	int nic_share;	      /* processes per NIC (gloo: the node's; mpi: the topology's) */
	bool nic_from_gloo;   /* gloo.nic_bandwidth gave nic_Bps */
	int64_t nic_lat_ps;   /* the NIC link's latency: topology.nic.latency if given, else its
			       * physical one (2 pcie.latency + wire.latency + switch.latency) */
	bool nic_lat_given;
	double reduce_Bps;    /* the CPU summing into host memory: host.memcpy_bw x 2/3 */
	double pcie_Bps;      /* a GPU's PCIe link (the staging copies) */
	int64_t cudamemcpy_ps;/* host.cudamemcpy_call */
	uint64_t segment;     /* gloo.segment / mpi.segment: the largest message */
} gm_host;

/* Register collective.backend, gloo.* and mpi.* (gm_scenario_config_new). */
void gm_host_register_params(gc_config *cfg);
/* Whether key is one of a host backend's own (gloo.*, mpi.*). */
bool gm_host_key(const char *key);
/* Why a key set in the scenario is not read by backend h (NULL: it is, or
 * it is not h's to judge): the other backend's keys, and NCCL's own
 * (protocol, channels, chunks, transport, tuner) under a host backend.
 * buf holds the message. */
const char *gm_host_key_unused(const gm_host *h, const char *key, char *buf, size_t n);

/* Read collective.backend and its keys for collective p on topology t;
 * kind NCCL leaves the rest zero. A combination the backend cannot run
 * (a MoE layer, an algorithm it has not, a flat topology, a fidelity
 * other than flow, a transport) is GC_ERR_INPUT naming the key. */
gc_status gm_host_from_config(const gc_config *cfg, const gt_topo *t, const gs_params *p,
			      gm_host *h, char **errmsg);

/* The backend's algorithm for collective c: ring, or pairwise for
 * alltoall (sendrecv: its own). */
gs_algo gm_host_algo(gs_coll c);

/* One size: the schedule's parameters (*p from base), the topology it
 * runs on (*t: the host topology when staged, else the GPUs' own) and
 * the executor's options (co: buffer, async sends, reduction; no
 * transport). */
void gm_host_setup(const gm_host *h, const gt_topo *gpu, const gs_params *base, uint64_t bytes,
		   gs_params *p, gt_topo *t, gm_coll_opts *co);

/* The staging copies of one operation of p (0 when not staged): the
 * input to host memory before, the output back after. */
int64_t gm_host_copy_in_ps(const gm_host *h, const gs_params *p);
int64_t gm_host_copy_out_ps(const gm_host *h, const gs_params *p);

/* One line on what the backend does for the report ("gloo: TCP ..."). */
void gm_host_describe(const gm_host *h, const gs_params *p, char *buf, size_t n);

#endif
