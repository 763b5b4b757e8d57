/* cases_prim.c: the primitive benchmarks (scan, reduce, compact, split,
 * bucket offsets): libclsort's buffer and host-array calls and the C-loop
 * baseline on the same data, each verified. */
#include "bench.h"
#include "devmem.h"
#include "gen.h"
#include "host_algos.h"
#include "verify.h"

#include <stdlib.h>
#include <string.h>

static const char *const prim_names[PRIM_COUNT_] = {
    "scan-exclusive", "scan-inclusive", "reduce-sum", "reduce-min",
    "reduce-max",     "compact",        "split",      "bucket-offsets"};

const char *prim_name(prim_kind p) { return (unsigned)p < PRIM_COUNT_ ? prim_names[p] : "?"; }

typedef struct prim_case {
  prim_kind kind;
  key_type type;
  size_t n;
  size_t es;          /* element size */
  size_t in_bytes;    /* input (bucket indices for bucket-offsets) */
  size_t out_bytes;   /* output, or the offsets table */
  size_t cells;       /* bucket-offsets: table entries */
  int offset64;       /* bucket-offsets: 8-byte offsets */
  void *h_in, *h_out;
  unsigned char *h_flags;
  cl_mem in, flags, out, count;
  size_t h_count;     /* count from host-array calls and the C loop */
} prim_case;

static int is_scan(prim_kind k) { return k == PRIM_SCAN_EXCLUSIVE || k == PRIM_SCAN_INCLUSIVE; }
static int is_reduce(prim_kind k) { return k >= PRIM_REDUCE_SUM && k <= PRIM_REDUCE_MAX; }
static int is_select(prim_kind k) { return k == PRIM_COMPACT || k == PRIM_SPLIT; }

/* The bytes each primitive must at least move, for GB/s. */
static double bytes_moved(const prim_case *c, uint64_t kept) {
  double n = (double)c->n, es = (double)c->es;
  switch (c->kind) {
    case PRIM_SCAN_EXCLUSIVE:
    case PRIM_SCAN_INCLUSIVE: return 2.0 * n * es;
    case PRIM_COMPACT: return n * (es + 1.0) + (double)kept * es;
    case PRIM_SPLIT: return n * (es + 1.0) + n * es;
    case PRIM_BUCKET_OFFSETS: return n * 4.0 + (double)c->cells * (c->offset64 ? 8.0 : 4.0);
    default: return n * es;
  }
}

/* ------------------------------------------------------------ the runs */
static clsort_status call_buffer(bench_state *s, prim_case *c, cl_event *final) {
  clsort_type t = (clsort_type)c->type;
  const bench_config *cfg = s->cfg;
  switch (c->kind) {
    case PRIM_SCAN_EXCLUSIVE:
    case PRIM_SCAN_INCLUSIVE:
      return clsort_scan_buffer(s->ctx, t,
                                c->kind == PRIM_SCAN_EXCLUSIVE ? CLSORT_SCAN_EXCLUSIVE
                                                               : CLSORT_SCAN_INCLUSIVE,
                                c->in, c->out, c->n, 0, NULL, final);
    case PRIM_REDUCE_SUM:
    case PRIM_REDUCE_MIN:
    case PRIM_REDUCE_MAX:
      return clsort_reduce_buffer(s->ctx, t, (clsort_reduce_op)(c->kind - PRIM_REDUCE_SUM), c->in,
                                  c->n, c->out, 0, NULL, final);
    case PRIM_COMPACT:
      return clsort_compact_buffer(s->ctx, c->es, c->in, c->flags, c->out, c->n, c->count, 0, NULL,
                                   final);
    case PRIM_SPLIT:
      return clsort_split_buffer(s->ctx, c->es, c->in, c->flags, c->out, c->n, c->count, 0, NULL,
                                 final);
    default:
      return clsort_bucket_offsets_buffer(s->ctx, c->in, c->n, cfg->buckets, cfg->bucket_tile,
                                          c->offset64 ? CLSORT_U64 : CLSORT_U32, c->out, 0, NULL,
                                          final);
  }
}

static clsort_status call_buffer_fn(bench_state *s, void *user, cl_event *final) {
  return call_buffer(s, user, final);
}

static clsort_status run_buffer(bench_state *s, void *user, sample *out, int *discard) {
  return time_device_call(s, call_buffer_fn, user, out, discard);
}

static clsort_status run_host_api(bench_state *s, void *user, sample *out, int *discard) {
  prim_case *c = user;
  const bench_config *cfg = s->cfg;
  clsort_type t = (clsort_type)c->type;
  clsort_status st;
  *discard = 0;
  double t0 = wall_ms();
  switch (c->kind) {
    case PRIM_SCAN_EXCLUSIVE:
    case PRIM_SCAN_INCLUSIVE:
      st = clsort_scan(s->ctx, t,
                       c->kind == PRIM_SCAN_EXCLUSIVE ? CLSORT_SCAN_EXCLUSIVE : CLSORT_SCAN_INCLUSIVE,
                       c->h_in, c->h_out, c->n);
      break;
    case PRIM_REDUCE_SUM:
    case PRIM_REDUCE_MIN:
    case PRIM_REDUCE_MAX:
      st = clsort_reduce(s->ctx, t, (clsort_reduce_op)(c->kind - PRIM_REDUCE_SUM), c->h_in, c->n,
                         c->h_out);
      break;
    case PRIM_COMPACT:
      st = clsort_compact(s->ctx, c->es, c->h_in, c->h_flags, c->h_out, c->n, &c->h_count);
      break;
    case PRIM_SPLIT:
      st = clsort_split(s->ctx, c->es, c->h_in, c->h_flags, c->h_out, c->n, &c->h_count);
      break;
    default:
      st = clsort_bucket_offsets(s->ctx, (const unsigned *)c->h_in, c->n, cfg->buckets,
                                 cfg->bucket_tile, c->offset64 ? CLSORT_U64 : CLSORT_U32, c->h_out);
      break;
  }
  out->wall_ms = out->device_ms = wall_ms() - t0;
  return st;
}

static clsort_status run_cloop(bench_state *s, void *user, sample *out, int *discard) {
  prim_case *c = user;
  (void)s;
  *discard = 0;
  double t0 = wall_ms();
  if (is_scan(c->kind)) {
    cloop_scan(c->type, c->kind == PRIM_SCAN_INCLUSIVE, c->h_in, c->h_out, c->n);
  } else if (is_reduce(c->kind)) {
    cloop_reduce(c->type, (int)(c->kind - PRIM_REDUCE_SUM), c->h_in, c->n, c->h_out);
  } else {
    c->h_count = cloop_select(c->es, c->kind == PRIM_SPLIT, c->h_in, c->h_flags, c->h_out, c->n);
  }
  out->wall_ms = out->device_ms = wall_ms() - t0;
  return CLSORT_SUCCESS;
}

/* --------------------------------------------------------- verification */
/* Checks h_out (and count) against the C reference; fills rec->verified. */
static void check(bench_state *s, const prim_case *c, uint64_t count, bench_record *rec) {
  char why[200] = "";
  int ok;
  if (!s->cfg->verify) {
    rec->verified = REC_VERIFY_SKIPPED;
    return;
  }
  if (is_scan(c->kind)) {
    ok = verify_scan(c->type, c->kind == PRIM_SCAN_INCLUSIVE, c->h_in, c->h_out, c->n, why, sizeof why);
  } else if (is_reduce(c->kind)) {
    ok = verify_reduce(c->type, (int)(c->kind - PRIM_REDUCE_SUM), c->h_in, c->n, c->h_out, why,
                       sizeof why);
  } else if (is_select(c->kind)) {
    ok = verify_select(c->es, c->kind == PRIM_SPLIT, c->h_in, c->h_flags, c->h_out, c->n, count, why,
                       sizeof why);
  } else {
    ok = verify_bucket_offsets((const uint32_t *)c->h_in, c->n, s->cfg->buckets, s->cfg->bucket_tile,
                               c->offset64, c->h_out, why, sizeof why);
  }
  rec->verified = ok ? REC_VERIFY_OK : REC_VERIFY_FAILED;
  if (!ok) {
    s->failures++;
    snprintf(rec->status, sizeof rec->status, "failed");
    snprintf(rec->note, sizeof rec->note, "%s", why);
    report_progress_done(s);
    fprintf(stderr, "VERIFY FAILED: %s %s %s n=%llu: %s\n", rec->algorithm, rec->op, rec->type,
            (unsigned long long)c->n, why);
  }
}

/* ---------------------------------------------------------------- cases */
static void free_case(prim_case *c) {
  free(c->h_in);
  free(c->h_out);
  free(c->h_flags);
  dev_free(&c->in);
  dev_free(&c->flags);
  dev_free(&c->out);
  dev_free(&c->count);
}

/* Sizes the buffers of case c; returns 0 when it fits neither the device
 * nor the host (noted once). */
static int plan(bench_state *s, prim_case *c, const char *key, bench_record *rec) {
  const bench_config *cfg = s->cfg;
  c->es = c->kind == PRIM_BUCKET_OFFSETS ? 4 : kt_size(c->type);
  c->in_bytes = c->n * c->es;
  if (c->kind == PRIM_BUCKET_OFFSETS) {
    c->offset64 = c->n > UINT32_MAX;
    c->cells = (c->n + cfg->bucket_tile - 1) / cfg->bucket_tile * cfg->buckets;
    c->out_bytes = c->cells * (c->offset64 ? 8 : 4);
  } else {
    c->out_bytes = is_reduce(c->kind) ? 8 : c->n * c->es;
  }
  double flags = is_select(c->kind) ? (double)c->n : 0.0;
  double device = (double)c->in_bytes + (double)c->out_bytes + flags;
  double largest = (double)(c->in_bytes > c->out_bytes ? c->in_bytes : c->out_bytes);
  if (fits_device(s, device, largest) && fits_host(device + (double)c->cells * 8.0)) return 1;
  char big_key[128], why[160];
  snprintf(big_key, sizeof big_key, "%s (too large)", key);
  snprintf(why, sizeof why,
           "skipped for n >= %llu: needs %.0f MiB of device memory (device: %.0f MiB, "
           "largest allocation %.0f MiB) or too much host memory",
           (unsigned long long)c->n, device / 1048576.0, (double)s->global_mem / 1048576.0,
           (double)s->max_alloc / 1048576.0);
  skip_once(s, big_key, rec, why);
  return 0;
}

/* Allocates and fills the host data and device buffers of case c. */
static clsort_status prepare(bench_state *s, prim_case *c) {
  const bench_config *cfg = s->cfg;
  uint64_t seed = gen_case_seed(cfg->seed, prim_name(c->kind), c->type, 0, c->n);
  c->h_in = malloc(c->in_bytes ? c->in_bytes : 1);
  c->h_out = malloc(c->out_bytes ? c->out_bytes : 1);
  if (is_select(c->kind)) c->h_flags = malloc(c->n ? c->n : 1);
  if (!c->h_in || !c->h_out || (is_select(c->kind) && !c->h_flags)) return CLSORT_ERROR_OUT_OF_MEMORY;
  if (c->kind == PRIM_BUCKET_OFFSETS) {
    gen_buckets((uint32_t *)c->h_in, c->n, cfg->buckets, seed);
  } else if (is_select(c->kind)) {
    gen_keys(c->type, DIST_UNIFORM, c->h_in, c->n, seed);
    gen_flags(c->h_flags, c->n, cfg->keep, seed ^ 0x5eedf1a95u);
  } else {
    gen_scan_input(c->type, c->h_in, c->n, seed);
  }
  clsort_status st;
  if ((st = dev_alloc(s, c->in_bytes, &c->in)) != CLSORT_SUCCESS) return st;
  if ((st = dev_alloc(s, c->out_bytes, &c->out)) != CLSORT_SUCCESS) return st;
  if ((st = dev_write(s, c->in, c->h_in, c->in_bytes)) != CLSORT_SUCCESS) return st;
  if (is_select(c->kind)) {
    if ((st = dev_alloc(s, c->n, &c->flags)) != CLSORT_SUCCESS) return st;
    if ((st = dev_alloc(s, 8, &c->count)) != CLSORT_SUCCESS) return st;
    if ((st = dev_write(s, c->flags, c->h_flags, c->n)) != CLSORT_SUCCESS) return st;
  }
  return CLSORT_SUCCESS;
}

/* Runs one (primitive, type, n) case: libclsort through buffers, through
 * host arrays, and the C loop. Returns 0 to end the size sweep (the
 * combination is unsupported or has outgrown the device). */
static int run_case(bench_state *s, prim_case *c) {
  const bench_config *cfg = s->cfg;
  const char *op = prim_name(c->kind);
  char key[96], n_text[32];
  snprintf(key, sizeof key, "%s %s", op, kt_name(c->type));
  snprintf(n_text, sizeof n_text, "%llu", (unsigned long long)c->n);
  if (case_skipped(s, key)) return 0;
  bench_record rec;
  case_record(s, &rec, op, op, "libclsort", c->type, c->n);
  if (!plan(s, c, key, &rec)) return 0;
  report_progress(s, "%s %s n=%s: preparing", op, kt_name(c->type), n_text);
  clsort_status st = prepare(s, c);
  if (st != CLSORT_SUCCESS) return !case_failed(s, &rec, key, st);
  uint64_t kept = 0;
  if (is_select(c->kind)) {
    for (size_t i = 0; i < c->n; i++) kept += c->h_flags[i] != 0;
  }
  double bytes = bytes_moved(c, kept);

  if (cfg->apis & API_DEVICE) {
    report_progress(s, "%s %s n=%s: libclsort", op, kt_name(c->type), n_text);
    st = measure(s, run_buffer, c, &rec);
    if (st != CLSORT_SUCCESS) return !case_failed(s, &rec, key, st);
    snprintf(rec.timing, sizeof rec.timing, "%s", timer_method(&s->timer));
    record_set_throughput(&rec, bytes);
    uint64_t count = 0;
    if (cfg->verify) {
      st = dev_read(s, c->out, c->h_out, c->out_bytes);
      if (st == CLSORT_SUCCESS && is_select(c->kind)) st = dev_read(s, c->count, &count, 8);
      if (st != CLSORT_SUCCESS) return !case_failed(s, &rec, key, st);
    }
    check(s, c, count, &rec);
    report_record(s, &rec);
  }

  if (cfg->apis & API_HOST) {
    bench_record host;
    case_record(s, &host, op, op, "libclsort", c->type, c->n);
    snprintf(host.api, sizeof host.api, "host");
    snprintf(host.timing, sizeof host.timing, "wall");
    report_progress(s, "%s %s n=%s: libclsort host arrays", op, kt_name(c->type), n_text);
    memset(c->h_out, 0, c->out_bytes);
    st = measure(s, run_host_api, c, &host);
    if (st != CLSORT_SUCCESS) return !case_failed(s, &host, key, st);
    record_set_throughput(&host, bytes);
    check(s, c, c->h_count, &host);
    report_record(s, &host);
  }

  if ((cfg->peers & (1u << PEER_CLOOP)) && c->kind != PRIM_BUCKET_OFFSETS) {
    bench_record peer;
    case_record(s, &peer, op, "c-loop", "peer", c->type, c->n);
    snprintf(peer.api, sizeof peer.api, "host");
    snprintf(peer.timing, sizeof peer.timing, "wall");
    report_progress(s, "%s %s n=%s: c-loop", op, kt_name(c->type), n_text);
    memset(c->h_out, 0, c->out_bytes);
    st = measure(s, run_cloop, c, &peer);
    if (st == CLSORT_SUCCESS) {
      peer.first_ms = -1.0; /* no build step: the first call means nothing here */
      record_set_throughput(&peer, bytes);
      check(s, c, c->h_count, &peer);
      report_set_ratio(s, &peer);
      report_record(s, &peer);
    }
  }
  return 1;
}

void bench_primitives(bench_state *s) {
  const bench_config *cfg = s->cfg;
  for (int p = 0; p < PRIM_COUNT_; p++) {
    if (!(cfg->primitives & (1u << p))) continue;
    /* Bucket indices are always u32: one pass of sizes, whatever --types. */
    unsigned types = p == PRIM_BUCKET_OFFSETS ? 1u << KT_U32 : cfg->types;
    /* The 8- and 16-bit types are benchmarked as sort keys only. */
    for (int t = 0; t < KT_WIDE_COUNT_; t++) {
      if (!(types & (1u << t))) continue;
      for (size_t i = 0; i < cfg->num_sizes; i++) {
        prim_case c;
        memset(&c, 0, sizeof c);
        c.kind = (prim_kind)p;
        c.type = (key_type)t;
        c.n = (size_t)cfg->sizes[i];
        int go_on = run_case(s, &c);
        free_case(&c);
        if (!go_on) break;
      }
    }
  }
}
