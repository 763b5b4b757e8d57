/* host_arrays.c: a caller's host arrays as device buffers (in place on a
 * CPU device, else staged), and the blocking host-array forms of the
 * primitives on them. Everything that can fail for want of memory or a
 * build does so before the first write of an output, so a failure leaves
 * the outputs untouched. */
#include "api/api.h"

#include <stdint.h>

clsort_status clsort__stage_in(clsort_context *ctx, clsort__slot slot, const void *p,
                               size_t bytes, cl_mem *out) {
  FORWARD_IF_ERROR(clsort__scratch(ctx, slot, bytes, out));
  if (!p) return CLSORT_SUCCESS;
  /* Blocking, so the caller's memory is free again on return, whatever
   * happens next. */
  return CL_CHECK(clEnqueueWriteBuffer(ctx->queue, *out, CL_TRUE, 0, bytes, p, 0, NULL, NULL));
}

clsort_status clsort__stage_out(clsort_context *ctx, cl_mem mem, void *p, size_t bytes) {
  return CL_CHECK(clEnqueueReadBuffer(ctx->queue, mem, CL_TRUE, 0, bytes, p, 0, NULL, NULL));
}

/* A caller's array used in place, `bytes` at byte `offset` of mem: a
 * blocking map and unmap makes the device's writes visible in host memory
 * (on a CPU device they are there already: no copy). */
static clsort_status map_back(clsort_context *ctx, cl_mem mem, size_t offset, size_t bytes) {
  if (!bytes) return CLSORT_SUCCESS;
  cl_int err;
  void *mapped =
      clEnqueueMapBuffer(ctx->queue, mem, CL_TRUE, CL_MAP_READ, offset, bytes, 0, NULL, NULL, &err);
  FORWARD_IF_ERROR(CL_CHECK(err));
  return CL_CHECK(clEnqueueUnmapMemObject(ctx->queue, mem, mapped, 0, NULL, NULL));
}

/* Whether every array is aligned to its elements. */
static bool aligned_to_elements(const void *const *ps, const size_t *elem, size_t count) {
  for (size_t i = 0; i < count; i++)
    if ((uintptr_t)ps[i] % elem[i] != 0) return false;
  return true;
}

bool clsort__host_group_ok(const clsort_context *ctx, size_t count, const void *const *ps,
                           const size_t *elem) {
  return clsort__wrap_alignment(ctx) && count <= CLSORT__GROUP_MAX &&
         aligned_to_elements(ps, elem, count);
}

clsort_status clsort__host_group_get(clsort_context *ctx, size_t count, const void *const *ps,
                                     const size_t *bytes, const size_t *elem,
                                     clsort__host_group *g) {
  size_t align = clsort__wrap_alignment(ctx);
  /* Each array's region [lo, hi); `root` joins arrays into groups: an
   * array whose region overlaps an earlier group's joins it, and groups
   * that it bridges merge, until no two groups overlap. */
  uintptr_t lo[CLSORT__GROUP_MAX], hi[CLSORT__GROUP_MAX];
  size_t root[CLSORT__GROUP_MAX];
  for (size_t i = 0; i < count; i++) {
    uintptr_t p = (uintptr_t)ps[i];
    lo[i] = p - p % align;
    hi[i] = p + bytes[i];
    root[i] = i;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < count; i++)
      for (size_t j = 0; j < count; j++) {
        size_t ri = root[i], rj = root[j];
        if (!bytes[i] || !bytes[j] || ri == rj) continue;
        if (lo[ri] < hi[rj] && lo[rj] < hi[ri]) {
          size_t keep = ri < rj ? ri : rj, gone = ri < rj ? rj : ri;
          lo[keep] = lo[keep] < lo[gone] ? lo[keep] : lo[gone];
          hi[keep] = hi[keep] > hi[gone] ? hi[keep] : hi[gone];
          for (size_t k = 0; k < count; k++)
            if (root[k] == gone) root[k] = keep;
          changed = true;
        }
      }
  }
  g->owned_count = 0;
  g->in_place = true;
  clsort_status st = CLSORT_SUCCESS;
  for (size_t i = 0; i < count; i++) {
    g->mem[i] = NULL;
    g->at[i] = 0;
    if (!bytes[i] || st != CLSORT_SUCCESS) continue;
    size_t r = root[i];
    if (r == i) {
      /* The device reads inputs only: casting away const is safe. */
      st = clsort__wrap_host(ctx, (void *)lo[r], hi[r] - lo[r], &g->mem[i]);
      if (st == CLSORT_SUCCESS) g->owned[g->owned_count++] = g->mem[i];
    } else {
      g->mem[i] = g->mem[r]; /* r < i: made already */
    }
    g->at[i] = ((uintptr_t)ps[i] - lo[r]) / elem[i];
  }
  if (st != CLSORT_SUCCESS) clsort__host_group_release(g);
  return st;
}

clsort_status clsort__host_group_put(clsort_context *ctx, const clsort__host_group *g, size_t i,
                                     size_t elem, size_t bytes) {
  return map_back(ctx, g->mem[i], g->at[i] * elem, bytes);
}

void clsort__host_group_release(clsort__host_group *g) {
  for (size_t i = 0; i < g->owned_count; i++) clReleaseMemObject(g->owned[i]);
  g->owned_count = 0;
  for (size_t i = 0; i < CLSORT__GROUP_MAX; i++) g->mem[i] = NULL;
}

/* Whether every array with bytes is aligned as the device wants. */
static bool all_wrap(const clsort_context *ctx, size_t count, const clsort__host_spec *a) {
  for (size_t i = 0; i < count; i++)
    if (a[i].bytes && !clsort__can_wrap(ctx, a[i].p)) return false;
  return true;
}

/* Whether no two arrays share a byte. Arrays that do (an output over its
 * input) are staged, where the input is copied before anything is
 * written: a shared buffer would let the kernels read what they wrote. */
static bool apart(size_t count, const clsort__host_spec *a) {
  for (size_t i = 0; i < count; i++)
    for (size_t j = 0; j < i; j++)
      if (clsort__ranges_overlap(a[i].p, a[i].bytes, a[j].p, a[j].bytes)) return false;
  return true;
}

/* Each array with bytes wrapped whole: any kernel may take it. */
static clsort_status wrap_each(clsort_context *ctx, size_t count, const clsort__host_spec *a,
                               clsort__host_group *g) {
  clsort_status st = CLSORT_SUCCESS;
  for (size_t i = 0; i < count && st == CLSORT_SUCCESS; i++) {
    if (!a[i].bytes) continue;
    /* The device reads inputs only: casting away const is safe. */
    st = clsort__wrap_host(ctx, (void *)(uintptr_t)a[i].p, a[i].bytes, &g->mem[i]);
    if (st == CLSORT_SUCCESS) g->owned[g->owned_count++] = g->mem[i];
  }
  if (st != CLSORT_SUCCESS) clsort__host_group_release(g);
  return st;
}

/* Each array with bytes in its staging slot, the inputs copied in. */
static clsort_status stage_each(clsort_context *ctx, size_t count, const clsort__host_spec *a,
                                clsort__host_group *g) {
  g->in_place = false;
  for (size_t i = 0; i < count; i++)
    if (a[i].bytes)
      FORWARD_IF_ERROR(
          clsort__stage_in(ctx, a[i].slot, a[i].input ? a[i].p : NULL, a[i].bytes, &g->mem[i]));
  return CLSORT_SUCCESS;
}

/* The ways of clsort__host_arrays_get, in the order it tries them. */
typedef enum host_way { WAY_WRAP_EACH, WAY_GROUP, WAY_STAGE } host_way;

static host_way choose_way(const clsort_context *ctx, size_t count, const clsort__host_spec *a,
                           bool origins) {
  if (all_wrap(ctx, count, a)) return WAY_WRAP_EACH;
  const void *ps[CLSORT__GROUP_MAX];
  size_t elem[CLSORT__GROUP_MAX];
  for (size_t i = 0; i < count; i++) {
    ps[i] = a[i].p;
    elem[i] = a[i].elem;
  }
  if (origins && clsort__host_group_ok(ctx, count, ps, elem) && apart(count, a)) return WAY_GROUP;
  return WAY_STAGE;
}

bool clsort__host_arrays_in_place(const clsort_context *ctx, size_t count,
                                  const clsort__host_spec *a, bool origins) {
  return choose_way(ctx, count, a, origins) != WAY_STAGE;
}

clsort_status clsort__host_arrays_get(clsort_context *ctx, size_t count,
                                      const clsort__host_spec *a, bool origins,
                                      clsort__host_group *g) {
  const void *ps[CLSORT__GROUP_MAX];
  size_t bytes[CLSORT__GROUP_MAX], elem[CLSORT__GROUP_MAX];
  for (size_t i = 0; i < count; i++) {
    ps[i] = a[i].p;
    bytes[i] = a[i].bytes;
    elem[i] = a[i].elem;
    g->mem[i] = NULL;
    g->at[i] = 0;
  }
  g->owned_count = 0;
  g->in_place = true;
  switch (choose_way(ctx, count, a, origins)) {
    case WAY_WRAP_EACH:
      return wrap_each(ctx, count, a, g);
    case WAY_GROUP:
      return clsort__host_group_get(ctx, count, ps, bytes, elem, g);
    default:
      return stage_each(ctx, count, a, g);
  }
}

clsort_status clsort__host_arrays_put(clsort_context *ctx, const clsort__host_group *g,
                                      const clsort__host_spec *a, size_t i, size_t bytes) {
  if (g->in_place) return clsort__host_group_put(ctx, g, i, a[i].elem, bytes);
  /* a[i] is an output of the call: the caller's memory to write. */
  return clsort__stage_out(ctx, g->mem[i], (void *)(uintptr_t)a[i].p, bytes);
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
  size_t es = clsort_type_size(type), bytes = n * es;
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, es));
  /* In place, the scan reads the caller's input and writes the caller's
   * output, from their origins (the CPU shape adds them; the narrow types
   * in their widening and narrowing kernels). Staged, both share the
   * input's slot: the scan runs in place there. An output equal to the
   * input is one array. */
  const clsort__host_spec a[2] = {{input, bytes, es, SLOT_HOST_IN, true},
                                  {output, bytes, es, SLOT_HOST_IN, false}};
  size_t count = output == input ? 1 : 2, o = count - 1;
  clsort__host_group g;
  clsort_status st = clsort__host_arrays_get(ctx, count, a, true, &g);
  if (st == CLSORT_SUCCESS)
    st = g.in_place ? clsort__scan_at(ctx, type, kind, g.mem[0], g.at[0], g.mem[o], g.at[o], n)
                    : clsort__scan(ctx, type, kind, g.mem[0], g.mem[o], n);
  if (st == CLSORT_SUCCESS) st = clsort__host_arrays_put(ctx, &g, a, o, bytes);
  st = finish(ctx, st);
  clsort__host_group_release(&g);
  return st;
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
  /* The result is a few bytes: always staged. The input as the scan's
   * (scan_host); with n 0 there is none. */
  const clsort__host_spec a = {input, n * size, size, SLOT_HOST_IN, true};
  clsort__host_group g;
  cl_mem out;
  clsort_status st = clsort__host_arrays_get(ctx, 1, &a, true, &g);
  if (st == CLSORT_SUCCESS) st = clsort__stage_in(ctx, SLOT_HOST_OUT, NULL, size, &out);
  if (st == CLSORT_SUCCESS)
    st = g.in_place ? clsort__reduce_at(ctx, type, op, g.mem[0], g.at[0], n, out)
                    : clsort__reduce(ctx, type, op, g.mem[0], n, out);
  if (st == CLSORT_SUCCESS) st = clsort__stage_out(ctx, out, result, size);
  st = finish(ctx, st);
  clsort__host_group_release(&g);
  return st;
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
  RETURN_IF(clsort__ranges_overlap(output, n * element_size, input, n * element_size),
            CLSORT_ERROR_INVALID_ARGUMENT, "output overlaps input");
  if (n == 0) {
    *count = 0;
    return CLSORT_SUCCESS;
  }
  size_t bytes = n * element_size;
  /* As the scan's (scan_host); the count is staged. */
  const clsort__host_spec a[3] = {{input, bytes, element_size, SLOT_HOST_IN, true},
                                  {flags, n, 1, SLOT_HOST_AUX, true},
                                  {output, bytes, element_size, SLOT_HOST_OUT, false}};
  clsort__host_group g;
  cl_mem cnt;
  cl_ulong kept = 0;
  clsort_status st = clsort__host_arrays_get(ctx, 3, a, true, &g);
  if (st == CLSORT_SUCCESS) st = clsort__stage_in(ctx, SLOT_HOST_COUNT, NULL, sizeof kept, &cnt);
  if (st == CLSORT_SUCCESS)
    st = g.in_place ? clsort__select_cpu(ctx, element_size, split, g.mem[0], g.mem[1], g.mem[2],
                                         n, cnt, g.at)
                    : clsort__select(ctx, element_size, split, g.mem[0], g.mem[1], g.mem[2], n,
                                     cnt);
  if (st == CLSORT_SUCCESS) st = clsort__stage_out(ctx, cnt, &kept, sizeof kept);
  /* Compact fills only the first `kept` elements; leave the rest alone
   * (in place, the device writes no more either). */
  size_t written = split ? n : (size_t)kept;
  if (st == CLSORT_SUCCESS && written)
    st = clsort__host_arrays_put(ctx, &g, a, 2, written * element_size);
  if (st == CLSORT_SUCCESS) *count = (size_t)kept;
  st = finish(ctx, st);
  clsort__host_group_release(&g);
  return st;
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
  size_t table = clsort__div_up(n, tile_size) * num_buckets, os = clsort_type_size(offset_type);
  size_t table_bytes = table * os;
  /* As the scan's (scan_host): the kernels take both origins (0 when
   * staged). */
  const size_t bs = sizeof(cl_uint);
  const clsort__host_spec a[2] = {{buckets, n * bs, bs, SLOT_HOST_IN, true},
                                  {offsets, table_bytes, os, SLOT_HOST_OUT, false}};
  clsort__host_group g;
  clsort_status st = clsort__host_arrays_get(ctx, 2, a, true, &g);
  if (st == CLSORT_SUCCESS)
    st = clsort__bucket_offsets(ctx, g.mem[0], g.at[0], n, num_buckets, tile_size, offset_type,
                                g.mem[1], g.at[1]);
  if (st == CLSORT_SUCCESS) st = clsort__host_arrays_put(ctx, &g, a, 1, table_bytes);
  st = finish(ctx, st);
  clsort__host_group_release(&g);
  return st;
}

clsort_status clsort_bucket_offsets(clsort_context *ctx, const unsigned *buckets, size_t n,
                                    unsigned num_buckets, size_t tile_size,
                                    clsort_type offset_type, void *offsets) {
  return LOCKED(ctx, bucket_offsets_host(ctx, buckets, n, num_buckets, tile_size, offset_type,
                                         offsets));
}
