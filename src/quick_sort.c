/* quick_sort.c: the quicksort. Not built yet: it says so. */
#include "sorts.h"

clsort_status clsort__quick_sort(clsort_context *ctx, const clsort__sort_job *job) {
  (void)ctx;
  (void)job;
  return FAIL(CLSORT_ERROR_UNSUPPORTED, "the quicksort is not available in this build");
}
