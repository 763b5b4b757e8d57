#!/bin/bash
# Call 10 (H100): host arrays from clsort_host_alloc (the benchmark's new
# --api pinned: no staging copy, the link reads and writes them where they
# are) beside pageable host arrays and the device sort, each against the
# bound: the device sort of the same run plus the bytes each way at the
# pinned rates clsort-link-rate measures in the same call. Two rounds.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/hc10
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
$B/bench/clsort-link-rate --device NVIDIA --mib 1024 --runs 5 > $OUT/link.txt 2>&1
cat $OUT/link.txt >> $OUT/table.txt
up=$(awk '/pinned *host->device/{print $3}' $OUT/link.txt); down=$(awk '/pinned *device->host/{print $3}' $OUT/link.txt)
for round in 1 2; do
  timeout 250 $B/cli/clsort bench --device NVIDIA --api both,pinned --primitives none --algorithms radix \
    --sort-sizes 24,26,28 --types u32 --data keys,pairs --runs 9 --peers none --json $OUT/r$round.jsonl > $OUT/r$round.txt 2>&1
  grep -E "^sort|measurements in" $OUT/r$round.txt >> $OUT/table.txt
  awk -v up=$up -v down=$down -v r=$round '
    $1=="sort" && $2=="radix" {dev[$4" "$6]=$7}
    $1=="sort" && $2=="radix@host" {host[$4" "$6]=$7}
    $1=="sort" && $2=="radix@pinned" {pin[$4" "$6]=$7}
    END { split("keys 2^24,keys 2^26,keys 2^28,pairs 2^24,pairs 2^26,pairs 2^28", ks, ",");
      for (j=1;j<=6;j++) { k=ks[j]; split(k, kk, " "); e=substr(kk[2],3)+0; n=2^e;
        bytes=n*4*(kk[1]=="pairs"?2:1); b=dev[k]+bytes/(up*1e6)+bytes/(down*1e6);
        printf("r%s u32 %s: bound %.2f ms; host %.2f (%.3f); pinned %.2f (%.3f)\n", r, k, b,
               host[k], host[k]>0?b/host[k]:0, pin[k], pin[k]>0?b/pin[k]:0) } }' $OUT/r$round.txt >> $OUT/table.txt
done
cd $OUT && tar czf raw.tgz *.txt *.jsonl && rm -f r[12].txt r[12].jsonl
cat table.txt
