#!/bin/bash
# Call 1: the sample sort's parallel leaf plan against 58c0bee (oldlib),
# alternating, CUB's merge sort in each run; per-kernel profiles of the
# quicksort and the merge sort (to plan what next); test_sample on NVIDIA
# and PoCL 5.0.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
git log --oneline -1 > $OUT/commit.txt 2>/dev/null
bench() { # lib tag args...
  local lib=$1 tag=$2; shift 2
  LD_LIBRARY_PATH=$lib:$B:$B/src timeout 200 $B/cli/clsort bench --device NVIDIA --primitives none "$@" \
    --json $OUT/$tag.jsonl > $OUT/$tag.txt 2>&1
}
for r in 1 2; do
  bench $B/oldlib old$r --algorithms sample --peers cub --sort-sizes 24,26 --types u32 --data keys,pairs --runs 7
  bench $B/src new$r --algorithms sample --peers cub --sort-sizes 24,26 --types u32 --data keys,pairs --runs 7
done
bench $B/src new28 --algorithms sample --peers cub --sort-sizes 28 --types u32 --data keys --runs 3
bench $B/oldlib old28 --algorithms sample --peers cub --sort-sizes 28 --types u32 --data keys --runs 3
# timelines of one 2^24 sort each
LD_LIBRARY_PATH=$B:$B/src CLSORT_PROFILE=timeline timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
  --algorithms sample --sort-sizes 24 --types u32 --data keys --runs 2 --peers none > $OUT/timeline-new.txt 2>&1
LD_LIBRARY_PATH=$B/oldlib:$B:$B/src CLSORT_PROFILE=timeline timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
  --algorithms sample --sort-sizes 24 --types u32 --data keys --runs 2 --peers none > $OUT/timeline-old.txt 2>&1
# per-kernel profiles (serialised) of quick and merge
LD_LIBRARY_PATH=$B:$B/src CLSORT_PROFILE=1 timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
  --algorithms quick --sort-sizes 24 --types u32 --data keys --runs 1 --peers none > $OUT/profile-quick.txt 2>&1
LD_LIBRARY_PATH=$B:$B/src CLSORT_PROFILE=1 timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
  --algorithms merge --sort-sizes 24,26 --types u32 --data keys --runs 1 --peers none > $OUT/profile-merge.txt 2>&1
LD_LIBRARY_PATH=$B:$B/src CLSORT_PROFILE=timeline timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
  --algorithms quick --sort-sizes 24 --types u32 --data keys --runs 2 --peers none > $OUT/timeline-quick.txt 2>&1
{ for f in old1 new1 old2 new2 new28 old28; do
    grep "^sort" $OUT/$f.txt | grep -v "cub-radix\|inplace" | awk -v f=$f '{printf "%-6s %-10s %-4s %-5s %-5s %9s\n", f, $2, $3, $4, $6, $7}'
  done; } > $OUT/table.txt
cd $B
export LD_LIBRARY_PATH=$B:$B/src
for dt in "NVIDIA sample tiled" "cpu sample tiled" "NVIDIA sample 32"; do
  set -- $dt; d=$1; shift; t0=$(date +%s)
  CK_FORK=no CLSORT_TEST_CL_DIR=$OLDPWD/cl CLSORT_TEST_DEVICE=$d CLSORT_TEST_TMPDIR=/tmp/tt-$d$1$2 \
    timeout 150 tests/test_$1 quick $2 > $OUT/test-$d-$1$2.log 2>&1
  echo "test_$1 $2 on $d: rc $? ($(( $(date +%s) - t0 )) s) $(grep -o 'Checks.*' $OUT/test-$d-$1$2.log)" >> $OUT/table.txt
done
cd $OUT && tar czf raw.tgz *.jsonl *.txt *.log && rm -f *.jsonl old*.txt new*.txt *.log timeline-*.txt profile-*.txt gpu.txt commit.txt
cat table.txt
