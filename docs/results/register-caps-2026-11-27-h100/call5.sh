#!/bin/bash
# Call 5 (H100): the quicksort's register caps for every key type and mode
# (call 4: u32 keys 1.98 / 7.84 -> 1.75 / 6.72 ms at 2^24 / 2^26 with
# quick_split at 64 registers, the leaves' bitonic_sort_segments 8% faster
# at 40). Register use per type, then u32 / u64 keys and pairs at 2^24 and
# u32 keys at 2^26 with quick_split capped at 0 (none) / 80 / 64 / 48 and
# bitonic_sort_segments at 0 / 40 (two rounds), and the split tile of 4096
# keys (CLSORT_QUICK=16) under the caps.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc5 LD_LIBRARY_PATH=$B:$B/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
V=(quick_split=0,bitonic_sort_segments=0 quick_split=80,bitonic_sort_segments=0 quick_split=64,bitonic_sort_segments=0
   quick_split=48,bitonic_sort_segments=0 quick_split=64,bitonic_sort_segments=40)
CLSORT_NV_MAXNREG=${V[4]} CLSORT_CACHE_DIR=/tmp/gv CLSORT_LOG=debug CLSORT_EXTRA_BUILD_OPTIONS="-cl-nv-verbose" timeout 90 \
  $B/cli/clsort bench --device NVIDIA --primitives none --algorithms quick --sort-sizes 20 --types u32,u64 --data keys,pairs \
  --runs 1 --peers none > $OUT/verbose.txt 2>&1
grep -E "build log of|Compiling entry|Used [0-9]+ registers|spill" $OUT/verbose.txt | sed -E 's/^clsort: build log of ([a-z_]+) \(.*(KEY_BITS=[0-9]+).*(HAS_VALUES=[01]).*/== \1 \2 \3/; s/ptxas info *: //' |
  grep -E "^== |Compiling entry|Used|spill" | grep -B1 -E "Used|spill" | grep -v '^--' | grep -A2 -E "^== |quick_split|bitonic_sort_segments" | grep -v '^--' > $OUT/registers.txt
head -c 3000 $OUT/registers.txt >> $OUT/table.txt
for round in 1 2; do
  for i in "${!V[@]}"; do
    CLSORT_NV_MAXNREG=${V[$i]} CLSORT_CACHE_DIR=/tmp/gc$i timeout 120 $B/cli/clsort bench --device NVIDIA \
      --primitives none --algorithms quick --peers none --runs 5 --sort-sizes 24 --types u32,u64 --data keys,pairs \
      > $OUT/r$round-$i.txt 2>&1
    CLSORT_NV_MAXNREG=${V[$i]} CLSORT_CACHE_DIR=/tmp/gc$i timeout 120 $B/cli/clsort bench --device NVIDIA \
      --primitives none --algorithms quick --peers none --runs 5 --sort-sizes 26 --types u32 --data keys \
      >> $OUT/r$round-$i.txt 2>&1
    echo "round $round ${V[$i]}: $(grep -E '^sort ' $OUT/r$round-$i.txt | awk '{printf "%s %s 2^%s %s  ", $3, $4, $6, $7}')" >> $OUT/table.txt
  done
done
for i in 0 2 3; do
  CLSORT_QUICK=16 CLSORT_NV_MAXNREG=${V[$i]} CLSORT_CACHE_DIR=/tmp/gq$i timeout 120 $B/cli/clsort bench --device NVIDIA \
    --primitives none --algorithms quick --peers none --runs 5 --sort-sizes 24 --types u32,u64 --data keys,pairs > $OUT/q16-$i.txt 2>&1
  echo "tile 4096 ${V[$i]}: $(grep -E '^sort ' $OUT/q16-$i.txt | awk '{printf "%s %s 2^%s %s  ", $3, $4, $6, $7}')" >> $OUT/table.txt
done
grep -h 'measurements in' $OUT/*.txt | sort | uniq -c >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt && rm -f verbose.txt r[12]-*.txt q16-*.txt
cat table.txt
