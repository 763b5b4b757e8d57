#!/bin/bash
# Call 8: the quick suite and the benchmark's verification (every
# algorithm x type x mode x distribution at edge sizes) on PoCL 5.0, the
# H100 host's 16 cores, at the session's last kernels.
set -u
export POCL_CACHE_DIR=/tmp/pc8 CLSORT_CACHE_DIR=/tmp/cc8
mkdir -p /tmp/dc
OUT_SAVE=$OUT
OUT=/tmp/dc JOBS=8 TEST_SECONDS=420 VERIFY_SECONDS=200 timeout 580 bash scripts/device-check build-device --suite quick cpu > $OUT_SAVE/table.txt 2>&1
echo "rc $?" >> $OUT_SAVE/table.txt
cd /tmp/dc && tar czf $OUT_SAVE/raw.tgz . 2>/dev/null
tail -40 $OUT_SAVE/table.txt
