/* exchange.c: the all-to-all of byte ranges that both exchanges of the sort
 * use, whatever their sizes: MPI's own collective while counts fit its
 * int arguments (or MPI-4's large-count form), rounds of bounded
 * point-to-point messages otherwise. */
#include "mpi_internal.h"

#include <limits.h>
#include <stdlib.h>

/* The most bytes one int-counted message or displacement may hold.
 * CLSORT_MPI_MAX_COUNT lowers it, so that tests reach the rounds with
 * small data; setting it also turns off MPI_Alltoallv_c. */
static uint64_t count_limit(bool *forced) {
  const char *text = getenv("CLSORT_MPI_MAX_COUNT");
  *forced = false;
  if (text && *text) {
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end == '\0' && v > 0 && v <= INT_MAX) {
      *forced = true;
      return v;
    }
  }
  return INT_MAX;
}

static uint64_t largest(const uint64_t *a, const uint64_t *b, int size) {
  uint64_t m = 0;
  for (int i = 0; i < size; i++) {
    if (a[i] > m) m = a[i];
    if (b[i] > m) m = b[i];
  }
  return m;
}

/* One MPI_Alltoallv with int counts; the caller checked that they fit, and
 * copied this rank's own part (its count is 0 here). */
static int alltoallv_int(const void *send, const uint64_t *sc, const uint64_t *sd, void *recv,
                         const uint64_t *rc, const uint64_t *rd, int size, MPI_Comm comm,
                         int *a) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  for (int i = 0; i < size; i++) {
    a[i] = i == rank ? 0 : (int)sc[i];
    a[size + i] = (int)sd[i];
    a[2 * size + i] = i == rank ? 0 : (int)rc[i];
    a[3 * size + i] = (int)rd[i];
  }
  return MPI_Alltoallv(send, a, a + size, MPI_BYTE, recv, a + 2 * size, a + 3 * size, MPI_BYTE,
                       comm);
}

#if MPI_VERSION >= 4
static int alltoallv_large(const void *send, const uint64_t *sc, const uint64_t *sd, void *recv,
                           const uint64_t *rc, const uint64_t *rd, int size, MPI_Comm comm,
                           MPI_Count *c, MPI_Aint *d) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  for (int i = 0; i < size; i++) {
    c[i] = i == rank ? 0 : (MPI_Count)sc[i];
    c[size + i] = i == rank ? 0 : (MPI_Count)rc[i];
    d[i] = (MPI_Aint)sd[i];
    d[size + i] = (MPI_Aint)rd[i];
  }
  return MPI_Alltoallv_c(send, c, d, MPI_BYTE, recv, c + size, d + size, MPI_BYTE, comm);
}
#endif

/* Rounds: in round k each pair exchanges bytes [k * chunk, (k + 1) * chunk)
 * of its range, one message each way; pointers carry the displacements,
 * so none has to fit an int. */
static int alltoallv_rounds(const unsigned char *send, const uint64_t *sc, const uint64_t *sd,
                            unsigned char *recv, const uint64_t *rc, const uint64_t *rd, int size,
                            MPI_Comm comm, uint64_t chunk, uint64_t rounds, MPI_Request *req) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  int err = MPI_SUCCESS;
  for (uint64_t k = 0; k < rounds && err == MPI_SUCCESS; k++) {
    uint64_t at = k * chunk;
    int n = 0;
    for (int p = 0; p < size; p++) {
      if (rc[p] > at && p != rank) {
        uint64_t len = rc[p] - at < chunk ? rc[p] - at : chunk;
        err = MPI_Irecv(recv + rd[p] + at, (int)len, MPI_BYTE, p, 0, comm, &req[n++]);
        if (err != MPI_SUCCESS) break;
      }
    }
    for (int p = 0; p < size && err == MPI_SUCCESS; p++) {
      if (sc[p] > at && p != rank) {
        uint64_t len = sc[p] - at < chunk ? sc[p] - at : chunk;
        err = MPI_Isend(send + sd[p] + at, (int)len, MPI_BYTE, p, 0, comm, &req[n++]);
      }
    }
    int wait = MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    if (err == MPI_SUCCESS) err = wait;
  }
  return err;
}

/* The tables the three paths need, allocated together so that one check
 * covers them: 4 ints, or 2 counts and 2 displacements (MPI-4), and 2
 * requests per peer. */
typedef struct tables {
  int *ints;
  MPI_Request *requests;
#if MPI_VERSION >= 4
  MPI_Count *counts;
  MPI_Aint *displs;
#endif
} tables;

static bool tables_alloc(tables *t, int size) {
  t->ints = malloc(4 * (size_t)size * sizeof *t->ints);
  t->requests = malloc(2 * (size_t)size * sizeof *t->requests);
  bool ok = t->ints && t->requests;
#if MPI_VERSION >= 4
  t->counts = malloc(2 * (size_t)size * sizeof *t->counts);
  t->displs = malloc(2 * (size_t)size * sizeof *t->displs);
  ok = ok && t->counts && t->displs;
#endif
  return ok;
}

static void tables_free(tables *t) {
  free(t->ints);
  free(t->requests);
#if MPI_VERSION >= 4
  free(t->counts);
  free(t->displs);
#endif
}

int clsort_mpi__alltoallv(const void *send, const uint64_t *send_counts,
                          const uint64_t *send_displs, void *recv, const uint64_t *recv_counts,
                          const uint64_t *recv_displs, MPI_Comm comm, unsigned threads,
                          uint64_t *rounds) {
  int size;
  MPI_Comm_size(comm, &size);
  bool forced;
  uint64_t limit = count_limit(&forced);
  tables t;
  bool ok = tables_alloc(&t, size);
  /* Counts and displacements on every rank decide, so that all take the
   * same path: the largest of them all. A rank without its tables sends
   * the largest number, which stops every rank here. */
  uint64_t mine[2] = {largest(send_counts, send_displs, size),
                      largest(recv_counts, recv_displs, size)};
  uint64_t local = ok ? (mine[0] > mine[1] ? mine[0] : mine[1]) : UINT64_MAX, global;
  MPI_Allreduce(&local, &global, 1, MPI_UINT64_T, MPI_MAX, comm);
  *rounds = 0;
  /* This rank's own part by memcpy on every path (through MPI it took
   * several times longer; the rebalance moves nearly all data to self),
   * in helper threads while this one is inside MPI: the copy then costs
   * no time of its own, and several threads copy faster than one. */
  int rank;
  MPI_Comm_rank(comm, &rank);
  clsort_mpi__helpers self = {.count = 0};
  if (global != UINT64_MAX && recv_counts[rank] > 0)
    clsort_mpi__helpers_start(&self, (unsigned char *)recv + recv_displs[rank],
                              (const unsigned char *)send + send_displs[rank], recv_counts[rank],
                              threads);
  int err;
  if (global == UINT64_MAX) {
    err = MPI_ERR_NO_MEM;
  } else if (global <= limit) {
    err = alltoallv_int(send, send_counts, send_displs, recv, recv_counts, recv_displs, size, comm,
                        t.ints);
#if MPI_VERSION >= 4
  } else if (!forced) {
    err = alltoallv_large(send, send_counts, send_displs, recv, recv_counts, recv_displs, size,
                          comm, t.counts, t.displs);
#endif
  } else {
    /* The rounds need only the counts to fit a message. */
    uint64_t most = 0;
    for (int p = 0; p < size; p++) {
      if (p != rank && send_counts[p] > most) most = send_counts[p];
      if (p != rank && recv_counts[p] > most) most = recv_counts[p];
    }
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_UINT64_T, MPI_MAX, comm);
    *rounds = most == 0 ? 1 : (most + limit - 1) / limit;
    err = alltoallv_rounds(send, send_counts, send_displs, recv, recv_counts, recv_displs, size,
                           comm, limit, *rounds, t.requests);
  }
  clsort_mpi__helpers_finish(&self);
  tables_free(&t);
  return err;
}
