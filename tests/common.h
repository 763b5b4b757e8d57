/* common.h: what the libclsort test programs share: typed asserts that print
 * both values, the seeded PRNG, data generators, poison patterns, plain C
 * reference implementations, and the fixture that gives every test a fresh
 * context on the test device and checks that nothing leaked. */
#ifndef CLSORT_TESTS_COMMON_H
#define CLSORT_TESTS_COMMON_H

#include <check.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "clsort.h"
#include "api/testing.h"

/* ------------------------------------------------------------ test context */
/* Every failure message starts with t_where(): the seed, to replay the run,
 * and the label of the case being checked ("u32 exclusive n=257 host").
 * CLSORT_TEST_TRACE=1 prints each label to stderr as it is set, to locate
 * crashes. */
const char *t_where(void);
void t_label(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* ----------------------------------------------------------------- asserts */
/* Never call ck_assert* per element: Check records a location on every
 * passing assert, which makes loops over millions of elements slow. These
 * macros cost a comparison when they pass. */
#define ASSERT_EQ_U64(a, b)                                                                    \
  do {                                                                                         \
    uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                          \
    if (a_ != b_)                                                                              \
      ck_abort_msg("%s: %s == %s failed: %" PRIu64 " (0x%" PRIx64 ") vs %" PRIu64 " (0x%" PRIx64 \
                   ")",                                                                        \
                   t_where(), #a, #b, a_, a_, b_, b_);                                         \
  } while (0)
#define ASSERT_NE_U64(a, b)                                                                 \
  do {                                                                                      \
    uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                       \
    if (a_ == b_)                                                                           \
      ck_abort_msg("%s: %s != %s failed: both are %" PRIu64, t_where(), #a, #b, a_);        \
  } while (0)
#define ASSERT_CMP_U64_(a, op, b)                                                        \
  do {                                                                                   \
    uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                    \
    if (!(a_ op b_))                                                                     \
      ck_abort_msg("%s: %s %s %s failed: %" PRIu64 " vs %" PRIu64, t_where(), #a, #op, #b, \
                   a_, b_);                                                              \
  } while (0)
#define ASSERT_GT_U64(a, b) ASSERT_CMP_U64_(a, >, b)
#define ASSERT_GE_U64(a, b) ASSERT_CMP_U64_(a, >=, b)
#define ASSERT_LE_U64(a, b) ASSERT_CMP_U64_(a, <=, b)
#define ASSERT_LT_U64(a, b) ASSERT_CMP_U64_(a, <, b)
#define ASSERT_EQ_I64(a, b)                                                                  \
  do {                                                                                       \
    int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                                           \
    if (a_ != b_)                                                                            \
      ck_abort_msg("%s: %s == %s failed: %" PRId64 " vs %" PRId64, t_where(), #a, #b, a_, b_); \
  } while (0)
#define ASSERT_TRUE(cond)                                                  \
  do {                                                                     \
    if (!(cond)) ck_abort_msg("%s: %s is false", t_where(), #cond);        \
  } while (0)
#define ASSERT_FALSE(cond)                                                 \
  do {                                                                     \
    if (cond) ck_abort_msg("%s: %s is true", t_where(), #cond);            \
  } while (0)
#define ASSERT_NULL(p)                                                                       \
  do {                                                                                       \
    const void *p_ = (const void *)(p);                                                      \
    if (p_ != NULL) ck_abort_msg("%s: %s is %p, expected NULL", t_where(), #p, (void *)p_);  \
  } while (0)
#define ASSERT_NOT_NULL(p)                                                     \
  do {                                                                         \
    if ((p) == NULL) ck_abort_msg("%s: %s is NULL", t_where(), #p);            \
  } while (0)
#define ASSERT_EQ_STR(a, b)                                                                     \
  do {                                                                                          \
    const char *a_ = (a), *b_ = (b);                                                            \
    if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0)                                        \
      ck_abort_msg("%s: %s == %s failed: \"%s\" vs \"%s\"", t_where(), #a, #b,                  \
                   a_ ? a_ : "(null)", b_ ? b_ : "(null)");                                     \
  } while (0)
#define ASSERT_NE_STR(a, b)                                                                      \
  do {                                                                                           \
    const char *a_ = (a), *b_ = (b);                                                             \
    if (a_ == NULL || b_ == NULL || strcmp(a_, b_) == 0)                                         \
      ck_abort_msg("%s: %s != %s failed: \"%s\" vs \"%s\"", t_where(), #a, #b, a_ ? a_ : "(null)", \
                   b_ ? b_ : "(null)");                                                          \
  } while (0)
#define ASSERT_STR_NONEMPTY(s)                                                                  \
  do {                                                                                          \
    const char *s_ = (s);                                                                       \
    if (s_ == NULL || s_[0] == '\0')                                                            \
      ck_abort_msg("%s: %s is %s, expected a non-empty string", t_where(), #s,                  \
                   s_ ? "\"\"" : "NULL");                                                       \
  } while (0)
#define ASSERT_STR_EMPTY(s)                                                                     \
  do {                                                                                          \
    const char *s_ = (s);                                                                       \
    if (s_ == NULL || s_[0] != '\0')                                                            \
      ck_abort_msg("%s: %s is \"%s\", expected \"\"", t_where(), #s, s_ ? s_ : "(null)");       \
  } while (0)
/* Prints both statuses by name, and the library's message for the actual one. */
#define ASSERT_STATUS(actual, expected)                                                       \
  do {                                                                                        \
    clsort_status a_ = (actual), e_ = (expected);                                             \
    if (a_ != e_)                                                                             \
      ck_abort_msg("%s: %s returned %s (%d), expected %s (%d); last error: \"%s\"", t_where(), \
                   #actual, t_status_name(a_), (int)a_, t_status_name(e_), (int)e_,           \
                   t_last_error());                                                           \
  } while (0)
#define ASSERT_OK(actual) ASSERT_STATUS(actual, CLSORT_SUCCESS)
/* A failing call: the expected status, with a message saying why. */
#define ASSERT_ERROR(actual, expected)                                                    \
  do {                                                                                    \
    ASSERT_STATUS(actual, expected);                                                      \
    if (clsort_last_error_message()[0] == '\0')                                           \
      ck_abort_msg("%s: %s failed with an empty last-error message", t_where(), #actual); \
  } while (0)
#define ASSERT_CL(call)                                                                         \
  do {                                                                                          \
    cl_int e_ = (call);                                                                         \
    if (e_ != CL_SUCCESS) ck_abort_msg("%s: %s returned OpenCL error %d", t_where(), #call, e_); \
  } while (0)
/* Byte arrays: the first differing byte and the bytes around it. */
#define ASSERT_EQ_MEM(got, want, bytes)                                                      \
  do {                                                                                       \
    char m_[768];                                                                            \
    if (!t_mem_equal((got), (want), (bytes), m_, sizeof m_))                                 \
      ck_abort_msg("%s: %s vs %s: %s", t_where(), #got, #want, m_);                          \
  } while (0)
/* Arrays of n elements of esize bytes: the first differing element, both
 * values in hex, and how many elements differ. */
#define ASSERT_EQ_ELEMS(got, want, n, esize)                                                 \
  do {                                                                                       \
    char m_[768];                                                                            \
    if (!t_elems_equal((got), (want), (n), (esize), m_, sizeof m_))                          \
      ck_abort_msg("%s: %s vs %s: %s", t_where(), #got, #want, m_);                          \
  } while (0)
/* Bytes [from, to) of a host array must still hold the poison pattern. */
#define ASSERT_POISON(p, from, to)                                                           \
  do {                                                                                       \
    char m_[512];                                                                            \
    if (!t_poison_intact((p), (from), (to), m_, sizeof m_))                                  \
      ck_abort_msg("%s: %s: %s", t_where(), #p, m_);                                         \
  } while (0)

const char *t_status_name(clsort_status st);
const char *t_last_error(void);
bool t_mem_equal(const void *got, const void *want, size_t bytes, char *msg, size_t msglen);
bool t_elems_equal(const void *got, const void *want, size_t n, size_t esize, char *msg,
                   size_t msglen);

/* -------------------------------------------------------------------- seed */
/* The run's seed: CLSORT_TEST_SEED (decimal or 0x-hex) when set, else drawn
 * from the clock and pid. t_main prints it. */
uint64_t t_seed(void);

/* xoshiro256**, seeded from the run's seed and a stream name, so that each
 * test draws the same numbers whatever ran before it. */
typedef struct t_rng {
  uint64_t s[4];
} t_rng;
void t_rng_init(t_rng *r, const char *stream);
uint64_t t_rng_next(t_rng *r);
uint64_t t_rng_below(t_rng *r, uint64_t bound); /* [0, bound), bound > 0 */
double t_rng_unit(t_rng *r);                    /* [0, 1) */
/* A size in [lo, hi], log-uniform so that small and large sizes both occur. */
size_t t_rng_size(t_rng *r, size_t lo, size_t hi);

/* --------------------------------------------------------------- sizes */
/* The sizes of the issue: 0, 1, 2, around 32, 256, 1024, 4096, 2^k +- 1
 * for several k, primes, up to about 10^6. */
extern const size_t t_quick_sizes[];
extern const size_t t_quick_sizes_count;
/* At least 2^22, for the slow tier. */
extern const size_t t_slow_sizes[];
extern const size_t t_slow_sizes_count;

/* ------------------------------------------------------------------ types */
extern const clsort_type t_all_types[6];
/* The 8- and 16-bit types: u8, i8, u16, i16, f16, bf16. */
extern const clsort_type t_narrow_types[6];
bool t_type_is_float(clsort_type t); /* f32, f64, f16, bf16 */
bool t_type_is_half(clsort_type t);  /* f16, bf16 */
bool t_type_is_signed(clsort_type t);
/* The type's bits: 0xFF .. UINT64_MAX. */
uint64_t t_type_mask(clsort_type t);
/* The value of binary16 (CLSORT_F16) or bfloat16 (CLSORT_BF16) bits; and
 * the bits nearest a value (ties to even; NaN: the quiet NaN of its sign),
 * computed here independently of the library. */
double t_half_to_double(clsort_type t, uint16_t h);
uint16_t t_half_from_double(clsort_type t, double v);

/* --------------------------------------------------------------- poison */
/* Outputs are filled with this repeating pattern before each run, so that
 * elements the library failed to write are caught. It is neither zero nor
 * a value the tests produce. */
void t_poison(void *p, size_t bytes);
bool t_poison_intact(const void *p, size_t from, size_t to, char *msg, size_t msglen);

/* ---------------------------------------------------------- generators */
void t_fill_bytes(t_rng *r, void *p, size_t bytes);
/* Integers of the type, full range. */
void t_fill_int(t_rng *r, clsort_type t, void *p, size_t n);
/* Floats uniform in [lo, hi) times scale. */
void t_fill_float(t_rng *r, clsort_type t, void *p, size_t n, double lo, double hi,
                  double scale);
/* Floats holding small integers in [lo, hi]: their sums are exact in any
 * order while |partial sums| < 2^24 (f32), so the result must match exactly. */
void t_fill_float_ints(t_rng *r, clsort_type t, void *p, size_t n, int lo, int hi);
/* Any type: random data suited to the type (full-range integers; floats
 * in a moderate range). */
void t_fill_random(t_rng *r, clsort_type t, void *p, size_t n);

/* ----------------------------------------------------- element access */
double t_get_f(clsort_type t, const void *p, size_t i); /* floats only */
uint64_t t_get_bits(clsort_type t, const void *p, size_t i);
/* Writes the type's low bits of `bits` as element i. */
void t_put_bits(clsort_type t, void *p, size_t i, uint64_t bits);
void t_set_f(clsort_type t, void *p, size_t i, double v);

/* ---------------------------------------------------------- references */
/* Integer scan, wrapping as the library does. */
void t_ref_scan_int(clsort_type t, clsort_scan_kind kind, const void *in, void *out, size_t n);
/* Checks a float scan against a compensated double-precision sequential
 * reference. Element i may differ from the exact prefix by
 * eps(type) * t_float_tol_factor(n) * sum(|x_j|, j in prefix). Returns false
 * and describes the first bad element in msg. */
bool t_check_float_scan(clsort_type t, clsort_scan_kind kind, const void *in, const void *got,
                        size_t n, char *msg, size_t msglen);
double t_float_tol_factor(size_t n);
double t_type_eps(clsort_type t);
/* Reductions; the result is written as one element of the type. For float
 * SUM the exact (compensated) sum and sum of |x| go to *exact and *abs_sum. */
void t_ref_reduce(clsort_type t, clsort_reduce_op op, const void *in, size_t n, void *result,
                  double *exact, double *abs_sum);
/* Stable select / partition; returns the count of flagged elements. */
size_t t_ref_select(size_t elem, bool split, const void *in, const unsigned char *flags,
                    void *out, size_t n);
/* Column-major exclusive scan of the per-tile bucket count table:
 * out[b * p + t], p = ceil(n / tile). */
void t_ref_bucket_offsets(const unsigned *buckets, size_t n, unsigned num_buckets, size_t tile,
                          uint64_t *out);

/* -------------------------------------------------------------- fixture */
/* The context of the running test, created by t_setup on the test device:
 * the spec in CLSORT_TEST_DEVICE, else the library's default choice. */
extern clsort_context *T_CTX;
const char *t_device_spec(void);
clsort_status t_context_create(clsort_context **ctx);
void t_setup(void);    /* creates T_CTX */
void t_setup_no_ctx(void); /* for tests that make their own contexts */
void t_teardown(void); /* frees what the test registered, releases T_CTX, checks leaks */
/* Frees what the test registered (t_alloc, t_defer, ...), last first, and
 * nothing else: for drivers that keep one context across many cases. */
void t_release_deferred(void);

/* Resources registered here are released by t_teardown, last first, even
 * when an assert aborts the test (Check runs without fork: see t_main). */
void *t_alloc(size_t bytes);
/* `bytes` of memory between two inaccessible pages: the first byte right
 * after one (at_end false) or the last right before the other (at_end
 * true), so that a kernel that reads a byte before or past an array that a
 * CPU device uses in place faults. Unmapped by t_teardown. */
void *t_guarded(size_t bytes, bool at_end);
/* Host arrays back to back in one allocation, as small arrays from malloc
 * lie: array i (bytes[i] bytes of elements of elem[i]) at p[i], right
 * after the one before it in memory (the last first when `reversed`) at
 * the next multiple of its elements, the first `lead` bytes past a page
 * boundary; poison around them. On a CPU device the regions from the
 * aligned addresses before the arrays overlap: the library shares one
 * buffer between them (or stages them when one is not aligned to its
 * elements). t_layout_snapshot remembers the block once the inputs are
 * in; t_layout_check asserts that every byte of it but those of the
 * arrays in `outputs` (a bit per array) is as remembered: the inputs
 * unchanged, nothing written between or around the arrays. */
#define T_LAYOUT_MAX 4
typedef struct t_layout {
  unsigned char *block, *copy;
  size_t bytes, count;
  unsigned char *p[T_LAYOUT_MAX];
  size_t size[T_LAYOUT_MAX];
} t_layout;
void t_layout_make(t_layout *l, size_t count, const size_t *bytes, const size_t *elem,
                   size_t lead, bool reversed);
void t_layout_snapshot(t_layout *l);
void t_layout_check(const t_layout *l, unsigned outputs);
void t_defer(void (*fn)(void *), void *p);
/* Releases a deferred resource now (calls fn and unregisters it). */
void t_release_now(void *p);
clsort_context *t_own_context(clsort_context *ctx); /* registers for release */
/* A buffer on T_CTX's cl_context holding `bytes`, initialised from `init`
 * or with the poison pattern when init is NULL. */
cl_mem t_buffer(size_t bytes, const void *init);
cl_mem t_buffer_on(cl_context c, size_t bytes, const void *init);
/* A buffer holding `bytes` of p (poison when p is NULL) and 64 bytes of
 * poison after them: never empty, and a write past the end shows. */
cl_mem t_buffer_padded(const void *p, size_t bytes);
/* Blocking read of a whole buffer through T_CTX's queue into a t_alloc array. */
void *t_read_buffer(cl_mem buf, size_t bytes);
void t_read_into(cl_mem buf, void *dst, size_t bytes);
void t_defer_event(cl_event e);
bool t_device_has_fp64(const clsort_context *ctx);

/* A watchdog for calls given a user event in their wait list: if the call
 * has not returned within `seconds`, it completes the user event so that a
 * call that blocks on its own wait list cannot hang the suite. Returns
 * (from stop) whether it had to fire. */
typedef struct t_watchdog t_watchdog;
t_watchdog *t_watchdog_start(cl_event user_event, double seconds);
bool t_watchdog_stop(t_watchdog *w);
/* A user event on T_CTX's context, released when the test ends: the gate
 * in a call's wait list. */
cl_event t_gate(void);
/* For a call that returned with `gate` still shut: waits a moment (time
 * for a wrong implementation to run ahead of its wait list), fails the
 * test when `done` has completed, then opens the gate. */
void t_open_gate_checked(cl_event gate, cl_event done);

/* Environment helpers that restore what they change at teardown. */
void t_setenv(const char *name, const char *value);
void t_unsetenv(const char *name);
/* A fresh empty directory under the build's temp area, removed at teardown. */
const char *t_temp_dir(const char *tag);
double t_now(void);

/* START_TEST that also records the test's name, for the timing line that
 * t_teardown prints. */
void t_test_name_(const char *name, int i);
#define T_TEST(name)                   \
  static void name##_body(int _i CK_ATTRIBUTE_UNUSED); \
  START_TEST(name) {                   \
    t_test_name_(#name, _i);           \
    name##_body(_i);                   \
  }                                    \
  END_TEST                             \
  static void name##_body(int _i CK_ATTRIBUTE_UNUSED)

/* ------------------------------------------------------------------ main */
typedef enum t_tier { T_QUICK = 1, T_SLOW = 2 } t_tier;
/* Runs the program's suite. argv[1] picks the tier: "quick", "slow" or
 * "all" (default); an optional argv[2] is left in t_part for the program
 * to pick a part of its tests (so that meson can run the parts of a long
 * program in parallel). Exits 77 (meson's skip) when there is no OpenCL
 * device. */
extern const char *t_part;
int t_main(int argc, char **argv, const char *name, void (*add)(Suite *s, unsigned tiers));
/* A TCase with the standard fixture (t_setup or t_setup_no_ctx). */
TCase *t_tcase(Suite *s, const char *name, bool with_ctx);

#endif
