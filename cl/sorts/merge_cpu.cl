/* merge_cpu.cl: the merge sort's CPU shape. One work-item per group walks
 * a contiguous range in a serial loop, straight between global buffers:
 * no local memory, no barriers, so a core merges like a C loop and the
 * cores split the ranges.
 *
 * Needs common.cl, keys.cl and introsort_cpu.cl before it, and
 *   HAS_VALUES  0 for keys only, 1 when values travel with the keys
 *   VALUE_T     uint or ulong (with HAS_VALUES)
 *
 * The sort (src/sorts/merge_cpu.c):
 *   1. mcpu_runs: work-item g sorts block g of `block` keys (a power of
 *      two; the last block may be short), which stays in the core's
 *      cache: insertion sorts of MC_RUN keys, then merges of doubling
 *      runs between its block of `out` and of `tmp`, ending in `out`;
 *      keys alone (no order of equal keys to keep) by the introsort.
 *   2. mcpu_merge, once per doubling of the run length: merges pairs of
 *      sorted runs of `run` keys; work-item g writes the outputs
 *      [g * chunk, (g + 1) * chunk) (chunk, a power of two, divides
 *      2 * run, so a range never straddles two pairs): it finds where its
 *      range starts in both runs by binary search, then merges serially.
 * Both are stable where it can be seen: on equal keys the left run's key
 * comes first. Keys stay
 * as they are in memory; comparisons use their order bits (keys.cl).
 */
#if !defined(HAS_VALUES)
#error "merge_cpu.cl needs HAS_VALUES"
#endif
#if !HAS_VALUES
#define VALUE_T uint
#endif

/* Keys per insertion-sorted run: short enough that insertion beats
 * merging, long enough to save four merge passes. */
#define MC_RUN 16

/* Writes `count` outputs at out[d] of the stable merge of A = in[ia, ea)
 * and B = in[ib, eb), starting from A[ia] and B[ib]. While both runs have
 * keys, a step has no branch on the data (a random merge mispredicts every
 * other branch): it selects the smaller key and advances one index by the
 * comparison's result. Then the rest of the run left over is copied. */
inline void mc_merge(const global KEY_T *kin, const global VALUE_T *vin, global KEY_T *kout,
                     global VALUE_T *vout, ulong ia, ulong ea, ulong ib, ulong eb, ulong d,
                     ulong count, key_flips f) {
  const ulong end = d + count;
  while (d < end && ia < ea && ib < eb) {
    KEY_T ka = kin[ia], kb = kin[ib];
    ulong take_a = key_to_bits_flip(ka, f) <= key_to_bits_flip(kb, f);
    kout[d] = take_a ? ka : kb;
#if HAS_VALUES
    vout[d] = vin[take_a ? ia : ib];
#endif
    ia += take_a;
    ib += 1 - take_a;
    d++;
  }
  /* One run is used up (or the range is full): the other continues. */
  ulong from = ia < ea ? ia : ib;
  for (; d < end; d++, from++) {
    kout[d] = kin[from];
#if HAS_VALUES
    vout[d] = vin[from];
#endif
  }
}

/* How many of the first d outputs of the stable merge of A = in[a, a + na)
 * and B = in[b, b + nb) come from A (merge path). */
inline ulong mc_corank(const global KEY_T *kin, ulong a, ulong na, ulong b, ulong nb, ulong d,
                       key_flips f) {
  ulong lo = d > nb ? d - nb : 0, hi = min(d, na);
  while (lo < hi) {
    ulong mid = (lo + hi) / 2;
    if (key_to_bits_flip(kin[a + mid], f) <= key_to_bits_flip(kin[b + d - 1 - mid], f))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Step 1. Work-item g sorts keys_in[g * block, ...) (and its values, or
 * its positions when make_index) into the same range of out/vout, using
 * the range of tmp/vtmp between passes. in_at, out_at, tmp_at: the pairs'
 * origins (common.cl's CPU_AT). */
CPU_KERNEL void mcpu_runs(const global KEY_T *keys_in, const global VALUE_T *vals_in,
                          global KEY_T *out, global VALUE_T *vout, global KEY_T *tmp,
                          global VALUE_T *vtmp, ulong2 in_at, ulong2 out_at, ulong2 tmp_at,
                          ulong n, ulong block, int kind, int desc, int make_index) {
  CPU_AT(keys_in, vals_in, in_at);
  CPU_AT(out, vout, out_at);
  CPU_AT(tmp, vtmp, tmp_at);
  const key_flips f = key_flips_for(kind, desc);
  const ulong lo = (ulong)get_group_id(0) * block, len = min(block, n - lo);
#if !HAS_VALUES
  /* Keys alone cannot show the order of equal keys, so the block needs no
   * stable sort: a copy sorted in place by the introsort. 2^22 u32 keys'
   * runs, 2 cores under a CI run, alternating: 263-282 ms by insertion
   * and merges, 179-185 ms this way. */
  for (ulong i = lo; i < lo + len; i++) out[i] = keys_in[i];
  intro_sort(out, vout, lo, lo + len, f);
  return;
#endif
  uint passes = 0;
  for (ulong r = MC_RUN; r < len; r *= 2) passes++;
  /* The insertion sorts write where the last pass must read from. */
  global KEY_T *kdst = passes % 2 ? tmp : out, *ksrc = passes % 2 ? out : tmp;
  global VALUE_T *vdst = passes % 2 ? vtmp : vout, *vsrc = passes % 2 ? vout : vtmp;
  for (ulong r0 = lo; r0 < lo + len; r0 += MC_RUN) {
    uint m = (uint)min((ulong)MC_RUN, lo + len - r0);
    KEY_T k[MC_RUN], b[MC_RUN];
    VALUE_T v[MC_RUN];
    /* Insertion sort: a key moves left past strictly greater ones only,
     * so equal keys keep their order. */
    for (uint i = 0; i < m; i++) {
      KEY_T ki = keys_in[r0 + i], bi = key_to_bits_flip(ki, f);
      VALUE_T vi = 0;
#if HAS_VALUES
      vi = make_index ? (VALUE_T)(r0 + i) : vals_in[r0 + i];
#endif
      uint j = i;
      for (; j > 0 && b[j - 1] > bi; j--) {
        k[j] = k[j - 1];
        b[j] = b[j - 1];
        v[j] = v[j - 1];
      }
      k[j] = ki;
      b[j] = bi;
      v[j] = vi;
    }
    for (uint i = 0; i < m; i++) {
      kdst[r0 + i] = k[i];
#if HAS_VALUES
      vdst[r0 + i] = v[i];
#endif
    }
  }
  for (ulong run = MC_RUN; run < len; run *= 2) {
    /* The previous destination is this pass's source. */
    global KEY_T *ks = kdst, *kd = ksrc;
    global VALUE_T *vs = vdst, *vd = vsrc;
    for (ulong a = lo; a < lo + len; a += 2 * run) {
      ulong ea = min(a + run, lo + len), eb = min(a + 2 * run, lo + len);
      mc_merge(ks, vs, kd, vd, a, ea, ea, eb, a, eb - a, f);
    }
    kdst = kd;
    ksrc = ks;
    vdst = vd;
    vsrc = vs;
  }
}

/* Step 2. Merges the pairs of sorted runs of `run` keys of keys_in into
 * keys_out (values likewise); work-item g writes [g * chunk, ...). in_at,
 * out_at: the pairs' origins (common.cl's CPU_AT). */
CPU_KERNEL void mcpu_merge(const global KEY_T *keys_in, global KEY_T *keys_out,
                           const global VALUE_T *vals_in, global VALUE_T *vals_out, ulong2 in_at,
                           ulong2 out_at, ulong n, ulong run, ulong chunk, int kind, int desc) {
  CPU_AT(keys_in, vals_in, in_at);
  CPU_AT(keys_out, vals_out, out_at);
  const key_flips f = key_flips_for(kind, desc);
  const ulong begin = (ulong)get_group_id(0) * chunk;
  if (begin >= n) return;
  const ulong pair = begin & ~(2 * run - 1); /* run and chunk are powers of two */
  const ulong na = min(run, n - pair), nb = min(run, n - pair - na);
  const ulong d0 = begin - pair, d1 = min(d0 + chunk, na + nb);
  const ulong i0 = mc_corank(keys_in, pair, na, pair + na, nb, d0, f);
  mc_merge(keys_in, vals_in, keys_out, vals_out, pair + i0, pair + na, pair + na + (d0 - i0),
           pair + na + nb, begin, d1 - d0, f);
}

/* The segmented small sort's CPU shape (for the sample sort's buckets and
 * clsort_segmented_sort's short keys-only segments, which need no
 * stability): work-item g sorts [segments[2g], segments[2g+1]) in place
 * (introsort_cpu.cl). */
CPU_KERNEL void mcpu_segments(global KEY_T *keys, global VALUE_T *vals,
                              const global ulong *segments, int kind, int desc) {
  const size_t g = get_group_id(0);
  intro_sort(keys, vals, segments[2 * g], segments[2 * g + 1], key_flips_for(kind, desc));
}
