#!/bin/bash
# Call 10: test_merge tiled (with merge_corank_ways: each co-rank way forced)
# on PoCL 5.0 (the H100 host's 16 cores) and on NVIDIA, at baba451.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc LD_LIBRARY_PATH=$B:$B/src
cd $B
for d in cpu NVIDIA; do
  CK_FORK=no CLSORT_TEST_CL_DIR=$OLDPWD/cl CLSORT_TEST_DEVICE=$d CLSORT_TEST_TMPDIR=/tmp/tt10$d timeout 200 tests/test_merge quick tiled > $OUT/test-$d.log 2>&1
  echo "test_merge tiled on $d: rc $? $(grep -o 'Checks.*' $OUT/test-$d.log)" >> $OUT/table.txt
done
grep "corank" $OUT/test-cpu.log >> $OUT/table.txt
cat $OUT/table.txt
