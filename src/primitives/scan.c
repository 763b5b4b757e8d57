/* scan.c: the device-wide prefix sum and the scan program of each type,
 * whose first pass (per-chunk sums, minima or maxima) reduce.c runs too. */
#include "primitives/primitives.h"

#include <stdio.h>

#define FILES(suffix) \
  (const char *const[]) {                                                   \
    "common/common.cl", "common/wg_scan.cl@" suffix, "primitives/scan.cl", NULL \
  }
#define OPTIONS(type, suffix, bits) "-DSCAN_T=" type " -DSCAN_SUFFIX=" suffix " -DSCAN_BITS=" bits

typedef struct scan_program {
  clsort__program_spec spec;
  const char *options;
} scan_program;

/* Indexed by clsort_type. */
static const scan_program scan_programs[] = {
    {{"scan_u32", FILES("u32")}, OPTIONS("uint", "u32", "32")},
    {{"scan_i32", FILES("i32")}, OPTIONS("int", "i32", "32")},
    {{"scan_f32", FILES("f32")}, OPTIONS("float", "f32", "32")},
    {{"scan_u64", FILES("u64")}, OPTIONS("ulong", "u64", "64")},
    {{"scan_i64", FILES("i64")}, OPTIONS("long", "i64", "64")},
    {{"scan_f64", FILES("f64")}, OPTIONS("double", "f64", "64")},
};

clsort_status clsort__scan_kernel(clsort_context *ctx, clsort_type type,
                                  clsort__scan_kernel_id which, cl_kernel *out) {
  const scan_program *p = &scan_programs[type];
  /* Kernel names carry the type suffix; the name table is static so that
   * the strings outlive the program cache entry that points at them. */
  static const char *const names[][3] = {
      {"scan_reduce_chunks_u32", "scan_chunks_u32", "scan_single_pass_u32"},
      {"scan_reduce_chunks_i32", "scan_chunks_i32", "scan_single_pass_i32"},
      {"scan_reduce_chunks_f32", "scan_chunks_f32", "scan_single_pass_f32"},
      {"scan_reduce_chunks_u64", "scan_chunks_u64", "scan_single_pass_u64"},
      {"scan_reduce_chunks_i64", "scan_chunks_i64", "scan_single_pass_i64"},
      {"scan_reduce_chunks_f64", "scan_chunks_f64", "scan_single_pass_f64"},
  };
  return clsort__get_kernel(ctx, &p->spec, p->options, names[type][which], out);
}

clsort_status clsort__reduce_chunks(clsort_context *ctx, cl_kernel reduce, cl_mem in, size_t n,
                                    size_t groups, size_t chunk, clsort_reduce_op op,
                                    cl_mem out) {
  size_t wg = ctx->tuning.wg_size;
  cl_ulong n64 = n, chunk64 = chunk;
  int iop = (int)op;
  clsort__arg args[] = {ARG(in), ARG(n64), ARG(chunk64), ARG(out), ARG(iop)};
  return clsort__launch(ctx, reduce, groups * wg, wg, 5, args, 0, NULL, NULL);
}

/* The single pass's group and tile: 64-bit types take groups of
 * tuning.scan64_wg work-items with tuning.scan64_items elements each, and
 * their status words are 16 bytes. */
static size_t single_pass_wg(const clsort_context *ctx, clsort_type type) {
  return clsort_type_size(type) == 8 ? ctx->tuning.scan64_wg : ctx->tuning.wg_size;
}
static size_t single_pass_tile(const clsort_context *ctx, clsort_type type) {
  if (clsort_type_size(type) == 8) return single_pass_wg(ctx, type) * ctx->tuning.scan64_items;
  return clsort__tile(ctx);
}
static size_t single_pass_state_bytes(const clsort_context *ctx, clsort_type type, size_t n) {
  size_t tiles = clsort__div_up(n, single_pass_tile(ctx, type));
  return clsort_type_size(type) == 8 ? 16 * (tiles + 1) : 8 * (tiles + 1);
}

/* The single pass reads the input once instead of twice. */
static clsort_status scan_single_pass(clsort_context *ctx, clsort_type type, cl_kernel kernel,
                                      cl_mem in, cl_mem out, size_t n, int inclusive) {
  size_t tiles = clsort__div_up(n, single_pass_tile(ctx, type));
  size_t bytes = single_pass_state_bytes(ctx, type, n);
  cl_mem state;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_LOOKBACK, bytes, &state));
  cl_ulong zero = 0;
  FORWARD_IF_ERROR(CL_CHECK(
      clEnqueueFillBuffer(ctx->queue, state, &zero, sizeof zero, 0, bytes, 0, NULL, NULL)));
  cl_ulong n64 = n;
  clsort__arg args[] = {ARG(in), ARG(out), ARG(n64), ARG(state), ARG(inclusive)};
  size_t wg = single_pass_wg(ctx, type);
  return clsort__launch(ctx, kernel, tiles * wg, wg, 5, args, 0, NULL, NULL);
}

/* The single pass serves sums on devices where it is validated (NVIDIA:
 * 16-byte status words for 64-bit types). CLSORT_NO_WIDE_SCAN=1 sends
 * 64-bit types back to reduce-then-scan, for comparison. */
static bool uses_single_pass(const clsort_context *ctx, clsort_type type) {
  return ctx->tuning.single_pass_scan &&
         (clsort_type_size(type) == 4 || !clsort__env_flag("CLSORT_NO_WIDE_SCAN"));
}

clsort_status clsort__scan_prepare(clsort_context *ctx, clsort_type type, size_t n) {
  if (n == 0) return CLSORT_SUCCESS;
  if (ctx->tuning.cpu_shape) return clsort__scan_cpu_prepare(ctx, type, n);
  cl_kernel k;
  cl_mem scratch;
  if (uses_single_pass(ctx, type)) {
    FORWARD_IF_ERROR(clsort__scan_kernel(ctx, type, SCAN_SINGLE_PASS, &k));
    return clsort__scratch(ctx, SLOT_LOOKBACK, single_pass_state_bytes(ctx, type, n), &scratch);
  }
  FORWARD_IF_ERROR(clsort__scan_kernel(ctx, type, SCAN_REDUCE_CHUNKS, &k));
  FORWARD_IF_ERROR(clsort__scan_kernel(ctx, type, SCAN_CHUNKS, &k));
  clsort__chunks c = clsort__chunking(ctx, n, clsort__tile(ctx));
  if (c.groups == 1) return CLSORT_SUCCESS;
  return clsort__scratch(ctx, SLOT_PARTIALS, c.groups * clsort_type_size(type), &scratch);
}

/* A narrow type through its 32-bit type (convert.c), in SLOT_WIDE; the
 * integer sums wrap in the narrow type once narrowed. */
static clsort_status scan_narrow(clsort_context *ctx, clsort_type type, clsort_scan_kind kind,
                                 cl_mem in, size_t in_at, cl_mem out, size_t out_at, size_t n) {
  clsort_type wt = clsort__wide_type(type);
  cl_mem wide;
  FORWARD_IF_ERROR(clsort__convert_prepare(ctx, n, &wide));
  FORWARD_IF_ERROR(clsort__scan_prepare(ctx, wt, n));
  FORWARD_IF_ERROR(clsort__widen(ctx, type, in, in_at, n, &wide));
  FORWARD_IF_ERROR(clsort__scan(ctx, wt, kind, wide, wide, n));
  return clsort__narrow(ctx, type, wide, n, out, out_at);
}

clsort_status clsort__scan_at(clsort_context *ctx, clsort_type type, clsort_scan_kind kind,
                              cl_mem in, size_t in_at, cl_mem out, size_t out_at, size_t n) {
  if (n == 0) return CLSORT_SUCCESS;
  if (clsort__type_is_narrow(type)) return scan_narrow(ctx, type, kind, in, in_at, out, out_at, n);
  return clsort__scan_cpu(ctx, type, kind, in, in_at, out, out_at, n);
}

clsort_status clsort__scan(clsort_context *ctx, clsort_type type, clsort_scan_kind kind,
                           cl_mem in, cl_mem out, size_t n) {
  if (n == 0) return CLSORT_SUCCESS;
  if (clsort__type_is_narrow(type)) return scan_narrow(ctx, type, kind, in, 0, out, 0, n);
  if (ctx->tuning.cpu_shape) return clsort__scan_cpu(ctx, type, kind, in, 0, out, 0, n);
  /* Everything that can fail for want of memory or a build, before the
   * first launch. */
  FORWARD_IF_ERROR(clsort__scan_prepare(ctx, type, n));
  int inclusive = kind == CLSORT_SCAN_INCLUSIVE;
  size_t wg = ctx->tuning.wg_size, tile = clsort__tile(ctx);
  if (uses_single_pass(ctx, type)) {
    cl_kernel single;
    FORWARD_IF_ERROR(clsort__scan_kernel(ctx, type, SCAN_SINGLE_PASS, &single));
    return scan_single_pass(ctx, type, single, in, out, n, inclusive);
  }
  cl_kernel reduce, chunks;
  FORWARD_IF_ERROR(clsort__scan_kernel(ctx, type, SCAN_REDUCE_CHUNKS, &reduce));
  FORWARD_IF_ERROR(clsort__scan_kernel(ctx, type, SCAN_CHUNKS, &chunks));
  clsort__chunks c = clsort__chunking(ctx, n, tile);
  cl_ulong n64 = n, chunk64 = c.chunk;
  cl_mem none = NULL;
  if (c.groups == 1) {
    clsort__arg args[] = {ARG(in), ARG(out), ARG(n64), ARG(chunk64), ARG(none), ARG(inclusive)};
    return clsort__launch(ctx, chunks, wg, wg, 6, args, 0, NULL, NULL);
  }
  cl_mem partials;
  FORWARD_IF_ERROR(
      clsort__scratch(ctx, SLOT_PARTIALS, c.groups * clsort_type_size(type), &partials));
  int exclusive = 0;
  cl_ulong groups64 = c.groups;
  FORWARD_IF_ERROR(clsort__reduce_chunks(ctx, reduce, in, n, c.groups, c.chunk, CLSORT_REDUCE_SUM,
                                         partials));
  /* The partials are few: one group scans them as a single chunk. */
  clsort__arg partial_args[] = {ARG(partials), ARG(partials),  ARG(groups64),
                                ARG(groups64), ARG(none),      ARG(exclusive)};
  FORWARD_IF_ERROR(clsort__launch(ctx, chunks, wg, wg, 6, partial_args, 0, NULL, NULL));
  clsort__arg scan_args[] = {ARG(in), ARG(out), ARG(n64), ARG(chunk64), ARG(partials),
                             ARG(inclusive)};
  return clsort__launch(ctx, chunks, c.groups * wg, wg, 6, scan_args, 0, NULL, NULL);
}
