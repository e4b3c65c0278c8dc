/* SPDX-License-Identifier: MIT */
/*
 * test_group: collectives in communicators (gs_params.group_size and
 * group_stride), as a training job runs them: tensor-parallel groups of
 * consecutive ranks, data-parallel groups one rank per node, and two-level
 * groups (group_block, group_block_stride) such as a data-and-context
 * parallel group with the pipeline's ranks between its two parts.
 *
 * Every generator that runs in groups (ring allreduce, allgather and
 * reduce-scatter, tree, sendrecv, pairwise and put all-to-all, bruck) is checked
 * end to end over several layouts (validator, reference executor on real
 * data with each group's own expected result, bounded buffers, streaming
 * windows), and MoE dispatch and combine in expert-parallel groups. The
 * grouped schedule must be the group's own schedule with its
 * peers relabelled, member by member; the members sharing a node follow
 * from the layout; the validator and the reference executor must reject a
 * schedule that mixes the data of two groups; layouts that do not tile the
 * ranks, nvlstree, and nvls in groups other than whole nodes are refused
 * with the reason; nvls in one-node groups runs on each node's switch.
 */
#include "tests/sched/sched_testutil.h"

/* one-level layouts are written {n, G, S, rpn}: B and T left 0 */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

typedef struct layout {
	int n, G, S, rpn;
	int B, T; /* two levels: blocks of B members at stride S, T apart (0: one level) */
} layout;

/* TP groups in a node, DP groups across nodes, groups of half a node at
 * stride 2, a group spanning two nodes in halves, and groups that cut
 * nodes unevenly (12 ranks of 3 on nodes of 8) */
static const layout layouts[] = {
	{16, 8, 1, 8}, {16, 2, 8, 8}, {16, 4, 2, 8}, {32, 8, 2, 8},
	{8, 4, 1, 4},  {24, 3, 1, 8}, {12, 4, 3, 4}, {6, 6, 1, 3},
	/* two levels: CP 2 at stride TP 2 with DP 2 after PP 4 (block 2 x 2 x
	 * 4 = 16 apart); blocks of 2 at stride 4 on nodes of 8, 16 apart, in
	 * three blocks; blocks of 2 on nodes of 4, 12 apart */
	{32, 4, 2, 8, 2, 16}, {48, 6, 4, 8, 2, 16}, {24, 4, 1, 4, 2, 12},
};

static gs_params grouped(gs_coll coll, gs_algo algo, const layout *l, uint64_t bytes, int nch)
{
	gs_params p = tu_params(coll, algo, GS_DT_F32, l->n, bytes, nch, 256, 64, l->rpn);
	p.group_size = l->G;
	p.group_stride = l->S;
	p.group_block = l->B;
	p.group_block_stride = l->T;
	return p;
}

static void test_sweep(void)
{
	static const struct {
		gs_coll coll;
		gs_algo algo;
	} colls[] = {
		{GS_COLL_ALLREDUCE, GS_ALGO_RING},  {GS_COLL_ALLREDUCE, GS_ALGO_TREE},
		{GS_COLL_ALLGATHER, GS_ALGO_RING},  {GS_COLL_REDUCESCATTER, GS_ALGO_RING},
		{GS_COLL_SENDRECV, GS_ALGO_RING},   {GS_COLL_ALLTOALL, GS_ALGO_PAIRWISE},
		{GS_COLL_ALLTOALL, GS_ALGO_PUT},    {GS_COLL_ALLGATHER, GS_ALGO_BRUCK},
		{GS_COLL_REDUCESCATTER, GS_ALGO_BRUCK}, {GS_COLL_ALLGATHER, GS_ALGO_PAT},
		{GS_COLL_REDUCESCATTER, GS_ALGO_PAT},   {GS_COLL_BROADCAST, GS_ALGO_RING},
		{GS_COLL_REDUCE, GS_ALGO_RING},
	};
	GRand *rnd = g_rand_new_with_seed(77);
	/* expert parallelism in groups: each group routes its tokens to the
	 * experts spread over its own members */
	for (size_t i = 0; i < G_N_ELEMENTS(layouts); i++) {
		for (int c = 0; c < 4; c++) {
			/* put, and forward between the nodes each group spans */
			gs_params p = grouped(c % 2 ? GS_COLL_COMBINE : GS_COLL_DISPATCH,
					      c < 2 ? GS_ALGO_PUT : GS_ALGO_FORWARD, &layouts[i], 4 * 6,
					      1 + (int)(i % 3));
			p.moe_tokens = 5;
			p.moe_topk = 2;
			p.moe_experts = 2 * (uint32_t)layouts[i].G;
			p.moe_seed = 11 + i;
			if (!tu_check_case(&p, rnd))
				goto out;
		}
	}
	/* nvls in groups that are each one whole node: every node's switch
	 * (its two helper ranks) reduces its own group */
	static const layout nodes[] = {{16, 8, 1, 8}, {24, 8, 1, 8}, {12, 4, 1, 4}, {6, 2, 1, 2}};
	for (size_t i = 0; i < G_N_ELEMENTS(nodes); i++) {
		gs_params p = grouped(GS_COLL_ALLREDUCE, GS_ALGO_NVLS, &nodes[i],
				      4 * ((uint64_t)nodes[i].G * 70 + 3), 1 + (int)(i % 2));
		if (!tu_check_case(&p, rnd))
			goto out;
		gs_gen *g;
		char *err = NULL;
		g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
		g_assert_cmpint(g->nhelpers, ==, 2 * nodes[i].n / nodes[i].G);
		gs_gen_free(g);
	}
	for (size_t c = 0; c < G_N_ELEMENTS(colls); c++)
		for (size_t i = 0; i < G_N_ELEMENTS(layouts); i++) {
			const layout *l = &layouts[i];
			/* several loops of the 256 B chunk, not a multiple of the group */
			uint64_t bytes = 4 * ((uint64_t)l->G * 70 + 3);
			gs_params p = grouped(colls[c].coll, colls[c].algo, l, bytes, 1 + (int)(i % 3));
			if (!tu_check_case(&p, rnd))
				goto out;
		}
out:
	g_rand_free(rnd);
}

/* Member j of every group runs the group's own schedule (G ranks, the
 * members sharing a node as ranks_per_node) with peers relabelled. */
static void test_relabel(void)
{
	for (size_t i = 0; i < G_N_ELEMENTS(layouts); i++) {
		const layout *l = &layouts[i];
		gs_params p = grouped(GS_COLL_ALLREDUCE, GS_ALGO_TREE, l, 4 * 1000, 2);
		gs_gen *g, *in;
		char *err = NULL;
		g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
		gs_params ip = p;
		ip.nranks = l->G;
		ip.group_size = ip.group_stride = ip.group_block = ip.group_block_stride = 0;
		ip.ranks_per_node = g->p.ranks_per_node;
		g_assert_cmpint(gs_gen_create(&ip, &in, &err), ==, GC_OK);
		g_assert_cmpint(g->p.nranks, ==, l->n);
		g_assert_cmpint(gs_group_count(&g->p), ==, l->n / l->G);
		gs_sched *s = gs_sched_materialize(g), *si = gs_sched_materialize(in);
		g_assert_cmpint(s->nstrands, ==, si->nstrands);
		for (int b = 0; b < GS_BUF__COUNT; b++)
			g_assert_cmpuint(s->buf_bytes[b], ==, si->buf_bytes[b]);
		int seen = 0;
		for (int id = 0; id < gs_group_count(&g->p); id++)
			for (int j = 0; j < l->G; j++) {
				int r = gs_group_member(&g->p, id, j);
				g_assert_cmpint(gs_group_id(&g->p, r), ==, id);
				g_assert_cmpint(gs_group_local(&g->p, r), ==, j);
				seen++;
				for (int c = 0; c < s->nstrands; c++) {
					uint64_t len, leni;
					const gs_step *a = gs_sched_strand(s, r, c, &len);
					const gs_step *b = gs_sched_strand(si, j, c, &leni);
					g_assert_cmpuint(len, ==, leni);
					for (uint64_t k = 0; k < len; k++) {
						gs_step x = b[k];
						if (x.send_peer >= 0)
							x.send_peer = gs_group_member(&g->p, id, x.send_peer);
						if (x.recv_peer >= 0)
							x.recv_peer = gs_group_member(&g->p, id, x.recv_peer);
						g_assert_true(memcmp(&x, &a[k], sizeof(x)) == 0);
					}
				}
			}
		g_assert_cmpint(seen, ==, l->n); /* the groups partition the ranks */
		gs_sched_free(s);
		gs_sched_free(si);
		gs_gen_free(in);
		gs_gen_free(g);
	}
}

/* Members per node, from the layout: the tree's chain inside a node. */
static void test_members_per_node(void)
{
	static const struct {
		layout l;
		int m;
	} cases[] = {
		{{16, 8, 1, 8}, 8},  /* TP: a whole node */
		{{16, 2, 8, 8}, 1},  /* DP: one per node */
		{{16, 4, 2, 8}, 4},  /* half a node at stride 2, inside the node */
		{{32, 8, 2, 8}, 4},  /* two nodes, four members in each */
		{{24, 3, 1, 8}, 1},  /* group 2 = ranks 6, 7 | 8: uneven, no chain */
		{{12, 4, 3, 4}, 1},  /* stride 3 on nodes of 4: members cross unevenly */
		{{64, 8, 8, 16}, 2}, /* nodes of 16 at stride 8: two members per node */
		{{32, 4, 2, 8, 2, 16}, 2}, /* a block of two in a node, the next 16 on */
		{{48, 6, 4, 8, 2, 16}, 2},
		{{24, 4, 1, 4, 2, 12}, 2},
		{{32, 4, 1, 8, 2, 4}, 4}, /* 0 1 | 4 5: all four in node 0 */
		/* 0 1 | 6 7 in node 0, but 2 3 | 8 9 across two: uneven, no chain */
		{{24, 4, 1, 8, 2, 6}, 1},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		gs_params p = grouped(GS_COLL_ALLREDUCE, GS_ALGO_RING, &cases[i].l, 64, 1);
		gs_gen *g;
		char *err = NULL;
		g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
		if (g->p.ranks_per_node != cases[i].m)
			g_test_fail_printf("n=%d G=%d S=%d rpn=%d: %d members per node, expected %d",
					   cases[i].l.n, cases[i].l.G, cases[i].l.S, cases[i].l.rpn,
					   g->p.ranks_per_node, cases[i].m);
		gs_gen_free(g);
	}
}

/* One communicator's schedule over all 8 ranks, checked as if it ran in
 * two groups of 4: its sums mix the groups, and both checkers say so. */
static void test_mixed_groups_rejected(void)
{
	gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_RING, GS_DT_F32, 8, 4 * 64, 1, 256, 64, 8);
	gs_gen *g;
	char *err = NULL;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	gs_sched *s = gs_sched_materialize(g);
	g_assert_cmpint(gs_sched_validate(s, &err), ==, GC_OK);
	g_assert_cmpint(gs_refexec_run(s, &err), ==, GC_OK);
	s->p.group_size = 4;
	s->p.group_stride = 1;
	g_assert_cmpint(gs_sched_validate(s, &err), ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, "outside its group"));
	g_free(err);
	err = NULL;
	g_assert_cmpint(gs_refexec_run(s, &err), ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(err, "expected"));
	g_free(err);
	gs_sched_free(s);
	gs_gen_free(g);
}

/* The two-level layout: members as written in gs_params, and layouts that
 * are one level after all normalized to it. */
static void test_two_levels(void)
{
	layout l = {32, 4, 2, 8, 2, 16};
	gs_params p = grouped(GS_COLL_ALLREDUCE, GS_ALGO_RING, &l, 64, 1);
	/* group 0: ranks 0 2 | 16 18; group 1: 1 3 | 17 19; group 2: 4 6 | 20 22 */
	static const int want[3][4] = {{0, 2, 16, 18}, {1, 3, 17, 19}, {4, 6, 20, 22}};
	for (int id = 0; id < 3; id++)
		for (int j = 0; j < 4; j++)
			g_assert_cmpint(gs_group_member(&p, id, j), ==, want[id][j]);
	g_assert_false(gs_group_is_flat(&p));
	/* blocks adjacent at the stride: one level of stride 2 */
	static const struct {
		layout l;
		int S;
	} flat[] = {{{16, 4, 2, 8, 2, 4}, 2}, {{16, 2, 1, 8, 1, 8}, 8}, {{16, 4, 1, 8, 4, 8}, 1}};
	for (size_t i = 0; i < G_N_ELEMENTS(flat); i++) {
		gs_params q = grouped(GS_COLL_ALLREDUCE, GS_ALGO_RING, &flat[i].l, 64, 1);
		gs_gen *g;
		char *err = NULL;
		g_assert_cmpint(gs_gen_create(&q, &g, &err), ==, GC_OK);
		g_assert_true(gs_group_is_flat(&g->p));
		g_assert_cmpint(g->p.group_block, ==, 0);
		g_assert_cmpint(g->p.group_stride, ==, flat[i].S);
		gs_gen_free(g);
	}
	p.group_block = 3;
	tu_expect_refused(&p, "blocks of 3 ranks do not divide groups of 4");
	p.group_block = 2;
	p.group_block_stride = 6;
	tu_expect_refused(&p, "not a multiple of the block's span");
	p.group_block_stride = 24; /* two blocks span 48 > 32 */
	tu_expect_refused(&p, "block stride must divide the ranks");
	p.group_block_stride = -1;
	tu_expect_refused(&p, "must not be negative");
	/* nvls needs a whole node: not a two-level group */
	p = grouped(GS_COLL_ALLREDUCE, GS_ALGO_NVLS, &(layout){16, 8, 1, 8, 4, 8}, 64, 1);
	tu_expect_refused(&p, "unless each group is one whole node");
}

static void test_refusals(void)
{
	layout l = {8, 3, 1, 8};
	gs_params p = grouped(GS_COLL_ALLREDUCE, GS_ALGO_RING, &l, 64, 1);
	tu_expect_refused(&p, "do not tile 8 ranks");
	p.group_size = 4;
	p.group_stride = 3;
	tu_expect_refused(&p, "group size x stride must divide");
	p.group_stride = -1;
	tu_expect_refused(&p, "must not be negative");
	layout l2 = {8, 4, 1, 8};
	p = grouped(GS_COLL_ALLREDUCE, GS_ALGO_NVLS, &l2, 64, 1);
	tu_expect_refused(&p, "unless each group is one whole node");
	p = grouped(GS_COLL_ALLREDUCE, GS_ALGO_NVLS, &(layout){16, 2, 8, 8}, 64, 1);
	tu_expect_refused(&p, "unless each group is one whole node");
	p = grouped(GS_COLL_ALLREDUCE, GS_ALGO_NVLS_TREE, &(layout){32, 16, 1, 8}, 64, 1);
	tu_expect_refused(&p, "does not run in groups");
	/* one group of all ranks at stride 1 is the plain collective */
	p = grouped(GS_COLL_ALLREDUCE, GS_ALGO_RING, &(layout){8, 8, 1, 8}, 64, 1);
	gs_gen *g;
	char *err = NULL;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	g_assert_true(g->ops->fill != NULL);
	g_assert_cmpint(gs_group_count(&g->p), ==, 1);
	gs_gen_free(g);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/sched/group/sweep", test_sweep);
	g_test_add_func("/sched/group/relabel", test_relabel);
	g_test_add_func("/sched/group/members_per_node", test_members_per_node);
	g_test_add_func("/sched/group/two_levels", test_two_levels);
	g_test_add_func("/sched/group/mixed_groups_rejected", test_mixed_groups_rejected);
	g_test_add_func("/sched/group/refusals", test_refusals);
	return g_test_run();
}
