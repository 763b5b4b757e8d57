#!/bin/bash
# Call 6 (H100): the headers in a ring of three, so that no plan waits for
# a read on the other queue (call 5: with that wait, test_quick's forced
# side-queue case took 88 s on NVIDIA, the others under 0.5 s each);
# test_quick tiled on NVIDIA; the quicksort against 2d10e5b's library
# (oldlib), one round each, beside CUB's merge sort.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
cd $B
LD_LIBRARY_PATH=$B:$B/src CK_FORK=no CLSORT_TEST_DEVICE=NVIDIA CLSORT_TEST_TMPDIR=/tmp/tt6 CLSORT_CACHE_DIR=/tmp/tc6 \
  timeout 150 tests/test_quick quick tiled > $OUT/test-nv-tiled.log 2>&1
echo "test_quick tiled on NVIDIA: rc $? $(grep -o 'Checks.*' $OUT/test-nv-tiled.log)" >> $OUT/table.txt
grep -E "headers_on_their_own_queue|edge_sizes\[0\]" $OUT/test-nv-tiled.log >> $OUT/table.txt
for lib in new old; do
  L=$B:$B/src; [[ $lib == old ]] && L=$B/oldlib:$B
  peers=none; [[ $lib == new ]] && peers=cub
  LD_LIBRARY_PATH=$L CLSORT_CACHE_DIR=/tmp/qc-$lib timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms quick --peers $peers --runs 7 --sort-sizes 20,22,24 --types u32,u64 --data keys,pairs > $OUT/r-$lib.txt 2>&1
  echo "$lib: $(grep -E '^sort  *(quick|cub-merge) ' $OUT/r-$lib.txt | awk '{printf "%s %s %s 2^%s %s  ", $2, $3, $4, substr($6,3), $7}')" >> $OUT/table.txt
done
grep -h "measurements in" $OUT/r-*.txt >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt *.log && rm -f r-*.txt *.log
cat table.txt
