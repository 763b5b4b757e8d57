#!/bin/bash
# Call 3 (H100): the staged sort's steps, stamped from the call's start
# (staging.c's debug line): the buffers and the marker before the upload,
# the upload, the barrier on it, the sort's enqueue, the download.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/hc3
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
for r in 1 2; do
  CLSORT_LOG=debug timeout 100 $B/cli/clsort bench --device NVIDIA --api host --primitives none --algorithms radix \
    --sort-sizes 24 --types u32 --data keys,pairs --runs 12 --warmup 2 --peers none > $OUT/trace$r.txt 2>&1
  grep -E "^sort" $OUT/trace$r.txt >> $OUT/table.txt
  grep -E "staged sort of" $OUT/trace$r.txt | sed -E 's/^.*staged sort of ([0-9]+) keys, ms from the call.s start:/\1/' >> $OUT/table.txt
done
cd $OUT && tar czf raw.tgz *.txt && rm -f trace*.txt
cat table.txt
