#!/bin/bash
# Call 13 (H100), the final code (81ebfb0: 4-byte keys merge in groups of
# 128): the merge sort beside CUB's merge sort, u32/u64 keys/pairs
# 2^20-2^26, 2^28 u32 keys; u32 keys and pairs again with the groups of 256
# (CLSORT_MERGE=256:16); the sample sort; the merge, merging and segmented
# tests on NVIDIA; serialised per-kernel times at 2^22/2^24/2^26 u32 keys.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc LD_LIBRARY_PATH=$B:$B/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
timeout 200 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge --peers cub --runs 7 \
  --sort-sizes 20,21,22,23,24,26 --types u32,u64 --data keys,pairs --json $OUT/merge.jsonl > $OUT/merge.txt 2>&1
timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge,sample --peers cub --runs 3 \
  --sort-sizes 28 --types u32 --data keys --json $OUT/merge28.jsonl > $OUT/merge28.txt 2>&1
CLSORT_MERGE=256:16 timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms merge --peers none --runs 7 \
  --sort-sizes 20,21,22,23,24,26 --types u32 --data keys,pairs > $OUT/wg256.txt 2>&1
echo "groups of 256: $(grep '^sort  *merge ' $OUT/wg256.txt | awk '{printf "%s %s 2^%s %s  ", $3, $4, $6, $7}')" >> $OUT/table.txt
timeout 100 $B/cli/clsort bench --device NVIDIA --primitives none --algorithms sample --peers none --runs 5 \
  --sort-sizes 24,26 --types u32,u64 --data keys,pairs --json $OUT/sample.jsonl > $OUT/sample.txt 2>&1
python3 - $OUT >> $OUT/table.txt <<'PY'
import json, sys, glob
rows = [json.loads(l) for f in sorted(glob.glob(sys.argv[1] + '/*.jsonl')) for l in open(f) if l.startswith('{')]
ok = [r for r in rows if r.get('status') == 'ok']
def key(r): return (r['type'], r['pairs'], r['log2n'])
cub = {key(r): r['median_ms'] for r in ok if r['algorithm'] == 'cub-merge'}
for alg in ('merge', 'sample'):
    for r in sorted((r for r in ok if r['algorithm'] == alg), key=key):
        c = cub.get(key(r))
        print('%-6s %s %-5s 2^%d %8.4f ms  cub-merge %s  ratio %s' % (alg, r['type'], 'pairs' if r['pairs'] else 'keys', r['log2n'], r['median_ms'],
              '%.4f' % c if c else '-', '%.3f' % (c / r['median_ms']) if c else '-'))
PY
for s in 22 24 26; do
  CLSORT_PROFILE=1 timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms merge --sort-sizes $s --types u32 --data keys --runs 1 --peers none > $OUT/profile-$s.txt 2>&1
  echo "== profile 2^$s (3 sorts): $(grep '^clsort profile' $OUT/profile-$s.txt | awk '{k=$3; t[k]+=$(NF-1); c[k]++} END {for (k in t) printf "%s %d x %.3f ms; ", k, c[k], t[k]}')" >> $OUT/table.txt
done
cd $B
for t in "test_merge tiled" "test_merge matrix" "test_merging tiled" "test_merging matrix" "test_segmented packed" "test_segmented matrix" "test_sample tiled"; do
  set -- $t
  CK_FORK=no CLSORT_TEST_DEVICE=NVIDIA CLSORT_TEST_TMPDIR=/tmp/tt13 timeout 150 tests/$1 quick $2 > $OUT/test-nv-$1-$2.log 2>&1
  echo "$1 $2 on NVIDIA: rc $? $(grep -o 'Checks.*' $OUT/test-nv-$1-$2.log)" >> $OUT/table.txt
done
grep -h 'measurements in' $OUT/merge*.txt $OUT/sample.txt $OUT/wg256.txt > $OUT/counts.txt; cat $OUT/counts.txt >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.jsonl *.txt *.log && rm -f *.jsonl merge*.txt sample.txt wg256.txt counts.txt profile-*.txt *.log
cat table.txt
