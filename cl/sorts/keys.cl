/* keys.cl: order-preserving bit transforms shared by every sort. A key is
 * mapped to unsigned bits whose unsigned order is the key order, and back.
 * Floats map to their total order by bits:
 *   -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.
 * Descending order flips every bit, which keeps equal keys equal, so stable
 * sorts stay stable in both directions.
 *
 * Needs common.cl before it, and
 *   KEY_T     uint or ulong (the key's bits)
 *   KEY_BITS  32 or 64
 * key_kind (a run-time argument): 0 unsigned, 1 signed, 2 float.
 */
#if !defined(KEY_T) || !defined(KEY_BITS)
#error "keys.cl needs KEY_T and KEY_BITS"
#endif

#define KEY_SIGN ((KEY_T)1 << (KEY_BITS - 1))

inline KEY_T key_to_bits(KEY_T raw, int key_kind, int descending) {
  KEY_T b = raw;
  if (key_kind == 1) b = raw ^ KEY_SIGN;
  if (key_kind == 2) b = (raw & KEY_SIGN) ? ~raw : (raw ^ KEY_SIGN);
  return descending ? ~b : b;
}

inline KEY_T bits_to_key(KEY_T b, int key_kind, int descending) {
  if (descending) b = ~b;
  if (key_kind == 1) return b ^ KEY_SIGN;
  if (key_kind == 2) return (b & KEY_SIGN) ? (b ^ KEY_SIGN) : ~b;
  return b;
}

/* The `width`-bit digit of transformed bits starting at bit `shift`. */
inline uint key_digit(KEY_T bits, uint shift, uint width) {
  return (uint)(bits >> shift) & ((1u << width) - 1u);
}
