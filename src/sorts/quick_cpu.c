/* quick_cpu.c: the quicksort's CPU shape (cl/sorts/quick_cpu.cl), which
 * clsort__quick_sort runs when ctx->tuning.cpu_shape is set. Levels of
 * two-way splits, each a count and a scatter of chunks in serial loops,
 * run until every segment fits a leaf (a few per compute unit); then one
 * launch finishes the leaves, packed into one even bin per compute unit,
 * each leaf sorted by the serial introsort. Keys equal to a segment's
 * lower bound are finished at the level that meets them (quick_cpu.cl),
 * so equal, few-valued, sorted and reverse inputs cost at most a level
 * more than random ones; past 48 levels the introsort takes what is left
 * (n log n at worst). The host plans each level from the counts it reads
 * back, one round trip a level: the device is the host's own cores. */
#include "sorts/sorts.h"

#include <stdlib.h>
#include <string.h>

static const char *const quick_cpu_files[] = {"common/common.cl", "sorts/keys.cl",
                                              "sorts/introsort_cpu.cl", "sorts/quick_cpu.cl",
                                              NULL};
static const clsort__program_spec quick_cpu_spec = {"quick_cpu", quick_cpu_files};

#define WORDS 8        /* a chunk's entry (quick_cpu.cl's QC_WORDS) */
#define RESULT_WORDS 3 /* qcpu_count's results per chunk */
#define F_BOUND 16     /* quick_cpu.cl's QC_BOUND and QC_RAW */
#define F_RAW 32
#define MIN_CHUNK 8192 /* keys; smaller chunks cost more to plan than to run */

/* The shape: leaves of at most n / (LEAVES x compute units) keys, and at
 * least 2^MIN_LEAF; chunks of a level's keys / (CHUNKS x compute units);
 * pivots from SAMPLES keys; after LEVELS levels the leaves' introsort
 * takes what is left. CLSORT_QUICK_CPU=LEAVES:CHUNKS:SAMPLES:MIN_LEAF:LEVELS
 * overrides them for bench/ and the tests (SAMPLES odd). */
typedef struct shape {
  unsigned leaves, chunks, samples, min_leaf, levels;
} shape;

static shape shape_for(void) {
  shape s = {2, 8, 127, 16, 48};
  unsigned f[5] = {0, 0, 0, 0, 0};
  static const char *const name = "CLSORT_QUICK_CPU";
  unsigned got = clsort__env_fields(name, f, 5);
  if (got >= 1 && clsort__env_field_ok(name, "LEAVES", f[0], 1, 1024, ENV_ANY)) s.leaves = f[0];
  if (got >= 2 && clsort__env_field_ok(name, "CHUNKS", f[1], 1, 1024, ENV_ANY)) s.chunks = f[1];
  if (got >= 3 && clsort__env_field_ok(name, "SAMPLES", f[2], 1, 255, ENV_ODD)) s.samples = f[2];
  if (got >= 4 && clsort__env_field_ok(name, "MIN_LEAF", f[3], 9, 30, ENV_ANY)) s.min_leaf = f[3];
  if (got >= 5 && clsort__env_field_ok(name, "LEVELS", f[4], 1, 64, ENV_ANY)) s.levels = f[4];
  return s;
}

/* Everything one sort needs, acquired before anything is written. */
typedef struct plan {
  const clsort__sort_job *job;
  cl_kernel count, scatter, leaves_kernel;
  cl_mem k[3], v[3], aux;
  size_t leaf;       /* segments up to this many keys are leaves */
  size_t parts;      /* chunks per level, about */
  size_t min_chunk;  /* keys */
  unsigned levels;   /* the most levels */
  cl_uint samples;   /* keys sampled per pivot */
  size_t bins;       /* work-items of the leaf launch: the compute units */
  size_t seg_cap, chunk_cap, leaf_cap;
  cl_ulong results_at, bins_at;
  cl_ulong *table, *results; /* host copies */
  clsort__cpu_leaves leaves;
  clsort__cpu_segment *cur, *next;
} plan;

static clsort_status get_kernels(clsort_context *ctx, plan *p) {
  FORWARD_IF_ERROR(clsort__cpu_sort_kernel(ctx, &quick_cpu_spec, p->job, "qcpu_count", &p->count));
  FORWARD_IF_ERROR(
      clsort__cpu_sort_kernel(ctx, &quick_cpu_spec, p->job, "qcpu_scatter", &p->scatter));
  return clsort__cpu_sort_kernel(ctx, &quick_cpu_spec, p->job, "qcpu_leaves", &p->leaves_kernel);
}

/* Capacities from n, buffers, host arrays. Active segments are longer
 * than a leaf, so a level has fewer than n / leaf + 1 of them; its chunks
 * number at most one per segment more than parts; each level finishes at
 * most two children of each segment, the last level all of them. */
static clsort_status prepare(clsort_context *ctx, plan *p, shape s) {
  const clsort__sort_job *job = p->job;
  size_t n = job->n;
  size_t cus = ctx->compute_units ? ctx->compute_units : 1;
  p->leaf = clsort__max((size_t)1 << s.min_leaf, clsort__div_up(n, (size_t)s.leaves * cus));
  p->parts = (size_t)s.chunks * cus;
  p->min_chunk = clsort__min(MIN_CHUNK, p->leaf / 4); /* small leaves (tests): many chunks */
  p->levels = s.levels;
  p->bins = cus;
  p->seg_cap = n / (p->leaf + 1) + 1;
  p->chunk_cap = p->seg_cap + p->parts + 1;
  p->leaf_cap = 2 * p->seg_cap * s.levels + p->seg_cap + 1;
  p->results_at = WORDS * p->chunk_cap;
  p->bins_at = 3 * p->leaf_cap;
  size_t aux_words =
      clsort__max(p->results_at + RESULT_WORDS * p->chunk_cap, p->bins_at + 2 * (p->bins + 1));
  p->samples = s.samples;
  FORWARD_IF_ERROR(get_kernels(ctx, p));

  FORWARD_IF_ERROR(clsort__cpu_split_buffers(ctx, job, p->k, p->v));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_AUX3, aux_words * sizeof(cl_ulong), &p->aux));

  size_t table_bytes = (WORDS + RESULT_WORDS) * p->chunk_cap * sizeof(cl_ulong);
  size_t leaf_bytes = clsort__cpu_leaves_host_bytes(p->leaf_cap, p->bins);
  size_t host_bytes = table_bytes + leaf_bytes + 2 * p->seg_cap * sizeof(clsort__cpu_segment);
  unsigned char *h = clsort__malloc(ctx, host_bytes);
  RETURN_IF(!h, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the quicksort's plan");
  p->table = (cl_ulong *)(void *)h;
  p->results = p->table + WORDS * p->chunk_cap;
  clsort__cpu_leaves_init(&p->leaves, h + table_bytes, p->leaf_cap, p->bins);
  p->cur = (clsort__cpu_segment *)(void *)(h + table_bytes + leaf_bytes);
  p->next = p->cur + p->seg_cap;
  return CLSORT_SUCCESS;
}

/* Cuts the level's segments into chunks, the entries of p->table; returns
 * how many. */
static size_t cut_chunks(plan *p, size_t segments, bool first_level) {
  size_t total = 0, chunks = 0;
  for (size_t i = 0; i < segments; i++) total += p->cur[i].len;
  size_t chunk = clsort__max(p->min_chunk, clsort__div_up(total, p->parts));
  for (size_t i = 0; i < segments; i++) {
    const clsort__cpu_segment *s = &p->cur[i];
    size_t pieces = clsort__div_up(s->len, chunk);
    for (size_t c = 0; c < pieces; c++, chunks++) {
      cl_ulong *e = p->table + WORDS * chunks;
      e[0] = s->begin;
      e[1] = s->len;
      e[2] = s->begin + s->len * c / pieces;
      e[3] = s->begin + s->len * (c + 1) / pieces;
      e[4] = s->src | (cl_ulong)clsort__cpu_dst_of(s->src) << 2 | (s->bounded ? F_BOUND : 0) |
             (first_level ? F_RAW : 0);
      e[5] = e[6] = 0;
      e[7] = s->bounded ? s->bound : 0;
    }
  }
  return chunks;
}

/* A child of a split: a leaf to finish, or an active segment of the next
 * level. */
static void add_child(plan *p, clsort__cpu_segment c, bool finished, size_t *next_count) {
  if (c.len == 0) return;
  if (finished || c.len <= p->leaf)
    clsort__cpu_leaves_add(&p->leaves, c.begin, c.len, c.src, !finished);
  else
    p->next[(*next_count)++] = c;
}

/* From the counts, each chunk's two places; the segments' children. */
static clsort_status place_children(plan *p, size_t segments, size_t chunks,
                                    size_t *next_count) {
  size_t g = 0;
  for (size_t i = 0; i < segments; i++) {
    const clsort__cpu_segment s = p->cur[i];
    size_t first = g, left = 0;
    for (; g < chunks && p->table[WORDS * g] == s.begin; g++)
      left += p->results[RESULT_WORDS * g];
    RETURN_IF(left > s.len || g == first, CLSORT_ERROR_OPENCL,
              "quicksort: the counts of [%zu, %zu) add up to %zu keys", s.begin,
              s.begin + s.len, left);
    const cl_ulong *r = p->results + RESULT_WORDS * first;
    uint64_t pivot = r[1];
    bool le = r[2] != 0;
    size_t at_left = s.begin, at_right = s.begin + left;
    for (size_t c = first; c < g; c++) {
      cl_ulong *e = p->table + WORDS * c;
      size_t l = p->results[RESULT_WORDS * c];
      e[5] = at_left;
      e[6] = at_right;
      at_left += l;
      at_right += (e[3] - e[2]) - l;
    }
    unsigned dst = clsort__cpu_dst_of(s.src);
    /* Left: all equal to the pivot with le, else below it (the parent's
     * bound holds). Right: none below the pivot. */
    add_child(p, (clsort__cpu_segment){s.begin, left, dst, s.bounded, s.bound}, le, next_count);
    add_child(p, (clsort__cpu_segment){s.begin + left, s.len - left, dst, true, pivot}, false,
              next_count);
  }
  return CLSORT_SUCCESS;
}

/* One level over p->cur: count, read back, place, scatter
 * (clsort__cpu_split_levels' level; plan_ is the plan). */
static clsort_status run_level(clsort_context *ctx, void *plan_, size_t segments,
                               bool first_level, size_t *next_count) {
  plan *p = plan_;
  const clsort__sort_job *job = p->job;
  size_t chunks = cut_chunks(p, segments, first_level);
  int kind = clsort__key_kind(job->type), desc = job->descending;
  int make_index = first_level && job->make_index;
  /* Blocking writes: the host arrays change again before the next level. */
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(ctx->queue, p->aux, CL_TRUE, 0,
                                                 chunks * WORDS * sizeof(cl_ulong), p->table, 0,
                                                 NULL, NULL)));
  cl_ulong2 at0 = clsort__pair_at(job, p->k[0], p->v[0]);
  cl_ulong2 at2 = clsort__pair_at(job, p->k[2], p->v[2]);
  clsort__arg count_args[] = {ARG(p->k[0]),  ARG(p->k[1]),       ARG(p->k[2]),     ARG(at0),
                              ARG(at2),      ARG(p->aux),        ARG(p->results_at),
                              ARG(p->samples), ARG(kind),        ARG(desc)};
  FORWARD_IF_ERROR(clsort__launch(ctx, p->count, chunks, 1, 10, count_args, 0, NULL, NULL));
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueReadBuffer(
      ctx->queue, p->aux, CL_TRUE, p->results_at * sizeof(cl_ulong),
      RESULT_WORDS * chunks * sizeof(cl_ulong), p->results, 0, NULL, NULL)));
  FORWARD_IF_ERROR(place_children(p, segments, chunks, next_count));
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(ctx->queue, p->aux, CL_TRUE, 0,
                                                 chunks * WORDS * sizeof(cl_ulong), p->table, 0,
                                                 NULL, NULL)));
  clsort__arg scatter_args[] = {ARG(p->k[0]), ARG(p->k[1]),   ARG(p->k[2]),       ARG(p->v[0]),
                                ARG(p->v[1]), ARG(p->v[2]),   ARG(at0),           ARG(at2),
                                ARG(p->aux),  ARG(p->results_at), ARG(make_index), ARG(kind),
                                ARG(desc)};
  return clsort__launch(ctx, p->scatter, chunks, 1, 13, scatter_args, 0, NULL, NULL);
}

static clsort_status run(clsort_context *ctx, plan *p) {
  size_t n = p->job->n;
  unsigned level;
  FORWARD_IF_ERROR(clsort__cpu_split_levels(ctx, &p->leaves, &p->cur, &p->next, n, p->leaf,
                                            p->levels, run_level, p, &level));
  clsort__debug("quick (CPU): %u levels, %zu leaves of at most %zu keys for n = %zu", level,
                p->leaves.count, p->leaf, n);
  return clsort__cpu_leaves_run(ctx, &p->leaves, p->leaves_kernel, p->job, p->k, p->v, p->aux,
                                p->bins_at);
}

clsort_status clsort__quick_sort_cpu(clsort_context *ctx, const clsort__sort_job *job) {
  plan p;
  memset(&p, 0, sizeof p);
  p.job = job;
  clsort_status st = prepare(ctx, &p, shape_for());
  if (st == CLSORT_SUCCESS) st = run(ctx, &p);
  /* Writes of host arrays may still be queued after a failure. */
  if (st != CLSORT_SUCCESS) clFinish(ctx->queue);
  free(p.table);
  return st;
}
