/* wg_scan.cl: the work-group scan and reduce layer that every device-wide
 * primitive and every sort kernel builds on. It is a template: the host
 * lists it as "wg_scan.cl@u32" (or i32, f32, u64, i64, f64) and defines,
 * before it,
 *   WG_T         the element type (uint, ...)
 *   WG_SUFFIX    the suffix of the generated names (u32, ...)
 *   WG_T_BITS    32 or 64
 *   WG_T_FLOAT   1 for float and double
 *   WG_T_LOWEST, WG_T_HIGHEST  the type's extreme values
 * and undefines them after. It generates, for suffix S:
 *   WG_T wg_exclusive_sum_S(WG_T x, WG_T *total, __local WG_T *tmp)
 *   WG_T wg_reduce_S(WG_T x, int op, __local WG_T *tmp)
 *   WG_T combine_S(WG_T a, WG_T b, int op), WG_T identity_S(int op)
 * with op 0 = sum, 1 = min, 2 = max. tmp holds WG_SIZE elements. Every
 * work-item of the group must make each of these calls (they contain
 * barriers), and each call ends with a barrier, so tmp may be reused right
 * after. On NVIDIA, 32-bit types also get the decoupled look-back of the
 * single-pass kernels, which one whole warp calls, and its publisher:
 *   WG_T look_back_S(volatile __global STATUS *status, long tile, long first)
 *   void status_store_S(volatile __global STATUS *p, ulong flag, WG_T value)
 *   void tile_exclusive_S(status, tile, first, WG_T total, __local WG_T *before)
 *     (the whole group: publish, look back, publish the inclusive sum)
 * where STATUS is ulong for 32-bit types and ulong2 for 64-bit ones.
 * Needs common.cl before it. */
#if !defined(WG_T) || !defined(WG_SUFFIX) || !defined(WG_T_BITS) || !defined(WG_T_FLOAT) || \
    !defined(WG_T_LOWEST) || !defined(WG_T_HIGHEST)
#error "wg_scan.cl is a template: list it as wg_scan.cl@TYPE so the host defines WG_T etc."
#endif

#define WG_FN(name) CAT3(name, _, WG_SUFFIX)

/* Float min/max ignore NaN (fmin/fmax); NaN is then also their identity,
 * so padding never wins and an all-NaN input stays NaN. */
inline WG_T WG_FN(identity)(int op) {
#if WG_T_FLOAT
  return op == 0 ? (WG_T)0 : (WG_T)NAN;
#else
  return op == 0 ? (WG_T)0 : op == 1 ? (WG_T)(WG_T_HIGHEST) : (WG_T)(WG_T_LOWEST);
#endif
}

inline WG_T WG_FN(combine)(WG_T a, WG_T b, int op) {
#if WG_T_FLOAT
  return op == 0 ? a + b : op == 1 ? fmin(a, b) : fmax(a, b);
#else
  return op == 0 ? a + b : op == 1 ? min(a, b) : max(a, b);
#endif
}

#if USE_PTX
/* Shuffles for any 32- or 64-bit element type, through its bits. */
inline WG_T WG_FN(wg_shfl_up)(WG_T x, uint delta) {
#if WG_T_BITS == 32
  return CAT(as_, WG_T)(shfl_up_u32(CAT(as_, uint)(x), delta));
#else
  uint2 v = CAT(as_, uint2)(x);
  v.x = shfl_up_u32(v.x, delta);
  v.y = shfl_up_u32(v.y, delta);
  return CAT(as_, WG_T)(v);
#endif
}

/* Inclusive sum over the warp (Kogge-Stone through shuffles). */
inline WG_T WG_FN(wg_warp_inclusive_sum)(WG_T x) {
  uint lane = lane_id();
UNROLL
  for (uint d = 1; d < WARP_SIZE; d <<= 1) {
    WG_T y = WG_FN(wg_shfl_up)(x, d);
    if (lane >= d) x += y;
  }
  return x;
}

/* The same over a group of `warps` warps (not WG_SIZE's), for kernels
 * with a group size of their own; tmp holds warps + 1 elements. */
WG_T WG_FN(wg_exclusive_sum_warps)(WG_T x, WG_T *total, __local WG_T *tmp, uint warps) {
  uint lane = lane_id(), warp = warp_id();
  WG_T incl = WG_FN(wg_warp_inclusive_sum)(x);
  WG_T excl = WG_FN(wg_shfl_up)(incl, 1);
  if (lane == 0) excl = 0;
  if (lane == WARP_SIZE - 1) tmp[warp] = incl;
  WG_BARRIER();
  if (warp == 0) {
    /* One warp scans the warp totals; its lanes all read before the
     * shuffles and write after them. */
    WG_T w = lane < warps ? tmp[lane] : (WG_T)0;
    WG_T wi = WG_FN(wg_warp_inclusive_sum)(w);
    /* Exclusive by shifting, not by subtracting: exact for floats too. */
    WG_T we = WG_FN(wg_shfl_up)(wi, 1);
    if (lane < warps) tmp[lane] = lane == 0 ? (WG_T)0 : we;
    if (lane == warps - 1) tmp[warps] = wi;
  }
  WG_BARRIER();
  WG_T result = tmp[warp] + excl;
  *total = tmp[warps];
  WG_BARRIER();
  return result;
}

WG_T WG_FN(wg_exclusive_sum)(WG_T x, WG_T *total, __local WG_T *tmp) {
  return WG_FN(wg_exclusive_sum_warps)(x, total, tmp, NUM_WARPS);
}
#else
/* Portable: Kogge-Stone in local memory. Every work-item runs the same
 * number of iterations, which PoCL's barrier handling needs. */
WG_T WG_FN(wg_exclusive_sum)(WG_T x, WG_T *total, __local WG_T *tmp) {
  uint lid = get_local_id(0);
  tmp[lid] = x;
  WG_BARRIER();
  for (uint d = 1; d < WG_SIZE; d <<= 1) {
    WG_T y = lid >= d ? tmp[lid - d] : (WG_T)0;
    WG_BARRIER();
    tmp[lid] += y;
    WG_BARRIER();
  }
  /* The left neighbour's inclusive sum, not incl - x: exact for floats. */
  WG_T excl = lid > 0 ? tmp[lid - 1] : (WG_T)0;
  *total = tmp[WG_SIZE - 1];
  WG_BARRIER();
  return excl;
}
#endif

/* Tree reduction; the result reaches every work-item. Used once per group
 * per pass, so the portable form serves every device. */
WG_T WG_FN(wg_reduce)(WG_T x, int op, __local WG_T *tmp) {
  uint lid = get_local_id(0);
  tmp[lid] = x;
  WG_BARRIER();
  for (uint s = WG_SIZE / 2; s > 0; s >>= 1) {
    if (lid < s) tmp[lid] = WG_FN(combine)(tmp[lid], tmp[lid + s], op);
    WG_BARRIER();
  }
  WG_T r = tmp[0];
  WG_BARRIER();
  return r;
}

#if USE_PTX
/* Decoupled look-back (Merrill & Garland): how single-pass kernels learn
 * the sum of the tiles before theirs without a second launch. Tile t's
 * status holds a flag (0 not ready, 1 the tile's own value, 2 the
 * inclusive prefix over tiles first..t) and the value, published in one
 * store so that a reader never sees a flag without its value: for 32-bit
 * types one 8-byte word (flag << 32 | value bits), for 64-bit types a
 * 16-byte {flag, value} written and read whole with relaxed GPU-scope
 * vector accesses. Tiles must be numbered in the order their groups start
 * (an atomic ticket), so a tile only waits on groups already running. */
#ifndef LOOKBACK_NS
#define LOOKBACK_NS 0
#endif
/* A single-pass kernel's tile: by default a ticket (state[0], zeroed by
 * the host) taken in the order groups start, which guarantees that every
 * tile waited on is already running. TILE_BY_GROUP=1 takes the group id
 * instead, as CUB does, trusting that the GPU starts groups in id order. */
#ifndef TILE_NUMBER
#if TILE_BY_GROUP
#define TILE_NUMBER(state, slot) ((long)get_group_id(0))
#else
#define TILE_NUMBER(state, slot) take_ticket((volatile __global uint *)(state), &(slot))
inline long take_ticket(volatile __global uint *counter, __local uint *slot) {
  if (get_local_id(0) == 0) *slot = atomic_inc(counter);
  WG_BARRIER();
  return *slot;
}
#endif
#endif
#ifndef FLAG_AGGREGATE
#define FLAG_AGGREGATE 1ul
#define FLAG_INCLUSIVE 2ul
#endif

#if WG_T_BITS == 32
#define WG_STATUS ulong
inline void WG_FN(status_store)(volatile __global ulong *p, ulong flag, WG_T value) {
  *p = (flag << 32) | CAT(as_, uint)(value);
}
/* {flag, value bits} */
inline ulong2 WG_FN(status_read)(volatile __global ulong *p) {
  ulong w = *p;
  return (ulong2)(w >> 32, w & 0xffffffffu);
}
inline WG_T WG_FN(from_status_bits)(ulong bits) { return CAT(as_, WG_T)((uint)bits); }
inline WG_T WG_FN(warp_sum)(WG_T v) {
UNROLL_FULL
  for (uint m = 16; m > 0; m >>= 1) v += CAT(as_, WG_T)(shfl_xor_u32(CAT(as_, uint)(v), m));
  return v;
}
#else
#define WG_STATUS ulong2
inline void WG_FN(status_store)(volatile __global ulong2 *p, ulong flag, WG_T value) {
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"((ulong)p), "l"(flag),
               "l"(CAT(as_, ulong)(value))
               : "memory");
}
inline ulong2 WG_FN(status_read)(volatile __global ulong2 *p) {
  ulong2 w;
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
               : "=l"(w.x), "=l"(w.y)
               : "l"((ulong)p)
               : "memory");
  return w;
}
inline WG_T WG_FN(from_status_bits)(ulong bits) { return CAT(as_, WG_T)(bits); }
inline WG_T WG_FN(warp_sum)(WG_T v) {
UNROLL_FULL
  for (uint m = 16; m > 0; m >>= 1) {
    uint2 h = as_uint2(v);
    h.x = shfl_xor_u32(h.x, m);
    h.y = shfl_xor_u32(h.y, m);
    v += CAT(as_, WG_T)(h);
  }
  return v;
}
#endif

/* Sum of the published values of tiles first .. tile - 1 (tiles before
 * `first` are not read: a segmented scan starts there). Runs on one whole
 * warp; lane l looks at tile window - l. */
inline WG_T WG_FN(look_back)(volatile __global WG_STATUS *status, long tile, long first) {
  uint lane = lane_id();
  WG_T prefix = 0;
  long window = tile - 1;
  for (;;) {
    long t = window - (long)lane;
    ulong2 word;
    /* Spin until every lane sees a published status (uniform loop),
     * sleeping LOOKBACK_NS between polls so that waiting warps leave the
     * L2 to the tiles still loading (CUB's delay constructors). */
    for (;;) {
      word = t >= first ? WG_FN(status_read)(status + t) : (ulong2)(FLAG_INCLUSIVE, 0);
      if (warp_ballot(word.x == 0) == 0) break;
#if LOOKBACK_NS > 0
      asm volatile("nanosleep.u32 %0;" ::"n"(LOOKBACK_NS));
#endif
    }
    uint inclusive = warp_ballot(word.x == FLAG_INCLUSIVE);
    /* Lanes up to and including the nearest inclusive prefix contribute. */
    uint last = inclusive ? lowest_bit(inclusive) : 31u;
    WG_T v = lane <= last ? WG_FN(from_status_bits)(word.y) : (WG_T)0;
    prefix += WG_FN(warp_sum)(v);
    if (inclusive) return prefix;
    window -= 32;
  }
}
/* A group's part of the decoupled look-back for tile `tile` of a run of
 * tiles starting at `first`: publishes the tile's `total` (inclusive at
 * once for the run's first tile), then warp 0 sums the tiles before it,
 * publishes the inclusive sum, and work-item 0 writes the exclusive one
 * to *before. Every work-item calls it; no barrier inside, so read
 * *before after the caller's barrier. */
inline void WG_FN(tile_exclusive)(volatile __global WG_STATUS *status, long tile, long first,
                                  WG_T total, __local WG_T *before) {
  uint lid = get_local_id(0);
  if (tile == first) {
    if (lid == 0) {
      WG_FN(status_store)(status + tile, FLAG_INCLUSIVE, total);
      *before = 0;
    }
  } else {
    if (lid == 0) WG_FN(status_store)(status + tile, FLAG_AGGREGATE, total);
    if (warp_id() == 0) {
      WG_T b = WG_FN(look_back)(status, tile, first);
      if (lid == 0) {
        WG_FN(status_store)(status + tile, FLAG_INCLUSIVE, b + total);
        *before = b;
      }
    }
  }
}
#undef WG_STATUS
#endif

#undef WG_FN
