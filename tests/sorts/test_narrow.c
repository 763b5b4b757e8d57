/* test_narrow.c: the 8- and 16-bit key types (u8, i8, u16, i16, f16,
 * bf16) in every sort: each algorithm, keys / pairs / argsort with 4- and
 * 8-byte payloads, both directions, edge sizes around the small sort's
 * tile, the distributions, the hand-written special values (signed zeros,
 * NaNs of both signs and several payloads, infinities, subnormals), radix
 * bit ranges, the buffer form, the out-of-core path under a memory limit,
 * and the refusals; every output checked against the stable C reference
 * of sort_check.c in the documented total order, stability through the
 * index payloads. */
#define _POSIX_C_SOURCE 200809L
#include "sort_check.h"

static const clsort_algorithm algorithms[] = {CLSORT_AUTO,   CLSORT_RADIX, CLSORT_BITONIC,
                                              CLSORT_SAMPLE, CLSORT_MERGE, CLSORT_QUICK};
#define NALG (sizeof algorithms / sizeof algorithms[0])

/* The algorithm `a` in direction `desc`; the stable ones (merge, and
 * AUTO, which then takes the radix sort) ask for CLSORT_STABLE when
 * `stable`, so that their payloads are checked against the stable order. */
static clsort_options opts(clsort_algorithm a, bool desc, bool stable) {
  bool can = a == CLSORT_AUTO || a == CLSORT_RADIX || a == CLSORT_MERGE;
  clsort_options o = {a, (desc ? CLSORT_DESCENDING : 0u) | (stable && can ? CLSORT_STABLE : 0u),
                      0u, 0u};
  return o;
}

/* The small sort's tile for these keys (the sorts see them widened to 32
 * bits): the bitonic sort's one launch, the segments the sample and quick
 * sorts finish, the merge sort's first runs. */
static size_t tile_of(clsort_type t, size_t vs) {
  return clsort__test_segment_capacity(T_CTX, t, vs);
}

/* ------------------------------------------------------------ the matrix */
/* _i = type * NALG + algorithm: edge sizes (0, 1, 2, the tile - 1, tile,
 * tile + 1, a few thousand, non-multiples) in every mode, both directions
 * up to the tile and one (alternating) above, the distributions in turn;
 * stability asked for every other size. */
T_TEST(narrow_matrix) {
  clsort_type t = t_narrow_types[_i / NALG];
  clsort_algorithm a = algorithms[_i % NALG];
  t_rng r;
  t_rng_init(&r, "narrow_matrix");
  r.s[0] ^= (uint64_t)_i;
  size_t tile = tile_of(t, 0);
  const size_t sizes[] = {0,        1,        2,        33,   tile - 1,
                          tile,     tile + 1, 3001,     5 * tile + 3,
                          t_rng_size(&r, 2, 8000)};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int desc = 0; desc < 2; desc++) {
      if (sizes[s] > tile + 1 && desc != (int)((s + (size_t)_i) % 2)) continue;
      int dist = (int)((s * 2 + (size_t)desc + (size_t)_i) % D_COUNT);
      clsort_options o = opts(a, desc, s % 2);
      t_check_dist(&r, t, dist, sizes[s], &o, MODES_ALL);
    }
}

/* ------------------------------------------------------- special values */
static clsort_algorithm specials_algorithm_;
static clsort_options specials_options(size_t s, bool desc) {
  return opts(specials_algorithm_, desc, s % 2);
}

/* _i = type * NALG + algorithm: the hand-written list once each (its order
 * is the documented one), then many draws from it, both directions, every
 * mode. */
T_TEST(narrow_special_values) {
  clsort_type t = t_narrow_types[_i / NALG];
  specials_algorithm_ = algorithms[_i % NALG];
  size_t count;
  (void)t_special_list(t, &count);
  t_rng r;
  t_rng_init(&r, "narrow_special_values");
  r.s[0] ^= (uint64_t)_i;
  const size_t sizes[] = {count, 601};
  t_check_specials_sweep(&r, t, sizes, 2, specials_options, "narrow, specials");
}

/* ----------------------------------------------------------- bit ranges */
/* _i = type: the radix sort (and AUTO, which takes it for a bit range)
 * over bit ranges of the narrow order key: low, high, middle, one bit, the
 * whole key named explicitly; stable, so every payload is exact. */
T_TEST(narrow_bit_ranges) {
  clsort_type t = t_narrow_types[_i];
  unsigned bits = (unsigned)clsort_type_size(t) * 8;
  t_rng r;
  t_rng_init(&r, "narrow_bit_ranges");
  r.s[0] ^= (uint64_t)_i;
  const unsigned ranges[][2] = {{0, bits / 2}, {bits / 2, bits}, {1, bits - 1}, {bits - 1, bits},
                                {0, 1},        {3, bits - 2},    {0, bits}};
  for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; k++) {
    clsort_options o = {k % 2 ? CLSORT_AUTO : CLSORT_RADIX,
                        (k % 3 ? CLSORT_DESCENDING : 0u) | (k % 2 ? CLSORT_STABLE : 0u),
                        ranges[k][0], ranges[k][1]};
    size_t n = k % 2 ? 3001 : t_rng_size(&r, 2, 30000);
    t_check_dist(&r, t, k % 2 ? D_UNIFORM : D_FEW, n, &o, MODES_ALL);
  }
}

/* ---------------------------------------------------------- buffer form */
/* _i = type: clsort_sort_buffer with each algorithm, keys only and with
 * 4- or 8-byte values, after a wait list. */
T_TEST(narrow_buffer_form) {
  clsort_type t = t_narrow_types[_i];
  t_rng r;
  t_rng_init(&r, "narrow_buffer_form");
  r.s[0] ^= (uint64_t)_i;
  for (size_t k = 0; k < NALG; k++) {
    size_t n = k % 2 ? tile_of(t, 4) + 1 : 4099, vs = k % 3 == 2 ? 8 : 4;
    bool with_values = k % 3 != 0, stable = k % 2 == 0;
    clsort_options o = opts(algorithms[k], k % 2, stable);
    t_check_buffer_case(&r, t, n, k % 2 ? D_FEW : D_UNIFORM, &o, vs, with_values,
                        t_is_stable(&o));
  }
}

/* ---------------------------------------------------------- out of core */
/* Under a 1 MiB device memory limit host arrays of 150000 keys sort out
 * of core (their widened copy counted), right and stable, in every mode;
 * the plan must exist, and a limit too small for any run fails with
 * CLSORT_ERROR_MEMORY_LIMIT and leaves the keys alone. _i = type. */
T_TEST(narrow_out_of_core) {
  clsort_type t = t_narrow_types[_i];
  size_t plan[4];
  ASSERT_OK(clsort_context_set_memory_limit(T_CTX, (size_t)1 << 20));
  ASSERT_TRUE(clsort__test_out_of_core_plan(T_CTX, t, 8, true, 150000, plan));
  t_rng r;
  t_rng_init(&r, "narrow_out_of_core");
  r.s[0] ^= (uint64_t)_i;
  clsort_options o = opts(_i % 2 ? CLSORT_MERGE : CLSORT_RADIX, _i % 3 == 1, true);
  t_check_dist(&r, t, _i % 2 ? D_FEW : D_UNIFORM, 150000, &o, MODES_ALL);
  ASSERT_OK(clsort_context_set_memory_limit(T_CTX, 4096));
  unsigned char keys[2 * 3000], copy[sizeof keys];
  t_gen_keys(&r, t, D_UNIFORM, keys, 3000);
  memcpy(copy, keys, sizeof keys);
  t_label("%s under a 4 KiB limit", clsort_type_name(t));
  ASSERT_STATUS(clsort_sort(T_CTX, t, keys, 3000, NULL), CLSORT_ERROR_MEMORY_LIMIT);
  ASSERT_EQ_ELEMS(keys, copy, 3000, clsort_type_size(t));
  ASSERT_OK(clsort_context_set_memory_limit(T_CTX, 0));
}

/* ------------------------------------------------------------- refusals */
/* _i = type: a bit range past the key's 8 or 16 bits is
 * CLSORT_ERROR_INVALID_ARGUMENT; a bit range or CLSORT_STABLE with a
 * comparison sort that cannot honour it is CLSORT_ERROR_UNSUPPORTED; the
 * keys stay as they were. The names and sizes are the documented ones. */
T_TEST(narrow_refusals) {
  clsort_type t = t_narrow_types[_i];
  static const char *const names[] = {"u8", "i8", "u16", "i16", "f16", "bf16"};
  ASSERT_EQ_STR(clsort_type_name(t), names[_i]);
  ASSERT_EQ_U64(clsort_type_size(t), _i < 2 ? 1 : 2);
  unsigned bits = (unsigned)clsort_type_size(t) * 8;
  unsigned char keys[64], copy[64];
  t_rng r;
  t_rng_init(&r, "narrow_refusals");
  t_gen_keys(&r, t, D_UNIFORM, keys, 16);
  memcpy(copy, keys, sizeof keys);
  clsort_options past = {CLSORT_RADIX, 0u, 0u, bits + 1};
  ASSERT_STATUS(clsort_sort(T_CTX, t, keys, 16, &past), CLSORT_ERROR_INVALID_ARGUMENT);
  clsort_options range = {CLSORT_QUICK, 0u, 0u, bits / 2};
  ASSERT_STATUS(clsort_sort(T_CTX, t, keys, 16, &range), CLSORT_ERROR_UNSUPPORTED);
  clsort_options stable = {CLSORT_SAMPLE, CLSORT_STABLE, 0u, 0u};
  ASSERT_STATUS(clsort_sort(T_CTX, t, keys, 16, &stable), CLSORT_ERROR_UNSUPPORTED);
  ASSERT_EQ_ELEMS(keys, copy, 16, clsort_type_size(t));
  /* The 0.3 operations do not take them yet: refused, nothing written. */
  unsigned char out[64];
  uint64_t offsets[2] = {0, 16};
  memset(out, 0x5A, sizeof out);
  ASSERT_STATUS(clsort_top_k(T_CTX, t, keys, 16, 3, out, NULL, 0, NULL), CLSORT_ERROR_UNSUPPORTED);
  ASSERT_STATUS(clsort_select(T_CTX, t, keys, 16, 3, out, NULL), CLSORT_ERROR_UNSUPPORTED);
  ASSERT_STATUS(clsort_merge(T_CTX, t, keys, 8, keys + 16, 8, out, NULL),
                CLSORT_ERROR_UNSUPPORTED);
  ASSERT_STATUS(clsort_segmented_sort(T_CTX, t, keys, NULL, 0, 16, offsets, 1, NULL),
                CLSORT_ERROR_UNSUPPORTED);
  ASSERT_STR_NONEMPTY(clsort_last_error_message());
  ASSERT_EQ_ELEMS(keys, copy, 16, clsort_type_size(t));
  for (size_t i = 0; i < sizeof out; i++) ASSERT_EQ_U64(out[i], 0x5A);
  ASSERT_NULL(clsort_type_name((clsort_type)12));
  ASSERT_EQ_U64(clsort_type_size((clsort_type)12), 0);
}

/* ------------------------------------------------------------------ main */
static void add(Suite *s, unsigned tiers) {
  if (!(tiers & T_QUICK)) return;
  TCase *tc = t_tcase(s, "narrow", true);
  tcase_add_loop_test(tc, narrow_refusals, 0, 6);
  tcase_add_loop_test(tc, narrow_matrix, 0, (int)(6 * NALG));
  tcase_add_loop_test(tc, narrow_special_values, 0, (int)(6 * NALG));
  tcase_add_loop_test(tc, narrow_bit_ranges, 0, 6);
  tcase_add_loop_test(tc, narrow_buffer_form, 0, 6);
  tcase_add_loop_test(tc, narrow_out_of_core, 0, 6);
}

int main(int argc, char **argv) { return t_main(argc, argv, "narrow", add); }
