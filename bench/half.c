/* half.c: the half floats (binary16, bfloat16) as numbers, for the text
 * form of `clsort sort` and the benchmark's generators: exact in one
 * direction, rounded to nearest even in the other, in plain C (no
 * compiler half type needed). */
#include "keys.h"

#include <math.h>

/* Exponent and fraction bits: binary16 5 + 10, bfloat16 8 + 7. */
static void format_of(key_type t, int *exp_bits, int *frac_bits) {
  *exp_bits = t == KT_F16 ? 5 : 8;
  *frac_bits = t == KT_F16 ? 10 : 7;
}

double kt_half_to_double(key_type t, uint16_t h) {
  int eb, fb;
  format_of(t, &eb, &fb);
  int bias = (1 << (eb - 1)) - 1, e = (h >> fb) & ((1 << eb) - 1);
  unsigned frac = h & ((1u << fb) - 1);
  int negative = (h & 0x8000u) != 0;
  double v;
  if (e == (1 << eb) - 1)
    v = frac ? NAN : INFINITY;
  else if (e == 0)
    v = ldexp((double)frac, 1 - bias - fb);
  else
    v = ldexp((double)(frac | (1u << fb)), e - bias - fb);
  return negative ? -v : v;
}

uint16_t kt_half_from_double(key_type t, double v) {
  int eb, fb;
  format_of(t, &eb, &fb);
  int bias = (1 << (eb - 1)) - 1, emax = (1 << eb) - 1;
  unsigned sign = signbit(v) ? 0x8000u : 0u;
  if (isnan(v)) return (uint16_t)(sign | ((unsigned)emax << fb) | (1u << (fb - 1)));
  double a = fabs(v);
  if (isinf(a)) return (uint16_t)(sign | ((unsigned)emax << fb));
  int e = 0;
  if (a != 0) (void)frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  /* Below the smallest normal: a multiple of the smallest subnormal
   * (rounding up to 2^fb units gives the smallest normal's encoding). */
  if (a == 0 || e - 1 < 1 - bias)
    return (uint16_t)(sign | (unsigned)nearbyint(ldexp(a, bias - 1 + fb)));
  double q = nearbyint(ldexp(a, fb + 1 - e)); /* fb + 1 significant bits */
  if (q == ldexp(1.0, fb + 1)) { /* rounded up to the next power of two */
    q /= 2;
    e++;
  }
  int biased = e - 1 + bias;
  if (biased >= emax) return (uint16_t)(sign | ((unsigned)emax << fb));
  return (uint16_t)(sign | ((unsigned)biased << fb) | ((unsigned)q & ((1u << fb) - 1)));
}
