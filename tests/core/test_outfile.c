/* SPDX-License-Identifier: MIT */
/*
 * test_outfile: gc_outfile (how output files are written) and the failure
 * paths of gc_results (damaged, read-only, unwritable results files) and
 * gc_nomem's checked allocation.
 *
 * Every case runs in a fresh scratch folder: what is at PATH before the
 * write (nothing, a file, a link, a directory, a device) and what must be
 * there after it, and that no PATH.tmp is ever left.
 */
#include <errno.h>
#include <stddef.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/core/gc_nomem.h"
#include "sim/core/gc_outfile.h"
#include "sim/core/gc_results.h"

static char *dir;

static char *at(const char *name)
{
	return g_build_filename(dir, name, NULL);
}

static char *slurp(const char *path)
{
	char *s = NULL;
	g_assert_true(g_file_get_contents(path, &s, NULL, NULL));
	return s;
}

static void put(const char *path, const char *text)
{
	g_assert_true(g_file_set_contents(path, text, -1, NULL));
}

static void setup(void)
{
	dir = g_dir_make_tmp("gcsim-outfile-XXXXXX", NULL);
	g_assert_nonnull(dir);
}

static void teardown(void)
{
	/* the scratch folder's files, then the folder */
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *n;
	while ((n = g_dir_read_name(d))) {
		char *p = at(n);
		if (g_file_test(p, G_FILE_TEST_IS_DIR) && !g_file_test(p, G_FILE_TEST_IS_SYMLINK))
			g_rmdir(p);
		else
			g_unlink(p);
		g_free(p);
	}
	g_dir_close(d);
	g_rmdir(dir);
	g_clear_pointer(&dir, g_free);
}

static void test_new_and_replace(void)
{
	setup();
	char *p = at("out.txt"), *tmp = at("out.txt.tmp"), *err = NULL;
	g_assert_cmpint(gc_outfile_write(p, "test", "one\n", 4, &err), ==, GC_OK);
	char *s = slurp(p);
	g_assert_cmpstr(s, ==, "one\n");
	g_free(s);
	g_assert_false(g_file_test(tmp, G_FILE_TEST_EXISTS));
	/* a replaced file keeps its mode */
	g_assert_cmpint(chmod(p, 0640), ==, 0);
	g_assert_cmpint(gc_outfile_write(p, "test", "two\n", 4, &err), ==, GC_OK);
	struct stat sb;
	g_assert_cmpint(stat(p, &sb), ==, 0);
	g_assert_cmpint(sb.st_mode & 0777, ==, 0640);
	s = slurp(p);
	g_assert_cmpstr(s, ==, "two\n");
	g_free(s);
	/* while open, PATH is the old file and PATH.tmp the new one */
	gc_outfile o;
	g_assert_cmpint(gc_outfile_open(&o, p, "test", &err), ==, GC_OK);
	fputs("three\n", o.f);
	s = slurp(p);
	g_assert_cmpstr(s, ==, "two\n");
	g_free(s);
	g_assert_true(g_file_test(tmp, G_FILE_TEST_EXISTS));
	gc_outfile_abort(&o);
	g_assert_false(g_file_test(tmp, G_FILE_TEST_EXISTS));
	s = slurp(p);
	g_assert_cmpstr(s, ==, "two\n");
	g_free(s);
	g_free(p);
	g_free(tmp);
	teardown();
}

static void test_symlink(void)
{
	setup();
	char *target = at("target.txt"), *link = at("link.txt"), *err = NULL;
	put(target, "old\n");
	g_assert_cmpint(symlink("target.txt", link), ==, 0);
	g_assert_cmpint(gc_outfile_write(link, "test", "new\n", 4, &err), ==, GC_OK);
	g_assert_true(g_file_test(link, G_FILE_TEST_IS_SYMLINK));
	char *s = slurp(target);
	g_assert_cmpstr(s, ==, "new\n");
	g_free(s);
	char *tt = at("target.txt.tmp"), *lt = at("link.txt.tmp");
	g_assert_false(g_file_test(tt, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(lt, G_FILE_TEST_EXISTS));
	/* a link to nothing: the file it names is made */
	char *ahead = at("ahead.txt"), *made = at("made.txt");
	g_assert_cmpint(symlink("made.txt", ahead), ==, 0);
	g_assert_cmpint(gc_outfile_write(ahead, "test", "x", 1, &err), ==, GC_OK);
	g_assert_true(g_file_test(ahead, G_FILE_TEST_IS_SYMLINK));
	g_assert_true(g_file_test(made, G_FILE_TEST_IS_REGULAR));
	g_free(target);
	g_free(link);
	g_free(tt);
	g_free(lt);
	g_free(ahead);
	g_free(made);
	teardown();
}

static void test_refused(void)
{
	setup();
	char *d = at("d"), *err = NULL;
	g_assert_cmpint(g_mkdir(d, 0755), ==, 0);
	g_assert_cmpint(gc_outfile_check(d, "test", &err), ==, GC_ERR_IO);
	g_assert_nonnull(strstr(err, "it is a directory"));
	g_clear_pointer(&err, g_free);
	gc_outfile o;
	g_assert_cmpint(gc_outfile_open(&o, d, "test", &err), ==, GC_ERR_IO);
	g_assert_nonnull(strstr(err, ": cannot write test: it is a directory"));
	g_assert_null(o.f);
	g_clear_pointer(&err, g_free);
	g_assert_true(g_file_test(d, G_FILE_TEST_IS_DIR));
	/* a missing folder: refused by the check, nothing made */
	char *deep = at("no/such/file");
	g_assert_cmpint(gc_outfile_check(deep, "test", &err), ==, GC_ERR_IO);
	g_assert_nonnull(strstr(err, g_strerror(ENOENT)));
	g_clear_pointer(&err, g_free);
	/* the check makes nothing where it would succeed either */
	char *fresh = at("fresh");
	g_assert_cmpint(gc_outfile_check(fresh, "test", &err), ==, GC_OK);
	g_assert_false(g_file_test(fresh, G_FILE_TEST_EXISTS));
	g_free(d);
	g_free(deep);
	g_free(fresh);
	teardown();
}

static void test_stale_tmp_link(void)
{
	setup();
	char *victim = at("victim"), *p = at("out"), *tmp = at("out.tmp"), *err = NULL;
	put(victim, "keep");
	g_assert_cmpint(symlink("victim", tmp), ==, 0);
	g_assert_cmpint(gc_outfile_write(p, "test", "data", 4, &err), ==, GC_OK);
	char *s = slurp(victim);
	g_assert_cmpstr(s, ==, "keep");
	g_free(s);
	s = slurp(p);
	g_assert_cmpstr(s, ==, "data");
	g_free(s);
	g_assert_false(g_file_test(tmp, G_FILE_TEST_EXISTS));
	g_free(victim);
	g_free(p);
	g_free(tmp);
	teardown();
}

static void test_devices(void)
{
	char *err = NULL;
	/* written in place: /dev/null stays a character device */
	g_assert_cmpint(gc_outfile_write("/dev/null", "test", "x", 1, &err), ==, GC_OK);
	struct stat sb;
	g_assert_cmpint(stat("/dev/null", &sb), ==, 0);
	g_assert_true(S_ISCHR(sb.st_mode));
	if (access("/dev/full", W_OK) != 0) {
		g_test_skip("no writable /dev/full");
		return;
	}
	/* a write error is named with the path and the reason, at the commit
	 * even when the failed write was an earlier, buffered one */
	gc_outfile o;
	g_assert_cmpint(gc_outfile_open(&o, "/dev/full", "test", &err), ==, GC_OK);
	for (int i = 0; i < 100000; i++)
		fputs("0123456789", o.f);
	g_assert_cmpint(gc_outfile_commit(&o, &err), ==, GC_ERR_IO);
	char *want = g_strdup_printf("/dev/full: cannot write test: %s", g_strerror(ENOSPC));
	g_assert_cmpstr(err, ==, want);
	g_assert_null(o.f);
	g_free(want);
	g_free(err);
}

static void test_remove_pending(void)
{
	setup();
	char *p = at("out"), *tmp = at("out.tmp"), *err = NULL;
	gc_outfile o;
	g_assert_cmpint(gc_outfile_open(&o, p, "test", &err), ==, GC_OK);
	g_assert_true(g_file_test(tmp, G_FILE_TEST_EXISTS));
	gc_outfile_remove_pending();
	g_assert_false(g_file_test(tmp, G_FILE_TEST_EXISTS));
	gc_outfile_abort(&o);
	g_assert_false(g_file_test(p, G_FILE_TEST_EXISTS));
	g_free(p);
	g_free(tmp);
	teardown();
}

/* A results file with one run. */
static void one_run(const char *path)
{
	gc_results *r = NULL;
	char *err = NULL;
	int64_t id = 0;
	g_assert_cmpint(gc_results_open(path, true, &r, &err), ==, GC_OK);
	g_assert_cmpint(gc_results_begin(r, &err), ==, GC_OK);
	gc_run_info info = {.kind = "sim", .label = "t"};
	g_assert_cmpint(gc_results_insert_run(r, &info, &id, &err), ==, GC_OK);
	gc_result_point pt;
	gc_result_point_init(&pt);
	strcpy(pt.collective, "allreduce");
	pt.size_bytes = 8;
	for (int i = 0; i < 200; i++)
		g_assert_cmpint(gc_results_insert_point(r, id, &pt, &err), ==, GC_OK);
	g_assert_cmpint(gc_results_commit(r, &err), ==, GC_OK);
	gc_results_close(r);
}

static void test_results_damaged(void)
{
	setup();
	char *p = at("r.db"), *err = NULL;
	one_run(p);
	/* the points table's root page (page 3): a cell pointer out of range */
	FILE *f = fopen(p, "r+b");
	g_assert_nonnull(f);
	g_assert_cmpint(fseek(f, 2 * 4096, SEEK_SET), ==, 0);
	fwrite("\015\000\000\000\007", 1, 5, f);
	g_assert_cmpint(fclose(f), ==, 0);
	gc_results *r = NULL;
	g_assert_cmpint(gc_results_open(p, true, &r, &err), ==, GC_ERR_IO);
	g_assert_null(r);
	g_assert_nonnull(strstr(err, "the results file is damaged"));
	g_assert_nonnull(strstr(err, "move it aside"));
	g_assert_null(strchr(err, '\n'));
	g_free(err);
	g_free(p);
	teardown();
}

static void test_results_discard(void)
{
	setup();
	char *p = at("new.db"), *err = NULL;
	gc_results *r = NULL;
	/* a file this open made, nothing committed: removed */
	g_assert_cmpint(gc_results_open(p, true, &r, &err), ==, GC_OK);
	g_assert_true(g_file_test(p, G_FILE_TEST_EXISTS));
	gc_results_discard(r);
	g_assert_false(g_file_test(p, G_FILE_TEST_EXISTS));
	/* a file that was there: kept */
	one_run(p);
	g_assert_cmpint(gc_results_open(p, true, &r, &err), ==, GC_OK);
	gc_results_discard(r);
	g_assert_true(g_file_test(p, G_FILE_TEST_EXISTS));
	/* not a file, or in no folder: refused before anything is made */
	g_assert_cmpint(gc_results_check_writable(dir, &err), ==, GC_ERR_IO);
	g_assert_nonnull(strstr(err, "not a results file: it is a directory"));
	g_clear_pointer(&err, g_free);
	char *deep = at("no/r.db");
	g_assert_cmpint(gc_results_open(deep, true, &r, &err), ==, GC_ERR_IO);
	g_assert_nonnull(strstr(err, "cannot create the results file"));
	g_clear_pointer(&err, g_free);
	g_free(deep);
	g_free(p);
	teardown();
}

static void test_results_read_only(void)
{
	if (geteuid() == 0) {
		g_test_skip("root writes read-only files (tests/cli/outputs.t runs this as nobody)");
		return;
	}
	setup();
	char *p = at("r.db"), *err = NULL;
	one_run(p);
	g_assert_cmpint(chmod(p, 0444), ==, 0);
	gc_results *r = NULL;
	g_assert_cmpint(gc_results_open(p, true, &r, &err), ==, GC_ERR_IO);
	g_assert_nonnull(strstr(err, "the results file is read-only"));
	g_clear_pointer(&err, g_free);
	/* a reader reads it */
	g_assert_cmpint(gc_results_open(p, false, &r, &err), ==, GC_OK);
	gc_result_point *pts = NULL;
	size_t n = 0;
	g_assert_cmpint(gc_results_get_points(r, 0, &pts, &n, &err), ==, GC_OK);
	g_assert_cmpuint(n, ==, 200);
	g_free(pts);
	gc_results_close(r);
	g_free(p);
	teardown();
}

/* A run record: stored, read back, packed and unpacked, equal field by
 * field; a truncated or padded buffer, or one whose text runs past its
 * field, is refused whole. */
static void test_results_record(void)
{
	setup();
	char *p = at("rec.db"), *err = NULL;
	gc_run_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.run.kind = g_strdup("sim");
	rec.run.label = g_strdup("sweep: topology.nodes=2");
	rec.run.config = g_strdup("topology.nodes: 2\n");
	rec.run.command = g_strdup("gcsim sweep s.yaml");
	rec.npts = 2;
	rec.pts = g_new(gc_result_point, 2);
	for (int i = 0; i < 2; i++) {
		gc_result_point_init(&rec.pts[i]);
		g_strlcpy(rec.pts[i].collective, "allreduce", sizeof(rec.pts[i].collective));
		g_strlcpy(rec.pts[i].algo, i ? "tree" : "ring", sizeof(rec.pts[i].algo));
		rec.pts[i].nranks = 16;
		rec.pts[i].size_bytes = 1048576u << i;
		rec.pts[i].time_us = 12.5 * (i + 1);
		rec.pts[i].iters = 1;
	}
	rec.nprm = 1;
	rec.prm = g_new0(gc_param_row, 1);
	g_strlcpy(rec.prm[0].key, "breakdown:ring:1048576:launch", sizeof(rec.prm[0].key));
	rec.prm[0].value = 8.4;
	g_strlcpy(rec.prm[0].unit, "us", sizeof(rec.prm[0].unit));
	g_assert_cmpint(gc_results_store_record(p, &rec, &err), ==, GC_OK);
	gc_results *r = NULL;
	int64_t id = 0;
	g_assert_cmpint(gc_results_open(p, false, &r, &err), ==, GC_OK);
	g_assert_cmpint(gc_results_last_run(r, "sim", &id, &err), ==, GC_OK);
	gc_run_record back;
	g_assert_cmpint(gc_results_get_record(r, id, &back, &err), ==, GC_OK);
	gc_results_close(r);
	g_assert_cmpstr(back.run.label, ==, rec.run.label);
	g_assert_cmpstr(back.run.config, ==, rec.run.config);
	g_assert_null(back.run.scenario);
	g_assert_nonnull(back.run.created); /* "now" when stored */
	g_assert_cmpuint(back.npts, ==, 2);
	g_assert_cmpstr(back.pts[1].algo, ==, "tree");
	g_assert_cmpfloat(back.pts[1].time_us, ==, 25.0);
	g_assert_cmpuint(back.nprm, ==, 1);
	g_assert_cmpfloat(back.prm[0].value, ==, 8.4);
	size_t len = 0;
	void *buf = gc_run_record_pack(&back, &len);
	gc_run_record un;
	g_assert_true(gc_run_record_unpack(buf, len, &un));
	g_assert_cmpstr(un.run.created, ==, back.run.created);
	g_assert_null(un.run.scenario);
	g_assert_cmpuint(un.npts, ==, 2);
	g_assert_cmpmem(un.pts, 2 * sizeof(gc_result_point), back.pts, 2 * sizeof(gc_result_point));
	g_assert_cmpmem(un.prm, sizeof(gc_param_row), back.prm, sizeof(gc_param_row));
	gc_run_record_clear(&un);
	for (size_t cut = 0; cut < len; cut += 7) /* every shorter buffer */
		g_assert_false(gc_run_record_unpack(buf, cut, &un));
	char *pad = g_malloc0(len + 1);
	memcpy(pad, buf, len);
	g_assert_false(gc_run_record_unpack(pad, len + 1, &un));
	/* a point's algorithm that fills its field without an end */
	size_t at_pts = len - 2 * sizeof(gc_result_point) - sizeof(gc_param_row);
	memset(pad + at_pts + offsetof(gc_result_point, algo), 'x', sizeof(((gc_result_point *)0)->algo));
	g_assert_false(gc_run_record_unpack(pad, len, &un));
	g_assert_null(un.pts);
	g_free(pad);
	g_free(buf);
	gc_run_record_clear(&back);
	gc_run_record_clear(&rec);
	g_free(p);
	teardown();
}

static void test_try_alloc(void)
{
	g_assert_null(gc_try_alloc0(SIZE_MAX / 2, 4));
	char *err = NULL;
	g_assert_cmpint(gc_nomem_err(&err, "the flow table", SIZE_MAX / 2, 4), ==, GC_ERR_NOMEM);
	g_assert_true(g_str_has_prefix(err, "out of memory: the flow table needs more than "));
	g_free(err);
	int *x = gc_try_alloc0(16, sizeof(int));
	g_assert_nonnull(x);
	g_assert_cmpint(x[15], ==, 0);
	g_free(x);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/outfile/new-and-replace", test_new_and_replace);
	g_test_add_func("/outfile/symlink", test_symlink);
	g_test_add_func("/outfile/refused", test_refused);
	g_test_add_func("/outfile/stale-tmp-link", test_stale_tmp_link);
	g_test_add_func("/outfile/devices", test_devices);
	g_test_add_func("/outfile/remove-pending", test_remove_pending);
	g_test_add_func("/results/damaged", test_results_damaged);
	g_test_add_func("/results/discard", test_results_discard);
	g_test_add_func("/results/read-only", test_results_read_only);
	g_test_add_func("/results/record", test_results_record);
	g_test_add_func("/nomem/try-alloc", test_try_alloc);
	return g_test_run();
}
