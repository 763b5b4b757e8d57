/* runs.c: the device side of the out-of-core sort (src/api/out_of_core.c):
 * where sampled splitters cut a sorted run, and the input positions that an
 * argsort's runs carry. One small program per key width. */
#include "sorts/sorts.h"

#include <stdio.h>

static const char *const runs_files[] = {"common/common.cl", "sorts/keys.cl", "sorts/runs.cl",
                                         NULL};
static const clsort__program_spec runs_spec = {"runs", runs_files};

clsort_status clsort__key_width_kernel(clsort_context *ctx, const clsort__program_spec *spec,
                                       size_t key_size, const char *name, cl_kernel *out) {
  char options[64];
  snprintf(options, sizeof options, "-DKEY_T=%s -DKEY_BITS=%zu", clsort__key_cl_type(key_size),
           key_size * 8);
  return clsort__get_kernel(ctx, spec, options, name, out);
}

static clsort_status runs_kernel(clsort_context *ctx, size_t key_size, const char *name,
                                 cl_kernel *out) {
  return clsort__key_width_kernel(ctx, &runs_spec, key_size, name, out);
}

clsort_status clsort__run_cuts(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys,
                               size_t n, cl_mem splitters, size_t count, size_t run, cl_mem cuts,
                               size_t at) {
  if (count == 0) return CLSORT_SUCCESS;
  cl_kernel k;
  size_t key_size = clsort_type_size(job->type);
  FORWARD_IF_ERROR(runs_kernel(ctx, key_size, "run_cuts", &k));
  cl_ulong n64 = n, run64 = run, at64 = at;
  cl_uint count32 = (cl_uint)count, shift = job->begin_bit;
  unsigned width = job->end_bit - job->begin_bit;
  cl_ulong mask = width >= 64 ? ~(cl_ulong)0 : ((cl_ulong)1 << width) - 1;
  int kind = clsort__key_kind(job->type), desc = job->descending;
  clsort__arg args[] = {ARG(keys), ARG(n64),  ARG(splitters), ARG(count32), ARG(run64),
                        ARG(kind), ARG(desc), ARG(shift),     ARG(mask),    ARG(cuts),
                        ARG(at64)};
  size_t wg = ctx->tuning.wg_size;
  return clsort__launch(ctx, k, count, wg, 11, args, 0, NULL, NULL);
}

clsort_status clsort__run_iota(clsort_context *ctx, const clsort__sort_job *job, cl_mem out,
                               size_t n, size_t first) {
  if (n == 0) return CLSORT_SUCCESS;
  cl_kernel k;
  FORWARD_IF_ERROR(runs_kernel(ctx, clsort_type_size(job->type), "run_iota", &k));
  cl_ulong n64 = n, first64 = first;
  int wide = job->value_size == 8;
  size_t wg = ctx->tuning.wg_size;
  clsort__chunks c = clsort__chunking(ctx, n, clsort__tile(ctx));
  clsort__arg args[] = {ARG(out), ARG(out), ARG(wide), ARG(n64), ARG(first64)};
  return clsort__launch(ctx, k, clsort__min(c.groups * wg, clsort__div_up(n, wg) * wg), wg, 5,
                        args, 0, NULL, NULL);
}
