/* parse.c: parsing of command-line values shared by the tool and the peers. */
#include "parse.h"

#include "keys.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_names[KT_COUNT_] = {"u32", "i32", "f32", "u64", "i64", "f64",
                                                   "u8",  "i8",  "u16", "i16", "f16", "bf16"};

const char *kt_name(key_type t) { return (unsigned)t < KT_COUNT_ ? type_names[t] : NULL; }

int kt_parse(const char *name, key_type *out) {
  for (int t = 0; t < KT_COUNT_; t++) {
    if (strcmp(name, type_names[t]) == 0) {
      *out = (key_type)t;
      return 1;
    }
  }
  return 0;
}

int parse_u64(const char *text, uint64_t *out) {
  if (!text || !*text || *text == '-' || isspace((unsigned char)*text)) return 0;
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 0);
  if (errno || *end) return 0;
  *out = (uint64_t)v;
  return 1;
}

int parse_double(const char *text, double *out) {
  if (!text || !*text) return 0;
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || *end || !isfinite(v)) return 0;
  *out = v;
  return 1;
}

int log2_exact(uint64_t n) {
  if (n == 0 || (n & (n - 1))) return -1;
  int k = 0;
  while (n > 1) {
    n >>= 1;
    k++;
  }
  return k;
}

/* One item that is not a range: "K", "2^K", a count, or a count with suffix. */
static int parse_one_size(const char *item, uint64_t *out) {
  uint64_t v;
  if (strncmp(item, "2^", 2) == 0) {
    if (!parse_u64(item + 2, &v) || v > 62) return 0;
    *out = (uint64_t)1 << v;
    return 1;
  }
  size_t len = strlen(item);
  if (len == 0 || len > 30) return 0;
  char digits[32];
  memcpy(digits, item, len + 1);
  unsigned shift = 0;
  char last = (char)toupper((unsigned char)digits[len - 1]);
  if (last == 'K' || last == 'M' || last == 'G') {
    shift = last == 'K' ? 10 : last == 'M' ? 20 : 30;
    digits[len - 1] = '\0';
  }
  if (!parse_u64(digits, &v)) return 0;
  if (shift) {
    if (v > (UINT64_MAX >> shift)) return 0;
    *out = v << shift;
  } else {
    /* Small numbers are exponents: "--sizes 20" means 2^20 elements. */
    *out = v <= 40 ? (uint64_t)1 << v : v;
  }
  return 1;
}

int parse_sizes(const char *text, uint64_t *out, size_t cap, size_t *count, char *err,
                size_t err_size) {
  *count = 0;
  const char *p = text;
  if (!p || !*p) {
    snprintf(err, err_size, "empty size list");
    return 0;
  }
  while (*p) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char item[64];
    if (len == 0 || len >= sizeof item) {
      snprintf(err, err_size, "bad item in size list '%s'", text);
      return 0;
    }
    memcpy(item, p, len);
    item[len] = '\0';
    const char *dash = strchr(item, '-');
    if (dash) {
      /* A range of exponents, optionally with a step. */
      char a[32] = {0}, b[32] = {0}, s[32] = "1";
      size_t la = (size_t)(dash - item);
      const char *colon = strchr(dash + 1, ':');
      size_t lb = colon ? (size_t)(colon - dash - 1) : strlen(dash + 1);
      if (la == 0 || la >= sizeof a || lb == 0 || lb >= sizeof b) goto bad;
      memcpy(a, item, la);
      memcpy(b, dash + 1, lb);
      if (colon) snprintf(s, sizeof s, "%s", colon + 1);
      uint64_t lo, hi, step;
      if (!parse_u64(a, &lo) || !parse_u64(b, &hi) || !parse_u64(s, &step)) goto bad;
      if (lo > hi || hi > 40 || step == 0) goto bad;
      for (uint64_t k = lo; k <= hi; k += step) {
        if (*count >= cap) goto too_many;
        out[(*count)++] = (uint64_t)1 << k;
      }
    } else {
      if (*count >= cap) goto too_many;
      if (!parse_one_size(item, &out[*count])) goto bad;
      (*count)++;
    }
    p += len;
    if (*p == ',') p++;
    continue;
  bad:
    snprintf(err, err_size,
             "bad size '%s' (expected e.g. 10-28, 16-28:2, 20,24, 2^20, 1000, 3M; exponents <= 40)",
             item);
    return 0;
  too_many:
    snprintf(err, err_size, "more than %zu sizes", cap);
    return 0;
  }
  return 1;
}

int parse_list(const char *text, int (*fn)(const char *item, void *user), void *user) {
  const char *p = text;
  while (p && *p) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len > 0) {
      char item[64];
      if (len >= sizeof item) return 0;
      memcpy(item, p, len);
      item[len] = '\0';
      if (!fn(item, user)) return 0;
    }
    p += len;
    if (*p == ',') p++;
  }
  return 1;
}
