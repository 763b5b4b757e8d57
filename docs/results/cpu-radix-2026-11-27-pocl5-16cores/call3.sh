#!/bin/bash
# Call 3 (H100 host, PoCL 5.0 on 16 cores, and the H100): 38ec96f's CPU
# radix sort (buckets streamed out, smaller buckets a level down) against
# 9f9d6bf's library (oldlib); its tests on PoCL 5.0; test_sort on NVIDIA.
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
BENCH="cli/clsort bench --device cpu --primitives none --algorithms radix --sort-sizes 24,26 --types u32,u64,f64 --data keys,pairs --peers none --runs 5"
LD_LIBRARY_PATH=$B/oldlib:$B timeout 60 $BENCH > $OUT/old.txt 2>&1
timeout 60 $BENCH > $OUT/new.txt 2>&1
timeout 100 cli/clsort bench --device cpu --primitives none --algorithms radix --sort-sizes 24 --types u32,u64 --data keys --peers cpu-sorts --runs 5 > $OUT/peers24.txt 2>&1
(time CK_FORK=no CLSORT_TEST_DEVICE=cpu timeout 150 tests/test_sort quick matrix,edges) > $OUT/test_sort_pocl5.txt 2>&1
(time CK_FORK=no CLSORT_TEST_DEVICE=cpu timeout 80 tests/test_narrow quick) > $OUT/test_narrow_pocl5.txt 2>&1
(time CK_FORK=no CLSORT_TEST_DEVICE=NVIDIA timeout 120 tests/test_sort quick matrix) > $OUT/test_sort_nvidia.txt 2>&1
for f in test_sort_pocl5 test_narrow_pocl5 test_sort_nvidia; do grep -E "Checks|failed|real" $OUT/$f.txt; done
for f in old new peers24; do echo "== $f"; grep "^sort" $OUT/$f.txt | awk '{print $2,$3,$4,$6,$7,$8}'; done
