/* test_sort.c: clsort_sort, clsort_sort_pairs, clsort_argsort and
 * clsort_sort_buffer with the implemented algorithms (AUTO, RADIX), every
 * key type, both directions, stability, bit ranges and the float total
 * order, against a stable C reference. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <math.h>
#include <stdlib.h>

#define GUARD 16

/* The order-preserving unsigned form of a key: the documented total order
 * (floats by bits: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN). */
static uint64_t order_key(clsort_type t, const void *p, size_t i) {
  uint64_t b = t_get_bits(t, p, i);
  switch (t) {
  case CLSORT_I32: return b ^ 0x80000000u;
  case CLSORT_I64: return b ^ 0x8000000000000000ull;
  case CLSORT_F32: return (b & 0x80000000u) ? (~b & 0xFFFFFFFFu) : (b | 0x80000000u);
  case CLSORT_F64:
    return (b & 0x8000000000000000ull) ? ~b : (b | 0x8000000000000000ull);
  default: return b;
  }
}

/* The stable reference: the permutation that sorts `keys` by bits
 * [begin, end) of their order keys, ascending or descending, ties in input
 * order. */
typedef struct ref_item {
  uint64_t key;
  size_t index;
} ref_item;
static bool ref_descending_;
static int cmp_item(const void *a, const void *b) {
  const ref_item *x = a, *y = b;
  if (x->key != y->key) return (x->key < y->key) != ref_descending_ ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

static size_t *ref_permutation(clsort_type t, const void *keys, size_t n,
                               const clsort_options *o) {
  unsigned bits = (unsigned)clsort_type_size(t) * 8;
  unsigned begin = o->begin_bit, end = o->end_bit ? o->end_bit : bits;
  uint64_t mask = end - begin >= 64 ? UINT64_MAX : ((uint64_t)1 << (end - begin)) - 1;
  ref_item *items = t_alloc(n * sizeof *items + 1);
  for (size_t i = 0; i < n; i++) items[i] = (ref_item){(order_key(t, keys, i) >> begin) & mask, i};
  ref_descending_ = (o->flags & CLSORT_DESCENDING) != 0;
  qsort(items, n, sizeof *items, cmp_item);
  size_t *perm = t_alloc(n * sizeof *perm + 1);
  for (size_t i = 0; i < n; i++) perm[i] = items[i].index;
  t_release_now(items);
  return perm;
}

static void gather(const void *src, const size_t *perm, size_t n, size_t es, void *dst) {
  for (size_t i = 0; i < n; i++)
    memcpy((char *)dst + i * es, (const char *)src + perm[i] * es, es);
}

/* Whether the result order is fully determined: a stable sort (RADIX is
 * stable by definition; STABLE asks for it). */
static bool is_stable(const clsort_options *o) {
  return o->algorithm == CLSORT_RADIX || (o->flags & CLSORT_STABLE);
}

static const char *opt_name(const clsort_options *o) {
  static char buf[96];
  snprintf(buf, sizeof buf, "%s%s%s bits [%u,%u)", o->algorithm == CLSORT_RADIX ? "radix" : "auto",
           o->flags & CLSORT_DESCENDING ? " descending" : "",
           o->flags & CLSORT_STABLE ? " stable" : "", o->begin_bit, o->end_bit);
  return buf;
}

/* Values (or indices) out of an unstable sort: each must point back at an
 * input whose key equals the output key at its place, each exactly once. */
static void check_permutation(clsort_type t, const void *keys_in, const void *keys_out,
                              const void *vals, size_t vs, size_t n) {
  unsigned char *seen = t_alloc(n + 1);
  memset(seen, 0, n);
  size_t es = clsort_type_size(t);
  for (size_t i = 0; i < n; i++) {
    uint64_t v = vs == 4 ? t_get_bits(CLSORT_U32, vals, i) : t_get_bits(CLSORT_U64, vals, i);
    if (v >= n) ck_abort_msg("%s: value %zu is %" PRIu64 ", not an index below %zu", t_where(), i, v, n);
    if (seen[v]) ck_abort_msg("%s: index %" PRIu64 " appears twice (at %zu)", t_where(), v, i);
    seen[v] = 1;
    if (memcmp((const char *)keys_in + v * es, (const char *)keys_out + i * es, es) != 0)
      ck_abort_msg("%s: value at %zu points to input %" PRIu64 ", whose key differs", t_where(),
                   i, v);
  }
  t_release_now(seen);
}

/* Keys whose order is interesting for the type: full-range integers with
 * some duplicates; floats across signs and magnitudes with specials. */
static void fill_keys(t_rng *r, clsort_type t, void *p, size_t n, int mode) {
  size_t es = clsort_type_size(t);
  if (mode == 1) { /* few distinct values: ties everywhere */
    for (size_t i = 0; i < n; i++) {
      uint64_t v = t_rng_below(r, 3);
      if (t_type_is_float(t))
        t_set_f(t, p, i, (double)v - 1.0);
      else
        memcpy((char *)p + i * es, &v, es); /* little-endian low bytes */
    }
    return;
  }
  if (!t_type_is_float(t)) {
    t_fill_int(r, t, p, n);
    for (size_t i = 1; i < n; i += 7) /* duplicates */
      memcpy((char *)p + i * es, (char *)p + t_rng_below(r, i) * es, es);
    return;
  }
  static const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, 1e-310, -1e-310,
                                    1.0, -1.0, 1e30,     -1e30};
  for (size_t i = 0; i < n; i++) {
    uint64_t k = t_rng_below(r, 16);
    double v;
    if (k < 10)
      v = specials[k];
    else if (k < 12)
      v = k == 10 ? NAN : -NAN;
    else
      v = (t_rng_unit(r) * 2 - 1) * pow(10.0, (double)t_rng_below(r, 20) - 10);
    t_set_f(t, p, i, v);
  }
}

static const clsort_options option_sets[4] = {
    {CLSORT_AUTO, 0u, 0u, 0u},
    {CLSORT_RADIX, CLSORT_DESCENDING, 0u, 0u},
    {CLSORT_AUTO, CLSORT_STABLE, 0u, 0u},
    {CLSORT_RADIX, CLSORT_STABLE | CLSORT_DESCENDING, 0u, 0u},
};

static const size_t sort_sizes[] = {0,    1,    2,    3,     31,    32,    33,    255,   256,
                                    257,  1023, 1025, 4095,  4097,  10007, 65521, 65537, 262145};
#define NSORT_SIZES (sizeof sort_sizes / sizeof sort_sizes[0])

/* One input through clsort_sort, clsort_sort_pairs (values = indices) and
 * clsort_argsort, each checked against the reference. */
static void check_sorts(t_rng *r, clsort_type t, size_t n, const clsort_options *o, int mode) {
  size_t es = clsort_type_size(t), vs = (n % 2) ? 4 : 8;
  unsigned char *keys = t_alloc(n * es + 1), *work = t_alloc((n + GUARD) * es),
                *want = t_alloc(n * es + 1), *vals = t_alloc((n + GUARD) * 8),
                *want_vals = t_alloc(n * 8 + 1);
  fill_keys(r, t, keys, n, mode);
  size_t *perm = ref_permutation(t, keys, n, o);
  gather(keys, perm, n, es, want);
  for (size_t i = 0; i < n; i++) {
    uint64_t v = perm[i];
    memcpy(want_vals + i * vs, &v, vs);
  }

  t_label("sort %s n=%zu %s mode %d", clsort_type_name(t), n, opt_name(o), mode);
  memcpy(work, keys, n * es);
  t_poison(work + n * es, GUARD * es);
  ASSERT_OK(clsort_sort(T_CTX, t, work, n, o));
  ASSERT_EQ_ELEMS(work, want, n, es);
  ASSERT_POISON(work, n * es, (n + GUARD) * es);

  t_label("sort_pairs %s n=%zu %s mode %d values %zu bytes", clsort_type_name(t), n, opt_name(o),
          mode, vs);
  memcpy(work, keys, n * es);
  for (size_t i = 0; i < n; i++) {
    uint64_t v = i;
    memcpy(vals + i * vs, &v, vs);
  }
  t_poison(vals + n * vs, GUARD * vs);
  ASSERT_OK(clsort_sort_pairs(T_CTX, t, work, vals, vs, n, o));
  ASSERT_EQ_ELEMS(work, want, n, es);
  if (is_stable(o))
    ASSERT_EQ_ELEMS(vals, want_vals, n, vs);
  else
    check_permutation(t, keys, work, vals, vs, n);
  ASSERT_POISON(vals, n * vs, (n + GUARD) * vs);

  t_label("argsort %s n=%zu %s mode %d indices %zu bytes", clsort_type_name(t), n, opt_name(o),
          mode, vs);
  memcpy(work, keys, n * es);
  t_poison(vals, (n + GUARD) * vs);
  ASSERT_OK(clsort_argsort(T_CTX, t, work, vals, vs, n, o));
  ASSERT_EQ_ELEMS(work, keys, n, es); /* keys untouched */
  if (is_stable(o)) {
    ASSERT_EQ_ELEMS(vals, want_vals, n, vs);
  } else {
    gather(keys, perm, n, es, want); /* (unchanged) sorted keys to compare against */
    unsigned char *sorted = t_alloc(n * es + 1);
    for (size_t i = 0; i < n; i++) {
      uint64_t v = vs == 4 ? t_get_bits(CLSORT_U32, vals, i) : t_get_bits(CLSORT_U64, vals, i);
      if (v >= n) ck_abort_msg("%s: index %zu is %" PRIu64, t_where(), i, v);
      memcpy(sorted + i * es, keys + v * es, es);
    }
    ASSERT_EQ_ELEMS(sorted, want, n, es);
    check_permutation(t, keys, sorted, vals, vs, n);
    t_release_now(sorted);
  }
  ASSERT_POISON(vals, n * vs, (n + GUARD) * vs);

  t_release_now(perm);
  t_release_now(want_vals);
  t_release_now(vals);
  t_release_now(want);
  t_release_now(work);
  t_release_now(keys);
}

/* _i = type * 4 + option set. */
T_TEST(sort_host_forms) {
  clsort_type t = t_all_types[_i / 4];
  const clsort_options *o = &option_sets[_i % 4];
  if (t == CLSORT_F64 && !t_device_has_fp64(T_CTX)) return;
  t_rng r;
  t_rng_init(&r, "sort_host_forms");
  r.s[0] ^= (uint64_t)_i;
  for (size_t i = 0; i < NSORT_SIZES; i++) check_sorts(&r, t, sort_sizes[i], o, (int)(i % 5 == 4));
  for (int i = 0; i < 3; i++) check_sorts(&r, t, t_rng_size(&r, 1, 200000), o, i == 2);
}

/* Few distinct keys: stability decides the whole order of the values. */
T_TEST(sort_ties) {
  clsort_type t = t_all_types[_i];
  if (t == CLSORT_F64 && !t_device_has_fp64(T_CTX)) return;
  t_rng r;
  t_rng_init(&r, "sort_ties");
  static const size_t sizes[] = {100, 4099, 70001};
  for (size_t i = 0; i < 3; i++)
    for (int k = 0; k < 4; k++) check_sorts(&r, t, sizes[i], &option_sets[k], 1);
}

/* Only bits [begin, end) of the order key count; RADIX keeps ties (keys
 * equal in those bits) in input order, so the result is exact. */
T_TEST(sort_bit_ranges) {
  static const struct {
    clsort_type t;
    unsigned begin, end;
  } ranges[] = {
      {CLSORT_U32, 8, 16}, {CLSORT_U32, 0, 4},  {CLSORT_U32, 28, 32}, {CLSORT_U32, 0, 1},
      {CLSORT_I32, 0, 31}, {CLSORT_I32, 31, 0}, {CLSORT_U64, 32, 64}, {CLSORT_U64, 0, 1},
      {CLSORT_U64, 13, 47}, {CLSORT_I64, 56, 0}, {CLSORT_F32, 23, 32}, {CLSORT_F64, 52, 0},
  };
  t_rng r;
  t_rng_init(&r, "sort_bit_ranges");
  for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; k++) {
    if (ranges[k].t == CLSORT_F64 && !t_device_has_fp64(T_CTX)) continue;
    for (int desc = 0; desc < 2; desc++) {
      clsort_options o = {CLSORT_RADIX, desc ? CLSORT_DESCENDING : 0u, ranges[k].begin,
                          ranges[k].end};
      check_sorts(&r, ranges[k].t, 5003, &o, 0);
      o.algorithm = CLSORT_AUTO;
      o.flags |= CLSORT_STABLE;
      check_sorts(&r, ranges[k].t, 70001, &o, 0);
    }
  }
}

/* The float total order, specials only: NaNs of both signs and several
 * payloads, infinities, signed zeros, denormals. */
T_TEST(sort_float_total_order) {
  clsort_type t = _i == 0 ? CLSORT_F32 : CLSORT_F64;
  if (t == CLSORT_F64 && !t_device_has_fp64(T_CTX)) return;
  t_rng r;
  t_rng_init(&r, "sort_float_total_order");
  size_t n = 4001, es = clsort_type_size(t);
  unsigned char *keys = t_alloc(n * es), *want = t_alloc(n * es);
  for (size_t i = 0; i < n; i++) {
    uint64_t pick = t_rng_below(&r, 8), bits;
    if (t == CLSORT_F32) {
      static const uint32_t special[8] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800000u,
                                          0x7F800000u, 0x80000000u, 0x00000000u, 0x00000001u};
      bits = special[pick] ^ (pick < 3 ? (uint32_t)t_rng_below(&r, 1u << 20) : 0u);
      uint32_t b = (uint32_t)bits;
      memcpy(keys + 4 * i, &b, 4);
    } else {
      static const uint64_t special[8] = {0x7FF8000000000000ull, 0xFFF8000000000000ull,
                                          0x7FF0000000000001ull, 0xFFF0000000000000ull,
                                          0x7FF0000000000000ull, 0x8000000000000000ull,
                                          0x0000000000000000ull, 0x8000000000000001ull};
      bits = special[pick] ^ (pick < 3 ? t_rng_below(&r, 1ull << 40) : 0u);
      memcpy(keys + 8 * i, &bits, 8);
    }
  }
  for (int k = 0; k < 4; k++) {
    const clsort_options *o = &option_sets[k];
    size_t *perm = ref_permutation(t, keys, n, o);
    gather(keys, perm, n, es, want);
    unsigned char *work = t_alloc(n * es);
    memcpy(work, keys, n * es);
    t_label("%s specials %s", clsort_type_name(t), opt_name(o));
    ASSERT_OK(clsort_sort(T_CTX, t, work, n, o));
    ASSERT_EQ_ELEMS(work, want, n, es);
    t_release_now(work);
    t_release_now(perm);
  }
}

/* The buffer form, keys only and with values, after a wait list. */
T_TEST(sort_buffer_form) {
  clsort_type t = t_all_types[_i];
  if (t == CLSORT_F64 && !t_device_has_fp64(T_CTX)) return;
  t_rng r;
  t_rng_init(&r, "sort_buffer_form");
  static const size_t sizes[] = {1, 33, 4097, 100003};
  size_t es = clsort_type_size(t);
  cl_command_queue q = clsort_context_queue(T_CTX);
  for (size_t s = 0; s < 4; s++)
    for (int k = 0; k < 4; k++) {
      size_t n = sizes[s], vs = k % 2 ? 4 : 8;
      const clsort_options *o = &option_sets[k];
      unsigned char *keys = t_alloc(n * es), *want = t_alloc(n * es),
                    *vals = t_alloc((n + GUARD) * 8), *want_vals = t_alloc(n * 8);
      fill_keys(&r, t, keys, n, k == 2);
      size_t *perm = ref_permutation(t, keys, n, o);
      gather(keys, perm, n, es, want);
      for (size_t i = 0; i < n; i++) {
        uint64_t v = i, pv = perm[i];
        memcpy(vals + i * vs, &v, vs);
        memcpy(want_vals + i * vs, &pv, vs);
      }
      t_poison(vals + n * vs, GUARD * vs);
      bool with_values = s % 2 == 1;
      t_label("sort_buffer %s n=%zu %s%s", clsort_type_name(t), n, opt_name(o),
              with_values ? " with values" : "");
      cl_mem bk = t_buffer((n + GUARD) * es, NULL), bv = t_buffer((n + GUARD) * vs, vals);
      cl_event written = NULL, done = NULL;
      ASSERT_CL(clEnqueueWriteBuffer(q, bk, CL_FALSE, 0, n * es, keys, 0, NULL, &written));
      t_defer_event(written);
      ASSERT_OK(clsort_sort_buffer(T_CTX, t, bk, with_values ? bv : NULL, with_values ? vs : 0, n,
                                   o, 1, &written, &done));
      ASSERT_NOT_NULL(done);
      t_defer_event(done);
      ASSERT_CL(clWaitForEvents(1, &done));
      unsigned char *got = t_read_buffer(bk, (n + GUARD) * es);
      ASSERT_EQ_ELEMS(got, want, n, es);
      ASSERT_POISON(got, n * es, (n + GUARD) * es);
      if (with_values) {
        unsigned char *gv = t_read_buffer(bv, (n + GUARD) * vs);
        if (is_stable(o))
          ASSERT_EQ_ELEMS(gv, want_vals, n, vs);
        else
          check_permutation(t, keys, got, gv, vs, n);
        ASSERT_POISON(gv, n * vs, (n + GUARD) * vs);
        t_release_now(gv);
      }
      t_release_now(got);
      t_release_now(bv);
      t_release_now(bk);
      t_release_now(perm);
      t_release_now(want_vals);
      t_release_now(vals);
      t_release_now(want);
      t_release_now(keys);
    }
}

/* n == 0 and NULL arrays: success, nothing touched. */
T_TEST(sort_zero_length) {
  for (int ti = 0; ti < 6; ti++) {
    clsort_type t = t_all_types[ti];
    if (t == CLSORT_F64 && !t_device_has_fp64(T_CTX)) continue;
    t_label("%s n=0", clsort_type_name(t));
    ASSERT_OK(clsort_sort(T_CTX, t, NULL, 0, NULL));
    ASSERT_OK(clsort_sort_pairs(T_CTX, t, NULL, NULL, 4, 0, NULL));
    ASSERT_OK(clsort_argsort(T_CTX, t, NULL, NULL, 8, 0, NULL));
    cl_event ev = NULL;
    ASSERT_OK(clsort_sort_buffer(T_CTX, t, NULL, NULL, 0, 0, NULL, 0, NULL, &ev));
    ASSERT_NOT_NULL(ev);
    t_defer_event(ev);
    ASSERT_CL(clWaitForEvents(1, &ev));
  }
}

T_TEST(sort_large) {
  static const clsort_type types[] = {CLSORT_U32, CLSORT_F32, CLSORT_U64, CLSORT_I64};
  clsort_type t = types[_i];
  t_rng r;
  t_rng_init(&r, "sort_large");
  r.s[0] ^= (uint64_t)_i;
  check_sorts(&r, t, _i % 2 ? (1u << 22) + 1 : (1u << 22), &option_sets[_i % 4], 0);
}

static void add(Suite *s, unsigned tiers) {
  if (tiers & T_QUICK) {
    TCase *tc = t_tcase(s, "sort", true);
    tcase_add_loop_test(tc, sort_host_forms, 0, 24);
    tcase_add_loop_test(tc, sort_ties, 0, 6);
    tcase_add_test(tc, sort_bit_ranges);
    tcase_add_loop_test(tc, sort_float_total_order, 0, 2);
    tcase_add_loop_test(tc, sort_buffer_form, 0, 6);
    tcase_add_test(tc, sort_zero_length);
  }
  if (tiers & T_SLOW) {
    TCase *tc = t_tcase(s, "sort_slow", true);
    tcase_add_loop_test(tc, sort_large, 0, 4);
  }
}

int main(int argc, char **argv) { return t_main(argc, argv, "sort", add); }
