/* test_merging.c: clsort_merge, clsort_merge_pairs and clsort_merge_buffer
 * against a stable CPU reference (the stable sort of a followed by b, which
 * is the stable merge with a first on ties): every key type, both
 * directions, keys and pairs with 4- and 8-byte values, empty sides, all
 * ties, interleaved sides, the ten distributions; the arrays laid out as
 * callers lay them out (used in place on a CPU device); then each error
 * path with its status and every array untouched. */
#define _POSIX_C_SOURCE 200809L
#include "sorts/sort_check.h"

#include <stdlib.h>

/* a (na keys) and b (nb keys) of type t, each sorted in the direction of
 * o, drawn from `dist`; interleaved: a holds the even ranks of one sorted
 * draw, b the odd ones. */
static void gen_sides(t_rng *r, clsort_type t, int dist, bool interleave, const clsort_options *o,
                      void *a, size_t na, void *b, size_t nb) {
  size_t ks = clsort_type_size(t), n = na + nb;
  void *all = t_alloc(n * ks + 1), *sorted = t_alloc(n * ks + 1);
  t_gen_keys(r, t, dist, all, n);
  if (interleave) {
    size_t *p = t_ref_permutation(t, all, n, o);
    t_gather(all, p, n, ks, sorted);
    size_t ia = 0, ib = 0;
    for (size_t i = 0; i < n; i++) {
      bool to_a = (i % 2 == 0 && ia < na) || ib == nb;
      memcpy(to_a ? (char *)a + ks * ia++ : (char *)b + ks * ib++, (char *)sorted + ks * i, ks);
    }
    return;
  }
  size_t *pa = t_ref_permutation(t, all, na, o);
  t_gather(all, pa, na, ks, a);
  size_t *pb = t_ref_permutation(t, (char *)all + na * ks, nb, o);
  t_gather((char *)all + na * ks, pb, nb, ks, b);
}

/* One merge through the host form (vs 0: clsort_merge; 4 or 8: pairs)
 * and, with `buffer`, the buffer form; outputs checked against the stable
 * reference, the guards past na + nb and the inputs unchanged. */
static void check_merge(clsort_type t, const void *a, size_t na, const void *b, size_t nb,
                        size_t vs, const clsort_options *o, bool buffer) {
  size_t ks = clsort_type_size(t), n = na + nb;
  char *cat = t_alloc(n * ks + 1);
  memcpy(cat, a, na * ks);
  memcpy(cat + na * ks, b, nb * ks);
  size_t *perm = t_ref_permutation(t, cat, n, o);
  char *want = t_alloc(n * ks + 1);
  t_gather(cat, perm, n, ks, want);
  char *vals = t_alloc(n * 8 + 1), *out = t_alloc((n + GUARD) * ks),
       *vout = t_alloc((n + GUARD) * 8);
  if (vs) t_fill_pair_values(vals, vs, n);
  char *a_copy = t_alloc(na * ks + 1), *b_copy = t_alloc(nb * ks + 1);
  memcpy(a_copy, a, na * ks);
  memcpy(b_copy, b, nb * ks);
  char msg[256];
  for (int form = 0; form < (buffer ? 2 : 1); form++) {
    t_label("%s merge%s na=%zu nb=%zu vs=%zu %s", clsort_type_name(t), form ? "_buffer" : "", na,
            nb, vs, t_opt_name(o));
    t_poison(out, (n + GUARD) * ks);
    t_poison(vout, (n + GUARD) * 8);
    clsort_status st;
    if (form == 0) {
      st = vs ? clsort_merge_pairs(T_CTX, t, a, vals, na, b, vals + na * vs, nb, out, vout, vs, o)
              : clsort_merge(T_CTX, t, a, na, b, nb, out, o);
    } else {
      cl_mem ba = t_buffer_padded(a, na * ks), bb = t_buffer_padded(b, nb * ks);
      cl_mem bva = t_buffer_padded(vals, na * vs), bvb = t_buffer_padded(vals + na * vs, nb * vs);
      cl_mem bo = t_buffer((n + GUARD) * ks, NULL), bvo = t_buffer((n + GUARD) * 8, NULL);
      cl_event ev = NULL;
      st = clsort_merge_buffer(T_CTX, t, ba, vs ? bva : NULL, na, bb, vs ? bvb : NULL, nb, bo,
                               vs ? bvo : NULL, vs, o, 0, NULL, &ev);
      if (st == CLSORT_SUCCESS) {
        ASSERT_EQ_U64(clWaitForEvents(1, &ev), CL_SUCCESS);
        clReleaseEvent(ev);
        t_read_into(bo, out, (n + GUARD) * ks);
        t_read_into(bvo, vout, (n + GUARD) * 8);
      }
    }
    if (st != CLSORT_SUCCESS)
      ck_abort_msg("%s: merge returned %s: %s", t_where(), t_status_name(st), t_last_error());
    if (!t_elems_equal(out, want, n, ks, msg, sizeof msg))
      ck_abort_msg("%s: keys: %s", t_where(), msg);
    if (!t_poison_intact(out, n * ks, (n + GUARD) * ks, msg, sizeof msg))
      ck_abort_msg("%s: past the keys: %s", t_where(), msg);
    if (vs) {
      t_check_payload_exact(vout, vs, perm, n, false);
      if (!t_poison_intact(vout, n * vs, (n + GUARD) * vs, msg, sizeof msg))
        ck_abort_msg("%s: past the values: %s", t_where(), msg);
    }
    ASSERT_TRUE(memcmp(a, a_copy, na * ks) == 0 && memcmp(b, b_copy, nb * ks) == 0);
  }
}

static clsort_options opts(bool desc, unsigned extra) {
  clsort_options o = {CLSORT_AUTO, (desc ? CLSORT_DESCENDING : 0u) | extra, 0u, 0u};
  return o;
}

/* _i = type: the edge sizes (empty sides, one key, sizes around the merge
 * tile) and every distribution, in both directions, keys and pairs. */
T_TEST(merge_types) {
  clsort_type t = t_all_types[_i];
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "merge_types");
  r.s[0] ^= (uint64_t)_i;
  static const size_t sides[][2] = {{0, 0},    {0, 5},       {7, 0},     {1, 1},    {1, 0},
                                    {3, 2000}, {2048, 2048}, {4097, 31}, {257, 256}};
  size_t ks = clsort_type_size(t);
  for (size_t s = 0; s < sizeof sides / sizeof sides[0]; s++)
    for (int desc = 0; desc < 2; desc++) {
      size_t na = sides[s][0], nb = sides[s][1];
      clsort_options o = opts(desc, s % 2 ? CLSORT_STABLE : 0u);
      void *a = t_alloc(na * ks + 1), *b = t_alloc(nb * ks + 1);
      gen_sides(&r, t, (int)(s % D_COUNT), false, &o, a, na, b, nb);
      check_merge(t, a, na, b, nb, (s + (size_t)desc) % 3 == 0 ? 0 : (s % 2 ? 4 : 8), &o,
                  s % 4 == 1);
    }
  for (int dist = 0; dist < D_COUNT; dist++) {
    size_t na = t_rng_size(&r, 1, 5000), nb = t_rng_size(&r, 1, 5000);
    clsort_options o = opts(dist % 2, 0u);
    void *a = t_alloc(na * ks + 1), *b = t_alloc(nb * ks + 1);
    gen_sides(&r, t, dist, dist % 3 == 0, &o, a, na, b, nb);
    check_merge(t, a, na, b, nb, dist % 3 == 1 ? 0 : 8, &o, dist == 2);
  }
}

/* All ties (which side comes first is all there is to see) and perfectly
 * interleaved sides, large enough for several groups of the merge tile. */
T_TEST(merge_ties_and_interleaved) {
  clsort_type t = _i == 0 ? CLSORT_U32 : CLSORT_F64;
  if (t_skip_type(t)) return;
  t_rng r;
  t_rng_init(&r, "merge_ties");
  size_t ks = clsort_type_size(t), na = 30000, nb = 20001;
  void *a = t_alloc(na * ks), *b = t_alloc(nb * ks);
  for (int desc = 0; desc < 2; desc++) {
    clsort_options o = opts(desc, 0u);
    gen_sides(&r, t, D_ZERO, false, &o, a, na, b, nb);
    check_merge(t, a, na, b, nb, 4, &o, true);
    gen_sides(&r, t, D_UNIFORM, true, &o, a, na, b, nb);
    check_merge(t, a, na, b, nb, 8, &o, false);
    gen_sides(&r, t, D_FEW, true, &o, a, na, b, nb);
    check_merge(t, a, na, b, nb, 4, &o, false);
  }
}

/* Unsorted inputs: the order is unspecified, but the call succeeds and
 * writes nothing past na + nb (the merge path's co-ranks are not
 * monotone there; the kernel clamps them). */
T_TEST(merge_unsorted_inputs_stay_in_bounds) {
  t_rng r;
  t_rng_init(&r, "merge_unsorted");
  size_t na = 70001, nb = 50003, n = na + nb;
  uint32_t *a = t_alloc(na * 4), *b = t_alloc(nb * 4), *out = t_alloc((n + GUARD) * 4);
  t_fill_random(&r, CLSORT_U32, a, na);
  t_fill_random(&r, CLSORT_U32, b, nb);
  t_poison(out, (n + GUARD) * 4);
  t_label("merge of unsorted inputs");
  ASSERT_OK(clsort_merge(T_CTX, CLSORT_U32, a, na, b, nb, out, NULL));
  char msg[256];
  if (!t_poison_intact(out, n * 4, (n + GUARD) * 4, msg, sizeof msg))
    ck_abort_msg("%s: past the output: %s", t_where(), msg);
}

/* ------------------------------------------------------------ layouts */

/* One merge of the host form with every array where the caller put it:
 * outputs checked against the stable reference, the inputs unchanged. */
static void check_merge_at(clsort_type t, const void *a, const void *va, size_t na, const void *b,
                           const void *vb, size_t nb, void *out, void *vout, size_t vs,
                           const clsort_options *o, const char *layout) {
  size_t ks = clsort_type_size(t), n = na + nb;
  char *cat = t_alloc(n * ks + 1), *vcat = t_alloc(n * 8 + 1);
  memcpy(cat, a, na * ks);
  memcpy(cat + na * ks, b, nb * ks);
  size_t *perm = t_ref_permutation(t, cat, n, o);
  char *want = t_alloc(n * ks + 1);
  t_gather(cat, perm, n, ks, want);
  if (vs) {
    memcpy(vcat, va, na * vs);
    memcpy(vcat + na * vs, vb, nb * vs);
  }
  t_label("%s merge, %s, na=%zu nb=%zu vs=%zu %s", clsort_type_name(t), layout, na, nb, vs,
          t_opt_name(o));
  clsort_status st = vs ? clsort_merge_pairs(T_CTX, t, a, va, na, b, vb, nb, out, vout, vs, o)
                        : clsort_merge(T_CTX, t, a, na, b, nb, out, o);
  if (st != CLSORT_SUCCESS)
    ck_abort_msg("%s: merge returned %s: %s", t_where(), t_status_name(st), t_last_error());
  char msg[256];
  if (!t_elems_equal(out, want, n, ks, msg, sizeof msg))
    ck_abort_msg("%s: keys: %s", t_where(), msg);
  if (vs) {
    char *vwant = t_alloc(n * vs + 1);
    t_gather(vcat, perm, n, vs, vwant);
    if (!t_elems_equal(vout, vwant, n, vs, msg, sizeof msg))
      ck_abort_msg("%s: values: %s", t_where(), msg);
  }
  ASSERT_TRUE(memcmp(cat, a, na * ks) == 0 && memcmp(cat + na * ks, b, nb * ks) == 0);
}

/* a and b drawn as one sorted run in the order of o, cut in two: a's
 * keys all come before b's (b_first false) or after them. */
static void gen_cut(t_rng *r, clsort_type t, const clsort_options *o, bool b_first, void *a,
                    size_t na, void *b, size_t nb) {
  size_t ks = clsort_type_size(t), n = na + nb;
  char *all = t_alloc(n * ks + 1), *sorted = t_alloc(n * ks + 1);
  t_gen_keys(r, t, D_UNIFORM, all, n);
  t_gather(all, t_ref_permutation(t, all, n, o), n, ks, sorted);
  memcpy(a, sorted + (b_first ? nb * ks : 0), na * ks);
  memcpy(b, sorted + (b_first ? 0 : na * ks), nb * ks);
}

/* Each array against an inaccessible page after it, then before it, so
 * that a read past either end faults: sides interleaved, a's keys all
 * before b's and all after, at sizes that put the ends of each run in the
 * middle of a work-item's range. */
static void check_guarded(clsort_type t, size_t vs, const clsort_options *o, t_rng *r) {
  static const size_t sizes[][2] = {{70001, 50003}, {50003, 70001}, {60004, 60000}};
  size_t ks = clsort_type_size(t);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int cut = 0; cut < 3; cut++)
      for (int at_end = 0; at_end < 2; at_end++) {
        size_t na = sizes[s][0], nb = sizes[s][1], n = na + nb;
        char *a = t_guarded(na * ks, at_end), *b = t_guarded(nb * ks, at_end);
        char *out = t_guarded(n * ks, at_end), *va = NULL, *vb = NULL, *vout = NULL;
        if (cut == 0)
          gen_sides(r, t, D_UNIFORM, true, o, a, na, b, nb);
        else
          gen_cut(r, t, o, cut == 2, a, na, b, nb);
        if (vs) {
          va = t_guarded(na * vs, at_end);
          vb = t_guarded(nb * vs, at_end);
          vout = t_guarded(n * vs, at_end);
          char *v = t_alloc(n * vs);
          t_fill_pair_values(v, vs, n);
          memcpy(va, v, na * vs);
          memcpy(vb, v + na * vs, nb * vs);
        }
        static const char *const cuts[] = {"interleaved", "a before b", "b before a"};
        char layout[96];
        snprintf(layout, sizeof layout, "%s, arrays %s a page", cuts[cut],
                 at_end ? "ending at" : "starting after");
        check_merge_at(t, a, va, na, b, vb, nb, out, vout, vs, o, layout);
      }
}

/* _i: u32 keys, f64 keys, u32 with 4-byte values, f64 with 8-byte values.
 * The arrays as callers lay them out, which a CPU device uses in place
 * (the CPU shape's merge adds each array's origin): against inaccessible
 * pages (check_guarded); a, b and the output back to back in one
 * allocation, one element off alignment, and b before a; a and b the same
 * array; keys a byte off their alignment (staged). */
T_TEST(merge_layouts) {
  static const clsort_type types[] = {CLSORT_U32, CLSORT_F64, CLSORT_U32, CLSORT_F64};
  clsort_type t = types[_i];
  if (t_skip_type(t)) return;
  size_t ks = clsort_type_size(t), vs = _i < 2 ? 0 : ks, na = 70001, nb = 50003, n = na + nb;
  t_rng r;
  t_rng_init(&r, "merge_layouts");
  r.s[0] ^= (uint64_t)_i;
  clsort_options o = opts(_i % 2, 0u);
  check_guarded(t, vs, &o, &r);
  char *a0 = t_alloc(na * ks), *b0 = t_alloc(nb * ks), *v0 = t_alloc(n * 8 + 1);
  gen_sides(&r, t, D_UNIFORM, _i % 2 == 0, &o, a0, na, b0, nb);
  if (vs) t_fill_pair_values(v0, vs, n);
  /* One allocation each for keys and values: [pad][a][b][out] and
   * [pad][b][a][out], one element of pad. */
  for (int b_first = 0; b_first < 2; b_first++) {
    char *k = t_alloc((2 * n + 1) * ks), *v = t_alloc((2 * n + 1) * 8);
    char *a = k + ks + (b_first ? nb * ks : 0), *b = k + ks + (b_first ? 0 : na * ks);
    char *va = v + vs + (b_first ? nb * vs : 0), *vb = v + vs + (b_first ? 0 : na * vs);
    memcpy(a, a0, na * ks);
    memcpy(b, b0, nb * ks);
    memcpy(va, v0, na * vs);
    memcpy(vb, v0 + na * vs, nb * vs);
    check_merge_at(t, a, vs ? va : NULL, na, b, vs ? vb : NULL, nb, k + (n + 1) * ks,
                   vs ? v + (n + 1) * vs : NULL, vs, &o,
                   b_first ? "b, a and out back to back" : "a, b and out back to back");
  }
  /* a merged with itself. */
  {
    char *out = t_alloc(2 * na * ks), *vout = t_alloc(2 * na * 8 + 1);
    check_merge_at(t, a0, vs ? v0 : NULL, na, a0, vs ? v0 : NULL, na, out, vs ? vout : NULL, vs,
                   &o, "a and b the same array");
  }
  /* Keys a byte off their alignment: staged, then the same merge. */
  if (vs == 0) {
    char *k = t_alloc(n * ks + 1), *out = t_alloc(n * ks + 1);
    memcpy(k + 1, a0, na * ks);
    memcpy(k + 1 + na * ks, b0, nb * ks);
    check_merge_at(t, k + 1, NULL, na, k + 1 + na * ks, NULL, nb, out + 1, NULL, 0, &o,
                   "arrays a byte off alignment");
  }
}

/* ------------------------------------------------------------- errors */
enum { EN = 64 };

/* Each bad argument of the host forms, one at a time: its status, and the
 * outputs still poisoned, the inputs unchanged. */
T_TEST(merge_errors) {
  uint32_t a[EN], b[EN], va[EN], vb[EN], copy[4][EN];
  uint32_t buf[3 * EN + GUARD], vout[2 * EN + GUARD];
  for (unsigned i = 0; i < EN; i++) a[i] = b[i] = va[i] = vb[i] = i;
  memcpy(copy[0], a, sizeof a);
  memcpy(copy[1], b, sizeof b);
  memcpy(copy[2], va, sizeof va);
  memcpy(copy[3], vb, sizeof vb);
  t_poison(buf, sizeof buf);
  t_poison(vout, sizeof vout);
  uint32_t *out = buf + EN;
  clsort_options radix = {CLSORT_RADIX, 0u, 0u, 0u}, bits = {CLSORT_AUTO, 0u, 0u, 16u};
  clsort_options flags = {CLSORT_AUTO, 0x80u, 0u, 0u};
  t_label("merge errors");
  ASSERT_ERROR(clsort_merge(NULL, CLSORT_U32, a, EN, b, EN, out, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge(T_CTX, (clsort_type)99, a, EN, b, EN, out, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge(T_CTX, CLSORT_U32, a, EN, b, EN, NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge(T_CTX, CLSORT_U32, NULL, EN, b, EN, out, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge(T_CTX, CLSORT_U32, a, EN, NULL, 1, out, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge(T_CTX, CLSORT_U32, a, EN, b, EN, out, &flags),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge(T_CTX, CLSORT_U32, a, EN, b, EN, out, &radix),
               CLSORT_ERROR_UNSUPPORTED);
  ASSERT_ERROR(clsort_merge(T_CTX, CLSORT_U32, a, EN, b, EN, out, &bits), CLSORT_ERROR_UNSUPPORTED);
  /* out overlapping a (ending inside it), b, or both of the pairs' values. */
  ASSERT_ERROR(clsort_merge(T_CTX, CLSORT_U32, buf + 2 * EN, EN, b, EN, buf + EN + 1, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge(T_CTX, CLSORT_U32, a, EN / 2, buf, EN, buf + EN / 2, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge(T_CTX, CLSORT_U32, a, EN, b, EN, b + 1, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge_pairs(T_CTX, CLSORT_U32, a, va, EN, b, vb, EN, out, vout, 3, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge_pairs(T_CTX, CLSORT_U32, a, NULL, EN, b, vb, EN, out, vout, 4, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge_pairs(T_CTX, CLSORT_U32, a, va, EN, b, vb, EN, out, NULL, 4, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge_pairs(T_CTX, CLSORT_U32, a, va, EN, b, vb, EN, out, va, 4, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge_pairs(T_CTX, CLSORT_U32, a, va, EN, b, vb, EN, out, out + 1, 4, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge(T_CTX, CLSORT_U32, a, SIZE_MAX, b, 2, out, NULL),
               CLSORT_ERROR_TOO_LARGE);
  char msg[256];
  if (!t_poison_intact(buf, 0, EN * 4, msg, sizeof msg) ||
      !t_poison_intact(buf, 2 * EN * 4, sizeof buf, msg, sizeof msg) ||
      !t_poison_intact(vout, 0, sizeof vout, msg, sizeof msg))
    ck_abort_msg("%s: an output changed: %s", t_where(), msg);
  ASSERT_TRUE(memcmp(a, copy[0], sizeof a) == 0 && memcmp(b, copy[1], sizeof b) == 0);
  ASSERT_TRUE(memcmp(va, copy[2], sizeof va) == 0 && memcmp(vb, copy[3], sizeof vb) == 0);
}

static void release_mem(void *m) { clReleaseMemObject((cl_mem)m); }

/* The buffer form's own checks: output buffers that are inputs, too small,
 * read-only, values without value_size; the output untouched. */
T_TEST(merge_buffer_errors) {
  uint32_t init[EN];
  for (unsigned i = 0; i < EN; i++) init[i] = i;
  cl_mem a = t_buffer(sizeof init, init), b = t_buffer(sizeof init, init);
  cl_mem out = t_buffer(2 * sizeof init, NULL), small = t_buffer(8, NULL);
  cl_int err;
  cl_mem ro = clCreateBuffer(clsort_context_cl_context(T_CTX), CL_MEM_READ_ONLY, 2 * sizeof init,
                             NULL, &err);
  ASSERT_EQ_U64(err, CL_SUCCESS);
  t_defer(release_mem, ro);
  t_label("merge_buffer errors");
  ASSERT_ERROR(clsort_merge_buffer(T_CTX, CLSORT_U32, a, NULL, EN, b, NULL, EN, a, NULL, 0, NULL, 0,
                                   NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge_buffer(T_CTX, CLSORT_U32, a, NULL, EN, b, NULL, EN, small, NULL, 0,
                                   NULL, 0, NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge_buffer(T_CTX, CLSORT_U32, a, NULL, EN, b, NULL, EN, ro, NULL, 0, NULL,
                                   0, NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge_buffer(T_CTX, CLSORT_U32, a, NULL, EN, b, NULL, EN, out, NULL, 4, NULL,
                                   0, NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  ASSERT_ERROR(clsort_merge_buffer(T_CTX, CLSORT_U32, a, NULL, EN, b, NULL, EN, out, NULL, 0, NULL,
                                   1, NULL, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT);
  uint32_t *got = t_read_buffer(out, 2 * sizeof init);
  char msg[256];
  if (!t_poison_intact(got, 0, 2 * sizeof init, msg, sizeof msg))
    ck_abort_msg("%s: out changed: %s", t_where(), msg);
  uint32_t *ga = t_read_buffer(a, sizeof init);
  ASSERT_TRUE(memcmp(ga, init, sizeof init) == 0);
}

/* The tiled part's GPU shape: groups of 16 work-items, so that PoCL runs
 * the merge pass GPUs run (merge.cl's group loads, co-ranks found inside
 * the merge for few tiles, keys in registers). */
static void tiled_setup(void) { t_shape_setup("16:16:2"); }

/* Parts: "matrix" (the default shape: the CPU one on PoCL) and "tiled"
 * (the GPU shape), so that meson runs them in parallel. */
static void add(Suite *s, unsigned tiers) {
  if (!(tiers & T_QUICK)) return;
  if (t_part_selected("matrix")) {
    TCase *tc = t_tcase(s, "merging", true);
    tcase_add_loop_test(tc, merge_types, 0, 6);
    tcase_add_loop_test(tc, merge_ties_and_interleaved, 0, 2);
    tcase_add_test(tc, merge_unsorted_inputs_stay_in_bounds);
    tcase_add_loop_test(tc, merge_layouts, 0, 4);
    tcase_add_test(tc, merge_errors);
    tcase_add_test(tc, merge_buffer_errors);
  }
  if (t_part_selected("tiled")) {
    TCase *tc = t_shape_tcase(s, "tiled", tiled_setup);
    tcase_add_loop_test(tc, merge_types, 0, 6);
    tcase_add_loop_test(tc, merge_ties_and_interleaved, 0, 2);
    tcase_add_test(tc, merge_unsorted_inputs_stay_in_bounds);
    tcase_add_loop_test(tc, merge_layouts, 0, 4);
  }
}

int main(int argc, char **argv) { return t_main(argc, argv, "merging", add); }
