#!/bin/bash
# Call 11 (e767405, run_batch split): the sample sort beside CUB's merge
# sort at 2^24 and 2^26 u32 keys, then test_sample tiled on NVIDIA.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc LD_LIBRARY_PATH=$B:$B/src
timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms sample --peers cub --sort-sizes 24,26 \
  --types u32 --data keys,pairs --runs 7 > $OUT/bench.txt 2>&1
grep "^sort" $OUT/bench.txt | grep -v "cub-radix\|inplace" | awk 'NF > 10 {printf "%-10s %-4s %-5s 2^%-3s %9s\n", $2, $3, $4, $6, $7}' > $OUT/table.txt
tail -1 $OUT/bench.txt >> $OUT/table.txt
cd $B
CK_FORK=no CLSORT_TEST_CL_DIR=$OLDPWD/cl CLSORT_TEST_DEVICE=NVIDIA CLSORT_TEST_TMPDIR=/tmp/tt11 timeout 150 tests/test_sample quick tiled > $OUT/test.log 2>&1
echo "test_sample tiled on NVIDIA: rc $? $(grep -o 'Checks.*' $OUT/test.log)" >> $OUT/table.txt
cat $OUT/table.txt
