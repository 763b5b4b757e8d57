/* cli.c: shared command-line helpers of the clsort tool. */
#include "cli.h"

#include "bench.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

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

static atomic_int build_noticed;

static void on_build(const char *device_name, const char *cache_dir, void *user) {
  (void)user;
  if (atomic_exchange(&build_noticed, 1)) return;
  if (cache_dir)
    fprintf(stderr, "clsort: compiling kernels for %s, once; cached in %s\n", device_name,
            cache_dir);
  else
    fprintf(stderr, "clsort: compiling kernels for %s; not cached: CLSORT_CACHE=0\n", device_name);
}

void cli_watch_builds(clsort_context *ctx) { clsort_context_set_build_callback(ctx, on_build, NULL); }
