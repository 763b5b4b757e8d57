#!/bin/bash
# Call 5 (PoCL 5.0): the library's debug log up to the abort of call 4.
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
CLSORT_LOG=debug CLSORT_TEST_TYPES=f64 CK_FORK=no CLSORT_TEST_DEVICE=cpu timeout 100 tests/test_sort quick matrix > $OUT/log.txt 2>&1
echo "rc $?"
grep -v "^  sort_matrix" $OUT/log.txt | tail -25
