/* top_k.c: radix select (clsort_select) and top-k (clsort_top_k) on the
 * primitive layer. The k-th key is found digit by digit from the top:
 * each round tags the candidates with their digit, takes the digit
 * histogram from the bucket-offsets primitive (the first tile's column of
 * its scanned table), reads it back, picks the digit whose bucket holds
 * the rank, and compacts that bucket's keys with the compact primitive, so
 * that later rounds read only them. Top-k then compacts every key at or
 * below the k-th (keys and input positions), sorts that small set with the
 * stable radix sort, and keeps its first k: ties at the boundary go to the
 * lowest input positions, as the stable order has them. A large k, for
 * which the select saves little, sorts everything instead. */
#include <stdio.h>

#include "sorts/sorts.h"

static const char *const topk_files[] = {"common/common.cl", "sorts/keys.cl", "sorts/topk.cl",
                                         NULL};
static const clsort__program_spec topk_spec = {"topk", topk_files};

/* Bits per round: 256 buckets, four rounds for 4-byte keys. */
#define DIGIT_BITS 8u
#define BUCKETS (1u << DIGIT_BITS)

static clsort_status topk_kernel(clsort_context *ctx, size_t key_size, const char *name,
                                 cl_kernel *out) {
  return clsort__key_width_kernel(ctx, &topk_spec, key_size, name, out);
}

/* An element-wise kernel over n elements (topk.cl's TK_FOR): enough
 * groups to fill the device, none idle. */
static clsort_status launch_each(clsort_context *ctx, cl_kernel k, size_t n, cl_uint nargs,
                                 const clsort__arg *args) {
  size_t wg = ctx->tuning.wg_size;
  clsort__chunks c = clsort__chunking(ctx, n, clsort__tile(ctx));
  size_t global = clsort__min(c.groups * wg, clsort__div_up(n, wg) * wg);
  return clsort__launch(ctx, k, global, wg, nargs, args, 0, NULL, NULL);
}

/* The first entry of each bucket's column of the scanned table: the
 * number of elements in lower buckets. One strided read. */
static clsort_status read_heads(clsort_context *ctx, cl_mem table, size_t tiles,
                                cl_ulong heads[BUCKETS]) {
  size_t origin[3] = {0, 0, 0}, region[3] = {sizeof(cl_ulong), BUCKETS, 1};
  return CL_CHECK(clEnqueueReadBufferRect(ctx->queue, table, CL_TRUE, origin, origin, region,
                                          tiles * sizeof(cl_ulong), 0, sizeof(cl_ulong), 0, heads,
                                          0, NULL, NULL));
}

clsort_status clsort__radix_select(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys,
                                   size_t n, size_t rank, clsort__selected *out) {
  size_t ks = clsort_type_size(job->type);
  int kind = clsort__key_kind(job->type), desc = job->descending;
  cl_kernel digits_k, flags_k;
  FORWARD_IF_ERROR(topk_kernel(ctx, ks, "topk_digits", &digits_k));
  FORWARD_IF_ERROR(topk_kernel(ctx, ks, "topk_flag_digit", &flags_k));
  cl_mem cur = keys, spare[2] = {NULL, NULL}, digits, table, flags, count;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_COUNT, sizeof(cl_ulong), &count));
  size_t m = n, r = rank, less = 0, turn = 0;
  uint64_t prefix = 0;
  cl_uint width = DIGIT_BITS;
  for (unsigned shift = (unsigned)ks * 8 - DIGIT_BITS;; shift -= DIGIT_BITS) {
    /* The digit histogram of the m candidates in `cur`. */
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_DIGITS, m * sizeof(cl_uint), &digits));
    cl_ulong m64 = m;
    cl_uint shift32 = shift;
    clsort__arg dargs[] = {ARG(cur),  ARG(m64),  ARG(shift32), ARG(width),
                           ARG(kind), ARG(desc), ARG(digits)};
    FORWARD_IF_ERROR(launch_each(ctx, digits_k, m, 7, dargs));
    size_t tile = clsort__max(clsort__tile(ctx), clsort__div_up(m, 256));
    size_t tiles = clsort__div_up(m, tile);
    FORWARD_IF_ERROR(
        clsort__scratch(ctx, SLOT_SELECT_TABLE, BUCKETS * tiles * sizeof(cl_ulong), &table));
    FORWARD_IF_ERROR(clsort__bucket_offsets(ctx, digits, m, BUCKETS, tile, CLSORT_U64, table));
    cl_ulong heads[BUCKETS];
    FORWARD_IF_ERROR(read_heads(ctx, table, tiles, heads));
    /* The bucket holding rank r: the last whose head is at most r (the
     * heads do not decrease and heads[0] is 0). */
    unsigned b = 0;
    while (b + 1 < BUCKETS && heads[b + 1] <= r) b++;
    size_t in_bucket = (size_t)((b + 1 < BUCKETS ? heads[b + 1] : m) - heads[b]);
    r -= (size_t)heads[b];
    less += (size_t)heads[b];
    prefix |= (uint64_t)b << shift;
    if (shift == 0) {
      out->bits = prefix;
      out->less = less;
      out->equal = in_bucket;
      return CLSORT_SUCCESS;
    }
    if (in_bucket == m) continue; /* every candidate shares the digit */
    /* Keep the bucket's keys only. */
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_FLAGS, m, &flags));
    cl_uint digit = b;
    clsort__arg fargs[] = {ARG(cur),   ARG(m64),  ARG(shift32), ARG(width),
                           ARG(digit), ARG(kind), ARG(desc),    ARG(flags)};
    FORWARD_IF_ERROR(launch_each(ctx, flags_k, m, 8, fargs));
    clsort__slot slot = turn % 2 ? SLOT_SELECT_B : SLOT_SELECT_A;
    FORWARD_IF_ERROR(clsort__scratch(ctx, slot, in_bucket * ks, &spare[turn % 2]));
    FORWARD_IF_ERROR(clsort__select(ctx, ks, false, cur, flags, spare[turn % 2], m, count));
    cur = spare[turn++ % 2];
    m = in_bucket;
  }
}

uint64_t clsort__key_of_bits(clsort_type type, bool descending, uint64_t b) {
  unsigned bits = (unsigned)clsort_type_size(type) * 8;
  uint64_t mask = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
  uint64_t sign = (uint64_t)1 << (bits - 1);
  if (descending) b = ~b & mask;
  switch (clsort__key_kind(type)) {
    case 1:
      return b ^ sign;
    case 2:
      return (b & sign) ? b ^ sign : ~b & mask;
    default:
      return b;
  }
}

/* Keys and positions of n keys, sorted stably: the path of a large k.
 * The keys are copied first and sorted in place: with keys_in apart from
 * keys_out, the radix sort's GPU shape was seen to leave keys_out
 * unwritten when every pass is skipped (all keys equal;
 * CLSORT_TUNING=16:16:2, n = 6). */
static clsort_status sort_all(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys,
                              size_t n, cl_mem *sorted_keys, cl_mem *sorted_idx) {
  size_t ks = clsort_type_size(job->type), is = job->value_size;
  clsort__sort_job s = *job;
  s.n = n;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_A, n * ks, &s.keys_out));
  s.keys_in = s.keys_out;
  if (is) {
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_B, n * is, &s.vals_in));
    s.vals_out = s.vals_in;
  }
  FORWARD_IF_ERROR(
      CL_CHECK(clEnqueueCopyBuffer(ctx->queue, keys, s.keys_out, 0, 0, n * ks, 0, NULL, NULL)));
  if (is) FORWARD_IF_ERROR(clsort__run_iota(ctx, &s, s.vals_in, n, 0));
  s.make_index = false;
  if (n >= 2) FORWARD_IF_ERROR(clsort__radix_sort(ctx, &s));
  *sorted_keys = s.keys_out;
  *sorted_idx = s.vals_out;
  return CLSORT_SUCCESS;
}

/* The keys at or below the k-th (and their positions), in input order,
 * then sorted stably: the path of a small k. */
static clsort_status sort_candidates(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys,
                                     size_t n, size_t k, cl_mem *sorted_keys, cl_mem *sorted_idx) {
  size_t ks = clsort_type_size(job->type), is = job->value_size;
  clsort__selected sel;
  FORWARD_IF_ERROR(clsort__radix_select(ctx, job, keys, n, k - 1, &sel));
  size_t c = sel.less + sel.equal;
  cl_kernel upto;
  FORWARD_IF_ERROR(topk_kernel(ctx, ks, "topk_flag_upto", &upto));
  cl_mem flags, count, ck, ci = NULL;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_FLAGS, n, &flags));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_COUNT, sizeof(cl_ulong), &count));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_A, c * ks, &ck));
  cl_ulong n64 = n, t64 = sel.bits;
  cl_uint t32 = (cl_uint)sel.bits;
  int kind = clsort__key_kind(job->type), desc = job->descending;
  clsort__arg args[] = {ARG(keys), ARG(n64),  ks == 8 ? ARG(t64) : ARG(t32),
                        ARG(kind), ARG(desc), ARG(flags)};
  FORWARD_IF_ERROR(launch_each(ctx, upto, n, 6, args));
  FORWARD_IF_ERROR(clsort__select(ctx, ks, false, keys, flags, ck, n, count));
  if (is) {
    cl_mem iota;
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_IOTA, n * is, &iota));
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_B, c * is, &ci));
    FORWARD_IF_ERROR(clsort__run_iota(ctx, job, iota, n, 0));
    FORWARD_IF_ERROR(clsort__select(ctx, is, false, iota, flags, ci, n, count));
  }
  if (c >= 2) {
    clsort__sort_job s = *job;
    s.n = c;
    s.keys_in = s.keys_out = ck;
    s.vals_in = s.vals_out = ci;
    s.make_index = false;
    FORWARD_IF_ERROR(clsort__radix_sort(ctx, &s));
  }
  *sorted_keys = ck;
  *sorted_idx = ci;
  return CLSORT_SUCCESS;
}

clsort_status clsort__top_k(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys, size_t n,
                            size_t k, cl_mem out_keys, cl_mem indices) {
  if (k == 0) return CLSORT_SUCCESS;
  size_t ks = clsort_type_size(job->type), is = job->value_size;
  cl_mem sk, si;
  /* From a quarter of n on, the candidates' compaction and sort cost
   * about as much as sorting everything. */
  if (k >= n / 4)
    FORWARD_IF_ERROR(sort_all(ctx, job, keys, n, &sk, &si));
  else
    FORWARD_IF_ERROR(sort_candidates(ctx, job, keys, n, k, &sk, &si));
  if (out_keys)
    FORWARD_IF_ERROR(
        CL_CHECK(clEnqueueCopyBuffer(ctx->queue, sk, out_keys, 0, 0, k * ks, 0, NULL, NULL)));
  if (is)
    FORWARD_IF_ERROR(
        CL_CHECK(clEnqueueCopyBuffer(ctx->queue, si, indices, 0, 0, k * is, 0, NULL, NULL)));
  return CLSORT_SUCCESS;
}
