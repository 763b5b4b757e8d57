#!/bin/bash
# Call 6 (H100): the 8- and 16-bit keys (widened, then sorted by the chosen
# algorithm: the quicksort's multi-pivot levels among them) and clsort-fuzz
# over every public entry point, on the H100, at the final library.
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
t() { local name=$1 dev=$2 limit=$3; shift 3
  (time CK_FORK=no CLSORT_TEST_DEVICE=$dev timeout $limit "$@") > $OUT/$name.txt 2>&1; }
t narrow_h100 NVIDIA 100 tests/test_narrow quick
(time timeout 150 tests/clsort-fuzz --device NVIDIA --seconds 120 --seed 0x20261127c) > $OUT/fuzz_h100.txt 2>&1
echo "narrow_h100: $(grep -E 'Checks|real' $OUT/narrow_h100.txt | tr '\n' ' ')"
tail -4 $OUT/fuzz_h100.txt
