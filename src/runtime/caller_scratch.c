/* caller_scratch.c: scratch memory that the caller owns. With a buffer
 * from clsort_context_set_scratch, the algorithms' scratch slots become
 * sub-buffers carved from it one after another in each call, instead of
 * buffers the context allocates: a caller that times a loop of calls sees
 * no allocation in it. The cursor restarts at every outermost public call
 * (the in-order queue makes reuse after a call safe, as for the context's
 * own slots), and a slot keeps its sub-buffer while it still starts at
 * the cursor, so a call that repeats the one before creates nothing.
 * clsort_scratch_bytes measures a call by adding up its slot requests the
 * same way (alloc.c calls clsort__measure). */
#include "runtime/runtime.h"

/* The host-array forms' staging holds the caller's arrays, not scratch:
 * never carved, never measured. */
static bool is_staging(clsort__slot slot) {
  return slot == SLOT_HOST_IN || slot == SLOT_HOST_OUT || slot == SLOT_HOST_AUX ||
         slot == SLOT_HOST_COUNT;
}

bool clsort__carving(const clsort_context *ctx, clsort__slot slot) {
  return ctx->caller_scratch != NULL && !is_staging(slot);
}

size_t clsort__carve_bytes(const clsort_context *ctx, size_t bytes) {
  cl_uint bits = 0;
  size_t align = 256;
  if (clGetDeviceInfo(ctx->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL) ==
          CL_SUCCESS &&
      bits / 8 > align)
    align = bits / 8;
  if (bytes == 0) bytes = 16;
  return (bytes + align - 1) / align * align;
}

void clsort__measure(clsort_context *ctx, clsort__slot slot, size_t bytes) {
  if (ctx->measure_size[slot] >= bytes || is_staging(slot)) return;
  ctx->measure_size[slot] = bytes;
  ctx->measured += clsort__carve_bytes(ctx, bytes);
}

bool clsort__carve_reuse(clsort_context *ctx, clsort__slot slot, size_t bytes, cl_mem *out) {
  size_t take = clsort__carve_bytes(ctx, bytes);
  cl_mem old = ctx->scratch[slot];
  if (!old || !ctx->carved[slot] || ctx->scratch_size[slot] < bytes) return false;
  /* Carved earlier in this call: the same memory. */
  if (ctx->carve_call_of[slot] == ctx->carve_call) {
    *out = old;
    return true;
  }
  /* Carved by an earlier call just where this one has got to, with the
   * same size: what a fresh carve would make (so that measurements hold). */
  if (ctx->carve_origin[slot] == ctx->carve_cursor &&
      clsort__carve_bytes(ctx, ctx->scratch_size[slot]) == take &&
      take <= ctx->caller_scratch_bytes - ctx->carve_cursor) {
    ctx->carve_call_of[slot] = ctx->carve_call;
    ctx->carve_cursor += take;
    *out = old;
    return true;
  }
  return false;
}

clsort_status clsort__carve_new(clsort_context *ctx, clsort__slot slot, size_t bytes, cl_mem *out) {
  size_t take = clsort__carve_bytes(ctx, bytes);
  RETURN_IF(ctx->carve_cursor > ctx->caller_scratch_bytes ||
                take > ctx->caller_scratch_bytes - ctx->carve_cursor,
            CLSORT_ERROR_MEMORY_LIMIT,
            "the caller's scratch buffer (%zu bytes) is too small for this call: it needs more "
            "than %zu (clsort_scratch_bytes tells how much)",
            ctx->caller_scratch_bytes, ctx->carve_cursor + take);
  cl_buffer_region region = {ctx->carve_cursor, bytes ? bytes : 16};
  cl_int err;
  cl_mem sub = clCreateSubBuffer(ctx->caller_scratch, CL_MEM_READ_WRITE,
                                 CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  if (err != CL_SUCCESS)
    return clsort__fail(clsort__status_from_cl(err), err, __FILE__, __LINE__,
                        "clCreateSubBuffer of %zu bytes at %zu of the caller's scratch failed: %s",
                        bytes, ctx->carve_cursor, clsort__cl_error_name(err));
  ctx->scratch[slot] = sub;
  ctx->scratch_size[slot] = bytes;
  ctx->carved[slot] = true;
  ctx->carve_origin[slot] = ctx->carve_cursor;
  ctx->carve_call_of[slot] = ctx->carve_call;
  ctx->carve_cursor += take;
  *out = sub;
  return CLSORT_SUCCESS;
}

void clsort__set_caller_scratch(clsort_context *ctx, cl_mem buffer, size_t bytes) {
  if (ctx->caller_scratch) clReleaseMemObject(ctx->caller_scratch);
  if (buffer) clRetainMemObject(buffer);
  ctx->caller_scratch = buffer;
  ctx->caller_scratch_bytes = buffer ? bytes : 0;
  ctx->carve_cursor = 0;
}

void clsort__carve_new_call(clsort_context *ctx) {
  ctx->carve_cursor = 0;
  ctx->carve_call++;
}
