/* SPDX-License-Identifier: MIT */
/*
 * gcsim hw: run the CUDA/RDMA microbenchmarks and the schedule interpreter
 * on this machine's GPUs, store measurements, fit calibration parameters.
 *
 * Every failure prints one line and returns a distinct status: 3 when no
 * usable GPU, RDMA device or NCCL library (or no CUDA / rdma-core in this
 * build), 2 for bad input, 4 for i/o. A command that fails before
 * measuring writes no file; `bench` and `interp` failing part way still
 * store the points measured before the failure (and keep the failure's
 * status), so one broken measurement does not discard the others.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "hw/gh_bench.h"
#include "hw/gh_calib.h"
#include "hw/gh_device.h"
#include "hw/gh_interp.h"
#include "hw/gh_nccl.h"
#include "hw/gh_stats.h"
#include "hw/gh_vrank.h"
#include "hw/gh_verbs.h"
#include "sim/core/gc_outfile.h"
#include "sim/core/gc_results.h"
#include "sim/core/gc_units.h"
#include "sim/models/run/gm_scenario.h"
#include "sim/models/transport/gm_tx.h"
#include "validate/gv_validate.h"

static int exit_of(gc_status st)
{
	switch (st) {
	case GC_OK: return 0;
	case GC_ERR_INPUT: return 2;
	case GC_ERR_NODEV: return 3;
	case GC_ERR_IO: return 4;
	case GC_ERR_UNSUPPORTED: return 3;
	case GC_ERR_NOMEM: return 7;
	default: return 1;
	}
}

static int fail(const char *sub, gc_status st, const char *msg)
{
	fprintf(stderr, "gcsim hw %s: %s\n", sub, msg);
	return exit_of(st);
}

static char *command_line(int argc, char **argv)
{
	GString *g = g_string_new("gcsim hw");
	for (int i = 0; i < argc; i++)
		g_string_append_printf(g, " %s", argv[i]);
	return g_string_free(g, FALSE);
}

static gc_status describe_dev(int dev, char *buf, size_t n, char *why)
{
	gh_dev_info d;
	gc_status st = gh_cuda_dev_info(dev, &d, why);
	if (st == GC_OK)
		gh_device_describe(&d, buf, n);
	return st;
}

/* Stores pts as one 'hw' run in a results file and/or a CSV. */
static int save_points(const char *sub, const char *db, const char *csv, const gc_run_info *info,
		       GArray *pts)
{
	char *err = NULL;
	gc_status st = GC_OK;
	if (db) {
		gc_results *r = NULL;
		int64_t id = 0;
		st = gc_results_open(db, true, &r, &err);
		if (st == GC_OK)
			st = gc_results_begin(r, &err);
		if (st == GC_OK)
			st = gc_results_insert_run(r, info, &id, &err);
		for (guint i = 0; st == GC_OK && i < pts->len; i++)
			st = gc_results_insert_point(r, id, &g_array_index(pts, gc_result_point, i), &err);
		if (st == GC_OK)
			st = gc_results_commit(r, &err);
		if (st == GC_OK)
			gc_results_close(r);
		else /* a file this call created goes */
			gc_results_discard(r);
	}
	if (st == GC_OK && csv) {
		gc_outfile o;
		st = gc_outfile_open(&o, csv, "the measurements", &err);
		if (st == GC_OK) {
			/* a write error stays on the stream: the commit names it */
			gc_results_write_csv(o.f, info, (gc_result_point *)(void *)pts->data, pts->len);
			st = gc_outfile_commit(&o, &err);
		}
	}
	int rc = st == GC_OK ? 0 : fail(sub, st, err);
	g_free(err);
	return rc;
}

/* --out and --csv, refused before anything is measured where they could
 * not be written: 0, or the exit status after one line. */
static int check_saves(const char *sub, const char *db, const char *csv)
{
	char *err = NULL;
	gc_status st = db ? gc_results_check_writable(db, &err) : GC_OK;
	if (st == GC_OK && csv)
		st = gc_outfile_check(csv, "the measurements", &err);
	int rc = st == GC_OK ? 0 : fail(sub, st, err);
	g_free(err);
	return rc;
}

/* The options that store a subcommand's measurements (entries of its
 * GOptionEntry table). */
#define HW_SAVE_ENTRIES(out, csv)                                                                  \
	{"out", 'o', 0, G_OPTION_ARG_FILENAME, &(out),                                             \
	 "append the measurements to a results SQLite file", "FILE"},                              \
	{"csv", 0, 0, G_OPTION_ARG_FILENAME, &(csv), "also write them as CSV", "FILE"}

/* The GPU `dev` of this machine, described into desc (n bytes). */
static gc_status pick_gpu(int dev, char *desc, size_t n, char *why)
{
	int ndev = 0;
	gc_status st = gh_cuda_probe(&ndev, why);
	if (st == GC_OK && (dev < 0 || dev >= ndev)) {
		snprintf(why, GH_WHY, "--device %d: this machine has %d GPU(s)", dev, ndev);
		st = GC_ERR_INPUT;
	}
	if (st == GC_OK)
		st = describe_dev(dev, desc, n, why);
	return st;
}

static void print_points(GArray *pts)
{
	printf("# %-14s %-10s %6s %14s %12s %12s %12s %10s %10s\n", "path", "algo", "ranks", "size",
	       "median_us", "min_us", "p99_us", "algbw", "busbw");
	for (guint i = 0; i < pts->len; i++) {
		gc_result_point *p = &g_array_index(pts, gc_result_point, i);
		printf("  %-14s %-10s %6d %14" G_GUINT64_FORMAT " %12.3f %12.3f %12.3f %10.2f %10.2f\n",
		       p->collective, p->algo, p->nranks, p->size_bytes, p->median_us, p->min_us,
		       p->p99_us, isfinite(p->algbw_GBps) ? p->algbw_GBps : 0.0,
		       isfinite(p->busbw_GBps) ? p->busbw_GBps : 0.0);
	}
}

/* Prints notes (when given) and the points, then stores them as one 'hw'
 * run; the exit status. */
static int show_and_save(const char *sub, const char *label, const char *device, const char *cmd,
			 const char *out, const char *csv, const GString *notes, GArray *pts)
{
	if (notes)
		fwrite(notes->str, 1, notes->len, stdout);
	print_points(pts);
	gc_run_info info = {.kind = "hw", .label = label, .device = device, .command = cmd};
	return save_points(sub, out, csv, &info, pts);
}

static int hw_info(int argc, char **argv)
{
	GOptionEntry entries[] = {{NULL, 0, 0, 0, NULL, NULL, NULL}};
	int done, rc = cli_parse(&argc, &argv, "",
				 "Describe this machine's GPUs (name, SMs, memory, PCIe link, P2P peers,\n"
				 "driver and runtime) and RDMA devices. Exit 3 when no GPU is usable.",
				 entries, &done);
	if (done)
		return rc;
	char why[GH_WHY];
	GString *g = g_string_new(NULL);
	gc_status st = gh_device_report(g, why);
	if (st != GC_OK) {
		g_string_free(g, TRUE);
		return fail("info", st, why);
	}
	int nrdma = 0;
	if (gh_verbs_probe(g, &nrdma, why) != GC_OK)
		g_string_append_printf(g, "RDMA: %s\n", why);
	fwrite(g->str, 1, g->len, stdout);
	g_string_free(g, TRUE);
	return cli_flush_stdout();
}

static int hw_bench(int argc, char **argv)
{
	char *out = NULL, *csv = NULL;
	gboolean quick = FALSE;
	gint dev = 0;
	GOptionEntry entries[] = {
		HW_SAVE_ENTRIES(out, csv),
		{"quick", 'q', 0, G_OPTION_ARG_NONE, &quick, "fewer sizes and iterations", NULL},
		{"device", 'd', 0, G_OPTION_ARG_INT, &dev, "GPU index (default 0)", "N"},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	char *cmd = command_line(argc, argv);
	int done, rc = cli_parse(&argc, &argv, "",
				 "Run the microbenchmarks: kernel launch, cudaMemcpy H2D/D2H/D2D from 8 B\n"
				 "to 1 GiB, copy-engine vs SM HBM copy, host-pinned flag ping-pong, the\n"
				 "CPU-proxy round trip and, with two GPUs, P2P copies.",
				 entries, &done);
	char why[GH_WHY] = "";
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	if (done || (rc = check_saves("bench", out, csv)) != 0)
		goto out;
	char desc[512];
	gc_status st = pick_gpu(dev, desc, sizeof(desc), why);
	gh_bench_opts o;
	gh_bench_opts_default(&o, quick);
	o.dev = dev;
	if (st == GC_OK)
		st = gh_bench_micro(&o, pts, why);
	if (st != GC_OK) {
		rc = fail("bench", st, why);
		if (pts->len > 0)
			show_and_save("bench", quick ? "bench-quick" : "bench", desc, cmd, out, csv, NULL, pts);
		goto out;
	}
	rc = show_and_save("bench", quick ? "bench-quick" : "bench", desc, cmd, out, csv, NULL, pts);
out:
	g_array_free(pts, TRUE);
	g_free(out);
	g_free(csv);
	g_free(cmd);
	return rc;
}

static gc_status parse_enum(const char *v, const char *const *names, int n, int *out)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i])) {
			*out = i;
			return GC_OK;
		}
	return GC_ERR_INPUT;
}

/* One size of `gcsim hw interp --predict`: the schedule the interpreter
 * would run, timed by the virtual-rank model (hw/gh_vrank.h). */
static gc_status predict_point(const gh_vrank_model *m, const gs_params *p, GArray *pts, char *why)
{
	gs_sched *s = NULL;
	gh_interp_plan plan;
	gh_vrank_path r;
	char *err = NULL;
	uint64_t s_bytes = 0; /* the size as the generator settled it, as a measured run records */
	gc_status st = gh_vrank_plan(p, &s, &plan, &err);
	if (st == GC_OK) {
		s_bytes = s->p.bytes;
		st = gh_vrank_time(&plan, m, &r, &err);
		gh_interp_plan_clear(&plan);
		gs_sched_free(s);
	}
	if (st != GC_OK) {
		snprintf(why, GH_WHY, "%s %s, %d ranks: %s", gs_algo_name(p->algo), gs_coll_name(p->coll),
			 p->nranks, err ? err : "no model");
		g_free(err);
		return st;
	}
	gc_result_point pt;
	gh_bench_coll_point(&pt, p, s_bytes, &r.time_us, 1);
	g_array_append_val(pts, pt);
	return GC_OK;
}

static int hw_interp(int argc, char **argv)
{
	char *op = NULL, *algo = NULL, *sizes = NULL, *dtype = NULL, *out = NULL, *csv = NULL;
	char *predict = NULL, *kernel = NULL, *proto = NULL;
	gint ranks = 0, channels = 0, dev = 0, iters = 20, gpus = 0, nodes = 1, blocks = 0;
	gint tokens = 128, topk = 8, experts = 256;
	GOptionEntry entries[] = {
		{"ranks", 'n', 0, G_OPTION_ARG_INT, &ranks, "virtual ranks on one GPU (default 4)", "N"},
		{"gpus", 'g', 0, G_OPTION_ARG_INT, &gpus,
		 "one rank per GPU on GPUs 0..N-1 instead of virtual ranks (N >= 2, peer access between "
		 "every pair)", "N"},
		{"nodes", 0, 0, G_OPTION_ARG_INT, &nodes,
		 "split the ranks into N nodes of consecutive ranks (tree: a chain in each, a tree "
		 "between them; nvlstree: N >= 2, a switch per node; default 1)", "N"},
		{"op", 0, 0, G_OPTION_ARG_STRING, &op,
		 "allreduce (default), allgather, reducescatter, alltoall, dispatch or combine (MoE), broadcast or reduce (root 0)", "OP"},
		{"tokens", 0, 0, G_OPTION_ARG_INT, &tokens, "dispatch/combine: tokens per rank (default 128)", "T"},
		{"topk", 0, 0, G_OPTION_ARG_INT, &topk, "dispatch/combine: experts per token (default 8)", "K"},
		{"experts", 0, 0, G_OPTION_ARG_INT, &experts,
		 "dispatch/combine: experts, a multiple of the ranks (default 256)", "E"},
		{"algo", 0, 0, G_OPTION_ARG_STRING, &algo,
		 "ring (default), tree, nvlstree, collnet or collnetchain (allreduce; the network "
		 "switch of collnet and collnetchain is virtual ranks too), nvls (allreduce, allgather, reducescatter), bruck and pat "
		 "(allgather, reducescatter), pairwise (alltoall default) "
		 "or put (alltoall; dispatch and combine default), forward (dispatch and combine: "
		 "DeepEP's normal kernels, forwarding between the --nodes), garden (dispatch and "
		 "combine: pplx-garden's one range per rank, packed and unpacked in a scratch buffer)",
		 "ALGO"},
		{"sizes", 0, 0, G_OPTION_ARG_STRING, &sizes,
		 "comma-separated sizes (default 1KiB,64KiB,1MiB,16MiB; dispatch 7408B, combine 14352B: "
		 "one token-expert message)", "LIST"},
		{"dtype", 0, 0, G_OPTION_ARG_STRING, &dtype, "float (default), int32, double", "T"},
		{"channels", 'c', 0, G_OPTION_ARG_INT, &channels, "channels (default 1; dispatch/combine 4)", "N"},
		{"iters", 0, 0, G_OPTION_ARG_INT, &iters, "timed iterations (default 20)", "N"},
		{"device", 'd', 0, G_OPTION_ARG_INT, &dev, "GPU index (default 0)", "N"},
		{"out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "append to a results SQLite file", "FILE"},
		{"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv, "also write CSV", "FILE"},
		{"kernel", 0, 0, G_OPTION_ARG_STRING, &kernel,
		 "vector (default): a block moves and reduces 16-byte vectors, 4 in flight per thread, "
		 "as NCCL's primitives do; pipe: the same vectors, half the block's warps loading a "
		 "round into shared memory while the other half reduce and store the previous one; "
		 "scalar: one element per thread per pass (the first interpreter's, to measure the "
		 "difference)", "K"},
		{"protocol", 0, 0, G_OPTION_ARG_STRING, &proto,
		 "how messages above 8 KiB travel (those up to it are LL lines either way): simple "
		 "(default: slots read after the sender's counter says they are full) or ll128 "
		 "(NCCL's LL128 lines: 120 data bytes and a flag per 128, no fence, no counter wait)",
		 "P"},
		{"blocks", 0, 0, G_OPTION_ARG_INT, &blocks,
		 "thread blocks per strand, 1..16 (default 1): each moves its share of every piece "
		 "through counters of its own", "N"},
		{"predict", 0, 0, G_OPTION_ARG_FILENAME, &predict,
		 "no GPU: predict the times with the virtual-rank model of a calibration (gcsim hw "
		 "calibrate's NAME.yaml, calibration.virtual_rank)", "CAL"},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	char *cmd = command_line(argc, argv);
	int done, rc = cli_parse(&argc, &argv, "",
				 "Run a collective's schedule on one GPU with N virtual ranks (own buffers,\n"
				 "own mailboxes), or with --gpus N one rank per GPU over peer access, check\n"
				 "every output element, and time it. With --predict CAL, time the same\n"
				 "schedule with the calibrated model of the virtual ranks instead (no GPU).",
				 entries, &done);
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	char why[2 * GH_WHY] = ""; /* --predict's refusal names two paths and a command */
	char **sz = NULL;
	if (done || (rc = check_saves("interp", out, csv)) != 0)
		goto out;
	static const char *const colls[] = {"allreduce", "allgather", "reducescatter", "alltoall",
					    "dispatch",	 "combine",   "broadcast",     "reduce"};
	static const gs_coll collv[] = {GS_COLL_ALLREDUCE, GS_COLL_ALLGATHER, GS_COLL_REDUCESCATTER,
					GS_COLL_ALLTOALL,  GS_COLL_DISPATCH,  GS_COLL_COMBINE,
					GS_COLL_BROADCAST, GS_COLL_REDUCE};
	static const char *const algos[] = {"ring", "tree",	"pairwise", "put",
					    "nvls", "nvlstree", "bruck",    "collnet", "forward", "pat",
					    "collnetchain", "garden"};
	static const gs_algo algov[] = {GS_ALGO_RING, GS_ALGO_TREE,	 GS_ALGO_PAIRWISE,
					GS_ALGO_PUT,  GS_ALGO_NVLS,	 GS_ALGO_NVLS_TREE,
					GS_ALGO_BRUCK, GS_ALGO_COLLNET, GS_ALGO_FORWARD, GS_ALGO_PAT,
					GS_ALGO_COLLNET_CHAIN, GS_ALGO_GARDEN};
	static const char *const dts[] = {"float", "int32", "double"};
	static const gs_dtype dtv[] = {GS_DT_F32, GS_DT_I32, GS_DT_F64};
	int c = 0, a = 0, t = 0;
	gc_status st = GC_OK;
	if (op && parse_enum(op, colls, 8, &c) != GC_OK)
		snprintf(why, sizeof(why), "--op: expected allreduce, allgather, reducescatter, alltoall, dispatch, combine, broadcast or reduce, got '%s'", op), st = GC_ERR_INPUT;
	else if (algo && parse_enum(algo, algos, 12, &a) != GC_OK)
		snprintf(why, sizeof(why), "--algo: expected ring, tree, pairwise, put, nvls, nvlstree, bruck, collnet, collnetchain, forward, garden or pat, got '%s'", algo), st = GC_ERR_INPUT;
	if (st == GC_OK && !algo && collv[c] == GS_COLL_ALLTOALL)
		a = 2; /* alltoall has no ring: NCCL's pairwise exchange by default */
	if (st == GC_OK && !algo && gs_coll_is_moe(collv[c]))
		a = 3; /* put: one-sided, GPU-initiated */
	static const char *const kernels[] = {"vector", "scalar", "pipe"};
	int kern = GH_KERNEL_VECTOR;
	static const char *const protos[] = {"simple", "ll128"};
	int prt = GH_PROTO_SIMPLE;
	if (st != GC_OK)
		;
	else if (kernel && parse_enum(kernel, kernels, 3, &kern) != GC_OK)
		snprintf(why, sizeof(why), "--kernel: expected vector, scalar or pipe, got '%s'", kernel), st = GC_ERR_INPUT;
	else if ((kernel || proto || blocks) && predict)
		snprintf(why, sizeof(why), "--%s: --predict models the interpreter as its calibration recorded it; leave it out",
			 kernel ? "kernel" : proto ? "protocol" : "blocks"), st = GC_ERR_INPUT;
	else if (proto && parse_enum(proto, protos, 2, &prt) != GC_OK)
		snprintf(why, sizeof(why), "--protocol: expected simple or ll128, got '%s'", proto), st = GC_ERR_INPUT;
	else if (blocks && (blocks < 1 || blocks > GH_MAX_BLOCKS))
		snprintf(why, sizeof(why), "--blocks: expected 1..%d, got %d", GH_MAX_BLOCKS, blocks), st = GC_ERR_INPUT;
	else if (dtype && parse_enum(dtype, dts, 3, &t) != GC_OK)
		snprintf(why, sizeof(why), "--dtype: expected float, int32 or double, got '%s'", dtype), st = GC_ERR_INPUT;
	else if (gpus && (gpus < 2 || gpus > GH_MAX_GPUS))
		snprintf(why, sizeof(why), "--gpus: expected 2..%d, got %d", GH_MAX_GPUS, gpus), st = GC_ERR_INPUT;
	else if (gpus && ranks && ranks != gpus)
		snprintf(why, sizeof(why), "--ranks %d with --gpus %d: one rank per GPU (leave --ranks out)", ranks, gpus), st = GC_ERR_INPUT;
	else if (gpus && dev)
		snprintf(why, sizeof(why), "--device with --gpus: --gpus N uses GPUs 0..N-1"), st = GC_ERR_INPUT;
	if (!ranks)
		ranks = gpus ? gpus : 4;
	const bool moe = gs_coll_is_moe(collv[c]);
	if (!channels)
		channels = moe ? 4 : 1;
	if (st == GC_OK && moe && (tokens < 1 || topk < 1 || experts < topk || experts % ranks != 0))
		snprintf(why, sizeof(why), "--tokens >= 1, 1 <= --topk <= --experts, and --experts a multiple of the %d ranks", ranks), st = GC_ERR_INPUT;
	if (st == GC_OK && (ranks < 1 || ranks > 1024 || channels < 1 || channels > 64 || iters < 1 || iters > 10000))
		snprintf(why, sizeof(why), "--ranks 1..1024, --channels 1..64, --iters 1..10000"), st = GC_ERR_INPUT;
	else if (st == GC_OK && (nodes < 1 || ranks % nodes != 0))
		snprintf(why, sizeof(why), "--nodes %d: expected a divisor of the %d ranks", nodes, ranks), st = GC_ERR_INPUT;
	else if (st == GC_OK && algov[a] == GS_ALGO_NVLS_TREE && (nodes < 2 || ranks / nodes < 2))
		snprintf(why, sizeof(why), "--algo nvlstree: expected --nodes >= 2 with >= 2 ranks each (one node: nvls)"), st = GC_ERR_INPUT;
	else if (st == GC_OK && (algov[a] == GS_ALGO_COLLNET || algov[a] == GS_ALGO_COLLNET_CHAIN) && nodes < 2)
		snprintf(why, sizeof(why), "--algo %s joins nodes through the network's switch: expected --nodes >= 2", algos[a]), st = GC_ERR_INPUT;
	else if (st == GC_OK && algov[a] == GS_ALGO_NVLS && nodes > 1 && ranks / nodes < 2)
		snprintf(why, sizeof(why), "--algo nvls across --nodes (the network's switch as virtual ranks) needs >= 2 ranks per node"), st = GC_ERR_INPUT;
	sz = g_strsplit(sizes ? sizes
			      : !moe ? "1KiB,64KiB,1MiB,16MiB"
			      : collv[c] == GS_COLL_DISPATCH ? "7408B" : "14352B",
			",", -1);
	uint64_t list[64];
	int nsz = 0;
	for (char **s = sz; st == GC_OK && *s; s++) {
		const char *w = NULL;
		if (nsz == 64 || gc_parse_bytes(g_strstrip(*s), &list[nsz++], &w) != GC_OK) {
			snprintf(why, sizeof(why), "--sizes: '%s': %s", *s, w ? w : "at most 64 sizes");
			st = GC_ERR_INPUT;
		}
	}
	char desc[512] = "";
	gh_vrank_model model;
	if (st == GC_OK && predict && gpus)
		snprintf(why, sizeof(why), "--predict models virtual ranks on one GPU: leave --gpus out"),
			st = GC_ERR_INPUT;
	if (st == GC_OK && predict) {
		char *e = NULL;
		st = gh_calib_read_vrank(predict, &model, &e);
		if (st != GC_OK) {
			g_strlcpy(why, e, sizeof(why));
			g_free(e);
		}
		snprintf(desc, sizeof(desc), "virtual-rank model of %s", predict);
	} else if (st == GC_OK) {
		st = pick_gpu(dev, desc, sizeof(desc), why);
	}
	if (st == GC_OK && gpus) {
		int ndev = 0;
		st = gh_cuda_probe(&ndev, why);
		if (st == GC_OK && ndev < gpus) {
			snprintf(why, sizeof(why), "--gpus %d: this machine has %d GPU(s)", gpus, ndev);
			st = GC_ERR_NODEV;
		}
		if (st == GC_OK) {
			size_t l = strlen(desc);
			snprintf(desc + l, sizeof(desc) - l, " (one rank on each of GPUs 0..%d)", gpus - 1);
		}
	}
	gh_bench_opts o;
	gh_bench_opts_default(&o, false);
	o.dev = dev;
	o.gpus = gpus;
	o.iters = iters;
	o.kernel = kern;
	o.proto = prt;
	o.blocks = blocks ? blocks : 1;
	for (int i = 0; st == GC_OK && i < nsz; i++) {
		gs_params p = {.coll = collv[c], .algo = algov[a], .dtype = dtv[t], .nranks = ranks,
			       .bytes = list[i], .nchannels = channels, .chunk_bytes = GH_INTERP_CHUNK,
			       .slice_bytes = GH_INTERP_SLICE, .ranks_per_node = ranks / nodes,
			       .moe_tokens = (uint32_t)tokens, .moe_topk = (uint32_t)topk,
			       .moe_experts = (uint32_t)experts, .moe_seed = 1};
		st = predict ? predict_point(&model, &p, pts, why) : gh_bench_interp(&o, &p, pts, why);
	}
	/* the label names how the kernel ran, so calibrations do not mix runs
	 * of different kernels: interp[-scalar][-ll128][-bN] */
	char label[64];
	snprintf(label, sizeof(label), "interp%s%s",
		 kern == GH_KERNEL_SCALAR ? "-scalar" : kern == GH_KERNEL_PIPE ? "-pipe" : "",
		 prt == GH_PROTO_LL128 ? "-ll128" : "");
	if (o.blocks > 1) {
		size_t l = strlen(label);
		snprintf(label + l, sizeof(label) - l, "-b%d", o.blocks);
	}
	gc_run_info info = {.kind = predict ? "sim" : "hw", .label = predict ? "vrank-model" : label,
			    .device = desc, .command = cmd};
	if (st != GC_OK) {
		rc = fail("interp", st, why);
		if (pts->len > 0) {
			/* the sizes before the failing one were run and checked */
			print_points(pts);
			save_points("interp", out, csv, &info, pts);
		}
		goto out;
	}
	print_points(pts);
	if (predict)
		printf("# predicted by the virtual-rank model of %s\n", predict);
	else
		printf("# all outputs equal the expected %s result\n", colls[c]);
	rc = save_points("interp", out, csv, &info, pts);
out:
	g_strfreev(sz);
	g_array_free(pts, TRUE);
	g_free(op);
	g_free(algo);
	g_free(sizes);
	g_free(dtype);
	g_free(out);
	g_free(csv);
	g_free(predict);
	g_free(kernel);
	g_free(proto);
	g_free(cmd);
	return rc;
}

/* Provenance of a recording: the newest run of a results file or a CSV's header. */
static void recording_run(const char *path, gc_run_row *run)
{
	char *err = NULL, *csv_err = NULL;
	gc_result_point *p = NULL;
	size_t n = 0;
	gc_results *r = NULL;
	int64_t id;
	memset(run, 0, sizeof(*run));
	if (gc_results_open(path, false, &r, &err) == GC_OK &&
	    gc_results_last_run(r, NULL, &id, NULL) == GC_OK)
		gc_results_get_run(r, id, run, NULL);
	else if (gc_results_read_csv(path, run, &p, &n, &csv_err) != GC_OK)
		memset(run, 0, sizeof(*run));
	gc_results_close(r);
	g_free(p);
	g_free(err);
	g_free(csv_err);
}

/* The terms the taxonomy scenario keeps when it splits a measured sum:
 * the platform's values in gcsim's tables. */
static bool tx_defaults(const char *platform, gh_calib_tx_defaults *d)
{
	gc_config *cfg = gm_scenario_config_new();
	bool ok = gm_tx_platform_apply(cfg, platform);
	if (ok) {
		gm_tx_params p;
		gm_tx_params_read(cfg, platform, &p);
		d->platform = platform;
		d->post_send_us = (double)p.post_send_ps / 1e6;
		d->fence_us = (double)p.fence_ps / 1e6;
		d->store_issue_us = (double)p.store_issue_ps / 1e6;
	}
	gc_config_free(cfg);
	return ok;
}

/* Writes each (path, text) pair (gc_outfile), after checking that every
 * one can be; on a failure removes the ones written and leaves the message
 * in *why. */
static bool write_all(char **paths, GString **texts, int n, char **why)
{
	for (int i = 0; i < n; i++)
		if (gc_outfile_check(paths[i], "the calibration", why) != GC_OK)
			return false;
	for (int i = 0; i < n; i++)
		if (gc_outfile_write(paths[i], "the calibration", texts[i]->str, texts[i]->len, why) !=
		    GC_OK) {
			for (int k = 0; k < i; k++)
				g_remove(paths[k]);
			return false;
		}
	return true;
}

static int hw_calibrate(int argc, char **argv)
{
	char *name = NULL, *from = NULL, *dir = NULL, *platform = NULL, *l2 = NULL;
	gboolean quick = FALSE;
	GOptionEntry entries[] = {
		{"name", 'n', 0, G_OPTION_ARG_STRING, &name, "calibration name (file NAME.yaml)", "NAME"},
		{"from", 'f', 0, G_OPTION_ARG_FILENAME, &from,
		 "fit a recorded results file or points CSV instead of measuring", "FILE"},
		{"dir", 0, 0, G_OPTION_ARG_FILENAME, &dir, "output folder (default scenarios/calibration)", "DIR"},
		{"platform", 'p', 0, G_OPTION_ARG_STRING, &platform,
		 "taxonomy platform the posting costs are set on (default dgx-h100)", "P"},
		{"quick", 'q', 0, G_OPTION_ARG_NONE, &quick, "quick measurement when not --from", NULL},
		{"l2", 0, 0, G_OPTION_ARG_STRING, &l2,
		 "the GPU's L2 for the virtual-rank model (default: from the recording's device line)",
		 "SIZE"},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	char *cmd = command_line(argc, argv);
	int done, rc = cli_parse(&argc, &argv, "",
				 "Fit model parameters (launch latency, per-path alpha and bandwidth,\n"
				 "flag and proxy round trips, the virtual-rank link model) to measurements\n"
				 "and write DIR/NAME.yaml with provenance comments; with ring allreduce\n"
				 "points also DIR/NAME-virtual.yaml (the virtual-rank model as a scenario),\n"
				 "with posting points also DIR/NAME-taxonomy.yaml (the measured posting\n"
				 "costs of the IBGDA and CPU-proxy paths as an explain scenario).",
				 entries, &done);
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	GString *yaml = g_string_new(NULL), *sc = g_string_new(NULL), *tx = g_string_new(NULL);
	char why[GH_WHY] = "", *err = NULL, desc[512] = "", now[32];
	char *paths[3] = {NULL, NULL, NULL};
	gc_run_row run;
	memset(&run, 0, sizeof(run));
	gc_status st = GC_OK;
	gh_calib_tx_defaults txd;
	if (done)
		goto out;
	if (!name || !*name || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != strlen(name) || name[0] == '.') {
		rc = fail("calibrate", GC_ERR_INPUT, "--name: expected letters, digits, '-', '_' or '.' (see --help)");
		goto out;
	}
	uint64_t l2_bytes = 0;
	if (l2) {
		const char *w = NULL;
		if (gc_parse_bytes(l2, &l2_bytes, &w) != GC_OK || l2_bytes == 0) {
			char *m = g_strdup_printf("--l2: expected a size such as 60MiB, got '%s'%s%s", l2,
						  w ? ": " : "", w ? w : "");
			rc = fail("calibrate", GC_ERR_INPUT, m);
			g_free(m);
			goto out;
		}
	}
	if (!tx_defaults(platform ? platform : "dgx-h100", &txd)) {
		char *m = g_strdup_printf("--platform: expected one of %s, got '%s'",
					  gm_tx_platform_choices(), platform);
		rc = fail("calibrate", GC_ERR_INPUT, m);
		g_free(m);
		goto out;
	}
	if (from) {
		gc_result_point *p = NULL;
		size_t n = 0;
		st = gv_load_points(from, &p, &n, &err);
		if (st != GC_OK) {
			rc = fail("calibrate", st, err);
			goto out;
		}
		g_array_append_vals(pts, p, (guint)n);
		g_free(p);
		recording_run(from, &run);
	} else {
		st = pick_gpu(0, desc, sizeof(desc), why);
		gh_bench_opts o;
		gh_bench_opts_default(&o, quick);
		if (st == GC_OK)
			st = gh_bench_micro(&o, pts, why);
		if (st != GC_OK) {
			rc = fail("calibrate", st, why);
			goto out;
		}
	}
	gh_calib_prov prov = {.name = name,
			      .device = from ? run.device : desc,
			      .created = from && run.created ? run.created : gc_results_now_iso(now, sizeof(now)),
			      .command = from && run.command ? run.command : cmd,
			      .source = from ? from : "measured by this command",
			      .l2_bytes = (double)l2_bytes};
	int np = 0;
	const gc_result_point *pv = (const gc_result_point *)(void *)pts->data;
	st = gh_calib_yaml(pv, pts->len, &prov, yaml, &np, &err);
	if (st != GC_OK) {
		rc = fail("calibrate", st, err);
		goto out;
	}
	/* everything is built before anything is written, and a failed write
	 * removes what was written: no half-written calibration */
	const char *d = dir ? dir : "scenarios/calibration";
	GString *texts[3] = {yaml, NULL, NULL};
	int nf = 0;
	paths[nf++] = g_strdup_printf("%s/%s.yaml", d, name);
	char *scerr = NULL, *txerr = NULL;
	bool has_sc = gh_calib_scenario(pv, pts->len, &prov, sc, &scerr) == GC_OK;
	bool has_tx = gh_calib_taxonomy(pv, pts->len, &prov, &txd, tx, &txerr) == GC_OK;
	g_free(scerr);
	g_free(txerr);
	int isc = -1, itx = -1;
	if (has_sc) {
		isc = nf;
		texts[nf] = sc;
		paths[nf++] = g_strdup_printf("%s/%s-virtual.yaml", d, name);
	}
	if (has_tx) {
		itx = nf;
		texts[nf] = tx;
		paths[nf++] = g_strdup_printf("%s/%s-taxonomy.yaml", d, name);
	}
	if (!write_all(paths, texts, nf, &err)) {
		rc = fail("calibrate", GC_ERR_IO, err);
		goto out;
	}
	fwrite(yaml->str, 1, yaml->len, stdout);
	printf("# wrote %d parameters to %s\n", np, paths[0]);
	if (isc >= 0)
		printf("# wrote the virtual-rank scenario %s (gcsim run it to predict)\n", paths[isc]);
	if (itx >= 0)
		printf("# wrote the taxonomy scenario %s (gcsim explain --scenario it to compare the "
		       "posting paths)\n",
		       paths[itx]);
	rc = 0;
out:
	gc_run_row_clear(&run);
	g_string_free(yaml, TRUE);
	g_string_free(sc, TRUE);
	g_string_free(tx, TRUE);
	g_array_free(pts, TRUE);
	g_free(err);
	for (int i = 0; i < 3; i++)
		g_free(paths[i]);
	g_free(name);
	g_free(from);
	g_free(dir);
	g_free(platform);
	g_free(l2);
	g_free(cmd);
	return rc;
}

/* The first "# " line of notes, without the prefix: the run's device. */
static char *first_note(const GString *notes)
{
	const char *s = notes->str;
	if (strncmp(s, "# ", 2))
		return g_strdup("");
	const char *e = strchr(s, '\n');
	return g_strndup(s + 2, e ? (gsize)(e - s - 2) : strlen(s + 2));
}

static int hw_rdma(int argc, char **argv)
{
	char *dev = NULL, *ops = NULL, *tests = NULL, *mem = NULL, *min = NULL, *max = NULL;
	char *out = NULL, *csv = NULL;
	gboolean quick = FALSE;
	gint port = 1, gid = -1, iters = 0, window = 0;
	GOptionEntry entries[] = {
		{"device", 'd', 0, G_OPTION_ARG_STRING, &dev, "RDMA device name (default: the first)", "NAME"},
		{"port", 0, 0, G_OPTION_ARG_INT, &port, "port number (default 1)", "N"},
		{"gid-index", 0, 0, G_OPTION_ARG_INT, &gid,
		 "GID index (default: an IPv4-mapped GID, else any valid one; InfiniBand: LID routing)", "N"},
		{"op", 0, 0, G_OPTION_ARG_STRING, &ops, "write, write_imm or both (default write,write_imm)", "LIST"},
		{"test", 0, 0, G_OPTION_ARG_STRING, &tests, "lat, bw or both (default lat,bw)", "LIST"},
		{"mem", 0, 0, G_OPTION_ARG_STRING, &mem,
		 "host, gpu (cudaMalloc'd, registered directly) or auto: host, plus GPU where allowed (default)", "KIND"},
		{"min-size", 0, 0, G_OPTION_ARG_STRING, &min, "smallest write (default 8B)", "SIZE"},
		{"max-size", 0, 0, G_OPTION_ARG_STRING, &max,
		 "largest write, capped by the registrable size (default 1GiB, --quick 64MiB)", "SIZE"},
		{"iters", 0, 0, G_OPTION_ARG_INT, &iters, "latency samples per size (default 1000, --quick 100)", "N"},
		{"window", 0, 0, G_OPTION_ARG_INT, &window, "outstanding writes in the bandwidth test (default 64)", "N"},
		{"quick", 'q', 0, G_OPTION_ARG_NONE, &quick, "fewer sizes and samples", NULL},
		HW_SAVE_ENTRIES(out, csv),
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	char *cmd = command_line(argc, argv);
	int done, rc = cli_parse(&argc, &argv, "",
				 "RDMA write and write-with-immediate through libibverbs: two RC queue pairs\n"
				 "connected to each other on one port (loopback), latency (min/median/p99;\n"
				 "write: post + completion, write_imm: half a ping-pong) and bandwidth (a\n"
				 "window of outstanding writes) from 8 B doubling to 1 GiB, on host memory and,\n"
				 "in a CUDA build with a GPU, on GPU memory registered directly (reported when\n"
				 "the peer-memory driver refuses it). No RDMA device: one line, exit 3.",
				 entries, &done);
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	GString *notes = g_string_new(NULL);
	char why[GH_WHY] = "";
	char *desc = NULL;
	if (done || (rc = check_saves("rdma", out, csv)) != 0)
		goto out;
	gh_verbs_opts o;
	gh_verbs_opts_default(&o, quick);
	o.dev_name = dev;
	o.port = port;
	o.gid_index = gid;
	if (iters)
		o.iters = iters;
	if (window)
		o.window = window;
	gc_status st = gh_verbs_opts_parse(&o, ops, tests, mem, min, max, why);
	if (st == GC_OK)
		st = gh_verbs_bench(&o, gh_verbs_ops_real(), pts, notes, why);
	if (st != GC_OK) {
		rc = fail("rdma", st, why);
		goto out;
	}
	desc = first_note(notes);
	rc = show_and_save("rdma", quick ? "rdma-quick" : "rdma", desc, cmd, out, csv, notes, pts);
out:
	g_array_free(pts, TRUE);
	g_string_free(notes, TRUE);
	g_free(desc);
	g_free(dev);
	g_free(ops);
	g_free(tests);
	g_free(mem);
	g_free(min);
	g_free(max);
	g_free(out);
	g_free(csv);
	g_free(cmd);
	return rc;
}

static int hw_nccl(int argc, char **argv)
{
	char *ops = NULL, *sizes = NULL, *lib = NULL, *out = NULL, *csv = NULL;
	gboolean quick = FALSE;
	gint gpus = 0, iters = 0, warmup = -1;
	GOptionEntry entries[] = {
		{"op", 0, 0, G_OPTION_ARG_STRING, &ops,
		 "allreduce, allgather, reducescatter, alltoall, comma-separated, or all (default)", "LIST"},
		{"sizes", 0, 0, G_OPTION_ARG_STRING, &sizes,
		 "comma-separated nccl-tests sizes (default 8B doubling to 1GiB; --quick 8B..32MiB by 4)", "LIST"},
		{"gpus", 'g', 0, G_OPTION_ARG_INT, &gpus, "GPUs to use, >= 2 (default: all)", "N"},
		{"iters", 0, 0, G_OPTION_ARG_INT, &iters, "timed iterations (default 20, --quick 10)", "N"},
		{"warmup", 0, 0, G_OPTION_ARG_INT, &warmup, "warm-up iterations (default 5, --quick 2)", "N"},
		{"lib", 0, 0, G_OPTION_ARG_FILENAME, &lib,
		 "NCCL library (default libnccl.so.2, then /usr/local/cuda/lib{,64})", "PATH"},
		{"quick", 'q', 0, G_OPTION_ARG_NONE, &quick, "fewer sizes and iterations", NULL},
		HW_SAVE_ENTRIES(out, csv),
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	char *cmd = command_line(argc, argv);
	int done, rc = cli_parse(&argc, &argv, "",
				 "The NCCL baseline: allreduce, allgather, reducescatter and alltoall through\n"
				 "NCCL (loaded at run time) on every GPU of this machine from one process,\n"
				 "float sum, out of place, timed like nccl-tests (warm-up, then back-to-back\n"
				 "iterations between CUDA events; time = slowest GPU's average). Points have\n"
				 "algo 'nccl'. Needs >= 2 GPUs; otherwise, or without libnccl, one line, exit 3.",
				 entries, &done);
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	GString *notes = g_string_new(NULL);
	char why[GH_WHY] = "", gdesc[512] = "";
	char *desc = NULL;
	if (done || (rc = check_saves("nccl", out, csv)) != 0)
		goto out;
	gh_nccl_opts o;
	gh_nccl_opts_default(&o, quick);
	o.lib = lib;
	o.ngpus = gpus;
	if (iters)
		o.iters = iters;
	if (warmup >= 0)
		o.warmup = warmup;
	gc_status st = gh_nccl_opts_parse(&o, ops, sizes, why);
	if (st == GC_OK)
		st = gh_nccl_bench(&o, pts, notes, why);
	if (st == GC_OK && pts->len > 0)
		st = describe_dev(0, gdesc, sizeof(gdesc), why);
	if (st != GC_OK) {
		rc = fail("nccl", st, why);
		goto out;
	}
	desc = g_strdup_printf("%d x %s", pts->len ? g_array_index(pts, gc_result_point, 0).nranks : 0,
			       gdesc);
	rc = show_and_save("nccl", quick ? "nccl-quick" : "nccl", desc, cmd, out, csv, notes, pts);
out:
	g_array_free(pts, TRUE);
	g_string_free(notes, TRUE);
	g_free(desc);
	g_free(ops);
	g_free(sizes);
	g_free(lib);
	g_free(out);
	g_free(csv);
	g_free(cmd);
	return rc;
}

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
} subs[] = {
	{"info", hw_info, "describe the GPUs and RDMA devices"},
	{"bench", hw_bench, "run the microbenchmarks, store the measurements"},
	{"interp", hw_interp, "run a collective's schedule on the GPU with virtual ranks"},
	{"calibrate", hw_calibrate, "fit model parameters into scenarios/calibration/NAME.yaml"},
	{"rdma", hw_rdma, "RDMA write / write-with-immediate latency and bandwidth (libibverbs)"},
	{"nccl", hw_nccl, "the NCCL baseline: the same collectives through NCCL on >= 2 GPUs"},
};

int cli_hw(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		FILE *f = argc < 2 ? stderr : stdout;
		fprintf(f, "Usage: gcsim hw SUBCOMMAND [OPTIONS]\n\nSubcommands:\n");
		for (size_t i = 0; i < G_N_ELEMENTS(subs); i++)
			fprintf(f, "  %-10s %s\n", subs[i].name, subs[i].summary);
		fprintf(f, "\n'gcsim hw SUBCOMMAND --help' lists a subcommand's options.\n"
			   "Exit status: 3 no usable GPU / RDMA device / NCCL library (or a build\n"
			   "without CUDA / rdma-core), 2 bad input, 4 i/o.\n");
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < G_N_ELEMENTS(subs); i++)
		if (!strcmp(argv[1], subs[i].name)) {
			/* "Usage: gcsim hw interp ..." in the subcommand's --help */
			char *prg = g_strdup_printf("gcsim hw %s", subs[i].name);
			g_set_prgname(prg);
			g_free(prg);
			return subs[i].fn(argc - 1, argv + 1);
		}
	fprintf(stderr, "gcsim hw: unknown subcommand '%s' (info, bench, interp, calibrate, rdma, nccl)\n", argv[1]);
	return 2;
}
