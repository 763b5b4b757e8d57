#!/bin/bash
# Call 1 (H100, 40db95f's build): would a quicksort with several pivots a
# level, on the sample sort's classification, reach 0.7x CUB's merge sort?
# The sample sort at small fan-outs (CLSORT_SAMPLE=K:S) beside the binary
# quicksort and CUB's DeviceMergeSort, u32/u64 keys and u32 pairs.
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
BENCH="cli/clsort bench --device NVIDIA --primitives none --sort-sizes 24,26 --runs 9"
mkdir -p $OUT/raw
run() { local name=$1 var=$2; shift 2; env $var timeout 100 $BENCH "$@" > $OUT/raw/$name.txt 2>&1; }
run quick X=0 --algorithms quick,sample --types u32,u64 --data keys --peers cub
run quick_pairs X=0 --algorithms quick,sample --types u32 --data pairs --peers cub
for k in 4 8 16 32; do
  for s in 8 16; do
    run s${k}_$s CLSORT_SAMPLE=$k:$s --algorithms sample --types u32 --data keys --peers none
  done
done
run s8_8_u64 CLSORT_SAMPLE=8:8 --algorithms sample --types u64 --data keys --peers none
run s8_8_pairs CLSORT_SAMPLE=8:8 --algorithms sample --types u32 --data pairs --peers none
run s16_8_u64 CLSORT_SAMPLE=16:8 --algorithms sample --types u64 --data keys --peers none
CLSORT_SAMPLE=8:8 CLSORT_LOG=debug timeout 30 $BENCH --algorithms sample --types u32 --data keys --peers none --sort-sizes 24 --runs 1 --warmup 1 > $OUT/raw/s8_debug.txt 2>&1
cd $OUT/raw && tar czf $OUT/raw.tgz *.txt && cd $B
for f in $OUT/raw/*.txt; do echo "== $(basename $f)"; grep -E "^sort" $f | awk '{print $2,$3,$4,$6,$7,$12}' | tr '\n' ';'; echo; done
rm -rf $OUT/raw
