/* test_partition.c: the distributed sort's partition (src/mpi/partition.c)
 * alone, without MPI ranks, so that every shape of it runs: up to 16
 * destinations (thresholds per piece of a chunk), more (the search into
 * a byte per element) and more than 256 (the search, twice),
 * every key size, splitters of this rank, of lower and higher ranks,
 * at the largest order and above every element, one and several threads.
 * Each output is checked against a reference that compares every element
 * with every splitter as (key, rank, index): the runs' lengths, and each
 * run holding its elements in input order (stability). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_internal.h"

static int failures;
static uint64_t state = 0x5eed;

static uint64_t next(void) {
  uint64_t z = (state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static int compare_splitters(const void *pa, const void *pb) {
  const clsort_mpi__splitter *a = pa, *b = pb;
  if (a->valid != b->valid) return a->valid > b->valid ? -1 : 1;
  if (a->order != b->order) return a->order < b->order ? -1 : 1;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Splitter at or below element (o, rank, i)? */
static bool at_or_below(const clsort_mpi__splitter *s, uint64_t o, int rank, uint64_t i) {
  if (!s->valid) return false;
  if (s->order != o) return s->order < o;
  if (s->rank != rank) return s->rank < rank;
  return s->pos <= i;
}

static void one_case(clsort_type type, int size, int rank, int pattern, uint64_t n,
                     unsigned threads) {
  clsort_mpi__order order = clsort_mpi__order_for(type, false);
  size_t ks = order.ks;
  uint64_t all = ks == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * ks)) - 1;
  unsigned char *keys = malloc(n * ks + 1), *out = malloc(n * ks + 1);
  uint64_t *values = malloc(n * 8 + 8), *out_values = malloc(n * 8 + 8);
  uint64_t *counts = calloc((size_t)size, sizeof *counts);
  uint64_t *want = calloc((size_t)size, sizeof *want);
  clsort_mpi__splitter *splitters = calloc((size_t)size, sizeof *splitters);
  /* Keys: 0 random, 1 few unique (some at the largest value), 2 all equal
   * to the largest value. Bits as they come: the order map is what the
   * splitters are taken from. */
  for (uint64_t i = 0; i < n; i++) {
    uint64_t v = pattern == 0 ? next() : pattern == 1 ? (next() % 5 == 0 ? all : next() % 7) : all;
    memcpy(keys + i * ks, &v, ks); /* little-endian: the low bytes */
    values[i] = i;
  }
  /* Splitters: orders of elements (with their ranks: this one, lower and
   * higher), one at the largest order, and a few above every element. */
  int invalid = size > 3 ? (int)(next() % 3) : 0;
  for (int d = 0; d + 1 < size; d++) {
    uint64_t i = n ? next() % n : 0;
    int r = (int)(next() % 3) - 1 + rank;
    clsort_mpi__splitter s = {n ? clsort_mpi__order_of(&order, keys, i) : 0, i, r, 1};
    if (d == 0) s.order = all; /* the largest order */
    if (d + 1 >= size - invalid) s = (clsort_mpi__splitter){0, 0, 0, 0};
    splitters[d] = s;
  }
  qsort(splitters, (size_t)size - 1, sizeof *splitters, compare_splitters);
  clsort_status st = clsort_mpi__partition(type, false, rank, size, splitters, keys, values, 8, n,
                                           out, out_values, counts, threads);
  if (st != CLSORT_SUCCESS) {
    printf("FAIL %s P=%d: %s\n", clsort_type_name(type), size, clsort_status_name(st));
    failures++;
    goto done;
  }
  /* The reference: destinations by the full comparison, runs in input
   * order one after another. */
  uint64_t *at = calloc((size_t)size + 1, sizeof *at);
  for (uint64_t i = 0; i < n; i++) {
    uint64_t o = clsort_mpi__order_of(&order, keys, i);
    int d = 0;
    while (d + 1 < size && at_or_below(&splitters[d], o, rank, i)) d++;
    want[d]++;
  }
  for (int d = 0; d < size; d++) at[d + 1] = at[d] + want[d];
  bool ok = true;
  for (int d = 0; d < size; d++) ok = ok && counts[d] == want[d];
  for (uint64_t i = 0; i < n && ok; i++) {
    uint64_t o = clsort_mpi__order_of(&order, keys, i);
    int d = 0;
    while (d + 1 < size && at_or_below(&splitters[d], o, rank, i)) d++;
    uint64_t w = at[d]++;
    ok = out_values[w] == i && memcmp(out + w * ks, keys + i * ks, ks) == 0;
  }
  if (!ok) {
    printf("FAIL %s P=%d rank %d pattern %d n=%" PRIu64 " threads %u: runs differ from the "
           "reference\n",
           clsort_type_name(type), size, rank, pattern, n, threads);
    failures++;
  }
  free(at);
done:
  free(keys);
  free(out);
  free(values);
  free(out_values);
  free(counts);
  free(want);
  free(splitters);
}

int main(void) {
  /* Threads from 64 KiB of keys, so that small inputs cut into chunks. */
  setenv("CLSORT_MPI_HELPER_BYTES", "65536", 1);
  static const clsort_type types[] = {CLSORT_U8, CLSORT_I16, CLSORT_F32, CLSORT_U32, CLSORT_I64,
                                      CLSORT_F64};
  static const int sizes[] = {1, 2, 3, 4, 7, 16, 17, 40, 300};
  int cases = 0;
  for (int t = 0; t < 6; t++)
    for (int s = 0; s < 9; s++)
      for (int pattern = 0; pattern < 3; pattern++)
        for (unsigned threads = 1; threads <= 4; threads += 3) {
          int size = sizes[s];
          one_case(types[t], size, (int)(next() % (uint64_t)size), pattern,
                   pattern == 0 && s == 0 ? 0 : 30000 + next() % 1000, threads);
          cases++;
        }
  printf("test_partition: %d cases, %d failures\n", cases, failures);
  return failures ? 1 : 0;
}
