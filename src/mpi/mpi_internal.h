/* mpi_internal.h: what the files of libclsort-mpi share. The library builds
 * on the public headers only (include/clsort.h, include/clsort_mpi.h). */
#ifndef CLSORT_MPI_INTERNAL_H
#define CLSORT_MPI_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "clsort_mpi.h"

/* ----------------------------------------------------------- context.c */
/* This rank's place among the ranks of comm on its node (shared memory),
 * and their count; 0 and 1 when MPI cannot tell. Collective. */
void clsort_mpi__node_ranks(MPI_Comm comm, int *local_rank, int *local_size);

/* ------------------------------------------------------------ errors.c */
/* Records this thread's message for a failure found on this rank alone. */
clsort_status clsort_mpi__fail(clsort_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void clsort_mpi__clear_error(void);
/* Makes a local status collective: every rank returns the lowest status
 * any rank passed, with the message of the first rank that had it. */
clsort_status clsort_mpi__agree(MPI_Comm comm, clsort_status local);

/* -------------------------------------------------------- host_arrays.c */
/* A host array of the sort's own, page-aligned; with touchers > 1 its
 * pages are faulted in by up to that many threads before it returns.
 * Large ones go back to a small cache when freed, for the next array. */
typedef struct clsort_mpi__array {
  void *ptr;
  size_t capacity; /* bytes the block holds (its size in the cache) */
} clsort_mpi__array;
clsort_status clsort_mpi__array_alloc(size_t bytes, unsigned touchers, clsort_mpi__array *a);
void clsort_mpi__array_free(clsort_mpi__array *a);

/* -------------------------------------------------------- host_threads.c */
/* This rank's share of its node's cores (collective over comm): the most
 * helper threads its host work takes. CLSORT_MPI_HOST_THREADS=N (1 to
 * CLSORT_MPI_MAX_HELPERS) sets it instead, so that tests on few cores
 * reach the threads. */
unsigned clsort_mpi__host_threads(MPI_Comm comm);

#define CLSORT_MPI_MAX_HELPERS 16
/* Bytes per helper thread: below this a thread costs more than it saves.
 * 16 MiB; CLSORT_MPI_HELPER_BYTES lowers it, so that tests reach the
 * threads with small data. */
size_t clsort_mpi__helper_bytes(void);
typedef struct clsort_mpi__share {
  unsigned char *dst;
  const unsigned char *src; /* NULL: touch dst's pages */
  size_t bytes;
} clsort_mpi__share;
typedef struct clsort_mpi__helpers {
  pthread_t tid[CLSORT_MPI_MAX_HELPERS];
  bool started[CLSORT_MPI_MAX_HELPERS];
  clsort_mpi__share share[CLSORT_MPI_MAX_HELPERS];
  unsigned count;
} clsort_mpi__helpers;
/* Starts copying `bytes` from src to dst (src NULL: writing one byte of
 * every page of dst, to fault it in) on up to `most` threads, one share of
 * whole pages each; small jobs start no thread. The caller may go on (into
 * MPI) while they run; clsort_mpi__helpers_finish waits for them and does
 * any share whose thread did not start. */
void clsort_mpi__helpers_start(clsort_mpi__helpers *h, void *dst, const void *src, size_t bytes,
                               unsigned most);
void clsort_mpi__helpers_finish(clsort_mpi__helpers *h);
/* Threads for a pass over `elements` of `unit` bytes: one per 1 MiB at
 * least (less where CLSORT_MPI_HELPER_BYTES says so, for the tests), at
 * most `most` and CLSORT_MPI_MAX_HELPERS, at least 1. */
unsigned clsort_mpi__threads_for(uint64_t elements, size_t unit, unsigned most);
/* Runs fn(arg, t) for every t below count (at most CLSORT_MPI_MAX_HELPERS):
 * t = 0 on the calling thread, the others on threads of their own, all
 * joined before it returns; a share whose thread cannot start is done by
 * the caller. */
void clsort_mpi__run_threads(unsigned count, void (*fn)(void *arg, unsigned t), void *arg);

/* ---------------------------------------------------------- key_order.c */
/* A key mapped to an unsigned number whose ascending order is libclsort's
 * order of the key (descending: reversed), so that one comparison serves
 * every type and direction. */
uint64_t clsort_mpi__order_key(clsort_type type, const void *keys, size_t i, bool descending);
/* The same map with its constants worked out once, for loops over many
 * keys (the host merge): clsort_mpi__order_of(&o, keys, i) with
 * o = clsort_mpi__order_for(type, descending). */
typedef struct clsort_mpi__order {
  size_t ks;
  unsigned top;      /* the sign bit's place: 8 ks - 1 */
  uint64_t fixed;    /* flipped in every key: the sign bit (signed, floats), all (descending) */
  uint64_t negative; /* flipped too in keys with the sign bit set (floats: all but the sign) */
} clsort_mpi__order;
clsort_mpi__order clsort_mpi__order_for(clsort_type type, bool descending);
/* Without branches on the type, so that loops over random keys (the
 * partition, the merge) mispredict nothing; a constant o->ks (a caller
 * specialised by key size) leaves one load. */
static inline uint64_t clsort_mpi__order_of(const clsort_mpi__order *o, const void *keys,
                                            size_t i) {
  const unsigned char *p = (const unsigned char *)keys + i * o->ks;
  uint64_t u = 0;
  if (o->ks == 4) {
    uint32_t v;
    memcpy(&v, p, 4);
    u = v;
  } else if (o->ks == 8) {
    memcpy(&u, p, 8);
  } else if (o->ks == 2) {
    uint16_t v;
    memcpy(&v, p, 2);
    u = v;
  } else {
    u = *p;
  }
  return u ^ o->fixed ^ ((0 - ((u >> o->top) & 1)) & o->negative);
}

/* One element of 1, 2, 4 or 8 bytes (or any size), copied by a constant-
 * size memcpy where it can, for the hot loops. */
static inline void clsort_mpi__copy_element(unsigned char *dst, const unsigned char *src,
                                            size_t size) {
  switch (size) {
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 2: memcpy(dst, src, 2); break;
    default: memcpy(dst, src, size);
  }
}

/* ---------------------------------------------------------- exchange.c */
/* An all-to-all of bytes: counts and displacements per peer, in bytes.
 * One MPI_Alltoallv when every count and displacement fits in an int (or
 * MPI_Alltoallv_c with MPI 4), else rounds of point-to-point messages of
 * at most the limit each. *rounds receives 0 for one collective, else the
 * number of rounds. Every rank reaches the same choice; when its small
 * tables cannot be allocated on some rank, every rank returns
 * MPI_ERR_NO_MEM before any data moves. This rank's own part is copied
 * by up to `threads` helper threads while the caller is inside MPI. */
int clsort_mpi__alltoallv(const void *send, const uint64_t *send_counts,
                          const uint64_t *send_displs, void *recv, const uint64_t *recv_counts,
                          const uint64_t *recv_displs, MPI_Comm comm, unsigned threads,
                          uint64_t *rounds);

/* ---------------------------------------------------------- splitters.c */
/* A splitter: the first element (in (key, rank, index) order) of a
 * destination; valid 0 for one above every element. */
typedef struct clsort_mpi__splitter {
  uint64_t order; /* clsort_mpi__order_key of its key */
  uint64_t pos;   /* its index on its rank */
  int32_t rank;
  int32_t valid;
} clsort_mpi__splitter;
/* The splitters of destinations 1 .. size - 1 into splitters[0 .. size - 2]
 * from samples of every rank's input (n elements of keys; regular samples
 * of a sorted input, else stratified random ones), chosen so that
 * destination d's data starts near global position targets[d] (rank d's
 * first; targets[size] = the total). Collective; a failure (host memory)
 * is agreed, as clsort_mpi__agree. */
clsort_status clsort_mpi__choose_splitters(MPI_Comm comm, clsort_type type, bool descending,
                                           const void *keys, size_t n, bool sorted,
                                           const uint64_t *targets,
                                           clsort_mpi__splitter *splitters);
/* Where this rank's sorted run (n elements) is cut for each destination:
 * cuts[0] = 0 <= cuts[1] <= ... <= cuts[size] = n; destination d gets
 * [cuts[d], cuts[d + 1]). `targets[d]` is the global position where rank
 * d's slice starts (targets[size] = the total), so that the exchange
 * already brings each rank close to its final slice. Collective; a
 * failure (host memory) is agreed, as clsort_mpi__agree. */
clsort_status clsort_mpi__cut_runs(MPI_Comm comm, clsort_type type, bool descending,
                                   const void *keys, size_t n, const uint64_t *targets,
                                   uint64_t *cuts);

/* ---------------------------------------------------------- partition.c */
/* This rank's unsorted input (n elements of keys, and values of value_size
 * bytes or NULL) scattered into out_keys / out_values as one run per
 * destination (size of them, by the size - 1 splitters), each in input
 * order; counts[d] gets run d's length. Up to `threads` threads. */
clsort_status clsort_mpi__partition(clsort_type type, bool descending, int rank, int size,
                                    const clsort_mpi__splitter *splitters, const void *keys,
                                    const void *values, size_t value_size, uint64_t n,
                                    void *out_keys, void *out_values, uint64_t *counts,
                                    unsigned threads);

/* ---------------------------------------------------------- merge.c */
/* Merges `runs` sorted runs lying one after another in keys (run r starts
 * at starts[r], starts[runs] = the end) into out_keys, ties in run order
 * (stable); values (value_size bytes, or NULL) move with their keys. Up to
 * `threads` threads (this one among them) merge a range of the output
 * each. */
clsort_status clsort_mpi__merge_runs(clsort_type type, bool descending, const void *keys,
                                     const void *values, size_t value_size,
                                     const uint64_t *starts, int runs, void *out_keys,
                                     void *out_values, unsigned threads);

#endif
