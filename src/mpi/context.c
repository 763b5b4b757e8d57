/* context.c: clsort_mpi_context_create, one device per rank: the ranks of a
 * node share its GPUs out by their node-local rank. */
#include "mpi_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* The GPUs of every platform, counted in platform and device order; *spec
 * receives "P:D" for GPU number `pick` mod their count, D its index among
 * all of platform P's devices (as clsort_context_create reads "P:D").
 * Returns the count. */
static unsigned count_gpus(unsigned pick, char *spec, size_t spec_size) {
  enum { MAX_PLATFORMS = 16, MAX_DEVICES = 64 };
  cl_platform_id platforms[MAX_PLATFORMS];
  cl_uint np = 0;
  if (clGetPlatformIDs(MAX_PLATFORMS, platforms, &np) != CL_SUCCESS) return 0;
  if (np > MAX_PLATFORMS) np = MAX_PLATFORMS;
  /* Two passes: count, then find GPU number pick mod count. */
  unsigned total = 0, want = 0;
  for (int pass = 0; pass < 2; pass++) {
    unsigned seen = 0;
    for (cl_uint p = 0; p < np; p++) {
      cl_device_id devices[MAX_DEVICES];
      cl_uint nd = 0;
      if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devices, &nd) !=
          CL_SUCCESS)
        continue;
      if (nd > MAX_DEVICES) nd = MAX_DEVICES;
      for (cl_uint d = 0; d < nd; d++) {
        cl_device_type type = 0;
        clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
        if (!(type & CL_DEVICE_TYPE_GPU)) continue;
        if (pass == 1 && seen == want) {
          snprintf(spec, spec_size, "%u:%u", (unsigned)p, (unsigned)d);
          return total;
        }
        seen++;
      }
    }
    total = seen;
    if (total == 0) return 0;
    want = pick % total;
  }
  return total;
}

void clsort_mpi__node_ranks(MPI_Comm comm, int *local_rank, int *local_size) {
  int rank;
  *local_rank = 0;
  *local_size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, local_rank);
    MPI_Comm_size(node, local_size);
    MPI_Comm_free(&node);
  }
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
  int local_rank, local_size;
  clsort_mpi__node_ranks(comm, &local_rank, &local_size);

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
