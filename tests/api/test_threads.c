/* test_threads.c: the library under threads (issue 13, part 3): threads
 * that create their own contexts at once in a process that has not touched
 * OpenCL yet, each running a different algorithm; and threads that share
 * one context, whose calls the library serialises. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <pthread.h>
#include <stdlib.h>

/* What each thread runs: the sorts and primitives on u32 keys only, so that
 * the threads compile few program variants (the same ones as the other
 * test programs' default shape, often already in the disk cache). */
typedef enum op {
  OP_RADIX,
  OP_BITONIC,
  OP_MERGE,
  OP_SAMPLE,
  OP_QUICK,
  OP_SCAN,
  OP_COMPACT,
  OP_SORT_BUFFER, /* the radix sort on a device buffer, read back on the thread's own queue */
  OP_COUNT
} op;

static const char *const op_names[OP_COUNT] = {"radix",   "bitonic", "merge",   "sample",
                                               "quick",   "scan",    "compact", "sort_buffer"};

/* A thread's work and its outcome. Threads never assert (Check's asserts
 * longjmp on the thread that runs the test): they record the first failure
 * and the test reports it after the join. */
typedef struct worker {
  int id;
  clsort_context *shared; /* NULL: the thread creates its own context */
  pthread_barrier_t *start;
  int rounds;
  t_rng rng; /* seeded by the main thread: t_seed() is not thread-safe */
  int done;  /* operations that passed */
  clsort_status status;
  char failure[320];
} worker;

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Records the first failure: what ran, and why it failed (NULL: the
 * library's message). Returns false, for `ok = record(...)`. */
static bool record(worker *w, clsort_status st, const char *what, const char *why) {
  if (w->status == CLSORT_SUCCESS) {
    w->status = st;
    snprintf(w->failure, sizeof w->failure, "%s: %s", what,
             why ? why : clsort_last_error_message());
  }
  return false;
}

/* Runs one operation on random data and compares it with a C reference. */
static bool run_op(worker *w, clsort_context *c, op o) {
  size_t n = t_rng_size(&w->rng, 1000, o == OP_SAMPLE ? 60000 : 20000);
  uint32_t *in = malloc(n * 4), *got = malloc(n * 4), *want = malloc(n * 4);
  unsigned char *flags = malloc(n);
  if (!in || !got || !want || !flags) abort();
  t_fill_int(&w->rng, CLSORT_U32, in, n);
  for (size_t i = 0; i < n; i++) flags[i] = (unsigned char)(t_rng_next(&w->rng) & 1);
  clsort_status st = CLSORT_SUCCESS;
  cl_int test_error = CL_SUCCESS;
  size_t want_count = n, count = 0;
  memcpy(got, in, n * 4);
  memcpy(want, in, n * 4);
  switch (o) {
    case OP_RADIX:
    case OP_BITONIC:
    case OP_MERGE:
    case OP_SAMPLE:
    case OP_QUICK: {
      static const clsort_algorithm algo[] = {CLSORT_RADIX, CLSORT_BITONIC, CLSORT_MERGE,
                                              CLSORT_SAMPLE, CLSORT_QUICK};
      clsort_options opt = {algo[o], 0u, 0u, 0u};
      qsort(want, n, 4, cmp_u32);
      st = clsort_sort(c, CLSORT_U32, got, n, &opt);
    } break;
    case OP_SCAN:
      t_ref_scan_int(CLSORT_U32, CLSORT_SCAN_EXCLUSIVE, in, want, n);
      st = clsort_scan(c, CLSORT_U32, CLSORT_SCAN_EXCLUSIVE, in, got, n);
      break;
    case OP_COMPACT:
      want_count = t_ref_select(4, false, in, flags, want, n);
      st = clsort_compact(c, 4, in, flags, got, n, &count);
      break;
    case OP_SORT_BUFFER: {
      qsort(want, n, 4, cmp_u32);
      cl_int err;
      cl_context cl = clsort_context_cl_context(c);
      cl_command_queue q = clCreateCommandQueue(cl, clsort_context_device(c), 0, &err);
      cl_mem buf = NULL;
      if (err == CL_SUCCESS)
        buf = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, in, &err);
      cl_event done = NULL;
      if (err == CL_SUCCESS)
        st = clsort_sort_buffer(c, CLSORT_U32, buf, NULL, 0, n, NULL, 0, NULL, &done);
      /* The context's queue is the library's: the thread reads on its own. */
      if (err == CL_SUCCESS && st == CLSORT_SUCCESS)
        err = clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n * 4, got, 1, &done, NULL);
      if (done) clReleaseEvent(done);
      if (buf) clReleaseMemObject(buf);
      if (q) clReleaseCommandQueue(q);
      if (err != CL_SUCCESS) {
        st = CLSORT_ERROR_OPENCL;
        test_error = err;
      }
    } break;
    case OP_COUNT:
      break;
  }
  char what[64], why[64];
  snprintf(what, sizeof what, "%s of %zu u32", op_names[o], n);
  snprintf(why, sizeof why, "OpenCL error %d in the test's own calls", (int)test_error);
  bool ok = true;
  if (st != CLSORT_SUCCESS) ok = record(w, st, what, test_error ? why : NULL);
  if (ok && o == OP_COMPACT && count != want_count)
    ok = record(w, CLSORT_ERROR_OPENCL, what, "wrong count");
  if (ok && memcmp(got, want, want_count * 4) != 0)
    ok = record(w, CLSORT_ERROR_OPENCL, what, "wrong output");
  if (ok && clsort_last_error_message()[0] != '\0')
    ok = record(w, CLSORT_ERROR_OPENCL, what, "an error message after success");
  free(flags);
  free(want);
  free(got);
  free(in);
  return ok;
}

/* Waits at the barrier, creates its own context unless it shares one, then
 * runs `rounds` operations, starting with the one its id names. */
static void *worker_main(void *arg) {
  worker *w = arg;
  pthread_barrier_wait(w->start);
  clsort_context *c = w->shared;
  if (!c) {
    clsort_status st = t_context_create(&c);
    if (st != CLSORT_SUCCESS) {
      record(w, st, "context creation", NULL);
      return NULL;
    }
  }
  for (int r = 0; r < w->rounds; r++) {
    if (!run_op(w, c, (op)((w->id + 3 * r) % OP_COUNT))) break;
    w->done++;
  }
  if (!w->shared) clsort_context_release(c);
  return NULL;
}

/* Starts the threads together and joins them. */
static void run_workers(worker *w, int count, clsort_context *shared, int rounds,
                        const char *stream) {
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)count);
  pthread_t th[16];
  for (int i = 0; i < count; i++) {
    w[i] = (worker){.id = i, .shared = shared, .start = &start, .rounds = rounds};
    t_rng_init(&w[i].rng, stream);
    w[i].rng.s[0] ^= (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull;
    if (pthread_create(&th[i], NULL, worker_main, &w[i]) != 0) abort();
  }
  for (int i = 0; i < count; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&start);
}

static void assert_workers_ok(const worker *w, int count) {
  for (int i = 0; i < count; i++) {
    t_label("thread %d", i);
    if (w[i].status != CLSORT_SUCCESS)
      ck_abort_msg("%s: %s: %s", t_where(), t_status_name(w[i].status), w[i].failure);
    ASSERT_EQ_I64(w[i].done, w[i].rounds);
  }
}

/* ------------------------------------------------ own contexts, cold start */
/* The first OpenCL calls of a process initialise the ICD loader and the
 * driver, which is not thread-safe; t_main makes OpenCL calls to decide
 * whether to skip. So main() runs these threads before t_main, with no
 * OpenCL call before them, and the test below reports what they found. */
enum { COLD_THREADS = 8, COLD_ROUNDS = 2 };
static worker cold_[COLD_THREADS];
static bool cold_ran_;

T_TEST(threads_own_contexts_cold_start) {
  ASSERT_TRUE(cold_ran_);
  assert_workers_ok(cold_, COLD_THREADS);
  ASSERT_EQ_I64(clsort__live_contexts(), 0);
}

/* ------------------------------------------------------ one shared context */
/* Threads share the fixture's context: each runs every operation on its
 * own data; the library serialises the calls and every result must be
 * right. */
T_TEST(threads_share_one_context) {
  enum { THREADS = 6, ROUNDS = 5 };
  worker w[THREADS];
  run_workers(w, THREADS, T_CTX, ROUNDS, "threads shared");
  assert_workers_ok(w, THREADS);
  /* The context still works from the main thread. */
  uint32_t in[5] = {5, 1, 4, 2, 3}, want[5] = {1, 2, 3, 4, 5};
  ASSERT_OK(clsort_sort(T_CTX, CLSORT_U32, in, 5, NULL));
  ASSERT_EQ_ELEMS(in, want, 5, 4);
}

static void add(Suite *s, unsigned tiers) {
  if (!(tiers & T_QUICK)) return;
  TCase *cold = t_tcase(s, "threads_cold", false);
  tcase_add_test(cold, threads_own_contexts_cold_start);
  TCase *shared = t_tcase(s, "threads_shared", true);
  tcase_add_test(shared, threads_share_one_context);
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "slow") != 0) {
    (void)t_seed(); /* before any thread reads it */
    double t0 = t_now();
    run_workers(cold_, COLD_THREADS, NULL, COLD_ROUNDS, "threads cold");
    cold_ran_ = true;
    printf("threads: %d threads created their contexts at once and ran %d operations each in "
           "%.1f s\n",
           COLD_THREADS, COLD_ROUNDS, t_now() - t0);
  }
  return t_main(argc, argv, "threads", add);
}
