/* record.c: the JSON-lines form of a measurement: writer and parser, on
 * jansson. */
#include "record.h"

#include "parse.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

void record_init(bench_record *r) {
  memset(r, 0, sizeof *r);
  r->mean_ms = -1.0;
  r->wall_median_ms = -1.0;
  r->first_ms = -1.0;
  r->ratio = -1.0;
  r->lib_ms = -1.0;
  r->verified = REC_VERIFY_SKIPPED;
  snprintf(r->distribution, sizeof r->distribution, "uniform");
  snprintf(r->api, sizeof r->api, "device");
  snprintf(r->status, sizeof r->status, "ok");
}

void record_set_throughput(bench_record *r, double bytes) {
  if (r->median_ms <= 0.0) return;
  r->mkeys_per_s = (double)r->n / (r->median_ms * 1e3);
  r->gb_per_s = bytes > 0.0 ? bytes / (r->median_ms * 1e6) : 0.0;
}

/* Every field through jansson (Debian's libjansson-dev, linked
 * statically so that a build carried to a GPU host needs no -dev package
 * there). Keys keep the order they are set in; reals print as %.9g. */
static void set_string(json_t *o, const char *key, const char *value) {
  /* _nocheck: device names and notes are passed through as they are. */
  json_object_set_new_nocheck(o, key, json_string_nocheck(value));
}

static void set_real(json_t *o, const char *key, double value) {
  json_object_set_new_nocheck(o, key, json_real(value));
}

static void set_int(json_t *o, const char *key, uint64_t value) {
  json_object_set_new_nocheck(o, key, json_integer((json_int_t)value));
}

void record_write_json(FILE *out, const bench_record *r) {
  json_t *o = json_object();
  if (!o) return;
  set_string(o, "device", r->device);
  if (r->run[0]) set_string(o, "run", r->run);
  if (r->version[0]) set_string(o, "version", r->version);
  set_string(o, "op", r->op);
  set_string(o, "algorithm", r->algorithm);
  set_string(o, "impl", r->impl);
  set_string(o, "type", r->type);
  json_object_set_new_nocheck(o, "pairs", json_boolean(r->pairs));
  if (r->pairs) set_int(o, "value_size", r->value_size);
  set_string(o, "distribution", r->distribution);
  set_string(o, "api", r->api);
  set_string(o, "status", r->status);
  set_int(o, "n", r->n);
  int lg = log2_exact(r->n);
  if (lg >= 0) set_int(o, "log2n", (uint64_t)lg);
  if (r->runs > 0) {
    set_string(o, "timing", r->timing);
    set_int(o, "runs", r->runs);
    set_int(o, "warmup", r->warmup);
    set_real(o, "median_ms", r->median_ms);
    set_real(o, "min_ms", r->min_ms);
    set_real(o, "max_ms", r->max_ms);
    if (r->mean_ms >= 0.0) set_real(o, "mean_ms", r->mean_ms);
    if (r->wall_median_ms >= 0.0) set_real(o, "wall_median_ms", r->wall_median_ms);
    if (r->first_ms >= 0.0) set_real(o, "first_ms", r->first_ms);
    set_real(o, "mkeys_per_s", r->mkeys_per_s);
    if (r->gb_per_s > 0.0) set_real(o, "gb_per_s", r->gb_per_s);
    json_object_set_new_nocheck(o, "verified",
                                r->verified == REC_VERIFY_OK       ? json_true()
                                : r->verified == REC_VERIFY_FAILED ? json_false()
                                                                   : json_null());
  }
  if (r->ratio >= 0.0) {
    set_real(o, "ratio", r->ratio);
    set_real(o, "lib_ms", r->lib_ms);
    set_string(o, "ratio_vs", r->ratio_vs);
  }
  if (r->seed) {
    /* A string: JSON integers stop at 2^63 in most readers, seeds do not. */
    char buf[24];
    snprintf(buf, sizeof buf, "0x%016" PRIx64, r->seed);
    set_string(o, "seed", buf);
  }
  if (r->note[0]) set_string(o, "note", r->note);
  json_dumpf(o, out, JSON_COMPACT | JSON_REAL_PRECISION(9));
  fputc('\n', out);
  json_decref(o);
}

/* ----------------------------------------------------------- parsing */
static void copy_field(char *dst, size_t cap, const json_t *v) {
  if (json_is_string(v)) snprintf(dst, cap, "%s", json_string_value(v));
}

/* One key of a record; unknown keys and values of the wrong kind are
 * ignored, as records of older and newer versions may hold them. */
static void assign(bench_record *r, const char *key, const json_t *v) {
#define STR_FIELD(name)                             \
  if (strcmp(key, #name) == 0) {                    \
    copy_field(r->name, sizeof r->name, v);         \
    return;                                         \
  }
#define NUM_FIELD(name, ctype)                            \
  if (strcmp(key, #name) == 0) {                          \
    if (json_is_number(v)) r->name = (ctype)json_number_value(v); \
    return;                                               \
  }
  STR_FIELD(device)
  STR_FIELD(run)
  STR_FIELD(version)
  STR_FIELD(op)
  STR_FIELD(algorithm)
  STR_FIELD(impl)
  STR_FIELD(type)
  STR_FIELD(distribution)
  STR_FIELD(api)
  STR_FIELD(timing)
  STR_FIELD(status)
  STR_FIELD(ratio_vs)
  STR_FIELD(note)
  NUM_FIELD(value_size, unsigned)
  NUM_FIELD(runs, unsigned)
  NUM_FIELD(warmup, unsigned)
  NUM_FIELD(median_ms, double)
  NUM_FIELD(min_ms, double)
  NUM_FIELD(max_ms, double)
  NUM_FIELD(mean_ms, double)
  NUM_FIELD(wall_median_ms, double)
  NUM_FIELD(first_ms, double)
  NUM_FIELD(mkeys_per_s, double)
  NUM_FIELD(gb_per_s, double)
  NUM_FIELD(ratio, double)
  NUM_FIELD(lib_ms, double)
#undef STR_FIELD
#undef NUM_FIELD
  if (strcmp(key, "pairs") == 0) {
    r->pairs = json_is_true(v);
  } else if (strcmp(key, "verified") == 0) {
    r->verified = json_is_true(v) ? REC_VERIFY_OK : json_is_false(v) ? REC_VERIFY_FAILED : REC_VERIFY_SKIPPED;
  } else if (strcmp(key, "n") == 0 && json_is_integer(v)) {
    r->n = (uint64_t)json_integer_value(v);
  } else if (strcmp(key, "seed") == 0) {
    /* Written as a string; older records may hold a number. */
    if (json_is_string(v)) r->seed = strtoull(json_string_value(v), NULL, 0);
    if (json_is_integer(v)) r->seed = (uint64_t)json_integer_value(v);
  }
}

int record_parse_json(const char *line, bench_record *r) {
  record_init(r);
  json_error_t error;
  json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, &error);
  if (!json_is_object(o)) {
    json_decref(o);
    return 0;
  }
  const char *key;
  json_t *v;
  json_object_foreach(o, key, v) assign(r, key, v);
  json_decref(o);
  return 1;
}
