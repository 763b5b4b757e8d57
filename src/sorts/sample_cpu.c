/* sample_cpu.c: the sample sort's CPU shape (cl/sorts/sample_cpu.cl),
 * which clsort__sample_sort runs when ctx->tuning.cpu_shape is set.
 * Levels of k-way splits (k up to 128, fewer for a segment a few leaves
 * long), each a batch of launches: the segments' splitters, a count and a
 * scatter of chunks (a few per compute unit) in serial loops; keys equal
 * to a splitter are finished where they land. Segments of at most a leaf
 * are finished by one launch that packs them into one even bin per
 * compute unit, each sorted by the serial introsort (leaves_cpu.c); after
 * LEVELS levels the introsort takes what is left (n log n at worst). The
 * host plans each batch from the counts it reads back, one round trip a
 * batch: the device is the host's own cores. */
#include "sorts/sorts.h"

#include <stdlib.h>
#include <string.h>

static const char *const sample_cpu_files[] = {"common/common.cl",       "sorts/keys.cl",
                                               "sorts/introsort_cpu.cl", "sorts/quick_cpu.cl",
                                               "sorts/sample_cpu.cl",    NULL};
static const clsort__program_spec sample_cpu_spec = {"sample_cpu", sample_cpu_files};

#define MAX_WAYS 128   /* sample_cpu.cl's SC_MAX_WAYS, */
#define BUCKETS 255    /* SC_BUCKETS, */
#define SEG_WORDS 8    /* SC_SEG_WORDS, */
#define CHUNK_WORDS 4  /* SC_CHUNK_WORDS */
#define F_RAW 16       /* and SC_RAW */
#define MIN_CHUNK 8192 /* keys; smaller chunks cost more to plan than to run */
#define SEG_CAP 256    /* segments a batch */

/* The shape: at most WAYS ways a split, OVERSAMPLING sample keys per way,
 * leaves of at most 2^LEAF keys (fewer on many cores), chunks of a level's keys / (CHUNKS x
 * compute units), at most LEVELS levels.
 * CLSORT_SAMPLE_CPU=WAYS:OVERSAMPLING:LEAF:CHUNKS:LEVELS overrides them
 * for bench/ and the tests. */
typedef struct shape {
  unsigned ways, oversampling, leaf, chunks, levels;
} shape;

static shape shape_for(void) {
  shape s = {128, 16, 16, 8, 8};
  unsigned f[5] = {0, 0, 0, 0, 0};
  static const char *const name = "CLSORT_SAMPLE_CPU";
  unsigned got = clsort__env_fields(name, f, 5);
  if (got >= 1 && clsort__env_field_ok(name, "WAYS", f[0], 2, MAX_WAYS, ENV_POW2)) s.ways = f[0];
  if (got >= 2 && clsort__env_field_ok(name, "OVERSAMPLING", f[1], 1, 64, ENV_ANY))
    s.oversampling = f[1];
  if (got >= 3 && clsort__env_field_ok(name, "LEAF", f[2], 8, 30, ENV_ANY)) s.leaf = f[2];
  if (got >= 4 && clsort__env_field_ok(name, "CHUNKS", f[3], 1, 1024, ENV_ANY)) s.chunks = f[3];
  if (got >= 5 && clsort__env_field_ok(name, "LEVELS", f[4], 1, 64, ENV_ANY)) s.levels = f[4];
  return s;
}

/* Everything one sort needs, acquired before anything is written. */
typedef struct plan {
  const clsort__sort_job *job;
  cl_kernel splitters, count, scatter, leaves_kernel;
  cl_mem k[3], v[3], aux, oracle;
  size_t leaf, parts, min_chunk, ways, oversampling;
  unsigned levels;
  size_t seg_cap, chunk_cap, sample_cap; /* a batch's */
  cl_ulong segs_at, chunks_at, table_at, splitters_at, samples_at, bins_at;
  cl_ulong *segs, *chunks, *table; /* host copies of a batch's records */
  clsort__cpu_leaves leaves;
  clsort__cpu_segment *cur, *next;
  /* The finished range being gathered (finish_child): children of one
   * parent that lie side by side, so that small buckets make few leaves. */
  size_t pend_begin, pend_len;
  unsigned pend_src;
  bool pend_sort;
} plan;

static size_t pow2_at_least(size_t x) {
  size_t p = 1;
  while (p < x) p *= 2;
  return p;
}

/* The ways a segment of len keys splits: about two leaves a bucket. */
static size_t ways_for(const plan *p, size_t len) {
  return clsort__min(p->ways, clsort__max(2, pow2_at_least(clsort__div_up(2 * len, p->leaf))));
}

/* Its sample: `oversampling` keys a way, never more than half of it. */
static size_t sample_for(const plan *p, size_t len, size_t ways) {
  return clsort__max(ways, clsort__min(ways * p->oversampling, len / 2));
}

static clsort_status get_kernels(clsort_context *ctx, plan *p) {
  const clsort__sort_job *job = p->job;
  FORWARD_IF_ERROR(
      clsort__cpu_sort_kernel(ctx, &sample_cpu_spec, job, "scpu_splitters", &p->splitters));
  FORWARD_IF_ERROR(clsort__cpu_sort_kernel(ctx, &sample_cpu_spec, job, "scpu_count", &p->count));
  FORWARD_IF_ERROR(
      clsort__cpu_sort_kernel(ctx, &sample_cpu_spec, job, "scpu_scatter", &p->scatter));
  return clsort__cpu_sort_kernel(ctx, &sample_cpu_spec, job, "qcpu_leaves", &p->leaves_kernel);
}

/* Capacities from n, buffers, host arrays. Active segments are longer
 * than a leaf, so a level has fewer than n / leaf + 1 of them. A batch
 * holds at most seg_cap segments, their chunks (at most one per segment
 * more than parts), and samples of sample_cap words. A level finishes at
 * most 2 n / leaf + 2 ranges per parent and one per child it passes on
 * (finish_child), the last level every segment: leaf_cap. */
static clsort_status prepare(clsort_context *ctx, plan *p, shape s) {
  const clsort__sort_job *job = p->job;
  size_t n = job->n;
  size_t cus = ctx->compute_units ? ctx->compute_units : 1;
  /* At least two leaves a compute unit, so that the last launch has work
   * for every core. */
  p->leaf = clsort__min((size_t)1 << s.leaf, clsort__max((size_t)256, n / (2 * cus)));
  p->parts = (size_t)s.chunks * cus;
  p->min_chunk = clsort__min(MIN_CHUNK, p->leaf / 4); /* small leaves (tests): many chunks */
  p->ways = s.ways;
  p->oversampling = s.oversampling;
  p->levels = s.levels;
  size_t segs = n / (p->leaf + 1) + 1;
  size_t ways = ways_for(p, n);
  p->seg_cap = clsort__min(SEG_CAP, segs);
  p->chunk_cap = p->seg_cap + p->parts + 1;
  p->sample_cap = 2 * sample_for(p, n, ways) * clsort__min(8, p->seg_cap);
  size_t leaf_cap = ((size_t)p->levels + 1) * (4 * segs + 4);
  p->segs_at = 0;
  p->chunks_at = p->segs_at + SEG_WORDS * p->seg_cap;
  p->table_at = p->chunks_at + CHUNK_WORDS * p->chunk_cap;
  p->splitters_at = p->table_at + (cl_ulong)BUCKETS * p->chunk_cap;
  p->samples_at = p->splitters_at + 2 * ways * p->seg_cap;
  p->bins_at = 3 * leaf_cap;
  size_t aux_words = clsort__max(p->samples_at + p->sample_cap, p->bins_at + 2 * (cus + 1));
  FORWARD_IF_ERROR(get_kernels(ctx, p));

  FORWARD_IF_ERROR(clsort__cpu_split_buffers(ctx, job, p->k, p->v));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_VALUES2, n, &p->oracle));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_AUX3, aux_words * sizeof(cl_ulong), &p->aux));

  size_t record_bytes =
      (SEG_WORDS * p->seg_cap + (CHUNK_WORDS + BUCKETS) * p->chunk_cap) * sizeof(cl_ulong);
  size_t leaf_bytes = clsort__cpu_leaves_host_bytes(leaf_cap, cus);
  size_t host_bytes = record_bytes + leaf_bytes + 2 * segs * sizeof(clsort__cpu_segment);
  unsigned char *h = clsort__malloc(ctx, host_bytes);
  RETURN_IF(!h, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the sample sort's plan");
  p->segs = (cl_ulong *)(void *)h;
  p->chunks = p->segs + SEG_WORDS * p->seg_cap;
  p->table = p->chunks + CHUNK_WORDS * p->chunk_cap;
  clsort__cpu_leaves_init(&p->leaves, h + record_bytes, leaf_cap, cus);
  p->cur = (clsort__cpu_segment *)(void *)(h + record_bytes + leaf_bytes);
  p->next = p->cur + segs;
  return CLSORT_SUCCESS;
}

/* The range gathered so far, to the leaf list. */
static void flush_pending(plan *p) {
  clsort__cpu_leaves_add(&p->leaves, p->pend_begin, p->pend_len, p->pend_src, p->pend_sort);
  p->pend_len = 0;
  p->pend_sort = false;
}

/* A child of a split: a segment of the next level, or a range to finish,
 * gathered with the children before it while they fit a leaf (their keys
 * are in order between them, so one sort of the union sorts each). */
static void finish_child(plan *p, clsort__cpu_segment c, bool finished, size_t *next_count) {
  if (c.len == 0) return;
  if (!finished && c.len > p->leaf) {
    flush_pending(p);
    p->next[(*next_count)++] = c;
    return;
  }
  if (p->pend_len && p->pend_len + c.len > p->leaf) flush_pending(p);
  if (!p->pend_len) {
    p->pend_begin = c.begin;
    p->pend_src = c.src;
  }
  p->pend_len += c.len;
  p->pend_sort = p->pend_sort || (!finished && c.len > 1);
}

/* Segments [first, first + count) of p->cur as a batch: their records,
 * their chunks of `chunk` keys (about); returns how many chunks. */
static size_t describe_batch(plan *p, size_t first, size_t count, size_t chunk, bool raw) {
  size_t chunks = 0;
  cl_ulong splitters = p->splitters_at, samples = p->samples_at;
  for (size_t i = 0; i < count; i++) {
    const clsort__cpu_segment *s = &p->cur[first + i];
    size_t ways = ways_for(p, s->len), m = sample_for(p, s->len, ways);
    cl_ulong *r = p->segs + SEG_WORDS * i;
    r[0] = s->begin;
    r[1] = s->len;
    r[2] = s->src | (raw ? F_RAW : 0);
    r[3] = ways;
    r[4] = m;
    r[5] = samples;
    r[6] = splitters;
    r[7] = 0;
    samples += 2 * m;
    splitters += 2 * ways;
    size_t pieces = clsort__div_up(s->len, chunk);
    for (size_t c = 0; c < pieces; c++, chunks++) {
      cl_ulong *e = p->chunks + CHUNK_WORDS * chunks;
      e[0] = i;
      e[1] = s->begin + s->len * c / pieces;
      e[2] = s->begin + s->len * (c + 1) / pieces;
      e[3] = clsort__cpu_dst_of(s->src);
    }
  }
  return chunks;
}

/* From the counts, each chunk's bucket places (in place of its counts);
 * the segments' children. Bucket b of a segment follows buckets 0..b-1 of
 * all its chunks, and within it chunk c's keys follow chunks 0..c-1's. */
static clsort_status place_children(plan *p, size_t first, size_t count, size_t chunks,
                                    size_t *next_count) {
  size_t g = 0;
  for (size_t i = 0; i < count; i++) {
    const clsort__cpu_segment s = p->cur[first + i];
    size_t c0 = g;
    while (g < chunks && p->chunks[CHUNK_WORDS * g] == i) g++;
    size_t buckets = 2 * p->segs[SEG_WORDS * i + 3] - 1, at = s.begin;
    unsigned dst = clsort__cpu_dst_of(s.src);
    p->pend_len = 0;
    p->pend_sort = false;
    for (size_t b = 0; b < buckets; b++) {
      size_t begin = at;
      for (size_t c = c0; c < g; c++) {
        cl_ulong *row = p->table + BUCKETS * c;
        size_t keys = row[b];
        row[b] = at;
        at += keys;
      }
      RETURN_IF(at > s.begin + s.len, CLSORT_ERROR_OPENCL,
                "sample sort: the counts of [%zu, %zu) pass its end", s.begin, s.begin + s.len);
      finish_child(p, (clsort__cpu_segment){begin, at - begin, dst, false, 0}, b % 2 == 1,
                   next_count);
    }
    flush_pending(p);
    RETURN_IF(at != s.begin + s.len, CLSORT_ERROR_OPENCL,
              "sample sort: the counts of [%zu, %zu) add up to %zu keys", s.begin,
              s.begin + s.len, at - s.begin);
  }
  return CLSORT_SUCCESS;
}

/* One batch: write the records, draw the splitters, count, read the
 * counts back, place, scatter. */
static clsort_status run_batch(clsort_context *ctx, plan *p, size_t first, size_t count,
                               size_t chunk, bool raw, size_t *next_count) {
  const clsort__sort_job *job = p->job;
  size_t chunks = describe_batch(p, first, count, chunk, raw);
  int kind = clsort__key_kind(job->type), desc = job->descending;
  int make_index = raw && job->make_index;
  size_t w = sizeof(cl_ulong);
  /* Blocking writes: the host arrays change again for the next batch. */
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(ctx->queue, p->aux, CL_TRUE, p->segs_at * w,
                                                 SEG_WORDS * count * w, p->segs, 0, NULL, NULL)));
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(ctx->queue, p->aux, CL_TRUE, p->chunks_at * w,
                                                 CHUNK_WORDS * chunks * w, p->chunks, 0, NULL,
                                                 NULL)));
  cl_ulong2 at0 = clsort__pair_at(job, p->k[0], p->v[0]);
  cl_ulong2 at2 = clsort__pair_at(job, p->k[2], p->v[2]);
  clsort__arg split_args[] = {ARG(p->k[0]), ARG(p->k[1]),   ARG(p->k[2]), ARG(at0), ARG(at2),
                              ARG(p->aux),  ARG(p->segs_at), ARG(kind),   ARG(desc)};
  FORWARD_IF_ERROR(clsort__launch(ctx, p->splitters, count, 1, 9, split_args, 0, NULL, NULL));
  clsort__arg count_args[] = {ARG(p->k[0]),      ARG(p->k[1]),     ARG(p->k[2]),
                              ARG(at0),          ARG(at2),         ARG(p->aux),
                              ARG(p->segs_at),   ARG(p->chunks_at), ARG(p->table_at),
                              ARG(p->oracle),    ARG(kind),        ARG(desc)};
  FORWARD_IF_ERROR(clsort__launch(ctx, p->count, chunks, 1, 12, count_args, 0, NULL, NULL));
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueReadBuffer(ctx->queue, p->aux, CL_TRUE, p->table_at * w,
                                                BUCKETS * chunks * w, p->table, 0, NULL, NULL)));
  FORWARD_IF_ERROR(place_children(p, first, count, chunks, next_count));
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(ctx->queue, p->aux, CL_TRUE, p->table_at * w,
                                                 BUCKETS * chunks * w, p->table, 0, NULL, NULL)));
  clsort__arg scatter_args[] = {ARG(p->k[0]),    ARG(p->k[1]),      ARG(p->k[2]),
                                ARG(p->v[0]),    ARG(p->v[1]),      ARG(p->v[2]),
                                ARG(at0),        ARG(at2),          ARG(p->aux),
                                ARG(p->segs_at), ARG(p->chunks_at), ARG(p->table_at),
                                ARG(p->oracle),  ARG(make_index),   ARG(kind),
                                ARG(desc)};
  return clsort__launch(ctx, p->scatter, chunks, 1, 16, scatter_args, 0, NULL, NULL);
}

/* One level over p->cur, in batches that fit the capacities
 * (clsort__cpu_split_levels' level; plan_ is the plan). */
static clsort_status run_level(clsort_context *ctx, void *plan_, size_t segments,
                               bool raw, size_t *next_count) {
  plan *p = plan_;
  size_t total = 0;
  for (size_t i = 0; i < segments; i++) total += p->cur[i].len;
  size_t chunk = clsort__max(p->min_chunk, clsort__div_up(total, p->parts));
  for (size_t first = 0; first < segments;) {
    size_t count = 0, chunks = 0, samples = 0;
    while (first + count < segments && count < p->seg_cap) {
      size_t len = p->cur[first + count].len, ways = ways_for(p, len);
      size_t c = clsort__div_up(len, chunk), m = 2 * sample_for(p, len, ways);
      if (count > 0 && (chunks + c > p->chunk_cap || samples + m > p->sample_cap)) break;
      chunks += c;
      samples += m;
      count++;
    }
    FORWARD_IF_ERROR(run_batch(ctx, p, first, count, chunk, raw, next_count));
    first += count;
  }
  return CLSORT_SUCCESS;
}

static clsort_status run(clsort_context *ctx, plan *p) {
  size_t n = p->job->n;
  unsigned level;
  FORWARD_IF_ERROR(clsort__cpu_split_levels(ctx, &p->leaves, &p->cur, &p->next, n, p->leaf,
                                            p->levels, run_level, p, &level));
  clsort__debug("sample (CPU): %u levels, %zu ranges to finish, leaves of at most %zu keys, "
                "n = %zu", level, p->leaves.count, p->leaf, n);
  return clsort__cpu_leaves_run(ctx, &p->leaves, p->leaves_kernel, p->job, p->k, p->v, p->aux,
                                p->bins_at);
}

clsort_status clsort__sample_sort_cpu(clsort_context *ctx, const clsort__sort_job *job) {
  plan p;
  memset(&p, 0, sizeof p);
  p.job = job;
  clsort_status st = prepare(ctx, &p, shape_for());
  if (st == CLSORT_SUCCESS) st = run(ctx, &p);
  /* Writes of host arrays may still be queued after a failure. */
  if (st != CLSORT_SUCCESS) clFinish(ctx->queue);
  free(p.segs);
  return st;
}
