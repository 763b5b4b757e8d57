#!/bin/bash
# Call 15 (H100 host), 81ebfb0: the rest of the quick suite on PoCL 5.0
# (call 14 ran 35 of its 53 programs, all OK, before its time limit), and
# the benchmark's verification of every algorithm x type x mode x
# distribution at the edge sizes there. Only this copy's tests.tsv is cut
# to the programs call 14 did not reach.
set -u
rest="faults faults-aligned fuzz fuzz-memory-limit memory mpi-np1 mpi-np2 mpi-np3 mpi-np4 mpi-np7 mpi-partition narrow prepare quick-tiled sample-tiled sort-aligned tool topk"
for t in $rest; do awk -F'\t' -v n=$t '$1 == n' build-device/tests.tsv; done > /tmp/rest.tsv
echo "programs: $(wc -l < /tmp/rest.tsv)" > $OUT/table.txt
cp /tmp/rest.tsv build-device/tests.tsv
export POCL_CACHE_DIR=/tmp/pc15 CLSORT_CACHE_DIR=/tmp/cc15
mkdir -p /tmp/dc
OUT_SAVE=$OUT
OUT=/tmp/dc JOBS=12 TEST_SECONDS=400 VERIFY_SECONDS=240 timeout 560 bash scripts/device-check build-device --suite quick cpu >> $OUT_SAVE/table.txt 2>&1
echo "rc $?" >> $OUT_SAVE/table.txt
cat /tmp/dc/suite-cpu.txt >> $OUT_SAVE/table.txt
cd /tmp/dc && tar czf $OUT_SAVE/raw.tgz . 2>/dev/null
tail -40 $OUT_SAVE/table.txt
