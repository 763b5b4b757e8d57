#!/bin/bash
# Call 2 (same warm H100 host, PoCL 5.0, 16 cores): the tests that run the
# CPU radix shape, and a fuzz slice, on this tree's library (call 1 ran out
# of time in the peers' std::sort at 2^26 before the tests).
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
(time CK_FORK=no CLSORT_TEST_DEVICE=cpu timeout 250 tests/test_sort quick matrix,edges) > $OUT/test_sort.txt 2>&1
(time CK_FORK=no CLSORT_TEST_DEVICE=cpu timeout 120 tests/test_narrow quick) > $OUT/test_narrow.txt 2>&1
timeout 100 tests/clsort-fuzz --seconds 90 --device cpu --max-n 2000000 > $OUT/fuzz.txt 2>&1
for f in test_sort test_narrow fuzz; do tail -n 4 $OUT/$f.txt; done
