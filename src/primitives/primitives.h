/* primitives.h: the primitives layer (scan, reduce, compact/split, bucket
 * offsets) as the sorts and the API call it: on device buffers, without
 * the public argument checks (api/ makes them), with events chained
 * through the in-order queue. Built on the runtime. */
#ifndef CLSORT_PRIMITIVES_H
#define CLSORT_PRIMITIVES_H

#include "runtime/runtime.h"

/* Everything here is enqueued in order after whatever the queue already
 * holds; the public entry points put the caller's wait list in front with
 * clsort__begin(). */

/* Device-wide scan of n elements of `type` from input to output (may be the
 * same buffer). */
clsort_status clsort__scan(clsort_context *ctx, clsort_type type, clsort_scan_kind kind,
                           cl_mem input, cl_mem output, size_t n);

/* Builds the programs and reserves the scratch a scan of n elements of
 * `type` will need, so that callers can fail before writing any output. */
clsort_status clsort__scan_prepare(clsort_context *ctx, clsort_type type, size_t n);

clsort_status clsort__reduce(clsort_context *ctx, clsort_type type, clsort_reduce_op op,
                             cl_mem input, size_t n, cl_mem result);

/* Whether clsort__select moves elements of element_size bytes. */
bool clsort__select_supported(size_t element_size);

/* split == false: compact; split == true: stable partition. */
clsort_status clsort__select(clsort_context *ctx, size_t element_size, bool split, cl_mem input,
                             cl_mem flags, cl_mem output, size_t n, cl_mem count);

/* buckets_at and offsets_at: the elements before each array in its buffer
 * (a caller's host array used in place on a CPU device, whose shape adds
 * them; 0 elsewhere). */
clsort_status clsort__bucket_offsets(clsort_context *ctx, cl_mem buckets, size_t buckets_at,
                                     size_t n, unsigned num_buckets, size_t tile_size,
                                     clsort_type offset_type, cl_mem offsets, size_t offsets_at);

/* How a chunked pass splits n elements: `groups` work-groups, each walking
 * a contiguous chunk of `chunk` elements (whole tiles; the last chunk may
 * be short). Enough groups to fill the device, no more. */
typedef struct clsort__chunks {
  size_t groups, chunk;
} clsort__chunks;
clsort__chunks clsort__chunking(const clsort_context *ctx, size_t n, size_t tile);

/* Elements per tile of the shared layer on this device. */
size_t clsort__tile(const clsort_context *ctx);

/* The kernels of scan.cl; scan.c and reduce.c share its program. */
typedef enum clsort__scan_kernel_id {
  SCAN_REDUCE_CHUNKS,
  SCAN_CHUNKS,
  SCAN_SINGLE_PASS
} clsort__scan_kernel_id;
clsort_status clsort__scan_kernel(clsort_context *ctx, clsort_type type,
                                  clsort__scan_kernel_id which, cl_kernel *out);

/* The first pass of the scan and the reduction: `groups` work-groups of
 * the SCAN_REDUCE_CHUNKS kernel `reduce` each combine (op) a chunk of
 * `chunk` elements of the n in `in`, into out[group]. */
clsort_status clsort__reduce_chunks(clsort_context *ctx, cl_kernel reduce, cl_mem in, size_t n,
                                    size_t groups, size_t chunk, clsort_reduce_op op,
                                    cl_mem out);

/* The CPU shape of scan, reduce and select (scan_cpu.c), which the
 * functions above hand over to when ctx->tuning.cpu_shape is set. n > 0. */
/* The CPU shape (scan_cpu.c). in_at, out_at and at[] (input, flags,
 * output; NULL: all 0) are the arrays' origins, in elements before
 * element 0 in their buffers: nonzero only for a caller's host array used
 * in place from the aligned address before it (api/host_arrays.c). */
clsort_status clsort__scan_cpu(clsort_context *ctx, clsort_type type, clsort_scan_kind kind,
                               cl_mem input, size_t in_at, cl_mem output, size_t out_at,
                               size_t n);
clsort_status clsort__scan_cpu_prepare(clsort_context *ctx, clsort_type type, size_t n);
clsort_status clsort__reduce_cpu(clsort_context *ctx, clsort_type type, clsort_reduce_op op,
                                 cl_mem input, size_t in_at, size_t n, cl_mem result);
clsort_status clsort__select_cpu(clsort_context *ctx, size_t element_size, bool split,
                                 cl_mem input, cl_mem flags, cl_mem output, size_t n,
                                 cl_mem count, const size_t at[3]);
/* The scan and the reduction of arrays at those origins, every type: the
 * CPU shape's, or for a narrow type its widening from the origin, the
 * 32-bit scan or reduction, and its narrowing to the origin (scan.c,
 * reduce.c). Nonzero origins only on the CPU shape. */
clsort_status clsort__scan_at(clsort_context *ctx, clsort_type type, clsort_scan_kind kind,
                              cl_mem input, size_t in_at, cl_mem output, size_t out_at, size_t n);
clsort_status clsort__reduce_at(clsort_context *ctx, clsort_type type, clsort_reduce_op op,
                                cl_mem input, size_t in_at, size_t n, cl_mem result);

/* types.c: the OpenCL C spelling of a type: "uint", "int", "float",
 * "ulong", ... (clsort.h declares clsort_type_size and clsort_type_name,
 * which types.c defines too). */
const char *clsort__cl_type_name(clsort_type type);
/* Whether `type` is one of the 8- and 16-bit types, which the kernels see
 * only widened to 32 bits (convert.c for the primitives, sorts/widen.c for
 * the sorts). */
bool clsort__type_is_narrow(clsort_type type);
/* The 32-bit type that holds a narrow type's values: u8, u16 -> u32; i8,
 * i16 -> i32; f16, bf16 -> f32. Other types map to themselves. */
clsort_type clsort__wide_type(clsort_type type);

/* convert.c: n elements of a narrow type in `in` (from element in_at) as
 * their 32-bit values (clsort__wide_type) in *wide, the context's
 * SLOT_WIDE scratch; and back (to `out` from element out_at), integers by
 * their low bits, floats rounded to nearest even (exact for values of the
 * narrow type). */
clsort_status clsort__widen(clsort_context *ctx, clsort_type type, cl_mem in, size_t in_at,
                            size_t n, cl_mem *wide);
clsort_status clsort__narrow(clsort_context *ctx, clsort_type type, cl_mem wide, size_t n,
                             cl_mem out, size_t out_at);
/* Builds both conversion kernels and reserves SLOT_WIDE for n elements
 * (*wide), so that a narrow scan or reduce fails before it writes. */
clsort_status clsort__convert_prepare(clsort_context *ctx, size_t n, cl_mem *wide);

#endif
