/* segmented_sort.c: the segmented small sort. Many independent segments,
 * each at most one bitonic tile, sorted in one launch (one work-group per
 * segment); the sample sort finishes its buckets with it, and the merge
 * sort and quicksort their leaves. api/testing.c reaches it from host
 * arrays for the tests. Then the global path of clsort_segmented_sort:
 * every segment at once, through two stable radix sorts. */
#include "sorts/sorts.h"

#include <stdio.h>

/* CPUs sort each segment with a serial loop (merge_cpu.cl: the introsort,
 * or stable, insertion sorts and merges), which takes segments of any
 * length. */
static bool serial_segments(const clsort_context *ctx) { return ctx->tuning.cpu_shape; }

size_t clsort__segment_limit(const clsort_context *ctx, const clsort__sort_job *job) {
  size_t tile =
      clsort__bitonic_shape_for(ctx, clsort_type_size(job->type), job->value_size, job->stable)
          .tile;
  /* 2^15 keys (128 KB of u32 keys, 256 KB with their values, twice that
   * for a stable sort's scratch) stay in a core's L2 while one loop sorts
   * them. */
  return serial_segments(ctx) ? clsort__max(tile, (size_t)1 << 15) : tile;
}

clsort_status clsort__segments_prepare(clsort_context *ctx, const clsort__sort_job *job) {
  cl_kernel unused;
  if (serial_segments(ctx)) return clsort__sort_segments_cpu(ctx, job, NULL, 0);
  return clsort__bitonic_kernel(ctx, job, BITONIC_SORT_SEGMENTS, &unused);
}

clsort_status clsort__sort_segments(clsort_context *ctx, const clsort__sort_job *job,
                                    cl_mem segments, size_t count) {
  if (serial_segments(ctx)) return clsort__sort_segments_cpu(ctx, job, segments, count);
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

/* ------------------------------------------------------- the global path */
static const char *const segments_files[] = {"common/common.cl", "sorts/segments.cl", NULL};
static const clsort__program_spec segments_spec = {"segments", segments_files};

static clsort_status segments_kernel(clsort_context *ctx, const clsort__sort_job *job,
                                     size_t pos_size, const char *name, cl_kernel *out) {
  char options[128];
  snprintf(options, sizeof options, "-DKEY_T=%s -DVALUE_T=%s -DPOS_T=%s -DHAS_VALUES=%d",
           clsort_type_size(job->type) == 8 ? "ulong" : "uint",
           job->value_size == 8 ? "ulong" : "uint", pos_size == 8 ? "ulong" : "uint",
           job->value_size ? 1 : 0);
  return clsort__get_kernel(ctx, &segments_spec, options, name, out);
}

/* A grid that strides over n: enough groups to fill the device. */
static size_t stride_grid(const clsort_context *ctx, size_t n) {
  size_t wg = ctx->tuning.wg_size;
  clsort__chunks c = clsort__chunking(ctx, n, clsort__tile(ctx));
  return clsort__min(c.groups * wg, clsort__div_up(n, wg) * wg);
}

clsort_status clsort__sort_segments_global(clsort_context *ctx, const clsort__sort_job *job,
                                           const uint64_t *offsets, size_t count) {
  size_t n = job->n, ks = clsort_type_size(job->type), vs = job->value_size;
  size_t ps = n > UINT32_MAX ? 8 : 4;
  if (n < 2 || count == 0) return CLSORT_SUCCESS;
  cl_kernel ids_k, gather_k;
  FORWARD_IF_ERROR(segments_kernel(ctx, job, ps, "segment_ids", &ids_k));
  FORWARD_IF_ERROR(segments_kernel(ctx, job, ps, "segment_gather", &gather_k));
  cl_mem list, keys, pos, ids, vals = NULL;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SEGMENT_LIST, (count + 1) * sizeof(cl_ulong), &list));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SEGMENT_KEYS, n * ks, &keys));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SEGMENT_POS, n * ps, &pos));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SEGMENT_IDS, n * sizeof(cl_uint), &ids));
  if (vs) FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SEGMENT_VALUES, n * vs, &vals));
  /* Blocking: the caller's offsets are free again on return. */
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(
      ctx->queue, list, CL_TRUE, 0, (count + 1) * sizeof(cl_ulong), offsets, 0, NULL, NULL)));
  /* 1. Every key with its position, sorted stably by key. */
  FORWARD_IF_ERROR(
      CL_CHECK(clEnqueueCopyBuffer(ctx->queue, job->keys_in, keys, 0, 0, n * ks, 0, NULL, NULL)));
  clsort__sort_job by_key = *job;
  by_key.keys_in = by_key.keys_out = keys;
  by_key.vals_in = by_key.vals_out = pos;
  by_key.value_size = ps;
  by_key.make_index = false;
  FORWARD_IF_ERROR(clsort__run_iota(ctx, &by_key, pos, n, 0));
  FORWARD_IF_ERROR(clsort__radix_sort(ctx, &by_key));
  /* 2. Each position's segment, then the positions sorted stably by it:
   * by segment, and by key within one. Only the bits that segment ids
   * use are sorted. */
  cl_ulong n64 = n;
  cl_uint count32 = (cl_uint)count;
  clsort__arg id_args[] = {ARG(pos), ARG(n64), ARG(list), ARG(count32), ARG(ids)};
  FORWARD_IF_ERROR(clsort__launch(ctx, ids_k, stride_grid(ctx, n), ctx->tuning.wg_size, 5, id_args,
                                  0, NULL, NULL));
  clsort__sort_job by_segment = by_key;
  by_segment.type = CLSORT_U32;
  by_segment.descending = false;
  by_segment.keys_in = by_segment.keys_out = ids;
  by_segment.begin_bit = 0;
  by_segment.end_bit = 1;
  while (by_segment.end_bit < 32 && ((size_t)1 << by_segment.end_bit) < count) by_segment.end_bit++;
  FORWARD_IF_ERROR(clsort__radix_sort(ctx, &by_segment));
  /* 3. Keys and values gathered from their positions, then put back. */
  cl_mem vin = vs ? job->vals_in : keys, vout = vs ? vals : keys;
  clsort__arg g_args[] = {ARG(job->keys_in), ARG(keys), ARG(vin), ARG(vout), ARG(pos), ARG(n64)};
  FORWARD_IF_ERROR(clsort__launch(ctx, gather_k, stride_grid(ctx, n), ctx->tuning.wg_size, 6,
                                  g_args, 0, NULL, NULL));
  FORWARD_IF_ERROR(
      CL_CHECK(clEnqueueCopyBuffer(ctx->queue, keys, job->keys_out, 0, 0, n * ks, 0, NULL, NULL)));
  if (vs)
    FORWARD_IF_ERROR(CL_CHECK(
        clEnqueueCopyBuffer(ctx->queue, vals, job->vals_out, 0, 0, n * vs, 0, NULL, NULL)));
  return CLSORT_SUCCESS;
}
