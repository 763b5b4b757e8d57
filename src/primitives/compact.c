/* compact.c: stable compact and split by byte flags, on the shared scan. */
#include "primitives/primitives.h"

#include <stdio.h>

typedef struct select_program {
  size_t element_size;
  clsort__program_spec spec;
  const char *element_type;
} select_program;

static const char *const select_files[] = {"common/common.cl", "common/wg_scan.cl@u32",
                                           "primitives/select.cl", NULL};

static const select_program select_programs[] = {
    {1, {"select_1", select_files}, "uchar"},  {2, {"select_2", select_files}, "ushort"},
    {4, {"select_4", select_files}, "uint"},   {8, {"select_8", select_files}, "ulong"},
    {16, {"select_16", select_files}, "uint4"},
};

/* The single pass (NVIDIA) also needs the 64-bit look-back: the kept
 * counts pass 2^32 with the elements. */
static const char *const single_pass_files[] = {"common/common.cl", "common/wg_scan.cl@u32",
                                                "common/wg_scan.cl@u64", "primitives/select.cl",
                                                NULL};

static const select_program single_pass_programs[] = {
    {1, {"select_sp_1", single_pass_files}, "uchar"},
    {2, {"select_sp_2", single_pass_files}, "ushort"},
    {4, {"select_sp_4", single_pass_files}, "uint"},
    {8, {"select_sp_8", single_pass_files}, "ulong"},
    {16, {"select_sp_16", single_pass_files}, "uint4"},
};

static const select_program *find_in(const select_program *table, size_t count,
                                     size_t element_size) {
  for (size_t i = 0; i < count; i++)
    if (table[i].element_size == element_size) return &table[i];
  return NULL;
}

static const select_program *find_program(size_t element_size) {
  return find_in(select_programs, sizeof select_programs / sizeof select_programs[0],
                 element_size);
}

bool clsort__select_supported(size_t element_size) { return find_program(element_size) != NULL; }

/* Flags per work-item: the layer's ITEMS rounded up to whole 16-byte flag
 * vectors. */
static unsigned select_items(const clsort_context *ctx) {
  return (ctx->tuning.items + 15) / 16 * 16;
}

static clsort_status select_single_pass(clsort_context *ctx, size_t element_size, cl_mem input,
                                        cl_mem flags, cl_mem output, size_t n, cl_mem count) {
  const select_program *p = find_in(
      single_pass_programs, sizeof single_pass_programs / sizeof single_pass_programs[0],
      element_size);
  char options[112];
  snprintf(options, sizeof options, "-DSEL_E=%s -DSEL_ITEMS=%u -DSEL_SINGLE_PASS=1",
           p->element_type, select_items(ctx));
  cl_kernel kernel;
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &p->spec, options, "select_single_pass", &kernel));
  size_t wg = ctx->tuning.wg_size, tiles = clsort__div_up(n, wg * select_items(ctx));
  size_t bytes = 16 * (tiles + 1);
  cl_mem state;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_LOOKBACK, bytes, &state));
  cl_ulong zero = 0, n64 = n;
  FORWARD_IF_ERROR(CL_CHECK(
      clEnqueueFillBuffer(ctx->queue, state, &zero, sizeof zero, 0, bytes, 0, NULL, NULL)));
  clsort__arg args[] = {ARG(input), ARG(flags), ARG(output), ARG(n64), ARG(state), ARG(count)};
  return clsort__launch(ctx, kernel, tiles * wg, wg, 6, args, 0, NULL, NULL);
}

clsort_status clsort__select(clsort_context *ctx, size_t element_size, bool split, cl_mem input,
                             cl_mem flags, cl_mem output, size_t n, cl_mem count) {
  if (n == 0) {
    cl_ulong zero = 0;
    return CL_CHECK(
        clEnqueueFillBuffer(ctx->queue, count, &zero, sizeof zero, 0, sizeof zero, 0, NULL, NULL));
  }
  if (ctx->tuning.cpu_shape)
    return clsort__select_cpu(ctx, element_size, split, input, flags, output, n, count, NULL);
  /* A compact reads its flags once on NVIDIA; a split needs the total
   * kept before its first store, so it keeps the three passes. */
  if (!split && ctx->tuning.single_pass_scan && !clsort__env_flag("CLSORT_NO_SINGLE_PASS_SELECT"))
    return select_single_pass(ctx, element_size, input, flags, output, n, count);
  const select_program *p = find_program(element_size);
  char options[96];
  snprintf(options, sizeof options, "-DSEL_E=%s -DSEL_ITEMS=%u", p->element_type,
           select_items(ctx));
  cl_kernel count_kernel, scatter_kernel;
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &p->spec, options, "select_count", &count_kernel));
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &p->spec, options, "select_scatter", &scatter_kernel));
  size_t wg = ctx->tuning.wg_size;
  clsort__chunks c = clsort__chunking(ctx, n, wg * select_items(ctx));
  cl_mem counts;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_TABLE, c.groups * sizeof(cl_ulong), &counts));
  FORWARD_IF_ERROR(clsort__scan_prepare(ctx, CLSORT_U64, c.groups));
  cl_ulong n64 = n, chunk64 = c.chunk;
  clsort__arg count_args[] = {ARG(flags), ARG(n64), ARG(chunk64), ARG(counts)};
  FORWARD_IF_ERROR(
      clsort__launch(ctx, count_kernel, c.groups * wg, wg, 4, count_args, 0, NULL, NULL));
  FORWARD_IF_ERROR(clsort__scan(ctx, CLSORT_U64, CLSORT_SCAN_INCLUSIVE, counts, counts, c.groups));
  int split_arg = split;
  clsort__arg scatter_args[] = {ARG(input),   ARG(flags),  ARG(output), ARG(n64),
                                ARG(chunk64), ARG(counts), ARG(count),  ARG(split_arg)};
  return clsort__launch(ctx, scatter_kernel, c.groups * wg, wg, 8, scatter_args, 0, NULL, NULL);
}
