/* host_algos.c: single-threaded host baselines: C loops, qsort, LSD radix. */
#include "host_algos.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ C loops */
/* One plain loop per C type, as a programmer would write it; the compiler
 * sees the concrete type, which is the point of the baseline. */
#define SCAN_LOOP(T)                                                  \
  do {                                                                \
    const T *src = (const T *)in;                                     \
    T *dst = (T *)out, sum = 0;                                       \
    if (inclusive) {                                                  \
      for (size_t i = 0; i < n; i++) dst[i] = sum = (T)(sum + src[i]); \
    } else {                                                          \
      for (size_t i = 0; i < n; i++) {                                \
        T x = src[i];                                                 \
        dst[i] = sum;                                                 \
        sum = (T)(sum + x);                                           \
      }                                                               \
    }                                                                 \
  } while (0)

void cloop_scan(key_type type, int inclusive, const void *in, void *out, size_t n) {
  switch (type) {
    case KT_U32:
    case KT_I32: SCAN_LOOP(uint32_t); break; /* signed sums wrap: use unsigned */
    case KT_F32: SCAN_LOOP(float); break;
    case KT_F64: SCAN_LOOP(double); break;
    default: SCAN_LOOP(uint64_t); break;
  }
}

#define REDUCE_LOOP(T, init_min, init_max)                                    \
  do {                                                                       \
    const T *src = (const T *)in;                                            \
    T acc = op == 0 ? (T)0 : op == 1 ? (init_min) : (init_max);               \
    if (op == 0) {                                                           \
      for (size_t i = 0; i < n; i++) acc = (T)(acc + src[i]);                \
    } else if (op == 1) {                                                    \
      for (size_t i = 0; i < n; i++) acc = src[i] < acc ? src[i] : acc;      \
    } else {                                                                 \
      for (size_t i = 0; i < n; i++) acc = src[i] > acc ? src[i] : acc;      \
    }                                                                        \
    memcpy(result, &acc, sizeof acc);                                        \
  } while (0)

void cloop_reduce(key_type type, int op, const void *in, size_t n, void *result) {
  switch (type) {
    case KT_U32: REDUCE_LOOP(uint32_t, UINT32_MAX, 0); break;
    case KT_I32:
      if (op == 0) {
        REDUCE_LOOP(uint32_t, UINT32_MAX, 0); /* wrapping sum */
      } else {
        REDUCE_LOOP(int32_t, INT32_MAX, INT32_MIN);
      }
      break;
    case KT_F32: REDUCE_LOOP(float, (float)INFINITY, -(float)INFINITY); break;
    case KT_U64: REDUCE_LOOP(uint64_t, UINT64_MAX, 0); break;
    case KT_I64:
      if (op == 0) {
        REDUCE_LOOP(uint64_t, UINT64_MAX, 0);
      } else {
        REDUCE_LOOP(int64_t, INT64_MAX, INT64_MIN);
      }
      break;
    default: REDUCE_LOOP(double, INFINITY, -INFINITY); break;
  }
}

/* Branch-free selection: every element is written, the cursor advances
 * only for kept ones (the usual fast C idiom for compaction). */
#define SELECT_LOOP(T)                                 \
  do {                                                 \
    const T *s = (const T *)in;                        \
    T *d = (T *)out;                                   \
    for (size_t i = 0; i < n; i++) {                   \
      d[kept] = s[i];                                  \
      kept += flags[i] != 0;                           \
    }                                                  \
    if (split) {                                       \
      /* Branchy: a blind write could run past the end */ \
      size_t at = kept;                                \
      for (size_t i = 0; i < n; i++) {                 \
        if (!flags[i]) d[at++] = s[i];                 \
      }                                                \
    }                                                  \
  } while (0)

size_t cloop_select(size_t elem_size, int split, const void *in, const unsigned char *flags,
                    void *out, size_t n) {
  const unsigned char *src = (const unsigned char *)in;
  unsigned char *dst = (unsigned char *)out;
  size_t kept = 0;
  if (elem_size == 4) {
    SELECT_LOOP(uint32_t);
  } else if (elem_size == 8) {
    SELECT_LOOP(uint64_t);
  } else {
    for (size_t i = 0; i < n; i++) {
      if (flags[i]) memcpy(dst + kept++ * elem_size, src + i * elem_size, elem_size);
    }
    if (split) {
      size_t at = kept;
      for (size_t i = 0; i < n; i++) {
        if (!flags[i]) memcpy(dst + at++ * elem_size, src + i * elem_size, elem_size);
      }
    }
  }
  return kept;
}

/* --------------------------------------------------------------- qsort */
#define CMP_FN(name, T, expr_a, expr_b)                    \
  static int name(const void *pa, const void *pb) {        \
    T a, b;                                                \
    memcpy(&a, pa, sizeof a);                              \
    memcpy(&b, pb, sizeof b);                              \
    return ((expr_a) > (expr_b)) - ((expr_a) < (expr_b));  \
  }

CMP_FN(cmp_u32, uint32_t, a, b)
CMP_FN(cmp_i32, int32_t, a, b)
CMP_FN(cmp_u64, uint64_t, a, b)
CMP_FN(cmp_i64, int64_t, a, b)
/* Floats compare by the total order of their bits, as libclsort sorts them. */
CMP_FN(cmp_f32, uint32_t, kt_order(KT_F32, a), kt_order(KT_F32, b))
CMP_FN(cmp_f64, uint64_t, kt_order(KT_F64, a), kt_order(KT_F64, b))
CMP_FN(cmp_u32_desc, uint32_t, b, a)
CMP_FN(cmp_i32_desc, int32_t, b, a)
CMP_FN(cmp_u64_desc, uint64_t, b, a)
CMP_FN(cmp_i64_desc, int64_t, b, a)
CMP_FN(cmp_f32_desc, uint32_t, kt_order(KT_F32, b), kt_order(KT_F32, a))
CMP_FN(cmp_f64_desc, uint64_t, kt_order(KT_F64, b), kt_order(KT_F64, a))

CMP_FN(cmp_u8, uint8_t, a, b)
CMP_FN(cmp_u16, uint16_t, a, b)

typedef int (*cmp_fn)(const void *, const void *);

static void to_order(key_type type, void *keys, size_t n, int descending, int back);

void host_qsort_keys(key_type type, void *keys, size_t n, int descending) {
  static const cmp_fn asc[KT_WIDE_COUNT_] = {cmp_u32, cmp_i32, cmp_f32, cmp_u64, cmp_i64, cmp_f64};
  static const cmp_fn desc[KT_WIDE_COUNT_] = {cmp_u32_desc, cmp_i32_desc, cmp_f32_desc,
                                              cmp_u64_desc, cmp_i64_desc, cmp_f64_desc};
  if (type < KT_WIDE_COUNT_) {
    qsort(keys, n, kt_size(type), descending ? desc[type] : asc[type]);
    return;
  }
  /* 8- and 16-bit keys: qsort of their unsigned order keys. */
  to_order(type, keys, n, descending, 0);
  qsort(keys, n, kt_size(type), kt_size(type) == 1 ? cmp_u8 : cmp_u16);
  to_order(type, keys, n, descending, 1);
}

typedef struct packed_pair {
  uint64_t order; /* order-transformed key: one comparator serves every type */
  uint64_t value;
} packed_pair;

static int cmp_pair(const void *pa, const void *pb) {
  const packed_pair *a = (const packed_pair *)pa, *b = (const packed_pair *)pb;
  return (a->order > b->order) - (a->order < b->order);
}

void host_qsort_pairs(key_type type, void *keys, void *values, size_t value_size, size_t n,
                      int descending, void *scratch) {
  packed_pair *p = (packed_pair *)scratch;
  for (size_t i = 0; i < n; i++) {
    uint64_t o = kt_order(type, kt_load(type, keys, i));
    p[i].order = descending ? ~o : o;
    p[i].value = value_size == 4 ? kt_load(KT_U32, values, i) : kt_load(KT_U64, values, i);
  }
  qsort(p, n, sizeof *p, cmp_pair);
  for (size_t i = 0; i < n; i++) {
    uint64_t o = descending ? ~p[i].order : p[i].order;
    kt_store(type, keys, i, kt_unorder(type, o & kt_mask(type)));
    if (value_size == 4) {
      kt_store(KT_U32, values, i, p[i].value);
    } else {
      kt_store(KT_U64, values, i, p[i].value);
    }
  }
}

/* --------------------------------------------------------------- radix */
/* Transforms keys to their unsigned order (inverted for descending), so the
 * passes only ever sort unsigned integers ascending. */
static void to_order(key_type type, void *keys, size_t n, int descending, int back) {
  uint64_t mask = kt_mask(type);
  for (size_t i = 0; i < n; i++) {
    uint64_t k = kt_load(type, keys, i);
    if (back) {
      k = kt_unorder(type, descending ? ~k & mask : k);
    } else {
      k = kt_order(type, k);
      if (descending) k = ~k & mask;
    }
    kt_store(type, keys, i, k);
  }
}

/* One LSD radix sort per (key width, value width); V is unused for keys. */
#define RADIX_BODY(K, V, with_values)                                                  \
  do {                                                                                 \
    enum { DIGITS = sizeof(K) };                                                       \
    size_t hist[sizeof(K)][256];                                                       \
    memset(hist, 0, sizeof hist);                                                      \
    K *src = (K *)keys, *dst = (K *)tmp_keys;                                          \
    V *vsrc = (V *)values, *vdst = (V *)tmp_values;                                    \
    for (size_t i = 0; i < n; i++) {                                                   \
      K k = src[i];                                                                    \
      for (int d = 0; d < DIGITS; d++) hist[d][(k >> (8 * d)) & 0xff]++;               \
    }                                                                                  \
    for (int d = 0; d < DIGITS; d++) {                                                 \
      /* A digit every key shares leaves the order as it is: skip it. */              \
      if (n == 0 || hist[d][(src[0] >> (8 * d)) & 0xff] == n) continue;                \
      size_t sum = 0;                                                                  \
      for (int b = 0; b < 256; b++) {                                                  \
        size_t c = hist[d][b];                                                         \
        hist[d][b] = sum;                                                              \
        sum += c;                                                                      \
      }                                                                                \
      for (size_t i = 0; i < n; i++) {                                                 \
        size_t at = hist[d][(src[i] >> (8 * d)) & 0xff]++;                              \
        dst[at] = src[i];                                                              \
        if (with_values) vdst[at] = vsrc[i];                                           \
      }                                                                                \
      K *t = src;                                                                      \
      src = dst;                                                                       \
      dst = t;                                                                         \
      V *vt = vsrc;                                                                    \
      vsrc = vdst;                                                                     \
      vdst = vt;                                                                       \
    }                                                                                  \
    if (src != (K *)keys) {                                                            \
      memcpy(keys, src, n * sizeof(K));                                                \
      if (with_values) memcpy(values, vsrc, n * sizeof(V));                            \
    }                                                                                  \
  } while (0)

/* One radix sort per key width, each dispatching on the value width. */
#define RADIX_FN(name, K)                                                           \
  static void name(void *keys, void *values, void *tmp_keys, void *tmp_values, size_t n, \
                   size_t value_size) {                                             \
    if (!values) {                                                                  \
      RADIX_BODY(K, uint32_t, 0);                                                   \
    } else if (value_size == 4) {                                                   \
      RADIX_BODY(K, uint32_t, 1);                                                   \
    } else {                                                                        \
      RADIX_BODY(K, uint64_t, 1);                                                   \
    }                                                                               \
  }

RADIX_FN(radix8, uint8_t)
RADIX_FN(radix16, uint16_t)
RADIX_FN(radix32, uint32_t)
RADIX_FN(radix64, uint64_t)

void host_radix_pairs(key_type type, void *keys, void *values, size_t value_size, void *tmp_keys,
                      void *tmp_values, size_t n, int descending) {
  to_order(type, keys, n, descending, 0);
  if (kt_size(type) == 1) {
    radix8(keys, values, tmp_keys, tmp_values, n, value_size);
  } else if (kt_size(type) == 2) {
    radix16(keys, values, tmp_keys, tmp_values, n, value_size);
  } else if (kt_size(type) == 4) {
    radix32(keys, values, tmp_keys, tmp_values, n, value_size);
  } else {
    radix64(keys, values, tmp_keys, tmp_values, n, value_size);
  }
  to_order(type, keys, n, descending, 1);
}

void host_radix_keys(key_type type, void *keys, void *tmp_keys, size_t n, int descending) {
  host_radix_pairs(type, keys, NULL, 0, tmp_keys, NULL, n, descending);
}
