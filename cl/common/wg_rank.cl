/* wg_rank.cl: stable ranking of a work-group's tile by a 4-bit digit, the
 * step that radix and sample sort build their local sorts from. Built on
 * the shared work-group scan (wg_exclusive_sum_u32), after CUB's
 * BlockRadixRank: per-work-item digit counters in local memory, packed two
 * 16-bit counts to a word, one exclusive scan over all counters in
 * digit-major order.
 *
 * Needs common.cl and wg_scan.cl@u32 before it, and
 *   RANK_ITEMS  items per work-item; the tile WG_SIZE * RANK_ITEMS must be
 *               below 65536 (16-bit counters)
 * Local memory: RANK_LOCAL_WORDS uints of counters (padded against bank
 * conflicts) plus the scan's WG_SIZE.
 */
#ifndef RANK_ITEMS
#error "wg_rank.cl needs RANK_ITEMS"
#endif
#if WG_SIZE * RANK_ITEMS >= 65536
#error "wg_rank.cl counts in 16 bits: WG_SIZE * RANK_ITEMS must be below 65536"
#endif

#define RANK_ROWS 8 /* 16 digits, two per word */
#define RANK_LOCAL_WORDS PADDED(RANK_ROWS * WG_SIZE)

/* digit[i] (0..15) of this work-item's items, in tile order (work-item
 * lid holds tile positions lid*RANK_ITEMS + i). Writes to rank[i] the
 * item's position in the tile stably sorted by digit. All work-items call. */
void wg_rank_digits4(const uint *digit, uint *rank, __local uint *counters,
                     __local uint *scan_tmp) {
  uint lid = get_local_id(0);
  /* Digit d counts in row d & 7, half d >> 3 of this work-item's column;
   * the flattened (row, work-item) order then lists digits 0..7 in order,
   * each by work-item, in the low halves, and digits 8..15 in the high. */
UNROLL
  for (uint r = 0; r < RANK_ROWS; r++) counters[PAD(r * WG_SIZE + lid)] = 0;
UNROLL
  for (uint i = 0; i < RANK_ITEMS; i++) {
    uint d = digit[i];
    __local uint *c = &counters[PAD((d & 7u) * WG_SIZE + lid)];
    uint shift = (d >> 3) * 16u;
    uint old = *c;
    rank[i] = (old >> shift) & 0xffffu; /* equal digits before it in this work-item */
    *c = old + (1u << shift);
  }
  WG_BARRIER();
  /* Each work-item scans RANK_ROWS consecutive words of the flattened array. */
  uint words[RANK_ROWS];
  uint sum = 0;
UNROLL
  for (uint k = 0; k < RANK_ROWS; k++) {
    words[k] = counters[PAD(lid * RANK_ROWS + k)];
    sum += words[k];
  }
  uint total;
  uint prefix = wg_exclusive_sum_u32(sum, &total, scan_tmp);
  /* Every high-half digit comes after all low-half digits. */
  prefix += (total & 0xffffu) << 16;
UNROLL
  for (uint k = 0; k < RANK_ROWS; k++) {
    counters[PAD(lid * RANK_ROWS + k)] = prefix;
    prefix += words[k];
  }
  WG_BARRIER();
UNROLL
  for (uint i = 0; i < RANK_ITEMS; i++) {
    uint d = digit[i];
    rank[i] += (counters[PAD((d & 7u) * WG_SIZE + lid)] >> ((d >> 3) * 16u)) & 0xffffu;
  }
  WG_BARRIER();
}
