#!/bin/bash
# Call 2: where the sample sort's device idles (CLSORT_PROFILE=timeline,
# 2^24 u32 keys), and the level's wait for its bucket sizes polled for up
# to 200 us (default) against blocking at once (CLSORT_WAIT_SPIN_US=0),
# three rounds alternating, CUB's merge sort in each run; quick too.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 CLSORT_CACHE_DIR=/tmp/cc POCL_CACHE_DIR=/tmp/pc LD_LIBRARY_PATH=$B:$B/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
for spin in 200 0; do
  CLSORT_WAIT_SPIN_US=$spin CLSORT_PROFILE=timeline $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms sample,quick --sort-sizes 24 --types u32 --data keys --runs 2 > $OUT/timeline-$spin.txt 2>&1
done
bench() { # spin name
  CLSORT_WAIT_SPIN_US=$1 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms sample,quick \
    --peers cub --sort-sizes 24,26 --types u32 --data keys,pairs --runs 7 --json $OUT/$2-$1.jsonl > $OUT/$2-$1.txt 2>&1
  awk -v w=$1 '/^sort/ && ($2=="sample" || $2=="quick" || $2=="cub-merge") {printf "spin%-4s %-10s %-4s %-5s %-5s %9s %s\n", w, $2, $3, $4, $6, $7, $NF}' $OUT/$2-$1.txt >> $OUT/table.txt
}
for r in 1 2 3; do for spin in 200 0; do bench $spin r$r; done; done
cd $OUT && tar czf raw.tgz --exclude table.txt *.jsonl r*.txt && rm -f r*-*.txt *.jsonl
sort -k2,2 -k3,3 -k4,4 -k5,5 -s table.txt
