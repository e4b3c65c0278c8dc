/* SPDX-License-Identifier: MIT */
/*
 * gs_impl: what the files of sim/sched share and nothing outside them uses
 * -- the generator constructors, small arithmetic and step helpers of the
 * generators, connection keys, and the strand walker that both the
 * validator (symbolic values) and the reference executor (real bytes) run.
 *
 * Invariants: connection keys are ((src * nranks) + dst) * nchannels +
 * channel, channel = strand / strands_per_channel, everywhere in this
 * folder; a step built by gs_step_set / gs_step_clear has canonical unused
 * fields (src = INPUT+0 when the op reads no L, dst = OUTPUT+0 when it
 * writes no local dst, peers -1 when unused).
 */
#ifndef GS_IMPL_H
#define GS_IMPL_H

#include <string.h>

#include <glib.h>

#include "gs_sched.h"

/* ---- generator constructors ------------------------------------------- */

/*
 * They live in gs_ring.c, gs_tree.c, gs_p2p.c, gs_a2a.c, gs_nvls.c, gs_moe.c,
 * gs_moefwd.c, gs_pplx.c, gs_bruck.c, gs_pat.c and gs_chain.c; each
 * fills in ops, nstrands, strands_per_channel, buf_bytes, nsignals,
 * nhelpers (when not 0) and priv of a gs_gen whose p is already normalized
 * (gs_gen.c).
 */
gc_status gs_ring_init(gs_gen *g, char **errmsg);
gc_status gs_tree_init(gs_gen *g, char **errmsg);
gc_status gs_p2p_init(gs_gen *g, char **errmsg);
gc_status gs_a2a_init(gs_gen *g, char **errmsg);
gc_status gs_nvls_init(gs_gen *g, char **errmsg);
gc_status gs_nvls_tree_init(gs_gen *g, char **errmsg);
gc_status gs_collnet_init(gs_gen *g, char **errmsg);
gc_status gs_collnet_chain_init(gs_gen *g, char **errmsg);
gc_status gs_moe_init(gs_gen *g, char **errmsg);
gc_status gs_moefwd_init(gs_gen *g, char **errmsg);
gc_status gs_pplx_init(gs_gen *g, char **errmsg);
gc_status gs_garden_init(gs_gen *g, char **errmsg);
gc_status gs_bruck_init(gs_gen *g, char **errmsg);
gc_status gs_pat_init(gs_gen *g, char **errmsg);
gc_status gs_chain_init(gs_gen *g, char **errmsg);
gc_status gs_hd_init(gs_gen *g, char **errmsg);


/* destroy op of a generator whose priv is one g_malloc'ed block */
void gs_gen_free_priv(gs_gen *g);

/* ---- generator helpers ------------------------------------------------ */

static inline uint64_t gs_divup(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/* a mod n in [0, n) for any sign of a (n > 0) */
static inline int64_t gs_mod(int64_t a, int64_t n)
{
	int64_t r = a % n;

	return r < 0 ? r + n : r;
}

/* Channel c's contiguous part [*start, *start + *len) of count elements
 * split over nch channels; the first count % nch channels get one more. */
static inline void gs_part(uint64_t count, uint64_t nch, uint64_t c, uint64_t *start, uint64_t *len)
{
	uint64_t base = count / nch, rem = count % nch;

	*len = base + (c < rem);
	*start = c * base + MIN(c, rem);
}

/* A NOP step with canonical fields, for generators that set ops by hand. */
/* Slice index j of a part made of nfull full loops of s_full slices and a
 * last, shorter loop -> (loop *l, slice in loop *s). */
static inline void gs_slice_locate(uint64_t j, uint64_t nfull, uint64_t s_full, uint64_t *l,
				   uint64_t *s)
{
	if (j < nfull * s_full) {
		*l = j / s_full;
		*s = j % s_full;
	} else {
		*l = nfull;
		*s = j - nfull * s_full;
	}
}

static inline void gs_step_clear(gs_step *st)
{
	memset(st, 0, sizeof(*st));
	st->send_peer = -1;
	st->recv_peer = -1;
	st->src_buf = GS_BUF_INPUT;
	st->dst_buf = GS_BUF_OUTPUT;
}

/* A two-sided or local step; the fields op does not use are made canonical
 * whatever is passed for them. */
static inline void gs_step_set(gs_step *st, gs_op op, int32_t send, int32_t recv, uint8_t src_buf,
			       uint64_t src_off, uint8_t dst_buf, uint64_t dst_off, uint64_t bytes)
{
	memset(st, 0, sizeof(*st));
	st->op = (uint8_t)op;
	st->send_peer = gs_op_sends(op) ? send : -1;
	st->recv_peer = gs_op_recvs(op) ? recv : -1;
	st->src_buf = gs_op_reads_src(op) ? src_buf : GS_BUF_INPUT;
	st->src_off = gs_op_reads_src(op) ? src_off : 0;
	st->dst_buf = gs_op_writes_dst(op) ? dst_buf : GS_BUF_OUTPUT;
	st->dst_off = gs_op_writes_dst(op) ? dst_off : 0;
	st->bytes = bytes;
}

/* ---- NCCL's ring order (gs_ring.c, gs_chain.c) ------------------------ */

/* With rpn ranks per node, the ring of channel c visits the nodes in order
 * and, inside a node, its local ranks (c + j) % rpn, j = 0 .. rpn-1:
 * consecutive channels enter and leave each node at different GPUs. The
 * rank at position pos (any integer, taken mod n): */
static inline int32_t gs_ring_order_rank(int64_t n, int64_t rpn, int64_t c, int64_t pos, bool pairs)
{
	pos = gs_mod(pos, n);
	const int64_t a = c % rpn, j = pos % rpn;
	int64_t d = j; /* the local rank's distance from a, a rotation's */
	if (pairs && a % 2 == 0) /* a, a + 2, ..., a - 1, then a's pair a + 1 */
		d = j == 0 ? 0 : j == rpn - 1 ? 1 : j + 1;
	return (int32_t)((pos / rpn) * rpn + (a + d) % rpn);
}

/* The position of rank in channel c's ring (the inverse). */
static inline int64_t gs_ring_order_pos(int64_t rpn, int64_t c, int64_t rank, bool pairs)
{
	const int64_t a = c % rpn, d = gs_mod(rank % rpn - a, rpn);
	int64_t j = d;
	if (pairs && a % 2 == 0)
		j = d == 0 ? 0 : d == 1 ? rpn - 1 : d - 1;
	return (rank / rpn) * rpn + j;
}

/* Whether p's rings leave a node at the pair of their entry GPU: asked for
 * (ring_pairs), the rings cross nodes (on one node every channel keeps
 * the rotations' one cycle), and the nodes' ranks come in pairs, more than
 * one (with one pair a rotation already ends at the entry's pair). */
static inline bool gs_ring_pairs(const gs_params *p, int64_t rpn)
{
	return p->ring_pairs && p->nranks > rpn && rpn >= 4 && rpn % 2 == 0;
}

/* ---- the ends of a logarithmic-round strand (gs_bruck.c, gs_pat.c) ---- */

/*
 * Such a strand moves one channel's part (P bytes, sp = ceil(P / sb)
 * slices) of n blocks through a SCRATCH region of positions. The
 * allgather opens with the own part copied to position 0 (sp steps), runs
 * its rounds, and closes with the n positions copied to their OUTPUT
 * blocks (n sp steps); the reduce-scatter opens with the n INPUT blocks
 * copied to their positions, runs its rounds, and closes with position 0
 * copied to OUTPUT.
 */
typedef enum { GS_END_OWN, GS_END_BLOCK, GS_END_ROUND } gs_end_kind;

/* Where step i falls: the own part's copy (slice at *off, *n bytes), the
 * copy of block j's part (relative index *j), or round step *k. */
static inline gs_end_kind gs_end_locate(bool rs, int64_t n, uint64_t P, uint64_t sb, uint64_t rounds,
					uint64_t i, int64_t *j, uint64_t *off, uint64_t *len,
					uint64_t *k)
{
	const uint64_t sp = gs_divup(P, sb);
	const uint64_t one_at = rs ? sp * (uint64_t)n + rounds : 0;
	const uint64_t many_at = rs ? 0 : sp + rounds;
	if (i >= one_at && i < one_at + sp) {
		*off = (i - one_at) * sb;
		*len = MIN(sb, P - *off);
		return GS_END_OWN;
	}
	if (i >= many_at && i < many_at + sp * (uint64_t)n) {
		*j = (int64_t)((i - many_at) / sp);
		*off = (i - many_at) % sp * sb;
		*len = MIN(sb, P - *off);
		return GS_END_BLOCK;
	}
	*k = i - (rs ? sp * (uint64_t)n : sp);
	return GS_END_ROUND;
}

/* The own part's copy: INPUT own -> SCRATCH position 0 (allgather), or
 * SCRATCH position 0 -> OUTPUT (reduce-scatter, the result). */
static inline void gs_end_own_copy(gs_step *st, bool rs, uint64_t own, uint64_t pos0, uint64_t len)
{
	if (!rs)
		gs_step_set(st, GS_OP_COPY, -1, -1, GS_BUF_INPUT, own, GS_BUF_SCRATCH, pos0, len);
	else
		gs_step_set(st, GS_OP_COPY, -1, -1, GS_BUF_SCRATCH, pos0, GS_BUF_OUTPUT, own, len);
}

/* A block part's copy: SCRATCH position -> OUTPUT block (allgather), or
 * INPUT block -> SCRATCH position (reduce-scatter). */
static inline void gs_end_block_copy(gs_step *st, bool rs, uint64_t blk, uint64_t pos, uint64_t len)
{
	if (!rs)
		gs_step_set(st, GS_OP_COPY, -1, -1, GS_BUF_SCRATCH, pos, GS_BUF_OUTPUT, blk, len);
	else
		gs_step_set(st, GS_OP_COPY, -1, -1, GS_BUF_INPUT, blk, GS_BUF_SCRATCH, pos, len);
}

/* ---- connections -------------------------------------------------------- */

/* Key of the connection (src, dst, channel of `strand`) of schedule s. */
static inline gint64 gs_conn_key(const gs_sched *s, int32_t src, int32_t dst, int strand)
{
	int spc = s->strands_per_channel;

	return ((gint64)src * s->nranks + dst) * (s->nstrands / spc) + strand / spc;
}

/*
 * Every connection (src, dst, channel) has one sending strand (at src) and
 * one receiving strand (at dst); PUT and SIGNAL count as sends of their
 * connection, and nothing receives them. The walker's single waiter per
 * connection relies on it. Needs a valid shape (nranks >= 1,
 * strands_per_channel >= 1 dividing nstrands); steps with an out-of-range
 * peer are skipped, so it is safe on unvalidated steps. (gs_validate.c)
 */
gc_status gs_sched_check_conns(const gs_sched *s, char **errmsg);

/* ---- the strand walker (gs_walk.c) ------------------------------------- */

/*
 * Strands run round-robin, each until it blocks or for a quantum of steps.
 * A strand blocks on a receive whose connection has no message (it is the
 * connection's waiter until a send wakes it) and on a WAIT whose slot is
 * below the threshold (it is chained on the slot until a SIGNAL to the slot
 * wakes every waiter, and re-checks). A SIGNAL counts at once; PUT and
 * SIGNAL make no message. Messages match in FIFO order and must have equal
 * sizes. The executor supplies the per-step semantics through gs_walk_ops
 * and the payloads (g_malloc'ed, freed with g_free); the walker owns the run
 * queue, the connections and their FIFOs.
 *
 * Requires gs_sched_check_conns to have passed (one receiving strand per
 * connection) and the steps to be safe to execute (peers and slots in
 * range), either checked up front or by ops->check.
 */

typedef struct gs_wmsg {
	uint64_t bytes;
	uint64_t step; /* sending step */
	int strand;    /* sending strand */
	void *data;    /* payload, or NULL */
} gs_wmsg;

/* A connection; executors that keep more per connection allocate a larger
 * struct that starts with this one (gs_walk.conn_size). */
typedef struct gs_wconn {
	gint64 key; /* gs_conn_key */
	int32_t src, dst;
	GQueue q;	/* gs_wmsg * */
	int64_t waiter; /* the receiving strand (rank * ns + strand) while it waits, or -1 */
} gs_wconn;

/* The walker's view of a signal slot: executors embed it. */
typedef struct gs_wslot {
	uint64_t count; /* SIGNALs executed */
	int64_t waiter; /* first strand waiting on it (chained by the walker), or -1 */
} gs_wslot;

typedef struct gs_walk gs_walk;

typedef struct gs_walk_ops {
	/* optional: reject a step before anything of it executes */
	gc_status (*check)(void *ctx, int r, int c, uint64_t i, const gs_step *st);
	/* signal slot `slot` of rank r (never NULL) */
	gs_wslot *(*slot)(void *ctx, int32_t r, uint64_t slot);
	/* optional: strand k of rank r passed WAIT st (its slot is sl) */
	void (*waited)(void *ctx, int64_t k, gs_wslot *sl, const gs_step *st);
	/* optional: SIGNAL st of (r, c) was counted in slot sl */
	void (*signalled)(void *ctx, int r, int c, const gs_step *st, gs_wslot *sl);
	/* any other step, after its receive: R is the received payload (owned
	 * by the callee from here), *send the payload a two-sided send carries
	 * (NULL when unset); an error status stops the walk with *errmsg set */
	gc_status (*exec)(void *ctx, int r, int c, uint64_t i, const gs_step *st, void *R,
			  void **send);
	/* optional: releases the executor's part of a connection */
	void (*conn_fini)(gs_wconn *cn);
} gs_walk_ops;

/* What stopped a walk that the walker itself diagnosed; the executor words
 * the message. */
typedef enum gs_walk_why {
	GS_WALK_OK = 0,
	GS_WALK_MISMATCH,   /* a receive of a size other than the message's */
	GS_WALK_DEADLOCK,   /* strands left unfinished */
	GS_WALK_UNRECEIVED, /* a message never received */
} gs_walk_why;

typedef struct gs_walk_fail {
	gs_walk_why why;
	int rank, strand;   /* MISMATCH, DEADLOCK: the step's; UNRECEIVED: the sender's */
	uint64_t step;
	const gs_step *st;  /* MISMATCH, DEADLOCK: the step */
	int32_t peer;	    /* UNRECEIVED: the destination rank */
	gs_wmsg msg;	    /* MISMATCH, UNRECEIVED: the message (data NULL) */
	uint64_t stuck;	    /* DEADLOCK: unfinished strands */
	uint64_t slot_count; /* DEADLOCK at a WAIT: the count its slot stays at */
} gs_walk_fail;

struct gs_walk {
	const gs_sched *s;
	const gs_walk_ops *ops;
	void *ctx;
	int quantum;
	size_t conn_size;    /* >= sizeof(gs_wconn) */
	GHashTable *conns;   /* gint64 * -> gs_wconn * */
	int64_t *wait_next;  /* [strand]: next strand waiting on the same slot, or -1 */
};

void gs_walk_init(gs_walk *w, const gs_sched *s, const gs_walk_ops *ops, void *ctx, int quantum,
		  size_t conn_size);
void gs_walk_fini(gs_walk *w);
/* The connection (src, dst, channel of `strand`), created on first use. */
gs_wconn *gs_walk_conn(gs_walk *w, int32_t src, int32_t dst, int strand);
/* Runs every strand to its end. GC_OK; a callback's status; or
 * GC_ERR_INPUT / GC_ERR_DEADLOCK with *fail saying why (its errmsg is the
 * executor's to write). */
gc_status gs_walk_run(gs_walk *w, gs_walk_fail *fail);

/* A step of a generator that builds its steps into a table (MoE forward,
 * pplx): slots a and b in units of the message's bytes; SIGNAL: b is the
 * slot; WAIT: a is the slot, b the count. */
typedef struct gs_tstep {
	int32_t send, recv;
	uint32_t a, b;
	uint8_t op, sbuf, dbuf, pad;
} gs_tstep;

/* The n table steps at fs as schedule steps, slots of tb bytes (gs_moe.c). */
void gs_tstep_fill(const gs_tstep *fs, uint32_t n, uint64_t tb, gs_step *out);

#endif
