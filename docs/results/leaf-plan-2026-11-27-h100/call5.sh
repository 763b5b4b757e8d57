#!/bin/bash
# Call 5 (H100): the merge pass's shape (CLSORT_MERGE=WG:ITEMS) and its
# co-rank way swept at af7fa12, u32 keys (and u32 pairs at 2^20), CUB's
# merge sort in the first run.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc LD_LIBRARY_PATH=$B:$B/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
run() { # tag env...
  local tag=$1; shift
  env "$@" timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge $peers \
    --sort-sizes 20,22,23,24,26 --types u32 --data keys --runs 7 --json $OUT/$tag.jsonl > $OUT/$tag.txt 2>&1
  echo "$tag: $(grep '^sort  *merge' $OUT/$tag.txt | awk '{printf "2^%s %s  ", $6, $7}')" >> $OUT/table.txt
}
peers="--peers cub"; run default X=1
grep '^sort  *cub-merge ' $OUT/default.txt | awk '{printf "cub-merge 2^%s %s\n", $6, $7}' >> $OUT/table.txt
peers="--peers none"
for v in 128:16 128:32 64:32 128:8 64:16 256:8; do run "m${v/:/x}" CLSORT_MERGE=$v; done
for w in probe search fused; do run "m128x16-$w" CLSORT_MERGE=128:16 CLSORT_MERGE_PARTITION=$w; done
run default-again X=1
cd $OUT && tar czf raw.tgz *.jsonl *.txt && rm -f *.jsonl m*.txt default*.txt
cat table.txt
