/*
 * bench.h — what the benchmark programs share: the clock and sorting of
 * support/timing.h, and reading a whole file.
 */
#ifndef TILEC_BENCH_H
#define TILEC_BENCH_H

#include <stdio.h>
#include <stdlib.h>

#include "support/timing.h"

/* The whole file at path, NUL-terminated, its length in *len (when len is
 * not NULL); NULL when it cannot be read. The caller frees it. */
static inline char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *s = NULL;
  long n = -1;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (s = malloc((size_t)n + 1)) && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  fclose(f);
  if (!s) return NULL;
  s[n] = 0;
  if (len) *len = (size_t)n;
  return s;
}

#endif
