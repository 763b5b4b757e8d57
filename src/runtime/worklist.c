/* worklist.c: host memory for a sort's small control transfers (the
 * bucket sizes a level reads back, the lists of segments it writes), kept
 * by the context and pinned where the device allows. NVIDIA's driver
 * stages a transfer to or from pageable memory through its own buffer: a
 * read of a level's bucket sizes then held the in-order queue for 60-110
 * us before the next kernel (H100, CLSORT_PROFILE=timeline), where from
 * pinned memory the copy engine moves it directly. */
#include "runtime/runtime.h"

#include <stdlib.h>

/* Below this the worklist is not reallocated: most sorts fit it. */
#define LEAST_BYTES ((size_t)64 << 10)

void clsort__worklist_release(clsort_context *ctx) {
  if (!ctx->worklist) return;
  /* Transfers from or to it may still be queued. */
  clFinish(ctx->queue);
  if (ctx->worklist_pinned)
    clsort__host_free(ctx, ctx->worklist);
  else
    free(ctx->worklist);
  ctx->worklist = NULL;
  ctx->worklist_bytes = 0;
}

clsort_status clsort__worklist(clsort_context *ctx, size_t bytes, void **out) {
  *out = NULL;
  if (bytes <= ctx->worklist_bytes) {
    *out = ctx->worklist;
    return CLSORT_SUCCESS;
  }
  clsort__worklist_release(ctx);
  size_t want = LEAST_BYTES;
  while (want < bytes) want *= 2;
  void *p = NULL;
  /* Pinned memory is a speed-up, not a need: plain memory serves when the
   * device or an injected fault refuses it. */
  bool pinned = clsort__host_alloc(ctx, want, &p) == CLSORT_SUCCESS;
  if (!pinned) p = clsort__malloc(ctx, want);
  RETURN_IF(!p, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for a sort's worklists (%zu bytes)",
            want);
  ctx->worklist = p;
  ctx->worklist_bytes = want;
  ctx->worklist_pinned = pinned;
  *out = p;
  return CLSORT_SUCCESS;
}
