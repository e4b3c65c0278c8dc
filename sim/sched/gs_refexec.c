/* SPDX-License-Identifier: MIT */
/*
 * gs_refexec: the CPU reference executor. It runs a schedule on real host
 * buffers and checks every element of every rank's OUTPUT against the
 * collective's definition, so an algorithm is proven on actual bytes and
 * not only on the validator's symbolic model.
 *
 * Data: INPUT element i of rank r is a deterministic function of (r, i)
 * chosen so that results do not depend on the reduction order: float and
 * double hold small integers ((131 r + 7 i) mod 17) - 8, whose sums are
 * exact; int32 holds arbitrary 32-bit patterns summed with wrap-around
 * (done in unsigned arithmetic, as two's complement hardware does); uint8
 * sums modulo 256 as C does. OUTPUT and SCRATCH start filled with a poison
 * byte pattern.
 *
 * Execution (the strand walker of gs_walk.c, shared with the validator):
 * strands run round-robin, each until it blocks on a receive
 * whose connection (src, dst, channel = strand / strands_per_channel) has
 * no message or for a quantum of steps; a message carries a private copy of
 * the sent bytes, so later writes to the source cannot change it. Every
 * connection must have one sending and one receiving strand (checked up
 * front with the validator's gs_sched_check_conns), which is what makes
 * one waiter per connection enough. The semantics are exactly the
 * op table of gs_sched.h, with R op L computed into the received copy
 * before anything is written, so overlapping operands are well defined.
 * One-sided ops act at once: a PUT copies its bytes into the peer's
 * buffer when it executes (so it is visible before any later SIGNAL of its
 * connection, as the contract demands), a SIGNAL adds 1 to the peer's
 * slot and wakes every strand waiting on that slot, and a WAIT blocks its
 * strand until its own slot reaches the threshold (it re-checks when
 * woken). Neither PUT nor SIGNAL makes a message.
 * Steps are checked just enough to execute safely (peers, bounds,
 * alignment, matched sizes); gs_sched_validate is the full checker.
 *
 * Expected results: allreduce: the sum over ranks; allgather: the
 * concatenation of INPUTs in rank order; reducescatter: block r of the sum;
 * sendrecv: the INPUT of rank (r - 1 + n) % n; alltoall (blocks of
 * B = OUTPUT elements / n): OUTPUT block j of rank r is INPUT block r of
 * rank j.
 *
 * All ranks' buffers live in memory at once; a schedule needing more than
 * GS_REFEXEC_LIMIT bytes of them, or more than GS_REFEXEC_SIGNAL_LIMIT
 * signal slots over all ranks, is refused with GC_ERR_UNSUPPORTED.
 */
#include <inttypes.h>
#include <string.h>

#include <glib.h>

#include "gs_impl.h"

#define GS_REFEXEC_QUANTUM 256
/* total bytes of rank buffers the executor agrees to allocate */
#define GS_REFEXEC_LIMIT (4ull << 30)
/* signal slots over all ranks the executor agrees to allocate */
#define GS_REFEXEC_SIGNAL_LIMIT (1ull << 26)
#define GS_POISON_OUTPUT 0xa5
#define GS_POISON_SCRATCH 0x5a

typedef struct gs_rstate {
	const gs_sched *s;
	int n, ns, spc; /* ranks, strands per rank, strands per channel */
	uint64_t elem;
	uint8_t **bufs; /* [rank * GS_BUF__COUNT + buf] */
	uint64_t nsig;	/* signal slots per rank */
	gs_wslot *sig;	/* [rank * nsig + slot] */
	char **errmsg;
} gs_rstate;

/* ---- element values ------------------------------------------------- */

/* Write INPUT element i of rank r (one element of type t) to out. */
static void gs_input_value(gs_dtype t, int r, uint64_t i, void *out)
{
	uint64_t ur = (uint64_t)r;

	switch (t) {
	case GS_DT_F32: {
		float v = (float)((int)((ur * 131 + i * 7) % 17) - 8);

		memcpy(out, &v, sizeof(v));
		break;
	}
	case GS_DT_F64: {
		double v = (double)((int)((ur * 131 + i * 7) % 17) - 8);

		memcpy(out, &v, sizeof(v));
		break;
	}
	case GS_DT_I32: {
		uint32_t v = (uint32_t)ur * 2654435761u + (uint32_t)i * 40503u + 12345u;

		memcpy(out, &v, sizeof(v));
		break;
	}
	case GS_DT_U8: {
		uint8_t v = (uint8_t)(ur * 131 + i * 7 + 3);

		memcpy(out, &v, sizeof(v));
		break;
	}
	default: break;
	}
}

/* acc[e] = acc[e] op l[e] for nel elements; both suitably aligned. */
static void gs_reduce(gs_dtype t, void *acc, const void *l, uint64_t nel)
{
	switch (t) {
	case GS_DT_F32: {
		float *a = acc;
		const float *b = l;

		for (uint64_t e = 0; e < nel; e++)
			a[e] += b[e];
		break;
	}
	case GS_DT_F64: {
		double *a = acc;
		const double *b = l;

		for (uint64_t e = 0; e < nel; e++)
			a[e] += b[e];
		break;
	}
	case GS_DT_I32: {
		/* int32 sums wrap: add as uint32 (same object representation) */
		uint32_t *a = acc;
		const uint32_t *b = l;

		for (uint64_t e = 0; e < nel; e++)
			a[e] += b[e];
		break;
	}
	case GS_DT_U8: {
		uint8_t *a = acc;
		const uint8_t *b = l;

		for (uint64_t e = 0; e < nel; e++)
			a[e] = (uint8_t)(a[e] + b[e]);
		break;
	}
	default: break;
	}
}

static bool gs_value_equal(gs_dtype t, const void *a, const void *b)
{
	switch (t) {
	case GS_DT_F32: {
		float x, y;

		memcpy(&x, a, sizeof(x));
		memcpy(&y, b, sizeof(y));
		return x == y;
	}
	case GS_DT_F64: {
		double x, y;

		memcpy(&x, a, sizeof(x));
		memcpy(&y, b, sizeof(y));
		return x == y;
	}
	default: return memcmp(a, b, gs_dtype_size(t)) == 0;
	}
}

static char *gs_value_str(gs_dtype t, const void *a)
{
	switch (t) {
	case GS_DT_F32: {
		float x;

		memcpy(&x, a, sizeof(x));
		return g_strdup_printf("%.9g", (double)x);
	}
	case GS_DT_F64: {
		double x;

		memcpy(&x, a, sizeof(x));
		return g_strdup_printf("%.17g", x);
	}
	case GS_DT_I32: {
		int32_t x;

		memcpy(&x, a, sizeof(x));
		return g_strdup_printf("%" PRId32, x);
	}
	case GS_DT_U8: return g_strdup_printf("%u", *(const uint8_t *)a);
	default: return g_strdup("?");
	}
}

/* ---- execution -------------------------------------------------------- */

static bool gs_operand_ok(const gs_rstate *rs, uint8_t buf, uint64_t off, uint64_t bytes)
{
	uint64_t size;

	if (buf >= GS_BUF__COUNT || off % rs->elem)
		return false;
	size = rs->s->buf_bytes[buf];
	return off <= size && bytes <= size - off;
}

/* The checks needed to execute st safely (walker check callback). */
static gc_status gs_rstep_check(void *ctx, int r, int c, uint64_t i, const gs_step *st)
{
	gs_rstate *rs = ctx;
	gs_op op = st->op;
	const char *why = NULL;

	if (op >= GS_OP__COUNT)
		why = "op out of range";
	else if (op == GS_OP_SIGNAL && st->dst_off >= rs->nsig)
		why = "signal slot out of range";
	else if (op == GS_OP_WAIT && st->src_off >= rs->nsig)
		why = "signal slot out of range";
	else if (op != GS_OP_SIGNAL && op != GS_OP_WAIT && st->bytes % rs->elem)
		why = "bytes not a multiple of the element size";
	else if (gs_op_sends(op) &&
		 (st->send_peer < 0 || st->send_peer >= rs->n || st->send_peer == r))
		why = "bad send_peer";
	else if (gs_op_recvs(op) &&
		 (st->recv_peer < 0 || st->recv_peer >= rs->n || st->recv_peer == r))
		why = "bad recv_peer";
	else if (gs_op_reads_src(op) && !gs_operand_ok(rs, st->src_buf, st->src_off, st->bytes))
		why = "src operand out of bounds or misaligned";
	else if (gs_op_writes_dst(op) && !gs_operand_ok(rs, st->dst_buf, st->dst_off, st->bytes))
		why = "dst operand out of bounds or misaligned";
	else if (op == GS_OP_PUT && !gs_operand_ok(rs, st->dst_buf, st->dst_off, st->bytes))
		why = "remote dst operand out of bounds or misaligned";
	if (!why)
		return GC_OK;
	*rs->errmsg = g_strdup_printf("rank %d strand %d step %" PRIu64 " (%s): %s", r, c, i,
				      gs_op_name(op), why);
	return GC_ERR_INPUT;
}

static gs_wslot *gs_rslot(void *ctx, int32_t r, uint64_t slot)
{
	gs_rstate *rs = ctx;

	return &rs->sig[(uint64_t)r * rs->nsig + slot];
}

/* Execute one step (walker exec callback); R is the received copy
 * (ownership passes here), *send the bytes a send carries. */
static gc_status gs_rstep_exec(void *ctx, int r, int c, uint64_t i, const gs_step *st, void *Rv,
			       void **send)
{
	gs_rstate *rs = ctx;
	gs_op op = st->op;
	uint8_t *R = Rv;
	uint8_t *L = gs_op_reads_src(op) ? rs->bufs[r * GS_BUF__COUNT + st->src_buf] + st->src_off
					 : NULL;

	if (op == GS_OP_NOP)
		return GC_OK;
	if (op == GS_OP_PUT) {
		memmove(rs->bufs[st->send_peer * GS_BUF__COUNT + st->dst_buf] + st->dst_off, L,
			st->bytes);
		return GC_OK;
	}
	if (!R) /* SEND, COPY: the value is L */
		R = g_memdup2(L, MAX(st->bytes, 1));
	else if (gs_op_reduces(op))
		gs_reduce(rs->s->p.dtype, R, L, st->bytes / rs->elem);
	if (gs_op_writes_dst(op))
		memmove(rs->bufs[r * GS_BUF__COUNT + st->dst_buf] + st->dst_off, R, st->bytes);
	if (gs_op_sends(op))
		*send = R;
	else
		g_free(R);
	return GC_OK;
}

static const gs_walk_ops gs_rwalk_ops = {
	.check = gs_rstep_check,
	.slot = gs_rslot,
	.exec = gs_rstep_exec,
};

static gc_status gs_rexec(gs_rstate *rs)
{
	gs_walk w;
	gs_walk_fail f;
	gc_status rc;

	gs_walk_init(&w, rs->s, &gs_rwalk_ops, rs, GS_REFEXEC_QUANTUM, sizeof(gs_wconn));
	rc = gs_walk_run(&w, &f);
	gs_walk_fini(&w);
	switch (f.why) {
	case GS_WALK_MISMATCH:
		*rs->errmsg = g_strdup_printf("rank %d strand %d step %" PRIu64
					      " (%s) receives %" PRIu64
					      " bytes but rank %d strand %d step %" PRIu64
					      " sent %" PRIu64,
					      f.rank, f.strand, f.step, gs_op_name(f.st->op),
					      f.st->bytes, f.st->recv_peer, f.msg.strand,
					      f.msg.step, f.msg.bytes);
		break;
	case GS_WALK_DEADLOCK:
		if (f.st->op == GS_OP_WAIT)
			*rs->errmsg = g_strdup_printf(
				"deadlock: rank %d strand %d step %" PRIu64
				" (WAIT) waits for signal slot %" PRIu64 " to reach %" PRIu64
				", but it stays at %" PRIu64,
				f.rank, f.strand, f.step, f.st->src_off, f.st->bytes,
				f.slot_count);
		else
			*rs->errmsg = g_strdup_printf("deadlock: rank %d strand %d step %" PRIu64
						      " (%s) waits for rank %" PRId32,
						      f.rank, f.strand, f.step,
						      gs_op_name(f.st->op), f.st->recv_peer);
		break;
	case GS_WALK_UNRECEIVED:
		*rs->errmsg = g_strdup_printf("rank %d strand %d step %" PRIu64
					      " sends to rank %d, never received",
					      f.rank, f.strand, f.step, f.peer);
		break;
	case GS_WALK_OK: break;
	}
	return rc;
}

/* ---- comparison ------------------------------------------------------- */

static gc_status gs_rcheck(gs_rstate *rs)
{
	const gs_sched *s = rs->s;
	gs_dtype t = s->p.dtype;
	uint64_t el = rs->elem;
	uint64_t nin = s->buf_bytes[GS_BUF_INPUT] / el;
	uint64_t nout = s->buf_bytes[GS_BUF_OUTPUT] / el;
	uint8_t *sum = NULL, want[8], v[8];
	gc_status rc = GC_OK;

	/* allreduce and reducescatter: per communicator, the element-wise sum
	 * of its members' INPUTs */
	const int ng = gs_group_count(&s->p), G = gs_group_n(&s->p);
	if (s->p.coll == GS_COLL_ALLREDUCE || s->p.coll == GS_COLL_REDUCESCATTER ||
	    s->p.coll == GS_COLL_REDUCE) {
		sum = g_malloc0(MAX((uint64_t)ng * nin * el, 1));
		for (int id = 0; id < ng; id++) {
			uint8_t *gsum = sum + (uint64_t)id * nin * el;

			for (int j = 0; j < G; j++) { /* data ranks only */
				int q = gs_group_member(&s->p, id, j);

				for (uint64_t i = 0; i < nin; i++) {
					gs_input_value(t, q, i, v);
					if (j == 0)
						memcpy(gsum + i * el, v, el);
					else
						gs_reduce(t, gsum + i * el, v, 1);
				}
			}
		}
	}
	const int nd = s->p.nranks; /* the result is defined on the data ranks */
	const bool moe = gs_coll_is_moe(s->p.coll);
	gs_moe_map map;
	memset(&map, 0, sizeof(map));
	gs_params gp = gs_group_params(&s->p); /* every group routes alike */
	if (moe && (rc = gs_moe_map_build(&gp, &map, rs->errmsg)) != GC_OK) {
		g_free(sum);
		return rc;
	}
	g_autofree int32_t *srcs = g_new(int32_t, (size_t)G);
	if (s->p.coll == GS_COLL_ALLTOALL && nout % (uint64_t)G != 0) {
		*rs->errmsg = g_strdup_printf("alltoall OUTPUT of %" PRIu64
					      " elements is not %d equal blocks",
					      nout, G);
		g_free(sum);
		return GC_ERR_INPUT;
	}
	for (int r = 0; r < nd && rc == GC_OK; r++) {
		const uint8_t *out = rs->bufs[r * GS_BUF__COUNT + GS_BUF_OUTPUT];
		/* r's communicator: its id, r's index in it, and its sum */
		const int id = gs_group_id(&s->p, r), l = gs_group_local(&s->p, r);
		const uint8_t *gsum = sum ? sum + (uint64_t)id * nin * el : NULL;

		for (uint64_t e = 0; e < nout; e++) {
			switch (s->p.coll) {
			case GS_COLL_ALLREDUCE: memcpy(want, gsum + e * el, el); break;
			case GS_COLL_REDUCESCATTER:
				memcpy(want, gsum + ((uint64_t)l * nout + e) * el, el);
				break;
			case GS_COLL_ALLGATHER:
				gs_input_value(t, gs_group_member(&s->p, id, (int)(e / nin)),
					       e % nin, want);
				break;
			case GS_COLL_SENDRECV:
				gs_input_value(t, gs_group_member(&s->p, id, (l - 1 + G) % G), e,
					       want);
				break;
			case GS_COLL_BROADCAST:
				gs_input_value(t, gs_group_member(&s->p, id, 0), e, want);
				break;
			case GS_COLL_REDUCE: /* defined at the root only */
				if (l != 0)
					continue;
				memcpy(want, gsum + e * el, el);
				break;
			case GS_COLL_ALLTOALL: {
				/* nout = G * B: OUTPUT block j of member l is INPUT block l
				 * of member j */
				uint64_t blk = nout / (uint64_t)G;

				gs_input_value(t, gs_group_member(&s->p, id, (int)(e / blk)),
					       (uint64_t)l * blk + e % blk, want);
				break;
			}
			case GS_COLL_DISPATCH:
			case GS_COLL_COMBINE: {
				uint64_t idx;
				int cnt = gs_moe_expect(&map, s->p.coll, l, e, srcs, &idx);

				if (cnt == 0)
					continue; /* a slot no message uses */
				/* the sum of the ranks' values (one rank but for
				 * forward's combine) */
				for (int k = 0; k < cnt; k++) {
					gs_input_value(t, gs_group_member(&s->p, id, srcs[k]), idx,
						       k ? v : want);
					if (k)
						gs_reduce(t, want, v, 1);
				}
				break;
			}
			default:
				g_free(sum);
				gs_moe_map_free(&map);
				*rs->errmsg =
					g_strdup_printf("unknown collective %d", (int)s->p.coll);
				return GC_ERR_INPUT;
			}
			if (!gs_value_equal(t, out + e * el, want)) {
				char *got = gs_value_str(t, out + e * el),
				     *exp = gs_value_str(t, want);

				*rs->errmsg = g_strdup_printf("rank %d element %" PRIu64
							      ": got %s expected %s",
							      r, e, got, exp);
				g_free(got);
				g_free(exp);
				rc = GC_ERR_INPUT;
				break;
			}
		}
	}
	g_free(sum);
	gs_moe_map_free(&map);
	return rc;
}

gc_status gs_refexec_run(const gs_sched *s, char **errmsg)
{
	gs_rstate rs;
	gc_status rc;

	*errmsg = NULL;
	memset(&rs, 0, sizeof(rs));
	rs.s = s;
	rs.n = s->nranks;
	rs.ns = s->nstrands;
	rs.spc = s->strands_per_channel;
	rs.elem = gs_dtype_size(s->p.dtype);
	rs.errmsg = errmsg;
	if (rs.n < 1 || rs.ns < 0 || rs.elem == 0 || rs.spc < 1 || rs.ns % rs.spc != 0) {
		*errmsg = g_strdup_printf("bad schedule shape (%d ranks, %d strands in channels "
					  "of %d, type %d)",
					  rs.n, rs.ns, rs.spc, (int)s->p.dtype);
		return GC_ERR_INPUT;
	}
	for (int b = 0; b < GS_BUF__COUNT; b++) {
		if (s->buf_bytes[b] > GS_REFEXEC_LIMIT / (uint64_t)rs.n / GS_BUF__COUNT) {
			*errmsg = g_strdup_printf(
				"the reference executor keeps every rank's buffers in "
				"memory: %d ranks x %" PRIu64 " bytes of %s is above its "
				"limit of %" PRIu64 " bytes",
				rs.n, s->buf_bytes[b],
				b == GS_BUF_INPUT    ? "INPUT"
				: b == GS_BUF_OUTPUT ? "OUTPUT"
						     : "SCRATCH",
				(uint64_t)GS_REFEXEC_LIMIT);
			return GC_ERR_UNSUPPORTED;
		}
	}
	if ((uint64_t)s->nsignals > GS_REFEXEC_SIGNAL_LIMIT / (uint64_t)rs.n) {
		*errmsg = g_strdup_printf("the reference executor keeps every rank's signal slots "
					  "in memory: %d ranks x %" PRIu32 " slots is above its "
					  "limit of %" PRIu64 " slots",
					  rs.n, s->nsignals, (uint64_t)GS_REFEXEC_SIGNAL_LIMIT);
		return GC_ERR_UNSUPPORTED;
	}
	rc = gs_sched_check_conns(s, errmsg);
	if (rc != GC_OK)
		return rc;
	rs.nsig = s->nsignals;
	rs.sig = g_new0(gs_wslot, MAX((uint64_t)rs.n * rs.nsig, 1));
	for (uint64_t i = 0; i < (uint64_t)rs.n * rs.nsig; i++)
		rs.sig[i].waiter = -1;
	rs.bufs = g_new0(uint8_t *, (size_t)rs.n * GS_BUF__COUNT);
	for (int r = 0; r < rs.n; r++) {
		uint8_t **b = &rs.bufs[r * GS_BUF__COUNT];
		uint64_t nin = s->buf_bytes[GS_BUF_INPUT] / rs.elem;

		/* +1: a zero-sized buffer still gets a valid pointer */
		b[GS_BUF_INPUT] = g_malloc(s->buf_bytes[GS_BUF_INPUT] + 1);
		for (uint64_t i = 0; i < nin; i++)
			gs_input_value(s->p.dtype, r, i, b[GS_BUF_INPUT] + i * rs.elem);
		b[GS_BUF_OUTPUT] = g_malloc(s->buf_bytes[GS_BUF_OUTPUT] + 1);
		memset(b[GS_BUF_OUTPUT], GS_POISON_OUTPUT, s->buf_bytes[GS_BUF_OUTPUT]);
		b[GS_BUF_SCRATCH] = g_malloc(s->buf_bytes[GS_BUF_SCRATCH] + 1);
		memset(b[GS_BUF_SCRATCH], GS_POISON_SCRATCH, s->buf_bytes[GS_BUF_SCRATCH]);
	}

	rc = gs_rexec(&rs);
	if (rc == GC_OK)
		rc = gs_rcheck(&rs);

	for (size_t k = 0; k < (size_t)rs.n * GS_BUF__COUNT; k++)
		g_free(rs.bufs[k]);
	g_free(rs.bufs);
	g_free(rs.sig);
	return rc;
}
