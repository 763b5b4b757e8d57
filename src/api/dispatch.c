/* dispatch.c: from a validated sort job to the algorithm that runs it,
 * for every form of the sort calls (sort.c in core, staging.c on GPUs,
 * out_of_core.c per chunk). */
#include "api/api.h"

const char *clsort__algorithm_name(clsort_algorithm a) {
  static const char *const names[] = {"auto", "radix", "bitonic", "sample", "merge", "quick"};
  return (unsigned)a <= CLSORT_QUICK ? names[a] : "unknown";
}

/* AUTO's choice: the bitonic sort for small inputs that ask neither for
 * stability nor for a bit range, the radix sort otherwise. Measured with
 * `clsort bench --algorithms bitonic,radix` (2026-11-21): on an H100 the
 * bitonic sort is faster up to 2^18 keys in every type and mode (one launch
 * up to a tile, against the radix sort's histogram read-back and passes);
 * on PoCL (2 cores) up to about 2^13. */
static bool auto_picks_bitonic(const clsort_context *ctx, const clsort_options *o,
                               const clsort__sort_job *job) {
  size_t limit = ctx->is_cpu ? (size_t)1 << 13 : (size_t)1 << 18;
  bool full_key = job->begin_bit == 0 && job->end_bit == clsort_type_size(job->type) * 8;
  return !(o->flags & CLSORT_STABLE) && full_key && job->n <= limit;
}

static clsort_status run(clsort_context *ctx, const clsort_options *o,
                         const clsort__sort_job *job);

/* The CPU shapes of the radix, merge, sample, quick and bitonic sorts add
 * the origins in their kernels, and so do the widening kernels of the
 * narrow types, whose values the sort then moves. The bitonic sort runs
 * the GPU shape's kernels where CLSORT_BITONIC_CPU=0, and the radix sort
 * the NVIDIA path where CLSORT_RADIX_EMULATE=1: they take their buffers
 * from 0. */
bool clsort__takes_origins(const clsort_context *ctx, const clsort_options *o,
                           const clsort__sort_job *job) {
  if (!ctx->tuning.cpu_shape) return false;
  clsort_algorithm a = o->algorithm;
  if (a == CLSORT_AUTO) a = auto_picks_bitonic(ctx, o, job) ? CLSORT_BITONIC : CLSORT_RADIX;
  if (a == CLSORT_BITONIC) return clsort__bitonic_cpu_enabled(ctx);
  if (a == CLSORT_RADIX) return clsort__radix_cpu_runs(ctx);
  return a == CLSORT_MERGE || a == CLSORT_SAMPLE || a == CLSORT_QUICK;
}

bool clsort__runs_radix(const clsort_context *ctx, const clsort_options *o,
                        const clsort__sort_job *job) {
  if (clsort__type_is_narrow(job->type)) return false;
  return o->algorithm == CLSORT_RADIX ||
         (o->algorithm == CLSORT_AUTO && !auto_picks_bitonic(ctx, o, job));
}

/* 8- and 16-bit keys: AUTO chooses on the narrow job, then the algorithm
 * sorts the keys widened to 32-bit order keys (sorts/widen.c); the radix
 * sort keeps the narrow bit range, so it runs one or two digit passes. */
static clsort_status run_widened(clsort_context *ctx, const clsort_options *o,
                                 const clsort__sort_job *job) {
  clsort_options chosen = *o;
  if (o->algorithm == CLSORT_AUTO)
    chosen.algorithm = auto_picks_bitonic(ctx, o, job) ? CLSORT_BITONIC : CLSORT_RADIX;
  clsort__sort_job wide;
  FORWARD_IF_ERROR(clsort__widen_job(ctx, job, chosen.algorithm != CLSORT_RADIX, &wide));
  FORWARD_IF_ERROR(run(ctx, &chosen, &wide));
  return clsort__narrow_job(ctx, job, &wide);
}

/* Runs the job with the algorithm the options name. */
clsort_status clsort__dispatch_sort(clsort_context *ctx, const clsort_options *o,
                                    const clsort__sort_job *job) {
  clsort_status st =
      clsort__type_is_narrow(job->type) ? run_widened(ctx, o, job) : run(ctx, o, job);
  if (ctx->timeline) clsort__timeline_print(ctx);
  return st;
}

static clsort_status run(clsort_context *ctx, const clsort_options *o,
                         const clsort__sort_job *job) {
  switch (o->algorithm) {
    case CLSORT_AUTO:
      if (auto_picks_bitonic(ctx, o, job)) return clsort__bitonic_sort(ctx, job);
      return clsort__radix_sort(ctx, job);
    case CLSORT_RADIX:
      return clsort__radix_sort(ctx, job);
    case CLSORT_BITONIC:
      return clsort__bitonic_sort(ctx, job);
    case CLSORT_SAMPLE:
      return clsort__sample_sort(ctx, job);
    case CLSORT_MERGE:
      return clsort__merge_sort(ctx, job);
    case CLSORT_QUICK:
      return clsort__quick_sort(ctx, job);
    default:
      return FAIL(CLSORT_ERROR_UNSUPPORTED, "the %s sort is not available in this build",
                  clsort__algorithm_name(o->algorithm));
  }
}
