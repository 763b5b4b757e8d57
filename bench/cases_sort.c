/* cases_sort.c: the sort benchmarks: every libclsort algorithm on device
 * buffers (and host arrays), then qsort and the serial radix sort, over
 * types x keys/pairs x distributions x sizes, each output verified. */
#include "bench.h"
#include "devmem.h"
#include "gen.h"
#include "host_algos.h"
#include "verify.h"

#include <stdlib.h>
#include <string.h>

/* The benchmark's key_type mirrors clsort_type so that it can be passed
 * straight to the library. */
_Static_assert(KT_U32 == (int)CLSORT_U32 && KT_I32 == (int)CLSORT_I32 && KT_F32 == (int)CLSORT_F32 &&
                   KT_U64 == (int)CLSORT_U64 && KT_I64 == (int)CLSORT_I64 &&
                   KT_F64 == (int)CLSORT_F64 && KT_U8 == (int)CLSORT_U8 && KT_I8 == (int)CLSORT_I8 &&
                   KT_U16 == (int)CLSORT_U16 && KT_I16 == (int)CLSORT_I16 &&
                   KT_F16 == (int)CLSORT_F16 && KT_BF16 == (int)CLSORT_BF16,
               "key_type must match clsort_type");

static const char *const algo_names[ALGO_COUNT] = {"auto", "radix", "bitonic",
                                                   "sample", "merge", "quick"};

const char *algo_name(clsort_algorithm a) {
  return (unsigned)a < ALGO_COUNT ? algo_names[a] : "?";
}

typedef struct sort_case {
  key_type type;
  gen_dist dist;
  int pairs;
  size_t vs; /* value size, 0 for keys only */
  size_t n;
  size_t key_bytes, val_bytes;
  void *keys_in, *vals_in; /* the pristine input */
  void *keys, *vals;       /* work arrays: host runs sort them, device runs land here */
  void *tmp_keys, *tmp_vals;
  cl_mem d_keys, d_vals, d_keys0, d_vals0; /* work and pristine copies (NULL: restore from host) */
  clsort_options options;
  key_hash input_hash;
  peer_kind peer; /* for run_host_peer */
} sort_case;

/* ------------------------------------------------------------- the runs */
static clsort_status restore_device(bench_state *s, sort_case *c) {
  clsort_status st;
  if (c->d_keys0) {
    st = dev_copy(s, c->d_keys0, c->d_keys, c->key_bytes);
    if (st == CLSORT_SUCCESS && c->pairs) st = dev_copy(s, c->d_vals0, c->d_vals, c->val_bytes);
  } else {
    st = dev_write(s, c->d_keys, c->keys_in, c->key_bytes);
    if (st == CLSORT_SUCCESS && c->pairs) st = dev_write(s, c->d_vals, c->vals_in, c->val_bytes);
  }
  return st;
}

static clsort_status call_sort_buffer(bench_state *s, void *user, cl_event *final) {
  sort_case *c = user;
  return clsort_sort_buffer(s->ctx, (clsort_type)c->type, c->d_keys, c->pairs ? c->d_vals : NULL,
                            c->vs, c->n, &c->options, 0, NULL, final);
}

static clsort_status run_buffer(bench_state *s, void *user, sample *out, int *discard) {
  sort_case *c = user;
  /* The input is restored before the leading fill, so the copy is never
   * part of the measured span. */
  clsort_status st = restore_device(s, c);
  if (st != CLSORT_SUCCESS) return st;
  return time_device_call(s, call_sort_buffer, c, out, discard);
}

static void restore_host(sort_case *c) {
  memcpy(c->keys, c->keys_in, c->key_bytes);
  if (c->pairs) memcpy(c->vals, c->vals_in, c->val_bytes);
}

static clsort_status run_host_api(bench_state *s, void *user, sample *out, int *discard) {
  sort_case *c = user;
  *discard = 0;
  restore_host(c);
  double t0 = wall_ms();
  clsort_status st =
      c->pairs ? clsort_sort_pairs(s->ctx, (clsort_type)c->type, c->keys, c->vals, c->vs, c->n,
                                   &c->options)
               : clsort_sort(s->ctx, (clsort_type)c->type, c->keys, c->n, &c->options);
  out->wall_ms = out->device_ms = wall_ms() - t0;
  return st;
}

static clsort_status run_host_peer(bench_state *s, void *user, sample *out, int *discard) {
  sort_case *c = user;
  int desc = s->cfg->descending;
  *discard = 0;
  restore_host(c);
  double t0 = wall_ms();
  if (c->peer == PEER_QSORT) {
    if (c->pairs) {
      host_qsort_pairs(c->type, c->keys, c->vals, c->vs, c->n, desc, c->tmp_keys);
    } else {
      host_qsort_keys(c->type, c->keys, c->n, desc);
    }
  } else if (c->pairs) {
    host_radix_pairs(c->type, c->keys, c->vals, c->vs, c->tmp_keys, c->tmp_vals, c->n, desc);
  } else {
    host_radix_keys(c->type, c->keys, c->tmp_keys, c->n, desc);
  }
  out->wall_ms = out->device_ms = wall_ms() - t0;
  return CLSORT_SUCCESS;
}

/* --------------------------------------------------------- verification */
static void check(bench_state *s, const sort_case *c, int stable, bench_record *rec) {
  char why[200] = "";
  if (!s->cfg->verify) {
    rec->verified = REC_VERIFY_SKIPPED;
    return;
  }
  int ok = c->pairs ? verify_sort_pairs(c->type, c->keys_in, c->keys, c->vals, c->vs, c->n,
                                        s->cfg->descending, stable, why, sizeof why)
                    : verify_sort_keys(c->type, c->keys, c->n, s->cfg->descending, c->input_hash,
                                       why, sizeof why);
  rec->verified = ok ? REC_VERIFY_OK : REC_VERIFY_FAILED;
  if (!ok) {
    s->failures++;
    snprintf(rec->status, sizeof rec->status, "failed");
    snprintf(rec->note, sizeof rec->note, "%s", why);
    report_progress_done(s);
    fprintf(stderr, "VERIFY FAILED: %s %s %s %s %s n=%llu: %s\n", rec->algorithm, rec->op,
            rec->type, c->pairs ? "pairs" : "keys", rec->distribution, (unsigned long long)c->n,
            why);
  }
}

/* ---------------------------------------------------------------- cases */
static void free_case(sort_case *c) {
  free(c->keys_in);
  free(c->vals_in);
  free(c->keys);
  free(c->vals);
  free(c->tmp_keys);
  free(c->tmp_vals);
  dev_free(&c->d_keys);
  dev_free(&c->d_vals);
  dev_free(&c->d_keys0);
  dev_free(&c->d_vals0);
}

static const char *sort_op(const bench_config *cfg) {
  return cfg->descending ? "sort-descending" : "sort";
}

static void sort_record(bench_state *s, bench_record *rec, const sort_case *c, const char *alg,
                        const char *impl) {
  case_record(s, rec, sort_op(s->cfg), alg, impl, c->type, c->n);
  rec->pairs = c->pairs;
  rec->value_size = (unsigned)c->vs;
  snprintf(rec->distribution, sizeof rec->distribution, "%s", gen_dist_name(c->dist));
}

/* Generates the case's input on the host. */
static clsort_status prepare_host(bench_state *s, sort_case *c) {
  const bench_config *cfg = s->cfg;
  c->keys_in = malloc(c->key_bytes + 1);
  c->keys = malloc(c->key_bytes + 1);
  if (c->pairs) {
    c->vals_in = malloc(c->val_bytes + 1);
    c->vals = malloc(c->val_bytes + 1);
  }
  if (!c->keys_in || !c->keys || (c->pairs && (!c->vals_in || !c->vals)))
    return CLSORT_ERROR_OUT_OF_MEMORY;
  /* The seed ignores --descending and keys/pairs: every variant of a case
   * sorts the same keys, and so do the peers. */
  uint64_t seed = gen_case_seed(cfg->seed, "sort", c->type, (int)c->dist, c->n);
  gen_keys(c->type, c->dist, c->keys_in, c->n, seed);
  if (c->pairs) gen_index_values(c->vals_in, c->vs, c->n);
  if (cfg->verify && !c->pairs) c->input_hash = verify_hash_keys(c->type, c->keys_in, c->n);
  return CLSORT_SUCCESS;
}

/* Uploads the input; keeps a pristine device copy when memory allows, so
 * that restoring between runs is a device copy, not a host transfer. */
static clsort_status prepare_device(bench_state *s, sort_case *c) {
  double data = (double)(c->key_bytes + c->val_bytes);
  clsort_status st;
  if ((st = dev_alloc(s, c->key_bytes, &c->d_keys)) != CLSORT_SUCCESS) return st;
  if (c->pairs && (st = dev_alloc(s, c->val_bytes, &c->d_vals)) != CLSORT_SUCCESS) return st;
  /* The library's double buffers take about as much again as the data. */
  if (fits_device(s, 4.0 * data, (double)c->key_bytes)) {
    int ok = dev_alloc(s, c->key_bytes, &c->d_keys0) == CLSORT_SUCCESS &&
             dev_write(s, c->d_keys0, c->keys_in, c->key_bytes) == CLSORT_SUCCESS;
    if (ok && c->pairs) {
      ok = dev_alloc(s, c->val_bytes, &c->d_vals0) == CLSORT_SUCCESS &&
           dev_write(s, c->d_vals0, c->vals_in, c->val_bytes) == CLSORT_SUCCESS;
    }
    if (!ok) {
      /* Not fatal: the runs restore from the host instead. */
      dev_free(&c->d_keys0);
      dev_free(&c->d_vals0);
    }
  }
  return CLSORT_SUCCESS;
}

/* A host form of algorithm a on case c (the sort of c->keys and c->vals,
 * wherever they lie): measured, verified and reported as `api`. */
static void run_host_form(bench_state *s, sort_case *c, int a, const char *key, const char *api) {
  bench_record rec;
  sort_record(s, &rec, c, algo_name((clsort_algorithm)a), "libclsort");
  snprintf(rec.api, sizeof rec.api, "%s", api);
  snprintf(rec.timing, sizeof rec.timing, "wall");
  clsort_status st = measure(s, run_host_api, c, &rec);
  if (st != CLSORT_SUCCESS) {
    case_failed(s, &rec, key, st);
    return;
  }
  record_set_throughput(&rec, 0.0);
  check(s, c, s->cfg->stable, &rec);
  report_record(s, &rec);
}

/* The host form on arrays from clsort_host_alloc: the link reads and
 * writes them where they are, with no staging copy (GPUs). The case's work
 * arrays are swapped for the pinned ones while it runs. */
static void run_pinned_form(bench_state *s, sort_case *c, int a, const char *key) {
  void *keys = NULL, *vals = NULL;
  clsort_status st = clsort_host_alloc(s->ctx, c->key_bytes, &keys);
  if (st == CLSORT_SUCCESS && c->pairs) st = clsort_host_alloc(s->ctx, c->val_bytes, &vals);
  if (st != CLSORT_SUCCESS) {
    bench_record rec;
    sort_record(s, &rec, c, algo_name((clsort_algorithm)a), "libclsort");
    snprintf(rec.api, sizeof rec.api, "pinned");
    case_failed(s, &rec, key, st);
  } else {
    void *own_keys = c->keys, *own_vals = c->vals;
    c->keys = keys;
    c->vals = c->pairs ? vals : own_vals;
    run_host_form(s, c, a, key, "pinned");
    c->keys = own_keys;
    c->vals = own_vals;
  }
  clsort_host_free(s->ctx, vals);
  clsort_host_free(s->ctx, keys);
}

static void set_key(char *key, size_t cap, const char *alg, const sort_case *c) {
  snprintf(key, cap, "%s %s %s", alg, kt_name(c->type), c->pairs ? "pairs" : "keys");
}

/* Runs every libclsort algorithm on case c. */
static void run_library(bench_state *s, sort_case *c) {
  const bench_config *cfg = s->cfg;
  for (int a = 0; a < ALGO_COUNT; a++) {
    if (!(cfg->algorithms & (1u << a))) continue;
    char key[96];
    set_key(key, sizeof key, algo_name((clsort_algorithm)a), c);
    if (case_skipped(s, key)) continue;
    bench_record rec;
    sort_record(s, &rec, c, algo_name((clsort_algorithm)a), "libclsort");
    double data = (double)(c->key_bytes + c->val_bytes);
    if (!fits_device(s, 3.0 * data, (double)c->key_bytes)) {
      char big_key[128], why[160];
      snprintf(big_key, sizeof big_key, "%s (too large)", key);
      snprintf(why, sizeof why,
               "skipped for n >= %llu: needs about %.0f MiB of device memory (device: %.0f MiB, "
               "largest allocation %.0f MiB)",
               (unsigned long long)c->n, 3.0 * data / 1048576.0, (double)s->global_mem / 1048576.0,
               (double)s->max_alloc / 1048576.0);
      skip_once(s, big_key, &rec, why);
      continue;
    }
    c->options.algorithm = (clsort_algorithm)a;
    clsort_status st = CLSORT_SUCCESS;
    if (!c->d_keys) st = prepare_device(s, c);
    if (st != CLSORT_SUCCESS) {
      /* Without its buffers the case cannot run for any algorithm. */
      dev_free(&c->d_keys);
      dev_free(&c->d_vals);
      case_failed(s, &rec, key, st);
      return;
    }
    if (cfg->apis & API_DEVICE) {
      report_progress(s, "%s %s %s %s n=%llu", rec.algorithm, rec.type, c->pairs ? "pairs" : "keys",
                      rec.distribution, (unsigned long long)c->n);
      st = measure(s, run_buffer, c, &rec);
      if (st != CLSORT_SUCCESS) {
        case_failed(s, &rec, key, st);
        continue;
      }
      snprintf(rec.timing, sizeof rec.timing, "%s", timer_method(&s->timer));
      record_set_throughput(&rec, 0.0);
      if (cfg->verify) {
        st = dev_read(s, c->d_keys, c->keys, c->key_bytes);
        if (st == CLSORT_SUCCESS && c->pairs) st = dev_read(s, c->d_vals, c->vals, c->val_bytes);
        if (st != CLSORT_SUCCESS) {
          case_failed(s, &rec, key, st);
          continue;
        }
      }
      check(s, c, cfg->stable, &rec);
      report_record(s, &rec);
    }
    if (cfg->apis & API_HOST) run_host_form(s, c, a, key, "host");
    if (cfg->apis & API_PINNED) run_pinned_form(s, c, a, key);
  }
}

/* Runs qsort and the serial radix sort on case c. */
static void run_host_peers(bench_state *s, sort_case *c) {
  const bench_config *cfg = s->cfg;
  static const peer_kind peers[] = {PEER_QSORT, PEER_SERIAL_RADIX};
  if (c->n > ((uint64_t)1 << cfg->host_peer_max_log2)) return;
  if (!(cfg->peers & ((1u << PEER_QSORT) | (1u << PEER_SERIAL_RADIX)))) return;
  /* qsort of pairs packs 16-byte records; the radix sort needs a copy. */
  c->tmp_keys = malloc((c->pairs ? c->n * 16 : c->key_bytes) + 1);
  if (c->pairs) c->tmp_vals = malloc(c->val_bytes + 1);
  if (!c->tmp_keys || (c->pairs && !c->tmp_vals)) {
    fprintf(stderr, "note: host sort baselines skipped for n=%llu: out of host memory\n",
            (unsigned long long)c->n);
    return;
  }
  for (size_t i = 0; i < sizeof peers / sizeof peers[0]; i++) {
    if (!(cfg->peers & (1u << peers[i]))) continue;
    bench_record rec;
    sort_record(s, &rec, c, peer_name(peers[i]), "peer");
    snprintf(rec.api, sizeof rec.api, "host");
    snprintf(rec.timing, sizeof rec.timing, "wall");
    c->peer = peers[i];
    report_progress(s, "%s %s %s %s n=%llu", rec.algorithm, rec.type, c->pairs ? "pairs" : "keys",
                    rec.distribution, (unsigned long long)c->n);
    if (measure(s, run_host_peer, c, &rec) != CLSORT_SUCCESS) continue;
    rec.first_ms = -1.0;
    record_set_throughput(&rec, 0.0);
    /* glibc qsort is not stable; only the radix sort is held to it. */
    check(s, c, cfg->stable && peers[i] == PEER_SERIAL_RADIX, &rec);
    report_set_ratio(s, &rec);
    report_record(s, &rec);
  }
}

void bench_sorts(bench_state *s) {
  const bench_config *cfg = s->cfg;
  /* --algorithms none means no sorts at all, baselines included. */
  if (!cfg->algorithms) return;
  for (int t = 0; t < KT_COUNT_; t++) {
    if (!(cfg->types & (1u << t))) continue;
    for (int pairs = 0; pairs <= 1; pairs++) {
      if (!(cfg->data & (pairs ? DATA_PAIRS : DATA_KEYS))) continue;
      for (int d = 0; d < DIST_COUNT_; d++) {
        if (!(cfg->distributions & (1u << d))) continue;
        for (size_t i = 0; i < cfg->num_sort_sizes; i++) {
          sort_case c;
          memset(&c, 0, sizeof c);
          c.type = (key_type)t;
          c.dist = (gen_dist)d;
          c.pairs = pairs;
          c.vs = pairs ? cfg->value_size : 0;
          c.n = (size_t)cfg->sort_sizes[i];
          c.key_bytes = c.n * kt_size(c.type);
          c.val_bytes = c.n * c.vs;
          c.options.flags = (cfg->descending ? CLSORT_DESCENDING : 0u) |
                            (cfg->stable ? CLSORT_STABLE : 0u);
          /* Host arrays: input, work, scratch (pairs pack 16 bytes each). */
          double host = 3.0 * (double)(c.key_bytes + c.val_bytes) + (pairs ? 16.0 * (double)c.n : 0);
          if (!fits_host(host)) {
            char key[96], why[128];
            snprintf(key, sizeof key, "sorts %s %s (host memory)", kt_name(c.type),
                     pairs ? "pairs" : "keys");
            snprintf(why, sizeof why, "skipped for n >= %llu: needs %.0f MiB of host memory",
                     (unsigned long long)c.n, host / 1048576.0);
            skip_once(s, key, NULL, why);
            break;
          }
          report_progress(s, "sort %s %s %s n=%llu: generating", kt_name(c.type),
                          pairs ? "pairs" : "keys", gen_dist_name(c.dist), (unsigned long long)c.n);
          if (prepare_host(s, &c) != CLSORT_SUCCESS) {
            fprintf(stderr, "error: out of host memory for a sort case of n=%llu\n",
                    (unsigned long long)c.n);
            s->errors++;
            free_case(&c);
            break;
          }
          run_library(s, &c);
          run_host_peers(s, &c);
          free_case(&c);
        }
      }
    }
  }
}
