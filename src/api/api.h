/* api.h: the API layer, which implements the operations of clsort.h (the
 * sorts and the primitives, in host-array and buffer forms): the argument
 * checks every entry point shares, then the layers below. Nothing below
 * includes it. */
#ifndef CLSORT_API_H
#define CLSORT_API_H

#include "sorts/sorts.h"

/* validate.c: argument checks shared by the public entry points. */
clsort_status clsort__check_context(const clsort_context *ctx);
clsort_status clsort__check_type(const clsort_context *ctx, clsort_type type);
clsort_status clsort__check_wait_list(cl_uint num_wait, const cl_event *wait_list);
/* How a call's kernels use a buffer; the buffer's CL_MEM_READ_ONLY or
 * CL_MEM_WRITE_ONLY flag must allow it. */
typedef enum clsort__access {
  ACCESS_READ = 1,
  ACCESS_WRITE = 2,
  ACCESS_READ_WRITE = 3
} clsort__access;
/* A valid cl_mem of the context's OpenCL context, holding `elements` of
 * element_size bytes, that allows `access`; `what` names it in messages. */
clsort_status clsort__check_buffer(const clsort_context *ctx, cl_mem buf, const char *what,
                                   size_t elements, size_t element_size, clsort__access access);
clsort_status clsort__check_size(const clsort_context *ctx, size_t n, size_t element_size);
/* Host arrays of n elements of element_size bytes (keys plus values or
 * indices): CLSORT_ERROR_TOO_LARGE when their bytes overflow or exceed the
 * host's physical memory, which no real array can (the host-array sorts
 * take any n that exists: they sort out of core). */
clsort_status clsort__check_host_size(size_t n, size_t element_size);

/* sort.c: what every sorting entry point shares. The options of a NULL
 * options pointer; the checks of the context, the key type and the
 * options, in that order; the job for n keys of `type` that they describe
 * (no buffers, no payload). */
extern const clsort_options clsort__default_options;
clsort_status clsort__check_options(const clsort_context *ctx, clsort_type type,
                                    const clsort_options *o);
clsort__sort_job clsort__make_job(clsort_type type, size_t n, const clsort_options *o);
/* The operations beside the sorts (merge, top-k, select, segmented sort):
 * clsort__check_options, then an algorithm among `algorithms` (a bit per
 * clsort_algorithm) and whole keys, else CLSORT_ERROR_UNSUPPORTED; `what`
 * names the operation in the message. */
clsort_status clsort__check_op_options(const clsort_context *ctx, clsort_type type,
                                      const clsort_options *o, unsigned algorithms,
                                      const char *what);
/* dispatch.c: runs a sort job on device buffers with the algorithm the
 * options name (CLSORT_AUTO: the bitonic or the radix sort). */
const char *clsort__algorithm_name(clsort_algorithm a);
clsort_status clsort__dispatch_sort(clsort_context *ctx, const clsort_options *o,
                                    const clsort__sort_job *job);
/* Whether the job runs on the radix sort itself (CLSORT_RADIX, or AUTO's
 * choice for it; not the 8- and 16-bit keys, which it widens first). */
bool clsort__runs_radix(const clsort_context *ctx, const clsort_options *o,
                        const clsort__sort_job *job);
/* Whether the algorithm that would run the job honours its keys_at and
 * vals_at (sorts.h): the CPU shapes of the radix, merge, quick and bitonic
 * sorts, for every key type. */
bool clsort__takes_origins(const clsort_context *ctx, const clsort_options *o,
                           const clsort__sort_job *job);

/* The in-core sort of host arrays: keys_const (n keys) is read; the sorted
 * keys go to `keys` (NULL: argsort); `values` travel (pairs) or receive
 * the indices (job.make_index). Arrays change only on success. */
typedef clsort_status (*clsort__in_core_fn)(clsort_context *ctx, const clsort_options *o,
                                            clsort__sort_job job, void *keys,
                                            const void *keys_const, void *values, size_t n);

/* staging.c: the in-core sort of host arrays through transfer.c's copies
 * (pinned staging on GPUs); the in-core sort uses it whenever
 * clsort__staging_on(ctx). */
clsort_status clsort__sort_staged(clsort_context *ctx, const clsort_options *o,
                                  clsort__sort_job job, void *keys, const void *keys_const,
                                  void *values);

/* out_of_core.c: whether the in-core sort of the job, and `extra` more
 * bytes of device memory, fit the device and the context's limit. */
bool clsort__fits_in_core_with(const clsort_context *ctx, const clsort__sort_job *job,
                               double extra);
/* out_of_core.c: every sort of host arrays comes here. In core (through
 * `in_core`) when the arrays and the sort's scratch fit the device, or the
 * context's memory limit; out of core otherwise, or when the in-core sort
 * meets the limit after all. */
clsort_status clsort__sort_host_arrays(clsort_context *ctx, const clsort_options *o,
                                       clsort__sort_job job, void *keys, const void *keys_const,
                                       void *values, clsort__in_core_fn in_core);

/* buffers.c: the checks that the host and buffer forms of a primitive
 * share, each starting with the context: the type and the scan kind or
 * reduce op, the element size of compact and split, and everything of the
 * bucket offsets but the buffers. */
clsort_status clsort__check_scan_args(const clsort_context *ctx, clsort_type type,
                                      clsort_scan_kind kind);
clsort_status clsort__check_reduce_args(const clsort_context *ctx, clsort_type type,
                                        clsort_reduce_op op);
clsort_status clsort__check_select_args(const clsort_context *ctx, size_t element_size);
clsort_status clsort__check_bucket_args(clsort_context *ctx, size_t n, unsigned num_buckets,
                                        size_t tile_size, clsort_type offset_type);

/* validate.c: whether host ranges [p, p + pb) and [q, q + qb) share a
 * byte (empty ranges share none). */
bool clsort__ranges_overlap(const void *p, size_t pb, const void *q, size_t qb);

/* host_arrays.c: a caller's host arrays as device buffers. Staged: a
 * staging buffer of the context's `slot`, holding a copy of the `bytes`
 * at p when p is not NULL (blocking: the caller's memory is free again on
 * return); its results are read back into p, blocking. */
clsort_status clsort__stage_in(clsort_context *ctx, clsort__slot slot, const void *p,
                               size_t bytes, cl_mem *out);
clsort_status clsort__stage_out(clsort_context *ctx, cl_mem mem, void *p, size_t bytes);

/* Up to CLSORT__GROUP_MAX host arrays of one call used in place together
 * by kernels that add origins (a CPU device): each array's region starts
 * at the aligned address at or before it, and arrays whose regions overlap
 * (a and b of one allocation, keys and values side by side, or the same
 * array twice) share one buffer over the union of their regions, since
 * OpenCL leaves commands on buffers over overlapping host memory
 * undefined. mem[i] and at[i] (in elements) say where array i is; an
 * array with no bytes has neither. A kernel given one buffer for two
 * arguments writes only elements of its own array, which no other array
 * of the call shares; the sorts tell a job's keys from its values by
 * their role, never by comparing the two buffers (sorts.h's
 * clsort__pair_at compares keys with keys and values with values). */
#define CLSORT__GROUP_MAX 8
typedef struct clsort__host_group {
  cl_mem mem[CLSORT__GROUP_MAX];
  size_t at[CLSORT__GROUP_MAX];
  cl_mem owned[CLSORT__GROUP_MAX]; /* the distinct buffers, released by _release */
  size_t owned_count;
  bool in_place; /* false: staged (clsort__host_arrays_get) */
} clsort__host_group;
/* Whether the arrays can be so used: a CPU device (clsort__wrap_alignment
 * nonzero), count <= CLSORT__GROUP_MAX, each array aligned to its
 * elements. Else the caller stages them. */
bool clsort__host_group_ok(const clsort_context *ctx, size_t count, const void *const *ps,
                           const size_t *elem);
/* Makes the buffers (nothing copied). On failure g holds nothing
 * (releasing it is harmless). */
clsort_status clsort__host_group_get(clsort_context *ctx, size_t count, const void *const *ps,
                                     const size_t *bytes, const size_t *elem,
                                     clsort__host_group *g);
/* Makes the device's writes to array i (bytes long) visible in host
 * memory: a blocking map and unmap (on a CPU device they are there
 * already: no copy). */
clsort_status clsort__host_group_put(clsort_context *ctx, const clsort__host_group *g, size_t i,
                                     size_t elem, size_t bytes);
void clsort__host_group_release(clsort__host_group *g);

/* One host array of a call for clsort__host_arrays_get: `bytes` at p
 * (none when 0) in elements of elem bytes; staged in `slot`, copied in
 * when `input`. Arrays staged in one slot share its buffer (a scan runs
 * in place in its input's). */
typedef struct clsort__host_spec {
  const void *p;
  size_t bytes, elem;
  clsort__slot slot;
  bool input;
} clsort__host_spec;
/* The `count` (at most CLSORT__GROUP_MAX) arrays of a host form as
 * device buffers in g, in the first way that serves:
 * - in place, each wrapped whole (at[i] 0), when every array is aligned as
 *   the device wants (clsort__can_wrap): any kernel may take them;
 * - in place as a group (clsort__host_group_get) when `origins` (every
 *   kernel the call runs adds at[i]), clsort__host_group_ok, and no two
 *   arrays share a byte (an output over an input must see the input as
 *   it was: staging copies it first);
 * - staged (g->in_place false; at[i] 0).
 * So g->in_place means a CPU device's shape. Release g with
 * clsort__host_group_release. */
clsort_status clsort__host_arrays_get(clsort_context *ctx, size_t count,
                                      const clsort__host_spec *a, bool origins,
                                      clsort__host_group *g);
/* Whether clsort__host_arrays_get would use the arrays in place (wrapped
 * whole or as a group) rather than stage them; makes and copies nothing. */
bool clsort__host_arrays_in_place(const clsort_context *ctx, size_t count,
                                  const clsort__host_spec *a, bool origins);
/* The device's results in array i of a (bytes of them): mapped back in
 * place, or read back from staging. Only on success, so that a failed
 * call leaves its outputs as they were. */
clsort_status clsort__host_arrays_put(clsort_context *ctx, const clsort__host_group *g,
                                      const clsort__host_spec *a, size_t i, size_t bytes);

/* The in-core sort's host arrays (sort.c, segmented.c): the keys are
 * array 0 of g and of its specs a, the values or indices (with
 * job->value_size) array 1 (clsort__host_arrays_get). _on_host makes them
 * the job's buffers and origins (argsort: no keys out, the indices out);
 * _put brings the results back, the values and then the keys when `keys`
 * (argsort leaves its keys alone). */
void clsort__job_on_host(clsort__sort_job *job, const clsort__host_group *g);
clsort_status clsort__job_put(clsort_context *ctx, const clsort__sort_job *job,
                              const clsort__host_group *g, const clsort__host_spec *a,
                              bool keys);

#endif
