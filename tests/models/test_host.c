/* SPDX-License-Identifier: MIT */
/*
 * gm_host and the executor's host-backend options: gloo's segments as
 * gloo/allreduce.cc cuts them; a CPU reduction slower than the link sets
 * the pace (asynchronous sends pipeline the slices), a faster one hides
 * behind the link; synchronous sends add the sums to the sends; the
 * staging copies are the cudaMemcpy call plus the bytes over PCIe.
 */
#include <glib.h>
#include <math.h>

#include "sim/models/exec/gm_coll.h"
#include "sim/models/host/gm_host.h"

static gm_host gloo(void)
{
	return (gm_host){.kind = GM_BACKEND_GLOO,
			 .name = "gloo",
			 .staged = true,
			 .intra_Bps = 3.125e9,
			 .inter_Bps = 3.125e9,
			 .intra_ps = 10000000,
			 .inter_ps = 10000000,
			 .nic_Bps = 50e9,
			 .nic_share = 8,
			 .reduce_Bps = 10e9 * 2.0 / 3.0,
			 .pcie_Bps = 25e9,
			 .cudamemcpy_ps = 6500000,
			 .segment = 1048576};
}

static gt_topo dgx(int nodes)
{
	gt_topo t = {.kind = GT_DGX, .ngpus = 8 * nodes, .nodes = nodes, .gpus_per_node = 8,
		     .nvlink = {374e9, 3400000}, .pcie = {52e9, 545000}, .nic = {50e9, 1315000},
		     .nic_share = 1, .bw_scale = 1.0, .launch_ps = 8400000};
	return t;
}

static void test_gloo_segments(void)
{
	gm_host h = gloo();
	gt_topo gpu = dgx(2), t;
	gs_params base = {.coll = GS_COLL_ALLREDUCE, .algo = GS_ALGO_TREE, .dtype = GS_DT_F32,
			  .nranks = 16, .nchannels = 16, .ranks_per_node = 8}, p;
	gm_coll_opts co = {.iters = 1};
	/* 100 MiB over 16: roundUp(max(100, 32), 16) = 112 segments of
	 * ceil(104857600 / 112) = 936229 B, rounded to a float: 936232; a
	 * process's chunk is 7 of them */
	gm_host_setup(&h, &gpu, &base, 104857600, &p, &t, &co);
	g_assert_cmpint(p.algo, ==, GS_ALGO_RING);
	g_assert_cmpint(p.nchannels, ==, 1);
	g_assert_cmpuint(p.slice_bytes, ==, 936232);
	g_assert_cmpuint(p.chunk_bytes, ==, 7 * 936232);
	g_assert_true(co.async_sends);
	g_assert_cmpfloat(co.reduce_Bps, ==, h.reduce_Bps);
	g_assert_null(co.xport);
	/* the host topology: the processes' own rates and latencies, the
	 * node's one interface, no kernel launch */
	g_assert_true(t.host);
	g_assert_cmpfloat(t.nvlink.bw_Bps, ==, 3.125e9);
	g_assert_cmpint(t.pcie.lat_ps, ==, 10000000);
	g_assert_cmpint(t.nic_share, ==, 8);
	g_assert_cmpint(t.launch_ps, ==, 0);
	/* 1 MiB: the floor of two segments per process, 32 of 32 KiB */
	gm_host_setup(&h, &gpu, &base, 1048576, &p, &t, &co);
	g_assert_cmpuint(p.slice_bytes, ==, 32768);
	g_assert_cmpuint(p.chunk_bytes, ==, 65536);
	/* copies: 6.5 us + 100 MiB / 25 GB/s each way */
	p.bytes = 104857600;
	g_assert_cmpint(gm_host_copy_in_ps(&h, &p), ==, 6500000 + 4194304000);
	g_assert_cmpint(gm_host_copy_out_ps(&h, &p), ==, 6500000 + 4194304000);
	p.coll = GS_COLL_ALLGATHER; /* in: a process's 1/16, out: all of it */
	g_assert_cmpint(gm_host_copy_in_ps(&h, &p), ==, 6500000 + 262144000);
	g_assert_cmpint(gm_host_copy_out_ps(&h, &p), ==, 6500000 + 4194304000);
	h.staged = false; /* cuda-aware MPI moving GPU buffers */
	g_assert_cmpint(gm_host_copy_in_ps(&h, &p), ==, 0);
}

/* A 2-rank ring allreduce of B bytes on a flat 10 GB/s link (1 us), 64
 * slices: its time in us with reductions at reduce_Bps (0: fused). */
static double ring2_us(double reduce_Bps, bool async)
{
	const uint64_t B = 64 << 20;
	gt_topo t = {.kind = GT_FLAT, .ngpus = 2, .nodes = 2, .gpus_per_node = 1,
		     .link = {.bw_Bps = 10e9, .lat_ps = 1000000}};
	gs_params p = {.coll = GS_COLL_ALLREDUCE, .algo = GS_ALGO_RING, .dtype = GS_DT_F32,
		       .nranks = 2, .bytes = B, .nchannels = 1, .chunk_bytes = B / 2,
		       .slice_bytes = B / 64, .ranks_per_node = 1};
	gs_gen *g = NULL;
	char *err = NULL;
	g_assert_cmpint(gs_gen_create(&p, &g, &err), ==, GC_OK);
	gm_coll_opts o = {.buffer_bytes = B / 2, .iters = 1, .check = true,
			  .async_sends = async, .reduce_Bps = reduce_Bps};
	gm_coll_result res;
	g_assert_cmpint(gm_coll_simulate(&t, g, &o, false, &res, &err), ==, GC_OK);
	gs_gen_free(g);
	return (double)res.time_ps * 1e-6;
}

static void test_reduce_paces_reduce_scatter(void)
{
	const double half = (double)(32 << 20); /* each phase moves B/2 each way */
	/* fused: both phases at the link's rate */
	double fused = ring2_us(0, true);
	g_assert_cmpfloat(fabs(fused - 2 * half / 10e9 * 1e6) / fused, <, 0.03);
	/* sums at 5 GB/s: the CPU's rate sets the pace; on 2 ranks each
	 * summed slice goes straight back (the allgather's only step), so the
	 * time is the sums plus the first slice's way in and the last's out */
	double slow = ring2_us(5e9, true);
	double want = (half / 5e9 + 2 * half / 32 / 10e9) * 1e6;
	g_test_message("fused %.1f us, sums at 5 GB/s %.1f us (want %.1f)", fused, slow, want);
	g_assert_cmpfloat(fabs(slow - want) / want, <, 0.01);
	/* sums at 40 GB/s hide behind the 10 GB/s link, but for a slice */
	double fast = ring2_us(40e9, true);
	g_assert_cmpfloat(fast, <, fused * 1.03);
	/* synchronous sends wait for each slice before summing the next: the
	 * sums and the sends add up */
	double sync = ring2_us(40e9, false);
	g_assert_cmpfloat(sync, >, fast + 0.5 * half / 40e9 * 1e6);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/host/gloo-segments", test_gloo_segments);
	g_test_add_func("/host/reduce-paces-reduce-scatter", test_reduce_paces_reduce_scatter);
	return g_test_run();
}
