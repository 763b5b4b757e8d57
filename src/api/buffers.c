/* buffers.c: the buffer forms of the primitives (scan, reduce, compact,
 * split and bucket offsets on the caller's cl_mem). A buffer form checks
 * everything, puts the caller's wait list in front, enqueues the
 * primitive and returns a marker as its event. */
#include "api/api.h"

#define MAX_BUCKETS 4096u

clsort_status clsort_scan_buffer(clsort_context *ctx, clsort_type type, clsort_scan_kind kind,
                                 cl_mem input, cl_mem output, size_t n, cl_uint num_wait,
                                 const cl_event *wait_list, cl_event *event) {
  clsort__clear_error();
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  FORWARD_IF_ERROR(clsort__check_type(ctx, type));
  RETURN_IF(kind != CLSORT_SCAN_EXCLUSIVE && kind != CLSORT_SCAN_INCLUSIVE,
            CLSORT_ERROR_INVALID_ARGUMENT, "unknown scan kind %d", (int)kind);
  FORWARD_IF_ERROR(clsort__check_wait_list(num_wait, wait_list));
  size_t size = clsort_type_size(type);
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, size));
  if (n > 0) {
    FORWARD_IF_ERROR(clsort__check_buffer(input, "input", n, size));
    FORWARD_IF_ERROR(clsort__check_buffer(output, "output", n, size));
  }
  FORWARD_IF_ERROR(clsort__begin(ctx, num_wait, wait_list));
  FORWARD_IF_ERROR(clsort__scan(ctx, type, kind, input, output, n));
  return clsort__marker(ctx, event);
}

clsort_status clsort_reduce_buffer(clsort_context *ctx, clsort_type type, clsort_reduce_op op,
                                   cl_mem input, size_t n, cl_mem result, cl_uint num_wait,
                                   const cl_event *wait_list, cl_event *event) {
  clsort__clear_error();
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  FORWARD_IF_ERROR(clsort__check_type(ctx, type));
  RETURN_IF(op != CLSORT_REDUCE_SUM && op != CLSORT_REDUCE_MIN && op != CLSORT_REDUCE_MAX,
            CLSORT_ERROR_INVALID_ARGUMENT, "unknown reduce op %d", (int)op);
  FORWARD_IF_ERROR(clsort__check_wait_list(num_wait, wait_list));
  size_t size = clsort_type_size(type);
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, size));
  if (n > 0) FORWARD_IF_ERROR(clsort__check_buffer(input, "input", n, size));
  FORWARD_IF_ERROR(clsort__check_buffer(result, "result", 1, size));
  FORWARD_IF_ERROR(clsort__begin(ctx, num_wait, wait_list));
  FORWARD_IF_ERROR(clsort__reduce(ctx, type, op, input, n, result));
  return clsort__marker(ctx, event);
}

static clsort_status check_select(clsort_context *ctx, size_t element_size, cl_mem input,
                                  cl_mem flags, cl_mem output, size_t n, cl_mem count,
                                  cl_uint num_wait, const cl_event *wait_list) {
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  RETURN_IF(!clsort__select_supported(element_size), CLSORT_ERROR_INVALID_ARGUMENT,
            "element_size %zu is not 1, 2, 4, 8 or 16", element_size);
  FORWARD_IF_ERROR(clsort__check_wait_list(num_wait, wait_list));
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, element_size));
  if (n > 0) {
    FORWARD_IF_ERROR(clsort__check_buffer(input, "input", n, element_size));
    FORWARD_IF_ERROR(clsort__check_buffer(flags, "flags", n, 1));
    FORWARD_IF_ERROR(clsort__check_buffer(output, "output", n, element_size));
    RETURN_IF(input == output, CLSORT_ERROR_INVALID_ARGUMENT,
              "output must not be the input buffer");
  }
  return clsort__check_buffer(count, "count", 1, sizeof(cl_ulong));
}

static clsort_status select_buffer(clsort_context *ctx, size_t element_size, bool split,
                                   cl_mem input, cl_mem flags, cl_mem output, size_t n,
                                   cl_mem count, cl_uint num_wait, const cl_event *wait_list,
                                   cl_event *event) {
  clsort__clear_error();
  FORWARD_IF_ERROR(
      check_select(ctx, element_size, input, flags, output, n, count, num_wait, wait_list));
  FORWARD_IF_ERROR(clsort__begin(ctx, num_wait, wait_list));
  FORWARD_IF_ERROR(clsort__select(ctx, element_size, split, input, flags, output, n, count));
  return clsort__marker(ctx, event);
}

clsort_status clsort_compact_buffer(clsort_context *ctx, size_t element_size, cl_mem input,
                                    cl_mem flags, cl_mem output, size_t n, cl_mem count,
                                    cl_uint num_wait, const cl_event *wait_list, cl_event *event) {
  return select_buffer(ctx, element_size, false, input, flags, output, n, count, num_wait,
                       wait_list, event);
}

clsort_status clsort_split_buffer(clsort_context *ctx, size_t element_size, cl_mem input,
                                  cl_mem flags, cl_mem output, size_t n, cl_mem count,
                                  cl_uint num_wait, const cl_event *wait_list, cl_event *event) {
  return select_buffer(ctx, element_size, true, input, flags, output, n, count, num_wait,
                       wait_list, event);
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

clsort_status clsort_bucket_offsets_buffer(clsort_context *ctx, cl_mem buckets, size_t n,
                                           unsigned num_buckets, size_t tile_size,
                                           clsort_type offset_type, cl_mem offsets,
                                           cl_uint num_wait, const cl_event *wait_list,
                                           cl_event *event) {
  clsort__clear_error();
  FORWARD_IF_ERROR(clsort__check_bucket_args(ctx, n, num_buckets, tile_size, offset_type));
  FORWARD_IF_ERROR(clsort__check_wait_list(num_wait, wait_list));
  if (n > 0) {
    size_t tiles = clsort__div_up(n, tile_size);
    FORWARD_IF_ERROR(clsort__check_buffer(buckets, "buckets", n, sizeof(cl_uint)));
    FORWARD_IF_ERROR(clsort__check_buffer(offsets, "offsets", tiles * num_buckets,
                                          clsort_type_size(offset_type)));
  }
  FORWARD_IF_ERROR(clsort__begin(ctx, num_wait, wait_list));
  FORWARD_IF_ERROR(
      clsort__bucket_offsets(ctx, buckets, n, num_buckets, tile_size, offset_type, offsets));
  return clsort__marker(ctx, event);
}
