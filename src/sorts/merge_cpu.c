/* merge_cpu.c: the merge sort's CPU shape (cl/sorts/merge_cpu.cl). Each
 * work-item sorts one cache-sized block serially, then every merge pass
 * splits the output into one range per work-item, several per core, each
 * merged by a serial loop. Stable. The same program's serial introsort
 * (introsort_cpu.cl) is the CPU shape of the unstable segmented small
 * sort. */
#include "sorts/sorts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const merge_cpu_files[] = {"common/common.cl", "sorts/keys.cl",
                                              "sorts/introsort_cpu.cl", "sorts/merge_cpu.cl",
                                              NULL};
static const clsort__program_spec merge_cpu_spec = {"merge_cpu", merge_cpu_files};

/* The range of outputs a merge work-item writes: about eight per core,
 * at least 2^14 (a power of two, as mcpu_merge needs). */
static size_t merge_chunk(const clsort_context *ctx, size_t n) {
  size_t target = n / (8 * (size_t)ctx->compute_units + 1), c = (size_t)1 << 14;
  while (c * 2 <= target) c *= 2;
  return c;
}

/* A block of 2^13 keys (32 or 64 KB with its values) merges in the core's
 * L2; merge ranges of at least 2^14 outputs, about eight per core, keep the
 * cores busy to the end of each pass. CLSORT_MERGE_CPU=BLOCK:CHUNK (log2)
 * overrides both for bench/. */
static void shape(const clsort_context *ctx, size_t n, size_t *block, size_t *chunk) {
  unsigned f[2] = {13, 0};
  unsigned got = clsort__env_fields("CLSORT_MERGE_CPU", f, 2);
  if (got < 1 || f[0] < 5 || f[0] > 24) f[0] = 13;
  *block = (size_t)1 << f[0];
  if (got >= 2 && f[1] >= 5 && f[1] <= 30) {
    *chunk = (size_t)1 << f[1];
    return;
  }
  *chunk = merge_chunk(ctx, n);
}

clsort_status clsort__cpu_sort_kernel(clsort_context *ctx, const clsort__program_spec *spec,
                                      const clsort__sort_job *job, const char *name,
                                      cl_kernel *out) {
  size_t key_size = clsort_type_size(job->type), vs = job->value_size;
  char options[128];
  snprintf(options, sizeof options, "-DKEY_T=%s -DKEY_BITS=%zu -DHAS_VALUES=%d -DVALUE_T=%s",
           key_size == 8 ? "ulong" : "uint", key_size * 8, vs ? 1 : 0,
           vs == 8 ? "ulong" : "uint");
  return clsort__get_kernel(ctx, spec, options, name, out);
}

static clsort_status merge_cpu_kernel(clsort_context *ctx, const clsort__sort_job *job,
                                      const char *name, cl_kernel *out) {
  return clsort__cpu_sort_kernel(ctx, &merge_cpu_spec, job, name, out);
}

/* Stable requests (values) sort each segment by insertion sorts and
 * merges through scratch of the buffers' length; unstable ones by the
 * introsort, in place. */
clsort_status clsort__sort_segments_cpu(clsort_context *ctx, const clsort__sort_job *job,
                                        cl_mem segments, size_t count) {
  cl_kernel k;
  cl_mem tk = NULL, tv = NULL;
  size_t n = job->n, vs = job->value_size;
  FORWARD_IF_ERROR(
      merge_cpu_kernel(ctx, job, job->stable ? "mcpu_segments_stable" : "mcpu_segments", &k));
  if (job->stable && n > 0) {
    FORWARD_IF_ERROR(
        clsort__scratch(ctx, SLOT_SEGMENT_TMP, n * clsort_type_size(job->type), &tk));
    tv = tk; /* keys-only programs ignore the values: any valid buffer */
    if (vs) FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SEGMENT_TMP_VALUES, n * vs, &tv));
  }
  if (count == 0 || n == 0) return CLSORT_SUCCESS; /* built, nothing to sort */
  cl_mem vals = vs ? job->vals_in : job->keys_in;
  cl_ulong2 at = clsort__pair_at(job, job->keys_in, vs ? vals : NULL);
  int kind = clsort__key_kind(job->type), desc = job->descending;
  if (!job->stable) {
    clsort__arg args[] = {ARG(job->keys_in), ARG(vals), ARG(at), ARG(segments), ARG(kind),
                          ARG(desc)};
    return clsort__launch(ctx, k, count, 1, 6, args, 0, NULL, NULL);
  }
  clsort__arg args[] = {ARG(job->keys_in), ARG(vals),   ARG(tk),   ARG(tv),
                        ARG(at),           ARG(segments), ARG(kind), ARG(desc)};
  return clsort__launch(ctx, k, count, 1, 8, args, 0, NULL, NULL);
}

clsort_status clsort__merge_two_cpu(clsort_context *ctx, const clsort__sort_job *job, cl_mem a,
                                    cl_mem va, size_t na, cl_mem b, cl_mem vb, size_t nb,
                                    const clsort__merge_at *at) {
  cl_kernel k;
  FORWARD_IF_ERROR(merge_cpu_kernel(ctx, job, "mcpu_merge_two", &k));
  size_t n = na + nb;
  if (n == 0) return CLSORT_SUCCESS;
  /* An empty side may come as NULL; the kernel never reads it. Keys-only
   * programs ignore the value buffers: any valid buffer. */
  cl_mem ka = a ? a : b, kb = b ? b : a, ko = job->keys_out;
  bool pairs = job->value_size != 0;
  cl_mem vxa = pairs ? (va ? va : vb) : ko, vxb = pairs ? (vb ? vb : va) : ko;
  cl_mem vo = pairs ? job->vals_out : ko;
  cl_ulong2 a_at = {{at->a, pairs ? at->va : 0}}, b_at = {{at->b, pairs ? at->vb : 0}};
  cl_ulong2 o_at = {{at->out, pairs ? at->vout : 0}};
  cl_ulong na64 = na, nb64 = nb, chunk64 = merge_chunk(ctx, n);
  int kind = clsort__key_kind(job->type), desc = job->descending;
  clsort__arg args[] = {ARG(ka),   ARG(vxa),  ARG(kb),   ARG(vxb),    ARG(ko),
                        ARG(vo),   ARG(a_at), ARG(b_at), ARG(o_at),   ARG(na64),
                        ARG(nb64), ARG(chunk64), ARG(kind), ARG(desc)};
  return clsort__launch(ctx, k, clsort__div_up(n, chunk64), 1, 14, args, 0, NULL, NULL);
}

/* A pair of buffers the sort reads or writes: keys and values, and their
 * origins (common.cl's CPU_AT). */
typedef struct mc_pair {
  cl_mem k, v;
  cl_ulong2 at;
} mc_pair;

/* A pair of the sort's own scratch, n keys and n values. Keys-only sorts
 * share the keys' buffer for values (their programs ignore it). */
static clsort_status scratch_pair(clsort_context *ctx, const clsort__sort_job *job,
                                  clsort__slot keys, clsort__slot values, mc_pair *out) {
  size_t n = job->n, ks = clsort_type_size(job->type), vs = job->value_size;
  out->at.s[0] = out->at.s[1] = 0;
  FORWARD_IF_ERROR(clsort__scratch(ctx, keys, n * ks, &out->k));
  out->v = out->k;
  if (vs) FORWARD_IF_ERROR(clsort__scratch(ctx, values, n * vs, &out->v));
  return CLSORT_SUCCESS;
}

/* Pairs sort through two pairs of scratch where the memory is there: the
 * blocks go to scratch, the passes run between the two, and only the last
 * writes the output. Through the output and one pair of scratch (as keys
 * alone always do), half the passes stream the caller's keys and values,
 * and those passes took 1.4-1.9x as long in about half the processes on
 * the 2-core machine, by where ASLR put the arrays (mcpu_merge 279-472 ms
 * against 246-337 for 2^24 u32 pairs over ten processes each, 2026-11-27,
 * docs/results/late-2026-11-27-pocl31-2cores). The second pair is
 * n keys and n values more; without it the sort runs the old way.
 * CLSORT_MERGE_CPU_SPARE=0 (environment) turns it off, for bench/. */
static bool second_pair(clsort_context *ctx, const clsort__sort_job *job, mc_pair *out) {
  const char *env = getenv("CLSORT_MERGE_CPU_SPARE");
  if (!job->value_size || (env && strcmp(env, "0") == 0)) return false;
  if (scratch_pair(ctx, job, SLOT_SORT_KEYS3, SLOT_SORT_VALUES2, out) == CLSORT_SUCCESS)
    return true;
  clsort__clear_error();
  return false;
}

/* The pair that step p of a sort of `passes` passes writes (0: the
 * blocks; p >= 1: pass p - 1, which reads step p - 1's). The last lands
 * in `out`. With the spare pair, the blocks go to s[0] and the passes
 * alternate between s[0] and s[1]; without it, between `out` and s[0]. */
static const mc_pair *written_by(unsigned p, unsigned passes, bool spare, const mc_pair *out,
                                 const mc_pair *s) {
  if (spare) return p == passes ? out : &s[p % 2];
  return (passes - p) % 2 ? &s[0] : out;
}

clsort_status clsort__merge_sort_cpu(clsort_context *ctx, const clsort__sort_job *job) {
  size_t n = job->n, key_size = clsort_type_size(job->type), vs = job->value_size;
  size_t block, chunk;
  shape(ctx, n, &block, &chunk);
  cl_kernel runs, merge;
  FORWARD_IF_ERROR(merge_cpu_kernel(ctx, job, "mcpu_runs", &runs));
  FORWARD_IF_ERROR(merge_cpu_kernel(ctx, job, "mcpu_merge", &merge));

  unsigned passes = 0;
  for (size_t r = block; r < n; r *= 2) passes++;
  /* The final keys land in `out`: the caller's, or scratch for an argsort. */
  mc_pair out = {job->keys_out, job->vals_out, {{0, 0}}};
  if (!out.k) FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS2, n * key_size, &out.k));
  if (!vs) out.v = out.k; /* keys-only programs ignore values: any valid buffer */
  out.at = clsort__pair_at(job, out.k, out.v);
  mc_pair s[2];
  FORWARD_IF_ERROR(scratch_pair(ctx, job, SLOT_SORT_KEYS, SLOT_SORT_VALUES, &s[0]));
  bool spare = second_pair(ctx, job, &s[1]);
  const mc_pair *w0 = written_by(0, passes, spare, &out, s);
  /* The blocks' other pair, between their own merges. */
  const mc_pair *t = spare ? &s[1] : w0 == &out ? &s[0] : &out;

  cl_mem vin = vs && !job->make_index ? job->vals_in : w0->v;
  cl_ulong n64 = n, block64 = block;
  int kind = clsort__key_kind(job->type), desc = job->descending, make_index = job->make_index;
  cl_ulong2 in_at = clsort__pair_at(job, job->keys_in, vin);
  clsort__arg run_args[] = {ARG(job->keys_in), ARG(vin),  ARG(w0->k), ARG(w0->v), ARG(t->k),
                            ARG(t->v),         ARG(in_at), ARG(w0->at), ARG(t->at), ARG(n64),
                            ARG(block64),      ARG(kind), ARG(desc),  ARG(make_index)};
  size_t blocks = clsort__div_up(n, block);
  FORWARD_IF_ERROR(clsort__launch(ctx, runs, blocks, 1, 14, run_args, 0, NULL, NULL));
  for (unsigned p = 0; p < passes; p++) {
    size_t run = block << p;
    const mc_pair *from = written_by(p, passes, spare, &out, s);
    const mc_pair *to = written_by(p + 1, passes, spare, &out, s);
    cl_ulong run64 = run, chunk64 = chunk < 2 * run ? chunk : 2 * run;
    clsort__arg args[] = {ARG(from->k),  ARG(to->k), ARG(from->v), ARG(to->v),
                          ARG(from->at), ARG(to->at), ARG(n64),    ARG(run64),
                          ARG(chunk64),  ARG(kind),  ARG(desc)};
    FORWARD_IF_ERROR(clsort__launch(ctx, merge, clsort__div_up(n, chunk64), 1, 11, args, 0, NULL,
                                    NULL));
  }
  return CLSORT_SUCCESS;
}
