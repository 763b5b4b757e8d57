#!/bin/bash
# Call 3 (H100): cold first calls (issue 13), with scripts/cold-start's
# new ocl_s column: CLSORT_CACHE_DIR and POCL_CACHE_DIR empty, NVIDIA's
# compute cache as the warm call before left it (the definition of
# cold); and cold_s (every cache empty), ours_s (the driver's own start-up
# cached), warm_s.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 LD_LIBRARY_PATH=$B:$B/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
timeout 500 scripts/cold-start $B/cli/clsort --device NVIDIA --algorithms auto,radix,bitonic,merge,sample,quick \
  --types u32 --modes keys,pairs >> $OUT/table.txt 2>&1
cat $OUT/table.txt
