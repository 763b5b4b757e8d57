#!/bin/bash
# Call 7 (H100): test_quick tiled on NVIDIA, which ran past call 6's 240 s
# (its forced groups of 16 hold 512 keys a work-item, and the cap doubled
# ptxas' work; the cap now needs groups of 128 or more); cold builds of the
# quicksort with NVIDIA's compute cache empty too (CUDA_CACHE_PATH), this
# library and 6cc6385's.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc7
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
for lib in new old new old; do
  L=$B:$B/src; [[ $lib == old ]] && L=$B/oldlib:$B
  rm -rf /tmp/cold7 /tmp/cuda7
  s=$(date +%s.%N)
  LD_LIBRARY_PATH=$L CUDA_CACHE_PATH=/tmp/cuda7 CLSORT_CACHE_DIR=/tmp/cold7 CLSORT_LOG=debug timeout 60 $B/cli/clsort bench --device NVIDIA \
    --primitives none --algorithms quick --sort-sizes 16 --types u32 --data keys --runs 1 --peers none > $OUT/cold-$lib.txt 2>&1
  e=$(date +%s.%N)
  echo "cold quick u32 keys, $lib: process $(echo "$e - $s" | bc) s; $(grep -E 'built quick|rebuilt from PTX' $OUT/cold-$lib.txt | sed -E 's/ \(-w.*//; s/clsort: //' | tr '\n' ';')" >> $OUT/table.txt
done
cd $B
export LD_LIBRARY_PATH=$B:$B/src
s=$(date +%s)
CK_FORK=no CLSORT_TEST_DEVICE=NVIDIA CLSORT_TEST_TMPDIR=/tmp/tt7 CLSORT_CACHE_DIR=/tmp/tc7 timeout 420 tests/test_quick quick tiled > $OUT/test-quick-tiled.log 2>&1
echo "test_quick tiled on NVIDIA: rc $? in $(( $(date +%s) - s )) s: $(grep -o 'Checks.*' $OUT/test-quick-tiled.log)" >> $OUT/table.txt
grep -E "quick_edge|adversarial" $OUT/test-quick-tiled.log | awk '{printf "%s %s; ", $1, $2}' >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt *.log && rm -f cold-*.txt *.log
cat table.txt
