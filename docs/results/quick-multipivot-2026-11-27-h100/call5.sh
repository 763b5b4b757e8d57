#!/bin/bash
# Call 5 (H100): the merge sort's u32 keys at 2^21-2^24 (issue 16's last
# misses: 0.89x at 2^22, 0.999x at 2^24 in call 4) with a 4096-key run
# formation (CLSORT_MERGE_BLOCK=4096: one pass more, a cheaper tile sort),
# alone and with the fused co-rank way, beside the default, two rounds.
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
BENCH="cli/clsort bench --device NVIDIA --primitives none --algorithms merge --sort-sizes 21,22,23,24 --types u32 --data keys --runs 15"
run() { local name=$1 var=$2; shift 2; env $var timeout 60 $BENCH "$@" > $OUT/$name.txt 2>&1; }
for r in 1 2; do
  run default$r X=0 --peers cub
  run block4096_$r CLSORT_MERGE_BLOCK=4096
  run block2048_$r CLSORT_MERGE_BLOCK=2048
  run fused$r CLSORT_MERGE_PARTITION=fused
done
for f in $OUT/*.txt; do echo "== $(basename $f .txt)"; grep -E "^sort" $f | awk '{print $2,$6,$7}' | tr '\n' ';'; echo; done
