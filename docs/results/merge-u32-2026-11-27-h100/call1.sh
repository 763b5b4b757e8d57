#!/bin/bash
# Call 1 (H100): the merge pass's per-key work. Three kernel trees through
# CLSORT_KERNEL_DIR, one library: old (1c63928), v1 (unsigned ascending
# keys skip the conversion loops), v2 (v1 and the serial merge's reads
# unguarded). Merge u32 keys 2^20-2^26 (and u32 descending, i32, u64 at
# 2^24/2^26) beside CUB's merge sort; serialised merge_pass times at 2^26
# u32 keys; test_merge tiled and test_merging tiled on NVIDIA with v2.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc LD_LIBRARY_PATH=$B:$B/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
run() { # tag tree peers extra-args...
  local tag=$1 tree=$2 peers=$3; shift 3
  CLSORT_KERNEL_DIR=$B/cl-$tree/cl timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge \
    --peers $peers --runs 7 --json $OUT/$tag.jsonl "$@" > $OUT/$tag.txt 2>&1
  echo "$tag: $(grep '^sort  *\(merge\|cub-merge\) ' $OUT/$tag.txt | awk '{printf "%s %s 2^%s %s  ", $2, $3, $6, $7}')" >> $OUT/table.txt
}
for round in 1 2; do
  for tree in old v1 v2; do
    peers=none; [ $round = 1 ] && [ $tree = old ] && peers=cub
    run u32-$tree-$round $tree $peers --sort-sizes 20,21,22,23,24,26 --types u32 --data keys
  done
done
for tree in old v2; do
  run other-$tree $tree none --sort-sizes 24,26 --types i32,u64 --data keys,pairs
  run desc-$tree $tree none --sort-sizes 24,26 --types u32 --data keys --descending
done
for tree in old v1 v2; do
  CLSORT_KERNEL_DIR=$B/cl-$tree/cl CLSORT_PROFILE=1 timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms merge --sort-sizes 26 --types u32 --data keys --runs 1 --peers none > $OUT/profile-$tree.txt 2>&1
  echo "== profile $tree: $(grep '^clsort profile' $OUT/profile-$tree.txt | awk '{k=$3; t[k]+=$(NF-1); c[k]++} END {for (k in t) printf "%s %d x %.3f ms; ", k, c[k], t[k]}')" >> $OUT/table.txt
done
cd $B
for t in "test_merge tiled" "test_merging tiled"; do
  set -- $t
  CK_FORK=no CLSORT_TEST_CL_DIR=$B/cl-v2/cl CLSORT_TEST_DEVICE=NVIDIA CLSORT_TEST_TMPDIR=/tmp/tt1 timeout 150 tests/$1 quick $2 > $OUT/test-nv-$1-$2.log 2>&1
  echo "$1 $2 on NVIDIA (v2): rc $? $(grep -o 'Checks.*' $OUT/test-nv-$1-$2.log)" >> $OUT/table.txt
done
grep -c 'FAIL\|mismatch\|not sorted' $OUT/*.txt | grep -v ':0' >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.jsonl *.txt *.log && rm -f *.jsonl u32-*.txt other-*.txt desc-*.txt profile-*.txt *.log
cat table.txt
