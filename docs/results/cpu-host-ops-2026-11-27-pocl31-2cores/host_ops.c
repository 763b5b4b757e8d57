/* host_ops.c: wall time of the host-array operations on a CPU device, the
 * arrays from malloc (16 bytes past a page: used in place with an origin
 * where the call supports it, else staged) or page-aligned (in place), so
 * that the benchmark's device times, which leave the staging out, can be
 * told apart from what a caller waits. Median of 7 calls after 2.
 * Build: cc -O2 -I include host_ops.c -L build/src -lclsort -o host_ops
 * Run with LD_LIBRARY_PATH naming the library to measure. */
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

enum { RUNS = 7, WARM = 2 };
typedef clsort_status (*op_fn)(clsort_context *, clsort_type, void *, void *, size_t);

static size_t N;
static clsort_status top_k(clsort_context *c, clsort_type t, void *k, void *out, size_t n) {
  return clsort_top_k(c, t, k, n, 100, out, NULL, 0, NULL);
}
static clsort_status select_mid(clsort_context *c, clsort_type t, void *k, void *out, size_t n) {
  return clsort_select(c, t, k, n, n / 2, out, NULL);
}
static clsort_status merge_halves(clsort_context *c, clsort_type t, void *k, void *out, size_t n) {
  size_t ks = clsort_type_size(t);
  return clsort_merge(c, t, k, n / 2, (char *)k + n / 2 * ks, n - n / 2, out, NULL);
}

int main(void) {
  N = (size_t)1 << 24;
  clsort_context *ctx;
  if (clsort_context_create(&ctx, "cpu") != CLSORT_SUCCESS) return 1;
  static const char *const names[] = {"top-k 100", "select n/2", "merge halves"};
  op_fn ops[] = {top_k, select_mid, merge_halves};
  for (int ti = 0; ti < 2; ti++) {
    clsort_type t = ti ? CLSORT_U64 : CLSORT_U32;
    size_t ks = clsort_type_size(t);
    unsigned char *raw = aligned_alloc(4096, N * ks + 4096), *oraw = aligned_alloc(4096, N * ks + 4096);
    for (int off = 0; off <= 16; off += 16) {
      unsigned char *k = raw + off, *out = oraw + off;
      srand(1);
      for (size_t i = 0; i < N * ks; i++) k[i] = (unsigned char)rand();
      /* merge's inputs: two sorted halves */
      clsort_sort(ctx, t, k, N / 2, NULL);
      clsort_sort(ctx, t, k + N / 2 * ks, N - N / 2, NULL);
      memset(out, 0, N * ks);
      for (int o = 0; o < 3; o++) {
        double ms[RUNS];
        for (int r = 0; r < WARM + RUNS; r++) {
          double t0 = now_ms();
          clsort_status st = ops[o](ctx, t, k, out, N);
          double t1 = now_ms();
          if (st != CLSORT_SUCCESS) {
            printf("%s failed: %s\n", names[o], clsort_last_error_message());
            return 1;
          }
          if (r >= WARM) ms[r - WARM] = t1 - t0;
        }
        qsort(ms, RUNS, sizeof ms[0], cmp);
        printf("%-13s %s 2^24 %-12s median %7.2f ms  min %7.2f\n", names[o], clsort_type_name(t),
               off ? "malloc+16" : "page", ms[RUNS / 2], ms[0]);
      }
    }
    free(raw);
    free(oraw);
  }
  clsort_context_release(ctx);
  return 0;
}
