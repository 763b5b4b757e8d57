#!/bin/bash
# Call 4: cold first calls on the H100, the CLI's trial sort (new) against
# clsort_prepare of every size class and algorithm (old, HEAD's binary).
set -u
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
for bin in clsort clsort-old; do
  echo "== $bin" >> $OUT/table.txt
  scripts/cold-start $B/cli/$bin --device NVIDIA --algorithms auto,radix,bitonic,merge,sample,quick --types u32 --modes keys,pairs >> $OUT/table.txt 2>&1
done
cat $OUT/table.txt
