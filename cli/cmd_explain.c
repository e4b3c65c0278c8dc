/* SPDX-License-Identifier: MIT */
/*
 * gcsim explain: teach the communication-type taxonomy with the simulator's
 * own numbers. Alone it lists every type; --path walks one type step by
 * step; --compare tabulates the types of a scope; --scenario runs an explain
 * study from a file; --collective walks a run scenario's collective step by
 * step (gm_walk). Options become configuration values (explain.*), so a
 * scenario file, the options and --set all go through the same typed tables
 * and the same error messages. Output is written only after the whole study
 * succeeded; errors are one line on stderr with status 2 (bad input or a
 * type the platform refuses) or 4 (i/o).
 */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sim/core/gc_units.h"
#include "sim/models/run/gm_run.h"
#include "sim/models/report/gm_report.h"
#include "sim/models/run/gm_scenario.h"
#include "sim/models/transport/gm_tx.h"
#include "sim/models/report/gm_walk.h"
#include "sim/topologies/gt_gpu.h"

static int fail(const char *msg)
{
	fprintf(stderr, "gcsim explain: %s\n", msg);
	return 2;
}

/* --collective FILE: the run scenario's collective at one size (--bytes,
 * or the scenario's first), simulated with every step handed to a walk,
 * then the walk printed. The scenario's comparison and sweep are not
 * walked (a note says so). */
static int explain_collective(const char *file, const char *bytes, char **sets, const gm_walk_opts *wo,
			      const char *trace)
{
	GPtrArray *all = g_ptr_array_new_with_free_func(g_free);
	GString *notes = g_string_new(NULL), *out = NULL;
	gc_config *cfg = NULL;
	gm_run *run = NULL;
	gm_walk *w = NULL;
	char *err = NULL;
	int rc = 2;
	for (char **s = sets; s && *s; s++)
		g_ptr_array_add(all, g_strdup(*s));
	if (bytes)
		g_ptr_array_add(all, g_strdup_printf("collective.sizes=%s", bytes));
	g_ptr_array_add(all, NULL);
	gc_status st = gm_scenario_load(file, (const char *const *)all->pdata, &cfg, &err);
	g_ptr_array_remove_index(all, all->len - 1);
	if (st != GC_OK) {
		fprintf(stderr, "%s\n", err);
		rc = cli_exit_status(st);
		goto out;
	}
	if (!strcmp(gc_config_str(cfg, "workload"), "step")) {
		fprintf(stderr, "gcsim explain: %s is a training step (workload: step); --collective "
				"walks one collective (workload: collective)\n",
			file);
		goto out;
	}
	if (!strcmp(gc_config_str(cfg, "sim.fidelity"), "analytical")) {
		fprintf(stderr, "gcsim explain: --collective: the closed form (sim.fidelity analytical) "
				"has no steps to walk; use sim.fidelity flow or packet\n");
		goto out;
	}
	bool flow = !strcmp(gc_config_str(cfg, "sim.fidelity"), "flow");
	if (!bytes) {
		size_t n;
		const uint64_t *sizes = gc_config_bytes_list(cfg, "collective.sizes", &n);
		g_ptr_array_add(all, g_strdup_printf("collective.sizes=%lluB", (unsigned long long)sizes[0]));
		if (n > 1)
			g_string_append_printf(notes, "# note: the first of the scenario's %zu sizes is "
						      "walked; --bytes picks another\n",
					       n);
	}
	const char *cmp = gc_config_str(cfg, "collective.compare");
	if (strcmp(cmp, "none") != 0) {
		g_ptr_array_add(all, g_strdup("collective.compare=none"));
		g_string_append_printf(notes, "# note: collective.compare (%s) is not walked; --set "
					      "collective.algo=%s walks it\n",
				       cmp, cmp);
	}
	char **grid = cli_scenario_sweep(cfg);
	if (grid)
		g_string_append(notes, "# note: the scenario's sweep is not walked; --set KEY=VALUE "
				       "picks one of its values\n");
	g_strfreev(grid);
	g_ptr_array_add(all, NULL);
	w = gm_walk_new(wo);
	gm_run_opts o = {.sets = (const char *const *)all->pdata,
			 .trace_path = trace,
			 .breakdown = flow,
			 .on_step = gm_walk_on_step,
			 .step_ctx = w};
	st = gm_run_scenario(file, &o, &run, &err);
	if (st != GC_OK) {
		fprintf(stderr, "%s\n", err);
		rc = cli_exit_status(st);
		goto out;
	}
	out = g_string_new(NULL);
	st = gm_walk_format(w, run, out, &err);
	if (st != GC_OK) {
		fprintf(stderr, "gcsim explain: %s\n", err);
		rc = cli_exit_status(st);
		goto out;
	}
	if (!wo->csv)
		g_string_append(out, notes->str);
	fwrite(out->str, 1, out->len, stdout);
	rc = cli_flush_stdout();
out:
	if (out)
		g_string_free(out, TRUE);
	g_string_free(notes, TRUE);
	gm_walk_free(w);
	gm_run_free(run);
	gc_config_free(cfg);
	g_ptr_array_free(all, TRUE);
	g_free(err);
	return rc;
}

/* --transport FILE: one network message of a run scenario's transport
 * (transport.inter), walked through the same stages `gcsim run` sends
 * every such message through (gm_xport), at --bytes (default 8 B), of the
 * kind --variant names (simple, ll, put, signal or amo). The run is only
 * checked, not timed. */
static int explain_transport(const char *file, const char *bytes, const char *variant, char **sets,
			     bool timeline)
{
	GString *out = NULL;
	gm_run *run = NULL;
	char *err = NULL;
	int rc = 2;
	gm_xport_msg k = GM_XM__COUNT;
	for (int i = 0; variant && i < GM_XM__COUNT; i++)
		if (!strcmp(variant, gm_xport_msg_name((gm_xport_msg)i)))
			k = (gm_xport_msg)i;
	if (variant && k == GM_XM__COUNT) {
		err = g_strdup_printf("--variant: a transport's message is simple, ll, put, signal (a put's) or "
				      "amo (a signal on its own); got '%s'",
				      variant);
		rc = fail(err);
		goto out;
	}
	uint64_t b = 8;
	const char *why = NULL;
	if (bytes)
		gc_parse_bytes(bytes, &b, &why); /* checked by the caller */
	gm_run_opts ro = {.sets = (const char *const *)sets, .check_only = true};
	gc_status st = gm_run_scenario(file, &ro, &run, &err);
	if (st != GC_OK) {
		fprintf(stderr, "%s\n", err);
		rc = cli_exit_status(st);
		goto out;
	}
	const gm_xport *x = &run->xport;
	if (x->kind == GM_XPORT_NONE) {
		err = g_strdup_printf("--transport: %s has transport.inter none: its network messages are "
				      "a flow and topology.nic.latency, with no control path to walk; set "
				      "transport.inter (nccl, ibrc, ibgda, gin or auto)",
				      file);
		rc = fail(err);
		goto out;
	}
	if (k == GM_XM__COUNT)
		k = x->kind == GM_XPORT_NCCL ? GM_XM_SEND : x->kind == GM_XPORT_FABRIC ? GM_XM_AMO : GM_XM_SIGNAL;
	gm_tx_recipe rcp;
	gm_tx_result res;
	gm_xport_recipe(x, k, b, &rcp);
	gm_tx_estimate(&x->p, &rcp, &res);
	out = g_string_new(NULL);
	gm_run_format_head(file, run->cfg, &run->topo, out);
	g_string_append_printf(out, "# transport : %s%s (%s message), components of platform %s\n", x->name,
			       x->gin_proxy ? ", CPU-proxy back end" : "", gm_xport_msg_name(k), x->p.platform);
	gm_tx_format_walk(&x->p, &rcp, &res, b, timeline, out);
	g_string_append_printf(out,
			       "# gcsim run sends every network message of this scenario through these "
			       "stages; 2 GPUs on 2 nodes exchanging %llu B (sendrecv) take "
			       "topology.launch_latency + %.3f us\n",
			       (unsigned long long)b, (double)res.latency_ps * 1e-6);
	fputs(out->str, stdout);
	rc = 0;
out:
	if (out)
		g_string_free(out, TRUE);
	gm_run_free(run);
	g_free(err);
	return rc;
}

/* gcsim explain balance: per GPU generation what one GPU computes against
 * what its memory, NVLink and NIC carry (gt_gpu.h), and the tokens per GPU
 * a data-parallel step needs for its compute to hide its gradient
 * allreduce: 6 FLOPs per parameter and token forward and backward against
 * a ring allreduce of BF16 gradients (2 bytes per parameter) sending about
 * twice their bytes through the GPU's NIC, so T >= (2/3) x FLOPS / NIC
 * (at peak; MFU m scales it by m). */
static int explain_balance(bool csv)
{
	size_t n;
	const gt_gpu *g = gt_gpu_all(&n);
	GString *out = g_string_new(NULL);
	if (csv)
		g_string_append(out, "gpu,model,system,bf16_tflops,fp8_tflops,hbm_TBps,hbm_GB,"
				     "nvlink_GBps,nic_GBps,flops_per_hbm_byte,flops_per_nvlink_byte,"
				     "flops_per_nic_byte,dp_tokens_to_hide\n");
	else
		g_string_append(
			out,
			"# machine balance per GPU generation: dense tensor FLOP/s (BF16; V100 FP16)\n"
			"# against the bytes/s of HBM, NVLink and the NIC per GPU (one direction, the\n"
			"# presets' figures), and the tokens per GPU per step a data-parallel step\n"
			"# needs for its compute (6 FLOPs per parameter and token) to hide its\n"
			"# allreduce of BF16 gradients (~2 bytes per gradient byte through the NIC):\n"
			"# tokens >= (2/3) x FLOPS / NIC at peak; at MFU m, m times that\n"
			"#\n"
			"# gpu       model              system       BF16(TF)  FP8(TF)  HBM(TB/s) "
			"HBM(GB)  NVLink(GB/s)  NIC(GB/s)  FLOP/HBM-B  FLOP/NVL-B  FLOP/NIC-B  "
			"DP tokens\n");
	for (size_t i = 0; i < n; i++) {
		const gt_gpu *x = &g[i];
		double tok = 2.0 / 3.0 * x->bf16_flops / x->nic_Bps;
		if (csv)
			g_string_append_printf(out, "%s,%s,%s,%.0f,%.0f,%.2f,%.0f,%.0f,%.2f,%.0f,%.0f,"
						    "%.0f,%.0f\n",
					       x->name, x->model, x->system, x->bf16_flops * 1e-12,
					       x->fp8_flops * 1e-12, x->hbm_Bps * 1e-12,
					       x->hbm_bytes * 1e-9, x->nvlink_Bps * 1e-9,
					       x->nic_Bps * 1e-9, x->bf16_flops / x->hbm_Bps,
					       x->bf16_flops / x->nvlink_Bps, x->bf16_flops / x->nic_Bps,
					       tok);
		else {
			char fp8[24] = "-";
			if (x->fp8_flops > 0)
				snprintf(fp8, sizeof(fp8), "%.0f", x->fp8_flops * 1e-12);
			g_string_append_printf(out,
					       "  %-9s %-18s %-12s %8.0f %8s %10.2f %8.0f %13.0f %10.2f "
					       "%11.0f %11.0f %11.0f %10.0f\n",
					       x->name, x->model, x->system, x->bf16_flops * 1e-12, fp8,
					       x->hbm_Bps * 1e-12, x->hbm_bytes * 1e-9,
					       x->nvlink_Bps * 1e-9, x->nic_Bps * 1e-9,
					       x->bf16_flops / x->hbm_Bps, x->bf16_flops / x->nvlink_Bps,
					       x->bf16_flops / x->nic_Bps, tok);
		}
	}
	if (!csv)
		g_string_append(out, "# sources: NVIDIA datasheets (sim/topologies/gt_gpu.c); a step's "
				     "compute takes its preset's GPU (train.gpu)\n");
	fwrite(out->str, 1, out->len, stdout);
	g_string_free(out, TRUE);
	return cli_flush_stdout();
}

int cli_explain(int argc, char **argv)
{
	char *path = NULL, *variant = NULL, *bytes = NULL, *platform = NULL, *compare = NULL;
	char *format = NULL, *trace = NULL, *scenario = NULL, *sweep = NULL, *collective = NULL;
	char *bench = NULL, *transport = NULL;
	char **sets = NULL;
	gint64 messages = -1, rank = -1, strand = -1, steps = -1, ctas = -1, iters = -1;
	gboolean timeline = FALSE;
	GOptionEntry entries[] = {
		{"path", 'p', 0, G_OPTION_ARG_STRING, &path,
		 "walk one type: intra:1..4, inter:1..5 or roundtrip", "TYPE"},
		{"variant", 'v', 0, G_OPTION_ARG_STRING, &variant,
		 "variant of the type (inter:3: cpu or proxy; intra:2: ce or kernel)", "V"},
		{"bytes", 'b', 0, G_OPTION_ARG_STRING, &bytes, "payload per message (default 8B); collective: its size", "SIZE"},
		{"platform", 0, 0, G_OPTION_ARG_STRING, &platform, "dgx-h100 (default), dgx-a100, p5 or p4d", "P"},
		{"compare", 'c', 0, G_OPTION_ARG_STRING, &compare, "compare the intra or inter types", "SCOPE"},
		{"format", 'f', 0, G_OPTION_ARG_STRING, &format, "compare or collective output: table (default) or csv", "FMT"},
		{"messages", 'm', 0, G_OPTION_ARG_INT64, &messages,
		 "compare: add the sustained rate of K back-to-back messages", "K"},
		{"bench", 0, 0, G_OPTION_ARG_STRING, &bench,
		 "compare inter: stream (default; --messages) or put-bw (NVSHMEM shmem_put_bw's loop)", "B"},
		{"ctas", 0, 0, G_OPTION_ARG_INT64, &ctas, "put-bw: CTAs of the kernel (default 32, as perftest)", "N"},
		{"iters", 0, 0, G_OPTION_ARG_INT64, &iters,
		 "put-bw: timed iterations (default 10, as perftest; at most 1024)", "N"},
		{"timeline", 0, 0, G_OPTION_ARG_NONE, &timeline, "path, collective: add an ASCII timeline", NULL},
		{"trace", 't', 0, G_OPTION_ARG_FILENAME, &trace,
		 "path: write a Perfetto trace, one track per component (collective: the run's trace; put-bw: each type's loop)", "FILE"},
		{"scenario", 0, 0, G_OPTION_ARG_FILENAME, &scenario, "run the explain study of a scenario file", "FILE"},
		{"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
		 "override a parameter, e.g. --set proxy.flag_read=gdrcopy (repeatable)", "KEY=VALUE"},
		{"sweep", 0, 0, G_OPTION_ARG_STRING, &sweep,
		 "repeat the study once per value of one key (explain.vary), e.g. --sweep "
		 "explain.bytes=8B,512B,4KiB", "KEY=V1,V2,..."},
		{"collective", 0, 0, G_OPTION_ARG_FILENAME, &collective,
		 "walk the collective of a run scenario step by step at one size (--bytes, default its "
		 "first)", "FILE"},
		{"transport", 0, 0, G_OPTION_ARG_FILENAME, &transport,
		 "walk one network message of a run scenario's transport (transport.inter) through the "
		 "stages gcsim run uses; --variant simple, ll, put, signal or amo; --bytes", "FILE"},
		{"rank", 0, 0, G_OPTION_ARG_INT64, &rank, "collective: the rank whose steps are listed (default 0)",
		 "N"},
		{"strand", 0, 0, G_OPTION_ARG_INT64, &strand,
		 "collective: its strand listed, one per channel or more (default 0)", "N"},
		{"steps", 0, 0, G_OPTION_ARG_INT64, &steps,
		 "collective: steps listed, the first and the last (default 40; 0: all)", "N"},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	int done, rc = cli_parse(&argc, &argv, "",
				 "Explain the communication types of Unat et al. (intra-node 1-4,\n"
				 "inter-node 1-5) as paths through GPUs, PCIe, host, CPU proxy, NIC and wire.\n"
				 "Without options, list the types. Examples:\n"
				 "  gcsim explain --path inter:3 --variant proxy --bytes 8\n"
				 "  gcsim explain --compare inter --bytes 512 --messages 20000\n"
				 "  gcsim explain --compare inter --bytes 512 --bench put-bw --platform dgx-a100\n"
				 "  gcsim explain --path inter:5 --platform p5   (refused: no GPUDirect Async)\n"
				 "A collective step by step (each step's peers, bytes, and its time waiting\n"
				 "for data, for room at the receiver, and moving; --timeline draws the ranks):\n"
				 "  gcsim explain --collective scenarios/dgx-h100-allreduce.yaml --bytes 1MiB\n"
				 "One network message of a run scenario's transport, as gcsim run sends it:\n"
				 "  gcsim explain --transport scenarios/transport-sendrecv.yaml --timeline\n"
				 "Machine balance per GPU generation (FLOPS per byte of HBM, NVLink, NIC):\n"
				 "  gcsim explain balance",
				 entries, &done);
	gc_config *cfg = NULL;
	GString *out = NULL;
	char *err = NULL;
	GPtrArray *all = g_ptr_array_new_with_free_func(g_free);
	if (done)
		goto out;
	rc = 2;
	if (argc == 2 && !strcmp(argv[1], "balance")) {
		if (path || compare || collective || transport || scenario || platform || variant ||
		    bytes || sweep || bench || sets || trace || timeline || messages != -1 ||
		    rank != -1 || strand != -1 || steps != -1 || ctas != -1 || iters != -1) {
			fprintf(stderr, "gcsim explain balance: takes --format only\n");
			goto out;
		}
		if (format && strcmp(format, "csv") && strcmp(format, "table")) {
			fprintf(stderr, "gcsim explain balance: --format: expected table or csv, got "
					"'%s'\n",
				format);
			goto out;
		}
		rc = explain_balance(format && !strcmp(format, "csv"));
		goto out;
	}
	if (argc != 1) {
		fprintf(stderr, "gcsim explain: unexpected argument '%s' (see --help)\n", argv[1]);
		goto out;
	}
	if (path && compare) {
		rc = fail("--path and --compare exclude each other");
		goto out;
	}
	if (collective && (path || compare || scenario || platform || variant || messages != -1 || sweep ||
			   bench || ctas != -1 || iters != -1)) {
		rc = fail("--collective walks a run scenario; --path, --compare, --scenario, --platform, "
			  "--variant, --messages, --bench, --ctas, --iters and --sweep explain the "
			  "communication types");
		goto out;
	}
	if (transport && (collective || path || compare || scenario || platform || messages != -1 ||
			  sweep || bench || ctas != -1 || iters != -1 || trace)) {
		rc = fail("--transport walks a run scenario's transport; --collective, --path, --compare, "
			  "--scenario, --platform, --messages, --bench, --ctas, --iters, --sweep and --trace "
			  "do other things");
		goto out;
	}
	if (!collective && (rank != -1 || strand != -1 || steps != -1)) {
		rc = fail("--rank, --strand and --steps need --collective");
		goto out;
	}
	if (rank < -1 || strand < -1 || steps < -1 || rank > UINT32_MAX || strand > UINT32_MAX) {
		rc = fail("--rank, --strand and --steps: expected a non-negative integer");
		goto out;
	}
	if (compare && strcmp(compare, "intra") && strcmp(compare, "inter")) {
		err = g_strdup_printf("--compare: expected intra or inter, got '%s'", compare);
		rc = fail(err);
		goto out;
	}
	if (format && strcmp(format, "csv") && strcmp(format, "table")) {
		err = g_strdup_printf("--format: expected table or csv, got '%s'", format);
		rc = fail(err);
		goto out;
	}
	if (platform && !gm_tx_platform_summary(platform)) {
		char **alts = g_strsplit(gm_tx_platform_choices(), "|", -1);
		char *list = g_strjoinv(", ", alts);
		err = g_strdup_printf("--platform: expected one of %s; got '%s'", list, platform);
		g_free(list);
		g_strfreev(alts);
		rc = fail(err);
		goto out;
	}
	if (bytes) {
		uint64_t b;
		const char *why = NULL;
		if (gc_parse_bytes(bytes, &b, &why) != GC_OK || b == 0) {
			err = g_strdup_printf("--bytes: expected a positive size such as 8B, 4KiB or 1GiB, got '%s'",
					      bytes);
			rc = fail(err);
			goto out;
		}
	}
	if (messages != -1 && (messages < 1 || messages > GM_TX_MAX_MESSAGES)) {
		err = g_strdup_printf("--messages: expected 1 to %d, got %lld", GM_TX_MAX_MESSAGES,
				      (long long)messages);
		rc = fail(err);
		goto out;
	}
	if (messages != -1 && !compare && !scenario) {
		rc = fail("--messages needs --compare");
		goto out;
	}
	if ((bench || ctas != -1 || iters != -1) && !compare && !scenario) {
		rc = fail("--bench, --ctas and --iters need --compare inter");
		goto out;
	}
	if (bench && strcmp(bench, "stream") && strcmp(bench, "put-bw")) {
		err = g_strdup_printf("--bench: expected stream or put-bw, got '%s'", bench);
		rc = fail(err);
		goto out;
	}
	if (ctas != -1 && (ctas < 1 || ctas > 4096)) {
		err = g_strdup_printf("--ctas: expected 1 to 4096, got %lld", (long long)ctas);
		rc = fail(err);
		goto out;
	}
	if (iters != -1 && (iters < 1 || iters > GM_TX_LOOP_MAX_ITERS)) {
		err = g_strdup_printf("--iters: expected 1 to %d, got %lld", GM_TX_LOOP_MAX_ITERS, (long long)iters);
		rc = fail(err);
		goto out;
	}
	if (transport) {
		rc = explain_transport(transport, bytes, variant, sets, timeline);
		goto out;
	}
	if ((variant || timeline) && !path && !scenario && !collective) {
		rc = fail("--variant and --timeline need --path (or --collective)");
		goto out;
	}
	/* a compare's trace is put-bw's loops (run_once checks the bench,
	 * which a scenario file may set) */
	if (trace && !path && !scenario && !collective && !compare) {
		rc = fail("--trace needs --path, --collective or --compare inter --bench put-bw");
		goto out;
	}
	if (collective) {
		gm_walk_opts wo = {.rank = rank < 0 ? 0 : (uint32_t)rank,
				   .strand = strand < 0 ? 0 : (uint32_t)strand,
				   .max_rows = steps < 0 ? 40 : (size_t)steps,
				   .timeline = timeline,
				   .csv = format && !strcmp(format, "csv")};
		rc = explain_collective(collective, bytes, sets, &wo, trace);
		goto out;
	}
	if (path)
		g_ptr_array_add(all, g_strdup_printf("explain.mode=path"));
	if (compare)
		g_ptr_array_add(all, g_strdup_printf("explain.mode=compare"));
	if (path)
		g_ptr_array_add(all, g_strdup_printf("explain.path=%s", path));
	if (variant)
		g_ptr_array_add(all, g_strdup_printf("explain.variant=%s", variant));
	if (compare)
		g_ptr_array_add(all, g_strdup_printf("explain.scope=%s", compare));
	if (bytes)
		g_ptr_array_add(all, g_strdup_printf("explain.bytes=%s", bytes));
	if (platform)
		g_ptr_array_add(all, g_strdup_printf("explain.platform=%s", platform));
	if (format)
		g_ptr_array_add(all, g_strdup_printf("explain.format=%s", format));
	if (messages != -1)
		g_ptr_array_add(all, g_strdup_printf("explain.messages=%lld", (long long)messages));
	if (bench)
		g_ptr_array_add(all, g_strdup_printf("explain.bench=%s", bench));
	if (ctas != -1)
		g_ptr_array_add(all, g_strdup_printf("explain.ctas=%lld", (long long)ctas));
	if (iters != -1)
		g_ptr_array_add(all, g_strdup_printf("explain.iters=%lld", (long long)iters));
	for (char **s = sets; s && *s; s++)
		g_ptr_array_add(all, g_strdup(*s));
	if (sweep)
		g_ptr_array_add(all, g_strdup_printf("explain.vary=%s", sweep));

	cfg = gm_scenario_config_new();
	gm_tx_register_study_params(cfg);
	gc_status st = GC_OK;
	if (scenario) {
		st = gc_config_load_file(cfg, scenario, &err);
		if (st == GC_OK)
			st = gc_config_require(cfg, "schema_version", &err);
		/* --path, --compare and --set explain.mode= are all in `all` by now */
		bool mode_given = false;
		for (guint i = 0; i < all->len; i++)
			mode_given = mode_given || g_str_has_prefix(all->pdata[i], "explain.mode=");
		if (st == GC_OK)
			st = gm_tx_study_check_file(cfg, scenario, mode_given, &err);
		if (st == GC_ERR_IO)
			st = GC_ERR_INPUT;
	}
	for (guint i = 0; st == GC_OK && i < all->len; i++)
		st = gc_config_set(cfg, all->pdata[i], &err);
	out = g_string_new(NULL);
	if (st == GC_OK)
		st = gm_tx_study_run(cfg, trace, timeline, out, &err);
	if (st != GC_OK) {
		fprintf(stderr, "gcsim explain: %s\n", err ? err : "failed");
		rc = cli_exit_status(st);
		goto out;
	}
	fwrite(out->str, 1, out->len, stdout);
	rc = cli_flush_stdout();
out:
	if (out)
		g_string_free(out, TRUE);
	gc_config_free(cfg);
	g_ptr_array_free(all, TRUE);
	g_free(err);
	g_free(path);
	g_free(variant);
	g_free(bytes);
	g_free(platform);
	g_free(transport);
	g_free(compare);
	g_free(format);
	g_free(trace);
	g_free(scenario);
	g_free(sweep);
	g_free(collective);
	g_free(bench);
	g_strfreev(sets);
	return rc;
}
