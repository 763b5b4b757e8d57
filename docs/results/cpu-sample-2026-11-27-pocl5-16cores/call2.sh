#!/bin/bash
# Call 2 (H100 host), at the merge of the host-groups branch and the CPU
# stable segment sort (542ab74): the programs those commits touch, on PoCL
# 5.0 (16 cores) and the H100, 6 at a time per device (the GPU paths take
# the new host-array helper's staging); clsort-fuzz 60 s on each device;
# then clsort_segmented_sort of u32 pairs on the 16 cores
# (docs/results/cpu-sample-2026-11-27-pocl31-2cores/segmented_pairs.c),
# d8063a9's library first.
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 CK_FORK=no CLSORT_TEST_CL_DIR=$PWD/cl
export LD_LIBRARY_PATH=$B
cpu="segmented-matrix segmented-packed sort-matrix-edges sort-aligned scan scan-aligned
 compact-1-2-4 compact-8-16 histogram reduce merging-matrix topk merge-matrix narrow errors memory
 scratch"
nv="segmented-matrix segmented-packed sort-matrix-edges scan compact-1-2-4 histogram reduce
 merging-matrix topk merge-matrix sample-32 narrow errors memory"
one() { # device name
  local dev=$1 name=$2 line cmd t0
  line=$(awk -F'\t' -v n="$name" '$1 == n' $B/tests.tsv | head -1)
  cmd=$(cut -f4- <<<"$line" | tr '\t' ' ')
  t0=$(date +%s)
  (cd $B && CLSORT_TEST_DEVICE=$dev CLSORT_CACHE_DIR=/tmp/c2/$dev/clsort POCL_CACHE_DIR=/tmp/c2/$dev/pocl \
    CLSORT_TEST_TMPDIR=/tmp/c2/tmp-$dev-$name timeout 300 bash -c "${cmd//\{\}/$B}") \
    > /tmp/c2/logs/$dev-$name.log 2>&1
  echo "$dev $name rc=$? $(( $(date +%s) - t0 ))s"
}
export -f one; export B
mkdir -p /tmp/c2/logs
(for n in $cpu; do echo "cpu $n"; done) | timeout 320 xargs -P 6 -L 1 bash -c 'one $0 $1' > $OUT/suite-cpu.txt &
(for n in $nv; do echo "NVIDIA $n"; done) | timeout 320 xargs -P 4 -L 1 bash -c 'one $0 $1' > $OUT/suite-nv.txt &
wait
tar -czf $OUT/logs.tgz -C /tmp/c2 logs
echo "cpu: $(grep -c 'rc=0 ' $OUT/suite-cpu.txt) ok of $(echo $cpu | wc -w); NVIDIA: $(grep -c 'rc=0 ' $OUT/suite-nv.txt) ok of $(echo $nv | wc -w)"
grep -v 'rc=0 ' $OUT/suite-cpu.txt $OUT/suite-nv.txt
CLSORT_CACHE_DIR=/tmp/c2/cpu/clsort POCL_CACHE_DIR=/tmp/c2/cpu/pocl timeout 90 \
  $B/tests/clsort-fuzz --seconds 60 --device cpu > $OUT/fuzz-cpu.txt 2>&1 &
CLSORT_CACHE_DIR=/tmp/c2/NVIDIA/clsort timeout 90 \
  $B/tests/clsort-fuzz --seconds 60 --device NVIDIA > $OUT/fuzz-nv.txt 2>&1 &
wait
tail -n 1 $OUT/fuzz-cpu.txt | cut -c1-160
tail -n 1 $OUT/fuzz-nv.txt | cut -c1-160
for lib in $B/oldlib $B/src; do
  echo "== $lib" >> $OUT/segmented-pairs.txt
  LD_LIBRARY_PATH=$lib timeout 60 $B/probes/segmented_pairs >> $OUT/segmented-pairs.txt 2>&1
done
cat $OUT/segmented-pairs.txt
