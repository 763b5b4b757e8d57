/* merge_sort.c: the merge sort. One launch sorts every tile into a run (a
 * block merge sort, block_sort.cl); each merge pass then merges pairs of
 * runs with merge path (seed 002: every output finds its place by binary
 * search; co-rank splitters, found by a launch of their own, give every
 * work-group the same share), doubling the run length. Stable: the block
 * sort and the merges take the earlier key first on ties. */
#include "sorts/sorts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const merge_files[] = {"common/common.cl", "sorts/keys.cl", "sorts/merge.cl",
                                          "sorts/block_sort.cl", NULL};
static const clsort__program_spec merge_spec = {"merge", merge_files};

/* The merge pass shape: work-items per group and outputs per work-item. */
typedef struct merge_shape {
  unsigned wg, items;
  bool regs; /* merged keys kept in registers (merge.cl's MG_REGS) */
} merge_shape;

/* GPUs: 16 outputs per work-item for 4-byte keys (in groups of at most
 * 128), 8 for 8-byte ones: tiles of 8 or 16 KB of keys (and with values
 * as many bytes of source positions), which leave room for several groups
 * per multiprocessor. The one-work-item CPU shape merges long serial
 * runs. The tile must divide 2 * run, the length of a merged pair of
 * runs, so that no group straddles two pairs.
 * CLSORT_MERGE=WG:ITEMS overrides it; bench/ uses it to measure. */
static merge_shape shape_for(const clsort_context *ctx, size_t key_size, bool values, size_t run) {
  merge_shape s;
  s.wg = ctx->tuning.wg_size;
  s.items = s.wg == 1 ? 2048 : key_size == 4 ? 16 : 8;
  /* 4-byte keys on GPUs: groups of 128 (tiles of 2048 keys). H100, with
   * the co-rank samples, u32 keys: 0.868 / 3.378 ms at 2^24 / 2^26
   * against 0.893-0.896 / 3.428-3.431 with 256; the same within noise
   * at 2^21-2^23 (call 12 of 2026-11-27). */
  if (key_size == 4 && s.wg > 128) s.wg = 128;
  /* H100, 2^20-2^26 keys: the sorts with the keys in registers took 0.6
   * to 0.8 of the time of those that gather them through the positions
   * (u64 pairs at 2^26: 10.9 ms against 13.9), the same or better
   * everywhere; CLSORT_MERGE_KEYS=positions measures the other. */
  const char *keys = getenv("CLSORT_MERGE_KEYS");
  s.regs = !(keys && strcmp(keys, "positions") == 0);
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
  /* Local memory: the tile's keys and its padded 4-byte positions (which
   * keys kept in registers need only for values). */
  size_t per_key = key_size + (s.regs && s.wg > 1 && !values ? 0 : 4);
  while ((size_t)s.wg * s.items * per_key + 2048 > ctx->local_mem && s.items > vector)
    s.items /= 2;
  return s;
}

/* The run formation's shape on GPUs (block_sort.cl): 16 keys per
 * work-item and the largest tile whose keys and values (padded one word
 * in 32) fit the 48 KB of local memory a group may use, at most 8192 keys
 * (512 work-items). On a CPU device that runs the GPU shape (the tests
 * force it), 4 keys per work-item and at most 1024: PoCL compiles the
 * unrolled network per variant, and runs a group's work-items in turn.
 * CLSORT_MERGE_BLOCK=MOST caps the tile lower (a power of two of 64 keys
 * or more; bench/ uses it to measure). */
clsort__block_shape clsort__block_shape_for(const clsort_context *ctx, size_t element) {
  clsort__block_shape b = {1, ctx->is_cpu ? 4 : 16};
  size_t budget = (clsort__min(ctx->local_mem, 48 * 1024) - 512) * 32 / 33;
  size_t most = ctx->is_cpu ? 1024 : 8192;
  static const char *const name = "CLSORT_MERGE_BLOCK";
  unsigned cap = 0;
  if (clsort__env_fields(name, &cap, 1) == 1 &&
      clsort__env_field_ok(name, "MOST", cap, 64, (unsigned)most, ENV_POW2))
    most = cap;
  while (2 * b.wg * b.items * element <= budget && 2 * b.wg * b.items <= most &&
         2 * b.wg <= ctx->max_wg_size)
    b.wg *= 2;
  return b;
}

/* The merge program's kernel `name` for the pass shape s; segmented:
 * merge.cl's variant for the segmented sort, which needs no block sort. */
static clsort_status merge_kernel(clsort_context *ctx, const clsort__sort_job *job, merge_shape s,
                                  bool segmented, const char *name, cl_kernel *out) {
  size_t key_size = clsort_type_size(job->type);
  char options[256], block[64] = "";
  /* The block sort's shape depends only on the element size: one program
   * per key and value type serves the sort and clsort_merge. CPU shapes
   * leave it out. */
  if (!ctx->tuning.cpu_shape && !segmented) {
    clsort__block_shape b = clsort__block_shape_for(ctx, key_size + job->value_size);
    snprintf(block, sizeof block, " -DBS_WG=%u -DBS_ITEMS=%u", b.wg, b.items);
  }
  snprintf(options, sizeof options,
           "-DKEY_T=%s -DKEY_BITS=%zu -DHAS_VALUES=%d -DVALUE_T=%s -DMG_WG=%u -DMG_ITEMS=%u "
           "-DMG_SEGMENTED=%d -DMG_REGS=%d%s",
           key_size == 8 ? "ulong" : "uint", key_size * 8, job->value_size ? 1 : 0,
           job->value_size == 8 ? "ulong" : "uint", s.wg, s.items, segmented ? 1 : 0,
           s.regs ? 1 : 0, block);
  return clsort__get_kernel(ctx, &merge_spec, options, name, out);
}

clsort_status clsort__merge_kernels_for(clsort_context *ctx, const clsort__sort_job *job,
                                        size_t run, bool segmented, clsort__merge_kernels *k) {
  merge_shape s = shape_for(ctx, clsort_type_size(job->type), job->value_size != 0, run);
  k->wg = s.wg;
  k->tile = (size_t)s.wg * s.items;
  /* merge.cl reads them from the merged keys it keeps in local memory,
   * a work-item a block of 32 outputs: at most 32 outputs a work-item. */
  k->samples = s.regs && s.wg > 1 && s.items <= 32 && !segmented;
  FORWARD_IF_ERROR(merge_kernel(ctx, job, s, segmented, "merge_partition", &k->probe));
  FORWARD_IF_ERROR(merge_kernel(ctx, job, s, segmented, "merge_partition_search", &k->search));
  return merge_kernel(ctx, job, s, segmented, "merge_pass", &k->merge);
}

clsort_status clsort__merge_tiles_kernel(clsort_context *ctx, const clsort__sort_job *job,
                                         cl_kernel *out, size_t *tile, unsigned *wg) {
  clsort__block_shape b = clsort__block_shape_for(ctx, clsort_type_size(job->type) + job->value_size);
  *tile = (size_t)b.wg * b.items;
  *wg = b.wg;
  /* The merge sort's own variant: the same options as its passes'. */
  merge_shape s = shape_for(ctx, clsort_type_size(job->type), job->value_size != 0, *tile);
  return merge_kernel(ctx, job, s, false, "merge_sort_tiles", out);
}

/* The rounds that narrow a bracket of up to longest + 1 candidates to one
 * when each divides it by fan_out. */
static cl_uint rounds_for(size_t fan_out, size_t longest) {
  cl_uint rounds = 0;
  for (size_t reach = 1; reach <= longest; reach *= fan_out) rounds++;
  return rounds;
}

/* How a pass finds its tiles' co-ranks (merge.cl). */
typedef enum corank_way { CORANK_FUSED, CORANK_PROBE, CORANK_SEARCH } corank_way;

/* H100 (2026-11-26, each way forced in one run, 2^20-2^26 keys): the
 * searches won from 4096 tiles on (at 2^26 u32 keys the probes of
 * merge_partition cost 58 us a pass against 29 for the searches: the
 * probes' sectors add up over 16384 tiles); the probes won at 2048 (u32
 * keys 2^23: 0.513 ms against 0.549); the search inside the merge won up
 * to 1024 (2^22: 0.258 against 0.265), and saves a launch a pass.
 * CLSORT_MERGE_PARTITION=fused|probe|search forces one (fused needs
 * groups of 2 or more). */
#define FUSED_MAX 1024
#define SEARCH_MIN 4096
static corank_way corank_way_for(const clsort__merge_kernels *k, size_t groups) {
  const char *force = getenv("CLSORT_MERGE_PARTITION");
  if (force && strcmp(force, "probe") == 0) return CORANK_PROBE;
  if (force && strcmp(force, "search") == 0) return CORANK_SEARCH;
  if (k->wg == 1) return CORANK_PROBE;
  if (force && strcmp(force, "fused") == 0) return CORANK_FUSED;
  return groups <= FUSED_MAX ? CORANK_FUSED : groups >= SEARCH_MIN ? CORANK_SEARCH : CORANK_PROBE;
}

clsort_status clsort__merge_launch(clsort_context *ctx, const clsort__merge_kernels *k,
                                   const clsort__merge_io *io, size_t groups, size_t longest) {
  corank_way way = corank_way_for(k, groups);
  cl_ulong g64 = groups;
  /* merge.cl's MP_WG and MS_WG. */
  size_t probes = clsort__min(k->wg, 32), per_search = clsort__min(k->wg, 64);
  cl_uint rounds = rounds_for(probes + 1, longest), fused = 0;
  clsort__arg args[24];
  size_t a = 0;
  if (way != CORANK_FUSED) {
    args[a++] = ARG(io->ka);
    args[a++] = ARG(io->kb);
    args[a++] = ARG(io->parts);
    for (unsigned i = 0; i < io->nwhere; i++) args[a++] = io->where[i];
    args[a++] = ARG(io->kind);
    args[a++] = ARG(io->desc);
    args[a++] = ARG(rounds);
    args[a++] = ARG(g64);
    if (way == CORANK_SEARCH) {
      int sampled = io->sampled && io->samples;
      cl_mem samples = sampled ? io->samples : io->ka; /* any buffer when unread */
      args[a++] = ARG(samples);
      args[a++] = ARG(sampled);
      FORWARD_IF_ERROR(clsort__launch(ctx, k->search, clsort__div_up(groups, per_search) * per_search,
                                      per_search, a, args, 0, NULL, NULL));
    } else
      FORWARD_IF_ERROR(
          clsort__launch(ctx, k->probe, groups * probes, probes, a, args, 0, NULL, NULL));
  } else {
    /* At least one round: 0 tells the kernel to read the co-ranks. */
    fused = (cl_uint)clsort__max(rounds_for(k->wg / 2 + 1, longest), 1);
  }
  a = 0;
  const cl_mem *mems[] = {&io->ka, &io->kb, &io->ko, &io->va, &io->vb, &io->vo, &io->parts};
  for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++) args[a++] = ARG(*mems[i]);
  for (unsigned i = 0; i < io->nwhere; i++) args[a++] = io->where[i];
  args[a++] = ARG(io->kind);
  args[a++] = ARG(io->desc);
  args[a++] = ARG(io->write_keys);
  args[a++] = ARG(fused);
  cl_ulong sample_run = io->samples ? io->sample_run : 0;
  cl_mem samples = sample_run ? io->samples : io->ko; /* any buffer when unwritten */
  args[a++] = ARG(samples);
  args[a++] = ARG(sample_run);
  return clsort__launch(ctx, k->merge, groups * k->wg, k->wg, a, args, 0, NULL, NULL);
}

/* Where one merge pass of the sort reads and writes, and its co-rank
 * samples (clsort__merge_io). */
typedef struct merge_io {
  cl_mem ka, kb, ko, va, vb, vo;
  cl_ulong run, left, b_first;
  int b_apart, write_keys;
  cl_mem samples;
  cl_ulong sample_run;
  int sampled;
} merge_io;

/* One merge pass over n outputs. */
static clsort_status merge_pass(clsort_context *ctx, const clsort__sort_job *job,
                                const clsort__merge_kernels *k, const merge_io *io) {
  cl_ulong n64 = job->n;
  size_t groups = clsort__div_up(job->n, k->tile);
  clsort__merge_io m = {.ka = io->ka,
                        .kb = io->kb,
                        .ko = io->ko,
                        .va = io->va,
                        .vb = io->vb,
                        .vo = io->vo,
                        .nwhere = 5,
                        .kind = clsort__key_kind(job->type),
                        .desc = job->descending,
                        .write_keys = io->write_keys,
                        .samples = io->samples,
                        .sample_run = io->sample_run,
                        .sampled = io->sampled};
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_AUX2, groups * sizeof(cl_ulong), &m.parts));
  clsort__arg where[] = {ARG(n64), ARG(io->run), ARG(io->left), ARG(io->b_first),
                         ARG(io->b_apart)};
  m.where = where;
  return clsort__merge_launch(ctx, k, &m, groups, clsort__min((size_t)io->left, job->n));
}

/* The co-rank samples (merge.cl's MG_SAMPLE) of a sort whose passes find
 * their co-ranks by the searches (the same tile count in every pass): each
 * pass but the last keeps one key of every 32 outputs, and the next pass's
 * searches look there first, then read a few lines of DRAM instead of a
 * scattered line a step. H100, 2^26 u32 keys: the searches 1.22 -> 0.78
 * ms over three sorts (serialised), the sort 3.65 -> 3.51 ms (calls 8-9
 * of 2026-11-27, before the samples' writes moved last). *out stays
 * NULL where the passes keep none (mk is read only with 2 or more passes).
 * CLSORT_MERGE_SAMPLES=0 turns them off; bench/ uses it to compare. */
static clsort_status samples_for(clsort_context *ctx, const clsort__merge_kernels *mk, size_t n,
                                 size_t run, unsigned passes, size_t key_size, cl_mem *out) {
  *out = NULL;
  const char *env = getenv("CLSORT_MERGE_SAMPLES");
  if ((env && strcmp(env, "0") == 0) || passes < 2 || !mk->samples || mk->tile % 32 != 0 ||
      run % 32 != 0 || corank_way_for(mk, clsort__div_up(n, mk->tile)) != CORANK_SEARCH)
    return CLSORT_SUCCESS;
  return clsort__scratch(ctx, SLOT_SORT_AUX1, clsort__div_up(n, 32) * key_size, out);
}

clsort_status clsort__merge_sort(clsort_context *ctx, const clsort__sort_job *job) {
  size_t n = job->n, key_size = clsort_type_size(job->type), vs = job->value_size;
  if (n == 0) return CLSORT_SUCCESS;
  if (ctx->tuning.cpu_shape) return clsort__merge_sort_cpu(ctx, job);
  /* Runs: the block merge sort's tiles (block_sort.cl). CLSORT_MERGE_RUNS=bitonic
   * forms them with the bitonic tile instead (the stable one whenever
   * values can show the order of equal keys; keys alone take the larger
   * unstable tile), as before 0.4; bench/ uses it to compare the two. */
  const char *runs_env = getenv("CLSORT_MERGE_RUNS");
  bool bitonic_runs = runs_env && strcmp(runs_env, "bitonic") == 0;
  clsort__sort_job tile_job = *job;
  tile_job.stable = vs != 0;
  clsort__bitonic_shape bs = clsort__bitonic_shape_for(ctx, key_size, vs, tile_job.stable);
  clsort__block_shape blk = clsort__block_shape_for(ctx, key_size + vs);
  size_t run = bitonic_runs ? bs.tile : (size_t)blk.wg * blk.items;
  size_t tile_wg = bitonic_runs ? bs.wg : blk.wg;
  unsigned passes = 0;
  for (size_t r = run; r < n; r *= 2) passes++;
  merge_shape ms = shape_for(ctx, key_size, vs != 0, run);

  cl_kernel sort_tiles;
  clsort__merge_kernels mk;
  if (bitonic_runs)
    FORWARD_IF_ERROR(clsort__bitonic_kernel(ctx, &tile_job, BITONIC_SORT_TILES, &sort_tiles));
  else
    FORWARD_IF_ERROR(merge_kernel(ctx, job, ms, false, "merge_sort_tiles", &sort_tiles));
  if (passes) FORWARD_IF_ERROR(clsort__merge_kernels_for(ctx, job, run, false, &mk));

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

  cl_mem samples;
  FORWARD_IF_ERROR(samples_for(ctx, &mk, n, run, passes, key_size, &samples));

  cl_ulong n64 = n;
  int kind = clsort__key_kind(job->type), desc = job->descending, make_index = job->make_index;
  cl_mem kout = K[passes % 2], vout = vs ? V[passes % 2] : kout;
  cl_mem vin = vs && !make_index ? job->vals_in : vout;
  clsort__arg tile_args[] = {ARG(job->keys_in), ARG(kout), ARG(vin),  ARG(vout),
                             ARG(n64),          ARG(kind), ARG(desc), ARG(make_index)};
  FORWARD_IF_ERROR(clsort__launch(ctx, sort_tiles, clsort__div_up(n, run) * tile_wg, tile_wg, 8,
                                  tile_args, 0, NULL, NULL));

  for (unsigned p = 0; p < passes; p++, run *= 2) {
    merge_io io;
    io.ka = io.kb = K[(passes - p) % 2];
    io.ko = K[(passes - p - 1) % 2];
    io.va = io.vb = vs ? V[(passes - p) % 2] : io.ka;
    io.vo = vs ? V[(passes - p - 1) % 2] : io.ko;
    io.run = io.left = run;
    io.b_first = 0;
    io.b_apart = 0;
    io.write_keys = job->keys_out != NULL || p + 1 < passes;
    io.samples = samples;
    io.sampled = p > 0;
    io.sample_run = p + 1 < passes ? 2 * run : 0;
    FORWARD_IF_ERROR(merge_pass(ctx, job, &mk, &io));
  }
  return CLSORT_SUCCESS;
}

clsort_status clsort__merge_two(clsort_context *ctx, const clsort__sort_job *job, cl_mem a,
                                cl_mem va, size_t na, cl_mem b, cl_mem vb, size_t b_first,
                                size_t nb) {
  if (ctx->tuning.cpu_shape) {
    const clsort__merge_at at = {0, 0, b_first, b_first, 0, 0};
    return clsort__merge_two_cpu(ctx, job, a, va, na, b, vb, nb, &at);
  }
  size_t n = na + nb, vs = job->value_size;
  if (n == 0) return CLSORT_SUCCESS;
  /* One pair: a run (a power of two) that holds all n outputs, so that
   * every group's pair starts at 0; its left run is all of A. At least
   * 2^16, so that the tile (which shrinks to 2 * run) and with it the
   * kernel variant are the same for every n. */
  size_t run = (size_t)1 << 16;
  while (run < n) run *= 2;
  clsort__merge_kernels mk;
  FORWARD_IF_ERROR(clsort__merge_kernels_for(ctx, job, run, false, &mk));
  /* An empty side may come as NULL; the kernel never reads it. */
  merge_io io;
  io.ka = a ? a : b;
  io.kb = b ? b : a;
  io.ko = job->keys_out;
  io.va = vs ? (va ? va : vb) : job->keys_out;
  io.vb = vs ? (vb ? vb : va) : job->keys_out;
  io.vo = vs ? job->vals_out : job->keys_out;
  io.run = run;
  io.left = na;
  io.b_first = b_first;
  io.b_apart = 1;
  io.write_keys = 1;
  io.samples = NULL;
  io.sample_run = 0;
  io.sampled = 0;
  return merge_pass(ctx, job, &mk, &io);
}
