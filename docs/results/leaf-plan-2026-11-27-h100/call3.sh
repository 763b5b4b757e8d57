#!/bin/bash
# Call 3 (H100): four libraries alternating, two rounds, CUB's merge sort
# in each run: 58c0bee (oldlib), da1b678 (midlib: the parallel leaf plan),
# da1b678 + unclamped block-sort merge reads (clamplib), and the working
# tree (src: + the bitonic register network for keys alone); serialised
# profiles of the sample sort at 2^26 and the merge sort at 2^24/2^26 for
# each. Then tests of the block sort's users on NVIDIA.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
args="--algorithms sample,merge --peers cub --sort-sizes 24,26 --types u32,u64 --data keys --runs 7"
for r in 1 2; do
  for l in oldlib midlib clamplib src; do
    LD_LIBRARY_PATH=$B/$l:$B:$B/src timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none $args \
      --json $OUT/$l-$r.jsonl > $OUT/$l-$r.txt 2>&1
  done
done
for l in oldlib midlib clamplib src; do
  LD_LIBRARY_PATH=$B/$l:$B:$B/src CLSORT_PROFILE=1 timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms sample,merge --sort-sizes 26 --types u32 --data keys --runs 1 --peers none > $OUT/profile-$l.txt 2>&1
  echo "== profile $l (sample and merge, u32 keys 2^26, 3 sorts each)" >> $OUT/table.txt
  grep "^clsort profile" $OUT/profile-$l.txt | awk '{k=$3; t[k]+=$(NF-1); c[k]++} END {for (k in t) printf "   %-26s %3d launches %8.3f ms\n", k, c[k], t[k]}' | sort >> $OUT/table.txt
done
python3 - $OUT >> $OUT/table.txt <<'PY'
import json, sys, collections
out = sys.argv[1]
tags = [f"{l}-{r}" for r in (1, 2) for l in ("oldlib", "midlib", "clamplib", "src")]
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
for t in "merge matrix" "segmented packed" "sample tiled"; do
  set -- $t; t0=$(date +%s)
  CK_FORK=no CLSORT_TEST_CL_DIR=$OLDPWD/cl CLSORT_TEST_DEVICE=NVIDIA CLSORT_TEST_TMPDIR=/tmp/tt-$1$2 \
    timeout 120 tests/test_$1 quick $2 > $OUT/test-nv-$1$2.log 2>&1
  echo "test_$1 $2 on NVIDIA: rc $? ($(( $(date +%s) - t0 )) s) $(grep -o 'Checks.*' $OUT/test-nv-$1$2.log)" >> $OUT/table.txt
done
cd $OUT && tar czf raw.tgz *.jsonl *.txt *.log && rm -f *.jsonl *lib-*.txt src-*.txt profile-*.txt *.log
cat table.txt
