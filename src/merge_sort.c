/* merge_sort.c: the merge sort. Not built yet: it says so. */
#include "sorts.h"

clsort_status clsort__merge_sort(clsort_context *ctx, const clsort__sort_job *job) {
  (void)ctx;
  (void)job;
  return FAIL(CLSORT_ERROR_UNSUPPORTED, "the merge sort is not available in this build");
}
