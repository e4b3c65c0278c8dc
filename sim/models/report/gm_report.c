/* SPDX-License-Identifier: MIT */
/*
 * gm_report: what a run prints and stores, apart from what it simulates:
 * the nccl-tests table and its header, the sweep and compare tables, CSV,
 * the link summary, the breakdown, the transport's busiest resources, and
 * the results file (CSV or the SQLite store). Everything here reads a
 * finished gm_run (sim/models/run); nothing here changes what is simulated.
 */
#include "gm_report.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../core/gc_outfile.h"
#include "../../core/gc_results.h"
#include "../../core/gc_units.h"
#include "../closed/gm_proto.h"

/* A step-geometry value for the header: with protocol auto and no value in
 * the scenario it depends on the protocol chosen per size. */
static const char *geom(const gm_run *r, const char *key, uint64_t v, char *buf, size_t n)
{
	/* auto resolves the geometry per size, except for nvls, nvlstree and
	 * collnet (Simple only) */
	if (r->proto < 0 && !gm_run_switch_reduced(r->base.algo) && !gc_config_is_set(r->cfg, key)) {
		g_strlcpy(buf, "per protocol", n);
		return buf;
	}
	/* sendrecv through NCCL: its p2p step (gm_run.c p2p_geometry) */
	if (gm_run_nccl_p2p(r) && !gc_config_is_set(r->cfg, key)) {
		g_strlcpy(buf, strcmp(key, "collective.buffer") ? "NCCL's p2p step" : "8 p2p steps", n);
		return buf;
	}
	return gc_fmt_bytes(v, buf, n);
}

/* nccl-tests time column: width 7, fewer decimals as the value grows. */
static void fmt_time(GString *g, double us)
{
	if (us >= 10000.0)
		g_string_append_printf(g, "%10.0f", us);
	else if (us >= 100.0)
		g_string_append_printf(g, "%10.1f", us);
	else
		g_string_append_printf(g, "%10.2f", us);
}

/* The run's algorithm as the scenario names it ("auto" when chosen per
 * size). */
static const char *algo_label(const gm_run *r)
{
	return r->algo_auto ? "auto" : gs_algo_name(r->base.algo);
}

void gm_run_format_head(const char *path, const gc_config *cfg, const gt_topo *topo,
			void *gstring_out)
{
	GString *g = gstring_out;
	char desc[256];
	gt_topo_describe(topo, desc, sizeof(desc));
	const char *name = gc_config_str(cfg, "name");
	g_string_append_printf(g, "# gcsim %s  scenario: %s%s%s%s\n", GCSIM_VERSION,
			       gc_config_source_name(path), name[0] ? " (" : "", name, name[0] ? ")" : "");
	g_string_append_printf(g, "# topology  : %s\n", desc);
}

/* forward: what the draw makes a GPU's tokens do, on average over the
 * GPUs: tokens, copies (token-rank pairs), token-node pairs and transfers
 * over the network. false when the routing cannot be drawn. */
typedef struct moe_counts {
	uint32_t T;
	double copies, pairs, remote;
} moe_counts;

static bool routing_counts(const gm_run *r, moe_counts *k)
{
	gs_params q = gs_group_params(&r->base);
	int N, per;
	gm_run_moe_nodes(&r->base, &r->topo, &N, &per);
	q.ranks_per_node = per;
	q.bytes = gs_dtype_size(q.dtype);
	gs_moe_map m;
	char *err = NULL;
	if (gs_moe_map_build(&q, &m, &err) != GC_OK) {
		g_free(err);
		return false;
	}
	uint64_t copies = 0, nodes = 0, remote = 0;
	for (uint64_t i = 0; i < (uint64_t)m.n * m.T; i++) {
		int own = (int)(i / m.T) / m.P;
		copies += m.tset_off[i + 1] - m.tset_off[i];
		for (uint64_t j = m.tset_off[i]; j < m.tset_off[i + 1]; j++)
			if (j == m.tset_off[i] || m.tset[j - 1] / m.P != m.tset[j] / m.P) {
				nodes++;
				remote += m.tset[j] / m.P != own;
			}
	}
	k->T = m.T;
	k->copies = (double)copies / m.n;
	k->pairs = (double)nodes / m.n;
	k->remote = (double)remote / m.n;
	gs_moe_map_free(&m);
	return true;
}

/* forward: the routing line of the header (DeepEP counts its bandwidth in
 * token-node pairs, its own node included, and its NVLink side in tokens
 * received) */
static void format_routing(const moe_counts *k, GString *g)
{
	g_string_append_printf(g, "# routing   : per GPU %u tokens to %.2f ranks (%.0f copies) on %.2f "
			       "nodes (%.0f token-node pairs) each, %.0f over the network\n",
			       k->T, k->copies / k->T, k->copies, k->pairs / k->T, k->pairs, k->remote);
}

/* forward: every size's bandwidth as DeepEP's tests count it */
static void format_deepep_bw(const gm_run *r, const moe_counts *k, GString *g)
{
	g_string_append(g, "# as DeepEP counts (per GPU over the time): token-node pairs (RDMA), "
			   "tokens received (NVL):");
	for (size_t i = 0; i < r->npts; i++) {
		const gm_point *pt = &r->pts[i];
		double us = pt->time_us > 0 ? pt->time_us : 1;
		g_string_append_printf(g, "%s %llu B %.2f / %.2f GB/s", i ? "," : "",
				       (unsigned long long)pt->bytes, k->pairs * (double)pt->bytes / us * 1e-3,
				       k->copies * (double)pt->bytes / us * 1e-3);
	}
	g_string_append(g, "\n");
}

/* With collective.tuner nccl, what NCCL's model expects its pick to take,
 * next to gcsim's simulation of it in the table. */
static void format_nccl_estimate(const gm_run *r, const gm_point *pt, GString *g)
{
	if (r->tuner_nccl && pt->nccl_est_us > 0)
		g_string_append_printf(g, " (NCCL's estimate %.1f us)", pt->nccl_est_us);
}

/* nccl-tests' root column: rank 0 for broadcast and reduce, -1 otherwise */
static int root_of(gs_coll c)
{
	return c == GS_COLL_BROADCAST || c == GS_COLL_REDUCE ? 0 : -1;
}

/* MoE forward's routing counts in *kc, or NULL for any other run. */
static const moe_counts *forward_counts(const gm_run *r, moe_counts *kc)
{
	const gs_params *p = &r->base;
	return p->algo == GS_ALGO_FORWARD && gs_coll_is_moe(p->coll) && routing_counts(r, kc) ? kc
												: NULL;
}

/* gm_run_format_setup with forward's routing counts already at hand. */
static void format_setup(const gm_run *r, GString *g, const moe_counts *kc)
{
	const gs_params *p = &r->base;
	char b1[32], b2[32], b3[32];
	gm_run_format_head(r->path, r->cfg, &r->topo, g);
	char ranks[160];
	if (gs_group_n(p) < p->nranks && gs_group_is_flat(p))
		snprintf(ranks, sizeof(ranks), "%d groups of %d rank%s at stride %d at once",
			 gs_group_count(p), gs_group_n(p), gs_group_n(p) == 1 ? "" : "s",
			 gs_group_stride(p));
	else if (gs_group_n(p) < p->nranks)
		snprintf(ranks, sizeof(ranks), "%d groups of %d ranks (blocks of %d at stride %d, %lld "
			 "apart) at once",
			 gs_group_count(p), gs_group_n(p), gs_group_block(p), gs_group_stride(p),
			 (long long)gs_group_block_stride(p));
	else
		snprintf(ranks, sizeof(ranks), "%d ranks", p->nranks);
	const char *picks = " (NCCL's model picks)";
	if (r->host.kind != GM_BACKEND_NCCL) {
		char how[512];
		gm_host_describe(&r->host, p, how, sizeof(how));
		g_string_append_printf(g, "# collective: %s, algo %s, %s, backend %s\n# backend   : %s\n",
				       gs_coll_name(p->coll), gs_algo_name(p->algo), ranks,
				       r->host.name, how);
	} else
	g_string_append_printf(g, "# collective: %s, algo %s%s, %s, %d channel%s, protocol %s%s, "
			       "chunk %s, slice %s, buffer %s\n",
			       gs_coll_name(p->coll), algo_label(r),
			       r->tuner_nccl && r->algo_auto ? picks : "", ranks, p->nchannels,
			       p->nchannels == 1 ? "" : "s",
			       r->proto < 0 ? "auto" : gm_proto_get((gm_proto)r->proto)->name,
			       r->tuner_nccl && !r->algo_auto && r->proto < 0 ? picks : "",
			       geom(r, "collective.chunk", p->chunk_bytes, b1, sizeof(b1)),
			       geom(r, "collective.slice", p->slice_bytes, b2, sizeof(b2)),
			       geom(r, "collective.buffer", gc_config_bytes(r->cfg, "collective.buffer"), b3,
				    sizeof(b3)));
	if (kc)
		format_routing(kc, g);
	char model[96];
	if (r->pkt_bytes)
		snprintf(model, sizeof(model), "packet (store and forward, %s packets, %u per hop)",
			 gc_fmt_bytes(r->pkt_bytes, b1, sizeof(b1)), r->pkt_buf);
	else
		g_strlcpy(model, r->analytical ? "analytical (closed form)" : "flow (max-min fair sharing)",
			  sizeof(model));
	g_string_append_printf(g, "# model     : %s, launch %s, iters %lld", model,
			       r->host.staged ? "none (host processes)"
					      : gc_fmt_time_ps(r->topo.launch_ps, b1, sizeof(b1)),
			       (long long)gc_config_int(r->cfg, "collective.iters"));
	int64_t gpt = gc_config_int(r->cfg, "collective.gpus_per_thread");
	if (gpt > 1) /* one host thread enqueues on several GPUs (nccl-tests -g) */
		g_string_append_printf(g, ", %lld GPUs per host thread (enqueue %s each)", (long long)gpt,
				       gc_fmt_time_ps(gc_config_time(r->cfg, "collective.enqueue"), b1,
						      sizeof(b1)));
	g_string_append_printf(g, ", seed %lld\n", (long long)gc_config_int(r->cfg, "seed"));
}

void gm_run_format_setup(const gm_run *r, void *gstring_out)
{
	moe_counts kc;
	format_setup(r, gstring_out, forward_counts(r, &kc));
}

/* The sizes whose operation stalled (faults.down), one line each; label
 * (a sweep's key and value, NULL: none) before the size. */
static void format_stalls(const gm_run *r, const char *key, const char *value, GString *g)
{
	for (size_t i = 0; i < r->npts; i++) {
		const gm_point *pt = &r->pts[i];
		if (!pt->r.stalled)
			continue;
		char b[32];
		g_string_append(g, "# stalled:");
		if (key)
			g_string_append_printf(g, " %s %s:", key, value);
		g_string_append_printf(
			g,
			" %llu B: a link of faults.down (%s) stopped under it; %.1f %% of its steps done, "
			"%llu message%s lost, the last step at %.1f us; it never completes: the process "
			"group's watchdog (resilience.timeout) aborts it at %s, the time shown\n",
			(unsigned long long)pt->bytes, gc_config_str(r->cfg, "faults.down"),
			pt->r.steps_total ? 100.0 * (double)pt->r.steps / (double)pt->r.steps_total : 0.0,
			(unsigned long long)pt->r.lost, pt->r.lost == 1 ? "" : "s",
			(double)pt->r.total_ps * 1e-6, gc_fmt_time_ps(pt->r.time_ps, b, sizeof(b)));
	}
}

/* The sizes NCCL's channel tuning ran on fewer channels than their
 * topology's (a size below channels x threads x bytes per thread runs on
 * fewer CTAs), as one line: fewer channels than the node has NICs, or a
 * number that does not divide them, loads some NICs more than others,
 * which the header alone would not explain. Over a sweep's n runs (key and
 * values naming each), a size that ran on the same fewer channels in every
 * row is named once; a single run (n 1) needs no key. */
static void format_fewer_channels(const char *key, const char *const *values,
				  const gm_run *const *runs, size_t n, GString *g)
{
	const gm_run *r0 = runs[0];
	bool first = true;
	size_t most = 0;
	for (size_t k = 0; k < n; k++)
		most = MAX(most, runs[k]->npts);
	for (size_t i = 0; i < most; i++) {
		bool same = true;
		for (size_t k = 0; k < n && same; k++)
			same = i < runs[k]->npts && runs[k]->pts[i].bytes == r0->pts[i].bytes &&
			       runs[k]->pts[i].nchannels == r0->pts[i].nchannels &&
			       runs[k]->base.nchannels == r0->base.nchannels;
		for (size_t k = 0; k < (same ? 1 : n); k++) {
			if (i >= runs[k]->npts)
				continue;
			const gm_point *pt = &runs[k]->pts[i];
			if (pt->nchannels == runs[k]->base.nchannels)
				continue;
			g_string_append(g, first ? "# fewer channels than the topology's (NCCL's tuning by size; "
						   "collective.channels fixes them):"
						 : ",");
			if (!same)
				g_string_append_printf(g, " %s %s:", key, values[k]);
			g_string_append_printf(g, " %llu B on %d of %d%s", (unsigned long long)pt->bytes,
					       pt->nchannels, runs[k]->base.nchannels,
					       same && n > 1 ? " (every row)" : "");
			first = false;
		}
	}
	if (!first)
		g_string_append(g, "\n");
}

/* A transport's servers per size: the busiest proxy thread's and NIC
 * message stage's share of the time, and which of them (or neither: the
 * data path and the latencies) sets the pace. */
static void format_xport(const gm_run *r, GString *g, const char *label)
{
	if (r->xport.kind == GM_XPORT_NONE || r->npts == 0)
		return;
	const char *auto_why = "";
	if (!strcmp(gc_config_str(r->cfg, "transport.inter"), "auto"))
		auto_why = r->xport.kind == GM_XPORT_NCCL ? " (auto: NCCL's proxy for a collective)"
			   : r->xport.kind == GM_XPORT_FABRIC
				   ? " (auto: pplx-garden's own engine, a CPU worker per GPU)"
			   : r->xport.kind == GM_XPORT_IBGDA
				   ? " (auto: one-sided, and the NIC takes GPU-posted work requests)"
			   : r->xport.p.nic_kind == GM_TX_NIC_EFA
				   ? " (auto: one-sided, and EFA has no GPUDirect Async, so NVSHMEM falls back to its CPU proxy)"
				   : " (auto: one-sided, and the NIC has no GPUDirect Async: the CPU proxy)";
	if (r->xport.gin_proxy)
		auto_why = r->xport.p.has_gpudirect_async
				   ? " (its CPU-proxy back end, transport.gin proxy)"
				   : " (its CPU-proxy back end: the NIC has no GPUDirect Async)";
	if (r->analytical)
		g_string_append_printf(g, "# %s%stransport %s%s: each network message adds its stages once "
					  "(closed form: no queueing at proxies or NICs); the first GPU's proxy "
					  "thread and NIC message stage, busy share of the time:\n",
				       label ? label : "", label ? ": " : "", r->xport.name, auto_why);
	else
		g_string_append_printf(g, "# %s%stransport %s%s: the busiest proxy thread and NIC message "
					  "stage, busy share of the time:\n",
				       label ? label : "", label ? ": " : "", r->xport.name, auto_why);
	for (size_t i = 0; i < r->npts; i++) {
		const gm_coll_result *c = &r->pts[i].r;
		double t = c->total_ps > 0 ? (double)c->total_ps : 1;
		double px = (double)c->xp_proxy_busy_ps / t, nic = (double)c->xp_nic_busy_ps / t;
		const char *bind = px >= 0.5 && px >= nic ? "the proxy thread binds"
				   : nic >= 0.5		  ? "the NIC's message rate binds"
							  : "the data path and latencies bind";
		g_string_append_printf(g, "#   %llu B: %llu %s;", (unsigned long long)r->pts[i].bytes,
				       (unsigned long long)c->xp_msgs,
				       r->analytical ? "network messages sent by the first GPU" : "messages");
		if (c->xp_proxy_rank >= 0)
			g_string_append_printf(g, " proxy of rank %d %.1f %%;", c->xp_proxy_rank, 100 * px);
		g_string_append_printf(g, " NIC stage %.1f %%: %s\n", 100 * nic, bind);
	}
}

void gm_run_format_table(const gm_run *r, void *gstring_out)
{
	GString *g = gstring_out;
	const gs_params *p = &r->base;
	moe_counts kcs;
	const moe_counts *kc = forward_counts(r, &kcs);
	format_setup(r, g, kc);
	g_string_append(g, "#\n");
	g_string_append(g, "#       size         count      type   redop    root       time    algbw    busbw\n");
	g_string_append(g, "#        (B)    (elements)                                 (us)   (GB/s)   (GB/s)\n");
	double sum = 0;
	for (size_t i = 0; i < r->npts; i++) {
		const gm_point *pt = &r->pts[i];
		g_string_append_printf(g, "%12llu  %12llu  %8s  %6s  %6d", (unsigned long long)pt->bytes,
				       (unsigned long long)pt->count, gs_dtype_name(p->dtype),
				       gc_config_str(r->cfg, "collective.redop"), root_of(p->coll));
		fmt_time(g, pt->time_us);
		g_string_append_printf(g, " %8.2f %8.2f\n", pt->algbw_GBps, pt->busbw_GBps);
		sum += pt->busbw_GBps;
	}
	g_string_append_printf(g, "# Avg bus bandwidth    : %g\n", r->npts ? sum / (double)r->npts : 0.0);
	format_xport(r, g, NULL);
	format_stalls(r, NULL, NULL, g);
	if (*gc_config_str(r->cfg, "faults.loss") && r->npts > 0) {
		char b[32];
		g_string_append_printf(g, "# lost last packets (faults.loss), each resent after %s:",
				       gc_fmt_time_ps(gc_config_time(r->cfg, "faults.retransmit"), b,
						      sizeof(b)));
		for (size_t i = 0; i < r->npts; i++)
			g_string_append_printf(g, "%s %llu B %llu", i ? "," : "",
					       (unsigned long long)r->pts[i].bytes,
					       (unsigned long long)r->pts[i].r.retransmits);
		g_string_append_printf(g, " (over %lld operations)\n",
				       (long long)gc_config_int(r->cfg, "collective.iters"));
	}
	if (kc && r->npts > 0)
		format_deepep_bw(r, kc, g);
	if (r->algo_auto && r->npts > 0) {
		g_string_append_printf(g, "# algorithm chosen per size (auto, by %s):",
				       r->tuner_nccl ? "NCCL's cost model" : "the closed form");
		for (size_t i = 0; i < r->npts; i++) {
			g_string_append_printf(g, "%s %llu B %s/%s", i ? "," : "",
					       (unsigned long long)r->pts[i].bytes,
					       gs_algo_name((gs_algo)r->pts[i].algo),
					       gm_proto_get((gm_proto)r->pts[i].proto)->name);
			format_nccl_estimate(r, &r->pts[i], g);
		}
		g_string_append(g, "\n");
	} else if (r->proto < 0 && r->npts > 0) {
		g_string_append_printf(g, "# protocol chosen per size (auto%s):",
				       r->tuner_nccl ? ", by NCCL's cost model" : "");
		for (size_t i = 0; i < r->npts; i++) {
			g_string_append_printf(g, "%s %llu B %s", i ? "," : "",
					       (unsigned long long)r->pts[i].bytes,
					       gm_proto_get((gm_proto)r->pts[i].proto)->name);
			format_nccl_estimate(r, &r->pts[i], g);
		}
		g_string_append(g, "\n");
	}
	if (r->ll128_off && (r->proto < 0 || r->algo_auto))
		g_string_append_printf(g,
				       "# ll128 left out, as NCCL leaves it out by default: %s; "
				       "collective.nccl_proto naming LL128 turns it on\n",
				       r->ll128_off);
	format_fewer_channels(NULL, NULL, &r, 1, g);
}

void gm_run_format_compare(const gm_run *r, void *gstring_out)
{
	GString *g = gstring_out;
	if (!r->compare)
		return;
	const char *a = algo_label(r), *b = gs_algo_name(r->compare_algo);
	g_string_append_printf(g, "#\n# compare: %s vs %s\n", a, b);
	g_string_append_printf(g, "#       size   %8s(us)   %8s(us)   faster   ratio\n", a, b);
	for (size_t i = 0; i < r->npts; i++) {
		double ta = r->pts[i].time_us, tb = r->cmp[i].time_us;
		g_string_append_printf(g, "# %10llu %14.2f %14.2f   %6s  %6.2fx\n",
				       (unsigned long long)r->pts[i].bytes, ta, tb, ta <= tb ? a : b,
				       ta <= tb ? tb / ta : ta / tb);
	}
	int changes = 0;
	for (size_t i = 1; i < r->npts; i++) {
		bool fa = r->pts[i - 1].time_us <= r->cmp[i - 1].time_us;
		bool fb = r->pts[i].time_us <= r->cmp[i].time_us;
		if (fa == fb)
			continue;
		changes++;
		g_string_append_printf(g, "# crossover: %s is faster up to %llu B, %s from %llu B\n",
				       fa ? a : b, (unsigned long long)r->pts[i - 1].bytes, fb ? a : b,
				       (unsigned long long)r->pts[i].bytes);
	}
	if (changes == 0 && r->npts > 0)
		g_string_append_printf(g, "# crossover: none in this range; %s is faster at every size\n",
				       r->pts[0].time_us <= r->cmp[0].time_us ? a : b);
}

/* CSV columns of the breakdown (us per operation), after a row's others. */
static void csv_breakdown_head(const gm_run *r, GString *g)
{
	for (int c = 0; r->npts > 0 && r->pts[0].r.has_cp && c < GM_CP__COUNT; c++)
		g_string_append_printf(g, ",%s_us", gm_cp_name((gm_cp_cat)c));
}

/* Point pt's breakdown in us per operation; false (all 0) without one. */
static bool point_breakdown(const gm_run *r, const gm_point *pt, double us[GM_CP__COUNT])
{
	const double iters = (double)gc_config_int(r->cfg, "collective.iters");
	for (int c = 0; c < GM_CP__COUNT; c++)
		us[c] = pt->r.has_cp ? (double)pt->r.cp_ps[c] * 1e-6 / iters : 0;
	return pt->r.has_cp;
}

static void csv_breakdown_row(const gm_run *r, const gm_point *pt, GString *g)
{
	double us[GM_CP__COUNT];
	if (!point_breakdown(r, pt, us))
		return;
	for (int c = 0; c < GM_CP__COUNT; c++)
		g_string_append_printf(g, ",%.6f", us[c]);
}

void gm_run_format_csv(const gm_run *r, void *gstring_out)
{
	GString *g = gstring_out;
	g_string_append(g, "size_bytes,count,type,redop,root,time_us,algbw_GBps,busbw_GBps");
	csv_breakdown_head(r, g); /* with the breakdown, every category (us per operation) */
	g_string_append_c(g, '\n');
	for (size_t i = 0; i < r->npts; i++) {
		const gm_point *pt = &r->pts[i];
		g_string_append_printf(g, "%llu,%llu,%s,%s,%d,%.6f,%.6f,%.6f", (unsigned long long)pt->bytes,
				       (unsigned long long)pt->count, gs_dtype_name(r->base.dtype),
				       gc_config_str(r->cfg, "collective.redop"), root_of(r->base.coll),
				       pt->time_us,
				       pt->algbw_GBps, pt->busbw_GBps);
		csv_breakdown_row(r, pt, g);
		g_string_append_c(g, '\n');
	}
}

void gm_run_format_sweep(const char *key, const char *const *values, gm_run *const *runs, size_t n,
			 bool csv, void *gstring_out)
{
	GString *g = gstring_out;
	/* the first column: as wide as the key (two keys: "KEY1,KEY2"), 20 at least */
	const int w = (int)MAX(strlen(key), 20);
	const gm_run *r0 = runs[0];
	const char *cmp = r0->compare ? gs_algo_name(r0->compare_algo) : NULL;
	/* algo auto: the algorithm and protocol chosen per size */
	bool chosen = false;
	for (size_t k = 0; k < n; k++)
		chosen = chosen || runs[k]->algo_auto;
	if (csv) {
		g_string_append_printf(g, "%s,ranks,size_bytes,time_us,algbw_GBps,busbw_GBps%s%s%s%s",
				       key, cmp ? "," : "", cmp ? cmp : "", cmp ? "_time_us" : "",
				       chosen ? ",chosen" : "");
		csv_breakdown_head(r0, g);
		g_string_append_c(g, '\n');
	} else {
		g_string_append_printf(g, "# gcsim %s  scenario: %s, sweep of %s (%s)\n", GCSIM_VERSION,
				       gc_config_source_name(r0->path), key,
				       strcmp(key, "sim.fidelity") == 0 ? "model per row"
				       : r0->analytical		     ? "closed form"
				       : r0->pkt_bytes		     ? "packet model"
								     : "flow model");
		g_string_append_printf(g, "# collective: %s, algo %s%s%s\n", gs_coll_name(r0->base.coll),
				       algo_label(r0), cmp ? ", compared with " : "",
				       cmp ? cmp : "");
		if (strstr(key, "collective.tuner")) /* a sweep of who picks */
			g_string_append(g, "# collective.tuner: gcsim picks the fastest by its closed "
					    "form, nccl what NCCL's own cost model picks\n");
		g_string_append_printf(g, "# %*s %8s %14s %10s %8s %8s", w, key, "ranks", "size(B)", "time(us)",
				       "algbw", "busbw");
		if (cmp) {
			char h[32];
			g_snprintf(h, sizeof(h), "%s(us)", cmp);
			g_string_append_printf(g, " %10s %7s", h, "faster");
		}
		if (chosen)
			g_string_append(g, "  chosen");
		g_string_append(g, "\n");
	}
	for (size_t k = 0; k < n; k++) {
		const gm_run *r = runs[k];
		for (size_t i = 0; i < r->npts; i++) {
			const gm_point *pt = &r->pts[i];
			if (csv) {
				g_string_append_printf(g, "%s,%d,%llu,%.6f,%.6f,%.6f", values[k], gs_group_n(&r->base),
						       (unsigned long long)pt->bytes, pt->time_us,
						       pt->algbw_GBps, pt->busbw_GBps);
				if (cmp)
					g_string_append_printf(g, ",%.6f", r->cmp[i].time_us);
				if (chosen)
					g_string_append_printf(g, ",%s/%s",
							       gs_algo_name((gs_algo)pt->algo),
							       gm_proto_get((gm_proto)pt->proto)->name);
				csv_breakdown_row(r, pt, g);
				g_string_append(g, "\n");
				continue;
			}
			g_string_append_printf(g, "  %*s %8d %14llu ", w, values[k], gs_group_n(&r->base),
					       (unsigned long long)pt->bytes);
			fmt_time(g, pt->time_us);
			g_string_append_printf(g, " %8.2f %8.2f", pt->algbw_GBps, pt->busbw_GBps);
			if (cmp) {
				g_string_append(g, " ");
				fmt_time(g, r->cmp[i].time_us);
				g_string_append_printf(g, " %7s",
						       r->cmp[i].time_us < pt->time_us ? cmp : algo_label(r));
			}
			if (chosen)
				g_string_append_printf(g, "  %s/%s", gs_algo_name((gs_algo)pt->algo),
						       gm_proto_get((gm_proto)pt->proto)->name);
			g_string_append(g, "\n");
		}
	}
	if (!csv) {
		format_fewer_channels(key, values, (const gm_run *const *)runs, n, g);
		for (size_t k = 0; k < n; k++)
			format_stalls(runs[k], key, values[k], g);
	}
	for (size_t k = 0; !csv && k < n; k++) {
		char *label = g_strdup_printf("%s=%s", key, values[k]);
		format_xport(runs[k], g, label);
		g_free(label);
	}
}

static int cmp_link(const void *a, const void *b)
{
	const gm_link_stat *x = a, *y = b;
	double ux = x->bytes / x->bw_Bps, uy = y->bytes / y->bw_Bps;
	if (ux != uy)
		return ux > uy ? -1 : 1;
	return strcmp(x->name, y->name);
}

void gm_run_format_links(const gm_run *r, size_t max_rows, void *gstring_out)
{
	GString *g = gstring_out;
	for (size_t i = 0; i < r->npts; i++) {
		const gm_point *pt = &r->pts[i];
		if (!pt->r.links)
			continue;
		gm_link_stat *ls = g_memdup2(pt->r.links, sizeof(gm_link_stat) * pt->r.nlinks);
		qsort(ls, pt->r.nlinks, sizeof(*ls), cmp_link);
		double t = (double)pt->r.total_ps;
		g_string_append_printf(g, "#\n# links at size %llu B, busiest first (util = bytes / (bandwidth x time)):\n",
				       (unsigned long long)pt->bytes);
		g_string_append(g, "#   link                                bytes      busy     util  max-flows\n");
		size_t shown = 0, idle = 0;
		for (uint32_t k = 0; k < pt->r.nlinks; k++) {
			if (ls[k].bytes == 0) {
				idle++;
				continue;
			}
			if (shown == max_rows)
				continue;
			double busy = t > 0 ? (double)ls[k].busy_ps / t : 0;
			double util = t > 0 ? ls[k].bytes / (ls[k].bw_Bps * t * 1e-12) : 0;
			g_string_append_printf(g, "#   %-28s %14.0f   %6.1f%%  %6.1f%%  %9u\n", ls[k].name,
					       ls[k].bytes, 100 * busy, 100 * util, ls[k].max_flows);
			shown++;
		}
		size_t used = pt->r.nlinks - idle;
		if (used > shown)
			g_string_append_printf(g, "#   ... %zu more links carried traffic\n", used - shown);
		g_string_append_printf(g, "#   %zu of %u links carried no traffic\n", idle, pt->r.nlinks);
		g_free(ls);
	}
}

/* The breakdown table of the runs' points, or (cmp) of their compared
 * algorithm's. */
static void format_breakdown(const char *key, const char *const *values, gm_run *const *runs,
			     size_t n, bool cmp, GString *g)
{
	bool shown[GM_CP__COUNT] = {false};
	bool any = false;
	double us[GM_CP__COUNT];
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < runs[k]->npts; i++)
			if (point_breakdown(runs[k], cmp ? &runs[k]->cmp[i] : &runs[k]->pts[i], us))
				for (int c = 0; c < GM_CP__COUNT; c++)
					if (us[c] != 0)
						shown[c] = any = true;
	if (!any)
		return;
	/* a sweep's value first, as wide as its key (20 at least) */
	const int w = key ? (int)MAX(strlen(key), 20) : 0;
	char *what = cmp ? g_strdup_printf(", compared algorithm %s",
					   gs_algo_name(runs[0]->compare_algo))
			 : g_strdup("");
	gm_cp_format_title(what, g);
	g_free(what);
	g_string_append(g, "#");
	if (key)
		g_string_append_printf(g, " %*s", w, key);
	g_string_append(g, "       size       time");
	gm_cp_format_head(shown, g);
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < runs[k]->npts; i++) {
			const gm_point *pt = cmp ? &runs[k]->cmp[i] : &runs[k]->pts[i];
			point_breakdown(runs[k], pt, us);
			g_string_append(g, "#");
			if (key)
				g_string_append_printf(g, " %*s", w, values[k]);
			g_string_append_printf(g, " %10llu", (unsigned long long)pt->bytes);
			fmt_time(g, pt->time_us);
			gm_cp_format_row(us, shown, g);
		}
	gm_cp_format_legend(shown, g);
}

void gm_run_format_breakdown(const char *key, const char *const *values, gm_run *const *runs,
			     size_t n, void *gstring_out)
{
	format_breakdown(key, values, runs, n, false, gstring_out);
	if (n > 0 && runs[0]->compare)
		format_breakdown(key, values, runs, n, true, gstring_out);
}

/* A point for the results file. The algorithm NCCL's own model chose
 * (algo auto, tuner nccl) is written as nccl-tests' published rows name
 * NCCL's choice, "default(X)", so that gcsim validate compares it with the
 * rows where NCCL chose, and not with those where an algorithm was forced. */
static void fill_point(const gm_run *r, const gm_point *pt, gs_algo algo, bool chosen,
		       gc_result_point *out)
{
	gc_result_point_init(out);
	g_strlcpy(out->collective, gs_coll_name(r->base.coll), sizeof(out->collective));
	if (chosen && r->algo_auto && r->tuner_nccl)
		snprintf(out->algo, sizeof(out->algo), "default(%s)", gs_algo_name(algo));
	else
		g_strlcpy(out->algo, gs_algo_name(algo), sizeof(out->algo));
	g_strlcpy(out->dtype, gs_dtype_name(r->base.dtype), sizeof(out->dtype));
	out->nranks = gs_group_n(&r->base);
	out->size_bytes = pt->bytes;
	out->count = pt->count;
	out->time_us = pt->time_us;
	out->algbw_GBps = pt->algbw_GBps;
	out->busbw_GBps = pt->busbw_GBps;
	out->iters = gc_config_int(r->cfg, "collective.iters");
}

gc_status gm_run_save_results(const gm_run *r, const char *path, const char *command,
			      char **errmsg)
{
	return gm_run_save_results_as(r, path, NULL, command, errmsg);
}

gc_status gm_run_check_results(const char *path, char **errmsg)
{
	return g_str_has_suffix(path, ".csv") ? gc_outfile_check(path, "results", errmsg)
					      : gc_results_check_writable(path, errmsg);
}

char *gm_run_breakdown_key(const char *algo, uint64_t size_bytes, gm_cp_cat c)
{
	return g_strdup_printf("breakdown:%s:%llu:%s", algo, (unsigned long long)size_bytes,
			       gm_cp_name(c));
}

/* The device column of a run's results. */
static const char *run_device(const gm_run *r)
{
	return r->analytical ? "gcsim analytical model"
	       : r->pkt_bytes ? "gcsim packet model"
			      : "gcsim flow model";
}

/* The run's points for the results file: its own, then the compared
 * algorithm's (g_free *pts). */
static gc_result_point *run_points(const gm_run *r, size_t *n)
{
	*n = r->npts * (r->compare ? 2 : 1);
	gc_result_point *pts = g_new(gc_result_point, *n ? *n : 1);
	for (size_t i = 0; i < r->npts; i++) {
		fill_point(r, &r->pts[i], (gs_algo)r->pts[i].algo, true, &pts[i]);
		if (r->compare)
			fill_point(r, &r->cmp[i], r->compare_algo, false, &pts[r->npts + i]);
	}
	return pts;
}

void gm_run_record_of(const gm_run *r, const char *label, const char *command,
		      gc_run_record *out)
{
	memset(out, 0, sizeof(*out));
	out->pts = run_points(r, &out->npts);
	GString *cfg = g_string_new(NULL);
	gc_config_dump(r->cfg, cfg);
	const char *name = gc_config_str(r->cfg, "name");
	gc_run_row *w = &out->run;
	w->kind = g_strdup("sim");
	w->label = g_strdup(label ? label : name[0] ? name : NULL);
	w->scenario = g_strdup(r->path);
	w->config = g_string_free(cfg, FALSE);
	w->device = g_strdup(run_device(r));
	w->command = g_strdup(command);
	/* the breakdown, as the run's parameters (gm_run_breakdown_key) */
	GArray *prm = g_array_new(FALSE, TRUE, sizeof(gc_param_row));
	for (size_t i = 0; i < out->npts; i++) {
		const gm_point *pt = i < r->npts ? &r->pts[i] : &r->cmp[i - r->npts];
		for (int c = 0; c < GM_CP__COUNT && pt->r.has_cp; c++) {
			gc_param_row row;
			memset(&row, 0, sizeof(row));
			char *key = gm_run_breakdown_key(out->pts[i].algo, out->pts[i].size_bytes,
							 (gm_cp_cat)c);
			g_strlcpy(row.key, key, sizeof(row.key));
			g_free(key);
			row.value = (double)pt->r.cp_ps[c] * 1e-6 / (double)out->pts[i].iters;
			g_strlcpy(row.unit, "us", sizeof(row.unit));
			g_array_append_val(prm, row);
		}
	}
	out->nprm = prm->len;
	out->prm = (gc_param_row *)(void *)g_array_free(prm, FALSE);
}

gc_status gm_run_save_results_as(const gm_run *r, const char *path, const char *label,
				 const char *command, char **errmsg)
{
	if (!g_str_has_suffix(path, ".csv")) {
		gc_run_record rec;
		gm_run_record_of(r, label, command, &rec);
		gc_status st = gc_results_store_record(path, &rec, errmsg);
		gc_run_record_clear(&rec);
		return st;
	}
	size_t n = 0;
	gc_result_point *pts = run_points(r, &n);
	GString *cfg = g_string_new(NULL);
	gc_config_dump(r->cfg, cfg);
	const char *name = gc_config_str(r->cfg, "name");
	gc_run_info info = {.kind = "sim",
			    .label = label ? label : name[0] ? name : NULL,
			    .scenario = r->path,
			    .config = cfg->str,
			    .device = run_device(r),
			    .created = "",
			    .command = command};
	gc_outfile o;
	gc_status st = gc_outfile_open(&o, path, "results", errmsg);
	if (st == GC_OK) {
		/* a write error stays on the stream: the commit names it */
		gc_results_write_csv(o.f, &info, pts, n);
		st = gc_outfile_commit(&o, errmsg);
	}
	g_string_free(cfg, TRUE);
	g_free(pts);
	return st;
}
