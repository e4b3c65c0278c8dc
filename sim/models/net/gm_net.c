/* SPDX-License-Identifier: MIT */
/*
 * gm_net: max-min fair flow sharing over links (see gm_net.h).
 *
 * Progressive filling on one component: every link starts with its whole
 * bandwidth and the count of its unfixed flows; repeatedly the link with the
 * smallest fair share (capacity left / unfixed flows) fixes all its unfixed
 * flows at that share, which is then subtracted from the other links those
 * flows cross. This is the classic water-filling algorithm (Bertsekas and
 * Gallager, Data Networks, 6.5.2); the result is unique. Starts and ends
 * only note the links they touch; the component is solved once at the end
 * of the instant (defer_solve).
 */
#include "gm_net.h"
#include "gm_pkt.h"

#include "../../core/gc_mem.h"

#include <glib.h>
#include <math.h>
#include <string.h>

/* 2 to 4 are the packet mode's (gm_pkt.h) */
enum { EV_FLOW_DONE = 1, EV_SOLVE = 5 };

const char *gm_link_kind_name(gm_link_kind k)
{
	switch (k) {
	case GM_LINK_NVLINK: return "nvlink";
	case GM_LINK_PCIE: return "pcie";
	case GM_LINK_NIC: return "nic";
	case GM_LINK_CHANNEL: return "channel";
	case GM_LINK_HOST: return "host";
	default: return "link";
	}
}

static gc_status net_handle(ge_engine *e, void *self, const ge_event *ev);
static gc_status net_check(const ge_engine *e, const void *self, char **errmsg);

static const ge_entity_ops net_ops = {
	.name = "net",
	.handle = net_handle,
	.check = net_check,
};

void gm_net_init(gm_net *n, ge_engine *eng, gm_net_done_fn on_done, void *ctx)
{
	memset(n, 0, sizeof(*n));
	n->eng = eng;
	n->on_done = on_done;
	n->ctx = ctx;
	n->ent_id = ge_entity_add(eng, &net_ops, n);
}

void gm_net_fini(gm_net *n)
{
	for (uint32_t i = 0; i < n->nlinks; i++)
		if (n->links[i].capflows > 2)
			g_free(n->links[i].fl.heap);
	gc_aligned_free(n->links);
	g_free(n->info);
	g_free(n->lmark);
	gc_aligned_free(n->flows);
	g_free(n->flow_mark);
	g_free(n->bneck);
	g_free(n->pend);
	g_free(n->free_ids);
	g_free(n->comp_links);
	g_free(n->comp_flows);
	g_free(n->sc_cap);
	g_free(n->sc_unfixed);
	g_free(n->sc_lid);
	g_free(n->sc_at);
	g_free(n->dheap);
	g_free(n->dpos);
	gc_heap_keys_free(n->dkey, sizeof(ge_key));
	g_free(n->bk_kind);
	g_free(n->bk_since);
	g_free(n->bk_acc);
	gm_pkt_fini(n);
	memset(n, 0, sizeof(*n));
}

uint32_t gm_net_add_link(gm_net *n, const char *name, gm_link_kind kind, double bw_Bps,
			 int64_t lat_ps)
{
	g_assert(bw_Bps > 0 && lat_ps >= 0);
	if (n->nlinks == n->caplinks) {
		uint32_t old = n->caplinks;
		n->caplinks = old ? old * 2 : 64;
		n->links = gc_aligned_renew(n->links, old, n->caplinks, sizeof(gm_link));
		n->info = g_renew(gm_link_info, n->info, n->caplinks);
		n->lmark = g_renew(uint32_t, n->lmark, n->caplinks);
	}
	gm_link *l = &n->links[n->nlinks];
	memset(l, 0, sizeof(*l));
	l->bw_Bps = bw_Bps;
	l->ps_per_byte = 1e12 / bw_Bps;
	n->lmark[n->nlinks] = 0;
	gm_link_info *li = &n->info[n->nlinks];
	memset(li, 0, sizeof(*li));
	li->lat_ps = lat_ps;
	li->kind = (uint8_t)kind;
	g_strlcpy(li->name, name, sizeof(li->name));
	return n->nlinks++;
}

void gm_net_scale_bandwidth(gm_net *n, double f)
{
	g_assert(f > 0);
	for (uint32_t i = 0; i < n->nlinks; i++) {
		n->links[i].bw_Bps *= f;
		n->links[i].ps_per_byte = 1e12 / n->links[i].bw_Bps;
	}
}

static bool crosses_nic(const gm_net *n, const uint32_t *route, int nhops)
{
	for (int h = 0; h < nhops; h++)
		if (n->info[route[h]].kind == GM_LINK_NIC)
			return true;
	return false;
}

int64_t gm_net_hop_latency(const gm_net *n, const uint32_t *route, int nhops, int h)
{
	const gm_link_info *li = &n->info[route[h]];
	if (li->kind == GM_LINK_NVLINK && crosses_nic(n, route, nhops))
		return 0;
	return li->lat_ps;
}

int64_t gm_net_route_latency(const gm_net *n, const uint32_t *route, int nhops)
{
	const bool net = crosses_nic(n, route, nhops);
	int64_t lat = 0;
	for (int h = 0; h < nhops; h++)
		if (!(net && n->info[route[h]].kind == GM_LINK_NVLINK))
			lat += n->info[route[h]].lat_ps;
	return lat;
}

int64_t gm_net_estimate_ps(const gm_net *n, const uint32_t *route, int nhops, double bytes)
{
	double bw = INFINITY;
	for (int h = 0; h < nhops; h++)
		bw = fmin(bw, n->links[route[h]].bw_Bps);
	int64_t t = gm_net_route_latency(n, route, nhops);
	if (bytes > 0)
		t += ge_ps_sat(bytes / bw * 1e12);
	return t;
}

static void link_add_flow(gm_net *n, uint32_t lid, uint32_t fid, int hop)
{
	gm_link *l = &n->links[lid];
	if (l->capflows < 2) {
		l->capflows = 2;
	} else if (l->nflows == l->capflows) {
		uint32_t *nf = g_new(uint32_t, l->capflows * 2);
		memcpy(nf, gm_link_flows(l), l->nflows * sizeof(uint32_t));
		if (l->capflows > 2)
			g_free(l->fl.heap);
		l->capflows *= 2;
		l->fl.heap = nf;
	}
	if (l->nflows == 0)
		l->busy_since = n->eng->now;
	n->flows[fid].hop[hop].slot = l->nflows;
	gm_link_flows(l)[l->nflows++] = fid;
	if (l->nflows > l->max_flows)
		l->max_flows = l->nflows;
}

static void link_remove_flow(gm_net *n, uint32_t lid, uint32_t fid, int hop)
{
	gm_link *l = &n->links[lid];
	uint32_t s = n->flows[fid].hop[hop].slot;
	uint32_t *lf = gm_link_flows(l);
	g_assert(s < l->nflows && lf[s] == fid);
	uint32_t moved = lf[--l->nflows];
	if (moved != fid) {
		lf[s] = moved;
		gm_flow *mf = &n->flows[moved];
		for (int h = 0; h < mf->nhops; h++)
			if (mf->hop[h].link == lid) {
				mf->hop[h].slot = s;
				break;
			}
	}
	if (l->nflows == 0)
		l->busy_ps += n->eng->now - l->busy_since;
}

static void comp_push_link(gm_net *n, uint32_t lid)
{
	if (n->ncomp_links == n->capcomp_links) {
		n->capcomp_links = n->capcomp_links ? n->capcomp_links * 2 : 64;
		n->comp_links = g_renew(uint32_t, n->comp_links, n->capcomp_links);
	}
	n->comp_links[n->ncomp_links++] = lid;
	n->lmark[lid] = n->epoch;
}

static void comp_push_flow(gm_net *n, uint32_t fid)
{
	if (n->ncomp_flows == n->capcomp_flows) {
		n->capcomp_flows = n->capcomp_flows ? n->capcomp_flows * 2 : 64;
		n->comp_flows = g_renew(uint32_t, n->comp_flows, n->capcomp_flows);
	}
	n->comp_flows[n->ncomp_flows++] = fid;
	n->flow_mark[fid] = n->epoch;
}

/* Start a collection at the given seed links: a new epoch, the seeds. */
static void collect_seeds(gm_net *n, const uint32_t *seeds, int nseeds)
{
	n->epoch++;
	if (n->epoch == 0) { /* wrapped: clear marks */
		for (uint32_t i = 0; i < n->nlinks; i++)
			n->lmark[i] = 0;
		if (n->capflows)
			memset(n->flow_mark, 0, n->capflows * sizeof(uint32_t));
		n->epoch = 1;
	}
	n->ncomp_links = n->ncomp_flows = 0;
	for (int i = 0; i < nseeds; i++)
		if (n->lmark[seeds[i]] != n->epoch)
			comp_push_link(n, seeds[i]);
}

/* Collect the component reachable from the given seed links. */
static void collect(gm_net *n, const uint32_t *seeds, int nseeds)
{
	collect_seeds(n, seeds, nseeds);
	for (uint32_t li = 0; li < n->ncomp_links; li++) {
		gm_link *l = &n->links[n->comp_links[li]];
		for (uint32_t k = 0; k < l->nflows; k++) {
			uint32_t fid = gm_link_flows(l)[k];
			if (n->flow_mark[fid] == n->epoch)
				continue;
			comp_push_flow(n, fid);
			gm_flow *f = &n->flows[fid];
			for (int h = 0; h < f->nhops; h++)
				if (n->lmark[f->hop[h].link] != n->epoch)
					comp_push_link(n, f->hop[h].link);
		}
	}
	n->comp_flow_visits += n->ncomp_flows;
}

/* The end-time heap (gm_net.h): a 4-ary min-heap of flows by their end
 * (time, seq) packed as one engine key, stored in the heap next to the
 * flow id so that a sift compares keys without touching the flows. */
static inline void dheap_place(gm_net *n, uint32_t i, ge_key k, uint32_t fid)
{
	n->dkey[i] = k;
	n->dheap[i] = fid;
	n->dpos[fid] = i;
}

/* Move the entry at heap index i up, then down, to its place. */
static void dheap_fix(gm_net *n, uint32_t i)
{
	ge_key k = n->dkey[i];
	uint32_t fid = n->dheap[i];
	while (i > 0 && k < n->dkey[(i - 1) / 4]) {
		uint32_t p = (i - 1) / 4;
		dheap_place(n, i, n->dkey[p], n->dheap[p]);
		i = p;
	}
	for (;;) {
		uint32_t c = 4 * i + 1;
		if (c >= n->ndheap)
			break;
		ge_key bk;
		uint32_t best = (uint32_t)ge_heap_min4(n->dkey, c, &bk);
		if (!(bk < k))
			break;
		dheap_place(n, i, bk, n->dheap[best]);
		i = best;
	}
	dheap_place(n, i, k, fid);
}

static void dheap_remove(gm_net *n, uint32_t fid)
{
	uint32_t i = n->dpos[fid];
	n->dpos[fid] = UINT32_MAX;
	const uint32_t last = --n->ndheap;
	const ge_key lk = n->dkey[last];
	n->dkey[last] = GE_KEY_PAD; /* past the end now (ge_heap_min4) */
	if (last != i) {
		dheap_place(n, i, lk, n->dheap[last]);
		dheap_fix(n, i);
	}
}

/* Give the earliest end its engine event, unless it has one. */
static void arm(gm_net *n)
{
	if (n->ndheap == 0)
		return;
	uint32_t fid = n->dheap[0];
	gm_flow *f = &n->flows[fid];
	if (f->armed)
		return;
	f->armed = 1;
	ge_schedule_reserved(n->eng, ge_key_time(n->dkey[0]), ge_key_seq(n->dkey[0]), n->ent_id,
			     EV_FLOW_DONE, ((uint64_t)fid << 32) | f->version);
}

/* Set the end of flow fid dt_ps from now, rounded up to whole picoseconds
 * (a cast truncates; add one if it did), under the seq an event scheduled
 * now would get. Past the engine's horizon it fails the run. */
static void schedule_done_in(gm_net *n, uint32_t fid, double dt_ps)
{
	gm_flow *f = &n->flows[fid];
	ge_time t;
	if (!ge_time_in(n->eng, dt_ps, "a transfer", &t))
		return;
	f->version++; /* its engine event, if any, is superseded */
	f->armed = 0;
	ge_key k = ge_key_make(t, ge_reserve_seq(n->eng));
	uint32_t i = n->dpos[fid];
	if (i == UINT32_MAX)
		i = n->ndheap++;
	dheap_place(n, i, k, fid);
	dheap_fix(n, i);
}

/* A flow alone on its route keeps its rate until another flow joins one
 * of its links, and most never see one (rings): its end goes straight to
 * the engine, and only a rate change later moves it into the heap. */
static void schedule_done_direct(gm_net *n, uint32_t fid, double dt_ps)
{
	gm_flow *f = &n->flows[fid];
	f->version++;
	f->armed = ge_schedule_in(n->eng, dt_ps, n->ent_id, EV_FLOW_DONE,
				  ((uint64_t)fid << 32) | f->version, "a transfer");
}

static void schedule_done(gm_net *n, uint32_t fid)
{
	const gm_flow *f = &n->flows[fid];
	schedule_done_in(n, fid, f->remaining / f->rate * 1e12);
}

/* Bottleneck tracking: flow fid's rate is held by a link of `kind` from
 * now on. */
static void bk_set(gm_net *n, uint32_t fid, uint8_t kind, int64_t now)
{
	if (n->bk_kind[fid] == kind)
		return;
	n->bk_acc[(size_t)fid * GM_LINK__COUNT + n->bk_kind[fid]] += now - n->bk_since[fid];
	n->bk_kind[fid] = kind;
	n->bk_since[fid] = now;
}

/* Bottleneck tracking: flow fid starts on route; until a solve says
 * otherwise, its slowest link holds its rate. */
static inline void bk_start(gm_net *n, uint32_t fid, const uint32_t *route, int nhops)
{
	uint32_t slowest = route[0];
	for (int h = 1; h < nhops; h++)
		if (n->links[route[h]].bw_Bps < n->links[slowest].bw_Bps)
			slowest = route[h];
	n->bk_kind[fid] = n->info[slowest].kind;
	n->bk_since[fid] = n->eng->now;
	memset(&n->bk_acc[(size_t)fid * GM_LINK__COUNT], 0, GM_LINK__COUNT * sizeof(int64_t));
}

/* Bottleneck tracking: flow fid ended now; its times go to done_bk. */
static G_GNUC_NO_INLINE void bk_finish(gm_net *n, uint32_t fid, int64_t now)
{
	bk_set(n, fid, GM_LINK__COUNT, now); /* closes the last stretch */
	memcpy(n->done_bk, &n->bk_acc[(size_t)fid * GM_LINK__COUNT], sizeof(n->done_bk));
}

/* Fix the unfixed flows of link l at `level` (progressive filling): settle
 * each one's bytes at its old rate, reschedule its end if the rate
 * changes, and take the rate off every link of its route. A rate within
 * `keep` (relative) of the level stays as it was: a local solve computes
 * the capacity a link has left by another sum than the component's, and
 * its last bits would otherwise move the end of most flows it visits.
 * Returns how many it fixed. */
static uint32_t fix_flows(gm_net *n, const gm_link *l, double level, double keep, int64_t now)
{
	uint32_t fixed = 0;
	for (uint32_t k = 0; k < l->nflows; k++) {
		gm_flow *f = &n->flows[gm_link_flows_c(l)[k]];
		if (f->fixed)
			continue;
		f->fixed = 1;
		fixed++;
		n->bneck[f - n->flows] = (uint32_t)(l - n->links);
		if (G_UNLIKELY(n->track))
			bk_set(n, (uint32_t)(f - n->flows), n->info[l - n->links].kind, now);
		const double share = fabs(level - f->rate) <= keep * level ? f->rate : level;
		if (share != f->rate) {
			f->remaining -= f->rate * (double)(now - f->last_t) * 1e-12;
			if (f->remaining < 0)
				f->remaining = 0;
			f->last_t = now;
			f->rate = share;
			schedule_done(n, (uint32_t)(f - n->flows));
		}
		for (int h = 0; h < f->nhops; h++) {
			const uint32_t at = n->sc_at[f->hop[h].link];
			n->sc_cap[at] -= share;
			n->sc_unfixed[at]--;
		}
	}
	return fixed;
}

/* Progressive filling over the collected links and flows; reschedules the
 * completion of every flow whose rate changed. With `part` the collected
 * flows are part of their component (settle()): the flows of the collected
 * links that are not collected keep their rates, which come off the
 * links' capacities, and count as fixed. */
static void solve(gm_net *n, bool part)
{
	int64_t now = n->eng->now;
	n->recomputes++;
	if (n->capsc < n->ncomp_links) {
		n->capsc = n->ncomp_links * 2;
		n->sc_cap = g_renew(double, n->sc_cap, n->capsc);
		n->sc_unfixed = g_renew(uint32_t, n->sc_unfixed, n->capsc);
		n->sc_lid = g_renew(uint32_t, n->sc_lid, n->capsc);
	}
	if (n->capsc_at < n->nlinks) {
		n->capsc_at = n->nlinks;
		n->sc_at = g_renew(uint32_t, n->sc_at, n->capsc_at);
	}
	double *cap = n->sc_cap;
	uint32_t *unf = n->sc_unfixed, *lids = n->sc_lid;
	for (uint32_t i = 0; i < n->ncomp_links; i++) {
		uint32_t lid = n->comp_links[i];
		const gm_link *l = &n->links[lid];
		lids[i] = lid;
		cap[i] = l->bw_Bps;
		unf[i] = l->nflows;
		n->sc_at[lid] = i;
		if (part)
			for (uint32_t k = 0; k < l->nflows; k++) {
				const uint32_t fid = gm_link_flows_c(l)[k];
				gm_flow *f = &n->flows[fid];
				if (n->flow_mark[fid] != n->epoch) {
					f->fixed = 1;
					cap[i] -= f->rate;
					unf[i]--;
				}
			}
	}
	for (uint32_t i = 0; i < n->ncomp_flows; i++)
		n->flows[n->comp_flows[i]].fixed = 0;
	uint32_t left = n->ncomp_flows;
	const double keep = part ? 1e-12 : 0;
	/* the links still to settle, in the component's order: each pass
	 * drops those whose flows are all fixed (the trace below needs them
	 * all, so with a trace none is dropped) */
	uint32_t nl = n->ncomp_links;
	const bool keep_all = n->trace && n->trace->f;
	while (left > 0) {
		uint32_t best = UINT32_MAX;
		double best_share = INFINITY;
		for (uint32_t i = 0; i < nl; i++) {
			if (unf[i] == 0)
				continue;
			double share = cap[i] / unf[i];
			if (share < best_share) {
				best_share = share;
				best = i;
			}
		}
		g_assert(best != UINT32_MAX);
		gm_link *bl = &n->links[lids[best]];
		/* rounding may leave a saturated link a hair below zero */
		if (best_share < bl->bw_Bps * 1e-12)
			best_share = bl->bw_Bps * 1e-12;
		left -= fix_flows(n, bl, best_share, keep, now);
		/* every other link at exactly this share saturates at the same
		 * level (fixing flows at the share leaves a link's share where
		 * it was or above), so it is settled in the same pass: many
		 * private links of one rate (a ring channel's own) take one pass
		 * instead of one each. The links left move down in place (a
		 * fix reaches an unsettled one where sc_at says: its own slot,
		 * or the one it has already moved to) */
		uint32_t kept = 0;
		for (uint32_t i = 0; i < nl; i++) {
			const uint32_t lid = lids[i];
			if (i != best && unf[i] > 0 && left > 0 && cap[i] / unf[i] == best_share)
				left -= fix_flows(n, &n->links[lid], best_share, keep, now);
			if (unf[i] > 0 || keep_all) {
				cap[kept] = cap[i];
				unf[kept] = unf[i];
				lids[kept] = lid;
				n->sc_at[lid] = kept++;
			}
		}
		nl = kept;
	}
	arm(n);
	if (n->trace && n->trace->f) {
		for (uint32_t i = 0; i < n->ncomp_links; i++) {
			uint32_t lid = n->comp_links[i];
			gm_link *l = &n->links[lid];
			double used = 0;
			for (uint32_t k = 0; k < l->nflows; k++)
				used += n->flows[gm_link_flows(l)[k]].rate;
			ge_trace_counter(n->trace, n->trace_pid, n->info[lid].name, now, used / l->bw_Bps);
		}
	}
}

/* Rates change only at instants where flows start or end, and lockstep
 * collectives start and end many at one instant: each start or end only
 * notes its links, and one solve at the end of the instant (an event at
 * the same time, after those already queued) settles the component they
 * touch. Max-min sharing depends only on the set of flows, so the rates
 * are those a solve after every change would reach, for a fraction of the
 * work (and of the superseded completion events each solve leaves). */
static void defer_solve(gm_net *n, const uint32_t *route, int nhops)
{
	if (n->npend + (uint32_t)nhops > n->cappend) {
		n->cappend = (n->cappend + (uint32_t)nhops) * 2;
		n->pend = g_renew(uint32_t, n->pend, n->cappend);
	}
	for (int h = 0; h < nhops; h++)
		n->pend[n->npend++] = route[h];
	if (!n->solve_queued) {
		n->solve_queued = true;
		ge_schedule(n->eng, n->eng->now, n->ent_id, EV_SOLVE, 0);
	}
}

/* settle(): put flow fid in the collected set, and its links. */
static void settle_add(gm_net *n, uint32_t fid)
{
	comp_push_flow(n, fid);
	const gm_flow *f = &n->flows[fid];
	for (int h = 0; h < f->nhops; h++)
		if (n->lmark[f->hop[h].link] != n->epoch)
			comp_push_link(n, f->hop[h].link);
}

/* settle(): after a solve of the collected flows, the flows of the
 * collected links that the max-min conditions now put in question (added
 * to the set; returns how many). A rate is max-min fair when its flow has
 * a bottleneck: a saturated link on which no flow is faster. The collected
 * flows have theirs from the solve, and no uncollected flow may be faster
 * there (else it joins); an uncollected flow whose bottleneck is one of
 * the collected links keeps it only if that link is still saturated and
 * the flow still among its fastest (else it joins). Links that no
 * collected flow crosses carry only unchanged rates, so their flows keep
 * their bottlenecks. rel: the relative tolerance of the comparisons. */
static uint32_t settle_check(gm_net *n, double rel)
{
	uint32_t added = 0, nl = n->ncomp_links;
	for (uint32_t i = 0; i < nl; i++) {
		const uint32_t lid = n->comp_links[i];
		const gm_link *l = &n->links[lid];
		const uint32_t *lf = gm_link_flows_c(l);
		double load = 0, fastest = 0, level = INFINITY;
		bool outside = false;
		for (uint32_t k = 0; k < l->nflows; k++) {
			const uint32_t fid = lf[k];
			const double r = n->flows[fid].rate;
			load += r;
			fastest = r > fastest ? r : fastest;
			if (n->flow_mark[fid] != n->epoch)
				outside = true;
			else if (n->bneck[fid] == lid && r < level)
				level = r;
		}
		if (!outside)
			continue;
		const bool saturated = load >= l->bw_Bps * (1 - rel);
		for (uint32_t k = 0; k < l->nflows; k++) {
			const uint32_t fid = lf[k];
			if (n->flow_mark[fid] == n->epoch)
				continue;
			const double r = n->flows[fid].rate;
			if (r > level * (1 + rel) ||
			    (n->bneck[fid] == lid && (!saturated || r < fastest * (1 - rel)))) {
				settle_add(n, fid);
				added++;
			}
		}
	}
	return added;
}

/* Rates after a change, solving only the flows it can move. The flows of
 * the links that changed are solved with every other flow's rate held;
 * where that breaks the max-min conditions of a flow held (settle_check),
 * it joins and the set is solved again. The result is the max-min
 * allocation of the whole component (a flow held keeps a bottleneck, so
 * its rate is already max-min fair: the allocation is unique), found
 * without collecting the component, which in a pipelined collective on
 * thousands of GPUs couples every flow through shared links while a
 * change moves a handful of rates. A set that keeps growing gives way to
 * the solve of the whole component. */
static void settle(gm_net *n, const uint32_t *seeds, int nseeds)
{
	enum { MAX_ROUNDS = 8 };
	collect_seeds(n, seeds, nseeds);
	for (uint32_t li = 0, nl = n->ncomp_links; li < nl; li++) {
		const gm_link *l = &n->links[n->comp_links[li]];
		for (uint32_t k = 0; k < l->nflows; k++)
			if (n->flow_mark[gm_link_flows_c(l)[k]] != n->epoch)
				settle_add(n, gm_link_flows_c(l)[k]);
	}
	if (n->ncomp_flows == 0)
		return;
	n->local_solves++;
	for (int round = 0; round < MAX_ROUNDS; round++) {
		solve(n, true);
		if (settle_check(n, 1e-9) == 0) {
			n->comp_flow_visits += n->ncomp_flows;
			return;
		}
		if (2 * n->ncomp_flows > n->nactive)
			break;
	}
	n->local_fallbacks++;
	collect(n, seeds, nseeds);
	solve(n, false);
}

static void solve_pending(gm_net *n)
{
	n->solve_queued = false;
	/* auto: whole components until one of more than GM_NET_LOCAL_FROM
	 * flows is met, then local solves while that many flows are active */
	if (n->nactive <= GM_NET_LOCAL_FROM)
		n->big = false;
	const bool trace = n->trace && n->trace->f;
	if (!trace && (n->solve_mode == GM_NET_SOLVE_LOCAL ||
		       (n->solve_mode == GM_NET_SOLVE_AUTO && n->big))) {
		settle(n, n->pend, (int)n->npend);
		n->npend = 0;
		return;
	}
	collect(n, n->pend, (int)n->npend);
	if (n->ncomp_flows > GM_NET_LOCAL_FROM)
		n->big = true;
	if (n->ncomp_flows > 0)
		solve(n, false);
	else if (n->trace && n->trace->f)
		for (uint32_t i = 0; i < n->ncomp_links; i++)
			ge_trace_counter(n->trace, n->trace_pid, n->info[n->comp_links[i]].name,
					 n->eng->now, 0);
	n->npend = 0;
}

void gm_net_set_solve(gm_net *n, gm_net_solve mode)
{
	n->solve_mode = (uint8_t)mode;
}

void gm_net_track_bottlenecks(gm_net *n)
{
	g_assert(n->capflows == 0 && !n->pkt_bytes);
	n->track = true;
}

const int64_t *gm_net_done_bottlenecks(const gm_net *n)
{
	return n->done_bk;
}

void gm_net_set_packet(gm_net *n, uint32_t pkt_bytes, uint32_t hop_buffer, gm_net_land_fn on_land)
{
	g_assert(n->capflows == 0 && pkt_bytes > 0 && hop_buffer > 0);
	n->pkt_bytes = pkt_bytes;
	n->pkt_buf = hop_buffer;
	n->on_land = on_land;
}

/* Store and forward of identical packets (the last one smaller) through
 * hops with per-packet times s_h, all packets at hop 0 at time 0: packet j
 * leaves hop h at C(j,h) = max(C(j-1,h), C(j,h-1) + lat_{h-1}) + s_h. */
int64_t gm_net_estimate_pkt_ps(const gm_net *n, const uint32_t *route, int nhops, double bytes)
{
	g_assert(n->pkt_bytes > 0 && nhops >= 1);
	if (bytes <= 0)
		return gm_net_route_latency(n, route, nhops);
	uint64_t b = (uint64_t)bytes, P = n->pkt_bytes;
	uint64_t npk = (b + P - 1) / P;
	int64_t prev[GM_MAX_HOPS] = {0}; /* C(j-1, h) */
	for (uint64_t j = 0; j < npk; j++) {
		uint64_t sz = j + 1 == npk ? b - (npk - 1) * P : P;
		int64_t t = 0; /* C(j, h-1) + lat */
		for (int h = 0; h < nhops; h++) {
			const gm_link *l = &n->links[route[h]];
			int64_t idt = ge_ps_sat((double)sz * l->ps_per_byte);
			int64_t start = prev[h] > t ? prev[h] : t;
			prev[h] = start + idt;
			t = prev[h] + gm_net_hop_latency(n, route, nhops, h);
		}
	}
	return prev[nhops - 1] + gm_net_hop_latency(n, route, nhops, nhops - 1);
}

uint32_t gm_net_start(gm_net *n, const uint32_t *route, int nhops, double bytes, uint64_t tag)
{
	g_assert(!n->pkt_bytes); /* packet mode: flows need a queue */
	return gm_net_start_queued(n, 0, route, nhops, bytes, tag, GM_NET_NO_TAG);
}

uint32_t gm_net_start_queued(gm_net *n, uint32_t queue, const uint32_t *route, int nhops,
			     double bytes, uint64_t tag, uint64_t land_tag)
{
	/* packet mode carries empty messages too: one packet of no bytes that
	 * keeps its place in the queue */
	g_assert(nhops >= 1 && nhops <= GM_MAX_HOPS && (bytes > 0 || (n->pkt_bytes && bytes == 0)));
	uint32_t fid;
	if (n->nfree > 0) {
		fid = n->free_ids[--n->nfree];
	} else {
		uint32_t old = n->capflows;
		n->capflows = old ? old * 2 : 256;
		n->flows = gc_aligned_renew(n->flows, old, n->capflows, sizeof(gm_flow));
		n->free_ids = g_renew(uint32_t, n->free_ids, n->capflows);
		n->flow_mark = g_renew(uint32_t, n->flow_mark, n->capflows);
		memset(n->flow_mark + old, 0, (n->capflows - old) * sizeof(uint32_t));
		n->bneck = g_renew(uint32_t, n->bneck, n->capflows);
		n->dheap = g_renew(uint32_t, n->dheap, n->capflows);
		n->dpos = g_renew(uint32_t, n->dpos, n->capflows);
		memset(n->dpos + old, 0xff, (n->capflows - old) * sizeof(uint32_t));
		n->dkey = ge_heap_keys_grow(n->dkey, old, n->capflows);
		if (n->pkt_bytes)
			n->pf = g_renew(gm_pflow, n->pf, n->capflows);
		if (n->track) {
			n->bk_kind = g_renew(uint8_t, n->bk_kind, n->capflows);
			n->bk_since = g_renew(int64_t, n->bk_since, n->capflows);
			n->bk_acc = g_renew(int64_t, n->bk_acc, (size_t)n->capflows * GM_LINK__COUNT);
		}
		for (uint32_t i = n->capflows; i > old + 1; i--)
			n->free_ids[n->nfree++] = i - 1;
		fid = old;
	}
	gm_flow *f = &n->flows[fid];
	/* every field is set here (mark and version survive reuse: stale
	 * events of the previous user of this slot must stay stale) */
	f->nhops = (uint8_t)nhops;
	f->active = 1;
	f->fixed = 0;
	f->armed = 0;
	f->bytes = f->remaining = bytes;
	f->rate = 0;
	f->last_t = n->eng->now;
	f->tag = tag;
	n->nactive++;
	n->flows_started++;
	n->bytes_started += bytes;
	if (n->pkt_bytes) {
		for (int h = 0; h < nhops; h++)
			f->hop[h].link = route[h];
		gm_pkt_start(n, fid, queue, land_tag);
		return fid;
	}
	for (int h = 0; h < nhops; h++) {
		f->hop[h].link = route[h];
		link_add_flow(n, route[h], fid, h);
	}
	if (G_UNLIKELY(n->track))
		bk_start(n, fid, route, nhops);
	/* fast path: alone on every link of its route, the flow is a component
	 * by itself and gets the route's bottleneck bandwidth */
	bool alone = true;
	const gm_link *slow = &n->links[route[0]];
	for (int h = 0; h < nhops && alone; h++) {
		const gm_link *l = &n->links[route[h]];
		alone = l->nflows == 1;
		slow = l->bw_Bps < slow->bw_Bps ? l : slow;
	}
	if (alone && !(n->trace && n->trace->f)) {
		n->bneck[fid] = (uint32_t)(slow - n->links);
		f->rate = slow->bw_Bps;
		schedule_done_direct(n, fid, bytes * slow->ps_per_byte);
		return fid;
	}
	defer_solve(n, route, nhops);
	return fid;
}

static gc_status net_handle(ge_engine *e, void *self, const ge_event *ev)
{
	gm_net *n = self;
	if (ev->kind == EV_SOLVE) {
		solve_pending(n);
		return GC_OK;
	}
	if (ev->kind != EV_FLOW_DONE) {
		gm_pkt_handle(n, ev->kind, ev->arg);
		return GC_OK;
	}
	uint32_t fid = (uint32_t)(ev->arg >> 32);
	uint32_t ver = (uint32_t)ev->arg;
	gm_flow *f = &n->flows[fid];
	if (!f->active || f->version != ver)
		return GC_OK; /* superseded by a rate change */
	if (n->dpos[fid] != UINT32_MAX) { /* else its end went straight to the engine */
		g_assert(n->dheap[0] == fid && ge_key_time(n->dkey[0]) == e->now);
		dheap_remove(n, fid);
	}
	uint32_t route[GM_MAX_HOPS];
	int nhops = f->nhops;
	for (int h = 0; h < nhops; h++)
		route[h] = f->hop[h].link;
	for (int h = 0; h < nhops; h++) {
		link_remove_flow(n, route[h], fid, h);
		n->links[route[h]].bytes += f->bytes;
	}
	f->active = 0;
	f->remaining = 0;
	n->nactive--;
	n->bytes_done += f->bytes;
	if (G_UNLIKELY(n->track))
		bk_finish(n, fid, e->now);
	uint64_t tag = f->tag;
	n->free_ids[n->nfree++] = fid;
	/* a flow alone on its route changes nobody's rate: no solve (the
	 * trace still wants its links' counters) */
	bool empty = true;
	for (int h = 0; h < nhops && empty; h++)
		empty = n->links[route[h]].nflows == 0;
	if (!empty || (n->trace && n->trace->f))
		defer_solve(n, route, nhops);
	n->on_done(n->ctx, tag, e->now);
	arm(n);
	return GC_OK;
}

void gm_net_finish_stats(gm_net *n, int64_t t)
{
	for (uint32_t i = 0; i < n->nlinks; i++)
		if (n->links[i].nflows > 0) {
			n->links[i].busy_ps += t - n->links[i].busy_since;
			n->links[i].busy_since = t;
		}
}

/* The rates fit (within rel): no link carries more than its bandwidth.
 * Once the instant's changes are solved they are also max-min fair: every
 * active flow has a bottleneck, a link that its flows fill and on which
 * none is faster. Both solves (the component's and settle()'s) must give
 * such rates, whatever they collected. */
static gc_status check_rates(const gm_net *n, double rel, char **errmsg)
{
	double *load = g_new0(double, n->nlinks), *fastest = g_new0(double, n->nlinks);
	gc_status st = GC_OK;
	for (uint32_t i = 0; i < n->nlinks && st == GC_OK; i++) {
		const gm_link *l = &n->links[i];
		for (uint32_t k = 0; k < l->nflows; k++) {
			const double r = n->flows[gm_link_flows_c(l)[k]].rate;
			load[i] += r;
			fastest[i] = r > fastest[i] ? r : fastest[i];
		}
		if (load[i] > l->bw_Bps * (1 + rel)) {
			*errmsg = g_strdup_printf("link %s oversubscribed: %g of %g B/s", n->info[i].name,
						  load[i], l->bw_Bps);
			st = GC_ERR_INTERNAL;
		}
	}
	for (uint32_t fid = 0; fid < n->capflows && st == GC_OK && !n->solve_queued; fid++) {
		const gm_flow *f = &n->flows[fid];
		if (!f->active)
			continue;
		bool held = false;
		for (int h = 0; h < f->nhops && !held; h++) {
			const uint32_t lid = f->hop[h].link;
			held = load[lid] >= n->links[lid].bw_Bps * (1 - rel) &&
			       f->rate >= fastest[lid] * (1 - rel);
		}
		if (!held) {
			*errmsg = g_strdup_printf("flow %u (rate %g B/s): no link of its route holds "
						  "it (max-min sharing would give it more)",
						  fid, f->rate);
			st = GC_ERR_INTERNAL;
		}
	}
	g_free(load);
	g_free(fastest);
	return st;
}

gc_status gm_net_check(const gm_net *n, char **errmsg)
{
	if (n->pkt_bytes)
		return gm_pkt_check(n, errmsg);
	double outstanding = 0;
	uint32_t active = 0;
	for (uint32_t fid = 0; fid < n->capflows; fid++) {
		const gm_flow *f = &n->flows[fid];
		if (!f->active)
			continue;
		active++;
		double rem = f->remaining - f->rate * (double)(n->eng->now - f->last_t) * 1e-12;
		/* completion times are rounded up to whole picoseconds, so at its
		 * end a flow may be up to one picosecond of bytes past zero */
		double slack = f->rate * 1e-12 + 1e-9 * f->bytes;
		/* a flow started at this instant has no rate until its solve */
		bool unsolved = f->rate == 0 && n->solve_queued;
		if (!(f->rate > 0 || unsolved) || rem < -slack || rem > f->bytes) {
			*errmsg = g_strdup_printf("flow %u: rate %g B/s, remaining %g B", fid, f->rate, rem);
			return GC_ERR_INTERNAL;
		}
		outstanding += f->bytes;
		for (int h = 0; h < f->nhops; h++) {
			const gm_link *l = &n->links[f->hop[h].link];
			if (f->hop[h].slot >= l->nflows || gm_link_flows_c(l)[f->hop[h].slot] != fid) {
				*errmsg = g_strdup_printf("flow %u not listed on link %s", fid,
							  n->info[f->hop[h].link].name);
				return GC_ERR_INTERNAL;
			}
		}
	}
	if (active != n->nactive) {
		*errmsg = g_strdup_printf("%u active flows, counter says %u", active, n->nactive);
		return GC_ERR_INTERNAL;
	}
	/* every flow with a rate has its end in the end-time heap (in order,
	 * its earliest with an engine event) or straight in the engine */
	uint32_t inheap = 0;
	for (uint32_t fid = 0; fid < n->capflows; fid++) {
		const gm_flow *f = &n->flows[fid];
		bool in = n->dpos[fid] != UINT32_MAX, rated = f->active && f->rate > 0;
		inheap += in;
		if ((in && (!rated || n->dheap[n->dpos[fid]] != fid)) || (rated && !in && !f->armed)) {
			*errmsg = g_strdup_printf("flow %u (rate %g): %s the end-time heap, %s", fid,
						  f->rate, in ? "in" : "not in",
						  f->armed ? "armed" : "without an engine event");
			return GC_ERR_INTERNAL;
		}
	}
	for (uint32_t i = 1; i < n->ndheap; i++)
		if (n->dkey[i] < n->dkey[(i - 1) / 4]) {
			*errmsg = g_strdup_printf("end-time heap out of order at %u", i);
			return GC_ERR_INTERNAL;
		}
	if (inheap != n->ndheap || (n->ndheap > 0 && !n->flows[n->dheap[0]].armed)) {
		*errmsg = g_strdup_printf("end-time heap: %u entries, %u flows placed in it, earliest %s",
					  n->ndheap, inheap,
					  n->ndheap > 0 && n->flows[n->dheap[0]].armed ? "armed" : "unarmed");
		return GC_ERR_INTERNAL;
	}
	gc_status st = check_rates(n, 1e-9, errmsg);
	if (st != GC_OK)
		return st;
	double err = fabs(n->bytes_started - n->bytes_done - outstanding);
	if (err > 1e-6 * n->bytes_started + 1) {
		*errmsg = g_strdup_printf("bytes not conserved: started %.0f, done %.0f, in flight %.0f",
					  n->bytes_started, n->bytes_done, outstanding);
		return GC_ERR_INTERNAL;
	}
	return GC_OK;
}

static gc_status net_check(const ge_engine *e, const void *self, char **errmsg)
{
	return gm_net_check(self, errmsg);
}
