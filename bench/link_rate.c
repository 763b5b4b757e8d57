/* link_rate.c: clsort-link-rate, the host<->device copy rates through
 * OpenCL that bound a host-array sort (issue 17: "transfer time at the
 * measured pinned rate in each direction"), measured in the same run as
 * the sorts they bound. Pinned memory is a CL_MEM_ALLOC_HOST_PTR buffer,
 * mapped, used as the host side of clEnqueueWrite/ReadBuffer; pageable is
 * plain malloc'd memory. The device side is an ordinary buffer.
 *
 * usage: clsort-link-rate [--device SPEC] [--mib M] [--runs R]
 * Prints one line per memory kind and direction: the median GB/s of R
 * blocking copies of M MiB (default 1024 MiB, 5 runs). */
#define _POSIX_C_SOURCE 200809L
#include <clsort.h>

#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median GB/s of `runs` blocking copies between `host` and `dev`. */
static double rate(cl_command_queue q, cl_mem dev, void *host, size_t bytes, int upload,
                   int runs) {
  double gbs[64];
  for (int r = -1; r < runs; r++) { /* run -1 warms up */
    double t0 = now_s();
    cl_int err = upload ? clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, bytes, host, 0, NULL, NULL)
                        : clEnqueueReadBuffer(q, dev, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    double dt = now_s() - t0;
    if (err != CL_SUCCESS) return -1.0;
    if (r >= 0) gbs[r] = (double)bytes / dt / 1e9;
  }
  qsort(gbs, (size_t)runs, sizeof gbs[0], by_value);
  return gbs[runs / 2];
}

int main(int argc, char **argv) {
  const char *device = NULL;
  size_t mib = 1024;
  int runs = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--device")) device = argv[i + 1];
    else if (!strcmp(argv[i], "--mib")) mib = strtoull(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--runs")) runs = atoi(argv[i + 1]);
    else {
      fprintf(stderr, "clsort-link-rate: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (runs < 1 || runs > 64 || mib == 0) {
    fprintf(stderr, "clsort-link-rate: --runs 1..64, --mib > 0\n");
    return 2;
  }
  clsort_context *ctx;
  if (clsort_context_create(&ctx, device) != CLSORT_SUCCESS) {
    fprintf(stderr, "clsort-link-rate: %s\n", clsort_last_error_message());
    return 1;
  }
  cl_context cl = clsort_context_cl_context(ctx);
  cl_command_queue q = clsort_context_queue(ctx);
  size_t bytes = mib << 20;
  cl_int err;
  cl_mem dev = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
  cl_mem pinned = clCreateBuffer(cl, CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
  void *pageable = malloc(bytes);
  if (!dev || !pinned || !pageable) {
    fprintf(stderr, "clsort-link-rate: no memory for %zu MiB on each side\n", mib);
    return 1;
  }
  void *mapped = clEnqueueMapBuffer(q, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                    NULL, NULL, &err);
  if (!mapped) {
    fprintf(stderr, "clsort-link-rate: mapping the pinned buffer failed (%d)\n", err);
    return 1;
  }
  memset(mapped, 1, bytes);
  memset(pageable, 1, bytes);
  printf("pinned   host->device %.1f GB/s\n", rate(q, dev, mapped, bytes, 1, runs));
  printf("pinned   device->host %.1f GB/s\n", rate(q, dev, mapped, bytes, 0, runs));
  printf("pageable host->device %.1f GB/s\n", rate(q, dev, pageable, bytes, 1, runs));
  printf("pageable device->host %.1f GB/s\n", rate(q, dev, pageable, bytes, 0, runs));
  clEnqueueUnmapMemObject(q, pinned, mapped, 0, NULL, NULL);
  clFinish(q);
  clReleaseMemObject(pinned);
  clReleaseMemObject(dev);
  free(pageable);
  clsort_context_release(ctx);
  return 0;
}
