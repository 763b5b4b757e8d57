#!/bin/bash
# Call 4 (H100): register caps (option tokens -DCLSORT_MAXNREG_<kernel>,
# here through CLSORT_NV_MAXNREG) on the kernels whose groups an SM holds
# few of: quick_split (113 registers), the bitonic tiles (49), the merge
# sort's tiles (48), range_sort_tiles (64), sample_scatter (48), the radix
# pass (80). Register use and spills, every sort at 2^24 / 2^26 u32 keys
# (two rounds, CUB in the first), serialised per-kernel profiles at 2^24.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc4 LD_LIBRARY_PATH=$B:$B/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
V=(none
   quick_split=80,bitonic_sort_segments=40,bitonic_sort_tiles=40,merge_sort_tiles=40,range_sort_tiles=48,sample_scatter=40,radix_nv_pass=56
   quick_split=64,bitonic_sort_segments=32,bitonic_sort_tiles=32,merge_sort_tiles=32,range_sort_tiles=40,sample_scatter=32,radix_nv_pass=40)
ALG=radix,sample,merge,quick,bitonic
for i in "${!V[@]}"; do
  caps=${V[$i]}; [[ $caps == none ]] && caps=
  CLSORT_NV_MAXNREG=$caps CLSORT_CACHE_DIR=/tmp/fv$i CLSORT_LOG=debug CLSORT_EXTRA_BUILD_OPTIONS="-cl-nv-verbose" timeout 90 \
    $B/cli/clsort bench --device NVIDIA --primitives none --algorithms $ALG --sort-sizes 20 --types u32 --data keys \
    --runs 1 --peers none > $OUT/verbose$i.txt 2>&1
  echo "== variant $i: $caps" >> $OUT/table.txt
  grep -E "Compiling entry|Used [0-9]+ registers|spill|rebuilt from PTX" $OUT/verbose$i.txt | sed 's/ptxas info *: //; s/ptxas *\.  *//' |
    grep -v ' 0 bytes spill stores, 0 bytes spill' | awk '/Compiling entry/ {n=$4; next} /Used/ {print "   " n " " $2 " regs, " $9 " " $10 " smem"; next} {print "     " $0}' |
    grep -E "quick_split|bitonic_sort|merge_sort_tiles|range_sort|sample_scatter|radix_nv_pass|spill|rebuilt" | sort | uniq >> $OUT/table.txt
done
for round in 1 2; do
  for i in "${!V[@]}"; do
    caps=${V[$i]}; [[ $caps == none ]] && caps=
    peers=none; [[ $round == 1 && $i == 0 ]] && peers=cub
    CLSORT_NV_MAXNREG=$caps CLSORT_CACHE_DIR=/tmp/fc$i timeout 150 $B/cli/clsort bench --device NVIDIA \
      --primitives none --algorithms $ALG --peers $peers --runs 5 --sort-sizes 24,26 --types u32 --data keys \
      > $OUT/r$round-$i.txt 2>&1
    echo "round $round variant $i: $(grep -E '^sort ' $OUT/r$round-$i.txt | awk '{printf "%s 2^%s %s  ", $2, $6, $7}')" >> $OUT/table.txt
  done
done
for i in "${!V[@]}"; do
  caps=${V[$i]}; [[ $caps == none ]] && caps=
  CLSORT_NV_MAXNREG=$caps CLSORT_CACHE_DIR=/tmp/fc$i CLSORT_PROFILE=1 timeout 90 $B/cli/clsort bench --device NVIDIA \
    --primitives none --algorithms $ALG --sort-sizes 24 --types u32 --data keys --runs 1 --peers none > $OUT/prof$i.txt 2>&1
  echo "== profile variant $i 2^24 (every sort of the run, serialised)" >> $OUT/table.txt
  grep "^clsort profile" $OUT/prof$i.txt | awk '{k=$3; t[k]+=$(NF-1); c[k]++} END {for (k in t) if (t[k] > 0.05) printf "   %-26s %3d launches %8.3f ms\n", k, c[k], t[k]}' | sort >> $OUT/table.txt
done
grep -h 'measurements in' $OUT/*.txt | sort | uniq -c >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt && rm -f verbose*.txt r[12]-*.txt prof*.txt
cat table.txt
