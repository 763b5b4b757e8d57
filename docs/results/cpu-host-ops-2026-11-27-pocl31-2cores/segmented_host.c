/* segmented_host.c: wall time of clsort_segmented_sort of 2^24 u32 keys
 * alone (segments of 64, and of 65536) on a CPU device, the keys from a
 * page boundary or 16 bytes past one (malloc), as host_ops.c measures.
 * Median of 5 calls after 1; each call sorts a fresh copy.
 * Build: cc -O2 -I include segmented_host.c -L build/src -lclsort -o segmented_host */
#include <clsort.h>
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
  const size_t n = (size_t)1 << 24;
  clsort_context *ctx;
  if (clsort_context_create(&ctx, "cpu") != CLSORT_SUCCESS) return 1;
  unsigned *src = malloc(n * 4);
  srand(1);
  for (size_t i = 0; i < n; i++) src[i] = (unsigned)rand() * 2654435761u;
  unsigned char *raw = aligned_alloc(4096, n * 4 + 4096);
  static const size_t lens[2] = {64, 65536};
  for (int l = 0; l < 2; l++) {
    size_t count = n / lens[l];
    uint64_t *offsets = malloc((count + 1) * sizeof *offsets);
    for (size_t s = 0; s <= count; s++) offsets[s] = s * lens[l];
    for (int off = 0; off <= 16; off += 16) {
      unsigned *keys = (unsigned *)(raw + off);
      double ms[6];
      for (int r = 0; r < 6; r++) {
        memcpy(keys, src, n * 4);
        double t0 = now_ms();
        clsort_status st = clsort_segmented_sort(ctx, CLSORT_U32, keys, NULL, 0, n, offsets, count, NULL);
        ms[r] = now_ms() - t0;
        if (st != CLSORT_SUCCESS) {
          printf("failed: %s\n", clsort_last_error_message());
          return 1;
        }
      }
      qsort(ms + 1, 5, sizeof ms[0], cmp);
      printf("segments of %6zu, u32 keys 2^24, %-9s median %7.2f ms  min %7.2f\n", lens[l],
             off ? "malloc+16" : "page", ms[3], ms[1]);
    }
    free(offsets);
  }
  clsort_context_release(ctx);
  return 0;
}
