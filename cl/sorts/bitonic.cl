/* bitonic.cl: the bitonic sort for any n, and the segmented small sort
 * that the other sorts reuse.
 *
 * The network is the "flip" form of bitonic sort. Merging two sorted
 * halves of a block of 2^s elements first compares element i with its
 * mirror i ^ (2^s - 1), then runs half-cleaners i ^ 2^b for b = s-2 .. 0.
 * Every comparator puts the smaller key at the lower index. So positions
 * >= n behave as +inf keys that no comparator moves: they are never read
 * or written. Registers or local slots standing for them hold the largest
 * key (all bits set), which a strict comparison never swaps downwards, so
 * a real key equal to it keeps its value.
 *
 * Each step pairs i with i ^ mask. A work-item that holds one coset of the
 * masks of r consecutive steps can run all r steps in registers; it indexes
 * its registers by the element-index bits those masks touch, so each step
 * compares fixed register pairs, known at compile time. For a flip, the
 * upper half of the coset is the mirror of the lower half: the index bits
 * below the round are inverted there (and, for vectors, the lanes).
 *
 * Keys are compared as order-preserving bits (keys.cl), converted on every
 * load and back on every store, so no launch needs to know whether it is
 * the first or the last.
 *
 * Every launch past the first reads and writes all the data once, so the
 * launches per merge stage set the time (2^24 u32 keys move 128 MB per
 * launch). A stage of 2^s elements (s above the tile's log L) runs its
 * strides s-1 .. L+g as strided tile merges (bitonic_merge_strided: up to
 * L - c steps a launch through local memory, a tile holding 2^c
 * neighbouring cosets), or, where the host turns those off, as global
 * launches of BT_LOG_GLOBAL steps each in scalar registers (32 u32 keys
 * hold 5 steps; 16-byte vectors held only 3 in as many registers); then
 * its last g <= BT_WIDE global strides and all those below the tile in
 * one wide tile merge (bitonic_merge_wide), which holds 2^g tiles in
 * registers and runs each through local memory in turn (g = 0:
 * bitonic_merge_tiles, one tile). The tile merges load columns j * BT_WG
 * + t, so a work-item's elements differ in the tile's top BT_LOG_ITEMS
 * bits and those strides run in registers before local memory takes the
 * rest. At 2^24 u32 keys with tile 8192 that is 24 launches (30 with the
 * register launches, 38 before them). Loads and stores stay coalesced:
 * neighbouring work-items take neighbouring elements, or runs of at
 * least 32 bytes, in every launch.
 *
 * Needs common.cl and keys.cl before it, and
 *   HAS_VALUES, VALUE_T  a payload moved with each key (uint or ulong)
 *   BT_WG                work-items of the tile kernels
 *   BT_LOG_ITEMS         log2 of elements per work-item in the tile kernels
 *   BT_LOG_GLOBAL        log2 of register slots per work-item of a global
 *                        launch, i.e. how many global steps one launch
 *                        fuses (1 to 6; 0: no bitonic_global, where the
 *                        strided tile merges take every global step)
 *   BT_GLOBAL_LANES      elements per slot: 1 (default) or BT_V (16-byte
 *                        vectors)
 *   BT_GLOBAL_WG         work-items per group of the global launches
 *   BT_WIDE              0 to 3: the most global steps that the wide tile
 *                        merge takes (0: no such kernel; bitonic_merge_tiles
 *                        then takes the strides below the tile alone)
 *   BT_STABLE            1: the tile kernels break ties on the position in
 *                        the tile, so equal keys keep their order (the merge
 *                        sort's runs); no merge kernels
 *   BT_MERGE_KERNELS     1: the program of the merge launches
 *                        (bitonic_merge_tiles, bitonic_global,
 *                        bitonic_merge_wide, bitonic_merge_strided), which
 *                        alone need the
 *                        BT_*GLOBAL* and BT_WIDE macros; 0 (default): the
 *                        program of the tile kernels (bitonic_sort_tiles,
 *                        bitonic_sort_segments) that every comparison sort
 *                        uses, built without the merge launches' code
 */
#ifndef BT_MERGE_KERNELS
#define BT_MERGE_KERNELS 0
#endif
#if !defined(BT_WG) || !defined(BT_LOG_ITEMS)
#error "bitonic.cl needs BT_WG and BT_LOG_ITEMS"
#endif
#if BT_MERGE_KERNELS && (!defined(BT_LOG_GLOBAL) || !defined(BT_GLOBAL_WG))
#error "bitonic.cl's merge kernels need BT_LOG_GLOBAL and BT_GLOBAL_WG"
#endif
#if BT_LOG_ITEMS < 1 || BT_LOG_ITEMS > 4
#error "bitonic.cl handles 1 to 4 steps per tile round"
#endif
#if BT_MERGE_KERNELS && (BT_LOG_GLOBAL < 0 || BT_LOG_GLOBAL > 6)
#error "bitonic.cl handles 1 to 6 steps per global launch (0: no global launches)"
#endif
#if BT_MERGE_KERNELS && BT_STABLE
#error "bitonic.cl has no stable merge kernels"
#endif
#ifndef BT_WIDE
#define BT_WIDE 0
#endif
#if BT_WIDE < 0 || BT_WIDE > 3
#error "bitonic.cl handles 0 to 3 global steps in the wide tile merge"
#endif

#ifndef BT_STABLE
#define BT_STABLE 0
#endif
#define BT_ITEMS (1u << BT_LOG_ITEMS)
/* GPUs need the register arrays' loops unrolled (indices must be
 * constants); on CPUs unrolling only multiplies PoCL's compile time, which
 * every CI run pays for each variant. */
#if IS_CPU
#define BT_UNROLL
#else
#define BT_UNROLL UNROLL_FULL
#endif
#define BT_TILE (BT_WG * BT_ITEMS)
#define KEY_MAX ((KEY_T)(~(KEY_T)0))

/* 16-byte vectors for global memory: whole vectors move at full speed. */
#if KEY_BITS == 32
#define BT_V 4
#else
#define BT_V 2
#endif
#ifndef BT_GLOBAL_LANES
#define BT_GLOBAL_LANES 1
#endif
#if BT_GLOBAL_LANES != 1 && BT_GLOBAL_LANES != BT_V
#error "BT_GLOBAL_LANES is 1 or a 16-byte vector's lanes"
#endif
#define BT_GL BT_GLOBAL_LANES
#define KEY_V CAT(KEY_T, BT_V)
#define VALUE_V CAT(VALUE_T, BT_V)
/* Between a vector and a register array of its lanes:
 * BT_LANES(vector, 0, array) and BT_VECTOR(0, array). */
#define BT_LANES CAT(vstore, BT_V)
#define BT_VECTOR CAT(vload, BT_V)

#define TILE_KERNEL __kernel __attribute__((reqd_work_group_size(BT_WG, 1, 1)))
#define GLOBAL_KERNEL __kernel __attribute__((reqd_work_group_size(BT_GLOBAL_WG, 1, 1)))
/* A barrier of the tile kernels' groups (none for one work-item: see
 * WG_BARRIER in common.cl). */
#if BT_WG > 1
#define BT_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#else
#define BT_BARRIER() ((void)0)
#endif

/* ------------------------------------------------------ compare-exchange */
/* Smaller key to K[a], larger to K[b]; ties stay. In stable programs the
 * positions I break ties, so no two elements compare equal. */
#if BT_STABLE
#define CMPX_SWAP(K, I, a, b) (K[b] < K[a] || (K[b] == K[a] && I[b] < I[a]))
#define MOVE_I(I, a, b, sw) MOVE(uint, I, a, b, sw)
#else
#define CMPX_SWAP(K, I, a, b) (K[b] < K[a])
#define MOVE_I(I, a, b, sw)
#endif
#if HAS_VALUES
#define MOVE_V(V, a, b, sw) MOVE(VALUE_T, V, a, b, sw)
#else
#define MOVE_V(V, a, b, sw)
#endif
#define MOVE(T, A, a, b, sw)    \
  do {                          \
    T a_ = A[a], b_ = A[b];     \
    A[a] = (sw) ? b_ : a_;      \
    A[b] = (sw) ? a_ : b_;      \
  } while (0)
#if HAS_VALUES || BT_STABLE
#define CMPX(K, V, I, a, b)                 \
  do {                                      \
    bool sw_ = CMPX_SWAP(K, I, a, b);       \
    MOVE(KEY_T, K, a, b, sw_);              \
    MOVE_V(V, a, b, sw_);                   \
    MOVE_I(I, a, b, sw_);                   \
  } while (0)
#else
#define CMPX(K, V, I, a, b)       \
  do {                            \
    KEY_T ka_ = K[a], kb_ = K[b]; \
    K[a] = min(ka_, kb_);         \
    K[b] = max(ka_, kb_);         \
  } while (0)
#endif

/* The steps of one round on registers R[base + x * lanes + l], x < 2^r:
 * the first step pairs x with its mirror (flip) or with x + 2^(r-1), the
 * rest are half-cleaners over the lower bits. `lanes` elements per slot
 * take the same comparisons side by side (vectors in the global rounds). */
#define ROUND_STEPS(K, V, I, base, r, lanes, flip)                                  \
  do {                                                                           \
    const uint slots_ = 1u << (r), half_ = slots_ >> 1;                          \
    if (flip) {                                                                  \
      BT_UNROLL for (uint x_ = 0; x_ < half_; x_++)                            \
        BT_UNROLL for (uint l_ = 0; l_ < (lanes); l_++)                        \
          CMPX(K, V, I, (base) + x_ * (lanes) + l_,                                 \
               (base) + (slots_ - 1 - x_) * (lanes) + l_);                       \
    } else {                                                                     \
      BT_UNROLL for (uint x_ = 0; x_ < half_; x_++)                            \
        BT_UNROLL for (uint l_ = 0; l_ < (lanes); l_++)                        \
          CMPX(K, V, I, (base) + x_ * (lanes) + l_, (base) + (x_ + half_) * (lanes) + l_); \
    }                                                                            \
    BT_UNROLL for (uint p_ = half_ >> 1; p_ > 0; p_ >>= 1)                     \
      BT_UNROLL for (uint x_ = 0; x_ < slots_; x_++)                           \
        if (!(x_ & p_))                                                          \
          BT_UNROLL for (uint l_ = 0; l_ < (lanes); l_++)                      \
            CMPX(K, V, I, (base) + x_ * (lanes) + l_, (base) + (x_ | p_) * (lanes) + l_); \
  } while (0)

/* Registers K[0 .. count) from keys as they lie in memory to bits. */
#define REGS_TO_BITS(K, count, kind, desc) \
  BT_UNROLL for (uint i_ = 0; i_ < (count); i_++) K[i_] = key_to_bits(K[i_], kind, desc)

/* The coset representative of number c for a round at bits [lo, lo + r):
 * c with r zero bits inserted at lo. */
#define COSET_REP(c, lo, r, low) ((((c) >> (lo)) << ((lo) + (r))) | ((c) & (low)))

/* ------------------------------------------------------------ tile layer */
/* A tile lives in local memory as key bits (with values, and positions in
 * stable programs), padded with KEY_MAX up to its power-of-two sort size.
 * PAD spreads blocked runs of a work-item over all banks. */
typedef struct tile_mem {
  KEY_T k[PADDED(BT_TILE)];
#if HAS_VALUES
  VALUE_T v[PADDED(BT_TILE)];
#endif
#if BT_STABLE
  uint i[PADDED(BT_TILE)];
#endif
} tile_mem;

#if HAS_VALUES
#define IF_VALUES(x) x
#else
#define IF_VALUES(x)
#endif
#if BT_STABLE
#define IF_STABLE(x) x
#else
#define IF_STABLE(x)
#endif

/* Loads [begin, begin + len) of the global arrays into the tile and pads
 * it with KEY_MAX up to `size`. With make_index the values are the
 * elements' global positions (argsort). Whole aligned vectors load as
 * vectors. */
inline void tile_load(local tile_mem *m, const global KEY_T *keys, const global VALUE_T *vals,
                      ulong begin, uint len, uint size, int kind, int desc, int make_index) {
  const bool aligned = begin % BT_V == 0;
  for (uint i = get_local_id(0); i < size / BT_V; i += BT_WG) {
    uint at = i * BT_V;
    KEY_T kk[BT_V];
    VALUE_T vv[BT_V];
    if (aligned && at + BT_V <= len) {
      BT_LANES(((const global KEY_V *)keys)[(begin + at) / BT_V], 0, kk);
      IF_VALUES(if (!make_index) BT_LANES(((const global VALUE_V *)vals)[(begin + at) / BT_V], 0, vv));
    } else {
      BT_UNROLL for (uint l = 0; l < BT_V; l++) {
        kk[l] = at + l < len ? keys[begin + at + l] : 0;
        IF_VALUES(if (!make_index) vv[l] = at + l < len ? vals[begin + at + l] : 0);
      }
    }
    BT_UNROLL for (uint l = 0; l < BT_V; l++) {
      m->k[PAD(at + l)] = at + l < len ? key_to_bits(kk[l], kind, desc) : KEY_MAX;
      IF_VALUES(m->v[PAD(at + l)] = make_index ? (VALUE_T)(begin + at + l) : vv[l]);
      /* Padding sorts after equal real keys: the largest position. */
      IF_STABLE(m->i[PAD(at + l)] = at + l < len ? at + l : UINT_MAX);
    }
  }
}

/* Stores the first len elements of the tile to [begin, begin + len). */
inline void tile_store(local const tile_mem *m, global KEY_T *keys, global VALUE_T *vals,
                       ulong begin, uint len, int kind, int desc) {
  const bool aligned = begin % BT_V == 0;
  for (uint i = get_local_id(0); i < (len + BT_V - 1) / BT_V; i += BT_WG) {
    uint at = i * BT_V;
    KEY_T kk[BT_V];
    VALUE_T vv[BT_V];
    BT_UNROLL for (uint l = 0; l < BT_V; l++) {
      kk[l] = bits_to_key(m->k[PAD(at + l)], kind, desc);
      IF_VALUES(vv[l] = m->v[PAD(at + l)]);
    }
    if (aligned && at + BT_V <= len) {
      ((global KEY_V *)keys)[(begin + at) / BT_V] = BT_VECTOR(0, kk);
      IF_VALUES(((global VALUE_V *)vals)[(begin + at) / BT_V] = BT_VECTOR(0, vv));
    } else {
      BT_UNROLL for (uint l = 0; l < BT_V; l++) {
        if (at + l < len) {
          keys[begin + at + l] = kk[l];
          IF_VALUES(vals[begin + at + l] = vv[l]);
        }
      }
    }
  }
}

/* Register copies of tile elements: K keys, V values, I positions. */
#define TILE_REGS            \
  KEY_T K[BT_ITEMS];         \
  VALUE_T V[BT_ITEMS];       \
  uint I[BT_ITEMS]
#define REGS_FROM_TILE(j, a)          \
  do {                                \
    K[j] = m->k[a];                   \
    IF_VALUES(V[j] = m->v[a]);        \
    IF_STABLE(I[j] = m->i[a]);        \
  } while (0)
#define REGS_TO_TILE(j, a)            \
  do {                                \
    m->k[a] = K[j];                   \
    IF_VALUES(m->v[a] = V[j]);        \
    IF_STABLE(m->i[a] = I[j]);        \
  } while (0)

/* Sorts each work-item's blocked run of BT_ITEMS elements in registers:
 * all stages of blocks up to BT_ITEMS in one pass. The caller follows it
 * with a barrier. */
inline void tile_sort_runs(local tile_mem *m, uint size) {
  uint t = get_local_id(0);
  if (t < size >> BT_LOG_ITEMS) {
    TILE_REGS;
    uint base = t << BT_LOG_ITEMS;
    BT_UNROLL for (uint x = 0; x < BT_ITEMS; x++) REGS_FROM_TILE(x, PAD(base + x));
    BT_UNROLL for (uint s = 1; s <= BT_LOG_ITEMS; s++) {
      const uint block = 1u << s;
      /* The flip of every block of 2^s, then its half-cleaners. */
      BT_UNROLL for (uint x = 0; x < BT_ITEMS; x++)
        if (!(x & (block >> 1))) CMPX(K, V, I, x, x ^ (block - 1));
      BT_UNROLL for (uint p = block >> 2; p > 0; p >>= 1)
        BT_UNROLL for (uint x = 0; x < BT_ITEMS; x++)
          if (!(x & p)) CMPX(K, V, I, x, x | p);
    }
    BT_UNROLL for (uint x = 0; x < BT_ITEMS; x++) REGS_TO_TILE(x, PAD(base + x));
  }
}

/* One round of r steps over the tile's first `size` elements, at index
 * bits [lo, lo + r); the first step is a flip when `flip`. Each work-item
 * takes BT_ITEMS >> r cosets of 2^r elements. No barrier inside: every
 * barrier of the tile kernels stands at the kernel's top level (see
 * TILE_ROUNDS), which is where PoCL's work-group compiler can split it. */
#define TILE_ROUND_BODY(r)                                                               \
  {                                                                                     \
    const uint slots = 1u << (r), per = BT_ITEMS >> (r);                                \
    uint active = size >> BT_LOG_ITEMS, t = get_local_id(0);                            \
    if (t < active) {                                                                   \
      TILE_REGS;                                                                        \
      uint low = (1u << lo) - 1u, addr[BT_ITEMS];                                        \
      BT_UNROLL for (uint q = 0; q < per; q++) {                                      \
        uint rep = COSET_REP(t + q * active, lo, (r), low);                             \
        BT_UNROLL for (uint x = 0; x < slots; x++) {                                  \
          bool upper = flip && (x >> ((r) - 1));                                        \
          addr[q * slots + x] = PAD((upper ? rep ^ low : rep) | (x << lo));             \
          REGS_FROM_TILE(q * slots + x, addr[q * slots + x]);                           \
        }                                                                               \
      }                                                                                 \
      BT_UNROLL for (uint q = 0; q < per; q++)                                        \
        ROUND_STEPS(K, V, I, q * slots, (r), 1u, flip);                                 \
      BT_UNROLL for (uint j = 0; j < BT_ITEMS; j++) REGS_TO_TILE(j, addr[j]);         \
    }                                                                                   \
  }
#if IS_CPU
/* CPUs index these arrays at run time anyway (nothing is unrolled), so one
 * function serves every r. It also keeps PoCL 5 alive: its work-group
 * compiler crashes on a switch between the per-r copies inside the round
 * loop. */
inline void tile_round(local tile_mem *m, uint size, uint lo, uint r, int flip)
TILE_ROUND_BODY(r)
#else
/* GPUs keep registers in registers only when every index is a constant:
 * one copy per r, chosen by a switch. */
#define TILE_ROUND(r)                                                                    \
  inline void tile_round##r(local tile_mem *m, uint size, uint lo, int flip) TILE_ROUND_BODY(r)
TILE_ROUND(1)
#if BT_LOG_ITEMS >= 2
TILE_ROUND(2)
#endif
#if BT_LOG_ITEMS >= 3
TILE_ROUND(3)
#endif
#if BT_LOG_ITEMS >= 4
TILE_ROUND(4)
#endif

inline void tile_round(local tile_mem *m, uint size, uint lo, uint r, int flip) {
  switch (r) {
#if BT_LOG_ITEMS >= 4
    case 4: tile_round4(m, size, lo, flip); break;
#endif
#if BT_LOG_ITEMS >= 3
    case 3: tile_round3(m, size, lo, flip); break;
#endif
#if BT_LOG_ITEMS >= 2
    case 2: tile_round2(m, size, lo, flip); break;
#endif
    default: tile_round1(m, size, lo, flip); break;
  }
}
#endif

/* The rounds of the tile kernels, in order. Stage s (blocks of 2^s
 * elements) runs over index bits [0, s) in rounds of BT_LOG_ITEMS bits;
 * its first round takes the remainder so that the last one is the
 * conflict-free blocked layout. A stage's first round starts with the flip
 * when the stage merges sorted halves; without, the stage is the local
 * tail of a global merge. */
typedef struct tile_round_at {
  uint s, lo, r;
  int flip;
} tile_round_at;

inline tile_round_at stage_first_round(uint s, int flip) {
  tile_round_at at;
  at.s = s;
  at.r = s % BT_LOG_ITEMS == 0 ? BT_LOG_ITEMS : s % BT_LOG_ITEMS;
  at.lo = s - at.r;
  at.flip = flip;
  return at;
}

/* The round after `at`: the stage's next bits, or the next stage (which
 * merges sorted halves). */
inline tile_round_at next_round(tile_round_at at) {
  if (at.lo == 0) return stage_first_round(at.s + 1, 1);
  at.lo -= BT_LOG_ITEMS;
  at.r = BT_LOG_ITEMS;
  at.flip = 0;
  return at;
}

/* Runs every round from `first` up to the end of stage `last_s`, each
 * followed by a barrier. A macro, not a function: PoCL 5's work-group
 * compiler aborts on barriers inside called helpers and nested loops, so
 * the loop and its one barrier must sit in the kernel body itself. The
 * trip count depends only on the group's size and stage: uniform. */
#define TILE_ROUNDS(m, size, first, last_s)                           \
  for (tile_round_at at_ = (first); at_.s <= (last_s); at_ = next_round(at_)) { \
    tile_round((m), (size), at_.lo, at_.r, at_.flip);                  \
    BT_BARRIER();                                      \
  }

/* Sorts the tile's first `size` elements (a power of two >= BT_ITEMS),
 * after a barrier that makes them visible: the runs in registers, then the
 * stages of larger blocks. */
#define TILE_SORT(m, size)                                                        \
  tile_sort_runs((m), (size));                                                    \
  BT_BARRIER();                                                   \
  TILE_ROUNDS((m), (size), stage_first_round(BT_LOG_ITEMS + 1, 1), 31 - clz(size))

/* The power of two a tile of len elements sorts over: at least one run. */
inline uint sort_size(uint len) {
  uint p = len <= 1 ? 1u : 1u << (32 - clz(len - 1u));
  return max(p, BT_ITEMS);
}

/* ------------------------------------------------------------ tile kernels */
#if !BT_MERGE_KERNELS
/* Sorts every tile of BT_TILE elements from *_in into *_out (may be the
 * same buffers): all stages of blocks up to a tile, in one launch. */
TILE_KERNEL void bitonic_sort_tiles(const global KEY_T *keys_in, global KEY_T *keys_out,
                                    const global VALUE_T *vals_in, global VALUE_T *vals_out,
                                    ulong n, int kind, int desc, int make_index) {
  local tile_mem m;
  ulong begin = (ulong)get_group_id(0) * BT_TILE;
  uint len = (uint)min((ulong)BT_TILE, n - begin), size = sort_size(len);
  tile_load(&m, keys_in, vals_in, begin, len, size, kind, desc, make_index);
  BT_BARRIER();
  TILE_SORT(&m, size);
  tile_store(&m, keys_out, vals_out, begin, len, kind, desc);
}

/* The segmented small sort: group g sorts [segments[2g], segments[2g+1])
 * in place; every segment holds at most BT_TILE elements. Each sorts over
 * the power of two its length needs, so small segments cost less. */
TILE_KERNEL void bitonic_sort_segments(global KEY_T *keys, global VALUE_T *vals,
                                       const global ulong *segments, int kind, int desc) {
  local tile_mem m;
  size_t g = get_group_id(0);
  ulong begin = segments[2 * g], end = segments[2 * g + 1];
  /* Segments of 0 or 1 elements load and store nothing (no early return:
   * every work-item must reach the barriers below). */
  uint len = end > begin + 1 ? (uint)(end - begin) : 0u, size = sort_size(len);
  tile_load(&m, keys, vals, begin, len, size, kind, desc, 0);
  BT_BARRIER();
  TILE_SORT(&m, size);
  tile_store(&m, keys, vals, begin, len, kind, desc);
}
#endif /* !BT_MERGE_KERNELS */

#if BT_MERGE_KERNELS
/* The steps of a global merge stage whose stride is below the tile: each
 * tile is a bitonic half-cleaner input that no longer needs its
 * neighbours. Work-item t loads columns j * BT_WG + t (neighbouring
 * work-items at neighbouring elements), which differ in the tile's top
 * BT_LOG_ITEMS index bits only: those strides run in registers, the rest
 * in local memory, one round fewer than loading the tile to local memory
 * first. */
TILE_KERNEL void bitonic_merge_tiles(global KEY_T *keys, global VALUE_T *vals, ulong n, int kind,
                                     int desc) {
  local tile_mem m;
  ulong begin = (ulong)get_group_id(0) * BT_TILE;
  uint len = (uint)min((ulong)BT_TILE, n - begin), t = get_local_id(0);
  const uint lr = 31 - clz((uint)BT_WG);
  const KEY_T pad = bits_to_key(KEY_MAX, kind, desc);
  KEY_T K[BT_ITEMS];
  VALUE_T V[BT_ITEMS];
  /* Loads first, conversions after (see slot_load). */
  BT_UNROLL for (uint j = 0; j < BT_ITEMS; j++) {
    uint c = j * BT_WG + t;
    K[j] = c < len ? keys[begin + c] : pad;
    IF_VALUES(if (c < len) V[j] = vals[begin + c]);
  }
  REGS_TO_BITS(K, BT_ITEMS, kind, desc);
  ROUND_STEPS(K, V, K, 0u, BT_LOG_ITEMS, 1u, 0);
  BT_UNROLL for (uint j = 0; j < BT_ITEMS; j++) {
    m.k[PAD(j * BT_WG + t)] = K[j];
    IF_VALUES(m.v[PAD(j * BT_WG + t)] = V[j]);
  }
  BT_BARRIER();
  /* Bits [0, lr): none when one work-item holds the tile (the first round
   * is then past the last). */
  TILE_ROUNDS(&m, BT_TILE, stage_first_round(max(lr, 1u), 0), lr);
  tile_store(&m, keys, vals, begin, len, kind, desc);
}

/* ---------------------------------------------------------- global steps */
#if BT_LOG_GLOBAL > 0
/* One register slot of the global launches: BT_GL elements that take the
 * same comparisons side by side. Scalar slots (BT_GL = 1) spend every
 * register on an element whose index bits the fused steps touch, so 32
 * u32 keys hold 5 steps; 16-byte vectors (BT_GL = BT_V) spend them on
 * lanes no global step compares across (3 steps in 32 keys). Both stay
 * coalesced: neighbouring work-items take neighbouring slots at the
 * smallest fused stride, which is a tile or more. */
#if BT_GL == 1
/* Element vi into registers K[at] as it lies in memory, `pad` past n (the
 * key whose bits are KEY_MAX); the caller converts every slot to bits once
 * all loads are out (SLOTS_TO_BITS): a conversion next to its load would
 * wait for it before the next load issues. `rev` is unused. */
inline void slot_load(KEY_T *K, VALUE_T *V, uint at, const global KEY_T *keys,
                      const global VALUE_T *vals, ulong vi, ulong n, KEY_T pad) {
  K[at] = vi < n ? keys[vi] : pad;
  IF_VALUES(if (vi < n) V[at] = vals[vi]);
}
#define SLOT_LOAD(K, V, at, keys, vals, vi, n, rev, kind, desc, pad) \
  slot_load(K, V, at, keys, vals, vi, n, pad)
#define SLOTS_TO_BITS REGS_TO_BITS

inline void slot_store(const KEY_T *K, const VALUE_T *V, uint at, global KEY_T *keys,
                       global VALUE_T *vals, ulong vi, ulong n, bool rev, int kind, int desc) {
  (void)rev;
  if (vi < n) {
    keys[vi] = bits_to_key(K[at], kind, desc);
    IF_VALUES(vals[vi] = V[at]);
  }
}
#else
/* Vector vi of the global arrays into registers K[at .. at + BT_V), lanes
 * reversed when `rev`; lanes past n hold KEY_MAX. */
inline void slot_load(KEY_T *K, VALUE_T *V, uint at, const global KEY_T *keys,
                      const global VALUE_T *vals, ulong vi, ulong n, bool rev, int kind,
                      int desc) {
  ulong e = vi * BT_V;
  KEY_T kk[BT_V];
  VALUE_T vv[BT_V];
  if (e + BT_V <= n) {
    BT_LANES(((const global KEY_V *)keys)[vi], 0, kk);
    IF_VALUES(BT_LANES(((const global VALUE_V *)vals)[vi], 0, vv));
  } else {
    BT_UNROLL for (uint l = 0; l < BT_V; l++) {
      kk[l] = e + l < n ? keys[e + l] : 0;
#if HAS_VALUES
      vv[l] = e + l < n ? vals[e + l] : 0;
#endif
    }
  }
  /* Register indices must be compile-time constants, or the arrays leave
   * registers: `rev` picks between values, never between indices. */
  BT_UNROLL for (uint l = 0; l < BT_V; l++)
    kk[l] = e + l < n ? key_to_bits(kk[l], kind, desc) : KEY_MAX;
  BT_UNROLL for (uint l = 0; l < BT_V; l++) {
    K[at + l] = rev ? kk[BT_V - 1 - l] : kk[l];
#if HAS_VALUES
    V[at + l] = rev ? vv[BT_V - 1 - l] : vv[l];
#endif
  }
}

#define SLOT_LOAD(K, V, at, keys, vals, vi, n, rev, kind, desc, pad) \
  slot_load(K, V, at, keys, vals, vi, n, rev, kind, desc)
#define SLOTS_TO_BITS(K, count, kind, desc)

inline void slot_store(const KEY_T *K, const VALUE_T *V, uint at, global KEY_T *keys,
                       global VALUE_T *vals, ulong vi, ulong n, bool rev, int kind, int desc) {
  ulong e = vi * BT_V;
  KEY_T kk[BT_V];
  VALUE_T vv[BT_V];
  BT_UNROLL for (uint l = 0; l < BT_V; l++) {
    kk[l] = bits_to_key(rev ? K[at + BT_V - 1 - l] : K[at + l], kind, desc);
#if HAS_VALUES
    vv[l] = rev ? V[at + BT_V - 1 - l] : V[at + l];
#endif
  }
  if (e + BT_V <= n) {
    ((global KEY_V *)keys)[vi] = BT_VECTOR(0, kk);
    IF_VALUES(((global VALUE_V *)vals)[vi] = BT_VECTOR(0, vv));
  } else {
    BT_UNROLL for (uint l = 0; l < BT_V; l++) {
      if (e + l < n) {
        keys[e + l] = kk[l];
#if HAS_VALUES
        vals[e + l] = vv[l];
#endif
      }
    }
  }
}
#endif

/* r fused global steps at slot-index bits [lo, lo + r) (element strides
 * of a tile and more); the first is the flip of blocks of 2^(lo+r) slots
 * when `flip`. Work-item w takes cosets w, w + threads, ... (2^(LOG-r) of
 * them), so neighbouring work-items touch neighbouring slots. `cosets`
 * counts those that hold any element below n. */
#define GLOBAL_ROUND_BODY(r)                                                              \
  {                                                                                       \
    const uint slots = 1u << (r), per = 1u << (BT_LOG_GLOBAL - (r));                      \
    KEY_T K[BT_GL << BT_LOG_GLOBAL];                                                      \
    VALUE_T V[BT_GL << BT_LOG_GLOBAL];                                                    \
    ulong low = ((ulong)1 << lo) - 1u, w = get_global_id(0);                              \
    const KEY_T pad = bits_to_key(KEY_MAX, kind, desc);                                   \
    /* Every coset's loads first, then the steps, then the stores: a load   \
     * after a store waits for it, so one coset at a time would wait out    \
     * the memory latency per - 1 more times. */                            \
    BT_UNROLL for (uint q = 0; q < per; q++) {                                          \
      ulong c = w + q * threads;                                                          \
      if (c < cosets) {                                                                   \
        ulong rep = COSET_REP(c, lo, (r), low);                                           \
        BT_UNROLL for (uint x = 0; x < slots; x++) {                                    \
          bool upper = flip && (x >> ((r) - 1));                                          \
          SLOT_LOAD(K, V, (q * slots + x) * BT_GL, keys, vals,                            \
                    (upper ? rep ^ low : rep) | ((ulong)x << lo), n, upper, kind, desc, pad); \
        }                                                                                 \
      }                                                                                   \
    }                                                                                     \
    SLOTS_TO_BITS(K, BT_GL << BT_LOG_GLOBAL, kind, desc);                                 \
    BT_UNROLL for (uint q = 0; q < per; q++) ROUND_STEPS(K, V, K, q * slots * BT_GL, (r), BT_GL, flip); \
    BT_UNROLL for (uint q = 0; q < per; q++) {                                          \
      ulong c = w + q * threads;                                                          \
      if (c < cosets) {                                                                   \
        ulong rep = COSET_REP(c, lo, (r), low);                                           \
        BT_UNROLL for (uint x = 0; x < slots; x++) {                                    \
          bool upper = flip && (x >> ((r) - 1));                                          \
          slot_store(K, V, (q * slots + x) * BT_GL, keys, vals,                           \
                     (upper ? rep ^ low : rep) | ((ulong)x << lo), n, upper, kind, desc); \
        }                                                                                 \
      }                                                                                   \
    }                                                                                     \
  }
#define GLOBAL_ROUND_ARGS                                                          \
  global KEY_T *keys, global VALUE_T *vals, ulong n, uint lo, int flip, ulong cosets,  \
      ulong threads, int kind, int desc
#if IS_CPU
/* CPUs index registers at run time anyway: one copy for every r (as
 * tile_round), which PoCL builds in a fraction of the time. */
inline void global_round(GLOBAL_ROUND_ARGS, uint r) GLOBAL_ROUND_BODY(r)
#else
/* GPUs keep registers in registers only when every index is a constant:
 * one copy per r, chosen by a switch. */
#define GLOBAL_ROUND(r) inline void global_round##r(GLOBAL_ROUND_ARGS) GLOBAL_ROUND_BODY(r)
GLOBAL_ROUND(1)
#if BT_LOG_GLOBAL >= 2
GLOBAL_ROUND(2)
#endif
#if BT_LOG_GLOBAL >= 3
GLOBAL_ROUND(3)
#endif
#if BT_LOG_GLOBAL >= 4
GLOBAL_ROUND(4)
#endif
#if BT_LOG_GLOBAL >= 5
GLOBAL_ROUND(5)
#endif
#if BT_LOG_GLOBAL >= 6
GLOBAL_ROUND(6)
#endif
#endif

/* The case of the switch below for r steps. */
#define GLOBAL_CASE(r)                                                          \
  case r:                                                                       \
    global_round##r(keys, vals, n, lo, flip, cosets, threads, kind, desc);      \
    break;

GLOBAL_KERNEL void bitonic_global(global KEY_T *keys, global VALUE_T *vals, ulong n, uint lo,
                                  uint r, int flip, ulong cosets, ulong threads, int kind,
                                  int desc) {
  if (get_global_id(0) >= threads) return;
#if IS_CPU
  global_round(keys, vals, n, lo, flip, cosets, threads, kind, desc, r);
#else
  switch (r) {
#if BT_LOG_GLOBAL >= 6
    GLOBAL_CASE(6)
#endif
#if BT_LOG_GLOBAL >= 5
    GLOBAL_CASE(5)
#endif
#if BT_LOG_GLOBAL >= 4
    GLOBAL_CASE(4)
#endif
#if BT_LOG_GLOBAL >= 3
    GLOBAL_CASE(3)
#endif
#if BT_LOG_GLOBAL >= 2
    GLOBAL_CASE(2)
#endif
    default: global_round1(keys, vals, n, lo, flip, cosets, threads, kind, desc); break;
  }
#endif
}

#endif /* BT_LOG_GLOBAL > 0 */

/* ------------------------------------------------- strided tile merge */
/* r global steps (element bits [lo, lo + r), lo at least the tile's log
 * lt) through local memory, up to lt - c of them in one launch where the
 * register slots of bitonic_global hold BT_LOG_GLOBAL: a tile of BT_TILE
 * elements is 2^r elements (bits [lo, lo + r), local bits [c, lt)) of
 * each of 2^c consecutive cosets (the low bits [0, c), local bits [0,
 * c)), c = lt - r. So every load and store moves runs of 2^c consecutive
 * elements (the host keeps c at least a 32-byte sector's worth) and a
 * merge stage needs about half the launches. Group g takes the cosets
 * whose bits [c, lo) are g's low lo - c bits, in the block of 2^(lo + r)
 * elements that g's other bits number.
 *
 * The flip pairs element e with e ^ (2^(lo+r) - 1): in the block's upper
 * half the bits [c, lo) are inverted when loaded and stored, so in local
 * memory the flip pairs slot l with l ^ (BT_TILE - 1), the mirror that
 * tile_round's flip already takes. Work-item t holds slots j * BT_WG + t,
 * which differ in the top BT_LOG_ITEMS local bits: the first min(r,
 * BT_LOG_ITEMS) steps run in registers straight from the loads (in the
 * upper half of a flip a work-item takes the mirrored column and lanes,
 * as bitonic_merge_wide does), the rest in local rounds, one barrier each
 * at the kernel's top level with a trip count that only r sets. */
/* Slot l of the tile holds element dep(l) of its cosets: the slot's bits
 * [0, c) stay, bits [c, lt) move to [lo, lo + r). dep distributes over
 * disjoint bits, so a work-item's element of register j is its column's
 * element (a base per half) plus dep of the register's row, a multiple of
 * 2^(lo + log2 BT_WG - c) wherever c <= log2 BT_WG (r >= BT_LOG_ITEMS):
 * the addresses are then a base and constant multiples of one stride,
 * which keeps them out of registers. */
inline ulong strided_dep(uint l, uint c, uint lo) {
  return ((ulong)(l >> c) << lo) | (l & ((1u << c) - 1u));
}

/* Register j's row: j, or in the upper half of a flip the mirrored lane's
 * row (the column is mirrored too: see the kernel), so that register j
 * pairs with its mirror. */
#define STRIDED_ROW(j) (flip && ((j) >> (BT_LOG_ITEMS - 1u)) ? (j) ^ (lanes - 1u) : (j))
#define STRIDED_UPPER(j) (flip && ((j) >> (BT_LOG_ITEMS - 1u)))

/* The register round of bitonic_merge_strided: rr steps on slots of
 * lanes = BT_ITEMS >> rr registers each. */
#define STRIDED_REGS(rr) ROUND_STEPS(K, V, K, 0u, (rr), BT_ITEMS >> (rr), flip)

TILE_KERNEL void bitonic_merge_strided(global KEY_T *keys, global VALUE_T *vals, ulong n,
                                       uint lo, uint r, int flip, int kind, int desc) {
  local tile_mem m;
  const uint lw = 31 - clz((uint)BT_WG), lt = BT_LOG_ITEMS + lw, t = get_local_id(0), c = lt - r;
  const ulong g = get_group_id(0), hmask = ((ulong)1 << (lo - c)) - 1u;
  const ulong block = (g >> (lo - c)) << (lo + r);
  /* The group's cosets in the lower half, and in the upper half of a
   * flip (bits [c, lo) inverted there); column t's offset in a tile row,
   * and column BT_WG - 1 - t's (the upper half's in registers). */
  const ulong half_lo = block | ((g & hmask) << c), half_up = block | (((g & hmask) ^ hmask) << c);
  const ulong col = strided_dep(t, c, lo), col_mirror = strided_dep(BT_WG - 1u - t, c, lo);
  const bool rows_shift = c <= lw;
  const uint row_shift = lo + lw - c;
  const uint rr = min(r, (uint)BT_LOG_ITEMS), lanes = BT_ITEMS >> rr;
  const KEY_T pad = bits_to_key(KEY_MAX, kind, desc);
  /* The offset of tile row `row` (slots row * BT_WG ..). */
#define STRIDED_ROW_AT(row) \
  (rows_shift ? (ulong)(row) << row_shift : strided_dep((row) << lw, c, lo))
  KEY_T K[BT_ITEMS];
  VALUE_T V[BT_ITEMS];
  /* Loads first, conversions after (as in the global launches). */
  BT_UNROLL for (uint j = 0; j < BT_ITEMS; j++) {
    const ulong e = (STRIDED_UPPER(j) ? half_up + col_mirror : half_lo + col) +
                    STRIDED_ROW_AT(STRIDED_ROW(j));
    K[j] = e < n ? keys[e] : pad;
    IF_VALUES(if (e < n) V[j] = vals[e]);
  }
  REGS_TO_BITS(K, BT_ITEMS, kind, desc);
#if IS_CPU
  ROUND_STEPS(K, V, K, 0u, rr, lanes, flip);
#else
  switch (rr) {
#if BT_LOG_ITEMS >= 4
    case 4: STRIDED_REGS(4); break;
#endif
#if BT_LOG_ITEMS >= 3
    case 3: STRIDED_REGS(3); break;
#endif
#if BT_LOG_ITEMS >= 2
    case 2: STRIDED_REGS(2); break;
#endif
    default: STRIDED_REGS(1); break;
  }
#endif
  BT_UNROLL for (uint j = 0; j < BT_ITEMS; j++) {
    const uint l = (STRIDED_ROW(j) << lw) + (STRIDED_UPPER(j) ? BT_WG - 1u - t : t);
    m.k[PAD(l)] = K[j];
    IF_VALUES(m.v[PAD(l)] = V[j]);
  }
  BT_BARRIER();
  /* Local bits [c, lt - rr), top down, in rounds of BT_LOG_ITEMS bits and
   * a last one of the rest. */
  const uint rounds = (r - rr + BT_LOG_ITEMS - 1u) / BT_LOG_ITEMS;
  for (uint i = 0; i < rounds; i++) {
    const uint top = lt - rr - i * BT_LOG_ITEMS, bits = min((uint)BT_LOG_ITEMS, top - c);
    tile_round(&m, BT_TILE, top - bits, bits, 0);
    BT_BARRIER();
  }
  /* Slots j * BT_WG + t, column t in both halves. */
  BT_UNROLL for (uint j = 0; j < BT_ITEMS; j++) {
    const uint l = (j << lw) + t;
    const ulong e = (flip && (l >> (lt - 1u)) ? half_up : half_lo) + col + STRIDED_ROW_AT(j);
    if (e < n) {
      keys[e] = bits_to_key(m.k[PAD(l)], kind, desc);
      IF_VALUES(vals[e] = m.v[PAD(l)]);
    }
  }
#undef STRIDED_ROW_AT
}

#if BT_WIDE > 0
/* ------------------------------------------------------ wide tile merge */
/* The last g global steps of a merge stage (1 <= g <= BT_WIDE) and its
 * strides below the tile, in one launch: one read and one write of the
 * data where the global launch and bitonic_merge_tiles took two each.
 * Group b takes the 2^g tiles of block b of 2^(L+g) elements (L: log2 of
 * the tile). Its work-items hold column j * BT_WG + t of every tile in
 * registers (so neighbouring work-items load and store neighbouring
 * elements), run the g steps there (the first the flip of the block when
 * `flip`: the block is then a whole merge stage), then each tile in turn
 * goes to local memory for the strides below it, and back to global memory.
 * Register W[j * 2^BT_WIDE + x] holds column j of tile x; with the flip,
 * the upper tiles' columns are mirrored (as COSET_REP's cosets are). A
 * work-item's columns of a tile differ in the tile's top BT_LOG_ITEMS
 * index bits, so the strides there run in registers too, before the tile
 * goes to local memory: one round and one barrier fewer per tile. The loop
 * over the tiles and their rounds is one loop with one barrier at the
 * kernel's top level and a trip count that only g sets: uniform. */
TILE_KERNEL void bitonic_merge_wide(global KEY_T *keys, global VALUE_T *vals, ulong n, uint g,
                                    int flip, int kind, int desc) {
  local tile_mem m;
  const uint lt = BT_LOG_ITEMS + (31 - clz((uint)BT_WG));
  const uint t = get_local_id(0), tiles = 1u << g;
  const ulong block = (ulong)get_group_id(0) << (lt + g);
  KEY_T WK[BT_ITEMS << BT_WIDE];
  VALUE_T WV[BT_ITEMS << BT_WIDE];
  /* Column c = j * BT_WG + t lies at element straight + x * BT_TILE + j *
   * BT_WG; mirrored (c ^ (BT_TILE - 1)) at mirror + x * BT_TILE + (BT_ITEMS - 1 - j)
   * * BT_WG. Constant offsets from two bases, and counts of the elements
   * from each base below n, keep the 64 loads' addresses out of registers. */
  const ulong straight = block + t, mirror = block + (BT_WG - 1u - t);
  const ulong rest_s = straight < n ? n - straight : 0, rest_m = mirror < n ? n - mirror : 0;
  /* Loads first, conversions after (as in the global launches). */
  const KEY_T pad = bits_to_key(KEY_MAX, kind, desc);
#define WIDE_LOAD(j, x, mirrored)                                                     \
  do {                                                                                \
    uint off_ = (x) * BT_TILE + ((mirrored) ? BT_ITEMS - 1u - (j) : (j)) * BT_WG;     \
    ulong e_ = ((mirrored) ? mirror : straight) + off_;                              \
    uint w_ = ((j) << BT_WIDE) + (x);                                                 \
    bool in_ = (x) < tiles && off_ < ((mirrored) ? rest_m : rest_s);                 \
    WK[w_] = in_ ? keys[e_] : pad;                                                    \
    IF_VALUES(if (in_) WV[w_] = vals[e_]);                                            \
  } while (0)
  if (flip) {
    BT_UNROLL for (uint j = 0; j < BT_ITEMS; j++)
      BT_UNROLL for (uint x = 0; x < (1u << BT_WIDE); x++) WIDE_LOAD(j, x, x >> (g - 1u));
  } else {
    BT_UNROLL for (uint j = 0; j < BT_ITEMS; j++)
      BT_UNROLL for (uint x = 0; x < (1u << BT_WIDE); x++) WIDE_LOAD(j, x, false);
  }
#undef WIDE_LOAD
  REGS_TO_BITS(WK, BT_ITEMS << BT_WIDE, kind, desc);
#if IS_CPU
  /* CPUs index registers at run time anyway: one copy for every g (as
   * tile_round), which halves this kernel's build on PoCL. */
  for (uint j = 0; j < BT_ITEMS; j++) ROUND_STEPS(WK, WV, WK, j << BT_WIDE, g, 1u, flip);
#else
  switch (g) {
#if BT_WIDE >= 3
    case 3:
      BT_UNROLL for (uint j = 0; j < BT_ITEMS; j++) ROUND_STEPS(WK, WV, WK, j << BT_WIDE, 3, 1u, flip);
      break;
#endif
#if BT_WIDE >= 2
    case 2:
      BT_UNROLL for (uint j = 0; j < BT_ITEMS; j++) ROUND_STEPS(WK, WV, WK, j << BT_WIDE, 2, 1u, flip);
      break;
#endif
    default:
      BT_UNROLL for (uint j = 0; j < BT_ITEMS; j++) ROUND_STEPS(WK, WV, WK, j << BT_WIDE, 1, 1u, flip);
      break;
  }
#endif
  /* The mirrored tiles' columns back in order of j (work-item t then
   * holds column j * BT_WG + BT_WG - 1 - t of them), then the strides
   * 2^(lt-1) .. 2^(lt-BT_LOG_ITEMS) of every tile at once: the tiles side
   * by side as lanes. */
  if (flip) {
    BT_UNROLL for (uint x = 0; x < (1u << BT_WIDE); x++) {
      bool mirrored = x >> (g - 1u);
      BT_UNROLL for (uint j = 0; j < BT_ITEMS / 2; j++) {
        uint a = (j << BT_WIDE) + x, b = ((BT_ITEMS - 1u - j) << BT_WIDE) + x;
        MOVE(KEY_T, WK, a, b, mirrored);
        IF_VALUES(MOVE(VALUE_T, WV, a, b, mirrored));
      }
    }
  }
  ROUND_STEPS(WK, WV, WK, 0u, BT_LOG_ITEMS, 1u << BT_WIDE, 0);
  /* Per tile: phase 0 writes it to local memory, phases 1 .. rounds run
   * the rounds of the strides below 2^(lt-BT_LOG_ITEMS) (as
   * bitonic_merge_tiles does; none when a work-item holds the whole tile),
   * the last stores it. */
  const uint lr = lt - BT_LOG_ITEMS, r0 = lr % BT_LOG_ITEMS ? lr % BT_LOG_ITEMS : BT_LOG_ITEMS;
  const uint rounds = lr ? (lr - r0) / BT_LOG_ITEMS + 1u : 0u, phases = rounds + 2u;
  for (uint it = 0; it < tiles * phases; it++) {
    uint x = it / phases, ph = it % phases;
    if (ph == 0) {
      BT_UNROLL for (uint xx = 0; xx < (1u << BT_WIDE); xx++) {
        if (xx == x) {
          bool upper = flip && (xx >> (g - 1u));
          BT_UNROLL for (uint j = 0; j < BT_ITEMS; j++) {
            uint a = PAD(j * BT_WG + (upper ? BT_WG - 1u - t : t));
            m.k[a] = WK[(j << BT_WIDE) + xx];
            IF_VALUES(m.v[a] = WV[(j << BT_WIDE) + xx]);
          }
        }
      }
    } else if (ph <= rounds) {
      uint i = ph - 1u;
      tile_round(&m, BT_TILE, lr - r0 - i * BT_LOG_ITEMS, i ? BT_LOG_ITEMS : r0, 0);
    } else {
      ulong begin = block + ((ulong)x << lt);
      uint len = begin < n ? (uint)min((ulong)BT_TILE, n - begin) : 0u;
      tile_store(&m, keys, vals, begin, len, kind, desc);
    }
    BT_BARRIER();
  }
}
#endif /* BT_WIDE > 0 */
#endif /* BT_MERGE_KERNELS */
