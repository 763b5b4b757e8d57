/* quick_cpu.cl: the quicksort's CPU shape (src/sorts/quick_cpu.c). One
 * work-item per group walks a contiguous range in a serial loop: no local
 * memory, no barriers.
 *
 * A level splits every active segment in two around one pivot. Each
 * segment is cut into chunks, a few per compute unit over the level:
 *   qcpu_count    work-item g: its segment's pivot, and how many keys of
 *                 chunk g go left.
 *   (the host)    reads those back, gives every chunk the places of its
 *                 left and right keys.
 *   qcpu_scatter  work-item g: chunk g's keys (and values) to those
 *                 places, each side in order: two streams into one buffer.
 * Once a segment is at most a leaf (a few per compute unit over the whole
 * input), qcpu_leaves sorts it by the serial introsort (introsort_cpu.cl)
 * in the output, after copying it there if a level left it in scratch.
 *
 * Order bits: the first level reads the caller's keys and writes their
 * order bits (keys.cl), so every later comparison is a plain unsigned one
 * whatever the key type and direction; qcpu_leaves turns them back.
 *
 * Equal keys, as pdqsort: each segment may carry a lower bound, a key
 * value that no key of it is below (the right side of a split has the
 * pivot as its bound). Keys below the pivot go left; but when the pivot
 * equals the bound, keys at most the pivot go left: all equal, finished.
 * So a segment of equal keys is finished in two levels, and each distinct
 * value costs at most two.
 *
 * Buffers are named by ids: 0 the input (never written), 1 scratch, 2 the
 * output; each kernel takes all three.
 *
 * A chunk's entry in the table (aux[QC_WORDS * g ...], ulongs):
 *   0 its segment's first key    1 the segment's length
 *   2 the chunk's first key      3 one past its last key
 *   4 flags: source id | destination id << 2 | QC_BOUND | QC_RAW
 *   5, 6  where its left and right keys go (set for qcpu_scatter)
 *   7 the segment's lower bound (order bits), with QC_BOUND
 * qcpu_count writes, at aux[results_at + 3g]: the chunk's keys that go
 * left, the pivot's order bits, 1 when keys equal to it go left.
 *
 * Needs common.cl, keys.cl and introsort_cpu.cl before it, and
 * HAS_VALUES, VALUE_T (a payload moved with each key).
 */
#define QC_MAX_SAMPLES 255

#define QC_WORDS 8
#define QC_BOUND 16 /* the segment has a lower bound (word 7) */
#define QC_RAW 32   /* the source holds the caller's keys, not order bits */

inline global KEY_T *qc_keys(ulong id, global KEY_T *k0, global KEY_T *k1, global KEY_T *k2) {
  return id == 0 ? k0 : id == 1 ? k1 : k2;
}

inline global VALUE_T *qc_vals(ulong id, global VALUE_T *v0, global VALUE_T *v1,
                               global VALUE_T *v2) {
  return id == 0 ? v0 : id == 1 ? v1 : v2;
}

/* splitmix64: the sample offsets' pseudo-random numbers. */
inline ulong qc_mix(ulong x) {
  x += 0x9E3779B97F4A7C15ul;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ul;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBul;
  return x ^ (x >> 31);
}

/* The pivot's order bits for segment [begin, begin + len) (len >=
 * samples; samples odd, at most QC_MAX_SAMPLES): the median of `samples`
 * keys, one from a fixed pseudo-random point of each of as many equal
 * strata, so that sorted, reverse and organ-pipe inputs split evenly.
 * Every chunk of the segment computes the same. */
inline KEY_T qc_pivot(const global KEY_T *keys, ulong begin, ulong len, uint samples,
                      key_flips f) {
  KEY_T s[QC_MAX_SAMPLES];
  samples = min(samples, (uint)QC_MAX_SAMPLES);
  for (uint j = 0; j < samples; j++) {
    const ulong lo = (ulong)j * len / samples, hi = (ulong)(j + 1) * len / samples;
    const ulong at = begin + lo + qc_mix(begin * 31 + len * 0x9E37 + j) % (hi - lo);
    const KEY_T b = key_to_bits_flip(keys[at], f);
    uint i = j;
    for (; i > 0 && s[i - 1] > b; i--) s[i] = s[i - 1];
    s[i] = b;
  }
  return s[samples / 2];
}

/* Keys of [lo, hi) that go left: below p, or at most p with le. Called
 * with constant flips and le, so that each loop is a plain compare and
 * add. */
inline ulong qc_count_left(const global KEY_T *keys, ulong lo, ulong hi, KEY_T p, bool le,
                           key_flips f) {
  ulong left = 0;
  if (le)
    for (ulong i = lo; i < hi; i++) left += key_to_bits_flip(keys[i], f) <= p;
  else
    for (ulong i = lo; i < hi; i++) left += key_to_bits_flip(keys[i], f) < p;
  return left;
}

/* Chunk g's left count, its segment's pivot and whether keys equal to it
 * go left, at aux[results_at + 3g]. Like every kernel here it takes the
 * origins of the input's pair (at0) and of the output's (at2), as
 * common.cl's CPU_AT; scratch (1) has none. */
CPU_KERNEL void qcpu_count(global KEY_T *keys0, global KEY_T *keys1, global KEY_T *keys2,
                           ulong2 at0, ulong2 at2, global ulong *aux, ulong results_at,
                           uint samples, int kind, int desc) {
  keys0 += at0.s0;
  keys2 += at2.s0;
  const size_t g = get_group_id(0);
  const global ulong *e = aux + QC_WORDS * g;
  const ulong flags = e[4];
  const global KEY_T *keys = qc_keys(flags & 3, keys0, keys1, keys2);
  KEY_T p;
  bool le;
  ulong left;
  if (flags & QC_RAW) {
    const key_flips f = key_flips_for(kind, desc);
    p = qc_pivot(keys, e[0], e[1], samples, f);
    le = false; /* the first level: no bound */
    left = qc_count_left(keys, e[2], e[3], p, false, f);
  } else {
    p = qc_pivot(keys, e[0], e[1], samples, key_flips_none());
    le = (flags & QC_BOUND) && p == (KEY_T)e[7];
    left = le ? qc_count_left(keys, e[2], e[3], p, true, key_flips_none())
              : qc_count_left(keys, e[2], e[3], p, false, key_flips_none());
  }
  global ulong *r = aux + results_at + 3 * g;
  r[0] = left;
  r[1] = p;
  r[2] = le;
}

/* Keys [lo, hi) of ks (values of vs, or their positions with make_index)
 * as order bits to kd (vd): those that go left from `left` on, the others
 * from `right` on, each side in input order. No branch on the keys: the
 * place is selected. Called with constant flips, le and make_index. */
inline void qc_split(const global KEY_T *restrict ks, const global VALUE_T *restrict vs,
                     global KEY_T *restrict kd, global VALUE_T *restrict vd, ulong lo, ulong hi,
                     ulong left, ulong right, KEY_T p, bool le, bool make_index, key_flips f) {
  for (ulong i = lo; i < hi; i++) {
    const KEY_T b = key_to_bits_flip(ks[i], f);
    const bool go = le ? b <= p : b < p;
    const ulong at = go ? left : right;
    kd[at] = b;
#if HAS_VALUES
    vd[at] = make_index ? (VALUE_T)i : vs[i];
#endif
    left += go;
    right += !go;
  }
}

/* Chunk g to its places (entry words 5 and 6) in its destination.
 * make_index: the values are the keys' positions (the first level of an
 * argsort). */
CPU_KERNEL void qcpu_scatter(global KEY_T *keys0, global KEY_T *keys1, global KEY_T *keys2,
                             global VALUE_T *vals0, global VALUE_T *vals1, global VALUE_T *vals2,
                             ulong2 at0, ulong2 at2, const global ulong *aux, ulong results_at,
                             int make_index, int kind, int desc) {
  CPU_AT(keys0, vals0, at0);
  CPU_AT(keys2, vals2, at2);
  const size_t g = get_group_id(0);
  const global ulong *e = aux + QC_WORDS * g, *r = aux + results_at + 3 * g;
  const ulong flags = e[4], lo = e[2], hi = e[3], left = e[5], right = e[6];
  const KEY_T p = (KEY_T)r[1];
  const global KEY_T *ks = qc_keys(flags & 3, keys0, keys1, keys2);
  global KEY_T *kd = qc_keys((flags >> 2) & 3, keys0, keys1, keys2);
  const global VALUE_T *vs = qc_vals(flags & 3, vals0, vals1, vals2);
  global VALUE_T *vd = qc_vals((flags >> 2) & 3, vals0, vals1, vals2);
  if (flags & QC_RAW) {
    const key_flips f = key_flips_for(kind, desc);
    if (make_index)
      qc_split(ks, vs, kd, vd, lo, hi, left, right, p, false, true, f);
    else
      qc_split(ks, vs, kd, vd, lo, hi, left, right, p, false, false, f);
  } else if (r[2]) {
    qc_split(ks, vs, kd, vd, lo, hi, left, right, p, true, false, key_flips_none());
  } else {
    qc_split(ks, vs, kd, vd, lo, hi, left, right, p, false, false, key_flips_none());
  }
}

/* Sorts keys[lo, hi) with vals[lo, hi) by the introsort. Where a key and
 * its value lie at the same place of a 4 KiB page (keys and values of one
 * size, arrays at the same page offset), the sort's four streams meet in
 * one L1 set at every step: on the 2-core AMD machine its L1's way
 * predictor then made every process in two (by where ASLR put the arrays)
 * sort u32 pairs 4x slower (the leaves 1240 against 293 ms at 2^24); on
 * Intel such pairs alias in the store-to-load check. So the values go to
 * `spare` (this work-item's room of `room` values), at a place half a
 * page from their keys', and back after the sort. */
#define QC_SAFE_GAP 256 /* bytes: closer than this (mod 4 KiB) counts as the same place */
inline void qc_sort_pairs(global KEY_T *keys, global VALUE_T *vals, ulong lo, ulong hi,
                          global VALUE_T *spare, ulong room) {
#if HAS_VALUES
  const ulong len = hi - lo, page = 4096, line_values = page / sizeof(VALUE_T);
  const ulong gap = ((ulong)(vals + lo) - (ulong)(keys + lo)) & (page - 1);
  if (sizeof(KEY_T) == sizeof(VALUE_T) && len + line_values <= room &&
      (gap < QC_SAFE_GAP || gap > page - QC_SAFE_GAP)) {
    const ulong want = ((ulong)(keys + lo) + page / 2) & (page - 1);
    global VALUE_T *tv = spare + ((want - ((ulong)spare & (page - 1))) & (page - 1)) /
                                     sizeof(VALUE_T);
    for (ulong i = 0; i < len; i++) tv[i] = vals[lo + i];
    intro_sort(keys + lo, tv, 0, len, key_flips_none());
    for (ulong i = 0; i < len; i++) vals[lo + i] = tv[i];
    return;
  }
#endif
  intro_sort(keys, vals, lo, hi, key_flips_none());
}

/* One finished range [lo, hi) of the list: into the output as order bits
 * (from the input, converted; from scratch, copied), sorted there when
 * `sort` (through `spare`, qc_sort_pairs), turned back into keys.
 * make_index: a range read from the input takes its positions as values. */
inline void qc_leaf(global KEY_T *keys0, global KEY_T *keys1, global KEY_T *keys2,
                    global VALUE_T *vals0, global VALUE_T *vals1, global VALUE_T *vals2, ulong lo,
                    ulong hi, ulong id, bool sort, bool make_index, key_flips f,
                    global VALUE_T *spare, ulong room) {
  const global KEY_T *ks = qc_keys(id, keys0, keys1, keys2);
  if (id == 0)
    for (ulong i = lo; i < hi; i++) keys2[i] = key_to_bits_flip(ks[i], f);
  else if (id == 1)
    for (ulong i = lo; i < hi; i++) keys2[i] = ks[i];
#if HAS_VALUES
  const global VALUE_T *vs = qc_vals(id, vals0, vals1, vals2);
  if (id == 0 && make_index)
    for (ulong i = lo; i < hi; i++) vals2[i] = (VALUE_T)i;
  else if (vs != vals2)
    for (ulong i = lo; i < hi; i++) vals2[i] = vs[i];
#endif
  if (sort) qc_sort_pairs(keys2, vals2, lo, hi, spare, room);
  if (f.x | f.f)
    for (ulong i = lo; i < hi; i++) keys2[i] = bits_to_key_flip(keys2[i], f);
}

/* Work-item g finishes the ranges bins[g] to bins[g + 1] - 1 (bins at
 * aux[bins_at]) of the list at aux[0] (3 ulongs each: first key, one past
 * the last, the buffer id it lies in | 4 when it needs sorting); the host
 * packs the bins evenly. Work-item g's spare values (qc_sort_pairs) are
 * [rooms[g], rooms[g + 1]) of `spare`, rooms at aux[bins_at + G + 1]
 * (all 0: none). */
CPU_KERNEL void qcpu_leaves(global KEY_T *keys0, global KEY_T *keys1, global KEY_T *keys2,
                            global VALUE_T *vals0, global VALUE_T *vals1, global VALUE_T *vals2,
                            ulong2 at0, ulong2 at2, const global ulong *aux, ulong bins_at,
                            int make_index, int kind, int desc, global VALUE_T *spare) {
  CPU_AT(keys0, vals0, at0);
  CPU_AT(keys2, vals2, at2);
  const size_t g = get_group_id(0);
  const global ulong *list = aux, *bins = aux + bins_at;
  const global ulong *rooms = bins + get_num_groups(0) + 1;
  const key_flips f = key_flips_for(kind, desc);
  for (ulong l = bins[g]; l < bins[g + 1]; l++) {
    const ulong lo = list[3 * l], hi = list[3 * l + 1], flags = list[3 * l + 2];
    qc_leaf(keys0, keys1, keys2, vals0, vals1, vals2, lo, hi, flags & 3, (flags & 4) != 0,
            make_index != 0, f, spare + rooms[g], rooms[g + 1] - rooms[g]);
  }
}
