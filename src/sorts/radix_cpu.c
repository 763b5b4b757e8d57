/* radix_cpu.c: the radix sort's CPU shape (cl/sorts/radix_cpu.cl): one
 * scatter of the whole input by its top digit, then every bucket sorted
 * inside one core's cache by LSD passes. One program, one work-item per
 * group, no barriers. Stable, like the tile path it stands in for. */
#include "primitives/primitives.h"
#include "sorts/sorts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const radix_cpu_files[] = {"common/common.cl", "sorts/keys.cl",
                                              "sorts/radix_cpu.cl", NULL};
static const clsort__program_spec radix_cpu_spec = {"radix_cpu", radix_cpu_files};

/* Inputs up to this many keys are one bucket, sorted by one work-item:
 * below it, a top-digit scatter costs more in launches and a read-back
 * than the second core brings. */
#define SMALL_KEYS ((size_t)1 << 15)

typedef struct rc_kernels {
  cl_kernel count, scan, scatter, copy, buckets;
} rc_kernels;

/* Keys and their values in one pair of buffers, from their origins:
 * elements before the place's first key and first value in k and v (a
 * caller's host array wrapped from an aligned address before it, src/api/
 * sort.c; 0 for the sort's own buffers). */
typedef struct rc_place {
  cl_mem k, v;
  size_t k_at, v_at;
} rc_place;

/* One sort's state. Keys move raw -> order bits (first scatter or copy)
 * -> raw (last pass, into KO). */
typedef struct rc_sort {
  clsort_context *ctx;
  const clsort__sort_job *job;
  rc_kernels k;
  size_t ks, vs, n;
  rc_place in;           /* the input (its v: any buffer when there are no values) */
  rc_place scratch;      /* keys and values in order bits */
  rc_place out;          /* the output (its k: scratch for an argsort) */
  cl_mem table, starts, masks;
  size_t cap;            /* the most keys of a bucket that local memory holds */
  unsigned skew;         /* keys between buckets in scratch: one 64-byte line */
  cl_int kind, desc, make_index;
  unsigned low_max;      /* widest digit inside a bucket */
  unsigned chunk_max;    /* widest digit of a chunked pass (RC_BITS): its tables fit local memory */
  unsigned char *host;   /* read-back space: the bucket starts, then the masks */
  size_t mask_at;        /* where the masks start in host */
  size_t *levels;        /* the bucket starts of each level of sort_range */
  size_t level_size;     /* starts per level: 2^chunk_max + 1 */
} rc_sort;

/* The bits that decide the order, in order bits. */
typedef struct rc_bits {
  unsigned lo, hi; /* [lo, hi): the lowest and one past the highest varying bit */
} rc_bits;

static clsort_status get_kernels(rc_sort *r) {
  clsort_context *ctx = r->ctx;
  const clsort__tuning *t = &ctx->tuning;
  char options[256];
  snprintf(options, sizeof options,
           "-DKEY_T=%s -DKEY_BITS=%zu -DHAS_VALUES=%d -DVALUE_T=%s -DOFFSET_T=%s -DRC_BITS=%u "
           "-DRC_LOW_BITS=%u -DRC_WC=%d -DKEY_NO_FLOAT=%d",
           r->ks == 8 ? "ulong" : "uint", r->ks * 8, r->vs ? 1 : 0, r->vs == 8 ? "ulong" : "uint",
           r->n > UINT32_MAX ? "ulong" : "uint", r->chunk_max, t->radix_cpu_low,
           t->radix_cpu_wc ? 1 : 0, r->kind != 2);
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &radix_cpu_spec, options, "rcpu_count", &r->k.count));
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &radix_cpu_spec, options, "rcpu_scan", &r->k.scan));
  FORWARD_IF_ERROR(
      clsort__get_kernel(ctx, &radix_cpu_spec, options, "rcpu_scatter", &r->k.scatter));
  FORWARD_IF_ERROR(clsort__get_kernel(ctx, &radix_cpu_spec, options, "rcpu_copy", &r->k.copy));
  return clsort__get_kernel(ctx, &radix_cpu_spec, options, "rcpu_buckets", &r->k.buckets);
}

/* Chunks of a range: one or two per compute unit, and none longer than
 * 2^31 keys (the kernels count a chunk's digits in 32 bits). */
static clsort__chunks chunks_of(const rc_sort *r, size_t len) {
  clsort__chunks c = clsort__chunking(r->ctx, len, 256);
  const size_t most = (size_t)1 << 31;
  if (c.chunk > most) {
    c.chunk = most;
    c.groups = clsort__div_up(len, most);
  }
  return c;
}

/* Bytes of an offset and of the scratch tables, for every range of the
 * sort: the widest digit times the most chunks, the bucket starts, and
 * the chunks' AND and OR masks. */
static size_t offset_size(const rc_sort *r) { return r->n > UINT32_MAX ? 8 : 4; }

static clsort_status acquire(rc_sort *r) {
  clsort_context *ctx = r->ctx;
  const clsort__sort_job *job = r->job;
  const clsort__tuning *t = &ctx->tuning;
  /* The most chunks of any range of the sort: a range shorter than n can
   * have more (chunks are whole tiles: 65415 keys made 32 chunks where
   * 65537 made 29 on 16 compute units, and a level down wrote past the
   * masks), never more than the compute units' share or than n's. */
  size_t n = r->n, groups = chunks_of(r, n).groups;
  size_t want = (size_t)ctx->compute_units * t->groups_per_cu;
  if (groups < want) groups = want;
  size_t bins = (size_t)1 << (r->chunk_max > t->radix_cpu_low ? r->chunk_max : t->radix_cpu_low);
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_TABLE, bins * groups * offset_size(r), &r->table));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_HISTOGRAM, (bins + 1) * offset_size(r), &r->starts));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_AUX1, 2 * groups * r->ks, &r->masks));
  /* Scratch holds the keys with a line between buckets. */
  r->skew = (unsigned)(64 / r->ks);
  size_t spaced = n + bins * r->skew;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS, spaced * r->ks, &r->scratch.k));
  r->out.k = job->keys_out;
  r->out.k_at = job->keys_at;
  if (!r->out.k) {
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS2, n * r->ks, &r->out.k));
    r->out.k_at = 0;
  }
  r->in.k = job->keys_in;
  r->in.k_at = job->keys_at;
  /* keys only: the kernels never touch the values */
  r->scratch.v = r->out.v = r->in.v = r->scratch.k;
  if (r->vs) {
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_VALUES, spaced * r->vs, &r->scratch.v));
    r->out.v = job->vals_out;
    r->out.v_at = job->vals_at;
    r->in.v = job->vals_in ? job->vals_in : r->scratch.v;
    r->in.v_at = job->vals_in ? job->vals_at : 0;
  }
  r->mask_at = (bins + 1) * offset_size(r);
  r->host = clsort__malloc(ctx, r->mask_at + 2 * groups * r->ks);
  RETURN_IF(!r->host, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the radix sort's tables");
  /* Local memory holds a bucket's keys and values twice (its passes
   * alternate there, and its last place goes out from there) beside the
   * histograms of the passes inside it (RC_LOW_PASSES x 2^RC_LOW_BITS
   * uints); a few KB stay free for the driver. */
  size_t passes = clsort__div_up(r->ks * 8, t->radix_cpu_low);
  size_t fixed = passes * ((size_t)4 << t->radix_cpu_low) + 8192;
  size_t room = ctx->local_mem > fixed ? (size_t)ctx->local_mem - fixed : 0;
  r->cap = room / (2 * (r->ks + r->vs)) / 16 * 16;
  /* sort_range's levels, allocated here so that nothing fails once the
   * sort writes the caller's buffers. A level's top digit is at least
   * min(4, chunk_max) bits wide (top_width), or covers every bit that
   * varies, so the levels cannot go deeper than this. */
  if (n > r->cap) {
    unsigned narrowest = r->chunk_max < 4 ? r->chunk_max : 4;
    size_t depth = r->ks * 8 / narrowest + 3; /* and the first level's */
    r->level_size = ((size_t)1 << r->chunk_max) + 1;
    r->levels = clsort__malloc(ctx, depth * r->level_size * sizeof *r->levels);
    RETURN_IF(!r->levels, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the radix sort's levels");
  }
  return CLSORT_SUCCESS;
}

/* ------------------------------------------------------------ launches */
static clsort_status count(rc_sort *r, rc_place keys, size_t base, size_t len, unsigned shift,
                           unsigned width, bool transform, bool masks) {
  clsort__chunks c = chunks_of(r, len);
  cl_ulong base64 = keys.k_at + base, len64 = len, chunk64 = c.chunk;
  cl_uint shift32 = shift, width32 = width;
  cl_int tr = transform;
  cl_mem m = masks ? r->masks : NULL;
  clsort__arg args[] = {ARG(keys.k), ARG(base64),  ARG(len64),   ARG(chunk64),
                        ARG(shift32), ARG(width32), ARG(tr),  ARG(r->kind),
                        ARG(r->desc), ARG(r->table), ARG(m)};
  FORWARD_IF_ERROR(clsort__launch(r->ctx, r->k.count, c.groups, 1, 11, args, 0, NULL, NULL));
  cl_uint bins = 1u << width;
  cl_ulong groups64 = c.groups;
  clsort__arg scan[] = {ARG(r->table), ARG(bins), ARG(groups64), ARG(r->starts)};
  return clsort__launch(r->ctx, r->k.scan, 1, 1, 4, scan, 0, NULL, NULL);
}

/* A place's origins, as its kernels take them (common.cl's CPU_AT). */
static cl_ulong2 origins(rc_place p) {
  cl_ulong2 at;
  at.s[0] = p.k_at;
  at.s[1] = p.v_at;
  return at;
}

/* Scatters [base, base + len) of `from` by the digit into `to` from
 * `to_at` on; skew: keys between the runs of consecutive digits there (0:
 * none). */
static clsort_status scatter(rc_sort *r, rc_place from, rc_place to, size_t base, size_t to_at,
                             size_t len, unsigned shift, unsigned width, unsigned skew,
                             bool first) {
  clsort__chunks c = chunks_of(r, len);
  cl_ulong2 fa = origins(from), ta = origins(to);
  cl_ulong base64 = base, to64 = to_at, len64 = len, chunk64 = c.chunk;
  cl_uint shift32 = shift, width32 = width, skew32 = skew;
  cl_int f = first, mi = first && r->make_index;
  clsort__arg args[] = {ARG(from.k),  ARG(to.k),     ARG(from.v),  ARG(to.v),    ARG(fa),
                        ARG(ta),      ARG(base64),   ARG(to64),    ARG(len64),   ARG(chunk64),
                        ARG(shift32), ARG(width32),  ARG(skew32),  ARG(f),       ARG(r->kind),
                        ARG(r->desc), ARG(r->table), ARG(mi)};
  return clsort__launch(r->ctx, r->k.scatter, c.groups, 1, 18, args, 0, NULL, NULL);
}

/* Copies [from_at, from_at + len) of `from` to [to_at, to_at + len) of
 * `to`, converting keys to order bits (first) or back (last). */
static clsort_status copy(rc_sort *r, rc_place from, rc_place to, size_t from_at, size_t to_at,
                          size_t len, bool first, bool last) {
  clsort__chunks c = chunks_of(r, len);
  cl_ulong2 fa = origins(from), ta = origins(to);
  cl_ulong from64 = from_at, to64 = to_at, len64 = len, chunk64 = c.chunk;
  cl_int f = first, l = last, mi = first && r->make_index;
  clsort__arg args[] = {ARG(from.k), ARG(to.k),    ARG(from.v), ARG(to.v),    ARG(fa),
                        ARG(ta),     ARG(from64),  ARG(to64),   ARG(len64),   ARG(chunk64),
                        ARG(f),      ARG(l),       ARG(r->kind), ARG(r->desc), ARG(mi)};
  return clsort__launch(r->ctx, r->k.copy, c.groups, 1, 15, args, 0, NULL, NULL);
}

/* Passes over bits [lo, hi) in digits of at most `most` bits, as even as
 * they come: the width of each. */
static cl_uint even_digit(unsigned lo, unsigned hi, unsigned most) {
  if (hi <= lo) return 1;
  size_t passes = clsort__div_up(hi - lo, most);
  return (cl_uint)clsort__div_up(hi - lo, passes);
}

/* The passes inside a bucket: digits of at most low_max bits. */
static cl_uint low_digit(const rc_sort *r, unsigned lo, unsigned hi) {
  return even_digit(lo, hi, r->low_max);
}

/* The widest digit, at most `want` bits, whose tables in rcpu_count and
 * rcpu_scatter (RC_BITS: two offsets per digit and, with write-combining,
 * a line of keys and one of values) fit local memory with 16 KB to spare:
 * 12-bit digits with 8-byte values would need 800 KB. */
static unsigned chunk_digit_max(const clsort_context *ctx, size_t ks, size_t vs, size_t off,
                                unsigned want) {
  size_t line = 64 / ks, per = 2 * off + (ctx->tuning.radix_cpu_wc ? 64 + line * vs : 0);
  size_t room = ctx->local_mem > 16384 ? (size_t)ctx->local_mem - 16384 : 0;
  unsigned b = want;
  while (b > 1 && ((size_t)1 << b) * per > room) b--;
  return b;
}

/* Sorts the buckets (of the `buckets` starts in r->starts, relative to a
 * range of len keys) that hold at most r->cap keys, by bits [lo, hi):
 * from `from` (order bits, bucket b at in_at + its start + b * skew) to
 * `to` at out_at + its start, as keys; `to` may be `from`, in place. */
static clsort_status sort_buckets(rc_sort *r, rc_place from, size_t in_at, rc_place to,
                                  size_t out_at, size_t len, size_t buckets, unsigned skew,
                                  size_t groups, unsigned lo, unsigned hi) {
  cl_ulong len64 = len, in64 = in_at, out64 = out_at, cap64 = r->cap;
  cl_ulong2 fa = origins(from), ta = origins(to);
  cl_uint b32 = (cl_uint)buckets, skew32 = skew, lo32 = lo, hi32 = hi > lo ? hi : lo;
  cl_uint bits = low_digit(r, lo, hi);
  clsort__arg args[] = {ARG(from.k), ARG(from.v), ARG(to.k),    ARG(to.v),     ARG(fa),
                        ARG(ta),     ARG(in64),   ARG(out64),   ARG(len64),    ARG(r->starts),
                        ARG(b32),    ARG(skew32), ARG(cap64),   ARG(lo32),     ARG(hi32),
                        ARG(bits),   ARG(r->kind), ARG(r->desc),
                        ARG_LOCAL(2 * r->cap * r->ks), ARG_LOCAL(r->vs ? 2 * r->cap * r->vs : 16)};
  return clsort__launch(r->ctx, r->k.buckets, groups, 1, 20, args, 0, NULL, NULL);
}

/* --------------------------------------------------------------- plans */
static unsigned highest_bit(uint64_t x) {
  unsigned b = 0;
  while (x >>= 1) b++;
  return b;
}

static unsigned lowest_set(uint64_t x) {
  unsigned b = 0;
  while (!(x & 1)) {
    x >>= 1;
    b++;
  }
  return b;
}

/* Reads the last count's chunk masks (`groups` of them) and returns the
 * bits in [begin, end) that vary among the keys; also reads `starts`
 * entries of the bucket starts into r->host when asked. Blocking. */
static clsort_status read_back(rc_sort *r, size_t groups, size_t starts, unsigned begin,
                               unsigned end, rc_bits *out) {
  cl_command_queue q = r->ctx->queue;
  unsigned char *m = r->host + r->mask_at;
  if (groups)
    FORWARD_IF_ERROR(CL_CHECK(
        clEnqueueReadBuffer(q, r->masks, CL_FALSE, 0, 2 * groups * r->ks, m, 0, NULL, NULL)));
  if (starts)
    FORWARD_IF_ERROR(CL_CHECK(clEnqueueReadBuffer(q, r->starts, CL_FALSE, 0,
                                                  starts * offset_size(r), r->host, 0, NULL, NULL)));
  FORWARD_IF_ERROR(CL_CHECK(clFinish(q)));
  if (!groups) return CLSORT_SUCCESS;
  uint64_t all = UINT64_MAX, any = 0;
  for (size_t g = 0; g < groups; g++) {
    uint64_t a, o;
    if (r->ks == 8) {
      memcpy(&a, m + 16 * g, 8);
      memcpy(&o, m + 16 * g + 8, 8);
    } else {
      uint32_t a32, o32;
      memcpy(&a32, m + 8 * g, 4);
      memcpy(&o32, m + 8 * g + 4, 4);
      a = a32;
      o = o32;
    }
    all &= a;
    any |= o;
  }
  uint64_t range = (end >= 64 ? UINT64_MAX : (((uint64_t)1 << end) - 1)) & ~(((uint64_t)1 << begin) - 1);
  uint64_t varying = (all ^ any) & range;
  out->lo = varying ? lowest_set(varying) : 0;
  out->hi = varying ? highest_bit(varying) + 1 : 0;
  return CLSORT_SUCCESS;
}

static size_t start_at(const rc_sort *r, size_t b) {
  if (offset_size(r) == 8) {
    cl_ulong v;
    memcpy(&v, r->host + b * 8, 8);
    return (size_t)v;
  }
  cl_uint v;
  memcpy(&v, r->host + b * 4, 4);
  return v;
}

/* Width of the top digit for n keys: buckets of about 2^radix_cpu_bucket
 * keys, small enough for a core's cache with their double buffer, or
 * 2^slack times smaller: a range a level down is skewed (floats of [-1, 1)
 * left buckets just past local memory that took a third level of 4-bit
 * digits, 440 launches of a few us of work each). */
static unsigned top_width(const rc_sort *r, size_t n, unsigned span, unsigned slack) {
  unsigned log2 = r->ctx->tuning.radix_cpu_bucket - slack;
  unsigned w = highest_bit(n) > log2 + 4 ? highest_bit(n) - log2 : 4;
  if (w > r->chunk_max) w = r->chunk_max;
  return w < span ? w : span;
}

/* A range too large for local memory: len keys (order bits) at [at, at +
 * len) of `data`, with [spare_at, spare_at + len) of `spare` free beside
 * it. Sorted MSD into `spare`, or back into `data` when in_data: the
 * range is scattered into `spare` by its own top digit (the highest bits
 * that vary inside it, guessed just below `top` and counted again lower
 * down when the guess's upper bits turn out constant), its buckets sorted
 * in cache, in place or back into `data`, and those still too large sorted
 * the same way one level down, with the places' roles swapped. Each level
 * fixes at least the range's highest varying bit, so the depth is bounded
 * (acquire); keys that all tie are only converted. */
static clsort_status sort_range(rc_sort *r, rc_place data, size_t at, rc_place spare,
                                size_t spare_at, size_t len, unsigned begin, unsigned top,
                                bool in_data, size_t depth) {
  rc_bits v;
  unsigned width = top_width(r, len, top - begin, 2), shift = top - width;
  size_t buckets = (size_t)1 << width;
  FORWARD_IF_ERROR(count(r, data, at, len, shift, width, false, true));
  FORWARD_IF_ERROR(read_back(r, chunks_of(r, len).groups, buckets + 1, begin, top, &v));
  if (v.hi == 0) {
    rc_place to = in_data ? data : spare;
    return copy(r, data, to, at, in_data ? at : spare_at, len, false, true);
  }
  if (v.hi + 2 < shift + width || v.hi <= shift) {
    width = top_width(r, len, v.hi - v.lo, 2);
    shift = v.hi - width;
    buckets = (size_t)1 << width;
    FORWARD_IF_ERROR(count(r, data, at, len, shift, width, false, false));
    FORWARD_IF_ERROR(read_back(r, 0, buckets + 1, begin, top, &v));
  }
  clsort__debug("radix_cpu: %zu keys at depth %zu, digit bits [%u, %u)%s", len, depth, shift,
                shift + width, in_data ? ", back in place" : "");
  size_t *starts = r->levels + depth * r->level_size;
  for (size_t b = 0; b <= buckets; b++) starts[b] = start_at(r, b);
  unsigned lo = v.lo < shift ? v.lo : shift;
  size_t groups = (size_t)r->ctx->compute_units * 4;
  FORWARD_IF_ERROR(scatter(r, data, spare, at, spare_at, len, shift, width, 0, false));
  FORWARD_IF_ERROR(sort_buckets(r, spare, spare_at, in_data ? data : spare,
                                in_data ? at : spare_at, len, buckets, 0, groups, lo, shift));
  for (size_t b = 0; b < buckets; b++) {
    size_t s = starts[b], n = starts[b + 1] - s;
    if (n > r->cap)
      FORWARD_IF_ERROR(sort_range(r, spare, spare_at + s, data, at + s, n, lo, shift, !in_data,
                                  depth + 1));
  }
  return CLSORT_SUCCESS;
}

clsort_status clsort__radix_sort_cpu(clsort_context *ctx, const clsort__sort_job *job) {
  rc_sort r;
  memset(&r, 0, sizeof r);
  r.ctx = ctx;
  r.job = job;
  r.n = job->n;
  r.ks = clsort_type_size(job->type);
  r.vs = job->value_size;
  r.kind = clsort__key_kind(job->type);
  r.desc = job->descending;
  r.make_index = job->make_index;
  r.low_max = ctx->tuning.radix_cpu_low;
  r.chunk_max = chunk_digit_max(ctx, r.ks, r.vs, offset_size(&r), ctx->tuning.radix_cpu_top);
  FORWARD_IF_ERROR(get_kernels(&r));
  clsort_status st = acquire(&r);
  if (st != CLSORT_SUCCESS) {
    free(r.host);
    free(r.levels);
    return st;
  }
  size_t n = r.n, bucket_groups = (size_t)ctx->compute_units * 4;
  rc_place scratch = r.scratch, out = r.out;
  unsigned begin = job->begin_bit, end = job->end_bit;
  /* Nothing may fail once the first launch writes the caller's buffers:
   * everything is acquired above. */
  if (n <= SMALL_KEYS && n <= r.cap) {
    /* One bucket: into scratch as order bits, then one work-item. */
    cl_ulong zero = 0, total = n;
    GOTO_IF_ERROR(copy(&r, r.in, scratch, 0, 0, n, true, false));
    GOTO_IF_ERROR(CL_CHECK(clEnqueueFillBuffer(ctx->queue, r.starts, &zero, offset_size(&r), 0,
                                               offset_size(&r), 0, NULL, NULL)));
    GOTO_IF_ERROR(CL_CHECK(clEnqueueFillBuffer(ctx->queue, r.starts, &total, offset_size(&r),
                                               offset_size(&r), offset_size(&r), 0, NULL, NULL)));
    GOTO_IF_ERROR(sort_buckets(&r, scratch, 0, out, 0, n, 1, 0, 1, begin, end));
    goto cleanup;
  }
  /* The top digit: a first guess at the key's top bits, counted with the
   * masks that tell which bits vary; counted again lower down when the
   * guess's upper bits turn out constant. */
  unsigned width = top_width(&r, n, end - begin, 0), shift = end - width;
  size_t groups = chunks_of(&r, n).groups;
  rc_bits v;
  GOTO_IF_ERROR(count(&r, r.in, 0, n, shift, width, true, true));
  GOTO_IF_ERROR(read_back(&r, groups, ((size_t)1 << width) + 1, begin, end, &v));
  if (v.hi == 0) {
    /* Every key has the same bits in the range: the input is in order.
     * An argsort still needs its indices; a separate output its keys. */
    if (r.make_index || r.out.k != r.in.k || (r.vs && r.out.v != r.in.v))
      GOTO_IF_ERROR(copy(&r, r.in, out, 0, 0, n, true, true));
    goto cleanup;
  }
  if (v.hi + 2 < shift + width || v.hi <= shift) {
    unsigned w = top_width(&r, n, v.hi - v.lo, 0);
    shift = v.hi - w;
    width = w;
    GOTO_IF_ERROR(count(&r, r.in, 0, n, shift, width, true, false));
    GOTO_IF_ERROR(read_back(&r, 0, ((size_t)1 << width) + 1, begin, end, &v));
  }
  size_t buckets = (size_t)1 << width;
  unsigned lo = v.lo < shift ? v.lo : shift;
  GOTO_IF_ERROR(scatter(&r, r.in, scratch, 0, 0, n, shift, width, r.skew, true));
  GOTO_IF_ERROR(sort_buckets(&r, scratch, 0, out, 0, n, buckets, r.skew, bucket_groups, lo, shift));
  clsort__debug("radix_cpu: n = %zu, top digit bits [%u, %u), bits [%u, %u) in buckets of at most "
                "%zu keys", n, shift, shift + width, lo, shift, r.cap);
  if (!r.levels) goto cleanup; /* every bucket fits: n <= cap */
  /* The starts of this level, kept: each sort_range reads back its own. */
  for (size_t b = 0; b <= buckets; b++) r.levels[b] = start_at(&r, b);
  for (size_t b = 0; b < buckets; b++) {
    size_t s = r.levels[b], len = r.levels[b + 1] - s;
    if (len <= r.cap) continue;
    clsort__debug("radix_cpu: bucket %zu of %zu keys sorted a level down", b, len);
    GOTO_IF_ERROR(sort_range(&r, scratch, s + b * r.skew, out, s, len, lo, shift, false, 1));
  }
cleanup:
  free(r.host);
  free(r.levels);
  return st;
}
