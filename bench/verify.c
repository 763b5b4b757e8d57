/* verify.c: C reference checks of every benchmarked output. */
#include "verify.h"

#include "gen.h"
#include "par.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t type_mask(key_type t) { return kt_mask(t); }

static double load_float(key_type t, const void *base, size_t i) {
  if (t == KT_F32) {
    float f;
    memcpy(&f, (const unsigned char *)base + i * 4, 4);
    return f;
  }
  double d;
  memcpy(&d, (const unsigned char *)base + i * 8, 8);
  return d;
}

/* The largest float sum below which every summation order is exact for
 * inputs that are multiples of 0.25 (two fractional bits). */
static double exact_limit(key_type t) { return t == KT_F32 ? 4194304.0 : 2251799813685248.0; }

/* A generous bound on tree-order rounding: a few ulps per level plus
 * per-thread sequential runs. Wrong results miss by whole elements. */
static double float_tolerance(key_type t, size_t n, double magnitude) {
  double eps = t == KT_F32 ? FLT_EPSILON : DBL_EPSILON;
  return (log2((double)n + 1.0) + 64.0) * eps * magnitude;
}

typedef struct scan_job {
  key_type type;
  int inclusive;
  const void *in, *out;
  uint64_t mask;
  uint64_t *offsets; /* per chunk: its sum, then the sum before it */
  size_t *bad;       /* per chunk: the first wrong index, or SIZE_MAX */
} scan_job;

static void scan_sum_chunk(size_t begin, size_t end, size_t chunk, void *user) {
  scan_job *j = user;
  uint64_t sum = 0;
  for (size_t i = begin; i < end; i++) sum += kt_load(j->type, j->in, i);
  j->offsets[chunk] = sum;
}

static void scan_check_chunk(size_t begin, size_t end, size_t chunk, void *user) {
  scan_job *j = user;
  uint64_t sum = j->offsets[chunk];
  j->bad[chunk] = SIZE_MAX;
  for (size_t i = begin; i < end; i++) {
    uint64_t x = kt_load(j->type, j->in, i);
    uint64_t expect = (j->inclusive ? sum + x : sum) & j->mask;
    if (kt_load(j->type, j->out, i) != expect) {
      j->bad[chunk] = i;
      return;
    }
    sum += x;
  }
}

int verify_scan(key_type type, int inclusive, const void *in, const void *out, size_t n, char *why,
                size_t why_size) {
  if (kt_is_float(type)) {
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
      double x = load_float(type, in, i);
      double expect = inclusive ? sum + x : sum;
      double got = load_float(type, out, i);
      double tol = expect < exact_limit(type) ? 0.0 : float_tolerance(type, n, expect);
      if (!(fabs(got - expect) <= tol)) {
        snprintf(why, why_size, "scan[%zu] = %.17g, expected %.17g (tolerance %.3g)", i, got,
                 expect, tol);
        return 0;
      }
      sum += x;
    }
    return 1;
  }
  /* Integers: chunk sums, their prefix, then every chunk checks its own
   * range from its starting offset, in parallel. */
  size_t chunks = par_chunks(n);
  scan_job j = {type, inclusive, in, out, type_mask(type), NULL, NULL};
  j.offsets = calloc(chunks, sizeof *j.offsets);
  j.bad = malloc(chunks * sizeof *j.bad);
  if (!j.offsets || !j.bad) {
    free(j.offsets);
    free(j.bad);
    snprintf(why, why_size, "out of host memory for the check");
    return 0;
  }
  par_for(n, scan_sum_chunk, &j);
  uint64_t sum = 0;
  for (size_t c = 0; c < chunks; c++) {
    uint64_t part = j.offsets[c];
    j.offsets[c] = sum;
    sum += part;
  }
  par_for(n, scan_check_chunk, &j);
  size_t first = SIZE_MAX;
  for (size_t c = 0; c < chunks; c++) first = j.bad[c] < first ? j.bad[c] : first;
  if (first != SIZE_MAX) {
    /* Recompute the expected value of the first bad element serially. */
    uint64_t prefix = 0;
    for (size_t i = 0; i < first; i++) prefix += kt_load(type, in, i);
    uint64_t expect = (inclusive ? prefix + kt_load(type, in, first) : prefix) & j.mask;
    snprintf(why, why_size, "scan[%zu] = 0x%" PRIx64 ", expected 0x%" PRIx64, first,
             kt_load(type, out, first), expect);
  }
  free(j.offsets);
  free(j.bad);
  return first == SIZE_MAX;
}

int verify_reduce(key_type type, int op, const void *in, size_t n, const void *result, char *why,
                  size_t why_size) {
  if (op == 0 && kt_is_float(type)) {
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) sum += load_float(type, in, i);
    double got = load_float(type, result, 0);
    double tol = sum < exact_limit(type) ? 0.0 : float_tolerance(type, n, sum);
    if (!(fabs(got - sum) <= tol)) {
      snprintf(why, why_size, "sum = %.17g, expected %.17g (tolerance %.3g)", got, sum, tol);
      return 0;
    }
    return 1;
  }
  uint64_t expect;
  if (op == 0) {
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += kt_load(type, in, i);
    expect = sum & type_mask(type);
  } else {
    /* Generated inputs hold no NaN and no -0.0, so the total order by bits
     * agrees with fmin/fmax here. The identity for n == 0 is the type's
     * extreme (+-inf for floats). */
    uint64_t best = op == 1 ? type_mask(type) : 0;
    for (size_t i = 0; i < n; i++) {
      uint64_t o = kt_order(type, kt_load(type, in, i));
      if (op == 1 ? o < best : o > best) best = o;
    }
    if (n == 0 && kt_is_float(type)) {
      double inf = op == 1 ? INFINITY : -INFINITY;
      uint64_t bits;
      if (type == KT_F32) {
        float f = (float)inf;
        uint32_t b32;
        memcpy(&b32, &f, 4);
        bits = b32;
      } else {
        memcpy(&bits, &inf, 8);
      }
      expect = bits;
    } else {
      expect = kt_unorder(type, best);
    }
  }
  uint64_t got = kt_load(type, result, 0);
  if (got != expect) {
    snprintf(why, why_size, "%s = 0x%" PRIx64 ", expected 0x%" PRIx64,
             op == 0 ? "sum" : op == 1 ? "min" : "max", got, expect);
    return 0;
  }
  return 1;
}

typedef struct select_job {
  size_t es;
  int split;
  const unsigned char *in, *flags, *out;
  size_t *front; /* per chunk: flagged elements before it */
  size_t kept;
  size_t *bad;   /* per chunk: first input index placed wrongly, or SIZE_MAX */
} select_job;

static void select_count_chunk(size_t begin, size_t end, size_t chunk, void *user) {
  select_job *j = user;
  size_t count = 0;
  for (size_t i = begin; i < end; i++) count += j->flags[i] != 0;
  j->front[chunk] = count;
}

static void select_check_chunk(size_t begin, size_t end, size_t chunk, void *user) {
  select_job *j = user;
  size_t front = j->front[chunk];
  size_t back = j->kept + (begin - front); /* unflagged ones before the chunk */
  j->bad[chunk] = SIZE_MAX;
  for (size_t i = begin; i < end; i++) {
    size_t at;
    if (j->flags[i]) {
      at = front++;
    } else if (j->split) {
      at = back++;
    } else {
      continue;
    }
    if (memcmp(j->out + at * j->es, j->in + i * j->es, j->es) != 0) {
      j->bad[chunk] = i;
      return;
    }
  }
}

int verify_select(size_t elem_size, int split, const void *in, const unsigned char *flags,
                  const void *out, size_t n, uint64_t count, char *why, size_t why_size) {
  size_t chunks = par_chunks(n);
  select_job j = {elem_size, split, (const unsigned char *)in, flags, (const unsigned char *)out,
                  NULL, 0, NULL};
  j.front = malloc(chunks * sizeof *j.front);
  j.bad = malloc(chunks * sizeof *j.bad);
  int ok = 0;
  if (!j.front || !j.bad) {
    snprintf(why, why_size, "out of host memory for the check");
    goto done;
  }
  par_for(n, select_count_chunk, &j);
  for (size_t c = 0; c < chunks; c++) {
    size_t part = j.front[c];
    j.front[c] = j.kept;
    j.kept += part;
  }
  if (count != j.kept) {
    snprintf(why, why_size, "count = %" PRIu64 ", expected %zu", count, j.kept);
    goto done;
  }
  par_for(n, select_check_chunk, &j);
  size_t first = SIZE_MAX;
  for (size_t c = 0; c < chunks; c++) first = j.bad[c] < first ? j.bad[c] : first;
  if (first != SIZE_MAX) {
    snprintf(why, why_size, "input[%zu] (%s) is not where a stable %s puts it", first,
             flags[first] ? "flagged" : "unflagged", split ? "split" : "compact");
    goto done;
  }
  ok = 1;
done:
  free(j.front);
  free(j.bad);
  return ok;
}

int verify_bucket_offsets(const uint32_t *buckets, size_t n, unsigned num_buckets, size_t tile,
                          int offset64, const void *offsets, char *why, size_t why_size) {
  size_t tiles = (n + tile - 1) / tile;
  size_t cells = tiles * num_buckets;
  uint64_t *table = calloc(cells ? cells : 1, sizeof *table);
  if (!table) {
    snprintf(why, why_size, "out of host memory for the reference table");
    return 0;
  }
  for (size_t i = 0; i < n; i++) table[(size_t)buckets[i] * tiles + i / tile]++;
  uint64_t sum = 0;
  int ok = 1;
  for (size_t c = 0; c < cells; c++) {
    uint64_t got = offset64 ? kt_load(KT_U64, offsets, c) : kt_load(KT_U32, offsets, c);
    if (got != sum) {
      snprintf(why, why_size, "offsets[bucket %zu, tile %zu] = %" PRIu64 ", expected %" PRIu64,
               c / tiles, c % tiles, got, sum);
      ok = 0;
      break;
    }
    sum += table[c];
  }
  free(table);
  return ok;
}

static key_hash hash_add(key_hash h, uint64_t k) {
  /* Sums commute, so any permutation hashes alike. */
  h.a += gen_rand(0x243F6A8885A308D3u, k);
  h.b += gen_rand(0x13198A2E03707344u, k ^ 0xA4093822299F31D0u);
  return h;
}

typedef struct hash_job {
  key_type type;
  const void *keys; /* NULL: hash the indices 0..n-1 */
  key_hash *parts;
} hash_job;

static void hash_chunk(size_t begin, size_t end, size_t chunk, void *user) {
  hash_job *j = user;
  key_hash h = {0, 0};
  for (size_t i = begin; i < end; i++) h = hash_add(h, j->keys ? kt_load(j->type, j->keys, i) : i);
  j->parts[chunk] = h;
}

static key_hash hash_range(key_type type, const void *keys, size_t n) {
  key_hash parts[64], h = {0, 0};
  hash_job j = {type, keys, parts};
  par_for(n, hash_chunk, &j); /* par_chunks never exceeds 64 */
  for (size_t c = 0; c < par_chunks(n); c++) {
    h.a += parts[c].a;
    h.b += parts[c].b;
  }
  return h;
}

key_hash verify_hash_keys(key_type type, const void *keys, size_t n) {
  return hash_range(type, keys, n);
}

typedef struct order_job {
  key_type type;
  const void *keys;
  int descending;
  size_t bad[64]; /* per chunk: first i with keys[i-1], keys[i] out of order */
} order_job;

static void order_chunk(size_t begin, size_t end, size_t chunk, void *user) {
  order_job *j = user;
  j->bad[chunk] = SIZE_MAX;
  /* Each chunk also compares its first key with the previous chunk's last. */
  for (size_t i = begin ? begin : 1; i < end; i++) {
    uint64_t a = kt_order(j->type, kt_load(j->type, j->keys, i - 1));
    uint64_t b = kt_order(j->type, kt_load(j->type, j->keys, i));
    if (j->descending ? a < b : a > b) {
      j->bad[chunk] = i;
      return;
    }
  }
}

int verify_sorted(key_type type, const void *keys, size_t n, int descending, char *why,
                  size_t why_size) {
  order_job j;
  j.type = type;
  j.keys = keys;
  j.descending = descending;
  par_for(n, order_chunk, &j);
  size_t first = SIZE_MAX;
  for (size_t c = 0; c < par_chunks(n); c++) first = j.bad[c] < first ? j.bad[c] : first;
  if (first == SIZE_MAX) return 1;
  snprintf(why, why_size, "keys[%zu] (0x%" PRIx64 ") and keys[%zu] (0x%" PRIx64 ") out of order",
           first - 1, kt_load(type, keys, first - 1), first, kt_load(type, keys, first));
  return 0;
}

int verify_sort_keys(key_type type, const void *out, size_t n, int descending, key_hash input,
                     char *why, size_t why_size) {
  if (!verify_sorted(type, out, n, descending, why, why_size)) return 0;
  key_hash h = verify_hash_keys(type, out, n);
  if (h.a != input.a || h.b != input.b) {
    snprintf(why, why_size, "output keys are not a permutation of the input (multiset hash differs)");
    return 0;
  }
  return 1;
}

typedef struct pairs_job {
  key_type type;
  const void *keys_in, *keys_out, *values;
  size_t value_size, n;
  int stable;
  key_hash parts[64];
  size_t bad[64];
  int reason[64]; /* 1 range, 2 travel, 3 stability */
} pairs_job;

static uint64_t load_value(const pairs_job *j, size_t i) {
  return j->value_size == 4 ? kt_load(KT_U32, j->values, i) : kt_load(KT_U64, j->values, i);
}

static void pairs_chunk(size_t begin, size_t end, size_t chunk, void *user) {
  pairs_job *j = user;
  key_hash h = {0, 0};
  j->bad[chunk] = SIZE_MAX;
  for (size_t i = begin; i < end; i++) {
    uint64_t v = load_value(j, i);
    int reason = 0;
    if (v >= j->n) {
      reason = 1;
    } else if (kt_load(j->type, j->keys_out, i) != kt_load(j->type, j->keys_in, v)) {
      reason = 2;
    } else if (j->stable && i > 0 &&
               kt_load(j->type, j->keys_out, i) == kt_load(j->type, j->keys_out, i - 1) &&
               v < load_value(j, i - 1)) {
      reason = 3;
    }
    if (reason) {
      j->bad[chunk] = i;
      j->reason[chunk] = reason;
      break;
    }
    h = hash_add(h, v);
  }
  j->parts[chunk] = h;
}

int verify_sort_pairs(key_type type, const void *keys_in, const void *keys_out,
                      const void *values_out, size_t value_size, size_t n, int descending,
                      int stable, char *why, size_t why_size) {
  if (!verify_sorted(type, keys_out, n, descending, why, why_size)) return 0;
  pairs_job *j = calloc(1, sizeof *j);
  if (!j) {
    snprintf(why, why_size, "out of host memory for the check");
    return 0;
  }
  j->type = type;
  j->keys_in = keys_in;
  j->keys_out = keys_out;
  j->values = values_out;
  j->value_size = value_size;
  j->n = n;
  j->stable = stable;
  par_for(n, pairs_chunk, j);
  size_t chunks = par_chunks(n), first = SIZE_MAX, at = 0;
  key_hash h = {0, 0};
  for (size_t c = 0; c < chunks; c++) {
    if (j->bad[c] < first) {
      first = j->bad[c];
      at = c;
    }
    h.a += j->parts[c].a;
    h.b += j->parts[c].b;
  }
  int ok = 0;
  if (first != SIZE_MAX) {
    uint64_t v = load_value(j, first);
    if (j->reason[at] == 1) {
      snprintf(why, why_size, "values[%zu] = %" PRIu64 " is out of range", first, v);
    } else if (j->reason[at] == 2) {
      snprintf(why, why_size, "keys[%zu] did not travel with its value %" PRIu64, first, v);
    } else {
      snprintf(why, why_size, "not stable: equal keys at %zu and %zu swapped", first - 1, first);
    }
  } else {
    /* Every value is in range and matches its key; the values are the
     * indices 0..n-1 exactly when their multiset hashes agree. */
    key_hash expect = hash_range(KT_U64, NULL, n);
    if (h.a != expect.a || h.b != expect.b) {
      snprintf(why, why_size, "the values are not a permutation of 0..n-1 (some repeat)");
    } else {
      ok = 1;
    }
  }
  free(j);
  return ok;
}
