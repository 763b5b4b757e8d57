#!/bin/bash
# The session's last code (af7fa12's kernels) on the H100: the comparison
# sorts beside CUB's merge sort (u32 and u64, keys and pairs, 2^24 and 2^26;
# merge also at 2^20-2^23; sample u32 keys 2^28), seed 004's experiment for
# the sample sort, then tests on NVIDIA.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc LD_LIBRARY_PATH=$B:$B/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
git log --oneline -1 > $OUT/commit.txt 2>/dev/null
$B/cli/clsort bench --device NVIDIA --primitives none --algorithms sample,merge,quick,bitonic --peers cub \
  --sort-sizes 24,26 --types u32,u64 --data keys,pairs --runs 5 --json $OUT/sorts.jsonl > $OUT/sorts.txt 2>&1
$B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge --peers cub \
  --sort-sizes 20,21,22,23 --types u32,u64 --data keys,pairs --runs 7 --json $OUT/merge-small.jsonl > $OUT/merge-small.txt 2>&1
$B/cli/clsort bench --device NVIDIA --primitives none --algorithms sample --peers cub \
  --sort-sizes 28 --types u32 --data keys --runs 3 --json $OUT/sample28.jsonl > $OUT/sample28.txt 2>&1
timeout 120 $B/cli/clsort bench --device NVIDIA --experiment seed004 --algorithms sample \
  --json $OUT/seed004.jsonl > $OUT/seed004.txt 2>&1
grep "^sort" $OUT/sorts.txt $OUT/merge-small.txt $OUT/sample28.txt | sed 's/^[^:]*://' | \
  awk '$2 != "cub-radix" && $2 != "cub-merge-inplace" && NF > 10 {printf "%-10s %-4s %-5s 2^%-3s %9s\n", $2, $3, $4, $6, $7}' > $OUT/table.txt
cd $B
for t in "merge tiled" "merging tiled" "sample 32" "quick matrix"; do
  set -- $t; t0=$(date +%s)
  CK_FORK=no CLSORT_TEST_CL_DIR=$OLDPWD/cl CLSORT_TEST_DEVICE=NVIDIA CLSORT_TEST_TMPDIR=/tmp/tt-$1$2 \
    timeout 140 tests/test_$1 quick $2 > $OUT/test-nv-$1$2.log 2>&1
  echo "test_$1 $2 on NVIDIA: rc $? ($(( $(date +%s) - t0 )) s) $(grep -o 'Checks.*' $OUT/test-nv-$1$2.log)" >> $OUT/table.txt
done
cd $OUT && tar czf raw.tgz *.jsonl *.txt *.log && rm -f *.jsonl sorts.txt merge-small.txt sample28.txt seed004.txt *.log
cat table.txt
