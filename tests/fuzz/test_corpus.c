/* SPDX-License-Identifier: MIT */
/*
 * test_corpus: replay the scenario fuzz corpus through gm_scenario_load().
 *
 * tests/fuzz/corpus/scenario/ holds:
 *  - bad-*.yaml: one error class each. The first line says what must come
 *    back, "# expect: LINE:COL PHRASE"; files that cannot carry such a line
 *    (empty, UTF-16) have it in `fixed` below. The load must fail with
 *    GC_ERR_INPUT, and the message must be one line "PATH:LINE:COL: TEXT"
 *    at exactly that position and containing PHRASE.
 *  - good-*.yaml: must load.
 *  - anything else (inputs the fuzzer found): must load or fail cleanly,
 *    with the same message form.
 * The corpus is found next to this source file (the suite runs from the
 * repository root) or in $GCSIM_CORPUS.
 */
#include <glib.h>
#include <string.h>

#include "sim/models/run/gm_scenario.h"

typedef struct {
	const char *file;
	const char *expect; /* "LINE:COL PHRASE" */
} fixed_expect;

static const fixed_expect fixed[] = {
	{"bad-empty.yaml", "1:1 empty file; expected a scenario mapping"},
	{"bad-utf16.yaml", "2:1 unknown key 'colective' at top level"},
};

static char *corpus_dir(void)
{
	const char *env = g_getenv("GCSIM_CORPUS");
	char *src;
	char *dir;

	if (env)
		return g_strdup(env);
	src = g_path_get_dirname(__FILE__);
	dir = g_build_filename(src, "corpus", "scenario", NULL);
	g_free(src);
	return dir;
}

/* The message must be "PATH:LINE:COL: TEXT", one line. */
static void check_form(const char *path, const char *err)
{
	char *quoted = g_regex_escape_string(path, -1);
	char *pattern = g_strdup_printf("^%s:[1-9][0-9]*:[1-9][0-9]*: [^\\n]+$", quoted);

	g_assert_nonnull(err);
	g_assert_null(strchr(err, '\n'));
	if (!g_regex_match_simple(pattern, err, 0, 0))
		g_error("message not of the form PATH:LINE:COL: TEXT: %s", err);
	g_free(pattern);
	g_free(quoted);
}

/* "LINE:COL PHRASE" for a bad file, from `fixed` or its first line. */
static char *expectation(const char *path)
{
	char *base = g_path_get_basename(path), *text = NULL, *want = NULL;
	gsize len;

	for (size_t i = 0; i < G_N_ELEMENTS(fixed); i++)
		if (strcmp(base, fixed[i].file) == 0)
			want = g_strdup(fixed[i].expect);
	if (!want && g_file_get_contents(path, &text, &len, NULL) &&
	    g_str_has_prefix(text, "# expect: ")) {
		char *nl = strchr(text, '\n');

		want = g_strndup(text + 10, nl ? (gsize)(nl - text - 10) : strlen(text + 10));
	}
	g_free(text);
	g_free(base);
	if (!want)
		g_error("%s: no expectation (first line '# expect: LINE:COL PHRASE')", path);
	return want;
}

static void test_file(gconstpointer data)
{
	const char *path = data;
	char *base = g_path_get_basename(path), *err = NULL;
	gc_config *cfg = NULL;
	gc_status st = gm_scenario_load(path, NULL, &cfg, &err);

	if (g_str_has_prefix(base, "good-")) {
		if (st != GC_OK)
			g_error("%s should load: %s", path, err);
		g_assert_nonnull(cfg);
	} else if (g_str_has_prefix(base, "bad-")) {
		char *want = expectation(path), *space = strchr(want, ' ');
		char *pos, *at;

		g_assert_nonnull(space);
		*space = '\0';
		g_test_message("%s: %s", path, err ? err : "(no error)");
		g_assert_cmpint(st, ==, GC_ERR_INPUT);
		g_assert_null(cfg);
		check_form(path, err);
		pos = g_strdup_printf("%s:%s: ", path, want);
		if (!g_str_has_prefix(err, pos))
			g_error("expected the error at %s, got: %s", want, err);
		at = err + strlen(pos);
		if (!strstr(at, space + 1))
			g_error("expected '%s' in: %s", space + 1, err);
		g_free(pos);
		g_free(want);
	} else if (st != GC_OK) {
		/* A fuzzer find: only the form is fixed. */
		g_assert_cmpint(st, ==, GC_ERR_INPUT);
		check_form(path, err);
	}
	gc_config_free(cfg);
	g_free(err);
	g_free(base);
}

static void test_unreadable(void)
{
	char *dir = corpus_dir();
	char *path = g_build_filename(dir, "no-such-file.yaml", NULL);
	char *err = NULL, *want;
	gc_config *cfg = NULL;

	g_assert_cmpint(gm_scenario_load(path, NULL, &cfg, &err), ==, GC_ERR_INPUT);
	g_assert_null(cfg);
	want = g_strdup_printf("%s:1:1: cannot open file: No such file or directory", path);
	g_assert_cmpstr(err, ==, want);
	g_free(want);
	g_free(err);
	/* A directory opens but cannot be read. Both are input errors (exit
	 * status 2): the user named a file that is not a scenario. */
	g_assert_cmpint(gm_scenario_load(dir, NULL, &cfg, &err), ==, GC_ERR_INPUT);
	check_form(dir, err);
	g_free(err);
	g_free(path);
	g_free(dir);
}

static void test_sets(void)
{
	char *dir = corpus_dir();
	char *path = g_build_filename(dir, "good-flat.yaml", NULL);
	const char *const good[] = {"topology.gpus=8", "collective.sizes=1KiB,2KiB", NULL};
	const char *const bad[] = {"topology.gpus=8", "topology.gpus=0", NULL};
	const char *const unknown[] = {"topology.gpu=8", NULL};
	char *err = NULL;
	gc_config *cfg = NULL;
	size_t n = 0;

	g_assert_cmpint(gm_scenario_load(path, good, &cfg, &err), ==, GC_OK);
	g_assert_cmpint(gc_config_int(cfg, "topology.gpus"), ==, 8);
	gc_config_bytes_list(cfg, "collective.sizes", &n);
	g_assert_cmpuint(n, ==, 2);
	gc_config_free(cfg);
	cfg = NULL;
	g_assert_cmpint(gm_scenario_load(path, bad, &cfg, &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "--set topology.gpus=0: must be at least 1, got 0");
	g_free(err);
	g_assert_cmpint(gm_scenario_load(path, unknown, &cfg, &err), ==, GC_ERR_INPUT);
	g_assert_true(g_str_has_prefix(err, "--set topology.gpu=8: unknown key 'topology.gpu'; "
					    "did you mean: topology.gpus"));
	g_free(err);
	g_free(path);
	g_free(dir);
}

/* g_ptr_array_sort hands pointers to the elements. */
static gint cmp_names(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	char *dir;
	GDir *d;
	GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
	const char *name;
	int rc;

	g_test_init(&argc, &argv, NULL);
	dir = corpus_dir();
	d = g_dir_open(dir, 0, NULL);
	if (!d)
		g_error("corpus directory %s not found (run from the repository root, or set "
			"GCSIM_CORPUS)", dir);
	while ((name = g_dir_read_name(d)))
		g_ptr_array_add(files, g_strdup(name));
	g_dir_close(d);
	g_ptr_array_sort(files, cmp_names);
	for (guint i = 0; i < files->len; i++) {
		const char *f = g_ptr_array_index(files, i);
		char *tname = g_strdup_printf("/corpus/%s", f);

		/* The path outlives the run: handed to the test as its data. */
		g_test_add_data_func_full(tname, g_build_filename(dir, f, NULL), test_file, g_free);
		g_free(tname);
	}
	g_test_add_func("/corpus-io/unreadable", test_unreadable);
	g_test_add_func("/corpus-io/sets", test_sets);
	rc = g_test_run();
	g_ptr_array_free(files, TRUE);
	g_free(dir);
	return rc;
}
