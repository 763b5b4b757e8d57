#!/bin/bash
# Call 3: host-array radix, polled slot events and one queue for all
# transfers against the default, alternating in one call.
set -u
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 CLSORT_CACHE_DIR=/tmp/cc
T=$B/cli/clsort
$B/bench/clsort-link-rate --mib 1024 > $OUT/link.txt 2>&1; grep pinned $OUT/link.txt >> $OUT/table.txt
hb() { # name, env...
  name=$1; shift
  env "$@" $T bench --device NVIDIA --api both --primitives none --algorithms radix --sort-sizes 24,26 --types u32 \
    --data keys,pairs --runs 11 --peers none > $OUT/hb-$name-$r.txt 2>&1
  awk -v n=$name '/^sort/{printf "%-12s %-11s %-5s %s %s\n", n, $2, $4, $6, $7}' $OUT/hb-$name-$r.txt >> $OUT/table.txt
}
for r in 1 2 3; do
hb base X=1
hb spin CLSORT_STAGING_SPIN=1
hb oneq CLSORT_STAGING_ONE_QUEUE=1
hb spin-oneq CLSORT_STAGING_SPIN=1 CLSORT_STAGING_ONE_QUEUE=1
done
$B/bench/clsort-link-rate --mib 1024 > $OUT/link2.txt 2>&1; grep pinned $OUT/link2.txt >> $OUT/table.txt
cd $OUT && tar czf logs.tgz hb-*.txt link*.txt && rm -f hb-*.txt link*.txt
grep -v "radix " $OUT/table.txt | sort -k1,1 -k3,3 -k4,4 -s | awk '{k=$1" "$3" "$4; a[k]=a[k]" "$5} END{for(k in a) print k, a[k]}' | sort
