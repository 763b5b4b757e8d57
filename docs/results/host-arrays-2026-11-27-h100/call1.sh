#!/bin/bash
# Call 1 (H100): where a 2^24 u32 host-array sort's time goes at 509b976,
# and the staging settings swept again now that the pool hands slots off
# in microseconds (the last sweep of slot sizes and plain copies ran
# before that fix). Two rounds of every setting, alternating.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/hc1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
$B/bench/clsort-link-rate --device NVIDIA --mib 1024 --runs 5 > $OUT/link.txt 2>&1
cat $OUT/link.txt >> $OUT/table.txt
up=$(awk '/pinned *host->device/{print $3}' $OUT/link.txt); down=$(awk '/pinned *device->host/{print $3}' $OUT/link.txt)
configs=("X=default" "CLSORT_PLAIN_COPY=1" "CLSORT_STAGING=4096:12" "CLSORT_STAGING=4096:12 CLSORT_PLAIN_COPY=1"
  "CLSORT_STAGING=2048:16" "CLSORT_STAGING=2048:16 CLSORT_PLAIN_COPY=1" "CLSORT_STAGING=1024:16 CLSORT_PLAIN_COPY=1"
  "CLSORT_STAGING=16384:4" "CLSORT_STAGING_RAMP=0" "CLSORT_STAGING_RAMP=256" "CLSORT_HOST_THREADS=8" "CLSORT_HOST_THREADS=12")
for round in 1 2; do
  i=0
  for c in "${configs[@]}"; do
    i=$((i+1))
    env $c timeout 100 $B/cli/clsort bench --device NVIDIA --api both --primitives none --algorithms radix \
      --sort-sizes 24,26 --types u32 --data keys,pairs --runs 15 --peers none > $OUT/r$round-c$i.txt 2>&1
    awk -v c="$c" -v up=$up -v down=$down -v r=$round '
      $1=="sort" && $2=="radix" {dev[$4" "$6]=$7}
      $1=="sort" && $2=="radix@host" {host[$4" "$6]=$7; mx[$4" "$6]=$9}
      END { line=sprintf("r%s %-44s", r, c);
        split("keys 2^24,keys 2^26,pairs 2^24,pairs 2^26", ks, ",");
        for (j=1;j<=4;j++) { k=ks[j]; split(k, kk, " "); e=substr(kk[2],3)+0; n=2^e;
          bytes=n*4*(kk[1]=="pairs"?2:1);
          b=dev[k]+bytes/(up*1e6)+bytes/(down*1e6);
          line=line sprintf("  %s %s %.2f/%.2f (%.3f)", kk[1], kk[2], host[k], b, host[k]>0?b/host[k]:0) }
        print line }' $OUT/r$round-c$i.txt >> $OUT/table.txt
  done
done
# The breakdown of the default setting: transfer.c's debug lines.
CLSORT_LOG=debug timeout 100 $B/cli/clsort bench --device NVIDIA --api host --primitives none --algorithms radix \
  --sort-sizes 24 --types u32 --data keys --runs 6 --warmup 1 --peers none > $OUT/trace.txt 2>&1
grep -E "upload of|download of" $OUT/trace.txt | tail -8 | sed -E 's/^.*(upload|download)/\1/' >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt && rm -f r[12]-*.txt trace.txt
cat table.txt
