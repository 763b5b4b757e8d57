/* record.h: one benchmark measurement, and its JSON-lines form, which the
 * tool, the peers, `clsort report` and plot.sh all share. Pure C. */
#ifndef BENCH_RECORD_H
#define BENCH_RECORD_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* verified: */
#define REC_VERIFY_FAILED 0
#define REC_VERIFY_OK 1
#define REC_VERIFY_SKIPPED (-1) /* --no-verify: written as null */

typedef struct bench_record {
  char device[128];
  char run[32];          /* identifies one `clsort bench` invocation */
  char version[16];      /* libclsort version, empty for peers run alone */
  char op[32];           /* what was computed: "scan-exclusive", "compact", "sort", ... */
  char algorithm[32];    /* who computed it: "scan-exclusive", "radix", "cub-radix", "qsort" */
  char impl[16];         /* "libclsort" or "peer" */
  char type[8];          /* key or element type */
  int pairs;             /* sorts: 1 when values travel with the keys */
  unsigned value_size;   /* bytes per value for pairs, else 0 */
  char distribution[16]; /* key distribution; "uniform" for the primitives */
  char api[8];           /* "device" (buffers), "host" (host arrays, blocking) or "pinned" */
  char timing[16];       /* "event", "fill-bracket", "wall" or "cuda-event" */
  char status[16];       /* "ok", "failed" (verification), "error", "skipped" */
  uint64_t n;
  unsigned runs, warmup;
  double median_ms, min_ms, max_ms;
  double mean_ms;        /* < 0: absent (records of older runs) */
  double wall_median_ms; /* < 0: absent */
  double first_ms;       /* first call including program builds; < 0: absent */
  double mkeys_per_s, gb_per_s;
  int verified;          /* REC_VERIFY_* */
  double ratio;          /* peer time / libclsort time of the same case; < 0: absent */
  double lib_ms;         /* the libclsort median behind ratio */
  char ratio_vs[48];     /* the libclsort algorithm behind ratio */
  uint64_t seed;
  char note[160];
} bench_record;

/* A record with every optional field absent and the strings empty. */
void record_init(bench_record *r);

/* Sets mkeys_per_s from n and median_ms, and gb_per_s from `bytes` (the
 * bytes the operation must move at least; 0 leaves it 0). */
void record_set_throughput(bench_record *r, double bytes);

/* Writes the record as one JSON object on one line. */
void record_write_json(FILE *out, const bench_record *r);

/* Parses one JSON line written by record_write_json (or by a peer in the
 * same format); unknown keys are ignored. Returns 1 on success. */
int record_parse_json(const char *line, bench_record *r);

#ifdef __cplusplus
}
#endif
#endif
