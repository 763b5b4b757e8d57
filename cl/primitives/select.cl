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
    uint outputs = split ? len : tile_kept;
    for (uint s = lid; s < outputs; s += WG_SIZE) {
      ulong dst = s < tile_kept ? kept_before + s : total + dropped_before + (s - tile_kept);
      out[dst] = in[base + order[s]];
    }
    kept_before += tile_kept;
    dropped_before += len - tile_kept;
    WG_BARRIER();
  }
}
