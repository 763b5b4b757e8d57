#!/bin/bash
# Call 10 (H100): register use and time of merge_pass with the sample block
# at the kernel's end, after the stores (tree cl-e, through
# CLSORT_KERNEL_DIR) against the embedded kernels (call 9's: after the
# merge, 46 registers, where v5 without samples had 40). Same library.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc LD_LIBRARY_PATH=$B:$B/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
for round in 1 2; do for tree in embedded e; do
  dir=; [ $tree = e ] && dir=$B/cl-e/cl
  p=none; [ $round = 1 ] && [ $tree = embedded ] && p=cub
  CLSORT_KERNEL_DIR=$dir timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge \
    --peers $p --runs 7 --json $OUT/u32-$tree-$round.jsonl --sort-sizes 20,21,22,23,24,26 --types u32 --data keys > $OUT/u32-$tree-$round.txt 2>&1
  echo "u32-$tree-$round: $(grep '^sort  *\(merge\|cub-merge\) ' $OUT/u32-$tree-$round.txt | awk '{printf "%s %s 2^%s %s  ", $2, $3, $6, $7}')" >> $OUT/table.txt
done; done
for tree in embedded e; do
  dir=; [ $tree = e ] && dir=$B/cl-e/cl
  CLSORT_KERNEL_DIR=$dir CLSORT_PROFILE=1 timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms merge --sort-sizes 26 --types u32 --data keys --runs 1 --peers none > $OUT/profile-$tree.txt 2>&1
  echo "== profile $tree 2^26: $(grep '^clsort profile' $OUT/profile-$tree.txt | awk '{k=$3; t[k]+=$(NF-1); c[k]++} END {for (k in t) printf "%s %d x %.3f ms; ", k, c[k], t[k]}')" >> $OUT/table.txt
  CLSORT_KERNEL_DIR=$dir CLSORT_EXTRA_BUILD_OPTIONS=-cl-nv-verbose CLSORT_LOG=debug CLSORT_CACHE_DIR=/tmp/cc-regs-$tree timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms merge --sort-sizes 26 --types u32 --data keys --runs 1 --peers none > $OUT/regs-$tree.txt 2>&1
  echo "== regs $tree merge_pass: $(grep -A3 "merge_pass'" $OUT/regs-$tree.txt | grep -o 'Used [0-9]* registers' | head -1)" >> $OUT/table.txt
done
grep -h 'measurements in' $OUT/*.txt | grep -v ' 0 verification failures, 0 errors' >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.jsonl *.txt && rm -f *.jsonl u32-*.txt profile-*.txt regs-*.txt
cat table.txt
