/* quick.cl: the kernels of the GPU quicksort. Each level partitions every
 * active segment around its own pivot at once. A segment keeps its range
 * [begin, begin + len) from level to level, alternating between two
 * buffers: the keys that go left fill the range from the front, the
 * others from the back (in reverse; the sort is not stable). So a segment
 * is always at its final place, finished segments are never touched
 * again, and each level moves only the keys of active segments.
 *
 * One level:
 *   quick_split  every tile of an active segment ranks its keys by the
 *                pivot in local memory and writes them out coalesced. How
 *                many keys of the segment's earlier tiles went left comes
 *                from a decoupled look-back over those tiles (NVIDIA,
 *                QK_ONESWEEP: one launch), or from quick_count and the
 *                shared scan (elsewhere: spinning on other groups is
 *                unsafe there). Tiles of finished segments that the level
 *                before left in the work buffer are copied to the output.
 *   quick_plan   makes the next level's table from each segment's left
 *                count, and the small sort's list of finished children.
 * Segments of at most one small-sort tile are finished by the segmented
 * small sort (bitonic.cl) in the output, once they are all there (the
 * host batches many levels' lists into one launch).
 *
 * Pivots and equal keys. A segment's pivot is the median of QK_SAMPLES
 * keys drawn one from each of as many equal strata (a fixed pseudo-random
 * point in each), so sorted, reverse and organ-pipe inputs split evenly;
 * every tile of the segment draws the same samples and so the same pivot.
 * If that median exceeds the sample's minimum, keys below it go left: both
 * sides get a key, so both shrink. Otherwise (many keys equal the minimum)
 * keys <= pivot go left and that side is marked PEEL: its next level sends
 * the keys below the pivot left and the rest, all equal to the pivot,
 * right, where they are finished at once. This is the three-way partition
 * spread over two levels; zero input finishes in two.
 *
 * Work buffers hold the caller's keys as they are; every comparison maps
 * them through key_to_bits, so descending order and floats cost nothing
 * here.
 *
 * Needs common.cl, wg_scan.cl@u32, wg_scan.cl@u64 and keys.cl before it,
 * and
 *   HAS_VALUES, VALUE_T  a payload moved with each key (uint or ulong)
 *   QK_ITEMS             keys per work-item of a tile; QK_TILE = WG_SIZE *
 *                        QK_ITEMS keys per work-group, at most 32768
 *   QK_SAMPLES           keys sampled per segment for its pivot (odd)
 *   QK_ONESWEEP          1: quick_split looks back (needs USE_PTX)
 *
 * Loops between barriers run the same trips on every work-item (a striped
 * loop tests its index inside): PoCL mishandles a loop whose trip count
 * differs between work-items when it holds a barrier.
 */
#if !defined(QK_ITEMS) || !defined(QK_SAMPLES) || !defined(HAS_VALUES) || !defined(VALUE_T) || \
    !defined(QK_ONESWEEP)
#error "quick.cl needs QK_ITEMS, QK_SAMPLES, HAS_VALUES, VALUE_T and QK_ONESWEEP"
#endif
#define QK_TILE ((uint)WG_SIZE * QK_ITEMS)
#if WG_SIZE * QK_ITEMS > 32768
#error "quick.cl packs two tile counts into 16-bit halves: QK_TILE must be <= 32768"
#endif
#if QK_ONESWEEP && !USE_PTX
#error "QK_ONESWEEP needs the warp operations of USE_PTX"
#endif

/* A segment of a level's table. Active segments come first, then those to
 * copy out (finished in the work buffer by the level before). `group` is
 * the segment's first tile; tiles are numbered in table order. The first
 * tile of an active segment writes `chosen` and `le` (its pivot and
 * whether keys equal to it went left), the last writes `left` (how many
 * keys went left); state and pivot are what the level starts from. */
typedef struct qk_entry {
  ulong begin, len, group;
  ulong state; /* QK_ACTIVE, QK_PEEL (then `pivot` bounds every key) or QK_COPY */
  ulong pivot, chosen, le, left;
} qk_entry;
#define QK_ACTIVE 0
#define QK_PEEL 1
#define QK_COPY 2

/* The header of a table: active segments, segments to copy, tiles, and
 * finished segments in the small sort's list. */
#define H_ACTIVE 0
#define H_COPIES 1
#define H_GROUPS 2
#define H_FINISHED 3

inline ulong tiles_of(ulong len) { return (len + QK_TILE - 1) / QK_TILE; }

/* splitmix64: the sample offsets' pseudo-random numbers. */
inline ulong qk_mix(ulong x) {
  x += 0x9E3779B97F4A7C15ul;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ul;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBul;
  return x ^ (x >> 31);
}

/* Offset of sample j in a segment of len keys: a point of stratum j. */
inline ulong sample_offset(ulong begin, ulong len, uint j) {
  ulong lo = (ulong)j * len / QK_SAMPLES, hi = (ulong)(j + 1) * len / QK_SAMPLES;
  ulong width = hi > lo ? hi - lo : 1;
  return lo + qk_mix(begin * 31 + len * 0x9E37 + j) % width;
}

/* Starts a sort: the table holds the whole input as one active segment.
 * One work-item. */
KERNEL void quick_init(__global ulong *aux, ulong table_at, ulong header_at, ulong n) {
  if (get_global_id(0) != 0) return;
  __global qk_entry *t = (__global qk_entry *)(aux + table_at);
  t[0].begin = 0;
  t[0].len = n;
  t[0].group = 0;
  t[0].state = QK_ACTIVE;
  t[0].pivot = t[0].chosen = t[0].le = t[0].left = 0;
  aux[header_at + H_ACTIVE] = 1;
  aux[header_at + H_COPIES] = 0;
  aux[header_at + H_GROUPS] = tiles_of(n);
  aux[header_at + H_FINISHED] = 0;
}

/* The entry whose tiles hold tile t: the last whose first tile is at most
 * t. Each round every work-item tests one of WG_SIZE evenly spaced points
 * of (lo, hi]; the neighbouring votes that differ narrow hi - lo to at
 * most (hi - lo) / (WG_SIZE + 1) (a binary search for one work-item).
 * The rounds are counted from that bound, the same on every work-item:
 * PoCL spins forever on a barrier loop left by a data-dependent break.
 * Every work-item calls it; with no entries it returns 0. */
inline ulong find_entry(const __global qk_entry *table, ulong entries, ulong t,
                        __local ulong *range, __local uchar *votes) {
  const uint lid = get_local_id(0);
  const ulong last = entries ? entries - 1 : 0;
  if (lid == 0) {
    range[0] = 0;
    range[1] = last;
  }
  WG_BARRIER();
  for (ulong span = last; span > 0; span /= WG_SIZE + 1) {
    const ulong lo = range[0], hi = range[1];
    const ulong p = lo + ((lid + 1) * (hi - lo) + WG_SIZE) / (WG_SIZE + 1);
    const bool v = lo < hi && table[p].group <= t;
    votes[lid] = v;
    WG_BARRIER();
    /* Two flat ifs, not one nested in another: PoCL 5's work-group
     * compiler crashes on the nested form inside this barrier loop. */
    if (lo < hi && v && (lid == WG_SIZE - 1 || !votes[lid + 1])) range[0] = p;
    if (lo < hi && !v && (lid == 0 || votes[lid - 1])) range[1] = p - 1;
    WG_BARRIER();
  }
  const ulong e = range[0];
  WG_BARRIER(); /* range may be reused */
  return e;
}

/* The pivot of an active segment and whether keys equal to it go left:
 * for a sampled segment, the sample's median by rank (ties by index); for
 * a PEEL segment its recorded bound, equal keys right. Every work-item
 * calls it, for copied segments too (active false); barriers stay outside
 * the branches. */
inline void choose_pivot(const __global KEY_T *keys, qk_entry en, bool active, int kind, int desc,
                         __local KEY_T *samples, __local KEY_T *picked, KEY_T *pivot, bool *le) {
  const uint lid = get_local_id(0);
  const bool sampled = active && en.state == QK_ACTIVE;
  for (uint j0 = 0; j0 < QK_SAMPLES; j0 += WG_SIZE) {
    uint j = j0 + lid;
    if (sampled && j < QK_SAMPLES)
      samples[j] = key_to_bits(keys[en.begin + sample_offset(en.begin, en.len, j)], kind, desc);
  }
  WG_BARRIER();
  for (uint j0 = 0; j0 < QK_SAMPLES; j0 += WG_SIZE) {
    uint j = j0 + lid;
    if (sampled && j < QK_SAMPLES) {
      KEY_T s = samples[j];
      uint rank = 0;
      for (uint x = 0; x < QK_SAMPLES; x++) {
        KEY_T o = samples[x];
        rank += o < s || (o == s && x < j);
      }
      if (rank == QK_SAMPLES / 2) picked[0] = s;
      if (rank == 0) picked[1] = s;
    }
  }
  WG_BARRIER();
  *pivot = (KEY_T)en.pivot;
  *le = false;
  if (sampled) {
    *pivot = picked[0];
    *le = !(picked[0] > picked[1]);
  }
  WG_BARRIER(); /* picked may be reused */
}

/* Loads a tile's keys, striped: item j of work-item l is key j * WG_SIZE
 * + l of the tile. Called before the pivot is chosen, so that the loads
 * are in flight while the samples are ranked. */
inline void load_tile(const __global KEY_T *keys, ulong first, uint len, KEY_T *k) {
  const uint lid = get_local_id(0);
UNROLL
  for (uint j = 0; j < QK_ITEMS; j++) {
    const uint pos = j * WG_SIZE + lid;
    k[j] = pos < len ? keys[first + pos] : (KEY_T)0;
  }
}

/* Flags of a tile's items, one bit each (registers, not an array of
 * bytes: the split kernel's occupancy is bound by its registers). */
#define QK_MASK_WORDS ((QK_ITEMS + 31) / 32)
inline bool is_left(const uint *mask, uint j) { return (mask[j >> 5] >> (j & 31)) & 1u; }

/* Flags the loaded keys that go left; returns this work-item's count of
 * them. */
inline uint flag_tile(const KEY_T *k, uint len, KEY_T pivot, bool le, int kind, int desc,
                      uint *mask) {
  const uint lid = get_local_id(0);
  uint count = 0;
UNROLL
  for (uint w = 0; w < QK_MASK_WORDS; w++) mask[w] = 0;
UNROLL
  for (uint j = 0; j < QK_ITEMS; j++) {
    const KEY_T b = key_to_bits(k[j], kind, desc);
    const uint f = j * WG_SIZE + lid < len && (le ? b <= pivot : b < pivot);
    mask[j >> 5] |= f << (j & 31);
    count += f;
  }
  return count;
}

/* What a group of the level works on. Groups past the level's tiles get
 * none (len 0, neither active nor copied) and still run through every
 * barrier: PoCL miscompiles a kernel that returns early there (an endless
 * loop in quick_count). */
typedef struct qk_tile {
  ulong e;     /* its table entry */
  qk_entry en; /* that entry */
  ulong first; /* its first key */
  uint len;    /* its keys */
  bool active; /* of an active segment */
  bool copied; /* of a segment to copy out */
} qk_tile;

inline qk_tile locate_tile(const __global ulong *aux, ulong table_at, ulong header_at, ulong t,
                           __local ulong *range, __local uchar *votes) {
  const __global qk_entry *table = (const __global qk_entry *)(aux + table_at);
  const ulong active = aux[header_at + H_ACTIVE];
  const ulong entries = active + aux[header_at + H_COPIES];
  const bool in_level = t < aux[header_at + H_GROUPS];
  qk_tile tile;
  tile.e = find_entry(table, in_level ? entries : 0, t, range, votes);
  tile.en = table[tile.e];
  tile.first = tile.en.begin + (t - tile.en.group) * QK_TILE;
  tile.len = in_level ? (uint)min((ulong)QK_TILE, tile.en.begin + tile.en.len - tile.first) : 0;
  tile.active = in_level && tile.e < active;
  tile.copied = in_level && !tile.active;
  return tile;
}

#if !QK_ONESWEEP
/* counts[t] = keys of tile t that go left (0 for tiles that copy and for
 * groups past the level's tiles). Work-group: WG_SIZE, one per tile. */
KERNEL void quick_count(const __global KEY_T *keys, __global ulong *aux, ulong table_at,
                        ulong header_at, __global ulong *counts, int kind, int desc) {
  __local uint tmp[WG_SIZE];
  __local KEY_T samples[QK_SAMPLES];
  __local KEY_T picked[2]; /* the sample's median and minimum */
  __local ulong range[2];
  __local uchar votes[WG_SIZE];
  const ulong t = get_group_id(0);
  const qk_tile tile = locate_tile(aux, table_at, header_at, t, range, votes);
  const uint len = tile.active ? tile.len : 0;
  KEY_T k[QK_ITEMS];
  load_tile(keys, tile.first, len, k);
  KEY_T pivot;
  bool le;
  choose_pivot(keys, tile.en, tile.active, kind, desc, samples, picked, &pivot, &le);
  uint mask[QK_MASK_WORDS];
  uint c = flag_tile(k, len, pivot, le, kind, desc, mask);
  uint total = wg_reduce_u32(c, 0, tmp);
  if (get_local_id(0) == 0) counts[t] = total;
}
#endif

/* Staging for one tile of keys, then of values: room for the wider. */
#if HAS_VALUES
#define QK_STAGE_BYTES (sizeof(KEY_T) > sizeof(VALUE_T) ? sizeof(KEY_T) : sizeof(VALUE_T))
#else
#define QK_STAGE_BYTES sizeof(KEY_T)
#endif

/* Output slots in the tile: the keys that go left first, then the
 * others. One scan of the work-items' counts (left keys in the low 16
 * bits, all keys in the high 16) gives each work-item its first left and
 * first right slot; its items then take consecutive slots, in item order
 * (slot_of, called for every j in order, once for the keys and once for
 * the values). Measured on an H100 against slots in position order from
 * warp votes, which makes the staging stores conflict-free: 2.59 against
 * 2.83 ms (2^24 u32); the votes cost more than the bank conflicts. */
typedef struct qk_rank {
  uint tile_left; /* keys of the tile that go left */
  uint l, r;      /* this work-item's next left and right slots */
} qk_rank;

inline qk_rank rank_tile(uint count, uint len, __local uint *tmp) {
  const uint lid = get_local_id(0);
  uint valid = 0;
UNROLL
  for (uint j = 0; j < QK_ITEMS; j++) valid += j * WG_SIZE + lid < len;
  uint total;
  uint before = wg_exclusive_sum_u32(count | (valid << 16), &total, tmp);
  qk_rank rk;
  rk.tile_left = total & 0xFFFFu;
  rk.l = before & 0xFFFFu;
  rk.r = rk.tile_left + ((before >> 16) - rk.l);
  return rk;
}

inline uint slot_of(uint j, const uint *mask, qk_rank *rk) {
  return is_left(mask, j) ? rk->l++ : rk->r++;
}

/* One tile per work-group. Active segment: its keys (and values) go to
 * keys_to (vals_to) within the segment's range, those that go left at
 * begin + (left keys of earlier tiles) + rank, the others at end - 1 -
 * (right keys of earlier tiles) - rank. A segment to copy: its keys and
 * values go to the same place in keys_to and vals_to (the output), where
 * the small sort finds them. make_index: the values are the keys'
 * positions (level 0 of an argsort).
 * `tiles`: QK_ONESWEEP: the ticket in tiles[0] and tile t's status word in
 * tiles[1 + t], zero at launch; otherwise the exclusive scan of
 * quick_count's counts. Work-group: WG_SIZE. Local: a tile of the wider of
 * key and value, the samples, the search's votes, the scan's WG_SIZE
 * uints. */
KERNEL void quick_split(const __global KEY_T *keys, const __global VALUE_T *vals,
                        __global KEY_T *keys_to, __global VALUE_T *vals_to, __global ulong *aux,
                        ulong table_at, ulong header_at, __global ulong *tiles, int make_index,
                        int kind, int desc) {
  __local ulong stage[(QK_TILE * QK_STAGE_BYTES + 7) / 8];
  __local uint tmp[WG_SIZE];
  __local KEY_T samples[QK_SAMPLES];
  __local KEY_T picked[2];
  __local ulong range[2];
  __local uchar votes[WG_SIZE];
  __local uint seg_before; /* left keys of the segment's earlier tiles */
  const uint lid = get_local_id(0);
  __global qk_entry *table = (__global qk_entry *)(aux + table_at);
#if QK_ONESWEEP
  __local uint ticket;
  if (lid == 0) ticket = atomic_inc((volatile __global uint *)tiles);
  WG_BARRIER();
  const ulong t = ticket;
  volatile __global ulong *status = (volatile __global ulong *)(tiles + 1);
  if (t >= aux[header_at + H_GROUPS]) return; /* NVIDIA only: PoCL never runs this */
#else
  const ulong t = get_group_id(0);
#endif
  const qk_tile tile = locate_tile(aux, table_at, header_at, t, range, votes);
  const qk_entry en = tile.en;
  const bool act = tile.active;
  if (tile.copied) {
    for (uint j = 0; j < QK_ITEMS; j++) {
      const uint pos = j * WG_SIZE + lid;
      if (pos < tile.len) {
        keys_to[tile.first + pos] = keys[tile.first + pos];
#if HAS_VALUES
        vals_to[tile.first + pos] = vals[tile.first + pos];
#endif
      }
    }
  }
  const uint len = act ? tile.len : 0;

  KEY_T k[QK_ITEMS];
  load_tile(keys, tile.first, len, k);
  KEY_T pivot;
  bool le;
  choose_pivot(keys, en, act, kind, desc, samples, picked, &pivot, &le);
  uint mask[QK_MASK_WORDS];
  uint c = flag_tile(k, len, pivot, le, kind, desc, mask);
  const qk_rank ranked = rank_tile(c, len, tmp);
  const uint tile_left = ranked.tile_left;
  /* Left keys of the segment's earlier tiles. */
  const ulong index = t - en.group; /* this tile within its segment */
#if QK_ONESWEEP
  if (!act) {
    /* nothing to publish: no tile of a copied segment is waited on */
  } else if (index == 0) {
    if (lid == 0) {
      status[t] = status_word_u32(FLAG_INCLUSIVE, tile_left);
      seg_before = 0;
    }
  } else {
    if (lid == 0) status[t] = status_word_u32(FLAG_AGGREGATE, tile_left);
    if (warp_id() == 0) {
      uint b = look_back_u32(status, (long)t, (long)en.group);
      if (lid == 0) {
        status[t] = status_word_u32(FLAG_INCLUSIVE, b + tile_left);
        seg_before = b;
      }
    }
  }
  WG_BARRIER();
  const ulong left_before = seg_before;
#else
  const ulong left_before = act ? tiles[t] - tiles[en.group] : 0;
#endif
  const ulong right_before = index * QK_TILE - left_before;
  if (lid == 0 && act) {
    if (index == 0) {
      table[tile.e].chosen = pivot;
      table[tile.e].le = le;
    }
    if (index == tiles_of(en.len) - 1) table[tile.e].left = left_before + tile_left;
  }

  /* Stage in output order, then write coalesced runs: the left keys
   * forward from where the earlier tiles' stopped, the others backward. */
  const ulong to_left = en.begin + left_before;
  const ulong to_right = en.begin + en.len - 1 - right_before + tile_left; /* minus s */
  __local KEY_T *sk = (__local KEY_T *)stage;
  qk_rank rk = ranked;
UNROLL
  for (uint j = 0; j < QK_ITEMS; j++) {
    const uint slot = slot_of(j, mask, &rk);
    if (j * WG_SIZE + lid < len) sk[slot] = k[j];
  }
  WG_BARRIER();
UNROLL
  for (uint j = 0; j < QK_ITEMS; j++) {
    const uint s = j * WG_SIZE + lid;
    if (s < len) keys_to[s < tile_left ? to_left + s : to_right - s] = sk[s];
  }
#if HAS_VALUES
  WG_BARRIER();
  __local VALUE_T *sv = (__local VALUE_T *)stage;
  rk = ranked;
UNROLL
  for (uint j = 0; j < QK_ITEMS; j++) {
    const uint pos = j * WG_SIZE + lid;
    const uint slot = slot_of(j, mask, &rk);
    if (pos < len) sv[slot] = make_index ? (VALUE_T)(tile.first + pos) : vals[tile.first + pos];
  }
  WG_BARRIER();
UNROLL
  for (uint j = 0; j < QK_ITEMS; j++) {
    const uint s = j * WG_SIZE + lid;
    if (s < len) vals_to[s < tile_left ? to_left + s : to_right - s] = sv[s];
  }
#endif
}

/* A child of a partitioned segment. kind: 0 empty, 1 active, 2 finished
 * (to be small-sorted), 3 finished (all keys equal). */
typedef struct qk_child {
  ulong begin, len, state, pivot;
  uint kind;
} qk_child;

inline uint child_kind(ulong len, bool equal, ulong small) {
  return len == 0 ? 0u : equal ? 3u : len <= small ? 2u : 1u;
}

/* The children of active segment en after its split: the keys that went
 * left, then the others. A PEEL segment's right side holds only keys equal
 * to its pivot. */
inline void children(qk_entry en, ulong small, qk_child *c) {
  c[0].begin = en.begin;
  c[0].len = en.left;
  c[0].state = en.le ? QK_PEEL : QK_ACTIVE;
  c[0].pivot = en.chosen;
  c[0].kind = child_kind(en.left, false, small);
  c[1].begin = en.begin + en.left;
  c[1].len = en.len - en.left;
  c[1].state = QK_ACTIVE;
  c[1].pivot = 0;
  c[1].kind = child_kind(en.len - en.left, en.state == QK_PEEL, small);
}

/* Per-segment counts packed for one scan: active children, finished ones
 * and copies in 21-bit fields (a chunk has at most WG_SIZE segments, so at
 * most 2 * WG_SIZE of each); the tiles of active children and of copies in
 * 32-bit halves. */
#define PACK3(a, b, c) ((ulong)(a) | ((ulong)(b) << 21) | ((ulong)(c) << 42))
#define FIELD3(x, i) (((x) >> (21 * (i))) & 0x1FFFFFul)
#define PACK2(a, b) ((ulong)(a) | ((ulong)(b) << 32))
#define LOW(x) ((x) & 0xFFFFFFFFul)
#define HIGH(x) ((x) >> 32)

/* Segment e's children and their packed counts (zero past `active`).
 * copy: finished children lie in the work buffer and the next level must
 * copy them out. */
inline void count_children(const __global qk_entry *in, ulong e, ulong active, ulong small,
                           bool copy, qk_child *c, ulong *counts, ulong *tiles) {
  *counts = *tiles = 0;
  if (e >= active) return;
  children(in[e], small, c);
  uint act = 0, fin = 0;
  ulong act_tiles = 0, fin_tiles = 0;
  for (int s = 0; s < 2; s++) {
    if (c[s].kind == 1) {
      act++;
      act_tiles += tiles_of(c[s].len);
    } else if (c[s].kind >= 2) {
      fin++;
      fin_tiles += tiles_of(c[s].len);
    }
  }
  *counts = PACK3(act, fin, copy ? fin : 0);
  *tiles = PACK2(act_tiles, copy ? fin_tiles : 0);
}

/* Plans the next level from table `in` (header hin) after its split.
 * Writes table `out` with its header, and the level's part of the small
 * sort's segment list, from entry list_at: for each finished child,
 * [begin, end) when it needs sorting, else [0, 0), and [0, 0) on up to
 * list_len entries, the most the level can finish. copy: the level wrote the work
 * buffer, so finished children become copy entries of the next level.
 * QK_ONESWEEP: zeroes the ticket and the status words the level used.
 * One work-group; its two loops walk the table in chunks of WG_SIZE
 * segments, every work-item the same number of times: the first sums
 * what the second needs to place the copies after the active children.
 * Local: the scan layer's WG_SIZE ulongs. */
KERNEL void quick_plan(__global ulong *aux, ulong in_at, ulong hin_at, ulong out_at,
                       ulong hout_at, ulong small, ulong list_at, ulong list_len, int copy,
                       __global ulong *tiles) {
  __local ulong tmp[WG_SIZE];
  const uint lid = get_local_id(0);
  const __global qk_entry *in = (const __global qk_entry *)(aux + in_at);
  __global qk_entry *out = (__global qk_entry *)(aux + out_at);
  __global ulong *list = aux + 2 * list_at; /* the small sort's list is at aux[0] */
  const ulong active = aux[hin_at + H_ACTIVE];
#if QK_ONESWEEP
  const ulong used = aux[hin_at + H_GROUPS];
  for (ulong i0 = 0; i0 <= used; i0 += WG_SIZE)
    if (i0 + lid <= used) tiles[i0 + lid] = 0;
#endif

  /* 1. Totals: active children and their tiles. */
  ulong next_active = 0, active_tiles = 0;
  for (ulong base = 0; base < active; base += WG_SIZE) {
    qk_child c[2];
    ulong counts, t;
    count_children(in, base + lid, active, small, copy, c, &counts, &t);
    next_active += FIELD3(wg_reduce_u64(counts, 0, tmp), 0);
    active_tiles += LOW(wg_reduce_u64(t, 0, tmp));
  }

  /* 2. Place the children and number their tiles. Invariant: the running
   * sums count the children of the chunks before this one. */
  ulong a_done = 0, f_done = 0, c_done = 0, at_done = 0, ct_done = 0;
  for (ulong base = 0; base < active; base += WG_SIZE) {
    const ulong e = base + lid;
    qk_child c[2];
    ulong counts, t, chunk_counts, chunk_tiles;
    count_children(in, e, active, small, copy, c, &counts, &t);
    ulong at = wg_exclusive_sum_u64(counts, &chunk_counts, tmp);
    ulong tat = wg_exclusive_sum_u64(t, &chunk_tiles, tmp);
    if (e < active) {
      ulong slot = a_done + FIELD3(at, 0), group = at_done + LOW(tat);
      ulong fin = f_done + FIELD3(at, 1);
      ulong copy_slot = next_active + c_done + FIELD3(at, 2);
      ulong copy_group = active_tiles + ct_done + HIGH(tat);
      for (int s = 0; s < 2; s++) {
        __global qk_entry *o;
        if (c[s].kind == 1) {
          o = &out[slot++];
          o->group = group;
          group += tiles_of(c[s].len);
          o->state = c[s].state;
        } else if (c[s].kind >= 2) {
          list[2 * fin] = c[s].kind == 2 ? c[s].begin : 0;
          list[2 * fin + 1] = c[s].kind == 2 ? c[s].begin + c[s].len : 0;
          fin++;
          if (!copy) continue;
          o = &out[copy_slot++];
          o->group = copy_group;
          copy_group += tiles_of(c[s].len);
          o->state = QK_COPY;
        } else {
          continue;
        }
        o->begin = c[s].begin;
        o->len = c[s].len;
        o->pivot = c[s].pivot;
        o->chosen = o->le = o->left = 0;
      }
    }
    a_done += FIELD3(chunk_counts, 0);
    f_done += FIELD3(chunk_counts, 1);
    c_done += FIELD3(chunk_counts, 2);
    at_done += LOW(chunk_tiles);
    ct_done += HIGH(chunk_tiles);
  }
  for (ulong i0 = f_done; i0 < list_len; i0 += WG_SIZE) {
    const ulong i = i0 + lid;
    if (i < list_len) list[2 * i] = list[2 * i + 1] = 0;
  }
  if (lid == 0) {
    aux[hout_at + H_ACTIVE] = next_active;
    aux[hout_at + H_COPIES] = c_done;
    aux[hout_at + H_GROUPS] = at_done + ct_done;
    aux[hout_at + H_FINISHED] = f_done;
  }
}
