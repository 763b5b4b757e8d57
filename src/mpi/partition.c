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

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* How many splitters lie at or below element i (order o): a binary search
 * over the padded bounds, without branches (on random keys each step's
 * branch would be mispredicted half the time: 3x slower). */
static ALWAYS_INLINE unsigned dest_of(const bound *bounds, unsigned levels, uint64_t o,
                                      uint64_t i) {
  unsigned d = 0;
  if (levels <= 4) {
    /* Up to 15 bounds (16 destinations): counted side by side, without
     * the search's chain of dependent loads (2x faster at 8). */
    for (unsigned k = 0; k + 1 < (1u << levels); k++)
      d += (unsigned)(bounds[k].order < o) |
           ((unsigned)(bounds[k].order == o) & (unsigned)(bounds[k].pos <= i));
    return d;
  }
  for (unsigned half = (1u << levels) >> 1; half; half >>= 1) {
    const bound *b = &bounds[d + half - 1];
    unsigned at_or_below =
        (unsigned)(b->order < o) | ((unsigned)(b->order == o) & (unsigned)(b->pos <= i));
    d += half & (0u - at_or_below);
  }
  return d;
}

static uint64_t chunk_start(const part_job *p, unsigned t) {
  return p->n / p->threads * t + (t < p->n % p->threads ? t : p->n % p->threads);
}

/* Elements lo .. hi - 1, counted (out_keys NULL) or scattered through the
 * write positions `at`; inlined per key size and search depth, so that
 * the key loads and copies have constant sizes. With thresholds c (up to
 * 16 destinations), element (o, i) is past bound k when o >= c[k]: one
 * comparison a bound. Locals hold what the loop reads, since its stores
 * could otherwise alias the job. */
static ALWAYS_INLINE void run_range(const part_job *p, uint64_t lo, uint64_t hi, size_t ks,
                                    unsigned levels, const uint64_t *c, uint64_t *at) {
  clsort_mpi__order order = p->order;
  order.ks = ks;
  const bound *bounds = p->bounds;
  const unsigned splitters = (unsigned)p->dests - 1;
  const unsigned char *keys = p->keys, *values = p->values;
  unsigned char *out_keys = p->out_keys, *out_values = p->out_values;
  const size_t vs = p->vs;
  for (uint64_t i = lo; i < hi; i++) {
    uint64_t key = clsort_mpi__order_of(&order, keys, i);
    unsigned d = 0;
    if (c)
      for (unsigned k = 0; k + 1 < (1u << levels); k++)
        d += (unsigned)(k < splitters) & (unsigned)(key >= c[k]);
    else
      d = dest_of(bounds, levels, key, i);
    if (!out_keys) {
      at[d]++;
      continue;
    }
    uint64_t o = at[d]++;
    clsort_mpi__copy_element(out_keys + o * ks, keys + i * ks, ks);
    if (values) clsort_mpi__copy_element(out_values + o * vs, values + i * vs, vs);
  }
}

/* One thread's chunk. Up to 16 destinations, it is cut where a bound of
 * this rank's own (pos > 0) starts to apply: within each piece, element
 * (o, i) is past bound k exactly when o >= order + (i < pos), a constant
 * per piece (3x faster than comparing (order, pos) with (o, i) for every
 * element). A threshold past the largest order (only 8-byte keys can
 * reach it) leaves the piece to the search. */
static ALWAYS_INLINE void pass(const part_job *p, unsigned t, size_t ks, unsigned levels,
                               uint64_t *at) {
  uint64_t lo = chunk_start(p, t), end = chunk_start(p, t + 1);
  if (levels > 4) {
    run_range(p, lo, end, ks, levels, NULL, at);
    return;
  }
  const unsigned splitters = (unsigned)p->dests - 1;
  while (lo < end) {
    uint64_t hi = end, c[15] = {0};
    bool exact = true;
    for (unsigned k = 0; k < splitters; k++) {
      const bound *b = &p->bounds[k];
      if (b->pos > lo && b->pos < hi) hi = b->pos;
      uint64_t after = lo < b->pos; /* the piece lies before pos */
      if (b->order == UINT64_MAX && after) {
        if (ks < 8)
          c[k] = (uint64_t)1 << (8 * ks); /* above every key of this size */
        else
          exact = false;
      } else {
        c[k] = b->order + after;
      }
    }
    run_range(p, lo, hi, ks, levels, exact ? c : NULL, at);
    lo = hi;
  }
}

/* The common shapes with constants (4- and 8-byte keys, up to 16
 * destinations: an unrolled search), the others as they come. */
static void by_shape(const part_job *p, unsigned t, uint64_t *at) {
  if (p->ks == 4 && p->levels == 1) pass(p, t, 4, 1, at);
  else if (p->ks == 4 && p->levels == 2) pass(p, t, 4, 2, at);
  else if (p->ks == 4 && p->levels == 3) pass(p, t, 4, 3, at);
  else if (p->ks == 4 && p->levels == 4) pass(p, t, 4, 4, at);
  else if (p->ks == 8 && p->levels == 1) pass(p, t, 8, 1, at);
  else if (p->ks == 8 && p->levels == 2) pass(p, t, 8, 2, at);
  else if (p->ks == 8 && p->levels == 3) pass(p, t, 8, 3, at);
  else if (p->ks == 8 && p->levels == 4) pass(p, t, 8, 4, at);
  else if (p->ks == 4) pass(p, t, 4, p->levels, at);
  else if (p->ks == 8) pass(p, t, 8, p->levels, at);
  else if (p->ks == 2) pass(p, t, 2, p->levels, at);
  else pass(p, t, 1, p->levels, at);
}

static void count_chunk(void *raw, unsigned t) {
  part_job *p = raw;
  part_job counting = *p;
  counting.out_keys = NULL;
  by_shape(&counting, t, p->table + t * p->stride);
}

static void scatter_chunk(void *raw, unsigned t) {
  part_job *p = raw;
  by_shape(p, t, p->table + t * p->stride + p->dests);
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
