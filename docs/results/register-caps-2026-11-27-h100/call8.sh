#!/bin/bash
# Call 8 (H100): the capped program in one assembly (clCompileProgram to
# PTX, caps, one build from the PTX) against call 7's two (build from
# source, then from the capped PTX): cold builds of the quicksort with
# every cache empty, this library and 6cc6385's; the warm run after
# (loads the cached binary); test_quick matrix on NVIDIA; the quicksort
# beside CUB (u32 keys and pairs at 2^24) to check the built program.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc8
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
for lib in new old new old; do
  L=$B:$B/src; [[ $lib == old ]] && L=$B/oldlib:$B
  rm -rf /tmp/cold8 /tmp/cuda8
  for run in cold warm; do
    s=$(date +%s%N)
    LD_LIBRARY_PATH=$L CUDA_CACHE_PATH=/tmp/cuda8 CLSORT_CACHE_DIR=/tmp/cold8 CLSORT_LOG=debug timeout 60 $B/cli/clsort bench --device NVIDIA \
      --primitives none --algorithms quick --sort-sizes 16 --types u32 --data keys --runs 1 --peers none > $OUT/$run-$lib.txt 2>&1
    e=$(date +%s%N)
    echo "$run quick u32 keys, $lib: process $(( (e - s) / 1000000 )) ms; $(grep -E 'built quick|register caps|disk cache' $OUT/$run-$lib.txt | sed -E 's/ \(-w.*//; s/clsort: //' | tr '\n' ';')" >> $OUT/table.txt
  done
done
export LD_LIBRARY_PATH=$B:$B/src
CLSORT_CACHE_DIR=/tmp/hc8 timeout 120 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms quick --peers cub --runs 7 \
  --sort-sizes 24 --types u32 --data keys,pairs > $OUT/bench.txt 2>&1
echo "$(grep -E '^sort  *(quick|cub-merge) ' $OUT/bench.txt | awk '{printf "%s %s %s 2^%s %s  ", $2, $3, $4, $6, $7}')" >> $OUT/table.txt
cd $B
CK_FORK=no CLSORT_TEST_DEVICE=NVIDIA CLSORT_TEST_TMPDIR=/tmp/tt8 CLSORT_CACHE_DIR=/tmp/tc8 timeout 200 tests/test_quick quick matrix > $OUT/test-quick-matrix.log 2>&1
echo "test_quick matrix on NVIDIA: rc $? $(grep -o 'Checks.*' $OUT/test-quick-matrix.log)" >> $OUT/table.txt
grep -h 'measurements in' $OUT/*.txt | sort | uniq -c >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt *.log && rm -f cold-*.txt warm-*.txt bench.txt *.log
cat table.txt
