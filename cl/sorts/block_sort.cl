/* block_sort.cl: the merge sort's run formation on GPUs, in the shape of
 * CUB's BlockMergeSort. Each group sorts one tile of BS_TILE = BS_WG *
 * BS_ITEMS keys: every work-item sorts its BS_ITEMS keys in registers
 * (an odd-even transposition network, which is stable: it swaps only
 * strictly greater neighbours), then log2(BS_WG) rounds double the sorted
 * runs, each work-item finding its BS_ITEMS outputs of a pair of runs by
 * merge path in local memory and merging them serially into registers.
 * A round costs two barriers and about 2 * BS_ITEMS local accesses per
 * work-item, where the bitonic tile it replaces costs a barrier and a
 * local exchange per network step (91 steps for 8192 keys).
 *
 * Stable: the network and the merges (the left run's key first on ties)
 * keep equal keys in input order, and the slots past n hold the largest
 * bits after every real key, so they stay last.
 *
 * Needs common.cl and keys.cl before it, and
 *   HAS_VALUES, VALUE_T  a payload moved with each key (uint or ulong)
 *   BS_WG, BS_ITEMS      work-items per group, keys per work-item (powers
 *                        of two); without BS_WG (CPU shapes) nothing here
 *                        is compiled.
 */
#ifdef BS_WG
#if !defined(BS_ITEMS) || !defined(HAS_VALUES) || !defined(VALUE_T)
#error "block_sort.cl needs BS_ITEMS, HAS_VALUES and VALUE_T"
#endif

#define BS_TILE (BS_WG * BS_ITEMS)
#define BS_MAX ((KEY_T)(~(KEY_T)0))

#if HAS_VALUES
#define BS_IF_VALUES(...) __VA_ARGS__
#else
#define BS_IF_VALUES(...)
#endif

/* Orders neighbours i and i + 1 of the registers, equal keys kept. The
 * values swap through an xor mask: a select between the two would let
 * the compiler pick an address instead, and move v out of registers. */
#define BS_CMPX(i)                                                              \
  do {                                                                          \
    const KEY_T ka_ = k[i], kb_ = k[(i) + 1];                                   \
    BS_IF_VALUES(const VALUE_T x_ = (v[i] ^ v[(i) + 1]) & (VALUE_T)(-(VALUE_T)(kb_ < ka_)); \
                 v[i] ^= x_; v[(i) + 1] ^= x_;)                                  \
    k[i] = min(ka_, kb_);                                                       \
    k[(i) + 1] = max(ka_, kb_);                                                 \
  } while (0)

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
  /* BS_ITEMS phases, even and odd in turn; constant starts, so that every
   * loop unrolls and k stays in registers. */
  UNROLL_FULL for (uint r = 0; r < BS_ITEMS / 2; r++) {
    UNROLL_FULL for (uint i = 0; i + 1 < BS_ITEMS; i += 2) BS_CMPX(i);
    UNROLL_FULL for (uint i = 1; i + 1 < BS_ITEMS; i += 2) BS_CMPX(i);
  }

  /* Round w: runs of w keys (blocked in registers) merge into runs of 2w.
   * The same trip count for every work-item; barriers at the loop's top
   * level only. */
  for (uint w = BS_ITEMS; w < BS_TILE; w *= 2) {
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
      if (lk[PAD(a + mid)] <= lk[PAD(b + d - 1 - mid)])
        lo = mid + 1;
      else
        hi = mid;
    }
    uint i = lo, j = d - lo;
    /* Reads past a run's end are clamped into it and never taken. */
    KEY_T ka = lk[PAD(a + min(i, w - 1))], kb = lk[PAD(b + min(j, w - 1))];
    BS_IF_VALUES(uint s[BS_ITEMS];)
    UNROLL_FULL for (uint o = 0; o < BS_ITEMS; o++) {
      const bool take_a = j >= w || (i < w && ka <= kb);
      k[o] = take_a ? ka : kb;
      BS_IF_VALUES(s[o] = take_a ? a + i : b + j;)
      if (take_a) {
        i++;
        ka = lk[PAD(a + min(i, w - 1))];
      } else {
        j++;
        kb = lk[PAD(b + min(j, w - 1))];
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
