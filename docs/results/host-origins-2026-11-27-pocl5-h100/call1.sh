#!/bin/bash
# Call 1 (H100 host): 794a8fc (host arrays in place at any element
# alignment on CPU devices) through the tests of every CPU sort on PoCL 5.0
# (16 cores), the GPU tests whose kernels changed (widen.cl) on the H100,
# (call 2: the host-array sorts on PoCL 5.0 against 79af135's library).
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
nproc > $OUT/host.txt; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $OUT/host.txt
t() { local name=$1 dev=$2 limit=$3; shift 3
  (time CK_FORK=no CLSORT_TEST_DEVICE=$dev timeout $limit "$@") > $OUT/$name.txt 2>&1; }
t sort_pocl5 cpu 150 tests/test_sort quick matrix,edges,levels
t narrow_pocl5 cpu 60 tests/test_narrow quick
t merge_pocl5 cpu 60 tests/test_merge quick
t quick_pocl5 cpu 80 tests/test_quick quick
t bitonic_pocl5 cpu 80 tests/test_bitonic quick
t sort_h100 NVIDIA 60 tests/test_sort quick matrix,edges
t narrow_h100 NVIDIA 60 tests/test_narrow quick
cat $OUT/host.txt
for f in sort_pocl5 narrow_pocl5 merge_pocl5 quick_pocl5 bitonic_pocl5 sort_h100 narrow_h100; do
  echo "$f: $(grep -E 'Checks|real' $OUT/$f.txt | tr '\n' ' ')"; grep -E "corrupt|Abort|Segm" $OUT/$f.txt | head -2; done
