#!/bin/bash
# Call 4 (H100 host), at 2cecd92: clsort-fuzz, now with merge, top-k and
# select, 150 s on PoCL 5.0 and on the H100 at once.
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B
cd $B
timeout 170 tests/clsort-fuzz --device cpu --seconds 150 --seed 0x20261127f > $OUT/fuzz-cpu.txt 2>&1 &
timeout 170 tests/clsort-fuzz --device NVIDIA --seconds 150 --seed 0x202611280 > $OUT/fuzz-nv.txt 2>&1 &
wait
tail -n 3 $OUT/fuzz-cpu.txt; tail -n 3 $OUT/fuzz-nv.txt
