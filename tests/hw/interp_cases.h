/* SPDX-License-Identifier: MIT */
/*
 * The schedules the interpreter tests run on a GPU (tests/hw/test_hw.c,
 * when one is present) and under the CPU emulation of the CUDA code
 * (tests/hw/test_interp_emu.c, always): the split tree and sendrecv
 * layouts, both all-to-all algorithms, NVLS on one node and across nodes,
 * CollNet Chain, NVLS tree and MoE dispatch and combine, at sizes that take
 * the LL path (<= 8 KiB messages), the Simple path and sizes that are not
 * a multiple of a slot. And the helpers that pack one for the interpreter.
 */
#ifndef TESTS_HW_INTERP_CASES_H
#define TESTS_HW_INTERP_CASES_H

#include <glib.h>
#include <string.h>

#include "hw/gh_interp.h"
#include "sim/sched/gs_sched.h"

typedef struct interp_spec {
	gs_coll coll;
	gs_algo algo;
	int nranks, rpn, nch;
	uint64_t bytes;
} interp_spec;

static const interp_spec interp_cases[] = {
	{GS_COLL_ALLREDUCE, GS_ALGO_TREE, 8, 8, 2, 3u << 20},
	{GS_COLL_ALLREDUCE, GS_ALGO_TREE, 8, 2, 3, 1000 * 1024 + 12},
	{GS_COLL_ALLREDUCE, GS_ALGO_TREE, 2, 1, 1, 4096},
	{GS_COLL_SENDRECV, GS_ALGO_RING, 4, 4, 2, 3u << 20},
	{GS_COLL_SENDRECV, GS_ALGO_RING, 3, 3, 1, 4096 + 4},
	{GS_COLL_ALLTOALL, GS_ALGO_PAIRWISE, 8, 8, 2, 3u << 20},
	{GS_COLL_ALLTOALL, GS_ALGO_PAIRWISE, 3, 3, 1, 3 * 1000 + 8},
	{GS_COLL_ALLTOALL, GS_ALGO_PUT, 8, 8, 2, 3u << 20},
	{GS_COLL_ALLTOALL, GS_ALGO_PUT, 5, 5, 3, 5 * 100000 + 12},
	{GS_COLL_ALLTOALL, GS_ALGO_PUT, 1, 1, 1, 4096},
	{GS_COLL_ALLREDUCE, GS_ALGO_NVLS, 8, 8, 2, 3u << 20},
	{GS_COLL_ALLREDUCE, GS_ALGO_NVLS, 3, 3, 1, 1000 * 1024 + 12},
	{GS_COLL_ALLGATHER, GS_ALGO_NVLS, 8, 8, 2, 3u << 20},
	{GS_COLL_REDUCESCATTER, GS_ALGO_NVLS, 3, 3, 1, 3 * 100000 + 12},
	{GS_COLL_ALLGATHER, GS_ALGO_NVLS, 8, 4, 2, 3u << 20},
	{GS_COLL_ALLREDUCE, GS_ALGO_COLLNET_CHAIN, 8, 4, 4, 3u << 20},
	{GS_COLL_ALLREDUCE, GS_ALGO_NVLS_TREE, 8, 4, 2, 3u << 20},
	{GS_COLL_ALLREDUCE, GS_ALGO_NVLS_TREE, 12, 3, 1, 1000 * 1024 + 12},
	{GS_COLL_DISPATCH, GS_ALGO_PUT, 8, 8, 4, 7408},
	{GS_COLL_COMBINE, GS_ALGO_PUT, 8, 8, 4, 14352},
};

static inline gs_params interp_case_params(const interp_spec *c)
{
	return (gs_params){.coll = c->coll, .algo = c->algo, .dtype = GS_DT_F32,
			   .nranks = c->nranks, .bytes = c->bytes, .nchannels = c->nch,
			   .chunk_bytes = 256 * 1024, .slice_bytes = 64 * 1024,
			   .ranks_per_node = c->rpn, .moe_tokens = 32, .moe_topk = 4,
			   .moe_experts = 64, .moe_seed = 1};
}

/* A schedule packed for the interpreter, with its input and output
 * buffers (inputs filled). */
typedef struct interp_case {
	gs_gen *g;
	gs_sched *s;
	gh_interp_plan plan;
	void *in, *out;
} interp_case;

static inline void interp_case_open(const gs_params *p, interp_case *c)
{
	char *err = NULL;
	memset(c, 0, sizeof(*c));
	g_assert_cmpint(gs_gen_create(p, &c->g, &err), ==, GC_OK);
	c->s = gs_sched_materialize(c->g);
	g_assert_cmpint(gh_interp_plan_build(c->s, &c->plan, &err), ==, GC_OK);
	c->in = g_malloc(c->plan.buf_bytes[GS_BUF_INPUT] * (uint64_t)c->plan.nranks + 1);
	c->out = g_malloc0(c->plan.buf_bytes[GS_BUF_OUTPUT] * (uint64_t)c->plan.nranks + 1);
	gh_interp_fill_inputs(&c->plan, c->in);
}

static inline void interp_case_close(interp_case *c)
{
	g_free(c->in);
	g_free(c->out);
	gh_interp_plan_clear(&c->plan);
	gs_sched_free(c->s);
	gs_gen_free(c->g);
}

/* A hand-written schedule: p.nranks ranks of nstrands strands, all of one
 * channel, nsignals signal slots, INPUT and OUTPUT of p.bytes each, and
 * room for nsteps steps (zeroed) and the strand offsets, which the caller
 * fills. */
static inline gs_sched *interp_sched_new(gs_params p, int nstrands, uint32_t nsignals,
					 size_t nsteps)
{
	gs_sched *s = g_new0(gs_sched, 1);
	s->p = p;
	s->nranks = p.nranks;
	s->nstrands = nstrands;
	s->strands_per_channel = nstrands;
	s->nsignals = nsignals;
	s->buf_bytes[GS_BUF_INPUT] = s->buf_bytes[GS_BUF_OUTPUT] = p.bytes;
	s->strand_off = g_new0(uint64_t, (size_t)p.nranks * (size_t)nstrands + 1);
	s->steps = g_new0(gs_step, nsteps);
	return s;
}

#endif
