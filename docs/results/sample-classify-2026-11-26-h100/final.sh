#!/bin/bash
# The session's last commit on the H100: the comparison sorts beside CUB's
# merge sort (sample, quick, merge, bitonic; u32 and u64, keys and pairs,
# 2^24 and 2^26; sample u32 keys 2^28), then tests on NVIDIA.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/cc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
git -C $OLDPWD log --oneline -1 > $OUT/commit.txt 2>/dev/null
$B/cli/clsort bench --device NVIDIA --primitives none --algorithms sample,merge,quick,bitonic --peers cub \
  --sort-sizes 24,26 --types u32,u64 --data keys,pairs --runs 5 --json $OUT/sorts.jsonl > $OUT/sorts.txt 2>&1
$B/cli/clsort bench --device NVIDIA --primitives none --algorithms sample --peers cub \
  --sort-sizes 28 --types u32 --data keys --runs 3 --json $OUT/sample28.jsonl > $OUT/sample28.txt 2>&1
grep "^sort" $OUT/sorts.txt $OUT/sample28.txt | awk '{printf "%-12s %-4s %-5s %-5s %9s %s %s\n", $2, $3, $4, $6, $7, $(NF-2), $NF}' | grep -v "cub-radix\|inplace" > $OUT/table.txt
cd $B
for t in "sample 32" "sample tiled" "quick matrix" "quick tiled" "sort tiled"; do
  set -- $t; t0=$(date +%s)
  CK_FORK=no CLSORT_TEST_CL_DIR=$OLDPWD/cl CLSORT_TEST_DEVICE=NVIDIA CLSORT_TEST_TMPDIR=/tmp/tt-$1$2 \
    timeout 150 tests/test_$1 quick $2 > $OUT/test-nv-$1$2.log 2>&1
  echo "test_$1 $2 on NVIDIA: rc $? ($(( $(date +%s) - t0 )) s) $(grep -o 'Checks.*' $OUT/test-nv-$1$2.log)" >> $OUT/table.txt
done
cd $OUT && tar czf raw.tgz *.jsonl *.txt *.log && rm -f *.jsonl sorts.txt sample28.txt *.log
cat table.txt
