/* SPDX-License-Identifier: MIT */
/*
 * gm_analytic: closed-form time of a collective schedule on a topology.
 *
 * The same inputs as the event-driven simulator (generator parameters and
 * topology), no events. Pipelined alpha-beta formulas in the style of
 * Hockney and NCCL's own tuning model:
 *
 *   ring (allreduce K = 2(n-1) steps per loop, allgather and reduce-scatter
 *   K = n-1): per channel the data runs in L loops of per-rank chunks of c
 *   bytes (the last loop of the smaller chunks c' that remain), each step
 *   moving m slices of s = c/m bytes. With tau = s / beta the time of one
 *   slice at the channel's even share of its busiest link,
 *       T = launch + (L - 1) K step + K step' + [step' = m' tau'] alpha,
 *       step = the least T' >= m tau with T' >= max(cycle(T'), window(T'))
 *   cycle: one turn of the ring's dependency cycle per step, the mean over
 *   the ring's hops of a slice's time d_h and latency alpha_h. A slice
 *   shares its link evenly with the strands of its own ring (channels NCCL
 *   puts on one ring order move in step) and with each strand of another
 *   ring for that strand's share of the step, m d / T' (mixed hops delay
 *   each rank by its position in its ring, so rings leaving the node at
 *   different GPUs are out of step): d_h = k x / (1 - (U - k) m x / T'),
 *   x = s / B, k of the U strands on the link in the slice's ring.
 *   window: a slice holds its slot of the receive buffer for d_h + 2
 *   alpha_h (sent, delivered, consumed, credit back), so a hop moves at
 *   most (buffer / s) slices in that time. With one ring on equal hops
 *   (d = U x, all T') and one slice per step this is exactly
 *   2(n-1)(alpha + S/(n beta)) for allreduce.
 *
 *   tree (NCCL double binary tree + intra-node chain): the first slice goes
 *   up the chain (rpn - 1 hops) and the inter-node tree (height hops) and
 *   back down, each hop costing its latency plus the slice at the link's
 *   full bandwidth, on a network hop the slices of every channel head
 *   sharing the NIC (fill); then one slice leaves per round tau: every
 *   strand's transfers of a slice (up to the parent, down to each child,
 *   one after the other) on the links they cross, each sharing a link
 *   with the others for their share of the round (round_time):
 *       T = launch + 2 fill + (M - 1) tau
 *   where M is the number of slices per channel.
 *
 *   nvls (one switch; helpers R and M are its ports): a slice goes GPU ->
 *   R -> owner -> M -> GPUs, and every round moves one slice of each of the
 *   C n blocks. The first round runs its four phases one after the other
 *   through the ports (the GPU sends C n contributions, takes C reduced
 *   slices in, stores C, takes C (n - 1) multicast in: C (2n + 1) slices
 *   in all) after two GPU-to-switch latencies; every further round adds
 *   what the GPU's egress carries, C (n + 1) slices (n contributions, one
 *   owner store); after the last round's egress its multicast still comes
 *   in, a drain of about (n - 2) C slices, which the first rounds' overlap
 *   hides while a block has two slices or fewer (fully from four on, half
 *   at three, as the flow runs show):
 *       T = launch + 2 alpha_up
 *           + (C (2n + 1) + (M - 1) C (n + 1) + d(M) (n - 2) C) s / B,
 *       d(M) = min(1, max(0, (M - 2) / 2)).
 *
 *   nvls allgather and reduce-scatter (one switch, one engine): per round
 *   every GPU's port carries C slices one way (the allgather's stores of
 *   its C blocks out, the reduce-scatter's C sums in) and C n the other
 *   (the multicast of every owner's slices in, the contributions to every
 *   block out). One GPU-to-switch latency, the C slices of one round the
 *   light way (the first stores, or the last sums), and M rounds of C n
 *   slices the busy way:
 *       T = launch + alpha_up + (C + M C n) s / B.
 *
 *   nvlstree (nvls in each node, a tree of owners between nodes): the
 *   first round runs as nvls's, plus its way up and down the deeper node
 *   tree (height H hops of network latency) through the busiest NIC, which
 *   carries per round one slice each way per tree edge of each block its
 *   GPU owns (D = the largest sum over the C blocks of the node's degree in
 *   the block's tree; the first slices of all blocks travel together);
 *   every further round is bound by the GPU's port, C (n + 1) slices as
 *   for nvls, by that NIC, or by the round of every strand's transfers
 *   (R, round_time: an owner sends to its tree children and its switch one
 *   after the other); the network part lasts at least the first slices'
 *   way W up and down the tree level by level (a node's NIC takes in each
 *   child's slices, then sends to one child after the other):
 *       T = launch + 2 alpha_up + C (2n + 1) s / B
 *           + max(2 H alpha_net + D s / B_net
 *                 + (M - 1) max(C (n + 1) s / B, D s / B_net, R), W).
 *
 *   nvls across nodes (SHARP): as nvlstree with the tree replaced by the
 *   network switch: the network latency is once up to it and once back
 *   (no 2 H hops), and a NIC carries one slice each way per block its GPU
 *   owns (D = C), whatever the node count.
 *
 *   collnet (CollNet Direct: the owners gather and hand out over NVLink,
 *   the network's switch reduces): per round of M every GPU port carries
 *   each way P = 2 C (n - 1) s / B (C (n - 1) slices of contributions, as
 *   many of totals) and the NIC one slice each way per block the GPU owns,
 *   N = C s / B_net. The longest of three chains decides: the port's
 *   work, M P; the NIC's work in one direction plus the first trip up
 *   before the first one down and a round of NVLink work around them,
 *   (M + 1) N + P; every round's contributions, then the last round's trip
 *   up and down and its totals, M P / 2 + 2 N + P / 2:
 *       T = launch + 2 alpha_nvl + alpha_net
 *           + max(M P, (M + 1) N + P, (M + 1) P / 2 + 2 N).
 *
 *   collnetchain (CollNet Chain: each channel's slices reduced up a chain
 *   of the node's n GPUs to its head, through the network's switch, and
 *   back down): the first slice climbs n - 1 NVLink hops, crosses the
 *   head's NIC up and down and descends n - 1 hops, each hop carrying the
 *   first slices of the k = ceil(C/n) channels in which a GPU holds the
 *   same place; then a round per slice, bound by a GPU's port, which
 *   carries 2 (n-1)/n C slices each way, or its NIC, C/n:
 *       T = launch + 2 (n-1) (alpha_nvl + k s / B) + alpha_net
 *           + 2 k s / B_net + (M - 1) max(2 (n-1) C s / (n B), C s / (n B_net)).
 *
 *   dispatch / combine (MoE): every token-expert message of every rank,
 *   routed as drawn, loads the links of its route; the busiest link
 *   decides (the draw's imbalance included), plus the longest route:
 *       T = launch + max_link (bytes routed over it) / B(link) + max alpha.
 *   forward: a token loads the route to its entry rank of every other
 *   node it goes to once, and the route from the entry to each of that
 *   node's ranks it goes to; the latency is the longest network route's
 *   plus the longest NVLink route's (the two legs in sequence).
 *
 *   sendrecv: T = launch + alpha + M tau.
 *
 *   bruck (allgather, reduce-scatter): ceil(log2 n) rounds; in round k every
 *   strand sends its m_k = min(2^k, n - 2^k) block parts to the rank 2^k
 *   away as slices, each slice sent and the peer's received before the
 *   next: a round costs its slices times (the busiest link's load of one
 *   slice from every strand + the longest route's latency).
 *       T = launch + sum_k S_k (max_link load_k / B(link) + max alpha_k).
 *   broadcast and reduce (a chain from or to the root along each channel's
 *   ring, one slice per message): the first slice crosses the chain's
 *   G - 1 hops one after the other, each hop carrying one slice of every
 *   channel (tau_h on its busiest link, plus its route's latency); the
 *   other slices follow at the pace of the busiest link when every hop
 *   carries one slice of every channel at once (tau_ss):
 *       T = launch + sum_h (tau_h + alpha_h) + R tau_ss,
 *   R the largest channel part's bytes after its first slice, in slices
 *   (K - 1 for K whole slices; a partial last slice counts its share).
 *   pat (allgather, reduce-scatter): the same per round, with PAT's rounds
 *   (gs_pat_rounds): the distances 2^(D-1) .. 1 for the allgather (1 ..
 *   2^(D-1) for the reduce-scatter), each round's blocks one message train;
 *   the copies that pack a round when n is not a power of two are local
 *   and left out, as the copies of both algorithms are.
 *
 *   alltoall (pairwise or put): channels serve several peers at once, so
 *   the exchange is bound by rank 0's busiest link, which carries the
 *   blocks of S/n of every peer routed over it (every rank's, with a
 *   fabric whose leaf uplinks the ranks share):
 *       T = launch + max_link (blocks(link) S/n) / B(link) + max alpha.
 *
 * beta per channel is the link bandwidth divided by the number of channels
 * whose first hop shares that link (found from the schedule itself: the first
 * sending step of each strand names its peer).
 */
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../exec/gm_coll.h"

/* A kind of first hop: the links of its route, each with its bandwidth and
 * the number of strands whose first hop crosses it, and how many hops are
 * of this kind. */
typedef struct hopkind {
	int nlinks;
	double bw[GM_MAX_HOPS];
	uint32_t users[GM_MAX_HOPS];
	uint32_t same[GM_MAX_HOPS]; /* of them, strands of the hop's own ring */
	double lat;		    /* the route's latency, ps */
	double cap;		    /* the sending channel's rate (its CTA), B/s; 0: none */
	uint64_t count;
} hopkind;

typedef struct hopinfo {
	double beta;  /* worst per-channel bandwidth */
	double alpha; /* mean hop latency, ps */
	double alpha_max; /* the longest hop latency, ps */
	hopkind *kinds; /* the distinct kinds of first hop */
	int nkinds;
	uint64_t nhops;
} hopinfo;

/* The kind of a hop over route[0..h), added if new. */
static void hop_kind_add(hopinfo *hi, const gt_topo *topo, const gm_net *net, const uint32_t *users,
			 const uint32_t *same, const uint32_t *route, int h)
{
	hopkind k = {.lat = (double)gm_net_route_latency(net, route, h), .count = 1};
	/* the channel's own link (first) is its rate, not a shared link */
	int first = h > 0 && gt_topo_is_chan_link(topo, route[0]);
	if (first)
		k.cap = net->links[route[0]].bw_Bps;
	for (int i = first; i < h; i++) {
		k.bw[k.nlinks] = net->links[route[i]].bw_Bps;
		k.users[k.nlinks] = users[route[i]];
		k.same[k.nlinks++] = same[i];
	}
	h = k.nlinks;
	for (int j = 0; j < hi->nkinds; j++) {
		hopkind *o = &hi->kinds[j];
		if (o->nlinks == h && o->lat == k.lat && o->cap == k.cap &&
		    !memcmp(o->bw, k.bw, sizeof(double) * (size_t)h) &&
		    !memcmp(o->users, k.users, sizeof(uint32_t) * (size_t)h) &&
		    !memcmp(o->same, k.same, sizeof(uint32_t) * (size_t)h)) {
			o->count++;
			return;
		}
	}
	hi->kinds = g_renew(hopkind, hi->kinds, hi->nkinds + 1);
	hi->kinds[hi->nkinds++] = k;
}

/* hop_time's slice on a link when the sending channel moves at most its
 * CTA's rate: x = s / B, xc = s / cap. Each of the o strands of other
 * rings is on the link with probability p = m d / T, independently, so j
 * of them are there with the binomial probability b(j); with j there the
 * slice moves at min(cap, B / (k + j)):
 *     d = sum_j b(j) max(xc, (k + j) x).
 * Without the cap this is d = k x + o p x, hop_time's own equation; with
 * it a slice alone runs at the cap and among many at its share, which is
 * slower than either bound alone (the flow runs' channels show it). d is
 * the least solution, found by iterating from the bound max(xc, k x)
 * (the right side rises with d); a link that cannot carry the others
 * plus one slice per step gives INFINITY, as hop_time's does. */
static double capped_time(uint32_t k, uint32_t o, double x, double xc, double m, double T)
{
	if (o == 0)
		return fmax(xc, (double)k * x);
	if (1.0 - (double)o * m * x / T <= 0)
		return INFINITY;
	double d = fmax(xc, (double)k * x);
	for (int it = 0; it < 200; it++) {
		double p = fmin(1.0, m * d / T), q = 1.0 - p, sum = 0;
		/* b(j) = C(o, j) p^j q^(o - j), by the ratio of successive terms */
		double b = pow(q, (double)o);
		for (uint32_t j = 0; j <= o; j++) {
			sum += b * fmax(xc, (double)(k + j) * x);
			if (q > 0)
				b *= p / q * (double)(o - j) / (double)(j + 1);
			else
				b = j + 1 == o ? 1.0 : 0.0;
		}
		if (fabs(sum - d) <= 1e-9 * d) {
			d = sum;
			break;
		}
		d = sum;
	}
	return d;
}

/* One slice's transfer time (ps) on a hop of kind k, for a step of length
 * T in which every strand sends m slices of s bytes. Strands of
 * the same ring (channels NCCL duplicates onto one ring order) move in step
 * and share a link evenly all the time. Strands of different rings do not:
 * the hops of a mixed ring delay each rank's step by its position after
 * the slower hops, and rings that leave the node at different GPUs put a
 * link's strands at different positions, so their transfers are spread
 * over the step. While a slice is on a link, each such strand is there for
 * its share of the step, m d / T. With x = s / B, k strands of the slice's
 * own ring and U in all on the link, the slice's time d solves
 *     d = k x (1 + (U - k) m d / T)  =>  d = k x / (1 - (U - k) m x / T);
 * the slowest link of the hop's route decides. One ring (k = U) is the
 * even share k x all the time. */
static double hop_time(const hopkind *k, double s, double m, double T)
{
	double d = 0;
	for (int i = 0; i < k->nlinks; i++) {
		double x = s / k->bw[i] * 1e12;
		uint32_t others = k->users[i] - k->same[i];
		if (k->cap > 0) {
			d = fmax(d, capped_time(k->same[i], others, x, s / k->cap * 1e12, m, T));
			continue;
		}
		double free = 1.0 - (double)others * m * x / T;
		d = fmax(d, free > 0 ? (double)k->same[i] * x / free : INFINITY);
	}
	return d;
}

/* The least a ring step of m slices of s bytes can last if it lasts T
 * (ps): one turn of the ring's dependency cycle, the mean over its hops of
 * a slice's time (hop_time) and latency; and the receive buffer's window
 * (`slots` slices): a slice holds its slot from its send until the
 * receiver, having taken it, returns the credit, d + 2 alpha on its hop,
 * so a hop moves at most `slots` slices per that time. */
static double ring_step_bound(const hopinfo *hi, double s, double m, double slots, double T)
{
	double sum = 0, window = 0;
	for (int j = 0; j < hi->nkinds; j++) {
		const hopkind *k = &hi->kinds[j];
		double d = hop_time(k, s, m, T);
		sum += (d + k->lat) * (double)k->count;
		window = fmax(window, m / slots * (d + 2.0 * k->lat));
	}
	return fmax(hi->nhops ? sum / (double)hi->nhops : 0, window);
}

/* First peer a strand sends to, or -1. */
static int first_send_peer(const gs_gen *g, int rank, int ch)
{
	uint64_t len = g->ops->strand_len(g, rank, ch);
	gs_step st[4];
	uint32_t n = len < 4 ? (uint32_t)len : 4;
	if (n == 0)
		return -1;
	g->ops->fill(g, rank, ch, 0, n, st);
	for (uint32_t i = 0; i < n; i++)
		if (st[i].send_peer >= 0)
			return st[i].send_peer;
	return -1;
}

/* Channels whose strands send to the same first peers (first[r * ns +
 * strand]) on every rank run the same pattern and move in step, as NCCL's
 * duplicated channels do: per channel, the number of its kind (0 .. the
 * number of kinds, stored in *nkinds, - 1). */
static int *channel_kinds(const int *first, int nr, int ns, int spc, int *nkinds)
{
	int nch = ns / spc;
	int *rep = g_new(int, nch > 0 ? nch : 1), *kind = g_new(int, nch > 0 ? nch : 1);
	*nkinds = 0;
	for (int ch = 0; ch < nch; ch++) {
		rep[ch] = ch;
		for (int e = 0; e < ch && rep[ch] == ch; e++) {
			if (rep[e] != e)
				continue; /* compare with each kind's first channel */
			bool same = true;
			for (int r = 0; r < nr && same; r++)
				for (int j = 0; j < spc && same; j++)
					same = first[(size_t)r * ns + ch * spc + j] ==
					       first[(size_t)r * ns + e * spc + j];
			if (same)
				rep[ch] = e;
		}
		kind[ch] = rep[ch] == ch ? (*nkinds)++ : kind[rep[ch]];
	}
	g_free(rep);
	return kind;
}

/* Per-channel bottleneck bandwidth and mean latency of each strand's first
 * hop, over all strands. */
static hopinfo first_hops(const gt_topo *topo, const gs_gen *g, gm_net *net)
{
	int nr = g->p.nranks, ns = g->nstrands;
	int spc = g->strands_per_channel > 0 ? g->strands_per_channel : 1;
	int *peer = g_new(int, (size_t)nr * ns);
	for (int r = 0; r < nr; r++)
		for (int c = 0; c < ns; c++)
			peer[(size_t)r * ns + c] = first_send_peer(g, r, c);
	/* strands of channels in step share a link evenly (the ring's) */
	int nrings;
	int *rid = channel_kinds(peer, nr, ns, spc, &nrings);
	uint32_t *users = g_new0(uint32_t, net->nlinks);
	uint32_t *by_ring = g_new0(uint32_t, (size_t)net->nlinks * (size_t)nrings);
	uint32_t route[GM_MAX_HOPS];
	for (int r = 0; r < nr; r++)
		for (int c = 0; c < ns; c++) {
			int p = peer[(size_t)r * ns + c];
			if (p < 0)
				continue;
			int h = gt_topo_route_ch(topo, r, p, c / spc, route);
			for (int k = 0; k < h; k++) {
				users[route[k]]++;
				by_ring[(size_t)route[k] * (size_t)nrings + (size_t)rid[c / spc]]++;
			}
		}
	hopinfo hi = {INFINITY, 0, 0, NULL, 0, 0};
	double lat_sum = 0;
	uint64_t nhops = 0;
	for (int r = 0; r < nr; r++)
		for (int c = 0; c < ns; c++) {
			int p = peer[(size_t)r * ns + c];
			if (p < 0)
				continue;
			int h = gt_topo_route_ch(topo, r, p, c / spc, route);
			double b = INFINITY;
			uint32_t same[GM_MAX_HOPS];
			for (int k = 0; k < h; k++) {
				b = fmin(b, net->links[route[k]].bw_Bps / users[route[k]]);
				same[k] = by_ring[(size_t)route[k] * (size_t)nrings + (size_t)rid[c / spc]];
			}
			hi.beta = fmin(hi.beta, b);
			hop_kind_add(&hi, topo, net, users, same, route, h);
			const double lat = (double)gm_net_route_latency(net, route, h);
			lat_sum += lat;
			hi.alpha_max = fmax(hi.alpha_max, lat);
			nhops++;
		}
	hi.alpha = nhops ? lat_sum / (double)nhops : 0;
	hi.nhops = nhops;
	g_free(users);
	g_free(by_ring);
	g_free(rid);
	g_free(peer);
	return hi;
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return b ? (a + b - 1) / b : 0; }

/* One ring step of per-rank chunks of c bytes (ps), and in *busy its
 * busiest sender's share: m = c / slice slices of s bytes, sent one after
 * the other at the channel's bottleneck bandwidth beta (m tau), or longer
 * when one turn of the ring's dependency cycle per slice (every hop's
 * slice time and latency, averaged over the ring's hops: a slow network
 * hop among fast NVLink hops delays the cycle by its own share only) or
 * the receive buffer's window binds (ring_step_bound). */
static double ring_step(const hopinfo *hi, double beta, uint64_t c, uint64_t slice, uint64_t buffer,
			double *busy)
{
	uint64_t m = ceil_div(c, slice);
	double s = (double)c / (double)m;
	*busy = (double)m * s / beta * 1e12;
	/* slices the receive buffer holds (a larger one goes alone) */
	double slots = fmax(1.0, floor((double)buffer / s));
	if (ring_step_bound(hi, s, (double)m, slots, *busy) <= *busy)
		return *busy;
	/* bound by the cycle or the window: the step T with T = bound(T),
	 * T - bound(T) rising in T */
	double lo = *busy, up = 2 * *busy;
	while (ring_step_bound(hi, s, (double)m, slots, up) > up)
		up *= 2;
	for (int it = 0; it < 200 && up - lo > 1e-3; it++) {
		double mid = 0.5 * (lo + up);
		if (ring_step_bound(hi, s, (double)m, slots, mid) > mid)
			lo = mid;
		else
			up = mid;
	}
	return up;
}

/* A fabric whose leaf uplinks every rank under a leaf shares, PCIe nodes
 * whose switch uplinks and socket links the GPUs under them share, or NICs
 * shared by several GPUs:
 * there the closed forms load every rank's (every group's) messages,
 * elsewhere the links a rank uses are its own and one rank (one group)
 * decides. */
static bool uplinks_shared(const gt_topo *topo)
{
	return topo->kind == GT_DGX && (topo->fabric != GT_FAB_NONBLOCKING || topo->intra == GT_INTRA_PCIE ||
					topo->nic_share > 1);
}

/* A transfer's place on one of its links, to find the transfers in step
 * with it. */
typedef struct mate_key {
	uint32_t link, who;
} mate_key;

static int cmp_key(const void *a, const void *b)
{
	const mate_key *x = a, *y = b;
	if (x->link != y->link)
		return x->link < y->link ? -1 : 1;
	return x->who < y->who ? -1 : x->who > y->who;
}

/* In a sorted array, the first index whose key is >= key (past = 0) or
 * > key (past = 1). */
static uint32_t key_bound(const mate_key *v, uint32_t n, const mate_key *key, int past)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = cmp_key(&v[mid], key);
		if (c < 0 || (past && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* One pipeline round (ps): every strand of every rank sends a slice of s
 * bytes to each distinct peer of its first steps (a tree's up strand to its
 * parent, its down strand to its children), one after the other, and every
 * strand repeats this once per round P. The round lasts at least the
 * busiest link's load over its bandwidth (perfect sharing). It lasts
 * longer where a strand's sends are sequential: while a down strand sends
 * to one child its other children's transfers wait, so a link its sends
 * cross is not always kept busy. Each transfer f shares its links with the
 * other transfers crossing them for their share of the round (as the
 * ring's strands of other orders do, hop_time): on link l, with x_l = s / B_l,
 *     d_f = max_l x_l (1 + sum_{g on l, g != f} d_g / P),
 * and P is the busiest strand's sum of its transfers' times. The two are
 * solved together by damped iteration from the perfect-sharing bound. It
 * sees the links strands share, such as a fabric's uplinks under
 * concurrent groups. */
static double round_time(const gt_topo *topo, const gs_gen *g, const gm_net *net, double s)
{
	int nr = gs_gen_nranks(g), ns = g->nstrands;
	int spc = g->strands_per_channel > 0 ? g->strands_per_channel : 1;
	uint32_t route[GM_MAX_HOPS];
	gs_step st[8];
	/* the transfers, rank by rank and strand by strand: where each starts
	 * in the array of their links, each link entry's strand and place in
	 * its strand, and where each strand's transfers end */
	GArray *fl_start = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	GArray *links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	GArray *place = g_array_new(FALSE, FALSE, sizeof(uint32_t)); /* strand << 4 | place */
	GArray *st_end = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	uint32_t *rank_end = g_new(uint32_t, nr); /* end of each rank's link entries */
	int *first = g_new(int, (size_t)nr * ns); /* each strand's first peer */
	double *load = g_new0(double, net->nlinks);
	for (int r = 0; r < nr; r++) {
		for (int c = 0; c < ns; c++) {
			uint64_t len = g->ops->strand_len(g, r, c);
			uint32_t k = len < 8 ? (uint32_t)len : 8;
			int peers[8], np = 0;
			if (k)
				g->ops->fill(g, r, c, 0, k, st);
			for (uint32_t i = 0; i < k; i++) {
				int q = st[i].send_peer, seen = 0;
				for (int j = 0; j < np; j++)
					seen |= peers[j] == q;
				if (q < 0 || seen)
					continue;
				uint32_t pl = ((uint32_t)c << 4) | (uint32_t)np;
				peers[np++] = q;
				int h = gt_topo_route_ch(topo, r, q, c / spc, route);
				if (st[i].flags & GS_STEP_FANOUT)
					h = gt_topo_route_fanout(topo, route, h);
				uint32_t at = links->len;
				g_array_append_val(fl_start, at);
				g_array_append_vals(links, route, (guint)h);
				for (int x = 0; x < h; x++) {
					g_array_append_val(place, pl);
					load[route[x]] += s / net->links[route[x]].bw_Bps * 1e12;
				}
			}
			first[(size_t)r * ns + c] = np ? peers[0] : -1;
			if (np) {
				uint32_t end = fl_start->len;
				g_array_append_val(st_end, end);
			}
		}
		rank_end[r] = links->len;
	}
	uint32_t nf = fl_start->len, nl_all = links->len;
	const uint32_t *fs = (const uint32_t *)fl_start->data, *lk = (const uint32_t *)links->data;
	const uint32_t *se = (const uint32_t *)st_end->data, *pl = (const uint32_t *)place->data;
	int nkinds;
	int *cls = channel_kinds(first, nr, ns, spc, &nkinds);
	/* mates[i]: the transfers in step with entry i's on its link, itself
	 * included: the same rank's, at the same place of the same strand of
	 * a channel of the same kind */
	uint32_t *mates = g_new(uint32_t, nl_all);
	GArray *keys = g_array_new(FALSE, FALSE, sizeof(mate_key));
	for (int r = 0, a = 0; r < nr; a = (int)rank_end[r++]) {
		g_array_set_size(keys, 0);
		for (uint32_t i = (uint32_t)a; i < rank_end[r]; i++) {
			uint32_t c = pl[i] >> 4;
			mate_key key = {lk[i], ((uint32_t)cls[c / (uint32_t)spc] << 8) |
						       ((c % (uint32_t)spc) << 4) | (pl[i] & 15u)};
			g_array_append_val(keys, key);
		}
		mate_key *v = (mate_key *)keys->data;
		uint32_t n = keys->len;
		if (n == 0) /* a rank with no transfer on a link (qsort takes no NULL) */
			continue;
		mate_key *sorted = g_memdup2(v, sizeof(mate_key) * n);
		qsort(sorted, n, sizeof(mate_key), cmp_key);
		for (uint32_t i = 0; i < n; i++)
			mates[(uint32_t)a + i] = key_bound(sorted, n, &v[i], 1) - key_bound(sorted, n, &v[i], 0);
		g_free(sorted);
	}
	g_array_free(keys, TRUE);
	g_array_free(place, TRUE);
	g_free(rank_end);
	g_free(first);
	g_free(cls);
	/* a slice's time alone on each link */
	double *xl = g_new(double, net->nlinks);
	for (uint32_t l = 0; l < net->nlinks; l++)
		xl[l] = s / net->links[l].bw_Bps * 1e12;
	double bound = 0;
	for (uint32_t l = 0; l < net->nlinks; l++)
		bound = fmax(bound, load[l]);
	double *d = g_new(double, nf), *duty = load; /* reused: per link sum of d / P */
	/* start from every link shared evenly all the time */
	for (uint32_t f = 0; f < nf; f++) {
		uint32_t e = f + 1 < nf ? fs[f + 1] : nl_all;
		d[f] = 0;
		for (uint32_t i = fs[f]; i < e; i++)
			d[f] = fmax(d[f], load[lk[i]]);
	}
	double P = bound;
	for (int it = 0; it < 200 && nf > 0 && bound > 0; it++) {
		memset(duty, 0, sizeof(double) * net->nlinks);
		for (uint32_t f = 0; f < nf; f++) {
			uint32_t e = f + 1 < nf ? fs[f + 1] : nl_all;
			for (uint32_t i = fs[f]; i < e; i++)
				duty[lk[i]] += d[f] / P;
		}
		double moved = 0;
		for (uint32_t f = 0; f < nf; f++) {
			uint32_t e = f + 1 < nf ? fs[f + 1] : nl_all;
			double nd = 0;
			for (uint32_t i = fs[f]; i < e; i++)
				nd = MAX(nd, xl[lk[i]] * ((double)mates[i] * (1.0 - d[f] / P) + duty[lk[i]]));
			moved = MAX(moved, d[f] > 0 ? fabs(nd - d[f]) / d[f] : 0);
			d[f] = nd;
		}
		double busiest = 0;
		for (uint32_t k = 0, f = 0; k < st_end->len; k++) {
			double sum = 0;
			for (; f < se[k]; f++)
				sum += d[f];
			busiest = MAX(busiest, sum);
		}
		double next = fmax(bound, 0.5 * (P + busiest));
		bool settled = fabs(next - P) <= 1e-5 * P && moved <= 1e-5;
		P = next;
		if (settled)
			break;
	}
	g_free(d);
	g_free(load);
	g_free(mates);
	g_free(xl);
	g_array_free(fl_start, TRUE);
	g_array_free(links, TRUE);
	g_array_free(st_end, TRUE);
	return P;
}

/* Bytes routed over each link, for the closed forms bound by the busiest
 * link, and the longest route seen. */
typedef struct link_load {
	const gm_net *net;
	double *bytes;
	double lat;
} link_load;

static void load_init(link_load *ld, const gm_net *net)
{
	ld->net = net;
	ld->bytes = g_new0(double, net->nlinks);
	ld->lat = 0;
}

/* Adds bytes on the route from src to dst (of channel ch, which may start
 * at a channel's own link, or of no channel: ch < 0); returns its latency
 * (ps). */
static double load_add_ch(link_load *ld, const gt_topo *topo, int src, int dst, int ch,
			  double bytes)
{
	uint32_t route[GM_MAX_HOPS];
	int h = ch < 0 ? gt_topo_route(topo, src, dst, route)
		       : gt_topo_route_ch(topo, src, dst, ch, route);
	for (int k = 0; k < h; k++)
		ld->bytes[route[k]] += bytes;
	double lat = (double)gm_net_route_latency(ld->net, route, h);
	ld->lat = fmax(ld->lat, lat);
	return lat;
}

static double load_add(link_load *ld, const gt_topo *topo, int src, int dst, double bytes)
{
	return load_add_ch(ld, topo, src, dst, -1, bytes);
}

/* The busiest link's time plus the longest route's latency (ps); frees. */
static double load_time(link_load *ld)
{
	double worst = 0;
	for (uint32_t l = 0; l < ld->net->nlinks; l++)
		worst = fmax(worst, ld->bytes[l] / ld->net->links[l].bw_Bps * 1e12);
	g_free(ld->bytes);
	ld->bytes = NULL;
	return worst + ld->lat;
}

/* dispatch/combine: see the header comment; adds the time after the launch
 * to *t. */
static gc_status moe_time(const gt_topo *topo, const gs_gen *gen, gm_net *net, double *t,
			  char **errmsg)
{
	const gs_params *p = &gen->p;
	gs_moe_map m;
	gs_params gp = gs_group_params(p); /* every expert-parallel group routes alike */
	gc_status st = gs_moe_map_build(&gp, &m, errmsg);
	if (st != GC_OK)
		return st;
	uint64_t TK = (uint64_t)m.T * m.K, all = (uint64_t)m.n * TK;
	link_load ld;
	load_init(&ld, net);
	/* every group's messages where groups share links (a fabric's uplinks);
	 * elsewhere every group routes alike over links of its own, so group 0
	 * alone decides */
	bool shared = uplinks_shared(topo);
	const bool disp = p->coll == GS_COLL_DISPATCH;
	if (m.fwd) {
		/* forward: once per other node to the rank of the sender's
		 * local index there (its entry), from the entry to every
		 * other rank of the node; the two legs one after the other */
		const int P = m.P;
		double lat_net = 0, lat_nvl = 0;
		for (int id = 0; id < (shared ? gs_group_count(p) : 1); id++)
			for (uint64_t i = 0; i < (uint64_t)m.n * m.T; i++) {
				int s = (int)(i / m.T), gs = gs_group_member(p, id, s);
				for (uint64_t j = m.tset_off[i]; j < m.tset_off[i + 1]; j++) {
					int d = m.tset[j], b = d / P;
					int e = b == s / P ? s : b * P + s % P, ge = gs_group_member(p, id, e),
					    gd = gs_group_member(p, id, d);
					bool first = j == m.tset_off[i] || m.tset[j - 1] / P != b;
					if (e != s && first)
						lat_net = fmax(lat_net, load_add(&ld, topo, disp ? gs : ge,
										 disp ? ge : gs,
										 (double)p->bytes));
					if (d != e)
						lat_nvl = fmax(lat_nvl, load_add(&ld, topo, disp ? ge : gd,
										 disp ? gd : ge,
										 (double)p->bytes));
				}
			}
		ld.lat = lat_net + lat_nvl;
		gs_moe_map_free(&m);
		*t += load_time(&ld);
		return GC_OK;
	}
	for (int id = 0; id < (shared ? gs_group_count(p) : 1); id++)
		for (uint64_t i = 0; i < all; i++) {
			int r = gs_group_member(p, id, (int)(i / TK)),
			    d = gs_group_member(p, id, m.dst[i]);
			if (r == d)
				continue; /* a local copy */
			load_add(&ld, topo, disp ? r : d, disp ? d : r, (double)p->bytes);
		}
	gs_moe_map_free(&m);
	*t += load_time(&ld);
	return GC_OK;
}

/* bruck and pat: rounds q = 0 .. nr-1, in which every strand sends
 * blocks[q] block parts to the member 2^dim[q] away (up with sign +1, down
 * with -1) as slices; adds their time to *t (see the header comment). */
static void rounds_time(const gt_topo *topo, const gs_gen *gen, gm_net *net, double *t, int nr,
			const int *dim, const uint64_t *blocks, int sign)
{
	const gs_params *p = &gen->p;
	const int G = gs_group_n(p);
	const uint64_t C = (uint64_t)p->nchannels, el = gs_dtype_size(p->dtype);
	const uint64_t bc = p->bytes / el / (uint64_t)G, sb = p->slice_bytes;
	bool shared = uplinks_shared(topo);
	for (int q = 0; q < nr; q++) {
		int64_t d = ((int64_t)1 << dim[q]) % G;
		uint64_t slices = 0;
		link_load ld;
		load_init(&ld, net);
		/* one slice from every strand at once (a fabric's uplinks see
		 * every group's; elsewhere group 0's members decide) */
		for (int r = 0; r < p->nranks; r++) {
			int id = gs_group_id(p, r), l = gs_group_local(p, r);
			if (!shared && id != 0)
				continue;
			int peer = gs_group_member(p, id, (int)((l + sign * d + G) % G));
			for (uint64_t c = 0; c < C; c++) {
				/* the channel's part of a block, as the generators split it */
				uint64_t len = bc / C + (c < bc % C);
				uint64_t B = blocks[q] * len * el;
				if (B == 0)
					continue;
				load_add(&ld, topo, r, peer, (double)MIN(sb, B));
				slices = MAX(slices, ceil_div(B, sb));
			}
		}
		*t += (double)slices * load_time(&ld);
	}
}

/* bruck: round k moves min(2^k, n - 2^k) blocks to the member 2^k below
 * (reduce-scatter: above); adds the time after the launch to *t. */
static void bruck_time(const gt_topo *topo, const gs_gen *gen, gm_net *net, double *t)
{
	const int G = gs_group_n(&gen->p);
	int dim[32], K = 0;
	uint64_t blocks[32];
	while (((int64_t)1 << K) < G) {
		dim[K] = K;
		blocks[K] = (uint64_t)MIN((int64_t)1 << K, (int64_t)G - ((int64_t)1 << K));
		K++;
	}
	rounds_time(topo, gen, net, t, K, dim, blocks,
		    gen->p.coll == GS_COLL_REDUCESCATTER ? 1 : -1);
}

/* broadcast and reduce: see the header comment; adds the time after the
 * launch to *t. The chains are read from the schedule: a strand's first
 * send names the next rank, and a chain starts at the rank no one sends
 * to. */
static void chain_time(const gt_topo *topo, const gs_gen *gen, gm_net *net, double *t)
{
	const gs_params *p = &gen->p;
	const int N = p->nranks, C = gen->nstrands, G = gs_group_n(p);
	const uint64_t el = gs_dtype_size(p->dtype), count = p->bytes / el, sb = p->slice_bytes;
	const bool shared = uplinks_shared(topo);
	int *next = g_new(int, (size_t)N * (size_t)C);
	bool *fed = g_new0(bool, (size_t)N * (size_t)C);
	for (int r = 0; r < N; r++)
		for (int c = 0; c < C; c++) {
			int y = first_send_peer(gen, r, c);
			next[(size_t)r * C + c] = y;
			if (y >= 0)
				fed[(size_t)y * C + c] = true;
		}
	/* the chains' heads (one per channel and group that decides), and
	 * each channel's slice */
	int *at = g_new(int, (size_t)N * (size_t)C), *ch = g_new(int, (size_t)N * (size_t)C);
	double *slice = g_new(double, (size_t)C);
	int nchains = 0;
	/* the slices after each channel's first, in first slices (its last
	 * slice may be partial): the most of any channel */
	double rest = -1;
	for (int c = 0; c < C; c++) {
		uint64_t P = (count / (uint64_t)C + ((uint64_t)c < count % (uint64_t)C)) * el;
		slice[c] = (double)MIN(sb, P);
		if (P == 0)
			continue;
		rest = fmax(rest, (double)(P - (uint64_t)slice[c]) / slice[c]);
		for (int r = 0; r < N; r++)
			if (next[(size_t)r * C + c] >= 0 && !fed[(size_t)r * C + c] &&
			    (shared || gs_group_id(p, r) == 0)) {
				at[nchains] = r;
				ch[nchains++] = c;
			}
	}
	link_load all;
	load_init(&all, net);
	/* each chain's first slice: at every hop, the time of its link's share
	 * (every chain's slice at that hop loads the links) and its route's
	 * latency; the last chain to finish decides */
	double *fin = g_new0(double, (size_t)(nchains > 0 ? nchains : 1));
	/* each chain's route at this hop (nh[k] links; 0: the chain has
	 * ended), and the hop's load on the links, cleared after each hop
	 * where it was added so the hops cost their routes, not the network */
	int *nh = g_new0(int, (size_t)(nchains > 0 ? nchains : 1));
	uint32_t *route = g_new(uint32_t, (size_t)(nchains > 0 ? nchains : 1) * GM_MAX_HOPS);
	double *hop = g_new0(double, net->nlinks);
	for (int h = 0; h < G - 1 && nchains > 0; h++) {
		for (int k = 0; k < nchains; k++) {
			int x = at[k], y = x >= 0 ? next[(size_t)x * C + ch[k]] : -1;
			uint32_t *rt = route + (size_t)k * GM_MAX_HOPS;
			nh[k] = y < 0 ? 0 : gt_topo_route_ch(topo, x, y, ch[k], rt);
			for (int q = 0; q < nh[k]; q++) {
				hop[rt[q]] += slice[ch[k]];
				all.bytes[rt[q]] += slice[ch[k]];
			}
			if (y >= 0)
				at[k] = y;
		}
		for (int k = 0; k < nchains; k++) {
			const uint32_t *rt = route + (size_t)k * GM_MAX_HOPS;
			double worst = 0;
			for (int q = 0; q < nh[k]; q++)
				worst = fmax(worst, hop[rt[q]] / net->links[rt[q]].bw_Bps * 1e12);
			if (nh[k] > 0) {
				double lat = (double)gm_net_route_latency(net, rt, nh[k]);
				fin[k] += worst + lat;
				all.lat = fmax(all.lat, lat);
			}
		}
		for (int k = 0; k < nchains; k++)
			for (int q = 0; q < nh[k]; q++)
				hop[route[(size_t)k * GM_MAX_HOPS + q]] = 0;
	}
	g_free(hop);
	g_free(route);
	g_free(nh);
	double fill = 0;
	for (int k = 0; k < nchains; k++)
		fill = fmax(fill, fin[k]);
	g_free(fin);
	double lat = all.lat, tss = load_time(&all) - lat;
	if (rest >= 0)
		*t += fill + rest * tss;
	g_free(next);
	g_free(fed);
	g_free(at);
	g_free(ch);
	g_free(slice);
}

/* pat: PAT's rounds (gs_pat_rounds), to the member 2^d above (reduce-scatter:
 * below); adds the time after the launch to *t. */
static void pat_time(const gt_topo *topo, const gs_gen *gen, gm_net *net, double *t)
{
	const bool rs = gen->p.coll == GS_COLL_REDUCESCATTER;
	int dim[32];
	uint64_t blocks[32];
	int D = gs_pat_rounds(gs_group_n(&gen->p), rs, dim, blocks);
	rounds_time(topo, gen, net, t, D, dim, blocks, rs ? -1 : 1);
}

/* nvlstree, or nvls across nodes (sharp): see the header comment; adds the
 * time after the launch to *t. */
/* nvlstree's first slices over node tree tr (ps after the nodes' sums are
 * at their owners): a node's partial sum is complete one latency after its
 * children's, once its NIC has taken in each child's k slices (one per
 * block of the tree an owner holds, x = their time at the NIC's rate); the
 * total goes down from the root, each node sending its k slices to one
 * child after the other. */
static double ntree_up(const gs_ntree *nt, int tr, int32_t v, double lat, double x)
{
	double t = 0;
	int nc = 0;
	for (int i = 0; i < 2; i++) {
		int32_t y = nt->child[tr][2 * v + i];
		if (y >= 0) {
			t = fmax(t, ntree_up(nt, tr, y, lat, x));
			nc++;
		}
	}
	return nc ? t + lat + nc * x : 0;
}

static double ntree_down(const gs_ntree *nt, int tr, int32_t v, double lat, double x, double t0)
{
	double last = t0;
	int sent = 0;
	for (int i = 0; i < 2; i++) {
		int32_t y = nt->child[tr][2 * v + i];
		if (y >= 0)
			last = fmax(last, ntree_down(nt, tr, y, lat, x, t0 + lat + ++sent * x));
	}
	return last;
}

static gc_status nvls_tree_time(const gt_topo *topo, const gs_gen *gen, gm_net *net, bool sharp,
				double *t, char **errmsg)
{
	const gs_params *p = &gen->p;
	int64_t rpn = p->ranks_per_node, nodes = p->nranks / rpn;
	uint64_t C = (uint64_t)p->nchannels;
	uint64_t M = ceil_div(ceil_div(p->bytes, C * (uint64_t)rpn), p->slice_bytes);
	double s = (double)ceil_div(ceil_div(p->bytes, C * (uint64_t)rpn), M);
	gs_ntree nt;
	gc_status st = gs_ntree_build(&nt, nodes, errmsg);
	if (st != GC_OK)
		return st;
	/* the busiest NIC's slices per direction per round, and each tree's
	 * root */
	uint64_t dmax = 0;
	int32_t root[2] = {-1, -1};
	for (int tr = 0; tr < 2; tr++)
		for (int64_t x = 0; x < nodes && root[tr] < 0; x++)
			if (nt.parent[tr][x] < 0)
				root[tr] = (int32_t)x;
	for (int64_t x = 0; x < nodes; x++) {
		uint64_t d = 0;
		for (uint64_t c = 0; c < C; c++) {
			int tr = (int)(c % 2);
			d += (uint64_t)((nt.parent[tr][x] >= 0) + (nt.child[tr][2 * x] >= 0) +
					(nt.child[tr][2 * x + 1] >= 0));
		}
		dmax = MAX(dmax, d);
	}
	uint32_t route[GM_MAX_HOPS];
	int h = gt_topo_route(topo, 0, p->nranks, route); /* GPU 0 into its switch */
	double a_up = (double)gm_net_route_latency(net, route, h);
	double b_nvl = net->links[route[0]].bw_Bps;
	h = gt_topo_route(topo, p->nranks, 0, route); /* and out of it */
	b_nvl = fmin(b_nvl, net->links[route[0]].bw_Bps);
	double a_net = 0, b_net = INFINITY, first_way = 0;
	if (sharp) {
		/* up to the network switch's reduction and back from its port to
		 * node 0: one slice each way per block a GPU owns, C per round */
		int q = p->nranks + GT_HELPERS_PER_NODE * (int)nodes;
		int hops[2][2] = {{0, q}, {q + 1, 0}};
		for (int i = 0; i < 2; i++) {
			h = gt_topo_route(topo, hops[i][0], hops[i][1], route);
			a_net += (double)gm_net_route_latency(net, route, h);
			for (int k = 0; k < h; k++)
				b_net = fmin(b_net, net->links[route[k]].bw_Bps);
		}
		dmax = C;
	} else {
		h = gt_topo_route(topo, 0, (int)rpn, route); /* owner to owner, node 0 to 1 */
		double lat = (double)gm_net_route_latency(net, route, h);
		for (int k = 0; k < h; k++)
			b_net = fmin(b_net, net->links[route[k]].bw_Bps);
		/* the latency of the way up and down the deeper tree in use, and
		 * the first slices' whole way (their transfers, level by level) */
		for (int tr = 0; tr < (C > 1 ? 2 : 1); tr++) {
			double k = (double)((C + 1 - (uint64_t)tr) / 2); /* blocks an owner has on it */
			double x = k * s / b_net * 1e12;
			a_net = fmax(a_net, ntree_down(&nt, tr, root[tr], lat, 0,
						       ntree_up(&nt, tr, root[tr], lat, 0)));
			first_way = fmax(first_way, ntree_down(&nt, tr, root[tr], lat, x,
							       ntree_up(&nt, tr, root[tr], lat, x)));
		}
	}
	gs_ntree_free(&nt);
	double n = (double)rpn;
	double tau = fmax((double)C * (n + 1.0) * s / b_nvl, (double)dmax * s / b_net) * 1e12;
	/* across a tree of nodes an owner sends to its tree children and its
	 * node's multicast one after the other, as the tree's down strand
	 * does: the round of every strand's transfers (round_time) binds */
	if (!sharp && M > 1)
		tau = fmax(tau, round_time(topo, gen, net, s));
	/* the network part: M rounds of the busiest NIC after the latency,
	 * and at least the first slices' way up and down the tree */
	double net_part = fmax(a_net + (double)dmax * s / b_net * 1e12 + (double)(M - 1) * tau,
			       first_way);
	*t += 2.0 * a_up + (double)C * (2.0 * n + 1.0) * s / b_nvl * 1e12 + net_part;
	return GC_OK;
}

/* collnet: see the header comment; adds the time after the launch to *t. */
/* CollNet's routes: one NVLink hop inside a node (GPU 0 to GPU 1; none
 * with one GPU per node), and the way up to the network switch's
 * reduction and back from its port to node 0: latencies and bottleneck
 * bandwidths. */
typedef struct collnet_hops {
	double a_nvl, b_nvl, a_net, b_net;
} collnet_hops;

static collnet_hops collnet_routes(const gt_topo *topo, const gs_params *p, gm_net *net)
{
	const int64_t rpn = p->ranks_per_node, nodes = p->nranks / rpn;
	collnet_hops c = {0, INFINITY, 0, INFINITY};
	uint32_t route[GM_MAX_HOPS];
	if (rpn > 1) {
		int h = gt_topo_route(topo, 0, 1, route);
		c.a_nvl = (double)gm_net_route_latency(net, route, h);
		for (int k = 0; k < h; k++)
			c.b_nvl = fmin(c.b_nvl, net->links[route[k]].bw_Bps);
	}
	int q = p->nranks + GT_HELPERS_PER_NODE * (int)nodes;
	int hops[2][2] = {{0, q}, {q + 1, 0}};
	for (int i = 0; i < 2; i++) {
		int h = gt_topo_route(topo, hops[i][0], hops[i][1], route);
		c.a_net += (double)gm_net_route_latency(net, route, h);
		for (int k = 0; k < h; k++)
			c.b_net = fmin(c.b_net, net->links[route[k]].bw_Bps);
	}
	return c;
}

static void collnet_time(const gt_topo *topo, const gs_gen *gen, gm_net *net, double *t)
{
	const gs_params *p = &gen->p;
	const int64_t rpn = p->ranks_per_node;
	const uint64_t C = (uint64_t)p->nchannels;
	const uint64_t M = ceil_div(ceil_div(p->bytes, C * (uint64_t)rpn), p->slice_bytes);
	const double s = (double)ceil_div(ceil_div(p->bytes, C * (uint64_t)rpn), M);
	const collnet_hops c = collnet_routes(topo, p, net);
	double P = rpn > 1 ? 2.0 * (double)C * (double)(rpn - 1) * s / c.b_nvl * 1e12 : 0;
	double N = (double)C * s / c.b_net * 1e12, m = (double)M;
	*t += 2.0 * c.a_nvl + c.a_net + fmax(m * P, fmax((m + 1) * N + P, (m + 1) * P / 2 + 2 * N));
}

/* collnetchain: see the header comment. */
static void collnet_chain_time(const gt_topo *topo, const gs_gen *gen, gm_net *net, double *t)
{
	const gs_params *p = &gen->p;
	const int64_t rpn = p->ranks_per_node;
	const uint64_t C = (uint64_t)p->nchannels;
	const uint64_t M = ceil_div(ceil_div(p->bytes, C), p->slice_bytes);
	const double s = (double)ceil_div(ceil_div(p->bytes, C), M);
	const collnet_hops c = collnet_routes(topo, p, net);
	/* a GPU holds each chain position in k of the channels at once */
	const double k = (double)ceil_div(C, (uint64_t)rpn), n = (double)rpn;
	double hop = rpn > 1 ? c.a_nvl + k * s / c.b_nvl * 1e12 : 0;
	double fill = 2.0 * (n - 1) * hop + c.a_net + 2.0 * k * s / c.b_net * 1e12;
	double P = 2.0 * (n - 1) / n * (double)C * s / c.b_nvl * 1e12;
	double N = (double)C / n * s / c.b_net * 1e12;
	*t += fmax(fill + (double)(M - 1) * N, rpn > 1 ? (double)M * P + c.a_net : 0);
}

/* nvls allgather or reduce-scatter (one switch): see the header comment. */
static void nvls_agrs_time(const gt_topo *topo, const gs_gen *gen, gm_net *net, double *t)
{
	const gs_params *p = &gen->p;
	uint64_t N = (uint64_t)gs_group_n(p), C = (uint64_t)p->nchannels;
	/* one switch, or (SHARP) m nodes of n behind the network's switch */
	uint64_t n = p->ranks_per_node > 0 && (uint64_t)p->ranks_per_node < N ? (uint64_t)p->ranks_per_node : N;
	uint64_t m = N / n;
	uint64_t Db = ceil_div(p->bytes / N, C); /* one block: a rank's channel part */
	uint64_t M = ceil_div(Db, p->slice_bytes);
	double s = (double)ceil_div(Db, M);
	uint32_t route[GM_MAX_HOPS];
	/* GPU 0 into its switch (its first helper rank) and out of it */
	int h = gt_topo_route(topo, 0, p->nranks, route);
	double a_up = (double)gm_net_route_latency(net, route, h);
	double b = net->links[route[0]].bw_Bps;
	gt_topo_route(topo, p->nranks, 0, route);
	b = fmin(b, net->links[route[0]].bw_Bps);
	double nvl = (double)(M * C * n * m) * s / b * 1e12;
	if (m == 1) {
		*t += a_up + (double)C * s / b * 1e12 + nvl;
		return;
	}
	/* across nodes: the way to the network switch and back from its
	 * port; the NIC carries C slices of the GPU's own blocks one way and
	 * C m of its rail's the other per round. The first slices cross the
	 * NIC before the node's switch has anything to hand out, and the last
	 * ones still go through the node's switch after it: one round of C n
	 * slices there */
	const collnet_hops c = collnet_routes(topo, p, net);
	double net_all = (double)(M * C * m) * s / c.b_net * 1e12;
	*t += a_up + c.a_net + (double)C * s / c.b_net * 1e12 + fmax(nvl, net_all) +
	      (double)(C * n) * s / b * 1e12;
}

/* The proxy time of one message of kind k on the sender's side (sender)
 * or the receiver's: its proxy stages, a busy thread reading its FIFO or
 * completion queue once per batch. */
static double proxy_ps(const gm_xport *x, gm_xport_msg k, bool sender)
{
	const gm_xport_path *h = &x->path[k];
	double ps = 0;
	for (int i = sender ? 0 : h->data + 1; i < (sender ? h->data : h->nstages); i++) {
		const gm_xport_stage *st = &h->st[i];
		if (st->kind == GM_XS_PROXY_WORK || st->kind == GM_XS_PROXY_BG)
			ps += (double)st->ps;
		else if (st->kind == GM_XS_PROXY_POLL)
			ps += (double)st->ps / (x->proxy_batch > 0 ? x->proxy_batch : 1);
	}
	return ps;
}

/* The sender NIC's message stage for one message of kind k. */
static double nic_ps(const gm_xport *x, gm_xport_msg k)
{
	const gm_xport_path *h = &x->path[k];
	double ps = 0;
	for (int i = 0; i < h->data; i++)
		if (h->st[i].kind == GM_XS_NIC)
			ps += (double)h->st[i].ps;
	return ps;
}

/* A transport's proxy threads are single servers, which the closed forms
 * have no queue for: the group's first GPU's proxy works at least one turn
 * per network message its schedule sends and, two-sided, per one it
 * receives, so the operation takes no less than the launch and that (an
 * all-to-all over many peers is bound by it). */
static double xport_proxy_bound(const gt_topo *topo, const gs_gen *gen, const gm_net *net,
				const gm_coll_opts *o, gm_coll_result *res)
{
	const gm_xport *x = o->xport;
	if (!x || x->kind == GM_XPORT_NONE || topo->kind != GT_DGX)
		return 0;
	const gs_params *p = &gen->p;
	const int r0 = gs_group_member(p, 0, 0), spc = gen->strands_per_channel > 0 ? gen->strands_per_channel : 1;
	const gm_xport_msg two = o->xport_ll ? GM_XM_SEND_LL : GM_XM_SEND;
	const double send2 = proxy_ps(x, two, true), recv2 = proxy_ps(x, two, false);
	const double put = proxy_ps(x, GM_XM_PUT, true), sig = proxy_ps(x, GM_XM_SIGNAL, true);
	/* a signal of its own: the sender's part, and the target's (the
	 * schedules that send them, counts and flags to every peer, are
	 * symmetric: the first GPU takes as many as it sends) */
	const double amo = proxy_ps(x, GM_XM_AMO, true) + proxy_ps(x, GM_XM_AMO, false);
	const double nsend2 = nic_ps(x, two), nput = nic_ps(x, GM_XM_PUT), nsig = nic_ps(x, GM_XM_SIGNAL),
		     namo = nic_ps(x, GM_XM_AMO);
	double nic = 0;
	uint64_t msgs = 0;
	gs_step win[256];
	uint32_t route[GM_MAX_HOPS];
	double busy = 0;
	for (int ch = 0; ch < gen->nstrands; ch++) {
		uint64_t len = gen->ops->strand_len(gen, r0, ch);
		int put_peer = -1; /* the strand's last message was a put to it */
		for (uint64_t at = 0; at < len; at += G_N_ELEMENTS(win)) {
			uint32_t nw = (uint32_t)MIN((uint64_t)G_N_ELEMENTS(win), len - at);
			gen->ops->fill(gen, r0, ch, at, nw, win);
			for (uint32_t i = 0; i < nw; i++) {
				const gs_step *st = &win[i];
				const gs_op op = (gs_op)st->op;
				int peer = -1;
				double c = 0, cn = 0;
				if (gs_op_one_sided(op) && op != GS_OP_WAIT && st->bytes > 0) {
					peer = st->send_peer;
					const bool own = put_peer == peer;
					c = op != GS_OP_SIGNAL ? put : own ? sig : amo;
					cn = op != GS_OP_SIGNAL ? nput : own ? nsig : namo;
					put_peer = op == GS_OP_SIGNAL ? -1 : peer;
				} else if (gs_op_sends(op)) {
					peer = st->send_peer;
					c = send2;
					cn = nsend2;
				}
				if (peer >= 0 && peer != r0) {
					int nh = gt_topo_route_ch(topo, r0, peer, ch / spc, route);
					for (int h = 0; h < nh; h++)
						if (net->info[route[h]].kind == GM_LINK_NIC) {
							busy += c;
							nic += cn;
							msgs++;
							break;
						}
				}
				if (gs_op_recvs(op) && !gs_op_one_sided(op) && st->recv_peer >= 0 &&
				    st->recv_peer != r0) {
					int nh = gt_topo_route_ch(topo, st->recv_peer, r0, ch / spc, route);
					for (int h = 0; h < nh; h++)
						if (net->info[route[h]].kind == GM_LINK_NIC) {
							busy += recv2;
							break;
						}
				}
			}
		}
	}
	/* the busiest servers as the flow model reports them, here the first
	 * GPU's proxy thread and its sender-side NIC message stage, over all
	 * iterations (every iteration alike) */
	const int it = o->iters > 0 ? o->iters : 1;
	res->xp_msgs = msgs * (uint64_t)it;
	res->xp_proxy_rank = busy > 0 ? r0 : -1;
	res->xp_proxy_busy_ps = (int64_t)(busy * it);
	res->xp_nic_busy_ps = (int64_t)(nic * it);
	return busy > 0 ? (double)topo->launch_ps + busy : 0;
}

gc_status gm_coll_analytic(const gt_topo *topo, const gs_gen *gen, const gm_coll_opts *o,
			   gm_coll_result *res, char **errmsg)
{
	memset(res, 0, sizeof(*res));
	res->xp_proxy_rank = res->xp_nic_link = -1;
	const gs_params *p = &gen->p;
	if (p->nranks != topo->ngpus) {
		*errmsg = g_strdup_printf("schedule for %d ranks on a topology of %d GPUs", p->nranks,
					  topo->ngpus);
		return GC_ERR_INPUT;
	}
	ge_engine eng;
	ge_engine_init(&eng, o->seed);
	gm_net net;
	gm_net_init(&net, &eng, NULL, NULL);
	gt_topo_instantiate(topo, &net);

	/* one communicator's ranks: concurrent groups share links only
	 * through the hops the closed forms load (first_hops, the link
	 * loads), each runs the formulas of its own n */
	int n = gs_group_n(p);
	uint64_t elem = gs_dtype_size(p->dtype);
	uint64_t per_rank; /* bytes each rank contributes along one ring */
	switch (p->coll) {
	case GS_COLL_ALLGATHER:
	case GS_COLL_REDUCESCATTER:
		per_rank = p->bytes / (uint64_t)n;
		break;
	default:
		per_rank = p->bytes;
	}
	uint64_t C = (uint64_t)p->nchannels;
	double t = (double)topo->launch_ps;
	double alpha = 0, beta = INFINITY;
	hopinfo hi = {INFINITY, 0, 0, NULL, 0, 0};
	g_autofree hopkind *kinds = NULL; /* hi's, freed on every return */
	/* dispatch and combine load their own routes (moe_time) */
	if (n > 1 && p->bytes > 0 && !gs_coll_is_moe(p->coll)) {
		hi = first_hops(topo, gen, &net);
		kinds = hi.kinds;
		alpha = hi.alpha;
		beta = hi.beta;
	}
	if (n > 1 && p->bytes > 0 && p->algo == GS_ALGO_BRUCK) {
		bruck_time(topo, gen, &net, &t);
	} else if (n > 1 && p->bytes > 0 && p->algo == GS_ALGO_PAT) {
		pat_time(topo, gen, &net, &t);
	} else if (n > 1 && p->bytes > 0 &&
		   (p->coll == GS_COLL_BROADCAST || p->coll == GS_COLL_REDUCE)) {
		chain_time(topo, gen, &net, &t);
	} else if (n > 1 && p->bytes > 0 && p->algo == GS_ALGO_RING &&
		   p->coll != GS_COLL_SENDRECV) {
		uint64_t K = p->coll == GS_COLL_ALLREDUCE ? 2 * (uint64_t)(n - 1) : (uint64_t)(n - 1);
		/* data of one channel, as the rank-chunks of one ring */
		uint64_t Dc = p->coll == GS_COLL_ALLREDUCE ? ceil_div(per_rank, C)
							   : ceil_div(per_rank, C) * (uint64_t)n;
		uint64_t c = ceil_div(Dc, (uint64_t)n);
		c = ceil_div(c, elem) * elem;
		if (c > p->chunk_bytes)
			c = p->chunk_bytes;
		uint64_t L = ceil_div(Dc, (uint64_t)n * c);
		/* the last loop's chunks are what is left over the n ranks (as
		 * the generator cuts them), the others full */
		uint64_t c_last = ceil_div(ceil_div(Dc - (L - 1) * (uint64_t)n * c, (uint64_t)n), elem) * elem;
		if (c_last > c)
			c_last = c;
		double busy, step = ring_step(&hi, beta, c, p->slice_bytes, o->buffer_bytes, &busy);
		double busy_last = busy, step_last = step;
		if (c_last != c)
			step_last = ring_step(&hi, beta, c_last, p->slice_bytes, o->buffer_bytes, &busy_last);
		t += (double)((L - 1) * K) * step + (double)K * step_last + (step_last > busy_last ? 0 : alpha);
	} else if (n > 1 && p->bytes > 0 && p->algo == GS_ALGO_TREE) {
		int rpn = p->ranks_per_node > 0 ? p->ranks_per_node : n;
		int nodes = n / rpn;
		int height = nodes > 1 ? (int)ceil(log2((double)nodes)) : 0;
		uint64_t Dc = ceil_div(per_rank, C);
		uint64_t M = ceil_div(Dc, p->slice_bytes);
		double s = (double)ceil_div(Dc, M);
		uint32_t route[GM_MAX_HOPS];
		/* fill: one slice down the critical path and back, alone on each
		 * NVLink hop (the chain's channels start staggered), but on each
		 * network hop together with the first slices of the other channel
		 * heads behind the same NIC (all C / rpn leave at once; with one
		 * member per node, as data-parallel groups have, that is every
		 * channel) */
		double a_in = 0, b_in = INFINITY, a_net = 0, b_net = INFINITY, b_cta = INFINITY;
		/* the chain's hops inside a node (alike through an NVSwitch;
		 * through PCIe switches and sockets not): the narrowest and the
		 * slowest decide */
		for (int m = 0; m + 1 < rpn; m++) {
			int h = gt_topo_route(topo, gs_group_member(p, 0, m), gs_group_member(p, 0, m + 1),
					      route);
			a_in = fmax(a_in, (double)gm_net_route_latency(&net, route, h));
			for (int k = 0; k < h; k++)
				b_in = fmin(b_in, net.links[route[k]].bw_Bps);
		}
		if (nodes > 1) {
			int h = gt_topo_route(topo, 0, gs_group_member(p, 0, rpn), route);
			a_net = (double)gm_net_route_latency(&net, route, h);
			/* the sender's channel link (a CTA's rate) is its own,
			 * the NIC the heads share */
			for (int k = 0; k < h; k++) {
				double bw = net.links[route[k]].bw_Bps;
				if (gt_topo_is_chan_link(topo, route[k]))
					b_cta = fmin(b_cta, bw);
				else
					b_net = fmin(b_net, bw);
			}
		}
		/* a slice's time on its narrowest hop alone: the chain's, or
		 * the network's with the other heads behind the NIC (or the
		 * sender's channel link, a CTA's rate, when that is slower) */
		double x_in = rpn > 1 ? s / b_in * 1e12 : 0, x_net = 0;
		if (nodes > 1)
			x_net = fmax(fmax(1.0, (double)C / rpn) * s / b_net, s / b_cta) * 1e12;
		double fill = 0;
		if (rpn > 1)
			fill += (rpn - 1) * (a_in + x_in);
		if (nodes > 1)
			fill += height * (a_net + x_net);
		/* steady state: one slice per round on every strand's link to
		 * each of its tree neighbours (a GPU's port carries the up and
		 * down strands of the channels it is inside the chain of, one
		 * way for a chain end; a NIC its heads' tree edges, three for an
		 * interior node of two children, one for a leaf), the down
		 * strands' sends one after the other (round_time); one slice
		 * has no steady state */
		double tau = M > 1 ? round_time(topo, gen, &net, s) : 0;
		/* Two bounds. The pipeline: the first slice up the tree and
		 * down again, each later one a slice's time on the narrowest
		 * hop behind it (the up and down pipelines meet on a link only
		 * once both run). The links: every slice through the busiest
		 * round (tau, both directions at once), after the first has
		 * reached it and before the last has left, about one way of
		 * the tree (fill). Short pipelines sit on the first, long ones
		 * on the second. */
		t += fmax(2.0 * fill + (double)(M - 1) * fmax(x_in, x_net), fill + (double)M * tau);
	} else if (n > 1 && p->bytes > 0 && gs_coll_is_moe(p->coll)) {
		gc_status st = moe_time(topo, gen, &net, &t, errmsg);
		if (st != GC_OK) {
			gm_net_fini(&net);
			ge_engine_fini(&eng);
			return st;
		}
	} else if (n > 1 && p->bytes > 0 && p->algo == GS_ALGO_COLLNET) {
		collnet_time(topo, gen, &net, &t);
	} else if (n > 1 && p->bytes > 0 && p->algo == GS_ALGO_COLLNET_CHAIN) {
		collnet_chain_time(topo, gen, &net, &t);
	} else if (n > 1 && p->bytes > 0 &&
		   (p->algo == GS_ALGO_NVLS_TREE ||
		    (p->algo == GS_ALGO_NVLS && p->ranks_per_node < n &&
		     p->coll == GS_COLL_ALLREDUCE))) {
		gc_status st = nvls_tree_time(topo, gen, &net, p->algo == GS_ALGO_NVLS, &t, errmsg);
		if (st != GC_OK) {
			gm_net_fini(&net);
			ge_engine_fini(&eng);
			return st;
		}
	} else if (n > 1 && p->bytes > 0 && p->algo == GS_ALGO_NVLS &&
		   p->coll != GS_COLL_ALLREDUCE) {
		nvls_agrs_time(topo, gen, &net, &t);
	} else if (n > 1 && p->bytes > 0 && p->algo == GS_ALGO_NVLS) {
		uint64_t blocks = C * (uint64_t)n;
		uint64_t Db = ceil_div(per_rank, blocks);
		uint64_t M = ceil_div(Db, p->slice_bytes);
		double s = (double)ceil_div(Db, M);
		uint32_t route[GM_MAX_HOPS];
		/* GPU 0 into its switch (the first helper rank, after all GPUs;
		 * in one-node groups, node 0's) and out of it */
		int h = gt_topo_route(topo, 0, p->nranks, route);
		double a_up = (double)gm_net_route_latency(&net, route, h);
		double b = net.links[route[0]].bw_Bps;
		h = gt_topo_route(topo, p->nranks, 0, route);
		b = fmin(b, net.links[route[0]].bw_Bps);
		double first = (double)(C * (uint64_t)(2 * n + 1));
		double round = (double)(C * (uint64_t)(n + 1));
		double drain = M > 2 ? (double)(C * (uint64_t)(n - 2)) * fmin(1.0, (double)(M - 2) / 2.0) : 0.0;
		t += 2.0 * a_up + (first + (double)(M - 1) * round + drain) * s / b * 1e12;
	} else if (n > 1 && p->bytes > 0 && p->coll == GS_COLL_ALLTOALL) {
		/* channels serve up to C peers at once, so the exchange is
		 * bandwidth-bound on rank 0's busiest link (by symmetry every
		 * rank's links carry the same): sum the blocks each of its links
		 * carries, take the largest load / bandwidth, add the longest
		 * route latency for the last message (and the signal, for put) */
		double block = (double)(p->bytes / (uint64_t)n);
		link_load ld;
		load_init(&ld, &net);
		/* a fabric's leaf uplinks are shared by every rank under the
		 * leaf: there, load every rank's blocks */
		bool shared = uplinks_shared(topo);
		for (int r = 0; r < p->nranks; r++) {
			int id = gs_group_id(p, r);
			if (!shared && id != 0)
				continue;
			for (int j = 0; j < n; j++) {
				int k = gs_group_member(p, id, j);
				if (k != r)
					load_add(&ld, topo, r, k, block);
			}
			if (!shared && r == gs_group_member(p, 0, 0))
				break;
		}
		t += load_time(&ld);
	} else if (n > 1 && p->bytes > 0) { /* sendrecv */
		/* every pair at once: the slowest pair's latency (a network
		 * pair among NVLink ones), not the mean of them */
		uint64_t Dc = ceil_div(per_rank, C);
		uint64_t M = ceil_div(Dc, p->slice_bytes);
		t += hi.alpha_max + (double)M * ((double)Dc / (double)M / beta * 1e12);
	}
	/* a transport's proxy thread: no faster than its turns */
	t = fmax(t, xport_proxy_bound(topo, gen, &net, o, res));
	/* a host thread driving G GPUs enqueues an operation on each in turn:
	 * the first operation waits for the last GPU's enqueue, (G - 1) x
	 * enqueue after the first's, and back-to-back operations run no faster
	 * than one per G x enqueue (gm_coll.h) */
	double g = o->gpus_per_thread > 1 ? o->gpus_per_thread : 1;
	double enq = (double)o->enqueue_ps;
	if (gm_coll_noop(p))
		t = enq = 0;
	double first = ceil(t + (g - 1) * enq), next = ceil(fmax(t, g * enq));
	double total = first + (double)(o->iters - 1) * next;
	if (!(total < (double)GE_HORIZON)) {
		gm_net_fini(&net);
		ge_engine_fini(&eng);
		*errmsg = g_strdup_printf("%d iteration(s) would take %.3g s, past the %.0f days of "
					  "simulated time the engine holds (int64 picoseconds); the "
					  "sizes are too large for the bandwidths",
					  o->iters, total * 1e-12, (double)GE_HORIZON * 1e-12 / 86400);
		return GC_ERR_INPUT;
	}
	/* whole picoseconds per operation, so that with every operation alike
	 * the time is exactly one operation's */
	res->total_ps = (int64_t)total;
	res->time_ps = (res->total_ps + o->iters - 1) / o->iters;
	gm_net_fini(&net);
	ge_engine_fini(&eng);
	return GC_OK;
}
