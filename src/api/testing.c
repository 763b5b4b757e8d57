/* testing.c: the test hook that reaches the segmented small sort
 * (sorts/segmented_sort.c) from host arrays, with the checks that the
 * library's own callers guarantee by construction. */
#include "api/api.h"
#include "api/testing.h"

#include <stdlib.h>
#include <string.h>

size_t clsort__test_segment_capacity(clsort_context *ctx, clsort_type type, size_t value_size) {
  return clsort__test_segment_capacity_flags(ctx, type, value_size, 0);
}

size_t clsort__test_segment_capacity_flags(clsort_context *ctx, clsort_type type,
                                           size_t value_size, unsigned flags) {
  return clsort__bitonic_shape_for(ctx, clsort__sort_key_size(type), value_size,
                                   (flags & CLSORT_STABLE) != 0)
      .tile;
}

size_t clsort__test_segmented_limit(clsort_context *ctx, clsort_type type, size_t value_size) {
  clsort__sort_job job;
  memset(&job, 0, sizeof job);
  job.type = type;
  job.value_size = value_size;
  job.stable = value_size != 0;
  /* GPU shapes pack segments up to the block sort's tile instead. */
  size_t tile = clsort__packed_tile(ctx, &job);
  return tile ? tile : clsort__segment_limit(ctx, &job);
}

/* The hook's checks: what the library's callers guarantee by
 * construction. */
static clsort_status check_segments(const size_t *begins, const size_t *ends, size_t count,
                                    size_t n, size_t capacity) {
  for (size_t i = 0; i < count; i++) {
    RETURN_IF(begins[i] > ends[i] || ends[i] > n, CLSORT_ERROR_INVALID_ARGUMENT,
              "segment %zu [%zu, %zu) is not inside the %zu keys", i, begins[i], ends[i], n);
    RETURN_IF(ends[i] - begins[i] > capacity, CLSORT_ERROR_INVALID_ARGUMENT,
              "segment %zu holds %zu keys, more than the %zu of a tile", i, ends[i] - begins[i],
              capacity);
  }
  return CLSORT_SUCCESS;
}

clsort_status clsort__test_sort_segments(clsort_context *ctx, clsort_type type, void *keys,
                                         void *values, size_t value_size, size_t n,
                                         const size_t *begins, const size_t *ends,
                                         size_t num_segments, unsigned flags) {
  clsort__clear_error();
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  FORWARD_IF_ERROR(clsort__check_type(ctx, type));
  RETURN_IF(value_size != 0 && value_size != 4 && value_size != 8, CLSORT_ERROR_INVALID_ARGUMENT,
            "value_size %zu is not 0, 4 or 8", value_size);
  RETURN_IF(flags & ~CLSORT_FLAGS_ALL_, CLSORT_ERROR_INVALID_ARGUMENT, "flags 0x%x", flags);
  size_t capacity = clsort__test_segment_capacity_flags(ctx, type, value_size, flags);
  FORWARD_IF_ERROR(check_segments(begins, ends, num_segments, n, capacity));
  if (n == 0 || num_segments == 0) return CLSORT_SUCCESS;

  size_t key_bytes = n * clsort_type_size(type), table_bytes = 2 * num_segments * sizeof(cl_ulong);
  cl_ulong *table = clsort__malloc(ctx, table_bytes);
  RETURN_IF(!table, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the segment table");
  for (size_t i = 0; i < num_segments; i++) {
    table[2 * i] = begins[i];
    table[2 * i + 1] = ends[i];
  }
  clsort__sort_job job;
  memset(&job, 0, sizeof job);
  job.type = type;
  job.n = n;
  job.descending = (flags & CLSORT_DESCENDING) != 0;
  job.stable = (flags & CLSORT_STABLE) != 0;
  job.value_size = value_size;
  cl_mem table_buf = NULL;
  clsort_status st = clsort__scratch(ctx, SLOT_HOST_IN, key_bytes, &job.keys_in);
  if (st == CLSORT_SUCCESS && value_size)
    st = clsort__scratch(ctx, SLOT_HOST_AUX, n * value_size, &job.vals_in);
  if (st == CLSORT_SUCCESS) st = clsort__scratch(ctx, SLOT_HOST_COUNT, table_bytes, &table_buf);
  if (st == CLSORT_SUCCESS)
    st = CL_CHECK(clEnqueueWriteBuffer(ctx->queue, job.keys_in, CL_TRUE, 0, key_bytes, keys, 0,
                                       NULL, NULL));
  if (st == CLSORT_SUCCESS && value_size)
    st = CL_CHECK(clEnqueueWriteBuffer(ctx->queue, job.vals_in, CL_TRUE, 0, n * value_size,
                                       values, 0, NULL, NULL));
  if (st == CLSORT_SUCCESS)
    st = CL_CHECK(clEnqueueWriteBuffer(ctx->queue, table_buf, CL_TRUE, 0, table_bytes, table, 0,
                                       NULL, NULL));
  free(table);
  if (st == CLSORT_SUCCESS) st = clsort__sort_segments(ctx, &job, table_buf, num_segments);
  if (st == CLSORT_SUCCESS)
    st = CL_CHECK(clEnqueueReadBuffer(ctx->queue, job.keys_in, CL_TRUE, 0, key_bytes, keys, 0,
                                      NULL, NULL));
  if (st == CLSORT_SUCCESS && value_size)
    st = CL_CHECK(clEnqueueReadBuffer(ctx->queue, job.vals_in, CL_TRUE, 0, n * value_size, values,
                                      0, NULL, NULL));
  if (st != CLSORT_SUCCESS) clFinish(ctx->queue);
  return st;
}

int clsort__test_top_k_path(void) { return (int)clsort__top_k_path(); }
