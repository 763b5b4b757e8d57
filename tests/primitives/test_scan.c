/* test_scan.c: clsort_scan and clsort_scan_buffer, exclusive and inclusive,
 * for every type and the sizes, against a plain C reference. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <math.h>
#include <stdlib.h>

#define GUARD 16 /* poisoned elements after the output, which must stay so */
#define RANDOM_SIZES 6

static const char *kind_name(clsort_scan_kind k) {
  return k == CLSORT_SCAN_EXCLUSIVE ? "exclusive" : "inclusive";
}

/* Data whose scan the reference computes exactly for every type: integers
 * over their full range (sums wrap), floats holding small integers so that
 * any summation order gives the same result (|partial sums| < 2^24 for
 * f32, so the range shrinks for the largest sizes). */
static void fill_exact(t_rng *r, clsort_type t, void *p, size_t n) {
  if (t == CLSORT_F32)
    t_fill_float_ints(r, t, p, n, -1, n < (1u << 22) ? 3 : 1);
  else if (t == CLSORT_F64)
    t_fill_float_ints(r, t, p, n, -1000, 1000);
  else
    t_fill_int(r, t, p, n);
}

static void ref_scan_exact(clsort_type t, clsort_scan_kind kind, const void *in, void *out,
                           size_t n) {
  if (!t_type_is_float(t)) {
    t_ref_scan_int(t, kind, in, out, n);
    return;
  }
  double acc = 0; /* exact: the inputs are small integers */
  for (size_t i = 0; i < n; i++) {
    double x = t_get_f(t, in, i);
    if (kind == CLSORT_SCAN_INCLUSIVE) acc += x;
    t_set_f(t, out, i, acc);
    if (kind == CLSORT_SCAN_EXCLUSIVE) acc += x;
  }
}

/* f64 on a device without fp64 must be refused, not miscomputed. */
static bool skip_f64(clsort_type t) {
  if (t != CLSORT_F64 || t_device_has_fp64(T_CTX)) return false;
  double in[4] = {1, 2, 3, 4}, out[4];
  ASSERT_STATUS(clsort_scan(T_CTX, t, CLSORT_SCAN_INCLUSIVE, in, out, 4), CLSORT_ERROR_UNSUPPORTED);
  printf("  device has no fp64: f64 scans checked to return UNSUPPORTED only\n");
  return true;
}

/* One host-array scan of n elements, checked exactly. */
static void check_host_scan(t_rng *r, clsort_type t, clsort_scan_kind kind, size_t n,
                            bool in_place) {
  size_t es = clsort_type_size(t);
  t_label("%s %s n=%zu host%s", clsort_type_name(t), kind_name(kind), n,
          in_place ? " in-place" : "");
  unsigned char *in = t_alloc((n + GUARD) * es), *copy = t_alloc(n * es + 1),
                *out = t_alloc((n + GUARD) * es), *want = t_alloc(n * es + 1);
  fill_exact(r, t, in, n);
  memcpy(copy, in, n * es);
  ref_scan_exact(t, kind, in, want, n);
  if (in_place) {
    t_poison(in + n * es, GUARD * es);
    ASSERT_OK(clsort_scan(T_CTX, t, kind, in, in, n));
    ASSERT_EQ_ELEMS(in, want, n, es);
    ASSERT_POISON(in, n * es, (n + GUARD) * es);
  } else {
    t_poison(out, (n + GUARD) * es);
    ASSERT_OK(clsort_scan(T_CTX, t, kind, in, out, n));
    ASSERT_EQ_ELEMS(out, want, n, es);
    ASSERT_POISON(out, n * es, (n + GUARD) * es);
    ASSERT_EQ_ELEMS(in, copy, n, es); /* the input is const */
  }
  t_release_now(in);
  t_release_now(copy);
  t_release_now(out);
  t_release_now(want);
}

/* One buffer scan: input written with a non-blocking write whose event is
 * the wait list; the output event must complete; the guard after the
 * output must stay poisoned. In place when input == output. */
static void check_buffer_scan(t_rng *r, clsort_type t, clsort_scan_kind kind, size_t n,
                              bool in_place) {
  size_t es = clsort_type_size(t), bytes = (n + GUARD) * es;
  t_label("%s %s n=%zu buffer%s", clsort_type_name(t), kind_name(kind), n,
          in_place ? " in-place" : "");
  unsigned char *in = t_alloc(bytes), *want = t_alloc(n * es + 1);
  fill_exact(r, t, in, n);
  t_poison(in + n * es, GUARD * es);
  ref_scan_exact(t, kind, in, want, n);

  cl_command_queue q = clsort_context_queue(T_CTX);
  cl_mem bin = t_buffer(bytes, NULL), bout = in_place ? bin : t_buffer(bytes, NULL);
  cl_event written = NULL, done = NULL;
  ASSERT_CL(clEnqueueWriteBuffer(q, bin, CL_FALSE, 0, bytes, in, 0, NULL, &written));
  t_defer_event(written);
  ASSERT_OK(clsort_scan_buffer(T_CTX, t, kind, bin, bout, n, 1, &written, &done));
  ASSERT_NOT_NULL(done);
  t_defer_event(done);
  ASSERT_CL(clWaitForEvents(1, &done));
  cl_int exec = -1;
  ASSERT_CL(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL));
  ASSERT_EQ_I64(exec, CL_COMPLETE);

  unsigned char *got = t_read_buffer(bout, bytes);
  ASSERT_EQ_ELEMS(got, want, n, es);
  ASSERT_POISON(got, n * es, bytes);
  if (!in_place) {
    unsigned char *src = t_read_buffer(bin, bytes);
    ASSERT_EQ_ELEMS(src, in, n, es);
    t_release_now(src);
    t_release_now(bout);
  }
  t_release_now(got);
  t_release_now(bin);
  t_release_now(in);
  t_release_now(want);
}

static void sizes_with_random(t_rng *r, size_t *sizes, size_t *count, size_t max_random) {
  *count = 0;
  for (size_t i = 0; i < t_quick_sizes_count; i++) sizes[(*count)++] = t_quick_sizes[i];
  for (int i = 0; i < RANDOM_SIZES; i++) sizes[(*count)++] = t_rng_size(r, 0, max_random);
}

/* ------------------------------------------------------------------ tests */

/* _i = narrow type (u8, i8, u16, i16, f16, bf16): the integer ones scan
 * exactly, wrapping in the type, host and buffer forms, in place or not;
 * the half floats are refused with CLSORT_ERROR_UNSUPPORTED and the output
 * left as it was. */
T_TEST(scan_narrow) {
  clsort_type t = t_narrow_types[_i];
  t_rng r;
  t_rng_init(&r, "scan_narrow");
  r.s[0] ^= (uint64_t)t;
  if (t_type_is_half(t)) {
    uint16_t in[4] = {0x3C00u, 0x3C00u, 0x3C00u, 0x3C00u}, out[4] = {7, 7, 7, 7};
    t_label("%s scan refused", clsort_type_name(t));
    ASSERT_STATUS(clsort_scan(T_CTX, t, CLSORT_SCAN_INCLUSIVE, in, out, 4),
                  CLSORT_ERROR_UNSUPPORTED);
    ASSERT_STR_NONEMPTY(clsort_last_error_message());
    ASSERT_EQ_U64(out[0], 7);
    cl_mem b = t_buffer(sizeof in, in);
    ASSERT_STATUS(clsort_scan_buffer(T_CTX, t, CLSORT_SCAN_EXCLUSIVE, b, b, 4, 0, NULL, NULL),
                  CLSORT_ERROR_UNSUPPORTED);
    t_release_now(b);
    return;
  }
  static const size_t sizes[] = {0, 1, 33, 255, 256, 257, 1025, 4097, 65537, 300007};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      check_host_scan(&r, t, (clsort_scan_kind)k, sizes[i], i % 2);
      if (sizes[i]) check_buffer_scan(&r, t, (clsort_scan_kind)k, sizes[i], i % 3 == 0);
    }
}

T_TEST(scan_host_exact) {
  clsort_type t = t_all_types[_i];
  if (skip_f64(t)) return;
  t_rng r;
  t_rng_init(&r, "scan_host_exact");
  r.s[0] ^= (uint64_t)t;
  size_t sizes[64], count;
  sizes_with_random(&r, sizes, &count, 300000);
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < count; i++) check_host_scan(&r, t, (clsort_scan_kind)k, sizes[i], false);
}

T_TEST(scan_host_in_place) {
  clsort_type t = t_all_types[_i];
  if (skip_f64(t)) return;
  t_rng r;
  t_rng_init(&r, "scan_host_in_place");
  r.s[0] ^= (uint64_t)t;
  static const size_t sizes[] = {0, 1, 33, 1025, 4097, 65537};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
      check_host_scan(&r, t, (clsort_scan_kind)k, sizes[i], true);
}

T_TEST(scan_buffer_exact) {
  clsort_type t = t_all_types[_i];
  if (skip_f64(t)) return;
  t_rng r;
  t_rng_init(&r, "scan_buffer_exact");
  r.s[0] ^= (uint64_t)t;
  size_t sizes[64], count;
  sizes_with_random(&r, sizes, &count, 300000);
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < count; i++) {
      if (sizes[i] == 0) continue; /* n == 0 has its own test */
      check_buffer_scan(&r, t, (clsort_scan_kind)k, sizes[i], false);
    }
}

T_TEST(scan_buffer_in_place) {
  clsort_type t = t_all_types[_i];
  if (skip_f64(t)) return;
  t_rng r;
  t_rng_init(&r, "scan_buffer_in_place");
  r.s[0] ^= (uint64_t)t;
  size_t sizes[64], count;
  sizes_with_random(&r, sizes, &count, 300000);
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < count; i++) {
      if (sizes[i] == 0) continue;
      check_buffer_scan(&r, t, (clsort_scan_kind)k, sizes[i], true);
    }
}

/* Fractional floats at three magnitudes: the result must lie within a
 * tolerance of a double-precision sequential reference (see
 * t_float_tol_factor): tight enough that a lost tile carry fails at every
 * size and a lost element at the smaller ones (see the next test). */
T_TEST(scan_float_tolerance) {
  clsort_type t = _i == 0 ? CLSORT_F32 : CLSORT_F64;
  if (skip_f64(t)) return;
  t_rng r;
  t_rng_init(&r, "scan_float_tolerance");
  r.s[0] ^= (uint64_t)t;
  static const double scales[] = {0x1.0p-10, 1.0, 1e6};
  size_t sizes[64], count, es = clsort_type_size(t);
  sizes_with_random(&r, sizes, &count, 300000);
  for (int k = 0; k < 2; k++) {
    for (size_t i = 0; i < count; i++) {
      size_t n = sizes[i];
      double scale = scales[i % 3];
      t_label("%s %s n=%zu scale %g", clsort_type_name(t), kind_name((clsort_scan_kind)k), n,
              scale);
      unsigned char *in = t_alloc(n * es + 1), *out = t_alloc((n + GUARD) * es);
      t_fill_float(&r, t, in, n, -1.0, 2.0, scale);
      t_poison(out, (n + GUARD) * es);
      ASSERT_OK(clsort_scan(T_CTX, t, (clsort_scan_kind)k, in, out, n));
      char msg[512];
      if (!t_check_float_scan(t, (clsort_scan_kind)k, in, out, n, msg, sizeof msg))
        ck_abort_msg("%s: %s", t_where(), msg);
      ASSERT_POISON(out, n * es, (n + GUARD) * es);
      t_release_now(in);
      t_release_now(out);
    }
  }
}

/* The tolerance check itself must be able to fail: a result missing one
 * element, or with one tile carry dropped, is outside it. */
T_TEST(scan_float_tolerance_detects_errors) {
  clsort_type t = _i == 0 ? CLSORT_F32 : CLSORT_F64;
  t_rng r;
  t_rng_init(&r, "scan_float_tolerance_detects_errors");
  size_t n = 4097, es = clsort_type_size(t);
  unsigned char *in = t_alloc(n * es), *out = t_alloc(n * es);
  t_fill_float(&r, t, in, n, -1.0, 2.0, 1.0);
  t_set_f(t, in, 3000, 1.5);
  double acc = 0;
  for (size_t i = 0; i < n; i++) {
    acc += t_get_f(t, in, i);
    t_set_f(t, out, i, acc);
  }
  char msg[512];
  t_label("%s reference scan", clsort_type_name(t));
  ASSERT_TRUE(t_check_float_scan(t, CLSORT_SCAN_INCLUSIVE, in, out, n, msg, sizeof msg));
  /* Drop element 3000 from every later prefix. */
  double x = t_get_f(t, in, 3000);
  for (size_t i = 3000; i < n; i++) t_set_f(t, out, i, t_get_f(t, out, i) - x);
  ASSERT_FALSE(t_check_float_scan(t, CLSORT_SCAN_INCLUSIVE, in, out, n, msg, sizeof msg));
}

/* n == 0: success without touching anything; NULL pointers and buffers
 * are allowed; the buffer form still returns a completing event. */
T_TEST(scan_zero_length) {
  clsort_type t = t_all_types[_i];
  if (skip_f64(t)) return;
  t_label("%s n=0", clsort_type_name(t));
  unsigned char in[64], out[64];
  t_poison(in, sizeof in);
  t_poison(out, sizeof out);
  for (int k = 0; k < 2; k++) {
    ASSERT_OK(clsort_scan(T_CTX, t, (clsort_scan_kind)k, NULL, NULL, 0));
    ASSERT_OK(clsort_scan(T_CTX, t, (clsort_scan_kind)k, in, out, 0));
    ASSERT_POISON(out, 0, sizeof out);
    cl_event ev = NULL;
    ASSERT_OK(clsort_scan_buffer(T_CTX, t, (clsort_scan_kind)k, NULL, NULL, 0, 0, NULL, &ev));
    ASSERT_NOT_NULL(ev);
    t_defer_event(ev);
    ASSERT_CL(clWaitForEvents(1, &ev));
    cl_mem b = t_buffer(sizeof out, NULL);
    ev = NULL;
    ASSERT_OK(clsort_scan_buffer(T_CTX, t, (clsort_scan_kind)k, b, b, 0, 0, NULL, &ev));
    ASSERT_NOT_NULL(ev);
    t_defer_event(ev);
    ASSERT_CL(clWaitForEvents(1, &ev));
    unsigned char *got = t_read_buffer(b, sizeof out);
    ASSERT_POISON(got, 0, sizeof out);
  }
}

/* The wait list is honoured: a scan waiting on a user event does not run
 * (its event stays incomplete, the output stays poisoned) until the user
 * event completes, and the call itself does not block on it. */
T_TEST(scan_buffer_waits_for_wait_list) {
  clsort_type t = CLSORT_U32;
  size_t n = 100003, bytes = n * 4;
  t_rng r;
  t_rng_init(&r, "scan_buffer_waits_for_wait_list");
  t_label("u32 inclusive n=%zu gated by a user event", n);
  uint32_t *in = t_alloc(bytes), *want = t_alloc(bytes);
  t_fill_int(&r, t, in, n);
  t_ref_scan_int(t, CLSORT_SCAN_INCLUSIVE, in, want, n);
  cl_mem bin = t_buffer(bytes, in), bout = t_buffer(bytes, NULL);

  cl_event gate = t_gate(), done = NULL;
  t_watchdog *w = t_watchdog_start(gate, 20.0);
  clsort_status st = clsort_scan_buffer(T_CTX, t, CLSORT_SCAN_INCLUSIVE, bin, bout, n, 1, &gate,
                                        &done);
  bool fired = t_watchdog_stop(w);
  if (fired) ck_abort_msg("%s: clsort_scan_buffer blocked on its own wait list", t_where());
  ASSERT_OK(st);
  ASSERT_NOT_NULL(done);
  t_defer_event(done);
  t_open_gate_checked(gate, done);
  ASSERT_CL(clWaitForEvents(1, &done));
  uint32_t *got = t_read_buffer(bout, bytes);
  ASSERT_EQ_ELEMS(got, want, n, 4);
}

/* Several wait-list entries, and no output event requested. */
T_TEST(scan_buffer_many_waits_no_event) {
  clsort_type t = CLSORT_I64;
  size_t n = 5000, bytes = n * 8;
  t_rng r;
  t_rng_init(&r, "scan_buffer_many_waits_no_event");
  t_label("i64 exclusive n=%zu, 3 wait events", n);
  int64_t *in = t_alloc(bytes), *want = t_alloc(bytes);
  t_fill_int(&r, t, in, n);
  t_ref_scan_int(t, CLSORT_SCAN_EXCLUSIVE, in, want, n);
  cl_command_queue q = clsort_context_queue(T_CTX);
  cl_mem b = t_buffer(bytes, NULL);
  cl_event ev[3];
  size_t third = bytes / 3 / 8 * 8;
  ASSERT_CL(clEnqueueWriteBuffer(q, b, CL_FALSE, 0, third, in, 0, NULL, &ev[0]));
  t_defer_event(ev[0]);
  ASSERT_CL(clEnqueueWriteBuffer(q, b, CL_FALSE, third, third, (char *)in + third, 0, NULL, &ev[1]));
  t_defer_event(ev[1]);
  ASSERT_CL(clEnqueueWriteBuffer(q, b, CL_FALSE, 2 * third, bytes - 2 * third,
                                 (char *)in + 2 * third, 0, NULL, &ev[2]));
  t_defer_event(ev[2]);
  ASSERT_OK(clsort_scan_buffer(T_CTX, t, CLSORT_SCAN_EXCLUSIVE, b, b, n, 3, ev, NULL));
  int64_t *got = t_read_buffer(b, bytes);
  ASSERT_EQ_ELEMS(got, want, n, 8);
}

/* Calls chained through their events, as an application would: a scan,
 * then a reduce of the scanned buffer waiting on the scan's event, then an
 * in-place scan waiting on the reduce's. */
T_TEST(buffer_calls_chain_through_events) {
  size_t n = 33333;
  t_rng r;
  t_rng_init(&r, "buffer_calls_chain_through_events");
  t_label("u64 scan -> reduce max -> scan, n=%zu", n);
  uint64_t *in = t_alloc(n * 8), *once = t_alloc(n * 8), *twice = t_alloc(n * 8);
  t_fill_int(&r, CLSORT_U64, in, n);
  t_ref_scan_int(CLSORT_U64, CLSORT_SCAN_INCLUSIVE, in, once, n);
  t_ref_scan_int(CLSORT_U64, CLSORT_SCAN_EXCLUSIVE, once, twice, n);
  uint64_t max = 0;
  t_ref_reduce(CLSORT_U64, CLSORT_REDUCE_MAX, once, n, &max, NULL, NULL);
  cl_mem a = t_buffer(n * 8, in), b = t_buffer(n * 8, NULL), res = t_buffer(8, NULL);
  cl_event e1 = NULL, e2 = NULL, e3 = NULL;
  ASSERT_OK(clsort_scan_buffer(T_CTX, CLSORT_U64, CLSORT_SCAN_INCLUSIVE, a, b, n, 0, NULL, &e1));
  t_defer_event(e1);
  ASSERT_OK(clsort_reduce_buffer(T_CTX, CLSORT_U64, CLSORT_REDUCE_MAX, b, n, res, 1, &e1, &e2));
  t_defer_event(e2);
  ASSERT_OK(clsort_scan_buffer(T_CTX, CLSORT_U64, CLSORT_SCAN_EXCLUSIVE, b, b, n, 1, &e2, &e3));
  t_defer_event(e3);
  ASSERT_CL(clWaitForEvents(1, &e3));
  uint64_t got_max = 0;
  t_read_into(res, &got_max, 8);
  ASSERT_EQ_U64(got_max, max);
  uint64_t *got = t_read_buffer(b, n * 8);
  ASSERT_EQ_ELEMS(got, twice, n, 8);
}

/* One context, sizes going up and down: scratch reused across calls must
 * not carry state from a previous call. */
T_TEST(scan_reuses_context) {
  t_rng r;
  t_rng_init(&r, "scan_reuses_context");
  static const size_t sizes[] = {70000, 5, 300001, 1, 4096, 129, 300001, 70000, 2};
  for (int rep = 0; rep < 2; rep++)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
      check_host_scan(&r, i % 2 ? CLSORT_U64 : CLSORT_U32,
                      (clsort_scan_kind)((i + (size_t)rep) % 2), sizes[i], false);
}

/* Host arrays on a CPU device: aligned as the device wants (here: on a
 * page), input and output are used in place and nothing is staged; 16
 * bytes off (as malloc gives them), in place too, from the aligned
 * address before them; 2 bytes off (not aligned to the elements), both
 * are staged (the scratch holds the array). Either way the result is
 * exact and the guards before and after the output stay. */
T_TEST(scan_host_in_place_or_staged) {
  const size_t n = (size_t)1 << 16, es = 4;
  static const size_t skips[] = {0, 16, 2};
  t_rng r;
  t_rng_init(&r, "scan_host_in_place_or_staged");
  for (size_t k = 0; k < sizeof skips / sizeof skips[0]; k++) {
    clsort_context *c = NULL;
    ASSERT_OK(t_context_create(&c));
    t_own_context(c);
    if (!clsort__cpu_shape(c)) {
      printf("  not the CPU shape: host arrays are staged, nothing to compare\n");
      return;
    }
    size_t skip = skips[k], bytes = (n + GUARD) * es + skip;
    bool staged = skip % es != 0;
    unsigned char *in_raw = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    unsigned char *out_raw = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    ASSERT_NOT_NULL(in_raw);
    ASSERT_NOT_NULL(out_raw);
    t_defer(free, in_raw);
    t_defer(free, out_raw);
    unsigned char *in = in_raw + skip, *out = out_raw + skip, *want = t_alloc(n * es);
    t_fill_int(&r, CLSORT_U32, in, n);
    t_poison(out_raw, bytes);
    t_ref_scan_int(CLSORT_U32, CLSORT_SCAN_EXCLUSIVE, in, want, n);
    t_label("u32 exclusive n=%zu, host arrays %zu bytes off a page (%s)", n, skip,
            staged ? "staged" : "in place");
    ASSERT_OK(clsort_scan(c, CLSORT_U32, CLSORT_SCAN_EXCLUSIVE, in, out, n));
    ASSERT_EQ_ELEMS(out, want, n, es);
    ASSERT_POISON(out_raw, 0, skip);
    ASSERT_POISON(out, n * es, (n + GUARD) * es);
    if (staged)
      ASSERT_GE_U64(clsort__scratch_bytes(c), n * es);
    else
      ASSERT_LT_U64(clsort__scratch_bytes(c), n * es);
    t_release_now(c);
  }
}

/* The input and output back to back in one allocation, as small arrays
 * from malloc lie (t_layout): on a CPU device the regions from the aligned
 * addresses before them overlap, and the scan uses both in place, in one
 * buffer, from their origins. Layouts: from 16 bytes past a page
 * (malloc's) and one element past one, each in both orders, then a byte
 * off the elements' alignment (staged). Then an output one element past
 * its input, overlapping it: staged, as before groups, so the output is
 * the scan of the input as it was. _i: the type (the narrow ones through
 * the widening kernels). */
static const clsort_type group_types[] = {CLSORT_U32, CLSORT_F64, CLSORT_U8, CLSORT_I16};

T_TEST(scan_host_groups) {
  clsort_type t = group_types[_i];
  if (skip_f64(t)) return;
  size_t es = clsort_type_size(t);
  bool cpu = clsort__cpu_shape(T_CTX);
  t_rng r;
  t_rng_init(&r, "scan_host_groups");
  r.s[0] ^= (uint64_t)_i;
  static const size_t sizes[] = {1000, 100003};
  for (size_t si = 0; si < 2; si++)
    for (int layout = es > 1 ? 4 : 3; layout >= 0; layout--) {
      size_t n = sizes[si], lead = layout == 4 ? 1 : layout < 2 ? 16 : es;
      bool reversed = layout % 2 == 1;
      clsort_scan_kind kind = (clsort_scan_kind)((layout + (int)si) % 2);
      t_label("%s %s n=%zu, input and output back to back %zu bytes past a page%s",
              clsort_type_name(t), kind_name(kind), n, lead, reversed ? ", output first" : "");
      const size_t bytes[2] = {n * es, n * es}, elems[2] = {es, es};
      t_layout l;
      t_layout_make(&l, 2, bytes, elems, lead, reversed);
      /* The data made and read in aligned memory: the layout a byte off
       * is the library's to handle, not the test's typed accesses. */
      unsigned char *src = t_alloc(n * es), *want = t_alloc(n * es);
      fill_exact(&r, t, src, n);
      memcpy(l.p[0], src, n * es);
      ref_scan_exact(t, kind, src, want, n);
      t_layout_snapshot(&l);
      clsort__test_take_staging(T_CTX);
      ASSERT_OK(clsort_scan(T_CTX, t, kind, l.p[0], l.p[1], n));
      ASSERT_EQ_U64(clsort__test_take_staging(T_CTX) > 0, !cpu || layout == 4);
      ASSERT_EQ_ELEMS(l.p[1], want, n, es);
      t_layout_check(&l, 1u << 1);
      /* The output one element past the input. */
      t_label("%s %s n=%zu, output one element past its input", clsort_type_name(t),
              kind_name(kind), n);
      ASSERT_OK(clsort_scan(T_CTX, t, kind, l.p[0], l.p[0] + es, n));
      ASSERT_GT_U64(clsort__test_take_staging(T_CTX), 0);
      ref_scan_exact(t, kind, src, want, n);
      ASSERT_EQ_ELEMS(l.p[0] + es, want, n, es);
      t_release_now(want);
      t_release_now(src);
    }
}

/* Slow tier: sizes from 2^22 up, both forms. */
T_TEST(scan_large) {
  clsort_type t = t_all_types[_i];
  if (skip_f64(t)) return;
  t_rng r;
  t_rng_init(&r, "scan_large");
  r.s[0] ^= (uint64_t)t;
  for (size_t i = 0; i < t_slow_sizes_count; i++) {
    clsort_scan_kind kind = (clsort_scan_kind)(i % 2);
    check_host_scan(&r, t, kind, t_slow_sizes[i], false);
    if (i == 1) check_buffer_scan(&r, t, (clsort_scan_kind)!kind, t_slow_sizes[i], true);
  }
}

T_TEST(scan_large_float_tolerance) {
  clsort_type t = _i == 0 ? CLSORT_F32 : CLSORT_F64;
  if (skip_f64(t)) return;
  t_rng r;
  t_rng_init(&r, "scan_large_float_tolerance");
  size_t n = t_slow_sizes[2], es = clsort_type_size(t);
  for (int k = 0; k < 2; k++) {
    t_label("%s %s n=%zu", clsort_type_name(t), kind_name((clsort_scan_kind)k), n);
    unsigned char *in = t_alloc(n * es), *out = t_alloc((n + GUARD) * es);
    t_fill_float(&r, t, in, n, -1.0, 2.0, 1.0);
    t_poison(out, (n + GUARD) * es);
    ASSERT_OK(clsort_scan(T_CTX, t, (clsort_scan_kind)k, in, out, n));
    char msg[512];
    if (!t_check_float_scan(t, (clsort_scan_kind)k, in, out, n, msg, sizeof msg))
      ck_abort_msg("%s: %s", t_where(), msg);
    ASSERT_POISON(out, n * es, (n + GUARD) * es);
    t_release_now(in);
    t_release_now(out);
  }
}

static void add(Suite *s, unsigned tiers) {
  if (tiers & T_QUICK) {
    TCase *tc = t_tcase(s, "scan", true);
    tcase_add_loop_test(tc, scan_host_exact, 0, 6);
    tcase_add_loop_test(tc, scan_host_in_place, 0, 6);
    tcase_add_loop_test(tc, scan_buffer_exact, 0, 6);
    tcase_add_loop_test(tc, scan_buffer_in_place, 0, 6);
    tcase_add_loop_test(tc, scan_float_tolerance, 0, 2);
    tcase_add_loop_test(tc, scan_float_tolerance_detects_errors, 0, 2);
    tcase_add_loop_test(tc, scan_zero_length, 0, 6);
    tcase_add_loop_test(tc, scan_narrow, 0, 6);
    tcase_add_test(tc, scan_buffer_waits_for_wait_list);
    tcase_add_test(tc, scan_buffer_many_waits_no_event);
    tcase_add_test(tc, scan_reuses_context);
    tcase_add_test(tc, buffer_calls_chain_through_events);
    tcase_add_test(tc, scan_host_in_place_or_staged);
    tcase_add_loop_test(tc, scan_host_groups, 0, 4);
  }
  if (tiers & T_SLOW) {
    TCase *tc = t_tcase(s, "scan_slow", true);
    tcase_add_loop_test(tc, scan_large, 0, 6);
    tcase_add_loop_test(tc, scan_large_float_tolerance, 0, 2);
  }
}

int main(int argc, char **argv) { return t_main(argc, argv, "scan", add); }
