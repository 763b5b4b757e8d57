/* launch.c: one place that sets kernel arguments and enqueues, so that every
 * launch maps OpenCL errors to statuses the same way. */
#include "runtime/runtime.h"

#include <stdio.h>

clsort_status clsort__launch(clsort_context *ctx, cl_kernel kernel, size_t global, size_t local,
                             size_t nargs, const clsort__arg *args, cl_uint num_wait,
                             const cl_event *wait_list, cl_event *event) {
  for (size_t i = 0; i < nargs; i++)
    FORWARD_IF_ERROR(CL_CHECK(clSetKernelArg(kernel, (cl_uint)i, args[i].size, args[i].value)));
  if (global == 0) return CLSORT_SUCCESS;
  global = clsort__div_up(global, local) * local;
  if (!ctx->profile)
    return CL_CHECK(clEnqueueNDRangeKernel(ctx->queue, kernel, 1, NULL, &global, &local,
                                           num_wait, wait_list, event));
  /* CLSORT_PROFILE=1: wait for each kernel and print its device time. It
   * serialises the queue, so it is for finding where time goes, never for
   * the benchmark's figures. */
  cl_event ev;
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueNDRangeKernel(ctx->queue, kernel, 1, NULL, &global, &local,
                                                   num_wait, wait_list, &ev)));
  clWaitForEvents(1, &ev);
  cl_ulong start = 0, end = 0;
  char name[64] = "";
  clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
  clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
  clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, NULL);
  fprintf(stderr, "clsort profile: %-26s %9zu items %9.3f ms\n", name, global, (end - start) * 1e-6);
  if (event)
    *event = ev;
  else
    clReleaseEvent(ev);
  return CLSORT_SUCCESS;
}

clsort_status clsort__marker(clsort_context *ctx, cl_event *event) {
  if (!event) return CLSORT_SUCCESS;
  return CL_CHECK(clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, event));
}

clsort_status clsort__begin(clsort_context *ctx, cl_uint num_wait, const cl_event *wait_list) {
  if (num_wait == 0) return CLSORT_SUCCESS;
  return CL_CHECK(clEnqueueBarrierWithWaitList(ctx->queue, num_wait, wait_list, NULL));
}
