/* timing.h: device time of library calls from OpenCL profiling events, and
 * a monotonic wall clock. */
#ifndef BENCH_TIMING_H
#define BENCH_TIMING_H

#include "clsort.h"

/* A library call enqueues many kernels but returns only its final event.
 * The timer enqueues a 4-byte fill just before the call and measures
 * END(final event) - END(fill): the whole call on the device, launch gaps
 * included, without the host's enqueue latency. When the final event has
 * no usable profiling data (some drivers do not time markers), the timer
 * switches to bracketing the call with a second fill instead. */
typedef struct cl_timer {
  cl_command_queue queue;
  cl_mem marker;
  int bracket; /* 1: bracket with a trailing fill instead of the final event */
} cl_timer;

cl_int timer_init(cl_timer *t, cl_context context, cl_command_queue queue);
void timer_release(cl_timer *t);

/* Enqueues the leading fill; *mark receives its event. */
cl_int timer_begin(cl_timer *t, cl_event *mark);

/* Waits for the call that ended with `final` (may be NULL) and returns its
 * device time in *ms. Releases `mark`, not `final`. *discard is set when
 * this sample cannot be trusted (the method just changed): the caller runs
 * again. */
cl_int timer_end(cl_timer *t, cl_event mark, cl_event final, double *ms, int *discard);

/* "event" or "fill-bracket": how the timer measures now. */
const char *timer_method(const cl_timer *t);

/* Milliseconds on a monotonic clock. */
double wall_ms(void);

#endif
