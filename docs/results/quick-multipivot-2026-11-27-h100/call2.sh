#!/bin/bash
# Call 2 (H100 host): the multi-pivot quicksort (16 ways, 8 keys sampled
# per pivot, on the sample sort's levels) beside CUB's DeviceMergeSort,
# the two-way quicksort (CLSORT_QUICK_WAYS=2) and 32 ways in the same run;
# the distributions at 2^24; test_quick on the H100 (matrix) and on the
# host's PoCL 5.0 (every part: the tiled part runs the multi-pivot levels
# on a GPU shape, two-way the two-way partition).
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/host.txt
mkdir -p $OUT/raw
BENCH="cli/clsort bench --device NVIDIA --primitives none --runs 9"
run() { local name=$1 var=$2; shift 2; env $var timeout 150 $BENCH "$@" > $OUT/raw/$name.txt 2>&1; }
run main X=0 --algorithms quick,sample --types u32,u64 --data keys,pairs --sort-sizes 20,22,24,26 --peers cub
run argsort X=0 --algorithms quick --types u32 --data pairs --value-size 8 --sort-sizes 24 --peers none
run two_way CLSORT_QUICK_WAYS=2 --algorithms quick --types u32,u64 --data keys,pairs --sort-sizes 24,26 --peers none
run ways32 CLSORT_QUICK_WAYS=32:16 --algorithms quick --types u32,u64 --data keys,pairs --sort-sizes 24,26 --peers none
run dists X=0 --algorithms quick --types u32 --data keys --sort-sizes 24 --distributions all --peers cub
run desc X=0 --algorithms quick --types f32,i64 --data keys --sort-sizes 24 --descending --peers none
t() { local name=$1 dev=$2 limit=$3; shift 3
  (time CK_FORK=no CLSORT_TEST_DEVICE=$dev timeout $limit "$@") > $OUT/raw/$name.txt 2>&1; }
t quick_h100 NVIDIA 150 tests/test_quick quick matrix
t quick_pocl5 cpu 200 tests/test_quick quick
cd $OUT/raw && tar czf $OUT/raw.tgz *.txt && cd $B
cat $OUT/host.txt
for f in $OUT/raw/*.txt; do echo "== $(basename $f)"; grep -E "^sort" $f | awk '{print $2,$3,$4,$5,$6,$7}' | tr '\n' ';'; grep -E "Checks|real|failures" $f | tr '\n' ' '; echo; done
rm -rf $OUT/raw
