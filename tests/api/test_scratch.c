/* test_scratch.c: caller scratch. clsort_scratch_bytes gives a size; a
 * buffer of that size handed to the context with clsort_context_set_scratch
 * serves the call (its output checked against the CPU reference) with no
 * device memory of the context's own; a buffer too small fails with
 * CLSORT_ERROR_MEMORY_LIMIT and leaves the data as it was; the error
 * paths of both functions. */
#define _POSIX_C_SOURCE 200809L
#include "sorts/sort_check.h"

#include <stdlib.h>

/* The context's scratch is given back, so that memory_used counts only
 * what the next call allocates. */
static void drop_own_scratch(void) {
  ASSERT_EQ_U64(clsort_context_set_scratch(T_CTX, NULL, 0), CLSORT_SUCCESS);
}

static cl_mem scratch_of(size_t bytes) { return t_buffer(bytes ? bytes : 16, NULL); }

/* The sort, top-k and segmented sort of n random u32 keys through their
 * buffer forms, twice each, in a caller scratch of the measured size:
 * right results, and no device memory allocated by the context. */
T_TEST(scratch_serves_calls) {
  t_rng r;
  t_rng_init(&r, "scratch_serves");
  size_t n = 100000, k = 50;
  clsort_options radix = {CLSORT_RADIX, 0u, 0u, 0u};
  size_t sort_bytes, topk_bytes, seg_bytes, merge_bytes;
  t_label("scratch_bytes");
  ASSERT_EQ_U64(
      clsort_scratch_bytes(T_CTX, CLSORT_OP_SORT_PAIRS, CLSORT_U32, n, 4, &radix, &sort_bytes),
      CLSORT_SUCCESS);
  ASSERT_EQ_U64(clsort_scratch_bytes(T_CTX, CLSORT_OP_TOP_K, CLSORT_U32, n, 4, NULL, &topk_bytes),
                CLSORT_SUCCESS);
  ASSERT_EQ_U64(
      clsort_scratch_bytes(T_CTX, CLSORT_OP_SEGMENTED_SORT, CLSORT_U32, n, 0, NULL, &seg_bytes),
      CLSORT_SUCCESS);
  ASSERT_EQ_U64(clsort_scratch_bytes(T_CTX, CLSORT_OP_MERGE, CLSORT_U32, n, 0, NULL, &merge_bytes),
                CLSORT_SUCCESS);
  /* A pairs sort needs at least a copy of the keys and of the values. */
  ASSERT_GE_U64(sort_bytes, n * 8);
  ASSERT_GE_U64(topk_bytes, n);
  /* A merge's only scratch is its co-rank table: 8 bytes per tile (of 256
   * outputs or more: tests force 16 x 16 groups). */
  /* (plus the rounding up to the device's buffer alignment, 512 bytes on PoCL) */
  ASSERT_LE_U64(merge_bytes, n / 16 + 1024);
  size_t most = sort_bytes > topk_bytes ? sort_bytes : topk_bytes;
  most = most > seg_bytes ? most : seg_bytes;

  uint32_t *keys = t_alloc(n * 4), *vals = t_alloc(n * 4), *got = t_alloc(n * 4);
  uint32_t *idx = t_alloc(k * 4);
  t_fill_random(&r, CLSORT_U32, keys, n);
  for (size_t i = 0; i < n; i++) vals[i] = (uint32_t)i;
  size_t *perm = t_ref_permutation(CLSORT_U32, keys, n, &radix);
  cl_mem bk = t_buffer(n * 4, keys), bv = t_buffer(n * 4, vals);
  cl_mem bo = t_buffer(k * 4, NULL), bi = t_buffer(k * 4, NULL);
  drop_own_scratch();
  ASSERT_EQ_U64(clsort_context_set_scratch(T_CTX, scratch_of(most), most), CLSORT_SUCCESS);
  for (int rep = 0; rep < 2; rep++) {
    t_label("top_k_buffer in caller scratch, run %d", rep);
    ASSERT_EQ_U64(clsort_top_k_buffer(T_CTX, CLSORT_U32, bk, n, k, bo, bi, 4, NULL, 0, NULL, NULL),
                  CLSORT_SUCCESS);
    t_read_into(bi, idx, k * 4);
    t_check_payload_exact(idx, 4, perm, k, true);
    ASSERT_EQ_U64(clsort_context_memory_used(T_CTX), 0);
  }
  uint64_t offsets[4] = {0, 10, n / 2, n};
  t_label("segmented_sort_buffer in caller scratch");
  ASSERT_EQ_U64(clsort_segmented_sort_buffer(T_CTX, CLSORT_U32, bk, NULL, 0, n, offsets, 3, NULL, 0,
                                             NULL, NULL),
                CLSORT_SUCCESS);
  t_read_into(bk, got, n * 4);
  for (size_t s = 0; s < 3; s++)
    t_check_sorted(CLSORT_U32, got + offsets[s], (size_t)(offsets[s + 1] - offsets[s]), &radix);
  ASSERT_EQ_U64(clsort_context_memory_used(T_CTX), 0);
  for (int rep = 0; rep < 2; rep++) {
    t_label("sort_buffer pairs in caller scratch, run %d", rep);
    t_fill_random(&r, CLSORT_U32, keys, n);
    perm = t_ref_permutation(CLSORT_U32, keys, n, &radix);
    bk = t_buffer(n * 4, keys);
    bv = t_buffer(n * 4, vals);
    ASSERT_EQ_U64(clsort_sort_buffer(T_CTX, CLSORT_U32, bk, bv, 4, n, &radix, 0, NULL, NULL),
                  CLSORT_SUCCESS);
    t_read_into(bv, got, n * 4);
    t_check_payload_exact(got, 4, perm, n, false);
    ASSERT_EQ_U64(clsort_context_memory_used(T_CTX), 0);
  }
  ASSERT_EQ_U64(clsort_context_set_scratch(T_CTX, NULL, 0), CLSORT_SUCCESS);
}

/* Select and top-k in exactly the measured scratch, on random keys and
 * on keys with eight equal top bytes (the radix select keeps an eighth of
 * the keys), at ranks the sampled path serves and at ones it leaves to
 * the radix select (the measurement's own keys are synthetic). */
T_TEST(scratch_serves_select) {
  t_rng r;
  t_rng_init(&r, "scratch_select");
  size_t n = 100000, sel_bytes, topk_bytes;
  ASSERT_EQ_U64(clsort_scratch_bytes(T_CTX, CLSORT_OP_SELECT, CLSORT_U32, n, 0, NULL, &sel_bytes),
                CLSORT_SUCCESS);
  ASSERT_EQ_U64(clsort_scratch_bytes(T_CTX, CLSORT_OP_TOP_K, CLSORT_U32, n, 4, NULL, &topk_bytes),
                CLSORT_SUCCESS);
  uint32_t *keys = t_alloc(n * 4), got = 0;
  uint32_t *idx = t_alloc(1000 * 4);
  for (int data = 0; data < 2; data++) {
    t_fill_random(&r, CLSORT_U32, keys, n);
    if (data == 1)
      for (size_t i = 0; i < n; i++) keys[i] = (keys[i] & 0x00ffffffu) | (uint32_t)(i % 8) << 24;
    clsort_options o = {CLSORT_AUTO, 0u, 0u, 0u};
    size_t *perm = t_ref_permutation(CLSORT_U32, keys, n, &o);
    cl_mem bk = t_buffer(n * 4, keys), bo = t_buffer(16, NULL);
    drop_own_scratch();
    ASSERT_EQ_U64(clsort_context_set_scratch(T_CTX, scratch_of(sel_bytes), sel_bytes),
                  CLSORT_SUCCESS);
    size_t ranks[4] = {0, 100, n / 2, n - 1};
    for (int j = 0; j < 4; j++) {
      t_label("select_buffer k=%zu in the measured scratch, keys %d", ranks[j], data);
      ASSERT_EQ_U64(clsort_select_buffer(T_CTX, CLSORT_U32, bk, n, ranks[j], bo, NULL, 0, NULL,
                                         NULL),
                    CLSORT_SUCCESS);
      t_read_into(bo, &got, 4);
      ASSERT_EQ_U64(got, keys[perm[ranks[j]]]);
    }
    ASSERT_EQ_U64(clsort_context_set_scratch(T_CTX, scratch_of(topk_bytes), topk_bytes),
                  CLSORT_SUCCESS);
    size_t kk[3] = {1, 1000, n / 4 - 1};
    for (int j = 0; j < 3; j++) {
      t_label("top_k_buffer k=%zu in the measured scratch, keys %d", kk[j], data);
      cl_mem bkk = t_buffer(kk[j] * 4, NULL), bii = t_buffer(kk[j] * 4, NULL);
      ASSERT_EQ_U64(clsort_top_k_buffer(T_CTX, CLSORT_U32, bk, n, kk[j], bkk, bii, 4, NULL, 0,
                                        NULL, NULL),
                    CLSORT_SUCCESS);
      size_t check = kk[j] < 1000 ? kk[j] : 1000;
      t_read_into(bii, idx, check * 4);
      t_check_payload_exact(idx, 4, perm, check, true);
    }
    ASSERT_EQ_U64(clsort_context_set_scratch(T_CTX, NULL, 0), CLSORT_SUCCESS);
  }
}

/* Half the measured size: CLSORT_ERROR_MEMORY_LIMIT, keys and values as
 * they were. */
T_TEST(scratch_too_small) {
  t_rng r;
  t_rng_init(&r, "scratch_small");
  size_t n = 50000, need;
  clsort_options radix = {CLSORT_RADIX, 0u, 0u, 0u};
  ASSERT_EQ_U64(clsort_scratch_bytes(T_CTX, CLSORT_OP_SORT_PAIRS, CLSORT_U64, n, 8, &radix, &need),
                CLSORT_SUCCESS);
  uint64_t *keys = t_alloc(n * 8), *vals = t_alloc(n * 8);
  t_fill_random(&r, CLSORT_U64, keys, n);
  for (size_t i = 0; i < n; i++) vals[i] = i;
  cl_mem bk = t_buffer(n * 8, keys), bv = t_buffer(n * 8, vals);
  ASSERT_EQ_U64(clsort_context_set_scratch(T_CTX, scratch_of(need / 2), need / 2), CLSORT_SUCCESS);
  t_label("sort_buffer in half the scratch it needs");
  clsort_status st = clsort_sort_buffer(T_CTX, CLSORT_U64, bk, bv, 8, n, &radix, 0, NULL, NULL);
  ASSERT_EQ_U64(st, CLSORT_ERROR_MEMORY_LIMIT);
  ASSERT_TRUE(strstr(clsort_last_error_message(), "scratch") != NULL);
  uint64_t *gk = t_read_buffer(bk, n * 8), *gv = t_read_buffer(bv, n * 8);
  ASSERT_TRUE(memcmp(gk, keys, n * 8) == 0 && memcmp(gv, vals, n * 8) == 0);
  /* The measured size then works. */
  ASSERT_EQ_U64(clsort_context_set_scratch(T_CTX, scratch_of(need), need), CLSORT_SUCCESS);
  ASSERT_EQ_U64(clsort_sort_buffer(T_CTX, CLSORT_U64, bk, bv, 8, n, &radix, 0, NULL, NULL),
                CLSORT_SUCCESS);
  gk = t_read_buffer(bk, n * 8);
  t_check_sorted(CLSORT_U64, gk, n, &radix);
  ASSERT_EQ_U64(clsort_context_set_scratch(T_CTX, NULL, 0), CLSORT_SUCCESS);
}

T_TEST(scratch_errors) {
  size_t bytes = 7;
  cl_mem buf = t_buffer(1024, NULL);
  t_label("scratch errors");
  ASSERT_EQ_U64(clsort_context_set_scratch(NULL, buf, 1024), CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ_U64(clsort_context_set_scratch(T_CTX, buf, 0), CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ_U64(clsort_context_set_scratch(T_CTX, buf, 4096), CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_TRUE(strlen(clsort_last_error_message()) > 0);
  ASSERT_EQ_U64(clsort_scratch_bytes(NULL, CLSORT_OP_SORT, CLSORT_U32, 10, 0, NULL, &bytes),
                CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ_U64(clsort_scratch_bytes(T_CTX, CLSORT_OP_SORT, CLSORT_U32, 10, 0, NULL, NULL),
                CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ_U64(clsort_scratch_bytes(T_CTX, (clsort_operation)99, CLSORT_U32, 10, 0, NULL, &bytes),
                CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ_U64(clsort_scratch_bytes(T_CTX, CLSORT_OP_ARGSORT, CLSORT_U32, 10, 4, NULL, &bytes),
                CLSORT_ERROR_UNSUPPORTED);
  ASSERT_EQ_U64(clsort_scratch_bytes(T_CTX, CLSORT_OP_SORT, (clsort_type)19, 10, 0, NULL, &bytes),
                CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ_U64(bytes, 7);
}

static void add(Suite *s, unsigned tiers) {
  if (!(tiers & T_QUICK)) return;
  TCase *tc = t_tcase(s, "scratch", true);
  tcase_add_test(tc, scratch_serves_calls);
  tcase_add_test(tc, scratch_serves_select);
  tcase_add_test(tc, scratch_too_small);
  tcase_add_test(tc, scratch_errors);
}

int main(int argc, char **argv) { return t_main(argc, argv, "scratch", add); }
