/* SPDX-License-Identifier: MIT */
/*
 * A node's inside. PCIe nodes (topology.intra: pcie): the routes through
 * PCIe switches, CPUs and sockets, with and without peer access; the
 * ring's latency and its bandwidth bound by whichever of those links it
 * crosses, derived by hand from the parameters; NVLink-bridged pairs; the
 * closed form against the flow runs; and every refusal. NICs shared by several GPUs
 * (topology.nics_per_node): the routes through the group's NIC, the
 * network bandwidth of a node, the fabric's leaves and rails counted in
 * NICs, and the refusals. NCCL's channels on one NVSwitch node.
 */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "sim/models/run/gm_run.h"
#include "sim/topologies/gt_topo.h"
#include "tests/models/run_testutil.h"

/* one node of 8 GPUs at 25 GB/s each, two per PCIe switch, four switches
 * over two sockets, AMD hosts (peer traffic through the CPUs at full rate) */
static const char *node8 = "schema_version: 1\n"
			   "topology: {kind: dgx, cpu: amd, intra: pcie, pcie: {bandwidth: 25GB/s, "
			   "switch_gpus: 2, sockets: 2}}\n"
			   "collective: {op: allreduce, algo: ring, sizes: [8B, 1GiB]}\n";

/* node8 without peer access, where the CPU vendor does not matter (and is
 * refused): the default (Intel) hosts */
static const char *staged = "schema_version: 1\n"
			    "topology: {kind: dgx, intra: pcie, pcie: {bandwidth: 25GB/s, "
			    "switch_gpus: 2, sockets: 2, p2p: false}}\n"
			    "collective: {op: allreduce, algo: ring, sizes: [8B, 1GiB]}\n";

/* a topology's links, instantiated into a net of their own */
typedef struct links_of {
	ge_engine e;
	gm_net net;
} links_of;

static void links_open(links_of *l, const gt_topo *t)
{
	ge_engine_init(&l->e, 1);
	gm_net_init(&l->net, &l->e, NULL, NULL);
	gt_topo_instantiate(t, &l->net);
}

static void links_close(links_of *l)
{
	gm_net_fini(&l->net);
	ge_engine_fini(&l->e);
}

static int route_of(const gt_topo *t, int a, int b, uint32_t *route)
{
	return gt_topo_route(t, a, b, route);
}

static void test_routes(void)
{
	const char *two_nodes[] = {"topology.nodes=2", NULL};
	gm_run *r = run_yaml(node8, two_nodes);
	const gt_topo *t = &r->topo;
	g_assert_cmpint(t->intra, ==, GT_INTRA_PCIE);
	g_assert_true(t->no_nvls);
	links_of l;
	links_open(&l, t);
	const gm_net *net = &l.net;
	/* 6 links per GPU, then per node 4 switches' up and down links and
	 * the two sockets' links */
	g_assert_cmpuint(net->nlinks, ==, 16 * 6 + 2 * (4 * 2 + 2));
	uint32_t nb = 16 * 6; /* node 0's own links */
	g_assert_cmpstr(net->info[0].name, ==, "n0.gpu0.p2p.tx");
	g_assert_cmpint(net->info[0].lat_ps, ==, 5700000);
	g_assert_cmpstr(net->info[nb].name, ==, "n0.pcisw0.up");
	g_assert_cmpstr(net->info[nb + 8].name, ==, "n0.cpu0.to.cpu1");
	g_assert_cmpstr(net->info[nb + 10].name, ==, "n1.pcisw0.up");
	uint32_t route[GM_MAX_HOPS];
	/* under one switch: the GPUs' own links only */
	g_assert_cmpint(route_of(t, 0, 1, route), ==, 4);
	uint32_t want1[] = {0 * 6 + 0, 0 * 6 + 2, 1 * 6 + 3, 1 * 6 + 1};
	g_assert_cmpmem(route, sizeof(want1), want1, sizeof(want1));
	/* another switch on the same socket: up to the CPU and down */
	g_assert_cmpint(route_of(t, 1, 2, route), ==, 6);
	uint32_t want2[] = {1 * 6 + 0, 1 * 6 + 2, nb + 0, nb + 2 * 1 + 1, 2 * 6 + 3, 2 * 6 + 1};
	g_assert_cmpmem(route, sizeof(want2), want2, sizeof(want2));
	/* the other socket: across between the CPUs, each way its own link */
	g_assert_cmpint(route_of(t, 3, 4, route), ==, 7);
	g_assert_cmpuint(route[3], ==, nb + 8);
	g_assert_cmpint(route_of(t, 7, 0, route), ==, 7);
	g_assert_cmpuint(route[3], ==, nb + 9);
	/* across nodes: the GPU's PCIe link to its NIC, as on NVSwitch nodes */
	g_assert_cmpint(route_of(t, 2, 8 + 2, route), ==, 4);
	g_assert_cmpuint(route[0], ==, 2 * 6 + 2);
	g_assert_cmpuint(route[1], ==, 2 * 6 + 4);
	/* node 1's inside is its own */
	g_assert_cmpint(route_of(t, 9, 10, route), ==, 6);
	g_assert_cmpuint(route[2], ==, nb + 10);
	for (int a = 0; a < 16; a++)
		for (int b = 0; b < 16; b++) {
			if (a == b)
				continue;
			int h = route_of(t, a, b, route);
			for (int k = 0; k < h; k++)
				g_assert_cmpuint(route[k], <, net->nlinks);
		}
	links_close(&l);
	gm_run_free(r);

	/* without peer access even GPUs under one switch meet in host memory */
	r = run_yaml(staged, NULL);
	g_assert_cmpint(route_of(&r->topo, 0, 1, route), ==, 6);
	g_assert_cmpuint(route[2], ==, nb / 2 + 0);	/* switch 0 up (one node: 8 x 6 GPU links) */
	g_assert_cmpuint(route[3], ==, nb / 2 + 1);	/* and down again */
	gm_run_free(r);
}

/* 8 B: the launch and 2(n-1) messages of the PCIe latency, one after the
 * other; 1 GiB: the ring moves S/n per step at the rate of the narrowest
 * link it crosses, each link carrying one GPU's stream (two per switch
 * uplink without peer access, two GPUs per switch) */
static void test_ring_bounds(void)
{
	gm_run *r = run_yaml(node8, NULL);
	g_assert_cmpfloat(fabs(r->pts[0].time_us - (8.4 + 14 * 5.7)), <, 0.01);
	g_assert_cmpfloat(fabs(r->pts[1].busbw_GBps - 25.0) / 25.0, <, 0.01);
	gm_run_free(r);
	struct {
		const char *yaml, *set1, *set2;
		double want_GBps;
	} cases[] = {
		{node8, "topology.pcie.socket_bandwidth=10GB/s", NULL, 10.0},
		{node8, "topology.pcie.uplink_bandwidth=16GB/s", NULL, 16.0},
		{staged, NULL, NULL, 12.5},
		{staged, "topology.pcie.uplink_bandwidth=40GB/s", NULL, 20.0},
		{node8, "topology.pcie.switch_gpus=8", "topology.pcie.sockets=1", 25.0},
		/* Intel hosts forward peer traffic in 64 B packets: 5/6 of the
		 * socket link; staging in host memory is not peer traffic */
		{node8, "topology.cpu=intel", NULL, 25.0 * 5 / 6},
	};
	const char *amd_staged[] = {"topology.pcie.p2p=false", NULL};
	expect_refused(node8, amd_staged, "topology.cpu: not used by this run");
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		const char *sets[] = {cases[i].set1, cases[i].set2, NULL};
		r = run_yaml(cases[i].yaml, sets);
		g_test_message("%s %s: busbw %.3f GB/s, want %.1f", cases[i].set1 ? cases[i].set1 : "",
			       cases[i].set2 ? cases[i].set2 : "", r->pts[1].busbw_GBps, cases[i].want_GBps);
		g_assert_cmpfloat(fabs(r->pts[1].busbw_GBps - cases[i].want_GBps) / cases[i].want_GBps, <,
				  0.01);
		gm_run_free(r);
	}
}

/* the closed form follows the flow runs: ring and tree, one node and two,
 * peer access or not, an all-to-all */
static void test_closed_form(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {kind: dgx, intra: pcie, pcie: {bandwidth: 25GB/s, "
			   "socket_bandwidth: 20GB/s}}\n"
			   "collective: {op: allreduce, algo: ring, sizes: [8B, 1MiB, 64MiB, 1GiB]}\n";
	const char *ring2[] = {"topology.nodes=2", "topology.nic.bandwidth=200Gbps", NULL};
	const char *shm[] = {"topology.pcie.p2p=false", NULL};
	const char *tree[] = {"collective.algo=tree", "topology.nodes=2",
			      "topology.nic.bandwidth=200Gbps", NULL};
	expect_closed_form_near(yaml, NULL, 0.02);
	expect_closed_form_near(yaml, ring2, 0.10);
	expect_closed_form_near(yaml, shm, 0.02);
	expect_closed_form_near(yaml, tree, 0.15);
}

/* every algorithm a PCIe node allows runs under the engine's invariants */
static void test_check_mode(void)
{
	const char *ops[][2] = {{"allreduce", "tree"}, {"allgather", "ring"}, {"reducescatter", "pat"},
				{"alltoall", "pairwise"}, {"broadcast", "ring"}};
	for (size_t i = 0; i < G_N_ELEMENTS(ops); i++) {
		char *yaml = g_strdup_printf("schema_version: 1\n"
					     "topology: {kind: dgx, nodes: 2, intra: pcie, pcie: {p2p: %s}}\n"
					     "collective: {op: %s, algo: %s, sizes: [4KiB, 4MiB]}\n"
					     "sim: {check: true}\n",
					     i % 2 ? "false" : "true", ops[i][0], ops[i][1]);
		gm_run *r = run_yaml(yaml, NULL);
		g_assert_cmpfloat(r->pts[1].time_us, >, r->pts[0].time_us);
		gm_run_free(r);
		g_free(yaml);
	}
}

static void test_refusals(void)
{
	expect_refused(node8, (const char *[]){"collective.algo=nvls", NULL}, "has no NVSwitch");
	expect_refused(node8, (const char *[]){"collective.algo=nvlstree", "topology.nodes=2", NULL},
		       "has no NVSwitch");
	expect_refused(node8, (const char *[]){"topology.nvlink.bandwidth=100GB/s", NULL},
		       "applies to topology.intra nvswitch, not pcie");
	expect_refused(node8, (const char *[]){"topology.pcie.switch_gpus=3", NULL},
		       "do not divide a node of 8 GPUs");
	expect_refused(node8, (const char *[]){"topology.pcie.switch_gpus=8", NULL},
		       "do not split evenly between 2 sockets");
	expect_refused(node8,
		       (const char *[]){"topology.nodes=4", "topology.fabric.kind=rail",
					"topology.fabric.pxn=true", NULL},
		       "PXN reaches another rail over NVLink");
	const char *dgx = "schema_version: 1\n"
			  "topology: {preset: dgx-h100}\n"
			  "collective: {op: allreduce, sizes: [8B]}\n";
	expect_refused(dgx, (const char *[]){"topology.intra=pcie", NULL}, "has NVSwitch nodes");
	expect_refused(dgx, (const char *[]){"topology.pcie.p2p=false", NULL},
		       "applies to topology.intra pcie, not nvswitch");
	const char *flat = "schema_version: 1\n"
			   "topology: {kind: flat, gpus: 8}\n"
			   "collective: {op: allreduce, sizes: [8B]}\n";
	expect_refused(flat, (const char *[]){"topology.pcie.sockets=1", NULL},
		       "does not apply to topology kind flat");
	expect_refused(flat, (const char *[]){"topology.intra=pcie", NULL},
		       "does not apply to topology kind flat");
}

/* PCIe cards in NVLink-bridged pairs: a pair's route is its bridge alone,
 * the rest as without; the ring's 8 B crosses 7 bridges and 7 PCIe hops;
 * pairs (TP 2) run at the bridge's rate, the 8-GPU ring still at PCIe's */
static void test_nvlink_bridges(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {kind: dgx, cpu: amd, intra: pcie, pcie: {bandwidth: 52GB/s, switch_gpus: 2, "
			   "nvlink_bridge: 250GB/s}}\n"
			   "collective: {op: allreduce, algo: ring, sizes: [8B, 1GiB]}\n";
	gm_run *r = run_yaml(yaml, NULL);
	const gt_topo *t = &r->topo;
	links_of l;
	links_open(&l, t);
	const gm_net *net = &l.net;
	/* 6 per GPU; 4 switches' up and down, 2 socket links, 8 bridge links */
	g_assert_cmpuint(net->nlinks, ==, 8 * 6 + 8 + 2 + 8);
	uint32_t route[GM_MAX_HOPS];
	g_assert_cmpint(route_of(t, 4, 5, route), ==, 1);
	g_assert_cmpstr(net->info[route[0]].name, ==, "n0.gpu4.bridge.to.gpu5");
	g_assert_cmpint(net->info[route[0]].kind, ==, GM_LINK_NVLINK);
	g_assert_cmpfloat(net->links[route[0]].bw_Bps, ==, 250e9);
	g_assert_cmpint(route_of(t, 5, 4, route), ==, 1);
	g_assert_cmpstr(net->info[route[0]].name, ==, "n0.gpu5.bridge.to.gpu4");
	g_assert_cmpint(route_of(t, 5, 6, route), ==, 6); /* another switch: PCIe */
	links_close(&l);
	g_assert_cmpfloat(fabs(r->pts[0].time_us - (8.4 + 7 * 5.7 + 7 * 3.4)), <, 0.01);
	g_assert_cmpfloat(fabs(r->pts[1].busbw_GBps - 52.0) / 52.0, <, 0.01);
	gm_run_free(r);
	const char *pairs[] = {"collective.group.size=2", NULL};
	r = run_yaml(yaml, pairs);
	g_assert_cmpfloat(fabs(r->pts[0].time_us - (8.4 + 2 * 3.4)), <, 0.01);
	g_assert_cmpfloat(fabs(r->pts[1].busbw_GBps - 250.0) / 250.0, <, 0.02);
	gm_run_free(r);
	expect_closed_form_near(yaml, pairs, 0.02);
	/* without peer access the pair meets in host memory, as any other
	 * (the CPU vendor, which no longer matters, left out) */
	r = run_yaml("schema_version: 1\n"
		     "topology: {kind: dgx, intra: pcie, pcie: {bandwidth: 52GB/s, switch_gpus: 2, "
		     "nvlink_bridge: 250GB/s, p2p: false}}\n"
		     "collective: {op: allreduce, algo: ring, sizes: [8B, 1GiB]}\n",
		     NULL);
	g_assert_cmpint(route_of(&r->topo, 4, 5, route), ==, 6);
	gm_run_free(r);
	expect_refused(yaml, (const char *[]){"topology.gpus_per_node=3", "topology.pcie.switch_gpus=1",
					      "topology.pcie.sockets=1", NULL},
		       "bridges join GPUs in pairs");
	expect_refused(node8, (const char *[]){"topology.pcie.bridge_latency=2us", NULL},
		       "applies with topology.pcie.nvlink_bridge > 0");
}

/* 8 GPUs sharing 4 NICs, two GPUs each */
static void test_shared_nic_routes(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {kind: dgx, nodes: 2, nics_per_node: 4}\n"
			   "collective: {op: allreduce, algo: ring, sizes: [8B]}\n";
	gm_run *r = run_yaml(yaml, NULL);
	const gt_topo *t = &r->topo;
	g_assert_cmpint(t->nic_share, ==, 2);
	g_assert_cmpint(gt_topo_nics(t), ==, 4);
	g_assert_cmpint(gt_topo_comm_nics(t, 8), ==, 4);
	g_assert_cmpint(gt_topo_comm_nics(t, 3), ==, 2);
	g_assert_cmpint(gt_topo_comm_nics(t, 1), ==, 1);
	links_of l;
	links_open(&l, t);
	const gm_net *net = &l.net;
	g_assert_cmpstr(net->info[2 * 6 + 4].name, ==, "n0.nic1.tx");
	uint32_t route[GM_MAX_HOPS];
	/* GPU 3 leaves through GPU 2's NIC and arrives through GPU 10's */
	g_assert_cmpint(route_of(t, 3, 8 + 3, route), ==, 4);
	uint32_t want[] = {3 * 6 + 2, 2 * 6 + 4, 10 * 6 + 5, 11 * 6 + 3};
	g_assert_cmpmem(route, sizeof(want), want, sizeof(want));
	links_close(&l);
	gm_run_free(r);

	/* a node's network is its NICs: a ring across two nodes at 1 GiB
	 * reaches a busbw of 50 GB/s (one NIC's 400 Gb/s) per NIC of a node,
	 * however many GPUs share each */
	const char *big = "schema_version: 1\n"
			  "topology: {kind: dgx, nodes: 2}\n"
			  "collective: {op: allreduce, algo: ring, sizes: [1GiB]}\n";
	for (int nics = 1; nics <= 8; nics *= 2) {
		char set[64];
		snprintf(set, sizeof(set), "topology.nics_per_node=%d", nics);
		const char *sets[] = {set, NULL};
		gm_run *b = run_yaml(big, sets);
		double want_GBps = nics * 50.0;
		g_test_message("%d NICs: busbw %.2f GB/s, want %.0f", nics, b->pts[0].busbw_GBps, want_GBps);
		g_assert_cmpfloat(fabs(b->pts[0].busbw_GBps - want_GBps) / want_GBps, <, 0.01);
		gm_run_free(b);
	}
	/* the closed form loads each shared NIC with all its GPUs' messages */
	const char *two[] = {"topology.nics_per_node=2", NULL};
	expect_closed_form_near(big, two, 0.02);

	/* rail and fat tree count NICs: 4 rails, leaves of 8 NICs hold 2 nodes */
	const char *rail = "schema_version: 1\n"
			   "topology: {kind: dgx, nodes: 4, nics_per_node: 4, fabric: {kind: rail, "
			   "leaf_nics: 2, routing: dmodk}}\n"
			   "collective: {op: allreduce, algo: ring, sizes: [8B]}\n";
	r = run_yaml(rail, NULL);
	g_assert_cmpint(r->topo.nleaves, ==, 8);
	g_assert_cmpint(gt_topo_leaf_of(&r->topo, 5), ==, 2);
	g_assert_cmpint(gt_topo_leaf_of(&r->topo, 16 + 7), ==, 4 + 3);
	/* PXN: GPU 1 to GPU 8+5 crosses NVLink to GPU 4, whose NIC is on rail 2;
	 * to GPU 8+0, GPU 1's own NIC (GPU 0's) is on the receiver's rail */
	g_assert_cmpint(route_of(&r->topo, 1, 8 + 5, route), ==, 6);
	g_assert_cmpuint(route[1], ==, 4 * 6 + 1);
	g_assert_cmpuint(route[3], ==, 4 * 6 + 4);
	g_assert_cmpint(route_of(&r->topo, 1, 8 + 0, route), ==, 4);
	g_assert_cmpuint(route[1], ==, 0 * 6 + 4);
	gm_run_free(r);
	const char *ft = "schema_version: 1\n"
			 "topology: {kind: dgx, nodes: 4, nics_per_node: 4, fabric: {kind: fat-tree, "
			 "leaf_nics: 8}}\n"
			 "collective: {op: allreduce, algo: ring, sizes: [8B]}\n";
	r = run_yaml(ft, NULL);
	g_assert_cmpint(r->topo.nleaves, ==, 2);
	g_assert_cmpint(gt_topo_leaf_of(&r->topo, 8 + 7), ==, 0);
	g_assert_cmpint(gt_topo_leaf_of(&r->topo, 16), ==, 1);
	gm_run_free(r);

	expect_refused(yaml, (const char *[]){"topology.nics_per_node=3", NULL},
		       "3 NICs cannot be shared evenly by a node of 8 GPUs");
	expect_refused(ft, (const char *[]){"topology.fabric.leaf_nics=6", NULL},
		       "split a node of 4 NICs across leaves");
	expect_refused(node8, (const char *[]){"topology.nics_per_node=2", NULL},
		       "a NIC shared by 4 GPUs does not sit under one PCIe switch of 2");
	const char *flat = "schema_version: 1\n"
			   "topology: {kind: flat, gpus: 8}\n"
			   "collective: {op: allreduce, sizes: [8B]}\n";
	expect_refused(flat, (const char *[]){"topology.nics_per_node=4", NULL},
		       "does not apply to topology kind flat");
}

/* The channels of a communicator within one NVSwitch node: NCCL's NVLink
 * search (gt_topo.c nccl_node_channels), whatever the node's GPU count;
 * across nodes two per NIC; without a GPU generation two per GPU. A 4-GPU
 * B200 node's ring then reaches its NVLink port, where its GPUs' 8 channels
 * of 68.7 GB/s stopped it at 549 GB/s. */
static void test_node_channels(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {preset: dgx-h100}\n"
			   "collective: {op: allreduce, algo: ring, sizes: [8GiB]}\n";
	struct {
		const char *sets[3];
		int channels;
	} cases[] = {
		{{NULL}, 24},					     /* 374 GB/s: 6 at 60, 12, 24 */
		{{"topology.preset=dgx-a100", NULL}, 24},	     /* 240: 6 at 40, 12, 24 */
		{{"topology.preset=dgx-b200", NULL}, 32},	     /* 722: 8 at 90, 16, 32 */
		{{"topology.preset=dgx-b200", "topology.gpus_per_node=4", NULL}, 32},
		{{"topology.nvlink.bandwidth=164.8GB/s", NULL}, 16}, /* H800's 8 links: 4 at 40 */
		{{"topology.gpu_arch=none", NULL}, 16},		     /* no speed table */
		{{"topology.nodes=2", NULL}, 16},		     /* two per NIC */
		{{"topology.nodes=4", "collective.group.size=8", NULL}, 24}, /* TP groups */
		{{"topology.nodes=4", "collective.group.stride=8", NULL}, 16}, /* DP groups */
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		gm_run *r = run_yaml(yaml, cases[i].sets);
		g_test_message("%s %s: %d channels", cases[i].sets[0] ? cases[i].sets[0] : "dgx-h100",
			       cases[i].sets[1] ? cases[i].sets[1] : "", r->base.nchannels);
		g_assert_cmpint(r->base.nchannels, ==, cases[i].channels);
		gm_run_free(r);
	}
	/* the 4-GPU B200 node: at the port with NCCL's 32, at 8 x 68.7 GB/s
	 * with 8 */
	const char *const b4[] = {"topology.preset=dgx-b200", "topology.gpus_per_node=4", NULL};
	const char *const b4c8[] = {"topology.preset=dgx-b200", "topology.gpus_per_node=4",
				    "collective.channels=8", NULL};
	gm_run *a = run_yaml(yaml, b4), *b = run_yaml(yaml, b4c8);
	g_test_message("4 B200s, 8 GiB: busbw %.1f GB/s with 32 channels, %.1f with 8",
		       a->pts[0].busbw_GBps, b->pts[0].busbw_GBps);
	g_assert_cmpfloat(a->pts[0].busbw_GBps, >, 0.98 * 722);
	g_assert_cmpfloat(b->pts[0].busbw_GBps, <, 8 * 68.7);
	gm_run_free(a);
	gm_run_free(b);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/pcie/routes", test_routes);
	g_test_add_func("/pcie/ring-bounds", test_ring_bounds);
	g_test_add_func("/pcie/closed-form", test_closed_form);
	g_test_add_func("/pcie/check-mode", test_check_mode);
	g_test_add_func("/pcie/refusals", test_refusals);
	g_test_add_func("/pcie/nvlink-bridges", test_nvlink_bridges);
	g_test_add_func("/node/shared-nics", test_shared_nic_routes);
	g_test_add_func("/node/channels", test_node_channels);
	return g_test_run();
}
