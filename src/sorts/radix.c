/* radix.c: the LSD radix sort: 8-bit digit passes (11-bit on the CPU shape), each an upsweep of
 * per-chunk digit counts, the shared scan of that table, and a downsweep
 * that ranks tiles locally and scatters. Passes whose digits are all equal
 * are skipped, found from one histogram of every pass. */
#include "primitives/primitives.h"
#include "sorts/sorts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PASSES 8 /* 64-bit keys, 8-bit digits */

static const char *const radix_files[] = {"common/common.cl", "common/wg_scan.cl@u32",
                                          "common/wg_rank.cl", "sorts/keys.cl", "sorts/radix.cl",
                                          NULL};
static const clsort__program_spec radix_spec = {"radix", radix_files};

typedef struct radix_kernels {
  cl_kernel histograms, upsweep, downsweep;
  cl_kernel onesweep; /* NULL unless the pass runs in one launch */
} radix_kernels;

/* Digit width. The serial CPU path counts digits with plain increments and
 * stages writes per digit, so wider digits (fewer passes over memory) pay
 * there; the tile path ranks by two 4-bit halves. */
static unsigned digit_bits(const clsort_context *ctx) { return ctx->tuning.wg_size == 1 ? 11 : 8; }

static bool uses_onesweep(const clsort_context *ctx, const clsort__sort_job *job);

/* Keys per work-item per tile: the tile's keys must fit local memory next
 * to the rank counters. One-launch passes of 4-byte keys alone take 32
 * (8192-key tiles: fewer tiles to look back over). Measured on an H100,
 * 2^26 u32 with CLSORT_TUNING=256:24:8:ITEMS: keys 3.39 ms at 8 items,
 * 3.27 at 16, 2.93 at 20, 2.80 at 24, 2.69 at 32; pairs 3.58 ms at 16,
 * 3.81 at 32. */
static unsigned radix_items(const clsort_context *ctx, const clsort__sort_job *job) {
  if (ctx->tuning.radix_items) return ctx->tuning.radix_items;
  if (ctx->tuning.wg_size == 1) return ctx->tuning.items;
  if (uses_onesweep(ctx, job) && clsort_type_size(job->type) == 4 && !job->value_size) return 32;
  return ctx->tuning.wg_size >= 256 ? 16 : 8;
}

/* Whether each pass runs as one launch with decoupled look-back over the
 * tiles' digit counts (radix_onesweep) instead of upsweep + scan +
 * downsweep. It spins on other groups, so it runs only where the
 * single-pass scan is validated (NVIDIA), and its status words hold counts
 * below 2^30. CLSORT_NO_ONESWEEP=1 turns it off, for comparison. */
static bool uses_onesweep(const clsort_context *ctx, const clsort__sort_job *job) {
  return ctx->tuning.single_pass_scan && ctx->tuning.wg_size >= 256 && digit_bits(ctx) == 8 &&
         job->n < ((size_t)1 << 30) && !clsort__env_flag("CLSORT_NO_ONESWEEP");
}

static clsort_status get_kernels(clsort_context *ctx, const clsort__sort_job *job, bool wide_offsets,
                                 radix_kernels *k) {
  size_t key_size = clsort_type_size(job->type);
  unsigned items = radix_items(ctx, job);
  char options[256];
  snprintf(options, sizeof options,
           "-DKEY_T=%s -DKEY_BITS=%zu -DHAS_VALUES=%d -DVALUE_T=%s -DVALUE_BITS=%d -DOFFSET_T=%s "
           "-DOFFSET_BITS=%d -DRADIX_ITEMS=%u -DRANK_ITEMS=%u -DRADIX_BITS=%u",
           key_size == 8 ? "ulong" : "uint", key_size * 8, job->value_size ? 1 : 0,
           job->value_size == 8 ? "ulong" : "uint", job->value_size == 8 ? 64 : 32,
           wide_offsets ? "ulong" : "uint", wide_offsets ? 64 : 32, items, items, digit_bits(ctx));
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &radix_spec, options, "radix_histograms", &k->histograms));
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &radix_spec, options, "radix_upsweep", &k->upsweep));
  k->onesweep = NULL;
  if (uses_onesweep(ctx, job))
    FORWARD_IF_ERROR(clsort__get_kernel(ctx, &radix_spec, options, "radix_onesweep", &k->onesweep));
  return clsort__get_kernel(ctx, &radix_spec, options, "radix_downsweep", &k->downsweep);
}

/* Reads the digit histograms of every pass and lists the passes that move
 * anything: a pass whose keys all share one digit is the identity. */
static clsort_status plan_passes(clsort_context *ctx, const clsort__sort_job *job,
                                 const radix_kernels *k, clsort__chunks c, bool wide,
                                 cl_mem *pass_tables, cl_mem *digit_bases, unsigned *passes,
                                 unsigned *count) {
  *count = 0;
  unsigned bits = digit_bits(ctx), bins = 1u << bits;
  unsigned total = (job->end_bit - job->begin_bit + bits - 1) / bits;
  size_t entry = wide ? 8 : 4, bytes = (size_t)total * bins * entry;
  cl_mem hist;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_HISTOGRAM, bytes, &hist));
  *digit_bases = hist;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_PASS_TABLES, bytes * c.groups, pass_tables));
  cl_ulong zero = 0;
  FORWARD_IF_ERROR(
      CL_CHECK(clEnqueueFillBuffer(ctx->queue, hist, &zero, entry, 0, bytes, 0, NULL, NULL)));
  cl_ulong n64 = job->n, chunk64 = c.chunk;
  cl_uint begin = job->begin_bit, end = job->end_bit;
  int kind = clsort__key_kind(job->type), desc = job->descending;
  size_t wg = ctx->tuning.wg_size;
  clsort__arg args[] = {ARG(job->keys_in), ARG(n64),  ARG(chunk64),      ARG(begin),
                        ARG(end),          ARG(kind), ARG(desc),         ARG(hist),
                        ARG(*pass_tables), ARG_LOCAL((size_t)total * bins * sizeof(cl_uint))};
  FORWARD_IF_ERROR(clsort__launch(ctx, k->histograms, c.groups * wg, wg, 10, args, 0, NULL, NULL));
  unsigned char *counts = clsort__malloc(ctx, bytes);
  RETURN_IF(!counts, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the digit histograms");
  clsort_status st =
      CL_CHECK(clEnqueueReadBuffer(ctx->queue, hist, CL_TRUE, 0, bytes, counts, 0, NULL, NULL));
  for (unsigned p = 0; st == CLSORT_SUCCESS && p < total; p++) {
    bool identity = false;
    for (unsigned d = 0; d < bins && !identity; d++) {
      size_t at = (size_t)p * bins + d;
      cl_ulong v = wide ? ((const cl_ulong *)(void *)counts)[at] : ((const cl_uint *)(void *)counts)[at];
      identity = v == job->n;
    }
    if (!identity) passes[(*count)++] = p;
  }
  if (st == CLSORT_SUCCESS && k->onesweep) {
    /* The one-launch passes take each digit's start from here: the
     * exclusive scan of every pass's counts, in place (32-bit: n < 2^30). */
    cl_uint *c32 = (cl_uint *)(void *)counts;
    for (unsigned p = 0; p < total; p++) {
      cl_uint sum = 0;
      for (unsigned d = 0; d < bins; d++) {
        cl_uint v = c32[(size_t)p * bins + d];
        c32[(size_t)p * bins + d] = sum;
        sum += v;
      }
    }
    st = CL_CHECK(clEnqueueWriteBuffer(ctx->queue, hist, CL_TRUE, 0, bytes, counts, 0, NULL, NULL));
  }
  free(counts);
  FORWARD_IF_ERROR(st);
  clsort__debug("radix: %u of %u passes needed for n = %zu", *count, total, job->n);
  return CLSORT_SUCCESS;
}

/* Chunks of whole tiles, small enough that per-chunk counts fit 32 bits. */
static clsort__chunks radix_chunking(const clsort_context *ctx, size_t n, size_t tile) {
  clsort__chunks c = clsort__chunking(ctx, n, tile);
  const size_t limit = (size_t)1 << 31;
  if (c.chunk > limit) {
    c.chunk = limit / tile * tile;
    c.groups = clsort__div_up(n, c.chunk);
  }
  return c;
}

/* One pass in one launch (radix_onesweep); `status` holds the tile
 * counter and the tiles' look-back words, zeroed here. */
static clsort_status run_onesweep(clsort_context *ctx, const clsort__sort_job *job,
                                  const radix_kernels *k, cl_mem status, cl_mem digit_bases,
                                  unsigned pass, bool first, bool last, cl_mem kin, cl_mem kout,
                                  cl_mem vin, cl_mem vout) {
  size_t wg = ctx->tuning.wg_size, tiles = clsort__div_up(job->n, wg * radix_items(ctx, job));
  cl_ulong n64 = job->n;
  cl_uint bits = digit_bits(ctx), shift = job->begin_bit + bits * pass, base_at = pass << bits;
  cl_uint width = job->end_bit - shift < bits ? job->end_bit - shift : bits;
  int first_arg = first, last_arg = last, kind = clsort__key_kind(job->type), desc = job->descending;
  int make_index = first && job->make_index;
  cl_uint zero = 0;
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueFillBuffer(ctx->queue, status, &zero, sizeof zero, 0,
                                                (1 + (tiles << bits)) * sizeof(cl_uint), 0, NULL,
                                                NULL)));
  cl_mem vi = vin ? vin : kin, vo = vout ? vout : kout;
  clsort__arg args[] = {ARG(kin),      ARG(kout),        ARG(vi),         ARG(vo),
                        ARG(n64),      ARG(shift),       ARG(width),      ARG(first_arg),
                        ARG(last_arg), ARG(kind),        ARG(desc),       ARG(digit_bases),
                        ARG(base_at),  ARG(status),      ARG(make_index)};
  return clsort__launch(ctx, k->onesweep, tiles * wg, wg, 15, args, 0, NULL, NULL);
}

static clsort_status run_pass(clsort_context *ctx, const clsort__sort_job *job,
                              const radix_kernels *k, clsort__chunks c, bool wide, cl_mem table,
                              cl_mem pass_tables, unsigned pass, bool first, bool last, cl_mem kin,
                              cl_mem kout, cl_mem vin, cl_mem vout) {
  size_t wg = ctx->tuning.wg_size;
  cl_ulong n64 = job->n, chunk64 = c.chunk;
  cl_uint bits = digit_bits(ctx), shift = job->begin_bit + bits * pass;
  cl_uint width = job->end_bit - shift < bits ? job->end_bit - shift : bits;
  int first_arg = first, last_arg = last, kind = clsort__key_kind(job->type), desc = job->descending;
  int make_index = first && job->make_index;
  size_t table_bytes = ((size_t)1 << bits) * c.groups * (wide ? 8 : 4);
  if (first) {
    /* The histogram kernel counted this pass's chunks in input order. */
    FORWARD_IF_ERROR(CL_CHECK(clEnqueueCopyBuffer(ctx->queue, pass_tables, table,
                                                  pass * table_bytes, 0, table_bytes, 0, NULL,
                                                  NULL)));
  } else {
    clsort__arg up[] = {ARG(kin),       ARG(n64),  ARG(chunk64), ARG(shift), ARG(width),
                        ARG(first_arg), ARG(kind), ARG(desc),    ARG(table)};
    FORWARD_IF_ERROR(clsort__launch(ctx, k->upsweep, c.groups * wg, wg, 9, up, 0, NULL, NULL));
  }
  FORWARD_IF_ERROR(clsort__scan(ctx, wide ? CLSORT_U64 : CLSORT_U32, CLSORT_SCAN_EXCLUSIVE, table,
                                table, ((size_t)1 << bits) * c.groups));
  /* Keys-only programs ignore the value buffers; any valid buffer will do. */
  cl_mem vi = vin ? vin : kin, vo = vout ? vout : kout;
  clsort__arg down[] = {ARG(kin),      ARG(kout),     ARG(vi),   ARG(vo),   ARG(n64),
                        ARG(chunk64),  ARG(shift),    ARG(width), ARG(first_arg), ARG(last_arg),
                        ARG(kind),     ARG(desc),     ARG(table), ARG(make_index)};
  return clsort__launch(ctx, k->downsweep, c.groups * wg, wg, 14, down, 0, NULL, NULL);
}

/* ------------------------------------------------------------ NVIDIA path */
/* cl/onesweep.cl: one histogram of every pass, the plan on the device, one
 * launch per pass and portion, and a final copy that only acts when an
 * in-place sort ran an odd number of passes. Nothing is read back: every
 * launch is enqueued up front, so the sort is asynchronous. */
static const char *const nv_files[] = {"common/common.cl", "sorts/keys.cl", "sorts/onesweep.cl", NULL};
static const clsort__program_spec nv_spec = {"radix_nv", nv_files};

/* The control buffer of onesweep.cl: counts, group counter, plan. */
#define NV_CTL_BYTES (4128 * sizeof(cl_uint))

/* Keys per portion stay below 2^30: the look-back words count in 30 bits. */
#define NV_PORTION_LIMIT (((size_t)1 << 30) - 1)

/* The NVIDIA path runs where the PTX paths do (CLSORT_RADIX_PORTABLE=1
 * turns it off there). CLSORT_RADIX_EMULATE=1 runs it anywhere with its
 * warp operations emulated in local memory: the tests use it on PoCL. */
static bool emulates_nv_path(void) { return clsort__env_flag("CLSORT_RADIX_EMULATE"); }
static bool uses_nv_path(const clsort_context *ctx) {
  return (ctx->tuning.use_ptx && !clsort__env_flag("CLSORT_RADIX_PORTABLE")) ||
         emulates_nv_path();
}

bool clsort__radix_cpu_runs(const clsort_context *ctx) {
  return ctx->tuning.cpu_shape && !uses_nv_path(ctx);
}

/* starts (NULL: not wanted) receives the first pass's digit starts (see
 * clsort__radix_split_top), read back once the sort is done. */
static clsort_status nv_radix_sort(clsort_context *ctx, const clsort__sort_job *job,
                                   size_t *starts) {
  size_t n = job->n, key_size = clsort_type_size(job->type), vs = job->value_size;
  clsort__onesweep_shape shape = clsort__onesweep_shape_for(ctx, key_size, vs, n);
  /* 64-bit offsets from 2^32 keys on (CLSORT_RADIX_WIDE=1 forces them, so
   * that the tests reach that code at small n). */
  bool wide = n > UINT32_MAX || clsort__env_flag("CLSORT_RADIX_WIDE");
  size_t offset_size = wide ? 8 : 4;
  bool emulate = !ctx->tuning.use_ptx;
  /* The per-warp counters get their own local memory when it fits next to
   * the staged tile (see onesweep.cl). */
  size_t wider = key_size > vs ? key_size : vs;
  bool split = (size_t)shape.wg * shape.items * wider + shape.wg / 32 * 1024 +
                   256 * offset_size + 256 <= ctx->local_mem;
  char regs[48] = "";
  if (shape.regs) snprintf(regs, sizeof regs, " -DCLSORT_MAXNREG_radix_nv_pass=%u", shape.regs);
  char options[384];
  snprintf(options, sizeof options,
           "-DKEY_T=%s -DKEY_BITS=%zu -DHAS_VALUES=%d -DVALUE_T=%s -DVALUE_BITS=%d -DOFFSET_T=%s "
           "-DOFFSET_BITS=%d -DOS_WG=%u -DOS_ITEMS=%u -DOS_MATCH=%u -DOS_SPLIT=%d "
           "-DOS_EMULATE=%d%s",
           key_size == 8 ? "ulong" : "uint", key_size * 8, vs ? 1 : 0,
           vs == 8 ? "ulong" : "uint", vs == 8 ? 64 : 32, wide ? "ulong" : "uint",
           wide ? 64 : 32, shape.wg, shape.items, shape.match, split ? 1 : 0, emulate ? 1 : 0,
           regs);
  cl_kernel histogram, pass_kernel, finish;
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &nv_spec, options, "radix_nv_histogram", &histogram));
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &nv_spec, options, "radix_nv_pass", &pass_kernel));
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &nv_spec, options, "radix_nv_finish", &finish));

  size_t wg = shape.wg, tile = wg * shape.items, tiles = clsort__div_up(n, tile);
  /* CLSORT_RADIX_PORTION=N caps a portion at N keys, so that the tests
   * reach several portions at small n. */
  size_t portion_keys = NV_PORTION_LIMIT;
  unsigned cap = 0;
  if (clsort__env_fields("CLSORT_RADIX_PORTION", &cap, 1) == 1 && cap >= tile) portion_keys = cap;
  size_t rows = clsort__min(tiles, portion_keys / tile);
  size_t portions = clsort__div_up(tiles, rows);
  unsigned passes = (job->end_bit - job->begin_bit + 7) / 8;
  size_t area_words = 32 + rows * 256;

  /* Everything that can fail, before the first launch. */
  cl_mem ctl, bases, status, x0, x1, v0 = NULL, v1 = NULL;
  size_t hist_bytes = (size_t)passes * 256 * offset_size;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_RADIX_NV, NV_CTL_BYTES, &ctl));
  FORWARD_IF_ERROR(
      clsort__scratch(ctx, SLOT_PASS_TABLES, hist_bytes * (portions + 1), &bases));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_TABLE, 2 * area_words * sizeof(cl_uint), &status));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS, n * key_size, &x0));
  if (job->keys_out)
    x1 = job->keys_out;
  else
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS2, n * key_size, &x1));
  if (vs) {
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_VALUES, n * vs, &v0));
    v1 = job->vals_out;
  }
  /* alias bit 0: the keys' output is their input; bit 1: the values'. */
  bool keys_alias = job->keys_out == job->keys_in;
  bool vals_alias = vs && !job->make_index && job->vals_out == job->vals_in;
  cl_int alias = (keys_alias ? 1 : 0) | (vals_alias ? 2 : 0);
  /* A sort whose output is not its input must run at least one pass even
   * when every pass would be the identity; argsort needs it for indices. */
  cl_int need_one = job->make_index || !keys_alias || (vs && !vals_alias);

  cl_ulong n64 = n;
  cl_uint begin = job->begin_bit, end = job->end_bit, clear = (cl_uint)area_words;
  cl_uint portions32 = (cl_uint)portions, rows32 = (cl_uint)rows;
  int kind = clsort__key_kind(job->type), desc = job->descending, make_index = job->make_index;
  /* The counts start at zero: every histogram launch leaves them so, and
   * a buffer not known to be clean (new, or after a failed enqueue) is
   * filled first. */
  if (ctx->radix_nv_clean != ctl) {
    cl_uint zero = 0;
    FORWARD_IF_ERROR(CL_CHECK(clEnqueueFillBuffer(ctx->queue, ctl, &zero, sizeof zero, 0,
                                                  NV_CTL_BYTES, 0, NULL, NULL)));
  }
  ctx->radix_nv_clean = NULL;
  /* The histogram reads the keys once: enough groups to keep every SM's
   * loads in flight, each with a contiguous chunk. */
  size_t hist_groups = clsort__max(1, clsort__min((size_t)ctx->compute_units * 4,
                                                  clsort__div_up(n, wg * 16)));
  clsort__arg hist_args[] = {ARG(job->keys_in), ARG(n64),    ARG(begin),    ARG(end),
                             ARG(kind),         ARG(desc),   ARG(ctl),      ARG(status),
                             ARG(clear),        ARG(need_one), ARG(portions32), ARG(bases)};
  FORWARD_IF_ERROR(
      clsort__launch(ctx, histogram, hist_groups * wg, wg, 12, hist_args, 0, NULL, NULL));
  ctx->radix_nv_clean = ctl;

  /* Keys-only programs ignore the value buffers; any valid buffer will do. */
  cl_mem vsrc = vs && !job->make_index ? job->vals_in : job->keys_in;
  cl_mem va = vs ? v0 : x0, vb = vs ? v1 : x1;
  for (cl_uint slot = 0; slot < passes; slot++) {
    for (cl_uint k = 0; k < portions32; k++) {
      size_t ntiles = clsort__min(rows, tiles - (size_t)k * rows);
      clsort__arg args[] = {ARG(job->keys_in), ARG(x0),   ARG(x1),         ARG(vsrc),
                            ARG(va),           ARG(vb),   ARG(n64),        ARG(slot),
                            ARG(k),            ARG(portions32), ARG(rows32),
                            ARG(begin),        ARG(end),  ARG(kind),       ARG(desc),
                            ARG(make_index),   ARG(alias), ARG(ctl),       ARG(bases),
                            ARG(status)};
      FORWARD_IF_ERROR(
          clsort__launch(ctx, pass_kernel, ntiles * wg, wg, 20, args, 0, NULL, NULL));
    }
  }
  cl_int copy_keys = keys_alias && job->keys_out, copy_values = vals_alias;
  if (copy_keys || copy_values) {
    size_t groups = clsort__max(1, clsort__min((size_t)ctx->compute_units * 4,
                                               clsort__div_up(n, wg * 8)));
    clsort__arg args[] = {ARG(x0), ARG(x1),  ARG(va),        ARG(vb),
                          ARG(n64), ARG(ctl),  ARG(copy_keys), ARG(copy_values)};
    FORWARD_IF_ERROR(clsort__launch(ctx, finish, groups * wg, wg, 8, args, 0, NULL, NULL));
  }
  if (!starts) return CLSORT_SUCCESS;
  /* Row 0 of pass 0 (onesweep.cl's bases): the histogram's exclusive scan,
   * which the passes only read. */
  union {
    cl_uint u32[256];
    cl_ulong u64[256];
  } row;
  cl_event ev;
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueReadBuffer(ctx->queue, bases, CL_FALSE, 0, 256 * offset_size,
                                                &row, 0, NULL, &ev)));
  cl_int err = clsort__wait_event(ctx, ev);
  clReleaseEvent(ev);
  FORWARD_IF_ERROR(CL_CHECK(err));
  for (size_t d = 0; d < 256; d++) starts[d] = wide ? (size_t)row.u64[d] : row.u32[d];
  starts[256] = n;
  return CLSORT_SUCCESS;
}

bool clsort__radix_splits_top(const clsort_context *ctx) { return uses_nv_path(ctx); }

clsort_status clsort__radix_split_top(clsort_context *ctx, const clsort__sort_job *job,
                                      size_t starts[257]) {
  RETURN_IF(!uses_nv_path(ctx) || job->end_bit - job->begin_bit != 8 || job->n < 2 ||
                !job->keys_out || job->keys_out == job->keys_in,
            CLSORT_ERROR_UNSUPPORTED, "the radix sort's top split needs the NVIDIA path, 8 bits, "
            "two keys and an output apart from the input");
  return nv_radix_sort(ctx, job, starts);
}

clsort_status clsort__radix_sort(clsort_context *ctx, const clsort__sort_job *job) {
  size_t n = job->n, key_size = clsort_type_size(job->type);
  if (n == 0) return CLSORT_SUCCESS;
  if (n == 1) {
    if (!job->make_index) return CLSORT_SUCCESS;
    cl_ulong zero = 0;
    return CL_CHECK(clEnqueueFillBuffer(ctx->queue, job->vals_out, &zero, job->value_size,
                                        job->vals_at * job->value_size, job->value_size, 0,
                                        NULL, NULL));
  }
  if (uses_nv_path(ctx)) return nv_radix_sort(ctx, job, NULL);
  if (clsort__radix_cpu_runs(ctx)) return clsort__radix_sort_cpu(ctx, job);
  bool wide = n > UINT32_MAX;
  radix_kernels k;
  FORWARD_IF_ERROR(get_kernels(ctx, job, wide, &k));
  clsort__chunks c = radix_chunking(ctx, n, (size_t)ctx->tuning.wg_size * radix_items(ctx, job));

  unsigned passes[MAX_PASSES], m;
  cl_mem pass_tables, digit_bases;
  FORWARD_IF_ERROR(plan_passes(ctx, job, &k, c, wide, &pass_tables, &digit_bases, passes, &m));
  if (m == 0) {
    /* Every key has the same bits in the range: the input is sorted. A
     * sort into other buffers still has to write them, and an argsort
     * needs its indices: one stable pass makes either. */
    bool in_place = job->keys_out == job->keys_in &&
                    (!job->value_size || job->vals_out == job->vals_in);
    if (!job->make_index && in_place) return CLSORT_SUCCESS;
    passes[0] = 0;
    m = 1;
  }

  /* Ping-pong buffers. Pass i reads the source (i = 0) or where pass i-1
   * wrote, and writes K[i % 2] / V[i % 2]. */
  cl_mem table, scratch_keys, K[2], V[2] = {NULL, NULL};
  size_t bins = (size_t)1 << digit_bits(ctx);
  /* The chunk table, or the one-launch passes' tile counter and look-back
   * words. */
  size_t tiles = clsort__div_up(n, (size_t)ctx->tuning.wg_size * radix_items(ctx, job));
  size_t table_bytes = k.onesweep ? (1 + tiles * bins) * sizeof(cl_uint)
                                  : bins * c.groups * (wide ? 8 : 4);
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_TABLE, table_bytes, &table));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS, n * key_size, &scratch_keys));
  K[0] = scratch_keys;
  if (job->keys_out) {
    K[1] = job->keys_out;
  } else {
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS2, n * key_size, &K[1]));
  }
  if (job->value_size) {
    cl_mem scratch_vals;
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_VALUES, n * job->value_size, &scratch_vals));
    /* Generated indices have no source to protect: order the buffers so
     * that the last pass lands in the output, with no copy. */
    bool flip = job->make_index && (m % 2 == 1);
    V[0] = flip ? job->vals_out : scratch_vals;
    V[1] = flip ? scratch_vals : job->vals_out;
  }
  /* Nothing may fail once the first pass writes the caller's buffers. */
  if (!k.onesweep)
    FORWARD_IF_ERROR(clsort__scan_prepare(ctx, wide ? CLSORT_U64 : CLSORT_U32, bins * c.groups));
  for (unsigned i = 0; i < m; i++) {
    cl_mem kin = i == 0 ? job->keys_in : K[(i - 1) % 2];
    cl_mem vin = job->value_size ? (i == 0 ? job->vals_in : V[(i - 1) % 2]) : NULL;
    if (k.onesweep)
      FORWARD_IF_ERROR(run_onesweep(ctx, job, &k, table, digit_bases, passes[i], i == 0,
                                    i == m - 1, kin, K[i % 2], vin, V[i % 2]));
    else
      FORWARD_IF_ERROR(run_pass(ctx, job, &k, c, wide, table, pass_tables, passes[i], i == 0,
                                i == m - 1, kin, K[i % 2], vin, V[i % 2]));
  }
  /* An odd number of passes over a source that is also the destination
   * ends in scratch: copy back. */
  if (m % 2 == 1 && job->keys_out)
    FORWARD_IF_ERROR(CL_CHECK(
        clEnqueueCopyBuffer(ctx->queue, K[0], job->keys_out, 0, 0, n * key_size, 0, NULL, NULL)));
  if (m % 2 == 1 && job->value_size && !job->make_index)
    FORWARD_IF_ERROR(CL_CHECK(clEnqueueCopyBuffer(ctx->queue, V[0], job->vals_out, 0, 0,
                                                  n * job->value_size, 0, NULL, NULL)));
  return CLSORT_SUCCESS;
}
