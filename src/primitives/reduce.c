/* reduce.c: the device-wide reduction (sum, min, max), on the scan
 * program's first-pass kernel. */
#include "primitives/primitives.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* One value of any clsort_type (the narrow ones by their bits). */
typedef union value {
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  int32_t i32;
  float f32;
  uint64_t u64;
  int64_t i64;
  double f64;
} value;

/* The result for n == 0, as bytes of `type`: 0 for a sum, the type's
 * largest value for min and its smallest for max (infinities for floats). */
static void identity(clsort_type type, clsort_reduce_op op, unsigned char out[8]) {
  /* Indexed by clsort_type. */
  static const value highest[] = {{.u32 = UINT32_MAX}, {.i32 = INT32_MAX}, {.f32 = INFINITY},
                                  {.u64 = UINT64_MAX}, {.i64 = INT64_MAX}, {.f64 = INFINITY},
                                  {.u8 = 0xff},        {.u8 = 0x7f},       {.u16 = 0xffff},
                                  {.u16 = 0x7fff},     {.u16 = 0x7c00},    {.u16 = 0x7f80}};
  static const value lowest[] = {{.u32 = 0},    {.i32 = INT32_MIN}, {.f32 = -INFINITY},
                                 {.u64 = 0},    {.i64 = INT64_MIN}, {.f64 = -INFINITY},
                                 {.u8 = 0},     {.u8 = 0x80},       {.u16 = 0},
                                 {.u16 = 0x8000}, {.u16 = 0xfc00},  {.u16 = 0xff80}};
  memset(out, 0, 8);
  if (op == CLSORT_REDUCE_SUM) return;
  memcpy(out, op == CLSORT_REDUCE_MIN ? &highest[type] : &lowest[type], clsort_type_size(type));
}

/* A narrow type through its 32-bit type (convert.c): its values in
 * SLOT_WIDE, the 32-bit result in SLOT_TABLE, narrowed into `result`
 * (exact for min and max; sums wrap in the narrow type). */
static clsort_status reduce_narrow(clsort_context *ctx, clsort_type type, clsort_reduce_op op,
                                   cl_mem in, size_t in_at, size_t n, cl_mem result) {
  cl_mem wide, wide_result;
  FORWARD_IF_ERROR(clsort__convert_prepare(ctx, n, &wide));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_TABLE, 4, &wide_result));
  FORWARD_IF_ERROR(clsort__widen(ctx, type, in, in_at, n, &wide));
  FORWARD_IF_ERROR(clsort__reduce(ctx, clsort__wide_type(type), op, wide, n, wide_result));
  return clsort__narrow(ctx, type, wide_result, 1, result, 0);
}

clsort_status clsort__reduce_at(clsort_context *ctx, clsort_type type, clsort_reduce_op op,
                                cl_mem in, size_t in_at, size_t n, cl_mem result) {
  if (n > 0 && clsort__type_is_narrow(type))
    return reduce_narrow(ctx, type, op, in, in_at, n, result);
  if (n > 0) return clsort__reduce_cpu(ctx, type, op, in, in_at, n, result);
  return clsort__reduce(ctx, type, op, in, n, result);
}

clsort_status clsort__reduce(clsort_context *ctx, clsort_type type, clsort_reduce_op op,
                             cl_mem in, size_t n, cl_mem result) {
  size_t size = clsort_type_size(type);
  if (n == 0) {
    unsigned char value[8];
    identity(type, op, value);
    return CL_CHECK(clEnqueueFillBuffer(ctx->queue, result, value, size, 0, size, 0, NULL, NULL));
  }
  if (clsort__type_is_narrow(type)) return reduce_narrow(ctx, type, op, in, 0, n, result);
  if (ctx->tuning.cpu_shape) return clsort__reduce_cpu(ctx, type, op, in, 0, n, result);
  cl_kernel reduce;
  FORWARD_IF_ERROR(clsort__scan_kernel(ctx, type, SCAN_REDUCE_CHUNKS, &reduce));
  clsort__chunks c = clsort__chunking(ctx, n, clsort__tile(ctx));
  if (c.groups == 1) return clsort__reduce_chunks(ctx, reduce, in, n, 1, c.chunk, op, result);
  cl_mem partials;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_PARTIALS, c.groups * size, &partials));
  FORWARD_IF_ERROR(clsort__reduce_chunks(ctx, reduce, in, n, c.groups, c.chunk, op, partials));
  /* The partials are few: one group reduces them as a single chunk. */
  return clsort__reduce_chunks(ctx, reduce, partials, c.groups, 1, c.groups, op, result);
}
