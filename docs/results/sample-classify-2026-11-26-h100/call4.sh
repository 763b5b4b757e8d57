#!/bin/bash
# Call 4: where the host's time goes at the sample sort's end
# (CLSORT_LOG=debug: planning per level, the leaves' packing) beside its
# timeline; timelines of the merge, radix and bitonic sorts at 2^24 u32
# keys, looking for idle device time.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/cc
CLSORT_LOG=debug CLSORT_PROFILE=timeline $B/cli/clsort bench --device NVIDIA --primitives none \
  --algorithms sample --sort-sizes 24,26 --types u32 --data keys,pairs --runs 2 > $OUT/sample-debug.txt 2>&1
CLSORT_PROFILE=timeline $B/cli/clsort bench --device NVIDIA --primitives none \
  --algorithms merge,radix,bitonic --sort-sizes 24 --types u32 --data keys --runs 2 > $OUT/others-timeline.txt 2>&1
grep -E "planned|packed and queued|^sort" $OUT/sample-debug.txt | head -40
awk '/timeline/ && /idle before/ {split($0,a,"idle before"); split(a[2],b," "); if (b[1]+0 > 15) print}' $OUT/others-timeline.txt | cut -c17-200 | head -40
grep "^sort" $OUT/others-timeline.txt
