/* SPDX-License-Identifier: MIT */
/*
 * gm_train: one training step's communication (see gm_train.h for the
 * phases). Each phase is the scenario itself with the phase's collective,
 * size and communicator layout set on top, run by gm_run, so it takes the
 * scenario's topology, fidelity, algorithm and protocol as they are.
 *
 * Sources of the defaults: Llama 3 70B's shape (Meta's model card: 80
 * layers, hidden size 8192, 70.6 B parameters); Megatron-LM's tensor
 * parallel layer (Shoeybi et al., arXiv 1909.08053: two allreduces forward
 * and two backward per layer) and its fp32 gradient reduction for bf16
 * training; PyTorch DDP's 25 MiB gradient buckets.
 */
#include "gm_train.h"
#include "../report/gm_report.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "../../core/gc_units.h"
#include "../run/gm_keyuse.h"
#include "gm_pipe.h"
#include "../closed/gm_proto.h"
#include "../run/gm_scenario.h"

static const gc_param train_params[] = {
	{"workload", GC_P_ENUM, "collective", "collective|step", 1, 0,
	 "collective: time collective.op at each of collective.sizes; step: the collectives of one "
	 "training step shaped by train.* (tensor, pipeline and data parallel), each in its "
	 "concurrent groups",
	 NULL},
	{"train.params", GC_P_DOUBLE, "70.6e9", NULL, 1, 1e15, "step: model parameters",
	 "Llama 3 70B (Meta model card)"},
	{"train.layers", GC_P_INT, "80", NULL, 1, 1000000, "step: transformer layers",
	 "Llama 3 70B (Meta model card)"},
	{"train.hidden", GC_P_INT, "8192", NULL, 1, 16777216, "step: hidden size",
	 "Llama 3 70B (Meta model card)"},
	{"train.seq", GC_P_INT, "4096", NULL, 1, 1073741824, "step: tokens per sequence", NULL},
	{"train.micro_batch", GC_P_INT, "1", NULL, 1, 1048576, "step: sequences per micro-batch",
	 NULL},
	{"train.micro_batches", GC_P_INT, "8", NULL, 1, 1048576,
	 "step: micro-batches per step and pipeline (gradient accumulation)", NULL},
	{"train.tp", GC_P_INT, "8", NULL, 1, 1048576,
	 "step: tensor-parallel degree, consecutive GPUs (1: no TP phase)", "one 8-GPU node"},
	{"train.cp", GC_P_INT, "1", NULL, 1, 1048576,
	 "step: context-parallel degree: each sequence split over CP GPUs (after TP in the rank "
	 "order, at stride TP), attention exchanging keys and values between them (train.cp_comm); "
	 "the gradients are reduced over CP x DP",
	 "Megatron-LM context parallelism (order tp-cp-ep-dp-pp); Llama 3 (arXiv 2407.21783, "
	 "section 3.3.2): CP 16 for 128K-token sequences"},
	{"train.cp_comm", GC_P_ENUM, "p2p", "p2p|allgather", 1, 0,
	 "step: how attention gets the other CP ranks' keys and values: p2p (ring attention: CP - 1 "
	 "sendrecv rounds of a key-value block per layer forward, overlapping the block's "
	 "attention, and of the block with its gradient backward) or allgather (Llama 3's: K and V "
	 "all-gathered forward and again backward, dK and dV reduce-scattered, exposed)",
	 "TransformerEngine AttnFuncWithCPAndKVP2P and AttnFuncWithCPAndKVAllGather"},
	{"train.heads", GC_P_INT, "64", NULL, 1, 1048576,
	 "step: attention heads (query); hidden / heads is the head size",
	 "Llama 3 70B (Meta model card)"},
	{"train.kv_heads", GC_P_INT, "8", NULL, 1, 1048576,
	 "step: key-value heads (grouped-query attention), split over TP (a TP rank holds at "
	 "least one); they size context parallelism's messages",
	 "Llama 3 70B (Meta model card): 8 KV heads"},
	{"train.pp", GC_P_INT, "1", NULL, 1, 1048576,
	 "step: pipeline stages (1: no PP phase); a stage holds ceil(layers / PP) layers at most, "
	 "and the fullest stage sets the pace", NULL},
	{"train.virtual_stages", GC_P_INT, "1", NULL, 1, 1024,
	 "step: model chunks per pipeline stage (interleaved 1F1B, simulated: the bubble shrinks "
	 "by this factor, the PP messages grow by it; micro-batches a multiple of PP); 1: plain "
	 "1F1B",
	 "Narayanan et al., SC'21 (arXiv 2104.04473): bubble (PP - 1) / (v M) of the compute"},
	{"train.order", GC_P_ENUM, "tp-dp-pp", "tp-dp-pp|tp-pp-dp", 1, 0,
	 "step: rank layout, fastest-varying first, CP right after TP in both: tp-dp-pp "
	 "(Megatron-LM's default: DP groups of neighbouring nodes, PP outermost) or tp-pp-dp (Llama "
	 "3's: PP stages on neighbouring nodes, DP outermost, across the whole cluster)",
	 "Megatron-LM parallel_state order tp-cp-ep-dp-pp; Llama 3 (arXiv 2407.21783, section "
	 "3.3.2) [TP, CP, PP, DP]"},
	{"train.grad_bytes", GC_P_INT, "4", NULL, 1, 8,
	 "step: bytes per gradient element in the data-parallel allreduce",
	 "Megatron-LM reduces bf16 training's gradients in fp32 (accumulate_allreduce_grads_in_fp32)"},
	{"train.bucket", GC_P_BYTES, "25MiB", NULL, 4, 1099511627776.0,
	 "step: gradient bucket, one data-parallel allreduce each",
	 "PyTorch DistributedDataParallel bucket_cap_mb = 25"},
	{"train.ep", GC_P_INT, "1", NULL, 1, 1048576,
	 "step: expert-parallel degree (1: a dense model); every layer is then a MoE layer whose "
	 "tokens go to train.topk of train.experts experts spread over EP GPUs of one TP rank "
	 "inside a DP group; divides DP",
	 "Megatron-LM expert parallelism (EP within DP)"},
	{"train.experts", GC_P_INT, "256", NULL, 1, 1048576,
	 "step: routed experts per MoE layer, a multiple of train.ep", "DeepSeek-V3, 256 routed experts"},
	{"train.topk", GC_P_INT, "8", NULL, 1, 1024, "step: experts each token goes to",
	 "DeepSeek-V3, top-8"},
	{"train.ep_algo", GC_P_ENUM, "put", "put|forward", 1, 0,
	 "step: how dispatch and combine move tokens: put (a message per token-expert pair, "
	 "DeepEP's low-latency kernels) or forward (once per node, on over NVLink: its normal "
	 "kernels)", NULL},
	{"train.ep_max_nodes", GC_P_INT, "0", NULL, 0, 1048576,
	 "step: nodes a token may reach (node-limited routing; 0: any)",
	 "DeepSeek-V3 routes each token to at most 4 nodes"},
	{"train.expert_fraction", GC_P_DOUBLE, "0", NULL, 0, 1,
	 "step: share of the parameters in experts, whose gradients are reduced over the "
	 "expert-data-parallel group (DP / EP GPUs) instead of all of DP",
	 "Megatron-LM expert data parallelism"},
	{"train.mfu", GC_P_DOUBLE, "0", NULL, 0, 1,
	 "step: model FLOPs utilization for a compute estimate (6 FLOPs per active parameter and "
	 "token) and the communication the step then exposes; 0: communication only",
	 "Llama 3 (arXiv 2407.21783): 38-43 % BF16 MFU on 8k-16k H100s"},
	{"train.gpu", GC_P_ENUM, "auto", "auto|v100|a100-40g|a100|h100|h200|b200|gb200", 1, 0,
	 "step: the GPU whose dense BF16 FLOP/s the compute estimate takes (v100: FP16); auto: "
	 "the preset's (dgx-a100 a100, p4d a100-40g, dgx-h100 and p5 h100, p5en h200, dgx-b200 "
	 "b200, gb200-nvl72 gb200), h100 without a preset",
	 "NVIDIA datasheets (V100, A100, H100, H200, HGX/DGX B200, GB200 NVL72; "
	 "sim/topologies/gt_gpu.c)"},
	{"train.gpu_flops", GC_P_DOUBLE, "0", NULL, 0, 1e18,
	 "step: a GPU's peak dense BF16 FLOP/s for the compute estimate, in place of train.gpu's; "
	 "0: train.gpu's",
	 NULL},
	{"train.precision", GC_P_ENUM, "bf16", "bf16|fp8", 1, 0,
	 "step: the precision of the linear layers' GEMMs in the compute estimate; fp8: at "
	 "train.gpu's dense FP8 FLOP/s (Hopper and later), attention still at BF16's; the "
	 "gradients' communication is unchanged (train.grad_bytes)",
	 "FP8 training keeps the GEMMs of the linear layers in FP8 and attention, normalisation "
	 "and the gradients in BF16 or FP32 (DeepSeek-V3 technical report, arXiv 2412.19437, "
	 "section 3.3; NVIDIA Transformer Engine)"},
	{"train.sequence_parallel", GC_P_BOOL, "false", NULL, 1, 0,
	 "step: sequence parallelism, each TP allreduce an allgather and a reduce-scatter of the "
	 "same activations",
	 "Korthikanti et al., arXiv 2205.05198"},
	{"train.tp_overlap", GC_P_BOOL, "false", NULL, 1, 0,
	 "step: overlap each sequence-parallel allgather and reduce-scatter with the GEMM it "
	 "feeds or follows (a quarter of a layer's GEMMs forward, twice that backward); only what "
	 "outlasts it is exposed",
	 "Megatron-LM --tp-comm-overlap (TransformerEngine userbuffers); Wang et al., ASPLOS'23"},
	{"train.sharding", GC_P_ENUM, "none", "none|zero2|zero3", 1, 0,
	 "step: parameters sharded over DP, FSDP-style, one unit per layer: zero3 (FULL_SHARD) "
	 "gathers each layer's bf16 parameters in the forward and again in the backward pass and "
	 "reduce-scatters its gradients, every micro-batch; zero2 (SHARD_GRAD_OP) gathers them once "
	 "per micro-batch; none: gradients reduced in train.bucket buckets once per step",
	 "PyTorch FSDP sharding strategies (Zhao et al., VLDB 2023); ZeRO stages 2 and 3 "
	 "(Rajbhandari et al., arXiv 1910.02054)"},
	{"train.shard_group", GC_P_INT, "0", NULL, 0, 1048576,
	 "step: with train.sharding, shard over groups of this many DP ranks and replicate across "
	 "them (hybrid sharding: each layer's gradient shard is then allreduced over the replicas); "
	 "0: shard over all of DP",
	 "PyTorch FSDP HYBRID_SHARD (HSDP)"},
	{"train.distributed_optimizer", GC_P_BOOL, "false", NULL, 1, 0,
	 "step: shard the optimizer over DP (ZeRO-1): reduce-scatter the gradients, allgather the "
	 "updated bf16 parameters, both in buckets",
	 "Megatron-LM --use-distributed-optimizer; Rajbhandari et al., arXiv 1910.02054"},
};

static const gc_param resil_params[] = {
	{"resilience.node_mtbf", GC_P_DOUBLE, "0", NULL, 0, 1e9,
	 "step: a node's mean time between failures, hours; above 0 the run of resilience.steps "
	 "steps is simulated with failures, checkpoints and restarts (0: none). Llama 3's 419 "
	 "unexpected interruptions in 54 days on 2048 nodes of 8 H100 make 6334 h",
	 "Llama 3 (arXiv 2407.21783), section 3.3.4, table 5"},
	{"resilience.timeout", GC_P_TIME, "600s", NULL, 0, 8.64e16,
	 "step, and a collective with faults.down: how long a collective waits on a failed node "
	 "before the job notices (the process group's watchdog timeout)",
	 "PyTorch init_process_group: timeout default 10 minutes for NCCL"},
	{"resilience.restart", GC_P_TIME, "0s", NULL, 0, 8.64e16,
	 "step: teardown, relaunch and communicator init after a failure, before the checkpoint "
	 "is read back; 0 by default: give your cluster's",
	 NULL},
	{"resilience.checkpoint", GC_P_BYTES, "0B", NULL, 0, 1e18,
	 "step: the checkpoint's size; 0: 14 B per parameter (BF16 weights, FP32 master weights "
	 "and Adam's two moments)",
	 "ZeRO (Rajbhandari et al., arXiv 1910.02054): 2 + 12 bytes per parameter of model and "
	 "optimizer state"},
	{"resilience.storage", GC_P_BW, "0B/s", NULL, 0, 1e15,
	 "step: the bandwidth the whole job writes and reads its checkpoint at (required with "
	 "resilience.node_mtbf)",
	 NULL},
	{"resilience.interval", GC_P_INT, "0", NULL, 0, INT64_C(1000000000),
	 "step: steps between checkpoints; 0: Daly's optimum, sqrt(2 x write x job MTBF) - write",
	 "Young (CACM 1974); Daly (FGCS 2006)"},
	{"resilience.steps", GC_P_INT, "10000", NULL, 1, INT64_C(1000000000),
	 "step: the length of the simulated run, in steps", NULL},
	{"resilience.repair", GC_P_TIME, "0s", NULL, 0, 3.1536e19,
	 "step: how long a failed node is out (repaired or replaced); 0: replaced at once. The job "
	 "restarts on a hot spare (resilience.spares) if one is free, else waits for the first "
	 "node back",
	 NULL},
	{"resilience.spares", GC_P_INT, "0", NULL, 0, 4096,
	 "step: hot spare nodes the job restarts on while failed nodes are out "
	 "(resilience.repair); a repaired node becomes a spare",
	 NULL},
	{"resilience.fail_step", GC_P_INT, "0", NULL, 0, INT64_C(1000000000),
	 "step: also itemise one failure in the middle of this step (a node dies mid-allreduce): "
	 "its stall, restart, reload and lost work; 0: none",
	 NULL},
};

void gm_train_register_params(gc_config *cfg)
{
	gc_config_add_params(cfg, train_params, G_N_ELEMENTS(train_params));
	gc_config_add_params(cfg, resil_params, G_N_ELEMENTS(resil_params));
}

void gm_train_free(gm_train *t)
{
	if (!t)
		return;
	if (t->cfg)
		gc_config_free(t->cfg);
	g_strfreev(t->unused);
	g_free(t->path);
	g_free(t);
}

/* A communicator layout: size members at stride, or in blocks of block
 * members block_stride apart (gs_params; block 0: one level). */
typedef struct layout {
	int size, stride, block, block_stride;
} layout;

static gm_train_phase phase_of(const char *name, const char *op, layout g, uint64_t bytes,
			       uint64_t calls)
{
	/* by default half the calls come in the backward pass (TP's, EP's) */
	return (gm_train_phase){.name = name, .op = op, .group_size = g.size,
				.group_stride = g.stride, .group_block = g.block,
				.group_block_stride = g.block_stride, .bytes = bytes, .calls = calls,
				.bwd_calls = calls / 2};
}

/* A DP phase of total bytes in buckets of train.bucket, one call each; the
 * last bucket holds the rest. */
static void add_bucketed(gm_train *t, const char *name, const char *op, uint64_t total, layout g)
{
	uint64_t bucket = gc_config_bytes(t->cfg, "train.bucket");
	if (total == 0 || g.size < 2)
		return;
	gm_train_phase d = phase_of(name, op, g, bucket, total / bucket);
	d.rest_bytes = total % bucket;
	if (d.calls == 0) { /* all of it in one bucket */
		d.bytes = d.rest_bytes;
		d.calls = 1;
		d.rest_bytes = 0;
	}
	t->ph[t->nph++] = d;
}

/* A phase of `calls` calls of `bytes` each, left out (NULL) when it moves
 * nothing or its groups hold one GPU. */
static gm_train_phase *add_phase(gm_train *t, const char *name, const char *op, uint64_t bytes,
				 uint64_t calls, layout g)
{
	if (bytes == 0 || calls == 0 || g.size < 2)
		return NULL;
	t->ph[t->nph] = phase_of(name, op, g, bytes, calls);
	return &t->ph[t->nph++];
}

/* Phase p (if added) runs `bwd` of its calls in the backward pass. */
static void set_bwd_calls(gm_train_phase *p, uint64_t bwd)
{
	if (p)
		p->bwd_calls = bwd;
}

/* One level: size members at stride. */
static layout flat(int size, int stride) { return (layout){size, stride, 0, 0}; }

/* A DP-like group with CP folded in: blocks of the CP ranks (stride TP),
 * size of them dp_stride apart (one level when CP is 1 or the blocks
 * adjoin). */
static layout with_cp(const gm_train *t, int size, int dp_stride)
{
	if (t->cp == 1)
		return flat(size, dp_stride);
	if (size == 1 || dp_stride == t->tp * t->cp) /* one block, or blocks adjoining */
		return flat(size * t->cp, t->tp);
	return (layout){size * t->cp, t->tp, t->cp, dp_stride};
}

/* The phases of the step of t->cfg; errors at the train.* key to blame. */
static gc_status plan(gm_train *t, char **errmsg)
{
	const gc_config *c = t->cfg;
	const int64_t n = t->topo.ngpus, tp = gc_config_int(c, "train.tp"),
		      pp = gc_config_int(c, "train.pp"), L = gc_config_int(c, "train.layers"),
		      cp = gc_config_int(c, "train.cp"), seq = gc_config_int(c, "train.seq");
	if (tp > n || n % tp != 0)
		return gc_config_error(c, "train.tp", errmsg,
				       "TP %lld does not divide the %lld GPUs", (long long)tp,
				       (long long)n);
	if (tp * cp > n || n % (tp * cp) != 0)
		return gc_config_error(c, "train.cp", errmsg,
				       "TP %lld x CP %lld does not divide the %lld GPUs", (long long)tp,
				       (long long)cp, (long long)n);
	if (cp > 1 && seq % (2 * cp) != 0)
		return gc_config_error(c, "train.cp", errmsg,
				       "a sequence of %lld tokens does not split into 2 x CP = %lld equal "
				       "chunks (causal attention is balanced by giving each CP rank two)",
				       (long long)seq, (long long)(2 * cp));
	if (tp * cp * pp > n || n % (tp * cp * pp) != 0) {
		char cps[32] = "";
		if (cp > 1)
			snprintf(cps, sizeof(cps), "CP %lld x ", (long long)cp);
		return gc_config_error(c, "train.pp", errmsg,
				       "TP %lld x %sPP %lld does not divide the %lld GPUs", (long long)tp,
				       cps, (long long)pp, (long long)n);
	}
	if (pp > L)
		return gc_config_error(c, "train.pp", errmsg, "%lld stages for %lld layers leave a stage "
				       "without a layer", (long long)pp, (long long)L);
	const int64_t heads = gc_config_int(c, "train.heads"), kvh = gc_config_int(c, "train.kv_heads"),
		      hidden = gc_config_int(c, "train.hidden");
	if (hidden % heads != 0)
		return gc_config_error(c, "train.heads", errmsg,
				       "%lld heads do not divide the hidden size %lld", (long long)heads,
				       (long long)hidden);
	if (kvh > heads || heads % kvh != 0)
		return gc_config_error(c, "train.kv_heads", errmsg,
				       "%lld key-value heads do not divide the %lld heads", (long long)kvh,
				       (long long)heads);
	if (cp == 1 && gc_config_is_set(c, "train.cp_comm"))
		return gc_config_error(c, "train.cp_comm", errmsg, "applies with train.cp > 1");
	t->tp = (int)tp;
	t->pp = (int)pp;
	t->cp = (int)cp;
	t->dp = (int)(n / (tp * cp * pp));
	/* the fullest stage's layers: the step waits for it */
	t->stage_layers = (int)((L + pp - 1) / pp);
	const int64_t v = gc_config_int(c, "train.virtual_stages");
	if (v > 1 && pp == 1)
		return gc_config_error(c, "train.virtual_stages", errmsg,
				       "applies with train.pp > 1 (an interleaved pipeline)");
	if (v > t->stage_layers)
		return gc_config_error(c, "train.virtual_stages", errmsg,
				       "%lld model chunks per stage of %d layers leave a chunk without "
				       "a layer",
				       (long long)v, t->stage_layers);
	if (v > 1 && gc_config_int(c, "train.micro_batches") % pp != 0)
		return gc_config_error(c, "train.virtual_stages", errmsg,
				       "an interleaved pipeline takes its micro-batches in groups of PP: "
				       "%lld micro-batches are not a multiple of PP %lld",
				       (long long)gc_config_int(c, "train.micro_batches"), (long long)pp);
	t->vstages = (int)v;
	/* strides: TP fastest, CP next, then DP and PP in train.order (EP is
	 * the inner part of DP) */
	bool pp_inner = strcmp(gc_config_str(c, "train.order"), "tp-pp-dp") == 0;
	const int tc = (int)(tp * cp), pp_stride = pp_inner ? tc : tc * t->dp,
		  dp_stride = pp_inner ? tc * (int)pp : tc;
	const int64_t ep = gc_config_int(c, "train.ep"), E = gc_config_int(c, "train.experts");
	if (ep > t->dp || t->dp % ep != 0)
		return gc_config_error(c, "train.ep", errmsg,
				       "EP %lld does not divide DP %d (= %lld GPUs / TP %lld / PP %lld)",
				       (long long)ep, t->dp, (long long)n, (long long)tp,
				       (long long)pp);
	if (ep > 1 && E % ep != 0)
		return gc_config_error(c, "train.experts", errmsg,
				       "%lld experts do not spread evenly over EP %lld", (long long)E,
				       (long long)ep);
	if (ep > 1 && gc_config_int(c, "train.topk") > E)
		return gc_config_error(c, "train.topk", errmsg, "a token cannot go to %lld of %lld experts",
				       (long long)gc_config_int(c, "train.topk"), (long long)E);
	t->ep = (int)ep;
	/* one micro-batch's activations (bf16) of a CP rank's share of the
	 * sequence: the TP allreduce and PP message */
	const double b = (double)gc_config_int(c, "train.micro_batch");
	double act = 2.0 * b * (double)(seq / cp) * (double)hidden;
	uint64_t mb = (uint64_t)gc_config_int(c, "train.micro_batches");
	/* the fullest stage's share of the parameters, split over TP */
	double per = floor(gc_config_double(c, "train.params") * (double)t->stage_layers / (double)L /
			   (double)tp);
	double grads = per * (double)gc_config_int(c, "train.grad_bytes");
	const double most = (double)GS_MAX_BYTES; /* what a schedule takes */
	if (act > most || grads > most)
		return gc_config_error(c, act > most ? "train.hidden" : "train.params", errmsg,
				       "a message of %.3g bytes is beyond the largest size, 2^48 "
				       "bytes (256TiB)",
				       act > most ? act : grads);
	t->nph = 0;
	const uint64_t sl = (uint64_t)t->stage_layers;
	uint64_t tp_calls = 4 * sl * mb;
	if (!gc_config_bool(c, "train.sequence_parallel"))
		add_phase(t, "tp", "allreduce", (uint64_t)act, tp_calls, flat((int)tp, 1));
	else { /* each allreduce as an allgather and a reduce-scatter */
		add_phase(t, "tp-ag", "allgather", (uint64_t)act, tp_calls, flat((int)tp, 1));
		add_phase(t, "tp-rs", "reducescatter", (uint64_t)act, tp_calls, flat((int)tp, 1));
	}
	if (cp > 1) {
		/* K or V of a CP rank's tokens, bf16, for its TP rank's key-value
		 * heads (at least one: replicated when TP exceeds them) */
		const int64_t kv_rank = (kvh + tp - 1) / tp;
		const double kv = 2.0 * b * (double)(seq / cp) * (double)(kv_rank * (hidden / heads));
		const layout g = flat((int)cp, (int)tp);
		if (strcmp(gc_config_str(c, "train.cp_comm"), "p2p") == 0) {
			/* ring attention: a K-V block on to the next CP rank in each
			 * of CP - 1 rounds forward; backward the block and its
			 * gradient, and the gradient's last hop home */
			const uint64_t rounds = (uint64_t)(cp - 1) * sl * mb;
			set_bwd_calls(add_phase(t, "cp-fwd", "sendrecv", (uint64_t)(2.0 * kv), rounds, g),
				      0);
			set_bwd_calls(add_phase(t, "cp-bwd", "sendrecv", (uint64_t)(4.0 * kv), rounds, g),
				      rounds);
			set_bwd_calls(add_phase(t, "cp-dkv", "sendrecv", (uint64_t)(2.0 * kv), sl * mb, g),
				      sl * mb);
		} else {
			/* K and V gathered over the whole sequence forward and again
			 * backward, dK and dV reduce-scattered */
			add_phase(t, "cp-ag", "allgather", (uint64_t)(kv * (double)cp), 4 * sl * mb, g);
			set_bwd_calls(add_phase(t, "cp-rs", "reducescatter", (uint64_t)(kv * (double)cp),
						2 * sl * mb, g),
				      2 * sl * mb);
		}
	}
	add_phase(t, "pp", "sendrecv", (uint64_t)act, 2 * mb * (uint64_t)t->vstages,
		  flat((int)pp, pp_stride));
	if (ep > 1) {
		/* every layer's MoE block: a token-expert message of one bf16 token per
		 * pair; forward dispatch and combine, and their mirror images for the
		 * gradients backward */
		uint64_t tok = (uint64_t)gc_config_int(c, "train.micro_batch") * (uint64_t)(seq / cp);
		if (gc_config_bool(c, "train.sequence_parallel"))
			tok /= (uint64_t)tp; /* each TP rank routes its share of the sequence */
		t->moe_tokens = tok;
		uint64_t calls = 2 * (uint64_t)t->stage_layers * mb;
		uint64_t msg = 2 * (uint64_t)gc_config_int(c, "train.hidden");
		add_phase(t, "ep-dispatch", "dispatch", msg, calls, flat((int)ep, dp_stride));
		add_phase(t, "ep-combine", "combine", msg, calls, flat((int)ep, dp_stride));
	}
	/* gradients: the dense share over all of DP, the experts' over the
	 * expert-data-parallel group (the GPUs holding the same experts: every
	 * EP-th of the DP group); the CP ranks hold the same weights, so each
	 * group takes them in too (with_cp) */
	double frac = ep > 1 ? gc_config_double(c, "train.expert_fraction") : 0.0;
	/* a GPU holds 1 / EP of its stage's experts (split over TP as well,
	 * Megatron's default expert tensor parallelism) */
	double dense = floor(per * (1.0 - frac)), expert = floor((per - dense) / (double)ep);
	const int edp = t->dp / (int)ep, estride = dp_stride * (int)ep;
	double gb = (double)gc_config_int(c, "train.grad_bytes");
	const char *shard = gc_config_str(c, "train.sharding");
	const bool sharded = strcmp(shard, "none") != 0;
	if (sharded && gc_config_bool(c, "train.distributed_optimizer"))
		return gc_config_error(c, "train.distributed_optimizer", errmsg,
				       "is ZeRO-1, which train.sharding %s includes; leave it false",
				       shard);
	if (!sharded && gc_config_is_set(c, "train.shard_group"))
		return gc_config_error(c, "train.shard_group", errmsg,
				       "applies with train.sharding zero2 or zero3");
	if (sharded) {
		/* FSDP: per micro-batch and layer, the layer's parameters
		 * gathered (twice with zero3: forward and backward) and its
		 * gradients scattered; HSDP: over groups of G DP ranks, each
		 * shard then allreduced over the replicas */
		const int64_t G0 = gc_config_int(c, "train.shard_group");
		const int G = G0 > 0 ? (int)G0 : t->dp;
		if (G0 > t->dp || t->dp % G != 0)
			return gc_config_error(c, "train.shard_group", errmsg,
					       "%lld does not divide DP %d", (long long)G0, t->dp);
		uint64_t gathers = strcmp(shard, "zero3") ? 1 : 2;
		double ld = floor(dense / (double)sl), le = floor(expert / (double)sl);
		const layout sg = with_cp(t, G, dp_stride);
		add_phase(t, "dp-ag", "allgather", (uint64_t)(ld * 2.0), mb * sl * gathers, sg);
		add_phase(t, "dp-rs", "reducescatter", (uint64_t)(ld * gb), mb * sl, sg);
		add_phase(t, "dp-ar", "allreduce", (uint64_t)floor(ld * gb / (double)(G * t->cp)),
			  mb * sl, flat(t->dp / G, dp_stride * G));
		add_phase(t, "dp-exp-ag", "allgather", (uint64_t)(le * 2.0), mb * sl * gathers,
			  with_cp(t, edp, estride));
		add_phase(t, "dp-exp-rs", "reducescatter", (uint64_t)(le * gb), mb * sl,
			  with_cp(t, edp, estride));
	} else if (!gc_config_bool(c, "train.distributed_optimizer")) {
		add_bucketed(t, "dp", "allreduce", (uint64_t)(dense * gb), with_cp(t, t->dp, dp_stride));
		add_bucketed(t, "dp-exp", "allreduce", (uint64_t)(expert * gb), with_cp(t, edp, estride));
	} else { /* ZeRO-1: gradients scattered, bf16 parameters gathered */
		const layout dg = with_cp(t, t->dp, dp_stride), eg = with_cp(t, edp, estride);
		add_bucketed(t, "dp-rs", "reducescatter", (uint64_t)(dense * gb), dg);
		add_bucketed(t, "dp-ag", "allgather", (uint64_t)(dense * 2.0), dg);
		add_bucketed(t, "dp-exp-rs", "reducescatter", (uint64_t)(expert * gb), eg);
		add_bucketed(t, "dp-exp-ag", "allgather", (uint64_t)(expert * 2.0), eg);
	}
	if (gc_config_bool(c, "train.tp_overlap") &&
	    (tp == 1 || !gc_config_bool(c, "train.sequence_parallel")))
		return gc_config_error(c, "train.tp_overlap", errmsg,
				       "overlaps sequence parallelism's collectives: it applies with "
				       "train.tp > 1 and train.sequence_parallel true");
	return GC_OK;
}

/* Run phase ph: the scenario with the phase's collective on top. In a
 * sweep's cell (o->sweep_cell), *unused keeps the keys every phase so far
 * left unused. */
static gc_status run_phase(gm_train *t, const gm_run_opts *o, gm_train_phase *ph, char ***unused,
			   char **errmsg)
{
	GPtrArray *sets = g_ptr_array_new_with_free_func(g_free);
	for (size_t i = 0; o->sets && o->sets[i]; i++)
		g_ptr_array_add(sets, g_strdup(o->sets[i]));
	/* the caller's sets keep where they stand; the phase's own follow */
	size_t ncaller = sets->len;
	g_ptr_array_add(sets, g_strdup("workload=collective"));
	g_ptr_array_add(sets, g_strdup_printf("collective.op=%s", ph->op));
	if (ph->rest_bytes)
		g_ptr_array_add(sets, g_strdup_printf("collective.sizes=%" PRIu64 "B,%" PRIu64 "B",
						      ph->bytes, ph->rest_bytes));
	else
		g_ptr_array_add(sets, g_strdup_printf("collective.sizes=%" PRIu64 "B", ph->bytes));
	g_ptr_array_add(sets, g_strdup_printf("collective.group.size=%d", ph->group_size));
	g_ptr_array_add(sets, g_strdup_printf("collective.group.stride=%d", ph->group_stride));
	g_ptr_array_add(sets, g_strdup_printf("collective.group.block=%d", ph->group_block));
	g_ptr_array_add(sets, g_strdup_printf("collective.group.block_stride=%d",
					      ph->group_block_stride));
	g_ptr_array_add(sets, g_strdup("collective.compare=none"));
	if (!strcmp(ph->op, "sendrecv"))
		g_ptr_array_add(sets, g_strdup("collective.algo=ring"));
	if (!strcmp(ph->op, "dispatch") || !strcmp(ph->op, "combine")) {
		const gc_config *c = t->cfg;
		g_ptr_array_add(sets, g_strdup_printf("collective.algo=%s",
						      gc_config_str(c, "train.ep_algo")));
		g_ptr_array_add(sets, g_strdup_printf("moe.max_nodes=%lld",
						      (long long)gc_config_int(c, "train.ep_max_nodes")));
		g_ptr_array_add(sets, g_strdup_printf("moe.tokens=%" PRIu64, t->moe_tokens));
		g_ptr_array_add(sets, g_strdup_printf("moe.topk=%lld",
						      (long long)gc_config_int(c, "train.topk")));
		g_ptr_array_add(sets, g_strdup_printf("moe.experts=%lld",
						      (long long)gc_config_int(c, "train.experts")));
	}
	g_ptr_array_add(sets, NULL);
	const char **where = g_new0(const char *, sets->len);
	for (size_t i = 0; o->set_where && i < ncaller; i++)
		where[i] = o->set_where[i];
	gm_run_opts po = *o;
	po.sets = (const char *const *)sets->pdata;
	po.set_where = where;
	po.trace_path = NULL;
	po.links = false;
	po.step_phase = true;
	gm_run *r = NULL;
	char *err = NULL;
	gc_status st = gm_run_scenario(t->path, &po, &r, &err);
	if (st != GC_OK) {
		*errmsg = g_strdup_printf("%s (step phase %s: %s of %" PRIu64
					  " B in groups of %d at stride %d)",
					  err, ph->name, ph->op, ph->bytes, ph->group_size,
					  ph->group_stride);
		g_free(err);
	} else {
		ph->call_us = r->pts[0].time_us;
		ph->rest_us = ph->rest_bytes ? r->pts[1].time_us : 0;
		ph->algo = r->pts[0].algo;
		ph->proto = r->pts[0].proto;
		ph->rest_algo = ph->rest_bytes ? r->pts[1].algo : ph->algo;
		ph->rest_proto = ph->rest_bytes ? r->pts[1].proto : ph->proto;
		ph->total_us = (double)ph->calls * ph->call_us + ph->rest_us;
		t->analytical = r->analytical;
		if (o->sweep_cell) {
			char *const *both[2] = {*unused, r->unused};
			char **common = ph == &t->ph[0] ? g_strdupv(r->unused)
							 : gm_keyuse_common(both, 2);
			g_strfreev(*unused);
			*unused = common;
		}
	}
	gm_run_free(r);
	g_ptr_array_free(sets, TRUE);
	g_free(where);
	return st;
}

/* The total of the phases of one parallelism ("tp" for tp, tp-ag and
 * tp-rs) in run t, 0 when the step has none. */
static double phase_us(const gm_train *t, const char *name)
{
	double sum = 0;
	size_t n = strlen(name);
	for (int i = 0; i < t->nph; i++)
		if (!strncmp(t->ph[i].name, name, n) &&
		    (t->ph[i].name[n] == 0 || t->ph[i].name[n] == '-'))
			sum += t->ph[i].total_us;
	return sum;
}

/* train.mfu > 0: compute per GPU and the communication it leaves exposed
 * (gm_train.h). Active parameters: the dense share and topk / experts of
 * the experts' share. Attention: causal, 6 s h FLOPs per layer and token
 * (QK^T and PV, 4 s h forward over all keys, half of them masked; the
 * backward pass twice the forward). */
double gm_train_gpu_flops(const gc_config *c, const gt_gpu **gpu)
{
	const char *name = gc_config_str(c, "train.gpu");
	const gt_gpu *g = strcmp(name, "auto") != 0 ? gt_gpu_find(name)
				: gt_gpu_of_preset(gc_config_str(c, "topology.preset"));
	if (!g)
		g = gt_gpu_find("h100");
	if (gpu)
		*gpu = g;
	double f = gc_config_double(c, "train.gpu_flops");
	return f > 0 ? f : g->bf16_flops;
}

static gc_status overlap(gm_train *t, char **errmsg)
{
	const gc_config *c = t->cfg;
	double mfu = gc_config_double(c, "train.mfu");
	if (mfu <= 0)
		return GC_OK;
	double P = gc_config_double(c, "train.params");
	double frac = t->ep > 1 ? gc_config_double(c, "train.expert_fraction") : 0.0;
	double active = P * (1.0 - frac);
	if (frac > 0)
		active += P * frac * (double)gc_config_int(c, "train.topk") /
			  (double)gc_config_int(c, "train.experts");
	/* tokens one model replica (TP x CP x PP GPUs) processes per step */
	const double seq = (double)gc_config_int(c, "train.seq"),
		     h = (double)gc_config_int(c, "train.hidden"),
		     L = (double)gc_config_int(c, "train.layers"),
		     M = (double)gc_config_int(c, "train.micro_batches");
	double tokens = (double)gc_config_int(c, "train.micro_batch") * seq * M;
	/* the fullest stage's share of the layers, split over TP and CP */
	double share = (double)t->stage_layers / L / (double)t->tp / (double)t->cp;
	const gt_gpu *gpu = NULL;
	double rate = gm_train_gpu_flops(c, &gpu) * mfu, lin = rate;
	if (!strcmp(gc_config_str(c, "train.precision"), "fp8")) {
		if (gc_config_double(c, "train.gpu_flops") > 0)
			return gc_config_error(c, "train.precision", errmsg,
					       "fp8 takes train.gpu's FP8 FLOP/s, and train.gpu_flops "
					       "gives BF16's only; give train.gpu instead");
		if (gpu->fp8_flops <= 0)
			return gc_config_error(c, "train.precision", errmsg,
					       "the %s has no FP8 tensor cores (FP8 GEMMs start with "
					       "Hopper); give train.precision bf16 or another train.gpu",
					       gpu->model);
		lin = gpu->fp8_flops * mfu;
	}
	t->attn_us = 6.0 * L * seq * h * tokens * share / rate * 1e6;
	t->compute_us = 6.0 * active * tokens * share / lin * 1e6 + t->attn_us;
	t->compute_bf16_us = 6.0 * active * tokens * share / rate * 1e6 + t->attn_us;
	/* ring attention: each of the CP rounds of a layer and micro-batch
	 * computes an equal share of the rank's attention (the causal
	 * balance of two chunks per rank), forward one third of it, backward
	 * two; a round's messages run beside it */
	const double ml = M * (double)t->stage_layers; /* layer passes per step */
	double round = t->attn_us / (ml * (double)t->cp) / 3.0;
	/* TP overlap: each of a layer's four sequence-parallel collectives per
	 * pass beside a quarter of the layer's GEMMs (forward; backward twice
	 * that) */
	double gemm = (t->compute_us - t->attn_us) / ml / 3.0 / 4.0;
	bool tpo = gc_config_bool(c, "train.tp_overlap");
	double dp = 0, in_ops = 0, in_fwd = 0;
	gm_train_phase *pp = NULL;
	for (int i = 0; i < t->nph; i++) {
		gm_train_phase *p = &t->ph[i];
		if (!strcmp(p->name, "cp-fwd"))
			p->hide_us = round;
		else if (!strcmp(p->name, "cp-bwd"))
			p->hide_bwd_us = 2.0 * round;
		else if (tpo && !strncmp(p->name, "tp-", 3)) {
			p->hide_us = gemm;
			p->hide_bwd_us = 2.0 * gemm;
		}
		if (strncmp(p->name, "dp", 2) == 0) {
			dp += p->total_us;
			continue;
		}
		if (!strcmp(p->name, "pp")) {
			pp = p;
			continue;
		}
		/* the rest runs inside the layers' forward and backward ops */
		double fwd = (double)(p->calls - p->bwd_calls) * fmax(0.0, p->call_us - p->hide_us);
		p->exposed_us = fwd + (double)p->bwd_calls * fmax(0.0, p->call_us - p->hide_bwd_us) +
				p->rest_us;
		in_ops += p->exposed_us;
		in_fwd += fwd;
	}
	/* the pipeline: every op a chunk's compute and its share of the
	 * exposed communication, run in 1F1B order with free messages (the
	 * bubble: what the schedule adds to the stage's own work), then with
	 * the PP messages (what they add) */
	double work = t->compute_us + in_ops, pipe0 = work, pipe1 = work;
	if (t->pp > 1) {
		const double ops = M * (double)t->vstages;
		gm_pipe_params pp0 = {.stages = t->pp, .chunks = t->vstages,
				      .micro_batches = (int)M,
				      .fwd_us = (t->compute_us / 3.0 + in_fwd) / ops,
				      .bwd_us = (t->compute_us * 2.0 / 3.0 + in_ops - in_fwd) / ops};
		gc_status st = gm_pipe_run(&pp0, &pipe0, errmsg);
		gm_pipe_params pp1 = pp0;
		pp1.p2p_us = pp ? pp->call_us : 0;
		if (st == GC_OK)
			st = gm_pipe_run(&pp1, &pipe1, errmsg);
		if (st != GC_OK)
			return st;
	}
	t->bubble_us = fmax(0.0, pipe0 - work);
	t->pp_exposed_us = fmax(0.0, pipe1 - pipe0);
	if (pp)
		pp->exposed_us = t->pp_exposed_us;
	/* the DP phases. Sharded (FSDP): every micro-batch gathers and
	 * scatters every layer, prefetched, beside the whole compute.
	 * Bucketed (DDP, ZeRO-1): gradients are accumulated over the
	 * micro-batches and reduced in the last one's backward pass only
	 * (DDP's no_sync, Megatron-LM's grad sync enabled for the last
	 * micro-batch), and ZeRO-1's updated parameters gathered beside the
	 * first micro-batch's forward pass (Megatron's overlapped param
	 * gather); what outlasts those windows is exposed */
	bool sharded = strcmp(gc_config_str(c, "train.sharding"), "none") != 0;
	double dp_exposed;
	if (sharded)
		dp_exposed = fmax(0.0, dp - t->compute_us);
	else {
		double gather = phase_us(t, "dp-ag") + phase_us(t, "dp-exp-ag");
		dp_exposed = fmax(0.0, dp - gather - t->compute_us * 2.0 / 3.0 / M) +
			     fmax(0.0, gather - t->compute_us / 3.0 / M);
	}
	t->exposed_us = in_ops + t->pp_exposed_us + dp_exposed;
	return GC_OK;
}

/* resilience.*: the run of resilience.steps steps with failures and
 * checkpoints (gm_resil), the step's time being its compute, bubble and
 * exposed communication (with train.mfu) or its communication alone. */
static gc_status resilience(gm_train *t, char **errmsg)
{
	const gc_config *c = t->cfg;
	double mtbf_h = gc_config_double(c, "resilience.node_mtbf");
	if (mtbf_h <= 0)
		return GC_OK;
	double W = gc_config_bw(c, "resilience.storage");
	if (W <= 0)
		return gc_config_error(t->cfg, "resilience.node_mtbf", errmsg,
				       "failures need the checkpoint's storage bandwidth: give "
				       "resilience.storage (the rate the whole job writes and reads its "
				       "checkpoint at)");
	double B = (double)gc_config_bytes(c, "resilience.checkpoint");
	if (B <= 0)
		B = 14.0 * gc_config_double(c, "train.params");
	double step_us = t->compute_us > 0 ? t->compute_us + t->bubble_us + t->exposed_us
					    : t->total_us;
	gm_resil_in *in = &t->rin;
	in->step_s = step_us * 1e-6;
	in->nodes = t->topo.nodes;
	in->node_mtbf_s = mtbf_h * 3600.0;
	in->timeout_s = (double)gc_config_time(c, "resilience.timeout") * 1e-12;
	in->restart_s = (double)gc_config_time(c, "resilience.restart") * 1e-12;
	in->ckpt_s = B / W;
	in->interval = gc_config_int(c, "resilience.interval");
	in->steps = gc_config_int(c, "resilience.steps");
	in->repair_s = (double)gc_config_time(c, "resilience.repair") * 1e-12;
	in->spares = (int)gc_config_int(c, "resilience.spares");
	in->seed = (uint64_t)gc_config_int(c, "seed");
	/* a segment the job almost never gets through would never end */
	double M = in->node_mtbf_s / in->nodes;
	double seg = (double)(in->interval > 0 ? in->interval : 1) * in->step_s + in->ckpt_s;
	if (seg > 20.0 * M)
		return gc_config_error(t->cfg, "resilience.node_mtbf", errmsg,
				       "the job fails every %.3g s on average (%d nodes), and a stretch "
				       "of work between checkpoints takes %.3g s: the run would hardly "
				       "ever finish; check resilience.node_mtbf (hours), "
				       "resilience.interval and resilience.storage",
				       M, in->nodes, seg);
	gm_resil_run(in, &t->rs);
	t->resil = true;
	t->fail_step = gc_config_int(c, "resilience.fail_step");
	if (t->fail_step > 0) /* the steps since the last checkpoint, and half its own */
		t->fail_lost_s = ((double)((t->fail_step - 1) % t->rs.interval) + 0.5) * in->step_s;
	return GC_OK;
}

gc_status gm_train_run(const char *path, const gm_run_opts *o, gm_train **out, char **errmsg)
{
	*out = NULL;
	gm_train *t = g_new0(gm_train, 1);
	t->path = g_strdup(path);
	gc_status st = gm_scenario_load_at(path, o->sets, o->set_where, &t->cfg, errmsg);
	if (st == GC_OK && strcmp(gc_config_str(t->cfg, "workload"), "step") != 0)
		st = gc_config_error(t->cfg, "workload", errmsg,
				     "is '%s'; a training step needs workload: step",
				     gc_config_str(t->cfg, "workload"));
	if (st == GC_OK)
		st = gm_keyuse_check_step(t->cfg, o->sweep_cell ? &t->unused : NULL, errmsg);
	if (st == GC_OK)
		st = gt_topo_from_config(t->cfg, &t->topo, errmsg);
	if (st == GC_OK)
		st = plan(t, errmsg);
	/* every phase's size, before any phase runs (a K-V gather over a
	 * long sequence can outgrow the activations checked in plan) */
	for (int i = 0; i < t->nph && st == GC_OK; i++)
		if (t->ph[i].bytes > GS_MAX_BYTES || t->ph[i].rest_bytes > GS_MAX_BYTES)
			st = gc_config_error(t->cfg,
					     !strncmp(t->ph[i].name, "dp", 2) ? "train.params"
									   : "train.hidden",
					     errmsg,
					     "step phase %s: a message of %" PRIu64 " bytes is beyond "
					     "the largest size, 2^48 bytes (256TiB)",
					     t->ph[i].name, t->ph[i].bytes);
	char **phases_unused = NULL;
	for (int i = 0; i < t->nph && st == GC_OK; i++) {
		if (o->phase_progress)
			o->phase_progress(o->progress_ctx, (size_t)i, (size_t)t->nph, t->ph[i].name);
		st = run_phase(t, o, &t->ph[i], &phases_unused, errmsg);
		t->total_us += t->ph[i].total_us;
	}
	if (phases_unused) { /* after the step's own */
		GPtrArray *all = g_ptr_array_new();
		for (char **p = t->unused; p && *p; p++)
			g_ptr_array_add(all, *p);
		for (char **p = phases_unused; *p; p++)
			g_ptr_array_add(all, *p);
		g_ptr_array_add(all, NULL);
		g_free(t->unused);
		g_free(phases_unused);
		t->unused = (char **)g_ptr_array_free(all, FALSE);
	}
	if (st == GC_OK)
		st = overlap(t, errmsg);
	if (st == GC_OK)
		st = resilience(t, errmsg);
	if (st != GC_OK) {
		gm_train_free(t);
		return st;
	}
	*out = t;
	return GC_OK;
}

/* The model FLOPs utilization of the whole step (compute, bubble and
 * exposed communication), in % of the BF16 peak: the kernels' train.mfu
 * scaled by the share of the step their FLOPs would take at BF16's rate
 * (with train.precision fp8 the FP8 GEMMs do them faster, and the MFU can
 * pass train.mfu, as FP8 runs quoted against the BF16 peak do). */
static double e2e_mfu(const gm_train *t)
{
	double step = t->compute_us + t->bubble_us + t->exposed_us;
	return step > 0 ? 100.0 * gc_config_double(t->cfg, "train.mfu") * t->compute_bf16_us / step : 0;
}

static void header(const gm_train *t, GString *g)
{
	const gc_config *c = t->cfg;
	char b1[32];
	gm_run_format_head(t->path, c, &t->topo, g);
	g_string_append_printf(
		g,
		"# step      : %.4g parameters, %lld layers, hidden %lld, %lld x %lld sequences of "
		"%lld tokens; TP %d x ",
		gc_config_double(c, "train.params"), (long long)gc_config_int(c, "train.layers"),
		(long long)gc_config_int(c, "train.hidden"),
		(long long)gc_config_int(c, "train.micro_batches"),
		(long long)gc_config_int(c, "train.micro_batch"),
		(long long)gc_config_int(c, "train.seq"), t->tp);
	if (t->cp > 1)
		g_string_append_printf(g, "CP %d (%s) x ", t->cp, gc_config_str(c, "train.cp_comm"));
	g_string_append_printf(g, "PP %d x DP %d = %d GPUs (%s), EP %d; gradients %lld B, ", t->pp,
			       t->dp, t->topo.ngpus, gc_config_str(c, "train.order"), t->ep,
			       (long long)gc_config_int(c, "train.grad_bytes"));
	int64_t G = gc_config_int(c, "train.shard_group");
	if (strcmp(gc_config_str(c, "train.sharding"), "none") != 0 && G > 0 && G < t->dp)
		g_string_append_printf(g, "sharded over groups of %lld of the DP ranks, replicated "
					  "across them (%s, hybrid), one unit per layer\n",
				       (long long)G, gc_config_str(c, "train.sharding"));
	else if (strcmp(gc_config_str(c, "train.sharding"), "none") != 0)
		g_string_append_printf(g, "sharded over DP (%s), one unit per layer\n",
				       gc_config_str(c, "train.sharding"));
	else
		g_string_append_printf(g, "buckets %s\n",
				       gc_fmt_bytes(gc_config_bytes(c, "train.bucket"), b1, sizeof(b1)));
	if (t->stage_layers * t->pp != gc_config_int(c, "train.layers"))
		g_string_append_printf(g, "# stages    : %lld layers over %d stages, the fullest of %d "
					  "sets the pace\n",
				       (long long)gc_config_int(c, "train.layers"), t->pp, t->stage_layers);
	g_string_append_printf(g, "# model     : %s, algo %s, protocol %s%s\n",
			       t->analytical ? "analytical (closed form)"
					     : gc_config_str(c, "sim.fidelity"),
			       gc_config_str(c, "collective.algo"),
			       gc_config_str(c, "collective.protocol"),
			       strcmp(gc_config_str(c, "collective.tuner"), "nccl") != 0
				       ? ""
				       : ", NCCL's model choosing (allreduce, allgather, "
					 "reduce-scatter)");
}

/* The spares' line (resilience.repair > 0), after prefix. */
static void format_spares(const gm_train *t, const char *prefix, GString *g)
{
	const gm_resil_in *in = &t->rin;
	const gm_resil_out *o = &t->rs;
	if (!t->resil || in->repair_s <= 0)
		return;
	g_string_append_printf(g,
			       "# %sspares    : %d hot spare node%s, a failed node out %.1f h: %lld of "
			       "%lld failures found no spare free and waited %.2f h for a node in "
			       "all\n",
			       prefix, in->spares, in->spares == 1 ? "" : "s", in->repair_s / 3600.0,
			       (long long)o->waits, (long long)o->failures, o->wait_s / 3600.0);
}

/* One failure itemised (resilience.fail_step), after prefix. */
static void format_failure(const gm_train *t, const char *prefix, GString *g)
{
	const gm_resil_in *in = &t->rin;
	const gm_resil_out *o = &t->rs;
	if (!t->resil || t->fail_step <= 0)
		return;
	int64_t ck = (t->fail_step - 1) / o->interval * o->interval;
	double total = in->timeout_s + in->restart_s + in->ckpt_s + t->fail_lost_s;
	g_string_append_printf(
		g,
		"# %sone failure in the middle of step %lld: its collectives stall %.1f s until the "
		"watchdog fires, teardown and relaunch %.1f s, the checkpoint of step %lld read back "
		"in %.1f s, %.1f s of work since it done again: %.1f s lost (%.2f steps)\n",
		prefix, (long long)t->fail_step, in->timeout_s, in->restart_s, (long long)ck,
		in->ckpt_s, t->fail_lost_s, total, total / in->step_s);
}

/* The resilience lines of the table (t->resil). */
static void format_resil(const gm_train *t, GString *g)
{
	const gm_resil_in *in = &t->rin;
	const gm_resil_out *o = &t->rs;
	g_string_append_printf(g,
			       "# failures  : a node fails every %.0f h, %d nodes: the job every %.2f h; "
			       "a checkpoint takes %.1f s to write or read back\n",
			       in->node_mtbf_s / 3600.0, in->nodes, o->job_mtbf_s / 3600.0, in->ckpt_s);
	g_string_append_printf(
		g,
		"# checkpoint every %lld steps (Daly's optimum %.0f, Young's %.0f): %lld steps of "
		"%.3f s (%.2f h of work) take %.2f h with %lld failures, goodput %.2f %%; lost: "
		"work done again %.2f h, waiting for the watchdog %.2f h, restarts and reloads %.2f "
		"h, checkpoint writes %.2f h\n",
		(long long)o->interval, o->daly_steps, o->young_steps, (long long)in->steps,
		in->step_s, o->useful_s / 3600.0, o->wall_s / 3600.0, (long long)o->failures,
		100.0 * o->goodput, o->lost_s / 3600.0, o->stall_s / 3600.0, o->restart_s / 3600.0,
		o->ckpt_s / 3600.0);
	format_spares(t, "", g);
	format_failure(t, "", g);
}

void gm_train_format_table(const gm_train *t, void *gstring_out)
{
	GString *g = gstring_out;
	header(t, g);
	g_string_append(g, "#\n");
	g_string_append(g, "# phase        collective     groups x ranks (stride)   bytes/call      calls"
			   "   time/call(us)     total(us)   share  algorithm\n");
	for (int i = 0; i < t->nph; i++) {
		const gm_train_phase *p = &t->ph[i];
		char grp[64], calls[32];
		if (p->group_block > 0) /* two levels: blocks at the stride, then apart */
			snprintf(grp, sizeof(grp), "%d x %d (%d x %d, %d)",
				 t->topo.ngpus / p->group_size, p->group_size, p->group_block,
				 p->group_stride, p->group_block_stride);
		else
			snprintf(grp, sizeof(grp), "%d x %d (%d)", t->topo.ngpus / p->group_size,
				 p->group_size, p->group_stride);
		if (p->rest_bytes)
			snprintf(calls, sizeof(calls), "%" PRIu64 "+1", p->calls);
		else
			snprintf(calls, sizeof(calls), "%" PRIu64, p->calls);
		g_string_append_printf(g, "  %-11s  %-13s  %-24s %12" PRIu64 " %10s %15.2f %13.1f %6.1f%%  %s/%s\n",
				       p->name, p->op, grp, p->bytes, calls, p->call_us, p->total_us,
				       t->total_us > 0 ? 100.0 * p->total_us / t->total_us : 0.0,
				       gs_algo_name((gs_algo)p->algo), gm_proto_get((gm_proto)p->proto)->name);
		if (p->rest_bytes)
			g_string_append_printf(g, "#              the last bucket: %" PRIu64 " B in %.2f us (%s/%s)\n",
					       p->rest_bytes, p->rest_us, gs_algo_name((gs_algo)p->rest_algo),
					       gm_proto_get((gm_proto)p->rest_proto)->name);
	}
	if (t->nph == 0)
		g_string_append(g, "#  (no phase: TP, PP and DP are all 1)\n");
	g_string_append_printf(g, "# step communication: %.1f us (%.3f s), phases one after the other, "
			       "no overlap with compute\n",
			       t->total_us, t->total_us * 1e-6);
	if (t->compute_us > 0) {
		double step = t->compute_us + t->bubble_us + t->exposed_us;
		const gt_gpu *gpu = NULL;
		double flops = gm_train_gpu_flops(t->cfg, &gpu);
		char fp8[64] = "";
		if (!strcmp(gc_config_str(t->cfg, "train.precision"), "fp8"))
			snprintf(fp8, sizeof(fp8), ", the linear layers' GEMMs FP8 at %.0f",
				 gpu->fp8_flops * 1e-12);
		g_string_append_printf(
			g,
			"# with compute at %.0f %% MFU of %.0f TFLOPS (%s%s) (6 FLOPs per active "
			"parameter and token, and "
			"causal attention 6 seq hidden per layer and token): compute %.1f ms (attention "
			"%.1f ms), exposed communication %.1f ms (DP overlapping the %s%s%s), ",
			100.0 * gc_config_double(t->cfg, "train.mfu"), flops * 1e-12,
			gc_config_double(t->cfg, "train.gpu_flops") > 0 ? "train.gpu_flops" : gpu->model,
			fp8,
			t->compute_us * 1e-3,
			t->attn_us * 1e-3, t->exposed_us * 1e-3,
			strcmp(gc_config_str(t->cfg, "train.sharding"), "none") != 0
				? "forward and backward passes"
			: gc_config_bool(t->cfg, "train.distributed_optimizer")
				? "last micro-batch's backward pass, the parameter gathers the first's "
				  "forward pass"
				: "last micro-batch's backward pass",
			t->cp > 1 && !strcmp(gc_config_str(t->cfg, "train.cp_comm"), "p2p")
				? ", ring attention's rounds their blocks' attention"
				: "",
			gc_config_bool(t->cfg, "train.tp_overlap") ? ", TP collectives their GEMMs" : "");
		if (t->pp > 1) {
			char sched[64] = "1F1B";
			if (t->vstages > 1)
				snprintf(sched, sizeof(sched), "interleaved 1F1B, %d chunks per stage",
					 t->vstages);
			g_string_append_printf(g, "pipeline bubble %.1f ms (simulated %s; the PP "
						  "messages add %.1f ms to it, counted as exposed), ",
					       t->bubble_us * 1e-3, sched, t->pp_exposed_us * 1e-3);
		}
		g_string_append_printf(g, "step %.1f ms, %.1f %% of it exposed communication; "
					  "end-to-end MFU %.1f %%\n",
				       step * 1e-3, 100.0 * t->exposed_us / step, e2e_mfu(t));
	}
	if (t->resil)
		format_resil(t, g);
}

/* The CSV's exposed_us of calls of call_us each of phase p: empty
 * without a compute estimate, and for the DP phases, whose exposure is
 * the step's (what of all of them outlasts the compute), not per phase. */
static void csv_exposed(const gm_train *t, const gm_train_phase *p, GString *g)
{
	if (t->compute_us > 0 && strncmp(p->name, "dp", 2) != 0)
		g_string_append_printf(g, "%.6f", p->exposed_us);
	g_string_append_c(g, '\n');
}

void gm_train_format_csv(const gm_train *t, void *gstring_out)
{
	GString *g = gstring_out;
	g_string_append(g, "phase,op,group_size,group_stride,bytes,calls,call_us,total_us,algo,protocol,"
			   "group_block,group_block_stride,exposed_us\n");
	for (int i = 0; i < t->nph; i++) {
		const gm_train_phase *p = &t->ph[i];
		/* the last bucket has its own row: the totals add up to the step */
		g_string_append_printf(g, "%s,%s,%d,%d,%" PRIu64 ",%" PRIu64 ",%.6f,%.6f,%s,%s,%d,%d,",
				       p->name, p->op, p->group_size, p->group_stride, p->bytes,
				       p->calls, p->call_us, p->total_us - p->rest_us,
				       gs_algo_name((gs_algo)p->algo),
				       gm_proto_get((gm_proto)p->proto)->name, p->group_block,
				       p->group_block_stride);
		csv_exposed(t, p, g);
		if (p->rest_bytes) {
			g_string_append_printf(g, "%s-last,%s,%d,%d,%" PRIu64 ",1,%.6f,%.6f,%s,%s,%d,%d,",
					       p->name, p->op, p->group_size, p->group_stride,
					       p->rest_bytes, p->rest_us, p->rest_us,
					       gs_algo_name((gs_algo)p->rest_algo),
					       gm_proto_get((gm_proto)p->rest_proto)->name,
					       p->group_block, p->group_block_stride);
			csv_exposed(t, p, g);
		}
	}
}

void gm_train_format_sweep(const char *key, const char *const *values, gm_train *const *runs,
			   size_t n, bool csv, void *gstring_out)
{
	GString *g = gstring_out;
	/* the first column: as wide as the key (two keys: "KEY1,KEY2"), 20 at least */
	const int w = (int)MAX(strlen(key), 20);
	/* columns: a phase split in two (sequence parallelism, the
	 * distributed optimizer) counts under its parallelism */
	static const char *const names[] = {"tp", "pp", "ep", "dp"};
	bool cp_col = false; /* the table's CP columns, where some run has CP */
	for (size_t k = 0; k < n; k++)
		cp_col |= runs[k]->cp > 1;
	if (csv) {
		g_string_append_printf(g, "%s,gpus,tp,pp,dp,ep,tp_us,pp_us,ep_us,dp_us,step_us,"
					  "compute_us,exposed_us,bubble_us,cp,cp_us,e2e_mfu_pct%s\n",
				       key, n > 0 && runs[0]->resil ? ",ckpt_steps,failures,goodput_pct"
								    : "");
	} else if (n > 0) {
		const gm_train *r0 = runs[0];
		g_string_append_printf(g, "# gcsim %s  scenario: %s, sweep of %s (%s)\n", GCSIM_VERSION,
				       gc_config_source_name(r0->path), key,
				       r0->analytical ? "closed form" : gc_config_str(r0->cfg, "sim.fidelity"));
		g_string_append(g, "# training step communication, phases one after the other\n");
		g_string_append_printf(g, "# %*s %7s %4s %3s %6s %4s", w, key, "gpus", "tp", "pp", "dp",
				       "ep");
		if (cp_col)
			g_string_append_printf(g, " %4s %12s", "cp", "cp(ms)");
		g_string_append_printf(g, " %12s %12s %12s %12s %12s", "tp(ms)", "pp(ms)", "ep(ms)",
				       "dp(ms)", "step(ms)");
		if (r0->compute_us > 0)
			g_string_append_printf(g, " %12s %12s %12s %7s", "compute(ms)", "exposed(ms)",
					       "bubble(ms)", "mfu(%)");
		if (r0->resil)
			g_string_append_printf(g, " %9s %9s %10s", "ckpt(st)", "failures", "goodput(%)");
		g_string_append(g, "\n");
	}
	for (size_t k = 0; k < n; k++) {
		const gm_train *r = runs[k];
		if (csv) {
			g_string_append_printf(g, "%s,%d,%d,%d,%d,%d", values[k], r->topo.ngpus, r->tp,
					       r->pp, r->dp, r->ep);
			for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
				g_string_append_printf(g, ",%.6f", phase_us(r, names[i]));
			g_string_append_printf(g, ",%.6f,%.6f,%.6f,%.6f,%d,%.6f,%.4f", r->total_us,
					       r->compute_us, r->exposed_us, r->bubble_us, r->cp,
					       phase_us(r, "cp"), e2e_mfu(r));
			if (runs[0]->resil)
				g_string_append_printf(g, ",%lld,%lld,%.6f", (long long)r->rs.interval,
						       (long long)r->rs.failures, 100.0 * r->rs.goodput);
			g_string_append_c(g, '\n');
			continue;
		}
		g_string_append_printf(g, "  %*s %7d %4d %3d %6d %4d", w, values[k], r->topo.ngpus, r->tp,
				       r->pp, r->dp, r->ep);
		if (cp_col)
			g_string_append_printf(g, " %4d %12.2f", r->cp, phase_us(r, "cp") * 1e-3);
		for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
			g_string_append_printf(g, " %12.2f", phase_us(r, names[i]) * 1e-3);
		g_string_append_printf(g, " %12.2f", r->total_us * 1e-3);
		if (r->compute_us > 0)
			g_string_append_printf(g, " %12.2f %12.2f %12.2f %7.1f", r->compute_us * 1e-3,
					       r->exposed_us * 1e-3, r->bubble_us * 1e-3, e2e_mfu(r));
		if (runs[0]->resil)
			g_string_append_printf(g, " %9lld %9lld %10.3f", (long long)r->rs.interval,
					       (long long)r->rs.failures, 100.0 * r->rs.goodput);
		g_string_append(g, "\n");
	}
	for (size_t k = 0; !csv && k < n; k++) {
		char *pre = g_strdup_printf("%s: ", values[k]);
		format_spares(runs[k], pre, g);
		format_failure(runs[k], pre, g);
		g_free(pre);
	}
}
