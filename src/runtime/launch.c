/* launch.c: one place that sets kernel arguments and enqueues, so that every
 * launch maps OpenCL errors to statuses the same way. */
#include "runtime/runtime.h"

#include <stdio.h>

/* CLSORT_PROFILE=timeline: the launch keeps its event (and the kernel's
 * name) for clsort__timeline_print; the queue is not held up. */
static clsort_status launch_recorded(clsort_context *ctx, cl_kernel kernel, size_t global,
                                     size_t local, cl_uint num_wait, const cl_event *wait_list,
                                     cl_event *event) {
  cl_event ev;
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueNDRangeKernel(ctx->queue, kernel, 1, NULL, &global, &local,
                                                   num_wait, wait_list, &ev)));
  unsigned cap = sizeof ctx->timeline_log / sizeof ctx->timeline_log[0];
  if (ctx->timeline_count < cap) {
    ctx->timeline_log[ctx->timeline_count].ev = ev;
    clRetainEvent(ev);
    clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof ctx->timeline_log[0].name - 1,
                    ctx->timeline_log[ctx->timeline_count].name, NULL);
    ctx->timeline_count++;
  }
  if (event)
    *event = ev;
  else
    clReleaseEvent(ev);
  return CLSORT_SUCCESS;
}

clsort_status clsort__launch(clsort_context *ctx, cl_kernel kernel, size_t global, size_t local,
                             size_t nargs, const clsort__arg *args, cl_uint num_wait,
                             const cl_event *wait_list, cl_event *event) {
  for (size_t i = 0; i < nargs; i++)
    FORWARD_IF_ERROR(CL_CHECK(clSetKernelArg(kernel, (cl_uint)i, args[i].size, args[i].value)));
  if (global == 0) return CLSORT_SUCCESS;
  global = clsort__div_up(global, local) * local;
  if (ctx->timeline) return launch_recorded(ctx, kernel, global, local, num_wait, wait_list, event);
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

void clsort__timeline_print(clsort_context *ctx) {
  if (ctx->timeline_count == 0) return;
  clFinish(ctx->queue);
  cl_ulong origin = 0, last_end = 0;
  for (unsigned i = 0; i < ctx->timeline_count; i++) {
    cl_event ev = ctx->timeline_log[i].ev;
    cl_ulong queued = 0, start = 0, end = 0;
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_QUEUED, sizeof queued, &queued, NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    if (i == 0) origin = last_end = start;
    /* Idle: since the kernels before ended. Flagged when the kernel was
     * enqueued only after that: the device waited for the host. */
    double idle = start > last_end ? (start - last_end) * 1e-3 : 0.0;
    fprintf(stderr,
            "clsort timeline: %-26s queued %9.1f  start %9.1f  end %9.1f us"
            "  idle before %7.1f us%s\n",
            ctx->timeline_log[i].name, ((double)queued - (double)origin) * 1e-3,
            (start - origin) * 1e-3, (end - origin) * 1e-3, idle,
            queued > last_end && i > 0 ? " (enqueued after the device went idle)" : "");
    if (end > last_end) last_end = end;
    clReleaseEvent(ev);
  }
  ctx->timeline_count = 0;
}

cl_int clsort__wait_event(const clsort_context *ctx, cl_event ev) {
  double until = clsort__now_ms() + ctx->wait_spin_us * 1e-3;
  for (;;) {
    cl_int status = CL_QUEUED;
    cl_int err =
        clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    /* Done, failed, unknown or too long: the blocking wait says which. */
    if (err != CL_SUCCESS || status <= CL_COMPLETE || clsort__now_ms() >= until) break;
  }
  return clWaitForEvents(1, &ev);
}
