/* SPDX-License-Identifier: MIT */
/*
 * gc_config: the table-driven parameter store and its YAML loader.
 *
 * Every registered table row becomes an entry (kept in registration order
 * and indexed by key) holding two parsed values: the default (from the table
 * or a preset) and the value set by a file or --set. Keys are dotted paths;
 * every proper '.'-prefix of a key is a "group", and a key may not be both a
 * group and a key. Values are parsed, converted to base units and
 * range-checked before they are stored, so the getters cannot fail for a
 * registered key.
 *
 * The loader walks libyaml's event stream (never a document tree) with one
 * function per node kind, keeping the mark of every node so that each error
 * names FILE:LINE:COLUMN (libyaml marks are 0-based; we print 1-based). It
 * stops at the first error. Values are staged in a table of their own and
 * committed only after the stream ended cleanly, which makes a load
 * all-or-nothing.
 *
 * Input policy (the choices the header leaves open):
 *  - plain and quoted scalars are treated alike: `gpus: "8"` is 8 and
 *    `bw: "50GB/s"` is a bandwidth; only a plain empty, ~, null, Null or NULL
 *    is "nothing" (an error for every type but STRING, where it is "");
 *  - booleans are exactly true or false (not yes/no/on/off/True);
 *  - tags (!!str, !foo), anchors and aliases are rejected, not ignored;
 *  - a dotted key is accepted anywhere its full path is known, so
 *    `topology.link.bandwidth: 50GB/s` at the top level works and the
 *    output of gc_config_dump loads back; setting one key twice by two
 *    spellings is a duplicate;
 *  - at most 16 MiB of input, 64 levels of nesting and 4096 list entries;
 *  - --set takes a size list as comma-separated sizes or as the range
 *    mapping a file takes, read by the same code as a file's.
 * Every message is one line: user text is quoted, cut at 64 characters and
 * stripped of control characters and invalid UTF-8.
 */
#include "gc_config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "gc_units.h"

#define GC_CFG_MAX_BYTES (16u << 20) /* largest file or string loaded */
#define GC_CFG_MAX_DEPTH 64	     /* nesting of mappings */
#define GC_CFG_MAX_LIST 4096	     /* entries of a GC_P_BYTES_LIST */
#define GC_CFG_QUOTE_MAX 64	     /* characters of user text in a message */
#define GC_CFG_SUGGEST 5	     /* keys offered for an unknown --set key */
#define GC_CFG_GROUP_LIST 12	     /* keys listed for a --set on a group */
#define GC_CFG_NO_FILE "<no file>"   /* file name when none was loaded */

typedef enum gc_origin {
	GC_O_TABLE, /* the table's default */
	GC_O_NAMED, /* gc_config_set_default(): `where` holds the origin */
	GC_O_FILE,  /* a YAML file: `where` holds its name, line/col the mark */
	GC_O_SET,   /* gc_config_set() */
	GC_O_AT,    /* gc_config_set_at(): `where` holds "FILE:LINE:COLUMN" */
} gc_origin;

typedef struct gc_value {
	union {
		int64_t i; /* INT, TIME */
		double d;  /* DOUBLE, BW */
		bool b;	   /* BOOL */
		uint64_t u; /* BYTES */
	} v;
	char *s;	/* ENUM, STRING */
	uint64_t *list; /* BYTES_LIST */
	size_t nlist;
	gc_origin origin;
	char *where;	/* file name (GC_O_FILE) or origin text (GC_O_NAMED, GC_O_AT) */
	unsigned long line, col; /* GC_O_FILE, 1-based */
	/* GC_O_FILE scalars: the columns of the text after `col` map one to
	 * one onto the characters of the value (a scalar on one line without
	 * escapes), and the first is at col + text_shift (1 past an opening
	 * quote); -1 when they do not */
	int text_shift;
} gc_value;

typedef struct gc_entry {
	const gc_param *p;
	gc_value *val; /* set by a file or --set; NULL if not */
	gc_value *def; /* default; NULL if none */
} gc_entry;

struct gc_config {
	GPtrArray *entries;  /* gc_entry *, registration order (owned) */
	GHashTable *by_key;  /* key -> gc_entry * */
	GHashTable *groups;  /* proper prefixes of keys (owned strings) */
	GHashTable *hints;   /* foreign key or section -> why it is not here (owned) */
	char *doc_name;	     /* last file loaded successfully, or NULL */
	unsigned long doc_line, doc_col; /* its document start, 1-based */
};

/* ---- values ------------------------------------------------------------ */

static void gc_value_free(gc_value *v)
{
	if (!v)
		return;
	g_free(v->s);
	g_free(v->list);
	g_free(v->where);
	g_free(v);
}

/* ---- message helpers ---------------------------------------------------- */

/*
 * Append user text (len bytes, may hold anything) so that the message stays
 * one printable line: at most GC_CFG_QUOTE_MAX characters then "...",
 * control characters as \n, \t, \xNN, invalid UTF-8 bytes as \xNN.
 */
static void append_user(GString *s, const char *t, size_t len)
{
	size_t i = 0, chars = 0;

	while (i < len) {
		unsigned char c = (unsigned char)t[i];

		if (chars++ == GC_CFG_QUOTE_MAX) {
			g_string_append(s, "...");
			return;
		}
		if (c == '\n') {
			g_string_append(s, "\\n");
			i++;
		} else if (c == '\t') {
			g_string_append(s, "\\t");
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			g_string_append_printf(s, "\\x%02X", c);
			i++;
		} else if (c < 0x80) {
			g_string_append_c(s, (char)c);
			i++;
		} else {
			gunichar u = g_utf8_get_char_validated(t + i, (gssize)(len - i));

			if (u == (gunichar)-1 || u == (gunichar)-2) {
				g_string_append_printf(s, "\\x%02X", c);
				i++;
			} else if (u == 0x85 || u == 0x2028 || u == 0x2029) {
				/* Unicode line breaks: keep the message one line. */
				g_string_append_printf(s, "\\u%04X", u);
				i += (size_t)g_unichar_to_utf8(u, NULL);
			} else {
				size_t k = (size_t)g_unichar_to_utf8(u, NULL);

				g_string_append_len(s, t + i, (gssize)k);
				i += k;
			}
		}
	}
}

/* "'TEXT'" with TEXT cleaned as above. */
static void append_quoted(GString *s, const char *t, size_t len)
{
	g_string_append_c(s, '\'');
	append_user(s, t, len);
	g_string_append_c(s, '\'');
}

static void append_quoted_str(GString *s, const char *t)
{
	append_quoted(s, t, strlen(t));
}

/* The generic description of what a parameter takes, e.g. "an integer". */
static void append_expected(GString *s, const gc_param *p)
{
	const char *why = NULL;
	union {
		int64_t i;
		uint64_t u;
		double d;
	} dummy;

	/* An empty string makes each parser hand back its generic text. */
	switch (p->type) {
	case GC_P_INT:
		gc_parse_int64("", &dummy.i, &why);
		break;
	case GC_P_DOUBLE:
		gc_parse_double("", &dummy.d, &why);
		break;
	case GC_P_BOOL:
		why = "true or false";
		break;
	case GC_P_BYTES:
		gc_parse_bytes("", &dummy.u, &why);
		break;
	case GC_P_TIME:
		gc_parse_time_ps("", &dummy.i, &why);
		break;
	case GC_P_BW:
		gc_parse_bw_Bps("", &dummy.d, &why);
		break;
	case GC_P_ENUM: {
		char **alts = g_strsplit(p->choices, "|", -1);
		char *joined = g_strjoinv(", ", alts);

		g_string_append_printf(s, "one of %s", joined);
		g_free(joined);
		g_strfreev(alts);
		return;
	}
	case GC_P_STRING:
		why = "a string";
		break;
	case GC_P_BYTES_LIST:
		why = "a list of sizes such as [1MiB, 4GiB]";
		break;
	}
	g_string_append(s, why);
}

/*
 * "expected WHAT, got GOT" (enums: "expected one of a, b; got GOT"): WHAT is
 * `why` or the parameter's generic text, GOT is already spelled.
 */
static char *msg_expected(const gc_param *p, const char *why, const char *got)
{
	GString *s = g_string_new("expected ");

	if (why)
		g_string_append(s, why);
	else
		append_expected(s, p);
	g_string_append(s, p->type == GC_P_ENUM ? "; got " : ", got ");
	g_string_append(s, got);
	return g_string_free(s, FALSE);
}

/* Same, with GOT the quoted user text. */
static char *msg_expected_text(const gc_param *p, const char *why, const char *text)
{
	GString *got = g_string_new(NULL);
	char *m;

	append_quoted_str(got, text);
	m = msg_expected(p, why, got->str);
	g_string_free(got, TRUE);
	return m;
}

/* Shortest "%g" spelling of d that reads back exactly. */
static void append_double(GString *s, double d)
{
	char buf[G_ASCII_DTOSTR_BUF_SIZE], fmt[8];

	for (int p = 1; p <= 17; p++) {
		g_snprintf(fmt, sizeof(fmt), "%%.%dg", p);
		g_ascii_formatd(buf, sizeof(buf), fmt, d);
		if (g_ascii_strtod(buf, NULL) == d)
			break;
	}
	g_string_append(s, buf);
}

/* ---- range checks -------------------------------------------------------- */

#define TWO_POW_63 9223372036854775808.0
#define TWO_POW_64 18446744073709551616.0

/* Smallest uint64 >= min; false if there is none. */
static bool u64_ceil(double min, uint64_t *out)
{
	if (min <= 0) {
		*out = 0;
		return true;
	}
	if (min >= TWO_POW_64)
		return false;
	*out = (uint64_t)ceil(min);
	return true;
}

/* Largest uint64 <= max; false if there is none. */
static bool u64_floor(double max, uint64_t *out)
{
	if (max < 0)
		return false;
	*out = max >= TWO_POW_64 ? UINT64_MAX : (uint64_t)floor(max);
	return true;
}

static bool i64_ceil(double min, int64_t *out)
{
	if (min <= -TWO_POW_63) {
		*out = INT64_MIN;
		return true;
	}
	if (min >= TWO_POW_63)
		return false;
	*out = (int64_t)ceil(min);
	return true;
}

static bool i64_floor(double max, int64_t *out)
{
	if (max < -TWO_POW_63)
		return false;
	*out = max >= TWO_POW_63 ? INT64_MAX : (int64_t)floor(max);
	return true;
}

/* Spelling of a scalar of type t (one element for lists) in its units. */
static void append_scalar(GString *s, gc_ptype t, const gc_value *v, uint64_t elem)
{
	char buf[512]; /* a bandwidth in fixed notation can take ~330 characters */

	switch (t) {
	case GC_P_INT:
		g_string_append_printf(s, "%" G_GINT64_FORMAT, v->v.i);
		break;
	case GC_P_DOUBLE:
		append_double(s, v->v.d);
		break;
	case GC_P_BOOL:
		g_string_append(s, v->v.b ? "true" : "false");
		break;
	case GC_P_BYTES:
		g_string_append(s, gc_fmt_bytes(v->v.u, buf, sizeof(buf)));
		break;
	case GC_P_TIME:
		g_string_append(s, gc_fmt_time_ps(v->v.i, buf, sizeof(buf)));
		break;
	case GC_P_BW:
		g_string_append(s, gc_fmt_bw_Bps(v->v.d, buf, sizeof(buf)));
		break;
	case GC_P_BYTES_LIST:
		g_string_append(s, gc_fmt_bytes(elem, buf, sizeof(buf)));
		break;
	case GC_P_ENUM:
	case GC_P_STRING:
		g_string_append(s, v->s);
		break;
	}
}

/* "must be at least LO, got V" with both in the parameter's units. */
static char *msg_range(gc_ptype t, bool low, const gc_value *bound, const gc_value *got,
		       uint64_t got_elem)
{
	GString *s = g_string_new(low ? "must be at least " : "must be at most ");

	append_scalar(s, t, bound, bound->v.u);
	g_string_append(s, ", got ");
	append_scalar(s, t, got, got_elem);
	return g_string_free(s, FALSE);
}

/* "must be at least D" for a bound no value of the type can meet. */
static char *msg_range_never(bool low, double bound)
{
	GString *s = g_string_new(low ? "must be at least " : "must be at most ");

	append_double(s, bound);
	return g_string_free(s, FALSE);
}

/*
 * Check one value (elem for a list) against [min, max] when min <= max.
 * Integers are compared as integers, so a bound near 2^63 or 2^64 is exact.
 * Returns NULL or the message body.
 */
static char *range_check(const gc_param *p, const gc_value *v, uint64_t elem)
{
	gc_value b = {0};

	if (!(p->min <= p->max))
		return NULL;
	switch (p->type) {
	case GC_P_INT:
	case GC_P_TIME:
		if (!i64_ceil(p->min, &b.v.i))
			return msg_range_never(true, p->min);
		if (v->v.i < b.v.i)
			return msg_range(p->type, true, &b, v, 0);
		if (!i64_floor(p->max, &b.v.i))
			return msg_range_never(false, p->max);
		if (v->v.i > b.v.i)
			return msg_range(p->type, false, &b, v, 0);
		return NULL;
	case GC_P_BYTES:
	case GC_P_BYTES_LIST: {
		uint64_t x = p->type == GC_P_BYTES ? v->v.u : elem;

		if (!u64_ceil(p->min, &b.v.u))
			return msg_range_never(true, p->min);
		if (x < b.v.u)
			return msg_range(p->type, true, &b, v, x);
		if (!u64_floor(p->max, &b.v.u))
			return msg_range_never(false, p->max);
		if (x > b.v.u)
			return msg_range(p->type, false, &b, v, x);
		return NULL;
	}
	case GC_P_DOUBLE:
	case GC_P_BW:
		b.v.d = p->min;
		if (v->v.d < p->min)
			return msg_range(p->type, true, &b, v, 0);
		b.v.d = p->max;
		if (v->v.d > p->max)
			return msg_range(p->type, false, &b, v, 0);
		return NULL;
	case GC_P_BOOL:
	case GC_P_ENUM:
	case GC_P_STRING:
		break;
	}
	return NULL;
}

/* ---- scalar conversion ----------------------------------------------------- */

/*
 * Convert scalar text to the value of a non-list parameter and range-check
 * it. `null` marks a YAML null (or an empty --set value). On error returns
 * false and sets *body to "expected ..., got ..." or a range message.
 */
static bool value_from_scalar(const gc_param *p, const char *text, bool null, gc_value *v,
			      char **body)
{
	const char *why = NULL;
	gc_status st = GC_OK;

	if (null && p->type != GC_P_STRING) {
		*body = msg_expected(p, NULL, "nothing");
		return false;
	}
	switch (p->type) {
	case GC_P_INT:
		st = gc_parse_int64(text, &v->v.i, &why);
		break;
	case GC_P_DOUBLE:
		st = gc_parse_double(text, &v->v.d, &why);
		break;
	case GC_P_BOOL:
		if (strcmp(text, "true") == 0)
			v->v.b = true;
		else if (strcmp(text, "false") == 0)
			v->v.b = false;
		else
			st = GC_ERR_INPUT;
		break;
	case GC_P_BYTES:
		st = gc_parse_bytes(text, &v->v.u, &why);
		break;
	case GC_P_TIME:
		st = gc_parse_time_ps(text, &v->v.i, &why);
		break;
	case GC_P_BW:
		st = gc_parse_bw_Bps(text, &v->v.d, &why);
		break;
	case GC_P_ENUM: {
		char **alts = g_strsplit(p->choices, "|", -1);

		st = GC_ERR_INPUT;
		for (char **a = alts; *a; a++)
			if (strcmp(*a, text) == 0)
				st = GC_OK;
		g_strfreev(alts);
		if (st == GC_OK)
			v->s = g_strdup(text);
		break;
	}
	case GC_P_STRING:
		v->s = g_strdup(null ? "" : text);
		break;
	case GC_P_BYTES_LIST:
		g_assert_not_reached();
	}
	if (st != GC_OK) {
		*body = msg_expected_text(p, why, text);
		return false;
	}
	*body = range_check(p, v, 0);
	return *body == NULL;
}

/* One size of a list, parsed and range-checked. */
static bool elem_from_scalar(const gc_param *p, const char *text, bool null, uint64_t *out,
			     char **body)
{
	const char *why = NULL;
	gc_value v = {0};
	GString *s;

	if (!null && gc_parse_bytes(text, out, &why) == GC_OK) {
		*body = range_check(p, &v, *out);
		return *body == NULL;
	}
	if (null)
		gc_parse_bytes("", out, &why); /* just for the generic text */
	s = g_string_new("expected ");
	g_string_append_printf(s, "%s, got ", why);
	if (null)
		g_string_append(s, "nothing");
	else
		append_quoted_str(s, text);
	*body = g_string_free(s, FALSE);
	return false;
}

static bool range_from_text(const gc_param *p, const char *text, GArray *out, char **body);

/*
 * Convert --set / default text: scalars as in YAML (empty text is null),
 * lists as comma-separated sizes, optionally in brackets, or a size range
 * as a YAML flow mapping {from: SIZE, to: SIZE, factor: INT}, as in a file.
 */
static bool value_from_text(const gc_param *p, const char *text, gc_value *v, char **body)
{
	GArray *a;
	char *inner, **parts;
	size_t len;
	bool ok = true;

	if (p->type != GC_P_BYTES_LIST)
		return value_from_scalar(p, text, text[0] == '\0', v, body);
	if (text[strspn(text, " \t")] == '{') {
		a = g_array_new(FALSE, FALSE, sizeof(uint64_t));
		ok = range_from_text(p, text, a, body);
		v->nlist = a->len;
		v->list = (uint64_t *)(void *)g_array_free(a, FALSE);
		return ok;
	}
	len = strlen(text);
	if (len >= 2 && text[0] == '[' && text[len - 1] == ']')
		inner = g_strndup(text + 1, len - 2);
	else
		inner = g_strdup(text);
	g_strstrip(inner);
	if (inner[0] == '\0') {
		*body = g_strdup("expected a list of sizes such as 1MiB,4GiB, got nothing");
		g_free(inner);
		return false;
	}
	parts = g_strsplit(inner, ",", -1);
	a = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	for (char **e = parts; ok && *e; e++) {
		uint64_t x = 0;

		g_strstrip(*e);
		if (a->len == GC_CFG_MAX_LIST) {
			*body = g_strdup_printf("more than %d sizes", GC_CFG_MAX_LIST);
			ok = false;
		} else if ((ok = elem_from_scalar(p, *e, (*e)[0] == '\0', &x, body))) {
			g_array_append_val(a, x);
		}
	}
	g_strfreev(parts);
	g_free(inner);
	v->nlist = a->len;
	v->list = (uint64_t *)(void *)g_array_free(a, FALSE);
	return ok;
}

/* ---- the store ----------------------------------------------------------- */

gc_config *gc_config_new(void)
{
	gc_config *cfg = g_new0(gc_config, 1);

	cfg->entries = g_ptr_array_new();
	cfg->by_key = g_hash_table_new(g_str_hash, g_str_equal);
	cfg->groups = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	cfg->hints = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	return cfg;
}

void gc_config_free(gc_config *cfg)
{
	if (!cfg)
		return;
	for (guint i = 0; i < cfg->entries->len; i++) {
		gc_entry *e = g_ptr_array_index(cfg->entries, i);

		gc_value_free(e->val);
		gc_value_free(e->def);
		g_free(e);
	}
	g_ptr_array_free(cfg->entries, TRUE);
	g_hash_table_destroy(cfg->by_key);
	g_hash_table_destroy(cfg->groups);
	g_hash_table_destroy(cfg->hints);
	g_free(cfg->doc_name);
	g_free(cfg);
}

void gc_config_add_hint(gc_config *cfg, const char *key, const char *hint)
{
	g_hash_table_replace(cfg->hints, g_strdup(key), g_strdup(hint));
}

/* The hint of key or of the nearest section above it, or NULL. */
static const char *hint_for(const gc_config *cfg, const char *key)
{
	char *k = g_strdup(key), *dot;
	const char *h;

	while (!(h = g_hash_table_lookup(cfg->hints, k)) && (dot = strrchr(k, '.')))
		*dot = '\0';
	g_free(k);
	return h;
}

/* A well-formed key: non-empty components of [A-Za-z0-9_-] separated by '.'. */
static bool key_is_well_formed(const char *k)
{
	bool comp_empty = true;

	for (const char *c = k; *c; c++) {
		if (*c == '.') {
			if (comp_empty)
				return false;
			comp_empty = true;
		} else if (g_ascii_isalnum(*c) || *c == '_' || *c == '-') {
			comp_empty = false;
		} else {
			return false;
		}
	}
	return !comp_empty;
}

void gc_config_add_params(gc_config *cfg, const gc_param *tab, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const gc_param *p = &tab[i];
		gc_entry *e;

		if (!p->key || !key_is_well_formed(p->key))
			g_error("gc_config: malformed key '%s'", p->key ? p->key : "(null)");
		if (g_hash_table_contains(cfg->by_key, p->key))
			g_error("gc_config: duplicate key '%s'", p->key);
		if (g_hash_table_contains(cfg->groups, p->key))
			g_error("gc_config: key '%s' is also a group of keys", p->key);
		if (p->type == GC_P_ENUM && (!p->choices || !p->choices[0]))
			g_error("gc_config: enum '%s' has no choices", p->key);
		/* Record every proper prefix as a group; none may be a key. */
		for (const char *d = strchr(p->key, '.'); d; d = strchr(d + 1, '.')) {
			char *g = g_strndup(p->key, (gsize)(d - p->key));

			if (g_hash_table_contains(cfg->by_key, g))
				g_error("gc_config: key '%s' is inside key '%s'", p->key, g);
			g_hash_table_add(cfg->groups, g);
		}
		e = g_new0(gc_entry, 1);
		e->p = p;
		if (p->def) {
			char *body = NULL;

			e->def = g_new0(gc_value, 1);
			e->def->origin = GC_O_TABLE;
			if (!value_from_text(p, p->def, e->def, &body))
				g_error("gc_config: default of '%s' ('%s'): %s", p->key, p->def,
					body);
		}
		g_ptr_array_add(cfg->entries, e);
		g_hash_table_insert(cfg->by_key, (gpointer)p->key, e);
	}
}

/* The entry of a key the program names; an unknown key is a bug. */
static gc_entry *entry_must(const gc_config *cfg, const char *key)
{
	gc_entry *e = g_hash_table_lookup(cfg->by_key, key);

	if (!e)
		g_error("gc_config: unregistered key '%s'", key);
	return e;
}

const gc_param *gc_config_param_at(const gc_config *cfg, size_t i)
{
	if (i >= cfg->entries->len)
		return NULL;
	return ((gc_entry *)g_ptr_array_index(cfg->entries, i))->p;
}

bool gc_config_is_set(const gc_config *cfg, const char *key)
{
	gc_entry *e = g_hash_table_lookup(cfg->by_key, key);

	return e && e->val;
}

bool gc_config_has(const gc_config *cfg, const char *key)
{
	gc_entry *e = g_hash_table_lookup(cfg->by_key, key);

	return e && (e->val || e->def);
}

/* The effective value of a key of type t (or t2); aborts when there is none. */
static const gc_value *get(const gc_config *cfg, const char *key, gc_ptype t, gc_ptype t2)
{
	gc_entry *e = entry_must(cfg, key);

	if (e->p->type != t && e->p->type != t2)
		g_error("gc_config: key '%s' read with the wrong type", key);
	if (e->val)
		return e->val;
	if (e->def)
		return e->def;
	g_error("gc_config: key '%s' has no value and no default "
		"(call gc_config_require first)", key);
	return NULL;
}

int64_t gc_config_int(const gc_config *cfg, const char *key)
{
	return get(cfg, key, GC_P_INT, GC_P_INT)->v.i;
}

double gc_config_double(const gc_config *cfg, const char *key)
{
	return get(cfg, key, GC_P_DOUBLE, GC_P_DOUBLE)->v.d;
}

bool gc_config_bool(const gc_config *cfg, const char *key)
{
	return get(cfg, key, GC_P_BOOL, GC_P_BOOL)->v.b;
}

uint64_t gc_config_bytes(const gc_config *cfg, const char *key)
{
	return get(cfg, key, GC_P_BYTES, GC_P_BYTES)->v.u;
}

int64_t gc_config_time(const gc_config *cfg, const char *key)
{
	return get(cfg, key, GC_P_TIME, GC_P_TIME)->v.i;
}

double gc_config_bw(const gc_config *cfg, const char *key)
{
	return get(cfg, key, GC_P_BW, GC_P_BW)->v.d;
}

const char *gc_config_str(const gc_config *cfg, const char *key)
{
	return get(cfg, key, GC_P_ENUM, GC_P_STRING)->s;
}

const uint64_t *gc_config_bytes_list(const gc_config *cfg, const char *key, size_t *n)
{
	const gc_value *v = get(cfg, key, GC_P_BYTES_LIST, GC_P_BYTES_LIST);

	*n = v->nlist;
	return v->list;
}

void gc_config_set_default(gc_config *cfg, const char *key, const char *value,
			   const char *origin)
{
	gc_entry *e = entry_must(cfg, key);
	gc_value *v = g_new0(gc_value, 1);
	char *body = NULL;

	if (!value_from_text(e->p, value, v, &body))
		g_error("gc_config: default '%s' for '%s' from %s: %s", value, key,
			origin ? origin : "(unnamed)", body);
	v->origin = origin ? GC_O_NAMED : GC_O_TABLE;
	v->where = g_strdup(origin);
	gc_value_free(e->def);
	e->def = v;
}

const char *gc_config_where(const gc_config *cfg, const char *key, char *buf, size_t n)
{
	gc_entry *e = entry_must(cfg, key);
	char *s;

	if (e->val && e->val->origin == GC_O_FILE)
		s = g_strdup_printf("%s:%lu:%lu", e->val->where, e->val->line, e->val->col);
	else if (e->val && e->val->origin == GC_O_AT)
		s = g_strdup(e->val->where);
	else if (e->val)
		s = g_strdup("--set");
	else if (cfg->doc_name)
		s = g_strdup_printf("%s:%lu:%lu", cfg->doc_name, cfg->doc_line, cfg->doc_col);
	else
		s = g_strdup_printf("%s:1:1", GC_CFG_NO_FILE);
	if (n)
		g_strlcpy(buf, s, n);
	g_free(s);
	return buf;
}

const char *gc_config_where_at(const gc_config *cfg, const char *key, size_t offset, char *buf,
			       size_t n)
{
	gc_entry *e = entry_must(cfg, key);
	const gc_value *v = e->val;

	if (!v || v->origin != GC_O_FILE || v->text_shift < 0 || !v->s ||
	    offset > strlen(v->s)) {
		return gc_config_where(cfg, key, buf, n);
	}
	g_snprintf(buf, n, "%s:%lu:%lu", v->where, v->line,
		   v->col + (unsigned long)v->text_shift +
			   (unsigned long)g_utf8_strlen(v->s, (gssize)offset));
	return buf;
}

char **gc_config_where_split(const gc_config *cfg, const char *key, char sep)
{
	gc_entry *e = entry_must(cfg, key);
	const gc_value *v = e->val;
	bool exact = v && v->origin == GC_O_FILE && v->text_shift >= 0 && v->s;
	GPtrArray *out = g_ptr_array_new();
	char base[512];
	/* one pass, col the column of *c */
	unsigned long col = exact ? v->col + (unsigned long)v->text_shift : 0;

	gc_config_where(cfg, key, base, sizeof(base));
	for (const char *c = v && v->s ? v->s : "";;) {
		while (*c != sep && g_ascii_isspace(*c)) {
			c++;
			col++;
		}
		g_ptr_array_add(out, exact ? g_strdup_printf("%s:%lu:%lu", v->where, v->line, col)
					   : g_strdup(base));
		while (*c && *c != sep) {
			c = g_utf8_next_char(c);
			col++;
		}
		if (!*c)
			break;
		c++;
		col++;
	}
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}

bool gc_config_from_file(const gc_config *cfg, const char *key)
{
	gc_entry *e = entry_must(cfg, key);

	return e->val && e->val->origin == GC_O_FILE;
}

bool gc_config_check_value(const gc_config *cfg, const char *key, const char *text, char **body)
{
	gc_entry *e = g_hash_table_lookup(cfg->by_key, key);
	gc_value v = {0};
	bool ok;

	if (!e) {
		*body = g_strdup_printf("unknown key '%s'", key);
		return false;
	}
	ok = value_from_text(e->p, text, &v, body);
	g_free(v.s);
	g_free(v.list);
	return ok;
}

gc_status gc_config_error(const gc_config *cfg, const char *key, char **errmsg,
			  const char *fmt, ...)
{
	char where[512];
	va_list ap;
	char *m;

	gc_config_where(cfg, key, where, sizeof(where));
	va_start(ap, fmt);
	m = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	if (errmsg)
		*errmsg = g_strdup_printf("%s: %s: %s", where, key, m);
	g_free(m);
	return GC_ERR_INPUT;
}

gc_status gc_config_require(const gc_config *cfg, const char *key, char **errmsg)
{
	gc_entry *e = entry_must(cfg, key);

	if (e->val || e->def)
		return GC_OK;
	if (errmsg) {
		const char *file = cfg->doc_name ? cfg->doc_name : GC_CFG_NO_FILE;

		if (e->p->help)
			*errmsg = g_strdup_printf("%s:1:1: missing required key '%s' (%s)", file,
						  key, e->p->help);
		else
			*errmsg = g_strdup_printf("%s:1:1: missing required key '%s'", file, key);
	}
	return GC_ERR_INPUT;
}

/* ---- dump ------------------------------------------------------------------ */

/* A string that reads back as itself as a plain YAML scalar. */
static bool plain_safe(const char *s)
{
	static const char *const nulls[] = {"~", "null", "Null", "NULL"};
	size_t len = strlen(s);

	if (len == 0 || !(g_ascii_isalnum(s[0]) || s[0] == '_') || s[len - 1] == ' ')
		return false;
	for (size_t i = 0; i < G_N_ELEMENTS(nulls); i++)
		if (strcmp(s, nulls[i]) == 0)
			return false;
	for (const char *c = s; *c; c++)
		if (!g_ascii_isalnum(*c) && !strchr("_-./+ ", *c))
			return false;
	return true;
}

/*
 * A YAML double-quoted scalar that reads back as exactly `s`: controls, C1
 * characters and the characters YAML folds or refuses (NEL, U+2028,
 * U+2029, U+FEFF, U+FFFE, U+FFFF) are escaped.
 */
static void append_yaml_quoted(GString *out, const char *s)
{
	g_string_append_c(out, '"');
	for (const char *c = s; *c;) {
		gunichar u = g_utf8_get_char_validated(c, -1);

		if (u == (gunichar)-1 || u == (gunichar)-2) {
			/* Not UTF-8 (only from --set): the byte as a code point. */
			g_string_append_printf(out, "\\x%02X", (unsigned char)*c);
			c++;
			continue;
		}
		if (u == '"' || u == '\\')
			g_string_append_printf(out, "\\%c", (char)u);
		else if (u == '\n')
			g_string_append(out, "\\n");
		else if (u == '\t')
			g_string_append(out, "\\t");
		else if (u < 0x20 || (u >= 0x7f && u < 0xa0))
			g_string_append_printf(out, "\\x%02X", u);
		else if (u == 0x2028 || u == 0x2029 || u == 0xfeff || u == 0xfffe || u == 0xffff)
			g_string_append_printf(out, "\\u%04X", u);
		else
			g_string_append_len(out, c, g_utf8_next_char(c) - c);
		c = g_utf8_next_char(c);
	}
	g_string_append_c(out, '"');
}

void gc_config_dump(const gc_config *cfg, void *gstring_out)
{
	GString *out = gstring_out;

	for (guint i = 0; i < cfg->entries->len; i++) {
		const gc_entry *e = g_ptr_array_index(cfg->entries, i);
		const gc_value *v = e->val ? e->val : e->def;

		if (!v)
			continue;
		g_string_append_printf(out, "%s: ", e->p->key);
		if (e->p->type == GC_P_BYTES_LIST) {
			g_string_append_c(out, '[');
			for (size_t k = 0; k < v->nlist; k++) {
				if (k)
					g_string_append(out, ", ");
				append_scalar(out, GC_P_BYTES_LIST, v, v->list[k]);
			}
			g_string_append_c(out, ']');
		} else if (e->p->type == GC_P_STRING && !plain_safe(v->s)) {
			append_yaml_quoted(out, v->s);
		} else {
			append_scalar(out, e->p->type, v, 0);
		}
		switch (v->origin) {
		case GC_O_TABLE:
			g_string_append(out, "  # default\n");
			break;
		case GC_O_NAMED:
			g_string_append_printf(out, "  # %s\n", v->where);
			break;
		case GC_O_FILE:
			g_string_append_printf(out, "  # %s:%lu:%lu\n", v->where, v->line, v->col);
			break;
		case GC_O_SET:
			g_string_append(out, "  # --set\n");
			break;
		case GC_O_AT:
			g_string_append_printf(out, "  # %s\n", v->where);
			break;
		}
	}
}

/* ---- key listings ------------------------------------------------------------ */

/*
 * ", "-joined distinct next components of the keys under group `path`
 * ("" for the top level), in table order.
 */
static char *next_components(const gc_config *cfg, const char *path)
{
	GString *s = g_string_new(NULL);
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	size_t plen = strlen(path);

	for (guint i = 0; i < cfg->entries->len; i++) {
		const char *k = ((gc_entry *)g_ptr_array_index(cfg->entries, i))->p->key;
		const char *rest, *dot;
		char *comp;

		if (plen) {
			if (strncmp(k, path, plen) != 0 || k[plen] != '.')
				continue;
			rest = k + plen + 1;
		} else {
			rest = k;
		}
		dot = strchr(rest, '.');
		comp = dot ? g_strndup(rest, (gsize)(dot - rest)) : g_strdup(rest);
		if (g_hash_table_contains(seen, comp)) {
			g_free(comp);
			continue;
		}
		if (s->len)
			g_string_append(s, ", ");
		g_string_append(s, comp);
		g_hash_table_add(seen, comp);
	}
	g_hash_table_destroy(seen);
	return g_string_free(s, FALSE);
}

/* Edit distance of the first 128 bytes of a and b. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = MIN(strlen(a), 128), lb = MIN(strlen(b), 128);
	size_t row[129];

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			best = MIN(best, up + 1);
			best = MIN(best, row[j - 1] + 1);
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* Closeness of a typed key to a known key: its distance to the whole key
 * or to any '.'-aligned tail of it ("gpus" is close to "topology.gpus"). */
static size_t key_distance(const char *typed, const char *known)
{
	size_t best = edit_distance(typed, known);

	for (const char *d = strchr(known, '.'); d; d = strchr(d + 1, '.'))
		best = MIN(best, edit_distance(typed, d + 1));
	return best;
}

typedef struct gc_suggest {
	size_t dist, prefix, order;
	const char *key;
} gc_suggest;

/* Closest first; then the longer common prefix; then table order. */
static int suggest_cmp(const void *a, const void *b)
{
	const gc_suggest *x = a, *y = b;

	if (x->dist != y->dist)
		return x->dist < y->dist ? -1 : 1;
	if (x->prefix != y->prefix)
		return x->prefix > y->prefix ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * The keys closest to `typed`, ", "-joined: those within an edit distance
 * of max(2, length / 3), at most GC_CFG_SUGGEST of them; when none is that
 * close, simply the GC_CFG_SUGGEST closest.
 */
static char *closest_keys(const gc_config *cfg, const char *typed)
{
	guint n = cfg->entries->len, shown = 0;
	gc_suggest *sg = g_new(gc_suggest, n ? n : 1);
	GString *s = g_string_new(NULL);
	size_t near = MAX(2, strlen(typed) / 3);

	for (guint i = 0; i < n; i++) {
		const char *k = ((gc_entry *)g_ptr_array_index(cfg->entries, i))->p->key;
		size_t pre = 0;

		while (k[pre] && k[pre] == typed[pre])
			pre++;
		sg[i] = (gc_suggest){key_distance(typed, k), pre, i, k};
	}
	qsort(sg, n, sizeof(*sg), suggest_cmp);
	if (n && sg[0].dist > near)
		near = SIZE_MAX;
	for (guint i = 0; i < n && shown < GC_CFG_SUGGEST && sg[i].dist <= near; i++)
		g_string_append_printf(s, "%s%s", shown++ ? ", " : "", sg[i].key);
	g_free(sg);
	return g_string_free(s, FALSE);
}

/* ---- --set ------------------------------------------------------------------ */

gc_status gc_config_set(gc_config *cfg, const char *assignment, char **errmsg)
{
	return gc_config_set_at(cfg, assignment, NULL, errmsg);
}

gc_status gc_config_set_at(gc_config *cfg, const char *assignment, const char *where,
			   char **errmsg)
{
	const char *eq = strchr(assignment, '=');
	GString *m = g_string_new(NULL);
	gc_entry *e = NULL;
	gc_value *v = NULL;
	char *key, *body = NULL;
	const char *hint;

	/* Messages start "--set KEY=VALUE: " with the assignment cleaned, or
	 * "WHERE: KEY: " for a value that came from elsewhere. */
	if (!where)
		g_string_append(m, "--set ");
	else
		g_string_append_printf(m, "%s: ", where);
	append_user(m, assignment, where && eq ? (size_t)(eq - assignment) : strlen(assignment));
	g_string_append(m, ": ");
	if (!eq) {
		g_string_append(m, "expected KEY=VALUE, e.g. topology.gpus=8");
		goto fail;
	}
	key = g_strndup(assignment, (gsize)(eq - assignment));
	e = g_hash_table_lookup(cfg->by_key, key);
	if (!e && g_hash_table_contains(cfg->groups, key)) {
		size_t shown = 0, klen = strlen(key);

		g_string_append(m, "'");
		g_string_append(m, key);
		g_string_append(m, "' is a group of keys; set one of: ");
		for (guint i = 0; i < cfg->entries->len; i++) {
			const char *k = ((gc_entry *)g_ptr_array_index(cfg->entries, i))->p->key;

			if (strncmp(k, key, klen) != 0 || k[klen] != '.')
				continue;
			if (shown++ == GC_CFG_GROUP_LIST) {
				g_string_append(m, ", ...");
				break;
			}
			g_string_append_printf(m, "%s%s", shown > 1 ? ", " : "", k);
		}
	} else if (!e && (hint = hint_for(cfg, key))) {
		g_string_append(m, "unknown key ");
		append_quoted_str(m, key);
		g_string_append_printf(m, ": %s", hint);
	} else if (!e) {
		char *near = closest_keys(cfg, key);

		g_string_append(m, "unknown key ");
		append_quoted_str(m, key);
		g_string_append_printf(m, "; did you mean: %s", near);
		g_free(near);
	}
	g_free(key);
	if (!e)
		goto fail;
	v = g_new0(gc_value, 1);
	if (!value_from_text(e->p, eq + 1, v, &body)) {
		g_string_append(m, body);
		g_free(body);
		gc_value_free(v);
		goto fail;
	}
	v->origin = where ? GC_O_AT : GC_O_SET;
	v->where = g_strdup(where);
	gc_value_free(e->val);
	e->val = v;
	g_string_free(m, TRUE);
	return GC_OK;
fail:
	if (errmsg)
		*errmsg = g_string_free(m, FALSE);
	else
		g_string_free(m, TRUE);
	return GC_ERR_INPUT;
}

/* ---- the YAML loader ------------------------------------------------------------ */

typedef struct gc_loader {
	gc_config *cfg;
	const char *name;	    /* file name in messages */
	const unsigned char *text;  /* the input, for reader-error positions */
	size_t len;
	yaml_parser_t parser;
	yaml_event_t ev;	    /* the current event */
	bool have_ev;
	GHashTable *staged;	    /* key -> gc_value * (owned), committed at the end */
	char *err;		    /* the first error, complete */
	unsigned long doc_line, doc_col;
	bool bare;		    /* errors without "NAME:LINE:COL: " (--set text) */
} gc_loader;

/* Record the error "NAME:LINE:COL: MSG" (line, col 1-based). Returns false. */
static bool ld_fail_at(gc_loader *ld, unsigned long line, unsigned long col, const char *msg)
{
	if (!ld->err && ld->bare)
		ld->err = g_strdup(msg);
	else if (!ld->err)
		ld->err = g_strdup_printf("%s:%lu:%lu: %s", ld->name, line, col, msg);
	return false;
}

static bool ld_fail(gc_loader *ld, yaml_mark_t m, const char *msg)
{
	return ld_fail_at(ld, (unsigned long)m.line + 1, (unsigned long)m.column + 1, msg);
}

/* Same, taking ownership of a g_malloc'ed message. */
static bool ld_fail_own(gc_loader *ld, yaml_mark_t m, char *msg)
{
	ld_fail(ld, m, msg);
	g_free(msg);
	return false;
}

static bool ld_failf(gc_loader *ld, yaml_mark_t m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool ld_failf(gc_loader *ld, yaml_mark_t m, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	return ld_fail_own(ld, m, msg);
}

/*
 * Line and column of a byte offset, for reader errors (which libyaml
 * reports by offset only): breaks are \n, \r\n and \r as in YAML; the
 * column counts characters, not UTF-8 continuation bytes.
 */
static void ld_offset_pos(const gc_loader *ld, size_t off, unsigned long *line,
			  unsigned long *col)
{
	*line = 1;
	*col = 1;
	off = MIN(off, ld->len);
	for (size_t i = 0; i < off; i++) {
		unsigned char c = ld->text[i];

		if (c == '\n' || (c == '\r' && (i + 1 >= ld->len || ld->text[i + 1] != '\n'))) {
			(*line)++;
			*col = 1;
		} else if ((c & 0xC0) != 0x80 && c != '\r') {
			(*col)++;
		}
	}
}

/* Turn libyaml's error state into our message. */
static bool ld_syntax_error(gc_loader *ld)
{
	yaml_parser_t *p = &ld->parser;
	GString *s = g_string_new(NULL);
	unsigned long line = 1, col = 1;
	const char *problem = p->problem ? p->problem : "unknown error";

	switch (p->error) {
	case YAML_READER_ERROR: {
		size_t off = MIN(p->problem_offset, ld->len);

		/* libyaml points at a bad trailing byte; show its character's start. */
		if (strstr(problem, "trailing"))
			for (int k = 0; k < 3 && off > 0 && off < ld->len &&
					(ld->text[off] & 0xC0) != 0xC0; k++)
				off--;
		ld_offset_pos(ld, off, &line, &col);
		g_string_append_printf(s, "not a YAML text: %s", problem);
		if (p->problem_value >= 0)
			g_string_append_printf(s, " (#%X)", (unsigned)p->problem_value);
		g_string_append(s, "; a scenario must be UTF-8 text");
		break;
	}
	case YAML_MEMORY_ERROR:
		g_string_append(s, "out of memory while parsing");
		break;
	default:
		line = (unsigned long)p->problem_mark.line + 1;
		col = (unsigned long)p->problem_mark.column + 1;
		g_string_append_printf(s, "invalid YAML: %s", problem);
		if (p->context && p->context_mark.index == p->problem_mark.index)
			g_string_append_printf(s, " (%s)", p->context);
		else if (p->context)
			g_string_append_printf(s, " (%s at %lu:%lu)", p->context,
					       (unsigned long)p->context_mark.line + 1,
					       (unsigned long)p->context_mark.column + 1);
		break;
	}
	ld_fail_at(ld, line, col, s->str);
	g_string_free(s, TRUE);
	return false;
}

/*
 * Advance to the next event. Aliases, anchors and tags end the load here,
 * so no other code has to think about them.
 */
static bool ld_next(gc_loader *ld)
{
	const yaml_char_t *anchor = NULL, *tag = NULL;

	if (ld->have_ev)
		yaml_event_delete(&ld->ev);
	ld->have_ev = false;
	if (!yaml_parser_parse(&ld->parser, &ld->ev))
		return ld_syntax_error(ld);
	ld->have_ev = true;
	switch (ld->ev.type) {
	case YAML_ALIAS_EVENT: {
		GString *s = g_string_new("anchors and aliases are not supported (alias *");

		append_user(s, (const char *)ld->ev.data.alias.anchor,
			    strlen((const char *)ld->ev.data.alias.anchor));
		g_string_append(s, "); write the value out");
		return ld_fail_own(ld, ld->ev.start_mark, g_string_free(s, FALSE));
	}
	case YAML_SCALAR_EVENT:
		anchor = ld->ev.data.scalar.anchor;
		tag = ld->ev.data.scalar.tag;
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = ld->ev.data.sequence_start.anchor;
		tag = ld->ev.data.sequence_start.tag;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = ld->ev.data.mapping_start.anchor;
		tag = ld->ev.data.mapping_start.tag;
		break;
	default:
		break;
	}
	if (anchor) {
		GString *s = g_string_new("anchors and aliases are not supported (anchor &");

		append_user(s, (const char *)anchor, strlen((const char *)anchor));
		g_string_append(s, "); write the value out");
		return ld_fail_own(ld, ld->ev.start_mark, g_string_free(s, FALSE));
	}
	if (tag) {
		GString *s = g_string_new("tags are not supported (");

		append_quoted(s, (const char *)tag, strlen((const char *)tag));
		g_string_append(s, "); remove the tag, or quote the value for a string");
		return ld_fail_own(ld, ld->ev.start_mark, g_string_free(s, FALSE));
	}
	if (ld->ev.type == YAML_SCALAR_EVENT &&
	    strlen((const char *)ld->ev.data.scalar.value) != ld->ev.data.scalar.length)
		return ld_fail(ld, ld->ev.start_mark, "a NUL character (\\0) in a scalar");
	return true;
}

static const char *ev_scalar(const gc_loader *ld)
{
	return (const char *)ld->ev.data.scalar.value;
}

/* A YAML null: a plain empty, ~, null, Null or NULL. */
static bool ev_is_null(const gc_loader *ld)
{
	const char *v = ev_scalar(ld);

	if (ld->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	return !v[0] || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

/* What the current node is, for "got ..." ("a mapping", "nothing", ...). */
static const char *ev_kind(const gc_loader *ld)
{
	switch (ld->ev.type) {
	case YAML_MAPPING_START_EVENT:
		return "a mapping";
	case YAML_SEQUENCE_START_EVENT:
		return "a sequence";
	case YAML_SCALAR_EVENT:
		return ev_is_null(ld) ? "nothing" : "a scalar";
	default:
		return "an unexpected YAML event";
	}
}

/* "in 'PATH'" or "at top level", for unknown and duplicate keys. */
static char *where_in(const char *path)
{
	return path[0] ? g_strdup_printf("in '%s'", path) : g_strdup("at top level");
}

/* "KEY: BODY" at the current node; takes BODY. */
static bool ld_fail_key(gc_loader *ld, yaml_mark_t m, const char *key, char *body)
{
	ld_failf(ld, m, "%s: %s", key, body);
	g_free(body);
	return false;
}

/* The current event must be a scalar mapping key; returns a copy and its mark. */
static bool ld_key(gc_loader *ld, const char *path, char **key, yaml_mark_t *mark)
{
	if (ld->ev.type != YAML_SCALAR_EVENT) {
		char *in = where_in(path);

		ld_failf(ld, ld->ev.start_mark, "keys must be plain names, got %s as a key %s",
			 ev_kind(ld), in);
		g_free(in);
		return false;
	}
	*key = g_strdup(ev_scalar(ld));
	*mark = ld->ev.start_mark;
	return true;
}

/* Reject the second occurrence of a key in one mapping. */
static bool ld_unique(gc_loader *ld, GHashTable *seen, const char *path, const char *key,
		      yaml_mark_t m)
{
	const yaml_mark_t *first = g_hash_table_lookup(seen, key);

	if (first) {
		GString *s = g_string_new("duplicate key ");
		char *in = where_in(path);

		append_quoted_str(s, key);
		g_string_append_printf(s, " %s (first at %lu:%lu)", in,
				       (unsigned long)first->line + 1,
				       (unsigned long)first->column + 1);
		g_free(in);
		return ld_fail_own(ld, m, g_string_free(s, FALSE));
	}
	g_hash_table_insert(seen, g_strdup(key), g_memdup2(&m, sizeof(m)));
	return true;
}

/* One size of a list at the current node; `name` prefixes errors. */
static bool ld_size(gc_loader *ld, const gc_param *p, const char *name, uint64_t *out)
{
	char *body = NULL;
	const char *why = NULL;
	uint64_t dummy;

	if (ld->ev.type != YAML_SCALAR_EVENT) {
		gc_parse_bytes("", &dummy, &why);
		return ld_fail_key(ld, ld->ev.start_mark, name,
				   g_strdup_printf("expected %s, got %s", why, ev_kind(ld)));
	}
	if (!elem_from_scalar(p, ev_scalar(ld), ev_is_null(ld), out, &body))
		return ld_fail_key(ld, ld->ev.start_mark, name, body);
	return true;
}

/* {from: SIZE, to: SIZE, factor: INT} at the current MAPPING_START. */
static bool ld_size_range(gc_loader *ld, const gc_param *p, const char *key, GArray *out)
{
	static const char *const names[] = {"from", "to", "factor"};
	static const gc_param factor_p = {"factor", GC_P_INT, NULL, NULL, 2, 9007199254740991.0,
					  "growth factor of a size range", NULL};
	yaml_mark_t start = ld->ev.start_mark, from_mark = start;
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	uint64_t from = 0, to = 0;
	int64_t factor = 0;
	bool have[3] = {false, false, false}, ok = false;

	for (;;) {
		yaml_mark_t km;
		char *k = NULL, *name;
		int which = -1;
		bool good;

		if (!ld_next(ld))
			goto out;
		if (ld->ev.type == YAML_MAPPING_END_EVENT)
			break;
		if (!ld_key(ld, key, &k, &km))
			goto out;
		for (int i = 0; i < 3; i++)
			if (strcmp(k, names[i]) == 0)
				which = i;
		if (which < 0) {
			GString *s = g_string_new("unknown key ");

			append_quoted_str(s, k);
			g_string_append_printf(s, " in '%s'; expected one of: from, to, factor",
					       key);
			g_free(k);
			ld_fail_own(ld, km, g_string_free(s, FALSE));
			goto out;
		}
		good = ld_unique(ld, seen, key, k, km);
		g_free(k);
		if (!good || !ld_next(ld))
			goto out;
		name = g_strdup_printf("%s.%s", key, names[which]);
		if (which == 2) {
			gc_value v = {0};
			char *body = NULL;

			if (ld->ev.type != YAML_SCALAR_EVENT)
				good = ld_fail_key(ld, ld->ev.start_mark, name,
						   msg_expected(&factor_p, NULL, ev_kind(ld)));
			else if (!value_from_scalar(&factor_p, ev_scalar(ld), ev_is_null(ld), &v,
						    &body))
				good = ld_fail_key(ld, ld->ev.start_mark, name, body);
			factor = v.v.i;
		} else {
			if (which == 0)
				from_mark = ld->ev.start_mark;
			good = ld_size(ld, p, name, which == 0 ? &from : &to);
		}
		g_free(name);
		if (!good)
			goto out;
		have[which] = true;
	}
	for (int i = 0; i < 3; i++)
		if (!have[i]) {
			ld_failf(ld, start,
				 "%s: a size range needs from, to and factor; '%s' is missing", key,
				 names[i]);
			goto out;
		}
	if (from == 0) {
		ld_failf(ld, from_mark, "%s.from: must be at least 1B in a range, got 0B", key);
		goto out;
	}
	if (from > to) {
		char a[32], b[32];

		ld_failf(ld, start, "%s: 'from' (%s) is larger than 'to' (%s)", key,
			 gc_fmt_bytes(from, a, sizeof(a)), gc_fmt_bytes(to, b, sizeof(b)));
		goto out;
	}
	/* from * factor^k <= to; factor >= 2 bounds this by 64 entries. */
	for (uint64_t x = from;;) {
		g_array_append_val(out, x);
		if (x > to / (uint64_t)factor)
			break;
		x *= (uint64_t)factor;
	}
	ok = true;
out:
	g_hash_table_destroy(seen);
	return ok;
}

/*
 * A size range given as text (--set KEY={from: 1MiB, to: 4GiB, factor: 4}):
 * one YAML flow mapping, read by the file loader's own code, so that it
 * takes and refuses exactly what a scenario file does.
 */
static bool range_from_text(const gc_param *p, const char *text, GArray *out, char **body)
{
	gc_loader ld = {0};
	bool ok;

	ld.name = "--set";
	ld.bare = true;
	ld.text = (const unsigned char *)text;
	ld.len = strlen(text);
	if (!yaml_parser_initialize(&ld.parser))
		g_error("gc_config: yaml_parser_initialize failed (out of memory)");
	yaml_parser_set_input_string(&ld.parser, ld.text, ld.len);
	/* STREAM-START, DOCUMENT-START, then the mapping */
	ok = ld_next(&ld) && ld_next(&ld) && ld_next(&ld);
	if (ok && ld.ev.type != YAML_MAPPING_START_EVENT)
		ok = ld_failf(&ld, ld.ev.start_mark, "expected a size range such as {from: 1MiB, "
				   "to: 4GiB, factor: 4}, got %s", ev_kind(&ld));
	ok = ok && ld_size_range(&ld, p, p->key, out);
	/* DOCUMENT-END, then STREAM-END: nothing may follow the mapping */
	ok = ok && ld_next(&ld) && ld_next(&ld);
	if (ok && ld.ev.type != YAML_STREAM_END_EVENT)
		ok = ld_failf(&ld, ld.ev.start_mark, "text after the size range's closing '}'");
	if (ld.have_ev)
		yaml_event_delete(&ld.ev);
	yaml_parser_delete(&ld.parser);
	if (ok) {
		g_free(ld.err);
	} else if (ld.err && g_str_has_prefix(ld.err, "invalid YAML")) {
		*body = g_strdup_printf("expected one size range such as {from: 1MiB, to: 4GiB, "
					"factor: 4}; %s", ld.err);
		g_free(ld.err);
	} else {
		*body = ld.err ? ld.err : g_strdup("not a size range");
	}
	return ok;
}

/* A GC_P_BYTES_LIST value at the current node. */
static bool ld_size_list(gc_loader *ld, const gc_param *p, const char *key, gc_value *v)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	yaml_mark_t start = ld->ev.start_mark;
	bool ok = false;
	uint64_t x;

	switch (ld->ev.type) {
	case YAML_SCALAR_EVENT:
		if (ev_is_null(ld)) {
			ld_fail_key(ld, start, key, msg_expected(p, NULL, "nothing"));
			break;
		}
		if ((ok = ld_size(ld, p, key, &x)))
			g_array_append_val(a, x);
		break;
	case YAML_MAPPING_START_EVENT:
		ok = ld_size_range(ld, p, key, a);
		break;
	case YAML_SEQUENCE_START_EVENT:
		for (;;) {
			char *name;

			if (!ld_next(ld))
				goto out;
			if (ld->ev.type == YAML_SEQUENCE_END_EVENT)
				break;
			if (a->len == GC_CFG_MAX_LIST) {
				ld_failf(ld, ld->ev.start_mark, "%s: more than %d sizes", key,
					 GC_CFG_MAX_LIST);
				goto out;
			}
			name = g_strdup_printf("%s[%u]", key, a->len);
			ok = ld_size(ld, p, name, &x);
			g_free(name);
			if (!ok)
				goto out;
			g_array_append_val(a, x);
		}
		ok = a->len > 0;
		if (!ok)
			ld_failf(ld, start, "%s: expected at least one size, got an empty list",
				 key);
		break;
	default:
		ld_fail_key(ld, start, key, msg_expected(p, NULL, ev_kind(ld)));
		break;
	}
out:
	v->nlist = a->len;
	v->list = (uint64_t *)(void *)g_array_free(a, FALSE);
	return ok;
}

/* The value of known key `e` at the current node, staged on success. */
static bool ld_value(gc_loader *ld, gc_entry *e, const char *key, yaml_mark_t key_mark)
{
	const gc_value *prev = g_hash_table_lookup(ld->staged, key);
	gc_value *v;
	yaml_mark_t m = ld->ev.start_mark;
	bool ok;

	if (prev) {
		/* The same key by two spellings: nested and dotted. */
		GString *s = g_string_new("duplicate key ");

		append_quoted_str(s, key);
		g_string_append_printf(s, " (first set at %lu:%lu)", prev->line, prev->col);
		return ld_fail_own(ld, key_mark, g_string_free(s, FALSE));
	}
	v = g_new0(gc_value, 1);
	v->text_shift = -1;
	if (e->p->type == GC_P_BYTES_LIST) {
		ok = ld_size_list(ld, e->p, key, v);
	} else if (ld->ev.type != YAML_SCALAR_EVENT) {
		ok = ld_fail_key(ld, m, key, msg_expected(e->p, NULL, ev_kind(ld)));
	} else {
		char *body = NULL;
		yaml_mark_t end = ld->ev.end_mark;
		int quoted = ld->ev.data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
			     ld->ev.data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;

		ok = value_from_scalar(e->p, ev_scalar(ld), ev_is_null(ld), v, &body);
		if (!ok)
			ld_fail_key(ld, m, key, body);
		/* a scalar on one line whose source is as long as its value (plus
		 * its quotes) has no escapes: each character has its column */
		if (ok && end.line == m.line &&
		    end.column - m.column ==
			    (size_t)g_utf8_strlen(ev_scalar(ld), -1) + (quoted ? 2 : 0) &&
		    g_utf8_validate(ev_scalar(ld), -1, NULL))
			v->text_shift = quoted;
	}
	if (!ok) {
		gc_value_free(v);
		return false;
	}
	v->origin = GC_O_FILE;
	v->where = g_strdup(ld->name);
	v->line = (unsigned long)m.line + 1;
	v->col = (unsigned long)m.column + 1;
	g_hash_table_insert(ld->staged, g_strdup(key), v);
	return true;
}

/* The mapping of group `path` ("" at the top) at the current MAPPING_START. */
static bool ld_mapping(gc_loader *ld, const char *path, int depth)
{
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	bool ok = false;

	if (depth > GC_CFG_MAX_DEPTH) {
		ld_failf(ld, ld->ev.start_mark, "mappings nested deeper than %d levels",
			 GC_CFG_MAX_DEPTH);
		goto out;
	}
	for (;;) {
		yaml_mark_t km;
		char *k = NULL, *full;
		gc_entry *e;
		bool good;

		if (!ld_next(ld))
			goto out;
		if (ld->ev.type == YAML_MAPPING_END_EVENT)
			break;
		if (!ld_key(ld, path, &k, &km))
			goto out;
		if (!ld_unique(ld, seen, path, k, km)) {
			g_free(k);
			goto out;
		}
		full = path[0] ? g_strdup_printf("%s.%s", path, k) : g_strdup(k);
		e = g_hash_table_lookup(ld->cfg->by_key, full);
		if (!e && !g_hash_table_contains(ld->cfg->groups, full)) {
			/* Unknown: report at the key, before reading the value. */
			GString *s = g_string_new("unknown key ");
			char *in = where_in(path);
			const char *hint = hint_for(ld->cfg, full);

			append_quoted_str(s, k);
			if (hint) {
				g_string_append_printf(s, " %s: %s", in, hint);
			} else {
				char *alts = next_components(ld->cfg, path);

				g_string_append_printf(s, " %s; expected one of: %s", in, alts);
				g_free(alts);
			}
			g_free(in);
			g_free(k);
			g_free(full);
			ld_fail_own(ld, km, g_string_free(s, FALSE));
			goto out;
		}
		g_free(k);
		good = ld_next(ld);
		if (good && e) {
			good = ld_value(ld, e, full, km);
		} else if (good && ld->ev.type != YAML_MAPPING_START_EVENT) {
			good = ld_failf(ld, ld->ev.start_mark,
					"expected a mapping for '%s', got %s", full, ev_kind(ld));
		} else if (good) {
			good = ld_mapping(ld, full, depth + 1);
		}
		g_free(full);
		if (!good)
			goto out;
	}
	ok = true;
out:
	g_hash_table_destroy(seen);
	return ok;
}

/* The whole stream: exactly one document whose root is a mapping. */
static bool ld_stream(gc_loader *ld)
{
	if (!ld_next(ld) || !ld_next(ld)) /* STREAM-START, then the document */
		return false;
	if (ld->ev.type == YAML_STREAM_END_EVENT)
		return ld_fail_at(ld, 1, 1, "empty file; expected a scenario mapping");
	ld->doc_line = (unsigned long)ld->ev.start_mark.line + 1;
	ld->doc_col = (unsigned long)ld->ev.start_mark.column + 1;
	if (!ld_next(ld))
		return false;
	if (ld->ev.type == YAML_SCALAR_EVENT && ev_is_null(ld))
		return ld_fail(ld, ld->ev.start_mark,
			       "empty document; expected a scenario mapping");
	if (ld->ev.type != YAML_MAPPING_START_EVENT)
		return ld_failf(ld, ld->ev.start_mark,
				"expected a scenario mapping at the top level, got %s",
				ev_kind(ld));
	if (!ld_mapping(ld, "", 1))
		return false;
	if (!ld_next(ld) || !ld_next(ld)) /* DOCUMENT-END, then STREAM-END */
		return false;
	if (ld->ev.type == YAML_DOCUMENT_START_EVENT)
		return ld_fail(ld, ld->ev.start_mark,
			       "a second document; a scenario file holds exactly one");
	return true;
}

gc_status gc_config_load_string(gc_config *cfg, const char *name, const char *text, size_t len,
				char **errmsg)
{
	gc_loader ld = {0};
	GHashTableIter it;
	gpointer k, v;
	bool ok;

	if (len > GC_CFG_MAX_BYTES) {
		if (errmsg)
			*errmsg = g_strdup_printf("%s:1:1: too large (%zu bytes; the limit is "
						  "16MiB)", name, len);
		return GC_ERR_INPUT;
	}
	ld.cfg = cfg;
	ld.name = name;
	ld.text = (const unsigned char *)(text ? text : "");
	ld.len = text ? len : 0;
	ld.staged = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					  (GDestroyNotify)gc_value_free);
	if (!yaml_parser_initialize(&ld.parser))
		g_error("gc_config: yaml_parser_initialize failed (out of memory)");
	yaml_parser_set_input_string(&ld.parser, ld.text, ld.len);
	ok = ld_stream(&ld);
	if (ld.have_ev)
		yaml_event_delete(&ld.ev);
	yaml_parser_delete(&ld.parser);
	if (ok) {
		/* Commit: every staged value replaces the entry's value. */
		g_hash_table_iter_init(&it, ld.staged);
		while (g_hash_table_iter_next(&it, &k, &v)) {
			gc_entry *e = g_hash_table_lookup(cfg->by_key, k);

			gc_value_free(e->val);
			e->val = v;
			g_hash_table_iter_steal(&it);
			g_free(k);
		}
		g_free(cfg->doc_name);
		cfg->doc_name = g_strdup(name);
		cfg->doc_line = ld.doc_line;
		cfg->doc_col = ld.doc_col;
	}
	g_hash_table_destroy(ld.staged);
	if (ok)
		return GC_OK;
	if (errmsg)
		*errmsg = ld.err;
	else
		g_free(ld.err);
	return GC_ERR_INPUT;
}

/* A scenario read from a stream (standard input as "-", a pipe, a process
 * substitution) can be read once only, while a run loads its scenario
 * several times (to see its workload, then once per sweep row): a stream's
 * bytes are kept by path for the life of the process. */
static GHashTable *stream_cache;

/* Read f to its end into *out; false with errno's message in *errmsg. */
static gc_status read_all(FILE *f, const char *name, GByteArray **out, char **errmsg)
{
	GByteArray *buf = g_byte_array_new();
	char chunk[65536];
	size_t got;

	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		g_byte_array_append(buf, (const guint8 *)chunk, (guint)got);
		if (buf->len > GC_CFG_MAX_BYTES)
			break;
	}
	if (ferror(f)) {
		int err = errno;

		g_byte_array_free(buf, TRUE);
		if (errmsg)
			*errmsg = g_strdup_printf("%s:1:1: cannot read file: %s", name,
						  g_strerror(err));
		return GC_ERR_IO;
	}
	if (buf->len > GC_CFG_MAX_BYTES) {
		g_byte_array_free(buf, TRUE);
		if (errmsg)
			*errmsg = g_strdup_printf("%s:1:1: too large (more than 16MiB); a "
						  "scenario is a small text file", name);
		return GC_ERR_INPUT;
	}
	*out = buf;
	return GC_OK;
}

/* What a file of mode m is, for refusing it. */
static const char *file_kind(mode_t m)
{
	return S_ISDIR(m)    ? "a directory"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
			     : "not a regular file";
}

/*
 * Open a scenario path for reading: a regular file, or a pipe (a named
 * pipe, a process substitution, /dev/stdin on a pipe). Directories and
 * devices are refused before they are opened (a terminal or a tape would
 * block, /dev/zero would never end). A named pipe is opened without
 * waiting for a writer (O_NONBLOCK), then read blocking: with no writer it
 * reads as empty at once instead of hanging; a writer that has it open is
 * read to its end. NULL with the message in *errmsg.
 */
static FILE *open_input(const char *path, char **errmsg)
{
	struct stat sb;
	int fd, err;
	FILE *f;

	if (stat(path, &sb) != 0)
		goto fail;
	if (!S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode)) {
		if (errmsg)
			*errmsg = g_strdup_printf("%s:1:1: cannot read a scenario from %s; expected "
						  "a YAML file (or a pipe)",
						  path, file_kind(sb.st_mode));
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | (S_ISFIFO(sb.st_mode) ? O_NONBLOCK : 0));
	if (fd < 0)
		goto fail;
	/* the path may have changed between stat and open */
	if (fstat(fd, &sb) != 0 || (!S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode))) {
		close(fd);
		if (errmsg)
			*errmsg = g_strdup_printf("%s:1:1: cannot read a scenario from %s; expected "
						  "a YAML file (or a pipe)",
						  path, file_kind(sb.st_mode));
		return NULL;
	}
	if (S_ISFIFO(sb.st_mode) && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
		err = errno;
		close(fd);
		errno = err;
		goto fail;
	}
	f = fdopen(fd, "rb");
	if (f)
		return f;
	err = errno;
	close(fd);
	errno = err;
fail:
	if (errmsg)
		*errmsg = g_strdup_printf("%s:1:1: cannot open file: %s", path, g_strerror(errno));
	return NULL;
}

const char *gc_config_source_name(const char *path)
{
	return strcmp(path, "-") ? path : "<stdin>";
}

gc_status gc_config_load_file(gc_config *cfg, const char *path, char **errmsg)
{
	bool in = !strcmp(path, "-");
	const char *name = gc_config_source_name(path);
	GByteArray *buf = stream_cache ? g_hash_table_lookup(stream_cache, path) : NULL;
	bool cached = buf != NULL;

	if (!buf) {
		FILE *f = in ? stdin : open_input(path, errmsg);
		struct stat sb;
		gc_status st;
		bool fifo;

		if (!f)
			return GC_ERR_IO;
		fifo = fstat(fileno(f), &sb) == 0 && S_ISFIFO(sb.st_mode);
		st = read_all(f, name, &buf, errmsg);
		cached = in || fifo;
		if (!in)
			fclose(f);
		if (st != GC_OK)
			return st;
		if (fifo && !in && buf->len == 0) {
			/* a named pipe nobody had open for writing reads as empty */
			g_byte_array_free(buf, TRUE);
			if (errmsg)
				*errmsg = g_strdup_printf("%s:1:1: a pipe with nothing to read (no "
							  "program had it open for writing, or none "
							  "wrote to it); expected a scenario",
							  path);
			return GC_ERR_INPUT;
		}
		if (cached) {
			if (!stream_cache)
				stream_cache = g_hash_table_new(g_str_hash, g_str_equal);
			g_hash_table_insert(stream_cache, g_strdup(path), buf);
		}
	}
	gc_status st = gc_config_load_string(cfg, name, (const char *)buf->data, buf->len, errmsg);
	if (!cached)
		g_byte_array_free(buf, TRUE);
	return st;
}
