/* merge.cl: one merge pass of the merge sort. Sorted runs of `run` keys
 * (the last one may be short) are merged in pairs into runs of 2 * run,
 * stably: on equal keys the left run's key comes first. The same kernel
 * merges two separate sorted arrays for clsort_merge: one pair whose left
 * run is the whole of A and whose right run is the whole of B, each in its
 * own buffer.
 *
 * Merge path: output position d of a pair is a diagonal of the merge
 * grid, and its co-rank is how many of the first d outputs come from the
 * left run A (the rest come from the right run B). Each work-group owns
 * one tile of MG_TILE consecutive outputs, so every group does the same
 * work whatever the data. merge_partition first finds the co-rank of every
 * tile's first diagonal (a group of up to 32 probes per tile, in a launch
 * of its own as CUB's merge sort does, so that no group of the merge waits
 * on a chain of dependent global loads with its local memory held); each
 * group of merge_pass then loads the A and B keys between its two co-ranks
 * into local memory (GPUs: MG_ITEMS striped keys per work-item, every load
 * in flight at once; one work-item: 16-byte vectors where aligned), and
 * each work-item finds its own MG_ITEMS outputs in local memory and merges
 * them serially. Every key is read once and written once per pass;
 * values do not pass through local memory: each output reads its value
 * from the position its key came from. Where merge_partition_search finds
 * the co-ranks (many tiles), each pass but the last also writes one key of
 * every MG_SAMPLE outputs, where the next pass's searches look first.
 *
 * With MG_SEGMENTED the same two kernels serve the segmented sort's long
 * segments (src/sorts/segment_merge.c): each segment has its own runs,
 * counted from its first key, and its own groups; only where a group's
 * pair lies differs (segment_pair below), and the stores are scalar,
 * since a segment may start anywhere.
 *
 * Needs common.cl and keys.cl before it, and
 *   HAS_VALUES, VALUE_T  a payload moved with each key (uint or ulong)
 *   MG_WG                work-items per group
 *   MG_ITEMS             outputs per work-item; MG_TILE = MG_WG * MG_ITEMS
 *                        must be a power of two that divides 2 * run
 *   MG_SEGMENTED         (optional) 1: the segmented sort's variant
 * `run` (a kernel argument) must be a power of two.
 */
#if !defined(MG_WG) || !defined(MG_ITEMS) || !defined(HAS_VALUES) || !defined(VALUE_T)
#error "merge.cl needs MG_WG, MG_ITEMS, HAS_VALUES and VALUE_T"
#endif
#ifndef MG_SEGMENTED
#define MG_SEGMENTED 0
#endif
/* MG_REGS (GPUs): each work-item keeps its merged keys in registers and
 * writes them back over the tile's input keys, swizzled (MG_SWZ), so
 * that the stores read them without the source positions; the positions
 * are kept only to gather values. Without it, the keys are gathered
 * through the positions, a random read of local memory per key. */
#if !defined(MG_REGS) || MG_WG == 1
#undef MG_REGS
#define MG_REGS 0
#endif
/* A slot of `in` for output t when MG_REGS: consecutive slots in one
 * 128-byte row of banks permuted by the row's number, so that both the
 * blocked writes (MG_ITEMS apart) and the striped reads hit distinct
 * banks. */
#define MG_ROW (128 / (KEY_BITS / 8))
#define MG_SWZ(t) ((t) ^ (((t) / MG_ROW) & (MG_ROW - 1)))
/* The source positions, which MG_REGS needs only for values, and the
 * merged keys in registers, which only MG_REGS keeps. */
#if !MG_REGS || HAS_VALUES
#define MG_SRC(...) __VA_ARGS__
#else
#define MG_SRC(...)
#endif
#if MG_REGS
#define MG_KEEP(...) __VA_ARGS__
#define MG_MERGE_UNROLL UNROLL_FULL
#else
#define MG_KEEP(...)
#define MG_MERGE_UNROLL UNROLL
#endif

#define MG_TILE (MG_WG * MG_ITEMS)
/* The co-rank samples (GPU shape, the sort's passes): one key of every
 * block of MG_SAMPLE outputs, written by a pass for the next pass's
 * searches (merge_partition_search). */
#define MG_SAMPLE 32
/* Whether keys differ from their order bits. Unsigned ascending keys do
 * not: the GPU shape converts a work-item's keys in a loop of its own
 * under this uniform test, so that they skip the conversion's selects
 * (the 4-byte pass is bound by its work per key, not by memory). */
#define MG_CONVERTS (kind != 0 || desc)
/* The serial merge's next key at `in` slot t, which lies past its run
 * when t reaches `end`. GPUs read it unguarded (a select less per key):
 * the merge never takes such a key, and a work-item takes at most
 * MG_ITEMS keys past the tile, so MG_OVER slots past the tile keep every
 * read in the array. The CPU shape's long runs guard instead. */
#if MG_WG > 1
#define MG_OVER (MG_ITEMS + 1)
#define MG_NEXT(t, end) in[t]
#else
#define MG_OVER 0
#define MG_NEXT(t, end) ((t) < (end) ? in[t] : 0)
#endif
/* A barrier of the merge groups (none for one work-item, the CPU shape:
 * see WG_BARRIER in common.cl). */
#if MG_WG > 1
#define MG_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#else
#define MG_BARRIER() ((void)0)
#endif
#if KEY_BITS == 32
#define MG_V 4
#else
#define MG_V 2
#endif
#if MG_TILE % MG_V != 0 || (MG_TILE & (MG_TILE - 1)) != 0
#error "merge.cl needs MG_TILE to be a power of two of whole 16-byte vectors"
#endif
#if HAS_VALUES
#define IF_MG_VALUES(...) __VA_ARGS__
#else
#define IF_MG_VALUES(...)
#endif
#define MG_KEY_V CAT(KEY_T, MG_V)
#define MG_VALUE_V CAT(VALUE_T, MG_V)
#define MG_VLOAD CAT(vload, MG_V)
#define MG_VSTORE CAT(vstore, MG_V)

/* dst[i] = key bits of src[first + i] for i < count, by the whole group:
 * a scalar head up to a 16-byte boundary, whole vectors, a scalar tail.
 * Every work-item runs the same trips: PoCL mishandles loops whose trip
 * count differs between work-items when they hold loops of their own. */
inline void load_bits(local KEY_T *dst, const global KEY_T *src, ulong first, uint count,
                      int kind, int desc) {
  const uint lid = get_local_id(0);
  const uint head = (uint)min((ulong)count, (MG_V - first % MG_V) % MG_V);
  const uint vecs = (count - head) / MG_V, tail = head + vecs * MG_V;
  for (uint i0 = 0; i0 < head; i0 += MG_WG)
    if (i0 + lid < head) dst[i0 + lid] = key_to_bits(src[first + i0 + lid], kind, desc);
  const global MG_KEY_V *sv = (const global MG_KEY_V *)(src + first + head);
  for (uint v0 = 0; v0 < vecs; v0 += MG_WG) {
    const uint v = v0 + lid;
    if (v < vecs) {
      KEY_T k[MG_V];
      MG_VSTORE(sv[v], 0, k);
      UNROLL_FULL for (uint l = 0; l < MG_V; l++)
        dst[head + v * MG_V + l] = key_to_bits(k[l], kind, desc);
    }
  }
  for (uint i = tail; i < count; i += MG_WG)
    if (i + lid < count) dst[i + lid] = key_to_bits(src[first + i + lid], kind, desc);
}

/* Whether A[i] precedes B[d - 1 - i] in the stable merge: then the co-rank
 * of diagonal d is above i. */
inline bool before_diagonal(const global KEY_T *keys_a, const global KEY_T *keys_b, ulong a,
                            ulong b, ulong i, ulong d, int kind, int desc) {
  return key_to_bits(keys_a[a + i], kind, desc) <= key_to_bits(keys_b[b + d - 1 - i], kind, desc);
}

/* Where group g's outputs lie: in the pair of runs A = keys_in[a, a + na)
 * and B = keys_b[b, b + nb), from diagonal d0 of the pair on, written
 * from keys_out[out] on. */
typedef struct mg_pair {
  ulong a, b, na, nb, d0, out;
} mg_pair;

/* The sort's pairs (see merge_pass): one every 2 * run outputs. */
inline mg_pair sort_pair(ulong g, ulong n, ulong run, ulong left, ulong b_first, int b_apart) {
  mg_pair q;
  q.out = g * MG_TILE;
  const ulong pair = q.out & ~(2 * run - 1); /* runs: powers of 2 */
  q.na = min(left, n - pair);
  q.nb = min(run, n - pair - q.na);
  q.a = pair;
  q.b = b_apart ? b_first : pair + q.na;
  q.d0 = q.out - pair;
  return q;
}

/* The segmented sort's pairs. segs holds 4 ulongs per long segment: its
 * first key, its length, its first group, and the pass it starts at
 * (runs of `tile` keys then, doubled at each pass after); one more entry
 * whose third word is the number of groups. This pass (number `pass`)
 * merges the first `count` segments. A segment's runs count from its
 * first key; one of at most `run` keys is a pair with an empty B, copied,
 * so that every pass writes every segment it merges. */
inline mg_pair segment_pair(ulong g, const global ulong *segs, uint count, uint pass, ulong tile) {
  uint lo = 0, hi = count; /* segs[4 * lo + 2] <= g < segs[4 * hi + 2] */
  while (hi - lo > 1) {
    const uint mid = (lo + hi) / 2;
    if (segs[4 * mid + 2] <= g)
      lo = mid;
    else
      hi = mid;
  }
  const ulong base = segs[4 * lo], len = segs[4 * lo + 1];
  const ulong run = tile << (pass - (uint)segs[4 * lo + 3]);
  const ulong o = (g - segs[4 * lo + 2]) * MG_TILE, pair = o & ~(2 * run - 1);
  mg_pair q;
  q.na = min(run, len - pair);
  q.nb = min(run, len - pair - q.na);
  q.a = base + pair;
  q.b = q.a + q.na;
  q.d0 = o - pair;
  q.out = base + o;
  return q;
}

/* The kernels' arguments that say where the pairs are, and the pair of
 * group g. */
#if MG_SEGMENTED
#define MG_WHERE_ARGS const global ulong *segs, uint count, uint pass, ulong tile
#define MG_PAIR_OF(g) segment_pair(g, segs, count, pass, tile)
#else
#define MG_WHERE_ARGS ulong n, ulong run, ulong left, ulong b_first, int b_apart
#define MG_PAIR_OF(g) sort_pair(g, n, run, left, b_first, b_apart)
#endif

/* Group sizes of the two co-rank kernels: merge_partition's probes of
 * one tile, and merge_partition_search's tiles. */
#define MP_WG (MG_WG < 32 ? MG_WG : 32)
#define MS_WG (MG_WG < 64 ? MG_WG : 64)
#if MP_WG > 1
#define MP_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#else
#define MP_BARRIER() ((void)0)
#endif

/* partitions[g] = the co-rank of the first output of merge_pass's group g:
 * how many of the pair's first d0 outputs come from A. Group g (MP_WG
 * work-items) searches for it: [lo, hi] brackets it; every round each
 * work-item tests one of MP_WG evenly spaced points, and the pair of
 * neighbouring votes that differ narrows the bracket by a factor of
 * MP_WG + 1 (a binary search for one work-item), so that a run of 2^23
 * keys takes 5 rounds of dependent global loads, not 23. The host passes
 * `rounds`, enough for the longest bracket: a loop of the same trip count
 * for every work-item, with no exit in its body (PoCL 5's work-group
 * compiler aborts on the loop with a break that was here). `groups` is
 * merge_partition_search's. */
__kernel __attribute__((reqd_work_group_size(MP_WG, 1, 1))) void merge_partition(
    const global KEY_T *keys_in, const global KEY_T *keys_b, global ulong *partitions,
    MG_WHERE_ARGS, int kind, int desc, uint rounds, ulong groups) {
  local ulong bounds[2];
  local uchar votes[MP_WG];
  const uint lid = get_local_id(0);
  const ulong g = get_group_id(0);
  const mg_pair q = MG_PAIR_OF(g);
  const ulong a = q.a, b = q.b, d0 = q.d0;
  if (lid == 0) {
    bounds[0] = d0 > q.nb ? d0 - q.nb : 0;
    bounds[1] = min(d0, q.na);
  }
  MP_BARRIER();
  for (uint r = 0; r < rounds; r++) {
    const ulong lo = bounds[0], hi = bounds[1];
    const bool open = lo < hi;
    const ulong p = lo + (lid + 1) * (hi - lo) / (MP_WG + 1);
    const bool t = open && before_diagonal(keys_in, keys_b, a, b, p, d0, kind, desc);
    votes[lid] = t;
    MP_BARRIER();
    /* Flat ifs, none nested in another: PoCL 5's work-group compiler
     * crashes on nested ones between the barriers of a loop. */
    if (open && t && (lid == MP_WG - 1 || !votes[lid + 1])) bounds[0] = p + 1;
    if (open && !t && (lid == 0 || votes[lid - 1])) bounds[1] = p;
    MP_BARRIER();
  }
  if (lid == 0) partitions[g] = bounds[0];
}

/* The same co-ranks (g < groups) by a binary search of one work-item per
 * tile: no barrier, no local memory, two loads per step. Each probe above
 * reads a 32-byte sector of its own, and with many tiles those sectors
 * add up: on the H100 at 2^26 u32 keys the probes took 58 us a pass, the
 * searches 29 (CLSORT_PROFILE, serialised), while with few tiles the
 * searches' chains of dependent loads cost more than the probes. */
__kernel __attribute__((reqd_work_group_size(MS_WG, 1, 1))) void merge_partition_search(
    const global KEY_T *keys_in, const global KEY_T *keys_b, global ulong *partitions,
    MG_WHERE_ARGS, int kind, int desc, uint rounds, ulong groups, const global KEY_T *samples,
    int sampled) {
  const ulong g = get_global_id(0);
  if (g >= groups) return;
  const mg_pair q = MG_PAIR_OF(g);
  ulong lo = q.d0 > q.nb ? q.d0 - q.nb : 0, hi = min(q.d0, q.na);
#if !MG_SEGMENTED
  /* With the last pass's samples (the sort's runs and tiles start on whole
   * blocks): first the block. The test at i = MG_SAMPLE * m reads A's key
   * that opens a block and B's that closes one, which are the samples
   * there; a search of them (a small array, mostly in the L2 cache) finds
   * the first such i in [lo, hi) where the test fails, and the co-rank
   * lies within one block below it. Then the search of the keys, a few
   * steps within one block of each run: the searches are bound by their
   * scattered reads of DRAM (more probes a step made them slower). */
  if (sampled) {
    const ulong m0 = (lo + MG_SAMPLE - 1) / MG_SAMPLE, m1 = (hi + MG_SAMPLE - 1) / MG_SAMPLE;
    const global KEY_T *sa = samples + q.a / MG_SAMPLE;
    const global KEY_T *sb = samples + (q.b + q.d0) / MG_SAMPLE - 1;
    ulong ml = m0, mh = m1;
    while (ml < mh) {
      const ulong mid = (ml + mh) / 2;
      if (sa[mid] <= *(sb - mid))
        ml = mid + 1;
      else
        mh = mid;
    }
    const ulong nlo = ml > m0 ? MG_SAMPLE * (ml - 1) + 1 : lo, nhi = ml < m1 ? MG_SAMPLE * ml : hi;
    lo = nlo;
    hi = nhi;
  }
#endif
  while (lo < hi) {
    const ulong mid = (lo + hi) / 2;
    if (before_diagonal(keys_in, keys_b, q.a, q.b, mid, q.d0, kind, desc))
      lo = mid + 1;
    else
      hi = mid;
  }
  partitions[g] = lo;
}

/* Merges the pairs of sorted runs of keys_in into keys_out (and their
 * values from vals_in into vals_out); argsort's last pass passes
 * write_keys = 0 and writes values only. A pair starts every 2 * run
 * outputs; its left run holds min(left, what remains) keys (left <= run)
 * and its right run the rest, up to `run`. The right runs are read from
 * keys_b and vals_b: the same buffers as keys_in and vals_in in the sort,
 * where they follow their left runs; with b_apart (clsort_merge: one
 * pair, run >= n) the right run starts at b_first of keys_b and vals_b.
 * Group g writes outputs [g * MG_TILE, (g + 1) * MG_TILE) of n, between
 * the co-ranks that merge_partition left in partitions[g] and
 * partitions[g + 1] (or the end of the pair). With sample_run > 0 it also
 * writes the next pass's samples (below). Work-group: MG_WG. Local
 * memory: MG_TILE key bits and MG_TILE padded source positions. */
__kernel __attribute__((reqd_work_group_size(MG_WG, 1, 1))) void merge_pass(
    const global KEY_T *keys_in, const global KEY_T *keys_b, global KEY_T *keys_out,
    const global VALUE_T *vals_in, const global VALUE_T *vals_b, global VALUE_T *vals_out,
    const global ulong *partitions, MG_WHERE_ARGS, int kind, int desc, int write_keys,
    uint rounds, global KEY_T *samples, ulong sample_run) {
  local KEY_T in[MG_TILE + MG_OVER]; /* the tile's A keys, then its B keys */
#if !MG_REGS || HAS_VALUES
  local uint src[PADDED(MG_TILE)];   /* output slot -> position in `in` */
#endif
  const uint lid = get_local_id(0);
  const ulong g = get_group_id(0);
  const mg_pair q = MG_PAIR_OF(g);
  const ulong a = q.a, b = q.b, na = q.na, nb = q.nb, d0 = q.d0, out_begin = q.out;
  const ulong d1 = min(d0 + MG_TILE, na + nb);
  /* The co-ranks of d0 and d1: from merge_partition's launch, or with
   * `rounds` > 0 found here, half the group probing each bracket as
   * merge_partition does (few tiles: a launch of its own costs more than
   * the rounds; many: the group would hold its local memory through them
   * all). Brackets lo0, hi0, lo1, hi1. */
  local ulong br[4];
  local uchar votes[MG_WG];
  if (lid == 0) {
    br[0] = rounds ? (d0 > nb ? d0 - nb : 0) : partitions[g];
    br[1] = rounds ? min(d0, na) : br[0];
    br[2] = d1 == na + nb ? na : rounds ? (d1 > nb ? d1 - nb : 0) : partitions[g + 1];
    br[3] = d1 == na + nb ? na : rounds ? min(d1, na) : br[2];
  }
  MG_BARRIER();
#if MG_WG > 1
  {
    const uint probes = MG_WG / 2, side = lid >= probes, h = lid - side * probes;
    const ulong d = side ? d1 : d0;
    for (uint r = 0; r < rounds; r++) {
      const ulong lo = br[2 * side], hi = br[2 * side + 1];
      const bool open = lo < hi;
      const ulong p = lo + (h + 1) * (hi - lo) / (probes + 1);
      const bool t = open && before_diagonal(keys_in, keys_b, a, b, p, d, kind, desc);
      votes[lid] = t;
      MG_BARRIER();
      if (open && t && (h == probes - 1 || !votes[lid + 1])) br[2 * side] = p + 1;
      if (open && !t && (h == 0 || votes[lid - 1])) br[2 * side + 1] = p;
      MG_BARRIER();
    }
  }
#endif
  const ulong a0 = br[0], a1_found = br[2];
  /* Sorted runs give a1 - a0 in [0, d1 - d0]; clsort_merge's caller may
   * pass unsorted arrays, whose co-ranks need not be monotone: clamped,
   * every index stays in range (the order is then unspecified). */
  const ulong a1 = min(max(a1_found, a0), a0 + (d1 - d0));
  const ulong b0 = d0 - a0, b1 = d1 - a1;
  const uint nat = (uint)(a1 - a0), nbt = (uint)(b1 - b0), len = (uint)(d1 - d0);
#if MG_WG > 1
  /* GPUs: MG_ITEMS keys per work-item, striped (coalesced), A's then B's,
   * every load issued before the first store to local memory: a load
   * after a store cannot be moved above it, and a loop of load-then-store
   * waits out the memory latency once per trip. */
  {
    KEY_T r[MG_ITEMS];
    UNROLL_FULL for (uint j = 0; j < MG_ITEMS; j++) {
      const uint e = j * MG_WG + lid;
      const bool from_a = e < nat;
      const global KEY_T *p = from_a ? keys_in + (a + a0 + e) : keys_b + (b + b0 + (e - nat));
      r[j] = e < len ? *p : 0;
    }
    if (MG_CONVERTS)
      UNROLL_FULL for (uint j = 0; j < MG_ITEMS; j++) r[j] = key_to_bits(r[j], kind, desc);
    UNROLL_FULL for (uint j = 0; j < MG_ITEMS; j++) {
      const uint e = j * MG_WG + lid;
      if (e < len) in[e] = r[j];
    }
  }
#else
  load_bits(in, keys_in, a + a0, nat, kind, desc);
  load_bits(in + nat, keys_b, b + b0, nbt, kind, desc);
#endif
  MG_BARRIER();

  /* This work-item's outputs [dt, dt + MG_ITEMS) of the tile: its co-rank
   * in local memory, then a serial merge. Invariant: i A keys and j B keys
   * are taken; ka and kb are the next of each. */
  {
    const uint dt = min(lid * (uint)MG_ITEMS, len);
    uint lo = dt > nbt ? dt - nbt : 0, hi = min(dt, nat);
    while (lo < hi) {
      uint mid = (lo + hi) / 2;
      if (in[mid] <= in[nat + dt - 1 - mid])
        lo = mid + 1;
      else
        hi = mid;
    }
    uint i = lo, j = dt - lo;
    KEY_T ka = MG_NEXT(i, nat), kb = MG_NEXT(nat + j, len);
    MG_KEEP(KEY_T merged[MG_ITEMS];)
    /* Every trip runs (MG_NEXT keeps reads past a run harmless):
     * registers need the loop unrolled, and the CPU shape's 2048 outputs
     * need it not. */
    MG_MERGE_UNROLL for (uint k = 0; k < MG_ITEMS; k++) {
      bool take_a = j >= nbt || (i < nat && ka <= kb);
      MG_KEEP(merged[k] = take_a ? ka : kb;)
      MG_SRC(if (dt + k < len) src[PAD(dt + k)] = take_a ? i : nat + j;)
#if MG_WG > 1
      /* One load of the key that replaces the one taken, and selects (40
       * registers against 48 for a load in each branch on the H100). */
      i += take_a;
      j += !take_a;
      const KEY_T next = in[take_a ? i : nat + j];
      ka = take_a ? next : ka;
      kb = take_a ? kb : next;
#else
      if (take_a) {
        i++;
        ka = MG_NEXT(i, nat);
      } else {
        j++;
        kb = MG_NEXT(nat + j, len);
      }
#endif
    }
#if MG_REGS
    MG_BARRIER(); /* every work-item has read its inputs from `in` */
    UNROLL_FULL for (uint k = 0; k < MG_ITEMS; k++)
      if (dt + k < len) in[MG_SWZ(dt + k)] = merged[k];
#endif
  }
  MG_BARRIER();
/* The key bits of output t of the tile, and (values) the position in the
 * tile's inputs it came from. */
#if MG_REGS
#define MG_OUT_BITS(t, s) in[MG_SWZ(t)]
#else
#define MG_OUT_BITS(t, s) in[s]
#endif

  /* Striped stores: 16-byte vectors over whole vectors (the tile starts
   * on one), scalars for the tail; a segment's tile may start anywhere,
   * so there all are scalar. `stored`: the outputs the main loop writes. */
  const ulong a_at = a + a0, b_at = b + b0 - nat; /* global position of in[s] */
  const uint vecs = MG_SEGMENTED ? 0 : len / MG_V;
#if MG_WG > 1 && MG_SEGMENTED
  /* GPUs, segments: each work-item's MG_ITEMS striped outputs are gathered
   * first (the values from global memory, all loads in flight), then
   * stored, coalesced. */
  const uint stored = len;
  {
    KEY_T k[MG_ITEMS];
    IF_MG_VALUES(VALUE_T w[MG_ITEMS];)
    UNROLL_FULL for (uint j = 0; j < MG_ITEMS; j++) {
      const uint t = j * MG_WG + lid;
      MG_SRC(const uint s = t < len ? src[PAD(t)] : 0;)
      k[j] = MG_OUT_BITS(t < len ? t : 0, s);
      IF_MG_VALUES(w[j] = t >= len ? 0 : s < nat ? vals_in[a_at + s] : vals_b[b_at + s];)
    }
    if (MG_CONVERTS)
      UNROLL_FULL for (uint j = 0; j < MG_ITEMS; j++) k[j] = bits_to_key(k[j], kind, desc);
    UNROLL_FULL for (uint j = 0; j < MG_ITEMS; j++) {
      const uint t = j * MG_WG + lid;
      if (t < len) {
        if (write_keys) keys_out[out_begin + t] = k[j];
        IF_MG_VALUES(vals_out[out_begin + t] = w[j];)
      }
    }
  }
#elif MG_WG > 1
  const uint stored = vecs * MG_V;
  /* GPUs: each work-item's MG_ITEMS / MG_V vectors are gathered first
   * (the values from global memory, all loads in flight), then stored. */
  {
    KEY_T k[MG_ITEMS];
    IF_MG_VALUES(VALUE_T w[MG_ITEMS];)
    UNROLL_FULL for (uint j = 0; j < MG_ITEMS / MG_V; j++) {
      UNROLL_FULL for (uint l = 0; l < MG_V; l++) {
        const uint t = (j * MG_WG + lid) * MG_V + l;
        MG_SRC(const uint s = t < len ? src[PAD(t)] : 0;)
        k[j * MG_V + l] = MG_OUT_BITS(t < len ? t : 0, s);
        IF_MG_VALUES(w[j * MG_V + l] =
                         t >= len ? 0 : s < nat ? vals_in[a_at + s] : vals_b[b_at + s];)
      }
    }
    if (MG_CONVERTS)
      UNROLL_FULL for (uint j = 0; j < MG_ITEMS; j++) k[j] = bits_to_key(k[j], kind, desc);
    UNROLL_FULL for (uint j = 0; j < MG_ITEMS / MG_V; j++) {
      const uint v = j * MG_WG + lid;
      if (v < vecs) {
        if (write_keys)
          ((global MG_KEY_V *)keys_out)[out_begin / MG_V + v] = MG_VLOAD(j, k);
        IF_MG_VALUES(((global MG_VALUE_V *)vals_out)[out_begin / MG_V + v] = MG_VLOAD(j, w);)
      }
    }
  }
#else
  const uint stored = vecs * MG_V;
  for (uint v0 = 0; v0 < vecs; v0 += MG_WG) {
    const uint v = v0 + lid;
    if (v >= vecs) continue;
    uint s[MG_V];
    KEY_T k[MG_V];
    UNROLL_FULL for (uint l = 0; l < MG_V; l++) {
      s[l] = src[PAD(v * MG_V + l)];
      k[l] = bits_to_key(in[s[l]], kind, desc);
    }
    if (write_keys) ((global MG_KEY_V *)keys_out)[out_begin / MG_V + v] = MG_VLOAD(0, k);
#if HAS_VALUES
    VALUE_T w[MG_V];
    UNROLL_FULL for (uint l = 0; l < MG_V; l++)
      w[l] = s[l] < nat ? vals_in[a_at + s[l]] : vals_b[b_at + s[l]];
    ((global MG_VALUE_V *)vals_out)[out_begin / MG_V + v] = MG_VLOAD(0, w);
#endif
  }
#endif
  /* The tail (fewer than MG_V outputs, only in the last tile; all of a
   * segment's tile in the CPU shape). */
  for (uint t0 = stored; t0 < len; t0 += MG_WG) {
    const uint t = t0 + lid;
    if (t >= len) continue;
    MG_SRC(uint s = src[PAD(t)];)
    if (write_keys) keys_out[out_begin + t] = bits_to_key(MG_OUT_BITS(t, s), kind, desc);
#if HAS_VALUES
    vals_out[out_begin + t] = s < nat ? vals_in[a_at + s] : vals_b[b_at + s];
#endif
  }

#if MG_REGS && !MG_SEGMENTED
  /* The next pass's samples (sample_run: the length of the runs it merges
   * in pairs; 0: none): of every block of MG_SAMPLE outputs, the first
   * key's bits in a left run and the last's in a right run, as its
   * searches read them; a work-item a block, last, when nothing else is
   * live (H100: 40 registers, as without samples; written from the merge's
   * registers or between the merge and the stores, 46 and merge_pass 5%
   * slower). A right run's last block, if short, is never read. */
  if (sample_run && lid < MG_TILE / MG_SAMPLE) {
    const bool right = (out_begin & sample_run) != 0; /* runs: powers of 2 */
    const uint t = lid * MG_SAMPLE + (right ? MG_SAMPLE - 1 : 0);
    if (t < len) samples[(out_begin + t) / MG_SAMPLE] = in[MG_SWZ(t)];
  }
#endif
}
