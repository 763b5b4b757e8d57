/* merge_sort.c: the merge sort. One launch sorts every bitonic tile into a
 * run; each merge pass then merges pairs of runs with merge path (seed
 * 002: every output finds its place by binary search; co-rank splitters
 * give every work-group the same share), doubling the run length. Stable
 * whenever it can be observed: with values, the runs come from the stable
 * tile, and the merges take the left run's key first on ties. */
#include "sorts/sorts.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const merge_files[] = {"common/common.cl", "sorts/keys.cl", "sorts/merge.cl",
                                          NULL};
static const clsort__program_spec merge_spec = {"merge", merge_files};

/* The merge pass shape: work-items per group and outputs per work-item. */
typedef struct merge_shape {
  unsigned wg, items;
} merge_shape;

/* GPUs: 16 outputs per work-item for 4-byte keys, 8 for 8-byte ones (a
 * tile of 16 KB of keys plus 16 KB of source positions, which leaves room
 * for several groups per multiprocessor). The one-work-item CPU shape
 * merges long serial runs. The tile must divide 2 * run, the length of a
 * merged pair of runs, so that no group straddles two pairs.
 * CLSORT_MERGE=WG:ITEMS overrides it; bench/ uses it to measure. */
static merge_shape shape_for(const clsort_context *ctx, size_t key_size, size_t run) {
  merge_shape s;
  s.wg = ctx->tuning.wg_size;
  s.items = s.wg == 1 ? 2048 : key_size == 4 ? 16 : 8;
  static const char *const name = "CLSORT_MERGE";
  unsigned f[2] = {0, 0};
  if (clsort__env_fields(name, f, 2) == 2 &&
      clsort__env_field_ok(name, "WG", f[0], 1, (unsigned)ctx->max_wg_size, ENV_POW2) &&
      clsort__env_field_ok(name, "ITEMS", f[1], 1, 8192, ENV_POW2)) {
    s.wg = f[0];
    s.items = f[1];
  }
  unsigned vector = 16 / (unsigned)key_size;
  if (s.items < vector) s.items = vector;
  while ((size_t)s.wg * s.items > 2 * run && s.items > vector) s.items /= 2;
  while ((size_t)s.wg * s.items > 2 * run && s.wg > 1) s.wg /= 2;
  /* Local memory: the tile's keys and its padded 4-byte positions. */
  while ((size_t)s.wg * s.items * (key_size + 4) + 2048 > ctx->local_mem && s.items > vector)
    s.items /= 2;
  return s;
}

static clsort_status merge_kernel(clsort_context *ctx, const clsort__sort_job *job, merge_shape s,
                                  cl_kernel *out) {
  size_t key_size = clsort_type_size(job->type);
  char options[192];
  snprintf(options, sizeof options,
           "-DKEY_T=%s -DKEY_BITS=%zu -DHAS_VALUES=%d -DVALUE_T=%s -DMG_WG=%u -DMG_ITEMS=%u",
           key_size == 8 ? "ulong" : "uint", key_size * 8, job->value_size ? 1 : 0,
           job->value_size == 8 ? "ulong" : "uint", s.wg, s.items);
  return clsort__get_kernel(ctx, &merge_spec, options, "merge_pass", out);
}

clsort_status clsort__merge_sort(clsort_context *ctx, const clsort__sort_job *job) {
  size_t n = job->n, key_size = clsort_type_size(job->type), vs = job->value_size;
  if (n == 0) return CLSORT_SUCCESS;
  if (ctx->tuning.cpu_shape) return clsort__merge_sort_cpu(ctx, job);
  /* Runs: the stable tile whenever values can show the order of equal
   * keys; keys alone cannot, and take the larger unstable tile. */
  clsort__sort_job tile_job = *job;
  tile_job.stable = vs != 0;
  clsort__bitonic_shape bs = clsort__bitonic_shape_for(ctx, key_size, vs, tile_job.stable);
  size_t run = bs.tile;
  unsigned passes = 0;
  for (size_t r = run; r < n; r *= 2) passes++;
  merge_shape ms = shape_for(ctx, key_size, run);

  cl_kernel sort_tiles, merge = NULL;
  FORWARD_IF_ERROR(clsort__bitonic_kernel(ctx, &tile_job, BITONIC_SORT_TILES, &sort_tiles));
  if (passes) FORWARD_IF_ERROR(merge_kernel(ctx, job, ms, &merge));

  /* Buffers: pass i (0 is the run formation) writes K[(passes - i) % 2],
   * so that the last lands in the output. An argsort's keys end in
   * scratch, and its last pass writes indices only. */
  cl_mem K[2] = {job->keys_out, NULL}, V[2] = {job->vals_out, NULL};
  if (!K[0]) FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS2, n * key_size, &K[0]));
  if (passes) {
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS, n * key_size, &K[1]));
    if (vs) FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_VALUES, n * vs, &V[1]));
  }
  /* Keys-only programs ignore the value buffers; any valid buffer will do. */
  if (!vs) V[0] = V[1] = NULL;

  cl_ulong n64 = n;
  int kind = clsort__key_kind(job->type), desc = job->descending, make_index = job->make_index;
  cl_mem kout = K[passes % 2], vout = vs ? V[passes % 2] : kout;
  cl_mem vin = vs && !make_index ? job->vals_in : vout;
  clsort__arg tile_args[] = {ARG(job->keys_in), ARG(kout), ARG(vin),  ARG(vout),
                             ARG(n64),          ARG(kind), ARG(desc), ARG(make_index)};
  FORWARD_IF_ERROR(clsort__launch(ctx, sort_tiles, clsort__div_up(n, bs.tile) * bs.wg, bs.wg, 8,
                                  tile_args, 0, NULL, NULL));

  size_t tile = (size_t)ms.wg * ms.items, groups = clsort__div_up(n, tile);
  for (unsigned p = 0; p < passes; p++, run *= 2) {
    cl_mem kin = K[(passes - p) % 2], ko = K[(passes - p - 1) % 2];
    cl_mem vi = vs ? V[(passes - p) % 2] : kin, vo = vs ? V[(passes - p - 1) % 2] : ko;
    cl_ulong run64 = run, b_first = 0;
    int write_keys = job->keys_out != NULL || p + 1 < passes, b_apart = 0;
    clsort__arg args[] = {ARG(kin),   ARG(kin),     ARG(ko),   ARG(vi),   ARG(vi),
                          ARG(vo),    ARG(n64),     ARG(run64), ARG(run64), ARG(b_first),
                          ARG(b_apart), ARG(kind),  ARG(desc), ARG(write_keys)};
    FORWARD_IF_ERROR(clsort__launch(ctx, merge, groups * ms.wg, ms.wg, 14, args, 0, NULL, NULL));
  }
  return CLSORT_SUCCESS;
}

clsort_status clsort__merge_two(clsort_context *ctx, const clsort__sort_job *job, cl_mem a,
                                cl_mem va, size_t na, cl_mem b, cl_mem vb, size_t b_first,
                                size_t nb) {
  size_t n = na + nb, key_size = clsort_type_size(job->type), vs = job->value_size;
  if (n == 0) return CLSORT_SUCCESS;
  /* One pair: a run (a power of two) that holds all n outputs, so that
   * every group's pair starts at 0; its left run is all of A. At least
   * 2^16, so that the tile (which shrinks to 2 * run) and with it the
   * kernel variant are the same for every n. */
  size_t run = (size_t)1 << 16;
  while (run < n) run *= 2;
  merge_shape ms = shape_for(ctx, key_size, run);
  cl_kernel merge;
  FORWARD_IF_ERROR(merge_kernel(ctx, job, ms, &merge));
  /* An empty side may come as NULL; the kernel never reads it. */
  cl_mem ka = a ? a : b, kb = b ? b : a;
  cl_mem pa = vs ? (va ? va : vb) : job->keys_out, pb = vs ? (vb ? vb : va) : job->keys_out;
  cl_mem vo = vs ? job->vals_out : job->keys_out;
  cl_ulong n64 = n, run64 = run, left = na, first = b_first;
  int kind = clsort__key_kind(job->type), desc = job->descending, write_keys = 1, b_apart = 1;
  clsort__arg args[] = {ARG(ka),      ARG(kb),     ARG(job->keys_out), ARG(pa),   ARG(pb),
                        ARG(vo),      ARG(n64),    ARG(run64),         ARG(left), ARG(first),
                        ARG(b_apart), ARG(kind),   ARG(desc),          ARG(write_keys)};
  size_t groups = clsort__div_up(n, (size_t)ms.wg * ms.items);
  return clsort__launch(ctx, merge, groups * ms.wg, ms.wg, 14, args, 0, NULL, NULL);
}
