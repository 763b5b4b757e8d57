#!/bin/bash
# Call 9 (H100): merge_partition with fewer probes a tile (MP_P; several
# tiles a group) against the binary searches the merge sort takes from
# 4096 tiles on; u32 and u64 keys 2^22-2^26; serialised co-rank times at
# 2^26 u32 keys; test_merge tiled on NVIDIA (each co-rank way forced).
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc LD_LIBRARY_PATH=$B:$B/src
run() { # tag env...
  local tag=$1; shift
  env "$@" timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge --peers $peers \
    --sort-sizes 22,23,24,26 --types u32,u64 --data keys --runs 7 --json $OUT/$tag.jsonl > $OUT/$tag.txt 2>&1
  echo "$tag: $(grep '^sort  *merge ' $OUT/$tag.txt | awk '{printf "%s 2^%s %s  ", $3, $6, $7}')" >> $OUT/table.txt
}
peers=cub; run default X=1
grep '^sort  *cub-merge ' $OUT/default.txt | awk '{printf "cub-merge %s 2^%s %s\n", $3, $6, $7}' >> $OUT/table.txt
peers=none
for P in 32 8 4 2; do run probe$P CLSORT_MERGE_PARTITION=probe CLSORT_MERGE_PROBES=$P; done
run default-again X=1
for v in "search X=1" "probe8 CLSORT_MERGE_PROBES=8" "probe4 CLSORT_MERGE_PROBES=4"; do
  set -- $v; tag=$1; shift
  env CLSORT_MERGE_PARTITION=${tag//[0-9]/} "$@" CLSORT_PROFILE=1 timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms merge --sort-sizes 26 --types u32 --data keys --runs 1 --peers none > $OUT/profile-$tag.txt 2>&1
  echo "== profile $tag: $(grep '^clsort profile' $OUT/profile-$tag.txt | awk '{k=$3; t[k]+=$(NF-1); c[k]++} END {for (k in t) printf "%s %d x %.3f ms; ", k, c[k], t[k]}')" >> $OUT/table.txt
done
cd $B
CK_FORK=no CLSORT_TEST_CL_DIR=$OLDPWD/cl CLSORT_TEST_DEVICE=NVIDIA CLSORT_TEST_TMPDIR=/tmp/tt9 timeout 150 tests/test_merge quick tiled > $OUT/test-nv-mergetiled.log 2>&1
echo "test_merge tiled on NVIDIA: rc $? $(grep -o 'Checks.*' $OUT/test-nv-mergetiled.log)" >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.jsonl *.txt *.log && rm -f *.jsonl default*.txt probe*.txt profile-*.txt *.log
cat table.txt
