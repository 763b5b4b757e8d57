#!/bin/bash
# Call 14 (H100 host), 81ebfb0: first a short NVIDIA check of the merge and
# sample sorts beside CUB (u32 keys 2^20/2^24/2^26, 9 runs: in call 13 the
# sample sort at 2^26 spread from 3.2 to 9.6 ms and the 2^20 rows moved);
# then the quick suite and the benchmark's verification (every algorithm x
# type x mode x distribution at edge sizes) on PoCL 5.0, the 16 cores.
set -u
B=$PWD/build-device
OUT_SAVE=$OUT
OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/cc14 timeout 100 $B/cli/clsort bench --device NVIDIA \
  --primitives none --algorithms merge,sample --peers cub --runs 9 --sort-sizes 20,24,26 --types u32 --data keys \
  --json $OUT_SAVE/recheck.jsonl > $OUT_SAVE/recheck.txt 2>&1
grep '^sort ' $OUT_SAVE/recheck.txt | awk '{printf "%s %s 2^%s median %s min %s max %s\n", $2, $3, $6, $7, $8, $9}' > $OUT_SAVE/table.txt
export POCL_CACHE_DIR=/tmp/pc14 CLSORT_CACHE_DIR=/tmp/cc14p
mkdir -p /tmp/dc
OUT=/tmp/dc JOBS=8 TEST_SECONDS=400 VERIFY_SECONDS=200 timeout 470 bash scripts/device-check build-device --suite quick cpu > $OUT_SAVE/check.txt 2>&1
echo "device-check rc $?" >> $OUT_SAVE/check.txt
tail -30 $OUT_SAVE/check.txt >> $OUT_SAVE/table.txt
cd /tmp/dc && tar czf $OUT_SAVE/raw.tgz . $OUT_SAVE/recheck.* $OUT_SAVE/check.txt 2>/dev/null
rm -f $OUT_SAVE/recheck.* $OUT_SAVE/check.txt
cat $OUT_SAVE/table.txt
