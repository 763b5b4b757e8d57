/* sorts.h: what every sort algorithm implements, and what sort.c hands
 * them: device buffers already checked, the options resolved. */
#ifndef CLSORT_SORTS_H
#define CLSORT_SORTS_H

#include "internal.h"

/* One sort on device buffers. keys_in is read; the sorted keys go to
 * keys_out (which may be keys_in), or nowhere when keys_out is NULL
 * (argsort). With values: vals_in travel with their keys to vals_out (may
 * be vals_in); with make_index the values are the keys' input positions
 * and vals_in is unused (argsort). value_size 0 means no values. */
typedef struct clsort__sort_job {
  clsort_type type;
  size_t n;
  unsigned begin_bit, end_bit; /* end_bit resolved: never 0 */
  bool descending;
  cl_mem keys_in, keys_out;
  cl_mem vals_in, vals_out;
  size_t value_size;
  bool make_index;
} clsort__sort_job;

clsort_status clsort__radix_sort(clsort_context *ctx, const clsort__sort_job *job);

#endif
