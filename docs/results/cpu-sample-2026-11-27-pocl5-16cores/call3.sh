#!/bin/bash
# Call 3 (H100 host), at 64ebb42 (the CPU splitting sorts' levels loop
# shared by the quicksort and the sample sort): their programs and the
# segmented sort's on PoCL 5.0 (16 cores), 6 at a time; the GPU paths did
# not change since call 2. Then the sample sort and the quicksort on the
# 16 cores, and clsort-fuzz 60 s on PoCL 5.0.
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 CK_FORK=no CLSORT_TEST_CL_DIR=$PWD/cl
export LD_LIBRARY_PATH=$B
cpu="sample-32 sample-64 quick-matrix quick-tiled quick-two-way sort-matrix-edges segmented-matrix
 prepare faults"
one() { # device name
  local dev=$1 name=$2 line cmd t0
  line=$(awk -F'\t' -v n="$name" '$1 == n' $B/tests.tsv | head -1)
  cmd=$(cut -f4- <<<"$line" | tr '\t' ' ')
  t0=$(date +%s)
  (cd $B && CLSORT_TEST_DEVICE=$dev CLSORT_CACHE_DIR=/tmp/c3/$dev/clsort POCL_CACHE_DIR=/tmp/c3/$dev/pocl \
    CLSORT_TEST_TMPDIR=/tmp/c3/tmp-$dev-$name timeout 300 bash -c "${cmd//\{\}/$B}") \
    > /tmp/c3/logs/$dev-$name.log 2>&1
  echo "$dev $name rc=$? $(( $(date +%s) - t0 ))s"
}
export -f one; export B
mkdir -p /tmp/c3/logs
(for n in $cpu; do echo "cpu $n"; done) | timeout 320 xargs -P 6 -L 1 bash -c 'one $0 $1' > $OUT/suite-cpu.txt
tar -czf $OUT/logs.tgz -C /tmp/c3 logs
echo "cpu: $(grep -c 'rc=0 ' $OUT/suite-cpu.txt) ok of $(echo $cpu | wc -w)"
grep -v 'rc=0 ' $OUT/suite-cpu.txt
CLSORT_CACHE_DIR=/tmp/c3/cpu/clsort POCL_CACHE_DIR=/tmp/c3/cpu/pocl timeout 80 \
  $B/tests/clsort-fuzz --seconds 60 --device cpu > $OUT/fuzz-cpu.txt 2>&1
tail -n 1 $OUT/fuzz-cpu.txt | cut -c1-160
timeout 120 $B/cli/clsort bench --device cpu --primitives none --sort-sizes 24 --types u32,u64 \
  --data keys,pairs --runs 5 --algorithms sample,quick --peers none > $OUT/bench.txt 2>&1
grep "^sort" $OUT/bench.txt
