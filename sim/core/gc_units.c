/* SPDX-License-Identifier: MIT */
/*
 * gc_units: strict parsing and exact printing of sizes, times and bandwidths.
 *
 * A quantity is NUMBER [' '] UNIT where NUMBER is DIGITS or DIGITS.DIGITS
 * (no sign, no exponent, no leading or trailing blanks, at most one space
 * before the unit). Sizes and times never go through floating point: the
 * digits become an integer mantissa m and a decimal scale s (value m / 10^s,
 * trailing fraction zeros dropped), every unit is 2^a * 5^b of the base unit,
 * and the result m * 2^(a-s) * 5^(b-s) is computed exactly in uint64, so
 * "1.5KiB" is 1536 and "0.1us" is 100000 ps, and "1.5B" is rejected because
 * the division is not exact. Bandwidths are doubles: the digits are handed
 * to a correctly rounding strtod together with the unit's power of ten, and
 * binary prefixes and the bits-to-bytes division are exact power-of-two
 * scalings, so "400Gbps" is exactly 50e9 B/s.
 *
 * Printers produce the shortest spelling that parses back to the same value;
 * ties go to the larger unit. Sizes use binary units or plain bytes ("1MiB",
 * "1.5KiB", "1500B"), times any of ps..s ("1us", "2.5ns", "1234567ps"),
 * bandwidths a decimal unit by magnitude (GB/s from 1e9 B/s up).
 *
 * Everything here is locale-independent (g_ascii_strtod, g_ascii_formatd).
 */
#include "gc_units.h"

#include <glib.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Expected-value descriptions handed back through `why`. */
static const char WHY_SIZE[] = "a size such as 1MiB, 512KB or 4096 (bytes)";
static const char WHY_SIZE_UNIT[] =
	"a size such as 1MiB, 512KB or 4096 (bytes; units: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)";
static const char WHY_SIZE_AMBIG[] =
	"a size with an unambiguous unit such as 1MiB or 1MB (K, M, G, T alone are not accepted)";
static const char WHY_SIZE_FRAC[] = "a whole number of bytes, such as 1536 or 1.5KiB";
static const char WHY_SIZE_BIG[] = "a size of at most 18446744073709551615 bytes";
static const char WHY_TIME[] = "a time such as 1us, 2.5ns or 500ps";
static const char WHY_TIME_UNIT[] = "a time such as 1us, 2.5ns or 500ps (units: ps, ns, us, ms, s)";
static const char WHY_TIME_BARE[] =
	"a time with a unit, such as 5us or 200ns (a bare number is ambiguous)";
static const char WHY_TIME_FRAC[] =
	"a whole number of picoseconds, such as 1.5ns (0.5ps is too fine)";
static const char WHY_TIME_BIG[] = "a time of at most 9223372036854775807ps (about 106 days)";
static const char WHY_BW[] = "a bandwidth such as 50GB/s or 400Gbps";
static const char WHY_BW_UNIT[] =
	"a bandwidth such as 50GB/s or 400Gbps (units: B/s, KB/s, MB/s, GB/s, TB/s, KiB/s to TiB/s; "
	"bits: bps, Kbps, Mbps, Gbps, Tbps)";
static const char WHY_BW_BARE[] =
	"a bandwidth with a unit, such as 50GB/s or 400Gbps (a bare number is ambiguous)";
static const char WHY_BW_BIG[] = "a finite bandwidth such as 50GB/s or 400Gbps";
static const char WHY_INT[] = "an integer";
static const char WHY_INT_BIG[] =
	"an integer between -9223372036854775808 and 9223372036854775807";
static const char WHY_DOUBLE[] = "a number such as 0.5, 2 or 1e-3";
static const char WHY_DOUBLE_BIG[] = "a finite number";

/* One unit: the value of 1 unit is 2^p2 * 5^p5 base units; bits divides by 8. */
typedef struct gc_unit {
	const char *name;
	int p2, p5;
	bool bits;
} gc_unit;

static const gc_unit size_units[] = {
	{"B", 0, 0, false},    {"KB", 3, 3, false},   {"kB", 3, 3, false},   {"MB", 6, 6, false},
	{"GB", 9, 9, false},   {"TB", 12, 12, false}, {"KiB", 10, 0, false},
	{"MiB", 20, 0, false}, {"GiB", 30, 0, false}, {"TiB", 40, 0, false},
};

static const gc_unit time_units[] = {
	{"ps", 0, 0, false}, {"ns", 3, 3, false}, {"us", 6, 6, false},
	{"ms", 9, 9, false}, {"s", 12, 12, false},
};

static const gc_unit bw_units[] = {
	{"B/s", 0, 0, false},	{"KB/s", 3, 3, false},	 {"MB/s", 6, 6, false},
	{"GB/s", 9, 9, false},	{"TB/s", 12, 12, false}, {"KiB/s", 10, 0, false},
	{"MiB/s", 20, 0, false}, {"GiB/s", 30, 0, false}, {"TiB/s", 40, 0, false},
	{"bps", 0, 0, true},	{"Kbps", 3, 3, true},	 {"Mbps", 6, 6, true},
	{"Gbps", 9, 9, true},	{"Tbps", 12, 12, true},	 {"b/s", 0, 0, true},
	{"Kb/s", 3, 3, true},	{"Mb/s", 6, 6, true},	 {"Gb/s", 9, 9, true},
	{"Tb/s", 12, 12, true},
	/* the SI symbol of kilo is k: kB/s, kbps and kb/s are KB/s, Kbps and Kb/s */
	{"kB/s", 3, 3, false},	{"kbps", 3, 3, true},	 {"kb/s", 3, 3, true},
};

/* A scanned quantity: value = mant / 10^scale, then the unit text. */
typedef struct gc_qty {
	uint64_t mant;	     /* significant digits (trailing fraction zeros dropped) */
	int scale;	     /* number of fraction digits kept in mant */
	bool overflow;	     /* mant did not fit in uint64 */
	const char *num;     /* the number's text ... */
	size_t num_len;	     /* ... and its length */
	const char *unit;    /* text after the number (and the optional space) */
	bool spaced;	     /* one space separated number and unit */
} gc_qty;

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* mant = mant * 10^k + d, flagging overflow (the mantissa is then garbage). */
static void mant_push(gc_qty *q, unsigned k, unsigned d)
{
	for (unsigned i = 0; i < k; i++) {
		if (q->mant > UINT64_MAX / 10) {
			q->overflow = true;
			return;
		}
		q->mant *= 10;
	}
	if (q->mant > UINT64_MAX - d) {
		q->overflow = true;
		return;
	}
	q->mant += d;
}

/*
 * Scan NUMBER [' '] at s. Returns false when s does not start with a
 * well-formed number. A trailing single space is consumed only when
 * something follows it (so "4096 " leaves an empty unit after a space,
 * which callers reject through `spaced`).
 */
static bool qty_scan(const char *s, gc_qty *q)
{
	const char *p = s;
	unsigned zeros = 0;

	memset(q, 0, sizeof(*q));
	if (!is_digit(*p))
		return false;
	while (is_digit(*p)) {
		if (!q->overflow)
			mant_push(q, 1, (unsigned)(*p - '0'));
		p++;
	}
	if (*p == '.') {
		p++;
		if (!is_digit(*p))
			return false;
		/* Hold back zeros until a non-zero digit shows they matter. */
		while (is_digit(*p)) {
			if (*p == '0') {
				zeros++;
			} else {
				if (!q->overflow)
					mant_push(q, zeros + 1, (unsigned)(*p - '0'));
				q->scale += (int)zeros + 1;
				zeros = 0;
			}
			p++;
		}
	}
	q->num = s;
	q->num_len = (size_t)(p - s);
	if (*p == ' ') {
		q->spaced = true;
		p++;
	}
	q->unit = p;
	return true;
}

static const gc_unit *unit_find(const gc_unit *tab, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(tab[i].name, name) == 0)
			return &tab[i];
	return NULL;
}

enum { EXACT_OK, EXACT_FRACTION, EXACT_OVERFLOW };

/*
 * *out = mant * 2^(p2-scale) * 5^(p5-scale) exactly, limited to `max`.
 * Divisions come first, so a fractional result is reported as such even
 * when the undivided product would overflow.
 */
static int qty_exact(const gc_qty *q, int p2, int p5, uint64_t max, uint64_t *out)
{
	uint64_t m = q->mant;
	int e2 = p2 - q->scale, e5 = p5 - q->scale;

	if (q->overflow)
		return EXACT_OVERFLOW;
	if (m == 0) {
		*out = 0;
		return EXACT_OK;
	}
	for (; e2 < 0; e2++) {
		if (m & 1)
			return EXACT_FRACTION;
		m >>= 1;
	}
	for (; e5 < 0; e5++) {
		if (m % 5)
			return EXACT_FRACTION;
		m /= 5;
	}
	for (; e2 > 0; e2--) {
		if (m > max / 2)
			return EXACT_OVERFLOW;
		m *= 2;
	}
	for (; e5 > 0; e5--) {
		if (m > max / 5)
			return EXACT_OVERFLOW;
		m *= 5;
	}
	if (m > max)
		return EXACT_OVERFLOW;
	*out = m;
	return EXACT_OK;
}

static gc_status fail(const char **why, const char *what)
{
	if (why)
		*why = what;
	return GC_ERR_INPUT;
}

/* "1M", "4k", "2Gi": a prefix without B, which we refuse to guess. */
static bool unit_is_ambiguous(const char *u)
{
	if (!u[0] || !strchr("KMGTkmgt", u[0]))
		return false;
	return u[1] == '\0' || (u[1] == 'i' && u[2] == '\0') ||
	       (u[1] == 'b' && u[2] == '\0');
}

gc_status gc_parse_bytes(const char *s, uint64_t *out, const char **why)
{
	gc_qty q;
	const gc_unit *u;
	uint64_t v;
	int r;

	if (!s || !qty_scan(s, &q))
		return fail(why, WHY_SIZE);
	if (*q.unit == '\0') {
		if (q.spaced)
			return fail(why, WHY_SIZE);
		u = &size_units[0]; /* a bare number is bytes */
	} else {
		u = unit_find(size_units, G_N_ELEMENTS(size_units), q.unit);
		if (!u)
			return fail(why, unit_is_ambiguous(q.unit) ? WHY_SIZE_AMBIG : WHY_SIZE_UNIT);
	}
	r = qty_exact(&q, u->p2, u->p5, UINT64_MAX, &v);
	if (r == EXACT_FRACTION)
		return fail(why, WHY_SIZE_FRAC);
	if (r == EXACT_OVERFLOW)
		return fail(why, WHY_SIZE_BIG);
	*out = v;
	return GC_OK;
}

gc_status gc_parse_time_ps(const char *s, int64_t *out, const char **why)
{
	gc_qty q;
	const gc_unit *u;
	uint64_t v;
	int r;

	if (!s || !qty_scan(s, &q))
		return fail(why, WHY_TIME);
	if (*q.unit == '\0')
		return fail(why, q.spaced ? WHY_TIME : WHY_TIME_BARE);
	u = unit_find(time_units, G_N_ELEMENTS(time_units), q.unit);
	if (!u)
		return fail(why, WHY_TIME_UNIT);
	r = qty_exact(&q, u->p2, u->p5, (uint64_t)INT64_MAX, &v);
	if (r == EXACT_FRACTION)
		return fail(why, WHY_TIME_FRAC);
	if (r == EXACT_OVERFLOW)
		return fail(why, WHY_TIME_BIG);
	*out = (int64_t)v;
	return GC_OK;
}

gc_status gc_parse_bw_Bps(const char *s, double *out, const char **why)
{
	gc_qty q;
	const gc_unit *u;
	GString *dec;
	double v;

	if (!s || !qty_scan(s, &q))
		return fail(why, WHY_BW);
	if (*q.unit == '\0')
		return fail(why, q.spaced ? WHY_BW : WHY_BW_BARE);
	u = unit_find(bw_units, G_N_ELEMENTS(bw_units), q.unit);
	if (!u)
		return fail(why, WHY_BW_UNIT);
	/*
	 * NUMBERe<p5>, correctly rounded by strtod, times 2^(p2-p5): decimal
	 * units have p2 == p5, binary units p5 == 0; the scaling by a power
	 * of two (and the /8 for bits) is exact.
	 */
	dec = g_string_new_len(q.num, (gssize)q.num_len);
	g_string_append_printf(dec, "e%d", u->p5);
	v = g_ascii_strtod(dec->str, NULL);
	g_string_free(dec, TRUE);
	v = ldexp(v, u->p2 - u->p5 - (u->bits ? 3 : 0));
	if (!isfinite(v))
		return fail(why, WHY_BW_BIG);
	*out = v;
	return GC_OK;
}

gc_status gc_parse_int64(const char *s, int64_t *out, const char **why)
{
	const char *p = s;
	bool neg = false;
	uint64_t mag = 0, limit;

	if (!s)
		return fail(why, WHY_INT);
	if (*p == '-') {
		neg = true;
		p++;
	}
	if (!is_digit(*p))
		return fail(why, WHY_INT);
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (mag > (limit - d) / 10) {
			/* Keep scanning: trailing garbage is a syntax error. */
			while (is_digit(*p))
				p++;
			return fail(why, *p ? WHY_INT : WHY_INT_BIG);
		}
		mag = mag * 10 + d;
	}
	if (*p)
		return fail(why, WHY_INT);
	if (neg)
		*out = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
	else
		*out = (int64_t)mag;
	return GC_OK;
}

gc_status gc_parse_double(const char *s, double *out, const char **why)
{
	const char *p = s;
	double v;

	/* Check the syntax ourselves: strtod also takes hex, inf, nan, blanks. */
	if (!s)
		return fail(why, WHY_DOUBLE);
	if (*p == '-')
		p++;
	if (!is_digit(*p))
		return fail(why, WHY_DOUBLE);
	while (is_digit(*p))
		p++;
	if (*p == '.') {
		p++;
		if (!is_digit(*p))
			return fail(why, WHY_DOUBLE);
		while (is_digit(*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!is_digit(*p))
			return fail(why, WHY_DOUBLE);
		while (is_digit(*p))
			p++;
	}
	if (*p)
		return fail(why, WHY_DOUBLE);
	v = g_ascii_strtod(s, NULL);
	if (!isfinite(v))
		return fail(why, WHY_DOUBLE_BIG);
	*out = v;
	return GC_OK;
}

/* Copy a finished spelling into the caller's buffer, truncating. */
static char *put(const char *s, char *buf, size_t n)
{
	if (n)
		g_strlcpy(buf, s, n);
	return buf;
}

/*
 * Spell mag / den in decimal (exact: den is a power of 2 or of 10, so the
 * fraction terminates) followed by `unit`. den <= 2^40, so rem * 10 fits.
 */
static void spell_exact(GString *s, uint64_t mag, uint64_t den, const char *unit)
{
	uint64_t rem = mag % den;

	g_string_append_printf(s, "%" G_GUINT64_FORMAT, mag / den);
	if (rem) {
		g_string_append_c(s, '.');
		while (rem) {
			rem *= 10;
			g_string_append_c(s, (char)('0' + rem / den));
			rem %= den;
		}
	}
	g_string_append(s, unit);
}

/*
 * Shortest of the exact spellings of mag in units[] (largest unit first;
 * a later candidate wins only when strictly shorter).
 */
static char *fmt_shortest(const char *sign, uint64_t mag, const char *const *names,
			  const uint64_t *dens, size_t nunits, char *buf, size_t n)
{
	GString *best = NULL;

	for (size_t i = 0; i < nunits; i++) {
		GString *s = g_string_new(sign);

		spell_exact(s, mag, dens[i], names[i]);
		if (!best || s->len < best->len) {
			if (best)
				g_string_free(best, TRUE);
			best = s;
		} else {
			g_string_free(s, TRUE);
		}
	}
	put(best->str, buf, n);
	g_string_free(best, TRUE);
	return buf;
}

char *gc_fmt_bytes(uint64_t b, char *buf, size_t n)
{
	static const char *const names[] = {"TiB", "GiB", "MiB", "KiB", "B"};
	static const uint64_t dens[] = {
		UINT64_C(1) << 40, UINT64_C(1) << 30, UINT64_C(1) << 20, UINT64_C(1) << 10, 1,
	};

	return fmt_shortest("", b, names, dens, G_N_ELEMENTS(names), buf, n);
}

char *gc_fmt_time_ps(int64_t ps, char *buf, size_t n)
{
	static const char *const names[] = {"s", "ms", "us", "ns", "ps"};
	static const uint64_t dens[] = {
		GC_PS_PER_S, GC_PS_PER_MS, GC_PS_PER_US, GC_PS_PER_NS, 1,
	};
	/* Magnitude in uint64 so that INT64_MIN does not overflow. */
	uint64_t mag = ps < 0 ? (uint64_t)0 - (uint64_t)ps : (uint64_t)ps;

	return fmt_shortest(ps < 0 ? "-" : "", mag, names, dens, G_N_ELEMENTS(names), buf, n);
}

/*
 * Spell v (finite, > 0) with p significant digits in a unit of 10^u B/s,
 * in fixed notation (our parser takes no exponent): the digits come from
 * %e of v itself and the unit is applied by moving the decimal point, so
 * no rounding happens besides the one to p digits.
 */
static void spell_bw(GString *s, double v, int p, int u, const char *unit)
{
	char fmt[16], tmp[64], digits[32];
	const char *e;
	size_t nd = 0;
	int exp10, point;

	g_snprintf(fmt, sizeof(fmt), "%%.%de", p - 1);
	g_ascii_formatd(tmp, sizeof(tmp), fmt, v);
	for (e = tmp; *e && *e != 'e'; e++)
		if (is_digit(*e) && nd < sizeof(digits) - 1)
			digits[nd++] = *e;
	digits[nd] = '\0';
	exp10 = *e ? atoi(e + 1) : 0;
	/* Drop trailing zeros of the digits; they never matter in fixed notation. */
	while (nd > 1 && digits[nd - 1] == '0')
		digits[--nd] = '\0';
	/* The value is 0.DIGITS * 10^(point) in the chosen unit. */
	point = exp10 - u + 1;
	if (point <= 0) {
		g_string_append(s, "0.");
		for (int i = 0; i < -point; i++)
			g_string_append_c(s, '0');
		g_string_append(s, digits);
	} else if ((size_t)point >= nd) {
		g_string_append(s, digits);
		for (size_t i = nd; i < (size_t)point; i++)
			g_string_append_c(s, '0');
	} else {
		g_string_append_len(s, digits, point);
		g_string_append_c(s, '.');
		g_string_append(s, digits + point);
	}
	g_string_append(s, unit);
}

char *gc_fmt_bw_Bps(double bps, char *buf, size_t n)
{
	static const struct {
		double min;
		int u;
		const char *name;
	} units[] = {{1e9, 9, "GB/s"}, {1e6, 6, "MB/s"}, {1e3, 3, "KB/s"}, {0, 0, "B/s"}};
	GString *s = g_string_new(NULL);
	double mag = fabs(bps);
	size_t k = 0;

	if (!isfinite(bps)) {
		/* Not a value the parser yields; spelled for diagnostics only. */
		g_string_append(s, isnan(bps) ? "nan" : bps < 0 ? "-inf" : "inf");
		g_string_append(s, "B/s");
		goto out;
	}
	if (mag == 0) {
		g_string_append(s, "0GB/s");
		goto out;
	}
	while (mag < units[k].min)
		k++;
	for (int p = 1; p <= 17; p++) {
		double back = -1;

		g_string_truncate(s, 0);
		spell_bw(s, mag, p, units[k].u, units[k].name);
		/* 17 digits always round-trip; stop at the first that does. */
		if (gc_parse_bw_Bps(s->str, &back, NULL) == GC_OK && back == mag)
			break;
	}
	/* Negative rates are not parseable either; spelled for diagnostics. */
	if (bps < 0)
		g_string_prepend_c(s, '-');
out:
	put(s->str, buf, n);
	g_string_free(s, TRUE);
	return buf;
}
