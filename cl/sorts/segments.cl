/* segments.cl: the global path of the segmented sort (src/sorts/
 * segmented_sort.c): after a stable sort of all keys with their input
 * positions, each position's segment id is found here, a stable sort by
 * segment id follows, and the keys and values are gathered from their
 * positions. Many small segments cost two whole-array radix sorts this way
 * instead of one work-group each.
 *
 * Needs common.cl before it, and
 *   KEY_T    the keys' bits (uint or ulong)
 *   VALUE_T  the values (uint or ulong; any type when HAS_VALUES is 0)
 *   POS_T    the positions (uint or ulong)
 *   HAS_VALUES
 * No local memory and no barriers; the grid strides over n. Work-group:
 * WG_SIZE. */
#if !defined(KEY_T) || !defined(VALUE_T) || !defined(POS_T) || !defined(HAS_VALUES)
#error "segments.cl needs KEY_T, VALUE_T, POS_T and HAS_VALUES"
#endif

/* ids[j] = the segment that holds position pos[j]: the last i with
 * offsets[i] <= pos[j], among the `count` segments (offsets has count + 1
 * entries, non-decreasing; empty segments hold no position). */
KERNEL void segment_ids(__global const POS_T *pos, ulong n, __global const ulong *offsets,
                        uint count, __global uint *ids) {
  for (ulong j = get_global_id(0); j < n; j += get_global_size(0)) {
    ulong p = pos[j];
    uint lo = 0, hi = count; /* the answer lies in [lo, hi) */
    while (hi - lo > 1) {
      uint mid = lo + (hi - lo) / 2;
      if (offsets[mid] <= p) lo = mid;
      else hi = mid;
    }
    ids[j] = lo;
  }
}

/* keys_out[j] = keys_in[pos[j]] (and the values alike). */
KERNEL void segment_gather(__global const KEY_T *keys_in, __global KEY_T *keys_out,
                           __global const VALUE_T *vals_in, __global VALUE_T *vals_out,
                           __global const POS_T *pos, ulong n) {
  for (ulong j = get_global_id(0); j < n; j += get_global_size(0)) {
    POS_T p = pos[j];
    keys_out[j] = keys_in[p];
#if HAS_VALUES
    vals_out[j] = vals_in[p];
#endif
  }
}
