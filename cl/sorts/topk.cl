/* topk.cl: the steps of the radix select behind clsort_select and
 * clsort_top_k (src/sorts/top_k.c). The host finds the k-th key digit by
 * digit, from the top: each round counts the digits of the candidates
 * (the keys whose higher digits are those chosen so far), picks the digit
 * whose bucket holds rank k, and, when that bucket is much smaller than
 * the candidates, keeps only its keys (flags for the shared compact
 * primitive). The last step appends every key at or below the k-th.
 *
 * Needs common.cl and keys.cl before it (KEY_T, KEY_BITS). Only the
 * histogram uses local memory and barriers (at its top level). Work-group:
 * WG_SIZE; every kernel walks
 * elements [0, n): one work-item per element in turn on GPUs (the grid
 * strides over n), a contiguous run per work-item in the CPU shape
 * (WG_SIZE 1), where a stride would defeat the cache. */

#if WG_SIZE == 1
#define TK_FOR(i, n)                                                         \
  const ulong tk_per_ = ((n) + get_global_size(0) - 1) / get_global_size(0); \
  const ulong tk_end_ = min((n), (get_global_id(0) + 1) * tk_per_);          \
  for (ulong i = get_global_id(0) * tk_per_; i < tk_end_; i++)
#else
#define TK_FOR(i, n) for (ulong i = get_global_id(0); i < (n); i += get_global_size(0))
#endif

/* counts[d] += the number of keys of [first, first + n) whose order bits
 * match `prefix` under `mask` (the digits already chosen) and whose
 * 8-bit digit at `shift` is d. Counted in local memory, then added to
 * the 256 global counters once per group: nothing per key is written.
 * The host keeps n below 2^32 per launch. Local memory: 256 uints. */
KERNEL void topk_histogram(__global const KEY_T *keys, ulong first, ulong n, uint shift,
                           KEY_T mask, KEY_T prefix, int kind, int desc,
                           __global uint *counts) {
  local uint hist[256];
  for (uint b = get_local_id(0); b < 256; b += get_local_size(0)) hist[b] = 0;
  WG_BARRIER();
  TK_FOR(i, n) {
    KEY_T bits = key_to_bits(keys[first + i], kind, desc);
#if WG_SIZE == 1
    /* One work-item per group (the CPU shape): no atomics needed. */
    if ((bits & mask) == prefix) hist[key_digit(bits, shift, 8)]++;
#else
    if ((bits & mask) == prefix) atomic_inc(&hist[key_digit(bits, shift, 8)]);
#endif
  }
  WG_BARRIER();
  for (uint b = get_local_id(0); b < 256; b += get_local_size(0))
    if (hist[b]) atomic_add(&counts[b], hist[b]);
}

/* flags[i] = whether key i's order bits match `prefix` under `mask`: the
 * candidates that stay for the next round. */
KERNEL void topk_flag_prefix(__global const KEY_T *keys, ulong n, KEY_T mask, KEY_T prefix,
                             int kind, int desc, __global uchar *flags) {
  TK_FOR(i, n) { flags[i] = (key_to_bits(keys[i], kind, desc) & mask) == prefix; }
}

/* Appends every key whose order bits are at most `threshold` (the k-th
 * key's), and with `positions` its input position (4-byte, or 8-byte with
 * wide), at the slot a global counter hands out: in no particular order,
 * which the host restores by sorting. The host sizes the outputs for all
 * of them (it knows their count) and keeps it below 2^32. */
KERNEL void topk_append(__global const KEY_T *keys, ulong n, KEY_T threshold, int kind, int desc,
                        __global KEY_T *out_keys, int positions, int wide,
                        __global uint *pos32, __global ulong *pos64,
                        volatile __global uint *counter) {
  TK_FOR(i, n) {
    if (key_to_bits(keys[i], kind, desc) <= threshold) {
      uint at = atomic_inc(counter);
      out_keys[at] = keys[i];
      if (positions && wide) pos64[at] = i;
      if (positions && !wide) pos32[at] = (uint)i;
    }
  }
}
