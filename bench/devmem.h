/* devmem.h: device buffers for the benchmark cases: allocate, upload,
 * download, with OpenCL errors mapped to library statuses. */
#ifndef BENCH_DEVMEM_H
#define BENCH_DEVMEM_H

#include "bench.h"

/* Allocates `bytes` (at least 8) on the bench context; *mem is NULL on
 * failure. */
clsort_status dev_alloc(bench_state *s, size_t bytes, cl_mem *mem);
/* Blocking copies between host and device. */
clsort_status dev_write(bench_state *s, cl_mem mem, const void *src, size_t bytes);
clsort_status dev_read(bench_state *s, cl_mem mem, void *dst, size_t bytes);
/* Enqueues a device-to-device copy (not waited for). */
clsort_status dev_copy(bench_state *s, cl_mem src, cl_mem dst, size_t bytes);
/* Releases a buffer if not NULL and clears the handle. */
void dev_free(cl_mem *mem);

#endif
