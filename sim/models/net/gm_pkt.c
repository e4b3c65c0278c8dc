/* SPDX-License-Identifier: MIT */
/*
 * gm_pkt: packet-level transfers over gm_net's links (store and forward).
 *
 * A flow of B bytes is ceil(B / P) packets of P bytes (the last one holds
 * the rest). Flows belong to queues: a queue is a connection (one route; a
 * queue pair, an NCCL channel's connection) whose packets stay in order, so
 * its messages land in the order they were sent, as on a reliable
 * connection. When a flow starts, its packets wait at the first hop behind
 * those of the queue's earlier flows.
 *
 * A link sends one packet at a time (P / bandwidth). When it is free it
 * takes the next entry of its ready ring, a (queue, hop) pair with a packet
 * waiting there, sends the queue's oldest packet, and puts the entry back at
 * the tail if the queue still has one ready: queues sharing a link take
 * turns packet by packet (round robin), the packet-level counterpart of the
 * fluid model's fair share. A packet reaches the next hop one link latency
 * after it has left, whole (store and forward), and waits there for that
 * hop's link.
 *
 * Back-pressure: a queue's packet may leave hop h only while the queue has
 * fewer than lim packets waiting at hop h+1 or on their way there (a
 * lossless fabric's credits). lim is hop_buffer plus the packets link h
 * sends in its latency: a buffer sized to the link's bandwidth-delay
 * product, as lossless fabrics size theirs, so that the credit loop alone
 * never throttles a flow (the latencies here are mostly end-to-end protocol
 * costs, not wires). A queue held back by a slower link further on stops
 * taking its turns upstream, and the other queues there get the bandwidth,
 * as max-min fairness gives it to them.
 *
 * A flow's on_done fires when its last packet has left the first link; its
 * on_land fires when the last packet has left the last link and crossed its
 * latency. Events: one per packet per link, one per packet arrival at a
 * later hop with a latency before it, one per landing with a latency.
 *
 * Invariants (gm_pkt_check): per queue and hop, the packets waiting there
 * or on their way are exactly those the previous hop sent and this one has
 * not; a queue's flows are listed oldest first; a link's ring holds only
 * entries of its own hop, each once (flagged in its queue).
 *
 * Trace: a link's utilization counter is 1 while packets follow each other
 * on its wire and 0 when it falls idle (one pair per busy period).
 */
#include "gm_pkt.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#define NONE UINT32_MAX

static inline uint32_t entry(uint32_t queue, int hop) { return queue << 4 | (uint32_t)hop; }
static inline uint32_t entry_queue(uint32_t e) { return e >> 4; }
static inline int entry_hop(uint32_t e) { return (int)(e & 15); }
_Static_assert(GM_MAX_HOPS <= 16, "a hop index fits in four bits");

/* May queue Q send a packet from hop h now? */
static inline bool ready(const gm_pqueue *Q, int h)
{
	return Q->q[h] > 0 && (h + 1 == Q->nhops || Q->q[h + 1] + Q->t[h + 1] < Q->lim[h + 1]);
}

/* Put (queue, hop) in its link's ring if it is ready and not there yet;
 * true if it was added. */
static bool enqueue(gm_net *n, uint32_t qid, int h)
{
	gm_pqueue *Q = &n->pq[qid];
	if (Q->inq[h] || !ready(Q, h))
		return false;
	Q->inq[h] = 1;
	gc_fifo_push(&n->pl[Q->route[h]].ring, entry(qid, h));
	return true;
}

static void trace_busy(gm_net *n, uint32_t lid, double v)
{
	if (n->trace && n->trace->f)
		ge_trace_counter(n->trace, n->trace_pid, n->info[lid].name, n->eng->now, v);
}

/* Link lid is free: put the next ready entry's packet on the wire. */
static void try_send(gm_net *n, uint32_t lid)
{
	gm_plink *p = &n->pl[lid];
	if (p->cur != NONE)
		return;
	/* an entry was ready when queued, but packets still on the wire may
	 * have filled its next hop since: drop such entries (the next hop's
	 * link queues them again when it makes room) */
	uint32_t e, qid;
	int h;
	gm_pqueue *Q;
	do {
		if (p->ring.n == 0)
			return;
		e = (uint32_t)gc_fifo_pop(&p->ring);
		qid = entry_queue(e);
		h = entry_hop(e);
		Q = &n->pq[qid];
		Q->inq[h] = 0;
	} while (!ready(Q, h));
	uint32_t fid = Q->cur[h];
	gm_pflow *pf = &n->pf[fid];
	uint32_t bytes = pf->sent[h] + 1 == pf->npk ? pf->last_bytes : n->pkt_bytes;
	Q->q[h]--;
	if (h + 1 < Q->nhops)
		Q->t[h + 1]++;
	if (++pf->sent[h] == pf->npk)
		Q->cur[h] = pf->next; /* the queue's next flow, if it has started */
	p->cur = e;
	p->cur_flow = fid;
	p->cur_bytes = bytes;
	if (!p->busy) {
		p->busy = 1;
		trace_busy(n, lid, 1);
	}
	gm_link *l = &n->links[lid];
	ge_schedule_in(n->eng, (double)bytes * l->ps_per_byte, n->ent_id, GM_PKT_EV_TX, lid,
		       "a packet");
	enqueue(n, qid, h); /* round robin: back at the tail */
	if (p->ring.n + 1 > l->max_flows)
		l->max_flows = (uint32_t)p->ring.n + 1;
	/* a place freed at hop h: the queue may send into it again */
	if (h > 0 && enqueue(n, qid, h - 1))
		try_send(n, Q->route[h - 1]);
}

/* Queue qid has one more packet waiting at hop h. */
static void arrive(gm_net *n, uint32_t qid, int h)
{
	n->pq[qid].t[h]--;
	n->pq[qid].q[h]++;
	enqueue(n, qid, h);
	try_send(n, n->pq[qid].route[h]);
}

void gm_pkt_start(gm_net *n, uint32_t fid, uint32_t qid, uint64_t land_tag)
{
	gm_flow *f = &n->flows[fid];
	if (!n->pl) {
		n->pl = g_new0(gm_plink, n->nlinks);
		for (uint32_t i = 0; i < n->nlinks; i++)
			n->pl[i].cur = NONE;
	}
	g_assert(qid < (UINT32_C(1) << 28)); /* entry() keeps 28 bits of queue */
	if (qid >= n->npq) {
		uint32_t old = n->npq;
		n->npq = qid + 1 > 2 * old ? qid + 1 : 2 * old;
		n->pq = g_renew(gm_pqueue, n->pq, n->npq);
		memset(&n->pq[old], 0, (n->npq - old) * sizeof(gm_pqueue));
		for (uint32_t i = old; i < n->npq; i++)
			n->pq[i].head = n->pq[i].tail = NONE;
	}
	gm_pqueue *Q = &n->pq[qid];
	if (Q->nhops == 0) {
		Q->nhops = f->nhops;
		for (int h = 0; h < f->nhops; h++) {
			Q->route[h] = f->hop[h].link;
			Q->cur[h] = NONE;
		}
		for (int h = 0; h < f->nhops; h++) {
			Q->lat[h] = gm_net_hop_latency(n, Q->route, Q->nhops, h);
			if (h == 0)
				continue;
			/* hop_buffer + the previous link's bandwidth-delay product */
			uint32_t prev = Q->route[h - 1];
			double pkt_ps = (double)n->pkt_bytes * n->links[prev].ps_per_byte;
			double bdp = ceil((double)Q->lat[h - 1] / pkt_ps);
			Q->lim[h] = n->pkt_buf + (bdp < 1e9 ? (uint32_t)bdp : 1000000000u);
		}
	}
	g_assert(Q->nhops == f->nhops);
	for (int h = 0; h < f->nhops; h++)
		g_assert(Q->route[h] == f->hop[h].link);
	gm_pflow *pf = &n->pf[fid];
	memset(pf, 0, sizeof(*pf));
	uint64_t bytes = (uint64_t)f->bytes;
	uint64_t npk = bytes ? (bytes + n->pkt_bytes - 1) / n->pkt_bytes : 1;
	g_assert(npk < UINT32_MAX);
	pf->npk = (uint32_t)npk;
	pf->last_bytes = (uint32_t)(bytes - (npk - 1) * n->pkt_bytes);
	pf->queue = qid;
	pf->next = NONE;
	pf->land_tag = land_tag;
	if (Q->tail != NONE)
		n->pf[Q->tail].next = fid;
	else
		Q->head = fid;
	Q->tail = fid;
	/* hops where every earlier flow is through now send this one */
	for (int h = 0; h < Q->nhops; h++)
		if (Q->cur[h] == NONE)
			Q->cur[h] = fid;
	Q->q[0] += pf->npk;
	enqueue(n, qid, 0);
	try_send(n, Q->route[0]);
}

/* The packet on link lid's wire has left it. */
static void sent(gm_net *n, uint32_t lid)
{
	gm_plink *p = &n->pl[lid];
	gm_link *l = &n->links[lid];
	uint32_t qid = entry_queue(p->cur);
	int h = entry_hop(p->cur);
	uint32_t fid = p->cur_flow;
	gm_pqueue *Q = &n->pq[qid];
	gm_pflow *pf = &n->pf[fid];
	gm_flow *f = &n->flows[fid];
	l->bytes += p->cur_bytes;
	l->busy_ps += (int64_t)((double)p->cur_bytes * l->ps_per_byte);
	n->packets++;
	p->cur = NONE;
	int64_t lat = Q->lat[h];
	bool flow_sent = h == 0 && pf->sent[0] == pf->npk;
	bool landed = false;
	uint64_t land_tag = pf->land_tag, tag = f->tag;
	if (h + 1 < Q->nhops) {
		if (lat > 0)
			ge_schedule(n->eng, n->eng->now + lat, n->ent_id, GM_PKT_EV_ARRIVE, entry(qid, h + 1));
		else
			arrive(n, qid, h + 1);
	} else if (pf->sent[h] == pf->npk) {
		/* the flow's last packet is through: it leaves its queue (it is
		 * the oldest: a queue's packets stay in order) */
		g_assert(Q->head == fid);
		Q->head = pf->next;
		if (Q->head == NONE)
			Q->tail = NONE;
		f->active = 0;
		f->remaining = 0;
		n->nactive--;
		n->bytes_done += f->bytes;
		n->free_ids[n->nfree++] = fid;
		landed = true;
	}
	try_send(n, lid);
	if (p->cur == NONE) {
		p->busy = 0;
		trace_busy(n, lid, 0);
	}
	if (flow_sent && n->on_done)
		n->on_done(n->ctx, tag, n->eng->now);
	if (landed && land_tag != GM_NET_NO_TAG && n->on_land) {
		if (lat > 0)
			ge_schedule(n->eng, n->eng->now + lat, n->ent_id, GM_PKT_EV_LAND, land_tag);
		else
			n->on_land(n->ctx, land_tag, n->eng->now);
	}
}

void gm_pkt_handle(gm_net *n, uint32_t kind, uint64_t arg)
{
	if (kind == GM_PKT_EV_ARRIVE)
		arrive(n, entry_queue((uint32_t)arg), entry_hop((uint32_t)arg));
	else if (kind == GM_PKT_EV_LAND)
		n->on_land(n->ctx, arg, n->eng->now);
	else
		sent(n, (uint32_t)arg);
}

gc_status gm_pkt_check(const gm_net *n, char **errmsg)
{
	double outstanding = 0;
	uint32_t active = 0;
	for (uint32_t qid = 0; qid < n->npq; qid++) {
		const gm_pqueue *Q = &n->pq[qid];
		uint32_t waiting[GM_MAX_HOPS] = {0}, between[GM_MAX_HOPS] = {0};
		for (uint32_t fid = Q->head; fid != NONE; fid = n->pf[fid].next) {
			const gm_pflow *pf = &n->pf[fid];
			const gm_flow *f = &n->flows[fid];
			active++;
			outstanding += f->bytes;
			waiting[0] += pf->npk - pf->sent[0];
			for (int h = 1; h < Q->nhops; h++)
				between[h] += pf->sent[h - 1] - pf->sent[h];
			if (!f->active || pf->queue != qid || pf->sent[0] > pf->npk) {
				*errmsg = g_strdup_printf("queue %u lists flow %u wrongly", qid, fid);
				return GC_ERR_INTERNAL;
			}
		}
		bool ok = Q->nhops == 0 || Q->q[0] == waiting[0];
		for (int h = 1; h < Q->nhops && ok; h++)
			ok = Q->q[h] + Q->t[h] == between[h];
		if (!ok) {
			*errmsg = g_strdup_printf("queue %u: packets not conserved along its route", qid);
			return GC_ERR_INTERNAL;
		}
	}
	uint64_t flagged = 0, ringed = 0;
	for (uint32_t qid = 0; qid < n->npq; qid++)
		for (int h = 0; h < n->pq[qid].nhops; h++)
			flagged += n->pq[qid].inq[h];
	for (uint32_t i = 0; n->pl && i < n->nlinks; i++) {
		const gm_plink *p = &n->pl[i];
		ringed += p->ring.n;
		for (size_t k = 0; k < p->ring.n; k++) {
			uint32_t e = (uint32_t)gc_fifo_at(&p->ring, k);
			const gm_pqueue *Q = &n->pq[entry_queue(e)];
			if (!Q->inq[entry_hop(e)] || Q->route[entry_hop(e)] != i) {
				*errmsg = g_strdup_printf("link %s: ring entry of queue %u hop %d misplaced",
							  n->info[i].name, entry_queue(e), entry_hop(e));
				return GC_ERR_INTERNAL;
			}
		}
	}
	if (flagged != ringed) {
		*errmsg = g_strdup_printf("%llu (queue, hop) pairs flagged as queued, %llu in rings",
					  (unsigned long long)flagged, (unsigned long long)ringed);
		return GC_ERR_INTERNAL;
	}
	if (active != n->nactive) {
		*errmsg = g_strdup_printf("%u active flows in queues, counter says %u", active, n->nactive);
		return GC_ERR_INTERNAL;
	}
	double err = n->bytes_started - n->bytes_done - outstanding;
	if (err > 1e-6 * n->bytes_started + 1 || err < -(1e-6 * n->bytes_started + 1)) {
		*errmsg = g_strdup_printf("bytes not conserved: started %.0f, done %.0f, in flight %.0f",
					  n->bytes_started, n->bytes_done, outstanding);
		return GC_ERR_INTERNAL;
	}
	return GC_OK;
}

void gm_pkt_fini(gm_net *n)
{
	for (uint32_t i = 0; n->pl && i < n->nlinks; i++)
		gc_fifo_free(&n->pl[i].ring);
	g_free(n->pl);
	g_free(n->pf);
	g_free(n->pq);
}
