/* stats.h: the summary statistics of a series of timed runs. Pure C. */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct run_stats {
  double median, min, max;
  double mean; /* what older papers report as "average" */
} run_stats;

/* Median (mean of the middle two for even counts), min, max and mean of
 * samples[0..count). Reorders `samples`. All zero for count == 0. */
run_stats stats_summarize(double *samples, size_t count);

#ifdef __cplusplus
}
#endif
#endif
