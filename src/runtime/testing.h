/* testing.h: private hooks that let the test suite observe the runtime
 * (build counters, cache keys, scratch memory). Not installed; tests link
 * the static `clsort_internal` dependency to reach them, and include
 * api/testing.h, which adds the hooks of the layers above. */
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

/* The PTX text with the register caps that `options` asks for
 * (-DCLSORT_MAXNREG_<kernel>=<N> tokens, ptx_registers.c): ".maxnreg N"
 * after each named entry's parameters. NULL when no cap applies (or no
 * memory); free() the result. ctx may be NULL. */
char *clsort__ptx_with_caps(clsort_context *ctx, const char *ptx, const char *options);

/* The disk-cache directory in use, or NULL when the disk cache is off. */
const char *clsort__cache_dir(const clsort_context *ctx);

/* PoCL 5.0 fails builds (CL_BUILD_PROGRAM_FAILURE) when processes that
 * share its kernel cache build at the same time (pocl/pocl#1480; seen with
 * 4 MPI ranks on a cold cache). So a build on PoCL holds an exclusive
 * lock on a file beside PoCL's cache folder: one process builds, and the
 * others then find its kernels in the cache. Returns the lock's file
 * descriptor, or -1 where there is none to take (other drivers, PoCL's
 * cache off, no folder, a file that cannot be created); the in-process
 * mutex of PoCL contexts already orders this process's own builds. */
int clsort__driver_build_lock(const clsort_context *ctx);
void clsort__driver_build_unlock(int fd);

/* Bytes of device scratch memory the context holds now. */
size_t clsort__scratch_bytes(const clsort_context *ctx);

/* Bytes of the staging buffers that hold a caller's host arrays
 * (SLOT_HOST_IN, _OUT, _AUX and _OUT_VALUES; not compact's count) that the context
 * holds now, which it then releases: so a test sees whether the call
 * after it staged an array (0: every array of it used in place). */
size_t clsort__test_take_staging(clsort_context *ctx);

/* Number of contexts created and not yet released, process-wide. */
long clsort__live_contexts(void);

/* Whether the context runs the NVIDIA PTX paths (1) or the portable ones (0). */
int clsort__uses_ptx(const clsort_context *ctx);

/* Whether the context runs the CPU shape (1): a CPU device with one
 * work-item per group, where aligned host arrays are used in place. */
int clsort__cpu_shape(const clsort_context *ctx);

#ifdef __cplusplus
}
#endif
#endif
