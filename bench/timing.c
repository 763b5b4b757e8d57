/* timing.c: device time from profiling events, and the wall clock. */
#define _POSIX_C_SOURCE 200809L
#include "timing.h"

#include <time.h>

cl_int timer_init(cl_timer *t, cl_context context, cl_command_queue queue) {
  cl_int err = CL_SUCCESS;
  t->queue = queue;
  t->bracket = 0;
  t->marker = clCreateBuffer(context, CL_MEM_READ_WRITE, 4, NULL, &err);
  return err;
}

void timer_release(cl_timer *t) {
  if (t->marker) clReleaseMemObject(t->marker);
  t->marker = NULL;
}

cl_int timer_begin(cl_timer *t, cl_event *mark) {
  static const cl_uint pattern = 0;
  return clEnqueueFillBuffer(t->queue, t->marker, &pattern, sizeof pattern, 0, sizeof pattern, 0,
                             NULL, mark);
}

static cl_int event_end(cl_event ev, cl_ulong *end) {
  return clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof *end, end, NULL);
}

cl_int timer_end(cl_timer *t, cl_event mark, cl_event final, double *ms, int *discard) {
  cl_int err;
  cl_event trailer = NULL;
  cl_ulong start = 0, end = 0;
  *discard = 0;
  *ms = 0.0;
  if (t->bracket || !final) {
    /* Enqueued right behind the call, so the queue never idles between. */
    err = timer_begin(t, &trailer);
    if (err != CL_SUCCESS) goto done;
    err = clWaitForEvents(1, &trailer);
    if (err != CL_SUCCESS) goto done;
    err = event_end(trailer, &end);
  } else {
    err = clWaitForEvents(1, &final);
    if (err != CL_SUCCESS) goto done;
    if (event_end(final, &end) != CL_SUCCESS || end == 0) {
      t->bracket = 1;
      *discard = 1;
      goto done;
    }
  }
  if (err != CL_SUCCESS) goto done;
  err = event_end(mark, &start);
  if (err != CL_SUCCESS) goto done;
  if (end < start) {
    /* A final event stamped before the fill that preceded it in an
     * in-order queue cannot be right: fall back to the bracket. */
    if (!t->bracket) {
      t->bracket = 1;
      *discard = 1;
    }
    goto done;
  }
  *ms = (double)(end - start) * 1e-6;
done:
  if (trailer) clReleaseEvent(trailer);
  if (mark) clReleaseEvent(mark);
  return err;
}

const char *timer_method(const cl_timer *t) { return t->bracket ? "fill-bracket" : "event"; }

double wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
