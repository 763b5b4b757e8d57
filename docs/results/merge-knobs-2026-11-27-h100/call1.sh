#!/bin/bash
# Call 1 (H100, 5318675's build): the merge sort of u32 keys at 2^21-2^23
# beside CUB's DeviceMergeSort under its pass-shape knobs, to see whether
# a size-dependent choice closes 2^22 (0.90x on 2026-11-27, day).
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
BENCH="cli/clsort bench --device NVIDIA --primitives none --algorithms merge --sort-sizes 21,22,23 --types u32 --data keys --runs 15 --peers cub"
run() { local name=$1; shift; env "$@" timeout 60 $BENCH > $OUT/$name.txt 2>&1; }
run default X=0
run fused CLSORT_MERGE_PARTITION=fused
run search CLSORT_MERGE_PARTITION=search
run wg256 CLSORT_MERGE=256:16
run nosamples CLSORT_MERGE_SAMPLES=0
run default2 X=0
for f in default fused search wg256 nosamples default2; do echo "== $f"; grep -E "^sort" $OUT/$f.txt | awk '{print $2,$6,$7,$12}' | tr '\n' ';'; echo; done
