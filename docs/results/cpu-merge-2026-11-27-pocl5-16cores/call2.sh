#!/bin/bash
# Call 2 (H100 host), at the session's top-k, bucket-offset, narrow-scan
# and tuning commits: the test programs that call 1's time limit left out
# or that those commits touch, on PoCL 5.0 (16 cores) and on the H100, 6
# at a time per device; then top-k and clsort_merge of malloc'd arrays on
# the 16 cores.
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 CK_FORK=no CLSORT_TEST_CL_DIR=$PWD/cl
export LD_LIBRARY_PATH=$B
cpu="merging-matrix merging-tiled topk histogram reduce narrow segmented-matrix segmented-packed
 quick-matrix quick-two-way sort-aligned histogram-aligned sample-tiled quick-tiled scratch
 context errors threads memory prepare tool cache"
nv="topk topk-gpu-shape histogram histogram-gpu-shape scan reduce narrow merging-matrix
 merging-tiled sort-levels segmented-matrix segmented-packed scratch context errors threads
 memory prepare tool quick-two-way sort-aligned"
one() { # device name
  local dev=$1 name=$2 line cmd t0
  line=$(awk -F'\t' -v n="$name" '$1 == n' $B/tests.tsv | head -1)
  cmd=$(cut -f4- <<<"$line" | tr '\t' ' ')
  t0=$(date +%s)
  (cd $B && CLSORT_TEST_DEVICE=$dev CLSORT_CACHE_DIR=/tmp/c2/$dev/clsort POCL_CACHE_DIR=/tmp/c2/$dev/pocl \
    CLSORT_TEST_TMPDIR=/tmp/c2/tmp-$dev-$name timeout 400 bash -c "${cmd//\{\}/$B}") \
    > /tmp/c2/logs/$dev-$name.log 2>&1
  echo "$dev $name rc=$? $(( $(date +%s) - t0 ))s"
}
export -f one; export B
mkdir -p /tmp/c2/logs
(for n in $cpu; do echo "cpu $n"; done) | timeout 480 xargs -P 6 -L 1 bash -c 'one $0 $1' > $OUT/suite-cpu.txt &
(for n in $nv; do echo "NVIDIA $n"; done) | timeout 480 xargs -P 6 -L 1 bash -c 'one $0 $1' > $OUT/suite-nv.txt &
wait
tar -czf $OUT/logs.tgz -C /tmp/c2 logs
echo "cpu: $(grep -c 'rc=0 ' $OUT/suite-cpu.txt) ok of $(echo $cpu | wc -w); NVIDIA: $(grep -c 'rc=0 ' $OUT/suite-nv.txt) ok of $(echo $nv | wc -w)"
grep -v 'rc=0 ' $OUT/suite-cpu.txt $OUT/suite-nv.txt
