#!/bin/bash
# Call 4 (H100 host): issue 16's table in one run at the final commit:
# the quicksort (32 ways), sample, merge and bitonic sorts beside CUB's
# DeviceMergeSort, u32/u64 keys and pairs at 2^20-2^26 (sample u32 keys
# also at 2^28); the quicksort's kernels at 2^24 (CLSORT_PROFILE=1); the
# quicksort's tiled part (multi-pivot levels in groups of 16) on the H100
# and on the host's PoCL 5.0.
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/host.txt
BENCH="cli/clsort bench --device NVIDIA --primitives none --runs 9"
timeout 240 $BENCH --algorithms quick,sample,merge,bitonic --types u32,u64 --data keys,pairs \
  --sort-sizes 20,22,24,26 --peers cub --json $OUT/issue16.jsonl > $OUT/issue16.txt 2>&1
timeout 60 $BENCH --algorithms sample --types u32 --data keys --sort-sizes 28 --peers cub \
  --json $OUT/sample28.jsonl > $OUT/sample28.txt 2>&1
CLSORT_PROFILE=1 timeout 30 $BENCH --algorithms quick --types u32 --data keys --sort-sizes 24 \
  --runs 3 --warmup 1 --peers none > $OUT/profile.txt 2>&1
t() { local name=$1 dev=$2 limit=$3; shift 3
  (time CK_FORK=no CLSORT_TEST_DEVICE=$dev timeout $limit "$@") > $OUT/$name.txt 2>&1; }
t quick_tiled_h100 NVIDIA 240 tests/test_quick quick tiled
t quick_tiled_pocl5 cpu 120 tests/test_quick quick tiled
cat $OUT/host.txt; tail -1 $OUT/issue16.txt; tail -1 $OUT/sample28.txt
grep "profile" $OUT/profile.txt | awk '{print $3, $(NF-1)}' | sort | awk '{a[$1]+=$2; c[$1]++} END {for (k in a) printf "%s %.3f ms over %d launches (3 sorts)\n", k, a[k], c[k]}'
for f in quick_tiled_h100 quick_tiled_pocl5; do echo "$f: $(grep -E 'Checks|real' $OUT/$f.txt | tr '\n' ' ')"; done
