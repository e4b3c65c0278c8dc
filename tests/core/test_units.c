/* SPDX-License-Identifier: MIT */
/*
 * test_units: gc_units parsers and printers.
 *
 * Every unit spelling is tried good and bad; conversions must be exact
 * (1.5KiB is 1536, 0.1us is 100000 ps, 400Gbps is 50e9 B/s, compared with
 * ==), the `why` text must say what was wrong, and every printed value must
 * parse back to itself (fmt -> parse round trip over fixed and random values).
 */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "sim/core/gc_units.h"

typedef struct {
	const char *in;
	uint64_t want;
} bytes_case;

static void test_bytes_good(void)
{
	static const bytes_case cases[] = {
		{"0", 0},
		{"4096", 4096},
		{"007", 7},
		{"1024.0", 1024},
		{"1B", 1},
		{"1 B", 1},
		{"1KB", 1000},
		{"1kB", 1000},
		{"1.5 kB", 1500},
		{"1MB", 1000000},
		{"1GB", 1000000000},
		{"1TB", UINT64_C(1000000000000)},
		{"1KiB", 1024},
		{"1.5KiB", 1536},
		{"0.5KiB", 512},
		{"1 MiB", UINT64_C(1) << 20},
		{"1.000MiB", UINT64_C(1) << 20},
		{"4GiB", UINT64_C(4) << 30},
		{"1.5GiB", UINT64_C(3) << 29},
		{"1TiB", UINT64_C(1) << 40},
		{"0.001KB", 1},
		{"2.5MB", 2500000},
		{"0.0009765625KiB", 1},
		{"16777215TiB", UINT64_C(16777215) << 40},
		{"18446744073709551615", UINT64_MAX},
		{"18446744073.709551615GB", UINT64_MAX},
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		uint64_t v = 12345;
		const char *why = NULL;

		g_test_message("bytes '%s'", cases[i].in);
		g_assert_cmpint(gc_parse_bytes(cases[i].in, &v, &why), ==, GC_OK);
		g_assert_cmpuint(v, ==, cases[i].want);
	}
}

typedef struct {
	const char *in;
	const char *why_has; /* a phrase the explanation must contain */
} bad_case;

static void check_bad(gc_status (*parse)(const char *, void *, const char **),
		      const bad_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		union {
			uint64_t u;
			int64_t i;
			double d;
		} out = {.u = 777};
		const char *why = NULL;

		g_test_message("bad '%s'", cases[i].in);
		g_assert_cmpint(parse(cases[i].in, &out, &why), ==, GC_ERR_INPUT);
		g_assert_nonnull(why);
		g_assert_nonnull(strstr(why, cases[i].why_has));
		/* The output is left alone on error. */
		g_assert_cmpuint(out.u, ==, 777);
	}
}

static gc_status parse_bytes_v(const char *s, void *out, const char **why)
{
	return gc_parse_bytes(s, out, why);
}

static gc_status parse_time_v(const char *s, void *out, const char **why)
{
	return gc_parse_time_ps(s, out, why);
}

static gc_status parse_bw_v(const char *s, void *out, const char **why)
{
	return gc_parse_bw_Bps(s, out, why);
}

static gc_status parse_int_v(const char *s, void *out, const char **why)
{
	return gc_parse_int64(s, out, why);
}

static gc_status parse_double_v(const char *s, void *out, const char **why)
{
	return gc_parse_double(s, out, why);
}

static void test_bytes_bad(void)
{
	static const bad_case cases[] = {
		{"", "a size such as 1MiB, 512KB or 4096 (bytes)"},
		{" ", "a size such as"},
		{" 1MiB", "a size such as"},
		{"1MiB ", "a size such as"},
		{"1  MiB", "a size such as"},
		{"1 0MiB", "a size such as"},
		{"4096 ", "a size such as"},
		{"MiB", "a size such as"},
		{"-1MiB", "a size such as"},
		{"+1MiB", "a size such as"},
		{"1.MiB", "a size such as"},
		{".5MiB", "a size such as"},
		{"1,5MiB", "a size such as"},
		{"1e3", "a size such as"},
		{"0x10", "a size such as"},
		{"nan", "a size such as"},
		{"inf", "a size such as"},
		{"1mib", "units: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"},
		{"1MiB/s", "a size such as"},
		{"1MiBx", "a size such as"},
		{"1M", "unambiguous unit"},
		{"1k", "unambiguous unit"},
		{"2Gi", "unambiguous unit"},
		{"1.5B", "whole number of bytes"},
		{"1.5", "whole number of bytes"},
		{"0.1KiB", "whole number of bytes"},
		{"0.0001KB", "whole number of bytes"},
		{"18446744073709551616", "at most 18446744073709551615"},
		{"16777216TiB", "at most"},
		{"99999999999999999999999999MiB", "at most"},
		{"1e400GB", "a size such as"},
	};

	check_bad(parse_bytes_v, cases, G_N_ELEMENTS(cases));
}

typedef struct {
	const char *in;
	int64_t want;
} time_case;

static void test_time_good(void)
{
	static const time_case cases[] = {
		{"0ps", 0},
		{"0s", 0},
		{"1ps", 1},
		{"1ns", 1000},
		{"2.5ns", 2500},
		{"0.1us", 100000},
		{"1us", GC_PS_PER_US},
		{"1 us", GC_PS_PER_US},
		{"8.4us", 8400000},
		{"1.5ms", 1500000000},
		{"1s", GC_PS_PER_S},
		{"0.000000000001s", 1},
		{"1234.567ns", 1234567},
		{"9223372036854775807ps", INT64_MAX},
		{"9223372.036854775807s", INT64_MAX},
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		int64_t v = -5;

		g_test_message("time '%s'", cases[i].in);
		g_assert_cmpint(gc_parse_time_ps(cases[i].in, &v, NULL), ==, GC_OK);
		g_assert_cmpint(v, ==, cases[i].want);
	}
}

static void test_time_bad(void)
{
	static const bad_case cases[] = {
		{"", "a time such as 1us, 2.5ns or 500ps"},
		{"1", "bare number is ambiguous"},
		{"2.5", "bare number is ambiguous"},
		{"1 ", "a time such as"},
		{"1 us ", "a time such as"},
		{"us", "a time such as"},
		{"-1us", "a time such as"},
		{"1e3ns", "a time such as"},
		{"nan", "a time such as"},
		{"inf", "a time such as"},
		{"1sec", "units: ps, ns, us, ms, s"},
		{"1US", "a time such as"},
		{"1\xc2\xb5s", "a time such as"},
		{"0.5ps", "whole number of picoseconds"},
		{"1.0005ns", "whole number of picoseconds"},
		{"9223372036854775808ps", "at most 9223372036854775807ps"},
		{"10000000s", "at most"},
	};

	check_bad(parse_time_v, cases, G_N_ELEMENTS(cases));
}

typedef struct {
	const char *in;
	double want;
} bw_case;

static void test_bw_good(void)
{
	static const bw_case cases[] = {
		{"50GB/s", 50e9},
		{"50 GB/s", 50e9},
		{"400Gbps", 50e9},
		{"400Gb/s", 50e9},
		{"12.5GB/s", 12.5e9},
		{"0.1GB/s", 1e8},
		{"1B/s", 1},
		{"8bps", 1},
		{"8b/s", 1},
		{"1Kbps", 125},
		{"1kbps", 125},
		{"8kb/s", 1000},
		{"2.5kB/s", 2500},
		{"100Mbps", 12.5e6},
		{"1Tbps", 125e9},
		{"1Tb/s", 125e9},
		{"1KB/s", 1e3},
		{"1MB/s", 1e6},
		{"1TB/s", 1e12},
		{"1KiB/s", 1024},
		{"1MiB/s", 1048576},
		{"1.5GiB/s", 1610612736},
		{"1TiB/s", 1099511627776.0},
		{"0GB/s", 0},
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		double v = -1;

		g_test_message("bw '%s'", cases[i].in);
		g_assert_cmpint(gc_parse_bw_Bps(cases[i].in, &v, NULL), ==, GC_OK);
		g_assert_true(v == cases[i].want);
	}
}

static void test_bw_bad(void)
{
	static const bad_case cases[] = {
		{"", "a bandwidth such as 50GB/s or 400Gbps"},
		{"50", "bare number is ambiguous"},
		{"50 parsecs", "units: B/s, KB/s, MB/s, GB/s, TB/s"},
		{"50GB", "a bandwidth such as"},
		{"50gbps", "bits: bps, Kbps, Mbps, Gbps, Tbps"},
		{"50 GB/s ", "a bandwidth such as"},
		{"-1GB/s", "a bandwidth such as"},
		{"1e400GB/s", "a bandwidth such as"},
		{"nan", "a bandwidth such as"},
		{"inf", "a bandwidth such as"},
		{"infGB/s", "a bandwidth such as"},
		{"0x10GB/s", "a bandwidth such as"},
	};
	GString *huge = g_string_new("1");
	double v = 0;
	const char *why = NULL;

	check_bad(parse_bw_v, cases, G_N_ELEMENTS(cases));
	/* A number past DBL_MAX overflows to infinity: rejected as such. */
	for (int i = 0; i < 400; i++)
		g_string_append_c(huge, '0');
	g_string_append(huge, "TB/s");
	g_assert_cmpint(gc_parse_bw_Bps(huge->str, &v, &why), ==, GC_ERR_INPUT);
	g_assert_nonnull(strstr(why, "finite"));
	g_string_free(huge, TRUE);
}

static void test_int(void)
{
	static const struct {
		const char *in;
		int64_t want;
	} good[] = {
		{"0", 0},
		{"-0", 0},
		{"42", 42},
		{"-17", -17},
		{"007", 7},
		{"9223372036854775807", INT64_MAX},
		{"-9223372036854775808", INT64_MIN},
	};
	static const bad_case bad[] = {
		{"", "an integer"},
		{"-", "an integer"},
		{"+1", "an integer"},
		{" 1", "an integer"},
		{"1 ", "an integer"},
		{"1.0", "an integer"},
		{"3.5", "an integer"},
		{"1e3", "an integer"},
		{"0x1", "an integer"},
		{"1_000", "an integer"},
		{"nan", "an integer"},
		{"9223372036854775808", "between -9223372036854775808 and"},
		{"-9223372036854775809", "between"},
		{"99999999999999999999999", "between"},
	};

	for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
		int64_t v = 5;

		g_assert_cmpint(gc_parse_int64(good[i].in, &v, NULL), ==, GC_OK);
		g_assert_cmpint(v, ==, good[i].want);
	}
	check_bad(parse_int_v, bad, G_N_ELEMENTS(bad));
}

static void test_double(void)
{
	static const struct {
		const char *in;
		double want;
	} good[] = {
		{"0", 0}, {"0.5", 0.5}, {"-2", -2}, {"1e-3", 1e-3}, {"1E+3", 1e3}, {"2.25e2", 225},
	};
	static const bad_case bad[] = {
		{"", "a number such as"},    {".5", "a number such as"},
		{"5.", "a number such as"},  {"nan", "a number such as"},
		{"inf", "a number such as"}, {"-inf", "a number such as"},
		{"0x1p3", "a number such as"}, {" 1", "a number such as"},
		{"1e", "a number such as"},  {"--1", "a number such as"},
		{"+1", "a number such as"},  {"1.5x", "a number such as"},
		{"1e400", "finite"},	     {"-1e400", "finite"},
	};

	for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
		double v = 5;

		g_assert_cmpint(gc_parse_double(good[i].in, &v, NULL), ==, GC_OK);
		g_assert_true(v == good[i].want);
	}
	check_bad(parse_double_v, bad, G_N_ELEMENTS(bad));
}

static void test_fmt_fixed(void)
{
	static const struct {
		uint64_t v;
		const char *want;
	} sizes[] = {
		{0, "0B"},
		{1, "1B"},
		{1000, "1000B"},
		{1024, "1KiB"},
		{1536, "1536B"}, /* shorter than 1.5KiB */
		{1500, "1500B"},
		{UINT64_C(1) << 20, "1MiB"},
		{UINT64_C(4) << 30, "4GiB"},
		{UINT64_C(3) << 29, "1.5GiB"},
		{UINT64_C(256) << 20, "256MiB"},
		{UINT64_C(1) << 40, "1TiB"},
		{UINT64_C(1) << 50, "1024TiB"},
		{UINT64_MAX, "18446744073709551615B"},
	};
	static const struct {
		int64_t v;
		const char *want;
	} times[] = {
		{0, "0s"},
		{1, "1ps"},
		{2500, "2.5ns"},
		{GC_PS_PER_US, "1us"},
		{1500000, "1.5us"},
		{8400000, "8.4us"},
		{1234567, "1234567ps"},
		{GC_PS_PER_S, "1s"},
		{-2500, "-2.5ns"},
	};
	static const struct {
		double v;
		const char *want;
	} bws[] = {
		{0, "0GB/s"},
		{50e9, "50GB/s"},
		{374e9, "374GB/s"},
		{12.5e9, "12.5GB/s"},
		{52e9, "52GB/s"},
		{1e12, "1000GB/s"},
		{1.5e6, "1.5MB/s"},
		{1024, "1.024KB/s"},
		{1, "1B/s"},
		{0.5, "0.5B/s"},
		{1073741824.0, "1.073741824GB/s"},
	};
	char buf[64];

	for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++)
		g_assert_cmpstr(gc_fmt_bytes(sizes[i].v, buf, sizeof(buf)), ==, sizes[i].want);
	for (size_t i = 0; i < G_N_ELEMENTS(times); i++)
		g_assert_cmpstr(gc_fmt_time_ps(times[i].v, buf, sizeof(buf)), ==, times[i].want);
	for (size_t i = 0; i < G_N_ELEMENTS(bws); i++)
		g_assert_cmpstr(gc_fmt_bw_Bps(bws[i].v, buf, sizeof(buf)), ==, bws[i].want);
	/* Always NUL-terminated, even when cut. */
	g_assert_cmpstr(gc_fmt_bytes(UINT64_C(1) << 20, buf, 3), ==, "1M");
	g_assert_cmpstr(gc_fmt_time_ps(1, buf, 1), ==, "");
}

static uint64_t rand_u64(void)
{
	uint64_t v = ((uint64_t)g_test_rand_int() << 32) ^ (uint32_t)g_test_rand_int();

	/* Mix in values with many trailing zero bits (binary units) too. */
	return v >> g_test_rand_int_range(0, 64);
}

static void test_roundtrip(void)
{
	static const double bw_fixed[] = {1e-300, 4.9e-324, 1e300, 1.7976931348623157e308,
					  0.1, 1.0 / 3.0, 374e9, 3.2e12, 123456789.123};
	char buf[512];

	for (int i = 0; i < 20000; i++) {
		uint64_t b = rand_u64(), b2 = 0;
		int64_t t = (int64_t)(rand_u64() >> 1), t2 = -1;
		double w, w2 = -1;

		/* Sizes and times that are round in some unit are the usual case. */
		if (i % 2)
			b = (b >> 30) << g_test_rand_int_range(0, 30);
		if (i % 3 == 0)
			t = (t >> 20) / 1000 * 1000;
		g_assert_cmpint(gc_parse_bytes(gc_fmt_bytes(b, buf, sizeof(buf)), &b2, NULL), ==,
				GC_OK);
		g_assert_cmpuint(b2, ==, b);
		gc_fmt_time_ps(t, buf, sizeof(buf));
		g_assert_cmpint(gc_parse_time_ps(buf, &t2, NULL), ==, GC_OK);
		g_assert_cmpint(t2, ==, t);
		/* Random finite positive doubles over the whole exponent range. */
		do {
			uint64_t bits = rand_u64() | ((uint64_t)g_test_rand_int() << 32);

			bits &= ~(UINT64_C(1) << 63);
			memcpy(&w, &bits, sizeof(w));
		} while (!isfinite(w));
		if (i % 2)
			w = g_test_rand_double_range(0, 1e13);
		g_assert_cmpint(gc_parse_bw_Bps(gc_fmt_bw_Bps(w, buf, sizeof(buf)), &w2, NULL), ==,
				GC_OK);
		g_assert_true(w2 == w);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(bw_fixed); i++) {
		double w2 = -1;

		gc_fmt_bw_Bps(bw_fixed[i], buf, sizeof(buf));
		g_test_message("bw %g -> %s", bw_fixed[i], buf);
		g_assert_cmpint(gc_parse_bw_Bps(buf, &w2, NULL), ==, GC_OK);
		g_assert_true(w2 == bw_fixed[i]);
	}
	/* Extremes. */
	{
		uint64_t b2;
		int64_t t2;

		gc_parse_bytes(gc_fmt_bytes(UINT64_MAX, buf, sizeof(buf)), &b2, NULL);
		g_assert_cmpuint(b2, ==, UINT64_MAX);
		gc_parse_time_ps(gc_fmt_time_ps(INT64_MAX, buf, sizeof(buf)), &t2, NULL);
		g_assert_cmpint(t2, ==, INT64_MAX);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/units/bytes/good", test_bytes_good);
	g_test_add_func("/units/bytes/bad", test_bytes_bad);
	g_test_add_func("/units/time/good", test_time_good);
	g_test_add_func("/units/time/bad", test_time_bad);
	g_test_add_func("/units/bw/good", test_bw_good);
	g_test_add_func("/units/bw/bad", test_bw_bad);
	g_test_add_func("/units/int", test_int);
	g_test_add_func("/units/double", test_double);
	g_test_add_func("/units/fmt", test_fmt_fixed);
	g_test_add_func("/units/roundtrip", test_roundtrip);
	return g_test_run();
}
