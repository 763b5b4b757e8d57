#!/bin/bash
# Call 2: the working tree (parallel leaf plan, the block sort's bitonic
# register network for keys alone and unclamped merge reads, the quicksort's
# leaves by the block sort's range tiles) against 58c0bee (oldlib, now
# really 58c0bee), two rounds alternating, CUB's merge sort in each run;
# profiles of the quicksort and the merge sort after.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc
bench() { # lib tag args...
  local lib=$1 tag=$2; shift 2
  LD_LIBRARY_PATH=$lib:$B:$B/src timeout 150 $B/cli/clsort bench --device NVIDIA --primitives none "$@" \
    --json $OUT/$tag.jsonl > $OUT/$tag.txt 2>&1
}
args="--algorithms sample,merge,quick --peers cub --sort-sizes 24,26 --types u32,u64 --data keys,pairs --runs 5"
for r in 1 2; do
  bench $B/oldlib old$r $args
  bench $B/src new$r $args
done
LD_LIBRARY_PATH=$B:$B/src CLSORT_PROFILE=1 timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
  --algorithms quick,merge --sort-sizes 24 --types u32 --data keys --runs 1 --peers none > $OUT/profile-new.txt 2>&1
LD_LIBRARY_PATH=$B/oldlib:$B:$B/src CLSORT_PROFILE=1 timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
  --algorithms quick,merge --sort-sizes 24 --types u32 --data keys --runs 1 --peers none > $OUT/profile-old.txt 2>&1
for f in profile-new profile-old; do
  echo "== $f" >> $OUT/table.txt
  grep "^clsort profile" $OUT/$f.txt | awk '{k=$3; t[k]+=$(NF-1); c[k]++} END {for (k in t) printf "   %-26s %3d launches %8.3f ms\n", k, c[k], t[k]}' | sort >> $OUT/table.txt
done
python3 - $OUT >> $OUT/table.txt <<'PY'
import json, sys, collections
out = sys.argv[1]
rows = collections.defaultdict(dict)
for tag in ["old1", "new1", "old2", "new2"]:
    for line in open(f"{out}/{tag}.jsonl"):
        try: d = json.loads(line)
        except Exception: continue
        if d.get("op") != "sort" or d.get("distribution") != "uniform": continue
        a = d.get("algorithm")
        if a in ("cub-radix", "cub-merge-inplace"): continue
        key = (d.get("type"), "pairs" if d.get("pairs") else "keys", d.get("log2n"), a)
        rows[key][tag] = d.get("median_ms")
print("type data n algorithm: old1 new1 old2 new2 (median ms)")
for k in sorted(rows, key=lambda k: (k[0], k[1], k[2], k[3])):
    v = rows[k]
    print(" ".join(str(x) for x in k), ":", " ".join("%.4f" % v[t] if t in v and v[t] else "-" for t in ["old1", "new1", "old2", "new2"]))
PY
cd $OUT && tar czf raw.tgz *.jsonl *.txt && rm -f *.jsonl old*.txt new*.txt profile-*.txt
cat table.txt
