/* scan.cl: device-wide scan and reduce of one element type.
 *
 * Needs common.cl and wg_scan.cl@SCAN_SUFFIX before it, and
 *   SCAN_T       the element type (uint, int, float, ulong, long, double)
 *   SCAN_SUFFIX  its wg_scan suffix (u32, ...)
 *   SCAN_BITS    32 or 64
 * ITEMS must be a multiple of 4 (full tiles are moved as 4-vectors).
 *
 * The portable scan is reduce-then-scan over G groups that each own a
 * contiguous chunk of whole tiles:
 *   1. scan_reduce_chunks: chunk g -> partials[g]
 *   2. scan_chunks with one group over the partials (exclusive)
 *   3. scan_chunks over the input, each group starting from its partial.
 * On NVIDIA, sums of every type use scan_single_pass (decoupled
 * look-back) and read the input once instead of twice.
 */
#if !defined(SCAN_T) || !defined(SCAN_SUFFIX) || !defined(SCAN_BITS)
#error "scan.cl needs SCAN_T, SCAN_SUFFIX and SCAN_BITS"
#endif
#if ITEMS % 4 != 0
#error "scan.cl needs ITEMS to be a multiple of 4"
#endif

#define T SCAN_T
#define T4 CAT(SCAN_T, 4)
#define FN(name) CAT3(name, _, SCAN_SUFFIX)

/* Loads the ITEMS consecutive elements starting at `first` into v; the
 * elements at or past `end` read as 0. Full runs move as 16-byte vectors
 * (for 32-bit types), which is what reaches full bandwidth on NVIDIA. */
inline void FN(load_run)(__global const T *in, ulong first, ulong end, T *v) {
  if (first + ITEMS <= end) {
    __global const T4 *in4 = (__global const T4 *)(in + first);
UNROLL_FULL
    for (uint j = 0; j < ITEMS / 4; j++) vstore4(in4[j], j, v);
  } else {
UNROLL_FULL
    for (uint k = 0; k < ITEMS; k++) v[k] = first + k < end ? in[first + k] : (T)0;
  }
}

/* Stores v[k] to out[first + k] for the elements before `end`. */
inline void FN(store_run)(__global T *out, ulong first, ulong end, const T *v) {
  if (first + ITEMS <= end) {
    __global T4 *out4 = (__global T4 *)(out + first);
UNROLL_FULL
    for (uint j = 0; j < ITEMS / 4; j++)
      out4[j] = (T4)(v[4 * j], v[4 * j + 1], v[4 * j + 2], v[4 * j + 3]);
  } else {
UNROLL_FULL
    for (uint k = 0; k < ITEMS; k++)
      if (first + k < end) out[first + k] = v[k];
  }
}

/* Turns v into its running sums, starting from `start`. */
inline void FN(scan_run)(T *v, T start, int inclusive) {
  /* Branch-free in the loop: a select, not a data-dependent branch, so
   * that CPU compilers keep one dependency chain of adds. */
  T running = start;
UNROLL_FULL
  for (uint k = 0; k < ITEMS; k++) {
    T next = running + v[k];
    v[k] = inclusive ? next : running;
    running = next;
  }
}

/* Pass 1. partials[g] = op-reduction of chunk g = [g*chunk, min(n, (g+1)*chunk)).
 * Work-group: WG_SIZE. Local: WG_SIZE elements. Loads are striped across the
 * group (coalesced); order does not matter for a reduction. */
KERNEL void FN(scan_reduce_chunks)(__global const T *in, ulong n, ulong chunk,
                                   __global T *partials, int op) {
  __local T tmp[WG_SIZE];
  uint lid = get_local_id(0);
  ulong begin = get_group_id(0) * chunk;
  ulong end = min(n, begin + chunk);
  T acc = FN(identity)(op);
  ulong base = begin;
  /* Whole tiles as vectors: element base + 4*(j*WG_SIZE + lid) .. +3.
   * Sums, the scan's case, get a loop of their own: with the op tested
   * outside it, a CPU compiler vectorizes it. */
  if (op == 0) {
    T4 sum4 = 0;
    for (; base + TILE <= end; base += TILE) {
      __global const T4 *in4 = (__global const T4 *)(in + base);
      UNROLL_FULL
      for (uint j = 0; j < ITEMS / 4; j++) sum4 += in4[j * WG_SIZE + lid];
    }
    acc = (sum4.x + sum4.y) + (sum4.z + sum4.w);
  }
  for (; base + TILE <= end; base += TILE) {
    __global const T4 *in4 = (__global const T4 *)(in + base);
    UNROLL_FULL
    for (uint j = 0; j < ITEMS / 4; j++) {
      T4 q = in4[j * WG_SIZE + lid];
      acc = FN(combine)(acc, FN(combine)(FN(combine)(q.x, q.y, op), FN(combine)(q.z, q.w, op), op),
                        op);
    }
  }
  for (ulong i = base + lid; i < end; i += WG_SIZE) acc = FN(combine)(acc, in[i], op);
  T r = FN(wg_reduce)(acc, op, tmp);
  if (lid == 0) partials[get_group_id(0)] = r;
}

/* Passes 2 and 3. Scans chunk g of `in` into `out` (which may be `in`),
 * starting from carry_in[g], or from 0 when carry_in is NULL.
 * Work-group: WG_SIZE. Local: WG_SIZE elements. Loop invariant: `carry` is
 * the sum of everything before the current tile. */
KERNEL void FN(scan_chunks)(__global const T *in, __global T *out, ulong n, ulong chunk,
                            __global const T *carry_in, int inclusive) {
  __local T tmp[WG_SIZE];
  uint lid = get_local_id(0);
  ulong begin = get_group_id(0) * chunk;
  ulong end = min(n, begin + chunk);
  T carry = carry_in ? carry_in[get_group_id(0)] : (T)0;
  for (ulong base = begin; base < end; base += TILE) {
    T v[ITEMS];
    ulong first = base + (ulong)lid * ITEMS;
    FN(load_run)(in, first, end, v);
    T sum = 0;
UNROLL_FULL
    for (uint k = 0; k < ITEMS; k++) sum += v[k];
    T total;
    T prefix = FN(wg_exclusive_sum)(sum, &total, tmp);
    FN(scan_run)(v, carry + prefix, inclusive);
    FN(store_run)(out, first, end, v);
    carry += total;
  }
}

#ifndef SCAN64_ITEMS
#define SCAN64_ITEMS (ITEMS / 2)
#endif
#if SCAN64_ITEMS % 2 != 0
#error "scan.cl needs SCAN64_ITEMS to be even"
#endif
#if USE_PTX
/* Single-pass scan with decoupled look-back (Merrill & Garland; the
 * look-back itself is wg_scan.cl's), for sums on NVIDIA. One group per
 * tile; tiles are numbered in the order groups start (an atomic counter),
 * so every tile waits only on tiles whose groups are already running,
 * which guarantees progress.
 *
 * 32-bit types: state[0] is the tile counter; state[1 + t] is tile t's
 * 8-byte status word (see wg_scan.cl). 64-bit types: the counter is in
 * state[0], and tile t's 16-byte status {flag, value} at state[2 + 2t]
 * (see wg_scan.cl). The host zeroes state before each launch.
 *
 * Tile layout: warp-striped 16-byte vectors. Warp w owns the tile's
 * elements [w*32*SP_ITEMS, (w+1)*32*SP_ITEMS); in round j its lane l holds
 * the SP_VEC elements at 32*SP_VEC*j + SP_VEC*l of that range. Every load
 * and store of a warp then covers 512 contiguous bytes, which is what
 * moves data at full bandwidth; the scan order is rebuilt with one warp
 * scan per round. 64-bit types take SCAN64_ITEMS elements per work-item
 * (tuning.c; by default ITEMS / 2, the same bytes). */
#if SCAN_BITS == 32
#define SP_VEC 4
#define SP_ITEMS ITEMS
#define SP_WG WG_SIZE
#define TV T4
#else
#define SP_VEC 2
#define SP_ITEMS SCAN64_ITEMS
#define SP_WG SCAN64_WG
#define TV CAT(SCAN_T, 2)
#endif
#if SP_WG % 32 != 0 || SP_WG > 1024
#error "the single-pass scan needs a group of whole warps, at most 32 of them"
#endif
#define SP_TILE (SP_WG * SP_ITEMS)
#define ROUNDS (SP_ITEMS / SP_VEC)

/* Lane 31's value, on every lane. */
inline T FN(shfl_last)(T x) {
#if SCAN_BITS == 32
  return CAT(as_, T)(shfl_idx_u32(CAT(as_, uint)(x), 31));
#else
  uint2 h = CAT(as_, uint2)(x);
  h.x = shfl_idx_u32(h.x, 31);
  h.y = shfl_idx_u32(h.y, 31);
  return CAT(as_, T)(h);
#endif
}

__kernel __attribute__((reqd_work_group_size(SP_WG, 1, 1))) void FN(scan_single_pass)(
    __global const T *in, __global T *out, ulong n, volatile __global ulong *state, int inclusive) {
  __local T tmp[SP_WG / WARP_SIZE + 1];
  __local uint tile_slot;
  __local T tile_prefix;
  uint lid = get_local_id(0), lane = lane_id();
  long tile = TILE_NUMBER(state, tile_slot);

  /* Element index of this lane's first vector in round 0. */
  ulong first = (ulong)tile * SP_TILE + (ulong)warp_id() * (WARP_SIZE * SP_ITEMS) + SP_VEC * lane;
  TV q[ROUNDS];
  T offset[ROUNDS]; /* exclusive prefix of q[j] within the warp's range */
  T warp_total = 0;
  bool full = first - SP_VEC * lane + WARP_SIZE * SP_ITEMS <= n;
  /* Every load first, then the warp scans: the shuffles are volatile asm,
   * which a compiler may not move loads across, so a fused loop could
   * leave one load in flight per work-item. */
UNROLL_FULL
  for (uint j = 0; j < ROUNDS; j++) {
    ulong at = first + WARP_SIZE * SP_VEC * j;
    if (full) {
      q[j] = *(__global const TV *)(in + at);
    } else {
      q[j].x = at < n ? in[at] : (T)0;
      q[j].y = at + 1 < n ? in[at + 1] : (T)0;
#if SP_VEC == 4
      q[j].z = at + 2 < n ? in[at + 2] : (T)0;
      q[j].w = at + 3 < n ? in[at + 3] : (T)0;
#endif
    }
  }
UNROLL_FULL
  for (uint j = 0; j < ROUNDS; j++) {
#if SP_VEC == 4
    T s = q[j].x + q[j].y + q[j].z + q[j].w;
#else
    T s = q[j].x + q[j].y;
#endif
    T incl = FN(wg_warp_inclusive_sum)(s);
    T excl = FN(wg_shfl_up)(incl, 1);
    offset[j] = warp_total + (lane == 0 ? (T)0 : excl);
    warp_total += FN(shfl_last)(incl);
  }
  /* Lane 31 carries its warp's total into the group scan, so every lane
   * receives the sum of the warps before its own. */
  T tile_total;
  T warp_prefix = FN(wg_exclusive_sum_warps)(lane == WARP_SIZE - 1 ? warp_total : (T)0, &tile_total,
                                             tmp, SP_WG / WARP_SIZE);

  /* 64-bit types: 16-byte status words, 16-byte aligned after the ticket. */
#if SCAN_BITS == 32
  volatile __global ulong *status = state + 1;
#else
  volatile __global ulong2 *status = (volatile __global ulong2 *)(state + 2);
#endif
  FN(tile_exclusive)(status, tile, 0, tile_total, &tile_prefix);
  WG_BARRIER();
  T base = tile_prefix + warp_prefix;
UNROLL_FULL
  for (uint j = 0; j < ROUNDS; j++) {
    ulong at = first + WARP_SIZE * SP_VEC * j;
#if SP_VEC == 4
    T v[4] = {q[j].x, q[j].y, q[j].z, q[j].w};
#else
    T v[2] = {q[j].x, q[j].y};
#endif
    T running = base + offset[j];
UNROLL_FULL
    for (uint k = 0; k < SP_VEC; k++) {
      T next = running + v[k];
      v[k] = inclusive ? next : running;
      running = next;
    }
    if (full) {
#if SP_VEC == 4
      *(__global TV *)(out + at) = (TV)(v[0], v[1], v[2], v[3]);
#else
      *(__global TV *)(out + at) = (TV)(v[0], v[1]);
#endif
    } else {
UNROLL_FULL
      for (uint k = 0; k < SP_VEC; k++)
        if (at + k < n) out[at + k] = v[k];
    }
  }
}
#undef SP_VEC
#undef SP_ITEMS
#undef SP_WG
#undef TV
#undef SP_TILE
#undef ROUNDS
#endif

#undef T
#undef T4
#undef FN
