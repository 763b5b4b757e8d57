/* test_histogram.c: clsort_bucket_offsets and its buffer form, the per-tile
 * bucket count table scanned in column-major order (offsets[b * p + t]),
 * against a C computation of the same table. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <math.h>
#include <stdlib.h>

#define GUARD 16
#define MAX_TABLE ((size_t)1 << 22) /* entries; larger tables are skipped */

static const unsigned bucket_counts[5] = {1, 2, 16, 256, 4096};
static const size_t tiles[] = {1, 7, 64, 256, 1000, 1024, 4096, 65536};
#define NTILES (sizeof tiles / sizeof tiles[0])

/* Bucket distributions: uniform, all in one bucket, ascending runs, only
 * the last bucket, and skewed towards bucket 0. */
static void fill_buckets(t_rng *r, unsigned *b, size_t n, unsigned nb, int dist) {
  unsigned one = (unsigned)t_rng_below(r, nb);
  for (size_t i = 0; i < n; i++) {
    switch (dist % 5) {
    case 0: b[i] = (unsigned)t_rng_below(r, nb); break;
    case 1: b[i] = one; break;
    case 2: b[i] = (unsigned)((uint64_t)i * nb / (n ? n : 1)); break;
    case 3: b[i] = nb - 1; break;
    default: {
      uint64_t x = t_rng_below(r, (uint64_t)nb * nb);
      unsigned v = (unsigned)sqrt((double)x); /* skewed towards large v */
      if (v > nb - 1) v = nb - 1;
      b[i] = nb - 1 - v;
    } break;
    }
  }
}

static const char *dist_name(int dist) {
  static const char *names[5] = {"uniform", "one bucket", "ascending", "last bucket", "skewed"};
  return names[dist % 5];
}

/* Checks both forms for one input; offsets in offset_type, then the guard. */
static void check_offsets(t_rng *r, size_t n, unsigned nb, size_t tile, clsort_type ot,
                          int dist) {
  size_t p = (n + tile - 1) / tile, entries = p * nb;
  size_t os = clsort_type_size(ot);
  unsigned *buckets = t_alloc(n * sizeof(unsigned) + 1), *copy = t_alloc(n * sizeof(unsigned) + 1);
  uint64_t *ref = t_alloc(entries * 8 + 1);
  unsigned char *want = t_alloc(entries * os + 1), *out = t_alloc((entries + GUARD) * os);
  fill_buckets(r, buckets, n, nb, dist);
  memcpy(copy, buckets, n * sizeof(unsigned));
  t_ref_bucket_offsets(buckets, n, nb, tile, ref);
  for (size_t j = 0; j < entries; j++) {
    if (os == 4) {
      uint32_t v = (uint32_t)ref[j];
      memcpy(want + 4 * j, &v, 4);
    } else {
      memcpy(want + 8 * j, &ref[j], 8);
    }
  }

  t_label("n=%zu buckets=%u tile=%zu %s %s host", n, nb, tile, clsort_type_name(ot),
          dist_name(dist));
  t_poison(out, (entries + GUARD) * os);
  ASSERT_OK(clsort_bucket_offsets(T_CTX, buckets, n, nb, tile, ot, out));
  ASSERT_EQ_ELEMS(out, want, entries, os);
  ASSERT_POISON(out, entries * os, (entries + GUARD) * os);
  ASSERT_EQ_ELEMS(buckets, copy, n, sizeof(unsigned));

  if (n > 0) {
    t_label("n=%zu buckets=%u tile=%zu %s %s buffer", n, nb, tile, clsort_type_name(ot),
            dist_name(dist));
    cl_command_queue q = clsort_context_queue(T_CTX);
    cl_mem bb = t_buffer(n * sizeof(cl_uint), NULL), bo = t_buffer((entries + GUARD) * os, NULL);
    cl_event written = NULL, done = NULL;
    ASSERT_CL(clEnqueueWriteBuffer(q, bb, CL_FALSE, 0, n * sizeof(cl_uint), buckets, 0, NULL,
                                   &written));
    t_defer_event(written);
    ASSERT_OK(clsort_bucket_offsets_buffer(T_CTX, bb, n, nb, tile, ot, bo, 1, &written, &done));
    ASSERT_NOT_NULL(done);
    t_defer_event(done);
    ASSERT_CL(clWaitForEvents(1, &done));
    t_read_into(bo, out, (entries + GUARD) * os);
    ASSERT_EQ_ELEMS(out, want, entries, os);
    ASSERT_POISON(out, entries * os, (entries + GUARD) * os);
    unsigned *back = t_read_buffer(bb, n * sizeof(cl_uint));
    ASSERT_EQ_ELEMS(back, copy, n, sizeof(cl_uint));
    t_release_now(back);
    t_release_now(bo);
    t_release_now(bb);
  }
  t_release_now(out);
  t_release_now(want);
  t_release_now(ref);
  t_release_now(copy);
  t_release_now(buckets);
}

static const size_t sizes[] = {0,    1,    2,    31,    32,    33,    255,   256,    257,
                               1023, 1024, 1025, 4095,  4096,  4097,  65521, 100003, 262145,
                               1000003};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* _i = bucket count index * 2 + offset type. Sizes, tiles and
 * distributions rotate so that every combination class occurs. */
T_TEST(bucket_offsets_sizes) {
  unsigned nb = bucket_counts[_i / 2];
  clsort_type ot = _i % 2 ? CLSORT_U64 : CLSORT_U32;
  t_rng r;
  t_rng_init(&r, "bucket_offsets_sizes");
  r.s[3] ^= (uint64_t)_i;
  size_t list[64], count = 0;
  for (size_t i = 0; i < NSIZES; i++) list[count++] = sizes[i];
  for (int i = 0; i < 6; i++) list[count++] = t_rng_size(&r, 1, 300000);
  for (size_t i = 0; i < count; i++) {
    size_t n = list[i];
    /* Three tiles per size, always including a large one. */
    size_t tl[3] = {tiles[(i + (size_t)_i) % NTILES], tiles[(i * 3 + 1) % NTILES], 4096};
    for (int k = 0; k < 3; k++) {
      size_t tile = tl[k];
      if (((n + tile - 1) / tile) * nb > MAX_TABLE) continue;
      check_offsets(&r, n, nb, tile, ot, (int)(i + (size_t)k));
    }
  }
}

/* Every tile size and distribution for one odd n. */
T_TEST(bucket_offsets_tiles) {
  unsigned nb = bucket_counts[_i / 2];
  clsort_type ot = _i % 2 ? CLSORT_U64 : CLSORT_U32;
  t_rng r;
  t_rng_init(&r, "bucket_offsets_tiles");
  r.s[3] ^= (uint64_t)_i;
  size_t n = 10007;
  for (size_t k = 0; k < NTILES; k++)
    for (int dist = 0; dist < 5; dist++) {
      if (((n + tiles[k] - 1) / tiles[k]) * nb > MAX_TABLE) continue;
      check_offsets(&r, n, nb, tiles[k], ot, dist);
    }
  /* Tiles that do not divide n, and a tile larger than n. */
  size_t odd[] = {3, 33, 127, 129, 1025, 10006, 10007, 10008, 20000};
  for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++) check_offsets(&r, n, nb, odd[k], ot, 0);
}

/* n == 0: no tiles, nothing written, NULL pointers allowed. */
T_TEST(bucket_offsets_zero_length) {
  unsigned nb = bucket_counts[_i / 2];
  clsort_type ot = _i % 2 ? CLSORT_U64 : CLSORT_U32;
  t_label("n=0 buckets=%u %s", nb, clsort_type_name(ot));
  unsigned char out[64];
  unsigned b[1] = {0};
  t_poison(out, sizeof out);
  ASSERT_OK(clsort_bucket_offsets(T_CTX, NULL, 0, nb, 256, ot, NULL));
  ASSERT_OK(clsort_bucket_offsets(T_CTX, b, 0, nb, 256, ot, out));
  ASSERT_POISON(out, 0, sizeof out);
  cl_event ev = NULL;
  ASSERT_OK(clsort_bucket_offsets_buffer(T_CTX, NULL, 0, nb, 256, ot, NULL, 0, NULL, &ev));
  ASSERT_NOT_NULL(ev);
  t_defer_event(ev);
  ASSERT_CL(clWaitForEvents(1, &ev));
}

/* The offsets drive a stable partition: applying them must give the
 * stable sort by bucket (a consumer's view of the same contract). */
T_TEST(bucket_offsets_partition) {
  t_rng r;
  t_rng_init(&r, "bucket_offsets_partition");
  size_t n = 50021, tile = 512, p = (n + tile - 1) / tile;
  unsigned nb = 16;
  t_label("partition n=%zu buckets=%u tile=%zu", n, nb, tile);
  unsigned *b = t_alloc(n * sizeof *b);
  uint64_t *off = t_alloc(p * nb * 8);
  uint32_t *pos = t_alloc(n * 4), *seen = t_alloc(n * 4);
  fill_buckets(&r, b, n, nb, 0);
  ASSERT_OK(clsort_bucket_offsets(T_CTX, b, n, nb, tile, CLSORT_U64, off));
  memset(seen, 0, n * 4);
  for (size_t i = 0; i < n; i++) {
    size_t j = off[(size_t)b[i] * p + i / tile]++;
    ASSERT_LT_U64(j, n);
    ASSERT_EQ_U64(seen[j], 0);
    seen[j] = 1;
    pos[j] = (uint32_t)i;
  }
  for (size_t j = 1; j < n; j++) {
    /* Buckets ascend, and within a bucket the input order is kept. */
    unsigned b0 = b[pos[j - 1]], b1 = b[pos[j]];
    ASSERT_LE_U64(b0, b1);
    if (b0 == b1) ASSERT_LT_U64(pos[j - 1], pos[j]);
  }
}

/* _i = offset type. The host form with the ids and the table against an
 * inaccessible page after them, then before them (a CPU device reads and
 * writes them in place: a byte past either end faults), and one element
 * off t_alloc's offset. */
T_TEST(bucket_offsets_guarded) {
  clsort_type ot = _i ? CLSORT_U64 : CLSORT_U32;
  size_t n = 100003, tile = 1000, os = clsort_type_size(ot);
  unsigned nb = 16;
  size_t entries = (n + tile - 1) / tile * nb;
  t_rng r;
  t_rng_init(&r, "bucket_offsets_guarded");
  unsigned *src = t_alloc(n * sizeof(unsigned));
  fill_buckets(&r, src, n, nb, 0);
  uint64_t *ref = t_alloc(entries * 8);
  t_ref_bucket_offsets(src, n, nb, tile, ref);
  for (int layout = 0; layout < 3; layout++) {
    unsigned *ids = layout < 2 ? t_guarded(n * sizeof(unsigned), layout)
                               : (unsigned *)t_alloc((n + 1) * sizeof(unsigned)) + 1;
    unsigned char *out = layout < 2 ? t_guarded(entries * os, layout)
                                    : (unsigned char *)t_alloc((entries + 1) * os) + os;
    memcpy(ids, src, n * sizeof(unsigned));
    t_label("bucket offsets %s, layout %d", clsort_type_name(ot), layout);
    ASSERT_OK(clsort_bucket_offsets(T_CTX, ids, n, nb, tile, ot, out));
    for (size_t j = 0; j < entries; j++) {
      uint64_t got = 0;
      memcpy(&got, out + j * os, os); /* little-endian: the low bytes */
      ASSERT_EQ_U64(got, ref[j]);
    }
    ASSERT_EQ_ELEMS(ids, src, n, sizeof(unsigned));
  }
}

/* _i = offset type. The ids and the table back to back in one
 * allocation, as small arrays from malloc lie (t_layout): on a CPU device
 * the regions from the aligned addresses before them overlap, and both
 * are used in place, in one buffer, from their origins. From 16 bytes
 * past a page and one element past one (of the array that comes first),
 * each in both orders; then the table a byte off its alignment, the
 * ids after it (staged). */
T_TEST(bucket_offsets_groups) {
  clsort_type ot = _i ? CLSORT_U64 : CLSORT_U32;
  size_t os = clsort_type_size(ot), is = sizeof(unsigned);
  bool cpu = clsort__cpu_shape(T_CTX);
  t_rng r;
  t_rng_init(&r, "bucket_offsets_groups");
  r.s[0] ^= (uint64_t)_i;
  static const size_t sizes[] = {1000, 100003};
  for (size_t si = 0; si < 2; si++)
    for (int layout = 4; layout >= 0; layout--) {
      size_t n = sizes[si], tile = si ? 1000 : 64;
      unsigned nb = si ? 16 : 5;
      size_t entries = (n + tile - 1) / tile * nb;
      /* A byte off: the table, whose type the call takes as void *; ids
       * off their alignment would be the caller's undefined behaviour. */
      bool reversed = layout % 2 == 1 || layout == 4;
      /* One element of the array that comes first. */
      size_t lead = layout == 4 ? 1 : layout < 2 ? 16 : reversed ? os : is;
      t_label("bucket offsets %s n=%zu, ids and table back to back %zu bytes past a page%s",
              clsort_type_name(ot), n, lead, reversed ? ", table first" : "");
      const size_t bytes[2] = {n * is, entries * os}, elems[2] = {is, os};
      t_layout l;
      t_layout_make(&l, 2, bytes, elems, lead, reversed);
      unsigned *ids = (unsigned *)(void *)l.p[0];
      fill_buckets(&r, ids, n, nb, layout);
      uint64_t *ref = t_alloc(entries * 8);
      t_ref_bucket_offsets(ids, n, nb, tile, ref);
      t_layout_snapshot(&l);
      clsort__test_take_staging(T_CTX);
      ASSERT_OK(clsort_bucket_offsets(T_CTX, ids, n, nb, tile, ot, l.p[1]));
      ASSERT_EQ_U64(clsort__test_take_staging(T_CTX) > 0, !cpu || layout == 4);
      for (size_t j = 0; j < entries; j++) {
        uint64_t got = 0;
        memcpy(&got, l.p[1] + j * os, os); /* little-endian: the low bytes */
        ASSERT_EQ_U64(got, ref[j]);
      }
      t_layout_check(&l, 1u << 1);
      t_release_now(ref);
    }
}

T_TEST(bucket_offsets_large) {
  t_rng r;
  t_rng_init(&r, "bucket_offsets_large");
  size_t n = t_slow_sizes[(size_t)_i % t_slow_sizes_count];
  unsigned nb = _i % 2 ? 256 : 16;
  clsort_type ot = _i < 2 ? CLSORT_U32 : CLSORT_U64;
  check_offsets(&r, n, nb, _i % 2 ? 4096 : 1000, ot, _i);
}

static void add(Suite *s, unsigned tiers) {
  if (tiers & T_QUICK) {
    TCase *tc = t_tcase(s, "histogram", true);
    tcase_add_loop_test(tc, bucket_offsets_sizes, 0, 10);
    tcase_add_loop_test(tc, bucket_offsets_tiles, 0, 10);
    tcase_add_loop_test(tc, bucket_offsets_zero_length, 0, 10);
    tcase_add_test(tc, bucket_offsets_partition);
    tcase_add_loop_test(tc, bucket_offsets_guarded, 0, 2);
    tcase_add_loop_test(tc, bucket_offsets_groups, 0, 2);
  }
  if (tiers & T_SLOW) {
    TCase *tc = t_tcase(s, "histogram_slow", true);
    tcase_add_loop_test(tc, bucket_offsets_large, 0, 4);
  }
}

int main(int argc, char **argv) { return t_main(argc, argv, "histogram", add); }
