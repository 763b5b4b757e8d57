/* chunks.c: the chunk geometry every chunked pass shares (docs/
 * ARCHITECTURE.md): how many groups, each over how long a contiguous
 * chunk, for the device's shape. */
#include "primitives/primitives.h"

size_t clsort__tile(const clsort_context *ctx) {
  return (size_t)ctx->tuning.wg_size * ctx->tuning.items;
}

clsort__chunks clsort__chunking(const clsort_context *ctx, size_t n, size_t tile) {
  size_t tiles = clsort__div_up(n ? n : 1, tile);
  size_t want = (size_t)ctx->compute_units * ctx->tuning.groups_per_cu;
  size_t groups = clsort__max(1, clsort__min(tiles, want));
  clsort__chunks c;
  c.chunk = clsort__div_up(tiles, groups) * tile;
  c.groups = clsort__div_up(n ? n : 1, c.chunk);
  return c;
}
