/* pool.c: the context's host threads, for the copies into and out of
 * pinned staging memory and the out-of-core sort's host work: one thread's
 * memcpy reaches 8-10 GB/s, a PCIe 5 link 55 GB/s each way. Made at first
 * use, joined when the context is released.
 *
 * A staged transfer hands the pool one job per slot, thousands a second.
 * Woken by one condition variable, 15 workers took its lock one after
 * another and a job cost 80-150 us before any byte moved (H100 host: 1 MiB
 * slots copied at 11 GB/s). So each thread that waits spins a little
 * first (back-to-back jobs find it awake) and then sleeps on a semaphore
 * of its own, which the other side posts only if it is asleep: no lock,
 * and the wake-ups run in parallel. The spin is short: spinning 0.3 ms
 * made some sorts twice as slow, a worker that still had its share to copy
 * waiting for a core that the spinning threads held. */
#include "runtime/runtime.h"

#include <errno.h>
#include <sched.h>
#include <semaphore.h>
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
/* How long a waiting thread spins before it sleeps: longer than the gap
 * between two slots' jobs of an upload (the caller enqueues one write). */
#define SPIN_NS 50000L

/* A thread that may sleep: `asleep` is set before it sleeps on `wake`;
 * whoever clears it (the sleeper itself, or the thread that wakes it)
 * decides, so that every post is waited for exactly once. */
typedef struct sleeper {
  sem_t wake;
  atomic_bool asleep;
} sleeper;

typedef struct clsort__pool {
  pthread_t threads[MAX_THREADS];
  sleeper sleepers[MAX_THREADS]; /* one per worker */
  sleeper caller;                /* the thread inside clsort__parallel */
  unsigned workers;              /* threads started; the caller is one more */
  atomic_ulong generation;       /* bumped for each job, after its fields are set */
  atomic_uint busy;              /* workers still running the job */
  atomic_bool quit;
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

static bool job_posted(clsort__pool *p, unsigned long seen) {
  return atomic_load(&p->generation) != seen || atomic_load(&p->quit);
}

static bool workers_done(clsort__pool *p, unsigned long unused) {
  (void)unused;
  return atomic_load(&p->busy) == 0;
}

/* Returns once ready(p, arg) holds: spinning up to SPIN_NS, then asleep on
 * s until the thread that makes it hold wakes it (wake_sleeper). The
 * sequentially consistent flag and condition make one of the two see the
 * other: the sleeper sees the condition, or the waker sees the flag. */
static void wait_until(clsort__pool *p, sleeper *s, bool (*ready)(clsort__pool *, unsigned long),
                       unsigned long arg) {
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (unsigned i = 1;; i++) {
    if (ready(p, arg)) return;
    if (i % 64 == 0) {
      if (elapsed_ns(&start) > SPIN_NS) break;
      /* With more threads than free cores, the one being waited for may
       * need this core. */
      sched_yield();
    }
    CPU_RELAX();
  }
  while (!ready(p, arg)) {
    atomic_store(&s->asleep, true);
    if (ready(p, arg) && atomic_exchange(&s->asleep, false)) return; /* nobody posted */
    while (sem_wait(&s->wake) != 0 && errno == EINTR) {
    }
  }
}

static void wake_sleeper(sleeper *s) {
  if (atomic_exchange(&s->asleep, false)) sem_post(&s->wake);
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
    wait_until(p, &p->sleepers[id - 1], job_posted, seen);
    if (atomic_load(&p->quit)) break;
    seen = atomic_load(&p->generation);
    run_share(p, id, p->workers + 1);
    if (atomic_fetch_sub(&p->busy, 1) == 1) wake_sleeper(&p->caller);
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
  if (sem_init(&p->caller.wake, 0, 0) != 0) {
    free(p);
    return NULL;
  }
  atomic_init(&p->caller.asleep, false);
  atomic_init(&p->generation, 0);
  atomic_init(&p->busy, 0);
  atomic_init(&p->quit, false);
  /* The workers take no signals: they stay with the caller's threads. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  unsigned want = clsort__host_thread_count(ctx) - 1;
  for (unsigned i = 0; i < want; i++) {
    if (sem_init(&p->sleepers[i].wake, 0, 0) != 0) break;
    atomic_init(&p->sleepers[i].asleep, false);
    start_info *info = malloc(sizeof *info);
    if (!info) {
      sem_destroy(&p->sleepers[i].wake);
      break;
    }
    info->pool = p;
    info->id = i + 1;
    if (pthread_create(&p->threads[i], NULL, worker, info) != 0) {
      free(info);
      sem_destroy(&p->sleepers[i].wake);
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
  atomic_store(&p->busy, p->workers);
  atomic_fetch_add(&p->generation, 1);
  for (unsigned i = 0; i < p->workers; i++) wake_sleeper(&p->sleepers[i]);
  run_share(p, 0, p->workers + 1);
  wait_until(p, &p->caller, workers_done, 0);
}

void clsort__pool_release(clsort_context *ctx) {
  clsort__pool *p = ctx->pool;
  if (!p) return;
  atomic_store(&p->quit, true);
  for (unsigned i = 0; i < p->workers; i++) wake_sleeper(&p->sleepers[i]);
  for (unsigned i = 0; i < p->workers; i++) {
    pthread_join(p->threads[i], NULL);
    sem_destroy(&p->sleepers[i].wake);
  }
  sem_destroy(&p->caller.wake);
  free(p);
  ctx->pool = NULL;
}
