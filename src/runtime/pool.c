/* pool.c: the context's host threads, for the copies into and out of
 * pinned staging memory and the out-of-core sort's host work: one thread's
 * memcpy reaches 8-10 GB/s, a PCIe 5 link 55 GB/s each way. Made at first
 * use, joined when the context is released.
 *
 * A staged transfer hands the pool one job per slot, thousands a second.
 * Woken through a condition variable alone, 15 workers took the lock one
 * after another and a job cost 80-150 us before any byte moved (H100 host:
 * 1 MiB slots copied at 11 GB/s). So both sides spin a while before they
 * sleep: workers on the job counter, the caller on the count of workers
 * still busy; the condition variables serve only the ones asleep. */
#include "runtime/runtime.h"

#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

#define MAX_THREADS 256
/* How long a thread spins before it sleeps: longer than the gap between
 * two slots' jobs (about 0.2 ms at 8 MiB a slot), short beside any sort. */
#define SPIN_NS 300000L

typedef struct clsort__pool {
  pthread_t threads[MAX_THREADS];
  unsigned workers; /* threads started; the caller is one more */
  pthread_mutex_t lock;
  pthread_cond_t go, done;
  atomic_ulong generation; /* bumped for each job, after its fields are set */
  atomic_uint busy;        /* workers still running the job */
  atomic_bool quit;
  unsigned sleepers;    /* workers waiting on `go` (under the lock) */
  bool caller_asleep;   /* the caller waits on `done` (under the lock) */
  clsort__task fn;
  void *arg;
  unsigned count;
} clsort__pool;

/* Thread `id` of `threads` runs the tasks id, id + threads, ... */
static void run_share(clsort__pool *p, unsigned id, unsigned threads) {
  for (unsigned i = id; i < p->count; i += threads) p->fn(p->arg, i, p->count);
}

static long elapsed_ns(const struct timespec *since) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - since->tv_sec) * 1000000000L + (now.tv_nsec - since->tv_nsec);
}

/* Spins until done(p, arg) holds or SPIN_NS pass; true if it holds. */
static bool spin_until(clsort__pool *p, bool (*done)(clsort__pool *, unsigned long),
                       unsigned long arg) {
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (unsigned i = 1;; i++) {
    if (done(p, arg)) return true;
    if (i % 64 == 0) {
      if (elapsed_ns(&start) > SPIN_NS) return false;
      /* With more threads than free cores, the one being waited for may
       * need this core. */
      sched_yield();
    }
    CPU_RELAX();
  }
}

static bool job_posted(clsort__pool *p, unsigned long seen) {
  return atomic_load_explicit(&p->generation, memory_order_acquire) != seen ||
         atomic_load_explicit(&p->quit, memory_order_acquire);
}

static bool workers_done(clsort__pool *p, unsigned long unused) {
  (void)unused;
  return atomic_load_explicit(&p->busy, memory_order_acquire) == 0;
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
  for (;;) {
    if (!spin_until(p, job_posted, seen)) {
      pthread_mutex_lock(&p->lock);
      p->sleepers++;
      while (!job_posted(p, seen)) pthread_cond_wait(&p->go, &p->lock);
      p->sleepers--;
      pthread_mutex_unlock(&p->lock);
    }
    if (atomic_load_explicit(&p->quit, memory_order_acquire)) break;
    seen = atomic_load_explicit(&p->generation, memory_order_acquire);
    run_share(p, id, p->workers + 1);
    /* The last one out wakes the caller if it went to sleep; the caller
     * reads `busy` under the lock before it sleeps, so no wake is lost. */
    if (atomic_fetch_sub_explicit(&p->busy, 1, memory_order_acq_rel) == 1) {
      pthread_mutex_lock(&p->lock);
      if (p->caller_asleep) pthread_cond_signal(&p->done);
      pthread_mutex_unlock(&p->lock);
    }
  }
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
  /* A transfer's last slots halve down to 1 MiB (CLSORT_STAGING_RAMP=KIB,
   * 0 for whole slots throughout). */
  ctx->staging_ramp_bytes = (size_t)1 << 20;
  if (clsort__env_fields("CLSORT_STAGING_RAMP", f, 1) == 1 &&
      clsort__env_field_ok("CLSORT_STAGING_RAMP", "KIB", f[0], 0, 1u << 20, ENV_ANY))
    ctx->staging_ramp_bytes = (size_t)f[0] << 10;
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
  atomic_init(&p->generation, 0);
  atomic_init(&p->busy, 0);
  atomic_init(&p->quit, false);
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
  /* The previous job is over (busy reached 0), so no worker reads these. */
  p->fn = fn;
  p->arg = arg;
  p->count = count;
  atomic_store_explicit(&p->busy, p->workers, memory_order_relaxed);
  pthread_mutex_lock(&p->lock);
  atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
  if (p->sleepers > 0) pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->lock);
  run_share(p, 0, p->workers + 1);
  if (!spin_until(p, workers_done, 0)) {
    pthread_mutex_lock(&p->lock);
    p->caller_asleep = true;
    while (!workers_done(p, 0)) pthread_cond_wait(&p->done, &p->lock);
    p->caller_asleep = false;
    pthread_mutex_unlock(&p->lock);
  }
}

void clsort__pool_release(clsort_context *ctx) {
  clsort__pool *p = ctx->pool;
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  atomic_store_explicit(&p->quit, true, memory_order_release);
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->lock);
  for (unsigned i = 0; i < p->workers; i++) pthread_join(p->threads[i], NULL);
  pthread_cond_destroy(&p->go);
  pthread_cond_destroy(&p->done);
  pthread_mutex_destroy(&p->lock);
  free(p);
  ctx->pool = NULL;
}
