/* record.c: the JSON-lines form of a measurement: writer and parser. */
#include "record.h"

#include "parse.h"

#include <ctype.h>
#include <inttypes.h>
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

static void put_string(FILE *out, const char *key, const char *value, int *first) {
  fprintf(out, "%s\"%s\":\"", *first ? "" : ",", key);
  *first = 0;
  for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
    if (*p == '"' || *p == '\\') {
      fprintf(out, "\\%c", *p);
    } else if (*p < 0x20) {
      fprintf(out, "\\u%04x", *p);
    } else {
      fputc(*p, out);
    }
  }
  fputc('"', out);
}

static void put_number(FILE *out, const char *key, double value, int *first) {
  fprintf(out, "%s\"%s\":%.9g", *first ? "" : ",", key, value);
  *first = 0;
}

static void put_raw(FILE *out, const char *key, const char *text, int *first) {
  fprintf(out, "%s\"%s\":%s", *first ? "" : ",", key, text);
  *first = 0;
}

void record_write_json(FILE *out, const bench_record *r) {
  int first = 1;
  char buf[32];
  fputc('{', out);
  put_string(out, "device", r->device, &first);
  if (r->run[0]) put_string(out, "run", r->run, &first);
  if (r->version[0]) put_string(out, "version", r->version, &first);
  put_string(out, "op", r->op, &first);
  put_string(out, "algorithm", r->algorithm, &first);
  put_string(out, "impl", r->impl, &first);
  put_string(out, "type", r->type, &first);
  put_raw(out, "pairs", r->pairs ? "true" : "false", &first);
  if (r->pairs) put_number(out, "value_size", r->value_size, &first);
  put_string(out, "distribution", r->distribution, &first);
  put_string(out, "api", r->api, &first);
  put_string(out, "status", r->status, &first);
  snprintf(buf, sizeof buf, "%" PRIu64, r->n);
  put_raw(out, "n", buf, &first);
  int lg = log2_exact(r->n);
  if (lg >= 0) put_number(out, "log2n", lg, &first);
  if (r->runs > 0) {
    put_string(out, "timing", r->timing, &first);
    put_number(out, "runs", r->runs, &first);
    put_number(out, "warmup", r->warmup, &first);
    put_number(out, "median_ms", r->median_ms, &first);
    put_number(out, "min_ms", r->min_ms, &first);
    put_number(out, "max_ms", r->max_ms, &first);
    if (r->mean_ms >= 0.0) put_number(out, "mean_ms", r->mean_ms, &first);
    if (r->wall_median_ms >= 0.0) put_number(out, "wall_median_ms", r->wall_median_ms, &first);
    if (r->first_ms >= 0.0) put_number(out, "first_ms", r->first_ms, &first);
    put_number(out, "mkeys_per_s", r->mkeys_per_s, &first);
    if (r->gb_per_s > 0.0) put_number(out, "gb_per_s", r->gb_per_s, &first);
    put_raw(out, "verified",
            r->verified == REC_VERIFY_OK       ? "true"
            : r->verified == REC_VERIFY_FAILED ? "false"
                                               : "null",
            &first);
  }
  if (r->ratio >= 0.0) {
    put_number(out, "ratio", r->ratio, &first);
    put_number(out, "lib_ms", r->lib_ms, &first);
    put_string(out, "ratio_vs", r->ratio_vs, &first);
  }
  snprintf(buf, sizeof buf, "%" PRIu64, r->seed);
  if (r->seed) put_raw(out, "seed", buf, &first);
  if (r->note[0]) put_string(out, "note", r->note, &first);
  fputs("}\n", out);
}

/* ----------------------------------------------------------- parsing */
/* A minimal reader for flat objects of strings, numbers, booleans and
 * null: exactly what record_write_json and the peers produce. */

static const char *skip_ws(const char *p) {
  while (*p && isspace((unsigned char)*p)) p++;
  return p;
}

/* Reads a JSON string at p (which points at the opening quote) into dst. */
static const char *read_string(const char *p, char *dst, size_t cap) {
  size_t len = 0;
  if (*p != '"') return NULL;
  for (p++; *p && *p != '"'; p++) {
    char c = *p;
    if (c == '\\') {
      p++;
      switch (*p) {
        case 'n': c = '\n'; break;
        case 't': c = '\t'; break;
        case 'r': c = '\r'; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'u': {
          /* Keeps ASCII escapes; anything wider becomes '?'. */
          char hex[5] = {0};
          for (int k = 0; k < 4; k++) {
            if (!isxdigit((unsigned char)p[1 + k])) return NULL;
            hex[k] = p[1 + k];
          }
          unsigned long u = strtoul(hex, NULL, 16);
          c = u < 0x80 ? (char)u : '?';
          p += 4;
          break;
        }
        case '\0': return NULL;
        default: c = *p; break;
      }
    }
    if (len + 1 < cap) dst[len++] = c;
  }
  if (*p != '"') return NULL;
  dst[len] = '\0';
  return p + 1;
}

typedef enum { V_STRING, V_NUMBER, V_TRUE, V_FALSE, V_NULL } value_kind;

static void copy_field(char *dst, size_t cap, const char *src) { snprintf(dst, cap, "%s", src); }

static void assign(bench_record *r, const char *key, value_kind kind, const char *s, double d,
                   const char *raw) {
#define STR_FIELD(name)                                            \
  if (strcmp(key, #name) == 0) {                                   \
    if (kind == V_STRING) copy_field(r->name, sizeof r->name, s);  \
    return;                                                        \
  }
#define NUM_FIELD(name, ctype)                    \
  if (strcmp(key, #name) == 0) {                  \
    if (kind == V_NUMBER) r->name = (ctype)d;     \
    return;                                       \
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
    r->pairs = kind == V_TRUE;
  } else if (strcmp(key, "verified") == 0) {
    r->verified = kind == V_TRUE ? REC_VERIFY_OK : kind == V_FALSE ? REC_VERIFY_FAILED : REC_VERIFY_SKIPPED;
  } else if (kind == V_NUMBER && (strcmp(key, "n") == 0 || strcmp(key, "seed") == 0)) {
    /* 64-bit integers do not survive a trip through double. */
    uint64_t v = strtoull(raw, NULL, 10);
    if (key[0] == 'n') {
      r->n = v;
    } else {
      r->seed = v;
    }
  }
}

int record_parse_json(const char *line, bench_record *r) {
  record_init(r);
  const char *p = skip_ws(line);
  if (*p != '{') return 0;
  p = skip_ws(p + 1);
  if (*p == '}') return 1;
  for (;;) {
    char key[64], s[256] = "";
    double d = 0.0;
    value_kind kind;
    p = read_string(skip_ws(p), key, sizeof key);
    if (!p) return 0;
    p = skip_ws(p);
    if (*p != ':') return 0;
    p = skip_ws(p + 1);
    const char *raw = p;
    if (*p == '"') {
      p = read_string(p, s, sizeof s);
      if (!p) return 0;
      kind = V_STRING;
    } else if (strncmp(p, "true", 4) == 0) {
      kind = V_TRUE;
      p += 4;
    } else if (strncmp(p, "false", 5) == 0) {
      kind = V_FALSE;
      p += 5;
    } else if (strncmp(p, "null", 4) == 0) {
      kind = V_NULL;
      p += 4;
    } else {
      char *end = NULL;
      d = strtod(p, &end);
      if (end == p) return 0;
      p = end;
      kind = V_NUMBER;
    }
    assign(r, key, kind, s, d, raw);
    p = skip_ws(p);
    if (*p == ',') {
      p++;
      continue;
    }
    return *p == '}';
  }
}
