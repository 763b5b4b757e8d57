/* bench.h: what the parts of `clsort bench` share: the configuration from
 * the command line, the run-time state, and the entry point of each part. */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include "clsort.h"
#include "keys.h"
#include "parse.h"
#include "record.h"
#include "stats.h"
#include "timing.h"

#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------ selection */
typedef enum prim_kind {
  PRIM_SCAN_EXCLUSIVE,
  PRIM_SCAN_INCLUSIVE,
  PRIM_REDUCE_SUM,
  PRIM_REDUCE_MIN,
  PRIM_REDUCE_MAX,
  PRIM_COMPACT,
  PRIM_SPLIT,
  PRIM_BUCKET_OFFSETS,
  PRIM_COUNT_
} prim_kind;

/* The op name of each primitive, as in the JSON "op" field. */
const char *prim_name(prim_kind p);

/* The operations beside the sorts (cases_ops.c). */
typedef enum ops_kind { OPS_MERGE, OPS_TOP_K, OPS_SELECT, OPS_SEGMENTED, OPS_COUNT_ } ops_kind;
/* "merge", "top-k", "select", "segmented". */
const char *ops_name(ops_kind o);

/* Sort algorithms, indexed by clsort_algorithm. */
#define ALGO_COUNT 6
const char *algo_name(clsort_algorithm a);

typedef enum peer_kind {
  PEER_CLOOP,        /* single-threaded C loops for the primitives */
  PEER_QSORT,        /* glibc qsort */
  PEER_SERIAL_RADIX, /* serial LSD radix sort */
  PEER_CUB,          /* clsort-cub-peer, a subprocess */
  PEER_BOOST,        /* clsort-boost-peer, a subprocess */
  PEER_CPU,          /* clsort-cpu-peer: std::sort and Boost.Sort, a subprocess */
  PEER_NUMPY,        /* numpy.sort: clsort-numpy-peer.py in a numpy >= 2 venv */
  PEER_COUNT_
} peer_kind;
const char *peer_name(peer_kind p);

#define DATA_KEYS 1u
#define DATA_PAIRS 2u
#define API_DEVICE 1u
#define API_HOST 2u
#define API_PINNED 4u /* host arrays from clsort_host_alloc (sorts only) */

typedef struct bench_config {
  const char *device_spec;
  uint64_t sizes[PARSE_MAX_SIZES]; /* primitives */
  size_t num_sizes;
  uint64_t sort_sizes[PARSE_MAX_SIZES];
  size_t num_sort_sizes;
  int sort_sizes_given; /* --sort-sizes given: --sizes no longer sets them */
  unsigned types;       /* bit per key_type */
  unsigned primitives;  /* bit per prim_kind */
  unsigned ops;         /* bit per ops_kind */
  unsigned algorithms;  /* bit per clsort_algorithm */
  unsigned data;        /* DATA_* */
  unsigned distributions; /* bit per gen_dist */
  unsigned peers;       /* bit per peer_kind */
  unsigned peers_required; /* peers named explicitly: missing ones are an error */
  unsigned apis;        /* API_* */
  unsigned runs, warmup;
  double max_case_seconds;
  int verify;
  int descending, stable;
  double keep;          /* fraction of flags set for compact/split */
  uint64_t top_ks[8];   /* --top-k: top-k's k values (none given: 1, 100, 10000) */
  size_t num_top_ks;
  unsigned buckets;     /* bucket-offsets: number of buckets */
  size_t bucket_tile;   /* bucket-offsets: tile size */
  unsigned value_size;  /* bytes per value for pairs */
  unsigned host_peer_max_log2; /* qsort/serial-radix only up to 2^this */
  uint64_t seed;
  const char *json_path;
  int quiet;
  int quick;
  const char *experiment; /* --experiment's name, or NULL */
  void (*on_context)(clsort_context *ctx); /* called on the new context, if set */
} bench_config;

/* ---------------------------------------------------------------- state */
typedef struct bench_state {
  const bench_config *cfg;
  clsort_context *ctx;
  cl_context cl_ctx;
  cl_command_queue queue;
  cl_device_id device;
  cl_timer timer;
  char device_name[128];
  unsigned platform_index, device_index; /* the device's P:D, for subprocess peers */
  unsigned compute_units;                /* threads of the parallel CPU peers */
  cl_ulong global_mem, max_alloc;
  int has_fp64;
  FILE *json;
  char run_id[32];

  bench_record *records; /* everything measured in this run, for ratios and the summary */
  size_t num_records, cap_records;

  /* Combinations already found unsupported or too large, so that each is
   * reported once instead of once per size. */
  char (*skipped)[128];
  size_t num_skipped, cap_skipped;

  unsigned failures; /* verification failures */
  unsigned errors;   /* unexpected library or OpenCL errors */
  double started_ms;
} bench_state;

/* --------------------------------------------------------------- measure */
typedef struct sample {
  double device_ms; /* device time, or wall time for host code */
  double wall_ms;
} sample;

/* One timed run of the thing under test. Returns CLSORT_SUCCESS or the
 * failing status; sets *discard when the sample must not count. */
typedef clsort_status (*run_fn)(bench_state *s, void *user, sample *out, int *discard);

/* One timed run of a device-buffer call: `call` enqueues it and returns
 * its final event; out receives its device time (s->timer, from just
 * before the call to that event) and its wall time. */
typedef clsort_status (*device_call_fn)(bench_state *s, void *user, cl_event *final);
clsort_status time_device_call(bench_state *s, device_call_fn call, void *user, sample *out,
                               int *discard);

/* Warm-up runs, then cfg->runs timed runs (fewer, but at least 3, once a
 * case has used cfg->max_case_seconds). Fills the timing fields of rec:
 * runs, warmup, median/min/max/mean, wall median, first call. */
clsort_status measure(bench_state *s, run_fn fn, void *user, bench_record *rec);

/* A record for this run and device with the case's identity filled in. */
void case_record(bench_state *s, bench_record *rec, const char *op, const char *algorithm,
                 const char *impl, key_type type, uint64_t n);

/* After a case's library call failed with `st`: an unsupported
 * combination or one too large for the device is skipped (noted once per
 * `key`) and 1 returned; anything else counts as an error, printed and
 * recorded, and 0 returned. */
int case_failed(bench_state *s, const bench_record *rec, const char *key, clsort_status st);
/* Whether case_failed skipped `key` (sizes run in ascending order, so a
 * combination too large once stays too large). */
int case_skipped(const bench_state *s, const char *key);

/* --------------------------------------------------------------- memory */
/* Returns 1 when `total` bytes in buffers of at most `largest` bytes fit
 * the device (with headroom for the library's scratch), else 0. */
int fits_device(const bench_state *s, double total, double largest);
/* Returns 1 when `total` bytes fit comfortably in host memory. */
int fits_host(double total);

/* Reports "what" as skipped once per key (stderr note and a JSON record
 * with status "skipped"); later calls with the same key return silently.
 * Returns 1 when the key was new. */
int skip_once(bench_state *s, const char *key, const bench_record *rec, const char *why);
/* Whether skip_once has seen `key`. */
int was_skipped(const bench_state *s, const char *key);

/* --------------------------------------------------------------- output */
/* Prints the table header (stdout). */
void report_header(void);
/* Stores the record, prints its row and writes its JSON line. */
void report_record(bench_state *s, const bench_record *rec);
/* Writes a record that is not a measurement (skipped) to the JSON file. */
void report_json_only(bench_state *s, const bench_record *rec);
/* Fills rec's ratio from the libclsort record of the same case, if any:
 * the "auto" algorithm when measured, else the fastest one. */
void report_set_ratio(const bench_state *s, bench_record *rec);
/* Progress line on stderr (only on a terminal, unless --quiet). */
void report_progress(const bench_state *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Clears the progress line. */
void report_progress_done(const bench_state *s);

/* The peer comparison table: for each peer record with a ratio, the case,
 * the libclsort and peer medians, the ratio and, where one is set, the
 * performance target. `peer` filters by peer algorithm prefix (NULL: all);
 * key_rows_only keeps the GPU peers and the rows with a target. Returns
 * the number of targets missed; *rows (if not NULL) the rows printed. */
unsigned report_summary(FILE *out, const bench_record *records, size_t count, const char *peer,
                        int key_rows_only, unsigned *rows);

/* ---------------------------------------------------------------- parts */
/* Runs the benchmark that cfg describes (the clsort tool parses it from
 * the command line): opens the device, runs the parts below and prints the
 * summary. Returns 1 when every output verified and nothing failed, else 0
 * (after saying why on stderr). */
int bench_run(const bench_config *cfg);
void bench_primitives(bench_state *s);
void bench_sorts(bench_state *s);
/* Merge, top-k, select and segmented sort at --sort-sizes, each beside a
 * plain C reference that checks it. */
void bench_ops(bench_state *s);
/* Runs the subprocess peers selected in cfg (after the context is freed).
 * Returns 0 when a required peer could not run. */
int bench_subprocess_peers(bench_state *s);
/* Whether a subprocess peer's executable can be found; path receives it
 * (for numpy: the script; numpy_python finds the interpreter). */
int peer_executable(peer_kind p, char *path, size_t cap);
/* The python of the numpy peer: $CLSORT_NUMPY_PYTHON, else the virtual
 * environment scripts/install-deps --numpy makes
 * ($XDG_CACHE_HOME or ~/.cache, /clsort/numpy-venv/bin/python). */
int numpy_python(char *path, size_t cap);
/* The environment variable that names a subprocess peer's path. */
const char *peer_env(peer_kind p);

/* Sets the program's path, for finding the peers next to it. */
void bench_set_argv0(const char *argv0);

#endif
