/* alloc.c: host and device allocations, the context's scratch buffers, and
 * the fault-injection hook (CLSORT_FAIL_ALLOC_AFTER=N) that lets the tests
 * make any one of them fail. */
#include "runtime/runtime.h"

#include <stdint.h>
#include <stdlib.h>

/* Returns true when this allocation must fail for fault injection: the
 * (N+1)-th allocation of a context created with CLSORT_FAIL_ALLOC_AFTER=N
 * fails, once. */
static bool injected_failure(clsort_context *ctx) {
  if (!ctx || ctx->fail_alloc_after < 0) return false;
  if (ctx->fail_alloc_after == 0) {
    ctx->fail_alloc_after = -1;
    return true;
  }
  ctx->fail_alloc_after--;
  return false;
}

void *clsort__malloc(clsort_context *ctx, size_t bytes) {
  if (injected_failure(ctx)) return NULL;
  return malloc(bytes ? bytes : 1);
}

/* A buffer of `bytes` (over host memory at host_ptr when not NULL). */
static clsort_status create(clsort_context *ctx, cl_mem_flags flags, size_t bytes, void *host_ptr,
                            cl_mem *out) {
  *out = NULL;
  if (bytes == 0) bytes = 16;
  RETURN_IF(bytes > ctx->max_alloc, CLSORT_ERROR_TOO_LARGE,
            "a buffer of %zu bytes exceeds the device allocation limit (%llu bytes)", bytes,
            (unsigned long long)ctx->max_alloc);
  if (injected_failure(ctx))
    return clsort__fail(CLSORT_ERROR_OUT_OF_MEMORY, CL_MEM_OBJECT_ALLOCATION_FAILURE, __FILE__,
                        __LINE__, "injected allocation failure (CLSORT_FAIL_ALLOC_AFTER)");
  cl_int err;
  *out = clCreateBuffer(ctx->cl_ctx, flags, bytes, host_ptr, &err);
  if (err != CL_SUCCESS) {
    *out = NULL;
    return clsort__fail(clsort__status_from_cl(err), err, __FILE__, __LINE__,
                        "clCreateBuffer of %zu bytes%s failed: %s", bytes,
                        host_ptr ? " over host memory" : "", clsort__cl_error_name(err));
  }
  return CLSORT_SUCCESS;
}

size_t clsort__wrap_alignment(const clsort_context *ctx) {
  cl_uint bits = 0;
  if (!ctx->tuning.cpu_shape ||
      clGetDeviceInfo(ctx->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL) !=
          CL_SUCCESS)
    return 0;
  return bits >= 8 ? bits / 8 : 1;
}

bool clsort__can_wrap(const clsort_context *ctx, const void *p) {
  size_t align = clsort__wrap_alignment(ctx);
  return align && p && (uintptr_t)p % align == 0;
}

clsort_status clsort__wrap_host(clsort_context *ctx, void *p, size_t bytes, cl_mem *out) {
  return create(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, p, out);
}

/* Every device buffer of the library: the allocation limit of the device,
 * then the context's memory limit (budget.c), which counts every live
 * buffer made here. */
clsort_status clsort__create_buffer(clsort_context *ctx, cl_mem_flags flags, size_t bytes,
                                    cl_mem *out) {
  *out = NULL;
  if (bytes == 0) bytes = 16;
  RETURN_IF(!clsort__budget_make_room(ctx, bytes), CLSORT_ERROR_MEMORY_LIMIT,
            "a device buffer of %zu bytes does not fit the context's memory limit of %zu bytes "
            "(%zu in use; CLSORT_DEVICE_MEMORY_LIMIT or clsort_context_set_memory_limit)",
            bytes, ctx->memory_limit, ctx->device_bytes);
  FORWARD_IF_ERROR(create(ctx, flags, bytes, NULL, out));
  ctx->device_bytes += bytes;
  return CLSORT_SUCCESS;
}

clsort_status clsort__create_host_buffer(clsort_context *ctx, cl_mem_flags flags, size_t bytes,
                                         cl_mem *out) {
  *out = NULL;
  return create(ctx, flags, bytes, NULL, out);
}

void clsort__release_buffer(clsort_context *ctx, cl_mem buf) {
  if (!buf) return;
  size_t bytes = 0;
  if (clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof bytes, &bytes, NULL) == CL_SUCCESS)
    ctx->device_bytes -= clsort__min(bytes, ctx->device_bytes);
  clReleaseMemObject(buf);
}

void clsort__release_slot(clsort_context *ctx, int slot) {
  /* A later buffer may get the same handle: it is not known clean. */
  if (ctx->radix_nv_clean == ctx->scratch[slot]) ctx->radix_nv_clean = NULL;
  if (ctx->scratch[slot]) clReleaseMemObject(ctx->scratch[slot]);
  /* A carved sub-buffer is the caller's memory: never counted. */
  if (!ctx->carved[slot])
    ctx->device_bytes -= clsort__min(ctx->scratch_size[slot], ctx->device_bytes);
  ctx->carved[slot] = false;
  ctx->scratch[slot] = NULL;
  ctx->scratch_size[slot] = 0;
}

/* Releases the sub-buffers that earlier calls carved from the caller's
 * scratch over [at, at + take), before a new one is made there: NVIDIA's
 * OpenCL crashed releasing a sub-buffer after an overlapping one had been
 * created (H100, test_scratch's top-k after selects in one caller buffer;
 * ASan put the fault inside clReleaseMemObject, the sub-buffer's
 * reference count 1 and its parent alive). Commands in flight keep the
 * memory they use. */
static void release_carved_over(clsort_context *ctx, clsort__slot slot, size_t at, size_t take) {
  for (int s = 0; s < SLOT_COUNT_; s++)
    if ((clsort__slot)s != slot && ctx->carved[s] && ctx->carve_call_of[s] != ctx->carve_call &&
        ctx->carve_origin[s] < at + take &&
        at < ctx->carve_origin[s] + clsort__carve_bytes(ctx, ctx->scratch_size[s]))
      clsort__release_slot(ctx, s);
}

clsort_status clsort__scratch(clsort_context *ctx, clsort__slot slot, size_t bytes, cl_mem *out) {
  ctx->scratch_epoch[slot] = ctx->epoch;
  if (ctx->measuring) clsort__measure(ctx, slot, bytes);
  if (clsort__carving(ctx, slot)) {
    if (clsort__carve_reuse(ctx, slot, bytes, out)) return CLSORT_SUCCESS;
    clsort__release_slot(ctx, slot);
    release_carved_over(ctx, slot, ctx->carve_cursor, clsort__carve_bytes(ctx, bytes));
    return clsort__carve_new(ctx, slot, bytes, out);
  }
  if (ctx->scratch[slot] && ctx->scratch_size[slot] >= bytes) {
    *out = ctx->scratch[slot];
    return CLSORT_SUCCESS;
  }
  /* Commands already enqueued keep the old buffer alive until they finish:
   * OpenCL defers the release. Released first, so that the old and the
   * new one never count against the memory limit together. */
  clsort__release_slot(ctx, slot);
  /* Round up so that slightly larger calls later reuse the buffer, but never
   * past the allocation limit or the memory limit. */
  size_t want = bytes + bytes / 8 + 4096;
  if (want > ctx->max_alloc) want = bytes;
  if (ctx->memory_limit && want > bytes && !clsort__budget_make_room(ctx, want)) want = bytes;
  cl_mem grown;
  FORWARD_IF_ERROR(clsort__create_buffer(ctx, CL_MEM_READ_WRITE, want, &grown));
  ctx->scratch[slot] = grown;
  ctx->scratch_size[slot] = want;
  *out = grown;
  return CLSORT_SUCCESS;
}

void clsort__scratch_release_all(clsort_context *ctx) {
  ctx->radix_nv_clean = NULL;
  for (int i = 0; i < SLOT_COUNT_; i++) clsort__release_slot(ctx, i);
}

void clsort__scratch_release_idle(clsort_context *ctx) {
  for (int i = 0; i < SLOT_COUNT_; i++)
    if (ctx->scratch_epoch[i] != ctx->epoch) clsort__release_slot(ctx, i);
}

/* The idle slot holding the most memory, or -1. */
static int largest_idle_slot(const clsort_context *ctx) {
  int best = -1;
  for (int i = 0; i < SLOT_COUNT_; i++)
    if (ctx->scratch[i] && ctx->scratch_epoch[i] != ctx->epoch &&
        (best < 0 || ctx->scratch_size[i] > ctx->scratch_size[best]))
      best = i;
  return best;
}

bool clsort__budget_make_room(clsort_context *ctx, size_t bytes) {
  if (!ctx->memory_limit) return true;
  if (bytes > ctx->memory_limit) return false;
  while (ctx->device_bytes > ctx->memory_limit - bytes) {
    int slot = largest_idle_slot(ctx);
    if (slot < 0) return false;
    clsort__release_slot(ctx, slot);
  }
  return true;
}

size_t clsort__test_take_staging(clsort_context *ctx) {
  static const clsort__slot arrays[] = {SLOT_HOST_IN, SLOT_HOST_OUT, SLOT_HOST_AUX,
                                        SLOT_HOST_OUT_VALUES};
  size_t total = 0;
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
    total += ctx->scratch_size[arrays[i]];
    clsort__release_slot(ctx, arrays[i]);
  }
  return total;
}

size_t clsort__scratch_bytes(const clsort_context *ctx) {
  size_t total = 0;
  for (int i = 0; i < SLOT_COUNT_; i++) total += ctx->scratch_size[i];
  return total;
}
