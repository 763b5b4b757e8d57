/* partition.c: the first step of the partition-first flow, which sorts
 * every key once on the device instead of twice: this rank's unsorted
 * input scattered into one run per destination, each run in input order
 * (so that a stable sort after the exchange keeps ties in global input
 * order). Each thread takes one contiguous chunk of the input, counts its
 * elements per destination, then (after one prefix sum over the thread x
 * destination table) writes them to their places. */
#include "mpi_internal.h"

#include <stdlib.h>

/* A splitter as seen from this rank: an element (order o, index i) of
 * this rank belongs at or past the splitter's destination when
 * (order, pos) <= (o, i). A splitter of a lower rank with equal order lies
 * below every element of this rank with that order, one of a higher rank
 * above them: (order, 0) and (order + 1, 0). */
typedef struct bound {
  uint64_t order, pos;
} bound;

static const bound above_all = {UINT64_MAX, UINT64_MAX};

static bound bound_of(const clsort_mpi__splitter *s, int rank) {
  if (!s->valid) return above_all;
  if (s->rank < rank) return (bound){s->order, 0};
  if (s->rank == rank) return (bound){s->order, s->pos};
  return s->order == UINT64_MAX ? above_all : (bound){s->order + 1, 0};
}

typedef struct part_job {
  clsort_mpi__order order;
  const unsigned char *keys, *values;
  size_t ks, vs;
  uint64_t n;
  bound *bounds; /* 2^levels - 1 of them, sorted, padded with above_all */
  unsigned levels;
  int dests;
  unsigned threads;
  /* Per thread, `stride` entries apart (a cache line of its own): its
   * counts per destination, then its write positions. */
  uint64_t *table;
  size_t stride;
  unsigned char *out_keys, *out_values;
} part_job;

/* How many splitters lie at or below element i: a branch-free binary
 * search over the padded bounds. */
static inline unsigned dest_of(const part_job *p, uint64_t i) {
  uint64_t o = clsort_mpi__order_of(&p->order, p->keys, i);
  unsigned d = 0;
  for (unsigned half = (1u << p->levels) >> 1; half; half >>= 1) {
    const bound *b = &p->bounds[d + half - 1];
    d += (b->order < o || (b->order == o && b->pos <= i)) ? half : 0;
  }
  return d;
}

static uint64_t chunk_start(const part_job *p, unsigned t) {
  return p->n / p->threads * t + (t < p->n % p->threads ? t : p->n % p->threads);
}

static void count_chunk(void *raw, unsigned t) {
  part_job *p = raw;
  uint64_t *counts = p->table + t * p->stride;
  for (uint64_t i = chunk_start(p, t), end = chunk_start(p, t + 1); i < end; i++)
    counts[dest_of(p, i)]++;
}

static void scatter_chunk(void *raw, unsigned t) {
  part_job *p = raw;
  uint64_t *at = p->table + t * p->stride + p->dests;
  size_t ks = p->ks, vs = p->vs;
  for (uint64_t i = chunk_start(p, t), end = chunk_start(p, t + 1); i < end; i++) {
    uint64_t o = at[dest_of(p, i)]++;
    clsort_mpi__copy_element(p->out_keys + o * ks, p->keys + i * ks, ks);
    if (p->values) clsort_mpi__copy_element(p->out_values + o * vs, p->values + i * vs, vs);
  }
}

clsort_status clsort_mpi__partition(clsort_type type, bool descending, int rank, int size,
                                    const clsort_mpi__splitter *splitters, const void *keys,
                                    const void *values, size_t value_size, uint64_t n,
                                    void *out_keys, void *out_values, uint64_t *counts,
                                    unsigned threads) {
  part_job p = {.order = clsort_mpi__order_for(type, descending),
                .keys = keys,
                .values = values,
                .ks = clsort_type_size(type),
                .vs = value_size,
                .n = n,
                .bounds = NULL,
                .levels = 0,
                .dests = size,
                .threads = 1,
                .table = NULL,
                .stride = 0,
                .out_keys = out_keys,
                .out_values = out_values};
  while ((1u << p.levels) < (unsigned)size) p.levels++;
  p.threads = clsort_mpi__threads_for(n, p.ks, threads);
  p.stride = (2 * (size_t)size + 15) / 16 * 16; /* 128 bytes */
  p.bounds = malloc(((size_t)1 << p.levels) * sizeof *p.bounds);
  p.table = aligned_alloc(128, p.threads * p.stride * sizeof *p.table);
  if (!p.bounds || !p.table) {
    free(p.bounds);
    free(p.table);
    return clsort_mpi__fail(CLSORT_ERROR_OUT_OF_MEMORY,
                            "no host memory for the partition into %d runs", size);
  }
  for (size_t d = 0; d + 1 < ((size_t)1 << p.levels); d++)
    p.bounds[d] = d + 1 < (size_t)size ? bound_of(&splitters[d], rank) : above_all;
  memset(p.table, 0, p.threads * p.stride * sizeof *p.table);

  clsort_mpi__run_threads(p.threads, count_chunk, &p);
  /* Run d holds every thread's elements of d, thread by thread. */
  uint64_t start = 0;
  for (int d = 0; d < size; d++) {
    counts[d] = 0;
    for (unsigned t = 0; t < p.threads; t++) {
      uint64_t *row = p.table + t * p.stride;
      row[size + d] = start;
      start += row[d];
      counts[d] += row[d];
    }
  }
  clsort_mpi__run_threads(p.threads, scatter_chunk, &p);
  free(p.bounds);
  free(p.table);
  return CLSORT_SUCCESS;
}
