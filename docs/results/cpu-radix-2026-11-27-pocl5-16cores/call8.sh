#!/bin/bash
# Call 8 (H100 host, PoCL 5.0, 16 cores): call 7 again with the numpy peer,
# which call 7 skipped (the host's numpy 2.5.2 is the system python's).
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
CLSORT_NUMPY_PYTHON=$(command -v python3) timeout 150 cli/clsort bench --device cpu --primitives none --algorithms radix --sort-sizes 24,26 --types u32 --data keys --peers numpy --runs 5 > $OUT/numpy.txt 2>&1
grep -E "^sort|^note" $OUT/numpy.txt | cut -c1-200
