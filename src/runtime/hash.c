/* hash.c: a 128-bit hash for disk-cache keys and file checksums: two
 * FNV-1a lanes with different offsets and a final avalanche mix. Not
 * cryptographic; a collision only costs a rebuild that fails to load. */
#include "runtime/runtime.h"

#include <stdio.h>
#include <string.h>

static const uint64_t prime = 0x100000001b3ull;

void clsort__hash_init(clsort__hash *h) {
  h->a = 0xcbf29ce484222325ull;
  h->b = 0x84222325cbf29ce4ull ^ 0x9e3779b97f4a7c15ull;
}

void clsort__hash_bytes(clsort__hash *h, const void *data, size_t len) {
  const unsigned char *p = data;
  uint64_t a = h->a, b = h->b;
  for (size_t i = 0; i < len; i++) {
    a = (a ^ p[i]) * prime;
    b = (b ^ p[i] ^ (b >> 29)) * 0xff51afd7ed558ccdull;
  }
  h->a = a;
  h->b = b;
}

void clsort__hash_str(clsort__hash *h, const char *s) {
  clsort__hash_bytes(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

void clsort__hash_hex(const clsort__hash *h, char out[33]) {
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)mix(h->a ^ (h->b << 1)),
           (unsigned long long)mix(h->b));
}
