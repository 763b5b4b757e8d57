#!/bin/bash
# Call 4 (H100): the split's groups copied back in order, the download in whole slots; first group one slot against
# the plain staged sort (CLSORT_STAGED_SPLIT=0) and other group shapes, in
# alternating rounds, each beside its bound (the device sort of the same
# run plus the bytes each way at clsort-link-rate's pinned rates); the
# split's test part on NVIDIA and on PoCL 5.0; one split sort's debug log.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/hs4
export CK_FORK=no CLSORT_TEST_CL_DIR=$PWD/cl
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
( cd $B && CLSORT_DEVICE=NVIDIA timeout 120 ./tests/test_sort quick split > $OUT/test-nv.txt 2>&1; echo "nv split rc $?" >> $OUT/table.txt ) &
( cd $B && CLSORT_DEVICE=cpu timeout 200 ./tests/test_sort quick split > $OUT/test-pocl.txt 2>&1; echo "pocl5 split rc $?" >> $OUT/table.txt ) &
wait
for f in $OUT/test-nv.txt $OUT/test-pocl.txt; do grep -E "Checks|failed|:F:|:E:" $f | head -5 >> $OUT/table.txt; done
$B/bench/clsort-link-rate --device NVIDIA --mib 1024 --runs 5 > $OUT/link.txt 2>&1
cat $OUT/link.txt >> $OUT/table.txt
up=$(awk '/pinned *host->device/{print $3}' $OUT/link.txt); down=$(awk '/pinned *device->host/{print $3}' $OUT/link.txt)
run() { # name env sizes
  local name=$1 envs=$2 sizes=$3
  env $envs timeout 150 $B/cli/clsort bench --device NVIDIA --api both --primitives none --algorithms radix \
    --sort-sizes $sizes --types u32 --data keys,pairs --runs 9 --peers none > $OUT/$name.txt 2>&1
  awk -v up=$up -v down=$down -v name=$name '
    $1=="sort" && $2=="radix" {dev[$4" "$6]=$7}
    $1=="sort" && $2=="radix@host" {host[$4" "$6]=$7; order[++m]=$4" "$6}
    /verification failures/ {fails=$0}
    END { for (j=1;j<=m;j++) { k=order[j]; split(k, kk, " "); e=substr(kk[2],3)+0; n=2^e;
        bytes=n*4*(kk[1]=="pairs"?2:1); b=dev[k]+bytes/(up*1e6)+bytes/(down*1e6);
        printf("%-10s u32 %-11s: device %.3f bound %.3f host %.3f (%.3f of bound)\n", name, k, dev[k], b,
               host[k], host[k]>0?b/host[k]:0) }
      print name ": " fails }' $OUT/$name.txt >> $OUT/table.txt
}
for round in 1 2; do
  run off$round "CLSORT_STAGED_SPLIT=0" 22,24,26
  run def$round "X=1" 22,24,26
  run f5c1_$round "CLSORT_STAGED_SPLIT=2097152:5:1:4" 22,24,26
  run c2_$round "CLSORT_STAGED_SPLIT=2097152:0:2:4" 22,24,26
  run g2_$round "CLSORT_STAGED_SPLIT=2097152:0:1:2" 22,24,26
done
run off28 "CLSORT_STAGED_SPLIT=0" 28
run def28 "X=1" 28
CLSORT_LOG=debug timeout 60 $B/cli/clsort bench --device NVIDIA --api host --primitives none --algorithms radix \
  --sort-sizes 24 --types u32 --data keys --runs 3 --warmup 1 --peers none 2>&1 | grep -E "split sort|download of|upload of|staged sort" > $OUT/debug24.txt
head -12 $OUT/debug24.txt >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt && find . -name "*.txt" ! -name table.txt -delete && ls
cat table.txt
