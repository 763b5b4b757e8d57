/* bitonic_cpu.cl: the bitonic sort's CPU shape. The network of bitonic.cl
 * (the "flip" form, positions >= n standing for +inf keys that no
 * comparator moves), over 2^k chunks of `chunk` elements (any multiple of
 * BC_STRIP: the flip and the half-cleaners sort halves of any equal
 * length): every stage below a chunk is replaced by a serial sort of the
 * chunk, every step between chunks runs as it is, and the steps inside a
 * chunk that end each later stage by a linear merge. One work-item per
 * group, no local memory, no barriers: each core runs plain loops.
 *
 * Needs common.cl, keys.cl and introsort_cpu.cl before it, and
 *   HAS_VALUES  0 for keys only, 1 when values travel with the keys
 *   VALUE_T     uint or ulong (with HAS_VALUES)
 *
 * The sort (src/sorts/bitonic_cpu.c), on order bits (keys.cl) between its
 * first and last launch:
 *   1. bcpu_chunks: work-item g copies chunk g and sorts it (the serial
 *      introsort): the network's stages up to a chunk, in n log n.
 *   2. Stage j = 1 .. log2(chunks), which merges sorted blocks of 2^j
 *      chunks: bcpu_cross runs the stage's steps between chunks (the
 *      flip, then half-cleaners), up to BC_LOG_ROWS steps a launch;
 *      then every chunk holds a bitonic sequence, all of whose keys lie
 *      between those of the chunks around it, and bcpu_finish sorts it
 *      by a linear merge into the other buffer: what the network's
 *      remaining steps would give.
 * Not stable (the network is not either). */
#if !defined(HAS_VALUES)
#error "bitonic_cpu.cl needs HAS_VALUES"
#endif

#define BC_MAX ((KEY_T)(~(KEY_T)0)) /* the order bits of a position >= n */
/* bcpu_cross works on strips of BC_STRIP cosets: 2^r rows of BC_STRIP
 * elements each, copied into private arrays (8 KB of 8-byte keys at most)
 * where every step is a loop over a strip that the compiler vectorizes. */
#define BC_LOG_ROWS 4
#define BC_ROWS (1 << BC_LOG_ROWS)
#define BC_STRIP 64
/* Coset c's first chunk for a round at chunk bits [lo, lo + r): c with r
 * zero bits inserted at lo (bitonic.cl's COSET_REP, on chunks). */
#define BC_COSET_REP(c, lo, r, low) ((((c) >> (lo)) << ((lo) + (r))) | ((c) & (low)))

/* Step 1. Work-item g sorts [g * chunk, ...) of keys_in (and vals_in, or
 * the positions with make_index) into the same range of out (and vout).
 * With to_bits the keys are stored as order bits for the merge stages;
 * without (one chunk is the whole sort) they stay keys. */
CPU_KERNEL void bcpu_chunks(const global KEY_T *keys_in, const global VALUE_T *vals_in,
                            global KEY_T *out, global VALUE_T *vout, ulong2 in_at,
                            ulong2 out_at, ulong n, ulong chunk, int kind, int desc,
                            int make_index, int to_bits) {
  /* The pairs' origins, as every kernel here takes them: common.cl's
   * CPU_AT. */
  CPU_AT(keys_in, vals_in, in_at);
  CPU_AT(out, vout, out_at);
  const key_flips f = key_flips_for(kind, desc), none = key_flips_none();
  const key_flips copy = to_bits ? f : none, order = to_bits ? none : f;
  const ulong lo = (ulong)get_group_id(0) * chunk, hi = min(lo + chunk, n);
  for (ulong i = lo; i < hi; i++) out[i] = key_to_bits_flip(keys_in[i], copy);
#if HAS_VALUES
  for (ulong i = lo; i < hi; i++) vout[i] = make_index ? (VALUE_T)i : vals_in[i];
#endif
  intro_sort(out, vout, lo, hi, order);
}

/* Smaller bits to a, larger to b; with values, a swap only when b is
 * strictly smaller, so a position >= n (BC_MAX) never moves down. */
#if HAS_VALUES
#define BC_CMPX(K, V, a, b, j)                  \
  do {                                          \
    KEY_T ka_ = K[a][j], kb_ = K[b][j];         \
    VALUE_T va_ = V[a][j], vb_ = V[b][j];       \
    bool sw_ = kb_ < ka_;                       \
    K[a][j] = sw_ ? kb_ : ka_;                  \
    K[b][j] = sw_ ? ka_ : kb_;                  \
    V[a][j] = sw_ ? vb_ : va_;                  \
    V[b][j] = sw_ ? va_ : vb_;                  \
  } while (0)
#else
#define BC_CMPX(K, V, a, b, j)          \
  do {                                  \
    KEY_T ka_ = K[a][j], kb_ = K[b][j]; \
    K[a][j] = min(ka_, kb_);            \
    K[b][j] = max(ka_, kb_);            \
  } while (0)
#endif

/* Step 2a. r <= BC_LOG_ROWS steps at chunk-index bits [lo, lo + r), over
 * order bits in place: each pairs element o of chunk c with element o of
 * chunk c ^ 2^b (a half-cleaner), or, the first step when `flip`, with
 * element chunk - 1 - o of the mirror chunk in the block of 2^(lo+r)
 * chunks (the flip of two sorted halves of chunk x 2^(lo+r-1) keys each,
 * which needs no power of two). A coset is the 2^r elements that one such
 * round touches together (BC_COSET_REP);
 * for a flip its upper half is mirrored, so it runs backwards. A strip is
 * BC_STRIP consecutive offsets (chunk is a multiple of BC_STRIP) of one
 * coset chunk: 2^r rows of consecutive elements, forwards or backwards.
 * Work-item g takes strips [g * per, (g + 1) * per) of `strips` in all,
 * skipping those whose elements all lie at or past n. */
CPU_KERNEL void bcpu_cross(global KEY_T *keys, global VALUE_T *vals, ulong2 at, ulong n,
                           ulong chunk, uint lo, uint r, int flip, ulong strips, ulong per) {
  CPU_AT(keys, vals, at);
  KEY_T K[BC_ROWS][BC_STRIP];
#if HAS_VALUES
  VALUE_T V[BC_ROWS][BC_STRIP];
#endif
  const uint rows = 1u << r, mid_row = rows >> 1;
  const ulong low = ((ulong)1 << lo) - 1, per_chunk = chunk / BC_STRIP;
  const ulong first = (ulong)get_group_id(0) * per, last = min(first + per, strips);
  for (ulong s = first; s < last; s++) {
    const ulong k = s / per_chunk, o = (s % per_chunk) * BC_STRIP;
    const ulong rep = BC_COSET_REP(k, lo, r, low);
    if (rep * chunk >= n) continue;
    /* Row x: elements start[x] + step[x] * j, j < BC_STRIP. */
    ulong start[BC_ROWS];
    long step[BC_ROWS];
    for (uint x = 0; x < rows; x++) {
      bool upper = flip && x >= mid_row;
      ulong c = (upper ? rep ^ low : rep) | ((ulong)x << lo);
      start[x] = c * chunk + (upper ? chunk - 1 - o : o);
      step[x] = upper ? -1 : 1;
    }
    for (uint x = 0; x < rows; x++) {
      const ulong b = start[x];
      const ulong top = step[x] > 0 ? b + BC_STRIP - 1 : b; /* the row's largest index */
      if (top < n && step[x] > 0) {
        for (uint j = 0; j < BC_STRIP; j++) K[x][j] = keys[b + j];
      } else if (top < n) {
        for (uint j = 0; j < BC_STRIP; j++) K[x][j] = keys[b - j];
      } else {
        for (uint j = 0; j < BC_STRIP; j++) {
          ulong i = b + (ulong)(step[x] * (long)j);
          K[x][j] = i < n ? keys[i] : BC_MAX;
        }
      }
#if HAS_VALUES
      for (uint j = 0; j < BC_STRIP; j++) {
        ulong i = b + (ulong)(step[x] * (long)j);
        V[x][j] = i < n ? vals[i] : 0;
      }
#endif
    }
    /* The round's steps: the first pairs row x with its mirror (flip) or
     * with x + rows/2; the rest are half-cleaners over the lower rows. */
    for (uint x = 0; x < mid_row; x++) {
      const uint y = flip ? rows - 1 - x : x + mid_row;
      for (uint j = 0; j < BC_STRIP; j++) BC_CMPX(K, V, x, y, j);
    }
    for (uint p = mid_row >> 1; p > 0; p >>= 1)
      for (uint x = 0; x < rows; x++)
        if (!(x & p))
          for (uint j = 0; j < BC_STRIP; j++) BC_CMPX(K, V, x, x | p, j);
    for (uint x = 0; x < rows; x++) {
      const ulong b = start[x];
      const ulong top = step[x] > 0 ? b + BC_STRIP - 1 : b;
      if (top < n && step[x] > 0) {
        for (uint j = 0; j < BC_STRIP; j++) keys[b + j] = K[x][j];
      } else if (top < n) {
        for (uint j = 0; j < BC_STRIP; j++) keys[b - j] = K[x][j];
      } else {
        for (uint j = 0; j < BC_STRIP; j++) {
          ulong i = b + (ulong)(step[x] * (long)j);
          if (i < n) keys[i] = K[x][j];
        }
      }
#if HAS_VALUES
      for (uint j = 0; j < BC_STRIP; j++) {
        ulong i = b + (ulong)(step[x] * (long)j);
        if (i < n) vals[i] = V[x][j];
      }
#endif
    }
  }
}

/* Step 2b. Work-item g sorts chunk g of src (order bits), a bitonic
 * sequence: a rotation of keys that rise, then fall. Its elements below n
 * are one too (a part of such a sequence is another). From its smallest
 * key the keys rise both ways round (the equal smallest keys lie together,
 * so any of them will do), so two indices walk away from it, forwards and
 * backwards with wrap-around, and a branchless merge takes the smaller key
 * of the two each time, into the same range of dst. With to_keys (the
 * last stage) dst gets the keys themselves. */
CPU_KERNEL void bcpu_finish(const global KEY_T *src, const global VALUE_T *vsrc,
                            global KEY_T *dst, global VALUE_T *vdst, ulong2 src_at,
                            ulong2 dst_at, ulong n, ulong chunk, int kind, int desc, int to_keys) {
  CPU_AT(src, vsrc, src_at);
  CPU_AT(dst, vdst, dst_at);
  const key_flips f = to_keys ? key_flips_for(kind, desc) : key_flips_none();
  const ulong lo = (ulong)get_group_id(0) * chunk;
  const ulong len = min(chunk, n - lo);
  const global KEY_T *x = src + lo;
  ulong m = 0;
  KEY_T best = x[0];
  for (ulong i = 1; i < len; i++) {
    bool less = x[i] < best;
    best = less ? x[i] : best;
    m = less ? i : m;
  }
  dst[lo] = bits_to_key_flip(best, f);
#if HAS_VALUES
  vdst[lo] = vsrc[lo + m];
#endif
  ulong p = m + 1 == len ? 0 : m + 1, q = m == 0 ? len - 1 : m - 1;
  for (ulong d = 1; d < len; d++) {
    const KEY_T a = x[p], b = x[q];
    const bool take_p = a <= b;
    dst[lo + d] = bits_to_key_flip(take_p ? a : b, f);
#if HAS_VALUES
    vdst[lo + d] = vsrc[lo + (take_p ? p : q)];
#endif
    const ulong p1 = p + 1 == len ? 0 : p + 1, q1 = q == 0 ? len - 1 : q - 1;
    p = take_p ? p1 : p;
    q = take_p ? q : q1;
  }
}
