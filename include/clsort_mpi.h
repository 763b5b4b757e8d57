/* clsort_mpi.h: the public interface of libclsort-mpi, a distributed sort
 * over MPI in which each rank sorts on its own OpenCL device through
 * libclsort. A separate library (pkg-config libclsort-mpi), so that
 * libclsort itself keeps no MPI dependency.
 *
 * Host memory per rank, beyond the caller's arrays (k = key size, v = value
 * size, 0 for keys only; n = n_local, m = the elements the exchange brings
 * this rank: n plus the sampling error, a few percent of N / P at most):
 * a sorted copy of the input (partition-first: the input in runs per
 * destination, and n bytes of destinations while it is made, up to 256
 * ranks), (k + v) n, freed after the exchange; the
 * receive buffer, (k + v) m; with the host merge (CLSORT_MPI_MERGE=host) a
 * merge output of (k + v) m more; and the samples, 32 s P bytes (s samples
 * per rank, below). Peak: about 3 (k + v) n with the input, for the default
 * device merge; 3 (k + v) n with the host merge too, as the sorted copy is
 * gone by then. Device memory: libclsort's for one host-array sort of
 * max(n, m) elements (larger ones sort out of core, as clsort_sort).
 * Arrays of 2 MiB and more are not given back to the system when a call
 * is done with them but kept, up to 8 blocks per process, for the next
 * array of this call or of a later one, which then finds its pages mapped
 * (no page faults, no zeroing: 8-14% faster whole sorts on the H100 host).
 * The kept blocks are marked MADV_FREE, so the kernel takes their pages
 * back under memory pressure; they stay in the process's address space
 * (and in its resident size until taken). CLSORT_MPI_KEEP=0 keeps none,
 * CLSORT_MPI_KEEP=BYTES keeps arrays from that size on.
 *
 * Threads: before the exchange, up to (the node's cores / the ranks of comm
 * on the node) short-lived threads fault in the receive buffer's pages
 * (the kernel zeroes each page at its first write, which one thread inside
 * MPI_Alltoallv would otherwise do alone); CLSORT_MPI_PRETOUCH=0 in the
 * environment leaves that out. During each exchange as many threads copy
 * the part of the data that stays on this rank, beside the calling
 * thread's MPI call; the partition (partition-first) takes a chunk of the
 * input per thread, and the host merge (CLSORT_MPI_MERGE=host) cuts its
 * output into a range per thread. CLSORT_MPI_HOST_THREADS=N sets the
 * count instead (1 to 16). Only the calling thread calls MPI, so
 * MPI_THREAD_FUNNELED suffices. */
#ifndef CLSORT_MPI_H
#define CLSORT_MPI_H

#include <mpi.h>

#include "clsort.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sorts the global array formed by every rank's `keys` concatenated in
 * rank order, across the ranks of `comm`. Collective: every rank of `comm`
 * calls it, with the same type and options; n_local may differ between
 * ranks and may be 0 (keys may then be NULL). On return rank r holds, in
 * its own `keys`, the r-th slice of the sorted global array: exactly its
 * own n_local elements, so no new buffers are needed.
 *
 * Every key type of clsort_type, ascending or descending (options->flags),
 * in libclsort's total order (floats by bits: -NaN < -inf < ... < +NaN).
 * options->algorithm chooses the local sort on each rank's device (NULL:
 * CLSORT_OPTIONS_DEFAULT). CLSORT_STABLE keeps equal keys in their global
 * input order (by rank, then index); it needs a stable algorithm (AUTO,
 * RADIX or MERGE). Bit ranges (begin_bit/end_bit other than the full key)
 * are not supported here.
 *
 * Algorithm: a sample sort in one of two flows, the same on every rank.
 * Sort-first: a local sort on the device; regular samples of the sorted
 * run (s per rank: 32 P within 64..8192); one MPI_Alltoallv of sorted
 * runs; a merge of the received runs (a stable re-sort on the device;
 * CLSORT_MPI_MERGE=host merges on the host). Partition-first: stratified
 * random samples of the unsorted input (one from each of s blocks, at a
 * place fixed by (rank, block), so that runs repeat; s = 1024 P within
 * 64..8192); in both flows s is at most the largest rank's count, where
 * every element is a sample already; the input scattered by the splitters into one run per
 * destination on the host's threads, each run in input order; one
 * MPI_Alltoallv; one (stable) sort of the received data on the device.
 * Partition-first sorts every key once instead of twice; its balance is
 * statistical (the largest receive within 1.1x the mean by four standard
 * errors at P >= 2) where sort-first's is exact to the sampling blocks.
 * It is the default when every rank's device is a CPU, where the host's
 * partition costs less than a device sort (16 cores shared by 4 ranks,
 * 2^24 u32 keys each: 29-33 ms against 105-135, the whole sort 148-166 ms
 * against 226-283); sort-first with any GPU and for one rank. CLSORT_MPI_FLOW=sort-first or =partition-first on any rank
 * chooses instead (sort-first winning a disagreement);
 * clsort_mpi_last_flow() tells which ran. In both, samples compare as
 * (key, rank, index), so that duplicate and all-equal keys split evenly,
 * and the splitters sit at each rank's own first global position, so that
 * the exchange brings every rank about its own count
 * (CLSORT_MPI_OVERSAMPLING=s sets s); then a second exchange moves only
 * the slices past each rank's own count.
 * Exchanges whose counts or displacements pass INT_MAX bytes use
 * MPI_Alltoallv_c (MPI 4) or else rounds of point-to-point messages;
 * CLSORT_MPI_MAX_COUNT=bytes (a test setting) forces the rounds.
 *
 * Errors are collective: every rank returns the same status, and
 * clsort_mpi_last_error_message() gives every rank the same message, naming
 * the first rank that failed. Arguments are checked on every rank and
 * compared across ranks before any data moves; on any error every rank's
 * arrays are unchanged (the caller's arrays are written only by the last
 * exchange). MPI's own failures follow the communicator's error handler:
 * MPI aborts by default; with MPI_ERRORS_RETURN a failure in that last
 * exchange can leave the arrays part-written.
 *
 * Returns CLSORT_SUCCESS; CLSORT_ERROR_INVALID_ARGUMENT (on any rank: NULL
 * ctx, NULL keys with n_local > 0, unknown type, flags or algorithm; comm
 * MPI_COMM_NULL or MPI not initialized, returned on that rank alone; the
 * ranks disagree on type or options; an MPI error returned, with MPI's
 * text); CLSORT_ERROR_UNSUPPORTED (a bit range; what clsort_sort returns
 * it for on any rank); CLSORT_ERROR_TOO_LARGE (n_local's bytes overflow
 * size_t); CLSORT_ERROR_OUT_OF_MEMORY; or any status of clsort_sort on any
 * rank. Since 0.2. */
CLSORT_API clsort_status clsort_mpi_sort(clsort_context *ctx, MPI_Comm comm, clsort_type type,
                                         void *keys, size_t n_local,
                                         const clsort_options *options);

/* As clsort_mpi_sort, moving `values` (value_size bytes each: 4 or 8, the
 * same on every rank) with their keys. With CLSORT_STABLE the values of
 * equal keys keep their global input order. Returns as clsort_mpi_sort,
 * plus CLSORT_ERROR_INVALID_ARGUMENT for NULL values with n_local > 0, a
 * bad value_size or one that differs between ranks. Since 0.2. */
CLSORT_API clsort_status clsort_mpi_sort_pairs(clsort_context *ctx, MPI_Comm comm,
                                               clsort_type type, void *keys, void *values,
                                               size_t value_size, size_t n_local,
                                               const clsort_options *options);

/* Creates a context for this rank. With device_spec NULL, CLSORT_DEVICE
 * unset and several GPUs on this node, the rank with node-local rank k
 * (from MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED)) takes GPU k mod
 * count, counting GPUs over all platforms in order; otherwise it is
 * clsort_context_create(ctx, device_spec). Collective over `comm`: when
 * any rank fails, every rank releases its context, sets *ctx to NULL and
 * returns the same status (as clsort_context_create). Since 0.2. */
CLSORT_API clsort_status clsort_mpi_context_create(clsort_context **ctx, MPI_Comm comm,
                                                   const char *device_spec);

/* The message of this thread's last failing clsort_mpi_ call, the same on
 * every rank ("rank 2: ..."); empty after a success. Since 0.2. */
CLSORT_API const char *clsort_mpi_last_error_message(void);

/* The phases of a distributed sort, in order. */
typedef enum clsort_mpi_phase {
  /* Sort-first: the copy and sort of this rank's input on its device;
   * partition-first: the input scattered into a run per destination. */
  CLSORT_MPI_LOCAL_SORT = 0,
  CLSORT_MPI_SAMPLING = 1, /* samples gathered, splitters chosen (sort-first: runs cut) */
  CLSORT_MPI_EXCHANGE = 2, /* the all-to-all of the runs (counts included) */
  /* The received runs into one sorted sequence: merged (sort-first), or
   * sorted on the device (partition-first). */
  CLSORT_MPI_MERGE = 3,
  CLSORT_MPI_REBALANCE = 4,  /* back to each rank's own count, into the caller's arrays */
  CLSORT_MPI_PHASES = 5
} clsort_mpi_phase;

/* What this rank saw in the calling thread's last successful
 * clsort_mpi_sort(_pairs): wall seconds per phase (MPI_Wtime, each phase
 * ending at this rank's own finish, so that a phase's time includes any
 * wait for slower ranks at its first collective; the environment variable
 * CLSORT_MPI_PHASE_BARRIERS=1 puts a barrier before each phase instead, so
 * that each phase's time is its own), and the data moved. Since 0.2. */
typedef struct clsort_mpi_stats {
  double seconds[CLSORT_MPI_PHASES];
  uint64_t exchange_sent_bytes;   /* keys and values this rank sent in the exchange (self included) */
  uint64_t exchange_received;     /* elements the exchange brought this rank (its m) */
  uint64_t exchange_rounds;       /* 0: one MPI_Alltoallv(_c); else rounds of the fallback */
  uint64_t rebalance_sent_bytes;  /* bytes this rank sent to other ranks while rebalancing */
} clsort_mpi_stats;

/* Copies the stats of this thread's last successful sort into *stats.
 * Returns CLSORT_SUCCESS, or CLSORT_ERROR_INVALID_ARGUMENT for NULL.
 * Since 0.2. */
CLSORT_API clsort_status clsort_mpi_last_stats(clsort_mpi_stats *stats);

/* The two orders of work (see "Algorithm" at clsort_mpi_sort). */
typedef enum clsort_mpi_flow {
  CLSORT_MPI_SORT_FIRST = 0,     /* local sort, cut at splitters, exchange, merge */
  CLSORT_MPI_PARTITION_FIRST = 1 /* partition at splitters, exchange, one sort */
} clsort_mpi_flow;

/* The flow of this thread's last successful sort (CLSORT_MPI_SORT_FIRST
 * before any). Since 0.3. */
CLSORT_API clsort_mpi_flow clsort_mpi_last_flow(void);

#ifdef __cplusplus
}
#endif

#endif /* CLSORT_MPI_H */
