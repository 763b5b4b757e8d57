#!/bin/bash
# Call 8: as call 7, the leaf plan kernel reshaped (a group a parent, its sizes
# in local memory, one walk by one work-item; 90 us in call 7), against the host's plan
# (CLSORT_SAMPLE_LEAF_PLAN=host), same library, two rounds alternating,
# CUB's merge sort in each run; a timeline of the default at 2^24; the
# sample tests on NVIDIA.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/cc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
CLSORT_LOG=debug CLSORT_PROFILE=timeline $B/cli/clsort bench --device NVIDIA --primitives none \
  --algorithms sample --sort-sizes 24 --types u32 --data keys --runs 2 > $OUT/timeline-device.txt 2>&1
bench() { # device|host name sizes types data runs
  CLSORT_SAMPLE_LEAF_PLAN=$1 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms sample \
    --peers cub --sort-sizes $3 --types $4 --data $5 --runs $6 --json $OUT/$2-$1.jsonl > $OUT/$2-$1.txt 2>&1
  awk -v w=$1 '/^sort/ && ($2=="sample" || $2=="cub-merge") {printf "%-6s %-10s %-4s %-5s %-5s %9s %s\n", w, $2, $3, $4, $6, $7, $NF}' $OUT/$2-$1.txt >> $OUT/table.txt
}
for r in 1 2; do for w in device host; do bench $w r$r 24,26 u32,u64 keys,pairs 5; done; done
for w in device host; do bench $w big 28 u32 keys 3; done
cd $B
for t in "sample tiled"; do
  set -- $t; t0=$(date +%s)
  CK_FORK=no CLSORT_TEST_DEVICE=NVIDIA CLSORT_TEST_TMPDIR=/tmp/tt-$1$2 timeout 150 tests/test_$1 quick $2 > $OUT/test-$1$2.log 2>&1
  echo "test_$1 $2 on NVIDIA: rc $? ($(( $(date +%s) - t0 )) s) $(grep -o 'Checks.*' $OUT/test-$1$2.log)" >> $OUT/table.txt
done
cd $OUT && tar czf raw.tgz *.jsonl r*.txt big*.txt *.log && rm -f r*-*.txt big*.txt *.jsonl
grep test_ table.txt; grep -E "planned|packed" timeline-device.txt | tail -4
