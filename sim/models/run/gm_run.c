/* SPDX-License-Identifier: MIT */
/* gm_run: scenario execution and nccl-tests-style reporting (see gm_run.h). */
#include "gm_run.h"

#include <errno.h>
#include <glib.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gm_keyuse.h"
#include "../closed/gm_proto.h"
#include "gm_scenario.h"
#include "../closed/gm_tuner.h"

static gs_coll coll_of(const char *s)
{
	if (!strcmp(s, "allgather"))
		return GS_COLL_ALLGATHER;
	if (!strcmp(s, "reducescatter"))
		return GS_COLL_REDUCESCATTER;
	if (!strcmp(s, "sendrecv"))
		return GS_COLL_SENDRECV;
	if (!strcmp(s, "alltoall"))
		return GS_COLL_ALLTOALL;
	if (!strcmp(s, "dispatch"))
		return GS_COLL_DISPATCH;
	if (!strcmp(s, "combine"))
		return GS_COLL_COMBINE;
	if (!strcmp(s, "broadcast"))
		return GS_COLL_BROADCAST;
	if (!strcmp(s, "reduce"))
		return GS_COLL_REDUCE;
	return GS_COLL_ALLREDUCE;
}

static gs_algo algo_of(const char *s)
{
	if (!strcmp(s, "tree"))
		return GS_ALGO_TREE;
	if (!strcmp(s, "pairwise"))
		return GS_ALGO_PAIRWISE;
	if (!strcmp(s, "put"))
		return GS_ALGO_PUT;
	if (!strcmp(s, "nvls"))
		return GS_ALGO_NVLS;
	if (!strcmp(s, "nvlstree"))
		return GS_ALGO_NVLS_TREE;
	if (!strcmp(s, "bruck"))
		return GS_ALGO_BRUCK;
	if (!strcmp(s, "collnet"))
		return GS_ALGO_COLLNET;
	if (!strcmp(s, "collnetchain"))
		return GS_ALGO_COLLNET_CHAIN;
	if (!strcmp(s, "forward"))
		return GS_ALGO_FORWARD;
	if (!strcmp(s, "pat"))
		return GS_ALGO_PAT;
	if (!strcmp(s, "pplx"))
		return GS_ALGO_PPLX;
	if (!strcmp(s, "halving-doubling"))
		return GS_ALGO_HD;
	if (!strcmp(s, "garden"))
		return GS_ALGO_GARDEN;
	return GS_ALGO_RING;
}

/* nvls and nvlstree: in-switch reduction, NCCL's Simple protocol only */
static bool is_nvls(gs_algo a)
{
	return a == GS_ALGO_NVLS || a == GS_ALGO_NVLS_TREE;
}

/* CollNet Direct and Chain: the network's switches reduce (SHARP) */
static bool is_collnet(gs_algo a)
{
	return a == GS_ALGO_COLLNET || a == GS_ALGO_COLLNET_CHAIN;
}

/* The switch-reduced allreduces (nvls, nvlstree, collnet, collnetchain):
 * Simple only, with NVLS's step geometry unless the scenario gives one. */
bool gm_run_switch_reduced(gs_algo a)
{
	return is_nvls(a) || is_collnet(a);
}

bool gm_run_nccl_p2p(const gm_run *r)
{
	return r->base.coll == GS_COLL_SENDRECV && r->host.kind == GM_BACKEND_NCCL;
}

/* The algorithms NCCL runs with its Simple protocol only: the
 * switch-reduced ones and PAT. */
static bool simple_only(gs_algo a)
{
	return gm_run_switch_reduced(a) || a == GS_ALGO_PAT;
}

/* Why algorithm a cannot run collective c with any protocol of `protos`
 * (GM_PROTO_BITs: a given protocol's, or all that auto may choose from) on
 * topology t, or NULL if it can. */
static const char *algo_refusal(gs_coll c, gs_algo a, unsigned protos, const gt_topo *t,
				bool node_groups)
{
	const bool no_simple = !(protos & GM_PROTO_BIT(GM_PROTO_SIMPLE));
	bool a2a = c == GS_COLL_ALLTOALL;
	if (gs_coll_is_moe(c) && a != GS_ALGO_PUT && a != GS_ALGO_FORWARD && a != GS_ALGO_PPLX &&
	    a != GS_ALGO_GARDEN)
		return "dispatch and combine run as put (every token-expert message from its GPU: "
		       "DeepEP's low-latency kernels), forward (once per node over the network, on "
		       "over NVLink: DeepEP's normal kernels), pplx (pplx-kernels: a put with its "
		       "own signal per token-expert message, counts and sync flags as signals) or "
		       "garden (pplx-garden: a CPU worker writes each rank's tokens in one range)";
	if (gs_coll_is_moe(c))
		return NULL;
	if (a == GS_ALGO_HD)
		return "halving-doubling is the allreduce of the host backends (collective.backend "
		       "gloo or mpi); NCCL runs ring, tree, nvls, nvlstree, collnet or collnetchain";
	if (a == GS_ALGO_FORWARD || a == GS_ALGO_PPLX || a == GS_ALGO_GARDEN)
		return a == GS_ALGO_FORWARD ? "forward is the dispatch and combine of MoE expert parallelism"
		       : a == GS_ALGO_PPLX  ? "pplx is the dispatch and combine of MoE expert parallelism"
					    : "garden is the dispatch and combine of MoE expert parallelism";
	if ((c == GS_COLL_BROADCAST || c == GS_COLL_REDUCE) && a != GS_ALGO_RING)
		return c == GS_COLL_BROADCAST
			       ? "broadcast runs as NCCL's ring (a chain from the root), not another "
				 "algorithm"
			       : "reduce runs as NCCL's ring (a chain to the root), not another "
				 "algorithm";
	if (a == GS_ALGO_TREE && c != GS_COLL_ALLREDUCE)
		return "tree is implemented for allreduce only";
	if (a == GS_ALGO_BRUCK && c != GS_COLL_ALLGATHER && c != GS_COLL_REDUCESCATTER)
		return "bruck is implemented for allgather and reducescatter only";
	if (a == GS_ALGO_PAT && c != GS_COLL_ALLGATHER && c != GS_COLL_REDUCESCATTER)
		return "pat is NCCL's algorithm for allgather and reducescatter only";
	if (a == GS_ALGO_PAT && no_simple)
		return "pat runs NCCL's Simple protocol only";
	bool agrs = c == GS_COLL_ALLGATHER || c == GS_COLL_REDUCESCATTER;
	if (gm_run_switch_reduced(a) && c != GS_COLL_ALLREDUCE && !(a == GS_ALGO_NVLS && agrs))
		return a == GS_ALGO_NVLS	? "nvls is implemented for allreduce, allgather and "
						  "reducescatter only"
		       : a == GS_ALGO_COLLNET ? "collnet is implemented for allreduce only"
		       : a == GS_ALGO_COLLNET_CHAIN ? "collnetchain is implemented for allreduce only"
					      : "nvlstree is implemented for allreduce only";
	if (a == GS_ALGO_NVLS && agrs && !t->no_nvls) {
		/* NCCL's NVLS allgather and reduce-scatter: one node's switch,
		 * at most NCCL_MAX_NVLS_ARITY (32) GPUs behind it */
		int behind = t->kind == GT_DGX && t->nodes > 1 ? t->gpus_per_node : t->ngpus;
		if (t->kind == GT_DGX && t->nodes > 1 && !node_groups && !t->sharp)
			return "nvls allgather and reducescatter across nodes need the network's "
			       "switches (SHARP: topology.fabric.sharp: true); without them use ring or "
			       "pat, or groups of one whole node each";
		if (behind > 32)
			return "nvls allgather and reducescatter take at most 32 GPUs behind the "
			       "switch (NCCL_MAX_NVLS_ARITY); use ring";
	}
	const bool direct = a == GS_ALGO_COLLNET;
	if (is_collnet(a) && (t->kind != GT_DGX || t->nodes < 2))
		return direct ? "collnet joins nodes through the network's switches: it needs a dgx "
				"topology of at least 2 nodes"
			      : "collnetchain joins nodes through the network's switches: it needs a "
				"dgx topology of at least 2 nodes";
	if (is_collnet(a) && !t->sharp)
		return direct ? "collnet needs the network's switches to reduce (SHARP: "
				"topology.fabric.sharp: true); without it use ring or tree"
			      : "collnetchain needs the network's switches to reduce (SHARP: "
				"topology.fabric.sharp: true); without it use ring or tree";
	if (is_collnet(a) && no_simple)
		return direct ? "collnet runs NCCL's Simple protocol only"
			      : "collnetchain runs NCCL's Simple protocol only";
	if (is_nvls(a) && t->kind == GT_DGX && t->intra == GT_INTRA_PCIE)
		return "a node with topology.intra pcie has no NVSwitch, so no in-switch reduction "
		       "(NVLink SHARP); use ring or tree";
	if (is_nvls(a) && t->no_nvls)
		return "this preset's NVSwitch (second generation, A100) has no NVLink SHARP: no "
		       "in-switch reduction; use ring or tree";
	if (a == GS_ALGO_NVLS && node_groups) /* each group on its own node's switch */
		return no_simple ? "nvls runs NCCL's Simple protocol only" : NULL;
	if (a == GS_ALGO_NVLS && t->kind == GT_DGX && t->nodes > 1 && !t->sharp)
		return "nvls across nodes needs the network's switches to reduce (SHARP: "
		       "topology.fabric.sharp: true); without it use nvlstree (NVLS in each node, a "
		       "tree between them)";
	if (a == GS_ALGO_NVLS && t->kind == GT_DGX && t->nodes > 1 && t->gpus_per_node < 2)
		return "nvls across nodes reduces in each node's NVSwitch first: it needs at least 2 "
		       "GPUs per node";
	if (a == GS_ALGO_NVLS && t->ngpus < 2)
		return "nvls needs at least 2 GPUs";
	if (a == GS_ALGO_NVLS_TREE && (t->kind != GT_DGX || t->nodes < 2))
		return "nvlstree joins NVSwitch nodes by a tree: it needs a dgx topology of at least "
		       "2 nodes (one node: nvls)";
	if (a == GS_ALGO_NVLS_TREE && t->gpus_per_node < 2)
		return "nvlstree reduces in each node's NVSwitch: it needs at least 2 GPUs per node";
	if (is_nvls(a) && no_simple)
		return a == GS_ALGO_NVLS ? "nvls runs NCCL's Simple protocol only"
					 : "nvlstree runs NCCL's Simple protocol only";
	if ((a == GS_ALGO_PAIRWISE || a == GS_ALGO_PUT) && !a2a)
		return "pairwise and put are alltoall algorithms";
	if (a2a && a != GS_ALGO_PAIRWISE && a != GS_ALGO_PUT)
		return "alltoall runs as pairwise (two-sided) or put (one-sided)";
	return NULL;
}

/* NVLS's own step geometry unless the scenario gives one: NCCL moves it in
 * 128 KiB chunks over 16 channels (src/transport/nvls.cc: NVLS_CHUNKSIZE
 * 128 KiB, NVLS_NCHANNELS 16); NVLS_TREE uses the same channels and
 * (by default) chunk. */
#define NVLS_CHUNK (128u * 1024u)
#define MOE_CHANNELS 32
/* DeepEP's normal kernels: a channel is two SMs, and its tests run 24 */
#define MOE_FWD_CHANNELS 12
/* pplx-kernels launches at most one block per SM (numSMs): an H100 SXM's
 * 132 */
#define PPLX_BLOCKS 132
#define NVLS_CHANNELS 16

/* dispatch/combine: the nodes an expert-parallel group spans and its
 * members per node, as the generator counts them (gs_group_rpn). */
void gm_run_moe_nodes(const gs_params *p, const gt_topo *t, int *nodes, int *per)
{
	gs_params q = *p;
	q.ranks_per_node = t->gpus_per_node > 0 ? t->gpus_per_node : p->nranks;
	*per = gs_group_rpn(&q);
	*nodes = gs_group_n(p) / *per;
}

/* Broadcast and reduce: a chain from or to the root, one NCCL step per
 * message (BROADCAST_SLICESTEPS = REDUCE_SLICESTEPS = 1). */
static bool chain_coll(gs_coll c)
{
	return c == GS_COLL_BROADCAST || c == GS_COLL_REDUCE;
}

/* Their slice: at most one of the buffer's 8 steps (NCCL_STEPS); Simple's
 * 1 MiB slice becomes 512 KiB, LL's and LL128's are one step already. */
static uint64_t chain_slice(uint64_t slice, uint64_t buffer)
{
	return buffer / 8 > 0 && buffer / 8 < slice ? buffer / 8 : slice;
}

/* The channels p's communicators get on t unless the scenario gives them:
 * NCCL's for one node (its NVLink search, gt_topo node_channels) when every
 * member of each lies on one NVSwitch node, else the topology's (two per
 * GPU). */
static int comm_default_channels(const gt_topo *t, const gs_params *p)
{
	if (t->kind == GT_DGX && t->node_channels > 0) {
		const int g = gs_group_n(p);
		if (g > 1 && g <= t->gpus_per_node && gs_group_rpn(p) == g)
			return t->node_channels;
	}
	return t->default_channels;
}

/* Channels, chunk, slice and ranks per node of p->algo on t: the
 * scenario's (or the protocol's, set as defaults before), NVLS's own
 * unless given, and for nvls every GPU behind the one switch (a flat
 * topology counts each GPU a node). */
static void algo_layout(const gc_config *cfg, const gt_topo *t, gs_params *p)
{
	int64_t ch = gc_config_int(cfg, "collective.channels");
	p->ranks_per_node = t->gpus_per_node;
	p->nchannels = ch > 0 ? (int)ch : comm_default_channels(t, p);
	p->chunk_bytes = gc_config_bytes(cfg, "collective.chunk");
	p->slice_bytes = gc_config_bytes(cfg, "collective.slice");
	p->ring_pairs = t->pcie_pairs;
	/* dispatch/combine: concurrent senders per GPU (DeepEP issues every
	 * token-expert message from its own warp; docs/MODELS.md gives the
	 * sensitivity); pplx: its grid's blocks, each with its own warps */
	if (gs_coll_is_moe(p->coll) && ch == 0)
		p->nchannels = p->algo == GS_ALGO_FORWARD ? MOE_FWD_CHANNELS
			       : p->algo == GS_ALGO_PPLX  ? PPLX_BLOCKS
							  : MOE_CHANNELS;
	if (chain_coll(p->coll) && !gc_config_is_set(cfg, "collective.slice"))
		p->slice_bytes = chain_slice(p->slice_bytes, gc_config_bytes(cfg, "collective.buffer"));
	if (!gm_run_switch_reduced(p->algo))
		return;
	if (p->algo == GS_ALGO_NVLS)
		p->ranks_per_node = t->kind == GT_DGX && t->nodes > 1 ? t->gpus_per_node : t->ngpus;
	if (!gc_config_is_set(cfg, "collective.chunk"))
		p->chunk_bytes = NVLS_CHUNK;
	if (!gc_config_is_set(cfg, "collective.slice"))
		p->slice_bytes = p->chunk_bytes < NVLS_CHUNK ? p->chunk_bytes : NVLS_CHUNK;
	if (ch == 0)
		p->nchannels = NVLS_CHANNELS;
}

/* The groups of p are each one whole node of t (consecutive GPUs), where
 * nvls runs on every node's own switch. */
static bool node_groups(const gs_params *p, const gt_topo *t)
{
	return t->kind == GT_DGX && t->nodes > 1 && gs_group_n(p) < p->nranks &&
	       gs_group_n(p) == t->gpus_per_node && gs_group_stride(p) == 1 && gs_group_is_flat(p);
}

/* Why p's algorithm cannot run in p's communicators (smaller than the
 * topology) on t, or NULL. */
static const char *group_refusal(const gs_params *p, const gt_topo *t)
{
	if (p->algo == GS_ALGO_NVLS_TREE)
		return "nvlstree reduces in the switch over every GPU behind it, not in groups";
	if (is_collnet(p->algo))
		return p->algo == GS_ALGO_COLLNET
			       ? "collnet reduces in the network's switch over every node, not in groups"
			       : "collnetchain reduces in the network's switch over every node, not in "
				 "groups";
	if (p->algo == GS_ALGO_NVLS && !node_groups(p, t))
		return "nvls reduces in the switch over every GPU behind it: in groups only when "
		       "each group is one whole node (group.size = the GPUs per node, stride 1)";
	return NULL;
}

/* collective.group: communicators of group.size ranks, member j of a group
 * group.stride ranks after member j - 1, or in blocks of group.block
 * group.block_stride apart (gs_params), all running at once. */
static gc_status groups_from_config(const gc_config *cfg, const gt_topo *t, gs_params *p,
				    char **errmsg)
{
	int64_t G = gc_config_int(cfg, "collective.group.size");
	int64_t S = gc_config_int(cfg, "collective.group.stride");
	int64_t B = gc_config_int(cfg, "collective.group.block");
	int64_t T = gc_config_int(cfg, "collective.group.block_stride");
	if ((B > 0) != (T > 0))
		return gc_config_error(cfg, B > 0 ? "collective.group.block" : "collective.group.block_stride",
				       errmsg, "two-level groups need both collective.group.block and "
				       "collective.group.block_stride");
	if (B > 0 && T % (B * S) != 0)
		return gc_config_error(cfg, "collective.group.block_stride", errmsg,
				       "%lld is not a multiple of the block's span, block %lld x stride "
				       "%lld",
				       (long long)T, (long long)B, (long long)S);
	if (G == 0 && B > 0) /* every GPU: the blocks span them all */
		G = p->nranks % T == 0 ? p->nranks / T * B : p->nranks;
	else if (G == 0) /* every GPU, in groups of stride S: N / S ranks each */
		G = p->nranks % S == 0 ? p->nranks / S : p->nranks;
	if (B > 0 && G % B != 0)
		return gc_config_error(cfg, "collective.group.block", errmsg,
				       "blocks of %lld ranks do not divide groups of %lld", (long long)B,
				       (long long)G);
	/* the ranks one group spans */
	int64_t span = B > 0 ? T * (G / B) : G * S;
	/* blame the stride when the size alone would tile the GPUs */
	bool size_ok = G <= p->nranks && p->nranks % G == 0;
	const char *key = B > 0 && size_ok ? "collective.group.block_stride"
			  : (size_ok && gc_config_is_set(cfg, "collective.group.stride")) ||
					  !gc_config_is_set(cfg, "collective.group.size")
				  ? "collective.group.stride"
				  : "collective.group.size";
	if (G > p->nranks || span > p->nranks || p->nranks % span != 0) {
		if (B > 0)
			return gc_config_error(cfg, key, errmsg,
					       "groups of %lld ranks in blocks of %lld at stride %lld, "
					       "%lld apart, do not tile the %d GPUs: size / block x "
					       "block_stride must divide %d",
					       (long long)G, (long long)B, (long long)S, (long long)T,
					       p->nranks, p->nranks);
		return gc_config_error(cfg, key, errmsg,
				       "groups of %lld ranks at stride %lld do not tile the %d GPUs: "
				       "size x stride must divide %d",
				       (long long)G, (long long)S, p->nranks, p->nranks);
	}
	p->group_size = (int)G;
	p->group_stride = (int)S;
	p->group_block = (int)B;
	p->group_block_stride = (int)T;
	const char *why = G < p->nranks ? group_refusal(p, t) : NULL;
	if (why)
		return gc_config_error(cfg, "collective.group.size", errmsg, "%s (algo %s, op %s)",
				       why, gs_algo_name(p->algo), gs_coll_name(p->coll));
	return GC_OK;
}

static gs_dtype dtype_of(const char *s)
{
	if (!strcmp(s, "int32"))
		return GS_DT_I32;
	if (!strcmp(s, "double"))
		return GS_DT_F64;
	if (!strcmp(s, "uint8"))
		return GS_DT_U8;
	return GS_DT_F32;
}

static gc_status collective_from_config(gc_config *cfg, const gt_topo *t, gs_params *p,
					char **errmsg)
{
	memset(p, 0, sizeof(*p));
	p->coll = coll_of(gc_config_str(cfg, "collective.op"));
	p->algo = algo_of(gc_config_str(cfg, "collective.algo"));
	/* auto starts from the collective's default and picks per size */
	bool dflt = !gc_config_is_set(cfg, "collective.algo") ||
		    !strcmp(gc_config_str(cfg, "collective.algo"), "auto");
	if (p->coll == GS_COLL_ALLTOALL && dflt)
		p->algo = GS_ALGO_PAIRWISE;
	if (gs_coll_is_moe(p->coll) && dflt)
		p->algo = GS_ALGO_PUT;
	p->moe_tokens = (uint32_t)gc_config_int(cfg, "moe.tokens");
	p->moe_topk = (uint32_t)gc_config_int(cfg, "moe.topk");
	p->moe_experts = (uint32_t)gc_config_int(cfg, "moe.experts");
	p->moe_seed = (uint64_t)gc_config_int(cfg, "seed");
	p->moe_max_nodes = (uint32_t)gc_config_int(cfg, "moe.max_nodes");
	p->moe_chunk = (uint32_t)gc_config_int(cfg, "moe.chunk");
	p->dtype = dtype_of(gc_config_str(cfg, "collective.dtype"));
	p->nranks = t->ngpus;
	/* a fixed protocol brings its own step geometry unless the scenario
	 * gives one (auto resolves it per size, see proto_setup) */
	int proto = gm_proto_from_name(gc_config_str(cfg, "collective.protocol"));
	if (proto > GM_PROTO_SIMPLE) {
		const gm_proto_info *q = gm_proto_get((gm_proto)proto);
		char v[32], origin[32];
		snprintf(origin, sizeof(origin), "protocol %s", q->name);
		snprintf(v, sizeof(v), "%lluB", (unsigned long long)q->chunk);
		gc_config_set_default(cfg, "collective.chunk", v, origin);
		snprintf(v, sizeof(v), "%lluB", (unsigned long long)q->slice);
		gc_config_set_default(cfg, "collective.slice", v, origin);
		snprintf(v, sizeof(v), "%lluB", (unsigned long long)q->buffer);
		gc_config_set_default(cfg, "collective.buffer", v, origin);
	}
	static const char *const moe_keys[] = {"moe.tokens", "moe.topk", "moe.experts",
					       "moe.max_nodes", "moe.chunk"};
	for (size_t i = 0; i < G_N_ELEMENTS(moe_keys); i++)
		if (p->coll != GS_COLL_DISPATCH && p->coll != GS_COLL_COMBINE &&
		    gc_config_is_set(cfg, moe_keys[i]))
			return gc_config_error(cfg, moe_keys[i], errmsg,
					       "applies to collective.op dispatch or combine, not %s",
					       gs_coll_name(p->coll));
	/* a host thread drives GPUs of one node (one process): whole threads */
	int64_t gpt = gc_config_int(cfg, "collective.gpus_per_thread");
	int host_gpus = t->kind == GT_FLAT ? t->ngpus : t->gpus_per_node;
	if (host_gpus % gpt != 0)
		return gc_config_error(cfg, "collective.gpus_per_thread", errmsg,
				       "%lld GPUs per thread do not divide the %d GPUs of %s; give a "
				       "divisor of %d (1: one process per GPU)",
				       (long long)gpt, host_gpus,
				       t->kind == GT_FLAT ? "the flat topology" : "a node", host_gpus);
	gc_status gst = groups_from_config(cfg, t, p, errmsg);
	if (gst != GC_OK)
		return gst;
	/* channels, chunk, slice: the communicators decide the channels */
	algo_layout(cfg, t, p);
	if (gs_coll_is_moe(p->coll)) {
		/* the experts spread over each expert-parallel group */
		int ep = gs_group_n(p);
		if (p->moe_experts % (uint32_t)ep != 0)
			return gc_config_error(cfg, "moe.experts", errmsg,
					       "%u experts do not spread evenly over %d GPUs; give a "
					       "multiple of %d",
					       p->moe_experts, ep, ep);
		if (p->moe_topk > p->moe_experts)
			return gc_config_error(cfg, "moe.topk", errmsg,
					       "a token cannot go to %u of %u experts", p->moe_topk,
					       p->moe_experts);
		uint64_t msgs = (uint64_t)ep * p->moe_tokens * p->moe_topk;
		if (msgs > GS_MOE_MAX_MESSAGES)
			return gc_config_error(cfg, "moe.tokens", errmsg,
					       "%d GPUs x %u tokens x top-%u = %llu messages, above the "
					       "limit of %llu",
					       ep, p->moe_tokens, p->moe_topk,
					       (unsigned long long)msgs,
					       (unsigned long long)GS_MOE_MAX_MESSAGES);
	}
	if (gs_coll_is_moe(p->coll) && p->moe_max_nodes > 0) {
		int N, per;
		gm_run_moe_nodes(p, t, &N, &per);
		uint32_t M = MIN(p->moe_max_nodes, (uint32_t)N);
		if (M < (uint32_t)N && p->moe_topk > M * (p->moe_experts / (uint32_t)N))
			return gc_config_error(cfg, "moe.max_nodes", errmsg,
					       "%u of the %d nodes hold %u experts, fewer than the "
					       "top-%u a token goes to",
					       M, N, M * (p->moe_experts / (uint32_t)N), p->moe_topk);
	}
	/* collective.nccl_proto narrows auto's set further (proto_set_setup) */
	/* a host backend checks its own algorithms (gm_host_from_config) */
	const char *why = strcmp(gc_config_str(cfg, "collective.backend"), "nccl") != 0
				  ? NULL
				  : algo_refusal(p->coll, p->algo,
						 proto >= 0 ? GM_PROTO_BIT(proto) : GM_PROTO_ALL, t,
						 node_groups(p, t));
	if (why)
		return gc_config_error(cfg, "collective.algo", errmsg, "%s (algo %s, op %s)", why,
				       gs_algo_name(p->algo), gs_coll_name(p->coll));

	if (p->slice_bytes > p->chunk_bytes)
		return gc_config_error(cfg, "collective.slice", errmsg,
				       "slice (%llu B) must not exceed collective.chunk (%llu B)",
				       (unsigned long long)p->slice_bytes,
				       (unsigned long long)p->chunk_bytes);
	uint64_t buffer = gc_config_bytes(cfg, "collective.buffer");
	/* sendrecv through NCCL takes its step from the buffer (p2p_geometry)
	 * unless the scenario gives a chunk */
	const bool p2p_step = p->coll == GS_COLL_SENDRECV &&
			      !strcmp(gc_config_str(cfg, "collective.backend"), "nccl") &&
			      !gc_config_is_set(cfg, "collective.chunk");
	if (buffer < p->chunk_bytes && !p2p_step)
		return gc_config_error(cfg, "collective.buffer", errmsg,
				       "%llu B cannot hold one chunk (collective.chunk = %llu B): a ring "
				       "step sends a whole chunk before it receives, so every rank would "
				       "wait for buffer space forever",
				       (unsigned long long)buffer, (unsigned long long)p->chunk_bytes);
	size_t n;
	const uint64_t *sizes = gc_config_bytes_list(cfg, "collective.sizes", &n);
	for (size_t i = 0; i < n; i++)
		if (sizes[i] < gs_dtype_size(p->dtype))
			return gc_config_error(cfg, "collective.sizes", errmsg,
					       "size %llu B is smaller than one %s element",
					       (unsigned long long)sizes[i], gs_dtype_name(p->dtype));
	/* forward's combine: a forwarder sends a node's sum home up to
	 * moe.chunk tokens before home takes it (gs_moefwd.c) */
	for (size_t i = 0; i < n; i++) {
		gs_params q = *p;
		uint64_t need;
		q.bytes = sizes[i];
		if (!gs_moefwd_buffer_ok(&q, buffer, &need))
			return gc_config_error(cfg, "collective.buffer", errmsg,
					       "%llu B cannot hold %llu B, moe.chunk tokens of %llu B (at "
					       "most a channel's) and one more: forward's combine sends a "
					       "node's sums that far ahead of their home",
					       (unsigned long long)buffer, (unsigned long long)need,
					       (unsigned long long)sizes[i]);
	}
	return GC_OK;
}

static uint64_t count_of(const gs_params *p)
{
	uint64_t c = p->bytes / gs_dtype_size(p->dtype);
	if (p->coll == GS_COLL_ALLGATHER || p->coll == GS_COLL_REDUCESCATTER)
		c /= (uint64_t)gs_group_n(p);
	return c; /* alltoall: nccl-tests prints the whole buffer's count */
}

void gm_run_free(gm_run *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->npts; i++) {
		g_free(r->pts[i].r.links);
		if (r->cmp)
			g_free(r->cmp[i].r.links);
	}
	g_free(r->pts);
	g_free(r->cmp);
	g_strfreev(r->unused);
	g_free(r->faults);
	g_free(r->path);
	if (r->cfg)
		gc_config_free(r->cfg);
	g_free(r);
}

/* NCCL shrinks NVLS chunks for smaller buffers, so that each (channel,
 * NVLS head) pair still gets several chunks to pipeline (src/enqueue.cc,
 * computeColl): from 128 KiB to 64, 32 and 16 KiB below 64, 8 and 2
 * chunks per pair. The heads are the GPUs behind the switch. Applied to
 * nvls inside NVLink domains; across nodes (SHARP) NCCL also caps the
 * chunk by its own bandwidth estimate, which is not modelled, and
 * nvlstree keeps NVLS_CHUNK (its rule differs between NCCL versions). */
static uint64_t nvls_chunk(uint64_t bytes, int nchannels, int heads)
{
	uint64_t chunk = NVLS_CHUNK, ops = (uint64_t)nchannels * (uint64_t)heads;
	if (bytes < 64 * ops * chunk && chunk > 65536)
		chunk = 65536;
	if (bytes < 8 * ops * chunk && chunk > 32768)
		chunk = 32768;
	if (bytes < 2 * ops * chunk && chunk > 16384)
		chunk = 16384;
	return chunk;
}

/* NCCL's channel tuning for a ring, a tree or PAT (enqueue.cc, topoGetAlgoInfo):
 * from the communicator's channels it drops one at a time while the size
 * is below channels x threads per CTA x the protocol's bytes per thread
 * (NCCL_{SIMPLE,LL,LL128}_THREAD_THRESHOLD 64, 8, 8 in comm.h; the ring's LL
 * threshold times the ranks, tuning.cc), keeping at least one, so that a
 * small operation's CTAs each have work. Threads per CTA: 512 for Simple
 * and LL, 640 for LL128 (NCCL_*_MAX_NTHREADS, device.h). */
static int nccl_channels(gm_proto q, gs_algo algo, int nranks, uint64_t bytes, int nc)
{
	double nt = q == GM_PROTO_LL128 ? 640 : 512;
	double thr = q == GM_PROTO_SIMPLE ? 64 : 8;
	if (q == GM_PROTO_LL && algo == GS_ALGO_RING)
		thr *= nranks;
	while (nc >= 2 && (double)bytes < nc * nt * thr)
		nc--;
	return nc;
}

static int comm_rpn(const gs_params *p);

/* NCCL's point-to-point figures (p2p_geometry) */
enum {
	P2P_NET_CHUNK = 131072, /* src/init.cc P2P_NET_CHUNKSIZE */
	P2P_NET_PEER = 2,	/* 2.19-2.28: channels a network peer starts from */
	P2P_SCALE_RULE = 22000, /* the release that halves them as the ranks grow */
	P2P_BW_RULE = 22900,	/* the release that counts them by bandwidth */
	P2P_NVL_CHUNK = 524288, /* P2P_NVL_CHUNKSIZE */
	P2P_PCI_CHUNK = 131072, /* P2P_PCI_CHUNKSIZE */
	P2P_CHANNEL_NET_GBS = 14, /* src/graph/paths.cc P2P_PER_CHANNEL_NET_BW */
	P2P_PER_BATCH = 8,	  /* src/include/device.h NCCL_MAX_DEV_WORK_P2P_PER_BATCH */
	P2P_STEPS = 8,		  /* NCCL_STEPS: a connection's buffer in steps */
};

static int pow2_up(int x)
{
	int y = 1;
	while (y < x)
		y *= 2;
	return y;
}

/* NCCL's point-to-point geometry for sendrecv, as the release
 * collective.nccl_version names runs it (r->nccl_ver): the step
 * (src/init.cc computeBuffSizes: P2P_NET_CHUNKSIZE 128 KiB across nodes,
 * from 2.29 twice that on Arm hosts with Blackwell; P2P_NVL_CHUNKSIZE 512
 * KiB on one node of NVLink; P2P_PCI_CHUNKSIZE 128 KiB otherwise; at most
 * an 8th of the buffer), NCCL_STEPS = 8 of them a connection's buffer, and
 * the channels an operation is split over:
 *  - per peer (src/graph/paths.cc ncclTopoGetNchannels), across the
 *    network: 2.19, NCCL_NCHANNELS_PER_NET_PEER's 2; 2.20-2.28, 2 halved
 *    while it times the ranks exceeds 4 times the p2p channels, at least
 *    the NICs the GPU needs (one); from 2.29, max(NICs, ceil(NIC GB/s /
 *    P2P_PER_CHANNEL_NET_BW 14)). A PCIe peer 2, an NVLink peer twice its
 *    links (never the least on an NVSwitch node); the least over the
 *    peers, rounded up to a power of 2;
 *  - ncclTopoComputeP2pChannels: from 2.29, across nodes halved while it
 *    times ceil(ranks / 8) (NCCL_MAX_DEV_WORK_P2P_PER_BATCH) exceeds the
 *    p2p channels (the communicator's, rounded up to a power of 2); at
 *    most those otherwise;
 *  - src/enqueue.cc: an operation starts on nmin (that count, halved while
 *    it times the ranks exceeds the p2p channels), at most one per half
 *    step of its bytes across nodes (an 8th on one), and doubles while a
 *    channel's part exceeds a step (32 steps on one node) and the count
 *    stays within the per-peer one.
 * A scenario's collective.channels, chunk, slice and buffer are kept. */
static void p2p_geometry(const gm_run *r, gm_proto q, const gs_params *base, gt_topo *t,
			 gs_params *p, gm_coll_opts *co)
{
	const int n = gs_group_n(base);
	const int rpn = t->kind == GT_FLAT ? 1 : comm_rpn(base);
	const bool across = n / rpn > 1;
	const bool pcie = t->kind == GT_DGX && t->intra == GT_INTRA_PCIE;
	/* the release (tuner_setup reads it for every NCCL run; the newest
	 * if none was read) */
	const int ver = r->nccl_ver > 0 ? r->nccl_ver : INT_MAX;
	const bool bw_rule = ver >= P2P_BW_RULE;
	uint64_t step = across ? P2P_NET_CHUNK * (bw_rule && t->cpu == GT_CPU_ARM && t->arch >= 4 ? 2u : 1u)
			: t->kind == GT_DGX && !pcie ? P2P_NVL_CHUNK
						     : P2P_PCI_CHUNK;
	const uint64_t buffer = gc_config_is_set(r->cfg, "collective.buffer") ? co->buffer_bytes
									       : gm_proto_get(GM_PROTO_SIMPLE)->buffer;
	if (step * P2P_STEPS > buffer)
		step = buffer / P2P_STEPS > 0 ? buffer / P2P_STEPS : 1;
	const int p2pn = pow2_up(p->nchannels > 0 ? p->nchannels : 1);
	/* the least over the peers: NVLink peers never are on an NVSwitch
	 * node, so start from the p2p channels */
	int per = p2pn;
	if (across && bw_rule) {
		const int gbs = (int)((t->kind == GT_FLAT ? t->link.bw_Bps : t->nic.bw_Bps) * 1e-9);
		const int net = (gbs + P2P_CHANNEL_NET_GBS - 1) / P2P_CHANNEL_NET_GBS;
		per = net > 1 ? net : 1;
	} else if (across) {
		per = P2P_NET_PEER;
		if (ver >= P2P_SCALE_RULE)
			while ((int64_t)per * n > 4 * (int64_t)p2pn && per > 1)
				per /= 2;
	}
	if (rpn > 1 && pcie && per > 2)
		per = 2;
	per = pow2_up(per);
	if (across && bw_rule)
		while ((int64_t)per * ((n + P2P_PER_BATCH - 1) / P2P_PER_BATCH) > p2pn && per > 1)
			per /= 2;
	else if (per > p2pn)
		per = p2pn;
	int nmin = per;
	while ((int64_t)nmin * n > p2pn && nmin > 1)
		nmin /= 2;
	const uint64_t min_part = across ? (step + 1) / 2 : (step + 7) / 8;
	const uint64_t max_part = across ? step : step * 32;
	uint64_t nch = (p->bytes + min_part - 1) / min_part;
	nch = nch < (uint64_t)nmin ? nch : (uint64_t)nmin;
	if (nch == 0)
		nch = 1;
	uint64_t part = (p->bytes + nch - 1) / nch;
	part = part > min_part ? part : min_part;
	while (part > max_part && nch <= (uint64_t)per / 2) {
		nch *= 2;
		part = (p->bytes + nch - 1) / nch;
	}
	if (gc_config_int(r->cfg, "collective.channels") == 0)
		p->nchannels = (int)nch;
	/* NCCL counts on P2P_PER_CHANNEL_NET_BW (14 GB/s) from a channel
	 * across the network, so that is a channel's rate there, where the
	 * topology rates channels at all (a GPU generation's, Simple; a
	 * scenario's topology.channel_bandwidth is kept) */
	if (across && q == GM_PROTO_SIMPLE && t->chan_bw_Bps <= 0 && t->chan_cap_Bps > 0)
		t->chan_cap_Bps = P2P_CHANNEL_NET_GBS * 1e9;
	if (t->chan_cap_Bps > 0)
		t->chan_links = p->nchannels;
	if (!gc_config_is_set(r->cfg, "collective.chunk"))
		p->chunk_bytes = step;
	if (!gc_config_is_set(r->cfg, "collective.slice"))
		p->slice_bytes = p->chunk_bytes < step ? p->chunk_bytes : step;
	if (!gc_config_is_set(r->cfg, "collective.buffer"))
		co->buffer_bytes = P2P_STEPS * step;
}

/* NCCL's tree step geometry (enqueue.cc, its chunk size by algorithm,
 * NCCL 2.19 on): the tree moves one step per message (chunkSteps =
 * sliceSteps = 1), so Simple's message is the buffer's 8th (NCCL_STEPS:
 * 512 KiB of 4 MiB). LL128 halves its 576,000 B step while fewer than
 * nsteps x 64 / ppn of them fall on each channel (down to 131,072 B or
 * below), then while fewer than nsteps x 16 / ppn (down to 32,768 B or
 * below), nsteps = 1 + log2(nodes) + 0.1 ppn, ppn the ranks per node;
 * each smaller message still takes one of the 8 steps, so the buffer
 * holds 8 of them. LL keeps its geometry. A scenario's collective.chunk
 * or collective.slice is kept as given. */
static void tree_geometry(const gm_run *r, gm_proto q, int nodes, int ppn, gs_params *p,
			  gm_coll_opts *co)
{
	if (q == GM_PROTO_LL || gc_config_is_set(r->cfg, "collective.chunk") ||
	    gc_config_is_set(r->cfg, "collective.slice"))
		return;
	uint64_t el = gs_dtype_size(p->dtype), step;
	if (q == GM_PROTO_SIMPLE) {
		step = co->buffer_bytes / 8;
	} else {
		step = gm_proto_get(q)->chunk;
		double nsteps = 1 + floor(log2((double)(nodes > 0 ? nodes : 1))) + 0.1 * ppn;
		uint64_t per = (uint64_t)p->nchannels;
		while ((double)(p->bytes / (per * step)) < nsteps * 64 / ppn && step > 131072)
			step /= 2;
		while ((double)(p->bytes / (per * step)) < nsteps * 16 / ppn && step > 32768)
			step /= 2;
		if (8 * step < co->buffer_bytes)
			co->buffer_bytes = 8 * step;
	}
	step = step / el * el;
	if (step < el)
		step = el;
	p->chunk_bytes = p->slice_bytes = step;
	if (co->buffer_bytes < step)
		co->buffer_bytes = step;
}

/* The communicator's members per node: a node's GPUs, or in groups the
 * members of one group that share a node (one per node for groups strided
 * across nodes). */
static int comm_rpn(const gs_params *p)
{
	if (gs_group_n(p) < p->nranks)
		return gs_group_rpn(p);
	return p->ranks_per_node > 0 ? p->ranks_per_node : 1;
}

/* Parameters, topology and buffer of protocol q for one size: the
 * protocol's step geometry unless the scenario gives it, its scaling of the
 * links and of the launch latency, and NCCL's channels for the size unless
 * the scenario gives them. */
static void proto_setup(const gm_run *r, gm_proto q, const gs_params *base, uint64_t bytes,
			gs_params *p, gt_topo *t, gm_coll_opts *co)
{
	const gm_proto_info *pi = gm_proto_get(q);
	*p = *base;
	p->bytes = bytes;
	if (gc_config_int(r->cfg, "collective.channels") == 0 &&
	    (base->algo == GS_ALGO_RING || base->algo == GS_ALGO_TREE || base->algo == GS_ALGO_PAT) &&
	    base->coll != GS_COLL_SENDRECV)
		p->nchannels = nccl_channels(q, base->algo, gs_group_n(base), bytes, p->nchannels);
	*t = r->topo;
	gm_proto_apply(q, base->algo, t);
	co->xport_ll = q != GM_PROTO_SIMPLE;
	/* the nodes the communicator spans; on a flat switch every GPU is a
	 * node of its own (its link is its network) */
	int rpn = t->kind == GT_FLAT ? 1 : comm_rpn(base);
	if (q == GM_PROTO_LL)
		gm_proto_cap_ll(t, gs_group_n(base) / rpn, rpn);
	gm_proto_cap_channel(t, q, base->algo, gs_group_n(base) / rpn, p->nchannels);
	/* in-switch reduction and multicast get a share of the NVLink port,
	 * and NCCL's NVLS latency */
	if (is_nvls(base->algo) && t->kind == GT_DGX)
		gm_proto_apply_nvls(t, base->algo == GS_ALGO_NVLS_TREE ? GM_NVLS_TREE_NET_LAT_US
				       : t->nodes > 1 && !node_groups(base, &r->topo)
					       ? GM_NVLS_SHARP_NET_LAT_US
					       : 0);
	if (base->algo == GS_ALGO_NVLS && !gc_config_is_set(r->cfg, "collective.chunk") &&
	    (t->kind != GT_DGX || t->nodes == 1 || node_groups(base, &r->topo))) {
		p->chunk_bytes = nvls_chunk(bytes, p->nchannels, p->ranks_per_node);
		if (!gc_config_is_set(r->cfg, "collective.slice"))
			p->slice_bytes = p->chunk_bytes;
	}
	if (r->proto < 0 && !gm_run_switch_reduced(base->algo)) { /* auto: geometry per protocol unless given */
		if (!gc_config_is_set(r->cfg, "collective.chunk"))
			p->chunk_bytes = pi->chunk;
		if (!gc_config_is_set(r->cfg, "collective.slice"))
			p->slice_bytes = pi->slice < p->chunk_bytes ? pi->slice : p->chunk_bytes;
		co->buffer_bytes = gc_config_is_set(r->cfg, "collective.buffer")
					   ? gc_config_bytes(r->cfg, "collective.buffer")
					   : pi->buffer;
		if (co->buffer_bytes < p->chunk_bytes)
			co->buffer_bytes = p->chunk_bytes;
		if (chain_coll(base->coll) && !gc_config_is_set(r->cfg, "collective.slice"))
			p->slice_bytes = chain_slice(p->slice_bytes, co->buffer_bytes);
	}
	if (base->algo == GS_ALGO_TREE)
		tree_geometry(r, q, gs_group_n(base) / rpn, rpn, p, co);
	if (gm_run_nccl_p2p(r))
		p2p_geometry(r, q, base, t, p, co);
	/* a transport pays its network messages' software steps itself: the
	 * NIC link keeps its physical latency whatever the protocol */
	if (r->xport.kind != GM_XPORT_NONE)
		t->lat_scale[GM_LINK_NIC] = 1.0;
}

/* The closed form has no servers: a transport's message costs it one
 * uncontended pass of its stages on top of the NIC link's latency. */
static void xport_closed_form(const gm_run *r, const gm_coll_opts *co, gt_topo *t)
{
	if (r->xport.kind != GM_XPORT_NONE)
		t->nic.lat_ps += gm_xport_latency_ps(&r->xport, co->xport_ll ? GM_XM_SEND_LL : GM_XM_SEND);
}

/* The closed-form time of base with protocol q at this size (ps). */
static gc_status closed_form_ps(const gm_run *r, gm_proto q, const gs_params *base, uint64_t bytes,
				const gm_coll_opts *co0, int64_t *ps, char **errmsg)
{
	gs_params p;
	gt_topo t;
	gm_coll_opts co = *co0;
	co.trace = NULL;
	proto_setup(r, q, base, bytes, &p, &t, &co);
	xport_closed_form(r, &co, &t);
	gs_gen *gen = NULL;
	gm_coll_result res;
	gc_status st = gs_gen_create(&p, &gen, errmsg);
	if (st == GC_OK)
		st = gm_coll_analytic(&t, gen, &co, &res, errmsg);
	gs_gen_free(gen);
	*ps = st == GC_OK ? res.time_ps : INT64_MAX;
	return st;
}

/* The time a tuner weighs base with protocol q by at this size (ps):
 * gcsim's closed form, or with collective.tuner nccl NCCL's own estimate
 * (INT64_MAX where NCCL would not run it). */
static gc_status choice_ps(const gm_run *r, gm_proto q, const gs_params *base, uint64_t bytes,
			   const gm_coll_opts *co0, int64_t *ps, char **errmsg)
{
	if (!r->tuner_nccl)
		return closed_form_ps(r, q, base, bytes, co0, ps, errmsg);
	double us = gm_tuner_time_us(&r->tuner, base->coll, base->algo, q, bytes);
	*ps = us < 0 ? INT64_MAX : (int64_t)llround(us * 1e6);
	return GC_OK;
}

/* auto: the protocol whose estimated time is smallest for this size, by
 * gcsim's closed form or by NCCL's cost model (collective.tuner), and that
 * time. */
static gc_status proto_choose(const gm_run *r, const gs_params *base, uint64_t bytes,
			      const gm_coll_opts *co0, gm_proto *out, int64_t *best, char **errmsg)
{
	*best = INT64_MAX;
	*out = GM_PROTO_SIMPLE;
	/* NVLS, CollNet and PAT have Simple only; collective.nccl_proto may
	 * leave out any protocol (an algorithm left with none is refused by
	 * algo_refusal: at set-up, or as a candidate) */
	int nq = simple_only(base->algo) ? GM_PROTO_SIMPLE + 1 : GM_PROTO__COUNT;
	for (int q = simple_only(base->algo) ? GM_PROTO_SIMPLE : 0; q < nq; q++) {
		int64_t ps;
		if (!(r->proto_ok & GM_PROTO_BIT(q)))
			continue;
		gc_status st = choice_ps(r, (gm_proto)q, base, bytes, co0, &ps, errmsg);
		if (st != GC_OK)
			return st;
		if (ps < *best) {
			*best = ps;
			*out = (gm_proto)q;
		}
	}
	return GC_OK;
}

/* The protocols a run may use: the one given, or those auto chooses from. */
static unsigned run_protos(const gm_run *r)
{
	return r->proto >= 0 ? GM_PROTO_BIT(r->proto) : r->proto_ok;
}

bool gm_run_spans_nodes(const gs_params *p, const gt_topo *t)
{
	if (t->kind != GT_DGX || t->nodes < 2)
		return false;
	int node = -1;
	for (int r = 0; r < p->nranks; r++) {
		if (gs_group_id(p, r) != 0)
			continue;
		if (node < 0)
			node = r / t->gpus_per_node;
		else if (r / t->gpus_per_node != node)
			return true;
	}
	return false;
}

/* NCCL turns LL128 on by default only where it is tested (tuning.cc,
 * protocol enable 2): nodes whose GPUs talk over NVLink (typeIntra <=
 * PATH_NVB) and, across nodes, a GPU-to-NIC path of at most PXB, or PXN
 * from Hopper on (typeInter). Why it stays off for this scenario, or NULL. */
static const char *ll128_default_refusal(const gm_run *r)
{
	const gt_topo *t = &r->topo;
	if (t->kind != GT_DGX)
		return NULL;
	if (t->intra == GT_INTRA_PCIE)
		return "the GPUs of a node talk over PCIe, not NVLink (typeIntra beyond NVB)";
	if (!gm_run_spans_nodes(&r->base, t))
		return NULL;
	if (t->nic_path <= GT_PATH_PXB)
		return NULL;
	if (t->nic_path == GT_PATH_PXN)
		return t->arch >= 3 ? NULL
				    : "topology.nic_path pxn before hopper (typeInter beyond PXB; "
				      "topology.gpu_arch hopper or later allows PXN)";
	return t->nic_path == GT_PATH_PHB ? "topology.nic_path phb (typeInter beyond PXB and PXN)"
					  : "topology.nic_path sys (typeInter beyond PXB and PXN)";
}

/* collective.nccl_proto: the protocols allowed, and a refusal where the
 * protocol given is not one of them, or the algorithm (one that runs
 * Simple only) can run none of them. */
static gc_status proto_set_setup(gm_run *r, char **errmsg)
{
	const char *why = NULL, *v = gc_config_str(r->cfg, "collective.nccl_proto");
	unsigned listed = 0;
	if (!gm_proto_parse_set(v, &r->proto_ok, &listed, &why))
		return gc_config_error(r->cfg, "collective.nccl_proto", errmsg, "%s, got '%s'", why, v);
	/* NCCL's default leaves LL128 out where it is not tested, unless
	 * NCCL_PROTO lists it or the protocol is given outright */
	r->ll128_off = NULL;
	if (!(listed & GM_PROTO_BIT(GM_PROTO_LL128)) && r->proto != GM_PROTO_LL128 &&
	    (r->proto_ok & GM_PROTO_BIT(GM_PROTO_LL128))) {
		r->ll128_off = ll128_default_refusal(r);
		if (r->ll128_off)
			r->proto_ok &= ~GM_PROTO_BIT(GM_PROTO_LL128);
	}
	if (r->proto >= 0 && !(r->proto_ok & GM_PROTO_BIT(r->proto)))
		return gc_config_error(r->cfg, "collective.nccl_proto", errmsg,
				       "'%s' leaves out protocol %s, which collective.protocol "
				       "gives%s (give protocol auto, or another protocol)",
				       v, gm_proto_get((gm_proto)r->proto)->name,
				       gc_config_is_set(r->cfg, "collective.protocol")
					       ? ""
					       : " by default");
	if (!r->algo_auto && algo_refusal(r->base.coll, r->base.algo, run_protos(r), &r->topo,
					  node_groups(&r->base, &r->topo)))
		return gc_config_error(r->cfg, "collective.nccl_proto", errmsg,
				       "%s runs Simple only, which '%s' leaves out",
				       gs_algo_name(r->base.algo), v);
	return GC_OK;
}

/* collective.tuner nccl: NCCL's model for the communicator, or why it
 * cannot choose for this scenario. */
static gc_status tuner_setup(gm_run *r, bool step_phase, char **errmsg)
{
	gm_nccl_model model;
	char *bad = NULL;
	if (!gm_nccl_model_get(gc_config_str(r->cfg, "collective.nccl_version"), &model, &bad)) {
		gc_status st = gc_config_error(r->cfg, "collective.nccl_version", errmsg, "%s", bad);
		g_free(bad);
		return st;
	}
	r->nccl_ver = model.ver;
	r->tuner_nccl = !strcmp(gc_config_str(r->cfg, "collective.tuner"), "nccl");
	if (!r->tuner_nccl)
		return GC_OK;
	/* a training step's all-to-all and MoE phases are not NCCL's to tune:
	 * gcsim's closed form chooses there, NCCL's model for the others */
	if (!gm_tuner_chooses(r->base.coll) && step_phase) {
		r->tuner_nccl = false;
		return GC_OK;
	}
	if (!gm_tuner_chooses(r->base.coll))
		return gc_config_error(r->cfg, "collective.tuner", errmsg,
				       "NCCL's tuner chooses for allreduce, allgather, "
				       "reduce-scatter, broadcast and reduce; %s runs as NCCL's "
				       "grouped sends and receives "
				       "(give collective.tuner gcsim)",
				       gs_coll_name(r->base.coll));
	int64_t ch = gc_config_int(r->cfg, "collective.channels");
	int rpn = r->topo.kind == GT_FLAT ? 1 : comm_rpn(&r->base);
	const char *why = NULL;
	if (!gm_tuner_init(&r->tuner, &r->topo, gs_group_n(&r->base), rpn,
			   ch > 0 ? (int)ch : comm_default_channels(&r->topo, &r->base), &model,
			   &why))
		return gc_config_error(r->cfg, "collective.tuner", errmsg, "%s", why);
	return GC_OK;
}

/* collective.algo auto: the candidates this collective can run with on
 * this topology, each with its own step geometry (r->cand). */
static void algo_candidates(gm_run *r)
{
	/* in this order, which settles ties: NCCL's PAT before bruck, the
	 * schedule of the same class that NCCL does not run */
	static const gs_algo order[] = {
		GS_ALGO_RING, GS_ALGO_TREE, GS_ALGO_PAIRWISE, GS_ALGO_PUT,     GS_ALGO_NVLS,
		GS_ALGO_NVLS_TREE, GS_ALGO_PAT, GS_ALGO_BRUCK, GS_ALGO_COLLNET, GS_ALGO_COLLNET_CHAIN,
		GS_ALGO_FORWARD, GS_ALGO_PPLX, GS_ALGO_HD, GS_ALGO_GARDEN};
	G_STATIC_ASSERT(G_N_ELEMENTS(order) == GS_ALGO__COUNT);
	r->ncand = 0;
	for (size_t k = 0; k < G_N_ELEMENTS(order); k++) {
		gs_params q = r->base;
		q.algo = order[k];
		/* forward leaves out DeepEP's notify step (the count exchange
		 * and the CPU's wait before its normal dispatch), which decides
		 * small batches: a closed form without it cannot choose fairly
		 * between the two kernels */
		if (q.algo == GS_ALGO_FORWARD)
			continue;
		/* pplx moves put's messages (its counts and flags are 8 B
		 * each), garden the same bytes in one range per rank: the
		 * closed form cannot tell them apart */
		if (q.algo == GS_ALGO_PPLX || q.algo == GS_ALGO_GARDEN)
			continue;
		/* NCCL's tuner chooses among NCCL's algorithms only */
		if (r->tuner_nccl && !gm_tuner_runs(&r->tuner, q.coll, q.algo))
			continue;
		algo_layout(r->cfg, &r->topo, &q);
		if (algo_refusal(q.coll, q.algo, run_protos(r), &r->topo, node_groups(&q, &r->topo)) ||
		    (gs_group_n(&q) < q.nranks && group_refusal(&q, &r->topo)))
			continue;
		r->cand[r->ncand++] = q;
	}
}

/* collective.algo auto: the candidate and protocol whose closed-form time
 * is smallest for this size. */
static gc_status algo_choose(const gm_run *r, uint64_t bytes, const gm_coll_opts *co0,
			     const gs_params **best, gm_proto *proto, char **errmsg)
{
	int64_t tbest = INT64_MAX;
	*best = &r->cand[0];
	*proto = r->proto < 0 ? GM_PROTO_SIMPLE : (gm_proto)r->proto;
	for (int k = 0; k < r->ncand; k++) {
		gm_proto q = r->proto < 0 ? GM_PROTO_SIMPLE : (gm_proto)r->proto;
		int64_t ps;
		gc_status st = r->proto < 0
				       ? proto_choose(r, &r->cand[k], bytes, co0, &q, &ps, errmsg)
				       : choice_ps(r, q, &r->cand[k], bytes, co0, &ps, errmsg);
		if (st != GC_OK)
			return st;
		if (ps < tbest) {
			tbest = ps;
			*best = &r->cand[k];
			*proto = q;
		}
	}
	return GC_OK;
}

/* Prefix *errmsg with the scenario and the size it failed at. */
static void size_error(const gm_run *r, uint64_t bytes, char **errmsg)
{
	char *m = *errmsg;
	*errmsg = g_strdup_printf("%s: size %llu B: %s", gc_config_source_name(r->path),
				  (unsigned long long)bytes, m);
	g_free(m);
}

/* A point whose operation stalled (a link of faults.down stopped under
 * it): the process group's watchdog aborts it resilience.timeout after it
 * started, which is its time; r.total_ps keeps when the last thing moved. */
static void stall_point(const gm_run *r, gm_point *pt)
{
	if (pt->r.stalled)
		pt->r.time_ps = gc_config_time(r->cfg, "resilience.timeout");
}

/* The busbw and algbw of a point whose time is set. */
static void point_rates(gm_point *pt, const gs_params *p)
{
	double secs = (double)pt->r.time_ps * 1e-12;
	/* dispatch/combine: every GPU's token-expert messages over the time,
	 * as DeepEP reports its bandwidth */
	double moved = gs_coll_is_moe(p->coll) ? (double)pt->bytes * p->moe_tokens * p->moe_topk
					       : (double)pt->bytes;
	pt->time_us = (double)pt->r.time_ps * 1e-6;
	pt->algbw_GBps = secs > 0 ? moved / secs * 1e-9 : 0;
	pt->busbw_GBps = pt->algbw_GBps * gs_busbw_factor(p->coll, gs_group_n(p));
}

/* One size under a host backend (gm_host.h): the staging copy in, the
 * algorithm on the host processes (or, cuda-aware, on the GPUs), the copy
 * out, each operation of collective.iters in turn. */
static gc_status host_point(const gm_run *r, const gs_params *base, uint64_t bytes,
			    gm_coll_opts *co0, bool links, gm_point *pt, char **errmsg)
{
	gm_coll_opts co = *co0;
	gs_params p;
	gt_topo topo;
	gs_gen *gen = NULL;
	gm_host_setup(&r->host, &r->topo, base, bytes, &p, &topo, &co);
	gc_status st = gs_gen_create(&p, &gen, errmsg);
	if (st == GC_OK)
		st = gm_coll_simulate(&topo, gen, &co, links, &pt->r, errmsg);
	pt->proto = GM_PROTO_SIMPLE;
	pt->algo = (int)p.algo;
	pt->nchannels = 1;
	if (st == GC_OK && pt->r.stalled) {
		stall_point(r, pt);
		pt->bytes = gen->p.bytes;
		pt->count = count_of(&gen->p);
		point_rates(pt, &gen->p);
	} else if (st == GC_OK) {
		const int64_t copies = gm_host_copy_in_ps(&r->host, &gen->p) +
				       gm_host_copy_out_ps(&r->host, &gen->p);
		pt->r.time_ps += copies;
		pt->r.total_ps += copies * co.iters;
		if (pt->r.has_cp)
			pt->r.cp_ps[GM_CP_COPY] += copies * co.iters;
		pt->bytes = gen->p.bytes;
		pt->count = count_of(&gen->p);
		point_rates(pt, &gen->p);
		if (co.trace)
			co.trace->offset_ps += pt->r.total_ps;
	} else {
		size_error(r, bytes, errmsg);
	}
	gs_gen_free(gen);
	return st;
}

/* Time every size with parameters `base`; fills pts[0..n). */
static gc_status run_sizes(const gm_run *r, const gs_params *base, const uint64_t *sizes, size_t n,
			   gm_coll_opts *co, bool links, gm_point *pts, ge_trace *trace,
			   const gm_run_opts *o, char **errmsg)
{
	gc_status st = GC_OK;
	ge_trace *saved = co->trace;
	uint64_t saved_buffer = co->buffer_bytes;
	co->trace = trace && trace->f ? trace : NULL;
	const gs_params *base0 = base;
	for (size_t i = 0; i < n && st == GC_OK; i++) {
		if (o && o->progress)
			o->progress(o->progress_ctx, i, n, sizes[i]);
		if (r->host.kind != GM_BACKEND_NCCL) {
			st = host_point(r, base0, sizes[i], co, links, &pts[i], errmsg);
			continue;
		}
		gm_proto q = r->proto < 0 ? GM_PROTO_SIMPLE : (gm_proto)r->proto;
		base = base0;
		if (r->algo_auto && base0 == &r->base)
			st = algo_choose(r, sizes[i], co, &base, &q, errmsg);
		else if (r->proto < 0) {
			int64_t ps;
			st = proto_choose(r, base, sizes[i], co, &q, &ps, errmsg);
		}
		gs_params p;
		gt_topo topo;
		gs_gen *gen = NULL;
		co->buffer_bytes = saved_buffer;
		proto_setup(r, q, base, sizes[i], &p, &topo, co);
		uint64_t need;
		if (st == GC_OK && !gs_moefwd_buffer_ok(&p, co->buffer_bytes, &need)) {
			/* a protocol's own buffer, or the compared algorithm's */
			*errmsg = g_strdup_printf(
				"forward's combine needs %llu B of buffer (moe.chunk tokens, at most a "
				"channel's, and one more), and protocol %s's is %llu B: set "
				"collective.buffer, or a smaller moe.chunk",
				(unsigned long long)need, gm_proto_get(q)->name,
				(unsigned long long)co->buffer_bytes);
			st = GC_ERR_INPUT;
		}
		if (st == GC_OK)
			st = gs_gen_create(&p, &gen, errmsg);
		gm_point *pt = &pts[i];
		pt->proto = (int)q;
		pt->algo = (int)base->algo;
		pt->nchannels = p.nchannels;
		if (r->tuner_nccl)
			pt->nccl_est_us = gm_tuner_time_us(&r->tuner, base->coll, base->algo, q, sizes[i]);
		if (st == GC_OK && r->analytical) {
			xport_closed_form(r, co, &topo);
			st = gm_coll_analytic(&topo, gen, co, &pt->r, errmsg);
		}
		else if (st == GC_OK)
			st = gm_coll_simulate(&topo, gen, co, links, &pt->r, errmsg);
		if (st == GC_OK) {
			stall_point(r, pt);
			pt->bytes = gen->p.bytes;
			pt->count = count_of(&gen->p);
			point_rates(pt, &p);
			if (co->trace)
				co->trace->offset_ps += pt->r.total_ps;
		} else {
			size_error(r, sizes[i], errmsg);
		}
		gs_gen_free(gen);
	}
	co->trace = saved;
	co->buffer_bytes = saved_buffer;
	return st;
}

/* A transport (transport.inter other than none): its platform's component
 * defaults (gm_xport_platform of the preset), the NIC link's physical
 * latency unless topology.nic.latency is given, and the fidelities it
 * runs under. */
static gc_status xport_setup(gc_config *cfg, const gm_run_opts *o, char **errmsg)
{
	const char *x = gc_config_str(cfg, "transport.inter");
	if (!strcmp(x, "none"))
		return GC_OK;
	if (!strcmp(gc_config_str(cfg, "sim.net_send"), "proxy"))
		return gc_config_error(cfg, "sim.net_send", errmsg,
				       "proxy is what transport.inter %s does already (its NIC sends a "
				       "connection's messages in order); leave sim.net_send gpu",
				       x);
	gm_tx_platform_apply(cfg, gm_xport_platform(gc_config_str(cfg, "topology.preset")));
	if (!gc_config_is_set(cfg, "topology.nic.latency")) {
		char v[32], origin[48];
		g_snprintf(v, sizeof(v), "%lldps", (long long)gm_xport_nic_latency_ps(cfg));
		g_snprintf(origin, sizeof(origin), "transport.inter %s", x);
		gc_config_set_default(cfg, "topology.nic.latency", v, origin);
	}
	return GC_OK;
}

/* A schedule of one-sided puts and signals (alltoall put, MoE put and
 * pplx). */
static bool one_sided(const gs_params *p)
{
	return (p->algo == GS_ALGO_PUT && (p->coll == GS_COLL_ALLTOALL || gs_coll_is_moe(p->coll))) ||
	       ((p->algo == GS_ALGO_PPLX || p->algo == GS_ALGO_GARDEN) && gs_coll_is_moe(p->coll));
}

/* faults.degrade and faults.latency: parsed, and every name checked
 * against the links of the run's topology (made once into a scratch
 * network). */
static gc_status faults_setup(gm_run *r, char **errmsg)
{
	static const char *const keys[4] = {"faults.degrade", "faults.latency", "faults.loss",
					    "faults.down"};
	gm_fault *f[4] = {NULL, NULL, NULL, NULL};
	size_t n[4] = {0, 0, 0, 0};
	for (int k = 0; k < 4; k++) {
		char *why = NULL;
		if (!gm_fault_parse(gc_config_str(r->cfg, keys[k]), (gm_fault_kind)k, &f[k], &n[k],
				    &why)) {
			gc_status st = gc_config_error(r->cfg, keys[k], errmsg, "%s", why);
			g_free(why);
			for (int j = 0; j < k; j++)
				g_free(f[j]);
			return st;
		}
	}
	r->nfaults = n[0] + n[1] + n[2] + n[3];
	r->faults = g_new(gm_fault, r->nfaults ? r->nfaults : 1);
	for (size_t k = 0, at = 0; k < 4; at += n[k], k++) {
		if (n[k])
			memcpy(r->faults + at, f[k], n[k] * sizeof(gm_fault));
		g_free(f[k]);
	}
	if (!r->nfaults)
		return GC_OK;
	ge_engine eng;
	gm_net net;
	ge_engine_init(&eng, 1);
	gm_net_init(&net, &eng, NULL, NULL);
	gt_topo t = r->topo;
	if (r->host.kind != GM_BACKEND_NCCL) { /* the links the host processes cross */
		gs_params p;
		gm_coll_opts co = {0};
		gm_host_setup(&r->host, &r->topo, &r->base, gs_dtype_size(r->base.dtype), &p, &t, &co);
	}
	gt_topo_instantiate(&t, &net);
	long bad = gm_fault_apply(&net, r->faults, r->nfaults);
	char first[GM_LINK_NAME * 2 + 8] = "";
	if (bad >= 0 && net.nlinks > 0)
		snprintf(first, sizeof(first), "%s, %s", net.info[0].name,
			 net.info[net.nlinks > 1 ? 1 : 0].name);
	gm_net_fini(&net);
	ge_engine_fini(&eng);
	if (bad < 0)
		return GC_OK;
	size_t which = 0;
	for (size_t at = n[0]; (size_t)bad >= at && which < 3; at += n[++which])
		;
	return gc_config_error(r->cfg, keys[which], errmsg,
			       "'%s' names no link of this topology; the links are named as --links "
			       "prints them (%s, ...), and a name takes every link under it",
			       r->faults[bad].name, first);
}

gc_status gm_run_scenario(const char *path, const gm_run_opts *o, gm_run **out, char **errmsg)
{
	*out = NULL;
	gm_run *r = g_new0(gm_run, 1);
	r->path = g_strdup(path);
	gc_status st = gm_scenario_load_at(path, o->sets, o->set_where, &r->cfg, errmsg);
	if (st == GC_OK && strcmp(gc_config_str(r->cfg, "workload"), "collective") != 0)
		st = gc_config_error(r->cfg, "workload", errmsg,
				     "a training step is reported by phase (gcsim run), not as one "
				     "collective's sizes");
	/* train.* shapes a step: given to a collective it would be ignored */
	for (size_t i = 0; st == GC_OK && !o->step_phase; i++) {
		const gc_param *kp = gc_config_param_at(r->cfg, i);
		if (!kp)
			break;
		if (!strcmp(kp->key, "resilience.timeout") && *gc_config_str(r->cfg, "faults.down"))
			continue; /* the watchdog of a collective that stalls */
		if ((g_str_has_prefix(kp->key, "train.") || g_str_has_prefix(kp->key, "resilience.")) &&
		    gc_config_is_set(r->cfg, kp->key))
			st = gc_config_error(r->cfg, kp->key, errmsg,
					     "applies to workload: step, not to a collective");
	}
	/* the proxy's FIFO is a flow-model mechanism: the packet model sends
	 * each connection's packets in order already, the closed form has no
	 * strands */
	if (st == GC_OK && !strcmp(gc_config_str(r->cfg, "sim.net_send"), "proxy") &&
	    strcmp(gc_config_str(r->cfg, "sim.fidelity"), "flow") != 0)
		st = gc_config_error(r->cfg, "sim.net_send", errmsg,
				     "proxy applies to sim.fidelity flow, not %s",
				     gc_config_str(r->cfg, "sim.fidelity"));
	/* the breakdown follows the flow model's waits; the closed form has
	 * no events, and the packet model's landings are not followed */
	if (st == GC_OK && o->breakdown && strcmp(gc_config_str(r->cfg, "sim.fidelity"), "flow") != 0)
		st = gc_config_error(r->cfg, "sim.fidelity", errmsg,
				     "the breakdown (--breakdown) is kept by the flow fidelity only, "
				     "not by %s: use sim.fidelity flow",
				     gc_config_str(r->cfg, "sim.fidelity"));
	if (st == GC_OK)
		st = xport_setup(r->cfg, o, errmsg);
	if (st == GC_OK)
		st = gt_topo_from_config(r->cfg, &r->topo, errmsg);
	if (st == GC_OK)
		st = collective_from_config(r->cfg, &r->topo, &r->base, errmsg);
	if (st == GC_OK)
		st = gm_xport_build(r->cfg, &r->topo, one_sided(&r->base),
				    r->base.algo == GS_ALGO_GARDEN && gs_coll_is_moe(r->base.coll), &r->xport, errmsg);
	if (st == GC_OK && o->step_phase &&
	    strcmp(gc_config_str(r->cfg, "collective.backend"), "nccl") != 0)
		st = gc_config_error(r->cfg, "collective.backend", errmsg,
				     "a training step's collectives run on NCCL; collective.backend "
				     "applies to workload: collective");
	if (st == GC_OK)
		st = gm_host_from_config(r->cfg, &r->topo, &r->base, &r->host, errmsg);
	if (st != GC_OK) {
		gm_run_free(r);
		return st;
	}
	if (r->host.kind != GM_BACKEND_NCCL) {
		/* the backend's own algorithm; NCCL's protocols, tuner and
		 * transports are not involved */
		r->proto = GM_PROTO_SIMPLE;
		r->algo_auto = false;
		if (r->base.coll != GS_COLL_SENDRECV)
			r->base.algo = r->host.algo;
		r->xport.kind = GM_XPORT_NONE;
		r->base.nchannels = 1;
	} else {
		r->proto = gm_proto_from_name(gc_config_str(r->cfg, "collective.protocol")); /* auto: -1 */
		r->algo_auto = !strcmp(gc_config_str(r->cfg, "collective.algo"), "auto");
		st = proto_set_setup(r, errmsg);
		if (st == GC_OK)
			st = tuner_setup(r, o->step_phase, errmsg);
		if (st != GC_OK) {
			gm_run_free(r);
			return st;
		}
		if (r->algo_auto)
			algo_candidates(r);
	}
	r->analytical = strcmp(gc_config_str(r->cfg, "sim.fidelity"), "analytical") == 0;
	/* every key the scenario sets changes what is simulated, or is refused */
	st = gm_keyuse_check(r, o->step_phase, o->sweep_cell ? &r->unused : NULL, errmsg);
	if (st == GC_OK)
		st = faults_setup(r, errmsg);
	if (st != GC_OK) {
		gm_run_free(r);
		return st;
	}
	gm_coll_opts co = {
		.buffer_bytes = gc_config_bytes(r->cfg, "collective.buffer"),
		.iters = (int)gc_config_int(r->cfg, "collective.iters"),
		.gpus_per_thread = (int)gc_config_int(r->cfg, "collective.gpus_per_thread"),
		.enqueue_ps = gc_config_time(r->cfg, "collective.enqueue"),
		.seed = (uint64_t)gc_config_int(r->cfg, "seed"),
		.check = gc_config_bool(r->cfg, "sim.check"),
		.net_send_proxy = !strcmp(gc_config_str(r->cfg, "sim.net_send"), "proxy"),
		.critical_path = o->breakdown,
		.xport = &r->xport,
		.on_progress = o->step_progress,
		.progress_ctx = o->progress_ctx,
		.faults = r->faults,
		.nfaults = r->nfaults,
		.retransmit_ps = gc_config_time(r->cfg, "faults.retransmit"),
		.no_fold = !gc_config_bool(r->cfg, "sim.fold"),
		.solve = !strcmp(gc_config_str(r->cfg, "sim.solve"), "component") ? GM_NET_SOLVE_COMPONENT
			 : !strcmp(gc_config_str(r->cfg, "sim.solve"), "local")   ? GM_NET_SOLVE_LOCAL
										 : GM_NET_SOLVE_AUTO,
	};
	if (strcmp(gc_config_str(r->cfg, "sim.fidelity"), "packet") == 0) {
		co.pkt_bytes = (uint32_t)gc_config_bytes(r->cfg, "sim.packet");
		co.pkt_buf = (uint32_t)gc_config_int(r->cfg, "sim.hop_buffer");
	}
	r->pkt_bytes = co.pkt_bytes;
	r->pkt_buf = co.pkt_buf;
	ge_trace trace = {0};
	if (o->trace_path && !r->analytical) {
		st = ge_trace_open(&trace, o->trace_path, errmsg);
		if (st != GC_OK) {
			gm_run_free(r);
			return st;
		}
		co.trace = &trace;
		co.trace_links = 1;
	}
	size_t n;
	const uint64_t *sizes = gc_config_bytes_list(r->cfg, "collective.sizes", &n);
	r->pts = g_new0(gm_point, n);
	r->npts = n; /* zeroed points: freeing is safe whatever happens below */
	gs_params q = r->base;
	const char *cmp = gc_config_str(r->cfg, "collective.compare");
	if (strcmp(cmp, "none") != 0) {
		q.algo = algo_of(cmp);
		algo_layout(r->cfg, &r->topo, &q);
		const char *why = algo_refusal(q.coll, q.algo, run_protos(r), &r->topo,
					       node_groups(&q, &r->topo));
		if (!why && gs_group_n(&q) < q.nranks)
			why = group_refusal(&q, &r->topo);
		if (q.algo == r->base.algo && !r->algo_auto)
			st = gc_config_error(r->cfg, "collective.compare", errmsg,
					     "compares %s with itself; name the other algorithm", cmp);
		else if (why)
			st = gc_config_error(r->cfg, "collective.compare", errmsg, "%s", why);
		r->compare = true;
		r->compare_algo = q.algo;
		r->cmp = g_new0(gm_point, n);
	}
	/* refuse up front a size the packet fidelity cannot take on, rather
	 * than after simulating the sizes before it */
	for (size_t i = 0; i < n && st == GC_OK && co.pkt_bytes; i++) {
		gs_params p = r->base;
		p.bytes = sizes[i];
		double pkts = gm_coll_packets_estimate(&p, co.pkt_bytes, co.iters);
		int nsim = p.nranks;
		if (pkts > GM_COLL_MAX_PACKETS) {
			/* a folded run simulates one block of ranks (the executor
			 * checks its own estimate again, with the size's protocol) */
			gs_gen *g = NULL;
			char *e = NULL;
			if (gs_gen_create(&p, &g, &e) == GC_OK)
				nsim = gm_coll_fold_ranks(&r->topo, g, &co);
			pkts = pkts * nsim / p.nranks;
			gs_gen_free(g);
			g_free(e);
		}
		char of[64] = "";
		if (nsim < p.nranks)
			snprintf(of, sizeof(of), " (the %d simulated for all %d)", nsim, p.nranks);
		if (pkts > GM_COLL_MAX_PACKETS)
			st = gc_config_error(r->cfg,
					     gc_config_is_set(r->cfg, "sim.packet") ? "sim.packet"
										    : "sim.fidelity",
					     errmsg,
					     "size %llu B is about %.3g packets of %u B over %d ranks%s, "
					     "more than the %.0e the packet fidelity takes on; use a larger "
					     "packet, smaller sizes or the flow fidelity",
					     (unsigned long long)sizes[i], pkts, co.pkt_bytes,
					     nsim < p.nranks ? nsim : p.nranks, of, GM_COLL_MAX_PACKETS);
	}
	co.on_step = o->on_step;
	co.step_ctx = o->step_ctx;
	if (st == GC_OK && !o->check_only)
		st = run_sizes(r, &r->base, sizes, n, &co, o->links, r->pts, &trace, o, errmsg);
	co.on_step = NULL;
	if (st == GC_OK && r->compare && !o->check_only)
		st = run_sizes(r, &q, sizes, n, &co, false, r->cmp, NULL, o, errmsg);
	st = ge_trace_finish(&trace, st, errmsg);
	if (st != GC_OK) {
		gm_run_free(r);
		return st;
	}
	*out = r;
	return GC_OK;
}

