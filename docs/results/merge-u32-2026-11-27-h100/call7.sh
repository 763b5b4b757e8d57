#!/bin/bash
# Call 7 (H100): call 6 with the samples written from the merged keys in
# registers (call 6 wrote them in the store loop, and merge_pass slowed).
# Also the searches with samples forced at 2^22-2^23. Library at the working tree (samples on, and off through
# CLSORT_MERGE_SAMPLES=0) against 1c63928's (oldlib). Merge u32 keys
# 2^20-2^26 twice beside CUB; other types and orders; serialised co-rank
# times at 2^24 and 2^26; the merge tests on NVIDIA with the embedded
# kernels.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc
NEW=$B:$B/src OLD=$B/oldlib:$B
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
run() { # tag libpath samples peers extra-args...
  local tag=$1 lib=$2 samp=$3 peers=$4; shift 4
  LD_LIBRARY_PATH=$lib CLSORT_MERGE_SAMPLES=$samp timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge \
    --peers $peers --runs 7 --json $OUT/$tag.jsonl "$@" > $OUT/$tag.txt 2>&1
  echo "$tag: $(grep '^sort[-a-z]*  *\(merge\|cub-merge\) ' $OUT/$tag.txt | awk '{printf "%s %s %s %s 2^%s %s  ", $2, $1, $3, $4, $6, $7}')" >> $OUT/table.txt
}
for round in 1 2; do
  p=none; [ $round = 1 ] && p=cub
  run u32-old-$round $OLD 1 $p --sort-sizes 20,21,22,23,24,26 --types u32 --data keys
  run u32-new-$round $NEW 1 none --sort-sizes 20,21,22,23,24,26 --types u32 --data keys
  run u32-nosamp-$round $NEW 0 none --sort-sizes 20,21,22,23,24,26 --types u32 --data keys
done
run u32-new-28 $NEW 1 cub --sort-sizes 28 --types u32 --data keys --runs 3
for w in search probe fused; do
  LD_LIBRARY_PATH=$NEW CLSORT_MERGE_PARTITION=$w timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge \
    --peers none --runs 7 --sort-sizes 21,22,23,24 --types u32,u64 --data keys > $OUT/way-$w.txt 2>&1
  echo "way $w: $(grep '^sort  *merge ' $OUT/way-$w.txt | awk '{printf "%s 2^%s %s  ", $3, $6, $7}')" >> $OUT/table.txt
done
for v in "old $OLD" "new $NEW"; do
  set -- $v
  run other-$1 $2 1 none --sort-sizes 24,26 --types i32,u64,f32 --data keys,pairs
  run desc-$1 $2 1 none --sort-sizes 24,26 --types u32,i64 --data keys,pairs --descending
done
for samp in 1 0; do for s in 24 26; do
  LD_LIBRARY_PATH=$NEW CLSORT_MERGE_SAMPLES=$samp CLSORT_PROFILE=1 timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms merge --sort-sizes $s --types u32 --data keys --runs 1 --peers none > $OUT/profile-$samp-$s.txt 2>&1
  echo "== profile samples=$samp 2^$s: $(grep '^clsort profile' $OUT/profile-$samp-$s.txt | awk '{k=$3; t[k]+=$(NF-1); c[k]++} END {for (k in t) printf "%s %d x %.3f ms; ", k, c[k], t[k]}')" >> $OUT/table.txt
done; done
cd $B
export LD_LIBRARY_PATH=$NEW
for t in "test_merge tiled" "test_merge matrix" "test_merging tiled" "test_segmented packed" "test_sample tiled"; do
  set -- $t
  CK_FORK=no CLSORT_TEST_DEVICE=NVIDIA CLSORT_TEST_TMPDIR=/tmp/tt7 timeout 150 tests/$1 quick $2 > $OUT/test-nv-$1-$2.log 2>&1
  echo "$1 $2 on NVIDIA: rc $? $(grep -o 'Checks.*' $OUT/test-nv-$1-$2.log)" >> $OUT/table.txt
done
grep -h 'measurements in' $OUT/*.txt | grep -v ' 0 verification failures, 0 errors' >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.jsonl *.txt *.log && rm -f *.jsonl u32-*.txt other-*.txt desc-*.txt profile-*.txt way-*.txt *.log
cat table.txt
