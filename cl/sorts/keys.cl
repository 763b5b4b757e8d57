/* keys.cl: order-preserving bit transforms shared by every sort. A key is
 * mapped to unsigned bits whose unsigned order is the key order, and back.
 * Floats map to their total order by bits:
 *   -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.
 * Descending order flips every bit, which keeps equal keys equal, so stable
 * sorts stay stable in both directions.
 *
 * Needs common.cl before it, and
 *   KEY_T     uint or ulong (the key's bits); uchar or ushort for the
 *             widening of 8- and 16-bit keys (widen.cl, runs.cl)
 *   KEY_BITS  32 or 64 (8 or 16)
 * key_kind (a run-time argument): 0 unsigned, 1 signed, 2 float. A program
 * that never sees floats may define KEY_NO_FLOAT 1: key_to_bits_flip and
 * bits_to_key_flip (and their macros) then drop the sign-dependent part (about half of a
 * CPU loop's work to convert a key).
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

/* The same transforms without branches, for the CPU shape's serial loops:
 * the kind and the direction fold into three masks once per kernel, then
 * a key costs a shift, a negation, an AND and two XORs. key_flips_none()
 * is the identity (passes between the first and the last). */
typedef struct key_flips {
  KEY_T x; /* the sign flip (signed, float) and the direction */
  KEY_T f; /* the rest of the bits of a negative float: ~KEY_SIGN, or 0 */
  KEY_T d; /* the direction alone */
} key_flips;

inline key_flips key_flips_for(int key_kind, int descending) {
  key_flips k;
  k.d = descending ? ~(KEY_T)0 : (KEY_T)0;
  k.x = (key_kind ? KEY_SIGN : (KEY_T)0) ^ k.d;
  k.f = key_kind == 2 ? (KEY_T)~KEY_SIGN : (KEY_T)0; /* a narrow KEY_T promotes to int */
  return k;
}

inline key_flips key_flips_none(void) {
  key_flips k;
  k.x = k.f = k.d = 0;
  return k;
}

/* key_to_bits(raw, kind, desc) and bits_to_key(b, kind, desc) for the kind
 * and direction of k, as expressions of type T: KEY_T, or a vector of
 * them, so that the CPU shape's vector loops convert with the same code. */
#if defined(KEY_NO_FLOAT) && KEY_NO_FLOAT
#define KEY_TO_BITS_FLIP(T, raw, k) ((raw) ^ (k).x)
#define BITS_TO_KEY_FLIP(T, b, k) ((b) ^ (k).x)
#else
#define KEY_TO_BITS_FLIP(T, raw, k) \
  ((raw) ^ (k).x ^ (((T)0 - ((raw) >> (KEY_T)(KEY_BITS - 1))) & (k).f))
#define BITS_TO_KEY_FLIP(T, b, k) \
  ((b) ^ (k).x ^ (((((b) ^ (k).d) >> (KEY_T)(KEY_BITS - 1)) - (T)1) & (k).f))
#endif
inline KEY_T key_to_bits_flip(KEY_T raw, key_flips k) { return KEY_TO_BITS_FLIP(KEY_T, raw, k); }
inline KEY_T bits_to_key_flip(KEY_T b, key_flips k) { return BITS_TO_KEY_FLIP(KEY_T, b, k); }
