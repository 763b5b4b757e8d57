/* reduce.c: the device-wide reduction (sum, min, max), on the scan
 * program's first-pass kernel. */
#include "primitives.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* The result for n == 0, as bytes of `type`. */
static void identity(clsort_type type, clsort_reduce_op op, unsigned char out[8]) {
  memset(out, 0, 8);
  if (op == CLSORT_REDUCE_SUM) return;
  bool min = op == CLSORT_REDUCE_MIN;
  switch (type) {
    case CLSORT_U32: {
      uint32_t v = min ? UINT32_MAX : 0;
      memcpy(out, &v, 4);
    } break;
    case CLSORT_I32: {
      int32_t v = min ? INT32_MAX : INT32_MIN;
      memcpy(out, &v, 4);
    } break;
    case CLSORT_F32: {
      float v = min ? INFINITY : -INFINITY;
      memcpy(out, &v, 4);
    } break;
    case CLSORT_U64: {
      uint64_t v = min ? UINT64_MAX : 0;
      memcpy(out, &v, 8);
    } break;
    case CLSORT_I64: {
      int64_t v = min ? INT64_MAX : INT64_MIN;
      memcpy(out, &v, 8);
    } break;
    case CLSORT_F64: {
      double v = min ? INFINITY : -INFINITY;
      memcpy(out, &v, 8);
    } break;
  }
}

clsort_status clsort__reduce(clsort_context *ctx, clsort_type type, clsort_reduce_op op,
                             cl_mem in, size_t n, cl_mem result) {
  size_t size = clsort_type_size(type);
  if (n == 0) {
    unsigned char value[8];
    identity(type, op, value);
    return CL_CHECK(clEnqueueFillBuffer(ctx->queue, result, value, size, 0, size, 0, NULL, NULL));
  }
  cl_kernel reduce;
  FORWARD_IF_ERROR(clsort__scan_kernel(ctx, type, SCAN_REDUCE_CHUNKS, &reduce));
  size_t wg = ctx->tuning.wg_size;
  clsort__chunks c = clsort__chunking(ctx, n, clsort__tile(ctx));
  cl_ulong n64 = n, chunk64 = c.chunk, groups64 = c.groups;
  int iop = (int)op;
  if (c.groups == 1) {
    clsort__arg args[] = {ARG(in), ARG(n64), ARG(chunk64), ARG(result), ARG(iop)};
    return clsort__launch(ctx, reduce, wg, wg, 5, args, 0, NULL, NULL);
  }
  cl_mem partials;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_PARTIALS, c.groups * size, &partials));
  clsort__arg args[] = {ARG(in), ARG(n64), ARG(chunk64), ARG(partials), ARG(iop)};
  FORWARD_IF_ERROR(clsort__launch(ctx, reduce, c.groups * wg, wg, 5, args, 0, NULL, NULL));
  clsort__arg last[] = {ARG(partials), ARG(groups64), ARG(groups64), ARG(result), ARG(iop)};
  return clsort__launch(ctx, reduce, wg, wg, 5, last, 0, NULL, NULL);
}

static clsort_status reduce_buffer(clsort_context *ctx, clsort_type type, clsort_reduce_op op,
                                   cl_mem input, size_t n, cl_mem result, cl_uint num_wait,
                                   const cl_event *wait_list, cl_event *event) {
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  FORWARD_IF_ERROR(clsort__check_type(ctx, type));
  RETURN_IF(op != CLSORT_REDUCE_SUM && op != CLSORT_REDUCE_MIN && op != CLSORT_REDUCE_MAX,
            CLSORT_ERROR_INVALID_ARGUMENT, "unknown reduce op %d", (int)op);
  FORWARD_IF_ERROR(clsort__check_wait_list(num_wait, wait_list));
  size_t size = clsort_type_size(type);
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, size));
  if (n > 0) FORWARD_IF_ERROR(clsort__check_buffer(ctx, input, "input", n, size, ACCESS_READ));
  FORWARD_IF_ERROR(clsort__check_buffer(ctx, result, "result", 1, size, ACCESS_WRITE));
  RETURN_IF(n > 0 && result == input, CLSORT_ERROR_INVALID_ARGUMENT,
            "result must not be the input buffer");
  FORWARD_IF_ERROR(clsort__begin(ctx, num_wait, wait_list));
  FORWARD_IF_ERROR(clsort__reduce(ctx, type, op, input, n, result));
  return clsort__marker(ctx, event);
}

clsort_status clsort_reduce_buffer(clsort_context *ctx, clsort_type type, clsort_reduce_op op,
                                   cl_mem input, size_t n, cl_mem result, cl_uint num_wait,
                                   const cl_event *wait_list, cl_event *event) {
  return LOCKED(ctx, reduce_buffer(ctx, type, op, input, n, result, num_wait, wait_list, event));
}
