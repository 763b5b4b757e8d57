/* build_probe.c: whether NVIDIA's OpenCL compiler builds in parallel in
 * one process. Each argument is an algorithm; one thread per argument
 * creates its own context and sorts 2^16 u32 keys with it (a cold build
 * when the caches are empty). Prints each thread's time and the wall. */
#include <clsort.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct job {
  const char *alg;
  double seconds;
  int ok;
} job;

static void *run(void *arg) {
  job *j = arg;
  double t0 = now();
  clsort_context *ctx;
  if (clsort_context_create(&ctx, "NVIDIA") != CLSORT_SUCCESS) return NULL;
  clsort_options o = CLSORT_OPTIONS_DEFAULT;
  o.algorithm = strcmp(j->alg, "radix") == 0     ? CLSORT_RADIX
                : strcmp(j->alg, "merge") == 0   ? CLSORT_MERGE
                : strcmp(j->alg, "bitonic") == 0 ? CLSORT_BITONIC
                : strcmp(j->alg, "quick") == 0   ? CLSORT_QUICK
                                                 : CLSORT_SAMPLE;
  size_t n = 65536;
  unsigned *k = malloc(n * 4);
  for (size_t i = 0; i < n; i++) k[i] = (unsigned)(i * 2654435761u);
  j->ok = clsort_sort(ctx, CLSORT_U32, k, n, &o) == CLSORT_SUCCESS;
  for (size_t i = 1; i < n; i++) j->ok &= k[i - 1] <= k[i];
  free(k);
  clsort_context_release(ctx);
  j->seconds = now() - t0;
  return NULL;
}

int main(int argc, char **argv) {
  int t = argc - 1;
  pthread_t th[16];
  job jobs[16];
  double t0 = now();
  for (int i = 0; i < t && i < 16; i++) {
    jobs[i] = (job){argv[i + 1], 0, 0};
    pthread_create(&th[i], NULL, run, &jobs[i]);
  }
  for (int i = 0; i < t && i < 16; i++) pthread_join(th[i], NULL);
  printf("wall %.2f s:", now() - t0);
  for (int i = 0; i < t && i < 16; i++) printf(" %s %.2f%s", jobs[i].alg, jobs[i].seconds, jobs[i].ok ? "" : " FAILED");
  printf("\n");
  return 0;
}
