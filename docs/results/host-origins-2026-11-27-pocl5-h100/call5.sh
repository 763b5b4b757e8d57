#!/bin/bash
# Call 5 (H100 host, fresh machine): 5318675 (the primitives' host forms in
# place at any element alignment, and origins only where the radix sort
# runs its CPU shape) through the primitive tests and test_sort's edges on
# PoCL 5.0 (16 cores), test_scan and test_compact on the H100, and the
# primitives' host forms on PoCL 5.0 against 79af135's library (oldlib).
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
t() { local name=$1 dev=$2 limit=$3; shift 3
  (time CK_FORK=no CLSORT_TEST_DEVICE=$dev timeout $limit "$@") > $OUT/$name.txt 2>&1; }
t prims_pocl5 cpu 200 bash -c 'tests/test_scan quick && tests/test_reduce quick && tests/test_compact quick'
t sort_pocl5 cpu 120 tests/test_sort quick edges
t prims_h100 NVIDIA 120 bash -c 'tests/test_scan quick && tests/test_compact quick'
BENCH="cli/clsort bench --device cpu --api both --primitives scan,reduce,compact --algorithms none --sizes 24,26 --types u32,u64 --peers none --runs 7"
LD_LIBRARY_PATH=$B/oldlib:$B timeout 60 $BENCH > $OUT/prims_old.txt 2>&1
timeout 60 $BENCH > $OUT/prims_new.txt 2>&1
for f in prims_pocl5 sort_pocl5 prims_h100; do
  echo "$f: $(grep -E 'Checks|real' $OUT/$f.txt | tr '\n' ' ')"; grep -E "corrupt|Abort|Segm" $OUT/$f.txt | head -2; done
for f in prims_old prims_new; do echo "== $f"; grep -E "^(scan|reduce|compact)" $OUT/$f.txt | awk '{print $2,$3,$6,$7,$8}' | tr '\n' ';'; echo; grep -c "0 verification failures" $OUT/$f.txt; done
