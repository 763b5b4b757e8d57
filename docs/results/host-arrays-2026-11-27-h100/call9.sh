#!/bin/bash
# Call 9 (H100): is the merge sort at 2^22-2^23 bound by the host's
# enqueues? NVIDIA's OpenCL takes 10-13 us of host time per
# clEnqueueNDRangeKernel (call 4): the timeline of one sort's kernels
# (CLSORT_PROFILE=timeline: queued, start, end, idle before each).
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/hc9
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge,radix \
  --sort-sizes 22,23 --types u32 --data keys --runs 9 --peers cub > $OUT/bench.txt 2>&1
grep -E "^sort" $OUT/bench.txt >> $OUT/table.txt
for s in 22 23; do
  CLSORT_PROFILE=timeline timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge \
    --sort-sizes $s --types u32 --data keys --runs 1 --warmup 1 --peers none > $OUT/tl$s.txt 2>&1
  echo "== merge 2^$s, the last sort's timeline" >> $OUT/table.txt
  awk '/clsort timeline:/ { if ($3 ~ /merge_sort_tiles/ ) { n=0 } line[n++]=$0 } END { for (i=0;i<n;i++) print line[i] }' $OUT/tl$s.txt | sed -E 's/clsort timeline: //' >> $OUT/table.txt
done
cd $OUT && tar czf raw.tgz *.txt && rm -f bench.txt tl*.txt
cat table.txt
