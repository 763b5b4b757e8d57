#!/bin/bash
# Call 3 (H100 host): the seed 000 experiment again with the multi-pivot
# quicksort (for docs/PERFORMANCE.md's seed tables), the quicksort's slow
# tier (2^22 keys and more) and the sample sort's tests on the H100.
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
git -C .. log -1 --format=%h > $OUT/host.txt 2>/dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $OUT/host.txt
timeout 200 cli/clsort bench --device NVIDIA --quiet --experiment seed000 \
  --json $OUT/h100-seed000-raw.jsonl > $OUT/seed000.txt 2>&1
t() { local name=$1 dev=$2 limit=$3; shift 3
  (time CK_FORK=no CLSORT_TEST_DEVICE=$dev timeout $limit "$@") > $OUT/$name.txt 2>&1; }
t quick_slow_h100 NVIDIA 120 tests/test_quick slow matrix
t sample_h100 NVIDIA 200 tests/test_sample quick 32
cat $OUT/host.txt; tail -2 $OUT/seed000.txt
for f in quick_slow_h100 sample_h100; do echo "$f: $(grep -E 'Checks|real' $OUT/$f.txt | tr '\n' ' ')"; done
