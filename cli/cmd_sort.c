/* cmd_sort.c: `clsort sort`: sorts a binary file of keys (and optionally a
 * file of values) on an OpenCL device, writing the results atomically. */
#include "cli.h"
#include "fileio.h"
#include "parse.h"
#include "timing.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: clsort sort --type TYPE [options] IN OUT\n"
    "\n"
    "Sorts the keys in the binary file IN (native byte order, no header) and\n"
    "writes them to OUT. With --values, the values file is permuted along with\n"
    "the keys and written to OUT.values (or --values-out). Outputs are written to\n"
    "temporary files and renamed into place only when everything succeeded, the\n"
    "keys and the values together, so a failed sort leaves every file as it was.\n"
    "A replaced file keeps its mode and, where allowed, its owner; a symbolic\n"
    "link stays a link, and the file it points to gets the data. Devices and\n"
    "FIFOs (/dev/null, /dev/stdout on a pipe) are written straight through, never\n"
    "replaced. IN and OUT may be the same file; the keys and the values may not\n"
    "go to the same file.\n"
    "\n"
    "options:\n"
    "  --type T          key type: u32, i32, f32, u64, i64 or f64 (required)\n"
    "  --desc            largest key first\n"
    "  --stable          equal keys keep their input order\n"
    "  --algorithm A     auto (default), radix, bitonic, sample, merge or quick\n"
    "  --values FILE     values to move with the keys, one per key\n"
    "  --value-size 4|8  bytes per value (required with --values)\n"
    "  --values-out FILE where the sorted values go (default OUT.values)\n"
    "  --device SPEC     P:D, gpu, cpu or part of the device name (default:\n"
    "                    $CLSORT_DEVICE, else the library's default device)\n"
    "  --verbose         say what was sorted, where and how fast (stderr)\n"
    "\n"
    "Floats sort in total order by bits: -NaN < -inf < ... < -0.0 < +0.0 < ... <\n"
    "+inf < +NaN. Exit status: 0 on success, 1 when the sort failed (nothing\n"
    "written), 2 on a bad command line.\n";

typedef struct sort_args {
  const char *in, *out, *values, *values_out, *device;
  key_type type;
  int have_type, verbose;
  size_t value_size;
  clsort_options options;
} sort_args;

static int parse_args(int argc, char **argv, sort_args *a) {
  clsort_options defaults = CLSORT_OPTIONS_DEFAULT;
  memset(a, 0, sizeof *a);
  a->options = defaults;
  int positional = 0;
  for (int i = 1; i < argc; i++) {
    const char *v = NULL, *arg = argv[i];
    int r;
#define VALUE(name) ((r = cli_value("sort", argc, argv, &i, (name), &v)) != 0)
    if (strcmp(arg, "--desc") == 0 || strcmp(arg, "--descending") == 0) {
      a->options.flags |= CLSORT_DESCENDING;
    } else if (strcmp(arg, "--stable") == 0) {
      a->options.flags |= CLSORT_STABLE;
    } else if (strcmp(arg, "--verbose") == 0) {
      a->verbose = 1;
    } else if (VALUE("--type")) {
      if (r < 0) return EXIT_USAGE;
      if (!kt_parse(v, &a->type)) return cli_usage_error("sort", "unknown key type '%s'", v);
      a->have_type = 1;
    } else if (VALUE("--algorithm")) {
      if (r < 0) return EXIT_USAGE;
      if (!cli_parse_algorithm(v, &a->options.algorithm))
        return cli_usage_error("sort", "unknown algorithm '%s'", v);
    } else if (VALUE("--values")) {
      if (r < 0) return EXIT_USAGE;
      a->values = v;
    } else if (VALUE("--values-out")) {
      if (r < 0) return EXIT_USAGE;
      a->values_out = v;
    } else if (VALUE("--value-size")) {
      uint64_t u;
      if (r < 0) return EXIT_USAGE;
      if (!parse_u64(v, &u) || (u != 4 && u != 8))
        return cli_usage_error("sort", "--value-size wants 4 or 8, not '%s'", v);
      a->value_size = (size_t)u;
    } else if (VALUE("--device")) {
      if (r < 0) return EXIT_USAGE;
      a->device = v;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      return cli_usage_error("sort", "unknown option '%s'", arg);
    } else if (positional == 0) {
      a->in = arg;
      positional++;
    } else if (positional == 1) {
      a->out = arg;
      positional++;
    } else {
      return cli_usage_error("sort", "unexpected argument '%s'", arg);
    }
#undef VALUE
  }
  if (!a->have_type) return cli_usage_error("sort", "--type is required");
  if (positional != 2) return cli_usage_error("sort", "needs an input and an output file");
  if (a->values && !a->value_size) return cli_usage_error("sort", "--values needs --value-size 4|8");
  if (!a->values && (a->value_size || a->values_out))
    return cli_usage_error("sort", "--value-size and --values-out need --values");
  return EXIT_OK;
}

/* Refuses inputs the device cannot hold, before any work, with the sizes
 * that explain why. The library would refuse them too, less clearly. */
static int check_device_fits(clsort_context *ctx, size_t key_bytes, size_t value_bytes) {
  cl_device_id dev = clsort_context_device(ctx);
  cl_ulong global = 0, alloc = 0;
  clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof alloc, &alloc, NULL);
  size_t largest = key_bytes > value_bytes ? key_bytes : value_bytes;
  /* Sorting needs the data and a double buffer of it. */
  double need = 2.0 * ((double)key_bytes + (double)value_bytes);
  if ((double)largest > (double)alloc || need > (double)global) {
    fprintf(stderr,
            "clsort sort: input too large for %s: %.1f MiB of keys%s need about %.1f MiB of device "
            "memory; the device has %.1f MiB, at most %.1f MiB per buffer\n",
            clsort_context_device_name(ctx), (double)key_bytes / 1048576.0,
            value_bytes ? " and values" : "", need / 1048576.0, (double)global / 1048576.0,
            (double)alloc / 1048576.0);
    return 0;
  }
  return 1;
}

int cmd_sort(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
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
  void *keys = NULL, *values = NULL;
  size_t key_bytes = 0, value_bytes = 0;
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
      if (strcmp(a.out, values_out) == 0)
        return cli_usage_error("sort", "the keys and the values cannot both go to %s", a.out);
      return cli_usage_error("sort",
                             "the keys and the values cannot both go to %s (%s is the same file)",
                             a.out, values_out);
    }
  }
  rc = EXIT_FAILED;

  /* Sizes first: a file the device cannot take is refused before it is
   * read, however large. */
  size_t ks = kt_size(a.type);
  if (!file_size(a.in, &key_bytes, err, sizeof err)) goto fail_msg;
  if (key_bytes % ks != 0) {
    snprintf(err, sizeof err, "%s: %zu bytes is not a whole number of %s keys (%zu bytes each)", a.in,
             key_bytes, kt_name(a.type), ks);
    goto fail_msg;
  }
  size_t n = key_bytes / ks;
  if (a.values) {
    if (!file_size(a.values, &value_bytes, err, sizeof err)) goto fail_msg;
    if (value_bytes != n * a.value_size) {
      snprintf(err, sizeof err, "%s: %zu bytes, but %zu keys need %zu values of %zu bytes (%zu bytes)",
               a.values, value_bytes, n, n, a.value_size, n * a.value_size);
      goto fail_msg;
    }
  }
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
  if (!check_device_fits(ctx, key_bytes, value_bytes)) goto fail;

  size_t got = 0;
  if (!file_read_all(a.in, &keys, &got, err, sizeof err)) goto fail_msg;
  if (got != key_bytes) {
    snprintf(err, sizeof err, "%s changed size while being read", a.in);
    goto fail_msg;
  }
  if (a.values) {
    if (!file_read_all(a.values, &values, &got, err, sizeof err)) goto fail_msg;
    if (got != value_bytes) {
      snprintf(err, sizeof err, "%s changed size while being read", a.values);
      goto fail_msg;
    }
  }

  double t0 = wall_ms();
  st = values ? clsort_sort_pairs(ctx, (clsort_type)a.type, keys, values, a.value_size, n, &a.options)
              : clsort_sort(ctx, (clsort_type)a.type, keys, n, &a.options);
  double t1 = wall_ms();
  if (st != CLSORT_SUCCESS) {
    snprintf(err, sizeof err, "sorting failed: %s (%s): %s", clsort_status_string(st),
             clsort_status_name(st), clsort_last_error_message());
    goto fail_msg;
  }

  /* Both outputs are complete on disk before either is put in place, and
   * then both are, or neither. */
  if (!atomic_write_all(&kf, keys, key_bytes, err, sizeof err)) goto fail_msg;
  if (values && !atomic_write_all(&vf, values, value_bytes, err, sizeof err)) goto fail_msg;
  atomic_file *outputs[2] = {&kf, &vf};
  if (!atomic_commit_all(outputs, values ? 2 : 1, err, sizeof err)) goto fail_msg;
  if (a.verbose) {
    fprintf(stderr, "clsort sort: %zu %s keys%s on %s in %.3f ms (%.1f Mkeys/s, transfers included)\n",
            n, kt_name(a.type), values ? " with values" : "", clsort_context_device_name(ctx),
            t1 - t0, t1 > t0 ? (double)n / ((t1 - t0) * 1e3) : 0.0);
  }
  rc = EXIT_OK;
  goto done;

fail_msg:
  fprintf(stderr, "clsort sort: %s\n", err);
fail:
  atomic_abort(&kf);
  atomic_abort(&vf);
done:
  clsort_context_release(ctx);
  free(keys);
  free(values);
  return rc;
}
