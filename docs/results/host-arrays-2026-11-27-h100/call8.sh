#!/bin/bash
# Call 8 (H100): an upload's first slot shorter (CLSORT_STAGING_FIRST=KIB),
# so that the link starts sooner, against whole first slots; three rounds,
# alternating, with the upload's own trace for the first slot's copy.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src CLSORT_CACHE_DIR=/tmp/hc8
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
$B/bench/clsort-link-rate --device NVIDIA --mib 1024 --runs 5 > $OUT/link.txt 2>&1
cat $OUT/link.txt >> $OUT/table.txt
up=$(awk '/pinned *host->device/{print $3}' $OUT/link.txt); down=$(awk '/pinned *device->host/{print $3}' $OUT/link.txt)
for round in 1 2 3; do
  for first in 0 1024 2048 4096; do
    CLSORT_STAGING_FIRST=$first timeout 100 $B/cli/clsort bench --device NVIDIA --api both --primitives none --algorithms radix \
      --sort-sizes 24,26 --types u32 --data keys,pairs --runs 15 --peers none > $OUT/r$round-f$first.txt 2>&1
    awk -v c="first=$first" -v up=$up -v down=$down -v r=$round '
      $1=="sort" && $2=="radix" {dev[$4" "$6]=$7}
      $1=="sort" && $2=="radix@host" {host[$4" "$6]=$7}
      END { line=sprintf("r%s %-12s", r, c);
        split("keys 2^24,keys 2^26,pairs 2^24,pairs 2^26", ks, ",");
        for (j=1;j<=4;j++) { k=ks[j]; split(k, kk, " "); e=substr(kk[2],3)+0; n=2^e;
          bytes=n*4*(kk[1]=="pairs"?2:1);
          b=dev[k]+bytes/(up*1e6)+bytes/(down*1e6);
          line=line sprintf("  %s %s %.2f/%.2f (%.3f)", kk[1], kk[2], host[k], b, host[k]>0?b/host[k]:0) }
        print line }' $OUT/r$round-f$first.txt >> $OUT/table.txt
  done
done
for first in 0 2048; do
  CLSORT_STAGING_FIRST=$first CLSORT_LOG=debug timeout 100 $B/cli/clsort bench --device NVIDIA --api host --primitives none \
    --algorithms radix --sort-sizes 24 --types u32 --data keys --runs 8 --warmup 1 --peers none > $OUT/trace-f$first.txt 2>&1
  echo "first=$first" >> $OUT/table.txt
  grep -E "upload of|staged sort" $OUT/trace-f$first.txt | tail -8 | sed -E 's/^clsort: //' >> $OUT/table.txt
done
cd $OUT && tar czf raw.tgz *.txt && rm -f r[123]-*.txt trace-*.txt
cat table.txt
