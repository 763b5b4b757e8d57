/* common.c: the shared helpers of the test programs (see common.h): seed and
 * PRNG, generators, references, the leak-checking fixture and main. */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp, setenv */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS */
#include "common.h"

#include <errno.h>
#include <float.h>
#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ test context */
static char label_[512];
static char where_[640];

void t_label(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(label_, sizeof label_, fmt, ap);
  va_end(ap);
  /* For crashes, which print no assert message: every case as it starts. */
  static int trace = -1;
  if (trace < 0) trace = getenv("CLSORT_TEST_TRACE") && getenv("CLSORT_TEST_TRACE")[0];
  if (trace) fprintf(stderr, "trace: %s\n", label_);
}

const char *t_where(void) {
  snprintf(where_, sizeof where_, "[seed 0x%016" PRIx64 "%s%s]", t_seed(), label_[0] ? " | " : "",
           label_);
  return where_;
}

const char *t_status_name(clsort_status st) {
  const char *name = clsort_status_name(st);
  return name ? name : "(NULL name)";
}

const char *t_last_error(void) {
  const char *m = clsort_last_error_message();
  return m ? m : "(NULL)";
}

bool t_mem_equal(const void *got, const void *want, size_t bytes, char *msg, size_t msglen) {
  const unsigned char *g = got, *w = want;
  if (bytes == 0 || memcmp(g, w, bytes) == 0) return true;
  size_t i = 0;
  while (g[i] == w[i]) i++;
  size_t from = i >= 8 ? i - 8 : 0, to = i + 8 < bytes ? i + 8 : bytes;
  int len = snprintf(msg, msglen, "first difference at byte %zu of %zu; bytes %zu..%zu got", i,
                     bytes, from, to - 1);
  for (size_t k = from; k < to && len > 0 && (size_t)len < msglen; k++)
    len += snprintf(msg + len, msglen - (size_t)len, " %02x", g[k]);
  if (len > 0 && (size_t)len < msglen) len += snprintf(msg + len, msglen - (size_t)len, " want");
  for (size_t k = from; k < to && len > 0 && (size_t)len < msglen; k++)
    len += snprintf(msg + len, msglen - (size_t)len, " %02x", w[k]);
  return false;
}

static int hex_elem(char *dst, size_t len, const unsigned char *e, size_t esize) {
  /* Little-endian bytes printed most significant first, like a number. */
  int k = snprintf(dst, len, "0x");
  for (size_t b = esize; b-- > 0 && k > 0 && (size_t)k < len;)
    k += snprintf(dst + k, len - (size_t)k, "%02x", e[b]);
  return k;
}

bool t_elems_equal(const void *got, const void *want, size_t n, size_t esize, char *msg,
                   size_t msglen) {
  const unsigned char *g = got, *w = want;
  if (n == 0 || memcmp(g, w, n * esize) == 0) return true;
  size_t first = SIZE_MAX, bad = 0;
  for (size_t i = 0; i < n; i++) {
    if (memcmp(g + i * esize, w + i * esize, esize) != 0) {
      if (first == SIZE_MAX) first = i;
      bad++;
    }
  }
  char a[40], b[40];
  hex_elem(a, sizeof a, g + first * esize, esize);
  hex_elem(b, sizeof b, w + first * esize, esize);
  snprintf(msg, msglen, "%zu of %zu elements differ; first at %zu: got %s, want %s", bad, n, first,
           a, b);
  return false;
}

/* -------------------------------------------------------------------- seed */
static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t t_seed(void) {
  static bool have = false;
  static uint64_t seed;
  if (!have) {
    const char *env = getenv("CLSORT_TEST_SEED");
    if (env && env[0]) {
      seed = strtoull(env, NULL, 0);
    } else {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      uint64_t x = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
                   ((uint64_t)getpid() << 32);
      seed = splitmix64(&x);
    }
    have = true;
  }
  return seed;
}

void t_rng_init(t_rng *r, const char *stream) {
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a of the stream name */
  for (const char *c = stream; *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
  uint64_t x = t_seed() ^ h;
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t t_rng_next(t_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t t_rng_below(t_rng *r, uint64_t bound) {
  /* Rejection keeps it unbiased; bound is small in practice. */
  uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t x;
  do x = t_rng_next(r);
  while (x >= limit);
  return x % bound;
}

double t_rng_unit(t_rng *r) { return (double)(t_rng_next(r) >> 11) * 0x1.0p-53; }

size_t t_rng_size(t_rng *r, size_t lo, size_t hi) {
  double a = log2((double)lo + 1), b = log2((double)hi + 1);
  double e = a + (b - a) * t_rng_unit(r);
  size_t v = (size_t)exp2(e) - 1;
  return v < lo ? lo : v > hi ? hi : v;
}

/* --------------------------------------------------------------- sizes */
const size_t t_quick_sizes[] = {
    0,      1,      2,      3,      7,      31,     32,     33,     63,     64,
    65,     127,    128,    129,    255,    256,    257,    511,    512,    513,
    1023,   1024,   1025,   2047,   2048,   2049,   4095,   4096,   4097,   8191,
    8193,   16383,  16385,  32769,  65521 /* prime */, 65535, 65536, 65537 /* prime */,
    131071 /* prime */, 262145, 524287 /* prime */, 1000003 /* prime */, 1048577};
const size_t t_quick_sizes_count = sizeof t_quick_sizes / sizeof t_quick_sizes[0];
const size_t t_slow_sizes[] = {(1u << 22) - 1, 1u << 22, (1u << 22) + 1,
                               4194319 /* prime */, (1u << 23) + 1};
const size_t t_slow_sizes_count = sizeof t_slow_sizes / sizeof t_slow_sizes[0];

/* ------------------------------------------------------------------ types */
const clsort_type t_all_types[6] = {CLSORT_U32, CLSORT_I32, CLSORT_F32,
                                    CLSORT_U64, CLSORT_I64, CLSORT_F64};
const clsort_type t_narrow_types[6] = {CLSORT_U8,  CLSORT_I8,  CLSORT_U16,
                                       CLSORT_I16, CLSORT_F16, CLSORT_BF16};

bool t_type_is_half(clsort_type t) { return t == CLSORT_F16 || t == CLSORT_BF16; }
bool t_type_is_float(clsort_type t) {
  return t == CLSORT_F32 || t == CLSORT_F64 || t_type_is_half(t);
}
bool t_type_is_signed(clsort_type t) {
  return t == CLSORT_I32 || t == CLSORT_I64 || t == CLSORT_I8 || t == CLSORT_I16;
}

uint64_t t_type_mask(clsort_type t) {
  unsigned bits = (unsigned)clsort_type_size(t) * 8;
  return bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
}

/* ------------------------------------------------------------ half floats */
/* Exponent and fraction bits of the half floats: binary16 5 + 10,
 * bfloat16 8 + 7. */
static void half_format(clsort_type t, int *exp_bits, int *frac_bits) {
  *exp_bits = t == CLSORT_F16 ? 5 : 8;
  *frac_bits = t == CLSORT_F16 ? 10 : 7;
}

double t_half_to_double(clsort_type t, uint16_t h) {
  int eb, fb;
  half_format(t, &eb, &fb);
  int bias = (1 << (eb - 1)) - 1, e = (h >> fb) & ((1 << eb) - 1);
  unsigned frac = h & ((1u << fb) - 1);
  double sign = (h & 0x8000u) ? -1.0 : 1.0;
  if (e == (1 << eb) - 1) return frac ? (sign < 0 ? -NAN : NAN) : sign * INFINITY;
  if (e == 0) return sign * ldexp((double)frac, 1 - bias - fb);
  return sign * ldexp((double)(frac | (1u << fb)), e - bias - fb);
}

/* Rounds to nearest even (the tests only need some nearby value). */
uint16_t t_half_from_double(clsort_type t, double v) {
  int eb, fb;
  half_format(t, &eb, &fb);
  int bias = (1 << (eb - 1)) - 1, emax = (1 << eb) - 1;
  uint16_t sign = signbit(v) ? 0x8000u : 0;
  if (isnan(v)) return (uint16_t)(sign | (emax << fb) | (1u << (fb - 1)));
  double a = fabs(v);
  if (isinf(a)) return (uint16_t)(sign | (emax << fb));
  int e;
  frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  if (a == 0 || e - 1 < 1 - bias) {
    double q = nearbyint(ldexp(a, bias - 1 + fb)); /* multiples of the smallest subnormal */
    return (uint16_t)(sign | (uint16_t)q);        /* q == 2^fb is the smallest normal */
  }
  double q = nearbyint(ldexp(a, fb + 1 - e)); /* fb + 1 significant bits */
  if (q == ldexp(1.0, fb + 1)) {
    q /= 2;
    e++;
  }
  int biased = e - 1 + bias;
  if (biased >= emax) return (uint16_t)(sign | (emax << fb));
  return (uint16_t)(sign | (biased << fb) | ((unsigned)q & ((1u << fb) - 1)));
}

/* --------------------------------------------------------------- poison */
static const unsigned char poison_[4] = {0xDE, 0xAD, 0xBE, 0xEF};

/* The pattern's phase follows the address, so that a guard poisoned from
 * its own start (1- and 2-byte elements: any address) and one poisoned
 * with the whole buffer read the same. Every buffer the tests poison
 * starts 4-aligned (t_alloc, malloc), so copies keep the phase. */
static unsigned char poison_at(const unsigned char *b) { return poison_[(uintptr_t)b & 3]; }

void t_poison(void *p, size_t bytes) {
  unsigned char *b = p;
  for (size_t i = 0; i < bytes; i++) b[i] = poison_at(b + i);
}

bool t_poison_intact(const void *p, size_t from, size_t to, char *msg, size_t msglen) {
  const unsigned char *b = p;
  for (size_t i = from; i < to; i++) {
    if (b[i] != poison_at(b + i)) {
      snprintf(msg, msglen, "byte %zu was written (0x%02x); bytes [%zu, %zu) must stay untouched",
               i, b[i], from, to);
      return false;
    }
  }
  return true;
}

/* ---------------------------------------------------------- generators */
void t_fill_bytes(t_rng *r, void *p, size_t bytes) {
  unsigned char *b = p;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t x = t_rng_next(r);
    memcpy(b + i, &x, 8);
  }
  if (i < bytes) {
    uint64_t x = t_rng_next(r);
    memcpy(b + i, &x, bytes - i);
  }
}

void t_fill_int(t_rng *r, clsort_type t, void *p, size_t n) {
  t_fill_bytes(r, p, n * clsort_type_size(t));
}

void t_set_f(clsort_type t, void *p, size_t i, double v) {
  if (t_type_is_half(t))
    t_put_bits(t, p, i, t_half_from_double(t, v));
  else if (t == CLSORT_F32)
    ((float *)p)[i] = (float)v;
  else
    ((double *)p)[i] = v;
}

double t_get_f(clsort_type t, const void *p, size_t i) {
  if (t_type_is_half(t)) return t_half_to_double(t, (uint16_t)t_get_bits(t, p, i));
  return t == CLSORT_F32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

uint64_t t_get_bits(clsort_type t, const void *p, size_t i) {
  size_t es = clsort_type_size(t);
  const char *at = (const char *)p + es * i;
  if (es == 1) return *(const uint8_t *)at;
  if (es == 2) {
    uint16_t v;
    memcpy(&v, at, 2);
    return v;
  }
  if (es == 4) {
    uint32_t v;
    memcpy(&v, at, 4);
    return v;
  }
  uint64_t v;
  memcpy(&v, at, 8);
  return v;
}

void t_put_bits(clsort_type t, void *p, size_t i, uint64_t bits) {
  size_t es = clsort_type_size(t);
  char *at = (char *)p + es * i;
  uint8_t v8 = (uint8_t)bits;
  uint16_t v16 = (uint16_t)bits;
  uint32_t v32 = (uint32_t)bits;
  memcpy(at, es == 1 ? (void *)&v8 : es == 2 ? (void *)&v16 : es == 4 ? (void *)&v32 : (void *)&bits,
         es);
}

void t_fill_float(t_rng *r, clsort_type t, void *p, size_t n, double lo, double hi,
                  double scale) {
  for (size_t i = 0; i < n; i++) t_set_f(t, p, i, (lo + (hi - lo) * t_rng_unit(r)) * scale);
}

void t_fill_float_ints(t_rng *r, clsort_type t, void *p, size_t n, int lo, int hi) {
  for (size_t i = 0; i < n; i++)
    t_set_f(t, p, i, (double)(lo + (int)t_rng_below(r, (uint64_t)(hi - lo + 1))));
}

void t_fill_random(t_rng *r, clsort_type t, void *p, size_t n) {
  if (t_type_is_float(t))
    t_fill_float(r, t, p, n, -1.0, 2.0, 1.0);
  else
    t_fill_int(r, t, p, n);
}

/* ---------------------------------------------------------- references */

void t_ref_scan_int(clsort_type t, clsort_scan_kind kind, const void *in, void *out, size_t n) {
  /* Two's complement addition is the same for signed and unsigned, and
   * doing it in uint64_t wraps without undefined behaviour. */
  uint64_t acc = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t x = t_get_bits(t, in, i);
    if (kind == CLSORT_SCAN_INCLUSIVE) acc += x;
    t_put_bits(t, out, i, acc);
    if (kind == CLSORT_SCAN_EXCLUSIVE) acc += x;
  }
}

/* Neumaier's compensated sum: the running sum plus the lost low part. */
typedef struct ksum {
  double s, c;
} ksum;
static void ksum_add(ksum *k, double x) {
  double t = k->s + x;
  if (fabs(k->s) >= fabs(x))
    k->c += (k->s - t) + x;
  else
    k->c += (x - t) + k->s;
  k->s = t;
}
static double ksum_value(const ksum *k) { return k->s + k->c; }

double t_type_eps(clsort_type t) { return t == CLSORT_F32 ? 0x1.0p-24 : 0x1.0p-53; }

/* The library sums in the element type in tree order, blocked per
 * work-item and with carries across tiles. A tree of depth d has an error
 * bound d * u * sum|x|; the blocked carries behave like a random walk of
 * at most sqrt(n) steps. Both terms are generous for a correct scan and
 * still far below the error of a lost element or a lost tile carry in the
 * moderate ranges the tests use. */
double t_float_tol_factor(size_t n) { return 8.0 * log2((double)n + 2.0) + sqrt((double)n) + 4.0; }

bool t_check_float_scan(clsort_type t, clsort_scan_kind kind, const void *in, const void *got,
                        size_t n, char *msg, size_t msglen) {
  ksum sum = {0, 0};
  double abs_sum = 0;
  double factor = t_float_tol_factor(n) * t_type_eps(t);
  for (size_t i = 0; i < n; i++) {
    double x = t_get_f(t, in, i);
    if (kind == CLSORT_SCAN_INCLUSIVE) {
      ksum_add(&sum, x);
      abs_sum += fabs(x);
    }
    double want = ksum_value(&sum), have = t_get_f(t, got, i);
    double tol = factor * abs_sum;
    if (!(fabs(have - want) <= tol)) { /* also catches NaN */
      snprintf(msg, msglen,
               "element %zu of %zu: got %.17g, reference %.17g, |diff| %.3g > tolerance %.3g "
               "(sum|x| %.6g)",
               i, n, have, want, fabs(have - want), tol, abs_sum);
      return false;
    }
    if (kind == CLSORT_SCAN_EXCLUSIVE) {
      ksum_add(&sum, x);
      abs_sum += fabs(x);
    }
  }
  return true;
}

void t_ref_reduce(clsort_type t, clsort_reduce_op op, const void *in, size_t n, void *result,
                  double *exact, double *abs_sum) {
  if (exact) *exact = 0;
  if (abs_sum) *abs_sum = 0;
  if (t_type_is_float(t)) {
    if (op == CLSORT_REDUCE_SUM) {
      ksum s = {0, 0};
      double a = 0;
      for (size_t i = 0; i < n; i++) {
        ksum_add(&s, t_get_f(t, in, i));
        a += fabs(t_get_f(t, in, i));
      }
      t_set_f(t, result, 0, ksum_value(&s));
      if (exact) *exact = ksum_value(&s);
      if (abs_sum) *abs_sum = a;
      return;
    }
    double acc = op == CLSORT_REDUCE_MIN ? INFINITY : -INFINITY;
    bool all_nan = n > 0;
    for (size_t i = 0; i < n; i++) {
      double x = t_get_f(t, in, i);
      if (isnan(x)) continue;
      all_nan = false;
      acc = op == CLSORT_REDUCE_MIN ? fmin(acc, x) : fmax(acc, x);
    }
    t_set_f(t, result, 0, all_nan ? NAN : acc);
    return;
  }
  uint64_t acc;
  bool is_signed = t_type_is_signed(t);
  unsigned bits = (unsigned)clsort_type_size(t) * 8;
  if (op == CLSORT_REDUCE_SUM) {
    acc = 0;
    for (size_t i = 0; i < n; i++) acc += t_get_bits(t, in, i);
    t_put_bits(t, result, 0, acc);
    return;
  }
  /* Compare in a common form: signed values as int64_t, sign-extended. */
  uint64_t umax = t_type_mask(t), sign = (uint64_t)1 << (bits - 1);
  int64_t smax = (int64_t)(umax >> 1), smin = -smax - 1;
  if (is_signed) {
    int64_t a = op == CLSORT_REDUCE_MIN ? smax : smin;
    for (size_t i = 0; i < n; i++) {
      uint64_t b = t_get_bits(t, in, i);
      /* Sign-extended: the bits above the type's copy its sign bit. */
      int64_t x = (int64_t)((b & sign) ? b | ~umax : b);
      if (op == CLSORT_REDUCE_MIN ? x < a : x > a) a = x;
    }
    acc = (uint64_t)a;
  } else {
    uint64_t a = op == CLSORT_REDUCE_MIN ? umax : 0;
    for (size_t i = 0; i < n; i++) {
      uint64_t x = t_get_bits(t, in, i);
      if (op == CLSORT_REDUCE_MIN ? x < a : x > a) a = x;
    }
    acc = a;
  }
  t_put_bits(t, result, 0, acc);
}

size_t t_ref_select(size_t elem, bool split, const void *in, const unsigned char *flags,
                    void *out, size_t n) {
  const char *src = in;
  char *dst = out;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (flags[i]) memcpy(dst + elem * k++, src + elem * i, elem);
  size_t count = k;
  if (split)
    for (size_t i = 0; i < n; i++)
      if (!flags[i]) memcpy(dst + elem * k++, src + elem * i, elem);
  return count;
}

void t_ref_bucket_offsets(const unsigned *buckets, size_t n, unsigned num_buckets, size_t tile,
                          uint64_t *out) {
  size_t p = (n + tile - 1) / tile;
  memset(out, 0, sizeof(uint64_t) * p * num_buckets);
  for (size_t i = 0; i < n; i++) out[(size_t)buckets[i] * p + i / tile]++;
  uint64_t acc = 0;
  for (size_t j = 0; j < p * num_buckets; j++) {
    uint64_t c = out[j];
    out[j] = acc;
    acc += c;
  }
}

/* -------------------------------------------------------------- fixture */
clsort_context *T_CTX;

typedef struct deferred {
  void (*fn)(void *);
  void *p;
} deferred;
static deferred *deferred_;
static size_t deferred_count_, deferred_cap_;

typedef struct saved_env {
  char *name, *value; /* value NULL: was unset */
} saved_env;
static saved_env saved_env_[32];
static size_t saved_env_count_;

static double test_start_;
static bool teardown_reported_;
static char test_name_[128];

void t_test_name_(const char *name, int i) {
  snprintf(test_name_, sizeof test_name_, "%s[%d]", name, i);
}

double t_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *t_device_spec(void) {
  const char *s = getenv("CLSORT_TEST_DEVICE");
  return s && s[0] ? s : NULL;
}

clsort_status t_context_create(clsort_context **ctx) {
  return clsort_context_create(ctx, t_device_spec());
}

void t_defer(void (*fn)(void *), void *p) {
  if (deferred_count_ == deferred_cap_) {
    deferred_cap_ = deferred_cap_ ? 2 * deferred_cap_ : 64;
    deferred_ = realloc(deferred_, deferred_cap_ * sizeof *deferred_);
    if (!deferred_) abort();
  }
  deferred_[deferred_count_++] = (deferred){fn, p};
}

void t_release_now(void *p) {
  for (size_t i = deferred_count_; i-- > 0;) {
    if (deferred_[i].p == p) {
      deferred d = deferred_[i];
      memmove(deferred_ + i, deferred_ + i + 1, (deferred_count_ - i - 1) * sizeof *deferred_);
      deferred_count_--;
      d.fn(d.p);
      return;
    }
  }
  ck_abort_msg("%s: t_release_now(%p): not registered", t_where(), p);
}

/* Host arrays on a CPU device are used in place when aligned as the
 * device wants (128 bytes on PoCL), else staged. So that each test run
 * takes one of the two paths for sure, t_alloc's memory is 16 bytes past
 * a 4096-byte boundary (what malloc gives large blocks), or on the
 * boundary with CLSORT_TEST_ALIGNED=1. */
static size_t t_alloc_skip = 1; /* 1: not read yet */
static void t_alloc_free(void *p) { free((unsigned char *)p - t_alloc_skip); }
void *t_alloc(size_t bytes) {
  if (t_alloc_skip == 1) {
    const char *v = getenv("CLSORT_TEST_ALIGNED");
    t_alloc_skip = v && *v && strcmp(v, "0") != 0 ? 0 : 16;
  }
  unsigned char *raw = aligned_alloc(4096, (bytes + t_alloc_skip + 4095) / 4096 * 4096);
  if (!raw) ck_abort_msg("%s: t_alloc(%zu) failed", t_where(), bytes);
  t_defer(t_alloc_free, raw + t_alloc_skip);
  return raw + t_alloc_skip;
}

/* The mapping's address and length, for munmap. */
static void unmap_guarded(void *p) {
  size_t *h = p;
  munmap((void *)h[0], h[1]);
  free(p);
}
void *t_guarded(size_t bytes, bool at_end) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE), len = ((bytes + page - 1) / page + 2) * page;
  unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) ck_abort_msg("%s: mmap of %zu bytes failed", t_where(), len);
  size_t *h = malloc(2 * sizeof *h);
  if (!h) ck_abort_msg("%s: malloc failed", t_where());
  h[0] = (size_t)m;
  h[1] = len;
  t_defer(unmap_guarded, h);
  if (mprotect(m, page, PROT_NONE) != 0 || mprotect(m + len - page, page, PROT_NONE) != 0)
    ck_abort_msg("%s: mprotect failed", t_where());
  return at_end ? m + len - page - bytes : m + page;
}

void t_layout_make(t_layout *l, size_t count, const size_t *bytes, const size_t *elem,
                   size_t lead, bool reversed) {
  if (count > T_LAYOUT_MAX) ck_abort_msg("%s: %zu arrays in a layout", t_where(), count);
  size_t total = lead;
  for (size_t k = 0; k < count; k++) total += bytes[k] + elem[k];
  /* A page boundary to start from, and poison past the last array. */
  l->bytes = total + 4096 + 64;
  l->block = t_alloc(l->bytes);
  l->copy = t_alloc(l->bytes);
  l->count = count;
  t_poison(l->block, l->bytes);
  uintptr_t page = ((uintptr_t)l->block + 4095) & ~(uintptr_t)4095;
  size_t at = (size_t)(page - (uintptr_t)l->block) + lead;
  for (size_t k = 0; k < count; k++) {
    size_t i = reversed ? count - 1 - k : k;
    /* Right after the array before, at the next multiple of its elements
     * (the first keeps its lead, aligned or not). */
    if (k > 0) at = (at + elem[i] - 1) / elem[i] * elem[i];
    l->p[i] = l->block + at;
    l->size[i] = bytes[i];
    at += bytes[i];
  }
}

void t_layout_snapshot(t_layout *l) { memcpy(l->copy, l->block, l->bytes); }

void t_layout_check(const t_layout *l, unsigned outputs) {
  size_t from = 0;
  /* The arrays in address order: the bytes between them must hold. */
  for (;;) {
    size_t next = l->bytes, end = l->bytes;
    for (size_t i = 0; i < l->count; i++) {
      size_t at = (size_t)(l->p[i] - l->block);
      if ((outputs >> i & 1) && at >= from && at < next) {
        next = at;
        end = at + l->size[i];
      }
    }
    ASSERT_EQ_MEM(l->block + from, l->copy + from, next - from);
    if (next == l->bytes) return;
    from = end;
  }
}

static void release_ctx(void *p) { clsort_context_release(p); }
clsort_context *t_own_context(clsort_context *ctx) {
  if (ctx) t_defer(release_ctx, ctx);
  return ctx;
}

static void release_mem(void *p) { clReleaseMemObject(p); }
cl_mem t_buffer_on(cl_context c, size_t bytes, const void *init) {
  cl_int err;
  void *tmp = NULL;
  if (!init) {
    tmp = malloc(bytes);
    if (!tmp) ck_abort_msg("%s: out of host memory", t_where());
    t_poison(tmp, bytes);
    init = tmp;
  }
  cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)init, &err);
  free(tmp);
  if (err != CL_SUCCESS)
    ck_abort_msg("%s: clCreateBuffer(%zu bytes) returned %d", t_where(), bytes, err);
  t_defer(release_mem, m);
  return m;
}

cl_mem t_buffer_padded(const void *p, size_t bytes) {
  char *copy = t_alloc(bytes + 64);
  t_poison(copy, bytes + 64);
  if (p) memcpy(copy, p, bytes);
  return t_buffer(bytes + 64, copy);
}

cl_mem t_buffer(size_t bytes, const void *init) {
  return t_buffer_on(clsort_context_cl_context(T_CTX), bytes, init);
}

void t_read_into(cl_mem buf, void *dst, size_t bytes) {
  if (bytes == 0) return;
  ASSERT_CL(clEnqueueReadBuffer(clsort_context_queue(T_CTX), buf, CL_TRUE, 0, bytes, dst, 0, NULL,
                                NULL));
}

void *t_read_buffer(cl_mem buf, size_t bytes) {
  void *p = t_alloc(bytes);
  t_read_into(buf, p, bytes);
  return p;
}

static void release_event(void *p) { clReleaseEvent(p); }
void t_defer_event(cl_event e) {
  if (e) t_defer(release_event, e);
}

cl_event t_gate(void) {
  cl_int err;
  cl_event gate = clCreateUserEvent(clsort_context_cl_context(T_CTX), &err);
  ASSERT_CL(err);
  t_defer_event(gate);
  return gate;
}

void t_open_gate_checked(cl_event gate, cl_event done) {
  nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
  cl_int exec = -1;
  ASSERT_CL(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL));
  if (exec == CL_COMPLETE) ck_abort_msg("%s: completed before its wait list", t_where());
  ASSERT_CL(clSetUserEventStatus(gate, CL_COMPLETE));
}

bool t_device_has_fp64(const clsort_context *ctx) {
  cl_device_fp_config cfg = 0;
  clGetDeviceInfo(clsort_context_device(ctx), CL_DEVICE_DOUBLE_FP_CONFIG, sizeof cfg, &cfg, NULL);
  return cfg != 0;
}

struct t_watchdog {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool done, fired;
  double seconds;
  cl_event ev;
};

static void *watchdog_main(void *arg) {
  t_watchdog *w = arg;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += (time_t)w->seconds;
  pthread_mutex_lock(&w->mu);
  while (!w->done) {
    if (pthread_cond_timedwait(&w->cv, &w->mu, &until) == ETIMEDOUT) break;
  }
  if (!w->done) {
    w->fired = true;
    clSetUserEventStatus(w->ev, CL_COMPLETE);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

t_watchdog *t_watchdog_start(cl_event user_event, double seconds) {
  t_watchdog *w = calloc(1, sizeof *w);
  if (!w) abort();
  w->ev = user_event;
  w->seconds = seconds;
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  if (pthread_create(&w->thread, NULL, watchdog_main, w) != 0) abort();
  return w;
}

bool t_watchdog_stop(t_watchdog *w) {
  pthread_mutex_lock(&w->mu);
  w->done = true;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
  pthread_join(w->thread, NULL);
  bool fired = w->fired;
  pthread_mutex_destroy(&w->mu);
  pthread_cond_destroy(&w->cv);
  free(w);
  return fired;
}

void t_setenv(const char *name, const char *value) {
  /* The first save of a name holds the value to restore; loops that set
   * one variable many times (fault injection) add nothing more. */
  bool saved = false;
  for (size_t i = 0; i < saved_env_count_ && !saved; i++)
    saved = strcmp(saved_env_[i].name, name) == 0;
  if (!saved) {
    if (saved_env_count_ == sizeof saved_env_ / sizeof saved_env_[0])
      ck_abort_msg("%s: too many variables set by t_setenv", t_where());
    const char *old = getenv(name);
    saved_env_[saved_env_count_++] = (saved_env){strdup(name), old ? strdup(old) : NULL};
  }
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

void t_unsetenv(const char *name) { t_setenv(name, NULL); }

static void restore_env(void) {
  while (saved_env_count_ > 0) {
    saved_env *e = &saved_env_[--saved_env_count_];
    if (e->value)
      setenv(e->name, e->value, 1);
    else
      unsetenv(e->name);
    free(e->name);
    free(e->value);
  }
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  remove(path);
  return 0;
}
static void remove_tree(void *path) {
  nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  free(path);
}

static const char *temp_base(void) {
  const char *b = getenv("CLSORT_TEST_TMPDIR");
  if (!b || !b[0]) b = getenv("TMPDIR");
  return b && b[0] ? b : "/tmp";
}

const char *t_temp_dir(const char *tag) {
  size_t len = strlen(temp_base()) + strlen(tag) + 32;
  char *path = malloc(len);
  if (!path) abort();
  snprintf(path, len, "%s/clsort-%s-XXXXXX", temp_base(), tag);
  if (!mkdtemp(path)) ck_abort_msg("%s: mkdtemp(%s): %s", t_where(), path, strerror(errno));
  t_defer(remove_tree, path);
  return path;
}

static void setup_common(void) {
  label_[0] = '\0';
  teardown_reported_ = false;
  deferred_count_ = 0;
  test_start_ = t_now();
  if (clsort__live_contexts() != 0)
    ck_abort_msg("%s: %ld contexts alive before the test", t_where(), clsort__live_contexts());
}

void t_setup_no_ctx(void) {
  setup_common();
  T_CTX = NULL;
}

void t_setup(void) {
  setup_common();
  clsort_status st = t_context_create(&T_CTX);
  if (st != CLSORT_SUCCESS)
    ck_abort_msg("%s: clsort_context_create(%s) returned %s: %s", t_where(),
                 t_device_spec() ? t_device_spec() : "NULL", t_status_name(st), t_last_error());
}

void t_release_deferred(void) {
  /* Release in reverse order: buffers and events before the contexts
   * they belong to. */
  while (deferred_count_ > 0) {
    deferred d = deferred_[--deferred_count_];
    d.fn(d.p);
  }
}

void t_teardown(void) {
  t_release_deferred();
  clsort_context_release(T_CTX);
  T_CTX = NULL;
  restore_env();
  long live = clsort__live_contexts();
  printf("  %-48s %7.2f s\n", test_name_, t_now() - test_start_);
  test_name_[0] = '\0';
  if (live != 0 && !teardown_reported_) {
    teardown_reported_ = true;
    ck_abort_msg("%s: %ld contexts still alive after the test released everything", t_where(),
                 live);
  }
}

TCase *t_tcase(Suite *s, const char *name, bool with_ctx) {
  TCase *tc = tcase_create(name);
  tcase_add_checked_fixture(tc, with_ctx ? t_setup : t_setup_no_ctx, t_teardown);
  suite_add_tcase(s, tc);
  return tc;
}

/* ------------------------------------------------------------------ main */
static unsigned count_devices(void) {
  cl_uint np = 0;
  if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0) return 0;
  cl_platform_id plats[16];
  if (np > 16) np = 16;
  if (clGetPlatformIDs(np, plats, NULL) != CL_SUCCESS) return 0;
  unsigned total = 0;
  for (cl_uint i = 0; i < np; i++) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) == CL_SUCCESS) total += nd;
  }
  return total;
}

static void mkdir_p(const char *path) {
  if (!path || !path[0]) return;
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++) {
    if (*p == '/') {
      *p = '\0';
      mkdir(buf, 0755);
      *p = '/';
    }
  }
  mkdir(buf, 0755);
}

const char *t_part;

int t_main(int argc, char **argv, const char *name, void (*add)(Suite *s, unsigned tiers)) {
  unsigned tiers = T_QUICK | T_SLOW;
  if (argc > 2) t_part = argv[2];
  if (argc > 1) {
    if (strcmp(argv[1], "quick") == 0)
      tiers = T_QUICK;
    else if (strcmp(argv[1], "slow") == 0)
      tiers = T_SLOW;
    else if (strcmp(argv[1], "all") != 0) {
      fprintf(stderr, "usage: %s [quick|slow|all]\n", argv[0]);
      return 2;
    }
  }
  setvbuf(stdout, NULL, _IOLBF, 0);

  /* Meson reads exit status 77 as "skipped". */
  if (count_devices() == 0) {
    printf("SKIP: no OpenCL platform or device on this machine\n");
    return 77;
  }
  mkdir_p(getenv("CLSORT_CACHE_DIR"));
  mkdir_p(getenv("POCL_CACHE_DIR"));
  mkdir_p(getenv("CLSORT_TEST_TMPDIR"));
  printf("%s: seed 0x%016" PRIx64 " (replay with CLSORT_TEST_SEED=0x%016" PRIx64
         "), device spec %s, tier %s%s%s\n",
         name, t_seed(), t_seed(), t_device_spec() ? t_device_spec() : "(library default)",
         argc > 1 ? argv[1] : "all", t_part ? ", part " : "", t_part ? t_part : "");

  Suite *s = suite_create(name);
  add(s, tiers);
  SRunner *sr = srunner_create(s);
  /* No fork, whatever CK_FORK says. OpenCL drivers are not fork-safe:
   * PoCL starts its worker threads when a platform is first queried, which
   * main() must do to decide whether to skip; a child forked after that
   * inherits a driver whose threads do not exist and hangs on its first
   * enqueue. Forking before any OpenCL call would instead start a driver
   * and reload every kernel in each test. Without fork a failing assert
   * longjmps out of the test, so tests register what they allocate with
   * t_alloc/t_defer and the checked teardown frees it. */
  srunner_set_fork_status(sr, CK_NOFORK);
  double t0 = t_now();
  srunner_run_all(sr, CK_ENV);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  printf("%s: %.1f s, %d failed\n", name, t_now() - t0, failed);
  if (clsort__live_contexts() != 0) {
    printf("%s: %ld contexts leaked\n", name, clsort__live_contexts());
    failed++;
  }
  return failed ? 1 : 0;
}
