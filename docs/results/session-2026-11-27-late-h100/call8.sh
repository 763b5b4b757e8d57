#!/bin/bash
# Call 8 (H100 host), after the review (2eba7c6: the CPU merge sort's
# scratch values no longer shifted half a page): test_merge's matrix (the
# CPU shape, with and without the second pair) on PoCL 5.0, 16 cores,
# and u32 pairs at 2^24 there, three processes.
set -u
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src CK_FORK=no CLSORT_TEST_CL_DIR=$PWD/cl
export CLSORT_CACHE_DIR=/tmp/c8 POCL_CACHE_DIR=/tmp/p8
( cd $B && CLSORT_TEST_DEVICE=cpu timeout 250 ./tests/test_merge quick matrix > $OUT/tm.txt 2>&1
  echo "PoCL 5.0 test_merge quick matrix: rc $? $(grep -E 'Checks' $OUT/tm.txt | tail -1)" > $OUT/table.txt )
for i in 1 2 3; do
  CLSORT_PROFILE=1 timeout 100 $B/cli/clsort bench --device cpu --primitives none --algorithms merge \
    --sort-sizes 24 --types u32 --data pairs --runs 3 --warmup 1 --peers none 2>&1 |
    awk '/profile/{x[$3]+=$(NF-1); c[$3]++} /^sort/{m=$7; ok=$(NF)}
      END{n=c["mcpu_runs"]; printf "PoCL 5.0 merge u32 pairs 2^24: "; for(k in x) printf "%s %.1f ", k, x[k]/n;
          print "median", m, "ok", ok}' >> $OUT/table.txt
done
rm -f $OUT/tm.txt
cat $OUT/table.txt
