/* segment_merge.c: the long segments of the packed segmented sort. The
 * packed launch has sorted each long segment's pieces of a tile into runs
 * (segment_tiles.c); merge passes confined to each segment then double
 * the runs, every long segment of the call in the same launches, until
 * each segment is one run: a segment of L keys costs about log2(L / tile)
 * passes over its keys (one more to land in the caller's buffer), where
 * the global path sorted the whole array twice and the split path
 * launched a sort per segment. A pass is the merge sort's (merge.cl's
 * segmented variant): every tile's co-rank in a launch of its own, then
 * each group merges its tile through local memory with coalesced loads
 * and stores; the first version, a binary search and a serial merge per
 * work-item in global memory, ran at about 0.7 TB/s on the H100. */
#include "sorts/sorts.h"

#include <stdio.h>
#include <stdlib.h>

/* A long segment: where it starts, its length, its passes. */
typedef struct long_seg {
  size_t first, len;
  unsigned passes;
} long_seg;

static int longer_first(const void *x, const void *y) {
  size_t a = ((const long_seg *)x)->len, b = ((const long_seg *)y)->len;
  return (a < b) - (a > b);
}

/* The segments of (tile, limit] keys, longest first, each with the passes
 * it needs (runs of tile keys doubled until one holds it); *found receives
 * their number. NULL when host memory runs out. */
static long_seg *find_long(clsort_context *ctx, const uint64_t *offsets, size_t count, size_t tile,
                           size_t limit, size_t *found) {
  size_t c = 0;
  for (size_t i = 0; i < count; i++) {
    uint64_t len = offsets[i + 1] - offsets[i];
    c += len > tile && len <= limit;
  }
  long_seg *segs = clsort__malloc(ctx, (c ? c : 1) * sizeof *segs);
  if (!segs) return NULL;
  c = 0;
  for (size_t i = 0; i < count; i++) {
    uint64_t len = offsets[i + 1] - offsets[i];
    if (len <= tile || len > limit) continue;
    unsigned passes = 0;
    for (size_t run = tile; run < len; run *= 2) passes++;
    segs[c++] = (long_seg){(size_t)offsets[i], (size_t)len, passes};
  }
  qsort(segs, c, sizeof *segs, longer_first);
  *found = c;
  return segs;
}

clsort_status clsort__long_merge_prepare(clsort_context *ctx, const clsort__sort_job *job,
                                         const uint64_t *offsets, size_t count, size_t tile,
                                         size_t limit, clsort__long_merge *out) {
  out->groups = 0;
  out->tile = tile;
  RETURN_IF(count > UINT32_MAX, CLSORT_ERROR_TOO_LARGE, "%zu segments: at most 2^32 - 1 are merged",
            count);
  size_t c;
  long_seg *segs = find_long(ctx, offsets, count, tile, limit, &c);
  RETURN_IF(!segs, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the list of long segments");
  clsort__merge_kernels *k = &out->kernels;
  clsort_status built = c ? clsort__merge_kernels_for(ctx, job, tile, true, k) : CLSORT_SUCCESS;
  if (c == 0 || built != CLSORT_SUCCESS) {
    free(segs);
    return built;
  }
  size_t per_group = k->tile;
  /* An even number of passes, so that the last writes the caller's
   * buffers. Each segment takes the last of them, from an even one (its
   * keys are in the caller's buffer until then): one more than it needs
   * when their parities differ, which copies it. Longest first, the
   * segments of pass p are a prefix of the list. */
  out->passes = segs[0].passes + segs[0].passes % 2;
  out->longest = segs[0].len;
  if (out->passes > 64) free(segs);
  RETURN_IF(out->passes > 64, CLSORT_ERROR_TOO_LARGE, "%u merge passes: at most 64",
            (unsigned)out->passes);
  cl_ulong *list = clsort__malloc(ctx, 4 * (c + 1) * sizeof *list);
  if (!list) free(segs);
  RETURN_IF(!list, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the list of long segments");
  size_t groups = 0;
  for (unsigned p = 0; p < out->passes; p++) out->active[p] = 0;
  for (size_t i = 0; i < c; i++) {
    unsigned start = (out->passes - segs[i].passes) & ~1u;
    list[4 * i] = segs[i].first;
    list[4 * i + 1] = segs[i].len;
    list[4 * i + 2] = groups;
    list[4 * i + 3] = start;
    groups += clsort__div_up(segs[i].len, per_group);
    for (unsigned p = start; p < out->passes; p++) out->active[p] = (cl_uint)(i + 1);
  }
  list[4 * c] = list[4 * c + 1] = list[4 * c + 3] = 0;
  list[4 * c + 2] = groups;
  for (unsigned p = 0; p < out->passes; p++)
    out->groups_at[p] = (size_t)list[4 * out->active[p] + 2];
  free(segs);
  size_t bytes = 4 * (c + 1) * sizeof *list;
  size_t ks = clsort_type_size(job->type), vs = job->value_size;
  clsort_status st = clsort__scratch(ctx, SLOT_SORT_AUX1, bytes, &out->list);
  if (st == CLSORT_SUCCESS)
    st = clsort__scratch(ctx, SLOT_SEGMENT_PARTS, groups * sizeof(cl_ulong), &out->parts);
  if (st == CLSORT_SUCCESS) st = clsort__scratch(ctx, SLOT_SEGMENT_KEYS, job->n * ks, &out->keys2);
  out->vals2 = out->keys2;
  if (st == CLSORT_SUCCESS && vs)
    st = clsort__scratch(ctx, SLOT_SEGMENT_VALUES, job->n * vs, &out->vals2);
  /* Blocking: the host list is freed on return. */
  if (st == CLSORT_SUCCESS)
    st = CL_CHECK(
        clEnqueueWriteBuffer(ctx->queue, out->list, CL_TRUE, 0, bytes, list, 0, NULL, NULL));
  if (st == CLSORT_SUCCESS) out->groups = groups;
  free(list);
  return st;
}

clsort_status clsort__long_merge_run(clsort_context *ctx, const clsort__sort_job *job,
                                     const clsort__long_merge *m) {
  if (m->groups == 0) return CLSORT_SUCCESS;
  cl_mem K[2] = {job->keys_in, m->keys2};
  cl_mem V[2] = {job->value_size ? job->vals_in : job->keys_in, m->vals2};
  cl_ulong tile = m->tile;
  for (cl_uint p = 0; p < m->passes; p++) {
    clsort__merge_io io = {.ka = K[p % 2],
                           .kb = K[p % 2],
                           .ko = K[1 - p % 2],
                           .va = V[p % 2],
                           .vb = V[p % 2],
                           .vo = V[1 - p % 2],
                           .parts = m->parts,
                           .nwhere = 4,
                           .kind = clsort__key_kind(job->type),
                           .desc = job->descending,
                           .write_keys = 1};
    clsort__arg where[] = {ARG(m->list), ARG(m->active[p]), ARG(p), ARG(tile)};
    io.where = where;
    FORWARD_IF_ERROR(clsort__merge_launch(ctx, &m->kernels, &io, m->groups_at[p], m->longest));
  }
  return CLSORT_SUCCESS;
}
