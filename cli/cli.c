/* cli.c: shared command-line helpers of the clsort tool. */
#define _POSIX_C_SOURCE 200809L /* timer_create */
#include "cli.h"

#include "bench.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int cli_value(const char *cmd, int argc, char **argv, int *i, const char *name,
              const char **value) {
  const char *arg = argv[*i];
  size_t len = strlen(name);
  if (strncmp(arg, name, len) != 0) return 0;
  if (arg[len] == '=') {
    *value = arg + len + 1;
    return 1;
  }
  if (arg[len] != '\0') return 0;
  if (*i + 1 >= argc) {
    cli_usage_error(cmd, "option %s needs a value", name);
    return -1;
  }
  *value = argv[++*i];
  return 1;
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "clsort %s: ", cmd);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n(see 'clsort %s --help')\n", cmd);
  return EXIT_USAGE;
}

int cli_is_help(const char *arg) { return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0; }

int cli_parse_algorithm(const char *name, clsort_algorithm *out) {
  for (int a = 0; a < ALGO_COUNT; a++) {
    if (strcmp(name, algo_name((clsort_algorithm)a)) == 0) {
      *out = (clsort_algorithm)a;
      return 1;
    }
  }
  return 0;
}

/* The build notice. The library calls on_build before it compiles from
 * source, which on PoCL (whose own cache the library leaves caching to)
 * happens in every process, quickly once PoCL has the binaries. So the
 * notice waits: a timer prints it only if the build is still going
 * NOTICE_AFTER_S later, and cli_builds_done() cancels it when the build is
 * over. Once per process. */
#define NOTICE_AFTER_S 0.5
static atomic_int build_noticed;
static pthread_mutex_t notice_lock = PTHREAD_MUTEX_INITIALIZER;
static char notice_text[1024];
static bool notice_armed, notice_cancelled;
static timer_t notice_timer;

static void print_notice(union sigval unused) {
  (void)unused;
  pthread_mutex_lock(&notice_lock);
  if (!notice_cancelled) fputs(notice_text, stderr);
  notice_cancelled = true;
  pthread_mutex_unlock(&notice_lock);
}

static void on_build(const char *device_name, const char *cache_dir, void *user) {
  (void)user;
  if (atomic_exchange(&build_noticed, 1)) return;
  pthread_mutex_lock(&notice_lock);
  if (cache_dir)
    snprintf(notice_text, sizeof notice_text, "clsort: compiling kernels for %s, once; cached in %s\n",
             device_name, cache_dir);
  else
    snprintf(notice_text, sizeof notice_text,
             "clsort: compiling kernels for %s; not cached: CLSORT_CACHE=0\n", device_name);
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD;
  ev.sigev_notify_function = print_notice;
  struct itimerspec when = {{0, 0}, {0, (long)(NOTICE_AFTER_S * 1e9)}};
  notice_armed = timer_create(CLOCK_MONOTONIC, &ev, &notice_timer) == 0 &&
                 timer_settime(notice_timer, 0, &when, NULL) == 0;
  pthread_mutex_unlock(&notice_lock);
  /* No timer: say it now rather than never. */
  if (!notice_armed) print_notice((union sigval){0});
}

void cli_builds_done(void) {
  pthread_mutex_lock(&notice_lock);
  notice_cancelled = true;
  if (notice_armed) timer_delete(notice_timer);
  notice_armed = false;
  pthread_mutex_unlock(&notice_lock);
}

void cli_watch_builds(clsort_context *ctx) { clsort_context_set_build_callback(ctx, on_build, NULL); }
