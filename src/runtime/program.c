/* program.c: building the cl/ sources into programs, once per variant per
 * context (in memory) and once per machine (on disk), and handing out their
 * kernels. */
#include "runtime/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies `len` bytes plus a terminator into memory from clsort__malloc. */
static char *copy_string(clsort_context *ctx, const char *text, size_t len) {
  char *copy = clsort__malloc(ctx, len + 1);
  if (copy) {
    memcpy(copy, text, len);
    copy[len] = '\0';
  }
  return copy;
}

clsort_status clsort__kernel_source(clsort_context *ctx, const char *file, char **out) {
  *out = NULL;
  const char *dir = getenv("CLSORT_KERNEL_DIR");
  if (dir && *dir) {
    /* Kernel development: read the file as it is now. */
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "rb");
    RETURN_IF(!f, CLSORT_ERROR_BUILD_FAILED, "kernel file %s not found in CLSORT_KERNEL_DIR (%s)",
              file, dir);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = len >= 0 ? clsort__malloc(ctx, (size_t)len + 1) : NULL;
    bool read_ok = text && fread(text, 1, (size_t)len, f) == (size_t)len;
    fclose(f);
    if (!read_ok) {
      free(text);
      return FAIL(text ? CLSORT_ERROR_BUILD_FAILED : CLSORT_ERROR_OUT_OF_MEMORY,
                  "cannot read kernel file %s", path);
    }
    text[len] = '\0';
    *out = text;
    return CLSORT_SUCCESS;
  }
  for (size_t i = 0; i < clsort__kernel_file_count; i++) {
    if (strcmp(clsort__kernel_files[i].name, file) != 0) continue;
    const char *text = clsort__kernel_files[i].text;
    *out = copy_string(ctx, text, strlen(text));
    RETURN_IF(!*out, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for kernel source");
    return CLSORT_SUCCESS;
  }
  return FAIL(CLSORT_ERROR_BUILD_FAILED, "kernel file %s is not embedded in the library", file);
}

/* Template parameters of "file.cl@SUFFIX" entries: the element types the
 * shared layers can be instantiated for. */
typedef struct instance_type {
  const char *suffix, *type, *lowest, *highest;
  int bits, is_float;
} instance_type;

static const instance_type instance_types[] = {
    {"u32", "uint", "0u", "UINT_MAX", 32, 0},
    {"i32", "int", "INT_MIN", "INT_MAX", 32, 0},
    {"f32", "float", "(-INFINITY)", "INFINITY", 32, 1},
    {"u64", "ulong", "0ul", "ULONG_MAX", 64, 0},
    {"i64", "long", "LONG_MIN", "LONG_MAX", 64, 0},
    {"f64", "double", "(-INFINITY)", "INFINITY", 64, 1},
};

/* Writes the #defines that instantiate a template for `suffix` (prefix) or
 * undo them (suffix). Returns false for an unknown suffix. */
static bool template_lines(const char *suffix, bool before, char *out, size_t size) {
  for (size_t i = 0; i < sizeof instance_types / sizeof instance_types[0]; i++) {
    const instance_type *t = &instance_types[i];
    if (strcmp(t->suffix, suffix) != 0) continue;
    if (before)
      snprintf(out, size,
               "#define WG_T %s\n#define WG_SUFFIX %s\n#define WG_T_BITS %d\n"
               "#define WG_T_FLOAT %d\n#define WG_T_LOWEST %s\n#define WG_T_HIGHEST %s\n",
               t->type, t->suffix, t->bits, t->is_float, t->lowest, t->highest);
    else
      snprintf(out, size,
               "#undef WG_T\n#undef WG_SUFFIX\n#undef WG_T_BITS\n#undef WG_T_FLOAT\n"
               "#undef WG_T_LOWEST\n#undef WG_T_HIGHEST\n");
    return true;
  }
  return false;
}

/* Appends text to a growing buffer. */
static bool append(clsort_context *ctx, char **buf, size_t *len, size_t *cap, const char *text) {
  size_t add = strlen(text);
  if (*len + add + 1 > *cap) {
    size_t cap2 = *cap;
    while (*len + add + 1 > cap2) cap2 *= 2;
    char *grown = clsort__malloc(ctx, cap2);
    if (!grown) return false;
    memcpy(grown, *buf, *len + 1);
    free(*buf);
    *buf = grown;
    *cap = cap2;
  }
  memcpy(*buf + *len, text, add + 1);
  *len += add;
  return true;
}

/* Concatenates the program's files with #line markers, so that compiler
 * messages name the right file and line. An entry "name.cl@u32" includes
 * the template name.cl instantiated for u32. */
static clsort_status compose_source(clsort_context *ctx, const clsort__program_spec *spec,
                                    char **out) {
  size_t cap = 4096, len = 0;
  char *src = clsort__malloc(ctx, cap);
  RETURN_IF(!src, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for kernel source");
  src[0] = '\0';
  bool ok = true;
  if (ctx->fail_build) ok = append(ctx, &src, &len, &cap, "#error injected build failure (CLSORT_FAIL_BUILD)\n");
  for (const char *const *f = spec->files; ok && *f; f++) {
    char file[128], before[512] = "", after[512] = "";
    snprintf(file, sizeof file, "%s", *f);
    char *at = strchr(file, '@');
    if (at) {
      *at = '\0';
      if (!template_lines(at + 1, true, before, sizeof before) ||
          !template_lines(at + 1, false, after, sizeof after)) {
        free(src);
        return FAIL(CLSORT_ERROR_BUILD_FAILED, "unknown template type in '%s'", *f);
      }
    }
    char *text;
    clsort_status st = clsort__kernel_source(ctx, file, &text);
    if (st != CLSORT_SUCCESS) {
      free(src);
      return st;
    }
    char marker[160];
    snprintf(marker, sizeof marker, "#line 1 \"%s\"\n", file);
    ok = append(ctx, &src, &len, &cap, before) && append(ctx, &src, &len, &cap, marker) &&
         append(ctx, &src, &len, &cap, text) && append(ctx, &src, &len, &cap, "\n") &&
         append(ctx, &src, &len, &cap, after);
    free(text);
  }
  if (!ok) {
    free(src);
    return FAIL(CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for kernel source");
  }
  *out = src;
  return CLSORT_SUCCESS;
}

static void cache_key(const clsort_context *ctx, const char *source, const char *options,
                      char out_hex[33]) {
  clsort__hash h;
  clsort__hash_init(&h);
  clsort__hash_str(&h, clsort_version_string());
  clsort__hash_str(&h, ctx->platform_name);
  clsort__hash_str(&h, ctx->device_name);
  clsort__hash_str(&h, ctx->device_version);
  clsort__hash_str(&h, ctx->driver_version);
  clsort__hash_str(&h, options);
  clsort__hash_str(&h, source);
  clsort__hash_hex(&h, out_hex);
}

void clsort__cache_key(const clsort_context *ctx, const char *source, const char *options,
                       char out_hex[33]) {
  cache_key(ctx, source, options, out_hex);
}

static void keep_build_log(clsort_context *ctx, cl_program program) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
          CL_SUCCESS ||
      size == 0)
    return;
  char *log = clsort__malloc(ctx, size + 1);
  if (!log) return; /* the log is a courtesy: the build itself stands */
  if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) !=
      CL_SUCCESS) {
    free(log);
    return;
  }
  log[size] = '\0';
  free(ctx->build_log);
  ctx->build_log = log;
}

/* The log belongs to the program cache: clsort__programs_release frees it. */
const char *clsort_context_build_log(const clsort_context *ctx) {
  return ctx && ctx->build_log ? ctx->build_log : "";
}

/* Tries the disk cache; returns NULL when there is no usable binary. */
static cl_program load_from_disk(clsort_context *ctx, const char *key, const char *options) {
  size_t size = 0;
  bool corrupt = false;
  unsigned char *binary = clsort__disk_cache_load(ctx, key, &size, &corrupt);
  if (!binary) {
    if (corrupt) ctx->stats.disk_rejected++;
    return NULL;
  }
  cl_int err, status;
  const unsigned char *bins[1] = {binary};
  cl_program program =
      clCreateProgramWithBinary(ctx->cl_ctx, 1, &ctx->device, &size, bins, &status, &err);
  free(binary);
  if (err == CL_SUCCESS && status == CL_SUCCESS &&
      clBuildProgram(program, 1, &ctx->device, options, NULL, NULL) == CL_SUCCESS) {
    ctx->stats.from_disk++;
    return program;
  }
  if (program) clReleaseProgram(program);
  ctx->stats.disk_rejected++;
  clsort__debug("disk cache: rejected binary %s, rebuilding from source", key);
  return NULL;
}

static void store_to_disk(clsort_context *ctx, const char *key, cl_program program) {
  if (!ctx->cache_dir) return;
  size_t size = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) !=
          CL_SUCCESS ||
      size == 0)
    return;
  unsigned char *binary = clsort__malloc(ctx, size);
  if (!binary) return; /* not cached this time; the program is built */
  unsigned char *bins[1] = {binary};
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
    clsort__disk_cache_store(ctx, key, binary, size);
  free(binary);
}

static clsort_status build(clsort_context *ctx, const clsort__program_spec *spec,
                           const char *options, cl_program *out) {
  char *source = NULL;
  FORWARD_IF_ERROR(compose_source(ctx, spec, &source));
  char key[33];
  cache_key(ctx, source, options, key);
  cl_program program = load_from_disk(ctx, key, options);
  if (program) {
    free(source);
    *out = program;
    return CLSORT_SUCCESS;
  }
  /* Compiling takes seconds on some devices: the caller may say so. */
  if (ctx->build_callback)
    ctx->build_callback(ctx->device_name, clsort_context_cache_dir(ctx),
                        ctx->build_callback_user);
  cl_int err;
  const char *sources[1] = {source};
  size_t source_bytes = strlen(source);
  program = clCreateProgramWithSource(ctx->cl_ctx, 1, sources, NULL, &err);
  free(source);
  FORWARD_IF_ERROR(CL_CHECK(err));
  /* The cold first call is mostly these builds: CLSORT_LOG=debug says which
   * program took how long (scripts/cold-start). */
  double t0 = clsort__now_ms();
  int lock = clsort__driver_build_lock(ctx);
  err = clBuildProgram(program, 1, &ctx->device, options, NULL, NULL);
  clsort__driver_build_unlock(lock);
  clsort__debug("built %s from %zu bytes of source in %.0f ms (%s)", spec->name, source_bytes,
                clsort__now_ms() - t0, options);
  ctx->stats.from_source++;
  keep_build_log(ctx, program);
  if (err == CL_SUCCESS) {
    cl_program capped = clsort__ptx_capped(ctx, program, options);
    if (capped) {
      clReleaseProgram(program);
      program = capped;
      keep_build_log(ctx, program);
    }
  }
  if (err != CL_SUCCESS) {
    clReleaseProgram(program);
    clsort__debug("build log of %s (%s):\n%s", spec->name, options, clsort_context_build_log(ctx));
    return clsort__fail(CLSORT_ERROR_BUILD_FAILED, err, __FILE__, __LINE__,
                        "building program %s (%s) failed: %s; see clsort_context_build_log()",
                        spec->name, options, clsort__cl_error_name(err));
  }
  if (clsort__debug_enabled() && ctx->build_log && ctx->build_log[0])
    clsort__debug("build log of %s (%s):\n%s", spec->name, options, ctx->build_log);
  store_to_disk(ctx, key, program);
  *out = program;
  return CLSORT_SUCCESS;
}

/* CLSORT_NV_MAXNREG=KERNEL=N[,KERNEL=N]... (benchmarking): register caps
 * for kernels of any program, as option tokens (ptx_registers.c), ahead
 * of a program's own so that they decide; N = 0 leaves a kernel as the
 * compiler made it. */
static void env_register_caps(char *out, size_t size) {
  out[0] = '\0';
  const char *env = getenv("CLSORT_NV_MAXNREG");
  char name[128];
  unsigned cap;
  int used;
  size_t at = 0;
  for (const char *c = env; c && sscanf(c, " %127[A-Za-z0-9_]=%u%n", name, &cap, &used) == 2;) {
    int w = snprintf(out + at, size - at, " -DCLSORT_MAXNREG_%s=%u", name, cap);
    if (w < 0 || (size_t)w >= size - at) {
      out[at] = '\0';
      clsort__debug("CLSORT_NV_MAXNREG: too long; caps from %s on are left out", name);
      break;
    }
    at += (size_t)w;
    c += used;
    if (*c != ',') break;
    c++;
  }
}

/* Finds the variant in the context's in-memory cache, building it first if
 * it is not there. */
static clsort_status find_program(clsort_context *ctx, const clsort__program_spec *spec,
                                  const char *options, clsort__program **out) {
  char key[2600];
  const char *extra = getenv("CLSORT_EXTRA_BUILD_OPTIONS");
  char caps[1024];
  env_register_caps(caps, sizeof caps);
  char full_options[2400];
  snprintf(full_options, sizeof full_options, "%s%s %s%s%s", clsort__common_options(ctx), caps,
           options, extra ? " " : "", extra ? extra : "");
  snprintf(key, sizeof key, "%s|%s", spec->name, full_options);
  for (clsort__program *p = ctx->programs; p; p = p->next) {
    if (strcmp(p->key, key) == 0) {
      *out = p;
      return CLSORT_SUCCESS;
    }
  }
  clsort__program *entry = clsort__malloc(ctx, sizeof *entry);
  RETURN_IF(!entry, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for a program entry");
  memset(entry, 0, sizeof *entry);
  entry->key = copy_string(ctx, key, strlen(key));
  if (!entry->key) {
    free(entry);
    return FAIL(CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for a program entry");
  }
  clsort_status st = build(ctx, spec, full_options, &entry->program);
  if (st != CLSORT_SUCCESS) {
    free(entry->key);
    free(entry);
    return st;
  }
  entry->next = ctx->programs;
  ctx->programs = entry;
  *out = entry;
  return CLSORT_SUCCESS;
}

clsort_status clsort__get_kernel(clsort_context *ctx, const clsort__program_spec *spec,
                                 const char *options, const char *kernel_name, cl_kernel *out) {
  clsort__program *p;
  FORWARD_IF_ERROR(find_program(ctx, spec, options, &p));
  int i = 0;
  for (; i < CLSORT_MAX_KERNELS_PER_PROGRAM && p->kernels[i]; i++) {
    if (strcmp(p->kernel_names[i], kernel_name) == 0) {
      *out = p->kernels[i];
      return CLSORT_SUCCESS;
    }
  }
  RETURN_IF(i == CLSORT_MAX_KERNELS_PER_PROGRAM, CLSORT_ERROR_OPENCL,
            "program %s has more than %d kernels", spec->name, CLSORT_MAX_KERNELS_PER_PROGRAM);
  cl_int err;
  cl_kernel k = clCreateKernel(p->program, kernel_name, &err);
  FORWARD_IF_ERROR(CL_CHECK(err));
  /* kernel_name is a string literal of the caller's: it outlives the entry. */
  p->kernels[i] = k;
  p->kernel_names[i] = kernel_name;
  *out = k;
  return CLSORT_SUCCESS;
}

size_t clsort__kernel_wg_limit(const clsort_context *ctx, cl_kernel kernel) {
  size_t wg = 0;
  if (clGetKernelWorkGroupInfo(kernel, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                               NULL) != CL_SUCCESS)
    return 0;
  return wg;
}

void clsort__programs_release(clsort_context *ctx) {
  clsort__program *p = ctx->programs;
  while (p) {
    clsort__program *next = p->next;
    for (int i = 0; i < CLSORT_MAX_KERNELS_PER_PROGRAM && p->kernels[i]; i++)
      clReleaseKernel(p->kernels[i]);
    clReleaseProgram(p->program);
    free(p->key);
    free(p);
    p = next;
  }
  ctx->programs = NULL;
  free(ctx->build_log);
  ctx->build_log = NULL;
}
