/*
 * timing.h — a monotonic clock and the summary of repeated measurements: for
 * the compiler's stage clock, the autotuner, `tilec bench` and the programs
 * in bench/. Header-only, so that programs that link only libtilec's public
 * API use the same clock and the same statistics.
 */
#ifndef TILEC_TIMING_H
#define TILEC_TIMING_H

#include <stdlib.h>
#include <time.h>

/* A monotonic clock, in milliseconds. */
static inline double clock_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static inline int timing_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Sorts x[0..n) ascending. */
static inline void sort_doubles(double *x, int n) {
  if (n > 1) qsort(x, (size_t)n, sizeof *x, timing_cmp);
}

/* The q-quantile (0 <= q <= 1) of sorted x[0..n), interpolated linearly
 * between neighbours; 0 for no samples. */
static inline double quantile(const double *x, int n, double q) {
  if (n <= 0) return 0;
  double pos = q * (n - 1);
  int i = (int)pos;
  if (i >= n - 1) return x[n - 1];
  return x[i] + (pos - i) * (x[i + 1] - x[i]);
}

/* Repeated measurements, summarized as Triton's do_bench reports them: the
 * median, the 20th and 80th percentiles, the extremes and the mean. */
typedef struct TimeSummary {
  int n;
  double median, q20, q80, min, max, mean;
} TimeSummary;

/* Sorts x[0..n) and summarizes it. */
static inline TimeSummary summarize_times(double *x, int n) {
  TimeSummary s = {.n = n};
  if (n <= 0) return s;
  sort_doubles(x, n);
  s.median = quantile(x, n, 0.5);
  s.q20 = quantile(x, n, 0.2);
  s.q80 = quantile(x, n, 0.8);
  s.min = x[0];
  s.max = x[n - 1];
  for (int i = 0; i < n; i++) s.mean += x[i];
  s.mean /= n;
  return s;
}

#endif
