/* textio.h: the text form of `clsort sort --text`: one decimal number per
 * line, for every key type, spelled so that it reads back bit for bit. */
#ifndef CLI_TEXTIO_H
#define CLI_TEXTIO_H

#include "keys.h"

#include <stddef.h>

/* Parses `len` bytes of text, one number of type t per line (blanks around
 * it and a final '\r' allowed; the last line may lack its newline), into a
 * malloc'ed array *keys of *n elements. Integers are decimal with an
 * optional sign, in range for the type; floats (f16 and bf16 rounded once
 * to nearest from the value strtod reads) take any spelling strtod
 * reads (1.5, -2e-3, 0x1p-3, inf, -inf, nan, -nan, -0), and must not
 * overflow the type. On a malformed line returns 0 with "NAME:LINE: why" in
 * err. */
int text_parse(key_type t, const char *name, const char *text, size_t len, void **keys, size_t *n,
               char *err, size_t err_size);

/* Formats n elements, one a line, into a malloc'ed buffer (*text, *len).
 * Integers in decimal; floats with 9 (f32), 17 (f64), 5 (f16) or 4 (bf16)
 * significant digits,
 * which read back to the same bits, and nan, -nan, inf, -inf, -0 spelled so
 * that strtod reads them (a NaN's payload is not kept: every NaN reads back
 * as the default quiet NaN of its sign). Argsort's indices are formatted
 * as KT_U32 or KT_U64. Returns 1, or 0 when out of memory. */
int text_format(key_type t, const void *keys, size_t n, char **text, size_t *len);

#endif
