#!/bin/bash
# Call 4 (H100): where the merge pass's time goes. Nsight Compute on CUB's
# merge sort and (if it profiles OpenCL) on ours, 2^26 u32 keys, the same
# metrics: time, instructions, DRAM bytes, shared-memory bank conflicts,
# occupancy. Register use of merge_pass in each tree of call 3.
set -u
B=$PWD/build-device
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1 POCL_CACHE_DIR=/tmp/pc CLSORT_CACHE_DIR=/tmp/cc LD_LIBRARY_PATH=$B:$B/src
NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,sm__inst_executed.sum,dram__bytes.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,smsp__average_warp_latency_issue_stalled_barrier,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/table.txt
timeout 200 $NCU --metrics $M --csv --launch-count 40 $B/bench/clsort-cub-peer --ops merge --sort-sizes 26 --types u32 --data keys --runs 1 --warmup 0 > $OUT/ncu-cub.csv 2> $OUT/ncu-cub.err
echo "ncu cub rc $? lines $(wc -l < $OUT/ncu-cub.csv)" >> $OUT/table.txt
for tree in v2 v5; do
  CLSORT_KERNEL_DIR=$B/cl-$tree/cl timeout 200 $NCU --metrics $M --csv -k regex:merge --launch-count 8 $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms merge --sort-sizes 26 --types u32 --data keys --runs 1 --peers none > $OUT/ncu-$tree.csv 2> $OUT/ncu-$tree.err
  echo "ncu $tree rc $? lines $(wc -l < $OUT/ncu-$tree.csv)" >> $OUT/table.txt
done
for tree in v2 v4 v5 v45; do
  CLSORT_KERNEL_DIR=$B/cl-$tree/cl CLSORT_EXTRA_BUILD_OPTIONS=-cl-nv-verbose CLSORT_LOG=debug CLSORT_CACHE_DIR=/tmp/cc-$tree timeout 60 $B/cli/clsort bench --device NVIDIA --primitives none \
    --algorithms merge --sort-sizes 26 --types u32 --data keys --runs 1 --peers none > $OUT/regs-$tree.txt 2>&1
  echo "== regs $tree: $(grep -A3 "merge_pass'" $OUT/regs-$tree.txt | grep -o 'Used [0-9]* registers' | head -2 | tr '\n' ' ')" >> $OUT/table.txt
done
python3 - $OUT >> $OUT/table.txt <<'PY'
import csv, sys, glob, collections
for f in sorted(glob.glob(sys.argv[1] + '/ncu-*.csv')):
    rows = [r for r in csv.reader(open(f)) if len(r) > 10]
    if not rows: print(f, 'no rows'); continue
    h = rows[0]; ki = h.index('Kernel Name'); mi = h.index('Metric Name'); vi = h.index('Metric Value'); ii = h.index('ID')
    per = collections.OrderedDict()
    for r in rows[1:]:
        per.setdefault((r[ii], r[ki][:40]), {})[r[mi]] = r[vi]
    print('==', f.split('/')[-1])
    for (i, k), m in list(per.items())[:12]:
        print(i, k, ' '.join('%s=%s' % (n.split('__')[1][:38], v) for n, v in m.items()))
PY
cd $OUT && tar czf raw.tgz *.csv *.err *.txt && rm -f *.csv *.err regs-*.txt
cat table.txt
