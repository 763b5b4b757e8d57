/* merge.c: the host's k-way merge of the runs that the exchange brought,
 * the alternative to re-sorting them on the device (CLSORT_MPI_MERGE=host). */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

/* A heap entry: the order key of a run's next element, and the run. Ties
 * go to the lower run, which holds the earlier elements (stability). */
typedef struct head {
  uint64_t order;
  int run;
} head;

static bool before(const head *a, const head *b) {
  return a->order < b->order || (a->order == b->order && a->run < b->run);
}

static void sift_down(head *heap, int n, int i) {
  for (;;) {
    int l = 2 * i + 1, m = i;
    if (l < n && before(&heap[l], &heap[m])) m = l;
    if (l + 1 < n && before(&heap[l + 1], &heap[m])) m = l + 1;
    if (m == i) return;
    head t = heap[i];
    heap[i] = heap[m];
    heap[m] = t;
    i = m;
  }
}

clsort_status clsort_mpi__merge_runs(clsort_type type, bool descending, const void *keys,
                                     const void *values, size_t value_size,
                                     const uint64_t *starts, int runs, void *out_keys,
                                     void *out_values) {
  size_t ks = clsort_type_size(type);
  uint64_t *at = malloc((size_t)runs * sizeof *at);
  head *heap = malloc((size_t)runs * sizeof *heap);
  if (!at || !heap) {
    free(at);
    free(heap);
    return clsort_mpi__fail(CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the merge of %d runs",
                            runs);
  }
  int n = 0;
  for (int r = 0; r < runs; r++) {
    at[r] = starts[r];
    if (starts[r] < starts[r + 1])
      heap[n++] = (head){clsort_mpi__order_key(type, keys, starts[r], descending), r};
  }
  for (int i = n / 2 - 1; i >= 0; i--) sift_down(heap, n, i);
  const unsigned char *k = keys, *v = values;
  unsigned char *ok = out_keys, *ov = out_values;
  for (uint64_t o = 0; n > 0; o++) {
    int r = heap[0].run;
    uint64_t i = at[r]++;
    memcpy(ok + o * ks, k + i * ks, ks);
    if (v) memcpy(ov + o * value_size, v + i * value_size, value_size);
    if (at[r] < starts[r + 1])
      heap[0].order = clsort_mpi__order_key(type, keys, at[r], descending);
    else
      heap[0] = heap[--n];
    sift_down(heap, n, 0);
  }
  free(at);
  free(heap);
  return CLSORT_SUCCESS;
}
