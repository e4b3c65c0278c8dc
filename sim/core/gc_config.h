/* SPDX-License-Identifier: MIT */
/*
 * gc_config: typed, table-driven configuration with source positions.
 *
 * Every configurable quantity in gcsim is a parameter described by a row of a
 * gc_param table (dotted key, type, default, range, help, citation). Layers
 * register their tables with gc_config_add_params(); the YAML loader, the
 * --set overrides, the `--help`-style listings and the effective-config dump
 * all derive from these tables, so an unknown key anywhere is an error that
 * lists the accepted alternatives.
 *
 * Invariants:
 *  - A key is known iff some registered table has a row with that exact key.
 *    A YAML mapping key K at path P is accepted iff "P.K" is a known key or a
 *    strict prefix (followed by '.') of a known key; in the latter case its
 *    value must be a mapping.
 *  - Each known key has at most one value; values carry their origin (file,
 *    line, column as 1-based numbers from libyaml marks, or "--set").
 *  - Every stored value has already been parsed and range-checked; getters
 *    never fail for a registered key (they abort on an unregistered key,
 *    which is a programming error).
 *  - Loading is all-or-nothing: on error the config holds no value from the
 *    failed file.
 */
#ifndef GC_CONFIG_H
#define GC_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gc_status.h"

typedef enum gc_ptype {
	GC_P_INT,	 /* int64, plain decimal integer */
	GC_P_DOUBLE,	 /* finite double */
	GC_P_BOOL,	 /* true/false */
	GC_P_BYTES,	 /* uint64 bytes, units per gc_units.h */
	GC_P_TIME,	 /* int64 picoseconds */
	GC_P_BW,	 /* double bytes per second */
	GC_P_ENUM,	 /* one of `choices` ("a|b|c") */
	GC_P_STRING,	 /* free text */
	GC_P_BYTES_LIST, /* YAML sequence of sizes, or one size; or a mapping
			    {from: SIZE, to: SIZE, factor: INT>=2} expanding to
			    from, from*factor, ... <= to */
} gc_ptype;

typedef struct gc_param {
	const char *key;     /* dotted path, e.g. "topology.link.bandwidth" */
	gc_ptype type;
	const char *def;     /* default in YAML spelling; NULL: no default */
	const char *choices; /* GC_P_ENUM only: "ring|tree" */
	double min;	     /* inclusive range in base units (ps, bytes, B/s, */
	double max;	     /* count); checked only when min <= max */
	const char *help;    /* one line */
	const char *source;  /* where the default comes from; NULL if none */
} gc_param;

typedef struct gc_config gc_config;

gc_config *gc_config_new(void);
void gc_config_free(gc_config *cfg);

/* Register a table (kept by pointer; must outlive cfg). Duplicate keys abort. */
void gc_config_add_params(gc_config *cfg, const gc_param *tab, size_t n);

/* An unknown key equal to key, or under it (key "explain" covers
 * "explain.path"), is reported with hint instead of the nearest known keys:
 * for keys that belong to another command's files. */
void gc_config_add_hint(gc_config *cfg, const char *key, const char *hint);

/* Load a YAML scenario file. On error returns GC_ERR_INPUT (GC_ERR_IO for an
 * unreadable file, reported with the same message form) and sets *errmsg
 * (g_free it) to "FILE:LINE:COLUMN: what was expected". Exactly one document
 * whose root is a mapping is accepted. The path is a regular file or a pipe:
 * a directory or a device is refused unread (GC_ERR_IO), and a named pipe is
 * opened without waiting for a writer, so one that no program has open for
 * writing is refused at once as empty (GC_ERR_INPUT) instead of hanging. */
gc_status gc_config_load_file(gc_config *cfg, const char *path, char **errmsg);
/* A path as messages and headers name it: "-" (standard input) is
 * "<stdin>". gc_config_load_file reads a stream (standard input, a pipe)
 * once and keeps its bytes, so the same path loads again. */
const char *gc_config_source_name(const char *path);
/* Same, from memory; `name` stands in for the file name in messages. */
gc_status gc_config_load_string(gc_config *cfg, const char *name,
				const char *text, size_t len, char **errmsg);

/* Apply one "KEY=VALUE" override (VALUE in YAML scalar spelling; for a list
 * type, a comma-separated list, optionally in brackets, or a size range as
 * in a file, {from: SIZE, to: SIZE, factor: INT}). Errors: "--set
 * KEY=VALUE: ..." listing the accepted keys (for an unknown key, the closest
 * ones) or values. */
gc_status gc_config_set(gc_config *cfg, const char *assignment, char **errmsg);
/* Same for a value that stands at `where` ("FILE:LINE:COLUMN": a value of
 * a scenario's own sweep): messages and gc_config_where name `where`, not
 * --set. where NULL: gc_config_set. */
gc_status gc_config_set_at(gc_config *cfg, const char *assignment, const char *where,
			   char **errmsg);
/* Whether text is a valid value of key (as --set takes it), without
 * storing it; false with the reason in *body (g_free it). */
bool gc_config_check_value(const gc_config *cfg, const char *key, const char *text,
			   char **body);

/* Replace the default of a known key (used by presets). `origin` names who
 * set it, e.g. "preset dgx-h100". Aborts on a bad value (programming error). */
void gc_config_set_default(gc_config *cfg, const char *key, const char *value,
			   const char *origin);

bool gc_config_is_set(const gc_config *cfg, const char *key);
/* True if the key has a value or a default. */
bool gc_config_has(const gc_config *cfg, const char *key);

int64_t gc_config_int(const gc_config *cfg, const char *key);
double gc_config_double(const gc_config *cfg, const char *key);
bool gc_config_bool(const gc_config *cfg, const char *key);
uint64_t gc_config_bytes(const gc_config *cfg, const char *key);
int64_t gc_config_time(const gc_config *cfg, const char *key);
double gc_config_bw(const gc_config *cfg, const char *key);
const char *gc_config_str(const gc_config *cfg, const char *key); /* ENUM/STRING */
/* List values; *n receives the count. Pointer valid while cfg lives. */
const uint64_t *gc_config_bytes_list(const gc_config *cfg, const char *key, size_t *n);

/* "FILE:LINE:COLUMN" of the key's value, of the document start if the key was
 * not set in a file, or "--set" for an override. Written to buf. */
const char *gc_config_where(const gc_config *cfg, const char *key, char *buf, size_t n);
/* Same, for the character at byte `offset` of a string value set in a file
 * (an entry of a comma-separated list); the value's own position where the
 * columns cannot be told (a quoted value with escapes, several lines). */
const char *gc_config_where_at(const gc_config *cfg, const char *key, size_t offset, char *buf,
			       size_t n);
/* Where each entry of a string value split at sep stands (the first
 * character of the entry after spaces), as gc_config_where_at gives it, in
 * one pass: NULL-terminated, g_strfreev. */
char **gc_config_where_split(const gc_config *cfg, const char *key, char sep);
/* Whether the key's value was set by a file (not --set, not a default). */
bool gc_config_from_file(const gc_config *cfg, const char *key);

/* Build an error for a semantically invalid value: returns GC_ERR_INPUT and
 * sets *errmsg to "WHERE: KEY: <formatted message>". */
gc_status gc_config_error(const gc_config *cfg, const char *key, char **errmsg,
			  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Report a missing required key (no value, no default): GC_ERR_INPUT with
 * "FILE:1:1: missing required key 'KEY' (HELP)". Returns GC_OK if present. */
gc_status gc_config_require(const gc_config *cfg, const char *key, char **errmsg);

/* Effective configuration, one "key: value  # origin" line per registered key
 * that has a value or default, in table registration order. Appends to out
 * (a GString*, typed void* to keep GLib out of this header). */
void gc_config_dump(const gc_config *cfg, void *gstring_out);

/* Iterate registered parameters (for listings). Returns NULL past the end. */
const gc_param *gc_config_param_at(const gc_config *cfg, size_t i);

#endif
