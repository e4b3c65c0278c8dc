/* SPDX-License-Identifier: MIT */
/*
 * test_config: the gc_config store, YAML loader and --set overrides, on a
 * small parameter table of this file's own.
 *
 * Error messages are compared whole where their exact wording is part of
 * the contract (FILE:LINE:COLUMN, the key, what was expected), so a change
 * of wording is a deliberate change of these tests.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/core/gc_config.h"
#include "sim/core/gc_units.h"

static const gc_param t_doc[] = {
	{"schema_version", GC_P_INT, NULL, NULL, 1, 1, "format version", NULL},
	{"name", GC_P_STRING, "", NULL, 1, 0, "short name", NULL},
	{"ratio", GC_P_DOUBLE, "0.5", NULL, 0, 1, "a fraction", NULL},
};

static const gc_param t_topo[] = {
	{"topology.gpus", GC_P_INT, NULL, NULL, 1, 1024, "number of GPUs", NULL},
	{"topology.link.bandwidth", GC_P_BW, "50GB/s", NULL, 1, 1e16, "link bandwidth", NULL},
	{"topology.link.latency", GC_P_TIME, "1us", NULL, 0, 1e15, "link latency", NULL},
};

static const gc_param t_coll[] = {
	{"collective.op", GC_P_ENUM, "allreduce", "allreduce|allgather|reducescatter|sendrecv", 1,
	 0, "the collective", NULL},
	{"collective.sizes", GC_P_BYTES_LIST, "32MiB", NULL, 1, 1.8446744073709552e19,
	 "message sizes", NULL},
	{"collective.chunk", GC_P_BYTES, "2MiB", NULL, 4, 1099511627776.0, "chunk", NULL},
	{"collective.iters", GC_P_INT, "1", NULL, 1, 1000000, "repetitions", NULL},
	{"sim.check", GC_P_BOOL, "false", NULL, 1, 0, "check invariants", NULL},
};

static gc_config *t_new(void)
{
	gc_config *cfg = gc_config_new();

	gc_config_add_params(cfg, t_doc, G_N_ELEMENTS(t_doc));
	gc_config_add_params(cfg, t_topo, G_N_ELEMENTS(t_topo));
	gc_config_add_params(cfg, t_coll, G_N_ELEMENTS(t_coll));
	return cfg;
}

/* Load `text` as "t.yaml" into cfg; returns the status, *err the message. */
static gc_status t_load(gc_config *cfg, const char *text, char **err)
{
	*err = NULL;
	return gc_config_load_string(cfg, "t.yaml", text, strlen(text), err);
}

/* Loading `text` into a fresh config must fail with exactly `want`. */
static void expect_error(const char *text, const char *want)
{
	gc_config *cfg = t_new();
	char *err = NULL;

	char *shown = g_strescape(text, NULL);

	g_test_message("input: %s", shown);
	g_free(shown);
	g_assert_cmpint(t_load(cfg, text, &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, want);
	g_free(err);
	gc_config_free(cfg);
}

/* Same, when only the position and a phrase are fixed (libyaml's wording). */
static void expect_error_like(const char *text, const char *pos, const char *phrase)
{
	gc_config *cfg = t_new();
	char *err = NULL;

	char *shown = g_strescape(text, NULL);

	g_test_message("input: %s", shown);
	g_free(shown);
	g_assert_cmpint(t_load(cfg, text, &err), ==, GC_ERR_INPUT);
	g_test_message("error: %s", err);
	g_assert_true(g_str_has_prefix(err, pos));
	g_assert_nonnull(strstr(err, phrase));
	g_assert_null(strchr(err, '\n'));
	g_free(err);
	gc_config_free(cfg);
}

static void test_defaults(void)
{
	gc_config *cfg = t_new();
	size_t n = 0;
	const uint64_t *l;

	g_assert_false(gc_config_is_set(cfg, "topology.gpus"));
	g_assert_false(gc_config_has(cfg, "topology.gpus"));
	g_assert_true(gc_config_has(cfg, "topology.link.bandwidth"));
	g_assert_false(gc_config_is_set(cfg, "topology.link.bandwidth"));
	g_assert_false(gc_config_has(cfg, "no.such.key"));
	g_assert_true(gc_config_bw(cfg, "topology.link.bandwidth") == 50e9);
	g_assert_cmpint(gc_config_time(cfg, "topology.link.latency"), ==, GC_PS_PER_US);
	g_assert_cmpstr(gc_config_str(cfg, "collective.op"), ==, "allreduce");
	g_assert_cmpstr(gc_config_str(cfg, "name"), ==, "");
	g_assert_cmpuint(gc_config_bytes(cfg, "collective.chunk"), ==, 2u << 20);
	g_assert_true(gc_config_double(cfg, "ratio") == 0.5);
	g_assert_false(gc_config_bool(cfg, "sim.check"));
	l = gc_config_bytes_list(cfg, "collective.sizes", &n);
	g_assert_cmpuint(n, ==, 1);
	g_assert_cmpuint(l[0], ==, 32u << 20);
	/* Registration order. */
	g_assert_cmpstr(gc_config_param_at(cfg, 0)->key, ==, "schema_version");
	g_assert_cmpstr(gc_config_param_at(cfg, 3)->key, ==, "topology.gpus");
	g_assert_cmpstr(gc_config_param_at(cfg, 10)->key, ==, "sim.check");
	g_assert_null(gc_config_param_at(cfg, 11));
	gc_config_free(cfg);
}

static void test_load_good(void)
{
	gc_config *cfg = t_new();
	char *err = NULL, where[128];
	size_t n = 0;
	const uint64_t *l;
	const char *text = "# a scenario\n"
			   "schema_version: 1\n"
			   "name: 'ring test'\n"
			   "topology:\n"
			   "  gpus: \"8\"\n"
			   "  link: {bandwidth: 400Gbps, latency: 0.1us}\n"
			   "collective:\n"
			   "  op: allgather\n"
			   "  sizes:\n"
			   "    - 1.5KiB\n"
			   "    - 4GiB\n"
			   "  chunk: 1 MiB\n"
			   "sim: {check: true}\n"
			   "ratio: 1e-3\n";

	g_assert_cmpint(t_load(cfg, text, &err), ==, GC_OK);
	g_assert_null(err);
	g_assert_cmpint(gc_config_int(cfg, "schema_version"), ==, 1);
	g_assert_cmpstr(gc_config_str(cfg, "name"), ==, "ring test");
	g_assert_cmpint(gc_config_int(cfg, "topology.gpus"), ==, 8);
	g_assert_true(gc_config_bw(cfg, "topology.link.bandwidth") == 50e9);
	g_assert_cmpint(gc_config_time(cfg, "topology.link.latency"), ==, 100000);
	g_assert_cmpstr(gc_config_str(cfg, "collective.op"), ==, "allgather");
	l = gc_config_bytes_list(cfg, "collective.sizes", &n);
	g_assert_cmpuint(n, ==, 2);
	g_assert_cmpuint(l[0], ==, 1536);
	g_assert_cmpuint(l[1], ==, UINT64_C(4) << 30);
	g_assert_cmpuint(gc_config_bytes(cfg, "collective.chunk"), ==, 1u << 20);
	g_assert_true(gc_config_bool(cfg, "sim.check"));
	g_assert_true(gc_config_double(cfg, "ratio") == 1e-3);
	g_assert_true(gc_config_is_set(cfg, "topology.gpus"));
	g_assert_false(gc_config_is_set(cfg, "collective.iters"));
	/* Positions are those of the values, 1-based. */
	g_assert_cmpstr(gc_config_where(cfg, "topology.gpus", where, sizeof(where)), ==,
			"t.yaml:5:9");
	g_assert_cmpstr(gc_config_where(cfg, "topology.link.latency", where, sizeof(where)), ==,
			"t.yaml:6:39");
	g_assert_cmpstr(gc_config_where(cfg, "collective.sizes", where, sizeof(where)), ==,
			"t.yaml:10:5");
	/* Unset keys point at the document start (the first key here). */
	g_assert_cmpstr(gc_config_where(cfg, "collective.iters", where, sizeof(where)), ==,
			"t.yaml:2:1");
	gc_config_free(cfg);
}

static void test_dotted_keys(void)
{
	gc_config *cfg = t_new();
	char *err = NULL;

	g_assert_cmpint(t_load(cfg, "topology.link.bandwidth: 1GB/s\n"
				    "topology: {gpus: 2, link.latency: 5ns}\n",
			       &err),
			==, GC_OK);
	g_assert_true(gc_config_bw(cfg, "topology.link.bandwidth") == 1e9);
	g_assert_cmpint(gc_config_time(cfg, "topology.link.latency"), ==, 5000);
	g_assert_cmpint(gc_config_int(cfg, "topology.gpus"), ==, 2);
	gc_config_free(cfg);
	/* One key by two spellings is a duplicate. */
	expect_error("topology.gpus: 2\ntopology: {gpus: 3}\n",
		     "t.yaml:2:12: duplicate key 'topology.gpus' (first set at 1:16)");
}

static void test_unknown_keys(void)
{
	expect_error("topology:\n  link: {bandwdith: 50GB/s}\n",
		     "t.yaml:2:10: unknown key 'bandwdith' in 'topology.link'; expected one of: "
		     "bandwidth, latency");
	expect_error("schema_version: 1\ncolective: {op: allreduce}\n",
		     "t.yaml:2:1: unknown key 'colective' at top level; expected one of: "
		     "schema_version, name, ratio, topology, collective, sim");
	expect_error("topology: {gpu: 8}\n",
		     "t.yaml:1:12: unknown key 'gpu' in 'topology'; expected one of: gpus, link");
	expect_error("topology.lnk.bandwidth: 1GB/s\n",
		     "t.yaml:1:1: unknown key 'topology.lnk.bandwidth' at top level; expected one "
		     "of: schema_version, name, ratio, topology, collective, sim");
	/* The unknown key is reported even when its value is broken YAML. */
	expect_error("oops: [\n",
		     "t.yaml:1:1: unknown key 'oops' at top level; expected one of: "
		     "schema_version, name, ratio, topology, collective, sim");
	/* Long or odd keys are cut and cleaned: one line, bounded. */
	{
		GString *t = g_string_new("\"");
		gc_config *cfg = t_new();
		char *err = NULL;

		/* YAML caps implicit keys at 1024 characters. */
		for (int i = 0; i < 1000; i++)
			g_string_append_c(t, 'k');
		g_string_append(t, "\\n\": 1\n");
		g_assert_cmpint(t_load(cfg, t->str, &err), ==, GC_ERR_INPUT);
		g_assert_true(g_str_has_prefix(err, "t.yaml:1:1: unknown key 'kkkk"));
		g_assert_nonnull(strstr(err, "kkk...' at top level"));
		g_assert_cmpuint(strlen(err), <, 300);
		g_free(err);
		gc_config_free(cfg);
		g_string_free(t, TRUE);
	}
	expect_error("\"a\\nb\": 1\n",
		     "t.yaml:1:1: unknown key 'a\\nb' at top level; expected one of: "
		     "schema_version, name, ratio, topology, collective, sim");
}

/* A hinted key or section is reported with its hint, in files and --set,
 * at any depth under it; a key it does not cover keeps the usual list. */
static void test_unknown_hints(void)
{
	gc_config *cfg = t_new();
	char *err = NULL;

	gc_config_add_hint(cfg, "study", "belongs to the study command");
	gc_config_add_hint(cfg, "topology.rack", "racks are described elsewhere");
	g_assert_cmpint(t_load(cfg, "schema_version: 1\nstudy: {mode: x}\n", &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "t.yaml:2:1: unknown key 'study' at top level: belongs to the "
				 "study command");
	g_clear_pointer(&err, g_free);
	g_assert_cmpint(t_load(cfg, "topology: {gpus: 2, rack: {size: 4}}\n", &err), ==,
			GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "t.yaml:1:21: unknown key 'rack' in 'topology': racks are "
				 "described elsewhere");
	g_clear_pointer(&err, g_free);
	g_assert_cmpint(gc_config_set(cfg, "study.mode.deep=1", &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "--set study.mode.deep=1: unknown key 'study.mode.deep': belongs "
				 "to the study command");
	g_clear_pointer(&err, g_free);
	g_assert_cmpint(gc_config_set(cfg, "studyx=1", &err), ==, GC_ERR_INPUT);
	g_assert_true(g_str_has_prefix(err, "--set studyx=1: unknown key 'studyx'; did you mean: "));
	g_clear_pointer(&err, g_free);
	g_assert_cmpint(t_load(cfg, "studies: 1\n", &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "t.yaml:1:1: unknown key 'studies' at top level; expected one of: "
				 "schema_version, name, ratio, topology, collective, sim");
	g_free(err);
	gc_config_free(cfg);
}

static void test_type_errors(void)
{
	expect_error("topology:\n  gpus: 3.5\n",
		     "t.yaml:2:9: topology.gpus: expected an integer, got '3.5'");
	expect_error("topology: {gpus: [8]}\n",
		     "t.yaml:1:18: topology.gpus: expected an integer, got a sequence");
	expect_error("topology: {gpus: 99999999999999999999}\n",
		     "t.yaml:1:18: topology.gpus: expected an integer between "
		     "-9223372036854775808 and 9223372036854775807, got '99999999999999999999'");
	expect_error("topology: {link: {bandwidth: 50 parsecs}}\n",
		     "t.yaml:1:30: topology.link.bandwidth: expected a bandwidth such as 50GB/s "
		     "or 400Gbps (units: B/s, KB/s, MB/s, GB/s, TB/s, KiB/s to TiB/s; bits: bps, "
		     "Kbps, Mbps, Gbps, Tbps), got '50 parsecs'");
	expect_error("topology: {link: {latency: 5}}\n",
		     "t.yaml:1:28: topology.link.latency: expected a time with a unit, such as 5us "
		     "or 200ns (a bare number is ambiguous), got '5'");
	expect_error("topology: {link: {latency: 0.5ps}}\n",
		     "t.yaml:1:28: topology.link.latency: expected a whole number of picoseconds, "
		     "such as 1.5ns (0.5ps is too fine), got '0.5ps'");
	expect_error("collective: {chunk: -1MiB}\n",
		     "t.yaml:1:21: collective.chunk: expected a size such as 1MiB, 512KB or 4096 "
		     "(bytes), got '-1MiB'");
	expect_error("collective: {chunk: 1.5B}\n",
		     "t.yaml:1:21: collective.chunk: expected a whole number of bytes, such as "
		     "1536 or 1.5KiB, got '1.5B'");
	expect_error("collective:\n  op: allgahter\n",
		     "t.yaml:2:7: collective.op: expected one of allreduce, allgather, "
		     "reducescatter, sendrecv; got 'allgahter'");
	expect_error("sim: {check: yes}\n",
		     "t.yaml:1:14: sim.check: expected true or false, got 'yes'");
	expect_error("sim: {check: True}\n",
		     "t.yaml:1:14: sim.check: expected true or false, got 'True'");
	expect_error("ratio: nan\n",
		     "t.yaml:1:8: ratio: expected a number such as 0.5, 2 or 1e-3, got 'nan'");
	expect_error("ratio: .inf\n",
		     "t.yaml:1:8: ratio: expected a number such as 0.5, 2 or 1e-3, got '.inf'");
	expect_error("name: {first: a}\n", "t.yaml:1:7: name: expected a string, got a mapping");
	/* A quoted empty string is a value, not nothing. */
	expect_error("topology: {gpus: ''}\n",
		     "t.yaml:1:18: topology.gpus: expected an integer, got ''");
}

static void test_null_values(void)
{
	gc_config *cfg = t_new();
	char *err = NULL;

	expect_error("topology:\n  gpus:\n", "t.yaml:2:8: topology.gpus: expected an integer, got "
					     "nothing");
	expect_error("topology: {gpus: ~}\n",
		     "t.yaml:1:18: topology.gpus: expected an integer, got nothing");
	expect_error("collective: {op: null}\n",
		     "t.yaml:1:18: collective.op: expected one of allreduce, allgather, "
		     "reducescatter, sendrecv; got nothing");
	expect_error("topology: {link: {bandwidth: }}\n",
		     "t.yaml:1:30: topology.link.bandwidth: expected a bandwidth such as 50GB/s "
		     "or 400Gbps, got nothing");
	expect_error("collective: {sizes: }\n",
		     "t.yaml:1:21: collective.sizes: expected a list of sizes such as [1MiB, "
		     "4GiB], got nothing");
	expect_error("topology:\n", "t.yaml:1:10: expected a mapping for 'topology', got nothing");
	/* STRING: nothing is the empty string. */
	g_assert_cmpint(t_load(cfg, "name: x\n", &err), ==, GC_OK);
	g_assert_cmpint(t_load(cfg, "name: ~\n", &err), ==, GC_OK);
	g_assert_cmpstr(gc_config_str(cfg, "name"), ==, "");
	gc_config_free(cfg);
}

static void test_ranges(void)
{
	expect_error("topology: {gpus: 0}\n",
		     "t.yaml:1:18: topology.gpus: must be at least 1, got 0");
	expect_error("topology: {gpus: 1025}\n",
		     "t.yaml:1:18: topology.gpus: must be at most 1024, got 1025");
	expect_error("topology: {gpus: -3}\n",
		     "t.yaml:1:18: topology.gpus: must be at least 1, got -3");
	expect_error("collective: {chunk: 2}\n",
		     "t.yaml:1:21: collective.chunk: must be at least 4B, got 2B");
	expect_error("collective: {chunk: 2TiB}\n",
		     "t.yaml:1:21: collective.chunk: must be at most 1TiB, got 2TiB");
	expect_error("topology: {link: {bandwidth: 0GB/s}}\n",
		     "t.yaml:1:30: topology.link.bandwidth: must be at least 1B/s, got 0GB/s");
	expect_error("topology: {link: {bandwidth: 100000TB/s}}\n",
		     "t.yaml:1:30: topology.link.bandwidth: must be at most 10000000GB/s, got "
		     "100000000GB/s");
	expect_error("topology: {link: {latency: 2000s}}\n",
		     "t.yaml:1:28: topology.link.latency: must be at most 1000s, got 2000s");
	expect_error("ratio: 1.5\n", "t.yaml:1:8: ratio: must be at most 1, got 1.5");
	expect_error("schema_version: 2\n",
		     "t.yaml:1:17: schema_version: must be at most 1, got 2");
	expect_error("collective: {sizes: [1MiB, 0]}\n",
		     "t.yaml:1:28: collective.sizes[1]: must be at least 1B, got 0B");
}

static void test_range_exact_bounds(void)
{
	/* Bounds near 2^63 and 2^64 compare as integers, not as doubles. */
	static const gc_param p[] = {
		{"big", GC_P_INT, NULL, NULL, 0, 4611686018427387904.0, "2^62", NULL},
		{"huge", GC_P_BYTES, NULL, NULL, 0, 1152921504606846976.0, "2^60", NULL},
		{"free", GC_P_INT, NULL, NULL, 1, 0, "no range", NULL},
	};
	gc_config *cfg = gc_config_new();
	char *err = NULL;

	gc_config_add_params(cfg, p, G_N_ELEMENTS(p));
	g_assert_cmpint(gc_config_set(cfg, "big=4611686018427387904", &err), ==, GC_OK);
	g_assert_cmpint(gc_config_set(cfg, "big=4611686018427387905", &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==,
			"--set big=4611686018427387905: must be at most 4611686018427387904, got "
			"4611686018427387905");
	g_free(err);
	g_assert_cmpint(gc_config_set(cfg, "huge=1152921504606846977", &err), ==, GC_ERR_INPUT);
	g_free(err);
	g_assert_cmpint(gc_config_set(cfg, "free=-9223372036854775808", &err), ==, GC_OK);
	g_assert_cmpint(gc_config_int(cfg, "free"), ==, INT64_MIN);
	gc_config_free(cfg);
}

static void test_structure_errors(void)
{
	expect_error("topology: 8\n",
		     "t.yaml:1:11: expected a mapping for 'topology', got a scalar");
	expect_error("topology: [8]\n",
		     "t.yaml:1:11: expected a mapping for 'topology', got a sequence");
	expect_error("- 1\n- 2\n", "t.yaml:1:1: expected a scenario mapping at the top level, got "
				   "a sequence");
	expect_error("hello\n",
		     "t.yaml:1:1: expected a scenario mapping at the top level, got a scalar");
	expect_error("", "t.yaml:1:1: empty file; expected a scenario mapping");
	expect_error("# only a comment\n\n", "t.yaml:1:1: empty file; expected a scenario mapping");
	expect_error("---\n", "t.yaml:2:1: empty document; expected a scenario mapping");
	expect_error("schema_version: 1\n---\nschema_version: 1\n",
		     "t.yaml:2:1: a second document; a scenario file holds exactly one");
	expect_error("schema_version: 1\nschema_version: 1\n",
		     "t.yaml:2:1: duplicate key 'schema_version' at top level (first at 1:1)");
	expect_error("collective:\n  sizes: [1MiB]\n  sizes: [2MiB]\n",
		     "t.yaml:3:3: duplicate key 'sizes' in 'collective' (first at 2:3)");
	expect_error("topology: {[a]: 1}\n",
		     "t.yaml:1:12: keys must be plain names, got a sequence as a key in "
		     "'topology'");
	expect_error("topology: &b {gpus: 1}\n",
		     "t.yaml:1:11: anchors and aliases are not supported (anchor &b); write the "
		     "value out");
	expect_error("topology: {gpus: *n}\n",
		     "t.yaml:1:18: anchors and aliases are not supported (alias *n); write the "
		     "value out");
	expect_error("topology: {gpus: !!int 8}\n",
		     "t.yaml:1:18: tags are not supported ('tag:yaml.org,2002:int'); remove the "
		     "tag, or quote the value for a string");
	expect_error("name: \"a\\0b\"\n", "t.yaml:1:7: a NUL character (\\0) in a scalar");
}

static void test_syntax_errors(void)
{
	expect_error_like("name: \"unterminated\n", "t.yaml:2:1: ", "invalid YAML: ");
	expect_error_like("name: \"unterminated\n", "t.yaml:", "quoted scalar at 1:7");
	expect_error_like("topology:\n\tgpus: 8\n", "t.yaml:2:1: ", "invalid YAML: ");
	expect_error_like("topology: {gpus: 8\n", "t.yaml:2:1: ", "invalid YAML: ");
	expect_error_like("name: b: c\n", "t.yaml:1:8: ", "invalid YAML: mapping values");
	/* Not UTF-8: libyaml's reader reports it, we place it by offset. */
	expect_error_like("name: ok\nx: \xff\xfe\x01\n", "t.yaml:2:4: ", "not a YAML text: ");
	expect_error_like("name: ok\nbad: a\x01\n", "t.yaml:2:7: ", "control characters");
	{
		/* NUL bytes in the input itself. */
		static const char bin[] = "\x7f" "ELF\x02\x01\x01\x00\x00\x00";
		gc_config *cfg = t_new();
		char *err = NULL;

		g_assert_cmpint(gc_config_load_string(cfg, "bin", bin, sizeof(bin) - 1, &err), ==,
				GC_ERR_INPUT);
		g_assert_true(g_str_has_prefix(err, "bin:1:1: not a YAML text: "));
		g_free(err);
		gc_config_free(cfg);
	}
}

static void test_lists(void)
{
	static const struct {
		const char *text;
		size_t n;
		uint64_t first, last;
	} good[] = {
		{"collective: {sizes: 4KiB}\n", 1, 4096, 4096},
		{"collective: {sizes: [1MiB, 4GiB]}\n", 2, 1u << 20, UINT64_C(4) << 30},
		{"collective: {sizes: [1MiB, ]}\n", 1, 1u << 20, 1u << 20},
		{"collective: {sizes: [\"1 MiB\", '2MiB']}\n", 2, 1u << 20, 2u << 20},
		{"collective:\n  sizes:\n  - 1\n  - 2\n  - 3\n", 3, 1, 3},
		{"collective: {sizes: {from: 1KiB, to: 1MiB, factor: 2}}\n", 11, 1024, 1u << 20},
		{"collective: {sizes: {factor: 4, to: 1000, from: 1}}\n", 5, 1, 256},
		{"collective: {sizes: {from: 8, to: 8, factor: 2}}\n", 1, 8, 8},
		{"collective: {sizes: {from: 1, to: 18446744073709551615, factor: 2}}\n", 64, 1,
		 UINT64_C(1) << 63},
	};

	for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
		gc_config *cfg = t_new();
		char *err = NULL;
		size_t n = 0;
		const uint64_t *l;

		char *shown = g_strescape(good[i].text, NULL);

		g_test_message("input: %s", shown);
		g_free(shown);
		g_assert_cmpint(t_load(cfg, good[i].text, &err), ==, GC_OK);
		l = gc_config_bytes_list(cfg, "collective.sizes", &n);
		g_assert_cmpuint(n, ==, good[i].n);
		g_assert_cmpuint(l[0], ==, good[i].first);
		g_assert_cmpuint(l[n - 1], ==, good[i].last);
		gc_config_free(cfg);
	}
	expect_error("collective: {sizes: []}\n",
		     "t.yaml:1:21: collective.sizes: expected at least one size, got an empty "
		     "list");
	expect_error("collective:\n  sizes:\n    - 1MiB\n    - 2 MB/s\n",
		     "t.yaml:4:7: collective.sizes[1]: expected a size such as 1MiB, 512KB or 4096 "
		     "(bytes; units: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), got '2 MB/s'");
	expect_error("collective: {sizes: [1MiB, [2]]}\n",
		     "t.yaml:1:28: collective.sizes[1]: expected a size such as 1MiB, 512KB or "
		     "4096 (bytes), got a sequence");
}

static void test_list_errors(void)
{
	expect_error("collective: {sizes: [1MiB, ~]}\n",
		     "t.yaml:1:28: collective.sizes[1]: expected a size such as 1MiB, 512KB or "
		     "4096 (bytes), got nothing");
	expect_error("collective: {sizes: {from: 4GiB, to: 1MiB, factor: 2}}\n",
		     "t.yaml:1:21: collective.sizes: 'from' (4GiB) is larger than 'to' (1MiB)");
	expect_error("collective: {sizes: {from: 1KiB, to: 1MiB}}\n",
		     "t.yaml:1:21: collective.sizes: a size range needs from, to and factor; "
		     "'factor' is missing");
	expect_error("collective: {sizes: {from: 1KiB, to: 1MiB, factor: 1}}\n",
		     "t.yaml:1:52: collective.sizes.factor: must be at least 2, got 1");
	expect_error("collective: {sizes: {from: 1KiB, to: 1MiB, factor: 1.5}}\n",
		     "t.yaml:1:52: collective.sizes.factor: expected an integer, got '1.5'");
	expect_error("collective: {sizes: {from: 1KiB, to: 1MiB, step: 2}}\n",
		     "t.yaml:1:44: unknown key 'step' in 'collective.sizes'; expected one of: "
		     "from, to, factor");
	expect_error("collective: {sizes: {from: 1KiB, from: 2KiB}}\n",
		     "t.yaml:1:34: duplicate key 'from' in 'collective.sizes' (first at 1:22)");
	expect_error("collective: {sizes: {from: 0, to: 1MiB, factor: 2}}\n",
		     "t.yaml:1:28: collective.sizes.from: must be at least 1B, got 0B");
	expect_error("collective: {sizes: {from: 1x, to: 1MiB, factor: 2}}\n",
		     "t.yaml:1:28: collective.sizes.from: expected a size such as 1MiB, 512KB or "
		     "4096 (bytes; units: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), got '1x'");
	/* 4096 entries are fine, 4097 are not. */
	for (int n = 4096; n <= 4097; n++) {
		GString *t = g_string_new("collective: {sizes: [");
		gc_config *cfg = t_new();
		char *err = NULL;

		for (int i = 0; i < n; i++)
			g_string_append_printf(t, "%s%d", i ? "," : "", i + 1);
		g_string_append(t, "]}\n");
		g_assert_cmpint(t_load(cfg, t->str, &err), ==, n == 4096 ? GC_OK : GC_ERR_INPUT);
		if (n == 4097)
			g_assert_true(g_str_has_suffix(err, ": collective.sizes: more than 4096 "
							    "sizes"));
		g_free(err);
		gc_config_free(cfg);
		g_string_free(t, TRUE);
	}
}

static void test_all_or_nothing(void)
{
	gc_config *cfg = t_new();
	char *err = NULL;

	g_assert_cmpint(t_load(cfg, "topology: {gpus: 8}\nname: first\n", &err), ==, GC_OK);
	/* The second file sets gpus and name, then fails: neither changes. */
	g_assert_cmpint(t_load(cfg, "name: second\ntopology: {gpus: 16, link: {latency: x}}\n",
			       &err),
			==, GC_ERR_INPUT);
	g_free(err);
	g_assert_cmpint(gc_config_int(cfg, "topology.gpus"), ==, 8);
	g_assert_cmpstr(gc_config_str(cfg, "name"), ==, "first");
	/* A syntax error late in the file, after good keys, also commits nothing. */
	g_assert_cmpint(t_load(cfg, "name: third\ntopology: {gpus: 2}\nx: [\n", &err), ==,
			GC_ERR_INPUT);
	g_free(err);
	g_assert_cmpstr(gc_config_str(cfg, "name"), ==, "first");
	gc_config_free(cfg);
}

static void test_files(void)
{
	gc_config *cfg = t_new();
	char *dir = g_dir_make_tmp("gcsim-test-XXXXXX", NULL);
	char *good = g_build_filename(dir, "good.yaml", NULL);
	char *big = g_build_filename(dir, "big.yaml", NULL);
	char *missing = g_build_filename(dir, "missing.yaml", NULL);
	char *err = NULL, *want, where[256], *want_where;
	char *blob;

	g_assert_true(g_file_set_contents(good, "topology:\n  gpus: 4\n", -1, NULL));
	g_assert_cmpint(gc_config_load_file(cfg, good, &err), ==, GC_OK);
	g_assert_cmpint(gc_config_int(cfg, "topology.gpus"), ==, 4);
	want_where = g_strdup_printf("%s:2:9", good);
	g_assert_cmpstr(gc_config_where(cfg, "topology.gpus", where, sizeof(where)), ==,
			want_where);
	g_free(want_where);

	g_assert_cmpint(gc_config_load_file(cfg, missing, &err), ==, GC_ERR_IO);
	want = g_strdup_printf("%s:1:1: cannot open file: No such file or directory", missing);
	g_assert_cmpstr(err, ==, want);
	g_free(want);
	g_free(err);

	g_assert_cmpint(gc_config_load_file(cfg, dir, &err), ==, GC_ERR_IO);
	want = g_strdup_printf("%s:1:1: cannot ", dir);
	g_assert_true(g_str_has_prefix(err, want));
	g_free(want);
	g_free(err);

	/* More than 16 MiB is refused before parsing. */
	blob = g_malloc(17u << 20);
	memset(blob, ' ', 17u << 20);
	blob[0] = '#';
	g_assert_true(g_file_set_contents(big, blob, 17 << 20, NULL));
	g_assert_cmpint(gc_config_load_file(cfg, big, &err), ==, GC_ERR_INPUT);
	want = g_strdup_printf("%s:1:1: too large", big);
	g_assert_true(g_str_has_prefix(err, want));
	g_free(want);
	g_free(err);
	g_assert_cmpint(gc_config_load_string(cfg, "s", blob, 17u << 20, &err), ==, GC_ERR_INPUT);
	g_assert_true(g_str_has_prefix(err, "s:1:1: too large"));
	g_free(err);
	g_free(blob);

	g_assert_cmpint(gc_config_int(cfg, "topology.gpus"), ==, 4);
	g_unlink(good);
	g_unlink(big);
	g_rmdir(dir);
	g_free(good);
	g_free(big);
	g_free(missing);
	g_free(dir);
	gc_config_free(cfg);
}

static void test_set(void)
{
	gc_config *cfg = t_new();
	char *err = NULL, where[64];
	size_t n = 0;
	const uint64_t *l;

	g_assert_cmpint(gc_config_set(cfg, "topology.gpus=16", &err), ==, GC_OK);
	g_assert_cmpint(gc_config_int(cfg, "topology.gpus"), ==, 16);
	g_assert_cmpstr(gc_config_where(cfg, "topology.gpus", where, sizeof(where)), ==, "--set");
	g_assert_cmpint(gc_config_set(cfg, "collective.sizes=1MiB, 2MiB,4MiB", &err), ==, GC_OK);
	l = gc_config_bytes_list(cfg, "collective.sizes", &n);
	g_assert_cmpuint(n, ==, 3);
	g_assert_cmpuint(l[2], ==, 4u << 20);
	g_assert_cmpint(gc_config_set(cfg, "collective.sizes=[8KiB]", &err), ==, GC_OK);
	l = gc_config_bytes_list(cfg, "collective.sizes", &n);
	g_assert_cmpuint(n, ==, 1);
	g_assert_cmpuint(l[0], ==, 8192);
	g_assert_cmpint(gc_config_set(cfg, "name=a=b c", &err), ==, GC_OK);
	g_assert_cmpstr(gc_config_str(cfg, "name"), ==, "a=b c");
	g_assert_cmpint(gc_config_set(cfg, "name=", &err), ==, GC_OK);
	g_assert_cmpstr(gc_config_str(cfg, "name"), ==, "");

	g_assert_cmpint(gc_config_set(cfg, "topology.gpus=x", &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "--set topology.gpus=x: expected an integer, got 'x'");
	g_free(err);
	g_assert_cmpint(gc_config_int(cfg, "topology.gpus"), ==, 16);
	g_assert_cmpint(gc_config_set(cfg, "topology.gpus=0", &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "--set topology.gpus=0: must be at least 1, got 0");
	g_free(err);
	g_assert_cmpint(gc_config_set(cfg, "topology.gpus=", &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "--set topology.gpus=: expected an integer, got nothing");
	g_free(err);
	g_assert_cmpint(gc_config_set(cfg, "collective.sizes=1MiB,x", &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "--set collective.sizes=1MiB,x: expected a size such as 1MiB, "
				 "512KB or 4096 (bytes), got 'x'");
	g_free(err);
	g_assert_cmpint(gc_config_set(cfg, "collective.op=bcast", &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "--set collective.op=bcast: expected one of allreduce, "
				 "allgather, reducescatter, sendrecv; got 'bcast'");
	g_free(err);
	g_assert_cmpint(gc_config_set(cfg, "foo.bar=1", &err), ==, GC_ERR_INPUT);
	g_assert_true(g_str_has_prefix(err, "--set foo.bar=1: unknown key 'foo.bar'; did you "
					    "mean: "));
	/* Nothing is close: the five closest anyway. */
	{
		char **parts = g_strsplit(strstr(err, "mean: "), ", ", -1);

		g_assert_cmpuint(g_strv_length(parts), ==, 5);
		g_strfreev(parts);
	}
	g_free(err);
	g_assert_cmpint(gc_config_set(cfg, "topology.gpu=8", &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "--set topology.gpu=8: unknown key 'topology.gpu'; did you mean: "
				 "topology.gpus");
	g_free(err);
	g_assert_cmpint(gc_config_set(cfg, "bandwidth=1GB/s", &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "--set bandwidth=1GB/s: unknown key 'bandwidth'; did you mean: "
				 "topology.link.bandwidth");
	g_free(err);
	g_assert_cmpint(gc_config_set(cfg, "topology.link=1", &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "--set topology.link=1: 'topology.link' is a group of keys; set "
				 "one of: topology.link.bandwidth, topology.link.latency");
	g_free(err);
	g_assert_cmpint(gc_config_set(cfg, "topology.gpus", &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "--set topology.gpus: expected KEY=VALUE, e.g. topology.gpus=8");
	g_free(err);
	/* Odd bytes never reach the message raw. */
	g_assert_cmpint(gc_config_set(cfg, "x\ny=\xff", &err), ==, GC_ERR_INPUT);
	g_assert_null(strchr(err, '\n'));
	g_assert_true(g_utf8_validate(err, -1, NULL));
	g_free(err);
	gc_config_free(cfg);
}

/* --set takes a size range as a YAML flow mapping, as a file does. */
static void test_set_range(void)
{
	gc_config *cfg = t_new();
	char *err = NULL;
	size_t n = 0;
	const uint64_t *l;

	g_assert_cmpint(gc_config_set(cfg, "collective.sizes={from: 1KiB, to: 1MiB, factor: 4}",
				      &err),
			==, GC_OK);
	l = gc_config_bytes_list(cfg, "collective.sizes", &n);
	g_assert_cmpuint(n, ==, 6);
	g_assert_cmpuint(l[0], ==, 1024);
	g_assert_cmpuint(l[5], ==, 1u << 20);
	g_assert_cmpint(gc_config_set(cfg, " {factor: 2, from: 8, to: 8}", &err), ==,
			GC_ERR_INPUT); /* no key: not an assignment */
	g_free(err);
	g_assert_cmpint(gc_config_set(cfg, "collective.sizes= {factor: 2, from: 8, to: 8}", &err),
			==, GC_OK);
	l = gc_config_bytes_list(cfg, "collective.sizes", &n);
	g_assert_cmpuint(n, ==, 1);
	g_assert_cmpuint(l[0], ==, 8);
	static const char *const bad[][2] = {
		{"collective.sizes={from: 1KiB, to: 1MiB, factor: 1}",
		 "--set collective.sizes={from: 1KiB, to: 1MiB, factor: 1}: collective.sizes.factor: "
		 "must be at least 2, got 1"},
		{"collective.sizes={from: 1KiB, to: 1MiB}",
		 "--set collective.sizes={from: 1KiB, to: 1MiB}: collective.sizes: a size range needs "
		 "from, to and factor; 'factor' is missing"},
		{"collective.sizes={from: 1KiB, to: 1MiB, step: 2}",
		 "--set collective.sizes={from: 1KiB, to: 1MiB, step: 2}: unknown key 'step' in "
		 "'collective.sizes'; expected one of: from, to, factor"},
		{"collective.sizes={from: 4GiB, to: 1MiB, factor: 2}",
		 "--set collective.sizes={from: 4GiB, to: 1MiB, factor: 2}: collective.sizes: 'from' "
		 "(4GiB) is larger than 'to' (1MiB)"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_assert_cmpint(gc_config_set(cfg, bad[i][0], &err), ==, GC_ERR_INPUT);
		g_assert_cmpstr(err, ==, bad[i][1]);
		g_free(err);
	}
	/* anything after the mapping, or no mapping closed: one line, refused */
	static const char *const broken[] = {
		"collective.sizes={from: 1KiB, to: 1MiB, factor: 2} x",
		"collective.sizes={from: 1KiB",
		"collective.sizes={from: [1], to: 1MiB, factor: 2}",
		"collective.sizes={from: 1KiB, to: 1MiB, factor: 2}\n---\n{}",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(broken); i++) {
		g_assert_cmpint(gc_config_set(cfg, broken[i], &err), ==, GC_ERR_INPUT);
		g_test_message("error: %s", err);
		g_assert_true(g_str_has_prefix(err, "--set collective.sizes="));
		g_assert_null(strchr(err, '\n'));
		g_free(err);
	}
	/* the list before the failures is still the one set */
	l = gc_config_bytes_list(cfg, "collective.sizes", &n);
	g_assert_cmpuint(n, ==, 1);
	g_assert_cmpuint(l[0], ==, 8);
	gc_config_free(cfg);
}

/* The position of a character of a string value, for entries of a list
 * written as one string (a sweep's values). */
static void test_where_at(void)
{
	static const struct {
		const char *text;
		size_t offset;
		const char *want;
	} cases[] = {
		{"name: 1,abc\n", 2, "t.yaml:1:9"},
		{"name: \"1,abc\"\n", 2, "t.yaml:1:10"},
		{"name: '1,abc'\n", 0, "t.yaml:1:8"},
		/* an escape: the columns cannot be told, the value's own */
		{"name: \"1,\\tabc\"\n", 3, "t.yaml:1:7"},
		/* folded over two lines: the value's own */
		{"name: 1,\n  abc\n", 3, "t.yaml:1:7"},
		/* characters, not bytes */
		{"name: \xc3\xa9,abc\n", 3, "t.yaml:1:9"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		gc_config *cfg = t_new();
		char *err = NULL, where[64];

		g_assert_cmpint(t_load(cfg, cases[i].text, &err), ==, GC_OK);
		g_assert_true(gc_config_from_file(cfg, "name"));
		g_assert_cmpstr(gc_config_where_at(cfg, "name", cases[i].offset, where,
						   sizeof(where)),
				==, cases[i].want);
		gc_config_free(cfg);
	}
	/* every entry at once, spaces skipped; a value whose columns are not
	 * known: its own position for each */
	{
		gc_config *cfg = t_new();
		char *err = NULL, **w;

		g_assert_cmpint(t_load(cfg, "name: 1, \xc3\xa9,abc,\n", &err), ==, GC_OK);
		w = gc_config_where_split(cfg, "name", ',');
		g_assert_cmpuint(g_strv_length(w), ==, 4);
		g_assert_cmpstr(w[0], ==, "t.yaml:1:7");
		g_assert_cmpstr(w[1], ==, "t.yaml:1:10");
		g_assert_cmpstr(w[2], ==, "t.yaml:1:12");
		g_assert_cmpstr(w[3], ==, "t.yaml:1:16");
		g_strfreev(w);
		gc_config_free(cfg);
		cfg = t_new();
		g_assert_cmpint(t_load(cfg, "name: \"1,\\t2\"\n", &err), ==, GC_OK);
		w = gc_config_where_split(cfg, "name", ',');
		g_assert_cmpuint(g_strv_length(w), ==, 2);
		g_assert_cmpstr(w[1], ==, "t.yaml:1:7");
		g_strfreev(w);
		gc_config_free(cfg);
	}
	/* not from a file: what gc_config_where says */
	{
		gc_config *cfg = t_new();
		char *err = NULL, where[64];

		g_assert_false(gc_config_from_file(cfg, "name"));
		g_assert_cmpint(gc_config_set(cfg, "name=1,abc", &err), ==, GC_OK);
		g_assert_false(gc_config_from_file(cfg, "name"));
		g_assert_cmpstr(gc_config_where_at(cfg, "name", 2, where, sizeof(where)), ==,
				"--set");
		gc_config_free(cfg);
	}
}

/* A value set from elsewhere than the command line is named where it
 * stands, in messages, gc_config_where and the dump; checking a value
 * stores nothing. */
static void test_set_at(void)
{
	gc_config *cfg = t_new();
	char *err = NULL, where[64], *body = NULL;
	GString *dump = g_string_new(NULL);

	g_assert_cmpint(gc_config_set_at(cfg, "topology.gpus=x", "f.yaml:3:5", &err), ==,
			GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "f.yaml:3:5: topology.gpus: expected an integer, got 'x'");
	g_free(err);
	g_assert_cmpint(gc_config_set_at(cfg, "topology.gpus=12", "f.yaml:3:5", &err), ==, GC_OK);
	g_assert_cmpstr(gc_config_where(cfg, "topology.gpus", where, sizeof(where)), ==,
			"f.yaml:3:5");
	g_assert_false(gc_config_from_file(cfg, "topology.gpus"));
	g_assert_cmpint(gc_config_error(cfg, "topology.gpus", &err, "not whole nodes"), ==,
			GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "f.yaml:3:5: topology.gpus: not whole nodes");
	g_free(err);
	gc_config_dump(cfg, dump);
	g_assert_nonnull(strstr(dump->str, "topology.gpus: 12  # f.yaml:3:5\n"));
	g_string_free(dump, TRUE);
	/* without a where: --set as before */
	g_assert_cmpint(gc_config_set_at(cfg, "topology.gpus=x", NULL, &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "--set topology.gpus=x: expected an integer, got 'x'");
	g_free(err);

	g_assert_true(gc_config_check_value(cfg, "topology.gpus", "16", &body));
	g_assert_null(body);
	g_assert_false(gc_config_check_value(cfg, "topology.gpus", "0", &body));
	g_assert_cmpstr(body, ==, "must be at least 1, got 0");
	g_free(body);
	g_assert_false(gc_config_check_value(cfg, "collective.sizes", "1MiB,x", &body));
	g_free(body);
	g_assert_cmpint(gc_config_int(cfg, "topology.gpus"), ==, 12);
	gc_config_free(cfg);
}

/* A scenario path that is not a regular file: a directory or a device is
 * refused before it is read, a named pipe nobody writes reads as empty at
 * once (not a hang), and one with a writer is read. */
static void test_nonregular_files(void)
{
	gc_config *cfg = t_new();
	char *dir = g_dir_make_tmp("gcsim-test-XXXXXX", NULL);
	char *fifo = g_build_filename(dir, "fifo", NULL);
	char *err = NULL, *want;

	g_assert_cmpint(gc_config_load_file(cfg, dir, &err), ==, GC_ERR_IO);
	want = g_strdup_printf("%s:1:1: cannot read a scenario from a directory; expected a YAML "
			       "file (or a pipe)",
			       dir);
	g_assert_cmpstr(err, ==, want);
	g_free(want);
	g_free(err);
	g_assert_cmpint(gc_config_load_file(cfg, "/dev/null", &err), ==, GC_ERR_IO);
	g_assert_cmpstr(err, ==, "/dev/null:1:1: cannot read a scenario from a character device; "
				 "expected a YAML file (or a pipe)");
	g_free(err);
	if (mkfifo(fifo, 0600) == 0) {
		gint64 t0 = g_get_monotonic_time();

		g_assert_cmpint(gc_config_load_file(cfg, fifo, &err), ==, GC_ERR_INPUT);
		g_assert_cmpint(g_get_monotonic_time() - t0, <, 10 * G_USEC_PER_SEC);
		want = g_strdup_printf("%s:1:1: a pipe with nothing to read (no program had it open "
				       "for writing, or none wrote to it); expected a scenario",
				       fifo);
		g_assert_cmpstr(err, ==, want);
		g_free(want);
		g_free(err);
		g_unlink(fifo);
	}
	g_rmdir(dir);
	g_free(fifo);
	g_free(dir);
	gc_config_free(cfg);
}

static void test_dump(void)
{
	static const char text[] = "schema_version: 1\n"
				   "name: \"a: b # c\"\n"
				   "topology: {gpus: 8, link: {bandwidth: 400Gbps}}\n"
				   "collective: {sizes: {from: 1MiB, to: 4MiB, factor: 2}}\n";
	static const char want[] = "schema_version: 1  # t.yaml:1:17\n"
				   "name: \"a: b # c\"  # t.yaml:2:7\n"
				   "ratio: 0.5  # default\n"
				   "topology.gpus: 16  # --set\n"
				   "topology.link.bandwidth: 50GB/s  # t.yaml:3:39\n"
				   "topology.link.latency: 2.5ns  # preset test\n"
				   "collective.op: allreduce  # default\n"
				   "collective.sizes: [1MiB, 2MiB, 4MiB]  # t.yaml:4:21\n"
				   "collective.chunk: 2MiB  # default\n"
				   "collective.iters: 1  # default\n"
				   "sim.check: false  # default\n";
	GString *d1 = g_string_new(NULL), *d2 = g_string_new(NULL), *d3 = g_string_new(NULL);
	char *err = NULL;

	for (int round = 0; round < 2; round++) {
		gc_config *cfg = t_new();

		g_assert_cmpint(t_load(cfg, text, &err), ==, GC_OK);
		g_assert_cmpint(gc_config_set(cfg, "topology.gpus=16", &err), ==, GC_OK);
		gc_config_set_default(cfg, "topology.link.latency", "2.5ns", "preset test");
		gc_config_dump(cfg, round ? d2 : d1);
		gc_config_free(cfg);
	}
	g_assert_cmpstr(d1->str, ==, want);
	g_assert_cmpstr(d1->str, ==, d2->str);
	/* The dump is itself a loadable scenario with the same values. */
	{
		gc_config *cfg = t_new();
		char **lines;

		g_assert_cmpint(gc_config_load_string(cfg, "dump", d1->str, d1->len, &err), ==,
				GC_OK);
		gc_config_dump(cfg, d3);
		lines = g_strsplit(d3->str, "\n", -1);
		g_assert_cmpstr(lines[1], ==, "name: \"a: b # c\"  # dump:2:7");
		g_assert_cmpstr(lines[3], ==, "topology.gpus: 16  # dump:4:16");
		g_strfreev(lines);
		gc_config_free(cfg);
	}
	g_string_free(d1, TRUE);
	g_string_free(d2, TRUE);
	g_string_free(d3, TRUE);
}

static void test_error_require(void)
{
	gc_config *cfg = t_new();
	char *err = NULL;

	/* No file yet: a stand-in name. */
	g_assert_cmpint(gc_config_require(cfg, "schema_version", &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "<no file>:1:1: missing required key 'schema_version' (format "
				 "version)");
	g_free(err);
	g_assert_cmpint(t_load(cfg, "\n\ntopology: {gpus: 8}\n", &err), ==, GC_OK);
	g_assert_cmpint(gc_config_require(cfg, "schema_version", &err), ==, GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "t.yaml:1:1: missing required key 'schema_version' (format "
				 "version)");
	g_free(err);
	g_assert_cmpint(gc_config_require(cfg, "topology.gpus", &err), ==, GC_OK);
	g_assert_cmpint(gc_config_require(cfg, "collective.op", &err), ==, GC_OK);
	g_assert_cmpint(gc_config_error(cfg, "topology.gpus", &err, "must be even, got %d", 7), ==,
			GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "t.yaml:3:18: topology.gpus: must be even, got 7");
	g_free(err);
	/* An unset key points at the document start. */
	gc_config_error(cfg, "collective.op", &err, "not with %s", "that");
	g_assert_cmpstr(err, ==, "t.yaml:3:1: collective.op: not with that");
	g_free(err);
	gc_config_set(cfg, "collective.op=sendrecv", NULL);
	gc_config_error(cfg, "collective.op", &err, "no");
	g_assert_cmpstr(err, ==, "--set: collective.op: no");
	g_free(err);
	gc_config_free(cfg);
}

static void test_depth_limit(void)
{
	/* A key 70 levels deep, reached by nesting: refused at level 65. */
	static gc_param deep[1];
	GString *key = g_string_new("a"), *text = g_string_new(NULL);
	gc_config *cfg = gc_config_new();
	char *err = NULL;

	for (int i = 1; i < 70; i++)
		g_string_append(key, ".a");
	deep[0] = (gc_param){key->str, GC_P_INT, NULL, NULL, 1, 0, "deep", NULL};
	gc_config_add_params(cfg, deep, 1);
	for (int i = 0; i < 70; i++)
		g_string_append(text, "{a: ");
	g_string_append(text, "1");
	for (int i = 0; i < 70; i++)
		g_string_append(text, "}");
	g_assert_cmpint(gc_config_load_string(cfg, "d", text->str, text->len, &err), ==,
			GC_ERR_INPUT);
	g_assert_cmpstr(err, ==, "d:1:257: mappings nested deeper than 64 levels");
	g_free(err);
	gc_config_free(cfg);
	g_string_free(key, TRUE);
	g_string_free(text, TRUE);
}

/* Programming errors abort; each runs in a subprocess. */
static void test_aborts(void)
{
	if (g_test_subprocess()) {
		gc_config *cfg = t_new();
		const char *which = g_getenv("GC_TEST_ABORT");

		if (!strcmp(which, "unregistered"))
			gc_config_int(cfg, "topology.gpuz");
		else if (!strcmp(which, "type"))
			gc_config_bytes(cfg, "topology.gpus");
		else if (!strcmp(which, "novalue"))
			gc_config_int(cfg, "topology.gpus");
		else if (!strcmp(which, "dupkey"))
			gc_config_add_params(cfg, t_topo, 1);
		else if (!strcmp(which, "baddefault"))
			gc_config_set_default(cfg, "topology.gpus", "many", "preset x");
		return;
	}
	static const char *const cases[][2] = {
		{"unregistered", "unregistered key 'topology.gpuz'"},
		{"type", "wrong type"},
		{"novalue", "no value and no default"},
		{"dupkey", "duplicate key 'topology.gpus'"},
		{"baddefault", "expected an integer, got 'many'"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *pat = g_strdup_printf("*%s*", cases[i][1]);

		g_setenv("GC_TEST_ABORT", cases[i][0], TRUE);
		g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
		g_test_trap_assert_failed();
		g_test_trap_assert_stderr(pat);
		g_free(pat);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/config/defaults", test_defaults);
	g_test_add_func("/config/load/good", test_load_good);
	g_test_add_func("/config/load/dotted", test_dotted_keys);
	g_test_add_func("/config/load/unknown", test_unknown_keys);
	g_test_add_func("/config/load/unknown-hints", test_unknown_hints);
	g_test_add_func("/config/load/types", test_type_errors);
	g_test_add_func("/config/load/null", test_null_values);
	g_test_add_func("/config/load/ranges", test_ranges);
	g_test_add_func("/config/load/exact-bounds", test_range_exact_bounds);
	g_test_add_func("/config/load/structure", test_structure_errors);
	g_test_add_func("/config/load/syntax", test_syntax_errors);
	g_test_add_func("/config/load/lists", test_lists);
	g_test_add_func("/config/load/list-errors", test_list_errors);
	g_test_add_func("/config/load/all-or-nothing", test_all_or_nothing);
	g_test_add_func("/config/load/files", test_files);
	g_test_add_func("/config/load/depth", test_depth_limit);
	g_test_add_func("/config/set", test_set);
	g_test_add_func("/config/set/range", test_set_range);
	g_test_add_func("/config/set/at", test_set_at);
	g_test_add_func("/config/where-at", test_where_at);
	g_test_add_func("/config/load/nonregular", test_nonregular_files);
	g_test_add_func("/config/dump", test_dump);
	g_test_add_func("/config/error-require", test_error_require);
	g_test_add_func("/config/aborts", test_aborts);
	return g_test_run();
}
