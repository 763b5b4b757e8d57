#!/bin/bash
# Call 1 (H100 host, PoCL 5.0 on 16 cores): the CPU radix sort of 152d9d3
# + the vector count, against 9f9d6bf's library (oldlib), alternating; the
# tests that run the CPU radix shape; a fuzz slice on PoCL 5.0.
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
nproc; clinfo -l 2>/dev/null | head
BENCH="cli/clsort bench --device cpu --primitives none --algorithms radix --sort-sizes 24,26 --types u32,u64,f64 --data keys,pairs --peers none --runs 5"
for r in 1 2; do
  LD_LIBRARY_PATH=$B/oldlib:$B $BENCH > $OUT/old$r.txt 2>&1
  $BENCH > $OUT/new$r.txt 2>&1
done
$BENCH --peers cpu-sorts --types u32,u64 --data keys > $OUT/peers.txt 2>&1
(time CK_FORK=no CLSORT_TEST_DEVICE=cpu tests/test_sort quick matrix,edges) > $OUT/test_sort.txt 2>&1
(time CK_FORK=no CLSORT_TEST_DEVICE=cpu tests/test_narrow quick) > $OUT/test_narrow.txt 2>&1
tests/clsort-fuzz --seconds 60 --device cpu --max-n 2000000 > $OUT/fuzz.txt 2>&1
tail -3 $OUT/test_sort.txt $OUT/test_narrow.txt $OUT/fuzz.txt
for f in old1 new1 old2 new2 peers; do echo "== $f"; grep "^sort" $OUT/$f.txt | awk '{print $2,$3,$4,$6,$7,$8}'; done
