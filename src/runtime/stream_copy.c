/* stream_copy.c: the host copies of the staged transfers (transfer.c).
 * They move each byte once and never read it again soon: the pinned slot
 * is read next by the link's DMA, the caller's array by the caller. Plain
 * stores first read every destination line into the cache (a read for
 * ownership), so a copy costs three memory passes; non-temporal stores
 * write lines whole and cost two. The staging pipeline runs at the rate of
 * these copies when they are slower than the link (issue 17). */
#include "runtime/runtime.h"

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>

/* Below this a copy stays in the cache anyway. */
#define STREAM_MIN ((size_t)64 << 10)

void clsort__stream_copy(void *dst, const void *src, size_t bytes) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (bytes < STREAM_MIN) {
    memcpy(d, s, bytes);
    return;
  }
  /* Up to the destination's first 64-byte line, plainly. */
  size_t head = (64 - ((uintptr_t)d & 63)) & 63;
  memcpy(d, s, head);
  d += head;
  s += head;
  bytes -= head;
  size_t lines = bytes / 64;
  for (size_t i = 0; i < lines; i++, d += 64, s += 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)s);
    __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
    __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
    _mm_stream_si128((__m128i *)d, a);
    _mm_stream_si128((__m128i *)(d + 16), b);
    _mm_stream_si128((__m128i *)(d + 32), c);
    _mm_stream_si128((__m128i *)(d + 48), e);
  }
  memcpy(d, s, bytes % 64);
  /* Non-temporal stores are weakly ordered: they must be visible before the
   * thread reports its share done (and the DMA reads the slot). */
  _mm_sfence();
}
#else
void clsort__stream_copy(void *dst, const void *src, size_t bytes) { memcpy(dst, src, bytes); }
#endif
