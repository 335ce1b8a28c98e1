/*
 * timing.h — a monotonic clock and the sorting of measurements, for the
 * compiler's stage clock, the autotuner and the programs in bench/.
 * Header-only, so that programs that link only libtilec's public API use
 * the same clock.
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

#endif
