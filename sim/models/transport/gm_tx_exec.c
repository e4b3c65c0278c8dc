/* SPDX-License-Identifier: MIT */
/*
 * gm_tx_exec: the generic path executor and the closed form of a recipe.
 *
 * Event-driven: every message instantiates the recipe; a step starts when
 * all the steps it depends on are done and then occupies its resource:
 *  - a delay (no contention) or a poller (the first poll that starts at or
 *    half a poll period after the flag lands on average, plus one read);
 *  - a single-server FIFO: the application CPU thread, the NIC's
 *    message-processing stage (1 / nic.msg_rate per message);
 *  - the CPU proxy thread: idle, it polls with period read + poll_interval
 *    from the moment it became idle; a poll that finds requests takes up to
 *    proxy.batch of them, works on each (request cost + post, and with
 *    proxy.post single the request's own doorbell), or with proxy.post
 *    chained rings one doorbell for all the requests whose work finished
 *    before it starts; then reaps its completion queue (one CQE per
 *    request posted in the turn with single, one per turn with chained)
 *    and goes idle again;
 *  - links (gm_net): data moves as a flow along a route, sharing bandwidth
 *    max-min fairly, and arrives one route latency after its last byte.
 * Each issuer (a CPU thread or a CTA) starts its next message once the
 * recipe's release step of its previous message is done and fewer than
 * nic.sq_depth of its messages are still in flight. In a stream of
 * messages (more than one) the receiver-notification steps are free.
 * In the put loop (shmem_put_bw's) the issuers are the kernel's CTAs, and
 * a CTA's next put waits instead for the inter-CTA barrier that follows
 * the round's last release by gpu.cta_barrier; the loop starts one
 * gpu.launch_latency in and ends with a final barrier after the last put's
 * completion has come back (gm_tx_quiet_ps).
 *
 * Closed form: the same DAG evaluated with every resource idle, which is
 * exactly what the event-driven run gives for one message (the tests assert
 * equality to the picosecond).
 */
#include "gm_tx.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#include "../../core/gc_fifo.h"
#include "../net/gm_net.h"

enum {
	EV_DONE = 1,
	EV_SERVER_DONE,
	EV_NET_START,
	EV_ISSUE,
	EV_PX_POLL_START,
	EV_PX_POLL_END,
	EV_PX_WORK_DONE,
	EV_LOOP_START,
	EV_BARRIER
};
enum { SRV_CPU, SRV_NIC, SRV__COUNT };

typedef struct server {
	gc_fifo q;
	bool busy;
	uint64_t cur;
	int64_t busy_ps;
} server;

#define DB_JOB UINT64_MAX
enum { PX_IDLE, PX_POLL_SCHEDULED, PX_POLLING, PX_WORKING };

/* A put loop's trace shows its first rounds' puts and barriers (every
 * round of perftest's default 10 iterations); a stream's, every step of
 * up to 64 messages. An actor has up to TRACE_LANES tracks; a step that
 * finds none free is not drawn (and counted). */
#define LOOP_TRACE_ROUNDS 16
#define TRACE_LANES 512

typedef struct exec {
	ge_engine eng;
	gm_net net;
	uint32_t ent;
	const gm_tx_params *p;
	const gm_tx_recipe *r;
	uint64_t K;
	int ns;
	bool stream;
	uint8_t *waiting;     /* K x ns: dependencies not yet done */
	int64_t *start;	      /* K x ns when tracing, else ns (message 0) */
	int64_t *msg_start;   /* K */
	uint32_t *left;	      /* K: steps not yet done */
	uint8_t dependents[GM_TX_MAX_STEPS][GM_TX_MAX_STEPS];
	int ndependents[GM_TX_MAX_STEPS];
	server *srv; /* SRV_CPU, SRV_NIC, then the shared send queues */
	int nsrv;
	/* proxy */
	int px_state;
	int64_t px_origin, px_busy_ps;
	gc_fifo px_fifo, px_work;
	uint32_t px_snap;
	GArray *db_wait, *db_run; /* jobs joined to the queued / running doorbell */
	bool db_queued;
	int64_t px_read_ps, px_period_ps;
	uint32_t px_posts; /* signalled work requests posted in this turn */
	/* issuers: the next message, messages in flight, free to issue */
	int nis;
	int64_t *issuer_busy;
	uint64_t *next_msg;
	uint32_t *inflight;
	bool *ifree;
	uint64_t done_msgs;
	int64_t last_end;
	/* the put loop: rounds of one message per issuer, each ended by the
	 * inter-CTA barrier (iters 0: a stream) */
	uint64_t iters, epoch;
	int arrived;
	int64_t round_start, loop_ps, last_barrier;
	gm_tx_result *out;
	ge_trace *trace;
	int pid;	 /* the trace's process for this run */
	int barrier_tid; /* the put loop's track of barriers */
	int tids[GM_TX_MAX_STEPS];
	const char *actors[GM_TX_MAX_STEPS]; /* by track, tids - 1 */
	/* an actor's overlapping steps (several CTAs' at once) go to lanes of
	 * its own, each a track whose slices do not overlap: per actor, each
	 * lane's last end (with a trace only) */
	int64_t (*lane_end)[TRACE_LANES];
	int nlanes[GM_TX_MAX_STEPS];
	uint64_t undrawn;
} exec;

static const char *const link_names[GM_TX_L__COUNT] = {
	"GPU A SM stores (gpu.sm_store_bw)", "GPU A NVLink out (nvlink.bandwidth)",
	"GPU B NVLink in (nvlink.bandwidth)", "GPU A PCIe up (pcie.bandwidth)",
	"GPU A PCIe down (pcie.bandwidth)", "host PCIe in (pcie.bandwidth)",
	"host PCIe out (pcie.bandwidth)", "NIC PCIe in (pcie.bandwidth)", "NIC line rate (nic.bandwidth)",
	"wire and switch (nic.bandwidth)", "remote NIC PCIe out (pcie.bandwidth)",
	"GPU B PCIe down (pcie.bandwidth)", "remote host PCIe in (pcie.bandwidth)",
	"CPU memcpy (host.memcpy_bw)", "GPU B PCIe down (pcie.bandwidth)",
	"remote host PCIe out (pcie.bandwidth)", "remote CPU memcpy (host.memcpy_bw)",
};

static void add_links(gm_net *n, const gm_tx_params *p)
{
	int64_t half = p->pcie_lat_ps / 2, other = p->pcie_lat_ps - half;
	for (int l = 0; l < GM_TX_L__COUNT; l++) {
		double bw = p->pcie_Bps;
		int64_t lat = 0;
		gm_link_kind k = GM_LINK_PCIE;
		switch (l) {
		case GM_TX_L_SM: bw = p->sm_store_Bps; k = GM_LINK_GENERIC; break;
		case GM_TX_L_NVL_TX: bw = p->nvlink_Bps; lat = p->nvlink_lat_ps; k = GM_LINK_NVLINK; break;
		case GM_TX_L_NVL_RX: bw = p->nvlink_Bps; k = GM_LINK_NVLINK; break;
		case GM_TX_L_LINE: bw = p->nic_Bps; k = GM_LINK_NIC; break;
		case GM_TX_L_WIRE: bw = p->nic_Bps; lat = p->wire_lat_ps + p->switch_lat_ps; k = GM_LINK_NIC; break;
		case GM_TX_L_MEMCPY:
		case GM_TX_L_RMEMCPY: bw = p->memcpy_Bps; k = GM_LINK_GENERIC; break;
		/* a PCIe crossing is two links (device side, then switch side) */
		case GM_TX_L_GPU_UP: case GM_TX_L_HOST_DOWN: case GM_TX_L_RNIC_UP: lat = half; break;
		default: lat = other; break;
		}
		gm_net_add_link(n, link_names[l], k, bw, lat);
	}
}

/* ---- closed form --------------------------------------------------------------- */

/* An idle poller's phase relative to an arrival is arbitrary; the poll that
 * detects the flag starts, on average, half a period after it lands (mean
 * residual time of a periodic loop). A poller that only becomes idle after
 * the arrival (origin later) polls at once. */
static int64_t poll_end(int64_t a, int64_t origin, int64_t period, int64_t read)
{
	int64_t s = a < origin ? origin : a + period / 2;
	return s + read;
}

static void net_route(const gm_tx_step *s, uint32_t *rt)
{
	for (int h = 0; h < s->nhops; h++)
		rt[h] = s->route[h];
}

void gm_tx_estimate(const gm_tx_params *p, const gm_tx_recipe *r, gm_tx_result *out)
{
	ge_engine eng;
	gm_net net;
	ge_engine_init(&eng, 1);
	gm_net_init(&net, &eng, NULL, NULL);
	add_links(&net, p);
	memset(out, 0, sizeof(*out));
	int64_t end = 0;
	for (int i = 0; i < r->nsteps; i++) {
		const gm_tx_step *s = &r->steps[i];
		int64_t a = 0;
		for (int d = 0; d < s->ndeps; d++)
			a = MAX(a, out->steps[s->deps[d]].end_ps);
		int64_t e;
		if (s->res == GM_TX_R_POLL || s->res == GM_TX_R_PROXY_POLL) {
			e = poll_end(a, INT64_MIN, s->period_ps, s->fixed_ps);
		} else if (s->res == GM_TX_R_NET) {
			uint32_t rt[GM_TX_MAX_HOPS];
			net_route(s, rt);
			e = a + s->fixed_ps + (s->bytes > 0 ? gm_net_estimate_ps(&net, rt, s->nhops, s->bytes)
							    : gm_net_route_latency(&net, rt, s->nhops));
		} else {
			e = a + s->fixed_ps;
		}
		out->steps[i].start_ps = a;
		out->steps[i].end_ps = e;
		end = MAX(end, e);
	}
	out->latency_ps = end;
	out->makespan_ps = end;
	out->messages = 1;
	out->rate_Mops = end > 0 ? 1e6 / (double)end : 0;
	gm_net_fini(&net);
	ge_engine_fini(&eng);
}

/* ---- event-driven ------------------------------------------------------------- */

static inline uint64_t job_of(uint64_t m, int s) { return m * GM_TX_MAX_STEPS + (uint64_t)s; }
static inline uint64_t job_msg(uint64_t j) { return j / GM_TX_MAX_STEPS; }
static inline int job_step(uint64_t j) { return (int)(j % GM_TX_MAX_STEPS); }

static int64_t *start_slot(exec *x, uint64_t job)
{
	uint64_t m = job_msg(job);
	int s = job_step(job);
	if (x->trace)
		return &x->start[m * (uint64_t)x->ns + (uint64_t)s];
	return m == 0 ? &x->start[s] : NULL;
}

static bool is_free(const exec *x, int s)
{
	return x->stream && x->r->steps[s].latency_only;
}

static void step_ready(exec *x, uint64_t job);

static void try_issue(exec *x, uint64_t i)
{
	if (!x->ifree[i] || x->next_msg[i] >= x->K)
		return;
	/* in the loop a CTA's next put waits for the barrier that ends its
	 * round; in a stream, for room among its messages in flight */
	if (x->iters ? x->next_msg[i] / (uint64_t)x->nis > x->epoch
		     : x->inflight[i] >= (uint32_t)x->p->sq_depth)
		return;
	x->ifree[i] = false;
	x->inflight[i]++;
	ge_schedule(&x->eng, x->eng.now, x->ent, EV_ISSUE, x->next_msg[i]);
	x->next_msg[i] += (uint64_t)x->nis;
}

/* The track of actor a (its index) for a step from start to now: its
 * first lane free since start, a new one (named) if none is, -1 if all
 * TRACE_LANES are taken. Steps end in time order, so a lane whose last
 * step ended by `start` has none that overlaps. Lane 0 is the actor's own
 * track (tid a + 1). */
static int trace_lane(exec *x, int a, int64_t start)
{
	int l = 0;
	while (l < x->nlanes[a] && x->lane_end[a][l] > start)
		l++;
	if (l == TRACE_LANES)
		return -1;
	if (l == x->nlanes[a]) {
		x->nlanes[a]++;
		if (l > 0) {
			char *name = g_strdup_printf("%s (%d)", x->actors[a], l + 1);
			ge_trace_name_thread(x->trace, x->pid, a + 1 + l * GM_TX_MAX_STEPS, name);
			g_free(name);
		}
	}
	x->lane_end[a][l] = x->eng.now;
	return a + 1 + l * GM_TX_MAX_STEPS;
}

static void step_done(exec *x, uint64_t job)
{
	ge_engine *e = &x->eng;
	uint64_t m = job_msg(job);
	int s = job_step(job);
	int64_t *st = start_slot(x, job);
	if (m == 0) {
		x->out->steps[s].start_ps = x->start[s];
		x->out->steps[s].end_ps = e->now;
	}
	if (x->trace && st && e->now > *st &&
	    (x->iters ? m / (uint64_t)x->nis < LOOP_TRACE_ROUNDS : x->K <= 64)) {
		char args[64];
		g_snprintf(args, sizeof(args), "\"message\":%llu,\"step\":%d", (unsigned long long)m, s + 1);
		int tid = trace_lane(x, x->tids[s] - 1, *st);
		if (tid > 0)
			ge_trace_slice(x->trace, x->pid, tid, x->r->steps[s].action, *st, e->now - *st,
				       args);
		else
			x->undrawn++;
	}
	if (s == x->r->release) {
		uint64_t i = m % (uint64_t)x->nis;
		x->issuer_busy[i] += e->now - x->msg_start[m];
		x->ifree[i] = true;
		/* the last CTA of the round at the barrier starts its release */
		if (x->iters && ++x->arrived == x->nis) {
			x->arrived = 0;
			ge_schedule(e, e->now + x->p->cta_barrier_ps, x->ent, EV_BARRIER, 0);
			if (x->trace && x->epoch < LOOP_TRACE_ROUNDS) {
				char args[48];
				g_snprintf(args, sizeof(args), "\"iteration\":%llu",
					   (unsigned long long)x->epoch + 1);
				ge_trace_slice(x->trace, x->pid, x->barrier_tid, "inter-CTA barrier", e->now,
					       x->p->cta_barrier_ps, args);
			}
		}
		try_issue(x, i);
	}
	for (int k = 0; k < x->ndependents[s]; k++) {
		int d = x->dependents[s][k];
		if (--x->waiting[m * (uint64_t)x->ns + (uint64_t)d] == 0)
			step_ready(x, job_of(m, d));
	}
	if (--x->left[m] == 0) {
		if (m == 0)
			x->out->latency_ps = e->now - x->msg_start[0];
		x->last_end = MAX(x->last_end, e->now);
		uint64_t i = m % (uint64_t)x->nis;
		x->inflight[i]--;
		try_issue(x, i);
		if (++x->done_msgs == x->K && x->epoch == x->iters)
			e->stop = true;
	}
}

static void server_start(exec *x, int i)
{
	server *v = &x->srv[i];
	if (v->busy || v->q.n == 0)
		return;
	v->cur = gc_fifo_pop(&v->q);
	v->busy = true;
	int64_t d = x->r->steps[job_step(v->cur)].fixed_ps;
	v->busy_ps += d;
	ge_schedule(&x->eng, x->eng.now + d, x->ent, EV_SERVER_DONE, (uint64_t)i);
}

static void px_work_next(exec *x);

static void px_go_idle(exec *x, int64_t origin)
{
	x->px_origin = origin;
	x->px_state = PX_IDLE;
	if (x->px_fifo.n) {
		x->px_state = PX_POLL_SCHEDULED;
		ge_schedule(&x->eng, origin, x->ent, EV_PX_POLL_START, 0);
	}
}

static void px_work_next(exec *x)
{
	if (x->px_work.n == 0) {
		/* the loop ends: poll the completion queue, then poll requests.
		 * With one signalled request per post every request completes
		 * with its own CQE and the proxy reaps them one by one; a chained
		 * post completes once. */
		uint32_t n = x->p->proxy_post == GM_TX_POST_SINGLE && x->px_posts ? x->px_posts : 1;
		x->px_posts = 0;
		int64_t cq = (int64_t)n * x->p->cq_poll_ps;
		x->px_busy_ps += cq;
		px_go_idle(x, x->eng.now + cq);
		return;
	}
	uint64_t j = gc_fifo_pop(&x->px_work);
	int64_t d;
	if (j == DB_JOB) {
		x->db_queued = false;
		GArray *t = x->db_run;
		x->db_run = x->db_wait;
		x->db_wait = t;
		g_array_set_size(x->db_wait, 0);
		d = x->p->mmio_write_ps;
	} else {
		d = x->r->steps[job_step(j)].fixed_ps;
		if (x->r->steps[job_step(j)].posts)
			x->px_posts++;
	}
	x->px_busy_ps += d;
	ge_schedule(&x->eng, x->eng.now + d, x->ent, EV_PX_WORK_DONE, j);
}

static void step_begin(exec *x, uint64_t job)
{
	ge_engine *e = &x->eng;
	int s = job_step(job);
	const gm_tx_step *st = &x->r->steps[s];
	int64_t *slot = start_slot(x, job);
	if (slot)
		*slot = e->now;
	if (is_free(x, s)) {
		/* Free proxy work (the signal posted behind a put) is done in the
		 * same turn of the proxy's loop as the work before it, so what
		 * waits on it (the batch's doorbell) joins the work the proxy
		 * does next; completing it one event later would find the proxy
		 * gone idle with that doorbell never rung. */
		if (st->res == GM_TX_R_PROXY_WORK)
			step_done(x, job);
		else
			ge_schedule(e, e->now, x->ent, EV_DONE, job);
		return;
	}
	switch (st->res) {
	case GM_TX_R_NONE:
		ge_schedule(e, e->now + st->fixed_ps, x->ent, EV_DONE, job);
		break;
	case GM_TX_R_POLL:
		ge_schedule(e, poll_end(e->now, INT64_MIN, st->period_ps, st->fixed_ps), x->ent, EV_DONE, job);
		break;
	case GM_TX_R_CPU:
	case GM_TX_R_NIC_TX:
	case GM_TX_R_GPU_SQ: {
		/* a message's issuer is m mod issuers; its CTA's queue is that
		 * mod gpu.queues */
		int i = st->res == GM_TX_R_CPU	  ? SRV_CPU
			: st->res == GM_TX_R_NIC_TX ? SRV_NIC
						    : SRV__COUNT + (int)((job_msg(job) %
									   (uint64_t)x->nis) %
									  (uint64_t)(x->nsrv - SRV__COUNT));
		gc_fifo_push(&x->srv[i].q, job);
		server_start(x, i);
		break;
	}
	case GM_TX_R_PROXY_POLL:
		gc_fifo_push(&x->px_fifo, job);
		if (x->px_state == PX_IDLE) {
			x->px_state = PX_POLL_SCHEDULED;
			ge_schedule(e, poll_end(e->now, x->px_origin, x->px_period_ps, 0), x->ent,
				    EV_PX_POLL_START, 0);
		}
		break;
	case GM_TX_R_PROXY_WORK:
		gc_fifo_push(&x->px_work, job);
		break;
	case GM_TX_R_PROXY_DB:
		g_array_append_val(x->db_wait, job);
		if (!x->db_queued) {
			x->db_queued = true;
			gc_fifo_push(&x->px_work, DB_JOB);
		}
		break;
	case GM_TX_R_NET:
		if (st->fixed_ps > 0)
			ge_schedule(e, e->now + st->fixed_ps, x->ent, EV_NET_START, job);
		else
			ge_schedule(e, e->now, x->ent, EV_NET_START, job);
		break;
	default:
		g_assert_not_reached();
	}
}

static void step_ready(exec *x, uint64_t job)
{
	step_begin(x, job);
}

static void on_flow_done(void *ctx, uint64_t tag, ge_time now)
{
	exec *x = ctx;
	const gm_tx_step *s = &x->r->steps[job_step(tag)];
	uint32_t rt[GM_TX_MAX_HOPS];
	net_route(s, rt);
	ge_schedule(&x->eng, now + gm_net_route_latency(&x->net, rt, s->nhops), x->ent, EV_DONE, tag);
}

static gc_status x_handle(ge_engine *e, void *self, const ge_event *ev)
{
	exec *x = self;
	switch (ev->kind) {
	case EV_DONE:
		step_done(x, ev->arg);
		break;
	case EV_SERVER_DONE: {
		server *v = &x->srv[ev->arg];
		uint64_t j = v->cur;
		v->busy = false;
		step_done(x, j);
		server_start(x, (int)ev->arg);
		break;
	}
	case EV_NET_START: {
		const gm_tx_step *s = &x->r->steps[job_step(ev->arg)];
		uint32_t rt[GM_TX_MAX_HOPS];
		net_route(s, rt);
		if (s->bytes > 0)
			gm_net_start(&x->net, rt, s->nhops, s->bytes, ev->arg);
		else
			on_flow_done(x, ev->arg, e->now);
		break;
	}
	case EV_ISSUE: {
		uint64_t m = ev->arg;
		x->msg_start[m] = e->now;
		for (int s = 0; s < x->ns; s++)
			if (x->r->steps[s].ndeps == 0)
				step_ready(x, job_of(m, s));
		break;
	}
	case EV_LOOP_START:
		x->round_start = e->now;
		for (int i = 0; i < x->nis; i++)
			try_issue(x, (uint64_t)i);
		break;
	case EV_BARRIER:
		x->epoch++;
		x->loop_ps += e->now - x->round_start;
		x->round_start = x->last_barrier = e->now;
		for (int i = 0; i < x->nis; i++)
			try_issue(x, (uint64_t)i);
		if (x->done_msgs == x->K && x->epoch == x->iters)
			e->stop = true;
		break;
	case EV_PX_POLL_START:
		x->px_state = PX_POLLING;
		x->px_snap = (uint32_t)MIN(x->px_fifo.n, (size_t)x->p->proxy_batch);
		ge_schedule(e, e->now + x->px_read_ps, x->ent, EV_PX_POLL_END, 0);
		break;
	case EV_PX_POLL_END:
		if (x->px_snap == 0) {
			px_go_idle(x, e->now + x->p->proxy_poll_ps);
			break;
		}
		x->px_busy_ps += x->px_read_ps;
		x->px_state = PX_WORKING;
		for (uint32_t i = 0; i < x->px_snap; i++)
			step_done(x, gc_fifo_pop(&x->px_fifo));
		x->px_snap = 0;
		px_work_next(x);
		break;
	case EV_PX_WORK_DONE:
		if (ev->arg == DB_JOB) {
			for (guint i = 0; i < x->db_run->len; i++)
				step_done(x, g_array_index(x->db_run, uint64_t, i));
			g_array_set_size(x->db_run, 0);
		} else {
			step_done(x, ev->arg);
		}
		px_work_next(x);
		break;
	default:
		return ge_fail(e, GC_ERR_INTERNAL, "gm_tx: unknown event %u", ev->kind);
	}
	return GC_OK;
}

static const ge_entity_ops x_ops = {.name = "gm_tx", .handle = x_handle};

static void name_limit(exec *x, gm_tx_result *out)
{
	double T = (double)out->makespan_ps;
	double best = -1;
	char name[96] = "";
#define CAND(u, ...)                                                 \
	do {                                                         \
		double _u = (u);                                     \
		if (_u > best + 1e-12) {                             \
			best = _u;                                   \
			g_snprintf(name, sizeof(name), __VA_ARGS__); \
		}                                                    \
	} while (0)
	/* the shared send queues first: an issuer waiting on its queue counts
	 * as busy too, so saturated queues (90 % or more) are named instead */
	double qu = 0;
	for (int q = SRV__COUNT; q < x->nsrv; q++) {
		qu = MAX(qu, x->srv[q].busy_ps / T);
		CAND(x->srv[q].busy_ps / T, "the CTAs' shared send queues (gpu.publish on %d gpu.queues)",
		     x->nsrv - SRV__COUNT);
	}
	int64_t ib = 0;
	for (int i = 0; i < x->nis; i++)
		ib = MAX(ib, x->issuer_busy[i]);
	if (qu < 0.9) {
		if (x->nis > 1)
			CAND(ib / T, "issuing %ss (%d, %s)", x->r->issuer_kind, x->nis,
			     x->iters ? "explain.ctas" : "gpu.sms");
		else
			CAND(ib / T, "the issuing %s", x->r->issuer_kind);
	}
	if (x->iters) {
		/* the CTAs' own loop: from the launch, rounds of a put each and
		 * the barrier that ends them */
		CAND(x->loop_ps / T, "the CTAs' loop (a put each, then gpu.cta_barrier)");
		CAND(x->p->launch_ps / T, "the kernel launch (gpu.launch_latency)");
	}
	CAND(x->srv[SRV_CPU].busy_ps / T, "application CPU thread");
	CAND(x->srv[SRV_NIC].busy_ps / T, "NIC message rate (nic.msg_rate)");
	if (x->r->uses_proxy)
		CAND(x->px_busy_ps / T, "%s",
		     x->p->proxy_post == GM_TX_POST_SINGLE
			     ? "CPU proxy thread (proxy.request_cost + host.post_send + pcie.mmio_write + host.cq_poll)"
			     : "CPU proxy thread (proxy.request_cost + host.post_send per request)");
	for (uint32_t l = 0; l < x->net.nlinks; l++) {
		const gm_link *k = &x->net.links[l];
		CAND(k->bytes / (k->bw_Bps * T * 1e-12), "%s", x->net.info[l].name);
	}
#undef CAND
	if (best < 0.9 && !x->iters) {
		char busiest[96];
		g_strlcpy(busiest, name, sizeof(busiest));
		g_snprintf(name, sizeof(name), "latency (nic.sq_depth in flight); busiest: %.60s", busiest);
	}
	g_strlcpy(out->limit, name, sizeof(out->limit));
	out->limit_util = best;
}

int64_t gm_tx_quiet_ps(const gm_tx_params *p, const gm_tx_recipe *r)
{
	/* the ack back, the CQE across PCIe, the GPU's poll; through a proxy
	 * the CPU reaps the CQE and tells the GPU across PCIe */
	int64_t t = p->wire_lat_ps + p->switch_lat_ps + p->pcie_lat_ps + p->poll_ps;
	if (r->uses_proxy)
		t += p->cq_poll_ps + p->pcie_lat_ps;
	return t;
}

/* messages from nis issuers: a stream (iters 0) or the put loop's iters
 * rounds of one message per issuer */
static gc_status simulate(const gm_tx_params *p, const gm_tx_recipe *r, uint64_t messages, int nis,
			  uint64_t iters, ge_trace *trace, int pid, gm_tx_result *out, char **errmsg)
{
	exec *x = g_new0(exec, 1);
	memset(out, 0, sizeof(*out));
	x->p = p;
	x->r = r;
	x->K = messages;
	x->ns = r->nsteps;
	x->stream = messages > 1 || iters > 0;
	x->out = out;
	x->trace = trace;
	x->pid = pid;
	ge_engine_init(&x->eng, 1);
	gm_net_init(&x->net, &x->eng, on_flow_done, x);
	add_links(&x->net, p);
	x->ent = ge_entity_add(&x->eng, &x_ops, x);
	x->nsrv = SRV__COUNT;
	for (int k = 0; k < r->nsteps; k++)
		if (r->steps[k].res == GM_TX_R_GPU_SQ)
			x->nsrv = SRV__COUNT + (p->queues > 0 ? p->queues : 1);
	x->srv = g_new0(server, x->nsrv);
	for (int s = 0; s < r->nsteps; s++)
		for (int d = 0; d < r->steps[s].ndeps; d++) {
			int a = r->steps[s].deps[d];
			x->dependents[a][x->ndependents[a]++] = (uint8_t)s;
		}
	x->waiting = g_new(uint8_t, messages * (uint64_t)x->ns);
	for (uint64_t m = 0; m < messages; m++)
		for (int s = 0; s < x->ns; s++)
			x->waiting[m * (uint64_t)x->ns + (uint64_t)s] = (uint8_t)r->steps[s].ndeps;
	x->start = g_new0(int64_t, (trace ? messages : 1) * (uint64_t)x->ns);
	x->msg_start = g_new0(int64_t, messages);
	x->left = g_new(uint32_t, messages);
	for (uint64_t m = 0; m < messages; m++)
		x->left[m] = (uint32_t)x->ns;
	x->nis = nis;
	x->iters = iters;
	x->issuer_busy = g_new0(int64_t, nis);
	x->db_wait = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	x->db_run = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	for (int s = 0; s < r->nsteps; s++)
		if (r->steps[s].res == GM_TX_R_PROXY_POLL) {
			x->px_read_ps = r->steps[s].fixed_ps;
			x->px_period_ps = r->steps[s].period_ps;
		}
	if (trace) {
		x->lane_end = g_malloc0(sizeof(int64_t[GM_TX_MAX_STEPS][TRACE_LANES]));
		char *pname = iters ? g_strdup_printf("%s %s: shmem_put_bw loop, %d CTAs x %llu iterations",
						      r->id, r->name, nis, (unsigned long long)iters)
				    : g_strdup(r->id);
		ge_trace_name_process(trace, pid, pname);
		g_free(pname);
		int ntr = 0;
		const char *names[GM_TX_MAX_STEPS];
		for (int s = 0; s < r->nsteps; s++) {
			int k;
			for (k = 0; k < ntr && strcmp(names[k], r->steps[s].actor); k++)
				;
			if (k == ntr) {
				names[ntr++] = r->steps[s].actor;
				x->actors[k] = r->steps[s].actor;
				x->nlanes[k] = 1;
				ge_trace_name_thread(trace, pid, k + 1, r->steps[s].actor);
			}
			x->tids[s] = k + 1;
		}
		if (iters) {
			x->barrier_tid = 1 + TRACE_LANES * GM_TX_MAX_STEPS; /* past every lane's */
			ge_trace_name_thread(trace, pid, x->barrier_tid, "CTAs: barrier and quiet");
		}
	}
	x->next_msg = g_new(uint64_t, nis);
	x->inflight = g_new0(uint32_t, nis);
	x->ifree = g_new(bool, nis);
	for (int i = 0; i < nis; i++) {
		x->next_msg[i] = (uint64_t)i;
		x->ifree[i] = true;
		if (!iters)
			try_issue(x, (uint64_t)i);
	}
	if (iters)
		ge_schedule(&x->eng, p->launch_ps, x->ent, EV_LOOP_START, 0);
	gc_status st = ge_run(&x->eng, GE_TIME_MAX);
	if (st == GC_OK && x->done_msgs != messages)
		st = ge_fail(&x->eng, GC_ERR_INTERNAL, "gm_tx: %llu of %llu messages completed",
			     (unsigned long long)x->done_msgs, (unsigned long long)messages);
	if (st != GC_OK) {
		*errmsg = g_strdup(x->eng.errmsg ? x->eng.errmsg : "gm_tx: run failed");
	} else {
		out->messages = messages;
		out->makespan_ps = x->last_end;
		/* the loop ends with the final barrier, whose last arrival waits
		 * for every put's completion (nvshmem_quiet) */
		if (iters) {
			int64_t quiet_end = x->last_end + gm_tx_quiet_ps(p, r);
			int64_t fin = MAX(x->last_barrier, quiet_end);
			out->makespan_ps = fin + p->cta_barrier_ps;
			if (trace) {
				ge_trace_slice(trace, pid, x->barrier_tid,
					       "quiet: the last completion back", x->last_end,
					       quiet_end - x->last_end, NULL);
				ge_trace_slice(trace, pid, x->barrier_tid, "final barrier", fin,
					       p->cta_barrier_ps, NULL);
				if (x->undrawn) {
					char *what = g_strdup_printf(
						"%llu steps not drawn: more than %d at once on one actor",
						(unsigned long long)x->undrawn, TRACE_LANES);
					ge_trace_slice(trace, pid, x->barrier_tid, what, 0, 0, NULL);
					g_free(what);
				}
			}
		}
		out->rate_Mops = out->makespan_ps > 0 ? (double)messages / (double)out->makespan_ps * 1e6 : 0;
		out->events = x->eng.events_handled;
		name_limit(x, out);
	}
	gm_net_fini(&x->net);
	ge_engine_fini(&x->eng);
	for (int i = 0; i < x->nsrv; i++)
		gc_fifo_free(&x->srv[i].q);
	g_free(x->srv);
	gc_fifo_free(&x->px_fifo);
	gc_fifo_free(&x->px_work);
	g_array_free(x->db_wait, TRUE);
	g_array_free(x->db_run, TRUE);
	g_free(x->waiting);
	g_free(x->start);
	g_free(x->msg_start);
	g_free(x->left);
	g_free(x->issuer_busy);
	g_free(x->next_msg);
	g_free(x->inflight);
	g_free(x->ifree);
	g_free(x->lane_end);
	g_free(x);
	return st;
}

gc_status gm_tx_simulate(const gm_tx_params *p, const gm_tx_recipe *r, uint64_t messages,
			 ge_trace *trace, gm_tx_result *out, char **errmsg)
{
	if (messages < 1 || messages > GM_TX_MAX_MESSAGES) {
		*errmsg = g_strdup_printf("messages: expected 1 to %d, got %llu", GM_TX_MAX_MESSAGES,
					  (unsigned long long)messages);
		return GC_ERR_INPUT;
	}
	return simulate(p, r, messages, r->issuers, 0, trace, 1, out, errmsg);
}

gc_status gm_tx_simulate_put_loop(const gm_tx_params *p, const gm_tx_recipe *r, int ctas, int iters,
				  ge_trace *trace, int pid, gm_tx_result *out, char **errmsg)
{
	if (ctas < 1 || iters < 1 || iters > GM_TX_LOOP_MAX_ITERS ||
	    (uint64_t)ctas * (uint64_t)iters > GM_TX_MAX_MESSAGES) {
		*errmsg = g_strdup_printf("put loop: expected 1 or more CTAs, 1 to %d iterations and at "
					  "most %d puts in all, got %d CTAs x %d iterations",
					  GM_TX_LOOP_MAX_ITERS, GM_TX_MAX_MESSAGES, ctas, iters);
		return GC_ERR_INPUT;
	}
	if (strcmp(r->issuer_kind, "CTA") != 0) {
		*errmsg = g_strdup_printf("put loop: %s is issued by a %s, not by the CTAs of a kernel", r->id,
					  r->issuer_kind);
		return GC_ERR_INPUT;
	}
	/* its quiet waits for a completion from across the network */
	if (!g_str_has_prefix(r->id, "inter:")) {
		*errmsg = g_strdup_printf("put loop: %s is not an inter-node path", r->id);
		return GC_ERR_INPUT;
	}
	return simulate(p, r, (uint64_t)ctas * (uint64_t)iters, ctas, (uint64_t)iters, trace, pid, out,
			errmsg);
}
