/* bench_mpi.c: clsort-mpi-bench, the distributed sort's time per phase
 * under mpirun, beside the MPI library's own MPI_Alltoallv for the same
 * bytes in the same run.
 *
 * usage: mpirun -np P clsort-mpi-bench [--weak N | --strong N] [--type T]
 *          [--pairs] [--dist D] [--reps R] [--device SPEC]
 *   --weak N     N keys per rank (weak scaling; default 2^20)
 *   --strong N   N keys in all, split evenly (strong scaling)
 *   --type T     u32 (default), i32, f32, u64, i64, f64
 *   --pairs      8-byte values move with the keys
 *   --dist D     uniform (default), all-equal, few-unique (16 values), zipf
 *   --reps R     timed runs after one warm-up (default 5); the fastest
 *                whole sort is reported, its phases as the slowest rank saw
 *                them, and the fastest MPI_Alltoallv (warm buffers, so its
 *                pages are faulted in; the sort's receive buffer is fresh
 *                on every call)
 * CLSORT_MPI_PHASE_BARRIERS=1 is set (unless set otherwise): a barrier
 * before each phase, so that each phase's time is its own.
 * Every run's output is checked (each slice sorted, the boundaries between
 * ranks in order); a failed check exits 1. */
#define _DEFAULT_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "clsort_mpi.h"

static int rank, size;

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* Keys: random bits (uniform; floats too: their few NaNs sort by bits like
 * any key), all equal, 16 distinct values, or Zipf-like (value k about as
 * often as 1 / k^1.2). */
static void fill(unsigned char *keys, uint64_t bytes, uint64_t seed, const char *dist) {
  uint64_t x = seed;
  int equal = !strcmp(dist, "all-equal"), few = !strcmp(dist, "few-unique"),
      zipf = !strcmp(dist, "zipf");
  for (uint64_t i = 0; i + 8 <= bytes; i += 8) {
    uint64_t r = splitmix64(&x);
    if (equal) r = 0x4000000040000000u;
    if (few) r = (r & 15) * 0x0100000001000000u;
    if (zipf) {
      double u = ((double)(r >> 11) + 1.0) * 0x1p-53;
      r = (uint64_t)fmin(pow(u, -1.0 / 1.2), 1e9) * 0x0000000100000001u;
    }
    memcpy(keys + i, &r, 8);
  }
}

/* Is the slice in order, and above the rank below's last key? Compared
 * through libclsort itself is not possible on the host: a small order map
 * as the library documents it (floats by bits, signed by value). */
static uint64_t order(clsort_type type, const unsigned char *key) {
  if (clsort_type_size(type) == 4) {
    uint32_t v;
    memcpy(&v, key, 4);
    if (type == CLSORT_I32) v ^= 0x80000000u;
    if (type == CLSORT_F32) v = (v >> 31) ? ~v : v | 0x80000000u;
    return v;
  }
  uint64_t v;
  memcpy(&v, key, 8);
  if (type == CLSORT_I64) v ^= UINT64_C(1) << 63;
  if (type == CLSORT_F64) v = (v >> 63) ? ~v : v | UINT64_C(1) << 63;
  return v;
}

static int check_sorted(clsort_type type, const unsigned char *keys, uint64_t n) {
  size_t ks = clsort_type_size(type);
  int bad = 0;
  for (uint64_t i = 1; i < n && !bad; i++)
    bad = order(type, keys + (i - 1) * ks) > order(type, keys + i * ks);
  /* Boundaries: every rank's first and last orders, gathered. */
  uint64_t mine[3] = {n > 0, n ? order(type, keys) : 0, n ? order(type, keys + (n - 1) * ks) : 0};
  uint64_t *all = malloc(3 * (size_t)size * sizeof *all);
  MPI_Allgather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, MPI_COMM_WORLD);
  uint64_t last = 0;
  int seen = 0;
  for (int r = 0; r < size; r++) {
    if (!all[3 * r]) continue;
    if (seen && last > all[3 * r + 1]) bad = 1;
    last = all[3 * r + 2];
    seen = 1;
  }
  free(all);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return bad;
}

/* Memory as the sort allocates its own (src/mpi/sort.c): large buffers
 * aligned to 2 MiB with transparent huge pages asked for, so that the
 * reference below moves bytes between pages of the same kind. */
static char *buffer(uint64_t bytes) {
  size_t align = bytes >= (2u << 20) ? 2u << 20 : 4096;
  size_t rounded = (bytes + 1 + align - 1) / align * align;
  char *p = aligned_alloc(align, rounded);
#ifdef MADV_HUGEPAGE
  if (p && align > 4096) madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}

/* MPI_Alltoallv of `bytes` per rank spread evenly over the peers: the
 * reference for the exchange phase. Returns the slowest rank's seconds of
 * the fastest of `reps` runs. */
static double mpi_alltoallv(uint64_t bytes, int reps) {
  int *counts = malloc(2 * (size_t)size * sizeof *counts);
  uint64_t each = bytes / (uint64_t)size;
  for (int p = 0; p < size; p++) {
    counts[p] = (int)each;
    counts[size + p] = (int)(each * (uint64_t)p);
  }
  char *send = buffer(each * (uint64_t)size), *recv = buffer(each * (uint64_t)size);
  memset(send, 1, each * (uint64_t)size + 1);
  double best = 1e30;
  for (int r = 0; r <= reps; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    MPI_Alltoallv(send, counts, counts + size, MPI_BYTE, recv, counts, counts + size, MPI_BYTE,
                  MPI_COMM_WORLD);
    t = MPI_Wtime() - t;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r > 0 && t < best) best = t; /* run 0 warms up */
  }
  free(send);
  free(recv);
  free(counts);
  return best;
}

int main(int argc, char **argv) {
  /* Phase times without the waits for slower ranks' previous phases. */
  setenv("CLSORT_MPI_PHASE_BARRIERS", "1", 0);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  uint64_t per_rank = UINT64_C(1) << 20, total = 0;
  int reps = 5, pairs = 0;
  const char *type_name = "u32", *device = NULL, *dist = "uniform";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--weak") && v) per_rank = strtoull(v, NULL, 0), total = 0, i++;
    else if (!strcmp(a, "--strong") && v) total = strtoull(v, NULL, 0), i++;
    else if (!strcmp(a, "--type") && v) type_name = v, i++;
    else if (!strcmp(a, "--reps") && v) reps = atoi(v), i++;
    else if (!strcmp(a, "--device") && v) device = v, i++;
    else if (!strcmp(a, "--dist") && v) dist = v, i++;
    else if (!strcmp(a, "--pairs")) pairs = 1;
    else {
      if (rank == 0) fprintf(stderr, "clsort-mpi-bench: unknown argument %s (see the source's usage)\n", a);
      MPI_Finalize();
      return 2;
    }
  }
  if (strcmp(dist, "uniform") && strcmp(dist, "all-equal") && strcmp(dist, "few-unique") &&
      strcmp(dist, "zipf")) {
    if (rank == 0) fprintf(stderr, "clsort-mpi-bench: unknown distribution %s\n", dist);
    MPI_Finalize();
    return 2;
  }
  clsort_type type = CLSORT_U32;
  for (int t = 0; t <= CLSORT_F64; t++)
    if (!strcmp(clsort_type_name((clsort_type)t), type_name)) type = (clsort_type)t;
  size_t ks = clsort_type_size(type), vs = pairs ? 8 : 0;
  uint64_t n = total ? total / (uint64_t)size + ((uint64_t)rank < total % (uint64_t)size) : per_rank;
  uint64_t all_n = total ? total : per_rank * (uint64_t)size;

  clsort_context *ctx;
  clsort_status st = clsort_mpi_context_create(&ctx, MPI_COMM_WORLD, device);
  if (st != CLSORT_SUCCESS) {
    if (rank == 0) fprintf(stderr, "clsort-mpi-bench: %s\n", clsort_mpi_last_error_message());
    MPI_Finalize();
    return 1;
  }
  /* Which device each rank took (clsort_mpi_context_create's choice). */
  char name[128] = "", *names = rank == 0 ? calloc((size_t)size, sizeof name) : NULL;
  /* Identical GPUs share a name: NVIDIA's PCI bus id tells them apart
   * (CL_DEVICE_PCI_BUS_ID_NV, cl_nv_device_attribute_query). */
  cl_uint bus = 0;
  if (clGetDeviceInfo(clsort_context_device(ctx), 0x4008, sizeof bus, &bus, NULL) == CL_SUCCESS)
    snprintf(name, sizeof name, "%s (PCI bus %u)", clsort_context_device_name(ctx), bus);
  else
    snprintf(name, sizeof name, "%s", clsort_context_device_name(ctx));
  MPI_Gather(name, sizeof name, MPI_CHAR, names, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
  for (int r = 0; rank == 0 && r < size; r++) printf("rank %d: %s\n", r, names + r * sizeof name);
  free(names);
  unsigned char *keys = malloc(n * ks + 8), *values = malloc(n * vs + 8);
  double best_total = 1e30, best[CLSORT_MPI_PHASES] = {0};
  uint64_t sent = 0, most_received = 0, rebalanced = 0;
  for (int r = 0; r <= reps; r++) {
    fill(keys, n * ks, (uint64_t)rank * 7919 + (uint64_t)r, dist);
    if (pairs) fill(values, n * vs, (uint64_t)rank * 104729 + (uint64_t)r, "uniform");
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    st = pairs ? clsort_mpi_sort_pairs(ctx, MPI_COMM_WORLD, type, keys, values, vs, n, NULL)
               : clsort_mpi_sort(ctx, MPI_COMM_WORLD, type, keys, n, NULL);
    t = MPI_Wtime() - t;
    if (st != CLSORT_SUCCESS) {
      if (rank == 0) fprintf(stderr, "clsort-mpi-bench: %s\n", clsort_mpi_last_error_message());
      MPI_Finalize();
      return 1;
    }
    if (check_sorted(type, keys, n)) {
      if (rank == 0) fprintf(stderr, "clsort-mpi-bench: the output is not sorted\n");
      MPI_Finalize();
      return 1;
    }
    clsort_mpi_stats s;
    clsort_mpi_last_stats(&s);
    double phases[CLSORT_MPI_PHASES + 1];
    memcpy(phases, s.seconds, sizeof s.seconds);
    phases[CLSORT_MPI_PHASES] = t;
    MPI_Allreduce(MPI_IN_PLACE, phases, CLSORT_MPI_PHASES + 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    uint64_t bytes[3] = {s.exchange_sent_bytes, s.rebalance_sent_bytes, s.exchange_received};
    uint64_t sums[2], most;
    MPI_Allreduce(bytes, sums, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&bytes[2], &most, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (r > 0 && phases[CLSORT_MPI_PHASES] < best_total) { /* run 0 warms up */
      best_total = phases[CLSORT_MPI_PHASES];
      memcpy(best, phases, sizeof best);
      sent = sums[0];
      rebalanced = sums[1];
      most_received = most;
    }
  }
  /* The mean rank's bytes on every rank: counts must match across ranks. */
  uint64_t mean_bytes = all_n / (uint64_t)size * (ks + vs);
  double reference = mpi_alltoallv(mean_bytes, reps);
  uint64_t ref_bytes = mean_bytes / (uint64_t)size * (uint64_t)size * (uint64_t)size;

  if (rank == 0) {
    static const char *const names[] = {"local step", "sampling", "exchange", "merge", "rebalance"};
    double data = (double)all_n * (double)(ks + vs);
    printf("clsort-mpi-bench: %d ranks, %s scaling, %s %s%s, %" PRIu64 " keys in all (%" PRIu64
           " on rank 0), device %s, best of %d\n",
           size, total ? "strong" : "weak", dist, type_name, pairs ? " + u64 values" : "", all_n, n,
           clsort_context_device_name(ctx), reps);
    /* The local step sorts (sort-first) or partitions (partition-first,
     * the default), and the merge then merges or sorts. */
    printf("  flow: %s\n",
           clsort_mpi_last_flow() == CLSORT_MPI_PARTITION_FIRST ? "partition-first" : "sort-first");
    printf("  %-11s %10s %9s\n", "phase", "ms", "GB/s");
    for (int p = 0; p < CLSORT_MPI_PHASES; p++) {
      /* The exchange's rate counts the bytes it moved; the others the data. */
      double b = p == CLSORT_MPI_EXCHANGE ? (double)sent : p == CLSORT_MPI_REBALANCE ? (double)rebalanced : data;
      printf("  %-11s %10.3f %9.3f\n", names[p], best[p] * 1e3, best[p] > 0 ? b / best[p] / 1e9 : 0.0);
    }
    printf("  %-11s %10.3f %9.3f\n", "whole sort", best_total * 1e3, data / best_total / 1e9);
    printf("  MPI_Alltoallv of the same bytes, spread evenly: %.3f ms, %.3f GB/s; the exchange "
           "reached %.0f%% of it\n",
           reference * 1e3, (double)ref_bytes / reference / 1e9,
           100.0 * ((double)sent / best[CLSORT_MPI_EXCHANGE]) / ((double)ref_bytes / reference));
    printf("  largest receive: %" PRIu64 " keys, %.3f x the mean; rebalance moved %" PRIu64
           " bytes (%.2f%% of the data)\n",
           most_received, (double)most_received * size / (double)(all_n ? all_n : 1), rebalanced,
           100.0 * (double)rebalanced / data);
  }
  free(keys);
  free(values);
  clsort_context_release(ctx);
  MPI_Finalize();
  return 0;
}
