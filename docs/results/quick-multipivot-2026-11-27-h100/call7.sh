#!/bin/bash
# Call 7 (H100): the seed 004 experiment (10M-100M keys, four
# distributions) for the multi-pivot quicksort and the sample sort beside
# CUB, for docs/PERFORMANCE.md's seed 004 tables.
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
timeout 220 cli/clsort bench --device NVIDIA --quiet --experiment seed004 --algorithms quick,sample \
  --peers cub --json $OUT/h100-seed004-quick-2026-11-27.jsonl > $OUT/seed004.txt 2>&1
echo "rc $?"; tail -2 $OUT/seed004.txt; wc -l $OUT/h100-seed004-quick-2026-11-27.jsonl
