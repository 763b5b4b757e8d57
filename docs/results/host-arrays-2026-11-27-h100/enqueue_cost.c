/* enqueue_cost.c: what NVIDIA's OpenCL charges the host to set a kernel's
 * arguments and to enqueue it (call 4). A kernel of 20 arguments like
 * radix_nv_pass; 6 enqueues between waits, like one radix sort.
 * cc -O2 enqueue_cost.c -lOpenCL */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <time.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static const char *src =
    "__kernel void k(__global uint *a, __global uint *b, __global uint *c, __global uint *d,"
    " __global uint *e, __global uint *f, ulong n, uint s, uint k2, uint p, uint r, uint bb,"
    " uint eb, int kind, int desc, int mi, int al, __global uint *ctl, __global uint *bases,"
    " __global uint *st) { if (get_global_id(0) == n) a[0] = s + k2 + p + r + bb + eb + kind"
    " + desc + mi + al + b[0] + c[0] + d[0] + e[0] + f[0] + ctl[0] + bases[0] + st[0]; }";

int main(void) {
  cl_platform_id pl;
  cl_device_id dev;
  clGetPlatformIDs(1, &pl, NULL);
  clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, NULL);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, NULL);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, NULL);
  clBuildProgram(prog, 1, &dev, "", NULL, NULL);
  cl_kernel k = clCreateKernel(prog, "k", NULL);
  cl_mem buf[10];
  for (int i = 0; i < 10; i++) buf[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1 << 20, NULL, NULL);
  cl_ulong n = 1ull << 40;
  cl_uint u = 1;
  cl_int si = 0;
  size_t global = 132 * 256, local = 256;
  double set_all = 0, set_one = 0, enq = 0, fill = 0, marker = 0, finish = 0;
  int reps = 200;
  for (int r = 0; r < reps; r++) {
    double t0 = now_us();
    for (int i = 0; i < 6; i++) clSetKernelArg(k, i, sizeof(cl_mem), &buf[i]);
    clSetKernelArg(k, 6, sizeof n, &n);
    for (int i = 7; i < 13; i++) clSetKernelArg(k, i, sizeof u, &u);
    for (int i = 13; i < 17; i++) clSetKernelArg(k, i, sizeof si, &si);
    for (int i = 17; i < 20; i++) clSetKernelArg(k, i, sizeof(cl_mem), &buf[6 + i - 17]);
    double t1 = now_us();
    clEnqueueFillBuffer(q, buf[9], &u, 4, 0, 4096, 0, NULL, NULL);
    double t2 = now_us();
    for (int j = 0; j < 6; j++) {
      double a = now_us();
      clSetKernelArg(k, 7, sizeof u, &u);
      double b = now_us();
      clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
      double c = now_us();
      set_one += b - a;
      enq += c - b;
    }
    cl_event ev;
    double t3 = now_us();
    clEnqueueMarkerWithWaitList(q, 0, NULL, &ev);
    double t4 = now_us();
    clFinish(q);
    double t5 = now_us();
    clReleaseEvent(ev);
    if (r >= 20) {
      set_all += t1 - t0;
      fill += t2 - t1;
      marker += t4 - t3;
      finish += t5 - t4;
    } else {
      set_one = enq = 0;
    }
  }
  int m = reps - 20;
  printf("20 clSetKernelArg: %.2f us; fill: %.2f us; one clSetKernelArg: %.2f us; "
         "clEnqueueNDRangeKernel: %.2f us; marker %.2f us; finish of 6 tiny kernels %.2f us\n",
         set_all / m, fill / m, set_one / (6 * m), enq / (6 * m), marker / m, finish / m);
  return 0;
}
