/* test_sort.c: clsort_sort, clsort_sort_pairs, clsort_argsort and
 * clsort_sort_buffer (AUTO and RADIX) against a stable C reference: every
 * key type and direction, keys / pairs / argsort with 4- and 8-byte
 * payloads, ten key distributions, tile-edge sizes, special values, bit
 * ranges, and the multi-work-item tile path that GPUs run. */
#define _POSIX_C_SOURCE 200809L
#include "sort_check.h"

#include <stdlib.h>

/* Private (runtime/runtime.h), reached through the internal dependency: the -D
 * flags of the context's launch shape, to confirm that CLSORT_TUNING took. */
const char *clsort__common_options(const clsort_context *ctx);

/* GPU-style shapes on PoCL (CLSORT_TUNING=WG:ITEMS:GROUPS_PER_CU): the
 * radix tile is ranked across the group's work-items in local memory,
 * unlike the CPU default of one work-item with a 256-key run. 16 x 8-key
 * tiles of 128 keys; and the default shape of GPUs other than NVIDIA's,
 * 256 x 16-key tiles of 4096 keys. */
#define TILED_TUNING "16:16:2"
#define WIDE_TUNING "256:8:1"

/* ------------------------------------------------------------ the matrix */
/* _i = type * D_COUNT + distribution: both directions, all five modes, at
 * 1000, 65537 and a random size; one direction and three modes at
 * 1000003. Directions alternate between RADIX and AUTO with STABLE, so
 * that every output has one right answer. */
T_TEST(sort_matrix) {
  clsort_type t = t_all_types[_i / D_COUNT];
  int dist = _i % D_COUNT;
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_matrix");
  r.s[0] ^= (uint64_t)_i;
  size_t sizes[3] = {1000, 65537, t_rng_size(&r, 2, 300000)};
  for (int s = 0; s < 3; s++)
    for (int desc = 0; desc < 2; desc++) {
      bool radix = (dist + desc) % 2 == 1;
      clsort_options o = {radix ? CLSORT_RADIX : CLSORT_AUTO,
                          (desc ? CLSORT_DESCENDING : 0u) | (radix ? 0u : CLSORT_STABLE), 0u, 0u};
      t_check_dist(&r, t, dist, sizes[s], &o, MODES_ALL);
    }
  clsort_options o = {CLSORT_RADIX, (_i / D_COUNT + dist) % 2 ? CLSORT_DESCENDING : 0u, 0u, 0u};
  t_check_dist(&r, t, dist, 1000003, &o, (1u << M_KEYS) | (1u << M_PAIRS4) | (1u << M_ARG8));
}

/* Sizes at the edges: tiny, around the radix tile of the CPU shape (256)
 * and of the tiled shape (128), around powers of two, primes. */
static const size_t edge_sizes[] = {
    0,     1,      2,      3,      4,      5,      7,      8,      9,      15,     16,
    17,    127,    128,    129,    255,    256,    257,    511,    513,    1023,   1024,
    1025,  2047,   2049,   4095,   4096,   4097,   8191,   8193,   16383,  16385,  32767,
    32769, 65521,  65535,  65536,  65537,  131071, 131073, 262143, 262145, 524287, 1000003,
    1048575, 1048577};
#define NEDGE (sizeof edge_sizes / sizeof edge_sizes[0])

/* _i = type: uniform data at every edge size, all modes; both directions
 * up to 70000, one above. The options rotate through AUTO (unstable:
 * payloads checked as a permutation), AUTO|STABLE and RADIX. */
T_TEST(sort_edge_sizes) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_edge_sizes");
  r.s[0] ^= (uint64_t)_i;
  for (size_t s = 0; s < NEDGE; s++) {
    size_t n = edge_sizes[s];
    for (int desc = 0; desc < 2; desc++) {
      if (n > 70000 && desc != (int)(s % 2)) continue;
      static const clsort_options base[3] = {{CLSORT_AUTO, 0u, 0u, 0u},
                                             {CLSORT_AUTO, CLSORT_STABLE, 0u, 0u},
                                             {CLSORT_RADIX, 0u, 0u, 0u}};
      clsort_options o = base[(s + (size_t)desc) % 3];
      if (desc) o.flags |= CLSORT_DESCENDING;
      t_check_dist(&r, t, D_UNIFORM, n, &o, MODES_ALL);
    }
  }
}

/* ------------------------------------------------------- special values */
static clsort_options specials_options(size_t s, bool desc) {
  clsort_options o = {s == 1 ? CLSORT_AUTO : CLSORT_RADIX,
                      (desc ? CLSORT_DESCENDING : 0u) | (s == 1 ? CLSORT_STABLE : 0u), 0u, 0u};
  return o;
}

/* _i = type: INT_MIN/INT_MAX, signed zeros, infinities, NaNs of both signs
 * and several payloads, denormals. The list once each (shuffled), then
 * many draws from it, both directions, all modes. */
T_TEST(sort_special_values) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  size_t count, es = clsort_type_size(t);
  const uint64_t *list = t_special_list(t, &count);
  unsigned char *lk = t_alloc(count * es);
  for (size_t k = 0; k < count; k++) t_put_bits(t, lk, k, list[k]);
  t_label("%s: the hand-written order agrees with the reference's order keys",
          clsort_type_name(t));
  for (size_t k = 1; k < count; k++)
    ASSERT_GT_U64(t_order_key(t, lk, k), t_order_key(t, lk, k - 1));

  t_rng r;
  t_rng_init(&r, "sort_special_values");
  r.s[0] ^= (uint64_t)_i;
  const size_t sizes[] = {count, 2001, 70001};
  t_check_specials_sweep(&r, t, sizes, sizeof sizes / sizeof sizes[0], specials_options,
                         "specials");
}

/* -------------------------------------------------------------- stability */
/* Few distinct keys (2, 3 or 16): the payloads' whole order is decided by
 * stability, in both directions. _i = type. */
T_TEST(sort_stability) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_stability");
  r.s[0] ^= (uint64_t)_i;
  static const size_t sizes[] = {100, 4099, 70001, 300007};
  size_t es = clsort_type_size(t);
  for (size_t s = 0; s < 4; s++) {
    size_t n = sizes[s];
    /* Multi-item groups run as loops on a CPU: keep the tiled shapes cheap. */
    if (n > 100000 && getenv("CLSORT_TUNING")) continue;
    unsigned char *keys = t_alloc(n * es);
    for (int variant = 0; variant < 3; variant++) {
      if (variant == 2) {
        t_gen_keys(&r, t, D_FEW, keys, n);
      } else {
        /* Two or three values, the largest and smallest among them. */
        uint64_t v[3] = {t_from_order(t, 0), t_from_order(t, es == 4 ? 0xFFFFFFFFu : UINT64_MAX),
                         t_rng_next(&r)};
        for (size_t i = 0; i < n; i++)
          t_put_bits(t, keys, i, v[t_rng_below(&r, 2u + (unsigned)variant)]);
      }
      for (int desc = 0; desc < 2; desc++) {
        clsort_options o = {variant == 1 ? CLSORT_AUTO : CLSORT_RADIX,
                            (desc ? CLSORT_DESCENDING : 0u) | (variant == 1 ? CLSORT_STABLE : 0u),
                            0u, 0u};
        t_check_input(t, keys, n, &o, MODES_PAYLOAD, variant == 2 ? "16 values" : "2-3 values");
      }
    }
    t_release_now(keys);
  }
}

/* ------------------------------------------------------------ bit ranges */
/* Only bits [begin, end) of the order key count; the stable sort keeps
 * keys equal in those bits in input order, so keys and payloads have one
 * answer. Narrow ranges, ranges not on digit boundaries, ranges whose
 * passes all see one digit. */
static const struct {
  clsort_type t;
  unsigned begin, end;
} bit_ranges[] = {
    {CLSORT_U32, 0, 4},   {CLSORT_U32, 4, 12},  {CLSORT_U32, 8, 32},  {CLSORT_U32, 8, 16},
    {CLSORT_U32, 28, 32}, {CLSORT_U32, 0, 1},   {CLSORT_U32, 31, 32}, {CLSORT_U32, 3, 30},
    {CLSORT_U32, 0, 32},  {CLSORT_U32, 16, 0},  {CLSORT_I32, 0, 31},  {CLSORT_I32, 31, 0},
    {CLSORT_I32, 0, 8},   {CLSORT_F32, 23, 32}, {CLSORT_F32, 31, 32}, {CLSORT_F32, 0, 23},
    {CLSORT_U64, 32, 64}, {CLSORT_U64, 0, 1},   {CLSORT_U64, 13, 47}, {CLSORT_U64, 0, 64},
    {CLSORT_U64, 60, 64}, {CLSORT_U64, 0, 32},  {CLSORT_U64, 5, 61},  {CLSORT_I64, 56, 0},
    {CLSORT_I64, 0, 63},  {CLSORT_I64, 63, 64}, {CLSORT_F64, 52, 0},  {CLSORT_F64, 63, 64},
    {CLSORT_F64, 0, 52},  {CLSORT_U32, 0, 11},  {CLSORT_U32, 0, 12},  {CLSORT_U32, 10, 32},
    {CLSORT_U64, 0, 22},  {CLSORT_U64, 42, 64}, {CLSORT_U64, 11, 33},
};
#define NBIT_RANGES (sizeof bit_ranges / sizeof bit_ranges[0])

/* Keys whose order-key bytes 1 and 2 (and, for 64 bits, 3 to 5) are
 * constant: passes over those bits must be skipped, whatever the range. */
static void gen_holey(t_rng *r, clsort_type t, void *p, size_t n) {
  size_t es = clsort_type_size(t);
  uint64_t keep = es == 4 ? 0xFF0000FFull : 0xFFFF0000000000FFull;
  uint64_t fixed = es == 4 ? 0x00ABCD00ull : 0x0000ABCDEF12CD00ull;
  for (size_t i = 0; i < n; i++)
    t_put_bits(t, p, i, t_from_order(t, (t_rng_next(r) & keep) | fixed));
}

/* _i = range. */
T_TEST(sort_bit_ranges) {
  clsort_type t = bit_ranges[_i].t;
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_bit_ranges");
  r.s[0] ^= (uint64_t)_i;
  size_t es = clsort_type_size(t);
  for (int data = 0; data < 2; data++) {
    size_t n = data ? 5003 : 70001;
    unsigned char *keys = t_alloc(n * es);
    if (data)
      gen_holey(&r, t, keys, n);
    else
      t_gen_keys(&r, t, D_UNIFORM, keys, n);
    for (int desc = 0; desc < 2; desc++) {
      clsort_options o = {desc ? CLSORT_RADIX : CLSORT_AUTO,
                          desc ? CLSORT_DESCENDING : CLSORT_STABLE, bit_ranges[_i].begin,
                          bit_ranges[_i].end};
      t_check_input(t, keys, n, &o, MODES_ALL, data ? "middle bytes constant" : "uniform");
    }
    t_release_now(keys);
  }
}

/* Inputs whose digits are constant in some passes, full key width: one
 * digit varying (an odd pass count, which ends with a copy), two apart,
 * all but one, none at all (no pass, yet argsort must write indices), and
 * one key alone differing in a digit (first, last or anywhere), whose pass
 * must not be skipped. The masks follow both digit widths the library
 * uses: bytes (the tile path) and 11 bits (the CPU shape). _i = type. */
T_TEST(sort_pass_skipping) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_pass_skipping");
  r.s[0] ^= (uint64_t)_i;
  size_t es = clsort_type_size(t);
  unsigned bytes = (unsigned)es;
  uint64_t all = es == 4 ? 0xFFFFFFFFull : UINT64_MAX;
  /* Masks over the order key's bytes: which ones vary. */
  const uint64_t patterns[] = {0,
                               0xFFull << 8 * (bytes - 1),
                               0xFF,
                               0xFFull | (0xFFull << 8 * (bytes - 1)),
                               0xFF00,
                               all & ~(0xFFull << 8),
                               0xFF,
                               0xFF,
                               0,
                               0x7FFull << 11,
                               all & ~(0x7FFull << 11),
                               all & ~((1ull << 22) - 1),
                               0x7FFull | (0x7FFull << 22)};
  static const char *const names[] = {
      "no byte varies",        "top byte varies",       "low byte varies",
      "low and top bytes vary", "byte 1 varies",         "all but byte 1 vary",
      "one key differs in bit 17, first", "one key differs in bit 17, last",
      "one key differs in bit 17, anywhere", "bits 11-21 vary", "all but bits 11-21 vary",
      "bits 22 and up vary", "bits 0-10 and 22-32 vary"};
  uint64_t base = t_rng_next(&r);
  for (size_t k = 0; k < sizeof patterns / sizeof patterns[0]; k++) {
    for (int s = 0; s < 2; s++) {
      size_t n = s ? 70001 : 1000;
      unsigned char *keys = t_alloc(n * es);
      for (size_t i = 0; i < n; i++)
        t_put_bits(t, keys, i,
                   t_from_order(t, (base & ~patterns[k]) | (t_rng_next(&r) & patterns[k])));
      if (k >= 6 && k <= 8) {
        size_t j = k == 6 ? 0 : k == 7 ? n - 1 : (size_t)t_rng_below(&r, n);
        t_put_bits(t, keys, j, t_from_order(t, t_order_key(t, keys, j) ^ (1ull << 17)));
      }
      for (int desc = 0; desc < 2; desc++) {
        clsort_options o = {CLSORT_RADIX, desc ? CLSORT_DESCENDING : 0u, 0u, 0u};
        t_check_input(t, keys, n, &o, MODES_ALL, names[k]);
      }
      t_release_now(keys);
    }
  }
}

/* Buckets of the top digit larger than the CPU shape's local memory are
 * sorted a level down (on GPU shapes the tile path has no such limit):
 * most keys share their top 12 order-key
 * bits (one bucket of 400000-odd keys, or of a few values), the rest are
 * spread; with 0, 1 and 2 varying digits inside the big bucket (the pass
 * count's parity decides where the last pass lands); on the CPU shape the
 * 64-bit unsigned keys once more with low digits wider than the top one.
 * _i = type. */
T_TEST(sort_large_buckets) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_large_buckets");
  r.s[0] ^= (uint64_t)_i;
  size_t es = clsort_type_size(t), n = 500009;
  uint64_t all = es == 4 ? 0xFFFFFFFFull : UINT64_MAX;
  /* Which low bits vary inside the big bucket. */
  const uint64_t inside[] = {0, 0x3FF, 0xFFFFF, all >> 12};
  static const char *const names[] = {"big bucket of one key", "big bucket, 10 low bits vary",
                                      "big bucket, 20 low bits vary", "big bucket, all low bits vary"};
  unsigned char *keys = t_alloc(n * es);
  for (size_t k = 0; k < sizeof inside / sizeof inside[0]; k++) {
    uint64_t top = (t_rng_next(&r) & ~(all >> 12)) & all, fixed = t_rng_next(&r) & (all >> 12);
    for (size_t i = 0; i < n; i++) {
      uint64_t x = t_rng_below(&r, 5) ? top | (fixed & ~inside[k]) | (t_rng_next(&r) & inside[k])
                                      : t_rng_next(&r) & all;
      t_put_bits(t, keys, i, t_from_order(t, x));
    }
    for (int desc = 0; desc < 2; desc++) {
      clsort_options o = {CLSORT_RADIX, desc ? CLSORT_DESCENDING : 0u, 0u, 0u};
      t_check_input(t, keys, n, &o, MODES_ALL, names[k]);
    }
  }
  /* Low digits wider than the top one (CLSORT_RADIX_CPU, read when a
   * context is created): the big bucket's chunked passes count and
   * scatter 12-bit digits, past the 8-bit top digit's tables, which once
   * overflowed them. The keys of the last case above. */
  if (clsort__cpu_shape(T_CTX) && t == CLSORT_U64) {
    clsort_context *shared = T_CTX;
    t_setenv("CLSORT_RADIX_CPU", "8:12:1:14");
    clsort_status st = t_context_create(&T_CTX);
    t_unsetenv("CLSORT_RADIX_CPU");
    ASSERT_OK(st);
    clsort_options o = {CLSORT_RADIX, 0u, 0u, 0u};
    t_check_input(t, keys, n, &o, (1u << M_KEYS) | (1u << M_PAIRS8),
                  "big bucket, all low bits vary, CLSORT_RADIX_CPU=8:12:1:14");
    clsort_context_release(T_CTX);
    T_CTX = shared;
  }
}

/* ---------------------------------------------------------- buffer form */
static const clsort_options option_sets[4] = {
    {CLSORT_AUTO, 0u, 0u, 0u},
    {CLSORT_RADIX, CLSORT_DESCENDING, 0u, 0u},
    {CLSORT_AUTO, CLSORT_STABLE, 0u, 0u},
    {CLSORT_RADIX, CLSORT_STABLE | CLSORT_DESCENDING, 0u, 0u},
};

/* The buffer form sorts the caller's buffers in place, keys only and with
 * 4- or 8-byte values, after a wait list, and returns an event that
 * completes; bytes past n stay. _i = type. */
T_TEST(sort_buffer_form) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_buffer_form");
  r.s[0] ^= (uint64_t)_i;
  static const size_t sizes[] = {1, 2, 33, 257, 4097, 100003};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int k = 0; k < 4; k++) {
      size_t n = sizes[s], vs = k % 2 ? 4 : 8;
      const clsort_options *o = &option_sets[k];
      bool with_values = (s + (size_t)k) % 2 == 1;
      t_check_buffer_case(&r, t, n, k == 2 ? D_FEW : D_UNIFORM, o, vs, with_values, t_is_stable(o));
    }
}

/* A sort whose input arrives through its wait list: the keys are written
 * on a second queue, gated on a user event that a watchdog thread opens
 * after 20 s, and the sort waits on that write's event. The header
 * lets the call block until its first kernel has run (the digit histogram
 * read); whether it returns before the gate opens or after, the sort must
 * see the written keys, not the buffer's old ones, and its event must
 * complete. */
static void release_queue(void *q) { clReleaseCommandQueue(q); }
T_TEST(sort_buffer_gated) {
  clsort_type t = CLSORT_U32;
  t_rng r;
  t_rng_init(&r, "sort_buffer_gated");
  size_t n = 20011, es = clsort_type_size(t), vs = 8;
  unsigned char *keys = t_alloc(n * es), *old = t_alloc(n * es), *vals = t_alloc(n * vs);
  t_gen_keys(&r, t, D_UNIFORM, keys, n);
  t_gen_keys(&r, t, D_NARROW, old, n);
  t_fill_pair_values(vals, vs, n);
  cl_mem bk = t_buffer(n * es, old), bv = t_buffer(n * vs, vals);
  const clsort_options o = {CLSORT_RADIX, CLSORT_DESCENDING, 0u, 0u};

  /* The same sort once ungated first, so that its programs are built
   * before the gated call: a cold build inside it once took longer than
   * the watchdog's wait on a busy 2-core machine (CI), which read as a
   * call that waited for the gate. */
  ASSERT_OK(clsort_sort_buffer(T_CTX, t, t_buffer(n * es, old), t_buffer(n * vs, vals), vs, n, &o,
                               0, NULL, NULL));

  cl_int err;
  cl_context c = clsort_context_cl_context(T_CTX);
  cl_command_queue q2 = clCreateCommandQueue(c, clsort_context_device(T_CTX), 0, &err);
  ASSERT_CL(err);
  t_defer(release_queue, q2);
  cl_event gate = clCreateUserEvent(c, &err);
  ASSERT_CL(err);
  t_defer_event(gate);
  cl_event written = NULL, done = NULL;
  ASSERT_CL(clEnqueueWriteBuffer(q2, bk, CL_FALSE, 0, n * es, keys, 1, &gate, &written));
  t_defer_event(written);
  ASSERT_CL(clFlush(q2));
  t_label("sort_buffer %s n=%zu %s after a write on another queue, gated on a user event",
          clsort_type_name(t), n, t_opt_name(&o));
  t_watchdog *w = t_watchdog_start(gate, 20.0);
  clsort_status st = clsort_sort_buffer(T_CTX, t, bk, bv, vs, n, &o, 1, &written, &done);
  bool opened = t_watchdog_stop(w);
  if (done) t_defer_event(done);
  ASSERT_OK(st);
  ASSERT_NOT_NULL(done);
  /* The device-planned radix sort (the NVIDIA path, run here emulated)
   * reads nothing back: it must return with the gate still shut. */
  if (getenv("CLSORT_RADIX_EMULATE") && opened)
    ck_abort_msg("%s: returned only after the watchdog opened the gate", t_where());
  /* Returned with the gate shut: check the sort waits, then open it. */
  if (!opened) t_open_gate_checked(gate, done);
  ASSERT_CL(clWaitForEvents(1, &done));
  cl_int exec = -1;
  ASSERT_CL(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL));
  ASSERT_EQ_I64(exec, CL_COMPLETE);

  size_t *perm = t_ref_permutation(t, keys, n, &o);
  unsigned char *want = t_alloc(n * es);
  t_gather(keys, perm, n, es, want);
  unsigned char *got = t_read_buffer(bk, n * es), *gv = t_read_buffer(bv, n * vs);
  ASSERT_EQ_ELEMS(got, want, n, es);
  t_check_payload_exact(gv, vs, perm, n, false);
}

/* Sorts chained through events with no host wait between them: the keys
 * are written, sorted ascending after the write's event, re-sorted
 * descending (over a bit range) after the first sort's event, in the same
 * buffers. Both events complete. _i = type. */
T_TEST(sort_buffer_chained) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_buffer_chained");
  r.s[0] ^= (uint64_t)_i;
  size_t n = 20011, es = clsort_type_size(t), vs = 4;
  unsigned bits = (unsigned)es * 8;
  unsigned char *keys = t_alloc(n * es), *vals = t_alloc(n * vs);
  t_gen_keys(&r, t, D_GAUSSIAN, keys, n);
  t_fill_pair_values(vals, vs, n);
  cl_mem bk = t_buffer(n * es, NULL), bv = t_buffer(n * vs, vals);
  const clsort_options up = {CLSORT_RADIX, 0u, 0u, 0u},
                       down = {CLSORT_AUTO, CLSORT_DESCENDING | CLSORT_STABLE, bits / 2, bits};
  cl_command_queue q = clsort_context_queue(T_CTX);
  cl_event written = NULL, first = NULL, second = NULL;
  t_label("sort_buffer %s n=%zu: write, sort, sort again, chained by events",
          clsort_type_name(t), n);
  ASSERT_CL(clEnqueueWriteBuffer(q, bk, CL_FALSE, 0, n * es, keys, 0, NULL, &written));
  t_defer_event(written);
  ASSERT_OK(clsort_sort_buffer(T_CTX, t, bk, bv, vs, n, &up, 1, &written, &first));
  ASSERT_NOT_NULL(first);
  t_defer_event(first);
  ASSERT_OK(clsort_sort_buffer(T_CTX, t, bk, bv, vs, n, &down, 1, &first, &second));
  ASSERT_NOT_NULL(second);
  t_defer_event(second);
  ASSERT_CL(clWaitForEvents(1, &second));
  cl_int exec = -1;
  ASSERT_CL(clGetEventInfo(first, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL));
  ASSERT_EQ_I64(exec, CL_COMPLETE);

  /* The reference: sort stably ascending, then the sorted keys stably by
   * the range, descending; compose the permutations. */
  size_t *perm = t_ref_permutation(t, keys, n, &up);
  unsigned char *want = t_alloc(n * es);
  t_gather(keys, perm, n, es, want);
  size_t *perm2 = t_ref_permutation(t, want, n, &down);
  for (size_t i = 0; i < n; i++) perm2[i] = perm[perm2[i]];
  t_gather(keys, perm2, n, es, want);
  unsigned char *got = t_read_buffer(bk, n * es), *gv = t_read_buffer(bv, n * vs);
  t_check_sorted(t, got, n, &down);
  ASSERT_EQ_ELEMS(got, want, n, es);
  t_check_payload_exact(gv, vs, perm2, n, false);
}

/* The scratch memory the header promises for the radix sort, each form on
 * a fresh context (scratch only grows): keys only n keys, pairs n keys + n
 * values, argsort 2n keys + n indices, plus digit tables of a few MB. The
 * host forms also stage the caller's arrays (docs/ARCHITECTURE.md), and
 * each scratch buffer is rounded up by an eighth so that later calls a
 * little larger reuse it. */
T_TEST(sort_scratch_memory) {
  clsort_type t = _i ? CLSORT_U64 : CLSORT_U32;
  size_t n = ((size_t)1 << 20) + 3, es = clsort_type_size(t), vs = 8 - 4 * (size_t)_i;
  const size_t tables = (size_t)4 << 20;
  t_rng r;
  t_rng_init(&r, "sort_scratch_memory");
  unsigned char *keys = t_alloc(n * es), *vals = t_alloc(n * 8);
  t_gen_keys(&r, t, D_UNIFORM, keys, n);
  for (int form = 0; form < 3; form++) {
    clsort_context *c = NULL;
    ASSERT_OK(t_context_create(&c));
    t_own_context(c);
    size_t bound;
    if (form < 2) {
      t_label("scratch of sort_buffer %s n=%zu%s", clsort_type_name(t), n,
              form ? " with values" : "");
      cl_mem bk = t_buffer_on(clsort_context_cl_context(c), n * es, keys);
      cl_mem bv = form ? t_buffer_on(clsort_context_cl_context(c), n * vs, NULL) : NULL;
      ASSERT_OK(clsort_sort_buffer(c, t, bk, bv, form ? vs : 0, n, NULL, 0, NULL, NULL));
      ASSERT_CL(clFinish(clsort_context_queue(c)));
      if (bv) t_release_now(bv);
      t_release_now(bk);
      bound = n * es + (form ? n * vs : 0);
    } else {
      t_label("scratch of argsort %s n=%zu, %zu-byte indices", clsort_type_name(t), n, vs);
      ASSERT_OK(clsort_argsort(c, t, keys, vals, vs, n, NULL));
      bound = 2 * n * es + n * vs + (n * es + n * vs);
    }
    ASSERT_LE_U64(clsort__scratch_bytes(c), bound + bound / 8 + tables);
    t_release_now(c);
  }
}

/* Host arrays at every alignment. On a CPU device the radix, merge, quick
 * and bitonic sorts use them in place from the aligned address before
 * them (their kernels add the origin), the sample sort stages them; an
 * array not aligned to its own elements is always staged. Keys and values at different offsets from a
 * page, each with poison before and after it that no form may touch.
 * _i: the type (the six wide types, then u8 and f16, which the radix sort
 * widens). */
static const clsort_type origin_types[] = {CLSORT_U32, CLSORT_I32, CLSORT_F32, CLSORT_U64,
                                           CLSORT_I64, CLSORT_F64, CLSORT_U8,  CLSORT_F16};
#define NORIGIN_TYPES (sizeof origin_types / sizeof origin_types[0])

/* A page-aligned block of `bytes` + 8 KB, all poison; returns the place
 * `offset` bytes past its first page boundary. */
static unsigned char *poisoned_at(size_t bytes, size_t offset, unsigned char **block,
                                  size_t *block_bytes) {
  *block_bytes = bytes + 8192;
  *block = t_alloc(*block_bytes);
  t_poison(*block, *block_bytes);
  uintptr_t page = ((uintptr_t)*block + 4095) & ~(uintptr_t)4095;
  return (unsigned char *)page + offset;
}

/* The outputs k (and v, vs bytes each; NULL for keys alone) of a sort of
 * `keys` under o, each placed in its poisoned block (kb/kbb, vb/vbb, from
 * poisoned_at): checked against the stable reference (t_check_outputs),
 * the bytes around them untouched; the blocks released. */
static void check_placed(clsort_type t, const unsigned char *keys, size_t n,
                         const clsort_options *o, bool indices, unsigned char *k,
                         unsigned char *kb, size_t kbb, unsigned char *v, size_t vs,
                         unsigned char *vb, size_t vbb) {
  size_t es = clsort_type_size(t);
  size_t *perm = t_ref_permutation(t, keys, n, o);
  unsigned char *want = t_alloc(n * es);
  t_gather(keys, perm, n, es, want);
  ASSERT_POISON(kb, 0, (size_t)(k - kb));
  ASSERT_POISON(kb, (size_t)(k - kb) + n * es, kbb);
  t_check_outputs(t, keys, want, perm, k, v, vs, n, o, indices);
  if (v) {
    ASSERT_POISON(vb, 0, (size_t)(v - vb));
    ASSERT_POISON(vb, (size_t)(v - vb) + n * vs, vbb);
    t_release_now(vb);
  }
  t_release_now(want);
  t_release_now(perm);
  t_release_now(kb);
}

T_TEST(sort_host_origins) {
  clsort_type t = origin_types[_i];
  if (t_skip_type(t)) return;
  size_t es = clsort_type_size(t);
  t_rng r;
  t_rng_init(&r, "sort_host_origins");
  r.s[0] ^= (uint64_t)_i;
  /* One bucket (a single work-item), and the top scatter with its buckets. */
  static const size_t sizes[] = {1000, 100003};
  /* Byte offsets from a page: aligned, one element in, 16 (malloc's), odd
   * lines, one element short of 128, and one not a multiple of the key. */
  static const size_t key_offsets[] = {0, 8, 16, 72, 120, 3};
  static const clsort_algorithm algorithms[] = {CLSORT_RADIX, CLSORT_AUTO,    CLSORT_MERGE,
                                                CLSORT_QUICK, CLSORT_BITONIC, CLSORT_SAMPLE};
  const size_t nalg = sizeof algorithms / sizeof algorithms[0];
  for (size_t si = 0; si < 2; si++) {
    size_t n = sizes[si];
    unsigned char *keys = t_alloc(n * es);
    t_gen_keys(&r, t, D_UNIFORM, keys, n);
    for (size_t ko = 0; ko < sizeof key_offsets / sizeof key_offsets[0]; ko++)
      for (int m = 0; m < M_COUNT; m++) {
        size_t koff = key_offsets[ko];
        size_t vs = t_mode_payload[m], voff = (koff + 40 + 8 * (size_t)m) % 128;
        bool indices = t_mode_is_argsort(m);
        clsort_algorithm a = algorithms[(ko * M_COUNT + (size_t)m + si) % nalg];
        /* The stable sorts stable, so that every payload has one answer
         * (and AUTO picks the radix sort at every size). */
        bool stable = a == CLSORT_RADIX || a == CLSORT_AUTO || a == CLSORT_MERGE;
        clsort_options o = {a, ((ko + si) % 2 ? CLSORT_DESCENDING : 0u), 0u, 0u};
        if (stable) o.flags |= CLSORT_STABLE;
        t_label("%s %s n=%zu %s, keys %zu and %s %zu bytes past a page", t_mode_names[m],
                clsort_type_name(t), n, t_opt_name(&o), koff, vs ? "payload" : "(none)", voff);
        unsigned char *kb, *vb = NULL;
        size_t kbb, vbb = 0;
        unsigned char *k = poisoned_at(n * es, koff, &kb, &kbb), *v = NULL;
        memcpy(k, keys, n * es);
        if (vs) {
          v = poisoned_at(n * vs, voff, &vb, &vbb);
          if (!indices) t_fill_pair_values(v, vs, n);
        }
        if (m == M_KEYS)
          ASSERT_OK(clsort_sort(T_CTX, t, k, n, &o));
        else if (!indices)
          ASSERT_OK(clsort_sort_pairs(T_CTX, t, k, v, vs, n, &o));
        else
          ASSERT_OK(clsort_argsort(T_CTX, t, k, v, vs, n, &o));
        check_placed(t, keys, n, &o, indices, k, kb, kbb, v, vs, vb, vbb);
      }
    t_release_now(keys);
  }
  /* Keys and values side by side in one aligned block (small arrays from
   * malloc): the regions wrapped from the aligned addresses before them
   * overlap, so the library wraps both as one buffer (sort_host_groups). */
  size_t n = 10, vs = 8;
  unsigned char *block, *keys = t_alloc(n * es), *vals;
  size_t bytes;
  unsigned char *k = poisoned_at(n * (es + vs) + 64, 8, &block, &bytes);
  vals = k + (n * es + 7) / 8 * 8;
  t_gen_keys(&r, t, D_FEW, keys, n);
  memcpy(k, keys, n * es);
  t_fill_pair_values(vals, vs, n);
  clsort_options o = {CLSORT_RADIX, 0u, 0u, 0u};
  t_label("sort_pairs %s n=%zu, keys and values in one 128-byte block", clsort_type_name(t), n);
  ASSERT_OK(clsort_sort_pairs(T_CTX, t, k, vals, vs, n, &o));
  size_t *perm = t_ref_permutation(t, keys, n, &o);
  unsigned char *want = t_alloc(n * es);
  t_gather(keys, perm, n, es, want);
  ASSERT_EQ_ELEMS(k, want, n, es);
  t_check_payload_exact(vals, vs, perm, n, false);
  ASSERT_POISON(block, 0, (size_t)(k - block));
  ASSERT_POISON(block, (size_t)(k - block) + n * es, (size_t)(vals - block));
  ASSERT_POISON(block, (size_t)(vals - block) + n * vs, bytes);
}

/* Keys and values of one size at the same place of their pages (and, as
 * a control, half a page apart): the quicksort's and the sample sort's
 * CPU leaves then sort the values in spare memory half a page from their
 * keys (quick_cpu.cl's qc_sort_pairs) and copy them back. Outputs checked
 * (unstable: each payload with its key), the bytes around untouched.
 * _i: type, then its size's pairs or argsort. */
static const clsort_type page_types[] = {CLSORT_U32, CLSORT_F32, CLSORT_U64, CLSORT_I64};
#define NPAGE_CASES (2 * sizeof page_types / sizeof page_types[0])

T_TEST(sort_pairs_page_offsets) {
  clsort_type t = page_types[_i / 2];
  if (t_skip_type(t)) return;
  size_t es = clsort_type_size(t);
  int m = es == 4 ? (_i % 2 ? M_ARG4 : M_PAIRS4) : (_i % 2 ? M_ARG8 : M_PAIRS8);
  bool indices = t_mode_is_argsort(m);
  t_rng r;
  t_rng_init(&r, "sort_pairs_page_offsets");
  r.s[0] ^= (uint64_t)_i;
  static const size_t sizes[] = {70001, 300007};
  static const size_t offsets[][2] = {{0, 0}, {16, 16}, {200, 72}, {0, 2048}};
  static const clsort_algorithm algorithms[] = {CLSORT_QUICK, CLSORT_SAMPLE};
  for (size_t si = 0; si < 2; si++) {
    size_t n = sizes[si];
    unsigned char *keys = t_alloc(n * es);
    t_gen_keys(&r, t, si ? D_FEW : D_UNIFORM, keys, n);
    for (size_t oi = 0; oi < sizeof offsets / sizeof offsets[0]; oi++)
      for (size_t ai = 0; ai < 2; ai++) {
        clsort_options o = {algorithms[ai], (oi + ai) % 2 ? CLSORT_DESCENDING : 0u, 0u, 0u};
        t_label("%s %s n=%zu %s, keys %zu and payload %zu bytes past a page", t_mode_names[m],
                clsort_type_name(t), n, t_opt_name(&o), offsets[oi][0], offsets[oi][1]);
        unsigned char *kb, *vb;
        size_t kbb, vbb;
        unsigned char *k = poisoned_at(n * es, offsets[oi][0], &kb, &kbb);
        unsigned char *v = poisoned_at(n * es, offsets[oi][1], &vb, &vbb);
        memcpy(k, keys, n * es);
        if (indices) {
          ASSERT_OK(clsort_argsort(T_CTX, t, k, v, es, n, &o));
        } else {
          t_fill_pair_values(v, es, n);
          ASSERT_OK(clsort_sort_pairs(T_CTX, t, k, v, es, n, &o));
        }
        check_placed(t, keys, n, &o, indices, k, kb, kbb, v, es, vb, vbb);
      }
    t_release_now(keys);
  }
}

/* One pairs sort or argsort (mode) of `keys` in the layout l (keys p[0],
 * payload p[1]), checked: the outputs against the stable reference, the
 * rest of the block as it was (an argsort's keys too). Returns whether
 * the call staged an array. */
static bool sort_in_layout(clsort_type t, int mode, const unsigned char *keys, size_t n,
                           t_layout *l, const clsort_options *o) {
  size_t es = clsort_type_size(t), vs = t_mode_payload[mode];
  bool indices = t_mode_is_argsort(mode);
  memcpy(l->p[0], keys, n * es);
  if (!indices) t_fill_pair_values(l->p[1], vs, n);
  t_layout_snapshot(l);
  clsort__test_take_staging(T_CTX);
  if (indices)
    ASSERT_OK(clsort_argsort(T_CTX, t, l->p[0], l->p[1], vs, n, o));
  else
    ASSERT_OK(clsort_sort_pairs(T_CTX, t, l->p[0], l->p[1], vs, n, o));
  bool staged = clsort__test_take_staging(T_CTX) > 0;
  size_t *perm = t_ref_permutation(t, keys, n, o);
  unsigned char *want = t_alloc(n * es);
  t_gather(keys, perm, n, es, want);
  t_check_outputs(t, keys, want, perm, l->p[0], l->p[1], vs, n, o, indices);
  t_layout_check(l, indices ? 1u << 1 : 3u);
  t_release_now(want);
  t_release_now(perm);
  return staged;
}

/* Keys and values (or indices) back to back in one allocation, as small
 * arrays from malloc lie (t_layout): on a CPU device the regions from the
 * aligned addresses before them overlap, and the algorithms that take
 * origins use both in place, in one buffer (keys and values of one job
 * in one cl_mem), just as they use arrays apart (each first sorted in
 * arrays of their own, as a control: the layout must stage exactly when
 * they do). From 16 bytes past a page and one element (of the array that
 * comes first) past one, each in both orders; then keys a byte off their
 * alignment (staged). _i: the type (u16 through the widening kernels). */
static const clsort_type group_types[] = {CLSORT_U32, CLSORT_F64, CLSORT_U16};

T_TEST(sort_host_groups) {
  clsort_type t = group_types[_i];
  if (t_skip_type(t)) return;
  size_t es = clsort_type_size(t);
  t_rng r;
  t_rng_init(&r, "sort_host_groups");
  r.s[0] ^= (uint64_t)_i;
  static const size_t sizes[] = {1000, 100003};
  static const clsort_algorithm algorithms[] = {CLSORT_RADIX,   CLSORT_MERGE, CLSORT_QUICK,
                                                CLSORT_BITONIC, CLSORT_AUTO,  CLSORT_SAMPLE};
  size_t step = 0;
  for (size_t si = 0; si < 2; si++) {
    size_t n = sizes[si];
    unsigned char *keys = t_alloc(n * es);
    t_gen_keys(&r, t, D_UNIFORM, keys, n);
    for (int m = M_PAIRS4; m < M_COUNT; m++)
      for (int layout = 4; layout >= 0; layout--, step++) {
        size_t vs = t_mode_payload[m];
        bool reversed = layout % 2 == 1;
        size_t lead = layout == 4 ? 1 : layout < 2 ? 16 : reversed ? vs : es;
        clsort_algorithm a = algorithms[step % 6];
        clsort_options o = {a, step % 3 == 0 ? CLSORT_DESCENDING : 0u, 0u, 0u};
        if (a == CLSORT_RADIX || a == CLSORT_MERGE || a == CLSORT_AUTO) o.flags |= CLSORT_STABLE;
        const size_t bytes[2] = {n * es, n * vs}, elems[2] = {es, vs};
        t_layout apart[2], l;
        t_layout_make(&apart[0], 1, bytes, elems, 16, false);
        t_layout_make(&apart[1], 1, bytes + 1, elems + 1, 16, false);
        apart[0].p[1] = apart[1].p[0];
        apart[0].size[1] = apart[1].size[0];
        apart[0].count = 2;
        t_label("%s %s n=%zu %s, apart", t_mode_names[m], clsort_type_name(t), n,
                t_opt_name(&o));
        bool control = sort_in_layout(t, m, keys, n, &apart[0], &o);
        if (clsort__cpu_shape(T_CTX) &&
            (a == CLSORT_MERGE || a == CLSORT_QUICK || a == CLSORT_SAMPLE))
          ASSERT_FALSE(control);
        t_layout_make(&l, 2, bytes, elems, lead, reversed);
        t_label("%s %s n=%zu %s, keys and payload back to back %zu bytes past a page%s",
                t_mode_names[m], clsort_type_name(t), n, t_opt_name(&o), lead,
                reversed ? ", payload first" : "");
        ASSERT_EQ_U64(sort_in_layout(t, m, keys, n, &l, &o), control || layout == 4);
        t_release_now(l.block);
        t_release_now(l.copy);
        for (int k = 0; k < 2; k++) {
          t_release_now(apart[k].block);
          t_release_now(apart[k].copy);
        }
      }
    t_release_now(keys);
  }
}

/* n == 0 and NULL arrays: success, nothing touched; the buffer form still
 * gives an event, after its wait list. */
T_TEST(sort_zero_length) {
  for (int ti = 0; ti < 6; ti++) {
    clsort_type t = t_all_types[ti];
    if (t_skip_type(t)) continue;
    t_label("%s n=0", clsort_type_name(t));
    ASSERT_OK(clsort_sort(T_CTX, t, NULL, 0, NULL));
    ASSERT_OK(clsort_sort_pairs(T_CTX, t, NULL, NULL, 4, 0, NULL));
    ASSERT_OK(clsort_sort_pairs(T_CTX, t, NULL, NULL, 8, 0, &option_sets[1]));
    ASSERT_OK(clsort_argsort(T_CTX, t, NULL, NULL, 4, 0, &option_sets[3]));
    ASSERT_OK(clsort_argsort(T_CTX, t, NULL, NULL, 8, 0, NULL));
    cl_event ev = NULL, ev2 = NULL;
    ASSERT_OK(clsort_sort_buffer(T_CTX, t, NULL, NULL, 0, 0, NULL, 0, NULL, &ev));
    ASSERT_NOT_NULL(ev);
    t_defer_event(ev);
    ASSERT_OK(clsort_sort_buffer(T_CTX, t, NULL, NULL, 0, 0, &option_sets[1], 1, &ev, &ev2));
    ASSERT_NOT_NULL(ev2);
    t_defer_event(ev2);
    ASSERT_CL(clWaitForEvents(1, &ev2));
  }
}

/* ------------------------------------------------------------ tile path */
/* The fixtures of the tiled tests: a context made with CLSORT_TUNING set
 * (it is read at creation), restored at teardown. */
static void tiled_setup(void) { t_shape_setup(TILED_TUNING); }
/* The CPU shape (one work-item a group) with 16 chunks per compute unit, as
 * many as the H100 host's 16 cores make at 2 per unit. */
static void chunks_setup(void) { t_shape_setup("1:256:16"); }
static void wide_setup(void) { t_shape_setup(WIDE_TUNING); }

/* The override took: the shape's work-group size and items. */
T_TEST(sort_tiled_shape) {
  unsigned wg = 0, items = 0;
  sscanf(t_shape, "%u:%u", &wg, &items);
  char want_wg[32], want_items[32];
  snprintf(want_wg, sizeof want_wg, "-DWG_SIZE=%u ", wg);
  snprintf(want_items, sizeof want_items, "-DITEMS=%u ", items);
  const char *opts = clsort__common_options(T_CTX);
  t_label("CLSORT_TUNING=%s gives \"%s\"", t_shape, opts);
  ASSERT_TRUE(strstr(opts, want_wg) != NULL);
  ASSERT_TRUE(strstr(opts, want_items) != NULL);
}

/* _i = type: uniform data around the tiles (128 and 4096 keys) and their
 * multiples, and every distribution at 1000 and 100003; both directions,
 * all modes (three at 100003). */
T_TEST(sort_tiled) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_tiled");
  r.s[0] ^= (uint64_t)_i;
  static const size_t sizes[] = {1,    2,    3,    17,   127,  128,   129,  255,
                                 256,  257,  4095, 4096, 4097, 12289, 65537};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int desc = 0; desc < 2; desc++) {
      clsort_options o = {(s + (size_t)desc) % 2 ? CLSORT_RADIX : CLSORT_AUTO,
                          (desc ? CLSORT_DESCENDING : 0u) | CLSORT_STABLE, 0u, 0u};
      t_check_dist(&r, t, D_UNIFORM, sizes[s], &o, MODES_ALL);
    }
  for (int dist = 0; dist < D_COUNT; dist++)
    for (int big = 0; big < 2; big++) {
      clsort_options o = {CLSORT_RADIX, (dist + big) % 2 ? CLSORT_DESCENDING : 0u, 0u, 0u};
      unsigned modes = big ? (1u << M_KEYS) | (1u << M_PAIRS8) | (1u << M_ARG4) : MODES_ALL;
      t_check_dist(&r, t, dist, big ? 100003 : 1000, &o, modes);
    }
}

/* ------------------------------------------------------------ slow tier */
/* Sizes from 2^22: u32 in every mode, u64 keys and pairs, the other types
 * in a mode or two, other distributions. _i = case. */
static const struct {
  clsort_type t;
  int dist;
  size_t n;
  unsigned flags, modes;
} large_cases[] = {
    {CLSORT_U32, D_UNIFORM, (1u << 22) + 1, 0u, MODES_ALL},
    {CLSORT_U32, D_UNIFORM, (1u << 22) + 1, CLSORT_DESCENDING, (1u << M_KEYS) | (1u << M_ARG8)},
    {CLSORT_U64, D_UNIFORM, (1u << 22) + 1, 0u, (1u << M_KEYS) | (1u << M_PAIRS8)},
    {CLSORT_U64, D_GAUSSIAN, 1u << 22, CLSORT_DESCENDING, 1u << M_KEYS},
    {CLSORT_I32, D_FEW, 4194319 /* prime */, CLSORT_DESCENDING, (1u << M_PAIRS4)},
    {CLSORT_F32, D_UNIFORM, 1u << 22, 0u, (1u << M_KEYS) | (1u << M_ARG4)},
    {CLSORT_I64, D_STAGGERED, (1u << 22) - 1, 0u, (1u << M_KEYS)},
    {CLSORT_F64, D_GAUSSIAN, (1u << 22) + 1, CLSORT_DESCENDING, (1u << M_PAIRS8)},
    {CLSORT_U32, D_NARROW, (1u << 23) + 1, 0u, (1u << M_KEYS) | (1u << M_PAIRS4)},
};
#define NLARGE (sizeof large_cases / sizeof large_cases[0])

T_TEST(sort_large) {
  clsort_type t = large_cases[_i].t;
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_large");
  r.s[0] ^= (uint64_t)_i;
  clsort_options o = {CLSORT_RADIX, large_cases[_i].flags, 0u, 0u};
  t_check_dist(&r, t, large_cases[_i].dist, large_cases[_i].n, &o, large_cases[_i].modes);
}

/* The tile path at 2^22 + 1: u32 in every mode with one context. */
T_TEST(sort_tiled_large) {
  t_rng r;
  t_rng_init(&r, "sort_tiled_large");
  clsort_options o = {CLSORT_RADIX, _i ? CLSORT_DESCENDING : 0u, 0u, 0u};
  t_check_dist(&r, _i ? CLSORT_U64 : CLSORT_U32, D_UNIFORM, (1u << 22) + 1, &o,
               _i ? (1u << M_KEYS) : MODES_ALL);
}

/* A bucket of the top digit past local memory, sorted a level down, whose
 * range splits into more chunks than the whole input: 65537 keys make 29
 * chunks of 2304 at 32 groups, the bucket's 65415 keys 32 of 2048. The
 * tables of chunk masks were once sized for the input's 29 (on PoCL 5.0 with
 * 16 cores: heap corruption, an abort). Run under chunks_setup, where every
 * key type's bucket exceeds local memory of up to 1 MiB in every mode.
 * _i = type. */
T_TEST(sort_level_chunks) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_level_chunks");
  r.s[0] ^= (uint64_t)_i;
  size_t es = clsort_type_size(t), n = 65537, spread = 122;
  uint64_t all = es == 4 ? 0xFFFFFFFFull : UINT64_MAX, low = all >> 12;
  uint64_t top = t_rng_next(&r) & all & ~low;
  unsigned char *keys = t_alloc(n * es);
  for (size_t i = 0; i < n; i++) {
    uint64_t x = i % (n / spread) == 0 ? t_rng_next(&r) & all : top | (t_rng_next(&r) & low);
    t_put_bits(t, keys, i, t_from_order(t, x));
  }
  for (int desc = 0; desc < 2; desc++) {
    clsort_options o = {CLSORT_RADIX, desc ? CLSORT_DESCENDING : 0u, 0u, 0u};
    t_check_input(t, keys, n, &o, MODES_ALL, "one bucket a level down, 16 chunks a unit");
  }
  t_release_now(keys);
}

/* The split sort of staged host arrays (api/staging.c), as GPUs run it:
 * staging forced on the CPU device with small slots, the NVIDIA radix
 * path emulated, and splits from 4096 keys with a first group of an
 * eighth and groups up to a half, so that small inputs make several
 * groups. Every output against the stable reference, and the split's
 * groups as planned: several for spread keys, one where every key has the
 * same top digit, none below the size, for ranges of 8 bits or less, or
 * for narrow keys. _i = type. */
static void split_setup(void) {
  t_setup_no_ctx();
  t_setenv("CLSORT_STAGING", "256:3:1");
  t_setenv("CLSORT_RADIX_EMULATE", "1");
  t_setenv("CLSORT_ONESWEEP", "256:4:0");
  t_setenv("CLSORT_STAGED_SPLIT", "4096:3:1");
  clsort_status st = t_context_create(&T_CTX);
  if (st != CLSORT_SUCCESS)
    ck_abort_msg("%s: clsort_context_create with staging forced returned %s: %s", t_where(),
                 t_status_name(st), t_last_error());
}

/* Keys whose top order byte is one value but for every 97th key: one group
 * holds nearly all, the rest are small. */
static void gen_top_heavy(t_rng *r, clsort_type t, void *p, size_t n) {
  size_t bits = clsort_type_size(t) * 8;
  uint64_t all = bits == 32 ? 0xFFFFFFFFull : UINT64_MAX, low = all >> 8;
  uint64_t top = (uint64_t)0x5A << (bits - 8);
  for (size_t i = 0; i < n; i++) {
    uint64_t x = t_rng_next(r) & all;
    t_put_bits(t, p, i, t_from_order(t, i % 97 == 0 ? x : top | (x & low)));
  }
}

/* Sorts keys (n of type t) in `modes` under o, checked, and returns the
 * groups of the last call's split. */
static size_t split_case(clsort_type t, const void *keys, size_t n, const clsort_options *o,
                         unsigned modes, const char *what) {
  t_check_input(t, keys, n, o, modes, what);
  return clsort__test_split_groups();
}

T_TEST(sort_staged_split) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_staged_split");
  r.s[0] ^= (uint64_t)_i;
  size_t es = clsort_type_size(t), n = 70001;
  unsigned char *keys = t_alloc(n * es);
  /* Every mode, both directions: spread keys make several groups. */
  t_gen_keys(&r, t, D_UNIFORM, keys, n);
  for (int desc = 0; desc < 2; desc++) {
    clsort_options o = {CLSORT_RADIX, desc ? CLSORT_DESCENDING : 0u, 0u, 0u};
    ASSERT_GT_U64(split_case(t, keys, n, &o, MODES_ALL, "uniform"), 1);
  }
  /* Other inputs, keys and 4-byte argsort. */
  const int dists[] = {D_ZERO, D_FEW, D_SORTED, D_REVERSE, D_POISSON};
  for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++) {
    t_gen_keys(&r, t, dists[d], keys, n);
    clsort_options o = {CLSORT_RADIX, d % 2 ? CLSORT_DESCENDING : 0u, 0u, 0u};
    size_t groups = split_case(t, keys, n, &o, (1u << M_KEYS) | (1u << M_ARG4),
                               t_dist_names[dists[d]]);
    ASSERT_GT_U64(groups, 0);
    if (dists[d] == D_ZERO) ASSERT_EQ_U64(groups, 1);
  }
  gen_top_heavy(&r, t, keys, n);
  clsort_options o = {CLSORT_RADIX, 0u, 0u, 0u};
  ASSERT_GT_U64(split_case(t, keys, n, &o, (1u << M_KEYS) | (1u << M_PAIRS8), "top-heavy"), 1);
  /* Bit ranges: the split takes the range's top 8 bits; 8 bits or fewer
   * do not split. */
  unsigned bits = (unsigned)es * 8;
  t_gen_keys(&r, t, D_UNIFORM, keys, n);
  clsort_options range = {CLSORT_RADIX, CLSORT_DESCENDING, 4u, bits - 5};
  ASSERT_GT_U64(split_case(t, keys, n, &range, (1u << M_KEYS) | (1u << M_ARG8), "bits"), 1);
  clsort_options narrow_range = {CLSORT_RADIX, 0u, bits - 12, bits - 4};
  ASSERT_EQ_U64(split_case(t, keys, n, &narrow_range, 1u << M_KEYS, "8 bits"), 0);
  /* Below the size the split starts from: the plain staged sort. */
  ASSERT_EQ_U64(split_case(t, keys, 4095, &o, 1u << M_PAIRS4, "4095 keys"), 0);
  ASSERT_GT_U64(split_case(t, keys, 4096, &o, 1u << M_PAIRS4, "4096 keys"), 0);
  t_release_now(keys);
}

/* 16-bit keys widen to 32 bits before the radix sort: no split, sorted. */
T_TEST(sort_staged_split_narrow) {
  t_rng r;
  t_rng_init(&r, "sort_staged_split_narrow");
  size_t n = 70001;
  unsigned char *keys = t_alloc(n * 2);
  t_gen_keys(&r, CLSORT_U16, D_UNIFORM, keys, n);
  clsort_options o = {CLSORT_RADIX, 0u, 0u, 0u};
  ASSERT_EQ_U64(split_case(CLSORT_U16, keys, n, &o, (1u << M_KEYS) | (1u << M_ARG4), "u16"), 0);
  t_release_now(keys);
}

/* ------------------------------------------------------------------ main */
/* Parts (argv[2], a comma-separated list) pick test cases, so that meson
 * can run them in parallel; no part runs them all. */
static void add(Suite *s, unsigned tiers) {
  if (tiers & T_QUICK) {
    if (t_part_selected("matrix")) {
      TCase *tc = t_tcase(s, "matrix", true);
      tcase_add_loop_test(tc, sort_matrix, 0, 6 * D_COUNT);
    }
    if (t_part_selected("edges")) {
      TCase *tc = t_tcase(s, "edges", true);
      tcase_add_loop_test(tc, sort_edge_sizes, 0, 6);
      tcase_add_loop_test(tc, sort_special_values, 0, 6);
      tcase_add_loop_test(tc, sort_stability, 0, 6);
      tcase_add_loop_test(tc, sort_bit_ranges, 0, (int)NBIT_RANGES);
      tcase_add_loop_test(tc, sort_pass_skipping, 0, 6);
      tcase_add_loop_test(tc, sort_large_buckets, 0, 6);
      tcase_add_loop_test(tc, sort_buffer_form, 0, 6);
      tcase_add_loop_test(tc, sort_buffer_chained, 0, 6);
      tcase_add_test(tc, sort_buffer_gated);
      tcase_add_test(tc, sort_zero_length);
      tcase_add_loop_test(tc, sort_scratch_memory, 0, 2);
      tcase_add_loop_test(tc, sort_host_origins, 0, (int)NORIGIN_TYPES);
      tcase_add_loop_test(tc, sort_pairs_page_offsets, 0, (int)NPAGE_CASES);
      tcase_add_loop_test(tc, sort_host_groups, 0, 3);
    }
    if (t_part_selected("split")) {
      TCase *tc = t_shape_tcase(s, "split", split_setup);
      tcase_add_loop_test(tc, sort_staged_split, 0, 6);
      tcase_add_test(tc, sort_staged_split_narrow);
    }
    if (t_part_selected("levels")) {
      TCase *tc = t_shape_tcase(s, "levels", chunks_setup);
      tcase_add_loop_test(tc, sort_level_chunks, 0, 6);
    }
    if (t_part_selected("tiled")) {
      TCase *tc = t_shape_tcase(s, "tiled", tiled_setup);
      tcase_add_test(tc, sort_tiled_shape);
      tcase_add_loop_test(tc, sort_tiled, 0, 6);
      tcase_add_loop_test(tc, sort_special_values, 0, 6);
      tcase_add_loop_test(tc, sort_stability, 0, 6);
      tcase_add_loop_test(tc, sort_bit_ranges, 0, (int)NBIT_RANGES);
      tcase_add_loop_test(tc, sort_pass_skipping, 0, 6);
      tcase_add_loop_test(tc, sort_buffer_form, 0, 6);
    }
    if (t_part_selected("wide")) {
      TCase *tc = t_shape_tcase(s, "wide", wide_setup);
      tcase_add_test(tc, sort_tiled_shape);
      tcase_add_loop_test(tc, sort_tiled, 0, 6);
      tcase_add_loop_test(tc, sort_special_values, 0, 6);
      tcase_add_loop_test(tc, sort_bit_ranges, 0, (int)NBIT_RANGES);
      tcase_add_loop_test(tc, sort_pass_skipping, 0, 6);
    }
  }
  if (tiers & T_SLOW) {
    if (t_part_selected("matrix") || t_part_selected("edges")) {
      TCase *tc = t_tcase(s, "large", true);
      tcase_add_loop_test(tc, sort_large, 0, (int)NLARGE);
    }
    if (t_part_selected("tiled")) {
      TCase *tc = t_shape_tcase(s, "tiled_large", tiled_setup);
      tcase_add_loop_test(tc, sort_tiled_large, 0, 2);
    }
  }
}

int main(int argc, char **argv) { return t_main(argc, argv, "sort", add); }
