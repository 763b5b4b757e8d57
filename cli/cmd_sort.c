/* cmd_sort.c: `clsort sort`: sorts keys (and optionally values) from files
 * or standard input on an OpenCL device, in binary or as text, writing the
 * results atomically; or writes the permutation that sorts them. */
#include "cli.h"
#include "fileio.h"
#include "parse.h"
#include "textio.h"
#include "timing.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: clsort sort --type TYPE [options] [IN [OUT]]\n"
    "       clsort sort --type TYPE --in-place [options] FILE\n"
    "\n"
    "Sorts the keys in IN and writes them to OUT. IN and OUT are binary files\n"
    "(native byte order, no header), or with --text one number per line. '-',\n"
    "or no argument, means standard input for IN and standard output for OUT,\n"
    "as with sort(1): `clsort sort --text --type f64 < numbers.txt` prints them\n"
    "sorted; a FIFO or <(...) is read to its end as standard input is. A file\n"
    "is sorted in place only when asked: --in-place, or IN and\n"
    "OUT naming the same file.\n"
    "\n"
    "With --values, the values file is permuted along with the keys and written\n"
    "to OUT.values (or --values-out; in place with --in-place). With --argsort,\n"
    "OUT receives the permutation that sorts the keys (0-based indices) instead\n"
    "of the keys.\n"
    "\n"
    "Outputs are written to temporary files and renamed into place only when\n"
    "everything succeeded, the keys and the values together, so a failed sort\n"
    "leaves every file as it was (the input too, when sorting in place). A\n"
    "replaced file keeps its mode and, where allowed, its owner; a symbolic link\n"
    "stays a link, and the file it points to gets the data; an existing file\n"
    "the user may not write is refused before any work. Standard output,\n"
    "devices and FIFOs (/dev/null, /dev/stdout on a pipe) are written straight\n"
    "through, never replaced. The keys and the values may not go to the same\n"
    "file.\n"
    "\n"
    "options:\n"
    "  --type T          key type: u8, i8, u16, i16, u32, i32, u64, i64, f16\n"
    "                    (IEEE binary16), bf16 (bfloat16), f32 or f64 (required)\n"
    "  --desc            largest key first\n"
    "  --stable          equal keys keep their input order\n"
    "  --algorithm A     auto (default), radix, bitonic, sample, merge or quick\n"
    "  --bits B:E        compare only bits B to E-1 of the (order-transformed)\n"
    "                    key, 0 <= B < E <= the key's width (radix or auto only)\n"
    "  --text            text in and out: one number per line (see below)\n"
    "  --in-place        write the sorted keys (and values) back to their files\n"
    "  --argsort         write the sorting permutation to OUT, not the keys\n"
    "  --index-size 4|8  bytes per index with --argsort (default 8, as numpy)\n"
    "  --values FILE     values to move with the keys, one per key ('-': stdin)\n"
    "  --value-size 4|8  bytes per value (default: the values file's size / keys)\n"
    "  --values-out FILE where the sorted values go (default OUT.values; '-':\n"
    "                    standard output)\n"
    "  --device SPEC     P:D, gpu, cpu or part of the device name (default:\n"
    "                    $CLSORT_DEVICE, else the library's default device)\n"
    "  --verbose         say what was sorted, where, and how long the kernel\n"
    "                    build and the sort itself took (stderr)\n"
    "\n"
    "Text: blanks around a number are allowed, empty lines are not; integers\n"
    "are decimal; floats take what strtod reads (1.5, -2e-3, 0x1p-3, inf, -inf,\n"
    "nan, -nan, -0; f16 and bf16 round to nearest) and are printed with 9 (f32),\n"
    "17 (f64), 5 (f16) or 4 (bf16) significant digits, so they\n"
    "read back bit for bit, except NaN payloads (every NaN prints as nan or\n"
    "-nan). A malformed line stops the sort with its line number. Binary keys\n"
    "are never written to a terminal.\n"
    "\n"
    "Floats sort in total order by bits: -NaN < -inf < ... < -0.0 < +0.0 < ... <\n"
    "+inf < +NaN. Inputs of 1 GiB or more show progress on stderr when it is a\n"
    "terminal (share done, rate, time left). Inputs larger than the device's\n"
    "memory (or CLSORT_DEVICE_MEMORY_LIMIT) sort out of core; the keys and\n"
    "values are held in host memory, twice over at most, and inputs the\n"
    "machine cannot hold so are refused before they are read.\n"
    "The first sort on a device compiles its kernels (seconds) and\n"
    "says so once on stderr; later runs load them from the cache ('clsort\n"
    "prepare' fills it ahead).\n"
    "\n"
    "Exit status: 0 on success; 1 when the sort failed (a missing or malformed\n"
    "input, a device or write error: nothing written); 2 on a bad command line.\n";

typedef struct sort_args {
  const char *in, *out, *values, *values_out, *device;
  key_type type;
  int have_type, verbose, text, in_place, argsort;
  size_t value_size, index_size;
  clsort_options options;
} sort_args;

/* "B:E" with 0 <= B < E <= bits. */
static int parse_bits(const char *v, unsigned bits, clsort_options *o) {
  uint64_t b, e;
  char first[32];
  const char *colon = strchr(v, ':');
  if (!colon || (size_t)(colon - v) >= sizeof first) return 0;
  snprintf(first, sizeof first, "%.*s", (int)(colon - v), v);
  if (!parse_u64(first, &b) || !parse_u64(colon + 1, &e) || b >= e || e > bits) return 0;
  o->begin_bit = (unsigned)b;
  o->end_bit = (unsigned)e;
  return 1;
}

static int parse_args(int argc, char **argv, sort_args *a) {
  clsort_options defaults = CLSORT_OPTIONS_DEFAULT;
  memset(a, 0, sizeof *a);
  a->options = defaults;
  const char *bits = NULL;
  int positional = 0, options_done = 0;
  for (int i = 1; i < argc; i++) {
    const char *v = NULL, *arg = argv[i];
    int r;
#define VALUE(name) ((r = cli_value("sort", argc, argv, &i, (name), &v)) != 0)
    if (options_done || arg[0] != '-' || arg[1] == '\0') {
      /* A file name, "-" included. */
      if (positional == 0) {
        a->in = arg;
      } else if (positional == 1) {
        a->out = arg;
      } else {
        return cli_usage_error("sort", "unexpected argument '%s'", arg);
      }
      positional++;
    } else if (strcmp(arg, "--") == 0) {
      options_done = 1;
    } else if (strcmp(arg, "--desc") == 0 || strcmp(arg, "--descending") == 0) {
      a->options.flags |= CLSORT_DESCENDING;
    } else if (strcmp(arg, "--stable") == 0) {
      a->options.flags |= CLSORT_STABLE;
    } else if (strcmp(arg, "--verbose") == 0) {
      a->verbose = 1;
    } else if (strcmp(arg, "--text") == 0) {
      a->text = 1;
    } else if (strcmp(arg, "--in-place") == 0) {
      a->in_place = 1;
    } else if (strcmp(arg, "--argsort") == 0) {
      a->argsort = 1;
    } else if (VALUE("--type")) {
      if (r < 0) return EXIT_USAGE;
      if (!kt_parse(v, &a->type)) return cli_usage_error("sort", "unknown key type '%s'", v);
      a->have_type = 1;
    } else if (VALUE("--algorithm")) {
      if (r < 0) return EXIT_USAGE;
      if (!cli_parse_algorithm(v, &a->options.algorithm))
        return cli_usage_error("sort", "unknown algorithm '%s'", v);
    } else if (VALUE("--bits")) {
      if (r < 0) return EXIT_USAGE;
      bits = v;
    } else if (VALUE("--values")) {
      if (r < 0) return EXIT_USAGE;
      a->values = v;
    } else if (VALUE("--values-out")) {
      if (r < 0) return EXIT_USAGE;
      a->values_out = v;
    } else if (VALUE("--value-size") || VALUE("--index-size")) {
      uint64_t u;
      if (r < 0) return EXIT_USAGE;
      int index = strncmp(arg, "--index-size", 12) == 0;
      if (!parse_u64(v, &u) || (u != 4 && u != 8))
        return cli_usage_error("sort", "%s wants 4 or 8, not '%s'",
                               index ? "--index-size" : "--value-size", v);
      *(index ? &a->index_size : &a->value_size) = (size_t)u;
    } else if (VALUE("--device")) {
      if (r < 0) return EXIT_USAGE;
      a->device = v;
    } else {
      return cli_usage_error("sort", "unknown option '%s'", arg);
    }
#undef VALUE
  }
  if (!a->have_type) return cli_usage_error("sort", "--type is required");
  /* An empty name would otherwise fail only at the rename, after the
   * whole sort, as "cannot rename .<name>.tmp.XXXXXX to ". */
  const char *names[] = {a->in, a->out, a->values, a->values_out};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (names[k] && !names[k][0]) return cli_usage_error("sort", "a file name is empty");
  unsigned key_bits = (unsigned)kt_size(a->type) * 8;
  if (bits && !parse_bits(bits, key_bits, &a->options))
    return cli_usage_error("sort", "--bits wants B:E with 0 <= B < E <= %u for %s keys, not '%s'",
                           key_bits, kt_name(a->type), bits);
  if (!a->in) a->in = "-";
  if (a->in_place) {
    if (file_is_std(a->in))
      return cli_usage_error("sort", "--in-place needs a file to sort, not standard input");
    if (a->out)
      return cli_usage_error("sort", "--in-place writes back to %s: give no output file", a->in);
    if (a->argsort)
      return cli_usage_error("sort", "--argsort writes indices, not keys: it cannot be --in-place");
    a->out = a->in;
  }
  if (!a->out) a->out = "-";
  if (a->argsort && a->values) return cli_usage_error("sort", "--argsort and --values exclude each other");
  if (!a->argsort && a->index_size) return cli_usage_error("sort", "--index-size needs --argsort");
  if (a->argsort && !a->index_size) a->index_size = 8;
  if (a->text && a->values)
    return cli_usage_error("sort", "--text takes keys alone (or writes --argsort indices); "
                                   "values are binary files, without --text");
  if (!a->values && (a->value_size || a->values_out))
    return cli_usage_error("sort", "--value-size and --values-out need --values");
  if (a->values && file_is_std(a->values) && file_is_std(a->in))
    return cli_usage_error("sort",
                           "the keys and the values cannot both come from standard input");
  if (a->values && !a->values_out) {
    if (a->in_place) {
      if (file_is_std(a->values))
        return cli_usage_error("sort", "--in-place cannot write values back to standard input: "
                                       "name the values' output with --values-out");
      a->values_out = a->values;
    } else if (file_is_std(a->out)) {
      return cli_usage_error("sort", "with the keys on standard output, name the values' "
                                     "output with --values-out");
    }
  }
  /* Binary keys would garble a terminal, as gzip refuses to. */
  if (!a->text && file_is_std(a->out) && isatty(1))
    return cli_usage_error("sort",
                           "standard output is a terminal: redirect it, name an output file, or "
                           "use --text");
  if (a->values_out && file_is_std(a->values_out) && isatty(1))
    return cli_usage_error("sort", "standard output is a terminal: binary values would garble it");
  return EXIT_OK;
}

/* Refuses inputs the device cannot hold, before any work, with the sizes
 * that explain why. The library would refuse them too, less clearly. */
/* Whether this machine can hold the sort: the CLI keeps the keys, the
 * values (or argsort's indices) in host memory, and a sort that does not
 * fit the device (or CLSORT_DEVICE_MEMORY_LIMIT) runs out of core, with
 * host scratch of up to the arrays' size again (docs/ARCHITECTURE.md). So
 * twice the arrays must fit the host's physical memory; the device's size
 * does not matter. Prints the refusal and returns 0 when they do not. */
static int check_host_fits(size_t key_bytes, size_t value_bytes) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 1; /* unknown: the sort says if memory is short */
  double host = (double)pages * (double)page;
  double need = 2.0 * ((double)key_bytes + (double)value_bytes);
  if (need <= host) return 1;
  fprintf(stderr,
          "clsort sort: input too large for this machine: %.1f MiB of keys%s need about %.1f MiB "
          "of host memory (the arrays, and as much again for a sort out of core); it has %.1f "
          "MiB\n",
          (double)key_bytes / 1048576.0, value_bytes ? " and values" : "", need / 1048576.0,
          host / 1048576.0);
  return 0;
}

/* ------------------------------------------------------------- progress */
/* Shown for inputs of this many bytes or more, when stderr is a terminal;
 * CLSORT_PROGRESS_BYTES overrides it (for the tests). */
#define PROGRESS_BYTES ((size_t)1 << 30)

static int progress_on;
static int progress_shown; /* a line is on screen, to be cleared */
static size_t progress_bytes = PROGRESS_BYTES;

/* A progress line: the share done, the rate since this step began, and
 * the time left at that rate. */
static void show_progress(const char *verb, const char *path, size_t done, size_t total) {
  static unsigned last_percent = 101;
  static const char *last_verb;
  static double began;
  /* A stream of unknown length shows progress once it is long. */
  if (!total && done < progress_bytes) return;
  unsigned percent = total ? (unsigned)(100.0 * (double)done / (double)total) : 0;
  if (verb != last_verb) began = wall_ms();
  if (verb == last_verb && percent == last_percent && total) return;
  last_verb = verb;
  last_percent = percent;
  /* The rate once there is a second to measure it over. */
  double s = (wall_ms() - began) / 1000.0, rate = s >= 1.0 ? (double)done / s : 0.0;
  char pace[64] = "";
  if (rate > 0.0 && total)
    snprintf(pace, sizeof pace, ", %.2f GB/s, %.0f s left", rate / 1e9,
             (double)(total - done) / rate);
  else if (rate > 0.0)
    snprintf(pace, sizeof pace, ", %.2f GB/s", rate / 1e9);
  /* A sort out of core counts each byte on its way to the device and on
   * its way back. */
  const char *moved = strcmp(verb, "sorting") == 0 ? " moved to the device and back" : "";
  if (total)
    fprintf(stderr, "\rclsort sort: %s %s: %3u%% of %.2f GiB%s%s\033[K", verb, path, percent,
            (double)total / 1073741824.0, moved, pace);
  else
    fprintf(stderr, "\rclsort sort: %s %s: %.2f GiB%s\033[K", verb, path,
            (double)done / 1073741824.0, pace);
  progress_shown = 1;
}

/* The library's progress of a sort out of core (each byte of the arrays
 * counts on its way to the device and back). */
static void sort_progress(uint64_t done, uint64_t total, void *path) {
  show_progress("sorting", (const char *)path, (size_t)done, (size_t)total);
}

static void progress_note(const char *what) {
  if (!progress_on) return;
  fprintf(stderr, "\rclsort sort: %s\033[K", what);
  progress_shown = 1;
}

static void progress_end(void) {
  if (progress_shown) fputs("\r\033[K", stderr);
  progress_shown = 0;
}

/* Turns progress on when stderr is a terminal and `bytes` (the input's
 * size, when known; 0 for a stream, whose reads then show it anyway)
 * reaches the threshold. */
static void progress_maybe(size_t bytes, int stream) {
  const char *env = getenv("CLSORT_PROGRESS_BYTES");
  uint64_t v;
  if (env && parse_u64(env, &v)) progress_bytes = (size_t)v;
  progress_on = isatty(2) && (stream || bytes >= progress_bytes);
  fileio_set_progress(progress_on ? show_progress : NULL);
}

/* ------------------------------------------------------------------ run */
typedef struct sort_job {
  void *keys, *values, *indices;
  size_t n, key_bytes, value_bytes, value_size;
} sort_job;

/* The bytes per value: --value-size, checked against the values' size, or
 * inferred from it. Returns 1, or 0 with a message. */
static int value_size_of(const sort_args *a, size_t n, size_t value_bytes, size_t *value_size,
                         char *err, size_t cap) {
  const char *vname = file_display(a->values, 0);
  if (a->value_size) {
    *value_size = a->value_size;
    if (value_bytes == n * a->value_size) return 1;
    snprintf(err, cap, "%s: %zu bytes, but %zu keys need %zu values of %zu bytes (%zu bytes)",
             vname, value_bytes, n, n, a->value_size, n * a->value_size);
    return 0;
  }
  if (value_bytes == n * 4 || value_bytes == n * 8) {
    /* Both only when there are no keys, and then either does. */
    *value_size = value_bytes == n * 8 && n ? 8 : 4;
    return 1;
  }
  snprintf(err, cap,
           "%s: %zu bytes are neither 4 nor 8 bytes for each of the %zu keys (%zu or %zu bytes)",
           vname, value_bytes, n, n * 4, n * 8);
  return 0;
}

/* Reads the keys (binary or text) and the values; sizes are checked
 * before a file is read. Returns 1, or 0 with a message. */
static int read_inputs(const sort_args *a, sort_job *j, char *err, size_t cap) {
  size_t ks = kt_size(a->type);
  void *raw = NULL;
  size_t raw_bytes = 0;
  if (!file_read_all(a->in, &raw, &raw_bytes, err, cap)) return 0;
  if (a->text) {
    progress_note("parsing the text");
    int ok = text_parse(a->type, file_display(a->in, 0), raw, raw_bytes, &j->keys, &j->n, err, cap);
    free(raw);
    if (!ok) return 0;
    j->key_bytes = j->n * ks;
  } else {
    j->keys = raw;
    j->key_bytes = raw_bytes;
    if (raw_bytes % ks != 0) {
      snprintf(err, cap, "%s: %zu bytes is not a whole number of %s keys (%zu bytes each)",
               file_display(a->in, 0), raw_bytes, kt_name(a->type), ks);
      return 0;
    }
    j->n = raw_bytes / ks;
  }
  if (!a->values) return 1;
  if (!file_read_all(a->values, &j->values, &j->value_bytes, err, cap)) return 0;
  return value_size_of(a, j->n, j->value_bytes, &j->value_size, err, cap);
}

/* The sizes of regular input files, checked before anything is read: a
 * file the machine cannot hold is refused however large. Streams
 * (standard input, FIFOs, `<(...)`) are checked once read. Returns 1, or
 * 0 with a message. */
static int input_sizes(const sort_args *a, size_t *key_bytes, size_t *value_bytes, char *err,
                       size_t cap) {
  *key_bytes = *value_bytes = 0;
  if (!file_is_stream(a->in)) {
    if (!file_size(a->in, key_bytes, err, cap)) return 0;
    size_t ks = kt_size(a->type);
    if (!a->text && *key_bytes % ks != 0) {
      snprintf(err, cap, "%s: %zu bytes is not a whole number of %s keys (%zu bytes each)", a->in,
               *key_bytes, kt_name(a->type), ks);
      return 0;
    }
  }
  if (a->values && !file_is_stream(a->values)) {
    size_t vs;
    if (!file_size(a->values, value_bytes, err, cap)) return 0;
    /* Both sizes known: a mismatch is found before either file is read. */
    if (!a->text && !file_is_stream(a->in) &&
        !value_size_of(a, *key_bytes / kt_size(a->type), *value_bytes, &vs, err, cap))
      return 0;
  }
  return 1;
}

/* The kernels of exactly this call are built (or loaded from the cache)
 * before it runs, so that the build notice speaks of the build alone and
 * --verbose times the sort apart from it: by a trial sort of synthetic
 * keys of the same type, options and payload, of the call's own size up
 * to the size past which the algorithms run no new kernels (prepare.c's
 * largest size class: 2^22 + 3 keys on GPUs, 2^17 + 5 on CPUs). Unlike
 * clsort_prepare, which builds every size class of every algorithm AUTO
 * may pick, the trial builds nothing this call does not use: on the H100
 * a cold `clsort sort --type u32` of 2^16 keys built the bitonic sort's
 * two programs beside the radix sort's (about 2.3 s of 3.4), and a warm
 * one sorted 2^22 synthetic keys first. Without memory for the synthetic
 * arrays the trial is skipped: the sort then builds what it needs. */
static size_t trial_keys(clsort_context *ctx, size_t n) {
  cl_device_type type = 0;
  clGetDeviceInfo(clsort_context_device(ctx), CL_DEVICE_TYPE, sizeof type, &type, NULL);
  size_t most = (type & CL_DEVICE_TYPE_CPU) ? ((size_t)1 << 17) + 5 : ((size_t)1 << 22) + 3;
  return n < most ? n : most;
}

static clsort_status trial_sort(clsort_context *ctx, const sort_args *a, const sort_job *j) {
  size_t m = trial_keys(ctx, j->n), ks = kt_size(a->type);
  if (m == 0) return CLSORT_SUCCESS;
  size_t payload = a->argsort ? a->index_size : j->values ? j->value_size : 0;
  unsigned char *keys = malloc(m * ks + 8), *other = payload ? malloc(m * payload + 8) : NULL;
  clsort_status st = CLSORT_SUCCESS;
  if (keys && (!payload || other)) {
    /* splitmix64: every bit pattern, as the real keys may hold. */
    uint64_t seed = 0x5EED;
    for (size_t i = 0; i < m * ks; i += 8) {
      uint64_t x = (seed += 0x9E3779B97F4A7C15ull);
      x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
      x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
      x ^= x >> 31;
      memcpy(keys + i, &x, 8);
    }
    if (other) memset(other, 0, m * payload);
    clsort_type t = (clsort_type)a->type;
    if (a->argsort)
      st = clsort_argsort(ctx, t, keys, other, payload, m, &a->options);
    else if (payload)
      st = clsort_sort_pairs(ctx, t, keys, other, payload, m, &a->options);
    else
      st = clsort_sort(ctx, t, keys, m, &a->options);
  }
  free(keys);
  free(other);
  return st;
}

static clsort_status run_sort(clsort_context *ctx, const sort_args *a, sort_job *j) {
  clsort_type t = (clsort_type)a->type;
  if (a->argsort) return clsort_argsort(ctx, t, j->keys, j->indices, a->index_size, j->n, &a->options);
  if (j->values) return clsort_sort_pairs(ctx, t, j->keys, j->values, j->value_size, j->n, &a->options);
  return clsort_sort(ctx, t, j->keys, j->n, &a->options);
}

int cmd_sort(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) break;
    if (cli_is_help(argv[i])) {
      fputs(usage, stdout);
      return EXIT_OK;
    }
  }
  sort_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc != EXIT_OK) return rc;

  /* Room for a failed commit's message, which names each file kept. */
  char err[16384], values_out[4096];
  sort_job j;
  memset(&j, 0, sizeof j);
  clsort_context *ctx = NULL;
  atomic_file kf, vf;
  kf.fd = vf.fd = -1;
  kf.tmp[0] = vf.tmp[0] = '\0';
  if (a.values) {
    if (a.values_out) {
      snprintf(values_out, sizeof values_out, "%s", a.values_out);
    } else if (snprintf(values_out, sizeof values_out, "%s.values", a.out) >=
               (int)sizeof values_out) {
      return cli_usage_error("sort", "output path too long");
    }
    /* Compared as files, not names: one of the two would be lost. */
    if (same_output_file(a.out, values_out)) {
      if (file_is_std(a.out))
        return cli_usage_error("sort", "the keys and the values cannot both go to standard output");
      if (strcmp(a.out, values_out) == 0)
        return cli_usage_error("sort", "the keys and the values cannot both go to %s", a.out);
      return cli_usage_error("sort",
                             "the keys and the values cannot both go to %s (%s is the same file)",
                             a.out, values_out);
    }
  }
  rc = EXIT_FAILED;

  size_t key_bytes, value_bytes;
  if (!input_sizes(&a, &key_bytes, &value_bytes, err, sizeof err)) goto fail_msg;
  progress_maybe(key_bytes + value_bytes,
                 file_is_stream(a.in) || (a.values && file_is_stream(a.values)));
  /* The temporary outputs come next, so that a read-only or missing
   * directory fails at once rather than after the sort. */
  if (!atomic_open(&kf, a.out, err, sizeof err)) goto fail_msg;
  if (a.values && !atomic_open(&vf, values_out, err, sizeof err)) goto fail_msg;

  clsort_status st = clsort_context_create(&ctx, a.device);
  if (st != CLSORT_SUCCESS) {
    snprintf(err, sizeof err, "cannot open device '%s': %s: %s", a.device ? a.device : "(default)",
             clsort_status_string(st), clsort_last_error_message());
    goto fail_msg;
  }
  cli_watch_builds(ctx);
  /* Binary files are measured before they are read; text and streams
   * once read. */
  if (!a.text && !check_host_fits(key_bytes, value_bytes)) goto fail;
  if (!read_inputs(&a, &j, err, sizeof err)) goto fail_msg;
  progress_end();
  if (!check_host_fits(j.key_bytes, a.argsort ? j.n * a.index_size : j.value_bytes)) goto fail;
  if (a.argsort && !(j.indices = malloc(j.n * a.index_size + 1))) {
    snprintf(err, sizeof err, "out of host memory for %zu indices", j.n);
    goto fail_msg;
  }

  /* The kernels of exactly this call first (trial_sort). */
  double build_ms = 0.0, t0 = 0.0, t1 = 0.0;
  {
    double t = wall_ms();
    st = trial_sort(ctx, &a, &j);
    build_ms = wall_ms() - t;
    cli_builds_done();
    /* A trial short of memory says nothing of the call's own sort, whose
     * message (with the call's own size) is the one to show. */
    bool memory = st == CLSORT_ERROR_MEMORY_LIMIT || st == CLSORT_ERROR_OUT_OF_MEMORY ||
                  st == CLSORT_ERROR_TOO_LARGE;
    if (st != CLSORT_SUCCESS && !memory) goto sort_failed;
  }
  progress_note("sorting");
  if (progress_on)
    clsort_context_set_progress_callback(ctx, sort_progress, (void *)file_display(a.in, 0));
  t0 = wall_ms();
  st = run_sort(ctx, &a, &j);
  t1 = wall_ms();
  clsort_context_set_progress_callback(ctx, NULL, NULL);
  progress_end();
sort_failed:
  if (st != CLSORT_SUCCESS) {
    snprintf(err, sizeof err, "sorting failed: %s (%s): %s", clsort_status_string(st),
             clsort_status_name(st), clsort_last_error_message());
    goto fail_msg;
  }

  /* The output: keys or indices, binary or text. */
  const void *out = a.argsort ? j.indices : j.keys;
  size_t out_bytes = a.argsort ? j.n * a.index_size : j.key_bytes;
  if (a.text) {
    key_type as = a.argsort ? (a.index_size == 4 ? KT_U32 : KT_U64) : a.type;
    char *text = NULL;
    if (!text_format(as, out, j.n, &text, &out_bytes)) {
      snprintf(err, sizeof err, "out of host memory for the text of %zu keys", j.n);
      goto fail_msg;
    }
    free(a.argsort ? j.indices : j.keys);
    *(a.argsort ? &j.indices : &j.keys) = text;
    out = text;
  }
  /* Both outputs are complete on disk before either is put in place, and
   * then both are, or neither. */
  if (!atomic_write_all(&kf, out, out_bytes, err, sizeof err)) goto fail_msg;
  if (j.values && !atomic_write_all(&vf, j.values, j.value_bytes, err, sizeof err)) goto fail_msg;
  atomic_file *outputs[2] = {&kf, &vf};
  if (!atomic_commit_all(outputs, j.values ? 2 : 1, err, sizeof err)) goto fail_msg;
  progress_end();
  if (a.verbose) {
    const char *what = a.argsort ? "argsort of" : "sort of";
    fprintf(stderr, "clsort sort: device: %s\n", clsort_context_device_name(ctx));
    fprintf(stderr,
            "clsort sort: build: %.3f ms (this call's kernels compiled or loaded from the "
            "cache, and run once on trial data)\n",
            build_ms);
    fprintf(stderr,
            "clsort sort: sort: %.3f ms for the %s %zu %s keys%s (%.1f Mkeys/s, transfers "
            "included, build excluded)\n",
            t1 - t0, what, j.n, kt_name(a.type), j.values ? " with values" : "",
            t1 > t0 ? (double)j.n / ((t1 - t0) * 1e3) : 0.0);
  }
  rc = EXIT_OK;
  goto done;

fail_msg:
  progress_end();
  fprintf(stderr, "clsort sort: %s\n", err);
fail:
  atomic_abort(&kf);
  atomic_abort(&vf);
done:
  progress_end();
  fileio_set_progress(NULL);
  clsort_context_release(ctx);
  free(j.keys);
  free(j.values);
  free(j.indices);
  return rc;
}
