/* runs.cl: the kernels of the out-of-core sort (src/api/out_of_core.c,
 * through src/sorts/runs.c). The sort cuts every sorted run of its input
 * at the same splitters; run_cuts finds the cuts, and run_iota writes the
 * input positions that an argsort's runs carry as values.
 *
 * Needs common.cl and keys.cl before it (KEY_T, KEY_BITS). No local
 * memory and no barriers. */

/* The order key of raw key bits: the sort's order (keys.cl: total order
 * for floats, descending by inversion), then its bit range. */
inline ulong run_order_key(KEY_T raw, int kind, int descending, uint shift, ulong mask) {
  return ((ulong)key_to_bits(raw, kind, descending) >> shift) & mask;
}

/* One work-item per splitter j < count; keys[0, n) is one run, sorted by
 * the order key. Splitter j is the pair (key, run) splitters[2j],
 * splitters[2j + 1]; an element of run `run` with order key k lies at or
 * below it when k < key, or k == key and run <= the splitter's run (ties
 * of equal keys break on the run, so that runs of one key still split).
 * cuts[at + j] = the number of the run's keys at or below splitter j: a
 * binary search. Work-group: WG_SIZE. */
KERNEL void run_cuts(__global const KEY_T *keys, ulong n, __global const ulong *splitters,
                     uint count, ulong run, int kind, int descending, uint shift, ulong mask,
                     __global ulong *cuts, ulong at) {
  uint j = get_global_id(0);
  if (j >= count) return;
  ulong key = splitters[2 * j];
  int upper = run <= splitters[2 * j + 1];
  ulong lo = 0, hi = n;
  while (lo < hi) {
    ulong mid = lo + (hi - lo) / 2;
    ulong k = run_order_key(keys[mid], kind, descending, shift, mask);
    int below = upper ? k <= key : k < key;
    if (below) lo = mid + 1;
    else hi = mid;
  }
  cuts[at + j] = lo;
}

/* out[i] = first + i for i < n, as 4-byte (wide == 0) or 8-byte (wide ==
 * 1) indices; the grid strides over n. Work-group: WG_SIZE. */
KERNEL void run_iota(__global uint *out32, __global ulong *out64, int wide, ulong n, ulong first) {
  ulong stride = get_global_size(0);
  for (ulong i = get_global_id(0); i < n; i += stride) {
    if (wide) out64[i] = first + i;
    else out32[i] = (uint)(first + i);
  }
}
