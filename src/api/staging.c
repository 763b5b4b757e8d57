/* staging.c: the in-core sort of host arrays on GPUs. The arrays go up
 * through the context's pinned slots (runtime/transfer.c: host threads
 * fill one slot while the link carries the one before; arrays from
 * clsort_host_alloc go straight), the sort runs on the device, and the
 * results come down the same way on a queue of their own.
 *
 * A large radix sort of pageable arrays on the NVIDIA path splits
 * instead, so that the download does not wait for the whole sort (issue
 * 17): one stable pass by the top 8 bits of the key range, then groups of
 * whole digits, each sorted on its own while the groups before it travel
 * to the host. The download starts after the pass and the first group,
 * not after the whole sort (6.1 ms at 2^28 u32 keys). The result is the
 * radix sort's, as both are stable. */
#include "api/api.h"
#include "api/testing.h"
#include "sorts/sorts.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void release(cl_event *e) {
  if (*e) clReleaseEvent(*e);
  *e = NULL;
}

/* The split's groups: the first holds at least a staging slot's worth of
 * the first array the download reads (the first read waits for no more),
 * or n >> first_shift keys; each next one `growth` times its
 * predecessor's target, up to n >> cap_shift; so that the download starts
 * early and the device's sorts, faster than the link, stay ahead of it
 * with few launches. */
#define SPLIT_MAX_GROUPS 64

typedef struct split_config {
  size_t min_n;
  unsigned first_shift, cap_shift, growth;
} split_config;

/* CLSORT_STAGED_SPLIT=MIN_KEYS[:FIRST_SHIFT[:CAP_SHIFT[:GROWTH]]], or 0
 * for never: from how many keys the split runs, and its groups (FIRST_SHIFT
 * 0, the default: one slot's worth). From 2^26 keys by default: on the
 * H100, u32 keys at 2^26 / 2^28 from pageable arrays took 12.88 / 49.00 ms
 * split against 13.49 / 51.01 not, but at 2^24 3.98 against 3.70 (call 4
 * of docs/results/host-split-2026-11-27-h100: the top pass, the read of
 * its digit counts and the first group's launches cost more there than
 * the sort they take off the download's path). */
static split_config split_config_get(void) {
  split_config c = {(size_t)1 << 26, 0, 1, 4};
  unsigned f[4] = {0, 0, 0, 0};
  unsigned got = clsort__env_fields("CLSORT_STAGED_SPLIT", f, 4);
  if (got >= 1) c.min_n = f[0] ? f[0] : SIZE_MAX;
  if (got >= 2 && f[1] <= 16) c.first_shift = f[1];
  if (got >= 3 && f[2] >= 1 && f[2] <= 16) c.cap_shift = f[2];
  if (got >= 4 && f[3] >= 2 && f[3] <= 16) c.growth = f[3];
  return c;
}

static _Thread_local size_t last_split_groups;

size_t clsort__test_split_groups(void) { return last_split_groups; }

/* Whether the job splits: a radix sort on the NVIDIA path of enough keys
 * with more than 8 bits to sort, from pageable arrays (pinned ones already
 * move at the link's rate), with room for the top pass's output. */
static bool splits(clsort_context *ctx, const clsort_options *o, const clsort__sort_job *job,
                   const void *keys_const, const void *values) {
  size_t n = job->n, ks = clsort_type_size(job->type), vs = job->value_size;
  if (n < split_config_get().min_n || job->end_bit - job->begin_bit <= 8) return false;
  if (!clsort__runs_radix(ctx, o, job) || !clsort__radix_splits_top(ctx)) return false;
  if (clsort__is_pinned(ctx, keys_const, n * ks)) return false;
  if (vs && !job->make_index && clsort__is_pinned(ctx, values, n * vs)) return false;
  return clsort__fits_in_core_with(ctx, job, (double)n * (double)(ks + vs));
}

/* The groups' bounds in the output: digit boundaries from the top pass's
 * starts (starts[256] = n). Returns how many. */
static size_t plan_groups(const size_t starts[257], size_t n, split_config c, size_t slot_keys,
                          size_t *bounds) {
  size_t target = c.first_shift ? n >> c.first_shift : slot_keys;
  size_t g = 0, cap = clsort__max(n >> c.cap_shift, 1);
  target = clsort__max(target, 1);
  bounds[0] = 0;
  for (size_t d = 1; d < 256 && g + 2 < SPLIT_MAX_GROUPS; d++) {
    if (starts[d] - bounds[g] < target || starts[d] >= n) continue;
    bounds[++g] = starts[d];
    target = clsort__min(c.growth * target, cap);
  }
  bounds[++g] = n;
  return g;
}

/* One split sort: the groups and what the download's hook needs. The
 * groups' launches are enqueued by a thread of their own: NVIDIA's OpenCL
 * takes 10-12 us of host time a launch, eight a group, which the host
 * thread that copies the download out of the pinned slots cannot spare
 * (at 2^24 u32 keys that cost more than the split saved: call 1). */
typedef struct split {
  clsort_context *ctx;
  clsort__sort_job sub;  /* the groups' sort, less its buffers and n */
  cl_mem tk, tv;         /* the top pass's output, then the result */
  cl_mem kbuf, vbuf;     /* the upload, then where each group sorts */
  size_t ks, vs, groups;
  size_t keys_piece; /* the download's piece of keys (values come first) */
  size_t bounds[SPLIT_MAX_GROUPS + 1];
  cl_event done[SPLIT_MAX_GROUPS];
  /* The enqueuing thread: groups [0, ready) have their done[] events, or
   * it stopped at a failure (failed, message). Under lock. */
  pthread_t thread;
  bool started;
  pthread_mutex_t lock;
  pthread_cond_t changed;
  size_t ready;
  clsort_status failed;
  char message[512];
} split;

/* Group g: its keys (and values) from the top pass's output to the start
 * of the upload's buffers, free once the top pass has read them (sorts
 * take buffers from their start; the in-order queue keeps each group's
 * copy behind the last one's), sorted there, and back: the groups lie in
 * the output in order, so the download reads it in whole slots, as the
 * plain staged sort's does (call 3: a read per group cost 0.2-0.3 ms at
 * 2^24). done[g] completes with it. */
static clsort_status copy(clsort_context *ctx, cl_mem from, size_t from_at, cl_mem to,
                          size_t to_at, size_t bytes) {
  return CL_CHECK(
      clEnqueueCopyBuffer(ctx->queue, from, to, from_at, to_at, bytes, 0, NULL, NULL));
}

static clsort_status enqueue_group(split *s, size_t g) {
  clsort_context *ctx = s->ctx;
  size_t first = s->bounds[g], len = s->bounds[g + 1] - first;
  if (len >= 2) {
    FORWARD_IF_ERROR(copy(ctx, s->tk, first * s->ks, s->kbuf, 0, len * s->ks));
    if (s->vs) FORWARD_IF_ERROR(copy(ctx, s->tv, first * s->vs, s->vbuf, 0, len * s->vs));
    clsort__sort_job job = s->sub;
    job.n = len;
    job.keys_in = job.keys_out = s->kbuf;
    job.vals_in = job.vals_out = s->vs ? s->vbuf : NULL;
    FORWARD_IF_ERROR(clsort__radix_sort(ctx, &job));
    FORWARD_IF_ERROR(copy(ctx, s->kbuf, 0, s->tk, first * s->ks, len * s->ks));
    if (s->vs) FORWARD_IF_ERROR(copy(ctx, s->vbuf, 0, s->tv, first * s->vs, len * s->vs));
  }
  FORWARD_IF_ERROR(clsort__marker(ctx, &s->done[g]));
  return CL_CHECK(clFlush(ctx->queue));
}

/* The enqueuing thread: every group in order, each announced. */
static void *enqueue_groups(void *arg) {
  split *s = arg;
  for (size_t g = 0; g < s->groups; g++) {
    clsort_status st = enqueue_group(s, g);
    pthread_mutex_lock(&s->lock);
    if (st == CLSORT_SUCCESS) {
      s->ready = g + 1;
    } else {
      s->failed = st;
      snprintf(s->message, sizeof s->message, "%s", clsort_last_error_message());
    }
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    if (st != CLSORT_SUCCESS) break;
  }
  return NULL;
}

static clsort_status start_enqueuing(split *s) {
  /* The thread takes no signals: they stay with the caller's threads. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int err = pthread_create(&s->thread, NULL, enqueue_groups, s);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  RETURN_IF(err != 0, CLSORT_ERROR_OUT_OF_MEMORY, "could not start a thread for the split's "
            "launches (pthread_create: %d)", err);
  s->started = true;
  return CLSORT_SUCCESS;
}

/* The download's hook: bytes [0, end) of piece i (the values, then the
 * keys, or the one of them the call downloads) are final once the group
 * that holds their last element is, available once the thread has
 * enqueued it (waited for when `block`). The first call starts the
 * thread: from then on, until it is joined, this thread allocates nothing
 * (the fault injection's counter is the context's). */
static clsort_status group_ready(void *arg, size_t i, size_t end, bool block, cl_event *ready,
                                 bool *available) {
  split *s = arg;
  size_t es = s->vs && s->keys_piece != i ? s->vs : s->ks, last = (end + es - 1) / es - 1, g = 0;
  while (s->bounds[g + 1] <= last) g++;
  if (!s->started) FORWARD_IF_ERROR(start_enqueuing(s));
  pthread_mutex_lock(&s->lock);
  while (block && s->ready <= g && s->failed == CLSORT_SUCCESS)
    pthread_cond_wait(&s->changed, &s->lock);
  *available = s->ready > g;
  clsort_status st = *available ? CLSORT_SUCCESS : s->failed;
  pthread_mutex_unlock(&s->lock);
  RETURN_IF(st != CLSORT_SUCCESS, st, "%s", s->message);
  *ready = *available ? s->done[g] : NULL;
  return CLSORT_SUCCESS;
}

/* The split sort, after the upload: the top pass from kbuf into the
 * split's own buffers, then the groups sorted through kbuf and vbuf, each
 * downloaded as soon as it is back. */
static clsort_status run_split(clsort_context *ctx, clsort__sort_job job, split *s, void *keys,
                               void *values) {
  size_t n = job.n;
  clsort_status st;
  GOTO_IF_ERROR(clsort__scratch(ctx, SLOT_HOST_OUT, n * s->ks, &s->tk));
  if (s->vs) GOTO_IF_ERROR(clsort__scratch(ctx, SLOT_HOST_OUT_VALUES, n * s->vs, &s->tv));
  clsort__sort_job top = job;
  top.begin_bit = job.end_bit - 8;
  top.keys_out = s->tk;
  top.vals_out = s->tv;
  size_t starts[257];
  GOTO_IF_ERROR(clsort__radix_split_top(ctx, &top, starts));
  /* A group holds several digits: its sort covers the whole range (the
   * top digit's pass is skipped where the group has one digit). */
  s->sub = job;
  s->sub.make_index = false;
  size_t first_es = s->vs ? s->vs : s->ks;
  s->groups = plan_groups(starts, n, split_config_get(), ctx->staging_slot_bytes / first_es,
                          s->bounds);
  clsort__piece down[2];
  size_t count = 0;
  if (s->vs) down[count++] = (clsort__piece){s->tv, 0, values, n * s->vs};
  s->keys_piece = count;
  if (keys) down[count++] = (clsort__piece){s->tk, 0, keys, n * s->ks};
  last_split_groups = s->groups;
  clsort__debug("split sort of %zu keys by bits [%u, %u): %zu groups, the first %zu keys", n,
                top.begin_bit, top.end_bit, s->groups, s->bounds[1]);
  GOTO_IF_ERROR(clsort__download_when(ctx, down, count, 0, NULL, group_ready, s));
cleanup:
  return st;
}

static clsort_status sort_split(clsort_context *ctx, clsort__sort_job job, void *keys,
                                const void *keys_const, void *values) {
  size_t n = job.n;
  split *s = clsort__malloc(ctx, sizeof *s);
  RETURN_IF(!s, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for a split's plan");
  memset(s, 0, sizeof *s);
  s->ctx = ctx;
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->changed, NULL);
  s->ks = clsort_type_size(job.type);
  s->vs = job.value_size;
  cl_event ready = NULL, uploaded = NULL;
  clsort_status st;
  GOTO_IF_ERROR(clsort__scratch(ctx, SLOT_HOST_IN, n * s->ks, &s->kbuf));
  if (s->vs) GOTO_IF_ERROR(clsort__scratch(ctx, SLOT_HOST_AUX, n * s->vs, &s->vbuf));
  GOTO_IF_ERROR(clsort__marker(ctx, &ready));
  clsort__piece up[2] = {{s->kbuf, 0, (void *)keys_const, n * s->ks},
                         {s->vbuf, 0, values, n * s->vs}};
  GOTO_IF_ERROR(clsort__upload(ctx, up, s->vs && !job.make_index ? 2 : 1, 1, &ready, &uploaded));
  GOTO_IF_ERROR(clsort__begin(ctx, 1, &uploaded));
  job.keys_in = s->kbuf;
  job.vals_in = job.make_index ? NULL : s->vbuf;
  GOTO_IF_ERROR(run_split(ctx, job, s, keys, values));
cleanup:
  /* The thread ends once every group is enqueued or one failed. */
  if (s->started) pthread_join(s->thread, NULL);
  if (st != CLSORT_SUCCESS) {
    clFinish(ctx->queue);
    clsort__transfer_finish(ctx);
  }
  pthread_cond_destroy(&s->changed);
  pthread_mutex_destroy(&s->lock);
  for (size_t g = 0; g < SPLIT_MAX_GROUPS; g++) release(&s->done[g]);
  release(&ready);
  release(&uploaded);
  free(s);
  return st;
}

clsort_status clsort__sort_staged(clsort_context *ctx, const clsort_options *o,
                                  clsort__sort_job job, void *keys, const void *keys_const,
                                  void *values) {
  last_split_groups = 0;
  if (splits(ctx, o, &job, keys_const, values))
    return sort_split(ctx, job, keys, keys_const, values);
  size_t n = job.n, key_bytes = n * clsort_type_size(job.type), value_bytes = n * job.value_size;
  cl_mem kbuf, vbuf = NULL;
  cl_event ready = NULL, uploaded = NULL, sorted = NULL;
  clsort_status st;
  /* With the debug log on, each step's end, from this call's start: the
   * host time that nothing overlaps shows up between the transfers. */
  bool trace = clsort__debug_enabled();
  double t0 = trace ? clsort__now_ms() : 0, at[6] = {0};
#define STEP(i) (trace ? (void)(at[i] = clsort__now_ms() - t0) : (void)0)
  GOTO_IF_ERROR(clsort__scratch(ctx, SLOT_HOST_IN, key_bytes, &kbuf));
  if (job.value_size) GOTO_IF_ERROR(clsort__scratch(ctx, SLOT_HOST_AUX, value_bytes, &vbuf));
  /* The uploads run on their own queue: they start after whatever the
   * context's queue holds (an earlier call may still read these buffers). */
  GOTO_IF_ERROR(clsort__marker(ctx, &ready));
  STEP(0);
  clsort__piece up[2] = {{kbuf, 0, (void *)keys_const, key_bytes},
                         {vbuf, 0, values, value_bytes}};
  bool send_values = job.value_size && !job.make_index;
  GOTO_IF_ERROR(clsort__upload(ctx, up, send_values ? 2 : 1, 1, &ready, &uploaded));
  STEP(1);
  GOTO_IF_ERROR(clsort__begin(ctx, 1, &uploaded));
  STEP(2);
  job.keys_in = kbuf;
  job.keys_out = job.make_index ? NULL : kbuf;
  job.vals_in = job.make_index ? NULL : vbuf;
  job.vals_out = vbuf;
  GOTO_IF_ERROR(clsort__dispatch_sort(ctx, o, &job));
  STEP(3);
  GOTO_IF_ERROR(clsort__marker(ctx, &sorted));
  STEP(4);
  clsort__piece down[2];
  size_t count = 0;
  if (job.value_size) down[count++] = (clsort__piece){vbuf, 0, values, value_bytes};
  if (keys) down[count++] = (clsort__piece){kbuf, 0, keys, key_bytes};
  GOTO_IF_ERROR(clsort__download(ctx, down, count, 1, &sorted));
  STEP(5);
  clsort__debug("staged sort of %zu keys, ms from the call's start: buffers %.3f, upload %.3f, "
                "wait for it %.3f, sort enqueued %.3f, marker %.3f, download %.3f",
                n, at[0], at[1], at[2], at[3], at[4], at[5]);
#undef STEP
cleanup:
  if (st != CLSORT_SUCCESS) {
    /* Nothing may still read or write the caller's arrays. */
    clFinish(ctx->queue);
    clsort__transfer_finish(ctx);
  }
  release(&ready);
  release(&uploaded);
  release(&sorted);
  return st;
}
