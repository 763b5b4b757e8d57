/* key_order.c: keys of every type as unsigned numbers in libclsort's order,
 * for the host's comparisons (splitters, cuts, the host merge). */
#include "mpi_internal.h"

#include <string.h>

/* Floats in total order by bits: negative numbers have every bit flipped
 * (larger magnitude sorts first), the others only the sign bit. Signed
 * integers: the sign bit flipped. */
uint64_t clsort_mpi__order_key(clsort_type type, const void *keys, size_t i, bool descending) {
  uint64_t u = 0;
  if (clsort_type_size(type) == 4) {
    uint32_t v;
    memcpy(&v, (const unsigned char *)keys + i * 4, 4);
    if (type == CLSORT_I32) v ^= UINT32_C(0x80000000);
    if (type == CLSORT_F32) v ^= (v >> 31) ? UINT32_C(0xffffffff) : UINT32_C(0x80000000);
    u = v;
    if (descending) u ^= UINT32_C(0xffffffff);
  } else {
    memcpy(&u, (const unsigned char *)keys + i * 8, 8);
    if (type == CLSORT_I64) u ^= UINT64_C(1) << 63;
    if (type == CLSORT_F64) u ^= (u >> 63) ? ~UINT64_C(0) : UINT64_C(1) << 63;
    if (descending) u = ~u;
  }
  return u;
}
