/* report.c: the run's output: the table on stdout, the JSON lines, the
 * progress line on stderr, and the ratio of each peer to libclsort. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int is_sort_op(const char *op) { return strncmp(op, "sort", 4) == 0; }

/* "2^24" for powers of two, else the number. */
static void format_n(char *buf, size_t cap, uint64_t n) {
  int lg = log2_exact(n);
  if (lg >= 0) {
    snprintf(buf, cap, "2^%d", lg);
  } else {
    snprintf(buf, cap, "%llu", (unsigned long long)n);
  }
}

void report_header(void) {
  printf("%-15s %-19s %-4s %-5s %-11s %10s %10s %10s %10s %10s %8s %-4s %s\n", "op", "algorithm",
         "type", "data", "dist", "n", "median_ms", "min_ms", "max_ms", "Mkeys/s", "GB/s", "ok",
         "ratio");
  fflush(stdout);
}

static void print_row(const bench_record *r) {
  char n[24], ratio[64] = "";
  format_n(n, sizeof n, r->n);
  if (r->ratio >= 0.0) snprintf(ratio, sizeof ratio, "%.2f (vs %s)", r->ratio, r->ratio_vs);
  const char *ok = r->verified == REC_VERIFY_OK ? "yes" : r->verified == REC_VERIFY_FAILED ? "NO" : "-";
  const char *data = !is_sort_op(r->op) ? "-" : r->pairs ? "pairs" : "keys";
  char algorithm[40];
  /* The library's host-array calls are told apart from its buffer calls. */
  int library = strcmp(r->impl, "libclsort") == 0;
  snprintf(algorithm, sizeof algorithm, "%s%s", r->algorithm,
           !library                        ? ""
           : strcmp(r->api, "host") == 0   ? "@host"
           : strcmp(r->api, "pinned") == 0 ? "@pinned"
                                           : "");
  char gbps[16] = "-";
  if (r->gb_per_s > 0.0) snprintf(gbps, sizeof gbps, "%.2f", r->gb_per_s);
  printf("%-15s %-19s %-4s %-5s %-11s %10s %10.4f %10.4f %10.4f %10.1f %8s %-4s %s\n", r->op,
         algorithm, r->type, data, is_sort_op(r->op) ? r->distribution : "-", n, r->median_ms,
         r->min_ms, r->max_ms, r->mkeys_per_s, gbps, ok, ratio);
  fflush(stdout);
}

void report_json_only(bench_state *s, const bench_record *rec) {
  if (!s->json) return;
  record_write_json(s->json, rec);
  fflush(s->json);
}

void report_record(bench_state *s, const bench_record *rec) {
  if (s->num_records == s->cap_records) {
    size_t cap = s->cap_records ? 2 * s->cap_records : 64;
    bench_record *grown = realloc(s->records, cap * sizeof *grown);
    if (grown) {
      s->records = grown;
      s->cap_records = cap;
    }
  }
  /* Without room the row is still printed; only ratios to it are lost. */
  if (s->num_records < s->cap_records) s->records[s->num_records++] = *rec;
  report_progress_done(s);
  print_row(rec);
  report_json_only(s, rec);
}

void report_set_ratio(const bench_state *s, bench_record *rec) {
  const bench_record *best = NULL;
  /* A peer that sorts a host array (its name ends in "@host") against the
   * library's host-array calls; every other peer against its buffer calls. */
  size_t len = strlen(rec->algorithm);
  const char *api = len > 5 && strcmp(rec->algorithm + len - 5, "@host") == 0 ? "host" : "device";
  for (size_t i = 0; i < s->num_records; i++) {
    const bench_record *r = &s->records[i];
    if (strcmp(r->impl, "libclsort") != 0 || strcmp(r->status, "ok") != 0) continue;
    if (strcmp(r->api, api) != 0 || r->n != rec->n || r->pairs != rec->pairs) continue;
    if (strcmp(r->op, rec->op) != 0 || strcmp(r->type, rec->type) != 0) continue;
    if (strcmp(r->distribution, rec->distribution) != 0) continue;
    if (r->pairs && r->value_size != rec->value_size) continue;
    /* The library's own choice is the fair comparison; without it, its
     * best algorithm for the case. */
    if (strcmp(r->algorithm, "auto") == 0) {
      best = r;
      break;
    }
    if (!best || r->median_ms < best->median_ms) best = r;
  }
  if (!best || best->median_ms <= 0.0) return;
  rec->ratio = rec->median_ms / best->median_ms;
  rec->lib_ms = best->median_ms;
  snprintf(rec->ratio_vs, sizeof rec->ratio_vs, "%s%s", best->algorithm,
           strcmp(api, "host") == 0 ? "@host" : "");
}

static int progress_enabled(const bench_state *s) {
  return !s->cfg->quiet && isatty(fileno(stderr));
}

void report_progress(const bench_state *s, const char *fmt, ...) {
  if (!progress_enabled(s)) return;
  char line[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\r\033[K[%6.1fs] %s", (wall_ms() - s->started_ms) / 1e3, line);
  fflush(stderr);
}

void report_progress_done(const bench_state *s) {
  if (!progress_enabled(s)) return;
  fprintf(stderr, "\r\033[K");
  fflush(stderr);
}
