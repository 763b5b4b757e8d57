#!/bin/bash
# test_mpi on 4 ranks (quick cases) on a cold PoCL cache shared by the ranks, old and new library alternating.
B=$PWD/build-device
cd $B
for rep in $(seq 1 14); do for lib in old new; do
  L=$B/src; [ $lib = old ] && L=$B/oldlib
  rm -rf /tmp/r2-pc /tmp/r2-pc.clsort-lock /tmp/r2-cc
  start=$(date +%s)
  timeout 200 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 4 -x LD_LIBRARY_PATH=$L:$B:$B/src/mpi \
    env POCL_MAX_PTHREAD_COUNT=4 POCL_CACHE_DIR=/tmp/r2-pc CLSORT_CACHE_DIR=/tmp/r2-cc CLSORT_TEST_DEVICE=cpu tests/mpi/test_mpi > /tmp/r2.txt 2>&1
  echo "$lib: rc $?: $(grep -c '^FAIL' /tmp/r2.txt) FAIL lines; $(grep -m1 '^FAIL' /tmp/r2.txt | cut -c1-160)"
done; done | sort | uniq -c | sort -rn | head -20
