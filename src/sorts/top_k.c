/* top_k.c: radix select (clsort_select) and top-k (clsort_top_k). A
 * small k takes its own path (top_k_small.c: one read of the keys, the k
 * smallest kept per work-item and merged). Otherwise both
 * first try the sampled path (top_k_sample.c), which finds the keys near
 * the rank asked for in one pass; when it misses, the radix select runs:
 * the k-th key is found digit by digit from the top: each round counts the
 * candidates' digits (a histogram kernel; nothing per key is written),
 * reads the 256 counts back, picks the digit whose bucket holds the rank,
 * and when that bucket is small compacts its keys with the compact
 * primitive, so that later rounds read only them. Top-k then appends
 * every key at or below the k-th (with its input position) in one pass,
 * sorts that small set by position and then stably by key with the radix
 * sort, and keeps its first k: ties at the boundary go to the lowest
 * input positions, as the stable order has them. On GPUs the sampled
 * path writes top-k's result itself and its counts are read only at the
 * end (select_and_sort). A large k, for which the select saves little,
 * sorts everything instead. */
#include "sorts/sorts.h"

#include <stdlib.h>
#include <string.h>

/* Bits per round: 256 buckets, four rounds for 4-byte keys. */
#define DIGIT_BITS 8u
#define BUCKETS (1u << DIGIT_BITS)

/* The digit histogram at `shift` of the m candidates in `cur` that match
 * prefix under mask, into counts[BUCKETS]: launches of fewer than 2^32
 * keys each, so that the device's 32-bit counters cannot wrap, summed
 * here. One blocking read of 1 KB per launch. */
static clsort_status histogram(clsort_context *ctx, cl_kernel k, cl_mem cur, size_t m,
                               unsigned shift, uint64_t mask, uint64_t prefix,
                               const clsort__sort_job *job, cl_mem table,
                               uint64_t counts[BUCKETS]) {
  size_t ks = clsort_type_size(job->type);
  int kind = clsort__key_kind(job->type), desc = job->descending;
  memset(counts, 0, BUCKETS * sizeof counts[0]);
  const size_t part = (size_t)1 << 31;
  for (size_t first = 0; first < m; first += part) {
    cl_uint zero = 0, got[BUCKETS];
    FORWARD_IF_ERROR(CL_CHECK(
        clEnqueueFillBuffer(ctx->queue, table, &zero, sizeof zero, 0, sizeof got, 0, NULL, NULL)));
    cl_ulong first64 = clsort__input_at(job, cur) + first, n64 = clsort__min(part, m - first);
    cl_ulong mask64 = mask, prefix64 = prefix;
    cl_uint mask32 = (cl_uint)mask, prefix32 = (cl_uint)prefix, shift32 = shift;
    clsort__arg args[] = {ARG(cur),
                          ARG(first64),
                          ARG(n64),
                          ARG(shift32),
                          ks == 8 ? ARG(mask64) : ARG(mask32),
                          ks == 8 ? ARG(prefix64) : ARG(prefix32),
                          ARG(kind),
                          ARG(desc),
                          ARG(table)};
    FORWARD_IF_ERROR(clsort__topk_launch_each(ctx, k, (size_t)n64, 9, args));
    FORWARD_IF_ERROR(CL_CHECK(
        clEnqueueReadBuffer(ctx->queue, table, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL)));
    for (unsigned b = 0; b < BUCKETS; b++) counts[b] += got[b];
  }
  return CLSORT_SUCCESS;
}

/* Each round counts the candidates' digits with a histogram kernel that
 * writes nothing per key (the shared bucket-offsets primitive would need
 * a bucket id written and read back per key: twice the traffic of the
 * keys themselves). The candidates are compacted only when the chosen
 * bucket holds at most an eighth of them; otherwise the next round reads
 * the same keys again, filtered by the digits chosen so far. */
clsort_status clsort__radix_select(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys,
                                   size_t n, size_t rank, clsort__selected *out) {
  size_t ks = clsort_type_size(job->type);
  int kind = clsort__key_kind(job->type), desc = job->descending;
  cl_kernel hist_k, flags_k;
  FORWARD_IF_ERROR(clsort__topk_kernel(ctx, ks, "topk_histogram", &hist_k));
  FORWARD_IF_ERROR(clsort__topk_kernel(ctx, ks, "topk_flag_prefix", &flags_k));
  cl_mem cur = keys, spare[2] = {NULL, NULL}, table, flags, count;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_COUNT, sizeof(cl_ulong), &count));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_TABLE, BUCKETS * sizeof(cl_uint), &table));
  /* clsort_scratch_bytes (ctx->measuring) runs on synthetic keys: ask
   * the largest compactions any keys make up front (a bucket kept holds
   * at most an eighth of the candidates). */
  if (ctx->measuring && n >= 2) {
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_FLAGS, n, &flags));
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_A, n / 8 * ks + ks, &spare[0]));
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_B, n / 64 * ks + ks, &spare[1]));
  }
  size_t m = n, r = rank, less = 0, turn = 0;
  uint64_t prefix = 0, mask = 0;
  for (unsigned shift = (unsigned)ks * 8 - DIGIT_BITS;; shift -= DIGIT_BITS) {
    uint64_t counts[BUCKETS];
    FORWARD_IF_ERROR(histogram(ctx, hist_k, cur, m, shift, mask, prefix, job, table, counts));
    /* The bucket holding rank r among the candidates. */
    unsigned b = 0;
    while (counts[b] <= r) r -= (size_t)counts[b], less += (size_t)counts[b++];
    size_t in_bucket = (size_t)counts[b], candidates = 0;
    for (unsigned d = 0; d < BUCKETS; d++) candidates += (size_t)counts[d];
    prefix |= (uint64_t)b << shift;
    mask |= (uint64_t)(BUCKETS - 1) << shift;
    if (shift == 0) {
      out->bits = prefix;
      out->less = less;
      out->equal = in_bucket;
      return CLSORT_SUCCESS;
    }
    if (in_bucket > candidates / 8) continue;
    /* Keep the bucket's keys only. */
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_FLAGS, m, &flags));
    cl_ulong m64 = m, mask64 = mask, prefix64 = prefix, at = clsort__input_at(job, cur);
    cl_uint mask32 = (cl_uint)mask, prefix32 = (cl_uint)prefix;
    clsort__arg fargs[] = {ARG(cur),
                           ARG(at),
                           ARG(m64),
                           ks == 8 ? ARG(mask64) : ARG(mask32),
                           ks == 8 ? ARG(prefix64) : ARG(prefix32),
                           ARG(kind),
                           ARG(desc),
                           ARG(flags)};
    FORWARD_IF_ERROR(clsort__topk_launch_each(ctx, flags_k, m, 8, fargs));
    clsort__slot slot = turn % 2 ? SLOT_SELECT_B : SLOT_SELECT_A;
    FORWARD_IF_ERROR(clsort__scratch(ctx, slot, in_bucket * ks, &spare[turn % 2]));
    /* The input used in place (a CPU device) is compacted from its origin
     * by the CPU shape's select, which adds it. */
    const size_t origins[3] = {(size_t)at, 0, 0};
    FORWARD_IF_ERROR(at ? clsort__select_cpu(ctx, ks, false, cur, flags, spare[turn % 2], m,
                                             count, origins)
                        : clsort__select(ctx, ks, false, cur, flags, spare[turn % 2], m, count));
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

/* A sort of scratch buffers for the job: its settings, no origins (the
 * job's input may be a caller's array used in place at keys_at). */
static clsort__sort_job scratch_job(const clsort__sort_job *job) {
  clsort__sort_job s = *job;
  s.keys_at = s.vals_at = 0;
  return s;
}

/* Keys and positions of n keys, sorted stably: the path of a large k.
 * The keys are copied first and sorted in place: with keys_in apart from
 * keys_out, the radix sort's GPU shape was seen to leave keys_out
 * unwritten when every pass is skipped (all keys equal;
 * CLSORT_TUNING=16:16:2, n = 6). */
static clsort_status sort_all(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys,
                              size_t n, cl_mem *sorted_keys, cl_mem *sorted_idx) {
  size_t ks = clsort_type_size(job->type), is = job->value_size;
  clsort__sort_job s = scratch_job(job);
  s.n = n;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_A, n * ks, &s.keys_out));
  s.keys_in = s.keys_out;
  if (is) {
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_B, n * is, &s.vals_in));
    s.vals_out = s.vals_in;
  }
  size_t from = (size_t)clsort__input_at(job, keys) * ks;
  FORWARD_IF_ERROR(CL_CHECK(
      clEnqueueCopyBuffer(ctx->queue, keys, s.keys_out, from, 0, n * ks, 0, NULL, NULL)));
  if (is) FORWARD_IF_ERROR(clsort__run_iota(ctx, &s, s.vals_in, n, 0));
  s.make_index = false;
  if (n >= 2) FORWARD_IF_ERROR(clsort__radix_sort(ctx, &s));
  *sorted_keys = s.keys_out;
  *sorted_idx = s.vals_out;
  return CLSORT_SUCCESS;
}

/* The bits that values up to v need (at least 1). */
static unsigned bit_length(uint64_t v) {
  unsigned b = 1;
  while (b < 64 && (v >> b)) b++;
  return b;
}

/* The c candidates in ck (with their input positions in ci, when the job
 * has values), appended in no particular order, sorted: by position, then
 * stably by key, so that equal keys keep their input order (keys alone
 * need the second sort only). Positions are below n and every
 * candidate's order bits are at most `bound`: each sort reads only the
 * bits those take (for small k most of a key's high bits are zero). */
static clsort_status order_candidates(clsort_context *ctx, const clsort__sort_job *job, cl_mem ck,
                                      cl_mem ci, size_t c, size_t n, uint64_t bound) {
  size_t ks = clsort_type_size(job->type), is = job->value_size;
  if (c < 2) return CLSORT_SUCCESS;
  if (is) {
    clsort__sort_job by_pos = scratch_job(job);
    by_pos.type = is == 8 ? CLSORT_U64 : CLSORT_U32;
    by_pos.n = c;
    by_pos.begin_bit = 0;
    by_pos.end_bit = bit_length(n - 1);
    by_pos.descending = false;
    by_pos.keys_in = by_pos.keys_out = ci;
    by_pos.vals_in = by_pos.vals_out = ck;
    by_pos.value_size = ks;
    by_pos.make_index = false;
    FORWARD_IF_ERROR(clsort__radix_sort(ctx, &by_pos));
  }
  clsort__sort_job s = scratch_job(job);
  s.n = c;
  s.begin_bit = 0;
  s.end_bit = bit_length(bound);
  s.keys_in = s.keys_out = ck;
  s.vals_in = s.vals_out = ci;
  s.make_index = false;
  return clsort__radix_sort(ctx, &s);
}

/* The c candidates in ck with their positions in ci sorted stably by key
 * alone (every bit), out of place into the select's slots, so that the
 * sort needs no copy back: what topk_settle reads (the late read of a k
 * above topk_final's). One sort instead of two: on the H100 each cost
 * about six launches of about 10 us whatever the count (2^26 keys,
 * docs/results/topk-2026-11-25-h100/topk-profile.log), and the sort by
 * position was there for stability alone. */
static clsort_status sort_by_key(clsort_context *ctx, const clsort__sort_job *job, cl_mem ck,
                                 cl_mem ci, size_t c, cl_mem *sk, cl_mem *si) {
  size_t ks = clsort_type_size(job->type), is = job->value_size;
  clsort__sort_job s = scratch_job(job);
  s.n = c;
  s.begin_bit = 0;
  s.end_bit = (unsigned)ks * 8;
  s.keys_in = ck;
  s.vals_in = ci;
  s.make_index = false;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_A, c * ks, &s.keys_out));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_B, c * is, &s.vals_out));
  FORWARD_IF_ERROR(clsort__radix_sort(ctx, &s));
  *sk = s.keys_out;
  *si = s.vals_out;
  return CLSORT_SUCCESS;
}

/* CLSORT_TOPK_SETTLE=0 sorts by position and by key instead (the path
 * before topk_settle), for comparison. */
static bool settles(void) {
  const char *v = getenv("CLSORT_TOPK_SETTLE");
  return !(v && strcmp(v, "0") == 0);
}

/* The keys at or below the k-th (and their positions), appended in one
 * pass after the radix select found the k-th: the path of a small k when
 * the sampled path missed. */
static clsort_status append_selected(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys,
                                     size_t n, size_t k, cl_mem *ck, cl_mem *ci, size_t *count,
                                     uint64_t *bound) {
  size_t ks = clsort_type_size(job->type), is = job->value_size;
  clsort__selected sel;
  FORWARD_IF_ERROR(clsort__radix_select(ctx, job, keys, n, k - 1, &sel));
  size_t c = sel.less + sel.equal;
  *count = c;
  *bound = sel.bits;
  *ci = NULL;
  /* The counter is 32 bits; so many candidates cost a full sort anyway. */
  if (c > UINT32_MAX) return CLSORT_SUCCESS;
  cl_kernel append;
  FORWARD_IF_ERROR(clsort__topk_kernel(ctx, ks, "topk_append", &append));
  cl_mem counter;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_COUNT, sizeof(cl_ulong), &counter));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_A, c * ks, ck));
  if (is) FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SELECT_B, c * is, ci));
  cl_uint zero = 0;
  FORWARD_IF_ERROR(CL_CHECK(
      clEnqueueFillBuffer(ctx->queue, counter, &zero, sizeof zero, 0, sizeof zero, 0, NULL, NULL)));
  cl_ulong n64 = n, t64 = sel.bits, at = clsort__input_at(job, keys);
  cl_uint t32 = (cl_uint)sel.bits;
  int kind = clsort__key_kind(job->type), desc = job->descending, positions = is != 0;
  int wide = is == 8;
  cl_mem pos = *ci ? *ci : *ck;
  clsort__arg args[] = {ARG(keys),     ARG(at),        ARG(n64),  ks == 8 ? ARG(t64) : ARG(t32),
                        ARG(kind),     ARG(desc),      ARG(*ck),  ARG(positions),
                        ARG(wide),     ARG(pos),       ARG(pos),  ARG(counter)};
  return clsort__topk_launch_each(ctx, append, n, 12, args);
}

/* The first k of the sorted candidates (or of every key sorted) into the
 * outputs, each at its origin. */
static clsort_status copy_out(clsort_context *ctx, const clsort__sort_job *job, cl_mem sk,
                              cl_mem si, size_t k, const clsort__top_k_out *dst) {
  size_t ks = clsort_type_size(job->type), is = job->value_size;
  if (dst->keys)
    FORWARD_IF_ERROR(CL_CHECK(clEnqueueCopyBuffer(ctx->queue, sk, dst->keys, 0, dst->keys_at * ks,
                                                  k * ks, 0, NULL, NULL)));
  if (is)
    FORWARD_IF_ERROR(CL_CHECK(clEnqueueCopyBuffer(ctx->queue, si, dst->indices, 0,
                                                  dst->indices_at * is, k * is, 0, NULL, NULL)));
  return CLSORT_SUCCESS;
}

/* Top-k of a k that is not small: the keys at or below the k-th and their
 * positions, sorted, the first k copied out. The sampled path finds them
 * in one pass; when it misses, the radix select finds the k-th and one
 * more pass appends them. With the sampled path's counts read late (GPUs:
 * top_k_sample.c), the result is written before the one read that says
 * whether the bracket held (when it did not, the radix select's result
 * overwrites the outputs): for k up to 512 topk_final writes it from the
 * candidates in one launch; above, the whole padded buffer is sorted by
 * key and topk_settle writes its first k, equal keys settled by position
 * (keys alone: sorted and copied out). */
static clsort_status select_and_sort(clsort_context *ctx, const clsort__sort_job *job,
                                     cl_mem keys, size_t n, size_t k,
                                     const clsort__top_k_out *dst) {
  /* A caller's host arrays used in place must stay as they were when the
   * call fails. Of the late read's ways only topk_final writes them before
   * the counts are read, as it writes the result or nothing; the others
   * write before knowing whether the bracket held, and the fallback after
   * a miss may still fail (for want of memory). So those read early. */
  bool late = clsort__sample_reads_late(ctx) && (!dst->host || clsort__sample_final_takes(k));
  clsort__sampled got;
  FORWARD_IF_ERROR(clsort__sample_candidates(ctx, job, keys, n, 0, k - 1, job->value_size,
                                             late ? k : 0, &got));
  if (got.pending) {
    if (clsort__sample_final_takes(k)) {
      FORWARD_IF_ERROR(clsort__sample_final(ctx, job, &got, k, dst));
    } else if (job->value_size && settles()) {
      cl_mem sk, si;
      FORWARD_IF_ERROR(clsort__sample_pad(ctx, job, &got));
      FORWARD_IF_ERROR(sort_by_key(ctx, job, got.keys, got.positions, got.count, &sk, &si));
      FORWARD_IF_ERROR(clsort__sample_settle(ctx, job, &got, k, sk, si, dst));
    } else {
      FORWARD_IF_ERROR(clsort__sample_pad(ctx, job, &got));
      FORWARD_IF_ERROR(order_candidates(ctx, job, got.keys, got.positions, got.count, n, got.hi));
      FORWARD_IF_ERROR(copy_out(ctx, job, got.keys, got.positions, k, dst));
    }
    FORWARD_IF_ERROR(clsort__sample_check(ctx, job, &got));
    if (got.found) return CLSORT_SUCCESS;
  }
  cl_mem ck = got.keys, ci = got.positions;
  size_t c = got.count;
  uint64_t bound = got.hi;
  if (!got.found) {
    FORWARD_IF_ERROR(append_selected(ctx, job, keys, n, k, &ck, &ci, &c, &bound));
    if (c > UINT32_MAX) {
      FORWARD_IF_ERROR(sort_all(ctx, job, keys, n, &ck, &ci));
      return copy_out(ctx, job, ck, ci, k, dst);
    }
  }
  FORWARD_IF_ERROR(order_candidates(ctx, job, ck, ci, c, n, bound));
  return copy_out(ctx, job, ck, ci, k, dst);
}

clsort_status clsort__select_key(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys,
                                 size_t n, size_t rank, clsort__selected *out) {
  clsort__top_k_set_path(SELECT_PATH_RADIX);
  if (!clsort__select_samples(ctx)) return clsort__radix_select(ctx, job, keys, n, rank, out);
  clsort__sampled got;
  FORWARD_IF_ERROR(clsort__sample_candidates(ctx, job, keys, n, rank, rank, 0, 0, &got));
  if (!got.found) return clsort__radix_select(ctx, job, keys, n, rank, out);
  /* The key of that rank is among the candidates, and so are all its
   * equals: only the count below them is to add. */
  FORWARD_IF_ERROR(clsort__radix_select(ctx, job, got.keys, got.count, rank - got.below, out));
  out->less += got.below;
  return CLSORT_SUCCESS;
}

clsort_status clsort__top_k(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys, size_t n,
                            size_t k, const clsort__top_k_out *dst) {
  clsort__top_k_set_path(SELECT_PATH_NONE);
  if (k == 0) return CLSORT_SUCCESS;
  if (clsort__top_k_small_takes(ctx, n, k)) {
    clsort__top_k_set_path(SELECT_PATH_SMALL);
    FORWARD_IF_ERROR(clsort__top_k_small(ctx, job, keys, n, k, dst));
    /* clsort_scratch_bytes (ctx->measuring) sizes calls of any k: the
     * paths of a larger one ask for their scratch too. */
    if (!ctx->measuring) return CLSORT_SUCCESS;
  }
  /* From a quarter of n on, the candidates' compaction and sort cost
   * about as much as sorting everything. */
  clsort__top_k_set_path(k >= n / 4 ? SELECT_PATH_SORT_ALL : SELECT_PATH_RADIX);
  if (k < n / 4) return select_and_sort(ctx, job, keys, n, k, dst);
  cl_mem sk, si;
  FORWARD_IF_ERROR(sort_all(ctx, job, keys, n, &sk, &si));
  return copy_out(ctx, job, sk, si, k, dst);
}
