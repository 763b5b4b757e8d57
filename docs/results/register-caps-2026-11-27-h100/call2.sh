#!/bin/bash
# Call 2 (H100): call 1's caps did not take (40 registers either way):
# cl_nv_compiler_options spells the option "-cl-nv-maxrregcount <N>",
# with a space. Register use at caps 0 / 32 / 36 with that spelling, the
# merge sort at 2^20-2^24 with each (two rounds, CUB in the first),
# serialised profiles at 2^22 / 2^23.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc2 LD_LIBRARY_PATH=$B:$B/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
capopt() { [[ $1 != 0 ]] && echo "-cl-nv-maxrregcount $1"; }
for cap in 0 32 36; do
  CLSORT_CACHE_DIR=/tmp/dv$cap CLSORT_LOG=debug CLSORT_EXTRA_BUILD_OPTIONS="-cl-nv-verbose $(capopt $cap)" timeout 60 \
    $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge --sort-sizes 22 --types u32 --data keys \
    --runs 1 --peers none > $OUT/verbose$cap.txt 2>&1
  echo "== cap $cap" >> $OUT/table.txt
  grep -E "Compiling entry|Used [0-9]+ registers|spill" $OUT/verbose$cap.txt | sed 's/ptxas info *: //' |
    grep -E "entry|Used|spill" | head -16 >> $OUT/table.txt
done
for round in 1 2; do
  for cap in 0 32 36; do
    peers=none; [[ $round == 1 && $cap == 0 ]] && peers=cub
    CLSORT_CACHE_DIR=/tmp/dc$cap CLSORT_EXTRA_BUILD_OPTIONS="$(capopt $cap)" timeout 90 $B/cli/clsort bench --device NVIDIA \
      --primitives none --algorithms merge --peers $peers --runs 9 --sort-sizes 20,21,22,23,24 --types u32 --data keys \
      > $OUT/r$round-cap$cap.txt 2>&1
    echo "round $round cap $cap: $(grep -E '^sort  *(merge|cub-merge) ' $OUT/r$round-cap$cap.txt | awk '{printf "%s 2^%s %s  ", $2, $6, $7}')" >> $OUT/table.txt
  done
done
for cap in 0 32 36; do for lg in 22 23; do
  CLSORT_CACHE_DIR=/tmp/dc$cap CLSORT_EXTRA_BUILD_OPTIONS="$(capopt $cap)" CLSORT_PROFILE=1 timeout 60 $B/cli/clsort bench --device NVIDIA \
    --primitives none --algorithms merge --sort-sizes $lg --types u32 --data keys --runs 1 --peers none > $OUT/prof$cap-$lg.txt 2>&1
  echo "== profile cap $cap 2^$lg (all sorts of the run, serialised)" >> $OUT/table.txt
  grep "^clsort profile" $OUT/prof$cap-$lg.txt | awk '{k=$3; t[k]+=$(NF-1); c[k]++} END {for (k in t) printf "   %-26s %3d launches %8.3f ms\n", k, c[k], t[k]}' | sort >> $OUT/table.txt
done; done
grep -h 'measurements in' $OUT/*.txt | sort | uniq -c >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt && rm -f verbose*.txt r[12]-*.txt prof*.txt
cat table.txt
