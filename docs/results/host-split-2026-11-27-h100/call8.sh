#!/bin/bash
# Call 8 (H100 host): b996c0e (the groups sort at the start of the
# upload's buffer instead of aligned sub-buffers): the split's tests on
# NVIDIA and PoCL 5.0, clsort-fuzz on NVIDIA, and two timing rounds
# against the plain staged sort, each beside its bound.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/hs8
export CK_FORK=no CLSORT_TEST_CL_DIR=$PWD/cl
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
( cd $B
  for t in "test_sort quick split" "test_sort quick edges" "test_memory quick"; do
    CLSORT_DEVICE=NVIDIA timeout 200 ./tests/$t > $OUT/t.txt 2>&1
    echo "NVIDIA $t: rc $? $(grep -E 'Checks' $OUT/t.txt | tail -1)" >> $OUT/table.txt
  done
  timeout 60 ./tests/clsort-fuzz --device NVIDIA --seconds 40 > $OUT/t.txt 2>&1
  echo "NVIDIA fuzz: rc $? $(grep summary $OUT/t.txt | cut -c1-100)" >> $OUT/table.txt ) &
( cd $B && CLSORT_DEVICE=cpu timeout 200 ./tests/test_sort quick split > $OUT/p.txt 2>&1
  echo "PoCL 5.0 test_sort quick split: rc $? $(grep -E 'Checks' $OUT/p.txt | tail -1)" >> $OUT/table.txt ) &
wait
$B/bench/clsort-link-rate --device NVIDIA --mib 1024 --runs 5 > $OUT/link.txt 2>&1
cat $OUT/link.txt >> $OUT/table.txt
up=$(awk '/pinned *host->device/{print $3}' $OUT/link.txt); down=$(awk '/pinned *device->host/{print $3}' $OUT/link.txt)
run() { # name env sizes
  local name=$1 envs=$2 sizes=$3
  env $envs timeout 200 $B/cli/clsort bench --device NVIDIA --api both --primitives none --algorithms radix \
    --sort-sizes $sizes --types u32 --data keys,pairs --runs 9 --peers none > $OUT/$name.txt 2>&1
  awk -v up=$up -v down=$down -v name=$name '
    $1=="sort" && $2=="radix" {dev[$4" "$6]=$7}
    $1=="sort" && $2=="radix@host" {host[$4" "$6]=$7; order[++m]=$4" "$6}
    /verification failures/ {fails=$0}
    END { for (j=1;j<=m;j++) { k=order[j]; split(k, kk, " "); e=substr(kk[2],3)+0; n=2^e;
        bytes=n*4*(kk[1]=="pairs"?2:1); b=dev[k]+bytes/(up*1e6)+bytes/(down*1e6);
        printf("%-6s u32 %-11s: device %.3f bound %.3f host %.3f (%.3f of bound)\n", name, k, dev[k], b,
               host[k], host[k]>0?b/host[k]:0) }
      print name ": " fails }' $OUT/$name.txt >> $OUT/table.txt
}
for round in 1 2; do
  run off$round "CLSORT_STAGED_SPLIT=0" 24,26,28
  run def$round "X=1" 24,26,28
done
cd $OUT && tar czf raw.tgz *.txt && find . -name "*.txt" ! -name table.txt -delete
cat table.txt
