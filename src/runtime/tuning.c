/* tuning.c: launch shapes and device paths per device, chosen from the
 * vendor and device type. Defaults are what bench/ measured best; the
 * environment can force the portable path for testing it on NVIDIA. */
#include "runtime/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VENDOR_NVIDIA 0x10de

bool clsort__env_flag(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

unsigned clsort__env_fields(const char *name, unsigned *fields, unsigned max) {
  const char *v = getenv(name);
  unsigned got = 0;
  while (v && got < max) {
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    if (end == v || x > 0xFFFFFFFFul || (*end != ':' && *end != '\0')) break;
    fields[got++] = (unsigned)x;
    v = *end == ':' ? end + 1 : NULL;
  }
  return got;
}

void clsort__tune(clsort_context *ctx) {
  clsort__tuning *t = &ctx->tuning;
  if (ctx->is_cpu) {
    /* PoCL runs a work-group as loops over its work-items between barriers.
     * One work-item per group with long serial runs removes those loops: a
     * core then scans like a C loop, and the cores split the chunks.
     * Measured on 2 cores (2^24 u32 scan): 16x64 27.8 ms, 1x64 15.8 ms,
     * 1x256 10.9 ms, against a C loop's 15.4 ms. */
    t->wg_size = 1;
    t->items = 256;
    t->groups_per_cu = 2;
  } else if (ctx->vendor_id == VENDOR_NVIDIA) {
    /* 256 x 24 u32 = 24 KB tiles. Measured on an H100 (2^26 u32 scan,
     * single pass): 256x16 232.6, 128x16 223.5, 256x24 252.8, 256x32 246.5,
     * 512x16 248.1 Gelem/s; compact followed the same order. */
    t->wg_size = 256;
    t->items = 24;
    t->groups_per_cu = 8;
    t->use_ptx = !clsort__env_flag("CLSORT_NO_PTX");
    /* Look-back needs every earlier tile to make progress; dynamic tile
     * numbering guarantees that on NVIDIA, where it has been validated. */
    t->single_pass_scan = t->use_ptx;
  } else {
    t->wg_size = 256;
    t->items = 8;
    t->groups_per_cu = 4;
  }
  /* CLSORT_TUNING=WG:ITEMS:GROUPS_PER_CU[:RADIX_ITEMS] overrides the
   * shape; bench/ uses it to measure alternatives. */
  unsigned f[4] = {0, 0, 0, 0};
  bool forced = clsort__env_fields("CLSORT_TUNING", f, 4) >= 3;
  unsigned wg = f[0], items = f[1], groups = f[2], radix_items = f[3];
  if (forced && wg && items && groups && (wg & (wg - 1)) == 0 && items % 4 == 0 &&
      radix_items % 4 == 0) {
    t->wg_size = wg;
    t->items = items;
    t->groups_per_cu = groups;
    t->radix_items = radix_items;
    /* The bitonic tile follows the forced shape: 16 keys per work-item. */
    t->bitonic_wg = wg > 1 ? wg : 0;
  }
  while (t->wg_size > ctx->max_wg_size && t->wg_size > 1) t->wg_size /= 2;
  /* CPU devices run the CPU shape (docs/ARCHITECTURE.md) unless
   * CLSORT_TUNING forces multi-item groups: the tests force the GPU shape
   * that way. CLSORT_RADIX_CPU=TOP:LOW:WC[:BUCKET] overrides its radix digits. */
  t->cpu_shape = ctx->is_cpu && t->wg_size == 1;
  t->radix_cpu_top = 11;
  t->radix_cpu_low = 11;
  t->radix_cpu_wc = true;
  t->radix_cpu_bucket = 14;
  unsigned r[4] = {0, 0, 1, 14};
  if (clsort__env_fields("CLSORT_RADIX_CPU", r, 4) >= 2 && r[0] >= 1 && r[0] <= 12 && r[1] >= 1 &&
      r[1] <= 12 && r[3] >= 8 && r[3] <= 20) {
    t->radix_cpu_top = r[0];
    t->radix_cpu_low = r[1];
    t->radix_cpu_wc = r[2] != 0;
    t->radix_cpu_bucket = r[3];
  }
  if (t->use_ptx && t->wg_size < 32) t->use_ptx = t->single_pass_scan = false;
  snprintf(ctx->common_options, sizeof ctx->common_options,
           "-DWG_SIZE=%u -DITEMS=%u -DUSE_PTX=%d -DIS_CPU=%d", t->wg_size, t->items,
           t->use_ptx ? 1 : 0, ctx->is_cpu ? 1 : 0);
}

const char *clsort__common_options(const clsort_context *ctx) { return ctx->common_options; }

int clsort__cpu_shape(const clsort_context *ctx) { return ctx->tuning.cpu_shape; }
