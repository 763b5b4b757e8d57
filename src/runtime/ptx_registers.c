/* ptx_registers.c: register caps for single kernels on NVIDIA's OpenCL.
 * Its compiler gives every kernel the registers it likes and passes no
 * cap on to ptxas (-cl-nv-maxrregcount=N builds, and changes nothing: an
 * H100 with driver 580 kept merge_pass at 40 registers under a cap of 32,
 * 2026-11-27), yet occupancy can hang on a few registers. PTX itself
 * takes a cap per entry (.maxnreg). A program asks for one with an option
 * token -DCLSORT_MAXNREG_<kernel>=<N> (harmless to every compiler, and
 * part of the program's key, in memory and on disk); after the source
 * build on NVIDIA, the program's PTX gets the directive in each named
 * entry and is built again from the PTX (ptxas only). */
#include "runtime/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN "-DCLSORT_MAXNREG_"
#define IDENTIFIER "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"

bool clsort__has_register_caps(const char *options) { return strstr(options, TOKEN) != NULL; }

/* The PTX text with ".maxnreg cap" after entry `name`'s parameter list,
 * or NULL (no such entry, one that has a cap already, no memory). */
static char *with_cap(clsort_context *ctx, const char *ptx, const char *name, size_t name_len,
                      unsigned cap) {
  char head[160];
  if (name_len + 9 > sizeof head) return NULL;
  snprintf(head, sizeof head, ".entry %.*s(", (int)name_len, name);
  const char *entry = strstr(ptx, head);
  const char *close = entry ? strchr(entry, ')') : NULL;
  const char *body = close ? strchr(close, '{') : NULL;
  if (!body) return NULL;
  for (const char *p = close; p < body; p++)
    if (strncmp(p, ".maxnreg", 8) == 0) return NULL;
  char directive[32];
  int dl = snprintf(directive, sizeof directive, "\n.maxnreg %u", cap);
  size_t at = (size_t)(close + 1 - ptx), len = strlen(ptx);
  char *out = clsort__malloc(ctx, len + (size_t)dl + 1);
  if (!out) return NULL;
  memcpy(out, ptx, at);
  memcpy(out + at, directive, (size_t)dl);
  memcpy(out + at + dl, ptx + at, len - at + 1);
  return out;
}

char *clsort__ptx_with_caps(clsort_context *ctx, const char *ptx, const char *options) {
  char *out = NULL;
  /* The first token that names a kernel decides (CLSORT_NV_MAXNREG's come
   * first: see program.c); 0 leaves the kernel as compiled. */
  for (const char *t = strstr(options, TOKEN); t; t = strstr(t + 1, TOKEN)) {
    const char *name = t + strlen(TOKEN);
    size_t name_len = strspn(name, IDENTIFIER);
    unsigned cap = 0;
    if (name_len == 0 || name[name_len] != '=' || sscanf(name + name_len + 1, "%u", &cap) != 1)
      continue;
    bool named_before = false;
    for (const char *u = strstr(options, TOKEN); u != t; u = strstr(u + 1, TOKEN))
      named_before |= strncmp(u + strlen(TOKEN), name, name_len + 1) == 0;
    if (named_before || cap < 16 || cap > 255) continue;
    char *next = with_cap(ctx, out ? out : ptx, name, name_len, cap);
    if (next) {
      free(out);
      out = next;
    }
  }
  return out;
}

/* The program's PTX with every cap that `options` asks for, or NULL. */
static char *capped_ptx(clsort_context *ctx, cl_program program, const char *options) {
  size_t size = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
      size == 0)
    return NULL;
  char *ptx = clsort__malloc(ctx, size + 1);
  if (!ptx) return NULL;
  unsigned char *bins[1] = {(unsigned char *)ptx};
  char *out = NULL;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS) {
    ptx[size] = '\0';
    if (strstr(ptx, ".version")) out = clsort__ptx_with_caps(ctx, ptx, options);
  }
  free(ptx);
  return out;
}

cl_program clsort__ptx_capped(clsort_context *ctx, cl_program program, const char *options) {
  if (ctx->vendor_id != VENDOR_NVIDIA || !clsort__has_register_caps(options)) return NULL;
  char *ptx = capped_ptx(ctx, program, options);
  if (!ptx) return NULL;
  size_t len = strlen(ptx) + 1;
  const unsigned char *in[1] = {(const unsigned char *)ptx};
  cl_int err, status;
  double t0 = clsort__now_ms();
  cl_program capped =
      clCreateProgramWithBinary(ctx->cl_ctx, 1, &ctx->device, &len, in, &status, &err);
  free(ptx);
  if (err != CL_SUCCESS || status != CL_SUCCESS ||
      clBuildProgram(capped, 1, &ctx->device, options, NULL, NULL) != CL_SUCCESS) {
    if (capped) clReleaseProgram(capped);
    clsort__debug("register caps: the capped PTX did not build; the program keeps its registers");
    return NULL;
  }
  clsort__debug("register caps: rebuilt from PTX in %.0f ms", clsort__now_ms() - t0);
  return capped;
}
