/* test_faults.c: fault injection. CLSORT_FAIL_ALLOC_AFTER=N fails the
 * (N+1)-th allocation of a context created while it is set; walking N up
 * from 0 until the call succeeds reaches every allocation site, each of
 * which must return CLSORT_ERROR_OUT_OF_MEMORY, leak nothing and modify
 * nothing. CLSORT_FAIL_BUILD=1 fails every program build. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <dirent.h>
#include <stdlib.h>

#define MAX_SITES 2000 /* the walk fails if a call still fails this far in */

enum { N = 20011, NB = 64, TILE = 1024, P = (N + TILE - 1) / TILE };

/* One operation under test: inputs, the expected output, and where the
 * call writes. Host outputs and output buffers are poisoned before each
 * attempt and must stay poisoned when it fails. */
typedef struct op_state {
  clsort_context *ctx;
  unsigned char in[N * 8], in_copy[N * 8];
  unsigned char flags[N];
  unsigned buckets[N];
  unsigned char out[(N + 16) * 8];
  unsigned char want[N * 8 > NB * P * 8 ? N * 8 : NB * P * 8];
  size_t want_bytes;
  size_t count, want_count;
  unsigned char count_raw[16]; /* the count buffer as read back */
  cl_mem bin, bflags, bout, bcount; /* made by the test, not the library */
} op_state;

static op_state *S;
static long walk_n_ = -1; /* the CLSORT_FAIL_ALLOC_AFTER value being tried */
static clsort_status walk_status_; /* and what the call returned */

typedef struct fault_op {
  const char *name;
  bool buffers;                       /* uses S->bin etc. */
  clsort_status final;                /* the status once no allocation fails */
  void (*prepare)(void);              /* fills S->in, S->want; once per test */
  clsort_status (*run)(clsort_context *ctx);
} fault_op;

/* ---------------------------------------------------------------- ops */
static void prep_scan(void) {
  t_rng r;
  t_rng_init(&r, "faults scan");
  t_fill_int(&r, CLSORT_U32, S->in, N);
  t_ref_scan_int(CLSORT_U32, CLSORT_SCAN_INCLUSIVE, S->in, S->want, N);
  S->want_bytes = N * 4;
}
static clsort_status run_scan_host(clsort_context *c) {
  return clsort_scan(c, CLSORT_U32, CLSORT_SCAN_INCLUSIVE, S->in, S->out, N);
}
static clsort_status run_scan_buffer(clsort_context *c) {
  return clsort_scan_buffer(c, CLSORT_U32, CLSORT_SCAN_INCLUSIVE, S->bin, S->bout, N, 0, NULL,
                            NULL);
}

static void prep_scan64(void) {
  t_rng r;
  t_rng_init(&r, "faults scan64");
  t_fill_int(&r, CLSORT_I64, S->in, N);
  t_ref_scan_int(CLSORT_I64, CLSORT_SCAN_EXCLUSIVE, S->in, S->want, N);
  S->want_bytes = N * 8;
}
static clsort_status run_scan64_in_place(clsort_context *c) {
  return clsort_scan_buffer(c, CLSORT_I64, CLSORT_SCAN_EXCLUSIVE, S->bout, S->bout, N, 0, NULL,
                            NULL);
}

static void prep_reduce(void) {
  t_rng r;
  t_rng_init(&r, "faults reduce");
  t_fill_int(&r, CLSORT_I64, S->in, N);
  t_ref_reduce(CLSORT_I64, CLSORT_REDUCE_MIN, S->in, N, S->want, NULL, NULL);
  S->want_bytes = 8;
}
static clsort_status run_reduce_host(clsort_context *c) {
  return clsort_reduce(c, CLSORT_I64, CLSORT_REDUCE_MIN, S->in, N, S->out);
}
static clsort_status run_reduce_buffer(clsort_context *c) {
  return clsort_reduce_buffer(c, CLSORT_I64, CLSORT_REDUCE_MIN, S->bin, N, S->bout, 0, NULL, NULL);
}

static void prep_select(bool split, size_t es) {
  t_rng r;
  t_rng_init(&r, "faults select");
  t_fill_bytes(&r, S->in, N * es);
  for (size_t i = 0; i < N; i++) S->flags[i] = (unsigned char)(t_rng_below(&r, 3) == 0);
  S->want_count = t_ref_select(es, split, S->in, S->flags, S->want, N);
  S->want_bytes = (split ? N : S->want_count) * es;
}
static void prep_compact(void) { prep_select(false, 8); }
static void prep_split(void) { prep_select(true, 2); }
static clsort_status run_compact_host(clsort_context *c) {
  return clsort_compact(c, 8, S->in, S->flags, S->out, N, &S->count);
}
static clsort_status run_split_buffer(clsort_context *c) {
  return clsort_split_buffer(c, 2, S->bin, S->bflags, S->bout, N, S->bcount, 0, NULL, NULL);
}

static void prep_offsets(void) {
  t_rng r;
  t_rng_init(&r, "faults offsets");
  for (size_t i = 0; i < N; i++) S->buckets[i] = (unsigned)t_rng_below(&r, NB);
  memcpy(S->in, S->buckets, sizeof S->buckets);
  t_ref_bucket_offsets(S->buckets, N, NB, TILE, (uint64_t *)(void *)S->want);
  S->want_bytes = (size_t)NB * P * 8;
}
static clsort_status run_offsets_host(clsort_context *c) {
  return clsort_bucket_offsets(c, S->buckets, N, NB, TILE, CLSORT_U64, S->out);
}
static clsort_status run_offsets_buffer(clsort_context *c) {
  return clsort_bucket_offsets_buffer(c, S->bin, N, NB, TILE, CLSORT_U64, S->bout, 0, NULL, NULL);
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}
static void prep_sort(void) {
  t_rng r;
  t_rng_init(&r, "faults sort");
  t_fill_int(&r, CLSORT_U32, S->in, N);
  memcpy(S->want, S->in, N * 4);
  qsort(S->want, N, 4, cmp_u32);
  S->want_bytes = N * 4;
}
/* The sort works in place on a copy in S->out; a failure must leave the
 * keys as they were (then S->out is poisoned again for check_untouched). */
static clsort_status run_sort_host(clsort_context *c) {
  memcpy(S->out, S->in, N * 4);
  clsort_status st = clsort_sort(c, CLSORT_U32, S->out, N, NULL);
  if (st != CLSORT_SUCCESS) {
    t_label("sort keys after a failure");
    ASSERT_EQ_MEM(S->out, S->in, N * 4);
    t_poison(S->out, sizeof S->out);
  }
  return st;
}
static clsort_status run_sort_pairs(clsort_context *c) {
  /* Keys in S->out, values (the keys again) after them; only the keys
   * are compared. */
  memcpy(S->out, S->in, N * 4);
  memcpy(S->out + N * 4, S->in, N * 4);
  clsort_status st = clsort_sort_pairs(c, CLSORT_U32, S->out, S->out + N * 4, 4, N, NULL);
  if (st != CLSORT_SUCCESS) {
    t_label("sort pairs after a failure");
    ASSERT_EQ_MEM(S->out, S->in, N * 4);
    ASSERT_EQ_MEM(S->out + N * 4, S->in, N * 4);
    t_poison(S->out, sizeof S->out);
  } else {
    ASSERT_EQ_MEM(S->out + N * 4, S->out, N * 4); /* values moved with their keys */
  }
  return st;
}

static clsort_status run_sort_buffer(clsort_context *c) {
  return clsort_sort_buffer(c, CLSORT_U32, S->bout, NULL, 0, N, NULL, 0, NULL, NULL);
}

/* The comparison sorts: every allocation of theirs (programs, scratch,
 * the split's and the scan's) must come before they write the caller's
 * buffers. The quicksort partitions over several levels, the merge sort
 * runs several passes at this N. */
static const clsort_options merge_options = {CLSORT_MERGE, 0u, 0u, 0u};
static const clsort_options quick_options = {CLSORT_QUICK, 0u, 0u, 0u};
static clsort_status run_merge_buffer(clsort_context *c) {
  return clsort_sort_buffer(c, CLSORT_U32, S->bout, NULL, 0, N, &merge_options, 0, NULL, NULL);
}
static clsort_status run_quick_buffer(clsort_context *c) {
  return clsort_sort_buffer(c, CLSORT_U32, S->bout, NULL, 0, N, &quick_options, 0, NULL, NULL);
}
static clsort_status run_pairs_with(clsort_context *c, const clsort_options *o) {
  memcpy(S->out, S->in, N * 4);
  memcpy(S->out + N * 4, S->in, N * 4);
  clsort_status st = clsort_sort_pairs(c, CLSORT_U32, S->out, S->out + N * 4, 4, N, o);
  if (st != CLSORT_SUCCESS) {
    t_label("sort pairs after a failure");
    ASSERT_EQ_MEM(S->out, S->in, N * 4);
    ASSERT_EQ_MEM(S->out + N * 4, S->in, N * 4);
    t_poison(S->out, sizeof S->out);
  } else {
    ASSERT_EQ_MEM(S->out + N * 4, S->out, N * 4);
  }
  return st;
}
static clsort_status run_merge_pairs(clsort_context *c) { return run_pairs_with(c, &merge_options); }
static clsort_status run_quick_pairs(clsort_context *c) { return run_pairs_with(c, &quick_options); }

/* Ops whose input is written into the (poisoned) output buffer. */
static bool in_place(const fault_op *op) {
  return op->run == run_scan64_in_place || op->run == run_sort_buffer ||
         op->run == run_merge_buffer || op->run == run_quick_buffer;
}

static const fault_op ops[] = {
    {"scan host u32", false, CLSORT_SUCCESS, prep_scan, run_scan_host},
    {"scan buffer u32", true, CLSORT_SUCCESS, prep_scan, run_scan_buffer},
    {"scan buffer i64 in place", true, CLSORT_SUCCESS, prep_scan64, run_scan64_in_place},
    {"reduce host i64 min", false, CLSORT_SUCCESS, prep_reduce, run_reduce_host},
    {"reduce buffer i64 min", true, CLSORT_SUCCESS, prep_reduce, run_reduce_buffer},
    {"compact host es=8", false, CLSORT_SUCCESS, prep_compact, run_compact_host},
    {"split buffer es=2", true, CLSORT_SUCCESS, prep_split, run_split_buffer},
    {"bucket offsets host u64", false, CLSORT_SUCCESS, prep_offsets, run_offsets_host},
    {"bucket offsets buffer u64", true, CLSORT_SUCCESS, prep_offsets, run_offsets_buffer},
    {"sort host u32", false, CLSORT_SUCCESS, prep_sort, run_sort_host},
    {"sort pairs host u32", false, CLSORT_SUCCESS, prep_sort, run_sort_pairs},
    {"sort buffer u32 in place", true, CLSORT_SUCCESS, prep_sort, run_sort_buffer},
    {"merge sort buffer u32 in place", true, CLSORT_SUCCESS, prep_sort, run_merge_buffer},
    {"merge sort pairs host u32", false, CLSORT_SUCCESS, prep_sort, run_merge_pairs},
    {"quicksort buffer u32 in place", true, CLSORT_SUCCESS, prep_sort, run_quick_buffer},
    {"quicksort pairs host u32", false, CLSORT_SUCCESS, prep_sort, run_quick_pairs},
};
#define NOPS (sizeof ops / sizeof ops[0])

/* Makes the test's own buffers on the context and poisons every output. */
static void arm(const fault_op *op, clsort_context *c) {
  t_poison(S->out, sizeof S->out);
  S->count = 0xDEADBEEF;
  if (!op->buffers) return;
  cl_context cc = clsort_context_cl_context(c);
  S->bin = t_buffer_on(cc, sizeof S->in, S->in);
  S->bflags = t_buffer_on(cc, N, S->flags);
  S->bout = t_buffer_on(cc, sizeof S->out, NULL);
  if (in_place(op)) {
    /* In place: the input lives in the poisoned output buffer. */
    ASSERT_CL(clEnqueueWriteBuffer(clsort_context_queue(c), S->bout, CL_TRUE, 0, N * 8, S->in, 0,
                                   NULL, NULL));
  }
  S->bcount = t_buffer_on(cc, 16, NULL);
}

static void disarm(const fault_op *op) {
  if (!op->buffers) return;
  t_release_now(S->bcount);
  t_release_now(S->bout);
  t_release_now(S->bflags);
  t_release_now(S->bin);
}

/* Copies the op's outputs to the host (reading buffers through the
 * context's queue). */
static void fetch(const fault_op *op, clsort_context *c) {
  if (!op->buffers) return;
  cl_command_queue q = clsort_context_queue(c);
  ASSERT_CL(clEnqueueReadBuffer(q, S->bout, CL_TRUE, 0, sizeof S->out, S->out, 0, NULL, NULL));
  ASSERT_CL(clEnqueueReadBuffer(q, S->bcount, CL_TRUE, 0, 16, S->count_raw, 0, NULL, NULL));
  cl_ulong cnt;
  memcpy(&cnt, S->count_raw, 8);
  S->count = (size_t)cnt;
  unsigned char *in = t_alloc(sizeof S->in);
  ASSERT_CL(clEnqueueReadBuffer(q, S->bin, CL_TRUE, 0, sizeof S->in, in, 0, NULL, NULL));
  t_label("%s: input buffer", op->name);
  ASSERT_EQ_MEM(in, S->in, sizeof S->in);
  t_release_now(in);
}

static void check_untouched(const fault_op *op, clsort_context *c) {
  fetch(op, c);
  t_label("%s: after %s at CLSORT_FAIL_ALLOC_AFTER=%ld", op->name, t_status_name(walk_status_),
          walk_n_);
  if (in_place(op)) {
    ASSERT_EQ_MEM(S->out, S->in, N * 8);
    ASSERT_POISON(S->out, N * 8, sizeof S->out);
  } else {
    ASSERT_POISON(S->out, 0, sizeof S->out);
  }
  if (op->buffers)
    ASSERT_POISON(S->count_raw, 0, 16);
  else
    ASSERT_EQ_U64(S->count, 0xDEADBEEF);
  ASSERT_EQ_MEM(S->in, S->in_copy, sizeof S->in);
}

static void check_result(const fault_op *op, clsort_context *c) {
  fetch(op, c);
  t_label("%s: after success at CLSORT_FAIL_ALLOC_AFTER=%ld", op->name, walk_n_);
  ASSERT_EQ_MEM(S->out, S->want, S->want_bytes);
  if (op->run == run_compact_host || op->run == run_split_buffer) {
    ASSERT_EQ_U64(S->count, S->want_count);
    if (op->buffers) ASSERT_POISON(S->count_raw, 8, 16);
  }
  ASSERT_EQ_MEM(S->in, S->in_copy, sizeof S->in);
}

/* Walks the allocation sites of one operation, context creation included
 * (where the library routes them through its hook). A failure reported
 * with another status than OUT_OF_MEMORY is recorded and the walk goes on,
 * so that one run lists every such site. */
T_TEST(out_of_memory_every_allocation) {
  const fault_op *op = &ops[_i];
  S = t_alloc(sizeof *S);
  memset(S, 0, sizeof *S);
  op->prepare();
  memcpy(S->in_copy, S->in, sizeof S->in);
  unsigned in_create = 0, in_call = 0, wrong = 0;
  char problems[1024] = "";
  long n;
  for (n = 0; n < MAX_SITES; n++) {
    char value[32];
    snprintf(value, sizeof value, "%ld", n);
    t_label("%s, CLSORT_FAIL_ALLOC_AFTER=%ld", op->name, n);
    walk_n_ = n;
    setenv("CLSORT_FAIL_ALLOC_AFTER", value, 1);
    clsort_context *c = (clsort_context *)(uintptr_t)0x1;
    clsort_status st = t_context_create(&c);
    unsetenv("CLSORT_FAIL_ALLOC_AFTER");
    if (st == CLSORT_ERROR_OUT_OF_MEMORY) {
      ASSERT_NULL(c);
      ASSERT_STR_NONEMPTY(clsort_last_error_message());
      ASSERT_EQ_I64(clsort__live_contexts(), 0);
      in_create++;
      continue;
    }
    ASSERT_OK(st);
    t_own_context(c);
    arm(op, c);
    st = op->run(c);
    t_label("%s, CLSORT_FAIL_ALLOC_AFTER=%ld", op->name, n);
    if (st == op->final) {
      if (op->final == CLSORT_SUCCESS) check_result(op, c);
      disarm(op);
      t_release_now(c);
      ASSERT_EQ_I64(clsort__live_contexts(), 0);
      break;
    }
    /* A failed call: a message, nothing modified. */
    walk_status_ = st;
    ASSERT_STR_NONEMPTY(clsort_last_error_message());
    if (st == CLSORT_ERROR_OUT_OF_MEMORY) {
      in_call++;
    } else if (wrong++ < 4) {
      size_t len = strlen(problems);
      snprintf(problems + len, sizeof problems - len, "%sat N=%ld %s (\"%s\")", len ? "; " : "", n,
               t_status_name(st), t_last_error());
    }
    check_untouched(op, c);
    /* The context stays usable: the injected failure is spent, so the
     * same call on it must now succeed (or fail the same way, if the
     * library made the failure sticky). */
    disarm(op);
    arm(op, c);
    clsort_status again = op->run(c);
    t_label("%s, retry after CLSORT_FAIL_ALLOC_AFTER=%ld", op->name, n);
    if (again == op->final) {
      if (op->final == CLSORT_SUCCESS) check_result(op, c);
    } else {
      ASSERT_STATUS(again, st);
    }
    disarm(op);
    t_release_now(c);
    ASSERT_EQ_I64(clsort__live_contexts(), 0);
  }
  t_label("%s", op->name);
  if (n == MAX_SITES) ck_abort_msg("%s: still failing after %d allocations", t_where(), MAX_SITES);
  printf("  %s: %u allocation sites in context creation, %u in the call\n", op->name, in_create,
         in_call + wrong);
  if (wrong)
    ck_abort_msg("%s: %u injected allocation failures were reported as another status than "
                 "CLSORT_ERROR_OUT_OF_MEMORY: %s",
                 t_where(), wrong, problems);
  if (op->final == CLSORT_SUCCESS) ASSERT_GT_U64(in_call, 0);
}

/* ------------------------------------------------------------- builds */

static size_t count_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  size_t k = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') k++;
  closedir(d);
  return k;
}

/* Every entry point with a context whose builds fail: BUILD_FAILED, a
 * build log, outputs untouched. */
static void expect_build_failed(clsort_context *c) {
  enum { M = 1000 };
  unsigned char *in = t_alloc(M * 8), *out = t_alloc(M * 8 + 64), *flags = t_alloc(M);
  unsigned *buckets = t_alloc(M * 4);
  t_rng r;
  t_rng_init(&r, "faults build");
  t_fill_bytes(&r, in, M * 8);
  for (int i = 0; i < M; i++) {
    flags[i] = (unsigned char)(i % 2);
    buckets[i] = (unsigned)i % 8;
  }
  t_poison(out, M * 8 + 64);
  size_t count = 99;
  const clsort_status E = CLSORT_ERROR_BUILD_FAILED;
  t_label("scan");
  ASSERT_STATUS(clsort_scan(c, CLSORT_U32, CLSORT_SCAN_INCLUSIVE, in, out, M), E);
  ASSERT_STR_NONEMPTY(clsort_last_error_message());
  ASSERT_STR_NONEMPTY(clsort_context_build_log(c));
  t_label("reduce");
  ASSERT_STATUS(clsort_reduce(c, CLSORT_F32, CLSORT_REDUCE_MAX, in, M, out), E);
  t_label("compact");
  ASSERT_STATUS(clsort_compact(c, 4, in, flags, out, M, &count), E);
  ASSERT_EQ_U64(count, 99);
  t_label("split");
  ASSERT_STATUS(clsort_split(c, 16, in, flags, out, M / 2, &count), E);
  t_label("bucket offsets");
  ASSERT_STATUS(clsort_bucket_offsets(c, buckets, M, 8, 128, CLSORT_U32, out), E);
  ASSERT_STR_NONEMPTY(clsort_context_build_log(c));
  t_label("scan buffer");
  cl_context cc = clsort_context_cl_context(c);
  cl_mem b = t_buffer_on(cc, M * 8, NULL);
  cl_event ev = NULL;
  ASSERT_STATUS(clsort_scan_buffer(c, CLSORT_U64, CLSORT_SCAN_EXCLUSIVE, b, b, M, 0, NULL, &ev), E);
  ASSERT_NULL(ev);
  unsigned char *got = t_alloc(M * 8);
  ASSERT_CL(clEnqueueReadBuffer(clsort_context_queue(c), b, CL_TRUE, 0, M * 8, got, 0, NULL, NULL));
  ASSERT_POISON(got, 0, M * 8);
  t_label("after the failed builds");
  ASSERT_POISON(out, 0, M * 8 + 64);
  /* A second try fails the same way (nothing half-built was kept). */
  ASSERT_STATUS(clsort_scan(c, CLSORT_U32, CLSORT_SCAN_INCLUSIVE, in, out, M), E);
  ASSERT_EQ_U64(clsort__context_build_stats(c).from_disk, 0);
}

/* With an empty disk cache: the builds fail, nothing is cached, and a
 * context made afterwards without the variable works. */
T_TEST(build_failed_cold_cache) {
  const char *dir = t_temp_dir("failbuild");
  t_setenv("CLSORT_CACHE_DIR", dir);
  t_setenv("CLSORT_CACHE", "1"); /* the library's own, also on PoCL */
  t_setenv("CLSORT_FAIL_BUILD", "1");
  clsort_context *c = NULL;
  ASSERT_OK(t_context_create(&c));
  t_own_context(c);
  t_unsetenv("CLSORT_FAIL_BUILD");
  expect_build_failed(c);
  t_label("cache after failed builds");
  ASSERT_EQ_U64(count_files(dir), 0);
  t_release_now(c);

  ASSERT_OK(t_context_create(&c));
  t_own_context(c);
  uint32_t in[5] = {1, 2, 3, 4, 5}, out[5];
  ASSERT_OK(clsort_scan(c, CLSORT_U32, CLSORT_SCAN_INCLUSIVE, in, out, 5));
  ASSERT_EQ_U64(out[4], 15);
  ASSERT_GT_U64(clsort__context_build_stats(c).from_source, 0);
}

/* "Every program build fails" includes programs the disk cache holds. */
T_TEST(build_failed_warm_cache) {
  const char *dir = t_temp_dir("failbuild-warm");
  t_setenv("CLSORT_CACHE_DIR", dir);
  t_setenv("CLSORT_CACHE", "1"); /* the library's own, also on PoCL */
  clsort_context *c = NULL;
  ASSERT_OK(t_context_create(&c));
  t_own_context(c);
  /* Warm the cache with every program expect_build_failed uses. */
  enum { M = 1000 };
  unsigned char *in = t_alloc(M * 16), *out = t_alloc(M * 16), flags[M];
  unsigned buckets[M];
  memset(in, 1, M * 16);
  for (int i = 0; i < M; i++) {
    flags[i] = (unsigned char)(i % 2);
    buckets[i] = (unsigned)i % 8;
  }
  size_t count;
  ASSERT_OK(clsort_scan(c, CLSORT_U32, CLSORT_SCAN_INCLUSIVE, in, out, M));
  ASSERT_OK(clsort_reduce(c, CLSORT_F32, CLSORT_REDUCE_MAX, in, M, out));
  ASSERT_OK(clsort_compact(c, 4, in, flags, out, M, &count));
  ASSERT_OK(clsort_split(c, 16, in, flags, out, M / 2, &count));
  ASSERT_OK(clsort_bucket_offsets(c, buckets, M, 8, 128, CLSORT_U32, out));
  ASSERT_OK(clsort_scan(c, CLSORT_U64, CLSORT_SCAN_EXCLUSIVE, in, out, M));
  t_release_now(c);
  ASSERT_GT_U64(count_files(dir), 0);

  t_setenv("CLSORT_FAIL_BUILD", "1");
  ASSERT_OK(t_context_create(&c));
  t_own_context(c);
  t_unsetenv("CLSORT_FAIL_BUILD");
  expect_build_failed(c);
}

/* The variables are read at context creation only. */
T_TEST(fault_variables_read_at_creation) {
  clsort_context *c = NULL;
  ASSERT_OK(t_context_create(&c));
  t_own_context(c);
  t_setenv("CLSORT_FAIL_BUILD", "1");
  t_setenv("CLSORT_FAIL_ALLOC_AFTER", "0");
  uint32_t in[5] = {1, 2, 3, 4, 5}, out[5];
  ASSERT_OK(clsort_scan(c, CLSORT_U32, CLSORT_SCAN_EXCLUSIVE, in, out, 5));
  ASSERT_EQ_U64(out[4], 10);
}

static void add(Suite *s, unsigned tiers) {
  if (!(tiers & T_QUICK)) return;
  TCase *tc = t_tcase(s, "faults", false);
  tcase_add_loop_test(tc, out_of_memory_every_allocation, 0, (int)NOPS);
  tcase_add_test(tc, build_failed_cold_cache);
  tcase_add_test(tc, build_failed_warm_cache);
  tcase_add_test(tc, fault_variables_read_at_creation);
}

int main(int argc, char **argv) { return t_main(argc, argv, "faults", add); }
