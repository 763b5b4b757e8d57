/* splitters.c: the splitters of the exchange, and where each rank cuts
 * its sorted run at them. Every rank's input is cut into s blocks of
 * (about) n / s elements, and one sample is taken from each block,
 * standing for the block: its first element when the input is sorted
 * (regular samples), an element at a pseudo-random place in it when not
 * (stratified random samples: unbiased on any order of the input, and no
 * pattern of the input can alias with the sampling). The samples' weights
 * estimate the global position of every sample; the sample nearest each
 * rank's target position becomes a splitter. Elements compare as (key,
 * rank, index), so that equal keys are ordered by their global position
 * and split anywhere, evenly. */
#include "mpi_internal.h"

#include <stdlib.h>

/* 32 bytes, sent as bytes: every rank has the same layout. */
typedef struct sample {
  uint64_t order; /* clsort_mpi__order_key of the key */
  uint64_t pos;   /* its index in its rank's input (sorted or not) */
  uint64_t weight; /* the elements of its block */
  int32_t rank;
  int32_t valid; /* 0 for empty blocks (n < s) */
} sample;

/* Samples per rank. Sorted runs: enough that each cut's error (at most
 * one block per rank, N / s in all, plus P) stays a few percent of a
 * rank's share. Random samples: a destination's share q = 1 / P of the
 * data is estimated from S = s P samples with a relative standard error
 * of at most sqrt((1 - q) / (q S)) = sqrt((P - 1) / S): 1.6% at P = 2
 * for s = 1024 P, less for more ranks, under 1.1% at the cap of 8192;
 * the largest receive stays within 1.1x the mean by four such errors
 * (stratified samples do better still). */
static uint64_t samples_per_rank(MPI_Comm comm, int size, bool sorted, uint64_t n) {
  uint64_t s = (sorted ? 32 : 1024) * (uint64_t)size;
  if (s < 64) s = 64;
  if (s > 8192) s = 8192;
  const char *text = getenv("CLSORT_MPI_OVERSAMPLING");
  /* At most 2^20: 32 MiB of samples per rank, and an int count of bytes. */
  if (text && atoi(text) > 0) s = (uint64_t)atoi(text) < (1u << 20) ? (uint64_t)atoi(text) : 1u << 20;
  /* One value everywhere, whatever the ranks' environments say, and not
   * more than the largest rank's count: there every element is already a
   * block of its own, and more samples only cost their sort (7 ranks of a
   * few hundred keys each spent most of a call sorting 7 x 7168 samples). */
  uint64_t v[2] = {s, n};
  MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_UINT64_T, MPI_MAX, comm);
  s = v[0] < v[1] ? v[0] : v[1];
  return s > 0 ? s : 1;
}

static int compare_samples(const void *pa, const void *pb) {
  const sample *a = pa, *b = pb;
  if (a->valid != b->valid) return a->valid > b->valid ? -1 : 1;
  if (a->order != b->order) return a->order < b->order ? -1 : 1;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return (a->pos > b->pos) - (a->pos < b->pos);
}

/* The first index of the run not below the splitter in (key, rank, index). */
static uint64_t lower_bound(clsort_type type, bool descending, const void *keys, uint64_t n,
                            int rank, const clsort_mpi__splitter *s) {
  uint64_t lo = 0, hi = n;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    uint64_t o = clsort_mpi__order_key(type, keys, mid, descending);
    bool below = o < s->order ||
                 (o == s->order && (rank < s->rank || (rank == s->rank && mid < s->pos)));
    if (below)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* A well-mixed 64-bit number from (rank, block): splitmix64's finaliser.
 * The same on every run, so that a sort is reproducible. */
static uint64_t mix(uint64_t x) {
  x += UINT64_C(0x9e3779b97f4a7c15);
  x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
  return x ^ (x >> 31);
}

clsort_status clsort_mpi__choose_splitters(MPI_Comm comm, clsort_type type, bool descending,
                                           const void *keys, size_t n, bool sorted,
                                           const uint64_t *targets,
                                           clsort_mpi__splitter *splitters) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  uint64_t s = samples_per_rank(comm, size, sorted, n);
  sample *mine = calloc(s, sizeof *mine);
  sample *all = malloc(s * (uint64_t)size * sizeof *all);
  clsort_status st = CLSORT_SUCCESS;
  if (!mine || !all)
    st = clsort_mpi__fail(CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for %llu samples",
                          (unsigned long long)(s * (uint64_t)size));
  /* Agreed before the gather, so that no rank waits in it alone. */
  st = clsort_mpi__agree(comm, st);
  if (st != CLSORT_SUCCESS) {
    free(mine);
    free(all);
    return st;
  }
  /* Blocks [floor(j n / s), floor((j + 1) n / s)); with n < s some are
   * empty and give no sample (valid 0). */
  for (uint64_t j = 0; j < s && n > 0; j++) {
    uint64_t lo = j * n / s, next = (j + 1) * n / s;
    if (next == lo) continue;
    uint64_t pos = sorted ? lo : lo + mix(((uint64_t)rank << 32) ^ j) % (next - lo);
    mine[j] = (sample){clsort_mpi__order_key(type, keys, pos, descending), pos, next - lo, rank,
                       1};
  }
  MPI_Allgather(mine, (int)(s * sizeof *mine), MPI_BYTE, all, (int)(s * sizeof *mine), MPI_BYTE,
                comm);
  free(mine);
  uint64_t count = s * (uint64_t)size;
  qsort(all, count, sizeof *all, compare_samples);

  /* Every rank walks the same sorted samples: the estimated position of a
   * sample is the weight of the samples before it. For each rank's target
   * the nearest estimate wins; past the last sample lies the end (N), a
   * splitter above every element (valid 0). */
  uint64_t valid = 0;
  while (valid < count && all[valid].valid) valid++;
  uint64_t i = 0, before = 0;
  for (int d = 1; d < size; d++) {
    uint64_t t = targets[d];
    while (i < valid && before + all[i].weight <= t) before += all[i++].weight;
    /* Sample i's estimate `before` <= t < the next one's (sample i + 1,
     * or the end: the weights add up to the total). */
    uint64_t pick = i;
    if (i < valid && t - before > before + all[i].weight - t) pick = i + 1;
    clsort_mpi__splitter *out = &splitters[d - 1];
    *out = (clsort_mpi__splitter){0, 0, 0, 0};
    if (pick < valid)
      *out = (clsort_mpi__splitter){all[pick].order, all[pick].pos, all[pick].rank, 1};
  }
  free(all);
  return CLSORT_SUCCESS;
}

clsort_status clsort_mpi__cut_runs(MPI_Comm comm, clsort_type type, bool descending,
                                   const void *keys, size_t n, const uint64_t *targets,
                                   uint64_t *cuts) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  clsort_mpi__splitter *splitters = calloc((size_t)size, sizeof *splitters);
  clsort_status st = clsort_mpi__agree(
      comm, splitters ? CLSORT_SUCCESS
                      : clsort_mpi__fail(CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for splitters"));
  if (st == CLSORT_SUCCESS)
    st = clsort_mpi__choose_splitters(comm, type, descending, keys, n, true, targets, splitters);
  if (st == CLSORT_SUCCESS) {
    cuts[0] = 0;
    cuts[size] = n;
    for (int d = 1; d < size; d++)
      cuts[d] = splitters[d - 1].valid
                    ? lower_bound(type, descending, keys, n, rank, &splitters[d - 1])
                    : n;
  }
  free(splitters);
  return st;
}
