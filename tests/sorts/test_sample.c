/* test_sample.c: CLSORT_SAMPLE (Fine Sample Sort) through clsort_sort,
 * clsort_sort_pairs, clsort_argsort and clsort_sort_buffer. The sort is
 * not stable: keys must match the stable reference and each payload must
 * stay with its key. Besides the radix sort's matrix, inputs aimed at the
 * sampling (all keys equal, two values, sorted, reverse, organ pipe, many
 * copies of the keys that become splitters) and the CLSORT_SAMPLE
 * overrides (two buckets per split, many levels, one parent per batch).
 * Parts: "32" and "64" (4- and 8-byte keys on the CPU shape, so that the
 * two compile different kernels at once), "tiled" (CLSORT_TUNING=16:16:2:
 * the multi-work-item scatter, a 256-key small-sort tile, deep recursion,
 * the bucket ids that let it classify each key once, and the second
 * classification without them). */
#define _POSIX_C_SOURCE 200809L
#include "sort_check.h"

#include <stdlib.h>

#define TILED_TUNING "16:16:2"

static clsort_options sample(bool desc) {
  clsort_options o = {CLSORT_SAMPLE, desc ? CLSORT_DESCENDING : 0u, 0u, 0u};
  return o;
}

/* The small sort's tile for keys of type t with `vs`-byte payloads: the
 * largest bucket that needs no distribution level. */
static size_t tile_of(clsort_type t, size_t vs) {
  return clsort__test_segment_capacity(T_CTX, t, vs);
}

/* Multi-item groups run as loops on a CPU: the tiled shape stays small. */
static size_t max_n(void) { return getenv("CLSORT_TUNING") ? 150000 : SIZE_MAX; }
static size_t cap_n(size_t n) { return n < max_n() ? n : max_n(); }

/* The key types of the part: 4-byte keys for "32", 8-byte for "64"; the
 * tiled shape, slow on a CPU, takes u32 and i64 (one of each width; the
 * key kind is a run-time argument, covered by the other parts). No part
 * named: all. */
static bool type_in_part(clsort_type t) {
  if (getenv("CLSORT_TUNING")) return t == CLSORT_U32 || t == CLSORT_I64;
  if (t_part_selected("32") && clsort_type_size(t) == 4) return true;
  return t_part_selected("64") && clsort_type_size(t) == 8;
}

/* ------------------------------------------------------------ the matrix */
/* _i = type * D_COUNT + distribution: both directions in all five modes
 * at 1000 (one tile: the bitonic sort alone), at three tiles and a bit,
 * and at a random size up to 100000; one direction in three modes at a
 * random size from 100000 to 400000. */
T_TEST(sample_matrix) {
  clsort_type t = t_all_types[_i / D_COUNT];
  int dist = _i % D_COUNT;
  if (t_skip_type(t) || !type_in_part(t)) return;
  t_rng r;
  t_rng_init(&r, "sample_matrix");
  r.s[0] ^= (uint64_t)_i;
  size_t sizes[3] = {1000, 3 * tile_of(t, 8) + 17, t_rng_size(&r, 2, 100000)};
  for (int s = 0; s < 3; s++)
    for (int desc = 0; desc < 2; desc++) {
      clsort_options o = sample(desc);
      t_check_dist(&r, t, dist, cap_n(sizes[s]), &o, MODES_ALL);
    }
  clsort_options o = sample((_i / D_COUNT + dist) % 2);
  t_check_dist(&r, t, dist, cap_n(t_rng_size(&r, 100000, 400000)), &o,
               (1u << M_KEYS) | (1u << M_PAIRS4) | (1u << M_ARG8));
}

/* _i = type: every mode around its own tile and its multiples (one level,
 * then two), tiny sizes, and sizes whose buckets start unaligned; both
 * directions, distinct keys or few distinct ones, alternating. */
T_TEST(sample_edge_sizes) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t) || !type_in_part(t)) return;
  t_rng r;
  t_rng_init(&r, "sample_edge_sizes");
  r.s[0] ^= (uint64_t)_i;
  for (int m = 0; m < M_COUNT; m++) {
    size_t tile = tile_of(t, t_mode_payload[m]);
    const size_t sizes[] = {1,        2,        3,        17,           tile - 1,
                            tile,     tile + 1, tile + 3, 2 * tile + 1, 8 * tile - 1,
                            8 * tile, 33 * tile + 7, 129 * tile + 1};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (int desc = 0; desc < 2; desc++) {
        if (sizes[s] > max_n()) continue;
        clsort_options o = sample(desc);
        t_check_dist(&r, t, (s + (size_t)desc) % 2 ? D_FEW : D_UNIFORM, sizes[s], &o, 1u << m);
      }
  }
}

/* ------------------------------------------------------ adversarial data */
enum {
  A_EQUAL,       /* every key the same */
  A_EXTREME,     /* every key the type's largest (all order bits set) */
  A_TWO,         /* two values */
  A_ONE_OFF,     /* all equal but one key, anywhere */
  A_SORTED,      /* distinct, ascending */
  A_REVERSE,     /* distinct, descending */
  A_ORGAN,       /* ascending then descending */
  A_RUNS,        /* runs of 64 equal keys, ascending */
  A_HEAVY,       /* half the keys one of 8 values, the rest distinct */
  A_STEPS,       /* 300 values, each repeated: every splitter has many copies */
  A_SAW,         /* ascending sawtooth of period 1000 */
  A_COUNT
};
static const char *const adversarial_names[A_COUNT] = {
    "all keys equal", "all keys the largest", "two values", "all equal but one", "sorted",
    "reverse",        "organ pipe",           "runs of 64", "half on 8 values", "300 values",
    "sawtooth"};

/* Keys in the type's order space, so that every type sees the same shape. */
static void gen_adversarial(t_rng *r, clsort_type t, int kind, void *p, size_t n) {
  uint64_t all = clsort_type_size(t) == 4 ? 0xFFFFFFFFu : UINT64_MAX;
  uint64_t base = t_rng_next(r) & (all >> 2), spread = all / (n + 1);
  uint64_t v[8];
  for (int j = 0; j < 8; j++) v[j] = t_rng_next(r) & all;
  size_t odd = n ? (size_t)t_rng_below(r, n) : 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t u;
    switch (kind) {
      case A_EQUAL: u = base; break;
      case A_EXTREME: u = all; break;
      case A_TWO: u = t_rng_below(r, 2) ? v[0] : v[1]; break;
      case A_ONE_OFF: u = i == odd ? base + 1 : base; break;
      case A_SORTED: u = (uint64_t)i * spread; break;
      case A_REVERSE: u = (uint64_t)(n - 1 - i) * spread; break;
      case A_ORGAN: u = (uint64_t)(i < n / 2 ? i : n - 1 - i) * spread; break;
      case A_RUNS: u = base + i / 64; break;
      case A_HEAVY: u = i % 2 ? v[t_rng_below(r, 8)] : t_rng_next(r) & all; break;
      case A_STEPS: u = base + t_rng_below(r, 300) * spread; break;
      default: u = base + (uint64_t)(i % 1000); break;
    }
    t_put_bits(t, p, i, t_from_order(t, u & all));
  }
}

/* _i = type * A_COUNT + kind: both directions at a size of many tiles
 * (several levels) in three modes, and at one a little over a tile in
 * all. */
T_TEST(sample_adversarial) {
  clsort_type t = t_all_types[_i / A_COUNT];
  int kind = _i % A_COUNT;
  if (t_skip_type(t) || !type_in_part(t)) return;
  t_rng r;
  t_rng_init(&r, "sample_adversarial");
  r.s[0] ^= (uint64_t)_i;
  size_t es = clsort_type_size(t);
  const size_t sizes[] = {100003, tile_of(t, 0) + 5};
  const unsigned modes[] = {(1u << M_KEYS) | (1u << M_PAIRS8) | (1u << M_ARG4), MODES_ALL};
  for (size_t s = 0; s < 2; s++) {
    size_t n = sizes[s];
    unsigned char *keys = t_alloc(n * es);
    gen_adversarial(&r, t, kind, keys, n);
    for (int desc = 0; desc < 2; desc++) {
      clsort_options o = sample(desc);
      t_check_input(t, keys, n, &o, modes[s], adversarial_names[kind]);
    }
    t_release_now(keys);
  }
}

/* The CPU shape with CLSORT_SAMPLE_CPU=WAYS:OVERSAMPLING:LEAF:CHUNKS:LEVELS
 * set small, so that test sizes take many levels: leaves of 256 keys at
 * 128 ways; two ways from one sampled key a way (the worst splitters);
 * four ways with one chunk per compute unit, so that the deeper levels
 * hold more segments than a batch takes; and two levels only, after which
 * the leaves' introsort takes segments of any size. _i = case * 6 + type. */
static const char *const cpu_levels_cases[] = {"128:16:8", "2:1:8", "4:16:8:1", "128:4:8:64:2"};
#define NCPU_LEVELS (sizeof cpu_levels_cases / sizeof cpu_levels_cases[0])

T_TEST(sample_cpu_levels) {
  clsort_type t = t_all_types[_i % 6];
  if (!clsort__cpu_shape(T_CTX) || t_skip_type(t) || !type_in_part(t)) return;
  const char *config = cpu_levels_cases[_i / 6];
  t_rng r;
  t_rng_init(&r, "sample_cpu_levels");
  r.s[0] ^= (uint64_t)_i;
  t_setenv("CLSORT_SAMPLE_CPU", config);
  size_t n = t_rng_size(&r, 20000, 60000), es = clsort_type_size(t);
  unsigned char *keys = t_alloc(n * es);
  for (int kind = 0; kind < A_COUNT; kind++) {
    gen_adversarial(&r, t, kind, keys, n);
    clsort_options o = sample(kind % 2);
    char what[96];
    snprintf(what, sizeof what, "%s, CLSORT_SAMPLE_CPU=%s", adversarial_names[kind], config);
    t_check_input(t, keys, n, &o, kind < 3 ? MODES_ALL : 1u << M_PAIRS8, what);
  }
  const int dists[] = {D_UNIFORM, D_FEW};
  for (int d = 0; d < 2; d++) {
    clsort_options o = sample(d != _i % 2);
    t_check_dist(&r, t, dists[d], n, &o, MODES_ALL);
  }
  t_release_now(keys);
  t_unsetenv("CLSORT_SAMPLE_CPU");
}

/* ------------------------------------------------------------ overrides */
/* CLSORT_SAMPLE=K:S:P sets the buckets per split, the oversampling and
 * the parents per batch. Two buckets per split recurse deepest (each
 * level only halves); one parent per batch runs every level as many
 * batches; large oversampling and 256 buckets take the other extremes;
 * malformed values fall back to the defaults. _i = case. */
static const char *const config_cases[] = {"2",    "2:1:1", "4:0:3",   "256:16",
                                           "8:64", "16:2",  "1000:0:0", "junk"};
#define NCONFIG (sizeof config_cases / sizeof config_cases[0])

T_TEST(sample_config) {
  t_rng r;
  t_rng_init(&r, "sample_config");
  r.s[0] ^= (uint64_t)_i;
  /* 256 buckets compile variants of their own: not on the slow tiled shape. */
  if (getenv("CLSORT_TUNING") && strncmp(config_cases[_i], "256", 3) == 0) return;
  t_setenv("CLSORT_SAMPLE", config_cases[_i]);
  for (int ti = 0; ti < 6; ti += 3) {
    clsort_type t = t_all_types[ti + _i % 3];
    if (t_skip_type(t) || !type_in_part(t)) continue;
    size_t n = _i % 2 ? 50021 : 20 * tile_of(t, 8) + 1;
    for (int dist = 0; dist < 2; dist++) {
      clsort_options o = sample(_i % 2 == dist);
      t_label("CLSORT_SAMPLE=%s", config_cases[_i]);
      t_check_dist(&r, t, dist ? D_FEW : D_UNIFORM, n, &o, MODES_ALL);
    }
  }
}

/* CLSORT_SAMPLE_LEAF=bitonic: on a GPU shape, the buckets finished by the
 * segmented bitonic sort (a bucket per work-group, copies out of scratch
 * first) instead of the packed block sort that is the default there.
 * _i = case: the type, and the size with its direction. */
T_TEST(sample_leaf_bitonic) {
  t_rng r;
  t_rng_init(&r, "sample_leaf_bitonic");
  r.s[0] ^= (uint64_t)_i;
  t_setenv("CLSORT_SAMPLE_LEAF", "bitonic");
  clsort_type t = t_all_types[_i % 6];
  if (t_skip_type(t) || !type_in_part(t)) return;
  size_t n = _i % 2 ? 50021 : 20 * tile_of(t, 8) + 1;
  for (int dist = 0; dist < 2; dist++) {
    clsort_options o = sample(_i % 2 == dist);
    t_label("CLSORT_SAMPLE_LEAF=bitonic");
    t_check_dist(&r, t, dist ? D_FEW : D_UNIFORM, n, &o, MODES_ALL);
  }
}

/* The packed leaves of a last level: planned on the device right after
 * the scatter (sample.cl's sample_leaf_plan, the default, which the rest
 * of the tiled part runs too), by the host (CLSORT_SAMPLE_LEAF_PLAN=host),
 * and by both (=again: the device plans and sorts them, then the host
 * lists them all again, as when a child outgrows the tile; sorting a
 * sorted tile again must change nothing, scratch included). _i = case x 2
 * + type (u32, i64). */
T_TEST(sample_leaf_plan) {
  static const char *const ways[] = {"device", "host", "again"};
  clsort_type t = _i % 2 ? CLSORT_I64 : CLSORT_U32;
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "sample_leaf_plan");
  r.s[0] ^= (uint64_t)_i;
  t_setenv("CLSORT_SAMPLE_LEAF_PLAN", ways[_i / 2]);
  static const int dists[] = {D_UNIFORM, D_FEW, D_ZERO, D_SORTED};
  for (int d = 0; d < 4; d++) {
    clsort_options o = sample(d % 2 == 1);
    t_label("CLSORT_SAMPLE_LEAF_PLAN=%s", ways[_i / 2]);
    t_check_dist(&r, t, dists[d], d ? 20011 : 65537, &o, MODES_ALL);
  }
}

/* Classify once (the GPU shape, sample.cl's SS_IDS): the histogram keeps
 * each key's bucket, 2 bytes a key, for the scatter. clsort_scratch_bytes
 * counts them; a caller scratch with room for all but them still sorts
 * (the scatter classifies again), as does CLSORT_SAMPLE_IDS=0 in the
 * context's own memory, with one batch per level and with several parents
 * a batch. The rest of the tiled part runs with the ids. _i = 0: u32 keys
 * only; 1: i64 pairs with 8-byte values. */
T_TEST(sample_ids) {
  clsort_type t = _i ? CLSORT_I64 : CLSORT_U32;
  if (t_skip_type(t)) return;
  size_t n = 100003, vs = _i ? 8 : 0;
  clsort_operation op = _i ? CLSORT_OP_SORT_PAIRS : CLSORT_OP_SORT;
  clsort_options o = sample(_i == 1);
  t_rng r;
  t_rng_init(&r, "sample_ids");
  r.s[0] ^= (uint64_t)_i;
  size_t with_ids, without;
  t_label("clsort_scratch_bytes %s n=%zu, CLSORT_SAMPLE_IDS=0 and 1", clsort_type_name(t), n);
  t_setenv("CLSORT_SAMPLE_IDS", "0");
  ASSERT_OK(clsort_scratch_bytes(T_CTX, op, t, n, vs, &o, &without));
  t_setenv("CLSORT_SAMPLE_IDS", "1");
  ASSERT_OK(clsort_scratch_bytes(T_CTX, op, t, n, vs, &o, &with_ids));
  /* (plus the rounding up to the device's buffer alignment) */
  ASSERT_GE_U64(with_ids, without + 2 * n);
  ASSERT_LT_U64(with_ids, without + 2 * n + 4096);
  const size_t rooms[2] = {without, with_ids};
  for (int k = 0; k < 2; k++) {
    ASSERT_OK(clsort_context_set_scratch(T_CTX, NULL, 0));
    ASSERT_OK(clsort_context_set_scratch(T_CTX, t_buffer(rooms[k], NULL), rooms[k]));
    t_label("%s n=%zu in a caller scratch of %zu bytes (%s the ids)", clsort_type_name(t), n,
            rooms[k], k ? "with" : "without");
    t_check_buffer_case(&r, t, n, k ? D_FEW : D_UNIFORM, &o, vs ? vs : 8, vs != 0, false);
    ASSERT_EQ_U64(clsort_context_memory_used(T_CTX), 0);
  }
  ASSERT_OK(clsort_context_set_scratch(T_CTX, NULL, 0));
  unsigned modes = _i ? 1u << M_PAIRS8 : 1u << M_KEYS;
  t_setenv("CLSORT_SAMPLE_IDS", "0");
  t_label("CLSORT_SAMPLE_IDS=0");
  t_check_dist(&r, t, D_UNIFORM, n, &o, modes);
  t_setenv("CLSORT_SAMPLE", "4:0:3");
  t_label("CLSORT_SAMPLE_IDS=0 CLSORT_SAMPLE=4:0:3");
  t_check_dist(&r, t, D_FEW, 50021, &o, modes);
}

/* ------------------------------------------------------- special values */
static clsort_options specials_options(size_t s, bool desc) {
  (void)s;
  return sample(desc);
}

/* _i = type: the hand-written list many times over, both directions, all
 * modes; the keys must also follow the list's order. */
T_TEST(sample_special_values) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t) || !type_in_part(t)) return;
  t_rng r;
  t_rng_init(&r, "sample_special_values");
  r.s[0] ^= (uint64_t)_i;
  const size_t sizes[] = {tile_of(t, 0) + 1, 70001};
  t_check_specials_sweep(&r, t, sizes, sizeof sizes / sizeof sizes[0], specials_options,
                         "specials");
}

/* ---------------------------------------------------------- buffer form */
/* _i = type: the buffer form sorts the caller's buffers in place (the
 * first level then writes scratch), keys only and with 4- or 8-byte
 * values, after a wait list, and returns an event that completes; bytes
 * past n stay, and keys-only leaves the values buffer alone. */
T_TEST(sample_buffer_form) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t) || !type_in_part(t)) return;
  t_rng r;
  t_rng_init(&r, "sample_buffer_form");
  r.s[0] ^= (uint64_t)_i;
  const size_t sizes[] = {1, 33, tile_of(t, 4) + 1, 5 * tile_of(t, 8) - 1, 100003};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int k = 0; k < 3; k++) {
      size_t n = sizes[s], vs = k ? 4 * (size_t)k : 8;
      bool with_values = k != 0, desc = (s + (size_t)k) % 2;
      clsort_options o = sample(desc);
      t_check_buffer_case(&r, t, n, k == 2 ? D_FEW : D_UNIFORM, &o, vs, with_values, false);
    }
}

/* The scratch memory of the radix sort's promise, each form on a fresh
 * context: keys only n keys, pairs n keys + n values, argsort 2n keys + n
 * indices, plus tables and samples of a few MB, and on GPU shapes 2n
 * bytes of bucket ids (what clsort_scratch_bytes gives with them beyond
 * CLSORT_SAMPLE_IDS=0: none, or 2n rounded to the buffer alignment); the
 * host forms also stage the caller's arrays, and each scratch buffer is
 * rounded up by an eighth. */
T_TEST(sample_scratch_memory) {
  clsort_type t = _i ? CLSORT_U64 : CLSORT_U32;
  if (!type_in_part(t)) return;
  size_t n = ((size_t)1 << 20) + 3, es = clsort_type_size(t), vs = 8 - 4 * (size_t)_i;
  const size_t tables = (size_t)4 << 20;
  const clsort_options o = sample(false);
  size_t with_ids, without;
  t_label("clsort_scratch_bytes %s n=%zu, CLSORT_SAMPLE_IDS=0 and 1", clsort_type_name(t), n);
  t_setenv("CLSORT_SAMPLE_IDS", "0");
  ASSERT_OK(clsort_scratch_bytes(T_CTX, CLSORT_OP_SORT, t, n, 0, &o, &without));
  t_setenv("CLSORT_SAMPLE_IDS", "1");
  ASSERT_OK(clsort_scratch_bytes(T_CTX, CLSORT_OP_SORT, t, n, 0, &o, &with_ids));
  ASSERT_GE_U64(with_ids, without);
  size_t ids = with_ids - without;
  if (ids) {
    ASSERT_GE_U64(ids, 2 * n);
    ASSERT_LT_U64(ids, 2 * n + 4096);
  }
  t_rng r;
  t_rng_init(&r, "sample_scratch_memory");
  unsigned char *keys = t_alloc(n * es), *vals = t_alloc(n * 8);
  t_gen_keys(&r, t, D_UNIFORM, keys, n);
  for (int form = 0; form < 3; form++) {
    clsort_context *c = NULL;
    ASSERT_OK(t_context_create(&c));
    t_own_context(c);
    size_t bound;
    if (form < 2) {
      t_label("scratch of sort_buffer %s n=%zu%s", clsort_type_name(t), n,
              form ? " with values" : "");
      cl_mem bk = t_buffer_on(clsort_context_cl_context(c), n * es, keys);
      cl_mem bv = form ? t_buffer_on(clsort_context_cl_context(c), n * vs, NULL) : NULL;
      ASSERT_OK(clsort_sort_buffer(c, t, bk, bv, form ? vs : 0, n, &o, 0, NULL, NULL));
      ASSERT_CL(clFinish(clsort_context_queue(c)));
      if (bv) t_release_now(bv);
      t_release_now(bk);
      bound = n * es + (form ? n * vs : 0) + ids;
    } else {
      t_label("scratch of argsort %s n=%zu, %zu-byte indices", clsort_type_name(t), n, vs);
      ASSERT_OK(clsort_argsort(c, t, keys, vals, vs, n, &o));
      bound = 2 * n * es + n * vs + (n * es + n * vs) + ids;
    }
    ASSERT_LE_U64(clsort__scratch_bytes(c), bound + bound / 8 + tables);
    t_release_now(c);
  }
}

/* n == 0 and NULL arrays: success, nothing touched; the buffer form still
 * gives an event. */
T_TEST(sample_zero_length) {
  for (int ti = 0; ti < 6; ti++) {
    clsort_type t = t_all_types[ti];
    if (t_skip_type(t) || !type_in_part(t)) continue;
    clsort_options up = sample(false), down = sample(true);
    t_label("%s n=0", clsort_type_name(t));
    ASSERT_OK(clsort_sort(T_CTX, t, NULL, 0, &up));
    ASSERT_OK(clsort_sort_pairs(T_CTX, t, NULL, NULL, 4, 0, &down));
    ASSERT_OK(clsort_argsort(T_CTX, t, NULL, NULL, 8, 0, &up));
    cl_event ev = NULL;
    ASSERT_OK(clsort_sort_buffer(T_CTX, t, NULL, NULL, 0, 0, &down, 0, NULL, &ev));
    ASSERT_NOT_NULL(ev);
    t_defer_event(ev);
    ASSERT_CL(clWaitForEvents(1, &ev));
  }
}

/* What the sample sort cannot promise: stability and bit ranges are
 * refused, and nothing is touched. _i = type. */
T_TEST(sample_unsupported) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t) || !type_in_part(t)) return;
  t_rng r;
  t_rng_init(&r, "sample_unsupported");
  r.s[0] ^= (uint64_t)_i;
  size_t n = 20011, es = clsort_type_size(t);
  unsigned bits = (unsigned)es * 8;
  const clsort_options refused[] = {
      {CLSORT_SAMPLE, CLSORT_STABLE, 0u, 0u},
      {CLSORT_SAMPLE, CLSORT_STABLE | CLSORT_DESCENDING, 0u, 0u},
      {CLSORT_SAMPLE, 0u, 1u, 0u},
      {CLSORT_SAMPLE, CLSORT_DESCENDING, 0u, bits - 1},
  };
  unsigned char *keys = t_alloc(n * es), *work = t_alloc(n * es), *vals = t_alloc(n * 8);
  t_gen_keys(&r, t, D_UNIFORM, keys, n);
  for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
    t_label("%s n=%zu %s is refused", clsort_type_name(t), n, t_opt_name(&refused[k]));
    memcpy(work, keys, n * es);
    t_poison(vals, n * 8);
    ASSERT_STATUS(clsort_sort(T_CTX, t, work, n, &refused[k]), CLSORT_ERROR_UNSUPPORTED);
    ASSERT_STATUS(clsort_argsort(T_CTX, t, work, vals, 8, n, &refused[k]),
                  CLSORT_ERROR_UNSUPPORTED);
    ASSERT_EQ_ELEMS(work, keys, n, es);
    ASSERT_POISON(vals, 0, n * 8);
  }
  /* The explicit full width is no range. */
  clsort_options full = {CLSORT_SAMPLE, CLSORT_DESCENDING, 0u, bits};
  t_check_input(t, keys, n, &full, MODES_ALL, "uniform, end_bit = the key's width");
}

/* -------------------------------------------------------- out of memory */
/* CLSORT_FAIL_ALLOC_AFTER=N fails the (N+1)-th allocation of a context
 * made while it is set. Walking N up until the call succeeds reaches every
 * allocation of a sort of several levels (kernels, scratch, worklists):
 * each failure must be CLSORT_ERROR_OUT_OF_MEMORY with the arrays as they
 * were, since everything is acquired before the first write. _i = 0: u32
 * pairs with 8-byte values; 1: u64 argsort with 4-byte indices. */
T_TEST(sample_out_of_memory) {
  clsort_type t = _i ? CLSORT_U64 : CLSORT_U32;
  if (!type_in_part(t)) return;
  size_t es = clsort_type_size(t), vs = _i ? 4 : 8, n = 20011;
  const clsort_options o = sample(_i == 1);
  t_rng r;
  t_rng_init(&r, "sample_out_of_memory");
  unsigned char *keys = t_alloc(n * es), *work = t_alloc(n * es), *vals = t_alloc(n * vs),
                *vwork = t_alloc(n * vs);
  t_gen_keys(&r, t, D_UNIFORM, keys, n);
  long failures = 0, step;
  for (step = 0; step < 500; step++) {
    char value[32];
    snprintf(value, sizeof value, "%ld", step);
    t_setenv("CLSORT_FAIL_ALLOC_AFTER", value);
    clsort_context *c = NULL;
    clsort_status st = t_context_create(&c);
    t_unsetenv("CLSORT_FAIL_ALLOC_AFTER");
    if (st == CLSORT_ERROR_OUT_OF_MEMORY) continue;
    ASSERT_OK(st);
    t_own_context(c);
    t_label("%s %s n=%zu, CLSORT_FAIL_ALLOC_AFTER=%ld", _i ? "argsort" : "sort_pairs",
            clsort_type_name(t), n, step);
    memcpy(work, keys, n * es);
    if (_i) {
      t_poison(vwork, n * vs);
      st = clsort_argsort(c, t, work, vwork, vs, n, &o);
    } else {
      t_fill_pair_values(vals, vs, n);
      memcpy(vwork, vals, n * vs);
      st = clsort_sort_pairs(c, t, work, vwork, vs, n, &o);
    }
    if (st == CLSORT_SUCCESS) {
      t_release_now(c);
      break;
    }
    ASSERT_STATUS(st, CLSORT_ERROR_OUT_OF_MEMORY);
    ASSERT_EQ_ELEMS(work, keys, n, es);
    if (_i)
      ASSERT_POISON(vwork, 0, n * vs);
    else
      ASSERT_EQ_ELEMS(vwork, vals, n, vs);
    failures++;
    t_release_now(c);
  }
  t_label("%s: the walk", _i ? "argsort" : "sort_pairs");
  printf("  sample_out_of_memory[%d]: %ld failed allocations in %ld steps\n", _i, failures, step);
  ASSERT_LT_U64(step, 500);
  ASSERT_GT_U64(failures, 0);
  /* The result of the call that succeeded. */
  size_t *perm = t_ref_permutation(t, keys, n, &o);
  unsigned char *want = t_alloc(n * es);
  t_gather(keys, perm, n, es, want);
  if (_i) {
    ASSERT_EQ_ELEMS(work, keys, n, es);
    unsigned char *sorted = t_alloc(n * es);
    for (size_t i = 0; i < n; i++)
      memcpy(sorted + i * es, keys + t_get_payload(vwork, i, vs) * es, es);
    ASSERT_EQ_ELEMS(sorted, want, n, es);
    t_check_payload_permutation(t, keys, want, vwork, vs, n, true);
  } else {
    ASSERT_EQ_ELEMS(work, want, n, es);
    t_check_payload_permutation(t, keys, want, vwork, vs, n, false);
  }
}

/* ------------------------------------------------------------ slow tier */
/* From 2^22 keys: u32 in three modes, u64 pairs, few distinct f32, i64
 * gaussian argsort, all-equal u32 pairs. _i = case. */
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
    {CLSORT_U32, D_ZERO, (1u << 22) + 3, 0u, 1u << M_PAIRS8},
};
#define NLARGE (sizeof large_cases / sizeof large_cases[0])

T_TEST(sample_large) {
  clsort_type t = large_cases[_i].t;
  if (t_skip_type(t) || !type_in_part(t)) return;
  t_rng r;
  t_rng_init(&r, "sample_large");
  r.s[0] ^= (uint64_t)_i;
  clsort_options o = sample(large_cases[_i].flags & CLSORT_DESCENDING);
  t_check_dist(&r, t, large_cases[_i].dist, large_cases[_i].n, &o, large_cases[_i].modes);
}

/* The multi-work-item scatter at 2^22 + 1, u32 keys and pairs. */
T_TEST(sample_tiled_large) {
  t_rng r;
  t_rng_init(&r, "sample_tiled_large");
  clsort_options o = sample(false);
  t_check_dist(&r, CLSORT_U32, D_UNIFORM, (1u << 22) + 1, &o, (1u << M_KEYS) | (1u << M_PAIRS8));
}

/* ------------------------------------------------------------------ main */
static void tiled_setup(void) { t_shape_setup(TILED_TUNING); }

static void add_common(TCase *tc) {
  tcase_add_loop_test(tc, sample_matrix, 0, 6 * D_COUNT);
  tcase_add_loop_test(tc, sample_edge_sizes, 0, 6);
  tcase_add_loop_test(tc, sample_adversarial, 0, 6 * A_COUNT);
  tcase_add_loop_test(tc, sample_special_values, 0, 6);
  tcase_add_loop_test(tc, sample_buffer_form, 0, 6);
  tcase_add_loop_test(tc, sample_config, 0, (int)NCONFIG);
}

static void add(Suite *s, unsigned tiers) {
  bool cpu = t_part_selected("32") || t_part_selected("64");
  if (tiers & T_QUICK) {
    if (cpu) {
      TCase *tc = t_tcase(s, "cpu", true);
      add_common(tc);
      tcase_add_loop_test(tc, sample_cpu_levels, 0, 6 * (int)NCPU_LEVELS);
      tcase_add_loop_test(tc, sample_scratch_memory, 0, 2);
      tcase_add_loop_test(tc, sample_out_of_memory, 0, 2);
      tcase_add_loop_test(tc, sample_unsupported, 0, 6);
      tcase_add_test(tc, sample_zero_length);
    }
    if (t_part_selected("tiled")) {
      TCase *tc = t_shape_tcase(s, "tiled", tiled_setup);
      add_common(tc);
      tcase_add_loop_test(tc, sample_leaf_bitonic, 0, 6);
      tcase_add_loop_test(tc, sample_leaf_plan, 0, 6);
      tcase_add_loop_test(tc, sample_ids, 0, 2);
    }
  }
  if (tiers & T_SLOW) {
    if (cpu) {
      TCase *tc = t_tcase(s, "large", true);
      tcase_add_loop_test(tc, sample_large, 0, (int)NLARGE);
    }
    if (t_part_selected("tiled")) {
      TCase *tc = t_shape_tcase(s, "tiled_large", tiled_setup);
      tcase_add_loop_test(tc, sample_tiled_large, 0, 1);
    }
  }
}

int main(int argc, char **argv) { return t_main(argc, argv, "sample", add); }
