#!/bin/bash
# Call 12 (H100), 8026e92: merge pass shapes (CLSORT_MERGE=WG:ITEMS) and
# co-rank ways at 2^21-2^24 u32 keys, where the merge sort is still just
# below CUB's (call 11: 0.92 / 0.99 / 0.98 at 2^22 / 2^23 / 2^24).
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc LD_LIBRARY_PATH=$B:$B/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
run() { # tag peers env...
  local tag=$1 peers=$2; shift 2
  env "$@" timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge --peers $peers --runs 9 \
    --sort-sizes 21,22,23,24,26 --types u32 --data keys --json $OUT/$tag.jsonl > $OUT/$tag.txt 2>&1
  echo "$tag: $(grep '^sort  *\(merge\|cub-merge\) ' $OUT/$tag.txt | awk '{printf "%s 2^%s %s  ", $2, $6, $7}')" >> $OUT/table.txt
}
run default cub X=1
for s in 128:16 512:8 256:8 128:32 512:16 64:32; do run shape-$s none CLSORT_MERGE=$s; done
for w in search probe fused; do run way-$w none CLSORT_MERGE_PARTITION=$w; done
run default-again none X=1
grep -h 'measurements in' $OUT/*.txt | grep -v ' 0 verification failures, 0 errors' >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.jsonl *.txt && rm -f *.jsonl default*.txt shape-*.txt way-*.txt
cat table.txt
