/* key_order.c: keys of every type as unsigned numbers in libclsort's order,
 * for the host's comparisons (splitters, cuts, the host merge). */
#include "mpi_internal.h"

#include <string.h>

/* Floats (f16 and bf16 too) in total order by bits: negative numbers have
 * every bit flipped (larger magnitude sorts first), the others only the
 * sign bit. Signed integers: the sign bit flipped. Any width: 1, 2, 4 or 8
 * bytes. */
uint64_t clsort_mpi__order_key(clsort_type type, const void *keys, size_t i, bool descending) {
  size_t ks = clsort_type_size(type);
  const unsigned char *p = (const unsigned char *)keys + i * ks;
  uint64_t u = 0;
  if (ks == 1) {
    u = *p;
  } else if (ks == 2) {
    uint16_t v;
    memcpy(&v, p, 2);
    u = v;
  } else if (ks == 4) {
    uint32_t v;
    memcpy(&v, p, 4);
    u = v;
  } else {
    memcpy(&u, p, 8);
  }
  uint64_t all = ks == 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * ks)) - 1, sign = all ^ (all >> 1);
  bool is_signed = type == CLSORT_I32 || type == CLSORT_I64 || type == CLSORT_I8 ||
                   type == CLSORT_I16;
  bool is_float = type == CLSORT_F32 || type == CLSORT_F64 || type == CLSORT_F16 ||
                  type == CLSORT_BF16;
  if (is_signed) u ^= sign;
  if (is_float) u ^= (u & sign) ? all : sign;
  return descending ? u ^ all : u;
}
