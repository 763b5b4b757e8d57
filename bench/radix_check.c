/* radix_check.c: clsort-radix-check, a sweep of the radix sort's results
 * against a stable C reference, for machines without the Check library
 * (the GPU hosts): every key type x keys, pairs (4- and 8-byte values),
 * argsort (4- and 8-byte indices) x ascending/descending x bit ranges x
 * distributions x edge sizes (0, 1, tiles +-1, 2^k +-1, primes). Each
 * output is compared element by element with the reference; the sort is
 * stable, so the expected output is exact.
 *
 * usage: clsort-radix-check [--device SPEC] [--quick] [--max-n N] [--seed S]
 *                           [--async] [--n N] [--types LIST]
 * --n sets the size of the all-combinations part, --types limits the key
 * types (u32,i32,f32,u64,i64,f64), --max-n the edge sizes.
 * Prints one line per failure and a summary; exit status 0 when everything
 * matched, 1 otherwise. */
#include <clsort.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------- random */
static uint64_t rng_state;
static uint64_t rnd(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* ---------------------------------------------------------- key bits */
static bool is64(clsort_type t) { return clsort_type_size(t) == 8; }

static uint64_t get_bits(clsort_type t, const void *p, size_t i) {
  if (is64(t)) return ((const uint64_t *)p)[i];
  return ((const uint32_t *)p)[i];
}
static void put_bits(clsort_type t, void *p, size_t i, uint64_t v) {
  if (is64(t))
    ((uint64_t *)p)[i] = v;
  else
    ((uint32_t *)p)[i] = (uint32_t)v;
}

/* The documented order as unsigned bits (keys.cl's transform). */
static uint64_t order_key(clsort_type t, uint64_t b) {
  unsigned bits = is64(t) ? 64 : 32;
  uint64_t sign = (uint64_t)1 << (bits - 1), all = bits == 64 ? ~0ull : 0xffffffffull;
  if (t == CLSORT_I32 || t == CLSORT_I64) return b ^ sign;
  if (t == CLSORT_F32 || t == CLSORT_F64) return (b & sign) ? (~b & all) : (b ^ sign);
  return b;
}

/* ---------------------------------------------------------- reference */
/* The stable permutation sorting keys by bits [begin, end) of their order
 * key, descending by inverting those bits: LSD radix over 8-bit digits. */
static size_t *reference(clsort_type t, const void *keys, size_t n, unsigned begin, unsigned end,
                         bool desc) {
  size_t *perm = malloc((n ? n : 1) * sizeof *perm), *tmp = malloc((n ? n : 1) * sizeof *tmp);
  uint64_t *k = malloc((n ? n : 1) * sizeof *k);
  uint64_t mask = end - begin == 64 ? ~0ull : (((uint64_t)1 << (end - begin)) - 1);
  for (size_t i = 0; i < n; i++) {
    uint64_t v = (order_key(t, get_bits(t, keys, i)) >> begin) & mask;
    k[i] = desc ? (~v & mask) : v;
    perm[i] = i;
  }
  for (unsigned shift = 0; shift < end - begin; shift += 8) {
    size_t count[257] = {0};
    for (size_t i = 0; i < n; i++) count[((k[perm[i]] >> shift) & 255) + 1]++;
    for (int d = 0; d < 256; d++) count[d + 1] += count[d];
    for (size_t i = 0; i < n; i++) tmp[count[(k[perm[i]] >> shift) & 255]++] = perm[i];
    size_t *s = perm;
    perm = tmp;
    tmp = s;
  }
  free(tmp);
  free(k);
  return perm;
}

/* ---------------------------------------------------------- inputs */
enum { D_UNIFORM, D_ZERO, D_FEW, D_SORTED, D_REVERSE, D_NARROW, D_SPECIAL, D_COUNT };
static const char *const dist_names[] = {"uniform", "zero",   "few-unique", "sorted",
                                         "reverse", "narrow", "special"};

static void gen_keys(clsort_type t, int dist, void *keys, size_t n) {
  uint64_t few[4] = {rnd(), rnd(), rnd(), rnd()};
  uint64_t specials64[] = {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000000ull,
                           0xfff0000000000000ull, 0x8000000000000000ull, 0,
                           0x0000000000000001ull, 0x8000000000000001ull, 0x3ff0000000000000ull};
  uint32_t specials32[] = {0x7fc00000u, 0xffc00000u, 0x7f800000u, 0xff800000u, 0x80000000u,
                           0,           1u,          0x80000001u, 0x3f800000u};
  for (size_t i = 0; i < n; i++) {
    uint64_t v = rnd();
    switch (dist) {
      case D_ZERO: v = 0x1234567890abcdefull; break;
      case D_FEW: v = few[v & 3]; break;
      case D_SORTED: v = (uint64_t)i * 2654435761u; break;
      case D_REVERSE: v = ~((uint64_t)i * 2654435761u); break;
      case D_NARROW: v &= 0x3ff; break;
      case D_SPECIAL:
        if (v % 3 == 0) v = is64(t) ? specials64[v % 9] : specials32[v % 9];
        break;
      default: break;
    }
    put_bits(t, keys, i, v);
  }
  /* Sorted inputs are sorted as unsigned bits of the key in memory. */
  if (dist == D_SORTED || dist == D_REVERSE) {
    for (size_t i = 0; i < n; i++)
      put_bits(t, keys, i, dist == D_SORTED ? (uint64_t)i : ~(uint64_t)i);
  }
}

/* ---------------------------------------------------------- one case */
enum { M_KEYS, M_PAIRS4, M_PAIRS8, M_ARG4, M_ARG8, M_COUNT };
static const char *const mode_names[] = {"keys", "pairs4", "pairs8", "argsort4", "argsort8"};

typedef struct checker {
  clsort_context *ctx;
  cl_context cl;
  cl_command_queue queue;
  unsigned long cases, failures;
  bool async;
} checker;

static uint64_t payload(size_t i, size_t vs) {
  return vs == 8 ? ((uint64_t)i | ((uint64_t)(i * 7 + 3) << 40)) : (uint32_t)i;
}

static void report(checker *c, clsort_type t, int mode, int dist, size_t n,
                   const clsort_options *o, const char *what) {
  c->failures++;
  if (c->failures <= 60)
    printf("FAIL %s %s %s n=%zu %s bits [%u,%u): %s\n", clsort_type_name(t), mode_names[mode],
           dist_names[dist], n, (o->flags & CLSORT_DESCENDING) ? "desc" : "asc", o->begin_bit,
           o->end_bit, what);
}

/* Sorts device buffers with clsort_sort_buffer (keys, pairs) or host
 * arrays with clsort_argsort, and compares with the reference. */
static void check_case(checker *c, clsort_type t, int mode, int dist, size_t n, bool desc,
                       unsigned begin, unsigned end) {
  size_t ks = clsort_type_size(t), vs = mode == M_PAIRS4 || mode == M_ARG4 ? 4 : 8;
  if (mode == M_KEYS) vs = 0;
  clsort_options o = {CLSORT_RADIX, desc ? CLSORT_DESCENDING : 0u, begin,
                      end == ks * 8 && begin == 0 ? 0u : end};
  size_t alloc = n ? n : 1;
  void *keys = malloc(alloc * ks), *out = malloc(alloc * ks), *vals = malloc(alloc * 8);
  gen_keys(t, dist, keys, n);
  size_t *perm = reference(t, keys, n, begin, end, desc);
  c->cases++;
  clsort_status st = CLSORT_SUCCESS;
  char why[160] = "";
  if (mode == M_ARG4 || mode == M_ARG8) {
    memset(vals, 0xab, alloc * vs);
    st = clsort_argsort(c->ctx, t, keys, vals, vs, n, &o);
    for (size_t i = 0; st == CLSORT_SUCCESS && i < n && !why[0]; i++) {
      uint64_t got = vs == 8 ? ((uint64_t *)vals)[i] : ((uint32_t *)vals)[i];
      if (got != perm[i])
        snprintf(why, sizeof why, "index %zu is %" PRIu64 ", expected %zu", i, got, perm[i]);
    }
  } else {
    for (size_t i = 0; i < n; i++) {
      if (vs == 8) ((uint64_t *)vals)[i] = payload(i, 8);
      if (vs == 4) ((uint32_t *)vals)[i] = (uint32_t)payload(i, 4);
    }
    cl_int err = CL_SUCCESS;
    cl_mem kb = clCreateBuffer(c->cl, CL_MEM_READ_WRITE, alloc * ks, NULL, &err);
    cl_mem vb = vs ? clCreateBuffer(c->cl, CL_MEM_READ_WRITE, alloc * vs, NULL, &err) : NULL;
    if (err == CL_SUCCESS && n)
      err = clEnqueueWriteBuffer(c->queue, kb, CL_TRUE, 0, n * ks, keys, 0, NULL, NULL);
    if (err == CL_SUCCESS && n && vs)
      err = clEnqueueWriteBuffer(c->queue, vb, CL_TRUE, 0, n * vs, vals, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
      snprintf(why, sizeof why, "OpenCL error %d preparing buffers", err);
    } else if (c->async) {
      /* Gated on a user event that completes only after the call returns:
       * the call must not wait for it. */
      cl_event gate = clCreateUserEvent(c->cl, &err), done = NULL;
      st = clsort_sort_buffer(c->ctx, t, kb, vb, vs, n, &o, 1, &gate, &done);
      clSetUserEventStatus(gate, CL_COMPLETE);
      if (done) clWaitForEvents(1, &done), clReleaseEvent(done);
      clReleaseEvent(gate);
    } else {
      st = clsort_sort_buffer(c->ctx, t, kb, vb, vs, n, &o, 0, NULL, NULL);
    }
    if (!why[0] && st == CLSORT_SUCCESS && n) {
      err = clEnqueueReadBuffer(c->queue, kb, CL_TRUE, 0, n * ks, out, 0, NULL, NULL);
      if (err == CL_SUCCESS && vs)
        err = clEnqueueReadBuffer(c->queue, vb, CL_TRUE, 0, n * vs, vals, 0, NULL, NULL);
      if (err != CL_SUCCESS) snprintf(why, sizeof why, "OpenCL error %d reading back", err);
    }
    for (size_t i = 0; !why[0] && st == CLSORT_SUCCESS && i < n; i++) {
      uint64_t got = get_bits(t, out, i), want = get_bits(t, keys, perm[i]);
      if (got != want) {
        snprintf(why, sizeof why, "key %zu is 0x%" PRIx64 ", expected 0x%" PRIx64, i, got, want);
        break;
      }
      if (vs) {
        uint64_t gv = vs == 8 ? ((uint64_t *)vals)[i] : ((uint32_t *)vals)[i];
        if (gv != payload(perm[i], vs))
          snprintf(why, sizeof why, "value %zu is 0x%" PRIx64 ", expected 0x%" PRIx64, i, gv,
                   payload(perm[i], vs));
      }
    }
    clReleaseMemObject(kb);
    if (vb) clReleaseMemObject(vb);
  }
  if (st != CLSORT_SUCCESS)
    snprintf(why, sizeof why, "%s: %s", clsort_status_name(st), clsort_last_error_message());
  if (why[0]) report(c, t, mode, dist, n, &o, why);
  free(perm);
  free(keys);
  free(out);
  free(vals);
}

/* ---------------------------------------------------------- the sweep */
static const clsort_type all_types[] = {CLSORT_U32, CLSORT_I32, CLSORT_F32,
                                        CLSORT_U64, CLSORT_I64, CLSORT_F64};

/* Bit ranges: the full key and three partial ones. */
static void bit_range(clsort_type t, int which, unsigned *begin, unsigned *end) {
  unsigned bits = (unsigned)clsort_type_size(t) * 8;
  static const unsigned r32[][2] = {{0, 32}, {4, 20}, {31, 32}, {0, 13}};
  static const unsigned r64[][2] = {{0, 64}, {8, 56}, {60, 64}, {3, 37}};
  *begin = bits == 64 ? r64[which][0] : r32[which][0];
  *end = bits == 64 ? r64[which][1] : r32[which][1];
}

int main(int argc, char **argv) {
  const char *device = NULL;
  bool quick = false;
  size_t max_n = (size_t)1 << 23;
  uint64_t seed = 1;
  checker c = {0};
  size_t cross_n = 0;
  unsigned type_mask = 0x3f;
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--device") && i + 1 < argc) {
      device = argv[++i];
    } else if (!strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!strcmp(argv[i], "--max-n") && i + 1 < argc) {
      max_n = strtoull(argv[++i], NULL, 0);
    } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      seed = strtoull(argv[++i], NULL, 0);
    } else if (!strcmp(argv[i], "--n") && i + 1 < argc) {
      cross_n = strtoull(argv[++i], NULL, 0);
    } else if (!strcmp(argv[i], "--types") && i + 1 < argc) {
      const char *list = argv[++i];
      type_mask = 0;
      for (int ti = 0; ti < 6; ti++)
        if (strstr(list, clsort_type_name(all_types[ti]))) type_mask |= 1u << ti;
    } else if (!strcmp(argv[i], "--async")) {
      c.async = true;
    } else {
      fprintf(stderr,
              "usage: clsort-radix-check [--device SPEC] [--quick] [--max-n N] [--seed S] "
              "[--async] [--n N] [--types LIST]\n");
      return 2;
    }
  }
  rng_state = seed;
  clsort_status st = clsort_context_create(&c.ctx, device);
  if (st != CLSORT_SUCCESS) {
    fprintf(stderr, "clsort-radix-check: %s\n", clsort_last_error_message());
    return 1;
  }
  c.cl = clsort_context_cl_context(c.ctx);
  c.queue = clsort_context_queue(c.ctx);
  cl_device_id dev = clsort_context_device(c.ctx);
  char ext[4096] = "";
  clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
  bool fp64 = strstr(ext, "cl_khr_fp64") != NULL;
  printf("clsort-radix-check on %s, seed %" PRIu64 "%s\n", clsort_context_device_name(c.ctx), seed,
         c.async ? ", gated on user events" : "");
  clock_t t0 = clock();

  /* 1. Every combination at one size that is not a multiple of any tile. */
  if (!cross_n) cross_n = quick ? 10007 : 100003;
  for (int ti = 0; ti < 6; ti++) {
    clsort_type t = all_types[ti];
    if ((t == CLSORT_F64 && !fp64) || !(type_mask >> ti & 1)) continue;
    for (int mode = 0; mode < M_COUNT; mode++)
      for (int desc = 0; desc < 2; desc++)
        for (int r = 0; r < 4; r++)
          for (int dist = 0; dist < D_COUNT; dist++) {
            if (quick && (r + dist + mode) % 3) continue;
            unsigned b, e;
            bit_range(t, r, &b, &e);
            check_case(&c, t, mode, dist, cross_n, desc, b, e);
          }
  }
  printf("combinations at n=%zu: %lu cases, %lu failures\n", cross_n, c.cases, c.failures);

  /* 2. Edge sizes, each with a rotating choice of the other dimensions. */
  size_t sizes[160], ns = 0;
  static const size_t fixed[] = {0, 1, 2, 3, 5, 31, 32, 33, 255, 256, 257, 4099, 7919, 104729,
                                 1299709};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) sizes[ns++] = fixed[i];
  /* Tiles of the NVIDIA shapes (384 work-items x 8..23 keys) and the
   * portable ones, each -1, +0, +1, and two tiles +-1. */
  static const size_t tiles[] = {3072, 3840, 4096, 4608, 5760, 6144, 7680, 8192, 8832};
  for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; i++)
    for (int d = -1; d <= 1; d++) {
      sizes[ns++] = tiles[i] + d;
      sizes[ns++] = 2 * tiles[i] + d;
    }
  for (unsigned k = 10; k <= 24; k += 2)
    for (int d = -1; d <= 1; d += 2) sizes[ns++] = ((size_t)1 << k) + d;
  sizes[ns++] = ((size_t)1 << 21) + 1; /* past the small-tile threshold */
  unsigned long before = c.cases, failed_before = c.failures;
  unsigned rot = 0;
  for (size_t i = 0; i < ns; i++) {
    size_t n = sizes[i];
    if (n > max_n || (quick && n > ((size_t)1 << 18))) continue;
    for (int ti = 0; ti < 6; ti++) {
      clsort_type t = all_types[ti];
      if ((t == CLSORT_F64 && !fp64) || !(type_mask >> ti & 1)) continue;
      int modes = n > ((size_t)1 << 20) ? 2 : M_COUNT; /* large: keys, pairs4 */
      for (int mode = 0; mode < modes; mode++) {
        unsigned b, e;
        bit_range(t, (int)(rot % 4), &b, &e);
        int dist = (int)(rot / 4 % D_COUNT);
        check_case(&c, t, mode, dist, n, rot / 3 % 2, b, e);
        rot++;
      }
    }
  }
  printf("edge sizes: %lu cases, %lu failures\n", c.cases - before, c.failures - failed_before);
  printf("%s: %lu cases, %lu failures, %.1f s CPU\n", c.failures ? "FAILED" : "passed", c.cases,
         c.failures, (double)(clock() - t0) / CLOCKS_PER_SEC);
  clsort_context_release(c.ctx);
  return c.failures ? 1 : 0;
}
