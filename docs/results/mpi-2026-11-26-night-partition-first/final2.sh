#!/bin/bash
# Partition-first against sort-first, weak scaling on PoCL 5.0 (16 cores) and on the H100.
set -u
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src:$B/src/mpi
export CLSORT_CACHE_DIR=/tmp/cc POCL_CACHE_DIR=/tmp/pc
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x CLSORT_CACHE_DIR -x POCL_CACHE_DIR"
mkdir -p $OUT/r
summ() {
  f=$OUT/r/$1.txt
  printf '%-28s local %8s merge %8s exch %8s %s whole %8s %s\n' "$1" \
    "$(awk '/local step/{print $3}' $f)" "$(awk '/^  merge/{print $2}' $f)" \
    "$(awk '/^  exchange/{print $2}' $f)" "$(grep -o 'reached [0-9]*%' $f)" \
    "$(awk '/whole sort/{print $3}' $f)" "$(grep -o '[0-9.]* x the mean' $f) $(awk '/flow:/{print $2}' $f)" | tee -a $OUT/table.txt
}
cpu() { # name P flow args...
  name=$1; P=$2; flow=$3; shift 3
  timeout 120 $M -np $P env POCL_MAX_PTHREAD_COUNT=$((16/P)) CLSORT_MPI_FLOW=$flow \
    $B/bench/mpi/clsort-mpi-bench --weak 16777216 --reps 3 --device cpu "$@" > $OUT/r/$name.txt 2>&1
  summ $name
}
gpu() {
  name=$1; P=$2; flow=$3; shift 3
  timeout 120 $M -np $P -x OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 env CLSORT_MPI_FLOW=$flow \
    $B/bench/mpi/clsort-mpi-bench --weak 16777216 --reps 3 --device NVIDIA "$@" > $OUT/r/$name.txt 2>&1
  summ $name
}
cpu warm-up 1 default
for round in 1 2 3; do
  cpu P1-$round 1 default
  for P in 2 4; do
    for flow in default sort-first; do cpu P$P-$flow-$round $P $flow; done
  done
done
for flow in default sort-first; do cpu P8-$flow 8 $flow; done
for d in zipf all-equal few-unique; do cpu P4-default-$d 4 default --dist $d; done
cpu P4-default-pairs 4 default --pairs
cpu P4-sort-first-pairs 4 sort-first --pairs
gpu gpu-warm-up 1 default
gpu gpu-P1 1 default
for P in 2 4; do
  for flow in default partition-first; do gpu gpu-P$P-$flow $P $flow; done
done
cd $B
tests/mpi/test_partition | tail -1 | tee -a $OUT/table.txt
for dev in cpu NVIDIA; do
  icd=X_UNUSED=1; [ $dev = NVIDIA ] && icd=OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
  env $icd CLSORT_TEST_DEVICE=$dev CK_FORK=no CLSORT_TEST_CL_DIR=$OLDPWD/cl tests/test_cache > $OUT/r/test-cache-$dev.txt 2>&1
  echo "test_cache $dev rc $?: $(grep -m1 'Checks' $OUT/r/test-cache-$dev.txt)" | tee -a $OUT/table.txt
done
timeout 300 $M -np 4 env POCL_MAX_PTHREAD_COUNT=4 CLSORT_TEST_DEVICE=cpu CLSORT_MPI_KEEP=4096 tests/mpi/test_mpi all > $OUT/r/test-cpu-np4.txt 2>&1; echo "test cpu np4 rc $?" | tee -a $OUT/table.txt
timeout 300 $M -np 7 env POCL_MAX_PTHREAD_COUNT=2 CLSORT_TEST_DEVICE=cpu CLSORT_MPI_KEEP=4096 tests/mpi/test_mpi all > $OUT/r/test-cpu-np7.txt 2>&1; echo "test cpu np7 rc $?" | tee -a $OUT/table.txt
for rep in 1 2 3 4 5; do
  rm -rf /tmp/r2-pc /tmp/r2-pc.clsort-lock /tmp/r2-cc
  timeout 200 $M -np 4 env POCL_MAX_PTHREAD_COUNT=4 POCL_CACHE_DIR=/tmp/r2-pc CLSORT_CACHE_DIR=/tmp/r2-cc CLSORT_TEST_DEVICE=cpu tests/mpi/test_mpi > $OUT/r/test-cold-np4-$rep.txt 2>&1
  echo "test cold np4 $rep rc $?" | tee -a $OUT/table.txt
done
timeout 300 $M -np 2 -x OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 env CLSORT_TEST_DEVICE=NVIDIA CLSORT_MPI_KEEP=4096 tests/mpi/test_mpi all > $OUT/r/test-nv-np2.txt 2>&1; echo "test nv np2 rc $?" | tee -a $OUT/table.txt
for f in $OUT/r/test-*.txt; do tail -1 $f; done
cd $OUT && tar czf r.tgz r && rm -rf r
