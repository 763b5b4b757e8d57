#!/bin/bash
# Call 4 (same machine): the fuzz harness (host arrays 16 bytes past a
# page: the origins path on CPUs) on PoCL 5.0 and on the H100.
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
timeout 200 tests/clsort-fuzz --seconds 180 --device cpu --max-n 2000000 > $OUT/fuzz_pocl5.txt 2>&1
timeout 130 tests/clsort-fuzz --seconds 120 --device NVIDIA > $OUT/fuzz_h100.txt 2>&1
for f in fuzz_pocl5 fuzz_h100; do echo "$f: $(tail -n 1 $OUT/$f.txt | cut -c1-200)"; done
