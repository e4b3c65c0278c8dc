/* SPDX-License-Identifier: MIT */
/*
 * gm_coll: event-driven execution of a schedule over the flow network (see
 * gm_coll.h for how steps map onto the models).
 *
 * Per strand the executor keeps a cursor and a window of up to WIN steps
 * (fewer when there are so many strands that the windows would pass
 * WINBUF_MAX bytes) fetched
 * from the generator. Per connection it keeps the credit in use (bytes sent
 * whose buffer space has not come back yet) and a FIFO of message sizes with
 * four counters: credited <= consumed <= delivered <= sent. A consumed
 * message's space returns to the sender one route latency later (the
 * receiver's head-pointer write travels back; routes are symmetric). Space
 * is reclaimed lazily when a sender needs it; an event is scheduled only to
 * wake a sender that is actually waiting.
 * A strand that cannot proceed parks itself on the connection it waits for;
 * whoever changes that connection wakes it through a FIFO ready queue, so
 * there is no recursion and the order of wake-ups is deterministic.
 */
#include "gm_coll.h"

#include "../../core/gc_mem.h"
#include "../../core/gc_rng.h"

#include <glib.h>
#include <math.h>
#include <string.h>

/* A fill writes its whole window, and a strand reads it one step per
 * visit, after every other strand's visit: with thousands of strands a
 * long window's later steps have left the cache by then (64 steps: the
 * flat 4096-GPU ring's windows take 10 MB and it runs a quarter slower
 * than with 16, `make bench`), and a short one pays a fill call every
 * few steps (4 steps: as slow as 64). */
#define WIN 16
#define WINBUF_MAX (256u << 20)
#define NONE UINT32_MAX

enum {
	EV_LAUNCH = 1,
	EV_DELIVER = 2,
	EV_CREDIT = 3,
	EV_SIGNAL = 4,
	EV_DELIVER_CP = 5,
	EV_SIGNAL_CP = 6,
	EV_XP_GPU = 7,	 /* a strand's GPU part of a transport's message is done */
	EV_XP_READY = 8, /* a connection's next message may go on the wire */
	EV_XQ_READY = 9, /* a connection's next one-sided message may go on the wire */
	EV_XS_WAKE = 10, /* a rank's proxy thread (xpsrv) is free or has work again */
	EV_XS_ACK = 11,	 /* an acknowledgement of an emulated atomic is back at its rank */
	EV_REDUCE = 12	 /* a strand's host reduction of what it received is done */
};
enum { S_IDLE, S_WAIT_RECV, S_WAIT_CREDIT, S_WAIT_SIGNAL, S_SENDING, S_DONE };

typedef struct strand {
	uint64_t pos, len;
	uint32_t wi, win_n; /* the current step's place in its window; the window's steps */
	uint32_t rank, ch;
	uint8_t state, recvd, queued; /* recvd: 1 received, 2 and reduced (reduce_Bps) */
	uint8_t after_put; /* a transport's PUT was its last message (a SIGNAL next is its signal) */
	uint32_t next_wait; /* next strand parked on the same signal slot */
	/* the last two connections it sent on and received on: a tree's
	 * strand alternates between its children */
	uint32_t send_conn, recv_conn, send_alt, recv_alt;
	int64_t step_start;
} strand;

/* A message on a connection: its size, and once consumed, the time its
 * buffer space is back at the sender. */
typedef struct msg {
	uint64_t bytes;
	int64_t credit_at;
} msg;

/* Three cache lines: counters and FIFO geometry, then the route, then
 * the inline FIFO. */
typedef struct conn {
	uint32_t src, dst, ch;
	uint32_t waiting_send, waiting_recv;
	int16_t nhops;
	uint8_t proxied; /* the NIC sends the FIFO in order: 1 sim.net_send proxy, 2 a
			  * transport (its messages wait for their control path) */
	uint8_t busy;	 /* proxied: a message of the FIFO is on the wire (1), or the
			  * next one waits for its control path (2) */
	uint64_t inflight;
	uint64_t qmask;
	uint64_t nsent, ndelivered, nconsumed;
	uint64_t ncredited;
	int64_t lat_ps;
	uint32_t route[GM_MAX_HOPS];
	uint64_t nflowed; /* proxied: messages put on the wire (<= nsent) */
	union { /* FIFO of messages: inline while qmask < 4 */
		msg inl[4];
		msg *heap;
	} q;
} conn;
_Static_assert(sizeof(conn) == 192, "conn: three cache lines");
_Static_assert(sizeof(strand) == 64, "strand: one cache line");

/* A connection's totals, for the check. */
typedef struct conn_tot {
	uint64_t pushed, reclaimed;
} conn_tot;

/* Critical path (gm_cpath.h): per message of a connection, the vector it
 * arrived with and the one its credit travels back with (parallel to the
 * message FIFO, same mask); per connection, for the proxy, the vector of
 * the transfer on the wire and where the NIC's last one ended. */
typedef struct cpmsg {
	gm_cpv d, cr;
} cpmsg;

typedef struct cpconn {
	cpmsg *q;
	gm_cpv nic, flv;
	gm_cpv xnic, xflv; /* the same for its transport's one-sided messages */
} cpconn;

/* A vector on its way (a delivery or a signal scheduled one route latency
 * later): the event's argument is its slot in a pool. */
typedef struct cpcarry {
	uint64_t what; /* connection, or signal key */
	gm_cpv v;
} cpcarry;

/* A transport's one-sided message (PUT or SIGNAL) waiting on its
 * connection, in order, for its control path and the wire. */
typedef struct xpmsg {
	uint64_t bytes;
	uint64_t key; /* SIGNAL: its signal_key */
	int64_t ready;	/* when it may go on the wire; in a proxy's queues (xpsrv),
			 * when it is there for the thread */
	uint32_t cpi;	/* critical path: its vector's pool slot (cp_carry) */
	uint32_t conn;	/* in a proxy's queues: its connection */
	uint8_t signal; /* 0 for a PUT, else 1 + the signal's gm_xport_msg kind */
	uint8_t kind;	/* in a proxy's queues: its gm_xport_msg kind */
} xpmsg;

typedef struct xpq {
	xpmsg *v; /* ring of cap (a power of two) */
	uint32_t head, n, cap;
	uint8_t busy; /* 1: the head is on the wire; 2: it waits for its control path */
	/* packet mode: the signals that left the first link and have not
	 * landed yet, in order (a ring as v) */
	xpmsg *lv;
	uint32_t lhead, ln, lcap;
} xpq;

/* NVSHMEM IBRC with GDRCopy atomics (gm_xport amo_acked): each rank's
 * proxy thread runs as a server of its own, event by event, since what it
 * does next depends on what comes back. Before each request it posts it
 * polls its receive queue and processes at most one incoming atomic
 * (nvshmemt_ib_common_check_poll_avail -> progress_recv), and while more
 * than the window of its own atomics are unacknowledged it only does that
 * (ibrc.cpp progress_recv). */
typedef struct xpring {
	xpmsg *v; /* power-of-two capacity */
	uint32_t head, n, cap;
} xpring;

typedef struct xpsrv {
	xpring req, in; /* its GPU's requests; incoming atomics */
	uint64_t out;	/* its atomics not yet acknowledged */
	bool woken;	/* an EV_XS_WAKE is pending for wake_at */
	int64_t wake_at;
	bool in_next;	/* the next turn takes an incoming atomic first */
	uint32_t batch; /* requests still to take from the last read of its FIFO */
} xpsrv;

typedef struct rankst {
	uint32_t strands_done;
	int iter;
	int64_t finish;
} rankst;

/* A connection over a lossy link: its packets' loss probability, the
 * messages it has landed (the next one's place in its FIFO) and when its
 * latest one is delivered (a later one never overtakes it). */
typedef struct lossc {
	double p;
	uint64_t nlanded;
	int64_t until;
} lossc;

/* A slot of the connection table: key + 1 (0: empty) and the connection. */
typedef struct hslot {
	uint64_t key;
	uint32_t val;
} hslot;

typedef struct sim {
	ge_engine eng;
	gm_net net;
	uint32_t ent;
	const gt_topo *topo;
	const gs_gen *gen;
	const gm_coll_opts *o;
	bool noop; /* a collective of no bytes: NCCL returns without a kernel */
	int nranks, nstr;
	/* folded (gm_coll_fold_ranks): nranks of the schedule's nreal ranks
	 * are simulated and stand for every block of nranks */
	bool folded;
	int nreal;
	/* channel-folded (gm_coll_fold_channels): the channels c with
	 * c mod cgroup < cshift of every rank are simulated and stand for
	 * all, cfold channels each; and where groups repeat (gs_gen
	 * chan_repeat), only the first ckeep groups (0: all), each for crep
	 * (1: none), on links of 1 / crep of their bandwidth */
	int cfold, cshift, cgroup, ckeep, crep;
	int spc; /* strands per channel: a connection's channel = strand / spc */
	/* the strands simulated: those with steps (a channel-folded run has
	 * none on the channels others stand for), or, for a rank with none,
	 * its last (which ends at once); rank r's are rfirst[r] ..
	 * rfirst[r + 1] - 1 */
	uint32_t nstrands;
	strand *strands;
	uint32_t *rfirst;
	gs_step *winbuf; /* win = 1 << wshift steps per strand */
	uint32_t win, wshift;
	rankst *ranks;
	uint32_t nsig;	     /* signal slots per rank */
	uint64_t *signals;   /* nranks x nsig x iters counters: a slot's SIGNALs by the
				iteration of their sender (key: slot iters + iteration) */
	uint32_t iters;
	uint32_t *sig_wait;  /* per slot: first parked strand, or NONE */
	conn *conns;
	/* per connection, in check mode: bytes pushed and reclaimed in all
	 * (inflight is their difference) */
	conn_tot *ctot;
	uint32_t nconns, capconns;
	hslot *hs; /* open addressing; a lookup that hits reads one slot */
	uint64_t hcap;
	uint32_t *ready; /* FIFO ring of runnable strands, power-of-two size */
	uint32_t rhead, rcount, rmask;
	uint32_t ranks_done;
	uint64_t steps_done, messages;
	uint64_t steps_total; /* of the whole run, for on_progress */
	double est_s;	      /* its estimated wall time (gm_coll_estimate_s) */
	int64_t end_time;
	gc_status err;
	/* critical path (o->critical_path, flow mode) */
	bool cp;
	gm_cpv *scp;	  /* per strand, accounted up to where it is */
	cpconn *ccp;	  /* parallel to conns */
	gm_cpv *sigcp;	  /* per signal key: the latest arrival */
	cpcarry *pool;	  /* vectors on their way */
	uint32_t *pfree;  /* free pool slots */
	uint32_t npool, cappool, npfree;
	gm_cpv cpend;	  /* of the strand that finished last */
	/* o->on_step: per strand, when its current step's message was there
	 * and when its send was issued (-1: not yet) */
	struct stamp {
		int64_t recv, ready;
	} *stamps;
	/* the transport (o->xport, NULL: none): per rank its proxy thread's
	 * free time, turn size and busy time; per link (NICs') the message
	 * stage's free and busy time; per connection the one-sided queue; the
	 * GPU part's time per message kind */
	const gm_xport *xp;
	int64_t *xp_proxy, *xp_proxy_busy, *xp_nic, *xp_nic_busy;
	uint32_t *xp_turn;
	xpq *xq;
	/* per (rank, peer, queue) of gpu.queues, the queue pair's free time
	 * (NVSHMEM IBGDA's RC queue pairs are per peer, shared by the CTAs) */
	GHashTable *xp_sq;
	uint64_t xp_msgs;
	/* lossy links (a fault with loss > 0; NULL: none): per link its
	 * packets' loss probability, per connection its route's and when its
	 * last message is delivered (in-order delivery), the draws' stream */
	double *link_loss;
	lossc *lc;
	gc_rng loss_rng;
	uint64_t retransmits; /* lost last packets, each an ACK timeout */
	/* links that stop (faults.down; NULL: none): per link when, per
	 * connection when its route does (INT64_MAX: never), and the messages
	 * lost on them */
	int64_t *link_down, *cdown;
	uint64_t lost;
	xpsrv *xw;	    /* per rank, NULL unless the transport acknowledges atomics */
	uint64_t xw_window; /* unacknowledged atomics a proxy keeps at most */
} sim;

static inline msg *cq(conn *c) { return c->qmask < 4 ? c->q.inl : c->q.heap; }
static inline const msg *cq_c(const conn *c) { return c->qmask < 4 ? c->q.inl : c->q.heap; }

static inline uint64_t conn_key(uint32_t src, uint32_t dst, uint32_t ch)
{
	return ((uint64_t)src << 40) | ((uint64_t)dst << 16) | ch;
}

static inline uint64_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	return k;
}

static void hash_grow(sim *m)
{
	uint64_t oldcap = m->hcap;
	hslot *old = m->hs;
	m->hcap = oldcap ? oldcap * 2 : 1024;
	m->hs = g_new0(hslot, m->hcap);
	gc_hugepages(m->hs, m->hcap * sizeof(hslot));
	for (uint64_t i = 0; i < oldcap; i++) {
		if (!old[i].key)
			continue;
		uint64_t h = hash64(old[i].key) & (m->hcap - 1);
		while (m->hs[h].key)
			h = (h + 1) & (m->hcap - 1);
		m->hs[h] = old[i];
	}
	g_free(old);
}

/* Folded: the connection (src, dst) as seen from the first block, moved
 * by whole blocks so that its sender is simulated (its receiver, dst mod
 * nranks, is too). */
static inline void fold_pair(const sim *m, uint32_t *src, uint32_t *dst)
{
	const uint32_t q = (uint32_t)m->nranks, n = (uint32_t)m->nreal, sh = *src - *src % q;
	*src -= sh;
	*dst = (*dst + n - sh) % n;
}

/* Folded: connection c's route over the first block's images of its links
 * (gt_topo_fold_link), or channel-folded over the images on its nodes'
 * first GPUs (gt_topo_rotate_link); no link twice, or a flow would count
 * on it twice in one place and once in another. */
static void fold_route(sim *m, conn *c)
{
	for (int h = 0; h < c->nhops; h++) {
		c->route[h] = m->folded ? gt_topo_fold_link(m->topo, c->route[h], m->nranks)
					: gt_topo_rotate_link(m->topo, c->route[h], m->cshift, m->cgroup);
		for (int k = 0; k < h; k++)
			if (c->route[k] == c->route[h])
				m->err = ge_fail(&m->eng, GC_ERR_INTERNAL,
						 "folded run: the route from rank %u to rank %u crosses "
						 "the images of one link twice (%s); run it with "
						 "sim.fold false",
						 c->src, c->dst, m->net.info[c->route[h]].name);
	}
}

/* The simulated rank that receives on connection c: its receiver, or
 * folded, the receiver's image in the first block. */
static inline uint32_t conn_receiver(const sim *m, const conn *c)
{
	return c->dst % (uint32_t)m->nranks;
}

static uint32_t conn_get(sim *m, uint32_t src, uint32_t dst, uint32_t ch)
{
	if (m->folded)
		fold_pair(m, &src, &dst);
	uint64_t key = conn_key(src, dst, ch) + 1;
	if (m->hcap) {
		uint64_t h = hash64(key) & (m->hcap - 1);
		while (m->hs[h].key) {
			if (m->hs[h].key == key)
				return m->hs[h].val;
			h = (h + 1) & (m->hcap - 1);
		}
	}
	if ((uint64_t)(m->nconns + 1) * 2 > m->hcap)
		hash_grow(m);
	if (m->nconns == m->capconns) {
		uint32_t old = m->capconns;
		m->capconns = old ? old * 2 : 256;
		m->conns = gc_aligned_renew(m->conns, old, m->capconns, sizeof(conn));
		m->ctot = g_renew(conn_tot, m->ctot, m->capconns);
		if (m->cp)
			m->ccp = g_renew(cpconn, m->ccp, m->capconns);
		if (m->xp)
			m->xq = g_renew(xpq, m->xq, m->capconns);
		if (m->link_loss)
			m->lc = g_renew(lossc, m->lc, m->capconns);
		if (m->link_down)
			m->cdown = g_renew(int64_t, m->cdown, m->capconns);
	}
	uint32_t id = m->nconns++;
	conn *c = &m->conns[id];
	memset(c, 0, sizeof(*c));
	m->ctot[id] = (conn_tot){0, 0};
	if (m->cp)
		m->ccp[id] = (cpconn){.q = g_new0(cpmsg, 4)};
	if (m->xp)
		m->xq[id] = (xpq){0};
	c->src = src;
	c->dst = dst;
	c->ch = ch;
	c->waiting_send = c->waiting_recv = NONE;
	c->qmask = 3;
	c->nhops = (int16_t)gt_topo_route_ch(m->topo, (int)src, (int)dst, (int)ch, c->route);
	if (m->folded || m->cfold > 1)
		fold_route(m, c);
	c->lat_ps = gm_net_route_latency(&m->net, c->route, c->nhops);
	if (m->o->async_sends && !m->net.pkt_bytes && c->nhops > 0)
		c->proxied = 1;
	else if (m->xp || (m->o->net_send_proxy && !m->net.pkt_bytes))
		for (int h = 0; h < c->nhops; h++)
			if (m->net.info[c->route[h]].kind == GM_LINK_NIC)
				c->proxied = m->xp ? 2 : 1;
	if (m->link_down) {
		int64_t t = INT64_MAX;
		for (int k = 0; k < c->nhops; k++)
			t = MIN(t, m->link_down[c->route[k]]);
		m->cdown[id] = t;
	}
	if (m->link_loss) {
		double keep = 1.0;
		for (int k = 0; k < c->nhops; k++)
			keep *= 1.0 - m->link_loss[c->route[k]];
		m->lc[id] = (lossc){1.0 - keep, 0, 0};
	}
	uint64_t h = hash64(key) & (m->hcap - 1);
	while (m->hs[h].key)
		h = (h + 1) & (m->hcap - 1);
	m->hs[h] = (hslot){.key = key, .val = id};
	return id;
}

/* A connection whose sends are fan-out (GS_STEP_FANOUT) leaves without
 * crossing the sender's channel link; decided at its first send, before
 * any message has used the route. The link has no latency, so lat_ps
 * stands. */
static G_GNUC_NO_INLINE void conn_fanout(sim *m, conn *c)
{
	c->nhops = (int16_t)gt_topo_route_fanout(m->topo, c->route, c->nhops);
}

/* Double c's message FIFO (and its critical-path vectors), keeping the
 * messages not yet credited in their places. */
static G_GNUC_NO_INLINE void conn_grow(sim *m, conn *c)
{
	uint64_t oldn = c->qmask + 1;
	msg *nq = g_new(msg, oldn * 2);
	for (uint64_t i = c->ncredited; i < c->nsent; i++)
		nq[i & (oldn * 2 - 1)] = cq(c)[i & c->qmask];
	if (c->qmask >= 4)
		g_free(c->q.heap);
	c->q.heap = nq;
	if (m->cp) {
		cpconn *cc = &m->ccp[c - m->conns];
		cpmsg *nc = g_new(cpmsg, oldn * 2);
		for (uint64_t i = c->ncredited; i < c->nsent; i++)
			nc[i & (oldn * 2 - 1)] = cc->q[i & c->qmask];
		g_free(cc->q);
		cc->q = nc;
	}
	c->qmask = oldn * 2 - 1;
}

static inline void conn_push(sim *m, conn *c, uint64_t bytes)
{
	if (c->nsent - c->ncredited == c->qmask + 1)
		conn_grow(m, c);
	cq(c)[c->nsent++ & c->qmask] = (msg){.bytes = bytes, .credit_at = INT64_MAX};
}

static void wake(sim *m, uint32_t sid)
{
	strand *s = &m->strands[sid];
	if (s->queued)
		return;
	s->queued = 1;
	m->ready[(m->rhead + m->rcount++) & m->rmask] = sid;
}

#define PROXY_TAG (UINT64_C(1) << 63)
#define XQ_TAG (UINT64_C(1) << 62)
/* Packet mode: what a landing is (the low two bits of its tag, the rest
 * the connection or the signal key) */
enum { LAND_MSG = 0, LAND_SIGNAL = 1, LAND_XQ_SIGNAL = 2 };

/* Critical path: park a vector on its way; the event carries the slot. */
static uint32_t cp_carry(sim *m, uint64_t what, const gm_cpv *v)
{
	uint32_t i;
	if (m->npfree > 0) {
		i = m->pfree[--m->npfree];
	} else {
		if (m->npool == m->cappool) {
			m->cappool = m->cappool ? m->cappool * 2 : 256;
			m->pool = g_renew(cpcarry, m->pool, m->cappool);
			m->pfree = g_renew(uint32_t, m->pfree, m->cappool);
		}
		i = m->npool++;
	}
	m->pool[i] = (cpcarry){.what = what, .v = *v};
	return i;
}

/* Take the vector of slot i off the pool. */
static cpcarry cp_take(sim *m, uint64_t i)
{
	cpcarry k = m->pool[i];
	m->pfree[m->npfree++] = (uint32_t)i;
	return k;
}

/* Critical path: the next message of c to be delivered arrives now, with
 * v (advanced to now by its time on the way). */
static void cp_arrive(sim *m, conn *c, gm_cpv v)
{
	gm_cpv_to(&v, m->eng.now, GM_CP_LATENCY);
	m->ccp[c - m->conns].q[c->ndelivered & c->qmask].d = v;
}

/* Critical path: strand sid consumes the next message of c. A receiver
 * that waited takes the message's path; its credit goes back from where
 * the receiver is. */
static G_GNUC_NO_INLINE void cp_consume(sim *m, conn *c, uint32_t sid)
{
	cpmsg *cm = &m->ccp[c - m->conns].q[c->nconsumed & c->qmask];
	gm_cpv_join(&m->scp[sid], &cm->d);
	cm->cr = m->scp[sid];
	gm_cpv_to(&cm->cr, m->eng.now + c->lat_ps, GM_CP_LATENCY);
	if (c->proxied == 2) /* the transport's way back (gm_xport credit_ps) */
		gm_cpv_to(&cm->cr, m->eng.now + c->lat_ps + m->xp->credit_ps, GM_CP_CONTROL);
}

/* Critical path: a signal of key lands now, with v. */
static void cp_signal(sim *m, uint64_t key, gm_cpv v)
{
	gm_cpv_to(&v, m->eng.now, GM_CP_LATENCY);
	gm_cpv_join(&m->sigcp[key], &v);
}

static void proxy_pump(sim *m, conn *c);
static inline void schedule_delivery(sim *m, conn *c, ge_time at, const gm_cpv *v);
static int64_t xp_control(sim *m, const conn *c, gm_xport_msg k, int64_t t, gm_cpv *v);
static int64_t xp_gpu_end(sim *m, const conn *c, gm_xport_msg k, uint32_t sidx, int64_t t);
static int64_t xp_receive(sim *m, const conn *c, gm_xport_msg k, int64_t t, gm_cpv *v);
static bool xp_gpu_part(sim *m, strand *s, uint32_t sid, const gs_step *st, int64_t until);
static void xq_push(sim *m, conn *c, uint64_t bytes, uint8_t signal, uint64_t key, int64_t ready,
		    const gm_cpv *v);
static inline gm_xport_msg xp_send_kind(const sim *m);
static void xp_issue(sim *m, conn *c, gm_xport_msg k, uint64_t bytes, uint8_t signal, uint64_t key,
		     int64_t t, gm_cpv *v);

/* Reclaim the buffer space of consumed messages whose credit has travelled
 * back by now (lazily: no event is needed unless a sender is waiting); a
 * sender that waited for it takes the critical path of the credit (into,
 * NULL without the critical path). */
static inline __attribute__((always_inline)) void reclaim(sim *m, conn *c, gm_cpv *into)
{
	while (c->ncredited < c->nconsumed) {
		const msg *q = &cq(c)[c->ncredited & c->qmask];
		if (q->credit_at > m->eng.now)
			break;
		c->inflight -= q->bytes;
		if (m->eng.check)
			m->ctot[c - m->conns].reclaimed += q->bytes;
		if (into)
			gm_cpv_join(into, &m->ccp[c - m->conns].q[c->ncredited & c->qmask].cr);
		c->ncredited++;
	}
}

/* The counter a SIGNAL step of strand s on connection c increments: the
 * peer's slot, in the iteration s's rank is in. */
static inline uint64_t signal_key(const sim *m, const strand *s, const conn *c, const gs_step *st)
{
	uint64_t slot = (uint64_t)conn_receiver(m, c) * m->nsig + st->dst_off;
	return slot * m->iters + (uint64_t)m->ranks[s->rank].iter;
}

static const gs_step *cur_step(sim *m, strand *s, uint32_t sid)
{
	if (s->wi >= s->win_n) {
		uint64_t left = s->len - s->pos;
		s->wi = 0;
		s->win_n = left < m->win ? (uint32_t)left : m->win;
		m->gen->ops->fill(m->gen, (int)s->rank, (int)s->ch, s->pos, s->win_n,
				  &m->winbuf[(uint64_t)sid << m->wshift]);
	}
	return &m->winbuf[((uint64_t)sid << m->wshift) + s->wi];
}

static void trace_step(sim *m, strand *s, const gs_step *st)
{
	ge_trace *tr = m->o->trace;
	if (!tr || !tr->f)
		return;
	char args[96];
	int peer = st->send_peer >= 0 ? st->send_peer : st->recv_peer;
	snprintf(args, sizeof(args), "\"bytes\":%llu,\"peer\":%d,\"step\":%llu",
		 (unsigned long long)st->bytes, peer, (unsigned long long)s->pos);
	ge_trace_slice(tr, (int)s->rank + 1, (int)s->ch, gs_op_name((gs_op)st->op), s->step_start,
		       m->eng.now - s->step_start, args);
}

/* When GPU `rank` may start operation `iter`: its host thread (one per
 * gpus_per_thread GPUs, consecutive ranks) enqueues every operation on its
 * GPUs in turn, enqueue_ps each, so the operation of the GPU in slot j is
 * enqueued (iter * G + j + 1) enqueue_ps after the start, and its kernel
 * runs the launch latency after its enqueue began. The first GPU of a
 * thread driving one GPU thus starts at the launch latency, as before. */
static double host_ready(const sim *m, uint32_t rank, int iter)
{
	if (m->noop)
		return 0;
	if (rank >= (uint32_t)m->gen->p.nranks) /* the switch's engines: no host */
		return (double)m->topo->launch_ps;
	int g = m->o->gpus_per_thread > 1 ? m->o->gpus_per_thread : 1;
	double k = (double)iter * g + (double)(rank % (uint32_t)g);
	return (double)m->topo->launch_ps + k * (double)m->o->enqueue_ps;
}

/* Strand sid, the last of its rank to finish this operation, finished. */
static void rank_iteration_done(sim *m, uint32_t rank, uint32_t sid)
{
	rankst *r = &m->ranks[rank];
	r->strands_done = 0;
	if (++r->iter < m->o->iters) {
		/* the next operation is queued behind this one: its kernel pays the
		 * launch latency (NCCL's per-operation base latency) again, and
		 * starts no sooner than its host thread has enqueued it; the
		 * switch's engines go on at once */
		double at = (double)m->eng.now;
		bool host_bound = false;
		if (rank < (uint32_t)m->gen->p.nranks && !m->noop) {
			double dev = at + (double)m->topo->launch_ps, host = host_ready(m, rank, r->iter);
			host_bound = host > dev;
			at = fmax(dev, host);
		}
		/* the critical path goes on from this operation's end, or, when the
		 * host thread enqueues the next one later still, it is the host's
		 * enqueues from the start */
		gm_cpv last = m->cp && !host_bound ? m->scp[sid] : (gm_cpv){0};
		for (uint32_t k = m->rfirst[rank]; k < m->rfirst[rank + 1]; k++) {
			strand *s = &m->strands[k];
			s->pos = 0;
			s->wi = s->win_n = 0;
			s->state = S_IDLE;
			s->step_start = m->eng.now;
			if (m->cp) /* the next operation follows this one's end */
				m->scp[k] = last;
		}
		if (at > (double)m->eng.now) {
			ge_schedule_in(&m->eng, at - (double)m->eng.now, m->ent, EV_LAUNCH, (uint64_t)rank,
				       "the next operation's launch");
			return;
		}
		for (uint32_t k = m->rfirst[rank]; k < m->rfirst[rank + 1]; k++)
			wake(m, k);
		return;
	}
	r->finish = m->eng.now;
	m->ranks_done++;
	if (m->eng.now > m->end_time) {
		m->end_time = m->eng.now;
		if (m->cp)
			m->cpend = m->scp[sid];
	}
}

static G_GNUC_NO_INLINE void step_record(sim *m, strand *s, const gs_step *st)
{
	struct stamp *t = &m->stamps[s - m->strands];
	int64_t now = m->eng.now;
	gm_step_rec rec = {
		.rank = s->rank,
		.strand = s->ch,
		.channel = s->ch / (uint32_t)m->spc,
		.iter = m->ranks[s->rank].iter,
		.index = s->pos,
		.step = st,
		.start_ps = s->step_start,
		.end_ps = now,
	};
	if (gs_op_sends((gs_op)st->op)) {
		const conn *c = &m->conns[s->send_conn];
		for (int h = 0; h < c->nhops; h++)
			rec.via |= 1u << m->net.info[c->route[h]].kind;
	}
	rec.recv_ps = t->recv >= 0 ? t->recv : rec.start_ps;
	rec.ready_ps = t->ready >= 0 ? t->ready : now;
	t->recv = t->ready = -1;
	m->o->on_step(m->o->step_ctx, &rec);
}

static void step_complete(sim *m, strand *s, const gs_step *st)
{
	if (m->o->trace)
		trace_step(m, s, st);
	if (G_UNLIKELY(m->stamps))
		step_record(m, s, st);
	s->pos++;
	s->wi++;
	s->recvd = 0;
	s->state = S_IDLE;
	s->step_start = m->eng.now;
	m->steps_done++;
	if (G_UNLIKELY(m->o->on_progress) && !(m->steps_done & 0xffff))
		m->o->on_progress(m->o->progress_ctx, m->steps_done, m->steps_total, m->est_s, 0);
}

/* The connection strand s sends to peer on: its last or the one before
 * (then the two swap places), or the table's. */
static inline conn *send_conn_to(sim *m, strand *s, uint32_t peer)
{
	if (m->conns[s->send_conn].dst == peer)
		return &m->conns[s->send_conn];
	const uint32_t id = m->conns[s->send_alt].dst == peer
				    ? s->send_alt
				    : conn_get(m, s->rank, peer, s->ch / (uint32_t)m->spc);
	s->send_alt = s->send_conn;
	s->send_conn = id;
	return &m->conns[id];
}

/* The connection strand s receives on from `from` when it is not its
 * last (folded: from and to as the table keys them): the one before (then
 * the two swap places), or the table's. */
static inline conn *recv_conn_from(sim *m, strand *s, uint32_t from, uint32_t to)
{
	const conn *a = &m->conns[s->recv_alt];
	const uint32_t id = a->src == from && a->dst == to
				    ? s->recv_alt
				    : conn_get(m, from, to, s->ch / (uint32_t)m->spc);
	s->recv_alt = s->recv_conn;
	s->recv_conn = id;
	return &m->conns[id];
}

/* Run a strand until it blocks or finishes, with the critical path (cp)
 * or without (inlined with cp constant, as flow_done). */
static inline __attribute__((always_inline)) void strand_run(sim *m, uint32_t sid, const bool cp)
{
	strand *s = &m->strands[sid];
	if (s->state == S_DONE || s->state == S_SENDING)
		return;
	while (s->pos < s->len) {
		const gs_step *st = cur_step(m, s, sid);
		gs_op op = (gs_op)st->op;
		if (gs_op_recvs(op) && !s->recvd) {
			conn *c = &m->conns[s->recv_conn];
			uint32_t from = (uint32_t)st->recv_peer, to = s->rank;
			if (G_UNLIKELY(m->folded))
				fold_pair(m, &from, &to);
			if (c->src != from || c->dst != to)
				c = recv_conn_from(m, s, from, to);
			if (c->ndelivered == c->nconsumed) {
				c->waiting_recv = sid;
				s->state = S_WAIT_RECV;
				return;
			}
			msg *q = &cq(c)[c->nconsumed & c->qmask];
			uint64_t got = q->bytes;
			if (got != st->bytes) {
				m->err = ge_fail(&m->eng, GC_ERR_INPUT,
						 "rank %u channel %u step %llu: %s of %llu bytes matched a "
						 "message of %llu bytes from rank %u",
						 s->rank, s->ch, (unsigned long long)s->pos, gs_op_name(op),
						 (unsigned long long)st->bytes, (unsigned long long)got, c->src);
				return;
			}
			if (cp)
				cp_consume(m, c, sid);
			c->nconsumed++;
			/* the receiver tells the sender that the slot is free with a
			 * write that travels back over the connection; a waiting
			 * sender is woken when it lands */
			const int64_t back = c->lat_ps + (c->proxied == 2 ? m->xp->credit_ps : 0);
			q->credit_at = m->eng.now + back;
			if (c->waiting_send != NONE) {
				if (back == 0) {
					wake(m, c->waiting_send);
					c->waiting_send = NONE;
				} else {
					ge_schedule(&m->eng, q->credit_at, m->ent, EV_CREDIT,
						    (uint64_t)(c - m->conns));
				}
			}
			s->recvd = 1;
			if (G_UNLIKELY(m->stamps))
				m->stamps[sid].recv = m->eng.now;
		}
		if (G_UNLIKELY(m->o->reduce_Bps > 0) && s->recvd == 1 && gs_op_reduces(op) &&
		    st->bytes > 0) {
			/* the host's CPU sums what arrived into its buffer */
			s->recvd = 2;
			s->state = S_SENDING;
			ge_schedule(&m->eng,
				    m->eng.now + (int64_t)llround((double)st->bytes / m->o->reduce_Bps * 1e12),
				    m->ent, EV_REDUCE, sid);
			return;
		}
		if (gs_op_one_sided(op)) {
			if (op == GS_OP_WAIT) {
				uint64_t slot = (uint64_t)s->rank * m->nsig + st->src_off;
				/* back-to-back iterations: a WAIT of iteration k counts
				 * the SIGNALs its senders sent in their iteration k (a
				 * fast sender's later ones are not its) */
				uint64_t key = slot * m->iters + (uint64_t)m->ranks[s->rank].iter;
				if (m->signals[key] < st->bytes) {
					s->state = S_WAIT_SIGNAL;
					s->next_wait = m->sig_wait[slot];
					m->sig_wait[slot] = sid;
					return;
				}
				if (cp)
					gm_cpv_join(&m->scp[sid], &m->sigcp[key]);
				if (G_UNLIKELY(m->stamps)) /* what it waited for is there */
					m->stamps[sid].recv = m->eng.now;
				step_complete(m, s, st);
				continue;
			}
			/* PUT or SIGNAL: a flow into the peer's memory; no receive
			 * step, no buffer credit */
			const bool same_peer = m->conns[s->send_conn].dst == (uint32_t)st->send_peer;
			conn *c = send_conn_to(m, s, (uint32_t)st->send_peer);
			m->messages++;
			if (c->proxied == 2 && st->bytes > 0) {
				/* a transport's put or signal: the CTA's part, then the
				 * message waits its turn on the connection. A signal
				 * right behind the strand's put to the same peer is that
				 * put's (put-with-signal); any other is a signal of its
				 * own (signal_op) */
				const bool sig = op == GS_OP_SIGNAL;
				const gm_xport_msg k = !sig			 ? GM_XM_PUT
						       : s->after_put && same_peer ? GM_XM_SIGNAL
										   : GM_XM_AMO;
				s->after_put = !sig;
				const int64_t t = xp_gpu_end(m, c, k, s->ch, m->eng.now);
				if (G_UNLIKELY(m->stamps))
					m->stamps[sid].ready = m->eng.now;
				gm_cpv mv;
				if (cp) { /* the message leaves the GPU where the strand is */
					mv = m->scp[sid];
					gm_cpv_to(&mv, t, GM_CP_CONTROL);
				}
				xp_issue(m, c, k, st->bytes, sig ? (uint8_t)(1 + k) : 0,
					 sig ? signal_key(m, s, c, st) : 0, t, cp ? &mv : NULL);
				if (!xp_gpu_part(m, s, sid, st, t))
					return;
				continue;
			}
			if (st->bytes > 0) {
				s->state = S_SENDING;
				if (G_UNLIKELY(m->stamps))
					m->stamps[sid].ready = m->eng.now;
				uint64_t land = op == GS_OP_SIGNAL ? signal_key(m, s, c, st) << 2 | LAND_SIGNAL
								   : GM_NET_NO_TAG;
				gm_net_start_queued(&m->net, s->send_conn, c->route, c->nhops,
						    (double)st->bytes, sid, land);
				return;
			}
			step_complete(m, s, st); /* an empty PUT moves nothing */
			continue;
		}
		if (gs_op_sends(op)) {
			conn *c = send_conn_to(m, s, (uint32_t)st->send_peer);
			if (G_UNLIKELY(st->flags & GS_STEP_FANOUT) && c->nsent == 0)
				conn_fanout(m, c);
			reclaim(m, c, cp ? &m->scp[sid] : NULL); /* keeps the FIFO short */
			if (c->inflight > 0 && c->inflight + st->bytes > m->o->buffer_bytes) {
				c->waiting_send = sid;
				s->state = S_WAIT_CREDIT;
				/* space already on its way back: wake up when it lands */
				if (c->ncredited < c->nconsumed)
					ge_schedule(&m->eng, cq(c)[c->ncredited & c->qmask].credit_at, m->ent,
						    EV_CREDIT, (uint64_t)(c - m->conns));
				return;
			}
			c->inflight += st->bytes;
			if (m->eng.check)
				m->ctot[c - m->conns].pushed += st->bytes;
			conn_push(m, c, st->bytes);
			m->messages++;
			if (c->proxied == 2) {
				/* a transport: the GPU's part holds the strand; the
				 * message's control path runs on from its hand-off */
				const gm_xport_msg k = xp_send_kind(m);
				const int64_t t = xp_gpu_end(m, c, k, s->ch, m->eng.now);
				gm_cpv *mv = NULL;
				if (cp) { /* the message leaves the GPU where the strand is */
					mv = &m->ccp[c - m->conns].q[(c->nsent - 1) & c->qmask].d;
					*mv = m->scp[sid];
					gm_cpv_to(mv, t, GM_CP_CONTROL);
				}
				cq(c)[(c->nsent - 1) & c->qmask].credit_at = xp_control(m, c, k, t, mv);
				proxy_pump(m, c);
				if (G_UNLIKELY(m->stamps))
					m->stamps[sid].ready = m->eng.now;
				if (!xp_gpu_part(m, s, sid, st, t))
					return;
				continue;
			}
			if (c->proxied) {
				if (cp) /* the NIC starts it from where the GPU is */
					m->ccp[c - m->conns].q[(c->nsent - 1) & c->qmask].d = m->scp[sid];
				/* the GPU's part ends when the message is in the
				 * FIFO; the NIC sends it in its turn */
				proxy_pump(m, c);
				step_complete(m, s, st);
				continue;
			}
			/* packet mode: an empty message is an empty packet, which
			 * keeps its place behind the connection's earlier ones; a
			 * route of no links (inside a switch) moves no flow */
			if ((st->bytes > 0 || m->net.pkt_bytes) && c->nhops > 0) {
				s->state = S_SENDING;
				if (G_UNLIKELY(m->stamps))
					m->stamps[sid].ready = m->eng.now;
				gm_net_start_queued(&m->net, s->send_conn, c->route, c->nhops,
						    (double)st->bytes, sid, (uint64_t)s->send_conn << 2 | LAND_MSG);
				return;
			}
			/* an empty message still travels the route latency (none
			 * inside a switch) */
			schedule_delivery(m, c, m->eng.now + c->lat_ps,
					  cp ? &m->scp[sid] : NULL);
		}
		step_complete(m, s, st);
	}
	s->state = S_DONE;
	rankst *r = &m->ranks[s->rank];
	if (++r->strands_done == m->rfirst[s->rank + 1] - m->rfirst[s->rank])
		rank_iteration_done(m, s->rank, sid);
}

static G_GNUC_NO_INLINE void strand_run_cp(sim *m, uint32_t sid)
{
	strand_run(m, sid, true);
}

static void drain(sim *m)
{
	while (m->rcount > 0 && m->err == GC_OK) {
		uint32_t sid = m->ready[m->rhead];
		m->rhead = (m->rhead + 1) & m->rmask;
		m->rcount--;
		m->strands[sid].queued = 0;
		if (G_UNLIKELY(m->cp))
			strand_run_cp(m, sid);
		else
			strand_run(m, sid, false);
	}
}

static void deliver(sim *m, conn *c)
{
	c->ndelivered++;
	if (c->waiting_recv != NONE) {
		wake(m, c->waiting_recv);
		c->waiting_recv = NONE;
	}
}

/* The next message of c arrives at time `at` (>= now) with the critical
 * path v (NULL without it). */
static inline void schedule_delivery(sim *m, conn *c, ge_time at, const gm_cpv *v)
{
	uint64_t id = (uint64_t)(c - m->conns);
	if (v)
		ge_schedule(&m->eng, at, m->ent, EV_DELIVER_CP, cp_carry(m, id, v));
	else
		ge_schedule(&m->eng, at, m->ent, EV_DELIVER, id);
}

/* c crosses a lossy link: its next message, due at `at`, is delivered
 * after its lost packets are resent (gm_fault.h): one round trip if any
 * packet but the last is lost, the ACK timeout each time the last is, and
 * never before the connection's previous message. */
static G_GNUC_NO_INLINE int64_t loss_delay(sim *m, conn *c, int64_t at)
{
	lossc *l = &m->lc[c - m->conns];
	const uint64_t bytes = cq(c)[l->nlanded++ & c->qmask].bytes;
	if (l->p > 0 && bytes > 0) {
		const double pkts = (double)((bytes + GM_FAULT_MTU - 1) / GM_FAULT_MTU);
		const double body = -expm1((pkts - 1) * log1p(-l->p)); /* a packet before the last */
		if (gc_rng_uniform(&m->loss_rng) < body)
			at += 2 * c->lat_ps;
		while (gc_rng_uniform(&m->loss_rng) < l->p) {
			at += m->o->retransmit_ps;
			m->retransmits++;
		}
	}
	if (at < l->until)
		at = l->until;
	l->until = at;
	return at;
}

/* A message on c has left the wire: it is there one route latency later
 * (with the critical path v, NULL without it). */
static inline void deliver_after_latency(sim *m, conn *c, ge_time now, const gm_cpv *v)
{
	if (G_UNLIKELY(m->link_down) && now >= m->cdown[c - m->conns]) {
		m->lost++; /* a link on its way stopped before it was through */
		return;
	}
	int64_t at = now + c->lat_ps;
	gm_cpv lv;
	if (G_UNLIKELY(m->link_loss)) {
		at = loss_delay(m, c, at);
		if (v) { /* the route latency, and the retransmissions on the way */
			lv = *v;
			gm_cpv_to(&lv, at, GM_CP_LATENCY);
			v = &lv;
		}
	}
	if (c->proxied == 2) { /* and the transport's receiving part */
		gm_cpv rv;
		if (v) {
			rv = *v;
			gm_cpv_to(&rv, at, GM_CP_LATENCY);
		}
		int64_t t = xp_receive(m, c, xp_send_kind(m), at, v ? &rv : NULL);
		if (t > now) {
			schedule_delivery(m, c, t, v ? &rv : NULL);
			return;
		}
	}
	if (at == now) {
		if (v)
			cp_arrive(m, c, *v);
		deliver(m, c);
	} else {
		schedule_delivery(m, c, at, v);
	}
}

/* ---- transport (gm_xport) ------------------------------------------------ */

/* The NIC a connection's messages leave by: the first NIC link of its
 * route. */
static uint32_t xp_nic_of(const sim *m, const conn *c)
{
	for (int h = 0; h < c->nhops; h++)
		if (m->net.info[c->route[h]].kind == GM_LINK_NIC)
			return c->route[h];
	return c->route[0];
}

/* A turn of rank r's proxy thread that takes `ps` from `t` on: it starts
 * when both the work and the thread are there. */
static int64_t xp_proxy_work(sim *m, uint32_t r, int64_t t, int64_t ps)
{
	int64_t s = t > m->xp_proxy[r] ? t : m->xp_proxy[r];
	m->xp_proxy[r] = s + ps;
	m->xp_proxy_busy[r] += ps;
	return s + ps;
}

/* Rank r's proxy finds work that is there at t: an idle thread polls half
 * a period later on average and reads it; a busy one finds it when its
 * current work ends, reading again only once per proxy.batch requests
 * (one poll takes a batch). */
static int64_t xp_proxy_poll(sim *m, uint32_t r, int64_t t, const gm_xport_stage *st)
{
	if (t >= m->xp_proxy[r]) {
		m->xp_turn[r] = 1;
		return xp_proxy_work(m, r, t + st->period_ps / 2, st->ps);
	}
	if (++m->xp_turn[r] > (uint32_t)m->xp->proxy_batch) {
		m->xp_turn[r] = 1;
		return xp_proxy_work(m, r, t, st->ps);
	}
	return m->xp_proxy[r];
}

/* The critical-path category of a stage's time, its queue included. */
static gm_cp_cat xp_cp_cat(gm_xport_stage_kind k)
{
	switch (k) {
	case GM_XS_PROXY_POLL:
	case GM_XS_PROXY_WORK: return GM_CP_PROXY;
	case GM_XS_NIC: return GM_CP_NICMSG;
	default: return GM_CP_CONTROL;
	}
}

/* Stages [from, to) of a message of kind k on c, from t on: the sender's
 * proxy and NIC before the data, the receiver's proxy after it. Returns
 * when they are done; v (NULL without the critical path), at t, is taken
 * along them, each stage's time in its category. */
static int64_t xp_stages(sim *m, const conn *c, gm_xport_msg k, int from, int to, int64_t t,
			 gm_cpv *v, int64_t *proxy_end)
{
	const gm_xport_path *h = &m->xp->path[k];
	for (int i = from; i < to; i++) {
		const gm_xport_stage *st = &h->st[i];
		const uint32_t r = i < h->data ? c->src : conn_receiver(m, c);
		switch (st->kind) {
		case GM_XS_POLL:
			t += st->period_ps / 2 + st->ps;
			break;
		case GM_XS_PROXY_POLL:
			t = xp_proxy_poll(m, r, t, st);
			break;
		case GM_XS_PROXY_WORK:
			t = xp_proxy_work(m, r, t, st->ps);
			if (proxy_end)
				*proxy_end = t;
			break;
		case GM_XS_PROXY_BG: /* the thread's time, not the message's */
			xp_proxy_work(m, r, t, st->ps);
			break;
		case GM_XS_NIC: {
			uint32_t l = xp_nic_of(m, c);
			int64_t s = t > m->xp_nic[l] ? t : m->xp_nic[l];
			m->xp_nic[l] = t = s + st->ps;
			m->xp_nic_busy[l] += st->ps;
			break;
		}
		default: /* a delay; the data's own fixed part (its DMA read request) */
			t += st->ps;
			break;
		}
		if (v)
			gm_cpv_to(v, t, xp_cp_cat(st->kind));
	}
	return t;
}

/* The sender's GPU part of a message of kind k that strand sidx of its
 * rank (a CTA) starts at t: when it is done (a post on a queue pair its
 * CTA shares with the others, to the same peer, waits for the queue's
 * earlier publishes: CTA c on queue c mod gpu.queues of that peer). */
static int64_t xp_gpu_end(sim *m, const conn *c, gm_xport_msg k, uint32_t sidx, int64_t t)
{
	const gm_xport_path *h = &m->xp->path[k];
	for (int i = 0; i < h->ngpu; i++) {
		const gm_xport_stage *st = &h->st[i];
		if (st->kind == GM_XS_GPU_SQ) {
			const uint64_t key = (((uint64_t)c->src << 24 | c->dst) << 16) |
					     (sidx % (uint32_t)m->xp->queues);
			gpointer v = g_hash_table_lookup(m->xp_sq, &key);
			int64_t *f = v;
			if (!f) {
				uint64_t *kp = g_new(uint64_t, 1);
				*kp = key;
				f = g_new0(int64_t, 1);
				g_hash_table_insert(m->xp_sq, kp, f);
			}
			t = (t > *f ? t : *f) + st->ps;
			*f = t;
		} else {
			t += st->ps;
		}
	}
	return t;
}

/* A message of kind k handed over at t (its GPU part done): when it may
 * go on the wire (v, at t or NULL, taken along). */
static int64_t xp_control(sim *m, const conn *c, gm_xport_msg k, int64_t t, gm_cpv *v)
{
	m->xp_msgs++;
	const gm_xport_path *h = &m->xp->path[k];
	return xp_stages(m, c, k, h->ngpu, h->data + 1, t, v, NULL);
}

/* A message of kind k landed at t: when its receiver knows (v, at t or
 * NULL, taken along). */
static int64_t xp_receive(sim *m, const conn *c, gm_xport_msg k, int64_t t, gm_cpv *v)
{
	const gm_xport_path *h = &m->xp->path[k];
	return xp_stages(m, c, k, h->data + 1, h->nstages, t, v, NULL);
}

static inline gm_xport_msg xp_send_kind(const sim *m)
{
	return m->o->xport_ll ? GM_XM_SEND_LL : GM_XM_SEND;
}

/* Strand sid's step is its GPU part of a transport's message: the strand
 * is busy until `until` (EV_XP_GPU completes the step), or completes it
 * now when the part takes no time. Returns true when the strand goes on. */
static bool xp_gpu_part(sim *m, strand *s, uint32_t sid, const gs_step *st, int64_t until)
{
	if (until <= m->eng.now) {
		step_complete(m, s, st);
		return true;
	}
	s->state = S_SENDING;
	ge_schedule(&m->eng, until, m->ent, EV_XP_GPU, sid);
	return false;
}

/* Append x to a ring (*v of *cap, a power of two, from *head, *n in it),
 * doubling it when full. */
static void xq_ring_push(xpmsg **v, uint32_t *head, uint32_t *n, uint32_t *cap, const xpmsg *x)
{
	if (*n == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 8;
		xpmsg *nv = g_new(xpmsg, nc);
		for (uint32_t i = 0; i < *n; i++)
			nv[i] = (*v)[(*head + i) & (*cap - 1)];
		g_free(*v);
		*v = nv;
		*head = 0;
		*cap = nc;
	}
	(*v)[(*head + (*n)++) & (*cap - 1)] = *x;
}

/* The next one-sided message on c goes on the wire when its control path
 * is done, one at a time per connection (a queue pair's writes in order:
 * a signal lands after the puts before it). */
static void xq_pump(sim *m, conn *c)
{
	uint32_t id = (uint32_t)(c - m->conns);
	xpq *q = &m->xq[id];
	while (!q->busy && q->n > 0) {
		xpmsg *x = &q->v[q->head];
		if (x->ready > m->eng.now) {
			q->busy = 2;
			ge_schedule(&m->eng, x->ready, m->ent, EV_XQ_READY, id);
			return;
		}
		q->busy = 1;
		if (G_UNLIKELY(m->cp)) {
			/* it starts when its control path is done and the queue
			 * pair's write before it is off the wire */
			cpconn *cc = &m->ccp[id];
			cc->xflv = cp_take(m, x->cpi).v;
			gm_cpv_join(&cc->xflv, &cc->xnic);
			gm_cpv_to(&cc->xflv, m->eng.now, GM_CP_OTHER);
		}
		if (m->net.pkt_bytes) {
			/* a signal's landing is on_land's: it waits in order */
			if (x->signal)
				xq_ring_push(&q->lv, &q->lhead, &q->ln, &q->lcap, x);
			gm_net_start_queued(&m->net, id, c->route, c->nhops, (double)x->bytes, XQ_TAG | id,
					    x->signal ? (uint64_t)id << 2 | LAND_XQ_SIGNAL : GM_NET_NO_TAG);
		} else {
			gm_net_start(&m->net, c->route, c->nhops, (double)x->bytes, XQ_TAG | id);
		}
		return;
	}
}

static void xq_push(sim *m, conn *c, uint64_t bytes, uint8_t signal, uint64_t key, int64_t ready,
		    const gm_cpv *v)
{
	xpq *q = &m->xq[c - m->conns];
	const xpmsg x = {.bytes = bytes,
			 .key = key,
			 .ready = ready,
			 .cpi = v ? cp_carry(m, 0, v) : 0,
			 .signal = signal};
	xq_ring_push(&q->v, &q->head, &q->n, &q->cap, &x);
	xq_pump(m, c);
}

static void signal_arrive(sim *m, uint64_t key);

/* ---- NVSHMEM IBRC's proxy thread as a server (xpsrv) --------------------- */

/* The fixed delays of path h from stage i on, before `end` or its first
 * other stage (a write crossing PCIe towards a proxy): added to *t unless
 * t is NULL. Returns the index of that first other stage. */
static int xp_lead_delays(const gm_xport_path *h, int i, int end, int64_t *t)
{
	for (; i < end && h->st[i].kind == GM_XS_DELAY; i++)
		if (t)
			*t += h->st[i].ps;
	return i;
}

static void xr_push(xpring *q, const xpmsg *x)
{
	xq_ring_push(&q->v, &q->head, &q->n, &q->cap, x);
}

static xpmsg xr_pop(xpring *q)
{
	xpmsg x = q->v[q->head];
	q->head = (q->head + 1) & (q->cap - 1);
	q->n--;
	return x;
}

/* Post a one-sided message of kind k on c from t on (v, where it was
 * handed on, its critical path or NULL): its control path from stage
 * `from` (0: all of it), then its turn on the connection. */
static void xp_post(sim *m, conn *c, gm_xport_msg k, uint64_t bytes, uint8_t signal, uint64_t key,
		    int64_t t, gm_cpv *v, int from)
{
	if (v) /* waiting for the proxy thread to take it */
		gm_cpv_to(v, t, GM_CP_PROXY);
	int64_t ready;
	if (from > 0) {
		m->xp_msgs++;
		ready = xp_stages(m, c, k, from, m->xp->path[k].data + 1, t, v, NULL);
	} else {
		ready = xp_control(m, c, k, t, v);
	}
	if (m->xw && k == GM_XM_AMO)
		m->xw[c->src].out++;
	xq_push(m, c, bytes, signal, key, ready, v);
}

static void xs_run(sim *m, uint32_t r);

static void xp_issue(sim *m, conn *c, gm_xport_msg k, uint64_t bytes, uint8_t signal, uint64_t key,
		     int64_t t, gm_cpv *v)
{
	if (!m->xw) {
		xp_post(m, c, k, bytes, signal, key, t, v, 0);
		return;
	}
	/* the request crosses to the proxy's FIFO (the delays before its
	 * poll) before the thread can take it */
	const gm_xport_path *h = &m->xp->path[k];
	xp_lead_delays(h, h->ngpu, h->data, &t);
	if (v)
		gm_cpv_to(v, t, GM_CP_CONTROL);
	const xpmsg x = {.bytes = bytes,
			  .key = key,
			  .ready = t,
			  .conn = (uint32_t)(c - m->conns),
			  .cpi = v ? cp_carry(m, 0, v) : 0,
			  .signal = signal,
			  .kind = (uint8_t)k};
	xr_push(&m->xw[c->src].req, &x);
	xs_run(m, c->src);
}

/* The server's thread is busy until `at` (or has nothing to do before):
 * it looks again then. */
static void xs_wake_at(sim *m, uint32_t r, int64_t at)
{
	xpsrv *w = &m->xw[r];
	if (w->woken && w->wake_at <= at)
		return; /* it looks again before then anyway */
	w->woken = true;
	w->wake_at = at;
	ge_schedule(&m->eng, at, m->ent, EV_XS_WAKE, r);
}

/* An incoming atomic on rank r's proxy: the receiver's part from its poll
 * on. The target's word is written and its GPU sees it at the end; the
 * acknowledgement the proxy posts as it finishes crosses back and the
 * sender's proxy reads its completion. */
static void xs_incoming(sim *m, const xpmsg *x, int64_t t)
{
	conn *c = &m->conns[x->conn];
	const gm_xport_path *h = &m->xp->path[GM_XM_AMO];
	/* the delays before its poll were paid before it was there (xs_landed) */
	const int first = xp_lead_delays(h, h->data + 1, h->nstages, NULL);
	gm_cpv cv;
	if (m->cp)
		cv = cp_take(m, x->cpi).v;
	int64_t done = t;
	const int64_t at = xp_stages(m, c, GM_XM_AMO, first, h->nstages, t, m->cp ? &cv : NULL, &done);
	if (m->cp)
		ge_schedule(&m->eng, at, m->ent, EV_SIGNAL_CP, cp_carry(m, x->key, &cv));
	else
		ge_schedule(&m->eng, at, m->ent, EV_SIGNAL, x->key);
	ge_schedule(&m->eng, done + c->lat_ps + m->xp->p.pcie_lat_ps + m->xp->p.cq_poll_ps, m->ent,
		    EV_XS_ACK, c->src);
}

/* Rank r's proxy thread takes its next work when it is free: alternately
 * an incoming atomic (one per turn of its loop) and a request of its GPU,
 * the request only while at most the window of its atomics is out. */
static void xs_run(sim *m, uint32_t r)
{
	xpsrv *w = &m->xw[r];
	const int64_t now = m->eng.now;
	for (;;) {
		if (m->xp_proxy[r] > now) { /* busy (also with work reserved by others) */
			xs_wake_at(m, r, m->xp_proxy[r]);
			return;
		}
		const bool in_ready = w->in.n > 0 && w->in.v[w->in.head].ready <= now;
		const bool req_ok = w->req.n > 0 && w->req.v[w->req.head].ready <= now &&
				    w->out <= m->xw_window;
		if (in_ready && (w->in_next || !req_ok)) {
			const xpmsg x = xr_pop(&w->in);
			xs_incoming(m, &x, now);
			w->in_next = false;
		} else if (req_ok) {
			const xpmsg x = xr_pop(&w->req);
			gm_cpv cv;
			if (m->cp)
				cv = cp_take(m, x.cpi).v;
			const gm_xport_path *h = &m->xp->path[x.kind];
			int from = xp_lead_delays(h, h->ngpu, h->data, NULL); /* paid in xp_issue */
			/* one read of the FIFO takes up to proxy.batch requests
			 * that are there: the rest of the batch skip the poll */
			if (w->batch > 0 && h->st[from].kind == GM_XS_PROXY_POLL) {
				w->batch--;
				from++;
			} else {
				uint32_t n = 1;
				while (n < w->req.n + 1 && n < (uint32_t)m->xp->proxy_batch &&
				       w->req.v[(w->req.head + n - 1) & (w->req.cap - 1)].ready <= now)
					n++;
				w->batch = n - 1;
			}
			xp_post(m, &m->conns[x.conn], (gm_xport_msg)x.kind, x.bytes, x.signal, x.key, now,
				m->cp ? &cv : NULL, from);
			w->in_next = true;
		} else {
			/* nothing it may do now: a request or an incoming atomic
			 * still crossing PCIe wakes it when it is there; an
			 * acknowledgement or a new request does */
			if (w->in.n > 0 && w->in.v[w->in.head].ready > now)
				xs_wake_at(m, r, w->in.v[w->in.head].ready);
			if (w->req.n > 0 && w->req.v[w->req.head].ready > now && w->out <= m->xw_window)
				xs_wake_at(m, r, w->req.v[w->req.head].ready);
			return;
		}
	}
}

/* An emulated atomic for rank r's proxy landed at t on c (with its
 * critical path v, or NULL): it is there once its completion is written
 * (the receiver part's delays before the proxy polls). */
static void xs_landed(sim *m, const conn *c, uint64_t key, int64_t t, const gm_cpv *v)
{
	const gm_xport_path *h = &m->xp->path[GM_XM_AMO];
	xp_lead_delays(h, h->data + 1, h->nstages, &t);
	gm_cpv cv;
	if (v) {
		cv = *v;
		gm_cpv_to(&cv, t, GM_CP_CONTROL);
	}
	const xpmsg x = {.key = key, .ready = t, .conn = (uint32_t)(c - m->conns), .cpi = v ? cp_carry(m, 0, &cv) : 0};
	const uint32_t r = conn_receiver(m, c);
	xr_push(&m->xw[r].in, &x);
	if (t > m->eng.now)
		xs_wake_at(m, r, t);
	else
		xs_run(m, r);
}

/* The head one-sided message of connection id is off the wire: a signal
 * is seen by its receiver after the route latency and the transport's
 * receiving part (with its critical path when cp). */
static inline __attribute__((always_inline)) void xq_done(sim *m, uint32_t id, ge_time now,
							const bool cp)
{
	conn *c = &m->conns[id];
	xpq *q = &m->xq[id];
	xpmsg x = q->v[q->head];
	q->head = (q->head + 1) & (q->cap - 1);
	q->n--;
	q->busy = 0;
	if (m->net.pkt_bytes) { /* a signal's landing is on_land's (xq_land) */
		xq_pump(m, c);
		return;
	}
	gm_cpv rv;
	if (cp) {
		cpconn *cc = &m->ccp[id];
		gm_cpv_transfer(&cc->xflv, gm_net_done_bottlenecks(&m->net), now);
		cc->xnic = rv = cc->xflv;
		gm_cpv_to(&rv, now + c->lat_ps, GM_CP_LATENCY);
	}
	if (x.signal && m->xw && x.signal - 1 == GM_XM_AMO) {
		xs_landed(m, c, x.key, now + c->lat_ps, cp ? &rv : NULL);
	} else if (x.signal) {
		int64_t at = xp_receive(m, c, (gm_xport_msg)(x.signal - 1), now + c->lat_ps,
					cp ? &rv : NULL);
		if (cp && at <= now) {
			cp_signal(m, x.key, rv);
			signal_arrive(m, x.key);
		} else if (cp) {
			ge_schedule(&m->eng, at, m->ent, EV_SIGNAL_CP, cp_carry(m, x.key, &rv));
		} else if (at <= now) {
			signal_arrive(m, x.key);
		} else {
			ge_schedule(&m->eng, at, m->ent, EV_SIGNAL, x.key);
		}
	}
	xq_pump(m, c);
}

/* A proxied connection (sim.net_send proxy): the GPU has handed its
 * messages to the connection's FIFO, and the NIC puts them on the wire one
 * after the other, in order (an RC queue pair; NCCL's proxy posts them as
 * the GPU fills its send buffer). An empty message travels the route
 * latency in its turn. */
static void proxy_pump(sim *m, conn *c)
{
	while (!c->busy && c->nflowed < c->nsent) {
		msg *head = &cq(c)[c->nflowed & c->qmask];
		if (c->proxied == 2) {
			/* a transport's message waits for its control path (its
			 * time parked in credit_at, unused until it is consumed) */
			if (head->credit_at > m->eng.now) {
				c->busy = 2;
				ge_schedule(&m->eng, head->credit_at, m->ent, EV_XP_READY,
					    (uint64_t)(c - m->conns));
				return;
			}
			head->credit_at = INT64_MAX;
		}
		uint64_t k = c->nflowed++;
		uint64_t bytes = cq(c)[k & c->qmask].bytes;
		cpconn *cc = G_UNLIKELY(m->cp) ? &m->ccp[c - m->conns] : NULL;
		if (cc) {
			/* it starts when both the GPU has pushed it and the NIC has
			 * finished the one before */
			cc->flv = cc->q[k & c->qmask].d;
			gm_cpv_join(&cc->flv, &cc->nic);
			gm_cpv_to(&cc->flv, m->eng.now, GM_CP_OTHER);
		}
		if (m->net.pkt_bytes) {
			/* packets keep the connection's order; the landing
			 * (on_land) delivers, an empty message as an empty packet */
			c->busy = 1;
			const uint64_t id = (uint64_t)(c - m->conns);
			gm_net_start_queued(&m->net, (uint32_t)id, c->route, c->nhops, (double)bytes,
					    PROXY_TAG | id, id << 2 | LAND_MSG);
		} else if (bytes > 0) {
			c->busy = 1;
			gm_net_start(&m->net, c->route, c->nhops, (double)bytes,
				     PROXY_TAG | (uint64_t)(c - m->conns));
		} else {
			if (cc)
				cc->nic = cc->flv;
			deliver_after_latency(m, c, m->eng.now, cc ? &cc->flv : NULL);
		}
	}
}

/* A SIGNAL landed (key: signal_key): count it and let every strand parked
 * on the slot re-check its threshold. */
static void signal_arrive(sim *m, uint64_t key)
{
	m->signals[key]++;
	uint64_t slot = key / m->iters;
	uint32_t sid = m->sig_wait[slot];
	m->sig_wait[slot] = NONE;
	while (sid != NONE) {
		uint32_t next = m->strands[sid].next_wait;
		m->strands[sid].state = S_IDLE;
		wake(m, sid);
		sid = next;
	}
}

/* on_flow_done's body, with the critical path (cp) or without: both are
 * inlined with cp constant, so the run without it pays nothing for it. */
static inline __attribute__((always_inline)) void flow_done(sim *m, uint64_t tag, ge_time now,
							  const bool cp)
{
	if (G_UNLIKELY(tag & XQ_TAG) && !(tag & PROXY_TAG)) { /* a transport's one-sided message */
		xq_done(m, (uint32_t)(tag & ~XQ_TAG), now, cp);
		drain(m);
		return;
	}
	if (tag & PROXY_TAG) { /* a proxied message is off the wire */
		conn *pc = &m->conns[tag & ~PROXY_TAG];
		pc->busy = 0;
		if (m->net.pkt_bytes) { /* its landing is on_land's */
			proxy_pump(m, pc);
			drain(m);
			return;
		}
		cpconn *cc = cp ? &m->ccp[pc - m->conns] : NULL;
		if (cc) {
			gm_cpv_transfer(&cc->flv, gm_net_done_bottlenecks(&m->net), now);
			cc->nic = cc->flv;
		}
		deliver_after_latency(m, pc, now, cc ? &cc->flv : NULL);
		proxy_pump(m, pc);
		drain(m);
		return;
	}
	uint32_t sid = (uint32_t)tag;
	strand *s = &m->strands[sid];
	conn *c = &m->conns[s->send_conn];
	const gs_step *st = cur_step(m, s, sid);
	gm_cpv *v = NULL;
	if (cp) {
		v = &m->scp[sid];
		gm_cpv_transfer(v, gm_net_done_bottlenecks(&m->net), now);
	}
	if (m->net.pkt_bytes) {
		/* landing reported by on_land */
	} else if (st->op == GS_OP_SIGNAL) {
		/* the signal word lands one route latency later; PUTs before it
		 * on this connection landed earlier (same route, sent earlier) */
		uint64_t key = signal_key(m, s, c, st);
		if (G_UNLIKELY(m->link_down) && now >= m->cdown[c - m->conns]) {
			m->lost++;
		} else if (c->lat_ps == 0) {
			if (v)
				cp_signal(m, key, *v);
			signal_arrive(m, key);
		} else if (v) {
			ge_schedule(&m->eng, now + c->lat_ps, m->ent, EV_SIGNAL_CP, cp_carry(m, key, v));
		} else {
			ge_schedule(&m->eng, now + c->lat_ps, m->ent, EV_SIGNAL, key);
		}
	} else if (st->op != GS_OP_PUT) {
		deliver_after_latency(m, c, now, v);
	}
	step_complete(m, s, st);
	wake(m, sid);
	drain(m);
}

static G_GNUC_NO_INLINE void flow_done_cp(sim *m, uint64_t tag, ge_time now)
{
	flow_done(m, tag, now, true);
}

/* Net callback: the flow of strand `tag` has left the bottleneck (flow
 * mode) or its last packet has left the first link (packet mode, where the
 * landing is on_land's). */
static void on_flow_done(void *ctx, uint64_t tag, ge_time now)
{
	sim *m = ctx;
	if (G_UNLIKELY(m->cp))
		flow_done_cp(m, tag, now);
	else
		flow_done(m, tag, now, false);
}

/* Packet mode: the last byte of a message (tag: connection << 1) or of a
 * signal (tag: its signal_key << 1 | 1) has landed; a connection's messages land in
 * the order they were sent. */
static void on_land(void *ctx, uint64_t tag, ge_time now)
{
	sim *m = ctx;
	const uint64_t what = tag >> 2;
	if ((tag & 3) == LAND_SIGNAL) {
		signal_arrive(m, what);
	} else if ((tag & 3) == LAND_XQ_SIGNAL) {
		/* a transport's signal: its receiving part, from the landing */
		conn *c = &m->conns[what];
		xpq *q = &m->xq[what];
		const xpmsg x = q->lv[q->lhead];
		q->lhead = (q->lhead + 1) & (q->lcap - 1);
		q->ln--;
		if (m->xw && x.signal - 1 == GM_XM_AMO) {
			xs_landed(m, c, x.key, now, NULL);
			drain(m);
			return;
		}
		const int64_t at = xp_receive(m, c, (gm_xport_msg)(x.signal - 1), now, NULL);
		if (at <= now)
			signal_arrive(m, x.key);
		else
			ge_schedule(&m->eng, at, m->ent, EV_SIGNAL, x.key);
	} else {
		conn *c = &m->conns[what];
		const int64_t at = c->proxied == 2 ? xp_receive(m, c, xp_send_kind(m), now, NULL) : now;
		if (at > now)
			schedule_delivery(m, c, at, NULL); /* after the transport's receiving part */
		else
			deliver(m, c);
	}
	drain(m);
}

/* Steps of strand c of rank r that a run simulates: none on a channel
 * that another stands for (channel-folded with shift S > 0 in groups of
 * G, and of those groups the first T if T > 0). */
static uint64_t sim_strand_len(const gs_gen *gen, int S, int G, int T, int r, int c)
{
	const int spc = gen->strands_per_channel > 0 ? gen->strands_per_channel : 1;
	if (S > 0 && (c / spc % G >= S || (T > 0 && c / spc / G >= T)))
		return 0;
	return gen->ops->strand_len(gen, r, c);
}

/* Critical path: a delivery or a signal that carries its vector lands. */
static G_GNUC_NO_INLINE void cp_event(sim *m, uint32_t kind, uint64_t slot)
{
	cpcarry k = cp_take(m, slot);
	if (kind == EV_DELIVER_CP) {
		conn *c = &m->conns[k.what];
		cp_arrive(m, c, k.v);
		deliver(m, c);
	} else {
		cp_signal(m, k.what, k.v);
		signal_arrive(m, k.what);
	}
}

static gc_status coll_handle(ge_engine *e, void *self, const ge_event *ev)
{
	sim *m = self;
	if (ev->kind == EV_DELIVER) {
		deliver(m, &m->conns[ev->arg]);
	} else if (ev->kind == EV_LAUNCH) {
		uint32_t rank = (uint32_t)ev->arg;
		for (uint32_t sid = m->rfirst[rank]; sid < m->rfirst[rank + 1]; sid++) {
			m->strands[sid].step_start = e->now;
			if (m->cp)
				gm_cpv_to(&m->scp[sid], e->now, GM_CP_LAUNCH);
			wake(m, sid);
		}
	} else if (ev->kind == EV_DELIVER_CP || ev->kind == EV_SIGNAL_CP) {
		cp_event(m, ev->kind, ev->arg);
	} else if (ev->kind == EV_SIGNAL) {
		signal_arrive(m, ev->arg);
	} else if (ev->kind == EV_XP_GPU) {
		strand *s = &m->strands[ev->arg];
		if (m->cp) /* the GPU's part of a transport's message */
			gm_cpv_to(&m->scp[ev->arg], e->now, GM_CP_CONTROL);
		step_complete(m, s, cur_step(m, s, (uint32_t)ev->arg));
		wake(m, (uint32_t)ev->arg);
	} else if (ev->kind == EV_REDUCE) {
		if (m->cp)
			gm_cpv_to(&m->scp[ev->arg], e->now, GM_CP_REDUCE);
		m->strands[ev->arg].state = S_IDLE;
		wake(m, (uint32_t)ev->arg);
	} else if (ev->kind == EV_XP_READY) {
		conn *c = &m->conns[ev->arg];
		c->busy = 0;
		proxy_pump(m, c);
	} else if (ev->kind == EV_XS_WAKE) {
		if (m->xw[ev->arg].wake_at <= e->now) /* the latest wake (earlier ones ran already) */
			m->xw[ev->arg].woken = false;
		xs_run(m, (uint32_t)ev->arg);
	} else if (ev->kind == EV_XS_ACK) {
		m->xw[ev->arg].out--;
		xs_run(m, (uint32_t)ev->arg);
	} else if (ev->kind == EV_XQ_READY) {
		m->xq[ev->arg].busy = 0;
		xq_pump(m, &m->conns[ev->arg]);
	} else { /* EV_CREDIT */
		conn *c = &m->conns[ev->arg];
		if (c->waiting_send != NONE) {
			wake(m, c->waiting_send);
			c->waiting_send = NONE;
		}
	}
	drain(m);
	return m->err;
}

static gc_status coll_check(const ge_engine *e, const void *self, char **errmsg)
{
	const sim *m = self;
	for (uint32_t i = 0; i < m->nconns; i++) {
		const conn *c = &m->conns[i];
		/* the credit in use is what was pushed and not yet reclaimed, and
		 * (summed when the FIFO is short, to keep the check O(1)) the sizes
		 * of the messages still in the FIFO */
		uint64_t sum = m->ctot[i].pushed - m->ctot[i].reclaimed;
		if (c->nsent - c->ncredited <= 64) {
			uint64_t q = 0;
			for (uint64_t k = c->ncredited; k < c->nsent; k++)
				q += cq_c(c)[k & c->qmask].bytes;
			if (q != sum)
				sum = q;
		}
		if (!(c->ncredited <= c->nconsumed && c->nconsumed <= c->ndelivered &&
		      c->ndelivered <= c->nsent) ||
		    (c->proxied && !(c->ndelivered <= c->nflowed && c->nflowed <= c->nsent)) ||
		    sum != c->inflight) {
			*errmsg = g_strdup_printf("connection %u->%u ch %u: sent %llu delivered %llu consumed "
						  "%llu credited %llu, credit %llu for %llu uncredited bytes",
						  c->src, c->dst, c->ch, (unsigned long long)c->nsent,
						  (unsigned long long)c->ndelivered,
						  (unsigned long long)c->nconsumed,
						  (unsigned long long)c->ncredited,
						  (unsigned long long)c->inflight, (unsigned long long)sum);
			return GC_ERR_INTERNAL;
		}
	}
	for (uint32_t i = 0; i < m->nstrands; i++)
		if (m->strands[i].pos > m->strands[i].len) {
			*errmsg = g_strdup_printf("strand %u ran past its end", i);
			return GC_ERR_INTERNAL;
		}
	/* the critical path: every strand's vector sums to where it is, which
	 * is not in the future */
	for (uint32_t i = 0; m->cp && i < m->nstrands; i++) {
		const gm_cpv *v = &m->scp[i];
		int64_t sum = 0;
		for (int c = 0; c < GM_CP__COUNT; c++)
			sum += v->c[c];
		if (sum != v->at || v->at > e->now) {
			*errmsg = g_strdup_printf("strand %u: critical path of %lld ps at %lld ps, now "
						  "%lld ps",
						  i, (long long)sum, (long long)v->at, (long long)e->now);
			return GC_ERR_INTERNAL;
		}
	}
	return GC_OK;
}

static const ge_entity_ops coll_ops = {
	.name = "collective",
	.handle = coll_handle,
	.check = coll_check,
};

static gc_status deadlock_report(sim *m, char **errmsg)
{
	GString *g = g_string_new("deadlock: the schedule cannot complete;");
	int shown = 0;
	for (uint32_t i = 0; i < m->nstrands && shown < 4; i++) {
		strand *s = &m->strands[i];
		if (s->state == S_DONE)
			continue;
		const gs_step *st = cur_step(m, s, i);
		if (s->state == S_WAIT_SIGNAL) {
			g_string_append_printf(g, " rank %u channel %u step %llu (WAIT) waits for signal slot "
					       "%llu to reach %llu, it has %llu;", s->rank, s->ch,
					       (unsigned long long)s->pos, (unsigned long long)st->src_off,
					       (unsigned long long)st->bytes,
					       (unsigned long long)m->signals[((uint64_t)s->rank * m->nsig +
									       st->src_off) *
										      m->iters +
									      (uint64_t)m->ranks[s->rank].iter]);
			shown++;
			continue;
		}
		const char *why = s->state == S_WAIT_RECV	? "waits for a message from rank"
				  : s->state == S_WAIT_CREDIT ? "waits for buffer space at rank"
							      : "is stuck with peer";
		int peer = s->state == S_WAIT_RECV ? st->recv_peer : st->send_peer;
		g_string_append_printf(g, " rank %u channel %u step %llu (%s) %s %d;", s->rank, s->ch,
				       (unsigned long long)s->pos, gs_op_name((gs_op)st->op), why, peer);
		shown++;
	}
	g_string_truncate(g, g->len - 1);
	*errmsg = g_string_free(g, FALSE);
	return GC_ERR_DEADLOCK;
}

bool gm_coll_noop(const gs_params *p)
{
	return p->bytes == 0 && !gs_coll_is_moe(p->coll) && p->coll != GS_COLL_SENDRECV;
}

double gm_coll_packets_estimate(const gs_params *p, uint32_t pkt_bytes, int iters)
{
	/* a rank sends about twice its buffer in an allreduce, less in the
	 * others; dispatch and combine send one message per token and expert */
	double per_rank = (double)p->bytes *
			  (gs_coll_is_moe(p->coll) ? (double)p->moe_tokens * p->moe_topk : 2.0);
	return (double)p->nranks * per_rank / pkt_bytes * (double)iters;
}

/* The memory a run's connections will take, estimated before it starts:
 * the distinct (peer, channel) sends of up to eight ranks spread over the
 * run (the first, the last and six between: rank 0 alone misses ranks of
 * another kind, such as NVLS's helpers), averaged, times the ranks; each
 * connection its record, its totals, its share of the lookup table (kept
 * at most half full, so two to four slots) and the transport's and
 * critical path's per-connection state; a third more for what grows with
 * them (the arrays' spare capacity, the messages in flight). Scans at most
 * 2^20 steps of a sampled rank; 0 where it would take more (unknown). An
 * all-to-all of 4096 GPUs opens 16.7 M connections: about 6 GB. */
static double conn_bytes_estimate(const sim *m)
{
	const gs_gen *gen = m->gen;
	const uint32_t spc = m->spc > 0 ? (uint32_t)m->spc : 1;
	const int nsample = m->nranks < 8 ? m->nranks : 8;
	GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
	gs_step win[256];
	double total = 0;
	for (int k = 0; k < nsample; k++) {
		const int r = nsample > 1 ? (int)((int64_t)k * (m->nranks - 1) / (nsample - 1)) : 0;
		uint64_t len = 0;
		for (int c = 0; c < gen->nstrands; c++)
			len += sim_strand_len(gen, m->cshift, m->cgroup, m->ckeep, r, c);
		if (len > (UINT64_C(1) << 20)) {
			g_hash_table_destroy(seen);
			return 0;
		}
		g_hash_table_remove_all(seen);
		for (int c = 0; c < gen->nstrands; c++) {
			uint64_t n = sim_strand_len(gen, m->cshift, m->cgroup, m->ckeep, r, c);
			for (uint64_t at = 0; at < n; at += G_N_ELEMENTS(win)) {
				uint32_t nw = (uint32_t)MIN((uint64_t)G_N_ELEMENTS(win), n - at);
				gen->ops->fill(gen, r, c, at, nw, win);
				for (uint32_t i = 0; i < nw; i++) {
					const gs_step *st = &win[i];
					const gs_op op = (gs_op)st->op;
					if (!(gs_op_sends(op) || (gs_op_one_sided(op) && op != GS_OP_WAIT)) ||
					    st->send_peer < 0 || st->send_peer == r)
						continue;
					g_hash_table_add(seen,
							 GSIZE_TO_POINTER((gsize)(uint32_t)st->send_peer << 20 |
									  (gsize)((uint32_t)c / spc)));
				}
			}
		}
		total += (double)g_hash_table_size(seen);
	}
	g_hash_table_destroy(seen);
	double conns = nsample > 0 ? total / nsample * (double)m->nranks : 0;
	double per = (double)(sizeof(conn) + sizeof(conn_tot) + 3 * (sizeof(uint64_t) + sizeof(uint32_t)));
	if (m->xp)
		per += (double)sizeof(xpq);
	if (m->cp)
		per += (double)(sizeof(cpconn) + 4 * sizeof(cpmsg));
	return conns * per * 4.0 / 3.0;
}

double gm_coll_estimate_s(uint64_t steps, int nranks, double packet_events)
{
	double per_step = 0.5e-6 * (nranks > 512 ? sqrt((double)nranks / 512.0) : 1.0);
	return (double)steps * per_step + packet_events * 50e-9;
}

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

int gm_coll_fold_ranks(const gt_topo *topo, const gs_gen *gen, const gm_coll_opts *o)
{
	const int n = gs_gen_nranks(gen);
	if (o->no_fold || o->trace || o->on_step || o->nfaults > 0 ||
	    gen->nhelpers > 0 || gen->rank_period <= 0 || n != topo->ngpus)
		return n;
	const int64_t tp = gt_topo_period(topo);
	const int64_t g = o->gpus_per_thread > 1 ? o->gpus_per_thread : 1;
	if (tp <= 0)
		return n;
	int64_t q = gen->rank_period;
	q = q / gcd64(q, tp) * tp;
	q = q / gcd64(q, g) * g;
	return q < n && n % q == 0 ? (int)q : n;
}

int gm_coll_fold_channels(const gt_topo *topo, const gs_gen *gen, const gm_coll_opts *o)
{
	const int spc = gen->strands_per_channel > 0 ? gen->strands_per_channel : 1;
	const int nch = gen->nstrands / spc, R = gen->p.ranks_per_node, G = gs_gen_chan_group(gen);
	if (o->no_fold || o->trace || o->on_step || o->nfaults > 0 || gen->chan_shift <= 0 ||
	    gen->p.nranks != topo->ngpus || R != topo->gpus_per_node || R < 2 ||
	    (int64_t)gen->chan_shift * R != G || nch % G != 0 || !gt_topo_rotates(topo))
		return 1;
	/* the ranks must run alike: no transport's per-rank threads, no host
	 * thread enqueuing one GPU after another, no proxy sends; and one
	 * operation: a rank's next one starts when all its channels are done,
	 * and its channels other than the simulated ones end when the other
	 * ranks' simulated ones do */
	if (o->pkt_bytes || (o->xport && o->xport->kind != GM_XPORT_NONE) || o->net_send_proxy ||
	    o->async_sends || (o->gpus_per_thread > 1 && o->enqueue_ps > 0) || o->iters > 1)
		return 1;
	/* each channel's CTA link moves with its channel */
	if (topo->chan_cap_Bps > 0 && topo->chan_links > 0 && topo->chan_links != nch)
		return 1;
	/* helpers (a node's NVLS switch units) stay in place, reached over
	 * their node's GPU ports; the network's (SHARP) are refused with the
	 * topology */
	return R;
}

int gm_coll_fold_repeat(const gt_topo *topo, const gs_gen *gen, int cfold)
{
	const int spc = gen->strands_per_channel > 0 ? gen->strands_per_channel : 1;
	const int T = gen->chan_repeat, G = gs_gen_chan_group(gen), groups = gen->nstrands / spc / G;
	/* a channel's own CTA link carries its channel alone: no sharing
	 * stands for that */
	if (cfold <= 1 || T <= 0 || groups % T != 0 || groups <= T ||
	    (topo->chan_cap_Bps > 0 && topo->chan_links > 0))
		return 1;
	return groups / T;
}

gc_status gm_coll_simulate(const gt_topo *topo, const gs_gen *gen, const gm_coll_opts *o,
			   bool want_links, gm_coll_result *res, char **errmsg)
{
	memset(res, 0, sizeof(*res));
	if (gen->p.nranks != topo->ngpus) {
		*errmsg = g_strdup_printf("schedule for %d ranks on a topology of %d GPUs",
					  gen->p.nranks, topo->ngpus);
		return GC_ERR_INPUT;
	}
	/* the ranks simulated: a block that stands for all, or all */
	const int nsim = gm_coll_fold_ranks(topo, gen, o);
	const bool folded = nsim < gs_gen_nranks(gen);
	/* else the channels that stand for the others, or all */
	const int cfold = folded ? 1 : gm_coll_fold_channels(topo, gen, o);
	const int cshift = cfold > 1 ? gen->chan_shift : 0, cgroup = gs_gen_chan_group(gen);
	/* and the channel groups that repeat on the same links */
	const int crep = gm_coll_fold_repeat(topo, gen, cfold);
	const int ckeep = crep > 1 ? gen->chan_repeat : 0;
	if (crep > 1 && o->check) {
		char *why = NULL;
		if (!gs_gen_repeat_holds(gen, ckeep, &why)) {
			*errmsg = g_strdup_printf("channel-folded run: the schedule's channel groups do not "
						  "repeat every %d: %s",
						  ckeep, why);
			g_free(why);
			return GC_ERR_INTERNAL;
		}
	}
	if (cfold > 1 && o->check) {
		char *why = NULL;
		if (!gs_gen_rotation_holds(gen, cshift, cgroup, &why)) {
			*errmsg = g_strdup_printf("channel-folded run: the schedule does not rotate by %d "
						  "channels a rank: %s",
						  cshift, why);
			g_free(why);
			return GC_ERR_INTERNAL;
		}
	}
	if (folded && o->check) {
		/* check mode: the schedule repeats as it says, step by step */
		char *why = NULL;
		if (!gs_gen_period_holds(gen, nsim, &why)) {
			*errmsg = g_strdup_printf("folded run: the schedule does not repeat every %d "
						  "ranks: %s",
						  nsim, why);
			g_free(why);
			return GC_ERR_INTERNAL;
		}
	}
	/* the steps, and the strands that have some (at least one a rank) */
	uint64_t steps = 0, total = 0;
	for (int r = 0; r < nsim; r++) {
		uint64_t busy = 0;
		for (int c = 0; c < gen->nstrands; c++) {
			const uint64_t len = sim_strand_len(gen, cshift, cgroup, ckeep, r, c);
			steps += len;
			busy += len > 0;
		}
		total += busy ? busy : 1;
	}
	steps *= (uint64_t)o->iters;
	/* state is O(strands); refuse sizes that cannot fit in memory */
	if (total > (UINT64_C(1) << 24)) {
		*errmsg = g_strdup_printf("%d ranks x %d strands: %llu strands with steps, more than the "
					  "16777216 this simulator keeps in memory; use fewer channels "
					  "or GPUs",
					  nsim, gen->nstrands, (unsigned long long)total);
		return GC_ERR_INPUT;
	}
	/* about 50 ns per step on one core: refuse runs that would take hours */
	if (steps > UINT64_C(10000000000)) {
		*errmsg = g_strdup_printf("%llu steps to simulate (%d ranks): more than the 10^10 this "
					  "simulator takes on (hours of work); use --fidelity analytical, "
					  "fewer GPUs or a larger collective.slice",
					  (unsigned long long)steps, gen->p.nranks);
		return GC_ERR_INPUT;
	}
	/* packet fidelity: about two events per packet and hop (~50 ns each);
	 * estimate the packets from the bytes every rank moves */
	double events = 2.0 * (double)steps;
	if (o->pkt_bytes) {
		/* every message is at least one packet; folded, the simulated
		 * ranks' share */
		double pkts = gm_coll_packets_estimate(&gen->p, o->pkt_bytes, o->iters) * nsim /
				      gen->p.nranks +
			      (double)steps * (double)o->iters;
		if (pkts > GM_COLL_MAX_PACKETS) {
			*errmsg = g_strdup_printf("about %.3g packets to simulate (%d ranks, %llu-byte "
						  "packets): more than the %.0e the packet fidelity takes "
						  "on; use a larger sim.packet, smaller sizes or the flow "
						  "fidelity",
						  pkts, gen->p.nranks, (unsigned long long)o->pkt_bytes,
						  GM_COLL_MAX_PACKETS);
			return GC_ERR_INPUT;
		}
		events += 2.0 * pkts;
	}
	/* check mode verifies every strand, connection and link after every
	 * event (about two per step, or per packet and hop), and in packet
	 * fidelity every message in flight; one-sided PUTs take no credit, so
	 * all of a schedule's messages may be in flight at once: keep that
	 * below ~5e8 verifications */
	uint64_t per_event = 3 * total + 8 * (uint64_t)topo->ngpus +
			     (o->pkt_bytes && gen->nsignals ? steps / (uint64_t)o->iters : 0);
	if (o->check && events > 5e8 / (double)per_event) {
		*errmsg = g_strdup_printf("about %.3g events to simulate with --check, which verifies "
					  "every strand, connection and link after every event: too slow "
					  "here (use smaller sizes, fewer GPUs or larger slices with "
					  "--check)",
					  events);
		return GC_ERR_INPUT;
	}
	sim *m = g_new0(sim, 1);
	ge_engine_init(&m->eng, o->seed);
	m->eng.check = o->check;
	m->topo = topo;
	m->gen = gen;
	m->o = o;
	m->noop = gm_coll_noop(&gen->p);
	m->nranks = nsim; /* helpers (the switch's engines) run strands too */
	m->nreal = gs_gen_nranks(gen);
	m->folded = folded;
	m->cfold = cfold;
	m->cshift = cshift;
	m->cgroup = cgroup;
	m->ckeep = ckeep;
	m->crep = crep;
	m->nstr = gen->nstrands;
	m->spc = gen->strands_per_channel > 0 ? gen->strands_per_channel : 1;
	m->nstrands = (uint32_t)total;
	m->rfirst = g_new(uint32_t, (uint64_t)m->nranks + 1);
	gm_net_init(&m->net, &m->eng, on_flow_done, m);
	gm_net_set_solve(&m->net, o->solve);
	if (o->pkt_bytes)
		gm_net_set_packet(&m->net, o->pkt_bytes, o->pkt_buf, on_land);
	if (o->trace && o->trace_links) {
		m->net.trace = o->trace;
		m->net.trace_pid = 0;
		ge_trace_name_process(o->trace, 0, "links (utilization)");
	}
	m->ent = ge_entity_add(&m->eng, &coll_ops, m);
	gt_topo_instantiate(topo, &m->net);
	/* crep channels' flows on every link where one is simulated: each
	 * simulated flow gets the share crep alike flows would (max-min
	 * sharing among flows that stand for crep each is sharing of 1 /
	 * crep of every link among single flows) */
	if (crep > 1)
		gm_net_scale_bandwidth(&m->net, 1.0 / crep);
	gm_fault_apply(&m->net, o->faults, o->nfaults);
	for (size_t i = 0; i < o->nfaults && !o->pkt_bytes; i++)
		if (o->faults[i].down_ps >= 0 && !m->link_down) {
			m->link_down = g_new(int64_t, m->net.nlinks);
			for (uint32_t l = 0; l < m->net.nlinks; l++)
				m->link_down[l] = gm_fault_link_down(&m->net, o->faults, o->nfaults, l);
		}
	for (size_t i = 0; i < o->nfaults && !o->pkt_bytes; i++)
		if (o->faults[i].loss > 0 && !m->link_loss) {
			m->link_loss = g_new0(double, m->net.nlinks);
			for (uint32_t l = 0; l < m->net.nlinks; l++)
				m->link_loss[l] = gm_fault_link_loss(&m->net, o->faults, o->nfaults, l);
			gc_rng_seed(&m->loss_rng, o->seed, UINT64_C(0x1055));
		}
	if (o->xport && o->xport->kind != GM_XPORT_NONE) {
		m->xp = o->xport;
		m->xp_proxy = g_new0(int64_t, m->nranks);
		m->xp_proxy_busy = g_new0(int64_t, m->nranks);
		m->xp_turn = g_new0(uint32_t, m->nranks);
		m->xp_nic = g_new0(int64_t, m->net.nlinks);
		m->xp_nic_busy = g_new0(int64_t, m->net.nlinks);
		if (m->xp->queues > 0)
			m->xp_sq = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
		if (m->xp->amo_acked) {
			m->xw = g_new0(xpsrv, m->nranks);
			m->xw_window = gm_xport_amo_window(m->xp, gen->p.nranks);
		}
	}
	m->strands = gc_aligned_renew(NULL, 0, m->nstrands, sizeof(strand));
	if (o->on_step) {
		m->stamps = g_new(struct stamp, m->nstrands);
		for (uint32_t i = 0; i < m->nstrands; i++)
			m->stamps[i] = (struct stamp){-1, -1};
	}
	m->cp = o->critical_path && !o->pkt_bytes;
	if (m->cp) {
		m->scp = g_new0(gm_cpv, m->nstrands);
		gm_net_track_bottlenecks(&m->net);
	}
	uint64_t fit = WINBUF_MAX / ((uint64_t)m->nstrands * sizeof(gs_step));
	m->wshift = 0;
	while ((2u << m->wshift) <= WIN && (2u << m->wshift) <= fit)
		m->wshift++;
	m->win = 1u << m->wshift;
	m->winbuf = g_new(gs_step, (uint64_t)m->nstrands << m->wshift);
	gc_hugepages(m->winbuf, ((uint64_t)m->nstrands << m->wshift) * sizeof(gs_step));
	m->ranks = g_new0(rankst, m->nranks);
	m->nsig = gen->nsignals;
	m->iters = (uint32_t)(o->iters > 0 ? o->iters : 1);
	m->signals = g_new0(uint64_t, (uint64_t)m->nranks * m->nsig * m->iters);
	if (m->cp)
		m->sigcp = g_new0(gm_cpv, (uint64_t)m->nranks * m->nsig * m->iters);
	m->sig_wait = g_new(uint32_t, (uint64_t)m->nranks * m->nsig);
	for (uint64_t i = 0; i < (uint64_t)m->nranks * m->nsig; i++)
		m->sig_wait[i] = NONE;
	m->rmask = 1;
	while (m->rmask < m->nstrands)
		m->rmask <<= 1;
	m->ready = g_new(uint32_t, m->rmask);
	m->rmask--;
	uint32_t nst = 0;
	for (int r = 0; r < m->nranks; r++) {
		if (o->trace) {
			char name[32];
			if (r < gen->p.nranks)
				snprintf(name, sizeof(name), "rank %d", r);
			else
				snprintf(name, sizeof(name), "switch unit %d", r - gen->p.nranks);
			ge_trace_name_process(o->trace, r + 1, name);
			for (int c = 0; c < m->nstr; c++) {
				snprintf(name, sizeof(name), "channel %d", c);
				ge_trace_name_thread(o->trace, r + 1, c, name);
			}
		}
		m->rfirst[r] = nst;
		for (int c = 0; c < m->nstr; c++) {
			const uint64_t len = sim_strand_len(gen, cshift, cgroup, ckeep, r, c);
			if (len == 0 && (c < m->nstr - 1 || nst > m->rfirst[r]))
				continue;
			strand *s = &m->strands[nst++];
			s->rank = (uint32_t)r;
			s->ch = (uint32_t)c;
			s->len = len;
			s->send_conn = s->recv_conn = s->send_alt = s->recv_alt = 0;
		}
		ge_schedule_in(&m->eng, host_ready(m, (uint32_t)r, 0), m->ent, EV_LAUNCH, (uint64_t)r,
			       "the operation's launch");
	}
	m->rfirst[m->nranks] = nst;
	/* connection 0 is a sentinel no step ever matches, so the cached
	 * connection ids of every strand are valid from the start */
	m->conns = gc_aligned_renew(NULL, 0, 1, sizeof(conn));
	m->ctot = g_new0(conn_tot, 1);
	m->capconns = 1;
	m->nconns = 1;
	m->conns[0].src = m->conns[0].dst = NONE;
	m->conns[0].waiting_send = m->conns[0].waiting_recv = NONE;
	m->conns[0].qmask = 3;
	if (m->cp) {
		m->ccp = g_new0(cpconn, 1);
		m->ccp[0].q = g_new0(cpmsg, 4);
	}
	if (m->xp)
		m->xq = g_new0(xpq, 1);

	m->steps_total = steps;
	m->est_s = gm_coll_estimate_s(steps, m->nranks, events - 2.0 * (double)steps);
	if (o->on_progress)
		o->on_progress(o->progress_ctx, 0, steps, m->est_s, conn_bytes_estimate(m));
	gc_status st = ge_run(&m->eng, GE_TIME_MAX);
	if (st != GC_OK) {
		*errmsg = g_strdup(m->eng.errmsg);
	} else if (m->ranks_done < (uint32_t)m->nranks && m->link_down && m->lost > 0) {
		/* a link stopped and took messages with it: the operation
		 * stalls where it was (its watchdog is the caller's) */
		memset(res, 0, sizeof(*res));
		res->stalled = true;
		res->total_ps = res->time_ps = m->eng.now;
		res->steps = m->steps_done;
		res->steps_total = steps;
		res->lost = m->lost;
		res->events = m->eng.events_handled;
		res->messages = m->messages;
		res->sim_ranks = m->nranks;
		res->xp_proxy_rank = res->xp_nic_link = -1;
	} else if (m->ranks_done < (uint32_t)m->nranks) {
		st = deadlock_report(m, errmsg);
	} else if (m->steps_done != steps) {
		st = GC_ERR_INTERNAL;
		*errmsg = g_strdup_printf("executed %llu steps, schedule has %llu (all iterations)",
					  (unsigned long long)m->steps_done, (unsigned long long)steps);
	}
	if (st == GC_OK && !res->stalled) {
		gm_net_finish_stats(&m->net, m->end_time);
		res->total_ps = m->end_time;
		res->time_ps = m->end_time / o->iters;
		res->events = m->eng.events_handled;
		/* folded: each simulated rank stood for nreal / nranks;
		 * channel-folded, each simulated channel for cfold x crep */
		const uint64_t per =
			(uint64_t)(m->nreal / m->nranks) * (uint64_t)m->cfold * (uint64_t)m->crep;
		res->steps = m->steps_done * per;
		res->messages = m->messages * per;
		res->sim_ranks = m->nranks;
		res->chan_fold = m->cfold * m->crep;
		res->retransmits = m->retransmits;
		res->heap_peak = m->eng.heap_peak;
		res->flow_recomputes = m->net.recomputes;
		res->xp_proxy_rank = res->xp_nic_link = -1;
		for (int r = 0; m->xp && r < m->nranks; r++)
			if (m->xp_proxy_busy[r] > res->xp_proxy_busy_ps) {
				res->xp_proxy_busy_ps = m->xp_proxy_busy[r];
				res->xp_proxy_rank = r;
			}
		for (uint32_t l = 0; m->xp && l < m->net.nlinks; l++)
			if (m->xp_nic_busy[l] > res->xp_nic_busy_ps) {
				res->xp_nic_busy_ps = m->xp_nic_busy[l];
				res->xp_nic_link = (int)l;
			}
		res->xp_msgs = m->xp_msgs * per;
		if (m->cp) {
			gm_cpv e = m->cpend;
			gm_cpv_to(&e, m->end_time, GM_CP_OTHER);
			res->has_cp = true;
			memcpy(res->cp_ps, e.c, sizeof(res->cp_ps));
		}
		if (want_links) {
			res->nlinks = m->net.nlinks;
			res->links = g_new(gm_link_stat, m->net.nlinks);
			for (uint32_t i = 0; i < m->net.nlinks; i++) {
				/* folded: every link's figures are its image's */
				uint32_t k = m->folded	     ? gt_topo_fold_link(topo, i, m->nranks)
					     : m->cfold > 1 ? gt_topo_rotate_link(topo, i, m->cshift, m->cgroup)
							    : i;
				gm_link *l = &m->net.links[k];
				gm_link_stat *ls = &res->links[i];
				memcpy(ls->name, m->net.info[i].name, sizeof(ls->name));
				/* each flow stood for crep alike */
				ls->bw_Bps = l->bw_Bps * m->crep;
				ls->bytes = l->bytes * m->crep;
				ls->busy_ps = l->busy_ps;
				ls->max_flows = l->max_flows * (uint32_t)m->crep;
			}
		}
	}
	for (uint32_t i = 0; i < m->nconns; i++) {
		if (m->conns[i].qmask >= 4)
			g_free(m->conns[i].q.heap);
		if (m->cp)
			g_free(m->ccp[i].q);
		if (m->xp) {
			g_free(m->xq[i].v);
			g_free(m->xq[i].lv);
		}
	}
	g_free(m->xq);
	g_free(m->lc);
	g_free(m->link_loss);
	g_free(m->cdown);
	g_free(m->link_down);
	g_free(m->xp_proxy);
	g_free(m->xp_proxy_busy);
	g_free(m->xp_turn);
	for (int i = 0; m->xw && i < m->nranks; i++) {
		g_free(m->xw[i].req.v);
		g_free(m->xw[i].in.v);
	}
	g_free(m->xw);
	g_free(m->xp_nic);
	g_free(m->xp_nic_busy);
	if (m->xp_sq)
		g_hash_table_destroy(m->xp_sq);
	g_free(m->ccp);
	g_free(m->stamps);
	g_free(m->scp);
	g_free(m->sigcp);
	g_free(m->pool);
	g_free(m->pfree);
	gc_aligned_free(m->conns);
	g_free(m->ctot);
	g_free(m->hs);
	g_free(m->ready);
	g_free(m->ranks);
	g_free(m->signals);
	g_free(m->sig_wait);
	g_free(m->winbuf);
	gc_aligned_free(m->strands);
	g_free(m->rfirst);
	gm_net_fini(&m->net);
	ge_engine_fini(&m->eng);
	g_free(m);
	return st;
}
