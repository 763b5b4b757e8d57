/* segment_merge.c: the long segments of the packed segmented sort. The
 * packed launch has sorted each long segment's pieces of a tile into runs
 * (segment_tiles.c); merge passes confined to each segment
 * (segment_merge.cl) then double the runs, every long segment of the call
 * in the same launches, until each segment is one run: a segment of L keys
 * costs log2(L / tile) passes over its keys, where the global path sorted
 * the whole array twice and the split path launched a sort per segment. */
#include "sorts/sorts.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const merge_files[] = {"common/common.cl", "sorts/keys.cl",
                                          "sorts/segment_merge.cl", NULL};
static const clsort__program_spec merge_spec = {"segment_merge", merge_files};

/* Outputs per work-item: a group writes WG_SIZE * ITEMS keys. */
enum { ITEMS = 8 };

static clsort_status merge_kernel(clsort_context *ctx, const clsort__sort_job *job,
                                  cl_kernel *out) {
  size_t ks = clsort_type_size(job->type);
  char options[160];
  snprintf(options, sizeof options, "-DKEY_T=%s -DKEY_BITS=%zu -DHAS_VALUES=%d -DVALUE_T=%s -DSM_ITEMS=%d",
           ks == 8 ? "ulong" : "uint", ks * 8, job->value_size ? 1 : 0,
           job->value_size == 8 ? "ulong" : "uint", (int)ITEMS);
  return clsort__get_kernel(ctx, &merge_spec, options, "segment_merge_pass", out);
}

/* The list segment_merge_pass reads: first key, length and first group of
 * each segment of (tile, limit] keys, and the total groups; *longest
 * receives the longest one's length. NULL when host memory runs out. */
static cl_ulong *make_list(clsort_context *ctx, const uint64_t *offsets, size_t count,
                           size_t tile, size_t limit, size_t per_group, cl_uint *segs,
                           size_t *longest) {
  size_t c = 0;
  for (size_t i = 0; i < count; i++) {
    uint64_t len = offsets[i + 1] - offsets[i];
    c += len > tile && len <= limit;
  }
  cl_ulong *list = clsort__malloc(ctx, 3 * (c + 1) * sizeof *list);
  if (!list) return NULL;
  size_t at = 0, groups = 0;
  *longest = 0;
  for (size_t i = 0; i < count; i++) {
    uint64_t len = offsets[i + 1] - offsets[i];
    if (len <= tile || len > limit) continue;
    list[at++] = offsets[i];
    list[at++] = len;
    list[at++] = groups;
    groups += clsort__div_up((size_t)len, per_group);
    *longest = clsort__max(*longest, (size_t)len);
  }
  list[at] = list[at + 1] = 0;
  list[at + 2] = groups;
  *segs = (cl_uint)c;
  return list;
}

clsort_status clsort__long_merge_prepare(clsort_context *ctx, const clsort__sort_job *job,
                                         const uint64_t *offsets, size_t count, size_t tile,
                                         size_t limit, clsort__long_merge *out) {
  out->groups = 0;
  out->tile = tile;
  RETURN_IF(count > UINT32_MAX, CLSORT_ERROR_TOO_LARGE, "%zu segments: at most 2^32 - 1 are merged",
            count);
  size_t per_group = ctx->tuning.wg_size * ITEMS, longest;
  cl_ulong *list =
      make_list(ctx, offsets, count, tile, limit, per_group, &out->count, &longest);
  RETURN_IF(!list, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the list of long segments");
  size_t bytes = 3 * (out->count + 1) * sizeof *list, groups = (size_t)list[3 * out->count + 2];
  /* Passes until a run holds the longest segment, and an even number of
   * them, so that the last writes the caller's buffers (a pass whose run
   * holds every segment copies it). */
  out->passes = 0;
  for (size_t run = tile; run < longest; run *= 2) out->passes++;
  out->passes += out->passes % 2;
  size_t ks = clsort_type_size(job->type), vs = job->value_size;
  clsort_status st = CLSORT_SUCCESS;
  if (out->count > 0) {
    st = merge_kernel(ctx, job, &out->kernel);
    if (st == CLSORT_SUCCESS) st = clsort__scratch(ctx, SLOT_SORT_AUX1, bytes, &out->list);
    if (st == CLSORT_SUCCESS) st = clsort__scratch(ctx, SLOT_SEGMENT_KEYS, job->n * ks, &out->keys2);
    out->vals2 = out->keys2;
    if (st == CLSORT_SUCCESS && vs)
      st = clsort__scratch(ctx, SLOT_SEGMENT_VALUES, job->n * vs, &out->vals2);
    /* Blocking: the host list is freed on return. */
    if (st == CLSORT_SUCCESS)
      st = CL_CHECK(
          clEnqueueWriteBuffer(ctx->queue, out->list, CL_TRUE, 0, bytes, list, 0, NULL, NULL));
    if (st == CLSORT_SUCCESS) out->groups = groups;
  }
  free(list);
  return st;
}

clsort_status clsort__long_merge_run(clsort_context *ctx, const clsort__sort_job *job,
                                     const clsort__long_merge *m) {
  if (m->groups == 0) return CLSORT_SUCCESS;
  cl_mem k[2] = {job->keys_in, m->keys2};
  cl_mem v[2] = {job->value_size ? job->vals_in : job->keys_in, m->vals2};
  int kind = clsort__key_kind(job->type), desc = job->descending;
  size_t wg = ctx->tuning.wg_size;
  cl_ulong run = m->tile;
  for (unsigned p = 0; p < m->passes; p++, run *= 2) {
    clsort__arg args[] = {ARG(k[p % 2]), ARG(k[1 - p % 2]), ARG(v[p % 2]),
                          ARG(v[1 - p % 2]), ARG(m->list), ARG(m->count),
                          ARG(run),      ARG(kind),        ARG(desc)};
    FORWARD_IF_ERROR(clsort__launch(ctx, m->kernel, m->groups * wg, wg, 9, args, 0, NULL, NULL));
  }
  return CLSORT_SUCCESS;
}
