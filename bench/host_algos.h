/* host_algos.h: the single-threaded host baselines the benchmark compares
 * libclsort with: C loops for the primitives, glibc qsort and a serial LSD
 * radix sort. Pure C. */
#ifndef BENCH_HOST_ALGOS_H
#define BENCH_HOST_ALGOS_H

#include "keys.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = in[0] + ... + in[i-1] (+ in[i] when inclusive), in the type. */
void cloop_scan(key_type type, int inclusive, const void *in, void *out, size_t n);
/* op: 0 sum, 1 min, 2 max; writes one element to result. */
void cloop_reduce(key_type type, int op, const void *in, size_t n, void *result);
/* Stable compact (split == 0) or partition (split == 1); returns the count. */
size_t cloop_select(size_t elem_size, int split, const void *in, const unsigned char *flags,
                    void *out, size_t n);

/* glibc qsort with a comparator of the type (total order for floats). */
void host_qsort_keys(key_type type, void *keys, size_t n, int descending);
/* Pairs: packs (key, value) into `scratch` (n * 16 bytes), sorts, unpacks. */
void host_qsort_pairs(key_type type, void *keys, void *values, size_t value_size, size_t n,
                      int descending, void *scratch);

/* Stable serial LSD radix sort, 8-bit digits, skipping digits that all keys
 * share. tmp_keys holds n keys; tmp_values n values (pairs only). */
void host_radix_keys(key_type type, void *keys, void *tmp_keys, size_t n, int descending);
void host_radix_pairs(key_type type, void *keys, void *values, size_t value_size, void *tmp_keys,
                      void *tmp_values, size_t n, int descending);

#ifdef __cplusplus
}
#endif
#endif
