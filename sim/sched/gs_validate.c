/* SPDX-License-Identifier: MIT */
/*
 * gs_validate: the schedule validator. It proves, without real data, that a
 * materialized schedule is well formed, terminates and computes its
 * collective.
 *
 * Checks, in order (the first failure is reported, naming rank, strand and
 * step):
 *  1. Fields: the shape (strands_per_channel >= 1 divides nstrands), op in
 *     range, reserved fields (reserved, flags other than GS_STEP_FANOUT)
 *     zero, buffers in range, a fan-out SEND sending what the strand's
 *     previous send sent (a SEND's piece, a *_COPY_SEND's stored copy),
 *     send_peer / recv_peer a rank other than the step's own exactly when
 *     the op sends / receives and -1 otherwise (PUT and SIGNAL send, no
 *     one-sided op receives). SIGNAL: bytes == 8, slot dst_off < nsignals,
 *     src_off 0; WAIT: slot src_off < nsignals, threshold bytes >= 1,
 *     dst_off 0.
 *  2. Bounds and alignment of every operand the op uses: off + bytes within
 *     the buffer (computed without overflow), off and bytes multiples of
 *     the element size. A PUT's (dst_buf, dst_off, bytes) is checked
 *     against the buffer sizes of its peer (the same on every rank).
 *  3. Connection ownership: a message travels on the connection
 *     (src, dst, channel), channel = strand / strands_per_channel; every
 *     connection must be sent on by one strand of src only and received on
 *     by one strand of dst only, so its FIFO order cannot depend on timing
 *     ("connection 3->5 channel 2 has two sending strands: 4 and 5").
 *     PUT and SIGNAL count as sends on their connection (still one sending
 *     strand per connection) and have no receiving strand.
 *     Symbolic execution with unlimited buffering: a strand advances while
 *     its next step's receive, if any, finds a message waiting on its
 *     connection, and while its next WAIT, if any, finds its slot at the
 *     threshold; messages match in FIFO order and must have equal sizes. A
 *     PUT and a SIGNAL take effect when they execute (the PUT's bytes are
 *     in the peer's buffer, the slot is one higher), which respects their
 *     FIFO order. If no strand can advance and some are unfinished the
 *     schedule deadlocks (GC_ERR_DEADLOCK; a WAIT whose threshold is never
 *     reached is reported with its slot and the count it stays at);
 *     messages left on a connection at the end are sends without a
 *     receive. Slot counts only grow, so whether a WAIT is ever released
 *     does not depend on the interleaving the executor happens to pick.
 *  4. Data: every element carries a symbolic value, the set of ranks whose
 *     INPUT it combines (a bitset, interned as a small integer id) and the
 *     INPUT element index those contributions come from. INPUT element i of
 *     rank r starts as ({r}, i); OUTPUT and SCRATCH start uninitialized.
 *     Reading uninitialized data, reducing values of different element
 *     indices or reducing two sets that share a rank ("rank X counted
 *     twice") is an error. At the end every OUTPUT element must hold the
 *     collective's value: allreduce ({all}, e); reducescatter
 *     ({all}, r * count + e); allgather ({e / count}, e % count); sendrecv
 *     ({r - 1}, e); alltoall, blocks of B = OUTPUT elements / n:
 *     ({e / B}, r * B + e % B); broadcast ({0}, e); reduce ({all}, e) at
 *     rank 0, nothing elsewhere.
 *  5. One-sided races (with the data check): an element a PUT writes stays
 *     "unsettled" until a WAIT of the destination rank guarantees that a
 *     SIGNAL following that PUT on its connection has arrived. A WAIT for
 *     slot s >= T guarantees SIGNAL X (to slot s) when
 *     T >= N_s - later(X), N_s being the number of SIGNALs to slot s in the
 *     whole schedule and later(X) those to slot s after X on X's
 *     connection (which arrive after X): fewer than T signals can arrive
 *     without X. Such a WAIT settles the PUT for the waiting strand only
 *     (strands are ordered with each other only by messages). Errors: a
 *     read (L of any op) or a local write of an unsettled element by any
 *     other strand, a PUT over an element still unsettled from a PUT of
 *     another connection, and an OUTPUT element still unsettled at the end
 *     (the final read). The rule is conservative: a read ordered after a
 *     WAIT only through a chain of messages, or a WAIT that is certain of
 *     a SIGNAL only through causality across connections, is reported.
 *     Reads of a buffer before a later PUT overwrites it (write after
 *     read) are not tracked.
 *
 * Memory: the data check keeps 8 bytes per element of every written buffer
 * of every rank (INPUT is virtual until written), 4 more per element of a
 * buffer some PUT writes, a record per PUT step, the interned rank sets
 * (n / 8 bytes each, at most one or two per reducing step) and the payloads
 * of in-flight messages, which the round-robin executor keeps to about a
 * quantum of steps per strand. If the buffers and sets would exceed
 * GS_VALIDATE_DATA_LIMIT (or an element index would not fit 32 bits) the
 * data check is skipped and the structural result (checks 1-3) is returned:
 * such schedules (thousands of ranks, or hundreds of MiB) come from
 * generators that the tests validate at smaller sizes with the same code
 * paths, and checks 1-3 stay linear in the number of steps.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "gs_impl.h"

#define GS_VALIDATE_DATA_LIMIT (512ull << 20)
#define GS_VALIDATE_QUANTUM 256

typedef struct gs_val {
	uint32_t set; /* interned rank set; 0 = uninitialized */
	uint32_t idx; /* INPUT element index of the contributions */
} gs_val;

/* A connection: the walker's part, then the race check's. Message
 * payloads (gs_wmsg.data) are gs_val arrays, NULL when the data check is
 * off. */
typedef struct gs_conn {
	gs_wconn w;	 /* first: the walker allocates gs_conn */
	GHashTable *sig; /* slot (gint64 *) -> gs_csig *: SIGNALs on this connection, or NULL */
	GArray *open;	 /* uint32 ids of PUTs not yet followed by a SIGNAL, or NULL */
} gs_conn;

/* The SIGNALs of one connection to one slot. */
typedef struct gs_csig {
	uint64_t total; /* in the whole schedule */
	uint64_t sent;	/* executed so far */
} gs_csig;

/* A signal slot of a rank. */
typedef struct gs_slot {
	gs_wslot w;	/* first: count and waiters, for the walker */
	gint64 key;	/* rank * nsignals + slot */
	uint64_t total; /* SIGNALs in the whole schedule */
	GArray *signalled; /* uint32 ids of PUTs signalled here, not yet settled */
} gs_slot;

/* A PUT step, for the race check. */
typedef struct gs_put {
	int32_t src, strand; /* the putting rank and strand */
	uint64_t step;
	gint64 conn;	    /* its connection's key */
	uint64_t need;	    /* once signalled: the WAIT threshold that guarantees it */
	int64_t settled_by; /* the destination strand (rank * ns + strand) it is
			       settled for, or -1 */
} gs_put;

typedef struct gs_bset {
	uint32_t id;
	uint32_t nw;
	uint64_t w[];
} gs_bset;

typedef struct gs_vstate {
	const gs_sched *s;
	int n, ns, spc; /* ranks, strands per rank, strands per channel */
	int nd;		/* data ranks (p.nranks; the rest are helpers) */
	uint64_t elem;
	bool data;
	uint32_t nw;	     /* 64-bit words per rank set */
	GPtrArray *sets;     /* id -> gs_bset *; id 0 unused */
	GHashTable *set_ids; /* gs_bset * (content) -> itself */
	GHashTable *unions;  /* gint64 * ((a << 32) | b) -> id */
	uint64_t *tmp;	     /* nw words */
	gs_val **bufs;	     /* [rank * GS_BUF__COUNT + buf], NULL = not written yet */
	uint32_t **pend;     /* [rank * GS_BUF__COUNT + buf]: PUT id per element (0: none),
				NULL = no PUT wrote there */
	GArray *puts;	     /* gs_put, id = index + 1 */
	GHashTable *slots;   /* gint64 * -> gs_slot * */
	gs_walk walk;	     /* the strands, connections (gs_conn) and messages */
	uint32_t *group_set; /* per communicator: the set of its members */
	char **errmsg;
	int32_t *moe_src;    /* gs_moe_expect's ranks (group size) */
} gs_vstate;

static guint gs_bset_hash(gconstpointer p)
{
	const gs_bset *b = p;
	uint64_t h = 1469598103934665603ull;

	for (uint32_t i = 0; i < b->nw; i++) {
		h ^= b->w[i];
		h *= 1099511628211ull;
		h ^= h >> 29;
	}
	return (guint)(h ^ (h >> 32));
}

static gboolean gs_bset_equal(gconstpointer a, gconstpointer b)
{
	const gs_bset *x = a, *y = b;

	return memcmp(x->w, y->w, sizeof(uint64_t) * x->nw) == 0;
}

/* Id of the rank set w (nw words), interning it if new. */
static uint32_t gs_set_intern(gs_vstate *vs, const uint64_t *w)
{
	gs_bset *key = g_malloc(sizeof(gs_bset) + sizeof(uint64_t) * vs->nw);
	gs_bset *found;

	key->nw = vs->nw;
	memcpy(key->w, w, sizeof(uint64_t) * vs->nw);
	found = g_hash_table_lookup(vs->set_ids, key);
	if (found) {
		g_free(key);
		return found->id;
	}
	key->id = vs->sets->len;
	g_ptr_array_add(vs->sets, key);
	g_hash_table_add(vs->set_ids, key);
	return key->id;
}

static uint32_t gs_set_single(gs_vstate *vs, int rank)
{
	/* singletons are interned first, in rank order: id = rank + 1 */
	return (uint32_t)rank + 1;
}

/* Lowest rank in set a, or -1 if empty. */
static int gs_set_first(const gs_vstate *vs, uint32_t a, bool complement)
{
	const gs_bset *b = g_ptr_array_index(vs->sets, a);

	for (uint32_t i = 0; i < vs->nw; i++) {
		uint64_t w = complement ? ~b->w[i] : b->w[i];

		if (w) {
			int r = (int)(i * 64 + (uint32_t)__builtin_ctzll(w));

			return r < (complement ? vs->nd : vs->n) ? r : -1;
		}
	}
	return -1;
}

/* Lowest helper rank (>= nd) in set a, or -1. */
static int gs_helper_in(const gs_vstate *vs, uint32_t a)
{
	const gs_bset *b = g_ptr_array_index(vs->sets, a);

	for (int r = vs->nd; r < vs->n; r++)
		if (b->w[r / 64] >> (r % 64) & 1)
			return r;
	return -1;
}

static bool gs_set_has(const gs_vstate *vs, uint32_t a, int r)
{
	const gs_bset *b = g_ptr_array_index(vs->sets, a);

	return b->w[r / 64] >> (r % 64) & 1;
}

/* Lowest member of communicator id missing from set a, or -1. */
static int gs_group_missing(const gs_vstate *vs, uint32_t a, int id)
{
	for (int j = 0; j < gs_group_n(&vs->s->p); j++) {
		int r = gs_group_member(&vs->s->p, id, j);

		if (!gs_set_has(vs, a, r))
			return r;
	}
	return -1;
}

/* Lowest data rank in set a outside communicator id, or -1. */
static int gs_outsider_in(const gs_vstate *vs, uint32_t a, int id)
{
	for (int r = 0; r < vs->nd; r++)
		if (gs_set_has(vs, a, r) && gs_group_id(&vs->s->p, r) != id)
			return r;
	return -1;
}

/* Union of disjoint sets a and b; on overlap *dup = a shared rank, returns 0. */
static uint32_t gs_set_union(gs_vstate *vs, uint32_t a, uint32_t b, int *dup)
{
	gint64 key;
	gpointer hit;
	const gs_bset *x, *y;
	uint32_t id;

	if (a > b) {
		uint32_t t = a;

		a = b;
		b = t;
	}
	key = (gint64)(((uint64_t)a << 32) | b);
	hit = g_hash_table_lookup(vs->unions, &key);
	if (hit)
		return GPOINTER_TO_UINT(hit);
	x = g_ptr_array_index(vs->sets, a);
	y = g_ptr_array_index(vs->sets, b);
	for (uint32_t i = 0; i < vs->nw; i++) {
		if (x->w[i] & y->w[i]) {
			*dup = (int)(i * 64 + (uint32_t)__builtin_ctzll(x->w[i] & y->w[i]));
			return 0;
		}
		vs->tmp[i] = x->w[i] | y->w[i];
	}
	id = gs_set_intern(vs, vs->tmp);
	g_hash_table_insert(vs->unions, g_memdup2(&key, sizeof(key)), GUINT_TO_POINTER(id));
	return id;
}

static const char *const gs_buf_names[GS_BUF__COUNT] = { "INPUT", "OUTPUT", "SCRATCH" };

/* ---- 1 + 2: fields, bounds, alignment ---------------------------------- */

static bool gs_range_ok(const gs_sched *s, uint8_t buf, uint64_t off, uint64_t bytes)
{
	uint64_t size = s->buf_bytes[buf];

	return off <= size && bytes <= size - off;
}

/* An operand (name "src" or "dst") that is misaligned or out of its buffer:
 * true, with the problem written to what. */
static bool gs_operand_bad(const gs_sched *s, const char *name, uint8_t buf, uint64_t off,
			   uint64_t bytes, uint64_t elem, char *what, size_t n)
{
	if (off % elem) {
		snprintf(what, n, "%s offset %" PRIu64 " not a multiple of the element size %" PRIu64,
			 name, off, elem);
		return true;
	}
	if (!gs_range_ok(s, buf, off, bytes)) {
		snprintf(what, n, "%s %s+%" PRIu64 " bytes=%" PRIu64 " out of bounds (buffer %" PRIu64
			 " bytes)", name, gs_buf_names[buf], off, bytes, s->buf_bytes[buf]);
		return true;
	}
	return false;
}

/* Whether SEND st sends what send `prev` sent: a SEND the same piece of
 * the same buffer, a *_COPY_SEND what it stored (its dst). */
static bool gs_fanout_of(const gs_step *prev, const gs_step *st)
{
	if (!prev || prev->bytes != st->bytes || prev->op == GS_OP_PUT || prev->op == GS_OP_SIGNAL)
		return false;
	if (prev->op == GS_OP_SEND)
		return prev->src_buf == st->src_buf && prev->src_off == st->src_off;
	if (prev->op == GS_OP_RECV_COPY_SEND || prev->op == GS_OP_RECV_REDUCE_COPY_SEND)
		return prev->dst_buf == st->src_buf && prev->dst_off == st->src_off;
	return false; /* RECV_REDUCE_SEND keeps no copy */
}

static gc_status gs_check_step(const gs_sched *s, int r, int c, uint64_t i, const gs_step *st,
			       char **errmsg)
{
	uint64_t elem = gs_dtype_size(s->p.dtype);
	gs_op op = st->op;

#define GS_FAIL(...)                                                                               \
	do {                                                                                       \
		char *what_ = g_strdup_printf(__VA_ARGS__);                                        \
		*errmsg = g_strdup_printf("rank %d strand %d step %" PRIu64 " (%s): %s", r, c, i,  \
					  gs_op_name(op), what_);                                  \
		g_free(what_);                                                                     \
		return GC_ERR_INPUT;                                                               \
	} while (0)

	if (st->op >= GS_OP__COUNT)
		GS_FAIL("op %u out of range", st->op);
	if ((st->flags & ~GS_STEP__FLAGS) != 0 || st->reserved != 0)
		GS_FAIL("reserved fields not zero (flags=%u reserved=%" PRIu32 ")", st->flags,
			st->reserved);
	if ((st->flags & GS_STEP_FANOUT) && op != GS_OP_SEND)
		GS_FAIL("fan-out flag on an op other than SEND");
	if (st->src_buf >= GS_BUF__COUNT || st->dst_buf >= GS_BUF__COUNT)
		GS_FAIL("buffer out of range (src_buf=%u dst_buf=%u)", st->src_buf, st->dst_buf);
	if (gs_op_sends(op)) {
		if (st->send_peer < 0 || st->send_peer >= s->nranks || st->send_peer == r)
			GS_FAIL("send_peer %" PRId32 " is not another rank", st->send_peer);
	} else if (st->send_peer != -1) {
		GS_FAIL("send_peer %" PRId32 " set but the op does not send", st->send_peer);
	}
	if (gs_op_recvs(op)) {
		if (st->recv_peer < 0 || st->recv_peer >= s->nranks || st->recv_peer == r)
			GS_FAIL("recv_peer %" PRId32 " is not another rank", st->recv_peer);
	} else if (st->recv_peer != -1) {
		GS_FAIL("recv_peer %" PRId32 " set but the op does not receive", st->recv_peer);
	}
	if (op == GS_OP_SIGNAL) {
		if (st->bytes != 8)
			GS_FAIL("bytes %" PRIu64 " is not the 8-byte signal word", st->bytes);
		if (st->dst_off >= s->nsignals)
			GS_FAIL("signal slot %" PRIu64 " out of range (%" PRIu32 " slots)",
				st->dst_off, s->nsignals);
		if (st->src_off != 0)
			GS_FAIL("src offset %" PRIu64 " set but the op reads nothing", st->src_off);
		return GC_OK;
	}
	if (op == GS_OP_WAIT) {
		if (st->src_off >= s->nsignals)
			GS_FAIL("signal slot %" PRIu64 " out of range (%" PRIu32 " slots)",
				st->src_off, s->nsignals);
		if (st->bytes == 0)
			GS_FAIL("threshold 0: a WAIT must wait for at least one signal");
		if (st->dst_off != 0)
			GS_FAIL("dst offset %" PRIu64 " set but the op writes nothing", st->dst_off);
		return GC_OK;
	}
	if (st->bytes % elem)
		GS_FAIL("bytes %" PRIu64 " not a multiple of the element size %" PRIu64, st->bytes,
			elem);
	char what[192];
	if (gs_op_reads_src(op) &&
	    gs_operand_bad(s, "src", st->src_buf, st->src_off, st->bytes, elem, what, sizeof(what)))
		GS_FAIL("%s", what);
	if (gs_op_writes_dst(op) &&
	    gs_operand_bad(s, "dst", st->dst_buf, st->dst_off, st->bytes, elem, what, sizeof(what)))
		GS_FAIL("%s", what);
	if (op == GS_OP_PUT) {
		if (st->dst_off % elem)
			GS_FAIL("remote dst offset %" PRIu64
				" not a multiple of the element size %" PRIu64,
				st->dst_off, elem);
		if (!gs_range_ok(s, st->dst_buf, st->dst_off, st->bytes))
			GS_FAIL("remote dst %s+%" PRIu64 " bytes=%" PRIu64
				" out of bounds of rank %" PRId32 "'s buffer (%" PRIu64 " bytes)",
				gs_buf_names[st->dst_buf], st->dst_off, st->bytes, st->send_peer,
				s->buf_bytes[st->dst_buf]);
	}
#undef GS_FAIL
	return GC_OK;
}

static gc_status gs_check_fields(const gs_sched *s, bool written[GS_BUF__COUNT],
				 bool put_target[GS_BUF__COUNT], uint64_t *nreduce, uint64_t *nput,
				 char **errmsg)
{
	uint64_t nstr = (uint64_t)s->nranks * (uint64_t)s->nstrands;

	if (s->nranks < 1 || s->nstrands < 0) {
		*errmsg =
			g_strdup_printf("bad shape: %d ranks, %d strands", s->nranks, s->nstrands);
		return GC_ERR_INPUT;
	}
	if (s->strands_per_channel < 1 || s->nstrands % s->strands_per_channel != 0) {
		*errmsg = g_strdup_printf("bad shape: %d strands per rank in channels of %d strands",
					  s->nstrands, s->strands_per_channel);
		return GC_ERR_INPUT;
	}
	if (gs_dtype_size(s->p.dtype) == 0) {
		*errmsg = g_strdup_printf("unknown data type %d", (int)s->p.dtype);
		return GC_ERR_INPUT;
	}
	if (s->strand_off[0] != 0) {
		*errmsg = g_strdup_printf("strand offsets do not start at 0");
		return GC_ERR_INPUT;
	}
	for (uint64_t k = 0; k < nstr; k++) {
		if (s->strand_off[k + 1] < s->strand_off[k]) {
			*errmsg = g_strdup_printf("strand offsets decrease at rank %d strand %d",
						  (int)(k / (uint64_t)s->nstrands),
						  (int)(k % (uint64_t)s->nstrands));
			return GC_ERR_INPUT;
		}
	}
	for (int r = 0; r < s->nranks; r++) {
		for (int c = 0; c < s->nstrands; c++) {
			uint64_t len;
			const gs_step *st = gs_sched_strand(s, r, c, &len);
			const gs_step *sent = NULL; /* the strand's last send */

			for (uint64_t i = 0; i < len; i++) {
				gc_status rc = gs_check_step(s, r, c, i, &st[i], errmsg);

				if (rc != GC_OK)
					return rc;
				if ((st[i].flags & GS_STEP_FANOUT) && !gs_fanout_of(sent, &st[i])) {
					*errmsg = g_strdup_printf(
						"rank %d strand %d step %" PRIu64
						" (SEND): fan-out flag, but the strand's previous send "
						"did not send this data (%s %" PRIu64 " bytes at %" PRIu64 ")",
						r, c, i, gs_buf_names[st[i].src_buf], st[i].bytes,
						st[i].src_off);
					return GC_ERR_INPUT;
				}
				if (gs_op_sends(st[i].op))
					sent = &st[i];
				if (gs_op_writes_dst(st[i].op))
					written[st[i].dst_buf] = true;
				if (st[i].op == GS_OP_PUT) {
					written[st[i].dst_buf] = true;
					put_target[st[i].dst_buf] = true;
					(*nput)++;
				}
				*nreduce += gs_op_reduces(st[i].op);
			}
		}
	}
	return GC_OK;
}

/* ---- 3 + 4: symbolic execution --------------------------------------- */

/* The connection a step of strand `strand` uses towards / from a peer. */
static gs_conn *gs_conn_get(gs_vstate *vs, int32_t src, int32_t dst, int strand)
{
	return (gs_conn *)gs_walk_conn(&vs->walk, src, dst, strand);
}

/* The race check's part of a connection (walker conn_fini callback). */
static void gs_conn_fini(gs_wconn *w)
{
	gs_conn *cn = (gs_conn *)w;

	if (cn->sig)
		g_hash_table_destroy(cn->sig);
	if (cn->open)
		g_array_free(cn->open, TRUE);
}

/* The SIGNAL counts of connection cn for slot `slot`. */
static gs_csig *gs_csig_get(gs_conn *cn, uint64_t slot)
{
	gint64 key = (gint64)slot;
	gs_csig *cs;

	if (!cn->sig)
		cn->sig = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	cs = g_hash_table_lookup(cn->sig, &key);
	if (!cs) {
		cs = g_new0(gs_csig, 1);
		g_hash_table_insert(cn->sig, g_memdup2(&key, sizeof(key)), cs);
	}
	return cs;
}

/* Signal slot `slot` of rank r. */
static gs_slot *gs_slot_get(gs_vstate *vs, int32_t r, uint64_t slot)
{
	gint64 key = (gint64)r * (gint64)vs->s->nsignals + (gint64)slot;
	gs_slot *sl = g_hash_table_lookup(vs->slots, &key);

	if (!sl) {
		sl = g_new0(gs_slot, 1);
		sl->key = key;
		sl->w.waiter = -1;
		g_hash_table_insert(vs->slots, &sl->key, sl);
	}
	return sl;
}

static void gs_slot_free(gpointer p)
{
	gs_slot *sl = p;

	if (sl->signalled)
		g_array_free(sl->signalled, TRUE);
	g_free(sl);
}

/* Count every SIGNAL of the schedule per slot and per (connection, slot):
 * the totals that say which SIGNALs a WAIT threshold guarantees. */
static void gs_count_signals(gs_vstate *vs)
{
	const gs_sched *s = vs->s;

	for (int r = 0; r < vs->n; r++) {
		for (int c = 0; c < vs->ns; c++) {
			uint64_t len;
			const gs_step *st = gs_sched_strand(s, r, c, &len);

			for (uint64_t i = 0; i < len; i++) {
				if (st[i].op != GS_OP_SIGNAL)
					continue;
				gs_slot_get(vs, st[i].send_peer, st[i].dst_off)->total++;
				gs_csig_get(gs_conn_get(vs, r, st[i].send_peer, c), st[i].dst_off)
					->total++;
			}
		}
	}
}

/* ---- 5: one-sided races ------------------------------------------------ */

static const gs_put *gs_put_at(const gs_vstate *vs, uint32_t id)
{
	return &g_array_index(vs->puts, gs_put, id - 1);
}

/*
 * Elements [e0, e0 + nel) of buffer b of rank r are accessed (read, or
 * locally written when `write`) by strand c's step i: each must be free of
 * PUTs or settled for this strand. A local write replaces the PUT's data,
 * so the elements are free of it afterwards.
 */
static gc_status gs_race_access(gs_vstate *vs, int r, int c, uint64_t i, gs_op op, int b,
				uint64_t e0, uint64_t nel, bool write)
{
	uint32_t *pd = vs->pend[r * GS_BUF__COUNT + b];
	int64_t k = (int64_t)r * vs->ns + c;

	if (!pd)
		return GC_OK;
	for (uint64_t e = e0; e < e0 + nel; e++) {
		const gs_put *pt;

		if (!pd[e])
			continue;
		pt = gs_put_at(vs, pd[e]);
		if (pt->settled_by != k) {
			*vs->errmsg = g_strdup_printf(
				"rank %d strand %d step %" PRIu64 " (%s): %s %s element %" PRIu64
				" that rank %" PRId32 " strand %" PRId32 " step %" PRIu64
				" (PUT) writes, before a WAIT of this strand covers it (race)",
				r, c, i, gs_op_name(op), write ? "writes" : "reads", gs_buf_names[b],
				e, pt->src, pt->strand, pt->step);
			return GC_ERR_INPUT;
		}
		if (write)
			pd[e] = 0;
	}
	return GC_OK;
}

/* PUT step i of rank r strand c writes elements [e0, e0 + nel) of the
 * peer's buffer b: record it as unsettled there. */
static gc_status gs_race_put(gs_vstate *vs, int r, int c, uint64_t i, const gs_step *st,
			     uint64_t e0, uint64_t nel)
{
	int32_t p = st->send_peer;
	uint32_t **pd = &vs->pend[p * GS_BUF__COUNT + st->dst_buf];
	gs_conn *cn = gs_conn_get(vs, r, p, c);
	gs_put pt = { r, c, i, cn->w.key, 0, -1 };
	uint32_t id;

	if (!*pd)
		*pd = g_new0(uint32_t, MAX(vs->s->buf_bytes[st->dst_buf] / vs->elem, 1));
	for (uint64_t e = e0; e < e0 + nel; e++) {
		const gs_put *old;

		/* PUTs of one connection land in order; others are unordered */
		if (!(*pd)[e] || (old = gs_put_at(vs, (*pd)[e]))->conn == cn->w.key)
			continue;
		*vs->errmsg = g_strdup_printf(
			"rank %d strand %d step %" PRIu64 " (PUT): writes %s element %" PRIu64
			" of rank %" PRId32 " that rank %" PRId32 " strand %" PRId32 " step %" PRIu64
			" (PUT) also writes, unordered with it (race)",
			r, c, i, gs_buf_names[st->dst_buf], e, p, old->src, old->strand, old->step);
		return GC_ERR_INPUT;
	}
	g_array_append_val(vs->puts, pt);
	id = vs->puts->len;
	for (uint64_t e = e0; e < e0 + nel; e++)
		(*pd)[e] = id;
	if (!cn->open)
		cn->open = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	g_array_append_val(cn->open, id);
	return GC_OK;
}

/* A SIGNAL to slot sl (slot number `slot`) on connection cn: it follows
 * every PUT of cn not yet signalled, which become guaranteed by a WAIT
 * threshold of total - later. */
static void gs_race_signal(gs_vstate *vs, gs_conn *cn, gs_slot *sl, uint64_t slot)
{
	gs_csig *cs = gs_csig_get(cn, slot);
	uint64_t later = cs->total - cs->sent - 1;

	cs->sent++;
	if (!cn->open || cn->open->len == 0)
		return;
	if (!sl->signalled)
		sl->signalled = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	for (guint j = 0; j < cn->open->len; j++) {
		uint32_t id = g_array_index(cn->open, uint32_t, j);

		g_array_index(vs->puts, gs_put, id - 1).need = sl->total - later;
		g_array_append_val(sl->signalled, id);
	}
	g_array_set_size(cn->open, 0);
}

/* Strand k passed a WAIT for slot sl >= threshold: settle for k every
 * signalled PUT the threshold guarantees. */
static void gs_race_wait(gs_vstate *vs, gs_slot *sl, int64_t k, uint64_t threshold)
{
	guint j = 0;

	if (!sl->signalled)
		return;
	while (j < sl->signalled->len) {
		uint32_t id = g_array_index(sl->signalled, uint32_t, j);
		gs_put *pt = &g_array_index(vs->puts, gs_put, id - 1);

		if (pt->need <= threshold) {
			pt->settled_by = k;
			g_array_remove_index_fast(sl->signalled, j);
		} else {
			j++;
		}
	}
}

/* Value of element e of buffer b of rank r. */
static gs_val gs_read(gs_vstate *vs, int r, int b, uint64_t e)
{
	gs_val *v = vs->bufs[r * GS_BUF__COUNT + b];

	if (v)
		return v[e];
	if (b == GS_BUF_INPUT)
		return (gs_val){ gs_set_single(vs, r), (uint32_t)e };
	return (gs_val){ 0, 0 };
}

static gs_val *gs_buf_writable(gs_vstate *vs, int r, int b)
{
	gs_val **v = &vs->bufs[r * GS_BUF__COUNT + b];
	uint64_t nel = vs->s->buf_bytes[b] / vs->elem;

	if (!*v) {
		*v = g_new0(gs_val, MAX(nel, 1));
		if (b == GS_BUF_INPUT)
			for (uint64_t e = 0; e < nel; e++)
				(*v)[e] = (gs_val){ gs_set_single(vs, r), (uint32_t)e };
	}
	return *v;
}

/* Apply the data semantics of step st of (r, c, i); R is the received
 * payload (or NULL). Returns the payload to send (or NULL) through *out. */
static gc_status gs_exec_data(gs_vstate *vs, int r, int c, uint64_t i, const gs_step *st, gs_val *R,
			      gs_val **out)
{
	gs_op op = st->op;
	uint64_t nel = st->bytes / vs->elem;
	uint64_t soff = st->src_off / vs->elem, doff = st->dst_off / vs->elem;
	uint32_t last_a = 0, last_b = 0, last_u = 0;
	gc_status rc;

	*out = NULL;
	if (gs_op_reads_src(op)) {
		rc = gs_race_access(vs, r, c, i, op, st->src_buf, soff, nel, false);
		if (rc != GC_OK) {
			g_free(R);
			return rc;
		}
	}
	if (!R && gs_op_reads_src(op)) {
		/* SEND or COPY: the result is L */
		R = g_new(gs_val, MAX(nel, 1));
		for (uint64_t e = 0; e < nel; e++) {
			R[e] = gs_read(vs, r, st->src_buf, soff + e);
			if (R[e].set == 0) {
				*vs->errmsg = g_strdup_printf(
					"rank %d strand %d step %" PRIu64
					" (%s): reads uninitialized %s element %" PRIu64,
					r, c, i, gs_op_name(op), gs_buf_names[st->src_buf],
					soff + e);
				g_free(R);
				return GC_ERR_INPUT;
			}
		}
	} else if (gs_op_reduces(op)) {
		for (uint64_t e = 0; e < nel; e++) {
			gs_val l = gs_read(vs, r, st->src_buf, soff + e);
			int dup = -1;

			if (l.set == 0) {
				*vs->errmsg = g_strdup_printf(
					"rank %d strand %d step %" PRIu64
					" (%s): reduces uninitialized %s element %" PRIu64,
					r, c, i, gs_op_name(op), gs_buf_names[st->src_buf],
					soff + e);
				g_free(R);
				return GC_ERR_INPUT;
			}
			if (l.idx != R[e].idx) {
				*vs->errmsg = g_strdup_printf(
					"rank %d strand %d step %" PRIu64
					" (%s): combines element %" PRIu32 " with element %" PRIu32,
					r, c, i, gs_op_name(op), R[e].idx, l.idx);
				g_free(R);
				return GC_ERR_INPUT;
			}
			if (R[e].set != last_a || l.set != last_b) {
				last_a = R[e].set;
				last_b = l.set;
				last_u = gs_set_union(vs, last_a, last_b, &dup);
				if (!last_u) {
					*vs->errmsg = g_strdup_printf(
						"rank %d strand %d step %" PRIu64
						" (%s), element %" PRIu32 ": rank %d counted twice",
						r, c, i, gs_op_name(op), l.idx, dup);
					g_free(R);
					return GC_ERR_INPUT;
				}
			}
			R[e].set = last_u;
		}
	}
	if (gs_op_writes_dst(op)) {
		gs_val *d = gs_buf_writable(vs, r, st->dst_buf);

		rc = gs_race_access(vs, r, c, i, op, st->dst_buf, doff, nel, true);
		if (rc != GC_OK) {
			g_free(R);
			return rc;
		}
		memmove(d + doff, R, sizeof(gs_val) * nel);
	}
	if (op == GS_OP_PUT) {
		/* the bytes land in the peer's buffer; nothing travels as a message */
		gs_val *d = gs_buf_writable(vs, st->send_peer, st->dst_buf);

		rc = gs_race_put(vs, r, c, i, st, doff, nel);
		if (rc == GC_OK)
			memmove(d + doff, R, sizeof(gs_val) * nel);
		g_free(R);
		return rc;
	}
	if (gs_op_sends(op))
		*out = R;
	else
		g_free(R);
	return GC_OK;
}

/* ---- the walker's callbacks -------------------------------------------- */

static gs_wslot *gs_vslot(void *ctx, int32_t r, uint64_t slot)
{
	return &gs_slot_get(ctx, r, slot)->w;
}

static void gs_vwaited(void *ctx, int64_t k, gs_wslot *sl, const gs_step *st)
{
	gs_vstate *vs = ctx;

	if (vs->data)
		gs_race_wait(vs, (gs_slot *)sl, k, st->bytes);
}

static void gs_vsignalled(void *ctx, int r, int c, const gs_step *st, gs_wslot *sl)
{
	gs_vstate *vs = ctx;

	if (vs->data)
		gs_race_signal(vs, gs_conn_get(vs, r, st->send_peer, c), (gs_slot *)sl,
			       st->dst_off);
}

static gc_status gs_vexec(void *ctx, int r, int c, uint64_t i, const gs_step *st, void *R,
			  void **send)
{
	gs_vstate *vs = ctx;
	gs_val *out = NULL;
	gc_status rc;

	if (!vs->data)
		return GC_OK;
	rc = gs_exec_data(vs, r, c, i, st, R, &out);
	*send = out;
	return rc;
}

static const gs_walk_ops gs_vwalk_ops = {
	.slot = gs_vslot,
	.waited = gs_vwaited,
	.signalled = gs_vsignalled,
	.exec = gs_vexec,
	.conn_fini = gs_conn_fini,
};

/* Symbolic execution of every strand; the walker's own findings are worded
 * here. */
static gc_status gs_exec(gs_vstate *vs)
{
	gs_walk_fail f;
	gc_status rc = gs_walk_run(&vs->walk, &f);

	switch (f.why) {
	case GS_WALK_MISMATCH:
		*vs->errmsg = g_strdup_printf(
			"rank %d strand %d step %" PRIu64 " (%s) receives %" PRIu64
			" bytes from rank %d, but the matching send (rank "
			"%d strand %d step %" PRIu64 ") has %" PRIu64 " bytes",
			f.rank, f.strand, f.step, gs_op_name(f.st->op), f.st->bytes,
			f.st->recv_peer, f.st->recv_peer, f.msg.strand, f.msg.step, f.msg.bytes);
		break;
	case GS_WALK_DEADLOCK:
		if (f.st->op == GS_OP_WAIT)
			*vs->errmsg = g_strdup_printf(
				"deadlock: rank %d strand %d step %" PRIu64
				" (WAIT) waits for signal slot %" PRIu64 " to reach %" PRIu64
				", but it stays at %" PRIu64 " (%" PRIu64 " strands stuck)",
				f.rank, f.strand, f.step, f.st->src_off, f.st->bytes,
				f.slot_count, f.stuck);
		else
			*vs->errmsg = g_strdup_printf(
				"deadlock: rank %d strand %d step %" PRIu64
				" (%s) waits for a message from rank %" PRId32
				" that never comes (%" PRIu64 " strands stuck)",
				f.rank, f.strand, f.step, gs_op_name(f.st->op), f.st->recv_peer,
				f.stuck);
		break;
	case GS_WALK_UNRECEIVED:
		*vs->errmsg = g_strdup_printf("rank %d strand %d step %" PRIu64 " sends %" PRIu64
					      " bytes to rank %d that are never received",
					      f.rank, f.strand, f.step, f.msg.bytes, f.peer);
		break;
	case GS_WALK_OK: break;
	}
	return rc;
}

/* ---- 4: the final contents of OUTPUT ---------------------------------- */

static gc_status gs_check_output_with(gs_vstate *vs, const gs_moe_map *map, uint64_t nout,
				      uint64_t nin, uint64_t blk);

static gc_status gs_check_output(gs_vstate *vs)
{
	const gs_sched *s = vs->s;
	uint64_t nout = s->buf_bytes[GS_BUF_OUTPUT] / vs->elem;
	uint64_t nin = s->buf_bytes[GS_BUF_INPUT] / vs->elem;
	const int G = gs_group_n(&s->p);
	uint64_t blk = nout / (uint64_t)G;

	if (s->p.coll == GS_COLL_ALLTOALL && nout % (uint64_t)G != 0) {
		*vs->errmsg = g_strdup_printf("alltoall OUTPUT of %" PRIu64
					      " elements is not %d equal blocks",
					      nout, G);
		return GC_ERR_INPUT;
	}
	const bool moe = gs_coll_is_moe(s->p.coll);
	gs_moe_map map;
	memset(&map, 0, sizeof(map));
	if (moe) {
		gs_params gp = gs_group_params(&s->p); /* every group routes alike */
		gc_status rc = gs_moe_map_build(&gp, &map, vs->errmsg);
		if (rc != GC_OK)
			return rc;
	}
	vs->moe_src = g_new(int32_t, (size_t)G);
	gc_status rc = gs_check_output_with(vs, moe ? &map : NULL, nout, nin, blk);
	g_free(vs->moe_src);
	vs->moe_src = NULL;
	gs_moe_map_free(&map);
	return rc;
}

/* gs_check_output with the MoE routing (NULL for the other collectives). */
static gc_status gs_check_output_with(gs_vstate *vs, const gs_moe_map *map, uint64_t nout,
				      uint64_t nin, uint64_t blk)
{
	const gs_sched *s = vs->s;
	const int G = gs_group_n(&s->p);
	/* the result is defined on the data ranks; helpers' OUTPUT is theirs */
	for (int r = 0; r < vs->nd; r++) {
		const uint32_t *pd = vs->pend[r * GS_BUF__COUNT + GS_BUF_OUTPUT];
		/* r's communicator and r's index in it */
		const int id = gs_group_id(&s->p, r), l = gs_group_local(&s->p, r);
		const uint32_t full = vs->group_set[id];

		for (uint64_t e = 0; e < nout; e++) {
			gs_val v = gs_read(vs, r, GS_BUF_OUTPUT, e);
			uint32_t want_set, want_idx;
			int miss;

			/* the final read of OUTPUT is after every strand, so a PUT
			 * only needs to be settled for some strand of the rank */
			if (pd && pd[e] && gs_put_at(vs, pd[e])->settled_by < 0) {
				const gs_put *pt = gs_put_at(vs, pd[e]);

				*vs->errmsg = g_strdup_printf(
					"rank %d OUTPUT element %" PRIu64 ": written by rank %" PRId32
					" strand %" PRId32 " step %" PRIu64
					" (PUT), but no WAIT of rank %d covers it (race)",
					r, e, pt->src, pt->strand, pt->step, r);
				return GC_ERR_INPUT;
			}

			switch (s->p.coll) {
			case GS_COLL_ALLREDUCE:
				want_set = full;
				want_idx = (uint32_t)e;
				break;
			case GS_COLL_REDUCESCATTER:
				want_set = full;
				want_idx = (uint32_t)((uint64_t)l * nout + e);
				break;
			case GS_COLL_ALLGATHER:
				if (nin == 0)
					return GC_OK;
				want_set = gs_set_single(
					vs, gs_group_member(&s->p, id, (int)(e / nin)));
				want_idx = (uint32_t)(e % nin);
				break;
			case GS_COLL_SENDRECV:
				want_set = gs_set_single(vs,
							 gs_group_member(&s->p, id, (l - 1 + G) % G));
				want_idx = (uint32_t)e;
				break;
			case GS_COLL_BROADCAST: /* the root's INPUT everywhere */
				want_set = gs_set_single(vs, gs_group_member(&s->p, id, 0));
				want_idx = (uint32_t)e;
				break;
			case GS_COLL_REDUCE: /* the sum, at the root only */
				if (l != 0)
					continue;
				want_set = full;
				want_idx = (uint32_t)e;
				break;
			case GS_COLL_ALLTOALL:
				want_set = gs_set_single(
					vs, gs_group_member(&s->p, id, (int)(e / blk)));
				want_idx = (uint32_t)((uint64_t)l * blk + e % blk);
				break;
			case GS_COLL_DISPATCH:
			case GS_COLL_COMBINE: {
				uint64_t idx;
				int cnt = gs_moe_expect(map, s->p.coll, l, e, vs->moe_src, &idx);

				if (cnt == 0) {
					/* a slot no message uses stays unwritten */
					if (v.set == 0)
						continue;
					*vs->errmsg = g_strdup_printf(
						"rank %d OUTPUT element %" PRIu64
						": written, but no message is routed to it",
						r, e);
					return GC_ERR_INPUT;
				}
				/* one rank, or (forward's combine) the union of the
				 * ranks the token went to */
				want_set = gs_set_single(vs, gs_group_member(&s->p, id, vs->moe_src[0]));
				for (int k = 1; k < cnt; k++) {
					int dup = -1;
					want_set = gs_set_union(
						vs, want_set,
						gs_set_single(vs, gs_group_member(&s->p, id, vs->moe_src[k])),
						&dup);
				}
				want_idx = (uint32_t)idx;
				break;
			}
			default: return GC_OK;
			}
			if (v.set == 0) {
				*vs->errmsg = g_strdup_printf(
					"rank %d OUTPUT element %" PRIu64 ": never written", r, e);
				return GC_ERR_INPUT;
			}
			if (v.idx != want_idx) {
				*vs->errmsg = g_strdup_printf("rank %d OUTPUT element %" PRIu64
							      ": holds input element %" PRIu32
							      ", expected element %" PRIu32,
							      r, e, v.idx, want_idx);
				return GC_ERR_INPUT;
			}
			if (v.set == want_set)
				continue;
			if (want_set == full && (miss = gs_group_missing(vs, v.set, id)) >= 0) {
				*vs->errmsg =
					g_strdup_printf("rank %d OUTPUT element %" PRIu64
							": misses the contribution of rank %d",
							r, e, miss);
			} else if (want_set == full && (miss = gs_outsider_in(vs, v.set, id)) >= 0) {
				*vs->errmsg = g_strdup_printf(
					"rank %d OUTPUT element %" PRIu64
					": combines the INPUT of rank %d, outside its group",
					r, e, miss);
			} else if (want_set == full) {
				*vs->errmsg = g_strdup_printf(
					"rank %d OUTPUT element %" PRIu64
					": combines the INPUT of helper rank %d, which holds no data",
					r, e, gs_helper_in(vs, v.set));
			} else {
				*vs->errmsg = g_strdup_printf(
					"rank %d OUTPUT element %" PRIu64
					": holds data of rank %d%s, expected rank %d",
					r, e, gs_set_first(vs, v.set, false),
					v.set > (uint32_t)vs->n ? " and others" : "",
					gs_set_first(vs, want_set, false));
			}
			return GC_ERR_INPUT;
		}
	}
	return GC_OK;
}

static void gs_vstate_init(gs_vstate *vs, const gs_sched *s, bool data, char **errmsg)
{
	memset(vs, 0, sizeof(*vs));
	vs->s = s;
	vs->n = s->nranks;
	vs->nd = s->nranks - s->nhelpers;
	vs->ns = s->nstrands;
	vs->spc = s->strands_per_channel;
	vs->elem = gs_dtype_size(s->p.dtype);
	vs->data = data;
	vs->errmsg = errmsg;
	vs->nw = (uint32_t)((vs->n + 63) / 64);
	vs->tmp = g_new0(uint64_t, vs->nw);
	vs->sets = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(vs->sets, NULL); /* id 0: uninitialized */
	vs->set_ids = g_hash_table_new(gs_bset_hash, gs_bset_equal);
	vs->unions = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	gs_walk_init(&vs->walk, s, &gs_vwalk_ops, vs, GS_VALIDATE_QUANTUM, sizeof(gs_conn));
	vs->bufs = g_new0(gs_val *, (size_t)vs->n * GS_BUF__COUNT);
	vs->pend = g_new0(uint32_t *, (size_t)vs->n * GS_BUF__COUNT);
	vs->puts = g_array_new(FALSE, FALSE, sizeof(gs_put));
	vs->slots = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, gs_slot_free);
	gs_count_signals(vs);
	if (!data)
		return;
	/* singletons first (id = rank + 1), then the full set */
	for (int r = 0; r < vs->n; r++) {
		memset(vs->tmp, 0, sizeof(uint64_t) * vs->nw);
		vs->tmp[r / 64] = 1ull << (r % 64);
		gs_set_intern(vs, vs->tmp);
	}
	/* every member's contribution, per communicator (helpers contribute
	 * none) */
	const int ng = gs_group_count(&s->p), G = gs_group_n(&s->p);
	vs->group_set = g_new(uint32_t, ng);
	for (int id = 0; id < ng; id++) {
		memset(vs->tmp, 0, sizeof(uint64_t) * vs->nw);
		for (int j = 0; j < G; j++) {
			int r = gs_group_member(&s->p, id, j);

			vs->tmp[r / 64] |= 1ull << (r % 64);
		}
		vs->group_set[id] = gs_set_intern(vs, vs->tmp);
	}
}

static void gs_vstate_fini(gs_vstate *vs)
{
	for (size_t k = 0; k < (size_t)vs->n * GS_BUF__COUNT; k++) {
		g_free(vs->bufs[k]);
		g_free(vs->pend[k]);
	}
	g_free(vs->bufs);
	g_free(vs->pend);
	g_free(vs->group_set);
	g_array_free(vs->puts, TRUE);
	g_hash_table_destroy(vs->slots);
	gs_walk_fini(&vs->walk);
	g_hash_table_destroy(vs->unions);
	g_hash_table_destroy(vs->set_ids);
	g_ptr_array_free(vs->sets, TRUE);
	g_free(vs->tmp);
}

/* ---- 3: connection ownership -------------------------------------- */

/* gs_sched_check_conns (contract in gs_impl.h) */
typedef struct gs_owner {
	int32_t sender, receiver; /* strand index at src / dst, or -1 */
} gs_owner;

gc_status gs_sched_check_conns(const gs_sched *s, char **errmsg)
{
	int n = s->nranks, spc = s->strands_per_channel;
	GHashTable *own = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	gc_status rc = GC_OK;

	for (int r = 0; r < n && rc == GC_OK; r++) {
		for (int c = 0; c < s->nstrands && rc == GC_OK; c++) {
			uint64_t len;
			const gs_step *st = gs_sched_strand(s, r, c, &len);
			int32_t last[2] = { -1, -1 }; /* peers already checked: sends, receives */

			for (uint64_t i = 0; i < len && rc == GC_OK; i++) {
				for (int dir = 0; dir < 2; dir++) {
					bool on = dir == 0 ? gs_op_sends(st[i].op)
							   : gs_op_recvs(st[i].op);
					int32_t peer = dir == 0 ? st[i].send_peer : st[i].recv_peer;
					int32_t src = dir == 0 ? r : peer, dst = dir == 0 ? peer : r;
					gint64 key = gs_conn_key(s, src, dst, c);
					gs_owner *o;
					int32_t *who;

					/* bad peers are the field checks' business */
					if (!on || peer < 0 || peer >= n || peer == last[dir])
						continue;
					last[dir] = peer;
					o = g_hash_table_lookup(own, &key);
					if (!o) {
						o = g_new(gs_owner, 1);
						o->sender = o->receiver = -1;
						g_hash_table_insert(own, g_memdup2(&key, sizeof(key)), o);
					}
					who = dir == 0 ? &o->sender : &o->receiver;
					if (*who < 0) {
						*who = c;
					} else if (*who != c) {
						*errmsg = g_strdup_printf(
							"connection %d->%d channel %d has two %s "
							"strands: %d and %d (rank %d strand %d step "
							"%" PRIu64 ", %s)",
							src, dst, c / spc,
							dir == 0 ? "sending" : "receiving", *who, c, r, c,
							i, gs_op_name(st[i].op));
						rc = GC_ERR_INPUT;
						break;
					}
				}
			}
		}
	}
	g_hash_table_destroy(own);
	return rc;
}

gc_status gs_sched_validate(const gs_sched *s, char **errmsg)
{
	bool written[GS_BUF__COUNT] = { false }, put_target[GS_BUF__COUNT] = { false };
	uint64_t elem, state = 0, nreduce = 0, nput = 0, nsets, nn;
	bool data = true;
	gs_vstate vs;
	gc_status rc;

	*errmsg = NULL;
	rc = gs_check_fields(s, written, put_target, &nreduce, &nput, errmsg);
	if (rc != GC_OK)
		return rc;
	rc = gs_sched_check_conns(s, errmsg);
	if (rc != GC_OK)
		return rc;

	/*
	 * Interned rank sets: each reducing step creates at most a few new
	 * ones, and a ring cannot produce more than nstrands * n^2 distinct arcs;
	 * each costs n / 8 bytes plus table overhead. This is what bounds the
	 * data check at thousands of ranks.
	 */
	nn = (uint64_t)s->nranks;
	nsets = MIN(nreduce, (uint64_t)MAX(s->nstrands, 1) * nn * nn);
	if (nsets > GS_VALIDATE_DATA_LIMIT / ((nn + 63) / 64 * 8 + 96))
		data = false;
	else
		state += nsets * ((nn + 63) / 64 * 8 + 96);

	/* data state: 8 bytes per element of every written buffer of every rank */
	elem = gs_dtype_size(s->p.dtype);
	for (int b = 0; b < GS_BUF__COUNT; b++) {
		uint64_t nel = s->buf_bytes[b] / elem;

		if (nel >= (1ull << 32))
			data = false;
		else if (written[b] && nel > 0) {
			/* nel < 2^32 and nranks < 2^31: compare without overflow */
			if (nel * sizeof(gs_val) > GS_VALIDATE_DATA_LIMIT / (uint64_t)s->nranks)
				data = false;
			else
				state += nel * sizeof(gs_val) * (uint64_t)s->nranks;
			/* the PUT id per element of a PUT target */
			if (put_target[b])
				state += nel * sizeof(uint32_t) * (uint64_t)s->nranks;
		}
	}
	/* a record per PUT step; ids are 32-bit */
	if (nput >= (1ull << 32) || nput > GS_VALIDATE_DATA_LIMIT / sizeof(gs_put))
		data = false;
	else
		state += nput * (sizeof(gs_put) + 2 * sizeof(uint32_t));
	if (state > GS_VALIDATE_DATA_LIMIT)
		data = false;

	gs_vstate_init(&vs, s, data, errmsg);
	rc = gs_exec(&vs);
	if (rc == GC_OK && data)
		rc = gs_check_output(&vs);
	gs_vstate_fini(&vs);
	return rc;
}
