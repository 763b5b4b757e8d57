#!/bin/bash
# Call 4 (PoCL 5.0, 16 cores): call 3's test_sort matrix aborted ("double
# free or corruption") after sort_matrix[58], i.e. in f64 keys of 0..1023
# at n = 1000003. Valgrind on PoCL 3.1 finds nothing there. Here: the f64
# matrix with the streaming stores (default) and without (WC 0), twice each.
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
clinfo 2>/dev/null | grep -i "local mem\|compute units" | head -6
for v in default 11:11:0:14 default 11:11:0:14; do
  if [ $v = default ]; then e=""; else e="CLSORT_RADIX_CPU=$v"; fi
  echo "== $v"
  env $e CLSORT_TEST_TYPES=f64 CK_FORK=no CLSORT_TEST_DEVICE=cpu timeout 100 tests/test_sort quick matrix 2>&1 | grep -E "Checks|failed|corrupt|free|Abort|^\.\./" | head -5
done
