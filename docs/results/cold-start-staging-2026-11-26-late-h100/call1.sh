#!/bin/bash
# Call 1: where the H100's cold first call spends its time (per-program
# builds, CLSORT_LOG=debug), and host-array radix at 2^24 u32 keys under
# staging variants (polled slot events, plain copies into cache-sized slots).
set -u
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
T=$B/cli/clsort
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
head -c $((65536*4)) /dev/urandom > /tmp/k4
cold() { # name, then clsort sort args
  name=$1; shift
  rm -rf /tmp/cold; mkdir -p /tmp/cold
  t0=$(date +%s.%N)
  CLSORT_LOG=debug CLSORT_CACHE_DIR=/tmp/cold/c POCL_CACHE_DIR=/tmp/cold/p CUDA_CACHE_PATH=/tmp/cold/cu \
    $T sort --device NVIDIA "$@" /tmp/k4 /tmp/o4 2> $OUT/cold-$name.log
  t1=$(date +%s.%N)
  echo "$name cold $(awk -v a=$t0 -v b=$t1 "BEGIN{printf \"%.2f\", b-a}") s; builds: $(grep -o 'built [a-z_0-9]* from [0-9]* bytes of source in [0-9]* ms' $OUT/cold-$name.log | awk '{printf "%s %s; ", $2, $8}')" | tee -a $OUT/table.txt
}
cold radix-u32 --type u32 --algorithm radix
cold bitonic-u32 --type u32 --algorithm bitonic
cold merge-u32 --type u32 --algorithm merge
# startup alone: a sort of 0 keys? use --help-less: time clsort devices
t0=$(date +%s.%N); $T devices > /dev/null 2>&1; t1=$(date +%s.%N); echo "clsort devices $(awk -v a=$t0 -v b=$t1 "BEGIN{printf \"%.2f\", b-a}") s" | tee -a $OUT/table.txt
$B/bench/clsort-link-rate --mib 1024 > $OUT/link.txt 2>&1; tail -4 $OUT/link.txt | tee -a $OUT/table.txt
export CLSORT_CACHE_DIR=/tmp/cc
hb() { # name, env...
  name=$1; shift
  env "$@" $T bench --device NVIDIA --api both --primitives none --algorithms radix --sort-sizes 24,26 --types u32 \
    --data keys,pairs --runs 9 --peers none > $OUT/hb-$name.txt 2>&1
  awk -v n=$name '/^sort/{printf "%-22s %-11s %-5s %s %s\n", n, $2, $4, $6, $7}' $OUT/hb-$name.txt | tee -a $OUT/table.txt
}
for r in 1 2; do
hb base X=1
hb spin CLSORT_STAGING_SPIN=1
hb spin-plain1M CLSORT_STAGING_SPIN=1 CLSORT_PLAIN_COPY=1 CLSORT_STAGING=1024:16
hb spin-plain2M CLSORT_STAGING_SPIN=1 CLSORT_PLAIN_COPY=1 CLSORT_STAGING=2048:8
hb spin-4M CLSORT_STAGING_SPIN=1 CLSORT_STAGING=4096:12
hb plain1M CLSORT_PLAIN_COPY=1 CLSORT_STAGING=1024:16
done
cd $OUT && tar czf logs.tgz cold-*.log hb-*.txt link.txt && rm -f cold-*.log hb-*.txt
