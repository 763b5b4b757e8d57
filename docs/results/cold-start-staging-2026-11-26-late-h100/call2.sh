#!/bin/bash
# Call 2: a timeline of the H100's cold first call (stderr lines stamped
# with ms since start, CLSORT_LOG=debug), per algorithm and radix shape.
set -u
B=$PWD/build-device
D=docs/results/cold-start-staging-2026-11-26-late-h100
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
T=$B/cli/clsort
head -c $((65536*4)) /dev/urandom > /tmp/k4
cold() { # name, env assignments..., then -- and clsort sort args
  name=$1; shift
  envs=(); while [[ $1 != -- ]]; do envs+=("$1"); shift; done; shift
  rm -rf /tmp/cold; mkdir -p /tmp/cold
  env "${envs[@]}" CLSORT_LOG=debug CLSORT_CACHE_DIR=/tmp/cold/c POCL_CACHE_DIR=/tmp/cold/p CUDA_CACHE_PATH=/tmp/cold/cu \
    python3 $D/stamp.py $T sort --device NVIDIA "$@" /tmp/k4 /tmp/o4 > $OUT/cold-$name.log 2>&1
  env "${envs[@]}" CLSORT_LOG=debug CLSORT_CACHE_DIR=/tmp/cold/c POCL_CACHE_DIR=/tmp/cold/p CUDA_CACHE_PATH=/tmp/cold/cu \
    python3 $D/stamp.py $T sort --device NVIDIA "$@" /tmp/k4 /tmp/o4 > $OUT/warm-$name.log 2>&1
  echo "$name cold $(tail -1 $OUT/cold-$name.log | awk '{print $1}') warm $(tail -1 $OUT/warm-$name.log | awk '{print $1}') ms; builds: $(grep -o 'built [a-z_0-9]* from [0-9]* bytes of source in [0-9]* ms' $OUT/cold-$name.log | awk '{printf "%s %s; ", $2, $9}')" >> $OUT/table.txt
}
cold radix X=1 -- --type u32 --algorithm radix
cold radix-portable CLSORT_RADIX_PORTABLE=1 -- --type u32 --algorithm radix
cold radix-noptx CLSORT_NO_PTX=1 -- --type u32 --algorithm radix
cold radix-noonesweep CLSORT_NO_ONESWEEP=1 -- --type u32 --algorithm radix
cold radix-pairs X=1 -- --type u32 --algorithm radix --values /tmp/k4 --value-size 4 --values-out /tmp/v4
cold bitonic X=1 -- --type u32 --algorithm bitonic
cold merge X=1 -- --type u32 --algorithm merge
cold sample X=1 -- --type u32 --algorithm sample
cold quick X=1 -- --type u32 --algorithm quick
cd $OUT && tar czf logs.tgz cold-*.log warm-*.log && rm -f cold-*.log warm-*.log
cat $OUT/table.txt
