/* bitonic.c: the bitonic sort for any n. One launch sorts every tile in
 * local memory; each later merge stage runs its strides of a tile and more
 * as strided tile merges (up to 10 steps a launch for u32 keys: a tile of
 * 2^10 elements of each of 8 neighbouring cosets, through local memory),
 * then its strides below a tile in one tile merge. Every launch reads and
 * writes all the data, so launches set the time: 2^24 u32 keys take 24
 * launches (tile 8192; 1.55 ms on an H100, 0.56x CUB's merge sort in the
 * same run), where global launches of 5 steps fused in scalar registers
 * took 30 (1.83 ms), 16-byte vector slots (3 steps) and a separate local
 * launch per stage 38 (4.9 GB, 2.42 ms), and one step per launch 300.
 * The register launches and the wide tile merge (the last global steps
 * and the tile merge in one launch, where registers allow) remain for
 * shapes without the strided merge. CLSORT_BITONIC and
 * CLSORT_BITONIC_STRIDED (below) select the earlier shapes, so that bench/
 * can compare them on one device. */
#include "sorts/sorts.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const bitonic_files[] = {"common/common.cl", "sorts/keys.cl", "sorts/bitonic.cl",
                                            NULL};
static const clsort__program_spec bitonic_spec = {"bitonic", bitonic_files};

static const char *const kernel_names[] = {"bitonic_sort_tiles", "bitonic_merge_tiles",
                                           "bitonic_global", "bitonic_sort_segments",
                                           "bitonic_merge_wide", "bitonic_merge_strided"};

static unsigned log2_exact(size_t x) {
  unsigned r = 0;
  while (((size_t)1 << r) < x) r++;
  return r;
}

/* Largest power of two <= x (x >= 1). */
static size_t pow2_floor(size_t x) {
  size_t p = 1;
  while (p <= x / 2) p *= 2;
  return p;
}

clsort__bitonic_shape clsort__bitonic_shape_for(const clsort_context *ctx, size_t key_size,
                                                size_t value_size, bool stable) {
  clsort__bitonic_shape s;
  /* A stable tile carries each element's 4-byte position too. */
  size_t element = key_size + value_size + (stable ? 4 : 0);
  /* Elements per work-item: 16 in GPU registers; 4 on CPUs, where more
   * only multiplies PoCL's compile time. */
  s.log_items = ctx->is_cpu ? 2 : 4;
  size_t tile;
  if (ctx->tuning.bitonic_wg) {
    /* A forced shape (CLSORT_TUNING=WG:...) sets the tile: 16 x WG. */
    tile = (size_t)ctx->tuning.bitonic_wg << 4;
  } else {
    /* The largest tile whose keys and values (padded one word in 32) fit
     * the local memory a group may use: 48 KB on NVIDIA. CPUs get 4096
     * elements, a tile that stays in a core's L1/L2 cache. */
    size_t budget = clsort__min(ctx->local_mem, 48 * 1024) - 512;
    tile = pow2_floor(budget * 32 / 33 / element);
    if (ctx->is_cpu) tile = clsort__min(tile, 4096);
  }
  s.wg = (unsigned)clsort__max(tile >> s.log_items, 1);
  while (s.wg > ctx->max_wg_size && s.wg > 1) s.wg /= 2;
  s.tile = (size_t)s.wg << s.log_items;
  /* Steps fused per global launch: each work-item holds 2^log_global
   * elements (scalar slots, global_lanes 1) of 128 bytes of keys alone or
   * 256 with values: 5 steps for u32 keys, 4 for u64 keys or u32 pairs.
   * Measured on an H200 with 16-byte vector slots (2^24 u32, CLSORT_BITONIC
   * sweep): keys 2.09 ms at 3 steps (32 keys) and 128 work-items, 2.69 ms
   * at 4 (64 keys, 238 registers, one group per SM); pairs 4.42 ms at 4,
   * 4.92 at 3. Scalar slots fuse 5 steps in the registers that vectors
   * spent on 3. */
  size_t pair = key_size + value_size, budget = value_size ? 256 : 128;
  s.log_global = 1;
  while (s.log_global < 6 && pair << (s.log_global + 1) <= budget) s.log_global++;
  s.global_lanes = 1;
  s.global_wg = ctx->is_cpu ? 64 : 128;
  /* The wide tile merge holds 2^wide elements of each of a tile
   * work-item's 16 columns: 256 bytes of keys and values (2 steps for u32
   * keys, 1 for 8-byte elements, none above). ptxas for sm_90 gives it 155
   * registers for u32 keys, 128 with 16 bytes spilled when capped for
   * 512 work-items (scripts/check-nvptx). */
  s.wide = 0;
  while (s.wide < 3 && pair << (s.wide + 1) <= 16) s.wide++;
  /* CLSORT_BITONIC=FUSED[:GLOBAL_WG[:VECTOR[:WIDE]]] overrides the global
   * launches' shape (VECTOR 1: 16-byte vector slots, the earlier shape, at
   * most 4 steps) and the wide merge's steps (0 to 3; 0: none); bench/ uses
   * it to measure alternatives. A shape is one unit: a field out of range
   * keeps the whole default. */
  unsigned f[4] = {0, 0, 0, 0};
  static const char *const name = "CLSORT_BITONIC";
  unsigned got = clsort__env_fields(name, f, 4);
  bool vector = got >= 3 && f[2] == 1;
  if (got >= 1 && clsort__env_field_ok(name, "FUSED", f[0], 1, vector ? 4 : 6, ENV_ANY) &&
      (got < 2 ||
       clsort__env_field_ok(name, "GLOBAL_WG", f[1], 1, (unsigned)ctx->max_wg_size, ENV_POW2)) &&
      (got < 3 || clsort__env_field_ok(name, "VECTOR", f[2], 0, 1, ENV_ANY)) &&
      (got < 4 || clsort__env_field_ok(name, "WIDE", f[3], 0, 3, ENV_ANY))) {
    s.log_global = f[0];
    if (got >= 2) s.global_wg = f[1];
    if (vector) s.global_lanes = (unsigned)(16 / key_size);
    if (got >= 4) s.wide = f[3];
  }
  /* PoCL 5.0's work-group compiler aborts the process on the wide merge
   * (Kernel.cc:129, createParallelRegionBefore: region_entry_barrier;
   * 16 Xeon cores, the GPU shape forced, any key type), where PoCL 3.1
   * compiles it: CPU devices never take it, whatever CLSORT_BITONIC says.
   * GPUs run it where their driver fits a tile's group (the H100 ran it
   * for u32 pairs, not for u32 keys: 155 registers for 512 work-items). */
  if (ctx->is_cpu) s.wide = 0;
  /* The strided tile merge (bitonic.cl) takes up to log2(tile) - c global
   * steps a launch, where 2^c keys fill a run of at least 32 bytes (a
   * sector of NVIDIA's memory): 10 for u32 keys in tiles of 8192, against
   * the 5 of the register slots. CLSORT_BITONIC_STRIDED=BYTES sets the
   * run (a power of two; 0: no strided merge), for bench/. */
  unsigned run = 32, bytes = 0;
  static const char *const strided = "CLSORT_BITONIC_STRIDED";
  if (clsort__env_fields(strided, &bytes, 1) == 1 &&
      clsort__env_field_ok(strided, "BYTES", bytes, 0, 65536, ENV_POW2))
    run = bytes;
  unsigned log_tile = log2_exact(s.tile), c = 0;
  while (((size_t)key_size << c) < run) c++;
  s.strided = run && c < log_tile ? log_tile - c : 0;
  return s;
}

clsort_status clsort__bitonic_kernel(clsort_context *ctx, const clsort__sort_job *job,
                                     clsort__bitonic_kernel_id which, cl_kernel *out) {
  size_t key_size = clsort_type_size(job->type);
  clsort__bitonic_shape s = clsort__bitonic_shape_for(ctx, key_size, job->value_size, job->stable);
  char options[352];
  int len = snprintf(options, sizeof options,
                     "-DKEY_T=%s -DKEY_BITS=%zu -DHAS_VALUES=%d -DVALUE_T=%s -DBT_WG=%u "
                     "-DBT_LOG_ITEMS=%u -DBT_STABLE=%d",
                     key_size == 8 ? "ulong" : "uint", key_size * 8, job->value_size ? 1 : 0,
                     job->value_size == 8 ? "ulong" : "uint", s.wg, s.log_items,
                     job->stable ? 1 : 0);
  /* The merge launches build as a program of their own: the tile kernels,
   * which every comparison sort uses, stay small (the wide merge alone
   * takes PoCL seconds to build) and the same whatever CLSORT_BITONIC says. */
  /* With strided tile merges the register launches are not built: their
   * six unrolled variants are most of the program's build (NVIDIA). */
  if (which == BITONIC_MERGE_TILES || which == BITONIC_GLOBAL || which == BITONIC_MERGE_WIDE ||
      which == BITONIC_MERGE_STRIDED)
    snprintf(options + len, sizeof options - (size_t)len,
             " -DBT_MERGE_KERNELS=1 -DBT_LOG_GLOBAL=%u -DBT_GLOBAL_WG=%u -DBT_GLOBAL_LANES=%u "
             "-DBT_WIDE=%u",
             s.strided ? 0 : s.log_global, s.global_wg, s.global_lanes, s.wide);
  return clsort__get_kernel(ctx, &bitonic_spec, options, kernel_names[which], out);
}

/* One global launch: r steps at element bits [lo, lo + r), the first a
 * flip when `flip`. Only cosets of slots holding an element below n get a
 * work-item. */
static clsort_status launch_global(clsort_context *ctx, cl_kernel k, const clsort__bitonic_shape *s,
                                   const clsort__sort_job *job, cl_mem keys, cl_mem vals,
                                   unsigned lo, unsigned r, bool flip) {
  size_t v = s->global_lanes;
  cl_ulong n = job->n, nv = (n + v - 1) / v;
  cl_uint lo_v = lo - log2_exact(v), rr = r;
  unsigned top = lo_v + r;
  cl_ulong cosets = ((nv >> top) << lo_v) + clsort__min(nv & (((cl_ulong)1 << top) - 1),
                                                       (cl_ulong)1 << lo_v);
  cl_ulong per = (cl_ulong)1 << (s->log_global - r), threads = (cosets + per - 1) / per;
  int flip_arg = flip, kind = clsort__key_kind(job->type), desc = job->descending;
  clsort__arg args[] = {ARG(keys),    ARG(vals),   ARG(n),    ARG(lo_v), ARG(rr),
                        ARG(flip_arg), ARG(cosets), ARG(threads), ARG(kind), ARG(desc)};
  return clsort__launch(ctx, k, threads, s->global_wg, 10, args, 0, NULL, NULL);
}

/* One strided tile merge: r steps at element bits [lo, lo + r), the first
 * a flip when `flip`; a group per tile of 2^(log tile - r) cosets in each
 * block of 2^(lo + r) elements that holds any below n. */
static clsort_status launch_strided(clsort_context *ctx, cl_kernel k,
                                    const clsort__bitonic_shape *s, const clsort__sort_job *job,
                                    cl_mem keys, cl_mem vals, unsigned lo, unsigned r, bool flip) {
  cl_ulong n = job->n;
  unsigned c = log2_exact(s->tile) - r;
  size_t blocks = (size_t)((n - 1) >> (lo + r)) + 1, groups = blocks << (lo - c);
  cl_uint lo_arg = lo, r_arg = r;
  int flip_arg = flip, kind = clsort__key_kind(job->type), desc = job->descending;
  clsort__arg args[] = {ARG(keys),     ARG(vals), ARG(n),    ARG(lo_arg),
                        ARG(r_arg),    ARG(flip_arg), ARG(kind), ARG(desc)};
  return clsort__launch(ctx, k, groups * s->wg, s->wg, 8, args, 0, NULL, NULL);
}

clsort_status clsort__bitonic_sort(clsort_context *ctx, const clsort__sort_job *job) {
  size_t n = job->n, key_size = clsort_type_size(job->type);
  if (n == 0) return CLSORT_SUCCESS;
  if (clsort__bitonic_cpu_enabled(ctx)) return clsort__bitonic_sort_cpu(ctx, job);
  clsort__bitonic_shape s = clsort__bitonic_shape_for(ctx, key_size, job->value_size, false);
  cl_kernel sort_tiles, merge_tiles, global = NULL, wide = NULL, strided = NULL;
  FORWARD_IF_ERROR(clsort__bitonic_kernel(ctx, job, BITONIC_SORT_TILES, &sort_tiles));
  FORWARD_IF_ERROR(clsort__bitonic_kernel(ctx, job, BITONIC_MERGE_TILES, &merge_tiles));
  if (s.strided)
    FORWARD_IF_ERROR(clsort__bitonic_kernel(ctx, job, BITONIC_MERGE_STRIDED, &strided));
  else
    FORWARD_IF_ERROR(clsort__bitonic_kernel(ctx, job, BITONIC_GLOBAL, &global));
  if (s.wide) {
    FORWARD_IF_ERROR(clsort__bitonic_kernel(ctx, job, BITONIC_MERGE_WIDE, &wide));
    /* The wide merge holds the most registers of all: a driver that cannot
     * run it in a tile's group (a compiler that does not cap its registers
     * for reqd_work_group_size) gets the stages without it. */
    if (clsort__kernel_wg_limit(ctx, wide) < s.wg) {
      clsort__debug("bitonic: the wide merge cannot run %u work-items; stages without it", s.wg);
      s.wide = 0;
    }
  }
  /* An argsort keeps the caller's keys: it sorts a copy in scratch. */
  cl_mem keys = job->keys_out;
  if (!keys) FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS, n * key_size, &keys));
  /* Keys-only programs ignore the value buffers; any valid buffer will do. */
  cl_mem vals = job->value_size ? job->vals_out : keys;
  cl_mem vals_in = job->value_size && !job->make_index ? job->vals_in : vals;

  cl_ulong n64 = n;
  int kind = clsort__key_kind(job->type), desc = job->descending, make_index = job->make_index;
  size_t tiles = clsort__div_up(n, s.tile);
  clsort__arg sort_args[] = {ARG(job->keys_in), ARG(keys), ARG(vals_in), ARG(vals),
                             ARG(n64),          ARG(kind), ARG(desc),    ARG(make_index)};
  FORWARD_IF_ERROR(clsort__launch(ctx, sort_tiles, tiles * s.wg, s.wg, 8, sort_args, 0, NULL, NULL));

  /* Merge stages of blocks larger than a tile, up to the power of two
   * that covers n: the global strides but the last g in launches of
   * log_global steps, then the last g and those below the tile in one wide
   * merge (or those below the tile alone when g is 0). */
  unsigned log_tile = log2_exact(s.tile), log_n = log2_exact(n);
  clsort__arg merge_args[] = {ARG(keys), ARG(vals), ARG(n64), ARG(kind), ARG(desc)};
  for (unsigned stage = log_tile + 1; stage <= log_n; stage++) {
    cl_uint g = (cl_uint)clsort__min(s.wide, stage - log_tile);
    /* The wide merge runs one group per 2^g tiles, each tile in turn:
     * below a group per compute unit (2^20 u32 keys on an H100) it would
     * leave most of the device idle, so fewer tiles per group or none. */
    while (g && (n >> (log_tile + g)) < ctx->compute_units) g--;
    unsigned top = stage;
    while (top > log_tile + g) {
      unsigned left = top - log_tile - g;
      if (strided) {
        unsigned r = (unsigned)clsort__min(s.strided, left);
        FORWARD_IF_ERROR(launch_strided(ctx, strided, &s, job, keys, vals, top - r, r, top == stage));
        top -= r;
        continue;
      }
      unsigned r = (unsigned)clsort__min(s.log_global, left);
      FORWARD_IF_ERROR(launch_global(ctx, global, &s, job, keys, vals, top - r, r, top == stage));
      top -= r;
    }
    if (g) {
      int flip = top == stage;
      clsort__arg wide_args[] = {ARG(keys), ARG(vals), ARG(n64), ARG(g), ARG(flip), ARG(kind), ARG(desc)};
      size_t groups = clsort__div_up(n, s.tile << g);
      FORWARD_IF_ERROR(
          clsort__launch(ctx, wide, groups * s.wg, s.wg, 7, wide_args, 0, NULL, NULL));
    } else {
      FORWARD_IF_ERROR(
          clsort__launch(ctx, merge_tiles, tiles * s.wg, s.wg, 5, merge_args, 0, NULL, NULL));
    }
  }
  return CLSORT_SUCCESS;
}
