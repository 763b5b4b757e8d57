#!/bin/bash
# A/B of the CPU merge sort's second scratch pair: this tree's build
# (build/) against another library (OLD, a build of the commit before),
# alternating, one process per line. Each line: the kernels' time per
# sort (CLSORT_PROFILE=1, summed over the sort's launches) and the
# benchmark's median. Usage: ab.sh OLD_BUILD_DIR PROCESSES TYPE DATA
old=$1 procs=${2:-10} type=${3:-u32} data=${4:-pairs}
for i in $(seq 1 "$procs"); do
  for v in old new; do
    if [ $v = old ]; then B=$old/cli/clsort L=$old/src; else B=build/cli/clsort L=build/src; fi
    echo -n "$v $type $data "
    LD_LIBRARY_PATH=$L CLSORT_PROFILE=1 $B bench --device cpu --primitives none \
      --algorithms merge --sort-sizes 24 --types "$type" --data "$data" --runs 2 --warmup 1 \
      --peers none 2>&1 |
      awk '/profile/{s[$3]+=$(NF-1); c[$3]++} /^sort/{t=$7; ok=$(NF)}
           END{n=c["mcpu_runs"]; for(k in s) printf "%s %.1f ", k, s[k]/n; print "median", t}'
  done
done
