/* test_topk.c: clsort_top_k, clsort_select and their buffer forms against
 * the stable CPU reference: the first k of the stable sorted order (keys,
 * and input positions: among equal keys at the boundary the lowest
 * positions win), and the key at position k. Every key type, both
 * directions, 4- and 8-byte indices or none, k = 0, 1, n - 1, n and
 * around the switch to the full sort, few distinct keys (duplicates at the
 * boundary), the ten distributions; the sampled path (one pass between
 * thresholds from a sample, its counts read right after the pass or,
 * after sorting its padded buffer, at the end: CLSORT_TOPK_CHECK): that
 * it runs where it should, and that its misses (a threshold too low, too
 * many candidates, forced through CLSORT_TOPK) and adversarial keys fall
 * back to the radix select with exact results; the keys where callers put
 * them (read in place on a CPU device), and the outputs (written in place
 * on a CPU device from their origins, nothing staged; staged a byte off
 * their elements), by every way top-k writes them; then each error path
 * with its status and every array untouched. */
#define _POSIX_C_SOURCE 200809L
#include "api/testing.h"
#include "sorts/sort_check.h"

#include <stdlib.h>

static clsort_options opts(bool desc) {
  clsort_options o = {CLSORT_AUTO, desc ? CLSORT_DESCENDING : 0u, 0u, 0u};
  return o;
}

/* One top-k of `keys` (host form, or buffer form), checked: the first k
 * keys and positions of the stable order, nothing past k, keys intact. */
static void check_top_k(clsort_type t, const void *keys, size_t n, size_t k, size_t is,
                        const clsort_options *o, const size_t *perm, bool buffer) {
  size_t ks = clsort_type_size(t);
  t_label("%s top_k%s n=%zu k=%zu index_size=%zu %s", clsort_type_name(t), buffer ? "_buffer" : "",
          n, k, is, t_opt_name(o));
  char *out = t_alloc((k + GUARD) * ks), *idx = t_alloc((k + GUARD) * 8);
  char *copy = t_alloc(n * ks + 1), *want = t_alloc(k * ks + 1);
  memcpy(copy, keys, n * ks);
  t_poison(out, (k + GUARD) * ks);
  t_poison(idx, (k + GUARD) * 8);
  clsort_status st;
  if (!buffer) {
    st = clsort_top_k(T_CTX, t, keys, n, k, out, is ? idx : NULL, is, o);
  } else {
    cl_mem bk = t_buffer_padded(keys, n * ks), bo = t_buffer_padded(NULL, (k + GUARD) * ks);
    cl_mem bi = t_buffer_padded(NULL, (k + GUARD) * 8);
    cl_event ev = NULL;
    st = clsort_top_k_buffer(T_CTX, t, bk, n, k, bo, is ? bi : NULL, is, o, 0, NULL, &ev);
    if (st == CLSORT_SUCCESS) {
      ASSERT_EQ_U64(clWaitForEvents(1, &ev), CL_SUCCESS);
      clReleaseEvent(ev);
      t_read_into(bo, out, (k + GUARD) * ks);
      t_read_into(bi, idx, (k + GUARD) * 8);
    }
  }
  if (st != CLSORT_SUCCESS)
    ck_abort_msg("%s: returned %s: %s", t_where(), t_status_name(st), t_last_error());
  char msg[256];
  t_gather(keys, perm, k, ks, want);
  if (!t_elems_equal(out, want, k, ks, msg, sizeof msg))
    ck_abort_msg("%s: keys: %s", t_where(), msg);
  if (!t_poison_intact(out, k * ks, (k + GUARD) * ks, msg, sizeof msg))
    ck_abort_msg("%s: past k keys: %s", t_where(), msg);
  if (is) {
    t_check_payload_exact(idx, is, perm, k, true);
    if (!t_poison_intact(idx, k * is, (k + GUARD) * is, msg, sizeof msg))
      ck_abort_msg("%s: past k indices: %s", t_where(), msg);
  }
  ASSERT_TRUE(memcmp(keys, copy, n * ks) == 0);
}

/* One select, checked against the key at position k of the stable order. */
static void check_select(clsort_type t, const void *keys, size_t n, size_t k,
                         const clsort_options *o, const size_t *perm, bool buffer) {
  size_t ks = clsort_type_size(t);
  t_label("%s select%s n=%zu k=%zu %s", clsort_type_name(t), buffer ? "_buffer" : "", n, k,
          t_opt_name(o));
  unsigned char got[16];
  t_poison(got, sizeof got);
  clsort_status st;
  if (!buffer) {
    st = clsort_select(T_CTX, t, keys, n, k, got, o);
  } else {
    cl_mem bk = t_buffer_padded(keys, n * ks), bo = t_buffer_padded(NULL, 16);
    st = clsort_select_buffer(T_CTX, t, bk, n, k, bo, o, 0, NULL, NULL);
    if (st == CLSORT_SUCCESS) t_read_into(bo, got, 16);
  }
  if (st != CLSORT_SUCCESS)
    ck_abort_msg("%s: returned %s: %s", t_where(), t_status_name(st), t_last_error());
  ASSERT_EQ_U64(t_get_bits(t, got, 0), t_get_bits(t, keys, perm[k]));
  char msg[256];
  if (!t_poison_intact(got, ks, sizeof got, msg, sizeof msg))
    ck_abort_msg("%s: past the key: %s", t_where(), msg);
}

/* The k values worth checking for n: the ends, around the switch to the
 * full sort (n / 4), a random small one. */
static size_t ks_for(t_rng *r, size_t n, size_t *out) {
  size_t c = 0, cand[7] = {0, 1, n - 1, n, n / 4 - 1, n / 4, 1 + t_rng_below(r, n / 8 + 1)};
  for (int i = 0; i < 7; i++) {
    if (cand[i] > n) continue;
    bool seen = false;
    for (size_t j = 0; j < c; j++) seen = seen || out[j] == cand[i];
    if (!seen) out[c++] = cand[i];
  }
  return c;
}

/* _i = type: sizes from 1 up, every distribution, every k of ks_for, the
 * index sizes and directions cycling, some through the buffer forms. */
T_TEST(topk_types) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "topk_types");
  r.s[0] ^= (uint64_t)_i;
  static const size_t index_sizes[3] = {4, 8, 0};
  size_t ks = clsort_type_size(t), step = 0;
  for (int dist = 0; dist < D_COUNT; dist++) {
    size_t sizes[3] = {1 + (size_t)dist, 1000 + (size_t)dist * 77, t_rng_size(&r, 2000, 40000)};
    for (int s = 0; s < 3; s++) {
      size_t n = sizes[s];
      clsort_options o = opts((dist + s) % 2);
      void *keys = t_alloc(n * ks);
      t_gen_keys(&r, t, dist, keys, n);
      size_t *perm = t_ref_permutation(t, keys, n, &o);
      size_t kk[7], nk = ks_for(&r, n, kk);
      for (size_t j = 0; j < nk; j++, step++) {
        /* The sampled path's counts read right after the filter or after
         * the sort of its padded buffer, in turn (top_k_sample.c). */
        setenv("CLSORT_TOPK_CHECK", step % 2 ? "late" : "early", 1);
        check_top_k(t, keys, n, kk[j], index_sizes[step % 3], &o, perm, step % 5 == 2);
        if (kk[j] < n) check_select(t, keys, n, kk[j], &o, perm, step % 5 == 3);
      }
    }
  }
  unsetenv("CLSORT_TOPK_CHECK");
}

/* _i: u32 ascending, f64 descending. The keys where callers put them,
 * which a CPU device reads in place (every kernel that reads them adds
 * their origin): against an inaccessible page after them and before them
 * (a read past either end faults), and one element past t_alloc's
 * offset; through each path: a small k, the sampled path, its miss and
 * the radix select's compaction (CLSORT_TOPK=low), the full sort of a
 * large k, and select sampled and by the radix select alone. */
T_TEST(topk_layouts) {
  clsort_type t = _i == 0 ? CLSORT_U32 : CLSORT_F64;
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "topk_layouts");
  r.s[0] ^= (uint64_t)_i;
  size_t ks = clsort_type_size(t), n = 100003;
  clsort_options o = opts(_i == 1);
  char *src = t_alloc(n * ks);
  t_gen_keys(&r, t, D_UNIFORM, src, n);
  size_t *perm = t_ref_permutation(t, src, n, &o);
  for (int layout = 0; layout < 3; layout++) {
    char *keys = layout < 2 ? t_guarded(n * ks, layout == 1) : (char *)t_alloc((n + 1) * ks) + ks;
    memcpy(keys, src, n * ks);
    check_top_k(t, keys, n, 5, 4, &o, perm, false);
    check_top_k(t, keys, n, 1000, 8, &o, perm, false);
    check_top_k(t, keys, n, n / 2, 4, &o, perm, false);
    check_select(t, keys, n, n / 3, &o, perm, false);
    setenv("CLSORT_TOPK", "low", 1);
    check_top_k(t, keys, n, 1000, 4, &o, perm, false);
    setenv("CLSORT_TOPK", "radix", 1);
    check_select(t, keys, n, n / 3, &o, perm, false);
    check_top_k(t, keys, n, 3000, 0, &o, perm, false);
    unsetenv("CLSORT_TOPK");
  }
}

/* Many keys equal to the k-th, so the positions that win among them are
 * what the test sees: one key value everywhere but a few smaller and
 * larger ones, both directions, k inside the run of equal keys. */
T_TEST(topk_boundary_ties) {
  clsort_type t = _i == 0 ? CLSORT_U32 : CLSORT_I64;
  t_rng r;
  t_rng_init(&r, "topk_ties");
  size_t n = 50000, ks = clsort_type_size(t);
  void *keys = t_alloc(n * ks);
  for (size_t i = 0; i < n; i++) {
    uint64_t v = i % 97 == 0 ? 5 : (i % 89 == 0 ? 9 : 7);
    t_put_bits(t, keys, i, t_from_order(t, v + ((uint64_t)1 << (ks * 8 - 1))));
  }
  for (int desc = 0; desc < 2; desc++) {
    clsort_options o = opts(desc);
    size_t *perm = t_ref_permutation(t, keys, n, &o);
    size_t kk[3] = {600, 1000, 12000};
    for (int j = 0; j < 3; j++) {
      check_top_k(t, keys, n, kk[j], j == 1 ? 8 : 4, &o, perm, j == 2);
      check_select(t, keys, n, kk[j], &o, perm, false);
    }
  }
}

/* ------------------------------------------------------ sampled path */
enum { PATH_RADIX = 1, PATH_SAMPLED = 2, PATH_FALLBACK = 3, PATH_SORT_ALL = 4, PATH_SMALL = 5 };

/* The path the last call took, against `want` (0: any). */
static void expect_path(int want) {
  int got = clsort__test_top_k_path();
  if (want && got != want) ck_abort_msg("%s: took path %d, expected %d", t_where(), got, want);
}

/* Top-k of each k and select of each rank on keys of distribution
 * `dist`, checked, each call's path against want_top / want_select (0:
 * any); the index size and the form cycle (with `buffers` every top-k
 * through the buffer form). */
static void sampled_keys_case(clsort_type t, const void *keys, size_t n, bool desc,
                              const size_t *kk, size_t nk, int want_top, const size_t *ranks,
                              size_t nr, int want_select, bool buffers) {
  clsort_options o = opts(desc);
  size_t *perm = t_ref_permutation(t, keys, n, &o);
  static const size_t index_sizes[3] = {4, 0, 8};
  for (size_t j = 0; j < nk; j++) {
    check_top_k(t, keys, n, kk[j], index_sizes[j % 3], &o, perm, buffers || j % 2 == 1);
    expect_path(want_top);
  }
  for (size_t j = 0; j < nr; j++) {
    check_select(t, keys, n, ranks[j], &o, perm, j % 2 == 0);
    expect_path(want_select);
  }
}

static void sampled_case(clsort_type t, int dist, size_t n, bool desc, const size_t *kk, size_t nk,
                         int want_top, const size_t *ranks, size_t nr, int want_select) {
  t_rng r;
  t_rng_init(&r, "topk_sampled");
  r.s[0] ^= (uint64_t)t * 31 + (uint64_t)dist;
  void *keys = t_alloc(n * clsort_type_size(t));
  t_gen_keys(&r, t, dist, keys, n);
  sampled_keys_case(t, keys, n, desc, kk, nk, want_top, ranks, nr, want_select, false);
}

/* Keys in random order among n / 8 values, about 8 copies of each: ties
 * at the k-th that the path itself must settle by position (late:
 * topk_final among the keys it gathers, topk_settle after the sort by
 * key; early: the candidates' sorts). `buffers` as sampled_keys_case's. */
static void sampled_duplicates(clsort_type t, size_t n, bool desc, const size_t *kk, size_t nk,
                               bool buffers) {
  t_rng r;
  t_rng_init(&r, "topk_duplicates");
  size_t ks = clsort_type_size(t);
  void *keys = t_alloc(n * ks);
  for (size_t i = 0; i < n; i++)
    t_put_bits(t, keys, i,
               t_from_order(t, t_rng_below(&r, n / 8) + ((uint64_t)1 << (ks * 8 - 1))));
  sampled_keys_case(t, keys, n, desc, kk, nk, PATH_SAMPLED, NULL, 0, 0, buffers);
}

/* _i = type (u32, f64: the kernels differ by key size). Keys in random
 * order take the sampled path at these sizes; the knobs make it miss.
 * Top-k reads the path's counts early (after the filter) and late (after
 * sorting and copying out its padded buffer, then overwritten by the
 * fallback on a miss): both, in either shape (CLSORT_TOPK_CHECK; select
 * always reads early). */
T_TEST(topk_sampled) {
  clsort_type t = _i == 0 ? CLSORT_U32 : CLSORT_F64;
  if (t_skip_type(t)) return;
  size_t n = 1u << 16;
  size_t kk[3] = {1, 100, 1000}, ranks[4] = {7, 6000, n - 6000, n - 1};
  for (int late = 0; late < 2; late++) {
    setenv("CLSORT_TOPK_CHECK", late ? "late" : "early", 1);
    /* The selects once: they read early either way. */
    size_t nr = late ? 0 : 4, nr_miss = late ? 0 : 2;
    /* "sampled": select samples in the GPU shape too, where it takes the
     * radix select by default. */
    setenv("CLSORT_TOPK", "sampled", 1);
    sampled_case(t, D_UNIFORM, n, _i == late, kk, 3, PATH_SAMPLED, ranks, nr, PATH_SAMPLED);
    size_t k_dup[3] = {100, 500, 2000};
    sampled_duplicates(t, n, _i != late, k_dup, 3, false);
    if (late) {
      /* The late read's other ways (benchmark knobs): k = 100 sorted and
       * settled (topk_final off), k = 2000 by the two sorts. Through the
       * buffer forms: a CPU device's host outputs, used in place, take
       * the late read through topk_final only (top_k.c). */
      setenv("CLSORT_TOPK_FINAL", "0", 1);
      sampled_duplicates(t, n, _i == 0, k_dup, 1, true);
      unsetenv("CLSORT_TOPK_FINAL");
      setenv("CLSORT_TOPK_SETTLE", "0", 1);
      sampled_duplicates(t, n, _i == 0, k_dup + 2, 1, true);
      unsetenv("CLSORT_TOPK_SETTLE");
      /* The sample drawn by the thresholds' group (GPU shapes). */
      setenv("CLSORT_TOPK_DRAW", "inside", 1);
      sampled_duplicates(t, n, _i != 0, k_dup, 2, false);
      unsetenv("CLSORT_TOPK_DRAW");
    }
    /* Thresholds too low. */
    size_t k_low[1] = {1000};
    setenv("CLSORT_TOPK", "low", 1);
    sampled_case(t, D_UNIFORM, n, late, k_low, 1, PATH_FALLBACK, ranks, nr_miss, PATH_FALLBACK);
    /* Too many candidates: a buffer of one. */
    setenv("CLSORT_TOPK", "tight", 1);
    sampled_case(t, D_UNIFORM, n, !late, kk + 1, 2, PATH_FALLBACK, ranks, nr_miss,
                 PATH_FALLBACK);
  }
  unsetenv("CLSORT_TOPK_CHECK");
  setenv("CLSORT_TOPK", "radix", 1);
  sampled_case(t, D_UNIFORM, n, false, kk, 1, PATH_RADIX, ranks, 1, PATH_RADIX);
  unsetenv("CLSORT_TOPK");
}

/* Adversarial keys at the sampled path's sizes, exact whichever path:
 * every key equal (the bracket holds them all: it overflows), sorted
 * both ways (the strata give exact quantiles), few distinct values with
 * the specials (NaNs, infinities, zeros of both signs for floats), a
 * narrow range; both directions. */
T_TEST(topk_sampled_adversarial) {
  clsort_type t = _i == 0 ? CLSORT_U32 : CLSORT_F64;
  if (t_skip_type(t)) return;
  unsetenv("CLSORT_TOPK"); /* in case a failed test left it */
  unsetenv("CLSORT_TOPK_CHECK");
  size_t n = 1u << 16;
  /* k from 17: below it the path of a small k runs (topk_small_*). */
  size_t kk[3] = {17, 100, 3000}, ranks[3] = {0, 5000, n - 1};
  sampled_case(t, D_ZERO, n, false, kk, 3, PATH_FALLBACK, ranks, 2, 0);
  static const int dists[4] = {D_SORTED, D_REVERSE, D_FEW, D_NARROW};
  for (int d = 0; d < 4; d++)
    for (int desc = 0; desc < 2; desc++) sampled_case(t, dists[d], n, desc, kk, 3, 0, ranks, 3, 0);
}

/* ------------------------------------------------------ small k path */
/* _i = type. The path of a small k (one read of the keys: a list of the
 * k smallest per work-item, merged per group, then across groups), on
 * sizes that leave work-items, and a last group, fewer keys than k (n = 1,
 * 2, 5, 17; 769: three full groups of 256 and one key in the CPU shape and
 * in the GPU shape of CLSORT_TUNING=16:16:2), and sizes of no round
 * length; random keys, few distinct values with the specials (NaNs, zeros
 * of both signs) so that ties at the boundary decide by position, all keys
 * equal, sorted both ways (a key to insert at each step); k = 1 (the
 * arg-min), 2, 3, 8, 16 (list lengths 1, 2, 4, 8, 16) and 17, which takes
 * another path (in the GPU shape 1, 8, 16, 17); both directions, index
 * sizes and forms cycling.
 * CLSORT_TOPK=small forces the path up to k = 16, nosmall keeps it off. */
T_TEST(topk_small) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "topk_small");
  r.s[0] ^= (uint64_t)_i;
  static const size_t sizes[6] = {1, 2, 5, 17, 769, 70001};
  /* The GPU shape compiles each list length for seconds: there the
   * lengths 1, 8 (its default limit) and 16. */
  bool gpu = !clsort__cpu_shape(T_CTX);
  static const size_t all_k[6] = {1, 2, 3, 8, 16, 17}, gpu_k[6] = {1, 8, 16, 17, 17, 17};
  const size_t *kk = gpu ? gpu_k : all_k;
  static const int dists[5] = {D_UNIFORM, D_FEW, D_ZERO, D_REVERSE, D_SORTED};
  static const size_t index_sizes[3] = {4, 0, 8};
  size_t ks = clsort_type_size(t), step = 0;
  setenv("CLSORT_TOPK", "small", 1);
  for (int s = 0; s < 6; s++) {
    size_t n = sizes[s];
    void *keys = t_alloc(n * ks);
    for (int d = 0; d < 5; d++) {
      /* The small sizes with random keys only. */
      if (n < 700 && d > 1) continue;
      t_gen_keys(&r, t, dists[d], keys, n);
      clsort_options o = opts((s + d) % 2);
      size_t *perm = t_ref_permutation(t, keys, n, &o);
      for (int j = 0; j < 6 && kk[j] <= n && (j == 0 || kk[j] != kk[j - 1]); j++, step++) {
        check_top_k(t, keys, n, kk[j], index_sizes[step % 3], &o, perm, step % 4 == 1);
        int got = clsort__test_top_k_path();
        if ((got == PATH_SMALL) != (kk[j] <= 16))
          ck_abort_msg("%s: took path %d", t_where(), got);
      }
    }
  }
  /* The knob that keeps the path off. */
  size_t n = 769;
  void *keys = t_alloc(n * ks);
  t_gen_keys(&r, t, D_UNIFORM, keys, n);
  clsort_options o = opts(false);
  size_t *perm = t_ref_permutation(t, keys, n, &o);
  setenv("CLSORT_TOPK", "nosmall", 1);
  check_top_k(t, keys, n, 1, 4, &o, perm, false);
  ASSERT_TRUE(clsort__test_top_k_path() != PATH_SMALL);
  unsetenv("CLSORT_TOPK");
}

/* The path of a small k reads nothing back: the buffer form gated by a
 * user event returns at once, its event completes only after the gate,
 * and the result is then exact (k = 1, keys and 8-byte indices). */
T_TEST(topk_small_waits_for_wait_list) {
  unsetenv("CLSORT_TOPK");
  clsort_type t = CLSORT_U32;
  size_t n = 50001, k = 1;
  t_rng r;
  t_rng_init(&r, "topk_small_gate");
  t_label("u32 top_k_buffer n=%zu k=%zu gated by a user event", n, k);
  uint32_t *keys = t_alloc(n * 4);
  t_gen_keys(&r, t, D_UNIFORM, keys, n);
  clsort_options o = opts(false);
  size_t *perm = t_ref_permutation(t, keys, n, &o);
  cl_mem bk = t_buffer(n * 4, keys), bo = t_buffer(4, NULL), bi = t_buffer(8, NULL);
  cl_event gate = t_gate(), done = NULL;
  t_watchdog *w = t_watchdog_start(gate, 20.0);
  clsort_status st = clsort_top_k_buffer(T_CTX, t, bk, n, k, bo, bi, 8, NULL, 1, &gate, &done);
  if (t_watchdog_stop(w)) ck_abort_msg("%s: top-k blocked on its own wait list", t_where());
  ASSERT_OK(st);
  ASSERT_EQ_U64(clsort__test_top_k_path(), PATH_SMALL);
  t_defer_event(done);
  t_open_gate_checked(gate, done);
  ASSERT_CL(clWaitForEvents(1, &done));
  uint32_t *got = t_read_buffer(bo, 4);
  uint64_t *idx = t_read_buffer(bi, 8);
  ASSERT_EQ_U64(got[0], keys[perm[0]]);
  ASSERT_EQ_U64(idx[0], perm[0]);
}

/* ------------------------------------------------- outputs in place */
/* Each way top-k writes its outputs, forced by the knobs (unset: NULL)
 * with a k that takes it at n = OUT_N, and the path it must report: the
 * path of a small k (topk_small_final), the sampled path read early (its
 * candidates sorted, then copied out), read late with topk_final (k up to
 * 512), with topk_settle (indices; keys alone sort and copy), and with the
 * two sorts and copies (CLSORT_TOPK_SETTLE=0), its misses early and late
 * (the radix select, then the copies), the radix select alone, the full
 * sort of a large k (k 0 here: n / 2). Outputs used in place take the
 * late read through topk_final only (top_k.c): topk_settle and the two
 * sorts' copies then read early, and run where the outputs are staged. */
enum { OUT_N = 100003 };
typedef struct out_path {
  const char *name, *topk, *check, *settle;
  size_t k;
  int want;
} out_path;
static const out_path out_paths[] = {
    {"small k", "small", NULL, NULL, 5, PATH_SMALL},
    {"sampled, early", NULL, "early", NULL, 1000, PATH_SAMPLED},
    {"sampled, late, final", NULL, "late", NULL, 300, PATH_SAMPLED},
    {"sampled, late, settled", NULL, "late", NULL, 1000, PATH_SAMPLED},
    {"sampled, late, two sorts", NULL, "late", "0", 1000, PATH_SAMPLED},
    {"missed, early", "low", "early", NULL, 1000, PATH_FALLBACK},
    {"missed, late", "low", "late", NULL, 300, PATH_FALLBACK},
    {"radix select", "radix", NULL, NULL, 3000, PATH_RADIX},
    {"full sort", NULL, NULL, NULL, 0, PATH_SORT_ALL},
};
enum { OUT_PATHS = sizeof out_paths / sizeof out_paths[0] };

static void knob(const char *name, const char *value) {
  if (value) setenv(name, value, 1);
  else unsetenv(name);
}

static size_t path_k(const out_path *p) { return p->k ? p->k : OUT_N / 2; }

/* clsort_top_k of the host form along path p (its knobs set around the
 * call), which must succeed and take that path. Returns the bytes it
 * staged (clsort__test_take_staging). */
static size_t run_top_k(const out_path *p, clsort_type t, const void *keys, size_t n, size_t k,
                        void *out, void *idx, size_t is, const clsort_options *o) {
  knob("CLSORT_TOPK", p->topk);
  knob("CLSORT_TOPK_CHECK", p->check);
  knob("CLSORT_TOPK_SETTLE", p->settle);
  clsort__test_take_staging(T_CTX);
  clsort_status st = clsort_top_k(T_CTX, t, keys, n, k, out, idx, is, o);
  size_t staged = clsort__test_take_staging(T_CTX);
  knob("CLSORT_TOPK", NULL);
  knob("CLSORT_TOPK_CHECK", NULL);
  knob("CLSORT_TOPK_SETTLE", NULL);
  if (st != CLSORT_SUCCESS)
    ck_abort_msg("%s: returned %s: %s", t_where(), t_status_name(st), t_last_error());
  expect_path(p->want);
  return staged;
}

/* One top-k of the host form (path p) into outputs the caller placed
 * (either NULL), each with `before` and `after` bytes around it that it
 * poisons and that must stay so, checked against the stable order (perm);
 * keys untouched. Returns the bytes it staged (clsort__test_take_staging). */
static size_t top_k_into(clsort_type t, const void *keys, size_t k, size_t is,
                         const clsort_options *o, const size_t *perm, const out_path *p,
                         char *out, char *idx, size_t before, size_t after) {
  size_t ks = clsort_type_size(t), n = OUT_N;
  if (!idx) is = 0;
  t_label("%s top_k n=%zu k=%zu (%s): keys %s, %zu-byte indices %s, %s", clsort_type_name(t), n,
          k, p->name, out ? "out" : "none", is, idx ? "out" : "none", t_opt_name(o));
  if (out) t_poison(out - before, before + k * ks + after);
  if (idx) t_poison(idx - before, before + k * is + after);
  size_t staged = run_top_k(p, t, keys, n, k, out, idx, is ? is : 4, o);
  if (out) {
    char *want = t_alloc(k * ks);
    t_gather(keys, perm, k, ks, want);
    ASSERT_EQ_ELEMS(out, want, k, ks);
    t_release_now(want);
    ASSERT_POISON(out - before, 0, before);
    ASSERT_POISON(out, k * ks, k * ks + after);
  }
  if (idx) {
    t_check_payload_exact(idx, is, perm, k, true);
    ASSERT_POISON(idx - before, 0, before);
    ASSERT_POISON(idx, k * is, k * is + after);
  }
  return staged;
}

/* A page-aligned block of `bytes`, for placing arrays in it by hand. */
static char *page_block(size_t bytes) {
  char *m = t_alloc(bytes + 4096);
  return m + (4096 - (uintptr_t)m % 4096) % 4096;
}

/* _i = type. Top-k's outputs where callers put them, aligned to their
 * elements but not as the device wants (128 bytes on PoCL): 1 to 15
 * elements into a page-aligned block, the keys 16 bytes past a page
 * (t_alloc). A CPU device writes them in place from their origins
 * (topk_small_final, topk_final, topk_settle and the copies add them):
 * nothing staged; each path, keys alone, indices alone or both, 4- and
 * 8-byte indices, both directions, the bytes around them untouched. */
T_TEST(topk_outputs_offsets) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "topk_outputs_offsets");
  r.s[0] ^= (uint64_t)_i;
  size_t ks = clsort_type_size(t), n = OUT_N, kmax = n / 2;
  bool cpu = clsort__cpu_shape(T_CTX);
  char *keys = t_alloc(n * ks);
  t_gen_keys(&r, t, D_UNIFORM, keys, n);
  clsort_options o[2] = {opts(false), opts(true)};
  size_t *perm[2] = {t_ref_permutation(t, keys, n, &o[0]), t_ref_permutation(t, keys, n, &o[1])};
  char *kb = page_block((16 + kmax + GUARD) * ks), *ib = page_block((16 + kmax + GUARD) * 8);
  size_t step = (size_t)_i;
  for (size_t p = 0; p < OUT_PATHS; p++)
    for (size_t off = 1; off < 16; off++, step++) {
      size_t is = step % 2 ? 8 : 4, k = path_k(&out_paths[p]);
      int outputs = (int)(step % 3); /* 0: both, 1: keys alone, 2: indices alone */
      /* The two outputs at other offsets: their origins differ. */
      char *out = outputs == 2 ? NULL : kb + off * ks;
      char *idx = outputs == 1 ? NULL : ib + (16 - off) * is;
      size_t before = (off < 16 - off ? off : 16 - off) * 4, d = (step / 3) % 2;
      size_t staged = top_k_into(t, keys, k, is, &o[d], perm[d], &out_paths[p], out, idx, before,
                                 GUARD * ks);
      if (cpu) ASSERT_EQ_U64(staged, 0);
    }
}

/* _i: u32 ascending, f64 descending. Each path's outputs (and keys)
 * against an inaccessible page after them and before them (a write or
 * read past either end faults); the keys and both outputs back to back in
 * one allocation (t_layout: one buffer on a CPU device, three origins),
 * in both orders, nothing between them written; all in place on a CPU
 * device. Then outputs a byte off their elements: staged, exact; and keys
 * so, the outputs in place: only the keys staged, as select stages them. */
T_TEST(topk_outputs_guarded) {
  clsort_type t = _i == 0 ? CLSORT_U32 : CLSORT_F64;
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "topk_outputs_guarded");
  r.s[0] ^= (uint64_t)_i;
  size_t ks = clsort_type_size(t), n = OUT_N;
  bool cpu = clsort__cpu_shape(T_CTX);
  clsort_options o = opts(_i == 1);
  char *src = t_alloc(n * ks);
  t_gen_keys(&r, t, D_UNIFORM, src, n);
  size_t *perm = t_ref_permutation(t, src, n, &o);
  for (size_t p = 0; p < OUT_PATHS; p++) {
    const out_path *path = &out_paths[p];
    size_t k = path_k(path), is = p % 2 ? 4 : 8;
    for (int at_end = 0; at_end < 2; at_end++) {
      char *keys = t_guarded(n * ks, !at_end), *out = t_guarded(k * ks, at_end);
      char *idx = t_guarded(k * is, at_end);
      memcpy(keys, src, n * ks);
      size_t staged = top_k_into(t, keys, k, is, &o, perm, path, out, idx, 0, 0);
      if (cpu) ASSERT_EQ_U64(staged, 0);
    }
    for (int layout = 0; layout < 2; layout++) {
      const size_t bytes[3] = {n * ks, k * ks, k * is}, elems[3] = {ks, ks, is};
      t_layout l;
      /* 16 bytes past a page as malloc's, or one element of the first
       * (the indices, reversed). */
      t_layout_make(&l, 3, bytes, elems, layout ? is : 16, layout == 1);
      memcpy(l.p[0], src, n * ks);
      t_layout_snapshot(&l);
      t_label("%s top_k k=%zu (%s): keys and outputs back to back%s", clsort_type_name(t), k,
              path->name, layout ? ", outputs first" : "");
      size_t staged = run_top_k(path, t, l.p[0], n, k, l.p[1], l.p[2], is, &o);
      if (cpu) ASSERT_EQ_U64(staged, 0);
      char *want = t_alloc(k * ks);
      t_gather(src, perm, k, ks, want);
      ASSERT_EQ_ELEMS(l.p[1], want, k, ks);
      t_release_now(want);
      t_check_payload_exact(l.p[2], is, perm, k, true);
      t_layout_check(&l, 1u << 1 | 1u << 2);
    }
  }
  /* A byte off: the outputs staged, then the keys alone. */
  size_t k = 1000;
  char *kb = page_block((k + 2 * GUARD) * 8), *ib = page_block((k + 2 * GUARD) * 8);
  char *keys = t_alloc(n * ks + 1);
  memcpy(keys, src, n * ks);
  for (size_t p = 0; p < OUT_PATHS; p++) {
    const out_path *path = &out_paths[p];
    size_t kp = path->k && path->k < k ? path->k : k, is = p % 2 ? 4 : 8;
    /* The full sort needs k >= n / 4: its outputs are staged as any. */
    if (!path->k) continue;
    size_t staged =
        top_k_into(t, keys, kp, is, &o, perm, path, kb + 9, ib + 9, 9, GUARD * ks);
    ASSERT_GT_U64(staged, 0);
  }
  char *off_keys = keys + 1;
  memmove(off_keys, keys, n * ks);
  unsigned char got[8];
  clsort__test_take_staging(T_CTX);
  ASSERT_OK(clsort_select(T_CTX, t, off_keys, n, k, got, &o));
  size_t keys_staged = clsort__test_take_staging(T_CTX);
  ASSERT_GT_U64(keys_staged, 0);
  for (size_t p = 0; p < OUT_PATHS; p++) {
    const out_path *path = &out_paths[p];
    size_t kp = path_k(path), is = p % 2 ? 8 : 4;
    char *out = page_block((kp + 2 * GUARD) * ks) + 3 * ks;
    char *idx = page_block((kp + 2 * GUARD) * is) + 5 * is;
    size_t staged = top_k_into(t, off_keys, kp, is, &o, perm, path, out, idx, 12, GUARD * ks);
    if (cpu) ASSERT_EQ_U64(staged, keys_staged);
    else ASSERT_GT_U64(staged, keys_staged);
  }
}

/* u32. Each allocation of a top-k into outputs used
 * in place failing in turn (CLSORT_FAIL_ALLOC_AFTER=N on a fresh context,
 * N walked up from 0): every failure returns CLSORT_ERROR_OUT_OF_MEMORY
 * with the outputs as they were. The call is the late read's miss
 * (CLSORT_TOPK=tight: a buffer of one candidate; CLSORT_TOPK_CHECK=late)
 * with k above topk_final's, whose topk_settle would write the outputs
 * before the fallback allocates: in place such a k reads early (top_k.c).
 * Some sites tolerate the failure (a program not loaded from the disk
 * cache is built): the walk ends after FAULT_TAIL successes in a row. */
enum { FAULT_TAIL = 16, FAULT_MAX = 1000 };
T_TEST(topk_outputs_faults) {
  clsort_type t = CLSORT_U32;
  t_rng r;
  t_rng_init(&r, "topk_outputs_faults");
  size_t ks = clsort_type_size(t), n = 20000, k = 1000, is = 4;
  clsort_options o = opts(false);
  char *keys = t_alloc(n * ks), *want = t_alloc(k * ks);
  t_gen_keys(&r, t, D_UNIFORM, keys, n);
  size_t *perm = t_ref_permutation(t, keys, n, &o);
  t_gather(keys, perm, k, ks, want);
  char *out = t_alloc((k + GUARD) * ks), *idx = t_alloc((k + GUARD) * is);
  unsigned failed = 0, tail = 0;
  long fail_after = 0;
  for (; fail_after < FAULT_MAX && tail < FAULT_TAIL; fail_after++) {
    char value[32];
    snprintf(value, sizeof value, "%ld", fail_after);
    t_label("%s top_k n=%zu k=%zu, a late miss, CLSORT_FAIL_ALLOC_AFTER=%ld", clsort_type_name(t),
            n, k, fail_after);
    setenv("CLSORT_FAIL_ALLOC_AFTER", value, 1);
    clsort_context *c = NULL;
    clsort_status st = t_context_create(&c);
    unsetenv("CLSORT_FAIL_ALLOC_AFTER");
    if (st == CLSORT_ERROR_OUT_OF_MEMORY) continue;
    ASSERT_OK(st);
    t_own_context(c);
    t_poison(out, (k + GUARD) * ks);
    t_poison(idx, (k + GUARD) * is);
    setenv("CLSORT_TOPK", "tight", 1);
    setenv("CLSORT_TOPK_CHECK", "late", 1);
    st = clsort_top_k(c, t, keys, n, k, out, idx, is, &o);
    unsetenv("CLSORT_TOPK");
    unsetenv("CLSORT_TOPK_CHECK");
    t_release_now(c);
    if (st == CLSORT_SUCCESS) {
      tail++;
      ASSERT_EQ_U64(clsort__test_top_k_path(), PATH_FALLBACK);
      ASSERT_EQ_ELEMS(out, want, k, ks);
      t_check_payload_exact(idx, is, perm, k, true);
      continue;
    }
    tail = 0;
    failed++;
    ASSERT_STATUS(st, CLSORT_ERROR_OUT_OF_MEMORY);
    ASSERT_POISON(out, 0, (k + GUARD) * ks);
    ASSERT_POISON(idx, 0, (k + GUARD) * is);
  }
  ASSERT_LT_U64(fail_after, FAULT_MAX);
  ASSERT_GT_U64(failed, 0);
}

/* ------------------------------------------------------------- errors */
enum { EN = 64 };

T_TEST(topk_errors) {
  uint32_t keys[EN], copy[EN], buf[2 * EN + GUARD], idx[EN + GUARD];
  for (unsigned i = 0; i < EN; i++) keys[i] = (i * 37u) % EN;
  memcpy(copy, keys, sizeof keys);
  t_poison(buf, sizeof buf);
  t_poison(idx, sizeof idx);
  uint32_t *out = buf + EN;
  clsort_options merge = {CLSORT_MERGE, 0u, 0u, 0u}, bits = {CLSORT_AUTO, 0u, 4u, 0u};
  clsort_options flags = {CLSORT_AUTO, 0x10u, 0u, 0u};
  t_label("top_k and select errors");
  ASSERT_ERROR(clsort_top_k(NULL, CLSORT_U32, keys, EN, 3, out, idx, 4, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_top_k(T_CTX, (clsort_type)17, keys, EN, 3, out, idx, 4, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_top_k(T_CTX, CLSORT_U32, keys, EN, EN + 1, out, idx, 4, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_top_k(T_CTX, CLSORT_U32, NULL, EN, 3, out, idx, 4, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_top_k(T_CTX, CLSORT_U32, keys, EN, 3, NULL, NULL, 4, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_top_k(T_CTX, CLSORT_U32, keys, EN, 3, out, idx, 2, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_top_k(T_CTX, CLSORT_U32, keys, EN, 3, out, idx, 4, &flags),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_top_k(T_CTX, CLSORT_U32, keys, EN, 3, out, idx, 4, &merge),
               CLSORT_ERROR_UNSUPPORTED);
  ASSERT_ERROR(clsort_top_k(T_CTX, CLSORT_U32, keys, EN, 3, out, idx, 4, &bits),
               CLSORT_ERROR_UNSUPPORTED);
  /* Outputs overlapping the keys or each other. */
  ASSERT_ERROR(clsort_top_k(T_CTX, CLSORT_U32, buf, EN, 3, buf + 5, NULL, 0, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_top_k(T_CTX, CLSORT_U32, keys, EN, 3, out, keys + EN - 1, 4, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_top_k(T_CTX, CLSORT_U32, keys, EN, 3, out, out + 2, 4, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_select(T_CTX, CLSORT_U32, keys, EN, EN, out, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_select(T_CTX, CLSORT_U32, keys, 0, 0, out, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_select(T_CTX, CLSORT_U32, keys, EN, 1, NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_select(T_CTX, CLSORT_U32, NULL, EN, 1, out, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_select(T_CTX, (clsort_type)-1, keys, EN, 1, out, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_select(T_CTX, CLSORT_U32, keys, EN, 1, out, &merge),
               CLSORT_ERROR_UNSUPPORTED);
  /* out_key inside the keys, or over their last one. */
  ASSERT_ERROR(clsort_select(T_CTX, CLSORT_U32, buf, EN, 1, buf + 5, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_select(T_CTX, CLSORT_U32, buf, EN, 1, buf + EN - 1, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  char msg[256];
  if (!t_poison_intact(buf, 0, sizeof buf, msg, sizeof msg) ||
      !t_poison_intact(idx, 0, sizeof idx, msg, sizeof msg))
    ck_abort_msg("%s: an output changed: %s", t_where(), msg);
  ASSERT_TRUE(memcmp(keys, copy, sizeof keys) == 0);
  /* The buffer forms: an output that is the keys buffer, too small. */
  cl_mem bk = t_buffer(sizeof keys, keys), small = t_buffer(4, NULL);
  ASSERT_ERROR(clsort_top_k_buffer(T_CTX, CLSORT_U32, bk, EN, 3, bk, NULL, 0, NULL, 0, NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(
      clsort_top_k_buffer(T_CTX, CLSORT_U32, bk, EN, 3, small, NULL, 0, NULL, 0, NULL, NULL),
      CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_select_buffer(T_CTX, CLSORT_U64, bk, EN / 2, 1, small, NULL, 0, NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_select_buffer(T_CTX, CLSORT_U32, bk, EN, 1, bk, NULL, 0, NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  uint32_t *got = t_read_buffer(bk, sizeof keys);
  ASSERT_TRUE(memcmp(got, copy, sizeof keys) == 0);
}

static void add(Suite *s, unsigned tiers) {
  if (!(tiers & T_QUICK)) return;
  TCase *tc = t_tcase(s, "topk", true);
  /* Parts "sampled" and "small": the sampled path, the path of a small
   * k (meson runs both in the GPU shape, whose kernels the H100 runs). */
  bool some = t_part && t_part[0];
  bool all = !(some && (t_part_selected("sampled") || t_part_selected("small")));
  if (all) {
    tcase_add_loop_test(tc, topk_types, 0, 6);
    tcase_add_loop_test(tc, topk_boundary_ties, 0, 2);
    tcase_add_loop_test(tc, topk_layouts, 0, 2);
    tcase_add_loop_test(tc, topk_outputs_offsets, 0, 6);
    tcase_add_loop_test(tc, topk_outputs_guarded, 0, 2);
    tcase_add_test(tc, topk_outputs_faults);
  }
  if (all || t_part_selected("sampled")) {
    tcase_add_loop_test(tc, topk_sampled, 0, 2);
    tcase_add_loop_test(tc, topk_sampled_adversarial, 0, 2);
  }
  if (all || t_part_selected("small")) {
    tcase_add_loop_test(tc, topk_small, 0, 6);
    tcase_add_test(tc, topk_small_waits_for_wait_list);
  }
  if (all) tcase_add_test(tc, topk_errors);
}

int main(int argc, char **argv) { return t_main(argc, argv, "topk", add); }
