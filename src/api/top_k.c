/* top_k.c: clsort_top_k, clsort_select and their buffer forms: the checks,
 * the caller's arrays as device buffers, then the sampled path or the
 * radix select of sorts/top_k.c. */
#include "api/api.h"

#include <stdint.h>
#include <string.h>

/* Top-k and select run the radix select on whole keys; AUTO and RADIX
 * name it. The order they follow is the stable sort's, so CLSORT_STABLE
 * costs nothing. */
static clsort_status check_select_options(const clsort_context *ctx, clsort_type type,
                                          const clsort_options *o) {
  return clsort__check_op_options(ctx, type, o, (1u << CLSORT_AUTO) | (1u << CLSORT_RADIX),
                                  "top-k and select (a radix select)");
}

/* What both top-k forms share after the options: k against n, the index
 * size, outputs present. */
static clsort_status check_top_k(size_t n, size_t k, bool has_keys_out, bool has_indices,
                                 size_t index_size) {
  RETURN_IF(k > n, CLSORT_ERROR_INVALID_ARGUMENT, "k (%zu) exceeds n (%zu)", k, n);
  RETURN_IF(has_indices && index_size != 4 && index_size != 8, CLSORT_ERROR_INVALID_ARGUMENT,
            "index_size %zu is not 4 or 8", index_size);
  RETURN_IF(has_indices && index_size == 4 && n > UINT32_MAX, CLSORT_ERROR_TOO_LARGE,
            "n (%zu) does not fit 4-byte indices", n);
  RETURN_IF(k > 0 && !has_keys_out && !has_indices, CLSORT_ERROR_INVALID_ARGUMENT,
            "out_keys and indices are both NULL: top-k has nowhere to write");
  return CLSORT_SUCCESS;
}

/* The keys of a host-array call, as job->keys_in: on a CPU device in place,
 * as they are when aligned as it wants, else from the aligned address
 * before them when aligned to their elements (job->keys_at: the kernels
 * that read them add it); else staged (clsort__host_arrays_get). */
static clsort_status keys_on_device(clsort_context *ctx, clsort__sort_job *job, const void *keys,
                                    size_t bytes, clsort__host_group *g) {
  const clsort__host_spec a = {keys, bytes, clsort_type_size(job->type), SLOT_HOST_IN, true};
  FORWARD_IF_ERROR(clsort__host_arrays_get(ctx, 1, &a, true, g));
  job->keys_in = g->mem[0];
  job->keys_at = g->at[0];
  return CLSORT_SUCCESS;
}

static clsort_status top_k_host(clsort_context *ctx, clsort_type type, const void *keys, size_t n,
                                size_t k, void *out_keys, void *indices, size_t index_size,
                                const clsort_options *options) {
  const clsort_options *o = options ? options : &clsort__default_options;
  FORWARD_IF_ERROR(check_select_options(ctx, type, o));
  FORWARD_IF_ERROR(check_top_k(n, k, out_keys != NULL, indices != NULL, index_size));
  RETURN_IF(n > 0 && !keys, CLSORT_ERROR_INVALID_ARGUMENT, "keys must not be NULL");
  size_t ks = clsort_type_size(type), is = indices ? index_size : 0;
  FORWARD_IF_ERROR(clsort__check_host_size(n, ks + is));
  RETURN_IF(clsort__ranges_overlap(out_keys, k * ks, keys, n * ks), CLSORT_ERROR_INVALID_ARGUMENT,
            "out_keys overlaps keys");
  RETURN_IF(clsort__ranges_overlap(indices, k * is, keys, n * ks), CLSORT_ERROR_INVALID_ARGUMENT,
            "indices overlaps keys");
  RETURN_IF(clsort__ranges_overlap(indices, k * is, out_keys, k * ks),
            CLSORT_ERROR_INVALID_ARGUMENT, "indices overlaps out_keys");
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, ks + is));
  if (k == 0) return CLSORT_SUCCESS;
  clsort__sort_job job = clsort__make_job(type, n, o);
  job.value_size = is;
  /* The keys (array 0) and the outputs (1, 2), each used in place or
   * staged as clsort__host_arrays_get decides: every kernel and copy that
   * writes an output adds its origin (clsort__top_k_out). When all can be
   * in place they are one group, since their regions from the aligned
   * addresses before them may overlap; else the keys and the outputs are
   * taken apart, so that outputs a byte off their elements do not stage
   * the keys with them, nor such keys the outputs. */
  const clsort__host_spec a[3] = {{keys, n * ks, ks, SLOT_HOST_IN, true},
                                  {out_keys, out_keys ? k * ks : 0, ks, SLOT_HOST_OUT, false},
                                  {indices, k * is, is ? is : 1, SLOT_HOST_AUX, false}};
  bool together = clsort__host_arrays_in_place(ctx, 3, a, true);
  clsort__host_group g[2];
  g[1].owned_count = 0;
  clsort_status st = clsort__host_arrays_get(ctx, together ? 3 : 1, a, true, &g[0]);
  if (st == CLSORT_SUCCESS && !together)
    st = clsort__host_arrays_get(ctx, 2, a + 1, true, &g[1]);
  /* Where the outputs are: gout's arrays o and o + 1 (of the specs oa). */
  const clsort__host_group *gout = together ? &g[0] : &g[1];
  const clsort__host_spec *oa = together ? a : a + 1;
  size_t o_first = together ? 1 : 0;
  job.keys_in = g[0].mem[0];
  job.keys_at = g[0].at[0];
  if (st == CLSORT_SUCCESS) {
    const clsort__top_k_out dst = {gout->mem[o_first], gout->mem[o_first + 1],
                                   gout->at[o_first], gout->at[o_first + 1], gout->in_place};
    st = clsort__top_k(ctx, &job, g[0].mem[0], n, k, &dst);
  }
  if (st == CLSORT_SUCCESS && is)
    st = clsort__host_arrays_put(ctx, gout, oa, o_first + 1, k * is);
  if (st == CLSORT_SUCCESS && out_keys)
    st = clsort__host_arrays_put(ctx, gout, oa, o_first, k * ks);
  if (st != CLSORT_SUCCESS) clFinish(ctx->queue);
  clsort__host_group_release(&g[1]);
  clsort__host_group_release(&g[0]);
  return st;
}

clsort_status clsort_top_k(clsort_context *ctx, clsort_type type, const void *keys, size_t n,
                           size_t k, void *out_keys, void *indices, size_t index_size,
                           const clsort_options *options) {
  return LOCKED(ctx, top_k_host(ctx, type, keys, n, k, out_keys, indices, index_size, options));
}

static clsort_status top_k_buffer(clsort_context *ctx, clsort_type type, cl_mem keys, size_t n,
                                  size_t k, cl_mem out_keys, cl_mem indices, size_t index_size,
                                  const clsort_options *options, cl_uint num_wait,
                                  const cl_event *wait_list, cl_event *event) {
  const clsort_options *o = options ? options : &clsort__default_options;
  FORWARD_IF_ERROR(check_select_options(ctx, type, o));
  FORWARD_IF_ERROR(clsort__check_wait_list(num_wait, wait_list));
  FORWARD_IF_ERROR(check_top_k(n, k, out_keys != NULL, indices != NULL, index_size));
  size_t ks = clsort_type_size(type), is = indices ? index_size : 0;
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, ks + is));
  if (k > 0) {
    FORWARD_IF_ERROR(clsort__check_buffer(ctx, keys, "keys", n, ks, ACCESS_READ));
    if (out_keys)
      FORWARD_IF_ERROR(clsort__check_buffer(ctx, out_keys, "out_keys", k, ks, ACCESS_WRITE));
    if (indices)
      FORWARD_IF_ERROR(clsort__check_buffer(ctx, indices, "indices", k, is, ACCESS_WRITE));
    RETURN_IF(out_keys == keys || indices == keys || out_keys == indices,
              CLSORT_ERROR_INVALID_ARGUMENT, "keys, out_keys and indices must be separate buffers");
  }
  FORWARD_IF_ERROR(clsort__begin(ctx, num_wait, wait_list));
  clsort__sort_job job = clsort__make_job(type, n, o);
  job.value_size = is;
  /* The caller's buffers hold the outputs from their start. */
  const clsort__top_k_out dst = {out_keys, indices, 0, 0, false};
  FORWARD_IF_ERROR(clsort__top_k(ctx, &job, keys, n, k, &dst));
  return clsort__marker(ctx, event);
}

clsort_status clsort_top_k_buffer(clsort_context *ctx, clsort_type type, cl_mem keys, size_t n,
                                  size_t k, cl_mem out_keys, cl_mem indices, size_t index_size,
                                  const clsort_options *options, cl_uint num_wait,
                                  const cl_event *wait_list, cl_event *event) {
  return LOCKED(ctx, top_k_buffer(ctx, type, keys, n, k, out_keys, indices, index_size, options,
                                  num_wait, wait_list, event));
}

/* ------------------------------------------------------------- select */

static clsort_status check_select(clsort_context *ctx, clsort_type type, size_t n, size_t k,
                                  bool has_out, const clsort_options *o) {
  FORWARD_IF_ERROR(check_select_options(ctx, type, o));
  RETURN_IF(k >= n, CLSORT_ERROR_INVALID_ARGUMENT, "k (%zu) must be below n (%zu)", k, n);
  RETURN_IF(!has_out, CLSORT_ERROR_INVALID_ARGUMENT, "out_key must not be NULL");
  return clsort__check_size(ctx, n, clsort_type_size(type));
}

static clsort_status select_host(clsort_context *ctx, clsort_type type, const void *keys, size_t n,
                                 size_t k, void *out_key, const clsort_options *options) {
  const clsort_options *o = options ? options : &clsort__default_options;
  FORWARD_IF_ERROR(check_select(ctx, type, n, k, out_key != NULL, o));
  RETURN_IF(!keys, CLSORT_ERROR_INVALID_ARGUMENT, "keys must not be NULL");
  size_t ks = clsort_type_size(type);
  RETURN_IF(clsort__ranges_overlap(out_key, ks, keys, n * ks), CLSORT_ERROR_INVALID_ARGUMENT,
            "out_key overlaps keys");
  clsort__sort_job job = clsort__make_job(type, n, o);
  clsort__host_group in;
  clsort__selected sel;
  clsort_status st = keys_on_device(ctx, &job, keys, n * ks, &in);
  if (st == CLSORT_SUCCESS) st = clsort__select_key(ctx, &job, in.mem[0], n, k, &sel);
  if (st == CLSORT_SUCCESS) {
    uint64_t key = clsort__key_of_bits(type, job.descending, sel.bits);
    uint32_t key32 = (uint32_t)key;
    memcpy(out_key, ks == 8 ? (const void *)&key : (const void *)&key32, ks);
  }
  if (st != CLSORT_SUCCESS) clFinish(ctx->queue);
  clsort__host_group_release(&in);
  return st;
}

clsort_status clsort_select(clsort_context *ctx, clsort_type type, const void *keys, size_t n,
                            size_t k, void *out_key, const clsort_options *options) {
  return LOCKED(ctx, select_host(ctx, type, keys, n, k, out_key, options));
}

static clsort_status select_buffer(clsort_context *ctx, clsort_type type, cl_mem keys, size_t n,
                                   size_t k, cl_mem out_key, const clsort_options *options,
                                   cl_uint num_wait, const cl_event *wait_list, cl_event *event) {
  const clsort_options *o = options ? options : &clsort__default_options;
  FORWARD_IF_ERROR(check_select(ctx, type, n, k, out_key != NULL, o));
  FORWARD_IF_ERROR(clsort__check_wait_list(num_wait, wait_list));
  size_t ks = clsort_type_size(type);
  FORWARD_IF_ERROR(clsort__check_buffer(ctx, keys, "keys", n, ks, ACCESS_READ));
  FORWARD_IF_ERROR(clsort__check_buffer(ctx, out_key, "out_key", 1, ks, ACCESS_WRITE));
  RETURN_IF(out_key == keys, CLSORT_ERROR_INVALID_ARGUMENT,
            "keys and out_key must be separate buffers");
  FORWARD_IF_ERROR(clsort__begin(ctx, num_wait, wait_list));
  clsort__sort_job job = clsort__make_job(type, n, o);
  clsort__selected sel;
  FORWARD_IF_ERROR(clsort__select_key(ctx, &job, keys, n, k, &sel));
  /* A fill copies its pattern at the call: nothing of ours stays in use. */
  uint64_t key = clsort__key_of_bits(type, job.descending, sel.bits);
  uint32_t key32 = (uint32_t)key;
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueFillBuffer(ctx->queue, out_key,
                                                ks == 8 ? (const void *)&key : (const void *)&key32,
                                                ks, 0, ks, 0, NULL, NULL)));
  return clsort__marker(ctx, event);
}

clsort_status clsort_select_buffer(clsort_context *ctx, clsort_type type, cl_mem keys, size_t n,
                                   size_t k, cl_mem out_key, const clsort_options *options,
                                   cl_uint num_wait, const cl_event *wait_list, cl_event *event) {
  return LOCKED(ctx,
                select_buffer(ctx, type, keys, n, k, out_key, options, num_wait, wait_list, event));
}
