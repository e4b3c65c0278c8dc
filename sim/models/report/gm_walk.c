/* SPDX-License-Identifier: MIT */
/*
 * gm_walk: a collective walked step by step (see gm_walk.h).
 *
 * A step's time is split at the two instants the executor stamps
 * (gm_step_rec): from the strand being free until its incoming message is
 * there ("data"), then until the receiver has room for its own message
 * ("room", NCCL's credit), then its message going out ("moving", until the
 * last byte has left the bottleneck). The three add up to the step's time
 * exactly, and a strand's steps follow each other without gaps, so a
 * strand's listing adds up to the time from its launch to its end.
 */
#include "gm_walk.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "../../core/gc_units.h"
#include "../closed/gm_proto.h"

typedef struct wrec {
	uint32_t rank, strand, channel;
	int32_t send_peer, recv_peer;
	uint8_t op;
	uint64_t index, bytes;
	int64_t start, recv, ready, end;
	uint32_t via;
	uint8_t buf;  /* the buffer of the piece it works on (GS_BUF__COUNT: none) */
	uint64_t off; /* and its offset there */
} wrec;

typedef struct opsum {
	uint64_t steps;
	double bytes;
	int64_t data, room, moving;
} opsum;

struct gm_walk {
	gm_walk_opts o;
	GArray *recs; /* wrec, in completion order */
	uint64_t nsteps;
	bool truncated;
	uint32_t nranks, nstrands; /* seen: highest + 1 */
	opsum ops[GS_OP__COUNT];
	int64_t end; /* the last step's end */
};

gm_walk *gm_walk_new(const gm_walk_opts *o)
{
	gm_walk *w = g_new0(gm_walk, 1);
	w->o = *o;
	w->recs = g_array_new(FALSE, FALSE, sizeof(wrec));
	return w;
}

void gm_walk_free(gm_walk *w)
{
	if (!w)
		return;
	g_array_free(w->recs, TRUE);
	g_free(w);
}

uint64_t gm_walk_steps(const gm_walk *w) { return w->nsteps; }
uint32_t gm_walk_strands(const gm_walk *w) { return w->nstrands; }

void gm_walk_on_step(void *ctx, const gm_step_rec *rec)
{
	gm_walk *w = ctx;
	if (rec->iter != 0)
		return;
	const gs_step *st = rec->step;
	w->nsteps++;
	if (rec->rank + 1 > w->nranks)
		w->nranks = rec->rank + 1;
	if (rec->strand + 1 > w->nstrands)
		w->nstrands = rec->strand + 1;
	if (rec->end_ps > w->end)
		w->end = rec->end_ps;
	if (gs_op_valid((gs_op)st->op)) {
		opsum *s = &w->ops[st->op];
		s->steps++;
		s->bytes += (double)st->bytes;
		s->data += rec->recv_ps - rec->start_ps;
		s->room += rec->ready_ps - rec->recv_ps;
		s->moving += rec->end_ps - rec->ready_ps;
	}
	/* past the cap only the steps the listing and the timeline show are
	 * kept */
	bool shown = rec->strand == w->o.strand &&
		     (rec->rank == w->o.rank || (w->o.timeline && rec->rank < GM_WALK_MAX_TIMELINE_RANKS));
	if (w->recs->len >= GM_WALK_MAX_STEPS && !shown) {
		w->truncated = true;
		return;
	}
	wrec r = {
		.rank = rec->rank,
		.strand = rec->strand,
		.channel = rec->channel,
		.send_peer = gs_op_sends((gs_op)st->op) ? st->send_peer : -1,
		.recv_peer = gs_op_recvs((gs_op)st->op) ? st->recv_peer : -1,
		.op = st->op,
		.index = rec->index,
		.bytes = st->bytes,
		.start = rec->start_ps,
		.recv = rec->recv_ps,
		.ready = rec->ready_ps,
		.end = rec->end_ps,
		.via = rec->via,
		.buf = GS_BUF__COUNT,
	};
	/* the piece: what it reads of its own (SEND, the reductions, COPY,
	 * PUT), else where its result goes (RECV, RECV_COPY_SEND) */
	if (gs_op_reads_src((gs_op)st->op) && st->src_buf < GS_BUF__COUNT) {
		r.buf = st->src_buf;
		r.off = st->src_off;
	} else if (gs_op_writes_dst((gs_op)st->op) && st->dst_buf < GS_BUF__COUNT) {
		r.buf = st->dst_buf;
		r.off = st->dst_off;
	}
	g_array_append_val(w->recs, r);
}

static double us(int64_t ps) { return (double)ps * 1e-6; }

/* A peer as the reader sees it: a rank, a unit of the switch (NVLS's
 * helpers run as ranks past the communicator's), or none. */
static const char *peer_name(int32_t p, int nranks, char *buf, size_t n)
{
	if (p < 0)
		g_strlcpy(buf, "-", n);
	else if (p >= nranks)
		snprintf(buf, n, "sw%d", p - nranks);
	else
		snprintf(buf, n, "%d", p);
	return buf;
}

/* The kinds of physical link a message crosses, "nvlink", "pcie+nic", ...;
 * "-" for none (a channel's own rate is no link). */
static const char *via_name(uint32_t via, char *buf, size_t n)
{
	static const gm_link_kind order[] = {GM_LINK_NVLINK, GM_LINK_PCIE, GM_LINK_NIC, GM_LINK_GENERIC};
	buf[0] = '\0';
	for (size_t i = 0; i < G_N_ELEMENTS(order); i++) {
		if (!(via & (1u << order[i])))
			continue;
		if (buf[0])
			g_strlcat(buf, "+", n);
		g_strlcat(buf, gm_link_kind_name(order[i]), n);
	}
	if (!buf[0])
		g_strlcpy(buf, "-", n);
	return buf;
}

/* "in@24KiB", "out@0B", "scr@1MiB"; "-" for none. */
static const char *piece_name(const wrec *r, char *buf, size_t n)
{
	static const char *const names[GS_BUF__COUNT] = {"in", "out", "scr"};
	char b[32];
	if (r->buf >= GS_BUF__COUNT)
		g_strlcpy(buf, "-", n);
	else
		snprintf(buf, n, "%s@%s", names[r->buf], gc_fmt_bytes(r->off, b, sizeof(b)));
	return buf;
}

static const char *rank_name(uint32_t r, int nranks, char *buf, size_t n)
{
	if ((int64_t)r >= nranks)
		snprintf(buf, n, "switch unit %d", (int)r - nranks);
	else
		snprintf(buf, n, "rank %u", r);
	return buf;
}

static int cmp_rec(const void *a, const void *b)
{
	const wrec *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->strand != y->strand)
		return x->strand < y->strand ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The records of one strand of one rank, in step order (completion order
 * is step order within a strand). */
static GArray *strand_recs(const gm_walk *w, uint32_t rank, uint32_t strand)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(wrec));
	for (guint i = 0; i < w->recs->len; i++) {
		const wrec *r = &g_array_index(w->recs, wrec, i);
		if (r->rank == rank && r->strand == strand)
			g_array_append_vals(a, r, 1);
	}
	return a;
}

static void row(GString *g, const wrec *r, int nranks)
{
	char from[16], to[16], b[32], over[48], piece[48];
	g_string_append_printf(g, "  %5" PRIu64 "  %-22s %5s %5s  %-15s %10s  %-14s %10.3f %9.3f %9.3f %9.3f %10.3f\n",
			       r->index + 1, gs_op_name((gs_op)r->op),
			       peer_name(r->recv_peer, nranks, from, sizeof(from)),
			       peer_name(r->send_peer, nranks, to, sizeof(to)),
			       via_name(r->via, over, sizeof(over)), gc_fmt_bytes(r->bytes, b, sizeof(b)),
			       piece_name(r, piece, sizeof(piece)), us(r->start), us(r->recv - r->start),
			       us(r->ready - r->recv), us(r->end - r->ready), us(r->end));
}

static void format_listing(const gm_walk *w, const GArray *a, int nranks, GString *g)
{
	const gm_walk_opts *o = &w->o;
	char who[32];
	const wrec *first = &g_array_index(a, wrec, 0), *last = &g_array_index(a, wrec, a->len - 1);
	g_string_append_printf(g, "\n%s, strand %u (channel %u): %u step%s, from %.3f to %.3f us\n",
			       rank_name(o->rank, nranks, who, sizeof(who)), o->strand,
			       first->channel, a->len, a->len == 1 ? "" : "s", us(first->start), us(last->end));
	g_string_append(g, "      #  op                      from    to  over                 bytes  piece            "
			   "start_us   data_us   room_us moving_us     end_us\n");
	size_t n = a->len, head = n, tail = 0;
	if (o->max_rows > 0 && n > o->max_rows) {
		tail = o->max_rows / 4;
		head = o->max_rows - tail;
	}
	int64_t data = 0, room = 0, moving = 0;
	bool used[GS_OP__COUNT] = {false};
	for (size_t i = 0; i < n; i++) {
		const wrec *r = &g_array_index(a, wrec, i);
		data += r->recv - r->start;
		room += r->ready - r->recv;
		moving += r->end - r->ready;
		if (gs_op_valid((gs_op)r->op))
			used[r->op] = true;
		if (i < head || i >= n - tail)
			row(g, r, nranks);
		else if (i == head)
			g_string_append_printf(g, "  ... %zu steps more (--steps 0 lists them all) ...\n",
					       n - head - tail);
	}
	g_string_append_printf(g,
			       "  this strand: %.3f us launch, then %.3f us waiting for data, %.3f us "
			       "for room, %.3f us moving\n",
			       us(first->start), us(data), us(room), us(moving));
	g_string_append(g, "  what its ops do:\n");
	for (int op = 0; op < GS_OP__COUNT; op++)
		if (used[op])
			g_string_append_printf(g, "    %-22s %s\n", gs_op_name((gs_op)op),
					       gs_op_describe((gs_op)op));
	g_string_append(g, "  from / to: the rank it receives from and sends to (swN: a unit of the "
			   "NVSwitch); over: the links its message crosses (nic: the network); piece: the part of its "
			   "own buffer it works on (in, out, scr: input, output, scratch, @ the offset); data: waiting for the incoming message; room: waiting for space "
			   "in the receiver's buffer (NCCL's credit); moving: its own message going "
			   "out, until the last byte has left the narrowest link it shares\n");
}

static void format_ops(const gm_walk *w, GString *g)
{
	g_string_append(g, "\nevery rank and strand, by op (time summed over the steps):\n");
	g_string_append(g, "  op                         steps        bytes     data_us     room_us   "
			   "moving_us\n");
	for (int op = 0; op < GS_OP__COUNT; op++) {
		const opsum *s = &w->ops[op];
		if (!s->steps)
			continue;
		char b[32];
		g_string_append_printf(g, "  %-22s %9" PRIu64 " %12s %11.3f %11.3f %11.3f\n",
				       gs_op_name((gs_op)op), s->steps,
				       gc_fmt_bytes((uint64_t)s->bytes, b, sizeof(b)), us(s->data),
				       us(s->room), us(s->moving));
	}
}

enum { T_LAUNCH, T_DATA, T_ROOM, T_MOVING, T_DONE, T__COUNT };
#define TL_COLS 64

/* Add [a, b) of state k to the cells it covers. */
static void tl_add(double acc[TL_COLS][T__COUNT], double a, double b, int k, double cell)
{
	if (b <= a)
		return;
	int c0 = (int)(a / cell), c1 = (int)(b / cell);
	for (int c = c0; c <= c1 && c < TL_COLS; c++) {
		double lo = a > c * cell ? a : c * cell, hi = b < (c + 1) * cell ? b : (c + 1) * cell;
		if (hi > lo)
			acc[c][k] += hi - lo;
	}
}

static void format_timeline(const gm_walk *w, int nranks, GString *g)
{
	static const char glyph[T__COUNT] = {'-', '.', ':', '#', ' '};
	/* ties go to the more telling state: moving, room, data, launch */
	static const int prio[T__COUNT] = {T_MOVING, T_ROOM, T_DATA, T_LAUNCH, T_DONE};
	double end = (double)w->end, cell = end / TL_COLS;
	uint32_t shown = w->nranks < GM_WALK_MAX_TIMELINE_RANKS ? w->nranks : GM_WALK_MAX_TIMELINE_RANKS;
	g_string_append_printf(g,
			       "\ntimeline of strand %u, 0 to %.3f us, one column %.3f us "
			       "(- launch  . waits for data  : waits for room  # moving  blank: done)\n",
			       w->o.strand, us(w->end), us((int64_t)cell));
	if (cell <= 0)
		return;
	for (uint32_t rk = 0; rk < shown; rk++) {
		GArray *a = strand_recs(w, rk, w->o.strand);
		double acc[TL_COLS][T__COUNT] = {{0}};
		double t = 0;
		for (guint i = 0; i < a->len; i++) {
			const wrec *r = &g_array_index(a, wrec, i);
			if (i == 0)
				tl_add(acc, 0, (double)r->start, T_LAUNCH, cell);
			tl_add(acc, (double)r->start, (double)r->recv, T_DATA, cell);
			tl_add(acc, (double)r->recv, (double)r->ready, T_ROOM, cell);
			tl_add(acc, (double)r->ready, (double)r->end, T_MOVING, cell);
			t = (double)r->end;
		}
		tl_add(acc, a->len ? t : 0, end, a->len ? T_DONE : T_LAUNCH, cell);
		char who[32];
		g_string_append_printf(g, "  %-15s |", rank_name(rk, nranks, who, sizeof(who)));
		for (int c = 0; c < TL_COLS; c++) {
			int best = T_DONE;
			double most = 0;
			for (int j = 0; j < T__COUNT; j++) {
				int k = prio[j];
				if (acc[c][k] > most) {
					most = acc[c][k];
					best = k;
				}
			}
			g_string_append_c(g, glyph[best]);
		}
		g_string_append(g, "|\n");
		g_array_free(a, TRUE);
	}
	if (shown < w->nranks)
		g_string_append_printf(g, "  (%u ranks more not drawn)\n", w->nranks - shown);
}

static void format_csv(const gm_walk *w, GString *g)
{
	GArray *a = g_array_sized_new(FALSE, FALSE, sizeof(wrec), w->recs->len);
	g_array_append_vals(a, w->recs->data, w->recs->len);
	g_array_sort(a, cmp_rec);
	g_string_append(g, "rank,strand,channel,step,op,recv_from,send_to,over,bytes,buffer,offset,start_us,"
			   "recv_us,ready_us,end_us\n");
	for (guint i = 0; i < a->len; i++) {
		const wrec *r = &g_array_index(a, wrec, i);
		static const char *const bufs[GS_BUF__COUNT + 1] = {"input", "output", "scratch", "-"};
		char over[48], off[24];
		if (r->buf < GS_BUF__COUNT)
			snprintf(off, sizeof(off), "%" PRIu64, r->off);
		else
			g_strlcpy(off, "-", sizeof(off));
		g_string_append_printf(g, "%u,%u,%u,%" PRIu64 ",%s,%d,%d,%s,%" PRIu64 ",%s,%s,%.6f,%.6f,%.6f,%.6f\n",
				       r->rank, r->strand, r->channel, r->index + 1,
				       gs_op_name((gs_op)r->op), r->recv_peer, r->send_peer,
				       via_name(r->via, over, sizeof(over)), r->bytes, bufs[r->buf], off,
				       us(r->start), us(r->recv), us(r->ready), us(r->end));
	}
	g_array_free(a, TRUE);
}

gc_status gm_walk_format(const gm_walk *w, const gm_run *r, void *gstring_out, char **errmsg)
{
	GString *g = gstring_out;
	const gm_walk_opts *o = &w->o;
	if (r->npts != 1) {
		*errmsg = g_strdup_printf("a walk is of one size; the run has %zu", r->npts);
		return GC_ERR_INPUT;
	}
	if (w->nsteps > 0 && o->rank >= w->nranks) {
		*errmsg = g_strdup_printf("--rank %u: the run has ranks 0 to %u", o->rank, w->nranks - 1);
		return GC_ERR_INPUT;
	}
	if (w->nsteps > 0 && o->strand >= w->nstrands) {
		*errmsg = g_strdup_printf("--strand %u: each rank runs strands 0 to %u", o->strand,
					  w->nstrands - 1);
		return GC_ERR_INPUT;
	}
	if (o->csv && w->truncated) {
		*errmsg = g_strdup_printf("the run has %" PRIu64 " steps, more than the %d a CSV walk "
					  "keeps: use a smaller size, fewer ranks or fewer channels",
					  w->nsteps, GM_WALK_MAX_STEPS);
		return GC_ERR_INPUT;
	}
	if (o->csv) {
		format_csv(w, g);
		return GC_OK;
	}
	const gm_point *pt = &r->pts[0];
	const int nranks = r->base.nranks;
	char b[32];
	gm_run_format_setup(r, g);
	g_string_append_printf(g,
			       "# explain: %s of %s with %s, %s%s, on %d ranks: one operation "
			       "takes %.3f us (algbw %.2f GB/s, busbw %.2f GB/s)\n",
			       gs_coll_name(r->base.coll), gc_fmt_bytes(pt->bytes, b, sizeof(b)),
			       gs_algo_name((gs_algo)pt->algo),
			       r->host.kind != GM_BACKEND_NCCL ? "backend " : "protocol ",
			       r->host.kind != GM_BACKEND_NCCL ? r->host.name
							       : gm_proto_get((gm_proto)pt->proto)->name,
			       nranks, pt->time_us, pt->algbw_GBps, pt->busbw_GBps);
	if (r->host.staged) {
		gs_params q = r->base;
		q.bytes = pt->bytes;
		g_string_append_printf(g,
				       "# host backend: the steps below run between the staging copies "
				       "(%.3f us in, %.3f us out, in the time above); a step's room_us "
				       "also holds the CPU summing what arrived before it sends\n",
				       (double)gm_host_copy_in_ps(&r->host, &q) * 1e-6,
				       (double)gm_host_copy_out_ps(&r->host, &q) * 1e-6);
	}
	int64_t iters = gc_config_int(r->cfg, "collective.iters");
	if (iters > 1)
		g_string_append_printf(g, "# the first of %" PRId64 " back-to-back operations is walked; "
					  "the time above is their mean\n",
				       iters);
	if (w->nsteps == 0) {
		g_string_append(g, "\nno steps: a collective of no bytes returns without a kernel\n");
		return GC_OK;
	}
	g_string_append_printf(g, "# every rank runs %u strand%s; %" PRIu64 " steps in all", w->nstrands,
			       w->nstrands == 1 ? "" : "s", w->nsteps);
	if (w->nranks > (uint32_t)nranks) {
		uint64_t sw = 0;
		for (guint i = 0; i < w->recs->len; i++)
			sw += g_array_index(w->recs, wrec, i).rank >= (uint32_t)nranks;
		g_string_append_printf(g, ", %s%" PRIu64 " of them on the NVSwitch's units (run as ranks sw0 "
					  "to sw%u)",
				       w->truncated ? "at least " : "", sw, w->nranks - (uint32_t)nranks - 1);
	}
	g_string_append_c(g, '\n');
	GArray *a = strand_recs(w, o->rank, o->strand);
	if (a->len > 0)
		format_listing(w, a, nranks, g);
	else
		g_string_append_printf(g, "\nrank %u, strand %u: no steps (it has nothing to do)\n",
				       o->rank, o->strand);
	g_array_free(a, TRUE);
	if (w->truncated)
		g_string_append_printf(g, "  (the run has %" PRIu64 " steps: past the first %d only this "
					  "strand's and the timeline's are kept; the totals below count "
					  "them all)\n",
				       w->nsteps, GM_WALK_MAX_STEPS);
	format_ops(w, g);
	if (o->timeline)
		format_timeline(w, nranks, g);
	if (pt->r.has_cp) {
		gm_run *rr = (gm_run *)r;
		gm_run_format_breakdown(NULL, NULL, &rr, 1, g);
	}
	return GC_OK;
}
