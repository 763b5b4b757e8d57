/* test_compact.c: clsort_compact and clsort_split (stable select and
 * partition by flag bytes), element sizes 1 to 16, host and buffer forms. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#define GUARD 16

static const size_t elem_sizes[5] = {1, 2, 4, 8, 16};

/* Elements carry their index in their first bytes (as far as they go), so
 * that a reordering of equal-looking elements is still a visible change. */
static void fill_elements(t_rng *r, unsigned char *p, size_t n, size_t es) {
  t_fill_bytes(r, p, n * es);
  for (size_t i = 0; i < n; i++) {
    uint32_t idx = (uint32_t)i;
    memcpy(p + i * es, &idx, es < 4 ? es : 4);
  }
}

/* Flag densities: none, all, half, sparse, dense. Set flags are random
 * non-zero bytes, since any non-zero byte counts. */
static const double densities[5] = {0.0, 1.0, 0.5, 0.01, 0.99};

static void fill_flags(t_rng *r, unsigned char *flags, size_t n, double density) {
  for (size_t i = 0; i < n; i++)
    flags[i] = t_rng_unit(r) < density ? (unsigned char)(1 + t_rng_below(r, 255)) : 0;
}

static void call(bool split, size_t es, const void *in, const unsigned char *flags, void *out,
                 size_t n, size_t *count) {
  if (split)
    ASSERT_OK(clsort_split(T_CTX, es, in, flags, out, n, count));
  else
    ASSERT_OK(clsort_compact(T_CTX, es, in, flags, out, n, count));
}

static void call_buffer(bool split, size_t es, cl_mem in, cl_mem flags, cl_mem out, size_t n,
                        cl_mem count, cl_uint num_wait, const cl_event *wait, cl_event *ev) {
  if (split)
    ASSERT_OK(clsort_split_buffer(T_CTX, es, in, flags, out, n, count, num_wait, wait, ev));
  else
    ASSERT_OK(clsort_compact_buffer(T_CTX, es, in, flags, out, n, count, num_wait, wait, ev));
}

/* One run of n elements through both forms, checked exactly: the flagged
 * elements in order (then, for split, the others in order), the count,
 * the untouched guard after the output and the unchanged inputs. */
static void check_select(t_rng *r, bool split, size_t es, size_t n, double density,
                         const unsigned char *fixed_flags) {
  const char *what = split ? "split" : "compact";
  size_t bytes = n * es;
  unsigned char *in = t_alloc(bytes + 1), *flags = t_alloc(n + 1), *want = t_alloc(bytes + 1),
                *out = t_alloc(bytes + GUARD * es), *in_copy = t_alloc(bytes + 1),
                *flags_copy = t_alloc(n + 1);
  fill_elements(r, in, n, es);
  if (fixed_flags)
    memcpy(flags, fixed_flags, n);
  else
    fill_flags(r, flags, n, density);
  memcpy(in_copy, in, bytes);
  memcpy(flags_copy, flags, n);
  size_t want_count = t_ref_select(es, split, in, flags, want, n);
  size_t checked = split ? n : want_count;

  /* Host form. */
  t_label("%s es=%zu n=%zu density %.2f host", what, es, n, density);
  size_t count = (size_t)0xDEADBEEFu;
  t_poison(out, bytes + GUARD * es);
  call(split, es, in, flags, out, n, &count);
  ASSERT_EQ_U64(count, want_count);
  ASSERT_EQ_ELEMS(out, want, checked, es);
  ASSERT_POISON(out, bytes, bytes + GUARD * es);
  ASSERT_EQ_ELEMS(in, in_copy, n, es);
  ASSERT_EQ_ELEMS(flags, flags_copy, n, 1);

  /* Buffer form, after a write of the flags given as the wait list. */
  t_label("%s es=%zu n=%zu density %.2f buffer", what, es, n, density);
  if (n > 0) {
    cl_command_queue q = clsort_context_queue(T_CTX);
    cl_mem bin = t_buffer(bytes, in), bflags = t_buffer(n, NULL),
           bout = t_buffer(bytes + GUARD * es, NULL), bcount = t_buffer(16, NULL);
    cl_event written = NULL, done = NULL;
    ASSERT_CL(clEnqueueWriteBuffer(q, bflags, CL_FALSE, 0, n, flags, 0, NULL, &written));
    t_defer_event(written);
    call_buffer(split, es, bin, bflags, bout, n, bcount, 1, &written, &done);
    ASSERT_NOT_NULL(done);
    t_defer_event(done);
    ASSERT_CL(clWaitForEvents(1, &done));
    t_read_into(bout, out, bytes + GUARD * es);
    unsigned char cnt[16];
    t_read_into(bcount, cnt, 16);
    cl_ulong c;
    memcpy(&c, cnt, 8);
    ASSERT_EQ_U64(c, want_count);
    ASSERT_POISON(cnt, 8, 16);
    ASSERT_EQ_ELEMS(out, want, checked, es);
    ASSERT_POISON(out, bytes, bytes + GUARD * es);
    t_read_into(bin, out, bytes);
    ASSERT_EQ_ELEMS(out, in_copy, n, es);
    t_read_into(bflags, out, n);
    ASSERT_EQ_ELEMS(out, flags_copy, n, 1);
    t_release_now(bcount);
    t_release_now(bout);
    t_release_now(bflags);
    t_release_now(bin);
  }
  t_release_now(flags_copy);
  t_release_now(in_copy);
  t_release_now(out);
  t_release_now(want);
  t_release_now(flags);
  t_release_now(in);
}

/* _i = element size index * 2 + split. */
T_TEST(select_all_sizes) {
  size_t es = elem_sizes[_i / 2];
  bool split = _i % 2;
  t_rng r;
  t_rng_init(&r, "select_all_sizes");
  r.s[2] ^= (uint64_t)_i;
  size_t sizes[64], count = 0;
  for (size_t i = 0; i < t_quick_sizes_count; i++) sizes[count++] = t_quick_sizes[i];
  for (int i = 0; i < 6; i++) sizes[count++] = t_rng_size(&r, 0, 300000);
  for (size_t i = 0; i < count; i++)
    check_select(&r, split, es, sizes[i], densities[i % 5], NULL);
}

/* Every density at a few sizes around tile boundaries. */
T_TEST(select_densities) {
  size_t es = elem_sizes[_i / 2];
  bool split = _i % 2;
  t_rng r;
  t_rng_init(&r, "select_densities");
  r.s[2] ^= (uint64_t)_i;
  static const size_t sizes[] = {1, 255, 4097, 65537};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (int d = 0; d < 5; d++) check_select(&r, split, es, sizes[i], densities[d], NULL);
}

/* Any non-zero byte is a set flag, 0x80 and 0xFF included (a signed char
 * compared with > 0 would miss them). */
T_TEST(select_high_flag_bytes) {
  bool split = _i % 2;
  t_rng r;
  t_rng_init(&r, "select_high_flag_bytes");
  size_t n = 3001;
  unsigned char *flags = t_alloc(n);
  static const unsigned char values[] = {0x80, 0xFF, 0x02, 0x7F};
  for (size_t i = 0; i < n; i++) flags[i] = i % 3 ? values[i % 4] : 0;
  for (size_t e = 0; e < 5; e++) check_select(&r, split, elem_sizes[e], n, -1.0, flags);
}

/* Alternating and clustered flags stress the tile carries. */
T_TEST(select_patterns) {
  bool split = _i % 2;
  t_rng r;
  t_rng_init(&r, "select_patterns");
  size_t n = 70001;
  unsigned char *flags = t_alloc(n);
  for (int pattern = 0; pattern < 4; pattern++) {
    for (size_t i = 0; i < n; i++) {
      switch (pattern) {
      case 0: flags[i] = i % 2; break;                 /* alternating */
      case 1: flags[i] = i < n / 2; break;             /* first half */
      case 2: flags[i] = i >= n / 2; break;            /* second half */
      default: flags[i] = (i / 1000) % 2 ? 1 : 0; break; /* runs of 1000 */
      }
    }
    check_select(&r, split, elem_sizes[pattern + 1], n,
                 (double)pattern, flags);
  }
}

/* n == 0: count 0, NULL arrays and buffers allowed, nothing written. */
T_TEST(select_zero_length) {
  bool split = _i % 2;
  for (size_t e = 0; e < 5; e++) {
    size_t es = elem_sizes[e];
    t_label("%s es=%zu n=0", split ? "split" : "compact", es);
    size_t count = 12345;
    call(split, es, NULL, NULL, NULL, 0, &count);
    ASSERT_EQ_U64(count, 0);
    unsigned char out[64], in[64], flags[4] = {1, 1, 1, 1};
    t_poison(out, sizeof out);
    t_poison(in, sizeof in);
    count = 12345;
    call(split, es, in, flags, out, 0, &count);
    ASSERT_EQ_U64(count, 0);
    ASSERT_POISON(out, 0, sizeof out);

    cl_mem bcount = t_buffer(16, NULL);
    cl_event ev = NULL;
    call_buffer(split, es, NULL, NULL, NULL, 0, bcount, 0, NULL, &ev);
    ASSERT_NOT_NULL(ev);
    t_defer_event(ev);
    unsigned char cnt[16];
    t_read_into(bcount, cnt, 16);
    cl_ulong c;
    memcpy(&c, cnt, 8);
    ASSERT_EQ_U64(c, 0);
    ASSERT_POISON(cnt, 8, 16);
  }
}

/* Host arrays at offsets from a page that the device's alignment does not
 * meet (on a CPU device: used in place from the aligned addresses before
 * them, origins added by the kernels), flags at an odd one, each with
 * poison before and after; an input 1 byte off its elements' alignment
 * (staged). _i: es index x 2 + split. */
T_TEST(select_host_offsets) {
  size_t es = elem_sizes[_i / 2];
  bool split = _i % 2;
  t_rng r;
  t_rng_init(&r, "select_host_offsets");
  r.s[2] ^= (uint64_t)_i;
  const size_t n = 70001, bytes = n * es;
  static const size_t in_offsets[] = {16, 48, 1};
  for (size_t k = 0; k < 3; k++) {
    if (k == 2 && es == 1) continue; /* bytes are aligned anywhere */
    size_t in_off = in_offsets[k], fl_off = 5, out_off = 64 + 2 * es;
    size_t block = bytes + 8192;
    unsigned char *ib = t_alloc(block), *fb = t_alloc(n + 8192), *ob = t_alloc(block);
    unsigned char *want = t_alloc(bytes + 1), *in_copy = t_alloc(bytes + 1);
    t_poison(ib, block);
    t_poison(fb, n + 8192);
    t_poison(ob, block);
    unsigned char *in = (unsigned char *)(((uintptr_t)ib + 4095) & ~(uintptr_t)4095) + in_off;
    unsigned char *flags = (unsigned char *)(((uintptr_t)fb + 4095) & ~(uintptr_t)4095) + fl_off;
    unsigned char *out = (unsigned char *)(((uintptr_t)ob + 4095) & ~(uintptr_t)4095) + out_off;
    fill_elements(&r, in, n, es);
    fill_flags(&r, flags, n, densities[(size_t)_i % 5 == 0 ? 2 : (size_t)_i % 5]);
    memcpy(in_copy, in, bytes);
    size_t kept = t_ref_select(es, split, in, flags, want, n), count = 0;
    t_label("%s es=%zu n=%zu, input %zu, flags %zu, output %zu bytes past a page",
            split ? "split" : "compact", es, n, in_off, fl_off, out_off);
    call(split, es, in, flags, out, n, &count);
    ASSERT_EQ_U64(count, kept);
    size_t written = split ? n : kept;
    ASSERT_EQ_ELEMS(out, want, written, es);
    ASSERT_POISON(ob, 0, (size_t)(out - ob));
    ASSERT_POISON(ob, (size_t)(out - ob) + written * es, block);
    ASSERT_EQ_ELEMS(in, in_copy, n, es);
    ASSERT_POISON(ib, 0, (size_t)(in - ib));
    ASSERT_POISON(ib, (size_t)(in - ib) + bytes, block);
    ASSERT_POISON(fb, 0, (size_t)(flags - fb));
    ASSERT_POISON(fb, (size_t)(flags - fb) + n, n + 8192);
    t_release_now(in_copy);
    t_release_now(want);
    t_release_now(ob);
    t_release_now(fb);
    t_release_now(ib);
  }
}

/* Input, flags and output back to back in one allocation, as small
 * arrays from malloc lie (t_layout): on a CPU device the regions from the
 * aligned addresses before them overlap, and the call uses all three in
 * place, in one buffer, from their origins. From 16 bytes past a page
 * and one element past one, each in both orders; then an input a byte off
 * its elements' alignment (staged). Compact leaves the output past
 * `count` as it was. _i: es index x 2 + split. */
T_TEST(select_host_groups) {
  size_t es = elem_sizes[_i / 2];
  bool split = _i % 2, cpu = clsort__cpu_shape(T_CTX);
  t_rng r;
  t_rng_init(&r, "select_host_groups");
  r.s[2] ^= (uint64_t)_i;
  static const size_t sizes[] = {1000, 70001};
  for (size_t si = 0; si < 2; si++)
    for (int layout = es > 1 ? 4 : 3; layout >= 0; layout--) {
      size_t n = sizes[si], lead = layout == 4 ? 1 : layout < 2 ? 16 : es;
      bool reversed = layout % 2 == 1;
      t_label("%s es=%zu n=%zu, input, flags and output back to back %zu bytes past a page%s",
              split ? "split" : "compact", es, n, lead, reversed ? ", last first" : "");
      const size_t bytes[3] = {n * es, n, n * es}, elems[3] = {es, 1, es};
      t_layout l;
      t_layout_make(&l, 3, bytes, elems, lead, reversed);
      fill_elements(&r, l.p[0], n, es);
      fill_flags(&r, l.p[1], n, densities[(size_t)layout % 5]);
      unsigned char *want = t_alloc(n * es + 1);
      size_t kept = t_ref_select(es, split, l.p[0], l.p[1], want, n), count = 0;
      t_layout_snapshot(&l);
      clsort__test_take_staging(T_CTX);
      call(split, es, l.p[0], l.p[1], l.p[2], n, &count);
      ASSERT_EQ_U64(clsort__test_take_staging(T_CTX) > 0, !cpu || layout == 4);
      ASSERT_EQ_U64(count, kept);
      size_t written = split ? n : kept;
      ASSERT_EQ_ELEMS(l.p[2], want, written, es);
      size_t tail = (size_t)(l.p[2] - l.block) + written * es;
      ASSERT_EQ_MEM(l.block + tail, l.copy + tail, (n - written) * es);
      t_layout_check(&l, 1u << 2);
      t_release_now(want);
    }
}

T_TEST(select_large) {
  size_t es = elem_sizes[_i / 2];
  bool split = _i % 2;
  t_rng r;
  t_rng_init(&r, "select_large");
  r.s[2] ^= (uint64_t)_i;
  size_t n = t_slow_sizes[(size_t)_i % t_slow_sizes_count];
  check_select(&r, split, es, n, densities[(size_t)_i % 5], NULL);
}

/* t_part, when given, lists the element sizes to test ("1,2,4"): each size
 * is a kernel variant to compile (PoCL once took 50 s per variant), so
 * meson runs the sizes in two programs at once. */
static bool part_has(size_t es) {
  if (!t_part) return true;
  char buf[64];
  snprintf(buf, sizeof buf, ",%s,", t_part);
  char want[16];
  snprintf(want, sizeof want, ",%zu,", es);
  return strstr(buf, want) != NULL;
}

static void add(Suite *s, unsigned tiers) {
  if (tiers & T_QUICK) {
    TCase *tc = t_tcase(s, "compact", true);
    for (int e = 0; e < 5; e++) {
      if (!part_has(elem_sizes[e])) continue;
      /* compact and split of this element size */
      tcase_add_loop_test(tc, select_all_sizes, 2 * e, 2 * e + 2);
      tcase_add_loop_test(tc, select_densities, 2 * e, 2 * e + 2);
      tcase_add_loop_test(tc, select_host_offsets, 2 * e, 2 * e + 2);
      tcase_add_loop_test(tc, select_host_groups, 2 * e, 2 * e + 2);
    }
    if (part_has(4)) {
      tcase_add_loop_test(tc, select_high_flag_bytes, 0, 2);
      tcase_add_loop_test(tc, select_zero_length, 0, 2);
    }
    if (part_has(8)) tcase_add_loop_test(tc, select_patterns, 0, 2);
  }
  if (tiers & T_SLOW) {
    TCase *tc = t_tcase(s, "compact_slow", true);
    for (int e = 0; e < 5; e++)
      if (part_has(elem_sizes[e])) tcase_add_loop_test(tc, select_large, 2 * e, 2 * e + 2);
  }
}

int main(int argc, char **argv) { return t_main(argc, argv, "compact", add); }
