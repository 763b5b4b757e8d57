/* host_arrays.c: the blocking host-array forms of the primitives: the
 * caller's arrays as device buffers (in place on a CPU device when they
 * are aligned as it wants; else copied in to the context's staging
 * buffers and out at the end), then the device form. Everything that can
 * fail for want of memory or a build does so before the first write of an
 * output, so a failure leaves the outputs untouched. */
#include "api/api.h"

#include <stdint.h>

clsort_status clsort__host_array_get(clsort_context *ctx, clsort__slot slot, const void *p,
                                     size_t bytes, bool input, bool in_place,
                                     clsort__host_array *a) {
  a->mem = NULL;
  a->wrapped = false;
  a->head = 0;
  if (in_place) {
    /* The device only reads an input: casting away const is safe. */
    FORWARD_IF_ERROR(clsort__wrap_host(ctx, (void *)(uintptr_t)p, bytes, &a->mem));
    a->wrapped = true;
    return CLSORT_SUCCESS;
  }
  FORWARD_IF_ERROR(clsort__scratch(ctx, slot, bytes, &a->mem));
  if (!input) return CLSORT_SUCCESS;
  /* Blocking, so the caller's memory is free again on return, whatever
   * happens next. */
  return CL_CHECK(clEnqueueWriteBuffer(ctx->queue, a->mem, CL_TRUE, 0, bytes, p, 0, NULL, NULL));
}

clsort_status clsort__host_array_get_at(clsort_context *ctx, const void *p, size_t bytes,
                                        clsort__host_array *a) {
  size_t align = clsort__wrap_alignment(ctx);
  a->mem = NULL;
  a->wrapped = false;
  a->head = align ? (uintptr_t)p % align : 0;
  /* The device only reads an input: casting away const is safe. */
  FORWARD_IF_ERROR(clsort__wrap_host(ctx, (void *)((uintptr_t)p - a->head), a->head + bytes,
                                     &a->mem));
  a->wrapped = true;
  return CLSORT_SUCCESS;
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

clsort_status clsort__host_array_put(clsort_context *ctx, const clsort__host_array *a, void *p,
                                     size_t bytes) {
  if (!a->wrapped)
    return CL_CHECK(clEnqueueReadBuffer(ctx->queue, a->mem, CL_TRUE, 0, bytes, p, 0, NULL, NULL));
  return map_back(ctx, a->mem, a->head, bytes);
}

void clsort__host_array_release(clsort__host_array *a) {
  if (a->wrapped && a->mem) clReleaseMemObject(a->mem);
  a->mem = NULL;
  a->wrapped = false;
}

/* Whether every array is aligned to its elements. */
static bool aligned_to_elements(const void *const *ps, const size_t *elem, size_t count) {
  for (size_t i = 0; i < count; i++)
    if ((uintptr_t)ps[i] % elem[i] != 0) return false;
  return true;
}

bool clsort__host_arrays_at_ok(const clsort_context *ctx, const void *const *ps,
                               const size_t *bytes, const size_t *elem, size_t count) {
  size_t align = clsort__wrap_alignment(ctx);
  if (!align || !aligned_to_elements(ps, elem, count)) return false;
  for (size_t i = 0; i < count; i++) {
    size_t hi = (uintptr_t)ps[i] % align;
    for (size_t j = 0; j < i; j++) {
      size_t hj = (uintptr_t)ps[j] % align;
      if (clsort__ranges_overlap((const char *)ps[i] - hi, hi + bytes[i],
                                 (const char *)ps[j] - hj, hj + bytes[j]))
        return false;
    }
  }
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
  /* Staged, the scan runs in place in the staging buffer; used in place,
   * it reads the caller's input and writes the caller's output. Arrays
   * aligned only to their elements are used in place from the aligned
   * address before them (`at`) by the CPU shape, which adds the origins
   * (the narrow types: their widening and narrowing kernels). */
  size_t es = clsort_type_size(type);
  const void *arrays[2] = {input, output};
  size_t sizes[2] = {bytes, bytes}, elems[2] = {es, es};
  bool wrap = clsort__can_wrap(ctx, input) && clsort__can_wrap(ctx, output);
  bool at = !wrap && clsort__host_arrays_at_ok(ctx, arrays, sizes, elems, output == input ? 1 : 2);
  clsort__host_array in, out = {NULL, false, 0};
  clsort_status st =
      at ? clsort__host_array_get_at(ctx, input, bytes, &in)
         : clsort__host_array_get(ctx, SLOT_HOST_IN, input, bytes, true, wrap, &in);
  if (st == CLSORT_SUCCESS && (wrap || at) && output != input)
    st = at ? clsort__host_array_get_at(ctx, output, bytes, &out)
            : clsort__host_array_get(ctx, SLOT_HOST_OUT, output, bytes, false, true, &out);
  cl_mem dst = out.mem ? out.mem : in.mem;
  size_t dst_at = (out.mem ? out.head : in.head) / es;
  if (st == CLSORT_SUCCESS)
    st = at ? clsort__scan_at(ctx, type, kind, in.mem, in.head / es, dst, dst_at, n)
            : clsort__scan(ctx, type, kind, in.mem, dst, n);
  if (st == CLSORT_SUCCESS) st = clsort__host_array_put(ctx, out.mem ? &out : &in, output, bytes);
  st = finish(ctx, st);
  clsort__host_array_release(&out);
  clsort__host_array_release(&in);
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
   * (scan_host). */
  size_t bytes = n * size;
  bool wrap = clsort__can_wrap(ctx, input);
  bool at = n > 0 && !wrap && clsort__host_arrays_at_ok(ctx, &input, &bytes, &size, 1);
  clsort__host_array in = {NULL, false, 0}, out;
  clsort_status st = clsort__host_array_get(ctx, SLOT_HOST_OUT, NULL, size, false, false, &out);
  if (st == CLSORT_SUCCESS && n > 0)
    st = at ? clsort__host_array_get_at(ctx, input, bytes, &in)
            : clsort__host_array_get(ctx, SLOT_HOST_IN, input, bytes, true, wrap, &in);
  if (st == CLSORT_SUCCESS)
    st = at ? clsort__reduce_at(ctx, type, op, in.mem, in.head / size, n, out.mem)
            : clsort__reduce(ctx, type, op, in.mem, n, out.mem);
  if (st == CLSORT_SUCCESS) st = clsort__host_array_put(ctx, &out, result, size);
  st = finish(ctx, st);
  clsort__host_array_release(&in);
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
  if (n == 0) {
    *count = 0;
    return CLSORT_SUCCESS;
  }
  size_t bytes = n * element_size;
  bool wrap = clsort__can_wrap(ctx, input) && clsort__can_wrap(ctx, flags) &&
              clsort__can_wrap(ctx, output);
  /* As the scan's (scan_host): in place from the aligned addresses before
   * them, where the CPU shape adds the origins. */
  const void *arrays[3] = {input, flags, output};
  size_t sizes[3] = {bytes, n, bytes}, elems[3] = {element_size, 1, element_size};
  bool at = !wrap && clsort__host_arrays_at_ok(ctx, arrays, sizes, elems, 3);
  clsort__host_array in = {NULL, false, 0}, fl = {NULL, false, 0}, out = {NULL, false, 0}, cnt;
  cl_ulong kept = 0;
  clsort_status st =
      at ? clsort__host_array_get_at(ctx, input, bytes, &in)
         : clsort__host_array_get(ctx, SLOT_HOST_IN, input, bytes, true, wrap, &in);
  if (st == CLSORT_SUCCESS)
    st = at ? clsort__host_array_get_at(ctx, flags, n, &fl)
            : clsort__host_array_get(ctx, SLOT_HOST_AUX, flags, n, true, wrap, &fl);
  if (st == CLSORT_SUCCESS)
    st = at ? clsort__host_array_get_at(ctx, output, bytes, &out)
            : clsort__host_array_get(ctx, SLOT_HOST_OUT, output, bytes, false, wrap, &out);
  if (st == CLSORT_SUCCESS)
    st = clsort__host_array_get(ctx, SLOT_HOST_COUNT, NULL, sizeof kept, false, false, &cnt);
  size_t origins[3] = {in.head / element_size, fl.head, out.head / element_size};
  if (st == CLSORT_SUCCESS)
    st = at ? clsort__select_cpu(ctx, element_size, split, in.mem, fl.mem, out.mem, n, cnt.mem,
                                 origins)
            : clsort__select(ctx, element_size, split, in.mem, fl.mem, out.mem, n, cnt.mem);
  if (st == CLSORT_SUCCESS) st = clsort__host_array_put(ctx, &cnt, &kept, sizeof kept);
  /* Compact fills only the first `kept` elements; leave the rest alone
   * (in place, the device writes no more either). */
  size_t written = split ? n : (size_t)kept;
  if (st == CLSORT_SUCCESS && written)
    st = clsort__host_array_put(ctx, &out, output, written * element_size);
  if (st == CLSORT_SUCCESS) *count = (size_t)kept;
  st = finish(ctx, st);
  clsort__host_array_release(&out);
  clsort__host_array_release(&fl);
  clsort__host_array_release(&in);
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
  /* As the scan's (scan_host): in place from the aligned addresses before
   * them, where the CPU shape adds the origins. */
  bool wrap = clsort__can_wrap(ctx, buckets) && clsort__can_wrap(ctx, offsets);
  const void *arrays[2] = {buckets, offsets};
  size_t sizes[2] = {n * sizeof(cl_uint), table_bytes}, elems[2] = {sizeof(cl_uint), os};
  bool at = !wrap && clsort__host_arrays_at_ok(ctx, arrays, sizes, elems, 2);
  clsort__host_array in, out = {NULL, false, 0};
  clsort_status st =
      at ? clsort__host_array_get_at(ctx, buckets, sizes[0], &in)
         : clsort__host_array_get(ctx, SLOT_HOST_IN, buckets, sizes[0], true, wrap, &in);
  if (st == CLSORT_SUCCESS)
    st = at ? clsort__host_array_get_at(ctx, offsets, table_bytes, &out)
            : clsort__host_array_get(ctx, SLOT_HOST_OUT, offsets, table_bytes, false, wrap, &out);
  if (st == CLSORT_SUCCESS)
    st = clsort__bucket_offsets(ctx, in.mem, in.head / sizeof(cl_uint), n, num_buckets,
                                tile_size, offset_type, out.mem, out.head / os);
  if (st == CLSORT_SUCCESS) st = clsort__host_array_put(ctx, &out, offsets, table_bytes);
  st = finish(ctx, st);
  clsort__host_array_release(&out);
  clsort__host_array_release(&in);
  return st;
}

clsort_status clsort_bucket_offsets(clsort_context *ctx, const unsigned *buckets, size_t n,
                                    unsigned num_buckets, size_t tile_size,
                                    clsort_type offset_type, void *offsets) {
  return LOCKED(ctx, bucket_offsets_host(ctx, buckets, n, num_buckets, tile_size, offset_type,
                                         offsets));
}
