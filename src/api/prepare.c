/* prepare.c: clsort_prepare, building ahead of time the kernels a kind of
 * call needs, by running that call on synthetic data at each size class
 * where the algorithms switch kernels. Running the real calls, rather than
 * listing kernels, keeps it right as algorithms change their variants. */
#include "api/api.h"

#include <stdlib.h>
#include <string.h>

/* The sizes a prepare runs: one within a tile (single-group and one-tile
 * paths), one of many tiles, and on GPUs one past the small-n shapes
 * (about 2^21 keys) where the large-n tile shapes take over. */
static size_t prepare_sizes(const clsort_context *ctx, size_t out[3]) {
  out[0] = 3000;
  out[1] = ((size_t)1 << 17) + 5;
  if (ctx->is_cpu) return 2;
  out[2] = ((size_t)1 << 22) + 3;
  return 3;
}

/* splitmix64: every bit pattern, so floats include NaNs and infinities. */
static void fill_random(unsigned char *data, size_t bytes, uint64_t seed) {
  for (size_t i = 0; i < bytes; i += 8) {
    uint64_t x = (seed += 0x9E3779B97F4A7C15ull);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    memcpy(data + i, &x, bytes - i < 8 ? bytes - i : 8);
  }
}

/* The algorithms calls with these options may run: AUTO picks the bitonic
 * sort for small unstable whole-key sorts and the radix sort otherwise. */
static size_t algorithms_for(const clsort_options *o, unsigned key_bits,
                             clsort_algorithm out[2]) {
  if (o->algorithm != CLSORT_AUTO) {
    out[0] = o->algorithm;
    return 1;
  }
  out[0] = CLSORT_RADIX;
  bool full_key = o->begin_bit == 0 && (o->end_bit == 0 || o->end_bit == key_bits);
  if ((o->flags & CLSORT_STABLE) || !full_key) return 1;
  out[1] = CLSORT_BITONIC;
  return 2;
}

static clsort_status run_sort(clsort_context *ctx, clsort_operation op, clsort_type type,
                              size_t size, const clsort_options *o, void *a, void *b, size_t n) {
  switch (op) {
    case CLSORT_OP_SORT:
      return clsort_sort(ctx, type, a, n, o);
    case CLSORT_OP_SORT_PAIRS:
      return clsort_sort_pairs(ctx, type, a, b, size, n, o);
    default:
      return clsort_argsort(ctx, type, a, b, size, n, o);
  }
}

static clsort_status run_primitive(clsort_context *ctx, clsort_operation op, clsort_type type,
                                   size_t size, void *a, void *b, size_t n) {
  size_t count;
  switch (op) {
    case CLSORT_OP_SCAN:
      FORWARD_IF_ERROR(clsort_scan(ctx, type, CLSORT_SCAN_EXCLUSIVE, a, b, n));
      return clsort_scan(ctx, type, CLSORT_SCAN_INCLUSIVE, a, b, n);
    case CLSORT_OP_REDUCE:
      /* Half floats take min and max only (buffers.c). */
      if (type != CLSORT_F16 && type != CLSORT_BF16)
        FORWARD_IF_ERROR(clsort_reduce(ctx, type, CLSORT_REDUCE_SUM, a, n, b));
      FORWARD_IF_ERROR(clsort_reduce(ctx, type, CLSORT_REDUCE_MIN, a, n, b));
      return clsort_reduce(ctx, type, CLSORT_REDUCE_MAX, a, n, b);
    case CLSORT_OP_COMPACT: {
      /* The flags are the low bytes of the random data behind the input. */
      const unsigned char *flags = (const unsigned char *)a + n * size;
      FORWARD_IF_ERROR(clsort_compact(ctx, size, a, flags, b, n, &count));
      return clsort_split(ctx, size, a, flags, b, n, &count);
    }
    default: {
      /* Bucket ids below 256 in 4-byte words; 1000-element tiles. */
      unsigned *ids = a;
      for (size_t i = 0; i < n; i++) ids[i] &= 255u;
      return clsort_bucket_offsets(ctx, ids, n, 256, 1000, type, b);
    }
  }
}

/* The 0.3 operations on host arrays a (keys) and b (outputs; room for
 * n keys and n 8-byte values each): every path each may take at n. */
static clsort_status run_operation(clsort_context *ctx, clsort_operation op, clsort_type type,
                                   size_t size, const clsort_options *o, unsigned char *a,
                                   unsigned char *b, size_t n) {
  size_t ks = clsort_type_size(type), half = n / 2;
  unsigned char *vals = b + n * ks;
  switch (op) {
    case CLSORT_OP_MERGE:
      if (size)
        return clsort_merge_pairs(ctx, type, a, a, half, a + half * ks, a, n - half, b, vals,
                                  size, o);
      return clsort_merge(ctx, type, a, half, a + half * ks, n - half, b, o);
    case CLSORT_OP_TOP_K:
      /* The path of a small k (every list length), the select path (k =
       * 100: above the small path's 16; on GPUs written by topk_final; k
       * = 1000, where n allows it: the candidates' sorts instead) and the
       * full sort of a large k. */
      if (n) FORWARD_IF_ERROR(clsort__top_k_small_prepare(ctx, ks));
      FORWARD_IF_ERROR(clsort_top_k(ctx, type, a, n, n < 100 ? n : 100, b, size ? vals : NULL,
                                    size, o));
      if (n / 4 > 1000)
        FORWARD_IF_ERROR(clsort_top_k(ctx, type, a, n, 1000, b, size ? vals : NULL, size, o));
      return clsort_top_k(ctx, type, a, n, n, b, size ? vals : NULL, size, o);
    case CLSORT_OP_SELECT:
      return n ? clsort_select(ctx, type, a, n, n / 2, b, o) : CLSORT_SUCCESS;
    default: {
      /* 100 short segments and a long one (the global path on CPUs), then
       * three thirds (a work-group each, or the whole-array sort). */
      uint64_t offsets[102];
      size_t count = 0;
      offsets[0] = 0;
      for (; count < 100 && (count + 1) * 8 < n; count++) offsets[count + 1] = (count + 1) * 8;
      offsets[++count] = n;
      if (n == 0) count = 0;
      void *v = size ? vals : NULL;
      FORWARD_IF_ERROR(clsort_segmented_sort(ctx, type, a, v, size, n, offsets, count, o));
      uint64_t thirds[4] = {0, n / 3, 2 * n / 3, n};
      return clsort_segmented_sort(ctx, type, a, v, size, n, thirds, 3, o);
    }
  }
}

/* Bytes of the two host arrays a run of n elements needs. */
static size_t array_bytes(clsort_operation op, clsort_type type, size_t size, size_t n) {
  size_t key = clsort_type_size(type);
  switch (op) {
    case CLSORT_OP_SORT:
    case CLSORT_OP_SCAN:
    case CLSORT_OP_REDUCE:
      return n * key;
    case CLSORT_OP_COMPACT:
      return n * (size + 1); /* input and flags; the output as large */
    case CLSORT_OP_BUCKET_OFFSETS:
      return (n / 1000 + 1) * 256 * key + n * 4; /* the table, or the ids */
    case CLSORT_OP_MERGE:
    case CLSORT_OP_TOP_K:
    case CLSORT_OP_SELECT:
    case CLSORT_OP_SEGMENTED_SORT:
      return n * (key + 8);
    default:
      return n * (key > size ? key : size);
  }
}

static clsort_status prepare(clsort_context *ctx, clsort_operation op, clsort_type type,
                             size_t size, const clsort_options *options) {
  static const clsort_options defaults = CLSORT_OPTIONS_DEFAULT;
  const clsort_options *o = options ? options : &defaults;
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  RETURN_IF((unsigned)op > CLSORT_OP_SEGMENTED_SORT, CLSORT_ERROR_INVALID_ARGUMENT,
            "unknown operation %d", (int)op);

  /* The calls themselves check the rest: an empty call first, before
   * anything is allocated (n == 0 allows NULL arrays). */
  bool sort = op <= CLSORT_OP_ARGSORT, operation = op > CLSORT_OP_BUCKET_OFFSETS;
  if (op == CLSORT_OP_COMPACT) type = CLSORT_U32;
  unsigned char none[16];
  FORWARD_IF_ERROR(sort        ? run_sort(ctx, op, type, size, o, none, none, 0)
                   : operation ? run_operation(ctx, op, type, size, o, none, none, 0)
                               : run_primitive(ctx, op, type, size, none, none, 0));
  size_t sizes[3], count = prepare_sizes(ctx, sizes);
  size_t largest = sizes[count - 1];
  size_t bytes = array_bytes(op, type, size, largest) + 16;
  unsigned char *a = clsort__malloc(ctx, bytes), *b = clsort__malloc(ctx, bytes);
  clsort_status st = a && b ? CLSORT_SUCCESS
                            : FAIL(CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for clsort_prepare");
  clsort_algorithm algorithms[2];
  size_t nalg = sort ? algorithms_for(o, (unsigned)clsort_type_size(type) * 8, algorithms) : 1;
  for (size_t i = 0; st == CLSORT_SUCCESS && i < nalg; i++) {
    clsort_options one = *o;
    one.algorithm = sort ? algorithms[i] : o->algorithm;
    for (size_t s = 0; st == CLSORT_SUCCESS && s < count; s++) {
      fill_random(a, bytes, 0x5EED + s);
      st = sort        ? run_sort(ctx, op, type, size, &one, a, b, sizes[s])
           : operation ? run_operation(ctx, op, type, size, &one, a, b, sizes[s])
                       : run_primitive(ctx, op, type, size, a, b, sizes[s]);
    }
  }
  free(a);
  free(b);
  return st;
}

clsort_status clsort_prepare(clsort_context *ctx, clsort_operation op, clsort_type type,
                             size_t size, const clsort_options *options) {
  return LOCKED(ctx, prepare(ctx, op, type, size, options));
}
