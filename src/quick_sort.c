/* quick_sort.c: the GPU quicksort (seed 000, made level-parallel). Each
 * level partitions every active segment around its own sampled pivot at
 * once, through the shared split primitive; segments of at most one
 * bitonic tile are finished by the segmented small sort. Equal keys are
 * peeled off as finished segments (quick.cl says how), so sorted, reverse
 * and constant inputs cost no more levels than random ones, zero input
 * far fewer. */
#include "primitives.h"
#include "sorts.h"

#include <stdio.h>
#include <string.h>

static const char *const quick_files[] = {"common.cl", "wg_scan.cl@u32", "wg_scan.cl@u64",
                                          "keys.cl",   "quick.cl",       NULL};
static const clsort__program_spec quick_spec = {"quick", quick_files};

#define QK_SAMPLES 63
#define ENTRY_ULONGS 8  /* one qk_entry of quick.cl */
#define HEADER_ULONGS 4 /* active, finished, tiles, unused */

typedef struct quick_kernels {
  cl_kernel init, iota, flags, plan;
} quick_kernels;

/* Keys per work-item of a flag tile: 4096-key tiles on both shapes. */
static unsigned quick_items(const clsort_context *ctx) {
  return ctx->tuning.wg_size == 1 ? 4096 : 16;
}

static clsort_status get_kernels(clsort_context *ctx, const clsort__sort_job *job,
                                 quick_kernels *k) {
  size_t key_size = clsort_type_size(job->type);
  char options[192];
  snprintf(options, sizeof options,
           "-DKEY_T=%s -DKEY_BITS=%zu -DHAS_VALUES=%d -DVALUE_T=%s -DQK_ITEMS=%u -DQK_SAMPLES=%d",
           key_size == 8 ? "ulong" : "uint", key_size * 8, job->value_size ? 1 : 0,
           job->value_size == 8 ? "ulong" : "uint", quick_items(ctx), QK_SAMPLES);
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &quick_spec, options, "quick_init", &k->init));
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &quick_spec, options, "quick_iota", &k->iota));
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &quick_spec, options, "quick_flags", &k->flags));
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

/* What every level needs: sizes, buffers, offsets into the aux buffer. */
typedef struct quick_plan {
  quick_kernels k;
  clsort__sort_job leaves; /* the small sort's job, on the level's output */
  size_t n, key_size, value_size, wg, max_groups, small, small_cap;
  cl_mem work_keys[2], work_vals[2], iota, flags, counts, aux;
  cl_ulong table_at[2], header_at[2];
} quick_plan;

/* Level k: flags (and copies out what level k - 1 finished), the scan of
 * the flag counts, the split of keys and values into work buffer k % 2,
 * the plan of level k + 1, the small sort of what finished. */
static clsort_status run_level(clsort_context *ctx, const clsort__sort_job *job, quick_plan *p,
                               unsigned level) {
  unsigned from = (level + 1) % 2, to = level % 2; /* table and buffer parity */
  cl_mem kin = level == 0 ? job->keys_in : p->work_keys[from], kout = p->work_keys[to];
  cl_mem vin = kin, vout = kout;
  if (p->value_size) {
    vin = level > 0 ? p->work_vals[from] : job->make_index ? p->iota : job->vals_in;
    vout = p->work_vals[to];
  }
  cl_uchar zero = 0;
  FORWARD_IF_ERROR(
      CL_CHECK(clEnqueueFillBuffer(ctx->queue, p->flags, &zero, 1, 0, p->n, 0, NULL, NULL)));
  cl_mem keys_out = job->keys_out ? job->keys_out : kin;
  cl_mem vals_out = p->value_size ? job->vals_out : kin;
  int write_keys = job->keys_out != NULL;
  int kind = clsort__key_kind(job->type), desc = job->descending;
  cl_ulong table = p->table_at[from], header = p->header_at[from];
  clsort__arg flag_args[] = {ARG(kin),      ARG(vin),      ARG(p->flags),   ARG(p->aux),
                             ARG(table),    ARG(header),   ARG(p->counts),  ARG(keys_out),
                             ARG(vals_out), ARG(write_keys), ARG(kind),     ARG(desc)};
  FORWARD_IF_ERROR(clsort__launch(ctx, p->k.flags, (p->max_groups + 1) * p->wg, p->wg, 12,
                                  flag_args, 0, NULL, NULL));
  FORWARD_IF_ERROR(clsort__scan(ctx, CLSORT_U64, CLSORT_SCAN_EXCLUSIVE, p->counts, p->counts,
                                p->max_groups + 2));
  /* The split's count lands in counts[0], which the plan never reads. */
  FORWARD_IF_ERROR(clsort__select(ctx, p->key_size, true, kin, p->flags, kout, p->n, p->counts));
  if (p->value_size)
    FORWARD_IF_ERROR(
        clsort__select(ctx, p->value_size, true, vin, p->flags, vout, p->n, p->counts));
  cl_ulong groups = p->max_groups, small = p->small, small_cap = p->small_cap;
  clsort__arg plan_args[] = {ARG(p->aux),          ARG(p->table_at[from]), ARG(p->header_at[from]),
                             ARG(p->table_at[to]), ARG(p->header_at[to]),  ARG(p->counts),
                             ARG(groups),          ARG(small),             ARG(small_cap)};
  FORWARD_IF_ERROR(clsort__launch(ctx, p->k.plan, p->wg, p->wg, 9, plan_args, 0, NULL, NULL));
  p->leaves.keys_in = kout;
  p->leaves.vals_in = p->value_size ? vout : NULL;
  return clsort__sort_segments(ctx, &p->leaves, p->aux, p->small_cap);
}

clsort_status clsort__quick_sort(clsort_context *ctx, const clsort__sort_job *job) {
  size_t n = job->n, key_size = clsort_type_size(job->type), vs = job->value_size;
  if (n == 0) return CLSORT_SUCCESS;
  clsort__sort_job unstable = *job;
  unstable.stable = false;
  clsort__bitonic_shape bs = clsort__bitonic_shape_for(ctx, key_size, vs, false);
  if (n <= bs.tile) return sort_one_tile(ctx, &unstable, bs);

  quick_plan p;
  memset(&p, 0, sizeof p);
  FORWARD_IF_ERROR(get_kernels(ctx, job, &p.k));
  cl_kernel leaves_kernel;
  p.leaves = unstable;
  p.leaves.make_index = false;
  p.leaves.keys_out = p.leaves.vals_out = NULL;
  FORWARD_IF_ERROR(clsort__bitonic_kernel(ctx, &p.leaves, BITONIC_SORT_SEGMENTS, &leaves_kernel));
  (void)leaves_kernel; /* built now, so that no later step can fail to build */

  /* Active segments hold more than a tile each; every one has at most two
   * children, so a level finishes at most twice as many. */
  p.n = n;
  p.key_size = key_size;
  p.value_size = vs;
  p.wg = ctx->tuning.wg_size;
  p.small = bs.tile;
  size_t max_active = n / (bs.tile + 1), entries = 3 * max_active;
  size_t tile = p.wg * quick_items(ctx);
  p.max_groups = clsort__div_up(n, tile) + entries;
  p.small_cap = 2 * max_active;
  /* aux: the small sort's segment list (at offset 0, where
   * clsort__sort_segments reads it), two headers, two tables. */
  p.header_at[0] = 2 * p.small_cap;
  p.header_at[1] = p.header_at[0] + HEADER_ULONGS;
  p.table_at[0] = p.header_at[1] + HEADER_ULONGS;
  p.table_at[1] = p.table_at[0] + entries * ENTRY_ULONGS;
  size_t aux_bytes = (p.table_at[1] + entries * ENTRY_ULONGS) * sizeof(cl_ulong);

  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS, n * key_size, &p.work_keys[0]));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS2, n * key_size, &p.work_keys[1]));
  if (vs) {
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_VALUES, n * vs, &p.work_vals[0]));
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_VALUES2, n * vs, &p.work_vals[1]));
    /* Level 0 reads the indices; level 1 is the first to write here. */
    p.iota = p.work_vals[1];
  }
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_AUX1, n, &p.flags));
  FORWARD_IF_ERROR(
      clsort__scratch(ctx, SLOT_SORT_AUX2, (p.max_groups + 2) * sizeof(cl_ulong), &p.counts));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_AUX3, aux_bytes, &p.aux));
  FORWARD_IF_ERROR(clsort__scan_prepare(ctx, CLSORT_U64, p.max_groups + 2));

  cl_ulong n64 = n;
  /* Table 1 is level 0's input (levels read table (k + 1) % 2). */
  clsort__arg init_args[] = {ARG(p.aux), ARG(p.table_at[1]), ARG(p.header_at[1]), ARG(n64)};
  FORWARD_IF_ERROR(clsort__launch(ctx, p.k.init, p.wg, p.wg, 4, init_args, 0, NULL, NULL));
  if (job->make_index) {
    clsort__arg iota_args[] = {ARG(p.iota), ARG(n64)};
    FORWARD_IF_ERROR(clsort__launch(ctx, p.k.iota, clsort__div_up(n, tile) * p.wg, p.wg, 2,
                                    iota_args, 0, NULL, NULL));
  }

  /* The host learns each level's active count one level late: level k + 1
   * is enqueued before level k's header is read, so the device never
   * waits for the host. A level that starts with no active segment only
   * copies out the last finished ones: it is the last. */
  cl_ulong headers[2][HEADER_ULONGS];
  cl_event read[2] = {NULL, NULL};
  clsort_status st = CLSORT_SUCCESS;
  unsigned level = 0;
  for (;; level++) {
    st = run_level(ctx, job, &p, level);
    if (st != CLSORT_SUCCESS) break;
    unsigned next = (level + 1) % 2;
    st = CL_CHECK(clEnqueueReadBuffer(ctx->queue, p.aux, CL_FALSE,
                                      p.header_at[level % 2] * sizeof(cl_ulong),
                                      sizeof headers[next], headers[next], 0, NULL, &read[next]));
    if (st != CLSORT_SUCCESS) break;
    if (level == 0) continue;
    /* Level `level` began with the table whose header is headers[level % 2]. */
    unsigned cur = level % 2;
    st = CL_CHECK(clWaitForEvents(1, &read[cur]));
    clReleaseEvent(read[cur]);
    read[cur] = NULL;
    clsort__debug("quick: level %u starts with %llu active and %llu finished segments", level,
                  (unsigned long long)headers[cur][0], (unsigned long long)headers[cur][1]);
    if (st != CLSORT_SUCCESS || headers[cur][0] == 0) break;
  }
  for (int i = 0; i < 2; i++)
    if (read[i]) {
      clWaitForEvents(1, &read[i]);
      clReleaseEvent(read[i]);
    }
  if (st != CLSORT_SUCCESS) clFinish(ctx->queue);
  clsort__debug("quick: %u levels for n = %zu", level + 1, n);
  return st;
}
