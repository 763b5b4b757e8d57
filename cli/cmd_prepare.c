/* cmd_prepare.c: `clsort prepare`: fills the disk cache of compiled kernels
 * for a device ahead of time (clsort_prepare for each kind of call), so
 * that later processes start without compiling. */
#include "bench.h"
#include "cli.h"

#include <string.h>

static const char usage[] =
    "usage: clsort prepare [options]\n"
    "\n"
    "Compiles, or loads from the disk cache, every kernel that the chosen kinds\n"
    "of call use on one device, for any input size, and leaves them in the cache\n"
    "(CLSORT_CACHE_DIR, else $XDG_CACHE_HOME/clsort, else ~/.cache/clsort; on PoCL,\n"
    "PoCL's own: POCL_CACHE_DIR, else ~/.cache/pocl/kcache), so that\n"
    "later programs on that device start without compiling. Each item runs its\n"
    "call once on trial data. Progress goes to stderr, one line per item, then a\n"
    "summary on stdout: items, seconds, cache folder. Defaults: everything (minutes on a\n"
    "CPU device).\n"
    "\n"
    "options:\n"
    "  --device SPEC       P:D, gpu, cpu or part of the device name (default:\n"
    "                      $CLSORT_DEVICE, else the library's default device)\n"
    "  --types LIST        u32,i32,f32,u64,i64,f64 or all (those six),\n"
    "                      and u8,i8,u16,i16,f16,bf16 (default all)\n"
    "  --algorithms LIST   auto,radix,bitonic,sample,merge,quick, all or none\n"
    "                      (default all: every algorithm but auto, which picks\n"
    "                      among radix and bitonic)\n"
    "  --data LIST         keys,pairs,argsort or all (default all)\n"
    "  --value-size LIST   4,8: bytes per value (pairs) and per index (argsort)\n"
    "                      (default 4,8)\n"
    "  --primitives LIST   scan,reduce,compact (with split),bucket-offsets, all\n"
    "                      or none (default all; compact for element sizes 1, 2,\n"
    "                      4, 8 and 16, bucket offsets for u32 and u64 offsets)\n"
    "\n"
    "Algorithms that cannot take a combination are skipped and counted as such.\n"
    "Exit status: 0 when every item was prepared or skipped; 1 when one failed\n"
    "(the others still run) or the device cannot be opened; 2 on a bad command\n"
    "line.\n";

enum { D_KEYS = 1, D_PAIRS = 2, D_ARGSORT = 4 };
enum { P_SCAN = 1, P_REDUCE = 2, P_COMPACT = 4, P_BUCKETS = 8, P_ALL = 15 };
enum { L_TYPES, L_ALGOS, L_DATA, L_SIZES, L_PRIMS };

typedef struct list_ctx {
  unsigned mask;
  int kind;
} list_ctx;

static int add_named(const char *item, const char *const *names, size_t count, unsigned *mask) {
  for (size_t i = 0; i < count; i++) {
    if (names[i] && strcmp(item, names[i]) == 0) {
      *mask |= 1u << i;
      return 1;
    }
  }
  return 0;
}

static int add_item(const char *item, void *user) {
  static const char *const data[] = {"keys", "pairs", "argsort"};
  static const char *const prims[] = {"scan", "reduce", "compact", "bucket-offsets"};
  list_ctx *l = user;
  int all = strcmp(item, "all") == 0;
  if (strcmp(item, "none") == 0 && (l->kind == L_ALGOS || l->kind == L_PRIMS)) {
    l->mask = 0;
    return 1;
  }
  switch (l->kind) {
    case L_TYPES: {
      key_type t;
      if (all) l->mask = (1u << KT_WIDE_COUNT_) - 1;
      else if (kt_parse(item, &t)) l->mask |= 1u << t;
      else return 0;
      return 1;
    }
    case L_ALGOS: {
      clsort_algorithm a;
      if (all) l->mask |= ((1u << ALGO_COUNT) - 1) & ~(1u << CLSORT_AUTO);
      else if (cli_parse_algorithm(item, &a)) l->mask |= 1u << a;
      else return 0;
      return 1;
    }
    case L_DATA:
      if (all) l->mask = D_KEYS | D_PAIRS | D_ARGSORT;
      else return add_named(item, data, 3, &l->mask);
      return 1;
    case L_SIZES:
      if (strcmp(item, "4") == 0) l->mask |= 4;
      else if (strcmp(item, "8") == 0) l->mask |= 8;
      else return 0;
      return 1;
    default:
      if (all) l->mask = P_ALL;
      else if (strcmp(item, "split") == 0) l->mask |= P_COMPACT;
      else return add_named(item, prims, 4, &l->mask);
      return 1;
  }
}

typedef struct prepare_stats {
  unsigned done, skipped, failed, total;
} prepare_stats;

/* Prepares one item and prints its line. */
static void item(clsort_context *ctx, prepare_stats *s, clsort_operation op, clsort_type type,
                 size_t size, clsort_algorithm algorithm, const char *label) {
  clsort_options o = CLSORT_OPTIONS_DEFAULT;
  o.algorithm = algorithm;
  s->total++;
  fprintf(stderr, "clsort prepare: [%u] %s ... ", s->total, label);
  fflush(stderr);
  double t0 = wall_ms();
  clsort_status st = clsort_prepare(ctx, op, type, size, &o);
  double ms = wall_ms() - t0;
  if (st == CLSORT_SUCCESS) {
    s->done++;
    fprintf(stderr, "%.1f s\n", ms / 1e3);
  } else if (st == CLSORT_ERROR_UNSUPPORTED) {
    s->skipped++;
    fprintf(stderr, "skipped: %s\n", clsort_last_error_message());
  } else {
    s->failed++;
    fprintf(stderr, "FAILED: %s (%s): %s\n", clsort_status_string(st), clsort_status_name(st),
            clsort_last_error_message());
  }
}

int cmd_prepare(int argc, char **argv) {
  const char *device = NULL;
  unsigned types = (1u << KT_WIDE_COUNT_) - 1;
  unsigned algorithms = ((1u << ALGO_COUNT) - 1) & ~(1u << CLSORT_AUTO);
  unsigned data = D_KEYS | D_PAIRS | D_ARGSORT, sizes = 4 | 8, prims = P_ALL;
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(usage, stdout);
      return EXIT_OK;
    }
  }
  for (int i = 1; i < argc; i++) {
    static const struct {
      const char *name;
      int kind;
    } lists[] = {{"--types", L_TYPES},
                 {"--algorithms", L_ALGOS},
                 {"--data", L_DATA},
                 {"--value-size", L_SIZES},
                 {"--primitives", L_PRIMS}};
    unsigned *masks[] = {&types, &algorithms, &data, &sizes, &prims};
    const char *v = NULL;
    int r = cli_value("prepare", argc, argv, &i, "--device", &v);
    if (r < 0) return EXIT_USAGE;
    if (r > 0) {
      device = v;
      continue;
    }
    size_t k = 0;
    for (; k < sizeof lists / sizeof lists[0]; k++) {
      r = cli_value("prepare", argc, argv, &i, lists[k].name, &v);
      if (r != 0) break;
    }
    if (r < 0) return EXIT_USAGE;
    if (r == 0) return cli_usage_error("prepare", "unknown argument '%s'", argv[i]);
    list_ctx l = {0, lists[k].kind};
    if (!parse_list(v, add_item, &l) || (l.mask == 0 && lists[k].kind != L_ALGOS &&
                                          lists[k].kind != L_PRIMS))
      return cli_usage_error("prepare", "bad %s list '%s'", lists[k].name, v);
    *masks[k] = l.mask;
  }

  clsort_context *ctx = NULL;
  clsort_status st = clsort_context_create(&ctx, device);
  if (st != CLSORT_SUCCESS) {
    fprintf(stderr, "clsort prepare: cannot open device '%s': %s: %s\n",
            device ? device : "(default)", clsort_status_string(st), clsort_last_error_message());
    return EXIT_FAILED;
  }
  const char *dir = clsort_context_cache_dir(ctx);
  fprintf(stderr, "clsort prepare: %s, cache %s\n", clsort_context_device_name(ctx),
          dir ? dir : "off (CLSORT_CACHE=0): nothing will be kept");
  prepare_stats s = {0, 0, 0, 0};
  double t0 = wall_ms();
  char label[160];
  for (int t = 0; t < KT_COUNT_; t++) {
    if (!(types & (1u << t))) continue;
    const char *tn = kt_name((key_type)t);
    for (int a = 0; a < ALGO_COUNT; a++) {
      if (!(algorithms & (1u << a))) continue;
      const char *an = algo_name((clsort_algorithm)a);
      if (data & D_KEYS) {
        snprintf(label, sizeof label, "sort %s keys, %s", tn, an);
        item(ctx, &s, CLSORT_OP_SORT, (clsort_type)t, 0, (clsort_algorithm)a, label);
      }
      for (unsigned size = 4; size <= 8; size += 4) {
        if (!(sizes & size)) continue;
        if (data & D_PAIRS) {
          snprintf(label, sizeof label, "sort %s keys with %u-byte values, %s", tn, size, an);
          item(ctx, &s, CLSORT_OP_SORT_PAIRS, (clsort_type)t, size, (clsort_algorithm)a, label);
        }
        if (data & D_ARGSORT) {
          snprintf(label, sizeof label, "argsort %s keys to %u-byte indices, %s", tn, size, an);
          item(ctx, &s, CLSORT_OP_ARGSORT, (clsort_type)t, size, (clsort_algorithm)a, label);
        }
      }
    }
    if (prims & P_SCAN) {
      snprintf(label, sizeof label, "scan %s", tn);
      item(ctx, &s, CLSORT_OP_SCAN, (clsort_type)t, 0, CLSORT_AUTO, label);
    }
    if (prims & P_REDUCE) {
      snprintf(label, sizeof label, "reduce %s", tn);
      item(ctx, &s, CLSORT_OP_REDUCE, (clsort_type)t, 0, CLSORT_AUTO, label);
    }
  }
  /* The primitives whose kernels depend on a size rather than a key type. */
  for (size_t size = 1; size <= 16 && (prims & P_COMPACT); size *= 2) {
    snprintf(label, sizeof label, "compact and split, %zu-byte elements", size);
    item(ctx, &s, CLSORT_OP_COMPACT, CLSORT_U32, size, CLSORT_AUTO, label);
  }
  for (int wide = 0; wide < 2 && (prims & P_BUCKETS); wide++) {
    snprintf(label, sizeof label, "bucket offsets, %s offsets", wide ? "u64" : "u32");
    item(ctx, &s, CLSORT_OP_BUCKET_OFFSETS, wide ? CLSORT_U64 : CLSORT_U32, 0, CLSORT_AUTO, label);
  }
  double seconds = (wall_ms() - t0) / 1e3;
  printf("clsort prepare: %u item%s in %.1f s: %u prepared, %u skipped, %u failed; %s%s\n",
          s.total, s.total == 1 ? "" : "s", seconds, s.done, s.skipped, s.failed,
          dir ? "cache folder " : "not cached: CLSORT_CACHE=0", dir ? dir : "");
  clsort_context_release(ctx);
  return s.failed ? EXIT_FAILED : EXIT_OK;
}
