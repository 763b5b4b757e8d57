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

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { HUGE_PAGE = 2 << 20, PAGE = 4096 };

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
