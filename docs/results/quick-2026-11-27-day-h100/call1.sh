#!/bin/bash
# Call 1 (H100): the quicksort's timeline at 2^24 u32 keys and pairs
# (CLSORT_PROFILE=timeline: every kernel's queued, start and end times and
# the idle time before it), beside CUB's merge sort in the same call.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/qc1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms quick,sample,merge \
  --sort-sizes 24 --types u32 --data keys --runs 9 --peers cub > $OUT/bench.txt 2>&1
grep -E "^sort" $OUT/bench.txt >> $OUT/table.txt
CLSORT_PROFILE=timeline timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms quick \
  --sort-sizes 24 --types u32 --data keys --runs 1 --warmup 1 --peers none > $OUT/tl.txt 2>&1
echo "== quick 2^24 u32 keys, the last sort's timeline" >> $OUT/table.txt
awk '/clsort timeline:/ { if ($3 ~ /quick_init/) { n=0 } line[n++]=$0 } END { for (i=0;i<n;i++) print line[i] }' $OUT/tl.txt \
  | sed -E 's/clsort timeline: //' >> $OUT/table.txt
CLSORT_PROFILE=timeline timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms sample \
  --sort-sizes 24 --types u32 --data keys --runs 1 --warmup 1 --peers none > $OUT/tl-sample.txt 2>&1
echo "== sample 2^24 u32 keys, the timeline" >> $OUT/table.txt
grep "clsort timeline:" $OUT/tl-sample.txt | tail -30 | sed -E 's/clsort timeline: //' >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt && rm -f bench.txt tl*.txt
cat table.txt
