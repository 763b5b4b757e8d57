/* gen.h: deterministic input generators for the benchmark and its peers:
 * the sort key distributions, scan inputs, select flags and bucket indices.
 *
 * Every element is a pure function of (seed, index), so libclsort and the
 * peers sort exactly the same data when given the same case seed. */
#ifndef BENCH_GEN_H
#define BENCH_GEN_H

#include "keys.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gen_dist {
  DIST_UNIFORM = 0,    /* independent random keys over the type's range */
  DIST_GAUSSIAN = 1,   /* the mean of four uniform keys (Helman, Bader, JaJa) */
  DIST_BUCKET = 2,     /* 32 blocks, each of 32 increasing uniform ranges */
  DIST_SORTED = 3,     /* strictly increasing, evenly spaced */
  DIST_ZERO = 4,       /* every key 0 */
  DIST_POISSON = 5,    /* Poisson(65536): a narrow range with many duplicates */
  DIST_DESCENDING = 6, /* strictly decreasing, evenly spaced */
  DIST_FEW_UNIQUE = 7, /* 16 distinct random keys */
  DIST_STAGGERED = 8,  /* 32 blocks whose key ranges are interleaved */
  DIST_COUNT_ = 9
} gen_dist;

const char *gen_dist_name(gen_dist d);
/* Returns 1 and sets *out for a known name, else 0. */
int gen_dist_parse(const char *name, gen_dist *out);

/* A per-case seed, so that every case draws fresh data and reruns with the
 * same base seed reproduce it exactly. */
uint64_t gen_case_seed(uint64_t base, const char *op, key_type type, int dist, uint64_t n);

/* n keys of `type` with distribution `dist`. */
void gen_keys(key_type type, gen_dist dist, void *out, size_t n, uint64_t seed);

/* Scan/reduce input: random bits for integers; multiples of 0.25 in [0, 1)
 * for floats, so that float sums stay exact while they are small. */
void gen_scan_input(key_type type, void *out, size_t n, uint64_t seed);

/* Flag bytes (0 or 1), each set with probability `keep`. */
void gen_flags(unsigned char *out, size_t n, double keep, uint64_t seed);

/* Bucket indices below num_buckets. */
void gen_buckets(uint32_t *out, size_t n, unsigned num_buckets, uint64_t seed);

/* values[i] = i, with 4- or 8-byte values: sort checks follow each key's
 * origin through its value. */
void gen_index_values(void *values, size_t value_size, size_t n);

/* The power-law case of the segmented sort (clsort bench --ops segmented
 * and clsort-cub-peer --ops segmented draw the same): gen_power_law_count(n)
 * segments, 2^16 for n >= 2^26 (else n / 1024, at least 1), whose sizes
 * follow a Pareto law of shape 1.5: segment i weighs (1 - u_i)^(-1/1.5),
 * u_i uniform in [0, 1) from gen_rand(seed, i), and holds
 * floor(n * weight / total weight) keys, the keys left over one each to
 * the first segments. With 2^16 segments of 2^26 keys the median segment
 * holds about 540 keys, 2.4% hold more than 4096 and the largest about
 * 5 * 10^5. offsets receives count + 1 entries, from 0 to n. Returns 0
 * when host memory runs out, else 1. */
size_t gen_power_law_count(size_t n);
int gen_power_law_offsets(uint64_t *offsets, size_t count, size_t n, uint64_t seed);

/* The counter-based random number behind every generator. */
static inline uint64_t gen_rand(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15u;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

#ifdef __cplusplus
}
#endif
#endif
