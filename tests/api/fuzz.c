/* fuzz.c: clsort-fuzz, a seeded random driver over every public entry point.
 * Each case draws everything (entry point, type, algorithm, flags, bit range,
 * sizes, data, wait lists, one injected argument defect at a small rate) from
 * one 64-bit case seed, runs the call on the process's one context and checks
 * it against the C references of sort_check.c and common.c. A failing case
 * prints the command that replays it alone.
 *
 * usage: clsort-fuzz [--cases N | --seconds S] [--seed X|date] [--replay CASESEED]
 *                    [--device SPEC] [--max-n N]
 * Exit status: 0 all passed, 1 a case failed, 2 usage, 77 no OpenCL device. */
#define _POSIX_C_SOURCE 200809L
#include "sorts/sort_check.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ entry points */
enum {
  E_SORT,
  E_SORT_PAIRS,
  E_ARGSORT,
  E_SORT_BUFFER,
  E_SCAN,
  E_SCAN_BUFFER,
  E_REDUCE,
  E_REDUCE_BUFFER,
  E_COMPACT,
  E_COMPACT_BUFFER,
  E_SPLIT,
  E_SPLIT_BUFFER,
  E_BUCKETS,
  E_BUCKETS_BUFFER,
  E_MERGE,
  E_TOP_K,
  E_SELECT_KEY,
  E_SEGMENTED,
  E_NAMES,
  E_COUNT
};
static const char *const entry_names[E_COUNT] = {
    "sort",    "sort_pairs",    "argsort", "sort_buffer",    "scan",
    "scan_buffer", "reduce",    "reduce_buffer", "compact", "compact_buffer",
    "split",   "split_buffer",  "bucket_offsets", "bucket_offsets_buffer", "merge",
    "top_k",   "select",        "segmented", "names"};
/* The sorts carry most of the code, so they get most of the cases. */
static const unsigned entry_weights[E_COUNT] = {14, 14, 14, 14, 4, 4, 4, 4, 3,
                                                3,  3,  3,  3,  3,  4, 4, 2, 4, 1};

/* ----------------------------------------------------------------- config */
static struct {
  uint64_t base_seed, cases, replay_seed;
  double seconds;
  bool replay;
  const char *device, *argv0, *seed_note;
  size_t max_n;
} cfg = {.max_n = 300000};

static bool has_fp64;
static char replay_prefix[1024];

/* What the running case is, for the failure and crash messages. */
static uint64_t cur_seed;
static int cur_entry;
static bool cur_done, cur_skipped;
enum { K_OK, K_UNSUPPORTED, K_INVALID };
static int cur_kind;
static char crash_line[1200];

/* Counters for the summary line. */
static uint64_t n_cases, n_per_entry[E_COUNT], n_unsupported, n_invalid, n_failed;
#define MAX_FAILED_LISTED 64
static uint64_t failed_seeds[MAX_FAILED_LISTED];

/* --------------------------------------------------------------- seeding */
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Case i of base seed B: the i-th output of splitmix64 started at B, so
 * distinct base seeds give (for any practical count) distinct cases. */
static uint64_t case_seed(uint64_t base, uint64_t i) {
  return mix64(base + (i + 1) * 0x9E3779B97F4A7C15ull);
}

static void rng_seed(t_rng *r, uint64_t seed) {
  uint64_t x = seed;
  for (int k = 0; k < 4; k++) r->s[k] = mix64(x += 0x9E3779B97F4A7C15ull);
}

static uint64_t below(t_rng *r, uint64_t bound) { return t_rng_below(r, bound); }
static bool chance(t_rng *r, unsigned percent) { return below(r, 100) < percent; }

/* Log-uniform in [lo, hi] in integers only, so that a replay on another
 * machine (another libm) draws the same sizes. */
static size_t log_uniform(t_rng *r, size_t lo, size_t hi) {
  if (hi <= lo) return lo;
  unsigned top = 0;
  while (top < 63 && ((uint64_t)1 << (top + 1)) <= hi) top++;
  unsigned k = (unsigned)below(r, top + 1);
  uint64_t from = (uint64_t)1 << k, span = from;
  size_t v = (size_t)(from + below(r, span));
  return v < lo ? lo : v > hi ? hi : v;
}

/* Sizes skewed small: tiny ones, powers of two and their neighbours
 * (tile edges), multiples of tiles, primes, and log-uniform up to max. */
static size_t pick_n(t_rng *r, size_t max) {
  static const size_t primes[] = {3,    5,     7,     13,    31,     61,     127,    251,
                                  509,  1021,  2039,  4093,  8191,   16381,  32749,  65521,
                                  65537, 131071, 262139, 524287, 1000003};
  size_t n;
  unsigned pick = (unsigned)below(r, 100);
  unsigned lg = 0;
  while (lg < 40 && ((size_t)2 << lg) <= max) lg++;
  if (lg == 0) pick = 0;
  if (pick < 8) {
    n = (size_t)below(r, 4);
  } else if (pick < 22) {
    n = (size_t)below(r, 70);
  } else if (pick < 47) {
    n = ((size_t)1 << (1 + below(r, lg))) + (size_t)below(r, 3) - 1;
  } else if (pick < 55) {
    size_t tile = (size_t)64 << below(r, 8);
    n = tile * (1 + (size_t)below(r, 7)) + (size_t)below(r, 3) - 1;
  } else if (pick < 62) {
    n = primes[below(r, sizeof primes / sizeof primes[0])];
  } else {
    n = log_uniform(r, 1, max);
  }
  return n > max ? max : n;
}

/* ------------------------------------------------------------------ data */
/* Sources of key values that the patterns mix. Integers get their own
 * reading of each (INT_MIN/INT_MAX for the NaNs and infinities). */
enum { S_BITS, S_SPECIAL, S_NAN, S_ZERO, S_INF, S_SUBNORMAL, S_EXTREME, S_SMALL, S_WINDOW, S_COUNT };
static const char *const source_names[S_COUNT] = {"bits", "specials", "nan",   "zeros", "inf",
                                                  "subnormal", "extremes", "small", "window"};

typedef struct pattern {
  int nsrc, src[3];
  uint64_t window; /* S_WINDOW: random bits under this mask */
} pattern;

static uint64_t draw_value(t_rng *r, clsort_type t, const pattern *p) {
  unsigned bits = (unsigned)clsort_type_size(t) * 8;
  unsigned mant = t == CLSORT_F32 ? 23 : t == CLSORT_F16 ? 10 : t == CLSORT_BF16 ? 7 : 52;
  uint64_t all = t_type_mask(t), sign = (uint64_t)1 << (bits - 1);
  uint64_t mmask = ((uint64_t)1 << mant) - 1, emask = (all ^ sign) & ~mmask;
  bool fl = t_type_is_float(t);
  uint64_t x = t_rng_next(r) & all, neg = (t_rng_next(r) & 1) ? sign : 0;
  switch (p->src[below(r, (uint64_t)p->nsrc)]) {
    case S_BITS: return x;
    case S_SPECIAL: {
      size_t count;
      const uint64_t *list = t_special_list(t, &count);
      return list[below(r, count)];
    }
    case S_NAN:
      if (fl) return neg | emask | ((x & mmask) ? (x & mmask) : 1);
      return t_from_order(t, below(r, 2) ? 0 : all);
    case S_ZERO: return fl ? neg : (below(r, 2) ? 0 : all);
    case S_INF:
      if (fl) return neg | emask;
      return t_from_order(t, below(r, 2) ? below(r, 2) : all - below(r, 2));
    case S_SUBNORMAL:
      if (fl) return neg | (x & mmask);
      return (uint64_t)((int64_t)below(r, 17) - 8) & all;
    case S_EXTREME: {
      const uint64_t e[6] = {all, sign, sign - 1, 0, 1, sign + 1};
      return e[below(r, 6)];
    }
    case S_SMALL: {
      int64_t v = (int64_t)below(r, 201) - 100;
      if (!fl) return (uint64_t)v & all;
      double d = (double)v / (below(r, 2) ? 1.0 : 4.0);
      if (t_type_is_half(t)) return t_half_from_double(t, d);
      if (t == CLSORT_F32) {
        float f = (float)d;
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
      }
      uint64_t b;
      memcpy(&b, &d, 8);
      return b;
    }
    default: return x & p->window;
  }
}

/* The stable order of n keys at p, ascending or descending (the
 * reference's permutation). */
static size_t *stable_order(clsort_type t, const unsigned char *p, size_t n, bool desc) {
  clsort_options o = {CLSORT_RADIX, desc ? CLSORT_DESCENDING : 0u, 0u, 0u};
  return t_ref_permutation(t, p, n, &o);
}

static void sort_range(clsort_type t, unsigned char *p, size_t n, bool desc) {
  size_t es = clsort_type_size(t);
  size_t *perm = stable_order(t, p, n, desc);
  unsigned char *tmp = t_alloc(n * es + 1);
  t_gather(p, perm, n, es, tmp);
  memcpy(p, tmp, n * es);
  t_release_now(tmp);
  t_release_now(perm);
}

static void swap_elems(unsigned char *p, size_t es, size_t i, size_t j) {
  unsigned char tmp[8];
  memcpy(tmp, p + i * es, es);
  memcpy(p + i * es, p + j * es, es);
  memcpy(p + j * es, tmp, es);
}

/* Orders already drawn keys: as drawn, sorted, reversed, in sorted runs,
 * as an organ pipe, or sorted with a few swaps. Appends its name to desc. */
static void arrange(t_rng *r, clsort_type t, unsigned char *p, size_t n, char *desc, size_t len) {
  size_t es = clsort_type_size(t), used = strlen(desc);
  unsigned a = (unsigned)below(r, 100);
  const char *name = "";
  if (a < 55 || n < 2) {
    /* as drawn */
  } else if (a < 75) {
    sort_range(t, p, n, a >= 65);
    name = a >= 65 ? "+reverse" : "+sorted";
  } else if (a < 85) {
    size_t run = 1 + (size_t)below(r, n / (1 + below(r, 16)) + 1);
    for (size_t at = 0; at < n; at += run)
      sort_range(t, p + at * es, at + run <= n ? run : n - at, chance(r, 30));
    name = "+runs";
  } else if (a < 93) {
    sort_range(t, p, n, false);
    unsigned char *tmp = t_alloc(n * es);
    size_t front = 0, back = n;
    for (size_t i = 0; i < n; i++) memcpy(tmp + (i % 2 ? --back : front++) * es, p + i * es, es);
    memcpy(p, tmp, n * es);
    t_release_now(tmp);
    name = "+organ-pipe";
  } else {
    sort_range(t, p, n, chance(r, 30));
    for (unsigned k = 1 + (unsigned)below(r, 8); k-- > 0;)
      swap_elems(p, es, (size_t)below(r, n), (size_t)below(r, n));
    name = "+nearly-sorted";
  }
  snprintf(desc + used, len - used, "%s", name);
}

/* n keys of type t in one of the patterns: a distribution of sort_check.c,
 * a mix of up to three value sources, or a few distinct values (one: all
 * equal) drawn from such a mix; then arranged. */
static void gen_keys(t_rng *r, clsort_type t, unsigned char *p, size_t n, char *desc, size_t len) {
  unsigned kind = (unsigned)below(r, 100);
  if (kind < 25) {
    int dist = (int)below(r, D_COUNT);
    t_gen_keys(r, t, dist, p, n);
    snprintf(desc, len, "%s", t_dist_names[dist]);
    if (dist != D_SORTED && dist != D_REVERSE) arrange(r, t, p, n, desc, len);
    return;
  }
  pattern pat = {.nsrc = 1 + (int)below(r, 3)};
  unsigned bits = (unsigned)clsort_type_size(t) * 8, lo = (unsigned)below(r, bits);
  unsigned width = 1 + (unsigned)below(r, bits - lo);
  pat.window = (width >= 64 ? UINT64_MAX : (((uint64_t)1 << width) - 1)) << lo;
  int used = snprintf(desc, len, "mix(");
  for (int k = 0; k < pat.nsrc; k++) {
    pat.src[k] = (int)below(r, S_COUNT);
    used += snprintf(desc + used, len - (size_t)used, "%s%s", k ? "," : "", source_names[pat.src[k]]);
  }
  used += snprintf(desc + used, len - (size_t)used, ")");
  if (kind < 75) {
    for (size_t i = 0; i < n; i++) t_put_bits(t, p, i, draw_value(r, t, &pat));
  } else {
    uint64_t pool[24];
    size_t k = kind < 80 ? 1 : 2 + (size_t)below(r, 23);
    for (size_t j = 0; j < k; j++) pool[j] = draw_value(r, t, &pat);
    for (size_t i = 0; i < n; i++) t_put_bits(t, p, i, pool[below(r, k)]);
    snprintf(desc + used, len - (size_t)used, k == 1 ? "+all-equal" : "+few(%zu)", k);
  }
  arrange(r, t, p, n, desc, len);
}

/* Finite floats whose sums stay far from overflow: small integers (exact
 * in any order) or uniform values at a random scale; with `nonfinite`,
 * a few infinities and NaNs put in. */
static void gen_finite(t_rng *r, clsort_type t, unsigned char *p, size_t n, bool nonfinite,
                       char *desc, size_t len) {
  if (chance(r, 50)) {
    int k = 1 + (int)below(r, 50);
    t_fill_float_ints(r, t, p, n, -k, k);
    snprintf(desc, len, "ints in [-%d,%d]", k, k);
  } else {
    double scale = pow(10.0, (double)below(r, 7) - 3.0);
    t_fill_float(r, t, p, n, -1.0, 2.0, scale);
    snprintf(desc, len, "uniform in [-1,2)*%g", scale);
  }
  if (nonfinite && n > 0) {
    size_t used = strlen(desc);
    snprintf(desc + used, len - used, "+nonfinite");
    static const double specials[3] = {INFINITY, -INFINITY, NAN};
    for (unsigned k = 1 + (unsigned)below(r, 3); k-- > 0;)
      t_set_f(t, p, (size_t)below(r, n), specials[below(r, 3)]);
  }
}

/* ---------------------------------------------------------- buffer helpers */
/* A wait list drawn for a buffer call: the event of the write that filled
 * an input, a user event completed before the call, both, or none. */
typedef struct waits {
  cl_uint num;
  cl_event list[2];
} waits;

static void draw_waits(t_rng *r, waits *w, cl_event written) {
  w->num = 0;
  if (written && chance(r, 60)) w->list[w->num++] = written;
  if (chance(r, 25)) {
    cl_int err;
    cl_event user = clCreateUserEvent(clsort_context_cl_context(T_CTX), &err);
    ASSERT_CL(err);
    t_defer_event(user);
    ASSERT_CL(clSetUserEventStatus(user, CL_COMPLETE));
    w->list[w->num++] = user;
  }
}

/* A buffer of `bytes` (at least one) holding init's `init_bytes` by an
 * enqueued write (its event in *written when asked), poison after. */
static cl_mem buffer_with(const void *init, size_t init_bytes, size_t bytes, cl_event *written) {
  cl_mem b = t_buffer(bytes ? bytes : 1, NULL);
  if (written) *written = NULL;
  if (init_bytes) {
    cl_event ev = NULL;
    ASSERT_CL(clEnqueueWriteBuffer(clsort_context_queue(T_CTX), b, CL_FALSE, 0, init_bytes, init, 0,
                                   NULL, written ? &ev : NULL));
    if (written) {
      t_defer_event(ev);
      *written = ev;
    }
  }
  return b;
}

#define EVENT_SENTINEL ((cl_event)(uintptr_t)0x1)

/* After a buffer call: the returned event (when asked) completes; an
 * error leaves it unwritten. */
static void check_event(clsort_status st, bool asked, cl_event ev) {
  if (st != CLSORT_SUCCESS) {
    if (asked) ASSERT_TRUE(ev == EVENT_SENTINEL);
    ASSERT_CL(clFinish(clsort_context_queue(T_CTX)));
    return;
  }
  if (asked) {
    ASSERT_TRUE(ev != NULL && ev != EVENT_SENTINEL);
    t_defer_event(ev);
    ASSERT_CL(clWaitForEvents(1, &ev));
    cl_int exec = -1;
    ASSERT_CL(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL));
    ASSERT_EQ_I64(exec, CL_COMPLETE);
  }
  ASSERT_CL(clFinish(clsort_context_queue(T_CTX)));
}

/* The status and the thread's message agree: empty after a success, a
 * sentence after a failure. */
static void check_status(clsort_status st, clsort_status want) {
  ASSERT_STATUS(st, want);
  if (want == CLSORT_SUCCESS)
    ASSERT_STR_EMPTY(clsort_last_error_message());
  else
    ASSERT_STR_NONEMPTY(clsort_last_error_message());
}

/* Under a device memory limit (CLSORT_DEVICE_MEMORY_LIMIT, set by the
 * 'fuzz-memory-limit' test) only the host-array sorts promise to fit: they
 * go out of core. Every other call may refuse a success case with
 * CLSORT_ERROR_MEMORY_LIMIT, and is then held to what any failure promises
 * (outputs and inputs untouched). */
static void check_status_limited(clsort_status st, clsort_status *want) {
  static int limited = -1;
  if (limited < 0) {
    const char *l = getenv("CLSORT_DEVICE_MEMORY_LIMIT");
    limited = l && l[0] && strcmp(l, "0") != 0;
  }
  if (limited && *want == CLSORT_SUCCESS && st == CLSORT_ERROR_MEMORY_LIMIT) *want = st;
  check_status(st, *want);
}

/* --------------------------------------------------------------- defects */
/* One argument defect per invalid case, so that the expected status is
 * the documented one whatever order the checks run in. */
enum {
  X_NONE,
  X_CTX,         /* NULL context */
  X_TYPE,        /* unknown type */
  X_ALGORITHM,   /* unknown algorithm */
  X_FLAGS,       /* unknown flag bits */
  X_BITS,        /* bit range outside the key or empty */
  X_NULL_DATA,   /* a NULL array or buffer with n > 0 */
  X_NULL_AUX,    /* NULL values, indices, flags, count or result */
  X_PAYLOAD,     /* bad value, index or element size */
  X_TOO_LARGE,   /* n beyond the device's allocation limit */
  X_SHORT,       /* n larger than a buffer */
  X_WAIT,        /* inconsistent wait list */
  X_OP,          /* unknown scan kind or reduce op */
  X_OVERLAP,     /* compact/split output == input */
  X_BUCKETS,     /* num_buckets, tile_size or offset type out of range */
  X_COUNT
};
static const char *const defect_names[X_COUNT] = {
    "",           "NULL context", "unknown type", "unknown algorithm", "unknown flags",
    "bad bit range", "NULL data",  "NULL output", "bad element size", "n too large",
    "n beyond the buffer", "bad wait list", "unknown op", "output == input", "bad bucket args"};

/* Draws a defect among those that `allowed` (a bit set) names, at 3%. */
static int draw_defect(t_rng *r, unsigned allowed) {
  if (!chance(r, 3)) return X_NONE;
  int options[X_COUNT], count = 0;
  for (int d = 1; d < X_COUNT; d++)
    if (allowed & (1u << d)) options[count++] = d;
  return options[below(r, (uint64_t)count)];
}
#define BIT(x) (1u << (x))

static size_t huge_n(t_rng *r, size_t es) { return SIZE_MAX / es - (size_t)below(r, 1024); }

static clsort_status bad_wait(t_rng *r, cl_uint *num, const cl_event **list, cl_event *storage) {
  storage[0] = NULL;
  switch (below(r, 3)) {
    case 0: *num = 1 + (cl_uint)below(r, 3), *list = NULL; break;
    case 1: *num = 0, *list = storage; break;
    default: *num = 1, *list = storage; break; /* holds a NULL event */
  }
  return CLSORT_ERROR_INVALID_ARGUMENT;
}

/* ------------------------------------------------------------------ sorts */
static bool full_range(clsort_type t, const clsort_options *o) {
  unsigned bits = (unsigned)clsort_type_size(t) * 8;
  return o->begin_bit == 0 && (o->end_bit == 0 || o->end_bit == bits);
}

/* What the header promises for these options: f64 needs fp64; CLSORT_STABLE
 * only with radix, merge or auto; bit ranges only with radix or auto. */
static clsort_status sort_expectation(clsort_type t, const clsort_options *o) {
  if (t == CLSORT_F64 && !has_fp64) return CLSORT_ERROR_UNSUPPORTED;
  if (o->algorithm == CLSORT_AUTO || o->algorithm == CLSORT_RADIX) return CLSORT_SUCCESS;
  if ((o->flags & CLSORT_STABLE) && o->algorithm != CLSORT_MERGE) return CLSORT_ERROR_UNSUPPORTED;
  return full_range(t, o) ? CLSORT_SUCCESS : CLSORT_ERROR_UNSUPPORTED;
}

/* Whether the documented order of equal keys is the input order: radix
 * and merge always, any sort asked for CLSORT_STABLE, and auto with a bit
 * range (it then takes the radix sort). */
static bool promised_stable(clsort_type t, const clsort_options *o) {
  return o->algorithm == CLSORT_RADIX || o->algorithm == CLSORT_MERGE ||
         (o->flags & CLSORT_STABLE) || (o->algorithm == CLSORT_AUTO && !full_range(t, o));
}

static clsort_options draw_options(t_rng *r, clsort_type t) {
  clsort_options o = CLSORT_OPTIONS_DEFAULT;
  o.algorithm = (clsort_algorithm)below(r, 6);
  bool radix = o.algorithm == CLSORT_AUTO || o.algorithm == CLSORT_RADIX;
  bool stable_ok = radix || o.algorithm == CLSORT_MERGE;
  if (chance(r, 50)) o.flags |= CLSORT_DESCENDING;
  if (chance(r, stable_ok ? 30 : 8)) o.flags |= CLSORT_STABLE;
  unsigned bits = (unsigned)clsort_type_size(t) * 8;
  if (chance(r, radix ? 35 : 8)) {
    o.begin_bit = (unsigned)below(r, bits);
    o.end_bit = o.begin_bit + 1 + (unsigned)below(r, bits - o.begin_bit);
    if (o.end_bit == bits && chance(r, 50)) o.end_bit = 0;
  } else if (chance(r, 5)) {
    o.end_bit = bits; /* the full width, spelled out */
  }
  return o;
}

/* Makes the options valid and supported, for cases that test one defect. */
static void make_supported(clsort_type t, clsort_options *o) {
  if (sort_expectation(t, o) == CLSORT_SUCCESS) return;
  o->flags &= ~CLSORT_STABLE;
  o->begin_bit = o->end_bit = 0;
}

/* Applies an options defect; returns the status it must produce. */
static clsort_status options_defect(t_rng *r, int d, clsort_type *t, clsort_options *o) {
  unsigned bits = (unsigned)clsort_type_size(*t) * 8;
  switch (d) {
    case X_TYPE: {
      static const int bad[4] = {12, 13, -1, 1000};
      *t = (clsort_type)bad[below(r, 4)];
      break;
    }
    case X_ALGORITHM: o->algorithm = (clsort_algorithm)(chance(r, 80) ? 6 + (int)below(r, 10) : -1); break;
    case X_FLAGS: o->flags |= 4u << below(r, 29); break;
    case X_BITS:
      if (chance(r, 50)) {
        o->begin_bit = 0;
        o->end_bit = bits + 1 + (unsigned)below(r, 64);
      } else {
        o->end_bit = 1 + (unsigned)below(r, bits);
        o->begin_bit = o->end_bit + (unsigned)below(r, 3); /* begin >= end */
      }
      break;
    default: return CLSORT_SUCCESS;
  }
  return CLSORT_ERROR_INVALID_ARGUMENT;
}

/* The checks of one sort's output (host or buffer form): guards intact;
 * argsort's keys unchanged, else keys sorted and equal to the stable
 * reference; payloads in the reference order when the sort promises
 * stability, else each naming a distinct input with the key there. */
static void check_sorted_output(clsort_type t, const unsigned char *keys, const unsigned char *got,
                                const unsigned char *vals, size_t vs, bool indices, size_t n,
                                const clsort_options *o, bool stable) {
  size_t es = clsort_type_size(t);
  size_t *perm = t_ref_permutation(t, keys, n, o);
  unsigned char *want = t_alloc(n * es + 1);
  t_gather(keys, perm, n, es, want);
  ASSERT_POISON(got, n * es, (n + GUARD) * es);
  if (indices) {
    ASSERT_EQ_ELEMS(got, keys, n, es);
  } else {
    t_check_sorted(t, got, n, o);
    if (stable || full_range(t, o)) ASSERT_EQ_ELEMS(got, want, n, es);
  }
  if (vs) {
    if (stable)
      t_check_payload_exact(vals, vs, perm, n, indices);
    else
      t_check_payload_permutation(t, keys, want, vals, vs, n, indices);
    ASSERT_POISON(vals, n * vs, (n + GUARD) * vs);
  }
  t_release_now(want);
  t_release_now(perm);
}

/* Any key type: the six 32- and 64-bit ones, and the 8- and 16-bit ones
 * as often. */
static clsort_type draw_type(t_rng *r) {
  return below(r, 2) ? t_all_types[below(r, 6)] : t_narrow_types[below(r, 6)];
}

static void case_sort(t_rng *r, int e) {
  clsort_type t = draw_type(r);
  clsort_options o = draw_options(r, t);
  size_t n = pick_n(r, cfg.max_n);
  bool buffer = e == E_SORT_BUFFER, indices = e == E_ARGSORT;
  bool with_values = e == E_SORT_PAIRS || indices || (buffer && chance(r, 60));
  size_t vs = with_values ? (chance(r, 50) ? 8 : 4) : 0;
  bool null_options = chance(r, 10);
  unsigned allowed = BIT(X_CTX) | BIT(X_TYPE) | BIT(X_ALGORITHM) | BIT(X_FLAGS) | BIT(X_BITS) |
                     BIT(X_NULL_DATA) | BIT(X_TOO_LARGE);
  if (with_values) allowed |= BIT(X_NULL_AUX) | BIT(X_PAYLOAD);
  if (buffer) allowed |= BIT(X_SHORT) | BIT(X_WAIT) | BIT(X_PAYLOAD);
  int defect = draw_defect(r, allowed);
  if (defect) {
    make_supported(t, &o);
    if (t == CLSORT_F64 && !has_fp64) t = CLSORT_F32;
    if (n == 0) n = 1 + (size_t)below(r, 300);
    null_options = false;
  }
  if (null_options) o = (clsort_options)CLSORT_OPTIONS_DEFAULT;
  clsort_status want = defect ? CLSORT_SUCCESS : sort_expectation(t, &o);
  bool stable = promised_stable(t, &o);

  size_t es = clsort_type_size(t);
  unsigned char *keys = t_alloc(n * es + 1);
  char desc[160];
  gen_keys(r, t, keys, n, desc, sizeof desc);

  /* What the call is given; the defect changes one of these. */
  clsort_context *ctx = T_CTX;
  clsort_type ct = t;
  clsort_options co = o;
  size_t cn = n, cvs = vs;
  bool null_keys = false, null_vals = false;
  if (defect == X_CTX) ctx = NULL, want = CLSORT_ERROR_INVALID_ARGUMENT;
  if (defect >= X_TYPE && defect <= X_BITS) want = options_defect(r, defect, &ct, &co);
  if (defect == X_NULL_DATA) null_keys = true, want = CLSORT_ERROR_INVALID_ARGUMENT;
  if (defect == X_NULL_AUX) null_vals = true, want = CLSORT_ERROR_INVALID_ARGUMENT;
  if (defect == X_PAYLOAD) {
    static const size_t bad[5] = {0, 1, 2, 3, 16};
    if (buffer && !with_values) {
      cvs = 4 << below(r, 2); /* a size without a values buffer */
    } else {
      cvs = bad[below(r, 5)];
      if (buffer && cvs == 0) cvs = 2;
    }
    want = CLSORT_ERROR_INVALID_ARGUMENT;
  }
  if (defect == X_TOO_LARGE) cn = huge_n(r, es), want = CLSORT_ERROR_TOO_LARGE;
  if (defect == X_SHORT) cn = n + GUARD + 1 + (size_t)below(r, 8), want = CLSORT_ERROR_INVALID_ARGUMENT;

  char kind_desc[40] = "keys";
  if (with_values) snprintf(kind_desc, sizeof kind_desc, "%zu-byte %s", vs, indices ? "indices" : "values");
  t_label("case 0x%016" PRIx64 ": %s %s n=%zu %s%s, %s, %s%s%s", cur_seed, entry_names[e],
          clsort_type_name(t), n, null_options ? "NULL options = " : "",
          t_opt_name(&o), kind_desc, desc, defect ? "; defect: " : "", defect_names[defect]);
  if (want != CLSORT_SUCCESS) cur_kind = defect ? K_INVALID : K_UNSUPPORTED;
  const clsort_options *op = null_options ? NULL : &co;

  unsigned char *work = t_alloc((n + GUARD) * es), *vals = t_alloc((n + GUARD) * 8 + 1),
                *vals_in = t_alloc((n + GUARD) * 8 + 1);
  memcpy(work, keys, n * es);
  t_poison(work + n * es, GUARD * es);
  if (indices)
    t_poison(vals, (n + GUARD) * vs);
  else if (vs) {
    t_fill_pair_values(vals, vs, n);
    t_poison(vals + n * vs, GUARD * vs);
  }
  memcpy(vals_in, vals, (n + GUARD) * vs);

  if (!buffer) {
    clsort_status st;
    void *kp = null_keys ? NULL : work, *vp = null_vals ? NULL : vals;
    if (e == E_SORT)
      st = clsort_sort(ctx, ct, kp, cn, op);
    else if (e == E_SORT_PAIRS)
      st = clsort_sort_pairs(ctx, ct, kp, vp, cvs, cn, op);
    else
      st = clsort_argsort(ctx, ct, kp, vp, cvs, cn, op);
    check_status(st, want);
    if (want != CLSORT_SUCCESS) {
      ASSERT_EQ_ELEMS(work, keys, n, es);
      ASSERT_POISON(work, n * es, (n + GUARD) * es);
      ASSERT_EQ_MEM(vals, vals_in, (n + GUARD) * vs);
    } else {
      check_sorted_output(t, keys, work, vals, vs, indices, n, &o, stable);
    }
  } else {
    /* Device buffers with GUARD elements after n, filled by enqueued
     * writes; n == 0 may pass NULL buffers. */
    bool null_bufs = n == 0 && chance(r, 50);
    cl_event written = NULL;
    cl_mem kb = null_bufs ? NULL : buffer_with(work, (n + GUARD) * es, (n + GUARD) * es, &written);
    cl_mem vb = null_bufs || !with_values ? NULL : buffer_with(vals, (n + GUARD) * vs, (n + GUARD) * vs, NULL);
    waits w;
    draw_waits(r, &w, written);
    cl_uint num = w.num;
    const cl_event *list = num ? w.list : NULL;
    cl_event storage[1];
    if (defect == X_WAIT) want = bad_wait(r, &num, &list, storage);
    /* The values buffer and its size as given: a keys-only sort passes
     * NULL and 0 unless the defect is a size without a buffer. */
    size_t pass_vs = vb || defect == X_PAYLOAD || null_vals ? cvs : 0;
    bool ask = chance(r, 50);
    cl_event ev = EVENT_SENTINEL;
    clsort_status st = clsort_sort_buffer(ctx, ct, null_keys ? NULL : kb, null_vals ? NULL : vb,
                                          pass_vs, cn, op, num, list, ask ? &ev : NULL);
    check_status_limited(st, &want);
    check_event(st, ask, ev);
    if (!null_bufs) {
      unsigned char *got = t_read_buffer(kb, (n + GUARD) * es);
      unsigned char *gv = vb ? t_read_buffer(vb, (n + GUARD) * vs) : NULL;
      if (want != CLSORT_SUCCESS) {
        ASSERT_EQ_MEM(got, work, (n + GUARD) * es);
        if (gv) ASSERT_EQ_MEM(gv, vals_in, (n + GUARD) * vs);
      } else {
        check_sorted_output(t, keys, got, gv, vb ? vs : 0, false, n, &o, stable);
      }
    }
  }
}

/* ------------------------------------------------------------ scan/reduce */
/* Which of +inf, -inf and NaN a float prefix holds, and so what its sum
 * must be whatever the order: NaN, +inf, -inf, or finite (0). */
typedef struct nonfinite {
  bool nan, pinf, ninf;
} nonfinite;
static void nonfinite_add(nonfinite *c, double x) {
  if (isnan(x)) c->nan = true;
  if (x == INFINITY) c->pinf = true;
  if (x == -INFINITY) c->ninf = true;
}
static void check_nonfinite_sum(const nonfinite *c, double got, size_t at) {
  bool nan = c->nan || (c->pinf && c->ninf);
  if (nan ? !isnan(got) : c->pinf ? got != INFINITY : got != -INFINITY)
    ck_abort_msg("%s: element %zu is %.17g, want %s", t_where(), at, got,
                 nan ? "NaN" : c->pinf ? "+inf" : "-inf");
}

/* A float scan: exact prefixes within the tolerance of common.c; once a
 * prefix holds an infinity or a NaN, the value that forces. */
static void check_float_scan(clsort_type t, clsort_scan_kind kind, const unsigned char *in,
                             const unsigned char *got, size_t n) {
  size_t first = n;
  for (size_t i = 0; i < n && first == n; i++)
    if (!isfinite(t_get_f(t, in, i))) first = i;
  /* Outputs before `finite` depend on finite inputs only. */
  size_t finite = kind == CLSORT_SCAN_INCLUSIVE ? first : (first < n ? first + 1 : n);
  char msg[512];
  if (!t_check_float_scan(t, kind, in, got, finite, msg, sizeof msg))
    ck_abort_msg("%s: %s", t_where(), msg);
  nonfinite c = {false, false, false};
  for (size_t i = 0; i < n; i++) {
    if (kind == CLSORT_SCAN_INCLUSIVE) nonfinite_add(&c, t_get_f(t, in, i));
    if (i >= finite) check_nonfinite_sum(&c, t_get_f(t, got, i), i);
    if (kind == CLSORT_SCAN_EXCLUSIVE) nonfinite_add(&c, t_get_f(t, in, i));
  }
}

static void gen_numbers(t_rng *r, clsort_type t, bool sum, unsigned char *p, size_t n, char *desc,
                        size_t len) {
  if (t_type_is_float(t) && sum)
    gen_finite(r, t, p, n, chance(r, 20), desc, len);
  else
    gen_keys(r, t, p, n, desc, len);
}

static const char *const op_names[3] = {"sum", "min", "max"};

static void case_scan(t_rng *r, int e) {
  bool buffer = e == E_SCAN_BUFFER;
  clsort_type t = draw_type(r);
  clsort_scan_kind kind = (clsort_scan_kind)below(r, 2);
  size_t n = pick_n(r, cfg.max_n), es;
  bool in_place = chance(r, 25);
  unsigned allowed = BIT(X_CTX) | BIT(X_TYPE) | BIT(X_NULL_DATA) | BIT(X_TOO_LARGE) | BIT(X_OP);
  if (buffer) allowed |= BIT(X_SHORT) | BIT(X_WAIT);
  int defect = draw_defect(r, allowed);
  if (defect) {
    if (t == CLSORT_F64 && !has_fp64) t = CLSORT_F32;
    if (t_type_is_half(t)) t = CLSORT_I16; /* refused before any defect is seen */
    if (n == 0) n = 1 + (size_t)below(r, 300);
  }
  es = clsort_type_size(t);
  unsigned char *in = t_alloc((n + GUARD) * es), *copy = t_alloc((n + GUARD) * es),
                *out = t_alloc((n + GUARD) * es);
  char desc[160];
  gen_numbers(r, t, true, in, n, desc, sizeof desc);
  t_poison(in + n * es, GUARD * es);
  memcpy(copy, in, (n + GUARD) * es);
  t_poison(out, (n + GUARD) * es);

  clsort_context *ctx = T_CTX;
  clsort_type ct = t;
  clsort_scan_kind ck = kind;
  size_t cn = n;
  bool refused = (t == CLSORT_F64 && !has_fp64) || t_type_is_half(t); /* half: no scans */
  clsort_status want = refused ? CLSORT_ERROR_UNSUPPORTED : CLSORT_SUCCESS;
  if (defect) want = CLSORT_ERROR_INVALID_ARGUMENT;
  if (defect == X_CTX) ctx = NULL;
  if (defect == X_TYPE) ct = (clsort_type)(12 + (int)below(r, 4));
  if (defect == X_OP) ck = (clsort_scan_kind)(2 + (int)below(r, 5));
  if (defect == X_TOO_LARGE) cn = huge_n(r, es), want = CLSORT_ERROR_TOO_LARGE;
  if (defect == X_SHORT) cn = n + GUARD + 1 + (size_t)below(r, 8);
  t_label("case 0x%016" PRIx64 ": %s %s %s n=%zu%s, %s%s%s", cur_seed, entry_names[e],
          clsort_type_name(t), kind ? "inclusive" : "exclusive", n, in_place ? " in place" : "",
          desc, defect ? "; defect: " : "", defect_names[defect]);
  if (want != CLSORT_SUCCESS) cur_kind = defect ? K_INVALID : K_UNSUPPORTED;

  unsigned char *result;
  if (!buffer) {
    void *ip = in, *outp = in_place ? (void *)in : (void *)out;
    if (defect == X_NULL_DATA) {
      if (chance(r, 50))
        ip = NULL;
      else
        outp = NULL;
    }
    check_status_limited(clsort_scan(ctx, ct, ck, ip, outp, cn), &want);
    result = in_place ? in : out;
    if (!in_place || want != CLSORT_SUCCESS) ASSERT_EQ_MEM(in, copy, (n + GUARD) * es);
  } else {
    cl_event written;
    cl_mem bin = buffer_with(in, (n + GUARD) * es, (n + GUARD) * es, &written);
    cl_mem bout = in_place ? bin : buffer_with(NULL, 0, (n + GUARD) * es, NULL);
    if (n == 0 && chance(r, 50)) bin = bout = NULL;
    waits w;
    draw_waits(r, &w, bin ? written : NULL);
    cl_uint num = w.num;
    const cl_event *list = num ? w.list : NULL;
    cl_event storage[1];
    if (defect == X_WAIT) bad_wait(r, &num, &list, storage);
    cl_mem ci = bin, co = bout;
    if (defect == X_NULL_DATA) {
      if (chance(r, 50))
        ci = NULL;
      else
        co = NULL;
    }
    bool ask = chance(r, 50);
    cl_event ev = EVENT_SENTINEL;
    clsort_status st = clsort_scan_buffer(ctx, ct, ck, ci, co, cn, num, list, ask ? &ev : NULL);
    check_status_limited(st, &want);
    check_event(st, ask, ev);
    if (!bin) return;
    unsigned char *gin = t_read_buffer(bin, (n + GUARD) * es);
    result = in_place ? gin : t_read_buffer(bout, (n + GUARD) * es);
    if (!in_place || want != CLSORT_SUCCESS) ASSERT_EQ_MEM(gin, copy, (n + GUARD) * es);
    if (!in_place && want != CLSORT_SUCCESS) ASSERT_POISON(result, 0, (n + GUARD) * es);
  }
  if (want != CLSORT_SUCCESS) {
    if (!in_place) ASSERT_POISON(result, 0, (n + GUARD) * es);
    return;
  }
  ASSERT_POISON(result, n * es, (n + GUARD) * es);
  if (t_type_is_float(t)) {
    check_float_scan(t, kind, copy, result, n);
  } else {
    unsigned char *ref = t_alloc(n * es + 1);
    t_ref_scan_int(t, kind, copy, ref, n);
    ASSERT_EQ_ELEMS(result, ref, n, es);
  }
}

/* A float min/max against the reference: NaN only when every input is
 * NaN; a zero of either sign where the inputs hold both (fmin and fmax
 * leave that choice open); the exact bits otherwise. */
static void check_reduce_result(clsort_type t, clsort_reduce_op op, const unsigned char *in,
                                size_t n, const unsigned char *got) {
  size_t es = clsort_type_size(t);
  unsigned char want[8];
  double exact = 0, abs_sum = 0;
  t_ref_reduce(t, op, in, n, want, &exact, &abs_sum);
  if (!t_type_is_float(t)) {
    ASSERT_EQ_ELEMS(got, want, 1, es);
    return;
  }
  double g = t_get_f(t, got, 0), w = t_get_f(t, want, 0);
  if (op == CLSORT_REDUCE_SUM) {
    nonfinite c = {false, false, false};
    for (size_t i = 0; i < n; i++) nonfinite_add(&c, t_get_f(t, in, i));
    if (c.nan || c.pinf || c.ninf) {
      check_nonfinite_sum(&c, g, 0);
      return;
    }
    double tol = t_float_tol_factor(n) * t_type_eps(t) * abs_sum;
    if (!(fabs(g - exact) <= tol))
      ck_abort_msg("%s: sum is %.17g, reference %.17g, |diff| %.3g > tolerance %.3g", t_where(), g,
                   exact, fabs(g - exact), tol);
    return;
  }
  if (isnan(w)) {
    if (!isnan(g)) ck_abort_msg("%s: got %.17g, want NaN (every input is NaN)", t_where(), g);
    return;
  }
  if (w == 0 && g == 0) {
    bool pos = false, neg = false;
    for (size_t i = 0; i < n; i++) {
      double x = t_get_f(t, in, i);
      if (x == 0 && signbit(x)) neg = true;
      if (x == 0 && !signbit(x)) pos = true;
    }
    if (pos && neg) return;
  }
  if (memcmp(got, want, es) != 0)
    ck_abort_msg("%s: got %.17g (0x%" PRIx64 "), want %.17g (0x%" PRIx64 ")", t_where(), g,
                 t_get_bits(t, got, 0), w, t_get_bits(t, want, 0));
}

static void case_reduce(t_rng *r, int e) {
  bool buffer = e == E_REDUCE_BUFFER;
  clsort_type t = draw_type(r);
  clsort_reduce_op op = (clsort_reduce_op)below(r, 3);
  size_t n = pick_n(r, cfg.max_n);
  unsigned allowed = BIT(X_CTX) | BIT(X_TYPE) | BIT(X_NULL_DATA) | BIT(X_NULL_AUX) |
                     BIT(X_TOO_LARGE) | BIT(X_OP);
  if (buffer) allowed |= BIT(X_SHORT) | BIT(X_WAIT);
  int defect = draw_defect(r, allowed);
  if (defect) {
    if (t == CLSORT_F64 && !has_fp64) t = CLSORT_F32;
    if (t_type_is_half(t) && op == CLSORT_REDUCE_SUM) t = CLSORT_U8; /* refused first */
    if (n == 0) n = 1 + (size_t)below(r, 300);
  }
  size_t es = clsort_type_size(t);
  unsigned char *in = t_alloc((n + GUARD) * es), *copy = t_alloc((n + GUARD) * es),
                res[(1 + GUARD) * 8];
  char desc[160];
  gen_numbers(r, t, op == CLSORT_REDUCE_SUM, in, n, desc, sizeof desc);
  t_poison(in + n * es, GUARD * es);
  memcpy(copy, in, (n + GUARD) * es);
  t_poison(res, sizeof res);

  clsort_context *ctx = T_CTX;
  clsort_type ct = t;
  clsort_reduce_op cop = op;
  size_t cn = n;
  bool refused = (t == CLSORT_F64 && !has_fp64) || (t_type_is_half(t) && op == CLSORT_REDUCE_SUM);
  clsort_status want = refused ? CLSORT_ERROR_UNSUPPORTED : CLSORT_SUCCESS;
  if (defect) want = CLSORT_ERROR_INVALID_ARGUMENT;
  if (defect == X_CTX) ctx = NULL;
  if (defect == X_TYPE) ct = (clsort_type)(12 + (int)below(r, 4));
  if (defect == X_OP) cop = (clsort_reduce_op)(3 + (int)below(r, 5));
  if (defect == X_TOO_LARGE) cn = huge_n(r, es), want = CLSORT_ERROR_TOO_LARGE;
  if (defect == X_SHORT) cn = n + GUARD + 1 + (size_t)below(r, 8);
  t_label("case 0x%016" PRIx64 ": %s %s %s n=%zu, %s%s%s", cur_seed, entry_names[e],
          clsort_type_name(t), op_names[op], n, desc, defect ? "; defect: " : "",
          defect_names[defect]);
  if (want != CLSORT_SUCCESS) cur_kind = defect ? K_INVALID : K_UNSUPPORTED;

  unsigned char *got = res;
  if (!buffer) {
    const void *ip = defect == X_NULL_DATA ? NULL : in;
    void *rp = defect == X_NULL_AUX ? NULL : res;
    check_status_limited(clsort_reduce(ctx, ct, cop, ip, cn, rp), &want);
  } else {
    cl_event written;
    cl_mem bin = buffer_with(in, (n + GUARD) * es, (n + GUARD) * es, &written);
    cl_mem bres = buffer_with(res, (1 + GUARD) * es, (1 + GUARD) * es, NULL);
    if (n == 0 && chance(r, 50)) bin = NULL;
    waits w;
    draw_waits(r, &w, bin ? written : NULL);
    cl_uint num = w.num;
    const cl_event *list = num ? w.list : NULL;
    cl_event storage[1];
    if (defect == X_WAIT) bad_wait(r, &num, &list, storage);
    bool ask = chance(r, 50);
    cl_event ev = EVENT_SENTINEL;
    clsort_status st = clsort_reduce_buffer(ctx, ct, cop, defect == X_NULL_DATA ? NULL : bin, cn,
                                            defect == X_NULL_AUX ? NULL : bres, num, list,
                                            ask ? &ev : NULL);
    check_status_limited(st, &want);
    check_event(st, ask, ev);
    got = t_read_buffer(bres, (1 + GUARD) * es);
    if (bin) ASSERT_EQ_MEM(t_read_buffer(bin, (n + GUARD) * es), copy, (n + GUARD) * es);
  }
  ASSERT_EQ_MEM(in, copy, (n + GUARD) * es);
  if (want != CLSORT_SUCCESS) {
    ASSERT_POISON(got, 0, (1 + GUARD) * es);
    return;
  }
  ASSERT_POISON(got, es, (1 + GUARD) * es);
  check_reduce_result(t, op, copy, n, got);
}

/* --------------------------------------------------------- compact/split */
static void case_select(t_rng *r, int e) {
  bool split = e == E_SPLIT || e == E_SPLIT_BUFFER;
  bool buffer = e == E_COMPACT_BUFFER || e == E_SPLIT_BUFFER;
  static const size_t sizes[5] = {1, 2, 4, 8, 16};
  size_t es = sizes[below(r, 5)], n = pick_n(r, cfg.max_n);
  unsigned allowed = BIT(X_CTX) | BIT(X_NULL_DATA) | BIT(X_NULL_AUX) | BIT(X_PAYLOAD) |
                     BIT(X_TOO_LARGE);
  if (buffer) allowed |= BIT(X_SHORT) | BIT(X_WAIT) | BIT(X_OVERLAP);
  int defect = draw_defect(r, allowed);
  if (defect && n == 0) n = 1 + (size_t)below(r, 300);
  unsigned char *in = t_alloc((n + GUARD) * es), *flags = t_alloc(n + GUARD),
                *out = t_alloc((n + GUARD) * es), *want = t_alloc(n * es + 1);
  t_fill_bytes(r, in, (n + GUARD) * es);
  /* Densities from none to all; set flags are any non-zero byte, in runs
   * or scattered. */
  static const double densities[6] = {0.0, 1.0, 0.5, 0.02, 0.98, -1};
  double d = densities[below(r, 6)];
  if (d < 0) d = t_rng_unit(r);
  size_t run = chance(r, 30) ? 1 + (size_t)below(r, 300) : 1;
  unsigned char f = 0;
  for (size_t i = 0; i < n; i++) {
    if (i % run == 0) f = t_rng_unit(r) < d ? (unsigned char)(1 + below(r, 255)) : 0;
    flags[i] = f;
  }
  t_poison(flags + n, GUARD);
  t_poison(out, (n + GUARD) * es);
  size_t count = t_ref_select(es, split, in, flags, want, n);

  clsort_context *ctx = T_CTX;
  size_t ces = es, cn = n;
  clsort_status st, expect = defect ? CLSORT_ERROR_INVALID_ARGUMENT : CLSORT_SUCCESS;
  if (defect == X_CTX) ctx = NULL;
  if (defect == X_PAYLOAD) {
    static const size_t bad[5] = {0, 3, 5, 12, 32};
    ces = bad[below(r, 5)];
  }
  if (defect == X_TOO_LARGE) cn = huge_n(r, es), expect = CLSORT_ERROR_TOO_LARGE;
  if (defect == X_SHORT) cn = n + GUARD + 1 + (size_t)below(r, 8);
  t_label("case 0x%016" PRIx64 ": %s %zu-byte elements n=%zu density %.3g runs of %zu%s%s", cur_seed,
          entry_names[e], es, n, d, run, defect ? "; defect: " : "", defect_names[defect]);
  if (expect != CLSORT_SUCCESS) cur_kind = K_INVALID;

  size_t written = split ? n : count;
  unsigned char *got = out, *gflags = flags, *gin = in;
  size_t got_count = (size_t)0x5EED;
  uint64_t gcount64 = 0;
  if (!buffer) {
    const void *ip = in;
    size_t *cp = defect == X_NULL_AUX ? NULL : &got_count;
    void *op = out;
    const unsigned char *fp = flags;
    if (defect == X_NULL_DATA) {
      unsigned which = (unsigned)below(r, 3);
      if (which == 0) ip = NULL;
      if (which == 1) fp = NULL;
      if (which == 2) op = NULL;
    }
    st = split ? clsort_split(ctx, ces, ip, fp, op, cn, cp)
               : clsort_compact(ctx, ces, ip, fp, op, cn, cp);
    check_status_limited(st, &expect);
    if (expect != CLSORT_SUCCESS) ASSERT_EQ_U64(got_count, 0x5EED);
    gcount64 = got_count;
  } else {
    cl_event w_in, w_fl;
    cl_mem bin = buffer_with(in, (n + GUARD) * es, (n + GUARD) * es, &w_in);
    cl_mem bfl = buffer_with(flags, n + GUARD, n + GUARD, &w_fl);
    cl_mem bout = buffer_with(out, (n + GUARD) * es, (n + GUARD) * es, NULL);
    unsigned char cnt[8 + GUARD];
    t_poison(cnt, sizeof cnt);
    cl_mem bcnt = buffer_with(cnt, sizeof cnt, sizeof cnt, NULL);
    waits w;
    draw_waits(r, &w, chance(r, 50) ? w_in : w_fl);
    cl_uint num = w.num;
    const cl_event *list = num ? w.list : NULL;
    cl_event storage[1];
    if (defect == X_WAIT) bad_wait(r, &num, &list, storage);
    cl_mem ci = bin, cf = bfl, co = bout, cc = bcnt;
    if (defect == X_NULL_DATA) {
      cl_mem *which[3] = {&ci, &cf, &co};
      *which[below(r, 3)] = NULL;
    }
    if (defect == X_NULL_AUX) cc = NULL;
    if (defect == X_OVERLAP) co = ci;
    bool ask = chance(r, 50);
    cl_event ev = EVENT_SENTINEL;
    st = split ? clsort_split_buffer(ctx, ces, ci, cf, co, cn, cc, num, list, ask ? &ev : NULL)
               : clsort_compact_buffer(ctx, ces, ci, cf, co, cn, cc, num, list, ask ? &ev : NULL);
    check_status_limited(st, &expect);
    check_event(st, ask, ev);
    got = t_read_buffer(bout, (n + GUARD) * es);
    gin = t_read_buffer(bin, (n + GUARD) * es);
    gflags = t_read_buffer(bfl, n + GUARD);
    unsigned char *gc = t_read_buffer(bcnt, sizeof cnt);
    if (expect == CLSORT_SUCCESS) {
      ASSERT_POISON(gc, 8, sizeof cnt);
      memcpy(&gcount64, gc, 8);
    } else {
      ASSERT_POISON(gc, 0, sizeof cnt);
    }
  }
  ASSERT_EQ_MEM(gin, in, (n + GUARD) * es);
  ASSERT_EQ_MEM(gflags, flags, n + GUARD);
  if (expect != CLSORT_SUCCESS) {
    ASSERT_POISON(got, 0, (n + GUARD) * es);
    return;
  }
  ASSERT_EQ_U64(gcount64, count);
  ASSERT_EQ_ELEMS(got, want, written, es);
  ASSERT_POISON(got, n * es, (n + GUARD) * es);
}

/* -------------------------------------------------------- bucket offsets */
#define MAX_TABLE ((size_t)1 << 21)

static void case_buckets(t_rng *r, int e) {
  bool buffer = e == E_BUCKETS_BUFFER;
  size_t n = pick_n(r, cfg.max_n);
  unsigned nb = (unsigned)log_uniform(r, 1, 4096);
  size_t tile = log_uniform(r, 1, 1 << 16);
  if (chance(r, 20)) tile = (size_t)1 << below(r, 17);
  clsort_type ot = chance(r, 50) ? CLSORT_U32 : CLSORT_U64;
  /* Keep the table (tiles x buckets) small enough to check quickly. */
  if (((n + tile - 1) / tile) * nb > MAX_TABLE) tile = (n * nb + MAX_TABLE - 1) / MAX_TABLE + 1;
  unsigned allowed = BIT(X_CTX) | BIT(X_NULL_DATA) | BIT(X_NULL_AUX) | BIT(X_BUCKETS) |
                     BIT(X_TOO_LARGE);
  if (buffer) allowed |= BIT(X_SHORT) | BIT(X_WAIT);
  int defect = draw_defect(r, allowed);
  if (defect && n == 0) n = 1 + (size_t)below(r, 300);
  size_t tiles = (n + tile - 1) / tile, entries = tiles * nb, os = clsort_type_size(ot);

  unsigned *bk = t_alloc((n + GUARD) * sizeof *bk);
  const char *what;
  switch (below(r, 4)) {
    case 0:
      what = "uniform";
      for (size_t i = 0; i < n; i++) bk[i] = (unsigned)below(r, nb);
      break;
    case 1: {
      what = "one bucket";
      unsigned b = (unsigned)below(r, nb);
      for (size_t i = 0; i < n; i++) bk[i] = b;
      break;
    }
    case 2:
      what = "sorted";
      for (size_t i = 0; i < n; i++) bk[i] = (unsigned)((uint64_t)i * nb / (n ? n : 1));
      break;
    default:
      what = "edges";
      for (size_t i = 0; i < n; i++) bk[i] = chance(r, 50) ? 0 : nb - 1;
  }
  t_poison(bk + n, GUARD * sizeof *bk);
  unsigned char *copy = t_alloc((n + GUARD) * sizeof *bk);
  memcpy(copy, bk, (n + GUARD) * sizeof *bk);
  unsigned char *out = t_alloc((entries + GUARD) * os);
  t_poison(out, (entries + GUARD) * os);

  clsort_context *ctx = T_CTX;
  size_t cn = n, ctile = tile;
  unsigned cnb = nb;
  clsort_type cot = ot;
  clsort_status expect = defect ? CLSORT_ERROR_INVALID_ARGUMENT : CLSORT_SUCCESS;
  if (defect == X_CTX) ctx = NULL;
  if (defect == X_BUCKETS) {
    switch (below(r, 3)) {
      case 0: cnb = chance(r, 50) ? 0 : 4097 + (unsigned)below(r, 100000); break;
      case 1: ctile = chance(r, 50) ? 0 : (size_t)UINT32_MAX + 1 + (size_t)below(r, 1000); break;
      default: {
        static const clsort_type bad[5] = {CLSORT_I32, CLSORT_F32, CLSORT_I64, CLSORT_F64,
                                           (clsort_type)9};
        cot = bad[below(r, 5)];
      }
    }
  }
  if (defect == X_TOO_LARGE) {
    /* Past 32-bit offsets, or past the allocation limit. */
    cn = ot == CLSORT_U32 ? (size_t)UINT32_MAX + 1 + (size_t)below(r, 1000) : huge_n(r, 4);
    expect = CLSORT_ERROR_TOO_LARGE;
  }
  if (defect == X_SHORT) cn = n + GUARD + 1 + (size_t)below(r, 8);
  t_label("case 0x%016" PRIx64 ": %s n=%zu buckets %u tile %zu %s offsets, %s%s%s", cur_seed,
          entry_names[e], n, nb, tile, clsort_type_name(ot), what, defect ? "; defect: " : "",
          defect_names[defect]);
  if (expect != CLSORT_SUCCESS) cur_kind = K_INVALID;

  unsigned char *got = out;
  if (!buffer) {
    const unsigned *bp = bk;
    void *op = out;
    if (defect == X_NULL_DATA) bp = NULL;
    if (defect == X_NULL_AUX) op = NULL;
    check_status_limited(clsort_bucket_offsets(ctx, bp, cn, cnb, ctile, cot, op), &expect);
  } else {
    cl_event written;
    cl_mem bin = buffer_with(bk, (n + GUARD) * sizeof *bk, (n + GUARD) * sizeof *bk, &written);
    /* X_SHORT: the offsets table one entry short instead, at times. */
    bool short_table = defect == X_SHORT && chance(r, 50);
    if (short_table) cn = n;
    size_t table_bytes = short_table ? (entries - 1) * os : (entries + GUARD) * os;
    cl_mem bout = buffer_with(out, table_bytes, table_bytes, NULL);
    if (n == 0 && chance(r, 50)) bin = bout = NULL;
    waits w;
    draw_waits(r, &w, bin ? written : NULL);
    cl_uint num = w.num;
    const cl_event *list = num ? w.list : NULL;
    cl_event storage[1];
    if (defect == X_WAIT) bad_wait(r, &num, &list, storage);
    cl_mem ci = bin, co = bout;
    if (defect == X_NULL_DATA) ci = NULL;
    if (defect == X_NULL_AUX) co = NULL;
    bool ask = chance(r, 50);
    cl_event ev = EVENT_SENTINEL;
    clsort_status st = clsort_bucket_offsets_buffer(ctx, ci, cn, cnb, ctile, cot, co, num, list,
                                                    ask ? &ev : NULL);
    check_status_limited(st, &expect);
    check_event(st, ask, ev);
    if (!bin) return;
    ASSERT_EQ_MEM(t_read_buffer(bin, (n + GUARD) * sizeof *bk), copy, (n + GUARD) * sizeof *bk);
    if (short_table) {
      ASSERT_POISON(t_read_buffer(bout, table_bytes), 0, table_bytes);
      return;
    }
    got = t_read_buffer(bout, table_bytes);
  }
  ASSERT_EQ_MEM(bk, copy, (n + GUARD) * sizeof *bk);
  if (expect != CLSORT_SUCCESS) {
    ASSERT_POISON(got, 0, (entries + GUARD) * os);
    return;
  }
  uint64_t *ref = t_alloc((entries + 1) * sizeof *ref);
  if (n) t_ref_bucket_offsets(bk, n, nb, tile, ref);
  for (size_t j = 0; j < entries; j++) {
    uint64_t g = t_get_bits(ot, got, j);
    if (g != ref[j])
      ck_abort_msg("%s: offsets[%zu] (bucket %zu, tile %zu) is %" PRIu64 ", want %" PRIu64,
                   t_where(), j, j / tiles, j % tiles, g, ref[j]);
  }
  ASSERT_POISON(got, entries * os, (entries + GUARD) * os);
}

/* ------------------------------------------------------ names and version */
static void case_names(t_rng *r) {
  int s = (int)below(r, 20) - 12;
  t_label("case 0x%016" PRIx64 ": names of status %d, type %d", cur_seed, s, s + 4);
  const char *text = clsort_status_string((clsort_status)s), *name = clsort_status_name((clsort_status)s);
  ASSERT_STR_NONEMPTY(text);
  bool known = s <= 0 && s >= -8;
  if (known) {
    ASSERT_NOT_NULL(name);
    ASSERT_TRUE(strncmp(name, "CLSORT_", 7) == 0);
  } else {
    ASSERT_EQ_STR(text, "unknown status");
  }
  clsort_type t = (clsort_type)(s + 4);
  bool tknown = s + 4 >= 0 && s + 4 <= 11;
  static const size_t sizes[12] = {4, 4, 4, 8, 8, 8, 1, 1, 2, 2, 2, 2};
  ASSERT_EQ_U64(clsort_type_size(t), tknown ? sizes[s + 4] : 0);
  if (tknown)
    ASSERT_STR_NONEMPTY(clsort_type_name(t));
  else
    ASSERT_NULL(clsort_type_name(t));
  char v[32];
  snprintf(v, sizeof v, "%d.%d.%d", CLSORT_VERSION_MAJOR, CLSORT_VERSION_MINOR,
           CLSORT_VERSION_PATCH);
  ASSERT_EQ_STR(clsort_version_string(), v);
  ASSERT_EQ_U64(clsort_version(), CLSORT_VERSION_NUMBER);
}

/* ------------------------------------------------------ merge and top-k */
/* `bytes` at a random element offset (0..63 elements of es bytes) into an
 * allocation of its own, so that the host arrays reach the library at
 * every alignment that elements allow. */
static unsigned char *placed(t_rng *r, size_t bytes, size_t es) {
  size_t skip = (size_t)below(r, 64) * es;
  return (unsigned char *)t_alloc(skip + bytes + 1) + skip;
}

/* The status a merge, top-k, select or segmented sort of type t must
 * return: the 8- and 16-bit types are not taken, nor f64 without fp64. */
static clsort_status op_expectation(clsort_type t) {
  bool taken = clsort_type_size(t) >= 4 && (t != CLSORT_F64 || has_fp64);
  return taken ? CLSORT_SUCCESS : CLSORT_ERROR_UNSUPPORTED;
}

/* clsort_merge or clsort_merge_pairs of two sides sorted in the options'
 * order: apart, or in one allocation (a then b, b then a: their aligned
 * blocks shared), or one array twice; values the same way. Checked against
 * the stable merge (a's keys first on ties), the inputs unchanged, nothing
 * written past the outputs. */
static void case_merge(t_rng *r) {
  clsort_type t = draw_type(r);
  size_t es = clsort_type_size(t), na = pick_n(r, cfg.max_n / 2), nb = pick_n(r, cfg.max_n / 2);
  int layout = (int)below(r, 4); /* apart, a then b, b then a, the same array */
  if (layout == 3) nb = na;
  size_t n = na + nb, vs = chance(r, 50) ? (chance(r, 50) ? 8 : 4) : 0;
  bool desc = chance(r, 50);
  clsort_options o = {chance(r, 50) ? CLSORT_MERGE : CLSORT_AUTO,
                      (desc ? CLSORT_DESCENDING : 0u) | (chance(r, 30) ? CLSORT_STABLE : 0u), 0u,
                      0u};
  clsort_status want = op_expectation(t);
  if (want != CLSORT_SUCCESS) cur_kind = K_UNSUPPORTED;
  unsigned char *ka, *kb, *va, *vb;
  if (layout == 0) {
    ka = placed(r, na * es, es), kb = placed(r, nb * es, es);
    va = placed(r, na * 8, 8), vb = placed(r, nb * 8, 8);
  } else {
    unsigned char *k = placed(r, n * es, es), *v = placed(r, n * 8, 8);
    bool b_first = layout == 2;
    ka = k + (b_first ? nb * es : 0), kb = layout == 3 ? ka : k + (b_first ? 0 : na * es);
    va = v + (b_first ? nb * vs : 0), vb = layout == 3 ? va : v + (b_first ? 0 : na * vs);
  }
  char desc_a[160], desc_b[160] = "the same array";
  gen_keys(r, t, ka, na, desc_a, sizeof desc_a);
  sort_range(t, ka, na, desc);
  if (layout != 3) {
    gen_keys(r, t, kb, nb, desc_b, sizeof desc_b);
    sort_range(t, kb, nb, desc);
  }
  static const char *const layouts[4] = {"apart", "a then b", "b then a", "a twice"};
  t_label("case 0x%016" PRIx64 ": merge %s na=%zu nb=%zu %s, %zu-byte values, %s; a %s; b %s",
          cur_seed, clsort_type_name(t), na, nb, t_opt_name(&o), vs, layouts[layout], desc_a,
          desc_b);
  /* The reference: the stable sort of a then b. */
  unsigned char *cat = t_alloc(n * es + 1), *vcat = t_alloc(n * 8 + 1);
  memcpy(cat, ka, na * es);
  memcpy(cat + na * es, kb, nb * es);
  if (vs) {
    t_fill_pair_values(vcat, vs, n);
    memcpy(va, vcat, na * vs);
    if (layout != 3) memcpy(vb, vcat + na * vs, nb * vs);
    else memcpy(vcat + na * vs, vcat, na * vs);
  }
  unsigned char *out = placed(r, (n + GUARD) * es, es), *vout = placed(r, (n + GUARD) * 8, 8);
  t_poison(out, (n + GUARD) * es);
  t_poison(vout, (n + GUARD) * 8);
  clsort_status st = vs ? clsort_merge_pairs(T_CTX, t, ka, va, na, kb, vb, nb, out, vout, vs, &o)
                        : clsort_merge(T_CTX, t, ka, na, kb, nb, out, &o);
  check_status_limited(st, &want);
  ASSERT_EQ_ELEMS(ka, cat, na, es);
  ASSERT_EQ_ELEMS(kb, cat + na * es, nb, es);
  if (want != CLSORT_SUCCESS) {
    ASSERT_POISON(out, 0, (n + GUARD) * es);
    ASSERT_POISON(vout, 0, (n + GUARD) * 8);
    return;
  }
  size_t *perm = stable_order(t, cat, n, desc);
  unsigned char *want_keys = t_alloc(n * es + 1);
  t_gather(cat, perm, n, es, want_keys);
  ASSERT_EQ_ELEMS(out, want_keys, n, es);
  ASSERT_POISON(out, n * es, (n + GUARD) * es);
  if (vs) {
    unsigned char *want_vals = t_alloc(n * vs + 1);
    t_gather(vcat, perm, n, vs, want_vals);
    ASSERT_EQ_ELEMS(vout, want_vals, n, vs);
    ASSERT_POISON(vout, n * vs, (n + GUARD) * vs);
  }
}

/* clsort_top_k (keys, indices of 4 or 8 bytes, or both) or clsort_select
 * of keys at a random element offset: the first k of the stable order
 * (the lowest positions win among equal keys), or the key at position k. */
static void case_top_k(t_rng *r, bool select) {
  clsort_type t = draw_type(r);
  size_t es = clsort_type_size(t), n = pick_n(r, cfg.max_n);
  if (select && n == 0) n = 1;
  size_t k = select ? (size_t)below(r, n)
             : chance(r, 50) ? (size_t)below(r, (n < 20 ? n : 20) + 1)
                             : (size_t)below(r, n + 1);
  bool keys_out = !select && chance(r, 70);
  size_t is = select || (keys_out && chance(r, 40)) ? 0 : (chance(r, 50) ? 8 : 4);
  bool desc = chance(r, 50);
  clsort_options o = {chance(r, 50) ? CLSORT_RADIX : CLSORT_AUTO,
                      (desc ? CLSORT_DESCENDING : 0u) | (chance(r, 30) ? CLSORT_STABLE : 0u), 0u,
                      0u};
  clsort_status want = op_expectation(t);
  if (want != CLSORT_SUCCESS) cur_kind = K_UNSUPPORTED;
  unsigned char *keys = placed(r, n * es, es), *copy = t_alloc(n * es + 1);
  char desc_k[160];
  gen_keys(r, t, keys, n, desc_k, sizeof desc_k);
  memcpy(copy, keys, n * es);
  t_label("case 0x%016" PRIx64 ": %s %s n=%zu k=%zu %s, %s, %zu-byte indices; %s", cur_seed,
          select ? "select" : "top_k", clsort_type_name(t), n, k, t_opt_name(&o),
          keys_out ? "keys" : "no keys", is, desc_k);
  size_t m = select ? 1 : k;
  unsigned char *out = placed(r, (m + GUARD) * es, es), *idx = placed(r, (m + GUARD) * 8, 8);
  t_poison(out, (m + GUARD) * es);
  t_poison(idx, (m + GUARD) * 8);
  clsort_status st =
      select ? clsort_select(T_CTX, t, keys, n, k, out, &o)
             : clsort_top_k(T_CTX, t, keys, n, k, keys_out ? out : NULL, is ? idx : NULL, is, &o);
  check_status_limited(st, &want);
  ASSERT_EQ_ELEMS(keys, copy, n, es);
  if (want != CLSORT_SUCCESS) {
    ASSERT_POISON(out, 0, (m + GUARD) * es);
    ASSERT_POISON(idx, 0, (m + GUARD) * 8);
    return;
  }
  size_t *perm = stable_order(t, keys, n, desc);
  unsigned char *want_keys = t_alloc(m * es + 1);
  if (select) {
    t_gather(keys, perm + k, 1, es, want_keys);
  } else {
    t_gather(keys, perm, k, es, want_keys);
  }
  if (select || keys_out) {
    ASSERT_EQ_ELEMS(out, want_keys, m, es);
    ASSERT_POISON(out, m * es, (m + GUARD) * es);
  } else {
    ASSERT_POISON(out, 0, (m + GUARD) * es);
  }
  if (is) {
    for (size_t i = 0; i < k; i++) {
      uint64_t got = 0;
      memcpy(&got, idx + i * is, is); /* little-endian: the low bytes */
      ASSERT_EQ_U64(got, perm[i]);
    }
    ASSERT_POISON(idx, k * is, (k + GUARD) * is);
  }
}

/* clsort_segmented_sort of keys (and 4- or 8-byte values) at a random
 * element offset: segments drawn empty, short, around the small sort's
 * limits or long, checked per segment against the stable order (the
 * values exact), nothing written past n. */
static void case_segmented(t_rng *r) {
  clsort_type t = draw_type(r);
  size_t es = clsort_type_size(t), n = pick_n(r, cfg.max_n);
  size_t vs = chance(r, 40) ? (chance(r, 50) ? 8 : 4) : 0;
  bool desc = chance(r, 50);
  static const clsort_algorithm algs[3] = {CLSORT_AUTO, CLSORT_RADIX, CLSORT_MERGE};
  clsort_options o = {algs[below(r, 3)], desc ? CLSORT_DESCENDING : 0u, 0u, 0u};
  clsort_status want = op_expectation(t);
  if (want != CLSORT_SUCCESS) cur_kind = K_UNSUPPORTED;
  /* Segment lengths: mostly short, some around 2^11-2^15 (the small
   * sorts' limits), a few as long as what is left. */
  size_t cap = 1 + n / 2, count = 0;
  uint64_t *offsets = t_alloc((cap + 2) * sizeof *offsets);
  offsets[0] = 0;
  for (size_t at = 0; at < n && count < cap;) {
    size_t kind = (size_t)below(r, 10), len;
    if (kind < 6) len = (size_t)below(r, 70);
    else if (kind < 9) len = ((size_t)1 << (11 + below(r, 5))) + (size_t)below(r, 5) - 2;
    else len = n - at;
    if (len > n - at) len = n - at;
    at += len;
    offsets[++count] = at;
  }
  if (offsets[count] != n) offsets[++count] = n;
  unsigned char *keys = placed(r, (n + GUARD) * es, es), *vals = placed(r, (n + GUARD) * 8, 8);
  unsigned char *copy = t_alloc(n * es + 1);
  char desc_k[160];
  gen_keys(r, t, keys, n, desc_k, sizeof desc_k);
  memcpy(copy, keys, n * es);
  t_poison(keys + n * es, GUARD * es);
  t_poison(vals, (n + GUARD) * 8);
  if (vs) t_fill_pair_values(vals, vs, n);
  t_label("case 0x%016" PRIx64 ": segmented %s n=%zu, %zu segments, %s, %zu-byte values; %s",
          cur_seed, clsort_type_name(t), n, count, t_opt_name(&o), vs, desc_k);
  clsort_status st =
      clsort_segmented_sort(T_CTX, t, keys, vs ? vals : NULL, vs, n, offsets, count, &o);
  check_status_limited(st, &want);
  ASSERT_POISON(keys, n * es, (n + GUARD) * es);
  if (want != CLSORT_SUCCESS) {
    ASSERT_EQ_ELEMS(keys, copy, n, es);
    return;
  }
  size_t *perm = t_alloc(n * sizeof *perm + 1);
  for (size_t s = 0; s < count; s++) {
    size_t first = (size_t)offsets[s], len = (size_t)(offsets[s + 1] - offsets[s]);
    size_t *p = stable_order(t, copy + first * es, len, desc);
    for (size_t i = 0; i < len; i++) perm[first + i] = first + p[i];
    t_release_now(p);
  }
  unsigned char *want_keys = t_alloc(n * es + 1);
  t_gather(copy, perm, n, es, want_keys);
  ASSERT_EQ_ELEMS(keys, want_keys, n, es);
  if (vs) {
    t_check_payload_exact(vals, vs, perm, n, false);
    ASSERT_POISON(vals, n * vs, (n + GUARD) * vs);
  }
}

/* ------------------------------------------------------------------ cases */
static int draw_entry(t_rng *r) {
  unsigned total = 0;
  for (int e = 0; e < E_COUNT; e++) total += entry_weights[e];
  unsigned x = (unsigned)below(r, total);
  int e = 0;
  while (x >= entry_weights[e]) x -= entry_weights[e++];
  return e;
}

static void run_case(uint64_t seed) {
  t_rng r;
  rng_seed(&r, seed);
  cur_entry = draw_entry(&r);
  switch (cur_entry) {
    case E_SORT:
    case E_SORT_PAIRS:
    case E_ARGSORT:
    case E_SORT_BUFFER: case_sort(&r, cur_entry); break;
    case E_SCAN:
    case E_SCAN_BUFFER: case_scan(&r, cur_entry); break;
    case E_REDUCE:
    case E_REDUCE_BUFFER: case_reduce(&r, cur_entry); break;
    case E_COMPACT:
    case E_COMPACT_BUFFER:
    case E_SPLIT:
    case E_SPLIT_BUFFER: case_select(&r, cur_entry); break;
    case E_BUCKETS:
    case E_BUCKETS_BUFFER: case_buckets(&r, cur_entry); break;
    case E_MERGE: case_merge(&r); break;
    case E_TOP_K:
    case E_SELECT_KEY: case_top_k(&r, cur_entry == E_SELECT_KEY); break;
    case E_SEGMENTED: case_segmented(&r); break;
    default: case_names(&r);
  }
}

static uint64_t chunk_base;
static double deadline;

static void fuzz_setup(void) {
  if (!cfg.replay) t_label("%s", "");
  cur_done = cur_skipped = false;
  cur_kind = K_OK;
}

static void fuzz_teardown(void) {
  t_release_deferred();
  if (cur_skipped) return;
  n_cases++;
  n_per_entry[cur_entry]++;
  if (cur_kind == K_UNSUPPORTED) n_unsupported++;
  if (cur_kind == K_INVALID) n_invalid++;
  if (!cur_done) {
    if (n_failed < MAX_FAILED_LISTED) failed_seeds[n_failed] = cur_seed;
    n_failed++;
    printf("clsort-fuzz: FAILED case 0x%016" PRIx64 " (%s); replay: %s 0x%016" PRIx64 "\n",
           cur_seed, entry_names[cur_entry], replay_prefix, cur_seed);
  }
}

START_TEST(fuzz_case) {
  if (cfg.seconds > 0 && !cfg.replay && t_now() >= deadline) {
    cur_skipped = true;
    return;
  }
  cur_seed = cfg.replay ? cfg.replay_seed : case_seed(cfg.base_seed, chunk_base + (uint64_t)_i);
  cur_entry = E_NAMES;
  snprintf(crash_line, sizeof crash_line,
           "\nclsort-fuzz: died in case 0x%016" PRIx64 "; replay: %s 0x%016" PRIx64 "\n", cur_seed,
           replay_prefix, cur_seed);
  run_case(cur_seed);
  cur_done = true;
}
END_TEST

/* ------------------------------------------------------------------ crashes */
static void write_crash_line(void) {
  size_t len = strlen(crash_line);
  if (len && write(STDERR_FILENO, crash_line, len) < 0) {
    /* nothing more to do on the way out */
  }
}

static void on_signal(int sig) {
  write_crash_line();
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Under ASan or UBSan (halt_on_error) the runtime reports and exits on its
 * own; it calls this hook on the way. Declared weak: absent otherwise. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void install_crash_handlers(void) {
  bool sanitizer = __sanitizer_set_death_callback != NULL;
  if (sanitizer) __sanitizer_set_death_callback(write_crash_line);
  int sigs[] = {SIGABRT, SIGTERM, SIGINT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    /* The sanitizers report faults themselves, with a stack. */
    if (sanitizer && i >= 3) break;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[i], &sa, NULL);
  }
}

/* -------------------------------------------------------------------- main */
static void usage(FILE *f) {
  fprintf(f,
          "usage: clsort-fuzz [--cases N | --seconds S] [--seed X|date] [--replay CASESEED]\n"
          "                   [--device SPEC] [--max-n N]\n"
          "  --cases N      run N cases (default 1000 unless --seconds is given)\n"
          "  --seconds S    run until S seconds have passed (with --cases: whichever comes first)\n"
          "  --seed X       base seed (decimal or 0x-hex; 'date': today's UTC date as 0xYYYYMMDD);\n"
          "                 default: from the clock. Case i's seed is derived from it.\n"
          "  --replay C     run the one case whose seed is C (as a failure prints it)\n"
          "  --device SPEC  as clsort_context_create (default: CLSORT_TEST_DEVICE, else the library's choice)\n"
          "  --max-n N      largest n drawn (default 300000); part of a case's identity\n");
}

static bool parse_u64(const char *s, uint64_t *out) {
  char *end;
  if (!s || !*s) return false;
  *out = strtoull(s, &end, 0);
  return *end == '\0';
}

static bool parse_args(int argc, char **argv) {
  cfg.argv0 = argv[0];
  bool have_seed = false;
  for (int i = 1; i < argc; i += 2) { /* every option takes one value */
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t x;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      exit(0);
    } else if (strcmp(a, "--cases") == 0 && parse_u64(v, &x)) {
      cfg.cases = x;
    } else if (strcmp(a, "--seconds") == 0 && v && (cfg.seconds = strtod(v, NULL)) > 0) {
    } else if (strcmp(a, "--seed") == 0 && v && strcmp(v, "date") == 0) {
      time_t now = time(NULL);
      struct tm tm;
      gmtime_r(&now, &tm);
      char buf[48];
      snprintf(buf, sizeof buf, "%04d%02d%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
      cfg.base_seed = strtoull(buf, NULL, 16);
      cfg.seed_note = " (today's UTC date)";
      have_seed = true;
    } else if (strcmp(a, "--seed") == 0 && parse_u64(v, &x)) {
      cfg.base_seed = x;
      have_seed = true;
    } else if (strcmp(a, "--replay") == 0 && parse_u64(v, &x)) {
      cfg.replay = true;
      cfg.replay_seed = x;
    } else if (strcmp(a, "--device") == 0 && v) {
      cfg.device = v;
    } else if (strcmp(a, "--max-n") == 0 && parse_u64(v, &x) && x > 0) {
      cfg.max_n = (size_t)x;
    } else {
      fprintf(stderr, "clsort-fuzz: bad argument '%s'%s%s\n", a, v ? " " : "", v ? v : "");
      usage(stderr);
      return false;
    }
  }
  if (!have_seed) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    cfg.base_seed = mix64((uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
                          ((uint64_t)getpid() << 32));
    cfg.seed_note = " (from the clock)";
  }
  if (!cfg.seed_note) cfg.seed_note = "";
  if (cfg.cases == 0 && cfg.seconds <= 0) cfg.cases = 1000;
  if (cfg.cases == 0) cfg.cases = UINT64_MAX;
  return true;
}

static void print_summary(double elapsed) {
  char line[1024];
  int len = snprintf(line, sizeof line,
                     "clsort-fuzz summary: seed 0x%016" PRIx64 " max-n %zu: %" PRIu64
                     " cases in %.1f s, %" PRIu64 " failed |",
                     cfg.base_seed, cfg.max_n, n_cases, elapsed, n_failed);
  for (int e = 0; e < E_COUNT && len > 0 && (size_t)len < sizeof line; e++)
    len += snprintf(line + len, sizeof line - (size_t)len, " %s %" PRIu64, entry_names[e],
                    n_per_entry[e]);
  if (len > 0 && (size_t)len < sizeof line)
    snprintf(line + len, sizeof line - (size_t)len, " | unsupported %" PRIu64 " invalid %" PRIu64,
             n_unsupported, n_invalid);
  printf("%s\n", line);
}

int main(int argc, char **argv) {
  if (!parse_args(argc, argv)) return 2;
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (cfg.replay) setenv("CLSORT_TEST_TRACE", "1", 1); /* t_label prints the case */
  /* t_where() prints the run's seed: the base seed. */
  char seedbuf[32];
  snprintf(seedbuf, sizeof seedbuf, "0x%016" PRIx64, cfg.base_seed);
  setenv("CLSORT_TEST_SEED", seedbuf, 1);

  const char *spec = cfg.device ? cfg.device : t_device_spec();
  int len = snprintf(replay_prefix, sizeof replay_prefix, "%s --max-n %zu", cfg.argv0, cfg.max_n);
  if (spec) snprintf(replay_prefix + len, sizeof replay_prefix - (size_t)len, " --device '%s'", spec);
  len = (int)strlen(replay_prefix);
  snprintf(replay_prefix + len, sizeof replay_prefix - (size_t)len, " --replay");

  clsort_status st = clsort_context_create(&T_CTX, spec);
  if (st == CLSORT_ERROR_NO_DEVICE) {
    printf("SKIP: no OpenCL device (%s)\n", clsort_last_error_message());
    return 77;
  }
  if (st != CLSORT_SUCCESS) {
    fprintf(stderr, "clsort-fuzz: clsort_context_create(%s): %s: %s\n", spec ? spec : "NULL",
            clsort_status_name(st), clsort_last_error_message());
    return 1;
  }
  has_fp64 = t_device_has_fp64(T_CTX);
  if (cfg.replay)
    printf("clsort-fuzz: replaying case 0x%016" PRIx64 " with --max-n %zu on %s\n", cfg.replay_seed,
           cfg.max_n, clsort_context_device_name(T_CTX));
  else if (cfg.cases == UINT64_MAX)
    printf("clsort-fuzz: seed 0x%016" PRIx64 "%s, %.0f s, max-n %zu, on %s\n", cfg.base_seed,
           cfg.seed_note, cfg.seconds, cfg.max_n, clsort_context_device_name(T_CTX));
  else
    printf("clsort-fuzz: seed 0x%016" PRIx64 "%s, %" PRIu64 " cases%s, max-n %zu, on %s\n",
           cfg.base_seed, cfg.seed_note, cfg.cases, cfg.seconds > 0 ? " at most" : "", cfg.max_n,
           clsort_context_device_name(T_CTX));
  install_crash_handlers();

  double t0 = t_now(), next_progress = t0 + 600;
  deadline = t0 + cfg.seconds;
  uint64_t total = cfg.replay ? 1 : cfg.cases;
  /* Check keeps every result until its runner is freed: run in chunks. */
  for (chunk_base = 0; chunk_base < total;) {
    uint64_t chunk = total - chunk_base < 64 ? total - chunk_base : 64;
    Suite *s = suite_create("fuzz");
    TCase *tc = tcase_create("cases");
    tcase_add_checked_fixture(tc, fuzz_setup, fuzz_teardown);
    tcase_add_loop_test(tc, fuzz_case, 0, (int)chunk);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_SILENT);
    int failed = srunner_ntests_failed(sr);
    if (failed) {
      TestResult **res = srunner_failures(sr);
      for (int k = 0; k < failed; k++)
        printf("clsort-fuzz: %s:%d: %s\n", tr_lfile(res[k]), tr_lno(res[k]), tr_msg(res[k]));
      free(res);
    }
    srunner_free(sr);
    chunk_base += chunk;
    double now = t_now();
    if (cfg.seconds > 0 && now >= deadline) break;
    if (now >= next_progress) {
      printf("clsort-fuzz: %" PRIu64 " cases, %" PRIu64 " failed, %.0f s\n", n_cases, n_failed,
             now - t0);
      next_progress = now + 600;
    }
  }
  crash_line[0] = '\0';
  clsort_context_release(T_CTX);
  T_CTX = NULL;
  print_summary(t_now() - t0);
  if (n_failed) {
    printf("clsort-fuzz: failed case seeds:");
    for (uint64_t k = 0; k < n_failed && k < MAX_FAILED_LISTED; k++)
      printf(" 0x%016" PRIx64, failed_seeds[k]);
    printf("\n");
  }
  if (clsort__live_contexts() != 0) {
    printf("clsort-fuzz: %ld contexts leaked\n", clsort__live_contexts());
    return 1;
  }
  return n_failed ? 1 : 0;
}
