/* compact.c: stable compact and split by byte flags, on the shared scan. */
#include "primitives.h"

#include <stdio.h>

typedef struct select_program {
  size_t element_size;
  clsort__program_spec spec;
  const char *element_type;
} select_program;

static const char *const select_files[] = {"common.cl", "wg_scan.cl@u32", "select.cl", NULL};

static const select_program select_programs[] = {
    {1, {"select_1", select_files}, "uchar"},  {2, {"select_2", select_files}, "ushort"},
    {4, {"select_4", select_files}, "uint"},   {8, {"select_8", select_files}, "ulong"},
    {16, {"select_16", select_files}, "uint4"},
};

static const select_program *find_program(size_t element_size) {
  for (size_t i = 0; i < sizeof select_programs / sizeof select_programs[0]; i++)
    if (select_programs[i].element_size == element_size) return &select_programs[i];
  return NULL;
}

/* Flags per work-item: the layer's ITEMS rounded up to whole 16-byte flag
 * vectors. */
static unsigned select_items(const clsort_context *ctx) {
  return (ctx->tuning.items + 15) / 16 * 16;
}

clsort_status clsort__select(clsort_context *ctx, size_t element_size, bool split, cl_mem input,
                             cl_mem flags, cl_mem output, size_t n, cl_mem count) {
  if (n == 0) {
    cl_ulong zero = 0;
    return CL_CHECK(
        clEnqueueFillBuffer(ctx->queue, count, &zero, sizeof zero, 0, sizeof zero, 0, NULL, NULL));
  }
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

static clsort_status check_select(clsort_context *ctx, size_t element_size, cl_mem input,
                                  cl_mem flags, cl_mem output, size_t n, cl_mem count,
                                  cl_uint num_wait, const cl_event *wait_list) {
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  RETURN_IF(!find_program(element_size), CLSORT_ERROR_INVALID_ARGUMENT,
            "element_size %zu is not 1, 2, 4, 8 or 16", element_size);
  FORWARD_IF_ERROR(clsort__check_wait_list(num_wait, wait_list));
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, element_size));
  if (n > 0) {
    FORWARD_IF_ERROR(clsort__check_buffer(ctx, input, "input", n, element_size, ACCESS_READ));
    FORWARD_IF_ERROR(clsort__check_buffer(ctx, flags, "flags", n, 1, ACCESS_READ));
    FORWARD_IF_ERROR(clsort__check_buffer(ctx, output, "output", n, element_size, ACCESS_WRITE));
    RETURN_IF(output == input || output == flags, CLSORT_ERROR_INVALID_ARGUMENT,
              "output must not be the %s buffer", output == input ? "input" : "flags");
    RETURN_IF(count == input || count == flags || count == output, CLSORT_ERROR_INVALID_ARGUMENT,
              "count must not be the %s buffer",
              count == input ? "input" : count == flags ? "flags" : "output");
  }
  return clsort__check_buffer(ctx, count, "count", 1, sizeof(cl_ulong), ACCESS_WRITE);
}

static clsort_status select_buffer(clsort_context *ctx, size_t element_size, bool split,
                                   cl_mem input, cl_mem flags, cl_mem output, size_t n,
                                   cl_mem count, cl_uint num_wait, const cl_event *wait_list,
                                   cl_event *event) {
  FORWARD_IF_ERROR(
      check_select(ctx, element_size, input, flags, output, n, count, num_wait, wait_list));
  FORWARD_IF_ERROR(clsort__begin(ctx, num_wait, wait_list));
  FORWARD_IF_ERROR(clsort__select(ctx, element_size, split, input, flags, output, n, count));
  return clsort__marker(ctx, event);
}

clsort_status clsort_compact_buffer(clsort_context *ctx, size_t element_size, cl_mem input,
                                    cl_mem flags, cl_mem output, size_t n, cl_mem count,
                                    cl_uint num_wait, const cl_event *wait_list, cl_event *event) {
  return LOCKED(ctx, select_buffer(ctx, element_size, false, input, flags, output, n, count,
                                   num_wait, wait_list, event));
}

clsort_status clsort_split_buffer(clsort_context *ctx, size_t element_size, cl_mem input,
                                  cl_mem flags, cl_mem output, size_t n, cl_mem count,
                                  cl_uint num_wait, const cl_event *wait_list, cl_event *event) {
  return LOCKED(ctx, select_buffer(ctx, element_size, true, input, flags, output, n, count,
                                   num_wait, wait_list, event));
}
