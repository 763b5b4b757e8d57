/* introsort_cpu.cl: the CPU shape's serial sort of one range in place, by
 * one work-item: the segmented small sort's (mcpu_segments, merge_cpu.cl)
 * and the quicksort's leaves (quick_cpu.cl). Not stable.
 *
 * An introsort in the manner of pdqsort: quicksort with an explicit stack
 * (the larger side pushed, the smaller sorted next, so at most log2(len)
 * entries), insertion sort at or below IS_SMALL keys, heapsort past
 * 2 log2(len) levels, so that no input costs more than n log n.
 * - Pivot: the median of three keys, of three medians of three (a
 *   ninther) above IS_NINTHER keys; sorted and reverse inputs split evenly.
 * - Partition: Lomuto's, branchless and cyclic (the key that moves right
 *   fills the hole the last one left): no branch depends on the data, so
 *   random keys cost no mispredictions (2 loads and 2 stores a key).
 * - Equal keys: every key left of a subrange is at most each of its keys.
 *   When the pivot equals the key just left of the subrange, no key of it
 *   is smaller; the partition then sends keys equal to the pivot left,
 *   where they are finished, and only the greater keys go on. So few
 *   distinct keys cost a level per distinct key, all equal keys one pass.
 * Keys stay as they are in memory; comparisons use their order bits
 * (keys.cl, key_to_bits_flip).
 *
 * Needs common.cl and keys.cl before it, and HAS_VALUES, VALUE_T.
 */
#if !defined(HAS_VALUES) || !defined(VALUE_T)
#error "introsort_cpu.cl needs HAS_VALUES and VALUE_T"
#endif

#define IS_SMALL 16    /* insertion sort at or below */
#define IS_NINTHER 128 /* a ninther above, a median of three at or below */
#define IS_BITS(i) key_to_bits_flip(keys[i], f)

inline void is_swap(global KEY_T *keys, global VALUE_T *vals, ulong i, ulong j) {
  KEY_T t = keys[i];
  keys[i] = keys[j];
  keys[j] = t;
#if HAS_VALUES
  VALUE_T u = vals[i];
  vals[i] = vals[j];
  vals[j] = u;
#endif
}

/* Orders keys[a] <= keys[b] <= keys[c] (three compare-swaps). */
inline void is_sort3(global KEY_T *keys, global VALUE_T *vals, ulong a, ulong b, ulong c,
                     key_flips f) {
  if (IS_BITS(b) < IS_BITS(a)) is_swap(keys, vals, a, b);
  if (IS_BITS(c) < IS_BITS(b)) is_swap(keys, vals, b, c);
  if (IS_BITS(b) < IS_BITS(a)) is_swap(keys, vals, a, b);
}

inline void is_insertion(global KEY_T *keys, global VALUE_T *vals, ulong lo, ulong hi,
                         key_flips f) {
  for (ulong i = lo + 1; i < hi; i++) {
    KEY_T k = keys[i], b = key_to_bits_flip(k, f);
#if HAS_VALUES
    VALUE_T v = vals[i];
#endif
    ulong j = i;
    for (; j > lo && IS_BITS(j - 1) > b; j--) {
      keys[j] = keys[j - 1];
#if HAS_VALUES
      vals[j] = vals[j - 1];
#endif
    }
    keys[j] = k;
#if HAS_VALUES
    vals[j] = v;
#endif
  }
}

/* Max-heap of the keys [lo, lo + len) sifted down from position `at`. */
inline void is_sift(global KEY_T *keys, global VALUE_T *vals, ulong lo, ulong len, ulong at,
                    key_flips f) {
  for (;;) {
    ulong c = 2 * at + 1, big = at;
    if (c < len && IS_BITS(lo + c) > IS_BITS(lo + big)) big = c;
    if (c + 1 < len && IS_BITS(lo + c + 1) > IS_BITS(lo + big)) big = c + 1;
    if (big == at) return;
    is_swap(keys, vals, lo + at, lo + big);
    at = big;
  }
}

inline void is_heapsort(global KEY_T *keys, global VALUE_T *vals, ulong lo, ulong hi,
                        key_flips f) {
  ulong len = hi - lo;
  for (ulong i = len / 2; i-- > 0;) is_sift(keys, vals, lo, len, i, f);
  for (ulong end = len; end-- > 1;) {
    is_swap(keys, vals, lo, lo + end);
    is_sift(keys, vals, lo, end, 0, f);
  }
}

/* Moves the keys of [lo, hi) (hi > lo) whose bits are below p, or at most
 * p with le, to the front, in any order; returns how many. Invariant
 * before key i: [lo, lt) goes left, [lt, i - 1) stays right, i - 1 is the
 * hole, and keys[lo]'s key waits in t. */
inline ulong is_partition(global KEY_T *restrict keys, global VALUE_T *restrict vals, ulong lo,
                          ulong hi, KEY_T p, bool le, key_flips f) {
  const KEY_T tk = keys[lo];
#if HAS_VALUES
  const VALUE_T tv = vals[lo];
#endif
  ulong lt = lo;
  for (ulong i = lo + 1; i < hi; i++) {
    const KEY_T x = keys[i], b = key_to_bits_flip(x, f);
    keys[i - 1] = keys[lt];
    keys[lt] = x;
#if HAS_VALUES
    const VALUE_T v = vals[i];
    vals[i - 1] = vals[lt];
    vals[lt] = v;
#endif
    lt += le ? b <= p : b < p;
  }
  const KEY_T b = key_to_bits_flip(tk, f);
  keys[hi - 1] = keys[lt];
  keys[lt] = tk;
#if HAS_VALUES
  vals[hi - 1] = vals[lt];
  vals[lt] = tv;
#endif
  lt += le ? b <= p : b < p;
  return lt - lo;
}

/* Sorts keys[first, last) (and their values) in place. */
inline void intro_sort(global KEY_T *keys, global VALUE_T *vals, ulong first, ulong last,
                       key_flips f) {
  ulong stack_lo[64], stack_hi[64];
  uint stack_depth[64], top = 0;
  ulong lo = first, hi = last;
  uint limit = 0;
  for (ulong m = hi > lo ? hi - lo : 1; m > 1; m >>= 1) limit += 2;
  uint depth = 0;
  for (;;) {
    const ulong len = hi > lo ? hi - lo : 0;
    if (len <= IS_SMALL) {
      if (len > 1) is_insertion(keys, vals, lo, hi, f);
    } else if (depth >= limit) {
      is_heapsort(keys, vals, lo, hi, f);
    } else {
      /* The pivot to keys[lo]. */
      const ulong mid = lo + len / 2;
      if (len > IS_NINTHER) {
        is_sort3(keys, vals, lo, mid, hi - 1, f);
        is_sort3(keys, vals, lo + 1, mid - 1, hi - 2, f);
        is_sort3(keys, vals, lo + 2, mid + 1, hi - 3, f);
        is_sort3(keys, vals, mid - 1, mid, mid + 1, f);
        is_swap(keys, vals, lo, mid);
      } else {
        is_sort3(keys, vals, mid, lo, hi - 1, f);
      }
      const KEY_T p = IS_BITS(lo);
      depth++;
      if (lo > first && IS_BITS(lo - 1) == p) {
        /* No key is below p: the keys equal to it are finished. */
        lo += 1 + is_partition(keys, vals, lo + 1, hi, p, true, f);
        continue;
      }
      const ulong j = lo + is_partition(keys, vals, lo + 1, hi, p, false, f);
      is_swap(keys, vals, lo, j);
      /* [lo, j) and [j + 1, hi): push the larger, go on with the smaller. */
      const bool left_small = j - lo < hi - j - 1;
      stack_lo[top] = left_small ? j + 1 : lo;
      stack_hi[top] = left_small ? hi : j;
      stack_depth[top++] = depth;
      if (left_small)
        hi = j;
      else
        lo = j + 1;
      continue;
    }
    if (top == 0) break;
    top--;
    lo = stack_lo[top];
    hi = stack_hi[top];
    depth = stack_depth[top];
  }
}
