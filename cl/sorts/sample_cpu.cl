/* sample_cpu.cl: the sample sort's CPU shape (src/sorts/sample_cpu.c), in
 * the manner of super scalar sample sort (Sanders and Winkel, 2004) and
 * seed 004's Fine Sample Sort. A level splits every active segment k
 * ways (k a power of two up to SC_MAX_WAYS) around k - 1 splitters drawn
 * from a sample of it, into 2k - 1 buckets: bucket 2j holds the keys
 * above j splitters and below the next, bucket 2j + 1 the keys equal to
 * splitter j (finished: so equal and few-valued inputs end in a level).
 * One work-item per group walks a contiguous range in a serial loop: no
 * local memory, no barriers.
 *   scpu_splitters  work-item s: segment s's sample, sorted; its
 *                   splitters, in order and as a search tree.
 *   scpu_count      work-item g: chunk g's keys classified by the tree,
 *                   eight at a time so that their loads overlap; each
 *                   key's bucket to the oracle (a byte a key), the counts
 *                   per bucket to the chunk's row.
 *   (the host)      reads the rows, turns them into each bucket's place.
 *   scpu_scatter    work-item g: chunk g's keys (and values) to their
 *                   places by the oracle, each bucket's in input order.
 * quick_cpu.cl's qcpu_leaves finishes the ranges that need no more
 * levels; its conventions hold here: buffers named by ids (0 the input,
 * never written, 1 scratch, 2 the output), the first level reads the
 * caller's keys and writes their order bits (keys.cl), later levels
 * compare order bits as plain unsigned numbers.
 *
 * A segment's record (aux[segs_at + SC_SEG_WORDS s ...], ulongs):
 *   0 its first key   1 its length   2 the id it lies in | SC_RAW
 *   3 k   4 its sample's size m   5 where the sample lies (an aux word:
 *   m keys, then m values as intro_sort moves them)   6 where the
 *   splitters lie (an aux word: the tree's k words, node 0 unused, then
 *   the k - 1 splitters in order and a spare)
 * A chunk's entry (aux[chunks_at + SC_CHUNK_WORDS g ...]): 0 its segment
 * in the batch, 1 its first key, 2 one past its last, 3 the id it goes
 * to. Its row of SC_BUCKETS words at aux[table_at + SC_BUCKETS g]: the
 * counts from scpu_count, then the places for scpu_scatter.
 *
 * Needs common.cl, keys.cl, introsort_cpu.cl and quick_cpu.cl before it.
 */
#define SC_MAX_WAYS 128
#define SC_BUCKETS (2 * SC_MAX_WAYS - 1) /* bucket ids fit the oracle's byte */
#define SC_SEG_WORDS 8
#define SC_CHUNK_WORDS 4
#define SC_RAW 16 /* the segment holds the caller's keys, not order bits */

inline uint sc_log2(uint x) { return 31 - clz(x); }

/* Segment g's sample (one key from a pseudo-random point of each of m
 * equal strata, as qc_pivot's), sorted; its splitters are the keys at
 * every k-th quantile. The tree holds them in breadth-first order (node
 * i's children are 2i and 2i + 1): node i, at level l = log2(i) of a tree
 * of depth d = log2(k), is splitter (2 (i - 2^l) + 1) 2^(d - l - 1) - 1. */
CPU_KERNEL void scpu_splitters(global KEY_T *keys0, global KEY_T *keys1, global KEY_T *keys2,
                               ulong2 at0, ulong2 at2, global ulong *aux, ulong segs_at,
                               int kind, int desc) {
  keys0 += at0.s0;
  keys2 += at2.s0;
  const global ulong *s = aux + segs_at + SC_SEG_WORDS * get_group_id(0);
  const ulong begin = s[0], len = s[1], flags = s[2], ways = s[3], m = s[4];
  const global KEY_T *keys = qc_keys(flags & 3, keys0, keys1, keys2);
  const key_flips f = (flags & SC_RAW) ? key_flips_for(kind, desc) : key_flips_none();
  global KEY_T *sk = (global KEY_T *)(aux + s[5]);
  global VALUE_T *sv = (global VALUE_T *)(aux + s[5] + m);
  for (ulong j = 0; j < m; j++) {
    const ulong lo = j * len / m, hi = (j + 1) * len / m;
    sk[j] = key_to_bits_flip(keys[begin + lo + qc_mix(begin * 31 + len * 0x9E37 + j) % (hi - lo)],
                             f);
#if HAS_VALUES
    sv[j] = 0; /* moved along by the sort, never read */
#endif
  }
  intro_sort(sk, sv, 0, m, key_flips_none());
  global ulong *tree = aux + s[6], *spl = tree + ways;
  for (ulong i = 0; i + 1 < ways; i++) spl[i] = sk[(i + 1) * m / ways];
  spl[ways - 1] = 0;
  const uint depth = sc_log2((uint)ways);
  tree[0] = 0;
  for (uint i = 1; i < ways; i++) {
    const uint l = sc_log2(i);
    tree[i] = spl[((2 * (i - (1u << l)) + 1) << (depth - l - 1)) - 1];
  }
}

/* The bucket of order bits b, from t: the leaf the tree's descent ends
 * at, whose distance from k counts the splitters below b. */
inline uint sc_bucket(KEY_T b, uint t, const KEY_T *spl, uint ways) {
  const uint j = t - ways;
  return 2 * j + ((j < ways - 1) & (b == spl[j]));
}

/* Keys [lo, hi): each one's bucket to the oracle and to the counts. No
 * key's descent waits for another's, so the core overlaps several. The
 * tree is volatile so that its reads stay scalar loads: the vector
 * gathers the compiler would make of eight descents cost more on x86.
 * Called with constant flips. */
inline void sc_classify(const global KEY_T *keys, global uchar *oracle, ulong lo, ulong hi,
                        const volatile KEY_T *tree, const KEY_T *spl, uint ways, ulong *count,
                        key_flips f) {
  const uint depth = sc_log2(ways);
  for (ulong i = lo; i < hi; i++) {
    const KEY_T b = key_to_bits_flip(keys[i], f);
    uint t = 1;
    /* The descent's depth levels, straight-line (a branch that always
     * goes the same way, then no loop). */
#define SC_LEVEL t = 2 * t + (b > tree[t])
    switch (depth) {
      case 7: SC_LEVEL; /* fall through */
      case 6: SC_LEVEL; /* fall through */
      case 5: SC_LEVEL; /* fall through */
      case 4: SC_LEVEL; /* fall through */
      case 3: SC_LEVEL; /* fall through */
      case 2: SC_LEVEL; /* fall through */
      default: SC_LEVEL;
    }
#undef SC_LEVEL
    const uint bucket = sc_bucket(b, t, spl, ways);
    oracle[i] = (uchar)bucket;
    count[bucket]++;
  }
}

CPU_KERNEL void scpu_count(global KEY_T *keys0, global KEY_T *keys1, global KEY_T *keys2,
                           ulong2 at0, ulong2 at2, global ulong *aux, ulong segs_at,
                           ulong chunks_at, ulong table_at, global uchar *oracle, int kind,
                           int desc) {
  keys0 += at0.s0;
  keys2 += at2.s0;
  const size_t g = get_group_id(0);
  const global ulong *e = aux + chunks_at + SC_CHUNK_WORDS * g;
  const global ulong *s = aux + segs_at + SC_SEG_WORDS * e[0];
  const uint ways = (uint)s[3], buckets = 2 * ways - 1;
  const global KEY_T *keys = qc_keys(s[2] & 3, keys0, keys1, keys2);
  const global ulong *from = aux + s[6];
  volatile KEY_T tree[SC_MAX_WAYS];
  KEY_T spl[SC_MAX_WAYS];
  ulong count[SC_BUCKETS];
  for (uint i = 0; i < ways; i++) {
    tree[i] = (KEY_T)from[i];
    spl[i] = (KEY_T)from[ways + i];
  }
  for (uint b = 0; b < buckets; b++) count[b] = 0;
  if (s[2] & SC_RAW)
    sc_classify(keys, oracle, e[1], e[2], tree, spl, ways, count, key_flips_for(kind, desc));
  else
    sc_classify(keys, oracle, e[1], e[2], tree, spl, ways, count, key_flips_none());
  global ulong *row = aux + table_at + SC_BUCKETS * g;
  for (uint b = 0; b < buckets; b++) row[b] = count[b];
}

/* Keys [lo, hi) of ks (values of vs, or their positions with make_index)
 * as order bits to kd (vd), each to its bucket's next place. Called with
 * constant flips and make_index. */
inline void sc_move(const global KEY_T *restrict ks, const global VALUE_T *restrict vs,
                    global KEY_T *restrict kd, global VALUE_T *restrict vd,
                    const global uchar *restrict oracle, ulong lo, ulong hi, ulong *place,
                    bool make_index, key_flips f) {
  for (ulong i = lo; i < hi; i++) {
    const ulong at = place[oracle[i]]++;
    kd[at] = key_to_bits_flip(ks[i], f);
#if HAS_VALUES
    vd[at] = make_index ? (VALUE_T)i : vs[i];
#endif
  }
}

/* make_index: the values are the keys' positions (the first level of an
 * argsort). */
CPU_KERNEL void scpu_scatter(global KEY_T *keys0, global KEY_T *keys1, global KEY_T *keys2,
                             global VALUE_T *vals0, global VALUE_T *vals1, global VALUE_T *vals2,
                             ulong2 at0, ulong2 at2, const global ulong *aux, ulong segs_at,
                             ulong chunks_at, ulong table_at, const global uchar *oracle,
                             int make_index, int kind, int desc) {
  CPU_AT(keys0, vals0, at0);
  CPU_AT(keys2, vals2, at2);
  const size_t g = get_group_id(0);
  const global ulong *e = aux + chunks_at + SC_CHUNK_WORDS * g;
  const global ulong *s = aux + segs_at + SC_SEG_WORDS * e[0];
  const uint buckets = 2 * (uint)s[3] - 1;
  const ulong src = s[2] & 3, dst = e[3];
  const global ulong *row = aux + table_at + SC_BUCKETS * g;
  ulong place[SC_BUCKETS];
  for (uint b = 0; b < buckets; b++) place[b] = row[b];
  const global KEY_T *ks = qc_keys(src, keys0, keys1, keys2);
  global KEY_T *kd = qc_keys(dst, keys0, keys1, keys2);
  const global VALUE_T *vs = qc_vals(src, vals0, vals1, vals2);
  global VALUE_T *vd = qc_vals(dst, vals0, vals1, vals2);
  if (!(s[2] & SC_RAW))
    sc_move(ks, vs, kd, vd, oracle, e[1], e[2], place, false, key_flips_none());
  else if (make_index)
    sc_move(ks, vs, kd, vd, oracle, e[1], e[2], place, true, key_flips_for(kind, desc));
  else
    sc_move(ks, vs, kd, vd, oracle, e[1], e[2], place, false, key_flips_for(kind, desc));
}
