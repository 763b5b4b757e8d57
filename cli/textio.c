/* textio.c: the text form of `clsort sort --text`: parsing with line
 * numbers in every error, and printing that round-trips every bit but
 * NaN payloads. */
#include "textio.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longer lines hold no number any type can take (a float with hundreds of
 * digits would, but nobody writes those). */
#define MAX_NUMBER 512

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Parses one number (NUL-terminated, no blanks) into *bits; returns NULL
 * or the reason it is not a number of type t. */
static const char *parse_one(key_type t, const char *s, uint64_t *bits) {
  char *end = NULL;
  errno = 0;
  switch (t) {
    case KT_U8:
    case KT_U16:
    case KT_U32:
    case KT_U64: {
      /* strtoull takes "-1" and wraps it around: a sign is refused here. */
      if (s[0] == '-') return "negative, for an unsigned type";
      if (s[0] < '0' || s[0] > '9') {
        if (s[0] != '+' || s[1] < '0' || s[1] > '9') return "not a decimal integer";
      }
      unsigned long long v = strtoull(s, &end, 10);
      if (*end) return "not a decimal integer";
      if (errno == ERANGE || v > kt_mask(t)) return "out of range";
      *bits = v;
      return NULL;
    }
    case KT_I8:
    case KT_I16:
    case KT_I32:
    case KT_I64: {
      const char *digits = s + (s[0] == '-' || s[0] == '+');
      if (*digits < '0' || *digits > '9') return "not a decimal integer";
      long long v = strtoll(s, &end, 10);
      if (*end) return "not a decimal integer";
      long long most = (long long)(kt_mask(t) >> 1);
      if (errno == ERANGE || v > most || v < -most - 1) return "out of range";
      *bits = (uint64_t)v & kt_mask(t);
      return NULL;
    }
    case KT_F16:
    case KT_BF16: {
      /* Read as a double, rounded once to the half float. */
      double v = strtod(s, &end);
      if (end == s || *end) return "not a number";
      uint16_t h = kt_half_from_double(t, v);
      if (isinf(kt_half_to_double(t, h)) && !isinf(v)) return "out of range";
      *bits = h;
      return NULL;
    }
    case KT_F32: {
      float v = strtof(s, &end);
      if (end == s || *end) return "not a number";
      /* Underflow to a subnormal or zero is fine; overflow is not. */
      if (errno == ERANGE && isinf(v)) return "out of range";
      uint32_t b;
      memcpy(&b, &v, 4);
      *bits = b;
      return NULL;
    }
    default: {
      double v = strtod(s, &end);
      if (end == s || *end) return "not a number";
      if (errno == ERANGE && isinf(v)) return "out of range";
      memcpy(bits, &v, 8);
      return NULL;
    }
  }
}

int text_parse(key_type t, const char *name, const char *text, size_t len, void **keys, size_t *n,
               char *err, size_t err_size) {
  /* Every number takes at least two bytes, its digit and a newline: a
   * bound that needs no first pass. */
  size_t cap = len / 2 + 1, count = 0, es = kt_size(t);
  unsigned char *out = malloc(cap * es);
  *keys = NULL;
  *n = 0;
  if (!out) {
    snprintf(err, err_size, "out of host memory for the keys of %s", name);
    return 0;
  }
  size_t line = 0;
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    line++;
    const char *a = p, *b = eol;
    while (a < b && is_blank(*a)) a++;
    while (b > a && is_blank(b[-1])) b--;
    char buf[MAX_NUMBER + 1];
    const char *why = NULL;
    uint64_t bits = 0;
    if (a == b) {
      why = "empty line; --text reads one number a line";
    } else if ((size_t)(b - a) > MAX_NUMBER) {
      why = "too long for a number";
    } else if (memchr(a, '\0', (size_t)(b - a))) {
      why = "a NUL byte: is the input binary? (then drop --text)";
    } else {
      memcpy(buf, a, (size_t)(b - a));
      buf[b - a] = '\0';
      why = parse_one(t, buf, &bits);
    }
    if (why) {
      int shown = (int)(b - a) > 40 ? 40 : (int)(b - a);
      /* Empty, or binary that would garble the message: the reason alone. */
      if (a == b || memchr(a, '\0', (size_t)(b - a)))
        snprintf(err, err_size, "%s:%zu: %s", name, line, why);
      else
        snprintf(err, err_size, "%s:%zu: '%.*s%s': %s (%s keys)", name, line, shown, a,
                 (b - a) > 40 ? "..." : "", why, kt_name(t));
      free(out);
      return 0;
    }
    kt_store(t, out, count++, bits);
    p = eol + 1;
  }
  *keys = out;
  *n = count;
  return 1;
}

/* The longest line: "-9223372036854775808", "-1.2345678901234567e-308". */
#define MAX_LINE 32

static size_t format_float(char *buf, double v, int digits) {
  if (isnan(v)) return (size_t)sprintf(buf, "%s\n", signbit(v) ? "-nan" : "nan");
  if (isinf(v)) return (size_t)sprintf(buf, "%s\n", v < 0 ? "-inf" : "inf");
  return (size_t)sprintf(buf, "%.*g\n", digits, v);
}

int text_format(key_type t, const void *keys, size_t n, char **text, size_t *len) {
  char *out = malloc(n * MAX_LINE + 1);
  if (!out) return 0;
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t b = kt_load(t, keys, i);
    char *buf = out + at;
    switch (t) {
      case KT_U8:
      case KT_U16:
      case KT_U32:
      case KT_U64: at += (size_t)sprintf(buf, "%" PRIu64 "\n", b); break;
      case KT_I8: at += (size_t)sprintf(buf, "%d\n", (int)(int8_t)(uint8_t)b); break;
      case KT_I16: at += (size_t)sprintf(buf, "%d\n", (int)(int16_t)(uint16_t)b); break;
      case KT_I32: at += (size_t)sprintf(buf, "%" PRId32 "\n", (int32_t)(uint32_t)b); break;
      /* 5 (f16) and 4 (bf16) significant digits read back to the same bits. */
      case KT_F16: at += format_float(buf, kt_half_to_double(t, (uint16_t)b), 5); break;
      case KT_BF16: at += format_float(buf, kt_half_to_double(t, (uint16_t)b), 4); break;
      case KT_I64: at += (size_t)sprintf(buf, "%" PRId64 "\n", (int64_t)b); break;
      case KT_F32: {
        uint32_t b32 = (uint32_t)b;
        float f;
        memcpy(&f, &b32, 4);
        at += format_float(buf, f, 9);
        break;
      }
      default: {
        double d;
        memcpy(&d, &b, 8);
        at += format_float(buf, d, 17);
        break;
      }
    }
  }
  *text = out;
  *len = at;
  return 1;
}
