/* host_arrays.c: the blocking host-array forms of the primitives: copy in
 * to the context's staging buffers, run the device form, copy out. Outputs
 * are written only by the final read, so a failure leaves them untouched. */
#include "api/api.h"

/* Copies `bytes` from host memory into the staging slot. Blocking, so the
 * caller's memory is free again on return, whatever happens next. */
static clsort_status upload(clsort_context *ctx, clsort__slot slot, const void *src, size_t bytes,
                            cl_mem *out) {
  FORWARD_IF_ERROR(clsort__scratch(ctx, slot, bytes, out));
  return CL_CHECK(clEnqueueWriteBuffer(ctx->queue, *out, CL_TRUE, 0, bytes, src, 0, NULL, NULL));
}

static clsort_status download(clsort_context *ctx, cl_mem src, void *dst, size_t bytes) {
  return CL_CHECK(clEnqueueReadBuffer(ctx->queue, src, CL_TRUE, 0, bytes, dst, 0, NULL, NULL));
}

/* Every host form ends here: on failure, drain the queue so that nothing
 * still refers to the caller's memory. */
static clsort_status finish(clsort_context *ctx, clsort_status st) {
  if (st != CLSORT_SUCCESS) clFinish(ctx->queue);
  return st;
}

static clsort_status scan_host(clsort_context *ctx, clsort_type type, clsort_scan_kind kind,
                               const void *input, void *output, size_t n) {
  FORWARD_IF_ERROR(clsort__check_scan_args(ctx, type, kind));
  if (n == 0) return CLSORT_SUCCESS;
  RETURN_IF(!input || !output, CLSORT_ERROR_INVALID_ARGUMENT, "input and output must not be NULL");
  size_t bytes = n * clsort_type_size(type);
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, clsort_type_size(type)));
  cl_mem buf;
  clsort_status st = upload(ctx, SLOT_HOST_IN, input, bytes, &buf);
  if (st == CLSORT_SUCCESS) st = clsort__scan(ctx, type, kind, buf, buf, n);
  if (st == CLSORT_SUCCESS) st = download(ctx, buf, output, bytes);
  return finish(ctx, st);
}

clsort_status clsort_scan(clsort_context *ctx, clsort_type type, clsort_scan_kind kind,
                          const void *input, void *output, size_t n) {
  return LOCKED(ctx, scan_host(ctx, type, kind, input, output, n));
}

static clsort_status reduce_host(clsort_context *ctx, clsort_type type, clsort_reduce_op op,
                                 const void *input, size_t n, void *result) {
  FORWARD_IF_ERROR(clsort__check_reduce_args(ctx, type, op));
  RETURN_IF(!result, CLSORT_ERROR_INVALID_ARGUMENT, "result must not be NULL");
  RETURN_IF(n > 0 && !input, CLSORT_ERROR_INVALID_ARGUMENT, "input must not be NULL");
  size_t size = clsort_type_size(type);
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, size));
  cl_mem in = NULL, out;
  clsort_status st = clsort__scratch(ctx, SLOT_HOST_OUT, size, &out);
  if (st == CLSORT_SUCCESS && n > 0) st = upload(ctx, SLOT_HOST_IN, input, n * size, &in);
  if (st == CLSORT_SUCCESS) st = clsort__reduce(ctx, type, op, in, n, out);
  if (st == CLSORT_SUCCESS) st = download(ctx, out, result, size);
  return finish(ctx, st);
}

clsort_status clsort_reduce(clsort_context *ctx, clsort_type type, clsort_reduce_op op,
                            const void *input, size_t n, void *result) {
  return LOCKED(ctx, reduce_host(ctx, type, op, input, n, result));
}

static clsort_status select_host(clsort_context *ctx, size_t element_size, bool split,
                                 const void *input, const unsigned char *flags, void *output,
                                 size_t n, size_t *count) {
  FORWARD_IF_ERROR(clsort__check_select_args(ctx, element_size));
  RETURN_IF(!count, CLSORT_ERROR_INVALID_ARGUMENT, "count must not be NULL");
  RETURN_IF(n > 0 && (!input || !flags || !output), CLSORT_ERROR_INVALID_ARGUMENT,
            "input, flags and output must not be NULL");
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, element_size));
  if (n == 0) {
    *count = 0;
    return CLSORT_SUCCESS;
  }
  cl_mem in, fl, out, cnt;
  cl_ulong kept = 0;
  clsort_status st = upload(ctx, SLOT_HOST_IN, input, n * element_size, &in);
  if (st == CLSORT_SUCCESS) st = upload(ctx, SLOT_HOST_AUX, flags, n, &fl);
  if (st == CLSORT_SUCCESS) st = clsort__scratch(ctx, SLOT_HOST_OUT, n * element_size, &out);
  if (st == CLSORT_SUCCESS) st = clsort__scratch(ctx, SLOT_HOST_COUNT, sizeof kept, &cnt);
  if (st == CLSORT_SUCCESS) st = clsort__select(ctx, element_size, split, in, fl, out, n, cnt);
  if (st == CLSORT_SUCCESS) st = download(ctx, cnt, &kept, sizeof kept);
  /* Compact fills only the first `kept` elements; leave the rest alone. */
  size_t written = split ? n : (size_t)kept;
  if (st == CLSORT_SUCCESS && written) st = download(ctx, out, output, written * element_size);
  if (st == CLSORT_SUCCESS) *count = (size_t)kept;
  return finish(ctx, st);
}

clsort_status clsort_compact(clsort_context *ctx, size_t element_size, const void *input,
                             const unsigned char *flags, void *output, size_t n, size_t *count) {
  return LOCKED(ctx, select_host(ctx, element_size, false, input, flags, output, n, count));
}

clsort_status clsort_split(clsort_context *ctx, size_t element_size, const void *input,
                           const unsigned char *flags, void *output, size_t n, size_t *count) {
  return LOCKED(ctx, select_host(ctx, element_size, true, input, flags, output, n, count));
}

static clsort_status bucket_offsets_host(clsort_context *ctx, const unsigned *buckets, size_t n,
                                         unsigned num_buckets, size_t tile_size,
                                         clsort_type offset_type, void *offsets) {
  FORWARD_IF_ERROR(clsort__check_bucket_args(ctx, n, num_buckets, tile_size, offset_type));
  if (n == 0) return CLSORT_SUCCESS;
  RETURN_IF(!buckets || !offsets, CLSORT_ERROR_INVALID_ARGUMENT,
            "buckets and offsets must not be NULL");
  /* The histogram kernel counts an id past the last bucket nowhere. */
  for (size_t i = 0; i < n; i++)
    RETURN_IF(buckets[i] >= num_buckets, CLSORT_ERROR_INVALID_ARGUMENT,
              "bucket id %u at index %zu is not below num_buckets (%u)", buckets[i], i,
              num_buckets);
  size_t table = clsort__div_up(n, tile_size) * num_buckets;
  size_t table_bytes = table * clsort_type_size(offset_type);
  cl_mem in, out;
  clsort_status st = upload(ctx, SLOT_HOST_IN, buckets, n * sizeof(cl_uint), &in);
  if (st == CLSORT_SUCCESS) st = clsort__scratch(ctx, SLOT_HOST_OUT, table_bytes, &out);
  if (st == CLSORT_SUCCESS)
    st = clsort__bucket_offsets(ctx, in, n, num_buckets, tile_size, offset_type, out);
  if (st == CLSORT_SUCCESS) st = download(ctx, out, offsets, table_bytes);
  return finish(ctx, st);
}

clsort_status clsort_bucket_offsets(clsort_context *ctx, const unsigned *buckets, size_t n,
                                    unsigned num_buckets, size_t tile_size,
                                    clsort_type offset_type, void *offsets) {
  return LOCKED(ctx, bucket_offsets_host(ctx, buckets, n, num_buckets, tile_size, offset_type,
                                         offsets));
}
