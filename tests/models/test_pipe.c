/* SPDX-License-Identifier: MIT */
/*
 * gm_pipe: the simulated 1F1B schedules against the closed forms they
 * must reproduce with free messages (plain: (M + P - 1)(F + B);
 * interleaved: M v (F + B) + (P - 1)(F + B), F and B a chunk's), the
 * bounds messages between stages put on them, and every Megatron order
 * finishing for every shape tried.
 */
#include <glib.h>
#include <math.h>

#include "sim/models/train/gm_pipe.h"

static double run(int P, int v, int M, double F, double B, double x)
{
	gm_pipe_params p = {.stages = P, .chunks = v, .micro_batches = M, .fwd_us = F,
			    .bwd_us = B, .p2p_us = x};
	double t = -1;
	char *err = NULL;
	gc_status st = gm_pipe_run(&p, &t, &err);
	if (st != GC_OK)
		g_test_message("%s", err);
	g_assert_cmpint(st, ==, GC_OK);
	g_free(err);
	return t;
}

static void test_plain_bubble(void)
{
	for (int P = 1; P <= 8; P++)
		for (int M = P; M <= 3 * P + 1; M++) {
			double t = run(P, 1, M, 1.0, 2.0, 0), want = (M + P - 1) * 3.0;
			if (fabs(t - want) > 1e-9)
				g_test_fail_printf("P %d M %d: %.3f, want %.3f", P, M, t, want);
		}
}

static void test_interleaved_bubble(void)
{
	for (int P = 2; P <= 8; P *= 2)
		for (int v = 2; v <= 4; v++)
			for (int M = P; M <= 4 * P; M += P) {
				double F = 0.5, B = 1.0;
				double t = run(P, v, M, F, B, 0);
				double want = M * v * (F + B) + (P - 1) * (F + B);
				if (fabs(t - want) > 1e-9)
					g_test_fail_printf("P %d v %d M %d: %.3f, want %.3f", P, v, M, t,
							   want);
			}
}

/* Messages: the first micro-batch crosses P v - 1 boundaries forward and
 * as many back, at least; a path through the ops pays at most one
 * crossing per op it meets, and meets at most all 2 M v P of them. */
static void test_messages(void)
{
	for (int P = 2; P <= 8; P++)
		for (int v = 1; v <= 3; v++)
			for (int M = v > 1 ? P : 1; M <= 3 * P; M += v > 1 ? P : 1) {
				double t0 = run(P, v, M, 1.0, 2.0, 0), t1 = run(P, v, M, 1.0, 2.0, 0.25);
				double lo = t0 + 2 * (P * v - 1) * 0.25 - 1e-9;
				double hi = t0 + 2.0 * M * v * P * 0.25 + 1e-9;
				if (!(t1 >= lo && t1 <= hi))
					g_test_fail_printf("P %d v %d M %d: %.3f outside [%.3f, %.3f]", P, v,
							   M, t1, lo, hi);
				/* never below the work of one stage */
				g_assert_cmpfloat(t0, >=, M * v * 3.0 - 1e-9);
			}
}

static void test_bad_input(void)
{
	gm_pipe_params p = {.stages = 0, .chunks = 1, .micro_batches = 1};
	double t;
	char *err = NULL;
	g_assert_cmpint(gm_pipe_run(&p, &t, &err), ==, GC_ERR_INPUT);
	g_assert_nonnull(g_strstr_len(err, -1, "out of range"));
	g_free(err);
	p = (gm_pipe_params){.stages = 4, .chunks = 2, .micro_batches = 6};
	err = NULL;
	g_assert_cmpint(gm_pipe_run(&p, &t, &err), ==, GC_ERR_INPUT);
	g_assert_nonnull(g_strstr_len(err, -1, "groups of the 4 stages; 6 is not a multiple"));
	g_free(err);
	p = (gm_pipe_params){.stages = 2, .chunks = 1, .micro_batches = 2, .fwd_us = NAN};
	err = NULL;
	g_assert_cmpint(gm_pipe_run(&p, &t, &err), ==, GC_ERR_INPUT);
	g_free(err);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/pipe/plain-bubble", test_plain_bubble);
	g_test_add_func("/pipe/interleaved-bubble", test_interleaved_bubble);
	g_test_add_func("/pipe/messages", test_messages);
	g_test_add_func("/pipe/bad-input", test_bad_input);
	return g_test_run();
}
