/* SPDX-License-Identifier: MIT */
/*
 * The schedule interpreter's CUDA code (hw/kernels/gh_interp.cu), host side
 * and kernel, run without a GPU under the CPU emulation of tests/hw/emu:
 * every schedule hw/device-check.sh runs on the GPU, set up as `gcsim hw
 * interp` sets it up (gh_bench_interp, two timed iterations after a
 * warm-up, so the mailboxes are reset between launches), and the GPU
 * tests' cases (interp_cases.h), with all ranks on one emulated GPU and
 * with one rank per emulated GPU, each with every way the kernel moves a
 * piece (16-byte vectors, loading and storing warps, LL128 lines, several
 * blocks a strand); every output element is compared with the CPU
 * reference's. A strand whose blocks must meet, with one block started
 * late, is right with the meeting and wrong without it. The error paths: a WAIT no SIGNAL satisfies ends
 * in GC_ERR_DEADLOCK within the spin timeout, a grid larger than the GPU
 * holds at once is refused before any launch, and no path leaves device
 * memory allocated. The inter-CTA barrier benchmark and shmem_put_bw's
 * loop, which like the interpreter need every CTA resident at once, run
 * here too.
 *
 * The emulation runs the kernel's threads as coroutines on one host
 * thread, so it proves the logic (indexing, the LL flags, credits, the
 * order of steps, PUT/SIGNAL/WAIT), not the fences the GPU's memory
 * model needs; hw/device-check.sh runs the same schedules on the GPU.
 */
#include <glib.h>
#include <string.h>

#include "hw/gh_bench.h"
#include "hw/gh_cuda.h"
#include "hw/gh_interp.h"
#include "tests/hw/interp_cases.h"

/* the emulation's controls (tests/hw/emu/gh_emu.cc) */
void gh_emu_set_devices(int n);
void gh_emu_set_sms(int n);
void gh_emu_set_lag(unsigned block, unsigned sweeps);
size_t gh_emu_live_allocs(void);
uint64_t gh_emu_launches(void);

/* hw/device-check.sh's interpreter runs (its --ranks, --nodes, --op,
 * --algo, --channels), at a small size (one LL message per step or
 * fewer), a mid size and one that is several 1 MiB slices and not a
 * multiple of a mailbox slot; dispatch and combine at their one
 * token-expert message, with 32 tokens per rank instead of the device
 * check's 128 and 256 (the same steps, fewer of them: every token-expert
 * message has a mailbox slot of its own, which the emulation fills). */
static const struct {
	const char *name;
	gs_coll coll;
	gs_algo algo;
	int ranks, nodes, channels, tokens;
	uint64_t sizes[3];
} device_runs[] = {
	{"ring4", GS_COLL_ALLREDUCE, GS_ALGO_RING, 4, 1, 1, 0, {4096, 65536, (3u << 20) + 1024}},
	{"ring8", GS_COLL_ALLREDUCE, GS_ALGO_RING, 8, 1, 1, 0, {4096, 65536, (3u << 20) + 1024}},
	{"tree4", GS_COLL_ALLREDUCE, GS_ALGO_TREE, 4, 1, 1, 0, {4096, 65536, (3u << 20) + 1024}},
	{"ag4", GS_COLL_ALLGATHER, GS_ALGO_RING, 4, 1, 1, 0, {4096, 65536, (3u << 20) + 1024}},
	{"rs4", GS_COLL_REDUCESCATTER, GS_ALGO_RING, 4, 1, 1, 0, {4096, 65536, (3u << 20) + 1024}},
	{"nvlstree8", GS_COLL_ALLREDUCE, GS_ALGO_NVLS_TREE, 8, 2, 1, 0, {65536, 1u << 20}},
	{"dispatch8", GS_COLL_DISPATCH, GS_ALGO_PUT, 8, 1, 4, 32, {7408}},
	{"combine8", GS_COLL_COMBINE, GS_ALGO_PUT, 8, 1, 4, 32, {14352}},
	{"fwd-dispatch8", GS_COLL_DISPATCH, GS_ALGO_FORWARD, 8, 2, 1, 32, {7392}},
	{"fwd-combine8", GS_COLL_COMBINE, GS_ALGO_FORWARD, 8, 2, 1, 32, {14336}},
	{"collnet8", GS_COLL_ALLREDUCE, GS_ALGO_COLLNET, 8, 2, 1, 0, {65536, 1u << 20}},
	{"collnetchain8", GS_COLL_ALLREDUCE, GS_ALGO_COLLNET_CHAIN, 8, 2, 4, 0, {65536, 1u << 20}},
	{"bruck8", GS_COLL_ALLGATHER, GS_ALGO_BRUCK, 8, 1, 1, 0, {65536, 1u << 20}},
	{"nvls-ag8", GS_COLL_ALLGATHER, GS_ALGO_NVLS, 8, 1, 1, 0, {65536, 1u << 20}},
	{"nvls-rs8", GS_COLL_REDUCESCATTER, GS_ALGO_NVLS, 8, 1, 1, 0, {65536, 1u << 20}},
	{"nvls-sharp-ar8", GS_COLL_ALLREDUCE, GS_ALGO_NVLS, 8, 2, 1, 0, {65536, 1u << 20}},
	{"nvls-sharp-ag8", GS_COLL_ALLGATHER, GS_ALGO_NVLS, 8, 2, 1, 0, {65536, 1u << 20}},
	{"pat6", GS_COLL_REDUCESCATTER, GS_ALGO_PAT, 6, 1, 1, 0, {65536, 1u << 20}},
	{"broadcast8", GS_COLL_BROADCAST, GS_ALGO_RING, 8, 1, 1, 0, {65536, (2u << 20) + 4096}},
	{"reduce8", GS_COLL_REDUCE, GS_ALGO_RING, 8, 1, 1, 0, {65536, (2u << 20) + 4096}},
};

/* The ways the kernel can run a plan, each over every device run: the
 * default (vector, Simple, a block a strand), loading and storing warps,
 * LL128 lines, two blocks a strand. */
static const struct {
	const char *name;
	int kernel, proto, blocks;
} kernel_ways[] = {
	{"vector", GH_KERNEL_VECTOR, GH_PROTO_SIMPLE, 1},
	{"pipe", GH_KERNEL_PIPE, GH_PROTO_SIMPLE, 1},
	{"ll128", GH_KERNEL_VECTOR, GH_PROTO_LL128, 1},
	{"blocks 2", GH_KERNEL_VECTOR, GH_PROTO_SIMPLE, 2},
};

/* Every device run with the kernel run the way w says; the other ways
 * than the default to 1 MiB (their pieces' tails are the GPU tests'
 * cases' to cover, at sizes that are not a multiple of a slot). */
static void device_runs_as(size_t w, GArray *pts)
{
	for (size_t i = 0; i < G_N_ELEMENTS(device_runs); i++) {
		for (int k = 0; k < 3 && device_runs[i].sizes[k] &&
				(w == 0 || device_runs[i].sizes[k] <= (1u << 20));
		     k++) {
			int tokens = device_runs[i].tokens ? device_runs[i].tokens : 32;
			/* `gcsim hw interp`'s set-up (cli/cmd_hw.c) */
			gs_params p = {.coll = device_runs[i].coll, .algo = device_runs[i].algo,
				       .dtype = GS_DT_F32, .nranks = device_runs[i].ranks,
				       .bytes = device_runs[i].sizes[k],
				       .nchannels = device_runs[i].channels,
				       .chunk_bytes = 2u << 20, .slice_bytes = 1u << 20,
				       .ranks_per_node = device_runs[i].ranks / device_runs[i].nodes,
				       .moe_tokens = (uint32_t)tokens, .moe_topk = 8,
				       .moe_experts = 256, .moe_seed = 1};
			gh_bench_opts o;
			gh_bench_opts_default(&o, true);
			o.warmup = 1;
			o.iters = 2;
			o.kernel = kernel_ways[w].kernel;
			o.proto = kernel_ways[w].proto;
			o.blocks = kernel_ways[w].blocks;
			char why[GH_WHY] = "";
			guint before = pts->len;
			uint64_t launches = gh_emu_launches();
			gint64 t0 = g_get_monotonic_time();
			gc_status st = gh_bench_interp(&o, &p, pts, why);
			if (st != GC_OK)
				g_error("%s (%s) at %" G_GUINT64_FORMAT " B: %s", device_runs[i].name,
					kernel_ways[w].name, device_runs[i].sizes[k], why);
			g_assert_cmpuint(pts->len, ==, before + 1);
			g_assert_cmpuint(gh_emu_launches() - launches, ==, 3);
			const gc_result_point *pt = &g_array_index(pts, gc_result_point, pts->len - 1);
			g_assert_cmpint(pt->nranks, ==, device_runs[i].ranks);
			g_assert_cmpfloat(pt->time_us, >, 0);
			g_assert_cmpuint(gh_emu_live_allocs(), ==, 0);
			g_test_message("%s (%s) %" G_GUINT64_FORMAT " B: outputs equal the reference's "
				       "(%.2f s emulated)",
				       device_runs[i].name, kernel_ways[w].name, pt->size_bytes,
				       (double)(g_get_monotonic_time() - t0) / 1e6);
		}
	}
}

static void test_device_runs(void)
{
	gh_emu_set_devices(1);
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(gc_result_point));
	for (size_t w = 0; w < G_N_ELEMENTS(kernel_ways); w++)
		device_runs_as(w, pts);
	g_array_free(pts, TRUE);
}

/* The GPU tests' cases on one emulated GPU (ndevs 1) or one rank per
 * emulated GPU (ndevs = ranks, system-scope fences and atomics, every
 * mailbox on its receiver's GPU), with the given kernel, messages above
 * GH_LL_MAX in Simple slots or LL128 lines, and `blocks` thread blocks per
 * strand. */
static void run_cases(bool per_rank, int kernel, int proto, int blocks)
{
	for (size_t i = 0; i < G_N_ELEMENTS(interp_cases); i++) {
		gs_params p = interp_case_params(&interp_cases[i]);
		if (per_rank && p.nranks < 2)
			continue;
		/* the variants at a quarter of the 3 MiB cases (still several
		 * slices a channel): every LL128 or extra block's thread polls on
		 * its own, which the emulation pays for poll by poll */
		if ((kernel != GH_KERNEL_VECTOR || proto != GH_PROTO_SIMPLE || blocks > 1) &&
		    p.bytes >= (2u << 20))
			p.bytes /= 4;
		interp_case c;
		interp_case_open(&p, &c);
		char why[GH_WHY] = "", *err = NULL;
		g_assert_cmpint(gh_interp_plan_set(&c.plan, kernel, proto, blocks, &err), ==, GC_OK);
		int devs[GH_MAX_GPUS];
		int ndevs = per_rank ? c.plan.nranks : 1;
		if (ndevs > GH_MAX_GPUS) { /* with its helper ranks (switches) */
			interp_case_close(&c);
			continue;
		}
		for (int d = 0; d < ndevs; d++)
			devs[d] = d;
		gh_emu_set_devices(ndevs);
		double us[2];
		gc_status st = gh_cuda_interp_run(devs, ndevs, &c.plan, c.in, c.out, 1, 2, us, why);
		if (st != GC_OK)
			g_error("case %zu on %d GPU(s), protocol %d, %d blocks: %s", i, ndevs, proto, blocks, why);
		st = gh_interp_check(&c.plan, c.out, &err);
		if (st != GC_OK)
			g_error("case %zu on %d GPU(s), protocol %d, %d blocks: %s", i, ndevs, proto, blocks, err);
		g_assert_cmpuint(gh_emu_live_allocs(), ==, 0);
		interp_case_close(&c);
	}
}

static void test_cases_one_gpu(void)
{
	run_cases(false, GH_KERNEL_VECTOR, GH_PROTO_SIMPLE, 1);
}

static void test_cases_gpu_per_rank(void)
{
	run_cases(true, GH_KERNEL_VECTOR, GH_PROTO_SIMPLE, 1);
}

static void test_cases_ll128(void)
{
	run_cases(false, GH_KERNEL_VECTOR, GH_PROTO_LL128, 1);
}

/* Loading and storing warps on one GPU (with a rank per GPU, where only
 * the fences' scope differs: tests/hw/hw_emu.t's --kernel pipe --gpus 2). */
static void test_cases_pipe(void)
{
	run_cases(false, GH_KERNEL_PIPE, GH_PROTO_SIMPLE, 1);
}

/* Several blocks per strand: shares of every piece and PUT, per-block
 * mailbox counters, K signals per WAIT, the strand's meetings. Block
 * counts that do not divide a piece's vectors or lines evenly. */
static void test_cases_blocks(void)
{
	run_cases(false, GH_KERNEL_VECTOR, GH_PROTO_SIMPLE, 3);
	run_cases(true, GH_KERNEL_VECTOR, GH_PROTO_LL128, 2);
}

/* Two ranks exchange INPUT (sendrecv's result) through SCRATCH: each
 * sends its INPUT, receives the peer's into SCRATCH, then copies SCRATCH to
 * OUTPUT in two steps whose ranges differ from the receive's, so with two
 * blocks a strand a copy reads bytes the other block received. */
static gs_sched *exchange_through_scratch(uint64_t n, uint64_t h)
{
	gs_sched *s = interp_sched_new((gs_params){.coll = GS_COLL_SENDRECV, .algo = GS_ALGO_RING,
						   .dtype = GS_DT_F32, .nranks = 2, .bytes = n,
						   .nchannels = 1, .chunk_bytes = n, .slice_bytes = n,
						   .ranks_per_node = 2},
				       1, 0, 8);
	s->buf_bytes[GS_BUF_SCRATCH] = n;
	for (int r = 0; r < 2; r++) {
		gs_step *st = s->steps + 4 * r;
		st[0] = (gs_step){.op = GS_OP_SEND, .send_peer = 1 - r, .recv_peer = -1,
				  .src_buf = GS_BUF_INPUT, .dst_buf = GS_BUF_SCRATCH, .bytes = n};
		st[1] = (gs_step){.op = GS_OP_RECV, .send_peer = -1, .recv_peer = 1 - r,
				  .dst_buf = GS_BUF_SCRATCH, .bytes = n};
		st[2] = (gs_step){.op = GS_OP_COPY, .send_peer = -1, .recv_peer = -1,
				  .src_buf = GS_BUF_SCRATCH, .dst_buf = GS_BUF_OUTPUT, .bytes = h};
		st[3] = (gs_step){.op = GS_OP_COPY, .send_peer = -1, .recv_peer = -1,
				  .src_buf = GS_BUF_SCRATCH, .src_off = h, .dst_buf = GS_BUF_OUTPUT,
				  .dst_off = h, .bytes = n - h};
		s->strand_off[r + 1] = 4 * (uint64_t)(r + 1);
	}
	return s;
}

/* The strand's blocks meet where a step reads what another block may
 * have written (GH_P_SYNC, set by packing): with the meeting the exchange
 * is right under both protocols; without it (the mark cleared) rank 1's
 * block 0 copies bytes its block 1, started late, has not received yet,
 * which the check catches. */
static void test_blocks_meet(void)
{
	gh_emu_set_devices(1);
	const int dev0 = 0;
	const uint64_t n = 64 * 1024, h = n / 2 + 48;
	gc_status st_run;
	for (int proto = GH_PROTO_SIMPLE; proto <= GH_PROTO_LL128; proto++) {
		for (int marked = 0; marked < 2; marked++) {
			gs_sched *s = exchange_through_scratch(n, h);
			gh_interp_plan plan;
			char why[GH_WHY] = "", *err = NULL;
			double us[1];
			g_assert_cmpint(gh_interp_plan_build(s, &plan, &err), ==, GC_OK);
			g_assert_cmpint(gh_interp_plan_set(&plan, GH_KERNEL_VECTOR, proto, 2, &err), ==, GC_OK);
			for (int r = 0; r < 2; r++) {
				/* the first copy after the receive meets; the second
				 * copy's range meets nothing new */
				g_assert_cmpuint(plan.aux[4 * r + 1].props & GH_P_SYNC, ==, 0);
				g_assert_cmpuint(plan.aux[4 * r + 2].props & GH_P_SYNC, ==, GH_P_SYNC);
				g_assert_cmpuint(plan.aux[4 * r + 3].props & GH_P_SYNC, ==, 0);
				if (!marked)
					plan.aux[4 * r + 2].props &= ~GH_P_SYNC;
			}
			void *in = g_malloc(2 * n), *out = g_malloc0(2 * n);
			gh_interp_fill_inputs(&plan, in);
			gh_emu_set_lag(3, 200); /* rank 1's block 1 */
			st_run = gh_cuda_interp_run(&dev0, 1, &plan, in, out, 0, 1, us, why);
			gh_emu_set_lag(0, 0);
			g_assert_cmpint(st_run, ==, GC_OK);
			gc_status st = gh_interp_check(&plan, out, &err);
			if (marked && st != GC_OK)
				g_error("protocol %d, blocks meeting: %s", proto, err);
			if (!marked && st == GC_OK)
				g_error("protocol %d: blocks that do not meet gave the right result", proto);
			g_free(err);
			g_free(in);
			g_free(out);
			gh_interp_plan_clear(&plan);
			gs_sched_free(s);
			g_assert_cmpuint(gh_emu_live_allocs(), ==, 0);
		}
	}
}

/* One rank, one strand, waiting for a signal no one sends. */
static gs_sched *lonely_wait(void)
{
	gs_sched *s = interp_sched_new((gs_params){.coll = GS_COLL_ALLTOALL, .algo = GS_ALGO_PUT,
						   .dtype = GS_DT_F32, .nranks = 1, .bytes = 4,
						   .nchannels = 1, .chunk_bytes = 4, .slice_bytes = 4,
						   .ranks_per_node = 1},
				       1, 1, 1);
	s->strand_off[1] = 1;
	s->steps[0] = (gs_step){.op = GS_OP_WAIT, .send_peer = -1, .recv_peer = -1,
				.dst_buf = GS_BUF_OUTPUT, .bytes = 1};
	return s;
}

static void test_errors(void)
{
	gh_emu_set_devices(1);
	char why[GH_WHY] = "", *err = NULL;
	double us[1];
	const int dev0 = 0;

	/* a WAIT that never passes: the spin gives up, every block returns, the
	 * run reports the deadlock and frees what it allocated */
	gs_sched *s = lonely_wait();
	gh_interp_plan plan;
	g_assert_cmpint(gh_interp_plan_build(s, &plan, &err), ==, GC_OK);
	float in = 1, out = 0;
	gc_status st = gh_cuda_interp_run(&dev0, 1, &plan, &in, &out, 0, 1, us, why);
	g_assert_cmpint(st, ==, GC_ERR_DEADLOCK);
	g_assert_nonnull(strstr(why, "a block waited more than 2 s for a peer"));
	g_assert_cmpuint(gh_emu_live_allocs(), ==, 0);
	gh_interp_plan_clear(&plan);
	gs_sched_free(s);

	/* more blocks than the GPU holds at once: refused, nothing launched
	 * (one emulated SM holds 32 blocks of 64 threads) */
	interp_case c;
	size_t big = 0;
	for (;; big++) {
		g_assert_cmpuint(big, <, G_N_ELEMENTS(interp_cases));
		gs_params p = interp_case_params(&interp_cases[big]);
		interp_case_open(&p, &c);
		if (c.plan.nranks * c.plan.nstrands > 32)
			break;
		interp_case_close(&c);
	}
	gh_emu_set_sms(1);
	uint64_t launches = gh_emu_launches();
	st = gh_cuda_interp_run(&dev0, 1, &c.plan, c.in, c.out, 0, 1, us, why);
	gh_emu_set_sms(132);
	g_assert_cmpint(st, ==, GC_ERR_UNSUPPORTED);
	char *want = g_strdup_printf("%d blocks per GPU, but only 32 fit at once on GPU 0",
				     c.plan.nranks * c.plan.nstrands);
	if (!strstr(why, want))
		g_error("case %zu: '%s' lacks '%s'", big, why, want);
	g_free(want);
	g_assert_cmpuint(gh_emu_launches(), ==, launches);
	g_assert_cmpuint(gh_emu_live_allocs(), ==, 0);

	/* a GPU the machine does not have */
	const int dev5 = 5;
	st = gh_cuda_interp_run(&dev5, 1, &c.plan, c.in, c.out, 0, 1, us, why);
	g_assert_cmpint(st, ==, GC_ERR_IO);
	g_assert_nonnull(strstr(why, "interpreter: cudaSetDevice(devs[g])"));
	g_assert_nonnull(strstr(why, "cudaErrorInvalidDevice"));
	g_assert_cmpuint(gh_emu_live_allocs(), ==, 0);
	interp_case_close(&c);
}

/* Slope samples (the longer launch's time less the shorter's, per
 * iteration) under the emulation: none negative, and not all zero. One
 * sample can be 0 when the machine's load makes the shorter launch run
 * as long as the longer (the benchmark floors it there). */
static void assert_slope_samples(const double *us, int n)
{
	double most = 0;
	for (int i = 0; i < n; i++) {
		g_assert_cmpfloat(us[i], >=, 0);
		most = MAX(most, us[i]);
	}
	g_assert_cmpfloat(most, >, 0);
}

/* The inter-CTA barrier benchmark (hw/kernels/gh_barrier.cu), launched
 * cooperatively: every CTA passes every barrier (a barrier that never
 * opened would end in the timeout's error), no sample negative and not all
 * zero (assert_slope_samples), two launches per sample (the slope's two
 * barrier counts); more CTAs than the GPU holds at once are refused before
 * any launch; bad arguments and a missing GPU are named; nothing is left
 * allocated on any path. */
static void test_cta_barrier(void)
{
	gh_emu_set_devices(1);
	char why[GH_WHY] = "";
	double us[3];
	for (int ctas = 1; ctas <= 33; ctas += 16) {
		uint64_t launches = gh_emu_launches();
		gc_status st = gh_cuda_cta_barrier(0, ctas, 20, 1, 3, us, why);
		if (st != GC_OK)
			g_error("%d CTAs: %s", ctas, why);
		assert_slope_samples(us, 3);
		g_assert_cmpuint(gh_emu_launches() - launches, ==, 2 * (1 + 3));
		g_assert_cmpuint(gh_emu_live_allocs(), ==, 0);
	}
	/* one emulated SM holds 32 CTAs of 4 threads (the emulation's block
	 * size for this kernel) */
	gh_emu_set_sms(1);
	uint64_t launches = gh_emu_launches();
	gc_status st = gh_cuda_cta_barrier(0, 33, 20, 1, 3, us, why);
	gh_emu_set_sms(132);
	g_assert_cmpint(st, ==, GC_ERR_UNSUPPORTED);
	g_assert_nonnull(strstr(why, "cta barrier: 33 CTAs cannot all be resident on GPU 0"));
	g_assert_cmpuint(gh_emu_launches(), ==, launches);
	g_assert_cmpuint(gh_emu_live_allocs(), ==, 0);
	g_assert_cmpint(gh_cuda_cta_barrier(0, 0, 20, 1, 3, us, why), ==, GC_ERR_INPUT);
	g_assert_cmpint(gh_cuda_cta_barrier(0, 32, 0, 1, 3, us, why), ==, GC_ERR_INPUT);
	st = gh_cuda_cta_barrier(5, 32, 20, 1, 3, us, why);
	g_assert_cmpint(st, ==, GC_ERR_IO);
	g_assert_nonnull(strstr(why, "cta barrier: cudaSetDevice(dev)"));
	g_assert_cmpuint(gh_emu_live_allocs(), ==, 0);
}

/* shmem_put_bw's loop (gh_cuda_put_loop: a post per CTA then the barrier,
 * per iteration), launched cooperatively like the barrier: every CTA
 * posts and passes every iteration (a stuck publish or barrier would end
 * in the timeout's error), samples as the barrier's, two launches per
 * sample; refused before any launch when the CTAs do not fit; bad
 * arguments named; nothing left allocated. */
static void test_put_loop(void)
{
	gh_emu_set_devices(1);
	char why[GH_WHY] = "";
	double us[3];
	uint64_t launches = gh_emu_launches();
	gc_status st = gh_cuda_put_loop(0, 32, 20, 1, 3, us, why);
	if (st != GC_OK)
		g_error("put loop: %s", why);
	assert_slope_samples(us, 3);
	g_assert_cmpuint(gh_emu_launches() - launches, ==, 2 * (1 + 3));
	g_assert_cmpuint(gh_emu_live_allocs(), ==, 0);
	gh_emu_set_sms(1);
	launches = gh_emu_launches();
	st = gh_cuda_put_loop(0, 33, 20, 1, 3, us, why);
	gh_emu_set_sms(132);
	g_assert_cmpint(st, ==, GC_ERR_UNSUPPORTED);
	g_assert_nonnull(strstr(why, "put loop: 33 CTAs cannot all be resident on GPU 0"));
	g_assert_cmpuint(gh_emu_launches(), ==, launches);
	g_assert_cmpint(gh_cuda_put_loop(0, 32, 0, 1, 3, us, why), ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(why, "put loop: "));
	g_assert_cmpuint(gh_emu_live_allocs(), ==, 0);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/interp-emu/device-runs", test_device_runs);
	g_test_add_func("/interp-emu/cases-one-gpu", test_cases_one_gpu);
	g_test_add_func("/interp-emu/cases-gpu-per-rank", test_cases_gpu_per_rank);
	g_test_add_func("/interp-emu/cases-ll128", test_cases_ll128);
	g_test_add_func("/interp-emu/cases-pipe", test_cases_pipe);
	g_test_add_func("/interp-emu/cases-blocks", test_cases_blocks);
	g_test_add_func("/interp-emu/blocks-meet", test_blocks_meet);
	g_test_add_func("/interp-emu/errors", test_errors);
	g_test_add_func("/interp-emu/cta-barrier", test_cta_barrier);
	g_test_add_func("/interp-emu/put-loop", test_put_loop);
	return g_test_run();
}
