/* sample.cl: one distribution level of the sample sort (Fine Sample Sort,
 * seed 004), batched over every large bucket of the level at once.
 *
 * Needs common.cl, wg_scan.cl@u32 and keys.cl before it, and
 *   KEY_T, KEY_BITS   the key's bits (keys.cl)
 *   HAS_VALUES        0 for keys only, 1 when values travel with the keys
 *   VALUE_T           uint or ulong (with HAS_VALUES)
 *   OFFSET_T          uint, or ulong when n may reach 2^32
 *   SS_K              the most buckets a parent may split into (a power of
 *                     two, 2..256); each parent uses k = 2^logk <= SS_K
 *   SS_ITEMS          keys per work-item of a scatter tile (a multiple of
 *                     the vector width; unused by one-work-item groups)
 *   SS_HIST_V         16-byte vectors per work-item per round of the
 *                     histogram (default 1)
 *   SS_MATCH          NVIDIA: 1 aggregates a warp's counts by match.any;
 *                     0 (default) only warps whose keys share one bucket
 *   SS_IDS            1: classify once (multi-work-item groups only): the
 *                     histogram stores every key's bucket in `ids`, the
 *                     scatter reads it back; 0 (default): the scatter
 *                     classifies the keys again
 *
 * A level's parents ("large buckets", each longer than the small sort's
 * tile) are described by records of P_WORDS ulongs in `aux` (see P_*).
 * Parent p owns the groups [first, first + chunks) of the histogram and
 * scatter launches; chunk c covers the positions [A + c*chunk, A +
 * (c+1)*chunk) clipped to [begin, end), where A is begin rounded down to a
 * 16-byte vector, so that every vector load is aligned.
 *
 * The buckets of a parent, from its k-1 sorted splitters s_0 <= ... <=
 * s_{k-2} (duplicates allowed), for j = #{i : s_i < key}:
 *   bucket 2j     keys strictly between s_{j-1} and s_j
 *   bucket 2j + 1 keys equal to s_j (an equality bucket: already sorted)
 * so NB = 2k - 1 buckets in key order. Equality buckets take every key
 * equal to a splitter; since the splitters are keys of the parent, every
 * other bucket is strictly smaller than its parent, and inputs with few
 * distinct keys finish in a level or two.
 *
 * One level:
 *   1. sample_gather: a random sample of k*s keys of each parent
 *   2. the segmented bitonic sort sorts each parent's sample
 *   3. sample_histogram: table[table + b*chunks + c] = keys of chunk c in
 *      bucket b (bucket-major per parent, parents one after another);
 *      with SS_IDS also ids[i] = the bucket of the key at position i of
 *      the source buffer, for every position i of a parent of the batch
 *   4. the shared scan, exclusive, over the whole table (phase 5), and
 *      sample_counts: each parent's bucket sizes to `counts` for the
 *      host, which plans the next level from them while step 5 runs
 *   5. sample_scatter: the keys (and values) of each chunk to their
 *      buckets.
 *
 * Classifying a key (logk dependent local reads) bounds both the
 * histogram and the scatter on GPUs, not their memory traffic; SS_IDS
 * pays 4 bytes of traffic per key (2 written, 2 read) to classify once.
 * An id is stored at its key's position: a vector of keys that lies
 * wholly inside a chunk has its ids stored and loaded as one vector of
 * ushorts; a vector at a parent's edge, which it may share with a
 * neighbouring parent of the batch, key by key and only for the parent's
 * own keys, so that the neighbour's ids are never overwritten.
 */
#if !defined(HAS_VALUES) || !defined(OFFSET_T) || !defined(SS_K) || !defined(SS_ITEMS)
#error "sample.cl needs HAS_VALUES, OFFSET_T, SS_K and SS_ITEMS"
#endif
#if HAS_VALUES && !defined(VALUE_T)
#error "sample.cl needs VALUE_T when HAS_VALUES is 1"
#endif
#if !HAS_VALUES
#define VALUE_T uint
#endif
#if SS_K < 2 || SS_K > 256 || (SS_K & (SS_K - 1)) != 0
#error "SS_K must be a power of two from 2 to 256"
#endif

#ifndef SS_HIST_V
#define SS_HIST_V 1
#endif
#ifndef SS_MATCH
#define SS_MATCH 0
#endif
#ifndef SS_IDS
#define SS_IDS 0
#endif
#if SS_IDS && WG_SIZE == 1
#error "SS_IDS is for multi-work-item groups: the serial scatter classifies once already"
#endif
#define NB_MAX (2 * SS_K - 1)
#define SS_TILE (WG_SIZE * SS_ITEMS)
#if SS_TILE > 65536
#error "a scatter tile's ranks must fit 16 bits"
#endif

/* 16-byte vectors of keys. */
#if KEY_BITS == 32
#define SS_V 4
#else
#define SS_V 2
#endif
#define KEY_V CAT(KEY_T, SS_V)
#define ID_V CAT(ushort, SS_V) /* the buckets of one vector of keys */
/* An ID_V from and to SS_V buckets (uint b[SS_V]), component by component:
 * no vload/vstore of ushort, which the NVPTX check's prelude lacks. */
#if SS_V == 4
#define ID_PACK(b) ((ID_V)((ushort)(b)[0], (ushort)(b)[1], (ushort)(b)[2], (ushort)(b)[3]))
#define ID_UNPACK(x, b) ((b)[0] = (x).s0, (b)[1] = (x).s1, (b)[2] = (x).s2, (b)[3] = (x).s3)
#else
#define ID_PACK(b) ((ID_V)((ushort)(b)[0], (ushort)(b)[1]))
#define ID_UNPACK(x, b) ((b)[0] = (x).s0, (b)[1] = (x).s1)
#endif

/* A parent record: P_WORDS ulongs. */
#define P_BEGIN 0  /* the parent's keys: [begin, end) of the source buffer */
#define P_END 1
#define P_SAMPLE 2 /* where its sample starts in the sample buffer */
#define P_SHAPE 3  /* oversampling s (low 32 bits) and log2 k (high 32 bits) */
#define P_FIRST 4  /* its first group in the histogram and scatter launches */
#define P_TABLE 5  /* its first entry in the count table */
#define P_PREFIX 6 /* the sizes of the batch's earlier parents, summed */
#define P_COUNTS 7 /* its first entry in `counts` */
#define P_WORDS 8

/* What a group knows about its parent. */
typedef struct parent_t {
  ulong begin, end, sample, first, table, prefix, counts, a, chunks;
  uint s, logk, k, nb;
} parent_t;

inline parent_t read_parent(const global ulong *rec, ulong chunk) {
  parent_t p;
  p.begin = rec[P_BEGIN];
  p.end = rec[P_END];
  p.sample = rec[P_SAMPLE];
  p.s = (uint)rec[P_SHAPE];
  p.logk = (uint)(rec[P_SHAPE] >> 32);
  p.first = rec[P_FIRST];
  p.table = rec[P_TABLE];
  p.prefix = rec[P_PREFIX];
  p.counts = rec[P_COUNTS];
  p.k = 1u << p.logk;
  p.nb = 2 * p.k - 1;
  p.a = p.begin / SS_V * SS_V;
  p.chunks = chunk ? (p.end - p.a + chunk - 1) / chunk : 0;
  return p;
}

/* The parent whose groups include group g: the last record with first <=
 * g. Every work-item runs the same search. */
inline parent_t find_parent(const global ulong *parents, uint count, ulong g, ulong chunk) {
  uint lo = 0, hi = count;
  while (hi - lo > 1) {
    uint mid = (lo + hi) / 2;
    if (parents[(ulong)mid * P_WORDS + P_FIRST] <= g)
      lo = mid;
    else
      hi = mid;
  }
  return read_parent(parents + (ulong)lo * P_WORDS, chunk);
}

/* A 64-bit mix (splitmix64's finaliser): sample positions from a counter. */
inline ulong mix64(ulong x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ul;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebul;
  return x ^ (x >> 31);
}

/* Step 1. Group p draws parent p's sample: k*s keys at random positions
 * (with replacement) of [begin, end), written raw to samples[sample ..).
 * Work-group: WG_SIZE. No local memory. */
KERNEL void sample_gather(const global KEY_T *keys, const global ulong *aux, ulong parents_off,
                          global KEY_T *samples, ulong seed) {
  parent_t p = read_parent(aux + parents_off + (ulong)get_group_id(0) * P_WORDS, 0);
  ulong size = p.end - p.begin, count = (ulong)p.k * p.s;
  ulong stream = mix64(seed ^ mix64(p.begin + 0x9e3779b97f4a7c15ul));
  for (ulong i = get_local_id(0); i < count; i += WG_SIZE)
    samples[p.sample + i] = keys[p.begin + mul_hi(mix64(stream + i), size)];
}

/* Loads the parent's k-1 splitters, every s-th key of its sorted sample,
 * as order bits, into tree[1 .. k) as an implicit binary search tree
 * (node x has children 2x and 2x+1; a node at depth t, x = 2^t + q, holds
 * sorted entry (2q+1) 2^(logk-1-t) - 1). Ends with a barrier. */
inline void load_splitters(const global KEY_T *samples, const parent_t *p, int kind, int desc,
                           local KEY_T *tree) {
  for (uint x = get_local_id(0) + 1; x < p->k; x += WG_SIZE) {
    uint t = 31 - clz(x), q = x - (1u << t);
    uint j = ((2 * q + 1) << (p->logk - 1 - t)) - 1;
    tree[x] = key_to_bits(samples[p->sample + (ulong)(j + 1) * p->s - 1], kind, desc);
  }
  WG_BARRIER();
}

/* The buckets of the keys k[0 .. CL_N), as order bits all descending the
 * tree together, a level at a time, so that their dependent local reads
 * overlap (logk steps, each one local read and one comparison a key).
 * j, the number of splitters below a key, is where its descent ends; the
 * smallest splitter not below it, s_j (if j < k - 1), is the last node
 * where it went left, so the equality bucket needs no further read (a
 * second read of the splitters, at a random place, cost a bank-conflicted
 * local read a key). */
#define CLASSIFY_N(CL_N, k, out, kind, desc, logk, tree)                                 \
  do {                                                                                   \
    uint ci_[CL_N];                                                                      \
    KEY_T cb_[CL_N], cs_[CL_N];                                                          \
    UNROLL_FULL for (uint l_ = 0; l_ < (CL_N); l_++) {                                   \
      ci_[l_] = 1;                                                                       \
      cb_[l_] = key_to_bits((k)[l_], kind, desc);                                        \
      cs_[l_] = 0;                                                                       \
    }                                                                                    \
    for (uint t_ = 0; t_ < (logk); t_++) {                                               \
      UNROLL_FULL for (uint l_ = 0; l_ < (CL_N); l_++) {                                 \
        KEY_T node_ = (tree)[ci_[l_]];                                                   \
        bool right_ = node_ < cb_[l_];                                                   \
        cs_[l_] = right_ ? cs_[l_] : node_;                                              \
        ci_[l_] = 2 * ci_[l_] + (right_ ? 1u : 0u);                                      \
      }                                                                                  \
    }                                                                                    \
    UNROLL_FULL for (uint l_ = 0; l_ < (CL_N); l_++) {                                   \
      uint j_ = ci_[l_] - (1u << (logk));                                                \
      (out)[l_] = 2 * j_ + (j_ + 1 < (1u << (logk)) && cs_[l_] == cb_[l_] ? 1u : 0u);    \
    }                                                                                    \
  } while (0)

/* The keys of vector v (16 bytes, aligned) that lie in [lo, hi): whole
 * vectors load as one, the edges key by key. valid[l] says which. */
inline void load_vector(const global KEY_T *keys, ulong v, ulong lo, ulong hi, KEY_T *out,
                        bool *valid) {
  ulong e = v * SS_V;
  if (e >= lo && e + SS_V <= hi) {
    CAT(vstore, SS_V)(((const global KEY_V *)keys)[v], 0, out);
    UNROLL_FULL for (uint l = 0; l < SS_V; l++) valid[l] = true;
  } else {
    UNROLL_FULL for (uint l = 0; l < SS_V; l++) {
      valid[l] = e + l >= lo && e + l < hi;
      out[l] = valid[l] ? keys[e + l] : 0;
    }
  }
}

#if SS_IDS
/* Stores the buckets b[] of the keys of vector v that lie in [lo, hi) at
 * their positions in ids, as load_vector reads the keys: a whole vector
 * as one ushort vector, an edge key by key, writing no id of a key
 * outside [lo, hi) (another parent's group may own it). */
inline void store_ids(global ushort *ids, ulong v, ulong lo, ulong hi, const uint *b) {
  ulong e = v * SS_V;
  if (e >= lo && e + SS_V <= hi) {
    ((global ID_V *)ids)[v] = ID_PACK(b);
  } else {
    UNROLL_FULL for (uint l = 0; l < SS_V; l++)
      if (e + l >= lo && e + l < hi) ids[e + l] = (ushort)b[l];
  }
}

/* The buckets that store_ids stored for the keys of vector v in [lo,
 * hi); 0 for the others (which load_vector marks invalid). */
inline void load_ids(const global ushort *ids, ulong v, ulong lo, ulong hi, uint *b) {
  ulong e = v * SS_V;
  if (e >= lo && e + SS_V <= hi) {
    ID_V x = ((const global ID_V *)ids)[v];
    ID_UNPACK(x, b);
  } else {
    UNROLL_FULL for (uint l = 0; l < SS_V; l++)
      b[l] = e + l >= lo && e + l < hi ? ids[e + l] : 0u;
  }
}
#endif

#if USE_PTX && SS_MATCH
/* Adds one per lane to counters[b] and returns the counter's old value
 * plus the lane's rank among the lanes of its warp with the same b. Those
 * lanes share one atomic, added by the lowest of them: sorted input and
 * inputs with few distinct keys put whole warps on one bucket, which
 * per-lane atomics would serialise. Invalid lanes add nothing. Every lane
 * of the warp must call it (full masks). */
inline uint warp_bump(local uint *counters, uint b, bool valid) {
  uint peers = warp_match(valid ? b : 0xFFFFFFFFu);
  uint leader = lowest_bit(peers), lane = lane_id(), old = 0;
  if (valid && lane == leader) old = atomic_add(&counters[b], (uint)popcount(peers));
  old = shfl_idx_u32(old, leader);
  return old + (uint)popcount(peers & ((1u << lane) - 1u));
}
#define BUMP(counters, b, valid) warp_bump((counters), (b), (valid))
#elif USE_PTX
/* The same result without match.any: a warp whose valid lanes share one
 * bucket (sorted runs, few distinct keys) adds once; any other warp adds
 * lane by lane. */
inline uint warp_bump(local uint *counters, uint b, bool valid) {
  uint lanes = warp_ballot(valid), lane = lane_id();
  if (lanes == 0) return 0u;
  uint leader = lowest_bit(lanes), b0 = shfl_idx_u32(b, leader);
  if (warp_ballot(valid && b == b0) == lanes) {
    uint old = 0;
    if (lane == leader) old = atomic_add(&counters[b0], (uint)popcount(lanes));
    old = shfl_idx_u32(old, leader);
    return old + (uint)popcount(lanes & ((1u << lane) - 1u));
  }
  return valid ? atomic_inc(&counters[b]) : 0u;
}
#define BUMP(counters, b, valid) warp_bump((counters), (b), (valid))
#elif WG_SIZE == 1
#define BUMP(counters, b, valid) ((valid) ? (counters)[b]++ : 0u)
#else
#define BUMP(counters, b, valid) ((valid) ? atomic_inc(&(counters)[b]) : 0u)
#endif

/* Step 3. Each group counts its chunk's keys per bucket in local memory
 * and writes its column of the parent's table: table[table + b * chunks +
 * c]. Keys are read as striped 16-byte vectors; every work-item makes the
 * same number of rounds. With SS_IDS each key's bucket also goes to
 * ids[its position] (store_ids); else `ids` is not used. Work-group:
 * WG_SIZE. Local: the splitter tree (SS_K keys) and NB_MAX counters. */
KERNEL void sample_histogram(const global KEY_T *keys, const global ulong *aux, ulong parents_off,
                             uint num_parents, const global KEY_T *samples, ulong chunk, int kind,
                             int desc, global OFFSET_T *table, global ushort *ids) {
  local KEY_T tree[SS_K];
  local uint hist[NB_MAX];
  ulong g = get_group_id(0);
  parent_t p = find_parent(aux + parents_off, num_parents, g, chunk);
  ulong c = g - p.first;
  for (uint b = get_local_id(0); b < p.nb; b += WG_SIZE) hist[b] = 0;
  load_splitters(samples, &p, kind, desc, tree);
  ulong first = p.a + c * chunk;
  ulong lo = max(p.begin, first), hi = min(p.end, first + chunk);
  for (ulong v0 = first / SS_V; v0 * SS_V < hi; v0 += WG_SIZE * SS_HIST_V) {
    KEY_T k[SS_HIST_V * SS_V];
    bool valid[SS_HIST_V * SS_V];
    /* Every load of the round before the first count. */
    UNROLL_FULL for (uint h = 0; h < SS_HIST_V; h++)
      load_vector(keys, v0 + h * WG_SIZE + get_local_id(0), lo, hi, k + h * SS_V,
                  valid + h * SS_V);
    uint bucket[SS_HIST_V * SS_V];
    CLASSIFY_N(SS_HIST_V * SS_V, k, bucket, kind, desc, p.logk, tree);
    UNROLL_FULL for (uint l = 0; l < SS_HIST_V * SS_V; l++) BUMP(hist, bucket[l], valid[l]);
#if SS_IDS
    UNROLL_FULL for (uint h = 0; h < SS_HIST_V; h++)
      store_ids(ids, v0 + h * WG_SIZE + get_local_id(0), lo, hi, bucket + h * SS_V);
#endif
  }
  WG_BARRIER();
  for (uint b = get_local_id(0); b < p.nb; b += WG_SIZE)
    table[p.table + b * p.chunks + c] = hist[b];
}

/* The scanned table's entry of bucket b and chunk c of parent p: where
 * the chunk's keys of the bucket go, counted from p.prefix. Chunk 0's is
 * where the bucket starts. */
inline OFFSET_T scanned_at(const global OFFSET_T *table, parent_t p, uint b, ulong c) {
  return table[p.table + b * p.chunks + c];
}

/* Step 4b. Group p writes parent p's bucket sizes to `counts` (at the
 * parent's P_COUNTS), from the scanned table: bucket b starts at its
 * chunk-0 entry, and the next bucket (or the parent's end) ends it. A
 * launch of its own between the scan and the scatter, so that the host
 * reads the sizes and plans the next level while the scatter runs.
 * Work-group: WG_SIZE. No local memory. */
KERNEL void sample_counts(global ulong *aux, ulong parents_off, ulong counts_off,
                          const global OFFSET_T *table, ulong chunk) {
  parent_t p = read_parent(aux + parents_off + (ulong)get_group_id(0) * P_WORDS, chunk);
  global OFFSET_T *counts = (global OFFSET_T *)(aux + counts_off);
  for (uint b = get_local_id(0); b < p.nb; b += WG_SIZE) {
    OFFSET_T start = scanned_at(table, p, b, 0);
    OFFSET_T next = b + 1 < p.nb ? scanned_at(table, p, b + 1, 0)
                                 : (OFFSET_T)(p.prefix + (p.end - p.begin));
    counts[p.counts + b] = next - start;
  }
}

/* Step 6, on a last level with packed leaves (GPU shapes): group g plans
 * the leaves of parent g from its bucket starts (the scanned table's
 * chunk-0 entries, as sample_counts reads them) as the host plans them
 * (sample_sort.c's add_small): buckets that follow each other share a
 * tile of the block sort while it holds them, at most `tile` keys. Each
 * tile is an entry of the range plan (segment_tiles.c: first key in .x
 * and .y, the count | log2 of its span << 16 | 1 << 31 when it lies in
 * scratch in .z), the parent's entries at slots it takes at once (their
 * order is free). A bucket of more than `tile` keys ends a run and is
 * left to the host (the next level, or a copy of an equality bucket); a
 * tile of one key is left out unless it must move (`other`). So the
 * device sorts the leaves right after the scatter, while the host is
 * still reading the sizes. `plan` holds plan_cap entries, then the count
 * of entries taken (zero before); aux and plan may be one buffer. The
 * host keeps each parent below 2^32 keys (its starts are 32-bit here).
 *
 * The greedy walk is serial (where a tile closes depends on where it
 * opened), and one work-item walking every bucket took 53 us at 2^24 u32
 * keys on the H100. So every bucket s finds at once, by a binary search
 * of the starts, where a tile opened at s would close (`close[s]`: the
 * first bucket whose end lies more than `tile` past s's start) and which
 * bucket opens the next one (`hop[s]`: the closing bucket, or the one
 * after it when it is too large for any tile); then one work-item follows
 * the hops, a step a tile, and the group writes the tiles out.
 * Local: NB_MAX + 1 starts, three NB_MAX tables of bucket numbers. */
KERNEL void sample_leaf_plan(const global ulong *aux, ulong parents_off,
                             const global OFFSET_T *table, ulong chunk, ulong tile, uint other,
                             global uint4 *plan, uint plan_cap) {
  local uint start[NB_MAX + 1]; /* bucket b's first key, from the parent's */
  local ushort close[NB_MAX], hop[NB_MAX], opened[NB_MAX];
  local uint taken[2]; /* the parent's tiles, its first slot */
  parent_t p = read_parent(aux + parents_off + (ulong)get_group_id(0) * P_WORDS, chunk);
  uint size = (uint)(p.end - p.begin);
  for (uint b = get_local_id(0); b < p.nb; b += WG_SIZE)
    start[b] = (uint)(scanned_at(table, p, b, 0) - p.prefix);
  if (get_local_id(0) == 0) start[p.nb] = size;
  WG_BARRIER();
  for (uint s = get_local_id(0); s < p.nb; s += WG_SIZE) {
    /* e = the first bucket >= s with start[e + 1] > start[s] + tile, or
     * nb: the first j in (s, nb] with start[j] past the limit, less one.
     * A bucket s too large for a tile closes at once (e = s). */
    ulong limit = (ulong)start[s] + tile;
    uint lo = s + 1, hi = p.nb + 1;
    while (lo < hi) {
      uint mid = (lo + hi) / 2;
      if ((ulong)start[mid] > limit)
        hi = mid;
      else
        lo = mid + 1;
    }
    uint e = lo - 1;
    close[s] = (ushort)e;
    hop[s] = (ushort)(e < p.nb && start[e + 1] - start[e] > tile ? e + 1 : e);
  }
  WG_BARRIER();
  /* No barrier in the walk: the other work-items wait at the next one. */
  if (get_local_id(0) == 0) {
    uint tiles = 0;
    for (uint s = 0; s < p.nb; s = hop[s]) {
      uint len = start[close[s]] - start[s];
      if (len >= 2 || (len == 1 && other)) opened[tiles++] = (ushort)s;
    }
    taken[0] = tiles;
    taken[1] = atomic_add((volatile global uint *)(plan + plan_cap), tiles);
  }
  WG_BARRIER();
  uint tiles = taken[0], slot = taken[1];
  for (uint i = get_local_id(0); i < tiles; i += WG_SIZE) {
    uint s = opened[i], len = start[close[s]] - start[s];
    ulong t0 = p.begin + start[s];
    uint span = 32u - clz(len - 1);
    if (slot + i < plan_cap)
      plan[slot + i] =
          (uint4)((uint)t0, (uint)(t0 >> 32), len | span << 16 | (other ? 1u << 31 : 0u), 0u);
  }
}

/* Step 5's parameters, the same in both shapes below. */
#define SCATTER_PARAMS                                                                         \
  const global KEY_T *keys_in, global KEY_T *keys_out, const global VALUE_T *vals_in,          \
      global VALUE_T *vals_out, global ulong *aux, ulong parents_off, uint num_parents,        \
      const global KEY_T *samples, ulong chunk, int kind, int desc,                            \
      const global OFFSET_T *table, int make_index, const global ushort *ids

#if WG_SIZE == 1
/* Step 5 on one-work-item groups (the CPU shape): a serial counting
 * scatter of the chunk straight to its buckets. Order within a bucket is
 * of no concern (the sort is not stable). */
KERNEL void sample_scatter(SCATTER_PARAMS) {
  local KEY_T tree[SS_K];
  local OFFSET_T next[NB_MAX];
  ulong g = get_group_id(0);
  parent_t p = find_parent(aux + parents_off, num_parents, g, chunk);
  ulong c = g - p.first;
  load_splitters(samples, &p, kind, desc, tree);
  for (uint b = 0; b < p.nb; b++) next[b] = p.begin + scanned_at(table, p, b, c) - p.prefix;
  ulong lo = max(p.begin, p.a + c * chunk), hi = min(p.end, p.a + (c + 1) * chunk);
  for (ulong i = lo; i < hi; i++) {
    KEY_T key = keys_in[i];
    uint b;
    CLASSIFY_N(1, &key, &b, kind, desc, p.logk, tree);
    OFFSET_T dst = next[b]++;
    keys_out[dst] = key;
#if HAS_VALUES
    vals_out[dst] = make_index ? (VALUE_T)i : vals_in[i];
#endif
  }
}
#else
/* Step 5. For each tile of its chunk (SS_TILE aligned positions), the
 * group classifies the keys (with SS_IDS: reads the buckets that the
 * histogram stored for the same positions), ranks them by bucket in local memory (the
 * count of the key's bucket before it, from the counting atomic itself:
 * the order within a bucket is free), then writes each bucket's run to base[b] + (position - start
 * of the run), so that neighbouring work-items write neighbouring
 * addresses. A value is read from its key's position in the tile as the
 * key is written; it does not pass through local memory.
 * Work-group: WG_SIZE. Local: SS_TILE keys with 2-byte buckets (and
 * 2-byte positions), the splitters (not with SS_IDS), and three
 * NB_MAX-entry tables.
 * Loop invariant: base[b] = where the chunk's next key of bucket b goes. */
KERNEL void sample_scatter(SCATTER_PARAMS) {
#if !SS_IDS
  local KEY_T tree[SS_K];
#endif
  local KEY_T lkeys[SS_TILE];
  local ushort lbucket[SS_TILE];
#if HAS_VALUES
  local ushort lpos[SS_TILE];
#endif
  local uint tile_count[NB_MAX], tile_start[NB_MAX];
  local OFFSET_T base[NB_MAX];
  local uint scan_tmp[WG_SIZE];
  uint lid = get_local_id(0);
  ulong g = get_group_id(0);
  parent_t p = find_parent(aux + parents_off, num_parents, g, chunk);
  ulong c = g - p.first;
  for (uint b = lid; b < p.nb; b += WG_SIZE)
    base[b] = p.begin + scanned_at(table, p, b, c) - p.prefix;
#if !SS_IDS
  load_splitters(samples, &p, kind, desc, tree);
#endif
  ulong first = p.a + c * chunk;
  ulong lo = max(p.begin, first), hi = min(p.end, first + chunk);
  for (ulong t0 = first; t0 < hi; t0 += SS_TILE) {
    for (uint b = lid; b < p.nb; b += WG_SIZE) tile_count[b] = 0;
    WG_BARRIER();
    /* Striped vectors: vector j of this work-item is tile vector
     * j * WG_SIZE + lid. */
    KEY_T key[SS_ITEMS];
    uint slot[SS_ITEMS]; /* bucket | rank within the tile's bucket << 16; ~0: none */
    UNROLL_FULL for (uint j = 0; j < SS_ITEMS / SS_V; j++) {
      bool valid[SS_V];
      ulong v = t0 / SS_V + j * WG_SIZE + lid;
      load_vector(keys_in, v, lo, hi, key + j * SS_V, valid);
      uint id[SS_V];
#if SS_IDS
      load_ids(ids, v, lo, hi, id);
#else
      CLASSIFY_N(SS_V, key + j * SS_V, id, kind, desc, p.logk, tree);
#endif
      UNROLL_FULL for (uint l = 0; l < SS_V; l++) {
        uint b = id[l];
        uint rank = BUMP(tile_count, b, valid[l]);
        slot[j * SS_V + l] = valid[l] ? b | rank << 16 : 0xFFFFFFFFu;
      }
    }
    WG_BARRIER();
    /* Where each bucket's run starts in the tile: an exclusive scan of
     * the tile's counts, WG_SIZE buckets per round. */
    uint carry = 0;
    for (uint r = 0; r < p.nb; r += WG_SIZE) {
      uint b = r + lid, total;
      uint x = b < p.nb ? tile_count[b] : 0u;
      uint ex = wg_exclusive_sum_u32(x, &total, scan_tmp);
      if (b < p.nb) tile_start[b] = carry + ex;
      carry += total;
    }
    WG_BARRIER();
    UNROLL_FULL for (uint i = 0; i < SS_ITEMS; i++) {
      if (slot[i] != 0xFFFFFFFFu) {
        uint b = slot[i] & 0xFFFFu, at = tile_start[b] + (slot[i] >> 16);
        lkeys[at] = key[i];
        lbucket[at] = (ushort)b;
#if HAS_VALUES
        lpos[at] = (ushort)(((i / SS_V) * WG_SIZE + lid) * SS_V + i % SS_V);
#endif
      }
    }
    WG_BARRIER();
    for (uint s = lid; s < carry; s += WG_SIZE) {
      uint b = lbucket[s];
      OFFSET_T dst = base[b] + (s - tile_start[b]);
      keys_out[dst] = lkeys[s];
#if HAS_VALUES
      ulong from = t0 + lpos[s];
      vals_out[dst] = make_index ? (VALUE_T)from : vals_in[from];
#endif
    }
    WG_BARRIER();
    for (uint b = lid; b < p.nb; b += WG_SIZE) base[b] += tile_count[b];
    WG_BARRIER();
  }
}
#endif

/* Copies the finished buckets that the last write of their level left in
 * the scratch buffers into the output: group g copies [segs[2g],
 * segs[2g+1]) of the keys (and values) from src to dst, at the same
 * positions. Work-group: WG_SIZE. */
KERNEL void sample_copy(const global KEY_T *keys_src, global KEY_T *keys_dst,
                        const global VALUE_T *vals_src, global VALUE_T *vals_dst,
                        const global ulong *aux, ulong segs_off) {
  ulong g = get_group_id(0);
  ulong begin = aux[segs_off + 2 * g], end = aux[segs_off + 2 * g + 1];
  for (ulong i = begin + get_local_id(0); i < end; i += WG_SIZE) {
    keys_dst[i] = keys_src[i];
#if HAS_VALUES
    vals_dst[i] = vals_src[i];
#endif
  }
}
