/* par.h: a minimal parallel for-loop over index ranges, for the host work
 * around the measurements (generating inputs, verifying outputs), which
 * would otherwise dominate the run time at 2^28 elements. Pure C on
 * OpenMP (serial where the compiler has none); never used inside a timed
 * region. */
#ifndef BENCH_PAR_H
#define BENCH_PAR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Calls fn(begin, end, chunk, user) for consecutive chunks covering
 * [0, n), in parallel; chunk is the chunk's index, below par_chunks(n).
 * Ranges smaller than a few hundred thousand run on the caller's thread. */
void par_for(size_t n, void (*fn)(size_t begin, size_t end, size_t chunk, void *user), void *user);

/* The number of chunks par_for(n, ...) will use (for per-chunk results). */
size_t par_chunks(size_t n);

#ifdef __cplusplus
}
#endif
#endif
