/* SPDX-License-Identifier: MIT */
/*
 * gm_resil: the simulated run with failures and checkpoints against the
 * renewal-theory expectation it must converge to (exponential failures of
 * mean M, a segment of tau steps' work and its checkpoint d, a fixed
 * recovery R after each failure: E[segment] = (M + R)(e^((tau + d) / M) -
 * 1), goodput tau / E[segment]); Young's and Daly's optima; a job with no
 * failures writing its checkpoints only; the same seed, the same run.
 */
#include <glib.h>
#include <math.h>

#include "sim/models/train/gm_resil.h"

static gm_resil_in base(void)
{
	gm_resil_in in = {.step_s = 1.0,
			  .nodes = 10,
			  .node_mtbf_s = 20000.0, /* the job's: 2000 s */
			  .timeout_s = 60.0,
			  .restart_s = 30.0,
			  .ckpt_s = 20.0,
			  .interval = 250,
			  .steps = 100000000,
			  .seed = 7};
	return in;
}

static void test_converges(void)
{
	for (int64_t k = 50; k <= 800; k *= 2) {
		gm_resil_in in = base();
		in.interval = k;
		gm_resil_out o;
		gm_resil_run(&in, &o);
		double M = 2000.0, R = in.timeout_s + in.restart_s + in.ckpt_s;
		double tau = (double)k, L = tau + in.ckpt_s;
		double expect = tau / ((M + R) * (exp(L / M) - 1.0));
		g_test_message("interval %lld: goodput %.5f, expected %.5f", (long long)k, o.goodput,
			       expect);
		g_assert_cmpfloat(fabs(o.goodput / expect - 1.0), <, 0.003);
		/* where the time went adds up to the wall time */
		g_assert_cmpfloat(fabs(o.useful_s + o.lost_s + o.stall_s + o.restart_s + o.ckpt_s -
				       o.wall_s),
				  <, 1e-6 * o.wall_s);
		g_assert_cmpfloat(fabs(o.stall_s - (double)o.failures * in.timeout_s), <, 1e-6);
	}
}

static void test_optima(void)
{
	gm_resil_in in = base();
	in.interval = 0;
	gm_resil_out o;
	gm_resil_run(&in, &o);
	g_assert_cmpfloat(fabs(o.young_steps - sqrt(2.0 * 20.0 * 2000.0)), <, 1e-9);
	g_assert_cmpfloat(fabs(o.daly_steps - (sqrt(2.0 * 20.0 * 2000.0) - 20.0)), <, 1e-9);
	g_assert_cmpint(o.interval, ==, (int64_t)floor(o.daly_steps + 0.5));
	/* the expectation's best interval is Daly's within 10 % */
	double best = 0, at = 0, M = 2000.0, R = 110.0;
	for (double tau = 10; tau < 2000; tau += 1) {
		double g = tau / ((M + R) * (exp((tau + 20.0) / M) - 1.0));
		if (g > best) {
			best = g;
			at = tau;
		}
	}
	g_assert_cmpfloat(fabs(at / o.daly_steps - 1.0), <, 0.1);
}

static void test_no_failures(void)
{
	gm_resil_in in = base();
	in.node_mtbf_s = 1e30;
	in.steps = 1000;
	gm_resil_out o;
	gm_resil_run(&in, &o);
	g_assert_cmpint(o.failures, ==, 0);
	/* 4 segments of 250 steps, the last without its checkpoint */
	g_assert_cmpfloat(o.wall_s, ==, 1000.0 + 3 * 20.0);
	g_assert_cmpfloat(o.goodput, ==, 1000.0 / 1060.0);
}

static void test_deterministic(void)
{
	gm_resil_in in = base();
	in.steps = 1000000;
	gm_resil_out a, b, c;
	gm_resil_run(&in, &a);
	gm_resil_run(&in, &b);
	in.seed = 8;
	gm_resil_run(&in, &c);
	g_assert_cmpmem(&a, sizeof(a), &b, sizeof(b));
	g_assert_cmpfloat(a.wall_s, !=, c.wall_s);
}

/* Spares: with a repair time of 0 they change nothing; with no spare
 * every failure waits for its own node (repair - timeout after the
 * watchdog); spares shorten the waits and never lengthen the run, and
 * enough of them remove every wait; the failures themselves stay the
 * same draws. */
static void test_spares(void)
{
	gm_resil_in in = base();
	in.steps = 2000000;
	gm_resil_out a, b;
	gm_resil_run(&in, &a);
	in.spares = 5; /* repair 0: replaced at once */
	gm_resil_run(&in, &b);
	g_assert_cmpfloat(a.wall_s, ==, b.wall_s);
	g_assert_cmpint(b.waits, ==, 0);
	in.repair_s = 3000.0;
	double prev = 0;
	for (int sp = 0; sp <= 8; sp++) {
		in.spares = sp;
		gm_resil_run(&in, &b);
		g_test_message("spares %d: %lld of %lld failures waited %.0f s, goodput %.5f", sp,
			       (long long)b.waits, (long long)b.failures, b.wait_s, b.goodput);
		g_assert_cmpint(b.failures, ==, a.failures);
		g_assert_cmpfloat(b.useful_s, ==, a.useful_s);
		g_assert_cmpfloat(fabs(b.wall_s - (a.wall_s + b.wait_s)), <, 1e-6 * a.wall_s);
		if (sp == 0) {
			g_assert_cmpint(b.waits, ==, b.failures);
			g_assert_cmpfloat(fabs(b.wait_s - (double)b.failures * (in.repair_s - in.timeout_s)),
					  <, 1e-6 * b.wait_s);
		} else {
			g_assert_cmpfloat(b.wait_s, <=, prev);
		}
		prev = b.wait_s;
	}
	g_assert_cmpint(b.waits, ==, 0); /* 8 spares for 3000 s repairs, a failure every ~2000 s */
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/resil/converges", test_converges);
	g_test_add_func("/resil/optima", test_optima);
	g_test_add_func("/resil/no-failures", test_no_failures);
	g_test_add_func("/resil/deterministic", test_deterministic);
	g_test_add_func("/resil/spares", test_spares);
	return g_test_run();
}
