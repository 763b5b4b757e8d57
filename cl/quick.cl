/* quick.cl: the kernels of the GPU quicksort. Each level partitions every
 * active segment around its own pivot at once: quick_flags marks the keys
 * that go left (and copies finished segments out), the shared split
 * (select.cl) moves all keys and values stably by those flags, and
 * quick_plan derives from per-tile flag counts where each segment's two
 * children landed. Segments of at most one small-sort tile are finished by
 * the segmented small sort (bitonic.cl) in the work buffer, then copied to
 * their final place by the next level's quick_flags.
 *
 * Layout. The split is global: the flagged keys of all segments come
 * first, in segment order, then all the others. A segment therefore does
 * not stay in its final range; the table records where it is (begin) and
 * where it belongs (final). Finished segments are copied out at once, and
 * what they leave in the work buffer is dead: flagged 0, moved along,
 * never read again.
 *
 * Pivots and equal keys. A segment's pivot is the median of QK_SAMPLES
 * keys drawn one from each of as many equal strata (a fixed pseudo-random
 * point in each), so sorted, reverse and organ-pipe inputs split evenly.
 * If that median exceeds the sample's minimum, keys below it go left: both
 * sides get a key, so both shrink. Otherwise (many keys equal the minimum)
 * keys <= pivot go left and that side is marked PEEL: its next level sends
 * the keys below the pivot left and the rest, all equal to the pivot,
 * right, where they are finished at once. This is the three-way partition
 * spread over two levels; zero input finishes in two (and a third that
 * copies it out).
 *
 * Work buffers hold the caller's keys as they are; every comparison maps
 * them through key_to_bits, so descending order and floats cost nothing
 * here.
 *
 * Needs common.cl, wg_scan.cl@u32, wg_scan.cl@u64 and keys.cl before it,
 * and
 *   HAS_VALUES, VALUE_T  a payload moved with each key (uint or ulong)
 *   QK_ITEMS             keys per work-item of a flag tile; QK_TILE =
 *                        WG_SIZE * QK_ITEMS keys per work-group
 *   QK_SAMPLES           keys sampled per segment for its pivot (odd)
 *
 * Loops between barriers run the same trips on every work-item (a striped
 * loop tests its index inside): PoCL mishandles a loop whose trip count
 * differs between work-items when it holds a loop of its own.
 */
#if !defined(QK_ITEMS) || !defined(QK_SAMPLES) || !defined(HAS_VALUES) || !defined(VALUE_T)
#error "quick.cl needs QK_ITEMS, QK_SAMPLES, HAS_VALUES and VALUE_T"
#endif
#define QK_TILE ((ulong)WG_SIZE * QK_ITEMS)

/* A segment of the table. Active segments come first, in the order of
 * their positions in the work buffer; finished ones (to be copied out)
 * follow. `group` is the first flag tile (work-group) of the segment;
 * tiles are numbered in table order. quick_flags writes `chosen` and `le`
 * (its pivot and whether keys equal to it went left); state and pivot are
 * what the level starts from. */
typedef struct qk_entry {
  ulong begin, len, final, group;
  ulong state; /* QK_ACTIVE or QK_PEEL (then `pivot` is every key's upper bound) */
  ulong pivot, chosen, le;
} qk_entry;
#define QK_ACTIVE 0
#define QK_PEEL 1

/* The header of a table: active segments, finished segments, flag tiles. */
#define H_ACTIVE 0
#define H_FINISHED 1
#define H_GROUPS 2

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

/* Starts a sort: table 0 holds the whole input as one active segment. One
 * work-item. */
KERNEL void quick_init(global ulong *aux, ulong table_at, ulong header_at, ulong n) {
  if (get_global_id(0) != 0) return;
  global qk_entry *t = (global qk_entry *)(aux + table_at);
  t[0].begin = 0;
  t[0].len = n;
  t[0].final = 0;
  t[0].group = 0;
  t[0].state = QK_ACTIVE;
  t[0].pivot = t[0].chosen = t[0].le = 0;
  aux[header_at + H_ACTIVE] = 1;
  aux[header_at + H_FINISHED] = 0;
  aux[header_at + H_GROUPS] = (n + QK_TILE - 1) / QK_TILE;
}

/* vals[i] = i: the argsort's indices. Group g writes tile g. */
KERNEL void quick_iota(global VALUE_T *vals, ulong n) {
  ulong first = (ulong)get_group_id(0) * QK_TILE;
  ulong end = min(n, first + QK_TILE);
  for (ulong i = first + get_local_id(0); i < end; i += WG_SIZE) vals[i] = (VALUE_T)i;
}

/* One flag tile per work-group: group g works on tile g - group of the
 * segment whose tiles hold g. Active segment: flags[i] = 1 for the keys
 * that go left, counts[1 + g] = how many. Finished segment: its keys and
 * values go to their final place (keys only with write_keys), counts[1 + g]
 * = 0. Groups past the header's tile count write counts[1 + g] = 0; group 0
 * also zeroes counts[0], which the scan over counts[0 .. groups] needs.
 * Every group of a segment draws the same samples and so the same pivot.
 * Work-group: WG_SIZE. Local: the samples, the search's votes, the scan
 * layer's WG_SIZE uints. */
KERNEL void quick_flags(const global KEY_T *keys, const global VALUE_T *vals,
                        global uchar *flags, global ulong *aux, ulong table_at, ulong header_at,
                        global ulong *counts, global KEY_T *keys_out, global VALUE_T *vals_out,
                        int write_keys, int kind, int desc) {
  local uint tmp[WG_SIZE];
  local KEY_T samples[QK_SAMPLES];
  local KEY_T picked[2]; /* the sample's median and minimum */
  local ulong range[2];
  local uchar votes[WG_SIZE];
  const uint lid = get_local_id(0);
  const ulong g = get_group_id(0);
  global qk_entry *table = (global qk_entry *)(aux + table_at);
  const ulong active = aux[header_at + H_ACTIVE];
  const ulong entries = active + aux[header_at + H_FINISHED];
  if (g == 0 && lid == 0) counts[0] = 0;
  if (g >= aux[header_at + H_GROUPS]) {
    if (lid == 0) counts[1 + g] = 0;
    return; /* the whole group leaves: nothing to do */
  }
  /* The segment: the last whose first tile is at most g, within [lo, hi].
   * Each round every work-item tests one of WG_SIZE evenly spaced points
   * of (lo, hi]; the neighbouring votes that differ narrow the range by a
   * factor of WG_SIZE + 1 (a binary search for one work-item). */
  if (lid == 0) {
    range[0] = 0;
    range[1] = entries - 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (;;) {
    const ulong lo = range[0], hi = range[1];
    if (lo >= hi) break;
    const ulong p = lo + ((lid + 1) * (hi - lo) + WG_SIZE) / (WG_SIZE + 1);
    const bool v = table[p].group <= g;
    votes[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (v && (lid == WG_SIZE - 1 || !votes[lid + 1])) range[0] = p;
    if (!v && (lid == 0 || votes[lid - 1])) range[1] = p - 1;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const ulong e = range[0];
  const qk_entry en = table[e];
  const bool is_active = e < active, sampled = is_active && en.state == QK_ACTIVE;
  const ulong first = en.begin + (g - en.group) * QK_TILE;
  const uint len = (uint)min(QK_TILE, en.begin + en.len - first);

  /* The pivot: the sample's median by rank (ties by index). Barriers stay
   * outside the branches, and every work-item runs the same trips. */
  for (uint j0 = 0; j0 < QK_SAMPLES; j0 += WG_SIZE) {
    uint j = j0 + lid;
    if (sampled && j < QK_SAMPLES)
      samples[j] = key_to_bits(keys[en.begin + sample_offset(en.begin, en.len, j)], kind, desc);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
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
  barrier(CLK_LOCAL_MEM_FENCE);
  KEY_T pivot = (KEY_T)en.pivot;
  bool le = false;
  if (sampled) {
    pivot = picked[0];
    le = !(picked[0] > picked[1]);
  }
  if (is_active && g == en.group && lid == 0) {
    table[e].chosen = pivot;
    table[e].le = le;
  }

  /* Striped over the tile; every work-item runs the same trips (PoCL). */
  uint c = 0;
  const ulong to = en.final + (first - en.begin);
  for (uint i0 = 0; i0 < len; i0 += WG_SIZE) {
    const uint i = i0 + lid;
    if (i < len) {
      if (is_active) {
        KEY_T k = key_to_bits(keys[first + i], kind, desc);
        uchar f = le ? k <= pivot : k < pivot;
        flags[first + i] = f;
        c += f;
      } else {
        if (write_keys) keys_out[to + i] = keys[first + i];
#if HAS_VALUES
        vals_out[to + i] = vals[first + i];
#endif
      }
    }
  }
  uint total = wg_reduce_u32(c, 0, tmp);
  if (lid == 0) counts[1 + g] = total;
}

/* A child of a partitioned segment. kind: 0 empty, 1 active, 2 finished
 * (to be small-sorted), 3 finished (all keys equal). */
typedef struct qk_child {
  ulong begin, len, final, state, pivot;
  uint kind;
} qk_child;

inline uint child_kind(ulong len, bool equal, ulong small) {
  return len == 0 ? 0u : equal ? 3u : len <= small ? 2u : 1u;
}

/* The children of active segment en after the split. scan[1 + g] counts
 * the flags of tiles before g; `total` is all flags. Left: its flagged
 * keys, at the flags before it. Right: the rest, after all flagged keys
 * and the unflagged ones before it. */
inline void children(qk_entry en, const global ulong *scan, ulong total, ulong small,
                     qk_child *c) {
  ulong tiles = (en.len + QK_TILE - 1) / QK_TILE;
  ulong before = scan[1 + en.group], left = scan[1 + en.group + tiles] - before;
  c[0].begin = before;
  c[0].len = left;
  c[0].final = en.final;
  c[0].state = en.le ? QK_PEEL : QK_ACTIVE;
  c[0].pivot = en.chosen;
  c[0].kind = child_kind(left, false, small);
  c[1].begin = total + (en.begin - before);
  c[1].len = en.len - left;
  c[1].final = en.final + left;
  c[1].state = QK_ACTIVE;
  c[1].pivot = 0;
  /* A PEEL segment's right side holds only keys equal to its pivot. */
  c[1].kind = child_kind(en.len - left, en.state == QK_PEEL, small);
}

/* Per-chunk sums packed for one scan: active left children, active
 * right ones and finished ones in 21-bit fields (a chunk has at most
 * WG_SIZE segments, so at most 2 * WG_SIZE of each); the flag tiles of
 * left and right children in 32-bit halves. */
#define PACK3(a, b, c) ((ulong)(a) | ((ulong)(b) << 21) | ((ulong)(c) << 42))
#define FIELD3(x, i) (((x) >> (21 * (i))) & 0x1FFFFFul)
#define PACK2(a, b) ((ulong)(a) | ((ulong)(b) << 32))
#define LOW(x) ((x) & 0xFFFFFFFFul)
#define HIGH(x) ((x) >> 32)

inline ulong tiles_of(const qk_child *c) { return (c->len + QK_TILE - 1) / QK_TILE; }

/* One segment's children and their packed counts (see PACK3, PACK2):
 * `tiles_fin` is the flag tiles of its finished children. */
inline void count_children(const global qk_entry *in, ulong e, ulong active,
                           const global ulong *scan, ulong total, ulong small, qk_child *c,
                           ulong *counts, ulong *tiles, ulong *tiles_fin) {
  *counts = *tiles = *tiles_fin = 0;
  if (e >= active) return;
  children(in[e], scan, total, small, c);
  *counts = PACK3(c[0].kind == 1, c[1].kind == 1, (c[0].kind >= 2) + (c[1].kind >= 2));
  *tiles = PACK2(c[0].kind == 1 ? tiles_of(&c[0]) : 0, c[1].kind == 1 ? tiles_of(&c[1]) : 0);
  *tiles_fin = (c[0].kind >= 2 ? tiles_of(&c[0]) : 0) + (c[1].kind >= 2 ? tiles_of(&c[1]) : 0);
}

/* Plans the next level from the split: table `in` (header hin) and the
 * exclusive scan of the flag counts, scan[0 .. groups + 1]. Writes table
 * `out` with its header, and the small sort's segment list. The new table
 * holds the active children in position order (every left child, then
 * every right one: the split put them so), then the finished ones; its
 * flag tiles are numbered in that order. The list holds, for each
 * finished child, [begin, end) in the new work buffer when it needs
 * sorting, else [0, 0), and [0, 0) on up to small_cap. One work-group; its
 * two loops walk the table in chunks of WG_SIZE segments, every work-item
 * the same number of times: the first sums what the second needs to
 * place the right children after the left ones. Local: the scan layer's
 * WG_SIZE ulongs. */
KERNEL void quick_plan(global ulong *aux, ulong in_at, ulong hin_at, ulong out_at, ulong hout_at,
                       const global ulong *scan, ulong groups, ulong small, ulong small_cap) {
  local ulong tmp[WG_SIZE];
  const uint lid = get_local_id(0);
  const global qk_entry *in = (const global qk_entry *)(aux + in_at);
  global qk_entry *out = (global qk_entry *)(aux + out_at);
  global ulong *list = aux; /* the small sort's segments, at offset 0 */
  const ulong active = aux[hin_at + H_ACTIVE], total = scan[1 + groups];

  /* 1. Totals: active left and right children, finished ones, tiles. */
  ulong lefts = 0, rights = 0, finished = 0, left_tiles = 0, right_tiles = 0;
  for (ulong base = 0; base < active; base += WG_SIZE) {
    qk_child c[2];
    ulong counts, tiles, tiles_fin;
    count_children(in, base + lid, active, scan, total, small, c, &counts, &tiles, &tiles_fin);
    counts = wg_reduce_u64(counts, 0, tmp);
    tiles = wg_reduce_u64(tiles, 0, tmp);
    lefts += FIELD3(counts, 0);
    rights += FIELD3(counts, 1);
    finished += FIELD3(counts, 2);
    left_tiles += LOW(tiles);
    right_tiles += HIGH(tiles);
  }
  const ulong next_active = lefts + rights;

  /* 2. Place the children and number their tiles. Invariant: the running
   * sums count the children of the chunks before this one. */
  ulong l_done = 0, r_done = 0, f_done = 0, lt_done = 0, rt_done = 0, ft_done = 0;
  for (ulong base = 0; base < active; base += WG_SIZE) {
    const ulong e = base + lid;
    qk_child c[2];
    ulong counts, tiles, tiles_fin, chunk_counts, chunk_tiles, chunk_fin;
    count_children(in, e, active, scan, total, small, c, &counts, &tiles, &tiles_fin);
    ulong at = wg_exclusive_sum_u64(counts, &chunk_counts, tmp);
    ulong tat = wg_exclusive_sum_u64(tiles, &chunk_tiles, tmp);
    ulong fat = wg_exclusive_sum_u64(tiles_fin, &chunk_fin, tmp);
    if (e < active) {
      ulong fin = next_active + f_done + FIELD3(at, 2);
      ulong fin_tile = left_tiles + right_tiles + ft_done + fat;
      for (int s = 0; s < 2; s++) {
        ulong slot, group;
        if (c[s].kind == 1) {
          slot = s == 0 ? l_done + FIELD3(at, 0) : lefts + r_done + FIELD3(at, 1);
          group = s == 0 ? lt_done + LOW(tat) : left_tiles + rt_done + HIGH(tat);
        } else if (c[s].kind >= 2) {
          ulong i = fin++ - next_active;
          list[2 * i] = c[s].kind == 2 ? c[s].begin : 0;
          list[2 * i + 1] = c[s].kind == 2 ? c[s].begin + c[s].len : 0;
          slot = next_active + i;
          group = fin_tile;
          fin_tile += tiles_of(&c[s]);
        } else {
          continue;
        }
        out[slot].begin = c[s].begin;
        out[slot].len = c[s].len;
        out[slot].final = c[s].final;
        out[slot].group = group;
        out[slot].state = c[s].state;
        out[slot].pivot = c[s].pivot;
        out[slot].chosen = out[slot].le = 0;
      }
    }
    l_done += FIELD3(chunk_counts, 0);
    r_done += FIELD3(chunk_counts, 1);
    f_done += FIELD3(chunk_counts, 2);
    lt_done += LOW(chunk_tiles);
    rt_done += HIGH(chunk_tiles);
    ft_done += chunk_fin;
  }
  for (ulong i0 = finished; i0 < small_cap; i0 += WG_SIZE) {
    const ulong i = i0 + lid;
    if (i < small_cap) list[2 * i] = list[2 * i + 1] = 0;
  }
  if (lid == 0) {
    aux[hout_at + H_ACTIVE] = next_active;
    aux[hout_at + H_FINISHED] = finished;
    aux[hout_at + H_GROUPS] = left_tiles + right_tiles + ft_done;
  }
}
