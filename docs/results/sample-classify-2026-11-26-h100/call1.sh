#!/bin/bash
# Call 1: the sample sort's classification (successor tracked in the
# descent, a vector's keys descending together; new) against main 603c271
# (old), CUB's merge sort in each run, two rounds alternating; a profile of
# 2^24 u32 keys each; test_sample 32 and tiled on NVIDIA, 32 on PoCL 5.0.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 CLSORT_CACHE_DIR=/tmp/cc POCL_CACHE_DIR=/tmp/pc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
lib() { [[ $1 == new ]] && echo $B:$B/src || echo $B/oldlib:$B; }
bench() { # which name sizes types data runs
  LD_LIBRARY_PATH=$(lib $1) CLSORT_CACHE_DIR=/tmp/cc-$1 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms sample \
    --peers cub --sort-sizes $3 --types $4 --data $5 --runs $6 --json $OUT/$2-$1.jsonl > $OUT/$2-$1.txt 2>&1
  awk -v w=$1 '/^sort/ && ($2=="sample" || $2 ~ /cub/) {printf "%-4s %-18s %-4s %-5s %-5s %9s %s\n", w, $2, $3, $4, $6, $7, $NF}' $OUT/$2-$1.txt >> $OUT/table.txt
}
for r in 1 2; do
  for w in new old; do bench $w r$r 24,26 u32,u64 keys,pairs 5; done
done
for w in new old; do
  LD_LIBRARY_PATH=$(lib $w) CLSORT_CACHE_DIR=/tmp/cc-$w CLSORT_PROFILE=1 $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms sample --sort-sizes 24 --types u32 --data keys --runs 1 > $OUT/profile-$w.txt 2>&1
  grep -E "histogram|scatter" $OUT/profile-$w.txt | awk -v w=$w '{s[$3]+=$(NF-1)} END {for (k in s) printf "%s profile sum %s %.3f ms\n", w, k, s[k]}' >> $OUT/table.txt
done
cd $B
for dev in NVIDIA cpu; do
  for part in 32 tiled; do
    [[ $dev == cpu && $part == tiled ]] && continue
    t0=$(date +%s)
    CK_FORK=no CLSORT_TEST_CL_DIR=$OLDPWD/cl CLSORT_TEST_DEVICE=$dev LD_LIBRARY_PATH=$B:$B/src CLSORT_TEST_TMPDIR=/tmp/tt-$dev-$part \
      timeout 150 tests/test_sample quick $part > $OUT/test-$dev-$part.log 2>&1
    echo "test_sample $part on $dev: rc $? ($(( $(date +%s) - t0 )) s) $(grep -o 'Checks.*' $OUT/test-$dev-$part.log)" >> $OUT/table.txt
  done
done
cd $OUT && tar czf raw.tgz --exclude table.txt *.jsonl *.txt *.log && rm -f r*-*.txt *.log
cat $OUT/table.txt
