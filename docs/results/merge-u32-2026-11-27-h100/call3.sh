#!/bin/bash
# Call 3 (H100): on top of v2 (call 2's best: reads past a run unguarded),
# v4 (whole tiles load, stage and gather without the per-key tests of a
# tile's end), v5 (the serial merge's step with one local load and selects),
# v45 (both). Merge u32 keys 2^20-2^26 twice, u32 pairs and u64 keys at
# 2^24/2^26; serialised merge_pass at 2^26. Also lists NVIDIA's profilers.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc LD_LIBRARY_PATH=$B:$B/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
run() { # tag tree peers extra-args...
  local tag=$1 tree=$2 peers=$3; shift 3
  CLSORT_KERNEL_DIR=$B/cl-$tree/cl timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge \
    --peers $peers --runs 7 --json $OUT/$tag.jsonl "$@" > $OUT/$tag.txt 2>&1
  echo "$tag: $(grep '^sort[-a-z]*  *\(merge\|cub-merge\) ' $OUT/$tag.txt | awk '{printf "%s %s %s 2^%s %s  ", $2, $3, $4, $6, $7}')" >> $OUT/table.txt
}
for round in 1 2; do
  for tree in old v2 v4 v5 v45; do
    peers=none; [ $round = 1 ] && [ $tree = old ] && peers=cub
    run u32-$tree-$round $tree $peers --sort-sizes 20,21,22,23,24,26 --types u32 --data keys
  done
done
for tree in v2 v45; do
  run other-$tree $tree none --sort-sizes 24,26 --types u32,u64 --data pairs
  run u64-$tree $tree none --sort-sizes 24,26 --types u64 --data keys
done
for tree in v2 v4 v5 v45; do
  CLSORT_KERNEL_DIR=$B/cl-$tree/cl CLSORT_PROFILE=1 timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms merge --sort-sizes 26 --types u32 --data keys --runs 1 --peers none > $OUT/profile-$tree.txt 2>&1
  echo "== profile $tree: $(grep '^clsort profile' $OUT/profile-$tree.txt | awk '{k=$3; t[k]+=$(NF-1); c[k]++} END {for (k in t) printf "%s %d x %.3f ms; ", k, c[k], t[k]}')" >> $OUT/table.txt
done
echo "profilers: $(ls /usr/local/cuda/bin 2>/dev/null | grep -i 'nsys\|ncu' | tr '\n' ' ') $(command -v nsys ncu | tr '\n' ' ')" >> $OUT/table.txt
grep -l 'verification failures, [1-9]\|errors*$' $OUT/*.txt | xargs -r grep -H 'measurements in' | grep -v ' 0 verification failures, 0 errors' >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.jsonl *.txt && rm -f *.jsonl u32-*.txt other-*.txt u64-*.txt profile-*.txt
cat table.txt
