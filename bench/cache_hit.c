/*
 * cache_hit.c — what a kernel cache hit costs on disk: cache_get of one
 * 200 KB entry (about a large cubin with its PTX), warm in the page cache.
 * The time is open, stat, read and the SHA-256 check of the payload, the
 * part of a JIT cache hit that does not depend on the kernel.
 *
 * usage: cache_hit [RUNS]    (default 1000)
 * prints: payload size, runs, median and minimum µs per cache_get, with the
 * SHA instructions where the CPU has them and with the portable code.
 * The cache is a fresh directory under $TMPDIR (or /tmp), removed after.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "runtime/cache.h"

enum { PAYLOAD = 200 * 1024 };

/* Times runs gets into us[], sorted; 1 when one is not the hit it should be. */
static int time_gets(const char *dir, const char *key, const unsigned char *payload, double *us, int runs) {
  char warn[1024];
  for (int r = 0; r < runs; r++) {
    void *data;
    size_t len;
    double t0 = clock_ms() * 1e3;
    int hit = cache_get(dir, key, &data, &len, warn, sizeof warn);
    us[r] = clock_ms() * 1e3 - t0;
    bool same = hit && len == PAYLOAD && !memcmp(data, payload, len);
    free(data);
    if (!same) {
      fprintf(stderr, "cache_hit: run %d: no hit (%s)\n", r, warn);
      return 1;
    }
  }
  sort_doubles(us, runs);
  return 0;
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 1000;
  if (runs < 1) runs = 1;
  const char *t = getenv("TMPDIR");
  char dir[512], sub[600], path[700], warn[1024];
  snprintf(dir, sizeof dir, "%s/tilec-bench-XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(dir)) {
    fprintf(stderr, "cache_hit: cannot create a directory under %s\n", t && *t ? t : "/tmp");
    return 1;
  }

  unsigned char *payload = malloc(PAYLOAD);
  for (size_t i = 0; i < PAYLOAD; i++) payload[i] = (unsigned char)(i * 2654435761u >> 13);
  char key[65];
  CacheHash h;
  cache_hash_init(&h);
  cache_hash_str(&h, "cache_hit benchmark");
  cache_hash_final(&h, key);
  if (!cache_put(dir, key, payload, PAYLOAD, warn, sizeof warn)) {
    fprintf(stderr, "cache_hit: %s\n", warn);
    return 1;
  }

  double *us = malloc(sizeof *us * (size_t)runs);
  int status = 0;
  for (int accel = 1; accel >= 0 && !status; accel--) {
    if (cache_hash_accel(accel) != accel) continue;
    status = time_gets(dir, key, payload, us, runs);
    if (!status)
      printf("cache_get hit, %d bytes, %d runs, %s SHA-256: median %.1f us, min %.1f us\n", PAYLOAD, runs,
             accel ? "SHA-NI" : "portable", us[runs / 2], us[0]);
  }

  snprintf(sub, sizeof sub, "%s/%.2s", dir, key);
  snprintf(path, sizeof path, "%s/%s.tc", sub, key);
  unlink(path);
  rmdir(sub);
  rmdir(dir);
  free(us);
  free(payload);
  return status;
}
