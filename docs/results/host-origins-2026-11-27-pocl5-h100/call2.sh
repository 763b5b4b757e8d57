#!/bin/bash
# Call 2 (H100 host, PoCL 5.0, 16 cores): host-array sorts (malloc'd,
# pinned) beside device buffers, 794a8fc against 79af135's library
# (oldlib), alternating.
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
BENCH="cli/clsort bench --device cpu --api both,pinned --primitives none --sort-sizes 24 --types u32,u64 --data keys,pairs --peers none --runs 5"
for r in 1 2; do
  LD_LIBRARY_PATH=$B/oldlib:$B timeout 50 $BENCH --algorithms radix > $OUT/old$r.txt 2>&1
  timeout 50 $BENCH --algorithms radix > $OUT/new$r.txt 2>&1
done
LD_LIBRARY_PATH=$B/oldlib:$B timeout 40 $BENCH --algorithms merge,quick --types u32 > $OUT/oldmq.txt 2>&1
timeout 40 $BENCH --algorithms merge,quick --types u32 > $OUT/newmq.txt 2>&1
for f in old1 new1 old2 new2 oldmq newmq; do echo "== $f"; grep "^sort" $OUT/$f.txt | awk '{print $2,$3,$4,$7,$8}' | tr '\n' ';'; echo; grep -c "0 verification failures" $OUT/$f.txt; done
