#!/bin/bash
# Call 5 (H100): test_quick tiled on NVIDIA, which call 4 meant to run (it
# did not export LD_LIBRARY_PATH for the test program).
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
cd $B
CK_FORK=no CLSORT_TEST_DEVICE=NVIDIA CLSORT_TEST_TMPDIR=/tmp/tt5 CLSORT_CACHE_DIR=/tmp/tc5 timeout 330 tests/test_quick quick tiled > $OUT/test-nv-tiled.log 2>&1
echo "test_quick tiled on NVIDIA: rc $? $(grep -o 'Checks.*' $OUT/test-nv-tiled.log)" >> $OUT/table.txt
grep -E "headers_on_their_own_queue" $OUT/test-nv-tiled.log >> $OUT/table.txt
cat $OUT/table.txt
