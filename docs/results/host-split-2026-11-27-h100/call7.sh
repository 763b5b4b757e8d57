#!/bin/bash
# Call 7 (H100 host): the merged top-k outputs in place (topk.cl,
# topk_small.cl take output origins) and the split sort, tested on NVIDIA
# and on PoCL 5.0 (16 cores): test_topk, test_sort's split and edges
# parts, test_errors, clsort-fuzz on both devices.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/hs7
export CK_FORK=no CLSORT_TEST_CL_DIR=$PWD/cl
cd $B
for dev in NVIDIA cpu; do
  (
    for t in "test_topk quick" "test_sort quick split" "test_sort quick edges" "test_errors quick"; do
      f=$OUT/$dev-${t// /_}.txt
      CLSORT_DEVICE=$dev timeout 280 ./tests/$t > $f 2>&1
      echo "$dev $t: rc $? $(grep -E 'Checks' $f | tail -1)" >> $OUT/table-$dev.txt
      grep -E ":F:|:E:" $f | head -3 >> $OUT/table-$dev.txt
    done
    timeout 100 ./tests/clsort-fuzz --device $dev --seconds 60 > $OUT/$dev-fuzz.txt 2>&1
    echo "$dev fuzz: rc $? $(grep summary $OUT/$dev-fuzz.txt | cut -c1-120)" >> $OUT/table-$dev.txt
  ) &
done
wait
cat $OUT/table-NVIDIA.txt $OUT/table-cpu.txt > $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt && find . -name "*.txt" ! -name table.txt -delete
cat table.txt
