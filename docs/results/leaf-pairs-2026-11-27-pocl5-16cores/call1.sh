#!/bin/bash
# PoCL 5.0 on the H100 host's 16 cores: the quick and sample sorts' u32 and
# u64 pairs with 3ec7c75's leaves (values half a page from their keys
# where they share page offsets) against 7f5fdad's library (oldlib),
# alternating processes; then test_sort's edges part there.
set -u
B=$PWD/build-device
export CLSORT_CACHE_DIR=/tmp/lp1 CK_FORK=no CLSORT_TEST_CL_DIR=$PWD/cl
for r in 1 2 3; do
  for lib in new old; do
    if [ $lib = old ]; then L=$B/oldlib; else L=$B/src; fi
    LD_LIBRARY_PATH=$L:$B timeout 120 $B/cli/clsort bench --device cpu --primitives none --algorithms quick,sample \
      --sort-sizes 24 --types u32,u64 --data pairs,keys --runs 3 --warmup 1 --peers none 2>/dev/null |
      awk -v l=$lib -v r=$r '$1=="sort" {printf "%s%s %s %s %s %s | ", l, r, $2, $3, $5, $7} END {print ""}' >> $OUT/table.txt
  done
done
(cd $B && LD_LIBRARY_PATH=$B/src:$B CLSORT_DEVICE=cpu timeout 250 ./tests/test_sort quick edges 2>&1 | tail -2) >> $OUT/table.txt
cat $OUT/table.txt
