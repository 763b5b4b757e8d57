/* validate.c: the argument checks that every public entry point shares, so
 * that each kind of bad input gets the same status and message wherever it
 * appears. */
#include "api/api.h"

#include <stdint.h>
#include <unistd.h>

clsort_status clsort__check_context(const clsort_context *ctx) {
  RETURN_IF(!ctx, CLSORT_ERROR_INVALID_ARGUMENT, "the context is NULL");
  return CLSORT_SUCCESS;
}

clsort_status clsort__check_type(const clsort_context *ctx, clsort_type type) {
  RETURN_IF(clsort_type_size(type) == 0, CLSORT_ERROR_INVALID_ARGUMENT, "unknown type %d",
            (int)type);
  RETURN_IF(type == CLSORT_F64 && !ctx->has_fp64, CLSORT_ERROR_UNSUPPORTED,
            "f64 needs fp64, which device '%s' does not support", ctx->device_name);
  return CLSORT_SUCCESS;
}

clsort_status clsort__check_wait_list(cl_uint num_wait, const cl_event *wait_list) {
  RETURN_IF(num_wait > 0 && !wait_list, CLSORT_ERROR_INVALID_ARGUMENT,
            "num_wait is %u but the wait list is NULL", num_wait);
  RETURN_IF(num_wait == 0 && wait_list, CLSORT_ERROR_INVALID_ARGUMENT,
            "a wait list was given with num_wait 0");
  for (cl_uint i = 0; i < num_wait; i++)
    RETURN_IF(!wait_list[i], CLSORT_ERROR_INVALID_ARGUMENT, "wait-list event %u is NULL", i);
  return CLSORT_SUCCESS;
}

clsort_status clsort__check_buffer(const clsort_context *ctx, cl_mem buf, const char *what,
                                   size_t elements, size_t element_size, clsort__access access) {
  RETURN_IF(!buf, CLSORT_ERROR_INVALID_ARGUMENT, "the %s buffer is NULL", what);
  size_t bytes = 0;
  cl_context owner = NULL;
  cl_mem_flags flags = 0;
  cl_int err = clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
  if (err == CL_SUCCESS) err = clGetMemObjectInfo(buf, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
  if (err == CL_SUCCESS) err = clGetMemObjectInfo(buf, CL_MEM_FLAGS, sizeof flags, &flags, NULL);
  if (err != CL_SUCCESS)
    return clsort__fail(CLSORT_ERROR_INVALID_ARGUMENT, err, __FILE__, __LINE__,
                        "the %s buffer is not a valid cl_mem (%s)", what,
                        clsort__cl_error_name(err));
  /* This context's kernels cannot use it: the driver would fail (or
   * misbehave) part-way through the call, after earlier kernels had run. */
  RETURN_IF(owner != ctx->cl_ctx, CLSORT_ERROR_INVALID_ARGUMENT,
            "the %s buffer belongs to another OpenCL context than the clsort context", what);
  /* Kernels that write a read-only buffer (or read a write-only one) are
   * undefined behaviour in OpenCL: some drivers fault, PoCL just writes. */
  RETURN_IF((access & ACCESS_WRITE) && (flags & CL_MEM_READ_ONLY), CLSORT_ERROR_INVALID_ARGUMENT,
            "the %s buffer is CL_MEM_READ_ONLY, but this call writes it", what);
  RETURN_IF((access & ACCESS_READ) && (flags & CL_MEM_WRITE_ONLY), CLSORT_ERROR_INVALID_ARGUMENT,
            "the %s buffer is CL_MEM_WRITE_ONLY, but this call reads it", what);
  RETURN_IF(element_size && elements > bytes / element_size, CLSORT_ERROR_INVALID_ARGUMENT,
            "n (%zu) exceeds the %s buffer (%zu bytes = %zu elements of %zu bytes)", elements,
            what, bytes, bytes / element_size, element_size);
  return CLSORT_SUCCESS;
}

clsort_status clsort__check_size(const clsort_context *ctx, size_t n, size_t element_size) {
  RETURN_IF(element_size && n > ctx->max_alloc / element_size, CLSORT_ERROR_TOO_LARGE,
            "n (%zu) elements of %zu bytes exceed the device allocation limit (%llu bytes)", n,
            element_size, (unsigned long long)ctx->max_alloc);
  return CLSORT_SUCCESS;
}

clsort_status clsort__check_host_size(size_t n, size_t element_size) {
  RETURN_IF(element_size && n > SIZE_MAX / element_size, CLSORT_ERROR_TOO_LARGE,
            "n (%zu) elements of %zu bytes overflow the address space", n, element_size);
  double bytes = (double)n * (double)element_size, host = 0;
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) host = (double)pages * (double)page;
#endif
  RETURN_IF(host > 0 && bytes > host, CLSORT_ERROR_TOO_LARGE,
            "n (%zu) elements of %zu bytes exceed the host's memory (%.0f bytes)", n,
            element_size, host);
  return CLSORT_SUCCESS;
}

bool clsort__ranges_overlap(const void *p, size_t pb, const void *q, size_t qb) {
  if (!p || !q || pb == 0 || qb == 0) return false;
  uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
  return a < b + qb && b < a + pb;
}
