/* tuning.c: launch shapes and device paths per device, chosen from the
 * vendor and device type. Defaults are what bench/ measured best; the
 * environment can force the portable path for testing it on NVIDIA. */
#include "runtime/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool clsort__env_flag(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

unsigned clsort__env_fields(const char *name, unsigned *fields, unsigned max) {
  const char *v = getenv(name), *all = v;
  unsigned got = 0;
  while (v && got < max) {
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    if (end == v || *v == '-' || x > 0xFFFFFFFFul || (*end != ':' && *end != '\0')) break;
    fields[got++] = (unsigned)x;
    v = *end == ':' ? end + 1 : NULL;
  }
  if (v)
    clsort__debug("%s=%s: field %u is malformed or one too many; it and the rest are ignored",
                  name, all, got + 1);
  return got;
}

bool clsort__env_field_ok(const char *name, const char *what, unsigned value, unsigned lo,
                          unsigned hi, clsort__env_rule rule) {
  static const char *const rules[] = {"", " a power of two", " a multiple of 4", " odd"};
  bool ok = value >= lo && value <= hi;
  if (rule == ENV_POW2) ok = ok && (value & (value - 1)) == 0;
  if (rule == ENV_MUL4) ok = ok && value % 4 == 0;
  if (rule == ENV_ODD) ok = ok && value % 2 == 1;
  if (!ok)
    clsort__debug("%s: %s=%u ignored: it must be%s in %u..%u", name, what, value, rules[rule], lo,
                  hi);
  return ok;
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
    /* Look-back needs every earlier tile to make progress. The scan and
     * the compact number tiles by group id, as CUB does: NVIDIA GPUs start
     * groups in id order. CLSORT_TILE_BY_GROUP=0 takes a ticket in start
     * order instead, which guarantees it (H100, same run as CUB: u32 scan
     * 0.92-0.95x with tickets, 0.95-0.96x by group; compact u32 1.10-1.12x
     * and 1.19-1.21x; docs/PERFORMANCE.md). */
    t->single_pass_scan = t->use_ptx;
    t->tile_by_group = true;
    /* The 64-bit single pass: 192 x 20 (H100, same run as CUB, u64
     * exclusive scan at 2^24/2^26/2^28: 0.94/0.96/0.96x, against
     * 0.86/0.90/0.90x at 256 x 12; 128 x 24 and 224 x 20 close behind,
     * L2 prefetch hints on the loads no better; docs/PERFORMANCE.md). */
    t->scan64_wg = 192;
    t->scan64_items = 20;
  } else {
    t->wg_size = 256;
    t->items = 8;
    t->groups_per_cu = 4;
  }
  /* CLSORT_TUNING=WG:ITEMS:GROUPS_PER_CU[:RADIX_ITEMS] overrides the
   * shape; bench/ uses it to measure alternatives. A shape is one unit:
   * any field out of range keeps the whole default. ITEMS sizes private
   * arrays and unrolled loops (ITEMS=4294967292 once made a 100k scan run
   * for minutes); 256 is the CPU default. Groups of one work-item are the
   * CPU shape's: on a GPU, whose kernels then take the CPU branches of
   * common.cl, NVIDIA's compiler refused the radix program (H100, the
   * suite's sort-levels part), so GPUs take groups of 16 or more, the
   * smallest the suite runs there. */
  static const char *const name = "CLSORT_TUNING";
  unsigned f[4] = {0, 0, 0, 0};
  unsigned got = clsort__env_fields(name, f, 4);
  unsigned wg = f[0], items = f[1], groups = f[2], radix_items = f[3];
  if (got > 0 && got < 3) clsort__debug("%s needs WG:ITEMS:GROUPS_PER_CU; ignored", name);
  bool forced = got >= 3 &&
                clsort__env_field_ok(name, "WG", wg, ctx->is_cpu ? 1 : 16,
                                     (unsigned)ctx->max_wg_size, ENV_POW2) &&
                clsort__env_field_ok(name, "ITEMS", items, 4, 256, ENV_MUL4) &&
                clsort__env_field_ok(name, "GROUPS_PER_CU", groups, 1, 64, ENV_ANY) &&
                (radix_items == 0 ||
                 clsort__env_field_ok(name, "RADIX_ITEMS", radix_items, 4, 256, ENV_MUL4));
  if (forced) {
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
  /* The CPU scan's lines of 4-byte elements: 16 lanes (64 bytes) on PoCL
   * 3, 8 elsewhere. PoCL 5.0's compiler turns the 16-lane line's shuffles
   * into code that took 13.4 ms for 2^24 u32 on 16 cores against 1.38 ms
   * with 8 lanes; PoCL 3.1 runs 16 lanes 20% faster (2 cores: 4.7-5.1
   * against 6.0 ms). docs/results/scan-lanes-2026-11-27-pocl5.
   * CLSORT_SCAN_CPU=LANES overrides (scan_cpu.c). */
  bool pocl3 = strstr(ctx->platform_name, "Portable Computing Language") &&
               strncmp(ctx->driver_version, "3.", 2) == 0;
  t->scan_cpu_lanes = pocl3 ? 16 : 8;
  if (t->use_ptx && t->wg_size < 32) t->use_ptx = t->single_pass_scan = false;
  /* CLSORT_LOOKBACK_NS=NS: the look-back's sleep between polls on NVIDIA,
   * for bench/ to compare (0: spin). */
  unsigned ns = t->lookback_ns;
  if (clsort__env_fields("CLSORT_LOOKBACK_NS", &ns, 1) == 1 &&
      clsort__env_field_ok("CLSORT_LOOKBACK_NS", "NS", ns, 0, 10000, ENV_ANY))
    t->lookback_ns = ns;
  /* The single-pass scan's 64-bit elements per work-item (even, <= 32):
   * CLSORT_SCAN64_ITEMS overrides it for bench/. */
  if (!t->scan64_items) t->scan64_items = t->items / 2 >= 2 ? t->items / 2 / 2 * 2 : 2;
  unsigned s64 = 0;
  if (clsort__env_fields("CLSORT_SCAN64_ITEMS", &s64, 1) == 1 &&
      clsort__env_field_ok("CLSORT_SCAN64_ITEMS", "ITEMS", s64, 2, 32, ENV_ANY) &&
      s64 % 2 == 0)
    t->scan64_items = s64;
  /* Its work-items per group (a multiple of 32): the 64-bit pass has a
   * group size of its own because the u32 scan is fastest at 256 and the
   * u64 one at a smaller group (CUB's sm90 policy: 224 x 24 for 8-byte
   * sums). CLSORT_SCAN64_WG overrides it for bench/. */
  if (!t->scan64_wg) t->scan64_wg = t->wg_size;
  unsigned w64 = 0;
  if (clsort__env_fields("CLSORT_SCAN64_WG", &w64, 1) == 1 &&
      clsort__env_field_ok("CLSORT_SCAN64_WG", "WG", w64, 32, (unsigned)ctx->max_wg_size, ENV_ANY) &&
      w64 % 32 == 0)
    t->scan64_wg = w64;
  const char *by_group = getenv("CLSORT_TILE_BY_GROUP");
  if (by_group && *by_group) t->tile_by_group = strcmp(by_group, "0") != 0;
  /* -w (OpenCL's "inhibit all warnings"): PoCL prints its compiler's
   * warnings ("loop not unrolled", ...) on the caller's stderr, which a
   * library must not; failures still come with their build log. */
  snprintf(ctx->common_options, sizeof ctx->common_options,
           "-w -DWG_SIZE=%u -DITEMS=%u -DSCAN64_ITEMS=%u -DSCAN64_WG=%u -DUSE_PTX=%d -DIS_CPU=%d -DLOOKBACK_NS=%u "
           "-DTILE_BY_GROUP=%d",
           t->wg_size, t->items, t->scan64_items, t->scan64_wg, t->use_ptx ? 1 : 0, ctx->is_cpu ? 1 : 0,
           t->use_ptx ? t->lookback_ns : 0, t->tile_by_group ? 1 : 0);
}

const char *clsort__common_options(const clsort_context *ctx) { return ctx->common_options; }

/* The NVIDIA radix pass's shapes, keyed by device name (a part of it; ""
 * matches any device of the NVIDIA path), key and value size, and the
 * largest n the row serves; the first matching row wins. The starting
 * point is CUB's sm90 onesweep policy (tuning_radix_sort.cuh: 384
 * work-items, 20 keys per work-item for 4-byte keys, 23 for 4-byte pairs,
 * its 4-byte counts scaled by the wider of key and value for 8-byte
 * types). Below 2^21 keys the tiles halve, so that every SM gets work. A
 * shape must fit the device's local memory: its tile of the wider type,
 * plus 2 KB. */
typedef struct onesweep_row {
  const char *device;
  unsigned key_size, value_size;
  size_t max_n;
  clsort__onesweep_shape shape;
} onesweep_row;

#define ANY_N ((size_t)-1)
static const onesweep_row onesweep_table[] = {
    /* H100, 2^26 u32 keys, same run (docs/PERFORMANCE.md): 384 x 16 took
     * 1.567 ms, CUB's 384 x 20 1.682, 384 x 24 1.631. */
    {"H100", 4, 0, ANY_N, {384, 16, 0, 0}},
    {"", 4, 0, (size_t)1 << 21, {384, 10, 0, 0}},
    {"", 4, 4, (size_t)1 << 21, {384, 12, 0, 0}},
    {"", 4, 0, ANY_N, {384, 20, 0, 0}},
    {"", 4, 4, ANY_N, {384, 23, 0, 0}},
    {"", 4, 8, ANY_N, {384, 15, 0, 0}},
    {"", 8, 0, (size_t)1 << 21, {384, 8, 0, 0}},
    {"", 8, 0, ANY_N, {384, 15, 0, 0}},
    {"", 8, 4, ANY_N, {384, 15, 0, 0}},
    {"", 8, 8, ANY_N, {384, 12, 0, 0}},
};

/* Local memory of a shape, as onesweep.cl lays it out. */
static size_t onesweep_local_bytes(clsort__onesweep_shape s, size_t key_size, size_t value_size) {
  size_t wide = key_size > value_size ? key_size : value_size;
  size_t stage = (size_t)s.wg * s.items * wide, hist = (size_t)s.wg / 32 * 256 * 4;
  return (stage > hist ? stage : hist) + 256 * 8 + 64;
}

clsort__onesweep_shape clsort__onesweep_shape_for(const clsort_context *ctx, size_t key_size,
                                                  size_t value_size, size_t n) {
  clsort__onesweep_shape s = {384, 8, 0, 0};
  for (size_t i = 0; i < sizeof onesweep_table / sizeof onesweep_table[0]; i++) {
    const onesweep_row *r = &onesweep_table[i];
    if (r->key_size == key_size && r->value_size == value_size && n <= r->max_n &&
        strstr(ctx->device_name, r->device)) {
      s = r->shape;
      break;
    }
  }
  /* CLSORT_ONESWEEP=WG:ITEMS[:MATCH[:REGS]] forces a shape at every size,
   * for bench/ to compare. */
  unsigned f[4] = {0, 0, 0, 0};
  unsigned got = clsort__env_fields("CLSORT_ONESWEEP", f, 4);
  if (got >= 2 && f[0] >= 256 && f[0] % 32 == 0 && f[0] <= ctx->max_wg_size && f[1] >= 1 &&
      f[1] <= 64) {
    s.wg = f[0];
    s.items = f[1];
    if (got >= 3) s.match = f[2] ? 1 : 0;
    if (got >= 4) s.regs = f[3] >= 32 && f[3] <= 255 ? f[3] : 0;
  }
  while (s.items > 1 && onesweep_local_bytes(s, key_size, value_size) > ctx->local_mem) s.items--;
  return s;
}

int clsort__cpu_shape(const clsort_context *ctx) { return ctx->tuning.cpu_shape; }
