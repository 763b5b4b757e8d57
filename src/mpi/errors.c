/* errors.c: the per-thread message of libclsort-mpi, and the agreement that
 * makes a failure on one rank the same failure on every rank. */
#include "mpi_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { MESSAGE_SIZE = 512 };

/* Per thread, as libclsort's own: calls on other threads keep theirs. */
static _Thread_local char last_message[MESSAGE_SIZE];

const char *clsort_mpi_last_error_message(void) { return last_message; }

void clsort_mpi__clear_error(void) { last_message[0] = '\0'; }

clsort_status clsort_mpi__fail(clsort_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_message, sizeof last_message, fmt, ap);
  va_end(ap);
  return status;
}

clsort_status clsort_mpi__agree(MPI_Comm comm, clsort_status local) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  /* MINLOC: the lowest status, and the lowest rank that has it. */
  struct {
    int status;
    int rank;
  } mine = {(int)local, rank}, first;
  MPI_Allreduce(&mine, &first, 1, MPI_2INT, MPI_MINLOC, comm);
  if (first.status == (int)CLSORT_SUCCESS) return CLSORT_SUCCESS;

  /* Every rank reports the failing rank's own words. */
  char text[MESSAGE_SIZE];
  if (rank == first.rank) snprintf(text, sizeof text, "%s", last_message);
  MPI_Bcast(text, (int)sizeof text, MPI_CHAR, first.rank, comm);
  text[MESSAGE_SIZE - 1] = '\0';
  return clsort_mpi__fail((clsort_status)first.status, "rank %d: %s", first.rank, text);
}
