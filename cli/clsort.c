/* clsort.c: the clsort command-line tool: dispatches to its subcommands
 * (devices, bench, sort, prepare, report). */
#include "bench.h"
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: clsort COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  devices   list the OpenCL platforms and devices, and the default one\n"
    "  bench     benchmark libclsort's primitives and sorts against baselines\n"
    "  sort      sort keys (and values) from files or standard input, binary or text\n"
    "  prepare   compile a device's kernels ahead, into the disk cache\n"
    "  report    summarize JSON lines from 'clsort bench --json' against peers\n"
    "\n"
    "'clsort COMMAND --help' describes each; 'man clsort' has them all.\n"
    "'clsort --version' prints the library version.\n"
    "\n"
    "Exit status, for every command: 0 on success; 1 when the work failed (an\n"
    "unreadable or malformed input, a device error, a failed verification); 2 on\n"
    "a bad command line. Errors are one line on stderr, starting 'clsort COMMAND:'.\n";

int main(int argc, char **argv) {
  bench_set_argv0(argc > 0 ? argv[0] : NULL);
  if (argc < 2) {
    fputs(usage, stderr);
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (cli_is_help(cmd)) {
    fputs(usage, stdout);
    return EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("clsort %s\n", clsort_version_string());
    return EXIT_OK;
  }
  /* Subcommands see their own name as argv[0]. */
  if (strcmp(cmd, "devices") == 0) return cmd_devices(argc - 1, argv + 1);
  if (strcmp(cmd, "bench") == 0) return cmd_bench(argc - 1, argv + 1);
  if (strcmp(cmd, "sort") == 0) return cmd_sort(argc - 1, argv + 1);
  if (strcmp(cmd, "report") == 0) return cmd_report(argc - 1, argv + 1);
  if (strcmp(cmd, "prepare") == 0) return cmd_prepare(argc - 1, argv + 1);
  fprintf(stderr, "clsort: unknown command '%s'\n\n", cmd);
  fputs(usage, stderr);
  return EXIT_USAGE;
}
