/* cmd_report.c: `clsort report`: the libclsort-versus-peer summary of JSON
 * lines written by `clsort bench --json`. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: clsort report [--peer NAME] [--key] [--sizes LIST] FILE...\n"
    "\n"
    "Prints, for every peer measurement in the JSON-lines FILEs that has a\n"
    "libclsort counterpart, both medians, their ratio (peer time / libclsort\n"
    "time: above 1 means libclsort is faster) and the project's target where one\n"
    "is set. --peer keeps only peers whose name starts with NAME (e.g. cub);\n"
    "--key keeps only the GPU peers and the rows that have a target; --sizes\n"
    "keeps only those sizes (same syntax as clsort bench).\n"
    "\n"
    "Exit status: 0, or 1 when a target was missed or a file could not be read\n"
    "(then nothing is printed).\n";

int cmd_report(int argc, char **argv) {
  const char *peer = NULL;
  int files = 0, key_only = 0;
  uint64_t sizes[PARSE_MAX_SIZES];
  size_t num_sizes = 0;
  for (int i = 1; i < argc; i++) {
    const char *v = NULL;
    int r;
    if (cli_is_help(argv[i])) {
      fputs(usage, stdout);
      return EXIT_OK;
    }
    if (strcmp(argv[i], "--key") == 0) {
      key_only = 1;
    } else if ((r = cli_value("report", argc, argv, &i, "--peer", &v)) != 0) {
      if (r < 0) return EXIT_USAGE;
      peer = v;
    } else if ((r = cli_value("report", argc, argv, &i, "--sizes", &v)) != 0) {
      char err[160];
      if (r < 0) return EXIT_USAGE;
      if (!parse_sizes(v, sizes, PARSE_MAX_SIZES, &num_sizes, err, sizeof err))
        return cli_usage_error("report", "--sizes: %s", err);
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage_error("report", "unknown option '%s'", argv[i]);
    } else {
      files++;
    }
  }
  if (!files) return cli_usage_error("report", "needs at least one JSON-lines file");

  bench_record *records = NULL;
  size_t count = 0, cap = 0;
  int rc = EXIT_OK;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--peer") == 0 || strcmp(argv[i], "--sizes") == 0) {
      i++;
      continue;
    }
    if (argv[i][0] == '-' && argv[i][1] != '\0') continue;
    FILE *in = strcmp(argv[i], "-") == 0 ? stdin : fopen(argv[i], "r");
    if (!in) {
      fprintf(stderr, "clsort report: cannot read %s: %s\n", argv[i], strerror(errno));
      rc = EXIT_FAILED;
      continue;
    }
    char *line = NULL;
    size_t line_cap = 0, broken = 0;
    while (getline(&line, &line_cap, in) > 0) {
      if (line[0] != '{') continue;
      if (count == cap) {
        size_t grown_cap = cap ? 2 * cap : 256;
        bench_record *grown = realloc(records, grown_cap * sizeof *grown);
        if (!grown) break;
        records = grown;
        cap = grown_cap;
      }
      if (!record_parse_json(line, &records[count])) {
        broken++;
        continue;
      }
      int keep = num_sizes == 0;
      for (size_t k = 0; k < num_sizes && !keep; k++) keep = records[count].n == sizes[k];
      if (keep) count++;
    }
    /* Other lines (a table beside the records) are passed over; a line
     * that opens a record and does not parse is said. */
    if (broken)
      fprintf(stderr, "clsort report: %s: %zu line%s that open a record could not be read\n",
              argv[i], broken, broken == 1 ? "" : "s");
    /* fopen() takes a directory and getline() then fails at once (EISDIR):
     * a read error is a file that could not be read, not an empty one. */
    if (ferror(in)) {
      fprintf(stderr, "clsort report: cannot read %s: %s\n", argv[i], strerror(errno));
      rc = EXIT_FAILED;
    }
    free(line);
    if (in != stdin) fclose(in);
  }
  /* A summary of part of the files would pass for the whole. */
  if (rc != EXIT_OK) {
    free(records);
    return rc;
  }
  unsigned rows = 0;
  unsigned missed = report_summary(stdout, records, count, peer, key_only, &rows);
  if (rows == 0) printf("(no peer measurement with a libclsort counterpart in %zu records)\n", count);
  if (missed) {
    printf("%u target%s missed\n", missed, missed == 1 ? "" : "s");
    rc = EXIT_FAILED;
  }
  free(records);
  return rc;
}
