/* scan_cpu.c: the primitives' CPU shape (cl/primitives/scan_cpu.cl and
 * select_cpu.cl): scan, reduce, compact and split as chunked two-pass
 * loops, one work-item per group, one chunk or two per compute unit.
 * scan.c, reduce.c and compact.c hand over to these when
 * ctx->tuning.cpu_shape is set. */
#include "primitives/primitives.h"

#include <stdio.h>

#define SCAN_FILES(suffix) \
  (const char *const[]) { "common/common.cl", "common/wg_scan.cl@" suffix, "primitives/scan_cpu.cl", NULL }
#define SCAN_OPTIONS(type, suffix, bits, is_float) \
  "-DSCAN_T=" type " -DSCAN_SUFFIX=" suffix " -DSCAN_BITS=" bits " -DSCAN_FLOAT=" is_float

typedef struct cpu_program {
  clsort__program_spec spec;
  const char *options;
  const char *reduce, *chunks; /* kernel names */
} cpu_program;

/* One type's program: its element type, suffix, bits, and whether it is a
 * float. */
#define SCAN_PROGRAM(T, S, BITS, FLOAT)                                        \
  {{"scan_cpu_" S, SCAN_FILES(S)}, SCAN_OPTIONS(T, S, BITS, FLOAT), "scan_cpu_reduce_" S, \
   "scan_cpu_chunks_" S}

/* Indexed by clsort_type. */
static const cpu_program scan_programs[] = {
    SCAN_PROGRAM("uint", "u32", "32", "0"),   SCAN_PROGRAM("int", "i32", "32", "0"),
    SCAN_PROGRAM("float", "f32", "32", "1"),  SCAN_PROGRAM("ulong", "u64", "64", "0"),
    SCAN_PROGRAM("long", "i64", "64", "0"),   SCAN_PROGRAM("double", "f64", "64", "1"),
};

/* Chunks start on whole 64-byte lines of elements. */
static clsort__chunks cpu_chunks(const clsort_context *ctx, size_t n) {
  return clsort__chunking(ctx, n, 64);
}

/* The program's options: the type's, and for 4-byte types the lanes of a
 * line (scan_cpu.cl's SC_LINE32): the tuning's (tuning.c), or 8 or 16
 * from CLSORT_SCAN_CPU=LANES, which bench/ uses to compare them. */
static const char *scan_options(const clsort_context *ctx, const cpu_program *p, char *buf,
                                size_t size) {
  unsigned lanes = ctx->tuning.scan_cpu_lanes;
  static const char *const name = "CLSORT_SCAN_CPU";
  if (clsort__env_fields(name, &lanes, 1) == 1 &&
      !clsort__env_field_ok(name, "LANES", lanes, 8, 16, ENV_POW2))
    lanes = ctx->tuning.scan_cpu_lanes;
  snprintf(buf, size, "%s -DSC_LINE32=%u", p->options, lanes);
  return buf;
}

static clsort_status reduce_chunks(clsort_context *ctx, cl_kernel k, cl_mem in, size_t in_at,
                                   size_t n, size_t chunk, size_t groups, int op, cl_mem out) {
  cl_ulong n64 = n, chunk64 = chunk, at64 = in_at;
  clsort__arg args[] = {ARG(in), ARG(n64), ARG(chunk64), ARG(out), ARG(op), ARG(at64)};
  return clsort__launch(ctx, k, groups, 1, 6, args, 0, NULL, NULL);
}

clsort_status clsort__scan_cpu_prepare(clsort_context *ctx, clsort_type type, size_t n) {
  const cpu_program *p = &scan_programs[type];
  char buf[160];
  const char *opts = scan_options(ctx, p, buf, sizeof buf);
  cl_kernel k;
  cl_mem partials;
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &p->spec, opts, p->reduce, &k));
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &p->spec, opts, p->chunks, &k));
  size_t most = (size_t)ctx->compute_units * ctx->compute_units;
  return clsort__scratch(ctx, SLOT_PARTIALS,
                         clsort__max(most, cpu_chunks(ctx, n).groups) * clsort_type_size(type),
                         &partials);
}

clsort_status clsort__scan_cpu(clsort_context *ctx, clsort_type type, clsort_scan_kind kind,
                               cl_mem in, size_t in_at, cl_mem out, size_t out_at, size_t n) {
  FORWARD_IF_ERROR(clsort__scan_cpu_prepare(ctx, type, n));
  const cpu_program *p = &scan_programs[type];
  char buf[160];
  const char *opts = scan_options(ctx, p, buf, sizeof buf);
  cl_kernel reduce, chunks;
  cl_mem partials;
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &p->spec, opts, p->reduce, &reduce));
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &p->spec, opts, p->chunks, &chunks));
  /* One chunk per compute unit; the chunks before the last are reduced
   * in one part per compute unit, so that the first pass reads (G-1)/G
   * of the input on every core at once. */
  size_t cus = ctx->compute_units, part = clsort__div_up(clsort__div_up(n, cus * cus), 64) * 64;
  size_t chunk = part * cus, groups = clsort__div_up(n, chunk);
  cl_ulong pieces = groups > 1 ? cus : 1;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_PARTIALS,
                                   clsort__max(1, (groups - 1) * pieces) * clsort_type_size(type),
                                   &partials));
  if (groups > 1)
    FORWARD_IF_ERROR(reduce_chunks(ctx, reduce, in, in_at, (groups - 1) * chunk, part,
                                   (groups - 1) * pieces, CLSORT_REDUCE_SUM, partials));
  cl_ulong n64 = n, chunk64 = chunk, in64 = in_at, out64 = out_at;
  int inclusive = kind == CLSORT_SCAN_INCLUSIVE;
  clsort__arg args[] = {ARG(in),       ARG(out),    ARG(n64),       ARG(chunk64), ARG(partials),
                        ARG(pieces),   ARG(inclusive), ARG(in64),   ARG(out64)};
  return clsort__launch(ctx, chunks, groups, 1, 9, args, 0, NULL, NULL);
}

clsort_status clsort__reduce_cpu(clsort_context *ctx, clsort_type type, clsort_reduce_op op,
                                 cl_mem in, size_t in_at, size_t n, cl_mem result) {
  const cpu_program *p = &scan_programs[type];
  char buf[160];
  const char *opts = scan_options(ctx, p, buf, sizeof buf);
  cl_kernel reduce;
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &p->spec, opts, p->reduce, &reduce));
  clsort__chunks c = cpu_chunks(ctx, n);
  if (c.groups == 1) return reduce_chunks(ctx, reduce, in, in_at, n, n, 1, (int)op, result);
  cl_mem partials;
  FORWARD_IF_ERROR(
      clsort__scratch(ctx, SLOT_PARTIALS, c.groups * clsort_type_size(type), &partials));
  FORWARD_IF_ERROR(
      reduce_chunks(ctx, reduce, in, in_at, n, c.chunk, c.groups, (int)op, partials));
  return reduce_chunks(ctx, reduce, partials, 0, c.groups, c.groups, 1, (int)op, result);
}

/* ------------------------------------------------------ compact, split */
static const char *const select_files[] = {"common/common.cl", "primitives/select_cpu.cl", NULL};

typedef struct select_program {
  size_t element_size;
  clsort__program_spec spec;
  const char *options;
} select_program;

static const select_program select_programs[] = {
    {1, {"select_cpu_1", select_files}, "-DSEL_E=uchar"},
    {2, {"select_cpu_2", select_files}, "-DSEL_E=ushort"},
    {4, {"select_cpu_4", select_files}, "-DSEL_E=uint"},
    {8, {"select_cpu_8", select_files}, "-DSEL_E=ulong"},
    {16, {"select_cpu_16", select_files}, "-DSEL_E=uint4"},
};

clsort_status clsort__select_cpu(clsort_context *ctx, size_t element_size, bool split,
                                 cl_mem input, cl_mem flags, cl_mem output, size_t n,
                                 cl_mem count, const size_t at[3]) {
  const select_program *p = NULL;
  for (size_t i = 0; i < sizeof select_programs / sizeof select_programs[0]; i++)
    if (select_programs[i].element_size == element_size) p = &select_programs[i];
  RETURN_IF(!p, CLSORT_ERROR_INVALID_ARGUMENT, "no select program for %zu-byte elements",
            element_size);
  cl_kernel count_kernel, scatter_kernel;
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &p->spec, p->options, "select_cpu_count", &count_kernel));
  FORWARD_IF_ERROR(
      clsort__get_kernel(ctx, &p->spec, p->options, "select_cpu_scatter", &scatter_kernel));
  clsort__chunks c = cpu_chunks(ctx, n);
  cl_mem counts;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_TABLE, c.groups * sizeof(cl_ulong), &counts));
  cl_ulong n64 = n, chunk64 = c.chunk;
  cl_ulong in_at = at ? at[0] : 0, flags_at = at ? at[1] : 0, out_at = at ? at[2] : 0;
  clsort__arg count_args[] = {ARG(flags), ARG(n64), ARG(chunk64), ARG(counts), ARG(flags_at)};
  FORWARD_IF_ERROR(clsort__launch(ctx, count_kernel, c.groups, 1, 5, count_args, 0, NULL, NULL));
  int split_arg = split;
  clsort__arg scatter_args[] = {ARG(input),   ARG(flags),  ARG(output), ARG(n64),
                                ARG(chunk64), ARG(counts), ARG(count),  ARG(split_arg),
                                ARG(in_at),   ARG(flags_at), ARG(out_at)};
  return clsort__launch(ctx, scatter_kernel, c.groups, 1, 11, scatter_args, 0, NULL, NULL);
}
