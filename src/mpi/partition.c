/* partition.c: the first step of the partition-first flow, which sorts
 * every key once on the device instead of twice: this rank's unsorted
 * input scattered into one run per destination, each run in input order
 * (so that a stable sort after the exchange keeps ties in global input
 * order). Each thread takes one contiguous chunk of the input, finds each
 * element's destination (kept in a byte per element up to 256
 * destinations) and counts them, then (after one prefix sum over the
 * thread x destination table) writes the elements to their places. */
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
  uint8_t *dest; /* each element's destination; NULL past 256: found again */
  unsigned char *out_keys, *out_values;
} part_job;

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* How many bounds lie at or below element i (order o): a binary search
 * over the padded bounds, without branches (on random keys each step's
 * branch would be mispredicted half the time: 3x slower). */
static ALWAYS_INLINE unsigned search(const bound *bounds, unsigned levels, uint64_t o,
                                     uint64_t i) {
  unsigned d = 0;
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

/* Destinations of elements lo .. hi - 1 by thresholds: base plus the
 * number of thresholds below the key's order, `count` (constant:
 * 2^levels - 1) of them, padded with ones no key passes. Keys of up to 4
 * bytes compare in 32 bits. One comparison a threshold and no branches:
 * 2.7 ns a key on one core of the H100 host at 4 destinations, against
 * 8.5 comparing (order, index) pairs for every element (and 31 on the
 * 2-core machine for a branchy search over them). */
static ALWAYS_INLINE void by_thresholds(const part_job *p, uint64_t lo, uint64_t hi, size_t ks,
                                        unsigned count, const uint64_t *t, unsigned base) {
  clsort_mpi__order order = p->order;
  order.ks = ks;
  const unsigned char *keys = p->keys;
  uint8_t *dest = p->dest;
  if (ks <= 4) {
    uint32_t t32[15];
    for (unsigned k = 0; k < count; k++) t32[k] = (uint32_t)t[k];
    for (uint64_t i = lo; i < hi; i++) {
      uint32_t o = (uint32_t)clsort_mpi__order_of(&order, keys, i);
      unsigned d = base;
      for (unsigned k = 0; k < count; k++) d += o > t32[k];
      dest[i] = (uint8_t)d;
    }
  } else {
    for (uint64_t i = lo; i < hi; i++) {
      uint64_t o = clsort_mpi__order_of(&order, keys, i);
      unsigned d = base;
      for (unsigned k = 0; k < count; k++) d += o > t[k];
      dest[i] = (uint8_t)d;
    }
  }
}

/* Up to 16 destinations, a chunk is cut where a bound of this rank's own
 * (pos > 0) starts to apply: within each piece element (o, i) is at or
 * past bound k exactly when o >= order + (i < pos), a constant c per
 * piece; as o > c - 1 (c = 0: every element, counted in base) it takes
 * no value above the largest order. */
static ALWAYS_INLINE void classify_small(const part_job *p, uint64_t lo, uint64_t end, size_t ks,
                                         unsigned levels) {
  const unsigned count = (1u << levels) - 1;
  while (lo < end) {
    uint64_t hi = end, t[15];
    unsigned base = 0;
    for (unsigned k = 0; k < count; k++) {
      const bound *b = &p->bounds[k];
      if (b->pos > lo && b->pos < hi) hi = b->pos;
      uint64_t after = lo < b->pos; /* the piece lies before pos */
      t[k] = UINT64_MAX;            /* no key passes it */
      if (b->order == 0 && !after)
        base++;
      else if (b->order != UINT64_MAX || !after) /* else above every key */
        t[k] = b->order - 1 + after;
    }
    by_thresholds(p, lo, hi, ks, count, t, base);
    lo = hi;
  }
}

static void classify_chunk(void *raw, unsigned t) {
  part_job *p = raw;
  uint64_t lo = chunk_start(p, t), end = chunk_start(p, t + 1);
  uint64_t *counts = p->table + t * p->stride;
  if (p->dest && p->levels <= 4) {
    /* Constant shapes for the common sizes: 4- and 8-byte keys, 2 to 16
     * destinations. */
    switch (p->ks * 8 + p->levels) {
      case 33: classify_small(p, lo, end, 4, 1); break;
      case 34: classify_small(p, lo, end, 4, 2); break;
      case 35: classify_small(p, lo, end, 4, 3); break;
      case 36: classify_small(p, lo, end, 4, 4); break;
      case 65: classify_small(p, lo, end, 8, 1); break;
      case 66: classify_small(p, lo, end, 8, 2); break;
      case 67: classify_small(p, lo, end, 8, 3); break;
      case 68: classify_small(p, lo, end, 8, 4); break;
      default: classify_small(p, lo, end, p->ks, p->levels);
    }
  } else {
    for (uint64_t i = lo; i < end; i++) {
      unsigned d = search(p->bounds, p->levels, clsort_mpi__order_of(&p->order, p->keys, i), i);
      if (p->dest)
        p->dest[i] = (uint8_t)d;
      else
        counts[d]++;
    }
  }
  if (p->dest)
    for (uint64_t i = lo; i < end; i++) counts[p->dest[i]]++;
}

/* One thread's chunk written through its write positions `at`; inlined
 * per key size, so that the copies have constant sizes. */
static ALWAYS_INLINE void scatter(const part_job *p, unsigned t, size_t ks, uint64_t *at) {
  const uint8_t *dest = p->dest;
  const unsigned char *keys = p->keys, *values = p->values;
  unsigned char *out_keys = p->out_keys, *out_values = p->out_values;
  const size_t vs = p->vs;
  for (uint64_t i = chunk_start(p, t), end = chunk_start(p, t + 1); i < end; i++) {
    unsigned d = dest ? dest[i]
                      : search(p->bounds, p->levels, clsort_mpi__order_of(&p->order, keys, i), i);
    uint64_t o = at[d]++;
    clsort_mpi__copy_element(out_keys + o * ks, keys + i * ks, ks);
    if (values) clsort_mpi__copy_element(out_values + o * vs, values + i * vs, vs);
  }
}

static void scatter_chunk(void *raw, unsigned t) {
  part_job *p = raw;
  uint64_t *at = p->table + t * p->stride + p->dests;
  switch (p->ks) {
    case 4: scatter(p, t, 4, at); break;
    case 8: scatter(p, t, 8, at); break;
    case 2: scatter(p, t, 2, at); break;
    default: scatter(p, t, 1, at);
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
                .dest = NULL,
                .out_keys = out_keys,
                .out_values = out_values};
  while ((1u << p.levels) < (unsigned)size) p.levels++;
  p.threads = clsort_mpi__threads_for(n, p.ks, threads);
  p.stride = (2 * (size_t)size + 15) / 16 * 16; /* 128 bytes */
  p.bounds = malloc(((size_t)1 << p.levels) * sizeof *p.bounds);
  p.table = aligned_alloc(128, p.threads * p.stride * sizeof *p.table);
  clsort_mpi__array dest = {NULL, 0};
  clsort_status st = p.bounds && p.table
                         ? CLSORT_SUCCESS
                         : clsort_mpi__fail(CLSORT_ERROR_OUT_OF_MEMORY,
                                            "no host memory for the partition into %d runs", size);
  if (st == CLSORT_SUCCESS && size <= 256) st = clsort_mpi__array_alloc(n, 0, &dest);
  if (st != CLSORT_SUCCESS) {
    free(p.bounds);
    free(p.table);
    return st;
  }
  p.dest = dest.ptr;
  for (size_t d = 0; d + 1 < ((size_t)1 << p.levels); d++)
    p.bounds[d] = d + 1 < (size_t)size ? bound_of(&splitters[d], rank) : above_all;
  memset(p.table, 0, p.threads * p.stride * sizeof *p.table);

  clsort_mpi__run_threads(p.threads, classify_chunk, &p);
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
  clsort_mpi__array_free(&dest);
  free(p.bounds);
  free(p.table);
  return CLSORT_SUCCESS;
}
