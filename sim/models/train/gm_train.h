/* SPDX-License-Identifier: MIT */
/*
 * gm_train: the communication of one training step (`workload: step`), a
 * Megatron-LM style job with tensor (TP), context (CP), pipeline (PP) and
 * data (DP) parallelism, as the collectives it issues, each run by gm_run
 * on the scenario's topology in its concurrent communicators.
 *
 * Rank layout (train.order, TP fastest, CP next; with CP 1 drop its
 * factor). tp-dp-pp, Megatron's default (tp-cp-ep-dp-pp): rank = p (TP CP
 * DP) + d (TP CP) + c TP + t, so a TP group is TP consecutive GPUs (stride
 * 1), a CP group every TP-th (stride TP), a DP group every (TP CP)-th GPU
 * of a pipeline stage and a PP group every (TP CP DP)-th GPU. tp-pp-dp,
 * Llama 3's [TP, CP, PP, DP]: rank = d (TP CP PP) + p (TP CP) + c TP + t,
 * PP groups at stride TP CP, DP groups at stride TP CP PP. EP groups are
 * the inner part of DP (DP's stride), the expert-data-parallel groups the
 * outer (DP's stride times EP). The CP ranks hold the same weights, so
 * every gradient group takes them in: CP x DP, one level (stride TP) under
 * tp-dp-pp, two under tp-pp-dp (blocks of CP at stride TP, DP's stride
 * apart; gs_params.group_block).
 * Layers that PP does not divide: a stage holds ceil(L / PP) at most, and
 * the fullest stage sets the pace: its calls, its share of the parameters
 * (P ceil(L / PP) / L over TP) and of the compute.
 *
 * Phases, per step of M micro-batches of b sequences of s tokens, hidden
 * size h, L layers, 2-byte activations, P parameters, g-byte gradients:
 * (with CP, s is a CP rank's s / CP tokens in tp, pp and ep)
 *   tp  allreduce of b s h 2 bytes in each TP group, 4 per layer and
 *       micro-batch (two in the forward pass, two in the backward pass:
 *       after attention and after the MLP), ceil(L / PP) layers per stage
 *   cp  with train.cp > 1, a K-V block is 2 b (s / CP) k d 2 bytes (k
 *       key-value heads per TP rank, at least one; d = h / heads). p2p
 *       (ring attention): CP - 1 sendrecv of a block per layer and
 *       micro-batch forward (cp-fwd), CP - 1 of the block and its gradient
 *       backward (cp-bwd), one of the gradient's last hop (cp-dkv), in CP
 *       groups; allgather (Llama 3's): K and V over the whole sequence,
 *       4 allgathers per layer and micro-batch (cp-ag) and 2
 *       reduce-scatters of their gradients (cp-rs)
 *   pp  sendrecv of b s h 2 bytes between consecutive stages, 2 per
 *       micro-batch (activations forward, their gradients backward), times
 *       train.virtual_stages (an interleaved pipeline crosses v times as
 *       many stage boundaries)
 *   ep  with train.ep > 1, every layer a MoE layer: dispatch and combine
 *       of one bf16 token (h 2 bytes) per token-expert pair in EP groups
 *       (stride TP, inside a DP group), 2 each per layer and micro-batch
 *       (forward, and the mirror exchange of the gradients backward)
 *   dp  allreduce of the stage's gradients, P / (TP PP) g bytes (the fullest
 *       stage's share when PP does not divide L), in buckets
 *       of train.bucket bytes (the last one holds the rest); with EP the
 *       train.expert_fraction of the parameters in experts, of which a GPU
 *       holds 1 / EP, over the expert-data-parallel group (DP / EP GPUs at
 *       stride TP EP) instead (dp-exp)
 * With train.sequence_parallel each TP allreduce becomes an allgather and a
 * reduce-scatter of the same activations (tp-ag, tp-rs); with
 * train.distributed_optimizer (ZeRO-1) the DP allreduce becomes a
 * reduce-scatter of the gradients and an allgather of the bf16 parameters,
 * P / (TP PP) 2 bytes (dp-rs, dp-ag), both in buckets.
 * With train.sharding (FSDP: zero3 FULL_SHARD, zero2 SHARD_GRAD_OP) the DP
 * phases are per layer instead: in every micro-batch, an allgather of the
 * layer's bf16 parameters (twice with zero3) and a reduce-scatter of its
 * gradients (dp-ag, dp-rs; dp-exp-ag, dp-exp-rs for the experts' share);
 * they overlap the whole compute. train.shard_group G (HSDP) shards over
 * groups of G DP ranks instead (stride DP's) and allreduces each gradient
 * shard, ld g / G bytes, over the DP / G replicas (stride DP's times G),
 * per micro-batch and layer (dp-ar).
 * A phase with a group of one GPU is left out. Each phase's time is its
 * calls times the time of one call; the step's communication is their sum,
 * with no overlap between phases. With train.mfu > 0 the step also gets a
 * compute time (the 6 N D rule of Kaplan et al.: 6 FLOPs per active
 * parameter and token, plus causal attention's 6 s h per layer and token,
 * at mfu x gpu_flops) and the communication it exposes when the bucketed
 * DP phases overlap the last micro-batch's backward pass (the gradients
 * accumulated until then: DDP's no_sync, Megatron's grad sync; two thirds
 * of the compute over M) and ZeRO-1's parameter gathers the first one's
 * forward pass (a third over M), the sharded ones (FSDP) the whole
 * compute, each ring-attention round
 * its block's attention (cp-fwd a third, cp-bwd two thirds of the rank's
 * attention per layer, micro-batch and CP round), and the other phases
 * nothing. With PP > 1 the step is Megatron's 1F1B schedule simulated op
 * by op (gm_pipe): each op a chunk's compute and its share of the exposed
 * TP, CP and EP time; the bubble is what the schedule adds with free
 * messages, the PP phase's exposed time what its messages add to it.
 */
#ifndef GM_TRAIN_H
#define GM_TRAIN_H

#include "../../core/gc_config.h"
#include "../run/gm_run.h"
#include "../../topologies/gt_gpu.h"
#include "gm_resil.h"

#define GM_TRAIN_MAX_PHASES 16

typedef struct gm_train_phase {
	const char *name; /* "tp", "pp", "ep-dispatch", "dp", ...: a parallelism, "-" a part */
	const char *op;	  /* collective.op of its calls */
	int group_size, group_stride;
	int group_block, group_block_stride; /* two-level groups (gs_params); 0: one level */
	uint64_t bytes;	     /* one call */
	uint64_t calls;	     /* per step, of `bytes` */
	uint64_t rest_bytes; /* dp: one more call of these bytes (0: none) */
	double call_us, rest_us, total_us;
	int algo, proto;	   /* what timed a call (collective.algo auto: chosen) */
	int rest_algo, rest_proto; /* and the last bucket */
	/* of the calls, those in the backward pass (the rest are forward) */
	uint64_t bwd_calls;
	/* with train.mfu > 0: compute a forward (backward) call runs beside
	 * (ring attention's block, the GEMM an overlapped TP collective feeds);
	 * only what of a call outlasts it is exposed */
	double hide_us, hide_bwd_us;
	/* with train.mfu > 0: what of the phase the step waits for (not
	 * kept for the DP phases, whose exposure is the step's) */
	double exposed_us;
} gm_train_phase;

typedef struct gm_train {
	gc_config *cfg; /* the scenario as loaded (with --set) */
	char *path;
	gt_topo topo;
	int tp, pp, dp, ep, cp;
	int stage_layers; /* layers of the fullest pipeline stage, ceil(L / PP) */
	int vstages;	  /* model chunks per stage (interleaved pipeline) */
	uint64_t moe_tokens; /* tokens each GPU routes per micro-batch (EP > 1) */
	gm_train_phase ph[GM_TRAIN_MAX_PHASES];
	int nph;
	double total_us;
	/* train.mfu > 0: the step's compute, 6 x active parameters x tokens
	 * plus causal attention per GPU at mfu x gpu_flops; exposed = what of
	 * each phase outlasts the compute beside it (gm_train.h, above) */
	double compute_us, exposed_us;
	double compute_bf16_us; /* the same FLOPs at BF16's rate (train.precision fp8: slower) */
	double attn_us; /* of compute_us: the attention of the fullest stage */
	/* and the pipeline's fill and drain from the simulated 1F1B schedule
	 * (gm_pipe; interleaved with v model chunks per stage) with free
	 * messages, and what the PP messages then add to it */
	double bubble_us, pp_exposed_us;
	bool analytical;
	/* with gm_run_opts.sweep_cell: the keys set and not used by the step
	 * (by itself, or by every phase), each with its refusal, in pairs
	 * (NULL: none; gm_keyuse.h) */
	char **unused;
	/* resilience.node_mtbf above 0: failures and checkpoints over
	 * resilience.steps of this step (gm_resil), and one failure itemised
	 * (resilience.fail_step) */
	bool resil;
	gm_resil_in rin;
	gm_resil_out rs;
	int64_t fail_step;
	double fail_lost_s; /* its work since the last checkpoint */
} gm_train;

/* The dense BF16 FLOP/s a step's compute estimate takes: train.gpu_flops,
 * or train.gpu's (auto: the preset's GPU, H100 without one); *gpu (may be
 * NULL) receives that GPU. */
double gm_train_gpu_flops(const gc_config *c, const gt_gpu **gpu);

/* Register the train.* keys and `workload`. */
void gm_train_register_params(gc_config *cfg);

/* Run every phase of the step of the scenario at path (with o->sets).
 * Errors as gm_run_scenario's, a phase's prefixed with its name. */
gc_status gm_train_run(const char *path, const gm_run_opts *o, gm_train **out, char **errmsg);
void gm_train_free(gm_train *t);

/* A table: one row per phase, the step's sum last. */
void gm_train_format_table(const gm_train *t, void *gstring_out);
/* CSV: phase,op,group_size,group_stride,bytes,calls,call_us,total_us; a last,
 * smaller bucket is a row of its own ("dp-last"), so the totals add up. */
void gm_train_format_csv(const gm_train *t, void *gstring_out);
/* A sweep: one row per value with each phase's total and the step's. */
void gm_train_format_sweep(const char *key, const char *const *values, gm_train *const *runs,
			   size_t n, bool csv, void *gstring_out);

#endif
