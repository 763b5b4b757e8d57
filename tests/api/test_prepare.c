/* test_prepare.c: building ahead. After clsort_prepare, the calls it
 * prepared build nothing at any size (the context's build counters stay
 * put) and still sort correctly; bad arguments get the statuses the calls
 * would give; the build callback fires before a compile from source, and
 * only then. */
#include "common.h"
#include "sorts/sort_check.h"

#include <stdlib.h>

/* The suite's disk cache (a program loaded from it counts as a build
 * too), except where a test needs an empty one. */
static void prepare_setup(void) {
  t_setup_no_ctx();
  t_unsetenv("CLSORT_CACHE");
  t_unsetenv("CLSORT_KERNEL_DIR");
}

static clsort_context *new_context(void) {
  clsort_context *c = NULL;
  ASSERT_OK(t_context_create(&c));
  return t_own_context(c);
}

static unsigned long builds(const clsort_context *c) {
  clsort__build_stats s = clsort__context_build_stats(c);
  return s.from_source + s.from_disk;
}

/* Sizes on both sides of every size class prepare runs (3000, 2^17 + 5,
 * and 2^22 + 3 on GPUs), and of the tiles of every algorithm. */
static const size_t sizes[] = {0, 1, 2, 100, 2999, 3001, 8193, 70001, ((size_t)1 << 17) + 5,
                               ((size_t)1 << 20) + 7};

typedef struct sort_case {
  clsort_operation op;
  clsort_type type;
  size_t size; /* value or index bytes */
  clsort_algorithm algorithm;
  unsigned flags;
} sort_case;

/* AUTO stands for the radix and the bitonic sort; each other algorithm
 * once, in another type and mode, to keep CI's compile time in bounds. */
static const sort_case sort_cases[] = {
    {CLSORT_OP_SORT, CLSORT_U32, 0, CLSORT_AUTO, 0},
    {CLSORT_OP_SORT_PAIRS, CLSORT_F64, 8, CLSORT_MERGE, CLSORT_STABLE},
    {CLSORT_OP_ARGSORT, CLSORT_I32, 4, CLSORT_QUICK, 0},
    {CLSORT_OP_SORT, CLSORT_U64, 0, CLSORT_SAMPLE, CLSORT_DESCENDING},
    /* The 16-bit keys' widening and narrowing kernels, beside the u32 sorts. */
    {CLSORT_OP_SORT_PAIRS, CLSORT_F16, 4, CLSORT_AUTO, CLSORT_DESCENDING},
};

/* Prepares one case, then runs its call at every size: nothing is built,
 * and every output is sorted (and a permutation carrying its payloads). */
T_TEST(prepared_sorts_build_nothing_later) {
  const sort_case *k = &sort_cases[_i];
  clsort_context *c = new_context();
  if (k->type == CLSORT_F64 && !t_device_has_fp64(c)) return;
  clsort_options o = {k->algorithm, k->flags, 0, 0};
  t_label("prepare op %d %s size %zu algorithm %d", (int)k->op, clsort_type_name(k->type),
          k->size, (int)k->algorithm);
  ASSERT_OK(clsort_prepare(c, k->op, k->type, k->size, &o));
  unsigned long before = builds(c);
  ASSERT_GT_U64(before, 0);
  t_rng r;
  t_rng_init(&r, "prepare");
  size_t es = clsort_type_size(k->type);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t n = sizes[s];
    t_label("op %d %s n=%zu after prepare", (int)k->op, clsort_type_name(k->type), n);
    unsigned char *keys = t_alloc(n * es + 8), *vals = t_alloc(n * 8 + 8);
    t_fill_random(&r, k->type, keys, n);
    if (k->op == CLSORT_OP_SORT) {
      ASSERT_OK(clsort_sort(c, k->type, keys, n, &o));
    } else if (k->op == CLSORT_OP_SORT_PAIRS) {
      t_fill_bytes(&r, vals, n * k->size);
      ASSERT_OK(clsort_sort_pairs(c, k->type, keys, vals, k->size, n, &o));
    } else {
      unsigned char *orig = t_alloc(n * es + 8);
      memcpy(orig, keys, n * es);
      ASSERT_OK(clsort_argsort(c, k->type, keys, vals, k->size, n, &o));
      ASSERT_EQ_ELEMS(keys, orig, n, es); /* argsort leaves the keys alone */
      unsigned char *seen = t_alloc(n + 1);
      memset(seen, 0, n + 1);
      for (size_t i = 0; i < n; i++) {
        uint64_t at = k->size == 4 ? ((uint32_t *)(void *)vals)[i] : ((uint64_t *)(void *)vals)[i];
        ASSERT_LT_U64(at, n);
        ASSERT_EQ_U64(seen[at]++, 0); /* a permutation */
        memcpy(keys + i * es, orig + at * es, es); /* keys in the order found */
      }
      t_release_now(seen);
      t_release_now(orig);
    }
    t_check_sorted(k->type, keys, n, &o);
    ASSERT_EQ_U64(builds(c), before);
    t_release_now(vals);
    t_release_now(keys);
  }
}

/* The 0.3 operations: one prepare each, then calls at sizes up to the
 * largest prepared, with every path each may take, build nothing. */
T_TEST(prepared_operations_build_nothing_later) {
  clsort_context *c = new_context();
  ASSERT_OK(clsort_prepare(c, CLSORT_OP_MERGE, CLSORT_U32, 4, NULL));
  ASSERT_OK(clsort_prepare(c, CLSORT_OP_TOP_K, CLSORT_U32, 8, NULL));
  ASSERT_OK(clsort_prepare(c, CLSORT_OP_SELECT, CLSORT_U32, 0, NULL));
  ASSERT_OK(clsort_prepare(c, CLSORT_OP_SEGMENTED_SORT, CLSORT_U32, 4, NULL));
  unsigned long before = builds(c);
  t_rng r;
  t_rng_init(&r, "prepare operations");
  size_t ns[] = {1, 100, 2999, 70001};
  for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++) {
    size_t n = ns[s];
    t_label("operations n=%zu after prepare", n);
    uint32_t *a = t_alloc(n * 4), *out = t_alloc(n * 4), *v = t_alloc(n * 4);
    uint64_t *idx = t_alloc(n * 8);
    t_fill_random(&r, CLSORT_U32, a, n);
    for (size_t i = 0; i < n; i++) v[i] = (uint32_t)i;
    ASSERT_OK(
        clsort_merge_pairs(c, CLSORT_U32, a, v, n / 2, a + n / 2, v, n - n / 2, out, idx, 4, NULL));
    ASSERT_OK(clsort_top_k(c, CLSORT_U32, a, n, n < 7 ? n : 7, out, idx, 8, NULL));
    ASSERT_OK(clsort_top_k(c, CLSORT_U32, a, n, n, out, idx, 8, NULL));
    ASSERT_OK(clsort_select(c, CLSORT_U32, a, n, n / 3, out, NULL));
    uint64_t offsets[3] = {0, n / 3, n};
    ASSERT_OK(clsort_segmented_sort(c, CLSORT_U32, a, v, 4, n, offsets, 2, NULL));
  }
  ASSERT_EQ_U64(builds(c), before);
}

/* The primitives: one prepare each, then calls at every size. */
T_TEST(prepared_primitives_build_nothing_later) {
  clsort_context *c = new_context();
  ASSERT_OK(clsort_prepare(c, CLSORT_OP_SCAN, CLSORT_F32, 0, NULL));
  ASSERT_OK(clsort_prepare(c, CLSORT_OP_REDUCE, CLSORT_I64, 0, NULL));
  ASSERT_OK(clsort_prepare(c, CLSORT_OP_COMPACT, CLSORT_U32, 16, NULL));
  ASSERT_OK(clsort_prepare(c, CLSORT_OP_BUCKET_OFFSETS, CLSORT_U64, 0, NULL));
  unsigned long before = builds(c);
  t_rng r;
  t_rng_init(&r, "prepare primitives");
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t n = sizes[s], count;
    t_label("primitives n=%zu after prepare", n);
    float *f = t_alloc(n * 4 + 4), *fo = t_alloc(n * 4 + 4);
    t_fill_float_ints(&r, CLSORT_F32, f, n, -3, 3);
    ASSERT_OK(clsort_scan(c, CLSORT_F32, CLSORT_SCAN_INCLUSIVE, f, fo, n));
    int64_t *l = t_alloc(n * 8 + 8), sum, want;
    t_fill_int(&r, CLSORT_I64, l, n);
    ASSERT_OK(clsort_reduce(c, CLSORT_I64, CLSORT_REDUCE_MAX, l, n, &sum));
    t_ref_reduce(CLSORT_I64, CLSORT_REDUCE_MAX, l, n, &want, NULL, NULL);
    ASSERT_EQ_I64(sum, want);
    unsigned char *e = t_alloc(n * 16 + 16), *eo = t_alloc(n * 16 + 16), *fl = t_alloc(n + 1);
    unsigned char *want_e = t_alloc(n * 16 + 16);
    t_fill_bytes(&r, e, n * 16);
    t_fill_bytes(&r, fl, n);
    ASSERT_OK(clsort_compact(c, 16, e, fl, eo, n, &count));
    ASSERT_EQ_U64(count, t_ref_select(16, false, e, fl, want_e, n));
    ASSERT_EQ_ELEMS(eo, want_e, count, 16);
    unsigned *ids = t_alloc(n * 4 + 4);
    for (size_t i = 0; i < n; i++) ids[i] = (unsigned)t_rng_below(&r, 300);
    uint64_t *offsets = t_alloc((n / 777 + 1) * 300 * 8);
    ASSERT_OK(clsort_bucket_offsets(c, ids, n, 300, 777, CLSORT_U64, offsets));
    ASSERT_EQ_U64(builds(c), before);
    t_release_now(offsets);
    t_release_now(ids);
    t_release_now(want_e);
    t_release_now(fl);
    t_release_now(eo);
    t_release_now(e);
    t_release_now(l);
    t_release_now(fo);
    t_release_now(f);
  }
}

/* Each status the matching call gives, and nothing built for it. */
T_TEST(prepare_refuses_what_the_call_refuses) {
  clsort_context *c = new_context();
  clsort_options bad_algorithm = {(clsort_algorithm)99, 0, 0, 0};
  clsort_options stable_bitonic = {CLSORT_BITONIC, CLSORT_STABLE, 0, 0};
  clsort_options bad_bits = {CLSORT_RADIX, 0, 5, 40};
  ASSERT_STATUS(clsort_prepare(NULL, CLSORT_OP_SORT, CLSORT_U32, 0, NULL),
                CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_STATUS(clsort_prepare(c, (clsort_operation)42, CLSORT_U32, 0, NULL),
                CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_STATUS(clsort_prepare(c, CLSORT_OP_SORT, (clsort_type)77, 0, NULL),
                CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_STATUS(clsort_prepare(c, CLSORT_OP_SORT_PAIRS, CLSORT_U32, 3, NULL),
                CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_STATUS(clsort_prepare(c, CLSORT_OP_ARGSORT, CLSORT_U32, 16, NULL),
                CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_STATUS(clsort_prepare(c, CLSORT_OP_SORT, CLSORT_U32, 0, &bad_algorithm),
                CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_STATUS(clsort_prepare(c, CLSORT_OP_SORT, CLSORT_U32, 0, &bad_bits),
                CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_STATUS(clsort_prepare(c, CLSORT_OP_SORT, CLSORT_U32, 0, &stable_bitonic),
                CLSORT_ERROR_UNSUPPORTED);
  ASSERT_STATUS(clsort_prepare(c, CLSORT_OP_COMPACT, CLSORT_U32, 3, NULL),
                CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_STATUS(clsort_prepare(c, CLSORT_OP_BUCKET_OFFSETS, CLSORT_F32, 0, NULL),
                CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ_U64(builds(c), 0);
}

typedef struct callback_log {
  unsigned calls;
  char device[256];
  char cache_dir[4096];
} callback_log;

static void on_build(const char *device_name, const char *cache_dir, void *user) {
  callback_log *log = user;
  log->calls++;
  snprintf(log->device, sizeof log->device, "%s", device_name ? device_name : "(null)");
  snprintf(log->cache_dir, sizeof log->cache_dir, "%s", cache_dir ? cache_dir : "(null)");
}

/* The callback names the device and the cache folder before a compile
 * from source; a second context, which loads from the disk cache, and a
 * call served from memory call nothing; NULL removes it. */
T_TEST(build_callback_fires_before_compiles_only) {
  t_setenv("CLSORT_CACHE_DIR", t_temp_dir("callback-cache"));
  t_setenv("CLSORT_CACHE", "1"); /* the library's own cache, also on PoCL */
  clsort_context *c = new_context();
  callback_log *log = t_alloc(sizeof *log);
  memset(log, 0, sizeof *log);
  clsort_context_set_build_callback(c, on_build, log);
  uint32_t keys[64];
  for (unsigned i = 0; i < 64; i++) keys[i] = (i * 37u) % 64u;
  clsort_options o = {CLSORT_BITONIC, 0, 0, 0};
  ASSERT_OK(clsort_sort(c, CLSORT_U32, keys, 64, &o));
  ASSERT_GT_U64(log->calls, 0);
  ASSERT_EQ_STR(log->device, clsort_context_device_name(c));
  ASSERT_EQ_STR(log->cache_dir, clsort_context_cache_dir(c));
  unsigned after_first = log->calls;
  ASSERT_OK(clsort_sort(c, CLSORT_U32, keys, 64, &o));
  ASSERT_EQ_U64(log->calls, after_first);

  clsort_context *d = new_context();
  callback_log *log2 = t_alloc(sizeof *log2);
  memset(log2, 0, sizeof *log2);
  clsort_context_set_build_callback(d, on_build, log2);
  ASSERT_OK(clsort_sort(d, CLSORT_U32, keys, 64, &o));
  ASSERT_EQ_U64(log2->calls, 0); /* loaded from the disk cache */

  clsort_context_set_build_callback(c, NULL, NULL);
  clsort_options radix = {CLSORT_RADIX, 0, 0, 0};
  ASSERT_OK(clsort_sort(c, CLSORT_U32, keys, 64, &radix)); /* compiles, unseen */
  ASSERT_EQ_U64(log->calls, after_first);
  clsort_context_set_build_callback(NULL, on_build, log); /* accepted, ignored */
  ASSERT_NULL(clsort_context_cache_dir(NULL));
}

/* CLSORT_CACHE=0: no folder to name. */
T_TEST(cache_dir_is_null_when_the_disk_cache_is_off) {
  t_setenv("CLSORT_CACHE", "0");
  clsort_context *c = new_context();
  ASSERT_NULL(clsort_context_cache_dir(c));
}

static void add(Suite *s, unsigned tiers) {
  if (!(tiers & T_QUICK)) return;
  TCase *tc = t_tcase(s, "prepare", false);
  tcase_add_checked_fixture(tc, prepare_setup, t_teardown);
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, prepared_sorts_build_nothing_later, 0,
                      (int)(sizeof sort_cases / sizeof sort_cases[0]));
  tcase_add_test(tc, prepared_primitives_build_nothing_later);
  tcase_add_test(tc, prepared_operations_build_nothing_later);
  tcase_add_test(tc, prepare_refuses_what_the_call_refuses);
  tcase_add_test(tc, build_callback_fires_before_compiles_only);
  tcase_add_test(tc, cache_dir_is_null_when_the_disk_cache_is_off);
}

int main(int argc, char **argv) { return t_main(argc, argv, "prepare", add); }
