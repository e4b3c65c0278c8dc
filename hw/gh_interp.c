/* SPDX-License-Identifier: MIT */
/*
 * gh_interp: packing a schedule for the GPU interpreter and the expected
 * output of each collective under the input convention (see gh_interp.h).
 *
 * Connections are keyed like every other executor's: (src rank, dst rank,
 * channel) with channel = strand / strands_per_channel, so a message sent
 * by one strand of src is found by the receiving strand of dst even when
 * the two strand indices differ (tree up/down, p2p send/receive groups).
 * A mailbox's head is written only by its sending block and its tail only
 * by its receiving block, so packing refuses a schedule where two strands
 * send, or two strands receive, on one connection.
 *
 * One-sided ops (PUT, SIGNAL, WAIT) get no mailbox: only connections that
 * carry two-sided messages are numbered, so every mailbox has a receiver.
 * Their sends still count for the one-sending-strand rule, and the fields
 * the kernel uses without checking (the peer, the PUT's remote range, the
 * signal slots) are checked here.
 */
#include "gh_interp.h"

#include <glib.h>
#include <string.h>

static uint32_t step_props(gs_op op)
{
	/* one-sided ops never touch a mailbox: their bits say what to do */
	if (op == GS_OP_PUT)
		return GH_P_PUT | GH_P_READS;
	if (op == GS_OP_SIGNAL)
		return GH_P_SIGNAL;
	if (op == GS_OP_WAIT)
		return GH_P_WAIT;
	return (gs_op_sends(op) ? GH_P_SEND : 0) | (gs_op_recvs(op) ? GH_P_RECV : 0) |
	       (gs_op_reduces(op) ? GH_P_REDUCE : 0) | (gs_op_reads_src(op) ? GH_P_READS : 0) |
	       (gs_op_writes_dst(op) ? GH_P_WRITES : 0);
}

/* The fields of a one-sided step the kernel trusts; NULL when they are fine. */
static const char *one_sided_fault(const gs_sched *s, int r, const gs_step *st)
{
	gs_op op = (gs_op)st->op;

	if ((op == GS_OP_PUT || op == GS_OP_SIGNAL) &&
	    (st->send_peer < 0 || st->send_peer >= s->nranks || st->send_peer == r))
		return "send_peer is not another rank";
	if (op == GS_OP_SIGNAL && st->dst_off >= s->nsignals)
		return "signal slot out of range";
	if (op == GS_OP_WAIT && st->src_off >= s->nsignals)
		return "signal slot out of range";
	if (op == GS_OP_PUT &&
	    (st->dst_buf >= GS_BUF__COUNT || st->dst_off > s->buf_bytes[st->dst_buf] ||
	     st->bytes > s->buf_bytes[st->dst_buf] - st->dst_off))
		return "PUT outside the peer's buffer";
	return NULL;
}

static uint64_t align256(uint64_t x)
{
	return (x + 255) & ~(uint64_t)255;
}

/* Key of connection (src, dst, channel of strand). */
static int64_t conn_key(const gs_sched *s, int src, int dst, int strand)
{
	int spc = s->strands_per_channel;

	return ((int64_t)src * s->nranks + dst) * (s->nstrands / spc) + strand / spc;
}

/* Each connection's mailbox: a slot for every piece it carries in a launch
 * under the plan's protocol, at least GH_NSLOTS. */
static void size_slots(gh_interp_plan *plan)
{
	memset(plan->conn_slots, 0, sizeof(uint64_t) * (size_t)(plan->nconns > 0 ? plan->nconns : 1));
	for (uint64_t i = 0; i < plan->nsteps; i++)
		if (plan->aux[i].send_conn >= 0)
			plan->conn_slots[plan->aux[i].send_conn] +=
				gh_interp_pieces(plan->steps[i].bytes, plan->proto);
	for (int c = 0; c < plan->nconns; c++)
		if (plan->conn_slots[c] < GH_NSLOTS)
			plan->conn_slots[c] = GH_NSLOTS;
}

/* A local range a step reads or writes. */
typedef struct lrange {
	uint32_t buf;
	uint64_t off, bytes;
	bool write;
} lrange;

/* Whether access a must wait for b, moved by other blocks: same buffer,
 * overlapping bytes, one of them a write, and not the very same range
 * (which every block cuts the same way, so each block touches only the
 * bytes it moved itself). */
static bool lrange_conflict(const lrange *a, const lrange *b)
{
	if (a->buf != b->buf || !(a->write || b->write) || !a->bytes || !b->bytes)
		return false;
	if (a->off == b->off && a->bytes == b->bytes)
		return false;
	return a->off < b->off + b->bytes && b->off < a->off + a->bytes;
}

/* GH_P_SYNC on every step that conflicts with a local access of its strand
 * since the strand's blocks last met (kept for any block count: the kernel
 * meets only when it runs more than one block per strand). */
static void mark_syncs(gh_interp_plan *plan)
{
	GArray *seen = g_array_new(FALSE, FALSE, sizeof(lrange));
	const uint64_t nstr = (uint64_t)plan->nranks * (uint64_t)plan->nstrands;
	for (uint64_t k = 0; k < nstr; k++) {
		g_array_set_size(seen, 0);
		for (uint64_t i = plan->strand_off[k]; i < plan->strand_off[k + 1]; i++) {
			const gs_step *st = &plan->steps[i];
			gh_step_aux *ax = &plan->aux[i];
			lrange acc[2];
			int na = 0;
			if (ax->props & GH_P_READS)
				acc[na++] = (lrange){st->src_buf, st->src_off, st->bytes, false};
			if ((ax->props & GH_P_WRITES) && !(ax->props & GH_P_PUT))
				acc[na++] = (lrange){st->dst_buf, st->dst_off, st->bytes, true};
			bool sync = false;
			for (int a = 0; a < na && !sync; a++)
				for (guint j = 0; j < seen->len && !sync; j++)
					sync = lrange_conflict(&acc[a], &g_array_index(seen, lrange, j));
			if (sync) {
				ax->props |= GH_P_SYNC;
				g_array_set_size(seen, 0);
			}
			g_array_append_vals(seen, acc, (guint)na);
		}
	}
	g_array_free(seen, TRUE);
}

gc_status gh_interp_plan_build(const gs_sched *s, gh_interp_plan *plan, char **errmsg)
{
	memset(plan, 0, sizeof(*plan));
	gs_dtype dt = s->p.dtype;
	if (dt != GS_DT_F32 && dt != GS_DT_I32 && dt != GS_DT_F64) {
		*errmsg = g_strdup_printf("the interpreter reduces float, int32 and double, not %s",
					  gs_dtype_name(dt));
		return GC_ERR_UNSUPPORTED;
	}
	if (s->strands_per_channel < 1 || s->nstrands % s->strands_per_channel != 0) {
		*errmsg = g_strdup_printf("bad schedule shape: %d strands in channels of %d",
					  s->nstrands, s->strands_per_channel);
		return GC_ERR_INPUT;
	}
	plan->p = s->p;
	plan->nranks = s->nranks;
	plan->nstrands = s->nstrands;
	plan->strands_per_channel = s->strands_per_channel;
	plan->nsignals = s->nsignals;
	plan->elem = gs_dtype_size(dt);
	uint64_t nstr = (uint64_t)s->nranks * (uint64_t)s->nstrands;
	plan->nsteps = s->strand_off[nstr];
	plan->steps = s->steps;
	plan->strand_off = g_memdup2(s->strand_off, (nstr + 1) * sizeof(uint64_t));
	plan->aux = g_new0(gh_step_aux, plan->nsteps ? plan->nsteps : 1);
	uint64_t off = 0;
	for (int b = 0; b < GS_BUF__COUNT; b++) {
		plan->buf_bytes[b] = s->buf_bytes[b];
		plan->buf_off[b] = off;
		off = align256(off + s->buf_bytes[b]);
	}
	plan->rank_stride = off ? off : 256;

	GHashTable *conns = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	/* per connection key: 1 + the one strand that sends on it (two- or one-sided) */
	GHashTable *senders = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	GArray *src = g_array_new(FALSE, FALSE, sizeof(int32_t));
	GArray *dst = g_array_new(FALSE, FALSE, sizeof(int32_t));
	GArray *chs = g_array_new(FALSE, FALSE, sizeof(int32_t));
	/* per mailbox: the one strand that receives from it */
	GArray *receiver = g_array_new(FALSE, FALSE, sizeof(int32_t));
	gc_status st = GC_OK;
	/* Pass 1 numbers the connections in send order; pass 2 resolves receives. */
	for (int pass = 0; pass < 2 && st == GC_OK; pass++) {
		for (int r = 0; r < s->nranks && st == GC_OK; r++) {
			for (int c = 0; c < s->nstrands && st == GC_OK; c++) {
				uint64_t len, base = s->strand_off[(uint64_t)r * s->nstrands + c];
				const gs_step *steps = gs_sched_strand(s, r, c, &len);
				for (uint64_t i = 0; i < len; i++) {
					const gs_step *stp = &steps[i];
					gh_step_aux *ax = &plan->aux[base + i];
					if (stp->op >= GS_OP__COUNT) {
						*errmsg = g_strdup_printf("r%d c%d #%" G_GUINT64_FORMAT
									  ": unknown op %u",
									  r, c, i, stp->op);
						st = GC_ERR_INPUT;
						break;
					}
					gs_op op = (gs_op)stp->op;
					if (op != GS_OP_SIGNAL && op != GS_OP_WAIT &&
					    stp->bytes > plan->max_msg_bytes)
						plan->max_msg_bytes = stp->bytes;
					if (pass == 0) {
						ax->props = step_props(op);
						ax->send_conn = ax->recv_conn = -1;
						const char *fault = gs_op_one_sided(op)
									    ? one_sided_fault(s, r, stp)
									    : NULL;
						if (fault) {
							*errmsg = g_strdup_printf(
								"r%d c%d #%" G_GUINT64_FORMAT " (%s): %s",
								r, c, i, gs_op_name(op), fault);
							st = GC_ERR_INPUT;
							break;
						}
						if (!gs_op_sends(op))
							continue;
						int64_t k = conn_key(s, r, stp->send_peer, c);
						int32_t owner = GPOINTER_TO_INT(g_hash_table_lookup(senders, &k)) - 1;
						if (owner < 0) {
							g_hash_table_insert(senders, g_memdup2(&k, sizeof(k)),
									    GINT_TO_POINTER(c + 1));
						} else if (owner != c) {
							*errmsg = g_strdup_printf(
								"r%d c%d #%" G_GUINT64_FORMAT ": connection "
								"%d->%d channel %d has two sending strands: "
								"%d and %d",
								r, c, i, r, stp->send_peer,
								c / s->strands_per_channel, owner, c);
							st = GC_ERR_INPUT;
							break;
						}
						if (gs_op_one_sided(op))
							continue; /* no mailbox */
						if (!g_hash_table_contains(conns, &k)) {
							int32_t idx = (int32_t)src->len, sr = r,
								ds = stp->send_peer,
								cc = c / s->strands_per_channel, none = -1;
							g_hash_table_insert(conns, g_memdup2(&k, sizeof(k)),
									    GINT_TO_POINTER(idx + 1));
							g_array_append_val(src, sr);
							g_array_append_val(dst, ds);
							g_array_append_val(chs, cc);
							g_array_append_val(receiver, none);
						}
						ax->send_conn = GPOINTER_TO_INT(g_hash_table_lookup(conns, &k)) - 1;
					} else if (gs_op_recvs(op)) {
						/* the mailbox of the sender's channel, found
						 * from the receiving strand's channel */
						int64_t k = conn_key(s, stp->recv_peer, r, c);
						gpointer v = g_hash_table_lookup(conns, &k);
						if (!v) {
							*errmsg = g_strdup_printf(
								"r%d c%d #%" G_GUINT64_FORMAT ": %s from r%d "
								"on channel %d, but r%d never sends there",
								r, c, i, gs_op_name(op), stp->recv_peer,
								c / s->strands_per_channel, stp->recv_peer);
							st = GC_ERR_INPUT;
							break;
						}
						ax->recv_conn = GPOINTER_TO_INT(v) - 1;
						int32_t *owner = &g_array_index(receiver, int32_t, ax->recv_conn);
						if (*owner < 0) {
							*owner = c;
						} else if (*owner != c) {
							*errmsg = g_strdup_printf(
								"r%d c%d #%" G_GUINT64_FORMAT ": connection "
								"%d->%d channel %d has two receiving strands: "
								"%d and %d",
								r, c, i, stp->recv_peer, r,
								c / s->strands_per_channel, *owner, c);
							st = GC_ERR_INPUT;
							break;
						}
					}
				}
			}
		}
	}
	g_hash_table_destroy(conns);
	g_hash_table_destroy(senders);
	g_array_free(receiver, TRUE);
	plan->nconns = (int)src->len;
	plan->conn_src = (int32_t *)(void *)g_array_free(src, FALSE);
	plan->conn_dst = (int32_t *)(void *)g_array_free(dst, FALSE);
	plan->conn_ch = (int32_t *)(void *)g_array_free(chs, FALSE);
	if (st == GC_OK) {
		plan->conn_slots = g_new0(uint64_t, plan->nconns > 0 ? plan->nconns : 1);
		plan->blocks = 1;
		size_slots(plan);
		mark_syncs(plan);
	}
	if (st != GC_OK)
		gh_interp_plan_clear(plan);
	return st;
}

gc_status gh_interp_plan_set(gh_interp_plan *plan, int kernel, int proto, int blocks, char **errmsg)
{
	if (kernel != GH_KERNEL_VECTOR && kernel != GH_KERNEL_SCALAR && kernel != GH_KERNEL_PIPE) {
		*errmsg = g_strdup_printf("interpreter kernel %d: expected vector, scalar or pipe", kernel);
		return GC_ERR_INPUT;
	}
	if (proto != GH_PROTO_SIMPLE && proto != GH_PROTO_LL128) {
		*errmsg = g_strdup_printf("interpreter protocol %d: expected simple or ll128", proto);
		return GC_ERR_INPUT;
	}
	if (blocks < 1 || blocks > GH_MAX_BLOCKS) {
		*errmsg = g_strdup_printf("%d blocks per strand: expected 1..%d", blocks, GH_MAX_BLOCKS);
		return GC_ERR_INPUT;
	}
	plan->kernel = kernel;
	plan->proto = proto;
	plan->blocks = blocks;
	size_slots(plan);
	return GC_OK;
}

void gh_interp_plan_clear(gh_interp_plan *plan)
{
	g_free(plan->strand_off);
	g_free(plan->aux);
	g_free(plan->conn_src);
	g_free(plan->conn_dst);
	g_free(plan->conn_ch);
	g_free(plan->conn_slots);
	memset(plan, 0, sizeof(*plan));
}

double gh_interp_input_value(int rank, uint64_t i)
{
	return (double)((int64_t)(((uint64_t)rank * 131u + i * 7u) % 23u) - 11);
}

static void put(gs_dtype dt, void *buf, uint64_t i, double v)
{
	switch (dt) {
	case GS_DT_F32: ((float *)buf)[i] = (float)v; break;
	case GS_DT_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
	default: ((double *)buf)[i] = v; break;
	}
}

void gh_interp_fill_inputs(const gh_interp_plan *plan, void *inputs)
{
	uint64_t n = plan->buf_bytes[GS_BUF_INPUT] / plan->elem;
	for (int r = 0; r < plan->nranks; r++) {
		char *b = (char *)inputs + (uint64_t)r * plan->buf_bytes[GS_BUF_INPUT];
		for (uint64_t i = 0; i < n; i++)
			put(plan->p.dtype, b, i, gh_interp_input_value(r, i));
	}
}

gc_status gh_interp_expected(const gh_interp_plan *plan, void *expected, char **errmsg)
{
	int n = plan->p.nranks; /* data ranks: helpers hold no result */
	uint64_t in_n = plan->buf_bytes[GS_BUF_INPUT] / plan->elem;
	uint64_t out_n = plan->buf_bytes[GS_BUF_OUTPUT] / plan->elem;
	gs_coll c = plan->p.coll;
	if (c == GS_COLL_ALLTOALL && out_n % (uint64_t)n != 0) {
		*errmsg = g_strdup_printf("alltoall OUTPUT of %" G_GUINT64_FORMAT
					  " elements is not %d equal blocks",
					  out_n, n);
		return GC_ERR_INPUT;
	}
	const bool moe = gs_coll_is_moe(c);
	gs_moe_map map;
	memset(&map, 0, sizeof(map));
	if (moe) {
		gc_status st = gs_moe_map_build(&plan->p, &map, errmsg);
		if (st != GC_OK)
			return st;
	}
	int32_t *srcs = g_new(int32_t, (size_t)n);
	for (int r = 0; r < n; r++) {
		char *o = (char *)expected + (uint64_t)r * plan->buf_bytes[GS_BUF_OUTPUT];
		for (uint64_t i = 0; i < out_n; i++) {
			double v = 0;
			if (moe) {
				/* a slot no message uses keeps the arena's zero; the
				 * sum over the ranks (forward's combine sums a token's
				 * partials) */
				uint64_t idx;
				int cnt = gs_moe_expect(&map, c, r, i, srcs, &idx);
				for (int k = 0; k < cnt; k++)
					v += gh_interp_input_value(srcs[k], idx);
			} else if (n == 1) {
				v = gh_interp_input_value(r, i);
			} else if (c == GS_COLL_ALLREDUCE) {
				for (int k = 0; k < n; k++)
					v += gh_interp_input_value(k, i);
			} else if (c == GS_COLL_ALLGATHER) {
				v = gh_interp_input_value((int)(i / in_n), i % in_n);
			} else if (c == GS_COLL_REDUCESCATTER) {
				for (int k = 0; k < n; k++)
					v += gh_interp_input_value(k, (uint64_t)r * out_n + i);
			} else if (c == GS_COLL_SENDRECV) {
				v = gh_interp_input_value((r - 1 + n) % n, i);
			} else if (c == GS_COLL_BROADCAST) {
				v = gh_interp_input_value(0, i);
			} else if (c == GS_COLL_REDUCE) {
				/* the root's sum; elsewhere OUTPUT keeps the arena's zero */
				for (int k = 0; r == 0 && k < n; k++)
					v += gh_interp_input_value(k, i);
			} else if (c == GS_COLL_ALLTOALL) {
				/* out_n = n blocks: block j comes from rank j's block r */
				uint64_t blk = out_n / (uint64_t)n;
				v = gh_interp_input_value((int)(i / blk), (uint64_t)r * blk + i % blk);
			} else {
				*errmsg = g_strdup_printf("no expected result defined for %s",
							  gs_coll_name(c));
				gs_moe_map_free(&map);
				g_free(srcs);
				return GC_ERR_UNSUPPORTED;
			}
			put(plan->p.dtype, o, i, v);
		}
	}
	g_free(srcs);
	gs_moe_map_free(&map);
	return GC_OK;
}

gc_status gh_interp_check(const gh_interp_plan *plan, const void *outputs, char **errmsg)
{
	uint64_t ob = plan->buf_bytes[GS_BUF_OUTPUT];
	void *exp = g_malloc((size_t)(ob * (uint64_t)plan->nranks) + 1);
	gc_status st = gh_interp_expected(plan, exp, errmsg);
	for (int r = 0; st == GC_OK && r < plan->p.nranks; r++) {
		const char *a = (const char *)outputs + (uint64_t)r * ob;
		const char *e = (const char *)exp + (uint64_t)r * ob;
		if (memcmp(a, e, ob) == 0)
			continue;
		uint64_t i = 0;
		while (memcmp(a + i * plan->elem, e + i * plan->elem, plan->elem) == 0)
			i++;
		double got = plan->p.dtype == GS_DT_F32	  ? ((const float *)a)[i]
			     : plan->p.dtype == GS_DT_I32 ? ((const int32_t *)a)[i]
							  : ((const double *)a)[i];
		double want = plan->p.dtype == GS_DT_F32   ? ((const float *)e)[i]
			      : plan->p.dtype == GS_DT_I32 ? ((const int32_t *)e)[i]
							   : ((const double *)e)[i];
		*errmsg = g_strdup_printf("rank %d OUTPUT element %" G_GUINT64_FORMAT
					  ": got %g, expected %g",
					  r, i, got, want);
		st = GC_ERR_INPUT;
	}
	g_free(exp);
	return st;
}
