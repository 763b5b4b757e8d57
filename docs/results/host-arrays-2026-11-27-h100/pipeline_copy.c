/* pipeline_copy.c: the staged upload's pipeline outside the library
 * (call 7): 64 MiB from a pageable array through 6 pinned slots of 8 MiB,
 * each slot copied by T OpenMP threads with non-temporal stores and then
 * written to the device without blocking, as transfer.c does. Prints the
 * host copies' rate with the link busy, against the same copies with the
 * link idle. cc -O2 -fopenmp pipeline_copy.c -lOpenCL */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <emmintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BYTES ((size_t)64 << 20)
#define SLOT ((size_t)8 << 20)
#define SLOTS 6

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

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 16;
  cl_platform_id pl;
  cl_device_id dev;
  clGetPlatformIDs(1, &pl, NULL);
  clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, NULL);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, NULL);
  cl_mem pinned = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, SLOTS * SLOT, NULL, NULL);
  unsigned char *pin = clEnqueueMapBuffer(q, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                          SLOTS * SLOT, 0, NULL, NULL, NULL);
  memset(pin, 1, SLOTS * SLOT);
  cl_mem d = clCreateBuffer(ctx, CL_MEM_READ_WRITE, BYTES, NULL, NULL);
  unsigned char *src = malloc(BYTES), *keep = malloc(BYTES);
  memset(keep, 3, BYTES);
  for (int link = 1; link >= 0; link--) {
    double best_total = 1e9, best_copies = 0;
    for (int r = 0; r < 9; r++) {
      memcpy(src, keep, BYTES); /* as the benchmark restores its input */
      cl_event busy[SLOTS] = {0};
      double copies = 0, t0 = now_ms();
      for (size_t at = 0, k = 0; at < BYTES; at += SLOT, k++) {
        unsigned s = k % SLOTS;
        if (busy[s]) {
          clWaitForEvents(1, &busy[s]);
          clReleaseEvent(busy[s]);
          busy[s] = NULL;
        }
        double c0 = now_ms();
        unsigned char *dst = pin + s * SLOT;
#pragma omp parallel num_threads(threads)
        {
          /* Shares of whole 64-byte lines (the stores need 16-byte alignment):
           * a slot's last few bytes may stay uncopied. */
          size_t t = omp_get_thread_num(), share = SLOT / threads / 64 * 64;
          stream_copy(dst + t * share, src + at + t * share, share);
        }
        copies += now_ms() - c0;
        if (link) {
          clEnqueueWriteBuffer(q, d, CL_FALSE, at, SLOT, dst, 0, NULL, &busy[s]);
          clFlush(q);
        }
      }
      clFinish(q);
      double total = now_ms() - t0;
      for (int s = 0; s < SLOTS; s++)
        if (busy[s]) clReleaseEvent(busy[s]);
      if (total < best_total) {
        best_total = total;
        best_copies = copies;
      }
    }
    printf("%d threads, link %s: 64 MiB in %.3f ms, host copies %.3f ms (%.1f GB/s)\n", threads,
           link ? "busy" : "idle", best_total, best_copies, BYTES / best_copies / 1e6);
  }
  return 0;
}
