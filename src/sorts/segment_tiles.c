/* segment_tiles.c: the packed path of the segmented sort. Consecutive
 * whole segments are packed into tiles on the host, and one launch of the
 * block sort (block_sort.cl's segment_sort_tiles) sorts every tile in a
 * work-group by (segment, key), stably: all short segments of a call at
 * about one read and one write of their keys, where the small sort gave
 * each segment a work-group and a whole tile. The sample sort's buckets
 * take the same plan and the block sort's range_sort_tiles: buckets lie
 * in key order, so several in a tile sort as one segment. */
#include "sorts/sorts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tile_files[] = {"common/common.cl", "sorts/keys.cl",
                                         "sorts/block_sort.cl", NULL};
static const clsort__program_spec tile_spec = {"segment_tiles", tile_files};

/* The block sort's shape with 2 more bytes per key: the ushort segment
 * that segment_sort_tiles keeps beside each position. */
static clsort__block_shape shape_for(const clsort_context *ctx, const clsort__sort_job *job) {
  return clsort__block_shape_for(ctx, clsort_type_size(job->type) + job->value_size + 2);
}

/* The block sort's shape for whole tiles (no segment per key): the
 * ranges of the sample sort. */
static clsort__block_shape range_shape(const clsort_context *ctx, const clsort__sort_job *job) {
  return clsort__block_shape_for(ctx, clsort_type_size(job->type) + job->value_size);
}

/* The tile of shape b, 0 where the context has no GPU shape. A tile's key
 * count travels in 16 bits of its plan word. */
static size_t tile_of(const clsort_context *ctx, clsort__block_shape b) {
  size_t tile = (size_t)b.wg * b.items;
  return !ctx->tuning.cpu_shape && b.wg > 1 && tile < 65536 ? tile : 0;
}

size_t clsort__packed_tile(const clsort_context *ctx, const clsort__sort_job *job) {
  return tile_of(ctx, shape_for(ctx, job));
}

/* The plan the kernel reads (block_sort.cl's segment_sort_tiles): a
 * cl_uint4 per tile, one more whose last word ends the heads, then the
 * heads as ushorts. Built in two host arrays, copied to one buffer. */
typedef struct plan {
  cl_uint *tiles;   /* 4 words per tile */
  cl_ushort *heads; /* each non-empty segment's first key, from its tile's */
  size_t count, heads_count;
} plan;

/* log2 of the shortest aligned run of the tile that holds the tile's
 * positions [s, e]: the highest bit in which they differ, plus one. */
static cl_uint span_log(size_t s, size_t e) {
  cl_uint k = 0;
  for (size_t d = s ^ e; d; d >>= 1) k++;
  return k;
}

/* The entry after the last tile: its last word ends the heads. */
static void close_plan(plan *p) {
  size_t end = 4 * p->count;
  p->tiles[end] = p->tiles[end + 1] = p->tiles[end + 2] = 0;
  p->tiles[end + 3] = (cl_uint)p->heads_count;
}

/* A tile of its own for each piece of `tile` keys of a long segment
 * [first, first + len): sorted runs for segment_merge.c to merge. */
static void add_chunks(plan *p, size_t first, size_t len, size_t tile) {
  for (size_t c = 0; c < len; c += tile) {
    size_t at = 4 * p->count++, keys = clsort__min(tile, len - c);
    p->tiles[at] = (cl_uint)(first + c);
    p->tiles[at + 1] = (cl_uint)((uint64_t)(first + c) >> 32);
    p->tiles[at + 2] = (cl_uint)keys | span_log(0, keys - 1) << 16;
    p->tiles[at + 3] = (cl_uint)p->heads_count;
    p->heads[p->heads_count++] = 0;
  }
}

/* Greedy: a tile opens at a segment of at least 2 keys and takes the
 * segments after it while they fit; a segment longer than the tile closes
 * it, and is cut into tiles of its own when it holds at most chunk_limit
 * keys (else the caller sorts it otherwise). Segments of 0 or 1 keys
 * inside a tile get their heads (0: none), so every position has its
 * segment. */
static void make_plan(const uint64_t *offsets, size_t count, size_t tile, size_t chunk_limit,
                      plan *p) {
  size_t t0 = 0, at = 0;
  bool open = false;
  p->count = p->heads_count = 0;
  for (size_t i = 0; i < count; i++) {
    size_t first = (size_t)offsets[i], len = (size_t)(offsets[i + 1] - offsets[i]);
    if (len > tile) {
      open = false;
      if (len <= chunk_limit) add_chunks(p, first, len, tile);
      continue;
    }
    if (len == 0) continue;
    if (open && first + len - t0 > tile) open = false;
    if (!open) {
      if (len < 2) continue;
      open = true;
      t0 = first;
      at = 4 * p->count++;
      p->tiles[at] = (cl_uint)t0;
      p->tiles[at + 1] = (cl_uint)((uint64_t)t0 >> 32);
      p->tiles[at + 2] = 0;
      p->tiles[at + 3] = (cl_uint)p->heads_count;
    }
    size_t s = first - t0, e = s + len - 1;
    unsigned k = clsort__max(span_log(s, e), p->tiles[at + 2] >> 16);
    p->tiles[at + 2] = (cl_uint)(e + 1) | (cl_uint)k << 16;
    p->heads[p->heads_count++] = (cl_ushort)s;
  }
  close_plan(p);
}

/* Greedy over key-ordered ranges (pairs of ulongs, begin and end, the
 * end's top bit CLSORT_RANGE_OTHER when the range lies in the other
 * buffer): a tile opens at a range and takes the ranges after it while
 * each lies in the same buffer, begins where the last ended, and the tile
 * holds them all. One segment per tile: the ranges are in key order
 * between them, so sorting the tile sorts each. Tiles of one key are left
 * out unless they must move to the first buffer. */
static void make_range_plan(const cl_ulong *ranges, size_t count, size_t tile, plan *p) {
  const cl_ulong other = CLSORT_RANGE_OTHER;
  p->count = p->heads_count = 0;
  for (size_t i = 0; i < count;) {
    cl_ulong flag = ranges[2 * i + 1] & other;
    size_t t0 = (size_t)ranges[2 * i], end = (size_t)(ranges[2 * i + 1] & ~other);
    for (i++; i < count && ranges[2 * i] == end && (ranges[2 * i + 1] & other) == flag &&
              (ranges[2 * i + 1] & ~other) - t0 <= tile;
         i++)
      end = (size_t)(ranges[2 * i + 1] & ~other);
    if (end == t0 || (end - t0 < 2 && !flag)) continue;
    size_t at = 4 * p->count++;
    p->tiles[at] = (cl_uint)t0;
    p->tiles[at + 1] = (cl_uint)((uint64_t)t0 >> 32);
    p->tiles[at + 2] =
        (cl_uint)(end - t0) | span_log(0, end - t0 - 1) << 16 | (flag ? 1u << 31 : 0u);
    p->tiles[at + 3] = 0;
  }
  close_plan(p);
}

/* The device bytes of a plan of `tiles` tiles, one head each at most
 * (the heads of make_plan are fewer than its segments, which bound its
 * tiles alike). */
static size_t plan_bytes(size_t tiles) {
  return (tiles + 1) * 4 * sizeof(cl_uint) + tiles * sizeof(cl_ushort);
}

/* Copies the plan to the start of `buffer`. written NULL: blocking, so
 * that the host plan may be freed or rewritten on return; else without
 * blocking, and *written is the event of the last write (the host plan
 * must stay as it is until it completes). */
static clsort_status upload_plan(clsort_context *ctx, const plan *p, cl_mem buffer,
                                 cl_event *written) {
  size_t tile_bytes = (p->count + 1) * 4 * sizeof(cl_uint);
  /* The range plan has no heads, and a write of 0 bytes is an error. */
  bool heads = p->heads_count > 0;
  cl_bool block = !written && !heads ? CL_TRUE : CL_FALSE;
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(ctx->queue, buffer, block, 0, tile_bytes,
                                                 p->tiles, 0, NULL, heads ? NULL : written)));
  if (!heads) return CLSORT_SUCCESS;
  return CL_CHECK(clEnqueueWriteBuffer(ctx->queue, buffer, written ? CL_FALSE : CL_TRUE,
                                       tile_bytes, p->heads_count * sizeof(cl_ushort), p->heads,
                                       0, NULL, written));
}

/* The block sort of shape b as segment_sort_tiles, or (ranges) as
 * range_sort_tiles. */
static clsort_status tiles_kernel(clsort_context *ctx, const clsort__sort_job *job,
                                  clsort__block_shape b, bool ranges, cl_kernel *out) {
  size_t ks = clsort_type_size(job->type);
  char options[192];
  snprintf(options, sizeof options,
           "-DKEY_T=%s -DKEY_BITS=%zu -DHAS_VALUES=%d -DVALUE_T=%s -DBS_WG=%u -DBS_ITEMS=%u "
           "-D%s=1",
           ks == 8 ? "ulong" : "uint", ks * 8, job->value_size ? 1 : 0,
           job->value_size == 8 ? "ulong" : "uint", b.wg, b.items,
           ranges ? "BS_RANGES" : "BS_SEGMENTED");
  return clsort__get_kernel(ctx, &tile_spec, options,
                            ranges ? "range_sort_tiles" : "segment_sort_tiles", out);
}

/* Segments of `len` keys each (the last one may hold fewer): as many
 * whole ones per tile as fit, no plan to copy. */
static void plan_equal(size_t n, size_t len, size_t tile, clsort__packed *out) {
  out->seg_len = (cl_uint)len;
  out->per_tile = (cl_uint)(tile / len * len);
  out->tiles = clsort__div_up(n, out->per_tile);
  out->end_log = 0;
  for (size_t s = 0; s < out->per_tile; s += len)
    out->end_log = clsort__max(out->end_log, span_log(s, s + len - 1));
}

clsort_status clsort__packed_prepare(clsort_context *ctx, const clsort__sort_job *job,
                                    const uint64_t *offsets, size_t count, size_t equal_len,
                                    size_t chunk_limit, clsort__packed *out) {
  size_t tile = clsort__packed_tile(ctx, job);
  out->tiles = 0;
  out->seg_len = out->per_tile = out->end_log = 0;
  out->runs = tile;
  out->whole = false;
  RETURN_IF(tile == 0, CLSORT_ERROR_UNSUPPORTED, "the packed segmented sort needs a GPU shape");
  if (count == 0 || job->n < 2 || (equal_len > 0 && equal_len < 2)) return CLSORT_SUCCESS;
  RETURN_IF(count > UINT32_MAX, CLSORT_ERROR_TOO_LARGE, "%zu segments: at most 2^32 - 1 are packed",
            count);
  /* Equal segments of whole tiles (to be merged) are tiled from 0 alike,
   * each tile a segment of its own: the merge sort's run formation, whose
   * tiles are larger (no segment numbers in local memory) and whose
   * comparisons need not consult segments, sorts them when its tile
   * divides them (H100, 1024 segments of 65536 u32 keys: the packed sort
   * of their tiles took 1.38 ms). */
  bool whole_tiles = equal_len > tile && equal_len <= chunk_limit && equal_len % tile == 0;
  if (whole_tiles) {
    size_t block;
    FORWARD_IF_ERROR(clsort__merge_tiles_kernel(ctx, job, &out->kernel, &block, &out->wg));
    if (block >= tile && equal_len % block == 0) {
      out->whole = true;
      out->runs = block;
      out->tiles = clsort__div_up(job->n, block);
      out->plan = job->keys_in;
      return CLSORT_SUCCESS;
    }
  }
  clsort__block_shape b = shape_for(ctx, job);
  out->wg = b.wg;
  FORWARD_IF_ERROR(tiles_kernel(ctx, job, b, false, &out->kernel));
  if ((equal_len > 0 && equal_len <= tile) || whole_tiles) {
    plan_equal(job->n, whole_tiles ? tile : equal_len, tile, out);
    /* Any buffer stands for the plan the kernel does not read. */
    out->plan = job->keys_in;
    return CLSORT_SUCCESS;
  }
  /* At most one tile and one head per segment, and per tile of the
   * chunked long segments. */
  size_t most = count + (chunk_limit ? job->n / tile + 1 : 0);
  plan p;
  p.tiles = clsort__malloc(ctx, (most + 1) * 4 * sizeof(cl_uint));
  p.heads = clsort__malloc(ctx, most * sizeof(cl_ushort));
  clsort_status st = CLSORT_SUCCESS;
  if (!p.tiles || !p.heads)
    st = FAIL(CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the plan of %zu segments", count);
  if (st == CLSORT_SUCCESS) make_plan(offsets, count, tile, chunk_limit, &p);
  if (st == CLSORT_SUCCESS && p.count > 0)
    st = clsort__scratch(ctx, SLOT_SEGMENT_LIST, plan_bytes(p.count), &out->plan);
  if (st == CLSORT_SUCCESS && p.count > 0) st = upload_plan(ctx, &p, out->plan, NULL);
  if (st == CLSORT_SUCCESS) out->tiles = p.count;
  free(p.tiles);
  free(p.heads);
  return st;
}

clsort_status clsort__packed_run(clsort_context *ctx, const clsort__sort_job *job,
                                 const clsort__packed *p) {
  if (p->tiles == 0) return CLSORT_SUCCESS;
  cl_mem vals = job->value_size ? job->vals_in : job->keys_in;
  cl_uint tiles = (cl_uint)p->tiles;
  cl_ulong n = job->n;
  int kind = clsort__key_kind(job->type), desc = job->descending, make_index = 0;
  if (p->whole) {
    clsort__arg whole[] = {ARG(job->keys_in), ARG(job->keys_in), ARG(vals), ARG(vals),
                           ARG(n),            ARG(kind),         ARG(desc), ARG(make_index)};
    return clsort__launch(ctx, p->kernel, p->tiles * p->wg, p->wg, 8, whole, 0, NULL, NULL);
  }
  clsort__arg args[] = {ARG(job->keys_in), ARG(vals),         ARG(p->plan),    ARG(tiles),
                        ARG(n),            ARG(p->seg_len),   ARG(p->per_tile), ARG(p->end_log),
                        ARG(kind),         ARG(desc)};
  return clsort__launch(ctx, p->kernel, p->tiles * p->wg, p->wg, 10, args, 0, NULL, NULL);
}

/* ---------------------------------------------- key-ordered ranges */
size_t clsort__ranges_tile(const clsort_context *ctx, const clsort__sort_job *job) {
  return tile_of(ctx, range_shape(ctx, job));
}

size_t clsort__ranges_plan_bytes(size_t count) { return plan_bytes(count); }

clsort_status clsort__ranges_prepare(clsort_context *ctx, const clsort__sort_job *job,
                                     clsort__ranges *out) {
  memset(out, 0, sizeof *out);
  out->tile = clsort__ranges_tile(ctx, job);
  RETURN_IF(out->tile == 0, CLSORT_ERROR_UNSUPPORTED, "sorting ranges in tiles needs a GPU shape");
  clsort__block_shape b = range_shape(ctx, job);
  out->wg = b.wg;
  return tiles_kernel(ctx, job, b, true, &out->kernel);
}

clsort_status clsort__ranges_sort(clsort_context *ctx, const clsort__sort_job *job,
                                  const clsort__ranges *r, const cl_ulong *ranges, size_t count,
                                  cl_mem other_keys, cl_mem other_vals, cl_mem plan_buffer,
                                  void *host, cl_event *written) {
  if (written) *written = NULL;
  plan h;
  h.tiles = host;
  h.heads = NULL; /* one segment a tile: no heads */
  make_range_plan(ranges, count, r->tile, &h);
  clsort__debug("ranges: %zu ranges in %zu tiles of up to %zu keys", count, h.count, r->tile);
  if (h.count == 0) return CLSORT_SUCCESS;
  FORWARD_IF_ERROR(upload_plan(ctx, &h, plan_buffer, written));
  return clsort__ranges_launch(ctx, job, r, h.count, other_keys, other_vals, plan_buffer);
}

clsort_status clsort__ranges_launch(clsort_context *ctx, const clsort__sort_job *job,
                                    const clsort__ranges *r, size_t tiles, cl_mem other_keys,
                                    cl_mem other_vals, cl_mem plan_buffer) {
  /* Keys-only programs ignore the value buffers; any valid buffer will do. */
  cl_mem va = job->value_size ? job->vals_in : job->keys_in;
  cl_mem vb = job->value_size ? other_vals : other_keys;
  int kind = clsort__key_kind(job->type), desc = job->descending;
  clsort__arg args[] = {ARG(job->keys_in), ARG(other_keys), ARG(va),  ARG(vb),
                        ARG(plan_buffer),  ARG(kind),       ARG(desc)};
  return clsort__launch(ctx, r->kernel, tiles * r->wg, r->wg, 7, args, 0, NULL, NULL);
}
