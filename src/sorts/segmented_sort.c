/* segmented_sort.c: the segmented small sort. Many independent segments,
 * each at most one bitonic tile, sorted in one launch (one work-group per
 * segment); the sample sort finishes its buckets with it, and the merge
 * sort and quicksort their leaves. api/testing.c reaches it from host
 * arrays for the tests. */
#include "sorts/sorts.h"

/* CPUs sort each segment with a serial loop (merge_cpu.cl's introsort),
 * which takes segments of any length; stable requests keep the stable
 * bitonic tile. */
static bool serial_segments(const clsort_context *ctx, const clsort__sort_job *job) {
  return ctx->tuning.cpu_shape && !job->stable;
}

size_t clsort__segment_limit(const clsort_context *ctx, const clsort__sort_job *job) {
  size_t tile =
      clsort__bitonic_shape_for(ctx, clsort_type_size(job->type), job->value_size, job->stable)
          .tile;
  /* 2^15 keys (128 KB of u32 keys, 256 KB with their values) stay in a
   * core's L2 while one loop sorts them. */
  return serial_segments(ctx, job) ? clsort__max(tile, (size_t)1 << 15) : tile;
}

clsort_status clsort__segments_prepare(clsort_context *ctx, const clsort__sort_job *job) {
  cl_kernel unused;
  if (serial_segments(ctx, job)) return clsort__sort_segments_cpu(ctx, job, NULL, 0);
  return clsort__bitonic_kernel(ctx, job, BITONIC_SORT_SEGMENTS, &unused);
}

clsort_status clsort__sort_segments(clsort_context *ctx, const clsort__sort_job *job,
                                    cl_mem segments, size_t count) {
  if (serial_segments(ctx, job)) return clsort__sort_segments_cpu(ctx, job, segments, count);
  if (count == 0 || job->n == 0) return CLSORT_SUCCESS;
  clsort__bitonic_shape s =
      clsort__bitonic_shape_for(ctx, clsort_type_size(job->type), job->value_size, job->stable);
  cl_kernel k;
  FORWARD_IF_ERROR(clsort__bitonic_kernel(ctx, job, BITONIC_SORT_SEGMENTS, &k));
  cl_mem vals = job->value_size ? job->vals_in : job->keys_in;
  int kind = clsort__key_kind(job->type), desc = job->descending;
  clsort__arg args[] = {ARG(job->keys_in), ARG(vals), ARG(segments), ARG(kind), ARG(desc)};
  return clsort__launch(ctx, k, count * s.wg, s.wg, 5, args, 0, NULL, NULL);
}
