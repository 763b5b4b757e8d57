/* copy_targets.c: the staging's host copy (16 threads, non-temporal
 * stores) into and out of different kinds of host memory (call 6): the
 * driver's pinned memory (CL_MEM_ALLOC_HOST_PTR, mapped), plain malloc,
 * and memory advised to transparent huge pages; and whether a buffer made
 * over huge pages with CL_MEM_USE_HOST_PTR moves at the pinned rate.
 * cc -O2 -fopenmp copy_targets.c -lOpenCL */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <emmintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define BYTES ((size_t)64 << 20)
#define SLOT ((size_t)8 << 20)

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void stream_copy(unsigned char *d, const unsigned char *s, size_t bytes) {
  for (size_t i = 0; i < bytes / 64; i++, d += 64, s += 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(s + 32)), e = _mm_loadu_si128((const __m128i *)(s + 48));
    _mm_stream_si128((__m128i *)d, a);
    _mm_stream_si128((__m128i *)(d + 16), b);
    _mm_stream_si128((__m128i *)(d + 32), c);
    _mm_stream_si128((__m128i *)(d + 48), e);
  }
  _mm_sfence();
}

/* 64 MiB through one 8 MiB-slot window of dst (as the staging does:
 * slot after slot, each split over the threads), or whole when window 0. */
static double copy_rate(unsigned char *dst, const unsigned char *src, int to_slot, int threads) {
  double best = 1e9;
  for (int r = 0; r < 7; r++) {
    double t0 = now_ms();
    for (size_t at = 0; at < BYTES; at += SLOT) {
      unsigned char *d = to_slot ? dst + (at / SLOT % 6) * SLOT : dst + at;
      const unsigned char *s = to_slot ? src + at : src + (at / SLOT % 6) * SLOT;
#pragma omp parallel num_threads(threads)
      {
        /* Shares of whole 64-byte lines (the stores need 16-byte alignment):
         * a slot's last few bytes may stay uncopied. */
        size_t t = omp_get_thread_num(), share = SLOT / threads / 64 * 64;
        stream_copy(d + t * share, s + t * share, share);
      }
    }
    double ms = now_ms() - t0;
    if (ms < best) best = ms;
  }
  return BYTES / best / 1e6;
}

static unsigned char *huge_alloc(size_t bytes) {
  void *p = mmap(NULL, bytes + (2 << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  unsigned char *a = (unsigned char *)(((size_t)p + (2 << 20) - 1) & ~(size_t)((2 << 20) - 1));
  madvise(a, bytes, MADV_HUGEPAGE);
  memset(a, 1, bytes);
  return a;
}

int main(void) {
  cl_platform_id pl;
  cl_device_id dev;
  clGetPlatformIDs(1, &pl, NULL);
  clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, NULL);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, NULL);
  size_t stage = 6 * SLOT;
  cl_mem pinned = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, stage, NULL, NULL);
  unsigned char *pin = clEnqueueMapBuffer(q, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, stage,
                                          0, NULL, NULL, NULL);
  memset(pin, 1, stage);
  unsigned char *user = malloc(BYTES), *plain = malloc(stage), *huge = huge_alloc(stage);
  unsigned char *user_huge = huge_alloc(BYTES);
  memset(user, 2, BYTES);
  memset(plain, 1, stage);
  for (int threads = 8; threads <= 16; threads *= 2) {
    printf("%2d threads: user->pinned %.1f, user->malloc %.1f, user->huge %.1f, hugeuser->pinned %.1f GB/s\n",
           threads, copy_rate(pin, user, 1, threads), copy_rate(plain, user, 1, threads),
           copy_rate(huge, user, 1, threads), copy_rate(pin, user_huge, 1, threads));
    printf("%2d threads: pinned->user %.1f, malloc->user %.1f, huge->user %.1f, pinned->hugeuser %.1f GB/s\n",
           threads, copy_rate(user, pin, 0, threads), copy_rate(user, plain, 0, threads),
           copy_rate(user, huge, 0, threads), copy_rate(user_huge, pin, 0, threads));
  }
  /* A buffer over the huge pages, and copies from it to a device buffer. */
  double t0 = now_ms();
  cl_int err;
  cl_mem wrapped = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, stage, huge, &err);
  double made = now_ms() - t0;
  cl_mem d = clCreateBuffer(ctx, CL_MEM_READ_WRITE, stage, NULL, NULL);
  for (int k = 0; k < 2; k++) {
    double best_w = 1e9, best_c = 1e9, best_p = 1e9;
    for (int r = 0; r < 5; r++) {
      clFinish(q);
      double a = now_ms();
      clEnqueueWriteBuffer(q, d, CL_TRUE, 0, stage, huge, 0, NULL, NULL);
      double b = now_ms();
      clEnqueueCopyBuffer(q, wrapped, d, 0, 0, stage, 0, NULL, NULL);
      clFinish(q);
      double c = now_ms();
      clEnqueueWriteBuffer(q, d, CL_TRUE, 0, stage, pin, 0, NULL, NULL);
      double e = now_ms();
      if (b - a < best_w) best_w = b - a;
      if (c - b < best_c) best_c = c - b;
      if (e - c < best_p) best_p = e - c;
    }
    printf("USE_HOST_PTR over huge pages (err %d, made in %.2f ms): write from its pointer %.1f GB/s, "
           "copy buffer %.1f GB/s; pinned write %.1f GB/s\n", err, made, stage / best_w / 1e6,
           stage / best_c / 1e6, stage / best_p / 1e6);
  }
  return 0;
}
