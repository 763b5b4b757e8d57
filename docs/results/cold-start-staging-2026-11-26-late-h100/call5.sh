#!/bin/bash
# Call 5: do two builds in one process run at once on NVIDIA's compiler?
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
p() { rm -rf /tmp/pr; mkdir -p /tmp/pr; echo "$* -> $(CLSORT_CACHE_DIR=/tmp/pr/c CUDA_CACHE_PATH=/tmp/pr/cu $B/bench/build-probe "$@")" >> $OUT/table.txt; }
# prime the driver's own cache once per run (a context without our kernels)
for r in 1 2; do
p radix; p merge; p radix merge; p quick; p radix merge quick
done
cat $OUT/table.txt
