/* widen.c: the 8- and 16-bit keys in the sorts. A job on them becomes a
 * job on 32-bit order keys (cl/sorts/widen.cl) in the context's SLOT_WIDE
 * scratch, which every algorithm sorts as CLSORT_U32; the sorted keys are
 * then narrowed back into the job's keys_out. Values and indices are
 * untouched by the widening, so pairs, argsort and stability carry over. */
#include "sorts/sorts.h"

#include <stdio.h>

static const char *const widen_files[] = {"common/common.cl", "sorts/keys.cl", "sorts/widen.cl",
                                          NULL};
static const clsort__program_spec widen_spec = {"widen", widen_files};

static clsort_status widen_kernel(clsort_context *ctx, clsort_type type, const char *name,
                                  cl_kernel *out) {
  size_t key_size = clsort_type_size(type);
  char options[64];
  snprintf(options, sizeof options, "-DKEY_T=%s -DKEY_BITS=%zu", clsort__key_cl_type(key_size),
           key_size * 8);
  return clsort__get_kernel(ctx, &widen_spec, options, name, out);
}

static clsort_status launch(clsort_context *ctx, const clsort__sort_job *job, cl_kernel k,
                            cl_mem in, cl_mem out) {
  cl_ulong n64 = job->n, at64 = job->keys_at;
  int kind = clsort__key_kind(job->type);
  size_t wg = ctx->tuning.wg_size;
  clsort__chunks c = clsort__chunking(ctx, job->n, clsort__tile(ctx));
  clsort__arg args[] = {ARG(in), ARG(n64), ARG(kind), ARG(out), ARG(at64)};
  return clsort__launch(ctx, k, clsort__min(c.groups * wg, clsort__div_up(job->n, wg) * wg), wg,
                        5, args, 0, NULL, NULL);
}

clsort_status clsort__widen_job(clsort_context *ctx, const clsort__sort_job *job, bool whole_keys,
                                clsort__sort_job *wide) {
  cl_kernel widen, narrow;
  cl_mem keys;
  /* Everything that can fail before the sort writes anything. */
  FORWARD_IF_ERROR(widen_kernel(ctx, job->type, "widen_keys", &widen));
  FORWARD_IF_ERROR(widen_kernel(ctx, job->type, "narrow_keys", &narrow));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_WIDE, clsort__max(job->n, 1) * 4, &keys));
  *wide = *job;
  wide->type = CLSORT_U32;
  wide->keys_in = keys;
  wide->keys_out = job->keys_out ? keys : NULL;
  wide->keys_at = 0; /* the values keep their origin */
  /* The order key's bits are the wide key's low bits; the comparison
   * sorts compare all 32 (the high ones are zero). */
  if (whole_keys) wide->end_bit = 32;
  if (job->n == 0) return CLSORT_SUCCESS;
  return launch(ctx, job, widen, job->keys_in, keys);
}

clsort_status clsort__narrow_job(clsort_context *ctx, const clsort__sort_job *job,
                                 const clsort__sort_job *wide) {
  if (!job->keys_out || job->n == 0) return CLSORT_SUCCESS;
  cl_kernel narrow;
  FORWARD_IF_ERROR(widen_kernel(ctx, job->type, "narrow_keys", &narrow));
  return launch(ctx, job, narrow, wide->keys_in, job->keys_out);
}
