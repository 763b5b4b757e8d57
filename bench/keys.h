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
  KT_COUNT_ = 6
} key_type;

static inline size_t kt_size(key_type t) { return (t == KT_U64 || t == KT_I64 || t == KT_F64) ? 8u : 4u; }

static inline int kt_is_float(key_type t) { return t == KT_F32 || t == KT_F64; }

/* "u32", ... or NULL for an unknown type. */
const char *kt_name(key_type t);
/* Parses a type name; returns 1 on success, 0 for an unknown name. */
int kt_parse(const char *name, key_type *out);

/* The raw bits of element i, zero-extended to 64 bits. */
static inline uint64_t kt_load(key_type t, const void *base, size_t i) {
  if (kt_size(t) == 4) {
    uint32_t v;
    memcpy(&v, (const unsigned char *)base + i * 4, 4);
    return v;
  }
  uint64_t v;
  memcpy(&v, (const unsigned char *)base + i * 8, 8);
  return v;
}

static inline void kt_store(key_type t, void *base, size_t i, uint64_t bits) {
  if (kt_size(t) == 4) {
    uint32_t v = (uint32_t)bits;
    memcpy((unsigned char *)base + i * 4, &v, 4);
  } else {
    memcpy((unsigned char *)base + i * 8, &bits, 8);
  }
}

/* Maps raw bits to an unsigned integer with the same order as the keys:
 * signed integers flip the sign bit; floats flip every bit when negative,
 * else the sign bit. This gives libclsort's total order for floats
 * (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN). */
static inline uint64_t kt_order(key_type t, uint64_t raw) {
  switch (t) {
    case KT_I32: return raw ^ 0x80000000u;
    case KT_F32: return (raw & 0x80000000u) ? (~raw & 0xffffffffu) : (raw | 0x80000000u);
    case KT_I64: return raw ^ 0x8000000000000000u;
    case KT_F64:
      return (raw & 0x8000000000000000u) ? ~raw : (raw | 0x8000000000000000u);
    default: return raw;
  }
}

/* The inverse of kt_order. */
static inline uint64_t kt_unorder(key_type t, uint64_t ord) {
  switch (t) {
    case KT_I32: return ord ^ 0x80000000u;
    case KT_F32: return (ord & 0x80000000u) ? (ord & 0x7fffffffu) : (~ord & 0xffffffffu);
    case KT_I64: return ord ^ 0x8000000000000000u;
    case KT_F64:
      return (ord & 0x8000000000000000u) ? (ord & 0x7fffffffffffffffu) : ~ord;
    default: return ord;
  }
}

#ifdef __cplusplus
}
#endif
#endif
