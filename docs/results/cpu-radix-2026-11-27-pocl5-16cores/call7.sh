#!/bin/bash
# Call 7 (H100 host, PoCL 5.0, 16 cores): 179b34e's radix sort beside
# numpy.sort and Boost.Sort's block_indirect_sort on 16 threads in the same
# run (issue 15's 16-core targets).
B=$PWD/build-device
export LD_LIBRARY_PATH=$B:$B/src
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
cd $B
python3 -c "import numpy; print('numpy', numpy.__version__)" 2>&1 | head -2
timeout 230 cli/clsort bench --device cpu --primitives none --algorithms radix --sort-sizes 24,26 --types u32 --data keys --peers numpy,cpu-sorts --runs 3 > $OUT/peers.txt 2>&1
grep -E "^sort|^copy" $OUT/peers.txt | awk '{print $1,$2,$3,$6,$7,$NF,$(NF-2)}'
