#!/bin/bash
# Call 1 (H100 host), c6ed6ca: the CPU merge sort's second scratch pair
# on PoCL 5.0 (16 cores): test_merge's matrix (with the new case that runs
# without it), and u32 / u64 pairs at 2^24 with it and without it
# (CLSORT_MERGE_CPU_SPARE=0), alternating, one process each; then issue
# 17's host-array rows on the H100 beside their bounds and, new in the
# same run, CUB's radix sort of a pageable array (cub-radix@host).
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src
export CLSORT_CACHE_DIR=/tmp/s1c POCL_CACHE_DIR=/tmp/s1p CK_FORK=no CLSORT_TEST_CL_DIR=$PWD/cl
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
( cd $B && CLSORT_DEVICE=cpu timeout 300 ./tests/test_merge quick matrix > $OUT/tm.txt 2>&1
  echo "PoCL 5.0 test_merge quick matrix: rc $? $(grep -E 'Checks' $OUT/tm.txt | tail -1)" >> $OUT/table.txt )
for i in 1 2 3; do
  for spare in 1 0; do
    for t in u32 u64; do
      CLSORT_MERGE_CPU_SPARE=$spare CLSORT_PROFILE=1 timeout 120 $B/cli/clsort bench --device cpu \
        --primitives none --algorithms merge --sort-sizes 24 --types $t --data pairs --runs 3 \
        --warmup 1 --peers none > $OUT/mp-$i-$spare-$t.txt 2>&1
      awk -v s=$spare -v t=$t '/profile/{x[$3]+=$(NF-1); c[$3]++} /^sort/{m=$7; ok=$(NF)}
        END{n=c["mcpu_runs"]; printf "PoCL 5.0 merge %s pairs 2^24 spare=%s: ", t, s;
            for(k in x) printf "%s %.1f ", k, x[k]/n; print "median", m, "ok", ok}' \
        $OUT/mp-$i-$spare-$t.txt >> $OUT/table.txt
    done
  done
done
$B/bench/clsort-link-rate --device NVIDIA --mib 1024 --runs 5 > $OUT/link.txt 2>&1
cat $OUT/link.txt >> $OUT/table.txt
up=$(awk '/pinned *host->device/{print $3}' $OUT/link.txt); down=$(awk '/pinned *device->host/{print $3}' $OUT/link.txt)
timeout 400 $B/cli/clsort bench --device NVIDIA --api both --primitives none --algorithms radix \
  --sort-sizes 24,26,28 --types u32 --data keys,pairs --runs 9 --peers cub > $OUT/h17.txt 2>&1
grep -E "^sort|verification" $OUT/h17.txt >> $OUT/table.txt
awk -v up=$up -v down=$down '
  $1=="sort" && $2=="radix" {dev[$4" "$6]=$7}
  $1=="sort" && $2=="radix@host" {host[$4" "$6]=$7; order[++m]=$4" "$6}
  $1=="sort" && $2=="cub-radix@host" {cub[$4" "$6]=$7}
  END { for (j=1;j<=m;j++) { k=order[j]; split(k, kk, " "); e=substr(kk[2],3)+0; n=2^e;
      bytes=n*4*(kk[1]=="pairs"?2:1); b=dev[k]+bytes/(up*1e6)+bytes/(down*1e6);
      printf("u32 %-11s: device %.3f bound %.3f host %.3f (%.3f of bound), cub@host %.3f (%.2fx)\n",
             k, dev[k], b, host[k], host[k]>0?b/host[k]:0, cub[k], host[k]>0?cub[k]/host[k]:0) } }' \
  $OUT/h17.txt >> $OUT/table.txt
cd $OUT && tar czf raw.tgz *.txt && find . -name "*.txt" ! -name table.txt -delete
cat table.txt
