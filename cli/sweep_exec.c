/* SPDX-License-Identifier: MIT */
/*
 * A sweep's cells, in this process or in worker processes (sweep_exec.h).
 *
 * Workers are forked after every cell has been checked, so each starts with
 * the parsed grid. The parent hands a worker one cell index at a time on
 * the worker's own task pipe (a 4-byte index; the pipe's end: no more) and
 * reads the answer on its result pipe: a header {cell, status, length} and
 * that many bytes, the packed record (gc_run_record_pack) or the error message. A
 * worker is given its next cell only after it has answered, so neither side
 * ever blocks on a full pipe. A worker that dies (a signal, an abort) fails
 * only the cell it held; the cells already stored stay.
 */
#include "sweep_exec.h"
#include "progress.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct answer_head {
	int32_t cell, status;
	uint64_t len;
} answer_head;

typedef struct worker {
	pid_t pid;
	int task_fd, res_fd; /* -1 once closed */
	int cell;	     /* the cell it holds, -1 when idle */
} worker;

static bool write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		c += w;
		n -= (size_t)w;
	}
	return true;
}

static bool read_all(int fd, void *p, size_t n)
{
	char *c = p;
	while (n) {
		ssize_t r = read(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		c += r;
		n -= (size_t)r;
	}
	return true;
}

void *sweep_exec_answer(const sweep_exec *x, guint k, gc_status *st, size_t *len)
{
	gc_run_record rec;
	memset(&rec, 0, sizeof(rec));
	char *err = NULL;
	*st = x->run(x->ctx, k, false, &rec, &err);
	if (*st != GC_OK) {
		char *msg = err ? err : g_strdup("the cell failed");
		*len = strlen(msg);
		return msg;
	}
	void *buf = gc_run_record_pack(&rec, len);
	gc_run_record_clear(&rec);
	return buf;
}

/* The worker's loop: never returns. */
static void worker_main(const sweep_exec *x, int task_fd, int res_fd)
{
	int32_t k;
	while (read_all(task_fd, &k, sizeof(k)) && k >= 0) {
		gc_status st;
		size_t len = 0;
		void *buf = sweep_exec_answer(x, (guint)k, &st, &len);
		answer_head h = {k, (int32_t)st, len};
		bool ok = write_all(res_fd, &h, sizeof(h)) && write_all(res_fd, buf, len);
		g_free(buf);
		if (!ok)
			break;
	}
	_exit(0);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Why worker w stopped without answering, after reaping it. */
static char *death_of(worker *w)
{
	int status = 0;
	pid_t p;
	do
		p = waitpid(w->pid, &status, 0);
	while (p < 0 && errno == EINTR);
	w->pid = 0;
	if (p > 0 && WIFSIGNALED(status))
		return g_strdup_printf("the worker process running it was killed by signal %d (%s)",
				       WTERMSIG(status), strsignal(WTERMSIG(status)));
	if (p > 0 && WIFEXITED(status))
		return g_strdup_printf("the worker process running it exited with status %d before "
				       "it answered",
				       WEXITSTATUS(status));
	return g_strdup("the worker process running it stopped before it answered");
}

void sweep_exec_progress(const sweep_exec *x, guint done, guint total, int running, gint64 t0)
{
	char eta[48] = "";
	if (done > 0 && done < total) {
		double el = (double)(g_get_monotonic_time() - t0) * 1e-6;
		char t[24];
		cli_progress_fmt_secs(t, sizeof(t), el / done * (total - done));
		snprintf(eta, sizeof(eta), ", about %s left", t);
	}
	fprintf(stderr, "\r\033[Kgcsim sweep: %u of %u cells to run done, %d running%s (grid of %u)",
		done, total, running, eta, x->ncells);
	fflush(stderr);
}

/* Keep the lowest-index failure. */
static void note_failure(guint k, gc_status st, char *msg, guint *fail_k, gc_status *fst, char **err)
{
	if (*fst == GC_OK || k < *fail_k) {
		*fail_k = k;
		*fst = st;
		g_free(*err);
		*err = msg;
	} else {
		g_free(msg);
	}
}

void sweep_exec_take(const sweep_exec *x, guint k, gc_status status, char *buf, size_t len,
		     guint *ran, guint *fail_k, gc_status *fst, char **err)
{
	if (status != GC_OK) {
		note_failure(k, status, buf, fail_k, fst, err);
		return;
	}
	gc_run_record rec;
	char *e = NULL;
	gc_status st = GC_ERR_INTERNAL;
	if (!gc_run_record_unpack(buf, len, &rec))
		e = g_strdup("a worker's answer is not a whole run record");
	else
		st = gc_results_store_record(x->results, &rec, &e);
	gc_run_record_clear(&rec);
	g_free(buf);
	if (st == GC_OK)
		(*ran)++;
	else
		note_failure(k, st, e, fail_k, fst, err);
}

static gc_status exec_serial(const sweep_exec *x, const guint *todo, guint ntodo, guint *ran,
			     guint *fail_k, char **err)
{
	for (guint i = 0; i < ntodo; i++) {
		gc_run_record rec;
		memset(&rec, 0, sizeof(rec));
		gc_status st = x->run(x->ctx, todo[i], x->tty, &rec, err);
		if (st == GC_OK)
			st = gc_results_store_record(x->results, &rec, err);
		gc_run_record_clear(&rec);
		if (st != GC_OK) {
			*fail_k = todo[i];
			return st;
		}
		(*ran)++;
	}
	return GC_OK;
}

/* One answer from worker w: stored (or a failure noted); false when the
 * worker is gone. */
static bool take_answer(const sweep_exec *x, worker *w, guint *ran, guint *fail_k, gc_status *fst,
			char **err)
{
	answer_head h;
	if (!read_all(w->res_fd, &h, sizeof(h))) {
		note_failure((guint)w->cell, GC_ERR_INTERNAL, death_of(w), fail_k, fst, err);
		return false;
	}
	if (h.cell != w->cell || h.len > ((uint64_t)1 << 40)) { /* not its answer: stop it */
		kill(w->pid, SIGKILL);
		note_failure((guint)w->cell, GC_ERR_INTERNAL, death_of(w), fail_k, fst, err);
		return false;
	}
	char *buf = g_malloc(h.len + 1);
	if (!read_all(w->res_fd, buf, h.len)) {
		g_free(buf);
		note_failure((guint)w->cell, GC_ERR_INTERNAL, death_of(w), fail_k, fst, err);
		return false;
	}
	buf[h.len] = 0;
	guint k = (guint)w->cell;
	w->cell = -1;
	sweep_exec_take(x, k, (gc_status)h.status, buf, h.len, ran, fail_k, fst, err);
	return true;
}

gc_status sweep_exec_cells(const sweep_exec *x, const guint *todo, guint ntodo, int jobs, guint *ran,
			   guint *fail_k, char **err)
{
	*ran = 0;
	if (jobs > (int)ntodo)
		jobs = (int)ntodo;
	if (jobs <= 1)
		return exec_serial(x, todo, ntodo, ran, fail_k, err);
	/* a worker that dies makes its task pipe a broken one: the write
	 * fails with EPIPE instead of killing this process */
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	fflush(stdout);
	fflush(stderr);
	worker *ws = g_new0(worker, jobs);
	gc_status fst = GC_OK;
	int started = 0;
	for (int i = 0; i < jobs; i++) {
		int t[2], r[2];
		if (pipe(t) != 0)
			break;
		if (pipe(r) != 0) {
			close(t[0]);
			close(t[1]);
			break;
		}
		pid_t pid = fork();
		if (pid < 0) {
			close(t[0]);
			close(t[1]);
			close(r[0]);
			close(r[1]);
			break;
		}
		if (pid == 0) {
			/* the child keeps its own two ends only */
			for (int o = 0; o < started; o++) {
				close_fd(&ws[o].task_fd);
				close_fd(&ws[o].res_fd);
			}
			close(t[1]);
			close(r[0]);
			sigaction(SIGPIPE, &old, NULL);
			worker_main(x, t[0], r[1]);
		}
		close(t[0]);
		close(r[1]);
		ws[i] = (worker){pid, t[1], r[0], -1};
		started++;
	}
	if (started == 0) {
		g_free(ws);
		sigaction(SIGPIPE, &old, NULL);
		return exec_serial(x, todo, ntodo, ran, fail_k, err); /* no process to spare */
	}
	guint next = 0, finished = 0;
	int running = 0;
	gint64 t0 = g_get_monotonic_time();
	struct pollfd *pf = g_new(struct pollfd, started);
	int *who = g_new(int, started);
	for (;;) {
		/* every idle worker gets the next cell, or is told to stop */
		for (int i = 0; i < started; i++) {
			worker *w = &ws[i];
			if (w->pid <= 0 || w->cell >= 0 || w->task_fd < 0)
				continue;
			int32_t k = fst == GC_OK && next < ntodo ? (int32_t)todo[next] : -1;
			if (k >= 0 && write_all(w->task_fd, &k, sizeof(k))) {
				w->cell = k;
				next++;
				running++;
			} else {
				/* no more cells (its read sees the end and it exits), or
				 * it died while idle and the cell goes to another */
				close_fd(&w->task_fd);
			}
		}
		if (x->tty)
			sweep_exec_progress(x, finished, ntodo, running, t0);
		int n = 0;
		for (int i = 0; i < started; i++)
			if (ws[i].cell >= 0) {
				pf[n] = (struct pollfd){.fd = ws[i].res_fd, .events = POLLIN};
				who[n++] = i;
			}
		if (n == 0)
			break;
		if (poll(pf, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int j = 0; j < n; j++) {
			if (!(pf[j].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			worker *w = &ws[who[j]];
			running--;
			finished++;
			if (!take_answer(x, w, ran, fail_k, &fst, err)) {
				w->cell = -1;
				close_fd(&w->task_fd);
				close_fd(&w->res_fd);
			}
		}
	}
	if (x->tty)
		fputs("\r\033[K", stderr);
	for (int i = 0; i < started; i++) {
		close_fd(&ws[i].task_fd);
		close_fd(&ws[i].res_fd);
		if (ws[i].pid > 0) {
			int status;
			while (waitpid(ws[i].pid, &status, 0) < 0 && errno == EINTR)
				;
		}
	}
	/* cells never handed out because every worker died: a failure too */
	if (fst == GC_OK && next < ntodo) {
		*fail_k = todo[next];
		fst = GC_ERR_INTERNAL;
		*err = g_strdup("no worker process was left to run it");
	}
	g_free(pf);
	g_free(who);
	g_free(ws);
	sigaction(SIGPIPE, &old, NULL);
	return fst;
}
