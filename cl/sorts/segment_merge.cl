/* segment_merge.cl: one merge pass of the segmented sort's long segments
 * (src/sorts/segment_merge.c). Each long segment has been cut into runs
 * of `run` keys from its first key, each sorted (the packed block sort's
 * tiles, then earlier passes); this pass merges runs 2k and 2k + 1 of
 * every segment into runs of 2 * run, from one buffer into the other. A
 * segment of at most `run` keys is copied as it is, so that every pass
 * writes every long segment. Merges are stable: the left run's key first
 * on ties.
 *
 * Each work-item writes SM_ITEMS consecutive outputs: it finds where its
 * first output's diagonal crosses the merge path by binary search in
 * global memory, then merges serially. No local memory, no barriers.
 *
 * Needs common.cl and keys.cl before it, and
 *   HAS_VALUES, VALUE_T  a payload moved with each key (uint or ulong)
 *   SM_ITEMS             outputs per work-item
 * Work-group: WG_SIZE. */
#if !defined(SM_ITEMS) || !defined(HAS_VALUES) || !defined(VALUE_T)
#error "segment_merge.cl needs SM_ITEMS, HAS_VALUES and VALUE_T"
#endif

/* segs holds 4 ulongs per long segment: its first key, its length, the
 * first group that writes it, and the pass it starts at (runs of `tile`
 * keys then, doubled each pass after); one more entry whose third word is
 * the number of groups. This pass (number `pass`) merges the first
 * `count` segments. Group g writes the outputs [t * WG_SIZE * SM_ITEMS,
 * (t + 1) * WG_SIZE * SM_ITEMS) of its segment, t = g - the segment's
 * first group. */
KERNEL void segment_merge_pass(const global KEY_T *kin, global KEY_T *kout,
                               const global VALUE_T *vin, global VALUE_T *vout,
                               const global ulong *segs, uint count, uint pass, ulong tile,
                               int kind, int desc) {
  const ulong g = get_group_id(0);
  uint lo = 0, hi = count; /* segs[4 * lo + 2] <= g < segs[4 * hi + 2] */
  while (hi - lo > 1) {
    const uint mid = (lo + hi) / 2;
    if (segs[4 * mid + 2] <= g)
      lo = mid;
    else
      hi = mid;
  }
  const ulong base = segs[4 * lo], len = segs[4 * lo + 1];
  const ulong run = tile << (pass - (uint)segs[4 * lo + 3]);
  const ulong o = (g - segs[4 * lo + 2]) * WG_SIZE * SM_ITEMS + get_local_id(0) * SM_ITEMS;
  if (o >= len) return;
  /* The pair of runs that holds output o: A = [p, p + na), B = [p + na,
   * p + na + nb), relative to the segment. */
  const ulong p = o / (2 * run) * (2 * run);
  const ulong na = min(run, len - p), nb = min(run, len - p - na), d = o - p;
  const global KEY_T *a = kin + base + p, *b = a + na;
  /* The merge path's crossing of diagonal d: i keys of A come before. */
  ulong i_lo = d > nb ? d - nb : 0, i_hi = min(d, na);
  while (i_lo < i_hi) {
    const ulong mid = (i_lo + i_hi) / 2;
    if (key_to_bits(a[mid], kind, desc) <= key_to_bits(b[d - 1 - mid], kind, desc))
      i_lo = mid + 1;
    else
      i_hi = mid;
  }
  ulong i = i_lo, j = d - i_lo;
  const ulong out = base + p + d, outs = min((ulong)SM_ITEMS, na + nb - d);
  /* Reads past a run's end are clamped into it and never taken. */
  KEY_T ka = na ? a[min(i, na - 1)] : 0, kb = nb ? b[min(j, nb - 1)] : 0;
  for (ulong k = 0; k < outs; k++) {
    const bool take_a =
        j >= nb || (i < na && key_to_bits(ka, kind, desc) <= key_to_bits(kb, kind, desc));
    kout[out + k] = take_a ? ka : kb;
#if HAS_VALUES
    vout[out + k] = vin[base + p + (take_a ? i : na + j)];
#endif
    if (take_a) {
      i++;
      ka = a[min(i, na - 1)];
    } else {
      j++;
      kb = b[min(j, nb - 1)];
    }
  }
}
