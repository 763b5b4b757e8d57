/* par.c: a minimal parallel for-loop on POSIX threads. */
#define _POSIX_C_SOURCE 200809L
#include "par.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* Below this many elements per chunk, threads cost more than they save. */
#define MIN_CHUNK ((size_t)1 << 18)
#define MAX_THREADS 64

static size_t thread_count(void) {
  static size_t cached;
  if (!cached) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    /* CLSORT_BENCH_THREADS=1 makes the host work serial, e.g. to keep a
     * CPU device alone on its cores. */
    const char *env = getenv("CLSORT_BENCH_THREADS");
    if (env && atol(env) > 0) cpus = atol(env);
    cached = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (size_t)cpus;
  }
  return cached;
}

size_t par_chunks(size_t n) {
  size_t chunks = (n + MIN_CHUNK - 1) / MIN_CHUNK;
  size_t threads = thread_count();
  if (chunks > threads) chunks = threads;
  return chunks ? chunks : 1;
}

typedef struct job {
  void (*fn)(size_t, size_t, size_t, void *);
  void *user;
  size_t begin, end, chunk;
} job;

static void *run_job(void *arg) {
  job *j = arg;
  j->fn(j->begin, j->end, j->chunk, j->user);
  return NULL;
}

void par_for(size_t n, void (*fn)(size_t, size_t, size_t, void *), void *user) {
  size_t chunks = par_chunks(n);
  if (chunks == 1) {
    fn(0, n, 0, user);
    return;
  }
  job jobs[MAX_THREADS];
  pthread_t threads[MAX_THREADS];
  int started[MAX_THREADS] = {0};
  size_t per = n / chunks, extra = n % chunks, at = 0;
  for (size_t c = 0; c < chunks; c++) {
    size_t len = per + (c < extra ? 1 : 0);
    jobs[c] = (job){fn, user, at, at + len, c};
    at += len;
  }
  /* Chunk 0 runs here; a thread that cannot start runs inline instead. */
  for (size_t c = 1; c < chunks; c++) {
    started[c] = pthread_create(&threads[c], NULL, run_job, &jobs[c]) == 0;
    if (!started[c]) run_job(&jobs[c]);
  }
  run_job(&jobs[0]);
  for (size_t c = 1; c < chunks; c++) {
    if (started[c]) pthread_join(threads[c], NULL);
  }
}
