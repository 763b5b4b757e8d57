#!/bin/bash
# Call 5 (H100 host), the stop's final code: the quick suite on PoCL 5.0
# (the host's 16 cores; scripts/device-check, 8 programs at a time, each
# capped at 300 s, no benchmark verification), then clsort-fuzz for 45 s
# there.
set -u
export OUT=$OUT/dc TEST_SECONDS=300 SKIP_BENCH=1 JOBS=8
mkdir -p $OUT
timeout 480 scripts/device-check build-device --suite quick cpu > $OUT/../table.txt 2>&1
B=$PWD/build-device
LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/c5 POCL_CACHE_DIR=/tmp/p5 \
  timeout 70 $B/tests/clsort-fuzz --device cpu --seconds 45 > $OUT/fuzz.txt 2>&1
echo "PoCL 5.0 fuzz: rc $? $(grep summary $OUT/fuzz.txt | cut -c1-120)" >> $OUT/../table.txt
cd $OUT/.. && tar czf raw.tgz dc && rm -rf dc
cat table.txt
