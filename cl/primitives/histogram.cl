/* histogram.cl: the per-tile bucket histogram of Fine Sample Sort phase 4,
 * written column-major (bucket-major) so that one exclusive scan of the
 * table (phase 5, the shared scan) yields every tile's bucket offsets.
 *
 * Needs common.cl before it, and
 *   OFFSET_T   the table's element type (uint or ulong)
 */
#ifndef OFFSET_T
#error "histogram.cl needs OFFSET_T"
#endif

/* One group per tile t = [t*tile_size, min(n, (t+1)*tile_size)).
 * table[b * tiles + t] = number of elements of tile t in bucket b; bucket
 * indices at or above num_buckets are not counted. buckets_at and
 * table_at: the elements before each array in its buffer (a caller's host
 * array used in place on a CPU device; else 0). Work-group: WG_SIZE.
 * Local: `hist`, num_buckets uints. */
KERNEL void bucket_histogram(__global const uint *buckets, ulong buckets_at, ulong n,
                             ulong tile_size, ulong tiles, uint num_buckets,
                             __global OFFSET_T *table, ulong table_at, __local uint *hist) {
  buckets += buckets_at;
  table += table_at;
  uint lid = get_local_id(0);
  ulong t = get_group_id(0);
  for (uint b = lid; b < num_buckets; b += WG_SIZE) hist[b] = 0;
  WG_BARRIER();
  ulong begin = t * tile_size;
  ulong end = min(n, begin + tile_size);
  for (ulong i = begin + lid; i < end; i += WG_SIZE) {
    uint b = buckets[i];
    if (b < num_buckets) LOCAL_INC(&hist[b]);
  }
  WG_BARRIER();
  for (uint b = lid; b < num_buckets; b += WG_SIZE) table[b * tiles + t] = hist[b];
}
