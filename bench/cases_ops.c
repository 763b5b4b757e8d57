/* cases_ops.c: the operations beside the sorts (clsort_merge, clsort_top_k,
 * clsort_select, clsort_segmented_sort) through their buffer forms, each
 * next to a plain C reference on the same data in the same run, whose
 * output verifies the library's: a merge loop, a size-k heap, quickselect,
 * and glibc qsort per segment. Sizes are --sort-sizes; uniform keys. The
 * segmented sort runs segments of 64 keys, of 65536, and of power-law
 * sizes (gen.h's gen_power_law_offsets). */
#include "bench.h"
#include "devmem.h"
#include "gen.h"
#include "host_algos.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[OPS_COUNT_] = {"merge", "top-k", "select", "segmented"};
const char *ops_name(ops_kind o) { return (unsigned)o < OPS_COUNT_ ? op_names[o] : "?"; }

/* One case: the operation, its parameter (k, or the segment length) and
 * the data on both sides. */
typedef struct ops_case {
  ops_kind kind;
  key_type type;
  size_t n, param;
  char op[32];       /* the record's op: "top-k-100", "segmented-64", ... */
  void *keys, *ref;  /* the input (merge: a then b, each sorted), the C output */
  void *got;         /* the library's output, read back */
  uint64_t *offsets; /* segmented */
  size_t segments;
  cl_mem in, out, idx, key;
} ops_case;

/* ------------------------------------------------------ C references */
static uint64_t ord(const ops_case *c, const void *p, size_t i) {
  return kt_order(c->type, kt_load(c->type, p, i));
}

/* Stable merge of the sorted halves [0, n/2) and [n/2, n). */
static void c_merge(const ops_case *c, void *out) {
  size_t na = c->n / 2, i = 0, j = na, o = 0;
  while (i < na || j < c->n) {
    bool take_a = j == c->n || (i < na && ord(c, c->keys, i) <= ord(c, c->keys, j));
    kt_store(c->type, out, o++, kt_load(c->type, c->keys, take_a ? i++ : j++));
  }
}

/* The k smallest order keys, sorted: a max-heap of k, then its sort. */
static void sift_down(uint64_t *h, size_t k, size_t at) {
  for (;;) {
    size_t l = 2 * at + 1, big = at;
    if (l < k && h[l] > h[big]) big = l;
    if (l + 1 < k && h[l + 1] > h[big]) big = l + 1;
    if (big == at) return;
    uint64_t t = h[at];
    h[at] = h[big];
    h[big] = t;
    at = big;
  }
}
static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}
static void c_top_k(const ops_case *c, void *out, uint64_t *heap) {
  size_t k = c->param;
  for (size_t i = 0; i < k; i++) heap[i] = ord(c, c->keys, i);
  for (size_t i = k / 2; i-- > 0;) sift_down(heap, k, i);
  for (size_t i = k; i < c->n; i++) {
    uint64_t v = ord(c, c->keys, i);
    if (v < heap[0]) {
      heap[0] = v;
      sift_down(heap, k, 0);
    }
  }
  qsort(heap, k, sizeof *heap, cmp_u64);
  for (size_t i = 0; i < k; i++) kt_store(c->type, out, i, kt_unorder(c->type, heap[i]));
}

/* Quickselect (Hoare) of the order key at position k. */
static uint64_t c_select(const ops_case *c, uint64_t *a) {
  for (size_t i = 0; i < c->n; i++) a[i] = ord(c, c->keys, i);
  size_t lo = 0, hi = c->n - 1, k = c->param;
  while (lo < hi) {
    uint64_t pivot = a[lo + (hi - lo) / 2];
    size_t i = lo, j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        uint64_t t = a[i];
        a[i++] = a[j];
        a[j] = t;
        if (j == 0) break;
        j--;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      break;
  }
  return a[k];
}

static void c_segmented(const ops_case *c, void *keys) {
  size_t ks = kt_size(c->type);
  for (size_t s = 0; s < c->segments; s++)
    host_qsort_keys(c->type, (unsigned char *)keys + c->offsets[s] * ks,
                    (size_t)(c->offsets[s + 1] - c->offsets[s]), 0);
}

/* ------------------------------------------------------------ the runs */
static clsort_status call_lib(bench_state *s, ops_case *c, cl_event *final) {
  clsort_type t = (clsort_type)c->type;
  size_t na = c->n / 2;
  switch (c->kind) {
    case OPS_MERGE:
      /* b is read from its own copy of the second half: see prepare(). */
      return clsort_merge_buffer(s->ctx, t, c->in, NULL, na, c->key, NULL, c->n - na, c->out, NULL,
                                 0, NULL, 0, NULL, final);
    case OPS_TOP_K:
      return clsort_top_k_buffer(s->ctx, t, c->in, c->n, c->param, c->out, c->idx, 4, NULL, 0, NULL,
                                 final);
    case OPS_SELECT:
      return clsort_select_buffer(s->ctx, t, c->in, c->n, c->param, c->key, NULL, 0, NULL, final);
    default:
      /* In place, on the copy that run_lib made outside the timing. */
      return clsort_segmented_sort_buffer(s->ctx, t, c->out, NULL, 0, c->n, c->offsets, c->segments,
                                          NULL, 0, NULL, final);
  }
}

static clsort_status call_lib_fn(bench_state *s, void *user, cl_event *final) {
  return call_lib(s, user, final);
}

static clsort_status run_lib(bench_state *s, void *user, sample *out, int *discard) {
  ops_case *c = user;
  /* The segmented sort sorts in place: each run starts from the unsorted
   * keys, copied before the timing starts. */
  if (c->kind == OPS_SEGMENTED && dev_copy(s, c->in, c->out, c->n * kt_size(c->type)))
    return CLSORT_ERROR_OPENCL;
  return time_device_call(s, call_lib_fn, user, out, discard);
}

static clsort_status run_c(bench_state *s, void *user, sample *out, int *discard) {
  ops_case *c = user;
  (void)s;
  *discard = 0;
  size_t ks = kt_size(c->type);
  uint64_t *tmp = malloc((c->kind == OPS_SELECT ? c->n : c->param + 1) * sizeof *tmp);
  if (!tmp) return CLSORT_ERROR_OUT_OF_MEMORY;
  if (c->kind == OPS_SEGMENTED) memcpy(c->ref, c->keys, c->n * ks);
  double t0 = wall_ms();
  switch (c->kind) {
    case OPS_MERGE:
      c_merge(c, c->ref);
      break;
    case OPS_TOP_K:
      c_top_k(c, c->ref, tmp);
      break;
    case OPS_SELECT:
      kt_store(c->type, c->ref, 0, kt_unorder(c->type, c_select(c, tmp)));
      break;
    default:
      c_segmented(c, c->ref);
      break;
  }
  out->wall_ms = out->device_ms = wall_ms() - t0;
  free(tmp);
  return CLSORT_SUCCESS;
}

/* ---------------------------------------------------------------- cases */
static size_t out_count(const ops_case *c) {
  return c->kind == OPS_TOP_K ? c->param : c->kind == OPS_SELECT ? 1 : c->n;
}

static void free_case(ops_case *c) {
  free(c->keys);
  free(c->ref);
  free(c->got);
  free(c->offsets);
  dev_free(&c->in);
  dev_free(&c->out);
  dev_free(&c->idx);
  dev_free(&c->key);
}

/* Host data, the C side's output, device buffers. */
static clsort_status prepare(bench_state *s, ops_case *c) {
  size_t ks = kt_size(c->type), n = c->n;
  c->keys = malloc(n * ks + 8);
  c->ref = malloc(n * ks + 8);
  c->got = malloc(n * ks + 8);
  if (!c->keys || !c->ref || !c->got) return CLSORT_ERROR_OUT_OF_MEMORY;
  gen_keys(c->type, DIST_UNIFORM, c->keys, n, gen_case_seed(s->cfg->seed, c->op, c->type, 0, n));
  if (c->kind == OPS_MERGE) {
    host_qsort_keys(c->type, c->keys, n / 2, 0);
    host_qsort_keys(c->type, (unsigned char *)c->keys + n / 2 * ks, n - n / 2, 0);
  }
  if (c->kind == OPS_SEGMENTED) {
    /* param 0: the power-law sizes (gen.h), as clsort-cub-peer draws them. */
    c->segments = c->param ? (n + c->param - 1) / c->param : gen_power_law_count(n);
    c->offsets = malloc((c->segments + 1) * sizeof *c->offsets);
    if (!c->offsets) return CLSORT_ERROR_OUT_OF_MEMORY;
    if (!c->param) {
      if (!gen_power_law_offsets(c->offsets, c->segments, n,
                                 gen_case_seed(s->cfg->seed, c->op, c->type, 0, n) ^ 0x5e9u))
        return CLSORT_ERROR_OUT_OF_MEMORY;
    } else {
      for (size_t i = 0; i <= c->segments; i++)
        c->offsets[i] = i * c->param < n ? i * c->param : n;
    }
  }
  clsort_status st;
  if ((st = dev_alloc(s, n * ks, &c->in)) != CLSORT_SUCCESS) return st;
  if ((st = dev_write(s, c->in, c->keys, n * ks)) != CLSORT_SUCCESS) return st;
  if ((st = dev_alloc(s, n * ks, &c->out)) != CLSORT_SUCCESS) return st;
  if ((st = dev_alloc(s, c->param * 4 + 8, &c->idx)) != CLSORT_SUCCESS) return st;
  /* The merge's b side in a buffer of its own; select's one-key output. */
  size_t key_bytes = c->kind == OPS_MERGE ? (n - n / 2) * ks : ks;
  if ((st = dev_alloc(s, key_bytes, &c->key)) != CLSORT_SUCCESS) return st;
  if (c->kind == OPS_MERGE)
    st = dev_write(s, c->key, (unsigned char *)c->keys + n / 2 * ks, key_bytes);
  return st;
}

/* The library's output against the C reference's. */
static void check(bench_state *s, const ops_case *c, bench_record *rec) {
  if (!s->cfg->verify) {
    rec->verified = REC_VERIFY_SKIPPED;
    return;
  }
  size_t count = out_count(c);
  size_t bad = count;
  for (size_t i = 0; i < count && bad == count; i++)
    if (kt_load(c->type, c->got, i) != kt_load(c->type, c->ref, i)) bad = i;
  rec->verified = bad == count ? REC_VERIFY_OK : REC_VERIFY_FAILED;
  if (bad == count) return;
  s->failures++;
  snprintf(rec->status, sizeof rec->status, "failed");
  snprintf(rec->note, sizeof rec->note, "element %zu differs from the C reference", bad);
  report_progress_done(s);
  fprintf(stderr, "VERIFY FAILED: %s %s n=%llu: element %zu differs from the C reference\n",
          rec->op, rec->type, (unsigned long long)c->n, bad);
}

/* Runs one case: the library, then the C reference (whose output checks
 * the library's). Returns 0 to end the size sweep. */
static int run_case(bench_state *s, ops_case *c) {
  char key[96];
  snprintf(key, sizeof key, "%s %s", c->op, kt_name(c->type));
  if (case_skipped(s, key)) return 0;
  bench_record rec, peer;
  case_record(s, &rec, c->op, c->op, "libclsort", c->type, c->n);
  size_t ks = kt_size(c->type);
  if (!fits_device(s, 3.0 * (double)c->n * (double)ks, (double)c->n * (double)ks) ||
      !fits_host(4.0 * (double)c->n * 8.0))
    return !skip_once(s, key, &rec, "too large for the device or the host");
  report_progress(s, "%s %s n=%zu", c->op, kt_name(c->type), c->n);
  clsort_status st = prepare(s, c);
  if (st != CLSORT_SUCCESS) return !case_failed(s, &rec, key, st);
  st = measure(s, run_lib, c, &rec);
  if (st != CLSORT_SUCCESS) return !case_failed(s, &rec, key, st);
  snprintf(rec.timing, sizeof rec.timing, "%s", timer_method(&s->timer));
  record_set_throughput(&rec, (double)c->n * (double)ks);
  cl_mem from = c->kind == OPS_SELECT ? c->key : c->out;
  st = dev_read(s, from, c->got, out_count(c) * ks);
  if (st != CLSORT_SUCCESS) return !case_failed(s, &rec, key, st);

  case_record(s, &peer, c->op, "c-reference", "peer", c->type, c->n);
  snprintf(peer.api, sizeof peer.api, "host");
  snprintf(peer.timing, sizeof peer.timing, "wall");
  st = measure(s, run_c, c, &peer);
  if (st != CLSORT_SUCCESS) return !case_failed(s, &peer, key, st);
  peer.first_ms = -1.0;
  record_set_throughput(&peer, (double)c->n * (double)ks);
  check(s, c, &rec);
  peer.verified = REC_VERIFY_SKIPPED;
  report_record(s, &rec);
  report_set_ratio(s, &peer);
  report_record(s, &peer);
  return 1;
}

/* The parameters each operation runs with: top-k's k, select's position
 * (the median), the segment length. */
static size_t params_for(ops_kind k, size_t n, size_t *out) {
  switch (k) {
    case OPS_TOP_K: {
      size_t c = 0, ks[3] = {1, 100, 10000};
      for (int i = 0; i < 3; i++)
        if (ks[i] <= n) out[c++] = ks[i];
      return c;
    }
    case OPS_SELECT:
      out[0] = n / 2;
      return n > 0;
    case OPS_SEGMENTED:
      /* 0: the power-law sizes, "segmented-power". */
      out[0] = 64;
      out[1] = 65536;
      out[2] = 0;
      return 3;
    default:
      out[0] = 0;
      return 1;
  }
}

void bench_ops(bench_state *s) {
  const bench_config *cfg = s->cfg;
  for (int o = 0; o < OPS_COUNT_; o++) {
    if (!(cfg->ops & (1u << o))) continue;
    for (int t = 0; t < KT_COUNT_; t++) {
      if (!(cfg->types & (1u << t))) continue;
      size_t params[3], np;
      for (size_t p = 0;; p++) {
        int any = 0;
        for (size_t i = 0; i < cfg->num_sort_sizes; i++) {
          size_t n = (size_t)cfg->sort_sizes[i];
          np = params_for((ops_kind)o, n, params);
          if (p >= np) continue;
          any = 1;
          ops_case c;
          memset(&c, 0, sizeof c);
          c.kind = (ops_kind)o;
          c.type = (key_type)t;
          c.n = n;
          c.param = params[p];
          if (o == OPS_TOP_K)
            snprintf(c.op, sizeof c.op, "top-k-%zu", c.param);
          else if (o == OPS_SEGMENTED && c.param == 0)
            snprintf(c.op, sizeof c.op, "segmented-power");
          else if (o == OPS_SEGMENTED)
            snprintf(c.op, sizeof c.op, "segmented-%zu", c.param);
          else
            snprintf(c.op, sizeof c.op, "%s", ops_name((ops_kind)o));
          int go_on = run_case(s, &c);
          free_case(&c);
          if (!go_on) break;
        }
        if (!any) break;
      }
    }
  }
}
