/* memory.c: the public calls on device and host memory, each under the
 * context's lock; the work is in the runtime layer (budget.c for the
 * device memory limit, transfer.c for pinned host memory), which cannot
 * take the lock itself without calling back up into context.c. */
#include "api/api.h"

clsort_status clsort_context_set_memory_limit(clsort_context *ctx, size_t bytes) {
  return LOCKED(ctx, clsort__set_memory_limit(ctx, bytes));
}

clsort_status clsort_host_alloc(clsort_context *ctx, size_t bytes, void **ptr) {
  return LOCKED(ctx, clsort__host_alloc(ctx, bytes, ptr));
}

clsort_status clsort_host_free(clsort_context *ctx, void *ptr) {
  return LOCKED(ctx, clsort__host_free(ctx, ptr));
}
