#!/bin/bash
# One rank per GPU on a 2-GPU machine: weak scaling at 2^26 u32 keys a rank, P = 1, 2, three rounds; the tests.
set -u
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src:$B/src/mpi CLSORT_CACHE_DIR=/tmp/cc
nvidia-smi -L
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x CLSORT_CACHE_DIR -x OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1"
mkdir -p $OUT/r
$M -np 2 $B/bench/mpi/clsort-mpi-bench --weak 1048576 --reps 1 > $OUT/r/warm-up.txt 2>&1
for round in 1 2 3; do
  for P in 1 2; do
    $M -np $P $B/bench/mpi/clsort-mpi-bench --weak 67108864 --reps 3 > $OUT/r/P$P-$round.txt 2>&1
    echo "P$P-$round: $(grep -E 'whole sort|reached|largest|flow' $OUT/r/P$P-$round.txt | tr -s ' ' | tr '\n' ' ')"
  done
done
cd $B
timeout 300 $M -np 2 env CLSORT_TEST_DEVICE=NVIDIA CLSORT_MPI_KEEP=4096 tests/mpi/test_mpi all > $OUT/r/test-np2.txt 2>&1; echo "test np2 rc $?: $(tail -1 $OUT/r/test-np2.txt)"
cd $OUT && tar czf r.tgz r && rm -rf r
