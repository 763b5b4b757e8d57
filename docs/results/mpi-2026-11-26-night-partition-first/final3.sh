#!/bin/bash
# The final code's MPI tests on the H100 host: PoCL 5.0 on 4 and 7 ranks, the H100 on 2; test_partition; one weak-scaling round.
set -u
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src:$B/src/mpi CLSORT_CACHE_DIR=/tmp/cc POCL_CACHE_DIR=/tmp/pc
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x CLSORT_CACHE_DIR -x POCL_CACHE_DIR"
mkdir -p $OUT/r
cd $B
tests/mpi/test_partition | tail -1
timeout 300 $M -np 4 env POCL_MAX_PTHREAD_COUNT=4 CLSORT_TEST_DEVICE=cpu CLSORT_MPI_KEEP=4096 tests/mpi/test_mpi all > $OUT/r/test-cpu-np4.txt 2>&1; echo "cpu np4 rc $?: $(tail -1 $OUT/r/test-cpu-np4.txt)"
timeout 300 $M -np 7 env POCL_MAX_PTHREAD_COUNT=2 CLSORT_TEST_DEVICE=cpu CLSORT_MPI_KEEP=4096 tests/mpi/test_mpi all > $OUT/r/test-cpu-np7.txt 2>&1; echo "cpu np7 rc $?: $(tail -1 $OUT/r/test-cpu-np7.txt)"
timeout 300 $M -np 2 -x OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 env CLSORT_TEST_DEVICE=NVIDIA CLSORT_MPI_KEEP=4096 tests/mpi/test_mpi all > $OUT/r/test-nv-np2.txt 2>&1; echo "nv np2 rc $?: $(tail -1 $OUT/r/test-nv-np2.txt)"
for P in 1 4; do
  $M -np $P env POCL_MAX_PTHREAD_COUNT=$((16/P)) bench/mpi/clsort-mpi-bench --weak 16777216 --reps 3 --device cpu > $OUT/r/P$P.txt 2>&1
  echo "P$P: $(grep -E 'flow|whole sort|largest' $OUT/r/P$P.txt | tr -s ' ' | tr '\n' ' ')"
done
cd $OUT && tar czf r.tgz r && rm -rf r
