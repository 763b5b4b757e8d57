/* out_of_core.c: sorts of host arrays larger than the device, or than the
 * context's memory limit (issue 17), and the choice between in core and
 * out of core. docs/ARCHITECTURE.md ("Device memory and host arrays")
 * places it among the other host-array paths.
 *
 * Out of core, in two phases:
 * 1. Runs. The input is cut into runs of L elements. Each run goes to the
 *    device, is sorted there by the requested algorithm, and cut at B - 1
 *    splitters drawn beforehand from a sample of the whole input (one
 *    binary search per splitter, runs.cl). The first runs the budget can
 *    hold stay on the device; the others come back to host scratch.
 * 2. Buckets. Bucket b is the piece between cuts b - 1 and b of every run,
 *    gathered in run order into one device buffer (device copies from
 *    resident runs, uploads from host scratch), sorted, and written to its
 *    place in the caller's arrays.
 * Splitters are pairs (order key, run), and a key equal to a splitter's
 * belongs below it when its run is at most the splitter's: runs of one key
 * still split, so a bucket holds at most its sampled share plus one run.
 * Buckets keep run order and runs are input order, so the sort is stable
 * whenever the algorithm is. With every run resident, each byte crosses
 * the link once each way. */
#include "api/api.h"

#include <stdlib.h>
#include <string.h>

/* Elements of the smallest run worth a sort: a limit that leaves less is
 * "too small to sort anything". */
#define MIN_RUN 1024
/* Sample keys per bucket, and the room a bucket has over its expected
 * share. With 256 samples a bucket exceeds 1.5 times its share with
 * probability below 1e-15; a plan whose largest bucket does not fit is
 * drawn again anyway. */
#define SAMPLES_PER_BUCKET 256
#define MAX_RUNS_RESIDENT 512
#define ATTEMPTS 4

typedef struct plan {
  size_t run;      /* L: elements per run */
  size_t runs;     /* R */
  size_t resident; /* the first runs, kept on the device */
  size_t buckets;  /* B */
  size_t cap;      /* the largest bucket the plan sorts: 2L */
  unsigned flight; /* run and bucket buffers in flight: 2 overlaps copies and sorts */
  size_t need;     /* the plan's device bytes */
} plan;

typedef struct ooc {
  clsort_context *ctx;
  clsort_options o; /* CLSORT_AUTO resolved */
  clsort__sort_job job;
  const unsigned char *keys_in;
  unsigned char *keys_out; /* NULL: argsort */
  unsigned char *vals;     /* values (pairs) or indices (argsort); NULL: keys only */
  size_t n, ks, vs, es;    /* key, value or index, and element bytes */
  size_t ss;               /* the sort's scratch bytes per element (sort_scratch) */
  bool argsort;
  unsigned attempt;
  plan p;

  cl_ulong *split; /* B - 1 pairs (order key, run) */
  cl_ulong *cuts;  /* R x (B - 1) */
  size_t *size, *start, *order;
  cl_mem split_buf, cut_buf;
  cl_mem *rk, *rv;      /* resident runs */
  cl_mem fk[2], fv[2];  /* runs on their way back to the host */
  cl_mem bk[2], bv[2];  /* buckets */
  unsigned char *hk, *hv; /* host scratch of the runs not resident */
  clsort__piece *pieces;  /* 2R: a bucket's uploads */
  uint64_t done, total;
  uint64_t reported; /* the most reported yet: a retry starts done over */
  bool written; /* the caller's arrays have been written */
} ooc;

/* ------------------------------------------------------------ order keys */
/* The key's order key, as keys.cl computes it on the device. */
static uint64_t order_key(const ooc *s, size_t i) {
  const unsigned char *p = s->keys_in + i * s->ks;
  uint64_t b;
  if (s->ks == 1) {
    b = *p;
  } else if (s->ks == 2) {
    uint16_t v;
    memcpy(&v, p, 2);
    b = v;
  } else if (s->ks == 4) {
    uint32_t v;
    memcpy(&v, p, 4);
    b = v;
  } else {
    memcpy(&b, p, 8);
  }
  uint64_t sign = (uint64_t)1 << (s->ks * 8 - 1), all = sign | (sign - 1);
  int kind = clsort__key_kind(s->job.type);
  if (kind == 1) b ^= sign;
  if (kind == 2) b = (b & sign) ? ~b & all : b ^ sign;
  if (s->job.descending) b = ~b & all;
  unsigned width = s->job.end_bit - s->job.begin_bit;
  uint64_t mask = width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << width) - 1;
  return (b >> s->job.begin_bit) & mask;
}

/* ------------------------------------------------------------------ plan */
/* Device bytes beyond the data that a sort of m elements takes: tables,
 * the scratch buffers' rounding, the splitters and cuts. Generous: an
 * underestimate costs a retry (attempts below), not a failure. */
static size_t tables(const ooc *s, size_t m, size_t buckets) {
  return ((size_t)256 << 10) + 24 * buckets + m * s->es / 4;
}

static size_t div_up(size_t a, size_t b) { return (a + b - 1) / b; }

/* The scratch bytes per element of an in-core sort of keys of `type`
 * with `vs`-byte payloads (argsort: indices the sort makes): a copy of
 * the keys and payloads (the keys twice for argsort), plus, for the 8-
 * and 16-bit types, their 32-bit widened copy (sorts/widen.c), in which
 * the sort then runs on 32-bit keys. */
static size_t sort_scratch(clsort_type type, size_t vs, bool argsort) {
  size_t wk = clsort__sort_key_size(type);
  return wk + vs + (argsort ? wk : 0) + (clsort__type_is_narrow(type) ? wk : 0);
}

/* The plan's device bytes: resident runs, then (phase 2, the larger)
 * `flight` bucket buffers and the sort's scratch of 2L elements each. */
static size_t plan_need(const ooc *s, plan *p) {
  p->runs = div_up(s->n, p->run);
  p->cap = 2 * p->run;
  p->buckets = clsort__max(1, div_up(3 * s->n, 2 * p->run));
  if (p->resident > p->runs) p->resident = p->runs;
  return p->resident * p->run * s->es + p->flight * p->cap * s->es + p->cap * s->ss +
         tables(s, p->cap, p->buckets);
}

/* The largest run whose plan fits `budget`, by halving from `start`. */
static bool fit_run(const ooc *s, plan *p, size_t budget, size_t start, bool all_resident) {
  size_t widest = clsort__max(clsort__sort_key_size(s->job.type), s->vs);
  size_t limit = (size_t)s->ctx->max_alloc / widest / 2;
  for (p->run = clsort__min(start, limit); p->run >= MIN_RUN; p->run -= p->run / 4) {
    p->resident = all_resident ? SIZE_MAX : p->resident;
    p->need = plan_need(s, p);
    if (p->need <= budget) return true;
  }
  return false;
}

static clsort_status make_plan(ooc *s, size_t budget) {
  plan *p = &s->p;
  size_t data = s->n * s->es;
  memset(p, 0, sizeof *p);
  /* Everything resident, copies overlapping sorts: each byte crosses the
   * link once each way. The run takes a seventh of what the data leaves. */
  p->flight = 2;
  if (data < budget && fit_run(s, p, budget, (budget - data) / s->es / 7, true) &&
      p->runs <= MAX_RUNS_RESIDENT)
    return CLSORT_SUCCESS;
  /* Partly resident: runs of a sixteenth of the budget, as many kept as
   * the buckets leave room for. */
  memset(p, 0, sizeof *p);
  p->flight = 2;
  if (fit_run(s, p, budget, budget / s->es / 16, false)) {
    size_t room = (budget - p->need) / (p->run * s->es);
    p->resident = clsort__min(room, p->runs);
    p->need = plan_need(s, p);
    if (p->resident > 0) return CLSORT_SUCCESS;
  }
  /* Lean: one run and one bucket at a time, as large as they can be. */
  memset(p, 0, sizeof *p);
  p->flight = 1;
  if (fit_run(s, p, budget, budget / s->es / 4, false)) return CLSORT_SUCCESS;
  return FAIL(CLSORT_ERROR_MEMORY_LIMIT,
              "an out-of-core sort of %zu %s keys%s needs at least %zu bytes of device memory "
              "(runs of %d); the memory limit leaves %zu",
              s->n, clsort_type_name(s->job.type),
              s->argsort ? " (argsort)" : s->vs ? " with values" : "",
              2 * MIN_RUN * (s->es + s->ss) + tables(s, 2 * MIN_RUN, div_up(3 * s->n, 2 * MIN_RUN)),
              MIN_RUN,
              budget);
}

/* ------------------------------------------------------------- splitters */
typedef struct sample {
  uint64_t key, run;
} sample;

static int cmp_sample(const void *a, const void *b) {
  const sample *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->run > y->run) - (x->run < y->run);
}

static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* B - 1 splitters at equal ranks of a random sample of (order key, run). */
static clsort_status choose_splitters(ooc *s) {
  size_t B = s->p.buckets, count = SAMPLES_PER_BUCKET * B;
  bool every = count >= s->n;
  if (every) count = s->n;
  sample *smp = clsort__malloc(s->ctx, count * sizeof *smp);
  RETURN_IF(!smp, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for %zu sample keys", count);
  uint64_t state = 0x6f6f632d73706c74ull + s->attempt * 0x2545F4914F6CDD1Dull + s->n;
  for (size_t i = 0; i < count; i++) {
    size_t at = every ? i : (size_t)(next_random(&state) % s->n);
    smp[i] = (sample){order_key(s, at), at / s->p.run};
  }
  qsort(smp, count, sizeof *smp, cmp_sample);
  for (size_t j = 0; j + 1 < B; j++) {
    const sample *x = &smp[(j + 1) * count / B - ((j + 1) * count / B > 0)];
    s->split[2 * j] = x->key;
    s->split[2 * j + 1] = x->run;
  }
  free(smp);
  if (B < 2) return CLSORT_SUCCESS;
  clsort_context *ctx = s->ctx;
  size_t bytes = 2 * (B - 1) * sizeof(cl_ulong);
  FORWARD_IF_ERROR(clsort__create_buffer(ctx, CL_MEM_READ_ONLY, bytes, &s->split_buf));
  FORWARD_IF_ERROR(clsort__create_buffer(ctx, CL_MEM_READ_WRITE, (B - 1) * sizeof(cl_ulong),
                                         &s->cut_buf));
  return CL_CHECK(
      clEnqueueWriteBuffer(ctx->queue, s->split_buf, CL_TRUE, 0, bytes, s->split, 0, NULL, NULL));
}

/* ---------------------------------------------------------------- phase 1 */
static size_t run_len(const ooc *s, size_t r) {
  return clsort__min(s->p.run, s->n - r * s->p.run);
}

static bool resident(const ooc *s, size_t r) { return r < s->p.resident; }

/* Where run r lives on the device while it is sorted. */
static clsort_status run_buffers(ooc *s, size_t r, cl_mem *k, cl_mem *v) {
  clsort_context *ctx = s->ctx;
  cl_mem *pk, *pv;
  if (resident(s, r)) {
    pk = &s->rk[r];
    pv = &s->rv[r];
  } else {
    unsigned f = (unsigned)((r - s->p.resident) % s->p.flight);
    pk = &s->fk[f];
    pv = &s->fv[f];
  }
  if (!*pk) FORWARD_IF_ERROR(clsort__create_buffer(ctx, CL_MEM_READ_WRITE, s->p.run * s->ks, pk));
  if (s->vs && !*pv)
    FORWARD_IF_ERROR(clsort__create_buffer(ctx, CL_MEM_READ_WRITE, s->p.run * s->vs, pv));
  *k = *pk;
  *v = *pv;
  return CLSORT_SUCCESS;
}

static clsort_status upload_run(ooc *s, size_t r, cl_event *done) {
  cl_mem k, v;
  FORWARD_IF_ERROR(run_buffers(s, r, &k, &v));
  size_t first = r * s->p.run, len = run_len(s, r);
  clsort__piece up[2] = {{k, 0, (void *)(s->keys_in + first * s->ks), len * s->ks},
                         {v, 0, s->vals ? s->vals + first * s->vs : NULL, len * s->vs}};
  return clsort__upload(s->ctx, up, s->vs && !s->argsort ? 2 : 1, 0, NULL, done);
}

/* Sorts run r once `uploaded`, then cuts it; the cuts come back to the
 * host table in queue order. */
static clsort_status sort_run(ooc *s, size_t r, cl_event uploaded) {
  clsort_context *ctx = s->ctx;
  cl_mem k, v;
  FORWARD_IF_ERROR(run_buffers(s, r, &k, &v));
  size_t first = r * s->p.run, len = run_len(s, r), B = s->p.buckets;
  FORWARD_IF_ERROR(clsort__begin(ctx, uploaded ? 1 : 0, uploaded ? &uploaded : NULL));
  clsort__sort_job job = s->job;
  job.n = len;
  job.keys_in = job.keys_out = k;
  job.vals_in = job.vals_out = s->vs ? v : NULL;
  job.make_index = false;
  if (s->argsort) FORWARD_IF_ERROR(clsort__run_iota(ctx, &job, v, len, first));
  clsort__scratch_new_epoch(ctx);
  FORWARD_IF_ERROR(clsort__dispatch_sort(ctx, &s->o, &job));
  if (B < 2) return CLSORT_SUCCESS;
  FORWARD_IF_ERROR(clsort__run_cuts(ctx, &job, k, len, s->split_buf, B - 1, r, s->cut_buf, 0));
  return CL_CHECK(clEnqueueReadBuffer(ctx->queue, s->cut_buf, CL_FALSE, 0,
                                      (B - 1) * sizeof(cl_ulong), s->cuts + r * (B - 1), 0, NULL,
                                      NULL));
}

/* Brings sorted run r back to host scratch. */
static clsort_status evict_run(ooc *s, size_t r) {
  cl_mem k, v;
  FORWARD_IF_ERROR(run_buffers(s, r, &k, &v));
  size_t at = (r - s->p.resident) * s->p.run, len = run_len(s, r);
  cl_event sorted;
  FORWARD_IF_ERROR(clsort__marker(s->ctx, &sorted));
  clsort__piece down[2] = {{k, 0, s->hk + at * s->ks, len * s->ks},
                           {v, 0, s->hv ? s->hv + at * s->vs : NULL, len * s->vs}};
  clsort_status st = clsort__download(s->ctx, down, s->vs ? 2 : 1, 1, &sorted);
  clReleaseEvent(sorted);
  return st;
}

/* The caller sees progress only grow: an attempt that is retried (a new
 * sample, a smaller plan) counts its bytes again from zero, unreported
 * until it passes what the last one reached. */
static void progress(ooc *s, size_t elements) {
  s->done += (uint64_t)elements * s->es;
  uint64_t now = s->done < s->total ? s->done : s->total;
  if (now <= s->reported) return;
  s->reported = now;
  clsort__progress(s->ctx, now, s->total);
}

static clsort_status phase_runs(ooc *s) {
  cl_event up = NULL;
  clsort_status st = upload_run(s, 0, &up);
  for (size_t r = 0; st == CLSORT_SUCCESS && r < s->p.runs; r++) {
    st = sort_run(s, r, up);
    if (up) clReleaseEvent(up);
    up = NULL;
    /* The next run goes up while this one sorts, unless it needs this
     * run's buffer. */
    bool next = r + 1 < s->p.runs;
    bool shared = !resident(s, r) && s->p.flight == 1;
    if (st == CLSORT_SUCCESS && next && !shared) st = upload_run(s, r + 1, &up);
    if (st == CLSORT_SUCCESS && !resident(s, r)) st = evict_run(s, r);
    if (st == CLSORT_SUCCESS && next && shared) st = upload_run(s, r + 1, &up);
    if (st == CLSORT_SUCCESS) progress(s, run_len(s, r));
  }
  if (up) clReleaseEvent(up);
  if (st == CLSORT_SUCCESS) st = CL_CHECK(clFinish(s->ctx->queue));
  /* The buckets need the room of the runs that went back. */
  for (int f = 0; f < 2; f++) {
    clsort__release_buffer(s->ctx, s->fk[f]);
    clsort__release_buffer(s->ctx, s->fv[f]);
    s->fk[f] = s->fv[f] = NULL;
  }
  return st;
}

/* ---------------------------------------------------------------- phase 2 */
/* Cut j of run r, with cut -1 = 0 and cut B - 1 = the run's end. */
static size_t cut(const ooc *s, size_t r, size_t j) {
  size_t B = s->p.buckets;
  if (j == 0) return 0;
  if (j == B) return run_len(s, r);
  return (size_t)s->cuts[r * (B - 1) + j - 1];
}

/* Bucket sizes and places; false when one is larger than the plan sorts. */
static bool size_buckets(ooc *s, size_t *largest) {
  size_t B = s->p.buckets, at = 0;
  *largest = 0;
  for (size_t b = 0; b < B; b++) {
    size_t size = 0;
    for (size_t r = 0; r < s->p.runs; r++) size += cut(s, r, b + 1) - cut(s, r, b);
    s->size[b] = size;
    s->start[b] = at;
    at += size;
    if (size > s->size[*largest]) *largest = b;
  }
  return s->size[*largest] <= s->p.cap && at == s->n;
}

/* Gathers bucket b into bucket buffer `slot` and sorts it; *sorted
 * completes with the sort. */
static clsort_status prepare_bucket(ooc *s, size_t b, unsigned slot, cl_event *sorted) {
  clsort_context *ctx = s->ctx;
  cl_mem k = s->bk[slot], v = s->bv[slot];
  size_t d = 0, np = 0, R = s->p.runs;
  for (int part = 0; part < (s->vs ? 2 : 1); part++) {
    size_t es = part ? s->vs : s->ks;
    cl_mem dst = part ? v : k;
    d = 0;
    for (size_t r = 0; r < R; r++) {
      size_t lo = cut(s, r, b), len = cut(s, r, b + 1) - lo;
      if (len == 0) continue;
      if (resident(s, r)) {
        cl_mem src = part ? s->rv[r] : s->rk[r];
        FORWARD_IF_ERROR(CL_CHECK(clEnqueueCopyBuffer(ctx->queue, src, dst, lo * es, d * es,
                                                      len * es, 0, NULL, NULL)));
      } else {
        unsigned char *host = part ? s->hv : s->hk;
        size_t at = (r - s->p.resident) * s->p.run + lo;
        s->pieces[np++] = (clsort__piece){dst, d * es, host + at * es, len * es};
      }
      d += len;
    }
  }
  if (np) {
    cl_event up;
    FORWARD_IF_ERROR(clsort__upload(ctx, s->pieces, np, 0, NULL, &up));
    clsort_status st = clsort__begin(ctx, 1, &up);
    clReleaseEvent(up);
    FORWARD_IF_ERROR(st);
  }
  clsort__sort_job job = s->job;
  job.n = s->size[b];
  job.keys_in = job.keys_out = k;
  job.vals_in = job.vals_out = s->vs ? v : NULL;
  job.make_index = false;
  clsort__scratch_new_epoch(ctx);
  FORWARD_IF_ERROR(clsort__dispatch_sort(ctx, &s->o, &job));
  return clsort__marker(ctx, sorted);
}

/* Writes sorted bucket b to its place in the caller's arrays. */
static clsort_status write_bucket(ooc *s, size_t b, unsigned slot, cl_event sorted) {
  size_t at = s->start[b], len = s->size[b], count = 0;
  clsort__piece down[2];
  if (s->keys_out) down[count++] = (clsort__piece){s->bk[slot], 0, s->keys_out + at * s->ks, len * s->ks};
  if (s->vs) down[count++] = (clsort__piece){s->bv[slot], 0, s->vals + at * s->vs, len * s->vs};
  s->written = true;
  FORWARD_IF_ERROR(clsort__download(s->ctx, down, count, 1, &sorted));
  progress(s, len);
  return CLSORT_SUCCESS;
}

static clsort_status phase_buckets(ooc *s, size_t largest) {
  clsort_context *ctx = s->ctx;
  size_t B = s->p.buckets, count = 0;
  /* The largest bucket first: every buffer and kernel of the phase exists
   * before the caller's arrays are written. */
  s->order[count++] = largest;
  for (size_t b = 0; b < B; b++)
    if (b != largest && s->size[b] > 0) s->order[count++] = b;
  size_t cap = s->size[largest];
  unsigned flight = count > 1 ? s->p.flight : 1;
  for (unsigned f = 0; f < flight; f++) {
    FORWARD_IF_ERROR(clsort__create_buffer(ctx, CL_MEM_READ_WRITE, cap * s->ks, &s->bk[f]));
    if (s->vs)
      FORWARD_IF_ERROR(clsort__create_buffer(ctx, CL_MEM_READ_WRITE, cap * s->vs, &s->bv[f]));
  }
  cl_event ev[2] = {NULL, NULL};
  clsort_status st = prepare_bucket(s, s->order[0], 0, &ev[0]);
  for (size_t i = 0; st == CLSORT_SUCCESS && i < count; i++) {
    unsigned slot = (unsigned)(i % flight);
    if (flight == 2 && i + 1 < count)
      st = prepare_bucket(s, s->order[i + 1], (unsigned)((i + 1) % 2), &ev[(i + 1) % 2]);
    if (st == CLSORT_SUCCESS) st = write_bucket(s, s->order[i], slot, ev[slot]);
    clReleaseEvent(ev[slot]);
    ev[slot] = NULL;
    if (st == CLSORT_SUCCESS && flight == 1 && i + 1 < count)
      st = prepare_bucket(s, s->order[i + 1], 0, &ev[0]);
  }
  for (int f = 0; f < 2; f++)
    if (ev[f]) clReleaseEvent(ev[f]);
  return st;
}

/* --------------------------------------------------------------- driver */
static void release_state(ooc *s) {
  clsort_context *ctx = s->ctx;
  clFinish(ctx->queue);
  clsort__transfer_finish(ctx);
  for (size_t r = 0; s->rk && r < s->p.runs; r++) {
    clsort__release_buffer(ctx, s->rk[r]);
    clsort__release_buffer(ctx, s->rv[r]);
  }
  for (int f = 0; f < 2; f++) {
    clsort__release_buffer(ctx, s->fk[f]);
    clsort__release_buffer(ctx, s->fv[f]);
    clsort__release_buffer(ctx, s->bk[f]);
    clsort__release_buffer(ctx, s->bv[f]);
  }
  clsort__release_buffer(ctx, s->split_buf);
  clsort__release_buffer(ctx, s->cut_buf);
  free(s->rk);
  free(s->rv);
  free(s->hk);
  free(s->hv);
  free(s->split);
  free(s->cuts);
  free(s->size);
  free(s->start);
  free(s->order);
  free(s->pieces);
  s->rk = s->rv = NULL;
  s->hk = s->hv = NULL;
  s->split = s->cuts = NULL;
  s->size = s->start = s->order = NULL;
  s->pieces = NULL;
  s->split_buf = s->cut_buf = NULL;
  memset(s->fk, 0, sizeof s->fk);
  memset(s->fv, 0, sizeof s->fv);
  memset(s->bk, 0, sizeof s->bk);
  memset(s->bv, 0, sizeof s->bv);
}

/* Host memory for one attempt's plan. */
static clsort_status host_state(ooc *s) {
  clsort_context *ctx = s->ctx;
  size_t R = s->p.runs, B = s->p.buckets, evicted = s->n - clsort__min(s->n, s->p.resident * s->p.run);
  s->rk = clsort__malloc(ctx, R * sizeof(cl_mem));
  s->rv = clsort__malloc(ctx, R * sizeof(cl_mem));
  s->split = clsort__malloc(ctx, 2 * B * sizeof(cl_ulong));
  s->cuts = clsort__malloc(ctx, R * B * sizeof(cl_ulong));
  s->size = clsort__malloc(ctx, B * sizeof(size_t));
  s->start = clsort__malloc(ctx, B * sizeof(size_t));
  s->order = clsort__malloc(ctx, B * sizeof(size_t));
  s->pieces = clsort__malloc(ctx, 2 * R * sizeof(clsort__piece));
  RETURN_IF(!s->rk || !s->rv || !s->split || !s->cuts || !s->size || !s->start || !s->order ||
                !s->pieces,
            CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the plan of an out-of-core sort");
  memset(s->rk, 0, R * sizeof(cl_mem));
  memset(s->rv, 0, R * sizeof(cl_mem));
  if (evicted) {
    s->hk = clsort__malloc(ctx, evicted * s->ks);
    if (s->vs) s->hv = clsort__malloc(ctx, evicted * s->vs);
    RETURN_IF(!s->hk || (s->vs && !s->hv), CLSORT_ERROR_OUT_OF_MEMORY,
              "no host memory for %zu bytes of out-of-core scratch", evicted * s->es);
  }
  return CLSORT_SUCCESS;
}

/* One attempt within `budget` device bytes. *planned: a plan fitted (else
 * a smaller budget cannot help); *resample: the sample left a bucket too
 * large (a new sample may not). */
static clsort_status attempt(ooc *s, size_t budget, bool *planned, bool *resample) {
  *planned = *resample = false;
  s->done = 0;
  FORWARD_IF_ERROR(make_plan(s, budget));
  *planned = true;
  clsort__debug("out-of-core sort of %zu elements: %zu runs of %zu (%zu resident), %zu buckets, "
                "%u in flight, %zu of %zu device bytes",
                s->n, s->p.runs, s->p.run, s->p.resident, s->p.buckets, s->p.flight, s->p.need,
                budget);
  FORWARD_IF_ERROR(host_state(s));
  FORWARD_IF_ERROR(choose_splitters(s));
  FORWARD_IF_ERROR(phase_runs(s));
  size_t largest;
  if (!size_buckets(s, &largest)) {
    *resample = true;
    return FAIL(CLSORT_ERROR_MEMORY_LIMIT,
                "the sample left a bucket of %zu elements, more than the %zu the plan sorts",
                s->size[largest], s->p.cap);
  }
  return phase_buckets(s, largest);
}

static clsort_status sort_out_of_core(clsort_context *ctx, const clsort_options *o,
                                      const clsort__sort_job *job, void *keys,
                                      const void *keys_const, void *values) {
  ooc s;
  memset(&s, 0, sizeof s);
  s.ctx = ctx;
  s.o = *o;
  /* One algorithm for every run and bucket: AUTO's pick for large inputs. */
  if (s.o.algorithm == CLSORT_AUTO) s.o.algorithm = CLSORT_RADIX;
  s.job = *job;
  s.keys_in = keys_const;
  s.keys_out = keys;
  s.vals = values;
  s.n = job->n;
  s.ks = clsort_type_size(job->type);
  s.vs = job->value_size;
  s.es = s.ks + s.vs;
  s.ss = sort_scratch(job->type, s.vs, false);
  s.argsort = job->make_index;
  s.total = 2 * (uint64_t)s.n * s.es;
  clsort_status st;
  size_t budget = SIZE_MAX;
  for (s.attempt = 0;; s.attempt++) {
    /* Scratch of earlier calls goes; the plan has the rest. */
    clsort__scratch_new_epoch(ctx);
    clsort__scratch_release_idle(ctx);
    size_t total = clsort__budget_total(ctx);
    budget = clsort__min(budget, total > ctx->device_bytes ? total - ctx->device_bytes : 0);
    bool planned, resample;
    st = attempt(&s, budget, &planned, &resample);
    release_state(&s);
    if (st == CLSORT_SUCCESS || s.written || !planned || s.attempt + 1 == ATTEMPTS) break;
    /* Before any write a failure for want of memory is retried: with a
     * new sample, or smaller (the estimate of the sort's tables was low,
     * or the device is shared). */
    bool memory = st == CLSORT_ERROR_MEMORY_LIMIT ||
                  (st == CLSORT_ERROR_OUT_OF_MEMORY && !ctx->memory_limit);
    if (!memory) break;
    clsort__debug("out-of-core attempt %u: %s; retrying %s", s.attempt, clsort_last_error_message(),
                  resample ? "with a new sample" : "smaller");
    if (!resample) budget = budget / 4 * 3;
    clsort__clear_error();
  }
  return st;
}

/* ----------------------------------------------------------------- route */
/* Whether the in-core sort's buffers fit the device and its budget:
 * the arrays on the device, the sort's scratch (sort_scratch), the
 * scratch buffers' rounding and tables. */
bool clsort__fits_in_core_with(const clsort_context *ctx, const clsort__sort_job *job,
                               double extra) {
  size_t ks = clsort_type_size(job->type), vs = job->value_size, n = job->n;
  if (n > (size_t)ctx->max_alloc / clsort__max(clsort__sort_key_size(job->type), vs)) return false;
  double data = (double)n * (double)(ks + vs);
  double scratch = (double)n * (double)sort_scratch(job->type, vs, job->make_index);
  double need = (data + scratch + extra) * 9 / 8 + (double)(256 << 10) + data / 16;
  return need <= (double)clsort__budget_total(ctx);
}

static bool fits_in_core(const clsort_context *ctx, const clsort__sort_job *job) {
  return clsort__fits_in_core_with(ctx, job, 0);
}

clsort_status clsort__sort_host_arrays(clsort_context *ctx, const clsort_options *o,
                                       clsort__sort_job job, void *keys, const void *keys_const,
                                       void *values, clsort__in_core_fn in_core) {
  uint64_t total = 2 * (uint64_t)job.n * (clsort_type_size(job.type) + job.value_size);
  clsort_status st;
  if (fits_in_core(ctx, &job)) {
    st = in_core(ctx, o, job, keys, keys_const, values, job.n);
    /* The limit was tighter than the estimate: nothing was written. */
    if (st != CLSORT_ERROR_MEMORY_LIMIT) {
      if (st == CLSORT_SUCCESS) clsort__progress(ctx, total, total);
      return st;
    }
    clsort__clear_error();
  }
  return sort_out_of_core(ctx, o, &job, keys, keys_const, values);
}

/* ---------------------------------------------------------------- tests */
bool clsort__test_out_of_core_plan(clsort_context *ctx, clsort_type type, size_t value_size,
                                   bool argsort, size_t n, size_t out[4]) {
  clsort__sort_job job;
  memset(&job, 0, sizeof job);
  job.type = type;
  job.n = n;
  job.end_bit = (unsigned)clsort_type_size(type) * 8;
  job.value_size = value_size;
  job.make_index = argsort;
  if (fits_in_core(ctx, &job)) return false;
  ooc s;
  memset(&s, 0, sizeof s);
  s.ctx = ctx;
  s.job = job;
  s.n = n;
  s.ks = clsort_type_size(type);
  s.vs = value_size;
  s.es = s.ks + s.vs;
  s.ss = sort_scratch(type, value_size, false);
  s.argsort = argsort;
  size_t total = clsort__budget_total(ctx);
  /* As the sort would see it: the scratch of earlier calls released. */
  size_t held = 0;
  for (int i = 0; i < SLOT_COUNT_; i++) held += ctx->scratch_size[i];
  held = ctx->device_bytes - clsort__min(held, ctx->device_bytes);
  if (make_plan(&s, total > held ? total - held : 0) != CLSORT_SUCCESS) return false;
  out[0] = s.p.run;
  out[1] = s.p.runs;
  out[2] = s.p.resident;
  out[3] = s.p.buckets;
  return true;
}
