/* testing.h: every private hook the test suite reaches: the runtime's
 * (runtime/testing.h) and the segmented small sort from host arrays. Not
 * installed; tests link the static `clsort_internal` dependency. */
#ifndef CLSORT_API_TESTING_H
#define CLSORT_API_TESTING_H

#include "runtime/testing.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The segmented small sort (the bitonic sort's tile kernel), for tests:
 * the longest segment it takes for keys of `type` with values of
 * value_size bytes (0: keys only), i.e. the bitonic tile on this device. */
size_t clsort__test_segment_capacity(clsort_context *ctx, clsort_type type, size_t value_size);
/* The same for flags 0, CLSORT_DESCENDING and CLSORT_STABLE (a stable tile
 * carries positions too, so it may be smaller). */
size_t clsort__test_segment_capacity_flags(clsort_context *ctx, clsort_type type,
                                           size_t value_size, unsigned flags);
/* The longest segment clsort_segmented_sort hands the packed sort (GPU
 * shapes) or the segmented small sort for keys of `type` with
 * value_size-byte values (0: keys only). */
size_t clsort__test_segmented_limit(clsort_context *ctx, clsort_type type, size_t value_size);

/* Sorts, in one launch, each segment [begins[s], ends[s]) of the host
 * arrays keys (n keys of `type`) and values (n values of value_size bytes,
 * or NULL with value_size 0). Elements outside every segment are left as
 * they are. Segments must not overlap and each must be at most the
 * capacity above (else CLSORT_ERROR_INVALID_ARGUMENT); empty segments are
 * allowed. flags: CLSORT_DESCENDING, and CLSORT_STABLE for a stable sort
 * (equal keys keep their order; capacity from the _flags form). Without
 * CLSORT_STABLE ties come out in any order. */
clsort_status clsort__test_sort_segments(clsort_context *ctx, clsort_type type, void *keys,
                                         void *values, size_t value_size, size_t n,
                                         const size_t *begins, const size_t *ends,
                                         size_t num_segments, unsigned flags);

/* The path the calling thread's last clsort_top_k or clsort_select (or
 * buffer form) took: 0 none (k = 0), 1 the radix select alone, 2 the
 * sampled path (one pass found the candidates), 3 the sampled path
 * missed and the radix select ran after it, 4 the full sort of a large
 * k (sorts.h's clsort__select_path). */
int clsort__test_top_k_path(void);

/* How many groups the calling thread's last in-core sort of staged host
 * arrays split into (api/staging.c: a radix sort on the NVIDIA path, or
 * its emulation, of enough keys); 0 when it did not split. */
size_t clsort__test_split_groups(void);
/* The out-of-core sort's plan for a host-array sort of n keys of `type`
 * with value_size-byte values (or indices, argsort) on this context as it
 * is now: out[0] elements per run, out[1] runs, out[2] of them kept on the
 * device, out[3] buckets. False when the sort runs in core, or the memory
 * limit is too small for any plan. */
bool clsort__test_out_of_core_plan(clsort_context *ctx, clsort_type type, size_t value_size,
                                   bool argsort, size_t n, size_t out[4]);

#ifdef __cplusplus
}
#endif
#endif
