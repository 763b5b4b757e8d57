#!/bin/bash
# Call 2 (H100): the staged sort's own trace (when the upload returns, the
# sort is enqueued, the download ends), beside the benchmark's wall time;
# and the device radix sort at 2^20-2^24, per kernel, for what a sort of
# a quarter or an eighth of the keys would cost.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/hc2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
for r in 1 2; do
  CLSORT_LOG=debug timeout 100 $B/cli/clsort bench --device NVIDIA --api both --primitives none --algorithms radix \
    --sort-sizes 24 --types u32 --data keys --runs 12 --warmup 2 --peers none > $OUT/trace$r.txt 2>&1
  grep -E "^sort" $OUT/trace$r.txt >> $OUT/table.txt
  grep -E "staged sort of" $OUT/trace$r.txt | tail -12 | sed -E 's/^.*staged/staged/' >> $OUT/table.txt
done
timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms radix \
    --sort-sizes 20,21,22,23,24 --types u32 --data keys,pairs --runs 12 --peers none > $OUT/dev.txt 2>&1
grep -E "^sort" $OUT/dev.txt >> $OUT/table.txt
CLSORT_PROFILE=1 timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms radix \
    --sort-sizes 21,22,24 --types u32 --data keys --runs 3 --peers none > $OUT/prof.txt 2>&1
tail -40 $OUT/prof.txt >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt && rm -f trace*.txt dev.txt prof.txt
cat table.txt
