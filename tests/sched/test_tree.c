/* SPDX-License-Identifier: MIT */
/*
 * test_tree: the double binary tree allreduce generator.
 *
 * Sweeps every rank count 2..64 (ranks_per_node 1, 2, 4, 8 where they
 * divide, and one node) over empty, one-element, uneven and multi-loop sizes
 * with 1, 2, 3 and 8 channels, end to end (validator, reference executor,
 * bounded connection buffers, streaming windows). Checks the node trees
 * recovered from generated schedules for every node count 1..64 against
 * NCCL's ncclGetBtree child rule (copied here as an independent oracle) and
 * the shift / mirror rule of ncclGetDtree, the chain head rotation, the
 * split strand layout (strand 2c reduces up, strand 2c + 1 broadcasts down;
 * the root's up strand starts the broadcast and its down strand is empty;
 * up strands finish without any down strand running), and two golden dumps
 * derived by hand.
 */
#include "tests/sched/sched_testutil.h"

#define CHUNK 256
#define SLICE 64

static const int nchs[] = { 1, 2, 3, 8 };
static const gs_dtype dts[] = { GS_DT_F32, GS_DT_I32, GS_DT_U8, GS_DT_F64 };

static void test_sweep(void)
{
	GRand *rnd = g_rand_new_with_seed(31);
	int k = 0;

	for (int n = 2; n <= 64; n++) {
		for (int rk = 0; rk < 5; rk++) {
			int rpn = tu_rpn(n, rk);

			if (rk > 0 && rpn == tu_rpn(n, 0))
				break;
			for (int i = 0; i < 4; i++, k++) {
				gs_dtype dt = dts[k % 4];
				uint64_t el = gs_dtype_size(dt), ce = CHUNK / el;
				uint64_t cnt[4] = { 0, 1, (uint64_t)n + 3, 5 * ce + 7 };
				int nch = nchs[(k / 4 + i) % 4];
				gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_TREE, dt, n,
							cnt[i] * el, nch, CHUNK, SLICE, rpn);

				if (!tu_check_case(&p, rnd))
					goto out;
				/* slices that do not divide the chunk (240 = 96 + 96 + 48) */
				p.chunk_bytes = 240;
				p.slice_bytes = 96;
				p.nchannels = nchs[(k / 4 + i + 1) % 4];
				if (!tu_check_case(&p, rnd))
					goto out;
			}
		}
	}
out:
	g_rand_free(rnd);
}

/* NCCL ncclGetBtree (src/graph/trees.cc), verbatim logic: children of rank. */
static void nccl_btree_children(int nranks, int rank, int *d0, int *d1)
{
	int bit;

	for (bit = 1; bit < nranks; bit <<= 1)
		if (bit & rank)
			break;
	if (rank == 0) {
		*d0 = -1;
		*d1 = nranks > 1 ? bit >> 1 : -1;
		return;
	}
	int lowbit = bit >> 1;
	int down0 = lowbit == 0 ? -1 : rank - lowbit;
	int down1 = lowbit == 0 ? -1 : rank + lowbit;

	while (down1 >= nranks) {
		down1 = lowbit == 0 ? -1 : rank + lowbit;
		lowbit >>= 1;
	}
	*d0 = down0;
	*d1 = down1;
}

/*
 * Recover the tree of strand 2c (rpn = 1, one element: one loop, one slice)
 * from a schedule: a rank's first SEND or RECV_REDUCE_SEND goes to its
 * parent; the root instead starts with a RECV_REDUCE_COPY_SEND.
 */
static void recover_parents(const gs_sched *s, int strand, int *parent)
{
	for (int r = 0; r < s->nranks; r++) {
		uint64_t len;
		const gs_step *st = gs_sched_strand(s, r, strand, &len);

		parent[r] = -2;
		for (uint64_t i = 0; i < len; i++) {
			if (st[i].op == GS_OP_RECV_REDUCE_COPY_SEND) {
				parent[r] = -1;
				break;
			}
			if (st[i].op == GS_OP_SEND || st[i].op == GS_OP_RECV_REDUCE_SEND) {
				parent[r] = st[i].send_peer;
				break;
			}
		}
	}
}

static void test_node_trees(void)
{
	for (int nn = 2; nn <= 64; nn++) {
		/* two elements over two channels: one loop each, on strands 0 and 2 */
		gs_params p =
			tu_params(GS_COLL_ALLREDUCE, GS_ALGO_TREE, GS_DT_F32, nn, 8, 2, 0, 0, 1);
		int parent[2][64], nkids[2][64], both_leaf = 0;
		gs_gen *g;
		gs_sched *s;
		char *err = NULL;

		g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
		s = gs_sched_materialize(g);
		g_assert_cmpint(s->nstrands, ==, 4);
		recover_parents(s, 0, parent[0]);
		recover_parents(s, 2, parent[1]);
		memset(nkids, 0, sizeof(nkids));
		for (int t = 0; t < 2; t++) {
			int root = t == 0 ? 0 : (nn % 2 ? 1 : nn - 1);

			for (int x = 0; x < nn; x++) {
				int y = x, hops = 0;

				g_assert_cmpint(parent[t][x], !=, -2);
				g_assert_cmpint(parent[t][x] == -1, ==, x == root);
				while (parent[t][y] >= 0 && hops <= nn) {
					y = parent[t][y];
					hops++;
				}
				g_assert_cmpint(y, ==, root);
				if (parent[t][x] >= 0)
					nkids[t][parent[t][x]]++;
			}
			for (int x = 0; x < nn; x++)
				g_assert_cmpint(nkids[t][x], <=, 2);
		}
		/* tree 0 against NCCL's child rule */
		for (int x = 0; x < nn; x++) {
			int d0, d1;

			nccl_btree_children(nn, x, &d0, &d1);
			if (d0 >= 0)
				g_assert_cmpint(parent[0][d0], ==, x);
			if (d1 >= 0)
				g_assert_cmpint(parent[0][d1], ==, x);
			g_assert_cmpint(nkids[0][x], ==, (d0 >= 0) + (d1 >= 0));
			both_leaf += nkids[0][x] == 0 && nkids[1][x] == 0;
		}
		/* tree 1 = tree 0 relabelled by the shift (odd) or mirror (even) */
		for (int x = 0; x < nn; x++) {
			int y = nn % 2 ? (x + 1) % nn : nn - 1 - x;
			int px = parent[0][x];
			int py = px < 0 ? -1 : (nn % 2 ? (px + 1) % nn : nn - 1 - px);

			g_assert_cmpint(parent[1][y], ==, py);
		}
		/* the point of the double tree: no node is a leaf of both */
		g_assert_cmpint(both_leaf, ==, 0);
		gs_sched_free(s);
		gs_gen_free(g);
	}
}

/* Channel c's chain head is local rank (c / 2) % rpn: it alone talks to
 * other nodes, on both strands of the channel. 2 nodes x 4 ranks,
 * 8 channels, one loop each. */
static void test_chain_heads(void)
{
	gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_TREE, GS_DT_F32, 8, 4 * 64, 8, 0, 0, 4);
	gs_gen *g;
	gs_sched *s;
	char *err = NULL;

	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	s = gs_sched_materialize(g);
	for (int c = 0; c < 8; c++) {
		int head = (c / 2) % 4;
		/* the root: the head of node 0 (tree 0) or node 1 (tree 1, mirrored) */
		int root = (c % 2) * 4 + head;

		for (int r = 0; r < 8; r++) {
			for (int h = 0; h < 2; h++) {
				uint64_t len;
				const gs_step *st = gs_sched_strand(s, r, 2 * c + h, &len);

				/* up is never empty; down is empty exactly at the root */
				g_assert_true(h == 1 || len > 0);
				g_assert_true(h == 0 || (len == 0) == (r == root));
				for (uint64_t i = 0; i < len; i++) {
					int peers[2] = { st[i].send_peer, st[i].recv_peer };

					for (int j = 0; j < 2; j++) {
						if (peers[j] < 0 || peers[j] / 4 == r / 4)
							continue;
						/* an inter-node message: both ends are heads */
						g_assert_cmpint(r % 4, ==, head);
						g_assert_cmpint(peers[j] % 4, ==, head);
					}
				}
			}
		}
	}
	g_assert_cmpint(gs_sched_validate(s, &err), ==, GC_OK);
	gs_sched_free(s);
	gs_gen_free(g);
}

/*
 * 2 ranks, 1 per node, 4 floats, chunk 8 B (two loops of two floats), slice
 * 4 B (two slices per loop), one channel: strand c0 reduces up, c1
 * broadcasts down. Tree 0 over 2 nodes: node 0 is the root, node 1 its
 * child. Rank 0 (root, one up-child 1, one down-child 1): its up strand is
 * one RECV_REDUCE_COPY_SEND per slice (L = INPUT, result into OUTPUT and to
 * rank 1); its down strand is empty. Rank 1 (leaf, parent 0): its up strand
 * SENDs its INPUT slices, its down strand RECVs them back into OUTPUT.
 * Slices at bytes 0, 4 (loop 0) and 8, 12 (loop 1). Unused operands are
 * canonical: src INPUT+0, dst OUTPUT+0.
 */
static const char golden_tree2[] =
	"r0 c0 #0 RECV_REDUCE_COPY_SEND send=1 recv=1 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
	"r0 c0 #1 RECV_REDUCE_COPY_SEND send=1 recv=1 src=INPUT+4 dst=OUTPUT+4 bytes=4\n"
	"r0 c0 #2 RECV_REDUCE_COPY_SEND send=1 recv=1 src=INPUT+8 dst=OUTPUT+8 bytes=4\n"
	"r0 c0 #3 RECV_REDUCE_COPY_SEND send=1 recv=1 src=INPUT+12 dst=OUTPUT+12 bytes=4\n"
	"r1 c0 #0 SEND send=0 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
	"r1 c0 #1 SEND send=0 recv=-1 src=INPUT+4 dst=OUTPUT+0 bytes=4\n"
	"r1 c0 #2 SEND send=0 recv=-1 src=INPUT+8 dst=OUTPUT+0 bytes=4\n"
	"r1 c0 #3 SEND send=0 recv=-1 src=INPUT+12 dst=OUTPUT+0 bytes=4\n"
	"r1 c1 #0 RECV send=-1 recv=0 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
	"r1 c1 #1 RECV send=-1 recv=0 src=INPUT+0 dst=OUTPUT+4 bytes=4\n"
	"r1 c1 #2 RECV send=-1 recv=0 src=INPUT+0 dst=OUTPUT+8 bytes=4\n"
	"r1 c1 #3 RECV send=-1 recv=0 src=INPUT+0 dst=OUTPUT+12 bytes=4\n";

/*
 * 4 ranks, 2 per node, 3 floats, chunk 8 B, slice 4 B, one channel: loop 0
 * is floats 0, 1 (slices at bytes 0 and 4), loop 1 is float 2 (one slice at
 * byte 8, in-loop offset 0). Channel 0: tree 0 (node 0 root, node 1 its
 * child), chain head local rank 0, so chains 0 -> 1 and 2 -> 3.
 *   rank 0: root; up-children 1 (chain), 2 (head of node 1); down-children
 *           2 (tree child first), 1. Up strand per slice: RECV_REDUCE_COPY
 *           from 1 with L = INPUT into SCRATCH; RECV_REDUCE_COPY_SEND from 2
 *           with L = SCRATCH into OUTPUT and to 2; SEND OUTPUT to 1 (fan-out). Down
 *           strand empty.
 *   rank 1: parent 0, no children. Up: SEND INPUT to 0. Down: RECV from 0.
 *   rank 2: parent 0, child 3. Up: RECV_REDUCE_SEND from 3 to 0 (L = INPUT).
 *           Down: RECV_COPY_SEND from 0 into OUTPUT and to 3.
 *   rank 3: parent 2, no children. Up: SEND INPUT to 2. Down: RECV from 2.
 * SCRATCH: one region of min(CE, 3) = 2 floats for the channel's up strand,
 * used at the slice's in-loop offset (0, 4, then 0 again in loop 1).
 */
static const char golden_tree4[] =
	"r0 c0 #0 RECV_REDUCE_COPY send=-1 recv=1 src=INPUT+0 dst=SCRATCH+0 bytes=4\n"
	"r0 c0 #1 RECV_REDUCE_COPY_SEND send=2 recv=2 src=SCRATCH+0 dst=OUTPUT+0 bytes=4\n"
	"r0 c0 #2 SEND send=1 recv=-1 src=OUTPUT+0 dst=OUTPUT+0 bytes=4 fanout\n"
	"r0 c0 #3 RECV_REDUCE_COPY send=-1 recv=1 src=INPUT+4 dst=SCRATCH+4 bytes=4\n"
	"r0 c0 #4 RECV_REDUCE_COPY_SEND send=2 recv=2 src=SCRATCH+4 dst=OUTPUT+4 bytes=4\n"
	"r0 c0 #5 SEND send=1 recv=-1 src=OUTPUT+4 dst=OUTPUT+0 bytes=4 fanout\n"
	"r0 c0 #6 RECV_REDUCE_COPY send=-1 recv=1 src=INPUT+8 dst=SCRATCH+0 bytes=4\n"
	"r0 c0 #7 RECV_REDUCE_COPY_SEND send=2 recv=2 src=SCRATCH+0 dst=OUTPUT+8 bytes=4\n"
	"r0 c0 #8 SEND send=1 recv=-1 src=OUTPUT+8 dst=OUTPUT+0 bytes=4 fanout\n"
	"r1 c0 #0 SEND send=0 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
	"r1 c0 #1 SEND send=0 recv=-1 src=INPUT+4 dst=OUTPUT+0 bytes=4\n"
	"r1 c0 #2 SEND send=0 recv=-1 src=INPUT+8 dst=OUTPUT+0 bytes=4\n"
	"r1 c1 #0 RECV send=-1 recv=0 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
	"r1 c1 #1 RECV send=-1 recv=0 src=INPUT+0 dst=OUTPUT+4 bytes=4\n"
	"r1 c1 #2 RECV send=-1 recv=0 src=INPUT+0 dst=OUTPUT+8 bytes=4\n"
	"r2 c0 #0 RECV_REDUCE_SEND send=0 recv=3 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
	"r2 c0 #1 RECV_REDUCE_SEND send=0 recv=3 src=INPUT+4 dst=OUTPUT+0 bytes=4\n"
	"r2 c0 #2 RECV_REDUCE_SEND send=0 recv=3 src=INPUT+8 dst=OUTPUT+0 bytes=4\n"
	"r2 c1 #0 RECV_COPY_SEND send=3 recv=0 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
	"r2 c1 #1 RECV_COPY_SEND send=3 recv=0 src=INPUT+0 dst=OUTPUT+4 bytes=4\n"
	"r2 c1 #2 RECV_COPY_SEND send=3 recv=0 src=INPUT+0 dst=OUTPUT+8 bytes=4\n"
	"r3 c0 #0 SEND send=2 recv=-1 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
	"r3 c0 #1 SEND send=2 recv=-1 src=INPUT+4 dst=OUTPUT+0 bytes=4\n"
	"r3 c0 #2 SEND send=2 recv=-1 src=INPUT+8 dst=OUTPUT+0 bytes=4\n"
	"r3 c1 #0 RECV send=-1 recv=2 src=INPUT+0 dst=OUTPUT+0 bytes=4\n"
	"r3 c1 #1 RECV send=-1 recv=2 src=INPUT+0 dst=OUTPUT+4 bytes=4\n"
	"r3 c1 #2 RECV send=-1 recv=2 src=INPUT+0 dst=OUTPUT+8 bytes=4\n";

static void check_golden(const gs_params *p, const char *want, uint64_t scratch)
{
	gs_gen *g;
	gs_sched *s;
	GString *a = g_string_new(NULL);
	char *err = NULL;

	g_assert_cmpint(gs_gen_create(p, &g, &err), ==, GC_OK);
	g_assert_cmpint(g->nstrands, ==, 2);
	g_assert_cmpint(g->strands_per_channel, ==, 2);
	g_assert_cmpuint(g->buf_bytes[GS_BUF_SCRATCH], ==, scratch);
	s = gs_sched_materialize(g);
	gs_sched_dump(s, a);
	g_assert_cmpstr(a->str, ==, want);
	g_assert_cmpint(gs_sched_validate(s, &err), ==, GC_OK);
	g_assert_cmpint(gs_refexec_run(s, &err), ==, GC_OK);
	gs_sched_free(s);
	gs_gen_free(g);
	g_string_free(a, TRUE);
}

static void test_golden(void)
{
	gs_params p2 = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_TREE, GS_DT_F32, 2, 16, 1, 8, 4, 1);
	gs_params p4 = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_TREE, GS_DT_F32, 4, 12, 1, 8, 4, 2);

	check_golden(&p2, golden_tree2, 0);
	check_golden(&p4, golden_tree4, 8);
}

/*
 * The split, checked on generated schedules. Per channel, a rank's parent is
 * where its up strand first sends (SEND or RECV_REDUCE_SEND); the root's
 * first send is a RECV_REDUCE_COPY_SEND to a child.
 * Then: an up strand receives only from ranks whose parent it is and sends
 * only to its parent -- except the root's, which also sends to its
 * children; a down strand receives only from its parent and sends only to
 * its children; the root's down strand is empty and every other one is not;
 * the children an up strand reduces are exactly those the rank (down strand,
 * or the root's up strand) broadcasts to. With unlimited buffering the up
 * strands all finish while no down strand runs (up never waits for down, so
 * the up phase of later loops overlaps the down phase of earlier ones), and
 * the down strands alone cannot start.
 */
static void check_split(const gs_params *p)
{
	gs_gen *g;
	gs_sched *s;
	char *err = NULL, *where = NULL;
	int n = p->nranks, nch = p->nchannels;
	int *parent = g_new(int, (size_t)n);
	uint64_t *up_from = g_new0(uint64_t, (size_t)n), *down_to = g_new0(uint64_t, (size_t)n);
	uint64_t nonroot = 0;

	g_assert_cmpint(gs_gen_create(p, &g, &err), ==, GC_OK);
	s = gs_sched_materialize(g);
	g_assert_cmpint(s->nstrands, ==, 2 * nch);
	g_assert_cmpint(s->strands_per_channel, ==, 2);
	for (int c = 0; c < nch; c++) {
		int roots = 0;

		for (int r = 0; r < n; r++) {
			uint64_t len;
			const gs_step *st = gs_sched_strand(s, r, 2 * c, &len);

			g_assert_cmpuint(len, >, 0);
			/* the first send of the up strand goes to the parent, unless
			 * it is the root's RECV_REDUCE_COPY_SEND to its first child */
			uint64_t i = 0;

			while (i < len && !gs_op_sends(st[i].op))
				i++;
			g_assert_cmpuint(i, <, len);
			parent[r] = st[i].op == GS_OP_RECV_REDUCE_COPY_SEND ? -1 : st[i].send_peer;
			roots += parent[r] < 0;
		}
		g_assert_cmpint(roots, ==, 1);
		for (int r = 0; r < n; r++) {
			uint64_t len;
			const gs_step *up = gs_sched_strand(s, r, 2 * c, &len);

			/* children as bit sets (n <= 64 here) */
			up_from[r] = down_to[r] = 0;
			for (uint64_t i = 0; i < len; i++) {
				if (gs_op_recvs(up[i].op)) {
					g_assert_cmpint(parent[up[i].recv_peer], ==, r);
					up_from[r] |= 1ull << up[i].recv_peer;
				}
				if (gs_op_sends(up[i].op) && parent[r] >= 0)
					g_assert_cmpint(up[i].send_peer, ==, parent[r]);
				if (gs_op_sends(up[i].op) && parent[r] < 0) {
					g_assert_cmpint(parent[up[i].send_peer], ==, r);
					down_to[r] |= 1ull << up[i].send_peer;
				}
			}
			const gs_step *down = gs_sched_strand(s, r, 2 * c + 1, &len);

			g_assert_cmpint(len == 0, ==, parent[r] < 0);
			nonroot += parent[r] >= 0;
			for (uint64_t i = 0; i < len; i++) {
				g_assert_true(gs_op_recvs(down[i].op) || down[i].op == GS_OP_SEND);
				if (gs_op_recvs(down[i].op))
					g_assert_cmpint(down[i].recv_peer, ==, parent[r]);
				if (gs_op_sends(down[i].op)) {
					g_assert_cmpint(parent[down[i].send_peer], ==, r);
					down_to[r] |= 1ull << down[i].send_peer;
				}
			}
			g_assert_cmpuint(up_from[r], ==, down_to[r]);
		}
	}
	g_assert_cmpuint(tu_run_bounded(s, UINT64_MAX, 0, &where), ==, 0);
	g_assert_cmpuint(tu_run_bounded(s, UINT64_MAX, 1, &where), ==, nonroot);
	g_free(where);
	g_free(parent);
	g_free(up_from);
	g_free(down_to);
	gs_sched_free(s);
	gs_gen_free(g);
}

static void test_split(void)
{
	static const int cases[][3] = {
		/* nranks, rpn, nchannels */
		{ 2, 1, 1 },  { 2, 2, 2 },  { 3, 1, 2 }, { 5, 1, 3 },  { 7, 7, 2 },
		{ 12, 4, 4 }, { 16, 2, 3 }, { 24, 8, 8 }, { 40, 8, 5 }, { 64, 1, 2 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		/* three loops per channel, the last one partial */
		gs_params p = tu_params(GS_COLL_ALLREDUCE, GS_ALGO_TREE, GS_DT_F32, cases[i][0],
					4 * (uint64_t)cases[i][2] * (2 * 64 + 9), cases[i][2],
					CHUNK, SLICE, cases[i][1]);

		check_split(&p);
	}
}

/* Structure cases named in the design: one rank, one node (chain only),
 * one rank per node (tree only), chains of length 2 and many, nodes with
 * 0, 1, 2 tree children, with several loops and slices. */
static void test_cases(void)
{
	static const int cases[][2] = {
		/* nranks, rpn */
		{ 1, 1 }, { 2, 2 },  { 7, 7 },	{ 16, 16 }, { 2, 1 },  { 3, 1 },  { 5, 1 },
		{ 6, 2 }, { 12, 4 }, { 24, 8 }, { 40, 8 },  { 63, 7 }, { 64, 2 },
	};
	GRand *rnd = g_rand_new_with_seed(3);

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		for (int nch = 1; nch <= 4; nch++) {
			gs_params p =
				tu_params(GS_COLL_ALLREDUCE, GS_ALGO_TREE, GS_DT_F32, cases[i][0],
					  4 * (7 * 64 + 9), nch, CHUNK, SLICE, cases[i][1]);

			if (!tu_check_case(&p, rnd))
				goto out;
		}
	}
out:
	g_rand_free(rnd);
}

/* Beyond the sweep: a few hundred ranks, end to end. */
static void test_large(void)
{
	GRand *rnd = g_rand_new_with_seed(22);
	gs_params ps[] = {
		tu_params(GS_COLL_ALLREDUCE, GS_ALGO_TREE, GS_DT_F32, 256, 4 * 3000, 4, CHUNK,
			  SLICE, 8),
		tu_params(GS_COLL_ALLREDUCE, GS_ALGO_TREE, GS_DT_U8, 300, 3001, 3, CHUNK, SLICE, 1),
	};

	for (size_t i = 0; i < G_N_ELEMENTS(ps); i++)
		g_assert_true(tu_check_case(&ps[i], rnd));
	g_rand_free(rnd);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/sched/tree/golden", test_golden);
	g_test_add_func("/sched/tree/split", test_split);
	g_test_add_func("/sched/tree/node_trees", test_node_trees);
	g_test_add_func("/sched/tree/chain_heads", test_chain_heads);
	g_test_add_func("/sched/tree/cases", test_cases);
	g_test_add_func("/sched/tree/sweep", test_sweep);
	g_test_add_func("/sched/tree/large", test_large);
	return g_test_run();
}
