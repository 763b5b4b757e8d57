/* measure.c: the timed-run loop every benchmark case goes through. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

/* Samples a case can hold: --runs is capped by the command line parser. */
#define MAX_RUNS 1000
/* A case never stops before this many timed runs, even past its budget. */
#define MIN_RUNS 3
/* Discarded samples (timer method changes) tolerated before giving up. */
#define MAX_DISCARDS 4

clsort_status measure(bench_state *s, run_fn fn, void *user, bench_record *rec) {
  const bench_config *cfg = s->cfg;
  double *device = malloc(MAX_RUNS * sizeof *device);
  double *wall = malloc(MAX_RUNS * sizeof *wall);
  clsort_status st = CLSORT_SUCCESS;
  unsigned discards = 0, done = 0;
  if (!device || !wall) {
    st = CLSORT_ERROR_OUT_OF_MEMORY;
    goto cleanup;
  }
  /* Warm-up: the first call builds (or loads) the programs, later ones
   * settle clocks and caches. At least one warm-up always runs so that a
   * timer method change never lands in the timed runs. */
  unsigned warmup = cfg->warmup ? cfg->warmup : 1;
  for (unsigned w = 0; w < warmup; w++) {
    sample smp;
    int discard = 0;
    st = fn(s, user, &smp, &discard);
    if (st != CLSORT_SUCCESS) goto cleanup;
    if (w == 0) rec->first_ms = smp.wall_ms;
  }
  double timed_begin = wall_ms();
  while (done < cfg->runs) {
    sample smp;
    int discard = 0;
    st = fn(s, user, &smp, &discard);
    if (st != CLSORT_SUCCESS) goto cleanup;
    if (discard) {
      if (++discards > MAX_DISCARDS) {
        st = CLSORT_ERROR_OPENCL;
        goto cleanup;
      }
      continue;
    }
    device[done] = smp.device_ms;
    wall[done] = smp.wall_ms;
    done++;
    /* Slow baselines (qsort of 2^26 keys) would take minutes at full run
     * count; past the budget a case settles for MIN_RUNS. */
    if (done >= MIN_RUNS && wall_ms() - timed_begin > cfg->max_case_seconds * 1e3) break;
  }
  run_stats d = stats_summarize(device, done);
  run_stats w = stats_summarize(wall, done);
  rec->runs = done;
  rec->warmup = warmup;
  rec->median_ms = d.median;
  rec->min_ms = d.min;
  rec->max_ms = d.max;
  rec->mean_ms = d.mean;
  rec->wall_median_ms = w.median;
cleanup:
  free(device);
  free(wall);
  return st;
}

void case_record(bench_state *s, bench_record *rec, const char *op, const char *algorithm,
                 const char *impl, key_type type, uint64_t n) {
  record_init(rec);
  snprintf(rec->device, sizeof rec->device, "%s", s->device_name);
  snprintf(rec->run, sizeof rec->run, "%s", s->run_id);
  snprintf(rec->version, sizeof rec->version, "%s", clsort_version_string());
  snprintf(rec->op, sizeof rec->op, "%s", op);
  snprintf(rec->algorithm, sizeof rec->algorithm, "%s", algorithm);
  snprintf(rec->impl, sizeof rec->impl, "%s", impl);
  snprintf(rec->type, sizeof rec->type, "%s", kt_name(type));
  rec->n = n;
}

int case_failed(bench_state *s, const bench_record *rec, const char *key, clsort_status st) {
  const char *msg = clsort_last_error_message();
  char why[200];
  if (st == CLSORT_ERROR_UNSUPPORTED) {
    snprintf(why, sizeof why, "skipped, not supported%s%s", *msg ? ": " : "", msg);
    skip_once(s, key, rec, why);
    return 1;
  }
  if (st == CLSORT_ERROR_TOO_LARGE || st == CLSORT_ERROR_OUT_OF_MEMORY) {
    /* Device limits end a size sweep; they are not failures of the library. */
    char big_key[128];
    snprintf(big_key, sizeof big_key, "%s (too large)", key);
    snprintf(why, sizeof why, "skipped for n >= %llu, %s%s%s", (unsigned long long)rec->n,
             clsort_status_string(st), *msg ? ": " : "", msg);
    skip_once(s, big_key, rec, why);
    return 1;
  }
  s->errors++;
  report_progress_done(s);
  fprintf(stderr, "error: %s n=%llu: %s (%s)%s%s\n", key, (unsigned long long)rec->n,
          clsort_status_string(st), clsort_status_name(st), *msg ? ": " : "", msg);
  bench_record r = *rec;
  snprintf(r.status, sizeof r.status, "error");
  snprintf(r.note, sizeof r.note, "%s: %s", clsort_status_name(st), msg);
  r.runs = 0;
  report_json_only(s, &r);
  return 0;
}

int case_skipped(const bench_state *s, const char *key) {
  char big_key[128];
  snprintf(big_key, sizeof big_key, "%s (too large)", key);
  return was_skipped(s, key) || was_skipped(s, big_key);
}

clsort_status time_device_call(bench_state *s, device_call_fn call, void *user, sample *out,
                               int *discard) {
  cl_event mark = NULL, final = NULL;
  if (timer_begin(&s->timer, &mark) != CL_SUCCESS) return CLSORT_ERROR_OPENCL;
  double t0 = wall_ms();
  clsort_status st = call(s, user, &final);
  if (st != CLSORT_SUCCESS) {
    clReleaseEvent(mark);
    return st;
  }
  cl_int err = timer_end(&s->timer, mark, final, &out->device_ms, discard);
  out->wall_ms = wall_ms() - t0;
  if (final) clReleaseEvent(final);
  return err == CL_SUCCESS ? CLSORT_SUCCESS : CLSORT_ERROR_OPENCL;
}
