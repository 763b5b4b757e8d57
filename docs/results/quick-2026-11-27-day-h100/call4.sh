#!/bin/bash
# Call 4 (H100): the final form (headers on their own queue from 512
# tiles a level; below that, in the context's queue exactly as before,
# with no wait list) against 2d10e5b's library (oldlib), alternating, two
# rounds, beside CUB's merge sort; test_quick tiled on NVIDIA.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc4
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
for round in 1 2; do
  for lib in new old; do
    L=$B:$B/src; [[ $lib == old ]] && L=$B/oldlib:$B
    peers=none; [[ $round == 1 && $lib == new ]] && peers=cub
    LD_LIBRARY_PATH=$L CLSORT_CACHE_DIR=/tmp/qc-$lib timeout 150 $B/cli/clsort bench --device NVIDIA --primitives none \
      --algorithms quick --peers $peers --runs 7 --sort-sizes 20,22,24 --types u32,u64 --data keys,pairs > $OUT/r$round-$lib.txt 2>&1
    echo "round $round $lib: $(grep -E '^sort  *(quick|cub-merge) ' $OUT/r$round-$lib.txt | awk '{printf "%s %s %s 2^%s %s  ", $2, $3, $4, substr($6,3), $7}')" >> $OUT/table.txt
  done
done
grep -h "measurements in" $OUT/r*.txt | sort | uniq -c >> $OUT/table.txt
cd $B
CK_FORK=no CLSORT_TEST_DEVICE=NVIDIA CLSORT_TEST_TMPDIR=/tmp/tt4 CLSORT_CACHE_DIR=/tmp/tc4 timeout 330 tests/test_quick quick tiled > $OUT/test-nv-tiled.log 2>&1
echo "test_quick tiled on NVIDIA: rc $? $(grep -o 'Checks.*' $OUT/test-nv-tiled.log)" >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt *.log && rm -f r[12]-*.txt *.log
cat table.txt
