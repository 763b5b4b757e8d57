/* convert.cl: 8- and 16-bit elements to and from the 32-bit types the
 * primitives' kernels run (src/primitives/convert.c), so that scan and
 * reduce take them without a template of their own:
 *   u8, u16 -> uint (zero-extended)   i8, i16 -> int (sign-extended)
 *   f16 (IEEE binary16 bits), bf16 (bfloat16 bits) -> float, exactly.
 * Back, integers keep their low bits (so a 32-bit sum, narrowed, is the
 * sum that wraps in the narrow type) and floats round to nearest even
 * (exact for a value that came from the narrow type, as min and max are);
 * a NaN stays a NaN of its sign (quiet, the top of its payload kept).
 *
 * Needs common.cl before it. Every kernel takes the 8-bit and the 16-bit
 * view of one buffer (the host passes it twice), `at`, the narrow
 * elements before the array in that buffer (a caller's host array used in
 * place on a CPU device; else 0), and `kind`, the narrow type: 0 u8, 1
 * i8, 2 u16, 3 i16, 4 f16, 5 bf16 (clsort_type - CLSORT_U8). Each view
 * moves by `at` of its own elements: only the type's view is used.
 * CHUNK_LOOP over n; work-group WG_SIZE; no local memory. */

/* The float bits of binary16 bits h: exact (subnormals normalised). */
inline uint f16_to_f32_bits(uint h) {
  uint sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1fu) return sign | 0x7f800000u | (m << 13); /* inf, NaN (payload kept) */
  if (e != 0) return sign | ((e + 112u) << 23) | (m << 13);
  if (m == 0) return sign;
  /* Subnormal: shift the leading one up to the implicit bit. */
  uint shift = clz(m) - 21u;
  return sign | ((113u - shift) << 23) | (((m << shift) & 0x3ffu) << 13);
}

/* Binary16 bits of float bits f, rounded to nearest even. */
inline ushort f32_to_f16_bits(uint f) {
  uint sign = (f >> 16) & 0x8000u, a = f & 0x7fffffffu;
  if (a > 0x7f800000u) return (ushort)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) return (ushort)(sign | 0x7c00u); /* 65520 and up: inf */
  if (a < 0x38800000u) {
    /* Below 2^-14: a multiple of 2^-24, rounded. */
    uint e = a >> 23;
    if (e < 102u) return (ushort)sign;
    uint m = (a & 0x7fffffu) | 0x800000u, shift = 126u - e;
    uint q = m >> shift, rem = m & ((1u << shift) - 1u), tie = 1u << (shift - 1u);
    q += (rem > tie || (rem == tie && (q & 1u))) ? 1u : 0u;
    return (ushort)(sign | q);
  }
  uint r = a - 0x38000000u; /* rebias the exponent: 127 -> 15 */
  r += 0xfffu + ((r >> 13) & 1u);
  return (ushort)(sign | (r >> 13));
}

/* Bfloat16 bits of float bits f, rounded to nearest even. */
inline ushort f32_to_bf16_bits(uint f) {
  if ((f & 0x7fffffffu) > 0x7f800000u) return (ushort)((f >> 16) | 0x40u);
  return (ushort)((f + 0x7fffu + ((f >> 16) & 1u)) >> 16);
}

/* out[i] = the 32-bit form of narrow element i. */
KERNEL void convert_widen(__global const uchar *in8, __global const ushort *in16, ulong at,
                          ulong n, int kind, __global uint *out) {
  in8 += at;
  in16 += at;
  CHUNK_LOOP(i, n) {
    uint w;
    switch (kind) {
      case 0: w = in8[i]; break;
      case 1: w = (uint)(int)(char)in8[i]; break;
      case 2: w = in16[i]; break;
      case 3: w = (uint)(int)(short)in16[i]; break;
      case 4: w = f16_to_f32_bits(in16[i]); break;
      default: w = (uint)in16[i] << 16; break;
    }
    out[i] = w;
  }
}

/* Narrow element i of out = the narrow form of in[i]. */
KERNEL void convert_narrow(__global const uint *in, ulong n, int kind, __global uchar *out8,
                           __global ushort *out16, ulong at) {
  out8 += at;
  out16 += at;
  CHUNK_LOOP(i, n) {
    uint w = in[i];
    if (kind < 2) out8[i] = (uchar)w;
    else if (kind < 4) out16[i] = (ushort)w;
    else if (kind == 4) out16[i] = f32_to_f16_bits(w);
    else out16[i] = f32_to_bf16_bits(w);
  }
}
