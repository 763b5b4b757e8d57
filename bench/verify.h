/* verify.h: checks of every benchmarked output against a C reference.
 * Each check returns 1 when the output is right, else 0 with a one-line
 * reason in `why`. Shared by the tool and the peers; pure C. */
#ifndef BENCH_VERIFY_H
#define BENCH_VERIFY_H

#include "keys.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Prefix sums: integers exactly (wrapping), floats exactly while the sums
 * are small enough to be exact in any order, else within a rounding bound. */
int verify_scan(key_type type, int inclusive, const void *in, const void *out, size_t n, char *why,
                size_t why_size);

/* op: 0 sum, 1 min, 2 max (clsort_reduce_op's numbering). */
int verify_reduce(key_type type, int op, const void *in, size_t n, const void *result, char *why,
                  size_t why_size);

/* Stable compact (split == 0: only the flagged elements, in order) or
 * stable partition (split == 1: flagged ones, then the rest), and count. */
int verify_select(size_t elem_size, int split, const void *in, const unsigned char *flags,
                  const void *out, size_t n, uint64_t count, char *why, size_t why_size);

/* The bucket-major table of exclusive offsets of clsort_bucket_offsets. */
int verify_bucket_offsets(const uint32_t *buckets, size_t n, unsigned num_buckets, size_t tile,
                          int offset64, const void *offsets, char *why, size_t why_size);

/* An order-independent hash of a multiset of keys: equal for any
 * permutation, different (with overwhelming probability) otherwise. */
typedef struct key_hash {
  uint64_t a, b;
} key_hash;
key_hash verify_hash_keys(key_type type, const void *keys, size_t n);

/* Keys in non-decreasing (or non-increasing) total order. */
int verify_sorted(key_type type, const void *keys, size_t n, int descending, char *why,
                  size_t why_size);

/* Sorted, and the same multiset as the input (given by its hash). */
int verify_sort_keys(key_type type, const void *out, size_t n, int descending, key_hash input,
                     char *why, size_t why_size);

/* For pairs whose input values were the indices 0..n-1: the output values
 * are a permutation, every key travelled with its value, the keys are
 * sorted, and (if `stable`) equal keys keep their input order. */
int verify_sort_pairs(key_type type, const void *keys_in, const void *keys_out,
                      const void *values_out, size_t value_size, size_t n, int descending,
                      int stable, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif
#endif
