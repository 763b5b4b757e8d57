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
  GOTO_IF_ERROR(clsort__scratch(ctx, SLOT_HOST_IN, key_bytes, &kbuf));
  if (job.value_size) GOTO_IF_ERROR(clsort__scratch(ctx, SLOT_HOST_AUX, value_bytes, &vbuf));
  /* The uploads run on their own queue: they start after whatever the
   * context's queue holds (an earlier call may still read these buffers). */
  GOTO_IF_ERROR(clsort__marker(ctx, &ready));
  clsort__piece up[2] = {{kbuf, 0, (void *)keys_const, key_bytes},
                         {vbuf, 0, values, value_bytes}};
  bool send_values = job.value_size && !job.make_index;
  GOTO_IF_ERROR(clsort__upload(ctx, up, send_values ? 2 : 1, 1, &ready, &uploaded));
  GOTO_IF_ERROR(clsort__begin(ctx, 1, &uploaded));
  job.keys_in = kbuf;
  job.keys_out = job.make_index ? NULL : kbuf;
  job.vals_in = job.make_index ? NULL : vbuf;
  job.vals_out = vbuf;
  GOTO_IF_ERROR(clsort__dispatch_sort(ctx, o, &job));
  GOTO_IF_ERROR(clsort__marker(ctx, &sorted));
  clsort__piece down[2];
  size_t count = 0;
  if (job.value_size) down[count++] = (clsort__piece){vbuf, 0, values, value_bytes};
  if (keys) down[count++] = (clsort__piece){kbuf, 0, keys, key_bytes};
  GOTO_IF_ERROR(clsort__download(ctx, down, count, 1, &sorted));
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
