/* SPDX-License-Identifier: MIT */
/*
 * The training step (workload: step, gm_train): its plan follows the
 * Megatron-LM volumes from train.* (calls and bytes per phase, the rank
 * layout of each phase's groups), each phase's time per call is exactly the
 * time of the same grouped collective run on its own, the step is the sum
 * of its phases, the output is deterministic, and bad shapes are refused at
 * their key.
 */
#include <math.h>

#include "sim/models/closed/gm_proto.h"
#include "sim/models/run/gm_run.h"
#include "sim/models/train/gm_train.h"
#include "tests/models/run_testutil.h"

/* 2 nodes x 4 GPUs: TP 2 x PP 2 x DP 2, a small model so the flow runs are
 * quick */
static const char step8[] = "schema_version: 1\n"
			    "workload: step\n"
			    "topology: {preset: dgx-h100, nodes: 2, gpus_per_node: 4}\n"
			    "train: {tp: 2, pp: 2, layers: 4, hidden: 1024, seq: 512, micro_batches: 3,"
			    " params: 1e8, bucket: 4MiB}\n";

static gm_train *train_yaml(const char *yaml, const char *const *sets, gc_status want, char **err)
{
	char *path = scenario_file(yaml);
	gm_run_opts o = {.sets = sets};
	gm_train *t = NULL;
	g_assert_cmpint(gm_train_run(path, &o, &t, err), ==, want);
	g_unlink(path);
	g_free(path);
	return t;
}

static void test_plan(void)
{
	char *err = NULL;
	gm_train *t = train_yaml(step8, NULL, GC_OK, &err);
	g_assert_cmpint(t->tp, ==, 2);
	g_assert_cmpint(t->pp, ==, 2);
	g_assert_cmpint(t->dp, ==, 2);
	g_assert_cmpint(t->nph, ==, 3);
	uint64_t act = 2ull * 1 * 512 * 1024; /* b s h, bf16 */
	/* tp: 4 per layer and micro-batch, 2 layers per stage, consecutive GPUs */
	g_assert_cmpstr(t->ph[0].name, ==, "tp");
	g_assert_cmpuint(t->ph[0].bytes, ==, act);
	g_assert_cmpuint(t->ph[0].calls, ==, 4 * 2 * 3);
	g_assert_cmpint(t->ph[0].group_size, ==, 2);
	g_assert_cmpint(t->ph[0].group_stride, ==, 1);
	/* pp: forward and backward per micro-batch, every TP DP-th GPU */
	g_assert_cmpstr(t->ph[1].name, ==, "pp");
	g_assert_cmpuint(t->ph[1].calls, ==, 2 * 3);
	g_assert_cmpint(t->ph[1].group_size, ==, 2);
	g_assert_cmpint(t->ph[1].group_stride, ==, 4);
	/* dp: 1e8 / 4 parameters of fp32 gradients = 10^8 B in 4 MiB buckets */
	g_assert_cmpstr(t->ph[2].name, ==, "dp");
	g_assert_cmpint(t->ph[2].group_stride, ==, 2);
	g_assert_cmpuint(t->ph[2].bytes, ==, 4u << 20);
	g_assert_cmpuint(t->ph[2].calls * t->ph[2].bytes + t->ph[2].rest_bytes, ==, 100000000u);
	g_assert_cmpuint(t->ph[2].calls, ==, 100000000u / (4u << 20));
	double sum = 0;
	for (int i = 0; i < t->nph; i++) {
		g_assert_cmpfloat(t->ph[i].call_us, >, 0);
		sum += t->ph[i].total_us;
	}
	g_assert_cmpfloat(fabs(sum - t->total_us), <, 1e-6 * sum);
	gm_train_free(t);
}

/* Every phase of t takes per call exactly the time of the same collective
 * in the same groups (two-level ones included) run as a plain scenario on
 * topology `topo` (a YAML line), with `extra` set too. */
static void expect_phases_are_collectives(const gm_train *t, const char *topo, const char *extra)
{
	char *coll = g_strdup_printf("schema_version: 1\n%s\n", topo);
	for (int i = 0; i < t->nph; i++) {
		const gm_train_phase *p = &t->ph[i];
		char *s[8] = {g_strdup_printf("collective.op=%s", p->op),
			      g_strdup_printf("collective.sizes=%lluB", (unsigned long long)p->bytes),
			      g_strdup_printf("collective.group.size=%d", p->group_size),
			      g_strdup_printf("collective.group.stride=%d", p->group_stride),
			      g_strdup_printf("collective.group.block=%d", p->group_block),
			      g_strdup_printf("collective.group.block_stride=%d", p->group_block_stride),
			      extra ? g_strdup(extra) : NULL, NULL};
		gm_run *r = run_yaml(coll, (const char *const *)s);
		g_test_message("%s: %s of %llu B in groups of %d at stride %d (blocks of %d, %d apart): "
			       "%.3f us per call",
			       p->name, p->op, (unsigned long long)p->bytes, p->group_size,
			       p->group_stride, p->group_block, p->group_block_stride, p->call_us);
		g_assert_cmpfloat(r->pts[0].time_us, ==, p->call_us);
		gm_run_free(r);
		for (int k = 0; k < 7; k++)
			g_free(s[k]);
	}
	g_free(coll);
}

/* A phase's time per call is that of the same collective in the same
 * groups run as a plain scenario. */
static void test_phase_is_its_collective(void)
{
	char *err = NULL;
	gm_train *t = train_yaml(step8, NULL, GC_OK, &err);
	expect_phases_are_collectives(t, "topology: {preset: dgx-h100, nodes: 2, gpus_per_node: 4}",
				      NULL);
	gm_train_free(t);
}

/* collective.algo auto: each phase records the algorithm and protocol it
 * chose, those a plain run of its grouped collective chooses. */
static void test_auto_per_phase(void)
{
	char *err = NULL;
	const char *const au[] = {"sim.fidelity=analytical", "collective.algo=auto",
				  "collective.protocol=auto", NULL};
	gm_train *t = train_yaml(step8, au, GC_OK, &err);
	const char *coll = "schema_version: 1\n"
			   "topology: {preset: dgx-h100, nodes: 2, gpus_per_node: 4}\n"
			   "collective: {algo: auto, protocol: auto}\n"
			   "sim: {fidelity: analytical}\n";
	for (int i = 0; i < t->nph; i++) {
		const gm_train_phase *p = &t->ph[i];
		if (!strcmp(p->op, "sendrecv"))
			continue; /* timed as ring: a send/recv has no algorithm to choose */
		char *s[5] = {g_strdup_printf("collective.op=%s", p->op),
			      g_strdup_printf("collective.sizes=%lluB", (unsigned long long)p->bytes),
			      g_strdup_printf("collective.group.size=%d", p->group_size),
			      g_strdup_printf("collective.group.stride=%d", p->group_stride), NULL};
		gm_run *r = run_yaml(coll, (const char *const *)s);
		g_assert_cmpint(p->algo, ==, r->pts[0].algo);
		g_assert_cmpint(p->proto, ==, r->pts[0].proto);
		g_assert_cmpfloat(p->call_us, ==, r->pts[0].time_us);
		gm_run_free(r);
		for (int k = 0; k < 4; k++)
			g_free(s[k]);
	}
	gm_train_free(t);
}

/* Llama 3's layout (tp-pp-dp): PP on neighbouring GPUs (stride TP), DP
 * outermost (stride TP PP), EP inside DP; the phases' sizes and calls do
 * not change with the layout. Layers that do not split evenly: the fullest
 * stage, ceil(L / PP) layers, sets the calls, its share of the parameters
 * the gradients, and the header says so. */
static void test_order_and_stages(void)
{
	char *err = NULL;
	const char *const ana[] = {"sim.fidelity=analytical", NULL};
	const char *const llama[] = {"sim.fidelity=analytical", "train.order=tp-pp-dp", NULL};
	gm_train *m = train_yaml(step8, ana, GC_OK, &err), *l = train_yaml(step8, llama, GC_OK, &err);
	g_assert_cmpint(l->nph, ==, m->nph);
	g_assert_cmpstr(l->ph[1].name, ==, "pp");
	g_assert_cmpint(l->ph[1].group_stride, ==, 2);
	g_assert_cmpstr(l->ph[2].name, ==, "dp");
	g_assert_cmpint(l->ph[2].group_stride, ==, 4);
	for (int i = 0; i < l->nph; i++) {
		g_assert_cmpuint(l->ph[i].bytes, ==, m->ph[i].bytes);
		g_assert_cmpuint(l->ph[i].calls, ==, m->ph[i].calls);
	}
	/* on 2 nodes of 4 the PP pairs now share a node and the DP pairs cross
	 * the network, the other way round from Megatron's layout */
	g_assert_cmpfloat(l->ph[1].call_us, <, m->ph[1].call_us);
	g_assert_cmpfloat(l->ph[2].call_us, >, m->ph[2].call_us);
	GString *g = g_string_new(NULL);
	gm_train_format_table(l, g);
	g_assert_nonnull(strstr(g->str, "= 8 GPUs (tp-pp-dp)"));
	g_assert_null(strstr(g->str, "# stages"));
	g_string_free(g, TRUE);
	gm_train_free(m);
	gm_train_free(l);
	const char *const ep[] = {"sim.fidelity=analytical", "train.order=tp-pp-dp",
				  "topology.nodes=4", "train.ep=2", "train.expert_fraction=0.5",
				  NULL};
	gm_train *e = train_yaml(step8, ep, GC_OK, &err);
	for (int i = 0; i < e->nph; i++)
		if (!strncmp(e->ph[i].name, "ep-", 3))
			g_assert_cmpint(e->ph[i].group_stride, ==, 4);
		else if (!strcmp(e->ph[i].name, "dp-exp"))
			g_assert_cmpint(e->ph[i].group_stride, ==, 8);
	gm_train_free(e);

	/* 5 layers over 2 stages: the fullest holds 3, so 4 x 3 TP calls per
	 * micro-batch and 3/5 of 1e8 parameters over TP 2 in gradients */
	const char *const five[] = {"sim.fidelity=analytical", "train.layers=5", "train.mfu=0.5",
				    NULL};
	const char *const four[] = {"sim.fidelity=analytical", "train.mfu=0.5", NULL};
	gm_train *u = train_yaml(step8, five, GC_OK, &err), *v = train_yaml(step8, four, GC_OK, &err);
	g_assert_cmpint(u->stage_layers, ==, 3);
	g_assert_cmpuint(u->ph[0].calls, ==, 4 * 3 * 3);
	g_assert_cmpuint(u->ph[2].calls * u->ph[2].bytes + u->ph[2].rest_bytes, ==, 4u * 30000000u);
	/* the same model of 4 layers, 2 per stage: the parameters' compute by
	 * 3/5 over 2/4, the attention's (per layer the same) by 3 over 2 */
	g_assert_cmpfloat(fabs((u->compute_us - u->attn_us) / (v->compute_us - v->attn_us) - 1.2), <,
			  1e-9);
	g_assert_cmpfloat(fabs(u->attn_us / v->attn_us - 1.5), <, 1e-9);
	g = g_string_new(NULL);
	gm_train_format_table(u, g);
	g_assert_nonnull(strstr(g->str, "# stages    : 5 layers over 2 stages, the fullest of 3 sets the pace"));
	g_string_free(g, TRUE);
	gm_train_free(u);
	gm_train_free(v);
}

static void test_deterministic_and_formats(void)
{
	char *err = NULL;
	const char *const ana[] = {"sim.fidelity=analytical", NULL};
	gm_train *a = train_yaml(step8, ana, GC_OK, &err), *b = train_yaml(step8, ana, GC_OK, &err);
	GString *ga = g_string_new(NULL), *gb = g_string_new(NULL), *csv = g_string_new(NULL);
	gm_train_format_table(a, ga);
	gm_train_format_table(b, gb);
	/* the same but for the first line, which names the (temporary) file */
	g_assert_cmpstr(strchr(ga->str, '\n'), ==, strchr(gb->str, '\n'));
	g_assert_nonnull(strstr(ga->str, "TP 2 x PP 2 x DP 2 = 8 GPUs"));
	g_assert_nonnull(strstr(ga->str, "# step communication:"));
	/* what timed each phase: the scenario's ring and Simple */
	g_assert_nonnull(strstr(ga->str, "share  algorithm\n"));
	g_assert_nonnull(strstr(ga->str, "%  ring/simple\n"));
	for (int i = 0; i < a->nph; i++) {
		g_assert_cmpint(a->ph[i].algo, ==, GS_ALGO_RING);
		g_assert_cmpint(a->ph[i].proto, ==, GM_PROTO_SIMPLE);
	}
	gm_train_format_csv(a, csv);
	g_assert_true(g_str_has_prefix(csv->str, "phase,op,group_size,group_stride,bytes,calls,"
						 "call_us,total_us,algo,protocol,group_block,group_block_stride,exposed_us\n"));
	g_assert_nonnull(strstr(csv->str, "\ndp-last,allreduce,2,2,"));
	g_string_free(ga, TRUE);
	g_string_free(gb, TRUE);
	g_string_free(csv, TRUE);
	gm_train_free(a);
	gm_train_free(b);
	/* gradients smaller than one bucket: one call of all of them */
	const char *const small[] = {"sim.fidelity=analytical", "train.bucket=1GiB", NULL};
	gm_train *t = train_yaml(step8, small, GC_OK, &err);
	g_assert_cmpuint(t->ph[2].calls, ==, 1);
	g_assert_cmpuint(t->ph[2].bytes, ==, 100000000u);
	g_assert_cmpuint(t->ph[2].rest_bytes, ==, 0);
	gm_train_free(t);
	/* TP = PP = 1 on one GPU: no phase, a step of nothing */
	const char *const one[] = {"topology.nodes=1", "topology.gpus_per_node=1", "train.tp=1",
				   "train.pp=1", NULL};
	t = train_yaml(step8, one, GC_OK, &err);
	g_assert_cmpint(t->nph, ==, 0);
	g_assert_cmpfloat(t->total_us, ==, 0);
	gm_train_free(t);
}

/* Sequence parallelism splits each TP allreduce into an allgather and a
 * reduce-scatter of the same activations; the distributed optimizer the
 * DP allreduce into a reduce-scatter of the fp32 gradients and an
 * allgather of the bf16 parameters. The sweep's columns add the halves. */
static void test_sp_and_zero(void)
{
	char *err = NULL;
	const char *const sets[] = {"sim.fidelity=analytical", "train.sequence_parallel=true",
				    "train.distributed_optimizer=true", NULL};
	gm_train *t = train_yaml(step8, sets, GC_OK, &err);
	g_assert_cmpint(t->nph, ==, 5);
	const char *names[] = {"tp-ag", "tp-rs", "pp", "dp-rs", "dp-ag"};
	const char *ops[] = {"allgather", "reducescatter", "sendrecv", "reducescatter", "allgather"};
	for (int i = 0; i < 5; i++) {
		g_assert_cmpstr(t->ph[i].name, ==, names[i]);
		g_assert_cmpstr(t->ph[i].op, ==, ops[i]);
	}
	g_assert_cmpuint(t->ph[0].bytes, ==, 2ull * 512 * 1024);
	g_assert_cmpuint(t->ph[0].calls, ==, 4 * 2 * 3);
	g_assert_cmpuint(t->ph[1].calls, ==, t->ph[0].calls);
	/* 2.5e7 parameters per stage and TP rank: 10^8 B of gradients, 5e7 B
	 * of bf16 parameters */
	g_assert_cmpuint(t->ph[3].calls * t->ph[3].bytes + t->ph[3].rest_bytes, ==, 100000000u);
	g_assert_cmpuint(t->ph[4].calls * t->ph[4].bytes + t->ph[4].rest_bytes, ==, 50000000u);
	g_assert_cmpint(t->ph[3].group_stride, ==, 2);
	gm_train *runs[1] = {t};
	const char *vals[1] = {"x"};
	GString *g = g_string_new(NULL);
	gm_train_format_sweep("k", vals, runs, 1, true, g);
	char *want = g_strdup_printf("x,8,2,2,2,1,%.6f,%.6f,%.6f,%.6f,%.6f,0.000000,0.000000,0.000000,1,"
				     "0.000000,0.0000\n",
				     t->ph[0].total_us + t->ph[1].total_us, t->ph[2].total_us, 0.0,
				     t->ph[3].total_us + t->ph[4].total_us, t->total_us);
	g_assert_nonnull(strstr(g->str, want));
	g_free(want);
	g_string_free(g, TRUE);
	gm_train_free(t);
	/* with a compute estimate: ZeRO-1's gradients reduce-scattered in the
	 * last micro-batch's backward pass (2/3 of the compute over M = 3),
	 * its parameters gathered beside the first one's forward pass (1/3 over
	 * M); slow GPUs hide both, fast ones neither */
	static const char *const rates[] = {"train.gpu_flops=1e9", "train.gpu_flops=1e18"};
	for (int k = 0; k < 2; k++) {
		const char *const on[] = {"sim.fidelity=analytical", "train.sequence_parallel=true",
					  "train.distributed_optimizer=true", "train.mfu=0.5", rates[k],
					  NULL};
		t = train_yaml(step8, on, GC_OK, &err);
		double rs = t->ph[3].total_us, ag = t->ph[4].total_us, c = t->compute_us;
		double rest = t->ph[0].exposed_us + t->ph[1].exposed_us + t->pp_exposed_us;
		double x = rest + fmax(0, rs - c * 2 / 3 / 3) + fmax(0, ag - c / 3 / 3);
		g_assert_cmpfloat(fabs(t->exposed_us - x), <, 1e-9 * x);
		if (k == 0)
			g_assert_cmpfloat(t->exposed_us, ==, rest);
		else
			g_assert_cmpfloat(t->exposed_us, >, rest + 0.99 * (rs + ag));
		gm_train_free(t);
	}
}

/* FSDP-style sharding: per micro-batch and layer, the layer's bf16
 * parameters gathered (twice with zero3) and its gradients scattered over
 * DP; the experts' share over the expert-DP group; the DP phases then
 * overlap the whole compute; ZeRO-1 on top is refused. */
static void test_sharding(void)
{
	char *err = NULL;
	const char *const z3[] = {"sim.fidelity=analytical", "train.sharding=zero3", "train.mfu=0.5",
				  "train.gpu_flops=1e12", NULL};
	const char *const z2[] = {"sim.fidelity=analytical", "train.sharding=zero2", NULL};
	gm_train *t = train_yaml(step8, z3, GC_OK, &err), *u = train_yaml(step8, z2, GC_OK, &err);
	/* 1e8 parameters over TP 2 x PP 2: 2.5e7 per GPU, 2 layers per stage */
	g_assert_cmpint(t->nph, ==, 4);
	g_assert_cmpstr(t->ph[2].name, ==, "dp-ag");
	g_assert_cmpstr(t->ph[2].op, ==, "allgather");
	g_assert_cmpuint(t->ph[2].bytes, ==, 12500000u * 2);
	g_assert_cmpuint(t->ph[2].calls, ==, 3 * 2 * 2); /* micro-batches x layers x 2 passes */
	g_assert_cmpuint(t->ph[2].rest_bytes, ==, 0);
	g_assert_cmpint(t->ph[2].group_size, ==, 2);
	g_assert_cmpint(t->ph[2].group_stride, ==, 2);
	g_assert_cmpstr(t->ph[3].name, ==, "dp-rs");
	g_assert_cmpuint(t->ph[3].bytes, ==, 12500000u * 4);
	g_assert_cmpuint(t->ph[3].calls, ==, 3 * 2);
	g_assert_cmpstr(u->ph[2].name, ==, "dp-ag");
	g_assert_cmpuint(u->ph[2].calls, ==, 3 * 2); /* zero2: gathered once */
	g_assert_cmpuint(u->ph[3].calls, ==, t->ph[3].calls);
	/* TP in the ops, PP by what it adds to the pipeline, the sharded
	 * DP phases behind the whole compute */
	double dp = t->ph[2].total_us + t->ph[3].total_us, rest = t->ph[0].total_us + t->pp_exposed_us;
	g_assert_cmpfloat(fabs(t->exposed_us - (rest + fmax(0, dp - t->compute_us))), <, 1e-6);
	GString *g = g_string_new(NULL);
	gm_train_format_table(t, g);
	g_assert_nonnull(strstr(g->str, "sharded over DP (zero3), one unit per layer"));
	g_assert_nonnull(strstr(g->str, "(DP overlapping the forward and backward passes)"));
	g_string_free(g, TRUE);
	gm_train_free(t);
	gm_train_free(u);
	/* HSDP on 4 nodes (DP 4): sharded over pairs of DP ranks (stride 2),
	 * each gradient shard allreduced over the 2 replicas (stride 4) */
	const char *const hsdp[] = {"sim.fidelity=analytical", "train.sharding=zero3",
				    "topology.nodes=4", "train.shard_group=2", NULL};
	t = train_yaml(step8, hsdp, GC_OK, &err);
	g_assert_cmpint(t->dp, ==, 4);
	g_assert_cmpint(t->nph, ==, 5);
	g_assert_cmpstr(t->ph[2].name, ==, "dp-ag");
	g_assert_cmpint(t->ph[2].group_size, ==, 2);
	g_assert_cmpint(t->ph[2].group_stride, ==, 2);
	g_assert_cmpstr(t->ph[4].name, ==, "dp-ar");
	g_assert_cmpstr(t->ph[4].op, ==, "allreduce");
	g_assert_cmpint(t->ph[4].group_size, ==, 2);
	g_assert_cmpint(t->ph[4].group_stride, ==, 4);
	g_assert_cmpuint(t->ph[4].bytes, ==, 12500000u * 4 / 2);
	g_assert_cmpuint(t->ph[4].calls, ==, t->ph[3].calls);
	g = g_string_new(NULL);
	gm_train_format_table(t, g);
	g_assert_nonnull(strstr(g->str, "sharded over groups of 2 of the DP ranks, replicated across "
					"them (zero3, hybrid)"));
	g_string_free(g, TRUE);
	gm_train_free(t);
	/* the experts' share over the expert-DP group */
	const char *const moe[] = {"sim.fidelity=analytical", "train.sharding=zero3",
				   "topology.nodes=4", "train.ep=2", "train.expert_fraction=0.5",
				   NULL};
	t = train_yaml(step8, moe, GC_OK, &err);
	bool seen = false;
	for (int i = 0; i < t->nph; i++)
		if (!strcmp(t->ph[i].name, "dp-exp-ag")) {
			seen = true;
			/* half of 2.5e7 in experts, 1/EP of it here, per layer */
			g_assert_cmpuint(t->ph[i].bytes, ==, 12500000u / 2 / 2 * 2);
			g_assert_cmpint(t->ph[i].group_size, ==, 2);
			g_assert_cmpint(t->ph[i].group_stride, ==, 4);
		}
	g_assert_true(seen);
	gm_train_free(t);
}

/* Expert parallelism: dispatch and combine in EP groups inside each DP
 * group, the experts' gradients over the expert-data-parallel group, each
 * GPU holding 1 / EP of its stage's experts. */
static void test_expert_parallel(void)
{
	char *err = NULL;
	const char *const sets[] = {"train.ep=2", "train.experts=4", "train.topk=2",
				    "train.expert_fraction=0.5", NULL};
	gm_train *t = train_yaml(step8, sets, GC_OK, &err);
	g_assert_cmpint(t->ep, ==, 2);
	/* DP 2 / EP 2: an expert-DP group of one GPU, so no dp-exp phase */
	const char *names[] = {"tp", "pp", "ep-dispatch", "ep-combine", "dp"};
	g_assert_cmpint(t->nph, ==, 5);
	for (int i = 0; i < 5; i++)
		g_assert_cmpstr(t->ph[i].name, ==, names[i]);
	const gm_train_phase *d = &t->ph[2], *x;
	g_assert_cmpuint(d->bytes, ==, 2 * 1024);	/* one bf16 token */
	g_assert_cmpuint(d->calls, ==, 2 * 2 * 3);	/* 2 per layer and micro-batch */
	g_assert_cmpint(d->group_size, ==, 2);
	g_assert_cmpint(d->group_stride, ==, 2);	/* TP */
	g_assert_cmpuint(t->moe_tokens, ==, 512);
	/* 2.5e7 parameters per GPU, half of them dense: 5e7 B of fp32 gradients
	 * over all of DP */
	g_assert_cmpuint(t->ph[4].calls * t->ph[4].bytes + t->ph[4].rest_bytes, ==, 50000000u);
	gm_train_free(t);
	const char *const wide[] = {"topology.nodes=4", "train.ep=2", "train.experts=4",
				    "train.topk=2", "train.expert_fraction=0.5",
				    "sim.fidelity=analytical", NULL};
	t = train_yaml(step8, wide, GC_OK, &err);
	g_assert_cmpint(t->dp, ==, 4);
	x = &t->ph[t->nph - 1];
	g_assert_cmpstr(x->name, ==, "dp-exp");
	g_assert_cmpint(x->group_size, ==, 2);	 /* DP / EP */
	g_assert_cmpint(x->group_stride, ==, 4); /* TP EP */
	/* the experts' half, of which each GPU holds 1 / EP: 6.25e6 x 4 B */
	g_assert_cmpuint(x->calls * x->bytes + x->rest_bytes, ==, 25000000u);
	/* the dispatch phase is the grouped dispatch of the same routing */
	const gm_train_phase *dp = &t->ph[2];
	const char *coll = "schema_version: 1\n"
			   "topology: {preset: dgx-h100, nodes: 4, gpus_per_node: 4}\n"
			   "collective: {op: dispatch, sizes: [2048B], group: {size: 2, stride: 2}}\n"
			   "moe: {tokens: 512, topk: 2, experts: 4}\n"
			   "sim: {fidelity: analytical}\n";
	gm_run *r = run_yaml(coll, NULL);
	g_assert_cmpfloat(r->pts[0].time_us, ==, dp->call_us);
	gm_run_free(r);
	gm_train_free(t);
}

/* train.mfu: compute = (6 x active parameters + 6 x layers x seq x hidden)
 * x tokens per model replica / (TP PP) at mfu x gpu_flops; the DP phases
 * hide behind two thirds of it, the others are exposed. */
static void test_compute_and_exposure(void)
{
	char *err = NULL;
	const char *const off[] = {"sim.fidelity=analytical", NULL};
	gm_train *t = train_yaml(step8, off, GC_OK, &err);
	g_assert_cmpfloat(t->compute_us, ==, 0);
	GString *g = g_string_new(NULL);
	gm_train_format_table(t, g);
	g_assert_null(strstr(g->str, "MFU"));
	g_string_free(g, TRUE);
	gm_train_free(t);
	const char *const on[] = {"sim.fidelity=analytical", "train.mfu=0.5", "train.gpu_flops=1e12",
				  NULL};
	t = train_yaml(step8, on, GC_OK, &err);
	/* 1e8 parameters, 512 tokens x 3 micro-batches, TP 2 x PP 2; causal
	 * attention over 4 layers of hidden 1024 */
	const double attn = 6.0 * 4 * 512 * 1024 * 512 * 3 / 4 / (1e12 * 0.5) * 1e6;
	double want = 6.0 * 1e8 * 512 * 3 / 4 / (1e12 * 0.5) * 1e6 + attn;
	g_assert_cmpfloat(fabs(t->compute_us - want), <, 1e-6 * want);
	g_assert_cmpfloat(fabs(t->attn_us - attn), <, 1e-6 * attn);
	/* TP exposed in the layers' ops, the PP messages by what they add to
	 * the simulated pipeline, DP behind the last micro-batch's backward
	 * pass (two thirds of the compute over M = 3: the gradients are
	 * accumulated and reduced in the last one) */
	g_assert_cmpstr(t->ph[0].name, ==, "tp");
	g_assert_cmpstr(t->ph[1].name, ==, "pp");
	const double tp = t->ph[0].total_us, pp = t->ph[1].call_us;
	double dp = 0;
	for (int i = 2; i < t->nph; i++)
		dp += t->ph[i].total_us;
	g_assert_cmpfloat(fabs(t->exposed_us - (tp + t->pp_exposed_us + fmax(0, dp - want * 2 / 9))),
			  <, 1e-6);
	g_assert_cmpfloat(t->ph[1].exposed_us, ==, t->pp_exposed_us);
	/* 1F1B over 2 stages and 3 micro-batches with free messages: a bubble
	 * of 1/3 of the stage's work (its compute and its exposed TP); the
	 * messages then add at least the first micro-batch's crossing there
	 * and back, at most one per op of both stages */
	g_assert_cmpfloat(fabs(t->bubble_us - (want + tp) / 3), <, 1e-6 * want);
	g_assert_cmpfloat(t->pp_exposed_us, >=, 2 * pp - 1e-6);
	g_assert_cmpfloat(t->pp_exposed_us, <=, 2 * 3 * 2 * pp + 1e-6);
	g = g_string_new(NULL);
	gm_train_format_table(t, g);
	char *line = g_strdup_printf("pipeline bubble %.1f ms (simulated 1F1B; the PP messages add "
				     "%.1f ms to it, counted as exposed), step %.1f ms",
				     t->bubble_us * 1e-3, t->pp_exposed_us * 1e-3,
				     (want + t->bubble_us + t->exposed_us) * 1e-3);
	g_assert_nonnull(strstr(g->str, line));
	g_free(line);
	g_string_free(g, TRUE);
	gm_train_free(t);
	/* interleaved, 2 chunks per stage, 4 micro-batches (a multiple of
	 * PP): half the plain schedule's bubble, twice the PP messages, the
	 * rest as it was */
	const char *const m4[] = {"sim.fidelity=analytical", "train.mfu=0.5", "train.gpu_flops=1e12",
				  "train.micro_batches=4", NULL};
	const char *const v2[] = {"sim.fidelity=analytical", "train.mfu=0.5", "train.gpu_flops=1e12",
				  "train.micro_batches=4", "train.virtual_stages=2", NULL};
	t = train_yaml(step8, m4, GC_OK, &err);
	gm_train *iv = train_yaml(step8, v2, GC_OK, &err);
	g_assert_cmpfloat(fabs(iv->bubble_us - t->bubble_us / 2), <, 1e-9 * t->bubble_us);
	g_assert_cmpstr(iv->ph[1].name, ==, "pp");
	g_assert_cmpuint(iv->ph[1].calls, ==, 2 * t->ph[1].calls);
	g_assert_cmpfloat(iv->ph[1].call_us, ==, t->ph[1].call_us);
	g_assert_cmpuint(iv->ph[0].calls, ==, t->ph[0].calls);
	g_assert_cmpfloat(iv->compute_us, ==, t->compute_us);
	g = g_string_new(NULL);
	gm_train_format_table(iv, g);
	g_assert_nonnull(strstr(g->str, "(simulated interleaved 1F1B, 2 chunks per stage;"));
	g_string_free(g, TRUE);
	gm_train_free(iv);
	gm_train_free(t);
	/* MoE: only topk / experts of the experts' share is active */
	const char *const moe[] = {"sim.fidelity=analytical", "train.mfu=0.5", "train.gpu_flops=1e12",
				   "train.ep=2", "train.experts=8", "train.topk=2",
				   "train.expert_fraction=0.5", NULL};
	t = train_yaml(step8, moe, GC_OK, &err);
	double active = 1e8 * 0.5 + 1e8 * 0.5 * 2 / 8;
	want = 6.0 * active * 512 * 3 / 4 / (1e12 * 0.5) * 1e6 + attn;
	g_assert_cmpfloat(fabs(t->compute_us - want), <, 1e-6 * want);
	gm_train_free(t);
}

/* 4 nodes x 4 GPUs: TP 2 x CP 2 x PP 2 x DP 2, 8 heads of 128 with 2
 * key-value heads (one per TP rank) */
static const char cp16[] = "schema_version: 1\n"
			   "workload: step\n"
			   "topology: {preset: dgx-h100, nodes: 4, gpus_per_node: 4}\n"
			   "train: {tp: 2, cp: 2, pp: 2, layers: 4, hidden: 1024, heads: 8,"
			   " kv_heads: 2, seq: 512, micro_batches: 3, params: 1e8, bucket: 4MiB}\n";

/* Context parallelism: the sequence split over CP ranks at stride TP; ring
 * attention's K-V blocks, or Llama 3's gathers; activations and PP
 * messages of a CP rank's share; gradients over CP x DP, two levels under
 * tp-pp-dp; each round's message hidden by its block's attention. */
static void test_context_parallel(void)
{
	char *err = NULL;
	const char *const ana[] = {"sim.fidelity=analytical", NULL};
	gm_train *t = train_yaml(cp16, ana, GC_OK, &err);
	g_assert_cmpint(t->cp, ==, 2);
	g_assert_cmpint(t->dp, ==, 2);
	static const char *const names[] = {"tp", "cp-fwd", "cp-bwd", "cp-dkv", "pp", "dp"};
	g_assert_cmpint(t->nph, ==, 6);
	for (int i = 0; i < t->nph; i++)
		g_assert_cmpstr(t->ph[i].name, ==, names[i]);
	/* 256 tokens per CP rank: activations 2 x 256 x 1024 B, 4 per layer
	 * and micro-batch over 2 layers and 3 micro-batches */
	g_assert_cmpuint(t->ph[0].bytes, ==, 2 * 256 * 1024);
	g_assert_cmpuint(t->ph[0].calls, ==, 4 * 2 * 3);
	/* a K-V block: 2 x 256 tokens x 128 (one KV head) x 2 B; CP - 1 = 1
	 * round per layer and micro-batch, the gradient's hop home once */
	const uint64_t kv = 2 * 256 * 128 * 2;
	g_assert_cmpuint(t->ph[1].bytes, ==, kv);
	g_assert_cmpuint(t->ph[2].bytes, ==, 2 * kv);
	g_assert_cmpuint(t->ph[3].bytes, ==, kv);
	for (int i = 1; i <= 3; i++) {
		g_assert_cmpuint(t->ph[i].calls, ==, 2 * 3);
		g_assert_cmpint(t->ph[i].group_size, ==, 2);
		g_assert_cmpint(t->ph[i].group_stride, ==, 2);
	}
	g_assert_cmpuint(t->ph[4].bytes, ==, t->ph[0].bytes);
	g_assert_cmpint(t->ph[4].group_stride, ==, 8);
	/* Megatron's order: CP x DP is 4 consecutive CP-DP ranks at stride TP */
	g_assert_cmpint(t->ph[5].group_size, ==, 4);
	g_assert_cmpint(t->ph[5].group_stride, ==, 2);
	g_assert_cmpint(t->ph[5].group_block, ==, 0);
	/* the same gradients as without CP: 2 layers' 5e7 / TP 2 in fp32 */
	g_assert_cmpuint(t->ph[5].calls * t->ph[5].bytes + t->ph[5].rest_bytes, ==, 100000000u);
	GString *g = g_string_new(NULL);
	gm_train_format_table(t, g);
	g_assert_nonnull(strstr(g->str, "TP 2 x CP 2 (p2p) x PP 2 x DP 2 = 16 GPUs"));
	g_string_free(g, TRUE);
	gm_train_free(t);

	/* Llama 3's order: PP at stride TP CP = 4, CP x DP in two levels (CP
	 * at stride 2, the DP blocks TP CP PP = 8 apart); every phase, the
	 * two-level one included, is its grouped collective (flow runs) */
	const char *const l3[] = {"train.order=tp-pp-dp", NULL};
	t = train_yaml(cp16, l3, GC_OK, &err);
	g_assert_cmpint(t->ph[4].group_stride, ==, 4);
	g_assert_cmpint(t->ph[5].group_size, ==, 4);
	g_assert_cmpint(t->ph[5].group_stride, ==, 2);
	g_assert_cmpint(t->ph[5].group_block, ==, 2);
	g_assert_cmpint(t->ph[5].group_block_stride, ==, 8);
	expect_phases_are_collectives(t, "topology: {preset: dgx-h100, nodes: 4, gpus_per_node: 4}",
				      NULL);
	g = g_string_new(NULL);
	gm_train_format_table(t, g);
	g_assert_nonnull(strstr(g->str, "4 x 4 (2 x 2, 8)"));
	g_string_free(g, TRUE);
	gm_train_free(t);

	/* Llama 3's all-gather: K and V over the whole sequence, forward and
	 * backward (4 per layer and micro-batch), dK and dV scattered (2) */
	const char *const ag[] = {"sim.fidelity=analytical", "train.cp_comm=allgather", NULL};
	t = train_yaml(cp16, ag, GC_OK, &err);
	g_assert_cmpstr(t->ph[1].name, ==, "cp-ag");
	g_assert_cmpstr(t->ph[1].op, ==, "allgather");
	g_assert_cmpuint(t->ph[1].bytes, ==, 2 * 512 * 128);
	g_assert_cmpuint(t->ph[1].calls, ==, 4 * 2 * 3);
	g_assert_cmpstr(t->ph[2].name, ==, "cp-rs");
	g_assert_cmpuint(t->ph[2].bytes, ==, 2 * 512 * 128);
	g_assert_cmpuint(t->ph[2].calls, ==, 2 * 2 * 3);
	gm_train_free(t);

	/* exposure: a round's message beside a third (forward) or two thirds
	 * (backward) of its block's attention, attention / (M layers CP) per
	 * round and pass; the gradient's last hop and the gathers exposed */
	static const char *const rates[] = {"train.gpu_flops=1e9", "train.gpu_flops=1e18"};
	for (int k = 0; k < 2; k++) {
		const char *const on[] = {"sim.fidelity=analytical", "train.mfu=0.5", rates[k], NULL};
		t = train_yaml(cp16, on, GC_OK, &err);
		double round = t->attn_us / (3.0 * 2 * 2) / 3.0;
		g_assert_cmpfloat(fabs(t->ph[1].hide_us - round), <, 1e-9 * round);
		g_assert_cmpfloat(fabs(t->ph[2].hide_bwd_us - 2 * round), <, 1e-9 * round);
		g_assert_cmpuint(t->ph[1].bwd_calls, ==, 0);
		g_assert_cmpuint(t->ph[2].bwd_calls, ==, t->ph[2].calls);
		g_assert_cmpuint(t->ph[3].bwd_calls, ==, t->ph[3].calls);
		double rest = t->pp_exposed_us; /* pp: what it adds to the pipeline */
		for (int i = 0; i < 4; i++) {
			const gm_train_phase *p = &t->ph[i];
			double x = (double)(p->calls - p->bwd_calls) * fmax(0, p->call_us - p->hide_us) +
				   (double)p->bwd_calls * fmax(0, p->call_us - p->hide_bwd_us);
			g_assert_cmpfloat(fabs(t->ph[i].exposed_us - x), <, 1e-9 * (x + 1));
			rest += x;
		}
		g_assert_cmpfloat(fabs(t->exposed_us - (rest + fmax(0, t->ph[5].total_us -
								   t->compute_us * 2 / 3 / 3))),
				  <, 1e-6 * t->exposed_us);
		if (k == 0) /* slow GPUs: the blocks' attention hides the rounds */
			g_assert_cmpfloat(t->ph[1].call_us, <, t->ph[1].hide_us);
		else /* fast ones: the rounds show */
			g_assert_cmpfloat(t->ph[1].call_us, >, t->ph[1].hide_us);
		gm_train_free(t);
	}
}

/* train.tp_overlap: every sequence-parallel collective beside a quarter
 * of its layer's GEMMs, half of its calls forward (that much), half
 * backward (twice that); slow GPUs hide it all, fast ones none of it. */
static void test_tp_overlap(void)
{
	char *err = NULL;
	static const char *const rates[] = {"train.gpu_flops=1e9", "train.gpu_flops=1e12",
					    "train.gpu_flops=1e18"};
	for (int k = 0; k < 3; k++) {
		const char *const on[] = {"sim.fidelity=analytical", "train.mfu=0.5", rates[k],
					  "train.sequence_parallel=true", "train.tp_overlap=true", NULL};
		gm_train *t = train_yaml(step8, on, GC_OK, &err);
		const double ml = 3.0 * 2, gemm = (t->compute_us - t->attn_us) / ml / 3 / 4;
		for (int i = 0; i < 2; i++) {
			const gm_train_phase *p = &t->ph[i];
			g_assert_true(g_str_has_prefix(p->name, "tp-"));
			g_assert_cmpfloat(fabs(p->hide_us - gemm), <, 1e-9 * gemm);
			g_assert_cmpuint(p->bwd_calls, ==, p->calls / 2);
			double want = (double)(p->calls / 2) * fmax(0, p->call_us - gemm) +
				      (double)(p->calls / 2) * fmax(0, p->call_us - 2 * gemm);
			g_assert_cmpfloat(fabs(p->exposed_us - want), <, 1e-9 * (want + 1));
			if (k == 0)
				g_assert_cmpfloat(p->exposed_us, ==, 0);
			if (k == 2)
				g_assert_cmpfloat(p->exposed_us, >, 0.99 * p->total_us);
		}
		GString *g = g_string_new(NULL);
		gm_train_format_table(t, g);
		g_assert_nonnull(strstr(g->str, ", TP collectives their GEMMs)"));
		g_string_free(g, TRUE);
		gm_train_free(t);
	}
}

static void expect_step_refused(const char *const *sets, const char *what)
{
	char *err = NULL;
	gm_train *t = train_yaml(step8, sets, GC_ERR_INPUT, &err);
	g_assert_null(t);
	if (!strstr(err, what))
		g_test_fail_printf("'%s' does not say '%s'", err, what);
	g_free(err);
}

static void test_refusals(void)
{
	const char *const tp3[] = {"train.tp=3", NULL};
	expect_step_refused(tp3, "train.tp: TP 3 does not divide the 8 GPUs");
	const char *const pp3[] = {"train.pp=3", NULL};
	expect_step_refused(pp3, "train.pp: TP 2 x PP 3 does not divide the 8 GPUs");
	const char *const layers[] = {"train.layers=1", NULL};
	expect_step_refused(layers, "train.pp: 2 stages for 1 layers leave a stage without a layer");
	const char *const v3[] = {"train.virtual_stages=3", NULL};
	expect_step_refused(v3, "train.virtual_stages: 3 model chunks per stage of 2 layers leave a "
				"chunk without a layer");
	const char *const tpo[] = {"train.tp_overlap=true", NULL};
	expect_step_refused(tpo, "train.tp_overlap: overlaps sequence parallelism's collectives: "
				 "it applies with train.tp > 1 and train.sequence_parallel true");
	const char *const v2m3[] = {"train.virtual_stages=2", NULL};
	expect_step_refused(v2m3, "train.virtual_stages: an interleaved pipeline takes its "
				  "micro-batches in groups of PP: 3 micro-batches are not a multiple "
				  "of PP 2");
	const char *const v2pp1[] = {"train.virtual_stages=2", "train.pp=1", NULL};
	expect_step_refused(v2pp1, "train.virtual_stages: applies with train.pp > 1");
	const char *const zz[] = {"train.sharding=zero3", "train.distributed_optimizer=true", NULL};
	expect_step_refused(zz, "train.distributed_optimizer: is ZeRO-1, which train.sharding zero3 "
				"includes; leave it false");
	const char *const sg[] = {"train.shard_group=2", NULL};
	expect_step_refused(sg, "train.shard_group: applies with train.sharding zero2 or zero3");
	const char *const sg3[] = {"train.sharding=zero2", "train.shard_group=3", NULL};
	expect_step_refused(sg3, "train.shard_group: 3 does not divide DP 2");
	const char *const order[] = {"train.order=dp-tp-pp", NULL};
	expect_step_refused(order, "train.order");
	const char *const ep3[] = {"train.ep=3", NULL};
	expect_step_refused(ep3, "train.ep: EP 3 does not divide DP 2");
	const char *const ex[] = {"train.ep=2", "train.experts=5", NULL};
	expect_step_refused(ex, "train.experts: 5 experts do not spread evenly over EP 2");
	const char *const cp3[] = {"train.cp=3", NULL};
	expect_step_refused(cp3, "train.cp: TP 2 x CP 3 does not divide the 8 GPUs");
	const char *const cpseq[] = {"train.cp=2", "train.pp=1", "train.seq=510", NULL};
	expect_step_refused(cpseq, "train.cp: a sequence of 510 tokens does not split into 2 x CP = 4 "
				   "equal chunks");
	const char *const cppp[] = {"train.cp=2", "train.pp=4", NULL};
	expect_step_refused(cppp, "train.pp: TP 2 x CP 2 x PP 4 does not divide the 8 GPUs");
	const char *const cpc[] = {"train.cp_comm=allgather", NULL};
	expect_step_refused(cpc, "train.cp_comm: applies with train.cp > 1");
	const char *const heads[] = {"train.heads=3", NULL};
	expect_step_refused(heads, "train.heads: 3 heads do not divide the hidden size 1024");
	const char *const kvh[] = {"train.kv_heads=3", NULL};
	expect_step_refused(kvh, "train.kv_heads: 3 key-value heads do not divide the 64 heads");
	const char *const coll[] = {"workload=collective", NULL};
	expect_step_refused(coll, "a training step needs workload: step");
	/* a phase the scenario's algorithm cannot run names the phase */
	const char *const nvls[] = {"collective.algo=nvls", NULL};
	expect_step_refused(nvls, "step phase tp");
	/* the collective runner refuses a step scenario, and train.* keys on a
	 * collective */
	expect_refused(step8, NULL, "workload: a training step is reported by phase");
	const char *with_train = "schema_version: 1\n"
				 "topology: {preset: dgx-h100}\n"
				 "train: {tp: 4}\n";
	expect_refused(with_train, NULL, ":3:");
	expect_refused(with_train, NULL, "train.tp: applies to workload: step, not to a collective");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/train/plan", test_plan);
	g_test_add_func("/train/phase-is-its-collective", test_phase_is_its_collective);
	g_test_add_func("/train/deterministic-and-formats", test_deterministic_and_formats);
	g_test_add_func("/train/order-and-stages", test_order_and_stages);
	g_test_add_func("/train/auto-per-phase", test_auto_per_phase);
	g_test_add_func("/train/sharding", test_sharding);
	g_test_add_func("/train/sp-and-zero", test_sp_and_zero);
	g_test_add_func("/train/expert-parallel", test_expert_parallel);
	g_test_add_func("/train/compute-and-exposure", test_compute_and_exposure);
	g_test_add_func("/train/context-parallel", test_context_parallel);
	g_test_add_func("/train/tp-overlap", test_tp_overlap);
	g_test_add_func("/train/refusals", test_refusals);
	return g_test_run();
}
