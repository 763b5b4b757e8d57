#!/bin/bash
# Call 9 (H100): clsort-fuzz over every public entry point on NVIDIA (this
# session's library: the quicksort capped, u32 pairs in tiles of 4096)
# with today's seed and a second one, and on the host's PoCL 5.0.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc9 LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/cc9
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
timeout 200 $B/tests/clsort-fuzz --device NVIDIA --seconds 150 --seed date > $OUT/fuzz-nvidia-date.txt 2>&1
echo "NVIDIA, seed date: rc $? $(tail -1 $OUT/fuzz-nvidia-date.txt)" >> $OUT/table.txt
timeout 120 $B/tests/clsort-fuzz --device NVIDIA --seconds 90 --seed 0x20261127a > $OUT/fuzz-nvidia-2.txt 2>&1
echo "NVIDIA, seed 0x20261127a: rc $? $(tail -1 $OUT/fuzz-nvidia-2.txt)" >> $OUT/table.txt
timeout 120 $B/tests/clsort-fuzz --device cpu --seconds 90 --seed date > $OUT/fuzz-cpu.txt 2>&1
echo "PoCL 5.0, seed date: rc $? $(tail -1 $OUT/fuzz-cpu.txt)" >> $OUT/table.txt
grep -h -i "fail\|replay" $OUT/fuzz-*.txt | head -20 >> $OUT/table.txt
cd $OUT && tar czf raw.tgz fuzz-*.txt && rm -f fuzz-*.txt
cat table.txt
