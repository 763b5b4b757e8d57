/* limits.c: whether a case fits the device and the host, and reporting
 * each skipped combination once. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The library keeps scratch buffers (partials, sort double buffers) next
 * to ours; leave it this share of the device's memory. */
#define DEVICE_HEADROOM 0.85

int fits_device(const bench_state *s, double total, double largest) {
  return largest <= (double)s->max_alloc && total <= DEVICE_HEADROOM * (double)s->global_mem;
}

int fits_host(double total) {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return total <= 0.7 * (double)pages * (double)page;
#endif
  (void)total;
  return 1;
}

int was_skipped(const bench_state *s, const char *key) {
  for (size_t i = 0; i < s->num_skipped; i++) {
    if (strcmp(s->skipped[i], key) == 0) return 1;
  }
  return 0;
}

static void remember(bench_state *s, const char *key) {
  if (s->num_skipped == s->cap_skipped) {
    size_t cap = s->cap_skipped ? 2 * s->cap_skipped : 32;
    char(*grown)[128] = realloc(s->skipped, cap * sizeof *grown);
    if (!grown) return; /* forgetting a skip only repeats its note */
    s->skipped = grown;
    s->cap_skipped = cap;
  }
  snprintf(s->skipped[s->num_skipped++], sizeof s->skipped[0], "%s", key);
}

int skip_once(bench_state *s, const char *key, const bench_record *rec, const char *why) {
  if (was_skipped(s, key)) return 0;
  remember(s, key);
  /* An algorithm missing from the build is missing for every type: say so
   * once per (algorithm, reason), not once per combination. */
  char note_key[128];
  size_t word = strcspn(key, " ");
  snprintf(note_key, sizeof note_key, "note %.*s: %s", (int)word, key, why);
  if (!was_skipped(s, note_key)) {
    remember(s, note_key);
    report_progress_done(s);
    fprintf(stderr, "note: %s: %s\n", key, why);
  }
  if (rec) {
    bench_record r = *rec;
    snprintf(r.status, sizeof r.status, "skipped");
    snprintf(r.note, sizeof r.note, "%s", why);
    r.runs = 0;
    report_json_only(s, &r);
  }
  return 1;
}
