/* SPDX-License-Identifier: MIT */
/*
 * gs_garden: MoE dispatch and combine in the shape of pplx-garden's
 * point-to-point all-to-all (perplexityai/pplx-garden p2p-all-to-all:
 * a2a-kernels/src/a2a/a2a_dispatch_send.cu and a2a_dispatch_recv.cu, the
 * combine kernels, src/a2a_worker.rs): the GPU packs the tokens for every
 * other rank into one contiguous range of a send buffer, a CPU worker
 * thread per GPU writes each range to its rank in one RDMA write with
 * immediate data (fabric-lib, on EFA or ConnectX), the receiving worker
 * counts the immediates and raises a flag in GPU memory through GDRCopy,
 * and the receive kernel copies the tokens from its private receive
 * buffer into the experts' layout. Before dispatch the workers exchange
 * the routing (every rank's per-expert counts go to every other rank:
 * route_write_op), which the receivers wait for.
 *
 * Routing is gs_moe_map's (the same draw as put and pplx), and so is the
 * data: dispatch INPUT T messages (token t at slot t), OUTPUT the
 * receiver's slots; combine INPUT the slots dispatch left, OUTPUT T K
 * messages of the source. SCRATCH holds the send buffer (the rank's
 * messages to other ranks, by destination) and, after it, the private
 * receive buffer (the messages from other ranks, by source: source s's
 * at the sum of what ranks before s send here).
 *
 * n ranks, C channels (the kernels' blocks; a channel's destinations are
 * the ranks at distance k = 1 .. n-1 with (k - 1) mod C = c, each in
 * increasing k), strands_per_channel 2, nsignals 2 (slot 0 counts the
 * ranges that landed, slot 1 the routing messages):
 *   strand 2c   (dispatch, channel 0: a SIGNAL of slot 1 to every other
 *               rank, the routing exchange, which the worker starts before
 *               the tokens are packed); (channel 0) a COPY INPUT -> OUTPUT
 *               of every message to the rank itself; a COPY into the send
 *               buffer of every message to the channel's destinations, in
 *               the rank's message order; then per destination d one PUT
 *               of d's whole range into d's receive buffer and one SIGNAL
 *               of d's slot 0 behind it on the same connection
 *   strand 1    (dispatch: WAIT slot 1 >= n - 1); WAIT slot 0 >= the ranks
 *               that send here; a COPY of every message received into its
 *               OUTPUT slot, by source and in each source's order
 * The kernels write a same-node rank's tokens straight over NVLink from
 * all their warps; here they go as the same bulk range, over NVLink, on
 * their channel. Messages go whole (no slices). Every SIGNAL follows its
 * range on its connection and a WAIT counts all of them, so the schedule
 * completes exactly when every range has landed and cannot deadlock
 * (signals never wait). Steps are built once into one CSR.
 */
#include <string.h>

#include <glib.h>

#include "gs_impl.h"

/* ranks beyond which the n x n counts and the steps (about 5 T K a rank)
 * grow too large to keep */
#define GS_GARDEN_MAX_RANKS 1024

typedef struct gs_garden {
	gs_moe_map map;
	uint64_t *off; /* per (rank, strand) into steps */
	gs_step *steps;
	int nstrands;
} gs_garden;

/* Message i of rank r (in the rank's order): its destination, its slot
 * there and its own INPUT slot. */
static void garden_msg(const gs_moe_map *m, gs_coll coll, uint64_t r, uint64_t i, uint32_t *dst,
		       uint64_t *dq, uint64_t *sq)
{
	const uint64_t TK = (uint64_t)m->T * m->K;
	if (coll == GS_COLL_DISPATCH) {
		const uint64_t g = r * TK + i;
		*dst = (uint32_t)m->dst[g];
		*dq = m->slot[g];
		*sq = i / m->K;
		return;
	}
	const uint64_t g = m->src_of[m->off[r] + i];
	*dst = (uint32_t)(g / TK);
	*dq = g % TK;
	*sq = i;
}

static uint64_t garden_nmsg(const gs_moe_map *m, gs_coll coll, uint64_t r)
{
	return coll == GS_COLL_DISPATCH ? (uint64_t)m->T * m->K : m->recv[r];
}

static uint64_t gs_garden_strand_len(const gs_gen *g, int rank, int ch)
{
	const gs_garden *ga = g->priv;
	const uint64_t k = (uint64_t)rank * (uint64_t)ga->nstrands + (uint64_t)ch;
	return ga->off[k + 1] - ga->off[k];
}

static void gs_garden_fill(const gs_gen *g, int rank, int ch, uint64_t first, uint32_t n, gs_step *out)
{
	const gs_garden *ga = g->priv;
	const uint64_t k = (uint64_t)rank * (uint64_t)ga->nstrands + (uint64_t)ch;
	memcpy(out, ga->steps + ga->off[k] + first, (size_t)n * sizeof(gs_step));
}

static void gs_garden_destroy(gs_gen *g)
{
	gs_garden *ga = g->priv;
	if (ga) {
		gs_moe_map_free(&ga->map);
		g_free(ga->off);
		g_free(ga->steps);
		g_free(ga);
	}
	g->priv = NULL;
}

static const gs_gen_ops gs_garden_ops = {
	.strand_len = gs_garden_strand_len,
	.fill = gs_garden_fill,
	.destroy = gs_garden_destroy,
};

static void put_step(GArray *a, gs_op op, int32_t send, uint8_t sbuf, uint64_t soff, uint8_t dbuf,
		     uint64_t doff, uint64_t bytes)
{
	gs_step st;
	gs_step_clear(&st);
	st.op = (uint8_t)op;
	st.send_peer = send;
	st.src_buf = sbuf;
	st.src_off = soff;
	st.dst_buf = dbuf;
	st.dst_off = doff;
	st.bytes = bytes;
	g_array_append_val(a, st);
}

/* SIGNAL keeps its slot in dst_off, WAIT its slot in src_off and its
 * threshold in bytes; their buffers are the canonical unused ones */
static void signal_step(GArray *a, int32_t to, uint64_t slot)
{
	put_step(a, GS_OP_SIGNAL, to, GS_BUF_INPUT, 0, GS_BUF_OUTPUT, slot, 8);
}

static void wait_step(GArray *a, uint64_t slot, uint64_t count)
{
	put_step(a, GS_OP_WAIT, -1, GS_BUF_INPUT, slot, GS_BUF_OUTPUT, 0, count);
}

gc_status gs_garden_init(gs_gen *g, char **errmsg)
{
	const gs_params *p = &g->p;
	if (p->nranks > GS_GARDEN_MAX_RANKS) {
		*errmsg = g_strdup_printf("garden keeps every pair of ranks' token counts: at most %d "
					  "ranks, not %d",
					  GS_GARDEN_MAX_RANKS, p->nranks);
		return GC_ERR_INPUT;
	}
	gs_garden *ga = g_new0(gs_garden, 1);
	g->priv = ga;
	g->ops = &gs_garden_ops;
	gc_status st = gs_moe_map_build(p, &ga->map, errmsg);
	if (st != GC_OK) {
		gs_garden_destroy(g);
		g->ops = NULL;
		return st;
	}
	const gs_moe_map *m = &ga->map;
	const gs_coll coll = p->coll;
	const bool disp = coll == GS_COLL_DISPATCH;
	const uint64_t n = (uint64_t)p->nranks, C = (uint64_t)p->nchannels;
	const uint64_t sb = m->me * gs_dtype_size(p->dtype); /* a message's bytes */
	const int ns = 2 * p->nchannels;
	ga->nstrands = ns;
	/* messages from each rank to each other rank, where each source's
	 * range starts in each receive buffer, and the buffers' sizes */
	uint32_t *cnt = g_new0(uint32_t, n * n);
	uint64_t maxsend = 0, maxin = 0;
	for (uint64_t r = 0; r < n; r++) {
		uint64_t nm = garden_nmsg(m, coll, r), out = 0;
		for (uint64_t i = 0; i < nm; i++) {
			uint32_t d;
			uint64_t dq, sq;
			garden_msg(m, coll, r, i, &d, &dq, &sq);
			if (d != r) {
				cnt[r * n + d]++;
				out++;
			}
		}
		maxsend = MAX(maxsend, out);
	}
	uint32_t *roff = g_new0(uint32_t, n * n); /* roff[d n + s]: s's range at d */
	uint32_t *senders = g_new0(uint32_t, n);
	uint64_t *in_off = g_new0(uint64_t, n + 1); /* each rank's arrivals (CSR) */
	for (uint64_t d = 0; d < n; d++) {
		uint64_t at = 0;
		for (uint64_t s = 0; s < n; s++) {
			roff[d * n + s] = (uint32_t)at;
			at += cnt[s * n + d];
			senders[d] += s != d && cnt[s * n + d] > 0;
		}
		maxin = MAX(maxin, at);
		in_off[d + 1] = in_off[d] + at;
	}
	/* the arrivals' OUTPUT slots, by source and in each source's order, so
	 * that arrival j of rank d sits at receive slot j - in_off[d] */
	uint64_t *in_dq = g_new(uint64_t, in_off[n] + 1), *in_at = g_new(uint64_t, n);
	memcpy(in_at, in_off, n * sizeof(uint64_t));
	for (uint64_t src = 0; src < n; src++) {
		const uint64_t snm = garden_nmsg(m, coll, src);
		for (uint64_t i = 0; i < snm; i++) {
			uint32_t d;
			uint64_t dq, sq;
			garden_msg(m, coll, src, i, &d, &dq, &sq);
			if (d != src)
				in_dq[in_at[d]++] = dq;
		}
	}
	g_free(in_at);
	/* each rank's send buffer: the ranges by distance k = 1 .. n - 1 */
	uint64_t *sbase = g_new(uint64_t, n); /* per destination, for the current rank */
	uint64_t *fill_at = g_new(uint64_t, n);
	GArray *steps = g_array_new(FALSE, FALSE, sizeof(gs_step));
	ga->off = g_new0(uint64_t, n * (uint64_t)ns + 1);
	const uint64_t rbase = maxsend * sb; /* the receive buffer, after the send buffer */
	for (uint64_t r = 0; r < n; r++) {
		uint64_t at = 0;
		for (uint64_t k = 1; k < n; k++) {
			uint64_t d = (r + k) % n;
			sbase[d] = at;
			fill_at[d] = at;
			at += cnt[r * n + d];
		}
		const uint64_t nm = garden_nmsg(m, coll, r);
		for (int s = 0; s < ns; s++) {
			const uint64_t c = (uint64_t)s / 2;
			if (s == 1) {
				if (disp && n > 1)
					wait_step(steps, 1, n - 1);
				if (senders[r] > 0)
					wait_step(steps, 0, senders[r]);
				/* the receive kernel: every source's range, in order */
				for (uint64_t j = in_off[r]; j < in_off[r + 1]; j++)
					put_step(steps, GS_OP_COPY, -1, GS_BUF_SCRATCH, rbase + (j - in_off[r]) * sb,
						 GS_BUF_OUTPUT, in_dq[j] * sb, sb);
			} else if (s % 2 == 0) {
				if (c == 0 && disp)
					for (uint64_t k = 1; k < n; k++)
						signal_step(steps, (int32_t)((r + k) % n), 1);
				for (uint64_t i = 0; i < nm; i++) {
					uint32_t d;
					uint64_t dq, sq;
					garden_msg(m, coll, r, i, &d, &dq, &sq);
					if (d == r) {
						if (c == 0)
							put_step(steps, GS_OP_COPY, -1, GS_BUF_INPUT, sq * sb,
								 GS_BUF_OUTPUT, dq * sb, sb);
						continue;
					}
					if (((d + n - r) % n - 1) % C != c)
						continue;
					put_step(steps, GS_OP_COPY, -1, GS_BUF_INPUT, sq * sb, GS_BUF_SCRATCH,
						 fill_at[d]++ * sb, sb);
				}
				for (uint64_t k = 1 + c; k < n; k += C) {
					uint64_t d = (r + k) % n, q = cnt[r * n + d];
					if (q == 0)
						continue;
					put_step(steps, GS_OP_PUT, (int32_t)d, GS_BUF_SCRATCH, sbase[d] * sb,
						 GS_BUF_SCRATCH, rbase + (uint64_t)roff[d * n + r] * sb, q * sb);
					signal_step(steps, (int32_t)d, 0);
				}
			}
			ga->off[r * (uint64_t)ns + (uint64_t)s + 1] = steps->len;
		}
	}
	ga->steps = (gs_step *)(void *)g_array_free(steps, FALSE);
	g_free(sbase);
	g_free(fill_at);
	g_free(cnt);
	g_free(roff);
	g_free(senders);
	g_free(in_off);
	g_free(in_dq);
	g->nstrands = ns;
	g->strands_per_channel = 2;
	const uint64_t slots = (uint64_t)m->maxrecv * sb, tok = disp ? (uint64_t)m->T : (uint64_t)m->T * m->K;
	g->buf_bytes[GS_BUF_INPUT] = disp ? tok * sb : slots;
	g->buf_bytes[GS_BUF_OUTPUT] = disp ? slots : tok * sb;
	g->buf_bytes[GS_BUF_SCRATCH] = rbase + maxin * sb;
	g->nsignals = 2;
	return GC_OK;
}
