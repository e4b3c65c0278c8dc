/* SPDX-License-Identifier: MIT */
/*
 * Folding (gm_coll_fold_ranks): where the schedule repeats every few ranks
 * and the topology every few GPUs, the flow run simulates one block of
 * ranks for all. Checked here against the unfolded run and from first
 * principles:
 *
 *  - the generators' declared periods hold step by step
 *    (gs_gen_period_holds) for the ring's three collectives, both
 *    all-to-alls and grouped communicators, and the ring's allreduce
 *    declares none where its last chunks are uneven (where the period
 *    indeed fails);
 *  - the topologies' periods hold link by link: every link has the
 *    bandwidth, latency and class of the first block's image it folds
 *    to, and every route between GPUs moved by a block folds onto the
 *    unmoved route (flat, nonblocking, fat tree, rail with PXN, pods,
 *    PCIe nodes, channel links); ecmp and dmodk declare none;
 *  - folded and unfolded runs give the same times (within 0.1 %; most
 *    to the picosecond), steps, messages, per-link figures and
 *    critical-path split, on each of those topologies, for ring,
 *    all-to-all and concurrent communicators, and with back-to-back
 *    iterations driven by shared host threads; the folded run simulates
 *    fewer ranks and handles fewer events;
 *  - the same with a transport's stages (NCCL's proxy, NVSHMEM IBGDA and
 *    IBRC, on InfiniBand and EFA): per-rank proxy threads and queue pairs;
 *  - the same in the packet fidelity (its hops' queues);
 *  - the tree and nvlstree fold channels instead (gm_coll_fold_channels):
 *    the schedules' rotations hold step by step where they declare them
 *    (and fail where they do not), links and routes rotate on nodes whose
 *    links each belong to one GPU (and the fabrics and PCIe nodes that do
 *    not say so), and channel-folded runs agree with unfolded ones as
 *    above; back-to-back operations are not channel-folded;
 *  - runs that must see every rank are not folded: faults, uneven
 *    chunks, ecmp, sim.fold false.
 */
#include <math.h>

#include "sim/models/exec/gm_coll.h"
#include "sim/models/run/gm_run.h"
#include "sim/sched/gs_sched.h"
#include "tests/models/run_testutil.h"

/* A scenario with a dgx-h100 cluster of NODES nodes and FABRIC, running
 * COLL, text built by the caller. */
static char *yaml_of(const char *topo, const char *coll)
{
	return g_strdup_printf("schema_version: 1\ntopology: %s\ncollective: %s\n", topo, coll);
}

/* Run yaml folded (the default) and with sim.fold false, with extra sets;
 * every point must agree within 0.1 % (and the figures that count whole
 * things exactly); the folded one must simulate fewer ranks than it has
 * when `folds`, all of them otherwise. */
static void compare(const char *yaml, const char *set, bool folds)
{
	const char *fold_sets[] = {set, NULL};
	const char *flat_sets[] = {"sim.fold=false", set, NULL};
	/* the critical path is the flow fidelity's */
	const bool pkt = set && strstr(set, "packet");
	gm_run_opts fo = {.sets = set ? fold_sets : NULL, .links = true, .breakdown = !pkt};
	gm_run_opts uo = {.sets = flat_sets, .links = true, .breakdown = !pkt};
	gm_run *f = run_yaml_with(yaml, &fo), *u = run_yaml_with(yaml, &uo);
	g_assert_cmpuint(f->npts, ==, u->npts);
	for (size_t i = 0; i < f->npts; i++) {
		const gm_coll_result *a = &f->pts[i].r, *b = &u->pts[i].r;
		const int n = f->topo.ngpus;
		g_test_message("%s%s%s: %llu B: folded %.6f us on %d of %d ranks, a channel for %d "
			       "(%llu events), unfolded %.6f us (%llu events)",
			       yaml, set ? " --set " : "", set ? set : "",
			       (unsigned long long)f->pts[i].bytes, f->pts[i].time_us, a->sim_ranks, n,
			       a->chan_fold, (unsigned long long)a->events, u->pts[i].time_us,
			       (unsigned long long)b->events);
		/* every GPU's rank, and the helpers (NVLS switch units) */
		g_assert_cmpint(b->sim_ranks, >=, n);
		g_assert_cmpint(b->chan_fold, ==, 1);
		if (folds) {
			/* fewer ranks, or (channel-folded) fewer channels of each */
			g_assert_true(a->sim_ranks < n || a->chan_fold > 1);
			g_assert_true(a->sim_ranks == b->sim_ranks || a->chan_fold == 1);
			g_assert_true(a->chan_fold > 1 || n % a->sim_ranks == 0);
			g_assert_cmpuint(a->events, <, b->events);
		} else {
			g_assert_cmpint(a->sim_ranks, ==, b->sim_ranks);
			g_assert_cmpint(a->chan_fold, ==, 1);
		}
		double rel = fabs((double)a->time_ps - (double)b->time_ps) / (double)b->time_ps;
		g_assert_cmpfloat(rel, <=, 1e-3);
		g_assert_cmpuint(a->steps, ==, b->steps);
		g_assert_cmpuint(a->messages, ==, b->messages);
		/* a transport's: its messages, its busiest proxy and NIC stage */
		g_assert_cmpuint(a->xp_msgs, ==, b->xp_msgs);
		g_assert_cmpfloat(fabs((double)(a->xp_proxy_busy_ps - b->xp_proxy_busy_ps)), <=,
				  1e-3 * (double)b->total_ps);
		g_assert_cmpfloat(fabs((double)(a->xp_nic_busy_ps - b->xp_nic_busy_ps)), <=,
				  1e-3 * (double)b->total_ps);
		/* per link: the folded run's figures are its image's */
		g_assert_cmpuint(a->nlinks, ==, b->nlinks);
		for (uint32_t l = 0; l < a->nlinks; l++) {
			g_assert_cmpstr(a->links[l].name, ==, b->links[l].name);
			double db = fabs(a->links[l].bytes - b->links[l].bytes);
			g_assert_cmpfloat(db, <=, 1e-6 * b->links[l].bytes + 1);
			double dt = fabs((double)(a->links[l].busy_ps - b->links[l].busy_ps));
			g_assert_cmpfloat(dt, <=, 1e-3 * (double)b->total_ps);
		}
		/* the critical path's split: the same sum, its parts alike */
		g_assert_true(a->has_cp == !pkt && b->has_cp == !pkt);
		for (int k = 0; k < GM_CP__COUNT; k++)
			g_assert_cmpfloat(fabs((double)(a->cp_ps[k] - b->cp_ps[k])), <=,
					  1e-3 * (double)b->total_ps);
	}
	gm_run_free(f);
	gm_run_free(u);
}

static void check_period(const gs_params *p, bool declared)
{
	gs_gen *g = NULL;
	char *err = NULL;
	gc_status st = gs_gen_create(p, &g, &err);
	if (st != GC_OK)
		g_test_message("%s", err);
	g_assert_cmpint(st, ==, GC_OK);
	g_test_message("%s %s, %d ranks (%d a node), %llu B, group %d stride %d: period %d",
		       gs_algo_name(p->algo), gs_coll_name(p->coll), p->nranks, p->ranks_per_node,
		       (unsigned long long)p->bytes, p->group_size, p->group_stride, g->rank_period);
	if (declared) {
		g_assert_cmpint(g->rank_period, >, 0);
		char *why = NULL;
		bool ok = gs_gen_period_holds(g, g->rank_period, &why);
		if (!ok)
			g_test_message("%s", why);
		g_assert_true(ok);
		/* every multiple dividing the ranks holds too */
		if (p->nranks % (2 * g->rank_period) == 0)
			g_assert_true(gs_gen_period_holds(g, 2 * g->rank_period, NULL));
	} else {
		g_assert_cmpint(g->rank_period, ==, 0);
	}
	gs_gen_free(g);
}

static void test_schedule_periods(void)
{
	gs_params p = {
		.coll = GS_COLL_ALLREDUCE,
		.algo = GS_ALGO_RING,
		.nranks = 16,
		.ranks_per_node = 4,
		.nchannels = 4,
		.dtype = GS_DT_F32,
		.chunk_bytes = 4096,
		.slice_bytes = 1024,
	};
	/* allreduce: 16 ranks x 4 channels x chunks of whole floats; loops
	 * of 16 chunks, a last partial loop of 16 equal chunks */
	p.bytes = 16 * 4 * 4 * 1000;
	check_period(&p, true);
	p.ring_pairs = true;
	check_period(&p, true);
	p.ring_pairs = false;
	/* uneven last chunks: none declared, and rank 0 and rank 4 differ */
	p.bytes = 4 * (16 * 4 * 1000 + 4);
	check_period(&p, false);
	{
		gs_gen *g = NULL;
		char *err = NULL;
		g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
		char *why = NULL;
		g_assert_false(gs_gen_period_holds(g, 4, &why));
		g_test_message("uneven: %s", why);
		g_free(why);
		gs_gen_free(g);
	}
	p.coll = GS_COLL_ALLGATHER;
	p.bytes = 16 * 4 * 777;
	check_period(&p, true);
	p.coll = GS_COLL_REDUCESCATTER;
	check_period(&p, true);
	p.coll = GS_COLL_ALLTOALL;
	p.algo = GS_ALGO_PAIRWISE;
	p.bytes = 16 * 4 * 3000;
	check_period(&p, true);
	p.algo = GS_ALGO_PUT;
	check_period(&p, true);
	p.coll = GS_COLL_SENDRECV;
	p.algo = GS_ALGO_RING;
	check_period(&p, true);
	/* communicators: DP groups (stride 4, one block) and TP groups
	 * (4 consecutive ranks, four blocks) */
	p.coll = GS_COLL_ALLREDUCE;
	p.algo = GS_ALGO_RING;
	p.bytes = 4 * 4 * 4 * 1000;
	p.group_size = 4;
	p.group_stride = 4;
	check_period(&p, true);
	p.group_stride = 1;
	check_period(&p, true);
	p.group_size = 0;
	p.group_stride = 0;
	/* the double binary tree: none */
	p.algo = GS_ALGO_TREE;
	check_period(&p, false);
}

/* An allreduce's schedule over 32 ranks, 8 a node. */
static gs_gen *gen_32(gs_algo algo, int nch, int64_t bytes)
{
	gs_params p = {0};
	p.coll = GS_COLL_ALLREDUCE;
	p.algo = algo;
	p.nranks = 32;
	p.ranks_per_node = 8;
	p.nchannels = nch;
	p.dtype = GS_DT_F32;
	p.chunk_bytes = 4096;
	p.slice_bytes = 1024;
	p.bytes = (uint64_t)bytes;
	gs_gen *g = NULL;
	char *err = NULL;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	return g;
}

/* Channels that rotate with a node's ranks (gs_gen.chan_shift S in groups
 * of G, 0: all): the double binary tree's (channel c + 2's chain starts
 * one local rank further on; S 2) where its heads take every local rank
 * once per tree and its channels' parts are equal; nvlstree's blocks
 * (block c n + k + 1 is block c n + k owned by the next GPU of every node,
 * the node's switch units staying in place; S 1, G 8) where they are
 * equal. Where declared, the rotation holds step by step and one it does
 * not declare fails; where not, it indeed does not hold. */
static void check_rotation_decl(gs_algo algo, int nch, int64_t bytes, int S, int G, bool declared)
{
	gs_gen *g = gen_32(algo, nch, bytes);
	g_test_message("%s, 32 ranks (8 a node), %d channels, %lld B: shift %d in groups of %d",
		       gs_algo_name(algo), nch, (long long)bytes, g->chan_shift, g->chan_group);
	char *why = NULL;
	if (declared) {
		g_assert_cmpint(g->chan_shift, ==, S);
		g_assert_cmpint(g->chan_group, ==, G);
		bool ok = gs_gen_rotation_holds(g, S, G, &why);
		if (!ok)
			g_test_message("%s", why);
		g_assert_true(ok);
		/* a rotation it does not declare */
		g_assert_false(gs_gen_rotation_holds(g, 1, 0, &why));
		g_test_message("shift 1 over all channels: %s", why);
	} else {
		g_assert_cmpint(g->chan_shift, ==, 0);
		g_assert_false(gs_gen_rotation_holds(g, S, G, &why));
		g_test_message("%s", why);
	}
	g_free(why);
	gs_gen_free(g);
}

/* Channel groups that repeat on the same ranks (gs_gen.chan_repeat T):
 * nvlstree's group c + 2 is group c on the same tree, so it declares 2
 * where it has more than 2 groups (channels) and they rotate; group c + 1
 * is on the other tree, which is no repeat. */
static void check_repeat_decl(int nch, int64_t bytes, int T)
{
	gs_gen *g = gen_32(GS_ALGO_NVLS_TREE, nch, bytes);
	g_test_message("nvlstree, 32 ranks (8 a node), %d channels, %lld B: repeat %d", nch,
		       (long long)bytes, g->chan_repeat);
	g_assert_cmpint(g->chan_repeat, ==, T);
	char *why = NULL;
	if (T > 0) {
		bool ok = gs_gen_repeat_holds(g, T, &why);
		if (!ok)
			g_test_message("%s", why);
		g_assert_true(ok);
	}
	/* the other tree's group is not the same */
	g_assert_false(gs_gen_repeat_holds(g, 1, &why));
	g_test_message("repeat 1: %s", why);
	g_free(why);
	gs_gen_free(g);
}

static void test_schedule_repeat(void)
{
	check_repeat_decl(4, 4 * 32 * 1000, 2);
	check_repeat_decl(8, 4 * 64 * 1000, 2);
	check_repeat_decl(2, 4 * 16 * 1000, 0);	     /* one group a tree: nothing repeats */
	check_repeat_decl(4, 4 * 32 * 1000 + 4, 0); /* uneven parts: no rotation either */
}

static void test_schedule_rotation(void)
{
	check_rotation_decl(GS_ALGO_TREE, 16, 4 * 16 * 1000, 2, 0, true);
	check_rotation_decl(GS_ALGO_TREE, 16, 4 * 16 * 1000 + 4, 2, 0, false); /* uneven parts */
	check_rotation_decl(GS_ALGO_TREE, 8, 4 * 16 * 1000, 2, 0, false); /* heads on half the GPUs */
	check_rotation_decl(GS_ALGO_NVLS_TREE, 4, 4 * 32 * 1000, 1, 8, true);
	check_rotation_decl(GS_ALGO_NVLS_TREE, 4, 4 * 32 * 1000 + 4, 1, 8, false);
}

/* Instantiate a scenario's topology and check its period link by link and
 * route by route. */
static void check_topology(const char *yaml, bool has_period)
{
	gm_run_opts o = {.check_only = true};
	gm_run *r = run_yaml_with(yaml, &o);
	const gt_topo *t = &r->topo;
	const int P = gt_topo_period(t);
	g_test_message("%s: period %d of %d GPUs", yaml, P, t->ngpus);
	if (!has_period) {
		g_assert_cmpint(P, ==, 0);
		gm_run_free(r);
		return;
	}
	g_assert_cmpint(P, >, 0);
	g_assert_cmpint(P, <, t->ngpus);
	g_assert_cmpint(t->ngpus % P, ==, 0);
	ge_engine eng;
	ge_engine_init(&eng, 1);
	gm_net net;
	gm_net_init(&net, &eng, NULL, NULL);
	gt_topo_instantiate(t, &net);
	for (int q = P; q < t->ngpus; q += P) {
		if (t->ngpus % q != 0)
			continue;
		/* a link and its image: alike, and the image is its own */
		for (uint32_t l = 0; l < net.nlinks; l++) {
			uint32_t k = gt_topo_fold_link(t, l, q);
			g_assert_cmpuint(k, <, net.nlinks);
			g_assert_cmpuint(gt_topo_fold_link(t, k, q), ==, k);
			g_assert_cmpfloat(net.links[k].bw_Bps, ==, net.links[l].bw_Bps);
			g_assert_cmpint(net.info[k].lat_ps, ==, net.info[l].lat_ps);
			g_assert_cmpint(net.info[k].kind, ==, net.info[l].kind);
		}
		/* a route moved by whole blocks folds onto the unmoved one, and
		 * never crosses the images of one link twice */
		for (int a = 0; a < q; a++)
			for (int b = 0; b < t->ngpus; b++) {
				if (a == b)
					continue;
				for (int ch = 0; ch < 2; ch++) {
					uint32_t r0[GM_MAX_HOPS], r1[GM_MAX_HOPS];
					int h0 = gt_topo_route_ch(t, a, b, ch, r0);
					for (int h = 0; h < h0; h++) {
						r0[h] = gt_topo_fold_link(t, r0[h], q);
						for (int k = 0; k < h; k++)
							g_assert_cmpuint(r0[k], !=, r0[h]);
					}
					for (int m = q; m < t->ngpus; m += q) {
						int h1 = gt_topo_route_ch(t, (a + m) % t->ngpus,
									  (b + m) % t->ngpus, ch, r1);
						g_assert_cmpint(h1, ==, h0);
						for (int h = 0; h < h1; h++)
							g_assert_cmpuint(gt_topo_fold_link(t, r1[h], q), ==,
									 r0[h]);
					}
				}
			}
	}
	gm_net_fini(&net);
	ge_engine_fini(&eng);
	gm_run_free(r);
}

/* Topologies several checks take. */
static const char fat_tree8[] = "{preset: dgx-h100, nodes: 8, fabric: {kind: fat-tree, leaf_nics: 16, "
				"oversubscription: 2}}";
static const char rail8[] = "{preset: dgx-h100, nodes: 8, fabric: {kind: rail, leaf_nics: 2, "
			    "oversubscription: 2}}";
static const char pcie4[] = "{kind: dgx, nodes: 4, intra: pcie, gpu_arch: ampere, pcie: {bandwidth: "
			    "25GB/s, switch_gpus: 4, sockets: 2}}";

static const char ring_coll[] = "{op: allreduce, algo: ring, sizes: [4MiB]}";

/* local GPU l of its node moved to l + 1 */
static int rot_gpu(const gt_topo *t, int g)
{
	const int gpn = t->gpus_per_node;
	return g - g % gpn + (g % gpn + 1) % gpn;
}

/* Instantiate a scenario's topology and check its rotation link by link
 * and route by route: every link's image (on its node's first GPU) is
 * alike and its own, and a route moved one GPU along the nodes and S
 * channels on takes the images of the unmoved route's links, none twice. */
static void check_rotation(const char *yaml, bool rotates)
{
	gm_run_opts o = {.check_only = true};
	gm_run *r = run_yaml_with(yaml, &o);
	const gt_topo *t = &r->topo;
	g_test_message("%s: rotates %d", yaml, gt_topo_rotates(t));
	g_assert_true(gt_topo_rotates(t) == rotates);
	if (!rotates) {
		gm_run_free(r);
		return;
	}
	const int gpn = t->gpus_per_node;
	const int S = t->chan_links > 0 ? t->chan_links / gpn : 2, nch = S * gpn;
	if (t->chan_links > 0)
		g_assert_cmpint(t->chan_links, ==, nch);
	ge_engine eng;
	ge_engine_init(&eng, 1);
	gm_net net;
	gm_net_init(&net, &eng, NULL, NULL);
	gt_topo_instantiate(t, &net);
	for (uint32_t l = 0; l < net.nlinks; l++) {
		uint32_t k = gt_topo_rotate_link(t, l, S, nch);
		g_assert_cmpuint(k, <, net.nlinks);
		g_assert_cmpuint(gt_topo_rotate_link(t, k, S, nch), ==, k);
		g_assert_cmpfloat(net.links[k].bw_Bps, ==, net.links[l].bw_Bps);
		g_assert_cmpint(net.info[k].lat_ps, ==, net.info[l].lat_ps);
		g_assert_cmpint(net.info[k].kind, ==, net.info[l].kind);
	}
	for (int a = 0; a < t->ngpus; a++)
		for (int b = 0; b < t->ngpus; b++) {
			if (a == b)
				continue;
			for (int c = 0; c < nch; c += S - 1 > 0 ? S - 1 : 1) {
				uint32_t r0[GM_MAX_HOPS], r1[GM_MAX_HOPS];
				int h0 = gt_topo_route_ch(t, a, b, c, r0);
				int h1 = gt_topo_route_ch(t, rot_gpu(t, a), rot_gpu(t, b), (c + S) % nch, r1);
				g_assert_cmpint(h1, ==, h0);
				for (int h = 0; h < h0; h++) {
					r0[h] = gt_topo_rotate_link(t, r0[h], S, nch);
					g_assert_cmpuint(gt_topo_rotate_link(t, r1[h], S, nch), ==, r0[h]);
					for (int k = 0; k < h; k++)
						g_assert_cmpuint(r0[k], !=, r0[h]);
				}
			}
		}
	gm_net_fini(&net);
	ge_engine_fini(&eng);
	gm_run_free(r);
}

static void test_topology_rotation(void)
{
	static const char tree_coll[] = "{op: allreduce, algo: tree, sizes: [4MiB]}";
	const char *with[] = {
		"{preset: dgx-h100, nodes: 4}",
		"{preset: dgx-h100, nodes: 1}",
		"{preset: dgx-h100, nodes: 3, channel_bandwidth: 20GB/s}",
		"{preset: p5, nodes: 2}",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(with); i++) {
		char *y = yaml_of(with[i], tree_coll);
		check_rotation(y, true);
		g_free(y);
	}
	const char *without[] = {
		/* a leaf's uplinks and a rail's switch belong to no one GPU */
		fat_tree8,
		rail8,
		/* PCIe switches shared by GPUs */
		pcie4,
		"{kind: flat, gpus: 16, link: {bandwidth: 50GB/s, latency: 1us}}",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(without); i++) {
		char *y = yaml_of(without[i], tree_coll);
		check_rotation(y, false);
		g_free(y);
	}
}

static void test_topology_periods(void)
{
	const char *with[] = {
		"{kind: flat, gpus: 12, link: {bandwidth: 50GB/s, latency: 1us}}",
		"{preset: dgx-h100, nodes: 4}",
		fat_tree8,
		rail8,
		"{preset: dgx-h100, nodes: 8, fabric: {kind: fat-tree, leaf_nics: 16, "
		"oversubscription: 2, pod_nodes: 4, pod_oversubscription: 2}}",
		pcie4,
		"{preset: p5, nodes: 3}",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(with); i++) {
		char *y = yaml_of(with[i], ring_coll);
		check_topology(y, true);
		g_free(y);
	}
	/* channel links (a channel cap in force): folded with their GPU */
	char *y = yaml_of("{preset: dgx-h100, nodes: 4, channel_bandwidth: 20GB/s}", ring_coll);
	check_topology(y, true);
	g_free(y);
	const char *without[] = {
		"{preset: dgx-h100, nodes: 8, fabric: {kind: fat-tree, leaf_nics: 16, "
		"oversubscription: 2, routing: ecmp}}",
		"{preset: dgx-h100, nodes: 8, fabric: {kind: fat-tree, leaf_nics: 16, "
		"oversubscription: 2, routing: dmodk}}",
		/* a leaf left partly empty (3 nodes of 2 a leaf) */
		"{preset: dgx-h100, nodes: 3, fabric: {kind: fat-tree, leaf_nics: 16, "
		"oversubscription: 2}}",
		"{preset: dgx-h100, nodes: 1}",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(without); i++) {
		y = yaml_of(without[i], ring_coll);
		gm_run_opts o = {.check_only = true};
		gm_run *r = run_yaml_with(y, &o);
		int P = gt_topo_period(&r->topo);
		g_test_message("%s: period %d", without[i], P);
		/* one node repeats only as itself */
		g_assert_true(P == 0 || P == r->topo.ngpus);
		gm_run_free(r);
		g_free(y);
	}
}

static void test_folded_runs_agree(void)
{
	struct {
		const char *topo, *coll, *set;
	} cases[] = {
		{"{kind: flat, gpus: 16, link: {bandwidth: 50GB/s, latency: 1us}}",
		 "{op: allreduce, algo: ring, sizes: [1MiB, 64MiB]}", NULL},
		{"{preset: dgx-h100, nodes: 4}", "{op: allreduce, algo: ring, sizes: [1MiB, 64MiB, 1GiB]}",
		 NULL},
		{"{preset: dgx-h100, nodes: 4}", "{op: allgather, algo: ring, sizes: [64MiB]}", NULL},
		{"{preset: dgx-h100, nodes: 4}", "{op: reducescatter, algo: ring, sizes: [64MiB]}", NULL},
		{"{preset: dgx-h100, nodes: 4}", "{op: alltoall, sizes: [1MiB, 256MiB]}", NULL},
		{"{preset: dgx-h100, nodes: 4}", "{op: alltoall, algo: put, sizes: [16MiB]}", NULL},
		{"{preset: p5, nodes: 2}", "{op: sendrecv, sizes: [64KiB, 64MiB]}", NULL},
		{"{preset: dgx-h100, nodes: 8, fabric: {kind: fat-tree, leaf_nics: 16, oversubscription: 4}}",
		 "{op: allreduce, algo: ring, sizes: [256MiB]}", NULL},
		{"{preset: dgx-h100, nodes: 8, fabric: {kind: rail, leaf_nics: 2, oversubscription: 2}}",
		 "{op: alltoall, sizes: [64MiB]}", NULL},
		{"{preset: dgx-h100, nodes: 8, fabric: {kind: fat-tree, leaf_nics: 16, oversubscription: 2, "
		 "pod_nodes: 4, pod_oversubscription: 2}}",
		 "{op: allreduce, algo: ring, sizes: [128MiB]}", NULL},
		/* concurrent DP groups on an oversubscribed fat tree, TP groups */
		{"{preset: dgx-h100, nodes: 8, fabric: {kind: fat-tree, leaf_nics: 16, oversubscription: 2}}",
		 "{op: allreduce, algo: ring, sizes: [25MiB, 256MiB], group: {stride: 8}}", NULL},
		{"{preset: dgx-h100, nodes: 4}", "{op: allreduce, algo: ring, sizes: [64MiB], group: {size: 8}}",
		 NULL},
		{"{kind: dgx, nodes: 4, intra: pcie, gpu_arch: ampere, pcie: {bandwidth: 25GB/s, "
		 "switch_gpus: 4, sockets: 2}}",
		 "{op: allreduce, algo: ring, sizes: [64MiB]}", NULL},
		{"{preset: p5, nodes: 4}", "{op: allreduce, algo: ring, sizes: [8MiB, 512MiB]}", NULL},
		/* back to back, two GPUs a host thread */
		{"{preset: dgx-h100, nodes: 4}",
		 "{op: allreduce, algo: ring, sizes: [1MiB, 16MiB], iters: 3, gpus_per_thread: 2}", NULL},
		{"{preset: dgx-h100, nodes: 4}", "{op: allreduce, algo: ring, sizes: [32MiB]}",
		 "sim.net_send=proxy"},
		/* transports: per-rank proxy threads and queue pairs, the
		 * receiving side on the receiver's image */
		{"{preset: dgx-h100, nodes: 4}", "{op: allreduce, algo: ring, sizes: [64KiB, 64MiB]}",
		 "transport.inter=nccl"},
		{"{preset: dgx-h100, nodes: 4}", "{op: alltoall, sizes: [1MiB]}", "transport.inter=nccl"},
		{"{preset: p5, nodes: 4}", "{op: alltoall, sizes: [1MiB]}", "transport.inter=nccl"},
		{"{preset: dgx-h100, nodes: 4}", "{op: alltoall, algo: put, sizes: [256KiB]}",
		 "transport.inter=ibgda"},
		{"{preset: dgx-h100, nodes: 4}", "{op: alltoall, algo: put, sizes: [256KiB]}",
		 "transport.inter=ibrc"},
		{"{preset: p5, nodes: 4}", "{op: alltoall, algo: put, sizes: [256KiB]}",
		 "transport.inter=ibrc"},
		/* the packet fidelity: every hop's queues on the first block's
		 * images of the links */
		{"{preset: dgx-h100, nodes: 4}", "{op: allreduce, algo: ring, sizes: [1MiB, 16MiB]}",
		 "sim.fidelity=packet"},
		{"{preset: dgx-h100, nodes: 8, fabric: {kind: fat-tree, leaf_nics: 16, oversubscription: 2}}",
		 "{op: alltoall, sizes: [4MiB]}", "sim.fidelity=packet"},
		{"{preset: dgx-h100, nodes: 4}", "{op: alltoall, algo: put, sizes: [1MiB]}",
		 "sim.fidelity=packet"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *y = yaml_of(cases[i].topo, cases[i].coll);
		compare(y, cases[i].set, true);
		g_free(y);
	}
}

/* Trees: their channels fold (gm_coll_fold_channels), not their ranks. */
static void test_channel_folds(void)
{
	const char *dgx = "{preset: dgx-h100, nodes: 4}";
	struct {
		const char *topo, *coll, *set;
		bool folds;
	} cases[] = {
		{dgx, "{op: allreduce, algo: tree, sizes: [1MiB, 64MiB, 1GiB]}", NULL, true},
		{dgx, "{op: allreduce, algo: tree, protocol: ll128, sizes: [16MiB]}", NULL, true},
		{dgx, "{op: allreduce, algo: tree, protocol: ll, sizes: [256KiB]}", NULL, true},
		{"{preset: dgx-h100, nodes: 3, channel_bandwidth: 20GB/s}",
		 "{op: allreduce, algo: tree, sizes: [64MiB]}", NULL, true},
		/* one node: 16 channels (its default, NCCL's 24, are not a
		 * multiple of the two trees' 16-channel rotation) */
		{"{preset: dgx-h100, nodes: 1}",
		 "{op: allreduce, algo: tree, channels: 16, sizes: [64MiB]}", NULL, true},
		{"{preset: dgx-h100, nodes: 1}", "{op: allreduce, algo: tree, sizes: [64MiB]}", NULL,
		 false},
		{"{preset: p5, nodes: 2}", "{op: allreduce, algo: tree, sizes: [64MiB]}", NULL, true},
		/* nvlstree: its blocks rotate in groups of 8, the switch units
		 * in place */
		{dgx, "{op: allreduce, algo: nvlstree, sizes: [1MiB, 64MiB, 512MiB]}", NULL, true},
		{"{preset: p5, nodes: 3}", "{op: allreduce, algo: nvlstree, sizes: [32MiB]}",
		 "collective.buffer=8MiB", true},

		/* not: uneven parts, a shared fabric, a transport's per-rank
		 * threads, ranks whose host thread enqueues them one by one */
		{dgx, "{op: allreduce, algo: tree, sizes: [1000004B]}", NULL, false},
		{"{preset: dgx-h100, nodes: 8, fabric: {kind: fat-tree, leaf_nics: 16, "
		 "oversubscription: 2}}",
		 "{op: allreduce, algo: tree, sizes: [16MiB]}", NULL, false},
		{dgx, "{op: allreduce, algo: tree, sizes: [4MiB]}", "transport.inter=nccl", false},
		{dgx, "{op: allreduce, algo: tree, sizes: [4MiB], iters: 2, gpus_per_thread: 8}", NULL,
		 false},
		/* back to back: a rank's next operation waits for all its
		 * channels, some of which end with other ranks' */
		{dgx, "{op: allreduce, algo: tree, sizes: [4MiB], iters: 3}", NULL, false},
		{dgx, "{op: allreduce, algo: nvlstree, sizes: [4MiB], iters: 2}", NULL, false},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *y = yaml_of(cases[i].topo, cases[i].coll);
		compare(y, cases[i].set, cases[i].folds);
		g_free(y);
	}
	/* check mode verifies the rotation before it folds */
	char *y = yaml_of(dgx, "{op: allreduce, algo: tree, sizes: [4MiB]}");
	const char *chk[] = {"sim.check=true", NULL};
	gm_run *r = run_yaml(y, chk);
	g_assert_cmpint(r->pts[0].r.chan_fold, ==, 8);
	g_assert_cmpint(r->pts[0].r.sim_ranks, ==, 32);
	gm_run_free(r);
	g_free(y);
	/* nvlstree: 1 block of each 8 (the rotation), and of its 16
	 * channels' groups the first 2, one a tree, each for 8 alike (the
	 * repeat); check mode verifies both */
	y = yaml_of(dgx, "{op: allreduce, algo: nvlstree, sizes: [4MiB]}");
	r = run_yaml(y, chk);
	g_assert_cmpint(r->pts[0].r.chan_fold, ==, 64);
	gm_run_free(r);
	g_free(y);
}

static void test_not_folded(void)
{
	const char *dgx = "{preset: dgx-h100, nodes: 4}";
	struct {
		const char *topo, *coll, *set;
	} cases[] = {
		/* uneven last chunks (rank_period 0) */
		{dgx, "{op: allreduce, algo: ring, sizes: [1000000B]}", NULL},
		{dgx, "{op: allreduce, algo: ring, sizes: [64MiB]}", "faults.degrade=n1.gpu3.nvlink=50%"},
		{"{preset: dgx-h100, nodes: 4, fabric: {kind: fat-tree, leaf_nics: 16, oversubscription: 2, "
		 "routing: ecmp}}",
		 "{op: allreduce, algo: ring, sizes: [64MiB]}", NULL},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *y = yaml_of(cases[i].topo, cases[i].coll);
		compare(y, cases[i].set, false);
		g_free(y);
	}
	/* sim.fold false: every rank */
	char *y = yaml_of(dgx, "{op: allreduce, algo: ring, sizes: [1MiB]}");
	const char *off[] = {"sim.fold=false", NULL};
	gm_run *r = run_yaml(y, off);
	g_assert_cmpint(r->pts[0].r.sim_ranks, ==, 32);
	gm_run_free(r);
	r = run_yaml(y, NULL);
	g_assert_cmpint(r->pts[0].r.sim_ranks, ==, 8);
	gm_run_free(r);
	/* check mode verifies the schedule's period before it folds */
	const char *chk[] = {"sim.check=true", NULL};
	r = run_yaml(y, chk);
	g_assert_cmpint(r->pts[0].r.sim_ranks, ==, 8);
	gm_run_free(r);
	/* the packet fidelity's limit counts the simulated ranks: 4096 flat
	 * GPUs at 1 GiB are about 2.1e9 packets, one GPU's 5.2e5 */
	char *big = g_strdup_printf("schema_version: 1\n"
				    "topology: {kind: flat, gpus: 4096, link: {bandwidth: 50GB/s, "
				    "latency: 1us}}\n"
				    "collective: {op: allreduce, algo: ring, sizes: [1GiB]}\n"
				    "sim: {fidelity: packet}\n");
	r = run_yaml(big, NULL);
	g_assert_cmpint(r->pts[0].r.sim_ranks, ==, 1);
	gm_run_free(r);
	gm_run_opts bo = {.sets = off};
	expect_refused_with(big, &bo, "packets");
	g_free(big);
	/* the key only where it applies */
	const char *an[] = {"sim.fidelity=analytical", "sim.fold=false", NULL};
	gm_run_opts o = {.sets = an};
	expect_refused_with(y, &o, "sim.fold");
	g_free(y);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/fold/schedule-periods", test_schedule_periods);
	g_test_add_func("/fold/schedule-repeat", test_schedule_repeat);
	g_test_add_func("/fold/topology-periods", test_topology_periods);
	g_test_add_func("/fold/runs-agree", test_folded_runs_agree);
	g_test_add_func("/fold/not-folded", test_not_folded);
	g_test_add_func("/fold/schedule-rotation", test_schedule_rotation);
	g_test_add_func("/fold/topology-rotation", test_topology_rotation);
	g_test_add_func("/fold/channel-folds", test_channel_folds);
	return g_test_run();
}
