/* sorts.h: the sorts layer: what every sort algorithm implements, what
 * api/sort.c hands them (device buffers already checked, the options
 * resolved), and what the sorts share (the bitonic tile, the segmented
 * small sort, the key kinds of keys.cl). Built on the primitives. */
#ifndef CLSORT_SORTS_H
#define CLSORT_SORTS_H

#include "primitives/primitives.h"

/* One sort on device buffers. keys_in is read; the sorted keys go to
 * keys_out (which may be keys_in), or nowhere when keys_out is NULL
 * (argsort). With values: vals_in travel with their keys to vals_out (may
 * be vals_in); with make_index the values are the keys' input positions
 * and vals_in is unused (argsort). value_size 0 means no values. */
typedef struct clsort__sort_job {
  clsort_type type;
  size_t n;
  unsigned begin_bit, end_bit; /* end_bit resolved: never 0 */
  bool descending;
  cl_mem keys_in, keys_out;
  cl_mem vals_in, vals_out;
  /* Where the keys (in keys_in and keys_out) and the values (in vals_in
   * and vals_out) start in their buffers, in elements: nonzero only for a
   * caller's host array used in place on a CPU device from the aligned
   * address before it, and only for the jobs that clsort__takes_origins
   * accepts (api/dispatch.c); every other job has 0. */
  size_t keys_at, vals_at;
  size_t value_size;
  bool make_index;
  bool stable; /* the segmented small sort: ties keep their input order */
} clsort__sort_job;

/* The origins of a pair of buffers of a job, as the CPU sorts' kernels
 * take them (common.cl's CPU_AT): keys_at where k is one of the job's key
 * buffers, vals_at where v is one of its value buffers, else 0 (scratch). */
static inline cl_ulong2 clsort__pair_at(const clsort__sort_job *job, cl_mem k, cl_mem v) {
  cl_ulong2 at;
  at.s[0] = k && (k == job->keys_in || k == job->keys_out) ? job->keys_at : 0;
  at.s[1] = v && (v == job->vals_in || v == job->vals_out) ? job->vals_at : 0;
  return at;
}

/* The origin of a buffer that top-k and select read: job->keys_at where
 * it is the job's input (a caller's host array used in place on a CPU
 * device), else 0 (scratch, or a buffer of the caller's). */
static inline cl_ulong clsort__input_at(const clsort__sort_job *job, cl_mem m) {
  return m && m == job->keys_in ? job->keys_at : 0;
}

clsort_status clsort__radix_sort(clsort_context *ctx, const clsort__sort_job *job);
/* The split sort of staged host arrays (api/staging.c) on the NVIDIA path
 * (clsort__radix_splits_top): the job's one stable pass by the 8 bits of
 * its range (the top bits of the range the caller asked for), from
 * keys_in to keys_out, which must differ; then, once the device is done,
 * starts[d] = where the keys of digit d begin in the output (digits in
 * output order: descending sorts flip them) and starts[256] = n. Blocks. */
bool clsort__radix_splits_top(const clsort_context *ctx);
clsort_status clsort__radix_split_top(clsort_context *ctx, const clsort__sort_job *job,
                                      size_t starts[257]);
/* The radix sort's CPU shape (radix_cpu.c), which clsort__radix_sort runs
 * when clsort__radix_cpu_runs: ctx->tuning.cpu_shape is set and the
 * NVIDIA path is not emulated (CLSORT_RADIX_EMULATE); n >= 2. */
bool clsort__radix_cpu_runs(const clsort_context *ctx);
clsort_status clsort__radix_sort_cpu(clsort_context *ctx, const clsort__sort_job *job);

/* The comparison sorts built on the bitonic tile: sample sort (seed 004),
 * merge sort (merge path; stable) and quicksort. Each in its own file. */
clsort_status clsort__sample_sort(clsort_context *ctx, const clsort__sort_job *job);
/* The sample sort's levels with at most `ways` buckets per split (a power
 * of two, 2..256) and `oversampling` keys sampled per splitter (0: the
 * thesis' rule): the GPU quicksort's multi-pivot levels (quick_sort.c).
 * CLSORT_SAMPLE does not apply. */
clsort_status clsort__sample_sort_ways(clsort_context *ctx, const clsort__sort_job *job,
                                       unsigned ways, unsigned oversampling);
clsort_status clsort__merge_sort(clsort_context *ctx, const clsort__sort_job *job);
/* The merge sort's CPU shape (merge_cpu.c), which clsort__merge_sort runs
 * when ctx->tuning.cpu_shape is set; n >= 1. */
clsort_status clsort__merge_sort_cpu(clsort_context *ctx, const clsort__sort_job *job);
/* A kernel of a CPU-shape sort program (spec: common.cl, keys.cl, the
 * introsort and the sort's own file) built for the job's key size and
 * values (merge_cpu.c). */
clsort_status clsort__cpu_sort_kernel(clsort_context *ctx, const clsort__program_spec *spec,
                                      const clsort__sort_job *job, const char *name,
                                      cl_kernel *out);
/* The segmented small sort's CPU shape (merge_cpu.c): one serial sort per
 * segment, any length: the introsort, or with job->stable insertion sorts
 * and merges through scratch of job->n keys and values. count 0 builds
 * the kernel and takes the scratch only. */
clsort_status clsort__sort_segments_cpu(clsort_context *ctx, const clsort__sort_job *job,
                                        cl_mem segments, size_t count);
clsort_status clsort__quick_sort(clsort_context *ctx, const clsort__sort_job *job);
/* The quicksort's CPU shape (quick_cpu.c), which clsort__quick_sort runs
 * when ctx->tuning.cpu_shape is set; n >= 1. */
clsort_status clsort__quick_sort_cpu(clsort_context *ctx, const clsort__sort_job *job);
/* The sample sort's CPU shape (sample_cpu.c), which clsort__sample_sort
 * runs when ctx->tuning.cpu_shape is set; n >= 1. */
clsort_status clsort__sample_sort_cpu(clsort_context *ctx, const clsort__sort_job *job);

/* The buffers of a CPU splitting sort (the quicksort's and the sample
 * sort's CPU shapes), by the ids their kernels take (quick_cpu.cl): the
 * input, never written; scratch (SLOT_SORT_KEYS, SLOT_SORT_VALUES); the
 * output (SLOT_SORT_KEYS2 for argsort's keys). A level reads one and
 * writes the next: the output after scratch, else scratch. */
enum { CLSORT__CPU_IN, CLSORT__CPU_SCRATCH, CLSORT__CPU_OUT };
static inline unsigned clsort__cpu_dst_of(unsigned src) {
  return src == CLSORT__CPU_SCRATCH ? CLSORT__CPU_OUT : CLSORT__CPU_SCRATCH;
}
/* k[id] and v[id] for a job (keys-only: v as k, which its programs ignore). */
clsort_status clsort__cpu_split_buffers(clsort_context *ctx, const clsort__sort_job *job,
                                        cl_mem k[3], cl_mem v[3]);

/* An active segment of a CPU splitting sort's level: where it lies, and
 * (the quicksort's) a lower bound of its keys' order bits. */
typedef struct clsort__cpu_segment {
  size_t begin, len;
  unsigned src;  /* the buffer it lies in */
  bool bounded;  /* no key of it is below `bound` (order bits) */
  uint64_t bound;
} clsort__cpu_segment;

/* The finished ranges of a CPU splitting sort (the quicksort's and the
 * sample sort's CPU shapes; leaves_cpu.c), finished by quick_cpu.cl's
 * qcpu_leaves in one launch: each range (first key, one past the last,
 * the id of the buffer it lies in, 0 input, 1 scratch, 2 output) goes to
 * the output as keys, sorted there first where `sort`. The host arrays
 * come from the caller (clsort__cpu_leaves_host_bytes for `cap` ranges
 * and `bins` work-items); nothing here allocates. */
typedef struct clsort__cpu_leaves {
  cl_ulong *list, *grouped, *bin_start, *rooms;
  size_t *bin_of;
  double *load;
  size_t count, cap, bins;
} clsort__cpu_leaves;
size_t clsort__cpu_leaves_host_bytes(size_t cap, size_t bins);
void clsort__cpu_leaves_init(clsort__cpu_leaves *l, void *host, size_t cap, size_t bins);
/* Adds [begin, begin + len) of buffer `src` (nothing when len is 0). */
void clsort__cpu_leaves_add(clsort__cpu_leaves *l, size_t begin, size_t len, unsigned src,
                            bool sort);
/* Packs the ranges into bins and launches `kernel` (qcpu_leaves) over the
 * sort's three key and value buffers; the list goes to the start of aux,
 * the bins to aux[bins_at], then each bin's room of spare values (for
 * pairs whose keys and values share page offsets; quick_cpu.cl's
 * qc_sort_pairs): aux must hold 3 cap + 2 (bins + 1) words there. */
clsort_status clsort__cpu_leaves_run(clsort_context *ctx, clsort__cpu_leaves *l, cl_kernel kernel,
                                     const clsort__sort_job *job, const cl_mem k[3],
                                     const cl_mem v[3], cl_mem aux, cl_ulong bins_at);
/* A CPU splitting sort's levels: the whole input as one segment (or one
 * leaf, when n <= leaf), then `level` over (*cur)[0, segments), which
 * appends the next level's segments to *next, until none is left or after
 * `levels` levels, when the segments left become leaves to sort. Returns
 * the levels run in *ran. */
typedef clsort_status (*clsort__cpu_level_fn)(clsort_context *ctx, void *plan, size_t segments,
                                               bool first, size_t *next_count);
clsort_status clsort__cpu_split_levels(clsort_context *ctx, clsort__cpu_leaves *l,
                                       clsort__cpu_segment **cur, clsort__cpu_segment **next,
                                       size_t n, size_t leaf, unsigned levels,
                                       clsort__cpu_level_fn level, void *plan, unsigned *ran);
/* clsort_merge's device step, the merge sort's merge pass over one pair
 * (merge_sort.c): the sorted arrays a[0, na) (values va) and
 * b[b_first, b_first + nb) (values vb at the same places; b may be a's
 * buffer) merge stably, a first on ties, into job->keys_out (and
 * job->vals_out with job->value_size), na + nb elements. A side with no
 * elements may be NULL. */
clsort_status clsort__merge_two(clsort_context *ctx, const clsort__sort_job *job, cl_mem a,
                                cl_mem va, size_t na, cl_mem b, cl_mem vb, size_t b_first,
                                size_t nb);
/* Where each array of a merge starts in its buffer, in elements: A's keys
 * and values, B's, the output's. */
typedef struct clsort__merge_at {
  size_t a, va, b, vb, out, vout;
} clsort__merge_at;
/* The same merge in the CPU shape (merge_cpu.c; clsort__merge_two runs it
 * when ctx->tuning.cpu_shape is set): a serial merge per range of outputs,
 * straight between the arrays, which may be a caller's host arrays used in
 * place (several in one buffer) at the origins `at`. No scratch. */
clsort_status clsort__merge_two_cpu(clsort_context *ctx, const clsort__sort_job *job, cl_mem a,
                                    cl_mem va, size_t na, cl_mem b, cl_mem vb, size_t nb,
                                    const clsort__merge_at *at);

/* The kernels of a merge pass (merge_sort.c, merge.cl) for sorted runs of
 * `run` keys and longer: the two ways to find every tile's co-rank ahead
 * of the merge (merge_partition, merge_partition_search) and merge_pass,
 * whose groups of wg work-items merge a tile of `tile` outputs each.
 * segmented: merge.cl's variant for the segmented sort's long segments
 * (segment_merge.c). */
typedef struct clsort__merge_kernels {
  cl_kernel probe, search, merge;
  size_t wg, tile;
  bool samples; /* the merge can write co-rank samples (clsort__merge_io) */
} clsort__merge_kernels;
clsort_status clsort__merge_kernels_for(clsort_context *ctx, const clsort__sort_job *job,
                                        size_t run, bool segmented, clsort__merge_kernels *k);
/* Where a merge pass reads and writes: keys and values in, the right
 * runs' (kb, vb) and out, the co-ranks' buffer (a cl_ulong per tile), and
 * the arguments that say where the pairs lie (merge.cl's MG_WHERE_ARGS:
 * 5 for the sort, 4 for the segmented variant). The sort's passes may
 * also keep co-rank samples (merge.cl's MG_SAMPLE): `sampled` when the
 * last pass wrote them for this one's searches, sample_run when this pass
 * writes them for the next (the length of the runs it writes), both 0 for
 * none, and then samples may be NULL. */
typedef struct clsort__merge_io {
  cl_mem ka, kb, ko, va, vb, vo, parts;
  const clsort__arg *where;
  unsigned nwhere;
  int kind, desc, write_keys;
  cl_mem samples;
  cl_ulong sample_run;
  int sampled;
} clsort__merge_io;
/* Enqueues one merge pass of `groups` tiles whose pairs' left runs hold at
 * most `longest` keys: the co-ranks the way that suits the number of
 * tiles, then the merge. */
clsort_status clsort__merge_launch(clsort_context *ctx, const clsort__merge_kernels *k,
                                   const clsort__merge_io *io, size_t groups, size_t longest);

/* The merge sort's run formation on GPUs (merge_sort.c; block_sort.cl's
 * merge_sort_tiles, stable) for the job's key and value types: the
 * kernel, its tile and its work-items per group. Its arguments: keys in
 * and out, values in and out, n, key kind, descending, make_index; in
 * place is safe (a group reads its whole tile before it writes). */
clsort_status clsort__merge_tiles_kernel(clsort_context *ctx, const clsort__sort_job *job,
                                         cl_kernel *out, size_t *tile, unsigned *wg);

/* The block sort's shape (merge_sort.c, block_sort.cl): work-items per
 * group and keys per work-item for elements of `element` bytes in local
 * memory (key, value and any per-key extra); the tile is wg * items. */
typedef struct clsort__block_shape {
  unsigned wg, items;
} clsort__block_shape;
clsort__block_shape clsort__block_shape_for(const clsort_context *ctx, size_t element);

/* The packed path of the segmented sort (segment_tiles.c): the longest
 * segment it takes for this job (its tile), 0 when the context has none
 * (the CPU shape). */
size_t clsort__packed_tile(const clsort_context *ctx, const clsort__sort_job *job);
/* Sorts, in one launch and in place in job->keys_in (and job->vals_in),
 * stably, every segment of 2 keys up to clsort__packed_tile that the host
 * `offsets` (count + 1 entries, from 0 to job->n) bound: consecutive
 * segments packed into tiles, a work-group per tile. Longer segments are
 * left as they are, or with chunk_limit > 0 those up to chunk_limit keys
 * cut into sorted runs of clsort__packed_tile keys from their first
 * (for clsort__long_merge). equal_len > 0 says that every segment holds
 * equal_len keys but the last, which holds at most that: tiles of short
 * segments then need no plan. In two steps, so that a call can fail
 * before its first write: clsort__packed_prepare builds the kernel and
 * copies the plan to the device (blocking); clsort__packed_run launches
 * it. */
typedef struct clsort__packed {
  cl_kernel kernel;
  cl_mem plan;  /* SLOT_SEGMENT_LIST */
  size_t tiles; /* 0: nothing to sort */
  size_t runs;  /* the sorted runs that long segments are cut into (clsort__long_merge's tile) */
  bool whole;   /* equal segments of whole merge sort tiles: its run formation, in place */
  unsigned wg;
  cl_uint seg_len, per_tile, end_log; /* equal segments (segment_sort_tiles) */
} clsort__packed;
clsort_status clsort__packed_prepare(clsort_context *ctx, const clsort__sort_job *job,
                                    const uint64_t *offsets, size_t count, size_t equal_len,
                                    size_t chunk_limit, clsort__packed *out);
clsort_status clsort__packed_run(clsort_context *ctx, const clsort__sort_job *job,
                                 const clsort__packed *p);

/* Key-ordered ranges (the sample sort's buckets; segment_tiles.c): each
 * range lies wholly before or after each other in key order, so ranges
 * that follow each other in memory share a tile of the block sort as one
 * segment. clsort__ranges_tile: the longest range (0 where the context
 * has no GPU shape). clsort__ranges_prepare builds the kernel;
 * clsort__ranges_sort sorts the `count` ranges of the host array `ranges`
 * (begin and end ulongs; CLSORT_RANGE_OTHER set in the end when the range
 * lies in other_keys and other_vals instead of job->keys_in and
 * job->vals_in) into job->keys_in (job->vals_in) at the same positions.
 * The plan is built in `host` and copied to the start of `plan_buffer`:
 * each holds clsort__ranges_plan_bytes of count ranges. The copy does not
 * block: *written is its event (NULL if there was nothing to copy), and
 * `host` must stay unchanged until it completes. */
#define CLSORT_RANGE_OTHER ((cl_ulong)1 << 63)
typedef struct clsort__ranges {
  cl_kernel kernel;
  size_t tile;
  unsigned wg;
} clsort__ranges;
size_t clsort__ranges_tile(const clsort_context *ctx, const clsort__sort_job *job);
size_t clsort__ranges_plan_bytes(size_t count);
clsort_status clsort__ranges_prepare(clsort_context *ctx, const clsort__sort_job *job,
                                     clsort__ranges *out);
clsort_status clsort__ranges_sort(clsort_context *ctx, const clsort__sort_job *job,
                                  const clsort__ranges *r, const cl_ulong *ranges, size_t count,
                                  cl_mem other_keys, cl_mem other_vals, cl_mem plan_buffer,
                                  void *host, cl_event *written);
/* The block sort of `tiles` entries of a range plan already at the start
 * of plan_buffer (made on the device: the sample sort's last level). An
 * entry of zeros is a tile of no keys, which costs its group next to
 * nothing: a plan may be launched over more entries than it fills. */
clsort_status clsort__ranges_launch(clsort_context *ctx, const clsort__sort_job *job,
                                    const clsort__ranges *r, size_t tiles, cl_mem other_keys,
                                    cl_mem other_vals, cl_mem plan_buffer);

/* The long segments of the packed path (segment_merge.c): every segment
 * of more than `tile` and at most `limit` keys of the host `offsets`,
 * already cut into sorted runs of `tile` keys from its first
 * (clsort__packed_prepare with chunk_limit), merged within the segment,
 * stably, pass after pass over all of them at once, in place in
 * job->keys_in (and job->vals_in) through scratch. In two steps as the
 * packed sort: clsort__long_merge_prepare builds the kernel, takes the
 * scratch and copies the segment list (blocking); clsort__long_merge_run
 * enqueues the passes. */
typedef struct clsort__long_merge {
  clsort__merge_kernels kernels;
  cl_mem list, parts, keys2, vals2; /* the segments, every group's co-rank, scratch */
  size_t groups, tile;       /* groups: 0 when no segment needs merging */
  cl_uint passes;
  size_t longest; /* keys of the longest segment */
  cl_uint active[64];   /* per pass: the segments it merges (a prefix) */
  size_t groups_at[64]; /* and its groups */
} clsort__long_merge;
clsort_status clsort__long_merge_prepare(clsort_context *ctx, const clsort__sort_job *job,
                                         const uint64_t *offsets, size_t count, size_t tile,
                                         size_t limit, clsort__long_merge *out);
clsort_status clsort__long_merge_run(clsort_context *ctx, const clsort__sort_job *job,
                                     const clsort__long_merge *m);

/* The bitonic sort (bitonic.c): in place on keys_out/vals_out after the
 * first launch reads keys_in/vals_in. Not stable. */
clsort_status clsort__bitonic_sort(clsort_context *ctx, const clsort__sort_job *job);
/* Its CPU shape (bitonic_cpu.c): chunks sorted serially, then the
 * network's steps across chunks; n >= 1. clsort__bitonic_sort runs it when
 * clsort__bitonic_cpu_enabled: the CPU shape is set and
 * CLSORT_BITONIC_CPU is not 0. */
clsort_status clsort__bitonic_sort_cpu(clsort_context *ctx, const clsort__sort_job *job);
bool clsort__bitonic_cpu_enabled(const clsort_context *ctx);

/* The bitonic launch shape for keys of key_size bytes with values of
 * value_size bytes (0: none), stable or not: the tile kernels' work-group
 * and elements per work-item, the global steps fused per launch and the
 * elements per register slot there (global_lanes: 1 or a 16-byte vector's),
 * and the most global steps the wide tile merge takes (wide, 0: none). */
typedef struct clsort__bitonic_shape {
  unsigned wg, log_items, log_global, global_wg, global_lanes, wide;
  unsigned strided; /* most global steps of a strided tile merge; 0: none */
  size_t tile; /* wg << log_items: the largest segment of the small sort */
} clsort__bitonic_shape;
clsort__bitonic_shape clsort__bitonic_shape_for(const clsort_context *ctx, size_t key_size,
                                                size_t value_size, bool stable);

/* One kernel of the bitonic program for the job's key type and values. */
typedef enum clsort__bitonic_kernel_id {
  BITONIC_SORT_TILES,
  BITONIC_MERGE_TILES,
  BITONIC_GLOBAL,
  BITONIC_SORT_SEGMENTS,
  BITONIC_MERGE_WIDE,
  BITONIC_MERGE_STRIDED
} clsort__bitonic_kernel_id;
clsort_status clsort__bitonic_kernel(clsort_context *ctx, const clsort__sort_job *job,
                                     clsort__bitonic_kernel_id which, cl_kernel *out);

/* 0 unsigned, 1 signed, 2 float: how keys.cl maps a key to bits. */
static inline int clsort__key_kind(clsort_type type) {
  switch (type) {
    case CLSORT_I32:
    case CLSORT_I64:
    case CLSORT_I8:
    case CLSORT_I16:
      return 1;
    case CLSORT_F32:
    case CLSORT_F64:
    case CLSORT_F16:
    case CLSORT_BF16:
      return 2;
    default:
      return 0;
  }
}

/* The bytes of one key as the algorithms sort it: 8- and 16-bit keys
 * are sorted widened to 32 bits (widen.c). */
static inline size_t clsort__sort_key_size(clsort_type type) {
  return clsort__type_is_narrow(type) ? 4 : clsort_type_size(type);
}

/* keys.cl's KEY_T for keys of key_size bytes: their bits, unsigned. */
static inline const char *clsort__key_cl_type(size_t key_size) {
  return key_size == 8 ? "ulong" : key_size == 4 ? "uint" : key_size == 2 ? "ushort" : "uchar";
}

/* widen.c: a job on 8- or 16-bit keys (clsort__type_is_narrow) as a job
 * on 32-bit order keys: *wide is the job with type CLSORT_U32, its keys in
 * the context's SLOT_WIDE scratch (keys_out NULL for argsort), filled from
 * job->keys_in; the same bit range, or all 32 bits with whole_keys (the
 * comparison sorts). Fails before it enqueues anything. After *wide is
 * sorted, clsort__narrow_job writes its keys to job->keys_out. */
clsort_status clsort__widen_job(clsort_context *ctx, const clsort__sort_job *job, bool whole_keys,
                                clsort__sort_job *wide);
clsort_status clsort__narrow_job(clsort_context *ctx, const clsort__sort_job *job,
                                 const clsort__sort_job *wide);

/* The segmented small sort (segmented_sort.c): sorts, in one launch and
 * in place in job->keys_in (and job->vals_in), the `count` segments whose
 * [begin, end) pairs `segments` holds as cl_ulongs. Each segment is at
 * most clsort__segment_limit(ctx, job) long; segments do not overlap.
 * job->n is the buffers' length; with job->stable, equal keys keep their
 * order (at half the tile for 4-byte keys). */
clsort_status clsort__sort_segments(clsort_context *ctx, const clsort__sort_job *job,
                                    cl_mem segments, size_t count);
/* The longest segment it takes: the bitonic tile, or 2^15 keys on CPUs
 * (a serial introsort, or with job->stable a serial merge sort). */
size_t clsort__segment_limit(const clsort_context *ctx, const clsort__sort_job *job);
/* Builds its kernel and takes its scratch (the CPUs' stable sort's: the
 * buffers' length), so that a sort can fail before its first write. */
clsort_status clsort__segments_prepare(clsort_context *ctx, const clsort__sort_job *job);

/* top_k.c: the radix select. Of n keys in `keys` ordered as `job` says
 * (type, direction; whole keys), the one at position `rank` of the sorted
 * order has order bits (keys.cl) out->bits; out->less keys come before
 * it and out->equal share its bits. rank < n. Reads a digit histogram
 * back per round (blocking). */
typedef struct clsort__selected {
  uint64_t bits;
  size_t less, equal;
} clsort__selected;
clsort_status clsort__radix_select(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys,
                                   size_t n, size_t rank, clsort__selected *out);
/* clsort__radix_select after the sampled path (top_k_sample.c) when that
 * finds the rank's key in one pass: what clsort_select runs. */
clsort_status clsort__select_key(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys,
                                 size_t n, size_t rank, clsort__selected *out);
/* A kernel of topk.cl for keys of key_size bytes (4 or 8)
 * (top_k_sample.c). */
clsort_status clsort__topk_kernel(clsort_context *ctx, size_t key_size, const char *name,
                                  cl_kernel *out);

/* Top-k's outputs: the k keys (NULL: none) and their input positions
 * (NULL: none; job->value_size bytes each), each from its origin in its
 * buffer, in elements (keys_at, indices_at): nonzero only for a caller's
 * host array used in place on a CPU device from the aligned address before
 * it (as the job's keys_at), else 0. Every kernel and copy that writes
 * them adds the origin. `host`: they are a caller's host arrays used in
 * place, which a failed call must leave as they were: nothing writes them
 * before the result is known (clsort__top_k). */
typedef struct clsort__top_k_out {
  cl_mem keys, indices;
  size_t keys_at, indices_at;
  bool host;
} clsort__top_k_out;

/* top_k_sample.c: the sampled path. Of the n keys (n >= 1) ordered as
 * `job` says, tries to find in one pass the keys whose order bits lie in
 * a bracket [lo, hi] that holds the ranks [first, last] of the sorted
 * order (first == 0: no lower threshold, lo = 0), with their input
 * positions as position_size-byte integers (0: none). The thresholds are
 * picked on the device. With late_room 0 the counts are read at once (one
 * blocking read): found: the bracket held; `keys` (and `positions`) then
 * hold its `count` keys in no particular order, `below` keys lie below
 * lo, and hi is the upper threshold. Not found (the path did not run, or
 * a threshold missed, or the candidates overflowed their buffer): the
 * caller finds the ranks otherwise. With late_room > 0 nothing is read:
 * when the path ran, `pending` is set, the buffers hold `count` (at
 * least late_room) entries, the candidates first, and hi is all ones
 * (the host has not read the threshold); then either
 * clsort__sample_pad fills the entries past the candidates with pads
 * (keys equal to the upper threshold, positions all ones) that two
 * stable sorts (by position, then by key) put after every candidate, or
 * clsort__sample_final (top-k of a k it takes) writes the first k keys
 * into dst->keys and positions into dst->indices (either NULL) from the
 * candidates directly; after the pads, with positions, the caller may
 * sort the `count` entries stably by key alone and clsort__sample_settle
 * then writes the first k keys (dst->keys, or NULL) and positions
 * (dst->indices) in the stable order, settling equal keys by position;
 * clsort__sample_check then reads the counts and sets the fields as
 * late_room 0 does (found false also when clsort__sample_final or
 * clsort__sample_settle gave up on many keys equal to the k-th; the
 * buffers keep their contents). */
typedef struct clsort__sampled {
  bool found, pending, final_ran, settle_ran;
  cl_mem keys, positions;
  size_t count, below;
  uint64_t hi;
  /* For the calls after: the control buffer, the positions' size, the
   * candidates' capacity, the ranks. */
  cl_mem ctl;
  size_t position_size, cap, first, last;
} clsort__sampled;
clsort_status clsort__sample_candidates(clsort_context *ctx, const clsort__sort_job *job,
                                        cl_mem keys, size_t n, size_t first, size_t last,
                                        size_t position_size, size_t late_room,
                                        clsort__sampled *out);
clsort_status clsort__sample_pad(clsort_context *ctx, const clsort__sort_job *job,
                                 clsort__sampled *out);
bool clsort__sample_final_takes(size_t k);
clsort_status clsort__sample_final(clsort_context *ctx, const clsort__sort_job *job,
                                   clsort__sampled *out, size_t k, const clsort__top_k_out *dst);
clsort_status clsort__sample_settle(clsort_context *ctx, const clsort__sort_job *job,
                                    clsort__sampled *out, size_t k, cl_mem sorted_keys,
                                    cl_mem sorted_positions, const clsort__top_k_out *dst);
clsort_status clsort__sample_check(clsort_context *ctx, const clsort__sort_job *job,
                                   clsort__sampled *out);
/* Whether top-k reads the sampled path's counts late (late_room > 0): on
 * GPU shapes; CLSORT_TOPK_CHECK=early|late forces either. */
bool clsort__sample_reads_late(const clsort_context *ctx);
/* An element-wise topk.cl kernel (TK_FOR) over n elements, launched with
 * enough groups to fill the device. */
clsort_status clsort__topk_launch_each(clsort_context *ctx, cl_kernel k, size_t n, cl_uint nargs,
                                       const clsort__arg *args);
/* Whether clsort_select tries the sampled path: in the CPU shape; on GPUs
 * only when CLSORT_TOPK asks for it (sampled) or for its misses. */
bool clsort__select_samples(const clsort_context *ctx);
/* The path the calling thread's last top-k or select took, for the tests
 * (api/testing.h): none (k = 0), the radix select alone, the sampled
 * path, the sampled path missed and then the radix select, or the full
 * sort of a large k. */
typedef enum clsort__select_path {
  SELECT_PATH_NONE,
  SELECT_PATH_RADIX,
  SELECT_PATH_SAMPLED,
  SELECT_PATH_FALLBACK,
  SELECT_PATH_SORT_ALL,
  SELECT_PATH_SMALL
} clsort__select_path;
clsort__select_path clsort__top_k_path(void);
void clsort__top_k_set_path(clsort__select_path path);
/* top_k_small.c: whether top-k of k keys among n takes the path of a
 * small k (k <= 16 at most; CLSORT_TOPK=small or nosmall forces it on or
 * off), and that path: the first k (1 <= k <= n) keys of the stable order
 * of keys[0, n) into dst->keys (NULL: none), with job->value_size (4 or
 * 8) their positions into dst->indices, in two launches that read the
 * keys once and nothing back. n < 2^32 - 1. */
bool clsort__top_k_small_takes(const clsort_context *ctx, size_t n, size_t k);
clsort_status clsort__top_k_small(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys,
                                  size_t n, size_t k, const clsort__top_k_out *dst);
/* Builds that path's kernels for every k it may take (clsort_prepare). */
clsort_status clsort__top_k_small_prepare(clsort_context *ctx, size_t key_size);
/* The key whose order bits are `bits`, as its type stores it (the host's
 * bits_to_key of keys.cl). */
uint64_t clsort__key_of_bits(clsort_type type, bool descending, uint64_t bits);
/* The first k (1 <= k <= n) keys of the stable order of keys[0, n), into
 * dst->keys (NULL: none), and with job->value_size (4 or 8) their input
 * positions into dst->indices, each from its origin. */
clsort_status clsort__top_k(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys,
                            size_t n, size_t k, const clsort__top_k_out *dst);

/* The global path of the segmented sort (segmented_sort.c): the `count`
 * segments of job->keys_in (and job->vals_in) that the host `offsets`
 * (count + 1 entries, from 0 to job->n) bound, all sorted at once and
 * stably: a stable radix sort of every key with its position, the
 * positions then sorted stably by their segment (the bits that count
 * needs only), the keys and values gathered into job->keys_out and
 * job->vals_out (which may be the inputs). count < 2^32. */
clsort_status clsort__sort_segments_global(clsort_context *ctx, const clsort__sort_job *job,
                                           const uint64_t *offsets, size_t count);

/* A kernel of a program whose only options are the key width (keys.cl's
 * KEY_T and KEY_BITS): runs.cl, topk.cl (runs.c). */
clsort_status clsort__key_width_kernel(clsort_context *ctx, const clsort__program_spec *spec,
                                       size_t key_size, const char *name, cl_kernel *out);

/* runs.c: the out-of-core sort's device steps (api/out_of_core.c). For
 * one sorted run keys[0, n) (sorted as `job` says: type, direction, bit
 * range), writes at cuts[at + j] (cl_ulong) the number of its keys at or
 * below splitter j of the `count` pairs (order key, run) in `splitters`:
 * a key equal to a splitter's counts when `run` is at most the splitter's
 * run. */
clsort_status clsort__run_cuts(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys,
                               size_t n, cl_mem splitters, size_t count, size_t run, cl_mem cuts,
                               size_t at);
/* out[i] = first + i for i < n, as indices of job->value_size bytes. */
clsort_status clsort__run_iota(clsort_context *ctx, const clsort__sort_job *job, cl_mem out,
                               size_t n, size_t first);

#endif
