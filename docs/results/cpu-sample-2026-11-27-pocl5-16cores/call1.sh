#!/bin/bash
# Call 1 (H100 host): the sample sort's CPU shape (405eb05) on PoCL 5.0 (16
# cores): its test programs and those it touches, 6 at a time per device, on
# PoCL 5.0 and the H100 (the GPU shape must be unchanged); then the sorts of
# 2^24 and 2^26 keys on the 16 cores beside the CPU peers, d8063a9's library
# (build-device/oldlib, the GPU-shaped sample sort on CPUs) first.
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 CK_FORK=no CLSORT_TEST_CL_DIR=$PWD/cl
export LD_LIBRARY_PATH=$B
cpu="sample-32 sample-64 sample-tiled quick-matrix quick-tiled sort-matrix-edges context prepare
 threads memory"
nv="sample-32 sample-64 sample-tiled quick-matrix sort-matrix-edges context"
one() { # device name
  local dev=$1 name=$2 line cmd t0
  line=$(awk -F'\t' -v n="$name" '$1 == n' $B/tests.tsv | head -1)
  cmd=$(cut -f4- <<<"$line" | tr '\t' ' ')
  t0=$(date +%s)
  (cd $B && CLSORT_TEST_DEVICE=$dev CLSORT_CACHE_DIR=/tmp/c1/$dev/clsort POCL_CACHE_DIR=/tmp/c1/$dev/pocl \
    CLSORT_TEST_TMPDIR=/tmp/c1/tmp-$dev-$name timeout 300 bash -c "${cmd//\{\}/$B}") \
    > /tmp/c1/logs/$dev-$name.log 2>&1
  echo "$dev $name rc=$? $(( $(date +%s) - t0 ))s"
}
export -f one; export B
mkdir -p /tmp/c1/logs
(for n in $cpu; do echo "cpu $n"; done) | timeout 330 xargs -P 6 -L 1 bash -c 'one $0 $1' > $OUT/suite-cpu.txt &
(for n in $nv; do echo "NVIDIA $n"; done) | timeout 330 xargs -P 3 -L 1 bash -c 'one $0 $1' > $OUT/suite-nv.txt &
wait
tar -czf $OUT/logs.tgz -C /tmp/c1 logs
echo "cpu: $(grep -c 'rc=0 ' $OUT/suite-cpu.txt) ok of $(echo $cpu | wc -w); NVIDIA: $(grep -c 'rc=0 ' $OUT/suite-nv.txt) ok of $(echo $nv | wc -w)"
grep -v 'rc=0 ' $OUT/suite-cpu.txt $OUT/suite-nv.txt
# The sorts on the 16 cores: the old library, then this one, then the peers.
args="--device cpu --primitives none --sort-sizes 24,26 --types u32,u64 --data keys --runs 5"
LD_LIBRARY_PATH=$B/oldlib timeout 100 $B/cli/clsort bench $args --algorithms sample --peers none \
  > $OUT/bench-old.txt 2>&1
timeout 150 $B/cli/clsort bench $args --algorithms sample,quick,radix --peers cpu-sorts \
  > $OUT/bench-new.txt 2>&1
for s in 14 15 16 17; do
  echo "LEAF $s: $(CLSORT_SAMPLE_CPU=128:16:$s timeout 40 $B/cli/clsort bench --device cpu \
    --primitives none --sort-sizes 24 --types u32 --data keys --runs 5 --algorithms sample \
    --peers none 2>&1 | grep '^sort' | awk '{print $7, $8}')"
done > $OUT/leaf-sweep.txt
echo "== old (d8063a9)"; grep -E "^sort" $OUT/bench-old.txt
echo "== new"; grep -E "^sort" $OUT/bench-new.txt
cat $OUT/leaf-sweep.txt
