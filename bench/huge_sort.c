/* huge_sort.c: clsort-huge-sort, one clsort_sort of a host array too large
 * for `clsort bench` (issue 17's out-of-core target: 12 x 2^30 u32 keys,
 * 48 GiB, on a host of 125 GiB). The bench keeps the input, a working copy
 * and a verification copy (three times the data); this keeps only the array
 * itself, so the library's host scratch (at most the input's size) still
 * fits. The check needs no copy either: the output must be in order, and
 * its multiset fingerprint (a sum of a 64-bit hash of every key, which no
 * reordering changes) must equal the input's, which catches lost,
 * duplicated or altered keys except with probability about 2^-64.
 *
 * usage: clsort-huge-sort [--device SPEC] [--type u32|u64] [--n N]
 *                         [--data uniform|equal] [--threads T] [--seed S]
 * Prints one line: type, n, bytes, the sort's wall time in ms, Gkeys/s
 * and GB/s of keys, and "verified" or why not. Exit status 0 when verified. */
#define _POSIX_C_SOURCE 200809L
#include <clsort.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t mix(uint64_t z) { /* splitmix64's finaliser */
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

typedef enum job_kind { FILL, FINGERPRINT, CHECK_ORDER } job_kind;

typedef struct job {
  job_kind kind;
  void *keys;
  size_t ks, begin, end;
  uint64_t seed;
  bool equal;
  uint64_t sum;    /* FINGERPRINT */
  size_t disorder; /* CHECK_ORDER: index of the first out-of-order key, or 0 */
} job;

static uint64_t key_at(const job *j, size_t i) {
  return j->ks == 4 ? ((const uint32_t *)j->keys)[i] : ((const uint64_t *)j->keys)[i];
}

static void *work(void *arg) {
  job *j = arg;
  for (size_t i = j->begin; i < j->end; i++) {
    switch (j->kind) {
      case FILL: {
        uint64_t v = j->equal ? 0x5eed5eed5eedull : mix(j->seed + i * 0x9e3779b97f4a7c15ull);
        if (j->ks == 4)
          ((uint32_t *)j->keys)[i] = (uint32_t)v;
        else
          ((uint64_t *)j->keys)[i] = v;
        break;
      }
      case FINGERPRINT:
        j->sum += mix(key_at(j, i) ^ 0xa5a5a5a5deadbeefull);
        break;
      case CHECK_ORDER:
        /* Each slice also compares its first key with the one before it. */
        if (i > 0 && key_at(j, i - 1) > key_at(j, i) && !j->disorder) j->disorder = i;
        break;
    }
  }
  return NULL;
}

/* Runs `kind` over [0, n) on `threads` threads; returns the summed
 * fingerprint, or the first disorder found. */
static uint64_t parallel(job_kind kind, void *keys, size_t ks, size_t n, unsigned threads,
                         uint64_t seed, bool equal) {
  job jobs[256];
  pthread_t tid[256];
  bool started[256];
  uint64_t result = 0;
  for (unsigned t = 0; t < threads; t++) {
    jobs[t] = (job){kind, keys, ks, n * t / threads, n * (t + 1) / threads, seed, equal, 0, 0};
    started[t] = pthread_create(&tid[t], NULL, work, &jobs[t]) == 0;
    if (!started[t]) work(&jobs[t]); /* no thread: this one does the slice */
  }
  for (unsigned t = 0; t < threads; t++) {
    if (started[t]) pthread_join(tid[t], NULL);
    if (kind == FINGERPRINT) result += jobs[t].sum;
    if (kind == CHECK_ORDER && jobs[t].disorder && !result) result = jobs[t].disorder;
  }
  return result;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  const char *device = NULL, *type_name = "u32", *data = "uniform";
  size_t n = (size_t)12 << 30;
  unsigned threads = 16;
  uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--device")) device = argv[i + 1];
    else if (!strcmp(argv[i], "--type")) type_name = argv[i + 1];
    else if (!strcmp(argv[i], "--n")) n = strtoull(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--data")) data = argv[i + 1];
    else if (!strcmp(argv[i], "--threads")) threads = (unsigned)strtoul(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[i + 1], NULL, 0);
    else {
      fprintf(stderr, "clsort-huge-sort: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  bool u64 = !strcmp(type_name, "u64"), equal = !strcmp(data, "equal");
  if ((!u64 && strcmp(type_name, "u32")) || (!equal && strcmp(data, "uniform")) || threads == 0 ||
      threads > 256 || n == 0) {
    fprintf(stderr,
            "clsort-huge-sort: --type u32|u64, --data uniform|equal, 1..256 threads, n > 0\n");
    return 2;
  }
  size_t ks = u64 ? 8 : 4;
  void *keys = malloc(n * ks);
  if (!keys) {
    fprintf(stderr, "clsort-huge-sort: no host memory for %zu bytes\n", n * ks);
    return 1;
  }
  parallel(FILL, keys, ks, n, threads, seed, equal);
  uint64_t before = parallel(FINGERPRINT, keys, ks, n, threads, 0, false);
  clsort_context *ctx;
  clsort_status st = clsort_context_create(&ctx, device);
  if (st != CLSORT_SUCCESS) {
    fprintf(stderr, "clsort-huge-sort: %s\n", clsort_last_error_message());
    return 1;
  }
  double t0 = now_ms();
  st = clsort_sort(ctx, u64 ? CLSORT_U64 : CLSORT_U32, keys, n, NULL);
  double ms = now_ms() - t0;
  if (st != CLSORT_SUCCESS) {
    fprintf(stderr, "clsort-huge-sort: clsort_sort: %s\n", clsort_last_error_message());
    clsort_context_release(ctx);
    return 1;
  }
  clsort_context_release(ctx);
  uint64_t disorder = parallel(CHECK_ORDER, keys, ks, n, threads, 0, false);
  uint64_t after = parallel(FINGERPRINT, keys, ks, n, threads, 0, false);
  const char *verdict = disorder          ? "NOT SORTED"
                        : after != before ? "NOT A PERMUTATION"
                                          : "verified";
  printf("%s %s n=%zu bytes=%zu sort_ms=%.1f gkeys_per_s=%.2f gb_per_s=%.2f %s",
         type_name, data, n, n * ks, ms, (double)n / ms / 1e6, (double)(n * ks) / ms / 1e6,
         verdict);
  if (disorder) printf(" (at %" PRIu64 ")", disorder);
  printf("\n");
  free(keys);
  return verdict[0] == 'v' ? 0 : 1;
}
