/* launch.c: one place that sets kernel arguments and enqueues, so that every
 * launch maps OpenCL errors to statuses the same way. */
#include "internal.h"

clsort_status clsort__launch(clsort_context *ctx, cl_kernel kernel, size_t global, size_t local,
                             size_t nargs, const clsort__arg *args, cl_uint num_wait,
                             const cl_event *wait_list, cl_event *event) {
  for (size_t i = 0; i < nargs; i++)
    FORWARD_IF_ERROR(CL_CHECK(clSetKernelArg(kernel, (cl_uint)i, args[i].size, args[i].value)));
  if (global == 0) return CLSORT_SUCCESS;
  global = clsort__div_up(global, local) * local;
  return CL_CHECK(clEnqueueNDRangeKernel(ctx->queue, kernel, 1, NULL, &global, &local, num_wait,
                                         wait_list, event));
}

clsort_status clsort__marker(clsort_context *ctx, cl_event *event) {
  if (!event) return CLSORT_SUCCESS;
  return CL_CHECK(clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, event));
}

clsort_status clsort__begin(clsort_context *ctx, cl_uint num_wait, const cl_event *wait_list) {
  if (num_wait == 0) return CLSORT_SUCCESS;
  return CL_CHECK(clEnqueueBarrierWithWaitList(ctx->queue, num_wait, wait_list, NULL));
}
