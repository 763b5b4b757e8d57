/* keys.h: the benchmark's key types (the same numbering as clsort_type) and
 * the order-preserving bit transform that sorting checks rely on.
 *
 * Shared by the C tool and the C++/CUDA peers, so it is written in the
 * common subset of C11 and C++ and does not include the OpenCL headers. */
#ifndef BENCH_KEYS_H
#define BENCH_KEYS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Values equal clsort_type's, checked with a static assertion in cli.c. */
typedef enum key_type {
  KT_U32 = 0,
  KT_I32 = 1,
  KT_F32 = 2,
  KT_U64 = 3,
  KT_I64 = 4,
  KT_F64 = 5,
  KT_U8 = 6,
  KT_I8 = 7,
  KT_U16 = 8,
  KT_I16 = 9,
  KT_F16 = 10, /* IEEE binary16 bits */
  KT_BF16 = 11, /* bfloat16 bits */
  KT_COUNT_ = 12
} key_type;
/* The 32- and 64-bit types (the first six): what "all" means in lists of
 * types, and the only ones the primitives' benchmark runs. */
#define KT_WIDE_COUNT_ 6

static inline size_t kt_size(key_type t) {
  if (t == KT_U64 || t == KT_I64 || t == KT_F64) return 8u;
  if (t == KT_U8 || t == KT_I8) return 1u;
  return t >= KT_U16 ? 2u : 4u;
}

static inline int kt_is_half(key_type t) { return t == KT_F16 || t == KT_BF16; }
static inline int kt_is_float(key_type t) { return t == KT_F32 || t == KT_F64 || kt_is_half(t); }
static inline int kt_is_signed(key_type t) {
  return t == KT_I32 || t == KT_I64 || t == KT_I8 || t == KT_I16;
}

/* The type's bits: 0xff .. UINT64_MAX. */
static inline uint64_t kt_mask(key_type t) {
  return kt_size(t) == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * kt_size(t))) - 1;
}

/* "u32", ... or NULL for an unknown type. */
const char *kt_name(key_type t);
/* Parses a type name; returns 1 on success, 0 for an unknown name. */
int kt_parse(const char *name, key_type *out);

/* The value of half-float bits (KT_F16 or KT_BF16), exactly; and the bits
 * of the half float nearest v (ties to even; overflow to infinity; a NaN
 * becomes the quiet NaN of its sign). half.c. */
double kt_half_to_double(key_type t, uint16_t bits);
uint16_t kt_half_from_double(key_type t, double v);

/* The raw bits of element i, zero-extended to 64 bits. */
static inline uint64_t kt_load(key_type t, const void *base, size_t i) {
  size_t es = kt_size(t);
  const unsigned char *p = (const unsigned char *)base + i * es;
  if (es == 1) return *p;
  if (es == 2) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
  }
  if (es == 4) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

static inline void kt_store(key_type t, void *base, size_t i, uint64_t bits) {
  size_t es = kt_size(t);
  unsigned char *p = (unsigned char *)base + i * es;
  if (es == 1) {
    *p = (unsigned char)bits;
  } else if (es == 2) {
    uint16_t v = (uint16_t)bits;
    memcpy(p, &v, 2);
  } else if (es == 4) {
    uint32_t v = (uint32_t)bits;
    memcpy(p, &v, 4);
  } else {
    memcpy(p, &bits, 8);
  }
}

/* Maps raw bits to an unsigned integer with the same order as the keys:
 * signed integers flip the sign bit; floats flip every bit when negative,
 * else the sign bit. This gives libclsort's total order for floats
 * (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN), half floats
 * included. */
static inline uint64_t kt_order(key_type t, uint64_t raw) {
  uint64_t all = kt_mask(t), sign = all ^ (all >> 1);
  if (kt_is_signed(t)) return raw ^ sign;
  if (kt_is_float(t)) return (raw & sign) ? (~raw & all) : (raw | sign);
  return raw;
}

/* The inverse of kt_order. */
static inline uint64_t kt_unorder(key_type t, uint64_t ord) {
  uint64_t all = kt_mask(t), sign = all ^ (all >> 1);
  if (kt_is_signed(t)) return ord ^ sign;
  if (kt_is_float(t)) return (ord & sign) ? (ord & ~sign) : (~ord & all);
  return ord;
}

#ifdef __cplusplus
}
#endif
#endif
