/* SPDX-License-Identifier: MIT */
/*
 * test_validate: the validator and the reference executor on hand-built and
 * hand-broken schedules.
 *
 * A tiny builder assembles schedules step by step. Each broken schedule
 * must be rejected with the expected status and a message naming the
 * offending rank / strand / step (or OUTPUT element): mismatched message
 * sizes, a cyclic wait and a missing send (deadlock), a missing receive, a
 * rank counted twice, a missing contribution, mixed element indices,
 * uninitialized reads, misplaced allgather blocks, out-of-bounds and
 * misaligned operands, bad peers and reserved fields. Channels: messages
 * meet on (src, dst, strand / strands_per_channel), so a send and a receive
 * on different strands of one channel match; a connection with two sending
 * or two receiving strands and a bad channel grouping are rejected; a wait
 * cycle across the strands of a channel is still a deadlock. One-sided
 * ops: a hand-built 2-rank put all-to-all is valid; a PUT out of the
 * peer's bounds or to itself, bad SIGNAL and WAIT fields, a WAIT whose
 * threshold is never reached (a deadlock naming the WAIT), reads and local
 * writes of PUT data before a covering WAIT, OUTPUT left uncovered, a
 * WAIT threshold too low to guarantee every peer's SIGNAL, unordered PUTs
 * to one element and two sending strands mixing PUT and SEND or SIGNAL on
 * one connection are rejected. Finally, random single-field mutations of
 * generated ring, tree, sendrecv and all-to-all schedules must all be
 * rejected.
 */
#include "tests/sched/sched_testutil.h"

typedef struct hs_builder {
	gs_params p;
	int n, ns, spc; /* ranks, strands per rank, strands per channel (1 unless set) */
	uint32_t nsig;	/* signal slots per rank (0 unless set) */
	uint64_t buf[GS_BUF__COUNT];
	GArray **strand; /* [rank * ns + ch] of gs_step */
} hs_builder;

static hs_builder *hs_new(gs_coll coll, int n, int ns, uint64_t in, uint64_t out, uint64_t scr)
{
	hs_builder *b = g_new0(hs_builder, 1);

	b->p = tu_params(coll, GS_ALGO_RING, GS_DT_F32, n, 0, ns, 0, 0, 0);
	b->n = n;
	b->ns = ns;
	b->spc = 1;
	b->buf[GS_BUF_INPUT] = in;
	b->buf[GS_BUF_OUTPUT] = out;
	b->buf[GS_BUF_SCRATCH] = scr;
	b->strand = g_new0(GArray *, (size_t)(n * ns));
	for (int i = 0; i < n * ns; i++)
		b->strand[i] = g_array_new(FALSE, TRUE, sizeof(gs_step));
	return b;
}

/* Append a step; peers and operands are taken as given (no canonicalization). */
static void hs_add(hs_builder *b, int r, int c, gs_op op, int send, int recv, int sbuf,
		   uint64_t soff, int dbuf, uint64_t doff, uint64_t bytes)
{
	gs_step st;

	memset(&st, 0, sizeof(st));
	st.op = (uint8_t)op;
	st.send_peer = send;
	st.recv_peer = recv;
	st.src_buf = (uint8_t)sbuf;
	st.src_off = soff;
	st.dst_buf = (uint8_t)dbuf;
	st.dst_off = doff;
	st.bytes = bytes;
	g_array_append_val(b->strand[r * b->ns + c], st);
}

static gs_sched *hs_build(hs_builder *b)
{
	gs_sched *s = g_new0(gs_sched, 1);
	uint64_t total = 0;

	s->p = b->p;
	s->nranks = b->n;
	s->nstrands = b->ns;
	s->strands_per_channel = b->spc;
	s->nsignals = b->nsig;
	memcpy(s->buf_bytes, b->buf, sizeof(s->buf_bytes));
	s->strand_off = g_new(uint64_t, (size_t)(b->n * b->ns) + 1);
	for (int i = 0; i < b->n * b->ns; i++) {
		s->strand_off[i] = total;
		total += b->strand[i]->len;
	}
	s->strand_off[b->n * b->ns] = total;
	s->steps = g_new(gs_step, total);
	for (int i = 0; i < b->n * b->ns; i++) {
		if (b->strand[i]->len)
			memcpy(s->steps + s->strand_off[i], b->strand[i]->data,
			       sizeof(gs_step) * b->strand[i]->len);
		g_array_free(b->strand[i], TRUE);
	}
	g_free(b->strand);
	g_free(b);
	return s;
}

#define IN GS_BUF_INPUT
#define OUT GS_BUF_OUTPUT
#define SCR GS_BUF_SCRATCH

/* Validate s, expect status want and a message containing needle; free s. */
static void expect(gs_sched *s, gc_status want, const char *needle)
{
	char *err = NULL;
	gc_status st = gs_sched_validate(s, &err);

	if (st != want || (needle && (!err || !strstr(err, needle))))
		g_test_fail_printf("validate: status %d (want %d), message \"%s\" (want \"%s\")",
				   st, want, err ? err : "(none)", needle ? needle : "");
	g_free(err);
	gs_sched_free(s);
}

/* Same for the reference executor. */
static void expect_ref(gs_sched *s, gc_status want, const char *needle)
{
	char *err = NULL;
	gc_status st = gs_refexec_run(s, &err);

	if (st != want || (needle && (!err || !strstr(err, needle))))
		g_test_fail_printf("refexec: status %d (want %d), message \"%s\" (want \"%s\")", st,
				   want, err ? err : "(none)", needle ? needle : "");
	g_free(err);
	gs_sched_free(s);
}

/* A correct 2-rank allreduce of `elems` floats (one slice). */
static hs_builder *ar2(int elems)
{
	hs_builder *b = hs_new(GS_COLL_ALLREDUCE, 2, 1, 4 * elems, 4 * elems, 0);
	uint64_t by = 4 * (uint64_t)elems;

	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, by);
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 0, by);
	hs_add(b, 1, 0, GS_OP_RECV_REDUCE_COPY_SEND, 0, 0, IN, 0, OUT, 0, by);
	return b;
}

static void test_valid(void)
{
	expect(hs_build(ar2(3)), GC_OK, NULL);
	expect_ref(hs_build(ar2(3)), GC_OK, NULL);
}

static void test_size_mismatch(void)
{
	hs_builder *b = hs_new(GS_COLL_ALLREDUCE, 2, 1, 8, 8, 0);

	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 8);
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 0, 8);
	hs_add(b, 1, 0, GS_OP_RECV_REDUCE_COPY_SEND, 0, 0, IN, 0, OUT, 0, 4);
	expect(hs_build(b), GC_ERR_INPUT,
	       "rank 1 strand 0 step 0 (RECV_REDUCE_COPY_SEND) receives 4");
}

static void test_deadlock(void)
{
	hs_builder *b = hs_new(GS_COLL_ALLREDUCE, 2, 1, 4, 4, 0);

	/* both ranks receive before they send */
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_RECV_REDUCE_COPY_SEND, 0, 0, IN, 0, OUT, 0, 4);
	expect(hs_build(b), GC_ERR_DEADLOCK, "deadlock: rank 0 strand 0 step 0 (RECV)");

	b = hs_new(GS_COLL_ALLREDUCE, 2, 1, 4, 4, 0);
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_RECV_REDUCE_COPY_SEND, 0, 0, IN, 0, OUT, 0, 4);
	expect_ref(hs_build(b), GC_ERR_DEADLOCK, "deadlock");

	/* missing send: rank 1 waits forever */
	b = hs_new(GS_COLL_ALLREDUCE, 2, 1, 4, 4, 0);
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_RECV_REDUCE_COPY_SEND, 0, 0, IN, 0, OUT, 0, 4);
	expect(hs_build(b), GC_ERR_DEADLOCK, "2 strands stuck");

	/* messages on another strand do not count */
	b = hs_new(GS_COLL_ALLREDUCE, 2, 2, 4, 4, 0);
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 1, GS_OP_RECV_REDUCE_COPY_SEND, 0, 0, IN, 0, OUT, 0, 4);
	expect(hs_build(b), GC_ERR_DEADLOCK, "rank 0 strand 0 step 1 (RECV)");
}

static void test_missing_recv(void)
{
	hs_builder *b = hs_new(GS_COLL_ALLREDUCE, 2, 1, 4, 4, 0);

	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_COPY, -1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_RECV_REDUCE_COPY_SEND, 0, 0, IN, 0, OUT, 0, 4);
	expect(hs_build(b), GC_ERR_INPUT,
	       "rank 1 strand 0 step 0 sends 4 bytes to rank 0 that are never received");
}

static void test_counted_twice(void)
{
	hs_builder *b = hs_new(GS_COLL_ALLREDUCE, 2, 1, 4, 4, 4);

	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_RECV_REDUCE_COPY, -1, 0, IN, 0, SCR, 0, 4);
	hs_add(b, 1, 0, GS_OP_RECV_REDUCE_COPY_SEND, 0, 0, SCR, 0, OUT, 0, 4);
	expect(hs_build(b), GC_ERR_INPUT,
	       "rank 1 strand 0 step 1 (RECV_REDUCE_COPY_SEND), element 0: rank 0 counted twice");
}

static void test_data_errors(void)
{
	hs_builder *b;

	/* rank 1 forwards without adding its own input */
	b = hs_new(GS_COLL_ALLREDUCE, 2, 1, 4, 4, 0);
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_RECV_COPY_SEND, 0, 0, IN, 0, OUT, 0, 4);
	expect(hs_build(b), GC_ERR_INPUT,
	       "rank 0 OUTPUT element 0: misses the contribution of rank 1");

	/* element 1 of rank 0 is combined with element 0 of rank 1 */
	b = hs_new(GS_COLL_ALLREDUCE, 2, 1, 8, 8, 0);
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 4, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_RECV_REDUCE_COPY_SEND, 0, 0, IN, 0, OUT, 0, 4);
	expect(hs_build(b), GC_ERR_INPUT, "combines element 1 with element 0");

	/* reads OUTPUT before anything was written there */
	b = hs_new(GS_COLL_ALLREDUCE, 2, 1, 4, 4, 0);
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, OUT, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_RECV_REDUCE_COPY_SEND, 0, 0, IN, 0, OUT, 0, 4);
	expect(hs_build(b), GC_ERR_INPUT,
	       "rank 0 strand 0 step 0 (SEND): reads uninitialized OUTPUT element 0");

	/* a correct 2-rank allgather of one float per rank ... */
	b = hs_new(GS_COLL_ALLGATHER, 2, 1, 4, 8, 0);
	hs_add(b, 0, 0, GS_OP_COPY, -1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 4, 4);
	hs_add(b, 1, 0, GS_OP_COPY, -1, -1, IN, 0, OUT, 4, 4);
	hs_add(b, 1, 0, GS_OP_SEND, 0, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_RECV, -1, 0, IN, 0, OUT, 0, 4);
	expect(hs_build(b), GC_OK, NULL);
	/* ... and one where rank 1 puts the blocks in the wrong places */
	b = hs_new(GS_COLL_ALLGATHER, 2, 1, 4, 8, 0);
	hs_add(b, 0, 0, GS_OP_COPY, -1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 4, 4);
	hs_add(b, 1, 0, GS_OP_COPY, -1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_SEND, 0, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_RECV, -1, 0, IN, 0, OUT, 4, 4);
	expect(hs_build(b), GC_ERR_INPUT,
	       "rank 1 OUTPUT element 0: holds data of rank 1, expected rank 0");
	b = hs_new(GS_COLL_ALLGATHER, 2, 1, 4, 8, 0);
	hs_add(b, 0, 0, GS_OP_COPY, -1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 4, 4);
	hs_add(b, 1, 0, GS_OP_COPY, -1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_SEND, 0, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_RECV, -1, 0, IN, 0, OUT, 4, 4);
	expect_ref(hs_build(b), GC_ERR_INPUT, "rank 1 element 0: got");
}

static void test_fields(void)
{
	hs_builder *b;
	gs_sched *s;

	b = ar2(1);
	s = hs_build(b);
	s->steps[0].src_off = 4; /* INPUT is 4 bytes */
	expect(s, GC_ERR_INPUT, "rank 0 strand 0 step 0 (SEND): src INPUT+4 bytes=4 out of bounds");

	s = hs_build(ar2(1));
	s->steps[1].dst_off = UINT64_MAX - 3; /* must not wrap around */
	expect(s, GC_ERR_INPUT, "rank 0 strand 0 step 1 (RECV): dst OUTPUT+");

	s = hs_build(ar2(2));
	s->steps[0].src_off = 2;
	s->steps[0].bytes = 4;
	expect(s, GC_ERR_INPUT, "not a multiple of the element size");

	s = hs_build(ar2(1));
	s->steps[0].send_peer = 0;
	expect(s, GC_ERR_INPUT, "rank 0 strand 0 step 0 (SEND): send_peer 0 is not another rank");

	s = hs_build(ar2(1));
	s->steps[0].recv_peer = 1;
	expect(s, GC_ERR_INPUT, "recv_peer 1 set but the op does not receive");

	s = hs_build(ar2(1));
	s->steps[2].send_peer = 7;
	expect(s, GC_ERR_INPUT, "rank 1 strand 0 step 0 (RECV_REDUCE_COPY_SEND): send_peer 7");

	s = hs_build(ar2(1));
	s->steps[2].reserved = 1;
	expect(s, GC_ERR_INPUT, "reserved fields not zero");

	s = hs_build(ar2(1));
	s->steps[1].op = GS_OP__COUNT;
	expect(s, GC_ERR_INPUT, "out of range");

	s = hs_build(ar2(1));
	s->steps[1].dst_buf = GS_BUF__COUNT;
	expect(s, GC_ERR_INPUT, "buffer out of range");

	s = hs_build(ar2(1));
	s->steps[0].src_off = 4;
	expect_ref(s, GC_ERR_INPUT, "out of bounds");

	s = hs_build(ar2(1));
	s->steps[0].flags = 2; /* no such flag */
	expect(s, GC_ERR_INPUT, "reserved fields not zero (flags=2");
	s = hs_build(ar2(1));
	s->steps[1].flags = GS_STEP_FANOUT;
	expect(s, GC_ERR_INPUT, "rank 0 strand 0 step 1 (RECV): fan-out flag on an op other than SEND");
	s = hs_build(ar2(1));
	s->steps[0].flags = GS_STEP_FANOUT; /* no send before it */
	expect(s, GC_ERR_INPUT, "rank 0 strand 0 step 0 (SEND): fan-out flag, but the strand's "
				"previous send did not send this data (INPUT 4 bytes at 0)");
}

/*
 * A 3-rank broadcast from rank 0 whose second send repeats the first to
 * another peer (GS_STEP_FANOUT): valid as built; invalid when the repeat
 * sends another piece, or follows a RECV_REDUCE_SEND, which keeps no copy.
 */
static hs_builder *bcast3_fanout(uint64_t second_off, uint64_t second_bytes)
{
	hs_builder *b = hs_new(GS_COLL_BROADCAST, 3, 1, 8, 8, 0);

	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 8);
	hs_add(b, 0, 0, GS_OP_SEND, 2, -1, IN, second_off, OUT, 0, second_bytes);
	hs_add(b, 0, 0, GS_OP_COPY, -1, -1, IN, 0, OUT, 0, 8);
	hs_add(b, 1, 0, GS_OP_RECV, -1, 0, IN, 0, OUT, 0, 8);
	hs_add(b, 2, 0, GS_OP_RECV, -1, 0, IN, 0, OUT, 0, second_bytes);
	return b;
}

static void test_fanout(void)
{
	gs_sched *s = hs_build(bcast3_fanout(0, 8));
	s->steps[1].flags = GS_STEP_FANOUT;
	expect(s, GC_OK, NULL);

	s = hs_build(bcast3_fanout(4, 4));
	s->steps[1].flags = GS_STEP_FANOUT;
	expect(s, GC_ERR_INPUT, "rank 0 strand 0 step 1 (SEND): fan-out flag, but the strand's "
				"previous send did not send this data (INPUT 4 bytes at 4)");

	/* rank 1 reduces and sends on, keeping no copy: a repeat after it
	 * has nothing to repeat (fields are checked before the data) */
	hs_builder *b = hs_new(GS_COLL_ALLREDUCE, 3, 1, 4, 4, 0);
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_RECV_REDUCE_SEND, 2, 0, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_SEND, 0, -1, OUT, 0, OUT, 0, 4);
	s = hs_build(b);
	s->steps[2].flags = GS_STEP_FANOUT;
	expect(s, GC_ERR_INPUT, "rank 1 strand 0 step 1 (SEND): fan-out flag, but the strand's "
				"previous send did not send this data");
}

/*
 * A 2-rank sendrecv with one channel of two strands (the p2p layout):
 * strand 0 sends, strand 1 receives. The send of rank 0 strand 0 and the
 * receive of rank 1 strand 1 are the two ends of connection 0->1 channel 0.
 */
static hs_builder *sr2_split(void)
{
	hs_builder *b = hs_new(GS_COLL_SENDRECV, 2, 2, 8, 8, 0);

	b->spc = 2;
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 8);
	hs_add(b, 0, 1, GS_OP_RECV, -1, 1, IN, 0, OUT, 0, 8);
	hs_add(b, 1, 0, GS_OP_SEND, 0, -1, IN, 0, OUT, 0, 8);
	hs_add(b, 1, 1, GS_OP_RECV, -1, 0, IN, 0, OUT, 0, 8);
	return b;
}

static void test_channels(void)
{
	hs_builder *b;

	/* sender and receiver on different strands of one channel: valid */
	expect(hs_build(sr2_split()), GC_OK, NULL);
	expect_ref(hs_build(sr2_split()), GC_OK, NULL);

	/* the same strands as two channels of one strand: they never meet */
	b = sr2_split();
	b->spc = 1;
	expect(hs_build(b), GC_ERR_DEADLOCK, "deadlock: rank 0 strand 1 step 0 (RECV)");
	b = sr2_split();
	b->spc = 1;
	expect_ref(hs_build(b), GC_ERR_DEADLOCK, "deadlock: rank 0 strand 1");

	/* two sending strands on connection 0->1 channel 0 */
	b = hs_new(GS_COLL_SENDRECV, 2, 2, 8, 8, 0);
	b->spc = 2;
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 1, GS_OP_SEND, 1, -1, IN, 4, OUT, 0, 4);
	hs_add(b, 1, 1, GS_OP_RECV, -1, 0, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 1, GS_OP_RECV, -1, 0, IN, 0, OUT, 4, 4);
	expect(hs_build(b), GC_ERR_INPUT,
	       "connection 0->1 channel 0 has two sending strands: 0 and 1");

	/* two receiving strands on connection 3->5 channel 2, from strands 4 and 5
	 * (6 ranks, 3 channels of 2 strands; only the offending steps matter) */
	b = hs_new(GS_COLL_SENDRECV, 6, 6, 8, 8, 0);
	b->spc = 2;
	hs_add(b, 3, 4, GS_OP_SEND, 5, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 3, 4, GS_OP_SEND, 5, -1, IN, 4, OUT, 0, 4);
	hs_add(b, 5, 4, GS_OP_RECV, -1, 3, IN, 0, OUT, 0, 4);
	hs_add(b, 5, 5, GS_OP_RECV, -1, 3, IN, 0, OUT, 4, 4);
	expect(hs_build(b), GC_ERR_INPUT,
	       "connection 3->5 channel 2 has two receiving strands: 4 and 5");
	b = hs_new(GS_COLL_SENDRECV, 6, 6, 8, 8, 0);
	b->spc = 2;
	hs_add(b, 3, 4, GS_OP_SEND, 5, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 3, 5, GS_OP_SEND, 5, -1, IN, 4, OUT, 0, 4);
	hs_add(b, 5, 4, GS_OP_RECV, -1, 3, IN, 0, OUT, 0, 4);
	hs_add(b, 5, 4, GS_OP_RECV, -1, 3, IN, 0, OUT, 4, 4);
	expect(hs_build(b), GC_ERR_INPUT,
	       "connection 3->5 channel 2 has two sending strands: 4 and 5");
	/* the reference executor refuses them too (one waiter per connection) */
	b = hs_new(GS_COLL_SENDRECV, 2, 2, 8, 8, 0);
	b->spc = 2;
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 4, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_RECV, -1, 0, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 1, GS_OP_RECV, -1, 0, IN, 0, OUT, 4, 4);
	expect_ref(hs_build(b), GC_ERR_INPUT,
		   "connection 0->1 channel 0 has two receiving strands: 0 and 1");
	/* strands of different channels may use the same rank pair */
	b = hs_new(GS_COLL_SENDRECV, 2, 4, 8, 8, 0);
	b->spc = 2;
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 2, GS_OP_SEND, 1, -1, IN, 4, OUT, 0, 4);
	hs_add(b, 0, 1, GS_OP_RECV, -1, 1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 3, GS_OP_RECV, -1, 1, IN, 0, OUT, 4, 4);
	hs_add(b, 1, 0, GS_OP_SEND, 0, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 2, GS_OP_SEND, 0, -1, IN, 4, OUT, 0, 4);
	hs_add(b, 1, 1, GS_OP_RECV, -1, 0, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 3, GS_OP_RECV, -1, 0, IN, 0, OUT, 4, 4);
	expect(hs_build(b), GC_OK, NULL);

	/* a wait cycle across the two strands of a channel: rank 0 strand 0
	 * waits for rank 1 strand 1, which waits for rank 0 strand 0 */
	b = hs_new(GS_COLL_ALLREDUCE, 2, 2, 4, 4, 0);
	b->spc = 2;
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 1, GS_OP_RECV_REDUCE_COPY_SEND, 0, 0, IN, 0, OUT, 0, 4);
	expect(hs_build(b), GC_ERR_DEADLOCK,
	       "deadlock: rank 0 strand 0 step 0 (RECV) waits for a message from rank 1 "
	       "that never comes (2 strands stuck)");
	b = hs_new(GS_COLL_ALLREDUCE, 2, 2, 4, 4, 0);
	b->spc = 2;
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 1, GS_OP_RECV_REDUCE_COPY_SEND, 0, 0, IN, 0, OUT, 0, 4);
	expect_ref(hs_build(b), GC_ERR_DEADLOCK, "deadlock: rank 0 strand 0 step 0");
	/* ... and the same exchange in the right order is fine */
	b = hs_new(GS_COLL_ALLREDUCE, 2, 2, 4, 4, 0);
	b->spc = 2;
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_RECV, -1, 1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 1, GS_OP_RECV_REDUCE_COPY_SEND, 0, 0, IN, 0, OUT, 0, 4);
	expect(hs_build(b), GC_OK, NULL);

	/* the channel grouping itself */
	b = sr2_split();
	b->spc = 0;
	expect(hs_build(b), GC_ERR_INPUT, "bad shape: 2 strands per rank in channels of 0");
	b = sr2_split();
	b->spc = 3;
	expect(hs_build(b), GC_ERR_INPUT, "bad shape: 2 strands per rank in channels of 3");
	b = sr2_split();
	b->spc = 3;
	expect_ref(hs_build(b), GC_ERR_INPUT, "bad schedule shape");
}

/*
 * A 2-rank put all-to-all of one float per block, one channel of two
 * strands, one signal slot: rank r copies its own block, PUTs INPUT block
 * q = 1 - r into OUTPUT block r of q and signals q's slot 0 (strand 0);
 * strand 1 waits for slot 0 >= 1.
 */
static hs_builder *put2(void)
{
	hs_builder *b = hs_new(GS_COLL_ALLTOALL, 2, 2, 8, 8, 4);

	b->spc = 2;
	b->nsig = 1;
	for (int r = 0; r < 2; r++) {
		uint64_t own = 4 * (uint64_t)r, other = 4 - own;

		hs_add(b, r, 0, GS_OP_COPY, -1, -1, IN, own, OUT, own, 4);
		hs_add(b, r, 0, GS_OP_PUT, 1 - r, -1, IN, other, OUT, own, 4);
		hs_add(b, r, 0, GS_OP_SIGNAL, 1 - r, -1, IN, 0, OUT, 0, 8);
		hs_add(b, r, 1, GS_OP_WAIT, -1, -1, IN, 0, OUT, 0, 1);
	}
	return b;
}

/* Step j of strand c of rank r of a built schedule. */
static gs_step *at(gs_sched *s, int r, int c, uint64_t j)
{
	uint64_t len;
	gs_step *st = (gs_step *)gs_sched_strand(s, r, c, &len);

	g_assert_cmpuint(j, <, len);
	return &st[j];
}

static void test_one_sided_fields(void)
{
	gs_sched *s;

	expect(hs_build(put2()), GC_OK, NULL);
	expect_ref(hs_build(put2()), GC_OK, NULL);

	/* PUT into the peer's OUTPUT (8 bytes) at 8: out of the peer's bounds */
	s = hs_build(put2());
	at(s, 0, 0, 1)->dst_off = 8;
	expect(s, GC_ERR_INPUT,
	       "rank 0 strand 0 step 1 (PUT): remote dst OUTPUT+8 bytes=4 out of bounds of "
	       "rank 1's buffer (8 bytes)");
	s = hs_build(put2());
	at(s, 0, 0, 1)->dst_off = 8;
	expect_ref(s, GC_ERR_INPUT, "rank 0 strand 0 step 1 (PUT): remote dst operand");
	s = hs_build(put2());
	at(s, 0, 0, 1)->dst_off = UINT64_MAX - 3; /* must not wrap around */
	expect(s, GC_ERR_INPUT, "out of bounds of rank 1's buffer");
	s = hs_build(put2());
	at(s, 0, 0, 1)->dst_off = 2;
	expect(s, GC_ERR_INPUT, "remote dst offset 2 not a multiple of the element size 4");
	s = hs_build(put2());
	at(s, 1, 0, 1)->send_peer = 1;
	expect(s, GC_ERR_INPUT, "rank 1 strand 0 step 1 (PUT): send_peer 1 is not another rank");
	s = hs_build(put2());
	at(s, 1, 0, 1)->recv_peer = 0;
	expect(s, GC_ERR_INPUT, "recv_peer 0 set but the op does not receive");

	/* SIGNAL: slot in range, the 8-byte word, nothing read */
	s = hs_build(put2());
	at(s, 1, 0, 2)->dst_off = 1;
	expect(s, GC_ERR_INPUT,
	       "rank 1 strand 0 step 2 (SIGNAL): signal slot 1 out of range (1 slots)");
	s = hs_build(put2());
	at(s, 1, 0, 2)->dst_off = 1;
	expect_ref(s, GC_ERR_INPUT, "rank 1 strand 0 step 2 (SIGNAL): signal slot out of range");
	s = hs_build(put2());
	at(s, 0, 0, 2)->bytes = 4;
	expect(s, GC_ERR_INPUT,
	       "rank 0 strand 0 step 2 (SIGNAL): bytes 4 is not the 8-byte signal word");
	s = hs_build(put2());
	at(s, 0, 0, 2)->src_off = 4;
	expect(s, GC_ERR_INPUT, "src offset 4 set but the op reads nothing");
	s = hs_build(put2());
	at(s, 0, 0, 2)->send_peer = -1;
	expect(s, GC_ERR_INPUT, "(SIGNAL): send_peer -1 is not another rank");

	/* WAIT: slot in range, a threshold of at least 1, no peers */
	s = hs_build(put2());
	at(s, 0, 1, 0)->src_off = 3;
	expect(s, GC_ERR_INPUT,
	       "rank 0 strand 1 step 0 (WAIT): signal slot 3 out of range (1 slots)");
	s = hs_build(put2());
	at(s, 0, 1, 0)->src_off = 3;
	expect_ref(s, GC_ERR_INPUT, "(WAIT): signal slot out of range");
	s = hs_build(put2());
	at(s, 0, 1, 0)->bytes = 0;
	expect(s, GC_ERR_INPUT, "rank 0 strand 1 step 0 (WAIT): threshold 0");
	s = hs_build(put2());
	at(s, 0, 1, 0)->dst_off = 4;
	expect(s, GC_ERR_INPUT, "dst offset 4 set but the op writes nothing");
	s = hs_build(put2());
	at(s, 0, 1, 0)->send_peer = 1;
	expect(s, GC_ERR_INPUT, "send_peer 1 set but the op does not send");
	/* a WAIT threshold need not be a multiple of the element size */
	s = hs_build(put2());
	s->nsignals = 2;
	expect(s, GC_OK, NULL);
}

static void test_one_sided_deadlock(void)
{
	gs_sched *s;
	hs_builder *b;

	/* rank 1 waits for 2 signals, only rank 0's ever comes */
	s = hs_build(put2());
	at(s, 1, 1, 0)->bytes = 2;
	expect(s, GC_ERR_DEADLOCK,
	       "deadlock: rank 1 strand 1 step 0 (WAIT) waits for signal slot 0 to reach 2, but "
	       "it stays at 1 (1 strands stuck)");
	s = hs_build(put2());
	at(s, 1, 1, 0)->bytes = 2;
	expect_ref(s, GC_ERR_DEADLOCK,
		   "deadlock: rank 1 strand 1 step 0 (WAIT) waits for signal slot 0 to reach 2, "
		   "but it stays at 1");

	/* both ranks wait before they signal, on the same strand: a cycle */
	b = hs_new(GS_COLL_ALLTOALL, 2, 1, 8, 8, 0);
	b->nsig = 1;
	for (int r = 0; r < 2; r++) {
		uint64_t own = 4 * (uint64_t)r, other = 4 - own;

		hs_add(b, r, 0, GS_OP_COPY, -1, -1, IN, own, OUT, own, 4);
		hs_add(b, r, 0, GS_OP_PUT, 1 - r, -1, IN, other, OUT, own, 4);
		hs_add(b, r, 0, GS_OP_WAIT, -1, -1, IN, 0, OUT, 0, 1);
		hs_add(b, r, 0, GS_OP_SIGNAL, 1 - r, -1, IN, 0, OUT, 0, 8);
	}
	expect(hs_build(b), GC_ERR_DEADLOCK,
	       "deadlock: rank 0 strand 0 step 2 (WAIT) waits for signal slot 0 to reach 1, but "
	       "it stays at 0 (2 strands stuck)");

	/* a WAIT released by a SIGNAL that follows a RECV: rank 0 puts and
	 * signals only after receiving rank 1's block, which rank 1 sends
	 * before its WAIT (on its other strand) */
	b = hs_new(GS_COLL_ALLTOALL, 2, 2, 8, 8, 0);
	b->spc = 2;
	b->nsig = 1;
	hs_add(b, 0, 0, GS_OP_COPY, -1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 1, GS_OP_RECV, -1, 1, IN, 0, OUT, 4, 4);
	hs_add(b, 0, 1, GS_OP_PUT, 1, -1, IN, 4, OUT, 0, 4);
	hs_add(b, 0, 1, GS_OP_SIGNAL, 1, -1, IN, 0, OUT, 0, 8);
	hs_add(b, 1, 0, GS_OP_COPY, -1, -1, IN, 4, OUT, 4, 4);
	hs_add(b, 1, 0, GS_OP_SEND, 0, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 1, GS_OP_WAIT, -1, -1, IN, 0, OUT, 0, 1);
	expect(hs_build(b), GC_OK, NULL);
}

static void test_one_sided_races(void)
{
	hs_builder *b;
	gs_sched *s;

	/* rank 1 strand 0 reads its OUTPUT block 0 (rank 0's PUT) without
	 * waiting for it */
	b = put2();
	hs_add(b, 1, 0, GS_OP_COPY, -1, -1, OUT, 0, SCR, 0, 4);
	expect(hs_build(b), GC_ERR_INPUT,
	       "rank 1 strand 0 step 3 (COPY): reads OUTPUT element 0 that rank 0 strand 0 step 1 "
	       "(PUT) writes, before a WAIT of this strand covers it (race)");
	/* ... after the WAIT on the waiting strand it is settled */
	b = put2();
	hs_add(b, 1, 1, GS_OP_COPY, -1, -1, OUT, 0, SCR, 0, 4);
	expect(hs_build(b), GC_OK, NULL);
	/* a SEND of PUT data before the WAIT is a read too */
	b = put2();
	b->spc = 1;
	hs_add(b, 1, 0, GS_OP_SEND, 0, -1, OUT, 0, OUT, 0, 4);
	hs_add(b, 0, 1, GS_OP_RECV, -1, 1, IN, 0, SCR, 0, 4);
	expect(hs_build(b), GC_ERR_INPUT,
	       "rank 1 strand 0 step 3 (SEND): reads OUTPUT element 0 that rank 0 strand 0 step 1 "
	       "(PUT) writes");
	/* a local write over PUT data the strand has not waited for */
	b = put2();
	hs_add(b, 1, 0, GS_OP_COPY, -1, -1, IN, 0, OUT, 0, 4);
	expect(hs_build(b), GC_ERR_INPUT,
	       "rank 1 strand 0 step 3 (COPY): writes OUTPUT element 0 that rank 0 strand 0 step 1 "
	       "(PUT) writes, before a WAIT of this strand covers it (race)");

	/* no WAIT at all on rank 1: its OUTPUT block 0 is never settled */
	s = hs_build(put2());
	s->strand_off[4] = s->strand_off[3]; /* rank 1 strand 1 (its WAIT) empty */
	expect(s, GC_ERR_INPUT,
	       "rank 1 OUTPUT element 0: written by rank 0 strand 0 step 1 (PUT), but no WAIT of "
	       "rank 1 covers it (race)");

	/* a SIGNAL before the PUT covers nothing */
	b = hs_new(GS_COLL_ALLTOALL, 2, 2, 8, 8, 0);
	b->spc = 2;
	b->nsig = 1;
	for (int r = 0; r < 2; r++) {
		uint64_t own = 4 * (uint64_t)r, other = 4 - own;

		hs_add(b, r, 0, GS_OP_COPY, -1, -1, IN, own, OUT, own, 4);
		if (r == 0)
			hs_add(b, r, 0, GS_OP_SIGNAL, 1, -1, IN, 0, OUT, 0, 8);
		hs_add(b, r, 0, GS_OP_PUT, 1 - r, -1, IN, other, OUT, own, 4);
		if (r == 1)
			hs_add(b, r, 0, GS_OP_SIGNAL, 0, -1, IN, 0, OUT, 0, 8);
		hs_add(b, r, 1, GS_OP_WAIT, -1, -1, IN, 0, OUT, 0, 1);
	}
	expect(hs_build(b), GC_ERR_INPUT,
	       "rank 1 OUTPUT element 0: written by rank 0 strand 0 step 2 (PUT), but no WAIT of "
	       "rank 1 covers it (race)");

	/* two ranks PUT to the same element of rank 2, unordered */
	b = hs_new(GS_COLL_ALLTOALL, 3, 2, 12, 12, 0);
	b->spc = 2;
	b->nsig = 1;
	hs_add(b, 0, 0, GS_OP_PUT, 2, -1, IN, 8, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_SIGNAL, 2, -1, IN, 0, OUT, 0, 8);
	hs_add(b, 1, 0, GS_OP_PUT, 2, -1, IN, 8, OUT, 0, 4);
	hs_add(b, 1, 0, GS_OP_SIGNAL, 2, -1, IN, 0, OUT, 0, 8);
	hs_add(b, 2, 1, GS_OP_WAIT, -1, -1, IN, 0, OUT, 0, 2);
	expect(hs_build(b), GC_ERR_INPUT,
	       "rank 1 strand 0 step 0 (PUT): writes OUTPUT element 0 of rank 2 that rank 0 "
	       "strand 0 step 0 (PUT) also writes, unordered with it (race)");
}

/* A WAIT threshold below the number of SIGNALs to its slot guarantees
 * none of them: with 3 ranks and the WAIT of rank 0 lowered to 1, either
 * peer's data may still be in flight when rank 0 finishes. */
static void test_one_sided_threshold(void)
{
	gs_params p = tu_params(GS_COLL_ALLTOALL, GS_ALGO_PUT, GS_DT_F32, 3, 3 * 4 * 5, 1, 8, 4, 0);
	gs_gen *g;
	gs_sched *s;
	char *err = NULL;

	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	s = gs_sched_materialize(g);
	g_assert_cmpint(gs_sched_validate(s, &err), ==, GC_OK);
	at(s, 0, 1, 0)->bytes = 1;
	expect(s, GC_ERR_INPUT, "rank 0 OUTPUT element 5: written by rank 1 strand 0 step ");
	/* the reference executor cannot see it: its PUTs land at once */
	s = gs_sched_materialize(g);
	at(s, 0, 1, 0)->bytes = 1;
	expect_ref(s, GC_OK, NULL);
	gs_gen_free(g);
}

/* PUT and SIGNAL are sends on their connection: one sending strand each. */
static void test_one_sided_conns(void)
{
	hs_builder *b;

	b = hs_new(GS_COLL_ALLTOALL, 2, 2, 8, 8, 0);
	b->spc = 2;
	b->nsig = 1;
	hs_add(b, 0, 0, GS_OP_PUT, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 1, GS_OP_SEND, 1, -1, IN, 4, OUT, 0, 4);
	hs_add(b, 1, 1, GS_OP_RECV, -1, 0, IN, 0, OUT, 4, 4);
	expect(hs_build(b), GC_ERR_INPUT,
	       "connection 0->1 channel 0 has two sending strands: 0 and 1 (rank 0 strand 1 step "
	       "0, SEND)");
	b = hs_new(GS_COLL_ALLTOALL, 2, 2, 8, 8, 0);
	b->spc = 2;
	b->nsig = 1;
	hs_add(b, 0, 0, GS_OP_PUT, 1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 1, GS_OP_SEND, 1, -1, IN, 4, OUT, 0, 4);
	hs_add(b, 1, 1, GS_OP_RECV, -1, 0, IN, 0, OUT, 4, 4);
	expect_ref(hs_build(b), GC_ERR_INPUT,
		   "connection 0->1 channel 0 has two sending strands: 0 and 1");
	/* PUT on one strand, its SIGNAL on the other */
	b = put2();
	hs_add(b, 0, 1, GS_OP_SIGNAL, 1, -1, IN, 0, OUT, 0, 8);
	expect(hs_build(b), GC_ERR_INPUT,
	       "connection 0->1 channel 0 has two sending strands: 0 and 1 (rank 0 strand 1 step "
	       "1, SIGNAL)");
	/* SEND and PUT on one strand and connection: one sender, valid as a
	 * connection (the SEND still needs its receive) */
	b = hs_new(GS_COLL_ALLTOALL, 2, 2, 8, 8, 0);
	b->spc = 2;
	b->nsig = 1;
	hs_add(b, 0, 0, GS_OP_COPY, -1, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_SEND, 1, -1, IN, 4, OUT, 0, 4);
	hs_add(b, 0, 0, GS_OP_PUT, 1, -1, IN, 4, SCR, 0, 4);
	hs_add(b, 0, 0, GS_OP_SIGNAL, 1, -1, IN, 0, OUT, 0, 8);
	hs_add(b, 1, 1, GS_OP_RECV, -1, 0, IN, 0, OUT, 0, 4);
	hs_add(b, 1, 1, GS_OP_WAIT, -1, -1, IN, 0, OUT, 0, 1);
	hs_add(b, 1, 0, GS_OP_COPY, -1, -1, IN, 4, OUT, 4, 4);
	hs_add(b, 1, 0, GS_OP_SEND, 0, -1, IN, 0, OUT, 0, 4);
	hs_add(b, 0, 1, GS_OP_RECV, -1, 1, IN, 0, OUT, 4, 4);
	b->buf[SCR] = 4;
	expect(hs_build(b), GC_OK, NULL);
}

/* Misplaced all-to-all blocks are caught by both checkers. */
static void test_alltoall_data(void)
{
	hs_builder *b;
	gs_sched *s;

	/* rank 0 puts its block for rank 1 into rank 1's block 1 instead of 0,
	 * where rank 1's own COPY also writes */
	s = hs_build(put2());
	at(s, 0, 0, 1)->dst_off = 4;
	expect(s, GC_ERR_INPUT, "rank 1 strand 0 step 0 (COPY): writes OUTPUT element 1 that rank 0");
	/* a pairwise exchange receiving into the wrong block */
	b = hs_new(GS_COLL_ALLTOALL, 2, 2, 8, 8, 0);
	b->spc = 2;
	for (int r = 0; r < 2; r++) {
		uint64_t own = 4 * (uint64_t)r, other = 4 - own;

		hs_add(b, r, 0, GS_OP_COPY, -1, -1, IN, own, OUT, own, 4);
		hs_add(b, r, 0, GS_OP_SEND, 1 - r, -1, IN, other, OUT, 0, 4);
		hs_add(b, r, 1, GS_OP_RECV, -1, 1 - r, IN, 0, OUT, other, 4);
	}
	expect(hs_build(b), GC_OK, NULL);
	b = hs_new(GS_COLL_ALLTOALL, 2, 2, 8, 8, 0);
	b->spc = 2;
	for (int r = 0; r < 2; r++) {
		uint64_t own = 4 * (uint64_t)r, other = 4 - own;

		hs_add(b, r, 0, GS_OP_COPY, -1, -1, IN, own, OUT, other, 4);
		hs_add(b, r, 0, GS_OP_SEND, 1 - r, -1, IN, other, OUT, 0, 4);
		hs_add(b, r, 1, GS_OP_RECV, -1, 1 - r, IN, 0, OUT, own, 4);
	}
	s = hs_build(b);
	/* the validator sees the wrong rank, the executor the wrong value */
	{
		char *err = NULL;

		g_assert_cmpint(gs_refexec_run(s, &err), ==, GC_ERR_INPUT);
		g_assert_nonnull(strstr(err, "rank 0 element 0: got"));
		g_free(err);
	}
	expect(s, GC_ERR_INPUT, "rank 0 OUTPUT element 0: holds data of rank 1, expected rank 0");
}

/* The reference executor refuses schedules whose buffers do not fit. */
static void test_refexec_limit(void)
{
	hs_builder *b = hs_new(GS_COLL_ALLREDUCE, 4096, 1, 1ull << 30, 1ull << 30, 0);
	char *err = NULL;
	gs_sched *s = hs_build(b);

	g_assert_cmpint(gs_refexec_run(s, &err), ==, GC_ERR_UNSUPPORTED);
	g_assert_nonnull(strstr(err, "4096 ranks"));
	g_free(err);
	gs_sched_free(s);
}

/* Single-field mutations of generated schedules must all be rejected. */
static void mutate_all(const gs_params *p, int trials, guint32 seed)
{
	GRand *rnd = g_rand_new_with_seed(seed);
	gs_gen *g;
	gs_sched *s;
	char *err = NULL;
	uint64_t total, el = gs_dtype_size(p->dtype);
	int rejected = 0, tried = 0;

	g_assert_cmpint(gs_gen_create(p, &g, &err), ==, GC_OK);
	s = gs_sched_materialize(g);
	total = s->strand_off[(uint64_t)s->nranks * (uint64_t)s->nstrands];
	g_assert_cmpint(gs_sched_validate(s, &err), ==, GC_OK);
	for (int t = 0; t < trials; t++) {
		uint64_t i = (uint64_t)g_rand_double_range(rnd, 0, (double)total);
		gs_step saved = s->steps[i], *st = &s->steps[i];
		int kind = g_rand_int_range(rnd, 0, 5);
		gc_status rc;

		switch (kind) {
		case 0:
			/* a WAIT threshold: lower it by one */
			if (st->op == GS_OP_WAIT && st->bytes > 1) {
				st->bytes--;
				break;
			}
			if (st->bytes <= el)
				continue;
			st->bytes -= el;
			break;
		case 1:
			if (!gs_op_reads_src(st->op))
				continue;
			st->src_off += el;
			break;
		case 2:
			if (!gs_op_writes_dst(st->op) && st->op != GS_OP_PUT)
				continue;
			st->dst_off += el;
			break;
		case 3:
			if (st->op != GS_OP_RECV_REDUCE_SEND)
				continue;
			st->op = GS_OP_RECV_COPY_SEND; /* drops the local contribution */
			st->dst_buf = GS_BUF_OUTPUT;
			st->dst_off = st->src_off;
			break;
		default:
			if (!gs_op_reduces(st->op))
				continue;
			st->src_buf = st->src_buf == GS_BUF_INPUT ? GS_BUF_OUTPUT : GS_BUF_INPUT;
			break;
		}
		tried++;
		rc = gs_sched_validate(s, &err);
		if (rc == GC_OK)
			g_test_fail_printf("mutation %d of step %" PRIu64 " accepted", kind, i);
		else
			rejected++;
		g_free(err);
		err = NULL;
		s->steps[i] = saved;
	}
	g_test_message("%d of %d mutations rejected", rejected, tried);
	g_assert_cmpint(tried, >, trials / 10);
	gs_sched_free(s);
	gs_gen_free(g);
	g_rand_free(rnd);
}

static void test_mutations(void)
{
	gs_params ring =
		tu_params(GS_COLL_ALLREDUCE, GS_ALGO_RING, GS_DT_F32, 5, 4 * 1003, 2, 256, 64, 0);
	gs_params rs = tu_params(GS_COLL_REDUCESCATTER, GS_ALGO_RING, GS_DT_I32, 6, 4 * 6 * 130, 3,
				 256, 64, 2);
	gs_params ag =
		tu_params(GS_COLL_ALLGATHER, GS_ALGO_RING, GS_DT_F64, 4, 8 * 4 * 70, 2, 256, 64, 2);
	gs_params tree =
		tu_params(GS_COLL_ALLREDUCE, GS_ALGO_TREE, GS_DT_F32, 12, 4 * 1003, 2, 256, 64, 2);
	gs_params sr = tu_params(GS_COLL_SENDRECV, GS_ALGO_RING, GS_DT_U8, 5, 1003, 2, 256, 64, 0);
	gs_params a2a_pw = tu_params(GS_COLL_ALLTOALL, GS_ALGO_PAIRWISE, GS_DT_F32, 5,
				     4 * 5 * 101, 2, 256, 64, 0);
	gs_params a2a_put =
		tu_params(GS_COLL_ALLTOALL, GS_ALGO_PUT, GS_DT_I32, 6, 4 * 6 * 101, 2, 256, 64, 0);

	mutate_all(&ring, 300, 1);
	mutate_all(&rs, 300, 2);
	mutate_all(&ag, 300, 3);
	mutate_all(&tree, 300, 4);
	mutate_all(&sr, 300, 5);
	mutate_all(&a2a_pw, 300, 6);
	mutate_all(&a2a_put, 300, 7);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/sched/validate/valid", test_valid);
	g_test_add_func("/sched/validate/fanout", test_fanout);
	g_test_add_func("/sched/validate/size_mismatch", test_size_mismatch);
	g_test_add_func("/sched/validate/deadlock", test_deadlock);
	g_test_add_func("/sched/validate/missing_recv", test_missing_recv);
	g_test_add_func("/sched/validate/counted_twice", test_counted_twice);
	g_test_add_func("/sched/validate/data_errors", test_data_errors);
	g_test_add_func("/sched/validate/fields", test_fields);
	g_test_add_func("/sched/validate/channels", test_channels);
	g_test_add_func("/sched/validate/one_sided_fields", test_one_sided_fields);
	g_test_add_func("/sched/validate/one_sided_deadlock", test_one_sided_deadlock);
	g_test_add_func("/sched/validate/one_sided_races", test_one_sided_races);
	g_test_add_func("/sched/validate/one_sided_threshold", test_one_sided_threshold);
	g_test_add_func("/sched/validate/one_sided_conns", test_one_sided_conns);
	g_test_add_func("/sched/validate/alltoall_data", test_alltoall_data);
	g_test_add_func("/sched/validate/mutations", test_mutations);
	g_test_add_func("/sched/validate/refexec_limit", test_refexec_limit);
	return g_test_run();
}
