/* histogram.c: the per-tile bucket table and its scan (Fine Sample Sort
 * phases 4-5), the offsets a stable bucket scatter needs. */
#include "primitives/primitives.h"

static const char *const histogram_files[] = {"common/common.cl", "primitives/histogram.cl",
                                              NULL};
static const clsort__program_spec histogram_spec = {"histogram", histogram_files};

clsort_status clsort__bucket_offsets(clsort_context *ctx, cl_mem buckets, size_t buckets_at,
                                     size_t n, unsigned num_buckets, size_t tile_size,
                                     clsort_type offset_type, cl_mem offsets, size_t offsets_at) {
  if (n == 0) return CLSORT_SUCCESS;
  bool wide = offset_type == CLSORT_U64;
  cl_kernel kernel;
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &histogram_spec,
                                      wide ? "-DOFFSET_T=ulong" : "-DOFFSET_T=uint",
                                      "bucket_histogram", &kernel));
  size_t tiles = clsort__div_up(n, tile_size), wg = ctx->tuning.wg_size;
  /* The histogram writes `offsets`: be sure the scan can run first. */
  FORWARD_IF_ERROR(clsort__scan_prepare(ctx, offset_type, (size_t)num_buckets * tiles));
  cl_ulong n64 = n, tile64 = tile_size, tiles64 = tiles, b_at = buckets_at, o_at = offsets_at;
  cl_uint buckets32 = num_buckets;
  clsort__arg args[] = {ARG(buckets),   ARG(b_at),    ARG(n64),
                        ARG(tile64),    ARG(tiles64), ARG(buckets32),
                        ARG(offsets),   ARG(o_at),    ARG_LOCAL(num_buckets * sizeof(cl_uint))};
  FORWARD_IF_ERROR(clsort__launch(ctx, kernel, tiles * wg, wg, 9, args, 0, NULL, NULL));
  size_t table = (size_t)num_buckets * tiles;
  if (offsets_at)
    return clsort__scan_cpu(ctx, offset_type, CLSORT_SCAN_EXCLUSIVE, offsets, offsets_at, offsets,
                            offsets_at, table);
  return clsort__scan(ctx, offset_type, CLSORT_SCAN_EXCLUSIVE, offsets, offsets, table);
}
