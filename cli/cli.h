/* cli.h: the command-line conventions every clsort subcommand follows:
 * "--name value" or "--name=value", errors on stderr with exit status 2,
 * and one notice when kernels are compiled. */
#ifndef CLI_CLI_H
#define CLI_CLI_H

#include "clsort.h"
#include "keys.h"

/* Exit statuses of the clsort tool. */
#define EXIT_OK 0
#define EXIT_FAILED 1 /* the work failed: an error, a failed verification */
#define EXIT_USAGE 2  /* the command line was wrong */

/* If argv[*i] is option `name` taking a value, sets *value (advancing *i
 * past a separate value) and returns 1; returns -1 when the value is
 * missing (after printing why), 0 when argv[*i] is another option. */
int cli_value(const char *cmd, int argc, char **argv, int *i, const char *name,
              const char **value);

/* Prints "clsort CMD: MESSAGE" and a hint to --help on stderr; returns
 * EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Whether arg is -h or --help. */
int cli_is_help(const char *arg);

/* Parses "auto", "radix", ...; returns 1 on success. */
int cli_parse_algorithm(const char *name, clsort_algorithm *out);

/* Says on stderr, once per process, when a kernel build on ctx is taking
 * long ("clsort: compiling kernels for DEVICE, once; cached in DIR"),
 * through the library's build callback: the first call on a device takes
 * seconds, and a user should know why. A build still running half a
 * second after it started gets the line; cli_builds_done(), called when
 * the builds a command needs are over, keeps a quick one quiet. */
void cli_watch_builds(clsort_context *ctx);
void cli_builds_done(void);

/* Subcommands. */
int cmd_devices(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_sort(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_prepare(int argc, char **argv);

#endif
