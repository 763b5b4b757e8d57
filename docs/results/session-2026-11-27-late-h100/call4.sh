#!/bin/bash
# Call 4 (H100), the stop's final code: the quick suite on the NVIDIA
# device (scripts/device-check, 8 programs at a time, each capped at 300
# s) and the benchmark's verification of every algorithm, type, mode and
# distribution at the edge sizes there (capped at 150 s); clsort-fuzz for
# 45 s.
set -u
export OUT=$OUT/dc TEST_SECONDS=300 VERIFY_SECONDS=150 JOBS=8
mkdir -p $OUT
timeout 470 scripts/device-check build-device --suite quick NVIDIA > $OUT/../table.txt 2>&1
B=$PWD/build-device
OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/c4 \
  timeout 70 $B/tests/clsort-fuzz --device NVIDIA --seconds 45 > $OUT/fuzz.txt 2>&1
echo "NVIDIA fuzz: rc $? $(grep summary $OUT/fuzz.txt | cut -c1-120)" >> $OUT/../table.txt
cd $OUT/.. && tar czf raw.tgz dc && rm -rf dc
cat table.txt
