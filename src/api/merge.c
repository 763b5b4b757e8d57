/* merge.c: clsort_merge, clsort_merge_pairs and their buffer form: the
 * checks, the caller's arrays as device buffers, then the merge sort's
 * merge-path pass over one pair of runs (sorts/merge_sort.c). */
#include "api/api.h"

#include <stdint.h>

/* A merge runs the merge sort's pass (stable, whole keys): AUTO and
 * MERGE name it. */
static clsort_status check_merge_options(const clsort_context *ctx, clsort_type type,
                                         const clsort_options *o) {
  return clsort__check_op_options(ctx, type, o, (1u << CLSORT_AUTO) | (1u << CLSORT_MERGE),
                                  "a merge");
}

/* The sizes shared by both forms: na + nb must not wrap, value_size is 0
 * for keys alone, else 4 or 8. */
static clsort_status check_sizes(size_t na, size_t nb, size_t value_size, bool pairs) {
  RETURN_IF(na > SIZE_MAX - nb, CLSORT_ERROR_TOO_LARGE, "na (%zu) + nb (%zu) overflows", na, nb);
  if (pairs)
    RETURN_IF(value_size != 4 && value_size != 8, CLSORT_ERROR_INVALID_ARGUMENT,
              "value_size %zu is not 4 or 8", value_size);
  else
    RETURN_IF(value_size != 0, CLSORT_ERROR_INVALID_ARGUMENT,
              "value_size is %zu but there are no values", value_size);
  return CLSORT_SUCCESS;
}

/* --------------------------------------------------------- host arrays */

/* One host array of the merge. */
typedef struct side {
  const void *p;
  size_t bytes;
} side;

/* Two inputs in one staging slot, b after a, so that the kernel reads b
 * at element na of the same buffer. Blocking writes: the caller's memory
 * is free again on return. */
static clsort_status stage_two(clsort_context *ctx, clsort__slot slot, side a, side b,
                               cl_mem *out) {
  FORWARD_IF_ERROR(clsort__scratch(ctx, slot, a.bytes + b.bytes, out));
  if (a.bytes)
    FORWARD_IF_ERROR(
        CL_CHECK(clEnqueueWriteBuffer(ctx->queue, *out, CL_TRUE, 0, a.bytes, a.p, 0, NULL, NULL)));
  if (b.bytes)
    FORWARD_IF_ERROR(CL_CHECK(
        clEnqueueWriteBuffer(ctx->queue, *out, CL_TRUE, a.bytes, b.bytes, b.p, 0, NULL, NULL)));
  return CLSORT_SUCCESS;
}

/* The merge's arrays: the keys of a and b, their values, the outputs. */
typedef struct merge_arrays {
  side a, b, va, vb;
  void *out, *vout;
} merge_arrays;

/* No output may share a byte with an input or with the other output: the
 * kernel reads inputs after it has begun to write. */
static clsort_status check_overlaps(const merge_arrays *m, size_t out_bytes, size_t vout_bytes) {
  const side in[4] = {m->a, m->b, m->va, m->vb};
  static const char *const names[4] = {"a", "b", "a_values", "b_values"};
  for (int i = 0; i < 4; i++) {
    RETURN_IF(clsort__ranges_overlap(m->out, out_bytes, in[i].p, in[i].bytes),
              CLSORT_ERROR_INVALID_ARGUMENT, "out overlaps %s", names[i]);
    RETURN_IF(clsort__ranges_overlap(m->vout, vout_bytes, in[i].p, in[i].bytes),
              CLSORT_ERROR_INVALID_ARGUMENT, "out_values overlaps %s", names[i]);
  }
  RETURN_IF(clsort__ranges_overlap(m->out, out_bytes, m->vout, vout_bytes),
            CLSORT_ERROR_INVALID_ARGUMENT, "out_values overlaps out");
  return CLSORT_SUCCESS;
}

/* On a CPU device: every array used in place, however it is aligned to
 * its elements, by the CPU shape's merge, which adds their origins (a and
 * b of one allocation share a buffer). Outputs are mapped back only on
 * success; the kernel writes nothing else. */
static clsort_status merge_in_place(clsort_context *ctx, clsort__sort_job job,
                                    const void *const *all, const size_t *bytes,
                                    const size_t *elems, size_t na, size_t nb) {
  clsort__host_group g;
  FORWARD_IF_ERROR(clsort__host_group_get(ctx, 6, all, bytes, elems, &g));
  job.keys_out = g.mem[4];
  job.vals_out = g.mem[5];
  const clsort__merge_at at = {g.at[0], g.at[2], g.at[1], g.at[3], g.at[4], g.at[5]};
  clsort_status st =
      clsort__merge_two_cpu(ctx, &job, g.mem[0], g.mem[2], na, g.mem[1], g.mem[3], nb, &at);
  if (st == CLSORT_SUCCESS) st = clsort__host_group_put(ctx, &g, 5, elems[5], bytes[5]);
  if (st == CLSORT_SUCCESS) st = clsort__host_group_put(ctx, &g, 4, elems[4], bytes[4]);
  if (st != CLSORT_SUCCESS) clFinish(ctx->queue);
  clsort__host_group_release(&g);
  return st;
}

/* In place on a CPU device (merge_in_place); else a and b staged
 * together, the outputs staged apart. Everything is acquired before the
 * kernel writes, and the outputs are read back only on success. */
static clsort_status merge_in_core(clsort_context *ctx, clsort__sort_job job, const merge_arrays *m,
                                   size_t na, size_t nb) {
  size_t ks = clsort_type_size(job.type), vs = job.value_size, n = na + nb;
  bool pairs = vs != 0;
  const void *all[6] = {m->a.p, m->b.p, m->va.p, m->vb.p, m->out, m->vout};
  size_t ve = pairs ? vs : 1;
  size_t bytes[6] = {m->a.bytes, m->b.bytes, m->va.bytes, m->vb.bytes, n * ks, n * vs};
  size_t elems[6] = {ks, ks, ve, ve, ks, ve};
  if (clsort__host_group_ok(ctx, 6, all, elems))
    return merge_in_place(ctx, job, all, bytes, elems, na, nb);
  cl_mem A = NULL, VA = NULL, O = NULL, VO = NULL;
  size_t b_first = na;
  clsort_status st = stage_two(ctx, SLOT_HOST_IN, m->a, m->b, &A);
  if (st == CLSORT_SUCCESS && pairs) st = stage_two(ctx, SLOT_HOST_AUX, m->va, m->vb, &VA);
  if (st == CLSORT_SUCCESS) st = clsort__stage_in(ctx, SLOT_HOST_OUT, NULL, n * ks, &O);
  /* The sorts' value slot: a merge runs no sort that would need it. */
  if (st == CLSORT_SUCCESS && pairs)
    st = clsort__stage_in(ctx, SLOT_SORT_VALUES, NULL, n * vs, &VO);
  job.keys_out = O;
  job.vals_out = VO;
  if (st == CLSORT_SUCCESS) st = clsort__merge_two(ctx, &job, A, VA, na, A, VA, b_first, nb);
  if (st == CLSORT_SUCCESS && pairs) st = clsort__stage_out(ctx, VO, m->vout, n * vs);
  if (st == CLSORT_SUCCESS) st = clsort__stage_out(ctx, O, m->out, n * ks);
  if (st != CLSORT_SUCCESS) clFinish(ctx->queue);
  return st;
}

static clsort_status merge_host(clsort_context *ctx, clsort_type type, const merge_arrays *m,
                                size_t na, size_t nb, size_t vs, bool pairs,
                                const clsort_options *options) {
  const clsort_options *o = options ? options : &clsort__default_options;
  FORWARD_IF_ERROR(check_merge_options(ctx, type, o));
  FORWARD_IF_ERROR(check_sizes(na, nb, vs, pairs));
  size_t ks = clsort_type_size(type), n = na + nb;
  RETURN_IF(na > 0 && (!m->a.p || (pairs && !m->va.p)), CLSORT_ERROR_INVALID_ARGUMENT,
            "a%s must not be NULL when na > 0", pairs ? " and a_values" : "");
  RETURN_IF(nb > 0 && (!m->b.p || (pairs && !m->vb.p)), CLSORT_ERROR_INVALID_ARGUMENT,
            "b%s must not be NULL when nb > 0", pairs ? " and b_values" : "");
  RETURN_IF(n > 0 && (!m->out || (pairs && !m->vout)), CLSORT_ERROR_INVALID_ARGUMENT,
            "out%s must not be NULL when na + nb > 0", pairs ? " and out_values" : "");
  FORWARD_IF_ERROR(clsort__check_host_size(n, ks + vs));
  FORWARD_IF_ERROR(check_overlaps(m, n * ks, n * vs));
  /* No out-of-core path: the merge holds its inputs and output at once. */
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, ks));
  if (pairs) FORWARD_IF_ERROR(clsort__check_size(ctx, n, vs));
  if (n == 0) return CLSORT_SUCCESS;
  clsort__sort_job job = clsort__make_job(type, n, o);
  job.value_size = vs;
  return merge_in_core(ctx, job, m, na, nb);
}

clsort_status clsort_merge(clsort_context *ctx, clsort_type type, const void *a, size_t na,
                           const void *b, size_t nb, void *out, const clsort_options *options) {
  size_t ks = clsort_type_size(type);
  merge_arrays m = {{a, na * ks}, {b, nb * ks}, {NULL, 0}, {NULL, 0}, out, NULL};
  return LOCKED(ctx, merge_host(ctx, type, &m, na, nb, 0, false, options));
}

clsort_status clsort_merge_pairs(clsort_context *ctx, clsort_type type, const void *a,
                                 const void *a_values, size_t na, const void *b,
                                 const void *b_values, size_t nb, void *out, void *out_values,
                                 size_t value_size, const clsort_options *options) {
  size_t ks = clsort_type_size(type), vs = value_size == 4 || value_size == 8 ? value_size : 0;
  merge_arrays m = {{a, na * ks},        {b, nb * ks}, {a_values, na * vs},
                    {b_values, nb * vs}, out,          out_values};
  return LOCKED(ctx, merge_host(ctx, type, &m, na, nb, value_size, true, options));
}

/* ------------------------------------------------------------- buffers */

static clsort_status merge_buffer(clsort_context *ctx, clsort_type type, cl_mem a, cl_mem va,
                                  size_t na, cl_mem b, cl_mem vb, size_t nb, cl_mem out,
                                  cl_mem vout, size_t vs, const clsort_options *options,
                                  cl_uint num_wait, const cl_event *wait_list, cl_event *event) {
  const clsort_options *o = options ? options : &clsort__default_options;
  FORWARD_IF_ERROR(check_merge_options(ctx, type, o));
  FORWARD_IF_ERROR(clsort__check_wait_list(num_wait, wait_list));
  bool pairs = va || vb || vout;
  FORWARD_IF_ERROR(check_sizes(na, nb, vs, pairs));
  size_t ks = clsort_type_size(type), n = na + nb;
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, ks));
  if (na) FORWARD_IF_ERROR(clsort__check_buffer(ctx, a, "a", na, ks, ACCESS_READ));
  if (nb) FORWARD_IF_ERROR(clsort__check_buffer(ctx, b, "b", nb, ks, ACCESS_READ));
  if (n) FORWARD_IF_ERROR(clsort__check_buffer(ctx, out, "out", n, ks, ACCESS_WRITE));
  if (pairs) {
    if (na) FORWARD_IF_ERROR(clsort__check_buffer(ctx, va, "a_values", na, vs, ACCESS_READ));
    if (nb) FORWARD_IF_ERROR(clsort__check_buffer(ctx, vb, "b_values", nb, vs, ACCESS_READ));
    if (n) FORWARD_IF_ERROR(clsort__check_buffer(ctx, vout, "out_values", n, vs, ACCESS_WRITE));
  }
  if (n) {
    cl_mem ins[4] = {na ? a : NULL, nb ? b : NULL, na ? va : NULL, nb ? vb : NULL};
    for (int i = 0; i < 4; i++)
      RETURN_IF(ins[i] && (ins[i] == out || ins[i] == vout), CLSORT_ERROR_INVALID_ARGUMENT,
                "an output buffer of the merge is also one of its inputs");
    RETURN_IF(pairs && out == vout, CLSORT_ERROR_INVALID_ARGUMENT,
              "out and out_values must be separate buffers");
  }
  FORWARD_IF_ERROR(clsort__begin(ctx, num_wait, wait_list));
  clsort__sort_job job = clsort__make_job(type, n, o);
  job.value_size = vs;
  job.keys_out = out;
  job.vals_out = vout;
  if (n)
    FORWARD_IF_ERROR(clsort__merge_two(ctx, &job, na ? a : NULL, na ? va : NULL, na, nb ? b : NULL,
                                       nb ? vb : NULL, 0, nb));
  return clsort__marker(ctx, event);
}

clsort_status clsort_merge_buffer(clsort_context *ctx, clsort_type type, cl_mem a, cl_mem a_values,
                                  size_t na, cl_mem b, cl_mem b_values, size_t nb, cl_mem out,
                                  cl_mem out_values, size_t value_size,
                                  const clsort_options *options, cl_uint num_wait,
                                  const cl_event *wait_list, cl_event *event) {
  return LOCKED(ctx, merge_buffer(ctx, type, a, a_values, na, b, b_values, nb, out, out_values,
                                  value_size, options, num_wait, wait_list, event));
}
