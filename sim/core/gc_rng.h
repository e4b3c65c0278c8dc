/* SPDX-License-Identifier: MIT */
/*
 * gc_rng: small, fast, reproducible random streams (xoshiro256**, seeded by
 * splitmix64). A stream is derived from (seed, stream id) so independent
 * entities get independent, stable streams.
 */
#ifndef GC_RNG_H
#define GC_RNG_H

#include <stdint.h>

typedef struct gc_rng {
	uint64_t s[4];
} gc_rng;

static inline uint64_t gc_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static inline void gc_rng_seed(gc_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * UINT64_C(0xD1B54A32D192ED03));
	for (int i = 0; i < 4; i++)
		r->s[i] = gc_splitmix64(&x);
}

static inline uint64_t gc_rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t gc_rng_next(gc_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = gc_rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = gc_rng_rotl(s[3], 45);
	return result;
}

/* Uniform double in [0, 1). */
static inline double gc_rng_uniform(gc_rng *r) { return (double)(gc_rng_next(r) >> 11) * 0x1.0p-53; }

#endif
