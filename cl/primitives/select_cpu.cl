/* select_cpu.cl: stable compact and split by byte flags, CPU shape: one
 * work-item per group, each walking a contiguous chunk, two launches and
 * no scan program:
 *   1. select_cpu_count: counts[g] = flagged elements of chunk g
 *   2. select_cpu_scatter: chunk g sums the counts before it (they are
 *      few) and copies its elements in order.
 *
 * Needs common.cl before it, and
 *   SEL_E   the element type (uchar, ushort, uint, ulong, uint4)
 */
#ifndef SEL_E
#error "select_cpu.cl needs SEL_E"
#endif

/* counts[g] = non-zero flags in chunk g (a loop the compiler vectorizes).
 * Both kernels take their arrays' origins (elements before element 0 in
 * the buffer: a caller's host array used in place from the aligned address
 * before it, src/api/host_arrays.c). */
CPU_KERNEL void select_cpu_count(__global const uchar *flags, ulong n, ulong chunk,
                                 __global ulong *counts, ulong flags_at) {
  flags += flags_at;
  ulong g = get_group_id(0), i = g * chunk, end = min(n, i + chunk);
  uint c = 0;
  for (; i < end; i++) c += flags[i] != 0;
  counts[g] = c;
}

/* Chunk g writes its flagged elements from kept_before (the flagged
 * elements of the chunks before it) on, and with split its others from
 * total + dropped_before on. Group 0 stores the total in count[0].
 *
 * Each element is written to the next slot of both runs, and only the
 * cursor of its own run moves: the next element of that run overwrites
 * the stray copy. That holds up to the chunk's last element of each run,
 * after which a stray copy would land in the next chunk's slots; from
 * there the loop writes each element to its own run only. */
CPU_KERNEL void select_cpu_scatter(__global const SEL_E *in, __global const uchar *flags,
                                   __global SEL_E *out, ulong n, ulong chunk,
                                   __global const ulong *counts, __global ulong *count,
                                   int split, ulong in_at, ulong flags_at, ulong out_at) {
  in += in_at;
  flags += flags_at;
  out += out_at;
  ulong g = get_group_id(0), groups = get_num_groups(0);
  ulong begin = g * chunk, end = min(n, begin + chunk);
  ulong kept = 0, total = 0;
  for (ulong q = 0; q < groups; q++) {
    if (q == g) kept = total;
    total += counts[q];
  }
  if (g == 0) count[0] = total;
  ulong dropped = total + (begin - kept);
  /* The last flagged and the last unflagged element of the chunk. */
  ulong last_kept = begin, last_dropped = begin;
  bool any_kept = false, any_dropped = false;
  for (ulong i = end; i > begin && !(any_kept && any_dropped); i--) {
    bool f = flags[i - 1] != 0;
    if (f && !any_kept) {
      last_kept = i - 1;
      any_kept = true;
    }
    if (!f && !any_dropped) {
      last_dropped = i - 1;
      any_dropped = true;
    }
  }
  ulong i = begin;
  if (!split) {
    if (any_kept) {
      for (; i <= last_kept; i++) {
        out[kept] = in[i];
        kept += flags[i] != 0;
      }
    }
    return;
  }
  if (any_kept && any_dropped) {
    ulong stop = min(last_kept, last_dropped);
    for (; i <= stop; i++) {
      SEL_E x = in[i];
      uint f = flags[i] != 0;
      out[kept] = x;
      out[dropped] = x;
      kept += f;
      dropped += 1u - f;
    }
  }
  for (; i < end; i++) {
    if (flags[i])
      out[kept++] = in[i];
    else
      out[dropped++] = in[i];
  }
}
