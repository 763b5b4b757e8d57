#!/bin/bash
# Call 6 (H100 host, PoCL 5.0, 16 cores): 179b34e (the chunk tables sized
# for any range) through the tests that run the CPU radix sort, a fuzz
# slice, and the benchmark against 9f9d6bf's library (oldlib).
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
(time CK_FORK=no CLSORT_TEST_DEVICE=cpu timeout 200 tests/test_sort quick matrix,edges,levels) > $OUT/test_sort_pocl5.txt 2>&1
(time CK_FORK=no CLSORT_TEST_DEVICE=cpu timeout 80 tests/test_narrow quick) > $OUT/test_narrow_pocl5.txt 2>&1
timeout 50 tests/clsort-fuzz --seconds 40 --device cpu --max-n 2000000 > $OUT/fuzz.txt 2>&1
BENCH="cli/clsort bench --device cpu --primitives none --algorithms radix --sort-sizes 24,26 --types u32,u64,f64 --data keys,pairs --peers none --runs 5"
LD_LIBRARY_PATH=$B/oldlib:$B timeout 60 $BENCH > $OUT/old.txt 2>&1
timeout 60 $BENCH > $OUT/new.txt 2>&1
for f in test_sort_pocl5 test_narrow_pocl5; do grep -E "Checks|failed|real|corrupt|Abort" $OUT/$f.txt; done
tail -n 1 $OUT/fuzz.txt | cut -c1-160
for f in old new; do echo "== $f"; grep "^sort" $OUT/$f.txt | awk '{print $2,$3,$4,$6,$7,$8}'; done
