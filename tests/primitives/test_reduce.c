/* test_reduce.c: clsort_reduce and clsort_reduce_buffer (sum, min, max) for
 * every type, the n == 0 identities and the NaN rules of float min/max. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <float.h>
#include <math.h>

#define GUARD 16 /* poisoned elements after the result */

static const char *op_name(clsort_reduce_op op) {
  return op == CLSORT_REDUCE_SUM ? "sum" : op == CLSORT_REDUCE_MIN ? "min" : "max";
}

static bool skip_f64(clsort_type t) {
  if (t != CLSORT_F64 || t_device_has_fp64(T_CTX)) return false;
  double in[2] = {1, 2}, out;
  ASSERT_STATUS(clsort_reduce(T_CTX, t, CLSORT_REDUCE_SUM, in, 2, &out), CLSORT_ERROR_UNSUPPORTED);
  printf("  device has no fp64: f64 reductions checked to return UNSUPPORTED only\n");
  return true;
}

/* Data whose reduction the reference computes exactly: full-range integers
 * (sums wrap); for float sums small integers (exact in any order); for
 * float min/max any values, with infinities mixed in. */
static void fill_exact(t_rng *r, clsort_type t, clsort_reduce_op op, void *p, size_t n) {
  if (!t_type_is_float(t)) {
    t_fill_int(r, t, p, n);
  } else if (op == CLSORT_REDUCE_SUM) {
    t_fill_float_ints(r, t, p, n, -1, t == CLSORT_F32 && n >= (1u << 22) ? 1 : 3);
  } else {
    t_fill_float(r, t, p, n, -1.0, 2.0, 1e3);
    if (n > 8) {
      t_set_f(t, p, t_rng_below(r, n), INFINITY);
      t_set_f(t, p, t_rng_below(r, n), -INFINITY);
    }
  }
}

/* Reduces on the host and as buffers; both results must equal `want`
 * exactly (with the guard after the result untouched). */
static void check_reduce(clsort_type t, clsort_reduce_op op, const void *in, size_t n,
                         const void *want, bool buffer_form) {
  size_t es = clsort_type_size(t);
  unsigned char res[(1 + GUARD) * 8];
  t_poison(res, sizeof res);
  if (!buffer_form) {
    ASSERT_OK(clsort_reduce(T_CTX, t, op, in, n, res));
  } else {
    cl_command_queue q = clsort_context_queue(T_CTX);
    cl_mem bin = t_buffer(n ? n * es : 16, NULL), bres = t_buffer((1 + GUARD) * es, NULL);
    cl_event written = NULL, done = NULL;
    if (n) {
      ASSERT_CL(clEnqueueWriteBuffer(q, bin, CL_FALSE, 0, n * es, in, 0, NULL, &written));
      t_defer_event(written);
    }
    ASSERT_OK(clsort_reduce_buffer(T_CTX, t, op, bin, n, bres, n ? 1 : 0, n ? &written : NULL,
                                   &done));
    ASSERT_NOT_NULL(done);
    t_defer_event(done);
    ASSERT_CL(clWaitForEvents(1, &done));
    t_read_into(bres, res, (1 + GUARD) * es);
    t_release_now(bres);
    t_release_now(bin);
  }
  if (t_type_is_float(t) && isnan(t_get_f(t, want, 0))) {
    if (!isnan(t_get_f(t, res, 0)))
      ck_abort_msg("%s: got %.17g, want NaN", t_where(), t_get_f(t, res, 0));
  } else if (memcmp(res, want, es) != 0) {
    if (t_type_is_float(t))
      ck_abort_msg("%s: got %.17g, want %.17g", t_where(), t_get_f(t, res, 0),
                   t_get_f(t, want, 0));
    else
      ck_abort_msg("%s: got 0x%" PRIx64 ", want 0x%" PRIx64, t_where(), t_get_bits(t, res, 0),
                   t_get_bits(t, want, 0));
  }
  ASSERT_POISON(res, es, (1 + GUARD) * es);
}

/* _i = type * 3 + op, over every size, host and buffer forms. */
T_TEST(reduce_exact) {
  clsort_type t = t_all_types[_i / 3];
  clsort_reduce_op op = (clsort_reduce_op)(_i % 3);
  if (skip_f64(t)) return;
  t_rng r;
  t_rng_init(&r, "reduce_exact");
  r.s[1] ^= (uint64_t)_i;
  size_t es = clsort_type_size(t);
  size_t sizes[64], count = 0;
  for (size_t i = 0; i < t_quick_sizes_count; i++) sizes[count++] = t_quick_sizes[i];
  for (int i = 0; i < 6; i++) sizes[count++] = t_rng_size(&r, 1, 300000);
  for (size_t i = 0; i < count; i++) {
    size_t n = sizes[i];
    unsigned char *in = t_alloc(n * es + 1), *copy = t_alloc(n * es + 1), want[8];
    fill_exact(&r, t, op, in, n);
    memcpy(copy, in, n * es);
    t_ref_reduce(t, op, in, n, want, NULL, NULL);
    for (int form = 0; form < 2; form++) {
      t_label("%s %s n=%zu %s", clsort_type_name(t), op_name(op), n, form ? "buffer" : "host");
      check_reduce(t, op, in, n, want, form);
    }
    ASSERT_EQ_ELEMS(in, copy, n, es);
    t_release_now(in);
    t_release_now(copy);
  }
}

/* n == 0 gives the identity: 0, the type's largest value (+inf) for MIN,
 * its smallest (-inf) for MAX. NULL input is allowed. */
T_TEST(reduce_identities) {
  clsort_type t = t_all_types[_i];
  if (skip_f64(t)) return;
  for (int op = 0; op < 3; op++) {
    unsigned char want[8];
    switch (t) {
    case CLSORT_U32: {
      uint32_t v = op == 0 ? 0 : op == 1 ? UINT32_MAX : 0;
      memcpy(want, &v, 4);
    } break;
    case CLSORT_I32: {
      int32_t v = op == 0 ? 0 : op == 1 ? INT32_MAX : INT32_MIN;
      memcpy(want, &v, 4);
    } break;
    case CLSORT_F32: {
      float v = op == 0 ? 0.0f : op == 1 ? INFINITY : -INFINITY;
      memcpy(want, &v, 4);
    } break;
    case CLSORT_U64: {
      uint64_t v = op == 0 ? 0 : op == 1 ? UINT64_MAX : 0;
      memcpy(want, &v, 8);
    } break;
    case CLSORT_I64: {
      int64_t v = op == 0 ? 0 : op == 1 ? INT64_MAX : INT64_MIN;
      memcpy(want, &v, 8);
    } break;
    case CLSORT_F64: {
      double v = op == 0 ? 0.0 : op == 1 ? INFINITY : -INFINITY;
      memcpy(want, &v, 8);
    } break;
    default: /* the narrow types: test_narrow.c */
      ck_abort_msg("test bug: %s", clsort_type_name(t));
    }
    for (int form = 0; form < 2; form++) {
      t_label("%s %s n=0 %s", clsort_type_name(t), op_name((clsort_reduce_op)op),
              form ? "buffer" : "host");
      check_reduce(t, (clsort_reduce_op)op, NULL, 0, want, form);
    }
    t_label("%s %s n=0 NULL input buffer", clsort_type_name(t), op_name((clsort_reduce_op)op));
    cl_mem bres = t_buffer(8, NULL);
    cl_event ev = NULL;
    ASSERT_OK(clsort_reduce_buffer(T_CTX, t, (clsort_reduce_op)op, NULL, 0, bres, 0, NULL, &ev));
    ASSERT_NOT_NULL(ev);
    t_defer_event(ev);
    unsigned char got[8];
    t_read_into(bres, got, 8);
    ASSERT_EQ_ELEMS(got, want, 1, clsort_type_size(t));
  }
}

/* The half floats' min and max data: values in [-1, 2) times `scale`
 * (f16 subnormals lie below 6.1e-5, bf16 ones below 1.2e-38), with
 * infinities and NaNs of both signs and several payloads mixed in, which
 * min and max ignore; or NaNs only, whose min and max are NaN. */
static void fill_half(t_rng *r, clsort_type t, void *p, size_t n, double scale, bool all_nan) {
  static const uint16_t nan_f16[] = {0x7E00u, 0xFE00u, 0x7C01u, 0xFFFFu, 0x7FFFu};
  static const uint16_t nan_bf16[] = {0x7FC0u, 0xFFC0u, 0x7F81u, 0xFFFFu, 0x7FFFu};
  const uint16_t *nans = t == CLSORT_F16 ? nan_f16 : nan_bf16;
  t_fill_float(r, t, p, n, -1.0, 2.0, scale);
  for (size_t i = 0; i < n; i++)
    if (all_nan || t_rng_below(r, 16) == 0) t_put_bits(t, p, i, nans[t_rng_below(r, 5)]);
  if (n > 8 && !all_nan && scale > 1) {
    t_set_f(t, p, t_rng_below(r, n), INFINITY);
    t_set_f(t, p, t_rng_below(r, n), -INFINITY);
  }
}

/* _i = narrow type * 3 + op (u8, i8, u16, i16, f16, bf16): sums of the
 * integer types wrap in the type; min and max of every type are exact
 * (the half floats' NaNs ignored, subnormals included); n == 0 gives the
 * identity; sums of half floats are CLSORT_ERROR_UNSUPPORTED. Host and
 * buffer forms, the input untouched. */
T_TEST(reduce_narrow) {
  clsort_type t = t_narrow_types[_i / 3];
  clsort_reduce_op op = (clsort_reduce_op)(_i % 3);
  size_t es = clsort_type_size(t);
  if (t_type_is_half(t) && op == CLSORT_REDUCE_SUM) {
    uint16_t in[2] = {0x3C00u, 0x3C00u}, res = 7;
    t_label("%s sum refused", clsort_type_name(t));
    ASSERT_STATUS(clsort_reduce(T_CTX, t, op, in, 2, &res), CLSORT_ERROR_UNSUPPORTED);
    ASSERT_STR_NONEMPTY(clsort_last_error_message());
    ASSERT_EQ_U64(res, 7);
    return;
  }
  t_rng r;
  t_rng_init(&r, "reduce_narrow");
  r.s[1] ^= (uint64_t)_i;
  static const size_t sizes[] = {0, 1, 2, 33, 255, 257, 4097, 65537, 300007};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (int data = 0; data < (t_type_is_half(t) ? 3 : 1); data++) {
      size_t n = sizes[i];
      unsigned char *in = t_alloc(n * es + 1), *copy = t_alloc(n * es + 1), want[8];
      if (!t_type_is_half(t))
        t_fill_int(&r, t, in, n);
      else
        fill_half(&r, t, in, n, data == 1 ? (t == CLSORT_F16 ? 1e-4 : 1e-37) : 1e3, data == 2);
      memcpy(copy, in, n * es);
      t_ref_reduce(t, op, in, n, want, NULL, NULL);
      for (int form = 0; form < 2; form++) {
        t_label("%s %s n=%zu data %d %s", clsort_type_name(t), op_name(op), n, data,
                form ? "buffer" : "host");
        check_reduce(t, op, in, n, want, form);
      }
      ASSERT_EQ_ELEMS(in, copy, n, es);
      t_release_now(in);
      t_release_now(copy);
    }
}

/* Fractional float sums within the scan's tolerance of the exact sum. */
T_TEST(reduce_float_sum_tolerance) {
  clsort_type t = _i == 0 ? CLSORT_F32 : CLSORT_F64;
  if (skip_f64(t)) return;
  t_rng r;
  t_rng_init(&r, "reduce_float_sum_tolerance");
  size_t es = clsort_type_size(t);
  static const double scales[] = {0x1.0p-10, 1.0, 1e6};
  for (size_t i = 0; i < t_quick_sizes_count; i++) {
    size_t n = t_quick_sizes[i];
    double scale = scales[i % 3];
    unsigned char *in = t_alloc(n * es + 1), res[8];
    t_fill_float(&r, t, in, n, -1.0, 2.0, scale);
    double exact, abs_sum;
    t_ref_reduce(t, CLSORT_REDUCE_SUM, in, n, res, &exact, &abs_sum);
    for (int form = 0; form < 2; form++) {
      t_label("%s sum n=%zu scale %g %s", clsort_type_name(t), n, scale, form ? "buffer" : "host");
      t_poison(res, sizeof res);
      if (form == 0) {
        ASSERT_OK(clsort_reduce(T_CTX, t, CLSORT_REDUCE_SUM, in, n, res));
      } else {
        cl_mem bin = t_buffer(n ? n * es : 8, n ? in : NULL), bres = t_buffer(es, NULL);
        ASSERT_OK(clsort_reduce_buffer(T_CTX, t, CLSORT_REDUCE_SUM, bin, n, bres, 0, NULL, NULL));
        t_read_into(bres, res, es);
        t_release_now(bres);
        t_release_now(bin);
      }
      double got = t_get_f(t, res, 0);
      double tol = t_float_tol_factor(n) * t_type_eps(t) * abs_sum;
      if (!(fabs(got - exact) <= tol))
        ck_abort_msg("%s: got %.17g, exact %.17g, |diff| %.3g > tolerance %.3g", t_where(), got,
                     exact, fabs(got - exact), tol);
    }
    t_release_now(in);
  }
}

/* Float MIN/MAX ignore NaNs unless every element is NaN, as fmin/fmax. */
T_TEST(reduce_float_nan) {
  clsort_type t = _i == 0 ? CLSORT_F32 : CLSORT_F64;
  if (skip_f64(t)) return;
  t_rng r;
  t_rng_init(&r, "reduce_float_nan");
  size_t es = clsort_type_size(t);
  static const size_t sizes[] = {1, 2, 31, 257, 4097, 65537};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t n = sizes[s];
    unsigned char *in = t_alloc(n * es), want[8];
    /* pattern 0: NaN first and last and some inside; 1: all NaN;
     * 2: all NaN but one; 3: NaNs of both signs with infinities. */
    for (int pattern = 0; pattern < 4; pattern++) {
      t_fill_float(&r, t, in, n, -5.0, 5.0, 1.0);
      if (pattern == 0) {
        t_set_f(t, in, 0, NAN);
        t_set_f(t, in, n - 1, NAN);
        for (size_t k = 0; k < n / 7; k++) t_set_f(t, in, t_rng_below(&r, n), NAN);
      } else if (pattern == 1 || pattern == 2) {
        for (size_t k = 0; k < n; k++) t_set_f(t, in, k, NAN);
        if (pattern == 2) t_set_f(t, in, t_rng_below(&r, n), -3.25);
      } else {
        for (size_t k = 0; k < n / 3; k++)
          t_set_f(t, in, t_rng_below(&r, n), k % 2 ? NAN : -NAN);
        t_set_f(t, in, t_rng_below(&r, n), t_rng_below(&r, 2) ? INFINITY : -INFINITY);
      }
      for (int op = 1; op < 3; op++) {
        t_ref_reduce(t, (clsort_reduce_op)op, in, n, want, NULL, NULL);
        for (int form = 0; form < 2; form++) {
          t_label("%s %s n=%zu NaN pattern %d %s", clsort_type_name(t),
                  op_name((clsort_reduce_op)op), n, pattern, form ? "buffer" : "host");
          check_reduce(t, (clsort_reduce_op)op, in, n, want, form);
        }
      }
    }
    t_release_now(in);
  }
}

/* Integer MIN/MAX at the extremes: signed types must compare as signed,
 * unsigned ones as unsigned, with the extreme value anywhere. */
T_TEST(reduce_int_extremes) {
  clsort_type t = t_all_types[_i];
  if (t_type_is_float(t)) return;
  t_rng r;
  t_rng_init(&r, "reduce_int_extremes");
  size_t es = clsort_type_size(t);
  static const size_t sizes[] = {1, 2, 33, 1025, 65537};
  uint64_t lo = t_type_is_signed(t) ? (es == 4 ? 0x80000000u : 0x8000000000000000ull) : 0;
  uint64_t hi = t_type_is_signed(t) ? lo - 1 : (es == 4 ? 0xFFFFFFFFu : UINT64_MAX);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t n = sizes[s];
    unsigned char *in = t_alloc(n * es), want[8];
    for (int where = 0; where < 3; where++) {
      t_fill_int(&r, t, in, n);
      size_t pos[2] = {where == 0 ? 0 : where == 1 ? n - 1 : t_rng_below(&r, n),
                       t_rng_below(&r, n)};
      uint64_t v[2] = {lo, hi};
      if (pos[1] == pos[0]) v[1] = v[0]; /* keep one extreme when they collide */
      for (int k = 0; k < 2; k++) {
        if (es == 4) {
          uint32_t w = (uint32_t)v[k];
          memcpy(in + pos[k] * 4, &w, 4);
        } else {
          memcpy(in + pos[k] * 8, &v[k], 8);
        }
      }
      for (int op = 0; op < 3; op++) {
        t_ref_reduce(t, (clsort_reduce_op)op, in, n, want, NULL, NULL);
        for (int form = 0; form < 2; form++) {
          t_label("%s %s n=%zu extremes at %zu,%zu %s", clsort_type_name(t),
                  op_name((clsort_reduce_op)op), n, pos[0], pos[1], form ? "buffer" : "host");
          check_reduce(t, (clsort_reduce_op)op, in, n, want, form);
        }
      }
    }
    t_release_now(in);
  }
}

T_TEST(reduce_large) {
  clsort_type t = t_all_types[_i / 3];
  clsort_reduce_op op = (clsort_reduce_op)(_i % 3);
  if (skip_f64(t)) return;
  t_rng r;
  t_rng_init(&r, "reduce_large");
  r.s[1] ^= (uint64_t)_i;
  size_t es = clsort_type_size(t);
  for (size_t i = 0; i < t_slow_sizes_count; i += 2) {
    size_t n = t_slow_sizes[i];
    unsigned char *in = t_alloc(n * es), want[8];
    fill_exact(&r, t, op, in, n);
    t_ref_reduce(t, op, in, n, want, NULL, NULL);
    t_label("%s %s n=%zu %s", clsort_type_name(t), op_name(op), n, i % 4 ? "buffer" : "host");
    check_reduce(t, op, in, n, want, i % 4 != 0);
    t_release_now(in);
  }
}

static void add(Suite *s, unsigned tiers) {
  if (tiers & T_QUICK) {
    TCase *tc = t_tcase(s, "reduce", true);
    tcase_add_loop_test(tc, reduce_exact, 0, 18);
    tcase_add_loop_test(tc, reduce_identities, 0, 6);
    tcase_add_loop_test(tc, reduce_narrow, 0, 18);
    tcase_add_loop_test(tc, reduce_float_sum_tolerance, 0, 2);
    tcase_add_loop_test(tc, reduce_float_nan, 0, 2);
    tcase_add_loop_test(tc, reduce_int_extremes, 0, 6);
  }
  if (tiers & T_SLOW) {
    TCase *tc = t_tcase(s, "reduce_slow", true);
    tcase_add_loop_test(tc, reduce_large, 0, 18);
  }
}

int main(int argc, char **argv) { return t_main(argc, argv, "reduce", add); }
