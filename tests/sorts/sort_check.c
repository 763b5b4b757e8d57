/* sort_check.c: the reference, generators and output checks that the sort
 * test programs share (see sort_check.h). */
#define _POSIX_C_SOURCE 200809L
#include "sort_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ reference */
/* A key type's order as a function of its bits, worked out once per array
 * rather than per key: the reference and the checks below visit every key
 * of every case, and took about half of the sort tests' time on CI's
 * machine when they asked the type's size, mask and kind for each key. */
typedef struct order_map {
  size_t size;
  uint64_t all, sign;
  enum { ORDER_UNSIGNED, ORDER_SIGNED, ORDER_FLOAT } kind;
} order_map;

static order_map order_map_of(clsort_type t) {
  order_map m;
  m.size = clsort_type_size(t);
  m.all = t_type_mask(t);
  m.sign = m.all ^ (m.all >> 1);
  m.kind = t_type_is_signed(t) ? ORDER_SIGNED : t_type_is_float(t) ? ORDER_FLOAT : ORDER_UNSIGNED;
  return m;
}

/* Any width: signed keys flip the sign bit; floats (the half floats too)
 * flip it when positive and every bit when negative. */
static inline uint64_t order_at(const order_map *m, const void *p, size_t i) {
  const unsigned char *at = (const unsigned char *)p + m->size * i;
  uint64_t b;
  if (m->size == 1) {
    b = *at;
  } else if (m->size == 2) {
    uint16_t v;
    memcpy(&v, at, 2);
    b = v;
  } else if (m->size == 4) {
    uint32_t v;
    memcpy(&v, at, 4);
    b = v;
  } else {
    memcpy(&b, at, 8);
  }
  if (m->kind == ORDER_SIGNED) return b ^ m->sign;
  if (m->kind == ORDER_FLOAT) return (b & m->sign) ? (~b & m->all) : (b | m->sign);
  return b;
}

uint64_t t_order_key(clsort_type t, const void *p, size_t i) {
  order_map m = order_map_of(t);
  return order_at(&m, p, i);
}

uint64_t t_from_order(clsort_type t, uint64_t u) {
  uint64_t all = t_type_mask(t), sign = all ^ (all >> 1);
  u &= all;
  if (t_type_is_signed(t)) return u ^ sign;
  if (t_type_is_float(t)) return (u & sign) ? (u & ~sign) : (~u & all);
  return u;
}

t_key_range t_range_of(clsort_type t, const clsort_options *o) {
  unsigned bits = (unsigned)clsort_type_size(t) * 8;
  unsigned end = o->end_bit ? o->end_bit : bits;
  unsigned width = end - o->begin_bit;
  t_key_range k = {o->begin_bit, width >= 64 ? UINT64_MAX : ((uint64_t)1 << width) - 1};
  return k;
}

uint64_t t_masked_key(clsort_type t, const void *p, size_t i, t_key_range k) {
  return (t_order_key(t, p, i) >> k.begin) & k.mask;
}

typedef struct ref_item {
  uint64_t key;
  size_t index;
} ref_item;

/* Sorts items by key, stably: a counting sort per byte from the lowest,
 * skipping the bytes that every key shares. Items in index order come out
 * ordered by (key, index). */
static void sort_items(ref_item *items, size_t n) {
  ref_item *tmp = t_alloc(n * sizeof *tmp + 1), *src = items, *dst = tmp;
  for (unsigned shift = 0; shift < 64 && n > 0; shift += 8) {
    size_t start[257] = {0};
    for (size_t i = 0; i < n; i++) start[((src[i].key >> shift) & 255) + 1]++;
    if (start[((src[0].key >> shift) & 255) + 1] == n) continue;
    for (int d = 0; d < 256; d++) start[d + 1] += start[d];
    for (size_t i = 0; i < n; i++) dst[start[(src[i].key >> shift) & 255]++] = src[i];
    ref_item *swap = src;
    src = dst;
    dst = swap;
  }
  if (src != items) memcpy(items, src, n * sizeof *items);
  t_release_now(tmp);
}

/* The stable order: by key (descending: by key from the largest), equal
 * keys in input order. */
size_t *t_ref_permutation(clsort_type t, const void *keys, size_t n, const clsort_options *o) {
  t_key_range k = t_range_of(t, o);
  order_map m = order_map_of(t);
  /* Descending: the complement's ascending order, ties still by index. */
  uint64_t flip = (o->flags & CLSORT_DESCENDING) ? UINT64_MAX : 0;
  ref_item *items = t_alloc(n * sizeof *items + 1);
  for (size_t i = 0; i < n; i++)
    items[i] = (ref_item){((order_at(&m, keys, i) >> k.begin) & k.mask) ^ flip, i};
  sort_items(items, n);
  size_t *perm = t_alloc(n * sizeof *perm + 1);
  for (size_t i = 0; i < n; i++) perm[i] = items[i].index;
  t_release_now(items);
  return perm;
}

void t_gather(const void *src, const size_t *perm, size_t n, size_t es, void *dst) {
  for (size_t i = 0; i < n; i++)
    memcpy((char *)dst + i * es, (const char *)src + perm[i] * es, es);
}

bool t_is_stable(const clsort_options *o) {
  return o->algorithm == CLSORT_RADIX || (o->flags & CLSORT_STABLE);
}

const char *t_opt_name(const clsort_options *o) {
  static char buf[96];
  static const char *const names[] = {"auto", "radix", "bitonic", "sample", "merge", "quick"};
  const char *alg = (unsigned)o->algorithm <= CLSORT_QUICK ? names[o->algorithm] : "algorithm?";
  snprintf(buf, sizeof buf, "%s%s%s bits [%u,%u)", alg,
           o->flags & CLSORT_DESCENDING ? " descending" : " ascending",
           o->flags & CLSORT_STABLE ? " stable" : "", o->begin_bit, o->end_bit);
  return buf;
}

/* ---------------------------------------------------------------- modes */
const char *const t_mode_names[M_COUNT] = {"sort", "sort_pairs", "sort_pairs", "argsort",
                                           "argsort"};
const size_t t_mode_payload[M_COUNT] = {0, 4, 8, 4, 8};

bool t_mode_is_argsort(int mode) { return mode == M_ARG4 || mode == M_ARG8; }

uint64_t t_pair_value(size_t i, size_t vs) {
  uint64_t v = (uint64_t)i;
  if (vs == 8) v |= (uint64_t)((uint32_t)i * 2654435761u ^ 0x5EEDu) << 32;
  return v;
}

uint64_t t_get_payload(const void *p, size_t i, size_t vs) {
  return vs == 4 ? t_get_bits(CLSORT_U32, p, i) : t_get_bits(CLSORT_U64, p, i);
}

void t_fill_pair_values(void *vals, size_t vs, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint64_t v = t_pair_value(i, vs);
    memcpy((char *)vals + i * vs, &v, vs);
  }
}

/* ---------------------------------------------------------------- checks */
void t_check_sorted(clsort_type t, const void *keys, size_t n, const clsort_options *o) {
  t_key_range k = t_range_of(t, o);
  order_map m = order_map_of(t);
  bool desc = (o->flags & CLSORT_DESCENDING) != 0;
  uint64_t b = n ? (order_at(&m, keys, 0) >> k.begin) & k.mask : 0;
  for (size_t i = 1; i < n; i++) {
    uint64_t a = b;
    b = (order_at(&m, keys, i) >> k.begin) & k.mask;
    if (desc ? a < b : a > b)
      ck_abort_msg("%s: output not sorted at %zu: order key 0x%" PRIx64 " then 0x%" PRIx64
                   " (key bits 0x%" PRIx64 " then 0x%" PRIx64 ")",
                   t_where(), i, a, b, t_get_bits(t, keys, i - 1), t_get_bits(t, keys, i));
  }
}

void t_check_payload_exact(const void *vals, size_t vs, const size_t *perm, size_t n,
                           bool indices) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t want = indices ? (uint64_t)perm[i] : t_pair_value(perm[i], vs);
    if (t_get_payload(vals, i, vs) != want && bad++ == 0) first = i;
  }
  if (bad) {
    uint64_t want = indices ? (uint64_t)perm[first] : t_pair_value(perm[first], vs);
    ck_abort_msg("%s: %zu of %zu %s differ from the stable order; first at %zu: got 0x%" PRIx64
                 ", want 0x%" PRIx64,
                 t_where(), bad, n, indices ? "indices" : "values", first,
                 t_get_payload(vals, first, vs), want);
  }
}

void t_check_payload_permutation_at(clsort_type t, const void *keys_in, const void *sorted,
                                    const void *vals, size_t vs, size_t first, size_t n,
                                    bool indices) {
  unsigned char *seen = t_alloc(n + 1);
  memset(seen, 0, n);
  size_t es = clsort_type_size(t);
  for (size_t i = 0; i < n; i++) {
    uint64_t v = t_get_payload(vals, i, vs), idx = indices ? v : v & 0xFFFFFFFFu;
    if (idx < first || idx - first >= n || (!indices && v != t_pair_value((size_t)idx, vs)))
      ck_abort_msg("%s: payload %zu is 0x%" PRIx64 ", not one that an input of [%zu, %zu) carried",
                   t_where(), i, v, first, first + n);
    if (seen[idx - first])
      ck_abort_msg("%s: input %" PRIu64 " appears twice (at %zu)", t_where(), idx, i);
    seen[idx - first] = 1;
    if (memcmp((const char *)keys_in + idx * es, (const char *)sorted + i * es, es) != 0)
      ck_abort_msg("%s: payload at %zu names input %" PRIu64 ", whose key 0x%" PRIx64
                   " is not the key there, 0x%" PRIx64,
                   t_where(), i, idx, t_get_bits(t, keys_in, (size_t)idx),
                   t_get_bits(t, sorted, i));
  }
  t_release_now(seen);
}

void t_check_payload_permutation(clsort_type t, const void *keys_in, const void *sorted,
                                 const void *vals, size_t vs, size_t n, bool indices) {
  t_check_payload_permutation_at(t, keys_in, sorted, vals, vs, 0, n, indices);
}

void t_check_outputs(clsort_type t, const void *keys, const void *want, const size_t *perm,
                     const void *got, const void *vals, size_t vs, size_t n,
                     const clsort_options *o, bool indices) {
  size_t es = clsort_type_size(t);
  if (indices) {
    ASSERT_EQ_ELEMS(got, keys, n, es); /* argsort leaves the keys alone */
  } else {
    t_check_sorted(t, got, n, o);
    ASSERT_EQ_ELEMS(got, want, n, es);
  }
  if (!vs) return;
  if (t_is_stable(o))
    t_check_payload_exact(vals, vs, perm, n, indices);
  else
    t_check_payload_permutation(t, keys, want, vals, vs, n, indices);
}

void t_check_input(clsort_type t, const void *keys, size_t n, const clsort_options *o,
                   unsigned modes, const char *what) {
  size_t es = clsort_type_size(t);
  bool stable = t_is_stable(o);
  t_key_range k = t_range_of(t, o);
  if (!stable && (k.begin != 0 || k.mask != t_type_mask(t)))
    ck_abort_msg("%s: test bug: an unstable sort over a bit range has no single answer", t_where());
  size_t *perm = t_ref_permutation(t, keys, n, o);
  unsigned char *want = t_alloc(n * es + 1), *work = t_alloc((n + GUARD) * es),
                *vals = t_alloc((n + GUARD) * 8);
  t_gather(keys, perm, n, es, want);
  for (int m = 0; m < M_COUNT; m++) {
    if (!(modes & (1u << m))) continue;
    size_t vs = t_mode_payload[m];
    bool indices = t_mode_is_argsort(m);
    if (vs)
      t_label("%s %s n=%zu %s, %s, %zu-byte %s", t_mode_names[m], clsort_type_name(t), n,
              t_opt_name(o), what, vs, indices ? "indices" : "values");
    else
      t_label("%s %s n=%zu %s, %s", t_mode_names[m], clsort_type_name(t), n, t_opt_name(o), what);
    memcpy(work, keys, n * es);
    t_poison(work + n * es, GUARD * es);
    if (m == M_KEYS) {
      ASSERT_OK(clsort_sort(T_CTX, t, work, n, o));
    } else if (!indices) {
      t_fill_pair_values(vals, vs, n);
      t_poison(vals + n * vs, GUARD * vs);
      ASSERT_OK(clsort_sort_pairs(T_CTX, t, work, vals, vs, n, o));
    } else {
      t_poison(vals, (n + GUARD) * vs);
      ASSERT_OK(clsort_argsort(T_CTX, t, work, vals, vs, n, o));
    }
    ASSERT_POISON(work, n * es, (n + GUARD) * es);
    t_check_outputs(t, keys, want, perm, work, vals, vs, n, o, indices);
    if (vs) ASSERT_POISON(vals, n * vs, (n + GUARD) * vs);
  }
  t_release_now(vals);
  t_release_now(work);
  t_release_now(want);
  t_release_now(perm);
}

/* --------------------------------------------------------- distributions */
const char *const t_dist_names[D_COUNT] = {"uniform", "gaussian",   "bucket",  "sorted",
                                           "reverse", "zero",       "few-unique", "poisson",
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
    t_put_bits(t, p, i, (uint64_t)v);
}

void t_gen_keys(t_rng *r, clsort_type t, int dist, void *p, size_t n) {
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
          t_put_bits(t, p, i, t_from_order(t, u));
        }
      }
      break;
    case D_BUCKET:
      /* nb blocks; block b holds nb runs, run j drawn from the j-th nb-th of
       * the order space (Helman, Bader and JaJa). */
      for (size_t i = 0; i < n; i++) {
        size_t block = (n + nb - 1) / nb, j = (i % block) * nb / block;
        uint64_t u = ((uint64_t)j << lg_sub) | (t_rng_next(r) >> (64 - lg_sub));
        t_put_bits(t, p, i, t_from_order(t, u));
      }
      break;
    case D_STAGGERED:
      for (size_t i = 0; i < n; i++) {
        uint64_t b = (uint64_t)(i * nb / n), j = b < nb / 2 ? 2 * b + 1 : 2 * b - nb;
        uint64_t u = (j << lg_sub) | (t_rng_next(r) >> (64 - lg_sub));
        t_put_bits(t, p, i, t_from_order(t, u));
      }
      break;
    case D_SORTED:
    case D_REVERSE: {
      t_fill_bytes(r, p, n * es);
      clsort_options o = {CLSORT_RADIX, dist == D_REVERSE ? CLSORT_DESCENDING : 0u, 0u, 0u};
      size_t *perm = t_ref_permutation(t, p, n, &o);
      unsigned char *tmp = t_alloc(n * es + 1);
      t_gather(p, perm, n, es, tmp);
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
        /* The same values in binary16, and the high halves of f32's. */
        static const uint16_t f16[16] = {0xFE00u, 0xFC00u, 0xF8E1u, 0xBC00u, 0x8001u, 0x8000u,
                                         0x0000u, 0x0001u, 0x3800u, 0x3C00u, 0x4280u, 0x78E1u,
                                         0x7C00u, 0x7E00u, 0x7E01u, 0xC280u};
        for (int k = 0; k < 16; k++)
          table[k] = es == 8 ? f64[k] : es == 4 ? f32[k] : t == CLSORT_F16 ? f16[k] : f32[k] >> 16;
      } else {
        /* The type's extremes, zero and random values. */
        table[0] = t_from_order(t, 0);
        table[1] = t_from_order(t, UINT64_MAX);
        table[2] = 0;
        for (int k = 3; k < 16; k++) table[k] = t_from_order(t, t_rng_next(r));
      }
      for (size_t i = 0; i < n; i++) t_put_bits(t, p, i, table[t_rng_below(r, 16)]);
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

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

size_t t_edge_sizes(const size_t *fixed, size_t nf, const size_t *around, size_t na, size_t max,
                    size_t *out) {
  size_t count = 0;
  for (size_t k = 0; k < nf; k++) out[count++] = fixed[k];
  for (size_t k = 0; k < na; k++) out[count++] = around[k];
  qsort(out, count, sizeof *out, cmp_size);
  size_t kept = 0;
  for (size_t k = 0; k < count; k++)
    if ((kept == 0 || out[k] != out[kept - 1]) && out[k] <= max) out[kept++] = out[k];
  return kept;
}

void t_check_edge_sweep(t_rng *r, clsort_type t, size_t (*unit_of)(clsort_type, size_t),
                        size_t (*sizes_for)(size_t unit, size_t *out),
                        clsort_options (*options)(bool desc, bool few)) {
  size_t sizes[64];
  for (int m = 0; m < M_COUNT; m++) {
    size_t unit = unit_of(t, t_mode_payload[m]);
    size_t count = sizes_for(unit, sizes);
    for (size_t s = 0; s < count; s++)
      for (int desc = 0; desc < 2; desc++) {
        if (sizes[s] > 4 * unit + 1 && desc != (int)(s % 2)) continue;
        bool few = (s + (size_t)desc) % 2;
        clsort_options o = options(desc, few);
        t_check_dist(r, t, few ? D_FEW : D_UNIFORM, sizes[s], &o, 1u << m);
      }
  }
}

void t_check_dist(t_rng *r, clsort_type t, int dist, size_t n, const clsort_options *o,
                  unsigned modes) {
  unsigned char *keys = t_alloc(n * clsort_type_size(t) + 1);
  t_gen_keys(r, t, dist, keys, n);
  t_check_input(t, keys, n, o, modes, t_dist_names[dist]);
  t_release_now(keys);
}

/* CLSORT_TEST_TYPES=u32,f64 (names as clsort_type_name gives them)
 * restricts a program to those types: tests/meson.build sets it where a
 * run covers a path whose kernels differ by key size only. */
bool t_skip_type(clsort_type t) {
  const char *only = getenv("CLSORT_TEST_TYPES");
  if (only && *only) {
    const char *name = clsort_type_name(t);
    size_t len = strlen(name);
    bool listed = false;
    for (const char *p = only; !listed;) {
      size_t item = strcspn(p, ",");
      listed = item == len && strncmp(p, name, len) == 0;
      if (p[item] == '\0') break;
      p += item + 1;
    }
    if (!listed) return true;
  }
  return t == CLSORT_F64 && !t_device_has_fp64(T_CTX);
}

/* ------------------------------------------------------- special values */
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

static const uint64_t special_u8[] = {0u, 1u, 0x7Fu, 0x80u, 0x81u, 0xFEu, 0xFFu};
static const uint64_t special_i8[] = {0x80u /* -128 */, 0x81u, 0xFEu, 0xFFu /* -1 */,
                                      0u, 1u, 0x7Eu, 0x7Fu /* 127 */};
static const uint64_t special_u16[] = {0u, 1u, 0xFFu, 0x100u, 0x7FFFu, 0x8000u, 0xFF00u,
                                       0xFFFEu, 0xFFFFu};
static const uint64_t special_i16[] = {0x8000u /* -32768 */, 0x8001u, 0xFF00u /* -256 */,
                                       0xFFFFu /* -1 */, 0u, 1u, 0xFFu, 0x100u,
                                       0x7FFEu, 0x7FFFu /* 32767 */};
static const uint64_t special_f16[] = {
    0xFFFFu /* -NaN, largest payload */, 0xFE01u, 0xFE00u /* -qNaN */, 0xFC01u /* -sNaN */,
    0xFC00u /* -inf */, 0xFBFFu /* -65504 */, 0xC000u /* -2 */, 0xBC00u /* -1 */,
    0x8400u /* -smallest normal */, 0x83FFu /* largest negative subnormal */,
    0x8001u /* smallest */, 0x8000u /* -0 */, 0x0000u /* +0 */, 0x0001u,
    0x03FFu /* subnormals */, 0x0400u /* smallest normal */, 0x3C00u /* 1 */,
    0x3C01u /* 1 + 2^-10 */, 0x4000u /* 2 */, 0x7BFFu /* 65504 */, 0x7C00u /* +inf */,
    0x7C01u /* +sNaN */, 0x7E00u /* +qNaN */, 0x7FFFu /* +NaN, largest payload */};
static const uint64_t special_bf16[] = {
    0xFFFFu /* -NaN, largest payload */, 0xFFC1u, 0xFFC0u /* -qNaN */, 0xFF81u /* -sNaN */,
    0xFF80u /* -inf */, 0xFF7Fu /* -max */, 0xC000u /* -2 */, 0xBF80u /* -1 */,
    0x8080u /* -smallest normal */, 0x807Fu /* largest negative subnormal */,
    0x8001u /* smallest */, 0x8000u /* -0 */, 0x0000u /* +0 */, 0x0001u,
    0x007Fu /* subnormals */, 0x0080u /* smallest normal */, 0x3F80u /* 1 */,
    0x3F81u /* 1 + 2^-7 */, 0x4000u /* 2 */, 0x7F7Fu /* max */, 0x7F80u /* +inf */,
    0x7F81u /* +sNaN */, 0x7FC0u /* +qNaN */, 0x7FFFu /* +NaN, largest payload */};

const uint64_t *t_special_list(clsort_type t, size_t *count) {
#define LIST_(a) (*count = sizeof a / sizeof a[0], a)
  switch (t) {
    case CLSORT_U32: return LIST_(special_u32);
    case CLSORT_I32: return LIST_(special_i32);
    case CLSORT_F32: return LIST_(special_f32);
    case CLSORT_U64: return LIST_(special_u64);
    case CLSORT_I64: return LIST_(special_i64);
    case CLSORT_U8: return LIST_(special_u8);
    case CLSORT_I8: return LIST_(special_i8);
    case CLSORT_U16: return LIST_(special_u16);
    case CLSORT_I16: return LIST_(special_i16);
    case CLSORT_F16: return LIST_(special_f16);
    case CLSORT_BF16: return LIST_(special_bf16);
    default: return LIST_(special_f64);
  }
#undef LIST_
}

void t_check_against_list(clsort_type t, const uint64_t *list, size_t count, const void *keys_in,
                          const void *out, size_t n, bool desc) {
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

void t_special_keys(t_rng *r, clsort_type t, void *keys, size_t n) {
  size_t count;
  const uint64_t *list = t_special_list(t, &count);
  for (size_t i = 0; i < n; i++) t_put_bits(t, keys, i, list[i % count]);
  for (size_t i = n; i-- > 1;) { /* shuffle */
    size_t j = (size_t)t_rng_below(r, i + 1);
    uint64_t a = t_get_bits(t, keys, i), b = t_get_bits(t, keys, j);
    t_put_bits(t, keys, i, b);
    t_put_bits(t, keys, j, a);
  }
}

/* ------------------------------------------------ parts and tile shapes */
bool t_part_selected(const char *name) {
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

const char *t_shape;

void t_shape_setup(const char *shape) {
  t_setup_no_ctx();
  t_shape = shape;
  t_setenv("CLSORT_TUNING", shape);
  clsort_status st = t_context_create(&T_CTX);
  if (st != CLSORT_SUCCESS)
    ck_abort_msg("%s: clsort_context_create with CLSORT_TUNING=%s returned %s: %s", t_where(),
                 shape, t_status_name(st), t_last_error());
}

TCase *t_shape_tcase(Suite *s, const char *name, void (*setup)(void)) {
  TCase *tc = tcase_create(name);
  tcase_add_checked_fixture(tc, setup, t_teardown);
  suite_add_tcase(s, tc);
  return tc;
}

/* One case of the buffer form: n keys of distribution `dist` written to a
 * device buffer by an event the sort waits on, sorted in place with vs-byte
 * values (with_values) or keys only (the values buffer, vs-byte elements,
 * must then stay as it was); the returned event completes; keys sorted and
 * equal to the reference; payloads in the stable order when `stable`, else
 * each with its own key; bytes past n untouched. */
void t_check_buffer_case(t_rng *r, clsort_type t, size_t n, int dist, const clsort_options *o,
                         size_t vs, bool with_values, bool stable) {
  size_t es = clsort_type_size(t);
  cl_command_queue q = clsort_context_queue(T_CTX);
  unsigned char *keys = t_alloc(n * es), *want = t_alloc(n * es),
                *vals = t_alloc((n + GUARD) * 8);
  t_gen_keys(r, t, dist, keys, n);
  size_t *perm = t_ref_permutation(t, keys, n, o);
  t_gather(keys, perm, n, es, want);
  t_fill_pair_values(vals, vs, n);
  t_poison(vals + n * vs, GUARD * vs);
  t_label("sort_buffer %s n=%zu %s%s", clsort_type_name(t), n, t_opt_name(o),
          with_values ? (vs == 4 ? " with 4-byte values" : " with 8-byte values") : ", keys only");
  cl_mem bk = t_buffer((n + GUARD) * es, NULL), bv = t_buffer((n + GUARD) * vs, vals);
  cl_event written = NULL, done = NULL;
  ASSERT_CL(clEnqueueWriteBuffer(q, bk, CL_FALSE, 0, n * es, keys, 0, NULL, &written));
  t_defer_event(written);
  ASSERT_OK(clsort_sort_buffer(T_CTX, t, bk, with_values ? bv : NULL, with_values ? vs : 0, n, o,
                               1, &written, &done));
  ASSERT_NOT_NULL(done);
  t_defer_event(done);
  ASSERT_CL(clWaitForEvents(1, &done));
  cl_int exec = -1;
  ASSERT_CL(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL));
  ASSERT_EQ_I64(exec, CL_COMPLETE);
  unsigned char *got = t_read_buffer(bk, (n + GUARD) * es);
  t_check_sorted(t, got, n, o);
  ASSERT_EQ_ELEMS(got, want, n, es);
  ASSERT_POISON(got, n * es, (n + GUARD) * es);
  unsigned char *gv = t_read_buffer(bv, (n + GUARD) * vs);
  if (with_values) {
    if (stable)
      t_check_payload_exact(gv, vs, perm, n, false);
    else
      t_check_payload_permutation(t, keys, want, gv, vs, n, false);
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

/* n keys drawn from the type's special list (count entries, in order),
 * sorted with `o` into `out`: the output follows the list's order (is the
 * list itself when n == count), and every mode matches the reference. */
void t_check_specials_case(clsort_type t, const uint64_t *list, size_t count, const void *keys,
                           void *out, size_t n, const clsort_options *o, const char *what) {
  bool desc = (o->flags & CLSORT_DESCENDING) != 0;
  t_label("%s specials n=%zu %s against the hand-written order", clsort_type_name(t), n,
          t_opt_name(o));
  memcpy(out, keys, n * clsort_type_size(t));
  ASSERT_OK(clsort_sort(T_CTX, t, out, n, o));
  t_check_against_list(t, list, count, keys, out, n, desc);
  if (n == count)
    for (size_t k = 0; k < count; k++)
      ASSERT_EQ_U64(t_get_bits(t, out, k), list[desc ? count - 1 - k : k]);
  t_check_input(t, keys, n, o, MODES_ALL, what);
}

void t_check_specials_sweep(t_rng *r, clsort_type t, const size_t *sizes, size_t nsizes,
                            clsort_options (*options)(size_t s, bool desc), const char *what) {
  size_t count, es = clsort_type_size(t);
  const uint64_t *list = t_special_list(t, &count);
  for (size_t s = 0; s < nsizes; s++) {
    size_t n = sizes[s];
    unsigned char *keys = t_alloc(n * es), *out = t_alloc(n * es);
    t_special_keys(r, t, keys, n);
    for (int desc = 0; desc < 2; desc++) {
      clsort_options o = options(s, desc);
      t_check_specials_case(t, list, count, keys, out, n, &o, what);
    }
    t_release_now(out);
    t_release_now(keys);
  }
}
