#!/bin/bash
# Call 2 (H100): the quicksort's header reads on a queue of their own
# (the library here) against 2d10e5b's library (oldlib), alternating, two
# rounds, beside CUB's merge sort; the new timeline at 2^24 u32 keys;
# test_quick on NVIDIA (matrix) and on PoCL 5.0 (tiled).
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
for round in 1 2; do
  for lib in new old; do
    L=$B:$B/src; [[ $lib == old ]] && L=$B/oldlib:$B
    peers=none; [[ $round == 1 && $lib == new ]] && peers=cub
    LD_LIBRARY_PATH=$L CLSORT_CACHE_DIR=/tmp/qc-$lib timeout 150 $B/cli/clsort bench --device NVIDIA --primitives none \
      --algorithms quick --peers $peers --runs 7 --sort-sizes 20,22,24,26 --types u32,u64 --data keys,pairs > $OUT/r$round-$lib.txt 2>&1
    echo "round $round $lib: $(grep -E '^sort  *(quick|cub-merge) ' $OUT/r$round-$lib.txt | awk '{printf "%s %s %s 2^%s %s  ", $2, $3, $4, substr($6,3), $7}')" >> $OUT/table.txt
  done
done
export LD_LIBRARY_PATH=$B:$B/src
CLSORT_CACHE_DIR=/tmp/qc-new CLSORT_PROFILE=timeline timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none \
  --algorithms quick --sort-sizes 24 --types u32 --data keys --runs 1 --warmup 1 --peers none > $OUT/tl.txt 2>&1
echo "== quick 2^24 u32 keys, the last sort's timeline" >> $OUT/table.txt
awk '/clsort timeline:/ { if ($3 ~ /quick_init/) { n=0 } line[n++]=$0 } END { for (i=0;i<n;i++) print line[i] }' $OUT/tl.txt \
  | sed -E 's/clsort timeline: //' >> $OUT/table.txt
cd $B
for t in "NVIDIA test_quick matrix" "cpu test_quick tiled"; do
  set -- $t
  CK_FORK=no CLSORT_TEST_DEVICE=$1 CLSORT_TEST_TMPDIR=/tmp/tt2 CLSORT_CACHE_DIR=/tmp/tc2 timeout 280 tests/$2 quick $3 > $OUT/test-$1-$2-$3.log 2>&1
  echo "$2 $3 on $1: rc $? $(grep -o 'Checks.*' $OUT/test-$1-$2-$3.log)" >> $OUT/table.txt
done
cd $OUT && tar czf raw.tgz *.txt *.log && rm -f r[12]-*.txt tl.txt *.log
cat table.txt
