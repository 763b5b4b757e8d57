/* parse.h: parsing of the command-line values that the tool and the peers
 * share (size lists, comma lists, numbers). Pure C, no OpenCL. */
#ifndef BENCH_PARSE_H
#define BENCH_PARSE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PARSE_MAX_SIZES 64

/* Parses a list of sizes: comma-separated items, each either
 *   "A-B" or "A-B:S"  - every power of two 2^A .. 2^B (step S in the exponent),
 *   "K" with K <= 40  - 2^K,
 *   "2^K"             - 2^K,
 *   a count           - taken literally when above 40; K/M/G suffixes mean
 *                       2^10/2^20/2^30 ("3M" = 3145728).
 * Writes up to `cap` values to out, *count receives how many. Returns 1 on
 * success, 0 on a malformed list (message in err). */
int parse_sizes(const char *text, uint64_t *out, size_t cap, size_t *count, char *err,
                size_t err_size);

/* Parses a non-negative integer (decimal or 0x hex) without trailing junk. */
int parse_u64(const char *text, uint64_t *out);
/* Parses a finite double without trailing junk. */
int parse_double(const char *text, double *out);

/* Calls fn(item, user) for each comma-separated item of `text` (empty items
 * are skipped). Stops at the first callback returning 0 and returns 0;
 * returns 1 when every item was accepted. Items are at most 63 chars. */
int parse_list(const char *text, int (*fn)(const char *item, void *user), void *user);

/* Floor of log2(n) when n is a power of two, else -1. */
int log2_exact(uint64_t n);

#ifdef __cplusplus
}
#endif
#endif
