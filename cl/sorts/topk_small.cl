/* topk_small.cl: top-k for a small k (src/sorts/top_k_small.c) in two
 * launches that read the keys once, with nothing read back in between.
 * The order is the stable sort's: by order bits (keys.cl), then by input
 * position, so every element is an (order bits, position) pair and no two
 * are equal. Each work-item keeps the TK_K smallest pairs it has seen,
 * sorted, in registers; a work-group then merges its work-items' lists
 * pairwise (a tree over local memory) into the TK_K smallest of its part
 * of the input. topk_small_groups writes one such list per group;
 * topk_small_final, one work-group, merges those lists the same way and
 * writes the first k keys and positions.
 *
 * Needs common.cl and keys.cl before it (KEY_T, KEY_BITS), and
 *   TK_K  the list length: 1 (an arg-min) or a power of two up to 16;
 *         k <= TK_K is a run-time argument (the smallest TK_K pairs hold
 *         the k smallest).
 * Positions are 32-bit: the host takes this path for n < 2^32 only, and
 * the position 0xFFFFFFFF marks an empty slot (order bits all ones), which
 * sorts after every element. Work-group: WG_SIZE (1 in the CPU shape,
 * where nothing is merged and no local memory is used). Local memory: the
 * tree's lists, WG_SIZE / 2 * TK_K pairs, plus one uint. topk_small_groups
 * reads the input from `keys_at` of its buffer (as topk.cl's kernels), and
 * topk_small_final writes each output from its own origin. */

#if !defined(TK_K)
#error "topk_small.cl needs TK_K"
#endif
#if TK_K != 1 && TK_K != 2 && TK_K != 4 && TK_K != 8 && TK_K != 16
#error "TK_K must be 1, 2, 4, 8 or 16"
#endif

#define TK_NONE 0xFFFFFFFFu
/* Pair a before pair b. */
#define TK_LESS(ab, ai, bb, bi) ((ab) < (bb) || ((ab) == (bb) && (ai) < (bi)))
/* Keys loaded per work-item before any is compared (GPU shape): loads in
 * flight, not a chain of one load and its compare at a time. */
#define TK_LOAD 8
/* Keys per block of the CPU shape's serial walk: 2 or 4 KB, in the L1
 * cache for the second walk. */
#define TK_CPU_BLOCK 512

/* The list: kb/ki[0, TK_K) ascending. Inserts (b, i), which the caller
 * found before the last entry: it replaces that entry and sinks to its
 * place (fixed indices, unrolled: the list stays in registers). */
inline void tk_insert(KEY_T *kb, uint *ki, KEY_T b, uint i) {
  kb[TK_K - 1] = b;
  ki[TK_K - 1] = i;
  UNROLL_FULL
  for (int j = TK_K - 1; j > 0; j--) {
    if (TK_LESS(kb[j], ki[j], kb[j - 1], ki[j - 1])) {
      KEY_T tb = kb[j];
      uint ti = ki[j];
      kb[j] = kb[j - 1];
      ki[j] = ki[j - 1];
      kb[j - 1] = tb;
      ki[j - 1] = ti;
    }
  }
}

/* Merges the sorted list (ob, oi) (local memory) into the sorted list
 * kb/ki, keeping the TK_K smallest of both, sorted: the elementwise
 * smaller of one list and the other reversed is a bitonic sequence that
 * holds them, which a bitonic merge sorts. */
inline void tk_merge(KEY_T *kb, uint *ki, __local const KEY_T *ob, __local const uint *oi) {
  UNROLL_FULL
  for (int j = 0; j < TK_K; j++) {
    KEY_T b = ob[TK_K - 1 - j];
    uint i = oi[TK_K - 1 - j];
    if (TK_LESS(b, i, kb[j], ki[j])) {
      kb[j] = b;
      ki[j] = i;
    }
  }
  UNROLL_FULL
  for (int s = TK_K / 2; s > 0; s >>= 1) {
    UNROLL_FULL
    for (int j = 0; j < TK_K; j++) {
      if ((j & s) == 0 && TK_LESS(kb[j + s], ki[j + s], kb[j], ki[j])) {
        KEY_T tb = kb[j];
        uint ti = ki[j];
        kb[j] = kb[j + s];
        ki[j] = ki[j + s];
        kb[j + s] = tb;
        ki[j + s] = ti;
      }
    }
  }
}

inline void tk_empty(KEY_T *kb, uint *ki) {
  UNROLL_FULL
  for (int j = 0; j < TK_K; j++) {
    kb[j] = ~(KEY_T)0;
    ki[j] = TK_NONE;
  }
}

/* The high 32 order bits: what the group's shared bound compares. */
#if KEY_BITS == 64
#define TK_HIGH(b) ((uint)((b) >> 32))
#else
#define TK_HIGH(b) ((uint)(b))
#endif

/* The group's lists merged into work-item 0's: at step s, the work-items
 * at odd multiples of s hand their lists (through local memory) to those
 * at even multiples. Called at the top level by every work-item (its
 * barriers have a trip count uniform over the group). */
#if WG_SIZE > 1
#define TK_GROUP_MERGE(kb, ki, lb, li)                                            \
  for (uint s = 1; s < WG_SIZE; s <<= 1) {                                        \
    uint lid_ = get_local_id(0), slot_ = lid_ / (2 * s);                          \
    if ((lid_ & (2 * s - 1)) == s) {                                              \
      UNROLL_FULL                                                                 \
      for (int j = 0; j < TK_K; j++) {                                            \
        lb[slot_ * TK_K + j] = kb[j];                                             \
        li[slot_ * TK_K + j] = ki[j];                                             \
      }                                                                           \
    }                                                                             \
    WG_BARRIER();                                                                 \
    if ((lid_ & (2 * s - 1)) == 0 && lid_ + s < WG_SIZE)                          \
      tk_merge(kb, ki, lb + slot_ * TK_K, li + slot_ * TK_K);                     \
    WG_BARRIER();                                                                 \
  }
#define TK_LOCAL_LISTS (WG_SIZE / 2 * TK_K)
#else
#define TK_GROUP_MERGE(kb, ki, lb, li) ((void)0)
#define TK_LOCAL_LISTS 1
#endif

/* Group g's TK_K smallest pairs of keys[g * chunk, min(n, g * chunk +
 * chunk)) into out_bits/out_pos[g * TK_K, +TK_K), ascending (empty slots
 * at the end when the part holds fewer). n < 2^32.
 * GPU shape: the group walks its part a tile (WG_SIZE * TK_LOAD keys,
 * striped over the work-items) at a time. Beside its own list's last
 * entry, a work-item skips keys whose high order bits exceed `bound`, the
 * smallest high bits of any work-item's full list's last entry (that list
 * holds TK_K pairs at or below it): the group's lists fill and tighten
 * together, so few keys reach the insertion, whose cost every work-item of
 * a warp pays when one takes it. Invariant: each list holds the TK_K
 * smallest pairs of the keys its work-item has read. CPU shape: one
 * work-item walks the part in a serial loop. */
KERNEL void topk_small_groups(__global const KEY_T *keys, ulong keys_at, ulong n,
                              ulong chunk, int kind, int desc, __global KEY_T *out_bits,
                              __global uint *out_pos) {
  keys += keys_at;
  ulong begin = get_group_id(0) * chunk, end = min(n, begin + chunk);
  KEY_T kb[TK_K];
  uint ki[TK_K];
  tk_empty(kb, ki);
  key_flips f = key_flips_for(kind, desc);
  __local KEY_T lb[TK_LOCAL_LISTS];
  __local uint li[TK_LOCAL_LISTS];
#if WG_SIZE == 1
  (void)lb;
  (void)li;
  /* A block at a time: a first walk (branch-free, vectorized) asks
   * whether any key beats the list's last entry, and only then a second
   * one inserts. Positions only grow, so once the list is full a key equal
   * to its last entry never beats it; before, every key goes in. */
  for (ulong block = begin; block < end; block += TK_CPU_BLOCK) {
    uint len = (uint)min((ulong)TK_CPU_BLOCK, end - block);
    __global const KEY_T *b0 = keys + block;
    KEY_T last = kb[TK_K - 1];
    uint hit = ki[TK_K - 1] == TK_NONE;
    for (uint t = 0; t < len; t++) hit |= key_to_bits_flip(b0[t], f) < last;
    if (!hit) continue;
    for (uint t = 0; t < len; t++) {
      KEY_T b = key_to_bits_flip(b0[t], f);
      if (b < kb[TK_K - 1] || (b == kb[TK_K - 1] && ki[TK_K - 1] == TK_NONE))
        tk_insert(kb, ki, b, (uint)(block + t));
    }
  }
#else
  __local uint bound;
  uint lid = get_local_id(0);
  if (lid == 0) bound = TK_NONE;
  WG_BARRIER();
  uint mine = TK_NONE;
  for (ulong base = begin; base < end; base += WG_SIZE * TK_LOAD) {
    uint len = (uint)min((ulong)(WG_SIZE * TK_LOAD), end - base), t = bound;
    KEY_T v[TK_LOAD];
    UNROLL
    for (uint j = 0; j < TK_LOAD; j++) {
      uint o = j * WG_SIZE + lid;
      v[j] = o < len ? keys[base + o] : (KEY_T)0;
    }
    UNROLL
    for (uint j = 0; j < TK_LOAD; j++) {
      uint o = j * WG_SIZE + lid;
      KEY_T b = key_to_bits_flip(v[j], f);
      if (o < len && TK_HIGH(b) <= t && TK_LESS(b, (uint)(base + o), kb[TK_K - 1], ki[TK_K - 1]))
        tk_insert(kb, ki, b, (uint)(base + o));
    }
    /* Every work-item read `bound` before any lowers it, and lowered it
     * before any reads it again. */
    WG_BARRIER();
    uint h = ki[TK_K - 1] == TK_NONE ? TK_NONE : TK_HIGH(kb[TK_K - 1]);
    if (h < mine) {
      mine = h;
      atomic_min(&bound, h);
    }
    WG_BARRIER();
  }
#endif
  TK_GROUP_MERGE(kb, ki, lb, li);
  if (get_local_id(0) == 0) {
    UNROLL_FULL
    for (int j = 0; j < TK_K; j++) {
      out_bits[get_group_id(0) * TK_K + j] = kb[j];
      out_pos[get_group_id(0) * TK_K + j] = ki[j];
    }
  }
}

/* One work-group: the TK_K smallest of the m pairs (bits, pos) (the
 * groups' lists), of which the first k (k <= TK_K, and at least k pairs
 * are not empty) are written: with keys, the keys (bits_to_key) at
 * out_keys[keys_at + (0, k)]; with positions, the positions at pos32
 * (4-byte) or pos64 (wide) [pos_at + (0, k)]. The origins keys_at and
 * pos_at (elements of each output) are a caller's host arrays used in
 * place on a CPU device (sorts.h's clsort__top_k_out), else 0. Each
 * work-item walks the pairs TK_LOAD at a time (loads in flight before the
 * compares), then the tree merges. */
KERNEL void topk_small_final(__global const KEY_T *bits, __global const uint *pos, uint m, uint k,
                             int kind, int desc, int keys_out, __global KEY_T *out_keys,
                             ulong keys_at, int positions, int wide, __global uint *pos32,
                             __global ulong *pos64, ulong pos_at) {
  out_keys += keys_at;
  /* pos32 and pos64 are one buffer: only the one in use moves. */
  if (wide) pos64 += pos_at;
  else pos32 += pos_at;
  KEY_T kb[TK_K];
  uint ki[TK_K];
  tk_empty(kb, ki);
  __local KEY_T lb[TK_LOCAL_LISTS];
  __local uint li[TK_LOCAL_LISTS];
  uint lid = get_local_id(0);
  for (uint base = 0; base < m; base += WG_SIZE * TK_LOAD) {
    KEY_T vb[TK_LOAD];
    uint vi[TK_LOAD];
    UNROLL
    for (uint j = 0; j < TK_LOAD; j++) {
      uint o = base + j * WG_SIZE + lid;
      vb[j] = o < m ? bits[o] : ~(KEY_T)0;
      vi[j] = o < m ? pos[o] : TK_NONE;
    }
    UNROLL
    for (uint j = 0; j < TK_LOAD; j++)
      if (TK_LESS(vb[j], vi[j], kb[TK_K - 1], ki[TK_K - 1])) tk_insert(kb, ki, vb[j], vi[j]);
  }
  TK_GROUP_MERGE(kb, ki, lb, li);
  if (lid == 0) {
    key_flips f = key_flips_for(kind, desc);
    UNROLL_FULL
    for (uint j = 0; j < TK_K; j++) {
      if (j < k && keys_out) out_keys[j] = bits_to_key_flip(kb[j], f);
      if (j < k && positions && wide) pos64[j] = ki[j];
      if (j < k && positions && !wide) pos32[j] = ki[j];
    }
  }
}
