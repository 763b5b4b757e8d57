/* scan_cpu.cl: device-wide scan and reduce of one element type, CPU
 * shape: one work-item per group, each walking a contiguous chunk in a
 * plain loop that the compiler vectorizes, no barriers.
 *
 * Needs common.cl and wg_scan.cl@SCAN_SUFFIX (for combine_S and
 * identity_S) before it, and
 *   SCAN_T       the element type (uint, int, float, ulong, long, double)
 *   SCAN_SUFFIX  its wg_scan suffix (u32, ...)
 *   SCAN_BITS    32 or 64
 *   SCAN_FLOAT   1 for float and double (min and max ignore NaN)
 *
 * The scan is reduce-then-scan over G chunks (one per compute unit), two
 * launches:
 *   1. scan_cpu_reduce_S over chunks 0 .. G-2, each in P parts so that
 *      every core shares the work: partials[g * P + p]
 *   2. scan_cpu_chunks_S: chunk g starts from the sum of partials[0 .. g)
 *      and scans a 64-byte line at a time (the line's prefix sums in
 *      log2 steps of vector shifts, so the serial chain is one add per
 *      line), writing whole lines that bypass the caches (no read for
 *      ownership of the output).
 * The reduction is scan_cpu_reduce_S over every chunk, then over the
 * partials in one group.
 */
#if !defined(SCAN_T) || !defined(SCAN_SUFFIX) || !defined(SCAN_BITS) || !defined(SCAN_FLOAT)
#error "scan_cpu.cl needs SCAN_T, SCAN_SUFFIX, SCAN_BITS and SCAN_FLOAT"
#endif

#define T SCAN_T
#define FN(name) CAT3(name, _, SCAN_SUFFIX)
/* Elements per line, and a line as a vector: 64 bytes, or for 4-byte
 * types 8 lanes (32 bytes) when the host asks (SC_LINE32=8, scan_cpu.c). */
#ifndef SC_LINE32
#define SC_LINE32 16
#endif
#if SCAN_BITS == 64
#define SC_LINE 8
#else
#define SC_LINE SC_LINE32
#endif
#define TV CAT(T, SC_LINE)
#define SC_LOAD CAT(vload, SC_LINE)

/* Lane shifts for the in-line prefix sum: shuffle2(v, zero, SC_SHIFTk)
 * moves lane i to lane i + k and fills the first k lanes with zero. */
#if SC_LINE == 16
#define SC_SHIFT1 (uint16)(16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)
#define SC_SHIFT2 (uint16)(16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
#define SC_SHIFT4 (uint16)(16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
#define SC_SHIFT8 (uint16)(16, 16, 16, 16, 16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7)
#define SC_LAST(v) ((v).sF)
#else
/* 8 lanes: the mask's lanes are as wide as the data's. */
#if SCAN_BITS == 64
#define SC_MASK8 ulong8
#else
#define SC_MASK8 uint8
#endif
#define SC_SHIFT1 (SC_MASK8)(8, 0, 1, 2, 3, 4, 5, 6)
#define SC_SHIFT2 (SC_MASK8)(8, 8, 0, 1, 2, 3, 4, 5)
#define SC_SHIFT4 (SC_MASK8)(8, 8, 8, 8, 0, 1, 2, 3)
#define SC_LAST(v) ((v).s7)
#endif

/* The inclusive prefix sums of the lanes of v, in log2(SC_LINE) steps of
 * shifts and adds (a vector operation each, instead of a chain of
 * SC_LINE dependent adds). */
inline TV FN(sc_line_prefix)(TV v) {
  TV zero = (TV)0;
  v += shuffle2(v, zero, SC_SHIFT1);
  v += shuffle2(v, zero, SC_SHIFT2);
  v += shuffle2(v, zero, SC_SHIFT4);
#if SC_LINE == 16
  v += shuffle2(v, zero, SC_SHIFT8);
#endif
  return v;
}

/* partials[g] = the op-reduction of chunk g = [g*chunk, min(n, (g+1)*chunk)).
 * A line-wide accumulator per op: the loops vectorize (sums of floats add
 * in 16 or 8 interleaved partial sums, within the usual rounding). The
 * kernels here take their arrays' origins (in_at, out_at: elements before
 * element 0 in the buffer; a caller's host array used in place from the
 * aligned address before it, src/api/host_arrays.c). */
CPU_KERNEL void FN(scan_cpu_reduce)(__global const T *in, ulong n, ulong chunk,
                                    __global T *partials, int op, ulong in_at) {
  in += in_at;
  ulong g = get_group_id(0), i = g * chunk, end = min(n, i + chunk);
  T id = FN(identity)(op);
  TV acc = (TV)id;
  if (op == 0) {
    for (; i + SC_LINE <= end; i += SC_LINE) acc += SC_LOAD(0, in + i);
#if SCAN_FLOAT
  } else if (op == 1) {
    for (; i + SC_LINE <= end; i += SC_LINE) acc = fmin(acc, SC_LOAD(0, in + i));
  } else {
    for (; i + SC_LINE <= end; i += SC_LINE) acc = fmax(acc, SC_LOAD(0, in + i));
#else
  } else if (op == 1) {
    for (; i + SC_LINE <= end; i += SC_LINE) acc = min(acc, SC_LOAD(0, in + i));
  } else {
    for (; i + SC_LINE <= end; i += SC_LINE) acc = max(acc, SC_LOAD(0, in + i));
#endif
  }
  T lanes[SC_LINE];
  CAT(vstore, SC_LINE)(acc, 0, lanes);
  T r = id;
  for (uint k = 0; k < SC_LINE; k++) r = FN(combine)(r, lanes[k], op);
  for (; i < end; i++) r = FN(combine)(r, in[i], op);
  partials[get_group_id(0)] = r;
}

/* Scans chunk g of `in` into `out` (which may be `in`), starting from the
 * sum of partials[0 .. g * pieces) (each chunk before it was reduced in
 * `pieces` parts; the partials are few). Lines of the output that are
 * whole and aligned are written as one streaming store.
 * Invariant: run = the sum of everything before element i. */
CPU_KERNEL void FN(scan_cpu_chunks)(__global const T *in, __global T *out, ulong n, ulong chunk,
                                    __global const T *partials, ulong pieces, int inclusive,
                                    ulong in_at, ulong out_at) {
  in += in_at;
  out += out_at;
  ulong g = get_group_id(0), i = g * chunk, end = min(n, i + chunk);
  T run = 0;
  for (ulong q = 0; q < g * pieces; q++) run += partials[q];
  for (; i < end && ((ulong)(out + i) & 63u); i++) {
    T x = in[i];
    out[i] = inclusive ? run + x : run;
    run += x;
  }
  if (((ulong)(out + i) & 63u) == 0) {
    /* A line at a time: its lanes' prefix sums, plus the running sum;
     * the exclusive sums are the inclusive ones shifted by a lane. */
    for (; i + SC_LINE <= end; i += SC_LINE) {
      TV incl = FN(sc_line_prefix)(SC_LOAD(0, in + i)) + (TV)run;
      TV v = inclusive ? incl : shuffle2(incl, (TV)run, SC_SHIFT1);
      run = SC_LAST(incl);
      CPU_STREAM(v, (__global TV *)(out + i));
    }
  }
  for (; i < end; i++) {
    T x = in[i];
    out[i] = inclusive ? run + x : run;
    run += x;
  }
  /* Streaming stores are weakly ordered: drain them before the kernel
   * ends. */
  mem_fence(CLK_GLOBAL_MEM_FENCE);
}

#undef T
#undef FN
#undef TV
#undef SC_LINE
#undef SC_LOAD
#undef SC_SHIFT1
#undef SC_SHIFT2
#undef SC_SHIFT4
#undef SC_SHIFT8
#undef SC_LAST
#undef SC_MASK8
