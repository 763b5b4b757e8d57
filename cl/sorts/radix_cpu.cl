/* radix_cpu.cl: the radix sort's CPU shape. One work-item per group, each
 * walking a contiguous chunk in a serial loop with its own counters: no
 * barriers, no atomics. Always stable.
 *
 * Needs common.cl and keys.cl before it, and
 *   HAS_VALUES   0 for keys only, 1 when values travel with the keys
 *   VALUE_T      uint or ulong (with HAS_VALUES)
 *   OFFSET_T     uint, or ulong when n may reach 2^32
 *   RC_BITS      widest digit of a chunked pass (the top digit), <= 12
 *   RC_LOW_BITS  widest digit of a pass inside a bucket, <= 12
 *   RC_WC        1: the chunked scatter stages keys per digit and writes
 *                whole 64-byte lines, streaming (software write-combining),
 *                and sorted buckets go out by streaming stores; 0: plain
 *                stores, one a key
 *
 * The sort (src/sorts/radix_cpu.c):
 *   1. rcpu_count over the input for the top digit (the key's highest
 *      varying bits), per chunk, and the chunks' AND and OR of the key
 *      bits, from which the host finds the bits that vary at all;
 *      rcpu_scan turns the digit x chunk table into offsets and bucket
 *      starts, which the host reads.
 *   2. rcpu_scatter: the stable counting scatter of every chunk by the top
 *      digit into scratch, keys converted to order bits (keys.cl), each
 *      bucket a line further on than the one before (no cache aliasing).
 *   3. rcpu_buckets: each group sorts whole buckets, one at a time, by LSD
 *      passes over the highest digits below the top one, in its local
 *      memory (the bucket stays in cache), skipping the passes whose digit
 *      the bucket's keys share; keys that still tie on those digits (rare:
 *      the passes cover log2(bucket) + RC_SPARE_BITS bits) are put in
 *      order by the bits below, run by run; the bucket goes to the output,
 *      converted back.
 *   Buckets larger than local memory are sorted a level down the same way
 *   (rcpu_count, rcpu_scan, rcpu_scatter over the bucket by its own top
 *   digit, between scratch and the output, then rcpu_buckets, in place or
 *   back), and ranges whose keys all tie are converted (rcpu_copy). Small
 *   inputs are one bucket: rcpu_copy into scratch, then rcpu_buckets with
 *   one group.
 *
 * Chunked kernels take a range [base, base + len) of their buffers; group
 * g of G owns [g * chunk, min(len, (g + 1) * chunk)) of it. Tables are
 * digit-major: table[d * G + g].
 *
 * Kernels that move keys with their values take the origins of each pair
 * of buffers (common.cl's CPU_AT): in_at for the input pair, out_at for
 * the output pair.
 */
#if !defined(HAS_VALUES) || !defined(OFFSET_T) || !defined(RC_BITS) || !defined(RC_LOW_BITS) || \
    !defined(RC_WC)
#error "radix_cpu.cl needs HAS_VALUES, OFFSET_T, RC_BITS, RC_LOW_BITS and RC_WC"
#endif
#if HAS_VALUES && !defined(VALUE_T)
#error "radix_cpu.cl needs VALUE_T when HAS_VALUES is 1"
#endif
#if !HAS_VALUES
#define VALUE_T uint
#endif
#if RC_BITS > 12 || RC_LOW_BITS > 12
#error "radix_cpu.cl: digits of at most 12 bits"
#endif

#define RC_BINS (1u << RC_BITS)
#define RC_LOW_BINS (1u << RC_LOW_BITS)
#define RC_LOW_PASSES ((KEY_BITS + RC_LOW_BITS - 1) / RC_LOW_BITS)
/* Keys per 64-byte line: the unit the write-combining scatter flushes,
 * as a vector of keys and of values. */
#if KEY_BITS == 64
#define RC_LINE 8
#else
#define RC_LINE 16
#endif
#define KEYV CAT(KEY_T, RC_LINE)
#define VALUEV CAT(VALUE_T, RC_LINE)

inline uint rc_digit(KEY_T bits, uint shift, uint mask) { return (uint)(bits >> shift) & mask; }

#define KEYV8 CAT(KEY_T, 8)

/* The value a key at input position i carries. */
#define RC_VALUE(vin, i, make_index) ((make_index) ? (VALUE_T)(i) : (vin)[i])

/* Digit counts of the top digit per chunk, and the chunk's AND and OR of
 * every key's order bits (masks[2g], masks[2g + 1]; masks may be NULL).
 * keys are raw keys, converted by kind/desc (transform), or order bits.
 * Two interleaved histograms, so that runs of equal digits do not
 * serialise on one counter. Local: 2 x RC_BINS uints. */
CPU_KERNEL void rcpu_count(__global const KEY_T *keys, ulong base, ulong len, ulong chunk,
                           uint shift, uint width, int transform, int kind, int desc,
                           __global OFFSET_T *table, __global KEY_T *masks) {
  __local uint h0[RC_BINS], h1[RC_BINS];
  uint bins = 1u << width, mask = bins - 1u;
  for (uint d = 0; d < bins; d++) h0[d] = h1[d] = 0;
  key_flips fl = transform ? key_flips_for(kind, desc) : key_flips_none();
  ulong g = get_group_id(0), groups = get_num_groups(0);
  ulong i = g * chunk, end = min(len, i + chunk);
  __global const KEY_T *k = keys + base;
  /* Invariant: h0 + h1 count the digits of k[g * chunk, i). */
#if KEY_BITS == 64
  /* As vectors, 64-bit keys counted 3-4x slower (PoCL 3.1). */
  KEY_T all = ~(KEY_T)0, any = 0;
  for (; i + 2 <= end; i += 2) {
    KEY_T a = key_to_bits_flip(k[i], fl), b = key_to_bits_flip(k[i + 1], fl);
    all &= a & b;
    any |= a | b;
    h0[rc_digit(a, shift, mask)]++;
    h1[rc_digit(b, shift, mask)]++;
  }
#else
  /* Eight keys a step, converted, masked and cut into digits as vectors:
   * only the counting is scalar (twice as fast as a scalar loop). */
  KEYV8 all8 = ~(KEYV8)0, any8 = 0;
  for (; i + 8 <= end; i += 8) {
    KEYV8 v = vload8(0, k + i);
    v = KEY_TO_BITS_FLIP(KEYV8, v, fl);
    all8 &= v;
    any8 |= v;
    uint8 d = convert_uint8(v >> shift) & mask;
    h0[d.s0]++;
    h1[d.s1]++;
    h0[d.s2]++;
    h1[d.s3]++;
    h0[d.s4]++;
    h1[d.s5]++;
    h0[d.s6]++;
    h1[d.s7]++;
  }
  KEY_T all = all8.s0 & all8.s1 & all8.s2 & all8.s3 & all8.s4 & all8.s5 & all8.s6 & all8.s7;
  KEY_T any = any8.s0 | any8.s1 | any8.s2 | any8.s3 | any8.s4 | any8.s5 | any8.s6 | any8.s7;
#endif
  for (; i < end; i++) {
    KEY_T a = key_to_bits_flip(k[i], fl);
    all &= a;
    any |= a;
    h0[rc_digit(a, shift, mask)]++;
  }
  for (uint d = 0; d < bins; d++) table[d * groups + g] = h0[d] + h1[d];
  if (masks) {
    masks[2 * g] = all;
    masks[2 * g + 1] = any;
  }
}

/* One work-item: the exclusive scan, in place, of the bins x groups table
 * in digit-major order, so table[d * G + g] is where chunk g's first key
 * of digit d goes; starts[d] is where digit d's keys begin, starts[bins]
 * the total. */
CPU_KERNEL void rcpu_scan(__global OFFSET_T *table, uint bins, ulong groups,
                          __global OFFSET_T *starts) {
  OFFSET_T sum = 0;
  for (uint d = 0; d < bins; d++) {
    starts[d] = sum;
    __global OFFSET_T *row = table + d * groups;
    for (ulong g = 0; g < groups; g++) {
      OFFSET_T v = row[g];
      row[g] = sum;
      sum += v;
    }
  }
  starts[bins] = sum;
}

/* The stable counting scatter of chunk g of [base, base + len) of kin by
 * the `width`-bit digit at `shift`: the chunk's keys in input order, each
 * to kout at `to` + its digit's next slot (table, from rcpu_scan) + d *
 * skew. skew
 * (a multiple of RC_LINE) spaces the digits' runs apart in scratch, so
 * that runs starting a power of two apart do not share cache sets.
 * first: keys are raw, converted to order bits (and with make_index the
 * values are the positions); else keys stay order bits. Local: next
 * offsets per digit, and with RC_WC a line of keys (and values) per
 * digit. Invariant: next[d] = where the chunk's next key of digit d goes. */
CPU_KERNEL void rcpu_scatter(__global const KEY_T *kin, __global KEY_T *kout,
                             __global const VALUE_T *vin, __global VALUE_T *vout, ulong2 in_at,
                             ulong2 out_at, ulong base, ulong to, ulong len, ulong chunk,
                             uint shift, uint width, uint skew, int first, int kind, int desc,
                             __global const OFFSET_T *table, int make_index) {
  __local OFFSET_T next[RC_BINS];
  CPU_AT(kin, vin, in_at);
  CPU_AT(kout, vout, out_at);
  uint bins = 1u << width, mask = bins - 1u;
  ulong g = get_group_id(0), groups = get_num_groups(0);
  for (uint d = 0; d < bins; d++) next[d] = to + table[d * groups + g] + d * skew;
  key_flips fin = first ? key_flips_for(kind, desc) : key_flips_none();
  ulong i = base + g * chunk, end = base + min(len, g * chunk + chunk);
#if RC_WC
  /* Keys (and values) wait per digit until their line of the output is
   * full, then go out as one 64-byte store that bypasses the caches:
   * 2^width streams of single stores would thrash the caches and the TLB.
   * A line's slot is its position's low bits, so lines stay aligned; the
   * first line of a digit may start before the chunk's part of it, and is
   * written key by key, as is every line left partial at the end. */
  __local KEYV wk[RC_BINS];
#if HAS_VALUES
  __local VALUEV wv[RC_BINS];
#endif
  __local OFFSET_T from[RC_BINS];
  __local KEY_T *wks = (__local KEY_T *)wk;
#if HAS_VALUES
  __local VALUE_T *wvs = (__local VALUE_T *)wv;
#endif
  for (uint d = 0; d < bins; d++) from[d] = next[d];
  /* Whole-line stores need lines that are aligned in memory, not only in
   * the buffer: a caller's buffer over host memory may not be. */
  bool stream = (((ulong)kout | (ulong)vout) & 63u) == 0;
  for (; i < end; i++) {
    KEY_T b = key_to_bits_flip(kin[i], fin);
    uint d = rc_digit(b, shift, mask);
    OFFSET_T at = next[d];
    uint slot = (uint)at & (RC_LINE - 1u);
    wks[d * RC_LINE + slot] = b;
#if HAS_VALUES
    wvs[d * RC_LINE + slot] = RC_VALUE(vin, i, make_index);
#endif
    next[d] = at + 1;
    if (slot == RC_LINE - 1u) {
      OFFSET_T line = at - (RC_LINE - 1u);
      if (stream && line >= from[d]) {
        CPU_STREAM(wk[d], (__global KEYV *)(kout + line));
#if HAS_VALUES
        CPU_STREAM(wv[d], (__global VALUEV *)(vout + line));
#endif
      } else {
        for (OFFSET_T j = max(line, from[d]); j <= at; j++) {
          kout[j] = wks[d * RC_LINE + (uint)(j - line)];
#if HAS_VALUES
          vout[j] = wvs[d * RC_LINE + (uint)(j - line)];
#endif
        }
      }
    }
  }
  /* The lines left partial. */
  for (uint d = 0; d < bins; d++) {
    OFFSET_T stop = next[d], line = stop & ~(OFFSET_T)(RC_LINE - 1u);
    for (OFFSET_T j = max(line, from[d]); j < stop; j++) {
      kout[j] = wks[d * RC_LINE + (uint)(j - line)];
#if HAS_VALUES
      vout[j] = wvs[d * RC_LINE + (uint)(j - line)];
#endif
    }
  }
  /* Streaming stores are weakly ordered: drain them before the kernel
   * ends. */
  mem_fence(CLK_GLOBAL_MEM_FENCE);
#else
  for (; i < end; i++) {
    KEY_T b = key_to_bits_flip(kin[i], fin);
    OFFSET_T at = next[rc_digit(b, shift, mask)]++;
    kout[at] = b;
#if HAS_VALUES
    vout[at] = RC_VALUE(vin, i, make_index);
#endif
  }
#endif
}

/* Copies chunk g of [base, base + len) of kin to [to, to + len) of kout
 * (which may be kin, with to == base: a conversion in place), keys
 * converted to order bits (first) and back (last); with make_index the
 * values are the positions. */
CPU_KERNEL void rcpu_copy(__global const KEY_T *kin, __global KEY_T *kout,
                          __global const VALUE_T *vin, __global VALUE_T *vout, ulong2 in_at,
                          ulong2 out_at, ulong base, ulong to, ulong len, ulong chunk,
                          int first, int last, int kind, int desc, int make_index) {
  CPU_AT(kin, vin, in_at);
  CPU_AT(kout, vout, out_at);
  key_flips fin = first ? key_flips_for(kind, desc) : key_flips_none();
  key_flips fout = last ? key_flips_for(kind, desc) : key_flips_none();
  ulong g = get_group_id(0);
  ulong i = g * chunk, end = min(len, g * chunk + chunk);
  __global const KEY_T *ki = kin + base;
  __global KEY_T *ko = kout + to;
  for (ulong j = i; j < end; j++) ko[j] = bits_to_key_flip(key_to_bits_flip(ki[j], fin), fout);
#if HAS_VALUES
  __global VALUE_T *vo = vout + to;
  if (make_index) {
    for (ulong j = i; j < end; j++) vo[j] = (VALUE_T)(base + j);
  } else {
    __global const VALUE_T *vi = vin + base;
    for (ulong j = i; j < end; j++) vo[j] = vi[j];
  }
#endif
}

/* One LSD pass inside a bucket: the len keys (and values) at src go, by
 * the digit at `shift` (`mask` wide), to dst at their digit's next offset
 * (pos, from the bucket's histogram). Keys stay order bits. SRC and DST
 * are the address spaces, so that the pass can run between the bucket's
 * place and local memory. */
#define RC_BUCKET_PASS(NAME, SRC, DST)                                                      \
  inline void NAME(SRC const KEY_T *sk, SRC const VALUE_T *sv, DST KEY_T *dk, DST VALUE_T *dv, \
                   uint len, uint shift, uint mask, __local uint *pos) {                    \
    for (uint i = 0; i < len; i++) {                                                        \
      KEY_T b = sk[i];                                                                      \
      uint at = pos[rc_digit(b, shift, mask)]++;                                            \
      dk[at] = b;                                                                           \
      if (HAS_VALUES) dv[at] = sv[i];                                                       \
    }                                                                                       \
  }
RC_BUCKET_PASS(rc_pass_gl, __global, __local)
RC_BUCKET_PASS(rc_pass_lg, __local, __global)
RC_BUCKET_PASS(rc_pass_ll, __local, __local)

/* Histograms of passes [from, to) of the len keys at k, from one read per
 * two passes: a loop that asks per key which passes to count costs more
 * than the counting. AS: the keys' address space. */
#define RC_HISTOGRAMS(NAME, AS)                                                             \
  inline void NAME(AS const KEY_T *k, uint len, uint from, uint to, const uint *shift,      \
                   const uint *mask, __local uint *hist, uint bins) {                       \
    for (uint c = from * bins; c < to * bins; c++) hist[c] = 0;                             \
    for (uint p = from; p < to; p += 2) {                                                   \
      __local uint *h0 = hist + p * bins;                                                   \
      uint s0 = shift[p], m0 = mask[p];                                                     \
      if (p + 1 < to) {                                                                     \
        __local uint *h1 = h0 + bins;                                                       \
        uint s1 = shift[p + 1], m1 = mask[p + 1];                                           \
        for (uint i = 0; i < len; i++) {                                                    \
          KEY_T x = k[i];                                                                   \
          h0[rc_digit(x, s0, m0)]++;                                                        \
          h1[rc_digit(x, s1, m1)]++;                                                        \
        }                                                                                   \
      } else {                                                                              \
        for (uint i = 0; i < len; i++) h0[rc_digit(k[i], s0, m0)]++;                        \
      }                                                                                     \
    }                                                                                       \
  }
RC_HISTOGRAMS(rc_histograms_g, __global)
RC_HISTOGRAMS(rc_histograms_l, __local)

/* Of passes [from, to), those that move anything (x0, any of the keys, has
 * a digit that not all of the len keys share) go to active[], in order,
 * their histograms made exclusive. Returns how many. */
inline uint rc_active(KEY_T x0, uint len, uint from, uint to, const uint *shift,
                      const uint *mask, __local uint *hist, uint bins, uint *active) {
  uint count = 0;
  for (uint p = from; p < to; p++) {
    __local uint *h = hist + p * bins;
    if (h[rc_digit(x0, shift[p], mask[p])] == len) continue;
    uint sum = 0;
    for (uint d = 0; d < bins; d++) {
      uint v = h[d];
      h[d] = sum;
      sum += v;
    }
    active[count++] = p;
  }
  return count;
}

/* Runs shorter than this are put in order by an insertion sort; longer
 * ones by LSD passes, whose histograms cost 2^RC_LOW_BITS steps each. */
#define RC_RUN_SORT 64
/* The passes inside a bucket of len keys stop once the bits they cover
 * reach log2(len) + RC_SPARE_BITS: below that, keys that still tie are
 * about one in 2^RC_SPARE_BITS for uniform keys, and the runs they form
 * cost less to finish than the remaining passes would (for u64 keys in
 * buckets of 2^14, two passes and a check instead of five). */
#define RC_SPARE_BITS 6

/* The bits [lo, hi) of a key, 0 <= lo < hi <= KEY_BITS. */
inline KEY_T rc_bit_range(uint lo, uint hi) {
  return (~(KEY_T)0 >> (KEY_BITS - (hi - lo))) << lo;
}

/* The keys (order bits) at k/v of a bucket of len keys, in local memory,
 * are in order by their bits [cut, end) (the bits above are the bucket's
 * or lie outside the sort's range). Puts each run of keys that tie there
 * in order by the bits [begin, cut): an insertion sort for short runs, the
 * passes [0, first) through tk/tv for long ones. */
inline void rc_finish_runs(__local KEY_T *k, __local VALUE_T *v, uint len, uint begin, uint cut,
                           uint end, uint first, const uint *shift, const uint *mask,
                           __local uint *hist, uint bins, __local KEY_T *tk, __local VALUE_T *tv) {
  KEY_T high = rc_bit_range(cut, end), low = rc_bit_range(begin, cut);
  for (uint a = 0; a < len;) {
    KEY_T pre = k[a] & high;
    uint b = a + 1;
    while (b < len && (k[b] & high) == pre) b++;
    uint rl = b - a;
    __local KEY_T *rk = k + a;
    __local VALUE_T *rv = v + a;
    if (rl > RC_RUN_SORT) {
      uint active[RC_LOW_PASSES];
      rc_histograms_l(rk, rl, 0, first, shift, mask, hist, bins);
      uint count = rc_active(rk[0], rl, 0, first, shift, mask, hist, bins, active);
      for (uint j = 0; j < count; j++) {
        uint p = active[j];
        if (j % 2 == 0)
          rc_pass_ll(rk, rv, tk, tv, rl, shift[p], mask[p], hist + p * bins);
        else
          rc_pass_ll(tk, tv, rk, rv, rl, shift[p], mask[p], hist + p * bins);
      }
      if (count % 2) {
        for (uint i = 0; i < rl; i++) rk[i] = tk[i];
#if HAS_VALUES
        for (uint i = 0; i < rl; i++) rv[i] = tv[i];
#endif
      }
    } else {
      /* Stable: a key passes only keys greater than itself. */
      for (uint i = 1; i < rl; i++) {
        KEY_T x = rk[i], xl = x & low;
#if HAS_VALUES
        VALUE_T y = rv[i];
#endif
        uint j = i;
        for (; j > 0 && (rk[j - 1] & low) > xl; j--) {
          rk[j] = rk[j - 1];
#if HAS_VALUES
          rv[j] = rv[j - 1];
#endif
        }
        rk[j] = x;
#if HAS_VALUES
        rv[j] = y;
#endif
      }
    }
    a = b;
  }
}

/* Copies len keys (order bits) and values from local memory to dk/dv,
 * keys converted by f, the whole lines among them by streaming stores:
 * the destination's lines are then never read into the caches (a
 * bucket's last pass straight into the output read every line it
 * touched from memory first: 12% more time for the buckets). */
inline void rc_stream_out(__local const KEY_T *sk, __local const VALUE_T *sv, __global KEY_T *dk,
                          __global VALUE_T *dv, uint len, key_flips f) {
  uint head = (uint)((64u - ((ulong)dk & 63u)) & 63u) / (uint)sizeof(KEY_T), i = 0;
  if (RC_WC && ((ulong)dk & (sizeof(KEY_T) - 1u)) == 0) {
    for (; i < min(head, len); i++) dk[i] = bits_to_key_flip(sk[i], f);
    for (; i + RC_LINE <= len; i += RC_LINE) {
      KEYV line = CAT(vload, RC_LINE)(0, sk + i);
      CPU_STREAM(BITS_TO_KEY_FLIP(KEYV, line, f), (__global KEYV *)(dk + i));
    }
  }
  for (; i < len; i++) dk[i] = bits_to_key_flip(sk[i], f);
#if HAS_VALUES
  for (uint j = 0; j < len; j++) dv[j] = sv[j];
#endif
}

/* Sorts every bucket that group g owns (those starting in [g * n / G,
 * (g + 1) * n / G)) and that holds at most `cap` keys: LSD passes over the
 * bits [low_begin, low_end) in digits of low_bits, from the bucket's place
 * in keys/vals (order bits, at in_at + starts[b] + b * skew), through local
 * memory, into kout/vout at out_at + starts[b], converted back (which may
 * be the bucket's own place: everything is read before the bucket is
 * written). Passes whose digit is the same for all the bucket's keys are
 * skipped (the histograms of the passes first, from one read). Only the
 * highest passes that cover log2(len) + RC_SPARE_BITS bits run over the
 * whole bucket; the keys that still tie are finished by rc_finish_runs.
 * The last pass goes to local memory and out by rc_stream_out. Buckets
 * larger than cap are left to the host. Local: `lk`/`lv`, 2 x cap keys
 * and values; the histograms, RC_LOW_PASSES x RC_LOW_BINS uints. */
CPU_KERNEL void rcpu_buckets(__global KEY_T *keys, __global VALUE_T *vals, __global KEY_T *kout,
                             __global VALUE_T *vout, ulong2 keys_at, ulong2 kout_at,
                             ulong in_at, ulong out_at, ulong n, __global const OFFSET_T *starts,
                             uint buckets, uint skew, ulong cap, uint low_begin, uint low_end,
                             uint low_bits, int kind, int desc, __local KEY_T *lk,
                             __local VALUE_T *lv) {
  __local uint hist[RC_LOW_PASSES * RC_LOW_BINS];
  CPU_AT(keys, vals, keys_at);
  CPU_AT(kout, vout, kout_at);
  ulong g = get_group_id(0), groups = get_num_groups(0);
  ulong lo = n / groups * g + n % groups * g / groups;
  ulong hi = n / groups * (g + 1) + n % groups * (g + 1) / groups;
  uint passes = low_end > low_begin ? (low_end - low_begin + low_bits - 1) / low_bits : 0;
  uint bins = 1u << low_bits;
  /* Pass p sorts by bits [shift[p], shift[p] + width); the last may be
   * narrower. */
  uint shift[RC_LOW_PASSES], mask[RC_LOW_PASSES];
  for (uint p = 0; p < passes; p++) {
    shift[p] = low_begin + p * low_bits;
    mask[p] = (1u << min(low_bits, low_end - shift[p])) - 1u;
  }
  key_flips fout = key_flips_for(kind, desc);
  /* The bucket's last place in local memory, before it goes out. */
  __local KEY_T *fk = lk + cap;
  __local VALUE_T *fv = lv + (HAS_VALUES ? cap : 0);
  for (uint b = 0; b < buckets; b++) {
    ulong s = starts[b];
    uint len = (uint)min((ulong)starts[b + 1] - s, cap + 1);
    if (s < lo || s >= hi || len == 0 || len > cap) continue;
    __global KEY_T *bk = keys + in_at + s + b * skew;
    __global VALUE_T *bv = vals + in_at + s + b * skew;
    /* The passes [first, passes) cover enough bits: the rest are left to
     * the runs of keys that tie. */
    uint need = 32u - clz(len) + RC_SPARE_BITS, first = passes, covered = 0;
    while (first > 0 && covered < need) {
      first--;
      covered = low_end - shift[first];
    }
    uint active[RC_LOW_PASSES];
    rc_histograms_g(bk, len, first, passes, shift, mask, hist, bins);
    uint count = rc_active(bk[0], len, first, passes, shift, mask, hist, bins, active);
    if (count == 0) {
      for (uint i = 0; i < len; i++) fk[i] = bk[i];
#if HAS_VALUES
      for (uint i = 0; i < len; i++) fv[i] = bv[i];
#endif
    }
    /* Even passes read the bucket's place, odd ones local memory; the
     * last goes to fk. */
    for (uint j = 0; j < count; j++) {
      uint p = active[j];
      __local uint *pos = hist + p * bins;
      bool last = j + 1 == count;
      if (j % 2 == 0)
        rc_pass_gl(bk, bv, last ? fk : lk, last ? fv : lv, len, shift[p], mask[p], pos);
      else if (last)
        rc_pass_ll(lk, lv, fk, fv, len, shift[p], mask[p], pos);
      else
        rc_pass_lg(lk, lv, bk, bv, len, shift[p], mask[p], pos);
    }
    if (first)
      rc_finish_runs(fk, fv, len, low_begin, shift[first], low_end, first, shift, mask, hist,
                     bins, lk, lv);
    rc_stream_out(fk, fv, kout + out_at + s, vout + out_at + s, len, fout);
  }
  /* Streaming stores are weakly ordered: drain them before the kernel
   * ends. */
  mem_fence(CLK_GLOBAL_MEM_FENCE);
}
