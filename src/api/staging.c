/* staging.c: the in-core sort of host arrays on GPUs. The arrays go up
 * through the context's pinned slots (runtime/transfer.c: host threads
 * fill one slot while the link carries the one before; arrays from
 * clsort_host_alloc go straight), the sort runs on the device, and the
 * results come down the same way on a queue of their own. */
#include "api/api.h"

static void release(cl_event *e) {
  if (*e) clReleaseEvent(*e);
  *e = NULL;
}

clsort_status clsort__sort_staged(clsort_context *ctx, const clsort_options *o,
                                  clsort__sort_job job, void *keys, const void *keys_const,
                                  void *values) {
  size_t n = job.n, key_bytes = n * clsort_type_size(job.type), value_bytes = n * job.value_size;
  cl_mem kbuf, vbuf = NULL;
  cl_event ready = NULL, uploaded = NULL, sorted = NULL;
  clsort_status st;
  /* With the debug log on, each step's end, from this call's start: the
   * host time that nothing overlaps shows up between the transfers. */
  bool trace = clsort__debug_enabled();
  double t0 = trace ? clsort__now_ms() : 0, at[6] = {0};
#define STEP(i) (trace ? (void)(at[i] = clsort__now_ms() - t0) : (void)0)
  GOTO_IF_ERROR(clsort__scratch(ctx, SLOT_HOST_IN, key_bytes, &kbuf));
  if (job.value_size) GOTO_IF_ERROR(clsort__scratch(ctx, SLOT_HOST_AUX, value_bytes, &vbuf));
  /* The uploads run on their own queue: they start after whatever the
   * context's queue holds (an earlier call may still read these buffers). */
  GOTO_IF_ERROR(clsort__marker(ctx, &ready));
  STEP(0);
  clsort__piece up[2] = {{kbuf, 0, (void *)keys_const, key_bytes},
                         {vbuf, 0, values, value_bytes}};
  bool send_values = job.value_size && !job.make_index;
  GOTO_IF_ERROR(clsort__upload(ctx, up, send_values ? 2 : 1, 1, &ready, &uploaded));
  STEP(1);
  GOTO_IF_ERROR(clsort__begin(ctx, 1, &uploaded));
  STEP(2);
  job.keys_in = kbuf;
  job.keys_out = job.make_index ? NULL : kbuf;
  job.vals_in = job.make_index ? NULL : vbuf;
  job.vals_out = vbuf;
  GOTO_IF_ERROR(clsort__dispatch_sort(ctx, o, &job));
  STEP(3);
  GOTO_IF_ERROR(clsort__marker(ctx, &sorted));
  STEP(4);
  clsort__piece down[2];
  size_t count = 0;
  if (job.value_size) down[count++] = (clsort__piece){vbuf, 0, values, value_bytes};
  if (keys) down[count++] = (clsort__piece){kbuf, 0, keys, key_bytes};
  GOTO_IF_ERROR(clsort__download(ctx, down, count, 1, &sorted));
  STEP(5);
  clsort__debug("staged sort of %zu keys, ms from the call's start: buffers %.3f, upload %.3f, "
                "wait for it %.3f, sort enqueued %.3f, marker %.3f, download %.3f",
                n, at[0], at[1], at[2], at[3], at[4], at[5]);
#undef STEP
cleanup:
  if (st != CLSORT_SUCCESS) {
    /* Nothing may still read or write the caller's arrays. */
    clFinish(ctx->queue);
    clsort__transfer_finish(ctx);
  }
  release(&ready);
  release(&uploaded);
  release(&sorted);
  return st;
}
