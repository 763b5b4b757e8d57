/* test_bitonic.c: CLSORT_BITONIC through clsort_sort, clsort_sort_pairs,
 * clsort_argsort and clsort_sort_buffer, and the segmented small sort that
 * shares its tile kernel (clsort__test_sort_segments). The sort is not
 * stable: keys must match the stable reference, payloads must each stay
 * with their key. Sizes follow the tile that the library reports, so the
 * same tests cover the CPU shape and a GPU-style one (CLSORT_TUNING), where
 * small inputs already take many global merge stages. */
#define _POSIX_C_SOURCE 200809L
#include "sort_check.h"

#include <stdlib.h>

/* 16 work-items of 16 keys: a tile of 256 keys, whatever the values. */
#define TILED_TUNING "16:16:2"
#define TILED_TILE 256

static clsort_options bitonic(bool desc) {
  clsort_options o = {CLSORT_BITONIC, desc ? CLSORT_DESCENDING : 0u, 0u, 0u};
  return o;
}

/* The tile of keys of type t carrying `vs`-byte payloads (values or argsort
 * indices; 0 for keys only). */
static size_t tile_of(clsort_type t, size_t vs) {
  return clsort__test_segment_capacity(T_CTX, t, vs);
}

/* The capacity of the stable segmented sort (a position per element too). */
static size_t stable_tile_of(clsort_type t, size_t vs) {
  return clsort__test_segment_capacity_flags(T_CTX, t, vs, CLSORT_STABLE);
}

/* Multi-item groups run as loops on a CPU, so the tiled shape's merge
 * stages (one launch pair per stage above 256 keys) cost far more there:
 * its tests stay below this many keys. */
static size_t max_n(void) { return getenv("CLSORT_TUNING") ? 70000 : SIZE_MAX; }

/* ------------------------------------------------------------ the matrix */
/* _i = type * D_COUNT + distribution: both directions in all five modes at
 * 1000, at a random size up to four tiles and one of 4 to 64 tiles; one
 * direction in three modes at a random size from 64 tiles to 10^6. */
T_TEST(bitonic_matrix) {
  clsort_type t = t_all_types[_i / D_COUNT];
  int dist = _i % D_COUNT;
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "bitonic_matrix");
  r.s[0] ^= (uint64_t)_i;
  size_t tile = tile_of(t, 0);
  size_t sizes[3] = {1000, t_rng_size(&r, 2, 4 * tile), t_rng_size(&r, 4 * tile, 64 * tile)};
  for (int s = 0; s < 3; s++)
    for (int desc = 0; desc < 2; desc++) {
      clsort_options o = bitonic(desc);
      t_check_dist(&r, t, dist, sizes[s] < max_n() ? sizes[s] : max_n(), &o, MODES_ALL);
    }
  size_t big = t_rng_size(&r, 64 * tile, 1000003);
  if (big > max_n()) big = max_n();
  clsort_options o = bitonic((_i / D_COUNT + dist) % 2);
  t_check_dist(&r, t, dist, big, &o, (1u << M_KEYS) | (1u << M_PAIRS8) | (1u << M_ARG4));
}

/* ----------------------------------------------------------------- sizes */
/* The sizes for a tile: tiny ones, every n up to 17, around the tile and
 * its multiples (the local sort alone, then one and more global merge
 * stages, the last tile partial), 2^k +- 1 and primes; sorted, distinct.
 * Returns the count. */
static size_t edge_sizes(size_t tile, size_t *out) {
  static const size_t fixed[] = {0,    1,    2,    3,    4,     5,     6,     7,     8,
                                 9,    10,   11,   12,   13,    14,    15,    16,    17,
                                 31,   33,   63,   65,   100,   127,   129,   255,   257,
                                 1000, 1021, 1023, 1025, 4099,  8191,  8193,  65521, 65537,
                                 99991, 131071};
  const size_t around[] = {tile / 2 - 1,  tile / 2 + 1, tile - 1,      tile,         tile + 1,
                           2 * tile - 1,  2 * tile,     2 * tile + 1,  3 * tile + 5, 4 * tile - 1,
                           4 * tile,      4 * tile + 1, 8 * tile - 3,  8 * tile,     16 * tile + 1,
                           32 * tile - 1, 32 * tile,    32 * tile + 1};
  return t_edge_sizes(fixed, sizeof fixed / sizeof fixed[0], around,
                      sizeof around / sizeof around[0], max_n(), out);
}

static clsort_options edge_options(bool desc, bool few) {
  (void)few;
  return bitonic(desc);
}

/* _i = type: each mode at every edge size of its own tile, both directions
 * up to four tiles, alternating above; distinct keys or few distinct ones
 * (ties), alternating. */
T_TEST(bitonic_edge_sizes) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "bitonic_edge_sizes");
  r.s[0] ^= (uint64_t)_i;
  t_check_edge_sweep(&r, t, tile_of, edge_sizes, edge_options);
}

/* The library's tile: a power of two, at least 16 keys, for every type and
 * payload. */
T_TEST(bitonic_tile_size) {
  for (int ti = 0; ti < 6; ti++)
    for (size_t vs = 0; vs <= 8; vs += 4) {
      clsort_type t = t_all_types[ti];
      size_t tile = tile_of(t, vs);
      t_label("segment capacity of %s with %zu-byte values: %zu", clsort_type_name(t), vs, tile);
      ASSERT_GE_U64(tile, 16);
      ASSERT_EQ_U64(tile & (tile - 1), 0);
    }
}

/* ------------------------------------------------------- special values */
static clsort_options specials_options(size_t s, bool desc) {
  (void)s;
  return bitonic(desc);
}

/* _i = type: the hand-written list once each, then many draws from it,
 * both directions, all modes; the keys must also follow the list's order. */
T_TEST(bitonic_special_values) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  size_t count; /* the list's length: each key once */
  (void)t_special_list(t, &count);
  t_rng r;
  t_rng_init(&r, "bitonic_special_values");
  r.s[0] ^= (uint64_t)_i;
  const size_t sizes[] = {count, 2001, tile_of(t, 0) + 1, 20011};
  t_check_specials_sweep(&r, t, sizes, sizeof sizes / sizeof sizes[0], specials_options,
                         "specials");
}

/* ---------------------------------------------------------- buffer form */
/* _i = type: the buffer form sorts the caller's buffers in place, keys
 * only and with 4- or 8-byte values, after a wait list, and returns an
 * event that completes; bytes past n stay, and keys-only leaves the values
 * buffer alone. */
T_TEST(bitonic_buffer_form) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "bitonic_buffer_form");
  r.s[0] ^= (uint64_t)_i;
  const size_t sizes[] = {1, 2, 33, tile_of(t, 4) + 1, 2 * tile_of(t, 8) - 1, 20011};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int k = 0; k < 3; k++) {
      size_t n = sizes[s], vs = k ? 4 * (size_t)k : 8;
      bool with_values = k != 0, desc = (s + (size_t)k) % 2;
      clsort_options o = bitonic(desc);
      t_check_buffer_case(&r, t, n, k == 2 ? D_FEW : D_UNIFORM, &o, vs, with_values, false);
    }
}

/* n == 0 and NULL arrays: success, nothing touched; the buffer form still
 * gives an event. */
T_TEST(bitonic_zero_length) {
  for (int ti = 0; ti < 6; ti++) {
    clsort_type t = t_all_types[ti];
    if (t_skip_type(t)) continue;
    clsort_options up = bitonic(false), down = bitonic(true);
    t_label("%s n=0", clsort_type_name(t));
    ASSERT_OK(clsort_sort(T_CTX, t, NULL, 0, &up));
    ASSERT_OK(clsort_sort_pairs(T_CTX, t, NULL, NULL, 4, 0, &down));
    ASSERT_OK(clsort_sort_pairs(T_CTX, t, NULL, NULL, 8, 0, &up));
    ASSERT_OK(clsort_argsort(T_CTX, t, NULL, NULL, 4, 0, &down));
    ASSERT_OK(clsort_argsort(T_CTX, t, NULL, NULL, 8, 0, &up));
    cl_event ev = NULL;
    ASSERT_OK(clsort_sort_buffer(T_CTX, t, NULL, NULL, 0, 0, &down, 0, NULL, &ev));
    ASSERT_NOT_NULL(ev);
    t_defer_event(ev);
    ASSERT_CL(clWaitForEvents(1, &ev));
  }
}

/* ---------------------------------------------------------- unsupported */
/* What the bitonic sort cannot promise: stability, and an order over part
 * of the key. Each form returns CLSORT_ERROR_UNSUPPORTED and leaves every
 * array and buffer as it was. The full width named explicitly (end_bit =
 * the key's bits) is no range, and sorts. _i = type. */
T_TEST(bitonic_unsupported) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "bitonic_unsupported");
  r.s[0] ^= (uint64_t)_i;
  size_t n = 1000, es = clsort_type_size(t);
  unsigned bits = (unsigned)es * 8;
  const clsort_options refused[] = {
      {CLSORT_BITONIC, CLSORT_STABLE, 0u, 0u},
      {CLSORT_BITONIC, CLSORT_STABLE | CLSORT_DESCENDING, 0u, 0u},
      {CLSORT_BITONIC, CLSORT_STABLE, 0u, bits},
      {CLSORT_BITONIC, 0u, 1u, 0u},
      {CLSORT_BITONIC, CLSORT_DESCENDING, 0u, bits - 1},
      {CLSORT_BITONIC, 0u, 8u, 16u},
      {CLSORT_BITONIC, 0u, bits - 1, bits},
      {CLSORT_BITONIC, CLSORT_DESCENDING, 0u, 1u},
      {CLSORT_BITONIC, 0u, bits / 2, 0u},
  };
  unsigned char *keys = t_alloc(n * es), *work = t_alloc(n * es), *vals = t_alloc(n * 8),
                *vwork = t_alloc(n * 8);
  t_gen_keys(&r, t, D_UNIFORM, keys, n);
  for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
    const clsort_options *o = &refused[k];
    for (int m = 0; m < M_COUNT; m++) {
      size_t vs = t_mode_payload[m];
      t_label("%s %s n=%zu %s%s is refused", t_mode_names[m], clsort_type_name(t), n,
              t_opt_name(o), vs ? (vs == 4 ? ", 4-byte payload" : ", 8-byte payload") : "");
      memcpy(work, keys, n * es);
      if (t_mode_is_argsort(m))
        t_poison(vals, n * vs);
      else
        t_fill_pair_values(vals, vs ? vs : 8, n);
      memcpy(vwork, vals, n * 8);
      clsort_status st;
      if (m == M_KEYS)
        st = clsort_sort(T_CTX, t, work, n, o);
      else if (!t_mode_is_argsort(m))
        st = clsort_sort_pairs(T_CTX, t, work, vwork, vs, n, o);
      else
        st = clsort_argsort(T_CTX, t, work, vwork, vs, n, o);
      ASSERT_STATUS(st, CLSORT_ERROR_UNSUPPORTED);
      ASSERT_EQ_ELEMS(work, keys, n, es);
      ASSERT_EQ_MEM(vwork, vals, n * 8);
    }
    for (size_t vs = 0; vs <= 8; vs += 4) {
      t_label("sort_buffer %s n=%zu %s%s is refused", clsort_type_name(t), n, t_opt_name(o),
              vs ? (vs == 4 ? " with 4-byte values" : " with 8-byte values") : "");
      t_fill_pair_values(vals, vs ? vs : 8, n);
      cl_mem bk = t_buffer(n * es, keys), bv = vs ? t_buffer(n * vs, vals) : NULL;
      cl_event ev = NULL;
      clsort_status st = clsort_sort_buffer(T_CTX, t, bk, bv, vs, n, o, 0, NULL, &ev);
      if (ev) t_defer_event(ev);
      ASSERT_STATUS(st, CLSORT_ERROR_UNSUPPORTED);
      ASSERT_CL(clFinish(clsort_context_queue(T_CTX)));
      unsigned char *got = t_read_buffer(bk, n * es);
      ASSERT_EQ_ELEMS(got, keys, n, es);
      t_release_now(got);
      if (bv) {
        unsigned char *gv = t_read_buffer(bv, n * vs);
        ASSERT_EQ_ELEMS(gv, vals, n, vs);
        t_release_now(gv);
        t_release_now(bv);
      }
      t_release_now(bk);
    }
  }
  /* The explicit full width, both directions. */
  for (int desc = 0; desc < 2; desc++) {
    clsort_options o = {CLSORT_BITONIC, desc ? CLSORT_DESCENDING : 0u, 0u, bits};
    t_check_input(t, keys, n, &o, MODES_ALL, "uniform, end_bit = the key's width");
  }
}

/* ------------------------------------------------------ segmented sort */
/* Sorts the segments of `keys_in` (n keys, with vs-byte values that name
 * their input: t_pair_value of the index) through the hook, then checks:
 * each segment sorted, its keys those of the reference, each value still
 * with its key and from its own segment; every element outside the
 * segments untouched. */
static void check_segments(clsort_type t, size_t vs, unsigned flags, const void *keys_in,
                           size_t n, const size_t *begins, const size_t *ends, size_t count,
                           const char *what) {
  size_t es = clsort_type_size(t);
  clsort_options o = bitonic(flags & CLSORT_DESCENDING);
  unsigned char *keys = t_alloc(n * es + 1), *vals = t_alloc(n * 8 + 1), *inside = t_alloc(n + 1);
  memcpy(keys, keys_in, n * es);
  t_fill_pair_values(vals, vs ? vs : 8, n);
  t_label("sort_segments %s n=%zu, %zu segments, %s%s%s, %s", clsort_type_name(t), n, count,
          flags & CLSORT_DESCENDING ? "descending" : "ascending",
          flags & CLSORT_STABLE ? ", stable" : "",
          vs ? (vs == 4 ? ", 4-byte values" : ", 8-byte values") : "", what);
  ASSERT_OK(clsort__test_sort_segments(T_CTX, t, keys, vs ? vals : NULL, vs, n, begins, ends,
                                       count, flags));
  memset(inside, 0, n);
  for (size_t s = 0; s < count; s++) memset(inside + begins[s], 1, ends[s] - begins[s]);
  for (size_t i = 0; i < n; i++) {
    if (inside[i]) continue;
    if (memcmp(keys + i * es, (const char *)keys_in + i * es, es) != 0 ||
        (vs && t_get_payload(vals, i, vs) != t_pair_value(i, vs)))
      ck_abort_msg("%s: element %zu, outside every segment, changed: key 0x%" PRIx64
                   " (was 0x%" PRIx64 "), value 0x%" PRIx64,
                   t_where(), i, t_get_bits(t, keys, i), t_get_bits(t, keys_in, i),
                   vs ? t_get_payload(vals, i, vs) : 0);
  }
  unsigned char *want = t_alloc(n * es + 1);
  for (size_t s = 0; s < count; s++) {
    size_t b = begins[s], len = ends[s] - begins[s];
    if (len == 0) continue;
    t_label("sort_segments %s n=%zu, segment %zu of %zu: [%zu, %zu), %s%s%s, %s",
            clsort_type_name(t), n, s, count, b, ends[s],
            flags & CLSORT_DESCENDING ? "descending" : "ascending",
            flags & CLSORT_STABLE ? ", stable" : "",
            vs ? (vs == 4 ? ", 4-byte values" : ", 8-byte values") : "", what);
    size_t *perm = t_ref_permutation(t, (const char *)keys_in + b * es, len, &o);
    t_gather((const char *)keys_in + b * es, perm, len, es, want);
    t_check_sorted(t, keys + b * es, len, &o);
    ASSERT_EQ_ELEMS(keys + b * es, want, len, es);
    if (vs && (flags & CLSORT_STABLE)) {
      /* Stable: the values in exactly the reference's order. */
      for (size_t i = 0; i < len; i++)
        if (t_get_payload(vals + b * vs, i, vs) != t_pair_value(b + perm[i], vs))
          ck_abort_msg("%s: position %zu of the segment holds value 0x%" PRIx64
                       ", the stable order wants input %zu's",
                       t_where(), i, t_get_payload(vals + b * vs, i, vs), b + perm[i]);
    } else if (vs) {
      t_check_payload_permutation_at(t, keys_in, want, vals + b * vs, vs, b, len, false);
    }
    t_release_now(perm);
  }
  t_release_now(want);
  t_release_now(inside);
  t_release_now(vals);
  t_release_now(keys);
}

/* Keys for the segment tests: distinct, few distinct (ties), or specials. */
static void segment_keys(t_rng *r, clsort_type t, int variant, void *keys, size_t n) {
  if (variant % 3 == 2)
    t_special_keys(r, t, keys, n);
  else
    t_gen_keys(r, t, variant % 3 ? D_FEW : D_UNIFORM, keys, n);
}

/* A random layout: gaps of 0 to 3 keys between segments of every kind of
 * length (empty, one key, two, a full tile, a tile less one, any length
 * up to a tile, a few keys), the first at 0 and the last ending at n.
 * Returns the segment count; n receives the array's length. */
static size_t random_layout(t_rng *r, size_t cap, size_t max_segments, size_t *begins,
                            size_t *ends, size_t *n) {
  size_t at = 0, count = 0;
  while (count < max_segments) {
    if (count > 0) at += (size_t)t_rng_below(r, 4);
    size_t len;
    switch (t_rng_below(r, 7)) {
      case 0: len = 0; break;
      case 1: len = 1; break;
      case 2: len = 2; break;
      case 3: len = cap; break;
      case 4: len = cap - 1; break;
      case 5: len = (size_t)t_rng_below(r, cap + 1); break;
      default: len = (size_t)t_rng_below(r, 18); break;
    }
    begins[count] = at;
    ends[count] = at + len;
    at += len;
    count++;
  }
  *n = at;
  return count;
}

/* _i = type: for keys only and 4- and 8-byte values, both directions:
 * random layouts; one segment that is the whole array at full capacity;
 * many small segments back to back; segments listed out of order; a
 * lone segment amid untouched keys; no segments at all. */
T_TEST(bitonic_segments) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "bitonic_segments");
  r.s[0] ^= (uint64_t)_i;
  size_t es = clsort_type_size(t);
  enum { MAX_SEGS = 1200 };
  size_t *begins = t_alloc(MAX_SEGS * sizeof *begins), *ends = t_alloc(MAX_SEGS * sizeof *ends);
  int variant = 0;
  for (size_t vs = 0; vs <= 8; vs += 4)
    for (int desc = 0; desc < 2; desc++, variant++) {
      unsigned flags = desc ? CLSORT_DESCENDING : 0u;
      size_t cap = tile_of(t, vs), n, count;

      count = random_layout(&r, cap, 24, begins, ends, &n);
      unsigned char *keys = t_alloc(n * es + 1);
      segment_keys(&r, t, variant, keys, n);
      check_segments(t, vs, flags, keys, n, begins, ends, count, "random layout");
      t_release_now(keys);

      /* One segment, the whole array, exactly the capacity. */
      n = cap;
      begins[0] = 0;
      ends[0] = n;
      keys = t_alloc(n * es);
      segment_keys(&r, t, variant + 1, keys, n);
      check_segments(t, vs, flags, keys, n, begins, ends, 1, "one full-capacity segment");
      t_release_now(keys);

      /* Many small segments, 0 to 8 keys, back to back; a full one last. */
      n = 0;
      for (count = 0; count < 1000; count++) {
        begins[count] = n;
        n += (size_t)t_rng_below(&r, 9);
        ends[count] = n;
      }
      begins[count] = n;
      n += cap;
      ends[count++] = n;
      keys = t_alloc(n * es);
      segment_keys(&r, t, variant + 2, keys, n);
      check_segments(t, vs, flags, keys, n, begins, ends, count, "1001 small segments");

      /* The same segments in a shuffled list. */
      for (size_t i = count; i-- > 1;) {
        size_t j = (size_t)t_rng_below(&r, i + 1), b = begins[i], e = ends[i];
        begins[i] = begins[j];
        ends[i] = ends[j];
        begins[j] = b;
        ends[j] = e;
      }
      check_segments(t, vs, flags, keys, n, begins, ends, count, "segments listed out of order");

      /* One segment amid keys that must not move; then none at all. */
      begins[0] = n / 3;
      ends[0] = n / 3 + cap / 2 + 1;
      check_segments(t, vs, flags, keys, n, begins, ends, 1, "one segment inside the array");
      check_segments(t, vs, flags, keys, n, begins, ends, 0, "no segments");
      t_release_now(keys);
    }
}

/* _i = type: the stable segmented sort (the merge sort's runs), with 4-
 * and 8-byte index payloads, both directions, on few distinct keys so that
 * ties decide the payloads' order: random layouts and one full-capacity
 * segment, whose capacity must not exceed the unstable one; one key more
 * than that capacity is refused. */
T_TEST(bitonic_segments_stable) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "bitonic_segments_stable");
  r.s[0] ^= (uint64_t)_i;
  size_t es = clsort_type_size(t);
  size_t begins[32], ends[32];
  for (size_t vs = 4; vs <= 8; vs += 4)
    for (int desc = 0; desc < 2; desc++) {
      unsigned flags = CLSORT_STABLE | (desc ? CLSORT_DESCENDING : 0u);
      size_t cap = stable_tile_of(t, vs), n, count;
      t_label("stable capacity of %s with %zu-byte values: %zu (unstable %zu)",
              clsort_type_name(t), vs, cap, tile_of(t, vs));
      ck_assert(cap >= 16 && (cap & (cap - 1)) == 0 && cap <= tile_of(t, vs));

      count = random_layout(&r, cap, 24, begins, ends, &n);
      unsigned char *keys = t_alloc(n * es + 1);
      t_gen_keys(&r, t, D_FEW, keys, n);
      check_segments(t, vs, flags, keys, n, begins, ends, count, "random layout");
      t_release_now(keys);

      n = cap;
      begins[0] = 0;
      ends[0] = n;
      keys = t_alloc((n + 1) * es);
      t_gen_keys(&r, t, D_FEW, keys, n + 1);
      check_segments(t, vs, flags, keys, n, begins, ends, 1, "one full-capacity segment");
      ends[0] = n + 1;
      unsigned char *vals = t_alloc((n + 1) * vs);
      ck_assert_int_eq(clsort__test_sort_segments(T_CTX, t, keys, vals, vs, n + 1, begins, ends,
                                                  1, flags),
                       CLSORT_ERROR_INVALID_ARGUMENT);
      t_release_now(vals);
      t_release_now(keys);
    }
}

/* A segment longer than the capacity, alone or among valid ones, or
 * reaching past n: CLSORT_ERROR_INVALID_ARGUMENT, the arrays as they were.
 * _i = type. */
T_TEST(bitonic_segments_invalid) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "bitonic_segments_invalid");
  r.s[0] ^= (uint64_t)_i;
  size_t es = clsort_type_size(t);
  for (size_t vs = 0; vs <= 8; vs += 4) {
    size_t cap = tile_of(t, vs), n = 3 * cap + 10;
    unsigned char *keys = t_alloc(n * es), *work = t_alloc(n * es), *vals = t_alloc(n * 8),
                  *vwork = t_alloc(n * 8);
    t_gen_keys(&r, t, D_UNIFORM, keys, n);
    t_fill_pair_values(vals, vs ? vs : 8, n);
    const struct {
      size_t begins[3], ends[3], count;
      const char *what;
    } cases[] = {
        {{0}, {cap + 1}, 1, "one segment of capacity + 1"},
        {{5}, {5 + 2 * cap}, 1, "one segment of twice the capacity"},
        {{0, cap, 2 * cap + 2}, {cap, 2 * cap + 1, 3 * cap + 3}, 3,
         "capacity + 1 in the middle of valid segments"},
        {{0, cap + 2, 2 * cap + 5}, {cap, cap + 3, 3 * cap + 7}, 3,
         "capacity + 2 last, after valid segments"},
        {{n - 1}, {n + 1}, 1, "a segment reaching past n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
      for (int desc = 0; desc < 2; desc++) {
        t_label("sort_segments %s n=%zu, capacity %zu%s: %s, %s", clsort_type_name(t), n, cap,
                vs ? (vs == 4 ? ", 4-byte values" : ", 8-byte values") : "", cases[k].what,
                desc ? "descending" : "ascending");
        memcpy(work, keys, n * es);
        memcpy(vwork, vals, n * 8);
        ASSERT_STATUS(clsort__test_sort_segments(T_CTX, t, work, vs ? vwork : NULL, vs, n,
                                                 cases[k].begins, cases[k].ends, cases[k].count,
                                                 desc ? CLSORT_DESCENDING : 0u),
                      CLSORT_ERROR_INVALID_ARGUMENT);
        ASSERT_EQ_ELEMS(work, keys, n, es);
        ASSERT_EQ_MEM(vwork, vals, n * 8);
      }
    t_release_now(vwork);
    t_release_now(vals);
    t_release_now(work);
    t_release_now(keys);
  }
}

/* ------------------------------------------------------------ tile shape */
static void tiled_setup(void) { t_shape_setup(TILED_TUNING); }

/* The override took: a tile of 256 keys for every type, keys only. */
T_TEST(bitonic_tiled_shape) {
  for (int ti = 0; ti < 6; ti++) {
    clsort_type t = t_all_types[ti];
    t_label("CLSORT_TUNING=%s: the tile of %s keys", t_shape, clsort_type_name(t));
    ASSERT_EQ_U64(tile_of(t, 0), TILED_TILE);
  }
}

/* The global launches' 16-byte vector slots (CLSORT_BITONIC=3:64:1:1, the
 * earlier shape, which bench/ measures beside the default) with a one-step
 * wide merge: u32 and f64 keys (4 and 2 lanes; each program costs seconds
 * to build on PoCL), both directions, past several global launches per
 * stage. */
T_TEST(bitonic_vector_slots) {
  const clsort_type types[] = {CLSORT_U32, CLSORT_F64};
  t_rng r;
  t_rng_init(&r, "bitonic_vector_slots");
  t_setenv("CLSORT_BITONIC", "3:64:1:1");
  t_setenv("CLSORT_BITONIC_STRIDED", "0"); /* the global launches, not the strided merge */
  for (int ti = 0; ti < 2; ti++) {
    if (t_skip_type(types[ti])) continue;
    size_t tile = tile_of(types[ti], 0);
    const size_t sizes[] = {2 * tile + 1, 5 * tile - 3, t_rng_size(&r, 64 * tile, max_n())};
    for (int k = 0; k < 3; k++) {
      clsort_options o = bitonic((k + ti) % 2);
      t_check_dist(&r, types[ti], k == 1 ? D_FEW : D_UNIFORM, sizes[k], &o, 1u << M_KEYS);
    }
  }
}

/* --------------------------------------------------------- CPU shape */
/* The CPU shape (bitonic_cpu.c) with chunks of 64 keys, and of 192 (not
 * a power of two: three strips), forced by CLSORT_BITONIC_CPU=1:CHUNK (read
 * at every sort), so that small inputs reach many merge stages: its
 * chunk, and the count of chunks, around powers of two. On a device
 * without the CPU shape the setting is ignored and the tile network runs
 * the same checks. */
static size_t forced_chunk = 64;
/* The sizes for the chunk: tiny ones; around the chunk and its multiples
 * P - 1, P and P + 1 chunks for P = 2, 4, 8, 64, the last chunk one key
 * long or one short; 2^k +- 1 and primes. */
static size_t chunk_sizes(size_t chunk, size_t *out) {
  static const size_t fixed[] = {0, 1, 2, 3, 5, 17, 1021, 1023, 1025, 4093, 8191, 8193};
  const size_t around[] = {chunk - 1,      chunk,          chunk + 1,      2 * chunk - 1,
                           2 * chunk + 1,  3 * chunk,      3 * chunk + 1,  4 * chunk,
                           4 * chunk + 1,  7 * chunk - 1,  7 * chunk,      8 * chunk,
                           8 * chunk + 1,  9 * chunk + 7,  63 * chunk,     64 * chunk,
                           64 * chunk + 1, 65 * chunk - 1};
  return t_edge_sizes(fixed, sizeof fixed / sizeof fixed[0], around,
                      sizeof around / sizeof around[0], SIZE_MAX, out);
}

static size_t chunk_of(clsort_type t, size_t vs) {
  (void)t;
  (void)vs;
  return forced_chunk;
}

/* _i = type x 2 + (chunks of 192): every mode at every chunk size (both
 * directions up to four chunks, alternating above), distinct keys or few
 * distinct ones; then sorted, reversed and all-equal keys, and the special
 * values (NaNs, signed zeros, infinities) at sizes of several stages, all
 * modes. */
T_TEST(bitonic_cpu_chunks) {
  clsort_type t = t_all_types[_i / 2];
  if (t_skip_type(t)) return;
  forced_chunk = _i % 2 ? 192 : 64;
  char setting[32];
  snprintf(setting, sizeof setting, "1:%zu", forced_chunk);
  t_setenv("CLSORT_BITONIC_CPU", setting);
  t_rng r;
  t_rng_init(&r, "bitonic_cpu_chunks");
  r.s[0] ^= (uint64_t)_i;
  t_check_edge_sweep(&r, t, chunk_of, chunk_sizes, edge_options);
  const int dists[] = {D_SORTED, D_REVERSE, D_ZERO};
  for (int d = 0; d < 3; d++) {
    clsort_options o = bitonic(d % 2);
    t_check_dist(&r, t, dists[d], 5 * forced_chunk + 3, &o, MODES_ALL);
  }
  size_t count;
  (void)t_special_list(t, &count);
  const size_t sizes[] = {count, 3 * forced_chunk + 1, 1000};
  t_check_specials_sweep(&r, t, sizes, sizeof sizes / sizeof sizes[0], specials_options,
                         setting);
}

/* The tile network on the CPU shape's device (CLSORT_BITONIC_CPU=0) and
 * the CPU shape's own chunks (the default setting) past several stages:
 * a 4- and an 8-byte type (the kernels differ by key size only), all
 * modes, both directions. */
T_TEST(bitonic_cpu_switch) {
  const clsort_type types[] = {CLSORT_U32, CLSORT_F64};
  const size_t sizes[] = {5003, 70001};
  t_rng r;
  t_rng_init(&r, "bitonic_cpu_switch");
  for (int k = 0; k < 2; k++) {
    t_setenv("CLSORT_BITONIC_CPU", k ? "1" : "0");
    for (int ti = 0; ti < 2; ti++) {
      if (t_skip_type(types[ti])) continue;
      for (int desc = 0; desc < 2; desc++) {
        clsort_options o = bitonic(desc);
        t_check_dist(&r, types[ti], desc ? D_FEW : D_UNIFORM, sizes[k], &o, MODES_ALL);
      }
    }
  }
}

/* ------------------------------------------------------------ slow tier */
/* From 2^22 keys, on the default shape: u32 in three modes, u64 and f32
 * keys and pairs, other distributions. _i = case. */
static const struct {
  clsort_type t;
  int dist;
  size_t n;
  unsigned flags, modes;
} large_cases[] = {
    {CLSORT_U32, D_UNIFORM, (1u << 22) + 1, 0u,
     (1u << M_KEYS) | (1u << M_PAIRS4) | (1u << M_ARG8)},
    {CLSORT_U64, D_UNIFORM, 1u << 22, CLSORT_DESCENDING, (1u << M_KEYS) | (1u << M_PAIRS8)},
    {CLSORT_F32, D_FEW, (1u << 22) - 1, CLSORT_DESCENDING, 1u << M_KEYS},
    {CLSORT_I64, D_GAUSSIAN, 4194319 /* prime */, 0u, 1u << M_ARG4},
};
#define NLARGE (sizeof large_cases / sizeof large_cases[0])

T_TEST(bitonic_large) {
  clsort_type t = large_cases[_i].t;
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "bitonic_large");
  r.s[0] ^= (uint64_t)_i;
  clsort_options o = bitonic(large_cases[_i].flags & CLSORT_DESCENDING);
  t_check_dist(&r, t, large_cases[_i].dist, large_cases[_i].n, &o, large_cases[_i].modes);
}

/* ------------------------------------------------------------------ main */
/* Parts: "matrix" (the default shape), "tiled" (CLSORT_TUNING=16:16:2, and
 * the global launches' vector slots) and
 * "chunks" (the CPU shape's small chunks and its switch), so that meson
 * runs them in parallel; no part runs two. */
static void add_common(TCase *tc) {
  tcase_add_loop_test(tc, bitonic_matrix, 0, 6 * D_COUNT);
  tcase_add_loop_test(tc, bitonic_edge_sizes, 0, 6);
  tcase_add_loop_test(tc, bitonic_special_values, 0, 6);
  tcase_add_loop_test(tc, bitonic_buffer_form, 0, 6);
  tcase_add_loop_test(tc, bitonic_segments, 0, 6);
  tcase_add_loop_test(tc, bitonic_segments_stable, 0, 6);
  tcase_add_loop_test(tc, bitonic_segments_invalid, 0, 6);
}

static void add(Suite *s, unsigned tiers) {
  if (tiers & T_QUICK) {
    if (t_part_selected("matrix")) {
      TCase *tc = t_tcase(s, "matrix", true);
      tcase_add_test(tc, bitonic_tile_size);
      add_common(tc);
      tcase_add_loop_test(tc, bitonic_unsupported, 0, 6);
      tcase_add_test(tc, bitonic_zero_length);
    }
    if (t_part_selected("tiled")) {
      TCase *tc = t_shape_tcase(s, "tiled", tiled_setup);
      tcase_add_test(tc, bitonic_tiled_shape);
      tcase_add_test(tc, bitonic_tile_size);
      add_common(tc);
      tcase_add_test(tc, bitonic_vector_slots);
    }
    if (t_part_selected("chunks")) {
      TCase *tc = t_tcase(s, "chunks", true);
      tcase_add_loop_test(tc, bitonic_cpu_chunks, 0, 12);
      tcase_add_test(tc, bitonic_cpu_switch);
    }
  }
  if (tiers & T_SLOW) {
    if (t_part_selected("matrix")) {
      TCase *tc = t_tcase(s, "large", true);
      tcase_add_loop_test(tc, bitonic_large, 0, (int)NLARGE);
    }
  }
}

int main(int argc, char **argv) { return t_main(argc, argv, "bitonic", add); }
