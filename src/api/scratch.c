/* scratch.c: caller scratch. clsort_context_set_scratch hands the runtime
 * (runtime/caller_scratch.c) a buffer to carve scratch from;
 * clsort_scratch_bytes measures what one buffer-form call carves, by
 * running it once on synthetic device data with the runtime adding up the
 * requests. */
#include "api/api.h"

#include <stdlib.h>
#include <string.h>

static clsort_status set_scratch(clsort_context *ctx, cl_mem buffer, size_t bytes) {
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  if (buffer) {
    RETURN_IF(bytes == 0, CLSORT_ERROR_INVALID_ARGUMENT, "bytes is 0");
    FORWARD_IF_ERROR(clsort__check_buffer(ctx, buffer, "scratch", bytes, 1, ACCESS_READ_WRITE));
  }
  /* Under the lock no call is running: the slots are free to go. */
  clFinish(ctx->queue);
  clsort__scratch_release_all(ctx);
  clsort__set_caller_scratch(ctx, buffer, bytes);
  return CLSORT_SUCCESS;
}

clsort_status clsort_context_set_scratch(clsort_context *ctx, cl_mem buffer, size_t bytes) {
  return LOCKED(ctx, set_scratch(ctx, buffer, bytes));
}

/* The synthetic data of a measurement: device buffers, zero-filled (every
 * key equal: top-k's largest candidate set) or random (the radix
 * select's compactions). */
typedef struct synth {
  cl_mem mem[4];
} synth;

static clsort_status synth_buffer(clsort_context *ctx, synth *s, int i, size_t bytes, bool random) {
  FORWARD_IF_ERROR(clsort__create_buffer(ctx, CL_MEM_READ_WRITE, bytes ? bytes : 16, &s->mem[i]));
  if (!random) {
    cl_uchar zero = 0;
    return CL_CHECK(
        clEnqueueFillBuffer(ctx->queue, s->mem[i], &zero, 1, 0, bytes ? bytes : 16, 0, NULL, NULL));
  }
  unsigned char *host = clsort__malloc(ctx, bytes ? bytes : 16);
  RETURN_IF(!host, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the measurement's data");
  uint64_t x = 0x5EEDull;
  for (size_t b = 0; b < bytes; b++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    host[b] = (unsigned char)(x >> 56);
  }
  clsort_status st =
      CL_CHECK(clEnqueueWriteBuffer(ctx->queue, s->mem[i], CL_TRUE, 0, bytes, host, 0, NULL, NULL));
  free(host);
  return st;
}

/* Which run of top-k and select: every key equal with k = 1 (select:
 * rank 0), every key equal with k = n (top-k's full sort), random keys
 * with k = 1 (select: the median), where the radix select compacts. */
typedef enum variant { EQUAL_KEYS, EQUAL_KEYS_ALL, RANDOM_KEYS } variant;

/* One run of the operation's buffer form on synthetic data. */
static clsort_status run_once(clsort_context *ctx, clsort_operation op, clsort_type type, size_t n,
                              size_t size, const clsort_options *o, synth *s, variant v) {
  size_t ks = clsort_type_size(type);
  switch (op) {
    case CLSORT_OP_SORT:
    case CLSORT_OP_SORT_PAIRS:
      FORWARD_IF_ERROR(synth_buffer(ctx, s, 0, n * ks, true));
      if (op == CLSORT_OP_SORT_PAIRS) FORWARD_IF_ERROR(synth_buffer(ctx, s, 1, n * size, true));
      return clsort_sort_buffer(ctx, type, s->mem[0], op == CLSORT_OP_SORT_PAIRS ? s->mem[1] : NULL,
                                op == CLSORT_OP_SORT_PAIRS ? size : 0, n, o, 0, NULL, NULL);
    case CLSORT_OP_SCAN:
      FORWARD_IF_ERROR(synth_buffer(ctx, s, 0, n * ks, true));
      return clsort_scan_buffer(ctx, type, CLSORT_SCAN_EXCLUSIVE, s->mem[0], s->mem[0], n, 0, NULL,
                                NULL);
    case CLSORT_OP_REDUCE:
      FORWARD_IF_ERROR(synth_buffer(ctx, s, 0, n * ks, true));
      FORWARD_IF_ERROR(synth_buffer(ctx, s, 1, ks, false));
      return clsort_reduce_buffer(ctx, type, CLSORT_REDUCE_SUM, s->mem[0], n, s->mem[1], 0, NULL,
                                  NULL);
    case CLSORT_OP_MERGE: {
      size_t na = n / 2, nb = n - na;
      FORWARD_IF_ERROR(synth_buffer(ctx, s, 0, n * ks, false));
      FORWARD_IF_ERROR(synth_buffer(ctx, s, 1, n * ks, false));
      if (size) {
        FORWARD_IF_ERROR(synth_buffer(ctx, s, 2, n * size, false));
        FORWARD_IF_ERROR(synth_buffer(ctx, s, 3, n * size, false));
      }
      return clsort_merge_buffer(ctx, type, s->mem[0], s->mem[2], na, s->mem[0], s->mem[2], nb,
                                 s->mem[1], s->mem[3], size, o, 0, NULL, NULL);
    }
    case CLSORT_OP_TOP_K: {
      size_t k = v == EQUAL_KEYS_ALL ? n : clsort__min(n, 1);
      FORWARD_IF_ERROR(synth_buffer(ctx, s, 0, n * ks, v == RANDOM_KEYS));
      FORWARD_IF_ERROR(synth_buffer(ctx, s, 1, n * ks, false));
      if (size) FORWARD_IF_ERROR(synth_buffer(ctx, s, 2, n * size, false));
      return clsort_top_k_buffer(ctx, type, s->mem[0], n, k, s->mem[1], s->mem[2], size, o, 0, NULL,
                                 NULL);
    }
    case CLSORT_OP_SELECT:
      if (n == 0) return CLSORT_SUCCESS;
      FORWARD_IF_ERROR(synth_buffer(ctx, s, 0, n * ks, v == RANDOM_KEYS));
      FORWARD_IF_ERROR(synth_buffer(ctx, s, 1, ks, false));
      return clsort_select_buffer(ctx, type, s->mem[0], n, v == RANDOM_KEYS ? n / 2 : 0, s->mem[1],
                                  o, 0, NULL, NULL);
    default: {
      uint64_t offsets[2] = {0, n};
      FORWARD_IF_ERROR(synth_buffer(ctx, s, 0, n * ks, true));
      if (size) FORWARD_IF_ERROR(synth_buffer(ctx, s, 1, n * size, true));
      return clsort_segmented_sort_buffer(ctx, type, s->mem[0], s->mem[1], size, n, offsets, 1, o,
                                          0, NULL, NULL);
    }
  }
}

/* Measures one run: the carving adds up from a fresh start, while the
 * context allocates as usual (any caller scratch is set aside for it). */
static clsort_status measure(clsort_context *ctx, clsort_operation op, clsort_type type, size_t n,
                             size_t size, const clsort_options *o, variant v, size_t *bytes) {
  synth s;
  memset(&s, 0, sizeof s);
  ctx->measuring = true;
  ctx->measured = 0;
  memset(ctx->measure_size, 0, sizeof ctx->measure_size);
  clsort_status st = run_once(ctx, op, type, n, size, o, &s, v);
  ctx->measuring = false;
  *bytes = ctx->measured;
  clFinish(ctx->queue);
  for (int i = 0; i < 4; i++) clsort__release_buffer(ctx, s.mem[i]);
  return st;
}

static clsort_status scratch_bytes(clsort_context *ctx, clsort_operation op, clsort_type type,
                                   size_t n, size_t size, const clsort_options *options,
                                   size_t *bytes) {
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  RETURN_IF(!bytes, CLSORT_ERROR_INVALID_ARGUMENT, "bytes must not be NULL");
  RETURN_IF((unsigned)op > CLSORT_OP_SEGMENTED_SORT, CLSORT_ERROR_INVALID_ARGUMENT,
            "unknown operation %d", (int)op);
  RETURN_IF(op == CLSORT_OP_ARGSORT || op == CLSORT_OP_COMPACT || op == CLSORT_OP_BUCKET_OFFSETS,
            CLSORT_ERROR_UNSUPPORTED, "clsort_scratch_bytes does not measure operation %d",
            (int)op);
  RETURN_IF(clsort_type_size(type) == 0, CLSORT_ERROR_INVALID_ARGUMENT, "unknown type %d",
            (int)type);
  /* The measurement allocates as usual: the caller's buffer is set aside
   * and handed back after. */
  cl_mem caller = ctx->caller_scratch;
  size_t caller_bytes = ctx->caller_scratch_bytes;
  if (caller) {
    clRetainMemObject(caller);
    clsort__scratch_release_all(ctx);
    clsort__set_caller_scratch(ctx, NULL, 0);
  }
  size_t got = 0, more = 0;
  clsort_status st = measure(ctx, op, type, n, size, options, EQUAL_KEYS, &got);
  /* Top-k over every k: the full sort of a large k too. */
  if (st == CLSORT_SUCCESS && op == CLSORT_OP_TOP_K && n > 1)
    st = measure(ctx, op, type, n, size, options, EQUAL_KEYS_ALL, &more);
  got = clsort__max(got, more);
  /* Top-k and select on random keys: the radix select's compactions,
   * which equal keys never make (the sampled path, which a measurement
   * never takes, asks its largest buffers up front). */
  if (st == CLSORT_SUCCESS && (op == CLSORT_OP_TOP_K || op == CLSORT_OP_SELECT) && n > 1)
    st = measure(ctx, op, type, n, size, options, RANDOM_KEYS, &more);
  got = clsort__max(got, more);
  /* The segmented sort: the list of up to n / 2 short segments too, or
   * on GPUs the packed path's plan (every tile holds 2 keys or more, every
   * head 1 key or more: at most n / 2 + 1 tiles of 16 bytes and n heads
   * of 2), the list of long segments (more than 16 keys each: 32 bytes
   * per segment and one more) and their merge groups' co-ranks (8 bytes
   * per group of 16 keys or more, plus one per segment's last group). */
  if (op == CLSORT_OP_SEGMENTED_SORT && n >= 2)
    got += clsort__carve_bytes(ctx, clsort__max(n / 2 * 2 * sizeof(cl_ulong), (n / 2 + 2) * 16 + 2 * n)) +
           clsort__carve_bytes(ctx, (n / 16 + 1) * 32) + clsort__carve_bytes(ctx, (n / 8 + 1) * 8);
  clFinish(ctx->queue);
  if (caller) {
    clsort__scratch_release_all(ctx);
    clsort__set_caller_scratch(ctx, caller, caller_bytes);
    clReleaseMemObject(caller);
  }
  if (st == CLSORT_SUCCESS) *bytes = got;
  return st;
}

clsort_status clsort_scratch_bytes(clsort_context *ctx, clsort_operation op, clsort_type type,
                                   size_t n, size_t size, const clsort_options *options,
                                   size_t *bytes) {
  return LOCKED(ctx, scratch_bytes(ctx, op, type, n, size, options, bytes));
}
