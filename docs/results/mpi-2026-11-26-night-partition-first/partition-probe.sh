#!/bin/bash
set -u
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src:$B/src/mpi
S=src/mpi
mpicc -O3 -D_DEFAULT_SOURCE -Isrc/mpi -Iinclude tmp-probe/pbench.c $S/partition.c $S/host_threads.c $S/host_arrays.c $S/key_order.c $S/errors.c $S/context.c -L$B/src -lclsort -lOpenCL -lpthread -o /tmp/pbench || exit 1
echo "--- one process"
for T in 1 4 16; do /tmp/pbench 4 $T | head -1; done
echo "--- 4 processes at once, 4 threads each"
for i in 1 2 3 4; do /tmp/pbench 4 4 | head -1 & done; wait
