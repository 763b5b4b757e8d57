#!/bin/bash
# Call 3 (same machine, warm caches): the three test programs that call 1's
# limits cut short while they compiled their kernels cold.
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
t() { local name=$1 dev=$2 limit=$3; shift 3
  (time CK_FORK=no CLSORT_TEST_DEVICE=$dev timeout $limit "$@") > $OUT/$name.txt 2>&1; }
t sort_h100 NVIDIA 150 tests/test_sort quick matrix,edges
t quick_pocl5 cpu 200 tests/test_quick quick
t bitonic_pocl5 cpu 200 tests/test_bitonic quick
for f in sort_h100 quick_pocl5 bitonic_pocl5; do
  echo "$f: $(grep -E 'Checks|real' $OUT/$f.txt | tr '\n' ' ')"; grep -E "corrupt|Abort|Segm" $OUT/$f.txt | head -2; done
