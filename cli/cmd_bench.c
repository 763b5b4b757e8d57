/* cmd_bench.c: `clsort bench`: its options, their presets (--quick,
 * --experiment) and defaults; bench_run (bench/run.c) does the run. */
#include "bench.h"
#include "cli.h"
#include "gen.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: clsort bench [options]\n"
    "\n"
    "Measures libclsort's primitives and sorts on one OpenCL device, next to\n"
    "host and GPU baselines, verifying every output. Prints a table on stdout\n"
    "(progress on stderr) and, with --json, one JSON object per measurement.\n"
    "\n"
    "options:\n"
    "  --device SPEC        device: P:D, gpu, cpu or part of its name (default:\n"
    "                       $CLSORT_DEVICE, else the library's default)\n"
    "  --quick              the short demo: scan and compact of 2^20 and 2^24 u32,\n"
    "                       radix sort of 2^20 u32 keys, host baselines\n"
    "  --experiment E       a published experiment, as docs/PERFORMANCE.md compares\n"
    "                       (bench/seed_tables.py prints the tables): u32 keys, every\n"
    "                       algorithm and every peer built, 10 runs, no primitives;\n"
    "                       the options after it still apply (--sort-sizes, --runs):\n"
    "                       seed000  Sinha 2010: 512, 10000 and 4194304 keys;\n"
    "                                uniform, gaussian, bucket, sorted, zero\n"
    "                       seed004  Munavalli 2012: 10M to 100M keys (decimal, step\n"
    "                                10M); uniform, gaussian, poisson, descending\n"
    "  --sizes LIST         primitive sizes: 10-28 (exponents), 16-28:2, 20,24,\n"
    "                       2^20, 1000, 3M (default 10-28; cases that do not fit\n"
    "                       the device are skipped)\n"
    "  --sort-sizes LIST    sort sizes (default: as --sizes)\n"
    "  --types LIST         u32,i32,f32,u64,i64,f64 or all (those six),\n"
    "                       and u8,i8,u16,i16,f16,bf16 (sorts only) (default u32,u64)\n"
    "  --primitives LIST    scan (exclusive), scan-inclusive, reduce (sum),\n"
    "                       reduce-min, reduce-max, compact, split, bucket-offsets,\n"
    "                       all or none (default scan,reduce,compact,split,\n"
    "                       bucket-offsets)\n"
    "  --ops LIST           merge, top-k (--top-k K,..: 1,100,10000), select,\n"
    "                       segmented (segments of 64, 65536, power-law), all\n"
    "                       or none (default none), at --sort-sizes, each beside a\n"
    "                       plain C reference that verifies it\n"
    "  --algorithms LIST    auto,radix,bitonic,sample,merge,quick, all or none\n"
    "                       (default: all but auto); unsupported ones are skipped\n"
    "  --data LIST          keys,pairs (default both)\n"
    "  --distributions LIST uniform,gaussian,bucket,sorted,zero,poisson,descending,\n"
    "                       few-unique,staggered or all (default uniform)\n"
    "  --peers LIST         c-loop,qsort,serial-radix,cub (with --api host also\n"
    "                       cub-radix@host: a pageable array, cudaMemcpy each way),\n"
    "                       boost-compute, cpu-sorts\n"
    "                       (std::sort, Boost's spreadsort, and block_indirect_sort\n"
    "                       and sample_sort on as many threads as the device has\n"
    "                       compute units), numpy (numpy.sort from a numpy >= 2\n"
    "                       venv, with and without its AVX-512 code, the faster\n"
    "                       reported; skipped with a note without one); host (the\n"
    "                       first three), all (those built) or none (default host)\n";
/* The rest, apart: C11 compilers need only take string literals of 4095
 * characters. */
static const char usage_more[] =
    "  --api LIST           device (buffers, profiling-event time), host (host\n"
    "                       arrays, wall time), pinned (sorts of host arrays from\n"
    "                       clsort_host_alloc, which the link reads without\n"
    "                       staging; wall time) or both (device,host) (default\n"
    "                       device)\n"
    "  --runs N             timed runs per case (default 10)\n"
    "  --warmup N           untimed runs first (default 2; at least 1 always runs)\n"
    "  --max-case-seconds S stop a case after S seconds of timed runs, once it has\n"
    "                       3 (default 30)\n"
    "  --host-peer-max K    run qsort and serial-radix only up to 2^K (default 24)\n"
    "  --no-verify          skip the output checks (for huge sizes)\n"
    "  --descending         sort largest first\n"
    "  --stable             ask for a stable sort and check stability\n"
    "  --value-size 4|8     bytes per value for pairs (default 4)\n"
    "  --keep F             fraction of elements compact/split keep (default 0.5)\n"
    "  --buckets B          bucket-offsets buckets (default 256)\n"
    "  --bucket-tile T      bucket-offsets tile size (default 4096)\n"
    "  --seed S             base seed of the generated data (default 1)\n"
    "  --json FILE          write the JSON lines to FILE\n"
    "  --quiet              no progress line\n"
    "\n"
    "Exit status: 0 when every output verified, 1 on a verification failure or\n"
    "error, 2 on a bad command line.\n";

/* ------------------------------------------------------------- lists */
typedef struct list_ctx {
  unsigned mask;
  unsigned required; /* peers named explicitly */
  int kind;
} list_ctx;

enum { L_TYPES, L_PRIMS, L_ALGOS, L_DATA, L_DISTS, L_PEERS, L_API, L_OPS };

static int add_item(const char *item, void *user) {
  list_ctx *l = user;
  if (strcmp(item, "none") == 0) {
    l->mask = 0;
    return 1;
  }
  switch (l->kind) {
    case L_TYPES: {
      key_type t;
      if (strcmp(item, "all") == 0) {
        l->mask = (1u << KT_WIDE_COUNT_) - 1;
        return 1;
      }
      if (!kt_parse(item, &t)) return 0;
      l->mask |= 1u << t;
      return 1;
    }
    case L_PRIMS: {
      if (strcmp(item, "all") == 0) {
        l->mask = (1u << PRIM_COUNT_) - 1;
        return 1;
      }
      if (strcmp(item, "scan") == 0) item = "scan-exclusive";
      if (strcmp(item, "reduce") == 0) item = "reduce-sum";
      for (int p = 0; p < PRIM_COUNT_; p++) {
        if (strcmp(item, prim_name((prim_kind)p)) == 0) {
          l->mask |= 1u << p;
          return 1;
        }
      }
      return 0;
    }
    case L_OPS: {
      if (strcmp(item, "all") == 0) {
        l->mask = (1u << OPS_COUNT_) - 1;
        return 1;
      }
      for (int o = 0; o < OPS_COUNT_; o++) {
        if (strcmp(item, ops_name((ops_kind)o)) == 0) {
          l->mask |= 1u << o;
          return 1;
        }
      }
      return 0;
    }
    case L_ALGOS: {
      if (strcmp(item, "all") == 0) {
        l->mask = (1u << ALGO_COUNT) - 1;
        return 1;
      }
      for (int a = 0; a < ALGO_COUNT; a++) {
        if (strcmp(item, algo_name((clsort_algorithm)a)) == 0) {
          l->mask |= 1u << a;
          return 1;
        }
      }
      return 0;
    }
    case L_DATA:
      if (strcmp(item, "keys") == 0) {
        l->mask |= DATA_KEYS;
      } else if (strcmp(item, "pairs") == 0) {
        l->mask |= DATA_PAIRS;
      } else if (strcmp(item, "all") == 0) {
        l->mask = DATA_KEYS | DATA_PAIRS;
      } else {
        return 0;
      }
      return 1;
    case L_DISTS: {
      gen_dist d;
      if (strcmp(item, "all") == 0) {
        l->mask = (1u << DIST_COUNT_) - 1;
        return 1;
      }
      if (!gen_dist_parse(item, &d)) return 0;
      l->mask |= 1u << d;
      return 1;
    }
    case L_PEERS: {
      if (strcmp(item, "host") == 0) {
        l->mask |= (1u << PEER_CLOOP) | (1u << PEER_QSORT) | (1u << PEER_SERIAL_RADIX);
        return 1;
      }
      if (strcmp(item, "all") == 0) {
        l->mask = (1u << PEER_COUNT_) - 1; /* only those found run */
        return 1;
      }
      if (strcmp(item, "boost") == 0) item = "boost-compute";
      for (int p = 0; p < PEER_COUNT_; p++) {
        if (strcmp(item, peer_name((peer_kind)p)) == 0) {
          l->mask |= 1u << p;
          l->required |= 1u << p;
          return 1;
        }
      }
      return 0;
    }
    default:
      if (strcmp(item, "device") == 0) {
        l->mask |= API_DEVICE;
      } else if (strcmp(item, "host") == 0) {
        l->mask |= API_HOST;
      } else if (strcmp(item, "pinned") == 0) {
        l->mask |= API_PINNED;
      } else if (strcmp(item, "both") == 0) {
        l->mask |= API_DEVICE | API_HOST;
      } else {
        return 0;
      }
      return 1;
  }
}

/* Parses a comma list into *mask; returns 0 after printing the error. */
static int parse_mask(const char *text, int kind, const char *what, unsigned *mask,
                      unsigned *required) {
  list_ctx l = {0, 0, kind};
  if (!parse_list(text, add_item, &l)) {
    cli_usage_error("bench", "bad %s list '%s'", what, text);
    return 0;
  }
  *mask = l.mask;
  if (required) *required = l.required;
  return 1;
}

/* One k of --top-k: a positive count, at most 8 of them. */
static int add_top_k(const char *item, void *user) {
  bench_config *cfg = user;
  uint64_t k;
  if (!parse_u64(item, &k) || k == 0 || cfg->num_top_ks == 8) return 0;
  cfg->top_ks[cfg->num_top_ks++] = k;
  return 1;
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Ascending and without repeats: a too-large size ends a sweep. */
static void sort_sizes(uint64_t *sizes, size_t *count) {
  qsort(sizes, *count, sizeof *sizes, compare_u64);
  size_t out = 0;
  for (size_t i = 0; i < *count; i++) {
    if (out == 0 || sizes[out - 1] != sizes[i]) sizes[out++] = sizes[i];
  }
  *count = out;
}

static void set_defaults(bench_config *cfg, int quick) {
  memset(cfg, 0, sizeof *cfg);
  char err[128];
  parse_sizes(quick ? "20,24" : "10-28", cfg->sizes, PARSE_MAX_SIZES, &cfg->num_sizes, err,
              sizeof err);
  parse_sizes(quick ? "20" : "10-28", cfg->sort_sizes, PARSE_MAX_SIZES, &cfg->num_sort_sizes, err,
              sizeof err);
  cfg->types = quick ? 1u << KT_U32 : (1u << KT_U32) | (1u << KT_U64);
  cfg->primitives = quick ? (1u << PRIM_SCAN_EXCLUSIVE) | (1u << PRIM_COMPACT)
                          : (1u << PRIM_SCAN_EXCLUSIVE) | (1u << PRIM_REDUCE_SUM) |
                                (1u << PRIM_COMPACT) | (1u << PRIM_SPLIT) |
                                (1u << PRIM_BUCKET_OFFSETS);
  /* "auto" is radix today; measuring it twice would only cost time. */
  cfg->algorithms = quick ? 1u << CLSORT_RADIX : ((1u << ALGO_COUNT) - 1) & ~(1u << CLSORT_AUTO);
  cfg->data = quick ? DATA_KEYS : DATA_KEYS | DATA_PAIRS;
  cfg->distributions = 1u << DIST_UNIFORM;
  cfg->peers = (1u << PEER_CLOOP) | (1u << PEER_QSORT) | (1u << PEER_SERIAL_RADIX);
  cfg->apis = API_DEVICE;
  cfg->runs = 10;
  cfg->warmup = quick ? 1 : 2;
  /* The demo must stay short on a 2-core CPU: qsort of 2^20 keys alone
   * takes a third of a second there. */
  cfg->max_case_seconds = quick ? 2.0 : 30.0;
  cfg->verify = 1;
  cfg->keep = 0.5;
  cfg->buckets = 256;
  cfg->bucket_tile = 4096;
  cfg->value_size = 4;
  cfg->host_peer_max_log2 = 24;
  cfg->seed = 1;
  cfg->quick = quick;
}

/* The experiments of the papers in docs/PERFORMANCE.md, "The seeds'
 * experiments": their sizes and distributions, with 32-bit keys. */
typedef struct experiment {
  const char *name;
  const char *sizes;
  unsigned distributions;
} experiment;

#define DIST_BIT(d) (1u << (d))
static const experiment experiments[] = {
    /* Sinha, "Sorting on CUDA" (2010): quicksort at 512 and 10,000 keys,
     * bitonic at 512 and 4,194,304, radix at 512. */
    {"seed000", "512,10000,4194304",
     DIST_BIT(DIST_UNIFORM) | DIST_BIT(DIST_GAUSSIAN) | DIST_BIT(DIST_BUCKET) |
         DIST_BIT(DIST_SORTED) | DIST_BIT(DIST_ZERO)},
    /* Munavalli, "Efficient Algorithms for Sorting on GPUs" (2012): sample
     * sort and Fine Sample Sort on a GTX 480, 10 runs per size. */
    {"seed004",
     "10000000,20000000,30000000,40000000,50000000,60000000,70000000,80000000,90000000,"
     "100000000",
     DIST_BIT(DIST_UNIFORM) | DIST_BIT(DIST_GAUSSIAN) | DIST_BIT(DIST_POISSON) |
         DIST_BIT(DIST_DESCENDING)},
};

/* Sets the experiment's defaults over set_defaults'; returns 0 for an
 * unknown name. */
static int set_experiment(bench_config *cfg, const char *name) {
  for (size_t i = 0; i < sizeof experiments / sizeof experiments[0]; i++) {
    const experiment *e = &experiments[i];
    if (strcmp(name, e->name) != 0) continue;
    char err[128];
    parse_sizes(e->sizes, cfg->sort_sizes, PARSE_MAX_SIZES, &cfg->num_sort_sizes, err, sizeof err);
    cfg->sort_sizes_given = 1;
    cfg->num_sizes = 0;
    cfg->primitives = 0;
    cfg->types = 1u << KT_U32;
    cfg->data = DATA_KEYS;
    cfg->distributions = e->distributions;
    /* Every algorithm this build has (the others are skipped as
     * unsupported), and every peer that was built. */
    cfg->algorithms = ((1u << ALGO_COUNT) - 1) & ~(1u << CLSORT_AUTO);
    cfg->peers = (1u << PEER_COUNT_) - 1;
    cfg->runs = 10;
    cfg->experiment = e->name;
    return 1;
  }
  return 0;
}

/* Returns EXIT_OK, or EXIT_USAGE after printing why. */
static int parse_options(int argc, char **argv, bench_config *cfg) {
  int quick = 0;
  const char *experiment = NULL;
  /* The presets first, so that every other option refines them. */
  for (int i = 1; i < argc; i++) {
    const char *v = NULL;
    int r;
    if (strcmp(argv[i], "--quick") == 0) {
      quick = 1;
    } else if ((r = cli_value("bench", argc, argv, &i, "--experiment", &v)) != 0) {
      if (r < 0) return EXIT_USAGE;
      experiment = v;
    }
  }
  if (quick && experiment) return cli_usage_error("bench", "--quick and --experiment exclude each other");
  set_defaults(cfg, quick);
  if (experiment && !set_experiment(cfg, experiment))
    return cli_usage_error("bench", "unknown experiment '%s' (seed000 or seed004)", experiment);
  for (int i = 1; i < argc; i++) {
    const char *v = NULL, *arg = argv[i];
    int r;
    char err[160];
    uint64_t u;
#define VALUE(name) ((r = cli_value("bench", argc, argv, &i, (name), &v)) != 0)
    if (strcmp(arg, "--quick") == 0) {
      continue;
    } else if (VALUE("--experiment")) {
      continue; /* applied above */
    } else if (strcmp(arg, "--no-verify") == 0) {
      cfg->verify = 0;
    } else if (strcmp(arg, "--descending") == 0) {
      cfg->descending = 1;
    } else if (strcmp(arg, "--stable") == 0) {
      cfg->stable = 1;
    } else if (strcmp(arg, "--quiet") == 0) {
      cfg->quiet = 1;
    } else if (VALUE("--device")) {
      if (r < 0) return EXIT_USAGE;
      cfg->device_spec = v;
    } else if (VALUE("--sizes")) {
      if (r < 0) return EXIT_USAGE;
      if (!parse_sizes(v, cfg->sizes, PARSE_MAX_SIZES, &cfg->num_sizes, err, sizeof err))
        return cli_usage_error("bench", "--sizes: %s", err);
      /* --sizes sets the sort sizes too, unless --sort-sizes says otherwise. */
      if (!cfg->sort_sizes_given) {
        memcpy(cfg->sort_sizes, cfg->sizes, sizeof cfg->sizes);
        cfg->num_sort_sizes = cfg->num_sizes;
      }
    } else if (VALUE("--sort-sizes")) {
      if (r < 0) return EXIT_USAGE;
      if (!parse_sizes(v, cfg->sort_sizes, PARSE_MAX_SIZES, &cfg->num_sort_sizes, err, sizeof err))
        return cli_usage_error("bench", "--sort-sizes: %s", err);
      cfg->sort_sizes_given = 1;
    } else if (VALUE("--types")) {
      if (r < 0 || !parse_mask(v, L_TYPES, "type", &cfg->types, NULL)) return EXIT_USAGE;
    } else if (VALUE("--primitives")) {
      if (r < 0 || !parse_mask(v, L_PRIMS, "primitive", &cfg->primitives, NULL)) return EXIT_USAGE;
    } else if (VALUE("--ops")) {
      if (r < 0 || !parse_mask(v, L_OPS, "operation", &cfg->ops, NULL)) return EXIT_USAGE;
    } else if (VALUE("--algorithms")) {
      if (r < 0 || !parse_mask(v, L_ALGOS, "algorithm", &cfg->algorithms, NULL)) return EXIT_USAGE;
    } else if (VALUE("--data")) {
      if (r < 0 || !parse_mask(v, L_DATA, "data", &cfg->data, NULL)) return EXIT_USAGE;
    } else if (VALUE("--distributions")) {
      if (r < 0 || !parse_mask(v, L_DISTS, "distribution", &cfg->distributions, NULL))
        return EXIT_USAGE;
    } else if (VALUE("--peers")) {
      if (r < 0 || !parse_mask(v, L_PEERS, "peer", &cfg->peers, &cfg->peers_required))
        return EXIT_USAGE;
    } else if (VALUE("--api")) {
      if (r < 0 || !parse_mask(v, L_API, "api", &cfg->apis, NULL)) return EXIT_USAGE;
    } else if (VALUE("--runs")) {
      if (r < 0) return EXIT_USAGE;
      if (!parse_u64(v, &u) || u < 1 || u > 1000)
        return cli_usage_error("bench", "--runs wants 1..1000, not '%s'", v);
      cfg->runs = (unsigned)u;
    } else if (VALUE("--warmup")) {
      if (r < 0) return EXIT_USAGE;
      if (!parse_u64(v, &u) || u > 100)
        return cli_usage_error("bench", "--warmup wants 0..100, not '%s'", v);
      cfg->warmup = (unsigned)u;
    } else if (VALUE("--top-k")) {
      if (r < 0) return EXIT_USAGE;
      if (!parse_list(v, add_top_k, cfg) || cfg->num_top_ks == 0)
        return cli_usage_error("bench", "--top-k wants up to 8 counts, not '%s'", v);
    } else if (VALUE("--max-case-seconds")) {
      if (r < 0) return EXIT_USAGE;
      if (!parse_double(v, &cfg->max_case_seconds) || cfg->max_case_seconds <= 0.0)
        return cli_usage_error("bench", "--max-case-seconds wants a positive number");
    } else if (VALUE("--host-peer-max")) {
      if (r < 0) return EXIT_USAGE;
      if (!parse_u64(v, &u) || u > 40)
        return cli_usage_error("bench", "--host-peer-max wants an exponent 0..40");
      cfg->host_peer_max_log2 = (unsigned)u;
    } else if (VALUE("--value-size")) {
      if (r < 0) return EXIT_USAGE;
      if (!parse_u64(v, &u) || (u != 4 && u != 8))
        return cli_usage_error("bench", "--value-size wants 4 or 8");
      cfg->value_size = (unsigned)u;
    } else if (VALUE("--keep")) {
      if (r < 0) return EXIT_USAGE;
      if (!parse_double(v, &cfg->keep) || cfg->keep < 0.0 || cfg->keep > 1.0)
        return cli_usage_error("bench", "--keep wants a fraction in [0, 1]");
    } else if (VALUE("--buckets")) {
      if (r < 0) return EXIT_USAGE;
      if (!parse_u64(v, &u) || u < 1 || u > 4096)
        return cli_usage_error("bench", "--buckets wants 1..4096");
      cfg->buckets = (unsigned)u;
    } else if (VALUE("--bucket-tile")) {
      if (r < 0) return EXIT_USAGE;
      if (!parse_u64(v, &u) || u < 1 || u > ((uint64_t)1 << 30))
        return cli_usage_error("bench", "--bucket-tile wants a positive size");
      cfg->bucket_tile = (size_t)u;
    } else if (VALUE("--seed")) {
      if (r < 0) return EXIT_USAGE;
      if (!parse_u64(v, &cfg->seed)) return cli_usage_error("bench", "--seed wants an integer");
    } else if (VALUE("--json")) {
      if (r < 0) return EXIT_USAGE;
      cfg->json_path = v;
    } else {
      return cli_usage_error("bench", "unknown argument '%s'", arg);
    }
#undef VALUE
  }
  sort_sizes(cfg->sizes, &cfg->num_sizes);
  sort_sizes(cfg->sort_sizes, &cfg->num_sort_sizes);
  if (!cfg->apis) return cli_usage_error("bench", "--api none leaves nothing to measure");
  return EXIT_OK;
}

int cmd_bench(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(usage, stdout);
      fputs(usage_more, stdout);
      return EXIT_OK;
    }
  }
  bench_config cfg;
  int rc = parse_options(argc, argv, &cfg);
  if (rc != EXIT_OK) return rc;
  cfg.on_context = cli_watch_builds;
  return bench_run(&cfg) ? EXIT_OK : EXIT_FAILED;
}
