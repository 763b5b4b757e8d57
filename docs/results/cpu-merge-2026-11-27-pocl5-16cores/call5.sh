#!/bin/bash
# Call 5 (H100 host), at 8c3b6a2: clsort-fuzz, now with merge, top-k, select
# and the segmented sort, 120 s on PoCL 5.0 and on the H100 at once.
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B
cd $B
timeout 140 tests/clsort-fuzz --device cpu --seconds 120 --seed 0x202611281 > $OUT/fuzz-cpu.txt 2>&1 &
timeout 140 tests/clsort-fuzz --device NVIDIA --seconds 120 --seed 0x202611282 > $OUT/fuzz-nv.txt 2>&1 &
wait
tail -n 3 $OUT/fuzz-cpu.txt; tail -n 3 $OUT/fuzz-nv.txt
