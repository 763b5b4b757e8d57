/* test_memory.c: the device memory limit and pinned host memory (issue
 * 17). Host-array sorts larger than the limit go out of core and must be
 * as right as in core (every type, keys, pairs and argsort, stable and
 * not, both directions); the library never holds more than the limit; a
 * limit too small for one chunk fails with CLSORT_ERROR_MEMORY_LIMIT and
 * leaves the input as it was; the progress callback climbs to its total;
 * clsort_host_alloc memory sorts like any other and frees only what it
 * gave. */
#include "common.h"
#include "sorts/sort_check.h"

#include <stdlib.h>
#include <string.h>

enum { LIMIT = 1 << 20 };

static const clsort_options plain = {CLSORT_AUTO, 0u, 0u, 0u};

static void count_calls(uint64_t done, uint64_t total, void *user) {
  (void)done;
  (void)total;
  ++*(unsigned *)user;
}

static void limited_setup(void) {
  t_setup();
  ASSERT_OK(clsort_context_set_memory_limit(T_CTX, LIMIT));
}

/* 200003 keys of 8 bytes with 8-byte values are 3.2 MB: several chunks
 * of a 1 MiB limit, for every type and mode. */
T_TEST(out_of_core_sorts_are_right) {
  static const clsort_algorithm algs[] = {CLSORT_AUTO, CLSORT_RADIX, CLSORT_MERGE};
  clsort_type t = (clsort_type)(_i % 6);
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "out_of_core");
  clsort_options o = {algs[(_i / 6) % 3], 0u, 0u, 0u};
  if (_i & 1) o.flags |= CLSORT_DESCENDING;
  if (_i % 4 < 2) o.flags |= CLSORT_STABLE;
  int dist = (_i / 6) % 2 ? D_FEW : D_UNIFORM;
  /* Progress is reported by out-of-core sorts only: proof that they ran. */
  unsigned calls = 0;
  clsort_context_set_progress_callback(T_CTX, count_calls, &calls);
  t_check_dist(&r, t, dist, 200003, &o, MODES_ALL);
  clsort_context_set_progress_callback(T_CTX, NULL, NULL);
  ASSERT_TRUE(calls > 0);
  ASSERT_TRUE(clsort_context_memory_used(T_CTX) <= LIMIT);
}

T_TEST(limit_is_kept_and_reported) {
  ASSERT_EQ_U64(clsort_context_memory_limit(T_CTX), LIMIT);
  enum { N = 300001 };
  uint32_t *k = t_alloc(N * 4);
  t_rng r;
  t_rng_init(&r, "limit");
  t_fill_random(&r, CLSORT_U32, k, N);
  ASSERT_OK(clsort_sort(T_CTX, CLSORT_U32, k, N, NULL));
  t_check_sorted(CLSORT_U32, k, N, &plain);
  ASSERT_TRUE(clsort_context_memory_used(T_CTX) <= LIMIT);
  /* Lowering the limit releases what the context keeps beyond it. */
  ASSERT_OK(clsort_context_set_memory_limit(T_CTX, LIMIT / 4));
  ASSERT_TRUE(clsort_context_memory_used(T_CTX) <= LIMIT / 4);
  ASSERT_OK(clsort_context_set_memory_limit(T_CTX, 0));
  ASSERT_EQ_U64(clsort_context_memory_limit(T_CTX), 0);
  ASSERT_STATUS(clsort_context_set_memory_limit(NULL, LIMIT), CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ_U64(clsort_context_memory_limit(NULL), 0);
  ASSERT_EQ_U64(clsort_context_memory_used(NULL), 0);
}

T_TEST(too_small_a_limit_fails_and_changes_nothing) {
  ASSERT_OK(clsort_context_set_memory_limit(T_CTX, 4096));
  enum { N = 100000 };
  uint64_t *k = t_alloc(N * 8), *before = t_alloc(N * 8);
  uint32_t *v = t_alloc(N * 4), *vbefore = t_alloc(N * 4);
  t_rng r;
  t_rng_init(&r, "too_small");
  t_fill_random(&r, CLSORT_U64, k, N);
  t_fill_pair_values(v, 4, N);
  memcpy(before, k, N * 8);
  memcpy(vbefore, v, N * 4);
  ASSERT_STATUS(clsort_sort(T_CTX, CLSORT_U64, k, N, NULL), CLSORT_ERROR_MEMORY_LIMIT);
  ASSERT_STR_NONEMPTY(clsort_last_error_message());
  ASSERT_STATUS(clsort_sort_pairs(T_CTX, CLSORT_U64, k, v, 4, N, NULL),
                CLSORT_ERROR_MEMORY_LIMIT);
  ASSERT_TRUE(memcmp(k, before, N * 8) == 0);
  ASSERT_TRUE(memcmp(v, vbefore, N * 4) == 0);
  /* The context still works once the limit is lifted. */
  ASSERT_OK(clsort_context_set_memory_limit(T_CTX, 0));
  ASSERT_OK(clsort_sort(T_CTX, CLSORT_U64, k, N, NULL));
  t_check_sorted(CLSORT_U64, k, N, &plain);
}

typedef struct progress_log {
  uint64_t last_done, total;
  unsigned calls;
  bool decreased, total_changed;
} progress_log;

static void on_progress(uint64_t done, uint64_t total, void *user) {
  progress_log *p = user;
  if (p->calls && done < p->last_done) p->decreased = true;
  if (p->calls && total != p->total) p->total_changed = true;
  p->last_done = done;
  p->total = total;
  p->calls++;
}

T_TEST(progress_climbs_to_its_total) {
  enum { N = 400003 };
  uint32_t *k = t_alloc(N * 4), *v = t_alloc(N * 4);
  t_rng r;
  t_rng_init(&r, "progress");
  t_fill_random(&r, CLSORT_U32, k, N);
  t_fill_pair_values(v, 4, N);
  progress_log p = {0, 0, 0, false, false};
  clsort_context_set_progress_callback(T_CTX, on_progress, &p);
  ASSERT_OK(clsort_sort_pairs(T_CTX, CLSORT_U32, k, v, 4, N, NULL));
  clsort_context_set_progress_callback(T_CTX, NULL, NULL);
  t_check_sorted(CLSORT_U32, k, N, &plain);
  ASSERT_TRUE(p.calls > 1);
  ASSERT_FALSE(p.decreased);
  ASSERT_FALSE(p.total_changed);
  ASSERT_EQ_U64(p.last_done, p.total);
  /* Each byte of keys and values counted up and down. */
  ASSERT_EQ_U64(p.total, (uint64_t)N * 8 * 2);
}

T_TEST(pinned_host_memory_sorts_and_frees) {
  enum { N = 70001 };
  void *p = NULL;
  ASSERT_OK(clsort_host_alloc(T_CTX, N * 8, &p));
  ASSERT_NOT_NULL(p);
  t_rng r;
  t_rng_init(&r, "pinned");
  t_fill_random(&r, CLSORT_F64, p, N);
  ASSERT_OK(clsort_sort(T_CTX, CLSORT_F64, p, N, NULL));
  t_check_sorted(CLSORT_F64, p, N, &plain);
  /* Only the start of an allocation frees it. */
  ASSERT_STATUS(clsort_host_free(T_CTX, (char *)p + 8), CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_OK(clsort_host_free(T_CTX, p));
  ASSERT_STATUS(clsort_host_free(T_CTX, p), CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_OK(clsort_host_free(T_CTX, NULL));
  void *q = (void *)&r;
  ASSERT_STATUS(clsort_host_alloc(T_CTX, 0, &q), CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_NULL(q);
  ASSERT_STATUS(clsort_host_alloc(NULL, 16, &q), CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_STATUS(clsort_host_alloc(T_CTX, 16, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
}

/* CLSORT_DEVICE_MEMORY_LIMIT sets the limit of a new context. */
T_TEST(environment_sets_the_limit) {
  t_setenv("CLSORT_DEVICE_MEMORY_LIMIT", "1.5M");
  clsort_context *c = NULL;
  ASSERT_OK(t_context_create(&c));
  t_own_context(c);
  ASSERT_EQ_U64(clsort_context_memory_limit(c), (uint64_t)3 << 19);
}

static void add(Suite *s, unsigned tiers) {
  if (!(tiers & T_QUICK)) return;
  TCase *tc = t_tcase(s, "memory", false);
  tcase_add_checked_fixture(tc, limited_setup, t_teardown);
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, out_of_core_sorts_are_right, 0, 12);
  tcase_add_test(tc, limit_is_kept_and_reported);
  tcase_add_test(tc, too_small_a_limit_fails_and_changes_nothing);
  tcase_add_test(tc, progress_climbs_to_its_total);
  tcase_add_test(tc, pinned_host_memory_sorts_and_frees);
  tcase_add_test(tc, environment_sets_the_limit);
}

int main(int argc, char **argv) { return t_main(argc, argv, "memory", add); }
