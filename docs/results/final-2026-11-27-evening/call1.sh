#!/bin/bash
# Call 1 (H100 host): ff6a495, this stop's code, through the test programs
# of every CPU path it changed on PoCL 5.0 (16 cores) and the GPU tests
# whose host code changed on the H100 (call 2: the benchmark).
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/tests.txt
t() { local dev=$1 limit=$2; shift 2
  echo "== $dev $*" >> $OUT/tests.txt
  (time CK_FORK=no CLSORT_TEST_DEVICE=$dev timeout $limit "$@") 2>&1 | grep -E "Checks|:F:|:E:|real|Abort|corrupt" >> $OUT/tests.txt; }
t cpu 150 tests/test_sort quick matrix,edges,levels
t cpu 100 tests/test_sample quick
t cpu 40 tests/test_scan quick
t cpu 30 tests/test_reduce quick
t cpu 30 tests/test_compact quick
t cpu 100 tests/test_quick quick
t NVIDIA 60 tests/test_sort quick matrix,edges
t NVIDIA 60 tests/test_sample quick
cat $OUT/tests.txt
