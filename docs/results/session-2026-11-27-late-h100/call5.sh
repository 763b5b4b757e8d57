#!/bin/bash
# Call 5 (H100 host), the stop's final code. Call 4's device-check ran out
# of its time after 37 of the quick suite's programs on NVIDIA (all
# passed); this runs the rest there but the MPI ones (context, errors,
# faults, faults-aligned, fuzz, fuzz-memory-limit, memory, narrow,
# prepare, quick-two-way, sort-aligned, tool, topk), and beside them on
# PoCL 5.0 (16 cores) the programs this stop changed or that its changes
# reach (merge-matrix, tool, errors, topk, segmented-matrix, memory,
# narrow, fuzz); each capped at 280 s, no benchmark verification.
set -u
export OUT=$OUT/dc TEST_SECONDS=280 SKIP_BENCH=1 JOBS=8
mkdir -p $OUT
B=build-device
cp $B/tests.tsv /tmp/tests-all.tsv
nv="context errors faults faults-aligned fuzz fuzz-memory-limit memory narrow prepare quick-two-way sort-aligned tool topk"
cpu="merge-matrix tool errors topk segmented-matrix memory narrow fuzz"
pick() { awk -F'\t' -v want=" $1 " 'index(want, " " $1 " ") > 0' /tmp/tests-all.tsv; }
# device-check reads BUILD/tests.tsv: one build folder per device's list.
cp -r $B /tmp/bnv; pick "$nv" > /tmp/bnv/tests.tsv
cp -r $B /tmp/bcpu; pick "$cpu" > /tmp/bcpu/tests.tsv
( OUT=$OUT/nv timeout 500 scripts/device-check /tmp/bnv --suite quick NVIDIA > $OUT/nv.txt 2>&1 ) &
( OUT=$OUT/cpu timeout 500 scripts/device-check /tmp/bcpu --suite quick cpu > $OUT/cpu.txt 2>&1 ) &
wait
{ cat $OUT/nv/suite-*.txt; cat $OUT/nv/summary.txt; cat $OUT/cpu/suite-*.txt; cat $OUT/cpu/summary.txt; } > $OUT/../table.txt 2>&1
cd $OUT/.. && rm -rf dc/nv/cache dc/cpu/cache dc/nv/tmp dc/cpu/tmp && tar czf raw.tgz dc && rm -rf dc
cat table.txt
