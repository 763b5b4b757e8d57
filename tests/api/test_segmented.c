/* test_segmented.c: clsort_segmented_sort and its buffer form against a
 * stable CPU reference per segment: every key type, both directions, keys
 * and pairs with 4- and 8-byte values (the values are input positions, so
 * stability shows), empty segments, one segment, all segments of size 1,
 * sizes straddling the small sort's tile, random sizes; then each error
 * path with its status and the arrays untouched. The "packed" part runs
 * the same cases in a GPU shape (CLSORT_TUNING), where the short segments
 * are packed into the block sort's tiles, with runs of equal-sized
 * segments (aligned and not) besides. */
#define _POSIX_C_SOURCE 200809L
#include "sorts/sort_check.h"

#include <stdlib.h>

/* The segment layouts; `limit` is the small sort's tile for the case. */
enum {
  L_EMPTY_MIXED, /* empty segments between short ones */
  L_ONE_SHORT,   /* one segment below the tile */
  L_ONE_LONG,    /* one segment above it */
  L_ALL_ONE,     /* every segment one key */
  L_STRADDLE,    /* limit - 1, limit, limit + 1, 0, 2, 5 * limit + 7 (merged: 3 passes and 1) */
  L_RANDOM,      /* random sizes, a few long, zeros among them */
  L_MANY,        /* 400 short segments, empty ones among them: the global path on CPUs */
  L_EQUAL,       /* 300 segments of one length: 16, 48, 64 or 100 keys */
  L_PACKING,     /* around the tile: limit / 2 + 1 twice, limit - 1 and 1, limit, ... */
  L_TILES,       /* 4 segments of 2 tiles, then limit + 3 keys */
  L_COUNT
};
static const char *const layout_names[L_COUNT] = {"empty-mixed", "one-short", "one-long",
                                                  "all-one",     "straddle",  "random",
                                                  "many",        "equal",     "packing",
                                                  "tiles"};

/* Fills offsets (room for MAX_SEGMENTS + 1 entries) for the layout;
 * returns the number of segments, n in *n. */
#define MAX_SEGMENTS 400
static size_t make_layout(t_rng *r, int layout, size_t limit, uint64_t *offsets, size_t *n) {
  size_t sizes[MAX_SEGMENTS], count = 0;
  switch (layout) {
    case L_EMPTY_MIXED:
      for (size_t i = 0; i < 40; i++) sizes[count++] = i % 3 ? t_rng_below(r, 40) : 0;
      break;
    case L_ONE_SHORT:
      sizes[count++] = limit / 2 + 3;
      break;
    case L_ONE_LONG:
      sizes[count++] = 3 * limit + 17;
      break;
    case L_ALL_ONE:
      for (size_t i = 0; i < 64; i++) sizes[count++] = 1;
      break;
    case L_STRADDLE: {
      size_t s[] = {limit - 1, limit, limit + 1, 0, 2, 5 * limit + 7};
      for (size_t i = 0; i < 6; i++) sizes[count++] = s[i];
      break;
    }
    case L_MANY:
      for (size_t i = 0; i < MAX_SEGMENTS; i++) sizes[count++] = t_rng_below(r, 70);
      break;
    case L_EQUAL: {
      static const size_t lengths[4] = {16, 48, 64, 100};
      size_t len = lengths[t_rng_below(r, 4)];
      for (size_t i = 0; i < 300; i++) sizes[count++] = len;
      break;
    }
    case L_TILES: {
      /* Equal segments of whole tiles, the last one shorter. */
      size_t s[] = {2 * limit, 2 * limit, 2 * limit, 2 * limit, limit + 3};
      for (size_t i = 0; i < 5; i++) sizes[count++] = s[i];
      break;
    }
    case L_PACKING: {
      /* Pairs that just overflow a tile, pairs that just fill one, a long
       * segment between short ones, size 1 after a full tile. */
      size_t s[] = {limit / 2 + 1, limit / 2 + 1, limit - 1, 1, limit, 1, 0, 3, limit + 1, 5,
                    limit / 2, limit / 2, 2, limit / 3, limit / 3, limit / 3 + 1};
      for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) sizes[count++] = s[i];
      break;
    }
    default:
      for (size_t i = 0; i < 24; i++)
        sizes[count++] = i % 7 == 3 ? t_rng_size(r, limit + 1, 3 * limit)
                                    : (i % 5 == 0 ? 0 : t_rng_below(r, limit + 1));
  }
  offsets[0] = 0;
  for (size_t i = 0; i < count; i++) offsets[i + 1] = offsets[i] + sizes[i];
  *n = (size_t)offsets[count];
  return count;
}

/* One segmented sort of keys of distribution `dist`, through the host
 * form or the buffer form, checked per segment against the stable
 * reference: keys equal, values the positions the keys came from, and
 * nothing written past n. */
static void check_case(t_rng *r, clsort_type t, int layout, int dist, size_t vs, bool desc,
                       bool buffer) {
  size_t limit = clsort__test_segmented_limit(T_CTX, t, vs);
  uint64_t offsets[MAX_SEGMENTS + 1];
  size_t n, count = make_layout(r, layout, limit, offsets, &n);
  size_t ks = clsort_type_size(t);
  clsort_options o = {CLSORT_AUTO, desc ? CLSORT_DESCENDING : 0u, 0u, 0u};
  t_label("%s %s %s vs=%zu n=%zu %s%s", clsort_type_name(t), layout_names[layout],
          t_dist_names[dist], vs, n, desc ? "descending" : "ascending", buffer ? " buffer" : "");
  char *in = t_alloc(n * ks + 1), *keys = t_alloc((n + GUARD) * ks);
  char *vals = t_alloc((n + GUARD) * 8);
  t_gen_keys(r, t, dist, in, n);
  t_poison(keys, (n + GUARD) * ks);
  t_poison(vals, (n + GUARD) * 8);
  memcpy(keys, in, n * ks);
  if (vs) t_fill_pair_values(vals, vs, n);
  clsort_status st;
  if (!buffer) {
    st = clsort_segmented_sort(T_CTX, t, keys, vs ? vals : NULL, vs, n, offsets, count, &o);
  } else {
    cl_mem bk = t_buffer((n + GUARD) * ks, keys), bv = t_buffer((n + GUARD) * 8, vals);
    cl_event ev = NULL;
    st = clsort_segmented_sort_buffer(T_CTX, t, bk, vs ? bv : NULL, vs, n, offsets, count, &o, 0,
                                      NULL, &ev);
    if (st == CLSORT_SUCCESS) {
      ASSERT_EQ_U64(clWaitForEvents(1, &ev), CL_SUCCESS);
      clReleaseEvent(ev);
      t_read_into(bk, keys, (n + GUARD) * ks);
      t_read_into(bv, vals, (n + GUARD) * 8);
    }
  }
  if (st != CLSORT_SUCCESS)
    ck_abort_msg("%s: returned %s: %s", t_where(), t_status_name(st), t_last_error());
  char msg[256];
  size_t *perm = t_alloc(n * sizeof *perm + 1);
  char *want = t_alloc(n * ks + 1);
  for (size_t s = 0; s < count; s++) {
    size_t first = (size_t)offsets[s], len = (size_t)(offsets[s + 1] - offsets[s]);
    size_t *p = t_ref_permutation(t, in + first * ks, len, &o);
    for (size_t i = 0; i < len; i++) perm[first + i] = first + p[i];
  }
  t_gather(in, perm, n, ks, want);
  if (!t_elems_equal(keys, want, n, ks, msg, sizeof msg))
    ck_abort_msg("%s: keys: %s", t_where(), msg);
  if (!t_poison_intact(keys, n * ks, (n + GUARD) * ks, msg, sizeof msg))
    ck_abort_msg("%s: past the keys: %s", t_where(), msg);
  if (vs) {
    t_check_payload_exact(vals, vs, perm, n, false);
    if (!t_poison_intact(vals, n * vs, (n + GUARD) * vs, msg, sizeof msg))
      ck_abort_msg("%s: past the values: %s", t_where(), msg);
  }
}

/* _i: u32, f64. Keys alone, then with 4- and 8-byte values, which a CPU
 * device sorts in place from wherever they are (nothing staged): against
 * an inaccessible page after them, then before them (a read or write past
 * either end faults), with short segments (keys alone: the introsort;
 * values: insertion sorts and merges, and the radix sort past 512 keys)
 * and one longer than the small sort takes (copied out, sorted and
 * copied back at its origin). Values must follow the stable order. */
T_TEST(segmented_guarded) {
  clsort_type t = _i ? CLSORT_F64 : CLSORT_U32;
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "segmented_guarded");
  r.s[0] ^= (uint64_t)_i;
  static const size_t payloads[3] = {0, 4, 8};
  size_t ks = clsort_type_size(t);
  for (int pl = 0; pl < 3; pl++) {
    size_t vs = payloads[pl], limit = clsort__test_segmented_limit(T_CTX, t, vs);
    uint64_t offsets[6] = {0, 1, 301, 3001, 3001 + limit + 77, 0};
    size_t n = (size_t)offsets[4] + 5003;
    offsets[5] = n;
    char *in = t_alloc(n * ks);
    t_gen_keys(&r, t, pl == 1 ? D_FEW : D_UNIFORM, in, n);
    clsort_options o = {CLSORT_AUTO, (_i + pl) % 2 ? CLSORT_DESCENDING : 0u, 0u, 0u};
    size_t *perm = t_alloc(n * sizeof *perm);
    for (size_t s = 0; s < 5; s++) {
      size_t first = (size_t)offsets[s], len = (size_t)(offsets[s + 1] - offsets[s]);
      size_t *p = t_ref_permutation(t, in + first * ks, len, &o);
      for (size_t i = 0; i < len; i++) perm[first + i] = first + p[i];
    }
    char *want = t_alloc(n * ks), msg[256];
    t_gather(in, perm, n, ks, want);
    for (int at_end = 0; at_end < 2; at_end++) {
      char *keys = t_guarded(n * ks, at_end), *vals = vs ? t_guarded(n * vs, !at_end) : NULL;
      memcpy(keys, in, n * ks);
      if (vs) t_fill_pair_values(vals, vs, n);
      t_label("%s n=%zu, %zu-byte values, keys %s a page", clsort_type_name(t), n, vs,
              at_end ? "ending at" : "after");
      clsort__test_take_staging(T_CTX);
      ASSERT_OK(clsort_segmented_sort(T_CTX, t, keys, vals, vs, n, offsets, 5, &o));
      if (clsort__cpu_shape(T_CTX)) ASSERT_EQ_U64(clsort__test_take_staging(T_CTX), 0);
      if (!t_elems_equal(keys, want, n, ks, msg, sizeof msg))
        ck_abort_msg("%s: keys: %s", t_where(), msg);
      if (vs) t_check_payload_exact(vals, vs, perm, n, false);
    }
  }
}

/* _i = type: every layout, cycling through distributions, directions,
 * payloads and both forms. */
T_TEST(segmented_types) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "segmented_types");
  r.s[0] ^= (uint64_t)_i;
  static const size_t payloads[3] = {0, 4, 8};
  int k = 0;
  for (int layout = 0; layout < L_COUNT; layout++)
    for (int rep = 0; rep < 2; rep++, k++)
      check_case(&r, t, layout, (k * 3 + _i) % D_COUNT, payloads[(k + _i) % 3], (k + _i) % 2,
                 k % 4 == 3);
}

/* u32 in every combination of payload and direction, on the layouts
 * that mix both paths. */
T_TEST(segmented_u32_modes) {
  t_rng r;
  t_rng_init(&r, "segmented_u32_modes");
  static const size_t payloads[3] = {0, 4, 8};
  for (int p = 0; p < 3; p++)
    for (int desc = 0; desc < 2; desc++) {
      check_case(&r, CLSORT_U32, L_STRADDLE, D_FEW, payloads[p], desc, false);
      check_case(&r, CLSORT_U32, L_RANDOM, D_UNIFORM, payloads[p], desc, desc);
    }
}

/* Every path forced (CLSORT_SEGMENTED), whatever the device would pick,
 * on the layouts that mix short and long segments (packed falls back to
 * split in the CPU shape; packed-split sorts each long segment on its
 * own after packing the short ones). */
T_TEST(segmented_paths) {
  static const char *const paths[4] = {"global", "split", "packed", "packed-split"};
  t_setenv("CLSORT_SEGMENTED", paths[_i]);
  t_rng r;
  t_rng_init(&r, paths[_i]);
  static const size_t payloads[3] = {0, 4, 8};
  int layouts[3] = {L_MANY, L_STRADDLE, L_RANDOM};
  for (int l = 0; l < 3; l++)
    for (int desc = 0; desc < 2; desc++)
      check_case(&r, l == 0 ? CLSORT_F32 : CLSORT_I64, layouts[l], (l * 2 + desc) % D_COUNT,
                 payloads[(l + (size_t)desc) % 3], desc, desc == 1);
}

/* n == 0: no segments, or only empty ones. */
T_TEST(segmented_empty) {
  uint64_t zeros[4] = {0, 0, 0, 0};
  t_label("segmented empty");
  ASSERT_EQ_U64(clsort_segmented_sort(T_CTX, CLSORT_U32, NULL, NULL, 0, 0, zeros, 0, NULL),
                CLSORT_SUCCESS);
  ASSERT_EQ_U64(clsort_segmented_sort(T_CTX, CLSORT_U32, NULL, NULL, 0, 0, zeros, 3, NULL),
                CLSORT_SUCCESS);
}

/* ------------------------------------------------------------- errors */
enum { EN = 64 };

T_TEST(segmented_errors) {
  uint32_t keys[EN], vals[EN], kc[EN], vc[EN];
  for (unsigned i = 0; i < EN; i++) keys[i] = vals[i] = EN - i;
  memcpy(kc, keys, sizeof keys);
  memcpy(vc, vals, sizeof vals);
  uint64_t good[3] = {0, 10, EN}, not_zero[3] = {1, 10, EN}, down[3] = {0, 40, 30};
  uint64_t short_end[3] = {0, 10, EN - 1}, past[3] = {0, 10, EN + 5};
  clsort_options quick = {CLSORT_QUICK, 0u, 0u, 0u}, bits = {CLSORT_AUTO, 0u, 0u, 8u};
  clsort_options flags = {CLSORT_AUTO, 0x40u, 0u, 0u};
  t_label("segmented errors");
  ASSERT_ERROR(clsort_segmented_sort(NULL, CLSORT_U32, keys, vals, 4, EN, good, 2, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_segmented_sort(T_CTX, (clsort_type)42, keys, vals, 4, EN, good, 2, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_segmented_sort(T_CTX, CLSORT_U32, NULL, vals, 4, EN, good, 2, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_segmented_sort(T_CTX, CLSORT_U32, keys, vals, 4, EN, NULL, 2, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_segmented_sort(T_CTX, CLSORT_U32, keys, vals, 4, EN, not_zero, 2, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_segmented_sort(T_CTX, CLSORT_U32, keys, vals, 4, EN, down, 2, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_segmented_sort(T_CTX, CLSORT_U32, keys, vals, 4, EN, short_end, 2, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_segmented_sort(T_CTX, CLSORT_U32, keys, vals, 4, EN, past, 2, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_segmented_sort(T_CTX, CLSORT_U32, keys, vals, 3, EN, good, 2, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_segmented_sort(T_CTX, CLSORT_U32, keys, NULL, 4, EN, good, 2, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_segmented_sort(T_CTX, CLSORT_U32, keys, vals, 4, EN, good, 2, &flags),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_segmented_sort(T_CTX, CLSORT_U32, keys, vals, 4, EN, good, 2, &quick),
               CLSORT_ERROR_UNSUPPORTED);
  ASSERT_ERROR(clsort_segmented_sort(T_CTX, CLSORT_U32, keys, vals, 4, EN, good, 2, &bits),
               CLSORT_ERROR_UNSUPPORTED);
  /* Values over the keys: the whole array, or from its second half. */
  ASSERT_ERROR(clsort_segmented_sort(T_CTX, CLSORT_U32, keys, keys, 4, EN, good, 2, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_segmented_sort(T_CTX, CLSORT_U32, keys, keys + EN / 2, 4, EN / 2, good, 1,
                                     NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_TRUE(memcmp(keys, kc, sizeof keys) == 0 && memcmp(vals, vc, sizeof vals) == 0);
  /* The buffer form: the same offsets check, keys and values one buffer,
   * a buffer too small; the buffer unchanged. */
  cl_mem bk = t_buffer(sizeof keys, keys), small = t_buffer(8, NULL);
  ASSERT_ERROR(clsort_segmented_sort_buffer(T_CTX, CLSORT_U32, bk, NULL, 0, EN, down, 2, NULL, 0,
                                            NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(
      clsort_segmented_sort_buffer(T_CTX, CLSORT_U32, bk, bk, 4, EN, good, 2, NULL, 0, NULL, NULL),
      CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_segmented_sort_buffer(T_CTX, CLSORT_U32, small, NULL, 0, EN, good, 2, NULL, 0,
                                            NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  uint32_t *got = t_read_buffer(bk, sizeof keys);
  ASSERT_TRUE(memcmp(got, kc, sizeof keys) == 0);
}

/* Many offsets: the check runs on the context's host threads in shares
 * (segmented.c), so a decrease in the last share must still be found and
 * named, and equal pairs with an odd last segment must still sort. */
enum { MANY = 1 << 18 };

T_TEST(segmented_many_offsets) {
  size_t n = 2 * (size_t)MANY - 1;
  uint32_t *keys = malloc(n * sizeof *keys), *copy = malloc(n * sizeof *copy);
  uint64_t *offsets = malloc((MANY + 1) * sizeof *offsets);
  ASSERT_TRUE(keys && copy && offsets);
  for (size_t i = 0; i < n; i++) keys[i] = (uint32_t)(n - i);
  memcpy(copy, keys, n * sizeof *keys);
  for (size_t i = 0; i <= MANY; i++) offsets[i] = i < MANY ? 2 * i : n;
  t_label("segmented many offsets");
  uint64_t keep = offsets[MANY - 3];
  offsets[MANY - 3] = offsets[MANY - 2] + 1; /* entry MANY - 2 now decreases */
  ASSERT_ERROR(clsort_segmented_sort(T_CTX, CLSORT_U32, keys, NULL, 0, n, offsets, MANY, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_TRUE(strstr(clsort_last_error_message(), "entry 262142") != NULL);
  ASSERT_TRUE(memcmp(keys, copy, n * sizeof *keys) == 0);
  offsets[MANY - 3] = keep;
  ASSERT_EQ_U64(clsort_segmented_sort(T_CTX, CLSORT_U32, keys, NULL, 0, n, offsets, MANY, NULL),
                CLSORT_SUCCESS);
  for (size_t i = 0; i + 1 < n; i += 2)
    ASSERT_TRUE(keys[i] == copy[i + 1] && keys[i + 1] == copy[i]);
  ASSERT_TRUE(keys[n - 1] == copy[n - 1]);
  free(keys);
  free(copy);
  free(offsets);
}

/* The packed part's GPU shape: groups of 16 work-items, so that the block
 * sort's tile is PoCL's (1024 keys, 4 per work-item). */
static void packed_setup(void) { t_shape_setup("16:16:2"); }

/* Parts: "matrix" (the default shape: the CPU one on PoCL) and "packed"
 * (the GPU shape), so that meson runs them in parallel; no part runs
 * both. */
static void add(Suite *s, unsigned tiers) {
  if (!(tiers & T_QUICK)) return;
  if (t_part_selected("matrix")) {
    TCase *tc = t_tcase(s, "segmented", true);
    tcase_add_loop_test(tc, segmented_types, 0, 6);
    tcase_add_test(tc, segmented_u32_modes);
    tcase_add_loop_test(tc, segmented_paths, 0, 3);
    tcase_add_test(tc, segmented_empty);
    tcase_add_test(tc, segmented_errors);
    tcase_add_test(tc, segmented_many_offsets);
    tcase_add_loop_test(tc, segmented_guarded, 0, 2);
  }
  if (t_part_selected("packed")) {
    TCase *tc = t_shape_tcase(s, "packed", packed_setup);
    tcase_add_loop_test(tc, segmented_types, 0, 6);
    tcase_add_test(tc, segmented_u32_modes);
    tcase_add_loop_test(tc, segmented_paths, 2, 4);
  }
}

int main(int argc, char **argv) { return t_main(argc, argv, "segmented", add); }
