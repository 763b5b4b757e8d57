/* summary.c: the libclsort-versus-peer table printed at the end of a run
 * and by `clsort report`, with the project's performance targets. */
#include "bench.h"

#include <string.h>

/* The targets the project has set (ratio = peer time / libclsort time, so
 * 0.8 means "libclsort reaches 80% of the peer's speed"). < 0: none. */
static double target_for(const bench_record *r) {
  int u32 = strcmp(r->type, "u32") == 0;
  if (strcmp(r->algorithm, "cub-scan") == 0 && strcmp(r->op, "scan-exclusive") == 0 && u32 &&
      r->n >= ((uint64_t)1 << 26))
    return 0.8;
  if (strcmp(r->algorithm, "cub-select") == 0 && strcmp(r->op, "compact") == 0 && u32 &&
      r->n >= ((uint64_t)1 << 26))
    return 0.7;
  /* On the CPU (PoCL) target the device scan must at least match a plain
   * single-threaded loop. */
  if (strcmp(r->algorithm, "c-loop") == 0 && strcmp(r->op, "scan-exclusive") == 0 && u32 &&
      r->n == ((uint64_t)1 << 24))
    return 1.0;
  return -1.0;
}

/* The GPU libraries libclsort is measured against, as opposed to the
 * host baselines whose ratios the table already shows. */
static int is_gpu_peer(const bench_record *r) {
  return strncmp(r->algorithm, "cub-", 4) == 0 || strncmp(r->algorithm, "boost-", 6) == 0;
}

unsigned report_summary(FILE *out, const bench_record *records, size_t count, const char *peer,
                        int key_rows_only, unsigned *rows_out) {
  unsigned missed = 0, rows = 0;
  for (size_t i = 0; i < count; i++) {
    const bench_record *r = &records[i];
    if (r->ratio < 0.0 || strcmp(r->impl, "peer") != 0) continue;
    if (peer && strncmp(r->algorithm, peer, strlen(peer)) != 0) continue;
    if (key_rows_only && !is_gpu_peer(r) && target_for(r) < 0.0) continue;
    if (rows++ == 0) {
      fprintf(out, "\nlibclsort vs peers (ratio = peer time / libclsort time; above 1: libclsort faster)\n");
      fprintf(out, "%-15s %-4s %-5s %-11s %6s %12s %-15s %12s %-15s %7s %s\n", "op", "type", "data",
              "dist", "n", "libclsort_ms", "(algorithm)", "peer_ms", "(peer)", "ratio", "target");
    }
    char n[24];
    int lg = log2_exact(r->n);
    if (lg >= 0) {
      snprintf(n, sizeof n, "2^%d", lg);
    } else {
      snprintf(n, sizeof n, "%llu", (unsigned long long)r->n);
    }
    char target[32] = "";
    double t = target_for(r);
    if (t >= 0.0) {
      int ok = r->ratio >= t;
      missed += !ok;
      snprintf(target, sizeof target, ">=%.2f %s", t, ok ? "met" : "MISSED");
    }
    int sort = strncmp(r->op, "sort", 4) == 0;
    fprintf(out, "%-15s %-4s %-5s %-11s %6s %12.4f %-15s %12.4f %-15s %7.2f %s\n", r->op, r->type,
            !sort ? "-" : r->pairs ? "pairs" : "keys", sort ? r->distribution : "-", n, r->lib_ms,
            r->ratio_vs, r->median_ms, r->algorithm, r->ratio, target);
  }
  if (rows_out) *rows_out = rows;
  return missed;
}
