/* top_k_sample.c: the sampled path of top-k and select, which finds their
 * candidates reading the keys once. A sample of the keys (one per
 * stratum of positions) gives thresholds lo <= hi that, with high
 * probability, bracket the ranks asked for while few keys lie between
 * them; one pass (topk_filter) then appends the keys in [lo, hi] and
 * counts those below lo. The counts tell whether the bracket held: when
 * it did not (too few keys at or below hi, too many below lo, or more
 * candidates than the buffer holds) the caller runs the radix select
 * instead, so results stay exact; only the time of one pass is lost.
 *
 * Nothing comes back to the host on the way. The host plans from n and
 * the ranks alone (the sample size, the sample ranks of the thresholds,
 * the buffer: make_plan); the device draws the sample and picks the
 * thresholds from it (topk_thresholds, one work-group: a radix select of
 * each sample rank) into the control buffer, and the filter reads them
 * there. On the H100 each blocking round trip cost tens of microseconds
 * of an operation of about 0.3 ms (2^26 u32 keys: the keys' one read is
 * about 0.09), and the path had two, with the host's choice of the
 * thresholds between them. The counts are then read either at once
 * (early: select, which needs them to go on, and the CPU shape, where a
 * read is cheap and sorting exactly the candidates, over only the bits
 * the threshold leaves, pays) or, for top-k on GPUs, at the end (late),
 * once the result is written without the host knowing how many
 * candidates there are: for k up to 512 topk_final (one work-group)
 * writes it from the candidates; above, topk_pad fills the buffer past
 * the candidates with keys that sort last, the whole buffer is sorted by
 * key and topk_settle writes its first k with equal keys in position
 * order (the sort by position is what it saves: on the H100 each radix
 * sort of the candidates cost about six launches of about 10 us whatever
 * their count). Only then does one read (clsort__sample_check) say
 * whether the bracket held and those kernels did not give up (many keys
 * equal to the k-th); when not, the radix select runs and overwrites the
 * outputs. */
#include "sorts/sorts.h"

#include <stdlib.h>
#include <string.h>

/* The topk program (topk.cl): the sampled path's kernels and the radix
 * select's (top_k.c, which calls this file, not the other way round). */
static const char *const topk_files[] = {"common/common.cl", "common/wg_scan.cl@u32",
                                         "sorts/keys.cl", "sorts/topk.cl", NULL};
static const clsort__program_spec topk_spec = {"topk", topk_files};

clsort_status clsort__topk_kernel(clsort_context *ctx, size_t key_size, const char *name,
                                  cl_kernel *out) {
  return clsort__key_width_kernel(ctx, &topk_spec, key_size, name, out);
}

/* Below this many keys the radix select's few rounds cost as little. */
#define SAMPLE_MIN_N 4096u
/* The chance that a threshold misses or the buffer overflows, each, for
 * keys in random order: 1e-6, through L = ln(1e6). */
#define MISS_LOG 13.815510557964274
/* The filter's keys per work-item: topk.cl's TK_ITEMS. */
#define FILTER_ITEMS_MAX 32u

/* The thread's last path, for the tests (clsort__top_k_path). */
static _Thread_local clsort__select_path last_path = SELECT_PATH_NONE;

clsort__select_path clsort__top_k_path(void) { return last_path; }
void clsort__top_k_set_path(clsort__select_path p) { last_path = p; }

/* CLSORT_TOPK: "radix" never samples; "sampled" samples for select on
 * GPUs too; "low" and "tight" make the sampled path miss, so that the
 * tests reach the fallback: thresholds at the lowest order bits (0, which
 * no key of the tests' random data has: too few candidates), or a buffer
 * of one candidate (too many). Read at each call. */
typedef enum knob { KNOB_NONE, KNOB_RADIX, KNOB_SAMPLED, KNOB_LOW, KNOB_TIGHT } knob;
static knob read_knob(void) {
  const char *v = getenv("CLSORT_TOPK");
  if (!v) return KNOB_NONE;
  if (strcmp(v, "radix") == 0) return KNOB_RADIX;
  if (strcmp(v, "sampled") == 0) return KNOB_SAMPLED;
  if (strcmp(v, "low") == 0) return KNOB_LOW;
  if (strcmp(v, "tight") == 0) return KNOB_TIGHT;
  return KNOB_NONE;
}

/* On the H100 the sampled select lost to the radix select (2^24 / 2^26
 * u32: 0.47 / 0.59 ms against 0.24 / 0.52; u64 0.60 / 0.79 against 0.39 /
 * 0.76): the radix select's four histogram passes are cheap there, and the
 * sampled path's two blocking reads were not (one is left since: not
 * measured there yet). Top-k gains (the candidates' sort is what it
 * saves), so only select keeps the radix select on GPUs. */
bool clsort__select_samples(const clsort_context *ctx) {
  knob k = read_knob();
  if (k == KNOB_RADIX) return false;
  return k != KNOB_NONE || ctx->tuning.cpu_shape;
}

/* CLSORT_TOPK_CHECK=early|late: when top-k reads the sampled path's
 * counts (see the top of this file); unset: late unless in the CPU
 * shape. Read at each call, so that the tests run both in either shape. */
bool clsort__sample_reads_late(const clsort_context *ctx) {
  const char *v = getenv("CLSORT_TOPK_CHECK");
  if (v && strcmp(v, "early") == 0) return false;
  if (v && strcmp(v, "late") == 0) return true;
  return !ctx->tuning.cpu_shape;
}

/* e^-x for 0 <= x <= 64 and the square root, without libm (the library
 * links none): the thresholds need a few digits only. */
static double exp_neg(double x) {
  double r = 1.0;
  for (; x >= 1.0; x -= 1.0) r *= 0.36787944117144233; /* e^-1 */
  double term = 1.0, sum = 1.0;
  for (int i = 1; i < 20; i++) sum += term *= -x / i;
  return r * sum;
}
static double root(double x) {
  double r = x > 1.0 ? x : 1.0;
  for (int i = 0; i < 60; i++) r = 0.5 * (r + x / r);
  return r;
}

/* The sample rank whose key is at or above the key of rank `rank` of the
 * n keys, but for a chance below 1e-6: it fails only when more sample
 * keys than it fall below that key, a count about Poisson with mean
 * lam = (rank + 1) s / n. Exact tails for small means, Bernstein's bound
 * above. */
static size_t rank_above(double lam) {
  if (lam <= 64.0) {
    double term = exp_neg(lam), cdf = term;
    size_t j = 0;
    while (1.0 - cdf > 1e-6) {
      j++;
      term *= lam / (double)j;
      cdf += term;
    }
    return j;
  }
  return (size_t)(lam + MISS_LOG / 3 + root(MISS_LOG * MISS_LOG / 9 + 2 * MISS_LOG * lam)) + 1;
}

/* The sample rank whose key is at or below the key of that rank, but for
 * a chance below 1e-6 (fewer sample keys than it fall at or below); -1
 * when the sample is too small for any. */
static long rank_below(double lam) {
  if (lam <= 64.0) {
    double term = exp_neg(lam), cdf = term;
    long j = -1;
    while (cdf <= 1e-6) {
      j++;
      term *= lam / (double)(j + 1);
      cdf += term;
    }
    return j;
  }
  double t = lam - root(2 * MISS_LOG * lam);
  return t < 1.0 ? -1 : (long)t - 1;
}

/* The plan for n keys and the ranks [first, last]: the sample size, the
 * two sample ranks (lo_rank -1: no lower threshold; hi_rank >= s: no
 * upper one), the candidates' buffer and whether they are few enough
 * (at most a quarter of the keys expected) to be worth it. */
typedef struct plan {
  size_t s, hi_rank, cap;
  long lo_rank;
  bool worth;
} plan;

/* The buffer for the keys from one sample key to one m sample ranks on:
 * about m gaps of n / s keys (Gamma(m) in units of n / s); above mu units
 * with a chance below 1e-6 (Bernstein). */
static size_t cap_for(size_t n, size_t s, double m) {
  double mu = (m - 1) + MISS_LOG + root(MISS_LOG * MISS_LOG + 2 * MISS_LOG * (m - 1));
  return clsort__min(n, (size_t)(mu * (double)n / (double)s) + 2);
}

/* The largest buffer of a plan worth running (m <= s / 4). */
static size_t largest_cap(size_t n, size_t s) { return cap_for(n, s, (double)s / 4); }

static plan make_plan(size_t n, size_t first, size_t last, knob kb) {
  plan p;
  p.s = clsort__min(16384, clsort__max(256, n >> 10));
  double per = (double)p.s / (double)n;
  /* A sample rank of `last` or more is always enough: the sample keys at
   * or below the sample's j-th are j + 1 keys at or below it. */
  p.hi_rank = clsort__min(rank_above((double)(last + 1) * per), last);
  p.lo_rank = first ? rank_below((double)(first + 1) * per) : -1;
  /* The same counted from the top (the j-th largest sample key), which
   * is tighter for ranks in the upper part: the tighter of the two bounds
   * is kept (each misses with a chance below 1e-6). */
  long hi_top = rank_below((double)(n - last) * per);
  if (hi_top >= 0) p.hi_rank = clsort__min(p.hi_rank, p.s - 1 - (size_t)hi_top);
  size_t lo_top = rank_above((double)(n - first) * per);
  if (first && lo_top < p.s && (long)(p.s - 1 - lo_top) > p.lo_rank)
    p.lo_rank = (long)(p.s - 1 - lo_top);
  /* Sample gaps between the thresholds (to the top without an upper one). */
  double m = (double)clsort__min(p.hi_rank, p.s) - (double)p.lo_rank;
  p.cap = cap_for(n, p.s, m);
  p.worth = m <= (double)p.s / 4;
  if (kb == KNOB_TIGHT) p.cap = 1;
  return p;
}

/* The control buffer's layout (topk.cl's TK_*), in 4-byte words: the
 * counts, topk_final's and topk_settle's flags, the thresholds from word
 * 4, the sample from word 8. */
#define CTL_FOUND 0
#define CTL_BELOW 1
#define CTL_FINAL 2
#define CTL_UNSETTLED 3
#define CTL_BOUNDS 4
#define CTL_SAMPLE 8

/* The sample, then the thresholds from it, into ctl: topk_sample draws
 * the sample (a work-item per key on GPUs; a few work-items walk it in
 * the CPU shape, whose groups of one work-item cost a launch each), then
 * topk_thresholds' one group picks the thresholds. That group can draw
 * the sample itself (CLSORT_TOPK_DRAW=inside, GPU shapes), saving a
 * launch, but one multiprocessor's loads in flight bound its 16384 random
 * reads: on the H100 (2^26 u32 keys, the same call) top-k of k = 100 took
 * 0.247 ms that way against 0.181 with the launch of its own, and k =
 * 10^4 0.274 against 0.207 (docs/results/topk-2026-11-26-h100). */
static clsort_status pick_thresholds(clsort_context *ctx, const clsort__sort_job *job,
                                     cl_mem keys, size_t n, const plan *p, knob kb, cl_mem ctl) {
  size_t ks = clsort_type_size(job->type), wg = ctx->tuning.wg_size;
  cl_kernel thresholds;
  FORWARD_IF_ERROR(clsort__topk_kernel(ctx, ks, "topk_thresholds", &thresholds));
  cl_ulong n64 = n, at = clsort__input_at(job, keys);
  cl_uint s32 = (cl_uint)p->s;
  const char *inside = getenv("CLSORT_TOPK_DRAW");
  int kind = clsort__key_kind(job->type), desc = job->descending;
  int draw = wg > 1 && inside && strcmp(inside, "inside") == 0;
  if (!draw) {
    cl_kernel sample;
    FORWARD_IF_ERROR(clsort__topk_kernel(ctx, ks, "topk_sample", &sample));
    clsort__arg args[] = {ARG(keys), ARG(at), ARG(n64), ARG(s32), ARG(kind), ARG(desc), ARG(ctl)};
    /* A work-item per key on GPUs; the CPU shape's groups of one
     * work-item cost a launch each, so there a few walk the sample. */
    size_t global =
        wg > 1 ? clsort__div_up(p->s, wg) * wg : clsort__chunking(ctx, p->s, 256).groups;
    FORWARD_IF_ERROR(clsort__launch(ctx, sample, global, wg, 7, args, 0, NULL, NULL));
  }
  /* hi_rank >= s (no upper threshold) and lo_rank -1 (no lower one) pass
   * as they are: the kernel knows both. */
  cl_int lo_rank = (cl_int)p->lo_rank, force_zero = kb == KNOB_LOW;
  cl_uint hi_rank = (cl_uint)clsort__min(p->hi_rank, p->s);
  clsort__arg targs[] = {ARG(keys),    ARG(at),     ARG(n64),     ARG(kind),
                         ARG(desc),    ARG(draw),   ARG(ctl),     ARG(s32),
                         ARG(lo_rank), ARG(hi_rank), ARG(force_zero)};
  return clsort__launch(ctx, thresholds, wg, wg, 11, targs, 0, NULL, NULL);
}

/* An element-wise topk.cl kernel over n elements (its TK_FOR): enough
 * groups to fill the device, none idle. */
clsort_status clsort__topk_launch_each(clsort_context *ctx, cl_kernel k, size_t n, cl_uint nargs,
                                       const clsort__arg *args) {
  size_t wg = ctx->tuning.wg_size;
  clsort__chunks c = clsort__chunking(ctx, n, clsort__tile(ctx));
  size_t global = clsort__min(c.groups * wg, clsort__div_up(n, wg) * wg);
  return clsort__launch(ctx, k, global, wg, nargs, args, 0, NULL, NULL);
}

clsort_status clsort__sample_pad(clsort_context *ctx, const clsort__sort_job *job,
                                 clsort__sampled *out) {
  size_t ks = clsort_type_size(job->type), is = out->position_size;
  cl_kernel k;
  FORWARD_IF_ERROR(clsort__topk_kernel(ctx, ks, "topk_pad", &k));
  cl_uint cap32 = (cl_uint)out->cap, room32 = (cl_uint)out->count;
  int kind = clsort__key_kind(job->type), desc = job->descending, positions = is != 0;
  int wide = is == 8;
  cl_mem pos = out->positions ? out->positions : out->keys;
  clsort__arg args[] = {ARG(out->ctl),   ARG(cap32),     ARG(room32), ARG(kind), ARG(desc),
                        ARG(out->keys), ARG(positions), ARG(wide),   ARG(pos),  ARG(pos)};
  return clsort__topk_launch_each(ctx, k, out->count, 10, args);
}

/* The largest k that topk_final takes (its TK_FINAL_MAX gathered keys
 * leave room for ties at the k-th): it replaces about a dozen launches
 * (the pad, two radix sorts, two copies; about 0.12 ms of device time on
 * the H100 whatever the count, docs/results/topk-2026-11-25-h100/
 * topk-profile.log) with one of one
 * work-group, whose rank count costs m^2 / WG_SIZE comparisons for m
 * gathered keys. CLSORT_TOPK_FINAL=K sets the limit (0: never), for the
 * tests and for measuring. */
#define FINAL_K_MAX 512u
#define FINAL_GATHER_MAX 1024u
bool clsort__sample_final_takes(size_t k) {
  unsigned limit = FINAL_K_MAX;
  if (clsort__env_fields("CLSORT_TOPK_FINAL", &limit, 1) == 1)
    limit = limit < FINAL_GATHER_MAX ? limit : FINAL_GATHER_MAX;
  return k >= 1 && k <= limit;
}

clsort_status clsort__sample_final(clsort_context *ctx, const clsort__sort_job *job,
                                   clsort__sampled *out, size_t k, const clsort__top_k_out *dst) {
  size_t ks = clsort_type_size(job->type), is = out->position_size;
  cl_kernel kernel;
  FORWARD_IF_ERROR(clsort__topk_kernel(ctx, ks, "topk_final", &kernel));
  cl_uint cap32 = (cl_uint)out->cap, k32 = (cl_uint)k;
  int kind = clsort__key_kind(job->type), desc = job->descending, positions = is != 0;
  int wide = is == 8, write_keys = dst->keys != NULL, write_positions = dst->indices != NULL;
  /* Any valid buffer stands for those the kernel does not touch (origin
   * 0). */
  cl_mem pos = out->positions ? out->positions : out->keys;
  cl_mem ok = write_keys ? dst->keys : out->keys, oi = write_positions ? dst->indices : out->keys;
  cl_ulong ok_at = write_keys ? dst->keys_at : 0, oi_at = write_positions ? dst->indices_at : 0;
  clsort__arg args[] = {ARG(out->ctl),    ARG(cap32),      ARG(k32),
                        ARG(kind),        ARG(desc),       ARG(out->keys),
                        ARG(positions),   ARG(wide),       ARG(pos),
                        ARG(pos),         ARG(write_keys), ARG(ok),
                        ARG(ok_at),       ARG(write_positions), ARG(oi),
                        ARG(oi),          ARG(oi_at)};
  size_t wg = ctx->tuning.wg_size;
  FORWARD_IF_ERROR(clsort__launch(ctx, kernel, wg, wg, 17, args, 0, NULL, NULL));
  out->final_ran = true;
  return CLSORT_SUCCESS;
}

clsort_status clsort__sample_settle(clsort_context *ctx, const clsort__sort_job *job,
                                    clsort__sampled *out, size_t k, cl_mem sorted_keys,
                                    cl_mem sorted_positions, const clsort__top_k_out *dst) {
  size_t ks = clsort_type_size(job->type);
  cl_kernel kernel;
  FORWARD_IF_ERROR(clsort__topk_kernel(ctx, ks, "topk_settle", &kernel));
  cl_uint count32 = (cl_uint)out->count, k32 = (cl_uint)k;
  int kind = clsort__key_kind(job->type), desc = job->descending;
  int wide = out->position_size == 8, write_keys = dst->keys != NULL;
  /* Without keys out, the sorted keys stand in, never written (origin 0). */
  cl_mem ok = write_keys ? dst->keys : sorted_keys;
  cl_ulong ok_at = write_keys ? dst->keys_at : 0, oi_at = dst->indices_at;
  clsort__arg args[] = {ARG(out->ctl),   ARG(count32),      ARG(k32),
                        ARG(kind),       ARG(desc),         ARG(sorted_keys),
                        ARG(wide),       ARG(sorted_positions), ARG(sorted_positions),
                        ARG(write_keys), ARG(ok),           ARG(ok_at),
                        ARG(dst->indices), ARG(dst->indices), ARG(oi_at)};
  /* topk.cl's TK_RUN_MAX: the entries past k whose run may start before. */
  size_t wg = ctx->tuning.wg_size, items = clsort__min(out->count, k + 4096);
  FORWARD_IF_ERROR(clsort__launch(ctx, kernel, clsort__div_up(items, wg) * wg, wg, 15, args, 0,
                                  NULL, NULL));
  out->settle_ran = true;
  return CLSORT_SUCCESS;
}

clsort_status clsort__sample_check(clsort_context *ctx, const clsort__sort_job *job,
                                   clsort__sampled *out) {
  size_t ks = clsort_type_size(job->type);
  cl_uint words[CTL_SAMPLE];
  FORWARD_IF_ERROR(CL_CHECK(
      clEnqueueReadBuffer(ctx->queue, out->ctl, CL_TRUE, 0, sizeof words, words, 0, NULL, NULL)));
  uint64_t lo = 0, hi = 0;
  const unsigned char *bounds = (const unsigned char *)(words + CTL_BOUNDS);
  if (ks == 8) {
    memcpy(&lo, bounds, 8);
    memcpy(&hi, bounds + 8, 8);
  } else {
    uint32_t l, h;
    memcpy(&l, bounds, 4);
    memcpy(&h, bounds + 4, 4);
    lo = l;
    hi = h;
  }
  size_t found = words[CTL_FOUND], below = words[CTL_BELOW];
  out->found = found <= out->cap && below <= out->first && below + found > out->last;
  /* topk_final and topk_settle also give up on too many keys equal to
   * the k-th. */
  if (out->final_ran) out->found = out->found && words[CTL_FINAL];
  if (out->settle_ran) out->found = out->found && !words[CTL_UNSETTLED];
  out->pending = false;
  last_path = out->found ? SELECT_PATH_SAMPLED : SELECT_PATH_FALLBACK;
  clsort__debug("top-k sample: lo=%llx hi=%llx cap=%zu found=%zu below=%zu%s%s",
                (unsigned long long)lo, (unsigned long long)hi, out->cap, found, below,
                out->final_ran ? (words[CTL_FINAL] ? " final" : " final gave up")
                : out->settle_ran ? (words[CTL_UNSETTLED] ? " settle gave up" : " settled")
                                  : "",
                out->found ? "" : ": missed");
  out->count = found;
  out->below = below;
  out->hi = hi;
  return CLSORT_SUCCESS;
}

clsort_status clsort__sample_candidates(clsort_context *ctx, const clsort__sort_job *job,
                                        cl_mem keys, size_t n, size_t first, size_t last,
                                        size_t position_size, size_t late_room,
                                        clsort__sampled *out) {
  memset(out, 0, sizeof *out);
  knob kb = read_knob();
  if (kb == KNOB_RADIX || n < SAMPLE_MIN_N || n > UINT32_MAX) return CLSORT_SUCCESS;
  plan p = make_plan(n, first, last, kb);
  /* So many candidates would cost about what the radix select does. */
  if (!p.worth && kb == KNOB_NONE) return CLSORT_SUCCESS;
  size_t ks = clsort_type_size(job->type), is = position_size;

  bool gpu = ctx->tuning.wg_size > 1;
  size_t wg = ctx->tuning.wg_size;
  size_t tile = gpu ? wg * clsort__min(ctx->tuning.items, FILTER_ITEMS_MAX) : clsort__tile(ctx);
  clsort__chunks c = clsort__chunking(ctx, n, tile);
  cl_mem ctl, ck, cp = NULL;
  size_t ctl_bytes = CTL_SAMPLE * sizeof(cl_uint) + p.s * ks;
  /* clsort_scratch_bytes (ctx->measuring) asks the largest buffers any
   * rank's plan takes, then runs the radix select: its compactions, which
   * a run on synthetic keys might not reach through this path. A late
   * read may sort the whole buffer: at least the k entries copied out. */
  size_t room = ctx->measuring ? largest_cap(n, p.s) : clsort__max(p.cap, late_room);
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_TOPK_CTL, ctl_bytes, &ctl));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_TOPK_KEYS, room * ks, &ck));
  if (is) FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_TOPK_POSITIONS, room * is, &cp));
  if (ctx->measuring) return CLSORT_SUCCESS;
  cl_kernel filter;
  FORWARD_IF_ERROR(clsort__topk_kernel(ctx, ks, "topk_filter", &filter));
  FORWARD_IF_ERROR(pick_thresholds(ctx, job, keys, n, &p, kb, ctl));
  clsort__debug("top-k sample: s=%zu ranks %ld..%zu cap=%zu%s", p.s, p.lo_rank, p.hi_rank, p.cap,
                late_room ? ", read late" : "");

  /* The pass. */
  cl_uint cap32 = (cl_uint)p.cap;
  cl_ulong n64 = n, chunk64 = c.chunk, at = clsort__input_at(job, keys);
  int kind = clsort__key_kind(job->type), desc = job->descending, positions = is != 0;
  int wide = is == 8;
  cl_mem pos = cp ? cp : ck;
  clsort__arg args[] = {ARG(keys), ARG(at),    ARG(n64), ARG(chunk64),   ARG(kind),
                        ARG(desc), ARG(cap32), ARG(ck),  ARG(positions), ARG(wide),
                        ARG(pos),  ARG(pos),   ARG(ctl)};
  FORWARD_IF_ERROR(clsort__launch(ctx, filter, c.groups * wg, wg, 13, args, 0, NULL, NULL));
  out->keys = ck;
  out->positions = cp;
  out->position_size = is;
  out->ctl = ctl;
  out->cap = p.cap;
  out->first = first;
  out->last = last;
  if (!late_room) return clsort__sample_check(ctx, job, out);
  out->pending = true;
  out->count = room;
  /* The threshold is on the device: the sorts read every bit (the radix
   * sort's plan skips the digits every entry shares). */
  out->hi = ks == 8 ? ~(uint64_t)0 : UINT32_MAX;
  return CLSORT_SUCCESS;
}
