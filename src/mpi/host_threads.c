/* host_threads.c: helper threads for the distributed sort's host work on
 * large arrays: faulting in a fresh buffer's pages, and the copy of the
 * part of an exchange that stays on this rank. One thread's memcpy or
 * page faults reach a fraction of the host's memory bandwidth, and while
 * the calling thread is inside MPI (the only thread that calls it) the
 * helpers can move this rank's own data beside it. */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { PAGE = 4096 };

size_t clsort_mpi__helper_bytes(void) {
  const char *text = getenv("CLSORT_MPI_HELPER_BYTES");
  if (text && *text) {
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end == '\0' && v >= PAGE) return (size_t)v;
  }
  return (size_t)16 << 20;
}

unsigned clsort_mpi__host_threads(MPI_Comm comm) {
  int local_rank, ranks;
  clsort_mpi__node_ranks(comm, &local_rank, &ranks);
  const char *text = getenv("CLSORT_MPI_HOST_THREADS");
  if (text && *text) {
    char *end;
    unsigned long v = strtoul(text, &end, 10);
    if (*end == '\0' && v >= 1 && v <= CLSORT_MPI_MAX_HELPERS) return (unsigned)v;
  }
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  long share = (online > 0 ? online : 1) / (ranks > 0 ? ranks : 1);
  return share > 1 ? (unsigned)share : 1;
}

static void *run_share(void *arg) {
  clsort_mpi__share *s = arg;
  if (s->src)
    memcpy(s->dst, s->src, s->bytes);
  else
    for (volatile unsigned char *p = s->dst; p < s->dst + s->bytes; p += PAGE) *p = 0;
  return NULL;
}

void clsort_mpi__helpers_start(clsort_mpi__helpers *h, void *dst, const void *src, size_t bytes,
                               unsigned most) {
  size_t least = clsort_mpi__helper_bytes(), threads = bytes / least;
  if (threads > most) threads = most;
  if (threads > CLSORT_MPI_MAX_HELPERS) threads = CLSORT_MPI_MAX_HELPERS;
  if (threads < 1) threads = 1;
  h->count = (unsigned)threads;
  /* Shares of whole pages, so that two threads never touch one page. */
  size_t pages = (bytes + PAGE - 1) / PAGE;
  for (size_t t = 0; t < threads; t++) {
    clsort_mpi__share *s = &h->share[t];
    size_t lo = pages * t / threads * PAGE, hi = pages * (t + 1) / threads * PAGE;
    if (hi > bytes) hi = bytes;
    if (lo > hi) lo = hi;
    s->dst = (unsigned char *)dst + lo;
    s->src = src ? (const unsigned char *)src + lo : NULL;
    s->bytes = hi - lo;
    h->started[t] = bytes >= least && pthread_create(&h->tid[t], NULL, run_share, s) == 0;
  }
}

void clsort_mpi__helpers_finish(clsort_mpi__helpers *h) {
  /* A share whose thread did not start is done here, by the caller. */
  for (unsigned t = 0; t < h->count; t++) {
    if (h->started[t])
      pthread_join(h->tid[t], NULL);
    else
      run_share(&h->share[t]);
  }
  h->count = 0;
}

unsigned clsort_mpi__threads_for(uint64_t elements, size_t unit, unsigned most) {
  size_t least = clsort_mpi__helper_bytes();
  if (least > ((size_t)1 << 20)) least = (size_t)1 << 20;
  uint64_t useful = elements / (least / unit + 1) + 1;
  if (most > useful) most = (unsigned)useful;
  if (most > CLSORT_MPI_MAX_HELPERS) most = CLSORT_MPI_MAX_HELPERS;
  return most > 0 ? most : 1;
}

typedef struct thread_arg {
  void (*fn)(void *, unsigned);
  void *arg;
  unsigned t;
} thread_arg;

static void *thread_main(void *raw) {
  thread_arg *a = raw;
  a->fn(a->arg, a->t);
  return NULL;
}

void clsort_mpi__run_threads(unsigned count, void (*fn)(void *arg, unsigned t), void *arg) {
  pthread_t tid[CLSORT_MPI_MAX_HELPERS];
  thread_arg args[CLSORT_MPI_MAX_HELPERS];
  bool started[CLSORT_MPI_MAX_HELPERS] = {false};
  if (count > CLSORT_MPI_MAX_HELPERS) count = CLSORT_MPI_MAX_HELPERS;
  for (unsigned t = 1; t < count; t++) {
    args[t] = (thread_arg){fn, arg, t};
    started[t] = pthread_create(&tid[t], NULL, thread_main, &args[t]) == 0;
  }
  fn(arg, 0);
  for (unsigned t = 1; t < count; t++) {
    if (started[t])
      pthread_join(tid[t], NULL);
    else
      fn(arg, t); /* no thread for it: this one does its share */
  }
}
