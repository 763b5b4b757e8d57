/* host_arrays.c: the distributed sort's host arrays (its copy of the local
 * data and the exchange's receive buffers), aligned to a page: a CPU
 * device (PoCL wants 128 bytes) then sorts them in place, with no copy. Not
 * pinned through the context: pinning costs more per call than staging
 * through the context's own pinned buffers saves.
 *
 * Every call writes them fresh, and faulting in fresh pages (the kernel
 * zeroes each one) in the one thread that first writes them, inside
 * MPI_Alltoallv or a memcpy, took about half the exchange's time (2 ranks,
 * 2^22 keys each, PoCL host). So large ones are aligned to 2 MiB and asked
 * for transparent huge pages, and the receive buffers' pages are touched
 * first by several threads at once (CLSORT_MPI_PRETOUCH=0 leaves that
 * out, for the benchmark to compare). Only those: a buffer that a memcpy
 * fills next gains nothing from a second pass (H100 host, PoCL, 2^24 keys
 * per rank: touching every array moved the cost into the local sort). */
#include "mpi_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { HUGE_PAGE = 2 << 20, PAGE = 4096, MAX_TOUCHERS = 16 };
/* Below this a second thread costs more than it saves. */
#define BYTES_PER_TOUCHER ((size_t)16 << 20)

typedef struct touch_share {
  unsigned char *begin, *end;
} touch_share;

static void *touch(void *arg) {
  touch_share *s = arg;
  for (volatile unsigned char *p = s->begin; p < s->end; p += PAGE) *p = 0;
  return NULL;
}

static void pretouch(unsigned char *p, size_t bytes, unsigned most) {
  const char *env = getenv("CLSORT_MPI_PRETOUCH");
  if (env && strcmp(env, "0") == 0) return;
  size_t threads = bytes / BYTES_PER_TOUCHER;
  if (threads > most) threads = most;
  if (threads > MAX_TOUCHERS) threads = MAX_TOUCHERS;
  if (threads < 2) return;
  pthread_t tid[MAX_TOUCHERS];
  touch_share share[MAX_TOUCHERS];
  bool started[MAX_TOUCHERS];
  size_t pages = (bytes + PAGE - 1) / PAGE;
  for (size_t t = 0; t < threads; t++) {
    share[t].begin = p + pages * t / threads * PAGE;
    share[t].end = p + pages * (t + 1) / threads * PAGE;
    if (share[t].end > p + bytes) share[t].end = p + bytes;
    started[t] = pthread_create(&tid[t], NULL, touch, &share[t]) == 0;
    if (!started[t]) touch(&share[t]); /* no thread: this one touches the share */
  }
  for (size_t t = 0; t < threads; t++)
    if (started[t]) pthread_join(tid[t], NULL);
}

unsigned clsort_mpi__touch_threads(MPI_Comm comm) {
  int local_rank, ranks;
  clsort_mpi__node_ranks(comm, &local_rank, &ranks);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  long share = (online > 0 ? online : 1) / (ranks > 0 ? ranks : 1);
  return share > 1 ? (unsigned)share : 1;
}

clsort_status clsort_mpi__array_alloc(size_t bytes, unsigned touchers, clsort_mpi__array *a) {
  a->ptr = NULL;
  if (bytes == 0) return CLSORT_SUCCESS;
  size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : PAGE;
  size_t rounded = (bytes + align - 1) / align * align;
  a->ptr = aligned_alloc(align, rounded);
  if (!a->ptr)
    return clsort_mpi__fail(CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for %zu bytes", bytes);
#ifdef MADV_HUGEPAGE
  if (align == HUGE_PAGE) madvise(a->ptr, rounded, MADV_HUGEPAGE); /* a hint: failure is fine */
#endif
  pretouch(a->ptr, rounded, touchers);
  return CLSORT_SUCCESS;
}

void clsort_mpi__array_free(clsort_mpi__array *a) {
  free(a->ptr);
  a->ptr = NULL;
}
