/* test_errors.c: every error status the API returns, one test per status
 * and cause, each checking that nothing was modified and that the thread's
 * last-error message says why; plus the status, type and version helpers. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <pthread.h>
#include <stdlib.h>

/* An error call: the expected status, and a message explaining it. */
#define EXPECT_ERROR(call, status)                                                              \
  do {                                                                                          \
    clsort_status s_ = (call), e_ = (status);                                                   \
    if (s_ != e_)                                                                               \
      ck_abort_msg("%s: %s returned %s, expected %s; last error: \"%s\"", t_where(), #call,     \
                   t_status_name(s_), t_status_name(e_), t_last_error());                       \
    if (clsort_last_error_message() == NULL || clsort_last_error_message()[0] == '\0')          \
      ck_abort_msg("%s: %s returned %s with an empty last-error message", t_where(), #call,     \
                   t_status_name(s_));                                                          \
  } while (0)

enum { N = 64, GUARD = 16 };

/* Valid arguments for every entry point; each test breaks one of them.
 * Outputs are poisoned and must stay so; inputs are compared with copies. */
typedef struct args {
  unsigned char in[N * 16], in_copy[N * 16];
  unsigned char out[(N + GUARD) * 16];
  unsigned char flags[N];
  unsigned buckets[N];
  size_t count;
  cl_mem bin, bout, bflags, bcount, bbuckets, boffsets, bresult;
  cl_mem bsmall; /* 8 bytes: too small for n = N of anything */
} args;

static args *A;

static void args_setup(void) {
  t_setup();
  A = t_alloc(sizeof *A);
  t_rng r;
  t_rng_init(&r, "errors");
  t_fill_bytes(&r, A->in, sizeof A->in);
  memcpy(A->in_copy, A->in, sizeof A->in);
  t_poison(A->out, sizeof A->out);
  for (int i = 0; i < N; i++) {
    A->flags[i] = (unsigned char)(i % 3 == 0);
    A->buckets[i] = (unsigned)i % 4;
  }
  A->count = 777;
  A->bin = t_buffer(N * 16, A->in);
  A->bout = t_buffer((N + GUARD) * 16, NULL);
  A->bflags = t_buffer(N, A->flags);
  A->bcount = t_buffer(16, NULL);
  A->bbuckets = t_buffer(N * 4, A->buckets);
  A->boffsets = t_buffer((N + GUARD) * 16 * 8, NULL);
  A->bresult = t_buffer(16, NULL);
  A->bsmall = t_buffer(8, NULL);
}

/* After the error calls: host outputs and output buffers untouched, inputs
 * unchanged. */
static void assert_nothing_modified(void) {
  t_label("after the error calls");
  ASSERT_POISON(A->out, 0, sizeof A->out);
  ASSERT_EQ_U64(A->count, 777);
  ASSERT_EQ_MEM(A->in, A->in_copy, sizeof A->in);
  static const struct {
    size_t off;
    const char *name;
  } outs[] = {{offsetof(args, bout), "bout"},         {offsetof(args, bcount), "bcount"},
              {offsetof(args, boffsets), "boffsets"}, {offsetof(args, bresult), "bresult"},
              {offsetof(args, bsmall), "bsmall"}};
  for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
    cl_mem b = *(cl_mem *)((char *)A + outs[i].off);
    size_t bytes = 0;
    ASSERT_CL(clGetMemObjectInfo(b, CL_MEM_SIZE, sizeof bytes, &bytes, NULL));
    unsigned char *got = t_read_buffer(b, bytes);
    t_label("buffer %s after the error calls", outs[i].name);
    ASSERT_POISON(got, 0, bytes);
  }
  unsigned char *got = t_read_buffer(A->bin, N * 16);
  t_label("input buffer after the error calls");
  ASSERT_EQ_MEM(got, A->in_copy, N * 16);
}

/* ------------------------------------------------------------ helpers */

T_TEST(status_strings_distinct_and_named) {
  static const clsort_status all[] = {
#define X_(name, value, message) name,
      CLSORT_STATUS_MAP(X_)
#undef X_
  };
  static const char *const names[] = {
#define X_(name, value, message) #name,
      CLSORT_STATUS_MAP(X_)
#undef X_
  };
  size_t count = sizeof all / sizeof all[0];
  ASSERT_EQ_U64(count, 9);
  for (size_t i = 0; i < count; i++) {
    t_label("status %d", (int)all[i]);
    ASSERT_STR_NONEMPTY(clsort_status_string(all[i]));
    ASSERT_EQ_STR(clsort_status_name(all[i]), names[i]);
    ASSERT_NE_STR(clsort_status_string(all[i]), "unknown status");
    for (size_t j = 0; j < i; j++) {
      ASSERT_NE_STR(clsort_status_string(all[i]), clsort_status_string(all[j]));
      ASSERT_NE_STR(clsort_status_name(all[i]), clsort_status_name(all[j]));
    }
  }
  t_label("unknown statuses");
  ASSERT_EQ_STR(clsort_status_string((clsort_status)1), "unknown status");
  ASSERT_EQ_STR(clsort_status_string((clsort_status)-100), "unknown status");
  ASSERT_NOT_NULL(clsort_status_name((clsort_status)-100));
}

T_TEST(version_matches_header) {
  ASSERT_EQ_U64(clsort_version(), CLSORT_VERSION_NUMBER);
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", CLSORT_VERSION_MAJOR, CLSORT_VERSION_MINOR,
           CLSORT_VERSION_PATCH);
  ASSERT_EQ_STR(clsort_version_string(), want);
}

T_TEST(type_size_and_name) {
  static const size_t sizes[6] = {4, 4, 4, 8, 8, 8};
  static const char *const names[6] = {"u32", "i32", "f32", "u64", "i64", "f64"};
  for (int i = 0; i < 6; i++) {
    ASSERT_EQ_U64(clsort_type_size(t_all_types[i]), sizes[i]);
    ASSERT_EQ_STR(clsort_type_name(t_all_types[i]), names[i]);
  }
  ASSERT_EQ_U64(clsort_type_size((clsort_type)99), 0);
  ASSERT_EQ_U64(clsort_type_size((clsort_type)-1), 0);
  ASSERT_NULL(clsort_type_name((clsort_type)99));
  ASSERT_NULL(clsort_type_name((clsort_type)-1));
}

/* The message is set by a failing call and cleared by a succeeding one. */
T_TEST(last_error_message_set_and_cleared) {
  uint32_t in[4] = {1, 2, 3, 4}, out[4];
  ASSERT_OK(clsort_scan(T_CTX, CLSORT_U32, CLSORT_SCAN_INCLUSIVE, in, out, 4));
  ASSERT_STR_EMPTY(clsort_last_error_message());
  EXPECT_ERROR(clsort_scan(T_CTX, (clsort_type)99, CLSORT_SCAN_INCLUSIVE, in, out, 4),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ_I64(clsort_last_cl_error(), CL_SUCCESS); /* no OpenCL call was involved */
  ASSERT_OK(clsort_scan(T_CTX, CLSORT_U32, CLSORT_SCAN_INCLUSIVE, in, out, 4));
  ASSERT_STR_EMPTY(clsort_last_error_message());
  EXPECT_ERROR(clsort_reduce(NULL, CLSORT_U32, CLSORT_REDUCE_SUM, in, 4, out),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_OK(clsort_reduce(T_CTX, CLSORT_U32, CLSORT_REDUCE_SUM, in, 4, out));
  ASSERT_STR_EMPTY(clsort_last_error_message());
  ASSERT_EQ_U64(out[0], 10);
}

typedef struct thread_msg {
  clsort_context *ctx;
  bool fail;
  char message[256];
  int status;
} thread_msg;

static void *message_thread(void *arg) {
  thread_msg *m = arg;
  uint32_t in[4] = {1, 2, 3, 4}, out[4];
  if (m->fail)
    m->status = clsort_scan(m->ctx, (clsort_type)99, CLSORT_SCAN_INCLUSIVE, in, out, 4);
  else
    m->status = clsort_scan(m->ctx, CLSORT_U32, CLSORT_SCAN_INCLUSIVE, in, out, 4);
  snprintf(m->message, sizeof m->message, "%s", clsort_last_error_message());
  return NULL;
}

/* The message belongs to the calling thread. */
T_TEST(last_error_message_per_thread) {
  clsort_context *other = NULL;
  ASSERT_OK(t_context_create(&other));
  t_own_context(other);
  EXPECT_ERROR(clsort_scan(T_CTX, (clsort_type)99, CLSORT_SCAN_INCLUSIVE, A->in, A->out, 4),
               CLSORT_ERROR_INVALID_ARGUMENT);
  char mine[256];
  snprintf(mine, sizeof mine, "%s", clsort_last_error_message());
  thread_msg ok = {other, false, "", -99};
  pthread_t th;
  ASSERT_EQ_I64(pthread_create(&th, NULL, message_thread, &ok), 0);
  pthread_join(th, NULL);
  ASSERT_OK((clsort_status)ok.status);
  ASSERT_STR_EMPTY(ok.message);
  ASSERT_EQ_STR(clsort_last_error_message(), mine); /* untouched by the other thread */

  ASSERT_OK(clsort_scan(T_CTX, CLSORT_U32, CLSORT_SCAN_INCLUSIVE, A->in, A->out, 4));
  thread_msg bad = {other, true, "", -99};
  ASSERT_EQ_I64(pthread_create(&th, NULL, message_thread, &bad), 0);
  pthread_join(th, NULL);
  ASSERT_STATUS((clsort_status)bad.status, CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_STR_NONEMPTY(bad.message);
  ASSERT_STR_EMPTY(clsort_last_error_message());
}

/* --------------------------------------------------- INVALID_ARGUMENT */


T_TEST(invalid_argument_null_context) {
  const clsort_status E = CLSORT_ERROR_INVALID_ARGUMENT;
  size_t *c = &A->count;
  EXPECT_ERROR(clsort_scan(NULL, CLSORT_U32, CLSORT_SCAN_EXCLUSIVE, A->in, A->out, N), E);
  EXPECT_ERROR(clsort_scan_buffer(NULL, CLSORT_U32, CLSORT_SCAN_EXCLUSIVE, A->bin, A->bout, N, 0,
                                  NULL, NULL), E);
  EXPECT_ERROR(clsort_reduce(NULL, CLSORT_U32, CLSORT_REDUCE_SUM, A->in, N, A->out), E);
  EXPECT_ERROR(clsort_reduce_buffer(NULL, CLSORT_U32, CLSORT_REDUCE_SUM, A->bin, N, A->bresult, 0,
                                    NULL, NULL), E);
  EXPECT_ERROR(clsort_compact(NULL, 4, A->in, A->flags, A->out, N, c), E);
  EXPECT_ERROR(clsort_compact_buffer(NULL, 4, A->bin, A->bflags, A->bout, N, A->bcount, 0, NULL,
                                     NULL), E);
  EXPECT_ERROR(clsort_split(NULL, 4, A->in, A->flags, A->out, N, c), E);
  EXPECT_ERROR(clsort_split_buffer(NULL, 4, A->bin, A->bflags, A->bout, N, A->bcount, 0, NULL,
                                   NULL), E);
  EXPECT_ERROR(clsort_bucket_offsets(NULL, A->buckets, N, 4, 16, CLSORT_U32, A->out), E);
  EXPECT_ERROR(clsort_bucket_offsets_buffer(NULL, A->bbuckets, N, 4, 16, CLSORT_U32, A->boffsets,
                                            0, NULL, NULL), E);
  EXPECT_ERROR(clsort_sort(NULL, CLSORT_U32, A->in, N, NULL), E);
  EXPECT_ERROR(clsort_sort_pairs(NULL, CLSORT_U32, A->in, A->in + N * 4, 4, N, NULL), E);
  EXPECT_ERROR(clsort_argsort(NULL, CLSORT_U32, A->in, A->out, 4, N, NULL), E);
  EXPECT_ERROR(clsort_sort_buffer(NULL, CLSORT_U32, A->bin, NULL, 0, N, NULL, 0, NULL, NULL), E);
  assert_nothing_modified();
}

T_TEST(invalid_argument_null_pointer) {
  const clsort_status E = CLSORT_ERROR_INVALID_ARGUMENT;
  const clsort_scan_kind K = CLSORT_SCAN_INCLUSIVE;
  size_t *c = &A->count;
  t_label("host arrays");
  EXPECT_ERROR(clsort_scan(T_CTX, CLSORT_U32, K, NULL, A->out, N), E);
  EXPECT_ERROR(clsort_scan(T_CTX, CLSORT_U32, K, A->in, NULL, N), E);
  EXPECT_ERROR(clsort_reduce(T_CTX, CLSORT_U32, CLSORT_REDUCE_MAX, NULL, N, A->out), E);
  EXPECT_ERROR(clsort_reduce(T_CTX, CLSORT_U32, CLSORT_REDUCE_MAX, A->in, N, NULL), E);
  for (int split = 0; split < 2; split++) {
    t_label("host arrays, %s", split ? "split" : "compact");
    clsort_status (*f)(clsort_context *, size_t, const void *, const unsigned char *, void *,
                       size_t, size_t *) = split ? clsort_split : clsort_compact;
    EXPECT_ERROR(f(T_CTX, 4, NULL, A->flags, A->out, N, c), E);
    EXPECT_ERROR(f(T_CTX, 4, A->in, NULL, A->out, N, c), E);
    EXPECT_ERROR(f(T_CTX, 4, A->in, A->flags, NULL, N, c), E);
    EXPECT_ERROR(f(T_CTX, 4, A->in, A->flags, A->out, N, NULL), E);
  }
  t_label("host arrays, bucket offsets and sorts");
  EXPECT_ERROR(clsort_bucket_offsets(T_CTX, NULL, N, 4, 16, CLSORT_U32, A->out), E);
  EXPECT_ERROR(clsort_bucket_offsets(T_CTX, A->buckets, N, 4, 16, CLSORT_U32, NULL), E);
  EXPECT_ERROR(clsort_sort(T_CTX, CLSORT_U32, NULL, N, NULL), E);
  EXPECT_ERROR(clsort_sort_pairs(T_CTX, CLSORT_U32, NULL, A->out, 4, N, NULL), E);
  EXPECT_ERROR(clsort_sort_pairs(T_CTX, CLSORT_U32, A->in, NULL, 4, N, NULL), E);
  EXPECT_ERROR(clsort_argsort(T_CTX, CLSORT_U32, NULL, A->out, 4, N, NULL), E);
  EXPECT_ERROR(clsort_argsort(T_CTX, CLSORT_U32, A->in, NULL, 4, N, NULL), E);

  t_label("buffers");
  EXPECT_ERROR(clsort_scan_buffer(T_CTX, CLSORT_U32, K, NULL, A->bout, N, 0, NULL, NULL), E);
  EXPECT_ERROR(clsort_scan_buffer(T_CTX, CLSORT_U32, K, A->bin, NULL, N, 0, NULL, NULL), E);
  EXPECT_ERROR(clsort_reduce_buffer(T_CTX, CLSORT_U32, CLSORT_REDUCE_SUM, NULL, N, A->bresult, 0,
                                    NULL, NULL), E);
  EXPECT_ERROR(clsort_reduce_buffer(T_CTX, CLSORT_U32, CLSORT_REDUCE_SUM, A->bin, N, NULL, 0,
                                    NULL, NULL), E);
  for (int split = 0; split < 2; split++) {
    t_label("buffers, %s", split ? "split" : "compact");
    clsort_status (*f)(clsort_context *, size_t, cl_mem, cl_mem, cl_mem, size_t, cl_mem, cl_uint,
                       const cl_event *, cl_event *) =
        split ? clsort_split_buffer : clsort_compact_buffer;
    EXPECT_ERROR(f(T_CTX, 4, NULL, A->bflags, A->bout, N, A->bcount, 0, NULL, NULL), E);
    EXPECT_ERROR(f(T_CTX, 4, A->bin, NULL, A->bout, N, A->bcount, 0, NULL, NULL), E);
    EXPECT_ERROR(f(T_CTX, 4, A->bin, A->bflags, NULL, N, A->bcount, 0, NULL, NULL), E);
    EXPECT_ERROR(f(T_CTX, 4, A->bin, A->bflags, A->bout, N, NULL, 0, NULL, NULL), E);
  }
  t_label("buffers, bucket offsets and sort");
  EXPECT_ERROR(clsort_bucket_offsets_buffer(T_CTX, NULL, N, 4, 16, CLSORT_U32, A->boffsets, 0,
                                            NULL, NULL), E);
  EXPECT_ERROR(clsort_bucket_offsets_buffer(T_CTX, A->bbuckets, N, 4, 16, CLSORT_U32, NULL, 0,
                                            NULL, NULL), E);
  EXPECT_ERROR(clsort_sort_buffer(T_CTX, CLSORT_U32, NULL, NULL, 0, N, NULL, 0, NULL, NULL), E);
  assert_nothing_modified();
}

T_TEST(invalid_argument_unknown_type) {
  const clsort_status E = CLSORT_ERROR_INVALID_ARGUMENT;
  static const int bad[] = {99, -1, 12};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    clsort_type t = (clsort_type)bad[i];
    t_label("type %d", bad[i]);
    EXPECT_ERROR(clsort_scan(T_CTX, t, CLSORT_SCAN_INCLUSIVE, A->in, A->out, N), E);
    EXPECT_ERROR(clsort_scan_buffer(T_CTX, t, CLSORT_SCAN_INCLUSIVE, A->bin, A->bout, N, 0, NULL,
                                    NULL), E);
    EXPECT_ERROR(clsort_reduce(T_CTX, t, CLSORT_REDUCE_SUM, A->in, N, A->out), E);
    EXPECT_ERROR(clsort_reduce_buffer(T_CTX, t, CLSORT_REDUCE_SUM, A->bin, N, A->bresult, 0, NULL,
                                      NULL), E);
    EXPECT_ERROR(clsort_sort(T_CTX, t, A->out, N, NULL), E);
    EXPECT_ERROR(clsort_sort_pairs(T_CTX, t, A->out, A->out + 8 * N, 4, N, NULL), E);
    EXPECT_ERROR(clsort_argsort(T_CTX, t, A->in, A->out, 4, N, NULL), E);
    EXPECT_ERROR(clsort_sort_buffer(T_CTX, t, A->bout, NULL, 0, N, NULL, 0, NULL, NULL), E);
    EXPECT_ERROR(clsort_bucket_offsets(T_CTX, A->buckets, N, 4, 16, t, A->out), E);
    EXPECT_ERROR(clsort_bucket_offsets_buffer(T_CTX, A->bbuckets, N, 4, 16, t, A->boffsets, 0,
                                              NULL, NULL), E);
  }
  assert_nothing_modified();
}

/* Offsets are CLSORT_U32 or CLSORT_U64 only: known types that are not
 * unsigned offsets are invalid too. */
T_TEST(invalid_argument_offset_type) {
  static const clsort_type bad[] = {CLSORT_I32, CLSORT_F32, CLSORT_I64, CLSORT_F64};
  for (size_t i = 0; i < 4; i++) {
    t_label("offset type %s", clsort_type_name(bad[i]));
    EXPECT_ERROR(clsort_bucket_offsets(T_CTX, A->buckets, N, 4, 16, bad[i], A->out),
                 CLSORT_ERROR_INVALID_ARGUMENT);
    EXPECT_ERROR(clsort_bucket_offsets_buffer(T_CTX, A->bbuckets, N, 4, 16, bad[i], A->boffsets, 0,
                                              NULL, NULL),
                 CLSORT_ERROR_INVALID_ARGUMENT);
  }
  assert_nothing_modified();
}

T_TEST(invalid_argument_unknown_op) {
  const clsort_status E = CLSORT_ERROR_INVALID_ARGUMENT;
  static const int bad[] = {3, -1, 99};
  for (size_t i = 0; i < 3; i++) {
    t_label("reduce op %d, scan kind %d", bad[i], bad[i] == 3 ? 2 : bad[i]);
    EXPECT_ERROR(clsort_reduce(T_CTX, CLSORT_U32, (clsort_reduce_op)bad[i], A->in, N, A->out), E);
    EXPECT_ERROR(clsort_reduce_buffer(T_CTX, CLSORT_U32, (clsort_reduce_op)bad[i], A->bin, N,
                                      A->bresult, 0, NULL, NULL), E);
    clsort_scan_kind k = (clsort_scan_kind)(bad[i] == 3 ? 2 : bad[i]);
    EXPECT_ERROR(clsort_scan(T_CTX, CLSORT_U32, k, A->in, A->out, N), E);
    EXPECT_ERROR(clsort_scan_buffer(T_CTX, CLSORT_U32, k, A->bin, A->bout, N, 0, NULL, NULL), E);
  }
  assert_nothing_modified();
}

T_TEST(invalid_argument_element_size) {
  const clsort_status E = CLSORT_ERROR_INVALID_ARGUMENT;
  static const size_t bad[] = {0, 3, 5, 6, 12, 32};
  size_t *c = &A->count;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    size_t es = bad[i];
    t_label("element size %zu", es);
    EXPECT_ERROR(clsort_compact(T_CTX, es, A->in, A->flags, A->out, 8, c), E);
    EXPECT_ERROR(clsort_split(T_CTX, es, A->in, A->flags, A->out, 8, c), E);
    EXPECT_ERROR(clsort_compact_buffer(T_CTX, es, A->bin, A->bflags, A->bout, 8, A->bcount, 0, NULL,
                                       NULL), E);
    EXPECT_ERROR(clsort_split_buffer(T_CTX, es, A->bin, A->bflags, A->bout, 8, A->bcount, 0, NULL,
                                     NULL), E);
  }
  assert_nothing_modified();
}

/* n larger than a buffer's CL_MEM_SIZE, for each buffer of each call. */
T_TEST(invalid_argument_n_exceeds_buffer) {
  const clsort_status E = CLSORT_ERROR_INVALID_ARGUMENT;
  const clsort_scan_kind K = CLSORT_SCAN_EXCLUSIVE;
  cl_mem s = A->bsmall; /* 8 bytes */
  t_label("scan");
  EXPECT_ERROR(clsort_scan_buffer(T_CTX, CLSORT_U32, K, s, A->bout, N, 0, NULL, NULL), E);
  EXPECT_ERROR(clsort_scan_buffer(T_CTX, CLSORT_U32, K, A->bin, s, N, 0, NULL, NULL), E);
  EXPECT_ERROR(clsort_scan_buffer(T_CTX, CLSORT_U32, K, A->bin, A->bout, N * 4 + 1, 0, NULL, NULL),
               E); /* one element more than bin holds */
  EXPECT_ERROR(clsort_scan_buffer(T_CTX, CLSORT_U64, K, s, s, 2, 0, NULL, NULL), E);
  t_label("reduce");
  EXPECT_ERROR(clsort_reduce_buffer(T_CTX, CLSORT_U32, CLSORT_REDUCE_MIN, s, N, A->bresult, 0,
                                    NULL, NULL), E);
  cl_mem tiny = t_buffer(4, NULL); /* holds a u32, not a u64 result */
  EXPECT_ERROR(clsort_reduce_buffer(T_CTX, CLSORT_U64, CLSORT_REDUCE_MIN, A->bin, 2, tiny, 0, NULL,
                                    NULL), E);
  for (int split = 0; split < 2; split++) {
    t_label("%s", split ? "split" : "compact");
    clsort_status (*f)(clsort_context *, size_t, cl_mem, cl_mem, cl_mem, size_t, cl_mem, cl_uint,
                       const cl_event *, cl_event *) =
        split ? clsort_split_buffer : clsort_compact_buffer;
    EXPECT_ERROR(f(T_CTX, 4, s, A->bflags, A->bout, N, A->bcount, 0, NULL, NULL), E);
    EXPECT_ERROR(f(T_CTX, 4, A->bin, s, A->bout, N, A->bcount, 0, NULL, NULL), E);
    EXPECT_ERROR(f(T_CTX, 4, A->bin, A->bflags, s, N, A->bcount, 0, NULL, NULL), E);
    EXPECT_ERROR(f(T_CTX, 4, A->bin, A->bflags, A->bout, N, tiny, 0, NULL, NULL), E);
    EXPECT_ERROR(f(T_CTX, 16, A->bin, A->bflags, A->bout, N + 1, A->bcount, 0, NULL, NULL), E);
  }
  t_label("bucket offsets");
  EXPECT_ERROR(clsort_bucket_offsets_buffer(T_CTX, s, N, 4, 16, CLSORT_U32, A->boffsets, 0, NULL,
                                            NULL), E);
  /* 4 buckets x 4 tiles x 4 bytes = 64 bytes needed. */
  EXPECT_ERROR(clsort_bucket_offsets_buffer(T_CTX, A->bbuckets, N, 4, 16, CLSORT_U32, s, 0, NULL,
                                            NULL), E);
  cl_mem sixty = t_buffer(60, NULL);
  EXPECT_ERROR(clsort_bucket_offsets_buffer(T_CTX, A->bbuckets, N, 4, 16, CLSORT_U32, sixty, 0,
                                            NULL, NULL), E);
  cl_mem u64_short = t_buffer(64 * 2 - 8, NULL);
  EXPECT_ERROR(clsort_bucket_offsets_buffer(T_CTX, A->bbuckets, N, 4, 16, CLSORT_U64, u64_short, 0,
                                            NULL, NULL), E);
  t_label("sort");
  EXPECT_ERROR(clsort_sort_buffer(T_CTX, CLSORT_U32, s, NULL, 0, N, NULL, 0, NULL, NULL), E);
  EXPECT_ERROR(clsort_sort_buffer(T_CTX, CLSORT_U32, A->bout, s, 4, N, NULL, 0, NULL, NULL), E);
  assert_nothing_modified();
  unsigned char got[64];
  t_label("small buffers after the error calls");
  t_read_into(tiny, got, 4);
  ASSERT_POISON(got, 0, 4);
  t_read_into(sixty, got, 60);
  ASSERT_POISON(got, 0, 60);
}

T_TEST(invalid_argument_wait_list_null) {
  const clsort_status E = CLSORT_ERROR_INVALID_ARGUMENT;
  cl_event ev = (cl_event)(uintptr_t)0x1; /* must not be written */
  EXPECT_ERROR(clsort_scan_buffer(T_CTX, CLSORT_U32, CLSORT_SCAN_INCLUSIVE, A->bin, A->bout, N, 1,
                                  NULL, &ev), E);
  EXPECT_ERROR(clsort_reduce_buffer(T_CTX, CLSORT_U32, CLSORT_REDUCE_SUM, A->bin, N, A->bresult, 2,
                                    NULL, &ev), E);
  EXPECT_ERROR(clsort_compact_buffer(T_CTX, 4, A->bin, A->bflags, A->bout, N, A->bcount, 1, NULL,
                                     &ev), E);
  EXPECT_ERROR(clsort_split_buffer(T_CTX, 4, A->bin, A->bflags, A->bout, N, A->bcount, 1, NULL,
                                   &ev), E);
  EXPECT_ERROR(clsort_bucket_offsets_buffer(T_CTX, A->bbuckets, N, 4, 16, CLSORT_U32, A->boffsets,
                                            1, NULL, &ev), E);
  EXPECT_ERROR(clsort_sort_buffer(T_CTX, CLSORT_U32, A->bout, NULL, 0, N, NULL, 1, NULL, &ev), E);
  ASSERT_TRUE(ev == (cl_event)(uintptr_t)0x1);
  /* The n == 0 shortcut must not skip the check. */
  EXPECT_ERROR(clsort_scan_buffer(T_CTX, CLSORT_U32, CLSORT_SCAN_INCLUSIVE, NULL, NULL, 0, 1, NULL,
                                  NULL), E);
  assert_nothing_modified();
}

T_TEST(invalid_argument_bucket_count) {
  static const unsigned bad[] = {0, 4097, 8192, UINT32_MAX};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    t_label("num_buckets %u", bad[i]);
    EXPECT_ERROR(clsort_bucket_offsets(T_CTX, A->buckets, N, bad[i], 16, CLSORT_U32, A->out),
                 CLSORT_ERROR_INVALID_ARGUMENT);
    EXPECT_ERROR(clsort_bucket_offsets_buffer(T_CTX, A->bbuckets, N, bad[i], 16, CLSORT_U64,
                                              A->boffsets, 0, NULL, NULL),
                 CLSORT_ERROR_INVALID_ARGUMENT);
  }
  assert_nothing_modified();
}

/* p = ceil(n / tile_size) is undefined for tile_size 0. */
T_TEST(invalid_argument_tile_size_zero) {
  EXPECT_ERROR(clsort_bucket_offsets(T_CTX, A->buckets, N, 4, 0, CLSORT_U32, A->out),
               CLSORT_ERROR_INVALID_ARGUMENT);
  EXPECT_ERROR(clsort_bucket_offsets_buffer(T_CTX, A->bbuckets, N, 4, 0, CLSORT_U32, A->boffsets, 0,
                                            NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  assert_nothing_modified();
}

/* ------------------------------------------- buffers the calls must refuse */

/* An INVALID_ARGUMENT whose message names the buffer argument `arg`. */
#define EXPECT_BUFFER_REFUSED(call, arg)                                                       \
  do {                                                                                         \
    EXPECT_ERROR(call, CLSORT_ERROR_INVALID_ARGUMENT);                                         \
    if (!strstr(clsort_last_error_message(), "the " arg " buffer"))                            \
      ck_abort_msg("%s: %s: the message \"%s\" does not name the %s buffer", t_where(), #call, \
                   clsort_last_error_message(), arg);                                          \
  } while (0)

enum { BIG = (N + GUARD) * 16 * 8 }; /* bytes: large enough for any role here */

static void release_mem_object(void *p) { clReleaseMemObject(p); }

/* A buffer of BIG bytes on `c` with `flags` (CL_MEM_READ_ONLY, ...),
 * holding `init` (BIG bytes), released at teardown. */
static cl_mem flagged_buffer(cl_context c, cl_mem_flags flags, const void *init) {
  cl_int err;
  cl_mem m = clCreateBuffer(c, flags | CL_MEM_COPY_HOST_PTR, BIG, (void *)init, &err);
  ASSERT_CL(err);
  t_defer(release_mem_object, m);
  return m;
}

/* The buffer's bytes, read on `queue`, must still be `want`. */
static void assert_buffer_holds(cl_command_queue queue, cl_mem m, const unsigned char *want) {
  unsigned char *got = t_alloc(BIG);
  ASSERT_CL(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, BIG, got, 0, NULL, NULL));
  ASSERT_EQ_MEM(got, want, BIG);
  t_release_now(got);
}

/* A cl_mem of another OpenCL context, in every buffer argument. */
T_TEST(invalid_argument_foreign_buffer) {
  clsort_context *other = NULL;
  ASSERT_OK(t_context_create(&other));
  t_own_context(other);
  unsigned char *init = t_alloc(BIG);
  t_poison(init, BIG);
  cl_mem f = flagged_buffer(clsort_context_cl_context(other), CL_MEM_READ_WRITE, init);
  const clsort_scan_kind K = CLSORT_SCAN_INCLUSIVE;
  const clsort_reduce_op R = CLSORT_REDUCE_SUM;
  EXPECT_BUFFER_REFUSED(clsort_scan_buffer(T_CTX, CLSORT_U32, K, f, A->bout, N, 0, NULL, NULL),
                        "input");
  EXPECT_BUFFER_REFUSED(clsort_scan_buffer(T_CTX, CLSORT_U32, K, A->bin, f, N, 0, NULL, NULL),
                        "output");
  EXPECT_BUFFER_REFUSED(clsort_reduce_buffer(T_CTX, CLSORT_U32, R, f, N, A->bresult, 0, NULL,
                                             NULL), "input");
  EXPECT_BUFFER_REFUSED(clsort_reduce_buffer(T_CTX, CLSORT_U32, R, A->bin, N, f, 0, NULL, NULL),
                        "result");
  for (int split = 0; split < 2; split++) {
    t_label("%s", split ? "split" : "compact");
    clsort_status (*g)(clsort_context *, size_t, cl_mem, cl_mem, cl_mem, size_t, cl_mem, cl_uint,
                       const cl_event *, cl_event *) =
        split ? clsort_split_buffer : clsort_compact_buffer;
    EXPECT_BUFFER_REFUSED(g(T_CTX, 4, f, A->bflags, A->bout, N, A->bcount, 0, NULL, NULL), "input");
    EXPECT_BUFFER_REFUSED(g(T_CTX, 4, A->bin, f, A->bout, N, A->bcount, 0, NULL, NULL), "flags");
    EXPECT_BUFFER_REFUSED(g(T_CTX, 4, A->bin, A->bflags, f, N, A->bcount, 0, NULL, NULL), "output");
    EXPECT_BUFFER_REFUSED(g(T_CTX, 4, A->bin, A->bflags, A->bout, N, f, 0, NULL, NULL), "count");
  }
  t_label("bucket offsets and sort");
  EXPECT_BUFFER_REFUSED(clsort_bucket_offsets_buffer(T_CTX, f, N, 4, 16, CLSORT_U32, A->boffsets,
                                                     0, NULL, NULL), "buckets");
  EXPECT_BUFFER_REFUSED(clsort_bucket_offsets_buffer(T_CTX, A->bbuckets, N, 4, 16, CLSORT_U32, f,
                                                     0, NULL, NULL), "offsets");
  EXPECT_BUFFER_REFUSED(clsort_sort_buffer(T_CTX, CLSORT_U32, f, NULL, 0, N, NULL, 0, NULL, NULL),
                        "keys");
  EXPECT_BUFFER_REFUSED(clsort_sort_buffer(T_CTX, CLSORT_U32, A->bout, f, 4, N, NULL, 0, NULL,
                                           NULL), "values");
  assert_nothing_modified();
  t_label("the foreign buffer after the error calls");
  assert_buffer_holds(clsort_context_queue(other), f, init);
}

/* A CL_MEM_READ_ONLY buffer where the call writes: outputs, and the sort's
 * in-place keys and values. */
T_TEST(invalid_argument_read_only_buffer_written) {
  unsigned char *init = t_alloc(BIG);
  for (size_t i = 0; i < BIG; i++) init[i] = A->in[i % sizeof A->in];
  cl_mem ro = flagged_buffer(clsort_context_cl_context(T_CTX), CL_MEM_READ_ONLY, init);
  const clsort_scan_kind K = CLSORT_SCAN_EXCLUSIVE;
  EXPECT_BUFFER_REFUSED(clsort_scan_buffer(T_CTX, CLSORT_U32, K, A->bin, ro, N, 0, NULL, NULL),
                        "output");
  EXPECT_BUFFER_REFUSED(clsort_scan_buffer(T_CTX, CLSORT_U32, K, ro, ro, N, 0, NULL, NULL),
                        "output"); /* in place */
  EXPECT_BUFFER_REFUSED(clsort_reduce_buffer(T_CTX, CLSORT_U32, CLSORT_REDUCE_MAX, A->bin, N, ro, 0,
                                             NULL, NULL), "result");
  EXPECT_BUFFER_REFUSED(clsort_compact_buffer(T_CTX, 4, A->bin, A->bflags, ro, N, A->bcount, 0,
                                              NULL, NULL), "output");
  EXPECT_BUFFER_REFUSED(clsort_split_buffer(T_CTX, 4, A->bin, A->bflags, A->bout, N, ro, 0, NULL,
                                            NULL), "count");
  EXPECT_BUFFER_REFUSED(clsort_bucket_offsets_buffer(T_CTX, A->bbuckets, N, 4, 16, CLSORT_U64, ro,
                                                     0, NULL, NULL), "offsets");
  EXPECT_BUFFER_REFUSED(clsort_sort_buffer(T_CTX, CLSORT_U32, ro, NULL, 0, N, NULL, 0, NULL, NULL),
                        "keys");
  EXPECT_BUFFER_REFUSED(clsort_sort_buffer(T_CTX, CLSORT_U64, A->bout, ro, 8, N, NULL, 0, NULL,
                                           NULL), "values");
  assert_nothing_modified();
  t_label("the read-only buffer after the error calls");
  assert_buffer_holds(clsort_context_queue(T_CTX), ro, init);
}

/* A CL_MEM_WRITE_ONLY buffer where the call reads: inputs, the sort's keys
 * and the offsets table (scanned in place). */
T_TEST(invalid_argument_write_only_buffer_read) {
  unsigned char *init = t_alloc(BIG);
  t_poison(init, BIG);
  cl_mem wo = flagged_buffer(clsort_context_cl_context(T_CTX), CL_MEM_WRITE_ONLY, init);
  EXPECT_BUFFER_REFUSED(clsort_scan_buffer(T_CTX, CLSORT_I32, CLSORT_SCAN_INCLUSIVE, wo, A->bout, N,
                                           0, NULL, NULL), "input");
  EXPECT_BUFFER_REFUSED(clsort_reduce_buffer(T_CTX, CLSORT_U32, CLSORT_REDUCE_MIN, wo, N,
                                             A->bresult, 0, NULL, NULL), "input");
  EXPECT_BUFFER_REFUSED(clsort_compact_buffer(T_CTX, 8, wo, A->bflags, A->bout, N, A->bcount, 0,
                                              NULL, NULL), "input");
  EXPECT_BUFFER_REFUSED(clsort_split_buffer(T_CTX, 8, A->bin, wo, A->bout, N, A->bcount, 0, NULL,
                                            NULL), "flags");
  EXPECT_BUFFER_REFUSED(clsort_bucket_offsets_buffer(T_CTX, wo, N, 4, 16, CLSORT_U32, A->boffsets,
                                                     0, NULL, NULL), "buckets");
  EXPECT_BUFFER_REFUSED(clsort_bucket_offsets_buffer(T_CTX, A->bbuckets, N, 4, 16, CLSORT_U32, wo,
                                                     0, NULL, NULL), "offsets");
  EXPECT_BUFFER_REFUSED(clsort_sort_buffer(T_CTX, CLSORT_F32, wo, NULL, 0, N, NULL, 0, NULL, NULL),
                        "keys");
  assert_nothing_modified();
  t_label("the write-only buffer after the error calls");
  assert_buffer_holds(clsort_context_queue(T_CTX), wo, init);
}

/* One cl_mem in two roles that must be distinct (scan's in-place output is
 * the one documented exception). */
T_TEST(invalid_argument_same_buffer_twice) {
  const clsort_status E = CLSORT_ERROR_INVALID_ARGUMENT;
  cl_mem b = A->bout; /* poisoned, and must stay so */
  cl_mem other_out = t_buffer((N + GUARD) * 16, NULL);
  t_label("sort keys and values");
  EXPECT_ERROR(clsort_sort_buffer(T_CTX, CLSORT_U32, b, b, 4, N, NULL, 0, NULL, NULL), E);
  ASSERT_NOT_NULL(strstr(clsort_last_error_message(), "keys and values"));
  t_label("reduce input and result");
  EXPECT_ERROR(clsort_reduce_buffer(T_CTX, CLSORT_U32, CLSORT_REDUCE_SUM, b, N, b, 0, NULL, NULL),
               E);
  for (int split = 0; split < 2; split++) {
    t_label("%s", split ? "split" : "compact");
    clsort_status (*g)(clsort_context *, size_t, cl_mem, cl_mem, cl_mem, size_t, cl_mem, cl_uint,
                       const cl_event *, cl_event *) =
        split ? clsort_split_buffer : clsort_compact_buffer;
    EXPECT_ERROR(g(T_CTX, 4, A->bin, b, b, N, A->bcount, 0, NULL, NULL), E); /* output, flags */
    EXPECT_ERROR(g(T_CTX, 4, A->bin, A->bflags, b, N, b, 0, NULL, NULL), E); /* count, output */
    EXPECT_ERROR(g(T_CTX, 4, b, A->bflags, other_out, N, b, 0, NULL, NULL), E); /* count, input */
    EXPECT_ERROR(g(T_CTX, 1, A->bin, b, other_out, N, b, 0, NULL, NULL), E); /* count, flags */
  }
  t_label("bucket offsets");
  EXPECT_ERROR(clsort_bucket_offsets_buffer(T_CTX, b, N, 4, 16, CLSORT_U32, b, 0, NULL, NULL), E);
  ASSERT_NOT_NULL(strstr(clsort_last_error_message(), "offsets must not be the buckets"));
  assert_nothing_modified();
  unsigned char *got = t_read_buffer(other_out, (N + GUARD) * 16);
  ASSERT_POISON(got, 0, (N + GUARD) * 16);
}

/* Bucket ids at or above num_buckets, which the histogram would count in
 * no bucket: refused before any offset is written, by both forms. */
T_TEST(invalid_argument_bucket_id_out_of_range) {
  const clsort_status E = CLSORT_ERROR_INVALID_ARGUMENT;
  enum { NB = 4 };
  unsigned ids[N], ids_copy[N];
  for (int i = 0; i < N; i++) ids[i] = (unsigned)i % NB;
  static const struct {
    size_t at;
    unsigned id;
  } bad[] = {{37, NB}, {0, NB}, {N - 1, NB + 1}, {5, UINT32_MAX}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    unsigned saved = ids[bad[k].at];
    ids[bad[k].at] = bad[k].id;
    if (k == 3) ids[40] = NB; /* a later bad id: the message names the first */
    memcpy(ids_copy, ids, sizeof ids);
    t_label("bucket id %u at %zu, host", bad[k].id, bad[k].at);
    EXPECT_ERROR(clsort_bucket_offsets(T_CTX, ids, N, NB, 16, CLSORT_U32, A->out), E);
    char where[48];
    snprintf(where, sizeof where, "at index %zu", bad[k].at);
    ASSERT_NOT_NULL(strstr(clsort_last_error_message(), where));
    ASSERT_EQ_MEM(ids, ids_copy, sizeof ids);
    t_label("bucket id %u at %zu, buffer", bad[k].id, bad[k].at);
    cl_mem bids = t_buffer(sizeof ids, ids);
    EXPECT_ERROR(clsort_bucket_offsets_buffer(T_CTX, bids, N, NB, 16, CLSORT_U64, A->boffsets, 0,
                                              NULL, NULL), E);
    char largest[48];
    snprintf(largest, sizeof largest, "bucket id %u", bad[k].id);
    ASSERT_NOT_NULL(strstr(clsort_last_error_message(), largest));
    unsigned *got = t_read_buffer(bids, sizeof ids);
    ASSERT_EQ_MEM(got, ids_copy, sizeof ids);
    t_release_now(got);
    t_release_now(bids);
    ids[bad[k].at] = saved;
    ids[40] = 40 % NB;
  }
  assert_nothing_modified();
  /* The largest valid id everywhere is accepted, by both forms. */
  t_label("every id num_buckets - 1");
  for (int i = 0; i < N; i++) ids[i] = NB - 1;
  uint64_t want[NB * 4];
  t_ref_bucket_offsets(ids, N, NB, 16, want);
  uint64_t got[NB * 4];
  ASSERT_OK(clsort_bucket_offsets(T_CTX, ids, N, NB, 16, CLSORT_U64, got));
  ASSERT_EQ_ELEMS(got, want, NB * 4, 8);
  cl_mem bids = t_buffer(sizeof ids, ids), bofs = t_buffer(sizeof got, NULL);
  ASSERT_OK(clsort_bucket_offsets_buffer(T_CTX, bids, N, NB, 16, CLSORT_U64, bofs, 0, NULL, NULL));
  t_read_into(bofs, got, sizeof got);
  ASSERT_EQ_ELEMS(got, want, NB * 4, 8);
}

/* Each sort entry point with bad options; the keys stay as they were. */
static void expect_sort_error(clsort_type t, const clsort_options *o, clsort_status want) {
  unsigned char *keys = A->out, *vals = A->out + 8 * N;
  memcpy(keys, A->in, 8 * N);
  memcpy(vals, A->in + 8 * N, 8 * N);
  t_poison(A->out + 16 * N, GUARD * 16);
  EXPECT_ERROR(clsort_sort(T_CTX, t, keys, N, o), want);
  EXPECT_ERROR(clsort_sort_pairs(T_CTX, t, keys, vals, 4, N, o), want);
  ASSERT_EQ_MEM(keys, A->in, 8 * N);
  ASSERT_EQ_MEM(vals, A->in + 8 * N, 8 * N);
  unsigned char *idx = A->out + 8 * N;
  t_poison(idx, 8 * N);
  EXPECT_ERROR(clsort_argsort(T_CTX, t, keys, idx, 8, N, o), want);
  ASSERT_POISON(idx, 0, 8 * N);
  cl_mem bk = t_buffer(8 * N, A->in), bv = t_buffer(8 * N, A->in + 8 * N);
  EXPECT_ERROR(clsort_sort_buffer(T_CTX, t, bk, bv, 8, N, o, 0, NULL, NULL), want);
  unsigned char *got = t_read_buffer(bk, 8 * N);
  ASSERT_EQ_MEM(got, A->in, 8 * N);
  t_read_into(bv, got, 8 * N);
  ASSERT_EQ_MEM(got, A->in + 8 * N, 8 * N);
  t_release_now(got);
  t_release_now(bv);
  t_release_now(bk);
  t_poison(A->out, sizeof A->out); /* restore for assert_nothing_modified */
}

T_TEST(invalid_argument_sort_flags) {
  static const unsigned bad[] = {4u, 8u, 0x80000000u, ~0u, CLSORT_FLAGS_ALL_ + 1u};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    clsort_options o = CLSORT_OPTIONS_DEFAULT;
    o.flags = bad[i];
    t_label("flags 0x%x", bad[i]);
    expect_sort_error(CLSORT_U32, &o, CLSORT_ERROR_INVALID_ARGUMENT);
  }
  assert_nothing_modified();
}

T_TEST(invalid_argument_sort_algorithm) {
  static const int bad[] = {6, 99, -1};
  for (size_t i = 0; i < 3; i++) {
    clsort_options o = CLSORT_OPTIONS_DEFAULT;
    o.algorithm = (clsort_algorithm)bad[i];
    t_label("algorithm %d", bad[i]);
    expect_sort_error(CLSORT_U64, &o, CLSORT_ERROR_INVALID_ARGUMENT);
  }
  assert_nothing_modified();
}

T_TEST(invalid_argument_sort_bit_range) {
  static const struct {
    clsort_type t;
    unsigned begin, end;
  } bad[] = {
      {CLSORT_U32, 10, 5},  /* begin after end */
      {CLSORT_U32, 8, 8},   /* empty range */
      {CLSORT_U32, 0, 33},  /* past the key */
      {CLSORT_F32, 0, 40},  /* past the key */
      {CLSORT_U64, 0, 65},  /* past the key */
      {CLSORT_I64, 64, 0},  /* begin at the end of the full width: empty */
      {CLSORT_U32, 32, 0},  /* the same for 32 bits */
      {CLSORT_U32, 40, 0},  /* begin past the full width */
      {CLSORT_U64, 70, 80}, /* both past */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    clsort_options o = CLSORT_OPTIONS_DEFAULT;
    o.begin_bit = bad[i].begin;
    o.end_bit = bad[i].end;
    t_label("%s bits [%u, %u)", clsort_type_name(bad[i].t), bad[i].begin, bad[i].end);
    expect_sort_error(bad[i].t, &o, CLSORT_ERROR_INVALID_ARGUMENT);
  }
  assert_nothing_modified();
}

T_TEST(invalid_argument_sort_value_and_index_size) {
  const clsort_status E = CLSORT_ERROR_INVALID_ARGUMENT;
  static const size_t bad[] = {0, 1, 2, 3, 16};
  cl_mem bv = t_buffer(16 * N, NULL);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    t_label("value/index size %zu", bad[i]);
    memcpy(A->out, A->in, 8 * N);
    EXPECT_ERROR(clsort_sort_pairs(T_CTX, CLSORT_U32, A->out, A->out + 8 * N, bad[i], N, NULL), E);
    ASSERT_EQ_MEM(A->out, A->in, 8 * N);
    EXPECT_ERROR(clsort_argsort(T_CTX, CLSORT_U32, A->in, A->out + 8 * N, bad[i], N, NULL), E);
    if (bad[i] != 0) /* 0 with NULL values means keys only */
      EXPECT_ERROR(clsort_sort_buffer(T_CTX, CLSORT_U32, A->bout, bv, bad[i], N, NULL, 0, NULL,
                                      NULL), E);
  }
  t_poison(A->out, sizeof A->out);
  assert_nothing_modified();
}

/* Host arrays over each other, whole or from the first array's last
 * element: a sort's values or indices over its keys (they would come back
 * as one over the other), compact's and split's output over their input
 * (the header's rule). Refused, every array as it was. */
T_TEST(invalid_argument_host_arrays_overlap) {
  const clsort_status E = CLSORT_ERROR_INVALID_ARGUMENT;
  static const size_t at[] = {0, 4, 4 * (N - 1)};
  for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
    t_label("the second array %zu bytes into the first", at[i]);
    memcpy(A->out, A->in, 8 * N);
    unsigned char *first = A->out, *second = A->out + at[i];
    EXPECT_ERROR(clsort_sort_pairs(T_CTX, CLSORT_U32, first, second, 4, N, NULL), E);
    EXPECT_ERROR(clsort_argsort(T_CTX, CLSORT_U32, first, second, 8, N, NULL), E);
    EXPECT_ERROR(clsort_compact(T_CTX, 4, first, A->flags, second, N, &A->count), E);
    EXPECT_ERROR(clsort_split(T_CTX, 4, first, A->flags, second, N, &A->count), E);
    ASSERT_EQ_MEM(A->out, A->in, 8 * N);
  }
  t_poison(A->out, sizeof A->out);
  assert_nothing_modified();
}

/* Device specs: "" and malformed ones are invalid; *ctx becomes NULL. */
T_TEST(invalid_argument_device_spec) {
  clsort_context *c = (clsort_context *)(uintptr_t)0x1;
  EXPECT_ERROR(clsort_context_create(&c, ""), CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_NULL(c);
  EXPECT_ERROR(clsort_context_create(NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
  EXPECT_ERROR(clsort_context_create(NULL, "cpu"), CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ_I64(clsort__live_contexts(), 1); /* T_CTX only */
}

/* Specs that are neither a kind, nor P:D, nor a plausible name: refused
 * (as malformed or as matching nothing), never a context. */
T_TEST(invalid_argument_or_no_device_malformed_spec) {
  static const char *bad[] = {"0:", ":0", "-1:0", "1:x", "0:0:0", "99999999999999999999:0",
                              "0:99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    t_label("spec \"%s\"", bad[i]);
    clsort_context *c = (clsort_context *)(uintptr_t)0x1;
    clsort_status st = clsort_context_create(&c, bad[i]);
    if (st == CLSORT_SUCCESS) t_own_context(c);
    if (st != CLSORT_ERROR_INVALID_ARGUMENT && st != CLSORT_ERROR_NO_DEVICE)
      ck_abort_msg("%s: returned %s, expected INVALID_ARGUMENT or NO_DEVICE", t_where(),
                   t_status_name(st));
    ASSERT_NULL(c);
    ASSERT_STR_NONEMPTY(clsort_last_error_message());
  }
}

/* --------------------------------------------------------- NO_DEVICE */

static bool any_gpu(void) {
  cl_platform_id p[16];
  cl_uint np = 0;
  if (clGetPlatformIDs(16, p, &np) != CL_SUCCESS) return false;
  for (cl_uint i = 0; i < np && i < 16; i++) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p[i], CL_DEVICE_TYPE_GPU, 0, NULL, &nd) == CL_SUCCESS && nd > 0) return true;
  }
  return false;
}

/* The name of device 0 of platform 0, as OpenCL gives it ("" if none). */
static void first_device_name(char *name, size_t size) {
  name[0] = '\0';
  cl_platform_id p;
  cl_device_id d;
  cl_uint np = 0, nd = 0;
  if (clGetPlatformIDs(1, &p, &np) != CL_SUCCESS || np == 0) return;
  if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, &nd) != CL_SUCCESS || nd == 0) return;
  clGetDeviceInfo(d, CL_DEVICE_NAME, size - 1, name, NULL);
  name[size - 1] = '\0';
}

T_TEST(no_device_spec) {
  static const char *bad[] = {"7:7", "0:999", "999:0", "no-such-device-xyz"};
  char first[128];
  first_device_name(first, sizeof first);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    t_label("spec \"%s\"", bad[i]);
    clsort_context *c = (clsort_context *)(uintptr_t)0x1;
    EXPECT_ERROR(clsort_context_create(&c, bad[i]), CLSORT_ERROR_NO_DEVICE);
    ASSERT_NULL(c);
    /* The message names what was found, so that a driver the ICD loader
     * did not list shows by its absence. */
    const char *msg = clsort_last_error_message();
    ck_assert_msg(strstr(msg, "the devices found: ") && strstr(msg, first),
                  "%s: the message does not list device 0:0 ('%s'): %s", t_where(), first, msg);
  }
  if (!any_gpu()) {
    t_label("spec \"gpu\" on a machine without GPUs");
    clsort_context *c = (clsort_context *)(uintptr_t)0x1;
    EXPECT_ERROR(clsort_context_create(&c, "gpu"), CLSORT_ERROR_NO_DEVICE);
    ASSERT_NULL(c);
  }
  ASSERT_EQ_I64(clsort__live_contexts(), 0);
}

T_TEST(no_device_environment) {
  t_setenv("CLSORT_DEVICE", "no-such-device-xyz");
  clsort_context *c = (clsort_context *)(uintptr_t)0x1;
  EXPECT_ERROR(clsort_context_create(&c, NULL), CLSORT_ERROR_NO_DEVICE);
  ASSERT_NULL(c);
  unsigned p = 99, d = 99;
  EXPECT_ERROR(clsort_default_device(&p, &d, NULL), CLSORT_ERROR_NO_DEVICE);
  t_setenv("CLSORT_DEVICE", "7:7");
  EXPECT_ERROR(clsort_context_create(&c, NULL), CLSORT_ERROR_NO_DEVICE);
  ASSERT_NULL(c);
  /* An explicit spec wins over the environment. */
  ASSERT_OK(clsort_context_create(&c, "0:0"));
  t_own_context(c);
}

/* -------------------------------------------------------- UNSUPPORTED */

/* What the merge sort and the quicksort refuse, for every sort entry point
 * and key type: bit ranges (both compare whole keys) and, for the
 * quicksort, CLSORT_STABLE; nothing may be modified. (The bitonic sort's
 * refusals are tested in test_bitonic.c.) */
T_TEST(unsupported_comparison_options) {
  for (int ti = 0; ti < 6; ti++) {
    clsort_type t = t_all_types[ti];
    unsigned bits = (unsigned)clsort_type_size(t) * 8;
    const clsort_options refused[] = {
        {CLSORT_QUICK, CLSORT_STABLE, 0u, 0u},
        {CLSORT_QUICK, CLSORT_STABLE | CLSORT_DESCENDING, 0u, 0u},
        {CLSORT_QUICK, 0u, 1u, 0u},
        {CLSORT_MERGE, 0u, 0u, bits - 1},
        {CLSORT_MERGE, CLSORT_STABLE | CLSORT_DESCENDING, 4u, 8u},
    };
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
      t_label("algorithm %d, flags 0x%x, bits [%u, %u), %s", (int)refused[k].algorithm,
              refused[k].flags, refused[k].begin_bit, refused[k].end_bit, clsort_type_name(t));
      expect_sort_error(t, &refused[k], CLSORT_ERROR_UNSUPPORTED);
    }
  }
  assert_nothing_modified();
}

/* --------------------------------------------------------- TOO_LARGE */

/* Host forms with n beyond the device allocation limit (and n whose byte
 * count overflows size_t): refused before any array is touched, so small
 * real arrays are safe to pass. */
T_TEST(too_large_host_arrays) {
  const clsort_status E = CLSORT_ERROR_TOO_LARGE;
  static const size_t huge[] = {(size_t)1 << 42, SIZE_MAX / 4 + 2, SIZE_MAX};
  size_t *c = &A->count;
  for (size_t i = 0; i < 3; i++) {
    size_t n = huge[i];
    t_label("n=%zu", n);
    EXPECT_ERROR(clsort_scan(T_CTX, CLSORT_U32, CLSORT_SCAN_INCLUSIVE, A->in, A->out, n), E);
    EXPECT_ERROR(clsort_scan(T_CTX, CLSORT_F64, CLSORT_SCAN_EXCLUSIVE, A->in, A->out, n), E);
    EXPECT_ERROR(clsort_reduce(T_CTX, CLSORT_I64, CLSORT_REDUCE_MAX, A->in, n, A->out), E);
    EXPECT_ERROR(clsort_compact(T_CTX, 16, A->in, A->flags, A->out, n, c), E);
    EXPECT_ERROR(clsort_split(T_CTX, 1, A->in, A->flags, A->out, n, c), E);
    EXPECT_ERROR(clsort_bucket_offsets(T_CTX, A->buckets, n, 4, 1024, CLSORT_U64, A->out), E);
    EXPECT_ERROR(clsort_sort(T_CTX, CLSORT_U32, A->out, n, NULL), E);
    EXPECT_ERROR(clsort_sort_pairs(T_CTX, CLSORT_U64, A->out, A->out + 8, 8, n, NULL), E);
    EXPECT_ERROR(clsort_argsort(T_CTX, CLSORT_U32, A->in, A->out, 4, n, NULL), E);
  }
  assert_nothing_modified();
}

/* U32 offsets cannot address 2^32 elements. No device holds 2^32 bucket
 * indices, so this also meets the allocation limit: it proves the status,
 * not which of the two checks produced it. */
T_TEST(too_large_u32_offsets) {
  size_t n = (size_t)1 << 32;
  EXPECT_ERROR(clsort_bucket_offsets(T_CTX, A->buckets, n, 4, 1u << 20, CLSORT_U32, A->out),
               CLSORT_ERROR_TOO_LARGE);
  assert_nothing_modified();
}

/* ----------------------------------------------------------- OPENCL */

/* A wait-list event of another OpenCL context makes the enqueue fail with
 * CL_INVALID_CONTEXT: CLSORT_ERROR_OPENCL, with the code kept. */
T_TEST(opencl_error_foreign_event) {
  clsort_context *other = NULL;
  ASSERT_OK(t_context_create(&other));
  t_own_context(other);
  cl_int err;
  cl_event foreign = clCreateUserEvent(clsort_context_cl_context(other), &err);
  ASSERT_CL(err);
  t_defer_event(foreign);
  ASSERT_CL(clSetUserEventStatus(foreign, CL_COMPLETE));
  cl_event ev = NULL;
  EXPECT_ERROR(clsort_scan_buffer(T_CTX, CLSORT_U32, CLSORT_SCAN_INCLUSIVE, A->bin, A->bout, N, 1,
                                  &foreign, &ev),
               CLSORT_ERROR_OPENCL);
  ASSERT_EQ_I64(clsort_last_cl_error(), CL_INVALID_CONTEXT);
  ASSERT_NULL(ev);
  EXPECT_ERROR(clsort_reduce_buffer(T_CTX, CLSORT_U32, CLSORT_REDUCE_SUM, A->bin, N, A->bresult, 1,
                                    &foreign, NULL),
               CLSORT_ERROR_OPENCL);
  ASSERT_EQ_I64(clsort_last_cl_error(), CL_INVALID_CONTEXT);
  assert_nothing_modified();
  /* The context still works afterwards. */
  uint32_t in[3] = {1, 2, 3}, out[3];
  ASSERT_OK(clsort_scan(T_CTX, CLSORT_U32, CLSORT_SCAN_INCLUSIVE, in, out, 3));
  ASSERT_EQ_U64(out[2], 6);
  ASSERT_EQ_I64(clsort_last_cl_error(), CL_SUCCESS);
}

static void add(Suite *s, unsigned tiers) {
  if (!(tiers & T_QUICK)) return;
  TCase *tc = tcase_create("errors");
  tcase_add_checked_fixture(tc, args_setup, t_teardown);
  suite_add_tcase(s, tc);
  tcase_add_test(tc, status_strings_distinct_and_named);
  tcase_add_test(tc, version_matches_header);
  tcase_add_test(tc, type_size_and_name);
  tcase_add_test(tc, last_error_message_set_and_cleared);
  tcase_add_test(tc, last_error_message_per_thread);
  tcase_add_test(tc, invalid_argument_null_context);
  tcase_add_test(tc, invalid_argument_null_pointer);
  tcase_add_test(tc, invalid_argument_unknown_type);
  tcase_add_test(tc, invalid_argument_offset_type);
  tcase_add_test(tc, invalid_argument_unknown_op);
  tcase_add_test(tc, invalid_argument_element_size);
  tcase_add_test(tc, invalid_argument_n_exceeds_buffer);
  tcase_add_test(tc, invalid_argument_wait_list_null);
  tcase_add_test(tc, invalid_argument_bucket_count);
  tcase_add_test(tc, invalid_argument_tile_size_zero);
  tcase_add_test(tc, invalid_argument_foreign_buffer);
  tcase_add_test(tc, invalid_argument_read_only_buffer_written);
  tcase_add_test(tc, invalid_argument_write_only_buffer_read);
  tcase_add_test(tc, invalid_argument_same_buffer_twice);
  tcase_add_test(tc, invalid_argument_bucket_id_out_of_range);
  tcase_add_test(tc, invalid_argument_sort_flags);
  tcase_add_test(tc, invalid_argument_sort_algorithm);
  tcase_add_test(tc, invalid_argument_sort_bit_range);
  tcase_add_test(tc, invalid_argument_sort_value_and_index_size);
  tcase_add_test(tc, invalid_argument_host_arrays_overlap);
  tcase_add_test(tc, invalid_argument_device_spec);
  tcase_add_test(tc, invalid_argument_or_no_device_malformed_spec);
  tcase_add_test(tc, unsupported_comparison_options);
  tcase_add_test(tc, too_large_host_arrays);
  tcase_add_test(tc, too_large_u32_offsets);
  tcase_add_test(tc, opencl_error_foreign_event);

  /* These create (or fail to create) their own contexts only. */
  TCase *tn = t_tcase(s, "errors_no_context", false);
  tcase_add_test(tn, no_device_spec);
  tcase_add_test(tn, no_device_environment);
}

int main(int argc, char **argv) { return t_main(argc, argv, "errors", add); }
