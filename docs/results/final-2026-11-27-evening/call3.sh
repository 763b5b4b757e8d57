#!/bin/bash
# Call 3 (same machine, caches warm): the three test programs that call 1's
# limits cut short while they built their kernels cold.
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
t() { local dev=$1 limit=$2; shift 2
  echo "== $dev $*" >> $OUT/tests.txt
  (time CK_FORK=no CLSORT_TEST_DEVICE=$dev timeout $limit "$@") 2>&1 | grep -E "Checks|:F:|:E:|real|Abort|corrupt" >> $OUT/tests.txt; }
t NVIDIA 90 tests/test_sort quick matrix,edges
t NVIDIA 90 tests/test_sample quick
t cpu 130 tests/test_sample quick
cat $OUT/tests.txt
