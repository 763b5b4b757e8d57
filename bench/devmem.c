/* devmem.c: device buffer helpers for the benchmark cases. */
#include "devmem.h"

static clsort_status from_cl(cl_int err) {
  switch (err) {
    case CL_SUCCESS: return CLSORT_SUCCESS;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_RESOURCES:
    case CL_OUT_OF_HOST_MEMORY: return CLSORT_ERROR_OUT_OF_MEMORY;
    case CL_INVALID_BUFFER_SIZE: return CLSORT_ERROR_TOO_LARGE;
    default: return CLSORT_ERROR_OPENCL;
  }
}

clsort_status dev_alloc(bench_state *s, size_t bytes, cl_mem *mem) {
  cl_int err = CL_SUCCESS;
  /* n == 0 cases still need valid handles. */
  *mem = clCreateBuffer(s->cl_ctx, CL_MEM_READ_WRITE, bytes < 8 ? 8 : bytes, NULL, &err);
  if (err != CL_SUCCESS) *mem = NULL;
  return from_cl(err);
}

clsort_status dev_write(bench_state *s, cl_mem mem, const void *src, size_t bytes) {
  if (bytes == 0) return CLSORT_SUCCESS;
  return from_cl(clEnqueueWriteBuffer(s->queue, mem, CL_TRUE, 0, bytes, src, 0, NULL, NULL));
}

clsort_status dev_read(bench_state *s, cl_mem mem, void *dst, size_t bytes) {
  if (bytes == 0) return CLSORT_SUCCESS;
  return from_cl(clEnqueueReadBuffer(s->queue, mem, CL_TRUE, 0, bytes, dst, 0, NULL, NULL));
}

clsort_status dev_copy(bench_state *s, cl_mem src, cl_mem dst, size_t bytes) {
  if (bytes == 0) return CLSORT_SUCCESS;
  return from_cl(clEnqueueCopyBuffer(s->queue, src, dst, 0, 0, bytes, 0, NULL, NULL));
}

void dev_free(cl_mem *mem) {
  if (*mem) clReleaseMemObject(*mem);
  *mem = NULL;
}
