#!/bin/bash
# Call 4 (H100): the merge pass's vector loads (src) against af7fa12
# (headlib), two rounds alternating, CUB's merge sort in each run; the
# pass shape swept with the new library; serialised profiles; then the
# block sort's and merge pass's users on PoCL 5.0 (the host's 16 cores).
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
args="--algorithms merge --peers cub --sort-sizes 20,22,24,26 --types u32,u64 --data keys,pairs --runs 5"
for r in 1 2; do
  for l in headlib src; do
    LD_LIBRARY_PATH=$B/$l:$B:$B/src timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none $args \
      --json $OUT/$l-$r.jsonl > $OUT/$l-$r.txt 2>&1
  done
done
for v in 256:16 512:16 512:8 128:32 128:16 1024:8; do
  LD_LIBRARY_PATH=$B:$B/src CLSORT_MERGE=$v timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms merge --peers none --sort-sizes 24,26 --types u32 --data keys --runs 5 \
    --json $OUT/sweep-${v/:/x}.jsonl > $OUT/sweep-${v/:/x}.txt 2>&1
  echo "CLSORT_MERGE=$v: $(grep '^sort' $OUT/sweep-${v/:/x}.txt | awk '{printf "2^%s %s ms  ", $6, $7}')" >> $OUT/table.txt
done
for l in headlib src; do
  LD_LIBRARY_PATH=$B/$l:$B:$B/src CLSORT_PROFILE=1 timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms merge --sort-sizes 26 --types u32,u64 --data keys --runs 1 --peers none > $OUT/profile-$l.txt 2>&1
  echo "== profile $l (merge, u32 then u64 keys 2^26, 3 sorts each)" >> $OUT/table.txt
  grep "^clsort profile" $OUT/profile-$l.txt | awk '{k=$3; t[k]+=$(NF-1); c[k]++} END {for (k in t) printf "   %-26s %3d launches %8.3f ms\n", k, c[k], t[k]}' | sort >> $OUT/table.txt
done
python3 - $OUT >> $OUT/table.txt <<'PY'
import json, sys, collections
out = sys.argv[1]
tags = [f"{l}-{r}" for r in (1, 2) for l in ("headlib", "src")]
rows = collections.defaultdict(dict)
for tag in tags:
    for line in open(f"{out}/{tag}.jsonl"):
        try: d = json.loads(line)
        except Exception: continue
        if d.get("op") != "sort" or d.get("distribution") != "uniform": continue
        a = d.get("algorithm")
        if a in ("cub-radix", "cub-merge-inplace"): continue
        rows[(d.get("type"), "pairs" if d.get("pairs") else "keys", d.get("log2n"), a)][tag] = d.get("median_ms")
print("type data n algorithm: " + " ".join(tags) + " (median ms)")
for k in sorted(rows):
    print(" ".join(str(x) for x in k), ":", " ".join("%.4f" % rows[k][t] if t in rows[k] else "-" for t in tags))
PY
cd $B
export LD_LIBRARY_PATH=$B:$B/src
for t in "merge tiled" "merging tiled" "sample tiled" "segmented packed"; do
  set -- $t
  ( t0=$(date +%s); CK_FORK=no CLSORT_TEST_CL_DIR=$OLDPWD/cl CLSORT_TEST_DEVICE=cpu CLSORT_TEST_TMPDIR=/tmp/tc-$1$2 \
    timeout 240 tests/test_$1 quick $2 > $OUT/test-cpu-$1$2.log 2>&1
    echo "test_$1 $2 on PoCL 5.0: rc $? ($(( $(date +%s) - t0 )) s) $(grep -o 'Checks.*' $OUT/test-cpu-$1$2.log)" >> $OUT/tests.txt ) &
done
wait
cat $OUT/tests.txt >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.jsonl *.txt *.log && rm -f *.jsonl headlib-*.txt src-*.txt sweep-*.txt profile-*.txt *.log tests.txt
cat table.txt
