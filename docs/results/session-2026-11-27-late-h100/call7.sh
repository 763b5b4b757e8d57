#!/bin/bash
# Call 7 (H100 host), the stop's final code: what changed after calls 4-6
# (host compact/split refuse an output over the input; the tool refuses a
# write-protected output, reads FIFOs, counts unreadable report lines) on
# NVIDIA and PoCL 5.0: test_errors, test_tool, test_compact (both parts),
# run by hand with the NVIDIA ICD and its libraries in the environment.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 CK_FORK=no CLSORT_TEST_CL_DIR=$PWD/cl
export LD_LIBRARY_PATH=$B:$B/src:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
cd $B
for dev in NVIDIA cpu; do
  ( for t in "test_errors quick" "test_tool quick" "test_compact quick 1,2,4" "test_compact quick 8,16"; do
      CLSORT_TEST_DEVICE=$dev CLSORT_CACHE_DIR=/tmp/c7-$dev POCL_CACHE_DIR=/tmp/p7-$dev \
        timeout 250 ./tests/$t > $OUT/$dev-${t// /_}.txt 2>&1
      echo "$dev $t: rc $? $(grep -E 'Checks' $OUT/$dev-${t// /_}.txt | tail -1)" >> $OUT/$dev.txt
    done ) &
done
wait
cat $OUT/NVIDIA.txt $OUT/cpu.txt >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt && find . -name "*.txt" ! -name table.txt -delete
cat table.txt
