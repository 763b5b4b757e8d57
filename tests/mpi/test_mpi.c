/* test_mpi.c: libclsort-mpi under mpirun, any number of ranks. Every
 * case is checked on every rank against a CPU reference that rank 0 sorts
 * from all ranks' inputs, plus the checks a user could make alone: the
 * slice sorted, its boundary with the next rank, counts unchanged, the
 * global multiset unchanged, stability through index payloads.
 *
 * usage: mpirun -np P test_mpi [quick|all]
 *   quick (default): every type, mode and direction, each on two
 *   distributions, two of them on all nine; all: every one on all nine
 * CLSORT_TEST_SEED=<seed> replays a run; CLSORT_TEST_DEVICE picks the device
 * (as clsort_context_create). Exit status 0 only when every rank passed. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clsort_mpi.h"

static int rank, size;
static uint64_t seed;
static long failures;
static char label[160];
/* Multiplies the counts of the cases: 1 for most, about 60 for a few
 * (beyond the bitonic sort's range, so that the radix sort runs too). */
static uint64_t scale = 1;

/* Records a failure of the current case on this rank (the first few are
 * printed, all are counted). */
static void fail(const char *fmt, ...) {
  if (failures++ < 8) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL rank %d [seed 0x%016" PRIx64 " | %s]: ", rank, seed, label);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
  }
}

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* ------------------------------------------------------------ the reference */
/* The comparison the library promises, written from its documentation:
 * floats by bits in total order, signed integers by value. */
static int compare_keys(clsort_type type, const void *a, const void *b) {
  switch (type) {
#define CMP_(T) { T x, y; memcpy(&x, a, sizeof x); memcpy(&y, b, sizeof y); return (x > y) - (x < y); }
    case CLSORT_U32: CMP_(uint32_t)
    case CLSORT_I32: CMP_(int32_t)
    case CLSORT_U64: CMP_(uint64_t)
    case CLSORT_I64: CMP_(int64_t)
    case CLSORT_U8: CMP_(uint8_t)
    case CLSORT_I8: CMP_(int8_t)
    case CLSORT_U16: CMP_(uint16_t)
    case CLSORT_I16: CMP_(int16_t)
#undef CMP_
    case CLSORT_F16:
    case CLSORT_BF16: {
      int16_t x, y; /* as f32 below, in 16 bits */
      memcpy(&x, a, 2);
      memcpy(&y, b, 2);
      int32_t xi = x < 0 ? INT16_MIN - x - 1 : x, yi = y < 0 ? INT16_MIN - y - 1 : y;
      return (xi > yi) - (xi < yi);
    }
    case CLSORT_F32: {
      int32_t x, y; /* negative floats: larger bits are smaller numbers */
      memcpy(&x, a, 4);
      memcpy(&y, b, 4);
      if (x < 0) x = INT32_MIN - x - 1;
      if (y < 0) y = INT32_MIN - y - 1;
      return (x > y) - (x < y);
    }
    case CLSORT_F64: {
      int64_t x, y;
      memcpy(&x, a, 8);
      memcpy(&y, b, 8);
      if (x < 0) x = INT64_MIN - x - 1;
      if (y < 0) y = INT64_MIN - y - 1;
      return (x > y) - (x < y);
    }
  }
  return 0;
}

/* One element of the reference: key bytes, its global input index. */
typedef struct element {
  unsigned char key[8];
  uint64_t index;
} element;

static clsort_type ref_type;
static bool ref_descending;

static int compare_elements(const void *pa, const void *pb) {
  const element *a = pa, *b = pb;
  int c = compare_keys(ref_type, a->key, b->key);
  if (ref_descending) c = -c;
  if (c) return c;
  return (a->index > b->index) - (a->index < b->index);
}

/* --------------------------------------------------------------- the inputs */
enum dist {
  UNIFORM, SORTED, REVERSED, ALL_EQUAL, FEW_UNIQUE, ZIPF, ONE_RANK, SOME_EMPTY, ODD, DISTS
};
static const char *const dist_names[] = {"uniform",    "sorted", "reversed",   "all-equal", "few-unique",
                                         "zipf",       "one-rank-holds-all", "some-ranks-empty",
                                         "odd-sizes"};

/* The binary16 (bfloat16 with `bf`) bits of the integer k, |k| < 2^15,
 * its low bits truncated: monotone in k, which is all the ordering needs. */
static uint16_t half_of_int(int64_t k, bool bf) {
  uint16_t sign = k < 0 ? 0x8000u : 0, bits = 0;
  uint64_t m = (uint64_t)(k < 0 ? -k : k);
  int e = 0, frac = bf ? 7 : 10, bias = bf ? 127 : 15;
  while ((m >> e) > 1) e++;
  if (m) {
    uint64_t f = e > frac ? m >> (e - frac) : m << (frac - e);
    bits = (uint16_t)(((uint64_t)(e + bias) << frac) | (f & ((1u << frac) - 1)));
  }
  return sign | bits;
}

/* A key from a number, in the same order as the number (floats and signed
 * types centred on zero, so that negative keys appear; the 8- and 16-bit
 * types scaled down to their range, so that neighbours may tie). */
static void key_from_number(clsort_type type, int64_t x, void *key) {
  switch (type) {
    case CLSORT_U8: { uint8_t v = (uint8_t)((uint64_t)x / 512 % 256); memcpy(key, &v, 1); break; }
    case CLSORT_I8: { int8_t v = (int8_t)((x - 50000) / 512 % 128); memcpy(key, &v, 1); break; }
    case CLSORT_U16: { uint16_t v = (uint16_t)((uint64_t)x / 2 % 65536); memcpy(key, &v, 2); break; }
    case CLSORT_I16: { int16_t v = (int16_t)((x - 50000) / 2 % 32768); memcpy(key, &v, 2); break; }
    case CLSORT_F16:
    case CLSORT_BF16: {
      uint16_t v = half_of_int((x - 50000) / 4 % 16384, type == CLSORT_BF16);
      memcpy(key, &v, 2);
      break;
    }
    case CLSORT_U32: { uint32_t v = (uint32_t)x; memcpy(key, &v, 4); break; }
    case CLSORT_I32: { int32_t v = (int32_t)(x - 50000); memcpy(key, &v, 4); break; }
    case CLSORT_F32: { float v = (float)(x - 50000) * 0.25f; memcpy(key, &v, 4); break; }
    case CLSORT_U64: { uint64_t v = (uint64_t)x << 20; memcpy(key, &v, 8); break; }
    case CLSORT_I64: { int64_t v = (x - 50000) * 1000003; memcpy(key, &v, 8); break; }
    case CLSORT_F64: { double v = (double)(x - 50000) * 0.125; memcpy(key, &v, 8); break; }
  }
}

/* Every rank's count for a case: the same on every rank (one seed). */
static void counts_for(enum dist d, uint64_t case_seed, uint64_t *counts) {
  uint64_t x = case_seed;
  for (int r = 0; r < size; r++) counts[r] = (200 + splitmix64(&x) % 301) * scale;
  if (d == ONE_RANK) {
    uint64_t total = 0;
    for (int r = 0; r < size; r++) total += counts[r], counts[r] = 0;
    counts[size / 2] = total;
  }
  if (d == SOME_EMPTY)
    for (int r = 1; r < size; r += 2) counts[r] = 0;
  if (d == ODD)
    for (int r = 0; r < size; r++) counts[r] = 1 + 13 * (uint64_t)r + splitmix64(&x) % 7;
}

static void make_keys(enum dist d, clsort_type type, uint64_t case_seed, uint64_t offset,
                      uint64_t n, uint64_t total, unsigned char *keys) {
  size_t ks = clsort_type_size(type);
  uint64_t x = case_seed ^ (UINT64_C(0x51afd7ed558ccd) * (uint64_t)(rank + 1));
  for (uint64_t i = 0; i < n; i++) {
    uint64_t g = offset + i, r = splitmix64(&x);
    switch (d) {
      case SORTED: key_from_number(type, (int64_t)g, keys + i * ks); break;
      case REVERSED: key_from_number(type, (int64_t)(total - g), keys + i * ks); break;
      case ALL_EQUAL: key_from_number(type, 7, keys + i * ks); break;
      case FEW_UNIQUE: key_from_number(type, (int64_t)(r % 5), keys + i * ks); break;
      case ZIPF: {
        double u = ((double)(r >> 11) + 1.0) * 0x1p-53;
        key_from_number(type, (int64_t)fmin(pow(u, -1.0 / 1.2), 1e6), keys + i * ks);
        break;
      }
      default: /* raw bits: every float class, NaNs and -0.0 included */
        memcpy(keys + i * ks, &r, ks);
        break;
    }
  }
}

/* ---------------------------------------------------------------- the check */
typedef struct config {
  clsort_type type;
  size_t value_size; /* 0: keys only */
  unsigned flags;
  clsort_algorithm algorithm;
} config;

/* An order-independent checksum of (key, value) pairs. */
static uint64_t pair_hash(const unsigned char *key, size_t ks, const unsigned char *value,
                          size_t vs) {
  uint64_t k = 0, v = 0;
  memcpy(&k, key, ks);
  if (vs) memcpy(&v, value, vs);
  uint64_t x = k * UINT64_C(0x9e3779b97f4a7c15) ^ (v + UINT64_C(0x632be59bd9b4e019));
  return splitmix64(&x);
}

static void checksum(const config *c, const unsigned char *keys, const unsigned char *values,
                     uint64_t n, uint64_t sums[2]) {
  size_t ks = clsort_type_size(c->type);
  uint64_t local[2] = {0, 0};
  for (uint64_t i = 0; i < n; i++) {
    local[0] += pair_hash(keys + i * ks, ks, NULL, 0);
    local[1] += pair_hash(keys + i * ks, ks, values ? values + i * c->value_size : NULL,
                          c->value_size);
  }
  MPI_Allreduce(local, sums, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
}

/* The expected slice of this rank: rank 0 gathers every input, sorts it
 * stably by (key, global index), and scatters the slices back. */
static void expected_slice(const config *c, const unsigned char *keys, uint64_t n,
                           const uint64_t *counts, const uint64_t *offsets, uint64_t total,
                           unsigned char *out_keys, uint64_t *out_index) {
  size_t ks = clsort_type_size(c->type);
  element *mine = calloc(n ? n : 1, sizeof *mine), *all = NULL;
  for (uint64_t i = 0; i < n; i++) {
    memcpy(mine[i].key, keys + i * ks, ks);
    mine[i].index = offsets[rank] + i;
  }
  int *bytes = malloc(2 * (size_t)size * sizeof *bytes);
  for (int r = 0; r < size; r++) {
    bytes[r] = (int)(counts[r] * sizeof(element));
    bytes[size + r] = (int)(offsets[r] * sizeof(element));
  }
  if (rank == 0) all = malloc((total ? total : 1) * sizeof *all);
  MPI_Gatherv(mine, (int)(n * sizeof *mine), MPI_BYTE, all, bytes, bytes + size, MPI_BYTE, 0,
              MPI_COMM_WORLD);
  if (rank == 0) {
    ref_type = c->type;
    ref_descending = (c->flags & CLSORT_DESCENDING) != 0;
    qsort(all, total, sizeof *all, compare_elements);
  }
  MPI_Scatterv(all, bytes, bytes + size, MPI_BYTE, mine, (int)(n * sizeof *mine), MPI_BYTE, 0,
               MPI_COMM_WORLD);
  for (uint64_t i = 0; i < n; i++) {
    memcpy(out_keys + i * ks, mine[i].key, ks);
    out_index[i] = mine[i].index;
  }
  free(all);
  free(bytes);
  free(mine);
}

static uint64_t value_at(const unsigned char *values, size_t vs, uint64_t i) {
  if (vs == 4) {
    uint32_t v;
    memcpy(&v, values + i * 4, 4);
    return v;
  }
  uint64_t v;
  memcpy(&v, values + i * 8, 8);
  return v;
}

/* The checks a user could make with the sorted slices alone. */
static void check_slices(const config *c, const unsigned char *keys, const unsigned char *values,
                         uint64_t n) {
  size_t ks = clsort_type_size(c->type);
  int sign = (c->flags & CLSORT_DESCENDING) ? -1 : 1;
  bool stable = (c->flags & CLSORT_STABLE) && c->value_size;
  for (uint64_t i = 1; i < n; i++) {
    int cmp = sign * compare_keys(c->type, keys + (i - 1) * ks, keys + i * ks);
    if (cmp > 0) {
      fail("slice not sorted at %" PRIu64, i);
      break;
    }
    /* Payloads are global input indices: equal keys keep their order. */
    if (stable && cmp == 0 && value_at(values, c->value_size, i - 1) >= value_at(values, c->value_size, i)) {
      fail("not stable at %" PRIu64, i);
      break;
    }
  }
  /* The boundary: among the ranks that hold keys (a communicator of
   * their own, so that empty ranks drop out), each sends its last key
   * (and its index payload) up and receives the one from below, in one
   * MPI_Sendrecv. */
  struct {
    unsigned char key[8];
    uint64_t index;
  } last = {{0}, 0}, below = {{0}, 0};
  MPI_Comm holders;
  MPI_Comm_split(MPI_COMM_WORLD, n > 0 ? 0 : MPI_UNDEFINED, rank, &holders);
  if (holders == MPI_COMM_NULL) return;
  int r, p;
  MPI_Comm_rank(holders, &r);
  MPI_Comm_size(holders, &p);
  memcpy(last.key, keys + (n - 1) * ks, ks);
  last.index = stable ? value_at(values, c->value_size, n - 1) : 0;
  MPI_Sendrecv(&last, sizeof last, MPI_BYTE, r + 1 < p ? r + 1 : MPI_PROC_NULL, 7, &below,
               sizeof below, MPI_BYTE, r > 0 ? r - 1 : MPI_PROC_NULL, 7, holders,
               MPI_STATUS_IGNORE);
  if (r > 0) {
    int cmp = sign * compare_keys(c->type, below.key, keys);
    if (cmp > 0) fail("the last key of the rank below is above this rank's first");
    if (stable && cmp == 0 && below.index >= value_at(values, c->value_size, 0))
      fail("not stable across the boundary with the rank below");
  }
  MPI_Comm_free(&holders);
}

/* One case: make the inputs, sort, check everything. */
static void run_case(clsort_context *ctx, const config *c, enum dist d, uint64_t case_seed) {
  size_t ks = clsort_type_size(c->type), vs = c->value_size;
  snprintf(label, sizeof label, "%s %s%s%s %s %s P=%d", clsort_type_name(c->type),
           vs == 0 ? "keys" : vs == 4 ? "pairs4" : "pairs8",
           (c->flags & CLSORT_STABLE) ? " stable" : "",
           (c->flags & CLSORT_DESCENDING) ? " desc" : " asc", dist_names[d],
           c->algorithm == CLSORT_AUTO ? "auto" : "radix", size);
  if (scale > 1) snprintf(label + strlen(label), sizeof label - strlen(label), " x%" PRIu64, scale);
  const char *flow = getenv("CLSORT_MPI_FLOW"), *merge = getenv("CLSORT_MPI_MERGE");
  if (flow) snprintf(label + strlen(label), sizeof label - strlen(label), " %s", flow);
  if (merge) snprintf(label + strlen(label), sizeof label - strlen(label), " %s merge", merge);
  uint64_t *counts = malloc((size_t)size * sizeof *counts);
  uint64_t *offsets = malloc(((size_t)size + 1) * sizeof *offsets);
  counts_for(d, case_seed, counts);
  offsets[0] = 0;
  for (int r = 0; r < size; r++) offsets[r + 1] = offsets[r] + counts[r];
  uint64_t n = counts[rank], total = offsets[size];

  unsigned char *keys = malloc(n * ks + 1), *values = malloc(n * vs + 1);
  unsigned char *want = malloc(n * ks + 1);
  uint64_t *want_index = malloc(n * 8 + 1);
  make_keys(d, c->type, case_seed, offsets[rank], n, total, keys);
  for (uint64_t i = 0; i < n; i++) {
    uint64_t g = offsets[rank] + i;
    memcpy(values + i * vs, &g, vs); /* little-endian: the low bytes */
  }
  uint64_t before[2], after[2];
  checksum(c, keys, vs ? values : NULL, n, before);
  expected_slice(c, keys, n, counts, offsets, total, want, want_index);

  clsort_options options = {c->algorithm, c->flags, 0, 0};
  clsort_status st =
      vs ? clsort_mpi_sort_pairs(ctx, MPI_COMM_WORLD, c->type, n ? keys : NULL,
                                 n ? values : NULL, vs, n, &options)
         : clsort_mpi_sort(ctx, MPI_COMM_WORLD, c->type, n ? keys : NULL, n, &options);
  if (st != CLSORT_SUCCESS) {
    fail("returned %s: %s", clsort_status_name(st), clsort_mpi_last_error_message());
  } else {
    if (n && memcmp(keys, want, n * ks) != 0) fail("keys differ from the reference slice");
    bool stable = (c->flags & CLSORT_STABLE) && vs;
    for (uint64_t i = 0; stable && i < n; i++)
      if (value_at(values, vs, i) != (want_index[i] & (vs == 4 ? UINT32_MAX : UINT64_MAX))) {
        fail("value %" PRIu64 " is %" PRIu64 ", the reference's %" PRIu64, i,
             value_at(values, vs, i), want_index[i]);
        break;
      }
    check_slices(c, keys, values, n);
    checksum(c, keys, vs ? values : NULL, n, after);
    if (after[0] != before[0]) fail("the key multiset changed");
    if (vs && after[1] != before[1]) fail("the (key, value) multiset changed");
    /* The exchange lands near each rank's own slice: within the sampling
     * error the header gives, two blocks of N / s per cut plus P. */
    clsort_mpi_stats stats;
    clsort_mpi_last_stats(&stats);
    /* The flow the header promises: one rank sorts first; else a named
     * flow (sort-first winning); else partition-first on CPU devices. */
    const char *named = getenv("CLSORT_MPI_FLOW");
    cl_device_type type = 0;
    clGetDeviceInfo(clsort_context_device(ctx), CL_DEVICE_TYPE, sizeof type, &type, NULL);
    bool partition = size > 1 && !(named && strcmp(named, "sort-first") == 0) &&
                     ((named && strcmp(named, "partition-first") == 0) ||
                      (type & CL_DEVICE_TYPE_CPU));
    if (clsort_mpi_last_flow() != (partition ? CLSORT_MPI_PARTITION_FIRST : CLSORT_MPI_SORT_FIRST))
      fail("the flow was %d", (int)clsort_mpi_last_flow());
    uint64_t s = 32 * (uint64_t)size < 64 ? 64 : 32 * (uint64_t)size;
    uint64_t slack = 2 * (total / s + (uint64_t)size) + 2;
    if (stats.exchange_received > n + 2 * slack)
      fail("the exchange brought %" PRIu64 " elements for a slice of %" PRIu64 " (slack %" PRIu64
           ")",
           stats.exchange_received, n, 2 * slack);
  }
  free(keys);
  free(values);
  free(want);
  free(want_index);
  free(counts);
  free(offsets);
}

/* ------------------------------------------------------------ error cases */
/* One collective call with per-rank arguments: every rank must get
 * `expect`, the same message, and unchanged arrays. */
static void expect_error(clsort_context *ctx, const char *what, clsort_status expect,
                         clsort_type type, bool null_keys, size_t value_size, unsigned flags,
                         unsigned begin_bit, clsort_algorithm algorithm) {
  snprintf(label, sizeof label, "error case: %s P=%d", what, size);
  enum { N = 100 };
  uint64_t keys[N], values[N], keys0[N], values0[N];
  uint64_t x = seed + (uint64_t)rank;
  for (int i = 0; i < N; i++) keys[i] = keys0[i] = splitmix64(&x), values[i] = values0[i] = (uint64_t)i;
  clsort_options options = {algorithm, flags, begin_bit, 0};
  clsort_status st = clsort_mpi_sort_pairs(ctx, MPI_COMM_WORLD, type, null_keys ? NULL : keys,
                                           values, value_size, N, &options);
  if (st != expect)
    fail("returned %s, expected %s (%s)", clsort_status_name(st), clsort_status_name(expect),
         clsort_mpi_last_error_message());
  if (memcmp(keys, keys0, sizeof keys) || memcmp(values, values0, sizeof values))
    fail("the input changed on error");
  /* The same message everywhere: rank 0's, compared on every rank. */
  char message[512] = "", first[512];
  snprintf(message, sizeof message, "%s", clsort_mpi_last_error_message());
  memcpy(first, message, sizeof first);
  MPI_Bcast(first, sizeof first, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (strcmp(first, message) != 0) fail("message \"%s\" differs from rank 0's \"%s\"", message, first);
  if (message[0] == '\0') fail("no message");
  if (getenv("CLSORT_TEST_TRACE") && rank == 0) fprintf(stderr, "%s: %s\n", label, message);
}

/* A failure inside the local sort on the last rank alone (libclsort's
 * fault injection, CLSORT_FAIL_ALLOC_AFTER=N: the allocation after the N
 * that creating a context makes fails): every rank must return it, none
 * may hang, and no input may change. */
static void failure_on_one_rank(void) {
  clsort_context *ctx = NULL;
  clsort_status st = CLSORT_ERROR_OUT_OF_MEMORY;
  /* The smallest N with which the context is made: its next allocation,
   * the sort's first, fails. */
  for (int after = 0; after < 64 && st == CLSORT_ERROR_OUT_OF_MEMORY; after++) {
    char text[16];
    snprintf(text, sizeof text, "%d", after);
    if (rank == size - 1) setenv("CLSORT_FAIL_ALLOC_AFTER", text, 1);
    st = clsort_context_create(&ctx, getenv("CLSORT_TEST_DEVICE"));
    unsetenv("CLSORT_FAIL_ALLOC_AFTER");
  }
  snprintf(label, sizeof label, "failure on one rank P=%d", size);
  int ok = st == CLSORT_SUCCESS, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok)
    fail("no context: %s", clsort_status_name(st));
  else
    expect_error(ctx, "an allocation failing in the last rank's local sort",
                 CLSORT_ERROR_OUT_OF_MEMORY, CLSORT_U64, false, 8, 0, 0, CLSORT_AUTO);
  clsort_context_release(ctx);
}

/* n_local whose bytes overflow size_t on the last rank: found by the
 * checks, before anything is read. */
static void too_large(clsort_context *ctx) {
  snprintf(label, sizeof label, "error case: n_local overflowing size_t P=%d", size);
  uint32_t keys[4] = {4, 3, 2, 1};
  clsort_status st = clsort_mpi_sort(ctx, MPI_COMM_WORLD, CLSORT_U32, keys,
                                     rank == size - 1 ? SIZE_MAX / 2 : 4, NULL);
  if (st != CLSORT_ERROR_TOO_LARGE)
    fail("returned %s, expected CLSORT_ERROR_TOO_LARGE", clsort_status_name(st));
  if (keys[0] != 4 || keys[3] != 1) fail("the input changed on error");
}

static void error_cases(clsort_context *ctx) {
  too_large(ctx);
  bool last = rank == size - 1, other = size > 1 && rank == 1;
  expect_error(ctx, "NULL keys on the last rank", CLSORT_ERROR_INVALID_ARGUMENT, CLSORT_U64, last,
               8, 0, 0, CLSORT_AUTO);
  expect_error(ctx, "bad value_size on the last rank", CLSORT_ERROR_INVALID_ARGUMENT, CLSORT_U64,
               false, last ? 3 : 8, 0, 0, CLSORT_AUTO);
  expect_error(ctx, "a bit range", CLSORT_ERROR_UNSUPPORTED, CLSORT_U64, false, 8, 0, 4,
               CLSORT_AUTO);
  expect_error(ctx, "stable with the bitonic sort (fails in the local sort)",
               CLSORT_ERROR_UNSUPPORTED, CLSORT_U64, false, 8, CLSORT_STABLE, 0, CLSORT_BITONIC);
  failure_on_one_rank();
  if (size > 1) {
    expect_error(ctx, "mismatched types", CLSORT_ERROR_INVALID_ARGUMENT,
                 other ? CLSORT_I64 : CLSORT_U64, false, 8, 0, 0, CLSORT_AUTO);
    expect_error(ctx, "mismatched flags", CLSORT_ERROR_INVALID_ARGUMENT, CLSORT_U64, false, 8,
                 other ? CLSORT_DESCENDING : 0, 0, CLSORT_AUTO);
    expect_error(ctx, "mismatched value sizes", CLSORT_ERROR_INVALID_ARGUMENT, CLSORT_U64, false,
                 other ? 4 : 8, 0, 0, CLSORT_AUTO);
    expect_error(ctx, "mismatched algorithms", CLSORT_ERROR_INVALID_ARGUMENT, CLSORT_U64, false,
                 8, 0, 0, other ? CLSORT_RADIX : CLSORT_AUTO);
  }
}

/* The exchange in rounds of point-to-point messages (CLSORT_MPI_MAX_COUNT
 * set tiny), checked as any case, and that it did go in rounds. */
static void fallback_cases(clsort_context *ctx) {
  setenv("CLSORT_MPI_MAX_COUNT", "96", 1);
  config c = {CLSORT_U64, 8, CLSORT_STABLE, CLSORT_AUTO};
  run_case(ctx, &c, UNIFORM, seed ^ 0xfa11);
  clsort_mpi_stats stats;
  clsort_mpi_last_stats(&stats);
  snprintf(label, sizeof label, "forced rounds P=%d", size);
  /* One rank sends nothing but to itself (a memcpy): one empty round. */
  if (stats.exchange_rounds < (size > 1 ? 2u : 1u))
    fail("the exchange went in %" PRIu64 " rounds", stats.exchange_rounds);
  /* A limit that splits keys across messages: bytes, not elements. */
  setenv("CLSORT_MPI_MAX_COUNT", "7", 1);
  config k = {CLSORT_F32, 0, 0, CLSORT_AUTO};
  run_case(ctx, &k, SOME_EMPTY, seed ^ 0xfa12);
  unsetenv("CLSORT_MPI_MAX_COUNT");
}

/* Helper threads on small data (CLSORT_MPI_HELPER_BYTES set to a page,
 * 4 threads whatever the cores): the exchanges' own parts copied beside
 * MPI, the receive buffers touched first, in shares of pages; the
 * partition (the default flow on CPU devices) in a chunk per thread, and
 * the host merge (sort-first flow) cut into a range per thread, on every
 * distribution (ties across the chunks and cuts: all-equal, few-unique). */
static void helper_cases(clsort_context *ctx) {
  setenv("CLSORT_MPI_HELPER_BYTES", "4096", 1);
  setenv("CLSORT_MPI_HOST_THREADS", "4", 1);
  scale = 60;
  config keys = {CLSORT_U32, 0, 0, CLSORT_AUTO};
  config pairs = {CLSORT_F64, 8, CLSORT_STABLE, CLSORT_AUTO};
  config desc = {CLSORT_I32, 4, CLSORT_STABLE | CLSORT_DESCENDING, CLSORT_AUTO};
  run_case(ctx, &keys, UNIFORM, seed ^ 0x4e1d);
  run_case(ctx, &pairs, ZIPF, seed ^ 0x4e1e);
  for (int d = 0; d < DISTS; d++) run_case(ctx, &desc, (enum dist)d, seed ^ (0x4e40 + (uint64_t)d));
  setenv("CLSORT_MPI_FLOW", "sort-first", 1);
  setenv("CLSORT_MPI_MERGE", "host", 1);
  for (int d = 0; d < DISTS; d++) run_case(ctx, &desc, (enum dist)d, seed ^ (0x4e20 + (uint64_t)d));
  unsetenv("CLSORT_MPI_MERGE");
  unsetenv("CLSORT_MPI_FLOW");
  scale = 1;
  unsetenv("CLSORT_MPI_HOST_THREADS");
  unsetenv("CLSORT_MPI_HELPER_BYTES");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  const char *env = getenv("CLSORT_TEST_SEED");
  if (env && *env) {
    seed = strtoull(env, NULL, 0);
  } else {
    uint64_t x = (uint64_t)time(NULL) ^ (uint64_t)clock();
    seed = splitmix64(&x);
  }
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("test_mpi: %d ranks, seed 0x%016" PRIx64 " (replay with CLSORT_TEST_SEED=0x%016" PRIx64
           ")\n",
           size, seed, seed);

  clsort_context *ctx = NULL;
  clsort_status st = clsort_mpi_context_create(&ctx, MPI_COMM_WORLD, getenv("CLSORT_TEST_DEVICE"));
  if (st != CLSORT_SUCCESS) {
    fprintf(stderr, "rank %d: no context: %s: %s\n", rank, clsort_status_name(st),
            clsort_mpi_last_error_message());
    MPI_Finalize();
    return 1;
  }

  /* Every 32- and 64-bit type, u16 and f16 for the 8- and 16-bit ones,
   * keys and both value sizes, both directions (pairs stable),
   * on every distribution ("all"), or (quick) on uniform keys plus one more
   * distribution each, rotating through all, and two configurations on
   * every distribution. */
  bool full = argc > 1 && strcmp(argv[1], "all") == 0;
  static const clsort_type types[] = {CLSORT_U32, CLSORT_I32, CLSORT_F32, CLSORT_U64,
                                      CLSORT_I64, CLSORT_F64, CLSORT_U16, CLSORT_F16};
  int cases = 0, k = 0;
  for (int t = 0; t < 8; t++)
    for (int m = 0; m < 3; m++)
      for (int desc = 0; desc < 2; desc++, k++) {
        config c = {types[t], m == 0 ? 0 : m == 1 ? 4 : 8,
                    (desc ? CLSORT_DESCENDING : 0u) | (m ? CLSORT_STABLE : 0u), CLSORT_AUTO};
        bool every = full || (t == 0 && m == 0 && desc == 0) || (t == 5 && m == 2 && desc == 1);
        for (int d = 0; d < DISTS; d++) {
          if (!every && d != UNIFORM && d != 1 + k % (DISTS - 1)) continue;
          run_case(ctx, &c, (enum dist)d, seed ^ ((uint64_t)k << 8 | (uint64_t)d));
          cases++;
        }
      }
  /* Larger slices: 12000 to 30000 keys per rank. */
  scale = 60;
  const config large[] = {{CLSORT_U32, 0, 0, CLSORT_AUTO},
                          {CLSORT_I64, 8, CLSORT_STABLE | CLSORT_DESCENDING, CLSORT_AUTO},
                          {CLSORT_F32, 4, CLSORT_STABLE, CLSORT_AUTO}};
  for (int i = 0; i < 3; i++) {
    run_case(ctx, &large[i], UNIFORM, seed ^ (0x1a49e0 + (uint64_t)i));
    run_case(ctx, &large[i], i == 1 ? ALL_EQUAL : ZIPF, seed ^ (0x1a49f0 + (uint64_t)i));
    cases += 2;
  }
  scale = 1;
  /* An explicit local algorithm, unstable pairs. */
  config radix = {CLSORT_I32, 4, 0, CLSORT_RADIX};
  run_case(ctx, &radix, FEW_UNIQUE, seed ^ 0x4ad1);
  fallback_cases(ctx);
  helper_cases(ctx);
  error_cases(ctx);
  cases += 5 + 2 * DISTS;

  /* Every flow and merge named: partition-first (the default on CPU
   * devices), and
   * sort-first with the device's re-sort and with the host merge; on
   * larger slices too, where the partition's splitters come from random
   * samples rather than from every element. */
  config merged = {CLSORT_F64, 8, CLSORT_STABLE | CLSORT_DESCENDING, CLSORT_AUTO};
  static const char *const flows[] = {"partition-first", "sort-first", "sort-first"};
  static const char *const merges[] = {"device", "device", "host"};
  for (int w = 0; w < 3; w++) {
    setenv("CLSORT_MPI_FLOW", flows[w], 1);
    setenv("CLSORT_MPI_MERGE", merges[w], 1);
    run_case(ctx, &merged, ZIPF, seed ^ (0x40 + 2 * (uint64_t)w));
    run_case(ctx, &merged, ALL_EQUAL, seed ^ (0x41 + 2 * (uint64_t)w));
    scale = 60;
    run_case(ctx, &merged, FEW_UNIQUE, seed ^ (0x60 + (uint64_t)w));
    scale = 1;
    cases += 3;
  }
  unsetenv("CLSORT_MPI_MERGE");
  unsetenv("CLSORT_MPI_FLOW");

  clsort_context_release(ctx);
  long total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("test_mpi: %d ranks, %d sort cases and the error cases: %ld failures\n", size, cases,
           total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
