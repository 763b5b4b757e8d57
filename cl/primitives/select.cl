/* select.cl: stable compact (keep the flagged elements) and stable split
 * (flagged first, then the rest) of elements of any size, by byte flags.
 *
 * Needs common.cl and wg_scan.cl@u32 before it, and
 *   SEL_E      the element type (uchar, ushort, uint, ulong, uint4)
 *   SEL_ITEMS  flags per work-item per tile, a multiple of 16
 * A tile has at most 65536 elements (positions are staged as ushort).
 *
 * Three passes, like the scan:
 *   1. select_count: counts[g] = flagged elements in chunk g
 *   2. the shared scan, inclusive, over counts (scan.cl)
 *   3. select_scatter: each group ranks its tiles' flags with the
 *      work-group scan, stages the tile's output order in local memory,
 *      and then writes coalesced runs.
 * On NVIDIA (USE_PTX, with wg_scan.cl@u64 listed too) select_single_pass
 * does all three in one launch with the decoupled look-back, so the flags
 * are read once instead of twice (7 bytes per 4-byte element kept at one
 * half, against 8).
 */
#if !defined(SEL_E) || !defined(SEL_ITEMS)
#error "select.cl needs SEL_E and SEL_ITEMS"
#endif
#if SEL_ITEMS % 16 != 0
#error "select.cl needs SEL_ITEMS to be a multiple of 16"
#endif
#define SEL_TILE (WG_SIZE * SEL_ITEMS)
#if SEL_TILE > 65536
#error "select.cl stages tile positions as ushort: WG_SIZE * SEL_ITEMS must be <= 65536"
#endif

/* Number of non-zero bytes among 16. */
inline uint count_flags16(uchar16 q) {
  ulong2 ones = as_ulong2(min(q, (uchar16)1));
  return (uint)(popcount(ones.x) + popcount(ones.y));
}

/* Loads a work-item's SEL_ITEMS flags of the tile at `base` (those at or
 * past `len` read as 0) into f; returns how many are set. */
inline uint sel_load_flags(__global const uchar *flags, ulong base, uint first, uint len,
                           uchar *f) {
  if (first + SEL_ITEMS <= len) {
    __global const uchar16 *f16 = (__global const uchar16 *)(flags + base + first);
UNROLL
    for (uint j = 0; j < SEL_ITEMS / 16; j++) vstore16(f16[j], j, f);
  } else {
UNROLL
    for (uint k = 0; k < SEL_ITEMS; k++) f[k] = first + k < len ? flags[base + first + k] : 0;
  }
  uint mine = 0;
UNROLL
  for (uint k = 0; k < SEL_ITEMS; k++) mine += f[k] != 0;
  return mine;
}

/* Writes a staged tile: output slot s (of `outputs`) takes the element at
 * tile position order[s], and goes to kept_dst + s for the first `kept`
 * slots, to rest_dst + (s - kept) after. The loads go in batches of
 * SEL_BATCH per work-item before their stores: a load after a store to
 * another buffer cannot be hoisted by the compiler (it cannot rule out
 * aliasing), so one element per iteration would leave a single load in
 * flight per work-item. */
#define SEL_BATCH 8
inline void sel_write_tile(__global const SEL_E *in, __global SEL_E *out, ulong base,
                           __local const ushort *order, uint outputs, uint kept, ulong kept_dst,
                           ulong rest_dst) {
  uint lid = get_local_id(0);
  for (uint s0 = 0; s0 < outputs; s0 += SEL_BATCH * WG_SIZE) {
    SEL_E v[SEL_BATCH];
UNROLL_FULL
    for (uint k = 0; k < SEL_BATCH; k++) {
      uint s = s0 + k * WG_SIZE + lid;
      if (s < outputs) v[k] = in[base + order[s]];
    }
UNROLL_FULL
    for (uint k = 0; k < SEL_BATCH; k++) {
      uint s = s0 + k * WG_SIZE + lid;
      if (s < outputs) out[s < kept ? kept_dst + s : rest_dst + (s - kept)] = v[k];
    }
  }
}

/* Pass 1. counts[g] = flagged elements of chunk g. Work-group: WG_SIZE.
 * Loads are striped 16-byte vectors over whole tiles. */
KERNEL void select_count(__global const uchar *flags, ulong n, ulong chunk,
                         __global ulong *counts) {
  __local uint tmp[WG_SIZE];
  uint lid = get_local_id(0);
  ulong begin = get_group_id(0) * chunk;
  ulong end = min(n, begin + chunk);
  uint c = 0;
  ulong base = begin;
  for (; base + SEL_TILE <= end; base += SEL_TILE) {
    __global const uchar16 *f16 = (__global const uchar16 *)(flags + base);
UNROLL
    for (uint j = 0; j < SEL_ITEMS / 16; j++) c += count_flags16(f16[j * WG_SIZE + lid]);
  }
  for (ulong i = base + lid; i < end; i += WG_SIZE) c += flags[i] != 0;
  uint total = wg_reduce_u32(c, 0, tmp);
  if (lid == 0) counts[get_group_id(0)] = total;
}

/* Pass 3. `scanned` holds the inclusive scan of the counts. Group g writes
 * its flagged elements from scanned[g-1] on and (split) its others from
 * total + (elements before chunk g) - scanned[g-1] on. Group 0 also stores
 * the total in count[0]. Work-group: WG_SIZE. Local: SEL_TILE ushorts plus
 * the scan's WG_SIZE uints.
 * Loop invariant: kept / dropped = elements of this chunk before the current
 * tile that were / were not flagged. */
KERNEL void select_scatter(__global const SEL_E *in, __global const uchar *flags,
                           __global SEL_E *out, ulong n, ulong chunk,
                           __global const ulong *scanned, __global ulong *count, int split) {
  __local uint tmp[WG_SIZE];
  __local ushort order[SEL_TILE]; /* output slot -> position in the tile */
  uint lid = get_local_id(0);
  uint g = get_group_id(0);
  ulong begin = g * chunk;
  ulong end = min(n, begin + chunk);
  ulong total = scanned[get_num_groups(0) - 1];
  ulong kept_before = g ? scanned[g - 1] : 0;
  ulong dropped_before = begin - kept_before;
  if (g == 0 && lid == 0) count[0] = total;

  for (ulong base = begin; base < end; base += SEL_TILE) {
    uint len = (uint)min((ulong)SEL_TILE, end - base);
    uint first = lid * SEL_ITEMS; /* this work-item's run within the tile */
    uchar f[SEL_ITEMS];
    uint mine = sel_load_flags(flags, base, first, len, f);
    uint tile_kept;
    uint rank = wg_exclusive_sum_u32(mine, &tile_kept, tmp);
    /* Stage the tile's stable output order: kept first, then (split) the
     * rest, each in input order. */
UNROLL
    for (uint k = 0; k < SEL_ITEMS; k++) {
      uint pos = first + k;
      if (f[k]) {
        order[rank++] = (ushort)pos;
      } else if (split && pos < len) {
        order[tile_kept + (pos - rank)] = (ushort)pos;
      }
    }
    WG_BARRIER();
    sel_write_tile(in, out, base, order, split ? len : tile_kept, tile_kept, kept_before,
                   total + dropped_before);
    kept_before += tile_kept;
    dropped_before += len - tile_kept;
    WG_BARRIER();
  }
}

#if USE_PTX && defined(SEL_SINGLE_PASS)
/* Compact (not split: a split's second part starts at the total kept,
 * which only the last tile learns) in one pass: one group per tile, tiles
 * numbered in the order groups start (an atomic ticket in state[0]), so a
 * tile only waits on tiles whose groups already run. Tile t's 16-byte
 * status {flag, kept count} sits at state[2 + 2t] (wg_scan.cl's 64-bit
 * look-back). The host zeroes state before each launch. The last tile
 * stores the total kept in count[0]. Work-group: WG_SIZE; local: SEL_TILE
 * ushorts plus the scan's WG_SIZE uints. */
KERNEL void select_single_pass(__global const SEL_E *in, __global const uchar *flags,
                               __global SEL_E *out, ulong n, volatile __global ulong *state,
                               __global ulong *count) {
  __local uint tmp[WG_SIZE];
  __local ushort order[SEL_TILE]; /* output slot -> position in the tile */
  __local uint tile_slot;
  __local ulong tile_before;
  uint lid = get_local_id(0);
  long tile = TILE_NUMBER(state, tile_slot);
  ulong base = (ulong)tile * SEL_TILE;
  uint len = (uint)min((ulong)SEL_TILE, n - base);
  uint first = lid * SEL_ITEMS; /* this work-item's run within the tile */
  uchar f[SEL_ITEMS];
  uint mine = sel_load_flags(flags, base, first, len, f);
  uint tile_kept;
  uint rank = wg_exclusive_sum_u32(mine, &tile_kept, tmp);

  /* Publish this tile's count at once, then learn the tiles' before it. */
  volatile __global ulong2 *status = (volatile __global ulong2 *)(state + 2);
  tile_exclusive_u64(status, tile, 0, tile_kept, &tile_before);
  /* Stage the tile's kept positions in input order (stable). */
UNROLL
  for (uint k = 0; k < SEL_ITEMS; k++)
    if (f[k]) order[rank++] = (ushort)(first + k);
  WG_BARRIER();
  sel_write_tile(in, out, base, order, tile_kept, tile_kept, tile_before, 0);
  if (base + len == n && lid == 0) count[0] = tile_before + tile_kept;
}
#endif
