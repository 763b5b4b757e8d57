/* histogram.c: the per-tile bucket table and its scan (Fine Sample Sort
 * phases 4-5), the offsets a stable bucket scatter needs. */
#include "primitives.h"

static const char *const histogram_files[] = {"common.cl", "histogram.cl", NULL};
static const clsort__program_spec histogram_spec = {"histogram", histogram_files};

#define MAX_BUCKETS 4096u

clsort_status clsort__bucket_offsets(clsort_context *ctx, cl_mem buckets, size_t n,
                                     unsigned num_buckets, size_t tile_size,
                                     clsort_type offset_type, cl_mem offsets) {
  if (n == 0) return CLSORT_SUCCESS;
  bool wide = offset_type == CLSORT_U64;
  cl_kernel kernel;
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &histogram_spec,
                                      wide ? "-DOFFSET_T=ulong" : "-DOFFSET_T=uint",
                                      "bucket_histogram", &kernel));
  size_t tiles = clsort__div_up(n, tile_size), wg = ctx->tuning.wg_size;
  /* The histogram writes `offsets`: be sure the scan can run first. */
  FORWARD_IF_ERROR(clsort__scan_prepare(ctx, offset_type, (size_t)num_buckets * tiles));
  cl_ulong n64 = n, tile64 = tile_size, tiles64 = tiles;
  cl_uint buckets32 = num_buckets;
  clsort__arg args[] = {ARG(buckets),   ARG(n64),     ARG(tile64),
                        ARG(tiles64),   ARG(buckets32), ARG(offsets),
                        ARG_LOCAL(num_buckets * sizeof(cl_uint))};
  FORWARD_IF_ERROR(clsort__launch(ctx, kernel, tiles * wg, wg, 7, args, 0, NULL, NULL));
  return clsort__scan(ctx, offset_type, CLSORT_SCAN_EXCLUSIVE, offsets, offsets,
                      (size_t)num_buckets * tiles);
}

/* The histogram kernel counts an id past the last bucket nowhere, so the
 * buffer form reads the largest id back (4 bytes, blocking) and refuses
 * the call before any offset is written. */
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
      clsort__bucket_offsets(ctx, buckets, n, num_buckets, tile_size, offset_type, offsets));
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
