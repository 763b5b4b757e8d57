/* test_sort.c: clsort_sort, clsort_sort_pairs, clsort_argsort and
 * clsort_sort_buffer (AUTO and RADIX) against a stable C reference: every
 * key type and direction, keys / pairs / argsort with 4- and 8-byte
 * payloads, ten key distributions, tile-edge sizes, special values, bit
 * ranges, and the multi-work-item tile path that GPUs run. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

/* Private (internal.h), reached through the internal dependency: the -D
 * flags of the context's launch shape, to confirm that CLSORT_TUNING took. */
const char *clsort__common_options(const clsort_context *ctx);

#define GUARD 16

/* GPU-style shapes on PoCL (CLSORT_TUNING=WG:ITEMS:GROUPS_PER_CU): the
 * radix tile is ranked across the group's work-items in local memory,
 * unlike the CPU default of one work-item with a 256-key run. 16 x 8-key
 * tiles of 128 keys; and the default shape of GPUs other than NVIDIA's,
 * 256 x 16-key tiles of 4096 keys. */
#define TILED_TUNING "16:16:2"
#define WIDE_TUNING "256:8:1"

/* ------------------------------------------------------------ reference */
/* The order-preserving unsigned form of a key: the documented total order
 * (floats by bits: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN). */
static uint64_t order_key(clsort_type t, const void *p, size_t i) {
  uint64_t b = t_get_bits(t, p, i);
  switch (t) {
    case CLSORT_I32: return b ^ 0x80000000u;
    case CLSORT_I64: return b ^ 0x8000000000000000ull;
    case CLSORT_F32: return (b & 0x80000000u) ? (~b & 0xFFFFFFFFu) : (b | 0x80000000u);
    case CLSORT_F64: return (b & 0x8000000000000000ull) ? ~b : (b | 0x8000000000000000ull);
    default: return b;
  }
}

/* The inverse of order_key: the key's bits for an order-space value. */
static uint64_t from_order(clsort_type t, uint64_t u) {
  switch (t) {
    case CLSORT_I32: return (u ^ 0x80000000u) & 0xFFFFFFFFu;
    case CLSORT_I64: return u ^ 0x8000000000000000ull;
    case CLSORT_F32: return (u & 0x80000000u) ? (u & 0x7FFFFFFFu) : (~u & 0xFFFFFFFFu);
    case CLSORT_F64: return (u & 0x8000000000000000ull) ? (u & 0x7FFFFFFFFFFFFFFFull) : ~u;
    default: return clsort_type_size(t) == 4 ? u & 0xFFFFFFFFu : u;
  }
}

static void put_bits(clsort_type t, void *p, size_t i, uint64_t bits) {
  if (clsort_type_size(t) == 4) {
    uint32_t v = (uint32_t)bits;
    memcpy((char *)p + 4 * i, &v, 4);
  } else {
    memcpy((char *)p + 8 * i, &bits, 8);
  }
}

/* The bits [begin, end) of the order key that the options compare. */
typedef struct key_range {
  unsigned begin;
  uint64_t mask;
} key_range;
static key_range range_of(clsort_type t, const clsort_options *o) {
  unsigned bits = (unsigned)clsort_type_size(t) * 8;
  unsigned end = o->end_bit ? o->end_bit : bits;
  unsigned width = end - o->begin_bit;
  key_range k = {o->begin_bit, width >= 64 ? UINT64_MAX : ((uint64_t)1 << width) - 1};
  return k;
}
static uint64_t masked_key(clsort_type t, const void *p, size_t i, key_range k) {
  return (order_key(t, p, i) >> k.begin) & k.mask;
}

/* The stable reference: the permutation that sorts `keys` by their masked
 * order keys, ascending or descending, ties in input order. */
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
  key_range k = range_of(t, o);
  ref_item *items = t_alloc(n * sizeof *items + 1);
  for (size_t i = 0; i < n; i++) items[i] = (ref_item){masked_key(t, keys, i, k), i};
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
           o->flags & CLSORT_DESCENDING ? " descending" : " ascending",
           o->flags & CLSORT_STABLE ? " stable" : "", o->begin_bit, o->end_bit);
  return buf;
}

/* ---------------------------------------------------------------- modes */
/* What one input is sorted through: keys only, pairs with 4- or 8-byte
 * values, argsort with 4- or 8-byte indices. */
enum { M_KEYS, M_PAIRS4, M_PAIRS8, M_ARG4, M_ARG8, M_COUNT };
#define MODES_ALL ((1u << M_COUNT) - 1)
#define MODES_PAYLOAD (MODES_ALL & ~(1u << M_KEYS))
static const char *const mode_names[M_COUNT] = {"sort", "sort_pairs", "sort_pairs", "argsort",
                                                "argsort"};
static const size_t mode_payload[M_COUNT] = {0, 4, 8, 4, 8};

/* The value that pairs carry for input element i: its index, and for 8-byte
 * values a tag derived from it in the high half, so that both halves must
 * travel. */
static uint64_t pair_value(size_t i, size_t vs) {
  uint64_t v = (uint64_t)i;
  if (vs == 8) v |= (uint64_t)((uint32_t)i * 2654435761u ^ 0x5EEDu) << 32;
  return v;
}
static uint64_t get_payload(const void *p, size_t i, size_t vs) {
  return vs == 4 ? t_get_bits(CLSORT_U32, p, i) : t_get_bits(CLSORT_U64, p, i);
}

/* Masked order keys must not decrease (ascending) or increase (descending). */
static void check_sorted(clsort_type t, const void *keys, size_t n, const clsort_options *o) {
  key_range k = range_of(t, o);
  bool desc = (o->flags & CLSORT_DESCENDING) != 0;
  for (size_t i = 1; i < n; i++) {
    uint64_t a = masked_key(t, keys, i - 1, k), b = masked_key(t, keys, i, k);
    if (desc ? a < b : a > b)
      ck_abort_msg("%s: output not sorted at %zu: order key 0x%" PRIx64 " then 0x%" PRIx64
                   " (key bits 0x%" PRIx64 " then 0x%" PRIx64 ")",
                   t_where(), i, a, b, t_get_bits(t, keys, i - 1), t_get_bits(t, keys, i));
  }
}

/* Stable payloads: element i must be what input perm[i] carried. */
static void check_payload_exact(const void *vals, size_t vs, const size_t *perm, size_t n,
                                bool indices) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t want = indices ? (uint64_t)perm[i] : pair_value(perm[i], vs);
    if (get_payload(vals, i, vs) != want && bad++ == 0) first = i;
  }
  if (bad) {
    uint64_t want = indices ? (uint64_t)perm[first] : pair_value(perm[first], vs);
    ck_abort_msg("%s: %zu of %zu %s differ from the stable order; first at %zu: got 0x%" PRIx64
                 ", want 0x%" PRIx64,
                 t_where(), bad, n, indices ? "indices" : "values", first,
                 get_payload(vals, first, vs), want);
  }
}

/* Unstable payloads: each must name a distinct input whose key is the
 * output key at its place (`sorted`, the reference's sorted keys). */
static void check_payload_permutation(clsort_type t, const void *keys_in, const void *sorted,
                                      const void *vals, size_t vs, size_t n, bool indices) {
  unsigned char *seen = t_alloc(n + 1);
  memset(seen, 0, n);
  size_t es = clsort_type_size(t);
  for (size_t i = 0; i < n; i++) {
    uint64_t v = get_payload(vals, i, vs), idx = indices ? v : v & 0xFFFFFFFFu;
    if (idx >= n || (!indices && v != pair_value((size_t)idx, vs)))
      ck_abort_msg("%s: payload %zu is 0x%" PRIx64 ", not one that an input carried", t_where(),
                   i, v);
    if (seen[idx]) ck_abort_msg("%s: input %" PRIu64 " appears twice (at %zu)", t_where(), idx, i);
    seen[idx] = 1;
    if (memcmp((const char *)keys_in + idx * es, (const char *)sorted + i * es, es) != 0)
      ck_abort_msg("%s: payload at %zu names input %" PRIu64 ", whose key is not the key there",
                   t_where(), i, idx);
  }
  t_release_now(seen);
}

/* One input through the chosen modes, each output checked: keys sorted and
 * equal to the stable reference (so a permutation of the input), payloads
 * in the stable order (or, for an unstable sort, a permutation carrying
 * the right keys), argsort's keys untouched, nothing written past n. */
static void check_input(clsort_type t, const void *keys, size_t n, const clsort_options *o,
                        unsigned modes, const char *what) {
  size_t es = clsort_type_size(t);
  bool stable = is_stable(o);
  if (!stable && (o->begin_bit != 0 || o->end_bit != 0))
    ck_abort_msg("%s: test bug: an unstable sort over a bit range has no single answer", t_where());
  size_t *perm = ref_permutation(t, keys, n, o);
  unsigned char *want = t_alloc(n * es + 1), *work = t_alloc((n + GUARD) * es),
                *vals = t_alloc((n + GUARD) * 8);
  gather(keys, perm, n, es, want);
  for (int m = 0; m < M_COUNT; m++) {
    if (!(modes & (1u << m))) continue;
    size_t vs = mode_payload[m];
    bool indices = m == M_ARG4 || m == M_ARG8;
    if (vs)
      t_label("%s %s n=%zu %s, %s, %zu-byte %s", mode_names[m], clsort_type_name(t), n,
              opt_name(o), what, vs, indices ? "indices" : "values");
    else
      t_label("%s %s n=%zu %s, %s", mode_names[m], clsort_type_name(t), n, opt_name(o), what);
    memcpy(work, keys, n * es);
    t_poison(work + n * es, GUARD * es);
    if (m == M_KEYS) {
      ASSERT_OK(clsort_sort(T_CTX, t, work, n, o));
    } else if (!indices) {
      for (size_t i = 0; i < n; i++) {
        uint64_t v = pair_value(i, vs);
        memcpy(vals + i * vs, &v, vs);
      }
      t_poison(vals + n * vs, GUARD * vs);
      ASSERT_OK(clsort_sort_pairs(T_CTX, t, work, vals, vs, n, o));
    } else {
      t_poison(vals, (n + GUARD) * vs);
      ASSERT_OK(clsort_argsort(T_CTX, t, work, vals, vs, n, o));
    }
    ASSERT_POISON(work, n * es, (n + GUARD) * es);
    if (indices) {
      ASSERT_EQ_ELEMS(work, keys, n, es); /* argsort leaves the keys alone */
    } else {
      check_sorted(t, work, n, o);
      ASSERT_EQ_ELEMS(work, want, n, es);
    }
    if (vs) {
      if (stable)
        check_payload_exact(vals, vs, perm, n, indices);
      else
        check_payload_permutation(t, keys, want, vals, vs, n, indices);
      ASSERT_POISON(vals, n * vs, (n + GUARD) * vs);
    }
  }
  t_release_now(vals);
  t_release_now(work);
  t_release_now(want);
  t_release_now(perm);
}

/* --------------------------------------------------------- distributions */
/* The distributions. Integers draw in the type's order space (so
 * signed keys straddle zero); floats under uniform, bucket, staggered,
 * sorted and reverse are arbitrary bit patterns (NaNs of both signs,
 * infinities, denormals included), which the total order covers; the
 * others are real numbers. */
enum {
  D_UNIFORM,
  D_GAUSSIAN,
  D_BUCKET,
  D_SORTED,
  D_REVERSE,
  D_ZERO,
  D_FEW,      /* at most 16 distinct values, specials among them */
  D_POISSON,  /* lambda 100: one digit varies for integers, an odd pass count */
  D_STAGGERED,
  D_NARROW,   /* 0..1023 */
  D_COUNT
};
static const char *const dist_names[D_COUNT] = {"uniform", "gaussian", "bucket",  "sorted",
                                                "reverse", "zero",     "few-unique", "poisson",
                                                "staggered", "narrow"};

#define POISSON_LAMBDA 100.0
#define POISSON_MAX 256
static double poisson_cdf_[POISSON_MAX];
static int poisson_draw(t_rng *r) {
  if (poisson_cdf_[POISSON_MAX - 1] == 0) {
    double p = exp(-POISSON_LAMBDA), c = 0;
    for (int k = 0; k < POISSON_MAX; k++) {
      c += p;
      poisson_cdf_[k] = c;
      p *= POISSON_LAMBDA / (k + 1);
    }
  }
  double u = t_rng_unit(r);
  int lo = 0, hi = POISSON_MAX - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (poisson_cdf_[mid] > u)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* Integers get the integer value v; floats the number v. */
static void put_number(clsort_type t, void *p, size_t i, int64_t v) {
  if (t_type_is_float(t))
    t_set_f(t, p, i, (double)v);
  else
    put_bits(t, p, i, (uint64_t)v);
}

static void gen_keys(t_rng *r, clsort_type t, int dist, void *p, size_t n) {
  size_t es = clsort_type_size(t);
  unsigned bits = (unsigned)es * 8;
  bool fl = t_type_is_float(t);
  const unsigned nb = 16; /* blocks of bucket and staggered */
  const unsigned lg_sub = bits - 4; /* order space / nb = 2^lg_sub */
  switch (dist) {
    case D_UNIFORM: t_fill_bytes(r, p, n * es); break;
    case D_GAUSSIAN:
      for (size_t i = 0; i < n; i++) {
        if (fl) {
          double u1 = 1.0 - t_rng_unit(r), u2 = t_rng_unit(r);
          t_set_f(t, p, i, 1000.0 * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
        } else {
          uint64_t u = 0;
          for (int k = 0; k < 4; k++) u += t_rng_next(r) >> (64 - (bits - 2));
          put_bits(t, p, i, from_order(t, u));
        }
      }
      break;
    case D_BUCKET:
      /* nb blocks; block b holds nb runs, run j drawn from the j-th nb-th of
       * the order space (Helman, Bader and JaJa). */
      for (size_t i = 0; i < n; i++) {
        size_t block = (n + nb - 1) / nb, j = (i % block) * nb / block;
        uint64_t u = ((uint64_t)j << lg_sub) | (t_rng_next(r) >> (64 - lg_sub));
        put_bits(t, p, i, from_order(t, u));
      }
      break;
    case D_STAGGERED:
      for (size_t i = 0; i < n; i++) {
        uint64_t b = (uint64_t)(i * nb / n), j = b < nb / 2 ? 2 * b + 1 : 2 * b - nb;
        uint64_t u = (j << lg_sub) | (t_rng_next(r) >> (64 - lg_sub));
        put_bits(t, p, i, from_order(t, u));
      }
      break;
    case D_SORTED:
    case D_REVERSE: {
      t_fill_bytes(r, p, n * es);
      clsort_options o = {CLSORT_RADIX, dist == D_REVERSE ? CLSORT_DESCENDING : 0u, 0u, 0u};
      size_t *perm = ref_permutation(t, p, n, &o);
      unsigned char *tmp = t_alloc(n * es + 1);
      gather(p, perm, n, es, tmp);
      memcpy(p, tmp, n * es);
      t_release_now(tmp);
      t_release_now(perm);
      break;
    }
    case D_ZERO: memset(p, 0, n * es); break;
    case D_FEW: {
      uint64_t table[16];
      if (fl) {
        static const uint32_t f32[16] = {0xFFC00000u, 0xFF800000u, 0xF149F2CAu, 0xBF800000u,
                                         0x80000001u, 0x80000000u, 0x00000000u, 0x00000001u,
                                         0x3F000000u, 0x3F800000u, 0x40500000u, 0x7149F2CAu,
                                         0x7F800000u, 0x7FC00000u, 0x7FC00001u, 0xC0500000u};
        static const uint64_t f64[16] = {
            0xFFF8000000000000ull, 0xFFF0000000000000ull, 0xC6293E5939A08CEAull,
            0xBFF0000000000000ull, 0x8000000000000001ull, 0x8000000000000000ull,
            0x0000000000000000ull, 0x0000000000000001ull, 0x3FE0000000000000ull,
            0x3FF0000000000000ull, 0x400A000000000000ull, 0x46293E5939A08CEAull,
            0x7FF0000000000000ull, 0x7FF8000000000000ull, 0x7FF8000000000001ull,
            0xC00A000000000000ull};
        for (int k = 0; k < 16; k++) table[k] = es == 4 ? f32[k] : f64[k];
      } else {
        /* The type's extremes, zero and random values. */
        table[0] = from_order(t, 0);
        table[1] = from_order(t, bits == 32 ? 0xFFFFFFFFu : UINT64_MAX);
        table[2] = 0;
        for (int k = 3; k < 16; k++) table[k] = from_order(t, t_rng_next(r));
      }
      for (size_t i = 0; i < n; i++) put_bits(t, p, i, table[t_rng_below(r, 16)]);
      break;
    }
    case D_POISSON:
      for (size_t i = 0; i < n; i++) put_number(t, p, i, poisson_draw(r));
      break;
    case D_NARROW:
      for (size_t i = 0; i < n; i++) put_number(t, p, i, (int64_t)t_rng_below(r, 1024));
      break;
    default: ck_abort_msg("test bug: distribution %d", dist);
  }
}

static void check_dist(t_rng *r, clsort_type t, int dist, size_t n, const clsort_options *o,
                       unsigned modes) {
  unsigned char *keys = t_alloc(n * clsort_type_size(t) + 1);
  gen_keys(r, t, dist, keys, n);
  check_input(t, keys, n, o, modes, dist_names[dist]);
  t_release_now(keys);
}

static bool skip_type(clsort_type t) { return t == CLSORT_F64 && !t_device_has_fp64(T_CTX); }

/* ------------------------------------------------------------ the matrix */
/* _i = type * D_COUNT + distribution: both directions, all five modes, at
 * 1000, 65537 and a random size; one direction and three modes at
 * 1000003. Directions alternate between RADIX and AUTO with STABLE, so
 * that every output has one right answer. */
T_TEST(sort_matrix) {
  clsort_type t = t_all_types[_i / D_COUNT];
  int dist = _i % D_COUNT;
  if (skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_matrix");
  r.s[0] ^= (uint64_t)_i;
  size_t sizes[3] = {1000, 65537, t_rng_size(&r, 2, 300000)};
  for (int s = 0; s < 3; s++)
    for (int desc = 0; desc < 2; desc++) {
      bool radix = (dist + desc) % 2 == 1;
      clsort_options o = {radix ? CLSORT_RADIX : CLSORT_AUTO,
                          (desc ? CLSORT_DESCENDING : 0u) | (radix ? 0u : CLSORT_STABLE), 0u, 0u};
      check_dist(&r, t, dist, sizes[s], &o, MODES_ALL);
    }
  clsort_options o = {CLSORT_RADIX, (_i / D_COUNT + dist) % 2 ? CLSORT_DESCENDING : 0u, 0u, 0u};
  check_dist(&r, t, dist, 1000003, &o, (1u << M_KEYS) | (1u << M_PAIRS4) | (1u << M_ARG8));
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
  if (skip_type(t)) return;
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
      check_dist(&r, t, D_UNIFORM, n, &o, MODES_ALL);
    }
  }
}

/* ------------------------------------------------------- special values */
/* Distinct keys of each type, strictly ascending in the documented order,
 * written by hand so that they also check the reference's order_key. */
static const uint64_t special_u32[] = {0u,          1u,          255u,        256u,
                                       0x7FFFFFFFu, 0x80000000u, 0x80000001u, 0xFFFFFF00u,
                                       0xFFFFFFFEu, 0xFFFFFFFFu};
static const uint64_t special_i32[] = {
    0x80000000u /* INT32_MIN */, 0x80000001u, 0xFFFF0000u /* -65536 */, 0xFFFFFF00u,
    0xFFFFFFFEu,  0xFFFFFFFFu /* -1 */, 0u, 1u, 255u, 256u, 65536u, 0x7FFFFFFEu,
    0x7FFFFFFFu /* INT32_MAX */};
static const uint64_t special_f32[] = {
    0xFFFFFFFFu /* -NaN, largest payload */, 0xFFC00001u, 0xFFC00000u /* -qNaN */,
    0xFF800001u /* -sNaN */, 0xFF800000u /* -inf */, 0xFF7FFFFFu /* -FLT_MAX */,
    0xC0000000u /* -2 */, 0xBF800000u /* -1 */, 0x80800000u /* -FLT_MIN */,
    0x807FFFFFu /* largest negative denormal */, 0x80000001u /* smallest */,
    0x80000000u /* -0 */, 0x00000000u /* +0 */, 0x00000001u, 0x007FFFFFu /* denormals */,
    0x00800000u /* FLT_MIN */, 0x3F800000u /* 1 */, 0x40000000u /* 2 */,
    0x7F7FFFFFu /* FLT_MAX */, 0x7F800000u /* +inf */, 0x7F800001u /* +sNaN */,
    0x7FC00000u /* +qNaN */, 0x7FFFFFFFu /* +NaN, largest payload */};
static const uint64_t special_u64[] = {0ull,
                                       1ull,
                                       0xFFFFFFFFull,
                                       0x100000000ull,
                                       0x7FFFFFFFFFFFFFFFull,
                                       0x8000000000000000ull,
                                       0xFFFFFFFF00000000ull,
                                       0xFFFFFFFFFFFFFFFEull,
                                       0xFFFFFFFFFFFFFFFFull};
static const uint64_t special_i64[] = {
    0x8000000000000000ull /* INT64_MIN */, 0x8000000000000001ull,
    0xFFFFFFFF7FFFFFFFull /* INT32_MIN - 1 */, 0xFFFFFFFF80000000ull /* INT32_MIN */,
    0xFFFFFFFFFFFFFFFFull /* -1 */, 0ull, 1ull, 0x7FFFFFFFull /* INT32_MAX */,
    0x80000000ull, 0x7FFFFFFFFFFFFFFEull, 0x7FFFFFFFFFFFFFFFull /* INT64_MAX */};
static const uint64_t special_f64[] = {
    0xFFFFFFFFFFFFFFFFull /* -NaN, largest payload */, 0xFFF8000000000001ull,
    0xFFF8000000000000ull /* -qNaN */, 0xFFF0000000000001ull /* -sNaN */,
    0xFFF0000000000000ull /* -inf */, 0xFFEFFFFFFFFFFFFFull /* -DBL_MAX */,
    0xC000000000000000ull /* -2 */, 0xBFF0000000000000ull /* -1 */,
    0x8010000000000000ull /* -DBL_MIN */, 0x800FFFFFFFFFFFFFull, 0x8000000000000001ull,
    0x8000000000000000ull /* -0 */, 0x0000000000000000ull /* +0 */, 0x0000000000000001ull,
    0x000FFFFFFFFFFFFFull /* denormals */, 0x0010000000000000ull /* DBL_MIN */,
    0x3FF0000000000000ull /* 1 */, 0x4000000000000000ull /* 2 */,
    0x7FEFFFFFFFFFFFFFull /* DBL_MAX */, 0x7FF0000000000000ull /* +inf */,
    0x7FF0000000000001ull /* +sNaN */, 0x7FF8000000000000ull /* +qNaN */,
    0x7FFFFFFFFFFFFFFFull /* +NaN, largest payload */};

static const uint64_t *special_list(clsort_type t, size_t *count) {
#define LIST_(a) (*count = sizeof a / sizeof a[0], a)
  switch (t) {
    case CLSORT_U32: return LIST_(special_u32);
    case CLSORT_I32: return LIST_(special_i32);
    case CLSORT_F32: return LIST_(special_f32);
    case CLSORT_U64: return LIST_(special_u64);
    case CLSORT_I64: return LIST_(special_i64);
    default: return LIST_(special_f64);
  }
#undef LIST_
}

/* The output's keys, mapped to their places in the hand-written list, must
 * run in the requested direction and keep each value's count. */
static void check_against_list(clsort_type t, const uint64_t *list, size_t count,
                               const void *keys_in, const void *out, size_t n, bool desc) {
  size_t counts[32] = {0};
  for (size_t i = 0; i < n; i++) {
    uint64_t b = t_get_bits(t, keys_in, i);
    for (size_t k = 0; k < count; k++)
      if (list[k] == b) counts[k]++;
  }
  size_t prev = desc ? count : 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t b = t_get_bits(t, out, i);
    size_t k = 0;
    while (k < count && list[k] != b) k++;
    if (k == count)
      ck_abort_msg("%s: output %zu is 0x%" PRIx64 ", not an input value", t_where(), i, b);
    if (desc ? k > prev : k < prev)
      ck_abort_msg("%s: output %zu is 0x%" PRIx64 " after 0x%" PRIx64 ": wrong order", t_where(),
                   i, b, list[prev]);
    if (counts[k]-- == 0)
      ck_abort_msg("%s: 0x%" PRIx64 " occurs more often in the output than in the input",
                   t_where(), b);
    prev = k;
  }
}

/* _i = type: INT_MIN/INT_MAX, signed zeros, infinities, NaNs of both signs
 * and several payloads, denormals. The list once each (shuffled), then
 * many draws from it, both directions, all modes. */
T_TEST(sort_special_values) {
  clsort_type t = t_all_types[_i];
  if (skip_type(t)) return;
  size_t count, es = clsort_type_size(t);
  const uint64_t *list = special_list(t, &count);
  unsigned char *lk = t_alloc(count * es);
  for (size_t k = 0; k < count; k++) put_bits(t, lk, k, list[k]);
  t_label("%s: the hand-written order agrees with the reference's order keys",
          clsort_type_name(t));
  for (size_t k = 1; k < count; k++) ASSERT_GT_U64(order_key(t, lk, k), order_key(t, lk, k - 1));

  t_rng r;
  t_rng_init(&r, "sort_special_values");
  r.s[0] ^= (uint64_t)_i;
  static const size_t sizes[] = {0, 2001, 70001};
  for (size_t s = 0; s < 3; s++) {
    size_t n = sizes[s] ? sizes[s] : count;
    unsigned char *keys = t_alloc(n * es), *out = t_alloc(n * es);
    for (size_t i = 0; i < n; i++) put_bits(t, keys, i, list[i % count]);
    for (size_t i = n; i-- > 1;) { /* shuffle */
      size_t j = (size_t)t_rng_below(&r, i + 1);
      uint64_t a = t_get_bits(t, keys, i), b = t_get_bits(t, keys, j);
      put_bits(t, keys, i, b);
      put_bits(t, keys, j, a);
    }
    for (int desc = 0; desc < 2; desc++) {
      clsort_options o = {s == 1 ? CLSORT_AUTO : CLSORT_RADIX,
                          (desc ? CLSORT_DESCENDING : 0u) | (s == 1 ? CLSORT_STABLE : 0u), 0u, 0u};
      t_label("%s specials n=%zu %s against the hand-written order", clsort_type_name(t), n,
              opt_name(&o));
      memcpy(out, keys, n * es);
      ASSERT_OK(clsort_sort(T_CTX, t, out, n, &o));
      check_against_list(t, list, count, keys, out, n, desc);
      if (n == count)
        for (size_t k = 0; k < count; k++)
          ASSERT_EQ_U64(t_get_bits(t, out, k), list[desc ? count - 1 - k : k]);
      check_input(t, keys, n, &o, MODES_ALL, "specials");
    }
    t_release_now(out);
    t_release_now(keys);
  }
}

/* -------------------------------------------------------------- stability */
/* Few distinct keys (2, 3 or 16): the payloads' whole order is decided by
 * stability, in both directions. _i = type. */
T_TEST(sort_stability) {
  clsort_type t = t_all_types[_i];
  if (skip_type(t)) return;
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
        gen_keys(&r, t, D_FEW, keys, n);
      } else {
        /* Two or three values, the largest and smallest among them. */
        uint64_t v[3] = {from_order(t, 0), from_order(t, es == 4 ? 0xFFFFFFFFu : UINT64_MAX),
                         t_rng_next(&r)};
        for (size_t i = 0; i < n; i++)
          put_bits(t, keys, i, v[t_rng_below(&r, 2u + (unsigned)variant)]);
      }
      for (int desc = 0; desc < 2; desc++) {
        clsort_options o = {variant == 1 ? CLSORT_AUTO : CLSORT_RADIX,
                            (desc ? CLSORT_DESCENDING : 0u) | (variant == 1 ? CLSORT_STABLE : 0u),
                            0u, 0u};
        check_input(t, keys, n, &o, MODES_PAYLOAD, variant == 2 ? "16 values" : "2-3 values");
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
    put_bits(t, p, i, from_order(t, (t_rng_next(r) & keep) | fixed));
}

/* _i = range. */
T_TEST(sort_bit_ranges) {
  clsort_type t = bit_ranges[_i].t;
  if (skip_type(t)) return;
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
      gen_keys(&r, t, D_UNIFORM, keys, n);
    for (int desc = 0; desc < 2; desc++) {
      clsort_options o = {desc ? CLSORT_RADIX : CLSORT_AUTO,
                          desc ? CLSORT_DESCENDING : CLSORT_STABLE, bit_ranges[_i].begin,
                          bit_ranges[_i].end};
      check_input(t, keys, n, &o, MODES_ALL, data ? "middle bytes constant" : "uniform");
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
  if (skip_type(t)) return;
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
        put_bits(t, keys, i, from_order(t, (base & ~patterns[k]) | (t_rng_next(&r) & patterns[k])));
      if (k >= 6 && k <= 8) {
        size_t j = k == 6 ? 0 : k == 7 ? n - 1 : (size_t)t_rng_below(&r, n);
        put_bits(t, keys, j, from_order(t, order_key(t, keys, j) ^ (1ull << 17)));
      }
      for (int desc = 0; desc < 2; desc++) {
        clsort_options o = {CLSORT_RADIX, desc ? CLSORT_DESCENDING : 0u, 0u, 0u};
        check_input(t, keys, n, &o, MODES_ALL, names[k]);
      }
      t_release_now(keys);
    }
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
  if (skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_buffer_form");
  r.s[0] ^= (uint64_t)_i;
  static const size_t sizes[] = {1, 2, 33, 257, 4097, 100003};
  size_t es = clsort_type_size(t);
  cl_command_queue q = clsort_context_queue(T_CTX);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int k = 0; k < 4; k++) {
      size_t n = sizes[s], vs = k % 2 ? 4 : 8;
      const clsort_options *o = &option_sets[k];
      unsigned char *keys = t_alloc(n * es), *want = t_alloc(n * es),
                    *vals = t_alloc((n + GUARD) * 8);
      gen_keys(&r, t, k == 2 ? D_FEW : D_UNIFORM, keys, n);
      size_t *perm = ref_permutation(t, keys, n, o);
      gather(keys, perm, n, es, want);
      for (size_t i = 0; i < n; i++) {
        uint64_t v = pair_value(i, vs);
        memcpy(vals + i * vs, &v, vs);
      }
      t_poison(vals + n * vs, GUARD * vs);
      bool with_values = (s + (size_t)k) % 2 == 1;
      t_label("sort_buffer %s n=%zu %s%s", clsort_type_name(t), n, opt_name(o),
              with_values ? (vs == 4 ? " with 4-byte values" : " with 8-byte values") : "");
      cl_mem bk = t_buffer((n + GUARD) * es, NULL), bv = t_buffer((n + GUARD) * vs, vals);
      cl_event written = NULL, done = NULL;
      ASSERT_CL(clEnqueueWriteBuffer(q, bk, CL_FALSE, 0, n * es, keys, 0, NULL, &written));
      t_defer_event(written);
      ASSERT_OK(clsort_sort_buffer(T_CTX, t, bk, with_values ? bv : NULL, with_values ? vs : 0, n,
                                   o, 1, &written, &done));
      ASSERT_NOT_NULL(done);
      t_defer_event(done);
      ASSERT_CL(clWaitForEvents(1, &done));
      cl_int exec = -1;
      ASSERT_CL(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL));
      ASSERT_EQ_I64(exec, CL_COMPLETE);
      unsigned char *got = t_read_buffer(bk, (n + GUARD) * es);
      check_sorted(t, got, n, o);
      ASSERT_EQ_ELEMS(got, want, n, es);
      ASSERT_POISON(got, n * es, (n + GUARD) * es);
      unsigned char *gv = t_read_buffer(bv, (n + GUARD) * vs);
      if (with_values) {
        if (is_stable(o))
          check_payload_exact(gv, vs, perm, n, false);
        else
          check_payload_permutation(t, keys, want, gv, vs, n, false);
      } else {
        ASSERT_EQ_ELEMS(gv, vals, n, vs); /* keys only: values untouched */
      }
      ASSERT_POISON(gv, n * vs, (n + GUARD) * vs);
      t_release_now(gv);
      t_release_now(got);
      t_release_now(bv);
      t_release_now(bk);
      t_release_now(perm);
      t_release_now(vals);
      t_release_now(want);
      t_release_now(keys);
    }
}

/* A sort whose input arrives through its wait list: the keys are written
 * on a second queue, gated on a user event that a watchdog thread opens
 * after a second, and the sort waits on that write's event. The header
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
  gen_keys(&r, t, D_UNIFORM, keys, n);
  gen_keys(&r, t, D_NARROW, old, n);
  for (size_t i = 0; i < n; i++) put_bits(CLSORT_U64, vals, i, pair_value(i, vs));
  cl_mem bk = t_buffer(n * es, old), bv = t_buffer(n * vs, vals);
  const clsort_options o = {CLSORT_RADIX, CLSORT_DESCENDING, 0u, 0u};

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
          clsort_type_name(t), n, opt_name(&o));
  t_watchdog *w = t_watchdog_start(gate, 1.0);
  clsort_status st = clsort_sort_buffer(T_CTX, t, bk, bv, vs, n, &o, 1, &written, &done);
  bool opened = t_watchdog_stop(w);
  if (done) t_defer_event(done);
  ASSERT_OK(st);
  ASSERT_NOT_NULL(done);
  if (!opened) {
    /* Returned with the gate shut: give a wrong implementation time to run
     * ahead, then open it. */
    nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    cl_int exec = -1;
    ASSERT_CL(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL));
    if (exec == CL_COMPLETE) ck_abort_msg("%s: the sort completed before its wait list", t_where());
    ASSERT_CL(clSetUserEventStatus(gate, CL_COMPLETE));
  }
  ASSERT_CL(clWaitForEvents(1, &done));
  cl_int exec = -1;
  ASSERT_CL(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL));
  ASSERT_EQ_I64(exec, CL_COMPLETE);

  size_t *perm = ref_permutation(t, keys, n, &o);
  unsigned char *want = t_alloc(n * es);
  gather(keys, perm, n, es, want);
  unsigned char *got = t_read_buffer(bk, n * es), *gv = t_read_buffer(bv, n * vs);
  ASSERT_EQ_ELEMS(got, want, n, es);
  check_payload_exact(gv, vs, perm, n, false);
}

/* Sorts chained through events with no host wait between them: the keys
 * are written, sorted ascending after the write's event, re-sorted
 * descending (over a bit range) after the first sort's event, in the same
 * buffers. Both events complete. _i = type. */
T_TEST(sort_buffer_chained) {
  clsort_type t = t_all_types[_i];
  if (skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_buffer_chained");
  r.s[0] ^= (uint64_t)_i;
  size_t n = 20011, es = clsort_type_size(t), vs = 4;
  unsigned bits = (unsigned)es * 8;
  unsigned char *keys = t_alloc(n * es), *vals = t_alloc(n * vs);
  gen_keys(&r, t, D_GAUSSIAN, keys, n);
  for (size_t i = 0; i < n; i++) put_bits(CLSORT_U32, vals, i, pair_value(i, vs));
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
  size_t *perm = ref_permutation(t, keys, n, &up);
  unsigned char *want = t_alloc(n * es);
  gather(keys, perm, n, es, want);
  size_t *perm2 = ref_permutation(t, want, n, &down);
  for (size_t i = 0; i < n; i++) perm2[i] = perm[perm2[i]];
  gather(keys, perm2, n, es, want);
  unsigned char *got = t_read_buffer(bk, n * es), *gv = t_read_buffer(bv, n * vs);
  check_sorted(t, got, n, &down);
  ASSERT_EQ_ELEMS(got, want, n, es);
  check_payload_exact(gv, vs, perm2, n, false);
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
  gen_keys(&r, t, D_UNIFORM, keys, n);
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

/* n == 0 and NULL arrays: success, nothing touched; the buffer form still
 * gives an event, after its wait list. */
T_TEST(sort_zero_length) {
  for (int ti = 0; ti < 6; ti++) {
    clsort_type t = t_all_types[ti];
    if (skip_type(t)) continue;
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
static const char *shape_;
static void shape_setup(const char *shape) {
  t_setup_no_ctx();
  shape_ = shape;
  t_setenv("CLSORT_TUNING", shape);
  clsort_status st = t_context_create(&T_CTX);
  if (st != CLSORT_SUCCESS)
    ck_abort_msg("%s: clsort_context_create with CLSORT_TUNING=%s returned %s: %s", t_where(),
                 shape, t_status_name(st), t_last_error());
}
static void tiled_setup(void) { shape_setup(TILED_TUNING); }
static void wide_setup(void) { shape_setup(WIDE_TUNING); }

/* The override took: the shape's work-group size and items. */
T_TEST(sort_tiled_shape) {
  unsigned wg = 0, items = 0;
  sscanf(shape_, "%u:%u", &wg, &items);
  char want_wg[32], want_items[32];
  snprintf(want_wg, sizeof want_wg, "-DWG_SIZE=%u ", wg);
  snprintf(want_items, sizeof want_items, "-DITEMS=%u ", items);
  const char *opts = clsort__common_options(T_CTX);
  t_label("CLSORT_TUNING=%s gives \"%s\"", shape_, opts);
  ASSERT_TRUE(strstr(opts, want_wg) != NULL);
  ASSERT_TRUE(strstr(opts, want_items) != NULL);
}

/* _i = type: uniform data around the tiles (128 and 4096 keys) and their
 * multiples, and every distribution at 1000 and 100003; both directions,
 * all modes (three at 100003). */
T_TEST(sort_tiled) {
  clsort_type t = t_all_types[_i];
  if (skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_tiled");
  r.s[0] ^= (uint64_t)_i;
  static const size_t sizes[] = {1,    2,    3,    17,   127,  128,   129,  255,
                                 256,  257,  4095, 4096, 4097, 12289, 65537};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int desc = 0; desc < 2; desc++) {
      clsort_options o = {(s + (size_t)desc) % 2 ? CLSORT_RADIX : CLSORT_AUTO,
                          (desc ? CLSORT_DESCENDING : 0u) | CLSORT_STABLE, 0u, 0u};
      check_dist(&r, t, D_UNIFORM, sizes[s], &o, MODES_ALL);
    }
  for (int dist = 0; dist < D_COUNT; dist++)
    for (int big = 0; big < 2; big++) {
      clsort_options o = {CLSORT_RADIX, (dist + big) % 2 ? CLSORT_DESCENDING : 0u, 0u, 0u};
      unsigned modes = big ? (1u << M_KEYS) | (1u << M_PAIRS8) | (1u << M_ARG4) : MODES_ALL;
      check_dist(&r, t, dist, big ? 100003 : 1000, &o, modes);
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
  if (skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sort_large");
  r.s[0] ^= (uint64_t)_i;
  clsort_options o = {CLSORT_RADIX, large_cases[_i].flags, 0u, 0u};
  check_dist(&r, t, large_cases[_i].dist, large_cases[_i].n, &o, large_cases[_i].modes);
}

/* The tile path at 2^22 + 1: u32 in every mode with one context. */
T_TEST(sort_tiled_large) {
  t_rng r;
  t_rng_init(&r, "sort_tiled_large");
  clsort_options o = {CLSORT_RADIX, _i ? CLSORT_DESCENDING : 0u, 0u, 0u};
  check_dist(&r, _i ? CLSORT_U64 : CLSORT_U32, D_UNIFORM, (1u << 22) + 1, &o,
             _i ? (1u << M_KEYS) : MODES_ALL);
}

/* ------------------------------------------------------------------ main */
/* Parts (argv[2], a comma-separated list) pick test cases, so that meson
 * can run them in parallel; no part runs them all. */
static bool part_selected(const char *name) {
  if (!t_part || !t_part[0]) return true;
  size_t len = strlen(name);
  for (const char *p = t_part; *p;) {
    const char *end = strchr(p, ',');
    size_t l = end ? (size_t)(end - p) : strlen(p);
    if (l == len && strncmp(p, name, len) == 0) return true;
    if (!end) break;
    p = end + 1;
  }
  return false;
}

static TCase *shape_tcase(Suite *s, const char *name, void (*setup)(void)) {
  TCase *tc = tcase_create(name);
  tcase_add_checked_fixture(tc, setup, t_teardown);
  suite_add_tcase(s, tc);
  return tc;
}

static void add(Suite *s, unsigned tiers) {
  if (tiers & T_QUICK) {
    if (part_selected("matrix")) {
      TCase *tc = t_tcase(s, "matrix", true);
      tcase_add_loop_test(tc, sort_matrix, 0, 6 * D_COUNT);
    }
    if (part_selected("edges")) {
      TCase *tc = t_tcase(s, "edges", true);
      tcase_add_loop_test(tc, sort_edge_sizes, 0, 6);
      tcase_add_loop_test(tc, sort_special_values, 0, 6);
      tcase_add_loop_test(tc, sort_stability, 0, 6);
      tcase_add_loop_test(tc, sort_bit_ranges, 0, (int)NBIT_RANGES);
      tcase_add_loop_test(tc, sort_pass_skipping, 0, 6);
      tcase_add_loop_test(tc, sort_buffer_form, 0, 6);
      tcase_add_loop_test(tc, sort_buffer_chained, 0, 6);
      tcase_add_test(tc, sort_buffer_gated);
      tcase_add_test(tc, sort_zero_length);
      tcase_add_loop_test(tc, sort_scratch_memory, 0, 2);
    }
    if (part_selected("tiled")) {
      TCase *tc = shape_tcase(s, "tiled", tiled_setup);
      tcase_add_test(tc, sort_tiled_shape);
      tcase_add_loop_test(tc, sort_tiled, 0, 6);
      tcase_add_loop_test(tc, sort_special_values, 0, 6);
      tcase_add_loop_test(tc, sort_stability, 0, 6);
      tcase_add_loop_test(tc, sort_bit_ranges, 0, (int)NBIT_RANGES);
      tcase_add_loop_test(tc, sort_pass_skipping, 0, 6);
      tcase_add_loop_test(tc, sort_buffer_form, 0, 6);
    }
    if (part_selected("wide")) {
      TCase *tc = shape_tcase(s, "wide", wide_setup);
      tcase_add_test(tc, sort_tiled_shape);
      tcase_add_loop_test(tc, sort_tiled, 0, 6);
      tcase_add_loop_test(tc, sort_special_values, 0, 6);
      tcase_add_loop_test(tc, sort_bit_ranges, 0, (int)NBIT_RANGES);
      tcase_add_loop_test(tc, sort_pass_skipping, 0, 6);
    }
  }
  if (tiers & T_SLOW) {
    if (part_selected("matrix") || part_selected("edges")) {
      TCase *tc = t_tcase(s, "large", true);
      tcase_add_loop_test(tc, sort_large, 0, (int)NLARGE);
    }
    if (part_selected("tiled")) {
      TCase *tc = shape_tcase(s, "tiled_large", tiled_setup);
      tcase_add_loop_test(tc, sort_tiled_large, 0, 2);
    }
  }
}

int main(int argc, char **argv) { return t_main(argc, argv, "sort", add); }
