/* SPDX-License-Identifier: MIT */
/*
 * gc_units: parsing and printing of quantities with units.
 *
 * Time is int64 picoseconds everywhere in gcsim. Sizes are uint64 bytes.
 * Bandwidth is double bytes per second.
 *
 * Accepted spellings (case-sensitive units, optional single space between the
 * number and the unit, number may be a decimal like 1.5):
 *   size:      B, KB, MB, GB, TB (powers of 1000; kB as SI's KB), KiB, MiB,
 *              GiB, TiB (powers of 1024), K/M/G as KiB/MiB/GiB are NOT
 *              accepted (ambiguous).
 *              A bare integer is bytes.
 *   time:      ps, ns, us, ms, s. A bare number is rejected (ambiguous).
 *   bandwidth: B/s, KB/s, MB/s, GB/s, TB/s (1e3 steps), KiB/s, MiB/s, GiB/s,
 *              bps, Kbps, Mbps, Gbps, Tbps (bits per second, 1e3 steps),
 *              and Gb/s etc. as synonyms of Gbps; SI's lowercase k in kB/s,
 *              kbps, kb/s. A bare number is rejected. An unknown unit's
 *              explanation lists the units.
 * Values must be finite and non-negative; sizes must be whole bytes, times
 * whole picoseconds after conversion (rounded to nearest is NOT done: 1.5ps
 * is an error).
 */
#ifndef GC_UNITS_H
#define GC_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "gc_status.h"

#define GC_PS_PER_NS INT64_C(1000)
#define GC_PS_PER_US INT64_C(1000000)
#define GC_PS_PER_MS INT64_C(1000000000)
#define GC_PS_PER_S INT64_C(1000000000000)

/* Each parser returns GC_OK or GC_ERR_INPUT; on error, if why != NULL, *why
 * points to a static string naming what was expected. */
gc_status gc_parse_bytes(const char *s, uint64_t *out, const char **why);
gc_status gc_parse_time_ps(const char *s, int64_t *out, const char **why);
gc_status gc_parse_bw_Bps(const char *s, double *out, const char **why);
/* Strict integer (optional leading '-', decimal digits only, range-checked). */
gc_status gc_parse_int64(const char *s, int64_t *out, const char **why);
/* Strict finite decimal number. */
gc_status gc_parse_double(const char *s, double *out, const char **why);

/* Printers into buf (always NUL-terminated). Shortest exact representation
 * that parses back to the same value, e.g. "1MiB", "4GiB", "1500B", "1us",
 * "2.5ns", "50GB/s". Return buf. */
char *gc_fmt_bytes(uint64_t b, char *buf, size_t n);
char *gc_fmt_time_ps(int64_t ps, char *buf, size_t n);
char *gc_fmt_bw_Bps(double bps, char *buf, size_t n);

#endif
