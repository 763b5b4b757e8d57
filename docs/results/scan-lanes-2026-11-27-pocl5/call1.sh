#!/bin/bash
# Call 1 (H100 host, PoCL 5.0, 16 cores): the CPU scan of 4-byte types with
# 16-lane (64-byte) and 8-lane lines (CLSORT_SCAN_CPU=8), alternating,
# with each kernel's time (CLSORT_PROFILE=1), beside u64; then
# test_scan and test_reduce with 8 lanes.
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
BENCH="cli/clsort bench --device cpu --primitives scan,scan-inclusive,reduce --algorithms none --sizes 24,26 --types u32,f32,u64 --peers none --runs 9"
for r in 1 2; do for v in 16 8; do
  CLSORT_SCAN_CPU=$v timeout 60 $BENCH > $OUT/lanes$v-$r.txt 2>&1
done; done
CLSORT_PROFILE=1 timeout 60 cli/clsort bench --device cpu --primitives scan --algorithms none --sizes 24 --types u32,u64 --peers none --runs 5 > $OUT/profile16.txt 2>&1
(CLSORT_SCAN_CPU=8 CK_FORK=no CLSORT_TEST_DEVICE=cpu timeout 120 bash -c 'tests/test_scan quick && tests/test_reduce quick') > $OUT/tests8.txt 2>&1
for f in lanes16-1 lanes8-1 lanes16-2 lanes8-2; do echo "== $f"; grep -E "^(scan|reduce)" $OUT/$f.txt | awk '{print $2,$3,$6,$7}' | tr '\n' ';'; echo; done
grep "clsort profile" $OUT/profile16.txt | awk '{s[$3]+=$6; c[$3]++} END {for (k in s) print k, c[k], s[k]/c[k]}'
grep -E "Checks|failed" $OUT/tests8.txt
