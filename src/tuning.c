/* tuning.c: launch shapes and device paths per device, chosen from the
 * vendor and device type. Defaults are what bench/ measured best; the
 * environment can force the portable path for testing it on NVIDIA. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VENDOR_NVIDIA 0x10de

static bool env_set(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

void clsort__tune(clsort_context *ctx) {
  clsort__tuning *t = &ctx->tuning;
  if (ctx->is_cpu) {
    /* PoCL runs a work-group as loops over its work-items between barriers:
     * few work-items with long serial runs keep that overhead small. */
    t->wg_size = 16;
    t->items = 64;
    t->groups_per_cu = 4;
  } else if (ctx->vendor_id == VENDOR_NVIDIA) {
    /* 256 x 16 u32 = 16 KB tiles, 8 groups per SM fill 2048 threads. */
    t->wg_size = 256;
    t->items = 16;
    t->groups_per_cu = 8;
    t->use_ptx = !env_set("CLSORT_NO_PTX");
    /* Look-back needs every earlier tile to make progress; dynamic tile
     * numbering guarantees that on NVIDIA, where it has been validated. */
    t->single_pass_scan = t->use_ptx;
  } else {
    t->wg_size = 256;
    t->items = 8;
    t->groups_per_cu = 4;
  }
  while (t->wg_size > ctx->max_wg_size && t->wg_size > 1) t->wg_size /= 2;
  snprintf(ctx->common_options, sizeof ctx->common_options,
           "-DWG_SIZE=%u -DITEMS=%u -DUSE_PTX=%d", t->wg_size, t->items, t->use_ptx ? 1 : 0);
}

const char *clsort__common_options(const clsort_context *ctx) { return ctx->common_options; }
