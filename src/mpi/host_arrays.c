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
 * per rank: touching every array moved the cost into the local sort).
 *
 * And a large array, freed, goes to a cache of a few blocks instead of
 * back to the system: the next array of the same call (the merge's output
 * takes the local copy's block) or of the next call takes it with its
 * pages still mapped, so nothing faults or is zeroed again. The cached
 * blocks are marked MADV_FREE: the kernel may still take their pages
 * under memory pressure (a later write then faults a zeroed page in, as
 * for a fresh block), so the cache holds no memory the system needs.
 * Arrays of 2 MiB and more are kept; CLSORT_MPI_KEEP=BYTES sets that
 * least size (the tests keep small arrays too, so that their many calls
 * reuse blocks), CLSORT_MPI_KEEP=0 turns the cache off (for the benchmark
 * to compare). */
#include "mpi_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { HUGE_PAGE = 2 << 20, PAGE = 4096, CACHE_SLOTS = 8 };

static struct {
  void *ptr;
  size_t capacity;
} cache[CACHE_SLOTS];
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

/* The least size of a kept array; SIZE_MAX: none kept. */
static size_t keep_from(void) {
  const char *env = getenv("CLSORT_MPI_KEEP");
  if (env && *env) {
    char *end;
    unsigned long long v = strtoull(env, &end, 10);
    if (*end == '\0') return v == 0 ? SIZE_MAX : v < PAGE ? PAGE : (size_t)v;
  }
  return HUGE_PAGE;
}

/* The smallest cached block of `bytes` or more, and at most four times
 * that (a small array does not hold a large block), or NULL. */
static void *cache_take(size_t bytes, size_t *capacity) {
  pthread_mutex_lock(&cache_lock);
  int best = -1;
  for (int i = 0; i < CACHE_SLOTS; i++)
    if (cache[i].ptr && cache[i].capacity >= bytes && cache[i].capacity / 4 <= bytes &&
        (best < 0 || cache[i].capacity < cache[best].capacity))
      best = i;
  void *p = NULL;
  if (best >= 0) {
    p = cache[best].ptr;
    *capacity = cache[best].capacity;
    cache[best].ptr = NULL;
  }
  pthread_mutex_unlock(&cache_lock);
  return p;
}

/* Keeps a block for a later array; with the cache full, the smallest of
 * the cached blocks and this one goes back to the system. */
static void cache_put(void *p, size_t capacity) {
#ifdef MADV_FREE
  madvise(p, capacity, MADV_FREE); /* a hint: failure leaves the pages kept */
#endif
  pthread_mutex_lock(&cache_lock);
  int slot = -1;
  for (int i = 0; i < CACHE_SLOTS && slot < 0; i++)
    if (!cache[i].ptr) slot = i;
  if (slot < 0) {
    slot = 0;
    for (int i = 1; i < CACHE_SLOTS; i++)
      if (cache[i].capacity < cache[slot].capacity) slot = i;
    if (cache[slot].capacity > capacity) {
      pthread_mutex_unlock(&cache_lock);
      free(p);
      return;
    }
    free(cache[slot].ptr);
  }
  cache[slot].ptr = p;
  cache[slot].capacity = capacity;
  pthread_mutex_unlock(&cache_lock);
}

static void pretouch(unsigned char *p, size_t bytes, unsigned most) {
  const char *env = getenv("CLSORT_MPI_PRETOUCH");
  if (env && strcmp(env, "0") == 0) return;
  /* One thread alone would only fault the pages in earlier, not faster. */
  if (most < 2 || bytes < 2 * clsort_mpi__helper_bytes()) return;
  clsort_mpi__helpers h;
  clsort_mpi__helpers_start(&h, p, NULL, bytes, most);
  clsort_mpi__helpers_finish(&h);
}

clsort_status clsort_mpi__array_alloc(size_t bytes, unsigned touchers, clsort_mpi__array *a) {
  a->ptr = NULL;
  a->capacity = 0;
  if (bytes == 0) return CLSORT_SUCCESS;
  size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : PAGE;
  size_t rounded = (bytes + align - 1) / align * align;
  if (rounded >= keep_from()) a->ptr = cache_take(rounded, &a->capacity);
  if (!a->ptr) {
    a->ptr = aligned_alloc(align, rounded);
    if (!a->ptr)
      return clsort_mpi__fail(CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for %zu bytes", bytes);
    a->capacity = rounded;
#ifdef MADV_HUGEPAGE
    if (align == HUGE_PAGE) madvise(a->ptr, rounded, MADV_HUGEPAGE); /* a hint: failure is fine */
#endif
  }
  pretouch(a->ptr, rounded, touchers);
  return CLSORT_SUCCESS;
}

void clsort_mpi__array_free(clsort_mpi__array *a) {
  if (a->ptr && a->capacity >= keep_from())
    cache_put(a->ptr, a->capacity);
  else
    free(a->ptr);
  a->ptr = NULL;
  a->capacity = 0;
}
