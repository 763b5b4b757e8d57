/* sort.c: the public sort entry points. They validate everything, then
 * dispatch to the algorithm the options name; an algorithm that has not
 * landed returns CLSORT_ERROR_UNSUPPORTED, never a wrong result. */
#include "api/api.h"

#include <string.h>

const clsort_options clsort__default_options = CLSORT_OPTIONS_DEFAULT;

clsort_status clsort__check_options(const clsort_context *ctx, clsort_type type,
                                   const clsort_options *o) {
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  FORWARD_IF_ERROR(clsort__check_type(ctx, type));
  RETURN_IF((unsigned)o->algorithm > CLSORT_QUICK, CLSORT_ERROR_INVALID_ARGUMENT,
            "unknown algorithm %d", (int)o->algorithm);
  RETURN_IF(o->flags & ~CLSORT_FLAGS_ALL_, CLSORT_ERROR_INVALID_ARGUMENT,
            "unknown flags 0x%x", o->flags & ~CLSORT_FLAGS_ALL_);
  unsigned bits = (unsigned)clsort_type_size(type) * 8;
  unsigned end = o->end_bit ? o->end_bit : bits;
  RETURN_IF(end > bits || o->begin_bit >= end, CLSORT_ERROR_INVALID_ARGUMENT,
            "bit range [%u, %u) is not inside the key's %u bits", o->begin_bit, end, bits);
  return CLSORT_SUCCESS;
}

clsort_status clsort__check_op_options(const clsort_context *ctx, clsort_type type,
                                      const clsort_options *o, unsigned algorithms,
                                      const char *what) {
  FORWARD_IF_ERROR(clsort__check_options(ctx, type, o));
  /* Their kernels take 4- and 8-byte keys; the sorts widen narrower ones
   * (dispatch.c), these do not yet. */
  RETURN_IF(clsort__type_is_narrow(type), CLSORT_ERROR_UNSUPPORTED,
            "%s does not take %s keys yet: the 8- and 16-bit types work in the sorts only", what,
            clsort_type_name(type));
  RETURN_IF(!(algorithms & (1u << o->algorithm)), CLSORT_ERROR_UNSUPPORTED,
            "%s: algorithm %s is not available for it", what,
            clsort__algorithm_name(o->algorithm));
  unsigned bits = (unsigned)clsort_type_size(type) * 8;
  RETURN_IF(o->begin_bit != 0 || (o->end_bit != 0 && o->end_bit != bits),
            CLSORT_ERROR_UNSUPPORTED, "%s compares whole keys; bit ranges are not supported",
            what);
  return CLSORT_SUCCESS;
}

clsort__sort_job clsort__make_job(clsort_type type, size_t n, const clsort_options *o) {
  clsort__sort_job job;
  memset(&job, 0, sizeof job);
  job.type = type;
  job.n = n;
  job.begin_bit = o->begin_bit;
  job.end_bit = o->end_bit ? o->end_bit : (unsigned)clsort_type_size(type) * 8;
  job.descending = (o->flags & CLSORT_DESCENDING) != 0;
  return job;
}

/* What an algorithm cannot honour fails before any data moves. The
 * comparison sorts compare whole keys; of them only the merge sort is
 * stable (ties on the input index would double the data the others move). */
static clsort_status check_available(clsort_type type, const clsort_options *o) {
  bool radix = o->algorithm == CLSORT_AUTO || o->algorithm == CLSORT_RADIX;
  if (radix) return CLSORT_SUCCESS;
  RETURN_IF((o->flags & CLSORT_STABLE) && o->algorithm != CLSORT_MERGE, CLSORT_ERROR_UNSUPPORTED,
            "the %s sort is not stable; CLSORT_STABLE needs CLSORT_RADIX, CLSORT_MERGE or CLSORT_AUTO",
            clsort__algorithm_name(o->algorithm));
  unsigned bits = (unsigned)clsort_type_size(type) * 8;
  RETURN_IF(o->begin_bit != 0 || (o->end_bit != 0 && o->end_bit != bits),
            CLSORT_ERROR_UNSUPPORTED,
            "the %s sort compares whole keys; bit ranges need CLSORT_RADIX or CLSORT_AUTO",
            clsort__algorithm_name(o->algorithm));
  return CLSORT_SUCCESS;
}

void clsort__job_on_host(clsort__sort_job *job, const clsort__host_group *g) {
  bool vs = job->value_size != 0;
  job->keys_in = g->mem[0];
  job->keys_out = job->make_index ? NULL : g->mem[0];
  job->vals_in = job->make_index || !vs ? NULL : g->mem[1];
  job->vals_out = vs ? g->mem[1] : NULL;
  job->keys_at = g->at[0];
  job->vals_at = vs ? g->at[1] : 0;
}

clsort_status clsort__job_put(clsort_context *ctx, const clsort__sort_job *job,
                              const clsort__host_group *g, const clsort__host_spec *a,
                              bool keys) {
  if (job->value_size)
    FORWARD_IF_ERROR(clsort__host_arrays_put(ctx, g, a, 1, job->n * job->value_size));
  if (keys) FORWARD_IF_ERROR(clsort__host_arrays_put(ctx, g, a, 0, a[0].bytes));
  return CLSORT_SUCCESS;
}

/* The host forms in core: the caller's keys (and values) as device
 * buffers, through pinned staging on GPUs (staging.c); on a CPU device in
 * place, as they are when they are aligned as it wants, else from the
 * aligned address before them where the algorithm takes origins
 * (clsort__host_arrays_get: keys and values of one allocation share a
 * buffer); else staged in the context's buffers and copied back; sort
 * there. Every algorithm acquires what it needs before its first write,
 * so a failure leaves the host memory as it was. */
static clsort_status sort_in_core(clsort_context *ctx, const clsort_options *o,
                                  clsort__sort_job job, void *keys, const void *keys_const,
                                  void *values, size_t n) {
  if (clsort__staging_on(ctx)) return clsort__sort_staged(ctx, o, job, keys, keys_const, values);
  size_t ks = clsort_type_size(job.type), vs = job.value_size;
  const clsort__host_spec a[2] = {{keys_const, n * ks, ks, SLOT_HOST_IN, true},
                                  {values, n * vs, vs, SLOT_HOST_AUX, !job.make_index}};
  clsort__host_group g;
  clsort_status st =
      clsort__host_arrays_get(ctx, vs ? 2 : 1, a, clsort__takes_origins(ctx, o, &job), &g);
  clsort__job_on_host(&job, &g);
  if (st == CLSORT_SUCCESS) st = clsort__dispatch_sort(ctx, o, &job);
  if (st == CLSORT_SUCCESS) st = clsort__job_put(ctx, &job, &g, a, keys != NULL);
  if (st != CLSORT_SUCCESS) clFinish(ctx->queue);
  clsort__host_group_release(&g);
  return st;
}

/* In core when the data and its scratch fit, else out of core
 * (out_of_core.c). */
static clsort_status sort_host(clsort_context *ctx, const clsort_options *o, clsort__sort_job job,
                               void *keys, const void *keys_const, void *values) {
  return clsort__sort_host_arrays(ctx, o, job, keys, keys_const, values, sort_in_core);
}

static clsort_status sort_keys(clsort_context *ctx, clsort_type type, void *keys, size_t n,
                               const clsort_options *options) {
  const clsort_options *o = options ? options : &clsort__default_options;
  FORWARD_IF_ERROR(clsort__check_options(ctx, type, o));
  RETURN_IF(n > 0 && !keys, CLSORT_ERROR_INVALID_ARGUMENT, "keys must not be NULL");
  FORWARD_IF_ERROR(clsort__check_host_size(n, clsort_type_size(type)));
  FORWARD_IF_ERROR(check_available(type, o));
  if (n == 0) return CLSORT_SUCCESS;
  return sort_host(ctx, o, clsort__make_job(type, n, o), keys, keys, NULL);
}

clsort_status clsort_sort(clsort_context *ctx, clsort_type type, void *keys, size_t n,
                          const clsort_options *options) {
  return LOCKED(ctx, sort_keys(ctx, type, keys, n, options));
}

/* The payload of the pairs sort (values) or of argsort (indices), in the
 * order the header documents: its size, 4-byte indices that cannot count
 * to n, NULL arrays, what the host can hold, then the payload over the
 * keys. */
static clsort_status check_payload(clsort_type type, const void *keys, const void *payload,
                                   size_t size, size_t n, bool indices) {
  const char *what = indices ? "index" : "value";
  RETURN_IF(size != 4 && size != 8, CLSORT_ERROR_INVALID_ARGUMENT, "%s_size %zu is not 4 or 8",
            what, size);
  RETURN_IF(indices && size == 4 && n > UINT32_MAX, CLSORT_ERROR_TOO_LARGE,
            "n (%zu) does not fit 4-byte indices", n);
  RETURN_IF(n > 0 && (!keys || !payload), CLSORT_ERROR_INVALID_ARGUMENT,
            "keys and %s must not be NULL", indices ? "indices" : "values");
  FORWARD_IF_ERROR(clsort__check_host_size(n, clsort_type_size(type) + size));
  /* Staged, overlapping arrays would come back as one over the other. */
  RETURN_IF(clsort__ranges_overlap(keys, n * clsort_type_size(type), payload, n * size),
            CLSORT_ERROR_INVALID_ARGUMENT, "%s overlaps keys", indices ? "indices" : "values");
  return CLSORT_SUCCESS;
}

/* The pairs sort (values travel with the keys, which are sorted in
 * place) and argsort (the keys stay, indices come out): one body.
 * keys_out is NULL for argsort. */
static clsort_status sort_with_payload(clsort_context *ctx, clsort_type type, void *keys_out,
                                       const void *keys, void *payload, size_t size, size_t n,
                                       const clsort_options *options, bool indices) {
  const clsort_options *o = options ? options : &clsort__default_options;
  FORWARD_IF_ERROR(clsort__check_options(ctx, type, o));
  FORWARD_IF_ERROR(check_payload(type, keys, payload, size, n, indices));
  FORWARD_IF_ERROR(check_available(type, o));
  if (n == 0) return CLSORT_SUCCESS;
  clsort__sort_job job = clsort__make_job(type, n, o);
  job.value_size = size;
  job.make_index = indices;
  return sort_host(ctx, o, job, keys_out, keys, payload);
}

clsort_status clsort_sort_pairs(clsort_context *ctx, clsort_type type, void *keys, void *values,
                                size_t value_size, size_t n, const clsort_options *options) {
  return LOCKED(ctx,
                sort_with_payload(ctx, type, keys, keys, values, value_size, n, options, false));
}

clsort_status clsort_argsort(clsort_context *ctx, clsort_type type, const void *keys,
                             void *indices, size_t index_size, size_t n,
                             const clsort_options *options) {
  return LOCKED(ctx,
                sort_with_payload(ctx, type, NULL, keys, indices, index_size, n, options, true));
}

static clsort_status sort_buffer(clsort_context *ctx, clsort_type type, cl_mem keys, cl_mem values,
                                 size_t value_size, size_t n, const clsort_options *options,
                                 cl_uint num_wait, const cl_event *wait_list, cl_event *event) {
  const clsort_options *o = options ? options : &clsort__default_options;
  FORWARD_IF_ERROR(clsort__check_options(ctx, type, o));
  FORWARD_IF_ERROR(clsort__check_wait_list(num_wait, wait_list));
  RETURN_IF(values && value_size != 4 && value_size != 8, CLSORT_ERROR_INVALID_ARGUMENT,
            "value_size %zu is not 4 or 8", value_size);
  RETURN_IF(!values && value_size != 0, CLSORT_ERROR_INVALID_ARGUMENT,
            "value_size is %zu but values is NULL", value_size);
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, clsort_type_size(type)));
  if (n > 0) {
    FORWARD_IF_ERROR(
        clsort__check_buffer(ctx, keys, "keys", n, clsort_type_size(type), ACCESS_READ_WRITE));
    if (values)
      FORWARD_IF_ERROR(
          clsort__check_buffer(ctx, values, "values", n, value_size, ACCESS_READ_WRITE));
    RETURN_IF(keys == values, CLSORT_ERROR_INVALID_ARGUMENT,
              "keys and values must be separate buffers");
  }
  FORWARD_IF_ERROR(check_available(type, o));
  FORWARD_IF_ERROR(clsort__begin(ctx, num_wait, wait_list));
  clsort__sort_job job = clsort__make_job(type, n, o);
  job.keys_in = job.keys_out = keys;
  job.vals_in = job.vals_out = values;
  job.value_size = values ? value_size : 0;
  FORWARD_IF_ERROR(clsort__dispatch_sort(ctx, o, &job));
  return clsort__marker(ctx, event);
}

clsort_status clsort_sort_buffer(clsort_context *ctx, clsort_type type, cl_mem keys, cl_mem values,
                                 size_t value_size, size_t n, const clsort_options *options,
                                 cl_uint num_wait, const cl_event *wait_list, cl_event *event) {
  return LOCKED(ctx, sort_buffer(ctx, type, keys, values, value_size, n, options, num_wait,
                                 wait_list, event));
}
