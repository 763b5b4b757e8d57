/* segmented_pairs.c: wall time of clsort_segmented_sort of 2^22 u32 keys
 * with u32 values (segments of 64, of 4096 and of 65536) on a CPU device,
 * keys and values from malloc (16 bytes past a page). Checks each result:
 * every segment sorted, equal keys' values in input order (stable), the
 * values a permutation. Median of 5 calls after 1, each on a fresh copy.
 * Build: cc -O2 -I include segmented_pairs.c -L build/src -lclsort -o segmented_pairs */
#include <clsort.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(void) {
  const size_t n = (size_t)1 << 22;
  clsort_context *ctx;
  if (clsort_context_create(&ctx, "cpu") != CLSORT_SUCCESS) return 1;
  unsigned *src = malloc(n * 4);
  srand(1);
  /* Few distinct keys, so that stability shows. */
  for (size_t i = 0; i < n; i++) src[i] = ((unsigned)rand() * 2654435761u) % 1000;
  unsigned char *rk = aligned_alloc(4096, n * 4 + 4096), *rv = aligned_alloc(4096, n * 4 + 4096);
  unsigned *k = (unsigned *)(rk + 16), *v = (unsigned *)(rv + 16);
  static const size_t lens[3] = {64, 4096, 65536};
  for (int l = 0; l < 3; l++) {
    size_t segs = n / lens[l];
    uint64_t *off = malloc((segs + 1) * 8);
    for (size_t i = 0; i <= segs; i++) off[i] = i * lens[l];
    double t[6];
    for (int r = 0; r < 6; r++) {
      memcpy(k, src, n * 4);
      for (size_t i = 0; i < n; i++) v[i] = (unsigned)i;
      double t0 = now_ms();
      clsort_status st = clsort_segmented_sort(ctx, CLSORT_U32, k, v, 4, n, off, segs, NULL);
      t[r] = now_ms() - t0;
      if (st != CLSORT_SUCCESS) {
        printf("status %d\n", (int)st);
        return 1;
      }
      for (size_t s = 0; s < segs; s++)
        for (size_t i = off[s] + 1; i < off[s + 1]; i++)
          if (k[i - 1] > k[i] || (k[i - 1] == k[i] && v[i - 1] >= v[i]) ||
              v[i] < off[s] || v[i] >= off[s + 1] || src[v[i]] != k[i]) {
            printf("wrong at %zu\n", i);
            return 1;
          }
    }
    qsort(t + 1, 5, sizeof(double), cmp);
    printf("segments of %6zu: %8.2f ms (min %.2f)\n", lens[l], t[3], t[1]);
    free(off);
  }
  clsort_context_release(ctx);
  return 0;
}
