/* splitters.c: where each rank cuts its sorted run for the exchange.
 * Regular samples of every run, each standing for the block of elements up
 * to the next sample, estimate the global position of every sample;
 * the sample nearest each rank's target position becomes a splitter.
 * Elements compare as (key, rank, index), so that equal keys are ordered
 * by their global position and split anywhere, evenly. */
#include "mpi_internal.h"

#include <stdlib.h>

/* 32 bytes, sent as bytes: every rank has the same layout. */
typedef struct sample {
  uint64_t order; /* clsort_mpi__order_key of the key */
  uint64_t pos;   /* its index in its rank's sorted run */
  uint64_t weight; /* elements from it to its rank's next sample */
  int32_t rank;
  int32_t valid; /* 0 for padding from runs with fewer elements than samples */
} sample;

/* Samples per rank: enough that each cut's error (at most one block per
 * rank, N / s in all, plus P) stays a few percent of a rank's share. */
static uint64_t samples_per_rank(MPI_Comm comm, int size) {
  uint64_t s = 32 * (uint64_t)size;
  if (s < 64) s = 64;
  if (s > 8192) s = 8192;
  const char *text = getenv("CLSORT_MPI_OVERSAMPLING");
  /* At most 2^20: 32 MiB of samples per rank, and an int count of bytes. */
  if (text && atoi(text) > 0) s = (uint64_t)atoi(text) < (1u << 20) ? (uint64_t)atoi(text) : 1u << 20;
  /* One value everywhere, whatever the ranks' environments say. */
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_UINT64_T, MPI_MAX, comm);
  return s;
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
                            int rank, const sample *s) {
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

clsort_status clsort_mpi__cut_runs(MPI_Comm comm, clsort_type type, bool descending,
                                   const void *keys, size_t n, const uint64_t *targets,
                                   uint64_t *cuts) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  uint64_t s = samples_per_rank(comm, size);
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
  /* Regular positions floor(j n / s); with n < s several coincide and all
   * but the last of them weigh nothing. */
  for (uint64_t j = 0; j < s && n > 0; j++) {
    uint64_t pos = j * n / s, next = (j + 1) * n / s;
    mine[j] = (sample){clsort_mpi__order_key(type, keys, pos, descending), pos, next - pos, rank,
                       1};
  }
  MPI_Allgather(mine, (int)(s * sizeof *mine), MPI_BYTE, all, (int)(s * sizeof *mine), MPI_BYTE,
                comm);
  free(mine);
  uint64_t count = s * (uint64_t)size;
  qsort(all, count, sizeof *all, compare_samples);

  /* Every rank walks the same sorted samples: the estimated position of a
   * sample is the weight of the samples before it. For each rank's target
   * the nearest estimate wins; past the last sample lies the end (N). */
  cuts[0] = 0;
  cuts[size] = n;
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
    cuts[d] = pick >= valid ? n : lower_bound(type, descending, keys, n, rank, &all[pick]);
  }
  free(all);
  return CLSORT_SUCCESS;
}
