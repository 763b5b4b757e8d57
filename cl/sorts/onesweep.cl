/* onesweep.cl: the NVIDIA radix sort (USE_PTX only): one histogram of every
 * pass, a device-side plan (digit starts, passes to skip), then one launch
 * per pass that ranks a tile by warp multisplit and finds its digit offsets
 * by decoupled look-back (Adinets & Merrill, "Onesweep", 2022). No host
 * round trip anywhere: the host enqueues every launch up front.
 *
 * Needs common.cl (with USE_PTX=1) and keys.cl before it, and
 *   OS_WG        work-items per group of every kernel here: a multiple of
 *                32, at least 256 (work-item d < 256 owns digit d)
 *   OS_ITEMS     keys per work-item per tile of radix_nv_pass
 *   OS_MATCH     1: a warp finds equal digits with match.any.sync;
 *                0: with 8 vote.ballot.sync (CUB's choice for 8 bits)
 *   HAS_VALUES   0 keys only, 1 values travel with the keys
 *   VALUE_T, VALUE_BITS   uint/32 or ulong/64 (with HAS_VALUES)
 *   OFFSET_T, OFFSET_BITS uint/32, or ulong/64 when n may reach 2^32
 *   OS_EMULATE   1: the warp operations emulated in local memory with
 *                barriers, so that the tests run this file on PoCL (every
 *                warp operation is reached by the whole group)
 *   OS_SPLIT     see the staging area below
 *
 * The launches of one sort, in queue order:
 *   radix_nv_histogram  the digit counts of every pass, then, by its last
 *                       group, the plan: bases[p][0][d] = exclusive scan
 *                       of the counts, plan = {m, the m passes that move
 *                       keys}; clears look-back area 0
 *   radix_nv_pass       one per slot s < all passes and portion k: slots
 *                       s >= m return at once
 *   radix_nv_finish     copies the result into the caller's buffer when
 *                       an odd m left it in scratch (in-place sorts)
 *
 * Buffers: each pass reads slot 0's source (the caller's keys, transformed
 * on the fly by keys.cl) or the previous slot's output, and writes one of
 * two buffers X0, X1: slot s writes X[(s + f) & 1]. X1 is the caller's
 * output. f = m & 1 puts the last pass's output in X1, unless X1 is also
 * slot 0's source (an in-place sort), where f = 0 and an odd m ends in X0,
 * copied by radix_nv_finish.
 *
 * Look-back: n keys split into portions of at most 2^30 - 1 keys (one
 * launch each); within a portion, status words hold a 2-bit flag and a
 * 30-bit count. Two areas of words alternate between consecutive pass
 * launches: a launch uses area (seq & 1) and zeroes area (seq + 1) & 1 for
 * the next one, so no launch needs a fill. Area layout (uints): [0] the
 * tile ticket counter, [32 + t * 256 + d] tile t's word for digit d.
 */
#ifndef OS_EMULATE
#define OS_EMULATE 0
#endif
#if !USE_PTX && !OS_EMULATE
#error "onesweep.cl is the NVIDIA path: it needs USE_PTX=1 (or OS_EMULATE=1 for tests)"
#endif
#if !defined(OS_WG) || !defined(OS_ITEMS) || !defined(OS_MATCH)
#error "onesweep.cl needs OS_WG, OS_ITEMS and OS_MATCH"
#endif
#if !defined(HAS_VALUES) || !defined(OFFSET_T) || !defined(OFFSET_BITS)
#error "onesweep.cl needs HAS_VALUES, OFFSET_T and OFFSET_BITS"
#endif
#if HAS_VALUES && (!defined(VALUE_T) || !defined(VALUE_BITS))
#error "onesweep.cl needs VALUE_T and VALUE_BITS when HAS_VALUES is 1"
#endif
#if !HAS_VALUES
#define VALUE_T uint
#define VALUE_BITS 32
#endif
#if OS_WG % 32 != 0 || OS_WG < 256
#error "OS_WG must be a multiple of 32 and at least 256"
#endif

#define OS_KERNEL __kernel __attribute__((reqd_work_group_size(OS_WG, 1, 1)))
#define OS_BINS 256u
#define OS_WARPS (OS_WG / 32)
#define OS_TILE (OS_WG * OS_ITEMS)
#define OS_WARP_KEYS (32 * OS_ITEMS)
#define OS_MAX_PASSES (KEY_BITS / 8)
#define OS_KEY4 CAT(KEY_T, 4)

/* The control buffer (uints): the pass histograms (up to 8 x 256 counts
 * of OFFSET_T), the histogram's group counter, the plan. */
#define OS_CTL_DONE 4096u
#define OS_CTL_PLAN 4112u
#define OS_CTL_WORDS 4128u

/* Look-back words: flag in bits 30-31, count in bits 0-29. */
#define OS_FLAG_COUNT (1u << 30)
#define OS_FLAG_PREFIX (2u << 30)
#define OS_COUNT_MASK ((1u << 30) - 1u)
#define OS_ROW0 32u /* words before tile 0's row: the ticket counter */

/* The staging area holds the tile's keys, then its values, in rank order.
 * With OS_SPLIT the per-warp digit counters have memory of their own, and
 * each key is staged as soon as it is ranked (its registers free at once);
 * without, the counters share the staging area, and the keys wait in
 * registers, with their ranks, until every warp has ranked. The host sets
 * OS_SPLIT when both fit local memory. */
#ifndef OS_SPLIT
#define OS_SPLIT 0
#endif
#define OS_STAGE_BYTES_K (OS_TILE * (KEY_BITS / 8))
#define OS_STAGE_BYTES_V (OS_TILE * (VALUE_BITS / 8) * HAS_VALUES)
#define OS_HIST_BYTES (OS_WARPS * OS_BINS * 4)
#define OS_MAX(a, b) ((a) > (b) ? (a) : (b))
#if OS_SPLIT
#define OS_STAGE_WORDS ((OS_MAX(OS_STAGE_BYTES_K, OS_STAGE_BYTES_V) + 7) / 8)
#else
#define OS_STAGE_WORDS \
  ((OS_MAX(OS_MAX(OS_STAGE_BYTES_K, OS_STAGE_BYTES_V), OS_HIST_BYTES) + 7) / 8)
#endif

/* Warp operations. Each takes `x`, OS_WG uints of local scratch that only
 * the emulation uses; every call must be reached by the whole group. */
inline uint os_lane(void) { return get_local_id(0) & 31u; }
inline uint os_warp(void) { return get_local_id(0) >> 5; }

#if OS_EMULATE
inline uint os_lanemask_le(void) { return (uint)(((ulong)2 << os_lane()) - 1); }
inline uint os_shfl_idx(uint v, uint src, __local uint *x) {
  uint lid = get_local_id(0);
  x[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint r = x[(lid & ~31u) + src];
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}
inline uint os_shfl_up(uint v, uint delta, __local uint *x) {
  uint lid = get_local_id(0);
  x[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint r = os_lane() >= delta ? x[lid - delta] : v;
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}
/* Lanes whose `d` equals this lane's. */
inline uint os_match(uint d, __local uint *x) {
  uint lid = get_local_id(0);
  x[lid] = d;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint m = 0;
  for (uint l = 0; l < 32; l++) m |= (x[(lid & ~31u) + l] == d ? 1u : 0u) << l;
  barrier(CLK_LOCAL_MEM_FENCE);
  return m;
}
inline uint os_ballot(int p, __local uint *x) {
  uint lid = get_local_id(0);
  x[lid] = p != 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint m = 0;
  for (uint l = 0; l < 32; l++) m |= x[(lid & ~31u) + l] << l;
  barrier(CLK_LOCAL_MEM_FENCE);
  return m;
}
#else
inline uint os_lanemask_le(void) {
  uint r;
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(r));
  return r;
}
inline uint os_shfl_idx(uint v, uint src, __local uint *x) { return shfl_idx_u32(v, src); }
inline uint os_shfl_up(uint v, uint delta, __local uint *x) { return shfl_up_u32(v, delta); }
inline uint os_match(uint d, __local uint *x) { return warp_match(d); }
inline uint os_ballot(int p, __local uint *x) { return warp_ballot(p); }
#endif

/* Lanes of this warp whose digit equals this lane's. */
inline uint os_match_digit(uint d, __local uint *x) {
#if OS_MATCH
  return os_match(d, x);
#else
  uint m = 0xffffffffu;
  UNROLL_FULL
  for (uint b = 0; b < 8; b++) {
    uint bit = (d >> b) & 1u;
    uint ballot = os_ballot((int)bit, x);
    m &= bit ? ballot : ~ballot;
  }
  return m;
#endif
}

/* Inclusive sums over a warp. */
inline uint os_warp_inclusive_u32(uint v, __local uint *x) {
  uint lane = os_lane();
  UNROLL_FULL
  for (uint d = 1; d < 32; d <<= 1) {
    uint y = os_shfl_up(v, d, x);
    if (lane >= d) v += y;
  }
  return v;
}

inline OFFSET_T os_warp_inclusive(OFFSET_T v, __local uint *x) {
#if OFFSET_BITS == 64
  uint lane = os_lane();
  UNROLL_FULL
  for (uint d = 1; d < 32; d <<= 1) {
    uint2 w = as_uint2(v);
    w.x = os_shfl_up(w.x, d, x);
    w.y = os_shfl_up(w.y, d, x);
    if (lane >= d) v += as_ulong(w);
  }
  return v;
#else
  return os_warp_inclusive_u32(v, x);
#endif
}

inline uint os_digit(KEY_T bits, uint shift, uint mask) { return (uint)(bits >> shift) & mask; }

/* Counts one group of four keys into the pass histograms; four equal
 * digits (sorted or narrow data) cost one atomic instead of four. */
inline void os_count4(__local uint *bins, KEY_T a, KEY_T b, KEY_T c, KEY_T d, uint passes,
                      uint begin_bit, uint end_bit) {
  UNROLL_FULL
  for (uint p = 0; p < OS_MAX_PASSES; p++) {
    if (p < passes) {
      uint shift = begin_bit + 8 * p;
      uint mask = (1u << min(8u, end_bit - shift)) - 1u;
      uint da = os_digit(a, shift, mask), db = os_digit(b, shift, mask);
      uint dc = os_digit(c, shift, mask), dd = os_digit(d, shift, mask);
      __local uint *h = bins + p * OS_BINS;
      if (da == db && da == dc && da == dd) {
        atomic_add(&h[da], 4u);
      } else {
        atomic_inc(&h[da]);
        atomic_inc(&h[db]);
        atomic_inc(&h[dc]);
        atomic_inc(&h[dd]);
      }
    }
  }
}

/* A device-scope fence: this work-item's global writes and atomics
 * before it are seen by any work-item that sees its later ones. */
inline void os_fence_global(void) {
#if OS_EMULATE
  mem_fence(CLK_GLOBAL_MEM_FENCE);
#else
  asm volatile("membar.gl;" ::: "memory");
#endif
}

/* Reads a global counter where other groups' atomics landed. */
inline OFFSET_T os_read_count(__global OFFSET_T *p) {
#if OFFSET_BITS == 64
  return atom_add(p, (ulong)0);
#else
  return atomic_add(p, 0u);
#endif
}

/* Digit counts of every pass from one read of the keys, transformed as
 * the first pass will see them, and then, by the last group to finish,
 * the plan. Each group owns a contiguous chunk of 4-key vectors and reads
 * OS_WG * 4 vectors per step (16-byte loads for 4-byte keys, striped:
 * coalesced), counts in local memory, and adds its counts to hist with
 * atomics. The group that finishes last (a ticket in *done, taken after a
 * fence) then, for every pass p:
 *   bases[p * (portions + 1) * 256 + d] = keys whose pass-p digit is below
 *   d (where digit d's run starts), and whether one digit holds all n keys
 *   (the pass is the identity and is skipped);
 * writes plan[0] = m, the passes that run, plan[1 + s] = the pass of slot
 * s (with need_one, a sort that would skip every pass still runs pass 0:
 * argsort's indices, an output apart from the input), and zeroes hist and
 * *done for the next sort. hist and *done must be zero at the start (the
 * host zeroes them once; every launch leaves them so).
 * Also zeroes look-back area 0 (its first clear_words uints), which the
 * first pass uses.
 * Work-group: OS_WG. Local: passes * 256 uints and a few words. */
OS_KERNEL void radix_nv_histogram(__global const KEY_T *keys, ulong n, uint begin_bit, uint end_bit,
                                  int kind, int desc, __global uint *ctl, __global uint *status,
                                  uint clear_words, int need_one, uint portions,
                                  __global OFFSET_T *bases) {
  __global OFFSET_T *hist = (__global OFFSET_T *)ctl;
  volatile __global uint *done = ctl + OS_CTL_DONE;
  __global uint *plan = ctl + OS_CTL_PLAN;
  __local uint bins[OS_MAX_PASSES * OS_BINS];
  __local OFFSET_T warp_total[OS_WARPS];
  __local uint skip[OS_MAX_PASSES];
  __local uint last_group;
#if OS_EMULATE
  __local uint xchg[OS_WG];
#else
  __local uint *xchg = 0;
#endif
  uint lid = get_local_id(0);
  uint passes = (end_bit - begin_bit + 7) / 8;
  for (uint c = lid; c < passes * OS_BINS; c += OS_WG) bins[c] = 0;
  for (uint c = get_global_id(0); c < clear_words; c += get_global_size(0)) status[c] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);

  ulong vectors = n / 4, groups = get_num_groups(0);
  ulong per_group = (vectors + groups - 1) / groups;
  ulong begin = get_group_id(0) * per_group;
  ulong end = min(vectors, begin + per_group);
  __global const OS_KEY4 *k4 = (__global const OS_KEY4 *)keys;
  ulong v = begin + lid;
  /* Four independent loads in flight per work-item. */
  for (; v + 3 * OS_WG < end; v += 4 * OS_WG) {
    OS_KEY4 q[4];
    UNROLL_FULL
    for (uint j = 0; j < 4; j++) q[j] = k4[v + j * OS_WG];
    UNROLL_FULL
    for (uint j = 0; j < 4; j++)
      os_count4(bins, key_to_bits(q[j].x, kind, desc), key_to_bits(q[j].y, kind, desc),
                key_to_bits(q[j].z, kind, desc), key_to_bits(q[j].w, kind, desc), passes,
                begin_bit, end_bit);
  }
  for (; v < end; v += OS_WG) {
    OS_KEY4 q = k4[v];
    os_count4(bins, key_to_bits(q.x, kind, desc), key_to_bits(q.y, kind, desc),
              key_to_bits(q.z, kind, desc), key_to_bits(q.w, kind, desc), passes, begin_bit,
              end_bit);
  }
  /* The last n % 4 keys: group 0, one work-item each. */
  if (get_group_id(0) == 0 && lid < n % 4) {
    KEY_T b = key_to_bits(keys[vectors * 4 + lid], kind, desc);
    for (uint p = 0; p < passes; p++) {
      uint shift = begin_bit + 8 * p;
      atomic_inc(&bins[p * OS_BINS + os_digit(b, shift, (1u << min(8u, end_bit - shift)) - 1u)]);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint c = lid; c < passes * OS_BINS; c += OS_WG)
    if (bins[c]) add_offset(&hist[c], bins[c]);
  os_fence_global();
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) last_group = atomic_inc(done) == groups - 1;
  if (lid < OS_MAX_PASSES) skip[lid] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!last_group) return;

  /* The plan: every other group's counts are in hist. */
  os_fence_global();
  uint lane = os_lane(), warp = os_warp();
  for (uint p = 0; p < passes; p++) {
    OFFSET_T c = lid < OS_BINS ? os_read_count(&hist[p * OS_BINS + lid]) : 0;
    OFFSET_T incl = os_warp_inclusive(c, xchg);
    if (lid < OS_BINS) {
      if (lane == 31) warp_total[warp] = incl;
      if (c == n) skip[p] = 1;
      hist[p * OS_BINS + lid] = 0; /* ready for the next sort */
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < OS_BINS) {
      OFFSET_T excl = incl - c;
      for (uint w = 0; w < warp; w++) excl += warp_total[w];
      bases[(ulong)p * (portions + 1) * OS_BINS + lid] = excl;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    uint m = 0;
    for (uint p = 0; p < passes; p++)
      if (!skip[p]) plan[1 + m++] = p;
    if (m == 0 && need_one) plan[1 + m++] = 0;
    plan[0] = m;
    *done = 0;
  }
}

/* Where slot s writes: X[(s + f) & 1] (see the file comment). */
inline uint os_target(uint slot, uint m, int alias) { return (slot + (alias ? 0u : (m & 1u))) & 1u; }

/* One pass of the sort over one portion's tiles, one tile per group:
 *   1. take a tile (atomic ticket), load its keys warp-striped (warp w
 *      owns positions [w * 32 * OS_ITEMS, +32 * OS_ITEMS), lane l the
 *      keys at l + 32 i) and count digits per warp in local memory;
 *   2. publish the tile's digit counts for the look-back at once, then
 *      scan them: each warp's counters become that warp's first rank per
 *      digit;
 *   3. rank: per key, the lanes holding the same digit (match.any or 8
 *      ballots); the highest such lane adds their number to its warp's
 *      counter, and a shuffle hands the old value to the others. Ranks are
 *      stable: (digit, warp, item, lane) is tile order;
 *   4. stage the keys in rank order in local memory while work-item d
 *      walks back over earlier tiles for digit d (decoupled look-back);
 *   5. write the staged keys: the key at rank r with digit d goes to
 *      global_off[d] + r, so consecutive work-items write runs.
 * Values follow through the same staging (loaded after the keys are out).
 * A tile whose keys all share one digit skips steps 3 and 4's staging and
 * writes its keys (and values) straight from registers: the same places,
 * since such a tile is already in digit order.
 * Positions past n hold all-ones bits: they rank after every real key and
 * are never written; the counts they add are left out of what is
 * published.
 * Work-group: OS_WG. Local: OS_STAGE_WORDS ulongs, 256 offsets and a few
 * words. */
OS_KERNEL void radix_nv_pass(__global const KEY_T *key_src, __global KEY_T *x0, __global KEY_T *x1,
                             __global const VALUE_T *val_src, __global VALUE_T *v0,
                             __global VALUE_T *v1, ulong n, uint slot, uint portion,
                             uint portions, uint rows, uint begin_bit,
                             uint end_bit, int kind, int desc, int make_index, int alias,
                             __global const uint *ctl, __global OFFSET_T *bases,
                             volatile __global uint *status) {
  __global const uint *plan = ctl + OS_CTL_PLAN;
  __local ulong stage[OS_STAGE_WORDS];
  __local OFFSET_T global_off[OS_BINS];
  __local uint warp_total[OS_BINS / 32];
  __local uint tile_slot, common_digit;
#if OS_EMULATE
  __local uint xchg[OS_WG];
#else
  __local uint *xchg = 0; /* unused by the PTX warp operations */
#endif

  uint m = plan[0];
  if (slot >= m) return; /* a skipped pass: uniform across the launch */
  uint pass = plan[1 + slot];
  uint lid = get_local_id(0), lane = os_lane(), warp = os_warp();
  uint shift = begin_bit + 8 * pass;
  uint width = min(8u, end_bit - shift);
  uint mask = (1u << width) - 1u;
  int first = slot == 0, last = slot == m - 1;

  /* This launch's look-back area and the next launch's. */
  uint seq = slot * portions + portion;
  ulong area_words = OS_ROW0 + (ulong)rows * OS_BINS;
  volatile __global uint *area = status + (seq & 1u) * area_words;
  volatile __global uint *next_area = status + ((seq + 1u) & 1u) * area_words;

#if OS_SPLIT
  __local uint warp_hist[OS_WARPS * OS_BINS];
#else
  __local uint *warp_hist = (__local uint *)stage;
#endif
  __local KEY_T *staged_keys = (__local KEY_T *)stage;
  for (uint c = lid; c < OS_WARPS * OS_BINS; c += OS_WG) warp_hist[c] = 0;
  if (lid == 0) {
    tile_slot = atomic_inc(&area[0]);
    common_digit = 0xffffffffu;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint tile = tile_slot;
  uint ntiles = min((ulong)rows, (n + OS_TILE - 1) / OS_TILE - (ulong)portion * rows);
  /* Zero the next launch's rows, spread over this launch's tiles. */
  if (lid < OS_BINS)
    for (uint r = tile; r < rows; r += ntiles) next_area[OS_ROW0 + (ulong)r * OS_BINS + lid] = 0;
  if (tile == 0 && lid == 0) next_area[0] = 0;

  ulong tile_base = ((ulong)portion * rows + tile) * OS_TILE;
  uint len = (uint)min((ulong)OS_TILE, n - tile_base);
  int full = len == OS_TILE;

  __global const KEY_T *ksrc = first ? key_src : (os_target(slot - 1, m, alias & 1) ? x1 : x0);
  __global KEY_T *kdst = os_target(slot, m, alias & 1) ? x1 : x0;

  /* 1. Keys, warp-striped. */
  uint pos0 = warp * OS_WARP_KEYS + lane; /* tile position of item 0 */
  KEY_T key[OS_ITEMS];
  if (full) {
    UNROLL_FULL
    for (uint i = 0; i < OS_ITEMS; i++) key[i] = ksrc[tile_base + pos0 + 32 * i];
  } else {
    UNROLL_FULL
    for (uint i = 0; i < OS_ITEMS; i++) {
      uint pos = pos0 + 32 * i;
      key[i] = pos < len ? ksrc[tile_base + pos] : (KEY_T)0;
    }
  }
  UNROLL_FULL
  for (uint i = 0; i < OS_ITEMS; i++) {
    if (first) key[i] = key_to_bits(key[i], kind, desc);
    if (!full && pos0 + 32 * i >= len) key[i] = ~(KEY_T)0;
  }
  __local uint *my_hist = warp_hist + warp * OS_BINS;
  UNROLL_FULL
  for (uint i = 0; i < OS_ITEMS; i++) atomic_inc(&my_hist[os_digit(key[i], shift, mask)]);
  barrier(CLK_LOCAL_MEM_FENCE);

  /* 2. Work-item d < 256: the tile's count of digit d, published now; each
   * warp's counter becomes the count of d in the warps before it. */
  uint count = 0, published = 0;
  if (lid < OS_BINS) {
    UNROLL_FULL
    for (uint w = 0; w < OS_WARPS; w++) {
      uint c = warp_hist[w * OS_BINS + lid];
      warp_hist[w * OS_BINS + lid] = count;
      count += c;
    }
    /* The padding of a last partial tile all has the highest digit. */
    published = count - (lid == mask ? OS_TILE - len : 0u);
    area[OS_ROW0 + (ulong)tile * OS_BINS + lid] =
        (tile == 0 ? OS_FLAG_PREFIX : OS_FLAG_COUNT) | published;
    if (count == OS_TILE) common_digit = lid;
  }
  uint incl = os_warp_inclusive_u32(count, xchg);
  if (lid < OS_BINS && lane == 31) warp_total[warp] = incl;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint excl = 0; /* where digit lid's run starts in the tile */
  uint common = common_digit;
  if (lid < OS_BINS) {
    excl = incl - count;
    for (uint w = 0; w < warp; w++) excl += warp_total[w];
    if (common == 0xffffffffu) {
      UNROLL_FULL
      for (uint w = 0; w < OS_WARPS; w++) warp_hist[w * OS_BINS + lid] += excl;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  /* 3. Ranks (and with OS_SPLIT, 4's staging of each key as it is ranked).
   * The emulation ranks every tile: its warp operations hold barriers,
   * which PoCL wants outside branches. */
#if HAS_VALUES || !OS_SPLIT
  uint rank[OS_ITEMS];
#endif
  if (OS_EMULATE || common == 0xffffffffu) {
    uint le = os_lanemask_le();
    UNROLL_FULL
    for (uint i = 0; i < OS_ITEMS; i++) {
      uint d = os_digit(key[i], shift, mask);
      uint peers = os_match_digit(d, xchg);
      uint leader = 31u - clz(peers);
      uint below = popcount(peers & le); /* this lane and the peers before it */
      uint at = 0;
      if (lane == leader) at = atomic_add(&my_hist[d], below);
      at = os_shfl_idx(at, leader, xchg);
#if OS_SPLIT
      staged_keys[at + below - 1u] = key[i];
#endif
#if HAS_VALUES || !OS_SPLIT
      rank[i] = at + below - 1u;
#endif
    }
  }
#if !OS_SPLIT
  barrier(CLK_LOCAL_MEM_FENCE); /* every warp is done with its counters */
#endif

  /* 4. Stage the keys by rank; look back for this tile's digit offsets. */
#if !OS_SPLIT
  if (common == 0xffffffffu) {
    UNROLL_FULL
    for (uint i = 0; i < OS_ITEMS; i++) staged_keys[rank[i]] = key[i];
  }
#endif
  if (lid < OS_BINS) {
    uint before = 0;
    if (tile > 0) {
      for (long t = (long)tile - 1;; t--) {
        uint w;
        do {
          w = area[OS_ROW0 + (ulong)t * OS_BINS + lid];
        } while (w == 0);
        before += w & OS_COUNT_MASK;
        if (w & OS_FLAG_PREFIX) break;
      }
      area[OS_ROW0 + (ulong)tile * OS_BINS + lid] = OS_FLAG_PREFIX | (before + published);
    }
    __global OFFSET_T *base = bases + ((ulong)pass * (portions + 1) + portion) * OS_BINS;
    OFFSET_T start = base[lid] + before;
    global_off[lid] = start - excl;
    /* The portion's last tile hands the next portion its digit starts. */
    if (portions > 1 && tile == ntiles - 1) base[OS_BINS + lid] = start + published;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  /* 5. Write the keys. */
#if HAS_VALUES
  uint digit[OS_ITEMS];
#endif
  if (common == 0xffffffffu) {
    UNROLL_FULL
    for (uint u = 0; u < OS_ITEMS; u++) {
      uint r = lid + u * OS_WG;
      KEY_T b = staged_keys[r];
      uint d = os_digit(b, shift, mask);
#if HAS_VALUES
      digit[u] = d;
#endif
      if (r < len) kdst[global_off[d] + r] = last ? bits_to_key(b, kind, desc) : b;
    }
  } else {
    OFFSET_T at = global_off[common];
    UNROLL_FULL
    for (uint i = 0; i < OS_ITEMS; i++) {
      uint pos = pos0 + 32 * i;
      if (pos < len) kdst[at + pos] = last ? bits_to_key(key[i], kind, desc) : key[i];
    }
  }

#if HAS_VALUES
  __global const VALUE_T *vsrc = first ? val_src : (os_target(slot - 1, m, alias & 2) ? v1 : v0);
  __global VALUE_T *vdst = os_target(slot, m, alias & 2) ? v1 : v0;
  int index = first && make_index;
  VALUE_T val[OS_ITEMS];
  UNROLL_FULL
  for (uint i = 0; i < OS_ITEMS; i++) {
    uint pos = pos0 + 32 * i;
    if (index)
      val[i] = (VALUE_T)(tile_base + pos);
    else
      val[i] = pos < len ? vsrc[tile_base + pos] : (VALUE_T)0;
  }
  /* Barriers outside the branch: PoCL (the emulation) needs them so. */
  __local VALUE_T *staged_vals = (__local VALUE_T *)stage;
  barrier(CLK_LOCAL_MEM_FENCE); /* the staged keys are out */
  if (common == 0xffffffffu) {
    UNROLL_FULL
    for (uint i = 0; i < OS_ITEMS; i++) staged_vals[rank[i]] = val[i];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (common == 0xffffffffu) {
    UNROLL_FULL
    for (uint u = 0; u < OS_ITEMS; u++) {
      uint r = lid + u * OS_WG;
      if (r < len) vdst[global_off[digit[u]] + r] = staged_vals[r];
    }
  } else {
    OFFSET_T at = global_off[common];
    UNROLL_FULL
    for (uint i = 0; i < OS_ITEMS; i++) {
      uint pos = pos0 + 32 * i;
      if (pos < len) vdst[at + pos] = val[i];
    }
  }
#endif
}

/* After the passes: an in-place sort whose odd number of passes ended in
 * X0 copies it to X1 (keys when copy_keys, values when copy_values).
 * Exits at once otherwise. Work-group: OS_WG; any number of groups. */
OS_KERNEL void radix_nv_finish(__global const KEY_T *x0, __global KEY_T *x1,
                               __global const VALUE_T *v0, __global VALUE_T *v1, ulong n,
                               __global const uint *ctl, int copy_keys, int copy_values) {
  if ((ctl[OS_CTL_PLAN] & 1u) == 0) return;
  ulong stride = get_global_size(0);
  if (copy_keys) {
    __global const OS_KEY4 *s4 = (__global const OS_KEY4 *)x0;
    __global OS_KEY4 *d4 = (__global OS_KEY4 *)x1;
    for (ulong i = get_global_id(0); i < n / 4; i += stride) d4[i] = s4[i];
    for (ulong i = n / 4 * 4 + get_global_id(0); i < n; i += stride) x1[i] = x0[i];
  }
#if HAS_VALUES
  if (copy_values) {
    for (ulong i = get_global_id(0); i < n; i += stride) v1[i] = v0[i];
  }
#endif
}
