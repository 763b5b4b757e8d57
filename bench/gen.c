/* gen.c: deterministic input generators shared by the tool and the peers. */
#include "gen.h"

#include "par.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const dist_names[DIST_COUNT_] = {
    "uniform", "gaussian", "bucket", "sorted", "zero",
    "poisson", "descending", "few-unique", "staggered"};

const char *gen_dist_name(gen_dist d) { return (unsigned)d < DIST_COUNT_ ? dist_names[d] : "?"; }

int gen_dist_parse(const char *name, gen_dist *out) {
  for (int d = 0; d < DIST_COUNT_; d++) {
    if (strcmp(name, dist_names[d]) == 0) {
      *out = (gen_dist)d;
      return 1;
    }
  }
  return 0;
}

uint64_t gen_case_seed(uint64_t base, const char *op, key_type type, int dist, uint64_t n) {
  uint64_t h = 0xcbf29ce484222325u; /* FNV-1a over the case's identity */
  for (const char *p = op; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3u;
  h = gen_rand(h, (uint64_t)type * 64 + (uint64_t)dist);
  return gen_rand(base ^ h, n);
}

/* Blocks of the bucket and staggered distributions (Helman et al. use one
 * per processor; 32 keeps them meaningful for every n we run). */
#define GEN_BLOCKS 32u
#define GEN_BLOCK_SHIFT 59u /* 64 - log2(GEN_BLOCKS) */

#define POISSON_LAMBDA 65536.0
#define POISSON_TABLE_BITS 16

/* Quantiles of Poisson(lambda) at 2^16 evenly spaced probabilities; one
 * lookup per key keeps generation at memory speed. */
static uint32_t *poisson_table(void) {
  size_t size = (size_t)1 << POISSON_TABLE_BITS;
  uint32_t *table = malloc(size * sizeof *table);
  if (!table) return NULL;
  double sigma = sqrt(POISSON_LAMBDA);
  long k = (long)(POISSON_LAMBDA - 12.0 * sigma);
  double cdf = 0.0;
  /* P(X < kmin) is below 1e-30: starting the sum there loses nothing. */
  double logp = (double)k * log(POISSON_LAMBDA) - POISSON_LAMBDA - lgamma((double)k + 1.0);
  double p = exp(logp);
  cdf = p;
  for (size_t j = 0; j < size; j++) {
    double u = ((double)j + 0.5) / (double)size;
    while (cdf < u) {
      k++;
      p *= POISSON_LAMBDA / (double)k;
      cdf += p;
    }
    table[j] = (uint32_t)k;
  }
  return table;
}

/* Maps a position in [0, 2^64) to a key of `type`, preserving order:
 * integers span their whole range, floats span [-1, 1). */
static uint64_t from_position(key_type type, uint64_t pos) {
  double x;
  if (kt_size(type) <= 2 && !kt_is_half(type)) return kt_unorder(type, pos >> (64 - 8 * kt_size(type)));
  if (kt_is_half(type)) {
    /* Halves of [-1, 1) in order: rounding may merge neighbours, never swap them. */
    x = ldexp((double)(pos >> 11), -52) - 1.0;
    return kt_half_from_double(type, x);
  }
  switch (type) {
    case KT_U32: return pos >> 32;
    case KT_I32: return (pos >> 32) ^ 0x80000000u;
    case KT_U64: return pos;
    case KT_I64: return pos ^ 0x8000000000000000u;
    case KT_F32: {
      x = ldexp((double)(pos >> 11), -52) - 1.0;
      float f = (float)x;
      if (f >= 1.0f) f = nextafterf(1.0f, 0.0f); /* rounding must not leave [-1, 1) */
      uint32_t bits;
      memcpy(&bits, &f, 4);
      return bits;
    }
    default: {
      x = ldexp((double)(pos >> 11), -52) - 1.0;
      uint64_t bits;
      memcpy(&bits, &x, 8);
      return bits;
    }
  }
}

/* A small non-negative integer as a key of `type`. */
static uint64_t from_integer(key_type type, uint64_t v) {
  if (kt_is_half(type)) return kt_half_from_double(type, (double)v);
  if (type == KT_F32) {
    float f = (float)v;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return bits;
  }
  if (type == KT_F64) {
    double d = (double)v;
    uint64_t bits;
    memcpy(&bits, &d, 8);
    return bits;
  }
  return v;
}

/* Everything a chunk of gen_keys needs; each element depends only on its
 * index, so chunks can run in any order on any thread. */
typedef struct keys_job {
  key_type type;
  gen_dist dist;
  void *out;
  size_t n;
  uint64_t seed, step, block_len;
  uint64_t few[16];
  const uint32_t *table;
} keys_job;

static void keys_chunk(size_t begin, size_t end, size_t chunk, void *user) {
  const keys_job *j = user;
  uint64_t seed = j->seed, n = j->n;
  (void)chunk;
  for (size_t i = begin; i < end; i++) {
    uint64_t r = gen_rand(seed, i), key;
    switch (j->dist) {
      case DIST_GAUSSIAN: {
        uint64_t s = (r >> 2) + (gen_rand(seed, i + n) >> 2) + (gen_rand(seed, i + 2 * n) >> 2) +
                     (gen_rand(seed, i + 3 * n) >> 2);
        key = from_position(j->type, s);
        break;
      }
      case DIST_BUCKET: {
        uint64_t b = i / j->block_len, k = i - b * j->block_len;
        uint64_t g = k * GEN_BLOCKS / j->block_len;
        key = from_position(j->type, (g << GEN_BLOCK_SHIFT) | (r >> (64 - GEN_BLOCK_SHIFT)));
        break;
      }
      case DIST_STAGGERED: {
        uint64_t b = i / j->block_len;
        uint64_t range = b < GEN_BLOCKS / 2 ? 2 * b + 1 : (b - GEN_BLOCKS / 2) * 2;
        key = from_position(j->type, (range << GEN_BLOCK_SHIFT) | (r >> (64 - GEN_BLOCK_SHIFT)));
        break;
      }
      case DIST_SORTED: key = from_position(j->type, (uint64_t)i * j->step); break;
      case DIST_DESCENDING: key = from_position(j->type, (n - 1 - i) * j->step); break;
      case DIST_ZERO: key = 0; break;
      case DIST_POISSON: key = from_integer(j->type, j->table[r >> (64 - POISSON_TABLE_BITS)]); break;
      case DIST_FEW_UNIQUE: key = j->few[r >> 60]; break;
      default: key = kt_is_float(j->type) ? from_position(j->type, r) : r; break;
    }
    kt_store(j->type, j->out, i, key);
  }
}

void gen_keys(key_type type, gen_dist dist, void *out, size_t n, uint64_t seed) {
  if (n == 0) return;
  keys_job j;
  memset(&j, 0, sizeof j);
  j.type = type;
  j.dist = dist;
  j.out = out;
  j.n = n;
  j.seed = seed;
  j.step = UINT64_MAX / n;
  j.block_len = (n + GEN_BLOCKS - 1) / GEN_BLOCKS;
  uint32_t *table = NULL;
  if (dist == DIST_FEW_UNIQUE) {
    for (unsigned k = 0; k < 16; k++) j.few[k] = from_position(type, gen_rand(~seed, k));
  }
  if (dist == DIST_POISSON) {
    table = poisson_table();
    if (!table) j.dist = DIST_ZERO; /* out of host memory for 256 KiB: degrade, never crash */
    j.table = table;
  }
  par_for(n, keys_chunk, &j);
  free(table);
}

typedef struct fill_job {
  key_type type;
  void *out;
  uint64_t seed;
  uint64_t threshold; /* flags */
  unsigned buckets;
  size_t value_size;
} fill_job;

static void scan_chunk(size_t begin, size_t end, size_t chunk, void *user) {
  const fill_job *j = user;
  (void)chunk;
  for (size_t i = begin; i < end; i++) {
    uint64_t r = gen_rand(j->seed, i);
    if (j->type == KT_F32) {
      float f = (float)(r & 3) * 0.25f;
      memcpy((unsigned char *)j->out + i * 4, &f, 4);
    } else if (j->type == KT_F64) {
      double d = (double)(r & 3) * 0.25;
      memcpy((unsigned char *)j->out + i * 8, &d, 8);
    } else {
      kt_store(j->type, j->out, i, r);
    }
  }
}

void gen_scan_input(key_type type, void *out, size_t n, uint64_t seed) {
  fill_job j = {type, out, seed, 0, 0, 0};
  par_for(n, scan_chunk, &j);
}

static void flags_chunk(size_t begin, size_t end, size_t chunk, void *user) {
  const fill_job *j = user;
  unsigned char *out = (unsigned char *)j->out;
  (void)chunk;
  for (size_t i = begin; i < end; i++) out[i] = (gen_rand(j->seed, i) >> 11) < j->threshold ? 1 : 0;
}

void gen_flags(unsigned char *out, size_t n, double keep, uint64_t seed) {
  /* Compare 53 random bits with keep * 2^53, exact for keep 0 and 1. */
  uint64_t threshold = keep >= 1.0 ? ((uint64_t)1 << 53) : (uint64_t)(keep * 9007199254740992.0);
  fill_job j = {KT_U32, out, seed, threshold, 0, 0};
  par_for(n, flags_chunk, &j);
}

static void buckets_chunk(size_t begin, size_t end, size_t chunk, void *user) {
  const fill_job *j = user;
  uint32_t *out = (uint32_t *)j->out;
  (void)chunk;
  for (size_t i = begin; i < end; i++) {
    out[i] = (uint32_t)(((gen_rand(j->seed, i) >> 32) * (uint64_t)j->buckets) >> 32);
  }
}

void gen_buckets(uint32_t *out, size_t n, unsigned num_buckets, uint64_t seed) {
  fill_job j = {KT_U32, out, seed, 0, num_buckets, 0};
  par_for(n, buckets_chunk, &j);
}

static void index_chunk(size_t begin, size_t end, size_t chunk, void *user) {
  const fill_job *j = user;
  (void)chunk;
  if (j->value_size == 4) {
    uint32_t *v = (uint32_t *)j->out;
    for (size_t i = begin; i < end; i++) v[i] = (uint32_t)i;
  } else {
    uint64_t *v = (uint64_t *)j->out;
    for (size_t i = begin; i < end; i++) v[i] = (uint64_t)i;
  }
}

void gen_index_values(void *values, size_t value_size, size_t n) {
  fill_job j = {KT_U32, values, 0, 0, 0, value_size};
  par_for(n, index_chunk, &j);
}

size_t gen_power_law_count(size_t n) {
  size_t c = n >= ((size_t)1 << 26) ? (size_t)1 << 16 : n / 1024;
  return c ? c : 1;
}

int gen_power_law_offsets(uint64_t *offsets, size_t count, size_t n, uint64_t seed) {
  double total = 0.0;
  /* The weights first, then the sizes from their sum. */
  double *w = malloc(count * sizeof *w);
  if (!w) return 0;
  for (size_t i = 0; i < count; i++) {
    double u = (double)(gen_rand(seed, i) >> 11) * 0x1p-53;
    w[i] = pow(1.0 - u, -1.0 / 1.5);
    total += w[i];
  }
  size_t used = 0;
  for (size_t i = 0; i < count; i++) {
    size_t size = (size_t)((double)n * w[i] / total);
    if (used + size > n) size = n - used;
    offsets[i + 1] = size;
    used += size;
  }
  for (size_t i = 0; used < n; i = (i + 1) % count, used++) offsets[i + 1]++;
  offsets[0] = 0;
  for (size_t i = 0; i < count; i++) offsets[i + 1] += offsets[i];
  free(w);
  return 1;
}
