/* testing.h: private hooks that let the test suite observe the library's
 * internals (build counters, cache keys, scratch memory). Not installed;
 * tests link the static `clsort_internal` dependency to reach them. */
#ifndef CLSORT_TESTING_H
#define CLSORT_TESTING_H

#include "clsort.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Counts of program builds done by this context: compiled from source, and
 * loaded from the disk cache as a binary. Served from the in-memory cache
 * counts neither. */
typedef struct clsort__build_stats {
  unsigned long from_source;
  unsigned long from_disk;
  unsigned long disk_rejected; /* cache files found but unusable, rebuilt */
} clsort__build_stats;
clsort__build_stats clsort__context_build_stats(const clsort_context *ctx);

/* The disk-cache key (hex, 32 chars + NUL) the context would use for a
 * program built from `source` with `options`. */
void clsort__cache_key(const clsort_context *ctx, const char *source, const char *options,
                       char out_hex[33]);

/* The disk-cache directory in use, or NULL when the disk cache is off. */
const char *clsort__cache_dir(const clsort_context *ctx);

/* Bytes of device scratch memory the context holds now. */
size_t clsort__scratch_bytes(const clsort_context *ctx);

/* Number of contexts created and not yet released, process-wide. */
long clsort__live_contexts(void);

/* Whether the context runs the NVIDIA PTX paths (1) or the portable ones (0). */
int clsort__uses_ptx(const clsort_context *ctx);

/* The segmented small sort (the bitonic sort's tile kernel), for tests:
 * the longest segment it takes for keys of `type` with values of
 * value_size bytes (0: keys only), i.e. the bitonic tile on this device. */
size_t clsort__test_segment_capacity(clsort_context *ctx, clsort_type type, size_t value_size);
/* The same for flags 0, CLSORT_DESCENDING and CLSORT_STABLE (a stable tile
 * carries positions too, so it may be smaller). */
size_t clsort__test_segment_capacity_flags(clsort_context *ctx, clsort_type type,
                                           size_t value_size, unsigned flags);

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

#ifdef __cplusplus
}
#endif
#endif
