#!/bin/bash
# Call 6 (H100): register use of the comparison sorts' kernels
# (-cl-nv-verbose), and the merge sort's kernels under register caps
# (-cl-nv-maxrregcount, all programs), serialised profiles at 2^26 u32 keys.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc6 LD_LIBRARY_PATH=$B:$B/src
CLSORT_LOG=debug CLSORT_EXTRA_BUILD_OPTIONS=-cl-nv-verbose timeout 120 $B/cli/clsort bench --device NVIDIA --primitives none \
  --algorithms sample,merge,quick --sort-sizes 24 --types u32 --data keys --runs 1 --peers none > $OUT/verbose.txt 2>&1
grep -E "build log of|Compiling entry|Used [0-9]+ registers|spill" $OUT/verbose.txt |
  sed -E 's/^clsort: build log of ([a-z_]+) \(.*(KEY_BITS=[0-9]+).*(HAS_VALUES=[01]).*/== \1 \2 \3/; s/ptxas info *: //' |
  grep -E "^== (merge|sample|quick|segment_tiles|bitonic)|Compiling entry|Used|spill" | grep -v "0 bytes spill stores, 0 bytes spill loads" > $OUT/registers.txt
head -c 6000 $OUT/registers.txt > $OUT/table.txt
for cap in 0 32 40 48 64 96; do
  opt=""; [[ $cap != 0 ]] && opt="-cl-nv-maxrregcount=$cap"
  CLSORT_EXTRA_BUILD_OPTIONS="$opt" CLSORT_PROFILE=1 timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms merge,quick --sort-sizes 26 --types u32 --data keys --runs 1 --peers none > $OUT/cap$cap.txt 2>&1
  echo "== cap $cap: $(grep '^sort' $OUT/cap$cap.txt | awk '{printf "%s %s ms  ", $2, $7}')" >> $OUT/table.txt
  grep "^clsort profile" $OUT/cap$cap.txt | awk '{k=$3; t[k]+=$(NF-1); c[k]++} END {for (k in t) printf "   %-26s %3d launches %8.3f ms\n", k, c[k], t[k]}' | sort >> $OUT/table.txt
done
cd $OUT && tar czf raw.tgz *.txt && rm -f verbose.txt cap*.txt
cat table.txt
