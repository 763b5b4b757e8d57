/* stats.c: median, min, max and mean of timed runs. */
#include "stats.h"

#include <stdlib.h>

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

run_stats stats_summarize(double *samples, size_t count) {
  run_stats s = {0.0, 0.0, 0.0, 0.0};
  if (count == 0) return s;
  /* Runs are few (tens), so sorting is the simplest correct median. */
  qsort(samples, count, sizeof *samples, compare_doubles);
  s.min = samples[0];
  s.max = samples[count - 1];
  double sum = 0.0;
  for (size_t i = 0; i < count; i++) sum += samples[i];
  s.mean = sum / (double)count;
  s.median = count % 2 ? samples[count / 2] : 0.5 * (samples[count / 2 - 1] + samples[count / 2]);
  return s;
}
