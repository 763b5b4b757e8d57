/* dma_pieces.c: the link's rate when a transfer goes as back-to-back
 * commands of S MiB between pinned host memory and the device (call 5):
 * does a staged transfer's slot size cost the link anything?
 * cc -O2 dma_pieces.c -lOpenCL */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

int main(void) {
  cl_platform_id pl;
  cl_device_id dev;
  clGetPlatformIDs(1, &pl, NULL);
  clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, NULL);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, NULL);
  size_t total = (size_t)256 << 20;
  cl_mem d = clCreateBuffer(ctx, CL_MEM_READ_WRITE, total, NULL, NULL);
  cl_mem h = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, total, NULL, NULL);
  unsigned char *p = clEnqueueMapBuffer(q, h, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, total, 0,
                                        NULL, NULL, NULL);
  for (size_t i = 0; i < total; i++) p[i] = (unsigned char)i;
  clEnqueueWriteBuffer(q, d, CL_TRUE, 0, total, p, 0, NULL, NULL);
  for (int dir = 0; dir < 2; dir++) {
    for (size_t mib = 1; mib <= 256; mib *= 2) {
      size_t piece = mib << 20;
      double best = 1e9;
      for (int r = 0; r < 5; r++) {
        clFinish(q);
        double t0 = now_ms();
        for (size_t at = 0; at < total; at += piece) {
          if (dir == 0)
            clEnqueueWriteBuffer(q, d, CL_FALSE, at, piece, p + at, 0, NULL, NULL);
          else
            clEnqueueReadBuffer(q, d, CL_FALSE, at, piece, p + at, 0, NULL, NULL);
        }
        clFinish(q);
        double ms = now_ms() - t0;
        if (ms < best) best = ms;
      }
      printf("%s in pieces of %3zu MiB: %.1f GB/s (256 MiB in %.3f ms)\n",
             dir == 0 ? "host->device" : "device->host", mib, total / best / 1e6, best);
    }
  }
  return 0;
}
