/* SPDX-License-Identifier: MIT */
/*
 * The step records (gm_coll_opts.on_step) and the walk built on them
 * (gm_walk, gcsim explain --collective): one record per step; a strand's
 * steps follow each other without gaps and each splits into data, room and
 * moving in order; the last end is the operation's time; recording changes
 * no time; on a flat ring the split is exactly the route latency and the
 * slice at the link's rate; a small receive buffer shows up as waiting for
 * room; and the walk's listing, CSV and refusals.
 */
#include "run_testutil.h"

#include <stdlib.h>

#include "sim/models/report/gm_walk.h"

typedef struct recs {
	GArray *a; /* gm_step_rec, with step copied into steps */
	GArray *steps;
} recs;

static void collect(void *ctx, const gm_step_rec *r)
{
	recs *c = ctx;
	g_array_append_vals(c->a, r, 1);
	g_array_append_vals(c->steps, r->step, 1);
}

static gm_run *run_recs(const char *yaml, const char *const *sets, recs *c)
{
	c->a = g_array_new(FALSE, FALSE, sizeof(gm_step_rec));
	c->steps = g_array_new(FALSE, FALSE, sizeof(gs_step));
	gm_run_opts o = {.sets = sets, .on_step = collect, .step_ctx = c};
	return run_yaml_with(yaml, &o);
}

static void recs_free(recs *c)
{
	g_array_free(c->a, TRUE);
	g_array_free(c->steps, TRUE);
}

static const gm_step_rec *rec_at(const recs *c, guint i) { return &g_array_index(c->a, gm_step_rec, i); }
static const gs_step *step_at(const recs *c, guint i) { return &g_array_index(c->steps, gs_step, i); }

/* Per strand, in the order they completed: consecutive indices from 0, each
 * step starting where the one before ended, start <= recv <= ready <= end;
 * the latest end is the run's total time. */
static void check_recs(const recs *c, const gm_point *pt, const char *what)
{
	GHashTable *last = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	int64_t end = 0;
	for (guint i = 0; i < c->a->len; i++) {
		const gm_step_rec *r = rec_at(c, i);
		g_assert_cmpint(r->start_ps, <=, r->recv_ps);
		g_assert_cmpint(r->recv_ps, <=, r->ready_ps);
		g_assert_cmpint(r->ready_ps, <=, r->end_ps);
		if (!gs_op_recvs((gs_op)step_at(c, i)->op) && step_at(c, i)->op != GS_OP_WAIT)
			g_assert_cmpint(r->recv_ps, ==, r->start_ps);
		gint64 key = ((gint64)r->iter << 48) | ((gint64)r->rank << 20) | r->strand;
		gpointer prev = g_hash_table_lookup(last, &key);
		if (!prev)
			g_assert_cmpuint(r->index, ==, 0);
		else
			g_assert_cmpuint(r->index, ==, rec_at(c, GPOINTER_TO_UINT(prev) - 1)->index + 1);
		if (prev && rec_at(c, GPOINTER_TO_UINT(prev) - 1)->iter == r->iter)
			g_assert_cmpint(r->start_ps, ==, rec_at(c, GPOINTER_TO_UINT(prev) - 1)->end_ps);
		gint64 *k = g_new(gint64, 1);
		*k = key;
		g_hash_table_replace(last, k, GUINT_TO_POINTER(i + 1));
		if (r->end_ps > end)
			end = r->end_ps;
	}
	g_test_message("%s: %u steps, last end %lld ps, total %lld ps", what, c->a->len, (long long)end,
		       (long long)pt->r.total_ps);
	g_assert_cmpuint(c->a->len, ==, pt->r.steps);
	g_assert_cmpint(end, ==, pt->r.total_ps);
	g_hash_table_destroy(last);
}

/* Every executor path (exec_cases) and the packet fidelity: the records
 * hold their invariants and recording them changes neither the times nor
 * the events of the unfolded run. */
static void test_invariants(void)
{
	size_t n;
	const exec_case *shared = exec_cases(&n);
	/* and the packet fidelity's own landings */
	exec_case cases[16];
	g_assert_cmpuint(n + 1, <=, G_N_ELEMENTS(cases));
	memcpy(cases, shared, n * sizeof(*cases));
	cases[n++] = (exec_case){"packet fidelity", "topology: {preset: dgx-h100, nodes: 2}\n"
						    "collective: {op: allreduce, algo: ring, sizes: [256KiB]}\n"
						    "sim: {fidelity: packet}\n"};
	for (size_t k = 0; k < n; k++) {
		char *yaml = g_strdup_printf("schema_version: 1\n%s", cases[k].yaml);
		/* records are every rank's, so a recorded run is never folded
		 * (gm_coll_fold_ranks): its reference is not either */
		const char *unfolded[] = {"sim.fold=false", NULL};
		gm_run *plain = run_yaml(yaml, unfolded);
		for (size_t i = 0; i < plain->npts; i++) {
			char *size = g_strdup_printf("collective.sizes=%lluB",
						     (unsigned long long)plain->pts[i].bytes);
			const char *sets[] = {size, NULL};
			recs c;
			gm_run *r = run_recs(yaml, sets, &c);
			const gm_point *pt = &r->pts[0], *ref = &plain->pts[i];
			g_assert_cmpint(pt->r.total_ps, ==, ref->r.total_ps);
			g_assert_cmpuint(pt->r.events, ==, ref->r.events);
			check_recs(&c, pt, cases[k].what);
			recs_free(&c);
			gm_run_free(r);
			g_free(size);
		}
		gm_run_free(plain);
		g_free(yaml);
	}
}

/* 8 GPUs on one switch, 50 GB/s and 1 us per link, 2 us launch, one
 * channel: the ring allreduce of S is 2(n-1) sends of one S/n slice and a
 * last receive. Each step that receives waits exactly one route latency for
 * its message (its neighbour sent it at the same instant), never for room,
 * and moves its slice in S/(nB). */
static void test_flat_ring_exact(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {kind: flat, gpus: 8, link: {bandwidth: 50GB/s, latency: 1us}, "
			   "launch_latency: 2us}\n"
			   "collective: {op: allreduce, algo: ring, channels: 1, sizes: [64KiB]}\n";
	const int n = 8;
	recs c;
	gm_run *r = run_recs(yaml, NULL, &c);
	const double slice_ps = 65536.0 / n / 50e9 * 1e12;
	g_assert_cmpuint(c.a->len, ==, (guint)(n * (2 * (n - 1) + 1)));
	for (guint i = 0; i < c.a->len; i++) {
		const gm_step_rec *rc = rec_at(&c, i);
		const gs_step *st = step_at(&c, i);
		g_assert_cmpuint(st->bytes, ==, 65536 / n);
		if (rc->index == 0) {
			g_assert_cmpint(st->op, ==, GS_OP_SEND);
			g_assert_cmpint(rc->start_ps, ==, 2000000);
		} else {
			g_assert_cmpint(st->recv_peer, ==, (int)((rc->rank + n - 1) % n));
			g_assert_cmpint(rc->recv_ps - rc->start_ps, ==, 1000000);
		}
		g_assert_cmpint(rc->ready_ps, ==, rc->recv_ps);
		if (gs_op_sends((gs_op)st->op)) {
			g_assert_cmpint(st->send_peer, ==, (int)((rc->rank + 1) % n));
			g_assert_cmpuint(rc->via, ==, 1u << GM_LINK_GENERIC);
			g_assert_cmpfloat(fabs((double)(rc->end_ps - rc->ready_ps) - slice_ps), <=, 1.0);
		} else {
			g_assert_cmpint(st->op, ==, GS_OP_RECV);
			g_assert_cmpint(rc->end_ps, ==, rc->ready_ps);
			g_assert_cmpuint(rc->via, ==, 0);
		}
	}
	recs_free(&c);
	gm_run_free(r);
}

/* A receive buffer of one chunk: a strand that sends the two slices of a
 * chunk and then the next chunk waits for the first chunk's credit (a
 * route latency back after the receiver consumed it); with NCCL's 4 MiB
 * buffer the same schedule never waits for room. */
static void test_room(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {kind: flat, gpus: 4, link: {bandwidth: 50GB/s, latency: 1us}}\n"
			   "collective: {op: allgather, algo: ring, channels: 1, chunk: 64KiB, slice: "
			   "32KiB, sizes: [4MiB]}\n";
	recs big, small;
	gm_run *a = run_recs(yaml, NULL, &big);
	const char *tight[] = {"collective.buffer=64KiB", NULL};
	gm_run *b = run_recs(yaml, tight, &small);
	int64_t room_big = 0, room_small = 0;
	for (guint i = 0; i < big.a->len; i++)
		room_big += rec_at(&big, i)->ready_ps - rec_at(&big, i)->recv_ps;
	for (guint i = 0; i < small.a->len; i++)
		room_small += rec_at(&small, i)->ready_ps - rec_at(&small, i)->recv_ps;
	g_test_message("room: %lld ps with the default buffer, %lld ps with 64 KiB; time %.1f against "
		       "%.1f us",
		       (long long)room_big, (long long)room_small, a->pts[0].time_us, b->pts[0].time_us);
	g_assert_cmpint(room_big, ==, 0);
	g_assert_cmpint(room_small, >, 0);
	g_assert_cmpfloat(b->pts[0].time_us, >, a->pts[0].time_us);
	check_recs(&small, &b->pts[0], "one-slice buffer");
	recs_free(&big);
	recs_free(&small);
	gm_run_free(a);
	gm_run_free(b);
}

/* Two DGX H100 nodes: a ring's steps inside a node cross NVLink only,
 * those between the nodes PCIe and the NICs; nothing else is crossed. */
static void test_via(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {preset: dgx-h100, nodes: 2}\n"
			   "collective: {op: allreduce, algo: ring, sizes: [1MiB]}\n";
	recs c;
	gm_run *r = run_recs(yaml, NULL, &c);
	const uint32_t nvl = 1u << GM_LINK_NVLINK, net = (1u << GM_LINK_PCIE) | (1u << GM_LINK_NIC);
	int n_nvl = 0, n_net = 0;
	for (guint i = 0; i < c.a->len; i++) {
		const gm_step_rec *rc = rec_at(&c, i);
		const gs_step *st = step_at(&c, i);
		uint32_t v = rc->via & ~(1u << GM_LINK_CHANNEL);
		if (!gs_op_sends((gs_op)st->op)) {
			g_assert_cmpuint(rc->via, ==, 0);
			continue;
		}
		bool same_node = rc->rank / 8 == (uint32_t)st->send_peer / 8;
		g_assert_cmpuint(v, ==, same_node ? nvl : net);
		n_nvl += same_node;
		n_net += !same_node;
	}
	g_test_message("%d sends over NVLink, %d over the network", n_nvl, n_net);
	g_assert_cmpint(n_nvl, >, 0);
	g_assert_cmpint(n_net, >, 0);
	recs_free(&c);
	gm_run_free(r);
}

/* A walk of yaml with options o: the formatted text (empty when refused),
 * its status st and message err (g_free), the run's steps and the walk's
 * steps and strands. g_string_free the text. */
typedef struct walked {
	GString *text;
	gc_status st;
	char *err;
	uint64_t run_steps, steps;
	uint32_t strands;
} walked;

static walked walk_yaml(const char *yaml, const gm_walk_opts *wo)
{
	walked out = {.text = g_string_new(NULL)};
	gm_walk *w = gm_walk_new(wo);
	gm_run_opts o = {.breakdown = true, .on_step = gm_walk_on_step, .step_ctx = w};
	gm_run *r = run_yaml_with(yaml, &o);
	out.st = gm_walk_format(w, r, out.text, &out.err);
	out.run_steps = r->pts[0].r.steps;
	out.steps = gm_walk_steps(w);
	out.strands = gm_walk_strands(w);
	gm_walk_free(w);
	gm_run_free(r);
	return out;
}

static void walked_free(walked *x)
{
	g_string_free(x->text, TRUE);
	g_free(x->err);
}

static int count_lines(const char *s, const char *prefix)
{
	int n = 0;
	char **lines = g_strsplit(s, "\n", -1);
	for (char **l = lines; *l; l++)
		n += g_str_has_prefix(*l, prefix);
	g_strfreev(lines);
	return n;
}

/* The listing: one row per step of the strand (or the first and last ones
 * with the count of those between), the ops in words, totals by op, the
 * timeline and the breakdown; the CSV: one row per step, in order; and the
 * refusals of a rank or strand the run does not have. */
static void test_format(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {kind: flat, gpus: 8, link: {bandwidth: 50GB/s, latency: 1us}, "
			   "launch_latency: 2us}\n"
			   "collective: {op: allreduce, algo: ring, channels: 2, sizes: [64KiB]}\n";
	gm_walk_opts wo = {.rank = 3, .strand = 1, .timeline = true};
	walked x = walk_yaml(yaml, &wo);
	const char *t = x.text->str;
	g_assert_cmpint(x.st, ==, GC_OK);
	g_assert_cmpuint(x.steps, ==, x.run_steps);
	g_assert_cmpuint(x.strands, ==, 2);
	g_test_message("%s", t);
	g_assert_nonnull(strstr(t, "rank 3, strand 1 (channel 1): 15 steps"));
	g_assert_cmpint(count_lines(t, "      1  SEND "), ==, 1);
	g_assert_cmpint(count_lines(t, "     15  RECV "), ==, 1);
	g_assert_nonnull(strstr(t, gs_op_describe(GS_OP_RECV_REDUCE_SEND)));
	g_assert_cmpint(count_lines(t, "  rank "), ==, 8); /* the timeline */
	g_assert_nonnull(strstr(t, "# where the time goes"));
	walked_free(&x);

	/* 6 rows of 15: the first 5, the last one, and a line for the 9 between */
	gm_walk_opts few = {.max_rows = 6};
	x = walk_yaml(yaml, &few);
	t = x.text->str;
	g_assert_cmpint(x.st, ==, GC_OK);
	g_assert_nonnull(strstr(t, "... 9 steps more"));
	g_assert_cmpint(count_lines(t, "      5  RECV_REDUCE_SEND "), ==, 1);
	g_assert_cmpint(count_lines(t, "      6  "), ==, 0);
	g_assert_cmpint(count_lines(t, "     15  RECV "), ==, 1);
	walked_free(&x);

	gm_walk_opts csv = {.csv = true};
	x = walk_yaml(yaml, &csv);
	t = x.text->str;
	g_assert_cmpint(x.st, ==, GC_OK);
	g_assert_true(g_str_has_prefix(t, "rank,strand,channel,step,op,recv_from,send_to,over,bytes,"
					  "buffer,offset,start_us,recv_us,ready_us,end_us\n"));
	g_assert_cmpint(count_lines(t, "0,0,0,1,SEND,-1,1,link,4096,input,"), ==, 1);
	g_assert_cmpint(count_lines(t, "7,1,1,15,RECV,6,-1,-,4096,output,"), ==, 1);
	g_assert_cmpint(count_lines(t, ""), ==, (int)x.run_steps + 2); /* and the last "" */
	walked_free(&x);

	static const struct {
		gm_walk_opts o;
		const char *what;
	} bad[] = {
		{{.rank = 8}, "--rank 8: the run has ranks 0 to 7"},
		{{.strand = 2}, "--strand 2: each rank runs strands 0 to 1"},
	};
	for (size_t k = 0; k < G_N_ELEMENTS(bad); k++) {
		x = walk_yaml(yaml, &bad[k].o);
		g_assert_cmpint(x.st, ==, GC_ERR_INPUT);
		g_assert_cmpstr(x.err, ==, bad[k].what);
		g_assert_cmpuint(x.text->len, ==, 0);
		walked_free(&x);
	}
}

/* The pieces a flat 4-rank ring allreduce works on, from the walk's CSV:
 * on every rank its reduce-scatter half reads each of the 4 chunks of its
 * input once (the last of them, RECV_REDUCE_COPY_SEND, the chunk it
 * finishes), and its allgather half writes the 3 other chunks of its
 * output. */
static void test_pieces(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {kind: flat, gpus: 4, link: {bandwidth: 50GB/s, latency: 1us}}\n"
			   "collective: {op: allreduce, algo: ring, channels: 1, sizes: [4MiB]}\n";
	gm_walk_opts csv = {.csv = true};
	walked x = walk_yaml(yaml, &csv);
	g_assert_cmpint(x.st, ==, GC_OK);
	unsigned in[4] = {0}, out[4] = {0}, own[4] = {0};
	char **lines = g_strsplit(x.text->str, "\n", -1);
	for (char **l = lines + 1; *l && **l; l++) {
		char **f = g_strsplit(*l, ",", -1);
		int rank = atoi(f[0]);
		uint64_t chunk = g_ascii_strtoull(f[10], NULL, 10) / (1u << 20);
		g_assert_cmpuint(chunk, <, 4);
		if (!strcmp(f[9], "input"))
			in[rank] |= 1u << chunk;
		else if (!strcmp(f[9], "output"))
			out[rank] |= 1u << chunk;
		if (!strcmp(f[4], "RECV_REDUCE_COPY_SEND"))
			own[rank] = 1u << chunk;
		g_strfreev(f);
	}
	g_strfreev(lines);
	for (int k = 0; k < 4; k++) {
		g_test_message("rank %d: input chunks %#x, output chunks %#x, finishes %#x", k, in[k], out[k],
			       own[k]);
		g_assert_cmpuint(in[k], ==, 0xf);
		g_assert_cmpuint(out[k], ==, 0xf & ~own[k]);
		g_assert_cmpuint(own[k] & (own[k] - 1), ==, 0);
		g_assert_cmpuint(own[k], !=, 0);
	}
	walked_free(&x);
}

/* Past GM_WALK_MAX_STEPS (1024 GPUs in one ring: 2,096,128 steps) the
 * listed strand keeps all its steps, the note says what was dropped, and
 * CSV, which would miss steps, is refused. */
static void test_cap(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {kind: flat, gpus: 1024, link: {bandwidth: 50GB/s, latency: 1us}, "
			   "launch_latency: 0us}\n"
			   "collective: {op: allreduce, algo: ring, channels: 1, sizes: [1MiB]}\n";
	gm_walk_opts wo = {.rank = 700, .max_rows = 0};
	walked x = walk_yaml(yaml, &wo);
	g_assert_cmpint(x.st, ==, GC_OK);
	g_assert_cmpuint(x.steps, ==, 1024u * 2047u);
	g_assert_nonnull(strstr(x.text->str, "rank 700, strand 0 (channel 0): 2047 steps"));
	g_assert_cmpint(count_lines(x.text->str, "   2047  RECV "), ==, 1);
	g_assert_nonnull(strstr(x.text->str, "the run has 2096128 steps: past the first 1000000"));
	walked_free(&x);
	gm_walk_opts csv = {.csv = true};
	x = walk_yaml(yaml, &csv);
	g_assert_cmpint(x.st, ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(x.err, "more than the 1000000 a CSV walk keeps"));
	g_assert_cmpuint(x.text->len, ==, 0);
	walked_free(&x);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/walk/invariants", test_invariants);
	g_test_add_func("/walk/flat-ring-exact", test_flat_ring_exact);
	g_test_add_func("/walk/room", test_room);
	g_test_add_func("/walk/via", test_via);
	g_test_add_func("/walk/format", test_format);
	g_test_add_func("/walk/pieces", test_pieces);
	g_test_add_func("/walk/cap", test_cap);
	return g_test_run();
}
