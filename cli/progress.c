/* SPDX-License-Identifier: MIT */
/* The progress line and the long-run warning (progress.h). */
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* past these estimates (wall time, memory) a size is announced before it
 * runs */
#define WARN_S 60.0
#define WARN_BYTES 1e9
/* the pace is judged once a size has run this long (s) */
#define PACE_S 2.0

void cli_progress_fmt_secs(char *buf, size_t n, double s)
{
	if (s >= 5400)
		snprintf(buf, n, "%.1f h", s / 3600);
	else if (s >= 90)
		snprintf(buf, n, "%.0f min", s / 60);
	else
		snprintf(buf, n, "%.0f s", s);
}

static void on_size(void *ctx, size_t i, size_t n, uint64_t bytes)
{
	cli_progress *p = ctx;
	p->i = i;
	p->n = n;
	p->bytes = bytes;
	if (p->tty) {
		fprintf(stderr, "\r\033[K%s: size %zu of %zu (%llu B)", p->prefix, i + 1, n,
			(unsigned long long)bytes);
		fflush(stderr);
	}
}

static void on_steps(void *ctx, uint64_t done, uint64_t total, double est_s, double est_bytes)
{
	cli_progress *p = ctx;
	gint64 now = g_get_monotonic_time();
	if (done == 0) {
		p->t0 = now;
		p->shown = 0;
		p->paced = est_s > WARN_S;
		if (est_s > WARN_S || est_bytes > WARN_BYTES) {
			char t[32], mem[64] = "";
			cli_progress_fmt_secs(t, sizeof(t), est_s);
			if (est_bytes > WARN_BYTES)
				snprintf(mem, sizeof(mem), ", about %.1f GB of memory for its connections",
					 est_bytes * 1e-9);
			fprintf(stderr,
				"%s%s: size %llu B: %.3g steps to simulate, about %s of one core%s; "
				"--fidelity analytical answers in under a second (without "
				"congestion), and fewer sizes or GPUs cut it\n",
				p->tty ? "\r\033[K" : "", p->prefix, (unsigned long long)p->bytes,
				(double)total, t, mem);
			fflush(stderr);
		}
		return;
	}
	double el = (double)(now - p->t0) * 1e-6, frac = total ? (double)done / (double)total : 1;
	char t[32];
	/* the estimate before the run sees the steps, not what each costs
	 * (from a flat ring's 0.2 us to a few us where many flows share
	 * links): a size it let through that is slower, at the pace of its
	 * first seconds, is announced then, once */
	if (!p->paced && el >= PACE_S) {
		p->paced = true;
		double left = el / frac * (1 - frac);
		if (el + left > WARN_S) {
			cli_progress_fmt_secs(t, sizeof(t), el + left);
			fprintf(stderr,
				"%s%s: size %llu B: %.0f %% of %.3g steps in %.0f s, about %s of one "
				"core at this pace; --fidelity analytical answers in under a second "
				"(without congestion), and fewer sizes or GPUs cut it\n",
				p->tty ? "\r\033[K" : "", p->prefix, (unsigned long long)p->bytes,
				100 * frac, (double)total, el, t);
			fflush(stderr);
		}
	}
	/* at most twice a second */
	if (!p->tty || now - p->shown < 500000 || total == 0)
		return;
	p->shown = now;
	cli_progress_fmt_secs(t, sizeof(t), el / frac * (1 - frac));
	fprintf(stderr, "\r\033[K%s: size %zu of %zu (%llu B): %.0f %% of %.3g steps, about %s left",
		p->prefix, p->i + 1, p->n, (unsigned long long)p->bytes, 100 * frac, (double)total, t);
	fflush(stderr);
}

static void on_phase(void *ctx, size_t i, size_t n, const char *name)
{
	cli_progress *p = ctx;
	snprintf(p->pbuf, sizeof(p->pbuf), "%s: step phase %zu of %zu (%s)", p->base, i + 1, n, name);
	p->prefix = p->pbuf;
	if (p->tty) {
		fprintf(stderr, "\r\033[K%s", p->prefix);
		fflush(stderr);
	}
}

void cli_progress_attach(cli_progress *p, gm_run_opts *o, const char *prefix)
{
	memset(p, 0, sizeof(*p));
	p->base = p->prefix = prefix;
	p->tty = isatty(STDERR_FILENO) != 0;
	o->progress = on_size;
	o->step_progress = on_steps;
	o->phase_progress = on_phase;
	o->progress_ctx = p;
}

void cli_progress_clear(cli_progress *p, gm_run_opts *o)
{
	if (p->tty)
		fputs("\r\033[K", stderr);
	o->progress = NULL;
	o->step_progress = NULL;
	o->phase_progress = NULL;
	o->progress_ctx = NULL;
}
