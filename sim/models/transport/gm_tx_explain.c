/* SPDX-License-Identifier: MIT */
/*
 * gm_tx_explain: turns recipes and their executions into text for people
 * learning the taxonomy (a numbered walk, an ASCII timeline, a comparison
 * table or CSV), and runs explain studies described by scenario files.
 *
 * An explain scenario is an ordinary gcsim YAML file (schema_version 1)
 * whose `explain:` group says what to show; any component key (gpu.*,
 * pcie.*, proxy.*, nic.*, ...) may be set beside it. `explain.vary:
 * KEY=V1,V2` repeats the study once per value, so a what-if is one file.
 *
 * Invariants: output depends only on the configuration (no clock, no hash
 * order); every number printed is the event-driven result, which equals the
 * recipe's closed form for one message.
 */
#include "gm_tx.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#include "../../core/gc_units.h"

static const gc_param study_params[] = {
	{"explain.mode", GC_P_ENUM, "list", "list|path|compare", 1, 0,
	 "list the types, walk one path, or compare the types of a scope", NULL},
	{"explain.path", GC_P_STRING, "inter:3", NULL, 1, 0,
	 "the path to walk: intra:1-4, inter:1-5, roundtrip", NULL},
	{"explain.variant", GC_P_STRING, "", NULL, 1, 0,
	 "variant of the path (inter:3: cpu|proxy; intra:2: ce|kernel); empty: the default", NULL},
	{"explain.scope", GC_P_ENUM, "inter", "intra|inter", 1, 0, "the types compared", NULL},
	{"explain.bytes", GC_P_BYTES, "8B", NULL, 1, 1099511627776.0 * 16, "payload of one message", NULL},
	{"explain.messages", GC_P_INT, "0", NULL, 0, GM_TX_MAX_MESSAGES,
	 "compare: also time this many back-to-back messages per type (0: latency only)", NULL},
	{"explain.bench", GC_P_ENUM, "stream", "stream|put-bw", 1, 0,
	 "compare: stream (explain.messages back-to-back messages) or put-bw (NVSHMEM perftest "
	 "shmem_put_bw's loop: explain.ctas CTAs, explain.iters iterations of explain.bytes split "
	 "among them, an inter-CTA barrier after each, quiet at the end)", NULL},
	{"explain.ctas", GC_P_INT, "32", NULL, 1, 4096, "put-bw: CTAs of the kernel (perftest -c, default 32)",
	 NULL},
	{"explain.iters", GC_P_INT, "10", NULL, 1, GM_TX_LOOP_MAX_ITERS,
	 "put-bw: timed iterations (perftest -n, default 10)", NULL},
	{"explain.platform", GC_P_ENUM, "dgx-h100", "dgx-h100|dgx-a100|p5|p4d", 1, 0,
	 "the platform whose defaults and capabilities apply", NULL},
	{"explain.format", GC_P_ENUM, "table", "table|csv", 1, 0, "compare: aligned table or CSV", NULL},
	{"explain.timeline", GC_P_BOOL, "false", NULL, 1, 0, "path: add an ASCII timeline", NULL},
	{"explain.vary", GC_P_STRING, "", NULL, 1, 0,
	 "repeat the study for each value: KEY=V1,V2,... (empty: once)", NULL},
};

void gm_tx_register_study_params(gc_config *cfg)
{
	gc_config_add_params(cfg, study_params, G_N_ELEMENTS(study_params));
}

gc_status gm_tx_study_check_file(const gc_config *cfg, const char *file, bool mode_given,
				 char **errmsg)
{
	if (mode_given || gc_config_is_set(cfg, "explain.mode"))
		return GC_OK;
	for (size_t i = 0; i < G_N_ELEMENTS(study_params); i++)
		if (gc_config_is_set(cfg, study_params[i].key))
			return gc_config_error(cfg, study_params[i].key, errmsg,
					       "the study has no explain.mode; expected list, path or compare");
	*errmsg = g_strdup_printf("%s: no explain: section, so no study to run; a run scenario is "
				  "simulated by 'gcsim run %s', and 'gcsim explain --collective %s' "
				  "walks its collective step by step",
				  file, file, file);
	return GC_ERR_INPUT;
}

void gm_tx_format_list(void *gs)
{
	GString *o = gs;
	g_string_append(o, "Communication types (Unat et al., arXiv 2409.09874); walk one with\n"
			   "  gcsim explain --path TYPE --bytes SIZE [--variant V] [--platform P]\n\n");
	for (size_t i = 0; i < gm_tx_type_count(); i++) {
		const gm_tx_type_info *t = gm_tx_type_at(i);
		char v[40] = "";
		if (t->variants && *t->variants)
			g_snprintf(v, sizeof(v), " [%s]", t->variants);
		g_string_append_printf(o, "  %-9s %-20s %s%s\n", t->id, t->name, t->defines, v);
	}
}

static double us(int64_t ps)
{
	return (double)ps / 1e6;
}

void gm_tx_format_walk(const gm_tx_params *p, const gm_tx_recipe *r, const gm_tx_result *res,
		       uint64_t bytes, bool timeline, void *gs)
{
	GString *o = gs;
	char b[32];
	gc_fmt_bytes(bytes, b, sizeof(b));
	g_string_append_printf(o, "%s: %s, %s on %s\n", r->id, r->name, b, p->platform);
	int ncopies = 0;
	for (int i = 0; i < r->nsteps; i++) {
		const gm_tx_step *s = &r->steps[i];
		const gm_tx_step_time *t = &res->steps[i];
		g_string_append_printf(o, "%3d. %-26s start %10.3f us  takes %10.3f us  %s%s\n", i + 1,
				       s->actor, us(t->start_ps), us(t->end_ps - t->start_ps), s->action,
				       s->copy ? " [copy]" : "");
		ncopies += s->copy;
		g_string_append_printf(o, "     cost: %s", s->rule);
		if (s->ndeps > 1 || (s->ndeps == 1 && s->deps[0] != i - 1)) {
			g_string_append(o, "; waits for step");
			for (int d = 0; d < s->ndeps; d++)
				g_string_append_printf(o, "%s %d", d ? "," : (s->ndeps > 1 ? "s" : ""),
						       s->deps[d] + 1);
		}
		g_string_append_c(o, '\n');
	}
	/* Unat et al.'s copies column: an intra-node path has no network, and
	 * every copy of the payload counts; an inter-node path (a type, or a
	 * transport's message) counts the staging copies before the network
	 * (the receiver's mirror copies are shown in the walk, not counted);
	 * the roundtrip moves only flags. */
	const char *counted = !strncmp(r->id, "intra", 5)      ? "every copy of the payload, as Unat et al. count them"
			      : !strcmp(r->id, "roundtrip") ? "only flags move"
							     : "staging copies before the network, as Unat et al. count them";
	g_assert(ncopies == r->copies);
	g_string_append_printf(o, "total: %.3f us; copies made: %d (%s); CPU on the critical path: %s\n",
			       us(res->latency_ps), r->copies, counted, r->cpu_critical ? "yes" : "no");
	/* explain's nvlink.latency and run's topology.nvlink.latency are two
	 * quantities: the first is the hardware's, one store crossing NVLink
	 * until a polling peer sees it (NCCL's LL hop latency, whose flag rides
	 * in the same store); the second is NCCL's per-step latency for the
	 * Simple protocol (tuning.cc hwLat), which also holds the fence, the
	 * flag and the poll that a walk shows as steps of their own. */
	bool nvl = false;
	for (int i = 0; i < r->nsteps; i++)
		nvl |= strstr(r->steps[i].rule, "nvlink.latency") != NULL;
	if (nvl)
		g_string_append_printf(o,
				       "note: nvlink.latency (%.3f us) is the hardware's: one store crossing "
				       "NVLink until a polling peer sees it (NCCL's LL hop); gcsim run's "
				       "topology.nvlink.latency (3.4 us by default) is NCCL's whole Simple "
				       "step, which also holds the fence, the flag and the poll (explain's "
				       "own steps)\n",
				       us(p->nvlink_lat_ps));
	if (!timeline)
		return;
	const int W = 60;
	double T = (double)MAX(res->latency_ps, 1);
	g_string_append_printf(o, "\ntimeline (0 to %.3f us, %d columns):\n", us(res->latency_ps), W);
	for (int i = 0; i < r->nsteps; i++) {
		const gm_tx_step_time *t = &res->steps[i];
		int a = (int)((double)t->start_ps / T * W), e = (int)((double)t->end_ps / T * W + 0.999);
		if (e <= a)
			e = a + 1;
		if (e > W)
			e = W;
		if (a >= W)
			a = W - 1;
		g_string_append_printf(o, "%3d %-26s |", i + 1, r->steps[i].actor);
		for (int c = 0; c < W; c++)
			g_string_append_c(o, c >= a && c < e ? (t->end_ps > t->start_ps ? '#' : '|') : ' ');
		g_string_append(o, "|\n");
	}
}

static const char *const intra_rows[][2] = {{"intra:1", NULL}, {"intra:2", NULL}, {"intra:3", NULL},
					     {"intra:4", NULL}};
static const char *const inter_rows[][2] = {{"inter:1", NULL}, {"inter:2", NULL}, {"inter:3", "cpu"},
					     {"inter:3", "proxy"}, {"inter:4", NULL}, {"inter:5", NULL}};

/* A row's type as the tables print it: "3" for inter:3 (its default
 * variant, cpu), "3/proxy" for another variant. */
static void row_type(const char *const row[2], char *typ, size_t len)
{
	bool named = row[1] && strcmp(row[1], "cpu") != 0;
	g_snprintf(typ, len, "%s%s%s", row[0] + 6, named ? "/" : "", named ? row[1] : "");
}

/* Decimals for a rate in Mops: three, or as many as three significant
 * digits of a rate below 0.1 need (1 GiB messages run at 0.000298 Mops). */
static int rate_decimals(double v)
{
	if (!(v > 0) || v >= 0.1)
		return 3;
	return (int)MIN(12.0, 2.0 - floor(log10(v)));
}

/* shmem_put_bw's loop for each device-initiated inter-node type: the
 * kernel's time, the bandwidth perftest prints (bytes per iteration x
 * iterations over it, 1 GB = 1e9 B), the puts per second, and what limits
 * each; then the ratio of the device-native type to the proxy's. */
static gc_status format_put_loop(const gm_tx_params *p, const gm_tx_compare_opts *o, GString *out,
				 char **errmsg)
{
	uint64_t per = o->bytes / 8 / (uint64_t)o->ctas * 8;
	char b[32], pb[32];
	gc_fmt_bytes(o->bytes, b, sizeof(b));
	if (per == 0) {
		*errmsg = g_strdup_printf("put-bw: %s per iteration over %d CTAs leaves each less than one "
					  "double (8 B); expected at least %lluB, or fewer CTAs",
					  b, o->ctas, (unsigned long long)o->ctas * 8);
		return GC_ERR_INPUT;
	}
	gc_fmt_bytes(per, pb, sizeof(pb));
	if (o->csv) {
		g_string_append(out, "type,name,latency_us,copies,cpu_on_critical_path,time_us,bw_GBps,rate_Mops\n");
	} else {
		g_string_append_printf(out,
				       "# inter-node types in NVSHMEM shmem_put_bw's loop on %s: %d CTAs x %d "
				       "iterations of %s (a %s put per CTA), an inter-CTA barrier after "
				       "each, quiet at the end\n",
				       p->platform, o->ctas, o->iters, b, pb);
		g_string_append_printf(out, "%-8s %-28s %12s %6s %4s %10s %9s %11s  %s\n", "type", "name",
				       "latency_us", "copies", "cpu", "time_us", "bw_GBps", "rate_Mops", "limited by");
	}
	double proxy_bw = 0, native_bw = 0;
	for (size_t i = 0; i < G_N_ELEMENTS(inter_rows); i++) {
		gm_tx_recipe r;
		char *why = NULL;
		char typ[16];
		row_type(inter_rows[i], typ, sizeof(typ));
		gc_status st = gm_tx_recipe_build(p, inter_rows[i][0], inter_rows[i][1], per, &r, &why);
		if (st != GC_OK) {
			if (!o->csv)
				g_string_append_printf(out, "%-8s refused: %s\n", typ, why);
			g_free(why);
			continue;
		}
		if (strcmp(r.issuer_kind, "CTA") != 0) {
			if (!o->csv)
				g_string_append_printf(out, "%-8s %-28s a %s issues it: no kernel puts\n", typ,
						       r.name, r.issuer_kind);
			continue;
		}
		gm_tx_result one, loop;
		st = gm_tx_simulate(p, &r, 1, NULL, &one, errmsg);
		if (st == GC_OK)
			st = gm_tx_simulate_put_loop(p, &r, o->ctas, o->iters, o->trace, (int)i + 1, &loop,
						     errmsg);
		if (st != GC_OK)
			return st;
		double t_us = us(loop.makespan_ps);
		double bw = (double)o->bytes * o->iters / (t_us * 1e3);
		if (r.uses_proxy)
			proxy_bw = bw;
		else if (!strcmp(inter_rows[i][0], "inter:5"))
			native_bw = bw;
		if (o->csv)
			g_string_append_printf(out, "%s,%s,%.3f,%d,%s,%.3f,%.4f,%.3f\n", typ, r.name,
					       us(one.latency_ps), r.copies, r.cpu_critical ? "yes" : "no", t_us,
					       bw, loop.rate_Mops);
		else
			g_string_append_printf(out, "%-8s %-28s %12.3f %6d %4s %10.3f %9.4f %11.3f  %s (%.0f%% busy)\n",
					       typ, r.name, us(one.latency_ps), r.copies,
					       r.cpu_critical ? "yes" : "no", t_us, bw, loop.rate_Mops, loop.limit,
					       100 * loop.limit_util);
	}
	if (!o->csv && proxy_bw > 0 && native_bw > 0)
		g_string_append_printf(out, "# device native (5) over GPU RDMA through the CPU proxy (3/proxy): "
					    "%.2fx\n",
				       native_bw / proxy_bw);
	return GC_OK;
}

gc_status gm_tx_format_compare(const gm_tx_params *p, const gm_tx_compare_opts *o, void *gs,
			       char **errmsg)
{
	GString *out = gs;
	if (o->put_loop)
		return format_put_loop(p, o, out, errmsg);
	bool intra = !strcmp(o->scope, "intra");
	size_t n = intra ? G_N_ELEMENTS(intra_rows) : G_N_ELEMENTS(inter_rows);
	const char *const (*rows)[2] = intra ? intra_rows : inter_rows;
	bool rate = o->messages > 0;
	if (o->csv) {
		g_string_append(out, "type,name,latency_us,copies,cpu_on_critical_path");
		g_string_append(out, rate ? ",rate_Mops\n" : "\n");
	} else {
		char b[32];
		gc_fmt_bytes(o->bytes, b, sizeof(b));
		g_string_append_printf(out, "# %s-node types, %s per message, platform %s", o->scope, b,
				       p->platform);
		if (rate)
			g_string_append_printf(out, "; rate of %llu back-to-back messages from one GPU",
					       (unsigned long long)o->messages);
		g_string_append_printf(out, "\n%-8s %-28s %12s %6s %4s", "type", "name", "latency_us",
				       "copies", "cpu");
		if (rate)
			g_string_append_printf(out, " %11s %7s  %s", "rate_Mops", "issuers", "limited by");
		g_string_append_c(out, '\n');
	}
	for (size_t i = 0; i < n; i++) {
		gm_tx_recipe r;
		char *why = NULL;
		char typ[16];
		row_type(rows[i], typ, sizeof(typ));
		gc_status st = gm_tx_recipe_build(p, rows[i][0], rows[i][1], o->bytes, &r, &why);
		if (st != GC_OK) {
			if (!o->csv)
				g_string_append_printf(out, "%-8s refused: %s\n", typ, why);
			g_free(why);
			continue;
		}
		gm_tx_result one, many;
		st = gm_tx_simulate(p, &r, 1, NULL, &one, errmsg);
		if (st == GC_OK && rate)
			st = gm_tx_simulate(p, &r, o->messages, NULL, &many, errmsg);
		if (st != GC_OK)
			return st;
		if (o->csv) {
			g_string_append_printf(out, "%s,%s,%.3f,%d,%s", typ, r.name, us(one.latency_ps), r.copies,
					       r.cpu_critical ? "yes" : "no");
			if (rate)
				g_string_append_printf(out, ",%.*f", rate_decimals(many.rate_Mops), many.rate_Mops);
			g_string_append_c(out, '\n');
		} else {
			g_string_append_printf(out, "%-8s %-28s %12.3f %6d %4s", typ, r.name, us(one.latency_ps),
					       r.copies, r.cpu_critical ? "yes" : "no");
			if (rate)
				g_string_append_printf(out, " %11.*f %7d  %s (%.0f%% busy)",
						       rate_decimals(many.rate_Mops), many.rate_Mops,
						       r.issuers, many.limit, 100 * many.limit_util);
			g_string_append_c(out, '\n');
		}
	}
	return GC_OK;
}

static gc_status run_once(gc_config *cfg, const char *trace_path, bool timeline, GString *o,
			  char **errmsg)
{
	const char *platform = gc_config_str(cfg, "explain.platform");
	gm_tx_platform_apply(cfg, platform);
	gm_tx_params p;
	gm_tx_params_read(cfg, platform, &p);
	const char *mode = gc_config_str(cfg, "explain.mode");
	uint64_t bytes = gc_config_bytes(cfg, "explain.bytes");
	if (!strcmp(mode, "list")) {
		gm_tx_format_list(o);
		return GC_OK;
	}
	if (!strcmp(mode, "compare")) {
		gm_tx_compare_opts co = {
			.scope = gc_config_str(cfg, "explain.scope"),
			.bytes = bytes,
			.messages = (uint64_t)gc_config_int(cfg, "explain.messages"),
			.csv = !strcmp(gc_config_str(cfg, "explain.format"), "csv"),
			.put_loop = !strcmp(gc_config_str(cfg, "explain.bench"), "put-bw"),
			.ctas = (int)gc_config_int(cfg, "explain.ctas"),
			.iters = (int)gc_config_int(cfg, "explain.iters"),
		};
		if (!co.put_loop && (gc_config_is_set(cfg, "explain.ctas") || gc_config_is_set(cfg, "explain.iters")))
			return gc_config_error(cfg,
					       gc_config_is_set(cfg, "explain.ctas") ? "explain.ctas" : "explain.iters",
					       errmsg, "explain.ctas and explain.iters shape put-bw's loop; "
						       "expected explain.bench put-bw with them");
		if (co.put_loop && strcmp(co.scope, "inter") != 0)
			return gc_config_error(cfg, "explain.bench", errmsg,
					       "put-bw times NVSHMEM's puts between nodes; expected explain.scope "
					       "inter, got %s",
					       co.scope);
		if (co.put_loop && co.messages > 0)
			return gc_config_error(cfg, "explain.messages", errmsg,
					       "a stream of messages and put-bw's loop exclude each other; "
					       "set explain.messages to 0 or explain.bench to stream");
		if (co.put_loop && (uint64_t)co.ctas * (uint64_t)co.iters > GM_TX_MAX_MESSAGES)
			return gc_config_error(cfg, "explain.iters", errmsg,
					       "put-bw: %d CTAs x %d iterations is more than %d puts", co.ctas,
					       co.iters, GM_TX_MAX_MESSAGES);
		if (!trace_path)
			return gm_tx_format_compare(&p, &co, o, errmsg);
		if (!co.put_loop) {
			*errmsg = g_strdup("--trace with a compare draws put-bw's loops; expected "
					   "--bench put-bw (explain.bench), or --path for one type's trace");
			return GC_ERR_INPUT;
		}
		ge_trace tr;
		gc_status st = ge_trace_open(&tr, trace_path, errmsg);
		if (st != GC_OK)
			return st;
		co.trace = &tr;
		return ge_trace_finish(&tr, gm_tx_format_compare(&p, &co, o, errmsg), errmsg);
	}
	gm_tx_recipe r;
	gc_status st = gm_tx_recipe_build(&p, gc_config_str(cfg, "explain.path"),
					  gc_config_str(cfg, "explain.variant"), bytes, &r, errmsg);
	if (st != GC_OK)
		return st;
	ge_trace tr = {0};
	if (trace_path && (st = ge_trace_open(&tr, trace_path, errmsg)) != GC_OK)
		return st;
	gm_tx_result res;
	st = ge_trace_finish(&tr, gm_tx_simulate(&p, &r, 1, trace_path ? &tr : NULL, &res, errmsg),
			     errmsg);
	if (st != GC_OK)
		return st;
	gm_tx_format_walk(&p, &r, &res, bytes, timeline || gc_config_bool(cfg, "explain.timeline"), o);
	return GC_OK;
}

gc_status gm_tx_study_run(gc_config *cfg, const char *trace_path, bool timeline, void *gs,
			  char **errmsg)
{
	GString *o = gs;
	const char *vary = gc_config_str(cfg, "explain.vary");
	if (!vary || !*vary)
		return run_once(cfg, trace_path, timeline, o, errmsg);
	const char *eq = strchr(vary, '=');
	if (!eq || eq == vary || !eq[1])
		return gc_config_error(cfg, "explain.vary", errmsg, "expected KEY=V1,V2,..., got '%s'", vary);
	char *key = g_strndup(vary, (gsize)(eq - vary));
	char **vals = g_strsplit(eq + 1, ",", -1);
	gc_status st = GC_OK;
	for (char **v = vals; st == GC_OK && *v; v++) {
		char *set = g_strdup_printf("%s=%s", key, *v);
		st = gc_config_set(cfg, set, errmsg);
		g_free(set);
		if (st != GC_OK)
			break;
		g_string_append_printf(o, "%s# %s=%s\n", v == vals ? "" : "\n", key, *v);
		/* a trace, if asked for, shows the last variant */
		st = run_once(cfg, v[1] ? NULL : trace_path, timeline, o, errmsg);
	}
	g_strfreev(vals);
	g_free(key);
	return st;
}
