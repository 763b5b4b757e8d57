#!/bin/bash
# Call 1 (H100 host): the quick suite on PoCL 5.0 (16 cores) and on the
# H100 at 55d7ce2 (the CPU merge's read-ahead from both ends, clsort_merge
# in place on CPU devices), through scripts/device-check; then the merge
# sort and clsort_merge on the 16 cores beside the CPU peers.
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
SKIP_BENCH=1 TEST_SECONDS=380 JOBS=8 OUT=/tmp/dc timeout 420 scripts/device-check build-device \
  --suite quick NVIDIA cpu > /tmp/dc-out.txt 2>&1
echo "device-check rc $?"
cp /tmp/dc/summary.txt /tmp/dc/suite-*.txt /tmp/dc/devices.txt $OUT/ 2>/dev/null
tar -czf $OUT/check-logs.tgz -C /tmp/dc logs 2>/dev/null
tail -8 /tmp/dc-out.txt
export LD_LIBRARY_PATH=$B:$B/src
timeout 150 $B/cli/clsort bench --device cpu --primitives none --algorithms merge \
  --types u32,u64 --data keys,pairs --sort-sizes 24 --runs 5 --peers cpu-sorts,numpy \
  --ops merge --json $OUT/pocl5-merge.jsonl > $OUT/bench.txt 2>&1
echo "bench rc $?"
grep -E "^sort|^merge|^copy" $OUT/bench.txt
