#!/bin/bash
# Call 16 (H100 host): sample.cl's scanned-table reads through one helper
# (scanned_at; no change in what is read): test_sample on NVIDIA (32, 64,
# tiled) and on PoCL 5.0 (tiled, 32), the sample sort beside CUB's merge
# sort at 2^24/2^26; and the merge sort's co-rank ways at 2^22/2^23 u32
# keys with the final shape (2048 and 4096 tiles).
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc16 CLSORT_CACHE_DIR=/tmp/cc16 LD_LIBRARY_PATH=$B:$B/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms sample --peers cub --runs 7 \
  --sort-sizes 24,26 --types u32,u64 --data keys,pairs > $OUT/sample.txt 2>&1
grep '^sort ' $OUT/sample.txt | awk '{printf "%s %s %s 2^%s %s\n", $2, $3, $4, $6, $7}' >> $OUT/table.txt
for w in default search probe fused; do
  CLSORT_MERGE_PARTITION=$w timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge --peers none --runs 9 \
    --sort-sizes 22,23 --types u32 --data keys > $OUT/way-$w.txt 2>&1
  echo "way $w: $(grep '^sort  *merge ' $OUT/way-$w.txt | awk '{printf "2^%s %s  ", $6, $7}')" >> $OUT/table.txt
done
cd $B
for t in "NVIDIA 32" "NVIDIA 64" "NVIDIA tiled" "cpu tiled" "cpu 32"; do
  set -- $t
  CK_FORK=no CLSORT_TEST_DEVICE=$1 CLSORT_TEST_TMPDIR=/tmp/tt16 timeout 200 tests/test_sample quick $2 > $OUT/test-$1-$2.log 2>&1
  echo "test_sample $2 on $1: rc $? $(grep -o 'Checks.*' $OUT/test-$1-$2.log)" >> $OUT/table.txt
done
grep -h 'measurements in' $OUT/*.txt >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt *.log && rm -f sample.txt way-*.txt *.log
cat table.txt
