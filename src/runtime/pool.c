/* pool.c: the context's host threads, for the copies into and out of
 * pinned staging memory and the out-of-core sort's host work: one thread's
 * memcpy reaches 8-10 GB/s, a PCIe 5 link 55 GB/s each way. Made at first
 * use, joined when the context is released. */
#include "runtime/runtime.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 256

typedef struct clsort__pool {
  pthread_t threads[MAX_THREADS];
  unsigned workers; /* threads started; the caller is one more */
  pthread_mutex_t lock;
  pthread_cond_t go, done;
  unsigned long generation; /* bumped for each job */
  unsigned busy;            /* workers still running the job */
  bool quit;
  clsort__task fn;
  void *arg;
  unsigned count;
} clsort__pool;

/* Thread `id` of `threads` runs the tasks id, id + threads, ... */
static void run_share(clsort__pool *p, unsigned id, unsigned threads) {
  for (unsigned i = id; i < p->count; i += threads) p->fn(p->arg, i, p->count);
}

typedef struct start_info {
  clsort__pool *pool;
  unsigned id;
} start_info;

static void *worker(void *raw) {
  start_info *info = raw;
  clsort__pool *p = info->pool;
  unsigned id = info->id;
  free(info);
  unsigned long seen = 0;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (p->generation == seen && !p->quit) pthread_cond_wait(&p->go, &p->lock);
    if (p->quit) break;
    seen = p->generation;
    pthread_mutex_unlock(&p->lock);
    run_share(p, id, p->workers + 1);
    pthread_mutex_lock(&p->lock);
    if (--p->busy == 0) pthread_cond_signal(&p->done);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

static unsigned default_threads(void) {
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online < 1) online = 1;
  return (unsigned)(online > 16 ? 16 : online);
}

void clsort__host_settings_from_env(clsort_context *ctx) {
  unsigned f[3];
  ctx->host_threads = default_threads();
  if (clsort__env_fields("CLSORT_HOST_THREADS", f, 1) == 1 &&
      clsort__env_field_ok("CLSORT_HOST_THREADS", "N", f[0], 1, MAX_THREADS, ENV_ANY))
    ctx->host_threads = f[0];
  /* Staging: 6 slots of 8 MiB (48 MiB of pinned memory) unless
   * CLSORT_STAGING=KIB:SLOTS[:FORCE] or CLSORT_STAGING=0 says otherwise. */
  ctx->staging_slot_bytes = (size_t)8 << 20;
  ctx->staging_slots = 6;
  ctx->staging_off = false;
  ctx->staging_force = false;
  ctx->plain_copy = clsort__env_flag("CLSORT_PLAIN_COPY");
  static const char *const name = "CLSORT_STAGING";
  unsigned got = clsort__env_fields(name, f, 3);
  if (got >= 1 && f[0] == 0) {
    ctx->staging_off = true;
  } else if (got >= 2 && clsort__env_field_ok(name, "KIB", f[0], 4, 1u << 20, ENV_ANY) &&
             clsort__env_field_ok(name, "SLOTS", f[1], 2, 16, ENV_ANY)) {
    ctx->staging_slot_bytes = (size_t)f[0] << 10;
    ctx->staging_slots = f[1];
    ctx->staging_force = got >= 3 && f[2] == 1;
  }
}

unsigned clsort__host_thread_count(const clsort_context *ctx) {
  return ctx->host_threads ? ctx->host_threads : 1;
}

/* Starts the workers; with none (one thread wanted, or none could start)
 * the caller runs every task. */
static clsort__pool *make_pool(clsort_context *ctx) {
  clsort__pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  if (pthread_mutex_init(&p->lock, NULL) != 0) {
    free(p);
    return NULL;
  }
  pthread_cond_init(&p->go, NULL);
  pthread_cond_init(&p->done, NULL);
  /* The workers take no signals: they stay with the caller's threads. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  unsigned want = clsort__host_thread_count(ctx) - 1;
  for (unsigned i = 0; i < want; i++) {
    start_info *info = malloc(sizeof *info);
    if (!info) break;
    info->pool = p;
    info->id = i + 1;
    if (pthread_create(&p->threads[i], NULL, worker, info) != 0) {
      free(info);
      break;
    }
    p->workers++;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  clsort__debug("%u host threads", p->workers + 1);
  return p;
}

void clsort__parallel(clsort_context *ctx, unsigned count, clsort__task fn, void *arg) {
  if (count == 0) return;
  if (!ctx->pool && count > 1 && clsort__host_thread_count(ctx) > 1) ctx->pool = make_pool(ctx);
  clsort__pool *p = ctx->pool;
  if (!p || p->workers == 0 || count == 1) {
    for (unsigned i = 0; i < count; i++) fn(arg, i, count);
    return;
  }
  pthread_mutex_lock(&p->lock);
  p->fn = fn;
  p->arg = arg;
  p->count = count;
  p->busy = p->workers;
  p->generation++;
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->lock);
  run_share(p, 0, p->workers + 1);
  pthread_mutex_lock(&p->lock);
  while (p->busy > 0) pthread_cond_wait(&p->done, &p->lock);
  pthread_mutex_unlock(&p->lock);
}

void clsort__pool_release(clsort_context *ctx) {
  clsort__pool *p = ctx->pool;
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  p->quit = true;
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->lock);
  for (unsigned i = 0; i < p->workers; i++) pthread_join(p->threads[i], NULL);
  pthread_cond_destroy(&p->go);
  pthread_cond_destroy(&p->done);
  pthread_mutex_destroy(&p->lock);
  free(p);
  ctx->pool = NULL;
}
