/* topk.cl: the element-wise steps of the radix select behind clsort_select
 * and clsort_top_k (src/sorts/top_k.c). The host finds the k-th key digit
 * by digit, from the top: each round tags every candidate with its digit
 * (the bucket ids of the shared bucket-offsets primitive, whose scanned
 * table gives the digit histogram), picks the digit whose bucket holds
 * rank k, and keeps only that bucket's keys (flags for the shared compact
 * primitive). The last step flags every key at or below the k-th.
 *
 * Needs common.cl and keys.cl before it (KEY_T, KEY_BITS). No local
 * memory and no barriers. Work-group: WG_SIZE; every kernel walks
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

/* digits[i] = the `width`-bit digit at `shift` of key i's order bits. */
KERNEL void topk_digits(__global const KEY_T *keys, ulong n, uint shift, uint width, int kind,
                        int desc, __global uint *digits) {
  TK_FOR(i, n) { digits[i] = key_digit(key_to_bits(keys[i], kind, desc), shift, width); }
}

/* flags[i] = whether key i's digit at `shift` is `digit`: the candidates
 * that stay for the next round. */
KERNEL void topk_flag_digit(__global const KEY_T *keys, ulong n, uint shift, uint width,
                            uint digit, int kind, int desc, __global uchar *flags) {
  TK_FOR(i, n) {
    flags[i] = key_digit(key_to_bits(keys[i], kind, desc), shift, width) == digit;
  }
}

/* flags[i] = whether key i's order bits are at most `threshold`: the k-th
 * key's bits, so that the flagged keys hold the first k of the order. */
KERNEL void topk_flag_upto(__global const KEY_T *keys, ulong n, KEY_T threshold, int kind,
                           int desc, __global uchar *flags) {
  TK_FOR(i, n) { flags[i] = key_to_bits(keys[i], kind, desc) <= threshold; }
}
