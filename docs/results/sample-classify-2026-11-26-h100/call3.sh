#!/bin/bash
# Call 3: the sorts' host worklists pinned (the sample sort's bucket
# sizes and the quicksort's headers read into pinned memory; the sample
# sort's leaf plan and copies written from it without blocking) and the
# counts' wait polled (new) against main 603c271 (old): a timeline of the
# new at 2^24 u32 keys, then three rounds alternating, CUB's merge sort in
# each run; sample and quick.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc
lib() { [[ $1 == new ]] && echo $B:$B/src || echo $B/oldlib:$B; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
for spin in new; do
  LD_LIBRARY_PATH=$(lib $spin) CLSORT_CACHE_DIR=/tmp/cc-$spin CLSORT_PROFILE=timeline $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms sample,quick --sort-sizes 24 --types u32 --data keys --runs 2 > $OUT/timeline-$spin.txt 2>&1
done
bench() { # new|old name
  LD_LIBRARY_PATH=$(lib $1) CLSORT_CACHE_DIR=/tmp/cc-$1 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms sample,quick \
    --peers cub --sort-sizes 24,26 --types u32 --data keys,pairs --runs 7 --json $OUT/$2-$1.jsonl > $OUT/$2-$1.txt 2>&1
  awk -v w=$1 '/^sort/ && ($2=="sample" || $2=="quick" || $2=="cub-merge") {printf "%-4s %-10s %-4s %-5s %-5s %9s %s\n", w, $2, $3, $4, $6, $7, $NF}' $OUT/$2-$1.txt >> $OUT/table.txt
}
for r in 1 2 3; do for w in new old; do bench $w r$r; done; done
cd $OUT && tar czf raw.tgz --exclude table.txt *.jsonl r*.txt && rm -f r*-*.txt *.jsonl
sort -k2,2 -k3,3 -k4,4 -k5,5 -s table.txt
cd $B
for t in "sample 32" "sample tiled" "quick matrix" "segmented packed"; do
  set -- $t; t0=$(date +%s)
  CK_FORK=no CLSORT_TEST_CL_DIR=$OLDPWD/cl CLSORT_TEST_DEVICE=NVIDIA LD_LIBRARY_PATH=$B:$B/src CLSORT_TEST_TMPDIR=/tmp/tt-$1$2 \
    timeout 120 tests/test_$1 quick $2 > $OUT/test-$1$2.log 2>&1
  echo "test_$1 $2 on NVIDIA: rc $? ($(( $(date +%s) - t0 )) s) $(grep -o 'Checks.*' $OUT/test-$1$2.log)"
done
