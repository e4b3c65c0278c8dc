/* SPDX-License-Identifier: MIT */
/*
 * gm_tuner: NCCL's cost model (see gm_tuner.h). Constants are those of the
 * release the scenario names (gm_ncclver: src/graph/tuning.cc of each
 * release), in NCCL's order of protocols: LL, LL128, Simple.
 */
#include "gm_tuner.h"

#include <math.h>

enum { T_LL = 0, T_LL128, T_SIMPLE };
/* NCCL's algorithms that gcsim models, in the rows of its tables */
enum { A_TREE = 0, A_RING, A_COLLNET, A_NVLS, A_NVLSTREE, A_PAT, A_CHAIN, A__N };
enum { HW_NVLINK = 0, HW_PCI, HW_NET };

/* NCCL's rows (gm_ncclver) for gcsim's algorithms; PAT's latency is a
 * formula of its own (gm_tuner_time_us) */
static const int nccl_row[A__N] = {GM_NA_TREE, GM_NA_RING, GM_NA_COLLNET, GM_NA_NVLS,
				   GM_NA_NVLSTREE, -1, GM_NA_CHAIN};

static double base_lat(const gm_tuner *tu, int a, int p)
{
	return nccl_row[a] < 0 ? 0 : tu->m.base_lat[nccl_row[a]][p];
}

static double hw_lat(const gm_tuner *tu, int hw, int a, int p)
{
	return nccl_row[a] < 0 ? 0 : tu->m.hw_lat[hw][nccl_row[a]][p];
}

/* "Trees are not perfectly sticking to the model for medium sizes": NCCL's
 * correction of the tree's bandwidth by log2(bytes / 64), 64 B to 256 MiB */
static const double tree_correction[3][23] = {
	{1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0,
	 1.0, 1.0},
	{1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9,
	 1.0, 1.0},
	{.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9,
	 .9}};

static int log2i(uint64_t n)
{
	int l = 0;
	while (n >>= 1)
		l++;
	return l;
}

bool gm_tuner_chooses(gs_coll c)
{
	return c == GS_COLL_ALLREDUCE || c == GS_COLL_ALLGATHER || c == GS_COLL_REDUCESCATTER ||
	       c == GS_COLL_BROADCAST || c == GS_COLL_REDUCE;
}

bool gm_tuner_init(gm_tuner *tu, const gt_topo *t, int nranks, int rpn, int nch,
		    const gm_nccl_model *model, const char **why)
{
	*tu = (gm_tuner){0};
	tu->m = *model;
	if (t->arch < 1) {
		*why = "NCCL's cost model has constants per GPU generation: give topology.gpu_arch";
		return false;
	}
	if (rpn < 1)
		rpn = 1;
	tu->nranks = nranks;
	tu->nnodes = nranks / rpn > 0 ? nranks / rpn : 1;
	tu->arch = t->arch;
	tu->cpu = t->cpu;
	tu->nvlink = t->kind == GT_DGX && t->intra == GT_INTRA_NVSWITCH;
	tu->has_nvls = t->kind == GT_DGX && !t->no_nvls && t->arch >= 3;
	tu->has_collnet = t->kind == GT_DGX && t->sharp;
	tu->nvls_eff = t->nvls_eff > 0 ? t->nvls_eff : 1.0;
	/* LL's ceiling: on one node the generation's, across nodes the row
	 * of the hosts' CPU vendor (NCCL reads its first two rows there) */
	const int gen = t->arch - 1;
	for (int k = 0; k < 3; k++) {
		tu->ll_max[k] = model->ll_max[k == 0 ? gen : t->cpu == GT_CPU_AMD ? 1 : 0][k];
		tu->tree_simple[k] = model->tree_simple[gen][k];
		tu->ring_ll128[k] = model->ring_ll128[gen][k];
		tu->tree_ll128[k] = model->tree_ll128[gen][k];
	}
	/* NCCL's model adds the latency the net plugin declares (latencyInter)
	 * to its own hop: topology.nic.declared_latency (InfiniBand: 0; AWS's
	 * EFA plugin 75 us on p5, which gcsim's network takes as the whole
	 * per-message latency). With none declared, the part of gcsim's
	 * network latency beyond NCCL's 14 us hop stands for it. */
	double net_us = (double)(t->kind == GT_FLAT ? t->link.lat_ps : t->nic.lat_ps) * 1e-6;
	const double ring_net = hw_lat(tu, HW_NET, A_RING, T_SIMPLE);
	tu->lat_inter_us = t->kind != GT_FLAT && t->nic_declared_ps > 0
				   ? (double)t->nic_declared_ps * 1e-6
			   : net_us > ring_net ? net_us - ring_net
					       : 0;
	if (nch < 1)
		nch = 1;
	/* ring: every channel crosses each GPU's NVLink port (on a PCIe node,
	 * the node's narrowest link), and the NICs a node's ranks use once
	 * each way */
	if (t->kind == GT_FLAT) {
		double bw = t->link.bw_Bps * 1e-9 / nch;
		tu->ring = (gm_tuner_graph){nch, bw, bw};
		return true;
	}
	double port = gt_topo_intra_bw(t) * 1e-9, nic = t->nic.bw_Bps * 1e-9;
	double node_nic = gt_topo_comm_nics(t, rpn) * nic; /* a node's NICs in use */
	double intra = port / nch, inter = node_nic / nch;
	double bw = tu->nnodes > 1 && inter < intra ? inter : intra;
	tu->ring = (gm_tuner_graph){nch, bw, bw};
	/* NVLS: NCCL's 16 NVLS channels (its logs show NVLS_TREE on channels
	 * 0..15 of an 8-GPU H200 node); across nodes each crosses a NIC, on one
	 * node there is no network term */
	int nvls_nch = 16;
	tu->nvls = (gm_tuner_graph){nvls_nch, port / nvls_nch,
				    tu->nnodes > 1 ? node_nic / nvls_nch : INFINITY};
	return true;
}

static int algo_row(gs_algo a)
{
	switch (a) {
	case GS_ALGO_TREE: return A_TREE;
	case GS_ALGO_RING: return A_RING;
	case GS_ALGO_COLLNET: return A_COLLNET;
	case GS_ALGO_NVLS: return A_NVLS;
	case GS_ALGO_NVLS_TREE: return A_NVLSTREE;
	case GS_ALGO_PAT: return A_PAT;
	case GS_ALGO_COLLNET_CHAIN: return A_CHAIN;
	default: return -1;
	}
}

static int proto_col(gm_proto p)
{
	return p == GM_PROTO_LL ? T_LL : p == GM_PROTO_LL128 ? T_LL128 : T_SIMPLE;
}

static double min2(double a, double b)
{
	return a < b ? a : b;
}

double gm_tuner_time_us(const gm_tuner *tu, gs_coll c, gs_algo algo, gm_proto proto,
			uint64_t bytes)
{
	int a = algo_row(algo), p = proto_col(proto);
	if (a < 0 || !gm_tuner_chooses(c) || tu->nranks < 2)
		return -1;
	bool ar = c == GS_COLL_ALLREDUCE;
	/* broadcast and reduce: the ring (a chain), n steps */
	bool chain = c == GS_COLL_BROADCAST || c == GS_COLL_REDUCE;
	if (chain && a != A_RING)
		return -1;
	/* allgather and reduce-scatter: ring, PAT and NVLS (and CollNet,
	 * which gcsim runs for allreduce only); the tree reduces; PAT is
	 * never an allreduce */
	if (!ar && a != A_RING && a != A_PAT && (chain || a != A_NVLS))
		return -1;
	if (ar && a == A_PAT)
		return -1;
	/* NVLS allgather and reduce-scatter: at most NCCL_MAX_NVLS_ARITY (32)
	 * GPUs per node; across nodes with the network's switches (CollNet
	 * support, checked below for every NVLS) */
	if (!ar && a == A_NVLS && tu->nranks / tu->nnodes > 32)
		return -1;
	if ((a == A_NVLS || a == A_NVLSTREE || a == A_COLLNET || a == A_CHAIN) && p != T_SIMPLE)
		return -1;
	int nn = tu->nnodes, n = tu->nranks;
	if (a == A_NVLSTREE && (nn == 1 || !tu->has_nvls))
		return -1;
	if (a == A_NVLS && (!tu->has_nvls || (nn > 1 && !tu->has_collnet)))
		return -1;
	if (a == A_COLLNET && (!tu->has_collnet || !tu->nvlink))
		return -1;
	/* CollNet Chain: at most 8 GPUs per node (NCCL_MAX_DIRECT_ARITY + 1) */
	if (a == A_CHAIN && (!tu->has_collnet || n > 8 * nn))
		return -1;
	int gen = tu->arch - 1, band = nn <= 2 ? nn - 1 : 2;
	double ppn = (double)n / nn;
	/* ncclPatEnable: PAT runs Simple, with one GPU per node (2.23 on) */
	if (a == A_PAT && (p != T_SIMPLE || ppn != 1 || tu->m.pat_factor <= 0))
		return -1;
	double llmax = tu->ll_max[band];
	int nsteps = ar ? 2 * (n - 1) : chain ? n : n - 1;

	const gm_tuner_graph *g = a == A_NVLS || a == A_NVLSTREE ? &tu->nvls : &tu->ring;
	double bw = nn <= 2 || a == A_COLLNET || a == A_CHAIN ? g->bw_intra : g->bw_inter;
	if (a == A_NVLS || a == A_NVLSTREE) {
		if (g->nch < 2)
			return -1;
		double intra = g->bw_intra * tu->nvls_eff * (g->nch - 1) / g->nch;
		intra *= ar ? 2.0 : (ppn - 1) / ppn; /* allreduce pipelines two operations */
		double inter = g->bw_inter * (nn <= 2 && a == A_NVLSTREE ? 2 : 1);
		if (!ar && a == A_NVLS) /* allgather, reduce-scatter: 0.9 of the network */
			inter *= 0.9;
		bw = min2(intra, inter);
		if (a == A_NVLSTREE)
			bw = min2(bw, tu->m.nvls_tree[gen][band]);
	}
	double bus = g->nch * bw;
	if (a == A_PAT)
		bus *= tu->m.pat_factor;
	/* before 2.21 ring LL was a quarter of the bus (a third on one node
	 * but for allreduce and reduce), then half */
	if (a == A_RING && p == T_LL)
		bus = min2(llmax, bus * (!tu->m.ring_ll_quarter		       ? .5
					 : nn > 1 || ar || c == GS_COLL_REDUCE ? .25
										: 1.0 / 3.0));
	/* before 2.23 ring LL128 at 0.7 with one GPU per node */
	if (a == A_RING && p == T_LL128)
		bus = min2(bus * (tu->m.ring_ll128_ppn && ppn < 2 ? 0.7 : .92), g->nch * tu->ring_ll128[band]);
	if (a == A_TREE)
		bus = min2(bus * .92, g->nch * tu->tree_simple[band]);
	if (a == A_TREE && p == T_LL)
		bus = min2(bus / 3.8, llmax);
	if (a == A_TREE && p == T_LL128)
		bus = min2(bus * (nn == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
			   g->nch * tu->tree_ll128[band]);
	if (a == A_COLLNET) {
		/* CollNet Direct runs at full speed only with a NIC per GPU */
		double factor = ppn / g->nch;
		factor -= (factor - 1) / 2;
		bus /= factor;
		if (gen >= 2)
			bus *= .85;
	}
	/* bus bandwidth to algorithm bandwidth (NCCL leaves every allgather's
	 * and reduce-scatter's but the ring's as it is: PAT's, NVLS's) */
	if (a != A_PAT && !(a == A_NVLS && !ar))
		bus *= a == A_TREE || a == A_COLLNET || a == A_CHAIN ? .5 : (double)n / nsteps;

	double lat = base_lat(tu, a, p);
	double intra_lat = hw_lat(tu, tu->nvlink ? HW_NVLINK : HW_PCI, a, p);
	/* one GPU per node: the latencies are all the network's, the tree's */
	double inter_lat = hw_lat(tu, HW_NET, ppn == 1 ? A_TREE : a, p);
	inter_lat += tu->lat_inter_us;
	if (p == T_SIMPLE) /* and the flush after a Simple receive */
		inter_lat += tu->lat_inter_us;
	switch (a) {
	case A_RING: {
		if (chain) {
			/* one step's latency when every channel is the same ring
			 * (sameChannels: gcsim's rings on one node), else a
			 * step's latency per rank, Simple's the tree's */
			double step = hw_lat(tu, nn == 1 ? (tu->nvlink ? HW_NVLINK : HW_PCI) : HW_NET,
					     p == T_SIMPLE ? A_TREE : A_RING, p);
			lat += nn == 1 ? hw_lat(tu, tu->nvlink ? HW_NVLINK : HW_PCI, A_RING, p)
				       : nsteps * step;
			break;
		}
		/* an inter-node ring's proxy posts every step to the network */
		double overhead = 0;
		if (nn > 1)
			overhead = (tu->cpu == GT_CPU_AMD ? 2.0 : 1.0) * (p == T_SIMPLE ? 3 : 1);
		if (intra_lat < overhead)
			intra_lat = overhead;
		int inter_steps = nn == 1 ? 0 : ar ? 2 * (nn - 1) : nn - 1;
		lat += (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
		break;
	}
	case A_TREE: lat += 2 * ((ppn - 1) * intra_lat + log2i((uint64_t)nn) * inter_lat); break;
	case A_COLLNET:
		lat += 2 * (min2(1, ppn - 1) * intra_lat + (ppn - 1) * 0.4) + inter_lat;
		break;
	case A_CHAIN: lat += 2 * (ppn - 1) * intra_lat + inter_lat; break;
	case A_NVLS: lat = intra_lat + (nn > 1 ? inter_lat : 0); break;
	case A_NVLSTREE: lat += intra_lat + 2 * log2i((uint64_t)nn) * inter_lat; break;
	/* a base, the trees' depth, and "still a linear part" */
	case A_PAT: lat = 8 + log2i((uint64_t)nn) * (inter_lat / 3.5) + n * 2.8; break;
	default: break;
	}
	if (bus <= 0)
		return -1;
	int logsize = log2i(bytes >> 6);
	if (a == A_TREE && logsize < 23)
		bus *= tree_correction[p][logsize];
	/* "plateau effect of ring" */
	if (a == A_RING && p == T_SIMPLE && nn > 1 && ar &&
	    bytes / ((uint64_t)tu->ring.nch * (uint64_t)n) >= 64)
		lat *= tu->arch < 2 ? 1.9 : 1.4;
	return lat + (double)bytes / (1000.0 * bus);
}

bool gm_tuner_runs(const gm_tuner *tu, gs_coll c, gs_algo a)
{
	for (int q = 0; q < GM_PROTO__COUNT; q++)
		if (gm_tuner_time_us(tu, c, a, (gm_proto)q, 1u << 20) >= 0)
			return true;
	return false;
}
