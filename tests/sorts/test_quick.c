/* test_quick.c: CLSORT_QUICK through clsort_sort, clsort_sort_pairs,
 * clsort_argsort and clsort_sort_buffer, against the stable reference of
 * sort_check.c. The quicksort is not stable: keys must match the
 * reference, payloads must each stay with their key. Every key type and
 * direction, keys / pairs / argsort with 4- and 8-byte payloads, the ten
 * distributions, sizes around the small-sort tile that ends the recursion,
 * the inputs that break naive quicksorts (equal keys, two values, sorted,
 * reverse, organ pipe), special values. Sizes follow the tile the library
 * reports, so the same tests cover the CPU shape and a GPU-style one. */
#define _POSIX_C_SOURCE 200809L
#include "sort_check.h"

#include <stdlib.h>

/* 16 work-items of 16 keys: small-sort tiles of 256 keys and flag tiles of
 * 256 keys, so that small inputs take many levels. */
#define TILED_TUNING "16:16:2"
#define TILED_TILE 256

static clsort_options quick(bool desc) {
  clsort_options o = {CLSORT_QUICK, desc ? CLSORT_DESCENDING : 0u, 0u, 0u};
  return o;
}

/* The largest segment the small sort finishes, for keys of type t with
 * `vs`-byte payloads: inputs up to it take one launch, larger ones levels
 * of partitioning. */
static size_t tile_of(clsort_type t, size_t vs) {
  return clsort__test_segment_capacity(T_CTX, t, vs);
}

/* Multi-item groups run as loops on a CPU: the tiled shape's tests stay
 * below this many keys. */
static size_t max_n(void) { return getenv("CLSORT_TUNING") ? 70000 : SIZE_MAX; }
static size_t capped(size_t n) { return n < max_n() ? n : max_n(); }

/* ------------------------------------------------------------ the matrix */
/* _i = type * D_COUNT + distribution: both directions in all five modes at
 * 1000, at a random size up to four tiles and one of 4 to 16 tiles; one
 * direction in three modes at a larger random size (10^6 for uniform u32
 * and u64 keys). */
T_TEST(quick_matrix) {
  clsort_type t = t_all_types[_i / D_COUNT];
  int dist = _i % D_COUNT;
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "quick_matrix");
  r.s[0] ^= (uint64_t)_i;
  size_t tile = tile_of(t, 0);
  size_t sizes[3] = {1000, t_rng_size(&r, 2, 4 * tile), t_rng_size(&r, 4 * tile, 16 * tile)};
  for (int s = 0; s < 3; s++)
    for (int desc = 0; desc < 2; desc++) {
      clsort_options o = quick(desc);
      t_check_dist(&r, t, dist, capped(sizes[s]), &o, MODES_ALL);
    }
  bool wide_type = _i / D_COUNT == 0 || _i / D_COUNT == 3; /* u32, u64 */
  size_t big = dist == D_UNIFORM && wide_type ? 1000003 : t_rng_size(&r, 16 * tile, 200000);
  clsort_options o = quick((_i / D_COUNT + dist) % 2);
  t_check_dist(&r, t, dist, capped(big), &o, (1u << M_KEYS) | (1u << M_PAIRS8) | (1u << M_ARG4));
}

/* ----------------------------------------------------------------- sizes */
/* Tiny sizes, 2^k +- 1, primes, and sizes around the tile and its
 * multiples (one launch, then one level whose children are all small,
 * then several levels); sorted, distinct. Returns the count. */
static size_t edge_sizes(size_t tile, size_t *out) {
  static const size_t fixed[] = {0,   1,   2,   3,    4,    5,    7,    8,     9,     15,
                                 16,  17,  31,  33,   63,   65,   127,  129,   255,   257,
                                 1021, 1025, 4099, 8191, 8193, 65521, 65537, 131071};
  const size_t around[] = {tile / 2 + 1, tile - 1,     tile,         tile + 1,    tile + 2,
                           2 * tile - 1, 2 * tile + 1, 3 * tile + 5, 4 * tile - 1, 4 * tile + 1,
                           8 * tile + 7, 16 * tile - 1, 33 * tile + 1};
  return t_edge_sizes(fixed, sizeof fixed / sizeof fixed[0], around,
                      sizeof around / sizeof around[0], max_n(), out);
}

static clsort_options edge_options(bool desc, bool few) {
  (void)few;
  return quick(desc);
}

/* _i = type: each mode at every edge size of its own tile, both directions
 * up to four tiles, alternating above; distinct keys or few distinct ones,
 * alternating. */
T_TEST(quick_edge_sizes) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "quick_edge_sizes");
  r.s[0] ^= (uint64_t)_i;
  t_check_edge_sweep(&r, t, tile_of, edge_sizes, edge_options);
}

/* ---------------------------------------------------- adversarial inputs */
enum {
  A_ZERO,     /* every key 0 */
  A_CONSTANT, /* every key the type's largest */
  A_TWO,      /* two values, the extremes */
  A_SORTED,   /* ascending, distinct */
  A_REVERSE,  /* descending, distinct */
  A_ORGAN,    /* ascending to the middle, then descending */
  A_SAWTOOTH, /* runs ascending over 0 .. 999 */
  A_ONE_OFF,  /* all equal but one key, the smallest, at the end */
  A_COUNT
};
static const char *const adversarial_names[A_COUNT] = {
    "all zero", "all the largest key", "two values", "sorted",
    "reverse",  "organ pipe",          "sawtooth",   "all equal but the last"};

static void gen_adversarial(t_rng *r, clsort_type t, int kind, void *keys, size_t n) {
  size_t es = clsort_type_size(t);
  uint64_t top = es == 4 ? 0xFFFFFFFFu : UINT64_MAX, mid = top / 2;
  for (size_t i = 0; i < n; i++) {
    uint64_t u; /* the key's place in the order */
    switch (kind) {
      case A_ZERO: u = t_order_key(t, &(uint64_t){0}, 0); break;
      case A_CONSTANT: u = top; break;
      case A_TWO: u = t_rng_below(r, 2) ? top : 0; break;
      case A_SORTED: u = mid + i; break;
      case A_REVERSE: u = mid - i; break;
      case A_ORGAN: u = mid + (i < n / 2 ? i : n - i); break;
      case A_SAWTOOTH: u = mid + i % 1000; break;
      default: u = i + 1 == n ? mid - 1 : mid; break;
    }
    t_put_bits(t, keys, i, t_from_order(t, u));
  }
}

/* _i = type * A_COUNT + input: both directions, all modes, at a size just
 * past one tile, at several tiles, and (default shape) at 10^5. */
T_TEST(quick_adversarial) {
  clsort_type t = t_all_types[_i / A_COUNT];
  int kind = _i % A_COUNT;
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "quick_adversarial");
  r.s[0] ^= (uint64_t)_i;
  size_t es = clsort_type_size(t), tile = tile_of(t, 0);
  const size_t sizes[] = {tile + 1, 9 * tile - 5, capped(100003)};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t n = sizes[s];
    unsigned char *keys = t_alloc(n * es);
    gen_adversarial(&r, t, kind, keys, n);
    for (int desc = 0; desc < 2; desc++) {
      clsort_options o = quick(desc);
      unsigned modes = s + 1 < sizeof sizes / sizeof sizes[0]
                           ? MODES_ALL
                           : desc ? (1u << M_KEYS) | (1u << M_ARG8) : 1u << M_PAIRS4;
      t_check_input(t, keys, n, &o, modes, adversarial_names[kind]);
    }
    t_release_now(keys);
  }
}

/* ------------------------------------------------ the CPU shape's levels */
/* CLSORT_QUICK_CPU=LEAVES:CHUNKS:SAMPLES:MIN_LEAF[:LEVELS] shrinks the CPU
 * shape's leaves to 512 keys and its chunks to 128, so that a few thousand
 * keys take many levels of splits over many chunks each: the places of
 * every chunk's keys, the lower bounds that finish equal keys, one-key
 * samples (the worst pivots), and the level limit that hands unfinished
 * segments to the leaves. The default shape only; the case is _i / 6 (its
 * labels name the distribution, the adversarial ones the setting too). */
static const char *const cpu_levels_cases[] = {"64:8:31:9", "64:3:1:9", "16:16:3:9:2"};

T_TEST(quick_cpu_levels) {
  clsort_type t = t_all_types[_i % 6];
  if (!clsort__cpu_shape(T_CTX) || t_skip_type(t)) return;
  const char *config = cpu_levels_cases[_i / 6];
  t_rng r;
  t_rng_init(&r, "quick_cpu_levels");
  r.s[0] ^= (uint64_t)_i;
  t_setenv("CLSORT_QUICK_CPU", config);
  size_t n = t_rng_size(&r, 3000, 12000), es = clsort_type_size(t);
  unsigned char *keys = t_alloc(n * es);
  for (int kind = 0; kind < A_COUNT; kind++) {
    gen_adversarial(&r, t, kind, keys, n);
    clsort_options o = quick(kind % 2);
    char what[96];
    snprintf(what, sizeof what, "%s, CLSORT_QUICK_CPU=%s", adversarial_names[kind], config);
    t_check_input(t, keys, n, &o, kind < 3 ? MODES_ALL : 1u << M_PAIRS8, what);
  }
  const int dists[] = {D_UNIFORM, D_FEW};
  for (int d = 0; d < 2; d++) {
    clsort_options o = quick(d != _i % 2);
    t_check_dist(&r, t, dists[d], n, &o, MODES_ALL);
  }
  t_release_now(keys);
  t_unsetenv("CLSORT_QUICK_CPU");
}

/* ------------------------------------------------------- special values */
static clsort_options specials_options(size_t s, bool desc) {
  (void)s;
  return quick(desc);
}

/* _i = type: the hand-written list once each, then many draws from it,
 * both directions, all modes; the keys must also follow the list's order. */
T_TEST(quick_special_values) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  size_t count; /* the list's length: each key once */
  (void)t_special_list(t, &count);
  t_rng r;
  t_rng_init(&r, "quick_special_values");
  r.s[0] ^= (uint64_t)_i;
  const size_t sizes[] = {count, 2001, tile_of(t, 0) + 1, capped(20011)};
  t_check_specials_sweep(&r, t, sizes, sizeof sizes / sizeof sizes[0], specials_options,
                         "quick, specials");
}

/* ---------------------------------------------------------- buffer form */
/* _i = type: the buffer form sorts the caller's buffers in place, keys
 * only and with 4- or 8-byte values, after a wait list, and returns an
 * event that completes; bytes past n stay, and keys-only leaves the values
 * buffer alone. */
T_TEST(quick_buffer_form) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "quick_buffer_form");
  r.s[0] ^= (uint64_t)_i;
  const size_t sizes[] = {1, 2, 33, tile_of(t, 4) + 1, 2 * tile_of(t, 8) - 1, capped(20011)};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int k = 0; k < 3; k++) {
      size_t n = sizes[s], vs = k ? 4 * (size_t)k : 8;
      bool with_values = k != 0, desc = (s + (size_t)k) % 2;
      clsort_options o = quick(desc);
      t_check_buffer_case(&r, t, n, k == 2 ? D_FEW : D_UNIFORM, &o, vs, with_values, false);
    }
}

/* ------------------------------------------------------------ refusals */
/* CLSORT_STABLE and bit ranges other than the key's full width are
 * CLSORT_ERROR_UNSUPPORTED, with the arrays as they were; the full width
 * named explicitly sorts; n == 0 succeeds. _i = type. */
T_TEST(quick_options) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "quick_options");
  r.s[0] ^= (uint64_t)_i;
  size_t n = 1000, es = clsort_type_size(t);
  unsigned bits = (unsigned)es * 8;
  const clsort_options refused[] = {
      {CLSORT_QUICK, CLSORT_STABLE, 0u, 0u},
      {CLSORT_QUICK, CLSORT_STABLE | CLSORT_DESCENDING, 0u, bits},
      {CLSORT_QUICK, 0u, 1u, 0u},
      {CLSORT_QUICK, CLSORT_DESCENDING, 0u, bits - 1},
  };
  unsigned char *keys = t_alloc(n * es), *work = t_alloc(n * es), *vals = t_alloc(n * 8),
                *vwork = t_alloc(n * 8);
  t_gen_keys(&r, t, D_UNIFORM, keys, n);
  t_fill_pair_values(vals, 8, n);
  for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++)
    for (int m = 0; m < M_COUNT; m++) {
      size_t vs = t_mode_payload[m];
      t_label("%s %s n=%zu quick, flags 0x%x, bits [%u, %u) is refused", t_mode_names[m],
              clsort_type_name(t), n, refused[k].flags, refused[k].begin_bit,
              refused[k].end_bit);
      memcpy(work, keys, n * es);
      memcpy(vwork, vals, n * 8);
      clsort_status st;
      if (m == M_KEYS)
        st = clsort_sort(T_CTX, t, work, n, &refused[k]);
      else if (!t_mode_is_argsort(m))
        st = clsort_sort_pairs(T_CTX, t, work, vwork, vs, n, &refused[k]);
      else
        st = clsort_argsort(T_CTX, t, work, vwork, vs, n, &refused[k]);
      ASSERT_STATUS(st, CLSORT_ERROR_UNSUPPORTED);
      ASSERT_EQ_ELEMS(work, keys, n, es);
      ASSERT_EQ_MEM(vwork, vals, n * 8);
    }
  for (int desc = 0; desc < 2; desc++) {
    clsort_options o = {CLSORT_QUICK, desc ? CLSORT_DESCENDING : 0u, 0u, bits};
    t_check_input(t, keys, n, &o, MODES_ALL, "quick, end_bit = the key's width");
  }
  t_label("%s n=0 quick", clsort_type_name(t));
  clsort_options o = quick(false);
  ASSERT_OK(clsort_sort(T_CTX, t, NULL, 0, &o));
  ASSERT_OK(clsort_sort_pairs(T_CTX, t, NULL, NULL, 4, 0, &o));
  ASSERT_OK(clsort_argsort(T_CTX, t, NULL, NULL, 8, 0, &o));
}

/* ------------------------------------------------------------ tile shape */
static void tiled_setup(void) { t_shape_setup(TILED_TUNING); }

/* The same shape with the two-way partition (CLSORT_QUICK_WAYS=2) in
 * place of the multi-pivot levels, which the "tiled" part runs. */
static void two_way_setup(void) {
  t_shape_setup(TILED_TUNING);
  t_setenv("CLSORT_QUICK_WAYS", "2");
}

/* The override took: a small-sort tile of 256 keys for every type. */
T_TEST(quick_tiled_shape) {
  for (int ti = 0; ti < 6; ti++)
    for (size_t vs = 0; vs <= 8; vs += 4) {
      clsort_type t = t_all_types[ti];
      t_label("CLSORT_TUNING=%s: the tile of %s keys with %zu-byte payloads", t_shape,
              clsort_type_name(t), vs);
      ASSERT_EQ_U64(tile_of(t, vs), TILED_TILE);
    }
}

/* ------------------------------------------------------------ slow tier */
/* From 2^22 keys, on the default shape. _i = case. */
static const struct {
  clsort_type t;
  int dist;
  size_t n;
  unsigned flags, modes;
} large_cases[] = {
    {CLSORT_U32, D_UNIFORM, (1u << 22) + 1, 0u,
     (1u << M_KEYS) | (1u << M_PAIRS4) | (1u << M_ARG8)},
    {CLSORT_U32, D_SORTED, 1u << 22, 0u, 1u << M_KEYS},
    {CLSORT_U32, D_ZERO, 1u << 22, CLSORT_DESCENDING, 1u << M_PAIRS4},
    {CLSORT_U64, D_GAUSSIAN, 1u << 22, CLSORT_DESCENDING, (1u << M_KEYS) | (1u << M_PAIRS8)},
    {CLSORT_F32, D_FEW, (1u << 22) - 1, CLSORT_DESCENDING, 1u << M_ARG4},
    {CLSORT_I64, D_STAGGERED, 4194319 /* prime */, 0u, 1u << M_KEYS},
};
#define NLARGE (sizeof large_cases / sizeof large_cases[0])

T_TEST(quick_large) {
  clsort_type t = large_cases[_i].t;
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "quick_large");
  r.s[0] ^= (uint64_t)_i;
  clsort_options o = {CLSORT_QUICK, large_cases[_i].flags, 0u, 0u};
  t_check_dist(&r, t, large_cases[_i].dist, large_cases[_i].n, &o, large_cases[_i].modes);
}

/* ------------------------------------------------------------------ main */
/* Parts: "matrix" (the default shape), "tiled" (CLSORT_TUNING=16:16:2, a
 * GPU shape: the multi-pivot levels) and "two-way" (that shape with the
 * two-way partition), so that meson runs them in parallel; no part runs
 * two. */
static void add_common(TCase *tc) {
  tcase_add_loop_test(tc, quick_edge_sizes, 0, 6);
  tcase_add_loop_test(tc, quick_adversarial, 0, 6 * A_COUNT);
  tcase_add_loop_test(tc, quick_special_values, 0, 6);
  tcase_add_loop_test(tc, quick_buffer_form, 0, 6);
}

static void add(Suite *s, unsigned tiers) {
  if (tiers & T_QUICK) {
    if (t_part_selected("matrix")) {
      TCase *tc = t_tcase(s, "matrix", true);
      tcase_add_loop_test(tc, quick_matrix, 0, 6 * D_COUNT);
      add_common(tc);
      tcase_add_loop_test(tc, quick_options, 0, 6);
      tcase_add_loop_test(tc, quick_cpu_levels, 0, 6 * 3);
    }
    if (t_part_selected("tiled")) {
      TCase *tc = t_shape_tcase(s, "tiled", tiled_setup);
      tcase_add_test(tc, quick_tiled_shape);
      add_common(tc);
    }
    if (t_part_selected("two-way")) {
      TCase *tc = t_shape_tcase(s, "two-way", two_way_setup);
      add_common(tc);
    }
  }
  if (tiers & T_SLOW) {
    if (t_part_selected("matrix")) {
      TCase *tc = t_tcase(s, "large", true);
      tcase_add_loop_test(tc, quick_large, 0, (int)NLARGE);
    }
  }
}

int main(int argc, char **argv) { return t_main(argc, argv, "quick", add); }
