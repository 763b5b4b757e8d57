#!/bin/bash
# Call 6: the sample sort's packed leaves sent in batches of 1024 while the
# host plans the rest of the last level (new) against c72fa6a (old), CUB's
# merge sort in each run, three rounds alternating; a timeline of the new
# at 2^24; test_sample tiled on NVIDIA.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc
lib() { [[ $1 == new ]] && echo $B:$B/src || echo $B/oldlib:$B; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
LD_LIBRARY_PATH=$(lib new) CLSORT_CACHE_DIR=/tmp/cc-new CLSORT_LOG=debug CLSORT_PROFILE=timeline $B/cli/clsort bench --device NVIDIA --primitives none \
  --algorithms sample --sort-sizes 24 --types u32 --data keys --runs 2 > $OUT/timeline-new.txt 2>&1
bench() { # new|old name sizes types data runs
  LD_LIBRARY_PATH=$(lib $1) CLSORT_CACHE_DIR=/tmp/cc-$1 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms sample \
    --peers cub --sort-sizes $3 --types $4 --data $5 --runs $6 --json $OUT/$2-$1.jsonl > $OUT/$2-$1.txt 2>&1
  awk -v w=$1 '/^sort/ && ($2=="sample" || $2=="cub-merge") {printf "%-4s %-10s %-4s %-5s %-5s %9s %s\n", w, $2, $3, $4, $6, $7, $NF}' $OUT/$2-$1.txt >> $OUT/table.txt
}
for r in 1 2 3; do for w in new old; do bench $w r$r 24,26 u32,u64 keys,pairs 5; done; done
for w in new old; do bench $w big 28 u32 keys 3; done
cd $B
for t in "sample tiled"; do
  set -- $t; t0=$(date +%s)
  CK_FORK=no CLSORT_TEST_CL_DIR=$OLDPWD/cl CLSORT_TEST_DEVICE=NVIDIA LD_LIBRARY_PATH=$B:$B/src CLSORT_TEST_TMPDIR=/tmp/tt-$1$2 \
    timeout 120 tests/test_$1 quick $2 > $OUT/test-$1$2.log 2>&1
  echo "test_$1 $2 on NVIDIA: rc $? ($(( $(date +%s) - t0 )) s) $(grep -o 'Checks.*' $OUT/test-$1$2.log)" >> $OUT/table.txt
done
cd $OUT && tar czf raw.tgz --exclude table.txt *.jsonl r*.txt big*.txt && rm -f r*-*.txt big*.txt *.jsonl
sort -k2,2 -k3,3 -k4,4 -k5,5 -s table.txt | grep -v "^old.*cub"
