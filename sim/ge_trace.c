/* SPDX-License-Identifier: MIT */
/* ge_trace: streaming Chrome trace JSON writer (see ge_trace.h). */
#include "ge_trace.h"

#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <string.h>

gc_status ge_trace_open(ge_trace *t, const char *path, char **errmsg)
{
	memset(t, 0, sizeof(*t));
	gc_status st = gc_outfile_open(&t->out, path, "trace", errmsg);
	if (st != GC_OK)
		return st;
	t->f = t->out.f;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", t->f);
	t->first = 1;
	return GC_OK;
}

static void sep(ge_trace *t)
{
	if (!t->first)
		fputs(",\n", t->f);
	t->first = 0;
	t->nevents++;
}

/* Picoseconds as microseconds with exactly six decimals. */
static void put_us(FILE *f, int64_t ps)
{
	if (ps < 0) {
		fputc('-', f);
		ps = -ps;
	}
	fprintf(f, "%" PRId64 ".%06" PRId64, ps / 1000000, ps % 1000000);
}

static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void ge_trace_name_process(ge_trace *t, int pid, const char *name)
{
	if (!t->f)
		return;
	sep(t);
	fprintf(t->f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":", pid);
	put_str(t->f, name);
	fputs("}}", t->f);
	sep(t);
	fprintf(t->f, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"args\":{\"sort_index\":%d}}",
		pid, pid);
}

void ge_trace_name_thread(ge_trace *t, int pid, int tid, const char *name)
{
	if (!t->f)
		return;
	sep(t);
	fprintf(t->f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
		pid, tid);
	put_str(t->f, name);
	fputs("}}", t->f);
}

void ge_trace_slice(ge_trace *t, int pid, int tid, const char *name, int64_t start_ps,
		    int64_t dur_ps, const char *args)
{
	if (!t->f)
		return;
	sep(t);
	fprintf(t->f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"name\":", pid, tid);
	put_str(t->f, name);
	fputs(",\"ts\":", t->f);
	put_us(t->f, start_ps + t->offset_ps);
	fputs(",\"dur\":", t->f);
	put_us(t->f, dur_ps);
	if (args)
		fprintf(t->f, ",\"args\":{%s}", args);
	fputc('}', t->f);
}

void ge_trace_counter(ge_trace *t, int pid, const char *name, int64_t t_ps, double value)
{
	if (!t->f)
		return;
	sep(t);
	fprintf(t->f, "{\"ph\":\"C\",\"pid\":%d,\"name\":", pid);
	put_str(t->f, name);
	fputs(",\"ts\":", t->f);
	put_us(t->f, t_ps + t->offset_ps);
	fprintf(t->f, ",\"args\":{\"value\":%.6g}}", value);
}

gc_status ge_trace_close(ge_trace *t, char **errmsg)
{
	if (!t->f)
		return GC_OK;
	fputs("\n]}\n", t->f);
	gc_status st = gc_outfile_commit(&t->out, errmsg);
	memset(t, 0, sizeof(*t));
	return st;
}

gc_status ge_trace_finish(ge_trace *t, gc_status st, char **errmsg)
{
	if (st == GC_OK)
		return ge_trace_close(t, errmsg);
	ge_trace_abort(t);
	return st;
}

void ge_trace_abort(ge_trace *t)
{
	gc_outfile_abort(&t->out);
	memset(t, 0, sizeof(*t));
}
