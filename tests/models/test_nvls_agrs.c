/* SPDX-License-Identifier: MIT */
/*
 * Allgather and reduce-scatter through the NVSwitch (collective.algo nvls:
 * NCCL's one-node NVLS of all_gather.h and reduce_scatter.h).
 *  - The closed form follows the flow run within 1 % from 64 KiB to
 *    4 GiB, on 8 and 4 H100s and on 8 B200s.
 *  - At large sizes the busier direction of each GPU's port decides: the
 *    whole gathered buffer S (the allgather's multicast brings every
 *    block in, the sender's own too; the reduce-scatter's loads take
 *    every contribution out) at NVLS's share of the port, against the
 *    ring's (n - 1)/n S at the full port. So the ring is faster there,
 *    and the switch only saves the ring's n - 1 steps of latency.
 *  - Small sizes cost one crossing into the switch: half of NCCL's 25 us
 *    per NVLS operation, which the allreduce spends in two.
 *  - NCCL's model (collective.tuner nccl) has NVLS for both on one node
 *    of at most 32 GPUs; with every protocol it keeps the ring on a DGX
 *    H100 at every size, as the published NCCL 2.26 runs with NVLS
 *    enabled and forced off agree (validate/published/
 *    h100_node_nccl_tests.csv); with Simple alone it picks NVLS up to
 *    4 MiB.
 *  - One-node groups (tensor-parallel groups on several nodes) run it in
 *    each node's switch; across nodes, above 32 GPUs, and with LL or LL128
 *    it is refused with the reason.
 */
#include <math.h>

#include "sim/models/closed/gm_proto.h"
#include "sim/models/run/gm_run.h"
#include "sim/models/closed/gm_tuner.h"
#include "tests/models/run_testutil.h"

static const char ag[] = "schema_version: 1\n"
			 "topology: {preset: dgx-h100}\n"
			 "collective: {op: allgather, algo: nvls, sizes: [64KiB, 1MiB, 16MiB, 256MiB, "
			 "4GiB]}\n";

static void test_closed_form(void)
{
	static const char *const where[][2] = {{"topology.gpus_per_node=8", NULL},
					       {"topology.gpus_per_node=4", NULL},
					       {"topology.preset=dgx-b200", NULL}};
	for (size_t w = 0; w < G_N_ELEMENTS(where); w++)
		for (int rs = 0; rs < 2; rs++) {
			const char *op = rs ? "collective.op=reducescatter" : "collective.op=allgather";
			const char *const sets[] = {op, where[w][0], where[w][1], NULL};
			expect_closed_form_near(ag, sets, 0.01);
		}
}

/* 4 GiB on 8 H100s: S through each port at 0.85 x 374 GB/s, within 2 %;
 * the ring moves 7/8 S at the full port and is faster. */
static void test_port_bound(void)
{
	for (int rs = 0; rs < 2; rs++) {
		const char *op = rs ? "collective.op=reducescatter" : "collective.op=allgather";
		const char *const nv[] = {op, "collective.sizes=4GiB", NULL};
		const char *const ring[] = {op, "collective.sizes=4GiB", "collective.algo=ring", NULL};
		gm_run *a = run_yaml(ag, nv), *b = run_yaml(ag, ring);
		double S = 4294967296.0, bound = S / (0.85 * 374e9) * 1e6;
		g_test_message("%s 4 GiB: nvls %.0f us (port bound %.0f), ring %.0f us", op,
			       a->pts[0].time_us, bound, b->pts[0].time_us);
		g_assert_cmpfloat(fabs(a->pts[0].time_us - bound) / bound, <, 0.02);
		g_assert_cmpfloat(b->pts[0].time_us, <, a->pts[0].time_us);
		gm_run_free(a);
		gm_run_free(b);
	}
}

/* Small sizes: one crossing into the switch, 12.5 us, and no base
 * latency; the ring pays its launch and seven steps. Half the allreduce's
 * 25 us. */
static void test_latency(void)
{
	const char *const nv[] = {"collective.sizes=64B", NULL};
	const char *const rs[] = {"collective.sizes=64B", "collective.op=reducescatter", NULL};
	const char *const ar[] = {"collective.sizes=64B", "collective.op=allreduce", NULL};
	const char *const ring[] = {"collective.sizes=64B", "collective.algo=ring", NULL};
	gm_run *a = run_yaml(ag, nv), *r = run_yaml(ag, rs), *all = run_yaml(ag, ar);
	gm_run *b = run_yaml(ag, ring);
	g_test_message("64 B: allgather %.2f us, reduce-scatter %.2f, allreduce %.2f, ring %.2f",
		       a->pts[0].time_us, r->pts[0].time_us, all->pts[0].time_us, b->pts[0].time_us);
	g_assert_cmpfloat(fabs(a->pts[0].time_us - 12.5), <, 0.1);
	g_assert_cmpfloat(fabs(r->pts[0].time_us - 12.5), <, 0.1);
	g_assert_cmpfloat(fabs(all->pts[0].time_us - 25.0), <, 0.1);
	g_assert_cmpfloat(b->pts[0].time_us, >, 2 * a->pts[0].time_us);
	gm_run_free(a);
	gm_run_free(r);
	gm_run_free(all);
	gm_run_free(b);
}

/* NCCL's cost model: NVLS for allgather and reduce-scatter on one node
 * with 25 us and NVLS's bandwidth (16 channels, 0.85, 15/16 and the
 * (n - 1)/n of a gather, taken as the algorithm bandwidth); with every
 * protocol the ring wins on a DGX H100
 * at every size, with Simple alone NVLS wins up to 4 MiB. */
static void test_tuner(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {preset: dgx-h100}\n"
			   "collective: {op: allgather, algo: auto, protocol: auto, tuner: nccl,"
			   " sizes: [64KiB, 1MiB, 4MiB, 16MiB, 256MiB, 4GiB]}\n"
			   "sim: {fidelity: analytical}\n";
	for (int rs = 0; rs < 2; rs++) {
		const char *op = rs ? "collective.op=reducescatter" : "collective.op=allgather";
		const char *const all[] = {op, NULL};
		gm_run *r = run_yaml(yaml, all);
		double e = gm_tuner_time_us(&r->tuner, r->base.coll, GS_ALGO_NVLS, GM_PROTO_SIMPLE, 8);
		g_assert_cmpfloat_with_epsilon(e, 25.0, 0.01);
		/* 4 GiB: 374 x 0.85 x 15/16 x 7/8 GB/s, which NCCL takes as
		 * the algorithm bandwidth (no conversion for a non-ring
		 * allgather or reduce-scatter, as for PAT) */
		double bw = 374.0 * 0.85 * 15.0 / 16.0 * 7.0 / 8.0;
		e = gm_tuner_time_us(&r->tuner, r->base.coll, GS_ALGO_NVLS, GM_PROTO_SIMPLE,
				     4294967296ull);
		g_assert_cmpfloat(fabs(e - (25.0 + 4294967296.0 / (1000.0 * bw))) / e, <, 0.01);
		g_assert_cmpfloat(gm_tuner_time_us(&r->tuner, r->base.coll, GS_ALGO_NVLS, GM_PROTO_LL, 8),
				  <, 0);
		for (size_t i = 0; i < r->npts; i++)
			g_assert_cmpint(r->pts[i].algo, ==, GS_ALGO_RING);
		gm_run_free(r);
		const char *const simple[] = {op, "collective.protocol=simple", NULL};
		r = run_yaml(yaml, simple);
		for (size_t i = 0; i < r->npts; i++) {
			g_test_message("%s %llu B, Simple: NCCL picks %s", op,
				       (unsigned long long)r->pts[i].bytes,
				       gs_algo_name((gs_algo)r->pts[i].algo));
			g_assert_cmpint(r->pts[i].algo, ==,
					r->pts[i].bytes <= 4194304 ? GS_ALGO_NVLS : GS_ALGO_RING);
		}
		expect_points_are_forced_runs(yaml, r, simple);
		gm_run_free(r);
	}
	/* across nodes only with SHARP (25 us and NVLS's 18 us network
	 * hop), and not on 72 GPUs behind one switch */
	const char *const two[] = {"topology.nodes=2", NULL};
	gm_run *r = run_yaml(yaml, two);
	g_assert_cmpfloat(gm_tuner_time_us(&r->tuner, r->base.coll, GS_ALGO_NVLS, GM_PROTO_SIMPLE, 8),
			  <, 0);
	gm_run_free(r);
	const char *const sharp[] = {"topology.nodes=2", "topology.fabric.sharp=true", NULL};
	r = run_yaml(yaml, sharp);
	g_assert_cmpfloat_with_epsilon(
		gm_tuner_time_us(&r->tuner, r->base.coll, GS_ALGO_NVLS, GM_PROTO_SIMPLE, 8), 43.0, 0.01);
	gm_run_free(r);
	const char *const rack[] = {"topology.preset=gb200-nvl72", NULL};
	r = run_yaml(yaml, rack);
	g_assert_cmpfloat(gm_tuner_time_us(&r->tuner, r->base.coll, GS_ALGO_NVLS, GM_PROTO_SIMPLE, 8),
			  <, 0);
	g_assert_cmpfloat(
		gm_tuner_time_us(&r->tuner, GS_COLL_ALLREDUCE, GS_ALGO_NVLS, GM_PROTO_SIMPLE, 8), >, 0);
	gm_run_free(r);
}

/* Tensor-parallel groups of one node each, on 2 nodes: every group in its
 * own node's switch, as fast as one node alone. */
static void test_node_groups(void)
{
	const char *const one[] = {"collective.sizes=64MiB", NULL};
	const char *const grp[] = {"collective.sizes=64MiB", "topology.nodes=2", "collective.group.size=8",
				   NULL};
	gm_run *a = run_yaml(ag, one), *b = run_yaml(ag, grp);
	g_test_message("64 MiB: one node %.2f us, each of 2 nodes' groups %.2f us",
		       a->pts[0].time_us, b->pts[0].time_us);
	g_assert_cmpfloat(fabs(b->pts[0].time_us - a->pts[0].time_us) / a->pts[0].time_us, <, 1e-6);
	gm_run_free(a);
	gm_run_free(b);
}

/* Across nodes with SHARP: every GPU is its rail's head; the network
 * switch hands every node's block to every node (allgather) or adds the
 * nodes' sums (reduce-scatter). The closed form within 4 % of the flow run
 * on 2, 4 and 8 DGX H100 nodes and on nodes of 2 and 4 GPUs; small sizes
 * cost one NVLink crossing and NVLS's network hop (12.5 + 18 us); at
 * 1 GiB each GPU's port still takes the whole gathered buffer at NVLS's
 * share, so the ring is faster there, and NVLS is faster at 64 KiB. */
static void test_sharp(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {preset: dgx-h100, nodes: 2, fabric: {sharp: true}}\n"
			   "collective: {op: allgather, algo: nvls, sizes: [64KiB, 1MiB, 16MiB, "
			   "256MiB]}\n";
	static const char *const where[][2] = {{"topology.nodes=2", NULL},
					       {"topology.nodes=4", NULL},
					       {"topology.nodes=8", NULL},
					       {"topology.gpus_per_node=4", NULL},
					       {"topology.gpus_per_node=2", NULL}};
	for (size_t w = 0; w < G_N_ELEMENTS(where); w++)
		for (int rs = 0; rs < 2; rs++) {
			const char *op = rs ? "collective.op=reducescatter" : "collective.op=allgather";
			const char *const sets[] = {op, where[w][0], where[w][1], NULL};
			expect_closed_form_near(yaml, sets, 0.04);
		}
	const char *const tiny[] = {"collective.sizes=256B", NULL};
	gm_run *t = run_yaml(yaml, tiny);
	g_assert_cmpfloat(fabs(t->pts[0].time_us - 30.5), <, 0.1);
	gm_run_free(t);
	/* the ring compared in the same run (SHARP is the nvls run's) */
	const char *const big[] = {"collective.sizes=64KiB,1GiB", "collective.compare=ring", NULL};
	gm_run *a = run_yaml(yaml, big);
	const gm_point *b = a->cmp;
	g_test_message("2 nodes: nvls %.1f / %.1f us, ring %.1f / %.1f us at 64 KiB / 1 GiB",
		       a->pts[0].time_us, a->pts[1].time_us, b[0].time_us, b[1].time_us);
	g_assert_cmpfloat(a->pts[0].time_us, <, 0.5 * b[0].time_us);
	g_assert_cmpfloat(a->pts[1].time_us, >, b[1].time_us);
	double bound = 1073741824.0 / (0.85 * 374e9) * 1e6;
	g_assert_cmpfloat(a->pts[1].time_us, >, bound);
	g_assert_cmpfloat(a->pts[1].time_us, <, 1.05 * bound);
	gm_run_free(a);
	const char *const one[] = {"topology.gpus_per_node=1", NULL};
	expect_refused(yaml, one, "at least 2 GPUs per node");
}

static void test_refusals(void)
{
	const char *const two[] = {"topology.nodes=2", NULL};
	expect_refused(ag, two, "across nodes need the network's switches (SHARP");
	const char *const rack[] = {"topology.preset=gb200-nvl72", NULL};
	expect_refused(ag, rack, "at most 32 GPUs behind the switch");
	const char *const ll[] = {"collective.protocol=ll128", "collective.op=reducescatter", NULL};
	expect_refused(ag, ll, "Simple protocol only");
	const char *const a100[] = {"topology.preset=dgx-a100", NULL};
	expect_refused(ag, a100, "no NVLink SHARP");
	const char *const bc[] = {"collective.op=broadcast", NULL};
	expect_refused(ag, bc, "broadcast runs as NCCL's ring");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/nvls-agrs/closed-form", test_closed_form);
	g_test_add_func("/nvls-agrs/port-bound", test_port_bound);
	g_test_add_func("/nvls-agrs/latency", test_latency);
	g_test_add_func("/nvls-agrs/tuner", test_tuner);
	g_test_add_func("/nvls-agrs/node-groups", test_node_groups);
	g_test_add_func("/nvls-agrs/refusals", test_refusals);
	g_test_add_func("/nvls-agrs/sharp", test_sharp);
	return g_test_run();
}
