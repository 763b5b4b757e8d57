/* merge.c: the host's k-way merge of the runs that the exchange brought,
 * the alternative to re-sorting them on the device (CLSORT_MPI_MERGE=host).
 *
 * The output is cut into one range per thread: the co-ranks of a cut (how
 * many elements of each run come before it) come from a search over order
 * keys, the smallest order v with at least d elements at or below it;
 * the elements below v come first, then those equal to v in run order, as
 * the stable merge takes them. Each thread then merges its own slices of
 * the runs: the first of a few runs' heads found by a scan, of many by a
 * heap. */
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

/* One merge: the runs, the outputs, and the cuts between the threads. */
typedef struct merge_job {
  clsort_mpi__order order;
  const unsigned char *keys, *values;
  size_t ks, vs;
  const uint64_t *starts;
  int runs;
  uint64_t total;
  unsigned char *out_keys, *out_values;
  unsigned threads;
  uint64_t *co;         /* (threads + 1) x runs: positions in keys of each cut */
  /* Each thread's read positions and heap, `stride` bytes apart: threads
   * that wrote into one cache line would take it from each other at every
   * element (the first version ran 10x slower on 8 threads). */
  unsigned char *state;
  size_t stride;
} merge_job;

static uint64_t order_at(const merge_job *m, uint64_t i) {
  return clsort_mpi__order_of(&m->order, m->keys, i);
}

/* dst = src, `size` bytes: constant sizes, so that the copies inline. */
/* Elements of run r whose order is below v (or at most v, with `equal`). */
static uint64_t count_below(const merge_job *m, int r, uint64_t v, bool equal) {
  uint64_t lo = m->starts[r], hi = m->starts[r + 1];
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2, o = order_at(m, mid);
    if (o < v || (equal && o == v))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - m->starts[r];
}

/* co[r]: where run r stands after the first d outputs. */
static void cut_at(const merge_job *m, uint64_t d, uint64_t *co) {
  uint64_t lo = 0, hi = UINT64_MAX;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2, at_most = 0;
    for (int r = 0; r < m->runs; r++) at_most += count_below(m, r, mid, true);
    if (at_most >= d)
      hi = mid;
    else
      lo = mid + 1;
  }
  uint64_t left = d;
  for (int r = 0; r < m->runs; r++) {
    co[r] = count_below(m, r, lo, false);
    left -= co[r];
  }
  for (int r = 0; r < m->runs; r++) {
    uint64_t equal = count_below(m, r, lo, true) - co[r], take = equal < left ? equal : left;
    co[r] += take;
    left -= take;
  }
  for (int r = 0; r < m->runs; r++) co[r] += m->starts[r];
}

/* The run whose head comes first among the n live heads: a scan, without
 * branches on the keys (a heap's sift mispredicts about every other
 * compare on random keys: 4 runs of uniform keys merged at 62 ns a key on
 * the H100 host, against 17 on Zipf keys). */
static int first_head(const head *heads, int n) {
  int b = 0;
  for (int i = 1; i < n; i++) {
    bool lt = (heads[i].order < heads[b].order) |
              ((heads[i].order == heads[b].order) & (heads[i].run < heads[b].run));
    b = lt ? i : b;
  }
  return b;
}

/* Runs up to this many are scanned (first_head); more go through a heap. */
#define SCAN_RUNS 16

/* The first output of thread t: the outputs split as evenly as they go. */
static uint64_t share_start(const merge_job *m, unsigned t) {
  uint64_t rest = m->total % m->threads;
  return m->total / m->threads * t + (t < rest ? t : rest);
}

/* Thread t: its cut, then the merge of [cut t, cut t + 1) of every run. */
static void merge_share(merge_job *m, unsigned t) {
  uint64_t out = share_start(m, t);
  /* Its own copy of its cut: the next thread starts from the same cut. */
  uint64_t *lo = (uint64_t *)(void *)(m->state + t * m->stride);
  head *heads = (head *)(void *)(lo + m->runs);
  const uint64_t *hi = m->co + (size_t)(t + 1) * m->runs;
  memcpy(lo, m->co + (size_t)t * m->runs, (size_t)m->runs * sizeof *lo);
  int n = 0;
  for (int r = 0; r < m->runs; r++)
    if (lo[r] < hi[r]) heads[n++] = (head){order_at(m, lo[r]), r};
  bool scan = n <= SCAN_RUNS;
  if (!scan)
    for (int i = n / 2 - 1; i >= 0; i--) sift_down(heads, n, i);
  size_t ks = m->ks, vs = m->vs;
  for (uint64_t o = out; n > 0; o++) {
    int h = scan ? first_head(heads, n) : 0, r = heads[h].run;
    uint64_t i = lo[r]++;
    clsort_mpi__copy_element(m->out_keys + o * ks, m->keys + i * ks, ks);
    if (m->values) clsort_mpi__copy_element(m->out_values + o * vs, m->values + i * vs, vs);
    if (lo[r] < hi[r])
      heads[h].order = order_at(m, lo[r]);
    else
      heads[h] = heads[--n];
    if (!scan) sift_down(heads, n, 0);
  }
}

static void share_thread(void *raw, unsigned t) { merge_share(raw, t); }

clsort_status clsort_mpi__merge_runs(clsort_type type, bool descending, const void *keys,
                                     const void *values, size_t value_size,
                                     const uint64_t *starts, int runs, void *out_keys,
                                     void *out_values, unsigned threads) {
  merge_job m = {clsort_mpi__order_for(type, descending), keys, values, clsort_type_size(type),
                 value_size, starts, runs, starts[runs] - starts[0], out_keys, out_values, 1,
                 NULL, NULL, 0};
  m.threads = clsort_mpi__threads_for(m.total, m.ks, threads);
  m.co = malloc(((size_t)m.threads + 1) * (size_t)runs * sizeof *m.co);
  m.stride = ((size_t)runs * (sizeof(uint64_t) + sizeof(head)) + 127) / 128 * 128;
  m.state = aligned_alloc(128, m.threads * m.stride);
  if (!m.co || !m.state) {
    free(m.co);
    free(m.state);
    return clsort_mpi__fail(CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the merge of %d runs",
                            runs);
  }
  for (int r = 0; r < runs; r++) {
    m.co[r] = starts[r];
    m.co[(size_t)m.threads * runs + r] = starts[r + 1];
  }
  for (unsigned t = 1; t < m.threads; t++) cut_at(&m, share_start(&m, t), m.co + (size_t)t * runs);
  clsort_mpi__run_threads(m.threads, share_thread, &m);
  free(m.co);
  free(m.state);
  return CLSORT_SUCCESS;
}
