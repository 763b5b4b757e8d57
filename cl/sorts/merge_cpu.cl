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
 *   mcpu_merge_two does the same for clsort_merge's two arrays.
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

/* The order bits of key k for the merge, and back: with `floats` as
 * key_to_bits_flip and bits_to_key_flip do, else the flip alone (integers:
 * the same XOR both ways), which mc_steps is specialised for. */
#define MC_BITS(k, f, floats) ((floats) ? key_to_bits_flip(k, f) : (k) ^ (f).x)
#define MC_KEY(b, f, floats) ((floats) ? bits_to_key_flip(b, f) : (b) ^ (f).x)

/* The stable merge's steps from both ends at once: two chains of
 * dependent steps that the core overlaps. The front writes kout from df
 * up, from A's key *fa and B's *fb; the back writes down from db (its
 * first output at db - 1), from the keys below A's *ba and B's *bb, the
 * larger first and B's on ties (so the stable order holds from both ends).
 * m steps each, in which no run reaches its last key at the front or its
 * first at the back: each step loads both runs' next keys before it
 * compares, so that no load waits for the comparison; the chain from one
 * comparison to the next is a select, and a load's latency is spread over
 * two steps. Only the order bits stay in registers (the key stored is
 * converted back): x86 has 16, and the keys beside them spilled the
 * indices to the stack. */
inline void mc_steps(const global KEY_T *ka, const global VALUE_T *va, const global KEY_T *kb,
                     const global VALUE_T *vb, global KEY_T *kout, global VALUE_T *vout, ulong *fa,
                     ulong *fb, ulong df, ulong *ba, ulong *bb, ulong db, ulong m, key_flips f,
                     int floats) {
  ulong i = *fa, j = *fb, p = *ba, q = *bb;
  KEY_T bx = MC_BITS(ka[i], f, floats), by = MC_BITS(kb[j], f, floats);
  KEY_T cx = MC_BITS(ka[p - 1], f, floats), cy = MC_BITS(kb[q - 1], f, floats);
  for (ulong k = 0; k < m; k++) {
    const KEY_T bxn = MC_BITS(ka[i + 1], f, floats), byn = MC_BITS(kb[j + 1], f, floats);
    const KEY_T cxn = MC_BITS(ka[p - 2], f, floats), cyn = MC_BITS(kb[q - 2], f, floats);
    const bool take_a = bx <= by, back_a = cx > cy;
    kout[df + k] = MC_KEY(take_a ? bx : by, f, floats);
    kout[db - 1 - k] = MC_KEY(back_a ? cx : cy, f, floats);
#if HAS_VALUES
    vout[df + k] = *(take_a ? va + i : vb + j);
    vout[db - 1 - k] = *(back_a ? va + p - 1 : vb + q - 1);
#endif
    i += take_a;
    j += !take_a;
    p -= back_a;
    q -= !back_a;
    bx = take_a ? bxn : bx;
    by = take_a ? by : byn;
    cx = back_a ? cxn : cx;
    cy = back_a ? cy : cyn;
  }
  *fa = i;
  *fb = j;
  *ba = p;
  *bb = q;
}

/* Writes outputs [d0, d1) of the stable merge of A = ka[0, ea) and
 * B = kb[0, eb) (values va, vb), given that the first d0 outputs take A's
 * keys below ia0 and B's below ib0, and the first d1 those below ia1 and
 * ib1. A and B may be one buffer (the sort's runs) or two (clsort_merge).
 * No step branches on the data (a random merge mispredicts every other
 * branch): it selects the smaller key and advances one index by the
 * comparison's result. The front half comes from d0 up, the back half from
 * d1 down, in rounds of mc_steps while the runs hold enough keys (a pass
 * of 2^24 u32 keys on 2 cores: 16 ms, with values 22, against 29 and 48
 * for one chain that loads the taken run's next key after comparing); the
 * last steps of each half go one at a time, and the rest of a run left
 * over is copied. */
inline void mc_merge(const global KEY_T *ka, const global VALUE_T *va, ulong ia0, ulong ia1,
                     ulong ea, const global KEY_T *kb, const global VALUE_T *vb, ulong ib0,
                     ulong ib1, ulong eb, global KEY_T *kout, global VALUE_T *vout, ulong d0,
                     ulong d1, key_flips f) {
  ulong i = ia0, j = ib0, p = ia1, q = ib1, df = d0, db = d1;
  const ulong mid = d0 + (d1 - d0 + 1) / 2;
  for (;;) {
    /* Steps in which the front keeps a key after the one it reads ahead
     * in each run, and the back one below. */
    if (df >= mid || i + 1 >= ea || j + 1 >= eb || p < 2 || q < 2) break;
    const ulong m = min(min(mid - df, db - mid), min(min(ea - 1 - i, eb - 1 - j), min(p, q) - 1));
    if (m == 0) break;
    if (f.f)
      mc_steps(ka, va, kb, vb, kout, vout, &i, &j, df, &p, &q, db, m, f, 1);
    else
      mc_steps(ka, va, kb, vb, kout, vout, &i, &j, df, &p, &q, db, m, f, 0);
    df += m;
    db -= m;
  }
  /* The front's last steps, then the rest of its run left over. */
  while (df < mid && i < ea && j < eb) {
    KEY_T x = ka[i], y = kb[j];
    bool take_a = key_to_bits_flip(x, f) <= key_to_bits_flip(y, f);
    kout[df] = take_a ? x : y;
#if HAS_VALUES
    vout[df] = *(take_a ? va + i : vb + j);
#endif
    i += take_a;
    j += !take_a;
    df++;
  }
  {
    const bool rest_a = i < ea;
    const global KEY_T *kr = rest_a ? ka : kb;
    const global VALUE_T *vr = rest_a ? va : vb;
    for (ulong from = rest_a ? i : j; df < mid; df++, from++) {
      kout[df] = kr[from];
#if HAS_VALUES
      vout[df] = vr[from];
#endif
    }
  }
  /* The back's, downwards. */
  while (db > mid && p > 0 && q > 0) {
    KEY_T x = ka[p - 1], y = kb[q - 1];
    bool take_a = key_to_bits_flip(x, f) > key_to_bits_flip(y, f);
    kout[db - 1] = take_a ? x : y;
#if HAS_VALUES
    vout[db - 1] = *(take_a ? va + p - 1 : vb + q - 1);
#endif
    p -= take_a;
    q -= !take_a;
    db--;
  }
  {
    const bool rest_a = p > 0;
    const global KEY_T *kr = rest_a ? ka : kb;
    const global VALUE_T *vr = rest_a ? va : vb;
    for (ulong from = rest_a ? p : q; db > mid; db--, from--) {
      kout[db - 1] = kr[from - 1];
#if HAS_VALUES
      vout[db - 1] = vr[from - 1];
#endif
    }
  }
}

/* How many of the first d outputs of the stable merge of A = ka[0, na)
 * and B = kb[0, nb) come from A (merge path). */
inline ulong mc_corank(const global KEY_T *ka, ulong na, const global KEY_T *kb, ulong nb, ulong d,
                       key_flips f) {
  ulong lo = d > nb ? d - nb : 0, hi = min(d, na);
  while (lo < hi) {
    ulong mid = (lo + hi) / 2;
    if (key_to_bits_flip(ka[mid], f) <= key_to_bits_flip(kb[d - 1 - mid], f))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The stable sort of keys_in[lo, lo + len) (and its values, or its
 * positions when make_index) into the same range of out/vout, using the
 * range of tmp/vtmp between passes: insertion sorts of MC_RUN keys, then
 * merges of doubling runs, ending in out. Each run is read whole before it
 * is written, so out may be keys_in (a sort in place). */
inline void mc_stable_sort(const global KEY_T *keys_in, const global VALUE_T *vals_in,
                           global KEY_T *out, global VALUE_T *vout, global KEY_T *tmp,
                           global VALUE_T *vtmp, ulong lo, ulong len, key_flips f,
                           bool make_index) {
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
      mc_merge(ks + a, vs + a, 0, ea - a, ea - a, ks + ea, vs + ea, 0, eb - ea, eb - ea, kd, vd, a,
               eb, f);
    }
    kdst = kd;
    ksrc = ks;
    vdst = vd;
    vsrc = vs;
  }
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
  mc_stable_sort(keys_in, vals_in, out, vout, tmp, vtmp, lo, len, f, make_index != 0);
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
  const global KEY_T *ka = keys_in + pair, *kb = ka + na;
  const global VALUE_T *va = vals_in + pair, *vb = va + na;
  const ulong i0 = mc_corank(ka, na, kb, nb, d0, f), i1 = mc_corank(ka, na, kb, nb, d1, f);
  mc_merge(ka, va, i0, i1, na, kb, vb, d0 - i0, d1 - i1, nb, keys_out + pair, vals_out + pair, d0,
           d1, f);
}

/* clsort_merge's CPU shape: the stable merge of A = ka[0, na) and
 * B = kb[0, nb) (values va, vb) into ko/vo; work-item g writes the outputs
 * [g * chunk, (g + 1) * chunk). Any of the arrays may be a caller's host
 * array used in place, and several may lie in one buffer: a_at, b_at and
 * o_at are each pair's origins (common.cl's CPU_AT). Unsorted inputs give
 * co-ranks that need not agree between work-items, but every index stays
 * in its array. */
CPU_KERNEL void mcpu_merge_two(const global KEY_T *ka, const global VALUE_T *va,
                               const global KEY_T *kb, const global VALUE_T *vb, global KEY_T *ko,
                               global VALUE_T *vo, ulong2 a_at, ulong2 b_at, ulong2 o_at, ulong na,
                               ulong nb, ulong chunk, int kind, int desc) {
  CPU_AT(ka, va, a_at);
  CPU_AT(kb, vb, b_at);
  CPU_AT(ko, vo, o_at);
  const key_flips f = key_flips_for(kind, desc);
  const ulong d0 = (ulong)get_group_id(0) * chunk, n = na + nb;
  if (d0 >= n) return;
  const ulong d1 = min(d0 + chunk, n);
  const ulong i0 = mc_corank(ka, na, kb, nb, d0, f), i1 = mc_corank(ka, na, kb, nb, d1, f);
  mc_merge(ka, va, i0, i1, na, kb, vb, d0 - i0, d1 - i1, nb, ko, vo, d0, d1, f);
}

/* The segmented small sort's CPU shape (clsort_segmented_sort's short
 * segments of keys alone, which need no stability): work-item g sorts [segments[2g], segments[2g+1]) in place
 * (introsort_cpu.cl), counted from the pair's origins `at` (a caller's
 * host array used in place; else 0). */
CPU_KERNEL void mcpu_segments(global KEY_T *keys, global VALUE_T *vals, ulong2 at,
                              const global ulong *segments, int kind, int desc) {
  CPU_AT(keys, vals, at);
  const size_t g = get_group_id(0);
  intro_sort(keys, vals, segments[2 * g], segments[2 * g + 1], key_flips_for(kind, desc));
}

/* Segments longer than this take the serial radix sort (mc_radix_sort);
 * shorter ones, insertion sorts and merges, which need no digit tables.
 * 2^22 u32 pairs on 2 cores, segments of 4096: 70 ms by merges, against
 * 52 ms for a radix sort launched per segment. */
#define MC_RADIX_MIN 512
#define MC_DIGITS (KEY_BITS / 8)

/* The stable LSD sort of keys[lo, lo + len) (and vals) by the order bits'
 * bytes, back and forth through the same range of tmp/vtmp: one read
 * counts every byte, then a pass per byte that is not the same in every
 * key, ending in keys (a copy back after an odd number of passes). */
inline void mc_radix_sort(global KEY_T *keys, global VALUE_T *vals, global KEY_T *tmp,
                          global VALUE_T *vtmp, ulong lo, ulong len, key_flips f) {
  uint count[MC_DIGITS][256];
  for (uint d = 0; d < MC_DIGITS; d++)
    for (uint x = 0; x < 256; x++) count[d][x] = 0;
  for (ulong i = lo; i < lo + len; i++) {
    const KEY_T b = key_to_bits_flip(keys[i], f);
    for (uint d = 0; d < MC_DIGITS; d++) count[d][(b >> (8 * d)) & 255]++;
  }
  global KEY_T *ks = keys, *kd = tmp;
  global VALUE_T *vs = vals, *vd = vtmp;
  for (uint d = 0; d < MC_DIGITS; d++) {
    uint at = 0, one = 0;
    for (uint x = 0; x < 256; x++) {
      const uint c = count[d][x];
      one |= c == len;
      count[d][x] = at;
      at += c;
    }
    if (one) continue; /* every key has this byte: the pass would copy */
    for (ulong i = lo; i < lo + len; i++) {
      const KEY_T k = ks[i];
      const ulong to = lo + count[d][(key_to_bits_flip(k, f) >> (8 * d)) & 255]++;
      kd[to] = k;
#if HAS_VALUES
      vd[to] = vs[i];
#endif
    }
    global KEY_T *kt = ks;
    ks = kd;
    kd = kt;
    global VALUE_T *vt = vs;
    vs = vd;
    vd = vt;
  }
  if (ks != keys)
    for (ulong i = lo; i < lo + len; i++) {
      keys[i] = ks[i];
#if HAS_VALUES
      vals[i] = vs[i];
#endif
    }
}

/* Its stable form (clsort_segmented_sort's short segments with values):
 * work-item g sorts its segment in place, through the same range of
 * tmp/vtmp (scratch of the buffers' length, origin 0). */
CPU_KERNEL void mcpu_segments_stable(global KEY_T *keys, global VALUE_T *vals, global KEY_T *tmp,
                                     global VALUE_T *vtmp, ulong2 at,
                                     const global ulong *segments, int kind, int desc) {
  CPU_AT(keys, vals, at);
  const size_t g = get_group_id(0);
  const ulong lo = segments[2 * g], len = segments[2 * g + 1] - lo;
  const key_flips f = key_flips_for(kind, desc);
  if (len > MC_RADIX_MIN)
    mc_radix_sort(keys, vals, tmp, vtmp, lo, len, f);
  else
    mc_stable_sort(keys, vals, keys, vals, tmp, vtmp, lo, len, f, false);
}
