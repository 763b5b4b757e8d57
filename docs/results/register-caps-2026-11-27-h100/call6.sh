#!/bin/bash
# Call 6 (H100): the quicksort with its register cap in the library
# (quick_split at 64, 80 for u64 pairs; u32 pairs in tiles of 4096 keys)
# against 6cc6385's library (oldlib) in the same call, beside CUB's merge
# sort; test_quick and test_cache on NVIDIA, test_quick tiled on PoCL 5.0;
# the cold build's cost (the PTX rebuild); seed 000's experiment refreshed.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc6
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
for round in 1 2; do
  for lib in new old; do
    L=$B:$B/src; [[ $lib == old ]] && L=$B/oldlib:$B
    peers=none; [[ $round == 1 && $lib == new ]] && peers=cub
    LD_LIBRARY_PATH=$L CLSORT_CACHE_DIR=/tmp/hc-$lib timeout 150 $B/cli/clsort bench --device NVIDIA --primitives none \
      --algorithms quick --peers $peers --runs 7 --sort-sizes 24,26 --types u32,u64 --data keys,pairs > $OUT/r$round-$lib.txt 2>&1
    echo "round $round $lib: $(grep -E '^sort  *(quick|cub-merge) ' $OUT/r$round-$lib.txt | awk '{printf "%s %s %s 2^%s %s  ", $2, $3, $4, $6, $7}')" >> $OUT/table.txt
  done
done
export LD_LIBRARY_PATH=$B:$B/src
rm -rf /tmp/cold6 && CLSORT_CACHE_DIR=/tmp/cold6 CLSORT_LOG=debug timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
  --algorithms quick --sort-sizes 16 --types u32 --data keys --runs 1 --peers none > $OUT/cold.txt 2>&1
echo "cold quick build: $(grep -E 'built quick|rebuilt from PTX' $OUT/cold.txt | sed -E 's/\(-w.*//' | tr '\n' ' ')" >> $OUT/table.txt
cd $B
for t in "NVIDIA test_quick matrix" "NVIDIA test_quick tiled" "NVIDIA test_cache ." "cpu test_quick tiled"; do
  set -- $t; part=$3; [[ $part == . ]] && part=
  CK_FORK=no CLSORT_TEST_DEVICE=$1 CLSORT_TEST_TMPDIR=/tmp/tt6 CLSORT_CACHE_DIR=/tmp/tc6 timeout 240 tests/$2 quick $part > $OUT/test-$1-$2-$3.log 2>&1
  echo "$2 $part on $1: rc $? $(grep -o 'Checks.*' $OUT/test-$1-$2-$3.log)" >> $OUT/table.txt
done
CLSORT_CACHE_DIR=/tmp/hc-new timeout 150 $B/cli/clsort bench --device NVIDIA --quiet --experiment seed000 --json $OUT/seed000.jsonl > $OUT/seed000.txt 2>&1
echo "seed000: rc $? $(grep -c . $OUT/seed000.jsonl) rows" >> $OUT/table.txt
grep -h 'measurements in' $OUT/*.txt | sort | uniq -c >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt *.log && rm -f r[12]-*.txt cold.txt seed000.txt *.log
cat table.txt
