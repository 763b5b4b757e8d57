/* Partition variants, one thread, P destinations by thresholds, u32 keys. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
enum { MAXB = 15 };
#define LOOP_CLASSIFY(o, c, B) ({ unsigned d_ = 0; for (unsigned k = 0; k < MAXB; k++) d_ += (unsigned)(k < (B)) & (unsigned)((o) >= (c)[k]); d_; })

/* V0: classify twice (count, scatter) as partition.c does now */
static void v0(const uint32_t *keys, uint64_t n, const uint64_t *c, unsigned B, uint32_t *out) {
  uint64_t at[16] = {0};
  for (uint64_t i = 0; i < n; i++) { uint64_t o = keys[i] ^ 0; at[LOOP_CLASSIFY(o, c, B)]++; }
  uint64_t s = 0; for (unsigned d = 0; d <= B; d++) { uint64_t t = at[d]; at[d] = s; s += t; }
  for (uint64_t i = 0; i < n; i++) { uint64_t o = keys[i]; out[at[LOOP_CLASSIFY(o, c, B)]++] = keys[i]; }
}
/* V1: count pass stores dest bytes */
static void v1(const uint32_t *keys, uint64_t n, const uint64_t *c, unsigned B, uint32_t *out, uint8_t *dest) {
  uint64_t at[16] = {0};
  for (uint64_t i = 0; i < n; i++) { uint64_t o = keys[i]; unsigned d = LOOP_CLASSIFY(o, c, B); dest[i] = (uint8_t)d; at[d]++; }
  uint64_t s = 0; for (unsigned d = 0; d <= B; d++) { uint64_t t = at[d]; at[d] = s; s += t; }
  for (uint64_t i = 0; i < n; i++) out[at[dest[i]]++] = keys[i];
}
/* V2: V1, the classify loop into dest without counting (vectorisable), counts from a second light loop */
static void v2(const uint32_t *keys, uint64_t n, const uint64_t *c, unsigned B, uint32_t *out, uint8_t *dest) {
  uint64_t cc[MAXB]; for (unsigned k = 0; k < MAXB; k++) cc[k] = k < B ? c[k] : UINT64_MAX;
  for (uint64_t i = 0; i < n; i++) { uint64_t o = keys[i]; unsigned d = 0; for (unsigned k = 0; k < MAXB; k++) d += o >= cc[k]; dest[i] = (uint8_t)d; }
  uint64_t at[16] = {0};
  for (uint64_t i = 0; i < n; i++) at[dest[i]]++;
  uint64_t s = 0; for (unsigned d = 0; d <= B; d++) { uint64_t t = at[d]; at[d] = s; s += t; }
  for (uint64_t i = 0; i < n; i++) out[at[dest[i]]++] = keys[i];
}
/* V3: V2 with 4 fixed thresholds (P <= 4) via u32 compare when c < 2^32 */
static void v3(const uint32_t *keys, uint64_t n, const uint64_t *c, unsigned B, uint32_t *out, uint8_t *dest) {
  uint32_t cc[3]; for (unsigned k = 0; k < 3; k++) cc[k] = k < B ? (uint32_t)c[k] : UINT32_MAX;
  for (uint64_t i = 0; i < n; i++) { uint32_t o = keys[i]; dest[i] = (uint8_t)((o >= cc[0]) + (o >= cc[1]) + (o >= cc[2])); }
  uint64_t at[16] = {0};
  for (uint64_t i = 0; i < n; i++) at[dest[i]]++;
  uint64_t s = 0; for (unsigned d = 0; d <= B; d++) { uint64_t t = at[d]; at[d] = s; s += t; }
  for (uint64_t i = 0; i < n; i++) out[at[dest[i]]++] = keys[i];
}
int main(int argc, char **argv) {
  uint64_t n = 1 << 24; unsigned P = argc > 1 ? atoi(argv[1]) : 4, B = P - 1;
  uint32_t *k = malloc(n * 4), *o = malloc(n * 4); uint8_t *dest = malloc(n);
  uint64_t x = 1; for (uint64_t i = 0; i < n; i++) { x = x * 6364136223846793005ULL + 1442695040888963407ULL; k[i] = x >> 32; }
  memset(o, 0, n * 4); memset(dest, 0, n);
  uint64_t c[MAXB]; for (unsigned d = 0; d < B; d++) c[d] = (uint64_t)(d + 1) * (1ull << 32) / P;
  for (int v = 0; v < 4; v++) {
    if (v == 3 && P > 4) continue;
    double best = 1e9;
    for (int r = 0; r < 5; r++) { double t = now();
      if (v == 0) v0(k, n, c, B, o); else if (v == 1) v1(k, n, c, B, o, dest); else if (v == 2) v2(k, n, c, B, o, dest); else v3(k, n, c, B, o, dest);
      t = now() - t; if (t < best) best = t; }
    uint64_t chk = 0; for (uint64_t i = 0; i < n; i += 4097) chk += o[i];
    printf("P=%u v%d %.1f ms %.2f ns/el (chk %lu)\n", P, v, best * 1e3, best * 1e9 / n, chk);
  }
  return 0;
}
