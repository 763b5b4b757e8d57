/* quick_sort.c: the GPU quicksort (seed 000, made level-parallel).
 *
 * By default each level splits every segment 32 ways around 31 pivots
 * drawn from a sample of that segment (16 keys per pivot), plus an
 * equality bucket per pivot: a multi-pivot quicksort, which runs the
 * sample sort's classification, scatter and packed leaves (sample_sort.c)
 * with a fixed fan-out. A two-way split moves every active key once per
 * halving; 32 ways move it once per five. H100, u32 keys, same run
 * (docs/results/quick-multipivot-2026-11-27-h100, call 2), ms at 2^24 /
 * 2^26: two ways 1.770 / 6.794, 16 ways 0.980 / 3.841, 32 ways 0.973 /
 * 3.357, CUB's merge sort 0.867 / 3.416; 32 ways are also the fastest of
 * the three for u32 pairs and u64 keys and pairs.
 *
 * CLSORT_QUICK_WAYS=2 keeps the two-way partition below, the seed's own
 * shape: each level partitions every active segment around its own
 * sampled pivot at once, each within its own range, so a level moves only
 * the keys of segments still active; segments of at most one bitonic tile are
 * finished by the segmented small sort. The partition is built from the
 * shared layer's pieces: the work-group scan ranks a tile's keys, and the
 * decoupled look-back (NVIDIA) or the device-wide scan (elsewhere) gives
 * each tile its place in the segment. Equal keys are peeled off as
 * finished segments (quick.cl says how), so sorted, reverse and constant
 * inputs cost no more levels than random ones, zero input far fewer. */
#include "primitives/primitives.h"
#include "sorts/sorts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const quick_files[] = {"common/common.cl", "common/wg_scan.cl@u32",
                                          "common/wg_scan.cl@u64", "sorts/keys.cl",
                                          "sorts/quick.cl", NULL};
static const clsort__program_spec quick_spec = {"quick", quick_files};

#define ENTRY_ULONGS 8  /* one qk_entry of quick.cl */
#define HEADER_ULONGS 4 /* active, copies, tiles, finished */
enum { H_ACTIVE, H_COPIES, H_GROUPS, H_FINISHED };

typedef struct quick_kernels {
  cl_kernel init, count, split, plan;
  bool onesweep;
} quick_kernels;

/* A split tile's keys per work-item, the keys sampled per pivot, and a
 * register cap for quick_split (NVIDIA; 0: none). GPUs: tiles of 32 KB of
 * keys (2^24 u32 on an H100: 8192 keys 2.42 ms, 4096 keys 2.59 ms), on
 * NVIDIA 16 KB for u32 pairs (below); CPUs: one work-item ranks 1024 keys
 * (its arrays are private). 63 samples put the median within a few
 * percent of the segment's. The cap: quick_split takes 113 registers for
 * u32 keys, two groups of 256 an SM; at 64, four. H100, 2^24 (call 5 of
 * docs/results/register-caps-2026-11-27-h100): u32 keys 1.98 -> 1.75-1.79
 * ms (2^26 7.83 -> 6.78), u64 keys 3.59 -> 3.23; pairs spill more, and
 * take 80 (u64 pairs 5.14 -> 4.57; 64: 4.73) or, u32 pairs, tiles of 4096
 * keys at 64 (3.18 -> 2.96; 8192 at 80: 3.11). 48 is slower everywhere.
 * CLSORT_QUICK=ITEMS[:SAMPLES[:REGS]] overrides them (SAMPLES odd, REGS
 * 0 or 32..255); bench/ uses it to measure. The tile stays within the
 * 16-bit counts of quick.cl and, staged, within local memory. */
typedef struct quick_shape {
  unsigned items, samples, regs;
} quick_shape;

static quick_shape shape_for(const clsort_context *ctx, size_t key_size, size_t value_size) {
  unsigned wg = ctx->tuning.wg_size;
  size_t tile = key_size == 4 ? 8192 : 4096;
  unsigned regs = 0;
  /* Not for the small groups that CLSORT_TUNING forces (the tests' tiled
   * shapes): their work-items hold hundreds of keys, and a cap would only
   * add spills and ptxas time. */
  if (wg >= 128 && ctx->vendor_id == VENDOR_NVIDIA) {
    regs = value_size && key_size == 8 ? 80 : 64;
    if (value_size && key_size == 4) tile = 4096;
  }
  quick_shape s = {wg == 1 ? 1024 : (unsigned)clsort__div_up(tile, wg), 63, regs};
  unsigned f[3] = {0, 0, 0};
  static const char *const name = "CLSORT_QUICK";
  unsigned got = clsort__env_fields(name, f, 3);
  if (got >= 1 && clsort__env_field_ok(name, "ITEMS", f[0], 1, 1024, ENV_ANY)) s.items = f[0];
  if (got >= 2 && clsort__env_field_ok(name, "SAMPLES", f[1], 1, 1023, ENV_ODD)) s.samples = f[1];
  if (got >= 3 && (f[2] == 0 || clsort__env_field_ok(name, "REGS", f[2], 32, 255, ENV_ANY)))
    s.regs = f[2];
  size_t stage = key_size > value_size ? key_size : value_size;
  while (s.items > 1 && ((size_t)wg * s.items > 32768 ||
                         (size_t)wg * s.items * stage + 4096 > ctx->local_mem))
    s.items /= 2;
  return s;
}

/* Whether each level splits in one launch, looking back over the tiles'
 * counts (quick.cl): where the single-pass scan is validated (NVIDIA),
 * for segments whose counts fit the status words' 32 bits.
 * CLSORT_NO_ONESWEEP=1 turns it off, as for the radix sort. */
static bool uses_onesweep(const clsort_context *ctx, size_t n) {
  return ctx->tuning.single_pass_scan && ctx->tuning.wg_size >= 32 &&
         n < ((size_t)1 << 32) && !clsort__env_flag("CLSORT_NO_ONESWEEP");
}

static clsort_status get_kernels(clsort_context *ctx, const clsort__sort_job *job,
                                 quick_shape shape, quick_kernels *k) {
  size_t key_size = clsort_type_size(job->type);
  k->onesweep = uses_onesweep(ctx, job->n);
  char options[288], regs[48] = "";
  if (shape.regs) snprintf(regs, sizeof regs, " -DCLSORT_MAXNREG_quick_split=%u", shape.regs);
  snprintf(options, sizeof options,
           "-DKEY_T=%s -DKEY_BITS=%zu -DHAS_VALUES=%d -DVALUE_T=%s -DQK_ITEMS=%u "
           "-DQK_SAMPLES=%u -DQK_ONESWEEP=%d%s",
           key_size == 8 ? "ulong" : "uint", key_size * 8, job->value_size ? 1 : 0,
           job->value_size == 8 ? "ulong" : "uint", shape.items, shape.samples, k->onesweep, regs);
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &quick_spec, options, "quick_init", &k->init));
  k->count = NULL;
  if (!k->onesweep)
    FORWARD_IF_ERROR(clsort__get_kernel(ctx, &quick_spec, options, "quick_count", &k->count));
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &quick_spec, options, "quick_split", &k->split));
  return clsort__get_kernel(ctx, &quick_spec, options, "quick_plan", &k->plan);
}

/* Inputs that fit one tile: one launch of the tile sort, from the input
 * straight into the output. */
static clsort_status sort_one_tile(clsort_context *ctx, const clsort__sort_job *job,
                                   clsort__bitonic_shape s) {
  cl_kernel k;
  FORWARD_IF_ERROR(clsort__bitonic_kernel(ctx, job, BITONIC_SORT_TILES, &k));
  cl_mem keys = job->keys_out;
  if (!keys)
    FORWARD_IF_ERROR(
        clsort__scratch(ctx, SLOT_SORT_KEYS, job->n * clsort_type_size(job->type), &keys));
  cl_mem vals = job->value_size ? job->vals_out : keys;
  cl_mem vals_in = job->value_size && !job->make_index ? job->vals_in : vals;
  cl_ulong n64 = job->n;
  int kind = clsort__key_kind(job->type), desc = job->descending, make_index = job->make_index;
  clsort__arg args[] = {ARG(job->keys_in), ARG(keys), ARG(vals_in), ARG(vals),
                        ARG(n64),          ARG(kind), ARG(desc),    ARG(make_index)};
  return clsort__launch(ctx, k, s.wg, s.wg, 8, args, 0, NULL, NULL);
}

/* What every level needs: sizes, buffers, offsets into the aux buffer.
 * Level k writes keys[k % 2] (and vals[k % 2]): 0 is the work buffer, 1
 * the output. */
typedef struct quick_plan {
  quick_kernels k;
  clsort__sort_job leaves; /* the small sort's job, on the output */
  size_t n, value_size, wg, tile, max_groups, small, small_cap;
  size_t groups, list_len; /* this level's launch and most finished segments */
  size_t list_cap, list_at; /* the small sort's list: capacity, entries so far */
  cl_mem keys[2], vals[2], tiles, aux;
  cl_ulong table_at[2], header_at[2];
} quick_plan;

/* The small sort of the finished segments listed so far, where they lie
 * in the output. One launch covers many levels' (list_cap entries), not
 * one per level: on an H100 a launch costs about as much as the sort of
 * an early level's few segments. */
static clsort_status sort_leaves(clsort_context *ctx, quick_plan *p) {
  p->leaves.keys_in = p->keys[1];
  p->leaves.vals_in = p->value_size ? p->vals[1] : NULL;
  size_t count = p->list_at;
  p->list_at = 0;
  return clsort__sort_segments(ctx, &p->leaves, p->aux, count);
}

/* Level k: the split of every active segment (after quick_count and the
 * scan of its counts, without look-back), which also copies out what
 * level k - 1 finished in the work buffer; the plan of level k + 1, which
 * lists what finished for the small sort. */
static clsort_status run_level(clsort_context *ctx, const clsort__sort_job *job, quick_plan *p,
                               unsigned level) {
  unsigned from = (level + 1) % 2, to = level % 2; /* table and buffer parity */
  cl_mem kin = level == 0 ? job->keys_in : p->keys[from], kout = p->keys[to];
  cl_mem vin = kin, vout = kout;
  int make_index = level == 0 && job->make_index;
  if (p->value_size) {
    vin = level > 0 ? p->vals[from] : make_index ? kin : job->vals_in;
    vout = p->vals[to];
  }
  int kind = clsort__key_kind(job->type), desc = job->descending;
  cl_ulong table = p->table_at[from], header = p->header_at[from];
  size_t global = p->groups * p->wg;
  if (!p->k.onesweep) {
    clsort__arg count_args[] = {ARG(kin),     ARG(p->aux), ARG(table), ARG(header),
                                ARG(p->tiles), ARG(kind),  ARG(desc)};
    FORWARD_IF_ERROR(clsort__launch(ctx, p->k.count, global, p->wg, 7, count_args, 0, NULL, NULL));
    FORWARD_IF_ERROR(
        clsort__scan(ctx, CLSORT_U64, CLSORT_SCAN_EXCLUSIVE, p->tiles, p->tiles, p->groups));
  }
  clsort__arg split_args[] = {ARG(kin),      ARG(vin),   ARG(kout),    ARG(vout),
                              ARG(p->aux),   ARG(table), ARG(header),  ARG(p->tiles),
                              ARG(make_index), ARG(kind), ARG(desc)};
  FORWARD_IF_ERROR(clsort__launch(ctx, p->k.split, global, p->wg, 11, split_args, 0, NULL, NULL));
  /* The split has copied out what the level before finished in the work
   * buffer: every listed segment is in the output now. */
  if (p->list_at + p->list_len > p->list_cap) FORWARD_IF_ERROR(sort_leaves(ctx, p));
  cl_ulong small = p->small, list_at = p->list_at, list_len = p->list_len;
  int copy = to == 0; /* what finishes in the work buffer is copied out next */
  clsort__arg plan_args[] = {ARG(p->aux),          ARG(p->table_at[from]), ARG(p->header_at[from]),
                             ARG(p->table_at[to]), ARG(p->header_at[to]),  ARG(small),
                             ARG(list_at),         ARG(list_len),          ARG(copy),
                             ARG(p->tiles)};
  FORWARD_IF_ERROR(clsort__launch(ctx, p->k.plan, p->wg, p->wg, 10, plan_args, 0, NULL, NULL));
  p->list_at += p->list_len;
  return CLSORT_SUCCESS;
}

/* The host reads each table's header LAG levels after enqueueing the
 * level that writes it, so that the device always has LAG levels queued
 * and never waits for the host to wake up (one level ahead, the H100's
 * 2^20-key sorts varied from 0.6 to 1.2 ms). The price: LAG - 1 levels
 * with nothing to do after the last, a few microseconds each. */
#define LAG 2

/* Bounds on level `level`'s tiles and finished segments, from the active
 * segments (`known`) that level `known_level` began with, the latest
 * header read. A level has at most twice the active segments of the one
 * before, copies at most twice that level's, and finishes at most twice
 * its own: the early levels launch few groups. */
static void bound_level(quick_plan *p, unsigned level, unsigned known_level, size_t known) {
  size_t max_active = p->small_cap / 2, active = 1, copies = 0;
  if (level > 0) {
    unsigned d = level - known_level;
    size_t grown = d >= 40 || known > (max_active >> d) ? 2 * max_active : known << d;
    active = grown < max_active ? grown : max_active;
    copies = grown; /* copies(k) <= 2 active(k - 1) <= known << d */
  }
  size_t groups = clsort__div_up(p->n, p->tile) + active + copies;
  p->groups = groups < p->max_groups ? groups : p->max_groups;
  p->list_len = 2 * active < p->small_cap ? 2 * active : p->small_cap;
}

/* The multi-pivot levels' ways (buckets per split besides the equality
 * buckets) and keys sampled per pivot; CLSORT_QUICK_WAYS=WAYS[:SAMPLES]
 * overrides them (WAYS a power of two, 2..256; 2 runs the two-way
 * partition; SAMPLES 1..1024). Measured as above (call 1: 4, 8 and 16
 * ways, 8 or 16 samples; call 2: 16:8 against 32:16 over u32 and u64 keys
 * and pairs at 2^24 and 2^26). The sample sort splits 256 ways. */
#define QUICK_WAYS 32
#define QUICK_SAMPLES 16

static void ways_for(unsigned *ways, unsigned *samples) {
  unsigned f[2] = {0, 0};
  static const char *const name = "CLSORT_QUICK_WAYS";
  unsigned got = clsort__env_fields(name, f, 2);
  *ways = QUICK_WAYS;
  *samples = QUICK_SAMPLES;
  if (got >= 1 && clsort__env_field_ok(name, "WAYS", f[0], 2, 256, ENV_POW2)) *ways = f[0];
  if (got >= 2 && clsort__env_field_ok(name, "SAMPLES", f[1], 1, 1024, ENV_ANY)) *samples = f[1];
}

clsort_status clsort__quick_sort(clsort_context *ctx, const clsort__sort_job *job) {
  size_t n = job->n, key_size = clsort_type_size(job->type), vs = job->value_size;
  if (n == 0) return CLSORT_SUCCESS;
  if (ctx->tuning.cpu_shape) return clsort__quick_sort_cpu(ctx, job);
  unsigned ways, samples;
  ways_for(&ways, &samples);
  if (ways > 2) {
    clsort__debug("quick: %u ways a level, %u keys sampled per pivot (the sample sort's levels)",
                  ways, samples);
    return clsort__sample_sort_ways(ctx, job, ways, samples);
  }
  clsort__sort_job unstable = *job;
  unstable.stable = false;
  clsort__bitonic_shape bs = clsort__bitonic_shape_for(ctx, key_size, vs, false);
  if (n <= bs.tile) return sort_one_tile(ctx, &unstable, bs);

  quick_plan p;
  memset(&p, 0, sizeof p);
  quick_shape shape = shape_for(ctx, key_size, vs);
  FORWARD_IF_ERROR(get_kernels(ctx, job, shape, &p.k));
  p.leaves = unstable;
  p.leaves.make_index = false;
  p.leaves.keys_out = p.leaves.vals_out = NULL;
  /* Built now, so that no later step can fail to build. */
  FORWARD_IF_ERROR(clsort__segments_prepare(ctx, &p.leaves));

  /* Active segments hold more than a small-sort tile each; every one has
   * at most two children, so a level finishes, and its next copies, at
   * most twice as many. Each segment adds at most one partial tile. */
  p.n = n;
  p.value_size = vs;
  p.wg = ctx->tuning.wg_size;
  p.small = clsort__segment_limit(ctx, &p.leaves);
  size_t max_active = n / (bs.tile + 1), entries = 3 * max_active;
  p.tile = p.wg * shape.items;
  p.max_groups = clsort__div_up(n, p.tile) + entries;
  p.small_cap = 2 * max_active;
  p.list_cap = 8 * p.small_cap; /* eight levels' worst case between small sorts */
  /* aux: the small sort's segment list (at offset 0, where
   * clsort__sort_segments reads it), two headers, two tables. */
  p.header_at[0] = 2 * p.list_cap;
  p.header_at[1] = p.header_at[0] + HEADER_ULONGS;
  p.table_at[0] = p.header_at[1] + HEADER_ULONGS;
  p.table_at[1] = p.table_at[0] + entries * ENTRY_ULONGS;
  size_t aux_bytes = (p.table_at[1] + entries * ENTRY_ULONGS) * sizeof(cl_ulong);
  /* tiles: the ticket and status words, or the counts and their scan. */
  size_t tile_words = p.max_groups + (p.k.onesweep ? 1 : 0);

  p.keys[1] = job->keys_out;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS, n * key_size, &p.keys[0]));
  if (!p.keys[1])
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS2, n * key_size, &p.keys[1]));
  if (vs) {
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_VALUES, n * vs, &p.vals[0]));
    p.vals[1] = job->vals_out;
  }
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_AUX1, tile_words * sizeof(cl_ulong), &p.tiles));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_AUX3, aux_bytes, &p.aux));
  if (!p.k.onesweep) FORWARD_IF_ERROR(clsort__scan_prepare(ctx, CLSORT_U64, p.max_groups));

  cl_ulong n64 = n, zero = 0;
  if (p.k.onesweep)
    FORWARD_IF_ERROR(CL_CHECK(clEnqueueFillBuffer(ctx->queue, p.tiles, &zero, sizeof zero, 0,
                                                  tile_words * sizeof zero, 0, NULL, NULL)));
  /* Table 1 is level 0's input (levels read table (k + 1) % 2). */
  clsort__arg init_args[] = {ARG(p.aux), ARG(p.table_at[1]), ARG(p.header_at[1]), ARG(n64)};
  FORWARD_IF_ERROR(clsort__launch(ctx, p.k.init, p.wg, p.wg, 4, init_args, 0, NULL, NULL));

  /* Level k reads the table that level k - 1's plan wrote; headers[t %
   * (LAG + 1)] receives table t's header. A level that starts with no
   * active segment only copies out the last finished ones: once the host
   * reads such a header, the levels after it have nothing to do. */
  /* The headers land in the context's worklist: read into pinned memory
   * they no longer hold the queue up behind the driver's staging. */
  cl_ulong(*headers)[HEADER_ULONGS];
  FORWARD_IF_ERROR(
      clsort__worklist(ctx, sizeof(cl_ulong[LAG + 1][HEADER_ULONGS]), (void **)&headers));
  cl_event read[LAG + 1];
  memset(read, 0, sizeof read);
  clsort_status st = CLSORT_SUCCESS;
  unsigned level = 0, known_level = 0;
  size_t known = 1; /* table 0 holds the whole input */
  for (;; level++) {
    bound_level(&p, level, known_level, known);
    st = run_level(ctx, job, &p, level);
    if (st != CLSORT_SUCCESS) break;
    unsigned next = (level + 1) % (LAG + 1);
    st = CL_CHECK(clEnqueueReadBuffer(ctx->queue, p.aux, CL_FALSE,
                                      p.header_at[level % 2] * sizeof(cl_ulong),
                                      sizeof headers[next], headers[next], 0, NULL, &read[next]));
    /* A failed read ends the sort: the next level's status would hide it. */
    if (st != CLSORT_SUCCESS) break;
    if (level + 1 < LAG + 1) continue;
    unsigned m = level + 1 - LAG, slot = m % (LAG + 1);
    st = CL_CHECK(clsort__wait_event(ctx, read[slot]));
    clReleaseEvent(read[slot]);
    read[slot] = NULL;
    if (st != CLSORT_SUCCESS) break;
    known_level = m;
    known = (size_t)headers[slot][H_ACTIVE];
    clsort__debug("quick: level %u starts with %zu active segments and %llu to copy", m, known,
                  (unsigned long long)headers[slot][H_COPIES]);
    if (known == 0) break;
  }
  for (int i = 0; i < LAG + 1; i++)
    if (read[i]) {
      clWaitForEvents(1, &read[i]);
      clReleaseEvent(read[i]);
    }
  if (st == CLSORT_SUCCESS) st = sort_leaves(ctx, &p);
  if (st != CLSORT_SUCCESS) clFinish(ctx->queue);
  clsort__debug("quick: %u levels for n = %zu, the last %u idle", level + 1, n, LAG - 1);
  return st;
}
