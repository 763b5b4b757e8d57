/* segmented.c: clsort_segmented_sort and its buffer form. The offsets are
 * checked and planned on the host: every segment up to a tile goes to the
 * packed sort (GPU shapes) or the segmented small sort (one launch for all
 * of them, stable); each longer one is copied out, sorted by a whole-array
 * sort and copied back; or all segments at once (see choose_path). */
#include "api/api.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A segmented sort is stable: only the stable sorts may take the long
 * segments. The small sort compares whole keys. */
static clsort_status check_segmented_options(const clsort_context *ctx, clsort_type type,
                                             const clsort_options *o) {
  return clsort__check_op_options(ctx, type, o,
                                  (1u << CLSORT_AUTO) | (1u << CLSORT_RADIX) | (1u << CLSORT_MERGE),
                                  "the segmented sort (stable)");
}

/* What the offsets' check learns on its way, so that planning needs no
 * second pass over millions of offsets: the longest segment, and the
 * length that every segment but the last has (the last at most that),
 * or 0. */
typedef struct seg_facts {
  uint64_t longest, equal;
} seg_facts;

/* One share of the pass over the offsets: entries [lo, hi) of the
 * num_segments - 1 whole segments before the last. */
#define MAX_SHARES 64
typedef struct offsets_pass {
  const uint64_t *offsets;
  size_t count;
  uint64_t first;
  uint64_t longest[MAX_SHARES], down[MAX_SHARES], other[MAX_SHARES];
} offsets_pass;

/* Without an exit or a branch, which the compiler vectorizes. */
static void pass_share(void *arg, unsigned t, unsigned shares) {
  offsets_pass *p = arg;
  const uint64_t *offsets = p->offsets;
  size_t lo = p->count * t / shares, hi = p->count * (t + 1) / shares;
  uint64_t longest = 0, down = 0, other = 0, first = p->first;
  for (size_t i = lo; i < hi; i++) {
    uint64_t len = offsets[i + 1] - offsets[i];
    down |= offsets[i + 1] < offsets[i];
    longest = len > longest ? len : longest;
    other |= len ^ first;
  }
  p->longest[t] = longest;
  p->down[t] = down;
  p->other[t] = other;
}

/* The offsets' contract, with the first entry that breaks it. */
static clsort_status check_offsets(clsort_context *ctx, const uint64_t *offsets,
                                   size_t num_segments, size_t n, seg_facts *facts) {
  RETURN_IF(!offsets, CLSORT_ERROR_INVALID_ARGUMENT, "offsets must not be NULL");
  RETURN_IF(offsets[0] != 0, CLSORT_ERROR_INVALID_ARGUMENT,
            "offsets[0] is %llu; the first segment must start at 0",
            (unsigned long long)offsets[0]);
  /* One pass, on the context's host threads when there are many offsets:
   * the GPU waits for it, and on one thread 2^20 offsets (8 MB) cost the
   * call more than the GPU's sort of their segments of 64 keys (H100, 2^26
   * keys: 2.04 ms in all, 0.54 ms of it the sort's one launch). The first
   * decreasing entry is looked for only when there is one. */
  offsets_pass pass = {offsets, num_segments ? num_segments - 1 : 0,
                       num_segments ? offsets[1] - offsets[0] : 0, {0}, {0}, {0}};
  unsigned shares = (unsigned)clsort__min(clsort__min(clsort__host_thread_count(ctx), MAX_SHARES),
                                          clsort__max(1, pass.count >> 16));
  clsort__parallel(ctx, shares, pass_share, &pass);
  uint64_t longest = 0, down = 0, other = 0, first = pass.first;
  for (unsigned t = 0; t < shares; t++) {
    longest = pass.longest[t] > longest ? pass.longest[t] : longest;
    down |= pass.down[t];
    other |= pass.other[t];
  }
  uint64_t last = num_segments ? offsets[num_segments] - offsets[num_segments - 1] : 0;
  if (num_segments) down |= offsets[num_segments] < offsets[num_segments - 1];
  for (size_t i = 0; down && i < num_segments; i++)
    RETURN_IF(offsets[i + 1] < offsets[i], CLSORT_ERROR_INVALID_ARGUMENT,
              "offsets decrease at entry %zu (%llu after %llu)", i + 1,
              (unsigned long long)offsets[i + 1], (unsigned long long)offsets[i]);
  facts->longest = last > longest ? last : longest;
  facts->equal = other == 0 && last <= first ? first : 0;
  RETURN_IF(offsets[num_segments] != n, CLSORT_ERROR_INVALID_ARGUMENT,
            "offsets[num_segments] is %llu, not n (%zu)", (unsigned long long)offsets[num_segments],
            n);
  return CLSORT_SUCCESS;
}

/* The longest segment the small sort takes for this job: the bitonic
 * tile (the stable one with values), or on CPUs a serial sort's limit
 * (clsort__segment_limit). */
static size_t small_limit(const clsort_context *ctx, const clsort__sort_job *job) {
  clsort__sort_job small = *job;
  small.stable = job->value_size != 0;
  return clsort__segment_limit(ctx, &small);
}

/* All segments of 2 up to `limit` elements, as [begin, end) cl_ulong
 * pairs, copied to the device; *count receives their number. */
static clsort_status upload_small(clsort_context *ctx, const uint64_t *offsets, size_t num_segments,
                                  size_t limit, cl_mem *list, size_t *count) {
  size_t c = 0;
  for (size_t i = 0; i < num_segments; i++) {
    uint64_t len = offsets[i + 1] - offsets[i];
    c += len >= 2 && len <= limit;
  }
  *count = c;
  if (c == 0) return CLSORT_SUCCESS;
  size_t bytes = 2 * c * sizeof(cl_ulong);
  cl_ulong *table = clsort__malloc(ctx, bytes);
  RETURN_IF(!table, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the segment list");
  size_t at = 0;
  for (size_t i = 0; i < num_segments; i++) {
    uint64_t len = offsets[i + 1] - offsets[i];
    if (len < 2 || len > limit) continue;
    table[at++] = offsets[i];
    table[at++] = offsets[i + 1];
  }
  clsort_status st = clsort__scratch(ctx, SLOT_SEGMENT_LIST, bytes, list);
  /* Blocking: the table is freed on return. */
  if (st == CLSORT_SUCCESS)
    st = CL_CHECK(clEnqueueWriteBuffer(ctx->queue, *list, CL_TRUE, 0, bytes, table, 0, NULL, NULL));
  free(table);
  return st;
}

/* Segment lengths, longest first (qsort). */
typedef struct seg {
  size_t first, len;
} seg;
static int longer_first(const void *a, const void *b) {
  size_t x = ((const seg *)a)->len, y = ((const seg *)b)->len;
  return (x < y) - (x > y);
}

/* Each segment longer than `limit`: copied to scratch, sorted there by
 * the algorithm the options name, copied back; the longest first, so
 * that the first sort takes all the scratch that any of them needs (and
 * a caller's scratch that is too small fails before anything is
 * written). */
static clsort_status sort_large(clsort_context *ctx, const clsort_options *o, clsort__sort_job job,
                                const uint64_t *offsets, size_t num_segments, size_t limit) {
  size_t ks = clsort_type_size(job.type), vs = job.value_size, count = 0;
  for (size_t i = 0; i < num_segments; i++) count += offsets[i + 1] - offsets[i] > limit;
  if (count == 0) return CLSORT_SUCCESS;
  seg *segs = clsort__malloc(ctx, count * sizeof *segs);
  RETURN_IF(!segs, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the list of long segments");
  count = 0;
  for (size_t i = 0; i < num_segments; i++)
    if (offsets[i + 1] - offsets[i] > limit)
      segs[count++] = (seg){(size_t)offsets[i], (size_t)(offsets[i + 1] - offsets[i])};
  qsort(segs, count, sizeof *segs, longer_first);
  cl_mem keys = job.keys_in, vals = job.vals_in, sk, sv = NULL;
  /* The job's arrays may be a caller's used in place from their origins. */
  size_t kat = job.keys_at, vat = job.vals_at;
  clsort_status st = clsort__scratch(ctx, SLOT_SEGMENT_KEYS, segs[0].len * ks, &sk);
  if (st == CLSORT_SUCCESS && vs)
    st = clsort__scratch(ctx, SLOT_SEGMENT_VALUES, segs[0].len * vs, &sv);
  for (size_t i = 0; st == CLSORT_SUCCESS && i < count; i++) {
    size_t first = segs[i].first, len = segs[i].len;
    st = CL_CHECK(clEnqueueCopyBuffer(ctx->queue, keys, sk, (kat + first) * ks, 0, len * ks, 0,
                                      NULL, NULL));
    if (st == CLSORT_SUCCESS && vs)
      st = CL_CHECK(clEnqueueCopyBuffer(ctx->queue, vals, sv, (vat + first) * vs, 0, len * vs, 0,
                                        NULL, NULL));
    clsort__sort_job one = job;
    one.n = len;
    one.keys_in = one.keys_out = sk;
    one.vals_in = one.vals_out = sv;
    one.keys_at = one.vals_at = 0;
    if (st == CLSORT_SUCCESS) st = clsort__dispatch_sort(ctx, o, &one);
    if (st == CLSORT_SUCCESS)
      st = CL_CHECK(clEnqueueCopyBuffer(ctx->queue, sk, keys, 0, (kat + first) * ks, len * ks, 0,
                                        NULL, NULL));
    if (st == CLSORT_SUCCESS && vs)
      st = CL_CHECK(clEnqueueCopyBuffer(ctx->queue, sv, vals, 0, (vat + first) * vs, len * vs, 0,
                                        NULL, NULL));
  }
  free(segs);
  return st;
}

/* The paths of a call: every segment at once (two whole-array radix
 * sorts), or the short segments packed into tiles (segment_tiles.c, GPU
 * shapes) and the long ones up to MERGED keys merged in passes confined
 * to each segment (segment_merge.c), or each short one in its own
 * work-group (the small sort); longer ones one after another. */
typedef enum seg_path { PATH_GLOBAL, PATH_PACKED, PATH_SMALL } seg_path;

/* The longest segment that the packed path merges; longer ones get a
 * whole-array sort each, whose passes over 2^20 keys and more run at the
 * device's full width. */
#define MERGED ((size_t)1 << 20)

/* GPU shapes pack the segments up to the block sort's tile (a few
 * thousand keys), merge those up to MERGED keys, and sort each longer one
 * on its own, unless there are more than 64 of those: then every segment
 * at once (on the H100, 2^26 u32 keys, `clsort bench --ops segmented`:
 * 1024 segments of 65536 took 5.7 ms at once against 67.2 ms one after
 * another, before the merges came). CPU shapes sort every short segment
 * by a serial loop (merge_cpu.cl: keys alone by the introsort, values by
 * a stable merge sort), which wins there (PoCL, 2 shared cores: 2^20 u32
 * keys in segments of 64 took 63 ms that way, 291 ms at once; with
 * values, the stable bitonic tile, a work-group per segment, had lost to
 * the global path, 1465 against 315 ms). GPU shapes sort values by that
 * stable tile, so they take the global path for more than 64 short
 * segments with values. CLSORT_SEGMENTED=
 * global, packed or split (environment) forces a path, to measure them
 * (packed falls back to split in CPU shapes); packed-split packs the
 * short segments and sorts every long one on its own. */
static seg_path choose_path(const clsort_context *ctx, const clsort__sort_job *job,
                            const uint64_t *offsets, size_t num_segments,
                            const seg_facts *facts, size_t limit, size_t tile) {
  bool stable_tile = job->value_size != 0 && !ctx->tuning.cpu_shape;
  bool can_global = num_segments <= UINT32_MAX && job->n >= 2;
  const char *force = getenv("CLSORT_SEGMENTED");
  if (force && strcmp(force, "global") == 0 && can_global) return PATH_GLOBAL;
  if (force && strcmp(force, "split") == 0) return PATH_SMALL;
  if (force && strncmp(force, "packed", 6) == 0) return tile ? PATH_PACKED : PATH_SMALL;
  if (tile && facts->longest <= MERGED) return PATH_PACKED;
  size_t small = 0, long_ = 0;
  for (size_t i = 0; i < num_segments; i++) {
    uint64_t len = offsets[i + 1] - offsets[i];
    small += len >= 2 && len <= limit;
    long_ += len > MERGED;
  }
  if (tile) return long_ > 64 && can_global ? PATH_GLOBAL : PATH_PACKED;
  return can_global && stable_tile && small > 64 ? PATH_GLOBAL : PATH_SMALL;
}

/* Whether the host form can use the keys (and values) in place from the
 * aligned addresses before them (job->keys_at, vals_at): the CPU shape's
 * path of short segments, whose serial sorts and long segments' copies
 * add the origins. The global path takes none: those calls stage. */
static bool takes_origins(const clsort_context *ctx, const clsort__sort_job *job,
                          const uint64_t *offsets, size_t num_segments, const seg_facts *facts) {
  if (!ctx->tuning.cpu_shape) return false;
  size_t limit = small_limit(ctx, job), tile = clsort__packed_tile(ctx, job);
  return choose_path(ctx, job, offsets, num_segments, facts, limit, tile) == PATH_SMALL;
}

/* Both forms end here, the keys (and values) on the device: the short
 * segments' list (or plan) is made first and the long segments sorted
 * next, so that scratch that cannot be had fails the call before it
 * writes. */
static clsort_status run_segments(clsort_context *ctx, const clsort_options *o,
                                  const clsort__sort_job *job, const uint64_t *offsets,
                                  size_t num_segments, const seg_facts *facts) {
  size_t limit = small_limit(ctx, job), tile = clsort__packed_tile(ctx, job), count = 0;
  seg_path path = choose_path(ctx, job, offsets, num_segments, facts, limit, tile);
  if (path == PATH_GLOBAL) return clsort__sort_segments_global(ctx, job, offsets, num_segments);
  cl_mem list = NULL;
  clsort__packed packed;
  clsort__long_merge merged;
  if (path == PATH_PACKED) {
    const char *force = getenv("CLSORT_SEGMENTED");
    size_t merge_limit = force && strcmp(force, "packed-split") == 0 ? tile : MERGED;
    FORWARD_IF_ERROR(clsort__packed_prepare(ctx, job, offsets, num_segments,
                                            (size_t)facts->equal, merge_limit, &packed));
    if (facts->longest > packed.runs)
      FORWARD_IF_ERROR(clsort__long_merge_prepare(ctx, job, offsets, num_segments, packed.runs,
                                                  merge_limit, &merged));
    limit = merge_limit;
  }
  clsort__sort_job small = *job;
  small.stable = job->value_size != 0;
  if (path == PATH_SMALL) {
    FORWARD_IF_ERROR(upload_small(ctx, offsets, num_segments, limit, &list, &count));
    /* Its kernel and scratch before the long segments write. */
    if (count) FORWARD_IF_ERROR(clsort__segments_prepare(ctx, &small));
  }
  /* AUTO would pick the unstable bitonic sort for short long segments. */
  clsort_options stable = *o;
  stable.flags |= CLSORT_STABLE;
  if (facts->longest > limit)
    FORWARD_IF_ERROR(sort_large(ctx, &stable, *job, offsets, num_segments, limit));
  if (path == PATH_PACKED) {
    FORWARD_IF_ERROR(clsort__packed_run(ctx, job, &packed));
    return facts->longest > packed.runs ? clsort__long_merge_run(ctx, job, &merged)
                                         : CLSORT_SUCCESS;
  }
  return count ? clsort__sort_segments(ctx, &small, list, count) : CLSORT_SUCCESS;
}

/* The checks both forms share, in the documented order. */
static clsort_status check_call(clsort_context *ctx, clsort_type type, const void *values,
                                size_t value_size, size_t n, const uint64_t *offsets,
                                size_t num_segments, const clsort_options *o, seg_facts *facts) {
  FORWARD_IF_ERROR(check_segmented_options(ctx, type, o));
  RETURN_IF(values && value_size != 4 && value_size != 8, CLSORT_ERROR_INVALID_ARGUMENT,
            "value_size %zu is not 4 or 8", value_size);
  RETURN_IF(!values && value_size != 0, CLSORT_ERROR_INVALID_ARGUMENT,
            "value_size is %zu but values is NULL", value_size);
  RETURN_IF(num_segments == SIZE_MAX, CLSORT_ERROR_INVALID_ARGUMENT,
            "num_segments + 1 offsets do not fit in memory");
  return check_offsets(ctx, offsets, num_segments, n, facts);
}

static clsort_status segmented_host(clsort_context *ctx, clsort_type type, void *keys, void *values,
                                    size_t value_size, size_t n, const uint64_t *offsets,
                                    size_t num_segments, const clsort_options *options) {
  const clsort_options *o = options ? options : &clsort__default_options;
  seg_facts facts;
  FORWARD_IF_ERROR(check_call(ctx, type, values, value_size, n, offsets, num_segments, o, &facts));
  RETURN_IF(n > 0 && !keys, CLSORT_ERROR_INVALID_ARGUMENT, "keys must not be NULL");
  size_t ks = clsort_type_size(type), vs = values ? value_size : 0;
  FORWARD_IF_ERROR(clsort__check_host_size(n, ks + vs));
  RETURN_IF(clsort__ranges_overlap(keys, n * ks, values, n * vs), CLSORT_ERROR_INVALID_ARGUMENT,
            "values overlaps keys");
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, ks));
  if (vs) FORWARD_IF_ERROR(clsort__check_size(ctx, n, vs));
  if (n == 0) return CLSORT_SUCCESS;
  clsort__sort_job job = clsort__make_job(type, n, o);
  job.value_size = vs;
  /* Keys and values as the sorts' (sort.c): from their origins where
   * every kernel of the path takes them (takes_origins). */
  const clsort__host_spec a[2] = {{keys, n * ks, ks, SLOT_HOST_IN, true},
                                  {values, n * vs, vs, SLOT_HOST_AUX, true}};
  clsort__host_group g;
  clsort_status st = clsort__host_arrays_get(
      ctx, vs ? 2 : 1, a, takes_origins(ctx, &job, offsets, num_segments, &facts), &g);
  clsort__job_on_host(&job, &g);
  if (st == CLSORT_SUCCESS) st = run_segments(ctx, o, &job, offsets, num_segments, &facts);
  if (st == CLSORT_SUCCESS) st = clsort__job_put(ctx, &job, &g, a, true);
  if (st != CLSORT_SUCCESS) clFinish(ctx->queue);
  clsort__host_group_release(&g);
  return st;
}

clsort_status clsort_segmented_sort(clsort_context *ctx, clsort_type type, void *keys, void *values,
                                    size_t value_size, size_t n, const uint64_t *offsets,
                                    size_t num_segments, const clsort_options *options) {
  return LOCKED(
      ctx, segmented_host(ctx, type, keys, values, value_size, n, offsets, num_segments, options));
}

static clsort_status segmented_buffer(clsort_context *ctx, clsort_type type, cl_mem keys,
                                      cl_mem values, size_t value_size, size_t n,
                                      const uint64_t *offsets, size_t num_segments,
                                      const clsort_options *options, cl_uint num_wait,
                                      const cl_event *wait_list, cl_event *event) {
  const clsort_options *o = options ? options : &clsort__default_options;
  seg_facts facts;
  FORWARD_IF_ERROR(check_call(ctx, type, values, value_size, n, offsets, num_segments, o, &facts));
  FORWARD_IF_ERROR(clsort__check_wait_list(num_wait, wait_list));
  size_t ks = clsort_type_size(type), vs = values ? value_size : 0;
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, ks));
  if (n > 0) {
    FORWARD_IF_ERROR(clsort__check_buffer(ctx, keys, "keys", n, ks, ACCESS_READ_WRITE));
    if (vs) FORWARD_IF_ERROR(clsort__check_buffer(ctx, values, "values", n, vs, ACCESS_READ_WRITE));
    RETURN_IF(keys == values, CLSORT_ERROR_INVALID_ARGUMENT,
              "keys and values must be separate buffers");
  }
  FORWARD_IF_ERROR(clsort__begin(ctx, num_wait, wait_list));
  clsort__sort_job job = clsort__make_job(type, n, o);
  job.value_size = vs;
  job.keys_in = job.keys_out = keys;
  job.vals_in = job.vals_out = values;
  if (n > 0) FORWARD_IF_ERROR(run_segments(ctx, o, &job, offsets, num_segments, &facts));
  return clsort__marker(ctx, event);
}

clsort_status clsort_segmented_sort_buffer(clsort_context *ctx, clsort_type type, cl_mem keys,
                                           cl_mem values, size_t value_size, size_t n,
                                           const uint64_t *offsets, size_t num_segments,
                                           const clsort_options *options, cl_uint num_wait,
                                           const cl_event *wait_list, cl_event *event) {
  return LOCKED(ctx, segmented_buffer(ctx, type, keys, values, value_size, n, offsets, num_segments,
                                      options, num_wait, wait_list, event));
}
