/* SPDX-License-Identifier: MIT */
/*
 * Transports (transport.inter, gm_xport): one model under explain and run.
 *  - one message: 2 GPUs on 2 nodes exchanging 8 B take, in the flow model,
 *    the launch plus exactly what `gcsim explain --transport` walks (the
 *    same stages as a gm_tx recipe, evaluated in closed form), to the
 *    picosecond, for every transport;
 *  - each stage's parameter moves the time by what the stage costs;
 *  - a shared proxy thread is a queue: many messages of one GPU through
 *    NCCL's proxy take at least one proxy turn each, so an all-to-all on
 *    more nodes grows with the peer count, while IBGDA's GPU-posted
 *    messages do not pay it;
 *  - NVSHMEM IBRC's signal of its own goes through the target's proxy
 *    (GDRCopy), a put's signal behind the put; every request polls the
 *    receive queue first, and a proxy keeps at most its window of atomics
 *    unacknowledged;
 *  - ibgda and gin's GDAKI back end are refused on EFA (no GPUDirect
 *    Async) with the reason; gin there runs through its CPU proxy, which
 *    reads each descriptor on its own;
 *  - the packet fidelity takes the same control path: one message as the
 *    flow model's but for its packet's store-and-forward, an MoE dispatch
 *    through the proxy within a few percent of the flow run;
 *  - the breakdown (--breakdown) follows a transport's control path: one
 *    message's proxy, NIC-stage and other control time are the walk's
 *    stages of those kinds, and the categories sum to the time;
 *  - the NIC link keeps its physical latency under every protocol.
 */
#include "sim/models/run/gm_run.h"
#include "sim/models/transport/gm_xport.h"
#include "tests/models/run_testutil.h"

static const char pair[] = "schema_version: 1\n"
			   "topology: {preset: dgx-h100, nodes: 2, gpus_per_node: 1}\n"
			   "collective: {op: sendrecv, sizes: [8B], protocol: simple, channels: 1}\n";

/* The run's time minus its launch, and the walk of one message. */
static void one_message(const char *xport, const char *extra, int64_t *run_ps, int64_t *walk_ps)
{
	char *set = g_strdup_printf("transport.inter=%s", xport);
	/* the channel's own ceiling out of the way: the walk is the transport's */
	const char *const sets[] = {set, "topology.channel_bandwidth=1000GB/s", extra, NULL};
	gm_run *r = run_yaml(pair, sets);
	g_assert_cmpint(r->xport.kind, !=, GM_XPORT_NONE);
	gm_tx_recipe rcp;
	gm_tx_result res;
	gm_xport_recipe(&r->xport, GM_XM_SEND, 8, &rcp);
	gm_tx_estimate(&r->xport.p, &rcp, &res);
	*run_ps = r->pts[0].r.time_ps - r->topo.launch_ps;
	*walk_ps = res.latency_ps;
	g_test_message("%s %s: run - launch %lld ps, walk %lld ps", xport, extra ? extra : "",
		       (long long)*run_ps, (long long)*walk_ps);
	gm_run_free(r);
	g_free(set);
}

static void test_explain_equals_run(void)
{
	static const char *const xs[] = {"nccl", "ibrc", "ibgda", "gin"};
	for (size_t i = 0; i < G_N_ELEMENTS(xs); i++) {
		int64_t run, walk;
		one_message(xs[i], NULL, &run, &walk);
		g_assert_cmpint(run, ==, walk);
		/* and with other component values */
		one_message(xs[i], "pcie.latency=1us", &run, &walk);
		g_assert_cmpint(run, ==, walk);
		one_message(xs[i], "nic.msg_rate=1e6", &run, &walk);
		g_assert_cmpint(run, ==, walk);
	}
	/* IBGDA on send queues the CTAs share: the publish in the walk too */
	int64_t r2, w2;
	one_message("ibgda", "gpu.queues=2", &r2, &w2);
	g_assert_cmpint(r2, ==, w2);
	/* p5: EFA through the proxies */
	int64_t run, walk;
	one_message("nccl", "topology.preset=p5", &run, &walk);
	g_assert_cmpint(run, ==, walk);
	one_message("ibrc", "topology.preset=p5", &run, &walk);
	g_assert_cmpint(run, ==, walk);
	/* NCCL GIN through its CPU proxy: on EFA (auto's back end there) and
	 * on InfiniBand when asked for */
	one_message("gin", "topology.preset=p5", &run, &walk);
	g_assert_cmpint(run, ==, walk);
	one_message("gin", "transport.gin=proxy", &run, &walk);
	g_assert_cmpint(run, ==, walk);
}

/* A stage's cost moves the one-message time by itself: NCCL's proxy pays
 * request_cost once on the sender, the completion poll once on the
 * receiver; IBGDA its work-request build instead. */
static void test_stage_costs(void)
{
	int64_t a, b, w;
	one_message("nccl", NULL, &a, &w);
	one_message("nccl", "proxy.request_cost=1050ns", &b, &w);
	g_assert_cmpint(b - a, ==, 1000000);
	one_message("nccl", "host.cq_poll=1100ns", &b, &w);
	g_assert_cmpint(b - a, ==, 1000000 * 3 / 2); /* the read and half a longer period */
	one_message("ibgda", NULL, &a, &w);
	one_message("ibgda", "gpu.wqe_build=1100ns", &b, &w);
	g_assert_cmpint(b - a, ==, 1000000);
}

static const char a2a[] = "schema_version: 1\n"
			  "topology: {preset: dgx-h100, nodes: %d}\n"
			  "collective: {op: alltoall, algo: %s, sizes: [%s]}\n";

static gm_run *alltoall(int nodes, const char *algo, const char *size, const char *xport)
{
	char *y = g_strdup_printf(a2a, nodes, algo, size);
	char *set = g_strdup_printf("transport.inter=%s", xport);
	const char *const sets[] = {set, NULL};
	gm_run *r = run_yaml(y, sets);
	g_free(y);
	g_free(set);
	return r;
}

/* The proxy thread of a GPU is one server: an all-to-all's many small
 * messages take at least their proxy turns one after another, and on
 * more nodes (more peers, as many bytes) take longer; without a transport
 * the time barely moves. */
static void test_proxy_is_a_queue(void)
{
	gm_run *n2 = alltoall(2, "pairwise", "1MiB", "nccl"), *n8 = alltoall(8, "pairwise", "1MiB", "nccl");
	gm_run *f2 = alltoall(2, "pairwise", "1MiB", "none"), *f8 = alltoall(8, "pairwise", "1MiB", "none");
	double g = n8->pts[0].time_us / n2->pts[0].time_us, h = f8->pts[0].time_us / f2->pts[0].time_us;
	g_test_message("alltoall 1 MiB: nccl %.1f -> %.1f us (x%.2f), none %.1f -> %.1f us (x%.2f)",
		       n2->pts[0].time_us, n8->pts[0].time_us, g, f2->pts[0].time_us, f8->pts[0].time_us, h);
	g_assert_cmpfloat(g, >, h);
	/* the busiest proxy worked at least one turn (request + post +
	 * doorbell) per message it sent */
	const gm_coll_result *res = &n8->pts[0].r;
	g_assert_cmpint(res->xp_proxy_rank, >=, 0);
	const gm_tx_params *p = &n8->xport.p;
	int64_t turn = p->proxy_req_ps + p->post_send_ps + p->mmio_write_ps;
	uint64_t per_gpu = res->xp_msgs / 64;
	g_assert_cmpint(per_gpu, >, 0);
	g_assert_cmpint(res->xp_proxy_busy_ps, >=, (int64_t)per_gpu * turn);
	gm_run_free(n2);
	gm_run_free(n8);
	gm_run_free(f2);
	gm_run_free(f8);
}

/* One-sided puts: with ibrc every put is a turn of the sender's proxy
 * thread, with ibgda the CTAs post them; many small puts make the proxy
 * the bottleneck. */
static void test_ibrc_vs_ibgda_puts(void)
{
	gm_run *rc = alltoall(4, "put", "256KiB", "ibrc"), *ga = alltoall(4, "put", "256KiB", "ibgda");
	g_test_message("alltoall put 256 KiB on 4 nodes: ibrc %.1f us, ibgda %.1f us", rc->pts[0].time_us,
		       ga->pts[0].time_us);
	g_assert_cmpfloat(rc->pts[0].time_us, >, ga->pts[0].time_us);
	g_assert_cmpint(ga->pts[0].r.xp_proxy_busy_ps, ==, 0);
	g_assert_cmpint(rc->pts[0].r.xp_proxy_busy_ps, >, 0);
	gm_run_free(rc);
	gm_run_free(ga);
}

/* gpu.queues: the CTAs' posts to one peer publish one at a time per queue
 * pair to that peer they share (NVSHMEM ibgda_get_rc); many puts from
 * many CTAs wait for their queue, one queue per CTA (0) waits for none. */
static void test_shared_send_queues(void)
{
	static const char moe[] = "schema_version: 1\n"
				  "topology: {preset: dgx-h100, nodes: 2}\n"
				  "collective: {op: dispatch, algo: put, sizes: [7408B]}\n"
				  "moe: {tokens: 128, topk: 8, experts: 256}\n";
	const char *const q0[] = {"transport.inter=ibgda", NULL};
	const char *const q1[] = {"transport.inter=ibgda", "gpu.queues=1", "gpu.publish=2us", NULL};
	gm_run *a = run_yaml(moe, q0), *b = run_yaml(moe, q1);
	g_test_message("dispatch EP16 over IBGDA: one queue per CTA %.1f us, one shared queue "
		       "publishing in 2 us %.1f us",
		       a->pts[0].time_us, b->pts[0].time_us);
	/* every remote put and signal of a GPU to one peer publishes on the
	 * one queue pair to that peer: the busiest pair takes at least the
	 * average's publishes (16 GPUs, 8 peers on the other node each) */
	const double per_pair = (double)b->pts[0].r.xp_msgs / 16 / 8;
	g_assert_cmpfloat(b->pts[0].time_us, >, a->pts[0].time_us);
	g_assert_cmpfloat(b->pts[0].time_us, >=, per_pair * 2.0);
	gm_run_free(a);
	gm_run_free(b);
}

/* NVSHMEM IBRC with GDRCopy: a signal of its own (signal_op) goes through
 * the target's proxy, a put's signal rides behind the put; the completions
 * a proxy reaps take its time but no message waits for them. */
static void test_ibrc_signal_on_its_own(void)
{
	static const char *const base[] = {"transport.inter=ibrc", NULL, NULL};
	const char *const wr[] = {"transport.inter=ibrc", "gdrcopy.write_8B=1089ns", NULL};
	const char *const cq[] = {"transport.inter=ibrc", "host.cq_poll=1100ns", NULL};
	const char *const nat[] = {"transport.inter=ibrc", "proxy.amo=native", NULL};
	gm_run *a = run_yaml(pair, base), *w = run_yaml(pair, wr), *c = run_yaml(pair, cq),
	       *n = run_yaml(pair, nat);
	const gm_xport *xa = &a->xport, *xw = &w->xport, *xc = &c->xport, *xn = &n->xport;
	/* the target's GDRCopy write is on the signal's path, not the put's */
	g_assert_cmpint(gm_xport_latency_ps(xw, GM_XM_AMO) - gm_xport_latency_ps(xa, GM_XM_AMO), ==, 1000000);
	g_assert_cmpint(gm_xport_latency_ps(xw, GM_XM_SIGNAL), ==, gm_xport_latency_ps(xa, GM_XM_SIGNAL));
	g_assert_cmpint(gm_xport_latency_ps(xw, GM_XM_PUT), ==, gm_xport_latency_ps(xa, GM_XM_PUT));
	/* the sender's reap of its completion is off the put's path, but
	 * its poll of the receive queue before every request (GDRCopy
	 * atomics: check_poll_avail -> progress_recv) is on it; the target's
	 * receive poll (the read and half a period) is on the signal's */
	g_assert_cmpint(gm_xport_latency_ps(xc, GM_XM_PUT) - gm_xport_latency_ps(xa, GM_XM_PUT), ==, 1000000);
	g_assert_cmpint(gm_xport_latency_ps(xc, GM_XM_AMO) - gm_xport_latency_ps(xa, GM_XM_AMO), ==,
			1000000 + 1000000 * 3 / 2 + 1000000);
	const char *const ncq[] = {"transport.inter=ibrc", "proxy.amo=native", "host.cq_poll=1100ns", NULL};
	gm_run *nc = run_yaml(pair, ncq);
	g_assert_cmpint(gm_xport_latency_ps(&nc->xport, GM_XM_PUT), ==, gm_xport_latency_ps(xn, GM_XM_PUT));
	gm_run_free(nc);
	/* native: the signal of its own is a put's signal */
	g_assert_cmpint(gm_xport_latency_ps(xn, GM_XM_AMO), ==, gm_xport_latency_ps(xn, GM_XM_SIGNAL));
	g_assert_cmpint(gm_xport_latency_ps(xa, GM_XM_AMO), >, gm_xport_latency_ps(xa, GM_XM_SIGNAL));
	gm_run_free(a);
	gm_run_free(w);
	gm_run_free(c);
	gm_run_free(n);
	/* pplx's counts and combine flags are signals of their own: through
	 * the target's proxy the busiest proxy works longer, and the run
	 * takes no less */
	static const char moe[] = "schema_version: 1\n"
				  "topology: {preset: dgx-h100, nodes: 2, gpus_per_node: 4}\n"
				  "collective: {op: dispatch, algo: pplx, sizes: [7408B]}\n"
				  "moe: {tokens: 16, topk: 4, experts: 32}\n";
	gm_run *g = run_yaml(moe, base), *v = run_yaml(moe, nat);
	g_test_message("pplx dispatch 8 GPUs over IBRC: signals through the target's proxy %.2f us "
		       "(proxy busy %.2f us), native %.2f us (%.2f us)",
		       g->pts[0].time_us, g->pts[0].r.xp_proxy_busy_ps * 1e-6, v->pts[0].time_us,
		       v->pts[0].r.xp_proxy_busy_ps * 1e-6);
	g_assert_cmpint(g->pts[0].r.xp_proxy_busy_ps, >, v->pts[0].r.xp_proxy_busy_ps);
	g_assert_cmpfloat(g->pts[0].time_us, >=, v->pts[0].time_us);
	gm_run_free(g);
	gm_run_free(v);
	/* on EFA every signal goes through the target's proxy: the key is
	 * refused there */
	const char *const efa[] = {"transport.inter=ibrc", "topology.preset=p5", "proxy.amo=native", NULL};
	expect_refused(pair, efa, "proxy.amo");
}

static void test_refusals(void)
{
	const char *const efa[] = {"transport.inter=ibgda", "topology.preset=p5", NULL};
	expect_refused(pair, efa, "EFA does not provide");
	const char *const gin[] = {"transport.inter=gin", "transport.gin=gdaki", "caps.gpudirect_async=false",
				   NULL};
	expect_refused(pair, gin, "caps.gpudirect_async=false");
	const char *const gin_efa[] = {"transport.inter=gin", "transport.gin=gdaki", "topology.preset=p5", NULL};
	expect_refused(pair, gin_efa, "transport.gin");
	const char *const flat[] = {"transport.inter=nccl", NULL};
	expect_refused("schema_version: 1\ntopology: {kind: flat, gpus: 2}\n"
		       "collective: {op: sendrecv, sizes: [8B]}\n",
		       flat, "NICs");
	const char *const gdr[] = {"transport.inter=nccl", "caps.gdr=false", NULL};
	expect_refused(pair, gdr, "GPUDirect RDMA");
}

/* NCCL GIN's back ends: auto takes GDAKI where the NIC has GPUDirect
 * Async and the CPU proxy elsewhere (EFA); the proxy's pass reads every
 * descriptor from its own line in host memory, while NVSHMEM's proxy reads
 * a batch of requests at once, so a DeepEP dispatch whose proxies bind
 * slows by about a read per message with GIN and by a batch's share of one
 * with IBRC when host memory is slower to read. */
static void test_gin_proxy(void)
{
	const char *const ib[] = {"transport.inter=gin", NULL};
	const char *const ibp[] = {"transport.inter=gin", "transport.gin=proxy", NULL};
	const char *const efa[] = {"transport.inter=gin", "topology.preset=p5", NULL};
	gm_run *a = run_yaml(pair, ib), *b = run_yaml(pair, ibp), *c = run_yaml(pair, efa);
	g_assert_false(a->xport.gin_proxy);
	g_assert_true(b->xport.gin_proxy);
	g_assert_true(c->xport.gin_proxy);
	g_assert_cmpint(b->xport.queues, ==, 0);
	g_assert_cmpint(b->xport.proxy_batch, ==, 1);
	/* one 8-byte message: the proxy's turn costs more than the GPU's post */
	g_assert_cmpint(b->pts[0].r.time_ps, >, a->pts[0].r.time_ps);
	gm_run_free(a);
	gm_run_free(b);
	gm_run_free(c);
	static const char moe[] = "schema_version: 1\n"
				  "topology: {preset: p5, nodes: 2, gpus_per_node: 2}\n"
				  "collective: {op: dispatch, algo: put, sizes: [7408B]}\n"
				  "moe: {tokens: 64, topk: 8, experts: 32}\n";
	double dt[2];
	uint64_t msgs = 0;
	static const char *const xs[] = {"transport.inter=gin", "transport.inter=ibrc"};
	for (int i = 0; i < 2; i++) {
		const char *const s0[] = {xs[i], NULL};
		const char *const s1[] = {xs[i], "host.mem_latency=1100ns", NULL};
		gm_run *x = run_yaml(moe, s0), *y = run_yaml(moe, s1);
		dt[i] = y->pts[0].time_us - x->pts[0].time_us;
		msgs = x->pts[0].r.xp_msgs;
		g_test_message("dispatch on 2 p5 nodes, %s: %.2f us, host reads 1 us slower: %.2f us "
			       "(%llu messages)",
			       xs[i], x->pts[0].time_us, y->pts[0].time_us, (unsigned long long)msgs);
		gm_run_free(x);
		gm_run_free(y);
	}
	/* 4 GPUs: a GPU posts about a quarter of the network messages
	 * (the busiest a few more), each a read more */
	const double per_gpu = (double)msgs / 4;
	g_assert_cmpfloat(dt[0], >, 0.95 * per_gpu);
	g_assert_cmpfloat(dt[0], <, 1.25 * per_gpu);
	g_assert_cmpfloat(dt[1], <, dt[0] / 8);
}

/* NVSHMEM IBRC's window of unacknowledged emulated atomics: srq_depth /
 * (npes x (rc_per_pe + 1) + 2), 481 at 16 PEs and 63 at 128 with NVSHMEM's
 * defaults. pplx's dispatch on 16 GPUs sends 128 count atomics per GPU
 * over the network, under the default window: a window of one atomic
 * makes each proxy wait for every acknowledgement, and the dispatch
 * takes longer; a larger one than the default changes nothing. */
static void test_ibrc_atomic_window(void)
{
	const char *const base[] = {"transport.inter=ibrc", NULL};
	gm_run *a = run_yaml(pair, base);
	g_assert_true(a->xport.amo_acked);
	g_assert_cmpuint(gm_xport_amo_window(&a->xport, 16), ==, 481);
	g_assert_cmpuint(gm_xport_amo_window(&a->xport, 128), ==, 63);
	gm_run_free(a);
	const char *const nat[] = {"transport.inter=ibrc", "proxy.amo=native", NULL};
	gm_run *n = run_yaml(pair, nat);
	g_assert_false(n->xport.amo_acked);
	gm_run_free(n);
	const char *yaml = "schema_version: 1\n"
			   "topology: {preset: dgx-h100, nodes: 2}\n"
			   "collective: {op: dispatch, algo: pplx, sizes: [7408B]}\n"
			   "moe: {tokens: 128, topk: 8, experts: 256}\n";
	static const char *const srq[] = {"16384", "1048576", "68"};
	double t[3];
	for (int i = 0; i < 3; i++) {
		char *set = g_strdup_printf("proxy.srq_depth=%s", srq[i]);
		const char *const sets[] = {"transport.inter=ibrc", set, NULL};
		gm_run *r = run_yaml(yaml, sets);
		t[i] = r->pts[0].time_us;
		gm_run_free(r);
		g_free(set);
	}
	g_test_message("pplx dispatch EP16 over IBRC: srq_depth 16384 %.2f us, 1048576 %.2f us, 68 %.2f us",
		       t[0], t[1], t[2]);
	g_assert_cmpfloat(t[0], ==, t[1]);
	g_assert_cmpfloat(t[2], >, 1.2 * t[0]);
}

/* The packet fidelity runs the transport's stages around its packets: an
 * 8-byte message takes the flow model's time plus its one packet's
 * serialization at each hop (under a nanosecond), and a pplx dispatch of 16
 * tokens per GPU stays within 3 % of the flow run on either transport,
 * IBRC's proxy far slower than IBGDA in both. */
static void test_packet_fidelity(void)
{
	static const char *const xs[] = {"nccl", "ibrc", "ibgda", "gin"};
	for (size_t i = 0; i < G_N_ELEMENTS(xs); i++) {
		char *set = g_strdup_printf("transport.inter=%s", xs[i]);
		const char *const fl[] = {set, NULL};
		const char *const pk[] = {set, "sim.fidelity=packet", NULL};
		gm_run *f = run_yaml(pair, fl), *k = run_yaml(pair, pk);
		const int64_t d = k->pts[0].r.time_ps - f->pts[0].r.time_ps;
		g_test_message("%s 8 B: flow %lld ps, packet %lld ps", xs[i], (long long)f->pts[0].r.time_ps,
			       (long long)k->pts[0].r.time_ps);
		g_assert_cmpint(d, >=, 0);
		g_assert_cmpint(d, <, 1000);
		gm_run_free(f);
		gm_run_free(k);
		g_free(set);
	}
	const char *yaml = "schema_version: 1\n"
			   "topology: {preset: dgx-h100, nodes: 2}\n"
			   "collective: {op: dispatch, algo: pplx, sizes: [7408B]}\n"
			   "moe: {tokens: 16, topk: 8, experts: 256}\n";
	double t[2][2];
	static const char *const ms[] = {"ibrc", "ibgda"};
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			char *set = g_strdup_printf("transport.inter=%s", ms[i]);
			const char *const sets[] = {set, j ? "sim.fidelity=packet" : "sim.fidelity=flow", NULL};
			gm_run *r = run_yaml(yaml, sets);
			t[i][j] = r->pts[0].time_us;
			gm_run_free(r);
			g_free(set);
		}
	g_test_message("pplx dispatch 16 tokens: ibrc flow %.2f packet %.2f us, ibgda flow %.2f packet %.2f us",
		       t[0][0], t[0][1], t[1][0], t[1][1]);
	for (int i = 0; i < 2; i++)
		g_assert_cmpfloat(fabs(t[i][1] / t[i][0] - 1), <, 0.03);
	g_assert_cmpfloat(t[0][1], >, 3 * t[1][1]);
}

/* The breakdown of one 8-byte message each way: launch, the route's
 * latency, and the path's stages by their kind (proxy turns and polls,
 * the NIC's message stage, the rest of the control path), exactly. */
static void test_breakdown_follows_the_path(void)
{
	static const char *const xs[] = {"nccl", "ibrc", "ibgda", "gin"};
	for (size_t i = 0; i < G_N_ELEMENTS(xs); i++) {
		char *set = g_strdup_printf("transport.inter=%s", xs[i]);
		const char *const sets[] = {set, "topology.channel_bandwidth=1000GB/s", NULL};
		gm_run_opts o = {.breakdown = true, .sets = sets};
		gm_run *r = run_yaml_with(pair, &o);
		const gm_coll_result *res = &r->pts[0].r;
		g_assert_true(res->has_cp);
		int64_t sum = 0;
		for (int c = 0; c < GM_CP__COUNT; c++)
			sum += res->cp_ps[c];
		g_assert_cmpint(sum, ==, res->time_ps);
		const gm_xport_path *h = &r->xport.path[GM_XM_SEND];
		int64_t proxy = 0, nic = 0, control = 0;
		for (int k = 0; k < h->nstages; k++) {
			const gm_xport_stage *st = &h->st[k];
			switch (st->kind) {
			case GM_XS_PROXY_POLL: proxy += st->period_ps / 2 + st->ps; break;
			case GM_XS_PROXY_WORK: proxy += st->ps; break;
			case GM_XS_PROXY_BG: break; /* off the message's path */
			case GM_XS_NIC: nic += st->ps; break;
			case GM_XS_POLL: control += st->period_ps / 2 + st->ps; break;
			default: control += st->ps; break;
			}
		}
		g_test_message("%s: proxy %lld nic-msg %lld control %lld ps of %lld", xs[i],
			       (long long)res->cp_ps[GM_CP_PROXY], (long long)res->cp_ps[GM_CP_NICMSG],
			       (long long)res->cp_ps[GM_CP_CONTROL], (long long)res->time_ps);
		g_assert_cmpint(res->cp_ps[GM_CP_PROXY], ==, proxy);
		g_assert_cmpint(res->cp_ps[GM_CP_NICMSG], ==, nic);
		g_assert_cmpint(res->cp_ps[GM_CP_CONTROL], ==, control);
		g_assert_cmpint(res->cp_ps[GM_CP_LAUNCH], ==, r->topo.launch_ps);
		g_assert_cmpint(res->cp_ps[GM_CP_OTHER], ==, 0);
		/* a proxy transport pays the thread, a device-initiated one not */
		if (!strcmp(xs[i], "nccl") || !strcmp(xs[i], "ibrc"))
			g_assert_cmpint(proxy, >, 0);
		else
			g_assert_cmpint(proxy, ==, 0);
		gm_run_free(r);
		g_free(set);
	}
}

/* Many one-sided messages through one proxy thread: the breakdown names
 * the proxy (its queue) as where the time goes, and still sums to the
 * time; IBGDA's run of the same schedule spends none there. */
static void test_breakdown_of_a_proxy_queue(void)
{
	const char *yaml = "schema_version: 1\n"
			   "topology: {preset: dgx-h100, nodes: 2}\n"
			   "collective: {op: dispatch, algo: pplx, sizes: [7408B]}\n"
			   "moe: {tokens: 16, topk: 8, experts: 256}\n";
	static const char *const xs[] = {"ibrc", "ibgda"};
	int64_t proxy[2];
	for (int i = 0; i < 2; i++) {
		char *set = g_strdup_printf("transport.inter=%s", xs[i]);
		const char *const sets[] = {set, NULL};
		gm_run_opts o = {.breakdown = true, .sets = sets};
		gm_run *r = run_yaml_with(yaml, &o);
		const gm_coll_result *res = &r->pts[0].r;
		int64_t sum = 0, most = 0;
		for (int c = 0; c < GM_CP__COUNT; c++) {
			sum += res->cp_ps[c];
			if (res->cp_ps[c] > res->cp_ps[most])
				most = c;
		}
		g_assert_cmpint(sum, ==, res->time_ps);
		g_assert_cmpint(res->cp_ps[GM_CP_OTHER], ==, 0);
		proxy[i] = res->cp_ps[GM_CP_PROXY];
		g_test_message("pplx dispatch %s: %.1f us, mostly %s", xs[i], r->pts[0].time_us,
			       gm_cp_name((gm_cp_cat)most));
		if (i == 0)
			g_assert_cmpint(most, ==, GM_CP_PROXY);
		gm_run_free(r);
		g_free(set);
	}
	g_assert_cmpint(proxy[0], >, 0);
	g_assert_cmpint(proxy[1], ==, 0);
}

/* LL keeps the physical NIC latency (no protocol scaling of the hop): an
 * LL message is quicker than a Simple one by the receiver's proxy steps it
 * skips, never slower. */
static void test_ll_skips_the_receiving_proxy(void)
{
	const char *const s[] = {"transport.inter=nccl", NULL};
	const char *const l[] = {"transport.inter=nccl", "collective.protocol=ll", NULL};
	gm_run *a = run_yaml(pair, s), *b = run_yaml(pair, l);
	int64_t sa = a->pts[0].r.time_ps - a->topo.launch_ps;
	/* LL's own launch is scaled by NCCL's base latency: compare the
	 * transport parts */
	gm_proto_info const *ll = gm_proto_get(GM_PROTO_LL), *si = gm_proto_get(GM_PROTO_SIMPLE);
	int64_t launch_ll = (int64_t)llround((double)b->topo.launch_ps * ll->base_lat_us / si->base_lat_us);
	int64_t sb = b->pts[0].r.time_ps - launch_ll;
	g_test_message("nccl 8 B: Simple %lld ps, LL %lld ps past the launch", (long long)sa, (long long)sb);
	g_assert_cmpint(sb, <, sa);
	g_assert_cmpint(sb, >, 0);
	gm_run_free(a);
	gm_run_free(b);
}

/* Same scenario, same output. */
static void test_deterministic(void)
{
	gm_run *a = alltoall(4, "put", "64KiB", "ibrc"), *b = alltoall(4, "put", "64KiB", "ibrc");
	g_assert_cmpint(a->pts[0].r.time_ps, ==, b->pts[0].r.time_ps);
	g_assert_cmpint(a->pts[0].r.events, ==, b->pts[0].r.events);
	gm_run_free(a);
	gm_run_free(b);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/xport/explain-equals-run", test_explain_equals_run);
	g_test_add_func("/xport/stage-costs", test_stage_costs);
	g_test_add_func("/xport/proxy-is-a-queue", test_proxy_is_a_queue);
	g_test_add_func("/xport/ibrc-vs-ibgda-puts", test_ibrc_vs_ibgda_puts);
	g_test_add_func("/xport/shared-send-queues", test_shared_send_queues);
	g_test_add_func("/xport/ibrc-signal-on-its-own", test_ibrc_signal_on_its_own);
	g_test_add_func("/xport/refusals", test_refusals);
	g_test_add_func("/xport/ibrc-atomic-window", test_ibrc_atomic_window);
	g_test_add_func("/xport/gin-proxy", test_gin_proxy);
	g_test_add_func("/xport/packet-fidelity", test_packet_fidelity);
	g_test_add_func("/xport/breakdown-follows-the-path", test_breakdown_follows_the_path);
	g_test_add_func("/xport/breakdown-of-a-proxy-queue", test_breakdown_of_a_proxy_queue);
	g_test_add_func("/xport/ll-skips-the-receiving-proxy", test_ll_skips_the_receiving_proxy);
	g_test_add_func("/xport/deterministic", test_deterministic);
	return g_test_run();
}
