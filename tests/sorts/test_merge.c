/* test_merge.c: CLSORT_MERGE through clsort_sort, clsort_sort_pairs,
 * clsort_argsort and clsort_sort_buffer, against the stable reference of
 * sort_check.c: every key type and direction, keys / pairs / argsort with
 * 4- and 8-byte payloads, the ten distributions, sizes around the runs the
 * tile sort forms and the pairs the merge passes join, special values, and
 * stability, with and without CLSORT_STABLE (the merge sort is always
 * stable). Sizes follow the run the library reports, so the same tests
 * cover the CPU shape and a GPU-style one (CLSORT_TUNING). */
#define _POSIX_C_SOURCE 200809L
#include "sort_check.h"

#include <stdlib.h>

/* 16 work-items of 16 keys: bitonic runs of 256 keys and merge tiles of
 * 256 outputs whatever the type, so small inputs take many passes. */
#define TILED_TUNING "16:16:2"
#define TILED_RUN 256

static clsort_options merge(bool desc, bool stable) {
  clsort_options o = {CLSORT_MERGE, (desc ? CLSORT_DESCENDING : 0u) | (stable ? CLSORT_STABLE : 0u),
                      0u, 0u};
  return o;
}

/* The sorted run the first launch forms for keys of type t with `vs`-byte
 * payloads: the stable bitonic tile when a payload can show the order of
 * equal keys, the plain one for keys alone. */
static size_t run_of(clsort_type t, size_t vs) {
  return clsort__test_segment_capacity_flags(T_CTX, t, vs, vs ? CLSORT_STABLE : 0u);
}

/* Multi-item groups run as loops on a CPU: the tiled shape's tests stay
 * below this many keys. */
static size_t max_n(void) { return getenv("CLSORT_TUNING") ? 70000 : SIZE_MAX; }
static size_t capped(size_t n) { return n < max_n() ? n : max_n(); }

/* ------------------------------------------------------------ the matrix */
/* _i = type * D_COUNT + distribution: both directions in all five modes at
 * 1000, at a random size up to four runs and one of 4 to 16 runs; one
 * direction in three modes at a larger random size (10^6 for uniform u32
 * and u64 keys). The STABLE flag alternates: with it every payload is
 * checked against the stable order, without it as a permutation. */
T_TEST(merge_matrix) {
  clsort_type t = t_all_types[_i / D_COUNT];
  int dist = _i % D_COUNT;
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "merge_matrix");
  r.s[0] ^= (uint64_t)_i;
  size_t run = run_of(t, 0);
  size_t sizes[3] = {1000, t_rng_size(&r, 2, 4 * run), t_rng_size(&r, 4 * run, 16 * run)};
  for (int s = 0; s < 3; s++)
    for (int desc = 0; desc < 2; desc++) {
      clsort_options o = merge(desc, (s + (size_t)desc + (size_t)dist) % 2);
      t_check_dist(&r, t, dist, capped(sizes[s]), &o, MODES_ALL);
    }
  bool wide_type = _i / D_COUNT == 0 || _i / D_COUNT == 3; /* u32, u64 */
  size_t big = dist == D_UNIFORM && wide_type ? 1000003 : t_rng_size(&r, 16 * run, 200000);
  clsort_options o = merge((_i / D_COUNT + dist) % 2, true);
  t_check_dist(&r, t, dist, capped(big), &o, (1u << M_KEYS) | (1u << M_PAIRS8) | (1u << M_ARG4));
}

/* ----------------------------------------------------------------- sizes */
/* Tiny sizes, 2^k +- 1, primes, and sizes around the run and its multiples
 * (one run alone, then one and more merge passes, the last pair short or
 * missing its right run); sorted, distinct. Returns the count. */
static size_t edge_sizes(size_t run, size_t *out) {
  static const size_t fixed[] = {0,   1,   2,   3,    4,    5,    7,    8,     9,     15,
                                 16,  17,  31,  33,   63,   65,   127,  129,   255,   257,
                                 1021, 1025, 4099, 8191, 8193, 65521, 65537, 131071};
  const size_t around[] = {run / 2 - 1,  run / 2 + 1, run - 1,     run,         run + 1,
                           2 * run - 1,  2 * run,     2 * run + 1, 3 * run,     3 * run + 5,
                           4 * run - 1,  4 * run + 1, 5 * run - 3, 8 * run + 7, 13 * run + 1,
                           16 * run - 1, 16 * run + 1};
  return t_edge_sizes(fixed, sizeof fixed / sizeof fixed[0], around,
                      sizeof around / sizeof around[0], max_n(), out);
}

static clsort_options edge_options(bool desc, bool few) {
  return merge(desc, few);
}

/* _i = type: each mode at every edge size of its own run, both directions
 * up to four runs, alternating above; distinct keys or few distinct ones,
 * and STABLE, alternating. */
T_TEST(merge_edge_sizes) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "merge_edge_sizes");
  r.s[0] ^= (uint64_t)_i;
  t_check_edge_sweep(&r, t, run_of, edge_sizes, edge_options);
}

/* ------------------------------------------------------------- stability */
/* The payloads of one sort without CLSORT_STABLE, in mode m, must still be
 * exactly the stable order: the merge sort is stable whatever the flags. */
static void check_stable_unflagged(clsort_type t, const void *keys, size_t n, bool desc, int m,
                                   const char *what) {
  size_t es = clsort_type_size(t), vs = t_mode_payload[m];
  bool indices = t_mode_is_argsort(m);
  clsort_options o = merge(desc, false);
  t_label("%s %s n=%zu merge%s without CLSORT_STABLE, %s, %zu-byte %s: stable order",
          t_mode_names[m], clsort_type_name(t), n, desc ? " descending" : "", what, vs,
          indices ? "indices" : "values");
  size_t *perm = t_ref_permutation(t, keys, n, &o);
  unsigned char *work = t_alloc(n * es + 1), *vals = t_alloc(n * vs + 1);
  memcpy(work, keys, n * es);
  if (indices) {
    ASSERT_OK(clsort_argsort(T_CTX, t, work, vals, vs, n, &o));
  } else {
    t_fill_pair_values(vals, vs, n);
    ASSERT_OK(clsort_sort_pairs(T_CTX, t, work, vals, vs, n, &o));
    t_check_sorted(t, work, n, &o);
  }
  t_check_payload_exact(vals, vs, perm, n, indices);
  t_release_now(vals);
  t_release_now(work);
  t_release_now(perm);
}

/* Two, three or sixteen distinct keys (the extremes among them): the
 * payloads' whole order is decided by stability, in both directions, with
 * and without the flag. Sizes: within one run, just past it, many runs.
 * _i = type. */
T_TEST(merge_stability) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "merge_stability");
  r.s[0] ^= (uint64_t)_i;
  size_t run = run_of(t, 4), es = clsort_type_size(t);
  const size_t sizes[] = {100, run + 7, 9 * run - 3, capped(30011)};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t n = sizes[s];
    unsigned char *keys = t_alloc(n * es);
    for (int variant = 0; variant < 3; variant++) {
      if (variant == 2) {
        t_gen_keys(&r, t, D_FEW, keys, n);
      } else {
        uint64_t v[3] = {t_from_order(t, 0), t_from_order(t, es == 4 ? 0xFFFFFFFFu : UINT64_MAX),
                         t_rng_next(&r)};
        for (size_t i = 0; i < n; i++)
          t_put_bits(t, keys, i, v[t_rng_below(&r, 2u + (unsigned)variant)]);
      }
      const char *what = variant == 2 ? "16 values" : "2-3 values";
      for (int desc = 0; desc < 2; desc++) {
        clsort_options o = merge(desc, true);
        t_check_input(t, keys, n, &o, MODES_PAYLOAD, what);
        for (int m = M_PAIRS4; m < M_COUNT; m++)
          if ((m + variant + desc) % 2 == 0) check_stable_unflagged(t, keys, n, desc, m, what);
      }
    }
    t_release_now(keys);
  }
}

/* ------------------------------------------------------- special values */
static clsort_options specials_options(size_t s, bool desc) {
  return merge(desc, s % 2);
}

/* _i = type: the hand-written list once each, then many draws from it,
 * both directions, all modes; the keys must also follow the list's order. */
T_TEST(merge_special_values) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  size_t count; /* the list's length: each key once */
  (void)t_special_list(t, &count);
  t_rng r;
  t_rng_init(&r, "merge_special_values");
  r.s[0] ^= (uint64_t)_i;
  const size_t sizes[] = {count, 2001, run_of(t, 0) + 1, capped(20011)};
  t_check_specials_sweep(&r, t, sizes, sizeof sizes / sizeof sizes[0], specials_options,
                         "merge, specials");
}

/* ---------------------------------------------------------- buffer form */
/* _i = type: the buffer form sorts the caller's buffers in place, keys
 * only and with 4- or 8-byte values, after a wait list, and returns an
 * event that completes; values follow the stable order, bytes past n stay,
 * and keys-only leaves the values buffer alone. */
T_TEST(merge_buffer_form) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "merge_buffer_form");
  r.s[0] ^= (uint64_t)_i;
  const size_t sizes[] = {1, 2, 33, run_of(t, 4) + 1, 2 * run_of(t, 8) - 1, capped(20011)};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int k = 0; k < 3; k++) {
      size_t n = sizes[s], vs = k ? 4 * (size_t)k : 8;
      bool with_values = k != 0, desc = (s + (size_t)k) % 2;
      clsort_options o = merge(desc, false);
      t_check_buffer_case(&r, t, n, k == 2 ? D_FEW : D_UNIFORM, &o, vs, with_values, true);
    }
}

/* ------------------------------------------------- the CPU shape's pairs */
/* The CPU shape sorts payloads through a second pair of scratch where it
 * can (merge_cpu.c), and through the output and one pair where it cannot:
 * the matrix runs the first way, this the second
 * (CLSORT_MERGE_CPU_SPARE=0), at sizes that take no merge pass (one block
 * of 2^13), one, and an even and odd count of them, the stable order
 * checked in every payload mode. _i = type. */
T_TEST(merge_cpu_without_spare_pair) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t) || getenv("CLSORT_TUNING")) return;
  t_rng r;
  t_rng_init(&r, "merge_cpu_without_spare_pair");
  r.s[0] ^= (uint64_t)_i;
  t_setenv("CLSORT_MERGE_CPU_SPARE", "0");
  const size_t sizes[] = {8191, 8193, 20011, 40009, 70001};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    clsort_options o = merge(s % 2, true);
    t_check_dist(&r, t, s % 2 ? D_FEW : D_UNIFORM, sizes[s], &o, MODES_PAYLOAD);
  }
}

/* ------------------------------------------------------------ refusals */
/* A bit range other than the key's full width is CLSORT_ERROR_UNSUPPORTED
 * (the merge sort compares whole keys), with the arrays as they were; the
 * full width named explicitly sorts. CLSORT_STABLE is accepted. n == 0
 * succeeds. _i = type. */
T_TEST(merge_options) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "merge_options");
  r.s[0] ^= (uint64_t)_i;
  size_t n = 1000, es = clsort_type_size(t);
  unsigned bits = (unsigned)es * 8;
  const clsort_options refused[] = {
      {CLSORT_MERGE, 0u, 1u, 0u},
      {CLSORT_MERGE, CLSORT_STABLE, 0u, bits - 1},
      {CLSORT_MERGE, CLSORT_DESCENDING, bits / 2, bits},
  };
  unsigned char *keys = t_alloc(n * es), *work = t_alloc(n * es), *vals = t_alloc(n * 8),
                *vwork = t_alloc(n * 8);
  t_gen_keys(&r, t, D_UNIFORM, keys, n);
  t_fill_pair_values(vals, 8, n);
  for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++)
    for (int m = 0; m < M_COUNT; m++) {
      size_t vs = t_mode_payload[m];
      t_label("%s %s n=%zu merge, bits [%u, %u) is refused", t_mode_names[m], clsort_type_name(t),
              n, refused[k].begin_bit, refused[k].end_bit);
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
    clsort_options o = {CLSORT_MERGE, desc ? CLSORT_DESCENDING | CLSORT_STABLE : 0u, 0u, bits};
    t_check_input(t, keys, n, &o, MODES_ALL, "merge, end_bit = the key's width");
  }
  t_label("%s n=0 merge", clsort_type_name(t));
  clsort_options o = merge(false, true);
  ASSERT_OK(clsort_sort(T_CTX, t, NULL, 0, &o));
  ASSERT_OK(clsort_sort_pairs(T_CTX, t, NULL, NULL, 4, 0, &o));
  ASSERT_OK(clsort_argsort(T_CTX, t, NULL, NULL, 8, 0, &o));
}

/* ------------------------------------------------------------ tile shape */
static void tiled_setup(void) { t_shape_setup(TILED_TUNING); }

/* The override took: runs of 256 keys for every type and payload. */
T_TEST(merge_tiled_shape) {
  for (int ti = 0; ti < 6; ti++)
    for (size_t vs = 0; vs <= 8; vs += 4) {
      clsort_type t = t_all_types[ti];
      t_label("CLSORT_TUNING=%s: the run of %s keys with %zu-byte payloads", t_shape,
              clsort_type_name(t), vs);
      ASSERT_EQ_U64(run_of(t, vs), TILED_RUN);
    }
}

/* The merge passes' co-ranks, each way forced (merge_sort.c picks by the
 * tile count, and the tests' sizes would reach only the fused one): the
 * search inside the merge, merge_partition's probes, and one binary search
 * a tile. Stable, all modes, both directions; ties (few distinct keys)
 * decide co-ranks too. _i = way x 2 + type (u32, i64). */
T_TEST(merge_corank_ways) {
  static const char *const ways[] = {"fused", "probe", "search"};
  clsort_type t = _i % 2 ? CLSORT_I64 : CLSORT_U32;
  if (t_skip_type(t)) return;
  t_setenv("CLSORT_MERGE_PARTITION", ways[_i / 2]);
  t_label("CLSORT_MERGE_PARTITION=%s", ways[_i / 2]);
  t_rng r;
  t_rng_init(&r, "merge_corank_ways");
  r.s[0] ^= (uint64_t)_i;
  const size_t sizes[] = {run_of(t, 0) + 7, 20011, capped(65537)};
  static const int dists[] = {D_UNIFORM, D_FEW, D_SORTED};
  for (int k = 0; k < 3; k++) {
    clsort_options o = merge(k % 2 == 1, true);
    t_check_dist(&r, t, dists[k], sizes[k], &o, MODES_ALL);
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
    {CLSORT_U64, D_GAUSSIAN, 1u << 22, CLSORT_DESCENDING | CLSORT_STABLE,
     (1u << M_KEYS) | (1u << M_PAIRS8)},
    {CLSORT_F32, D_FEW, (1u << 22) - 1, CLSORT_DESCENDING | CLSORT_STABLE, 1u << M_PAIRS4},
    {CLSORT_I64, D_STAGGERED, 4194319 /* prime */, CLSORT_STABLE, 1u << M_ARG4},
};
#define NLARGE (sizeof large_cases / sizeof large_cases[0])

T_TEST(merge_large) {
  clsort_type t = large_cases[_i].t;
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "merge_large");
  r.s[0] ^= (uint64_t)_i;
  clsort_options o = {CLSORT_MERGE, large_cases[_i].flags, 0u, 0u};
  t_check_dist(&r, t, large_cases[_i].dist, large_cases[_i].n, &o, large_cases[_i].modes);
}

/* ------------------------------------------------------------------ main */
/* Parts: "matrix" (the default shape) and "tiled" (CLSORT_TUNING=16:16:2),
 * so that meson runs them in parallel; no part runs both. */
static void add_common(TCase *tc) {
  tcase_add_loop_test(tc, merge_edge_sizes, 0, 6);
  tcase_add_loop_test(tc, merge_stability, 0, 6);
  tcase_add_loop_test(tc, merge_special_values, 0, 6);
  tcase_add_loop_test(tc, merge_buffer_form, 0, 6);
}

static void add(Suite *s, unsigned tiers) {
  if (tiers & T_QUICK) {
    if (t_part_selected("matrix")) {
      TCase *tc = t_tcase(s, "matrix", true);
      tcase_add_loop_test(tc, merge_matrix, 0, 6 * D_COUNT);
      add_common(tc);
      tcase_add_loop_test(tc, merge_options, 0, 6);
      tcase_add_loop_test(tc, merge_cpu_without_spare_pair, 0, 6);
    }
    if (t_part_selected("tiled")) {
      TCase *tc = t_shape_tcase(s, "tiled", tiled_setup);
      tcase_add_test(tc, merge_tiled_shape);
      tcase_add_loop_test(tc, merge_corank_ways, 0, 6);
      add_common(tc);
    }
  }
  if (tiers & T_SLOW) {
    if (t_part_selected("matrix")) {
      TCase *tc = t_tcase(s, "large", true);
      tcase_add_loop_test(tc, merge_large, 0, (int)NLARGE);
    }
  }
}

int main(int argc, char **argv) { return t_main(argc, argv, "merge", add); }
