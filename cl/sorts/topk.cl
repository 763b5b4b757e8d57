/* topk.cl: the steps of the radix select behind clsort_select and
 * clsort_top_k (src/sorts/top_k.c). The host finds the k-th key digit by
 * digit, from the top: each round counts the digits of the candidates
 * (the keys whose higher digits are those chosen so far), picks the digit
 * whose bucket holds rank k, and, when that bucket is much smaller than
 * the candidates, keeps only its keys (flags for the shared compact
 * primitive). The last step appends every key at or below the k-th.
 * Before all that, the sampled path (src/sorts/top_k_sample.c) tries to
 * find the candidates in one pass with nothing read back on the way:
 * topk_thresholds (one work-group) draws keys (on GPUs; topk_sample in the
 * CPU shape) and picks the thresholds from them, topk_filter keeps the keys between them, and
 * topk_pad fills the candidates' buffer past them for a sort of its
 * whole length.
 *
 * Needs common.cl, wg_scan.cl@u32 and keys.cl before it (KEY_T,
 * KEY_BITS). Only the histogram, the thresholds and the filter use local
 * memory and barriers (at their top level, with trip counts uniform over
 * the group). Work-group: WG_SIZE. The radix select's kernels walk
 * elements [0, n): one work-item per element in turn on GPUs (the grid
 * strides over n), a contiguous run per work-item in the CPU shape
 * (WG_SIZE 1), where a stride would defeat the cache. The kernels that
 * read the input take `keys_at` (the histogram: `first`), the elements
 * before it in its buffer: a caller's host array used in place from the
 * aligned address before it on a CPU device (sorts.h's keys_at), else 0;
 * positions count from the input's first key. The kernels that write
 * top-k's outputs (topk_final, topk_settle) take each output's origin the
 * same way (sorts.h's clsort__top_k_out). */

/* The sampled path's control buffer, in 4-byte words (top_k_sample.c
 * names the same offsets): the candidates counted, the keys counted below
 * lo, whether topk_final wrote the result, whether topk_settle gave up,
 * the thresholds lo and hi (two KEY_T from byte 16), the sample (s KEY_T
 * from byte 32). */
#define TK_FOUND 0
#define TK_BELOW 1
#define TK_FINAL 2
#define TK_UNSETTLED 3
#define TK_BOUNDS 4
#define TK_SAMPLE 8

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
KERNEL void topk_flag_prefix(__global const KEY_T *keys, ulong keys_at, ulong n, KEY_T mask,
                             KEY_T prefix, int kind, int desc, __global uchar *flags) {
  keys += keys_at;
  TK_FOR(i, n) { flags[i] = (key_to_bits(keys[i], kind, desc) & mask) == prefix; }
}

/* Appends every key whose order bits are at most `threshold` (the k-th
 * key's), and with `positions` its input position (4-byte, or 8-byte with
 * wide), at the slot a global counter hands out: in no particular order,
 * which the host restores by sorting. The host sizes the outputs for all
 * of them (it knows their count) and keeps it below 2^32. */
KERNEL void topk_append(__global const KEY_T *keys, ulong keys_at, ulong n, KEY_T threshold,
                        int kind, int desc, __global KEY_T *out_keys, int positions, int wide,
                        __global uint *pos32, __global ulong *pos64,
                        volatile __global uint *counter) {
  keys += keys_at;
  TK_FOR(i, n) {
    if (key_to_bits(keys[i], kind, desc) <= threshold) {
      uint at = atomic_inc(counter);
      out_keys[at] = keys[i];
      if (positions && wide) pos64[at] = i;
      if (positions && !wide) pos32[at] = (uint)i;
    }
  }
}

/* The sample of the sampled path: entry i (< s) is the order bits of one
 * key of stratum i, [i * n / s, (i + 1) * n / s), at an offset a hash of
 * i picks, so that sorted input gives exact quantiles and a period in the
 * input cannot line up with the strata. s <= n, n < 2^32. */
inline ulong tk_sample_at(uint i, ulong n, uint s) {
  ulong first = (ulong)i * n / s, len = (ulong)(i + 1) * n / s - first;
  uint h = (i + 1u) * 0x9E3779B9u;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  return first + h % len;
}

/* The sample into ctl from word TK_SAMPLE, a work-item per entry: the CPU
 * shape's draw (on GPUs topk_thresholds draws it itself, one launch
 * less). */
KERNEL void topk_sample(__global const KEY_T *keys, ulong keys_at, ulong n, uint s, int kind,
                        int desc, __global uint *ctl) {
  keys += keys_at;
  __global KEY_T *out = (__global KEY_T *)(ctl + TK_SAMPLE);
  for (uint i = get_global_id(0); i < s; i += get_global_size(0))
    out[i] = key_to_bits(keys[tk_sample_at(i, n, s)], kind, desc);
}

/* The digit of rank *r (0-based) among the keys that a histogram `hist`
 * (256 buckets) counts, for the whole group: *r becomes the rank within
 * that digit's bucket, the digit is or-ed into *prefix at `shift` and
 * *in_bucket is set to the bucket's count. Each work-item owns 256 /
 * WG_SIZE consecutive buckets (one, or none past 256); the group's
 * exclusive scan of their sums tells whose bucket holds the rank. When *r
 * is not below the total (no rank wanted), nothing changes. Local: tmp
 * (WG_SIZE uints) and three words `pick`. Ends with a barrier. */
#define TK_OWN (WG_SIZE >= 256 ? 1 : 256 / WG_SIZE)
inline void tk_pick_digit(__local const uint *hist, uint shift, uint *r, KEY_T *prefix,
                          uint *in_bucket, __local uint *tmp, volatile __local uint *pick) {
  uint lid = get_local_id(0), first = lid * TK_OWN, mine = 0;
  for (uint d = first; d < first + TK_OWN && d < 256; d++) mine += hist[d];
  uint total, before = wg_exclusive_sum_u32(mine, &total, tmp);
  for (uint d = first; d < first + TK_OWN && d < 256; d++) {
    uint c = hist[d];
    if (*r >= before && *r < before + c) {
      pick[0] = d;
      pick[1] = *r - before;
      pick[2] = c;
    }
    before += c;
  }
  WG_BARRIER();
  if (*r < total) {
    *prefix |= (KEY_T)pick[0] << shift;
    *r = pick[1];
    *in_bucket = pick[2];
  }
  WG_BARRIER();
}

/* The order bits of the key of rank `rank` (0-based) among the count raw
 * keys v[0, count) (order bits by kind and desc; kind 0 and desc 0 take
 * bits as they are), for the whole group: a radix select, 8-bit digits
 * from the top, one round per digit; in each the keys matching the
 * digits chosen so far are counted into a histogram in local memory and
 * the bucket holding the rank is kept. *less: the keys below it, *equal:
 * those equal to it. rank >= count: no rank wanted, the keys are not
 * read, returns 0 with *less = *equal = 0. The keys are read from global
 * memory once per round, TK_BATCH per work-item at a time so that their
 * loads are in flight together (sm_90: 16384 keys in 64 loads per
 * work-item). Every work-item calls it (barriers inside, trip counts
 * uniform). Local: hist (256 uints), tmp (WG_SIZE), pick (3). Invariant
 * of the rounds: more than r of the keys matching prefix in the digits
 * done lie in the chosen bucket's range. */
#define TK_BATCH 16
inline KEY_T tk_select(const __global KEY_T *v, uint count, int kind, int desc, uint rank,
                       uint *less, uint *equal, __local uint *hist, __local uint *tmp,
                       volatile __local uint *pick) {
  uint lid = get_local_id(0);
  bool want = rank < count;
  uint r = want ? rank : UINT_MAX, in_bucket = 0, reads = want ? count : 0;
  KEY_T prefix = 0, mask = 0;
  for (int shift = KEY_BITS - 8; shift >= 0; shift -= 8) {
    for (uint b = lid; b < 256; b += WG_SIZE) hist[b] = 0;
    WG_BARRIER();
    for (uint base = 0; base < reads; base += WG_SIZE * TK_BATCH) {
      KEY_T x[TK_BATCH];
UNROLL
      for (uint j = 0; j < TK_BATCH; j++) {
        uint i = base + j * WG_SIZE + lid;
        x[j] = i < reads ? v[i] : (KEY_T)0;
      }
UNROLL
      for (uint j = 0; j < TK_BATCH; j++) {
        KEY_T b = key_to_bits(x[j], kind, desc);
        bool real = base + j * WG_SIZE + lid < reads;
        if (real && (b & mask) == prefix) atomic_inc(&hist[key_digit(b, (uint)shift, 8)]);
      }
    }
    WG_BARRIER();
    tk_pick_digit(hist, (uint)shift, &r, &prefix, &in_bucket, tmp, pick);
    mask |= (KEY_T)0xFF << shift;
  }
  *less = want ? rank - r : 0;
  *equal = in_bucket;
  return prefix;
}

/* The sampled path's thresholds, picked on the device so that the host
 * reads nothing before the filter runs. One work-group. With draw, it
 * first draws the sample of keys[0, n) itself (as topk_sample does, which
 * otherwise ran before). Of the s sample keys (order bits, ctl from
 * TK_SAMPLE) it finds the one of rank hi_rank
 * (hi; none when hi_rank >= s: hi = all ones) and the one of rank
 * lo_rank (lo; none when lo_rank < 0 or lo_rank >= min(hi_rank, s): lo =
 * 0), as the host's choice was, with tk_select. force_zero
 * (CLSORT_TOPK=low) sets both to 0. Writes lo and hi at TK_BOUNDS and
 * zeroes the words of the filter, topk_final and topk_settle. Local: 256 +
 * WG_SIZE + 3 uints. */
KERNEL void topk_thresholds(__global const KEY_T *keys, ulong keys_at, ulong n, int kind,
                            int desc, int draw, __global uint *ctl, uint s, int lo_rank,
                            uint hi_rank, int force_zero) {
  __local uint hist[256], tmp[WG_SIZE];
  volatile __local uint pick[3];
  keys += keys_at;
  __global KEY_T *sample = (__global KEY_T *)(ctl + TK_SAMPLE);
  bool want_lo = lo_rank >= 0 && (uint)lo_rank < min(hi_rank, s);
  /* draw: the sample first, TK_BATCH random reads in flight per
   * work-item, made visible to the group before tk_select reads it. */
  uint lid = get_local_id(0), reads = draw ? s : 0;
  for (uint base = 0; base < reads; base += WG_SIZE * TK_BATCH) {
    KEY_T x[TK_BATCH];
UNROLL
    for (uint j = 0; j < TK_BATCH; j++) {
      uint i = base + j * WG_SIZE + lid;
      x[j] = i < reads ? keys[tk_sample_at(i, n, s)] : (KEY_T)0;
    }
UNROLL
    for (uint j = 0; j < TK_BATCH; j++) {
      uint i = base + j * WG_SIZE + lid;
      if (i < reads) sample[i] = key_to_bits(x[j], kind, desc);
    }
  }
#if WG_SIZE > 1
  barrier(CLK_GLOBAL_MEM_FENCE);
#endif
  uint less, equal;
  KEY_T hi = tk_select(sample, s, 0, 0, hi_rank, &less, &equal, hist, tmp, pick), lo = 0;
  /* Uniform over the group (kernel arguments): top-k skips the rounds. */
  if (want_lo) lo = tk_select(sample, s, 0, 0, (uint)lo_rank, &less, &equal, hist, tmp, pick);
  if (get_local_id(0) == 0) {
    __global KEY_T *bounds = (__global KEY_T *)(ctl + TK_BOUNDS);
    bounds[0] = force_zero ? (KEY_T)0 : lo;
    bounds[1] = force_zero ? (KEY_T)0 : hi_rank < s ? hi : ~(KEY_T)0;
    ctl[TK_FOUND] = 0;
    ctl[TK_BELOW] = 0;
    ctl[TK_FINAL] = 0;
    ctl[TK_UNSETTLED] = 0;
  }
}

/* The sampled path's one pass: of the keys of chunk g, [g * chunk, g *
 * chunk + chunk) within [0, n), those whose order bits lie in [lo, hi]
 * (ctl at TK_BOUNDS) are appended (with `positions` their input
 * positions, 4-byte, or 8-byte with wide) at slots that the counter
 * ctl[TK_FOUND] hands out, in no particular order; slots from `cap` on
 * are counted but not written. ctl[TK_BELOW] += the chunk's keys below
 * lo (one atomic per group). n < 2^32.
 * GPU shape: the group walks its chunk a tile (WG_SIZE * TK_ITEMS keys,
 * striped over the work-items) at a time, ranks the tile's candidates
 * with the work-group scan and takes their slots with one atomic per
 * tile, so that the counter sees one add per tile, not per key. Local:
 * WG_SIZE + 1 uints. Invariant: the counter holds every candidate of the
 * tiles that finished. CPU shape (WG_SIZE 1): one work-item walks its
 * chunk in a serial loop, TK_CPU_BLOCK keys at a time, one atomic per
 * block that has candidates; private: a bit per key of the block. */
#define TK_CPU_BLOCK 2048 /* keys: 8 or 16 KB, in the L1 cache */
#if ITEMS > 32
#define TK_ITEMS 32 /* one bit per item in a uint */
#else
#define TK_ITEMS ITEMS
#endif
KERNEL void topk_filter(__global const KEY_T *keys, ulong keys_at, ulong n, ulong chunk,
                        int kind, int desc, uint cap, __global KEY_T *out_keys, int positions,
                        int wide, __global uint *pos32, __global ulong *pos64,
                        volatile __global uint *ctl) {
  keys += keys_at;
  ulong begin = get_group_id(0) * chunk, end = min(n, begin + chunk);
  const __global KEY_T *bounds = (const __global KEY_T *)(ctl + TK_BOUNDS);
  const KEY_T lo = bounds[0], hi = bounds[1];
  uint under = 0;
#if WG_SIZE == 1
  /* A block at a time: one walk over its keys leaves a bit per key (a
   * word per 64 keys) and the count; only when there are candidates are
   * their slots taken (one atomic) and the keys at the set bits copied.
   * An atomic per candidate cost 25 ms of a 2^22-key select on 2 cores
   * (11% candidates); a second walk over each block that has candidates,
   * 76 ms of a 2^24-key select (6%) and twice the pass for top-k of 10^4. */
  key_flips f = key_flips_for(kind, desc);
  ulong bits[TK_CPU_BLOCK / 64];
  for (ulong block = begin; block < end; block += TK_CPU_BLOCK) {
    uint len = (uint)min((ulong)TK_CPU_BLOCK, end - block), found = 0;
    __global const KEY_T *b0 = keys + block;
    for (uint w = 0; w * 64 < len; w++) {
      uint stop = min(64u, len - w * 64);
      ulong m = 0;
      for (uint t = 0; t < stop; t++) {
        KEY_T b = key_to_bits_flip(b0[w * 64 + t], f);
        under += b < lo;
        m |= (ulong)((b >= lo) & (b <= hi)) << t;
      }
      bits[w] = m;
      found += popcount(m);
    }
    if (!found) continue;
    uint at = atomic_add(&ctl[TK_FOUND], found);
    for (uint w = 0; w * 64 < len && at < cap; w++) {
      for (ulong m = bits[w]; m && at < cap; m &= m - 1, at++) {
        uint o = w * 64 + (63u - (uint)clz(m & (0ul - m)));
        out_keys[at] = b0[o];
        if (positions && wide) pos64[at] = block + o;
        if (positions && !wide) pos32[at] = (uint)(block + o);
      }
    }
  }
  if (under) atomic_add(&ctl[TK_BELOW], under);
#else
  __local uint tmp[WG_SIZE];
  __local uint tile_at;
  uint lid = get_local_id(0);
  for (ulong base = begin; base < end; base += WG_SIZE * TK_ITEMS) {
    /* Offsets within the tile in 32 bits: 64-bit positions per item took
     * 107 registers (u32 keys, sm_90), a quarter of an SM's threads. */
    uint len = (uint)min((ulong)(WG_SIZE * TK_ITEMS), end - base);
    __global const KEY_T *tile = keys + base;
    KEY_T v[TK_ITEMS];
    uint in = 0, mine = 0; /* bit j: item j is a candidate */
UNROLL
    for (uint j = 0; j < TK_ITEMS; j++) {
      uint o = j * WG_SIZE + lid;
      v[j] = o < len ? tile[o] : (KEY_T)0;
    }
UNROLL
    for (uint j = 0; j < TK_ITEMS; j++) {
      KEY_T b = key_to_bits(v[j], kind, desc);
      bool real = j * WG_SIZE + lid < len;
      under += real && b < lo;
      bool c = real && b >= lo && b <= hi;
      in |= (uint)c << j;
      mine += c;
    }
    uint total, rank = wg_exclusive_sum_u32(mine, &total, tmp);
    if (lid == 0 && total) tile_at = atomic_add(&ctl[TK_FOUND], total);
    WG_BARRIER();
    /* Read before the next tile's scan, whose barriers come before the
     * next write of tile_at. */
    uint at = tile_at + rank;
    /* The candidates, few: a loop over the set bits (unrolled over every
     * item, it held registers in every tile). The keys are read again,
     * from the cache, so that v[] is dead after the flags. */
    for (; in && at < cap; in &= in - 1u, at++) {
      uint o = lowest_bit(in) * WG_SIZE + lid;
      out_keys[at] = tile[o];
      if (positions && wide) pos64[at] = base + o;
      if (positions && !wide) pos32[at] = (uint)(base + o);
    }
  }
  uint group_under = wg_reduce_u32(under, 0, tmp);
  if (lid == 0 && group_under) atomic_add(&ctl[TK_BELOW], group_under);
#endif
}

/* After the filter: pads the candidates' buffer from the last candidate
 * written, min(ctl[TK_FOUND], cap), up to `room`, with the key of the
 * upper threshold hi (at or after every candidate) and, with `positions`,
 * positions all ones (past any input position, and past or tied with
 * them in the bits the position sort reads, ties going to the candidates
 * written first), so that two stable sorts of all `room` entries (by
 * position, then by key) put every candidate before every pad: the host
 * sorts the whole buffer without having read how many candidates there
 * are. Keys equal to hi rather than all ones leave the candidates' high
 * digits alike for small k, which the radix sort then skips. */
KERNEL void topk_pad(volatile __global const uint *ctl, uint cap, uint room, int kind, int desc,
                     __global KEY_T *out_keys, int positions, int wide, __global uint *pos32,
                     __global ulong *pos64) {
  uint from = min(ctl[TK_FOUND], cap);
  KEY_T pad = bits_to_key(((const __global KEY_T *)(ctl + TK_BOUNDS))[1], kind, desc);
  TK_FOR(i, (ulong)room) {
    if (i < from) continue;
    out_keys[i] = pad;
    if (positions && wide) pos64[i] = ~0ul;
    if (positions && !wide) pos32[i] = ~0u;
  }
}

/* Top-k of a small k straight from the candidates, for the whole result
 * in one launch of one work-group (in place of the pad, the candidates'
 * two sorts and the copies). Of the count = min(ctl[TK_FOUND], cap)
 * candidates (raw keys, with `positions` their input positions, 4-byte
 * or 8-byte with wide; without, the slot stands in: equal keys alone
 * cannot tell their order), tk_select finds the order bits t of rank k -
 * 1; the `less` keys below t and every key equal to t (m in all) are
 * gathered into local memory, and each one's rank in the stable order
 * (by bits, then position: all distinct) is the number of gathered keys
 * before it; ranks below k are written to out_keys (write_keys) and their
 * positions to out_pos32 / out_pos64 (write_positions, as wide), each
 * from its origin (keys_at, pos_at: as topk_small_final's). When the
 * bracket missed (more candidates than cap, fewer than k) or m exceeds
 * TK_FINAL_MAX (many keys equal to the k-th), nothing is written and
 * ctl[TK_FINAL] stays 0 (topk_thresholds zeroed it); otherwise it is set
 * to 1. The host reads it with the counts. Local: TK_FINAL_MAX keys and
 * positions, 256 + WG_SIZE + 4 uints. */
#define TK_FINAL_MAX 1024
KERNEL void topk_final(volatile __global uint *ctl, uint cap, uint k, int kind, int desc,
                       const __global KEY_T *cand_keys, int positions, int wide,
                       const __global uint *cand_pos32, const __global ulong *cand_pos64,
                       int write_keys, __global KEY_T *out_keys, ulong keys_at,
                       int write_positions, __global uint *out_pos32,
                       __global ulong *out_pos64, ulong pos_at) {
  out_keys += keys_at;
  /* out_pos32 and out_pos64 are one buffer: only the one in use moves. */
  if (wide) out_pos64 += pos_at;
  else out_pos32 += pos_at;
  __local uint hist[256], tmp[WG_SIZE];
  volatile __local uint pick[3];
  __local KEY_T got_bits[TK_FINAL_MAX];
  __local uint got_pos[TK_FINAL_MAX];
  volatile __local uint taken;
  uint lid = get_local_id(0), found = ctl[TK_FOUND], count = min(found, cap);
  bool ok = found <= cap && count >= k;
  uint less, equal;
  KEY_T t = tk_select(cand_keys, ok ? count : 0, kind, desc, k - 1, &less, &equal, hist, tmp,
                      pick);
  uint m = less + equal;
  ok = ok && m <= TK_FINAL_MAX;
  if (lid == 0) taken = 0;
  WG_BARRIER();
  uint reads = ok ? count : 0;
  for (uint i = lid; i < reads; i += WG_SIZE) {
    KEY_T b = key_to_bits(cand_keys[i], kind, desc);
    if (b <= t) {
      uint at = atomic_inc(&taken);
      got_bits[at] = b;
      got_pos[at] = !positions ? i : wide ? (uint)cand_pos64[i] : cand_pos32[i];
    }
  }
  WG_BARRIER();
  uint have = ok ? m : 0;
  for (uint g = lid; g < have; g += WG_SIZE) {
    KEY_T b = got_bits[g];
    uint p = got_pos[g], rank = 0;
    for (uint u = 0; u < have; u++)
      rank += got_bits[u] < b || (got_bits[u] == b && got_pos[u] < p);
    if (rank >= k) continue;
    if (write_keys) out_keys[rank] = bits_to_key(b, kind, desc);
    if (write_positions && wide) out_pos64[rank] = p;
    if (write_positions && !wide) out_pos32[rank] = p;
  }
  if (lid == 0 && ok) ctl[TK_FINAL] = 1;
}

/* After the late read's candidates (count entries, the pads last) were
 * sorted stably by key alone, with their positions as values (the
 * candidates' order among equal keys is the filter's, not the input's):
 * writes the first k of the stable order, keys to out_keys (write_keys)
 * and positions to out_pos32 / out_pos64 (as wide), each from its origin
 * (keys_at, pos_at: as topk_small_final's), in place of the sort
 * by position before and the copies. Entry i of a run [lo, hi) of equal
 * keys goes to lo + the number of the run's entries of lower position.
 * A work-item per entry of [0, k + TK_RUN_MAX) within count: those whose
 * run starts at or after k have nothing to write. A run longer than
 * TK_RUN_MAX that starts before k (many keys equal to the k-th) sets
 * ctl[TK_UNSETTLED] (topk_thresholds zeroed it) and what was written is
 * not the result: the host then runs the radix select. Positions < 2^32;
 * the pads' are all ones, after every candidate. */
#define TK_RUN_MAX 4096
KERNEL void topk_settle(volatile __global uint *ctl, uint count, uint k, int kind, int desc,
                        const __global KEY_T *sorted_keys, int wide,
                        const __global uint *sorted_pos32, const __global ulong *sorted_pos64,
                        int write_keys, __global KEY_T *out_keys, ulong keys_at,
                        __global uint *out_pos32, __global ulong *out_pos64, ulong pos_at) {
  out_keys += keys_at;
  if (wide) out_pos64 += pos_at;
  else out_pos32 += pos_at;
  uint end = min(count, k + TK_RUN_MAX);
  for (uint i = get_global_id(0); i < end; i += get_global_size(0)) {
    KEY_T key = sorted_keys[i];
    uint lo = i, hi = i + 1;
    while (lo > 0 && i - lo <= TK_RUN_MAX && sorted_keys[lo - 1] == key) lo--;
    if (lo >= k) continue;
    while (hi < count && hi - lo <= TK_RUN_MAX && sorted_keys[hi] == key) hi++;
    if (hi - lo > TK_RUN_MAX) {
      ctl[TK_UNSETTLED] = 1;
      continue;
    }
    ulong p = wide ? sorted_pos64[i] : sorted_pos32[i];
    uint rank = lo;
    for (uint j = lo; j < hi; j++) rank += (wide ? sorted_pos64[j] : sorted_pos32[j]) < p;
    if (rank >= k) continue;
    if (write_keys) out_keys[rank] = key;
    if (wide) out_pos64[rank] = p;
    else out_pos32[rank] = (uint)p;
  }
}
