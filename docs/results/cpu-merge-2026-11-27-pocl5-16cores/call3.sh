#!/bin/bash
# Call 3 (H100 host), at the session's last library commit: the test
# programs of the primitives and top-k that calls 1-2 ran before the
# narrow-scan and top-k commits, and test_context after its fix, on PoCL
# 5.0 and the H100; clsort-fuzz over every public entry point on both;
# then host_ops.c (docs/results/cpu-host-ops-2026-11-27-pocl31-2cores/)
# on the 16 cores, 16419f5's library (oldlib) and this one in turn.
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 CK_FORK=no CLSORT_TEST_CL_DIR=$PWD/cl
export LD_LIBRARY_PATH=$B
cpu="scan scan-aligned scan-gpu-shape reduce-aligned reduce-gpu-shape topk-gpu-shape context"
nv="context scan-gpu-shape reduce-gpu-shape scan-aligned reduce-aligned compact-aligned"
one() { # device name
  local dev=$1 name=$2 line cmd t0
  line=$(awk -F'\t' -v n="$name" '$1 == n' $B/tests.tsv | head -1)
  cmd=$(cut -f4- <<<"$line" | tr '\t' ' ')
  t0=$(date +%s)
  (cd $B && CLSORT_TEST_DEVICE=$dev CLSORT_CACHE_DIR=/tmp/c3/$dev/clsort POCL_CACHE_DIR=/tmp/c3/$dev/pocl \
    CLSORT_TEST_TMPDIR=/tmp/c3/tmp-$dev-$name timeout 200 bash -c "${cmd//\{\}/$B}") \
    > /tmp/c3/logs/$dev-$name.log 2>&1
  echo "$dev $name rc=$? $(( $(date +%s) - t0 ))s"
}
export -f one; export B
mkdir -p /tmp/c3/logs
(for n in $cpu; do echo "cpu $n"; done) | timeout 230 xargs -P 7 -L 1 bash -c 'one $0 $1' > $OUT/suite-cpu.txt &
(for n in $nv; do echo "NVIDIA $n"; done) | timeout 230 xargs -P 6 -L 1 bash -c 'one $0 $1' > $OUT/suite-nv.txt &
wait
echo "cpu: $(grep -c 'rc=0 ' $OUT/suite-cpu.txt) ok of $(echo $cpu | wc -w); NVIDIA: $(grep -c 'rc=0 ' $OUT/suite-nv.txt) ok of $(echo $nv | wc -w)"
grep -v 'rc=0 ' $OUT/suite-cpu.txt $OUT/suite-nv.txt
(cd $B && timeout 110 tests/clsort-fuzz --device cpu --seconds 90 --seed 0x20261127d) > $OUT/fuzz-cpu.txt 2>&1 &
(cd $B && timeout 110 tests/clsort-fuzz --device NVIDIA --seconds 90 --seed 0x20261127e) > $OUT/fuzz-nv.txt 2>&1 &
wait
tail -2 $OUT/fuzz-cpu.txt $OUT/fuzz-nv.txt
for lib in $B/oldlib $B/src; do
  echo "== $lib"; LD_LIBRARY_PATH=$lib timeout 60 $B/host_ops
done > $OUT/host_ops-16cores.txt 2>&1
cat $OUT/host_ops-16cores.txt
tar -czf $OUT/logs.tgz -C /tmp/c3 logs
