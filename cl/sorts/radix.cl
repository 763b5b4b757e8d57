/* radix.cl: one LSD radix sort pass by an up-to-8-bit digit, and the
 * digit histograms of all passes.
 *
 * Needs common.cl, wg_scan.cl@u32, keys.cl and wg_rank.cl before it, and
 *   KEY_T, KEY_BITS   the key's bits (keys.cl)
 *   HAS_VALUES        0 for keys only, 1 when values travel with the keys
 *   VALUE_T           uint or ulong (with HAS_VALUES)
 *   VALUE_BITS        32 or 64, to match
 *   OFFSET_T          uint, or ulong when n may reach 2^32
 *   OFFSET_BITS       32 or 64, to match
 *   RADIX_ITEMS       keys per work-item per tile (RANK_ITEMS)
 *   RADIX_BITS        digit width: 8 for the tile path (two 4-bit ranks);
 *                     the one-work-item CPU path takes up to 11
 *
 * A pass over n keys runs on G groups that each own a contiguous chunk of
 * whole tiles (the shared chunk geometry):
 *   1. radix_upsweep: table[d * G + g] = keys of chunk g with digit d
 *   2. the shared scan, exclusive, over the 256 x G table (column-major,
 *      Fine Sample Sort phase 5): every (digit, chunk) gets its output base
 *   3. radix_downsweep: each tile is sorted by digit in local memory (two
 *      stable 4-bit ranks) and written out in digit runs.
 * The first pass transforms raw keys (keys.cl), the last transforms back.
 */
#if !defined(HAS_VALUES) || !defined(OFFSET_T) || !defined(OFFSET_BITS) || !defined(RADIX_ITEMS)
#error "radix.cl needs HAS_VALUES, OFFSET_T, OFFSET_BITS and RADIX_ITEMS"
#endif
#if HAS_VALUES && !defined(VALUE_T)
#error "radix.cl needs VALUE_T when HAS_VALUES is 1"
#endif
#if !HAS_VALUES
#define VALUE_T uint
#endif
#ifndef RADIX_BITS
#error "radix.cl needs RADIX_BITS"
#endif
#if WG_SIZE > 1 && RADIX_BITS > 8
#error "the tile path ranks by two 4-bit halves: RADIX_BITS must be at most 8"
#endif
#define RADIX_TILE (WG_SIZE * RADIX_ITEMS)
#define RADIX_BINS (1u << RADIX_BITS)
#define KEY4 CAT(KEY_T, 4)

#if defined(cl_khr_int64_base_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif

/* Adds to a global counter of the offset type. */
inline void add_offset(__global OFFSET_T *p, uint v) {
#if OFFSET_BITS == 64
  atom_add(p, (ulong)v);
#else
  atomic_add(p, v);
#endif
}

inline KEY_T load_bits(__global const KEY_T *keys, ulong i, int transform, int kind, int desc) {
  KEY_T k = keys[i];
  return transform ? key_to_bits(k, kind, desc) : k;
}

/* Counts one key's digit of every pass into bins[pass * RADIX_BINS + d]. */
inline void count_every_pass(__local uint *bins, KEY_T b, uint passes, uint begin_bit,
                             uint end_bit) {
  for (uint p = 0; p < passes; p++) {
    uint shift = begin_bit + RADIX_BITS * p;
    LOCAL_INC(&bins[p * RADIX_BINS + key_digit(b, shift, min((uint)RADIX_BITS, end_bit - shift))]);
  }
}

/* Counts into `bins` the digits of `passes` passes (from begin_bit, up to
 * end_bit) of this group's chunk of keys, transformed first when
 * `transform` is set. Whole tiles are read as striped 16-byte vectors, the
 * rest one key at a time. Ends with a barrier: bins are complete. */
inline void count_chunk(__global const KEY_T *keys, ulong n, ulong chunk, int transform, int kind,
                        int desc, uint passes, uint begin_bit, uint end_bit, __local uint *bins) {
  uint lid = get_local_id(0);
  for (uint c = lid; c < passes * RADIX_BINS; c += WG_SIZE) bins[c] = 0;
  WG_BARRIER();
  ulong begin = get_group_id(0) * chunk;
  ulong end = min(n, begin + chunk);
  ulong base = begin;
  for (; base + RADIX_TILE <= end; base += RADIX_TILE) {
    __global const KEY4 *k4 = (__global const KEY4 *)(keys + base);
    UNROLL
    for (uint j = 0; j < RADIX_ITEMS / 4; j++) {
      KEY4 q = k4[j * WG_SIZE + lid];
      KEY_T v[4] = {q.x, q.y, q.z, q.w};
      UNROLL
      for (uint c = 0; c < 4; c++)
        count_every_pass(bins, transform ? key_to_bits(v[c], kind, desc) : v[c], passes,
                         begin_bit, end_bit);
    }
  }
  for (ulong i = base + lid; i < end; i += WG_SIZE)
    count_every_pass(bins, load_bits(keys, i, transform, kind, desc), passes, begin_bit, end_bit);
  WG_BARRIER();
}

/* Digit histograms of every pass at once, from one read of the keys: the
 * host skips passes whose digits are all equal. hist[p * 256 + d] counts
 * the keys whose pass-p digit is d; the host zeroes it. Since this reads
 * the keys in input order with the passes' chunk geometry, it also writes
 * every pass's per-chunk table, tables[(p * 256 + d) * G + g]: the first
 * pass that runs needs no upsweep of its own. Work-group: WG_SIZE. Local:
 * `bins`, passes * 256 uints. */
KERNEL void radix_histograms(__global const KEY_T *keys, ulong n, ulong chunk, uint begin_bit,
                             uint end_bit, int kind, int desc, __global OFFSET_T *hist,
                             __global OFFSET_T *tables, __local uint *bins) {
  uint passes = (end_bit - begin_bit + RADIX_BITS - 1) / RADIX_BITS;
  count_chunk(keys, n, chunk, 1, kind, desc, passes, begin_bit, end_bit, bins);
  ulong groups = get_num_groups(0);
  for (uint c = get_local_id(0); c < passes * RADIX_BINS; c += WG_SIZE) {
    tables[c * groups + get_group_id(0)] = bins[c];
    if (bins[c]) add_offset(&hist[c], bins[c]);
  }
}

/* Pass step 1: table[d * G + g] = keys of chunk g with digit d, for the
 * `width`-bit digit at `shift`. Work-group: WG_SIZE. */
KERNEL void radix_upsweep(__global const KEY_T *keys, ulong n, ulong chunk, uint shift, uint width,
                          int transform, int kind, int desc, __global OFFSET_T *table) {
  __local uint bins[RADIX_BINS];
  count_chunk(keys, n, chunk, transform, kind, desc, 1, shift, shift + width, bins);
  ulong groups = get_num_groups(0);
  for (uint d = get_local_id(0); d < RADIX_BINS; d += WG_SIZE)
    table[d * groups + get_group_id(0)] = bins[d];
}

#if WG_SIZE == 1
/* Keys staged per digit before a write: 16 u32 keys are one cache line. */
#define COMBINE 16

/* Pass step 3 on a one-work-item group (the CPU shape): a serial stable
 * counting scatter of the chunk, in input order. Scattering key by key
 * into 256 streams per chunk thrashes a CPU's TLB and caches, so keys are
 * staged per digit in local memory and written COMBINE at a time. */
KERNEL void radix_downsweep(__global const KEY_T *keys_in, __global KEY_T *keys_out,
                            __global const VALUE_T *vals_in, __global VALUE_T *vals_out, ulong n,
                            ulong chunk, uint shift, uint width, int first, int last, int kind,
                            int desc, __global const OFFSET_T *table, int make_index) {
  __local KEY_T staged_keys[RADIX_BINS * COMBINE];
#if HAS_VALUES
  __local VALUE_T staged_vals[RADIX_BINS * COMBINE];
#endif
  __local uint staged[RADIX_BINS];
  OFFSET_T next[RADIX_BINS];
  ulong g = get_group_id(0), groups = get_num_groups(0);
  for (uint d = 0; d < RADIX_BINS; d++) {
    next[d] = table[d * groups + g];
    staged[d] = 0;
  }
  ulong begin = g * chunk;
  ulong end = min(n, begin + chunk);
  for (ulong i = begin; i < end; i++) {
    KEY_T b = load_bits(keys_in, i, first, kind, desc);
    uint d = key_digit(b, shift, width);
    uint at = d * COMBINE + staged[d]++;
    staged_keys[at] = last ? bits_to_key(b, kind, desc) : b;
#if HAS_VALUES
    staged_vals[at] = make_index ? (VALUE_T)i : vals_in[i];
#endif
    if (staged[d] == COMBINE) {
      OFFSET_T dst = next[d];
      for (uint k = 0; k < COMBINE; k++) keys_out[dst + k] = staged_keys[d * COMBINE + k];
#if HAS_VALUES
      for (uint k = 0; k < COMBINE; k++) vals_out[dst + k] = staged_vals[d * COMBINE + k];
#endif
      next[d] += COMBINE;
      staged[d] = 0;
    }
  }
  for (uint d = 0; d < RADIX_BINS; d++) {
    for (uint k = 0; k < staged[d]; k++) {
      keys_out[next[d] + k] = staged_keys[d * COMBINE + k];
#if HAS_VALUES
      vals_out[next[d] + k] = staged_vals[d * COMBINE + k];
#endif
    }
  }
}
#else
/* Writes x[i] to exch[rank[i]], then reads this work-item's blocked run
 * back: the tile reordered by rank. */
#define EXCHANGE(x, rank, exch, type)                                          \
  do {                                                                         \
    for (uint i_ = 0; i_ < RADIX_ITEMS; i_++) (exch)[PAD((rank)[i_])] = (x)[i_];           \
    WG_BARRIER();                                              \
    for (uint i_ = 0; i_ < RADIX_ITEMS; i_++)                                  \
      (x)[i_] = (type)(exch)[PAD(lid * RADIX_ITEMS + i_)];                     \
    WG_BARRIER();                                              \
  } while (0)

/* The local memory a tile pass uses. */
typedef struct radix_tile_mem {
  KEY_T exch[PADDED(RADIX_TILE)];
#if HAS_VALUES
  /* Values do not travel through local memory: each key carries its
   * position in the tile, and the value is read from there at the end. */
  ushort origin[PADDED(RADIX_TILE)];
#endif
  uint counters[RANK_LOCAL_WORDS];
  uint scan_tmp[WG_SIZE];
  OFFSET_T base[RADIX_BINS];
  uint tile_count[RADIX_BINS];
  uint run_start[RADIX_BINS];
} radix_tile_mem;

/* Sorts the tile [t0, t0 + len) by digit in local memory with two stable
 * 4-bit ranks (wg_rank.cl). On return (after a barrier) m->exch (and
 * m->origin) hold the tile in digit order, m->tile_count[d] the tile's
 * count of digit d and m->run_start[d] where digit d's run starts.
 * Positions past len hold all-ones bits, so they rank after every real key
 * and are never written. */
inline void radix_rank_tile(local radix_tile_mem *m, __global const KEY_T *keys_in, ulong t0,
                            uint len, uint shift, uint width, int first, int kind, int desc) {
  uint lid = get_local_id(0);
  for (uint d = lid; d < RADIX_BINS; d += WG_SIZE) m->tile_count[d] = 0;
  WG_BARRIER();
  KEY_T key[RADIX_ITEMS];
#if HAS_VALUES
  ushort pos[RADIX_ITEMS];
#endif
  uint digit[RADIX_ITEMS], rank[RADIX_ITEMS];
  uint first_pos = lid * RADIX_ITEMS;
  if (first_pos + RADIX_ITEMS <= len) {
    /* A full run: 16-byte loads. */
    __global const KEY4 *k4 = (__global const KEY4 *)(keys_in + t0 + first_pos);
UNROLL
    for (uint j = 0; j < RADIX_ITEMS / 4; j++) {
      KEY4 q = k4[j];
      key[4 * j] = q.x;
      key[4 * j + 1] = q.y;
      key[4 * j + 2] = q.z;
      key[4 * j + 3] = q.w;
    }
UNROLL
    for (uint i = 0; i < RADIX_ITEMS; i++)
      key[i] = first ? key_to_bits(key[i], kind, desc) : key[i];
  } else {
UNROLL
    for (uint i = 0; i < RADIX_ITEMS; i++) {
      uint pos = first_pos + i;
      key[i] = pos < len ? load_bits(keys_in, t0 + pos, first, kind, desc) : ~(KEY_T)0;
    }
  }
UNROLL
  for (uint i = 0; i < RADIX_ITEMS; i++) {
#if HAS_VALUES
    pos[i] = (ushort)(first_pos + i);
#endif
    if (first_pos + i < len) LOCAL_INC(&m->tile_count[key_digit(key[i], shift, width)]);
    digit[i] = key_digit(key[i], shift, min(width, 4u));
  }
  /* Low four bits first, then the high ones: two stable ranks make one
   * stable rank by the whole digit. */
  wg_rank_digits4(digit, rank, m->counters, m->scan_tmp);
  if (width > 4) {
    EXCHANGE(key, rank, m->exch, KEY_T);
#if HAS_VALUES
    EXCHANGE(pos, rank, m->origin, ushort);
#endif
UNROLL
    for (uint i = 0; i < RADIX_ITEMS; i++) digit[i] = key_digit(key[i], shift + 4, width - 4);
    wg_rank_digits4(digit, rank, m->counters, m->scan_tmp);
  }
  /* The tile in digit order, in local memory; find where each run starts. */
UNROLL
  for (uint i = 0; i < RADIX_ITEMS; i++) {
    m->exch[PAD(rank[i])] = key[i];
#if HAS_VALUES
    m->origin[PAD(rank[i])] = pos[i];
#endif
  }
  WG_BARRIER();
  for (uint s = lid; s < len; s += WG_SIZE) {
    uint d = key_digit(m->exch[PAD(s)], shift, width);
    if (s == 0 || key_digit(m->exch[PAD(s - 1)], shift, width) != d) m->run_start[d] = s;
  }
  WG_BARRIER();
}

/* Values no wider than keys are staged in the key array once the keys are
 * out: the tile's values load with coalesced 16-byte reads and each is
 * then picked from local memory, instead of each being read alone from
 * global memory at its key's original position. */
#if HAS_VALUES && VALUE_BITS <= KEY_BITS
#define VALUES_VIA_LOCAL 1
#define VALUE4 CAT(VALUE_T, 4)
#else
#define VALUES_VIA_LOCAL 0
#endif

/* Writes the ranked tile: the key at sorted position s, of digit d, goes
 * to m->base[d] + (s - m->run_start[d]), and its value with it. Ends with a
 * barrier when values are staged. */
inline void radix_scatter_tile(local radix_tile_mem *m, __global KEY_T *keys_out,
                               __global const VALUE_T *vals_in, __global VALUE_T *vals_out,
                               ulong t0, uint len, uint shift, uint width, int last, int kind,
                               int desc, int make_index) {
  uint lid = get_local_id(0);
#if VALUES_VIA_LOCAL
  OFFSET_T dsts[RADIX_ITEMS];
  ushort from[RADIX_ITEMS];
#endif
UNROLL
  for (uint j = 0; j < RADIX_ITEMS; j++) {
    uint s = lid + j * WG_SIZE;
    if (s < len) {
      KEY_T b = m->exch[PAD(s)];
      uint d = key_digit(b, shift, width);
      OFFSET_T dst = m->base[d] + (s - m->run_start[d]);
      keys_out[dst] = last ? bits_to_key(b, kind, desc) : b;
#if VALUES_VIA_LOCAL
      dsts[j] = dst;
      from[j] = m->origin[PAD(s)];
#elif HAS_VALUES
      ulong from = t0 + m->origin[PAD(s)];
      vals_out[dst] = make_index ? (VALUE_T)from : vals_in[from];
#endif
    }
  }
#if VALUES_VIA_LOCAL
  WG_BARRIER(); /* the keys are out: reuse their space */
  local VALUE_T *staged = (local VALUE_T *)m->exch;
  if (!make_index) {
    for (uint i = 4 * lid; i < len; i += 4 * WG_SIZE) {
      if (i + 4 <= len) {
        VALUE4 q = *(__global const VALUE4 *)(vals_in + t0 + i);
        staged[PAD(i)] = q.x;
        staged[PAD(i + 1)] = q.y;
        staged[PAD(i + 2)] = q.z;
        staged[PAD(i + 3)] = q.w;
      } else {
        for (uint k = i; k < len; k++) staged[PAD(k)] = vals_in[t0 + k];
      }
    }
  }
  WG_BARRIER();
UNROLL
  for (uint j = 0; j < RADIX_ITEMS; j++) {
    uint s = lid + j * WG_SIZE;
    if (s < len)
      vals_out[dsts[j]] = make_index ? (VALUE_T)(t0 + from[j]) : staged[PAD(from[j])];
  }
#endif
}

/* Pass step 3. Each group ranks the tiles of its chunk in turn and writes
 * them out. Work-group: WG_SIZE. Local: radix_tile_mem.
 * Loop invariant: base[d] = where this chunk's next key with digit d goes. */
KERNEL void radix_downsweep(__global const KEY_T *keys_in, __global KEY_T *keys_out,
                            __global const VALUE_T *vals_in, __global VALUE_T *vals_out, ulong n,
                            ulong chunk, uint shift, uint width, int first, int last, int kind,
                            int desc, __global const OFFSET_T *table, int make_index) {
  __local radix_tile_mem m;
  uint lid = get_local_id(0);
  ulong g = get_group_id(0), groups = get_num_groups(0);
  for (uint d = lid; d < RADIX_BINS; d += WG_SIZE) m.base[d] = table[d * groups + g];
  ulong begin = g * chunk;
  ulong end = min(n, begin + chunk);
  for (ulong t0 = begin; t0 < end; t0 += RADIX_TILE) {
    uint len = (uint)min((ulong)RADIX_TILE, end - t0);
    radix_rank_tile(&m, keys_in, t0, len, shift, width, first, kind, desc);
    radix_scatter_tile(&m, keys_out, vals_in, vals_out, t0, len, shift, width, last, kind, desc,
                       make_index);
    WG_BARRIER();
    for (uint d = lid; d < RADIX_BINS; d += WG_SIZE) m.base[d] += m.tile_count[d];
    WG_BARRIER();
  }
}

#if USE_PTX && RADIX_BINS <= WG_SIZE && OFFSET_BITS == 32
/* The whole pass in one launch (onesweep: NVIDIA only, n < 2^30): no
 * upsweep and no scan of a chunk table. Tiles are numbered in the order
 * their groups start (an atomic counter), so a tile only waits on tiles
 * whose groups already run: progress is guaranteed. Each tile publishes
 * its count of every digit, then work-item d walks back over the earlier
 * tiles' words for digit d until it meets an inclusive prefix (decoupled
 * look-back, as in scan.cl, one digit per work-item).
 *
 * status[0] is the tile counter; status[1 + t * RADIX_BINS + d] is tile
 * t's word for digit d: flag in bits 30-31 (0 not ready, 1 the tile's own
 * count, 2 the inclusive prefix over tiles 0..t), the count in bits 0-29.
 * The host zeroes status before each launch. digit_bases[base_at + d] is
 * where the pass's keys with digit d start (the exclusive scan of the
 * pass's global digit counts, from the histogram of all passes). */
#define RADIX_FLAG_COUNT (1u << 30)
#define RADIX_FLAG_PREFIX (2u << 30)
#define RADIX_COUNT_MASK ((1u << 30) - 1u)
KERNEL void radix_onesweep(__global const KEY_T *keys_in, __global KEY_T *keys_out,
                           __global const VALUE_T *vals_in, __global VALUE_T *vals_out, ulong n,
                           uint shift, uint width, int first, int last, int kind, int desc,
                           __global const OFFSET_T *digit_bases, uint base_at,
                           volatile __global uint *status, int make_index) {
  __local radix_tile_mem m;
  __local uint tile_slot;
  uint lid = get_local_id(0);
  if (lid == 0) tile_slot = atomic_inc(status);
  WG_BARRIER();
  uint tile = tile_slot;
  volatile __global uint *words = status + 1;
  ulong t0 = (ulong)tile * RADIX_TILE;
  uint len = (uint)min((ulong)RADIX_TILE, n - t0);
  radix_rank_tile(&m, keys_in, t0, len, shift, width, first, kind, desc);
  if (lid < RADIX_BINS) {
    uint d = lid, count = m.tile_count[d];
    volatile __global uint *mine = words + (ulong)tile * RADIX_BINS + d;
    uint before = 0;
    if (tile == 0) {
      *mine = RADIX_FLAG_PREFIX | count;
    } else {
      *mine = RADIX_FLAG_COUNT | count;
      for (long t = (long)tile - 1; t >= 0; t--) {
        uint w;
        do {
          w = words[(ulong)t * RADIX_BINS + d];
        } while (w == 0);
        before += w & RADIX_COUNT_MASK;
        if (w & RADIX_FLAG_PREFIX) break;
      }
      *mine = RADIX_FLAG_PREFIX | (before + count);
    }
    m.base[d] = digit_bases[base_at + d] + before;
  }
  WG_BARRIER();
  radix_scatter_tile(&m, keys_out, vals_in, vals_out, t0, len, shift, width, last, kind, desc,
                     make_index);
}
#endif
#undef EXCHANGE
#endif
