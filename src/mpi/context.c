/* context.c: clsort_mpi_context_create, one device per rank: the ranks of a
 * node share its GPUs out by their node-local rank. */
#include "mpi_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* The GPUs of every platform, counted in platform order; *spec receives
 * "P:D" for GPU number `pick` mod their count. Returns the count. */
static unsigned count_gpus(unsigned pick, char *spec, size_t spec_size) {
  cl_uint platforms = 0;
  if (clGetPlatformIDs(0, NULL, &platforms) != CL_SUCCESS || platforms == 0) return 0;
  cl_platform_id *ids = malloc(platforms * sizeof *ids);
  cl_uint *gpus = calloc(platforms, sizeof *gpus);
  unsigned total = 0;
  if (ids && gpus && clGetPlatformIDs(platforms, ids, NULL) == CL_SUCCESS) {
    for (cl_uint p = 0; p < platforms; p++) {
      if (clGetDeviceIDs(ids[p], CL_DEVICE_TYPE_GPU, 0, NULL, &gpus[p]) != CL_SUCCESS) gpus[p] = 0;
      total += gpus[p];
    }
    unsigned k = total ? pick % total : 0;
    for (cl_uint p = 0; p < platforms && total; p++) {
      if (k < gpus[p]) {
        snprintf(spec, spec_size, "%u:%u", (unsigned)p, k);
        break;
      }
      k -= gpus[p];
    }
  }
  free(ids);
  free(gpus);
  return total;
}

clsort_status clsort_mpi_context_create(clsort_context **ctx, MPI_Comm comm,
                                        const char *device_spec) {
  clsort_mpi__clear_error();
  if (ctx) *ctx = NULL;
  int ready = 0;
  MPI_Initialized(&ready);
  if (!ready || comm == MPI_COMM_NULL)
    return clsort_mpi__fail(CLSORT_ERROR_INVALID_ARGUMENT,
                            ready ? "comm is MPI_COMM_NULL" : "MPI is not initialized");

  /* The node-local rank: collective, so every rank takes part even when
   * its own arguments are bad. */
  int rank, local_rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
  }

  clsort_status st;
  char spec[32] = "";
  const char *env = getenv("CLSORT_DEVICE");
  if (!ctx) {
    st = clsort_mpi__fail(CLSORT_ERROR_INVALID_ARGUMENT, "ctx is NULL");
  } else {
    if (!device_spec && !(env && *env) && count_gpus((unsigned)local_rank, spec, sizeof spec) > 1)
      device_spec = spec;
    st = clsort_context_create(ctx, device_spec);
    if (st != CLSORT_SUCCESS)
      clsort_mpi__fail(st, "device \"%s\": %s", device_spec ? device_spec : "(default)",
                       clsort_last_error_message());
  }
  st = clsort_mpi__agree(comm, st);
  if (st != CLSORT_SUCCESS && ctx) {
    clsort_context_release(*ctx);
    *ctx = NULL;
  }
  return st;
}
