/* par.c: a minimal parallel for-loop over chunks, on OpenMP's thread pool
 * (threads are started once per process, not per call). Built without
 * OpenMP (a compiler without its runtime), the chunks run one after another
 * on the caller's thread: same results, only slower host work. */
#include "par.h"

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

void par_for(size_t n, void (*fn)(size_t, size_t, size_t, void *), void *user) {
  size_t chunks = par_chunks(n);
  size_t per = n / chunks, extra = n % chunks;
  /* One chunk per thread; chunk c starts after the c earlier ones, the
   * first `extra` of which hold one element more. */
#ifdef _OPENMP
#pragma omp parallel for num_threads((int)chunks) schedule(static, 1) if (chunks > 1)
#endif
  for (long c = 0; c < (long)chunks; c++) {
    size_t uc = (size_t)c;
    size_t begin = uc * per + (uc < extra ? uc : extra);
    fn(begin, begin + per + (uc < extra ? 1 : 0), uc, user);
  }
}
