/* key_order.c: keys of every type as unsigned numbers in libclsort's order,
 * for the host's comparisons (splitters, cuts, the host merge). */
#include "mpi_internal.h"

#include <string.h>

/* Floats (f16 and bf16 too) in total order by bits: negative numbers have
 * every bit flipped (larger magnitude sorts first), the others only the
 * sign bit. Signed integers: the sign bit flipped. Any width: 1, 2, 4 or 8
 * bytes. */
clsort_mpi__order clsort_mpi__order_for(clsort_type type, bool descending) {
  clsort_mpi__order o;
  o.ks = clsort_type_size(type);
  o.top = (unsigned)(8 * o.ks - 1);
  uint64_t all = o.ks == 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * o.ks)) - 1;
  uint64_t sign = all ^ (all >> 1);
  bool is_signed = type == CLSORT_I32 || type == CLSORT_I64 || type == CLSORT_I8 ||
                   type == CLSORT_I16;
  bool is_float = type == CLSORT_F32 || type == CLSORT_F64 || type == CLSORT_F16 ||
                  type == CLSORT_BF16;
  /* A float with the sign bit set has every bit flipped: the sign bit
   * (fixed) and the rest (negative). */
  o.fixed = (is_signed || is_float ? sign : 0) ^ (descending ? all : 0);
  o.negative = is_float ? all ^ sign : 0;
  return o;
}

uint64_t clsort_mpi__order_key(clsort_type type, const void *keys, size_t i, bool descending) {
  clsort_mpi__order o = clsort_mpi__order_for(type, descending);
  return clsort_mpi__order_of(&o, keys, i);
}
