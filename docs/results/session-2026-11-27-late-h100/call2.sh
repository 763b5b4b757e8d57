#!/bin/bash
# Call 2 (H100): the merge sort's u32 keys at 2^20-2^26 beside CUB's merge
# sort, in merge tiles of 4096 outputs (1024 tiles at 2^22, whose co-ranks
# the merge finds itself: one launch a pass) against the default 2048
# (128 x 16, co-ranks in a launch of their own at 2^22), medians of 9.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src
export CLSORT_CACHE_DIR=/tmp/s2c
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
run() { # name env peers
  env $2 timeout 150 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge \
    --sort-sizes 20,21,22,23,24,26 --types u32 --data keys --runs 9 --peers $3 > $OUT/$1.txt 2>&1
  awk -v name=$1 '$1=="sort" && $2=="merge" {printf "%-14s %s %.4f\n", name, $6, $7}
    $1=="sort" && $2=="cub-merge" {printf "%-14s %s %.4f\n", "cub-merge", $6, $7}
    /verification failures/ {print name ": " $0}' $OUT/$1.txt >> $OUT/table.txt
}
for round in 1 2; do
  run default$round X=1 cub
  run 128x32-$round CLSORT_MERGE=128:32 none
  run 256x16-$round CLSORT_MERGE=256:16 none
  run 512x8-$round CLSORT_MERGE=512:8 none
  run fused$round CLSORT_MERGE_PARTITION=fused none
done
cd $OUT && tar czf raw.tgz *.txt && find . -name "*.txt" ! -name table.txt -delete
cat table.txt
