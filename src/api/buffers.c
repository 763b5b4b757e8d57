/* buffers.c: the buffer forms of the primitives (scan, reduce, compact,
 * split and bucket offsets on the caller's cl_mem), and the argument
 * checks they share with the host forms (host_arrays.c). A buffer form
 * checks everything, puts the caller's wait list in front, enqueues the
 * primitive and returns a marker as its event. */
#include "api/api.h"

#define MAX_BUCKETS 4096u

/* The checks a typed primitive starts with: the context, the type, then
 * its scan kind or reduce op (`known`: whether `op` is one). */
static clsort_status check_typed(const clsort_context *ctx, clsort_type type, bool known,
                                 const char *what, int op) {
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  FORWARD_IF_ERROR(clsort__check_type(ctx, type));
  RETURN_IF(!known, CLSORT_ERROR_INVALID_ARGUMENT, "unknown %s %d", what, op);
  return CLSORT_SUCCESS;
}

/* Half floats have no arithmetic here: a sum in float, rounded once at
 * the end, would not be the sum in the type that clsort.h promises. */
static bool is_half(clsort_type type) { return type == CLSORT_F16 || type == CLSORT_BF16; }

clsort_status clsort__check_scan_args(const clsort_context *ctx, clsort_type type,
                                      clsort_scan_kind kind) {
  bool known = kind == CLSORT_SCAN_EXCLUSIVE || kind == CLSORT_SCAN_INCLUSIVE;
  FORWARD_IF_ERROR(check_typed(ctx, type, known, "scan kind", (int)kind));
  RETURN_IF(is_half(type), CLSORT_ERROR_UNSUPPORTED,
            "scans of %s are not supported (half floats take only reduce min and max)",
            clsort_type_name(type));
  return CLSORT_SUCCESS;
}

clsort_status clsort__check_reduce_args(const clsort_context *ctx, clsort_type type,
                                        clsort_reduce_op op) {
  bool known = op == CLSORT_REDUCE_SUM || op == CLSORT_REDUCE_MIN || op == CLSORT_REDUCE_MAX;
  FORWARD_IF_ERROR(check_typed(ctx, type, known, "reduce op", (int)op));
  RETURN_IF(is_half(type) && op == CLSORT_REDUCE_SUM, CLSORT_ERROR_UNSUPPORTED,
            "sums of %s are not supported (half floats take only reduce min and max)",
            clsort_type_name(type));
  return CLSORT_SUCCESS;
}

clsort_status clsort__check_select_args(const clsort_context *ctx, size_t element_size) {
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  RETURN_IF(!clsort__select_supported(element_size), CLSORT_ERROR_INVALID_ARGUMENT,
            "element_size %zu is not 1, 2, 4, 8 or 16", element_size);
  return CLSORT_SUCCESS;
}

clsort_status clsort__check_bucket_args(clsort_context *ctx, size_t n, unsigned num_buckets,
                                        size_t tile_size, clsort_type offset_type) {
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  RETURN_IF(num_buckets == 0 || num_buckets > MAX_BUCKETS, CLSORT_ERROR_INVALID_ARGUMENT,
            "num_buckets %u is not in 1..%u", num_buckets, MAX_BUCKETS);
  RETURN_IF(tile_size == 0 || tile_size > UINT32_MAX, CLSORT_ERROR_INVALID_ARGUMENT,
            "tile_size %zu is not in 1..2^32-1", tile_size);
  RETURN_IF(offset_type != CLSORT_U32 && offset_type != CLSORT_U64,
            CLSORT_ERROR_INVALID_ARGUMENT, "offset_type must be CLSORT_U32 or CLSORT_U64");
  RETURN_IF(offset_type == CLSORT_U32 && n > UINT32_MAX, CLSORT_ERROR_TOO_LARGE,
            "n (%zu) does not fit 32-bit offsets; use CLSORT_U64", n);
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, sizeof(cl_uint)));
  size_t tiles = clsort__div_up(n, tile_size);
  RETURN_IF(tiles > SIZE_MAX / num_buckets, CLSORT_ERROR_TOO_LARGE, "the offset table is too large");
  return clsort__check_size(ctx, tiles * num_buckets, clsort_type_size(offset_type));
}

/* What a buffer form checks after its own arguments: the wait list, then
 * n elements of element_size bytes against the device's allocation limit. */
static clsort_status check_enqueue(const clsort_context *ctx, size_t n, size_t element_size,
                                   cl_uint num_wait, const cl_event *wait_list) {
  FORWARD_IF_ERROR(clsort__check_wait_list(num_wait, wait_list));
  return clsort__check_size(ctx, n, element_size);
}

/* The scan and reduce buffer forms, one mechanism: `op` is the scan kind
 * (input to output, n elements; output may be input) or the reduce op
 * (input to one result, which must be another buffer). */
static clsort_status typed_buffer(clsort_context *ctx, clsort_type type, bool reduce, int op,
                                  cl_mem input, cl_mem output, size_t n, cl_uint num_wait,
                                  const cl_event *wait_list, cl_event *event) {
  FORWARD_IF_ERROR(reduce ? clsort__check_reduce_args(ctx, type, (clsort_reduce_op)op)
                          : clsort__check_scan_args(ctx, type, (clsort_scan_kind)op));
  size_t size = clsort_type_size(type);
  FORWARD_IF_ERROR(check_enqueue(ctx, n, size, num_wait, wait_list));
  if (n > 0) FORWARD_IF_ERROR(clsort__check_buffer(ctx, input, "input", n, size, ACCESS_READ));
  if (reduce) {
    FORWARD_IF_ERROR(clsort__check_buffer(ctx, output, "result", 1, size, ACCESS_WRITE));
    RETURN_IF(n > 0 && output == input, CLSORT_ERROR_INVALID_ARGUMENT,
              "result must not be the input buffer");
  } else if (n > 0) {
    FORWARD_IF_ERROR(clsort__check_buffer(ctx, output, "output", n, size, ACCESS_WRITE));
  }
  FORWARD_IF_ERROR(clsort__begin(ctx, num_wait, wait_list));
  FORWARD_IF_ERROR(reduce ? clsort__reduce(ctx, type, (clsort_reduce_op)op, input, n, output)
                          : clsort__scan(ctx, type, (clsort_scan_kind)op, input, output, n));
  return clsort__marker(ctx, event);
}

clsort_status clsort_scan_buffer(clsort_context *ctx, clsort_type type, clsort_scan_kind kind,
                                 cl_mem input, cl_mem output, size_t n, cl_uint num_wait,
                                 const cl_event *wait_list, cl_event *event) {
  return LOCKED(ctx, typed_buffer(ctx, type, false, (int)kind, input, output, n, num_wait,
                                  wait_list, event));
}

clsort_status clsort_reduce_buffer(clsort_context *ctx, clsort_type type, clsort_reduce_op op,
                                   cl_mem input, size_t n, cl_mem result, cl_uint num_wait,
                                   const cl_event *wait_list, cl_event *event) {
  return LOCKED(ctx, typed_buffer(ctx, type, true, (int)op, input, result, n, num_wait,
                                  wait_list, event));
}

static clsort_status select_buffer(clsort_context *ctx, size_t element_size, bool split,
                                   cl_mem input, cl_mem flags, cl_mem output, size_t n,
                                   cl_mem count, cl_uint num_wait, const cl_event *wait_list,
                                   cl_event *event) {
  FORWARD_IF_ERROR(clsort__check_select_args(ctx, element_size));
  FORWARD_IF_ERROR(check_enqueue(ctx, n, element_size, num_wait, wait_list));
  if (n > 0) {
    FORWARD_IF_ERROR(clsort__check_buffer(ctx, input, "input", n, element_size, ACCESS_READ));
    FORWARD_IF_ERROR(clsort__check_buffer(ctx, flags, "flags", n, 1, ACCESS_READ));
    FORWARD_IF_ERROR(clsort__check_buffer(ctx, output, "output", n, element_size, ACCESS_WRITE));
    RETURN_IF(output == input || output == flags, CLSORT_ERROR_INVALID_ARGUMENT,
              "output must not be the %s buffer", output == input ? "input" : "flags");
    RETURN_IF(count == input || count == flags || count == output, CLSORT_ERROR_INVALID_ARGUMENT,
              "count must not be the %s buffer",
              count == input ? "input" : count == flags ? "flags" : "output");
  }
  FORWARD_IF_ERROR(clsort__check_buffer(ctx, count, "count", 1, sizeof(cl_ulong), ACCESS_WRITE));
  FORWARD_IF_ERROR(clsort__begin(ctx, num_wait, wait_list));
  FORWARD_IF_ERROR(clsort__select(ctx, element_size, split, input, flags, output, n, count));
  return clsort__marker(ctx, event);
}

clsort_status clsort_compact_buffer(clsort_context *ctx, size_t element_size, cl_mem input,
                                    cl_mem flags, cl_mem output, size_t n, cl_mem count,
                                    cl_uint num_wait, const cl_event *wait_list, cl_event *event) {
  return LOCKED(ctx, select_buffer(ctx, element_size, false, input, flags, output, n, count,
                                   num_wait, wait_list, event));
}

clsort_status clsort_split_buffer(clsort_context *ctx, size_t element_size, cl_mem input,
                                  cl_mem flags, cl_mem output, size_t n, cl_mem count,
                                  cl_uint num_wait, const cl_event *wait_list, cl_event *event) {
  return LOCKED(ctx, select_buffer(ctx, element_size, true, input, flags, output, n, count,
                                   num_wait, wait_list, event));
}

/* Refuses bucket ids >= num_buckets before any offset is written: the
 * largest id comes from the device-wide reduce and 4 bytes read back (so
 * the buffer form waits for its wait list here). */
static clsort_status check_bucket_ids(clsort_context *ctx, cl_mem buckets, size_t n,
                                      unsigned num_buckets) {
  cl_mem max_buf;
  cl_uint max = 0;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_TABLE, sizeof max, &max_buf));
  FORWARD_IF_ERROR(clsort__reduce(ctx, CLSORT_U32, CLSORT_REDUCE_MAX, buckets, n, max_buf));
  FORWARD_IF_ERROR(CL_CHECK(
      clEnqueueReadBuffer(ctx->queue, max_buf, CL_TRUE, 0, sizeof max, &max, 0, NULL, NULL)));
  RETURN_IF(max >= num_buckets, CLSORT_ERROR_INVALID_ARGUMENT,
            "the buckets buffer holds bucket id %u, not below num_buckets (%u)", max,
            num_buckets);
  return CLSORT_SUCCESS;
}

static clsort_status bucket_offsets_buffer(clsort_context *ctx, cl_mem buckets, size_t n,
                                           unsigned num_buckets, size_t tile_size,
                                           clsort_type offset_type, cl_mem offsets,
                                           cl_uint num_wait, const cl_event *wait_list,
                                           cl_event *event) {
  FORWARD_IF_ERROR(clsort__check_bucket_args(ctx, n, num_buckets, tile_size, offset_type));
  FORWARD_IF_ERROR(clsort__check_wait_list(num_wait, wait_list));
  if (n > 0) {
    size_t tiles = clsort__div_up(n, tile_size);
    FORWARD_IF_ERROR(
        clsort__check_buffer(ctx, buckets, "buckets", n, sizeof(cl_uint), ACCESS_READ));
    /* The table is written, then scanned in place. */
    FORWARD_IF_ERROR(clsort__check_buffer(ctx, offsets, "offsets", tiles * num_buckets,
                                          clsort_type_size(offset_type), ACCESS_READ_WRITE));
    RETURN_IF(offsets == buckets, CLSORT_ERROR_INVALID_ARGUMENT,
              "offsets must not be the buckets buffer");
  }
  FORWARD_IF_ERROR(clsort__begin(ctx, num_wait, wait_list));
  if (n > 0) FORWARD_IF_ERROR(check_bucket_ids(ctx, buckets, n, num_buckets));
  FORWARD_IF_ERROR(
      clsort__bucket_offsets(ctx, buckets, 0, n, num_buckets, tile_size, offset_type, offsets, 0));
  return clsort__marker(ctx, event);
}

clsort_status clsort_bucket_offsets_buffer(clsort_context *ctx, cl_mem buckets, size_t n,
                                           unsigned num_buckets, size_t tile_size,
                                           clsort_type offset_type, cl_mem offsets,
                                           cl_uint num_wait, const cl_event *wait_list,
                                           cl_event *event) {
  return LOCKED(ctx, bucket_offsets_buffer(ctx, buckets, n, num_buckets, tile_size, offset_type,
                                           offsets, num_wait, wait_list, event));
}
