#!/bin/bash
# Call 3 (H100): register caps through the PTX (.maxnreg in one entry,
# CLSORT_NV_MAXNREG, src/runtime/ptx_registers.c): merge_pass 40 -> 32
# (12 -> 16 groups of 128 an SM: 2^22's 2048 groups in one wave), and
# merge_sort_tiles 48 -> 40 / 32 (2 -> 3 / 4 groups of 512 an SM).
# Register use and spills, the merge sort at 2^20-2^24 and 2^26 (two
# rounds, CUB in the first), serialised profiles at 2^22.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc3 LD_LIBRARY_PATH=$B:$B/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
V=(none merge_pass=32 merge_sort_tiles=40 merge_pass=32,merge_sort_tiles=40 merge_pass=32,merge_sort_tiles=32)
for i in "${!V[@]}"; do
  caps=${V[$i]}; [[ $caps == none ]] && caps=
  CLSORT_NV_MAXNREG=$caps CLSORT_CACHE_DIR=/tmp/ev$i CLSORT_LOG=debug CLSORT_EXTRA_BUILD_OPTIONS="-cl-nv-verbose" timeout 60 \
    $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge --sort-sizes 22 --types u32 --data keys \
    --runs 1 --peers none > $OUT/verbose$i.txt 2>&1
  echo "== ${V[$i]}: $(grep -E "Used [0-9]+ registers|spill" $OUT/verbose$i.txt | sed 's/ptxas info *: //' | grep -v ' 0 bytes spill stores, 0 bytes spill' | tr '\n' ' ' | cut -c1-400)" >> $OUT/table.txt
done
for round in 1 2; do
  for i in "${!V[@]}"; do
    caps=${V[$i]}; [[ $caps == none ]] && caps=
    peers=none; [[ $round == 1 && $i == 0 ]] && peers=cub
    CLSORT_NV_MAXNREG=$caps CLSORT_CACHE_DIR=/tmp/ec$i timeout 90 $B/cli/clsort bench --device NVIDIA \
      --primitives none --algorithms merge --peers $peers --runs 9 --sort-sizes 20,21,22,23,24,26 --types u32 --data keys \
      > $OUT/r$round-$i.txt 2>&1
    echo "round $round ${V[$i]}: $(grep -E '^sort  *(merge|cub-merge) ' $OUT/r$round-$i.txt | awk '{printf "%s 2^%s %s  ", $2, $6, $7}')" >> $OUT/table.txt
  done
done
for i in 0 1 4; do
  caps=${V[$i]}; [[ $caps == none ]] && caps=
  CLSORT_NV_MAXNREG=$caps CLSORT_CACHE_DIR=/tmp/ec$i CLSORT_PROFILE=1 timeout 60 $B/cli/clsort bench --device NVIDIA \
    --primitives none --algorithms merge --sort-sizes 22 --types u32 --data keys --runs 1 --peers none > $OUT/prof$i.txt 2>&1
  echo "== profile ${V[$i]} 2^22 (all sorts of the run, serialised)" >> $OUT/table.txt
  grep "^clsort profile" $OUT/prof$i.txt | awk '{k=$3; t[k]+=$(NF-1); c[k]++} END {for (k in t) printf "   %-26s %3d launches %8.3f ms\n", k, c[k], t[k]}' | sort >> $OUT/table.txt
done
grep -h 'measurements in' $OUT/*.txt | sort | uniq -c >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt && rm -f verbose*.txt r[12]-*.txt prof*.txt
cat table.txt
