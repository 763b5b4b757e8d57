/* transfer.c: copies between host arrays and device buffers. On GPUs the
 * driver moves pageable memory at a fifth of the link's speed, so arrays
 * are staged through pinned buffers the context owns: host threads copy
 * one slot while the link carries the one before (issue 17). Arrays in
 * memory from clsort_host_alloc, and every array on CPU devices, go
 * straight. Uploads and downloads have a queue each, so that the two
 * directions overlap. */
#include "runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SLOTS 16
/* Copies one slot may gather (pieces of an out-of-core bucket); a slot
 * with more is sent as it is and the next one starts. */
#define MAX_RUNS 512
/* Below this a slot's copy is not worth waking another thread (the
 * ramp's 1 MiB slots take 16). */
#define BYTES_PER_THREAD ((size_t)64 << 10)

typedef struct clsort__staging {
  cl_command_queue up, down;
  cl_mem buffer; /* slots x slot_bytes of pinned memory, mapped at `host` */
  unsigned char *host;
  size_t slot_bytes;
  unsigned slots, next;
  cl_event busy[MAX_SLOTS]; /* the last copy that used each slot */
} clsort__staging;

typedef struct clsort__pinned {
  cl_mem buffer;
  unsigned char *host;
  size_t bytes;
  struct clsort__pinned *next;
} clsort__pinned;

/* With the debug log on, where a staged transfer's host time goes: the
 * host copies (the first one, which nothing overlaps, apart), the waits
 * for the link, and the whole call. */
typedef struct trace {
  bool on;
  double start, copies, first_copy, waits, first_wait;
  unsigned slots;
} trace;

static void trace_begin(trace *t) {
  memset(t, 0, sizeof *t);
  t->on = clsort__debug_enabled();
  if (t->on) t->start = clsort__now_ms();
}

static void trace_end(const trace *t, const char *what, size_t bytes) {
  if (!t->on) return;
  clsort__debug("%s of %zu bytes in %u slots: %.3f ms; host copies %.3f ms (the first %.3f), "
                "waits %.3f ms (the first %.3f)",
                what, bytes, t->slots, clsort__now_ms() - t->start, t->copies, t->first_copy, t->waits,
                t->first_wait);
}

bool clsort__staging_on(const clsort_context *ctx) {
  if (ctx->staging_off) return false;
  return !ctx->is_cpu || ctx->staging_force;
}

void clsort__progress(clsort_context *ctx, uint64_t done, uint64_t total) {
  if (ctx->progress) ctx->progress(done, total, ctx->progress_user);
}

bool clsort__is_pinned(const clsort_context *ctx, const void *p, size_t bytes) {
  const unsigned char *c = p;
  for (const clsort__pinned *a = ctx->pinned; a; a = a->next)
    if (c >= a->host && bytes <= a->bytes && (size_t)(c - a->host) <= a->bytes - bytes) return true;
  return false;
}

/* ------------------------------------------------------------- staging */
static void free_staging(clsort__staging *s) {
  for (unsigned i = 0; i < MAX_SLOTS; i++)
    if (s->busy[i]) clReleaseEvent(s->busy[i]);
  if (s->host) {
    clEnqueueUnmapMemObject(s->up, s->buffer, s->host, 0, NULL, NULL);
    clFinish(s->up);
  }
  if (s->buffer) clReleaseMemObject(s->buffer);
  if (s->up) clReleaseCommandQueue(s->up);
  if (s->down) clReleaseCommandQueue(s->down);
  free(s);
}

/* The staging slots and queues, made at the first staged transfer. */
static clsort_status get_staging(clsort_context *ctx, clsort__staging **out) {
  if (ctx->staging) {
    *out = ctx->staging;
    return CLSORT_SUCCESS;
  }
  clsort__staging *s = clsort__malloc(ctx, sizeof *s);
  RETURN_IF(!s, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the staging state");
  memset(s, 0, sizeof *s);
  s->slot_bytes = ctx->staging_slot_bytes;
  s->slots = ctx->staging_slots;
  clsort_status st;
  cl_int err;
  s->up = clCreateCommandQueue(ctx->cl_ctx, ctx->device, 0, &err);
  GOTO_IF_ERROR(CL_CHECK(err));
  s->down = clCreateCommandQueue(ctx->cl_ctx, ctx->device, 0, &err);
  GOTO_IF_ERROR(CL_CHECK(err));
  GOTO_IF_ERROR(clsort__create_host_buffer(ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE,
                                           s->slots * s->slot_bytes, &s->buffer));
  s->host = clEnqueueMapBuffer(s->up, s->buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                               s->slots * s->slot_bytes, 0, NULL, NULL, &err);
  if (err != CL_SUCCESS) s->host = NULL;
  GOTO_IF_ERROR(CL_CHECK(err));
  clsort__debug("staging: %u pinned slots of %zu KiB", s->slots, s->slot_bytes >> 10);
  ctx->staging = s;
  *out = s;
  return CLSORT_SUCCESS;
cleanup:
  free_staging(s);
  return st;
}

void clsort__transfer_finish(clsort_context *ctx) {
  if (!ctx->staging) return;
  clFinish(ctx->staging->up);
  clFinish(ctx->staging->down);
}

void clsort__transfer_release(clsort_context *ctx) {
  if (ctx->staging) free_staging(ctx->staging);
  ctx->staging = NULL;
  while (ctx->pinned) {
    clsort__pinned *a = ctx->pinned;
    ctx->pinned = a->next;
    clEnqueueUnmapMemObject(ctx->queue, a->buffer, a->host, 0, NULL, NULL);
    clFinish(ctx->queue);
    clReleaseMemObject(a->buffer);
    free(a);
  }
}

/* Takes the next slot, once the host may write it: its last copy is done. */
static clsort_status take_slot(clsort__staging *s, unsigned *slot, trace *t) {
  unsigned i = s->next;
  s->next = (s->next + 1) % s->slots;
  if (s->busy[i]) {
    double t0 = t->on ? clsort__now_ms() : 0;
    cl_int err = clWaitForEvents(1, &s->busy[i]);
    if (t->on) t->waits += clsort__now_ms() - t0;
    clReleaseEvent(s->busy[i]);
    s->busy[i] = NULL;
    FORWARD_IF_ERROR(CL_CHECK(err));
  }
  *slot = i;
  return CLSORT_SUCCESS;
}

/* One slot's worth of host copies, split evenly over the host threads:
 * copy j moves `bytes[j]` between host `far[j]` and the slot at `near[j]`;
 * the copies are contiguous in the slot. */
typedef struct slot_copy {
  unsigned char *slot;
  const unsigned char *src[MAX_RUNS];
  unsigned char *dst[MAX_RUNS];
  size_t at[MAX_RUNS], bytes[MAX_RUNS]; /* position in the slot, length */
  unsigned count;
  size_t total;
  bool plain; /* the context's plain_copy */
} slot_copy;

static void memcpy_plain(void *dst, const void *src, size_t bytes) { memcpy(dst, src, bytes); }

static void copy_share(void *arg, unsigned t, unsigned threads) {
  slot_copy *c = arg;
  void (*copy)(void *, const void *, size_t) = c->plain ? memcpy_plain : clsort__stream_copy;
  size_t lo = c->total / threads * t + clsort__min(t, c->total % threads);
  size_t hi = lo + c->total / threads + (t < c->total % threads);
  for (unsigned j = 0; j < c->count; j++) {
    size_t a = clsort__max(lo, c->at[j]), b = clsort__min(hi, c->at[j] + c->bytes[j]);
    if (a < b) copy(c->dst[j] + (a - c->at[j]), c->src[j] + (a - c->at[j]), b - a);
  }
}

static void run_copies(clsort_context *ctx, slot_copy *c, trace *t) {
  c->plain = ctx->plain_copy;
  unsigned threads = (unsigned)clsort__min(clsort__host_thread_count(ctx),
                                           clsort__max(1, c->total / BYTES_PER_THREAD));
  double t0 = t->on ? clsort__now_ms() : 0;
  clsort__parallel(ctx, threads, copy_share, c);
  if (t->on) {
    double ms = clsort__now_ms() - t0;
    if (t->slots++ == 0) t->first_copy = ms;
    t->copies += ms;
  }
}

/* The bytes of the next slot of a staged transfer with `left` bytes to
 * go. Nothing overlaps the end of the pipeline: an upload, which runs at
 * the rate of its host copies (45-50 GB/s on the H100 host, below the
 * link's 55), ends with its last slot's transfer, and a download, which
 * runs at the link's, with its last slot's host copy. So the last slots
 * halve down to the ramp's size, and that step is short. (The first slots
 * stay whole: the link waits for the first copy either way, and more,
 * shorter slots cost the upload's copies more than they save.) */
static size_t slot_bytes_for(const clsort_context *ctx, size_t slot, size_t left) {
  size_t ramp = ctx->staging_ramp_bytes;
  if (ramp == 0 || ramp >= slot || left > 2 * slot) return slot;
  return clsort__min(slot, clsort__max(ramp, (left / 2 + 4095) / 4096 * 4096));
}

/* ---------------------------------------------------------------- upload */
/* The slot being filled: its copies and the device writes that follow. */
typedef struct upload_state {
  clsort_context *ctx;
  clsort__staging *s;
  unsigned slot;
  bool open;
  slot_copy copy;
  size_t cap;         /* bytes the open slot takes (slot_bytes_for) */
  size_t left;        /* staged bytes still to copy */
  cl_mem mem[MAX_RUNS];
  size_t offset[MAX_RUNS]; /* device offset of each write; its bytes are copy.bytes */
  cl_uint num_wait;
  const cl_event *wait;
  trace t;
} upload_state;

/* Copies the open slot's pieces in, then enqueues its device writes. */
static clsort_status send_slot(upload_state *u) {
  if (!u->open) return CLSORT_SUCCESS;
  u->open = false;
  run_copies(u->ctx, &u->copy, &u->t);
  clsort__staging *s = u->s;
  cl_event ev = NULL;
  for (unsigned j = 0; j < u->copy.count; j++) {
    bool last = j + 1 == u->copy.count;
    FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(s->up, u->mem[j], CL_FALSE, u->offset[j],
                                                   u->copy.bytes[j], u->copy.dst[j], u->num_wait,
                                                   u->wait, last ? &ev : NULL)));
  }
  s->busy[u->slot] = ev;
  return CL_CHECK(clFlush(s->up));
}

static clsort_status stage_piece(upload_state *u, const clsort__piece *p) {
  const unsigned char *src = p->host;
  size_t offset = p->offset, left = p->bytes;
  while (left > 0) {
    if (u->open && (u->copy.total == u->cap || u->copy.count == MAX_RUNS))
      FORWARD_IF_ERROR(send_slot(u));
    if (!u->open) {
      FORWARD_IF_ERROR(take_slot(u->s, &u->slot, &u->t));
      u->open = true;
      u->cap = slot_bytes_for(u->ctx, u->s->slot_bytes, u->left);
      u->copy.slot = u->s->host + (size_t)u->slot * u->s->slot_bytes;
      u->copy.count = 0;
      u->copy.total = 0;
    }
    size_t take = clsort__min(left, u->cap - u->copy.total);
    unsigned j = u->copy.count;
    /* A piece that continues the last one's device range joins its write. */
    if (j > 0 && u->mem[j - 1] == p->mem && u->offset[j - 1] + u->copy.bytes[j - 1] == offset &&
        u->copy.src[j - 1] + u->copy.bytes[j - 1] == src) {
      u->copy.bytes[j - 1] += take;
    } else {
      u->copy.src[j] = src;
      u->copy.dst[j] = u->copy.slot + u->copy.total;
      u->copy.at[j] = u->copy.total;
      u->copy.bytes[j] = take;
      u->mem[j] = p->mem;
      u->offset[j] = offset;
      u->copy.count++;
    }
    u->copy.total += take;
    u->left -= take;
    src += take;
    offset += take;
    left -= take;
  }
  return CLSORT_SUCCESS;
}

clsort_status clsort__upload(clsort_context *ctx, const clsort__piece *pieces, size_t count,
                             cl_uint num_wait, const cl_event *wait, cl_event *done) {
  if (done) *done = NULL;
  if (!clsort__staging_on(ctx)) {
    for (size_t i = 0; i < count; i++)
      if (pieces[i].bytes)
        FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(ctx->queue, pieces[i].mem, CL_FALSE,
                                                       pieces[i].offset, pieces[i].bytes,
                                                       pieces[i].host, num_wait, wait, NULL)));
    return clsort__marker(ctx, done);
  }
  clsort__staging *s;
  FORWARD_IF_ERROR(get_staging(ctx, &s));
  upload_state *u = clsort__malloc(ctx, sizeof *u);
  RETURN_IF(!u, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for an upload's plan");
  u->ctx = ctx;
  u->s = s;
  u->open = false;
  u->num_wait = num_wait;
  u->wait = wait;
  u->left = 0;
  for (size_t i = 0; i < count; i++)
    if (!clsort__is_pinned(ctx, pieces[i].host, pieces[i].bytes)) u->left += pieces[i].bytes;
  trace_begin(&u->t);
  size_t total = 0;
  clsort_status st = CLSORT_SUCCESS;
  for (size_t i = 0; i < count && st == CLSORT_SUCCESS; i++) {
    const clsort__piece *p = &pieces[i];
    if (p->bytes == 0) continue;
    total += p->bytes;
    if (clsort__is_pinned(ctx, p->host, p->bytes)) {
      /* Pinned already: the link reads it directly. */
      st = send_slot(u);
      if (st == CLSORT_SUCCESS)
        st = CL_CHECK(clEnqueueWriteBuffer(s->up, p->mem, CL_FALSE, p->offset, p->bytes, p->host,
                                           num_wait, wait, NULL));
    } else {
      st = stage_piece(u, p);
    }
  }
  if (st == CLSORT_SUCCESS) st = send_slot(u);
  trace_end(&u->t, "upload", total);
  free(u);
  if (st == CLSORT_SUCCESS && done) st = CL_CHECK(clEnqueueMarkerWithWaitList(s->up, 0, NULL, done));
  if (st == CLSORT_SUCCESS) st = CL_CHECK(clFlush(s->up));
  return st;
}

/* -------------------------------------------------------------- download */
typedef struct chunk {
  cl_mem mem;
  size_t offset, bytes;
  unsigned char *host;
  unsigned slot;
  size_t piece; /* its index in the call's pieces */
  cl_event ev;
} chunk;

/* A download's staged pieces in chunks of a slot, shorter at the ends
 * (slot_bytes_for), into `out` unless NULL; returns how many. */
static size_t plan_chunks(const clsort_context *ctx, const clsort__staging *s,
                          const clsort__piece *pieces, size_t count, chunk *out) {
  size_t left = 0, k = 0;
  for (size_t i = 0; i < count; i++)
    if (!clsort__is_pinned(ctx, pieces[i].host, pieces[i].bytes)) left += pieces[i].bytes;
  for (size_t i = 0; i < count; i++) {
    const clsort__piece *p = &pieces[i];
    if (p->bytes == 0 || clsort__is_pinned(ctx, p->host, p->bytes)) continue;
    for (size_t at = 0, len; at < p->bytes; at += len, left -= len, k++) {
      len = clsort__min(slot_bytes_for(ctx, s->slot_bytes, left), p->bytes - at);
      if (out)
        out[k] = (chunk){p->mem, p->offset + at, len, (unsigned char *)p->host + at, 0, i, NULL};
    }
  }
  return k;
}

clsort_status clsort__download(clsort_context *ctx, const clsort__piece *pieces, size_t count,
                               cl_uint num_wait, const cl_event *wait) {
  return clsort__download_when(ctx, pieces, count, num_wait, wait, NULL, NULL);
}

clsort_status clsort__download_when(clsort_context *ctx, const clsort__piece *pieces,
                                    size_t count, cl_uint num_wait, const cl_event *wait,
                                    clsort__piece_ready ready, void *arg) {
  RETURN_IF(num_wait > 16, CLSORT_ERROR_INVALID_ARGUMENT, "a download waits for at most 16 events");
  bool available = true;
  /* Every read waits for `wait` and the hook's event (deps[num_wait]),
   * and a staged one for its slot's last use. */
  cl_event deps[18], ev = NULL;
  for (cl_uint w = 0; w < num_wait; w++) deps[w] = wait[w];
#define DEPS_WITH(e) ((e) ? (deps[num_wait] = (e), num_wait + 1) : num_wait)
#define READY(i, end, block) \
  (ready ? ready(arg, (i), (end), (block), &ev, &available) : CLSORT_SUCCESS)
  clsort_status st = CLSORT_SUCCESS;
  chunk *c = NULL;
  size_t chunks = 0;
  if (!clsort__staging_on(ctx)) {
    for (size_t i = 0; i < count && st == CLSORT_SUCCESS; i++) {
      if (!pieces[i].bytes) continue;
      st = READY(i, pieces[i].bytes, true);
      cl_uint nd = DEPS_WITH(ev);
      if (st == CLSORT_SUCCESS)
        st = CL_CHECK(clEnqueueReadBuffer(ctx->queue, pieces[i].mem, CL_FALSE, pieces[i].offset,
                                          pieces[i].bytes, pieces[i].host, nd,
                                          nd ? deps : NULL, NULL));
    }
    cl_int err = clFinish(ctx->queue);
    return st != CLSORT_SUCCESS ? st : CL_CHECK(err);
  }
  clsort__staging *s;
  GOTO_IF_ERROR(get_staging(ctx, &s));
  chunks = plan_chunks(ctx, s, pieces, count, NULL);
  c = clsort__malloc(ctx, (chunks + 1) * sizeof *c);
  if (!c) GOTO_IF_ERROR(FAIL(CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for a download's plan"));
  plan_chunks(ctx, s, pieces, count, c);
  /* Pinned pieces go straight. */
  for (size_t i = 0; i < count && st == CLSORT_SUCCESS; i++) {
    const clsort__piece *p = &pieces[i];
    if (!p->bytes || !clsort__is_pinned(ctx, p->host, p->bytes)) continue;
    st = READY(i, p->bytes, true);
    cl_uint nd = DEPS_WITH(ev);
    if (st == CLSORT_SUCCESS)
      st = CL_CHECK(clEnqueueReadBuffer(s->down, p->mem, CL_FALSE, p->offset, p->bytes, p->host,
                                        nd, nd ? deps : NULL, NULL));
  }
  trace t;
  trace_begin(&t);
  size_t total = 0;
  /* Keep every slot in flight: chunk i + slots is read as chunk i is
   * copied out of the slot they share. A chunk that the hook says is not
   * ready yet waits, unless it is chunk i. */
  size_t issued = 0, i = 0;
  for (; st == CLSORT_SUCCESS && i < chunks; i++) {
    while (st == CLSORT_SUCCESS && issued < chunks && issued < i + s->slots) {
      chunk *q = &c[issued];
      size_t end = q->offset - pieces[q->piece].offset + q->bytes;
      st = READY(q->piece, end, issued == i);
      if (st != CLSORT_SUCCESS || !available) break;
      issued++;
      q->slot = s->next;
      s->next = (s->next + 1) % s->slots;
      /* The slot's last use (an upload's write, or a chunk copied out by
       * now) must be over before the device writes it. */
      cl_uint nd = DEPS_WITH(ev);
      if (s->busy[q->slot]) deps[nd++] = s->busy[q->slot];
      st = CL_CHECK(clEnqueueReadBuffer(s->down, q->mem, CL_FALSE, q->offset, q->bytes,
                                        s->host + (size_t)q->slot * s->slot_bytes, nd,
                                        nd ? deps : NULL, &q->ev));
      if (st == CLSORT_SUCCESS) {
        if (s->busy[q->slot]) clReleaseEvent(s->busy[q->slot]);
        s->busy[q->slot] = q->ev;
        clRetainEvent(q->ev);
      }
    }
    if (st == CLSORT_SUCCESS) st = CL_CHECK(clFlush(s->down));
    double t0 = t.on ? clsort__now_ms() : 0;
    if (st == CLSORT_SUCCESS) st = CL_CHECK(clWaitForEvents(1, &c[i].ev));
    if (t.on) {
      double ms = clsort__now_ms() - t0;
      if (i == 0) t.first_wait = ms;
      t.waits += ms;
    }
    if (st == CLSORT_SUCCESS) {
      slot_copy copy;
      copy.slot = s->host + (size_t)c[i].slot * s->slot_bytes;
      copy.src[0] = copy.slot;
      copy.dst[0] = c[i].host;
      copy.at[0] = 0;
      copy.bytes[0] = c[i].bytes;
      copy.count = 1;
      copy.total = c[i].bytes;
      run_copies(ctx, &copy, &t);
      total += c[i].bytes;
    }
  }
  for (size_t j = 0; j < chunks; j++)
    if (c[j].ev) clReleaseEvent(c[j].ev);
  cl_int err = clFinish(s->down);
  trace_end(&t, "download", total);
  if (st == CLSORT_SUCCESS) st = CL_CHECK(err);
#undef DEPS_WITH
#undef READY
cleanup:
  free(c);
  return st;
}

/* ------------------------------------------------------------ host alloc */
clsort_status clsort__host_alloc(clsort_context *ctx, size_t bytes, void **ptr) {
  RETURN_IF(!ctx, CLSORT_ERROR_INVALID_ARGUMENT, "the context is NULL");
  RETURN_IF(!ptr, CLSORT_ERROR_INVALID_ARGUMENT, "ptr is NULL");
  *ptr = NULL;
  RETURN_IF(bytes == 0, CLSORT_ERROR_INVALID_ARGUMENT, "cannot allocate 0 bytes");
  clsort__pinned *a = clsort__malloc(ctx, sizeof *a);
  RETURN_IF(!a, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the allocation's record");
  clsort_status st = clsort__create_host_buffer(ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE,
                                                bytes, &a->buffer);
  if (st != CLSORT_SUCCESS) {
    free(a);
    return st;
  }
  cl_int err;
  a->host = clEnqueueMapBuffer(ctx->queue, a->buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                               bytes, 0, NULL, NULL, &err);
  if (err != CL_SUCCESS) {
    clReleaseMemObject(a->buffer);
    free(a);
    return clsort__fail(clsort__status_from_cl(err), err, __FILE__, __LINE__,
                        "mapping %zu bytes of pinned host memory failed: %s", bytes,
                        clsort__cl_error_name(err));
  }
  a->bytes = bytes;
  a->next = ctx->pinned;
  ctx->pinned = a;
  *ptr = a->host;
  return CLSORT_SUCCESS;
}

clsort_status clsort__host_free(clsort_context *ctx, void *ptr) {
  RETURN_IF(!ctx, CLSORT_ERROR_INVALID_ARGUMENT, "the context is NULL");
  if (!ptr) return CLSORT_SUCCESS;
  for (clsort__pinned **link = &ctx->pinned; *link; link = &(*link)->next) {
    clsort__pinned *a = *link;
    if (a->host != ptr) continue;
    *link = a->next;
    /* Transfers from it may still be queued. */
    if (ctx->staging) {
      clFinish(ctx->staging->up);
      clFinish(ctx->staging->down);
    }
    cl_int err = clEnqueueUnmapMemObject(ctx->queue, a->buffer, a->host, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clFinish(ctx->queue);
    clReleaseMemObject(a->buffer);
    free(a);
    return CL_CHECK(err);
  }
  return FAIL(CLSORT_ERROR_INVALID_ARGUMENT,
              "%p is not the start of a clsort_host_alloc allocation of this context", ptr);
}

void clsort_context_set_progress_callback(clsort_context *ctx, clsort_progress_callback callback,
                                          void *user) {
  if (!ctx) return;
  pthread_mutex_lock(&ctx->lock);
  ctx->progress = callback;
  ctx->progress_user = user;
  pthread_mutex_unlock(&ctx->lock);
}
