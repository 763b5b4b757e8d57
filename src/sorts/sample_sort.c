/* sample_sort.c: the sample sort (Fine Sample Sort, seed 004). Each level
 * splits every bucket larger than the small sort's tile into up to k
 * buckets around splitters drawn from a random sample, plus an equality
 * bucket per splitter; buckets that fit a tile are finished together by
 * the block sort in tiles of consecutive buckets (GPUs) or by the
 * segmented small sort (CPUs). All large buckets of a level go through the
 * same launches; the host reads their bucket sizes back once per level
 * and plans the next level from them. */
#include "primitives/primitives.h"
#include "sorts/sorts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sample_files[] = {"common/common.cl", "common/wg_scan.cl@u32",
                                           "sorts/keys.cl", "sorts/sample.cl", NULL};
static const clsort__program_spec sample_spec = {"sample", sample_files};

#define P_WORDS 8          /* ulongs per parent record (sample.cl's P_*) */
#define DEFAULT_K 128      /* buckets per split: the thesis' choice */
/* GPUs take 256: fewer keys reach a third level. H100, 2^26 u32 keys
 * (CLSORT_SAMPLE=K[:S]): 7.62 ms at 128, 6.38 at 256, 8.77 at 64; 128:4
 * 6.90, 256:2 6.52. */
#define GPU_K 256
#define GPU_LEAST_S 8
#define MAX_K 256          /* what sample.cl accepts */
#define MAX_PARENTS 4096   /* parents per batch; larger levels run in batches */
#define MAX_SEGMENTS 65536 /* finished buckets per small-sort launch */
#define COPY_PIECE 65536   /* keys per group of the copy kernel */
#define SEED 0x2545f4914f6cdd1dull

typedef struct bucket {
  size_t begin, end;
} bucket;

typedef struct sample_kernels {
  cl_kernel gather, histogram, counts, scatter, copy, leaf_plan;
} sample_kernels;

/* Everything one sort needs, acquired before anything is written. */
typedef struct plan {
  const clsort__sort_job *job;
  size_t key_size;
  unsigned k;            /* most buckets per split (power of two) */
  unsigned oversampling; /* 0: the thesis' rule, ceil(0.005 n^(1/3)), at least least_s */
  unsigned least_s;
  unsigned max_parents;  /* parents per batch */
  size_t small_tile;     /* buckets up to this size go to the small sort */
  size_t sample_tile;    /* the longest sample (keys-only tile) */
  size_t dist_tile;      /* chunks are multiples of this */
  size_t groups;         /* groups that fill the device */
  bool wide;             /* 64-bit offsets */
  size_t offset_size;
  size_t pcap, ksum_cap, sample_cap, count_cap, table_cap, seg_cap, list_cap;
  size_t aux_parents, aux_counts, aux_copy; /* offsets in ulongs into aux */
  sample_kernels kern;
  clsort__sort_job sample_job, small_job;
  /* GPUs finish the buckets with the block sort, buckets that follow each
   * other packed into one tile (segment_tiles.c); else the segmented
   * bitonic sort, a bucket per work-group. */
  bool packed;
  /* Packed leaves of a last level planned on the device (sample.cl's
   * sample_leaf_plan) and sorted right after its scatter, instead of by
   * the host once it has read the sizes; CLSORT_SAMPLE_LEAF_PLAN=host
   * keeps the host's plan (bench/ compares), =again plans on both, as
   * when a child outgrows the tile (the tests' way to reach that path). */
  bool device_leaves, plan_again;
  clsort__ranges leaf;
  void *leaf_plan; /* host side of the packed plan */
  cl_mem out_k, out_v, tmp_k, tmp_v, table, samples, aux;
  /* Classify once (GPU shapes): the bucket of every key of a level, a
   * ushort per position of the level's source buffer, written by the
   * histogram and read by the scatter (sample.cl's SS_IDS). NULL: the
   * scatter classifies again (the CPU shape; CLSORT_SAMPLE_IDS=0; no
   * memory for it). */
  cl_mem ids;
  /* Host side: the context's worklist (pinned where the device allows). */
  cl_ulong *parents, *sample_segs, *small, *small_sorted, *copies;
  void *counts;
  bucket *cur, *next;
  size_t small_count, copy_count;
  /* The writes of `copies` and of the packed leaves' plan, sent without
   * blocking (a blocking write left the device idle while the host woke
   * up and queued the next kernel): each list is rewritten only once its
   * last write is done (settle). */
  cl_event copies_written, leaf_written;
} plan;

/* Waits for a write from the host lists, if one is pending. */
static cl_int settle(const clsort_context *ctx, cl_event *written) {
  if (!*written) return CL_SUCCESS;
  cl_int err = clsort__wait_event(ctx, *written);
  clReleaseEvent(*written);
  *written = NULL;
  return err;
}

/* CLSORT_SAMPLE=K[:S[:P]] overrides the buckets per split (a power of
 * two, 2 to 256), the oversampling (S keys of the sample per splitter; 0
 * keeps the thesis' rule) and the parents per batch (P >= 1; for tests).
 * bench/ uses it to measure K and S. Malformed fields keep the defaults. */
static void read_config(const clsort_context *ctx, unsigned *k, unsigned *s, unsigned *parents) {
  *k = ctx->is_cpu ? DEFAULT_K : GPU_K;
  *s = 0;
  *parents = MAX_PARENTS;
  unsigned f[3] = {0, 0, 0};
  static const char *const name = "CLSORT_SAMPLE";
  unsigned got = clsort__env_fields(name, f, 3);
  if (got >= 1 && clsort__env_field_ok(name, "K", f[0], 2, MAX_K, ENV_POW2)) *k = f[0];
  if (got >= 2 && clsort__env_field_ok(name, "S", f[1], 0, 1u << 20, ENV_ANY)) *s = f[1];
  if (got >= 3 && clsort__env_field_ok(name, "P", f[2], 1, MAX_PARENTS, ENV_ANY)) *parents = f[2];
}

static unsigned log2_floor(size_t x) {
  unsigned r = 0;
  while (x >>= 1) r++;
  return r;
}

/* Buckets for a parent of `size` keys: enough that the buckets average an
 * eighth to a sixteenth of a tile (the segmented small sort), a quarter to
 * an eighth (packed leaves, which take several buckets a tile), so that
 * few need another level (buckets_wanted); buckets_for rounds that up to
 * a power of two, at most k. With 8 keys sampled per splitter a bucket of
 * 4 times its mean has odds of about 10^-7 (a gamma tail). */
static size_t buckets_wanted(const plan *p, size_t size) {
  return clsort__div_up((p->packed ? 4 : 8) * size, p->small_tile);
}

static unsigned buckets_for(const plan *p, size_t size) {
  size_t want = buckets_wanted(p, size), k = 2;
  while (k < want && k < p->k) k *= 2;
  return (unsigned)k;
}

/* The size of bucket c of a batch, as the level read it back. */
static size_t bucket_size(const plan *p, size_t c) {
  return p->wide ? (size_t)((const cl_ulong *)p->counts)[c]
                 : (size_t)((const cl_uint *)p->counts)[c];
}

/* Sample keys per splitter: ceil(0.005 size^(1/3)) (Fine Sample Sort), or
 * the override; the whole sample must fit one keys-only tile. Deep levels
 * mean the splits went badly: they sample as much as fits. */
static unsigned oversampling_for(const plan *p, size_t size, unsigned k, unsigned level) {
  size_t s = p->oversampling;
  if (!s) /* the least s with (200 s)^3 >= size, without libm */
    for (s = p->least_s; s < 10000 && (200 * s) * (200 * s) * (200 * s) < size; s++) continue;
  if (level >= 8) s = p->sample_tile;
  s = clsort__min(clsort__max(s, 1), p->sample_tile / k);
  return (unsigned)clsort__max(s, 1);
}

/* The program's SS_K sizes its local tables; k itself is a run-time
 * argument, so every k up to the default shares one variant. */
static unsigned compiled_k(const plan *p) { return p->k > DEFAULT_K ? p->k : DEFAULT_K; }

static clsort_status get_kernels(clsort_context *ctx, plan *p, unsigned items, bool ids) {
  const clsort__sort_job *job = p->job;
  /* CLSORT_SAMPLE_SHAPE=MATCH:HIST_V[:ITEMS]: sample.cl's SS_MATCH and
   * SS_HIST_V (and scatter_items' ITEMS), for bench/. Defaults measured on
   * an H200 (2^24 / 2^26 u32 keys, one run): MATCH 0 1.116 / 3.990 ms,
   * MATCH 1 (match.any) 1.283 / 4.675; HIST_V 4 no better (1.251 /
   * 4.161); sorted, few-unique and staggered inputs no slower without
   * match.any. The CPU shape's one work-item classifies HIST_V 4 vectors
   * (16 u32 keys) a round, so that their descents of the tree overlap:
   * 2^24 u32 keys on 2 cores (PoCL 3.1), the two levels' histograms 202 /
   * 225 / 205 ms with 1, 115-120 with 4, 103 with 8 (the scatter, one key
   * at a time, was no faster with 8 keys classified at once). */
  unsigned hist_v = ctx->tuning.wg_size == 1 ? 4 : 1;
  unsigned f[3] = {0, hist_v, 0};
  static const char *const name = "CLSORT_SAMPLE_SHAPE";
  unsigned got = clsort__env_fields(name, f, 3);
  if (got < 2 || !clsort__env_field_ok(name, "MATCH", f[0], 0, 1, ENV_ANY) ||
      !clsort__env_field_ok(name, "HIST_V", f[1], 1, 8, ENV_POW2)) {
    f[0] = 0;
    f[1] = hist_v;
  }
  char options[256];
  snprintf(options, sizeof options,
           "-DKEY_T=%s -DKEY_BITS=%zu -DHAS_VALUES=%d -DVALUE_T=%s -DOFFSET_T=%s -DSS_K=%u "
           "-DSS_ITEMS=%u -DSS_MATCH=%u -DSS_HIST_V=%u -DSS_IDS=%d",
           p->key_size == 8 ? "ulong" : "uint", p->key_size * 8, job->value_size ? 1 : 0,
           job->value_size == 8 ? "ulong" : "uint", p->wide ? "ulong" : "uint", compiled_k(p),
           items, f[0], f[1], ids ? 1 : 0);
  sample_kernels *k = &p->kern;
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &sample_spec, options, "sample_gather", &k->gather));
  FORWARD_IF_ERROR(
      clsort__get_kernel(ctx, &sample_spec, options, "sample_histogram", &k->histogram));
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &sample_spec, options, "sample_counts", &k->counts));
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &sample_spec, options, "sample_scatter", &k->scatter));
  FORWARD_IF_ERROR(
      clsort__get_kernel(ctx, &sample_spec, options, "sample_leaf_plan", &k->leaf_plan));
  return clsort__get_kernel(ctx, &sample_spec, options, "sample_copy", &k->copy);
}

/* Keys per work-item of a scatter tile: the tile, its 2-byte buckets and
 * positions, and the bucket tables must fit the local memory. */
static unsigned scatter_items(const clsort_context *ctx, const plan *p) {
  size_t wg = ctx->tuning.wg_size;
  if (wg == 1) return 4;
  unsigned items = p->key_size == 8 ? 8 : 16;
  unsigned f[3] = {0, 0, 0};
  if (clsort__env_fields("CLSORT_SAMPLE_SHAPE", f, 3) == 3 && f[2] >= 16 / p->key_size &&
      f[2] <= 32 && (f[2] & (f[2] - 1)) == 0)
    items = f[2];
  size_t per_key = p->key_size + 2 + (p->job->value_size ? 2 : 0);
  size_t k = compiled_k(p);
  size_t fixed = (2 * k - 1) * (12 + p->offset_size) + k * p->key_size + wg * 4 + 1024;
  while (items > 16 / p->key_size && fixed + wg * items * per_key > ctx->local_mem) items /= 2;
  return items;
}

/* Whether a failed acquisition of the ids means only that memory is
 * short (the memory limit, the allocation limit, the caller's scratch,
 * the device): then the scatter classifies again instead. */
static bool memory_short(clsort_status st) {
  return st == CLSORT_ERROR_MEMORY_LIMIT || st == CLSORT_ERROR_TOO_LARGE ||
         st == CLSORT_ERROR_OUT_OF_MEMORY;
}

/* Whether the sort asks for the ids: on multi-work-item groups, for keys
 * of 4 bytes; CLSORT_SAMPLE_IDS=0 or 1 says otherwise (bench/ compares).
 * H100, same run, CUB's merge sort / ours at 2^24 and 2^26, without and
 * with the ids: u32 keys 0.76 / 0.85x -> 0.85 / 0.93x, u32 pairs 0.90 /
 * 1.03x -> 0.95 / 1.01x; u64 keys 1.19 / 1.33x -> 1.18 / 1.27x, u64
 * pairs 1.09 / 1.16x -> 1.05 / 1.14x: a 64-bit key's level already moves
 * 16 bytes a key or more, to which the ids add 4. */
static bool wants_ids(const clsort_context *ctx, size_t key_size) {
  unsigned f[1] = {0};
  static const char *const name = "CLSORT_SAMPLE_IDS";
  bool set = clsort__env_fields(name, f, 1) == 1 &&
             clsort__env_field_ok(name, "IDS", f[0], 0, 1, ENV_ANY);
  return ctx->tuning.wg_size > 1 && (set ? f[0] == 1 : key_size <= 4);
}

/* The ids buffer (plan's `ids`): n ushorts in the slot that no other sort
 * uses, acquired after every buffer the sort cannot do without, so that
 * under a memory limit it takes only what they leave. Without memory for
 * it the kernels that classify twice replace those built for the ids. */
static clsort_status acquire_ids(clsort_context *ctx, plan *p, unsigned items) {
  clsort_status st = clsort__scratch(ctx, SLOT_SORT_VALUES2, p->job->n * 2, &p->ids);
  if (st == CLSORT_SUCCESS || !memory_short(st)) return st;
  clsort__debug("sample: no memory for the bucket ids (%s); the scatter classifies again",
                clsort_last_error_message());
  clsort__clear_error();
  p->ids = NULL;
  return get_kernels(ctx, p, items, false);
}

/* The capacities of one batch, and every buffer, sized from n so that no
 * allocation happens once the caller's buffers are being written. */
static clsort_status prepare(clsort_context *ctx, plan *p) {
  const clsort__sort_job *job = p->job;
  size_t n = job->n, wg = ctx->tuning.wg_size;
  p->wide = n > UINT32_MAX;
  p->offset_size = p->wide ? 8 : 4;
  unsigned items = scatter_items(ctx, p);
  p->dist_tile = wg == 1 ? 256 : wg * items;
  p->groups = clsort__max(1, (size_t)ctx->compute_units * ctx->tuning.groups_per_cu);
  bool ids = wants_ids(ctx, p->key_size);
  FORWARD_IF_ERROR(get_kernels(ctx, p, items, ids));

  /* Every parent is longer than a tile; each has at most 16 size / tile +
   * 2 buckets, so a batch's k sum stays below ksum_cap. */
  size_t most_parents = n / (p->small_tile + 1) + 1;
  p->pcap = clsort__min(p->max_parents, most_parents);
  p->ksum_cap = clsort__min(p->pcap * p->k, 16 * (n / p->small_tile) + 2 * p->pcap + p->k);
  unsigned s_max = oversampling_for(p, n, p->k, 0);
  p->sample_cap =
      clsort__max(p->sample_tile, clsort__min(p->ksum_cap * s_max, p->pcap * p->sample_tile));
  p->count_cap = 2 * p->ksum_cap;
  /* A parent's chunks number at most size / chunk + 2, and chunk >= the
   * batch's keys / groups. */
  p->table_cap = (2 * (size_t)p->k - 1) * p->groups + 4 * p->ksum_cap;
  p->seg_cap = clsort__max(p->pcap, clsort__min(MAX_SEGMENTS, 32 * (n / p->small_tile) + 64));
  p->list_cap = most_parents;

  /* The small list (or the packed plan) at the start of aux. */
  p->aux_parents = 2 * p->seg_cap;
  if (p->packed) {
    FORWARD_IF_ERROR(clsort__ranges_prepare(ctx, &p->small_job, &p->leaf));
    p->aux_parents =
        clsort__max(p->aux_parents, clsort__div_up(clsort__ranges_plan_bytes(p->seg_cap), 8));
  }
  p->aux_counts = p->aux_parents + P_WORDS * p->pcap;
  p->aux_copy = p->aux_counts + clsort__div_up(p->count_cap * p->offset_size, 8);
  size_t aux_words = p->aux_copy + 2 * p->seg_cap;

  FORWARD_IF_ERROR(clsort__segments_prepare(ctx, &p->sample_job));
  FORWARD_IF_ERROR(clsort__segments_prepare(ctx, &p->small_job));
  FORWARD_IF_ERROR(clsort__scan_prepare(ctx, p->wide ? CLSORT_U64 : CLSORT_U32, p->table_cap));
  size_t key_bytes = n * p->key_size;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS, key_bytes, &p->tmp_k));
  if (!job->keys_out) FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS2, key_bytes, &p->out_k));
  if (job->value_size)
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_VALUES, n * job->value_size, &p->tmp_v));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_AUX1, p->table_cap * p->offset_size, &p->table));
  FORWARD_IF_ERROR(
      clsort__scratch(ctx, SLOT_SORT_AUX2, p->sample_cap * p->key_size, &p->samples));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_AUX3, aux_words * 8, &p->aux));

  size_t host_bytes = (P_WORDS + 2) * p->pcap * 8 + p->count_cap * p->offset_size +
                      6 * p->seg_cap * 8 + 2 * p->list_cap * sizeof(bucket);
  size_t leaf_at = clsort__div_up(host_bytes, 8) * 8;
  if (p->packed) host_bytes = leaf_at + clsort__ranges_plan_bytes(p->seg_cap);
  unsigned char *h;
  FORWARD_IF_ERROR(clsort__worklist(ctx, host_bytes, (void **)&h));
  p->parents = (cl_ulong *)(void *)h;
  p->sample_segs = p->parents + P_WORDS * p->pcap;
  p->small = p->sample_segs + 2 * p->pcap;
  p->small_sorted = p->small + 2 * p->seg_cap;
  p->copies = p->small_sorted + 2 * p->seg_cap;
  p->cur = (bucket *)(void *)(p->copies + 2 * p->seg_cap);
  p->next = p->cur + p->list_cap;
  p->counts = p->next + p->list_cap;
  p->leaf_plan = p->packed ? h + leaf_at : NULL;
  return ids ? acquire_ids(ctx, p, items) : CLSORT_SUCCESS;
}

/* Copies the finished buckets listed in p->copies from scratch to the
 * output. */
static clsort_status flush_copies(clsort_context *ctx, plan *p) {
  if (p->copy_count == 0) return CLSORT_SUCCESS;
  const clsort__sort_job *job = p->job;
  FORWARD_IF_ERROR(CL_CHECK(settle(ctx, &p->copies_written)));
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(ctx->queue, p->aux, CL_FALSE, p->aux_copy * 8,
                                                 p->copy_count * 16, p->copies, 0, NULL,
                                                 &p->copies_written)));
  cl_ulong off = p->aux_copy;
  cl_mem tv = job->value_size ? p->tmp_v : p->tmp_k, ov = job->value_size ? p->out_v : p->out_k;
  clsort__arg args[] = {ARG(p->tmp_k), ARG(p->out_k), ARG(tv), ARG(ov), ARG(p->aux), ARG(off)};
  size_t wg = ctx->tuning.wg_size;
  FORWARD_IF_ERROR(
      clsort__launch(ctx, p->kern.copy, p->copy_count * wg, wg, 6, args, 0, NULL, NULL));
  p->copy_count = 0;
  return CLSORT_SUCCESS;
}

/* Sorts the finished-by-size buckets of p->small in one launch: packed
 * into tiles of consecutive buckets, each read where its level left it,
 * or for the segmented small sort the largest first so that the longest
 * groups start early, in the output (their copies go first). */
static clsort_status flush_small(clsort_context *ctx, plan *p) {
  FORWARD_IF_ERROR(flush_copies(ctx, p));
  if (p->small_count == 0) return CLSORT_SUCCESS;
  if (p->packed) {
    size_t count = p->small_count;
    p->small_count = 0;
    cl_mem tv = p->job->value_size ? p->tmp_v : p->tmp_k;
    FORWARD_IF_ERROR(CL_CHECK(settle(ctx, &p->leaf_written)));
    double t0 = clsort__now_ms();
    clsort_status st = clsort__ranges_sort(ctx, &p->small_job, &p->leaf, p->small, count,
                                           p->tmp_k, tv, p->aux, p->leaf_plan, &p->leaf_written);
    clsort__debug("sample: %zu leaves packed and queued in %.1f us", count,
                  (clsort__now_ms() - t0) * 1e3);
    return st;
  }
  /* A counting sort by size class (log2), descending. */
  size_t start[65] = {0};
  for (size_t i = 0; i < p->small_count; i++)
    start[63 - log2_floor(p->small[2 * i + 1] - p->small[2 * i]) + 1]++;
  for (int c = 1; c < 65; c++) start[c] += start[c - 1];
  for (size_t i = 0; i < p->small_count; i++) {
    size_t at = start[63 - log2_floor(p->small[2 * i + 1] - p->small[2 * i])]++;
    p->small_sorted[2 * at] = p->small[2 * i];
    p->small_sorted[2 * at + 1] = p->small[2 * i + 1];
  }
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(ctx->queue, p->aux, CL_TRUE, 0,
                                                 p->small_count * 16, p->small_sorted, 0, NULL,
                                                 NULL)));
  FORWARD_IF_ERROR(clsort__sort_segments(ctx, &p->small_job, p->aux, p->small_count));
  p->small_count = 0;
  return CLSORT_SUCCESS;
}

/* A finished bucket [begin, end) that the level wrote to scratch: it
 * moves to the output, in pieces that one group copies quickly. */
static clsort_status add_copy(clsort_context *ctx, plan *p, size_t begin, size_t end) {
  /* A bucket that follows the last piece in memory fills it up first:
   * tens of thousands of buckets become a few pieces. */
  if (p->copy_count > 0 && begin < end && p->copies[2 * p->copy_count - 1] == begin) {
    cl_ulong *last = p->copies + 2 * (p->copy_count - 1);
    size_t grow = clsort__min(end - begin, COPY_PIECE - (size_t)(last[1] - last[0]));
    last[1] += grow;
    begin += grow;
  }
  while (begin < end) {
    if (p->copy_count == p->seg_cap) FORWARD_IF_ERROR(flush_copies(ctx, p));
    if (p->copy_count == 0) FORWARD_IF_ERROR(CL_CHECK(settle(ctx, &p->copies_written)));
    size_t piece = clsort__min(end - begin, COPY_PIECE);
    p->copies[2 * p->copy_count] = begin;
    p->copies[2 * p->copy_count + 1] = begin + piece;
    p->copy_count++;
    begin += piece;
  }
  return CLSORT_SUCCESS;
}

/* Packed leaves: a finished bucket that begins where the last listed one
 * ends, in the same buffer (`where`: CLSORT_RANGE_OTHER for scratch),
 * joins it while the two fit a tile (buckets lie in key order, so one
 * sort of both sorts each). Equality buckets join too: each holds at
 * least its splitter, and would otherwise part every two buckets. */
static bool join_last(plan *p, size_t begin, size_t end, cl_ulong where) {
  if (!p->packed || p->small_count == 0) return false;
  cl_ulong *last = p->small + 2 * (p->small_count - 1);
  if (last[1] != (begin | where) || end - last[0] > p->small_tile) return false;
  last[1] = end | where;
  return true;
}

static clsort_status add_small(clsort_context *ctx, plan *p, size_t begin, size_t end,
                               cl_ulong where) {
  if (join_last(p, begin, end, where)) return CLSORT_SUCCESS;
  if (p->small_count == p->seg_cap) FORWARD_IF_ERROR(flush_small(ctx, p));
  p->small[2 * p->small_count] = begin;
  p->small[2 * p->small_count + 1] = end | where;
  p->small_count++;
  return CLSORT_SUCCESS;
}

/* The buffers a level reads and writes. */
typedef struct level_io {
  cl_mem src_k, src_v, dst_k, dst_v;
  bool dst_is_tmp; /* finished buckets must still be copied to the output */
  bool make_index; /* the first level generates argsort's indices */
  unsigned level;
} level_io;

/* What a batch's records add up to: its samples, chunks (the histogram's
 * and scatter's groups), count-table entries and bucket sizes. */
typedef struct batch_sums {
  size_t chunk, samples, groups, table, counts;
} batch_sums;

/* The batch's parent records (sample.cl's P_*) and its samples' segments,
 * in the host's arrays. */
static batch_sums describe_batch(plan *p, const bucket *parents, size_t count, unsigned level) {
  size_t total = 0;
  for (size_t i = 0; i < count; i++) total += parents[i].end - parents[i].begin;
  /* The chunk geometry over the batch: enough chunks to fill the device. */
  size_t per_group = clsort__div_up(total, p->groups);
  size_t chunk = clsort__max(p->dist_tile, clsort__div_up(per_group, p->dist_tile) * p->dist_tile);
  size_t vec = 16 / p->key_size, sample = 0, first = 0, table = 0, prefix = 0, counts = 0;
  for (size_t i = 0; i < count; i++) {
    size_t begin = parents[i].begin, end = parents[i].end, size = end - begin;
    unsigned k = buckets_for(p, size), s = oversampling_for(p, size, k, level);
    size_t a = begin / vec * vec, chunks = clsort__div_up(end - a, chunk), nb = 2 * (size_t)k - 1;
    cl_ulong *r = p->parents + P_WORDS * i;
    r[0] = begin;
    r[1] = end;
    r[2] = sample;
    r[3] = (cl_ulong)s | ((cl_ulong)log2_floor(k) << 32);
    r[4] = first;
    r[5] = table;
    r[6] = prefix;
    r[7] = counts;
    p->sample_segs[2 * i] = sample;
    p->sample_segs[2 * i + 1] = sample + (size_t)k * s;
    sample += (size_t)k * s;
    first += chunks;
    table += nb * chunks;
    prefix += size;
    counts += nb;
  }
  return (batch_sums){chunk, sample, first, table, counts};
}

/* The children of the batch's parents from their bucket sizes (read
 * back): finished ones (equal keys, a single key) copied where they must
 * move, small ones listed for the small sort (unless the device listed
 * them: device_listed), large ones appended to p->next. */
static clsort_status take_children(clsort_context *ctx, plan *p, const bucket *parents,
                                   size_t count, const level_io *io, bool device_listed,
                                   size_t *next_count) {
  size_t counts = 0;
  cl_ulong where = io->dst_is_tmp && p->packed ? CLSORT_RANGE_OTHER : 0;
  for (size_t i = 0; i < count; i++) {
    size_t at = parents[i].begin, nb = 2 * (size_t)buckets_for(p, parents[i].end - at) - 1;
    for (size_t b = 0; b < nb; b++, counts++) {
      size_t size = bucket_size(p, counts);
      size_t begin = at;
      at += size;
      if (size == 0) continue;
      if (device_listed && size <= p->small_tile) continue;
      if (b % 2 == 1 || size == 1) {
        /* All keys equal: sorted (in a packed tile, with its neighbours). */
        if (!join_last(p, begin, at, where) && io->dst_is_tmp)
          FORWARD_IF_ERROR(add_copy(ctx, p, begin, at));
      } else if (size <= p->small_tile) {
        /* The packed sort reads the bucket wherever the level left it. */
        if (io->dst_is_tmp && !p->packed) FORWARD_IF_ERROR(add_copy(ctx, p, begin, at));
        FORWARD_IF_ERROR(add_small(ctx, p, begin, at, where));
      } else {
        p->next[(*next_count)++] = (bucket){begin, at};
      }
    }
    RETURN_IF(at != parents[i].end, CLSORT_ERROR_OPENCL,
              "sample sort: the bucket sizes of [%zu, %zu) add up to %zu keys",
              parents[i].begin, parents[i].end, at - parents[i].begin);
  }
  return CLSORT_SUCCESS;
}

/* One batch of parents of a level: sample, sort the samples, count,
 * scan, scatter, read the bucket sizes back, and sort the children into
 * finished, small and large (appended to p->next). */
static clsort_status run_batch(clsort_context *ctx, plan *p, const bucket *parents, size_t count,
                               const level_io *io, size_t *next_count) {
  const clsort__sort_job *job = p->job;
  const batch_sums sums = describe_batch(p, parents, count, io->level);
  /* A last level, whose children should all fit a tile (no parent's k
   * was capped), plans and sorts its leaves on the device, in a launch of
   * `bound` tiles: a greedy plan of a parent has fewer than 2 size / tile
   * + 1 (any two tiles in a row hold more than a tile), unless a child
   * outgrew the tile; then the host plans the batch's leaves again (see
   * below). The plan and its counter lie at the start of aux, below the
   * parents. */
  size_t bound = 0;
  bool leaf_plan = p->device_leaves;
  for (size_t i = 0; i < count; i++) {
    size_t size = parents[i].end - parents[i].begin;
    leaf_plan = leaf_plan && buckets_wanted(p, size) <= p->k && size <= UINT32_MAX;
    bound += 2 * size / p->small_tile + 1;
  }
  leaf_plan = leaf_plan && (bound + 1) * 16 <= p->aux_parents * 8 && bound <= UINT32_MAX;
  /* The writes complete before the read of the bucket sizes below ends
   * (one in-order queue); the host arrays stay untouched until then. */
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(ctx->queue, p->aux, CL_FALSE, 0, count * 16,
                                                 p->sample_segs, 0, NULL, NULL)));
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(ctx->queue, p->aux, CL_FALSE, p->aux_parents * 8,
                                                 count * P_WORDS * 8, p->parents, 0, NULL, NULL)));
  size_t wg = ctx->tuning.wg_size;
  cl_ulong parents_off = p->aux_parents, counts_off = p->aux_counts, chunk64 = sums.chunk;
  cl_ulong seed = SEED ^ ((cl_ulong)io->level * 0x9e3779b97f4a7c15ull);
  cl_uint num = (cl_uint)count;
  int kind = clsort__key_kind(job->type), desc = job->descending, make_index = io->make_index;

  clsort__arg gather[] = {ARG(io->src_k), ARG(p->aux), ARG(parents_off), ARG(p->samples),
                          ARG(seed)};
  FORWARD_IF_ERROR(clsort__launch(ctx, p->kern.gather, count * wg, wg, 5, gather, 0, NULL, NULL));
  p->sample_job.n = sums.samples;
  FORWARD_IF_ERROR(clsort__sort_segments(ctx, &p->sample_job, p->aux, count));
  /* The samples' sort has read its list at the start of aux: the leaf
   * plan may go there (unused entries stay zero: tiles of no keys). */
  cl_ulong zero = 0;
  if (leaf_plan)
    FORWARD_IF_ERROR(CL_CHECK(clEnqueueFillBuffer(ctx->queue, p->aux, &zero, sizeof zero, 0,
                                                  (bound + 1) * 16, 0, NULL, NULL)));
  /* Programs that classify twice ignore `ids`; any valid buffer will do.
   * The histogram's ids of this batch are read by its scatter before the
   * next batch's histogram runs: one in-order queue. */
  cl_mem ids = p->ids ? p->ids : p->table;
  clsort__arg hist[] = {ARG(io->src_k), ARG(p->aux),  ARG(parents_off), ARG(num),
                        ARG(p->samples), ARG(chunk64), ARG(kind),        ARG(desc),
                        ARG(p->table),  ARG(ids)};
  FORWARD_IF_ERROR(
      clsort__launch(ctx, p->kern.histogram, sums.groups * wg, wg, 10, hist, 0, NULL, NULL));
  FORWARD_IF_ERROR(clsort__scan(ctx, p->wide ? CLSORT_U64 : CLSORT_U32, CLSORT_SCAN_EXCLUSIVE,
                                p->table, p->table, sums.table));
  /* The level's one round trip: the bucket sizes of every parent, read
   * before the scatter, which runs while the host plans from them. */
  clsort__arg sizes[] = {ARG(p->aux), ARG(parents_off), ARG(counts_off), ARG(p->table),
                         ARG(chunk64)};
  FORWARD_IF_ERROR(clsort__launch(ctx, p->kern.counts, count * wg, wg, 5, sizes, 0, NULL, NULL));
  cl_event got = NULL;
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueReadBuffer(ctx->queue, p->aux, CL_FALSE, p->aux_counts * 8,
                                                sums.counts * p->offset_size, p->counts, 0, NULL,
                                                &got)));
  /* Keys-only programs ignore the value buffers; any valid buffer will do. */
  cl_mem sv = io->src_v ? io->src_v : io->src_k, dv = io->dst_v ? io->dst_v : io->dst_k;
  clsort__arg scatter[] = {ARG(io->src_k),  ARG(io->dst_k),   ARG(sv),      ARG(dv),
                           ARG(p->aux),     ARG(parents_off), ARG(num),     ARG(p->samples),
                           ARG(chunk64),    ARG(kind),        ARG(desc),    ARG(p->table),
                           ARG(make_index), ARG(ids)};
  clsort_status st =
      clsort__launch(ctx, p->kern.scatter, sums.groups * wg, wg, 14, scatter, 0, NULL, NULL);
  if (st == CLSORT_SUCCESS && leaf_plan) {
    cl_ulong tile64 = p->small_tile;
    cl_uint other = io->dst_is_tmp ? 1 : 0, plan_cap = (cl_uint)bound;
    clsort__arg lp[] = {ARG(p->aux),  ARG(parents_off), ARG(p->table), ARG(chunk64),
                        ARG(tile64),  ARG(other),       ARG(p->aux),   ARG(plan_cap)};
    st = clsort__launch(ctx, p->kern.leaf_plan, count * wg, wg, 8, lp, 0, NULL, NULL);
    cl_mem tv = job->value_size ? p->tmp_v : p->tmp_k;
    if (st == CLSORT_SUCCESS)
      st = clsort__ranges_launch(ctx, &p->small_job, &p->leaf, bound, p->tmp_k, tv, p->aux);
  }
  if (st == CLSORT_SUCCESS) st = CL_CHECK(clFlush(ctx->queue));
  /* The read must end before p->counts is used, or, on a failure, before
   * its host memory may go. */
  cl_int waited = clsort__wait_event(ctx, got);
  clReleaseEvent(got);
  FORWARD_IF_ERROR(st);
  FORWARD_IF_ERROR(CL_CHECK(waited));

  double planned = clsort__now_ms();
  /* The device has planned and sorted the leaves of a last level: the
   * host takes only what outgrew a tile. If a child did (unlikely: its
   * parent's k was chosen for a quarter tile), the device's plan may have
   * run past `bound`, and the host lists the batch's leaves again, as
   * without it: sorting a sorted tile again changes nothing. */
  bool device_listed = leaf_plan && !p->plan_again;
  for (size_t i = 0, c = 0; device_listed && i < count; i++) {
    size_t nb = 2 * (size_t)buckets_for(p, parents[i].end - parents[i].begin) - 1;
    for (size_t b = 0; b < nb; b += 2)
      if (bucket_size(p, c + b) > p->small_tile) device_listed = false;
    c += nb;
  }
  FORWARD_IF_ERROR(take_children(ctx, p, parents, count, io, device_listed, next_count));
  clsort__debug("sample: level %u: %zu buckets read back and planned in %.1f us%s", io->level,
                sums.counts, (clsort__now_ms() - planned) * 1e3,
                device_listed  ? " (leaves planned on the device)"
                : leaf_plan    ? " (a child outgrew the tile: leaves planned again)"
                               : "");
  return CLSORT_SUCCESS;
}

/* Whether a parent joins the batch without passing a capacity. */
static bool fits(const plan *p, size_t parents, size_t ksum, size_t samples, const bucket *b,
                 unsigned level) {
  size_t size = b->end - b->begin;
  unsigned k = buckets_for(p, size);
  size_t s = oversampling_for(p, size, k, level);
  return parents + 1 <= p->pcap && ksum + k <= p->ksum_cap && samples + k * s <= p->sample_cap;
}

static clsort_status run_levels(clsort_context *ctx, plan *p) {
  const clsort__sort_job *job = p->job;
  /* Level L reads src and writes everything to dst; buckets that are
   * finished stay where they were written. The output must never be both
   * read and written by one level, so levels alternate between writing
   * the output and writing scratch, starting with scratch when the input
   * is the output. */
  bool in_place = job->keys_out == job->keys_in ||
                  (job->value_size && !job->make_index && job->vals_out == job->vals_in);
  level_io io = {job->keys_in, job->make_index ? NULL : job->vals_in, NULL, NULL,
                 false, job->make_index, 0};
  bool write_tmp = in_place;
  size_t cur_count = 1;
  p->cur[0] = (bucket){0, job->n};
  while (cur_count > 0) {
    io.dst_k = write_tmp ? p->tmp_k : p->out_k;
    io.dst_v = job->value_size ? (write_tmp ? p->tmp_v : p->out_v) : NULL;
    io.dst_is_tmp = write_tmp;
    size_t next_count = 0;
    for (size_t i = 0; i < cur_count;) {
      size_t count = 0, ksum = 0, samples = 0;
      while (i + count < cur_count &&
             fits(p, count, ksum, samples, &p->cur[i + count], io.level)) {
        size_t size = p->cur[i + count].end - p->cur[i + count].begin;
        unsigned k = buckets_for(p, size);
        ksum += k;
        samples += (size_t)k * oversampling_for(p, size, k, io.level);
        count++;
      }
      FORWARD_IF_ERROR(run_batch(ctx, p, p->cur + i, count, &io, &next_count));
      i += count;
    }
    bucket *t = p->cur;
    p->cur = p->next;
    p->next = t;
    cur_count = next_count;
    io.src_k = io.dst_k;
    io.src_v = io.dst_v;
    io.make_index = false;
    io.level++;
    write_tmp = !write_tmp;
    clsort__debug("sample: level %u leaves %zu large buckets", io.level, cur_count);
  }
  return flush_small(ctx, p);
}

/* The sort with at most k buckets per split, s keys sampled per splitter
 * (0: the thesis' rule) and at most `parents` parents per batch. */
static clsort_status sort_with(clsort_context *ctx, const clsort__sort_job *job, unsigned k,
                               unsigned s, unsigned parents) {
  size_t n = job->n, key_size = clsort_type_size(job->type);
  if (n == 0) return CLSORT_SUCCESS;
  plan p;
  memset(&p, 0, sizeof p);
  p.job = job;
  p.key_size = key_size;
  p.k = k;
  p.oversampling = s;
  p.max_parents = parents;
  /* GPUs sample at least 8 keys per splitter. The rule gives 1 up to 8
   * million keys a parent, and buckets then reach 8 times their mean: at
   * 2^24 u32 keys (H200) 19 of 32768 buckets outgrew a 4096-key tile and
   * took a third level. The sample's sort costs next to nothing. */
  p.least_s = ctx->tuning.cpu_shape ? 1 : GPU_LEAST_S;
  clsort__sort_job unstable = *job;
  unstable.stable = false;
  unstable.make_index = false;
  /* CLSORT_SAMPLE_LEAF=bitonic keeps the segmented bitonic sort where the
   * packed block sort would run (bench/ compares them). */
  const char *leaf = getenv("CLSORT_SAMPLE_LEAF");
  p.packed = clsort__ranges_tile(ctx, &unstable) >= 2 && !(leaf && strcmp(leaf, "bitonic") == 0);
  const char *leaf_plan = getenv("CLSORT_SAMPLE_LEAF_PLAN");
  p.device_leaves = p.packed && !(leaf_plan && strcmp(leaf_plan, "host") == 0);
  p.plan_again = leaf_plan && strcmp(leaf_plan, "again") == 0;
  p.small_tile = p.packed ? clsort__ranges_tile(ctx, &unstable)
                          : clsort__segment_limit(ctx, &unstable);
  p.sample_tile = clsort__bitonic_shape_for(ctx, key_size, 0, false).tile;
  /* One tile: the bitonic sort alone, in one launch. */
  if (n <= clsort__bitonic_shape_for(ctx, key_size, job->value_size, false).tile)
    return clsort__bitonic_sort(ctx, job);
  while (p.k > p.sample_tile) p.k /= 2;

  p.out_k = job->keys_out;
  p.out_v = job->vals_out;
  p.sample_job = *job;
  p.sample_job.value_size = 0;
  p.sample_job.make_index = false;
  p.sample_job.stable = false;
  p.small_job = *job;
  p.small_job.make_index = false;
  p.small_job.stable = false;
  clsort__debug("sample: buckets of up to %zu keys finished by the %s", p.small_tile,
                p.packed ? "block sort in packed tiles" : "segmented small sort");
  clsort_status st = prepare(ctx, &p);
  if (st == CLSORT_SUCCESS) {
    p.sample_job.keys_in = p.samples;
    p.small_job.keys_in = p.out_k;
    p.small_job.vals_in = p.out_v;
    p.small_job.n = n;
    st = run_levels(ctx, &p);
  }
  /* Writes of host arrays may still be queued after a failure. */
  if (st != CLSORT_SUCCESS) clFinish(ctx->queue);
  /* The worklist is the next sort's: its last writes must be done. */
  cl_int err = settle(ctx, &p.copies_written);
  cl_int err2 = settle(ctx, &p.leaf_written);
  if (st == CLSORT_SUCCESS && err != CL_SUCCESS) st = CL_CHECK(err);
  if (st == CLSORT_SUCCESS && err2 != CL_SUCCESS) st = CL_CHECK(err2);
  return st;
}

clsort_status clsort__sample_sort(clsort_context *ctx, const clsort__sort_job *job) {
  if (job->n == 0) return CLSORT_SUCCESS;
  if (ctx->tuning.cpu_shape) return clsort__sample_sort_cpu(ctx, job);
  unsigned k, s, parents;
  read_config(ctx, &k, &s, &parents);
  return sort_with(ctx, job, k, s, parents);
}

clsort_status clsort__sample_sort_ways(clsort_context *ctx, const clsort__sort_job *job,
                                       unsigned ways, unsigned oversampling) {
  return sort_with(ctx, job, ways, oversampling, MAX_PARENTS);
}
