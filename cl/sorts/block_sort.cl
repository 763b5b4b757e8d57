/* block_sort.cl: the merge sort's run formation on GPUs, in the shape of
 * CUB's BlockMergeSort. Each group sorts one tile of BS_TILE = BS_WG *
 * BS_ITEMS keys: every work-item sorts its BS_ITEMS keys in registers
 * (an odd-even transposition network, which is stable: it swaps only
 * strictly greater neighbours; keys alone take a bitonic network), then
 * log2(BS_WG) rounds double the sorted runs, each work-item finding its
 * BS_ITEMS outputs of a pair of runs by merge path in local memory and
 * merging them serially into registers.
 * A round costs two barriers and about 2 * BS_ITEMS local accesses per
 * work-item, where the bitonic tile it replaces costs a barrier and a
 * local exchange per network step (91 steps for 8192 keys).
 *
 * Stable: the network and the merges (the left run's key first on ties)
 * keep equal keys in input order, and the slots past n hold the largest
 * bits after every real key, so they stay last.
 *
 * With BS_SEGMENTED the same sort orders packed segments instead
 * (segment_sort_tiles, for clsort_segmented_sort): a tile holds whole
 * consecutive segments, and the order is by (segment, key). Sorting never
 * moves a key out of its segment's positions, so the segment of the key
 * at a position is a fixed function of the position: ls[] in local memory
 * holds it (the segment's first position in the tile), written once and
 * never moved. Comparisons consult it: neighbours of different segments
 * never swap, and a merge takes the left run's key whenever the two come
 * from different segments (a position in the left run never lies in a
 * later segment than one in the right run).
 *
 * Needs common.cl and keys.cl before it, and
 *   HAS_VALUES, VALUE_T  a payload moved with each key (uint or ulong)
 *   BS_WG, BS_ITEMS      work-items per group, keys per work-item (powers
 *                        of two); without BS_WG (CPU shapes) nothing here
 *                        is compiled.
 *   BS_SEGMENTED         1: compile segment_sort_tiles instead of
 *                        merge_sort_tiles (default 0).
 *   BS_RANGES            1: compile range_sort_tiles instead (default 0).
 *
 * With BS_RANGES it sorts planned ranges of keys that are already in order
 * between them (the sample sort's buckets, several to a tile): a tile is
 * one segment wherever it lies, read from either of two buffers and
 * written to the first.
 */
#ifdef BS_WG
#if !defined(BS_ITEMS) || !defined(HAS_VALUES) || !defined(VALUE_T)
#error "block_sort.cl needs BS_ITEMS, HAS_VALUES and VALUE_T"
#endif

#ifndef BS_SEGMENTED
#define BS_SEGMENTED 0
#endif
#ifndef BS_RANGES
#define BS_RANGES 0
#endif
#if BS_SEGMENTED && BS_RANGES
#error "block_sort.cl: BS_SEGMENTED or BS_RANGES, not both"
#endif
#define BS_TILE (BS_WG * BS_ITEMS)
#define BS_MAX ((KEY_T)(~(KEY_T)0))

#if HAS_VALUES
#define BS_IF_VALUES(...) __VA_ARGS__
#else
#define BS_IF_VALUES(...)
#endif

/* Orders neighbours i and i + 1 of the registers, equal keys kept (and,
 * segmented, keys of different segments: sg[] holds each register
 * position's segment). The values swap through an xor mask: a select
 * between the two would let the compiler pick an address instead, and
 * move v out of registers. */
#if BS_SEGMENTED
#define BS_SWAP(i) (kb_ < ka_ && sg[i] == sg[(i) + 1])
#define BS_LOW(i) (BS_SWAP(i) ? kb_ : ka_)
#define BS_HIGH(i) (BS_SWAP(i) ? ka_ : kb_)
#else
#define BS_SWAP(i) (kb_ < ka_)
#define BS_LOW(i) min(ka_, kb_)
#define BS_HIGH(i) max(ka_, kb_)
#endif
#define BS_CMPX(i)                                                              \
  do {                                                                          \
    const KEY_T ka_ = k[i], kb_ = k[(i) + 1];                                   \
    BS_IF_VALUES(const VALUE_T x_ = (v[i] ^ v[(i) + 1]) & (VALUE_T)(-(VALUE_T)BS_SWAP(i)); \
                 v[i] ^= x_; v[(i) + 1] ^= x_;)                                  \
    const KEY_T lo_ = BS_LOW(i), hi_ = BS_HIGH(i);                              \
    k[i] = lo_;                                                                 \
    k[(i) + 1] = hi_;                                                           \
  } while (0)

/* Whether the key at local position pa (left run) goes before the one at
 * pb (right run): keys in order, or (segmented) different segments. */
#if BS_SEGMENTED
#define BS_FIRST(ka, pa, kb, pb) (ls[pa] != ls[pb] || (ka) <= (kb))
#else
#define BS_FIRST(ka, pa, kb, pb) ((ka) <= (kb))
#endif

/* A merge's next read of a run at offset x (x may be w, one past the
 * run's end, where the key is never taken). The keys read there are the
 * next run's first or the padded array's last slot (PAD(BS_TILE) <
 * PADDED(BS_TILE)), so only the segmented sort, whose BS_FIRST reads
 * ls[] at the position, clamps it into the run: two instructions less a
 * key and round elsewhere. */
#if BS_SEGMENTED
#define BS_IN_RUN(x) min(x, w - 1)
#else
#define BS_IN_RUN(x) (x)
#endif

#if BS_SEGMENTED
/* The segment of local position i: the first position of its segment in
 * the tile, BS_TILE past the tile's keys (padding sorts last). */
#define BS_SEG_T ushort

/* Sorts the packed tile g of keys (and vals) in place, by segment and then
 * key, stably. Two ways to give the tiles:
 * - seg_len > 0: every segment holds seg_len keys (the last one may hold
 *   fewer), tile g holds per_tile of the n keys from g * per_tile (whole
 *   segments), and no segment spans two runs of 2^end_log; plan is unused.
 * - seg_len == 0: plan (segment_tiles.c) holds a uint4 per tile: the
 *   tile's first key (.x low and .y high word), its key count (.z low 16
 *   bits), log2 of the run length after which no segment spans two runs
 *   (.z high bits: the merge rounds stop there) and its first entry in
 *   heads (.w); one more uint4 whose .w ends the last tile's heads. heads
 *   (ushorts, after the tiles + 1 uint4s in the same buffer) lists the
 *   first position of every non-empty segment of the tile relative to the
 *   tile's first key, ascending, the first 0.
 * Work-group: BS_WG. Local memory: BS_TILE padded keys (and values) and
 * BS_TILE ushort segments. */
__kernel __attribute__((reqd_work_group_size(BS_WG, 1, 1))) void segment_sort_tiles(
    global KEY_T *keys, global VALUE_T *vals, const global uint4 *plan, uint tiles, ulong n,
    uint seg_len, uint per_tile, uint end_log, int kind, int desc) {
  const global KEY_T *keys_in = keys;
  global KEY_T *keys_out = keys;
  const global VALUE_T *vals_in = vals;
  global VALUE_T *vals_out = vals;
  const int make_index = 0;
  local KEY_T lk[PADDED(BS_TILE)];
  BS_IF_VALUES(local VALUE_T lv[PADDED(BS_TILE)];)
  local BS_SEG_T ls[BS_TILE];
  const uint lid = get_local_id(0), first = lid * BS_ITEMS, g = get_group_id(0);
  ulong base;
  uint count, end_w;
  BS_SEG_T sg[BS_ITEMS];
  if (seg_len) {
    base = (ulong)g * per_tile;
    count = (uint)min((ulong)per_tile, n - base);
    end_w = 1u << end_log;
    UNROLL_FULL for (uint i = 0; i < BS_ITEMS; i++) {
      const uint p = first + i;
      sg[i] = p < count ? (BS_SEG_T)(p - p % seg_len) : (BS_SEG_T)BS_TILE;
      ls[p] = sg[i];
    }
  } else {
    const uint4 t = plan[g];
    base = (ulong)t.x | ((ulong)t.y << 32);
    count = t.z & 0xffffu;
    end_w = 1u << (t.z >> 16);
    const global ushort *heads = (const global ushort *)(plan + tiles + 1);
    /* This work-item's positions [first, first + BS_ITEMS): the last head
     * at or before first by binary search in [t.w, last), then a walk. */
    const uint last = plan[g + 1].w;
    uint lo = t.w, hi = last;
    while (hi - lo > 1) {
      const uint mid = (lo + hi) / 2;
      if (heads[mid] <= first)
        lo = mid;
      else
        hi = mid;
    }
    UNROLL_FULL for (uint i = 0; i < BS_ITEMS; i++) {
      while (lo + 1 < last && heads[lo + 1] <= first + i) lo++;
      sg[i] = first + i < count ? heads[lo] : (BS_SEG_T)BS_TILE;
      ls[first + i] = sg[i];
    }
  }
#elif BS_RANGES
/* Sorts tile g of the plan (segment_tiles.c's range plan): a uint4 per
 * tile, its first key (.x low and .y high word), its key count (.z low 16
 * bits), log2 of the run length that holds them all (.z bits 16-23: the
 * merge rounds stop there) and in .z bit 31 where its keys are: 0 in
 * keys_a (vals_a), 1 in keys_b (vals_b). Written to keys_a (vals_a) at the
 * same positions. Work-group: BS_WG. Local memory: BS_TILE padded keys
 * (and values). */
__kernel __attribute__((reqd_work_group_size(BS_WG, 1, 1))) void range_sort_tiles(
    global KEY_T *keys_a, const global KEY_T *keys_b, global VALUE_T *vals_a,
    const global VALUE_T *vals_b, const global uint4 *plan, int kind, int desc) {
  local KEY_T lk[PADDED(BS_TILE)];
  BS_IF_VALUES(local VALUE_T lv[PADDED(BS_TILE)];)
  const uint lid = get_local_id(0), first = lid * BS_ITEMS;
  const uint4 t = plan[get_group_id(0)];
  const ulong base = (ulong)t.x | ((ulong)t.y << 32);
  const uint count = t.z & 0xffffu, end_w = 1u << ((t.z >> 16) & 0xffu);
  const bool from_b = (t.z >> 31) != 0;
  const global KEY_T *keys_in = from_b ? keys_b : (const global KEY_T *)keys_a;
  global KEY_T *keys_out = keys_a;
  BS_IF_VALUES(const global VALUE_T *vals_in = from_b ? vals_b : (const global VALUE_T *)vals_a;
               global VALUE_T *vals_out = vals_a; const int make_index = 0;)
#else
/* Sorts tile g of keys_in ([g * BS_TILE, (g + 1) * BS_TILE) of n) into
 * the same tile of keys_out, values (or, with make_index, the input
 * positions) with them. The same arguments as the bitonic tile sort's
 * bitonic_sort_tiles, so that the merge sort can launch either.
 * Work-group: BS_WG. Local memory: BS_TILE padded keys (and values). */
__kernel __attribute__((reqd_work_group_size(BS_WG, 1, 1))) void merge_sort_tiles(
    const global KEY_T *keys_in, global KEY_T *keys_out, const global VALUE_T *vals_in,
    global VALUE_T *vals_out, ulong n, int kind, int desc, int make_index) {
  local KEY_T lk[PADDED(BS_TILE)];
  BS_IF_VALUES(local VALUE_T lv[PADDED(BS_TILE)];)
  const uint lid = get_local_id(0), first = lid * BS_ITEMS;
  const ulong base = (ulong)get_group_id(0) * BS_TILE;
  const uint count = (uint)min((ulong)BS_TILE, n - base);
  const uint end_w = BS_TILE;
#endif

  KEY_T k[BS_ITEMS];
  BS_IF_VALUES(VALUE_T v[BS_ITEMS];)
  /* Striped, coalesced loads, all issued before the first store to local
   * memory (a load after a store waits for the one before it), padded past
   * n with the largest bits; then blocked reads out of local memory. */
  UNROLL_FULL for (uint j = 0; j < BS_ITEMS; j++) {
    const uint i = j * BS_WG + lid;
    k[j] = i < count ? keys_in[base + i] : 0;
    BS_IF_VALUES(v[j] = i >= count ? 0 : make_index ? (VALUE_T)(base + i) : vals_in[base + i];)
  }
  UNROLL_FULL for (uint j = 0; j < BS_ITEMS; j++) {
    const uint i = j * BS_WG + lid;
    lk[PAD(i)] = i < count ? key_to_bits(k[j], kind, desc) : BS_MAX;
    BS_IF_VALUES(lv[PAD(i)] = v[j];)
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  UNROLL_FULL for (uint i = 0; i < BS_ITEMS; i++) {
    k[i] = lk[PAD(first + i)];
    BS_IF_VALUES(v[i] = lv[PAD(first + i)];)
  }
#if HAS_VALUES || BS_SEGMENTED
  /* BS_ITEMS phases, even and odd in turn; constant starts, so that every
   * loop unrolls and k stays in registers. */
  UNROLL_FULL for (uint r = 0; r < BS_ITEMS / 2; r++) {
    UNROLL_FULL for (uint i = 0; i + 1 < BS_ITEMS; i += 2) BS_CMPX(i);
    UNROLL_FULL for (uint i = 1; i + 1 < BS_ITEMS; i += 2) BS_CMPX(i);
  }
#else
  /* Keys alone: equal order bits are the same key, so stability is moot,
   * and Batcher's bitonic network (80 comparators for 16 keys, against
   * the transposition's 120) orders them. Constant indices: unrolled, k
   * stays in registers. */
  UNROLL_FULL for (uint size = 2; size <= BS_ITEMS; size *= 2) {
    UNROLL_FULL for (uint gap = size / 2; gap > 0; gap /= 2) {
      UNROLL_FULL for (uint i = 0; i < BS_ITEMS; i++) {
        const uint l = i ^ gap;
        if (l > i) {
          const KEY_T x = k[i], y = k[l];
          const bool up = (i & size) == 0;
          k[i] = up ? min(x, y) : max(x, y);
          k[l] = up ? max(x, y) : min(x, y);
        }
      }
    }
  }
#endif

  /* Round w: runs of w keys (blocked in registers) merge into runs of 2w,
   * up to end_w (segmented: no segment spans two runs of end_w, so longer
   * runs are sorted already). The same trip count for every work-item of
   * the group; barriers at the loop's top level only. */
  for (uint w = BS_ITEMS; w < end_w; w *= 2) {
    barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read the last round */
    UNROLL_FULL for (uint i = 0; i < BS_ITEMS; i++) {
      lk[PAD(first + i)] = k[i];
      BS_IF_VALUES(lv[PAD(first + i)] = v[i];)
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* This work-item's outputs are diagonal d of the pair at p: A =
     * [p, p + w), B = [p + w, p + 2w), both full (the tile is padded). */
    const uint p = first & ~(2 * w - 1), d = first - p, a = p, b = p + w;
    uint lo = d > w ? d - w : 0, hi = min(d, w);
    while (lo < hi) {
      const uint mid = (lo + hi) / 2;
      if (BS_FIRST(lk[PAD(a + mid)], a + mid, lk[PAD(b + d - 1 - mid)], b + d - 1 - mid))
        lo = mid + 1;
      else
        hi = mid;
    }
    uint i = lo, j = d - lo;
    KEY_T ka = lk[PAD(a + BS_IN_RUN(i))], kb = lk[PAD(b + BS_IN_RUN(j))];
    BS_IF_VALUES(uint s[BS_ITEMS];)
    UNROLL_FULL for (uint o = 0; o < BS_ITEMS; o++) {
      const bool take_a =
          j >= w || (i < w && BS_FIRST(ka, a + BS_IN_RUN(i), kb, b + BS_IN_RUN(j)));
      k[o] = take_a ? ka : kb;
      BS_IF_VALUES(s[o] = take_a ? a + i : b + j;)
      if (take_a) {
        i++;
        ka = lk[PAD(a + BS_IN_RUN(i))];
      } else {
        j++;
        kb = lk[PAD(b + BS_IN_RUN(j))];
      }
    }
#if HAS_VALUES
    UNROLL_FULL for (uint o = 0; o < BS_ITEMS; o++) v[o] = lv[PAD(s[o])];
#endif
  }

  barrier(CLK_LOCAL_MEM_FENCE);
  UNROLL_FULL for (uint i = 0; i < BS_ITEMS; i++) {
    lk[PAD(first + i)] = k[i];
    BS_IF_VALUES(lv[PAD(first + i)] = v[i];)
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = lid; i < count; i += BS_WG) {
    keys_out[base + i] = bits_to_key(lk[PAD(i)], kind, desc);
    BS_IF_VALUES(vals_out[base + i] = lv[PAD(i)];)
  }
}
#endif
