/* sort.c: clsort_mpi_sort and clsort_mpi_sort_pairs, the phases in order:
 * checks, local sort, sampling, exchange, merge, rebalance. */
#include "mpi_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local clsort_mpi_stats last_stats;
static _Thread_local clsort_mpi_flow last_flow = CLSORT_MPI_SORT_FIRST;

clsort_mpi_flow clsort_mpi_last_flow(void) { return last_flow; }

clsort_status clsort_mpi_last_stats(clsort_mpi_stats *stats) {
  if (!stats) return CLSORT_ERROR_INVALID_ARGUMENT;
  *stats = last_stats;
  return CLSORT_SUCCESS;
}

/* One call's arrays and settings. */
typedef struct job {
  clsort_context *ctx;
  MPI_Comm comm;
  int rank, size;
  clsort_type type;
  size_t key_size, value_size; /* value_size 0: keys only */
  clsort_options options;
  bool descending;
  void *keys, *values;
  uint64_t n;
  uint64_t *targets; /* size + 1: where each rank's slice starts, then the total */
  unsigned host_threads; /* helper threads for host work (host_threads.c) */
  bool partition_first;  /* the flow: see choose_flow */
  clsort_mpi_stats stats;
} job;

/* The checks one rank can make alone. */
static clsort_status check_local(const job *j, bool pairs) {
  size_t ks = clsort_type_size(j->type);
  if (!j->ctx) return clsort_mpi__fail(CLSORT_ERROR_INVALID_ARGUMENT, "ctx is NULL");
  if (ks == 0)
    return clsort_mpi__fail(CLSORT_ERROR_INVALID_ARGUMENT, "unknown key type %d", (int)j->type);
  if (j->n > 0 && !j->keys)
    return clsort_mpi__fail(CLSORT_ERROR_INVALID_ARGUMENT, "keys is NULL with n_local = %llu",
                            (unsigned long long)j->n);
  if (pairs && j->n > 0 && !j->values)
    return clsort_mpi__fail(CLSORT_ERROR_INVALID_ARGUMENT, "values is NULL with n_local = %llu",
                            (unsigned long long)j->n);
  if (pairs && j->value_size != 4 && j->value_size != 8)
    return clsort_mpi__fail(CLSORT_ERROR_INVALID_ARGUMENT, "value_size %zu is not 4 or 8",
                            j->value_size);
  if (j->n > SIZE_MAX / 3 / (ks + (pairs ? 8 : 0)))
    return clsort_mpi__fail(CLSORT_ERROR_TOO_LARGE,
                            "n_local = %llu: its arrays' bytes overflow size_t",
                            (unsigned long long)j->n);
  if (j->options.flags & ~(unsigned)(CLSORT_DESCENDING | CLSORT_STABLE))
    return clsort_mpi__fail(CLSORT_ERROR_INVALID_ARGUMENT, "unknown flags 0x%x",
                            j->options.flags);
  if ((unsigned)j->options.algorithm > (unsigned)CLSORT_QUICK)
    return clsort_mpi__fail(CLSORT_ERROR_INVALID_ARGUMENT, "unknown algorithm %d",
                            (int)j->options.algorithm);
  if (j->options.begin_bit != 0 || (j->options.end_bit != 0 && j->options.end_bit != 8 * ks))
    return clsort_mpi__fail(CLSORT_ERROR_UNSUPPORTED,
                            "bit ranges are not supported by the distributed sort");
  return CLSORT_SUCCESS;
}

/* The settings every rank must share, compared through their minimum and
 * maximum over the ranks. */
static clsort_status check_agreement(const job *j) {
  static const char *const names[] = {"key type", "flags", "algorithm", "begin_bit",
                                      "end_bit",  "value_size"};
  enum { FIELDS = 6 };
  long long v[2 * FIELDS] = {j->type,
                             j->options.flags,
                             j->options.algorithm,
                             j->options.begin_bit,
                             j->options.end_bit == 0 ? 8 * (long long)j->key_size
                                                     : j->options.end_bit,
                             (long long)j->value_size};
  for (int i = 0; i < FIELDS; i++) v[FIELDS + i] = -v[i];
  MPI_Allreduce(MPI_IN_PLACE, v, 2 * FIELDS, MPI_LONG_LONG, MPI_MAX, j->comm);
  for (int i = 0; i < FIELDS; i++)
    if (v[i] != -v[FIELDS + i])
      return clsort_mpi__fail(CLSORT_ERROR_INVALID_ARGUMENT,
                              "the ranks disagree on the %s (from %lld to %lld)", names[i],
                              -v[FIELDS + i], v[i]);
  return CLSORT_SUCCESS;
}

/* Sorts n elements of (keys, values) on the device; a libclsort failure
 * keeps its own message. */
static clsort_status device_sort(const job *j, void *keys, void *values, uint64_t n) {
  clsort_status st =
      j->value_size ? clsort_sort_pairs(j->ctx, j->type, keys, values, j->value_size, n, &j->options)
                    : clsort_sort(j->ctx, j->type, keys, n, &j->options);
  if (st != CLSORT_SUCCESS)
    return clsort_mpi__fail(st, "%s", clsort_last_error_message());
  return CLSORT_SUCCESS;
}

/* Counts (elements) and displacements to bytes for the exchange. */
static void to_bytes(const uint64_t *counts, const uint64_t *starts, int size, size_t unit,
                     uint64_t *byte_counts, uint64_t *byte_displs) {
  for (int p = 0; p < size; p++) {
    byte_counts[p] = counts[p] * unit;
    byte_displs[p] = starts[p] * unit;
  }
}

static clsort_status mpi_status(int err, const char *what) {
  if (err == MPI_SUCCESS) return CLSORT_SUCCESS;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(err, text, &len);
  return clsort_mpi__fail(err == MPI_ERR_NO_MEM ? CLSORT_ERROR_OUT_OF_MEMORY
                                                : CLSORT_ERROR_INVALID_ARGUMENT,
                          "%s: %s", what, text);
}

/* Moves keys and values: element counts and starts per peer, both sides. */
static clsort_status exchange(const job *j, const void *keys, const void *values,
                              uint64_t *tables, void *out_keys, void *out_values,
                              uint64_t *rounds) {
  int P = j->size;
  uint64_t *sc = tables, *sd = sc + P, *rc = sd + P, *rd = rc + P;
  uint64_t *bsc = rd + P, *bsd = bsc + P, *brc = bsd + P, *brd = brc + P;
  to_bytes(sc, sd, P, j->key_size, bsc, bsd);
  to_bytes(rc, rd, P, j->key_size, brc, brd);
  int err = clsort_mpi__alltoallv(keys, bsc, bsd, out_keys, brc, brd, j->comm, j->host_threads,
                                  rounds);
  if (err == MPI_SUCCESS && j->value_size) {
    to_bytes(sc, sd, P, j->value_size, bsc, bsd);
    to_bytes(rc, rd, P, j->value_size, brc, brd);
    err = clsort_mpi__alltoallv(values, bsc, bsd, out_values, brc, brd, j->comm, j->host_threads,
                                rounds);
  }
  return mpi_status(err, "the exchange");
}

/* The received runs into one sorted sequence: nothing to do for one run; a
 * stable re-sort on the device (radix passes cost the same whatever the
 * order) or, with CLSORT_MPI_MERGE=host, the host threads' k-way merge
 * into new arrays. The re-sort stays the default on CPU devices too: on
 * the H100 host's 16 cores (PoCL 5.0, 2^24 u32 keys a rank) the host merge
 * took 36-38 ms against 38-59 on 2 ranks, but 172-209 against 86-87 on 4
 * (uniform keys; 63-70 ms for Zipf and few-unique ones). */
static clsort_status merge(job *j, clsort_mpi__array *keys, clsort_mpi__array *values,
                           uint64_t m, const uint64_t *starts) {
  int runs = 0;
  for (int p = 0; p < j->size; p++) runs += starts[p + 1] > starts[p];
  if (runs <= 1) return CLSORT_SUCCESS;
  const char *how = getenv("CLSORT_MPI_MERGE");
  bool host = how && strcmp(how, "host") == 0;
  if (!host) return device_sort(j, keys->ptr, values->ptr, m);
  clsort_mpi__array out_keys, out_values = {NULL, 0};
  clsort_status st = clsort_mpi__array_alloc(m * j->key_size, 0, &out_keys);
  if (st == CLSORT_SUCCESS && j->value_size)
    st = clsort_mpi__array_alloc(m * j->value_size, 0, &out_values);
  if (st == CLSORT_SUCCESS)
    st = clsort_mpi__merge_runs(j->type, j->descending, keys->ptr, values->ptr, j->value_size,
                                starts, j->size, out_keys.ptr, out_values.ptr, j->host_threads);
  if (st != CLSORT_SUCCESS) {
    clsort_mpi__array_free(&out_keys);
    clsort_mpi__array_free(&out_values);
    return st;
  }
  clsort_mpi__array_free(keys);
  clsort_mpi__array_free(values);
  *keys = out_keys;
  *values = out_values;
  return CLSORT_SUCCESS;
}

/* Rank r holds global positions [held[r], held[r + 1]) and must end with
 * [targets[r], targets[r + 1]): each overlap moves, most of them to self. */
static void rebalance_plan(const job *j, const uint64_t *held, uint64_t *tables) {
  int P = j->size, r = j->rank;
  uint64_t *sc = tables, *sd = sc + P, *rc = sd + P, *rd = rc + P;
  for (int p = 0; p < P; p++) {
    uint64_t lo = held[r] > j->targets[p] ? held[r] : j->targets[p];
    uint64_t hi = held[r + 1] < j->targets[p + 1] ? held[r + 1] : j->targets[p + 1];
    sc[p] = hi > lo ? hi - lo : 0;
    sd[p] = hi > lo ? lo - held[r] : 0;
    lo = held[p] > j->targets[r] ? held[p] : j->targets[r];
    hi = held[p + 1] < j->targets[r + 1] ? held[p + 1] : j->targets[r + 1];
    rc[p] = hi > lo ? hi - lo : 0;
    rd[p] = hi > lo ? lo - j->targets[r] : 0;
  }
}

/* A phase's start time. With CLSORT_MPI_PHASE_BARRIERS=1 (the benchmark
 * sets it) every rank first waits for the others, so that each phase's
 * time is its own and not the wait for a slower rank's previous phase. */
static double phase_start(const job *j) {
  const char *text = getenv("CLSORT_MPI_PHASE_BARRIERS");
  if (text && strcmp(text, "1") == 0) MPI_Barrier(j->comm);
  return MPI_Wtime();
}

/* Sort-first: a copy of the input (so that the caller's arrays stay as
 * they were until the last phase, whatever fails) sorted on the device,
 * then cut at splitters from regular samples; counts[p] gets the length
 * of the piece for rank p. */
static clsort_status sort_and_cut(job *j, clsort_mpi__array *keys, clsort_mpi__array *values,
                                  uint64_t *counts) {
  double t = MPI_Wtime();
  clsort_status st = clsort_mpi__array_alloc(j->n * j->key_size, 0, keys);
  if (st == CLSORT_SUCCESS && j->value_size)
    st = clsort_mpi__array_alloc(j->n * j->value_size, 0, values);
  if (st == CLSORT_SUCCESS && j->n > 0) {
    memcpy(keys->ptr, j->keys, j->n * j->key_size);
    if (j->value_size) memcpy(values->ptr, j->values, j->n * j->value_size);
    st = device_sort(j, keys->ptr, values->ptr, j->n);
  }
  st = clsort_mpi__agree(j->comm, st);
  j->stats.seconds[CLSORT_MPI_LOCAL_SORT] = MPI_Wtime() - t;
  if (st != CLSORT_SUCCESS) return st;

  t = phase_start(j);
  uint64_t *cuts = counts + 8 * (size_t)j->size; /* P + 1 entries, free until the rebalance */
  st = clsort_mpi__cut_runs(j->comm, j->type, j->descending, keys->ptr, j->n, j->targets, cuts);
  for (int p = 0; p < j->size && st == CLSORT_SUCCESS; p++) counts[p] = cuts[p + 1] - cuts[p];
  j->stats.seconds[CLSORT_MPI_SAMPLING] = MPI_Wtime() - t;
  return st;
}

/* Partition-first: splitters from random samples of the caller's input,
 * then the input scattered into one run per destination in new arrays
 * (the caller's stay as they were); counts[p] gets run p's length. */
static clsort_status partition_input(job *j, clsort_mpi__array *keys, clsort_mpi__array *values,
                                     uint64_t *counts) {
  double t = MPI_Wtime();
  clsort_mpi__splitter *splitters = calloc((size_t)j->size, sizeof *splitters);
  clsort_status st = clsort_mpi__agree(
      j->comm, splitters ? CLSORT_SUCCESS
                         : clsort_mpi__fail(CLSORT_ERROR_OUT_OF_MEMORY,
                                            "no host memory for %d splitters", j->size));
  if (st == CLSORT_SUCCESS)
    st = clsort_mpi__choose_splitters(j->comm, j->type, j->descending, j->keys, j->n, false,
                                      j->targets, splitters);
  j->stats.seconds[CLSORT_MPI_SAMPLING] = MPI_Wtime() - t;

  t = phase_start(j);
  if (st == CLSORT_SUCCESS) {
    st = clsort_mpi__array_alloc(j->n * j->key_size, 0, keys);
    if (st == CLSORT_SUCCESS && j->value_size)
      st = clsort_mpi__array_alloc(j->n * j->value_size, 0, values);
    if (st == CLSORT_SUCCESS)
      st = clsort_mpi__partition(j->type, j->descending, j->rank, j->size, splitters, j->keys,
                                 j->value_size ? j->values : NULL, j->value_size, j->n,
                                 keys->ptr, values->ptr, counts, j->host_threads);
    st = clsort_mpi__agree(j->comm, st);
  }
  free(splitters);
  j->stats.seconds[CLSORT_MPI_LOCAL_SORT] = MPI_Wtime() - t;
  return st;
}

/* The flow, the same on every rank. Partition-first when every rank's
 * device is a CPU: there the host's partition costs less than a second
 * device sort (H100 host, PoCL 5.0, 16 cores shared by 4 ranks, 2^24 u32
 * keys a rank: partition 29-33 ms against a local sort of 105-135; whole
 * sort 148-166 ms against 226-283). Sort-first with any GPU, whose second
 * sort costs less than the host's partition (4 ranks on the H100: 70 ms
 * against 84), and for one rank alone, which sorts once either way.
 * CLSORT_MPI_FLOW=sort-first or =partition-first on any rank chooses
 * (sort-first winning a disagreement). */
static bool choose_flow(const job *j) {
  cl_device_type type = 0;
  if (clGetDeviceInfo(clsort_context_device(j->ctx), CL_DEVICE_TYPE, sizeof type, &type, NULL) !=
      CL_SUCCESS)
    type = 0;
  const char *text = getenv("CLSORT_MPI_FLOW");
  int votes[3] = {text && strcmp(text, "sort-first") == 0,
                  text && strcmp(text, "partition-first") == 0, !(type & CL_DEVICE_TYPE_CPU)};
  MPI_Allreduce(MPI_IN_PLACE, votes, 3, MPI_INT, MPI_MAX, j->comm);
  if (j->size == 1 || votes[0]) return false;
  return votes[1] || !votes[2];
}

static clsort_status run(job *j) {
  int P = j->size;
  clsort_status st = CLSORT_SUCCESS;
  /* 8 tables of P entries for the exchanges, and two prefix tables. */
  uint64_t *tables = calloc(10 * (size_t)P + 2, sizeof *tables);
  uint64_t *held = tables ? tables + 8 * (size_t)P : NULL;
  clsort_mpi__array keys = {NULL, 0}, values = {NULL, 0};
  clsort_mpi__array recv_keys = {NULL, 0}, recv_values = {NULL, 0};
  uint64_t *sc = tables, *sd = sc + P, *rc = sd + P, *rd = rc + P;
  if (!tables) st = clsort_mpi__fail(CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for tables");
  st = clsort_mpi__agree(j->comm, st);
  if (st != CLSORT_SUCCESS) goto cleanup;
  phase_start(j); /* the phases of each flow time themselves */
  if (j->partition_first)
    st = partition_input(j, &keys, &values, sc);
  else
    st = sort_and_cut(j, &keys, &values, sc);
  if (st != CLSORT_SUCCESS) goto cleanup;

  /* Exchange: counts first, then the runs. */
  double t = phase_start(j);
  for (int p = 0; p < P; p++) sd[p] = p ? sd[p - 1] + sc[p - 1] : 0;
  MPI_Alltoall(sc, 1, MPI_UINT64_T, rc, 1, MPI_UINT64_T, j->comm);
  uint64_t m = 0;
  for (int p = 0; p < P; p++) {
    rd[p] = m;
    m += rc[p];
  }
  st = clsort_mpi__array_alloc(m * j->key_size, j->host_threads, &recv_keys);
  if (st == CLSORT_SUCCESS && j->value_size)
    st = clsort_mpi__array_alloc(m * j->value_size, j->host_threads, &recv_values);
  st = clsort_mpi__agree(j->comm, st);
  if (st == CLSORT_SUCCESS)
    st = clsort_mpi__agree(j->comm, exchange(j, keys.ptr, values.ptr, tables, recv_keys.ptr,
                                             recv_values.ptr, &j->stats.exchange_rounds));
  j->stats.exchange_sent_bytes = j->n * (j->key_size + j->value_size);
  j->stats.exchange_received = m;
  clsort_mpi__array_free(&keys);
  clsort_mpi__array_free(&values);
  j->stats.seconds[CLSORT_MPI_EXCHANGE] = MPI_Wtime() - t;
  if (st != CLSORT_SUCCESS) goto cleanup;

  /* Merge: the runs arrived in rank order, each sorted (sort-first) or
   * in input order (partition-first: sorted here, stably where asked). */
  t = phase_start(j);
  uint64_t *starts = held; /* rd plus the end */
  memcpy(starts, rd, (size_t)P * sizeof *starts);
  starts[P] = m;
  if (j->partition_first)
    st = clsort_mpi__agree(j->comm, m > 1 ? device_sort(j, recv_keys.ptr, recv_values.ptr, m)
                                          : CLSORT_SUCCESS);
  else
    st = clsort_mpi__agree(j->comm, merge(j, &recv_keys, &recv_values, m, starts));
  j->stats.seconds[CLSORT_MPI_MERGE] = MPI_Wtime() - t;
  if (st != CLSORT_SUCCESS) goto cleanup;

  /* Rebalance: where every rank's sorted data lies now, then the moves
   * into the caller's arrays. */
  t = phase_start(j);
  held[0] = 0;
  MPI_Allgather(&m, 1, MPI_UINT64_T, held + 1, 1, MPI_UINT64_T, j->comm);
  for (int p = 0; p < P; p++) held[p + 1] += held[p];
  rebalance_plan(j, held, tables);
  uint64_t rounds;
  st = clsort_mpi__agree(j->comm, exchange(j, recv_keys.ptr, recv_values.ptr, tables, j->keys,
                                           j->values, &rounds));
  j->stats.rebalance_sent_bytes =
      (m - sc[j->rank]) * (j->key_size + j->value_size);
  j->stats.seconds[CLSORT_MPI_REBALANCE] = MPI_Wtime() - t;

cleanup:
  clsort_mpi__array_free(&keys);
  clsort_mpi__array_free(&values);
  clsort_mpi__array_free(&recv_keys);
  clsort_mpi__array_free(&recv_values);
  free(tables);
  return st;
}

static clsort_status sort_any(clsort_context *ctx, MPI_Comm comm, clsort_type type, void *keys,
                              void *values, size_t value_size, bool pairs, size_t n_local,
                              const clsort_options *options) {
  clsort_mpi__clear_error();
  int ready = 0;
  MPI_Initialized(&ready);
  if (!ready || comm == MPI_COMM_NULL)
    return clsort_mpi__fail(CLSORT_ERROR_INVALID_ARGUMENT,
                            ready ? "comm is MPI_COMM_NULL" : "MPI is not initialized");
  clsort_options defaults = CLSORT_OPTIONS_DEFAULT;
  job j = {.ctx = ctx,
           .comm = comm,
           .type = type,
           .key_size = clsort_type_size(type),
           .value_size = pairs ? value_size : 0,
           .options = options ? *options : defaults,
           .keys = keys,
           .values = values,
           .n = n_local};
  j.descending = (j.options.flags & CLSORT_DESCENDING) != 0;
  MPI_Comm_rank(comm, &j.rank);
  MPI_Comm_size(comm, &j.size);
  j.host_threads = clsort_mpi__host_threads(comm);

  /* Every check on every rank, before any data moves. */
  clsort_status st = clsort_mpi__agree(comm, check_local(&j, pairs));
  if (st == CLSORT_SUCCESS) st = check_agreement(&j);
  if (st != CLSORT_SUCCESS) return st;
  j.partition_first = choose_flow(&j);

  j.targets = malloc(((size_t)j.size + 1) * sizeof *j.targets);
  st = clsort_mpi__agree(comm, j.targets ? CLSORT_SUCCESS
                                         : clsort_mpi__fail(CLSORT_ERROR_OUT_OF_MEMORY,
                                                            "no host memory for %d counts",
                                                            j.size));
  if (st != CLSORT_SUCCESS) {
    free(j.targets);
    return st;
  }
  j.targets[0] = 0;
  MPI_Allgather(&j.n, 1, MPI_UINT64_T, j.targets + 1, 1, MPI_UINT64_T, comm);
  for (int p = 0; p < j.size; p++) j.targets[p + 1] += j.targets[p];

  st = run(&j);
  free(j.targets);
  if (st == CLSORT_SUCCESS) {
    last_stats = j.stats;
    last_flow = j.partition_first ? CLSORT_MPI_PARTITION_FIRST : CLSORT_MPI_SORT_FIRST;
  }
  return st;
}

clsort_status clsort_mpi_sort(clsort_context *ctx, MPI_Comm comm, clsort_type type, void *keys,
                              size_t n_local, const clsort_options *options) {
  return sort_any(ctx, comm, type, keys, NULL, 0, false, n_local, options);
}

clsort_status clsort_mpi_sort_pairs(clsort_context *ctx, MPI_Comm comm, clsort_type type,
                                    void *keys, void *values, size_t value_size, size_t n_local,
                                    const clsort_options *options) {
  return sort_any(ctx, comm, type, keys, values, value_size, true, n_local, options);
}
