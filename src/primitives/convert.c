/* convert.c: the 8- and 16-bit types in the primitives: scan.c and
 * reduce.c widen them with these into a scratch copy of 32-bit elements
 * (cl/primitives/convert.cl), run the 32-bit kernels, and narrow the result
 * back, so that no kernel needs a template per narrow type. */
#include "primitives/primitives.h"

static const char *const convert_files[] = {"common/common.cl", "primitives/convert.cl", NULL};
static const clsort__program_spec convert_spec = {"convert", convert_files};

static clsort_status convert(clsort_context *ctx, clsort_type type, bool widen, cl_mem narrow,
                             size_t narrow_at, cl_mem wide, size_t n) {
  if (n == 0) return CLSORT_SUCCESS;
  cl_kernel k;
  FORWARD_IF_ERROR(
      clsort__get_kernel(ctx, &convert_spec, "", widen ? "convert_widen" : "convert_narrow", &k));
  cl_ulong n64 = n, at = narrow_at;
  int kind = (int)type - (int)CLSORT_U8;
  size_t wg = ctx->tuning.wg_size;
  clsort__chunks c = clsort__chunking(ctx, n, clsort__tile(ctx));
  size_t global = clsort__min(c.groups * wg, clsort__div_up(n, wg) * wg);
  if (widen) {
    clsort__arg args[] = {ARG(narrow), ARG(narrow), ARG(at), ARG(n64), ARG(kind), ARG(wide)};
    return clsort__launch(ctx, k, global, wg, 6, args, 0, NULL, NULL);
  }
  clsort__arg args[] = {ARG(wide), ARG(n64), ARG(kind), ARG(narrow), ARG(narrow), ARG(at)};
  return clsort__launch(ctx, k, global, wg, 6, args, 0, NULL, NULL);
}

clsort_status clsort__widen(clsort_context *ctx, clsort_type type, cl_mem in, size_t in_at,
                            size_t n, cl_mem *wide) {
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_WIDE, clsort__max(n, 1) * 4, wide));
  return convert(ctx, type, true, in, in_at, *wide, n);
}

clsort_status clsort__narrow(clsort_context *ctx, clsort_type type, cl_mem wide, size_t n,
                             cl_mem out, size_t out_at) {
  return convert(ctx, type, false, out, out_at, wide, n);
}

clsort_status clsort__convert_prepare(clsort_context *ctx, size_t n, cl_mem *wide) {
  cl_kernel k;
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &convert_spec, "", "convert_widen", &k));
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &convert_spec, "", "convert_narrow", &k));
  return clsort__scratch(ctx, SLOT_WIDE, clsort__max(n, 1) * 4, wide);
}
