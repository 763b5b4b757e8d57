#!/bin/bash
# Call 7: the sample sort's last flush (the leaf plan and the copies list) not blocking (new)
# against blocking (old: 479a657), CUB's merge sort in each run; the sample
# tests on NVIDIA.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 CLSORT_CACHE_DIR=/tmp/cc POCL_CACHE_DIR=/tmp/pc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
lib() { [[ $1 == new ]] && echo $B:$B/src || echo $B/oldlib:$B; }
bench() { # which name sizes types data runs
  LD_LIBRARY_PATH=$(lib $1) $B/cli/clsort bench --device NVIDIA --primitives none --algorithms sample \
    --peers cub --sort-sizes $3 --types $4 --data $5 --runs $6 --json $OUT/$2-$1.jsonl > $OUT/$2-$1.txt 2>&1
  awk -v w=$1 '/^sort/ && ($2=="sample" || $2 ~ /cub/) {printf "%-4s %-18s %-4s %-5s %-5s %9s %s\n", w, $2, $3, $4, $6, $7, $NF}' $OUT/$2-$1.txt >> $OUT/table.txt
}
for r in 1 2 3; do
  for w in new old; do bench $w r$r 24,26 u32 keys,pairs 5; done
done
for w in new old; do bench $w big 28 u32 keys 3; done
# tests
cd $B
for dev in NVIDIA; do
  for part in 32 64 tiled; do
    [[ $dev == cpu && $part == 64 ]] && continue
    t0=$(date +%s)
    CK_FORK=no CLSORT_TEST_CL_DIR=$OLDPWD/cl CLSORT_TEST_DEVICE=$dev LD_LIBRARY_PATH=$B:$B/src CLSORT_TEST_TMPDIR=/tmp/tt-$dev-$part \
      timeout 300 tests/test_sample quick $part > $OUT/test-$dev-$part.log 2>&1
    echo "test_sample $part on $dev: rc $? ($(( $(date +%s) - t0 )) s) $(grep -o 'Checks.*' $OUT/test-$dev-$part.log)" >> $OUT/table.txt
  done
done
cd $OUT && tar czf raw.tgz --exclude table.txt *.jsonl *.txt *.log && rm -f r*-*.txt big-*.txt *.log
cat $OUT/table.txt
